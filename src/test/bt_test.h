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
