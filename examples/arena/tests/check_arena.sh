#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks of bt-arena, run by ctest (tests/CMakeLists.txt, tests arena.*).
# usage: check_arena.sh <headless|broken_brain|watch|kinds|bad_kinds|error_lines|inspector|bad_flags> <bt-arena> <source dir>
# (exit 77: skipped, for a tool that is missing)
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
  echo "$line" | grep -Eq "^agents=$2 simulated=[0-9.]+s wall=[0-9.]+s ticks=$3 thinks=[0-9]+ brain_us_per_tick=[0-9]+ host_us_per_tick=[0-9]+ alive=[0-9]+ brains=[0-9]+ registered=[0-9]+ deaths=[0-9]+ births=[0-9]+ script_errors=[0-9]+ alive_by_kind=[a-z_0-9]+:[0-9]+(,[a-z_0-9]+:[0-9]+)*$" \
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

kinds)
  # a new kind is an entry in brains/kinds.lua and a brain file: rabbits live without touching C
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  cat > "$tmp/data/brains/rabbit.lua" <<'LUA'
local bt = require "bt"
local RunAway = require "behaviours.runaway"
local Wander = require "behaviours.wander"
return bt.SharedBrain(function()
  return bt.PriorityNode({ RunAway(nil, "predator", 6, 10), Wander(nil, nil, 8) }, .25)
end)
LUA
  # the default kinds first: today's four, in today's numbers
  "$arena" --agents 300 --seconds 2 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
  [ "$(field alive_by_kind "$(cat "$tmp/out")")" = "sheep:150,wolf:38,villager:75,guard:37" ] \
    || fail "the default kinds are not sheep 150, wolves 38, villagers 75, guards 37 of 300: $(cat "$tmp/out")"
  sed -i '$d' "$tmp/data/brains/kinds.lua" # the closing brace of the list
  cat >> "$tmp/data/brains/kinds.lua" <<'LUA'
  {
    name = "rabbit", glyph = "r", colour = "magenta", tags = { "rabbit", "prey" },
    share = 0.1, home = "meadow", eats = { "grass" },
    walk = 2.5, run = 6, health = 20, damage = 0, range = 0, cooldown = 0, hunger = 80, tired = 100,
  },
}
LUA
  "$arena" --agents 300 --seconds 5 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc with a rabbit kind: $(cat "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "errors with a rabbit kind: $(cat "$tmp/err")"
  summary_ok "$tmp/out" 300 150
  line=$(cat "$tmp/out")
  echo "$line"
  rabbits=$(field alive_by_kind "$line" | tr ',' '\n' | sed -n 's/^rabbit://p')
  [ -n "$rabbits" ] && [ "$rabbits" -gt 0 ] || fail "no rabbits in the world: $line"
  [ "$(field alive "$line")" = "$(field brains "$line")" ] || fail "a rabbit without a brain: $line"
  [ "$(field script_errors "$line")" = 0 ] || fail "script errors: $line"
  ;;

bad_kinds)
  # a bad entry stops the arena (exit 2) with the file, line, kind and field
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  good=$tmp/kinds.good
  cp "$tmp/data/brains/kinds.lua" "$good"
  wolf_line=$(grep -n 'name = "wolf"' "$good" | cut -d: -f1)
  walk_line=$(awk -v s="$wolf_line" 'NR > s && /walk = / { print NR; exit }' "$good")
  health_line=$(awk -v s="$wolf_line" 'NR > s && /health = / { print NR; exit }' "$good")
  home_line=$(awk -v s="$wolf_line" 'NR > s && /home = / { print NR; exit }' "$good")
  bad() { # <sed expression> <expected message (grep -F)>
    sed "$1" "$good" > "$tmp/data/brains/kinds.lua"
    "$arena" --agents 40 --seconds 1 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "'$1': exit $rc, expected 2: $(cat "$tmp/err")"
    grep -qF -- "$2" "$tmp/err" || fail "'$1': expected '$2', got: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "'$1': a summary line after a bad kinds file"
    echo "$(head -1 "$tmp/err")"
  }
  bad "${wolf_line},\$s/walk = 3,/walk = \"fast\",/" "bt-arena: brains/kinds.lua:$walk_line: kind 'wolf': field 'walk' must be a number above 0"
  bad "${wolf_line},\$s/health = 100,/helth = 100,/" "brains/kinds.lua:$health_line: kind 'wolf': field 'helth' is not a field of a kind"
  bad "${wolf_line},\$s/home = \"den\",/home = \"cave\",/" "brains/kinds.lua:$home_line: kind 'wolf': field 'home' must be one of"
  bad "${wolf_line}s/glyph = \"W\"/glyph = \"s\"/" "brains/kinds.lua:$wolf_line: kind 'wolf': field 'glyph' is the glyph of kind 'sheep' too"
  bad "${wolf_line}s/name = \"wolf\"/name = \"sheep\"/" "kind 'sheep': field 'name' is the name of kind 1 too"
  bad "s/^return {/return {{/" "brains/kinds.lua:"
  bad "1,/^return {/s/^return {/return 42 --/;/^return 42/,\$d" "brains/kinds.lua: expected the file to return a list of kinds"
  rm "$tmp/data/brains/kinds.lua"
  "$arena" --agents 40 --seconds 1 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err"
  [ $? -eq 2 ] && grep -qF "brains/kinds.lua: cannot read it" "$tmp/err" || fail "a missing kinds file: $(cat "$tmp/err")"

  # with --watch, a bad edit is refused and the old kinds stay; a good one is taken
  cp "$good" "$tmp/data/brains/kinds.lua"
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
  sed "${wolf_line},\$s/walk = 3,/walk = -1,/" "$good" > "$tmp/data/brains/kinds.lua"
  wait_for "refused brains/kinds.lua: brains/kinds.lua:$walk_line: kind 'wolf': field 'walk'" \
    || { kill $pid; cat "$tmp/err"; fail "no 'refused' line for a bad kinds file under --watch"; }
  sleep 0.2
  sed "${wolf_line},\$s/walk = 3,/walk = 3.5,/" "$good" > "$tmp/data/brains/kinds.lua"
  wait_for "reloaded brains/kinds.lua" || { kill $pid; cat "$tmp/err"; fail "no 'reloaded' line for a good kinds file"; }
  kill -0 $pid 2>/dev/null || fail "the arena stopped"
  kill $pid
  wait $pid 2>/dev/null
  grep "kinds.lua" "$tmp/err"
  ;;

error_lines)
  # live, in a terminal of 80 x 24: an error's one-line form on the view's last line (message
  # first, paths relative to the data directory, the creature and its brain file first), kept
  # on screen; every error in full on standard error at exit
  command -v script > /dev/null || { echo "SKIP: arena.error_lines needs script(1) (Debian: bsdutils)"; exit 77; }
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  leaf=$tmp/data/behaviours/wander.lua
  visit=$(grep -n '^function Wander:Visit' "$leaf" | cut -d: -f1)
  [ -n "$visit" ] || fail "no Wander:Visit in behaviours/wander.lua"
  sed -i "${visit}a\\  error(\"the wander leaf is broken\")" "$leaf"
  bline=$((visit + 1))
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 300 --seconds 3 --data '$tmp/data' 2> '$tmp/err'" /dev/null \
    < /dev/null > "$tmp/screen"
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
  # the last line of the last frame: what follows the escape of its colour (white on red)
  last=$(tr '\033' '\n' < "$tmp/screen" | sed -n 's/^\[0;1;97;41m//p' | tail -1)
  echo "last line: '$last'"
  grep -q "^creature: [a-z]* [0-9]*, brain: .*brains/[a-z]*.lua:[0-9]*$" "$tmp/err" \
    || fail "the error at exit does not name the creature and its brain: $(cat "$tmp/err")"
  echo "$last" | grep -Eq "^ ([a-z]+) [0-9]+ brains/\1\.lua: Priority[A-Za-z#0-9/]*: behaviours/wander\.lua:$bline: " \
    || fail "expected the last line as ' <kind> <id> brains/<kind>.lua: Priority/...: behaviours/wander.lua:$bline: <message>', got '$last'"
  [ ${#last} -le 79 ] || fail "the last line is ${#last} columns, above 79: '$last'"
  case $last in *"$tmp"*) fail "the last line has the data directory's path: '$last'" ;; esac
  grep -q "^bt-arena: script error: Priority/Wander: .*wander.lua:$bline: the wander leaf is broken$" "$tmp/err" \
    || fail "the error is not written out in full at exit: $(cat "$tmp/err")"
  grep -q "^stack traceback:" "$tmp/err" || fail "no traceback in the error at exit"
  grep -q "^(.* times)$" "$tmp/err" || fail "a repeated error does not say how often"

  # a refused reload: "refused <file>:<line>: <message>", the path said once, and it stays
  # (the arena runs 8 s after the refusal, past the 5 s a reload used to show)
  cp "$src/behaviours/wander.lua" "$leaf"
  ( sleep 2; echo "return oops(" >> "$leaf" ) &
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 40 --seconds 10 --watch --data '$tmp/data' 2> '$tmp/err'" /dev/null \
    < /dev/null > "$tmp/screen"
  wait
  last=$(tr '\033' '\n' < "$tmp/screen" | sed -n 's/^\[0;1;97;41m//p' | tail -1)
  echo "last line: '$last'"
  case $last in " refused behaviours/wander.lua:"[0-9]*": "*) ;; *) fail "refused reload line: '$last'" ;; esac
  frames_after=$(tr '\033' '\n' < "$tmp/screen" | grep -c '^\[0;1;97;41m refused')
  [ "$frames_after" -ge 35 ] || fail "the refusal was on screen for $frames_after frames; it should stay to the end (5 frames a second)"
  grep -q "^bt-arena: refused .*behaviours/wander.lua" "$tmp/err" || fail "the refusal is not written out at exit: $(cat "$tmp/err")"
  ;;

inspector)
  # live, in a terminal of 80 x 24, driven by keys: a kind's key picks a creature of that kind and
  # shows its tree's node names and marks it on the map; the key again picks the next one; space
  # pauses (the tick and the clock stand still), '.' runs one tick, space again resumes; Esc
  # closes the panel; a cursor key picks the creature nearest the cursor; q quits. Each key is
  # sent once the screen shows what the previous one did.
  command -v script > /dev/null || { echo "SKIP: arena.inspector needs script(1) (Debian: bsdutils)"; exit 77; }
  command -v mkfifo > /dev/null || { echo "SKIP: arena.inspector needs mkfifo(1) (Debian: coreutils)"; exit 77; }
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  # a kind of the test's own, so that its key and its tree's names are known here (kinds are data)
  cat > "$tmp/data/brains/rabbit.lua" <<'LUA'
local bt = require "bt"
local Wander = require "behaviours.wander"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.WhileNode(function(inst) return inst:GetHunger() > 2 end, "NeverStarving", bt.SequenceNode {
      bt.ActionNode(function() end, "Feast"), bt.ActionNode(function() end, "Nap"),
      bt.ActionNode(function() end, "Dig"), bt.ActionNode(function() end, "Hop"),
      bt.ActionNode(function() end, "Sniff"), bt.ActionNode(function() end, "Burrow"),
    }),
    Wander(nil, nil, 8),
  }, .25)
end)
LUA
  sed -i '$d' "$tmp/data/brains/kinds.lua" # the closing brace of the list
  cat >> "$tmp/data/brains/kinds.lua" <<'LUA'
  {
    name = "rabbit", glyph = "r", colour = "magenta", tags = { "rabbit", "prey" },
    share = 0.2, home = "meadow", eats = { "grass" },
    walk = 2.5, run = 6, health = 20, damage = 0, range = 0, cooldown = 0, hunger = 80, tired = 100,
  },
}
LUA
  mkfifo "$tmp/keys"
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 60 --seconds 600 --data '$tmp/data' 2> '$tmp/err'" /dev/null \
    < "$tmp/keys" > "$tmp/screen" &
  pid=$!
  exec 3> "$tmp/keys"
  stop() { exec 3>&-; kill $pid 2>/dev/null; wait $pid 2>/dev/null; }
  # the screen since byte $1, one escape sequence a line
  since() { tail -c +$(($1 + 1)) "$tmp/screen" | tr '\033' '\n'; }
  size() { wc -c < "$tmp/screen"; }
  wait_for() { # <from byte> <grep -E pattern> [<count>]: until the screen shows it (count times), up to 30 s
    for _ in $(seq 300); do
      [ "$(since "$1" | grep -Ec -- "$2")" -ge "${3:-1}" ] && return 0
      kill -0 $pid 2>/dev/null || return 1
      sleep 0.1
    done
    return 1
  }
  key() { mark=$(size); printf "$1" >&3; } # sends a key; $mark: where the screen was
  status_lines() { since "$1" | grep -E '^\[0;[0-9;]*m day [0-9]+ '; }

  wait_for 0 ' day 1 ' || { stop; fail "no frame: $(cat "$tmp/err")"; }
  key r
  # its 11 nodes in the panel's 8 lines: following the running path (Wander), the last 8 show
  wait_for $mark '^\[0;7;[0-9;]*m r rabbit#[0-9]+ ' || { stop; fail "'r' did not show the rabbit's header"; }
  wait_for $mark '^\[0;[0-9;]*mFeast$' || { stop; fail "the tree has no line for the node Feast"; }
  wait_for $mark '^\[0;1;33mWander$' || { stop; fail "the running path (Wander, highlighted) is not shown"; }
  wait_for $mark '^\[0;7;[0-9;]*m nodes 4-11 of 11 $' || { stop; fail "the panel does not say it shows nodes 4-11 of 11"; }
  key '\033[5~' # Page Up: the top of the tree
  wait_for $mark '^\[0;7;[0-9;]*m nodes 1-8 of 11 $' || { stop; fail "Page Up did not scroll to nodes 1-8"; }
  wait_for $mark '^\[0;[0-9;]*mNeverStarving$' || { stop; fail "scrolled up, the tree has no line for NeverStarving"; }
  key ']'
  wait_for $mark '^\[0;7;[0-9;]*m nodes 4-11 of 11 $' || { stop; fail "']' did not scroll down"; }
  since $mark | grep -q '^\[0;1;30;103mr' || { stop; fail "the selected rabbit is not marked on the map"; }
  # its last transitions, from the recorder attached on the pick: thinks, and status changes by path
  # (a bt built with -DBT_RECORDER=OFF has none, and the panel says so)
  wait_for $mark '^\[0;2m(think, sleeps|record: the recorder is compiled out)' || { stop; fail "no think among the rabbit's last transitions"; }
  if since $mark | grep -q 'record: the recorder is compiled out'; then
    echo "(bt is built without the recorder: the panel says so; transitions not checked)"
  else
    wait_for $mark '^\[0;0mPriority/[A-Za-z0-9#/]+ $' || { stop; fail "no status change among the rabbit's last transitions"; }
  fi
  first=$(since $mark | sed -n 's/^\[0;7;[0-9;]*m r rabbit#\([0-9]*\) .*/\1/p' | tail -1)
  key r
  wait_for $mark "^\[0;7;[0-9;]*m r rabbit#[0-9]+ " || { stop; fail "a second 'r' shows no rabbit"; }
  second=$(since $mark | sed -n 's/^\[0;7;[0-9;]*m r rabbit#\([0-9]*\) .*/\1/p' | tail -1)
  [ "$first" != "$second" ] || { stop; fail "a second 'r' did not pick the next rabbit (rabbit#$first both times)"; }
  echo "picked rabbit#$first, then rabbit#$second"

  key ' '
  wait_for $mark 'PAUSED tick [0-9]+' 8 || { stop; fail "space did not pause"; }
  paused=$(status_lines $mark | grep 'PAUSED' | sed 's/.* t=\([0-9.]*\)s PAUSED tick \([0-9]*\) .*/\1 \2/' | sort -u)
  [ "$(echo "$paused" | wc -l)" -eq 1 ] || { stop; fail "paused, the clock or tick moved: $(echo "$paused" | tr '\n' ';')"; }
  tick=${paused#* }
  clock=${paused% *}
  echo "paused at t=${clock}s tick $tick"
  key .
  wait_for $mark "PAUSED tick $((tick + 1)) " 5 || { stop; fail "'.' did not run tick $((tick + 1))"; }
  ticks=$(status_lines $mark | sed -n 's/.*PAUSED tick \([0-9]*\) .*/\1/p' | sort -un | tr '\n' ' ')
  case $ticks in "$((tick + 1)) " | "$tick $((tick + 1)) ") ;; *) stop; fail "after one '.', paused ticks $ticks (expected $tick then $((tick + 1)))" ;; esac
  key ' '
  wait_for $mark 'm day [0-9]+ [0-9:]+ [A-Z]+ t=[0-9.]+s \|' 3 || { stop; fail "space did not resume"; }
  later=$(status_lines $mark | sed -n 's/.* t=\([0-9.]*\)s |.*/\1/p' | tail -1)
  awk -v a="$later" -v b="$clock" 'BEGIN { exit !(a > b) }' || { stop; fail "resumed, the clock stays at ${later}s"; }

  key '\033'
  wait_for $mark ' i inspect ' || { stop; fail "Esc did not close the inspector"; }
  key l
  wait_for $mark '^\[0;7;[0-9;]*m . [a-z_]+#[0-9]+ ' || { stop; fail "a cursor key did not pick a creature"; }
  wait_for $mark '^\[0;1;97;45m' || { stop; fail "the cursor is not drawn"; }
  key q
  exec 3>&-
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
  summary=$(tr -d '\r' < "$tmp/screen" | grep -o 'agents=60 .*' | tail -1)
  echo "$summary"
  [ "$(field script_errors "$summary")" = 0 ] || fail "script errors: $(cat "$tmp/err")"
  [ "$(field ticks "$summary")" -gt "$tick" ] || fail "the summary's ticks: $summary"
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
