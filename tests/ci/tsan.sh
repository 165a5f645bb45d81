#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: the C tests (tests/c/test_*.c: test_threads.c's worker pool and the scheduler on workers,
# test_lua_pool.c's pool of Lua states and test_log.c's log writer thread among them) built with
# clang and ThreadSanitizer in their own build directory, and run under it; then bt-arena's
# threaded runs (--threads 2 and 3, headless: the pool's think phase, the serial phase). Any
# report (a data race, a lock taken in two orders, a thread leaked) fails its test. Installs
# clang if it is missing. Run from the repository root.
# usage: tests/ci/tsan.sh        (BUILD=dir to change the build directory, default build-tsan; JOBS=n)
set -u
stage=tsan default_build=build-tsan
. "$(dirname "$0")/stage.sh"

[ -f CMakeLists.txt ] && [ -d tests/c ] || { echo "tsan: run from the repository root"; exit 2; }
if ! command -v clang >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "Installing clang"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang >/dev/null \
    || fail "could not install clang"
fi
make -s deps || fail "Debian packages"
flags="-fsanitize=thread -fno-omit-frame-pointer -g"
mkdir -p "$build"
blog=$build/tsan-build.log
# the C tests and bt-arena only: the programs and bt.so that a stock (uninstrumented) lua5.4 would
# load are left out, and so are the other examples and the benchmarks; warnings are the normal
# build's to refuse
targets="$(for src in tests/c/test_*.c tests/view/test_*.c; do basename "$src" .c; done) bt-arena"
# shellcheck disable=SC2086 # $targets is a list of words
{ cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBT_SANITIZE=OFF -DBT_BUILD_EXAMPLES=ON -DBT_BUILD_BENCH=OFF -DBT_WERROR=OFF \
    "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" \
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread" &&
  cmake --build "$build" -j "$jobs" --target $targets; } > "$blog" 2>&1 \
  || { tail -n 40 "$blog"; fail "configure or build, see $blog"; }

log=$build/tsan-ctest.log
# halt_on_error: the first report ends the test with exitcode 66, so that ctest sees it
TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:report_thread_leaks=1" \
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -R '^c\.' 2>&1 | tee "$log"
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
case $summary in
  "100% tests passed, 0 tests failed out of "*) ;;
  "") fail "ctest printed no summary" ;;
  *) fail "$summary" ;;
esac
grep -q 'ThreadSanitizer' "$log" && fail "a ThreadSanitizer report, see $log"

# the arena on threads (docs/arena.md, "Threads"): by day, and into the night (attacks, deaths,
# births told across the states), and with the viewer's server (its recorders in both states)
alog=$build/tsan-arena.log
: > "$alog"
for args in "--agents 300 --seconds 5 --threads 2" "--agents 120 --seconds 60 --seed 7 --threads 3" \
            "--agents 60 --seconds 10 --threads 2 --viewer 0" \
            "--agents 120 --seconds 60 --seed 7 --threads 2 --record $build/tsan-arena.btlog"; do
  echo "bt-arena --headless --data . $args" >> "$alog"
  # shellcheck disable=SC2086 # $args is a list of words
  TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:report_thread_leaks=1" \
    "$build/examples/arena/bt-arena" --headless --data . $args >> "$alog" 2>&1 \
    || { tail -n 60 "$alog"; fail "bt-arena $args, see $alog"; }
done
grep -q 'ThreadSanitizer' "$alog" && { cat "$alog"; fail "a ThreadSanitizer report in bt-arena, see $alog"; }
grep "^agents=" "$alog"
echo "tsan: ok, all ${summary##* } C tests and bt-arena --threads passed with ThreadSanitizer, in $(($(date +%s) - start))s"
