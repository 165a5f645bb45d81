#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/porting-a-ds-brain.md's "Script the world's answers", with bt alone (the game's scripts are
# not in the repository): the guide's own files and commands (its blocks marked
# <!-- doc-test: file ... --> and <!-- doc-test: commands -->, written out by
# tests/docs/check_blocks.lua --write), /path/to/ standing for a folder of this test's, without
# DS_SCRIPTS. The mod's copy of the rabbit's brain is a stand-in written here: the rabbit's
# questions (burning, haunted, a hunter near, night, spring, bait near) and its shape, Sniff
# before Wander, with bt's node classes only. Without the answers it panics on every think and
# Sniff never runs; with them Sniff runs, and from 5 s on Panic. The guide's loop with the test
# kit ("Test it with the kit"): the coverage it prints (counted by hand on the stand-in), a
# substitution that reaches Wander, a recorded run checked unchanged (the same) and after the
# guide's change (its first difference). Then two runs that think alike (plain and --exact) print
# the same text, standard error included: nothing names the side; and the kit's options' errors.
# usage: check_try_brain.sh <source dir> <build dir>
set -eu
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the guide's commands run lua5.4 by name: a sanitized build's needs its runtimes preloaded
. "$src/tests/docs/lua_preload.sh"
lua_preload "$tmp/bin"
unset DS_SCRIPTS LUA_PATH LUA_PATH_5_4 LUA_CPATH_5_4
export LUA_CPATH="$build/lib/lua/5.4/?.so;;"

lua5.4 "$src/tests/docs/check_blocks.lua" --write "$src/docs/porting-a-ds-brain.md" "$tmp" >/dev/null \
  || { echo "could not write out docs/porting-a-ds-brain.md's blocks"; exit 1; }
for f in mymod/scripts/behaviours/sniff.lua mymod/answers.lua run.sh; do
  [ -f "$tmp/$f" ] || { echo "docs/porting-a-ds-brain.md has no block for $f"; exit 1; }
done
brain=$tmp/mymod/scripts/brains/rabbitbrain.lua
mkdir -p "$tmp/mymod/scripts/brains"
cat > "$brain" <<'EOF'
-- a stand-in for the mod's copy of rabbitbrain.lua: the rabbit's questions, bt's node classes
require "behaviours/sniff"

local RabbitBrain = Class(Brain, function(self, inst)
  Brain._ctor(self, inst)
end)

local function never() return false end

local function ShouldTriggerPanic(inst)
  return (inst.components.health ~= nil and inst.components.health.takingfiredamage)
    or (inst.components.hauntable ~= nil and inst.components.hauntable.panic)
end

function RabbitBrain:OnStart()
  local inst = self.inst
  local root = PriorityNode({
    WhileNode(function() return ShouldTriggerPanic(inst) end, "PanicTrigger",
      ConditionWaitNode(never, "Panic")),
    ConditionNode(function() return FindEntity(inst, 5, nil, {"scarytoprey"}) ~= nil end, "RunAway"),
    WhileNode(function() return not TheWorld.state.isday end, "IsNight", ConditionWaitNode(never, "go home")),
    WhileNode(function() return TheWorld.state.isspring end, "IsSpring", ConditionWaitNode(never, "go home")),
    ConditionNode(function()
      return FindEntity(inst, 20, function(item) return inst.components.eater:CanEat(item) end) ~= nil
    end, "EatFood"),
    Sniff(inst),
    ConditionWaitNode(never, "Wander"),
  }, .5)
  self.bt = BT(inst, root)
end

return RabbitBrain
EOF

# the guide's commands, as it gives them, from the top of the source tree; each block's output
# goes to block<N>.txt (run.sh marks where a block starts with a comment naming its line)
sed -e "s|/path/to/|$tmp/|g" -e 's|^# porting-a-ds-brain.md:[0-9]*$|echo "==block"|' "$tmp/run.sh" \
  > "$tmp/run_here.sh"
(cd "$src" && sh "$tmp/run_here.sh") > "$tmp/blocks.txt" 2> "$tmp/answered.err" \
  || { cat "$tmp/answered.err"; echo "the guide's commands failed:"; cat "$tmp/run_here.sh"; exit 1; }
awk -v dir="$tmp" '/^==block$/ { n++; f = dir "/block" n ".txt"; printf "" > f; next } { print > f }' "$tmp/blocks.txt"
[ -f "$tmp/block5.txt" ] || { echo "docs/porting-a-ds-brain.md has not 5 commands blocks:"; cat "$tmp/run.sh"; exit 1; }
mv "$tmp/block1.txt" "$tmp/answered.txt"
# Sniff runs before 5 s and Panic not; Panic runs after 5 s (tick 150)
awk '
  /^tick [0-9]+:/ { tick = $2 + 0 }
  />Sniff - RUNNING/ { if (tick < 150) sniff_before++ }
  />Panic - RUNNING/ { if (tick < 150) panic_before++; else panic_after++ }
  END {
    if (sniff_before == 0) { print "Sniff never ran before 5 s"; exit 1 }
    if (panic_before > 0) { print "Panic ran before 5 s, while the answers said not haunted"; exit 1 }
    if (panic_after == 0) { print "Panic never ran after 5 s, when the answers said haunted"; exit 1 }
  }' "$tmp/answered.txt" || { cat "$tmp/answered.txt"; exit 1; }

# the kit (section 5, "Test it with the kit"), on the stand-in: 14 nodes (Priority; Parallel,
# PanicTrigger, Panic; RunAway; Parallel, IsNight, go home; Parallel, IsSpring, go home; EatFood;
# Sniff; Wander). The answers take every one but the two go homes (IsNight and IsSpring fail
# first) and Wander (Sniff always succeeds); each node on its line of the stand-in's file
line_of() { grep -n "$1" "$brain" | head -1 | cut -d: -f1; }
tab=$(printf '\t')
expect() { # expect <block file> <what> <fixed string>...
  f=$1 what=$2
  shift 2
  for want in "$@"; do
    grep -qF -- "$want" "$f" || { echo "$what: no line with '$want' in:"; cat "$f"; exit 1; }
  done
}
sniff_line=$(line_of "Sniff(inst)")
wander_line=$(line_of '"Wander"')
expect "$tmp/block2.txt" "--coverage" "nodes${tab}11/14${tab}" \
  "missing${tab}Priority/Parallel#2/go home${tab}$brain:$(line_of '"IsNight"')" \
  "missing${tab}Priority/Parallel#3/go home${tab}$brain:$(line_of '"IsSpring"')" \
  "missing${tab}Priority/Wander${tab}$brain:$wander_line"
[ "$(grep -c '^missing' "$tmp/block2.txt")" = 3 ] || { echo "--coverage: not 3 nodes missing:"; cat "$tmp/block2.txt"; exit 1; }
# Sniff made to fail: Wander runs, and the substitute keeps Sniff's line
expect "$tmp/block3.txt" "--substitute name=Sniff:fail" "nodes${tab}12/14${tab}"
awk -F"$tab" -v sl="$brain:$sniff_line" -v wl="$brain:$wander_line" '
  $1 == "Priority/Sniff" && $4 > 0 && $3 == 0 && $7 == sl { sniff = 1 }
  $1 == "Priority/Wander" && $2 > 0 && $5 > 0 && $7 == wl { wander = 1 }
  END { exit !(sniff && wander) }' "$tmp/block3.txt" \
  || { echo "--substitute name=Sniff:fail: Sniff should fail on its line, and Wander run on its:"; cat "$tmp/block3.txt"; exit 1; }
# recorded, then checked unchanged: the same; after the change (Sniff 3 s), the first difference
# comes while Sniff runs (from 1.1667 s, tick 35, on), and the exit status is 1
expect "$tmp/block4.txt" "--record then --check" "1 agent: 1 the same, 0 differ, 0 only in recorded, 0 only in now"
expect "$tmp/block5.txt" "--check after the change" "1 agent: 0 the same, 1 differ" "exit 1"
awk -F"$tab" '$3 == "me 100" && $1 > 1.16 && $5 ~ /^recorded: / && $6 ~ /^now: / { n++ } END { exit n != 1 }' \
  "$tmp/block5.txt" || { echo "--check after the change: not one first difference of 'me 100' after 1.16 s:"; cat "$tmp/block5.txt"; exit 1; }

# without the answers: the fake world keeps the rabbit panicking, and Sniff never runs
(cd "$src" && lua5.4 tests/ds_compare/try_brain.lua "$brain" 300 1) > "$tmp/plain.txt" 2>&1
if grep -q ">Sniff - RUNNING" "$tmp/plain.txt" || ! grep -q ">Panic - RUNNING" "$tmp/plain.txt"; then
  echo "without answers the stand-in should panic and never sniff (it is what the answers change):"
  grep -E "^tick|RUNNING" "$tmp/plain.txt" | head -20
  exit 1
fi

# two runs that think alike print the same text, standard error included
for mode in "" --exact; do
  (cd "$src" && lua5.4 tests/ds_compare/try_brain.lua --calls $mode --answers "$tmp/mymod/answers.lua" \
    "$brain" 300 2) > "$tmp/out$mode.txt" 2>&1
done
if ! diff "$tmp/out.txt" "$tmp/out--exact.txt" > "$tmp/diff.txt"; then
  echo "a plain and an --exact run of the stand-in differ (the output names the side?):"
  head -20 "$tmp/diff.txt"
  exit 1
fi

# what is wrong with an answers file is said, with status 2
printf 'return {["inst:IsAsleep"] = false}\n' > "$tmp/bad.lua"
status=0
(cd "$src" && lua5.4 tests/ds_compare/try_brain.lua --answers "$tmp/bad.lua" "$brain" 10 1) > "$tmp/bad.txt" 2>&1 \
  || status=$?
[ "$status" = 2 ] && grep -q "bad.lua: .*inst:IsAsleep.*a :Method is the last step" "$tmp/bad.txt" \
  || { echo "a bad answers file: exit $status, printed:"; cat "$tmp/bad.txt"; exit 1; }
# the kit's options: what is wrong is said, naming the option, with status 2
bad_option() { # bad_option <expected message, an extended regex> <option>...
  want=$1
  shift
  status=0
  (cd "$src" && lua5.4 tests/ds_compare/try_brain.lua --quiet "$@" "$brain" 10 1) > "$tmp/bad.txt" 2>&1 || status=$?
  [ "$status" = 2 ] && grep -qE -- "$want" "$tmp/bad.txt" \
    || { echo "try_brain.lua $*: exit $status, printed:"; cat "$tmp/bad.txt"; echo "(expected: $want)"; exit 1; }
}
bad_option "^--substitute name=Sniff: no :AS at the end" --substitute name=Sniff
bad_option "^--substitute nam=Sniff:fail: 'nam=Sniff' does not start with path=, name= or class=" --substitute nam=Sniff:fail
bad_option "^--substitute name=Sniff:run=x: 'run=x' is not succeed, fail or run=SECONDS" --substitute name=Sniff:run=x
bad_option "^--substitute path=Priority/Snif:fail matches no node of the tree 'Priority' \('Priority' has Parallel#1, RunAway, " \
  --substitute name=Sniff:fail --substitute path=Priority/Snif:fail
bad_option "^--substitute class=Nope:fail: no class 'Nope' in the brain's world" --substitute class=Nope:fail
bad_option "^--coverage works on bt's run of the brain .*not with --original" --original --coverage
bad_option "^--check $tmp/none.btlog: bad argument #1 to 'check' \(cannot open " --check "$tmp/none.btlog"
bad_option "^--record and --check name the same file" --record "$tmp/a.btlog" --check "$tmp/a.btlog"
echo "porting-a-ds-brain.md's scripted answers: Sniff runs, Panic from 5 s on; the runs name no side;" \
  "the kit's coverage, substitution, record and check as the guide shows them"
