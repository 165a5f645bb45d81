/* SPDX-License-Identifier: MIT */
/*
 * log.c: the log file's writer (bt.h "the log file"; the format: logfmt.h, docs/log-format.md).
 *
 * On the think path a recorder writing to a log hands each record to its bti_logrec, which encodes
 * it at once into a buffer of its own (`cur`, a bt_buf), as the log will hold it: the differences
 * from the agent's previous record (varints), a few bytes a record. Only a record whose think or
 * time moved leaves a mark instead of its time marker, since the marker names the time by its
 * index in the table of the frame block, which the flush makes. Nothing is shared between
 * recorders there, so agents thinking on different threads need no lock. bt_log_flush, at a frame
 * end, swaps every recorder's `cur` with its `spare` and copies the spares, in the order the
 * recorders were given to the log, into one frame block, each mark made into its marker, with the
 * frame's times once, in a table. With BT_LOG_THREAD the copying and the write happen on the log's
 * own thread, and the flush only swaps. A flush reads two cache lines of a recorder (its first and
 * its cur's), the copying only the spare and its bytes: at a frame end, with thousands of agents,
 * what costs is the memory touched.
 *
 * Shapes are written once per bt_def_hash: when a recorder is attached to an instance whose shape
 * the log has not seen, the shape is serialized at once (under the log's lock: it is rare) into
 * the blocks the next flush writes first, so that a definition freed before the flush is still
 * described. An agent is declared (its number, id and label) when it first has records to write,
 * and again when its id or label changed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "btp.h"
#include "rec_internal.h"
#include "logfmt.h"

#ifndef BT_LOG_THREADS
#define BT_LOG_THREADS 1
#endif

/* ---- buffers: bt_buf, of bytes ---- */

/* A buffer's first size. A recorder's two buffers are made at its first records, so the buffers
 * of agents made in a row lie in a row, in the order the think path and the flush visit them.
 * Made smaller (bt_buf's first 64 bytes), they are moved as they grow, at later frames: a think
 * into a log took 8% longer (`bench_rec --only log`). */
#define FIRST_ROOM 256

/* Room for `more` bytes at b's end (and bt_buf_reserve's NUL): 1, or 0 without memory. The check
 * stays inline, on the think path; only growing calls bt_buf_reserve. Each caller counts what it
 * lost, and a later, smaller record may still fit (a failed reserve is not remembered). */
static inline int room(bt_buf *b, size_t more) {
  if (b->cap - b->len > more) return 1;
  return bt_buf_reserve(b, !b->cap && more < FIRST_ROOM - 1 ? FIRST_ROOM - 1 : more) == BT_OK;
}

/* b's bytes, and where the next goes. */
static inline unsigned char *bytes_of(const bt_buf *b) { return (unsigned char *)b->data; }
static inline unsigned char *end_of(const bt_buf *b) { return (unsigned char *)b->data + b->len; }

/* Appends n bytes of data: 1, or 0 without memory. */
static inline int put(bt_buf *b, const void *data, size_t n) {
  if (!n) return 1;
  if (!room(b, n)) return 0;
  memcpy(end_of(b), data, n);
  b->len += n;
  return 1;
}

static int put_varint(bt_buf *b, uint64_t v) {
  if (!room(b, 10)) return 0;
  b->len += bti_put_varint(end_of(b), v);
  return 1;
}

/* ---- what a recorder appends on the think path ---- */

/* A time marker not yet written: its record's think and time moved from the agent's previous
 * record's, and the marker names the time by its index in the table of the frame block it lands
 * in, which only the flush knows. So the think path leaves a mark in the bytes where the marker
 * goes (the record's other bytes are written as they will be), and the marks are chained by
 * their offsets. A mark that moves no time only says where a frame block may end (a record starts
 * there): one is left every MARK_STEP bytes at most, so that the blocks of a frame stay near
 * LOG_FRAME_SPLIT. A mark, in this machine's byte order (it never leaves memory): whether it
 * moves the time (1 byte), the offset of the next mark (a uint32_t, NO_MARK: none), the think
 * number's difference (an int64_t) and the time (a double). */
#define MARK_SIZE 21
#define MARK_STEP 65536
#define NO_MARK UINT32_MAX

/* Records encoded as the log holds them, but for their time markers; a cache line of its own. */
typedef struct pend {
  _Alignas(64) bt_buf b;
  uint32_t first, last;         /* the first and last marks' offsets (NO_MARK: none) */
  uint32_t records, statuses;   /* for bt_log_stats */
  uint64_t lost;                /* records lost (no memory) after the last of b */
} pend;

typedef struct bti_logrec bti_logrec;

struct bti_logrec {
  /* what the think path and a flush look at first, in one cache line (a flush then looks at cur,
   * and the encoder at spare and its bytes) */
  bti_sink sink;          /* its place among its recorder's sinks (the first: logrec_of) */
  pend *cur;              /* where the think path appends: a flush hands it to the log and takes
                             the other of buf */
  pend *spare;            /* the other: the records the log writes next (the flush's, and the
                             encoder's: on the log's thread with BT_LOG_THREAD) */
  uint64_t think;         /* the agent's last record as the reader will know it (the bytes in */
  double time;            /* cur follow from it) */
  int32_t node;
  uint8_t blind;          /* its shape could not be written: its records are lost until it can */
  uint8_t has_shape;
  uint8_t agent_changed;  /* bt_rec_set_agent was called: the flush declares it again */
  bt_log *log;
  struct bti_logrec *next;
  int index;              /* its number in the log, -1 until declared */
  /* (64 bytes) the think path's, now and then */
  uint64_t shape;         /* the hash of the shape last attached (0 with has_shape 0: none) */
  bt_buf describe;        /* scratch for DBStrings */
  /* the flush's */
  bt_rec *rec;            /* NULL once the recorder was freed or went to another log */
  /* what the log declared of the agent, and what it is now (read at flushes, and when the
   * recorder goes) */
  unsigned long long id, want_id;
  char *label, *want_label;
  pend buf[2];
};

/* Room for a record of at most `need` bytes in lr's current buffer, after the time marker its
 * think and time call for; the caller writes them and adds what it wrote to cur->b.len before it
 * makes another record. NULL (the record counted as lost) without memory, or while blind. */
static unsigned char *rec_room(bti_logrec *lr, uint64_t think, double time, size_t need) {
  pend *b = lr->cur;
  int moved = think != lr->think || bti_bits(time) != bti_bits(lr->time);
  int marked = moved || b->b.len - (b->last == NO_MARK ? 0 : b->last) >= MARK_STEP;
  if (lr->blind || b->b.len > NO_MARK - MARK_SIZE - need || !room(&b->b, need + MARK_SIZE)) {
    b->lost++;
    return NULL;
  }
  if (marked) {
    unsigned char *m = end_of(&b->b);
    uint32_t at = (uint32_t)b->b.len, none = NO_MARK;
    m[0] = (unsigned char)moved;
    memcpy(m + 1, &none, 4);
    int64_t dthink = (int64_t)(think - lr->think);
    memcpy(m + 5, &dthink, 8);
    memcpy(m + 13, &time, 8);
    if (b->last == NO_MARK) b->first = at;
    else memcpy(bytes_of(&b->b) + b->last + 1, &at, 4);
    b->last = at;
    b->b.len += MARK_SIZE;
    lr->think = think;
    lr->time = time;
  }
  return end_of(&b->b);
}

/* A record of lr's carrying n bytes of data: its head (at most 21 bytes, written by the caller
 * into the room), then the bytes. */
static unsigned char *rec_room_bytes(bti_logrec *lr, uint64_t think, double time, size_t *n) {
  if (*n > LOG_MAX_TEXT) *n = LOG_MAX_TEXT;
  return rec_room(lr, think, time, 21 + *n);
}

static void pend_clear(pend *b) {
  b->b.len = 0;
  b->first = b->last = NO_MARK;
  b->records = b->statuses = 0;
  b->lost = 0;
}

static void pend_free(pend *b) { bt_buf_free(&b->b); }

/* ---- the log ---- */

struct bt_log {
  unsigned flags;
  FILE *file; /* bt_log_create's, which bt_log_free closes */
  bt_log_write_fn write;
  void *ud;
  bti_logrec *first, *last; /* the recorders, in the order they were given */
  int agents;               /* agents declared */
  int released;             /* a recorder went since the last sweep (under the lock) */
  /* under the lock: */
  uint64_t *shapes;         /* hashes of the shapes serialized */
  int nshapes, shapes_cap;
  bt_buf pending;           /* framed SHAPE and WORLD blocks for the next flush */
  int err;                  /* the first error */
  int stopped;              /* a write failed, or a flush ran out of memory: nothing more is written
                               (after memory ran out, the end still is: the log stays whole) */
  char errmsg[256];
  bt_log_stats stats;
  /* the batch being encoded: the shapes and host records, the agents' declarations, the
   * recorders with records (their spares) */
  bt_buf batch_pending, decl;
  struct batched {
    pend *records; /* a recorder's spare */
    int index;     /* its agent's number */
  } *batch;        /* (the encoder reads no recorder: their think paths write them meanwhile) */
  size_t nbatch, batch_cap;
  /* the encoder's buffers */
  bt_buf out, body;
  size_t chunk_at; /* where the open agent's records' size goes in body */
  int prev_index;  /* the last agent's number in the frame block */
  uint64_t *times;          /* the frame's time table, by index, and its hash of bits -> index + 1 */
  size_t ntimes, times_cap;
  uint64_t *hkeys;
  uint32_t *hvals;
  size_t hcap;
  unsigned long long records, statuses, lost; /* counted by the encoder, into stats after it */
#if BT_LOG_THREADS
  btp_mutex mu;
  btp_cond work, idle;
  btp_thread thread;
  int threaded, busy, stop;
#endif
};

static void lock(bt_log *log) {
#if BT_LOG_THREADS
  btp_mutex_lock(&log->mu);
#else
  (void)log;
#endif
}

static void unlock(bt_log *log) {
#if BT_LOG_THREADS
  btp_mutex_unlock(&log->mu);
#else
  (void)log;
#endif
}

/* Keeps the first error (under the lock). */
static int fail(bt_log *log, int code, const char *fmt, const char *what) {
  if (!log->err) {
    log->err = code;
    snprintf(log->errmsg, sizeof log->errmsg, fmt, what);
  }
  return code;
}

/* Appends a block: its type, the size of its payload, the payload, the CRC-32 of all three; all
 * of it or, without memory, nothing (0). */
static int put_block(bt_buf *out, int type, const unsigned char *payload, size_t n) {
  unsigned char head[11];
  head[0] = (unsigned char)type;
  size_t h = 1 + bti_put_varint(head + 1, n);
  if (n > SIZE_MAX - h - 4 || !room(out, h + n + 4)) return 0;
  uint32_t crc = bti_crc32(bti_crc32(0, head, h), payload, n);
  unsigned char tail[4] = {(unsigned char)crc, (unsigned char)(crc >> 8), (unsigned char)(crc >> 16),
                           (unsigned char)(crc >> 24)};
  return put(out, head, h) && put(out, payload, n) && put(out, tail, 4);
}

/* ---- shapes ---- */

static unsigned shape_flags(const bt_node *d) {
  unsigned f = 0;
  if (d->flags & NF_LEAF) f |= SHAPE_LEAF;
  if (d->flags & NF_NIL_PARAM) f |= SHAPE_NIL_PARAM;
  if (d->flags & NF_PARAM_FN) f |= SHAPE_PARAM_FN;
  if (d->flags & NF_NOSCATTER) f |= SHAPE_NOSCATTER;
  if (d->flags & NF_SUCCESS_ONE) f |= SHAPE_SUCCESS_ONE;
  if (d->flags & NF_FAILURE_ALL) f |= SHAPE_FAILURE_ALL;
  if (bti_bits(d->param) != 0) f |= SHAPE_HAS_PARAM;
  return f;
}

/* Appends the blackboard of def to a SHAPE block's payload (1.1): its keys (name, type, flags),
 * then the nodes that have ports (the node's difference from the previous one's, the count,
 * each port's key and BT_PORT_*). */
static int put_board(bt_buf *p, const bt_def *def) {
  int nkeys = bt_def_key_count(def), ok = put_varint(p, (uint64_t)nkeys);
  for (int k = 0; ok && k < nkeys; k++) {
    const char *name = bt_def_key_name(def, k);
    ok = put_varint(p, strlen(name)) && put(p, name, strlen(name)) && put_varint(p, (uint64_t)bt_def_key_type(def, k)) &&
         put_varint(p, (uint64_t)bt_def_key_flags(def, k));
  }
  int with = 0, prev = 0;
  for (uint32_t n = 0; n < def->nnodes; n++) with += bt_def_port_count(def, (int)n) > 0;
  ok = ok && put_varint(p, (uint64_t)with);
  for (uint32_t n = 0; ok && n < def->nnodes; n++) {
    int count = bt_def_port_count(def, (int)n);
    if (count <= 0) continue;
    ok = put_varint(p, n - (uint32_t)prev) && put_varint(p, (uint64_t)count);
    prev = (int)n;
    for (int i = 0; ok && i < count; i++) {
      int key = 0;
      unsigned how = 0;
      bt_def_port(def, (int)n, i, &key, &how);
      ok = put_varint(p, (uint64_t)key) && put_varint(p, how);
    }
  }
  return ok;
}

/* Appends the SHAPE block of def: its hash, the names of the kinds it uses, then each node in
 * pre-order: its kind (an index in those names), flags, param, name, children, state. */
static int put_shape(bt_buf *out, const bt_def *def, uint64_t hash) {
  bt_buf p = {0};
  int index_of[BT_KIND_COUNT], kinds[BT_KIND_COUNT], nkinds = 0;
  for (int k = 0; k < BT_KIND_COUNT; k++) index_of[k] = -1;
  for (uint32_t n = 0; n < def->nnodes; n++)
    if (index_of[def->nodes[n].kind] < 0) {
      index_of[def->nodes[n].kind] = nkinds;
      kinds[nkinds++] = def->nodes[n].kind;
    }
  unsigned char h[8];
  bti_put_u64(h, hash);
  int ok = put(&p, h, 8) && put_varint(&p, (uint64_t)nkinds);
  for (int i = 0; ok && i < nkinds; i++) {
    const char *name = bt_kind_name(kinds[i]);
    ok = put_varint(&p, strlen(name)) && put(&p, name, strlen(name));
  }
  ok = ok && put_varint(&p, def->nnodes);
  for (uint32_t n = 0; ok && n < def->nnodes; n++) {
    const bt_node *d = &def->nodes[n];
    const char *name = def->names + d->name;
    unsigned f = shape_flags(d);
    ok = put_varint(&p, (uint64_t)index_of[d->kind]) && put_varint(&p, f);
    if (ok && (f & SHAPE_HAS_PARAM)) {
      bti_put_u64(h, bti_bits(d->param));
      ok = put(&p, h, 8);
    }
    ok = ok && put_varint(&p, strlen(name)) && put(&p, name, strlen(name)) &&
         put_varint(&p, d->nchildren) && put_varint(&p, d->state);
  }
  ok = ok && put_board(&p, def) && put_block(out, BLOCK_SHAPE, bytes_of(&p), p.len);
  bt_buf_free(&p);
  return ok;
}

/* 1 if the log has serialized the shape of hash, else 0 (under the lock). */
static int shape_known(const bt_log *log, uint64_t hash) {
  for (int i = 0; i < log->nshapes; i++)
    if (log->shapes[i] == hash) return 1;
  return 0;
}

/* ---- the think path: each record, encoded, into the recorder's buffer ---- */

_Static_assert(offsetof(bti_logrec, sink) == 0, "a bti_logrec is its sink");
static bti_logrec *logrec_of(bti_sink *s) { return (bti_logrec *)(void *)s; }

static void logrec_record(bti_logrec *lr, int type, unsigned a, unsigned b, int node, unsigned long long think,
                    double time, double sleep) {
  unsigned char *p = rec_room(lr, think, time, 11), *q = p;
  if (!p) return;
  if (type == BT_REC_THINK) {
    int form = b ? bti_sleep_form(sleep) : SLEEP_NONE;
    *q++ = (unsigned char)((a < 4 ? REC_THINK : REC_THINK_MORE) | (a & 3) | form << 2);
    q += bti_put_sleep(q, form, sleep);
  } else {
    if (type == BT_REC_STATUS) {
      *q++ = (unsigned char)(REC_STATUS | (a & 3) | (a >> 4 & 3) << 2);
      lr->cur->statuses++;
    } else {
      *q++ = REC_EVENT;
    }
    q += bti_put_varint(q, bti_zigzag((int64_t)node - lr->node));
    lr->node = node;
  }
  lr->cur->b.len += (size_t)(q - p);
  lr->cur->records++;
}

static void sink_record(bti_sink *s, int type, unsigned a, unsigned b, int node, unsigned long long think,
                        double time, double sleep) {
  logrec_record(logrec_of(s), type, a, b, node, think, time, sleep);
}

/* A value's bytes at most (a string's cut to half a record's text, so that two fit). */
static size_t value_room(const bt_value *v) {
  size_t n = v->type == BT_KEY_STRING ? strlen(v->as.string) : 0;
  return VALUE_MAX_HEAD + (n < LOG_MAX_TEXT / 2 ? n : LOG_MAX_TEXT / 2);
}

/* Appends a value at q; returns the bytes written. */
static size_t put_value_at(unsigned char *q, const bt_value *v) {
  size_t cut = LOG_MAX_TEXT / 2;
  return bti_put_value(q, v, &cut);
}

/* A KEY record: the key, then its values before and after. */
static void key_record(bti_logrec *lr, const bt_rec_entry *e) {
  size_t n = 1 + 10 + value_room(&e->before) + value_room(&e->after);
  unsigned char *p = rec_room(lr, e->think, e->time, n), *q = p;
  if (!p) return;
  *q++ = e->from ? REC_KEY_WOKE : REC_KEY;
  q += bti_put_varint(q, (uint64_t)(e->node >= 0 ? e->node : 0));
  q += put_value_at(q, &e->before);
  q += put_value_at(q, &e->after);
  lr->cur->b.len += (size_t)(q - p);
  lr->cur->records++;
}

static void sink_entry(bti_sink *s, const bt_inst *in, const bt_rec_entry *e) {
  bti_logrec *lr = logrec_of(s);
  (void)in;
  if (e->type == BT_REC_KEY) {
    key_record(lr, e);
    return;
  }
  if (e->type != BT_REC_ERROR && e->type != BT_REC_HOST && e->type != BT_REC_RELOAD) {
    logrec_record(lr, e->type, e->type == BT_REC_THINK ? e->cause : (unsigned)(e->from | e->to << 4),
                   e->has_sleep, e->node, e->think, e->time, e->sleep);
    return;
  }
  size_t n = e->type == BT_REC_RELOAD ? 16 : e->size;
  unsigned char *p = rec_room_bytes(lr, e->think, e->time, &n), *q = p;
  if (!p) return;
  if (e->type == BT_REC_RELOAD) {
    *q++ = REC_RELOAD;
    bti_put_u64(q, e->def_from);
    bti_put_u64(q + 8, e->def_to);
  } else {
    *q++ = e->type == BT_REC_ERROR ? REC_ERROR : REC_HOST;
    q += bti_put_varint(q, bti_zigzag(e->node));
    q += bti_put_varint(q, n);
    if (n) memcpy(q, e->text, n);
  }
  lr->cur->b.len += (size_t)(q - p) + n;
  lr->cur->records++;
}

/* The DBStrings and sleep times of in's running nodes, as a DESCRIBE record holds them after its
 * count, into e; their count, or -1 without memory. */
static int describe_running(bti_logrec *lr, bt_inst *in, bt_buf *e) {
  int count = 0, prev = 0;
  const bt_def *def = in->def;
  for (uint32_t n = 0; n < def->nnodes; n++) {
    if (*status_at(in, def->nodes[n].state) != BT_RUNNING) continue;
    double t = 0;
    int has = bt_node_tree_sleep_time(in, (int)n, &t);
    lr->describe.len = 0;
    lr->describe.err = 0;
    if (lr->describe.data) lr->describe.data[0] = 0;
    bt_node_describe(in, (int)n, &lr->describe);
    size_t len = lr->describe.err ? 0 : lr->describe.len;
    if (len > LOG_MAX_TEXT) len = LOG_MAX_TEXT;
    int form = has ? bti_sleep_form(t) : SLEEP_NONE;
    if (!room(e, 10 + 1 + 8 + 10)) return -1;
    e->len += bti_put_varint(end_of(e), bti_zigzag((int64_t)n - prev));
    bytes_of(e)[e->len++] = (unsigned char)form;
    e->len += bti_put_sleep(end_of(e), form, t);
    e->len += bti_put_varint(end_of(e), len);
    if (!put(e, lr->describe.data, len)) return -1;
    prev = (int)n;
    count++;
  }
  return count;
}

static void sink_saved(bti_sink *s, bt_inst *in, unsigned long long think, double time) {
  bti_logrec *lr = logrec_of(s);
  unsigned char *p = rec_room(lr, think, time, 1);
  if (p) {
    *p = REC_SAVED;
    lr->cur->b.len++;
  }
  if (!(lr->log->flags & BT_LOG_DBSTRINGS)) return;
  /* the DBStrings are gathered before the record is made: the host's describe may make records
   * of its own */
  bt_buf e = {0};
  int count = describe_running(lr, in, &e);
  size_t n = e.len;
  p = count >= 0 ? rec_room_bytes(lr, think, time, &n) : NULL;
  if (p && n == e.len) {
    unsigned char *q = p;
    *q++ = REC_DESCRIBE;
    q += bti_put_varint(q, (uint64_t)count);
    if (n) memcpy(q, bytes_of(&e), n);
    lr->cur->b.len += (size_t)(q - p) + n;
  } else if (p || count < 0) {
    lr->cur->lost++; /* too long, or no memory */
  }
  bt_buf_free(&e);
}

/* The tree was stopped: a STOP record (no bytes). */
static void sink_stopped(bti_sink *s, unsigned long long think, double time) {
  bti_logrec *lr = logrec_of(s);
  unsigned char *p = rec_room(lr, think, time, 1);
  if (!p) return;
  *p = REC_STOP;
  lr->cur->b.len++;
}

/* The recorder is attached to in: its records now name in's nodes. A SHAPE record says so, with
 * the statuses and last results of in that are not READY (it may have run before), and the
 * values of its keys that are set. */
static void sink_attached(bti_sink *s, bt_inst *in, unsigned long long think, double time) {
  bti_logrec *lr = logrec_of(s);
  bt_log *log = lr->log;
  const bt_def *def = in->def;
  uint64_t hash = bt_def_hash(def);
  if (!lr->has_shape || lr->shape != hash) {
    lock(log);
    if (!shape_known(log, hash)) {
      int ok = 1;
      if (log->nshapes == log->shapes_cap) {
        int cap = log->shapes_cap ? log->shapes_cap * 2 : 8;
        uint64_t *s = realloc(log->shapes, (size_t)cap * sizeof *s);
        if (s) {
          log->shapes = s;
          log->shapes_cap = cap;
        } else {
          ok = 0;
        }
      }
      if (ok && put_shape(&log->pending, def, hash)) {
        log->shapes[log->nshapes++] = hash;
        log->stats.shapes++;
      } else {
        fail(log, BT_ENOMEM, "%s", "out of memory: a shape could not be kept (its agents' records are lost)");
        unlock(log);
        lr->cur->lost++;
        lr->blind = 1;
        return;
      }
    }
    unlock(log);
    lr->shape = hash;
    lr->has_shape = 1;
  }
  lr->blind = 0;
  /* the record's bytes: the hash, the number of entries, the entries (made once the count is
   * known) */
  bt_buf e = {0};
  int count = 0, prev = 0, ok = 1;
  for (uint32_t n = 0; ok && n < def->nnodes; n++) {
    uint32_t st = def->nodes[n].state;
    if (def->states[st].node != n) continue; /* a shared node's first place stands for all */
    uint8_t s = *status_at(in, st), l = last_of(in, st);
    if (s == BT_READY && l == BT_READY) continue;
    ok = room(&e, 11);
    if (!ok) break;
    e.len += bti_put_varint(end_of(&e), bti_zigzag((int64_t)n - prev));
    bytes_of(&e)[e.len++] = (unsigned char)((s & 3) | (l & 3) << 2);
    prev = (int)n;
    count++;
  }
  /* then the keys that have a value: the key's difference from the previous one's, the value */
  int nvalues = 0, prev_key = 0, nkeys = bt_def_key_count(def);
  size_t values_at = e.len;
  for (int k = 0; ok && k < nkeys; k++) {
    bt_value v;
    if (bt_inst_key_get(in, k, &v) != 1) continue;
    ok = room(&e, 10 + value_room(&v));
    if (!ok) break;
    e.len += bti_put_varint(end_of(&e), (uint64_t)(k - prev_key));
    e.len += put_value_at(end_of(&e), &v);
    prev_key = k;
    nvalues++;
  }
  size_t n = e.len + 10;
  unsigned char *p = ok ? rec_room_bytes(lr, think, time, &n) : NULL;
  if (p && n == e.len + 10) {
    unsigned char *q = p;
    *q++ = REC_SHAPE;
    bti_put_u64(q, hash);
    q += 8;
    q += bti_put_varint(q, (uint64_t)count);
    if (values_at) memcpy(q, bytes_of(&e), values_at);
    q += values_at;
    q += bti_put_varint(q, (uint64_t)nvalues);
    n = e.len - values_at;
    if (n) memcpy(q, bytes_of(&e) + values_at, n);
    lr->cur->b.len += (size_t)(q - p) + n;
    lr->node = 0; /* node differences start again from the root */
  } else {
    if (p || !ok) lr->cur->lost++;
    lr->blind = 1;
  }
  bt_buf_free(&e);
}

/* ---- encoding a flush ---- */

/* The index of time t in the frame's table, added if new; -1 without memory. */
static long time_index(bt_log *log, double t) {
  uint64_t bits = bti_bits(t);
  if (log->ntimes && log->times[log->ntimes - 1] == bits) return (long)log->ntimes - 1;
  if (log->ntimes * 2 >= log->hcap) { /* grow the hash, and rehash the table */
    size_t cap = log->hcap ? log->hcap * 2 : 64;
    uint64_t *k = malloc(cap * sizeof *k);
    uint32_t *v = calloc(cap, sizeof *v);
    if (!k || !v || cap > UINT32_MAX) {
      free(k);
      free(v);
      return -1;
    }
    free(log->hkeys);
    free(log->hvals);
    log->hkeys = k;
    log->hvals = v;
    log->hcap = cap;
    for (size_t i = 0; i < log->ntimes; i++) {
      size_t j = (size_t)(log->times[i] * 0x9E3779B97F4A7C15ULL >> 20) & (cap - 1);
      while (v[j]) j = (j + 1) & (cap - 1);
      k[j] = log->times[i];
      v[j] = (uint32_t)i + 1;
    }
  }
  size_t j = (size_t)(bits * 0x9E3779B97F4A7C15ULL >> 20) & (log->hcap - 1);
  while (log->hvals[j]) {
    if (log->hkeys[j] == bits) return (long)log->hvals[j] - 1;
    j = (j + 1) & (log->hcap - 1);
  }
  if (log->ntimes == log->times_cap) {
    size_t cap = log->times_cap ? log->times_cap * 2 : 16;
    uint64_t *tt = realloc(log->times, cap * sizeof *tt);
    if (!tt) return -1;
    log->times = tt;
    log->times_cap = cap;
  }
  log->hkeys[j] = bits;
  log->hvals[j] = (uint32_t)log->ntimes + 1;
  log->times[log->ntimes] = bits;
  return (long)log->ntimes++;
}

static void times_clear(bt_log *log) {
  if (log->hvals && log->ntimes) memset(log->hvals, 0, log->hcap * sizeof *log->hvals);
  log->ntimes = 0;
}

/* Appends the frame block of the records encoded so far (the time table, then body) to out,
 * written in place. */
static int put_frame(bt_log *log) {
  if (!log->body.len) return 1;
  unsigned char head[22];
  size_t nt = bti_put_varint(head + 11, log->ntimes); /* the payload's first field, kept aside */
  size_t size = nt + 8 * log->ntimes + log->body.len;
  head[0] = BLOCK_FRAME;
  size_t h = 1 + bti_put_varint(head + 1, size);
  if (!room(&log->out, h + size + 4)) return 0;
  unsigned char *start = end_of(&log->out), *q = start;
  memcpy(q, head, h);
  memcpy(q + h, head + 11, nt);
  q += h + nt;
  for (size_t i = 0; i < log->ntimes; i++, q += 8) bti_put_u64(q, log->times[i]);
  memcpy(q, bytes_of(&log->body), log->body.len);
  q += log->body.len;
  uint32_t crc = bti_crc32(0, start, (size_t)(q - start));
  for (int i = 0; i < 4; i++) *q++ = (unsigned char)(crc >> (8 * i));
  log->out.len = (size_t)(q - bytes_of(&log->out));
  log->body.len = 0;
  log->prev_index = 0; /* agents' numbers start again in the next block */
  times_clear(log);
  return 1;
}

/* An agent's records in the body: the agent's number (as the difference from the previous one's
 * in the block, zigzag), their size, the records. A chunk is opened with one byte for its size,
 * and closed once its size is known (moving the records when the size takes more bytes). */
static int open_chunk(bt_log *log, int index) {
  if (!room(&log->body, 11)) return 0;
  log->body.len += bti_put_varint(end_of(&log->body), bti_zigzag((int64_t)index - log->prev_index));
  log->prev_index = index;
  log->chunk_at = log->body.len++;
  return 1;
}

static int close_chunk(bt_log *log) {
  size_t start = log->chunk_at + 1, size = log->body.len - start;
  if (size < 0x80) {
    bytes_of(&log->body)[log->chunk_at] = (unsigned char)size;
    return 1;
  }
  unsigned char v[10];
  size_t n = bti_put_varint(v, size);
  if (!room(&log->body, n - 1)) return 0;
  memmove(bytes_of(&log->body) + start + n - 1, bytes_of(&log->body) + start, size);
  memcpy(bytes_of(&log->body) + log->chunk_at, v, n);
  log->body.len += n - 1;
  return 1;
}

/* Appends a time marker to the body: the agent's next think (dthink 1) at a time of the table,
 * or any think difference and time. 0 without memory. */
static int put_time(bt_log *log, int64_t dthink, double time) {
  long i = time_index(log, time);
  if (i < 0 || !room(&log->body, 21)) return 0;
  unsigned char *p = end_of(&log->body), *q = p;
  if (dthink == 1 && i < REC_TIME_SHORT) {
    *q++ = (unsigned char)(REC_TIME + i);
  } else {
    *q++ = REC_TIME_ANY;
    q += bti_put_varint(q, bti_zigzag(dthink));
    q += bti_put_varint(q, (uint64_t)i);
  }
  log->body.len += (size_t)(q - p);
  return 1;
}

/* Appends a recorder's records (its spare) to the body, their time markers made from the frame's table;
 * a frame block ends at a mark once the body is large. 0 without memory. */
static int put_records(bt_log *log, const struct batched *a) {
  const pend *s = a->records;
  size_t at = 0;
  uint32_t next = s->first;
  int ok = open_chunk(log, a->index);
  while (ok && next != NO_MARK) {
    const unsigned char *m = bytes_of(&s->b) + next;
    ok = put(&log->body, bytes_of(&s->b) + at, next - at);
    if (ok && log->body.len > LOG_FRAME_SPLIT && log->body.len > log->chunk_at + 1)
      ok = close_chunk(log) && put_frame(log) && open_chunk(log, a->index);
    if (ok && m[0]) {
      int64_t dthink;
      double time;
      memcpy(&dthink, m + 5, 8);
      memcpy(&time, m + 13, 8);
      ok = put_time(log, dthink, time);
    }
    at = next + MARK_SIZE;
    memcpy(&next, m + 1, 4);
  }
  if (ok && s->b.len > at) ok = put(&log->body, bytes_of(&s->b) + at, s->b.len - at); /* (no bytes when
                                                                              every record was lost) */
  if (ok && s->lost) {
    unsigned char l[11];
    l[0] = REC_LOST;
    ok = put(&log->body, l, 1 + bti_put_varint(l + 1, s->lost));
  }
  return ok && close_chunk(log);
}

/* Encodes the batch (declarations, then each recorder's spare) into log->out. 0 without memory. */
static int encode_batch(bt_log *log) {
  log->out.len = 0;
  int ok = put(&log->out, bytes_of(&log->batch_pending), log->batch_pending.len) &&
           put(&log->out, bytes_of(&log->decl), log->decl.len);
  log->batch_pending.len = log->decl.len = 0;
  log->body.len = 0;
  log->prev_index = 0;
  times_clear(log);
  for (size_t i = 0; i < log->nbatch; i++) {
    pend *s = log->batch[i].records;
    ok = ok && put_records(log, &log->batch[i]);
    if (ok && log->body.len > LOG_FRAME_SPLIT) ok = put_frame(log);
    log->records += s->records;
    log->statuses += s->statuses;
    log->lost += s->lost;
    pend_clear(s);
  }
  ok = ok && put_frame(log);
  log->nbatch = 0;
  return ok;
}

/* Writes log->out; a failure stops the log's writes for good. */
static void write_out(bt_log *log) {
  if (!log->out.len || log->err == BT_EIO) return; /* (the end is written after a stop for memory) */
  int bad;
  if (log->file) {
    bad = fwrite(bytes_of(&log->out), 1, log->out.len, log->file) != log->out.len || fflush(log->file) != 0;
  } else {
    bad = log->write(log->ud, bytes_of(&log->out), log->out.len) != 0;
  }
  lock(log);
  if (bad) {
    log->err = 0; /* a write error is the one to report: the log's bytes end there */
    fail(log, BT_EIO, "cannot write the log: %s", log->file ? strerror(errno) : "the write function failed");
    log->stopped = 1;
  } else {
    log->stats.bytes += log->out.len;
  }
  unlock(log);
}

/* Encodes and writes the batch; the counts go to the stats. */
static void write_batch(bt_log *log) {
  log->records = log->statuses = log->lost = 0;
  int ok = encode_batch(log);
  lock(log);
  if (!ok) {
    fail(log, BT_ENOMEM, "%s", "out of memory: the log stopped at a flush (what it holds before stays readable)");
    log->stopped = 1;
  } else {
    log->stats.records += log->records;
    log->stats.statuses += log->statuses;
    log->stats.lost += log->lost;
  }
  unlock(log);
  if (ok) write_out(log);
}

#if BT_LOG_THREADS
static void writer_main(void *arg) {
  bt_log *log = arg;
  btp_mutex_lock(&log->mu);
  for (;;) {
    while (!log->busy && !log->stop) btp_cond_wait(&log->work, &log->mu);
    if (!log->busy) break;
    btp_mutex_unlock(&log->mu);
    write_batch(log);
    btp_mutex_lock(&log->mu);
    log->busy = 0;
    btp_cond_broadcast(&log->idle);
  }
  btp_mutex_unlock(&log->mu);
}

static void wait_idle(bt_log *log) { /* under the lock */
  while (log->busy) btp_cond_wait(&log->idle, &log->mu);
}

/* Makes the log's lock and conditions; BT_ENOMEM (none of them made) when the system has none. */
static int make_sync(bt_log *log) {
  if (btp_mutex_init(&log->mu) != BT_OK) return BT_ENOMEM;
  if (btp_cond_init(&log->work) != BT_OK) {
    btp_mutex_destroy(&log->mu);
    return BT_ENOMEM;
  }
  if (btp_cond_init(&log->idle) != BT_OK) {
    btp_cond_destroy(&log->work);
    btp_mutex_destroy(&log->mu);
    return BT_ENOMEM;
  }
  return BT_OK;
}

static void free_sync(bt_log *log) {
  btp_cond_destroy(&log->idle);
  btp_cond_destroy(&log->work);
  btp_mutex_destroy(&log->mu);
}
#else
static void wait_idle(bt_log *log) { (void)log; }
#endif

/* Makes the agent's declaration if it changed (under the lock). */
static int declare(bt_log *log, bti_logrec *lr) {
  if (lr->rec) {
    if (lr->index >= 0 && !lr->agent_changed) return 1; /* no bt_rec_set_agent since it was declared */
    const char *label = bt_rec_label(lr->rec);
    lr->want_id = bt_rec_agent(lr->rec);
    if (!lr->want_label || strcmp(lr->want_label, label) != 0) {
      char *copy = bti_strdup(label);
      if (!copy) return 0;
      free(lr->want_label);
      lr->want_label = copy;
    }
    lr->agent_changed = 0;
  }
  const char *want = lr->want_label ? lr->want_label : "";
  if (lr->index >= 0 && lr->id == lr->want_id && lr->label && strcmp(lr->label, want) == 0) return 1;
  char *copy = bti_strdup(want);
  if (!copy) return 0;
  if (lr->index < 0) lr->index = log->agents++;
  free(lr->label);
  lr->label = copy;
  lr->id = lr->want_id;
  size_t n = strlen(copy);
  bt_buf p = {0};
  int ok = put_varint(&p, (uint64_t)lr->index) && put_varint(&p, lr->id) && put_varint(&p, n) &&
           put(&p, copy, n) && put_block(&log->decl, BLOCK_AGENT, bytes_of(&p), p.len);
  bt_buf_free(&p);
  if (ok) log->stats.agents = log->agents;
  return ok;
}

static void logrec_free(bti_logrec *lr) {
  pend_free(&lr->buf[0]);
  pend_free(&lr->buf[1]);
  free(lr->label);
  free(lr->want_label);
  bt_buf_free(&lr->describe);
  btp_aligned_free(lr);
}

/* Frees the recorders that are gone and whose records were all written (under the lock, the
 * writer idle); there are some to look for only after a sink_release. */
static void sweep(bt_log *log) {
  if (!log->released) return;
  log->released = 0;
  bti_logrec **p = &log->first, *prev = NULL;
  while (*p) {
    bti_logrec *lr = *p;
    if (!lr->rec && !lr->cur->b.len && !lr->cur->lost && !lr->spare->b.len) {
      *p = lr->next;
      logrec_free(lr);
    } else {
      if (!lr->rec) log->released = 1; /* its records are written at this flush: freed at the next */
      prev = lr;
      p = &lr->next;
    }
  }
  log->last = prev;
}

int bt_log_flush(bt_log *log) {
  if (!log) return BT_EINVAL;
  lock(log);
  wait_idle(log);
  sweep(log);
  int stopped = log->stopped;
  int ok = 1;
  for (bti_logrec *lr = log->first; lr; lr = lr->next) {
    if (!lr->cur->b.len && !lr->cur->lost) continue;
    pend *t = lr->cur;
    lr->cur = lr->spare;
    lr->spare = t;
    if (stopped) { /* nothing more is written: drop them */
      pend_clear(lr->spare);
      continue;
    }
    if (ok && log->nbatch == log->batch_cap) {
      size_t cap = log->batch_cap ? log->batch_cap * 2 : 64;
      struct batched *b = realloc(log->batch, cap * sizeof *b);
      if (b) {
        log->batch = b;
        log->batch_cap = cap;
      } else {
        ok = 0;
      }
    }
    ok = ok && declare(log, lr);
    if (ok) log->batch[log->nbatch++] = (struct batched){lr->spare, lr->index};
    else pend_clear(lr->spare);
  }
  bt_buf t = log->batch_pending;
  log->batch_pending = log->pending;
  log->pending = t;
  log->pending.len = 0;
  if (!ok) { /* out of memory: the log stops (an agent's next records could not be read without these) */
    fail(log, BT_ENOMEM, "%s", "out of memory: the log stopped at a flush (what it holds before stays readable)");
    log->stopped = stopped = 1;
    for (size_t i = 0; i < log->nbatch; i++) pend_clear(log->batch[i].records);
    log->nbatch = 0;
  }
  int rc = log->err;
  if (stopped) {
    log->batch_pending.len = log->decl.len = 0;
    unlock(log);
    return rc;
  }
#if BT_LOG_THREADS
  if (log->threaded) {
    log->busy = 1;
    btp_cond_signal(&log->work);
    unlock(log);
    return rc;
  }
#endif
  unlock(log);
  write_batch(log);
  return log->err;
}

int bt_log_write_host(bt_log *log, double time, int code, const void *data, size_t size) {
  if (!log || (!data && size) || size > LOG_MAX_TEXT) return BT_EINVAL;
  bt_buf p = {0};
  unsigned char t[8];
  bti_put_u64(t, bti_bits(time));
  int ok = put(&p, t, 8) && put_varint(&p, bti_zigzag(code)) && put_varint(&p, size) &&
           put(&p, data, size);
  lock(log);
  ok = ok && put_block(&log->pending, BLOCK_WORLD, bytes_of(&p), p.len);
  unlock(log);
  bt_buf_free(&p);
  return ok ? BT_OK : BT_ENOMEM;
}

/* ---- recorders and logs ---- */

/* The recorder goes (freed, or to another log): its records not yet written still will be, under
 * the id and label it has now. */
static void sink_release(bti_sink *s) {
  bti_logrec *lr = logrec_of(s);
  bt_log *log = lr->log;
  bt_rec *rec = lr->rec;
  char *label = bti_strdup(bt_rec_label(rec));
  lock(log);
  lr->want_id = bt_rec_agent(rec);
  if (label) {
    free(lr->want_label);
    lr->want_label = label;
  }
  lr->rec = NULL;
  log->released = 1;
  unlock(log);
}

static void sink_agent_changed(bti_sink *s) { logrec_of(s)->agent_changed = 1; }

static const bti_sink_methods log_sink = {
  .record = sink_record,
  .entry = sink_entry,
  .attached = sink_attached,
  .saved = sink_saved,
  .stopped = sink_stopped,
  .agent_changed = sink_agent_changed,
  .release = sink_release,
};

int bt_rec_set_log(bt_rec *rec, bt_log *log) {
#if !BT_RECORDER
  (void)log;
  return rec ? BT_EINVAL : BT_EINVAL;
#else
  if (!rec) return BT_EINVAL;
  bti_sink *old = bti_rec_sink_find(rec, &log_sink);
  if (old && logrec_of(old)->log == log) return BT_OK;
  if (!old && !log) return BT_OK;
  bti_logrec *lr = NULL;
  if (log) {
    lr = btp_aligned_alloc(_Alignof(bti_logrec), sizeof *lr);
    if (!lr) return BT_ENOMEM;
    memset(lr, 0, sizeof *lr);
    lr->sink.methods = &log_sink;
    lr->log = log;
    lr->rec = rec;
    lr->index = -1;
    lr->cur = &lr->buf[0];
    lr->spare = &lr->buf[1];
    pend_clear(lr->cur);
    pend_clear(lr->spare);
  }
  if (old) {
    bti_rec_sink_remove(rec, old);
    sink_release(old);
  }
  if (!lr) return BT_OK;
  lock(log);
  if (log->last) log->last->next = lr;
  else log->first = lr;
  log->last = lr;
  unlock(log);
  bti_rec_sink_add(rec, &lr->sink); /* (which tells it the instance) */
  return BT_OK;
#endif
}

bt_log *bt_rec_log(const bt_rec *rec) {
  bti_sink *s = bti_rec_sink_find(rec, &log_sink);
  return s ? logrec_of(s)->log : NULL;
}

/* Puts the message into err (errsize bytes; err may be NULL) and returns code. */
static int open_error(char *err, size_t errsize, int code, const char *msg) {
  if (err && errsize) snprintf(err, errsize, "%s", msg);
  return code;
}

static int open_log(bt_log **out, FILE *file, bt_log_write_fn fn, void *ud, unsigned flags, char *err,
                    size_t errsize) {
  bt_log *log = calloc(1, sizeof *log);
  if (!log) return open_error(err, errsize, BT_ENOMEM, "out of memory");
  log->flags = flags;
  log->file = file;
  log->write = fn;
  log->ud = ud;
#if BT_LOG_THREADS
  if (make_sync(log) != BT_OK) {
    free(log);
    return open_error(err, errsize, BT_ENOMEM, "cannot make the log's lock");
  }
  if (flags & BT_LOG_THREAD) {
    if (btp_thread_create(&log->thread, writer_main, log) != BT_OK) {
      free_sync(log);
      free(log);
      return open_error(err, errsize, BT_ENOMEM, "cannot start the log's thread");
    }
    log->threaded = 1;
  }
#endif
  unsigned char head[LOG_HEADER_SIZE] = {0};
  memcpy(head, LOG_MAGIC, LOG_MAGIC_SIZE);
  head[8] = LOG_VERSION;
  head[10] = LOG_MINOR;
  head[9] = (unsigned char)(flags & BT_LOG_DBSTRINGS);
  uint32_t crc = bti_crc32(0, head, 12);
  for (int i = 0; i < 4; i++) head[12 + i] = (unsigned char)(crc >> (8 * i));
  put(&log->out, head, sizeof head);
  write_out(log);
  log->out.len = 0;
  if (log->err) {
    if (err && errsize) snprintf(err, errsize, "%s", log->errmsg);
    int rc = log->err;
    log->file = NULL; /* the caller's (bt_log_create closes it) */
    bt_log_free(log);
    return rc;
  }
  *out = log;
  return BT_OK;
}

int bt_log_create_fn(bt_log **out, bt_log_write_fn fn, void *ud, unsigned flags, char *err, size_t errsize) {
  if (err && errsize) err[0] = 0;
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!fn || (flags & ~(unsigned)(BT_LOG_DBSTRINGS | BT_LOG_THREAD)) || (!BT_LOG_THREADS && (flags & BT_LOG_THREAD))) {
    if (err && errsize) snprintf(err, errsize, "%s", !fn ? "no write function" : "unknown flags");
    return BT_EINVAL;
  }
  return open_log(out, NULL, fn, ud, flags, err, errsize);
}

int bt_log_create(bt_log **out, const char *path, unsigned flags, char *err, size_t errsize) {
  if (err && errsize) err[0] = 0;
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!path || (flags & ~(unsigned)(BT_LOG_DBSTRINGS | BT_LOG_THREAD)) || (!BT_LOG_THREADS && (flags & BT_LOG_THREAD))) {
    if (err && errsize) snprintf(err, errsize, "%s", !path ? "no path" : "unknown flags");
    return BT_EINVAL;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    if (err && errsize) snprintf(err, errsize, "cannot create %s: %s", path, strerror(errno));
    return BT_EIO;
  }
  int rc = open_log(out, f, NULL, NULL, flags, err, errsize);
  if (rc != BT_OK) fclose(f);
  return rc;
}

int bt_log_free(bt_log *log) {
  if (!log) return BT_OK;
  bt_log_flush(log);
  lock(log);
  wait_idle(log);
#if BT_LOG_THREADS
  if (log->threaded) {
    log->stop = 1;
    btp_cond_signal(&log->work);
    unlock(log);
    btp_thread_join(&log->thread);
    lock(log);
  }
#endif
  for (bti_logrec *lr = log->first, *next; lr; lr = next) {
    next = lr->next;
    if (lr->rec) bti_rec_sink_remove(lr->rec, &lr->sink);
    logrec_free(lr);
  }
  unlock(log);
  if (log->err != BT_EIO) { /* the end: the records written */
    unsigned char p[10];
    log->out.len = 0;
    if (put_block(&log->out, BLOCK_END, p, bti_put_varint(p, log->stats.records))) write_out(log);
  }
  int rc = log->err;
  if (log->file && fclose(log->file) != 0 && !rc) {
    rc = fail(log, BT_EIO, "cannot close the log: %s", strerror(errno));
  }
#if BT_LOG_THREADS
  free_sync(log);
#endif
  bt_buf_free(&log->pending);
  bt_buf_free(&log->batch_pending);
  bt_buf_free(&log->decl);
  bt_buf_free(&log->out);
  bt_buf_free(&log->body);
  free(log->batch);
  free(log->shapes);
  free(log->times);
  free(log->hkeys);
  free(log->hvals);
  free(log);
  return rc;
}

const char *bt_log_errmsg(const bt_log *log) { return log ? log->errmsg : ""; }

void bt_log_stats_get(bt_log *log, bt_log_stats *out) {
  if (!log || !out) return;
  lock(log);
  *out = log->stats;
  unlock(log);
}
