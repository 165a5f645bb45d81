#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: valgrind memcheck over every C test (tests/c/test_*.c, tests/view/test_*.c) of a normal, uninstrumented build.
# Any invalid access, use of an uninitialised value, leak (definite, indirect or possible), or a
# test's own failure fails the run. Installs valgrind if it is missing. Run from the repository
# root. usage: tests/ci/valgrind.sh   (BUILD=dir, default build, the directory make test uses)
set -u
stage=valgrind default_build=build
. "$(dirname "$0")/stage.sh"

[ -f CMakeLists.txt ] && [ -d tests/c ] || { echo "valgrind: run from the repository root"; exit 2; }
if ! command -v valgrind >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "Installing valgrind"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null \
    || fail "could not install valgrind"
fi
make -s deps || fail "Debian packages"
# valgrind cannot run instrumented programs: the build must not be a BT_SANITIZE one
if grep -q '^BT_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  fail "$build is configured with BT_SANITIZE=ON; use another BUILD"
fi
mkdir -p "$build"
blog=$build/valgrind-build.log
{ cmake -S . -B "$build" -DBT_SANITIZE=OFF && cmake --build "$build" -j "$jobs"; } > "$blog" 2>&1 \
  || { tail -n 40 "$blog"; fail "configure or build, see $blog"; }

passed=0
failed=""
# what ctest gives the tests (test_dot reads its expected pictures from the source tree)
BT_SOURCE_DIR=$(pwd)
export BT_SOURCE_DIR
for src in tests/c/test_*.c tests/view/test_*.c; do
  name=$(basename "$src" .c)
  bin=$build/tests/$name
  [ -x "$bin" ] || { failed="$failed $name(missing)"; continue; }
  if valgrind --tool=memcheck --quiet --error-exitcode=99 \
       --leak-check=full --show-leak-kinds=definite,indirect,possible \
       --errors-for-leak-kinds=definite,indirect,possible \
       --track-origins=yes --num-callers=30 "$bin" > "$build/valgrind-$name.log" 2>&1; then
    passed=$((passed + 1))
  else
    echo "---- $name (valgrind exit $?):"
    cat "$build/valgrind-$name.log"
    failed="$failed $name"
  fi
done
[ -z "$failed" ] || fail "$passed passed, failed:$failed"
echo "valgrind: ok, memcheck clean on $passed C tests, in $(($(date +%s) - start))s"
