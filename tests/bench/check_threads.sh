#!/bin/sh
# SPDX-License-Identifier: MIT
# check_threads.sh BENCH_THREADS: bench_threads runs on a few agents with up to 3 threads, prints
# a row per scheduler and thread count of each tree, finds every agent's state the same on every
# thread count (and as with the serial scheduler where no leaf queues commands), else it exits 1,
# and refuses bad flags with a usage message and exit status 2. No time is checked.
set -u
bench=$1
out=$("$bench" --agents 200 --frames 10 --rounds 2 --threads 3 2>&1) || { echo "$out"; echo "FAIL: bench_threads failed"; exit 1; }
echo "$out"
[ "$(echo "$out" | grep -c -E '^ *(8 nodes|40 nodes|40 \+ wakes|40 sleeps)? +(bt_sched|[123] threads?) ')" -eq 16 ] \
  || { echo "FAIL: expected 16 rows"; exit 1; }
[ "$(echo "$out" | grep -c 'states after the runs: the same on 1 to 3 threads')" -eq 4 ] \
  || { echo "FAIL: the thread counts differ"; exit 1; }
[ "$(echo "$out" | grep -c ', and as with bt_sched$')" -eq 3 ] || { echo "FAIL: bt_sched differs"; exit 1; }
echo "$out" | grep -q '^2 threads against 1, think phase: ' || { echo "FAIL: no 2-thread line"; exit 1; }
echo "$out" | grep -q '^queueing a command (a wake): from a leaf [0-9.]* ns' || { echo "FAIL: no queue line"; exit 1; }
for args in "--agents 0" "--frames 4" "--rounds x" "--threads 1" "--agents" "--speed 3"; do
  err=$("$bench" $args 2>&1)
  [ $? -eq 2 ] || { echo "FAIL: $args should exit 2"; exit 1; }
  echo "$err" | grep -q '^usage: ' || { echo "FAIL: no usage message for $args: $err"; exit 1; }
done
echo "ok"
