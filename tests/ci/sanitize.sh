#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: the whole test suite with AddressSanitizer and UndefinedBehaviorSanitizer (BT_SANITIZE,
# cmake/sanitize.cmake). Configures its own build directory, builds everything instrumented and
# runs every ctest test; any sanitizer finding aborts its test. Run from the repository root.
# usage: tests/ci/sanitize.sh        (BUILD=dir to change the build directory, JOBS=n)
set -u
stage=sanitize default_build=build-sanitize
. "$(dirname "$0")/stage.sh"

[ -f CMakeLists.txt ] && [ -d tests/ci ] || { echo "sanitize: run from the repository root"; exit 2; }
make -s deps || fail "Debian packages"
cmake -S . -B "$build" -DBT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo || fail "configure"
cmake --build "$build" -j "$jobs" || fail "build"
log=$build/sanitize-ctest.log
ctest --test-dir "$build" --output-on-failure -j "$jobs" 2>&1 | tee "$log"
# ctest's own status is lost in the pipe: read its summary line instead
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
case $summary in
  "100% tests passed, 0 tests failed out of "*) ;;
  "") fail "ctest printed no summary" ;;
  *) fail "$summary" ;;
esac
echo "sanitize: ok, all ${summary##* } tests passed with ASan and UBSan, in $(($(date +%s) - start))s"
