#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: every busted spec (tests/spec), every C test and the arena's runs with a Lua 5.4 built with
# LUA_USE_APICHECK, which asserts on each misuse of Lua's C API that Debian's lua5.4 lets pass
# silently: pushing past the room a C function has (lua_checkstack), a stack index that is not
# valid in the calling frame, a raw access to a value that is no table. Such a misuse may go
# unnoticed for years and then corrupt a game's Lua stack; here it aborts the test that made it.
#
# The interpreter is Debian's own: the source package of the installed lua5.4, with Debian's
# patches but the build system's (tests/ci/debian_source.sh), compiled with the upstream
# makefile, -DLUA_USE_APICHECK and -fPIC. bt is configured in
# its own build directory with that interpreter as LUA_INTERPRETER (the specs' Lua) and that
# library as LUA_LIBRARY (linked into the C tests and the programs that embed Lua), and ctest runs
# the busted.*, c.*, arena.* and tools.* tests.
# Run from the repository root.
# usage: tests/ci/apicheck.sh        (BUILD=dir to change the build directory, default
#        build-apicheck; JOBS=n)
set -u
stage=apicheck default_build=build-apicheck
. "$(dirname "$0")/stage.sh"

[ -f CMakeLists.txt ] && [ -d tests/spec ] || { echo "apicheck: run from the repository root"; exit 2; }
make -s deps || fail "Debian packages"
mkdir -p "$build"
build=$(cd "$build" && pwd)
lua_dir=$build/lua
version=$(dpkg-query -W -f='${Version}' lua5.4 2>/dev/null) || fail "lua5.4 is not installed"
# built again when Debian's lua5.4 is another version than the one built (lua/.built)
if [ ! -x "$lua_dir/src/lua" ] || [ "$(cat "$lua_dir/.built" 2>/dev/null)" != "$version" ]; then
  echo "apicheck: building Debian's Lua $version with LUA_USE_APICHECK"
  sh tests/ci/debian_source.sh lua5.4 "$lua_dir" "$build/apt" build-system || fail "Debian's Lua source"
  make -s -C "$lua_dir/src" clean >/dev/null 2>&1
  make -s -C "$lua_dir/src" linux "MYCFLAGS=-DLUA_USE_APICHECK -fPIC" >"$build/lua-build.log" 2>&1 ||
    { cat "$build/lua-build.log"; fail "building Lua"; }
  echo "$version" >"$lua_dir/.built"
fi
"$lua_dir/src/lua" -e 'assert(_VERSION == "Lua 5.4")' || fail "the interpreter does not run"
blog=$build/apicheck-build.log
{ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBT_BUILD_BENCH=OFF \
    "-DLUA_INTERPRETER=$lua_dir/src/lua" "-DLUA_LIBRARY=$lua_dir/src/liblua.a" \
    "-DLUA_INCLUDE_DIR=$lua_dir/src" &&
    cmake --build "$build" -j "$jobs"; } >"$blog" 2>&1 || { cat "$blog"; fail "build"; }
log=$build/apicheck-ctest.log
if ! ctest --test-dir "$build" -R '^(busted|c|arena|tools)\.' -j "$jobs" --output-on-failure >"$log" 2>&1; then
  cat "$log"
  fail "a test failed or aborted on an API check"
fi
if grep -qE '\*\*\*Skipped|Not Run' "$log"; then
  cat "$log"
  fail "a test was skipped"
fi
n=$(grep -cE 'Test +#[0-9]+: (busted|c|arena|tools)\.' "$log")
[ "$n" -gt 0 ] || fail "no test ran"
echo "apicheck: ok, all $n tests (busted specs, C tests, arena runs) passed with Lua built with LUA_USE_APICHECK, in $(($(date +%s) - start))s"
