/* inst.c: per-agent instances: creation, the think cycle, sleep times, fields, the host's clock. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define PREFETCH_BYTES 1024 /* the largest instance a think asks for whole at its start */

static double monotonic_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double inst_now(bt_inst *in) {
  if (in->host && in->host->now) return in->host->now(in->host->data);
  return monotonic_now();
}

/* xorshift64*: the instance's own generator, used when the host gives none */
static uint64_t next_random(bt_inst *in) {
  uint64_t x = in->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  in->rng = x;
  return x * 0x2545F4914F6CDD1DULL;
}

double inst_random(bt_inst *in) {
  if (in->host && in->host->random) return in->host->random(in->host->data);
  return (double)(next_random(in) >> 11) * (1.0 / 9007199254740992.0);
}

int inst_random_int(bt_inst *in, int n, int *out) {
  if (in->host && in->host->random_int) return in->host->random_int(in->host->data, n, out);
  if (n < 1) return BT_EINVAL;
  *out = 1 + (int)(next_random(in) % (uint64_t)n);
  return BT_OK;
}

int bt_inst_init(bt_inst **out, void *mem, bt_def *def, const bt_host *host, void *agent,
                 unsigned flags) {
  *out = NULL;
  if (!def || !mem) return BT_EINVAL;
  memset(mem, 0, def->inst_size);
  bt_inst *in = mem;
  unsigned char *base = mem;
  in->def = def;
  in->sum_shift = def->sum_shift;
  in->host = host;
  in->agent = agent;
  in->rng = (uint64_t)(uintptr_t)in * 0x9E3779B97F4A7C15ULL | 1;
  in->mem = base;
  for (uint32_t s = 0; s < def->nstates; s++) kind_init_mem(in, (int)def->states[s].node);
  inst_mark_touched(in);
  if (!(flags & BT_INST_NOSCATTER)) {
    for (uint32_t i = 0; i < def->nscatter; i++) {
      uint32_t s = def->scatter[i];
      const bt_node *d = &def->nodes[def->states[s].node];
      if (d->flags & NF_NOSCATTER) continue;
      mem_prio *m = (mem_prio *)(void *)(in->mem + def->states[s].mem);
      m->lasttime = d->param * 0.5 + (d->param * inst_random(in));
      *flags_at(in, s) |= SF_LASTTIME;
    }
  }
  bt_def_retain(def);
  *out = in;
  return BT_OK;
}

int bt_inst_create(bt_inst **out, bt_def *def, const bt_host *host, void *agent, unsigned flags) {
  *out = NULL;
  if (!def) return BT_EINVAL;
  void *mem = malloc(def->inst_size);
  if (!mem) return BT_ENOMEM;
  int rc = bt_inst_init(out, mem, def, host, agent, flags);
  if (rc != BT_OK) free(mem);
  return rc;
}

void bt_inst_fini(bt_inst *in) {
  if (!in) return;
  bt_def_release(in->def);
  in->def = NULL;
}

void bt_inst_free(bt_inst *in) {
  if (!in) return;
  bt_inst_fini(in);
  free(in);
}

void *bt_inst_agent(const bt_inst *in) { return in->agent; }
const bt_def *bt_inst_def(const bt_inst *in) { return in->def; }
double bt_inst_now(bt_inst *in) { return inst_now(in); }
int bt_inst_thinking(const bt_inst *in) { return in->thinking != 0; }

/* SaveStatus of the whole tree: only states whose status changed since the last one differ, and
 * a think that changed none has no bits to look at. */
static void save_all(bt_inst *in) {
  if (!in->unsaved) return;
  in->unsaved = 0;
  uint32_t nwords = in->def->nwords;
  for (uint64_t sum = in->dirty_sum; sum; sum &= sum - 1) {
    uint32_t w = (uint32_t)__builtin_ctzll(sum) << in->sum_shift;
    uint32_t end = w + ((uint32_t)1 << in->sum_shift);
    for (; w < end && w < nwords; w++) {
      uint64_t *word = dirty_word(in, w), bits = *word;
      if (!bits) continue;
      *word = 0;
      for (; bits; bits &= bits - 1) {
        uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(bits);
        *last_at(in, s) = *status_at(in, s);
      }
    }
  }
  in->dirty_sum = 0;
}

int bt_inst_update(bt_inst *in) {
  /* With thousands of agents a think starts with its instance out of the cache, and the visit
   * reaches its lines one dependent load after another. The header's second line is asked for
   * before the first arrives; then a small instance whole; of a large one, the lines of each
   * node on the running path the last think ended on (its chunk's bit words, its status and its
   * memory), which this one most likely walks again. (Here, not in a function of its own, which
   * the compiler drops as one without effects.) */
  __builtin_prefetch((const char *)in + 64);
  if (in->def->inst_size <= PREFETCH_BYTES) {
    for (size_t off = 128; off < in->def->inst_size; off += 64) __builtin_prefetch((const char *)in + off);
  } else {
    const bt_def *def = in->def;
    for (uint32_t n = in->hint < def->nnodes ? in->hint : 0;; n = (uint32_t)def->nodes[n].up) {
      const bt_node *d = &def->nodes[n];
      __builtin_prefetch(in->mem + def->chunks[d->state >> 6]);
      __builtin_prefetch(in->mem + d->soff);
      __builtin_prefetch(in->mem + d->mem);
      if (d->up < 0) break;
    }
  }
  if (in->thinking) return BT_EBUSY;
  in->thinking = 1;
  bt_node_visit(in, 0);
  save_all(in);
  if (!in->settled) {
    bt_node_step(in, 0);
    in->settled = (uint8_t)in->def->plain_step;
  }
  in->forceupdate = 0;
  in->thinking = 0;
  return BT_OK;
}

void bt_inst_force_update(bt_inst *in) { in->forceupdate = 1; }

int bt_inst_sleep_time(bt_inst *in, double *out) {
  if (in->forceupdate) {
    *out = 0;
    return 1;
  }
  return bt_node_tree_sleep_time(in, 0, out);
}

int bt_inst_reset(bt_inst *in) {
  if (in->thinking) return BT_EBUSY;
  bt_node_reset(in, 0);
  return BT_OK;
}

void bt_inst_stop(bt_inst *in) { bt_node_stop(in, 0); }

int bt_inst_dump(bt_inst *in, bt_buf *out) { return bt_node_tree_string(in, 0, "", out); }

/* ---- fields ---- */

typedef struct field_place {
  unsigned char *base; /* memory of the field, or NULL for a flag */
  uint8_t flag;        /* presence flag (nilable fields) or the flag itself */
  int is_index;        /* a uint32 index rather than a double */
  int nil_zero;        /* index 0 means nil */
} field_place;

static int find_field(const bt_inst *in, int n, int field, field_place *p) {
  if (n < 0 || (uint32_t)n >= in->def->nnodes) return BT_EINVAL;
  const bt_def *d = in->def;
  const bt_state *st = &d->states[d->nodes[n].state];
  unsigned char *mem = in->mem + st->mem;
  int kind = d->nodes[n].kind;
  memset(p, 0, sizeof *p);
  switch (field) {
    case BT_FIELD_IDX:
      if (kind == BT_SEQUENCE || kind == BT_SELECTOR || kind == BT_LOOP || kind == BT_RANDOM) {
        p->base = (unsigned char *)&((mem_seq *)(void *)mem)->idx;
        p->nil_zero = kind == BT_RANDOM;
      } else if (kind == BT_PRIORITY) {
        p->base = (unsigned char *)&((mem_prio *)(void *)mem)->idx;
        p->nil_zero = 1;
      } else return BT_EINVAL;
      p->is_index = 1;
      return BT_OK;
    case BT_FIELD_REP:
      if (kind != BT_LOOP && kind != BT_REPEAT) return BT_EINVAL;
      p->base = (unsigned char *)&((mem_seq *)(void *)mem)->rep;
      p->is_index = 1;
      return BT_OK;
    case BT_FIELD_LASTTIME:
      if (kind != BT_PRIORITY) return BT_EINVAL;
      p->base = (unsigned char *)&((mem_prio *)(void *)mem)->lasttime;
      p->flag = SF_LASTTIME;
      return BT_OK;
    case BT_FIELD_WAKE_TIME:
      if (kind != BT_WAIT) return BT_EINVAL;
      p->base = mem;
      p->flag = SF_WAKE;
      return BT_OK;
    case BT_FIELD_NEXTUPDATETIME:
      if (st->nut == NO_SLOT) return BT_EINVAL;
      p->base = in->mem + st->nut;
      p->flag = SF_NUT;
      return BT_OK;
    case BT_FIELD_TRIGGERED:
      if (kind != BT_EVENT) return BT_EINVAL;
      p->flag = SF_TRIGGERED;
      return BT_OK;
    case BT_FIELD_RUNNING:
      if (kind != BT_MULTICONDITION) return BT_EINVAL;
      p->flag = SF_RUNNING;
      return BT_OK;
    case BT_FIELD_LASTLATCHTIME:
    case BT_FIELD_LATCHDURATION:
      if (kind != BT_LATCH) return BT_EINVAL;
      p->base = field == BT_FIELD_LASTLATCHTIME ? (unsigned char *)&((mem_latch *)(void *)mem)->last
                                                : (unsigned char *)&((mem_latch *)(void *)mem)->dur;
      return BT_OK;
    default: return BT_EINVAL;
  }
}

int bt_node_has_field(const bt_def *def, int n, int field) {
  if (!def || n < 0 || (uint32_t)n >= def->nnodes) return 0;
  int kind = def->nodes[n].kind;
  switch (field) {
    case BT_FIELD_IDX:
      return kind == BT_SEQUENCE || kind == BT_SELECTOR || kind == BT_LOOP || kind == BT_RANDOM ||
             kind == BT_PRIORITY;
    case BT_FIELD_REP: return kind == BT_LOOP || kind == BT_REPEAT;
    case BT_FIELD_LASTTIME: return kind == BT_PRIORITY;
    case BT_FIELD_WAKE_TIME: return kind == BT_WAIT;
    case BT_FIELD_NEXTUPDATETIME: return def->states[def->nodes[n].state].nut != NO_SLOT;
    case BT_FIELD_TRIGGERED: return kind == BT_EVENT;
    case BT_FIELD_RUNNING: return kind == BT_MULTICONDITION;
    case BT_FIELD_LASTLATCHTIME:
    case BT_FIELD_LATCHDURATION: return kind == BT_LATCH;
    default: return 0;
  }
}

int bt_node_get(const bt_inst *in, int n, int field, double *out) {
  field_place p;
  if (find_field(in, n, field, &p)) return BT_EINVAL;
  uint8_t fl = *flags_of(in, n);
  if (!p.base) {
    *out = (fl & p.flag) ? 1 : 0;
    return 1;
  }
  if (p.flag && !(fl & p.flag)) return 0;
  if (p.is_index) {
    uint32_t v;
    memcpy(&v, p.base, sizeof v);
    if (p.nil_zero && v == 0) return 0;
    *out = v;
    return 1;
  }
  memcpy(out, p.base, sizeof *out);
  return 1;
}

/* Whether v (not nil) can be the node's child index: a Priority's names a child (it visits
 * children[idx]); a Sequence's, Selector's or Loop's may also be one past the last (done), but not
 * 0. A RandomNode checks its index when it visits. */
static int index_ok(const bt_def *d, int n, uint32_t v) {
  switch (d->nodes[n].kind) {
    case BT_PRIORITY: return v >= 1 && v <= d->nodes[n].nchildren;
    case BT_RANDOM: return 1;
    default: return v >= 1;
  }
}

int bt_node_set(bt_inst *in, int n, int field, const double *value) {
  field_place p;
  if (find_field(in, n, field, &p)) return BT_EINVAL;
  touch(in, in->def->nodes[n].state);
  in->settled = 0;
  uint8_t *fl = flags_of(in, n);
  if (!p.base) {
    if (value && *value != 0) *fl |= p.flag;
    else *fl &= (uint8_t)~p.flag;
    return BT_OK;
  }
  if (p.is_index) {
    uint32_t v = 0;
    if (value) {
      if (!(*value >= (p.nil_zero ? 1 : 0) && *value <= 4294967295.0) || *value != (double)(uint32_t)*value)
        return BT_EINVAL;
      v = (uint32_t)*value;
      if (field == BT_FIELD_IDX && !index_ok(in->def, n, v)) return BT_EINVAL;
    } else if (!p.nil_zero) {
      return BT_EINVAL;
    }
    memcpy(p.base, &v, sizeof v);
    return BT_OK;
  }
  if (!value) {
    if (!p.flag) return BT_EINVAL;
    *fl &= (uint8_t)~p.flag;
    return BT_OK;
  }
  memcpy(p.base, value, sizeof *value);
  if (p.flag) *fl |= p.flag;
  return BT_OK;
}

/* ---- saving and restoring ---- */

#define STATE_MAGIC 0x31737462u /* "bts1" */

typedef struct state_header {
  uint32_t magic;
  uint32_t nstates;
  uint64_t hash;
  uint32_t mem_size;
  uint32_t forceupdate;
} state_header;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

unsigned long long bt_def_hash(const bt_def *d) {
  uint64_t h = 1469598103934665603ULL;
  if (!d) return 0;
  h = fnv(h, &d->nnodes, sizeof d->nnodes);
  h = fnv(h, &d->nstates, sizeof d->nstates);
  for (uint32_t i = 0; i < d->nnodes; i++) {
    const bt_node *n = &d->nodes[i];
    h = fnv(h, &n->kind, sizeof n->kind);
    h = fnv(h, &n->flags, sizeof n->flags);
    h = fnv(h, &n->state, sizeof n->state);
    h = fnv(h, &n->nchildren, sizeof n->nchildren);
    h = fnv(h, &n->param, sizeof n->param);
    const char *name = d->names + n->name;
    h = fnv(h, name, strlen(name) + 1);
  }
  return h;
}

int bt_def_equal(const bt_def *a, const bt_def *b) {
  if (a == b) return 1;
  if (!a || !b || a->nnodes != b->nnodes || a->nstates != b->nstates || a->mem_size != b->mem_size)
    return 0;
  for (uint32_t i = 0; i < a->nnodes; i++) {
    const bt_node *x = &a->nodes[i], *y = &b->nodes[i];
    if (x->kind != y->kind || x->flags != y->flags || x->state != y->state ||
        x->nchildren != y->nchildren || x->children != y->children || x->up != y->up ||
        memcmp(&x->param, &y->param, sizeof x->param) != 0 || x->fn != y->fn || x->fn2 != y->fn2 ||
        x->ud != y->ud || x->ud2 != y->ud2 || x->ops != y->ops || x->ops_ud != y->ops_ud ||
        x->task != y->task ||
        strcmp(a->names + x->name, b->names + y->name) != 0)
      return 0;
  }
  if (memcmp(a->kids, b->kids, a->nnodes * sizeof *a->kids) != 0) return 0;
  for (uint32_t s = 0; s < a->nstates; s++)
    if (a->states[s].parent != b->states[s].parent || a->states[s].node != b->states[s].node ||
        a->states[s].graph != b->states[s].graph)
      return 0;
  return 1;
}

size_t bt_inst_state_size(const bt_def *d) {
  return d ? sizeof(state_header) + 3 * (size_t)d->nstates + d->mem_size : 0;
}

int bt_inst_save(const bt_inst *in, void *out, size_t size) {
  const bt_def *d = in->def;
  if (!out || size < bt_inst_state_size(d)) return BT_EINVAL;
  state_header hd = {STATE_MAGIC, d->nstates, bt_def_hash(d), (uint32_t)d->mem_size, in->forceupdate};
  unsigned char *p = out;
  memcpy(p, &hd, sizeof hd);
  p += sizeof hd;
  uint32_t n = d->nstates;
  for (uint32_t s = 0; s < n; s++) {
    p[s] = *status_at(in, s);
    p[n + s] = *last_at(in, s);
    p[2 * n + s] = *flags_at(in, s);
  }
  p += 3 * (size_t)n;
  memset(p, 0, d->mem_size); /* the memory packed, as the states' blocks would lie in one area */
  for (uint32_t s = 0; s < n; s++) {
    const bt_state *st = &d->states[s];
    if (st->nut != NO_SLOT) memcpy(p + st->pnut, in->mem + st->nut, sizeof(double));
    size_t bytes = (size_t)kind_mem_size(d->nodes[st->node].kind);
    if (bytes) memcpy(p + st->pmem, in->mem + st->mem, bytes);
  }
  return BT_OK;
}

int bt_inst_restore(bt_inst *in, const void *data, size_t size) {
  const bt_def *d = in->def;
  state_header hd;
  if (in->thinking) return BT_EBUSY;
  if (!data || size != bt_inst_state_size(d)) return BT_EINVAL;
  memcpy(&hd, data, sizeof hd);
  if (hd.magic != STATE_MAGIC || hd.nstates != d->nstates || hd.mem_size != d->mem_size ||
      hd.hash != bt_def_hash(d))
    return BT_EINVAL;
  const unsigned char *p = (const unsigned char *)data + sizeof hd;
  for (uint32_t s = 0; s < d->nstates; s++)
    if (p[s] > BT_RUNNING || p[d->nstates + s] > BT_RUNNING) return BT_EINVAL;
  /* child indices that name no child (a Priority's may be nil) */
  const unsigned char *mem = p + 3 * (size_t)d->nstates;
  for (uint32_t s = 0; s < d->nstates; s++) {
    int n = (int)d->states[s].node, kind = d->nodes[n].kind;
    uint32_t idx;
    if (kind == BT_SEQUENCE || kind == BT_SELECTOR || kind == BT_LOOP)
      memcpy(&idx, mem + d->states[s].pmem + offsetof(mem_seq, idx), sizeof idx);
    else if (kind == BT_PRIORITY)
      memcpy(&idx, mem + d->states[s].pmem + offsetof(mem_prio, idx), sizeof idx);
    else continue;
    if (!(kind == BT_PRIORITY && idx == 0) && !index_ok(d, n, idx)) return BT_EINVAL;
  }
  uint32_t n = d->nstates;
  for (uint32_t s = 0; s < n; s++) {
    const bt_state *st = &d->states[s];
    *status_at(in, s) = p[s];
    *last_at(in, s) = p[n + s];
    *flags_at(in, s) = p[2 * n + s];
    if (st->nut != NO_SLOT) memcpy(in->mem + st->nut, mem + st->pnut, sizeof(double));
    size_t bytes = (size_t)kind_mem_size(d->nodes[st->node].kind);
    if (bytes) memcpy(in->mem + st->mem, mem + st->pmem, bytes);
  }
  in->forceupdate = hd.forceupdate != 0;
  inst_mark_touched(in);
  return BT_OK;
}
