#!/bin/sh
# SPDX-License-Identifier: MIT
# check_board.sh BENCH_BOARD [BENCH_THINK SOURCE_DIR]: the blackboard's benchmark runs a small
# world and finds that the polling brain and the blackboard brain start the same actions in the
# same order for every agent, that the blackboard brain acts in the frame of each change (latency
# 0) and thinks at least 10x less (a count, not a time); bad flags exit 2 with a usage message.
# With BENCH_THINK, the same of bench/board.lua (Lua brains of behaviour classes), which must
# also make bench_board's thinks, actions and reactions on the same worlds (two seeds and
# lengths), its world being bench_board.c's draw for draw; its --only runs one brain. No time is
# checked.
set -u
cboard=$1
if [ $# -ge 3 ]; then
  set -- "$2" "$3/bench/board.lua"
  what="board.lua"
else
  set -- "$cboard"
  what="bench_board"
fi

# the counts of a run: each brain's thinks, then the actions started and the reactions
counts() {
  echo "$1" | awk '($1 == "polling" || $1 == "blackboard") && $2 ~ /^[0-9]+$/ {printf "%s=%s ", $1, $2}
    /^the same actions/ {sub(/.*\(/, ""); printf "%s", $0}'
}

for args in "--agents 300 --seconds 120 --rounds 2" "--agents 200 --seconds 60.5 --seed 7 --rounds 1"; do
  out=$("$@" $args 2>&1) || { echo "$out"; echo "FAIL: $what $args failed"; exit 1; }
  echo "$out"
  echo "$out" | grep -q 'the same actions, in the same order, for every agent: yes' ||
    { echo "FAIL: $what $args: actions differ"; exit 1; }
  echo "$out" | grep -q '^blackboard .* 0\.000 s \+0\.000 s$' || { echo "FAIL: $what $args: the blackboard brain acted late"; exit 1; }
  echo "$out" | grep -q 'action in the frame of the change$' || { echo "FAIL: $what $args: no frame-of-change line"; exit 1; }
  polling=$(echo "$out" | awk '$1 == "polling" && $2 ~ /^[0-9]+$/ {print $2}')
  board=$(echo "$out" | awk '$1 == "blackboard" && $2 ~ /^[0-9]+$/ {print $2}')
  [ -n "$polling" ] && [ -n "$board" ] && [ "$board" -gt 0 ] && [ $((board * 10)) -le "$polling" ] ||
    { echo "FAIL: $what $args: the blackboard brain should think at least 10x less ($board against $polling)"; exit 1; }
  if [ "$what" = board.lua ]; then
    c=$("$cboard" $args 2>&1) || { echo "$c"; echo "FAIL: bench_board $args failed"; exit 1; }
    [ "$(counts "$out")" = "$(counts "$c")" ] ||
      { echo "$c"; echo "FAIL: $args: Lua brains '$(counts "$out")', C leaves '$(counts "$c")'"; exit 1; }
  fi
done
echo "$out" | grep -q 'best of 1$' || { echo "FAIL: $what: --rounds 1 not taken"; exit 1; }

bad="--agents 0|--seconds x|--seconds 0.5|--rounds|--seed 0|--seed 1e30|--speed 3"
if [ "$what" = board.lua ]; then
  out=$("$@" --agents 50 --seconds 30 --rounds 1 --only blackboard 2>&1) ||
    { echo "$out"; echo "FAIL: --only blackboard failed"; exit 1; }
  [ "$(echo "$out" | grep -c -E '^(polling|blackboard) ')" -eq 1 ] && echo "$out" | grep -q '^blackboard ' ||
    { echo "$out"; echo "FAIL: --only blackboard should print its row alone"; exit 1; }
  bad="$bad|--only both"
fi
IFS='|'
for args in $bad; do
  IFS=' '
  err=$("$@" $args 2>&1)
  [ $? -eq 2 ] || { echo "FAIL: $what $args should exit 2"; exit 1; }
  echo "$err" | grep -q '^usage: ' || { echo "FAIL: no usage message for $what $args: $err"; exit 1; }
  IFS='|'
done
echo "ok"
