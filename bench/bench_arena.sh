#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_arena.sh: bt-arena's brains on threads (docs/arena.md "Threads", docs/performance.md "The
# arena on threads"). Runs `bt-arena --headless --agents A --seconds S --seed 1 --threads N` for
# N = 0 (one Lua state, no threads: the serial arena), 1, 2 and the machine's cores (and any N
# given), and prints for each, from its summary line: the thinks per second of the think phase
# (the brains' frame less the serial phase that applies their commands), the frames (ticks) per
# second of the whole loop, the serial phase's share of a frame, and the world's digest (equal for
# every N from 1 up). ROUNDS=n runs each n times and keeps the best (this VM is noisy).
# usage: bench/bench_arena.sh <bt-arena> [<agents> [<seconds> [N ...]]]
set -u
arena=${1:?usage: bench_arena.sh <bt-arena> [agents [seconds [N ...]]]}
agents=${2:-5000}
seconds=${3:-5}
[ $# -ge 3 ] && shift 3 || shift $#
rounds=${ROUNDS:-2}
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
list="0 1 2"
[ "$cores" -gt 2 ] && list="$list $cores"
[ $# -gt 0 ] && list="$list $*"
echo "bt-arena --headless --agents $agents --seconds $seconds --seed 1 --threads N (best of $rounds; $cores cores)"
printf '%8s %14s %10s %12s %12s %12s %10s  %s\n' threads thinks/s_think frames/s brain_us/tick apply_us/tick host_us/tick apply_share world
one_thread=""
for n in $list; do
  best=""
  for _ in $(seq "$rounds"); do
    line=$("$arena" --headless --agents "$agents" --seconds "$seconds" --seed 1 --threads "$n") || {
      echo "bt-arena --threads $n failed"
      exit 1
    }
    brain=$(echo "$line" | tr ' ' '\n' | sed -n 's/^brain_us_per_tick=//p')
    if [ -z "$best" ] || [ "$brain" -lt "$(echo "$best" | tr ' ' '\n' | sed -n 's/^brain_us_per_tick=//p')" ]; then
      best=$line
    fi
  done
  echo "$best" | tr ' ' '\n' | awk -F= -v n="$n" -v one="$one_thread" '
    { v[$1] = $2 }
    END {
      ticks = v["ticks"]; brain = v["brain_us_per_tick"]; apply = v["apply_us_per_tick"]; host = v["host_us_per_tick"]
      think = brain - apply
      tps = think > 0 ? v["thinks"] / ticks / (think / 1e6) : 0
      fps = brain + host > 0 ? 1e6 / (brain + host) : 0
      printf "%8d %14.0f %10.1f %12d %12d %12d %9.1f%%  %s\n", n, tps, fps, brain, apply, host, 100 * apply / (brain + host), v["world"]
    }'
done
