/* SPDX-License-Identifier: MIT */
/*
 * bt_test.h: the test kit for brains (libbttest; docs/testing-brains.md), over the public
 * headers of the engine and of recording (bt.h), for C hosts and tools. The engine knows nothing
 * of it. The Lua kit, `require "bt.test"`, is the same kit for scripts; what it cannot do in Lua
 * (coverage reports, comparing logs) it does through this library.
 *
 * Its parts, each a section below:
 * - substitution: a definition like another, with some of its leaves replaced (by path, by name,
 *   or by the leaf function a host gave them) with a fixed result, a run of a given time, or a
 *   function of the test's;
 * - checks over time: what an instance's recorder saw, asked after the run (what ran at a time,
 *   the transitions in order, a node that never ran, sleep times), and a failure's message with
 *   the tree dump and the last transitions;
 * - coverage: per node, from the recorder's statistics (bt_stats): visited, succeeded, failed,
 *   ran, interrupted, as text, lcov or Cobertura;
 * - comparing recorded sessions: the first record where two logs, or a log and a live run, go
 *   different ways, per agent.
 *
 * Every function that can fail returns BT_OK (0) or a negative bt.h code (BT_EINVAL for a bad
 * argument, BT_ENOMEM, BT_EIO for a file), and keeps or writes a message that says why. Nothing
 * aborts or exits.
 */
#ifndef BT_TEST_H
#define BT_TEST_H

#include <stddef.h>

#include "bt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- checks over time: a trace of an instance's records (docs/bt-test.md, docs/c-api.md) ----
 * A bt_trace keeps every record a recorder makes during a test run, however many (the ring of a
 * recorder keeps the last N; the trace takes each record through the recorder's callback, and
 * calls the callback set before it after its own, so a host's callback goes on working). After
 * the run it answers, with the one replayer of statuses (bt_rec_entry_apply): which nodes ran at
 * a time, a node's status at a time, when a node first went to a status, the transitions in
 * order, the sleep time each think asked for; and it writes a failure's text: what was expected,
 * the tree at that moment (its statuses replayed) and the last transitions before it.
 *
 * Nodes are named by path (bt_def_path: names joined by '/', same-named siblings "#k"); times are
 * the instance's clock (bt_host.now), and compare to within BT_TRACE_EPSILON: "at t" means after
 * every record made at t or before. A trace follows its recorder from instance to instance (a
 * tree rebuilt, a reload): each instance's records are replayed from the statuses that instance
 * had when the trace first saw it (all READY for a new tree), each path looked up in the
 * definition of the instance of that moment. Read the trace on the thread that thinks its
 * instance, as its recorder. */
typedef struct bt_trace bt_trace;

#define BT_TRACE_EPSILON 1e-9
/* bt_trace_first's status for any change to other than READY: a visit (bt_stats' visits, and the
 * changes of a node first set RUNNING, SUCCESS or FAILED by a restore or a reload too). */
#define BT_TRACE_VISIT (-1)

/* A trace attached to nothing. BT_EINVAL (out NULL), BT_ENOMEM. */
int bt_trace_create(bt_trace **out);
/* Detaches it (bt_trace_detach) and frees it. NULL is allowed. */
void bt_trace_free(bt_trace *t);
/* Keeps every record rec makes from now on: the trace becomes rec's callback, and calls the one
 * set before (bt_rec_callback) after its own. If rec watches an instance, that instance's
 * statuses now are where its replay starts. A trace attached elsewhere is detached first.
 * BT_EINVAL (a NULL argument, or rec's callback is another trace's), BT_ENOMEM. */
int bt_trace_attach(bt_trace *t, bt_rec *rec);
/* The same for an instance: its recorder (bt_inst_recorder), or, when it has none, a recorder
 * of capacity 0 that the trace attaches to it and frees (bt_trace_detach, bt_trace_free).
 * BT_EINVAL (a NULL argument, the recorder compiled out), BT_ENOMEM. */
int bt_trace_attach_inst(bt_trace *t, bt_inst *inst);
/* Stops taking records, gives the recorder back the callback it had, and frees the recorder the
 * trace made; the records kept stay, and can still be asked. */
void bt_trace_detach(bt_trace *t);
/* The recorder the trace takes records from (NULL: none). */
bt_rec *bt_trace_recorder(const bt_trace *t);
/* Why the last call failed ("" if none). */
const char *bt_trace_errmsg(const bt_trace *t);

/* The records kept, and a copy of the i-th (0 the first; its text, and a key record's strings,
 * live as long as the trace). BT_EINVAL when i >= bt_trace_count. A trace that lacked memory
 * for a record loses it, and every query after it fails with BT_ENOMEM. */
size_t bt_trace_count(const bt_trace *t);
int bt_trace_get(const bt_trace *t, size_t i, bt_rec_entry *out);
/* Appends to out the path of the i-th record's node (a STATUS, EVENT or ERROR record's) in the
 * definition of its instance. BT_EINVAL (i out of range, a record of no node), BT_ENOMEM. */
int bt_trace_path(bt_trace *t, size_t i, bt_buf *out);

/* The node's status (a bt_status) at `time`. BT_EINVAL: a NULL argument, or no node has that
 * path in the tree at that time (the message names the path); BT_ENOMEM. */
int bt_trace_status_at(bt_trace *t, const char *path, double time);
/* Appends to out, one a line (each ended by '\n'), in pre-order, the paths of the deepest nodes
 * running at `time`: those RUNNING with no child RUNNING (a Parallel's branches give several).
 * Returns their number (0: nothing ran then, or the trace has no record yet), BT_EINVAL (NULL
 * t or out), BT_ENOMEM. */
int bt_trace_running_at(bt_trace *t, double time, bt_buf *out);
/* The first time, at `after` or later, the node changed to `status` (a bt_status, or
 * BT_TRACE_VISIT for any but READY): 1 and *when (may be NULL), or 0 when it never did. With
 * after -INFINITY: whether it ever ran (BT_RUNNING), was ever visited (BT_TRACE_VISIT).
 * BT_EINVAL: a NULL argument, a bad status, no node has that path in any tree of the trace;
 * BT_ENOMEM. */
int bt_trace_first(bt_trace *t, const char *path, int status, double after, double *when);
/* The sleep time asked for by the last think at or before `time`: 1 and *sleep, or 0 for none
 * (nothing ran: the tree hibernates); *think_time (may be NULL) is that think's time. BT_EINVAL:
 * a NULL t, no think at or before `time`; BT_ENOMEM. */
int bt_trace_sleep_at(bt_trace *t, double time, double *sleep, double *think_time);

/* Appends the tree at `time` to out, in the layout of the tree dump (bt_inst_dump: a line per
 * node in pre-order, children indented by a further "   >"), each node's name and status as the
 * records replayed leave them: "Priority - RUNNING". BT_EINVAL (NULL t or out, no tree at that
 * time: no record yet and no instance watched), BT_ENOMEM. */
int bt_trace_dump_at(bt_trace *t, double time, bt_buf *out);
/* Appends a failed check's text to out: "expected: <expected>", the tree at `time`
 * (bt_trace_dump_at) and the last `last` transitions (status changes) at or before `time`, one a
 * line: "  2.1333  Priority/Flee  READY > RUNNING". BT_EINVAL (NULL t or out, last < 0),
 * BT_ENOMEM. */
int bt_trace_failure(bt_trace *t, double time, const char *expected, int last, bt_buf *out);

#ifdef __cplusplus
}
#endif

#endif
