#!/bin/sh
# SPDX-License-Identifier: MIT
# check_bt_log_diff.sh BT_LOG TEST_DIFF: bt-log diff on logs whose first divergence is known by
# hand (tests/c/test_diff.c writes them: `test_diff DIR`; its comments say what each session
# does): the same session twice, and a patched brain whose other branches did not change, are
# the same (exit 0), and every compared record of the log counts as the same (bt-log print
# counts them a second way); agent 2's condition Hungry failing from 2.0 instead of 3.0 is its
# first difference; an agent whose stream ends early, and agents only one log has, are named;
# --agent and --label keep the agents they name; bad usage and unreadable logs exit 2.
set -u
bt_log=$1
test_diff=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tab=$(printf '\t')

"$test_diff" "$tmp" || fail "test_diff $tmp did not write the logs"
cd "$tmp" || fail "no $tmp"

# run EXPECTED_STATUS ARGS...: bt-log diff ARGS, its output in out, its messages in err
run() {
  want=$1
  shift
  "$bt_log" diff "$@" > out 2> err
  got=$?
  [ "$got" -eq "$want" ] || fail "bt-log diff $* exited $got, not $want: $(cat out err)"
}

# the same session, twice: every record of the compared kinds is the same
records=$("$bt_log" print same.btlog --type status,think,event,error,reload,key,lost | wc -l)
[ "$records" -gt 100 ] || fail "bt-log print shows only $records records"
run 0 same.btlog again.btlog
[ "$(cat out)" = "3 agents: 3 the same, 0 differ, 0 only in A, 0 only in B; $records records the same" ] \
  || fail "the same session twice: $(cat out)"
[ ! -s err ] || fail "bt-log diff of two whole logs says something: $(cat err)"
# a patched brain (a child added in a branch that never runs): no difference, node indices moved
run 0 same.btlog patched.btlog
grep -q "^3 agents: 3 the same, 0 differ" out || fail "the patched brain differs: $(cat out)"

# agent 2's first difference: Hungry in the think at 2.0
run 1 same.btlog hungry.btlog
[ "$(head -1 out)" = "2.0000${tab}2${tab}sheep 2${tab}Root/Hungry${tab}A: READY>SUCCESS${tab}B: READY>FAILED" ] \
  || fail "agent 2's first difference: $(cat out)"
grep -q "^3 agents: 2 the same, 1 differ, 0 only in A, 0 only in B; " out || fail "the summary: $(cat out)"
[ "$(wc -l < out)" -eq 2 ] || fail "more than agent 2 and the summary: $(cat out)"
# and the other way round, sides swapped
run 1 hungry.btlog same.btlog
[ "$(head -1 out)" = "2.0000${tab}2${tab}sheep 2${tab}Root/Hungry${tab}A: READY>FAILED${tab}B: READY>SUCCESS" ] \
  || fail "swapped: $(cat out)"
# --agent and --label: the agents named, on both sides
run 0 same.btlog hungry.btlog --agent 1 --agent 3
grep -q "^2 agents: 2 the same" out || fail "--agent 1 --agent 3: $(cat out)"
run 1 same.btlog hungry.btlog --label 'sheep*'
grep -q "^2 agents: 1 the same, 1 differ" out || fail "--label 'sheep*': $(cat out)"

# agent 1 stops after its think at 3.0 in B: its first record after, Scared at 3.5, has no match;
# agent 3 (wolf) is only in A, agent 4 (fox) only in B, from their recorders' attach at 0
run 1 same.btlog missing.btlog
cat > expected <<END
3.5000${tab}1${tab}sheep 1${tab}Root/Danger/Scared${tab}A: READY>FAILED${tab}B: no record
0.0000${tab}3${tab}wolf 3${tab}-${tab}only in A${tab}$("$bt_log" print same.btlog --agent 3 --type status,think,event,error,reload,key,lost | wc -l) records
0.0000${tab}4${tab}fox 4${tab}-${tab}only in B${tab}$("$bt_log" print missing.btlog --agent 4 --type status,think,event,error,reload,key,lost | wc -l) records
END
head -3 out > got
cmp -s got expected || { diff got expected; fail "missing agents and records"; }
grep -q "^4 agents: 1 the same, 1 differ, 1 only in A, 1 only in B; " out || fail "the summary: $(cat out)"

# a log cut short: compared as far as it goes, and said on standard error
head -c 300 same.btlog > cut.btlog
run 1 same.btlog cut.btlog
grep -q "cut.btlog: stopped at byte" err || fail "the cut log is not named: $(cat err)"

# bad usage and unreadable logs: exit 2, naming what
run 2 same.btlog
grep -q "needs two logs" err || fail "one log: $(cat err)"
run 2 same.btlog nothere.btlog
grep -q "nothere.btlog" err || fail "a missing file is not named: $(cat err)"
cp same.btlog bad.btlog
printf 'XXXX' | dd of=bad.btlog bs=1 seek=200 conv=notrunc 2> /dev/null
run 2 bad.btlog same.btlog
grep -q "^bt-log: diff: A (bad.btlog): corrupt at byte" err || fail "a damaged log: $(cat err)"
echo "not a log, not at all" > foreign.btlog
run 2 same.btlog foreign.btlog
grep -q "foreign.btlog" err || fail "a foreign file is not named: $(cat err)"
run 2 same.btlog again.btlog --at 3
grep -q "diff: it takes --agent and --label" err || fail "--at: $(cat err)"
run 2 same.btlog again.btlog third.btlog
grep -q "unexpected argument 'third.btlog'" err || fail "a third log: $(cat err)"
echo "bt-log diff: the same, a patched brain, a known first difference, missing agents, bad usage: as expected"
