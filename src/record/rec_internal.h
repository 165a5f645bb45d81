/* SPDX-License-Identifier: MIT */
/*
 * rec_internal.h: what the files of the recording layer (src/record) share, and the schedulers'
 * way to give their brains recorders; never installed. Names carry the prefix bti_ and are hidden.
 *
 *   ring.c     the ring of records, kept compactly: a recorder's, and the viewer's histories
 *              (compiled into rec.c, which includes it)
 *   rec.c      the recorder: the engine's hook, its ring, the callback, and the sinks it feeds
 *   stats.c    the statistics: a sink
 *   log.c      the log file's writer: a sink, a buffer per recorder
 *   attach.c   the recorders bt makes: a definition's for each instance, a scheduler's
 *   logread.c  the log file's reader; logtree.c an agent's tree replayed from its records
 *
 * Each calls only files listed before it (and logcrc.c, the blocks' CRC, beneath them all): the
 * sinks call the recorder, and rec.c, which names none of them, calls them through their
 * bti_sink_methods. The viewer (src/view) keeps its agents' histories in the ring too: libbtview
 * holds its own copy of ring.c's object, whose names the core's libraries make local.
 */
#ifndef BT_REC_INTERNAL_H
#define BT_REC_INTERNAL_H

#include "bt_record.h"
#include "internal.h"

/* BT_RECORDER 0 (cmake -DBT_RECORDER=OFF, which also compiles the engine's hook out: BT_HOOKS 0)
 * leaves the recorder out: attaching one fails. */
#ifndef BT_RECORDER
#define BT_RECORDER BT_HOOKS
#endif

/* ---- the ring (ring.c): bt's one ring of records ----
 * A ring keeps the newest `cap` records; each goes in as a bt_rec_entry and comes out as one (bt's
 * one record type): how a record is kept is ring.c's alone, 16 bytes for the records a think makes
 * (statuses, events, its THINK), the others (errors, reloads, host's records, keys' writes) whole
 * beside it with a copy of their text. A recorder
 * fills its ring with the think path's functions, records numbered from its think (think, now);
 * the viewer with bti_ring_push, which keeps any record as it is. Not both in one ring. */
typedef struct bti_ring {
  struct bti_slot *slots;
  uint32_t cap, head, count; /* records at most, where the next goes, records now */
  uint32_t nextra;           /* records kept whole beside their slot */
  unsigned long long think;  /* the newest think number: a slot keeps the low bits of its own */
  double now;                /* the time of the think under way: its records keep none */
} bti_ring;

#define BTI_RING_MAX UINT32_MAX /* records a ring can hold */

/* An empty ring of cap records (0: none yet): BT_OK; BT_EINVAL when cap > BTI_RING_MAX,
 * BT_ENOMEM (then it holds none, and bti_ring_fini is still right). */
BTI_FUNC int bti_ring_init(bti_ring *r, size_t cap);
/* Room for cap records, the records kept: BT_OK (also when it had that room), BT_EINVAL when cap >
 * BTI_RING_MAX, BT_ENOMEM (the ring as it was). */
BTI_FUNC int bti_ring_reserve(bti_ring *r, size_t cap);
/* Empties it (think and now stay). */
BTI_FUNC void bti_ring_clear(bti_ring *r);
/* Frees what it holds; it is an empty ring of no room after. */
BTI_FUNC void bti_ring_fini(bti_ring *r);
/* Copies the i-th record, 0 the oldest; its text stays valid until the record leaves the ring.
 * BT_EINVAL when out is NULL or i >= count. */
BTI_FUNC int bti_ring_get(const bti_ring *r, size_t i, bt_rec_entry *out);

/* The think path's records, into a ring of some room (cap > 0), the oldest leaving when it is
 * full: numbered by the think under way (think), made inside it (their time is its, now). */
BTI_FUNC void bti_ring_prefetch(const bti_ring *r); /* the next record's slot, fetched ahead */
BTI_FUNC void bti_ring_put_status(bti_ring *r, int node, int from, int to);
/* the THINK of the think under way, its sleep time kept as a float */
BTI_FUNC void bti_ring_put_think(bti_ring *r, int cause, int has_sleep, double sleep);
/* a STATUS, EVENT or THINK record as the think path keeps it: a THINK's sleep time as a float,
 * in_think: made inside the think under way (its time then is its THINK's) */
BTI_FUNC void bti_ring_put(bti_ring *r, const bt_rec_entry *e, int in_think);
/* A record with bytes (ERROR, HOST, KEY) or a RELOAD, in two steps so that the callback and the sinks
 * see the ring's copy of the bytes: the copy (NUL-terminated; NULL: out of memory), then the
 * record, whose text, if any, is the copy's (the ring takes x). */
typedef struct bti_ring_bytes bti_ring_bytes;
BTI_FUNC bti_ring_bytes *bti_ring_bytes_new(const void *data, size_t size);
BTI_FUNC const char *bti_ring_bytes_text(const bti_ring_bytes *x);
BTI_FUNC void bti_ring_put_bytes(bti_ring *r, bti_ring_bytes *x, const bt_rec_entry *e);
/* A KEY record's string values pointed into its text (before's bytes first, then after's): what
 * a copy of a record's text calls for. */
BTI_FUNC void bti_rec_key_strings(bt_rec_entry *e);

/* Any record, kept exactly as it is (its text copied), into a ring of some room, the oldest
 * leaving when it is full: *left is that one (its text no longer kept: NULL), or of type 0 when
 * none left; left may be NULL. BT_OK; BT_EINVAL when the ring has no room or e is NULL,
 * BT_ENOMEM (the ring as it was, *left of type 0). */
BTI_FUNC int bti_ring_push(bti_ring *r, const bt_rec_entry *e, bt_rec_entry *left);

/* ---- sinks: what a recorder feeds besides its ring and its callback ----
 * A sink is a struct of its own holding a bti_sink; the recorder keeps a list of them and calls
 * each through its methods, in the order they were added. */
typedef struct bti_sink bti_sink;
typedef struct bti_sink_methods {
  /* A STATUS, THINK or EVENT record in the think path's form: a is STATUS's from | to << 4,
   * THINK's cause; b is THINK's has_sleep. NULL: the sink takes every record through entry, and
   * the recorder makes a bt_rec_entry of each. */
  void (*record)(bti_sink *s, int type, unsigned a, unsigned b, int node, unsigned long long think,
                 double time, double sleep);
  /* Any record, as a bt_rec_entry; in is the recorder's instance (NULL after it left it). */
  void (*entry)(bti_sink *s, const bt_inst *in, const bt_rec_entry *e);
  /* The recorder watches in (set, or the sink added to a recorder that does). May be NULL. */
  void (*attached)(bti_sink *s, bt_inst *in, unsigned long long think, double time);
  /* A think saved its statuses (SaveStatus), in think. May be NULL. */
  void (*saved)(bti_sink *s, bt_inst *in, unsigned long long think, double time);
  /* The instance's tree was stopped. May be NULL. */
  void (*stopped)(bti_sink *s, unsigned long long think, double time);
  /* The recorder left its instance. May be NULL. */
  void (*detached)(bti_sink *s);
  /* bt_rec_set_agent was called. May be NULL. */
  void (*agent_changed)(bti_sink *s);
  /* The recorder is freed, after taking the sink off its list: the sink lets it go. */
  void (*release)(bti_sink *s);
} bti_sink_methods;

struct bti_sink {
  const bti_sink_methods *methods;
  bti_sink *next;
};

/* Adds s to rec's sinks, last, and tells it the instance rec watches, if any (attached). */
BTI_FUNC void bti_rec_sink_add(bt_rec *rec, bti_sink *s);
/* Takes s off rec's sinks (release is not called). */
BTI_FUNC void bti_rec_sink_remove(bt_rec *rec, bti_sink *s);
/* rec's first sink with these methods, or NULL. */
BTI_FUNC bti_sink *bti_rec_sink_find(const bt_rec *rec, const bti_sink_methods *m);
/* rec is bt's (a definition's, a scheduler's): its instance frees it when they part. */
BTI_FUNC void bti_rec_set_owned(bt_rec *rec);
BTI_FUNC int bti_rec_owned(const bt_rec *rec); /* made by bt (a definition, a scheduler), not the host */

/* attach.c: unless inst has a recorder already, a recorder made with o, of the host's agent id,
 * that inst owns (bt_inst_fini and detaching free it). BT_ENOMEM, BT_EINVAL when compiled out. */
BTI_FUNC int bti_rec_attach_new(bt_inst *in, const bt_rec_options *o, unsigned long long agent);

#endif
