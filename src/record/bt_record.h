/* SPDX-License-Identifier: MIT */
/*
 * bt_record.h: observability over bt's engine (bt_core.h): the transition recorder (bt_rec_*),
 * which watches an instance through the engine's hook (bt_inst_set_hook), and its sinks: the
 * statistics (bt_stats_*) and the log file, written (bt_log_*) and read back (bt_log_reader_*,
 * bt_log_shape_*, bt_log_tree_*). Its functions are in libbtcore (and libbt), not in the engine's
 * libbtengine. The causes of a think that a record gives (BT_WAKE_*, bt_wake_name) are in
 * bt_core.h.
 */
#ifndef BT_RECORD_H
#define BT_RECORD_H

#include "bt_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the transition recorder (docs/c-api.md "The transition recorder") ----
 * A bt_rec watches one instance: every change of a node's status (in a think, a Reset, a
 * transfer, a restore or bt_node_set_status), every think with its sleep time and what woke it,
 * every event fired, every write of a blackboard key with its values before and after, the
 * errors the host contained, reloads, and records of the host's own, in order, into a ring buffer of the last N records and/or a callback. Off (no recorder attached) it
 * costs one test of a bit of the instance's header per status change; built with
 * -DBT_RECORDER=OFF it is compiled out (bt_inst_set_recorder then fails with BT_EINVAL). The
 * recorder lives in the instance (no state is shared between instances): attach, detach and read
 * a recorder on the thread that thinks its instance (with a bt_sched on workers: between frames,
 * on the thread that runs them; a callback is called on the worker that thinks the instance, next
 * to other workers' callbacks, and for an event bt_sched_fire_event fired, on the thread applying
 * commands: docs/threads.md). */
typedef struct bt_rec bt_rec;

enum {
  BT_REC_STATUS = 1, /* node's status went from `from` to `to` */
  BT_REC_THINK = 2,  /* a think ended: sleep is the sleep time it asked for (has_sleep 0: none),
                        cause what made it think (BT_WAKE_*) */
  BT_REC_EVENT = 3,  /* an event was fired for node (bt_inst_fire_event) */
  BT_REC_ERROR = 4,  /* the host contained an error of node's code: text is the message */
  BT_REC_RELOAD = 5, /* the instance took the state of one of another definition (bt_inst_transfer):
                        def_from and def_to are their bt_def_hash */
  BT_REC_HOST = 6,   /* a record of the host's (bt_inst_record_host): node is its code, text and
                        size its bytes */
  BT_REC_KEY = 7     /* a blackboard key was written (bt_inst_key_set): node is the key's id,
                        before and after its values, from 1 when the write woke the instance */
};

typedef struct bt_rec_entry {
  unsigned char type;      /* BT_REC_* */
  unsigned char from, to;  /* STATUS: the statuses (bt_status); KEY: from is 1 when the write woke
                              the instance (bt_hook_msg.from) */
  unsigned char has_sleep; /* THINK: the tree asked for a sleep time */
  unsigned char cause;     /* THINK: BT_WAKE_* */
  int node;                /* STATUS, EVENT, ERROR: the pre-order index of the node (-1: the
                              error of no one node); HOST: the host's code; KEY: the key's id
                              (bt_def_key_name names it); others -1 */
  unsigned long long think;/* the number of the think it happened in or after (the first is 1) */
  double time;             /* the instance's clock (bt_host.now) */
  double sleep;            /* THINK: the sleep time */
  unsigned long long def_from, def_to; /* RELOAD: the definitions' hashes */
  const char *text;        /* ERROR, HOST: the bytes (ERROR's end with a 0); KEY: the bytes of its
                              string values, before's then after's, each ended by a 0 (NULL when
                              neither is a string); NULL for others */
  size_t size;             /* ERROR, HOST: their number (ERROR's without the 0); KEY: text's, the
                              0s included */
  bt_value before, after;  /* KEY: the key's values before and after the write (type BT_KEY_NONE:
                              unset); a string points into text, and lives as long as it. A
                              BT_KEY_VALUE is the binding's token. Others: zero */
} bt_rec_entry;

/* Called with each record as it is made (e and its text are valid during the call only). A
 * think's record is made when the think ends, with the sleep time the tree has then. */
typedef void (*bt_rec_fn)(void *ud, const bt_rec_entry *e);

/* A new recorder keeping the last `capacity` records (0: none, a callback only; at most
 * BT_REC_MAX_CAPACITY). BT_EINVAL for a NULL out or a capacity too large, BT_ENOMEM. */
#define BT_REC_MAX_CAPACITY 2097152
int bt_rec_create(bt_rec **out, size_t capacity);
/* Detaches it from its instance if attached, and frees it. NULL is allowed. */
void bt_rec_free(bt_rec *rec);
/* The callback sink (fn NULL: none). */
void bt_rec_set_callback(bt_rec *rec, bt_rec_fn fn, void *ud);
/* The callback set (NULL: none), and in *ud (may be NULL) its ud: so that a second watcher (the
 * test kit's bt_trace) can call the first one's after its own, and give it back. */
bt_rec_fn bt_rec_callback(const bt_rec *rec, void **ud);
/* The host's stable agent id and label ("sheep 12"; copied; NULL: none). BT_ENOMEM. */
int bt_rec_set_agent(bt_rec *rec, unsigned long long id, const char *label);
unsigned long long bt_rec_agent(const bt_rec *rec);
const char *bt_rec_label(const bt_rec *rec); /* "" when none */
/* Records in the ring (at most the capacity), and records made since creation or bt_rec_clear. */
size_t bt_rec_count(const bt_rec *rec);
unsigned long long bt_rec_total(const bt_rec *rec);
/* Copies the i-th record in the ring, 0 the oldest (its text stays valid until the record leaves
 * the ring); BT_EINVAL when i >= bt_rec_count. The ring keeps a think's sleep time as a float (7
 * significant digits); the callback gets it as the tree gave it. */
int bt_rec_get(const bt_rec *rec, size_t i, bt_rec_entry *out);
/* Empties the ring and zeroes the total (the think number goes on). */
void bt_rec_clear(bt_rec *rec);
/* The instance rec watches (NULL: none). */
bt_inst *bt_rec_inst(const bt_rec *rec);
/* The definition of the instance rec watches, or last watched (NULL: it never watched one): its
 * records' node indices are that definition's since the last attach. The recorder holds a
 * reference to it. */
const bt_def *bt_rec_def(const bt_rec *rec);
/* Attaches rec to inst (NULL detaches; a recorder watches one instance at a time, an instance has
 * one recorder at most: attaching replaces and detaches the previous one, and frees it if the
 * instance's definition made it). BT_EINVAL when rec is attached to another instance or the
 * recorder is compiled out, BT_ENOMEM. bt_inst_fini detaches the recorder. */
int bt_inst_set_recorder(bt_inst *inst, bt_rec *rec);
bt_rec *bt_inst_recorder(const bt_inst *inst);

/* What a definition gives the recorders it makes (bt_def_set_recording). */
typedef struct bt_log bt_log; /* a log file being written (below) */

typedef struct bt_rec_options {
  size_t capacity; /* the ring's size (0: none) */
  bt_rec_fn fn;    /* the callback (NULL: none) */
  void *ud;
  bt_log *log;     /* the log each recorder writes to (bt_rec_set_log; NULL: none) */
} bt_rec_options;

/* Switches recording on (opts) or off (NULL) for the instances bt_inst_init makes of def from now
 * on: each gets a recorder of its own, made with opts, which bt_inst_recorder returns and
 * bt_inst_fini frees (instances made before are left as they are). BT_EINVAL for a NULL def or a
 * recorder compiled out; BT_ENOMEM (bt_inst_init fails with BT_ENOMEM when it cannot make one). */
int bt_def_set_recording(bt_def *def, const bt_rec_options *opts);

/* Keeps (on: nonzero), from the next think on, the DBStrings of the nodes running when each think
 * has saved its statuses (what the dump shows beside them), described inside the think, where a
 * script's DBString may run; off (0) drops them. It costs a describe call per running node per
 * think: a viewer keeps them for the agents a page shows. BT_EINVAL for a NULL rec or a recorder
 * compiled out. */
int bt_rec_keep_dbstrings(bt_rec *rec, int on);
/* The DBString node had at the last think the recorder kept them for ("" when it said nothing),
 * or NULL: not running then, none kept, or a node out of range. Valid until that instance's next
 * think, or bt_rec_keep_dbstrings. */
const char *bt_rec_dbstring(const bt_rec *rec, int node);

/* ---- statistics: per-node figures from the recorder's records (docs/c-api.md "Statistics") ----
 * A bt_stats counts, for each tree shape (bt_def_hash) and each node of it (pre-order index),
 * summed over any number of agents, what the records say the node did. It is fed the records of
 * live recorders (bt_rec_set_stats, bt_def_set_stats: a recorder of capacity 0 keeps no ring, so
 * statistics need no log), or records decoded from anywhere (bt_stats_add). The figures:
 *   visits     the node was entered: in a think, its status changed from READY to another, or
 *              from SUCCESS or FAILED to other than READY (a finished node visited again without
 *              a reset). A running node that a think visits again and leaves RUNNING makes no
 *              record, so it is no new visit (thinks counts those); a visit that leaves a node
 *              READY (a node listening for an event that did not come) is not seen.
 *   successes, failures   changes to SUCCESS, to FAILED, in a think
 *   aborts     runs interrupted: changes from RUNNING to READY (a parent's reset, a Priority
 *              choosing another child, an event, bt_inst_reset), in a think or not
 *   runs       changes to RUNNING, in a think or not (a restore or a reload that sets a node
 *              RUNNING starts a run, and is no visit)
 *   thinks     thinks at whose end the node was RUNNING
 *   time       seconds RUNNING, summed over runs: a run lasts from the record of its change to
 *              RUNNING to that of its change out of RUNNING; a run under way counts up to its
 *              agent's latest record
 *   longest    the longest run, runs under way included
 *   running    agents in which the node runs now
 *   errors     BT_REC_ERROR records naming the node (bt_inst_record_error)
 * and, per shape (and per agent: bt_rec_stats_shape), the thinks, the errors of no one node and
 * the writes of blackboard keys (BT_REC_KEY records).
 * A record is in a think when its think number is above that of its agent's latest BT_REC_THINK
 * record. Runs are kept per agent and node: a change to RUNNING of a node already running ends
 * the run under way first. A think's record is made when it ends, so a read right after
 * bt_inst_update counts that think. A bt_stats belongs to one thread, as its recorders do (merge
 * several threads' with bt_stats_merge), and must outlive them or be freed first. */
typedef struct bt_stats bt_stats;

/* One node's figures (bt_stats_node_get, bt_stats_list, bt_rec_stats_node). */
typedef struct bt_stats_node {
  unsigned long long shape; /* bt_def_hash of its tree */
  int node;                 /* its pre-order index */
  int running;              /* agents in which it runs now */
  unsigned long long visits, successes, failures, aborts, runs, thinks, errors;
  double time;    /* seconds running */
  double longest; /* the longest run, in seconds */
} bt_stats_node;

/* One shape's figures (bt_stats_shape_get, bt_rec_stats_shape). */
typedef struct bt_stats_shape {
  unsigned long long shape;  /* bt_def_hash */
  int nodes;                 /* its node count (bt_def_size) */
  int agents;                /* agents whose records were counted */
  unsigned long long thinks; /* BT_REC_THINK records */
  unsigned long long errors; /* BT_REC_ERROR records of no one node (node -1) */
  unsigned long long writes; /* BT_REC_KEY records: writes of its blackboard's keys */
  const bt_def *def; /* a definition of the shape that a live recorder fed (held until
                        bt_stats_free), to name the nodes; NULL for shapes known by bt_stats_add */
} bt_stats_shape;

/* Orders of bt_stats_list. */
enum {
  BT_STATS_BY_TREE = 0,  /* shapes in the order they were first seen, nodes in pre-order */
  BT_STATS_BY_TIME = 1,  /* hottest first: most time running, then most visits, then tree order */
  BT_STATS_BY_VISITS = 2 /* most visits, then most time running, then tree order */
};

/* An empty bt_stats. BT_EINVAL (out NULL), BT_ENOMEM. */
int bt_stats_create(bt_stats **out);
/* Detaches it from every recorder that feeds it and frees it. NULL is allowed. */
void bt_stats_free(bt_stats *st);
/* Makes st the statistics that rec feeds (NULL: none; a recorder feeds one bt_stats at most).
 * Each recorder is an agent of its own; its runs under way end at its latest record when it
 * leaves its instance, stops feeding st or is freed. A shared node's figures are counted at its
 * first place (bt_def_node_of_state). BT_EINVAL (rec NULL), BT_ENOMEM. */
int bt_rec_set_stats(bt_rec *rec, bt_stats *st);
bt_stats *bt_rec_stats(const bt_rec *rec);
/* Switches statistics on (st) or off (NULL) for the instances bt_inst_init makes of def from now
 * on: each feeds st through its recorder, the one bt_def_set_recording gives it, or else one of
 * capacity 0 made for the purpose (bt_inst_recorder returns it; bt_inst_fini frees it). Instances
 * made before are left as they are. BT_EINVAL for a NULL def or a recorder compiled out
 * (bt_inst_init fails with BT_ENOMEM when it cannot attach a recorder to st). */
int bt_def_set_stats(bt_def *def, bt_stats *st);
/* Counts one record of `agent` (an id of the caller's: each agent's runs are its own), made by an
 * instance of a tree of shape `shape` (bt_def_hash) with `nodes` nodes. When the shape of an agent
 * changes (a reload), its runs under way end at its latest record. BT_EINVAL: st or e NULL,
 * nodes < 1, a shape already known with another node count, an unknown type, a STATUS record with
 * a node out of range or statuses bad or equal, an ERROR record with a node out of range;
 * BT_ENOMEM. A refused record changes no figure. */
int bt_stats_add(bt_stats *st, unsigned long long agent, unsigned long long shape, int nodes,
                 const bt_rec_entry *e);
/* Zeroes every figure, the agents' own too; runs under way go on, counted from `now` (on the
 * agents' clock). */
void bt_stats_reset(bt_stats *st, double now);
/* Adds src's figures into dst, shape by shape, src's runs under way counted as far as they went
 * (as running, and as time). BT_EINVAL (NULL, dst == src, a shape of another node count);
 * BT_ENOMEM (dst is then unchanged). */
int bt_stats_merge(bt_stats *dst, bt_stats *src);
/* The shapes counted, and the i-th (0: the first seen); BT_EINVAL for a bad i. */
int bt_stats_shape_count(bt_stats *st);
int bt_stats_shape_get(bt_stats *st, int i, bt_stats_shape *out);
/* One node's figures; BT_EINVAL for a shape not counted or a node out of range. */
int bt_stats_node_get(bt_stats *st, unsigned long long shape, int node, bt_stats_node *out);
/* Every node of every shape, in the order given (BT_STATS_BY_*): writes the first min(max, n)
 * rows and returns n, the number of rows there are; BT_EINVAL (bad order, rows NULL with
 * max > 0), BT_ENOMEM. */
int bt_stats_list(bt_stats *st, int order, bt_stats_node *rows, int max);
/* Records a live recorder could not count for want of memory (0 unless an allocation failed). */
unsigned long long bt_stats_dropped(const bt_stats *st);

/* Keeps (on: nonzero), besides the shapes' figures, each live recorder's figures of its own, so
 * that one bt_stats gives both a whole population's figures and one agent's (a row of figures per
 * node per recorder). Those of a recorder feeding st already count from its latest record.
 * BT_EINVAL (st NULL), BT_ENOMEM (nothing changed). */
int bt_stats_keep_agents(bt_stats *st, int on);
/* A recorder's own figures in the bt_stats it feeds, for the shape of its tree (they start afresh
 * when it moves to a tree of another shape): as bt_stats_shape_get (agents 1), bt_stats_node_get
 * and bt_stats_list. BT_EINVAL when rec feeds no bt_stats that keeps agents' figures, has not yet
 * seen a tree, or for a bad node or order; BT_ENOMEM. */
int bt_rec_stats_shape(bt_rec *rec, bt_stats_shape *out);
int bt_rec_stats_node(bt_rec *rec, int node, bt_stats_node *out);
int bt_rec_stats_list(bt_rec *rec, int order, bt_stats_node *rows, int max);
/* Zeroes the recorder's own figures; its runs under way count on from `now`. BT_EINVAL as above. */
int bt_rec_stats_reset(bt_rec *rec, double now);

/* ---- the log file: what many agents' recorders saw, in a file (docs/log-format.md) ----
 * A bt_log is a sink of any number of recorders, each the recorder of one agent. On the think
 * path a recorder only appends its record to a buffer of its own (agents thinking on different
 * threads share nothing); bt_log_flush, which the host calls at each frame end, encodes what every
 * recorder of the log made since the last flush (varints, deltas, one table of the frame's times)
 * and writes it as one block, in the order the recorders were given to the log, after the shape
 * of every tree first used (keyed by bt_def_hash: the agents of one brain share it) and the id and
 * label of every agent first seen. With BT_LOG_THREAD the encoding and writing happen on a thread
 * of the log's own and the flush only swaps buffers. A log is read back with a bt_log_reader
 * (below), tools/bt-log, or bt.log.open from Lua; a log cut anywhere reads to its last whole
 * block. Errors are kept: bt_log_errmsg says what went wrong. */

#define BT_LOG_DBSTRINGS 0x01 /* each think also keeps its running nodes' DBStrings and sleep times
                                 (what the dump shows; they cost a describe call per running node) */
#define BT_LOG_THREAD 0x02   /* encode and write on a thread of the log's own */

/* Where a log's bytes go: write returns 0, or non-zero on failure (the log then fails with
 * BT_EIO). With BT_LOG_THREAD it is called on the log's thread. */
typedef int (*bt_log_write_fn)(void *ud, const void *data, size_t size);

/* Creates (or truncates) the file at path and writes the log's header. On failure *out is NULL
 * and err (errsize bytes, may be NULL) says why: BT_EINVAL (NULL out or path, unknown flags, or
 * BT_LOG_THREAD where threads are not built in), BT_EIO (the file cannot be created), BT_ENOMEM. */
int bt_log_create(bt_log **out, const char *path, unsigned flags, char *err, size_t errsize);
/* The same, writing through fn(ud, ...) instead of a file (a socket, memory, a host's own file). */
int bt_log_create_fn(bt_log **out, bt_log_write_fn fn, void *ud, unsigned flags, char *err, size_t errsize);

/* Makes rec write to log as well as to its ring and callback (NULL: to no log; a recorder writes
 * to one log at most, and setting another detaches it from the first). Records made before are
 * not written; records not yet flushed still are. Any thread may call it, but not while rec's
 * instance thinks nor during a bt_log_flush of either log. BT_EINVAL for a NULL rec or a
 * recorder compiled out, BT_ENOMEM. */
int bt_rec_set_log(bt_rec *rec, bt_log *log);
bt_log *bt_rec_log(const bt_rec *rec); /* NULL: none */

/* Writes what the log's recorders recorded since the last flush: call it at each frame end, when
 * none of their instances thinks (from one thread at a time). With BT_LOG_THREAD it waits for the
 * log's thread to finish the previous flush, hands it this one and returns. BT_EIO once a write
 * failed (then and later: nothing more is written, recorders go on recording into nothing;
 * bt_log_errmsg says why), BT_ENOMEM (the records of this flush are lost), BT_EINVAL for NULL. */
int bt_log_flush(bt_log *log);

/* Records `size` bytes of the host's that belong to no one agent (the world's state in a frame),
 * with a code of its own and a time; written at the next flush before the agents' records of that
 * flush. Call it from the thread that flushes. BT_EINVAL for a NULL log, NULL data with a size, or
 * a size over 16 MiB; BT_ENOMEM. */
int bt_log_write_host(bt_log *log, double time, int code, const void *data, size_t size);

/* Flushes, writes the log's end, closes the file bt_log_create opened and frees the log; the
 * recorders still writing to it are detached from it (every think that ended is in it). Returns
 * BT_OK or the log's first error (BT_EIO, BT_ENOMEM). NULL is allowed. */
int bt_log_free(bt_log *log);

/* The message of the log's first error ("" if none). */
const char *bt_log_errmsg(const bt_log *log);

/* What a log has written so far (with BT_LOG_THREAD: up to the last flush its thread finished). */
typedef struct bt_log_stats {
  unsigned long long records;  /* the recorders' records written (BT_REC_*) */
  unsigned long long statuses; /* of which BT_REC_STATUS: the transitions */
  unsigned long long bytes;    /* bytes written, header included */
  unsigned long long lost;     /* records lost for want of memory (each marked in the log) */
  int shapes, agents;          /* shapes and agents declared */
} bt_log_stats;
void bt_log_stats_get(bt_log *log, bt_log_stats *out);

/* ---- reading a log ---- */

typedef struct bt_log_reader bt_log_reader;
typedef struct bt_log_shape bt_log_shape; /* a tree's shape, as the log keeps it */

/* Record types a log adds to the recorder's BT_REC_* (bt_log_record.entry.type). */
enum {
  BT_LOG_SAVED = 16,    /* a think saved its statuses as last results (the dump's <LASTRESULT>):
                           every node's last result is now its status */
  BT_LOG_DESCRIBE = 17, /* the running nodes' DBStrings and sleep times at a think's end
                           (BT_LOG_DBSTRINGS logs only): bt_log_reader_describe reads them */
  BT_LOG_WORLD = 18,    /* bt_log_write_host's: entry.node is the code, text and size the bytes;
                           of no agent */
  BT_LOG_LOST = 19,     /* entry.size records of this agent were lost here for want of memory */
  BT_LOG_ATTACH = 20,   /* the agent's recorder was attached to an instance of record.shape: its
                           nodes are READY with last results READY but for the entry.size ones
                           bt_log_reader_state reads (it may have run before), and its keys unset
                           but for those bt_log_reader_value reads */
  BT_LOG_STOP = 21      /* the agent's tree was stopped (bt_inst_stop: Lua's tree:Stop, a brain's
                           Stop, a pool's remove); it keeps its statuses (bt_log_tree_stopped) */
};

typedef struct bt_log_record {
  bt_rec_entry entry;        /* as the recorder made it (text: valid until the next read or feed;
                                an error's ends with a 0, as the recorder's) */
  unsigned long long agent;  /* the host's agent id (bt_rec_set_agent; 0 for BT_LOG_WORLD) */
  const char *label;         /* its label ("" when none) */
  int agent_index;           /* the agent's number in the log, 0 up, in order of appearance
                                (-1 for BT_LOG_WORLD) */
  const bt_log_shape *shape; /* the agent's tree at this record (NULL: none yet, BT_LOG_WORLD) */
  unsigned long long offset; /* the byte offset of the block the record came from */
} bt_log_record;

/* Where a reader stopped (bt_log_reader_where). */
enum {
  BT_LOG_MORE = 0,  /* it has not reached the end of what it was given */
  BT_LOG_ENDED = 1, /* the log's end was read: the writer closed it */
  BT_LOG_WHOLE = 2, /* the bytes end after a whole block but the log has no end (yet): it is being
                       written, or its writer stopped without closing it */
  BT_LOG_CUT = 3,   /* the bytes end inside a block (or the header): the log was cut there, or
                       the rest is being written */
  BT_LOG_FAILED = 4 /* an error stopped it (bt_log_reader_errmsg) */
};

/* Opens the log file at path for reading. On failure *out is NULL and err (errsize bytes, may be
 * NULL) says why: BT_EIO (cannot open it), BT_EFORMAT (its first bytes are not a bt log's, or its
 * format version is not one this library reads), BT_EINVAL (NULL out or path), BT_ENOMEM. A file
 * shorter than the header whose bytes begin one is accepted: it is being written. */
int bt_log_reader_create_file(bt_log_reader **out, const char *path, char *err, size_t errsize);
/* A reader of bytes the host feeds it (bt_log_reader_feed): a log in memory, a pipe, a socket. */
int bt_log_reader_create(bt_log_reader **out);
/* Appends size bytes (copied) to what a reader made by bt_log_reader_create reads. BT_EINVAL for a
 * reader of a file, BT_ENOMEM. */
int bt_log_reader_feed(bt_log_reader *r, const void *data, size_t size);
void bt_log_reader_free(bt_log_reader *r); /* NULL is allowed */

/* Reads the next record into *out: 1 when there is one (its text and label stay valid until the
 * next read or feed); 0 when there is none for now (bt_log_reader_where says why: the log's end, or its
 * bytes end: a reader of a file that grows reads on at the next call); or an error, after which
 * every call returns it: BT_EFORMAT (not a log, another format version), BT_ECORRUPT (damaged
 * bytes: the message says at which byte and what), BT_EIO, BT_ENOMEM. Every record of the blocks
 * before the error was read. */
int bt_log_read(bt_log_reader *r, bt_log_record *out);

/* Why reading stopped (BT_LOG_*), and in *offset (may be NULL) how far: the end of the last block
 * whose records were all read (a log cut anywhere reads up to there). */
int bt_log_reader_where(const bt_log_reader *r, unsigned long long *offset);
/* The message of the reader's error ("" if none). */
const char *bt_log_reader_errmsg(const bt_log_reader *r);
/* The header's flags (BT_LOG_DBSTRINGS: the log keeps DBStrings and sleep times), or -1 before
 * the header was read. */
int bt_log_reader_flags(const bt_log_reader *r);

/* The i-th entry of the BT_LOG_DESCRIBE record just read: its node, its sleep time (1 and *sleep,
 * or 0 for none) and its DBString (text, len bytes; valid until the next read). BT_EINVAL when i
 * is not below the record's entry.size or the last record read is no BT_LOG_DESCRIBE. */
int bt_log_reader_describe(const bt_log_reader *r, size_t i, int *node, int *has_sleep,
                           double *sleep, const char **text, size_t *len);

/* The i-th entry of the BT_LOG_ATTACH record just read: a node and its status and last result.
 * BT_EINVAL when i is not below entry.size or the last record read is no BT_LOG_ATTACH. */
int bt_log_reader_state(const bt_log_reader *r, size_t i, int *node, int *status, int *last);

/* The i-th key value of the BT_LOG_ATTACH record just read (i from 0: the keys of the agent's new
 * shape that had a value then; every other key is unset): the key and its value (a string is
 * valid until the next read). BT_EINVAL when i is past the record's last value (a log of format
 * version 1.0 has none), or the last record read is no BT_LOG_ATTACH. */
int bt_log_reader_value(const bt_log_reader *r, size_t i, int *key, bt_value *value);

/* The shape of that hash the log has declared so far (NULL: none). It lives as long as the reader. */
const bt_log_shape *bt_log_reader_shape(const bt_log_reader *r, unsigned long long hash);

/* A shape's nodes, in pre-order (root 0), as bt_def_* describe a definition's: its hash, its
 * number of nodes, and a node's kind (a bt_kind, or -1 for a kind this library does not know),
 * the kind's name as the log wrote it, its name, its number of children, its i-th child, its tree
 * parent (-1 for the root), its state (nodes placed under several parents share one); bad
 * indices give -1 or NULL. bt_log_shape_param returns 1 and the parameter (a Priority's period,
 * a Wait's seconds, ...; a nil one as its kind reads it: a Priority's period 1) or 0 for none. */
unsigned long long bt_log_shape_hash(const bt_log_shape *s);
int bt_log_shape_size(const bt_log_shape *s);
int bt_log_shape_kind(const bt_log_shape *s, int node);
const char *bt_log_shape_kind_name(const bt_log_shape *s, int node);
const char *bt_log_shape_name(const bt_log_shape *s, int node);
int bt_log_shape_child_count(const bt_log_shape *s, int node);
int bt_log_shape_child(const bt_log_shape *s, int node, int i);
int bt_log_shape_up(const bt_log_shape *s, int node);
int bt_log_shape_state(const bt_log_shape *s, int node);
int bt_log_shape_param(const bt_log_shape *s, int node, double *out);

/* A shape's blackboard, as bt_def_key_* and bt_def_port describe a definition's (a log of format
 * version 1.0 has none: 0 keys, 0 ports): its number of keys; a key's name, type (a bt_key_type)
 * and flags (BT_KEY_HOST), NULL or BT_EINVAL for a bad key; the key of a name (BT_EINVAL: none);
 * a node's number of ports (BT_EINVAL for a bad node), and the i-th's key and BT_PORT_* (BT_EINVAL
 * for a bad node or i). */
int bt_log_shape_key_count(const bt_log_shape *s);
const char *bt_log_shape_key_name(const bt_log_shape *s, int key);
int bt_log_shape_key_type(const bt_log_shape *s, int key);
int bt_log_shape_key_flags(const bt_log_shape *s, int key);
int bt_log_shape_key_find(const bt_log_shape *s, const char *name);
int bt_log_shape_port_count(const bt_log_shape *s, int node);
int bt_log_shape_port(const bt_log_shape *s, int node, int i, int *key, unsigned *how);

/* Appends the node's path to out: the names from the root joined by '/', a node whose siblings
 * share its name numbered "#1", "#2", ... in their order (as the Lua binding names nodes), so that
 * a path names one node. BT_EINVAL for a bad node or NULL out, BT_ENOMEM. */
int bt_log_shape_path(const bt_log_shape *s, int node, bt_buf *out);
/* The node at that path, or -1. */
int bt_log_shape_find(const bt_log_shape *s, const char *path);

/* Builds a definition of the shape (one reference), for bt_def_dot, bt_inst_dot, bt_def_match:
 * the same nodes, kinds, names, parameters, shared nodes, keys and ports, with leaves (and
 * WatchNodes' conditions) whose functions fail.
 * BT_EINVAL for a NULL argument or a kind this library does not know; as bt_def_create. */
int bt_log_shape_def(const bt_log_shape *s, bt_def **out);

/* ---- an agent's statuses from its records ----
 * One step of replaying an agent's statuses from its records: the one that bt_log_tree_apply,
 * bt-log and the viewer (a window's statuses_before) take. The statuses and last results of a
 * tree of `nodes` nodes are kept by state (status[s] and last[s], `nodes` bytes each, s the state
 * of a node: state[node], as bt_def_state or bt_log_shape_state give it; state NULL: by node), so
 * that every place of a shared node has the one status the instance gives it. BT_REC_STATUS sets
 * its node's status to e->to; BT_LOG_SAVED makes every last result the status (last NULL: nothing
 * changes); every other type changes nothing: a change of shape (BT_LOG_ATTACH, BT_REC_RELOAD)
 * is the caller's, who knows the new shape. A BT_REC_KEY record changes no status: it carries the
 * key's values before and after, so that a replayer of the blackboard steps either way (a
 * bt_log_tree keeps an agent's values: bt_log_tree_key). BT_EINVAL for a NULL e or status, nodes
 * below 0, or a STATUS record whose node or its state is not below nodes or whose status is no
 * bt_status (nothing changes then). */
int bt_rec_entry_apply(const bt_rec_entry *e, int nodes, const int *state, unsigned char *status,
                       unsigned char *last);

/* ---- an agent's tree from its records ----
 * A bt_log_tree follows the records of one agent, given to it one by one as a reader reads them,
 * and keeps the agent's tree as they leave it: each node's status and last result (what the dump
 * shows), the DBStrings and sleep times of the running nodes at its last think (BT_LOG_DBSTRINGS
 * logs), its last think, and the values of its blackboard's keys. Read to a moment, it is the agent's tree at that moment (bt-log tree,
 * bt-arena --replay). Statuses are kept by state: a node placed under several parents has one. */
typedef struct bt_log_tree bt_log_tree;

/* An empty tree (no shape: its agent's first BT_LOG_ATTACH gives it one). BT_EINVAL for NULL out,
 * BT_ENOMEM. */
int bt_log_tree_create(bt_log_tree **out);
void bt_log_tree_free(bt_log_tree *t); /* NULL is allowed */

/* Applies the record that r has just read (bt_log_read), a record of the agent the tree follows:
 * BT_LOG_ATTACH takes rec's shape, its nodes READY with last results READY but those the record
 * lists (bt_log_reader_state) and its keys unset but those the record gives (bt_log_reader_value);
 * BT_REC_STATUS sets the node's status and BT_LOG_SAVED makes every last result the status
 * (bt_rec_entry_apply); BT_REC_KEY sets its key's value (entry.after, copied);
 * BT_LOG_DESCRIBE replaces the DBStrings kept;
 * BT_REC_THINK is the last think;
 * BT_LOG_STOP marks the tree stopped until a think after it or an attach (bt_log_tree_stopped).
 * Other records, and every record before the first attach, change nothing. BT_EINVAL for a NULL
 * argument or a record that does not fit the tree's shape (a node, status or key out of range, a
 * value of another type than its key's), BT_ENOMEM (then the DBStrings of that describe record, or
 * that key's value, are not kept). */
int bt_log_tree_apply(bt_log_tree *t, const bt_log_reader *r, const bt_log_record *rec);

/* The tree's shape: the one of the last attach applied (it lives as long as the reader that read
 * it), or NULL before the first. */
const bt_log_shape *bt_log_tree_shape(const bt_log_tree *t);
/* A node's status and last result (bt_status), or -1 for a node outside the shape or no shape. */
int bt_log_tree_status(const bt_log_tree *t, int node);
int bt_log_tree_last(const bt_log_tree *t, int node);
/* The node's entry in the last BT_LOG_DESCRIBE applied since the last attach (the describe of the
 * last think that had one; the nodes that ran then): 1 with its sleep time (*has_sleep 0: none)
 * and its DBString (text, len bytes: valid until the next apply or free), or 0 when it has none.
 * Any pointer may be NULL. */
int bt_log_tree_describe(const bt_log_tree *t, int node, int *has_sleep, double *sleep, const char **text,
                         size_t *len);
/* The value of the key (an id of the tree's shape: bt_log_shape_key_find) as the records applied
 * leave it: 1 and *out, or 0 when it is unset (out->type BT_KEY_NONE). Applied up to a time T (as
 * bt-log board does: every record of the agent up to T), these are the agent's keys at T. A string
 * stays valid until the tree's next apply or free. BT_EINVAL for a NULL t or out, no shape yet, or
 * a key not of the shape. */
int bt_log_tree_key(const bt_log_tree *t, int key, bt_value *out);

/* 1 with the last think's number and time (any pointer may be NULL), or 0 when no think was
 * applied yet. */
int bt_log_tree_think(const bt_log_tree *t, unsigned long long *think, double *time);
/* 1 when the agent is gone: its tree was stopped (a BT_LOG_STOP) and neither thought after the
 * think of the stop nor was attached again (a brain's restart) since; with the stop's think
 * number and time (any pointer may be NULL). 0 for a tree that lives, or none. A tree its host
 * freed without stopping it leaves no such mark. */
int bt_log_tree_stopped(const bt_log_tree *t, unsigned long long *think, double *time);

/* ---- deprecated names ----
 * What these functions were called before 0.3 (CHANGELOG.md, "Renamed"): bt makes with _create
 * and frees with _free everywhere. The old names stay as aliases for a while; new code should
 * not use them. */
#define bt_log_open        bt_log_create
#define bt_log_open_fn     bt_log_create_fn
#define bt_log_close       bt_log_free
#define bt_log_reader_new  bt_log_reader_create
#define bt_log_reader_open bt_log_reader_create_file

#ifdef __cplusplus
}
#endif

#endif
