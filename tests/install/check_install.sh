#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a fresh prefix and uses it as docs/lua-api.md says a user would: a stock
# lua5.4 loads bt.so through LUA_CPATH (and bt.test through LUA_PATH), and a C host compiles and
# links through `pkg-config bt` (the shared libbt.so), or names the static libbt.a.
# usage: check_install.sh <build dir> <source dir> [libdir [Lua C module dir]]
#   (as CMake installs them, default lib and lib/lua/5.4; C hosts are built with $CC, default cc)
set -eu
build=$1
src=$2
lib=${3:-lib}
luacdir=${4:-$lib/lua/5.4}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
# the headers, a layer's each (docs/c-api.md), and the libraries: libbtengine (the engine),
# libbtcore (the engine, recording, the schedulers), libbt (and the Lua binding)
for f in include/bt.h include/bt_core.h include/bt_record.h include/bt_sched.h include/bt_lua.h \
         include/bt_version.h $lib/libbt.a $lib/libbtcore.a $lib/libbtengine.a \
         $lib/libbt.so.0 $lib/libbtcore.so.0 $lib/libbtengine.so.0 $luacdir/bt.so \
         $lib/pkgconfig/bt.pc $lib/pkgconfig/btcore.pc $lib/pkgconfig/btengine.pc \
         $lib/cmake/bt/btConfig.cmake $lib/cmake/bt/btConfigVersion.cmake $lib/cmake/bt/btTargets.cmake; do
  [ -f "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
for f in "$prefix/share/lua/5.4/bt.lua" "$prefix/share/lua/5.4/bt/init.lua"; do
  [ ! -e "$f" ] || { echo "installed $f would shadow bt.so"; exit 1; }
done

# A build with BT_SANITIZE has an instrumented bt.so: the stock interpreter must preload the
# sanitizer runtimes that ctest names in BT_SANITIZE_PRELOAD (cmake/sanitize.cmake).
lua54() {
  if [ -n "${BT_SANITIZE_PRELOAD:-}" ]; then
    LD_PRELOAD="$BT_SANITIZE_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}" lua5.4 "$@"
  else
    lua5.4 "$@"
  fi
}

# a stock interpreter, from the installed tree only
out=$(cd "$prefix" && LUA_CPATH="$prefix/$luacdir/?.so;;" \
  LUA_PATH="$prefix/share/lua/5.4/?.lua;$prefix/share/lua/5.4/?/init.lua;;" lua54 -e '
  local before = {}
  for k in pairs(_G) do before[k] = true end
  local bt = require "bt"
  for k in pairs(_G) do assert(before[k], "require defined global " .. k) end
  local tree = bt.BT({}, bt.PriorityNode({bt.ActionNode(function() end, "Act")}, 1, true))
  tree:Update()
  io.write(tostring(tree))')
expected='Priority - READY <SUCCESS> ()>0.00
   >Act - READY <SUCCESS> ()>0.00'
[ "$out" = "$expected" ] || { echo "stock lua5.4 run printed:"; echo "$out"; exit 1; }

# bt.test, the test helper (docs/bt-test.md), from the installed tree: the installed sheep, made
# hungry at 1 s by a scripted answer, grazes
for f in share/lua/5.4/bt/test.lua share/lua-language-server/bt/library/bt_test.lua; do
  [ -f "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
out=$(cd "$prefix" && LUA_CPATH="$prefix/$luacdir/?.so;;" \
  LUA_PATH="$prefix/share/lua/5.4/?.lua;$prefix/share/lua/5.4/?/init.lua;;" lua54 -e '
  local bt = require "bt"
  local T = require "bt.test"
  print(package.searchpath("bt.test", package.path))
  local world = T.world()
  bt.set_clock(world:clock())
  local wrangler = bt.BrainWrangler()
  local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}, answers = {GetHunger = T.timeline(1, 0.9)}})
  world:spawn("grass", 3, 0)
  world:start_brain(sheep, require "bt.brains.sheep", wrangler)
  world:run(5, wrangler)
  io.write(table.concat(world:commands(sheep, "StartAction"), " "))')
case $out in
  "$prefix/share/lua/5.4/bt/test.lua
StartAction(eat, grass#2)"*) ;;
  *) echo "the installed bt.test did not drive the installed sheep to graze:"; echo "$out"; exit 1 ;;
esac

# a C host through pkg-config, with the shared library (found through LD_LIBRARY_PATH: the prefix
# is not on the loader's path), then with the static one
export PKG_CONFIG_PATH="$prefix/$lib/pkgconfig"
export LD_LIBRARY_PATH="$prefix/$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -o "$prefix/hello" "$src/examples/hello/hello.c" \
  $(pkg-config --cflags --libs bt)
(cd "$src" && "$prefix/hello" examples/hello/brain.lua 2) | grep -q "Priority - RUNNING" \
  || { echo "the pkg-config host did not think"; exit 1; }
readelf -d "$prefix/hello" | grep -q 'NEEDED.*\[libbt\.so\.0\]' \
  || { echo "the pkg-config host is not linked to libbt.so.0"; exit 1; }
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -o "$prefix/hello_static" "$src/examples/hello/hello.c" \
  $(pkg-config --cflags bt) "$prefix/$lib/libbt.a" $(pkg-config --libs --static lua5.4) -lm \
  $(pkg-config --libs-only-other bt)
! readelf -d "$prefix/hello_static" | grep -q 'libbt\.so' \
  || { echo "the static host needs libbt.so"; exit 1; }
(cd "$src" && "$prefix/hello_static" examples/hello/brain.lua 2) | grep -q "Priority - RUNNING" \
  || { echo "the static host did not think"; exit 1; }

# the core alone, without Lua
cat > "$prefix/core.c" <<'CEOF'
#include <bt.h>
#include <stdio.h>
static int yes(bt_call *c) { (void)c; return 1; }
int main(void) {
  bt_graph *g; bt_def *d; bt_inst *in; bt_buf out = {0};
  if (bt_graph_create(&g)) return 1;
  bt_spec s = {0};
  s.kind = BT_CONDITION; s.fn = yes;
  int leaf = bt_graph_add(g, &s);
  s.kind = BT_SEQUENCE; s.fn = NULL;
  int root = bt_graph_add(g, &s);
  bt_graph_set_children(g, root, &leaf, 1);
  if (bt_def_create(&d, g, root)) return 1;
  bt_graph_free(g);
  if (bt_inst_create(&in, d, NULL, NULL, 0)) return 1;
  bt_def_release(d);
  bt_inst_update(in);
  bt_inst_dump(in, &out);
  fputs(out.data, stdout);
  bt_buf_free(&out);
  bt_inst_free(in);
  return 0;
}
CEOF
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -o "$prefix/core" "$prefix/core.c" $(pkg-config --cflags --libs btcore)
[ "$("$prefix/core")" = "Sequence - READY <SUCCESS> ()>0.00
   >Condition - READY <SUCCESS> ()>0.00" ] || { echo "the core-only host printed:"; "$prefix/core"; exit 1; }
echo "install: headers, libraries, bt.so and pkg-config files work"

# The programs, as a user runs them after `make install`: from an empty folder, with the data
# installed beside them (share/bt, found from the executable's path), also once the installed tree
# has moved (a copy of bin/ and share/ elsewhere); each answers --help and --version; no path of
# the source or build tree is in them.
for f in bin/bt-hello bin/bt-arena bin/bt-log share/bt/hello/brain.lua share/bt/brains/sheep.lua \
         share/man/man1/bt-hello.1 share/man/man1/bt-arena.1 share/man/man1/bt-log.1; do
  [ -f "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
mkdir "$prefix/empty" "$prefix/moved"
cp -R "$prefix/bin" "$prefix/share" "$prefix/moved/" # a copy: what follows may use the original
version=$(pkg-config --modversion bt)
for prog in bt-hello bt-arena bt-log; do
  exe=$prefix/moved/bin/$prog
  out=$(cd "$prefix/empty" && "$exe" --version) || { echo "$prog --version failed"; exit 1; }
  [ "$out" = "$prog (bt) $version" ] || { echo "$prog --version printed: $out (expected $prog (bt) $version)"; exit 1; }
  (cd "$prefix/empty" && "$exe" --help) | grep -q "^usage: $prog" || { echo "$prog --help printed no usage"; exit 1; }
  # debug information aside (it names the sources), and not with the sanitizers (whose reports do)
  if command -v objcopy >/dev/null 2>&1 && [ -z "${BT_SANITIZE_PRELOAD:-}" ]; then
    objcopy --strip-debug "$exe" "$prefix/stripped"
    for dir in "$src" "$build"; do
      ! grep -qF "$dir" "$prefix/stripped" || { echo "installed $prog contains the path $dir"; exit 1; }
    done
  fi
done
out=$(cd "$prefix/empty" && "$prefix/moved/bin/bt-hello" 2>&1) || { echo "installed bt-hello failed: $out"; exit 1; }
echo "$out" | head -1 | grep -q "^t= 0.03 " && echo "$out" | grep -q "RunAway - READY <SUCCESS>" \
  || { echo "installed bt-hello did not run its brain (no think, or no running away from the wolf):"; echo "$out" | tail -5; exit 1; }
(cd "$prefix/empty" && "$prefix/moved/bin/bt-arena" --headless --seconds 3 > "$prefix/arena.out" 2> "$prefix/arena.err") \
  || { echo "installed bt-arena --headless failed: $(cat "$prefix/arena.err")"; exit 1; }
grep -q "^agents=40 simulated=3.0s .* alive=40 brains=40 registered=40 .* script_errors=0 alive_by_kind=sheep:17,wolf:4,villager:8,guard:4,ewe:4,fox:3 threads=[0-9]* apply_us_per_tick=[0-9]* commands=[0-9]* world=[0-9a-f]*$" "$prefix/arena.out" \
  && [ ! -s "$prefix/arena.err" ] \
  || { echo "installed bt-arena --headless printed:"; cat "$prefix/arena.out" "$prefix/arena.err"; exit 1; }
[ -z "$(ls -A "$prefix/empty")" ] || { echo "the programs wrote into the current folder: $(ls -A "$prefix/empty")"; exit 1; }
echo "install: bt-hello and bt-arena run from an empty folder with their installed data; they and bt-log answer --help and --version"
