#!/bin/sh
# SPDX-License-Identifier: MIT
# check_bt_log.sh BT_LOG LOG_SCENARIOS DIR: bt-log against scripted scenarios recorded through the
# API (log_scenarios.c says what happens in them):
#   tree     the agent's tree at each think's time, from the log, is the live dump taken then, and
#            with --dot the live picture
#   why      the latest switch and its cause for each kind (start, period, ended, event, force,
#            reload, entered), of Priorities and an ActiveSelector, is expected/why.txt; an agent
#            whose tree was stopped (the wolf at 3.1) is gone from then on, and why says since when
#   board    an agent's blackboard at each think's time, from the log, is the live one then
#   print    filters by agent, label, node path, time range, status and type (expected/print.txt,
#            which has agent 5's key writes);
#            the standard input reads as the file; host and world records show their bytes only
#            with --bytes; every byte of the log's (agent 4's label, names, message and host
#            bytes hold them all) is escaped: the output is printable ASCII, tabs and newlines,
#            one line a record; so are why's, stats' and coverage's. With BT_ARENA, the same of an arena's
#            log (its map and frames are binary WORLD records)
#   coverage has stats' figures per node, sums that count them, the nodes never visited as
#            missing, and the same as lcov and as Cobertura's (well-formed) XML;
#   a log of format version 1.0 (data/v1.0.btlog) prints and replays as it did then;
#   a log cut short prints the records of its whole blocks and says where it stopped (exit 0);
#   damaged and foreign files say so (exit 1); --follow reads a log as it is written to its end;
#   bad usage exits 2.
# Hashes of trees (16 hex digits) are compared as HASH: they depend on the core's layout.
set -u
bt_log=$1
scenarios=$2
dir=$3
arena=${4:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
hashless() { sed 's/[0-9a-f]\{16\}/HASH/g'; }

"$scenarios" "$tmp" || fail "log_scenarios failed"
log=$tmp/scenario.btlog

# tree: the live dump after every think, and the picture
n=0
for dump in "$tmp"/dump-*.txt; do
  base=$(basename "$dump" .txt)
  agent=$(echo "$base" | cut -d- -f2)
  at=$(echo "$base" | cut -d- -f3)
  out=$("$bt_log" tree "$log" --agent "$agent" --at "$at") || fail "tree --agent $agent --at $at exited $?"
  printf '%s\n' "$out" | tail -n +2 > "$tmp/tree.txt"
  cmp -s "$tmp/tree.txt" "$dump" || { diff "$tmp/tree.txt" "$dump"; fail "tree --agent $agent --at $at is not the live dump"; }
  case $(printf '%s\n' "$out" | head -1) in
    "agent $agent \""*"\" at $at"*": think "*" at $at"*) ;;
    *) fail "tree's first line: $(printf '%s\n' "$out" | head -1)" ;;
  esac
  "$bt_log" tree "$log" --agent "$agent" --at "$at" --dot > "$tmp/dot.txt" || fail "tree --dot exited $?"
  cmp -s "$tmp/dot.txt" "$tmp/dot-$agent-$at.txt" || { diff "$tmp/dot.txt" "$tmp/dot-$agent-$at.txt"; fail "tree --dot --agent $agent --at $at is not the live picture"; }
  n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n dumps"

# board: the agent's blackboard at each think's time, from the log, is the live one then
n=0
for board in "$tmp"/board-*.txt; do
  base=$(basename "$board" .txt)
  agent=$(echo "$base" | cut -d- -f2)
  at=$(echo "$base" | cut -d- -f3)
  "$bt_log" board "$log" --agent "$agent" --at "$at" | tail -n +2 > "$tmp/board.txt" || fail "board --agent $agent --at $at exited $?"
  cmp -s "$tmp/board.txt" "$board" || { diff "$tmp/board.txt" "$board"; fail "board --agent $agent --at $at is not the live blackboard"; }
  n=$((n + 1))
done
[ $n -ge 4 ] || fail "only $n blackboards"
"$bt_log" board "$log" --agent 1 --at 1 | sed -n 2p | grep -q "^no blackboard" || fail "board of a tree without keys"

# a log of format version 1.0 (tests/tools/data/v1.0.btlog, written before logs had blackboards)
# reads as it did then
"$bt_log" print "$dir/data/v1.0.btlog" --type status,think,event,error,reload,host,world,lost,stop,attach,saved,describe \
  > "$tmp/v1.0.txt" || fail "print of a 1.0 log exited $?"
cmp -s "$tmp/v1.0.txt" "$dir/expected/v1.0-print.txt" || { diff "$tmp/v1.0.txt" "$dir/expected/v1.0-print.txt"; fail "a 1.0 log prints otherwise"; }
"$bt_log" tree "$dir/data/v1.0.btlog" --agent 1 --at 6.6 > "$tmp/v1.0.txt" || fail "tree of a 1.0 log exited $?"
cmp -s "$tmp/v1.0.txt" "$dir/expected/v1.0-tree.txt" || { diff "$tmp/v1.0.txt" "$dir/expected/v1.0-tree.txt"; fail "a 1.0 log's tree is otherwise"; }

# why: each cause
{
  for t in 1 2.8 3.05 3.5 4.5 5.5 6.6 7.2 8; do "$bt_log" why "$log" --agent 1 --at $t; done
  for t in 1 2.5 3.5; do "$bt_log" why "$log" --label 'wolf*' --at $t; done
  for t in 0.5 1; do "$bt_log" why "$log" --agent 3 --at $t; done
} > "$tmp/why.txt" 2>&1 || fail "why exited $?"
hashless < "$tmp/why.txt" > "$tmp/why.h"
hashless < "$dir/expected/why.txt" > "$tmp/why.e"
diff "$tmp/why.h" "$tmp/why.e" || fail "why printed other lines than expected/why.txt"
for cause in start period ended event force reload entered; do
  grep -q "): $cause: " "$tmp/why.txt" || fail "why never named the cause $cause"
done
"$bt_log" why "$log" --agent 2 --at 9 > "$tmp/gone.txt" || fail "why of a gone agent exited $?"
sed -n 2p "$tmp/gone.txt" | grep -q "^gone: its tree was stopped at 3.1000 (think 2) " \
  || fail "why of an agent whose tree was stopped at 3.1 does not say it is gone: $(cat "$tmp/gone.txt")"
! grep -q "^running:\|: runs " "$tmp/gone.txt" || fail "why of a gone agent answers as if it lived: $(cat "$tmp/gone.txt")"
"$bt_log" why "$log" --agent 2 --at 3.0 | grep -q "^gone:" && fail "why says the wolf is gone before its stop"
[ "$("$bt_log" print "$log" --agent 2 --type stop | cut -f 1,5)" = "$(printf '3.1000\tstop')" ] \
  || fail "print --type stop: $("$bt_log" print "$log" --agent 2 --type stop)"

# print: filters
{
  "$bt_log" print "$log" --agent 1 --type think
  "$bt_log" print "$log" --node 'Root/Hit*' --status RUNNING
  "$bt_log" print "$log" --label 'wolf*' --from 2 --to 2 --type status
  "$bt_log" print "$log" --type world,host,error,reload
  "$bt_log" print "$log" --type world,host --bytes
  "$bt_log" print "$log" --type key
} > "$tmp/print.txt" 2>&1 || fail "print exited $?"
hashless < "$tmp/print.txt" > "$tmp/print.h"
hashless < "$dir/expected/print.txt" > "$tmp/print.e"
diff "$tmp/print.h" "$tmp/print.e" || fail "print printed other lines than expected/print.txt"
"$bt_log" print "$log" > "$tmp/all.txt" 2> "$tmp/all.err" || fail "print exited $?"
[ ! -s "$tmp/all.err" ] || fail "print of a whole log said: $(cat "$tmp/all.err")"
"$bt_log" print - < "$log" > "$tmp/stdin.txt" || fail "print - exited $?"
cmp -s "$tmp/all.txt" "$tmp/stdin.txt" || fail "print - (the standard input) differs from print FILE"
lines=$(wc -l < "$tmp/all.txt")
[ "$lines" -gt 80 ] || fail "print printed $lines lines"
awk -F '\t' '$5 != "stop" && NF < 6 { exit 1 }' "$tmp/all.txt" || fail "print: a line with fewer than 6 fields"

# escaping: nothing but printable ASCII, tabs and newlines; each line one record (a record split
# over two lines leaves a line that does not begin with a time and name a type in field 5)
types='status|think|event|error|reload|host|world|lost|stop|key|attach|saved|describe'
ascii_only() { # FILE WHAT
  bad=$(LC_ALL=C tr -d '\t\n\040-\176' < "$1" | wc -c)
  [ "$bad" -eq 0 ] || fail "$2: $bad bytes that are not printable ASCII, a tab or a newline"
}
one_record_a_line() { # FILE WHAT
  LC_ALL=C awk -F '\t' -v t="^($types)\$" '$1 !~ /^-?[0-9]+\.[0-9][0-9][0-9][0-9]$/ || $5 !~ t { print NR ": " $0; exit 1 }' "$1" \
    || fail "$2: a line that is not a record"
}
"$bt_log" print "$log" --type "$(echo "$types" | tr '|' ',')" --bytes > "$tmp/every.txt" || fail "print --bytes exited $?"
ascii_only "$tmp/every.txt" "print --bytes"
one_record_a_line "$tmp/every.txt" "print --bytes"
ascii_only "$tmp/all.txt" "print"
one_record_a_line "$tmp/all.txt" "print"
grep -qF "$(printf '\todd\\t4 \\xc3\\xa9\\r\t1\tstatus\tRoot\\\\/Line\\nBreak\tREADY>FAILED')" "$tmp/all.txt" \
  || fail "print: agent 4's label and path are not escaped as bt-log(1) says: $(grep -a 'odd' "$tmp/all.txt" | head -2)"
"$bt_log" why "$log" --agent 4 --at 9 > "$tmp/why4.txt" || fail "why --agent 4 exited $?"
ascii_only "$tmp/why4.txt" "why"
[ "$(wc -l < "$tmp/why4.txt")" -eq 3 ] || fail "why --agent 4 printed $(wc -l < "$tmp/why4.txt") lines, not 3: $(cat "$tmp/why4.txt")"
"$bt_log" stats "$log" --agent 4 > "$tmp/stats4.txt" || fail "stats --agent 4 exited $?"
ascii_only "$tmp/stats4.txt" "stats"
[ "$(wc -l < "$tmp/stats4.txt")" -eq 5 ] || fail "stats --agent 4 printed $(wc -l < "$tmp/stats4.txt") lines, not 5 (3 nodes): $(cat "$tmp/stats4.txt")"

# an arena's log: its map and frames (WORLD records of binary bytes) one short line each, and with
# --bytes escaped; a line a record: the brains' records the summary counts, and a line a frame
if [ "$arena" != none ]; then
  "$arena" --headless --agents 40 --seconds 2 --record "$tmp/arena.btlog" > "$tmp/arena.out" 2> "$tmp/arena.err" \
    || fail "bt-arena --record exited $?: $(cat "$tmp/arena.err")"
  summary=$(cat "$tmp/arena.out")
  records=$(echo "$summary" | tr ' ' '\n' | sed -n 's/^records=//p')
  frames=$(echo "$summary" | tr ' ' '\n' | sed -n 's/^frames=//p')
  [ -n "$records" ] && [ -n "$frames" ] || fail "bt-arena's summary has no records or frames: $summary"
  for bytes in "" --bytes; do
    "$bt_log" print "$tmp/arena.btlog" $bytes > "$tmp/arena.txt" 2> "$tmp/arena.err" \
      || fail "print $bytes of an arena log exited $?: $(cat "$tmp/arena.err")"
    ascii_only "$tmp/arena.txt" "print $bytes of an arena log"
    one_record_a_line "$tmp/arena.txt" "print $bytes of an arena log"
    worlds=$(awk -F '\t' '$5 == "world"' "$tmp/arena.txt" | wc -l)
    [ "$(awk -F '\t' '$5 == "world" && $6 == 2' "$tmp/arena.txt" | wc -l)" -eq "$frames" ] \
      || fail "print $bytes of an arena log: not a line a frame ($frames)"
    [ "$(wc -l < "$tmp/arena.txt")" -eq $((records + worlds)) ] \
      || fail "print $bytes of an arena log: $(wc -l < "$tmp/arena.txt") lines for $records records and $worlds world records"
    if [ -z "$bytes" ]; then
      awk -F '\t' '$5 == "world" && NF != 7 { exit 1 }' "$tmp/arena.txt" \
        || fail "print of an arena log: a world record is more than its code and size: $(grep -m1 'world' "$tmp/arena.txt" | head -c 200)"
    else
      awk -F '\t' '$5 == "world" && length($8) < $7 { exit 1 }' "$tmp/arena.txt" \
        || fail "print --bytes of an arena log: a world record without its bytes"
    fi
  done
fi

# a log cut short: the records of the whole blocks, and where it stopped
size=$(wc -c < "$log")
head -c $((size - 40)) "$log" > "$tmp/cut.btlog"
"$bt_log" print "$tmp/cut.btlog" > "$tmp/cut.txt" 2> "$tmp/cut.err" || fail "print of a cut log exited $?"
grep -q "stopped at byte [0-9]*: the bytes after it are not a whole block" "$tmp/cut.err" \
  || fail "print of a cut log said: $(cat "$tmp/cut.err")"
cut_lines=$(wc -l < "$tmp/cut.txt")
[ "$cut_lines" -gt 0 ] && [ "$cut_lines" -lt "$lines" ] || fail "a cut log printed $cut_lines of $lines lines"
head -n "$cut_lines" "$tmp/all.txt" | cmp -s - "$tmp/cut.txt" || fail "a cut log's records are not the first of the whole's"

# damaged and foreign files
cp "$log" "$tmp/bad.btlog"
printf 'X' | dd of="$tmp/bad.btlog" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$bt_log" print "$tmp/bad.btlog" > /dev/null 2> "$tmp/bad.err"
[ $? = 1 ] || fail "a damaged log did not exit 1"
grep -q "corrupt at byte [0-9]*: " "$tmp/bad.err" || fail "a damaged log said: $(cat "$tmp/bad.err")"
echo 'hello, not a log' > "$tmp/foreign.txt"
"$bt_log" print "$tmp/foreign.txt" > /dev/null 2> "$tmp/foreign.err"
[ $? = 1 ] || fail "a foreign file did not exit 1"
grep -q "not a bt log" "$tmp/foreign.err" || fail "a foreign file said: $(cat "$tmp/foreign.err")"
"$bt_log" print "$tmp/missing.btlog" > /dev/null 2> "$tmp/missing.err"
[ $? = 1 ] || fail "a missing file did not exit 1"
grep -q "cannot open" "$tmp/missing.err" || fail "a missing file said: $(cat "$tmp/missing.err")"

# --follow: a log written while it is read, to its end
head -c 200 "$log" > "$tmp/growing.btlog"
"$bt_log" print "$tmp/growing.btlog" --follow > "$tmp/follow.txt" 2> "$tmp/follow.err" &
pid=$!
sleep 0.5
tail -c +201 "$log" >> "$tmp/growing.btlog"
waited=0
while kill -0 $pid 2>/dev/null && [ $waited -lt 50 ]; do sleep 0.2; waited=$((waited + 1)); done
if kill -0 $pid 2>/dev/null; then kill $pid; fail "--follow did not stop at the log's end"; fi
wait $pid || fail "--follow exited $?"
cmp -s "$tmp/follow.txt" "$tmp/all.txt" || fail "--follow printed other records than the whole log's"

# stats: the same figures as the statistics counted at run time from the same records
# (stats-<hash>.txt, written by log_scenarios), shape by shape, in tree order
"$bt_log" stats "$log" --order tree > "$tmp/stats.txt" || fail "stats exited $?"
shapes=0
for live in "$tmp"/stats-*.txt; do
  hash=$(basename "$live" .txt | cut -d- -f2)
  awk -v h="$hash" '$1 == "shape" { on = ($2 == h); if (on) { line = $5; for (i = 6; i <= NF; i++) line = line "\t" $i; print line }; next }
                    on && $1 != "node" { sub(/^[^\t]*\t/, ""); print }' "$tmp/stats.txt" > "$tmp/from-log.txt"
  cmp -s "$tmp/from-log.txt" "$live" || { diff "$tmp/from-log.txt" "$live"; fail "stats of shape $hash differ from the live statistics"; }
  shapes=$((shapes + 1))
done
[ "$shapes" -ge 4 ] || fail "stats: $shapes shapes, expected the scenario's 4 (sheep, wolf, guard, the edited sheep)"
grep -q "^Root/Flee	" "$tmp/stats.txt" || fail "stats names nodes by path: $(head -5 "$tmp/stats.txt")"
# hottest first by default; --agent keeps one agent's records
"$bt_log" stats "$log" > "$tmp/hot.txt" || fail "stats (hottest first) exited $?"
awk -F '\t' '$1 == "shape" { last = -1; next } $1 == "node" { next } { if (last >= 0 && $8 > last + 0) bad = 1; last = $8 } END { exit bad }' \
  "$tmp/hot.txt" || fail "stats: the nodes are not hottest first"
"$bt_log" stats "$log" --agent 2 > "$tmp/wolf.txt" || fail "stats --agent exited $?"
[ "$(grep -c '^shape' "$tmp/wolf.txt")" = 1 ] || fail "stats --agent 2: one shape expected: $(cat "$tmp/wolf.txt")"
grep -q "agents	1	" "$tmp/wolf.txt" || fail "stats --agent 2: one agent: $(head -1 "$tmp/wolf.txt")"

# coverage: per node the figures of stats (visits, successes, failures, runs, aborts), shape by
# shape in tree order; "nodes a/b" counts the nodes visited or run; the missing ones are those;
# lcov has a line per node (a log has no wheres: the line is the pre-order number) and the same
# sums; Cobertura's XML is well-formed (xmllint, else python3's parser)
"$bt_log" coverage "$log" > "$tmp/cov.txt" || fail "coverage exited $?"
ascii_only "$tmp/cov.txt" "coverage"
awk -F '\t' 'FNR == NR { if ($1 == "shape") { h = $2; next } if ($1 != "node") s[h "|" $1] = $2 "\t" $3 "\t" $4 "\t" $6 "\t" $5; next }
              $1 == "shape" { h = $2; next } $1 == "node" || $1 == "missing" { next }
              { n++; if (s[h "|" $1] != $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6) { print "coverage " h " " $1 ": " $2 " " $3 " " $4 " " $5 " " $6 " vs stats " s[h "|" $1]; bad = 1 } }
              END { if (n < 20) { print "coverage: only " n " nodes"; bad = 1 } exit bad }' "$tmp/stats.txt" "$tmp/cov.txt" \
  || fail "coverage's figures are not stats'"
awk -F '\t' 'function done() { if (h != "" && (a != got || b != all)) { print h ": nodes " a "/" b ", counted " got "/" all; bad = 1 } }
              $1 == "shape" { done(); h = $2; split($8, ab, "/"); a = ab[1]; b = ab[2]; got = 0; all = 0; next }
              $1 == "node" { next }
              $1 == "missing" { if (!(h "|" $2 in zero)) { print h ": " $2 " is missing but was visited"; bad = 1 } nmiss++; next }
              { all++; if ($2 + $5 > 0) got++; else { zero[h "|" $1] = 1; nzero++ } }
              END { done(); if (nmiss != nzero) { print nmiss " missing, " nzero " never visited"; bad = 1 } if (nzero < 1) { print "no node missing"; bad = 1 } exit bad }' \
  "$tmp/cov.txt" || fail "coverage's sums or missing nodes do not match its rows"
"$bt_log" coverage "$log" --format lcov > "$tmp/cov.info" || fail "coverage --format lcov exited $?"
awk -F '\t' '$1 == "shape" { split($8, ab, "/"); split($10, br, "/"); lf += ab[2]; lh += ab[1]; brf += br[2]; brh += br[1] }
              END { print lf, lh, brf, brh }' "$tmp/cov.txt" > "$tmp/cov-sums.txt"
awk -F '[:,]' '/^LF:/ { lf += $2 } /^LH:/ { lh += $2 } /^BRF:/ { brf += $2 } /^BRH:/ { brh += $2 }
               /^DA:/ { da++ } /^end_of_record$/ { ends++ } /^SF:/ { sf++ }
               END { print lf, lh, brf, brh; if (da != lf || ends != sf) print "DA lines " da ", records " sf "/" ends }' \
  "$tmp/cov.info" > "$tmp/lcov-sums.txt"
cmp -s "$tmp/cov-sums.txt" "$tmp/lcov-sums.txt" || { diff "$tmp/lcov-sums.txt" "$tmp/cov-sums.txt"; fail "lcov's sums are not the text's"; }
"$bt_log" coverage "$log" --format cobertura --label 'sheep*' > "$tmp/cov.xml" || fail "coverage --format cobertura exited $?"
if command -v xmllint > /dev/null 2>&1; then
  xmllint --noout "$tmp/cov.xml" || fail "coverage --format cobertura is no well-formed XML"
else
  python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/cov.xml" || fail "coverage --format cobertura is no well-formed XML"
fi
grep -q 'filename="sheep 1"' "$tmp/cov.xml" || fail "coverage --label 'sheep*': no class of file 'sheep 1'"
! grep -q 'filename="wolf' "$tmp/cov.xml" || fail "coverage --label 'sheep*' has the wolf"

# usage
for args in "tree $log --agent 1" "why $log --at 1" "print $log --at 1" "print $log --status WALKING" \
            "print $log --type nothing" "print $log --bogus" "print" "frobnicate $log" "stats $log --at 1" \
            "stats $log --order hottest" "stats $log --node Root" "stats $log --format lcov" \
            "coverage $log --format html" "coverage $log --order tree" "coverage $log --at 1" \
            "tree $log --agent 1 --label x --at 1" "print $log --from soon"; do
  # shellcheck disable=SC2086 # the words of args are the arguments
  "$bt_log" $args > /dev/null 2> "$tmp/usage.err"
  [ $? = 2 ] || fail "bt-log $args did not exit 2"
  [ -s "$tmp/usage.err" ] || fail "bt-log $args said nothing"
done
"$bt_log" tree "$log" --agent 99 --at 1 > /dev/null 2> "$tmp/none.err"
[ $? = 1 ] && grep -q "no agent 99" "$tmp/none.err" || fail "tree of an agent not in the log: $(cat "$tmp/none.err")"

echo "bt-log: tree is the live dump at $n moments, why names each cause, print filters, cut, damaged and foreign logs, --follow"
