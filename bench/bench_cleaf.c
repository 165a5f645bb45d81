/* SPDX-License-Identifier: MIT */
/*
 * bench_cleaf.c: bt with C leaves against a hand-written floor. Run by `make bench`, or:
 *
 *   bench_cleaf [--agents N] [--frames N] [--rounds N] [--tree 8|40]
 *
 * Two trees, each run on bt and on the floor, with the same leaf functions and the same agents:
 *
 *   8 nodes   Selector(Sequence(Condition c1, Action a1), Sequence(Condition c2, Action a2), Action a3),
 *             which finishes at every think (a third of the agents take each branch);
 *   40 nodes  bench/brains.lua's brains.small, a Don't Starve-shaped brain whose idle branch runs.
 *
 * bt: one shared definition, bt_inst_create per agent, bt_inst_update per agent per frame, the
 * host's clock set once per frame. The floor: the same tree flattened into an array of nodes
 * (kind, first child, child count, param; the children of a node lie next to one another), a
 * per-agent allocation of the definition's and the agent's pointers, a status byte and a
 * child-index byte per node and a double per Priority or Wait, and a recursive switch that
 * visits with Don't Starve's semantics and then steps as Don't Starve's Step does (no last
 * results, no sleep times: the least a think with those semantics does). Each think's leaf calls
 * are counted for both, and after each run every node's status of every agent is compared.
 *
 * Printed per tree and implementation: ns per think (the fastest fifth of the frames), leaf
 * calls per think, heap bytes per agent (malloc_usable_size of what creating it allocated; malloc
 * is wrapped at link time by heap.c), heap allocations per think and ns per agent
 * creation; then bt/floor for each, next to the targets. Every measurement runs once per round,
 * the rounds one after another, and the fastest round counts (as bench/measure.lua does). Exits
 * with status 1 if bt and the floor disagree on a leaf call or a status.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "brain_text.h"
#include "bt.h"
#include "heap.h"

/* ---- counting allocations: heap.c ---- */

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the trees, as text (bench/brains.lua's form) ---- */

static const char TREE8[] =
    "(Selector (Sequence (Condition c1) (Action a1)) (Sequence (Condition c2) (Action a2))"
    " (Action a3))";


/* ---- the trees, read (bench/brain_text.c) ---- */

#define MAX_NODES 256
#define MAX_FIELDS 64

typedef struct tree {
  const char *name;
  brain b;
} tree;

static int read_tree(tree *t, const char *name, const char *text) {
  t->name = name;
  if (brain_read(&t->b, text) || t->b.n > MAX_NODES || t->b.nfields > MAX_FIELDS) {
    fprintf(stderr, "bench_cleaf: %s: %s near '%.20s'\n", name,
            t->b.error ? t->b.error : "too many nodes or fields", t->b.near ? t->b.near : "");
    return -1;
  }
  return 0;
}

/* ---- the agents and the leaves, the same for bt and the floor ---- */

typedef struct agent {
  unsigned char field[MAX_FIELDS];
} agent;

static long long leaf_calls;
static double frame_time; /* the host's clock, set once per frame */

/* A condition returns the agent's field; an action reads its field and succeeds. */
static inline int read_condition(const agent *a, size_t field) {
  leaf_calls++;
  return a->field[field];
}
static inline int read_action(const agent *a, size_t field) {
  leaf_calls++;
  return a->field[field] || 1;
}

static int bt_condition(bt_call *call) { return read_condition(bt_inst_agent(call->inst), (size_t)call->ud); }
static int bt_action(bt_call *call) { return read_action(bt_inst_agent(call->inst), (size_t)call->ud); }

/* Random numbers for the Priorities' first evaluation times: the same sequence for both. */
static uint64_t rng_state;
static double next_random(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static double host_now(void *data) {
  (void)data;
  return frame_time;
}
static double host_random(void *data) {
  (void)data;
  return next_random();
}
static const bt_host host = {host_now, host_random, NULL, NULL};

/* ---- the floor ---- */

enum { READY, SUCCESS, FAILED, RUNNING }; /* bt's values, so that statuses compare directly */
#define NIL 0xFF /* a Priority's child index when it is nil */

typedef struct floor_call {
  void *agent;
  void *ud;
} floor_call;
typedef int (*floor_fn)(floor_call *call);

static int floor_condition(floor_call *call) { return read_condition(call->agent, (size_t)call->ud); }
static int floor_action(floor_call *call) { return read_action(call->agent, (size_t)call->ud); }

typedef struct fnode {
  uint8_t kind, nkids;
  uint16_t first; /* the first child's index; the others follow it */
  uint16_t slot;  /* Priority, Wait: the index of its double */
  double param;
  floor_fn fn;
  void *ud;
} fnode;

typedef struct floor_def {
  fnode nodes[MAX_NODES];
  int n, ndoubles;
  size_t doubles_at; /* offset of the doubles in an instance */
  size_t size;       /* bytes of an instance */
  int bt_node[MAX_NODES]; /* the bt node at the same place, for the comparison of statuses */
  /* The Priorities, in the order their constructors ran (children before parents, as in a Don't
   * Starve brain's OnStart): the order they draw their first evaluation times in. */
  int scatter[MAX_NODES], nscatter;
} floor_def;

typedef struct floor_inst {
  const floor_def *def;
  void *agent;
  uint8_t state[]; /* statuses, child indices, then the doubles */
} floor_inst;

typedef struct fctx {
  const fnode *d;
  uint8_t *st, *ix;
  double *dbl;
  floor_call call;
  double now;
} fctx;

static void freset(fctx *c, int n) {
  if (c->st[n] == READY) return;
  c->st[n] = READY;
  const fnode *d = &c->d[n];
  c->ix[n] = d->kind == BRAIN_PRIORITY ? NIL : 0;
  for (int i = 0; i < d->nkids; i++) freset(c, d->first + i);
}

static uint8_t fvisit(fctx *c, int n) {
  const fnode *d = &c->d[n];
  uint8_t *st = c->st, *ix = c->ix;
  switch (d->kind) {
    case BRAIN_CONDITION:
      c->call.ud = d->ud;
      return st[n] = d->fn(&c->call) ? SUCCESS : FAILED;
    case BRAIN_ACTION:
      c->call.ud = d->ud;
      d->fn(&c->call);
      return st[n] = SUCCESS;
    case BRAIN_SEQUENCE:
    case BRAIN_LOOP:
      if (st[n] != RUNNING) ix[n] = 0;
      for (; ix[n] < d->nkids; ix[n]++) {
        uint8_t s = fvisit(c, d->first + ix[n]);
        if (s == RUNNING || s == FAILED) return st[n] = s;
      }
      if (d->kind == BRAIN_SEQUENCE) return st[n] = SUCCESS;
      ix[n] = 0; /* a Loop without maxreps: reset the children, keep the status (as written) */
      for (int i = 0; i < d->nkids; i++) freset(c, d->first + i);
      return st[n];
    case BRAIN_SELECTOR:
      if (st[n] != RUNNING) ix[n] = 0;
      for (; ix[n] < d->nkids; ix[n]++) {
        uint8_t s = fvisit(c, d->first + ix[n]);
        if (s == RUNNING || s == SUCCESS) return st[n] = s;
      }
      return st[n] = FAILED;
    case BRAIN_NOT: {
      uint8_t s = fvisit(c, d->first);
      return st[n] = s == SUCCESS ? FAILED : s == FAILED ? SUCCESS : s;
    }
    case BRAIN_FAILIFSUCCESS: {
      uint8_t s = fvisit(c, d->first);
      return st[n] = s == SUCCESS ? FAILED : s;
    }
    case BRAIN_WAIT: {
      double *wake = &c->dbl[d->slot];
      if (st[n] != RUNNING) {
        *wake = c->now + d->param;
        st[n] = RUNNING;
      }
      if (c->now >= *wake) st[n] = SUCCESS;
      return st[n];
    }
    case BRAIN_PARALLEL: {
      int done = 1;
      for (int i = 0; i < d->nkids; i++) {
        int k = d->first + i;
        if (c->d[k].kind == BRAIN_CONDITION) freset(c, k);
        if (st[k] != SUCCESS && fvisit(c, k) == FAILED) return st[n] = FAILED;
        if (st[k] == RUNNING) done = 0;
      }
      return st[n] = done ? SUCCESS : RUNNING;
    }
    case BRAIN_PRIORITY: {
      double *last = &c->dbl[d->slot]; /* nil is -inf: -inf + period < now */
      if (*last + d->param < c->now) {
        *last = c->now;
        int found = 0;
        for (int i = 0; i < d->nkids; i++) {
          int k = d->first + i;
          if (found) {
            freset(c, k);
            continue;
          }
          if (st[k] == SUCCESS || st[k] == FAILED) freset(c, k);
          uint8_t s = fvisit(c, k);
          if (s == SUCCESS || s == RUNNING) {
            st[n] = s;
            found = 1;
            ix[n] = (uint8_t)i;
          }
        }
        if (!found) st[n] = FAILED;
        return st[n];
      }
      if (ix[n] != NIL && st[d->first + ix[n]] == RUNNING) {
        st[n] = fvisit(c, d->first + ix[n]);
        if (st[n] != RUNNING) *last = -HUGE_VAL;
      }
      return st[n];
    }
  }
  return st[n] = FAILED;
}

static void fstep(fctx *c, int n) {
  const fnode *d = &c->d[n];
  if (c->st[n] != RUNNING) {
    freset(c, n);
    return;
  }
  if (d->kind == BRAIN_PARALLEL) {
    for (int i = 0; i < d->nkids; i++) {
      int k = d->first + i;
      if (c->st[k] == SUCCESS && c->d[k].kind == BRAIN_CONDITION) freset(c, k);
    }
    return;
  }
  for (int i = 0; i < d->nkids; i++) fstep(c, d->first + i);
}

__attribute__((noinline)) static void floor_update(floor_inst *in) {
  const floor_def *def = in->def;
  int n = def->n;
  fctx c = {def->nodes, in->state, in->state + n, (double *)(void *)((char *)in + def->doubles_at),
            {in->agent, NULL}, frame_time};
  fvisit(&c, 0);
  fstep(&c, 0);
}

__attribute__((noinline)) static floor_inst *floor_create(const floor_def *def, void *agent) {
  floor_inst *in = malloc(def->size);
  if (!in) return NULL;
  in->def = def;
  in->agent = agent;
  memset(in->state, READY, (size_t)def->n);
  double *dbl = (double *)(void *)((char *)in + def->doubles_at);
  for (int i = 0; i < def->n; i++) {
    const fnode *d = &def->nodes[i];
    in->state[def->n + i] = d->kind == BRAIN_PRIORITY ? NIL : 0;
    if (d->kind == BRAIN_WAIT) dbl[d->slot] = 0;
  }
  for (int i = 0; i < def->nscatter; i++) {
    const fnode *d = &def->nodes[def->scatter[i]];
    dbl[d->slot] = d->param * 0.5 + d->param * next_random();
  }
  return in;
}

/* Flattens the tree breadth first, so that the children of a node are next to one another. */
static void floor_build(floor_def *f, const brain *b) {
  memset(f, 0, sizeof *f);
  int order[MAX_NODES], head = 0, tail = 0;
  order[tail++] = b->root;
  f->n = 1;
  while (head < tail) {
    int at = head, p = order[head++];
    const brain_node *pn = &b->nodes[p];
    fnode *d = &f->nodes[at];
    d->kind = (uint8_t)pn->kind;
    d->nkids = (uint8_t)pn->nkids;
    d->first = (uint16_t)tail;
    d->param = pn->param;
    if (pn->kind == BRAIN_PRIORITY || pn->kind == BRAIN_WAIT) d->slot = (uint16_t)f->ndoubles++;
    if (pn->kind == BRAIN_CONDITION || pn->kind == BRAIN_ACTION) {
      d->fn = pn->kind == BRAIN_CONDITION ? floor_condition : floor_action;
      d->ud = (void *)(size_t)pn->field;
    }
    for (int i = 0; i < pn->nkids; i++) order[tail++] = b->kids[pn->first + i];
  }
  f->n = tail;
  f->doubles_at = (offsetof(floor_inst, state) + 2 * (size_t)f->n + 7) & ~(size_t)7;
  f->size = f->doubles_at + (size_t)f->ndoubles * sizeof(double);
  for (int i = 0; i < tail; i++) f->bt_node[i] = order[i]; /* a graph id until map_nodes */
  for (int p = 0; p < b->n; p++) /* nodes are numbered in the order they were made */
    for (int i = 0; i < tail; i++)
      if (order[i] == p && f->nodes[i].kind == BRAIN_PRIORITY) f->scatter[f->nscatter++] = i;
}

/* Turns the floor's graph ids (bt_build gives brain node i graph id i) into bt node indices. */
static void map_nodes(floor_def *f, const bt_def *def) {
  int node_of[MAX_NODES];
  for (int s = 0; s < bt_def_states(def); s++) node_of[bt_def_graph_id(def, s)] = bt_def_node_of_state(def, s);
  for (int i = 0; i < f->n; i++) f->bt_node[i] = node_of[f->bt_node[i]];
}

/* ---- bt ---- */

static int bt_build(bt_def **out, const brain *b) {
  bt_graph *g;
  if (bt_graph_create(&g) != BT_OK) return -1;
  int rc = brain_graph(b, g, bt_condition, bt_action) ? BT_EINVAL : bt_def_create(out, g, b->root);
  if (rc != BT_OK) fprintf(stderr, "bench_cleaf: %s\n", bt_graph_errmsg(g));
  bt_graph_free(g);
  return rc == BT_OK ? 0 : -1;
}

/* ---- runs ---- */

#define WARM 30
#define PARTS 5

typedef struct result {
  double ns, leaves, bytes, allocs, create;
} result;

typedef struct scenario {
  tree t;
  bt_def *def;
  floor_def floor;
  agent *agents;
  int nagents;
  long long mismatches; /* statuses bt and the floor disagree on, over all runs */
  double bt_leaves, floor_leaves; /* leaf calls per think of the first run of each */
} scenario;

static int opt_frames;

/* Sets the agents' fields: for the 8-node tree a third of the agents take each branch; for the
 * brain, idle and calm are true, as in bench/brains.lua. */
static void set_fields(scenario *sc) {
  int c1 = brain_field(&sc->t.b, "c1"), c2 = brain_field(&sc->t.b, "c2");
  int idle = brain_field(&sc->t.b, "idle"), calm = brain_field(&sc->t.b, "calm");
  int is8 = sc->t.name[0] == '8';
  for (int i = 0; i < sc->nagents; i++) {
    agent *a = &sc->agents[i];
    memset(a, 0, sizeof *a);
    if (is8) {
      a->field[c1] = i % 3 == 0;
      a->field[c2] = i % 3 == 1;
    } else {
      a->field[idle] = a->field[calm] = 1;
    }
  }
}

/* The statuses of every node of every agent after a bt run, for the floor run to compare with. */
static uint8_t *bt_statuses;

/* One frame: every agent thinks once, on bt or on the floor (the loops stay direct calls). */
static void frame(void **insts, int n, int on_floor, int f) {
  frame_time = (f + 1) / 30.0;
  if (on_floor)
    for (int i = 0; i < n; i++) floor_update(insts[i]);
  else
    for (int i = 0; i < n; i++) bt_inst_update(insts[i]);
}

/* The frames of a run: WARM of them, then the timed ones in PARTS parts, the fastest counting;
 * fills in ns, leaves and allocs per think. */
static void run_frames(result *r, void **insts, int n, int on_floor) {
  int f = 0;
  for (; f < WARM; f++) frame(insts, n, on_floor, f);
  long long calls0 = leaf_calls, allocs0 = heap_allocs;
  int per_part = opt_frames / PARTS;
  double best = 1e300;
  for (int part = 0; part < PARTS; part++) {
    double t0 = wall();
    for (int end = f + per_part; f < end; f++) frame(insts, n, on_floor, f);
    double t = wall() - t0;
    if (t < best) best = t;
  }
  double thinks = (double)n * per_part;
  r->ns = best / thinks * 1e9;
  r->leaves = (double)(leaf_calls - calls0) / (thinks * PARTS);
  r->allocs = (double)(heap_allocs - allocs0) / (thinks * PARTS);
}

static result run_bt(scenario *sc) {
  result r;
  int n = sc->nagents;
  void **insts = calloc((size_t)n, sizeof *insts);
  if (!insts) exit(1);
  rng_state = 1;
  long long bytes0 = heap_bytes;
  double t0 = wall();
  for (int i = 0; i < n; i++) {
    bt_inst *in;
    if (bt_inst_create(&in, sc->def, &host, &sc->agents[i], 0) != BT_OK) exit(1);
    insts[i] = in;
  }
  r.create = (wall() - t0) / n * 1e9;
  r.bytes = (double)(heap_bytes - bytes0) / n;
  run_frames(&r, insts, n, 0);
  int nodes = sc->floor.n;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < nodes; k++)
      bt_statuses[(size_t)i * nodes + k] = (uint8_t)bt_node_status(insts[i], sc->floor.bt_node[k]);
  for (int i = 0; i < n; i++) bt_inst_free(insts[i]);
  free(insts);
  return r;
}

static result run_floor(scenario *sc) {
  result r;
  int n = sc->nagents;
  void **insts = calloc((size_t)n, sizeof *insts);
  if (!insts) exit(1);
  rng_state = 1;
  long long bytes0 = heap_bytes;
  double t0 = wall();
  for (int i = 0; i < n; i++)
    if (!(insts[i] = floor_create(&sc->floor, &sc->agents[i]))) exit(1);
  r.create = (wall() - t0) / n * 1e9;
  r.bytes = (double)(heap_bytes - bytes0) / n;
  run_frames(&r, insts, n, 1);
  int nodes = sc->floor.n;
  for (int i = 0; i < n; i++) {
    const floor_inst *in = insts[i];
    for (int k = 0; k < nodes; k++)
      if (bt_statuses[(size_t)i * nodes + k] != in->state[k]) sc->mismatches++;
  }
  for (int i = 0; i < n; i++) free(insts[i]);
  free(insts);
  return r;
}

static void keep_best(result *best, const result *r, int first) {
  if (first || r->ns < best->ns) {
    double create = first ? r->create : fmin(best->create, r->create);
    *best = *r;
    best->create = create;
  } else {
    best->create = fmin(best->create, r->create);
  }
}

static int usage(const char *flag, const char *value) {
  fprintf(stderr,
          "usage: bench_cleaf [--agents N] [--frames N] [--rounds N] [--tree 8|40]\n"
          "bad argument: %s %s (agents >= 1, frames >= %d, rounds >= 1, tree 8 or 40)\n",
          flag, value ? value : "", PARTS);
  return 2;
}

/* A whole number >= min, or -1. */
static long parse_count(const char *s, long min) {
  if (!s || !*s) return -1;
  char *end;
  long v = strtol(s, &end, 10);
  return *end || v < min || v > 100000000 ? -1 : v;
}

int main(int argc, char **argv) {
  long agents = 10000, frames = 300, rounds = 5, only = 0;
  for (int i = 1; i < argc; i += 2) {
    const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(flag, "--help") && !value) {
      printf("usage: bench_cleaf [--agents N] [--frames N] [--rounds N] [--tree 8|40]\n\n"
             "bt with C leaves against a hand-written floor: think, bytes and creation of an\n"
             "8-node tree and a 40-node brain (docs/performance.md).\n");
      return 0;
    }
    if (!strcmp(flag, "--version") && !value) {
      printf("bench_cleaf (bt) %s\n", BT_VERSION);
      return 0;
    }
    if (!strcmp(flag, "--print-small") && !value) {
      fputs(brain_small, stdout);
      putchar('\n');
      return 0;
    }
    long *dst = !strcmp(flag, "--agents") ? &agents : !strcmp(flag, "--frames") ? &frames
              : !strcmp(flag, "--rounds") ? &rounds : !strcmp(flag, "--tree") ? &only : NULL;
    long v = parse_count(value, dst == &frames ? PARTS : 1);
    if (!dst || v < 0 || (dst == &only && v != 8 && v != 40)) return usage(flag, value);
    *dst = v;
  }
  opt_frames = (int)frames;

  static scenario sc[2];
  if (read_tree(&sc[0].t, "8 nodes", TREE8) || read_tree(&sc[1].t, "40 nodes", brain_small)) return 1;
  for (int s = 0; s < 2; s++) {
    sc[s].nagents = (int)agents;
    sc[s].agents = calloc((size_t)agents, sizeof(agent));
    if (!sc[s].agents || bt_build(&sc[s].def, &sc[s].t.b)) return 1;
    floor_build(&sc[s].floor, &sc[s].t.b);
    map_nodes(&sc[s].floor, sc[s].def);
    set_fields(&sc[s]);
  }
  bt_statuses = malloc((size_t)agents * MAX_NODES);
  if (!bt_statuses) return 1;

  printf("bt with C leaves against a hand-written floor: %ld agents, each thinking every frame at "
         "30 Hz, the host setting the time once per frame; %ld frames after %d to warm up "
         "(fastest fifth timed), fastest of %ld rounds\n",
         agents, frames, WARM, rounds);
  result best[2][2];
  int from = only == 40, to = only == 8 ? 1 : 2; /* the trees to run */
  for (long r = 0; r < rounds; r++)
    for (int s = from; s < to; s++) {
      result b = run_bt(&sc[s]);
      result f = run_floor(&sc[s]);
      keep_best(&best[s][0], &b, r == 0);
      keep_best(&best[s][1], &f, r == 0);
      if (r == 0) {
        sc[s].bt_leaves = b.leaves;
        sc[s].floor_leaves = f.leaves;
      }
    }

  int bad = 0;
  printf("\n%-9s %-6s %9s %13s %12s %13s %12s\n", "tree", "", "ns/think", "leaves/think",
         "bytes/agent", "allocs/think", "ns/creation");
  for (int s = from; s < to; s++) {
    const char *names[2] = {"bt", "floor"};
    for (int k = 0; k < 2; k++) {
      const result *r = &best[s][k];
      printf("%-9s %-6s %9.1f %13.3f %12.0f %13.3f %12.1f\n", k ? "" : sc[s].t.name, names[k], r->ns,
             r->leaves, r->bytes, r->allocs, r->create);
    }
    const result *b = &best[s][0], *f = &best[s][1];
    printf("%-9s %-6s %8.2fx %13s %11.2fx %13s %11.2fx\n", "", "bt/fl", b->ns / f->ns, "",
           b->bytes / f->bytes, "", b->create / f->create);
    printf("%-9s %-6s %9s %13s %12s %13s %12s\n", "", "target", "<= 1.30x", "", "<= 2.00x", "",
           "<= 1.50x");
    /* what an instance holds (bt_def_inst_size), against the floor's, from the public API */
    const bt_def *def = sc[s].def;
    int nodes = bt_def_states(def), deadlines = 0, words = (nodes + 63) / 64;
    for (int k = 0; k < nodes; k++) { /* the deadlines kept in the instance (not spilled) */
      int node = bt_def_node_of_state(def, k), kind = bt_def_kind(def, node);
      deadlines += bt_node_has_field(def, node, BT_FIELD_NEXTUPDATETIME) && kind != BT_ACTION &&
                   kind != BT_CONDITIONWAIT && kind != BT_MULTICONDITION;
    }
    printf("%-9s instance: bt %zu bytes, of which %d statuses and %d flags with the last results "
           "(a byte per node), %d Sleep deadlines (%d), bit words %d; floor %zu\n",
           "", bt_def_inst_size(def), nodes, nodes, deadlines, 8 * deadlines,
           words > 1 ? 16 * words + 16 : 8, sc[s].floor.size);
    int same = sc[s].bt_leaves == sc[s].floor_leaves && sc[s].mismatches == 0;
    printf("%-9s leaf calls per think: bt %.6f, floor %.6f; statuses that differ after the runs: "
           "%lld%s\n",
           "", sc[s].bt_leaves, sc[s].floor_leaves, sc[s].mismatches, same ? "" : "  MISMATCH");
    if (!same) bad = 1;
  }
  for (int s = 0; s < 2; s++) {
    bt_def_release(sc[s].def);
    free(sc[s].agents);
  }
  free(bt_statuses);
  return bad;
}
