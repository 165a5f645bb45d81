#!/bin/sh
# SPDX-License-Identifier: MIT
# bt as other projects take it (docs/embedding.md), each check one ctest test:
#   stage <src> <dir> <version>            builds bt from <src> as Debian would (prefix /usr, libdir
#                                          lib/x86_64-linux-gnu) and installs it with DESTDIR=<dir>/root
#   find_package <src> <dir> <version> C|CXX   a game that find_package(bt)s the staged install
#   add_subdirectory <src> <dir> <version> C|CXX   a game that add_subdirectory()s the source tree
#   pkg_config <src> <dir> <version> C|CXX     a game built with `pkg-config bt` / `btcore` / `btengine`
#   paths <src> <dir> <version> <build dir>    no staged file holds the source or a build folder
# Each game prints the version of headers, library and module and a think, and must print what
# bt <version> does. C++ checks exit 77 (ctest: skipped) without a C++ compiler.
# Compilers: $CC (default cc), $CXX (default c++); the CMake generator: $CMAKE_GENERATOR.
set -eu
what=$1
src=$2
dir=$3
version=$4
root=$dir/root
libdir=lib/x86_64-linux-gnu
usr=$root/usr
CC=${CC:-cc}
CXX=${CXX:-c++}
export CC CXX

fail() { echo "$what: $*"; exit 1; }

need_cxx() {
  if [ "${1:-C}" = CXX ] && ! command -v "$CXX" >/dev/null 2>&1; then
    echo "SKIPPED: no C++ compiler ($CXX; Debian package g++)"
    exit 77
  fi
}

# what game.c/game.cpp print: the versions, then the dump of a Priority over one Action
expected_game="BT_VERSION $version $(echo "$version" | sed 's/\./ /g' | awk '{ printf "%d.%d.%d", $1, $2, $3 }'), bt_version() $version
bt $version
Priority - READY <SUCCESS> ()>0.00
   >Act - READY <SUCCESS> ()>0.00"
expected_core="core $version
Sequence - READY <SUCCESS> ()>0.00
   >Condition - READY <SUCCESS> ()>0.00"
# what engine.c prints: a tree of the C builder after two thinks
expected_engine="engine $version, food 1
Root - RUNNING <RUNNING> (2)>2.00
   >Eat - READY <FAILED> ()>0.00
   >   >Hungry - READY <FAILED> ()>0.00
   >   >Graze - READY <READY> ()>0.00
   >Wait - RUNNING <RUNNING> (2.00)>2.00"

# run_games <folder>: runs game, game_static, game_core, game_engine and game_engine_static there
# and compares what they print
run_games() {
  out=$("$1/game") || fail "game failed: $out"
  [ "$out" = "$expected_game" ] || fail "game printed:
$out
expected:
$expected_game"
  out=$("$1/game_static") || fail "game_static failed: $out"
  [ "$out" = "$expected_game" ] || fail "game_static printed: $out"
  out=$("$1/game_core") || fail "game_core failed: $out"
  [ "$out" = "$expected_core" ] || fail "game_core printed: $out"
  # bt::bt is the shared library, bt::bt_static is not
  readelf -d "$1/game" | grep -q 'NEEDED.*\[libbt\.so\.0\]' || fail "game is not linked to libbt.so.0"
  ! readelf -d "$1/game_static" | grep -q 'libbt' || fail "game_static needs a shared libbt"
  readelf -d "$1/game_core" | grep -q 'NEEDED.*\[libbtcore\.so\.0\]' || fail "game_core is not linked to libbtcore.so.0"
  if readelf -d "$1/game_core" | grep -q 'liblua'; then fail "game_core links Lua"; fi
  # the engine alone: the shared libbtengine and nothing else of bt, or the static one and none
  for engine in game_engine game_engine_static; do
    out=$("$1/$engine") || fail "$engine failed: $out"
    [ "$out" = "$expected_engine" ] || fail "$engine printed:
$out
expected:
$expected_engine"
  done
  needed=$(readelf -d "$1/game_engine" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "$needed" | grep -qx 'libbtengine\.so\.0' || fail "game_engine is not linked to libbtengine.so.0"
  others=$(echo "$needed" | grep -E '^lib(bt|lua|civetweb)' | grep -vx 'libbtengine\.so\.0' || true)
  [ -z "$others" ] || fail "game_engine links more than libbtengine:" $others
  ! readelf -d "$1/game_engine_static" | grep -q 'NEEDED.*lib\(bt\|lua\)' || fail "game_engine_static needs a shared library of bt or Lua"
  # the viewer (bt::view, bt::view_static), when bt was built with it
  for view in game_view game_view_static; do
    [ -x "$1/$view" ] || continue
    # libbtview.so needs libbtcore.so.0: a staged (DESTDIR) install's folder is on the game's
    # RUNPATH, which the loader does not use for a library's own dependencies
    out=$(LD_LIBRARY_PATH="$usr/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$1/$view") || fail "$view failed: $out"
    [ "$out" = "view ok" ] || fail "$view printed: $out"
  done
  if [ -x "$1/game_view" ] && ! readelf -d "$1/game_view" | grep -q 'NEEDED.*\[libbtview\.so\.0\]'; then
    fail "game_view is not linked to libbtview.so.0"
  fi
}

# configure <source> <build> <options...>: a quiet CMake configure and build, the log on failure
configure() {
  s=$1 b=$2
  shift 2
  rm -rf "$b"
  mkdir -p "$(dirname "$b")"
  log=$b.log
  { cmake -S "$s" -B "$b" ${CMAKE_GENERATOR:+-G "$CMAKE_GENERATOR"} "$@" &&
    cmake --build "$b" -j 2; } >"$log" 2>&1 || { tail -n 40 "$log"; fail "configure or build of $s failed (log: $log)"; }
}

case $what in
  stage)
    configure "$src" "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
      -DCMAKE_INSTALL_LIBDIR=$libdir -DBT_BUILD_TESTS=OFF -DBT_BUILD_BENCH=OFF -DBT_SANITIZE=OFF
    rm -rf "$root"
    DESTDIR=$root cmake --install "$dir/build" >"$dir/install.log" || fail "install failed"
    for f in include/bt.h include/bt_core.h include/bt_record.h include/bt_sched.h include/bt_lua.h \
             include/bt_version.h $libdir/libbt.a $libdir/libbtcore.a $libdir/libbtengine.a \
             $libdir/libbt.so $libdir/libbt.so.0 $libdir/libbt.so.$version $libdir/libbtcore.so.0 \
             $libdir/libbtengine.so $libdir/libbtengine.so.0 \
             $libdir/lua/5.4/bt.so $libdir/cmake/bt/btConfig.cmake $libdir/cmake/bt/btConfigVersion.cmake \
             $libdir/pkgconfig/bt.pc $libdir/pkgconfig/btcore.pc $libdir/pkgconfig/btengine.pc \
             include/bt_test.h $libdir/libbttest.a $libdir/libbttest.so.0 $libdir/pkgconfig/bttest.pc; do
      [ -e "$usr/$f" ] || fail "missing after install: /usr/$f"
    done
    outside=$(find "$root" -type f | grep -vE "^$usr/(bin|include|lib|share)/" || true)
    [ -z "$outside" ] || fail "installed outside /usr/{bin,include,lib,share}: $outside"
    readelf -d "$usr/$libdir/libbt.so.$version" | grep -q 'SONAME.*\[libbt\.so\.0\]' || fail "libbt.so has no SONAME libbt.so.0"
    readelf -d "$usr/$libdir/libbtcore.so.$version" | grep -q 'SONAME.*\[libbtcore\.so\.0\]' || fail "libbtcore.so has no SONAME libbtcore.so.0"
    readelf -d "$usr/$libdir/libbtengine.so.$version" | grep -q 'SONAME.*\[libbtengine\.so\.0\]' || fail "libbtengine.so has no SONAME libbtengine.so.0"
    echo "staged: bt $version in $root/usr, libdir $libdir"
    ;;
  find_package)
    need_cxx "$5"
    configure "$src/tests/install/consumer" "$dir/find_package_$5" -DMODE=find_package -DLANG="$5" \
      -DEXPECTED_VERSION="$version" -DCMAKE_PREFIX_PATH="$usr"
    run_games "$dir/find_package_$5"
    echo "find_package(bt) $5: ok"
    ;;
  add_subdirectory)
    need_cxx "$5"
    configure "$src/tests/install/consumer" "$dir/add_subdirectory_$5" -DMODE=add_subdirectory -DLANG="$5" \
      -DBT_SOURCE_DIR="$src"
    run_games "$dir/add_subdirectory_$5"
    echo "add_subdirectory(bt) $5: ok"
    ;;
  pkg_config)
    need_cxx "$5"
    export PKG_CONFIG_PATH="$usr/$libdir/pkgconfig"
    [ "$(pkg-config --modversion bt)" = "$version" ] || fail "pkg-config --modversion bt: $(pkg-config --modversion bt)"
    [ "$(pkg-config --modversion btcore)" = "$version" ] || fail "pkg-config --modversion btcore"
    [ "$(pkg-config --modversion btengine)" = "$version" ] || fail "pkg-config --modversion btengine"
    out=$dir/pkg_config_$5
    rm -rf "$out" && mkdir -p "$out"
    if [ "$5" = CXX ]; then
      compile="$CXX -std=c++11 $src/tests/install/consumer/game.cpp"
    else
      compile="$CC -std=c11 $src/tests/install/consumer/game.c"
    fi
    flags="-Wall -Wextra -Werror -pedantic"
    # shared: -lbt finds libbt.so; static: the archive named, its dependencies from --static
    $compile $flags -o "$out/game" $(pkg-config --cflags --libs bt) || fail "shared build failed"
    $compile $flags -o "$out/game_static" $(pkg-config --cflags bt) "$usr/$libdir/libbt.a" \
      $(pkg-config --libs --static lua5.4) -lm || fail "static build failed"
    $CC -std=c11 $flags -o "$out/game_core" "$src/tests/install/consumer/core.c" \
      $(pkg-config --cflags --libs btcore) || fail "core build failed"
    # the engine alone: -lbtengine finds libbtengine.so; static, the archive and what it needs
    $CC -std=c11 $flags -o "$out/game_engine" "$src/tests/install/consumer/engine.c" \
      $(pkg-config --cflags --libs btengine) || fail "engine build failed"
    $CC -std=c11 $flags -o "$out/game_engine_static" "$src/tests/install/consumer/engine.c" \
      $(pkg-config --cflags btengine) "$usr/$libdir/libbtengine.a" -lm -pthread || fail "static engine build failed"
    # the test kit, with the core (shared), or static with libbtcore.a or with libbt.a: the kit's
    # archive holds none of the core, so either gives each name once
    [ "$(pkg-config --modversion bttest)" = "$version" ] || fail "pkg-config --modversion bttest"
    $CC -std=c11 $flags -o "$out/kit" "$src/tests/install/consumer/kit.c" \
      $(pkg-config --cflags --libs bttest) || fail "kit build failed"
    $CC -std=c11 $flags -o "$out/kit_static" "$src/tests/install/consumer/kit.c" $(pkg-config --cflags bttest) \
      "$usr/$libdir/libbttest.a" "$usr/$libdir/libbtcore.a" -lm -pthread || fail "static kit build failed"
    $CC -std=c11 $flags -o "$out/kit_static_bt" "$src/tests/install/consumer/kit.c" $(pkg-config --cflags bttest) \
      "$usr/$libdir/libbttest.a" "$usr/$libdir/libbt.a" $(pkg-config --libs --static lua5.4) -lm -pthread \
      || fail "static kit build with libbt.a failed"
    for kit in kit kit_static kit_static_bt; do
      got=$(LD_LIBRARY_PATH="$usr/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$out/$kit") || fail "$kit failed: $got"
      [ "$got" = "kit 1 2.50" ] || fail "$kit printed: $got"
    done
    if pkg-config --exists btview; then # the viewer, when bt was built with it
      [ "$(pkg-config --modversion btview)" = "$version" ] || fail "pkg-config --modversion btview"
      $CC -std=c11 $flags -o "$out/game_view" "$src/tests/install/consumer/view.c" \
        $(pkg-config --cflags --libs btview) || fail "view build failed"
      $CC -std=c11 $flags -o "$out/game_view_static" "$src/tests/install/consumer/view.c" \
        $(pkg-config --cflags btview) "$usr/$libdir/libbtview.a" "$usr/$libdir/libbtcore.a" \
        -lcivetweb -lm -pthread || fail "static view build failed"
    fi
    export LD_LIBRARY_PATH="$usr/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    run_games "$out"
    echo "pkg-config bt $5: ok"
    ;;
  paths)
    build=$5
    [ -d "$usr" ] || fail "nothing staged in $root"
    status=0
    for path in "$src" "$build" "$dir/build"; do
      path=$(cd "$path" && pwd -P)
      for f in $(grep -rlaF "$path" "$root" || true); do
        rel=${f#$root}
        echo "$rel holds $path"
        status=1
      done
    done
    [ $status = 0 ] || fail "installed files hold paths of this machine"
    echo "paths: no staged file holds $src or a build folder ($(find "$root" -type f | wc -l) files)"
    ;;
  *) echo "usage: see the head of $0"; exit 2 ;;
esac
