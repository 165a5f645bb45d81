#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh SECONDS: fuzzes the bt core for SECONDS (run from the repository root).
#
# Installs clang (and what configuring the project needs) from Debian if missing, configures and
# builds the libFuzzer targets in their own build directory ($BT_FUZZ_BUILD, default build-fuzz)
# with clang and -DBT_FUZZ=ON, and runs them from the committed seed corpora: bt_fuzz (the core,
# tests/fuzz/corpus) for three quarters of the time, then bt_fuzz_log (the log file's reader,
# tests/fuzz/corpus_log) for the rest (at least 1 s). New inputs go to temporary directories, so
# the committed corpora stay as they are.
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
if ! cmake --build "$build" --target bt_fuzz bt_fuzz_log -j "$jobs"; then
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
log_seconds=$((seconds / 4))
[ "$log_seconds" -ge 1 ] || log_seconds=1
core_seconds=$((seconds - log_seconds))
[ "$core_seconds" -ge 1 ] || core_seconds=1

# run_target NAME SECONDS SEEDS: one libFuzzer target, its log appended to $log; 0 or its status
run_target() {
  echo "run.sh: fuzzing $1 for $2 s (log: $log)"
  mkdir -p "$corpus/$1"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:print_summary=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus/$1" "$3" >>"$log" 2>&1
}

: >"$log"
set +e
run_target bt_fuzz "$core_seconds" tests/fuzz/corpus
status=$?
if [ "$status" -eq 0 ]; then
  run_target bt_fuzz_log "$log_seconds" tests/fuzz/corpus_log
  status=$?
fi
set -e

grep -E '^(#[0-9]+[[:space:]]+(pulse|DONE)|Done|stat::)' "$log" | tail -n 8 || true
found=$(find "$findings" -type f -name '*-*' | sort)
if [ "$status" -ne 0 ] || [ -n "$found" ]; then
  echo
  tail -n 60 "$log"
  echo
  echo "run.sh: FINDING (exit status $status)"
  for f in $found; do
    echo "run.sh: input: $f"
    echo "run.sh: reproduce: $build/tests/fuzz/bt_fuzz $f (or bt_fuzz_log, for an input of the log's corpus)"
  done
  exit 1
fi
echo "run.sh: no finding in $seconds s"
