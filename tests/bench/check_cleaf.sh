#!/bin/sh
# SPDX-License-Identifier: MIT
# check_cleaf.sh BENCH_CLEAF SOURCE_DIR: bench_cleaf runs on a few agents, prints both trees' rows,
# finds bt and the floor making the same leaf calls and leaving the same statuses (else it exits
# 1), allocates nothing per think, and refuses bad flags with a usage message and exit status 2;
# the brain it hard-codes is bench/brains.lua's brains.small. No time is checked.
set -u
bench=$1
src=$2
out=$("$bench" --agents 30 --frames 10 --rounds 2 2>&1) || { echo "$out"; echo "FAIL: bench_cleaf failed"; exit 1; }
echo "$out"
[ "$(echo "$out" | grep -c -E '^ *(8 nodes|40 nodes)? +(bt|floor) ')" -eq 4 ] || { echo "FAIL: expected 4 rows"; exit 1; }
[ "$(echo "$out" | grep -c 'statuses that differ after the runs: 0$')" -eq 2 ] || { echo "FAIL: bt and the floor differ"; exit 1; }
bad=$(echo "$out" | grep -E '^ *(8 nodes|40 nodes)? +(bt|floor) ' | awk '$(NF-1) != "0.000"')
[ -z "$bad" ] || { echo "FAIL: allocations per think:"; echo "$bad"; exit 1; }
echo "$out" | grep -q 'fastest of 2 rounds' || { echo "FAIL: --rounds 2 not taken"; exit 1; }
for args in "--agents 0" "--frames 4" "--rounds x" "--agents" "--speed 3"; do
  err=$("$bench" $args 2>&1)
  [ $? -eq 2 ] || { echo "FAIL: $args should exit 2"; exit 1; }
  echo "$err" | grep -q '^usage: ' || { echo "FAIL: no usage message for $args: $err"; exit 1; }
done
want=$(cd "$src/bench" && lua5.4 -e 'io.write(dofile("brains.lua").small, "\n")') || { echo "FAIL: lua5.4"; exit 1; }
[ "$("$bench" --print-small)" = "$want" ] || { echo "FAIL: bench_cleaf's brain is not brains.lua's brains.small"; exit 1; }
echo "ok"
