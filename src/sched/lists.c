/* SPDX-License-Identifier: MIT */
/*
 * lists.c: the brain scheduler's lists, Don't Starve's BrainWrangler (scripts/brain.lua) in C:
 * the updaters, the brains waiting by tick and the hibernating ones, and how a think files a
 * brain. sched.c runs frames over them, serially or on workers.
 *
 * Don't Starve keeps `instances[brain]`, the list a brain is filed in, apart from the lists'
 * own memberships, and the two can disagree: AddInstance files a waiting brain among the
 * updaters without taking it out of its tick's bucket, so it is woken by that bucket too. Each
 * brain here records both: `list` (instances[brain]) and the ticks of the buckets that hold it.
 * Buckets live in a hash table keyed by tick, so an update touches only the due brains.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

typedef struct brain_rec {
  uint32_t gen;
  uint8_t used;
  uint8_t list;        /* BT_SCHED_*: Don't Starve's instances[brain] */
  int64_t wait;        /* the bucket `list` names, when WAITING */
  uint32_t upd_pos;    /* index in the updaters, when UPDATING */
  double period;       /* fixed-rate bound, 0 for none */
  int64_t tick_in[2];  /* ticks of the buckets holding the brain */
  int64_t *tick_more;
  uint16_t nticks, cap_more;
  int next_free;
  bt_inst *inst;       /* the agent's instance, if bound */
} brain_rec;

typedef struct bucket {
  int64_t tick;
  int *ids;
  int n, cap;
} bucket;

typedef struct slot {
  int64_t tick;
  int bucket; /* -1: empty */
} slot;

typedef struct due {
  int id;
  uint32_t gen;
} due;

struct bti_lists {
  double tick_time;
  int policy;
  int64_t tick;
  long long thinks;
  brain_rec *brains;
  int nbrains, cap_brains, free_brain;
  int *updaters;
  int nupdaters, cap_updaters;
  bucket *buckets;
  int nbuckets, cap_buckets;
  int *free_buckets;
  int free_bucket_top, cap_free_buckets;
  slot *slots; /* open addressing, linear probing, power-of-two size */
  int nslots, used_slots;
  due *snapshot;
  int cap_snapshot;
  int registered, waiting, hibernating;
};

static brain_rec *rec(const bti_lists *s, int id) {
  return id >= 0 && id < s->nbrains && s->brains[id].used ? &s->brains[id] : NULL;
}

/* ---- a brain's bucket memberships ---- */

static int64_t *tick_at(brain_rec *r, int i) { return i < 2 ? &r->tick_in[i] : &r->tick_more[i - 2]; }

static int ticks_find(brain_rec *r, int64_t t) {
  for (int i = 0; i < r->nticks; i++)
    if (*tick_at(r, i) == t) return i;
  return -1;
}

static int ticks_add(brain_rec *r, int64_t t) {
  if (ticks_find(r, t) >= 0) return BT_OK;
  if (r->nticks >= 2) {
    int cap = r->cap_more;
    if (bti_grow((void **)&r->tick_more, &cap, r->nticks - 1, sizeof *r->tick_more)) return BT_ENOMEM;
    r->cap_more = (uint16_t)cap;
  }
  *tick_at(r, r->nticks++) = t;
  return BT_OK;
}

static void ticks_del(brain_rec *r, int64_t t) {
  int i = ticks_find(r, t);
  if (i < 0) return;
  *tick_at(r, i) = *tick_at(r, r->nticks - 1);
  r->nticks--;
}

/* ---- buckets by tick ---- */

static uint64_t hash_tick(int64_t t) {
  uint64_t x = (uint64_t)t * 0x9E3779B97F4A7C15ULL;
  return x ^ (x >> 29);
}

static int slot_find(const bti_lists *s, int64_t t) {
  if (!s->nslots) return -1;
  int mask = s->nslots - 1;
  for (int i = (int)(hash_tick(t) & (uint64_t)mask);; i = (i + 1) & mask) {
    if (s->slots[i].bucket < 0) return -1;
    if (s->slots[i].tick == t) return i;
  }
}

static int rehash(bti_lists *s, int nslots) {
  slot *old = s->slots;
  int nold = s->nslots;
  s->slots = malloc((size_t)nslots * sizeof *s->slots);
  if (!s->slots) {
    s->slots = old;
    return BT_ENOMEM;
  }
  s->nslots = nslots;
  for (int i = 0; i < nslots; i++) s->slots[i].bucket = -1;
  for (int i = 0; i < nold; i++) {
    if (old[i].bucket < 0) continue;
    int j = (int)(hash_tick(old[i].tick) & (uint64_t)(nslots - 1));
    while (s->slots[j].bucket >= 0) j = (j + 1) & (nslots - 1);
    s->slots[j] = old[i];
  }
  free(old);
  return BT_OK;
}

/* The bucket for tick t, made if needed; -1 when out of memory. */
static int bucket_get(bti_lists *s, int64_t t) {
  int i = slot_find(s, t);
  if (i >= 0) return s->slots[i].bucket;
  if ((s->used_slots + 1) * 2 > s->nslots && rehash(s, s->nslots ? s->nslots * 2 : 64)) return -1;
  int b;
  if (s->free_bucket_top > 0) {
    b = s->free_buckets[--s->free_bucket_top];
  } else {
    if (bti_grow((void **)&s->buckets, &s->cap_buckets, s->nbuckets + 1, sizeof *s->buckets)) return -1;
    b = s->nbuckets++;
    memset(&s->buckets[b], 0, sizeof s->buckets[b]);
  }
  s->buckets[b].tick = t;
  s->buckets[b].n = 0;
  int mask = s->nslots - 1;
  for (i = (int)(hash_tick(t) & (uint64_t)mask); s->slots[i].bucket >= 0; i = (i + 1) & mask) {}
  s->slots[i].tick = t;
  s->slots[i].bucket = b;
  s->used_slots++;
  return b;
}

/* Removes the bucket of slot i (backward-shift deletion keeps probing chains whole). */
static void bucket_drop(bti_lists *s, int i) {
  int b = s->slots[i].bucket;
  if (bti_grow((void **)&s->free_buckets, &s->cap_free_buckets, s->free_bucket_top + 1, sizeof(int)) == BT_OK)
    s->free_buckets[s->free_bucket_top++] = b; /* else the bucket is simply not reused */
  int mask = s->nslots - 1;
  s->slots[i].bucket = -1;
  s->used_slots--;
  for (int j = (i + 1) & mask; s->slots[j].bucket >= 0; j = (j + 1) & mask) {
    int home = (int)(hash_tick(s->slots[j].tick) & (uint64_t)mask);
    /* move j back to i if its home is not in (i, j] cyclically */
    int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!between) {
      s->slots[i] = s->slots[j];
      s->slots[j].bucket = -1;
      i = j;
    }
  }
}

static int bucket_put(bti_lists *s, int64_t t, int id) {
  int b = bucket_get(s, t);
  if (b < 0) return BT_ENOMEM;
  bucket *k = &s->buckets[b];
  if (bti_grow((void **)&k->ids, &k->cap, k->n + 1, sizeof *k->ids)) return BT_ENOMEM;
  k->ids[k->n++] = id;
  return BT_OK;
}

/* ---- lists ---- */

static int updaters_add(bti_lists *s, int id) {
  if (bti_grow((void **)&s->updaters, &s->cap_updaters, s->nupdaters + 1, sizeof *s->updaters))
    return BT_ENOMEM;
  s->brains[id].upd_pos = (uint32_t)s->nupdaters;
  s->updaters[s->nupdaters++] = id;
  return BT_OK;
}

static void updaters_del(bti_lists *s, int id) {
  uint32_t pos = s->brains[id].upd_pos;
  int last = s->updaters[--s->nupdaters];
  s->updaters[pos] = last;
  s->brains[last].upd_pos = pos;
}

/* Takes the brain out of the list instances[brain] names. */
static void leave_list(bti_lists *s, int id) {
  brain_rec *r = &s->brains[id];
  switch (r->list) {
    case BT_SCHED_UPDATING: updaters_del(s, id); break;
    case BT_SCHED_WAITING: ticks_del(r, r->wait); s->waiting--; break;
    case BT_SCHED_HIBERNATING: s->hibernating--; break;
    default: break;
  }
  if (r->list != BT_SCHED_NONE) s->registered--;
  r->list = BT_SCHED_NONE;
}

/* Files the brain in a list (instances[brain] = list; list[brain] = true). */
static int join_list(bti_lists *s, int id, int list, int64_t wait) {
  brain_rec *r = &s->brains[id];
  int rc = BT_OK;
  if (list == BT_SCHED_UPDATING) rc = updaters_add(s, id);
  else if (list == BT_SCHED_WAITING) {
    rc = ticks_find(r, wait) >= 0 ? BT_OK : bucket_put(s, wait, id);
    if (rc == BT_OK) rc = ticks_add(r, wait);
    if (rc == BT_OK) s->waiting++;
  } else if (list == BT_SCHED_HIBERNATING) s->hibernating++;
  if (rc) return rc;
  r->list = (uint8_t)list;
  r->wait = wait;
  s->registered++;
  return BT_OK;
}

/* SendToList: acts only on a registered brain whose list differs. */
static int send_to(bti_lists *s, int id, int list, int64_t wait) {
  brain_rec *r = &s->brains[id];
  if (r->list == BT_SCHED_NONE) return BT_OK;
  if (r->list == list && (list != BT_SCHED_WAITING || r->wait == wait)) return BT_OK;
  leave_list(s, id);
  return join_list(s, id, list, wait);
}

/* ---- public ---- */

int bti_lists_create(bti_lists **out, double tick_time) {
  *out = NULL;
  if (!(tick_time > 0) || isinf(tick_time)) return BT_EINVAL;
  bti_lists *s = calloc(1, sizeof *s);
  if (!s) return BT_ENOMEM;
  s->tick_time = tick_time;
  s->free_brain = -1;
  *out = s;
  return BT_OK;
}

void bti_lists_free(bti_lists *s) {
  if (!s) return;
  for (int i = 0; i < s->nbrains; i++) free(s->brains[i].tick_more);
  for (int i = 0; i < s->nbuckets; i++) free(s->buckets[i].ids);
  free(s->brains);
  free(s->updaters);
  free(s->buckets);
  free(s->free_buckets);
  free(s->slots);
  free(s->snapshot);
  free(s);
}

int bti_lists_set_tick_time(bti_lists *s, double tick_time) {
  if (!(tick_time > 0) || isinf(tick_time)) return BT_EINVAL;
  s->tick_time = tick_time;
  return BT_OK;
}

double bti_lists_tick_time(const bti_lists *s) { return s->tick_time; }

int bti_lists_set_policy(bti_lists *s, int policy) {
  if (policy != BT_SCHED_DS && policy != BT_SCHED_FIXED_RATE) return BT_EINVAL;
  s->policy = policy;
  return BT_OK;
}

int bti_lists_brain_create(bti_lists *s) {
  int id = s->free_brain;
  if (id >= 0) {
    s->free_brain = s->brains[id].next_free;
  } else {
    if (s->nbrains == INT32_MAX) return BT_ETOOBIG;
    if (bti_grow((void **)&s->brains, &s->cap_brains, s->nbrains + 1, sizeof *s->brains)) return BT_ENOMEM;
    id = s->nbrains++;
    memset(&s->brains[id], 0, sizeof s->brains[id]);
  }
  brain_rec *r = &s->brains[id];
  r->used = 1;
  r->list = BT_SCHED_NONE;
  r->nticks = 0;
  r->period = 0;
  r->inst = NULL;
  return id;
}

int bti_lists_brain_free(bti_lists *s, int id) {
  brain_rec *r = rec(s, id);
  if (!r) return BT_EINVAL;
  bti_lists_remove(s, id);
  r->used = 0;
  r->inst = NULL;
  r->gen++;
  r->next_free = s->free_brain;
  s->free_brain = id;
  return BT_OK;
}

int bti_lists_set_period(bti_lists *s, int id, double period) {
  brain_rec *r = rec(s, id);
  if (!r || !(period >= 0)) return BT_EINVAL;
  r->period = period;
  return BT_OK;
}

int bti_lists_add(bti_lists *s, int id) {
  brain_rec *r = rec(s, id);
  if (!r) return BT_EINVAL;
  /* instances[brain] = updaters; updaters[brain] = true: the old list keeps its membership */
  if (r->list == BT_SCHED_UPDATING) return BT_OK;
  if (r->list == BT_SCHED_WAITING) s->waiting--;
  else if (r->list == BT_SCHED_HIBERNATING) s->hibernating--;
  if (r->list != BT_SCHED_NONE) s->registered--;
  r->list = BT_SCHED_NONE;
  return join_list(s, id, BT_SCHED_UPDATING, 0);
}

int bti_lists_remove(bti_lists *s, int id) {
  brain_rec *r = rec(s, id);
  if (!r) return BT_EINVAL;
  leave_list(s, id);
  r->nticks = 0; /* out of every bucket: their entries go stale */
  return BT_OK;
}

int bti_lists_wake(bti_lists *s, int id) {
  if (!rec(s, id)) return BT_EINVAL;
  return send_to(s, id, BT_SCHED_UPDATING, 0);
}

int bti_lists_hibernate(bti_lists *s, int id) {
  if (!rec(s, id)) return BT_EINVAL;
  return send_to(s, id, BT_SCHED_HIBERNATING, 0);
}

int bti_lists_sleep(bti_lists *s, int id, double seconds) {
  if (!rec(s, id)) return BT_EINVAL;
  double ticks = seconds / s->tick_time;
  if (ticks == 0) ticks = 1;
  double target = floor((double)s->tick + ticks);
  if (!(target > (double)s->tick)) return BT_OK;
  if (target >= 9.2e18) return BT_OK; /* beyond any tick: waits forever, like a hibernation */
  return send_to(s, id, BT_SCHED_WAITING, (int64_t)target);
}

/* The brains of tick's bucket join the updaters, as AddInstance files them (a brain filed in
 * another bucket stays in that one too). */
static void wake_bucket(bti_lists *s, int64_t tick) {
  int i = slot_find(s, tick);
  if (i < 0) return;
  bucket *k = &s->buckets[s->slots[i].bucket];
  for (int j = 0; j < k->n; j++) {
    int id = k->ids[j];
    brain_rec *r = rec(s, id);
    if (!r || ticks_find(r, tick) < 0) continue; /* left this bucket since: a stale entry */
    ticks_del(r, tick);
    bti_lists_add(s, id);
  }
  bucket_drop(s, i);
}

static void file_after_think(bti_lists *s, int id, int has, double sleep) {
  brain_rec *r = &s->brains[id];
  if (s->policy == BT_SCHED_FIXED_RATE && r->period > 0 && (!has || sleep > r->period)) {
    has = 1;
    sleep = r->period;
  } else if (s->policy == BT_SCHED_FIXED_RATE && !has) {
    has = 1;
    sleep = 0;
  }
  if (!has) bti_lists_hibernate(s, id);
  else if (sleep > s->tick_time) bti_lists_sleep(s, id, sleep);
}

int bti_lists_update(bti_lists *s, long long tick, const bt_sched_hooks *hooks) {
  s->tick = tick;
  wake_bucket(s, tick);
  if (bti_grow((void **)&s->snapshot, &s->cap_snapshot, s->nupdaters, sizeof *s->snapshot)) return BT_ENOMEM;
  /* the snapshot: later additions think next tick, removals still think this one */
  int n = 0;
  int count = s->nupdaters;
  for (int i = 0; i < count; i++) {
    int id = s->updaters[i];
    s->snapshot[n++] = (due){id, s->brains[id].gen};
  }
  due *list = s->snapshot;
  s->snapshot = NULL;
  int cap = s->cap_snapshot;
  s->cap_snapshot = 0;
  int kept = 0;
  for (int i = 0; i < n; i++) {
    if (hooks->ready && !hooks->ready(hooks->ud, list[i].id)) continue;
    list[kept++] = list[i];
  }
  for (int i = 0; i < kept; i++) {
    brain_rec *r = rec(s, list[i].id);
    if (!r || r->gen != list[i].gen) continue; /* freed during this tick */
    double sleep = 0;
    int has = hooks->think(hooks->ud, list[i].id, &sleep);
    s->thinks++;
    r = rec(s, list[i].id);
    if (!r || r->gen != list[i].gen) continue;
    file_after_think(s, list[i].id, has, sleep);
  }
  if (!s->snapshot) { /* keep the larger scratch array */
    s->snapshot = list;
    s->cap_snapshot = cap;
  } else {
    free(list);
  }
  return n;
}

/* ---- a frame on workers (sched.c), in bti_lists_update's steps ---- */

int bti_lists_begin(bti_lists *s, long long tick, const int **updaters) {
  s->tick = tick;
  wake_bucket(s, tick);
  *updaters = s->updaters;
  return s->nupdaters;
}

uint32_t bti_lists_gen(const bti_lists *s, int id) { return s->brains[id].gen; }

void bti_lists_thought(bti_lists *s, int id, uint32_t gen, int has, double sleep) {
  brain_rec *r = rec(s, id);
  if (!r || r->gen != gen) return;
  s->thinks++;
  file_after_think(s, id, has, sleep);
}

long long bti_lists_tick(const bti_lists *s) { return s->tick; }

int bti_lists_set_inst(bti_lists *s, int id, bt_inst *inst) {
  brain_rec *r = rec(s, id);
  if (!r) return BT_EINVAL;
  r->inst = inst;
  return BT_OK;
}

int bti_lists_brains(const bti_lists *s) { return s->nbrains; }

bt_inst *bti_lists_inst(const bti_lists *s, int id) {
  brain_rec *r = rec(s, id);
  return r ? r->inst : NULL;
}

int bti_lists_list(const bti_lists *s, int id, long long *wake_tick) {
  brain_rec *r = rec(s, id);
  if (!r) return BT_EINVAL;
  if (wake_tick) *wake_tick = r->list == BT_SCHED_WAITING ? r->wait : 0;
  return r->list;
}

void bti_lists_stats_get(const bti_lists *s, bt_sched_stats *out) {
  out->thinks = s->thinks;
  out->registered = s->registered;
  out->updating = s->nupdaters;
  out->waiting = s->waiting;
  out->hibernating = s->hibernating;
}
