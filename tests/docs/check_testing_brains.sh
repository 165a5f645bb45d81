#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/testing-brains.md's spec, as a reader runs it: its blocks marked <!-- doc-test: file ... -->
# and <!-- doc-test: commands --> written out by tests/docs/check_blocks.lua --write, bt installed
# into a fresh prefix (cmake --install) for `P`, then the commands run by busted with Lua 5.4. Every
# spec must pass, and a spec changed to expect a quicker flight must fail with the tree and the
# transitions in its message.
# usage: check_testing_brains.sh <source dir> <build dir> <busted>
set -eu
src=$1
build=$2
busted=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# busted runs lua5.4 by name: a sanitized build's needs its runtimes preloaded
. "$src/tests/docs/lua_preload.sh"
lua_preload "$tmp/bin"
unset LUA_PATH LUA_CPATH LUA_PATH_5_4 LUA_CPATH_5_4
cmake --install "$build" --prefix "$tmp/P" >/dev/null
mkdir "$tmp/game"
lua5.4 "$src/tests/docs/check_blocks.lua" --write "$src/docs/testing-brains.md" "$tmp/game" >/dev/null \
  || { echo "could not write out docs/testing-brains.md's blocks"; exit 1; }
for f in spec/sheep_spec.lua run.sh; do
  [ -f "$tmp/game/$f" ] || { echo "docs/testing-brains.md has no block for $f"; exit 1; }
done
sed -e "s|P/|$tmp/P/|g" -e "s|^busted |$busted |" "$tmp/game/run.sh" > "$tmp/game/run_here.sh"
cd "$tmp/game"
out=$(sh ./run_here.sh 2>&1) || { echo "the guide's spec failed:"; echo "$out"; exit 1; }
echo "$out" | grep -q '^3 successes / 0 failures / 0 errors / 0 pending' \
  || { echo "the guide's spec printed:"; echo "$out"; exit 1; }

# the same spec expecting the sheep within 0.1 s: it fails, and says why
sed 's/trace:expect_within(FLEE, "RUNNING", 2, 0.5)$/trace:expect_within(FLEE, "RUNNING", 2, 0.1)/' \
  spec/sheep_spec.lua > spec/quick_spec.lua
cmp -s spec/sheep_spec.lua spec/quick_spec.lua && { echo "could not make the quicker spec"; exit 1; }
sed 's|spec/sheep_spec.lua|spec/quick_spec.lua|' run_here.sh > run_quick.sh
if out=$(sh ./run_quick.sh 2>&1); then
  echo "a spec expecting the sheep within 0.1 s passed:"; echo "$out"; exit 1
fi
for want in "RUNNING within 0.1 s of 2.0000 (by 2.1000); it was first at 2.1333" \
            "the tree at 2.1000" "   >   >RunAway - READY" "the last 10 transitions up to 2.1000"; do
  echo "$out" | grep -qF -- "$want" || { echo "the failure does not say '$want':"; echo "$out"; exit 1; }
done
echo "testing-brains.md: its spec passes, and fails as it should"
