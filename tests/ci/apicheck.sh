#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: every busted spec (tests/spec), every C test and the arena's runs with a Lua 5.4 built with
# LUA_USE_APICHECK, which asserts on each misuse of Lua's C API that Debian's lua5.4 lets pass
# silently: pushing past the room a C function has (lua_checkstack), a stack index that is not
# valid in the calling frame, a raw access to a value that is no table. Such a misuse may go
# unnoticed for years and then corrupt a game's Lua stack; here it aborts the test that made it.
#
# The interpreter is Debian's own: the source package of the installed lua5.4 (apt-get source,
# checked against the archive's signatures, with a sources list of its own in the build
# directory: the machine's apt settings are left alone), with Debian's patches but the build
# system's, compiled with the upstream makefile, -DLUA_USE_APICHECK and -fPIC. bt is configured in
# its own build directory with that interpreter as LUA_INTERPRETER (the specs' Lua) and that
# library as LUA_LIBRARY (linked into the C tests and the programs that embed Lua), and ctest runs
# the busted.*, c.*, arena.* and tools.* tests.
# Run from the repository root.
# usage: tests/ci/apicheck.sh        (BUILD=dir to change the build directory, default
#        build-apicheck; JOBS=n)
set -u
build=${BUILD:-build-apicheck}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)

fail() {
  echo "apicheck: FAILED ($1) after $(($(date +%s) - start))s"
  exit 1
}

[ -f CMakeLists.txt ] && [ -d tests/spec ] || { echo "apicheck: run from the repository root"; exit 2; }
make -s deps || fail "Debian packages"
mkdir -p "$build"
build=$(cd "$build" && pwd)
apt_dir=$build/apt
lua_dir=$build/lua
version=$(dpkg-query -W -f='${Version}' lua5.4 2>/dev/null) || fail "lua5.4 is not installed"
# built again when Debian's lua5.4 is another version than the one built (lua/.version)
if [ ! -x "$lua_dir/src/lua" ] || [ "$(cat "$lua_dir/.version" 2>/dev/null)" != "$version" ]; then
  echo "apicheck: building Debian's Lua $version with LUA_USE_APICHECK"
  rm -rf "$apt_dir" "$lua_dir"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache" "$apt_dir/get" "$lua_dir"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
  {
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename main"
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename-updates main"
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main"
  } >"$apt_dir/sources.list"
  set -- -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root
  apt-get "$@" update -qq >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log"; fail "apt-get update"; }
  (cd "$apt_dir/get" && apt-get "$@" source --download-only "lua5.4=$version") >"$apt_dir/source.log" 2>&1 ||
    { cat "$apt_dir/source.log"; fail "apt-get source lua5.4=$version"; }
  tar -xzf "$apt_dir"/get/lua5.4_*.orig.tar.gz -C "$lua_dir" --strip-components=1 || fail "unpacking Lua"
  tar -xJf "$apt_dir"/get/lua5.4_*.debian.tar.xz -C "$lua_dir" || fail "unpacking Debian's patches"
  # Debian's patches but its build system's (libtool): the module paths that find Debian's
  # installed modules (busted's), the fixes of the security updates
  grep -v '^#' "$lua_dir/debian/patches/series" | grep -v build-system | while read -r p; do
    [ -n "$p" ] || continue
    patch -d "$lua_dir" -p1 -s <"$lua_dir/debian/patches/$p" || exit 1
  done || fail "applying Debian's patches"
  make -s -C "$lua_dir/src" linux "MYCFLAGS=-DLUA_USE_APICHECK -fPIC" >"$build/lua-build.log" 2>&1 ||
    { cat "$build/lua-build.log"; fail "building Lua"; }
  echo "$version" >"$lua_dir/.version"
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
