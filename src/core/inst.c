/* SPDX-License-Identifier: MIT */
/* inst.c: per-agent instances: creation, the think cycle, sleep times, the hook, saving and
 * restoring the state, the host's clock and random numbers. */
#include <stdlib.h>
#include <string.h>

#include "btp.h"
#include "internal.h"

#define PREFETCH_BYTES 1024 /* the largest instance a think asks for whole at its start */

double bt_time_monotonic(void) { return btp_time_monotonic(); }

double bti_now(bt_inst *in) {
  if (in->host && in->host->now) return in->host->now(in->host->data);
  return bt_time_monotonic();
}

/* xorshift64*: the instance's own generator, used when the host gives none (only a tree with
 * Priorities or RandomNodes draws numbers, and only its instances have one) */
static uint64_t next_random(bt_inst *in) {
  uint64_t x;
  if (!in->def->rng_off) return 0;
  memcpy(&x, inst_mem(in) + in->def->rng_off, sizeof x);
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  memcpy(inst_mem(in) + in->def->rng_off, &x, sizeof x);
  return x * 0x2545F4914F6CDD1DULL;
}

double bti_random(bt_inst *in) {
  if (in->host && in->host->random) return in->host->random(in->host->data);
  return (double)(next_random(in) >> 11) * (1.0 / 9007199254740992.0);
}

int bti_random_int(bt_inst *in, int n, int *out) {
  if (in->host && in->host->random_int) return in->host->random_int(in->host->data, n, out);
  if (n < 1) return BT_EINVAL;
  *out = 1 + (int)(next_random(in) % (uint64_t)n);
  return BT_OK;
}

int bt_inst_init(bt_inst **out, void *mem, bt_def *def, const bt_host *host, void *agent,
                 unsigned flags) {
  *out = NULL;
  if (!def || !mem) return BT_EINVAL;
  memcpy(mem, def->image, def->inst_size);
  bt_inst *in = mem;
  in->def = def;
  in->host = host;
  in->agent = agent;
  if (def->rng_off) {
    uint64_t seed = (uint64_t)(uintptr_t)in * 0x9E3779B97F4A7C15ULL | 1;
    memcpy(inst_mem(in) + def->rng_off, &seed, sizeof seed);
  }
  in->exact = (flags & BT_INST_EXACT) != 0;
  if (!(flags & BT_INST_NOSCATTER)) bti_scatter(in);
  bt_def_retain(def);
  if (def->watch) {
    int rc = def->watch(def->watch_ud, in);
    if (rc != BT_OK) {
      bt_inst_set_hook(in, NULL, NULL);
      bti_ext_free(in);
      bt_def_release(def);
      return rc;
    }
  }
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
  if (in->hooked) bt_inst_set_hook(in, NULL, NULL);
  bti_board_fini(in);
  bti_ext_free(in);
  bt_def_release(in->def);
  in->def = NULL;
}

void bt_inst_free(bt_inst *in) {
  if (!in) return;
  bt_inst_fini(in);
  free(in);
}

int bt_inst_seed(bt_inst *in, unsigned long long seed) {
  if (!in) return BT_EINVAL;
  if (in->thinking) return BT_EBUSY;
  if (!in->def->rng_off) return BT_OK; /* draws nothing */
  /* splitmix64's finaliser: nearby seeds (agent ids) start far apart; never 0, xorshift's fixed point */
  uint64_t x = (uint64_t)seed + 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x = (x ^ (x >> 31)) | 1;
  memcpy(inst_mem(in) + in->def->rng_off, &x, sizeof x);
  return BT_OK;
}

int bt_inst_random_state(const bt_inst *in, unsigned long long *out) {
  if (!in || !out) return BT_EINVAL;
  *out = 0;
  if (!in->def->rng_off) return BT_OK;
  uint64_t x;
  memcpy(&x, inst_mem(in) + in->def->rng_off, sizeof x);
  *out = x;
  return BT_OK;
}

int bt_inst_set_random_state(bt_inst *in, unsigned long long state) {
  if (!in || state == 0) return BT_EINVAL;
  if (in->thinking) return BT_EBUSY;
  if (!in->def->rng_off) return BT_OK;
  uint64_t x = state;
  memcpy(inst_mem(in) + in->def->rng_off, &x, sizeof x);
  return BT_OK;
}

int bt_inst_scatter(bt_inst *in) {
  if (!in) return BT_EINVAL;
  if (in->thinking) return BT_EBUSY;
  bti_scatter(in);
  in->settled = 0;
  forget_sleep(in);
  return BT_OK;
}

void *bt_inst_agent(const bt_inst *in) { return in->extended ? ext_of(in)->agent : in->agent; }
const bt_def *bt_inst_def(const bt_inst *in) { return in->def; }
double bt_inst_now(bt_inst *in) { return bti_now(in); }
int bt_inst_thinking(const bt_inst *in) { return in->thinking != 0; }
unsigned bt_inst_flags(const bt_inst *in) { return in->exact ? BT_INST_EXACT : 0; }

void bt_inst_set_exact(bt_inst *in, int on) { in->exact = on != 0; }

/* SaveStatus of the whole tree: only states whose status changed since the last one differ, and
 * a think that changed none has no bits to look at. */
static void save_all(bt_inst *in) {
  const bt_def *def = in->def;
  if (!def->fast_paths) { /* the reference way: Don't Starve's SaveStatus, every node, each think */
    bt_node_save_status(in, 0);
    in->unsaved = 0;
    return;
  }
  if (!in->unsaved) return;
  in->unsaved = 0;
  uint32_t nwords = def->nwords, nstates = def->nstates;
  if (nwords == 1) { /* no summaries, no dirty word: the statuses whole (nstates bytes, at most 64) */
    bti_save_chunk((unsigned char *)(touched_word(in, 0) + 1), nstates);
    return;
  }
  for (uint64_t sum = *dirty_sum(in); sum; sum &= sum - 1) {
    uint32_t w = (uint32_t)__builtin_ctzll(sum) << def->sum_shift;
    uint32_t end = w + ((uint32_t)1 << def->sum_shift);
    for (; w < end && w < nwords; w++) {
      uint64_t *word = dirty_word(in, w);
      if (!*word) continue;
      *word = 0;
      /* the chunk's statuses over its last results, whole: those of the states whose bit is
       * clear are equal already (k bytes, at most 64) */
      uint32_t k = nstates - w * 64 < 64 ? nstates - w * 64 : 64;
      bti_save_chunk((unsigned char *)(word + 2), k);
    }
  }
  *dirty_sum(in) = 0;
}

/* ---- the hook ---- */

/* A hooked instance's bti_ext: it has one (bt_inst_set_hook and bt_inst_move_hook make it, and
 * bt_inst_fini unhooks it before freeing it), so no test of `extended` (ext_of's) is needed. */
static bti_ext *hooked_ext(const bt_inst *in) { return (bti_ext *)in->agent; }

static int hook_call(bt_inst *in, const bt_hook_msg *m) {
  const bti_ext *x = hooked_ext(in);
  return x->hook(x->hook_ud, in, m);
}

void bti_hook_status(bt_inst *in, const bt_node *d, int from, int to) {
  bt_hook_msg m; /* (a status change's message: the fields it does not use are not read) */
  m.what = BT_HOOK_STATUS;
  m.node = (int)(d - in->def->nodes);
  m.from = from;
  m.to = to;
  in->kept = 0;
  hook_call(in, &m);
}

int bti_hook_send(bt_inst *in, bt_hook_what what, int node) {
  bt_hook_msg m = {.what = what, .node = node};
  if (what != BT_HOOK_SAVED) in->kept = 0;
  return hook_call(in, &m);
}

/* A think's messages that say no more than what they are, made once rather than at each think. */
static const bt_hook_msg msg_begin = {.what = BT_HOOK_BEGIN, .node = -1};
static const bt_hook_msg msg_saved = {.what = BT_HOOK_SAVED, .node = -1};

/* A think begins (bti_hook_send's, with its message made once). */
static void hook_begin(bt_inst *in) {
  in->kept = 0;
  hook_call(in, &msg_begin);
}

void bti_hook_reload(bt_inst *in, const bt_def *from) {
  bt_hook_msg m = {.what = BT_HOOK_RELOAD, .node = -1, .def = from};
  in->kept = 0;
  hook_call(in, &m);
}

/* A think ended: the hook gets its sleep time, which the instance keeps for the host's question
 * (bt_inst_sleep_time asks the tree once a think, recorded or not). */
static void hook_end(bt_inst *in) {
  bt_hook_msg m = {.what = BT_HOOK_END, .node = -1};
  in->kept = 0;
  m.has_sleep = bt_node_tree_sleep_time(in, 0, &m.sleep);
  if (!m.has_sleep) m.sleep = 0;
  if (!BTI_HOOKED(in)) return; /* (a sleep time of the host's unhooked it) */
  bti_ext *x = hooked_ext(in);
  x->kept_has = m.has_sleep;
  x->kept_sleep = m.sleep;
  x->kept_now = bti_now(in);
  in->kept = 1;
  hook_call(in, &m);
}

int bt_inst_set_hook(bt_inst *in, bt_hook_fn fn, void *ud) {
  if (!in) return BT_EINVAL;
#if !BT_HOOKS
  (void)ud;
  return fn ? BT_EINVAL : BT_OK;
#else
  if (fn && !bti_ext_get(in)) return BT_ENOMEM;
  in->kept = 0;
  if (in->hooked) {
    bti_ext *x = ext_of(in);
    bt_hook_fn old = x->hook;
    void *old_ud = x->hook_ud;
    in->hooked = 0;
    x->hook = NULL;
    x->hook_ud = NULL;
    bt_hook_msg m = {.what = BT_HOOK_DETACH, .node = -1};
    old(old_ud, in, &m);
  }
  if (!fn) return BT_OK;
  bti_ext *x = ext_of(in);
  x->hook = fn;
  x->hook_ud = ud;
  in->hooked = 1;
  return BT_OK;
#endif
}

bt_hook_fn bt_inst_hook(const bt_inst *in, void **ud) {
  const bti_ext *x = in && in->hooked ? ext_of(in) : NULL;
  if (ud) *ud = x ? x->hook_ud : NULL;
  return x ? x->hook : NULL;
}

int bt_inst_move_hook(bt_inst *to, bt_inst *from) {
  if (!to || !from || to == from) return BT_EINVAL;
  if (to->thinking || from->thinking || to->hooked) return BT_EBUSY;
  if (!from->hooked) return BT_OK;
  bti_ext *x = bti_ext_get(to);
  if (!x) return BT_ENOMEM;
  bti_ext *old = ext_of(from);
  x->hook = old->hook;
  x->hook_ud = old->hook_ud;
  old->hook = NULL;
  old->hook_ud = NULL;
  from->hooked = 0;
  from->kept = 0;
  to->kept = 0;
  to->hooked = 1;
  bt_hook_msg m = {.what = BT_HOOK_MOVE, .node = -1};
  hook_call(to, &m);
  return BT_OK;
}

static int hook_bytes(bt_inst *in, bt_hook_what what, int node, const void *data, size_t size) {
  if (!BTI_HOOKED(in)) return BT_OK;
  bt_hook_msg m = {.what = what, .node = node, .data = data, .size = size};
  return hook_call(in, &m);
}

int bt_inst_record_error(bt_inst *in, int node, const char *message) {
  if (!in || !message || node < -1 || (node >= 0 && (uint32_t)node >= in->def->nnodes)) return BT_EINVAL;
  return hook_bytes(in, BT_HOOK_ERROR, node, message, strlen(message));
}

int bt_inst_record_host(bt_inst *in, int code, const void *data, size_t size) {
  if (!in || (!data && size)) return BT_EINVAL;
  return hook_bytes(in, BT_HOOK_HOST, code, data, size);
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
      __builtin_prefetch(inst_mem(in) + def->chunks[d->state >> 6]);
      __builtin_prefetch(inst_mem(in) + d->soff);
      __builtin_prefetch(inst_mem(in) + d->mem);
      if (d->up < 0) break;
    }
  }
  if (in->thinking) return BT_EBUSY;
  in->thinking = 1;
  if (BTI_HOOKED(in)) hook_begin(in);
  if (in->def->small_plain) {
    bti_think_small(in);
  } else {
    bt_node_visit(in, 0);
    save_all(in);
    if (BTI_HOOKED(in)) hook_call(in, &msg_saved);
    if (!in->settled) {
      bt_node_step(in, 0);
      in->settled = (uint8_t)in->def->plain_step;
    }
  }
  in->forceupdate = in->woken; /* a key it watches was written in the think: the next tick */
  in->woken = 0;
  in->thinking = 0;
  if (BTI_HOOKED(in)) hook_end(in);
  return BT_OK;
}

void bt_inst_force_update(bt_inst *in) {
  in->forceupdate = 1;
  if (BTI_HOOKED(in)) bti_hook_send(in, BT_HOOK_FORCE, -1);
}

int bt_inst_sleep_time(bt_inst *in, double *out) {
  if (in->forceupdate) {
    *out = 0;
    return 1;
  }
  if (BTI_HOOKED(in) && in->kept) {
    const bti_ext *x = hooked_ext(in);
    if (bti_now(in) == x->kept_now) {
      *out = x->kept_sleep;
      return x->kept_has;
    }
  }
  return bt_node_tree_sleep_time(in, 0, out);
}

/* After such a reset the nodes under visit go on with their visit, which may change their fields
 * (a Loop counts a pass) without touching them again, since they were touched when their visit
 * began: the node visited last (hint) and the nodes above it get their bits back. */
static void touch_visiting(bt_inst *in) {
  const bt_def *def = in->def;
  if (in->hint >= def->nnodes) return;
  for (int32_t n = (int32_t)in->hint; n >= 0; n = def->nodes[n].up) touch(in, def->nodes[n].state);
}

int bt_inst_reset(bt_inst *in) {
  forget_sleep(in);
  if (!in->thinking) {
    bt_node_reset(in, 0);
    return BT_OK;
  }
  bti_touch_unclean(in);
  bt_node_reset(in, 0);
  touch_visiting(in);
  return BT_OK;
}

void bt_inst_stop(bt_inst *in) {
  bt_node_stop(in, 0);
  if (BTI_HOOKED(in)) bti_hook_send(in, BT_HOOK_STOP, -1); /* after every on_stop: the tree is stopped now */
}

int bt_inst_dump(bt_inst *in, bt_buf *out) { return bt_node_tree_string(in, 0, "", out); }

/* ---- saving and restoring ---- */

/* "bts3": version 3 adds the keys' values after the node memory, a KEY_BYTES entry per key, then
 * the bytes of its strings one after the other (a definition without keys takes version 2's bytes
 * too: they are the same but for the magic). Version 2 packs a Sequence's and a Selector's memory
 * in 4 bytes (version 1: 8), and the memory of the states aligned for a double first in each chunk
 * of 64. */
#define STATE_MAGIC 0x33737462u
#define STATE_MAGIC_2 0x32737462u
#define KEY_BYTES 16 /* a key's entry: its value's 8 bytes (a string's: its length), then its type */

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

/* The blackboard's part of the hash: its keys (name, type, flags), the nodes' ports (key, how)
 * and the watching nodes' conditions (key, comparison, value). A tree without keys has none, so its
 * hash is what it was before trees had blackboards. */
static uint64_t board_hash(const bt_def *d, uint64_t h) {
  h = fnv(h, &d->nkeys, sizeof d->nkeys);
  for (uint32_t k = 0; k < d->nkeys; k++) {
    h = fnv(h, d->keys[k].name, strlen(d->keys[k].name) + 1);
    h = fnv(h, &d->keys[k].type, sizeof d->keys[k].type);
    h = fnv(h, &d->keys[k].flags, sizeof d->keys[k].flags);
  }
  for (uint32_t i = 0; d->port_first && i < d->port_first[d->nnodes]; i++) {
    h = fnv(h, &d->port_keys[i], sizeof d->port_keys[i]);
    h = fnv(h, &d->ports[i].how, sizeof d->ports[i].how);
  }
  for (uint32_t n = 0; d->port_first && n <= d->nnodes; n++) h = fnv(h, &d->port_first[n], sizeof d->port_first[n]);
  for (uint32_t n = 0; d->watches && n < d->nnodes; n++) {
    const bti_watch *w = &d->watches[n];
    if (w->key < 0) continue; /* (a function's; other nodes' entries are zero) */
    h = fnv(h, &n, sizeof n);
    h = fnv(h, &w->key, sizeof w->key);
    h = fnv(h, &w->cmp, sizeof w->cmp);
    h = fnv(h, &w->value.type, sizeof w->value.type);
    if (w->value.type == BT_KEY_STRING) h = fnv(h, w->value.as.string, strlen(w->value.as.string) + 1);
    else h = fnv(h, &w->value.as, sizeof w->value.as);
  }
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
  return d->nkeys ? board_hash(d, h) : h;
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
        x->ud != y->ud || (x->ud2 != y->ud2 && !watches(x->kind)) || x->ops != y->ops || x->ops_ud != y->ops_ud ||
        x->task != y->task ||
        strcmp(a->names + x->name, b->names + y->name) != 0)
      return 0;
  }
  if (memcmp(a->kids, b->kids, a->nnodes * sizeof *a->kids) != 0) return 0;
  for (uint32_t s = 0; s < a->nstates; s++)
    if (a->states[s].parent != b->states[s].parent || a->states[s].node != b->states[s].node ||
        a->states[s].graph != b->states[s].graph)
      return 0;
  return bti_board_equal(a, b); /* a watching node's ud2 is its condition, compared there */
}

size_t bt_inst_state_size(const bt_def *d) {
  return d ? sizeof(state_header) + 3 * (size_t)d->nstates + d->mem_size + KEY_BYTES * (size_t)d->nkeys : 0;
}

size_t bt_inst_save_size(const bt_inst *in) {
  if (!in) return 0;
  size_t size = bt_inst_state_size(in->def);
  for (uint32_t k = 0; k < in->def->nkeys; k++)
    if (key_slot(in, k)->type == BT_KEY_STRING) size += strlen(key_slot(in, k)->v.string);
  return size;
}

int bt_inst_unsaveable_key(const bt_inst *in) {
  for (uint32_t k = 0; in && k < in->def->nkeys; k++)
    if (key_slot(in, k)->type == BT_KEY_VALUE) return (int)k;
  return -1;
}

/* Writes the keys' entries at p, and their strings' bytes after them. */
static void save_keys(const bt_inst *in, unsigned char *p) {
  uint32_t nkeys = in->def->nkeys;
  unsigned char *text = p + KEY_BYTES * (size_t)nkeys;
  memset(p, 0, KEY_BYTES * (size_t)nkeys);
  for (uint32_t k = 0; k < nkeys; k++, p += KEY_BYTES) {
    const bti_value_slot *s = key_slot(in, k);
    uint64_t v = 0;
    switch (s->type) {
      case BT_KEY_NUMBER: memcpy(&v, &s->v.number, sizeof v); break;
      case BT_KEY_INTEGER: v = (uint64_t)s->v.integer; break;
      case BT_KEY_BOOLEAN: v = s->v.boolean != 0; break;
      case BT_KEY_STRING:
        v = strlen(s->v.string);
        memcpy(text, s->v.string, (size_t)v);
        text += v;
        break;
      case BT_KEY_ENTITY: v = s->v.id; break;
      default: break;
    }
    memcpy(p, &v, sizeof v);
    p[8] = s->type;
  }
}

/* Checks the keys' entries at p, with len bytes of strings after them: BT_OK, or BT_EINVAL for a
 * value its key cannot hold, or bytes left over or missing. Allocates nothing. */
static int check_keys(const bt_def *d, const unsigned char *p, size_t len) {
  const unsigned char *text = p + KEY_BYTES * (size_t)d->nkeys;
  for (uint32_t k = 0; k < d->nkeys; k++, p += KEY_BYTES) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    int type = p[8];
    if (type == BT_KEY_NONE) continue;
    if (type != d->keys[k].type || type == BT_KEY_VALUE || (type == BT_KEY_BOOLEAN && v > 1)) return BT_EINVAL;
    if (type != BT_KEY_STRING) continue;
    if (v > len || memchr(text, 0, (size_t)v)) return BT_EINVAL; /* no NUL: a string is C text */
    text += v;
    len -= (size_t)v;
  }
  return len ? BT_EINVAL : BT_OK;
}

/* The strings of the keys' entries at p (checked), copied into copies[k]: BT_OK, or BT_ENOMEM
 * with nothing left allocated. */
static int copy_key_strings(const bt_def *d, const unsigned char *p, char **copies) {
  const unsigned char *text = p + KEY_BYTES * (size_t)d->nkeys;
  for (uint32_t k = 0; k < d->nkeys; k++, p += KEY_BYTES) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    if (p[8] != BT_KEY_STRING) continue;
    if (!(copies[k] = malloc((size_t)v + 1))) {
      for (uint32_t j = 0; j < k; j++) free(copies[j]);
      return BT_ENOMEM;
    }
    memcpy(copies[k], text, (size_t)v);
    copies[k][v] = '\0';
    text += v;
  }
  return BT_OK;
}

/* Gives the instance the keys' values of the entries at p, with the strings copy_key_strings copied. */
static void restore_keys(bt_inst *in, const unsigned char *p, char **copies) {
  for (uint32_t k = 0; k < in->def->nkeys; k++, p += KEY_BYTES) {
    bti_value_slot *s = key_slot(in, k);
    if (s->type == BT_KEY_STRING) free(s->v.string);
    uint64_t v;
    memcpy(&v, p, sizeof v);
    memset(s, 0, sizeof *s);
    s->type = p[8];
    switch (s->type) {
      case BT_KEY_NUMBER: memcpy(&s->v.number, &v, sizeof v); break;
      case BT_KEY_INTEGER: s->v.integer = (long long)v; break;
      case BT_KEY_BOOLEAN: s->v.boolean = (int)v; break;
      case BT_KEY_STRING: s->v.string = copies[k]; break;
      case BT_KEY_ENTITY: s->v.id = v; break;
      default: break;
    }
  }
}

int bt_inst_save(const bt_inst *in, void *out, size_t size) {
  if (!in || !out || size < bt_inst_save_size(in) || bt_inst_unsaveable_key(in) >= 0) return BT_EINVAL;
  const bt_def *d = in->def;
  state_header hd = {STATE_MAGIC, d->nstates, bt_def_hash(d), (uint32_t)d->mem_size, in->forceupdate};
  unsigned char *p = out;
  memcpy(p, &hd, sizeof hd);
  p += sizeof hd;
  uint32_t n = d->nstates;
  for (uint32_t s = 0; s < n; s++) {
    p[s] = *status_at(in, s);
    p[n + s] = last_of(in, s);
    p[2 * n + s] = (unsigned char)((*flags_at(in, s) & ~SF_LAST) >> SF_SAVED_SHIFT);
  }
  p += 3 * (size_t)n;
  memset(p, 0, d->mem_size); /* the memory packed, as the states' blocks would lie in one area */
  for (uint32_t s = 0; s < n; s++) {
    const bt_state *st = &d->states[s];
    double t;
    if (st->nut != NO_SLOT) memcpy(p + st->pnut, inst_mem(in) + st->nut, sizeof(double));
    else if (st->spill != NO_SLOT && bti_deadline_get(in, s, &t)) memcpy(p + st->pnut, &t, sizeof t);
    size_t bytes = bti_kinds[d->nodes[st->node].kind].mem_size;
    if (bytes) memcpy(p + st->pmem, inst_mem(in) + st->mem, bytes);
  }
  save_keys(in, p + d->mem_size);
  return BT_OK;
}

int bt_inst_restore(bt_inst *in, const void *data, size_t size) {
  if (in) forget_sleep(in);
  const bt_def *d = in->def;
  size_t fixed = bt_inst_state_size(d);
  state_header hd;
  if (in->thinking) return BT_EBUSY;
  if (!data || size < fixed) return BT_EINVAL;
  memcpy(&hd, data, sizeof hd);
  if (!(hd.magic == STATE_MAGIC || (hd.magic == STATE_MAGIC_2 && d->nkeys == 0)) || hd.nstates != d->nstates ||
      hd.mem_size != d->mem_size || hd.hash != bt_def_hash(d))
    return BT_EINVAL;
  const unsigned char *p = (const unsigned char *)data + sizeof hd;
  for (uint32_t s = 0; s < d->nstates; s++)
    if (p[s] > BT_RUNNING || p[d->nstates + s] > BT_RUNNING) return BT_EINVAL;
  /* child indices that name no child (those that may be nil may be 0) */
  const unsigned char *mem = p + 3 * (size_t)d->nstates;
  for (uint32_t s = 0; s < d->nstates; s++) {
    int n = (int)d->states[s].node;
    const bti_kind *k = &bti_kinds[d->nodes[n].kind];
    for (int i = 0; i < k->nfields; i++) {
      const bti_field *f = &k->fields[i];
      if (!bti_is_index(f)) continue;
      uint32_t idx = get_u32(mem + d->states[s].pmem + f->off);
      if (!(f->type != BTI_INDEX && idx == 0) && !bti_index_ok(d, n, f, idx)) return BT_EINVAL;
    }
  }
  /* the keys' values checked, then their strings copied before anything changes: a refused
   * restore changes nothing */
  const unsigned char *keys = mem + d->mem_size;
  if (check_keys(d, keys, size - fixed) != BT_OK) return BT_EINVAL;
  char **copies = d->nkeys ? calloc(d->nkeys, sizeof *copies) : NULL;
  if (d->nkeys && !copies) return BT_ENOMEM;
  int rc = copy_key_strings(d, keys, copies);
  uint32_t n = d->nstates;
  for (uint32_t s = 0; rc == BT_OK && s < n; s++) /* and room for the spilled deadlines */
    if (d->states[s].spill != NO_SLOT && (p[2 * n + s] << SF_SAVED_SHIFT & SF_NUT) &&
        bti_deadline_reserve(in) != BT_OK) {
      for (uint32_t k = 0; k < d->nkeys; k++) free(copies[k]);
      rc = BT_ENOMEM;
    }
  if (rc != BT_OK) {
    free(copies);
    return rc;
  }
  for (uint32_t s = 0; s < n; s++) {
    const bt_state *st = &d->states[s];
    hook_status(in, &d->nodes[st->node], *status_at(in, s), p[s]);
    *status_at(in, s) = p[s];
    *flags_at(in, s) = (uint8_t)((p[2 * n + s] << SF_SAVED_SHIFT & ~SF_LAST) | p[n + s]);
    if (st->nut != NO_SLOT) memcpy(inst_mem(in) + st->nut, mem + st->pnut, sizeof(double));
    else if (st->spill != NO_SLOT && (*flags_at(in, s) & SF_NUT))
      memcpy(&ext_of(in)->deadlines[st->spill], mem + st->pnut, sizeof(double));
    size_t bytes = bti_kinds[d->nodes[st->node].kind].mem_size;
    if (bytes) memcpy(inst_mem(in) + st->mem, mem + st->pmem, bytes);
  }
  restore_keys(in, keys, copies);
  free(copies);
  in->forceupdate = hd.forceupdate != 0;
  bti_mark_touched(in);
  return BT_OK;
}
