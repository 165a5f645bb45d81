#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: bt for 64-bit Windows, cross-compiled here with MinGW-w64 (cmake/mingw-w64.cmake) against a
# Lua 5.4 built for Windows from Debian's lua5.4 source package (tests/ci/debian_lua_source.sh,
# its own makefile's mingw target: lua54.dll, lua.exe), then run under wine:
#   build   the libraries, bt.dll (the Lua module), bt-arena, bt-log and the C tests, -Werror
#   c       the C tests (ctest -R '^c\.', each program under wine)
#   arena   bt-arena headless with --record, for seeds and thread counts: the log's bytes must be
#           those of the Linux build's bt-arena for the same flags; bt-log.exe reads the log
#   lua     the README's example and a brain hot-reloaded by polling, with lua.exe and bt.dll
# usage: tests/ci/windows.sh [stage...]   (all four by default; BUILD=dir, default build-windows;
#        LINUX_BUILD=dir, the Linux build whose bt-arena is the reference, default build; JOBS=n)
# Run from the repository root, after make (the Linux build).
set -u
build=${BUILD:-build-windows}
linux_build=${LINUX_BUILD:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
stages=${*:-build c arena lua}
start=$(date +%s)

fail() {
  echo "windows: FAILED ($1) after $(($(date +%s) - start))s"
  exit 1
}

[ -f CMakeLists.txt ] && [ -d tests/ci ] || { echo "windows: run from the repository root"; exit 2; }
mingw=x86_64-w64-mingw32
command -v $mingw-gcc >/dev/null 2>&1 || fail "$mingw-gcc is missing (Debian: gcc-mingw-w64-x86-64-win32; make ci-deps)"
command -v wine >/dev/null 2>&1 || fail "wine is missing (Debian: wine, wine64; make ci-deps)"
mkdir -p "$build"
build=$(cd "$build" && pwd)
lua_dir=$build/lua

# wine: its own prefix in the build folder (made on the first run), quiet, and lua54.dll found
export WINEPREFIX="$build/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPATH="$(winepath -w "$lua_dir/src" 2>/dev/null || echo "$lua_dir/src")"

build_stage() {
  version=$(dpkg-query -W -f='${Version}' lua5.4 2>/dev/null) || fail "lua5.4 is not installed"
  if [ ! -f "$lua_dir/src/lua54.dll" ] || [ "$(cat "$lua_dir/.built" 2>/dev/null)" != "$version" ]; then
    echo "windows: building Debian's Lua $version for Windows"
    sh tests/ci/debian_lua_source.sh "$lua_dir" "$build/apt" || fail "Debian's Lua source"
    make -s -C "$lua_dir/src" clean >/dev/null 2>&1
    make -s -C "$lua_dir/src" mingw CC=$mingw-gcc "AR=$mingw-ar rc" RANLIB=$mingw-ranlib \
      >"$build/lua-build.log" 2>&1 || { cat "$build/lua-build.log"; fail "building Lua for Windows"; }
    echo "$version" >"$lua_dir/.built"
  fi
  blog=$build/windows-build.log
  { cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DBT_BUILD_BENCH=OFF -DBT_VIEW=AUTO "-DLUA_INCLUDE_DIR=$lua_dir/src" \
      "-DLUA_LIBRARY=$lua_dir/src/lua54.dll" &&
      cmake --build "$build" -j "$jobs"; } >"$blog" 2>&1 || { cat "$blog"; fail "build"; }
  # wine makes its prefix on the first program it runs: once here, not inside a test's time
  wine "$lua_dir/src/lua.exe" -e 'assert(_VERSION == "Lua 5.4")' >/dev/null 2>&1 ||
    fail "Lua for Windows does not run under wine"
  echo "windows: built"
}

c_stage() {
  log=$build/windows-c.log
  ctest --test-dir "$build" -R '^c\.' -j "$jobs" --output-on-failure >"$log" 2>&1 || { cat "$log"; fail "a C test"; }
  grep -qE '\*\*\*Skipped|Not Run' "$log" && { cat "$log"; fail "a C test was skipped"; }
  n=$(grep -cE 'Test +#[0-9]+: c\.' "$log")
  [ "$n" -gt 0 ] || fail "no C test ran"
  echo "windows: the $n C tests passed under wine"
}

for stage in $stages; do
  case $stage in
    build) build_stage ;;
    c) c_stage ;;
    *) fail "no stage '$stage' (build, c, arena, lua)" ;;
  esac
done
echo "windows: ok ($stages) in $(($(date +%s) - start))s"
