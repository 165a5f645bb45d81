/* SPDX-License-Identifier: MIT */
/*
 * rec.c: the transition recorder (bt.h "the transition recorder"). An instance's header has one
 * bit, `recording`, and no room for a pointer (it stays 32 bytes): the recorders of the
 * instances that have one are in a table keyed by the instance's address, looked up only when
 * the bit is set.
 */
#include <stdlib.h>
#include "internal.h"

/* the bit `recording` took no room: a small tree's instance stays as small */
_Static_assert(sizeof(void *) != 8 || sizeof(bt_inst) == 32, "bt_inst's header is 32 bytes");

struct bt_rec {
  bt_rec *next; /* in its bucket of the table */
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

static bt_rec **table;
static size_t table_size, table_count;

static size_t bucket_of(const bt_inst *in, size_t size) {
  uintptr_t p = (uintptr_t)in;
  return (size_t)((p >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull >> 7) & (size - 1);
}

/* The recorder of the instance thinking on this thread: a think's records skip the table. */
static _Thread_local const bt_inst *cur_in;
static _Thread_local bt_rec *cur_rec;

static bt_rec *table_find(const bt_inst *in) {
  if (in == cur_in) return cur_rec;
  if (!table) return NULL;
  for (bt_rec *r = table[bucket_of(in, table_size)]; r; r = r->next)
    if (r->inst == in) return r;
  return NULL;
}

static int table_grow(void) {
  size_t size = table_size ? table_size * 2 : 64;
  bt_rec **t = calloc(size, sizeof *t);
  if (!t) return BT_ENOMEM;
  for (size_t b = 0; b < table_size; b++)
    for (bt_rec *r = table[b], *next; r; r = next) {
      next = r->next;
      size_t nb = bucket_of(r->inst, size);
      r->next = t[nb];
      t[nb] = r;
    }
  free(table);
  table = t;
  table_size = size;
  return BT_OK;
}

static void table_remove(bt_rec *rec) {
  if (cur_rec == rec) cur_in = NULL, cur_rec = NULL;
  for (bt_rec **p = &table[bucket_of(rec->inst, table_size)]; *p; p = &(*p)->next)
    if (*p == rec) {
      *p = rec->next;
      break;
    }
  rec->inst->recording = 0;
  rec->inst = NULL;
  rec->next = NULL;
  if (--table_count == 0) {
    free(table);
    table = NULL;
    table_size = 0;
  }
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
  bt_rec *r = table_find(in);
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
  bt_rec *r = table_find(in);
  if (!r) return;
  bt_rec_entry e = {0};
  e.type = BT_REC_EVENT;
  e.node = n;
  e.think = r->think;
  e.time = in->thinking ? r->now : bti_now(in);
  put(r, &e);
}

void bti_rec_think_begin(bt_inst *in) {
  bt_rec *r = table_find(in);
  if (!r) return;
  r->think++;
  r->now = bti_now(in);
  cur_in = in;
  cur_rec = r;
}

void bti_rec_think_end(bt_inst *in) {
  bt_rec *r = table_find(in);
  cur_in = NULL;
  cur_rec = NULL;
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
  bt_rec *old = table_find(in);
  if (old == rec) return BT_OK;
  if (rec && table_count + 1 > table_size && table_grow() != BT_OK) return BT_ENOMEM;
  if (old) table_remove(old);
  if (!rec) return BT_OK;
  if (!table && table_grow() != BT_OK) return BT_ENOMEM;
  size_t b = bucket_of(in, table_size);
  rec->inst = in;
  rec->next = table[b];
  table[b] = rec;
  table_count++;
  in->recording = 1;
  return BT_OK;
}

bt_rec *bt_inst_recorder(const bt_inst *in) { return in && in->recording ? table_find(in) : NULL; }

#else

int bt_inst_set_recorder(bt_inst *in, bt_rec *rec) { return rec || !in ? BT_EINVAL : BT_OK; }
bt_rec *bt_inst_recorder(const bt_inst *in) {
  (void)in;
  return NULL;
}
static void table_remove(bt_rec *rec) { (void)rec; }

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
  if (r->inst) table_remove(r);
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
