/* SPDX-License-Identifier: MIT */
/*
 * rec.c: the transition recorder (bt.h "the transition recorder"). An instance's header has one
 * bit, `recording` (it stays 32 bytes); the recorder itself is a pointer in the instance's last
 * 8 bytes (bt_def.rec_off), read only when the bit is set. No state outside the instances: two
 * threads may record two instances at once.
 *
 * The ring holds slots of 32 bytes, not bt_rec_entry: a status change, the record made most
 * often, writes half a cache line. The few records with more to say (errors, reloads, the host's)
 * keep it in an `extra` of their own. A think's record waits, as `pending`, until its sleep time
 * is known: the host asks for it after the think (bt_inst_sleep_time hands it over), so the
 * recorder does not walk the tree a second time.
 */
#include <stdlib.h>
#include "internal.h"

/* the bit `recording` took no room: a small tree's instance stays as small */
_Static_assert(sizeof(void *) != 8 || sizeof(bt_inst) == 32, "bt_inst's header is 32 bytes");

typedef struct extra {
  unsigned long long def_from, def_to;
  size_t size;
  char text[]; /* size bytes and a 0 */
} extra;

typedef struct slot {
  uint8_t type, statuses, cause, has_sleep; /* statuses: STATUS's from | to << 4 */
  int32_t node;
  unsigned long long think;
  double time;
  union {
    double sleep; /* THINK */
    extra *x;     /* ERROR, RELOAD, HOST */
  } u;
} slot;

_Static_assert(sizeof(void *) != 8 || sizeof(slot) == 32, "a ring slot is 32 bytes");

struct bt_rec {
  bt_inst *inst;
  slot *ring;
  size_t cap, head, count; /* head: where the next record goes */
  unsigned long long total, think;
  unsigned long long agent;
  char *label;
  bt_rec_fn fn;
  void *ud;
  bti_stats_agent *stats; /* the statistics it feeds (stats.c), or NULL */
  double now;      /* the clock of the think under way */
  uint8_t cause;   /* what will make the next think (BT_WAKE_*) */
  uint8_t owned;   /* made by the instance's definition (bt_def_set_recording): its instance frees it */
  uint8_t pending; /* `think` holds the last think's record, waiting for its sleep time */
  slot last;       /* the pending think */
};

static int has_extra(int type) { return type == BT_REC_ERROR || type == BT_REC_RELOAD || type == BT_REC_HOST; }

static void slot_clear(slot *s) {
  if (has_extra(s->type)) free(s->u.x);
  s->type = 0;
}

static void entry_of(const slot *s, bt_rec_entry *e) {
  memset(e, 0, sizeof *e);
  e->type = s->type;
  e->from = s->statuses & 15;
  e->to = s->statuses >> 4;
  e->cause = s->cause;
  e->has_sleep = s->has_sleep;
  e->node = s->node;
  e->think = s->think;
  e->time = s->time;
  if (s->type == BT_REC_THINK) e->sleep = s->u.sleep;
  if (has_extra(s->type)) {
    e->def_from = s->u.x->def_from;
    e->def_to = s->u.x->def_to;
    if (s->type != BT_REC_RELOAD) {
      e->text = s->u.x->text;
      e->size = s->u.x->size;
    }
  }
}

#if BT_RECORDER

/* Files a record: into the ring (taking its extra) and to the callback. */
static void put(bt_rec *r, slot *s) {
  r->total++;
  if (r->fn || r->stats) {
    bt_rec_entry e;
    entry_of(s, &e);
    if (r->fn) r->fn(r->ud, &e);
    if (r->stats) bti_stats_record(r->stats, r->inst, &e);
  }
  if (r->cap) {
    slot *to = &r->ring[r->head];
    slot_clear(to);
    *to = *s;
    r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
    if (r->count < r->cap) r->count++;
  } else {
    slot_clear(s);
  }
}

/* The instance's recorder: a pointer in its last 8 bytes (bt_def.rec_off), NULL if none. */
static bt_rec **slot_of(const bt_inst *in) {
  return (bt_rec **)(void *)(inst_mem(in) + in->def->rec_off);
}
static bt_rec *rec_of(const bt_inst *in) { return in->recording ? *slot_of(in) : NULL; }

/* Files the pending think's record, with its sleep time. */
static void put_think(bt_rec *r, int has_sleep, double sleep) {
  r->pending = 0;
  r->last.has_sleep = (uint8_t)(has_sleep != 0);
  r->last.u.sleep = has_sleep ? sleep : 0;
  put(r, &r->last);
}

static double think_time(void *r) { return ((bt_rec *)r)->last.time; }

/* Files the pending think's record, asking the tree for its sleep time as it was at the think's
 * end: on the think's clock (the host's clock may have moved on since). */
static void settle(bt_rec *r) {
  if (!r->pending) return;
  bt_inst *in = r->inst;
  const bt_host *own = in->host;
  bt_host at_think = {think_time, NULL, NULL, r}; /* a sleep time draws no random number */
  in->host = &at_think;
  double t = 0;
  int has = bt_node_tree_sleep_time(in, 0, &t);
  in->host = own;
  if (in->forceupdate) has = 1, t = 0;
  put_think(r, has, t);
}

static void detach(bt_rec *rec) {
  bt_inst *in = rec->inst;
  settle(rec);
  if (rec->stats) bti_stats_unwatch(rec->stats);
  *slot_of(in) = NULL;
  in->recording = 0;
  rec->inst = NULL;
}

static double time_of(bt_rec *r, bt_inst *in) { return in->thinking ? r->now : bti_now(in); }

void bti_rec_status(bt_inst *in, const bt_node *d, int from, int to) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  settle(r);
  slot s;
  s.type = BT_REC_STATUS;
  s.statuses = (uint8_t)(from | to << 4);
  s.cause = s.has_sleep = 0;
  s.node = (int32_t)(d - in->def->nodes);
  s.think = r->think;
  s.time = time_of(r, in);
  s.u.sleep = 0;
  put(r, &s);
}

static void put_simple(bt_rec *r, bt_inst *in, int type, int node, extra *x) {
  settle(r);
  slot s = {0};
  s.type = (uint8_t)type;
  s.node = node;
  s.think = r->think;
  s.time = time_of(r, in);
  s.u.x = x;
  put(r, &s);
}

void bti_rec_event(bt_inst *in, int n) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  if (r->cause != BT_WAKE_START) r->cause = BT_WAKE_EVENT;
  put_simple(r, in, BT_REC_EVENT, n, NULL);
}

void bti_rec_force(bt_inst *in) {
  bt_rec *r = rec_of(in);
  if (r && r->cause != BT_WAKE_START) r->cause = BT_WAKE_FORCE;
}

void bti_rec_think_begin(bt_inst *in) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  settle(r);
  r->think++;
  r->now = bti_now(in);
}

void bti_rec_think_end(bt_inst *in) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  slot *s = &r->last;
  memset(s, 0, sizeof *s);
  s->type = BT_REC_THINK;
  s->cause = r->cause;
  s->node = -1;
  s->think = r->think;
  s->time = r->now;
  r->cause = BT_WAKE_DEADLINE;
  r->pending = 1;
}

void bti_rec_sleep(bt_inst *in, int has_sleep, double sleep) {
  bt_rec *r = rec_of(in);
  if (r && r->pending) put_think(r, has_sleep, sleep);
}

static extra *extra_new(const void *data, size_t size) {
  if (size > SIZE_MAX - sizeof(extra) - 1) return NULL;
  extra *x = malloc(sizeof *x + size + 1);
  if (!x) return NULL;
  x->def_from = x->def_to = 0;
  x->size = size;
  if (size) memcpy(x->text, data, size);
  x->text[size] = 0;
  return x;
}

void bti_rec_reload(bt_inst *in, const bt_def *from) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  extra *x = extra_new(NULL, 0);
  if (!x) return; /* out of memory: the reload goes on unrecorded */
  x->def_from = bt_def_hash(from);
  x->def_to = bt_def_hash(in->def);
  put_simple(r, in, BT_REC_RELOAD, -1, x);
}

int bt_inst_record_error(bt_inst *in, int node, const char *message) {
  if (!in || !message || node < -1 || (node >= 0 && (uint32_t)node >= in->def->nnodes)) return BT_EINVAL;
  bt_rec *r = rec_of(in);
  if (!r) return BT_OK;
  extra *x = extra_new(message, strlen(message));
  if (!x) return BT_ENOMEM;
  put_simple(r, in, BT_REC_ERROR, node, x);
  return BT_OK;
}

int bt_inst_record_host(bt_inst *in, int code, const void *data, size_t size) {
  if (!in || (!data && size)) return BT_EINVAL;
  bt_rec *r = rec_of(in);
  if (!r) return BT_OK;
  extra *x = extra_new(data, size);
  if (!x) return BT_ENOMEM;
  put_simple(r, in, BT_REC_HOST, code, x);
  return BT_OK;
}

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) {
  if (!in) return BT_EINVAL;
  if (rec && rec->inst && rec->inst != in) return BT_EINVAL;
  bt_rec *old = rec_of(in);
  if (old == rec) return BT_OK;
  if (old) {
    detach(old);
    if (old->owned) bt_rec_free(old);
  }
  if (!rec) return BT_OK;
  rec->inst = in;
  rec->cause = BT_WAKE_START;
  *slot_of(in) = rec;
  in->recording = 1;
  return BT_OK;
}

bt_rec *bt_inst_recorder(const bt_inst *in) { return in ? rec_of(in) : NULL; }

int bt_def_set_recording(bt_def *def, const bt_rec_options *opts) {
  if (!def) return BT_EINVAL;
  bt_rec_options *copy = NULL;
  if (opts) {
    if (!(copy = malloc(sizeof *copy))) return BT_ENOMEM;
    *copy = *opts;
  }
  free(def->recording);
  def->recording = copy;
  return BT_OK;
}

int bti_rec_init(bt_inst *in) {
  const bt_rec_options *o = in->def->recording;
  bt_rec *r = NULL;
  if (!o && !in->def->stats) return BT_OK;
  if (bt_rec_create(&r, o ? o->capacity : 0) != BT_OK) return BT_ENOMEM;
  if (o) bt_rec_set_callback(r, o->fn, o->ud);
  r->owned = 1;
  int rc = bt_inst_set_recorder(in, r);
  if (rc == BT_OK) rc = bt_rec_set_stats(r, in->def->stats);
  if (rc != BT_OK) bt_rec_free(r);
  return rc;
}

int bt_def_set_stats(bt_def *def, bt_stats *st) {
  if (!def) return BT_EINVAL;
  def->stats = st;
  return BT_OK;
}

#else

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) { return rec || !in ? BT_EINVAL : BT_OK; }
bt_rec *bt_inst_recorder(const bt_inst *in) {
  (void)in;
  return NULL;
}
static void detach(bt_rec *rec) { (void)rec; }
static void settle(bt_rec *r) { (void)r; }
int bt_def_set_recording(bt_def *def, const bt_rec_options *opts) {
  (void)opts;
  return def ? BT_EINVAL : BT_EINVAL;
}
int bt_def_set_stats(bt_def *def, bt_stats *st) {
  (void)def, (void)st;
  return BT_EINVAL;
}
int bt_inst_record_error(bt_inst *in, int node, const char *message) {
  if (!in || !message || node < -1 || (node >= 0 && (uint32_t)node >= in->def->nnodes)) return BT_EINVAL;
  return BT_OK;
}
int bt_inst_record_host(bt_inst *in, int code, const void *data, size_t size) {
  (void)code;
  return !in || (!data && size) ? BT_EINVAL : BT_OK;
}

#endif

int bt_rec_create(bt_rec **out, size_t capacity) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (capacity > SIZE_MAX / sizeof(slot)) return BT_ENOMEM;
  bt_rec *r = calloc(1, sizeof *r);
  if (!r) return BT_ENOMEM;
  if (capacity && !(r->ring = calloc(capacity, sizeof *r->ring))) {
    free(r);
    return BT_ENOMEM;
  }
  r->cap = capacity;
  *out = r;
  return BT_OK;
}

static void ring_clear(bt_rec *r) {
  for (size_t i = 0; i < r->cap; i++) slot_clear(&r->ring[i]);
  r->head = r->count = 0;
}

void bt_rec_free(bt_rec *r) {
  if (!r) return;
  if (r->inst) detach(r);
  bt_rec_set_stats(r, NULL);
  ring_clear(r);
  free(r->ring);
  free(r->label);
  free(r);
}

void bt_rec_set_callback(bt_rec *r, bt_rec_fn fn, void *ud) {
  r->fn = fn;
  r->ud = ud;
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
  return BT_OK;
}

int bt_rec_set_stats(bt_rec *r, bt_stats *st) {
  if (!r) return BT_EINVAL;
  if (r->inst) settle(r); /* the last think's record goes to the statistics it was made for */
  if (r->stats && bti_stats_of(r->stats) == st) return BT_OK;
  bti_stats_agent *a = NULL;
  if (st && !(a = bti_stats_attach(st, r))) return BT_ENOMEM;
  if (r->stats) bti_stats_detach(r->stats);
  r->stats = a;
  return BT_OK;
}

bti_stats_agent *bti_rec_stats_agent(const bt_rec *r) { return r->stats; }

bt_stats *bt_rec_stats(const bt_rec *r) { return r && r->stats ? bti_stats_of(r->stats) : NULL; }

unsigned long long bt_rec_agent(const bt_rec *r) { return r->agent; }
const char *bt_rec_label(const bt_rec *r) { return r->label ? r->label : ""; }
bt_inst *bt_rec_inst(const bt_rec *r) { return r ? r->inst : NULL; }

size_t bt_rec_count(bt_rec *r) {
  if (r->inst) settle(r);
  return r->count;
}

unsigned long long bt_rec_total(bt_rec *r) {
  if (r->inst) settle(r);
  return r->total;
}

int bt_rec_get(bt_rec *r, size_t i, bt_rec_entry *out) {
  if (r->inst) settle(r);
  if (!out || i >= r->count) return BT_EINVAL;
  size_t start = (r->head + r->cap - r->count) % r->cap;
  entry_of(&r->ring[(start + i) % r->cap], out);
  return BT_OK;
}

void bt_rec_clear(bt_rec *r) {
  if (r->inst) settle(r);
  ring_clear(r);
  r->total = 0;
}
