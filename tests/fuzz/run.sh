#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh SECONDS: fuzzes the bt core for SECONDS (run from the repository root).
#
# Installs clang (and what configuring the project needs) from Debian if missing, configures and
# builds the libFuzzer target in its own build directory ($BT_FUZZ_BUILD, default build-fuzz) with
# clang and -DBT_FUZZ=ON, and runs it from the committed seed corpus, tests/fuzz/corpus. New
# inputs go to a temporary directory, so the committed corpus stays as it is.
#
# Exit status: 0 no finding; 1 a finding (a crash, leak, timeout, out-of-memory, sanitizer report
# or broken expectation: the input that caused it is printed); 2 bad usage or a failed build.
# To see what a finding's input does: BT_FUZZ_TRACE=1 build-fuzz/tests/fuzz/bt_fuzz FILE
set -eu

usage() {
  echo "usage: tests/fuzz/run.sh SECONDS" >&2
  exit 2
}
[ $# -eq 1 ] || usage
case $1 in '' | *[!0-9]* | 0*) usage ;; esac # a whole number of seconds, at least 1
seconds=$1
if [ ! -f tests/fuzz/fuzz_bt.c ] || [ ! -f CMakeLists.txt ]; then
  echo "run.sh: run it from the repository root" >&2
  exit 2
fi

build=${BT_FUZZ_BUILD:-build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

# Debian packages: the compiler, and what the project's configure step looks for.
missing=""
for p in clang cmake make libc6-dev lua5.4 liblua5.4-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "run.sh: installing Debian packages:$missing"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  # shellcheck disable=SC2086 # $missing is a list of words
  if ! { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null; }; then
    echo "run.sh: could not install:$missing" >&2
    exit 2
  fi
fi

mkdir -p "$build"
if ! cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DBT_FUZZ=ON -DBUILD_TESTING=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "run.sh: configuring $build failed" >&2
  exit 2
fi
if ! cmake --build "$build" --target bt_fuzz -j "$jobs"; then
  echo "run.sh: building bt_fuzz failed" >&2
  exit 2
fi

findings="$build/fuzz-findings"
mkdir -p "$findings"
rm -f "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* "$findings"/oom-* \
  "$findings"/slow-unit-*
log="$build/fuzz.log"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT INT TERM

echo "run.sh: fuzzing for $seconds s (log: $log)"
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:print_summary=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/tests/fuzz/bt_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$findings/" \
  "$corpus" tests/fuzz/corpus >"$log" 2>&1
status=$?
set -e

grep -E '^(#[0-9]+[[:space:]]+(pulse|DONE)|Done|stat::)' "$log" | tail -n 8 || true
found=$(find "$findings" -type f -name '*-*' | sort)
if [ "$status" -ne 0 ] || [ -n "$found" ]; then
  echo
  tail -n 60 "$log"
  echo
  echo "run.sh: FINDING (bt_fuzz exit status $status)"
  for f in $found; do
    echo "run.sh: input: $f"
    echo "run.sh: reproduce: $build/tests/fuzz/bt_fuzz $f"
  done
  exit 1
fi
echo "run.sh: no finding in $seconds s"
