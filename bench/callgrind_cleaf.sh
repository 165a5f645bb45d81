#!/bin/sh
# SPDX-License-Identifier: MIT
# callgrind_cleaf.sh [BUILD_DIR]: instructions per think and per agent creation of bt and of the
# floor in bench_cleaf, counted by callgrind (steadier than a clock on a busy machine). For each
# tree it runs bench_cleaf under callgrind on 1,000 agents for 30 + 50 frames, once collecting
# only bt's functions (bt_inst_update, bt_inst_create), once only the floor's.
set -eu
build=${1:-build}
bench=$build/bench/bench_cleaf
agents=1000
frames=50
thinks=$((agents * (30 + frames)))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # FUNCTION TREE: instructions in FUNCTION and what it calls
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect="$1" \
    "$bench" --agents $agents --frames $frames --rounds 1 --tree "$2" >/dev/null 2>&1
  callgrind_annotate "$out/cg" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
printf '%-9s %-6s %14s %18s\n' tree "" "Ir/think" "Ir/creation"
for tree in 8 40; do
  for impl in bt floor; do
    if [ $impl = bt ]; then think=bt_inst_update create=bt_inst_create; else think=floor_update create=floor_create; fi
    t=$(count $think $tree)
    c=$(count $create $tree)
    printf '%-9s %-6s %14.1f %18.1f\n' "$tree" $impl "$(echo "$t / $thinks" | bc -l)" "$(echo "$c / $agents" | bc -l)"
  done
done
