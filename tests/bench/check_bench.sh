#!/bin/sh
# SPDX-License-Identifier: MIT
# check_bench.sh BENCH_THINK SOURCE_DIR: the think benchmark runs on a few agents, prints every
# row of its table and its reference lines (and so does the brain of behaviour classes), takes --rounds and --order, and counts no heap
# allocation per think in steady state; a bad flag is refused with a usage message and exit
# status 2. No time is checked.
set -u
bench=$1
src=$2
out=$("$bench" "$src/bench/think.lua" --agents 30 --frames 30 --rounds 2 2>&1) || { echo "$out"; echo "FAIL: bench_think failed"; exit 1; }
echo "$out"
rows=$(echo "$out" | grep -c -E '^(C|Lua) leaves')
[ "$rows" -eq 6 ] || { echo "FAIL: expected 6 scenario rows, got $rows"; exit 1; }
# the last column is allocations per think
bad=$(echo "$out" | grep -E '^(C|Lua) leaves' | awk '$NF != "0.000"')
[ -z "$bad" ] || { echo "FAIL: allocations per think:"; echo "$bad"; exit 1; }
echo "$out" | grep -q '^floor: ' || { echo "FAIL: no floor line"; exit 1; }
echo "$out" | grep -q '^a C loop calling it through lua_pcall' || { echo "FAIL: no references line"; exit 1; }
echo "$out" | grep -q '^least a think from Lua can cost' || { echo "FAIL: no least-think line"; exit 1; }
err=$("$bench" "$src/bench/think.lua" --agents 0 2>&1)
[ $? -eq 2 ] || { echo "FAIL: --agents 0 should exit 2"; exit 1; }
echo "$err" | grep -q 'usage: ' || { echo "FAIL: no usage message: $err"; exit 1; }
echo "$out" | grep -q 'fastest of 2 rounds' || { echo "FAIL: --rounds 2 not taken"; exit 1; }
err=$("$bench" "$src/bench/think.lua" --rounds 0 2>&1)
[ $? -eq 2 ] || { echo "FAIL: --rounds 0 should exit 2"; exit 1; }
out=$("$bench" "$src/bench/think.lua" --agents 20 --frames 10 --rounds 1 --order random 2>&1) ||
  { echo "$out"; echo "FAIL: --order random failed"; exit 1; }
echo "$out" | grep -q 'in one random order' || { echo "FAIL: --order random not taken"; exit 1; }
[ "$(echo "$out" | grep -c -E '^(C|Lua) leaves')" -eq 6 ] || { echo "FAIL: --order random rows"; exit 1; }
err=$("$bench" "$src/bench/think.lua" --order sideways 2>&1)
[ $? -eq 2 ] || { echo "FAIL: --order sideways should exit 2"; exit 1; }
err=$(DS_SCRIPTS= "$bench" "$src/bench/ds_compare.lua" 2>&1)
[ $? -eq 2 ] || { echo "FAIL: ds_compare.lua without DS_SCRIPTS should exit 2"; exit 1; }
echo "$err" | grep -q 'DS_SCRIPTS' || { echo "FAIL: no DS_SCRIPTS message: $err"; exit 1; }
# the brain of behaviour classes: without DS_SCRIPTS, bt's own behaviours and the field benchmark
out=$(DS_SCRIPTS= "$bench" "$src/bench/behaviours.lua" --agents 20 --frames 10 --rounds 1 2>&1) ||
  { echo "$out"; echo "FAIL: behaviours.lua failed"; exit 1; }
echo "$out"
echo "$out" | grep -q "^bt, bt's own behaviours/ " || { echo "FAIL: no row of bt's own behaviours"; exit 1; }
echo "$out" | grep -q '^node / plain: ' || { echo "FAIL: no field benchmark"; exit 1; }
echo "$out" | grep -q 'set DS_SCRIPTS' || { echo "FAIL: no DS_SCRIPTS hint"; exit 1; }
err=$("$bench" "$src/bench/behaviours.lua" --frames 2 2>&1)
[ $? -eq 2 ] || { echo "FAIL: behaviours.lua --frames 2 should exit 2"; exit 1; }
echo "$err" | grep -q 'usage: ' || { echo "FAIL: no usage message: $err"; exit 1; }
# the recorder from Lua: every row, and the same brain recording (records are counted)
out=$("$bench" "$src/bench/recorder.lua" --agents 20 --frames 10 --rounds 1 2>&1) ||
  { echo "$out"; echo "FAIL: recorder.lua failed"; exit 1; }
echo "$out"
[ "$(echo "$out" | grep -c -E '^  (shared definition|a tree per agent)')" -eq 8 ] ||
  { echo "FAIL: recorder.lua: expected 8 rows"; exit 1; }
echo "ok"
