/* SPDX-License-Identifier: MIT */
/*
 * rec.c: the transition recorder (bt.h "the transition recorder"). An instance's header has one
 * bit, `recording` (it stays 32 bytes); the recorder itself is a pointer in the instance's last
 * 8 bytes (bt_def.rec_off), read only when the bit is set. No state outside the instances: two
 * threads may record two instances at once.
 */
#include <stdlib.h>
#include "internal.h"

/* the bit `recording` took no room: a small tree's instance stays as small */
_Static_assert(sizeof(void *) != 8 || sizeof(bt_inst) == 32, "bt_inst's header is 32 bytes");

struct bt_rec {
  bt_inst *inst;
  bt_rec_entry *ring;
  size_t cap, head, count; /* head: where the next record goes */
  unsigned long long total, think;
  unsigned long long agent;
  char *label;
  bt_rec_fn fn;
  void *ud;
  double now; /* the clock of the think under way */
};

#if BT_RECORDER

/* The instance's recorder: a pointer in its last 8 bytes (bt_def.rec_off), NULL if none. */
static bt_rec **slot_of(const bt_inst *in) {
  return (bt_rec **)(void *)(inst_mem(in) + in->def->rec_off);
}
static bt_rec *rec_of(const bt_inst *in) { return in->recording ? *slot_of(in) : NULL; }

static void detach(bt_rec *rec) {
  bt_inst *in = rec->inst;
  *slot_of(in) = NULL;
  in->recording = 0;
  rec->inst = NULL;
}

static void put(bt_rec *r, const bt_rec_entry *e) {
  r->total++;
  if (r->cap) {
    r->ring[r->head] = *e;
    r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
    if (r->count < r->cap) r->count++;
  }
  if (r->fn) r->fn(r->ud, e);
}

void bti_rec_status(bt_inst *in, const bt_node *d, int from, int to) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  bt_rec_entry e = {0};
  e.type = BT_REC_STATUS;
  e.from = (unsigned char)from;
  e.to = (unsigned char)to;
  e.node = (int)(d - in->def->nodes);
  e.think = r->think;
  e.time = in->thinking ? r->now : bti_now(in);
  put(r, &e);
}

void bti_rec_event(bt_inst *in, int n) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  bt_rec_entry e = {0};
  e.type = BT_REC_EVENT;
  e.node = n;
  e.think = r->think;
  e.time = in->thinking ? r->now : bti_now(in);
  put(r, &e);
}

void bti_rec_think_begin(bt_inst *in) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  r->think++;
  r->now = bti_now(in);
}

void bti_rec_think_end(bt_inst *in) {
  bt_rec *r = rec_of(in);
  if (!r) return;
  bt_rec_entry e = {0};
  e.type = BT_REC_THINK;
  e.node = -1;
  e.think = r->think;
  e.time = r->now;
  double t = 0;
  e.has_sleep = (unsigned char)(bt_inst_sleep_time(in, &t) != 0);
  e.sleep = e.has_sleep ? t : 0;
  put(r, &e);
}

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) {
  if (!in) return BT_EINVAL;
  if (rec && rec->inst && rec->inst != in) return BT_EINVAL;
  bt_rec *old = rec_of(in);
  if (old == rec) return BT_OK;
  if (old) detach(old);
  if (!rec) return BT_OK;
  rec->inst = in;
  *slot_of(in) = rec;
  in->recording = 1;
  return BT_OK;
}

bt_rec *bt_inst_recorder(const bt_inst *in) { return in ? rec_of(in) : NULL; }

#else

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) { return rec || !in ? BT_EINVAL : BT_OK; }
bt_rec *bt_inst_recorder(const bt_inst *in) {
  (void)in;
  return NULL;
}
static void detach(bt_rec *rec) { (void)rec; }

#endif

int bt_rec_create(bt_rec **out, size_t capacity) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (capacity > SIZE_MAX / sizeof(bt_rec_entry)) return BT_ENOMEM;
  bt_rec *r = calloc(1, sizeof *r);
  if (!r) return BT_ENOMEM;
  if (capacity && !(r->ring = malloc(capacity * sizeof *r->ring))) {
    free(r);
    return BT_ENOMEM;
  }
  r->cap = capacity;
  *out = r;
  return BT_OK;
}

void bt_rec_free(bt_rec *r) {
  if (!r) return;
  if (r->inst) detach(r);
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

unsigned long long bt_rec_agent(const bt_rec *r) { return r->agent; }
const char *bt_rec_label(const bt_rec *r) { return r->label ? r->label : ""; }
size_t bt_rec_count(const bt_rec *r) { return r->count; }
unsigned long long bt_rec_total(const bt_rec *r) { return r->total; }

int bt_rec_get(const bt_rec *r, size_t i, bt_rec_entry *out) {
  if (!out || i >= r->count) return BT_EINVAL;
  size_t start = (r->head + r->cap - r->count) % (r->cap ? r->cap : 1);
  *out = r->ring[(start + i) % r->cap];
  return BT_OK;
}

void bt_rec_clear(bt_rec *r) {
  r->head = r->count = 0;
  r->total = 0;
}
