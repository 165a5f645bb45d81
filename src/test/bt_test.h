/* SPDX-License-Identifier: MIT */
/*
 * bt_test.h: the test kit for brains (libbttest; docs/testing-brains.md), over the public
 * headers of the engine and of recording (bt.h), for C hosts and tools. The engine knows nothing
 * of it. The Lua kit, `require "bt.test"`, is the same kit for scripts; what it cannot do in Lua
 * (traces, coverage reports, comparing logs) it does through this library.
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

/* ---- substitution: a definition like another, with some leaves replaced (docs/c-api.md) ----
 *
 *   bt_subst *s;
 *   bt_subst_create(&s);
 *   bt_subst_as fail = {BT_SUBST_RESULT, BT_FAILED, 0, NULL, NULL};
 *   bt_subst_as walk = {BT_SUBST_RUN, BT_SUCCESS, 3, NULL, NULL};
 *   bt_subst_path(s, "Priority/Hungry/Eat", &fail);   the node at that path (bt_def_path)
 *   bt_subst_name(s, "Wander", &walk);                 every node of that name
 *   bt_subst_fn(s, host_attack, &fail);                every node whose function is host_attack
 *   bt_subst_apply(s, def, &copy);                     copy: def with those nodes replaced
 *
 * The copy is a new definition, made from bt_def_spec of every node of def, whose other nodes are
 * def's own (kind, name, parameters, functions, overrides, keys and ports) in the same shape:
 * they think as def's do. A node shared by several parents stays one node, so it is replaced at
 * each of its places. A replaced node keeps its name and its place, so that paths, dumps and logs
 * name it as before; it becomes a leaf of the base kind (the kind whose bt_kind_info.base is
 * -1) with the kit's visit: what was under it is gone from the copy. When several rules match a
 * node, the first one added replaces it. Rules match on def's nodes; a rule that matches none
 * makes bt_subst_apply fail with a message that names it, so that a misspelt path does not pass
 * unnoticed. */

typedef struct bt_subst bt_subst; /* a set of rules; reusable on any number of definitions */

/* What a replaced node does (bt_subst_as.how). */
enum {
  BT_SUBST_RESULT = 1, /* ends every visit with `result` */
  BT_SUBST_RUN = 2,    /* RUNNING for `seconds` from the visit that starts it (sleeping until then),
                          then `result`; the run ends at the first visit at or after its end, to
                          within a nanosecond; a run interrupted (reset) starts again at its next
                          visit; 0 seconds is BT_SUBST_RESULT */
  BT_SUBST_CALL = 3    /* each visit calls fn with the node's bt_call, whose inst, node and ud
                          are set (value 0): it returns the status, BT_SUCCESS, BT_FAILED or
                          BT_RUNNING (anything else fails the node); it may call bt_node_sleep
                          on its node while it returns BT_RUNNING */
};

typedef struct bt_subst_as {
  int how;        /* BT_SUBST_RESULT, BT_SUBST_RUN or BT_SUBST_CALL */
  int result;     /* RESULT and RUN: BT_SUCCESS or BT_FAILED */
  double seconds; /* RUN: how long it runs, >= 0 */
  bt_fn fn;       /* CALL: the visit */
  void *ud;       /* CALL: given to fn as call->ud */
} bt_subst_as;

/* Makes an empty set of rules. BT_EINVAL for a NULL out, BT_ENOMEM. */
int bt_subst_create(bt_subst **out);

/* Frees it (NULL is allowed). Definitions it made stay valid: they need nothing of it. */
void bt_subst_free(bt_subst *s);

/* Adds a rule: the node whose path is `path` (bt_def_path: "Priority/Flee/RunAway", "#k" after a
 * name that siblings share), every node named `name`, or every node whose function is fn (its
 * bt_spec.fn: a Condition's, an Action's, ...; or its bt_spec.ops->visit: a C host's behaviour),
 * replaced as `as` says (copied). Returns the rule's number (0 for the first, then 1, ...), or
 * BT_EINVAL (a NULL s, path, name or fn, an empty path or name, a bad `as`: the message says
 * which), BT_ENOMEM. */
int bt_subst_path(bt_subst *s, const char *path, const bt_subst_as *as);
int bt_subst_name(bt_subst *s, const char *name, const bt_subst_as *as);
int bt_subst_fn(bt_subst *s, bt_fn fn, const bt_subst_as *as);

/* Makes *out: def with the rules' nodes replaced, one reference (bt_def_release). BT_EINVAL for
 * a NULL argument, a set without rules, or a rule that matches no node of def ("rule 1 (path
 * 'Priority/Eet') matches no node"); BT_ENOMEM; or what bt_def_create reports. On failure *out
 * is NULL and the message says why. */
int bt_subst_apply(bt_subst *s, const bt_def *def, bt_def **out);

/* How many nodes of the definition the last bt_subst_apply replaced by rule number `rule`
 * (a shared node counts once; a node under one replaced by another rule counts too), or
 * BT_EINVAL for a NULL s or a bad number. */
int bt_subst_matches(const bt_subst *s, int rule);

/* The message of s's last error ("" if none). */
const char *bt_subst_errmsg(const bt_subst *s);

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
 * trace made; the records kept stay, and can still be asked. Callbacks chain: when another watcher
 * took the recorder's callback after the trace (and calls the trace's after its own), the trace
 * cannot give it back; it then passes records on to the callback it had, and must outlive that
 * watcher: detach watchers in the reverse order of attaching them. */
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

/* ---- coverage (docs/bt-test.md "Coverage", docs/c-api.md "Coverage") ----
 * What a test run, or a recorded log, took of each tree: per node, from the recorder's
 * statistics (a bt_stats; nothing is counted twice), whether it was visited (entered in a think,
 * or set running: visits or runs above 0), and how often it succeeded, failed, ran and was
 * interrupted (bt_stats_node's successes, failures, runs and aborts). A node placed under several
 * parents has one set of figures (bt_stats counts it at its first place), shown at each place.
 * A branch is a child of a node with children that is no decorator (bt_kind_has
 * BT_KIND_DECORATOR): taken when the child was visited.
 *
 * A bt_coverage reports a bt_stats that the caller feeds (live recorders: bt_rec_set_stats,
 * bt_def_set_stats), or one of its own fed a log's records (bt_coverage_add_log). Each shape's
 * nodes are named by a definition of it: the one the statistics hold (a live recorder's), one
 * given with bt_coverage_name, or one built from the log's shape (bt_log_shape_def). A node
 * made where its definition says (bt_def_where, "brains/wolf.lua:12": Lua trees built after
 * bt.set_where(true)) is on that line of that file; a node without (C trees, logs) is on line
 * i + 1 (i its pre-order index) of a file named after the tree: its label (bt_coverage_name's,
 * or a log's agent's), else its root's name, followed by "#2", "#3", ... when two shapes of one
 * report would have the same. In lcov and Cobertura a line's count is, per shape, the least of
 * its nodes' (a line is covered when every node made on it was), summed over the shapes; a node's
 * count is its visits, or its runs for a node only ever set running (a restore, a log's attach).
 * Names and files are written in printable ASCII, as bt-log writes them: a backslash as \\, a
 * tab, newline or carriage return as \t \n \r, any other byte outside it as \xNN. A bt_coverage
 * belongs to one thread. */
typedef struct bt_coverage bt_coverage;

/* Report formats (bt_coverage_write). */
enum {
  BT_COVERAGE_TEXT = 0,     /* tab-separated lines: per shape, a line of sums, each node's
                               figures in pre-order, then "missing" and the path of each node
                               never visited */
  BT_COVERAGE_LCOV = 1,     /* lcov's tracefile (genhtml, Codecov, ...): per file, a DA line per
                               line that made nodes, a BRDA per branch */
  BT_COVERAGE_COBERTURA = 2 /* Cobertura's XML (Jenkins, GitLab, ...) */
};

/* A coverage of st (NULL: of a bt_stats of its own, which bt_coverage_add_log feeds and
 * bt_coverage_stats returns). st is not the coverage's: it must outlive it. BT_EINVAL (out NULL),
 * BT_ENOMEM. */
int bt_coverage_create(bt_coverage **out, bt_stats *st);
/* Frees it, and the definitions it holds; NULL is allowed. */
void bt_coverage_free(bt_coverage *c);
/* The statistics it reports. */
bt_stats *bt_coverage_stats(const bt_coverage *c);
/* The message of the last error ("" if none). */
const char *bt_coverage_errmsg(const bt_coverage *c);

/* Counts a record r has just read (bt_log_read) into the statistics, as live statistics count
 * it (a shared node at its first place; an attach starts the runs of the nodes it says were
 * running), and names the record's shape with a definition built from it, labelled with its
 * first agent's label. Records of no agent, of no shape yet, and those the statistics refuse (a
 * status written twice) count for nothing. BT_EINVAL (NULL argument), BT_ENOMEM. */
int bt_coverage_add_log(bt_coverage *c, const bt_log_reader *r, const bt_log_record *rec);

/* Names the nodes of def's shape (bt_def_hash) with def (held until bt_coverage_free), and gives
 * its label (copied; NULL: none), the file of its nodes that have no where. It replaces a name
 * given before. BT_EINVAL (NULL c or def), BT_ENOMEM. */
int bt_coverage_name(bt_coverage *c, const bt_def *def, const char *label);

/* Reports only the shape of that hash (called again: that one too); none called: every shape
 * of the statistics. BT_EINVAL (NULL c), BT_ENOMEM. */
int bt_coverage_only(bt_coverage *c, unsigned long long shape);

/* The shapes reported (those of the statistics, in the order first seen, or those of
 * bt_coverage_only that the statistics have), and the i-th's hash and the definition that names
 * its nodes (NULL: none). BT_EINVAL for a bad i; BT_ENOMEM. */
int bt_coverage_shape_count(bt_coverage *c);
int bt_coverage_shape(bt_coverage *c, int i, unsigned long long *shape, const bt_def **def);

/* The figures of the node (pre-order index) of the shape, at its first place, into *out: 1 when
 * it was visited (visits or runs above 0), 0 when never. BT_EINVAL for a shape the statistics
 * do not have or a node out of range (the message says which), or a NULL argument. */
int bt_coverage_node(bt_coverage *c, unsigned long long shape, int node, bt_stats_node *out);

/* Appends the report of every shape reported to out, in the format (BT_COVERAGE_*); name is the
 * test's name (lcov's TN, Cobertura's package; NULL or "": none, "bt"). BT_EINVAL for a bad
 * format, NULL c or out, or a shape that nothing names (a live bt_stats fed by bt_stats_add:
 * bt_coverage_name names it); BT_ENOMEM. On failure out is as it was. */
int bt_coverage_write(bt_coverage *c, int format, const char *name, bt_buf *out);

/* ---- comparing recorded sessions (docs/c-api.md "Comparing a run with a log") ----
 * A bt_diff compares two streams of records, side A and side B, agent by agent (agents are
 * matched by their id, bt_rec_set_agent), and keeps, for each agent, its first difference. Each
 * side is fed either from a log (bt_diff_log: the records a bt_log_reader reads; or
 * bt_diff_set_reader: the comparer reads them itself, as far as the other side has come) or live
 * (bt_diff_entry: the records of a recorder's callback, with the agent's definition to name the
 * nodes), so that bt-log diff, bt-arena --check and a host that re-runs its own session compare
 * with the same code. An agent's records must come in the order they were made.
 *
 * What is compared is what a brain decides, record by record in order:
 *   status   time, node path, from and to ("RUNNING>SUCCESS")
 *   think    time, what woke it (BT_WAKE_*), whether it asked for a sleep and the sleep time, to
 *            the 7 digits of a float (a recorder's ring keeps no more)
 *   event    time, node path of the EventNode
 *   error    time, node path (or none); not the message, which names files and lines
 *   reload   time (not the hashes: a patched brain has others)
 *   key      time, key name, values before and after, whether the write woke the agent (a
 *            BT_KEY_VALUE's token is the binding's: only its presence is compared)
 *   lost     a log's mark of records lost for want of memory (bt_log_record only), and how many
 * Not compared: the host's records (BT_REC_HOST, BT_LOG_WORLD: the host's, not the brain's), the
 * think numbers, and what a log adds for its readers (attach, saved, describe, stop). Nodes are
 * compared by their path (bt_def_path, bt_log_shape_path), not their index, so that a patched
 * brain whose other branches did not change shows no difference there; a node only one side has
 * differs at its first record.
 *
 * Memory stays bounded for long streams: records of an agent wait only while the other side has
 * not reached them, and an agent that differs keeps nothing more. A side at most
 * BT_DIFF_AHEAD records of one agent ahead of the other (a stream that lacks the agent's records
 * over that span) makes that agent differ there, the other side's record being "no record". */
typedef struct bt_diff bt_diff;

#define BT_DIFF_AHEAD 1024

enum { BT_DIFF_A = 0, BT_DIFF_B = 1 }; /* the sides */

/* What a row says of its agent. */
enum {
  BT_DIFF_SAME = 0,    /* every record compared was the same on both sides */
  BT_DIFF_DIFFERS = 1, /* the row gives its first difference */
  BT_DIFF_ONLY_A = 2,  /* only side A has records of it */
  BT_DIFF_ONLY_B = 3   /* only side B has */
};

/* One agent's comparison (bt_diff_get). Strings live as long as the bt_diff. */
typedef struct bt_diff_row {
  unsigned long long agent; /* its id */
  const char *label;        /* the first label either side gave it ("" when none) */
  int state;                /* BT_DIFF_* */
  unsigned long long same;  /* records found the same (before the difference, if any) */
  unsigned long long records[2]; /* records of it each side had (of the kinds compared) */
  /* DIFFERS: the first difference; ONLY_A, ONLY_B: the first record of the side that has it */
  double time;              /* the earlier of the two records' times */
  int has[2];               /* side has a record there (0: "no record": its stream ended, or
                               ran BT_DIFF_AHEAD records behind) */
  double times[2];          /* each record's time */
  const char *path[2];      /* each record's node path ("" for a record of no node) */
  const char *what[2];      /* each record as text: "RUNNING>SUCCESS", "think deadline 0.5",
                               "event", "error: ...", "reload", "key hunger 0.5 -> 0.6",
                               "lost 3 records", "no record" */
} bt_diff_row;

/* The counts over every agent (bt_diff_summary). */
typedef struct bt_diff_summary {
  int agents;                 /* agents seen on either side */
  int same, differ;           /* of those on both sides */
  int only_a, only_b;
  unsigned long long records; /* records found the same */
} bt_diff_summary;

/* An empty comparer. BT_EINVAL (out NULL), BT_ENOMEM. */
int bt_diff_create(bt_diff **out);
/* Frees it (not the readers it was given). NULL is allowed. */
void bt_diff_free(bt_diff *d);
/* The message of the last error ("" if none). */
const char *bt_diff_errmsg(const bt_diff *d);
/* Names the sides in the report and in messages (copied; NULL: "A", "B"). BT_EINVAL, BT_ENOMEM. */
int bt_diff_set_names(bt_diff *d, const char *a, const char *b);

/* Compares one record of a log, read with bt_log_read, on `side`: the records of agents (BT_LOG_WORLD
 * and the kinds not compared are skipped; an attach makes its agent seen on that side). BT_EINVAL
 * for a bad side, a NULL argument, a side fed by a reader, a finished comparer, or a record
 * whose node is not of its shape; BT_ENOMEM; an error of the other side's reader (BT_ECORRUPT,
 * ...: the message names the side). */
int bt_diff_log(bt_diff *d, int side, const bt_log_record *rec);
/* Compares one record a recorder made (its callback's, or bt_rec_get's) of agent `agent`
 * (label: NULL or "" none) whose tree is `def` (bt_rec_def: it names the nodes and keys), on
 * `side`. BT_EINVAL as bt_diff_log, and for a NULL def, a type that is no BT_REC_* or a node
 * or key not of def; BT_ENOMEM; an error of the other side's reader. */
int bt_diff_entry(bt_diff *d, int side, unsigned long long agent, const char *label, const bt_def *def,
                  const bt_rec_entry *e);
/* Makes the comparer read `side` from r itself: whenever the other side is fed a record, r is
 * read (bt_log_read) up to that record's time, and bt_diff_finish reads it to its end. The reader
 * stays the caller's, and must outlive the comparer's use of it. BT_EINVAL (a bad side, NULL, a
 * side fed already or finished). */
int bt_diff_set_reader(bt_diff *d, int side, bt_log_reader *r);
/* Ends both sides: reads the readers given to their end, then every record one side has that
 * the other lacks is a difference ("no record"). Call it once, after the last record. BT_OK, or a
 * reader's error (the message names the side and says what; the comparison is then of the
 * records before it). */
int bt_diff_finish(bt_diff *d);
/* Compares two logs to their ends: a reads side A (bt_diff_set_reader), b is read and fed as side
 * B, then bt_diff_finish. BT_OK or an error as above. */
int bt_diff_logs(bt_diff *d, bt_log_reader *a, bt_log_reader *b);

/* Agents seen, and the i-th (in the order they were first seen; BT_EINVAL for a bad i). */
int bt_diff_count(const bt_diff *d);
int bt_diff_get(const bt_diff *d, int i, bt_diff_row *out);
/* The counts: after bt_diff_finish, final; before it, of what was compared so far. */
void bt_diff_summary_get(const bt_diff *d, bt_diff_summary *out);
/* 1 when both sides had the same agents and records (after bt_diff_finish), else 0. */
int bt_diff_same(const bt_diff *d);
/* Appends the report to out: a line per agent that differs or is only on one side, its first
 * difference in tab-separated fields (time, agent, label, node path, A's record, B's record), then
 * the summary line (docs/debugging.md "Comparing two logs"). BT_EINVAL, BT_ENOMEM. */
int bt_diff_report(const bt_diff *d, bt_buf *out);

#ifdef __cplusplus
}
#endif

#endif
