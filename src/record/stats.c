/* SPDX-License-Identifier: MIT */
/*
 * stats.c: per-node statistics (bt.h "statistics"), counted from the transition recorder's
 * records, so that the figures of a live run (a recorder's sink, bt_rec_set_stats) and those of
 * a log (bt_stats_add, fed what a reader decoded) are the same code's.
 *
 * A bt_stats keeps, per shape, each node's figures of the runs that ended, and, per agent, the
 * runs under way: their start times, and the list of the nodes running (a think's record adds
 * one to the `thinks` of each). Reading adds the runs under way, up to their agent's latest
 * record, to the figures kept. With bt_stats_keep_agents, a recorder's agent also keeps figures
 * of its own (`own`), counted from `since` (its last reset). Agents fed by bt_stats_add are found
 * by their id in an open addressing table; a recorder's agent is its own, reached from the
 * recorder.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "rec_internal.h"

#define NONE UINT32_MAX

/* One node's figures, as counted (runs under way are the agents'). */
typedef struct figures {
  unsigned long long visits, successes, failures, aborts, runs, thinks, errors;
  double time, longest;
  long long running; /* runs under way merged in from another bt_stats (bt_stats_merge) */
} figures;

typedef struct shape {
  unsigned long long hash;
  int nodes;
  int index; /* its place in bt_stats.shapes */
  int agents;
  unsigned long long thinks, errors, writes;
  bt_def *def;  /* held: a definition of the shape a live recorder fed, or NULL */
  figures *fig; /* nodes of them */
} shape;

typedef struct bti_stats_agent bti_stats_agent;

struct bti_stats_agent {
  bti_sink sink; /* a recorder's agent: its place among the recorder's sinks (the first: agent_of) */
  /* what counting a record reads and writes, next to the sink that the recorder reads: the
   * agent's first 120 bytes of its 168 */
  const bt_def *def;            /* a recorder's agent: the definition its shape was taken from */
  shape *sh;                    /* the shape of its tree; NULL until its first record */
  bt_stats *st;
  unsigned gen;                 /* the reset it was last counted in (bt_stats.gen) */
  uint32_t nrun;
  double *start;                /* per node: the start of its run under way */
  uint32_t *run, *pos;          /* the nodes running, run[0 .. nrun), and each one's place there or NONE */
  double last;                  /* the time of its latest record */
  unsigned long long think;     /* the think number of its latest THINK record */
  figures *own;                 /* its own figures (bt_stats_keep_agents; a recorder's agent only) */
  unsigned long long own_thinks, own_errors;
  double since; /* its own figures count runs from here (its last reset) */
  /* the rest */
  bti_stats_agent *prev, *next; /* every agent of st */
  bt_rec *rec;                  /* a recorder's agent: the recorder; NULL for bt_stats_add's */
  unsigned long long id;        /* bt_stats_add's agent id */
  int cap;                      /* nodes the arrays below have room for */
  unsigned long long own_writes; /* its own BT_REC_KEY records (rare: out of the first 120 bytes) */
};

struct bt_stats {
  shape **shapes;
  int nshapes, cap;
  bti_stats_agent *agents; /* a list of every agent */
  bti_stats_agent **table; /* bt_stats_add's agents by id: open addressing, tcap a power of 2 */
  size_t tcap, tcount;
  unsigned gen; /* bumped by bt_stats_reset; 0 is no reset's */
  int keep_agents;
  unsigned long long dropped;
};

/* ---- shapes ---- */

static shape *shape_find(const bt_stats *st, unsigned long long hash) {
  for (int i = 0; i < st->nshapes; i++)
    if (st->shapes[i]->hash == hash) return st->shapes[i];
  return NULL;
}

static shape *shape_new(unsigned long long hash, int nodes) {
  shape *sh = calloc(1, sizeof *sh);
  if (!sh) return NULL;
  if (!(sh->fig = calloc((size_t)nodes, sizeof *sh->fig))) {
    free(sh);
    return NULL;
  }
  sh->hash = hash;
  sh->nodes = nodes;
  return sh;
}

static void shape_free(shape *sh) {
  if (sh->def) bt_def_release(sh->def);
  free(sh->fig);
  free(sh);
}

/* Appends sh (room was made with bti_grow). */
static void shape_put(bt_stats *st, shape *sh) {
  sh->index = st->nshapes;
  st->shapes[st->nshapes++] = sh;
}

/* The shape of that hash, made if new; NULL when out of memory or when the shape is known with
 * another node count. */
static shape *shape_get(bt_stats *st, unsigned long long hash, int nodes) {
  shape *sh = shape_find(st, hash);
  if (sh) return sh->nodes == nodes ? sh : NULL;
  if (bti_grow((void **)&st->shapes, &st->cap, st->nshapes + 1, sizeof *st->shapes) != BT_OK) return NULL;
  if (!(sh = shape_new(hash, nodes))) return NULL;
  shape_put(st, sh);
  return sh;
}

/* ---- runs ---- */

static double span(double from, double to) {
  double d = to - from;
  return d > 0 ? d : 0; /* a clock that went back, or NaN */
}

static void add_run(figures *f, double d) {
  f->time += d;
  if (d > f->longest) f->longest = d;
}

static void run_end(bti_stats_agent *a, uint32_t n, double t) {
  double start = a->start[n];
  add_run(&a->sh->fig[n], span(start, t));
  if (a->own) add_run(&a->own[n], span(start > a->since ? start : a->since, t));
  uint32_t i = a->pos[n], moved = a->run[--a->nrun];
  a->run[i] = moved;
  a->pos[moved] = i;
  a->pos[n] = NONE;
}

static void run_begin(bti_stats_agent *a, uint32_t n, double t) {
  a->start[n] = t;
  a->pos[n] = a->nrun;
  a->run[a->nrun++] = n;
}

/* Ends every run under way at the agent's latest record (its tree is gone or changed). */
static void runs_end(bti_stats_agent *a) {
  while (a->nrun) run_end(a, a->run[a->nrun - 1], a->last);
}

static void own_clear(bti_stats_agent *a, int nodes, double since) {
  if (a->own) memset(a->own, 0, (size_t)nodes * sizeof *a->own);
  a->own_thinks = a->own_errors = a->own_writes = 0;
  a->since = since;
}

/* Makes sh the agent's shape, with room for its nodes, its runs under way ended and its own
 * figures afresh: BT_OK, or BT_ENOMEM with the agent unchanged. */
static int agent_switch(bti_stats_agent *a, shape *sh) {
  double *start = NULL;
  uint32_t *run = NULL, *pos = NULL;
  figures *own = NULL;
  int keep = a->rec && a->st->keep_agents;
  size_t n = (size_t)sh->nodes;
  if (sh->nodes > a->cap) {
    start = malloc(n * sizeof *start);
    run = malloc(n * sizeof *run);
    pos = malloc(n * sizeof *pos);
  }
  if (keep && (sh->nodes > a->cap || !a->own)) own = malloc((sh->nodes > a->cap ? n : (size_t)a->cap) * sizeof *own);
  if ((sh->nodes > a->cap && (!start || !run || !pos)) || (keep && (sh->nodes > a->cap || !a->own) && !own)) {
    free(start), free(run), free(pos), free(own);
    return BT_ENOMEM;
  }
  if (a->sh) runs_end(a);
  if (start) {
    free(a->start), free(a->run), free(a->pos);
    a->start = start, a->run = run, a->pos = pos;
    a->cap = sh->nodes;
  }
  if (own) {
    free(a->own);
    a->own = own;
  }
  for (int i = 0; i < sh->nodes; i++) a->pos[i] = NONE;
  a->nrun = 0;
  a->sh = sh;
  own_clear(a, sh->nodes, -INFINITY);
  a->gen = a->st->gen - 1; /* counted among the shape's agents at its next record */
  return BT_OK;
}

/* ---- counting a record ---- */

/* Adds one to a figure of node n, in its shape's row and the agent's own. */
#define BUMP(a, n, field)                          \
  do {                                             \
    (a)->sh->fig[n].field++;                       \
    if ((a)->own) (a)->own[n].field++;             \
  } while (0)

/* Counts a record of the agent's (a bt_rec_entry's type, from, to, think and time; node where it
 * counts): what a recorder's sink is fed, either way (sink_record, sink_entry), and bt_stats_add. */
static void count(bti_stats_agent *a, int type, int from, int to, int node, unsigned long long think, double time) {
  shape *sh = a->sh;
  if (a->gen != a->st->gen) {
    a->gen = a->st->gen;
    sh->agents++;
  }
  int in_think = think > a->think;
  switch (type) {
  case BT_REC_STATUS: {
    uint32_t n = (uint32_t)node;
    if (a->pos[n] != NONE) run_end(a, n, time); /* from RUNNING, or a record went missing */
    if (to == BT_RUNNING) {
      run_begin(a, n, time);
      BUMP(a, n, runs);
    }
    if (from == BT_RUNNING && to == BT_READY) BUMP(a, n, aborts);
    if (in_think) {
      if (from != BT_RUNNING && to != BT_READY) BUMP(a, n, visits);
      if (to == BT_SUCCESS) BUMP(a, n, successes);
      if (to == BT_FAILED) BUMP(a, n, failures);
    }
    break;
  }
  case BT_REC_THINK:
    sh->thinks++;
    a->own_thinks++;
    for (uint32_t i = 0; i < a->nrun; i++) BUMP(a, a->run[i], thinks);
    a->think = think;
    break;
  case BT_REC_ERROR:
    if (node >= 0) {
      BUMP(a, node, errors);
    } else {
      sh->errors++;
      a->own_errors++;
    }
    break;
  case BT_REC_KEY:
    sh->writes++;
    a->own_writes++;
    break;
  default: /* events, reloads and the host's records say nothing of the figures */
    break;
  }
  a->last = time;
}

static int entry_valid(const bt_rec_entry *e, int nodes) {
  switch (e->type) {
  case BT_REC_STATUS:
    return e->node >= 0 && e->node < nodes && e->from <= BT_RUNNING && e->to <= BT_RUNNING && e->from != e->to;
  case BT_REC_ERROR:
    return e->node >= -1 && e->node < nodes;
  case BT_REC_THINK:
  case BT_REC_EVENT:
  case BT_REC_RELOAD:
  case BT_REC_HOST:
  case BT_REC_KEY:
    return 1;
  default:
    return 0;
  }
}

/* ---- agents ---- */

static bti_stats_agent *agent_new(bt_stats *st) {
  bti_stats_agent *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->st = st;
  a->next = st->agents;
  if (st->agents) st->agents->prev = a;
  st->agents = a;
  return a;
}

static void agent_free(bti_stats_agent *a) {
  bt_stats *st = a->st;
  if (a->prev) a->prev->next = a->next;
  else st->agents = a->next;
  if (a->next) a->next->prev = a->prev;
  free(a->start), free(a->run), free(a->pos), free(a->own);
  free(a);
}

static size_t id_slot(unsigned long long id, size_t mask) {
  id ^= id >> 33;
  id *= 0xff51afd7ed558ccdULL;
  id ^= id >> 33;
  return (size_t)id & mask;
}

/* bt_stats_add's agent of that id, made if new; NULL when out of memory. */
static bti_stats_agent *agent_of_id(bt_stats *st, unsigned long long id) {
  if (st->tcap) {
    for (size_t i = id_slot(id, st->tcap - 1);; i = (i + 1) & (st->tcap - 1)) {
      if (!st->table[i]) break;
      if (st->table[i]->id == id) return st->table[i];
    }
  }
  if ((st->tcount + 1) * 2 > st->tcap) { /* at most half full */
    size_t ncap = st->tcap ? st->tcap * 2 : 64;
    bti_stats_agent **t = calloc(ncap, sizeof *t);
    if (!t) return NULL;
    for (size_t j = 0; j < st->tcap; j++) {
      bti_stats_agent *x = st->table[j];
      if (!x) continue;
      size_t i = id_slot(x->id, ncap - 1);
      while (t[i]) i = (i + 1) & (ncap - 1);
      t[i] = x;
    }
    free(st->table);
    st->table = t;
    st->tcap = ncap;
  }
  bti_stats_agent *a = agent_new(st);
  if (!a) return NULL;
  a->id = id;
  size_t i = id_slot(id, st->tcap - 1);
  while (st->table[i]) i = (i + 1) & (st->tcap - 1);
  st->table[i] = a;
  st->tcount++;
  return a;
}

/* ---- a recorder's agent ---- */

/* The agent's shape for def (its recorder watches an instance of it): BT_OK, or BT_ENOMEM with the
 * agent left without a shape (its records are dropped until one can be made). */
static int agent_follow(bti_stats_agent *a, const bt_def *def) {
  unsigned long long hash = bt_def_hash(def);
  if (!a->sh || a->sh->hash != hash) {
    shape *sh = shape_get(a->st, hash, (int)def->nnodes);
    if (!sh || agent_switch(a, sh) != BT_OK) {
      if (a->sh) runs_end(a);
      a->sh = NULL;
      a->def = NULL;
      return BT_ENOMEM;
    }
  }
  a->def = def;
  if (!a->sh->def) {
    a->sh->def = (bt_def *)(uintptr_t)def;
    bt_def_retain(a->sh->def);
  }
  return BT_OK;
}

_Static_assert(offsetof(bti_stats_agent, sink) == 0, "an agent is its sink");
_Static_assert(sizeof(void *) != 8 || offsetof(bti_stats_agent, prev) == 120, "counting reads an agent's first 120 bytes");
static bti_stats_agent *agent_of(bti_sink *s) { return (bti_stats_agent *)(void *)s; }

static const bti_sink_methods stats_sink;

/* A recorder's new agent (NULL: out of memory), not yet among its sinks. */
static bti_stats_agent *agent_attach(bt_stats *st, bt_rec *rec) {
  bti_stats_agent *a = agent_new(st);
  if (!a) return NULL;
  a->rec = rec;
  a->sink.methods = &stats_sink;
  bt_inst *in = bt_rec_inst(rec);
  if (in && agent_follow(a, in->def) != BT_OK) { /* make room now, not in a think */
    agent_free(a);
    return NULL;
  }
  return a;
}

/* Ends the agent's runs under way and frees it (off its recorder's sinks). */
static void agent_detach(bti_stats_agent *a) {
  if (a->sh) runs_end(a);
  agent_free(a);
}

static void sink_release(bti_sink *s) { agent_detach(agent_of(s)); }

/* Its recorder left its instance: its runs end. */
static void sink_detached(bti_sink *s) {
  bti_stats_agent *a = agent_of(s);
  if (a->sh) runs_end(a);
  a->def = NULL; /* the next record, of whatever instance, takes its shape afresh */
}

/* Counts a record of an instance of def, the definition the agent follows. */
static void count_of(bti_stats_agent *a, const bt_def *def, int type, int from, int to, int node,
                     unsigned long long think, double time) {
  if (!def->unshared && (type == BT_REC_STATUS || type == BT_REC_ERROR) && node >= 0)
    node = (int)def->states[def->nodes[node].state].node; /* a shared node counts at its first place */
  count(a, type, from, to, node, think, time);
}

/* Counts a record of an instance of def, another definition than the one the agent follows (or
 * NULL: the recorder's agent has none, and the record is dropped): the agent takes def's shape
 * first. */
static BTI_NOINLINE void count_follow(bti_stats_agent *a, const bt_def *def, int type, int from, int to, int node,
                                      unsigned long long think, double time) {
  if (!def || agent_follow(a, def) != BT_OK) {
    a->st->dropped++;
    return;
  }
  count_of(a, def, type, from, to, node, think, time);
}

/* count_follow for a record of the instance the agent's recorder watches. */
static BTI_NOINLINE void count_recorder(bti_stats_agent *a, int type, int from, int to, int node,
                                        unsigned long long think, double time) {
  count_follow(a, bt_rec_def(a->rec), type, from, to, node, think, time);
}

static void sink_entry(bti_sink *s, const bt_inst *in, const bt_rec_entry *e) {
  bti_stats_agent *a = agent_of(s);
  const bt_def *def = in ? in->def : a->def;
  if (def && def == a->def) count_of(a, def, e->type, e->from, e->to, e->node, e->think, e->time);
  else count_follow(a, def, e->type, e->from, e->to, e->node, e->think, e->time);
}

/* A STATUS or THINK record of a think, in the think path's form (rec_internal.h), so that a
 * recorder feeding statistics makes no bt_rec_entry of them. Its instance's definition is the one
 * the agent follows, unless its recorder left an instance since (the agent follows none then: its
 * recorder's is asked). */
static void sink_record(bti_sink *s, int type, unsigned a, unsigned b, int node, unsigned long long think,
                        double time, double sleep) {
  (void)b, (void)sleep;
  bti_stats_agent *ag = agent_of(s);
  int from = type == BT_REC_STATUS ? (int)(a & 15u) : 0, to = type == BT_REC_STATUS ? (int)(a >> 4) : 0;
  if (__builtin_expect(ag->def != NULL, 1)) count_of(ag, ag->def, type, from, to, node, think, time);
  else count_recorder(ag, type, from, to, node, think, time);
}

static const bti_sink_methods stats_sink = {
  .record = sink_record,
  .entry = sink_entry,
  .detached = sink_detached,
  .release = sink_release,
};

/* The agent of the statistics rec feeds, or NULL. */
static bti_stats_agent *rec_agent(const bt_rec *rec) {
  bti_sink *s = bti_rec_sink_find(rec, &stats_sink);
  return s ? agent_of(s) : NULL;
}

int bt_rec_set_stats(bt_rec *r, bt_stats *st) {
  if (!r) return BT_EINVAL;
  bti_stats_agent *old = rec_agent(r);
  if (old && old->st == st) return BT_OK;
  bti_stats_agent *a = NULL;
  if (st && !(a = agent_attach(st, r))) return BT_ENOMEM;
  if (old) {
    bti_rec_sink_remove(r, &old->sink);
    agent_detach(old);
  }
  if (a) bti_rec_sink_add(r, &a->sink);
  return BT_OK;
}

bt_stats *bt_rec_stats(const bt_rec *r) {
  const bti_stats_agent *a = rec_agent(r);
  return a ? a->st : NULL;
}

/* ---- the API ---- */

int bt_stats_create(bt_stats **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  if (!*out) return BT_ENOMEM;
  (*out)->gen = 1;
  return BT_OK;
}

void bt_stats_free(bt_stats *st) {
  if (!st) return;
  while (st->agents) {
    bti_stats_agent *a = st->agents;
    if (a->rec) { /* off its recorder, and freed, calling nothing of the host's */
      bti_rec_sink_remove(a->rec, &a->sink);
      agent_detach(a);
    } else {
      agent_free(a);
    }
  }
  for (int i = 0; i < st->nshapes; i++) shape_free(st->shapes[i]);
  free(st->shapes);
  free(st->table);
  free(st);
}

int bt_stats_keep_agents(bt_stats *st, int on) {
  if (!st) return BT_EINVAL;
  if (!on) {
    for (bti_stats_agent *a = st->agents; a; a = a->next) free(a->own), a->own = NULL;
    st->keep_agents = 0;
    return BT_OK;
  }
  if (st->keep_agents) return BT_OK;
  int ok = 1;
  for (bti_stats_agent *a = st->agents; a && ok; a = a->next)
    if (a->rec && a->sh && !(a->own = calloc((size_t)a->cap, sizeof *a->own))) ok = 0;
  if (!ok) {
    for (bti_stats_agent *a = st->agents; a; a = a->next) free(a->own), a->own = NULL;
    return BT_ENOMEM;
  }
  for (bti_stats_agent *a = st->agents; a; a = a->next)
    if (a->own) own_clear(a, a->sh->nodes, a->last); /* from its latest record on */
  st->keep_agents = 1;
  return BT_OK;
}

int bt_stats_add(bt_stats *st, unsigned long long agent, unsigned long long shape_hash, int nodes,
                 const bt_rec_entry *e) {
  if (!st || !e || nodes < 1 || !entry_valid(e, nodes)) return BT_EINVAL;
  shape *known = shape_find(st, shape_hash);
  if (known && known->nodes != nodes) return BT_EINVAL;
  bti_stats_agent *a = agent_of_id(st, agent);
  if (!a) return BT_ENOMEM;
  if (!a->sh || a->sh->hash != shape_hash) {
    shape *sh = shape_get(st, shape_hash, nodes);
    if (!sh || agent_switch(a, sh) != BT_OK) return BT_ENOMEM;
  }
  count(a, e->type, e->from, e->to, e->node, e->think, e->time);
  return BT_OK;
}

void bt_stats_reset(bt_stats *st, double now) {
  if (!st) return;
  for (int i = 0; i < st->nshapes; i++) {
    shape *sh = st->shapes[i];
    memset(sh->fig, 0, (size_t)sh->nodes * sizeof *sh->fig);
    sh->agents = 0;
    sh->thinks = sh->errors = sh->writes = 0;
  }
  if (++st->gen == 0) st->gen = 1;
  for (bti_stats_agent *a = st->agents; a; a = a->next) {
    for (uint32_t i = 0; i < a->nrun; i++) a->start[a->run[i]] = now;
    if (a->sh) own_clear(a, a->sh->nodes, now);
  }
  st->dropped = 0;
}

static void row_of(unsigned long long hash, const figures *f, int n, bt_stats_node *r) {
  r->shape = hash;
  r->node = n;
  r->running = (int)f->running;
  r->visits = f->visits;
  r->successes = f->successes;
  r->failures = f->failures;
  r->aborts = f->aborts;
  r->runs = f->runs;
  r->thinks = f->thinks;
  r->errors = f->errors;
  r->time = f->time;
  r->longest = f->longest;
}

/* Adds a run under way since `start` to a row, up to the agent's latest record. */
static void add_under_way(bt_stats_node *r, double start, double last) {
  double d = span(start, last);
  r->time += d;
  if (d > r->longest) r->longest = d;
  r->running++;
}

/* Every row of the shapes, in tree order, runs under way included: n rows, or NULL when out of
 * memory. */
static bt_stats_node *rows_all(const bt_stats *st, int *n) {
  int total = 0;
  int *base = malloc(((size_t)st->nshapes + 1) * sizeof *base);
  if (!base) return NULL;
  for (int i = 0; i < st->nshapes; i++) {
    base[i] = total;
    total += st->shapes[i]->nodes;
  }
  bt_stats_node *rows = malloc(((size_t)total + 1) * sizeof *rows);
  if (!rows) {
    free(base);
    return NULL;
  }
  for (int i = 0; i < st->nshapes; i++) {
    const shape *sh = st->shapes[i];
    for (int k = 0; k < sh->nodes; k++) row_of(sh->hash, &sh->fig[k], k, &rows[base[i] + k]);
  }
  for (const bti_stats_agent *a = st->agents; a; a = a->next)
    if (a->sh)
      for (uint32_t i = 0; i < a->nrun; i++)
        add_under_way(&rows[base[a->sh->index] + (int)a->run[i]], a->start[a->run[i]], a->last);
  free(base);
  *n = total;
  return rows;
}

/* The agent's own rows, in tree order, its runs under way included; NULL when out of memory. */
static bt_stats_node *rows_own(const bti_stats_agent *a) {
  bt_stats_node *rows = malloc((size_t)a->sh->nodes * sizeof *rows);
  if (!rows) return NULL;
  for (int k = 0; k < a->sh->nodes; k++) row_of(a->sh->hash, &a->own[k], k, &rows[k]);
  for (uint32_t i = 0; i < a->nrun; i++) {
    double start = a->start[a->run[i]];
    add_under_way(&rows[a->run[i]], start > a->since ? start : a->since, a->last);
  }
  return rows;
}

int bt_stats_merge(bt_stats *dst, bt_stats *src) {
  if (!dst || !src || dst == src) return BT_EINVAL;
  int fresh = 0; /* src's shapes dst lacks */
  for (int i = 0; i < src->nshapes; i++) {
    const shape *s = src->shapes[i];
    const shape *d = shape_find(dst, s->hash);
    if (d && d->nodes != s->nodes) return BT_EINVAL;
    if (!d) fresh++;
  }
  int n = 0;
  bt_stats_node *rows = rows_all(src, &n);
  if (!rows) return BT_ENOMEM;
  shape **made = fresh ? calloc((size_t)fresh, sizeof *made) : NULL;
  int ok = !fresh || made;
  if (ok) ok = bti_grow((void **)&dst->shapes, &dst->cap, dst->nshapes + fresh, sizeof *dst->shapes) == BT_OK;
  for (int i = 0, k = 0; ok && i < src->nshapes; i++)
    if (!shape_find(dst, src->shapes[i]->hash) && !(made[k++] = shape_new(src->shapes[i]->hash, src->shapes[i]->nodes)))
      ok = 0;
  if (!ok) {
    for (int k = 0; made && k < fresh; k++)
      if (made[k]) shape_free(made[k]);
    free(made);
    free(rows);
    return BT_ENOMEM;
  }
  for (int i = 0, k = 0, r = 0; i < src->nshapes; i++) {
    const shape *s = src->shapes[i];
    shape *d = shape_find(dst, s->hash);
    if (!d) shape_put(dst, d = made[k++]);
    d->agents += s->agents;
    d->thinks += s->thinks;
    d->errors += s->errors;
    d->writes += s->writes;
    if (!d->def && s->def) {
      d->def = s->def;
      bt_def_retain(d->def);
    }
    for (int j = 0; j < s->nodes; j++, r++) {
      figures *f = &d->fig[j];
      const bt_stats_node *x = &rows[r];
      f->visits += x->visits;
      f->successes += x->successes;
      f->failures += x->failures;
      f->aborts += x->aborts;
      f->runs += x->runs;
      f->thinks += x->thinks;
      f->errors += x->errors;
      f->time += x->time;
      if (x->longest > f->longest) f->longest = x->longest;
      f->running += x->running;
    }
  }
  free(made);
  free(rows);
  return BT_OK;
}

int bt_stats_shape_count(bt_stats *st) {
  if (!st) return 0;
  return st->nshapes;
}

static void shape_info(const shape *sh, bt_stats_shape *out) {
  out->shape = sh->hash;
  out->nodes = sh->nodes;
  out->agents = sh->agents;
  out->thinks = sh->thinks;
  out->errors = sh->errors;
  out->writes = sh->writes;
  out->def = sh->def;
}

int bt_stats_shape_get(bt_stats *st, int i, bt_stats_shape *out) {
  if (!st || !out) return BT_EINVAL;
  if (i < 0 || i >= st->nshapes) return BT_EINVAL;
  shape_info(st->shapes[i], out);
  return BT_OK;
}

int bt_stats_node_get(bt_stats *st, unsigned long long hash, int node, bt_stats_node *out) {
  const shape *sh = st ? shape_find(st, hash) : NULL;
  if (!sh || !out || node < 0 || node >= sh->nodes) return BT_EINVAL;
  row_of(sh->hash, &sh->fig[node], node, out);
  for (const bti_stats_agent *a = st->agents; a; a = a->next)
    if (a->sh == sh && a->pos[node] != NONE) add_under_way(out, a->start[node], a->last);
  return BT_OK;
}

/* Sorting: the rows come in tree order, so a row's place there breaks every tie. */
typedef struct ranked {
  bt_stats_node row;
  int place;
} ranked;

static int compare_numbers(double a, double b) { return a > b ? -1 : a < b; }

static int by_time(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  int c = compare_numbers(a->row.time, b->row.time);
  if (!c) c = compare_numbers((double)a->row.visits, (double)b->row.visits);
  return c ? c : (a->place > b->place) - (a->place < b->place);
}

static int by_visits(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  int c = compare_numbers((double)a->row.visits, (double)b->row.visits);
  if (!c) c = compare_numbers(a->row.time, b->row.time);
  return c ? c : (a->place > b->place) - (a->place < b->place);
}

/* Writes the first min(max, n) of the n rows `all` (which it frees) in the order asked; returns n
 * or BT_ENOMEM. */
static int rows_out(bt_stats_node *all, int n, int order, bt_stats_node *rows, int max) {
  if (max > n) max = n;
  if (order == BT_STATS_BY_TREE) {
    if (max) memcpy(rows, all, (size_t)max * sizeof *rows);
    free(all);
    return n;
  }
  ranked *r = malloc(((size_t)n + 1) * sizeof *r);
  if (!r) {
    free(all);
    return BT_ENOMEM;
  }
  for (int i = 0; i < n; i++) r[i].row = all[i], r[i].place = i;
  qsort(r, (size_t)n, sizeof *r, order == BT_STATS_BY_TIME ? by_time : by_visits);
  for (int i = 0; i < max; i++) rows[i] = r[i].row;
  free(r);
  free(all);
  return n;
}

static int list_args_valid(int order, const bt_stats_node *rows, int max) {
  return order >= BT_STATS_BY_TREE && order <= BT_STATS_BY_VISITS && max >= 0 && (rows || max == 0);
}

int bt_stats_list(bt_stats *st, int order, bt_stats_node *rows, int max) {
  if (!st || !list_args_valid(order, rows, max)) return BT_EINVAL;
  int n = 0;
  bt_stats_node *all = rows_all(st, &n);
  return all ? rows_out(all, n, order, rows, max) : BT_ENOMEM;
}

unsigned long long bt_stats_dropped(const bt_stats *st) { return st ? st->dropped : 0; }

/* ---- a recorder's own figures (bt_stats_keep_agents) ---- */

/* rec's agent, with its own figures and a shape; NULL if none. */
static bti_stats_agent *own_agent(bt_rec *rec) {
  if (!rec) return NULL;
  bti_stats_agent *a = rec_agent(rec);
  bt_inst *in = bt_rec_inst(rec);
  if (a && in && a->def != in->def) agent_follow(a, in->def); /* it has not yet seen this tree */
  return a && a->own && a->sh ? a : NULL;
}

int bt_rec_stats_shape(bt_rec *rec, bt_stats_shape *out) {
  bti_stats_agent *a = own_agent(rec);
  if (!a || !out) return BT_EINVAL;
  shape_info(a->sh, out);
  out->agents = 1;
  out->thinks = a->own_thinks;
  out->errors = a->own_errors;
  out->writes = a->own_writes;
  return BT_OK;
}

int bt_rec_stats_node(bt_rec *rec, int node, bt_stats_node *out) {
  bti_stats_agent *a = own_agent(rec);
  if (!a || !out || node < 0 || node >= a->sh->nodes) return BT_EINVAL;
  row_of(a->sh->hash, &a->own[node], node, out);
  if (a->pos[node] != NONE) {
    double start = a->start[node];
    add_under_way(out, start > a->since ? start : a->since, a->last);
  }
  return BT_OK;
}

int bt_rec_stats_list(bt_rec *rec, int order, bt_stats_node *rows, int max) {
  bti_stats_agent *a = own_agent(rec);
  if (!a || !list_args_valid(order, rows, max)) return BT_EINVAL;
  bt_stats_node *all = rows_own(a);
  return all ? rows_out(all, a->sh->nodes, order, rows, max) : BT_ENOMEM;
}

int bt_rec_stats_reset(bt_rec *rec, double now) {
  bti_stats_agent *a = own_agent(rec);
  if (!a) return BT_EINVAL;
  own_clear(a, a->sh->nodes, now);
  return BT_OK;
}
