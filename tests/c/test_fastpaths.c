/* SPDX-License-Identifier: MIT */
/* test_fastpaths.c: the think's fast paths against the reference way (docs/internals.md "Fast
 * paths"; docs/testing.md "Both ways"). A definition compiled while the environment has
 * BT_NO_FAST_PATHS=1 takes none of them; one compiled without takes those its shape allows.
 *
 * - The switch: the choices a definition made (internal.h's bt_def fields, which bt.h does not
 *   show) are on without the variable, with "" and with "0", and off with "1"; a think of a
 *   definition compiled with them off never settles, and never clears a touched bit. Each is
 *   checked both ways, so neither can pass for want of a fast path to turn off.
 * - The same trees both ways: a hand-written brain and random trees (small plain ones, which take
 *   the second visit of nodes.c; trees of every kind, with bt_ops, shared nodes, MultiConditions,
 *   tasks and events; wide ones over several chunks of the bit sets, whose Reset and Step scan the
 *   touched bits a word at a time), each compiled twice, one instance of each seeded alike and
 *   thought in lockstep under the same clock, events, ForceUpdates, resets and stops, with leaves
 *   whose answers depend on the seed, the node and the think only (and that sometimes reset the
 *   tree, fire an event or sleep inside the think). After every think the recorder's records,
 *   the leaf calls in their order, the sleep time, the dump and the saved state must be equal.
 *   A mismatch prints the seed, the think and what differs.
 *
 * This test sets the variable itself before each compile, so it is the same under ctest's
 * .nofast set, which leaves it out.
 */
#include "sys.h" /* first: the environment variable set and unset */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "bt.h"
#include "internal.h" /* bt_def's choices of fast paths and bt_inst's header: not in bt.h */

static const char *const ENV = "BT_NO_FAST_PATHS";

/* Compiles the tree under root with the variable set to env (NULL: unset). */
static bt_def *compile(bt_graph *g, int root, const char *env) {
  sys_setenv(ENV, env);
  bt_def *d = NULL;
  int rc = bt_def_create(&d, g, root);
  if (rc != BT_OK) fprintf(stderr, "bt_def_create: %s\n", bt_graph_errmsg(g));
  CHECK_INT(rc, BT_OK);
  sys_setenv(ENV, NULL);
  return d;
}

/* ---- random numbers: the driver's, and the leaves' answers ---- */

static uint64_t rng = 1;
static uint32_t rnd(uint32_t n) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return n ? (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 33) % n : 0;
}

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E019ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static uint64_t SEED;  /* the tree's */
static unsigned THINK; /* the think under way, the same for both instances */
static double T;       /* the clock of both */

static double now(void *data) {
  (void)data;
  return T;
}
static const bt_host HOST = {now, NULL, NULL, NULL};

/* A leaf's answer: of the seed, the think, the node and what is asked, nothing else. */
static uint64_t answer(const bt_call *c, int what) { return mix(mix(SEED, THINK), (uint64_t)c->node * 16 + (uint64_t)what); }

/* ---- one run: its instance, its records and its leaf calls since the last comparison ---- */

#define MAX_EVENTS 64

typedef struct run {
  bt_inst *in;
  bt_rec *rec;
  bt_buf recs, calls;
  unsigned disturbed; /* the think a leaf last disturbed (once a think: a leaf that resets its tree at
                         each call would have it think for ever, in Don't Starve too) */
} run;

static int EVENTS[MAX_EVENTS], NEVENTS; /* the EventNodes, by pre-order index (the same in both) */

static void note(bt_call *c, const char *what, long long r) {
  run *u = bt_inst_agent(c->inst);
  bt_buf_printf(&u->calls, "%s@%d=%lld ", what, c->node, r);
}

/* What a leaf may do inside the think, rarely: reset the tree, fire an event, force an update. */
static void disturb(bt_call *c, uint64_t h) {
  run *u = bt_inst_agent(c->inst);
  if (u->disturbed == THINK) return;
  if (h % 397 == 0 || h % 389 == 0 || h % 383 == 0) u->disturbed = THINK;
  if (h % 397 == 0) {
    note(c, "reset-inside", 0);
    bt_inst_reset(c->inst);
  } else if (h % 389 == 0 && NEVENTS) {
    note(c, "event-inside", 0);
    bt_inst_fire_event(c->inst, EVENTS[(h >> 20) % (uint64_t)NEVENTS]);
  } else if (h % 383 == 0) {
    note(c, "force-inside", 0);
    bt_inst_force_update(c->inst);
  }
}

static int f_condition(bt_call *c) {
  uint64_t h = answer(c, 1);
  int r = h % 23 == 0 ? -1 : (int)(h >> 8 & 1);
  note(c, "cond", r);
  disturb(c, h >> 32);
  return r;
}

static int f_action(bt_call *c) {
  uint64_t h = answer(c, 2);
  int r = h % 7 == 0 ? -1 : 1;
  note(c, "action", r);
  if (h % 11 == 0) bt_node_sleep(c->inst, c->node, 0.25 * (double)(h >> 40 & 7));
  disturb(c, h >> 32);
  return r;
}

static int f_wait(bt_call *c) { /* ConditionWait: true, false or an error */
  uint64_t h = answer(c, 3);
  int r = h % 13 == 0 ? -1 : (h >> 8) % 3 == 0 ? 1 : 0;
  note(c, "condwait", r);
  return r;
}

static int f_start(bt_call *c) { /* a MultiCondition's */
  uint64_t h = answer(c, 4);
  int r = (int)(h >> 8 & 1);
  note(c, "start", r);
  return r;
}

static int f_continue(bt_call *c) {
  uint64_t h = answer(c, 5);
  int r = (h >> 8) % 4 == 0 ? 0 : 1;
  note(c, "continue", r);
  return r;
}

static int f_time(bt_call *c) { /* a Wait's or Latch's time */
  uint64_t h = answer(c, 6);
  c->value = 0.25 * (double)(h >> 8 & 15);
  int r = h % 17 == 0 ? -1 : 1;
  note(c, "time", r);
  return r;
}

static int t_start(bt_call *c) {
  uint64_t h = answer(c, 7);
  int r = h % 9 == 0 ? -1 : 0;
  note(c, "task-start", r);
  return r;
}

static int t_update(bt_call *c) {
  uint64_t h = answer(c, 8);
  int r = (h >> 8) % 3 == 0 ? BT_SUCCESS : (h >> 8) % 3 == 1 ? BT_RUNNING : BT_FAILED;
  if (r == BT_RUNNING && (h & 1)) bt_node_sleep(c->inst, c->node, 0.5 * (double)(h >> 16 & 3));
  note(c, "task-update", r);
  return r;
}

static void t_finish(bt_call *c, bt_status s) { note(c, "task-finish", s); }

static const bt_task TASK = {t_start, t_update, t_finish};

/* A behaviour of the host's (a BehaviourNode leaf whose visit sets its status), and the Reset and
 * Step of the host's that other nodes get: they note the call and let the kind's own run. */
static int o_visit(bt_call *c) {
  uint64_t h = answer(c, 9);
  if (h % 11 == 0) {
    note(c, "visit-default", 0);
    return BT_DEFAULT; /* a BehaviourNode's own visit: FAILED */
  }
  bt_status s = (h >> 8) % 3 == 0 ? BT_SUCCESS : (h >> 8) % 3 == 1 ? BT_RUNNING : BT_FAILED;
  bt_node_set_status(c->inst, c->node, s);
  if (s == BT_RUNNING && (h & 2)) bt_node_sleep(c->inst, c->node, 0.5 * (double)(h >> 16 & 3));
  note(c, "visit", s);
  return BT_OK;
}

static int o_reset(bt_call *c) {
  note(c, "reset", 0);
  return BT_DEFAULT;
}

static int o_step(bt_call *c) {
  note(c, "step", 0);
  return BT_DEFAULT;
}

static const bt_ops LEAF_OPS = {o_visit, o_reset, o_step, NULL, NULL, NULL};
static const bt_ops WATCH_OPS = {NULL, o_reset, o_step, NULL, NULL, NULL};

static void on_record(void *ud, const bt_rec_entry *e) {
  run *u = ud;
  bt_buf_printf(&u->recs, "%d node=%d %s>%s think=%llu t=%.17g sleep=%d:%.17g cause=%d\n", e->type, e->node,
                bt_status_name(e->from), bt_status_name(e->to), e->think, e->time, e->has_sleep, e->sleep,
                e->cause);
}

/* ---- random trees ---- */

enum { SMALL, ANY, WIDE };

typedef struct gen {
  bt_graph *g;
  int mode;
  int count, max; /* nodes made, and the most to make (roughly) */
  int ops;        /* composites may get WATCH_OPS */
  int share;      /* leaves may have several parents */
  int shared[16], nshared; /* leaves another parent may take too */
} gen;

static int add(gen *G, int kind, double param, unsigned flags) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.param = param;
  s.flags = flags;
  switch (kind) {
    case BT_CONDITION: s.fn = f_condition; break;
    case BT_ACTION: s.fn = f_action; break;
    case BT_CONDITIONWAIT: s.fn = f_wait; break;
    case BT_MULTICONDITION: s.fn = f_start; s.fn2 = f_continue; break;
    case BT_WAIT:
    case BT_LATCH:
      if (flags & BT_SPEC_PARAM_FN) s.fn = f_time;
      break;
    case BT_TASK: s.task = &TASK; break;
    case BT_BEHAVIOUR: s.ops = &LEAF_OPS; break;
    default: break;
  }
  if (G->ops && kind != BT_BEHAVIOUR && rnd(5) == 0) s.ops = &WATCH_OPS;
  int id = bt_graph_add(G->g, &s);
  CHECK(id >= 0);
  G->count++;
  return id;
}

static void kids(gen *G, int id, const int *k, int n) { CHECK_INT(bt_graph_set_children(G->g, id, k, n), BT_OK); }

static double some_seconds(void) { return 0.25 * (double)(1 + rnd(12)); }

static int gen_leaf(gen *G) {
  if (G->mode == SMALL) return add(G, rnd(2) ? BT_CONDITION : BT_ACTION, 0, 0);
  if (G->nshared && rnd(12) == 0) return G->shared[rnd((uint32_t)G->nshared)];
  int id;
  switch (rnd(9)) {
    case 0: case 1: id = add(G, BT_CONDITION, 0, 0); break;
    case 2: case 3: id = add(G, BT_ACTION, 0, 0); break;
    case 4: id = add(G, BT_CONDITIONWAIT, 0, 0); break;
    case 5: id = add(G, BT_MULTICONDITION, 0, 0); break;
    case 6: id = rnd(2) ? add(G, BT_WAIT, some_seconds(), 0) : add(G, BT_WAIT, 0, BT_SPEC_PARAM_FN); break;
    case 7: id = add(G, BT_TASK, 0, 0); break;
    default: id = add(G, BT_BEHAVIOUR, 0, 0); break;
  }
  if (G->share && G->nshared < 16 && rnd(4) == 0) G->shared[G->nshared++] = id;
  return id;
}

static int gen_node(gen *G, int depth);

/* A composite of n children (at least one). */
static int gen_composite(gen *G, int kind, int n, double param, unsigned flags, int depth) {
  int id = add(G, kind, param, flags);
  int k[160];
  for (int i = 0; i < n; i++) k[i] = gen_node(G, depth + 1);
  kids(G, id, k, n);
  return id;
}

static int gen_node(gen *G, int depth) {
  if (depth >= 6 || G->count + 2 >= G->max || rnd(5) < 2) return gen_leaf(G);
  int n = 1 + (int)rnd(4);
  if (G->mode == SMALL) return gen_composite(G, rnd(2) ? BT_SEQUENCE : BT_SELECTOR, n, 0, 0, depth);
  switch (rnd(20)) {
    case 0: case 1: return gen_composite(G, BT_SEQUENCE, n, 0, 0, depth);
    case 2: case 3: return gen_composite(G, BT_SELECTOR, n, 0, 0, depth);
    case 4: return gen_composite(G, BT_PRIORITY, n, rnd(4) ? some_seconds() : 0,
                                 (rnd(4) ? 0 : BT_SPEC_NIL_PARAM) | (rnd(3) ? 0 : BT_SPEC_NOSCATTER), depth);
    case 5: return gen_composite(G, rnd(2) ? BT_PARALLEL : BT_PARALLEL_ANY, n, 0, 0, depth);
    case 6: return gen_composite(G, BT_LOOP, n, 1 + rnd(3), rnd(3) ? 0 : BT_SPEC_NIL_PARAM, depth);
    case 7: return gen_composite(G, BT_RANDOM, n, 0, 0, depth);
    case 8: return gen_composite(G, BT_ACTIVE_SELECTOR, n, 0, 0, depth);
    case 9: return gen_composite(G, BT_POLICY_PARALLEL, n, 0,
                                 (rnd(2) ? BT_SPEC_SUCCESS_ONE : 0) | (rnd(2) ? BT_SPEC_FAILURE_ALL : 0), depth);
    case 10: return gen_composite(G, BT_MONITOR, n, 0, 0, depth);
    case 11: {
      int id = add(G, BT_EVENT, rnd(4), 0);
      if (rnd(5)) {
        int k = gen_node(G, depth + 1);
        kids(G, id, &k, 1);
      }
      return id;
    }
    case 12: return gen_composite(G, BT_NOT + (int)rnd(3), 1, 0, 0, depth); /* Not, FailIfRunning, FailIfSuccess */
    case 13: return gen_composite(G, rnd(2) ? BT_SUCCEED : BT_FAIL, 1, 0, 0, depth);
    case 14: return rnd(2) ? gen_composite(G, BT_LATCH, 1, some_seconds(), 0, depth)
                           : gen_composite(G, BT_LATCH, 1, 0, BT_SPEC_PARAM_FN, depth);
    case 15: return gen_composite(G, BT_REPEAT, 1, 1 + rnd(3), rnd(3) ? 0 : BT_SPEC_NIL_PARAM, depth);
    case 16: return gen_composite(G, BT_COOLDOWN, 1, some_seconds(), 0, depth);
    case 17: return gen_composite(G, BT_TIMEOUT, 1, some_seconds(), 0, depth);
    case 18: {
      int id = add(G, BT_BEHAVIOUR, 0, BT_SPEC_CHILDREN); /* a BehaviourNode with children */
      int k[4];
      for (int i = 0; i < n; i++) k[i] = gen_node(G, depth + 1);
      kids(G, id, k, n);
      return id;
    }
    default: return gen_composite(G, BT_SEQUENCE, n, 0, 0, depth);
  }
}

/* A tree of the mode's; *root is its root. */
static bt_graph *gen_tree(int mode, int *root) {
  gen G = {NULL, mode, 0, 0, 0, 0, {0}, 0};
  CHECK_INT(bt_graph_create(&G.g), BT_OK);
  if (mode == SMALL) {
    G.max = 8 + (int)rnd(56);
    *root = gen_node(&G, 0);
  } else if (mode == ANY) {
    G.max = 10 + (int)rnd(140);
    G.ops = rnd(3) == 0;
    G.share = rnd(3) == 0;
    *root = gen_node(&G, 1); /* (a composite more often than not) */
  } else { /* WIDE: a root of 17 to 150 children, most of them leaves, no node shared */
    static const int roots[] = {BT_PRIORITY, BT_SELECTOR, BT_SEQUENCE, BT_ACTIVE_SELECTOR, BT_PARALLEL, BT_LOOP};
    int kind = roots[rnd(6)], n = 17 + (int)rnd(134);
    G.max = 1000;
    *root = add(&G, kind, kind == BT_PRIORITY ? some_seconds() : 0, kind == BT_LOOP ? BT_SPEC_NIL_PARAM : 0);
    int k[160];
    G.mode = ANY;
    for (int i = 0; i < n; i++) {
      G.max = G.count + (rnd(4) ? 1 : 4);
      k[i] = gen_node(&G, 4);
    }
    kids(&G, *root, k, n);
  }
  return G.g;
}

/* ---- the two ways in lockstep ---- */

typedef struct totals {
  int trees, thinks;
  int small_plain, walk_reset, plain_step, scans, several_chunks, shared; /* trees whose fast definition has it */
  int settled; /* thinks after which the fast instance was settled */
} totals;

static totals TOT;

static int start_run(run *u, bt_def *d, unsigned flags) {
  memset(u, 0, sizeof *u);
  if (bt_inst_create(&u->in, d, &HOST, u, flags | BT_INST_NOSCATTER) != BT_OK) return 0;
  bt_inst_seed(u->in, SEED);
  bt_inst_scatter(u->in);
  if (bt_rec_create(&u->rec, 0) != BT_OK) return 0;
  bt_rec_set_callback(u->rec, on_record, u);
  return bt_inst_set_recorder(u->in, u->rec) == BT_OK;
}

static void end_run(run *u) {
  bt_inst_free(u->in);
  bt_rec_free(u->rec);
  bt_buf_free(&u->recs);
  bt_buf_free(&u->calls);
}

/* Every touched bit of the instance is set. */
static int all_touched(const bt_inst *in) {
  for (uint32_t s = 0; s < in->def->nstates; s++)
    if (!touched_bit(in, s)) return 0;
  return 1;
}

static int differ(const char *what, const char *a, const char *b, const char *name, unsigned think) {
  if (strcmp(a ? a : "", b ? b : "") == 0) return 0;
  fprintf(stderr, "%s, think %u: the %s differ\n--- with fast paths:\n%s\n--- without:\n%s\n", name, think,
          what, a ? a : "", b ? b : "");
  return 1;
}

/* Thinks the tree under root both ways, thinks times; returns 0 at the first difference. */
static int both_ways(bt_graph *g, int root, int thinks, unsigned flags, const char *name) {
  bt_def *fast = compile(g, root, NULL), *ref = compile(g, root, "1");
  if (!fast || !ref) return 0;
  /* the switch took: the reference definition has none of the choices, which its twin may have */
  CHECK_INT(fast->fast_paths, 1);
  CHECK_INT(ref->fast_paths, 0);
  CHECK_INT(ref->small_plain, 0);
  CHECK_INT(ref->plain_step, 0);
  CHECK_INT(ref->walk_reset, 0);
  CHECK(ref->scan_children == UINT32_MAX);
  for (uint32_t i = 0; i < ref->nnodes; i++) CHECK(ref->nodes[i].hooks & HOOK_REFERENCE);
  TOT.trees++;
  TOT.small_plain += fast->small_plain;
  TOT.walk_reset += fast->walk_reset;
  TOT.plain_step += fast->plain_step;
  TOT.several_chunks += fast->nwords > 1;
  TOT.shared += !fast->unshared;
  for (uint32_t i = 0; i < fast->nnodes; i++)
    if (fast->nodes[i].nchildren > fast->scan_children) {
      TOT.scans++;
      break;
    }
  NEVENTS = 0;
  for (int n = 0; n < bt_def_size(fast) && NEVENTS < MAX_EVENTS; n++)
    if (bt_def_kind(fast, n) == BT_EVENT) EVENTS[NEVENTS++] = n;

  run a, b;
  int ok = start_run(&a, fast, flags) && start_run(&b, ref, flags);
  CHECK(ok);
  size_t size = bt_inst_state_size(fast);
  unsigned char *sa = malloc(size), *sb = malloc(size);
  bt_buf da = {0}, db = {0};
  T = 100;
  for (int t = 1; ok && t <= thinks; t++) {
    static const double steps[] = {0, 0.1, 0.25, 0.25, 0.5, 0.5, 1, 2.5};
    THINK = (unsigned)t;
    T += steps[rnd(8)];
    /* the world's doings between thinks, the same to both */
    uint32_t w = rnd(100);
    if (w < 12 && NEVENTS) {
      int e = EVENTS[rnd((uint32_t)NEVENTS)];
      CHECK_INT(bt_inst_fire_event(a.in, e), bt_inst_fire_event(b.in, e));
    } else if (w < 16) {
      bt_inst_force_update(a.in);
      bt_inst_force_update(b.in);
    } else if (w < 19) {
      CHECK_INT(bt_inst_reset(a.in), bt_inst_reset(b.in));
    } else if (w < 20) {
      bt_inst_stop(a.in);
      bt_inst_stop(b.in);
    }
    CHECK_INT(bt_inst_update(a.in), bt_inst_update(b.in));
    double ta = -1, tb = -1;
    int ha = bt_inst_sleep_time(a.in, &ta), hb = bt_inst_sleep_time(b.in, &tb);
    CHECK_INT(ha, hb);
    if (ha && hb) CHECK_NUM(ta, tb);
    /* the reference way neither settles nor clears a touched bit */
    CHECK_INT(b.in->settled, 0);
    CHECK(all_touched(b.in));
    TOT.settled += a.in->settled != 0;
    TOT.thinks++;
    da.len = db.len = 0;
    CHECK_INT(bt_inst_dump(a.in, &da), BT_OK);
    CHECK_INT(bt_inst_dump(b.in, &db), BT_OK);
    CHECK_INT(bt_inst_save(a.in, sa, size), BT_OK);
    CHECK_INT(bt_inst_save(b.in, sb, size), BT_OK);
    if (differ("records", a.recs.data, b.recs.data, name, THINK) ||
        differ("leaf calls", a.calls.data, b.calls.data, name, THINK) ||
        differ("dumps", da.data, db.data, name, THINK) || (ha && hb && ta != tb)) {
      ok = 0;
    } else if (memcmp(sa, sb, size) != 0) {
      fprintf(stderr, "%s, think %u: the saved states differ\n%s", name, THINK, da.data);
      ok = 0;
    }
    CHECK(ok);
    bt_buf *bufs[4] = {&a.recs, &b.recs, &a.calls, &b.calls};
    for (int i = 0; i < 4; i++) {
      bufs[i]->len = 0;
      if (bufs[i]->data) bufs[i]->data[0] = '\0';
    }
  }
  bt_buf_free(&da);
  bt_buf_free(&db);
  free(sa);
  free(sb);
  end_run(&a);
  end_run(&b);
  bt_def_release(fast);
  bt_def_release(ref);
  return ok;
}

/* ---- the switch ---- */

/* A guard's brain, as a designer writes one in DS style, of Sequences, Selectors, Conditions and
 * Actions only: a small plain tree. */
static bt_graph *guard_brain(int *root) {
  gen G = {NULL, SMALL, 0, 100, 0, 0, {0}, 0};
  CHECK_INT(bt_graph_create(&G.g), BT_OK);
  int flee[2] = {add(&G, BT_CONDITION, 0, 0), add(&G, BT_ACTION, 0, 0)};
  int fight[3] = {add(&G, BT_CONDITION, 0, 0), add(&G, BT_CONDITION, 0, 0), add(&G, BT_ACTION, 0, 0)};
  int patrol[2] = {add(&G, BT_ACTION, 0, 0), add(&G, BT_ACTION, 0, 0)};
  int k[4] = {add(&G, BT_SEQUENCE, 0, 0), add(&G, BT_SEQUENCE, 0, 0), add(&G, BT_SELECTOR, 0, 0),
              add(&G, BT_ACTION, 0, 0)};
  kids(&G, k[0], flee, 2);
  kids(&G, k[1], fight, 3);
  kids(&G, k[2], patrol, 2);
  *root = add(&G, BT_SELECTOR, 0, 0);
  kids(&G, *root, k, 4);
  return G.g;
}

static void test_switch(void) {
  int root;
  bt_graph *g = guard_brain(&root);
  /* without the variable, or with "" or "0", the small tree takes its second visit and resets,
   * and Update may skip Step; with "1" (or any other value) none of them. (On Windows "" is the
   * variable's absence again: the C runtime removes a variable set to "".) */
  const char *on[] = {NULL, "", "0"}, *off[] = {"1", "yes"};
  for (int i = 0; i < 3; i++) {
    bt_def *d = compile(g, root, on[i]);
    CHECK_INT(d->fast_paths, 1);
    CHECK_INT(d->small_plain, 1);
    CHECK_INT(d->plain_step, 1);
    CHECK_INT(d->walk_reset, 1);
    bt_def_release(d);
  }
  for (int i = 0; i < 2; i++) {
    bt_def *d = compile(g, root, off[i]);
    CHECK_INT(d->fast_paths, 0);
    CHECK_INT(d->small_plain, 0);
    CHECK_INT(d->plain_step, 0);
    CHECK_INT(d->walk_reset, 0);
    bt_def_release(d);
  }
  /* the shape-chosen scan of the touched bits: a node of more than SCAN_CHILDREN children */
  bt_graph *w;
  CHECK_INT(bt_graph_create(&w), BT_OK);
  gen G = {w, SMALL, 0, 1000, 0, 0, {0}, 0};
  int k[40];
  for (int i = 0; i < 40; i++) k[i] = add(&G, BT_CONDITION, 0, 0);
  int wroot = add(&G, BT_SELECTOR, 0, 0);
  kids(&G, wroot, k, 40);
  bt_def *fast = compile(w, wroot, NULL), *ref = compile(w, wroot, "1");
  CHECK_INT(fast->scan_children, SCAN_CHILDREN);
  CHECK(ref->scan_children == UINT32_MAX);
  bt_def_release(fast);
  bt_def_release(ref);
  bt_graph_free(w);

  /* a settled think: the fast instance settles (Update then skips Step), the reference one never */
  SEED = 5;
  bt_def *dfast = compile(g, root, NULL), *dref = compile(g, root, "1");
  run a, b;
  CHECK(start_run(&a, dfast, 0) && start_run(&b, dref, 0));
  int settled = 0;
  for (THINK = 1; THINK <= 50; THINK++) {
    T = THINK;
    bt_inst_update(a.in);
    bt_inst_update(b.in);
    settled += a.in->settled;
    CHECK_INT(b.in->settled, 0);
  }
  CHECK(settled > 0);
  end_run(&a);
  end_run(&b);
  bt_def_release(dfast);
  bt_def_release(dref);
  bt_graph_free(g);
}

static void test_guard(void) {
  int root;
  bt_graph *g = guard_brain(&root);
  for (SEED = 1; SEED <= 20; SEED++) both_ways(g, root, 200, 0, "the guard's brain");
  bt_graph_free(g);
}

static void test_random(int mode, int trees, int thinks) {
  static const char *modes[] = {"small plain", "any kind", "wide"};
  for (int i = 0; i < trees; i++) {
    SEED = (uint64_t)mode * 100000 + (uint64_t)i + 1;
    rng = mix(SEED, 77) | 1;
    int root;
    bt_graph *g = gen_tree(mode, &root);
    char name[96];
    snprintf(name, sizeof name, "a %s tree (seed %llu)", modes[mode], (unsigned long long)SEED);
    unsigned flags = rnd(5) == 0 ? BT_INST_EXACT : 0;
    both_ways(g, root, thinks, flags, name);
    bt_graph_free(g);
  }
}

int main(void) {
  char *was = getenv(ENV) ? strdup(getenv(ENV)) : NULL;
  test_switch();
  test_guard();
  test_random(SMALL, 300, 120);
  test_random(ANY, 400, 120);
  test_random(WIDE, 80, 80);
  /* every fast path met trees to be compared on */
  printf("compared %d trees over %d thinks: %d small plain, %d walked resets, %d plain steps, %d scanned, "
         "%d of several chunks, %d with shared nodes; %d settled thinks\n",
         TOT.trees, TOT.thinks, TOT.small_plain, TOT.walk_reset, TOT.plain_step, TOT.scans, TOT.several_chunks,
         TOT.shared, TOT.settled);
  CHECK(TOT.small_plain >= 250);
  CHECK(TOT.walk_reset >= 100);
  CHECK(TOT.scans >= 50);
  CHECK(TOT.several_chunks >= 50);
  CHECK(TOT.shared >= 20);
  CHECK(TOT.settled >= 1000);
  if (was) sys_setenv(ENV, was);
  free(was);
  return check_report("test_fastpaths");
}
