/* SPDX-License-Identifier: MIT */
/*
 * ring.c: the ring of records (rec_internal.h "the ring"), bt's one: a recorder's, and the
 * viewer's history of each of its agents, live or read from a log. Records go in and come out as
 * bt's one record type, bt_rec_entry; how a slot keeps one is this file's alone.
 *
 * The ring is what a think writes most, to memory gone cold since the agent's last think, so a
 * record takes 16 bytes: a word of type, statuses and node, the think number's low word, and a
 * time. A status change or an event made inside a think keeps no time: it is its think's, which
 * the THINK record after it holds (or the think under way, ring.now). A THINK keeps its think
 * number's low 21 bits in its word and its sleep time as a float in the second word. A slot's
 * think number is the ring's newest (ring.think) less the difference of their low bits, which
 * holds while no record is 2^21 thinks or more older than it: a recorder's ring holds fewer
 * records than 2^21 and each think makes one, and bti_ring_push checks. A record a slot cannot
 * hold as it is (an error, a reload, a host's record, a key's write, a mark of lost records, or
 * one whose fields do not fit) is kept whole beside it, in an `extra`, with a copy of its text.
 *
 * rec.c includes this file, so that the recorder's hook writes a think's records inline (the
 * think path's writers are `inline`): called across files, they cost a think recorded into a ring
 * some 40 to 100 instructions more (callgrind, bench_rec --only ring). libbtview and test_ring
 * compile it alone (btring_objects).
 */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "rec_internal.h"

struct bti_ring_bytes {
  bt_rec_entry e; /* the record; its text, when it has one, is `text` */
  char text[];    /* its bytes and a 0 */
};
typedef struct bti_ring_bytes extra;

/* A slot's word: the type, the statuses (a THINK keeps its cause there: it has no statuses),
 * whether the record is its extra's, has_sleep of a THINK, whether it was made inside a think
 * (then its time is the think's), and its node + 1 (0: none). */
#define W_TYPE(w) ((w) & 7u)
#define W_FROM(w) ((w) >> 3 & 3u)
#define W_TO(w) ((w) >> 5 & 3u)
#define W_CAUSE(w) ((w) >> 3 & 15u) /* THINK: BT_WAKE_*, in place of the statuses */
#define W_EXTRA(w) ((w) >> 7 & 1u)
#define W_SLEEP(w) ((w) >> 9 & 1u)
#define W_IN_THINK(w) ((w) >> 10 & 1u)
#define W_NODE(w) ((int)((w) >> 11) - 1)
#define W_LOW21(w) ((w) >> 11) /* THINK: the think number's low 21 bits */
#define W_X (1u << 7)
#define W_MAKE(type, from, to, has_sleep, in_think, node)                                          \
  ((uint32_t)(type) | (uint32_t)(from) << 3 | (uint32_t)(to) << 5 | (uint32_t)(has_sleep) << 9 |  \
   (uint32_t)(in_think) << 10 | (uint32_t)((node) + 1) << 11)
#define W_THINK(cause, has_sleep, think)                                                           \
  (W_MAKE(BT_REC_THINK, 0, 0, has_sleep, 0, (int)((think) & ((1u << 21) - 1)) - 1) | (uint32_t)(cause) << 3)
#define LOW21 ((1u << 21) - 1)
_Static_assert(BT_MAX_NODES < (1 << 21) - 1, "a node + 1 fits in 21 bits");
_Static_assert(BT_WAKE_RELOAD < 16, "a cause fits in the 4 bits of the statuses");
_Static_assert(BT_REC_MAX_CAPACITY <= 1 << 21, "a THINK's number is known from its low 21 bits");

struct bti_slot {
  uint32_t word;
  union {
    uint32_t think; /* the think number's low 32 bits */
    float sleep;    /* THINK: its sleep time */
  } w2;
  union {
    double time; /* but records made inside a think */
    extra *x;    /* W_EXTRA */
  } u;
};
typedef struct bti_slot slot;

_Static_assert(sizeof(void *) != 8 || sizeof(slot) == 16, "a ring slot is 16 bytes");

/* ---- reading ---- */

/* The full think number of a slot: the newest number with its low bits. */
static unsigned long long think_of(const bti_ring *r, const slot *s) {
  if (W_TYPE(s->word) == BT_REC_THINK) return r->think - (((uint32_t)r->think - W_LOW21(s->word)) & LOW21);
  return r->think - (uint32_t)((uint32_t)r->think - s->w2.think);
}

static size_t physical(const bti_ring *r, size_t i) {
  size_t p = (size_t)r->head + r->cap - r->count + i;
  return p >= r->cap ? p - r->cap : p;
}

/* The time of the think a slot made inside it belongs to: its THINK record's, after it in the
 * ring, or the think under way's. */
static double think_time_after(const bti_ring *r, size_t i, unsigned long long think) {
  for (size_t j = i + 1; j < r->count; j++) {
    const slot *s = &r->slots[physical(r, j)];
    if (W_TYPE(s->word) == BT_REC_THINK && think_of(r, s) == think) return s->u.time;
  }
  return r->now;
}

static void decode(const bti_ring *r, size_t i, bt_rec_entry *e) {
  const slot *s = &r->slots[physical(r, i)];
  uint32_t w = s->word;
  if (W_EXTRA(w)) {
    *e = s->u.x->e;
    return;
  }
  memset(e, 0, sizeof *e);
  e->type = (unsigned char)W_TYPE(w);
  if (e->type == BT_REC_THINK) {
    e->cause = (unsigned char)W_CAUSE(w);
  } else {
    e->from = (unsigned char)W_FROM(w);
    e->to = (unsigned char)W_TO(w);
  }
  e->has_sleep = (unsigned char)W_SLEEP(w);
  e->node = e->type == BT_REC_THINK ? -1 : W_NODE(w);
  e->think = think_of(r, s);
  e->time = W_IN_THINK(w) ? think_time_after(r, i, e->think) : s->u.time;
  if (e->type == BT_REC_THINK) e->sleep = s->w2.sleep;
}

int bti_ring_get(const bti_ring *r, size_t i, bt_rec_entry *out) {
  if (!out || i >= r->count) return BT_EINVAL;
  decode(r, i, out);
  return BT_OK;
}

/* ---- making room ---- */

int bti_ring_init(bti_ring *r, size_t cap) {
  memset(r, 0, sizeof *r);
  return bti_ring_reserve(r, cap);
}

int bti_ring_reserve(bti_ring *r, size_t cap) {
  if (cap <= r->cap) return BT_OK;
  if (cap > BTI_RING_MAX) return BT_EINVAL;
  slot *p = cap <= SIZE_MAX / sizeof *p ? malloc(cap * sizeof *p) : NULL;
  if (!p) return BT_ENOMEM;
  for (size_t i = 0; i < r->count; i++) p[i] = r->slots[physical(r, i)];
  free(r->slots);
  r->slots = p;
  r->cap = (uint32_t)cap;
  r->head = r->count; /* (count < cap) */
  return BT_OK;
}

void bti_ring_clear(bti_ring *r) {
  for (size_t i = 0; i < r->count && r->nextra; i++) {
    slot *s = &r->slots[physical(r, i)];
    if (W_EXTRA(s->word)) {
      free(s->u.x);
      r->nextra--;
    }
  }
  r->head = r->count = 0;
}

void bti_ring_fini(bti_ring *r) {
  bti_ring_clear(r);
  free(r->slots);
  r->slots = NULL;
  r->cap = 0;
}

/* Takes the ring's next slot; *old is what the record it overwrites kept beside it (NULL: none),
 * which the caller lets go once it wrote the slot (bti_ring_let_go): the think path's writers, that call
 * nothing else, then save no registers. */
static inline slot *next_slot(bti_ring *r, extra **old) {
  slot *s = &r->slots[r->head];
  *old = NULL;
  if (r->count == r->cap) {
    if (r->nextra && W_EXTRA(s->word)) *old = s->u.x;
  } else {
    r->count++;
  }
  r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
  return s;
}

/* (not static: the think path's writers are `inline`, and an inline function of external linkage
 * may call no static one) */
BTI_FUNC BTI_NOINLINE void bti_ring_let_go(bti_ring *r, extra *x);
BTI_NOINLINE void bti_ring_let_go(bti_ring *r, extra *x) {
  r->nextra--;
  free(x);
}

/* ---- the think path's records ---- */

inline void bti_ring_prefetch(const bti_ring *r) {
  if (!r->cap) return;
  __builtin_prefetch(&r->slots[r->head], 1, 0);
  __builtin_prefetch((const char *)&r->slots[r->head] + 64, 1, 0);
}

inline void bti_ring_put_status(bti_ring *r, int node, int from, int to) {
  extra *old;
  slot *s = next_slot(r, &old);
  s->word = W_MAKE(BT_REC_STATUS, from, to, 0, 1, node);
  s->w2.think = (uint32_t)r->think;
  if (__builtin_expect(old != NULL, 0)) bti_ring_let_go(r, old);
}

inline void bti_ring_put_think(bti_ring *r, int cause, int has_sleep, double sleep) {
  extra *old;
  slot *s = next_slot(r, &old);
  s->word = W_THINK(cause, has_sleep != 0, r->think);
  s->w2.sleep = has_sleep ? (float)sleep : 0;
  s->u.time = r->now;
  if (__builtin_expect(old != NULL, 0)) bti_ring_let_go(r, old);
}

/* A STATUS, EVENT or THINK record into the next slot, as the think path keeps it. */
static void put_compact(bti_ring *r, const bt_rec_entry *e, int in_think) {
  extra *old;
  slot *s = next_slot(r, &old);
  if (e->type == BT_REC_THINK) {
    s->word = W_THINK(e->cause, e->has_sleep, e->think);
    s->w2.sleep = (float)e->sleep;
  } else {
    s->word = W_MAKE(e->type, e->from, e->to, 0, in_think, e->node);
    s->w2.think = (uint32_t)e->think;
  }
  s->u.time = e->time;
  if (old) bti_ring_let_go(r, old);
}

void bti_ring_put(bti_ring *r, const bt_rec_entry *e, int in_think) { put_compact(r, e, in_think); }

bti_ring_bytes *bti_ring_bytes_new(const void *data, size_t size) {
  extra *x = size <= SIZE_MAX - sizeof(extra) - 1 ? malloc(sizeof *x + size + 1) : NULL;
  if (!x) return NULL;
  memset(&x->e, 0, sizeof x->e);
  x->e.size = size;
  if (size) memcpy(x->text, data, size);
  x->text[size] = 0;
  return x;
}

const char *bti_ring_bytes_text(const bti_ring_bytes *x) { return x->text; }

void bti_rec_key_strings(bt_rec_entry *e) {
  const char *at = e->text;
  if (!at) return;
  if (e->before.type == BT_KEY_STRING) {
    e->before.as.string = at;
    at += strlen(at) + 1;
  }
  if (e->after.type == BT_KEY_STRING) e->after.as.string = at;
}

void bti_ring_put_bytes(bti_ring *r, bti_ring_bytes *x, const bt_rec_entry *e) {
  x->e = *e;
  if (e->text) x->e.text = x->text;
  if (e->type == BT_REC_KEY) bti_rec_key_strings(&x->e); /* its strings are the copy's */
  extra *old;
  slot *s = next_slot(r, &old);
  s->word = W_X;
  s->u.x = x;
  r->nextra++;
  if (old) bti_ring_let_go(r, old);
}

/* ---- any record, as it is ---- */

static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Whether a float gives d back as it is (NaN, the infinities and doubles beyond a float's range
 * are kept whole: converting those is not to be relied on). */
static int float_holds(double d) {
  return d >= -FLT_MAX && d <= FLT_MAX && bits((double)(float)d) == bits(d);
}

/* Whether a slot keeps e's fields as they are (its think number aside). */
static int fits_fields(const bt_rec_entry *e) {
  if (e->def_from || e->def_to || e->text || e->size) return 0;
  if (e->type == BT_REC_THINK)
    return e->from == 0 && e->to == 0 && e->node == -1 && e->cause < 16 && e->has_sleep <= 1 &&
           float_holds(e->sleep);
  if (e->type == BT_REC_STATUS || e->type == BT_REC_EVENT)
    return e->from < 4 && e->to < 4 && e->has_sleep == 0 && e->cause == 0 && bits(e->sleep) == 0 && e->node >= -1 &&
           e->node < (1 << 21) - 1;
  return 0;
}

/* The think number of the oldest record a slot keeps (*think), if one of the ring's first few
 * records is one: a ring that bti_ring_push fills keeps their numbers in order. */
static int oldest_think(const bti_ring *r, unsigned long long *think) {
  for (size_t i = 0; i < r->count && i < 16; i++) {
    const slot *s = &r->slots[physical(r, i)];
    if (!W_EXTRA(s->word)) {
      *think = think_of(r, s);
      return 1;
    }
  }
  return 0;
}

/* Whether a slot keeps e with its think number: e is no older than the newest record a slot
 * keeps, and the oldest is less than 2^21 thinks older than e. */
static int fits(const bti_ring *r, const bt_rec_entry *e) {
  if (!fits_fields(e)) return 0;
  if (r->count == r->nextra || e->think == r->think) return 1;
  unsigned long long oldest;
  return e->think > r->think && oldest_think(r, &oldest) && e->think - oldest < (1u << 21);
}

int bti_ring_push(bti_ring *r, const bt_rec_entry *e, bt_rec_entry *left) {
  if (left) left->type = 0;
  if (!r->cap || !e) return BT_EINVAL;
  extra *x = NULL;
  int compact = fits(r, e);
  if (!compact) {
    if (!(x = bti_ring_bytes_new(e->text, e->text ? e->size : 0))) return BT_ENOMEM;
  }
  if (left && r->count == r->cap) {
    decode(r, 0, left);
    left->text = NULL; /* (freed with its slot) */
  }
  if (!compact) {
    bti_ring_put_bytes(r, x, e);
    return BT_OK;
  }
  if (r->count == r->nextra || e->think > r->think) r->think = e->think;
  put_compact(r, e, 0);
  return BT_OK;
}
