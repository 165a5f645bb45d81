#!/bin/sh
# Checks of bt-arena, run by ctest (tests/CMakeLists.txt, tests arena.*).
# usage: check_arena.sh <headless|broken_brain|watch|bad_flags> <bt-arena> <source dir>
set -u
check=$1
arena=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the summary line's fields: field <name> <line>
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

summary_ok() { # <stdout file> <agents> <ticks>
  [ "$(wc -l < "$1")" -eq 1 ] || fail "expected one line on standard output, got: $(cat "$1")"
  line=$(cat "$1")
  echo "$line" | grep -Eq "^agents=$2 simulated=[0-9.]+s wall=[0-9.]+s ticks=$3 thinks=[0-9]+ brain_us_per_tick=[0-9]+ host_us_per_tick=[0-9]+ alive=[0-9]+ brains=[0-9]+ registered=[0-9]+ deaths=[0-9]+ births=[0-9]+ script_errors=[0-9]+$" \
    || fail "summary line not as documented: $line"
}

case $check in
headless)
  "$arena" --agents 300 --seconds 10 --headless --data "$src" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc; standard error: $(cat "$tmp/err")"
  summary_ok "$tmp/out" 300 300
  line=$(cat "$tmp/out")
  echo "$line"
  # with every brain loaded: brains think, and every creature in the world has one registered brain
  if ! grep -q "^bt-arena: \(no brain\|brain failed\)" "$tmp/err"; then
    [ "$(field thinks "$line")" -gt 0 ] || fail "no brain thought"
    [ "$(field alive "$line")" = "$(field brains "$line")" ] || fail "alive and brains differ: $line"
    [ "$(field brains "$line")" = "$(field registered "$line")" ] || fail "brains and registered differ (a dangling brain?): $line"
  else
    echo "(some brains did not load:)"; cat "$tmp/err"
  fi
  ;;

broken_brain)
  mkdir -p "$tmp/data/brains" "$tmp/data/behaviours"
  cp -R "$src/brains/." "$tmp/data/brains/" 2>/dev/null
  cp -R "$src/behaviours/." "$tmp/data/behaviours/" 2>/dev/null
  # a syntax error on a line of its own at the end of wolf.lua ...
  wolf=$tmp/data/brains/wolf.lua
  touch "$wolf"
  [ -z "$(tail -c 1 "$wolf")" ] || echo >> "$wolf"
  echo "this is not lua" >> "$wolf"
  wline=$(wc -l < "$wolf")
  # ... and an error at run time on line 2 of guard.lua
  printf 'local bt = require "bt"\nerror("the guard brain is broken")\n' > "$tmp/data/brains/guard.lua"
  "$arena" --agents 40 --seconds 5 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc -eq 0 ] || fail "exit $rc with a broken brain; the host should go on"
  grep -q "brains/wolf.lua:$wline:" "$tmp/err" || fail "the syntax error does not name brains/wolf.lua:$wline"
  grep -q "brains/guard.lua:2:" "$tmp/err" || fail "the run-time error does not name brains/guard.lua:2"
  summary_ok "$tmp/out" 40 150
  cat "$tmp/out"
  ;;

watch)
  # --watch: a saved edit is reloaded, a broken one refused, and the arena goes on
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  "$arena" --agents 40 --seconds 100000 --headless --watch --data "$tmp/data" > "$tmp/out" 2> "$tmp/err" &
  pid=$!
  wait_for() { # <pattern>: up to 30 s
    for _ in $(seq 300); do
      grep -q "$1" "$tmp/err" && return 0
      kill -0 $pid 2>/dev/null || return 1
      sleep 0.1
    done
    return 1
  }
  sleep 1
  sed -i 's/local SAFE_DIST = 12 /local SAFE_DIST = 14 /' "$tmp/data/brains/sheep.lua"
  wait_for "reloaded .*brains/sheep.lua" || { kill $pid; cat "$tmp/err"; fail "no 'reloaded' line after saving sheep.lua"; }
  echo "return oops(" >> "$tmp/data/behaviours/wander.lua"
  wait_for "refused .*behaviours/wander.lua: .*behaviours/wander.lua:[0-9]*:" || { kill $pid; cat "$tmp/err"; fail "no 'refused' line naming file and line"; }
  kill -0 $pid 2>/dev/null || fail "the arena stopped"
  kill $pid
  wait $pid 2>/dev/null
  grep "bt-arena: re" "$tmp/err"
  ! grep -q "script error" "$tmp/err" || { cat "$tmp/err"; fail "script errors after the reloads"; }
  ;;

bad_flags)
  for args in "--agents" "--agents 0" "--agents many" "--seconds -1" "--seconds soon" "--seed x" \
              "--data $tmp/missing" "--frobnicate" "stray"; do
    # shellcheck disable=SC2086
    "$arena" $args --headless > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "'$args' exited $rc, expected 2"
    flag=${args%% *}
    grep -q -- "$flag" "$tmp/err" || fail "'$args': the message does not name $flag: $(cat "$tmp/err")"
    echo "$args -> $(head -1 "$tmp/err")"
  done
  "$arena" --help > "$tmp/out" 2>&1 || fail "--help exited $?"
  grep -q -- "--agents N" "$tmp/out" || fail "--help does not list --agents"
  ;;

*) fail "unknown check $check" ;;
esac
echo "arena.$check: ok"
