#!/bin/sh
# SPDX-License-Identifier: MIT
# check_board.sh BENCH_BOARD: bench_board runs a small world (300 agents, 120 s) and finds that the
# polling brain and the blackboard brain start the same actions in the same order for every agent,
# that the blackboard brain acts in the frame of each change (latency 0) and thinks fewer times
# (a count, not a time); bad flags exit 2 with a usage message. No time is checked.
set -u
bench=$1
out=$("$bench" --agents 300 --seconds 120 --rounds 1 2>&1) || { echo "$out"; echo "FAIL: bench_board failed"; exit 1; }
echo "$out"
echo "$out" | grep -q 'the same actions, in the same order, for every agent: yes' || { echo "FAIL: actions differ"; exit 1; }
echo "$out" | grep -q '^blackboard .* 0\.000 s \+0\.000 s$' || { echo "FAIL: the blackboard brain acted late"; exit 1; }
echo "$out" | grep -q 'action in the frame of the change$' || { echo "FAIL: no frame-of-change line"; exit 1; }
polling=$(echo "$out" | awk '$1 == "polling" && $2 ~ /^[0-9]+$/ {print $2}')
board=$(echo "$out" | awk '$1 == "blackboard" && $2 ~ /^[0-9]+$/ {print $2}')
[ -n "$polling" ] && [ -n "$board" ] && [ "$board" -gt 0 ] && [ $((board * 10)) -le "$polling" ] \
  || { echo "FAIL: the blackboard brain should think at least 10x less ($board against $polling)"; exit 1; }
for args in "--agents 0" "--seconds x" "--rounds" "--seed 0" "--speed 3"; do
  err=$("$bench" $args 2>&1)
  [ $? -eq 2 ] || { echo "FAIL: $args should exit 2"; exit 1; }
  echo "$err" | grep -q '^usage: ' || { echo "FAIL: no usage message for $args: $err"; exit 1; }
done
echo "ok"
