/* SPDX-License-Identifier: MIT */
/* harness.h: what the C tests share. A clock the test sets (T), scripted random numbers, leaves
 * that read scripted results and log their calls, and short ways to build trees and read them.
 * Include after check.h. Every expected value in the tests is derived from the Don't Starve
 * scripts (behaviourtree.lua of build 613aaa9c), not from this library's output. */
#ifndef HARNESS_H
#define HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"
#include "check.h"

#define H_UNUSED __attribute__((unused))

/* A precondition of the harness itself (building trees, running a think): reported and counted
 * as a failed check when it fails, not counted when it holds, so the check count is the tests'. */
#define REQUIRE(cond)                                                            \
  do {                                                                           \
    if (!(cond)) {                                                               \
      check_count++;                                                             \
      check_failures++;                                                          \
      fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                            \
  } while (0)

/* ---- the clock ---- */

static double T H_UNUSED; /* GetTime() of the tests */

static double h_now(void *data) {
  (void)data;
  return T;
}

/* ---- scripted random numbers ---- */

static double RAND_SEQ[16] H_UNUSED; /* values of host.random, in call order */
static int rand_pos H_UNUSED, rand_calls H_UNUSED;
static int RINT_SEQ[16] H_UNUSED; /* values of host.random_int, in call order */
static int rint_pos H_UNUSED, rint_calls H_UNUSED, rint_last_n H_UNUSED;
static int rint_fail H_UNUSED; /* non-zero: random_int returns BT_EINVAL */

static double h_random(void *data) {
  (void)data;
  rand_calls++;
  return rand_pos < 16 ? RAND_SEQ[rand_pos++] : 0.5;
}

static int h_random_int(void *data, int n, int *out) {
  (void)data;
  rint_calls++;
  rint_last_n = n;
  if (rint_fail) return BT_EINVAL;
  *out = rint_pos < 16 ? RINT_SEQ[rint_pos++] : 1;
  return BT_OK;
}

static const bt_host HOST H_UNUSED = {h_now, h_random, h_random_int, NULL};

/* ---- the call log ---- */

static char LOG[8192] H_UNUSED;
static char LOG_COPY[8192] H_UNUSED;

static inline void log_add(const char *s) {
  size_t len = strlen(LOG);
  snprintf(LOG + len, sizeof LOG - len, "%s%s", len ? " " : "", s);
}

static inline void log_addf(const char *fmt, const char *s) {
  char tmp[256];
  snprintf(tmp, sizeof tmp, fmt, s);
  log_add(tmp);
}

/* Returns the log so far and clears it. */
static inline const char *logs(void) {
  memcpy(LOG_COPY, LOG, sizeof LOG);
  LOG[0] = '\0';
  return LOG_COPY;
}

/* ---- the bytes of a log, in memory (bt_log_create_fn) ---- */

typedef struct mem {
  unsigned char *p;
  size_t len, cap;
  int fail; /* the write fails */
} mem;

static H_UNUSED int mem_write(void *ud, const void *data, size_t size) {
  mem *m = ud;
  if (m->fail) return -1;
  if (m->len + size > m->cap) {
    size_t cap = m->cap ? m->cap : 4096;
    while (cap < m->len + size) cap *= 2;
    unsigned char *p = realloc(m->p, cap);
    if (!p) return -1;
    m->p = p;
    m->cap = cap;
  }
  memcpy(m->p + m->len, data, size);
  m->len += size;
  return 0;
}

/* ---- leaves ---- */

typedef struct leaf leaf;
struct leaf {
  const char *name;
  int status;   /* BT_BEHAVIOUR leaves: the status their visit sets */
  int result;   /* bt_fn leaves: what fn returns */
  double value; /* time functions: what they store in call->value */
  double sleep; /* BT_BEHAVIOUR leaves: >= 0 calls bt_node_sleep(sleep) on every visit */
  int calls;    /* visits (or fn calls) */
  int starts;   /* BT_BEHAVIOUR visits that found the node not RUNNING */
  int resets;   /* reset op calls */
  int log_resets;
  void (*hook)(bt_call *c, leaf *l); /* called inside the visit, before the status is set */
};

#define LEAF(nm, st) \
  { .name = (nm), .status = (st), .result = 1, .value = 0, .sleep = -1 }
#define FN(nm, res) \
  { .name = (nm), .status = BT_FAILED, .result = (res), .value = 0, .sleep = -1 }

/* A bt_fn leaf (Condition, ConditionWait, Action, MultiCondition, Wait/Latch time). */
static int leaf_fn(bt_call *c) {
  leaf *l = c->ud;
  log_add(l->name);
  l->calls++;
  if (l->hook) l->hook(c, l);
  c->value = l->value;
  return l->result;
}

/* A C behaviour, as a Lua subclass of BehaviourNode writes one. */
static int leaf_visit(bt_call *c) {
  leaf *l = c->ud;
  log_add(l->name);
  l->calls++;
  if (bt_node_status(c->inst, c->node) != BT_RUNNING) l->starts++;
  if (l->hook) l->hook(c, l);
  bt_node_set_status(c->inst, c->node, (bt_status)l->status);
  if (l->sleep >= 0) bt_node_sleep(c->inst, c->node, l->sleep);
  return BT_OK;
}

static int leaf_reset(bt_call *c) {
  leaf *l = c->ud;
  l->resets++;
  if (l->log_resets) log_addf("reset:%s", l->name);
  return BT_DEFAULT;
}

static int leaf_stop(bt_call *c) {
  leaf *l = c->ud;
  log_addf("stop:%s", l->name);
  return BT_OK;
}

static const bt_ops LEAF_OPS H_UNUSED = {leaf_visit, leaf_reset, NULL, leaf_stop, NULL, NULL};

/* on_stop only, for any node: ops_ud is the name to log. */
static int named_stop(bt_call *c) {
  log_addf("stop:%s", (const char *)c->ud);
  return BT_OK;
}
static const bt_ops STOP_OPS H_UNUSED = {NULL, NULL, NULL, named_stop, NULL, NULL};

/* ---- building ---- */

static inline int add_node(bt_graph *g, int kind, const char *name, double param, unsigned flags) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.param = param;
  s.flags = flags;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

/* A BT_BEHAVIOUR leaf driven by l. */
static inline int add_leaf(bt_graph *g, leaf *l) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = l->name;
  s.ops = &LEAF_OPS;
  s.ops_ud = l;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

/* A node whose fn is l (Condition, ConditionWait, Action); name NULL gives the default name. */
static inline int add_fn(bt_graph *g, int kind, leaf *l, const char *name) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.fn = leaf_fn;
  s.ud = l;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

static inline int add_multi(bt_graph *g, leaf *start, leaf *cont, const char *name) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_MULTICONDITION;
  s.name = name;
  s.fn = leaf_fn;
  s.ud = start;
  s.fn2 = leaf_fn;
  s.ud2 = cont;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

/* A Wait or Latch whose time comes from l (l->value). */
static inline int add_timed_fn(bt_graph *g, int kind, leaf *l, const char *name) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.flags = BT_SPEC_PARAM_FN;
  s.fn = leaf_fn;
  s.ud = l;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

/* Priority without scatter (scatter is tested on its own). */
static inline int add_prio(bt_graph *g, const char *name, double period) {
  return add_node(g, BT_PRIORITY, name, period, BT_SPEC_NOSCATTER);
}

static inline void set_kids(bt_graph *g, int parent, int n, ...) {
  int kids[64];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n && i < 64; i++) kids[i] = va_arg(ap, int);
  va_end(ap);
  REQUIRE(bt_graph_set_children(g, parent, kids, n) == BT_OK);
}

/* Compiles root, frees the graph, and makes an instance on HOST (the instance holds the def). */
static inline bt_inst *build(bt_graph *g, int root, unsigned inst_flags) {
  bt_def *def = NULL;
  int rc = bt_def_create(&def, g, root);
  if (rc != BT_OK) {
    fprintf(stderr, "build: bt_def_create failed: %s (%s)\n", bt_strerror(rc), bt_graph_errmsg(g));
    exit(2);
  }
  bt_graph_free(g);
  bt_inst *in = NULL;
  rc = bt_inst_create(&in, def, &HOST, NULL, inst_flags);
  if (rc != BT_OK) {
    fprintf(stderr, "build: bt_inst_create failed: %s\n", bt_strerror(rc));
    exit(2);
  }
  bt_def_release(def);
  return in;
}

static inline bt_graph *new_graph(void) {
  bt_graph *g = NULL;
  if (bt_graph_create(&g) != BT_OK) {
    fprintf(stderr, "bt_graph_create failed\n");
    exit(2);
  }
  return g;
}

/* Whether the recorder is built in (not cmake -DBT_RECORDER=OFF): a recorder attaches to an
 * instance. The recorder's tests run only then. */
static inline int recorder_built(void) {
  leaf B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *probe = build(g, add_leaf(g, &B), 0);
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, 4) == BT_OK);
  int rc = bt_inst_set_recorder(probe, r);
  bt_rec_free(r);
  bt_inst_free(probe);
  return rc != BT_EINVAL;
}

/* The first pre-order index of graph node gid. */
static inline int at(bt_inst *in, int gid) {
  const bt_def *d = bt_inst_def(in);
  for (int s = 0; s < bt_def_states(d); s++)
    if (bt_def_graph_id(d, s) == gid) return bt_def_node_of_state(d, s);
  fprintf(stderr, "at: graph node %d is not in the tree\n", gid);
  exit(2);
}

#define ST(in, g) bt_status_name(bt_node_status((in), at((in), (g))))
#define LAST(in, g) bt_status_name(bt_node_last((in), at((in), (g))))
#define LST(in, g) bt_status_name(bt_node_last((in), at((in), (g))))

/* One think at time t. */
static inline void think(bt_inst *in, double t) {
  T = t;
  REQUIRE(bt_inst_update(in) == BT_OK);
}

#define NIL_VALUE (-12345.0) /* what sleep_of and field give for nil */

static inline double sleep_of(bt_inst *in) {
  double v = -99999;
  return bt_inst_sleep_time(in, &v) ? v : NIL_VALUE;
}

static inline double field(bt_inst *in, int gid, int f) {
  double v = -99999;
  int rc = bt_node_get(in, at(in, gid), f, &v);
  REQUIRE(rc == 0 || rc == 1);
  return rc == 1 ? v : NIL_VALUE;
}

static inline void set_field(bt_inst *in, int gid, int f, double v) {
  REQUIRE(bt_node_set(in, at(in, gid), f, &v) == BT_OK);
}

static char DUMP[16384] H_UNUSED;

static inline const char *dump(bt_inst *in) {
  bt_buf b = {0};
  REQUIRE(bt_inst_dump(in, &b) == BT_OK);
  snprintf(DUMP, sizeof DUMP, "%s", b.data ? b.data : "");
  bt_buf_free(&b);
  return DUMP;
}

/* ---- a tree with a blackboard (test_keylog, test_dot, test_view) ----
 * Root (a Priority of period 1) over Hungry (a WatchNode: hunger > 0.7, abort lower) > Hunt
 * (reads hunger, writes prey), Night (a WatchNode: night is true) > Sleep, and Wander (reads
 * and writes mood, writes count). Its keys: hunger (a number, the host's), night (a boolean, the
 * host's), prey (an entity), mood (a string), count (an integer), token (a value, the host's,
 * which no node uses). Pre-order: 0 Root, 1 Hungry, 2 Hunt, 3 Night, 4 Sleep, 5 Wander. */
enum { KEY_HUNGER, KEY_NIGHT, KEY_PREY, KEY_MOOD, KEY_COUNT, KEY_TOKEN };

/* A behaviour with ports, and a WatchNode `key cmp value`; where: where they were made, or NULL. */
static inline int add_ported_leaf(bt_graph *g, leaf *l, const bt_port *ports, int n, const char *where) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = l->name;
  s.ops = &LEAF_OPS;
  s.ops_ud = l;
  s.ports = ports;
  s.nports = n;
  s.where = where;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

static inline int add_watch_node(bt_graph *g, const char *name, const char *key, int cmp, bt_value value,
                                 unsigned flags, const char *where) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_WATCH;
  s.name = name;
  s.key = key;
  s.cmp = cmp;
  s.value = value;
  s.flags = flags;
  s.where = where;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

static inline bt_def *board_def(leaf *hunt, leaf *sleep, leaf *wander) {
  bt_graph *g = new_graph();
  REQUIRE(bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST) == KEY_HUNGER);
  REQUIRE(bt_graph_add_key(g, "night", BT_KEY_BOOLEAN, BT_KEY_HOST) == KEY_NIGHT);
  REQUIRE(bt_graph_add_key(g, "prey", BT_KEY_ENTITY, 0) == KEY_PREY);
  REQUIRE(bt_graph_add_key(g, "mood", BT_KEY_STRING, 0) == KEY_MOOD);
  REQUIRE(bt_graph_add_key(g, "count", BT_KEY_INTEGER, 0) == KEY_COUNT);
  REQUIRE(bt_graph_add_key(g, "token", BT_KEY_VALUE, BT_KEY_HOST) == KEY_TOKEN);
  static const bt_port hunt_ports[] = {{"hunger", 0, BT_PORT_READ}, {"prey", BT_KEY_ENTITY, BT_PORT_WRITE}};
  static const bt_port wander_ports[] = {{"mood", 0, BT_PORT_READ | BT_PORT_WRITE}, {"count", 0, BT_PORT_WRITE}};
  bt_value over = {BT_KEY_NUMBER, {.number = 0.7}}, none = {BT_KEY_NONE, {0}};
  int hungry = add_watch_node(g, "Hungry", "hunger", BT_CMP_GT, over, BT_SPEC_ABORT_LOWER, NULL);
  int hunt_id = add_ported_leaf(g, hunt, hunt_ports, 2, NULL);
  set_kids(g, hungry, 1, hunt_id);
  int night = add_watch_node(g, "Night", "night", BT_CMP_TRUE, none, 0, NULL);
  set_kids(g, night, 1, add_leaf(g, sleep));
  int wander_id = add_ported_leaf(g, wander, wander_ports, 2, NULL);
  int root = add_prio(g, "Root", 1);
  set_kids(g, root, 3, hungry, night, wander_id);
  bt_def *def = NULL;
  if (bt_def_create(&def, g, root) != BT_OK) {
    fprintf(stderr, "board_def: %s\n", bt_graph_errmsg(g));
    exit(2);
  }
  bt_graph_free(g);
  return def;
}

static inline int set_key(bt_inst *in, int key, bt_value v) { return bt_inst_key_set(in, key, &v); }
static inline bt_value num_value(double x) {
  bt_value v = {BT_KEY_NUMBER, {.number = x}};
  return v;
}
static inline bt_value str_value(const char *s) {
  bt_value v = {BT_KEY_STRING, {.string = s}};
  return v;
}

#endif
