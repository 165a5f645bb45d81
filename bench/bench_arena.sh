#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_arena.sh: bt-arena's brains on threads against the serial arena (docs/arena.md "Threads",
# docs/performance.md "The arena on threads"). For each seed (1 and 2, or SEEDS), runs
# `bt-arena --headless --agents A --seconds S --seed SEED --threads N` for N = 0 (one Lua state on
# the calling thread: the serial arena), 1, 2 and the machine's cores (and any N given), in
# alternated rounds (0, 1, 2, ..., then again), and keeps each N's best brain_us_per_tick. It
# prints for each N: the brains' time per tick, its ratio to the serial row's (time / serial) and
# the speed-up (serial / time), the serial phase that applies the commands, the host's time, the
# thinks per second of the think phase, and the world's digest, which must be the same for every
# N (the script fails otherwise: a speed-up of another world means nothing). ROUNDS=n rounds
# (default 3: this VM is noisy).
# usage: bench/bench_arena.sh <bt-arena> [<agents> [<seconds> [N ...]]]
set -u
arena=${1:?usage: bench_arena.sh <bt-arena> [agents [seconds [N ...]]]}
agents=${2:-5000}
seconds=${3:-20}
[ $# -ge 3 ] && shift 3 || shift $#
rounds=${ROUNDS:-3}
seeds=${SEEDS:-1 2}
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
list="0 1 2"
[ "$cores" -gt 2 ] && list="$list $cores"
[ $# -gt 0 ] && list="$list $*"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

echo "bt-arena --headless --agents $agents --seconds $seconds --seed SEED --threads N (best of $rounds alternated rounds; $cores cores)"
printf '%4s %7s %13s %12s %9s %13s %12s %14s  %s\n' seed threads brain_us/tick time/serial speed-up \
  apply_us/tick host_us/tick thinks/s_think world
status=0
for seed in $seeds; do
  for _ in $(seq "$rounds"); do
    for n in $list; do
      line=$("$arena" --headless --agents "$agents" --seconds "$seconds" --seed "$seed" --threads "$n") || {
        echo "bt-arena --threads $n --seed $seed failed"
        exit 1
      }
      brain=$(field brain_us_per_tick "$line")
      if [ ! -f "$tmp/$n" ] || [ "$brain" -lt "$(field brain_us_per_tick "$(cat "$tmp/$n")")" ]; then
        echo "$line" > "$tmp/$n"
      fi
    done
  done
  serial=$(cat "$tmp/0")
  for n in $list; do
    line=$(cat "$tmp/$n")
    echo "$line" | tr ' ' '\n' | awk -F= -v n="$n" -v seed="$seed" -v serial="$(field brain_us_per_tick "$serial")" '
      { v[$1] = $2 }
      END {
        brain = v["brain_us_per_tick"]; apply = v["apply_us_per_tick"]
        think = brain - apply
        tps = think > 0 ? v["thinks"] / v["ticks"] / (think / 1e6) : 0
        printf "%4d %7d %13d %11.2fx %8.2fx %13d %12d %14.0f  %s\n", seed, n, brain, brain / serial, serial / brain,
               apply, v["host_us_per_tick"], tps, v["world"]
      }'
    if [ "$(field world "$line")" != "$(field world "$serial")" ]; then
      echo "  --threads $n ends in another world than --threads 0: the ratios above compare nothing"
      status=1
    fi
  done
  rm -f "$tmp"/*
done
exit $status
