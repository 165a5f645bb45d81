#!/bin/sh
# SPDX-License-Identifier: MIT
# `luarocks make` as docs/lua-api.md says a Lua developer runs it, on a copy of the source tree,
# into a fresh tree (~/rocks, HOME being a folder of the test's); then a stock lua5.4 that sees
# that tree only (not the source tree) runs require "bt", the shipped behaviours and brains under
# bt., and a brain thinking with bt.behaviours.wander on the installed bt.test's world; then
# docs/writing-a-brain.md's spec and the commands it gives to run it with busted, as the doc gives
# them (its blocks marked <!-- doc-test: file ... --> and <!-- doc-test: commands -->), with the busted on PATH (Debian's starts
# under Lua 5.1).
# usage: check_luarocks.sh <source dir> [rockspec file name]   (default: bt-<project version>-1)
# Exits 77 (ctest: skipped) when luarocks or busted is not installed, unless BT_REQUIRE_LUAROCKS=1
# (.ci/run), which makes that a failure.
set -eu
src=$1
if ! command -v luarocks >/dev/null 2>&1; then
  echo "SKIPPED: luarocks is not installed (Debian: apt-get install luarocks)"
  [ "${BT_REQUIRE_LUAROCKS:-0}" = 1 ] && { echo "BT_REQUIRE_LUAROCKS=1: luarocks is required"; exit 1; }
  exit 77
fi
if ! command -v busted >/dev/null 2>&1; then
  echo "SKIPPED: busted is not installed (Debian: apt-get install lua-busted)"
  [ "${BT_REQUIRE_LUAROCKS:-0}" = 1 ] && { echo "BT_REQUIRE_LUAROCKS=1: busted is required"; exit 1; }
  exit 77
fi
version=$(sed -n 's/^project(bt VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
rockspec=${2:-bt-$version-1.rockspec}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/empty" "$tmp/home" "$tmp/game"
tree=$tmp/home/rocks # ~/rocks, as the docs name it

# a copy without build folders (any folder holding a CMakeCache.txt) and without .git
tar -C "$src" --exclude=./.git --exclude-tag-all=CMakeCache.txt -cf - . | tar -C "$tmp/src" -xf -
rocks() { HOME="$tmp/home" luarocks --lua-version=5.4 --tree "$tree" "$@"; }
rocks lint "$tmp/src/$rockspec" || { echo "luarocks lint $rockspec failed"; exit 1; }
if ! (cd "$tmp/src" && CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} rocks make "$rockspec") \
     >"$tmp/make.log" 2>&1; then
  cat "$tmp/make.log"
  echo "luarocks make $rockspec failed"
  exit 1
fi

lmod=$tree/share/lua/5.4
cmod=$tree/lib/lua/5.4
for f in "$cmod/bt.so" "$lmod/bt/behaviours/wander.lua" "$lmod/bt/behaviours/util.lua" \
         "$lmod/bt/brains/sheep.lua" "$lmod/bt/test.lua"; do
  [ -f "$f" ] || { echo "missing after luarocks make: ${f#"$tree/"}"; ls -R "$tree"; exit 1; }
done
for f in "$lmod/bt.lua" "$lmod/bt/init.lua"; do
  [ ! -e "$f" ] || { echo "installed ${f#"$tree/"} would shadow bt.so"; exit 1; }
done
# Lua's C module folder holds bt.so, bt/testkit.so (bt.testkit, the C half of bt.test), and
# bt/view.so (bt.view) when the viewer is built, nothing else (the C libraries and .pc files stay
# in the rock's c/), and no installed file names the folder it was built in
[ -f "$cmod/bt/testkit.so" ] || { echo "missing after luarocks make: bt/testkit.so"; ls -R "$cmod"; exit 1; }
extra=$(cd "$cmod" && find . -type f ! -name bt.so ! -path ./bt/view.so ! -path ./bt/testkit.so)
[ -z "$extra" ] || { echo "besides bt.so, bt/testkit.so and bt/view.so, lib/lua/5.4 holds: $extra"; exit 1; }
if grep -rlF "$tmp/src" "$tree" >"$tmp/paths" 2>/dev/null; then
  echo "installed files name the build folder: $(cat "$tmp/paths")"
  exit 1
fi
rockdir=$(rocks show --rock-dir bt)
for f in bt.lua bt_test.lua; do
  [ -f "$rockdir/lua-language-server/library/$f" ] \
    || { echo "the LuaLS annotations ($f) are not in the rock ($rockdir)"; exit 1; }
done
rock=${rockspec%.rockspec}
rocks list --porcelain | grep -q "^bt	${rock#bt-}	installed" \
  || { rocks list; echo "luarocks list does not show $rock"; exit 1; }

out=$(cd "$tmp/empty" && LUA_PATH="$lmod/?.lua;$lmod/?/init.lua" \
  LUA_CPATH="$cmod/?.so" lua5.4 -e '
  local bt = require "bt"
  assert(package.searchpath("bt", package.cpath):find("/rocks/lib/lua/5.4/bt.so", 1, true))
  assert(package.searchpath("bt.test", package.path):find("/rocks/share/lua/5.4/bt/test.lua", 1, true))
  local Wander = require "bt.behaviours.wander"
  assert(Wander:is_class() and Wander._base == bt.BehaviourNode, "Wander is a BehaviourNode class")
  assert(package.loaded["bt.behaviours.util"], "wander.lua required util under bt.")
  assert(not package.loaded["behaviours.util"], "wander.lua required util outside bt.")
  for _, m in ipairs({"chaseandattack", "chattynode", "doaction", "faceentity", "follow", "leash",
                      "minperiod", "panic", "runaway", "standstill", "util"}) do
    require("bt.behaviours." .. m)
  end
  for _, m in ipairs({"guard", "sheep", "villager", "wolf"}) do
    assert(require("bt.brains." .. m)._base == bt.Brain, m .. " is a Brain class")
  end
  for name in pairs(package.loaded) do
    assert(not name:match("^behaviours") and not name:match("^brains"), "loaded " .. name)
  end
  -- a brain of the installed Wander thinks, in the installed bt.test world
  local T = require "bt.test"
  local world = T.world()
  bt.set_clock(world:clock())
  local sheep = world:spawn("sheep", 0, 0)
  local tree = bt.BT(sheep, bt.PriorityNode({Wander(sheep)}, 0.25, true))
  tree:Update()
  io.write(tostring(tree))')
case $out in
  "Priority - RUNNING <RUNNING> (execute 1, eval in"*">Wander - RUNNING <RUNNING>"*) ;;
  *) echo "the installed bt.behaviours.wander did not think:"; echo "$out"; exit 1 ;;
esac

# docs/writing-a-brain.md's spec, run as the doc says, from a game's folder, with the busted on
# PATH and none of the Lua path variables but those the doc sets
lua5.4 "$src/tests/docs/check_blocks.lua" --write "$src/docs/writing-a-brain.md" "$tmp/game" >/dev/null \
  || { echo "could not write out docs/writing-a-brain.md's blocks"; exit 1; }
if ! (cd "$tmp/game" && env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u LUA_INIT \
      -u LUA_INIT_5_4 HOME="$tmp/home" sh run.sh) >"$tmp/busted.log" 2>&1 \
   || ! grep -Eq "^[1-9][0-9]* successes? / 0 failures / 0 errors / 0 pending" "$tmp/busted.log"; then
  cat "$tmp/busted.log"
  echo "docs/writing-a-brain.md's spec did not pass on the LuaRocks tree, run as the doc says (run.sh:)"
  cat "$tmp/game/run.sh"
  exit 1
fi
echo "luarocks make $rockspec: bt, bt.behaviours.*, bt.brains.*, bt.test work from a LuaRocks tree;" \
  "docs/writing-a-brain.md's spec passes there under $(command -v busted)"
