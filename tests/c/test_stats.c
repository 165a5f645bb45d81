/* SPDX-License-Identifier: MIT */
/* test_stats.c: per-node statistics (bt_stats_*). Scripted runs whose figures are worked out by
 * hand from Don't Starve's behaviourtree.lua (which statuses each think writes, in the comments),
 * for a Sequence, a Priority that switches children, a Parallel, errors, several agents of one
 * definition, a reset, shared nodes, changes outside a think, records fed by hand (as a log
 * reader feeds them), merging, the orders of bt_stats_list; and the live figures equal those of
 * the same records fed back through bt_stats_add, over random trees. */
#include "harness.h"

static bt_stats *new_stats(void) {
  bt_stats *st = NULL;
  REQUIRE(bt_stats_create(&st) == BT_OK);
  return st;
}

/* A recorder of capacity 0 feeding st, attached to in. */
static bt_rec *feed(bt_inst *in, bt_stats *st) {
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, 0) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, r) == BT_OK);
  REQUIRE(bt_rec_set_stats(r, st) == BT_OK);
  return r;
}

static bt_stats_node fig(bt_stats *st, const bt_inst *in, int node) {
  bt_stats_node f;
  memset(&f, 0xff, sizeof f);
  REQUIRE(bt_stats_node_get(st, bt_def_hash(bt_inst_def(in)), node, &f) == BT_OK);
  return f;
}

/* Checks a node's counts: visits, successes, failures, aborts, runs, thinks, errors, running. */
#define COUNTS(f, v, s, fl, ab, ru, th, er, rn)           \
  do {                                                    \
    CHECK_INT((int)(f).visits, v);                        \
    CHECK_INT((int)(f).successes, s);                     \
    CHECK_INT((int)(f).failures, fl);                     \
    CHECK_INT((int)(f).aborts, ab);                       \
    CHECK_INT((int)(f).runs, ru);                         \
    CHECK_INT((int)(f).thinks, th);                       \
    CHECK_INT((int)(f).errors, er);                       \
    CHECK_INT((f).running, rn);                           \
  } while (0)

static bt_stats_shape shape_of(bt_stats *st, int i) {
  bt_stats_shape s;
  memset(&s, 0, sizeof s);
  REQUIRE(bt_stats_shape_get(st, i, &s) == BT_OK);
  return s;
}

/* Sequence(C, B), pre-order S=0 C=1 B=2. Think 1 at t=1: C succeeds, B runs, S runs (Step resets
 * C). Think 2 at t=2: B still runs (no record). Think 3 at t=4: B succeeds, so S does (both reset
 * by Step). Think 4 at t=5: C and B succeed at once. */
static void test_sequence(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *in = build(g, s, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  CHECK(bt_rec_stats(r) == st);
  think(in, 1);
  think(in, 2);
  /* B has run 1 s so far (up to the latest record, think 2's) */
  bt_stats_node f = fig(st, in, 2);
  COUNTS(f, 1, 0, 0, 0, 1, 2, 0, 1);
  CHECK_NUM(f.time, 1);
  B.status = BT_SUCCESS;
  think(in, 4);
  think(in, 5);
  f = fig(st, in, 0);
  COUNTS(f, 2, 2, 0, 0, 1, 2, 0, 0);
  CHECK_NUM(f.time, 3);
  CHECK_NUM(f.longest, 3);
  f = fig(st, in, 1);
  COUNTS(f, 2, 2, 0, 0, 0, 0, 0, 0);
  CHECK_NUM(f.time, 0);
  f = fig(st, in, 2);
  COUNTS(f, 2, 2, 0, 0, 1, 2, 0, 0);
  CHECK_NUM(f.time, 3);
  CHECK_NUM(f.longest, 3);
  CHECK_INT(bt_stats_shape_count(st), 1);
  bt_stats_shape sh = shape_of(st, 0);
  CHECK(sh.shape == bt_def_hash(bt_inst_def(in)));
  CHECK_INT(sh.nodes, 3);
  CHECK_INT(sh.agents, 1);
  CHECK_INT((int)sh.thinks, 4);
  CHECK_INT((int)sh.errors, 0);
  CHECK(sh.def == bt_inst_def(in));
  CHECK_STR(bt_def_name(sh.def, 2), "B");
  CHECK_INT((int)bt_stats_dropped(st), 0);
  bt_stats_free(st); /* detaches itself from the recorder */
  CHECK(bt_rec_stats(r) == NULL);
  think(in, 6); /* the recorder goes on alone */
  bt_rec_free(r);
  bt_inst_free(in);
}

/* Priority(period 0.5; X, Y), pre-order P=0 X=1 Y=2; it evaluates at every think (lasttime +
 * period < now). t=0: X fails, Y runs, P runs (Step resets X). t=1: X runs, so the Priority
 * resets Y (RUNNING>READY: an abort). t=2: X succeeds, so does P; Step resets them. */
static void test_priority_switching(void) {
  leaf X = LEAF("X", BT_FAILED), Y = LEAF("Y", BT_RUNNING);
  bt_graph *g = new_graph();
  int x = add_leaf(g, &X), y = add_leaf(g, &Y), p = add_prio(g, "P", 0.5);
  set_kids(g, p, 2, x, y);
  bt_inst *in = build(g, p, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  think(in, 0);
  X.status = BT_RUNNING;
  think(in, 1);
  X.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(ST(in, p), "READY");
  bt_stats_node f = fig(st, in, 1); /* X: visited at 0 (failed) and 1 (ran 1 s, then succeeded) */
  COUNTS(f, 2, 1, 1, 0, 1, 1, 0, 0);
  CHECK_NUM(f.time, 1);
  f = fig(st, in, 2); /* Y: ran from 0 to 1, interrupted */
  COUNTS(f, 1, 0, 0, 1, 1, 1, 0, 0);
  CHECK_NUM(f.time, 1);
  f = fig(st, in, 0); /* P: ran from 0 to 2 */
  COUNTS(f, 1, 1, 0, 0, 1, 2, 0, 0);
  CHECK_NUM(f.time, 2);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* Parallel(A, C), pre-order Par=0 A=1 C=2. ParallelNode resets a ConditionNode before each visit
 * and its Step resets a succeeded one. t=0 and t=1: A runs, C succeeds, Par runs. t=3: C fails,
 * so Par fails; Step resets Par and its children, A among them (an abort). */
static void test_parallel(void) {
  leaf A = LEAF("A", BT_RUNNING), C = FN("C", 1);
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A), c = add_fn(g, BT_CONDITION, &C, "C"), par = add_node(g, BT_PARALLEL, "Par", 0, 0);
  set_kids(g, par, 2, a, c);
  bt_inst *in = build(g, par, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  think(in, 0);
  think(in, 1);
  C.result = 0;
  think(in, 3);
  bt_stats_node f = fig(st, in, 0);
  COUNTS(f, 1, 0, 1, 0, 1, 2, 0, 0);
  CHECK_NUM(f.time, 3);
  f = fig(st, in, 1);
  COUNTS(f, 1, 0, 0, 1, 1, 2, 0, 0);
  CHECK_NUM(f.time, 3);
  f = fig(st, in, 2);
  COUNTS(f, 3, 2, 1, 0, 0, 0, 0, 0);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* Errors the host contained count at their node; one of no node at the shape. */
static void test_errors(void) {
  leaf C = FN("C", -1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), sel = add_node(g, BT_SELECTOR, "Sel", 0, 0);
  set_kids(g, sel, 2, c, b);
  bt_inst *in = build(g, sel, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  for (int t = 1; t <= 3; t++) {
    think(in, t); /* C's function errs, as the host reports: C fails, the Selector goes on to B */
    REQUIRE(bt_inst_record_error(in, 1, "brain.lua:3: attempt to index a nil value") == BT_OK);
  }
  REQUIRE(bt_inst_record_error(in, -1, "out of memory") == BT_OK);
  bt_stats_node f = fig(st, in, 1);
  COUNTS(f, 1, 0, 1, 0, 0, 0, 3, 0); /* the running Selector resumes at B: C is visited once */
  f = fig(st, in, 2);
  COUNTS(f, 1, 0, 0, 0, 1, 3, 0, 1);
  CHECK_INT((int)shape_of(st, 0).errors, 1);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* Two agents of one definition with statistics switched on for it (bt_def_set_stats): each gets
 * a recorder of its own, freed with it; a third, made before the switch, is not counted.
 * Sequence(C, W), pre-order S=0 C=1 W=2; the agents share the leaves, so each think sets W's
 * status for the agent thinking. Agent one runs W from t=0 to t=4; agent two from t=1 to t=2,
 * and again from t=3 on. */
static void test_agents(void) {
  leaf C = FN("C", 1), W = LEAF("W", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), w = add_leaf(g, &W), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, w);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, s) == BT_OK);
  bt_graph_free(g);
  bt_inst *late = NULL;
  REQUIRE(bt_inst_create(&late, def, &HOST, NULL, 0) == BT_OK);
  bt_stats *st = new_stats();
  CHECK_INT(bt_def_set_stats(NULL, st), BT_EINVAL);
  REQUIRE(bt_def_set_stats(def, st) == BT_OK);
  bt_inst *one = NULL, *two = NULL;
  REQUIRE(bt_inst_create(&one, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_inst_create(&two, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_def_set_stats(def, NULL) == BT_OK);
  CHECK(bt_inst_recorder(one) != NULL && bt_rec_stats(bt_inst_recorder(one)) == st);
  CHECK(bt_inst_recorder(one) != bt_inst_recorder(two));
  CHECK(bt_inst_recorder(late) == NULL);
  think(one, 0);
  think(late, 0);
  think(two, 1);
  W.status = BT_SUCCESS;
  think(two, 2); /* W ends after 1 s */
  W.status = BT_RUNNING;
  think(two, 3); /* and runs again */
  W.status = BT_SUCCESS;
  think(one, 4); /* ends after 4 s */
  W.status = BT_RUNNING;
  think(two, 6); /* running since 3 */
  bt_stats_node f;
  REQUIRE(bt_stats_node_get(st, bt_def_hash(def), 2, &f) == BT_OK);
  /* W: visits one@0, two@1, two@3; successes two@2, one@4; running at the end of one@0, two@1,
   * two@3, two@6 */
  COUNTS(f, 3, 2, 0, 0, 3, 4, 0, 1);
  CHECK_NUM(f.time, 1 + 4 + 3);
  CHECK_NUM(f.longest, 4);
  REQUIRE(bt_stats_node_get(st, bt_def_hash(def), 1, &f) == BT_OK);
  COUNTS(f, 3, 3, 0, 0, 0, 0, 0, 0);
  bt_stats_shape sh = shape_of(st, 0);
  CHECK_INT(sh.agents, 2);
  CHECK_INT((int)sh.thinks, 6);
  /* agent two goes: its run under way ends at its latest record (t=6), counted as it went */
  bt_inst_free(two);
  REQUIRE(bt_stats_node_get(st, bt_def_hash(def), 2, &f) == BT_OK);
  COUNTS(f, 3, 2, 0, 0, 3, 4, 0, 0);
  CHECK_NUM(f.time, 1 + 4 + 3);
  bt_inst_free(one);
  bt_inst_free(late);
  bt_stats_free(st);
  bt_def_release(def);
}

/* One bt_stats that keeps the agents' own figures gives a population's figures and each agent's.
 * The script of test_agents: agent one runs W (node 2) from 0 to 4, agent two from 1 to 2 and
 * from 3 on; then agent two's own figures are reset at t=6, and it thinks at t=7. */
static void test_own_figures(void) {
  leaf C = FN("C", 1), W = LEAF("W", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), w = add_leaf(g, &W), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, w);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, s) == BT_OK);
  bt_graph_free(g);
  bt_stats *st = new_stats();
  REQUIRE(bt_stats_keep_agents(st, 1) == BT_OK);
  bt_inst *one = NULL, *two = NULL;
  REQUIRE(bt_inst_create(&one, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_inst_create(&two, def, &HOST, NULL, 0) == BT_OK);
  bt_rec *r1 = feed(one, st), *r2 = feed(two, st);
  think(one, 0);
  think(two, 1);
  W.status = BT_SUCCESS;
  think(two, 2);
  W.status = BT_RUNNING;
  think(two, 3);
  W.status = BT_SUCCESS;
  think(one, 4);
  W.status = BT_RUNNING;
  think(two, 6);
  bt_stats_node f;
  REQUIRE(bt_rec_stats_node(r1, 2, &f) == BT_OK);
  COUNTS(f, 1, 1, 0, 0, 1, 1, 0, 0);
  CHECK_NUM(f.time, 4);
  REQUIRE(bt_rec_stats_node(r2, 2, &f) == BT_OK);
  COUNTS(f, 2, 1, 0, 0, 2, 3, 0, 1);
  CHECK_NUM(f.time, 1 + 3);
  CHECK_NUM(f.longest, 3);
  bt_stats_shape sh;
  REQUIRE(bt_rec_stats_shape(r1, &sh) == BT_OK);
  CHECK(sh.agents == 1 && sh.thinks == 2 && sh.nodes == 3 && sh.def == def);
  REQUIRE(bt_rec_stats_shape(r2, &sh) == BT_OK);
  CHECK_INT((int)sh.thinks, 4);
  REQUIRE(bt_stats_node_get(st, bt_def_hash(def), 2, &f) == BT_OK); /* the population's */
  COUNTS(f, 3, 2, 0, 0, 3, 4, 0, 1);
  /* agent two's own figures afresh at t=6: its run under way counts from there */
  REQUIRE(bt_rec_stats_reset(r2, 6) == BT_OK);
  think(two, 7);
  REQUIRE(bt_rec_stats_node(r2, 2, &f) == BT_OK);
  COUNTS(f, 0, 0, 0, 0, 0, 1, 0, 1);
  CHECK_NUM(f.time, 1);
  REQUIRE(bt_stats_node_get(st, bt_def_hash(def), 2, &f) == BT_OK); /* the population's go on */
  COUNTS(f, 3, 2, 0, 0, 3, 5, 0, 1);
  CHECK_NUM(f.time, 1 + 4 + 4);
  bt_stats_node rows[4];
  CHECK_INT(bt_rec_stats_list(r2, BT_STATS_BY_VISITS, rows, 4), 3);
  CHECK_INT(rows[0].node, 0); /* no visits since the reset; S and W ran 1 s (tree order), C none */
  CHECK_INT(rows[1].node, 2);
  CHECK_INT(rows[2].node, 1);
  CHECK_INT(bt_rec_stats_node(r2, 3, &f), BT_EINVAL);
  CHECK_INT(bt_rec_stats_list(r2, 9, rows, 4), BT_EINVAL);
  /* a recorder without statistics, or statistics that keep no agents' figures */
  bt_rec *bare = NULL;
  REQUIRE(bt_rec_create(&bare, 0) == BT_OK);
  CHECK_INT(bt_rec_stats_node(bare, 0, &f), BT_EINVAL);
  CHECK_INT(bt_rec_stats_shape(NULL, &sh), BT_EINVAL);
  CHECK_INT(bt_rec_stats_reset(bare, 0), BT_EINVAL);
  bt_rec_free(bare);
  REQUIRE(bt_stats_keep_agents(st, 0) == BT_OK);
  CHECK_INT(bt_rec_stats_node(r1, 0, &f), BT_EINVAL);
  /* switched on again: from each agent's latest record (two's, t=7) */
  REQUIRE(bt_stats_keep_agents(st, 1) == BT_OK);
  think(two, 9);
  REQUIRE(bt_rec_stats_node(r2, 2, &f) == BT_OK);
  COUNTS(f, 0, 0, 0, 0, 0, 1, 0, 1);
  CHECK_NUM(f.time, 2);
  /* a reset of the whole zeroes the agents' own figures too */
  bt_stats_reset(st, 9);
  REQUIRE(bt_rec_stats_node(r2, 2, &f) == BT_OK);
  COUNTS(f, 0, 0, 0, 0, 0, 0, 0, 1);
  CHECK_NUM(f.time, 0);
  bt_rec_free(r1);
  bt_rec_free(r2);
  bt_inst_free(one);
  bt_inst_free(two);
  bt_stats_free(st);
  bt_def_release(def);
}

/* A reset zeroes the figures; a run under way goes on, counted from the reset's time. */
static void test_reset(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *in = build(g, s, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  think(in, 1);
  think(in, 2);
  bt_stats_reset(st, 2.5);
  bt_stats_node f = fig(st, in, 2);
  COUNTS(f, 0, 0, 0, 0, 0, 0, 0, 1); /* still running, nothing counted */
  CHECK_NUM(f.time, 0);
  CHECK_INT(shape_of(st, 0).agents, 0);
  CHECK_INT((int)shape_of(st, 0).thinks, 0);
  think(in, 3);
  B.status = BT_SUCCESS;
  think(in, 4.5);
  f = fig(st, in, 2);
  COUNTS(f, 0, 1, 0, 0, 0, 1, 0, 0); /* think 3; the end of the run: 4.5 - 2.5 */
  CHECK_NUM(f.time, 2);
  CHECK_NUM(f.longest, 2);
  f = fig(st, in, 1);
  COUNTS(f, 0, 0, 0, 0, 0, 0, 0, 0); /* C is not visited while S runs on from B */
  CHECK_INT(shape_of(st, 0).agents, 1);
  CHECK_INT((int)shape_of(st, 0).thinks, 2);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* Outside a think, a change to RUNNING (a restore) starts a run and is no visit; a Reset's
 * RUNNING>READY is an abort. */
static void test_outside_a_think(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *in = build(g, s, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  T = 1;
  REQUIRE(bt_inst_reset(in) == BT_OK); /* nothing to change */
  bt_node_set_status(in, 2, BT_RUNNING); /* as a restore does: S stays READY, B runs from t=1 */
  bt_stats_node f = fig(st, in, 2);
  COUNTS(f, 0, 0, 0, 0, 1, 0, 0, 1);
  think(in, 2); /* C succeeds, S runs, and goes to B, which was running: no visit */
  think(in, 3);
  T = 3.5;
  REQUIRE(bt_inst_reset(in) == BT_OK);
  f = fig(st, in, 2);
  COUNTS(f, 0, 0, 0, 1, 1, 2, 0, 0);
  CHECK_NUM(f.time, 2.5);
  f = fig(st, in, 0);
  COUNTS(f, 1, 0, 0, 1, 1, 2, 0, 0);
  CHECK_NUM(f.time, 1.5);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* A node placed under two parents has one state: its figures count at its first place.
 * Selector(Event(Sh), Sh), pre-order Sel=0 E=1 Sh=2 Sh'=3: the EventNode, never fired, stays
 * READY, which the Selector takes as a failure, so it runs Sh at its second place. */
static void test_shared_node(void) {
  leaf Sh = LEAF("Sh", BT_RUNNING);
  bt_graph *g = new_graph();
  int sh = add_leaf(g, &Sh), ev = add_node(g, BT_EVENT, "E", 0, 0), sel = add_node(g, BT_SELECTOR, "Sel", 0, 0);
  set_kids(g, ev, 1, sh);
  set_kids(g, sel, 2, ev, sh);
  bt_inst *in = build(g, sel, 0);
  REQUIRE(bt_def_size(bt_inst_def(in)) == 4);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  think(in, 0);
  think(in, 1);
  CHECK_STR(ST(in, sh), "RUNNING");
  bt_stats_node x = fig(st, in, 2);
  COUNTS(x, 1, 0, 0, 0, 1, 2, 0, 1);
  CHECK_NUM(x.time, 1);
  x = fig(st, in, 3);
  COUNTS(x, 0, 0, 0, 0, 0, 0, 0, 0);
  x = fig(st, in, 1);
  COUNTS(x, 0, 0, 0, 0, 0, 0, 0, 0);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* A finished node visited again without a reset is visited again: a host's node (its own visit,
 * as a Lua subclass writes one) visits its child F twice a think, and F succeeds, then fails.
 * Pre-order Twice=0 F=1. A think: F READY>SUCCESS, SUCCESS>FAILED, Twice READY>FAILED. */
static void flip_hook(bt_call *c, leaf *l) {
  (void)c;
  l->status = l->calls % 2 ? BT_SUCCESS : BT_FAILED;
}

static int twice_visit(bt_call *c) {
  int child = bt_def_child(bt_inst_def(c->inst), c->node, 0);
  bt_node_visit(c->inst, child);
  bt_node_visit(c->inst, child);
  bt_node_set_status(c->inst, c->node, bt_node_status(c->inst, child));
  return BT_OK;
}

static void test_visited_again(void) {
  static const bt_ops twice_ops = {.visit = twice_visit};
  leaf F = LEAF("F", BT_SUCCESS);
  F.hook = flip_hook;
  bt_graph *g = new_graph();
  int f = add_leaf(g, &F);
  bt_spec sp = {.kind = BT_BEHAVIOUR, .name = "Twice", .flags = BT_SPEC_CHILDREN, .ops = &twice_ops};
  int tw = bt_graph_add(g, &sp);
  set_kids(g, tw, 1, f);
  bt_inst *in = build(g, tw, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(in, st);
  think(in, 1);
  think(in, 2);
  CHECK_INT(F.calls, 4);
  bt_stats_node x = fig(st, in, 1);
  COUNTS(x, 4, 2, 2, 0, 0, 0, 0, 0);
  x = fig(st, in, 0);
  COUNTS(x, 2, 0, 2, 0, 0, 0, 0, 0);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(in);
}

/* Records fed by hand, as a log reader feeds them: two agents, a shape change, what is refused. */
static bt_rec_entry status_rec(int node, int from, int to, unsigned long long think, double t) {
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_STATUS;
  e.node = node;
  e.from = (unsigned char)from;
  e.to = (unsigned char)to;
  e.think = think;
  e.time = t;
  return e;
}

static bt_rec_entry think_rec(unsigned long long think, double t) {
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_THINK;
  e.node = -1;
  e.think = think;
  e.time = t;
  return e;
}

static void test_fed_by_hand(void) {
  bt_stats *st = new_stats();
  const unsigned long long A = 0xa, B = 0xb;
  bt_rec_entry e = status_rec(1, BT_READY, BT_RUNNING, 1, 10);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &e), BT_OK);
  CHECK_INT(bt_stats_add(st, 8, A, 2, &e), BT_OK); /* another agent: a run of its own */
  e = think_rec(1, 10);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &e), BT_OK);
  CHECK_INT(bt_stats_add(st, 8, A, 2, &e), BT_OK);
  e = status_rec(1, BT_RUNNING, BT_SUCCESS, 2, 12);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &e), BT_OK);
  /* refused, each changing nothing */
  bt_rec_entry bad = status_rec(2, BT_READY, BT_RUNNING, 2, 12);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &bad), BT_EINVAL); /* node out of range */
  bad = status_rec(1, BT_READY, BT_READY, 2, 12);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &bad), BT_EINVAL); /* no change */
  bad = status_rec(1, BT_READY, BT_ABORTED, 2, 12);
  CHECK_INT(bt_stats_add(st, 7, A, 2, &bad), BT_EINVAL); /* never a status */
  bad = think_rec(2, 12);
  CHECK_INT(bt_stats_add(st, 7, A, 3, &bad), BT_EINVAL); /* shape A has 2 nodes */
  CHECK_INT(bt_stats_add(st, 7, A, 0, &bad), BT_EINVAL);
  CHECK_INT(bt_stats_add(NULL, 7, A, 2, &bad), BT_EINVAL);
  CHECK_INT(bt_stats_add(st, 7, A, 2, NULL), BT_EINVAL);
  bad.type = 99;
  CHECK_INT(bt_stats_add(st, 7, A, 2, &bad), BT_EINVAL);
  bad = think_rec(2, 12);
  bad.type = BT_REC_ERROR;
  bad.node = 2;
  CHECK_INT(bt_stats_add(st, 7, A, 2, &bad), BT_EINVAL);
  /* agent 8 is reloaded into shape B at t=13: its run ends at its latest record (t=10) */
  e.type = BT_REC_RELOAD;
  e.node = -1;
  e.time = 13;
  CHECK_INT(bt_stats_add(st, 8, B, 3, &e), BT_OK);
  e = status_rec(2, BT_READY, BT_RUNNING, 1, 13); /* outside a think: a run, no visit */
  CHECK_INT(bt_stats_add(st, 8, B, 3, &e), BT_OK);
  e = think_rec(2, 15);
  CHECK_INT(bt_stats_add(st, 8, B, 3, &e), BT_OK);
  bt_stats_node f;
  REQUIRE(bt_stats_node_get(st, A, 1, &f) == BT_OK);
  COUNTS(f, 2, 1, 0, 0, 2, 2, 0, 0);
  CHECK_NUM(f.time, 2); /* agent 7's 10..12, agent 8's 10..10 */
  CHECK_NUM(f.longest, 2);
  REQUIRE(bt_stats_node_get(st, B, 2, &f) == BT_OK);
  COUNTS(f, 0, 0, 0, 0, 1, 1, 0, 1);
  CHECK_NUM(f.time, 2);
  CHECK_INT(bt_stats_node_get(st, B, 3, &f), BT_EINVAL);
  CHECK_INT(bt_stats_node_get(st, 0xc, 0, &f), BT_EINVAL);
  CHECK_INT(bt_stats_shape_count(st), 2);
  bt_stats_shape s = shape_of(st, 1);
  CHECK(s.shape == B && s.nodes == 3 && s.agents == 1 && s.thinks == 1 && s.def == NULL);
  CHECK_INT(bt_stats_shape_get(st, 2, &s), BT_EINVAL);
  /* many agents: the table of ids grows */
  for (unsigned long long id = 100; id < 1100; id++) {
    e = status_rec(0, BT_READY, BT_SUCCESS, 1, 20);
    REQUIRE(bt_stats_add(st, id, A, 2, &e) == BT_OK);
  }
  REQUIRE(bt_stats_node_get(st, A, 0, &f) == BT_OK);
  CHECK_INT((int)f.visits, 1000);
  CHECK_INT(shape_of(st, 0).agents, 1002);
  bt_stats_free(st);
}

/* The orders of bt_stats_list, and merging two bt_stats (as two threads' would be). */
static void test_list_and_merge(void) {
  bt_stats *st = new_stats(), *other = new_stats();
  /* shape 1 (3 nodes): node 0 visited 3 times, 0 s; node 1 ran 5 s once; node 2 ran 1 s, twice */
  bt_rec_entry e;
  for (int k = 0; k < 3; k++) {
    e = status_rec(0, BT_READY, BT_SUCCESS, (unsigned long long)k + 1, k);
    REQUIRE(bt_stats_add(st, 1, 1, 3, &e) == BT_OK);
  }
  e = status_rec(1, BT_READY, BT_RUNNING, 4, 10);
  REQUIRE(bt_stats_add(st, 1, 1, 3, &e) == BT_OK);
  e = status_rec(1, BT_RUNNING, BT_FAILED, 5, 15);
  REQUIRE(bt_stats_add(st, 1, 1, 3, &e) == BT_OK);
  for (int k = 0; k < 2; k++) {
    e = status_rec(2, BT_READY, BT_RUNNING, 6, 20 + k);
    REQUIRE(bt_stats_add(st, 1, 1, 3, &e) == BT_OK);
    e = status_rec(2, BT_RUNNING, BT_READY, 6, 20.5 + k);
    REQUIRE(bt_stats_add(st, 1, 1, 3, &e) == BT_OK);
  }
  bt_stats_node rows[8];
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_TIME, rows, 8), 3);
  CHECK_INT(rows[0].node, 1);
  CHECK_INT(rows[1].node, 2);
  CHECK_INT(rows[2].node, 0);
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_VISITS, rows, 2), 3); /* the first two of three */
  CHECK_INT(rows[0].node, 0);
  CHECK_INT(rows[1].node, 2);
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_TREE, rows, 8), 3);
  CHECK_INT(rows[0].node, 0);
  CHECK_INT(rows[2].node, 2);
  CHECK_INT((int)rows[2].aborts, 2);
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_TIME, NULL, 0), 3);
  CHECK_INT(bt_stats_list(st, 7, rows, 8), BT_EINVAL);
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_TIME, NULL, 1), BT_EINVAL);
  /* the other: shape 1 again, node 1 running since 30 (seen up to 34), and shape 2 */
  e = status_rec(1, BT_READY, BT_RUNNING, 1, 30);
  REQUIRE(bt_stats_add(other, 5, 1, 3, &e) == BT_OK);
  e = think_rec(1, 34);
  REQUIRE(bt_stats_add(other, 5, 1, 3, &e) == BT_OK);
  e = status_rec(0, BT_READY, BT_FAILED, 1, 30);
  REQUIRE(bt_stats_add(other, 6, 2, 1, &e) == BT_OK);
  CHECK_INT(bt_stats_merge(st, st), BT_EINVAL);
  CHECK_INT(bt_stats_merge(st, NULL), BT_EINVAL);
  REQUIRE(bt_stats_merge(st, other) == BT_OK);
  bt_stats_node f;
  REQUIRE(bt_stats_node_get(st, 1, 1, &f) == BT_OK);
  COUNTS(f, 2, 0, 1, 0, 2, 1, 0, 1);
  CHECK_NUM(f.time, 9);
  CHECK_NUM(f.longest, 5);
  REQUIRE(bt_stats_node_get(st, 2, 0, &f) == BT_OK);
  COUNTS(f, 1, 0, 1, 0, 0, 0, 0, 0);
  CHECK_INT(bt_stats_shape_count(st), 2);
  CHECK_INT(shape_of(st, 0).agents, 2);
  CHECK_INT(bt_stats_list(st, BT_STATS_BY_TREE, rows, 8), 4);
  CHECK(rows[3].shape == 2);
  /* a shape of another size is refused, and dst is unchanged */
  e = status_rec(0, BT_READY, BT_FAILED, 1, 30);
  bt_stats *odd = new_stats();
  REQUIRE(bt_stats_add(odd, 1, 2, 4, &e) == BT_OK);
  CHECK_INT(bt_stats_merge(st, odd), BT_EINVAL);
  REQUIRE(bt_stats_node_get(st, 2, 0, &f) == BT_OK);
  CHECK_INT((int)f.visits, 1);
  bt_stats_free(odd);
  bt_stats_free(other);
  bt_stats_free(st);
  bt_stats_free(NULL);
}

/* A recorder moved to another instance: its runs under way end when it leaves the first. */
static void test_recorder_moves(void) {
  leaf B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 1, b);
  bt_inst *one = build(g, s, 0);
  g = new_graph();
  b = add_leaf(g, &B);
  bt_inst *two = build(g, b, 0);
  bt_stats *st = new_stats();
  bt_rec *r = feed(one, st);
  think(one, 1);
  think(one, 3);
  REQUIRE(bt_inst_set_recorder(one, NULL) == BT_OK);
  bt_stats_node f = fig(st, one, 1);
  COUNTS(f, 1, 0, 0, 0, 1, 2, 0, 0);
  CHECK_NUM(f.time, 2);
  REQUIRE(bt_stats_keep_agents(st, 1) == BT_OK);
  REQUIRE(bt_inst_set_recorder(two, r) == BT_OK);
  think(two, 5);
  CHECK_INT(bt_stats_shape_count(st), 2);
  f = fig(st, two, 0);
  COUNTS(f, 1, 0, 0, 0, 1, 1, 0, 1);
  bt_stats_shape own; /* the recorder's own figures are those of its new tree's shape */
  REQUIRE(bt_rec_stats_shape(r, &own) == BT_OK);
  CHECK(own.shape == bt_def_hash(bt_inst_def(two)) && own.nodes == 1 && own.thinks == 1);
  REQUIRE(bt_rec_stats_node(r, 0, &f) == BT_OK);
  COUNTS(f, 1, 0, 0, 0, 1, 1, 0, 1);
  bt_rec_set_stats(r, NULL);
  f = fig(st, two, 0);
  COUNTS(f, 1, 0, 0, 0, 1, 1, 0, 0);
  CHECK_INT(bt_rec_set_stats(NULL, st), BT_EINVAL);
  bt_rec_free(r);
  bt_stats_free(st);
  bt_inst_free(one);
  bt_inst_free(two);
}

/* ---- differential: the live figures equal those of the same records fed by hand ---- */

static unsigned long long seed = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return (unsigned)(seed % n);
}

#define MAXL 16
static leaf LEAVES[MAXL];
static int nleaves;

static int gen(bt_graph *g, int depth) {
  if (depth >= 4 || rnd(3) == 0 || nleaves >= MAXL) {
    if (nleaves >= MAXL) nleaves = MAXL - 1;
    leaf *l = &LEAVES[nleaves++];
    *l = (leaf)LEAF("l", BT_RUNNING);
    return rnd(2) ? add_leaf(g, l) : add_fn(g, rnd(2) ? BT_CONDITION : BT_ACTION, l, "f");
  }
  static const int kinds[] = {BT_SEQUENCE, BT_SELECTOR, BT_PRIORITY, BT_PARALLEL, BT_NOT, BT_LOOP};
  int kind = kinds[rnd(sizeof kinds / sizeof kinds[0])];
  int n = kind == BT_NOT ? 1 : 1 + (int)rnd(3), kids[4];
  for (int i = 0; i < n; i++) kids[i] = gen(g, depth + 1);
  int id = kind == BT_PRIORITY ? add_prio(g, NULL, 0.25 * rnd(3)) : add_node(g, kind, NULL, kind == BT_LOOP ? 2 : 0, 0);
  REQUIRE(bt_graph_set_children(g, id, kids, n) == BT_OK);
  return id;
}

static void test_differential(void) {
  for (int round = 0; round < 200; round++) {
    nleaves = 0;
    bt_graph *g = new_graph();
    int root = gen(g, 0);
    bt_def *def = NULL;
    if (bt_def_create(&def, g, root) != BT_OK || bt_def_states(def) != bt_def_size(def)) {
      bt_graph_free(g); /* a leaf reused (nleaves capped): the live figures count it at one place */
      if (def) bt_def_release(def);
      continue;
    }
    bt_graph_free(g);
    bt_stats *live = new_stats(), *fed = new_stats();
    bt_inst *in[2];
    bt_rec *r[2];
    for (int k = 0; k < 2; k++) {
      REQUIRE(bt_inst_create(&in[k], def, &HOST, NULL, 0) == BT_OK);
      REQUIRE(bt_rec_create(&r[k], 4096) == BT_OK);
      REQUIRE(bt_inst_set_recorder(in[k], r[k]) == BT_OK);
      REQUIRE(bt_rec_set_stats(r[k], live) == BT_OK);
    }
    for (int t = 1; t <= 30; t++) {
      int k = (int)rnd(2);
      for (int i = 0; i < nleaves; i++) {
        static const int sts[] = {BT_SUCCESS, BT_FAILED, BT_RUNNING};
        LEAVES[i].status = sts[rnd(3)];
        LEAVES[i].result = (int)rnd(3) - 1;
      }
      if (rnd(10) == 0) REQUIRE(bt_inst_reset(in[k]) == BT_OK);
      if (rnd(10) == 0) REQUIRE(bt_inst_record_error(in[k], (int)rnd((unsigned)bt_def_size(def)), "x") == BT_OK);
      think(in[k], t * 0.25);
    }
    int n = bt_def_size(def);
    unsigned long long hash = bt_def_hash(def);
    for (int k = 0; k < 2; k++) {
      REQUIRE(bt_rec_count(r[k]) == bt_rec_total(r[k])); /* every record is in the ring */
      for (size_t i = 0; i < bt_rec_count(r[k]); i++) {
        bt_rec_entry e;
        REQUIRE(bt_rec_get(r[k], i, &e) == BT_OK);
        REQUIRE(bt_stats_add(fed, (unsigned long long)k, hash, n, &e) == BT_OK);
      }
    }
    bt_stats_node a[64], b[64];
    REQUIRE(n <= 64);
    CHECK_INT(bt_stats_list(live, BT_STATS_BY_TREE, a, 64), n);
    CHECK_INT(bt_stats_list(fed, BT_STATS_BY_TREE, b, 64), n);
    CHECK(memcmp(a, b, (size_t)n * sizeof a[0]) == 0);
    long long visits = 0;
    for (int i = 0; i < n; i++) visits += (long long)a[i].visits;
    CHECK(visits > 0);
    for (int k = 0; k < 2; k++) {
      bt_rec_free(r[k]);
      bt_inst_free(in[k]);
    }
    bt_stats_free(live);
    bt_stats_free(fed);
    bt_def_release(def);
  }
}

int main(void) {
  /* built with BT_RECORDER=OFF: no recorder attaches, so only records fed by hand are counted */
  int built = recorder_built();
  test_fed_by_hand();
  test_list_and_merge();
  if (!built) {
    printf("test_stats: the recorder is compiled out (BT_RECORDER=OFF): live statistics not tested\n");
    return check_report("test_stats");
  }
  test_sequence();
  test_priority_switching();
  test_parallel();
  test_errors();
  test_agents();
  test_own_figures();
  test_reset();
  test_outside_a_think();
  test_shared_node();
  test_visited_again();
  test_recorder_moves();
  test_differential();
  return check_report("test_stats");
}
