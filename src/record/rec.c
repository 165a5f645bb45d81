/* SPDX-License-Identifier: MIT */
/*
 * rec.c: the transition recorder (bt.h "the transition recorder"). An instance's header has one
 * bit, `recording` (it stays 32 bytes); the recorder itself is a pointer in the instance's
 * bti_ext (internal.h), which an instance that never records does not have, read only when the
 * bit is set. No state outside the instances: two threads may record two instances at once.
 *
 * It keeps its records in a ring (ring.c, bt's one: 16 bytes a record a think makes), which it
 * fills with the think path's functions; its think number and the clock of the think under way
 * are the ring's (ring.think, ring.now), from which the ring numbers and times the records made
 * inside a think. The recorder is the instance's hook
 * (bt_inst_set_hook): the engine tells it everything it records, a think's end with its sleep
 * time, so that a think's record is complete when the think ends and reading never writes. It
 * feeds its sinks (the log, the statistics: rec_internal.h) through their methods, naming none.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "btp.h"
#include "rec_internal.h"
#include "ring.c" /* the ring (rec_internal.h), compiled with the recorder: its think path inline */

/* the bit `recording` took no room: a small tree's instance stays as small */
_Static_assert(sizeof(void *) != 8 || sizeof(bt_inst) == 32, "bt_inst's header is 32 bytes");

struct bt_rec {
  /* what a think reads and writes, in one cache line */
  bti_ring ring;     /* its records (at most 2^21); ring.think is its think number, ring.now the
                        clock of the think under way, or of the last one */
  unsigned long long total;
  bti_sink *sinks;   /* what it feeds: its log, its statistics (in the order they were added) */
  uint8_t entries;   /* a callback or a sink takes each record as a bt_rec_entry */
  uint8_t cause;     /* what will make the next think (BT_WAKE_*) */
  uint8_t in_think;  /* between the think's BEGIN and END */
  uint8_t owned;     /* made by the instance's definition (bt_def_set_recording): its instance frees it */
  uint8_t keep_dbstrings; /* bt_rec_keep_dbstrings */
  uint8_t saves;     /* a think's SaveStatus is wanted: keep_dbstrings, or a sink's `saved` */
  /* the rest */
  bt_inst *inst;
  bt_def *def;         /* the definition of the instance it watches or last watched (retained) */
  bt_buf dbstrings;    /* the last think's DBStrings of its running nodes, each ended by a 0 */
  uint32_t *dbstring_at; /* by node: 1 + its offset in dbstrings, or 0: none */
  uint32_t dbstring_nodes;
  bt_rec_fn fn;
  void *ud;
  unsigned long long agent;
  char *label;
};

_Static_assert(sizeof(void *) != 8 || offsetof(bt_rec, inst) <= 64, "a think reads one cache line of its recorder");

/* Whether a callback or a sink takes each record as a bt_rec_entry, and whether a think's
 * SaveStatus is wanted. */
static void entries_update(bt_rec *r) {
  r->entries = r->fn != NULL;
  r->saves = r->keep_dbstrings;
  for (const bti_sink *s = r->sinks; s; s = s->next) {
    if (!s->methods->record) r->entries = 1;
    if (s->methods->saved) r->saves = 1;
  }
}

void bti_rec_sink_add(bt_rec *r, bti_sink *s) {
  bti_sink **p = &r->sinks;
  while (*p) p = &(*p)->next;
  s->next = NULL;
  *p = s;
  entries_update(r);
  if (r->inst && s->methods->attached) s->methods->attached(s, r->inst, r->ring.think, bti_now(r->inst));
}

void bti_rec_sink_remove(bt_rec *r, bti_sink *s) {
  for (bti_sink **p = &r->sinks; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      s->next = NULL;
      break;
    }
  entries_update(r);
}

bti_sink *bti_rec_sink_find(const bt_rec *r, const bti_sink_methods *m) {
  bti_sink *s = r ? r->sinks : NULL;
  while (s && s->methods != m) s = s->next;
  return s;
}

void bti_rec_set_owned(bt_rec *r) { r->owned = 1; }
int bti_rec_owned(const bt_rec *r) { return r && r->owned; }

#if BT_RECORDER

/* A STATUS, THINK or EVENT record to every sink of two or more (sinks_record). */
static BTI_NOINLINE void sinks_record_all(bt_rec *r, int type, unsigned a, unsigned b, int node, double time,
                                          double sleep) {
  for (bti_sink *s = r->sinks; s; s = s->next) s->methods->record(s, type, a, b, node, r->ring.think, time, sleep);
}

/* A STATUS, THINK or EVENT record to every sink, in the think path's form (no sink wants entries):
 * the one sink a recorder most often has is called straight. BT_OK, the hook's result. */
static int sinks_record(bt_rec *r, int type, unsigned a, unsigned b, int node, double time, double sleep) {
  bti_sink *s = r->sinks;
  if (__builtin_expect(!s->next, 1)) s->methods->record(s, type, a, b, node, r->ring.think, time, sleep);
  else sinks_record_all(r, type, a, b, node, time, sleep);
  return BT_OK;
}

static void sinks_entry(bt_rec *r, const bt_inst *in, const bt_rec_entry *e) {
  for (bti_sink *s = r->sinks; s; s = s->next) s->methods->entry(s, in, e);
}

static int rec_hook(void *ud, bt_inst *in, const bt_hook_msg *m);

/* The instance's recorder (its hook, when the hook is a recorder's), NULL if none. */
static bt_rec *rec_of(const bt_inst *in) {
  void *ud;
  return bt_inst_hook(in, &ud) == rec_hook ? ud : NULL;
}

/* Files a STATUS, EVENT or THINK record: to the callback, the sinks, and into the ring.
 * in_think: made inside a think, so its time is the think's (a THINK keeps its own). */
static void put(bt_rec *r, const bt_rec_entry *e, int in_think) {
  r->total++;
  if (r->fn) r->fn(r->ud, e);
  sinks_entry(r, r->inst, e);
  if (r->ring.cap) bti_ring_put(&r->ring, e, in_think);
}

/* A think's record for a callback or a sink that takes entries. */
static BTI_NOINLINE void think_slow(bt_rec *r, int cause, int has_sleep, double sleep) {
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_THINK;
  e.cause = (unsigned char)cause;
  e.has_sleep = (unsigned char)(has_sleep != 0);
  e.sleep = has_sleep ? sleep : 0;
  e.node = -1;
  e.think = r->ring.think;
  e.time = r->ring.now;
  put(r, &e, 0);
}

/* A think ended: its record, with its sleep time. The common case (no callback, no sink that
 * takes entries) makes no bt_rec_entry, and calls nothing but the sinks, last. BT_OK, the hook's
 * result. */
static BTI_NOINLINE int think_end(bt_rec *r, int has_sleep, double sleep) {
  int cause = r->cause;
  r->in_think = 0;
  r->cause = BT_WAKE_DEADLINE;
  if (__builtin_expect(r->entries, 0)) {
    think_slow(r, cause, has_sleep, sleep);
    return BT_OK;
  }
  r->total++;
  if (r->ring.cap) bti_ring_put_think(&r->ring, cause, has_sleep, sleep);
  if (!r->sinks) return BT_OK;
  return sinks_record(r, BT_REC_THINK, (unsigned)cause, has_sleep != 0, -1, r->ring.now, has_sleep ? sleep : 0);
}

/* A status change that needs a bt_rec_entry (a callback or a sink that takes entries), or made outside
 * a think. */
static BTI_NOINLINE int status_slow(bt_inst *in, bt_rec *r, int node, int from, int to) {
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_STATUS;
  e.from = (unsigned char)from;
  e.to = (unsigned char)to;
  e.node = node;
  e.think = r->ring.think;
  e.time = r->in_think ? r->ring.now : bti_now(in);
  put(r, &e, r->in_think);
  return BT_OK;
}

/* The common case, inside a think, into a ring and/or sinks: no bt_rec_entry is made, and no
 * call but the sinks', last. (Inlined in rec_hook, its one caller.) */
static int status(bt_inst *in, bt_rec *r, int node, int from, int to) {
  if (__builtin_expect(!r->in_think || r->entries, 0)) return status_slow(in, r, node, from, to);
  r->total++;
  if (r->ring.cap) bti_ring_put_status(&r->ring, node, from, to);
  if (!r->sinks) return BT_OK;
  return sinks_record(r, BT_REC_STATUS, (unsigned)(from | to << 4), 0, node, r->ring.now, 0);
}

static void event(bt_inst *in, bt_rec *r, int n) {
  if (r->cause != BT_WAKE_START && r->cause != BT_WAKE_RELOAD) r->cause = BT_WAKE_EVENT;
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_EVENT;
  e.node = n;
  e.think = r->ring.think;
  e.time = r->in_think ? r->ring.now : bti_now(in);
  put(r, &e, r->in_think);
}

/* A think begins: BT_OK, the hook's result. */
static BTI_NOINLINE int think_begin(bt_inst *in, bt_rec *r) {
  r->ring.think++;
  r->in_think = 1;
  r->ring.now = bti_now(in);
  /* the think's records go there: fetched while the tree works (cold since the last) */
  if (r->ring.cap) bti_ring_prefetch(&r->ring);
  return BT_OK;
}

/* The ring's copy of a record's bytes (NULL and *failed when out of memory; NULL when the
 * recorder keeps no ring: the callback sees the caller's bytes). */
static bti_ring_bytes *extra_new(const bt_rec *r, const void *data, size_t size, int *failed) {
  *failed = 0;
  if (!r->ring.cap) return NULL;
  bti_ring_bytes *x = bti_ring_bytes_new(data, size);
  *failed = x == NULL;
  return x;
}

/* ERROR, RELOAD, HOST and KEY records: to the callback and the sinks, then into the ring with x. */
static void put_extra(bt_rec *r, bt_inst *in, bt_rec_entry *e, bti_ring_bytes *x) {
  e->think = r->ring.think;
  e->time = r->in_think ? r->ring.now : bti_now(in);
  r->total++;
  if (r->fn) r->fn(r->ud, e);
  sinks_entry(r, in, e);
  if (x) bti_ring_put_bytes(&r->ring, x, e);
}

static void reload(bt_inst *in, bt_rec *r, const bt_def *from) {
  int failed;
  bti_ring_bytes *x = extra_new(r, NULL, 0, &failed);
  if (failed) return; /* out of memory: the reload goes on unrecorded */
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_RELOAD;
  e.node = -1;
  e.def_from = bt_def_hash(from);
  e.def_to = bt_def_hash(bt_inst_def(in));
  put_extra(r, in, &e, x);
  if (r->ring.think) r->cause = BT_WAKE_RELOAD; /* the first think the recorder sees stays its start */
}

static int record_bytes(bt_inst *in, bt_rec *r, int type, int node, const void *data, size_t size) {
  int failed;
  bti_ring_bytes *x = extra_new(r, data, size, &failed);
  if (failed) return BT_ENOMEM;
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = (unsigned char)type;
  e.node = node;
  e.text = x ? bti_ring_bytes_text(x) : data ? data : "";
  e.size = size;
  put_extra(r, in, &e, x);
  return BT_OK;
}

/* A key was written: its record, with its values before and after; a string's bytes are copied
 * into the record's text (the engine's live only during the call). A write that woke the
 * instance is the cause of its next think. BT_OK, or BT_ENOMEM (the write goes unrecorded). */
static int key_written(bt_inst *in, bt_rec *r, const bt_hook_msg *m) {
  if (m->from && r->cause != BT_WAKE_START && r->cause != BT_WAKE_RELOAD) r->cause = BT_WAKE_KEY;
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_KEY;
  e.node = m->node;
  e.from = m->from != 0;
  e.before = *m->before;
  e.after = *m->after;
  const char *strings[2] = {e.before.type == BT_KEY_STRING ? e.before.as.string : NULL,
                            e.after.type == BT_KEY_STRING ? e.after.as.string : NULL};
  size_t len[2] = {strings[0] ? strlen(strings[0]) + 1 : 0, strings[1] ? strlen(strings[1]) + 1 : 0};
  char small[256], *text = NULL;
  e.size = len[0] + len[1];
  if (e.size) { /* both strings in one text, as a record keeps them */
    text = e.size <= sizeof small ? small : malloc(e.size);
    if (!text) return BT_ENOMEM;
    if (len[0]) memcpy(text, strings[0], len[0]);
    if (len[1]) memcpy(text + len[0], strings[1], len[1]);
  }
  int failed;
  bti_ring_bytes *x = extra_new(r, text, e.size, &failed);
  if (!failed) {
    e.text = x ? bti_ring_bytes_text(x) : text;
    bti_rec_key_strings(&e);
    put_extra(r, in, &e, x);
  }
  if (text != small) free(text);
  return failed ? BT_ENOMEM : BT_OK;
}

/* The DBStrings of in's running nodes, now (inside its think). Without memory, those not kept
 * read as NULL. */
static void keep_dbstrings(bt_rec *r, bt_inst *in) {
  uint32_t n = (uint32_t)bt_def_size(bt_inst_def(in));
  if (r->dbstring_nodes != n) {
    uint32_t *at = realloc(r->dbstring_at, n * sizeof *at);
    if (!at) return;
    r->dbstring_at = at;
    r->dbstring_nodes = n;
  }
  memset(r->dbstring_at, 0, n * sizeof *r->dbstring_at);
  r->dbstrings.len = 0;
  r->dbstrings.err = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (bt_node_status(in, (int)i) != BT_RUNNING) continue;
    size_t start = r->dbstrings.len;
    if (start > UINT32_MAX - 1) break;
    bt_node_describe(in, (int)i, &r->dbstrings);
    if (r->dbstrings.err || bt_buf_append(&r->dbstrings, "", 1) != BT_OK) break;
    r->dbstring_at[i] = (uint32_t)start + 1;
  }
}

/* A think saved its statuses: BT_OK, the hook's result. */
static BTI_NOINLINE int saved(bt_inst *in, bt_rec *r) {
  if (r->keep_dbstrings) keep_dbstrings(r, in);
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->saved) s->methods->saved(s, in, r->ring.think, r->ring.now);
  return BT_OK;
}

/* A stop is no record of the ring's: the sinks are told (a log keeps it, since a reader of the
 * log cannot tell it from the records: a stopped tree keeps its statuses, and a sleeping one makes
 * no record either). */
static void stopped(bt_inst *in, bt_rec *r) {
  double now = r->in_think ? r->ring.now : bti_now(in);
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->stopped) s->methods->stopped(s, r->ring.think, now);
}

/* The recorder watches in now: its sinks are told, and it keeps in's definition. */
static void watch(bt_rec *r, bt_inst *in) {
  r->inst = in;
  r->cause = BT_WAKE_START;
  bt_def *def = (bt_def *)(uintptr_t)bt_inst_def(in);
  bt_def_retain(def);
  bt_def_release(r->def);
  r->def = def;
  double now = bti_now(in);
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->attached) s->methods->attached(s, in, r->ring.think, now);
}

/* The hook moved to in from the instance it watched, which the agent's new one replaces: as if
 * detached from that one and attached to in, but never freed. */
static void moved(bt_inst *in, bt_rec *r) {
  r->in_think = 0;
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->detached) s->methods->detached(s);
  watch(r, in);
}

/* The instance let the recorder go (another hook, bt_inst_fini): one the instance owns is freed. */
static void detached(bt_rec *r) {
  r->in_think = 0;
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->detached) s->methods->detached(s);
  r->inst = NULL;
  if (r->owned) bt_rec_free(r);
}

/* The engine's messages that a think does not send (rec_hook). */
static BTI_NOINLINE int hook_other(bt_rec *r, bt_inst *in, const bt_hook_msg *m) {
  switch (m->what) {
  case BT_HOOK_STATUS: /* rec_hook's own */
  case BT_HOOK_BEGIN:
  case BT_HOOK_END:
  case BT_HOOK_SAVED: break;
  case BT_HOOK_EVENT: event(in, r, m->node); break;
  case BT_HOOK_FORCE:
    if (r->cause != BT_WAKE_START && r->cause != BT_WAKE_RELOAD) r->cause = BT_WAKE_FORCE;
    break;
  case BT_HOOK_STOP: stopped(in, r); break;
  case BT_HOOK_RELOAD: reload(in, r, m->def); break;
  case BT_HOOK_ERROR: return record_bytes(in, r, BT_REC_ERROR, m->node, m->data, m->size);
  case BT_HOOK_HOST: return record_bytes(in, r, BT_REC_HOST, m->node, m->data, m->size);
  case BT_HOOK_DETACH: detached(r); break;
  case BT_HOOK_MOVE: moved(in, r); break;
  case BT_HOOK_KEY: return key_written(in, r, m);
  }
  return BT_OK;
}

/* The engine's hook: everything the recorder records comes through here. A status change, the
 * message a think sends most, goes straight to its record; a think's other messages each to a
 * function of their own, the rest to hook_other. */
static int rec_hook(void *ud, bt_inst *in, const bt_hook_msg *m) {
  bt_rec *r = ud;
  if (__builtin_expect(m->what == BT_HOOK_STATUS, 1)) return status(in, r, m->node, m->from, m->to);
  switch (m->what) {
  case BT_HOOK_BEGIN: return think_begin(in, r);
  case BT_HOOK_SAVED: return r->saves ? saved(in, r) : BT_OK;
  case BT_HOOK_END: return think_end(r, m->has_sleep, m->sleep);
  default: return hook_other(r, in, m);
  }
}

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) {
  if (!in) return BT_EINVAL;
  if (rec && rec->inst && rec->inst != in) return BT_EINVAL;
  if (rec_of(in) == rec) return BT_OK;
  if (!rec) return bt_inst_set_hook(in, NULL, NULL); /* the recorder is told, and freed if owned */
  int rc = bt_inst_set_hook(in, rec_hook, rec);
  if (rc != BT_OK) return rc;
  watch(rec, in);
  return BT_OK;
}

bt_rec *bt_inst_recorder(const bt_inst *in) { return in ? rec_of(in) : NULL; }

static void drop_dbstrings(bt_rec *r) {
  bt_buf_free(&r->dbstrings);
  free(r->dbstring_at);
  r->dbstring_at = NULL;
  r->dbstring_nodes = 0;
}

int bt_rec_keep_dbstrings(bt_rec *r, int on) {
  if (!r) return BT_EINVAL;
  r->keep_dbstrings = on != 0;
  entries_update(r);
  if (!on) drop_dbstrings(r);
  return BT_OK;
}

#else

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) { return rec || !in ? BT_EINVAL : BT_OK; }
bt_rec *bt_inst_recorder(const bt_inst *in) {
  (void)in;
  return NULL;
}
int bt_rec_keep_dbstrings(bt_rec *r, int on) {
  (void)r, (void)on;
  return BT_EINVAL;
}

#endif


int bt_rec_create(bt_rec **out, size_t capacity) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (capacity > BT_REC_MAX_CAPACITY) return BT_EINVAL;
  /* on cache lines of its own, so that what a think reads of it is one line (the struct's first) */
  bt_rec *r = btp_aligned_alloc(64, sizeof *r);
  if (!r) return BT_ENOMEM;
  memset(r, 0, sizeof *r);
  if (bti_ring_init(&r->ring, capacity) != BT_OK) {
    btp_aligned_free(r);
    return BT_ENOMEM;
  }
  *out = r;
  return BT_OK;
}

void bt_rec_free(bt_rec *r) {
  if (!r) return;
  if (r->inst) { /* detached first: the instance tells it, and it must not free itself then */
    r->owned = 0;
    bt_inst_set_hook(r->inst, NULL, NULL);
  }
  while (r->sinks) {
    bti_sink *s = r->sinks;
    r->sinks = s->next;
    s->methods->release(s);
  }
  bti_ring_fini(&r->ring);
  free(r->label);
  bt_def_release(r->def);
#if BT_RECORDER
  drop_dbstrings(r);
#endif
  btp_aligned_free(r);
}

const char *bt_rec_dbstring(const bt_rec *r, int node) {
  if (!r || node < 0 || (uint32_t)node >= r->dbstring_nodes || !r->dbstring_at[node]) return NULL;
  return r->dbstrings.data + r->dbstring_at[node] - 1;
}

void bt_rec_set_callback(bt_rec *r, bt_rec_fn fn, void *ud) {
  r->fn = fn;
  r->ud = ud;
  entries_update(r);
}

bt_rec_fn bt_rec_callback(const bt_rec *r, void **ud) {
  if (ud) *ud = r->ud;
  return r->fn;
}

int bt_rec_set_agent(bt_rec *r, unsigned long long id, const char *label) {
  char *copy = NULL;
  if (label) {
    size_t n = strlen(label) + 1;
    if (!(copy = malloc(n))) return BT_ENOMEM;
    memcpy(copy, label, n);
  }
  free(r->label);
  r->label = copy;
  r->agent = id;
  for (bti_sink *s = r->sinks; s; s = s->next)
    if (s->methods->agent_changed) s->methods->agent_changed(s);
  return BT_OK;
}

unsigned long long bt_rec_agent(const bt_rec *r) { return r->agent; }
const char *bt_rec_label(const bt_rec *r) { return r->label ? r->label : ""; }
bt_inst *bt_rec_inst(const bt_rec *r) { return r ? r->inst : NULL; }
const bt_def *bt_rec_def(const bt_rec *r) { return r ? r->def : NULL; }

size_t bt_rec_count(const bt_rec *r) { return r->ring.count; }

unsigned long long bt_rec_total(const bt_rec *r) { return r->total; }

int bt_rec_get(const bt_rec *r, size_t i, bt_rec_entry *out) { return bti_ring_get(&r->ring, i, out); }

void bt_rec_clear(bt_rec *r) {
  bti_ring_clear(&r->ring);
  r->total = 0;
}
