#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks of bt-arena, run by ctest (tests/CMakeLists.txt, tests arena.*).
# usage: check_arena.sh <headless|broken_brain|watch|kinds|bad_kinds|error_lines|viewer_line|inspector|
#                        bad_flags|no_terminal|record|replay_damage|replay_view|threads|own_writes|
#                        achieves|fast_paths|board|check> <bt-arena>
#                        <source dir> [<bt-log or none>
#                        [<the directory of bt.so>]]
# (exit 77: skipped, for a tool that is missing)
set -u
check=$1
arena=$2
src=$3
btlog=${4:-none}
luacpath=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the summary line's fields: field <name> <line>
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

summary_ok() { # <stdout file> <agents> <ticks>
  [ "$(wc -l < "$1")" -eq 1 ] || fail "expected one line on standard output, got: $(cat "$1")"
  line=$(cat "$1")
  echo "$line" | grep -Eq "^agents=$2 simulated=[0-9.]+s wall=[0-9.]+s ticks=$3 thinks=[0-9]+ brain_us_per_tick=[0-9]+ host_us_per_tick=[0-9]+ alive=[0-9]+ brains=[0-9]+ registered=[0-9]+ deaths=[0-9]+ births=[0-9]+ script_errors=[0-9]+ alive_by_kind=[a-z_0-9]+:[0-9]+(,[a-z_0-9]+:[0-9]+)* threads=[0-9]+ apply_us_per_tick=[0-9]+ commands=[0-9]+ world=[0-9a-f]{16}$" \
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
  # a brain that failed to load gets its creatures going once its file is fixed, on one state and
  # on the pool's (the brains are loaded after the reloader's poll returns)
  cp "$src/behaviours/wander.lua" "$tmp/data/behaviours/wander.lua"
  cp "$src/brains/wolf.lua" "$tmp/wolf.lua"
  for n in 0 2; do
    echo "this is not lua" >> "$tmp/data/brains/wolf.lua"
    : > "$tmp/err"
    "$arena" --agents 40 --seconds 100000 --headless --watch --threads $n --data "$tmp/data" > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    wait_for "no brain for wolf" || { kill $pid; cat "$tmp/err"; fail "--threads $n: no 'no brain for wolf' line"; }
    sleep 1 # the line comes while the brains load, before the files are watched
    cp "$tmp/wolf.lua" "$tmp/data/brains/wolf.lua"
    wait_for "reloaded .*brains/wolf.lua" || { kill $pid; cat "$tmp/err"; fail "--threads $n: the fixed wolf.lua was not reloaded"; }
    sleep 1
    kill -0 $pid 2>/dev/null || { cat "$tmp/err"; fail "--threads $n: the arena stopped after the fixed brain's reload"; }
    kill $pid
    wait $pid 2>/dev/null
    ! grep -q "script error" "$tmp/err" || { cat "$tmp/err"; fail "--threads $n: script errors after the fixed brain's reload"; }
    echo "--threads $n: $(grep "reloaded .*wolf" "$tmp/err")"
  done
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
  # the default kinds first: Don't Starve's four and the two written on the blackboard, in their
  # numbers (shares 0.5, 0.125, 0.25, 0.125, 0.125 and 0.0625 of 300)
  "$arena" --agents 300 --seconds 2 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
  [ "$(field alive_by_kind "$(cat "$tmp/out")")" = "sheep:126,wolf:32,villager:63,guard:32,ewe:32,fox:15" ] \
    || fail "the default kinds are not sheep 126, wolves 32, villagers 63, guards 32, ewes 32, foxes 15 of 300: $(cat "$tmp/out")"
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
  # a kind whose entry says the host writes keys its brain has no blackboard for: each write is a
  # script error that names the creature and the key, and the arena goes on
  sed -i 's/share = 0.1, home = "meadow", eats = { "grass" },/share = 0.1, home = "meadow", eats = { "grass" }, keys = { night = true },/' \
    "$tmp/data/brains/kinds.lua"
  grep -q 'keys = { night = true }' "$tmp/data/brains/kinds.lua" || fail "the rabbit's keys were not added"
  "$arena" --agents 300 --seconds 1 --headless --data "$tmp/data" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc with a rabbit's keys and no board: $(cat "$tmp/err")"
  grep -q "^bt-arena: script error: rabbit#[0-9]*: the host writes its key 'night' (keys in brains/kinds.lua), but its brain has no blackboard" "$tmp/err" \
    || fail "a key written to a brain without a blackboard is not said: $(cat "$tmp/err")"
  echo "$(head -1 "$tmp/err")"
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
  # the keys the host writes (a kind written on the blackboard): only those it knows, a threat's
  # distances in order
  fox_line=$(grep -n 'name = "fox"' "$good" | cut -d: -f1)
  fox_keys=$(awk -v s="$fox_line" 'NR > s && /keys = / { print NR; exit }' "$good")
  ewe_line=$(grep -n 'name = "ewe"' "$good" | cut -d: -f1)
  ewe_keys=$(awk -v s="$ewe_line" 'NR > s && /keys = / { print NR; exit }' "$good")
  bad "${fox_keys}s/hunger = true/thirst = true/" \
    "brains/kinds.lua:$fox_keys: kind 'fox': field 'keys' names \"thirst\", which the host does not write (night, hunger, threat)"
  bad "${fox_keys}s/night = true/night = 1/" "brains/kinds.lua:$fox_keys: kind 'fox': field 'keys' takes night = true, got 1"
  bad "${ewe_keys}s/far = 12/far = 4/" "brains/kinds.lua:$ewe_keys: kind 'ewe': field 'keys' threat: far must be a number from near (8) to 100, got 4"
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

viewer_line)
  # live, with --viewer, in a terminal of 80 x 24: the view's last line shows the page's URL, as
  # standard error says it, and keeps it to the end of a run of 7 simulated seconds (it went after
  # 5); a reload replaces it, and it does not come back
  command -v script > /dev/null || { echo "SKIP: arena.viewer_line needs script(1) (Debian: bsdutils)"; exit 77; }
  "$arena" --viewer 0 --headless --agents 2 --seconds 0.1 --data "$src" > "$tmp/out" 2> "$tmp/err"
  if grep -q "built without the viewer" "$tmp/err"; then echo "SKIP: $(cat "$tmp/err")"; exit 77; fi
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 20 --seconds 7 --viewer 0 --data '$src' 2> '$tmp/err'" /dev/null \
    < /dev/null > "$tmp/screen"
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
  url=$(sed -n 's/^viewer: //p' "$tmp/err")
  case $url in http://127.0.0.1:[0-9]*/) ;; *) fail "no 'viewer: URL' line on standard error: $(cat "$tmp/err")" ;; esac
  # the last line of the last frame: the last text in a colour of its own (view_close writes none)
  last=$(tr '\033' '\n' < "$tmp/screen" | grep '^\[0;[0-9;]*m' | tail -1 | sed 's/ *$//')
  echo "last line: '$last'"
  [ "$last" = "[0;1;97;42m viewer: $url" ] || fail "the last line at 7 s is not ' viewer: $url' in green: '$last'"
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 20 --seconds 3 --viewer 0 --reload-at 30 --data '$src' 2> '$tmp/err'" /dev/null \
    < /dev/null > "$tmp/screen"
  rc=$?
  [ $rc -eq 0 ] || fail "--reload-at 30: exit $rc: $(cat "$tmp/err")"
  order=$(tr '\033' '\n' < "$tmp/screen" | sed -n 's/^\[0;1;97;42m \(viewer\|reloaded\)[: ].*/\1/p' | uniq | tr '\n' ' ')
  echo "last lines in turn: $order"
  [ "$order" = "viewer reloaded " ] || fail "expected the viewer's line, then the reload's for good; got: $order"
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

record)
  # the same seed gives the same log, byte for byte; another seed another one
  for f in A B; do
    "$arena" --agents 300 --seconds 5 --headless --seed 3 --data "$src" --record "$tmp/$f" > "$tmp/out.$f" 2> "$tmp/err.$f" \
      || fail "--record exited $?: $(cat "$tmp/err.$f")"
  done
  cmp "$tmp/A" "$tmp/B" > "$tmp/cmp" || fail "two recordings with --seed 3 differ: $(cat "$tmp/cmp")"
  "$arena" --agents 300 --seconds 5 --headless --seed 4 --data "$src" --record "$tmp/C" > /dev/null 2>&1 || fail "--seed 4 --record failed"
  ! cmp -s "$tmp/A" "$tmp/C" || fail "recordings with --seed 3 and --seed 4 are equal"
  line=$(cat "$tmp/out.A")
  echo "$line"
  echo "$line" | grep -Eq "^agents=300 .* alive_by_kind=[a-z_0-9:,]+ threads=[0-9]+ apply_us_per_tick=[0-9]+ commands=[0-9]+ world=[0-9a-f]{16} recorded=$tmp/A frames=152 records=[0-9]+ transitions=[0-9]+ bytes=[0-9]+ bytes_per_transition=[0-9.]+$" \
    || fail "the summary of a recording is not as documented (frames: 150 ticks, the first and the last): $line"
  [ "$(field bytes "$line")" = "$(wc -c < "$tmp/A")" ] || fail "the summary's bytes are not the file's size ($(wc -c < "$tmp/A")): $line"
  [ "$(field transitions "$line")" -gt 1000 ] || fail "hardly any transitions recorded: $line"
  # bt-log reads it: every agent, labelled "<kind> <id>", and the world's records
  if [ "$btlog" = none ]; then
    echo "(bt-log is not built: the log is not read with it)"
  else
    "$btlog" print "$tmp/A" > "$tmp/print" 2> "$tmp/err" || fail "bt-log print exited $?: $(cat "$tmp/err")"
    labels=$(awk -F'\t' '$5 != "world" { print $3 }' "$tmp/print" | sort -u)
    [ "$(echo "$labels" | wc -l)" -eq 300 ] || fail "bt-log print shows $(echo "$labels" | wc -l) agents, not 300"
    echo "$labels" | grep -Evq '^(sheep|wolf|villager|guard|ewe|fox) [0-9]+$' && fail "labels not '<kind> <id>': $(echo "$labels" | grep -Ev '^(sheep|wolf|villager|guard|ewe|fox) [0-9]+$' | head -3)"
    grep -q "$(printf '\tsheep [0-9]*\t[0-9]*\tstatus\tPriority/')" "$tmp/print" || fail "no sheep's status change in bt-log print"
    # the host's writes of the keys of the kinds written on the blackboard are records too
    awk -F'\t' '$5 == "key"' "$tmp/print" > "$tmp/keys"
    [ -s "$tmp/keys" ] || fail "bt-log print shows no key record (the host writes the ewes' and foxes' keys)"
    ! awk -F'\t' '$3 !~ /^(ewe|fox) [0-9]+$/ || $6 !~ /^(night|hunger|threat)$/' "$tmp/keys" | grep . \
      || fail "key records of another kind, or of a key the host does not write"
    echo "bt-log print: $(wc -l < "$tmp/keys") key records, such as: $(head -1 "$tmp/keys")"
    [ "$(awk -F'\t' '$5 == "world" && $6 == 2' "$tmp/print" | wc -l)" -eq 152 ] || fail "bt-log print does not show the 152 frames"
    "$btlog" stats "$tmp/A" > "$tmp/stats" 2> "$tmp/err" || fail "bt-log stats exited $?: $(cat "$tmp/err")"
    agents=$(awk -F'\t' '$1 == "shape" { for (i = 1; i < NF; i++) if ($i == "agents") n += $(i + 1) } END { print n + 0 }' "$tmp/stats")
    [ "$agents" -eq 300 ] || fail "bt-log stats counts $agents agents over its shapes, not 300: $(head -3 "$tmp/stats")"
    grep -q '^Priority	' "$tmp/stats" || fail "bt-log stats has no row for the brains' root"
    echo "bt-log print: 300 agents; bt-log stats: $(grep -c '^shape' "$tmp/stats") shapes of 300 agents"
  fi
  # a replay ends where the recording did: a run with night, deaths and births
  "$arena" --agents 300 --seconds 50 --headless --seed 3 --data "$src" --record "$tmp/L" > "$tmp/rec" 2> "$tmp/err" \
    || fail "--record exited $?: $(cat "$tmp/err")"
  "$arena" --replay "$tmp/L" --headless > "$tmp/rep" 2> "$tmp/err" || fail "--replay exited $?: $(cat "$tmp/err")"
  rec=$(cat "$tmp/rec")
  rep=$(cat "$tmp/rep")
  echo "$rec"
  echo "$rep"
  [ ! -s "$tmp/err" ] || fail "--replay of a whole log says something: $(cat "$tmp/err")"
  echo "$rep" | grep -Eq "^replay=$tmp/L frames=[0-9]+ ticks=[0-9]+ simulated=[0-9.]+s wall=[0-9.]+s agents=[0-9]+ records=[0-9]+ transitions=[0-9]+ thinks=[0-9]+ bytes=[0-9]+ alive=[0-9]+ deaths=[0-9]+ births=[0-9]+ alive_by_kind=[a-z_0-9:,]+ world=[0-9a-f]{16} end=ended$" \
    || fail "the replay's summary is not as documented: $rep"
  [ "$(field deaths "$rec")" -gt 0 ] || fail "no death in 50 s: the check needs one"
  for f in ticks alive deaths births alive_by_kind records transitions thinks world; do
    [ "$(field $f "$rec")" = "$(field $f "$rep")" ] || fail "the replay's $f ($(field $f "$rep")) is not the recording's ($(field $f "$rec"))"
  done
  [ "$(field frames "$rep")" = "$(field frames "$rec")" ] || fail "the replay applied $(field frames "$rep") frames of $(field frames "$rec")"
  [ "$(field agents "$rep")" -eq $(($(field agents "$rec") + $(field births "$rec"))) ] \
    || fail "the replay has $(field agents "$rep") brains, not the 300 of the start and the $(field births "$rec") born"
  [ "$(field bytes "$rep")" = "$(field bytes "$rec")" ] || fail "the replay read $(field bytes "$rep") bytes of $(field bytes "$rec")"
  ;;

replay_damage)
  # a log cut short replays to its cut and says so; a damaged one to the damage, with the byte;
  # what is not a recording is refused; a log still being written replays as far as it goes
  "$arena" --agents 300 --seconds 5 --headless --seed 3 --data "$src" --record "$tmp/A" > "$tmp/rec" 2> "$tmp/err" \
    || fail "--record exited $?: $(cat "$tmp/err")"
  size=$(wc -c < "$tmp/A")
  frames=$(field frames "$(cat "$tmp/rec")")
  head -c $((size / 2)) "$tmp/A" > "$tmp/cut"
  "$arena" --replay "$tmp/cut" --headless > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || fail "a cut log: exit $rc, expected 0: $(cat "$tmp/err")"
  grep -q "^bt-arena: $tmp/cut: the log stops at byte [0-9]* inside a block (cut there, or still being written): replayed to tick [0-9]*$" "$tmp/err" \
    || fail "a cut log does not say where it stops: $(cat "$tmp/err")"
  got=$(field frames "$(cat "$tmp/out")")
  [ "$got" -gt 1 ] && [ "$got" -lt "$frames" ] || fail "a log cut in half replayed $got frames of $frames"
  [ "$(field end "$(cat "$tmp/out")")" = cut ] || fail "a cut log's summary: $(cat "$tmp/out")"
  echo "cut at byte $((size / 2)) of $size: $(cat "$tmp/err")"
  cp "$tmp/A" "$tmp/bad"
  printf '\377\377\377\377' | dd of="$tmp/bad" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
  "$arena" --replay "$tmp/bad" --headless > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || fail "a damaged log: exit $rc, expected 1: $(cat "$tmp/err")"
  grep -q "^bt-arena: $tmp/bad: corrupt at byte [0-9]*: " "$tmp/err" || fail "a damaged log does not name the byte: $(cat "$tmp/err")"
  got=$(field frames "$(cat "$tmp/out")")
  [ "$got" -gt 1 ] && [ "$got" -lt "$frames" ] || fail "a log damaged halfway replayed $got frames of $frames"
  echo "damaged: $(cat "$tmp/err")"
  refused() { # <file> <expected message (grep)>
    "$arena" --replay "$1" --headless > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "--replay $1: exit $rc, expected 1"
    grep -q -- "$2" "$tmp/err" || fail "--replay $1: expected '$2', got: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "--replay $1: a summary line for what is no recording"
    cat "$tmp/err"
  }
  echo "not a log" > "$tmp/text"
  refused "$tmp/text" "^bt-arena: $tmp/text: not a bt log"
  refused "$tmp/missing" "^bt-arena: cannot open $tmp/missing"
  head -c 16 "$tmp/A" > "$tmp/header"
  refused "$tmp/header" "^bt-arena: $tmp/header: no map record of bt-arena's in it"
  # records of the arena's kinds with wrong bytes inside (their checks match): Lua writes them
  if [ -n "$luacpath" ] && command -v lua5.4 > /dev/null; then
    # a sanitizer build's bt.so needs the sanitizers' runtimes preloaded into the stock lua5.4
    preload="${BT_SANITIZE_PRELOAD:-}${BT_SANITIZE_PRELOAD:+ $luacpath/bt.so}"
    LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}" LUA_CPATH="$luacpath/?.so;;" lua5.4 - "$tmp/A" "$tmp" > "$tmp/lua.out" 2>&1 <<'LUA' \
      || fail "writing bad records: $(cat "$tmp/lua.out")"
local bt = require "bt"
local good, dir = arg[1], arg[2]
local map, frame
for r in assert(bt.log.open(good)):records() do
  if r.type == "world" and r.code == 1 then map = r.data end
  if r.type == "world" and r.code == 2 and not frame then frame = r.data end
end
assert(map and frame, "no map or frame in the recording")
local function write(name, records)
  local log = assert(bt.log.create(dir .. "/" .. name))
  for i, r in ipairs(records) do log:world(r[1], r[2], i / 30) end
  assert(log:close())
end
write("badmap", {{1, "\9" .. map:sub(2)}, {2, frame}})
write("shortmap", {{1, map:sub(1, 20)}, {2, frame}})
write("cutframe", {{1, map}, {2, frame:sub(1, #frame // 2)}})
write("twice", {{1, map}, {2, frame}, {2, frame}})
write("nokind", {{1, map}, {2, "\0\1\1\15\0\0"}})
write("stranger", {{1, map}, {2, frame}, {2, "\1\200\99\4"}})
write("noise", {{1, map}, {2, frame}, {2, ("\255\254\253\252\251\250"):rep(20)}})
write("nomap", {{2, frame}})
LUA
    for bad in "badmap:the map record: the map is of version 9" "shortmap:the map record: " \
               "cutframe:the frame at [0-9.]* s: .*the record ends" "twice:the frame at [0-9.]* s: entity 1 comes twice" \
               "nokind:entity 1 of kind 15 cannot be placed" "stranger:the frame at " "noise:the frame at " \
               "nomap:a frame before the map record"; do
      f=${bad%%:*}
      "$arena" --replay "$tmp/$f" --headless > "$tmp/out" 2> "$tmp/err"
      rc=$?
      [ $rc -eq 1 ] || fail "bad world records ($f): exit $rc, expected 1: $(cat "$tmp/err")"
      grep -q "^bt-arena: $tmp/$f: .*${bad#*:}" "$tmp/err" || fail "bad world records ($f): expected '${bad#*:}', got: $(cat "$tmp/err")"
      echo "$f: $(cat "$tmp/err")"
    done
  else
    echo "(lua5.4 or bt.so missing: bad bytes inside the arena's own records not checked)"
  fi
  # a log still being written: a replay reads it as far as it goes; a signal ends the recording
  # and closes the log, which then replays to its end
  "$arena" --agents 300 --seconds 100000 --headless --seed 3 --data "$src" --record "$tmp/G" > "$tmp/grow" 2> "$tmp/err" &
  pid=$!
  for _ in $(seq 300); do
    [ "$(wc -c < "$tmp/G" 2> /dev/null || echo 0)" -gt 200000 ] && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.1
  done
  "$arena" --replay "$tmp/G" --headless > "$tmp/out" 2> "$tmp/err2"
  rc=$?
  kill -TERM $pid 2> /dev/null
  wait $pid
  wrc=$?
  [ $rc -eq 0 ] || fail "a log being written: exit $rc: $(cat "$tmp/err2")"
  case $(field end "$(cat "$tmp/out")") in whole | cut) ;; *) fail "a log being written: $(cat "$tmp/out")" ;; esac
  grep -q "still being written" "$tmp/err2" || fail "a log being written: no word of it: $(cat "$tmp/err2")"
  [ "$(field frames "$(cat "$tmp/out")")" -gt 1 ] || fail "a log being written replayed no frame"
  echo "being written: $(cat "$tmp/err2")"
  [ $wrc -eq 0 ] || fail "the recording ended by SIGTERM exited $wrc: $(cat "$tmp/err")"
  "$arena" --replay "$tmp/G" --headless > "$tmp/out" 2> "$tmp/err2" || fail "the log closed at SIGTERM: $(cat "$tmp/err2")"
  [ "$(field end "$(cat "$tmp/out")")" = ended ] || fail "the log closed at SIGTERM has no end: $(cat "$tmp/out")"
  [ "$(field world "$(cat "$tmp/out")")" = "$(field world "$(cat "$tmp/grow")")" ] \
    || fail "the log closed at SIGTERM does not replay to where the recording stopped"
  ;;

replay_view)
  # live, in a terminal of 80 x 24: a recording made live (its inspector reads the ring of the
  # brain's own recorder) and closed by q; then its replay driven by keys: the map and the status
  # line, a wolf picked by its key with its tree, which equals bt-log tree's at the tick shown,
  # and its last transitions; pause, step, faster, slower, the end; q
  command -v script > /dev/null || { echo "SKIP: arena.replay_view needs script(1) (Debian: bsdutils)"; exit 77; }
  command -v mkfifo > /dev/null || { echo "SKIP: arena.replay_view needs mkfifo(1) (Debian: coreutils)"; exit 77; }
  mkfifo "$tmp/keys"
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
  stop() { exec 3>&-; kill $pid 2>/dev/null; wait $pid 2>/dev/null; }

  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --agents 60 --seed 5 --data '$src' --record '$tmp/R' 2> '$tmp/err'" /dev/null \
    < "$tmp/keys" > "$tmp/screen" &
  pid=$!
  exec 3> "$tmp/keys"
  wait_for 0 ' day 1 ' || { stop; fail "no frame of the live recording: $(cat "$tmp/err")"; }
  key s
  wait_for $mark '^\[0;7;[0-9;]*m s sheep#[0-9]+ ' || { stop; fail "live, 's' did not pick a sheep"; }
  wait_for $mark '^\[0;2m(think, sleeps|record: the recorder is compiled out)' || { stop; fail "live with --record, no think among the sheep's last transitions"; }
  sheep=$(since $mark | sed -n 's/^\[0;7;[0-9;]*m s sheep#\([0-9]*\) .*/\1/p' | tail -1)
  picked=$(since $mark | sed -n 's/.* t=\([0-9.]*\)s .*/\1/p' | tail -1)
  mark=$(size)
  wait_for $mark ' t=[0-9.]+s ' 8 || { stop; fail "the live recording stopped"; } # a second and a half
  key q
  exec 3>&-
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || fail "the live recording exited $rc: $(cat "$tmp/err")"
  recorded=$(tr -d '\r' < "$tmp/screen" | grep -o 'agents=60 .*' | tail -1)
  echo "$recorded"
  [ "$(field script_errors "$recorded")" = 0 ] || fail "script errors: $(cat "$tmp/err")"
  "$arena" --replay "$tmp/R" --headless > "$tmp/rep" 2> "$tmp/err" || fail "the live recording does not replay: $(cat "$tmp/err")"
  [ "$(field end "$(cat "$tmp/rep")")" = ended ] || fail "the live recording closed by q has no end: $(cat "$tmp/rep")"
  [ "$(field world "$(cat "$tmp/rep")")" = "$(field world "$recorded")" ] || fail "the live recording does not replay to where it stopped"
  if [ "$btlog" != none ]; then # the inspector read the sheep's recorder, and left it writing to the log
    thinks=$("$btlog" print "$tmp/R" --agent "$sheep" --type think --from "$picked" | wc -l)
    [ "$thinks" -ge 2 ] || fail "sheep#$sheep, picked at ${picked}s, has $thinks thinks in the log after: the inspector took its recorder"
    echo "sheep#$sheep picked at ${picked}s: $thinks thinks in the log after"
  fi

  # a longer recording to replay
  "$arena" --agents 60 --seconds 12 --headless --seed 5 --data "$src" --record "$tmp/R" > "$tmp/rec" 2> "$tmp/err" \
    || fail "--record exited $?: $(cat "$tmp/err")"
  rm -f "$tmp/keys" && mkfifo "$tmp/keys"
  COLUMNS=80 LINES=24 script -qec "stty cols 80 rows 24; '$arena' --replay '$tmp/R' 2> '$tmp/err'" /dev/null \
    < "$tmp/keys" > "$tmp/screen" &
  pid=$!
  exec 3> "$tmp/keys"
  wait_for 0 ' day 1 [0-9:]+ DAY t=[0-9.]+s REPLAY x1 \| s 25 W 6 v 13 G 6 e 6 f 4 \| q quits' \
    || { stop; fail "no replay frame with its status line: $(cat "$tmp/err")"; }
  # the map: rows of ground with creatures on them
  wait_for 0 '^\[0;[0-9;]*m(\.|")' 20 || { stop; fail "no map drawn"; }
  key W
  wait_for $mark '^\[0;7;[0-9;]*m W wolf#[0-9]+ ' || { stop; fail "'W' did not pick a wolf in the replay"; }
  wait_for $mark '^\[0;2m think, sleeps|^\[0;2mthink, sleeps' || { stop; fail "no think among the replayed wolf's last transitions"; }
  wait_for $mark '^\[0;0mPriority/[A-Za-z0-9#/]+ $' || { stop; fail "no status change among the replayed wolf's last transitions"; }
  wolf=$(since $mark | sed -n 's/^\[0;7;[0-9;]*m W wolf#\([0-9]*\) .*/\1/p' | tail -1)
  key ' '
  wait_for $mark 'PAUSED tick [0-9]+' 3 || { stop; fail "space did not pause the replay"; }
  tick=$(since $mark | sed -n 's/.* PAUSED tick \([0-9]*\) .*/\1/p' | tail -1)
  key .
  wait_for $mark "PAUSED tick $((tick + 1)) " || { stop; fail "'.' did not step to tick $((tick + 1))"; }
  tick=$((tick + 1))
  sleep 1 # paused, the same frame is drawn five times a second: take a whole one, the last but one
  frame=$(since $mark | awk '/ W wolf#[0-9]+ / { prev = buf; buf = "" } { buf = buf $0 "\n" } END { printf "%s", prev }')
  shown=$(echo "$frame" | awk '
    /^\[0;[0-9;]*m (READY|SUCCESS|FAILED|RUNNING)$/ { status = $0; sub(/^\[0;[0-9;]*m /, "", status)
                                                      name = prev; sub(/^\[0;[0-9;]*m/, "", name); pending = 1; prev = $0; next }
    pending && /^\[0;[0-9;]*m <(READY|SUCCESS|FAILED|RUNNING)>$/ { last = $0; sub(/^\[0;[0-9;]*m </, "", last); sub(/>$/, "", last)
                                                                   print name, status, last }
    { pending = 0; prev = $0 }')
  range=$(echo "$frame" | sed -n 's/.* nodes \([0-9]*\)-\([0-9]*\) of [0-9]* $/\1 \2/p' | tail -1)
  if [ "$btlog" = none ]; then
    echo "(bt-log is not built: the replayed tree is not compared with bt-log tree's)"
    [ -n "$shown" ] || { stop; fail "no tree shown"; }
  else
    at=$(awk -v t="$tick" 'BEGIN { printf "%.6f", (t + 0.5) / 30 }')
    "$btlog" tree "$tmp/R" --agent "$wolf" --at "$at" > "$tmp/tree" 2> "$tmp/err2" || { stop; fail "bt-log tree: $(cat "$tmp/err2")"; }
    want=$(sed 1d "$tmp/tree" | sed 's/^\(   >\)*//; s/^\(.*\) - \([A-Z]*\) <\([A-Z]*\)> (.*/\1 \2 \3/')
    [ -n "$range" ] && want=$(echo "$want" | sed -n "${range% *},${range#* }p")
    [ "$shown" = "$want" ] || { stop; fail "the replayed tree of wolf#$wolf at tick $tick is not bt-log tree's at $at:
shown:
$shown
bt-log tree:
$want"; }
    echo "wolf#$wolf at tick $tick: $(echo "$shown" | wc -l) nodes as bt-log tree shows them"
  fi
  key ' '
  wait_for $mark 'REPLAY x1 \|' 2 || { stop; fail "space did not resume the replay"; }
  key +
  wait_for $mark 'REPLAY x2 \|' || { stop; fail "'+' did not play faster"; }
  key -
  key -
  wait_for $mark 'REPLAY x1/2 \|' || { stop; fail "'-' did not play slower"; }
  key +
  key +
  key +
  key +
  wait_for $mark 'REPLAY x8 END' || { stop; fail "the replay did not reach its end"; }
  wait_for $mark 'the end of the recording' || { stop; fail "the end is not said on the last line"; }
  key l
  wait_for $mark '^\[0;7;[0-9;]*m . [a-z_]+#[0-9]+ ' || { stop; fail "a cursor key did not pick a creature in the replay"; }
  key q
  exec 3>&-
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
  summary=$(tr -d '\r' < "$tmp/screen" | grep -o 'replay=.*' | tail -1)
  echo "$summary"
  [ "$(field end "$summary")" = ended ] && [ "$(field world "$summary")" = "$(field world "$(cat "$tmp/rec")")" ] \
    || fail "the replay in the view did not end where the recording did: $summary"
  ;;

bad_flags)
  for args in "--agents" "--agents 0" "--agents many" "--seconds -1" "--seconds soon" "--seed x" \
              "--data $tmp/missing" "--frobnicate" "stray" "--record" "--replay" "--replay $tmp/x --agents 5" \
              "--replay $tmp/x --record $tmp/y" "--threads" "--threads -1" "--threads 257" "--threads two" \
              "--replay $tmp/x --threads 2"; do
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
  grep -q -- "--replay FILE" "$tmp/out" || fail "--help does not list --replay"
  ;;

no_terminal)
  # live (no --headless) with standard output a file or a pipe: no view drawn into it, a message
  # on standard error saying why, exit 2, at once (a run without --seconds would never end; the
  # timeout only keeps a broken arena from hanging the test)
  esc=$(printf '\033')
  for how in file pipe replay; do
    case $how in
    file) timeout 30 "$arena" --agents 10 --data "$src" < /dev/null > "$tmp/out" 2> "$tmp/err"; rc=$? ;;
    pipe) { timeout 30 "$arena" --agents 10 --data "$src" < /dev/null 2> "$tmp/err"; echo $? > "$tmp/rc"; } | cat > "$tmp/out"
          rc=$(cat "$tmp/rc") ;;
    replay) "$arena" --headless --agents 10 --seconds 1 --data "$src" --record "$tmp/R" > /dev/null 2>&1 || fail "--record failed"
            timeout 30 "$arena" --replay "$tmp/R" < /dev/null > "$tmp/out" 2> "$tmp/err"; rc=$? ;;
    esac
    [ $rc -eq 2 ] || fail "$how: exited $rc, expected 2; standard error: $(cat "$tmp/err")"
    ! grep -q "$esc" "$tmp/out" || fail "$how: escape codes written to standard output ($(wc -c < "$tmp/out") bytes)"
    [ ! -s "$tmp/out" ] || fail "$how: standard output is not empty: $(head -c 200 "$tmp/out")"
    grep -q "^bt-arena: standard output is not a terminal.*--headless" "$tmp/err" \
      || fail "$how: the message does not say why and what to do: $(cat "$tmp/err")"
    echo "$how -> $(cat "$tmp/err")"
  done
  ;;

fast_paths)
  # The same seed gives the same log, byte for byte, with the think's fast paths and without them
  # (BT_NO_FAST_PATHS=1: docs/internals.md "Fast paths"; it also turns off the arena's own, the
  # cells' threat counts that spare most ewes a look for a predator): every brain's status
  # changes, thinks and sleep times, key writes, events and errors, through a night with deaths
  # and births; and the same world.
  for way in fast reference; do
    if [ $way = reference ]; then BT_NO_FAST_PATHS=1; export BT_NO_FAST_PATHS; else unset BT_NO_FAST_PATHS; fi
    "$arena" --agents 300 --seconds 60 --headless --seed 7 --data "$src" --record "$tmp/$way" > "$tmp/out.$way" 2> "$tmp/err.$way" \
      || fail "--record ($way) exited $?: $(cat "$tmp/err.$way")"
  done
  unset BT_NO_FAST_PATHS
  cat "$tmp/out.fast" "$tmp/out.reference"
  [ "$(field deaths "$(cat "$tmp/out.fast")")" -gt 0 ] || fail "nobody died: the run is too short to compare"
  [ "$(field world "$(cat "$tmp/out.fast")")" = "$(field world "$(cat "$tmp/out.reference")")" ] \
    || fail "the worlds differ with and without the fast paths"
  if ! cmp "$tmp/fast" "$tmp/reference" > "$tmp/cmp"; then
    if [ "$btlog" != none ]; then
      "$btlog" print "$tmp/fast" > "$tmp/print.fast" 2>&1
      "$btlog" print "$tmp/reference" > "$tmp/print.reference" 2>&1
      diff "$tmp/print.fast" "$tmp/print.reference" | head -20
    fi
    fail "the logs differ with and without the fast paths: $(cat "$tmp/cmp")"
  fi
  echo "the same log of $(wc -c < "$tmp/fast") bytes with and without the fast paths"
  ;;
threads)
  # --threads N: the same seed gives the same world whatever N is, 0 (one state on this thread)
  # included, with every kind of the default kinds file (the ewes' and foxes' keys written by the
  # host among them). The summary's world= is a digest of every entity's id, kind, position, health
  # and death (worldlog.h); the counts must agree too.
  same() { # <what> <args...>: runs --threads 0, 1, 2 and 3 with the args, compares their worlds
    what=$1
    shift
    for n in 0 1 2 3; do
      "$arena" --headless --data "$src" "$@" --threads $n > "$tmp/out$n" 2> "$tmp/err$n"
      rc=$?
      [ $rc -eq 0 ] || fail "$what --threads $n: exit $rc: $(cat "$tmp/err$n")"
      line=$(cat "$tmp/out$n")
      [ "$(field threads "$line")" = $n ] || fail "$what --threads $n: the summary says threads=$(field threads "$line")"
      [ "$(field script_errors "$line")" = 0 ] || fail "$what --threads $n: script errors: $line"
      [ "$(field commands "$line")" -gt 0 ] || fail "$what --threads $n: no command applied: $line"
      got=""
      for f in ticks thinks alive brains registered deaths births alive_by_kind commands world; do
        got="$got $f=$(field $f "$line")"
      done
      eval "got$n=\$got"
      echo "$what --threads $n:$got"
    done
    for n in 1 2 3; do
      eval "other=\$got$n"
      [ "$got0" = "$other" ] || fail "$what: --threads 0 and $n differ:
$got0
$other"
    done
  }
  quiet() { for n in 0 1 2 3; do [ ! -s "$tmp/err$n" ] || fail "$1 --threads $n wrote on standard error: $(cat "$tmp/err$n")"; done; }
  same "300 agents, 5 s" --agents 300 --seconds 5 --seed 7
  quiet "300 agents, 5 s"
  # into the night: wolves hunt, creatures die and are born (attacks and "death" across states)
  same "120 agents, 60 s" --agents 120 --seconds 60 --seed 7
  quiet "120 agents, 60 s"
  [ "$(field deaths "$(cat "$tmp/out0")")" -gt 0 ] || fail "no creature died in 60 s: the check proves less than it says"
  plain=$(field world "$(cat "$tmp/out0")")
  # --record: every state's recorders write one log, the same byte for byte for any N, and the
  # recording does not change the world; its replay ends with that world
  world=$plain
  for n in 0 1 2 3; do
    "$arena" --headless --data "$src" --agents 120 --seconds 60 --seed 7 --threads $n --record "$tmp/log$n" \
      > "$tmp/rec$n" 2> "$tmp/rerr$n" || fail "--record --threads $n: exit $?: $(cat "$tmp/rerr$n")"
    [ "$(field world "$(cat "$tmp/rec$n")")" = "$world" ] || fail "--record --threads $n changed the world: $(cat "$tmp/rec$n")"
    [ "$(field records "$(cat "$tmp/rec$n")")" -gt 0 ] || fail "--record --threads $n: no record: $(cat "$tmp/rec$n")"
  done
  for n in 1 2 3; do
    cmp "$tmp/log0" "$tmp/log$n" || fail "--record: the logs of --threads 0 and $n differ"
  done
  # the kinds written on the blackboard live in these runs: the logs compared hold the host's
  # writes of their keys, and what the brains did on them
  for kind in ewe fox; do
    echo ",$(field alive_by_kind "$(cat "$tmp/rec0")")" | grep -q ",$kind:[1-9]" || fail "no $kind in the run: $(cat "$tmp/rec0")"
  done
  if [ "$btlog" != none ]; then
    writes=$("$btlog" print "$tmp/log0" --type key | wc -l)
    [ "$writes" -gt 0 ] || fail "--record: no key record in the log"
    echo "--record: the logs hold $writes writes of the ewes' and foxes' keys"
  fi
  "$arena" --replay "$tmp/log2" --headless > "$tmp/replay" || fail "--replay of the --threads 2 log failed"
  [ "$(field world "$(cat "$tmp/replay")")" = "$world" ] || fail "the replay ends in another world: $(cat "$tmp/replay")"
  echo "--record: the logs of --threads 0, 1, 2 and 3 are equal ($(field bytes "$(cat "$tmp/rec0")") bytes), the replay ends in world=$world"
  # a hot reload at a fixed tick (--reload-at): a sheep brain that wanders less once reloaded
  # (bt.GetTime() is 0 when the arena loads it, above 0 at the reload) gives one world in every
  # mode, and not the world without the reload
  mkdir -p "$tmp/data"
  cp -R "$src/brains" "$src/behaviours" "$tmp/data/"
  sed 's/^local WANDER_DIST = 10 /local WANDER_DIST = bt.GetTime() > 0 and 3 or 10 /' "$src/brains/sheep.lua" \
    > "$tmp/data/brains/sheep.lua"
  grep -q "bt.GetTime() > 0 and 3" "$tmp/data/brains/sheep.lua" || fail "the edit of sheep.lua for the reload did not apply"
  src_saved=$src
  src=$tmp/data
  same "120 agents, 60 s, reloaded at tick 900" --agents 120 --seconds 60 --seed 7 --reload-at 900
  src=$src_saved
  for n in 0 1 2 3; do
    grep -q "^bt-arena: reloaded brains.sheep$" "$tmp/err$n" || fail "--reload-at --threads $n: no reload said: $(cat "$tmp/err$n")"
    ! grep -v "^bt-arena: reloaded " "$tmp/err$n" || fail "--reload-at --threads $n: more than reloads on standard error"
  done
  [ "$(field world "$(cat "$tmp/out0")")" != "$plain" ] || fail "the reload at tick 900 changed nothing"
  # another seed gives another world
  "$arena" --headless --data "$src" --agents 120 --seconds 60 --seed 8 --threads 2 > "$tmp/out8" \
    || fail "--seed 8 failed"
  [ "$(field world "$(cat "$tmp/out8")")" != "$plain" ] || fail "--seed 8 gave the world of --seed 7"
  # the default is one state per core
  cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "")
  "$arena" --headless --data "$src" --agents 20 --seconds 1 > "$tmp/outd" || fail "the default --threads failed"
  [ -z "$cores" ] || [ "$(field threads "$(cat "$tmp/outd")")" = "$cores" ] \
    || fail "default threads=$(field threads "$(cat "$tmp/outd")"), expected the $cores cores"
  ;;

own_writes)
  # What a creature writes of itself it reads back in the same think; what another wrote this tick
  # it does not see before the next: the probes of tests/probe check both every tick (a failed
  # check is a script error), and each prints how many checks it made.
  for n in 0 1 2 3; do
    "$arena" --headless --data "$src/examples/arena/tests/probe" --agents 6 --seconds 3 --threads $n \
      > "$tmp/out$n" 2> "$tmp/err$n" || fail "--threads $n: exit $?: $(cat "$tmp/err$n")"
    [ ! -s "$tmp/err$n" ] || fail "--threads $n: $(cat "$tmp/err$n")"
    line=$(grep "^agents=" "$tmp/out$n")
    [ "$(field script_errors "$line")" = 0 ] || fail "--threads $n: $line"
    # (print writes a line's text whole but its newline apart: probes on several threads may
    # leave "probe 3: 9 checksprobe 4: 9 checks" and an empty line)
    grep -o "probe [0-9]*: [1-9][0-9]* checks" "$tmp/out$n" | sort > "$tmp/said$n"
    probes=$(wc -l < "$tmp/said$n")
    [ "$probes" = 6 ] || fail "--threads $n: $probes of the 6 probes said they checked: $(cat "$tmp/out$n")"
    cmp "$tmp/said0" "$tmp/said$n" || fail "--threads 0 and $n made other checks"
    echo "--threads $n: $(head -1 "$tmp/said$n") (and 5 more probes), no check failed"
  done
  ;;

achieves)
  # What the shipped behaviours achieve in two simulated days of 300 creatures, in every mode, from
  # the brains' own records (bt-log stats): the successes of each kind's behaviours, and the share
  # of their runs that succeed, against bounds that a sensible world meets (docs/arena.md, "What
  # each kind achieves"; the figures there are about twice these bounds).
  [ "$btlog" != none ] || { echo "bt-log was not built (BT_BUILD_TOOLS): not checked"; exit 77; }
  # achieved <stats file> <node path> <least successes> <least percent of runs that succeed>
  achieved() {
    row=$(awk -F '\t' -v p="$2" '$1 == p' "$1")
    [ -n "$row" ] || fail "--threads $n: no node $2 in $(basename "$1")"
    ok=$(echo "$row" | cut -f 3)
    runs=$(echo "$row" | cut -f 6)
    echo "  --threads $n $(basename "$1") $2: $ok of $runs runs succeeded"
    [ "$ok" -ge "$3" ] || fail "--threads $n: $2 of $(basename "$1") succeeded $ok times, at least $3 expected"
    [ $((ok * 100)) -ge $((runs * $4)) ] || fail "--threads $n: $2 of $(basename "$1") succeeded in $ok of $runs runs, at least $4% expected"
  }
  for n in 0 1 2 3; do
    "$arena" --headless --data "$src" --agents 300 --seconds 120 --seed 2 --threads $n --record "$tmp/run$n" \
      > "$tmp/out$n" 2> "$tmp/err$n" || fail "--threads $n: exit $?: $(cat "$tmp/err$n")"
    line=$(cat "$tmp/out$n")
    [ "$(field script_errors "$line")" = 0 ] || fail "--threads $n: $line"
    [ "$(field deaths "$line")" -ge 20 ] || fail "--threads $n: $(field deaths "$line") deaths in two days: the wolves hardly hunt"
    for kind in sheep wolf villager guard; do
      "$btlog" stats "$tmp/run$n" --label "$kind *" > "$tmp/$kind" || fail "bt-log stats --label '$kind *' failed"
    done
    achieved "$tmp/sheep" Priority/Sequence/Graze 150 60                       # meals
    achieved "$tmp/sheep" "Priority/ChattyNode#1/RunAway" 300 70              # flights that end out of reach
    achieved "$tmp/wolf" "Priority/Parallel#1/Priority/ChaseAndAttack" 50 25  # chases that end in a kill
    achieved "$tmp/wolf" "Priority/Parallel#2/Priority/Sequence/Rest" 15 80   # rests at the den
    achieved "$tmp/villager" "Priority/Parallel#1/Priority/Work" 500 70       # work done
    achieved "$tmp/villager" Priority/Sequence/Eat 40 70                      # meals at home
    achieved "$tmp/villager" "Priority/Parallel#2/Priority/Sequence/Rest" 60 50 # rests (the day ends some)
    achieved "$tmp/villager" Priority/RunAway 40 70                           # flights
    achieved "$tmp/guard" Priority/Sequence/EatAtHouse 15 80                  # meals
  done
  ;;

board)
  # The kinds written on the blackboard (the ewe and the fox: keys in brains/kinds.lua), from a
  # recording's records (bt-log): each key the host writes is a record; a write that wakes a brain
  # makes it think in the frame of the write (a think at the write's time whose cause is "key", or
  # "start" for the keys a brain is given as it starts), and act on it (a ewe told of a threat runs
  # at once; a fox goes out at once when night falls, and hunts when its hunger crosses the line);
  # and per creature-second they think far less than the kinds that poll (the sheep and the wolf),
  # a count from the log (docs/arena.md, "What the host writes").
  [ "$btlog" != none ] || { echo "bt-log was not built (BT_BUILD_TOOLS): not checked"; exit 77; }
  seconds=120
  "$arena" --headless --data "$src" --agents 300 --seconds $seconds --seed 2 --threads 2 --record "$tmp/R" \
    > "$tmp/out" 2> "$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
  line=$(cat "$tmp/out")
  [ "$(field script_errors "$line")" = 0 ] || fail "script errors: $(cat "$tmp/err")"
  for kind in ewe fox; do
    n=$(field alive_by_kind "$line" | tr ',' '\n' | sed -n "s/^$kind://p")
    [ -n "$n" ] && [ "$n" -gt 0 ] || fail "no $kind alive at the end: $line"
  done
  "$btlog" print "$tmp/R" --label 'ewe *' --label 'fox *' --type key --type think --type status > "$tmp/board" \
    2> "$tmp/err2" || fail "bt-log print: $(cat "$tmp/err2")"
  awk -F '\t' '
    { at = $2 " " $1 }
    $5 == "key" { writes[$6]++ }
    $5 == "key" && $8 == "woke" { woke[at] = $3 ": " $6 " " $7; nwoke++ }
    $5 == "key" && $8 == "woke" && $6 == "threat" && $7 ~ /^nil -> / { threatened[at] = 1 }
    $5 == "key" && $8 == "woke" && $6 == "night" && $7 ~ /-> true$/ { nightfall[at] = 1 }
    $5 == "key" && $8 == "woke" && $6 == "hunger" && $3 ~ /^fox / { hungry[at] = 1 }
    $5 == "think" && ($6 == "key" || $6 == "start") { thought[at] = 1 } # (a brain that starts is given its keys)
    $5 == "status" && $6 == "Ewe/Threatened/ChattyNode/RunAway" && $7 == "READY>RUNNING" { fled[at] = 1 }
    $5 == "status" && $6 == "Fox/Night" && $7 == "READY>RUNNING" { prowled[at] = 1 }
    $5 == "status" && $6 == "Fox/Night/Prowl/Hungry/Priority" && $7 == "READY>RUNNING" { hunted[at] = 1 }
    END {
      for (w in woke) if (!(w in thought)) { print "FAIL: no think in the frame of the write that woke " woke[w] " (agent, time " w ")"; bad = 1 }
      for (w in threatened) { nt++; if (!(w in fled)) { print "FAIL: a ewe told of a threat did not run at once: " woke[w] " at " w; bad = 1 } }
      for (w in nightfall) { nn++; if (!(w in prowled)) { print "FAIL: a fox did not go out at nightfall at once: " woke[w] " at " w; bad = 1 } }
      for (w in hungry) if (w in hunted) nh++
      for (w in hunted) if (!(w in woke)) { print "FAIL: a fox set out hungry at " w " with no write that woke it"; bad = 1 }
      if (!nt || !nn || !nh) { print "FAIL: too few to check: " nt " threats, " nn " nightfalls, " nh " hungry nights"; bad = 1 }
      printf "key writes: night %d, hunger %d, threat %d; %d woke a brain, which thought in the frame of the write\n", writes["night"], writes["hunger"], writes["threat"], nwoke
      printf "in that frame: %d ewes ran from a threat, %d foxes went out at nightfall, %d foxes set out hungry at night; every hunt began so\n", nt, nn, nh
      exit bad
    }' "$tmp/board" || fail "a blackboard creature did not react in the frame of the write"

  # thinks per creature-second, from the log: a creature's life runs from its brain's attach to its
  # stop (its death) or the end of the run
  "$btlog" print "$tmp/R" --type attach --type stop > "$tmp/lives" || fail "bt-log print --type attach"
  for kind in sheep wolf villager guard ewe fox; do
    thinks=$("$btlog" stats "$tmp/R" --label "$kind *" | awk -F '\t' 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "thinks") print $(i + 1) }')
    [ -n "$thinks" ] || fail "bt-log stats has no thinks for $kind"
    awk -F '\t' -v kind="$kind" -v thinks="$thinks" -v end=$seconds '
      { split($3, l, " ") } l[1] != kind { next }
      $5 == "attach" { born[$2] = $1 } $5 == "stop" { gone[$2] = $1 }
      END { for (a in born) life += (a in gone ? gone[a] : end) - born[a]
            printf "%s %d %.0f %.2f\n", kind, thinks, life, thinks / life }' "$tmp/lives" >> "$tmp/rates"
  done
  echo "kind thinks creature-seconds thinks-per-creature-second (300 agents, ${seconds} s, seed 2)"
  cat "$tmp/rates"
  rate() { awk -v k="$1" '$1 == k { print $4 }' "$tmp/rates"; }
  awk -v e="$(rate ewe)" -v s="$(rate sheep)" 'BEGIN { exit !(e * 5 <= s) }' \
    || fail "the ewe thinks $(rate ewe) times a creature-second, not a fifth of the sheep's $(rate sheep)"
  awk -v f="$(rate fox)" -v w="$(rate wolf)" 'BEGIN { exit !(f * 5 <= w) }' \
    || fail "the fox thinks $(rate fox) times a creature-second, not a fifth of the wolf's $(rate wolf)"
  ;;

check)
  # --check LOG runs the recorded session again with the brains as they are now: unchanged, no
  # divergence, on any number of threads (One world); with one number of the sheep's brain
  # changed (HUNGRY 0.5 -> 0.3 in a copy of brains/), the first divergence is a sheep's, at its
  # Hungry condition, which now succeeds where it failed; --check takes its session from the log
  "$arena" --agents 300 --seconds 5 --headless --seed 3 --data "$src" --record "$tmp/L" > "$tmp/rec" 2> "$tmp/err" \
    || fail "--record exited $?: $(cat "$tmp/err")"
  records=$(field records "$(cat "$tmp/rec")")
  for n in 0 1 3; do
    "$arena" --check "$tmp/L" --data "$src" --threads $n > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "--check --threads $n of an unchanged session exited $rc: $(cat "$tmp/out" "$tmp/err")"
    [ "$(cat "$tmp/out")" = "no divergence: 300 agents, $records records the same, 150 ticks" ] \
      || fail "--check --threads $n: $(cat "$tmp/out")"
  done
  echo "--check, unchanged: $(cat "$tmp/out")"
  mkdir "$tmp/data"
  cp -r "$src/brains" "$src/behaviours" "$tmp/data/"
  sed 's/^local HUNGRY = 0\.5 /local HUNGRY = 0.3 /' "$src/brains/sheep.lua" > "$tmp/data/brains/sheep.lua"
  ! cmp -s "$src/brains/sheep.lua" "$tmp/data/brains/sheep.lua" || fail "the sheep's HUNGRY was not changed"
  for n in 1 3; do
    "$arena" --check "$tmp/L" --data "$tmp/data" --threads $n > "$tmp/out$n" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "--check --threads $n with a changed sheep exited $rc, not 1: $(cat "$tmp/out$n" "$tmp/err")"
  done
  cmp -s "$tmp/out1" "$tmp/out3" || fail "--check with 1 and 3 threads differ: $(diff "$tmp/out1" "$tmp/out3")"
  tail -1 "$tmp/out1" | grep -Eq "^300 agents: [0-9]+ the same, [1-9][0-9]* differ, 0 only in recorded, 0 only in now; [0-9]+ records the same$" \
    || fail "--check's summary: $(tail -1 "$tmp/out1")"
  first=$(sed '$d' "$tmp/out1" | sort -t "$(printf '\t')" -k1,1n | head -1)
  echo "--check, a changed sheep, the first divergence: $first"
  echo "$first" | grep -Eq "^[0-9.]+$(printf '\t')[0-9]+$(printf '\t')sheep [0-9]+$(printf '\t')Priority/Sequence/Hungry$(printf '\t')recorded: READY>FAILED$(printf '\t')now: READY>SUCCESS$" \
    || fail "the first divergence is not a sheep's Hungry succeeding: $first"
  # the first way on the same input: the changed brains' session recorded, and the two logs
  # diffed by bt-log, name the same creatures, records and summary (the sides' names aside)
  if [ "$btlog" != none ]; then
    "$arena" --agents 300 --seconds 5 --headless --seed 3 --data "$tmp/data" --record "$tmp/L2" > /dev/null 2> "$tmp/err" \
      || fail "--record of the changed session exited $?: $(cat "$tmp/err")"
    "$btlog" diff "$tmp/L" "$tmp/L2" > "$tmp/diff"
    rc=$?
    [ $rc -eq 1 ] || fail "bt-log diff of the two recordings exited $rc, not 1"
    sed -e 's/\tA: /\trecorded: /; s/\tB: /\tnow: /' -e 's/only in A, /only in recorded, /; s/only in B;/only in now;/' \
      "$tmp/diff" > "$tmp/diff.named"
    cmp -s "$tmp/diff.named" "$tmp/out1" || fail "--check and bt-log diff of the recordings differ: $(diff "$tmp/out1" "$tmp/diff.named")"
    echo "--check, a changed sheep: the same report as bt-log diff of the two recordings"
  fi
  # bad uses: exit 2, saying why
  "$arena" --check "$tmp/L" --seed 4 > /dev/null 2> "$tmp/err"
  [ $? -eq 2 ] && grep -q "do not go with it" "$tmp/err" || fail "--check with --seed: $(cat "$tmp/err")"
  "$arena" --check "$tmp/none" > /dev/null 2> "$tmp/err"
  [ $? -eq 2 ] && grep -q "$tmp/none" "$tmp/err" || fail "--check of a missing file: $(cat "$tmp/err")"
  head -c 100 "$tmp/L" > "$tmp/cut"
  "$arena" --check "$tmp/cut" > /dev/null 2> "$tmp/err"
  [ $? -eq 2 ] && grep -q "no map record" "$tmp/err" || fail "--check of a log with no map: $(cat "$tmp/err")"
  ;;

*) fail "unknown check $check" ;;
esac
echo "arena.$check: ok"
