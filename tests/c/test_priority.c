/* SPDX-License-Identifier: MIT */
/* test_priority.c: PriorityNode. Evaluation, the period, running-child resume, lasttime cleared
 * when the running child stops, READY roots, scatter and BT_SPEC_NOSCATTER, and the failed
 * sub-priority that keeps counting as failed. Expected values come from Don't Starve's
 * behaviourtree.lua. EventNode's test_anyway is in test_events.c. */
#include "harness.h"

static void test_first_winner(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), B = LEAF("B", BT_SUCCESS), C = LEAF("C", BT_SUCCESS);
  C.log_resets = 1;
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int a = add_leaf(g, &A), b = add_leaf(g, &B), c = add_leaf(g, &C);
  set_kids(g, r, 3, a, b, c);
  bt_inst *in = build(g, r, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Priority");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE); /* no scatter */
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  think(in, 0);
  /* the first SUCCESS or RUNNING child wins; lower children are Reset, not visited */
  CHECK_STR(logs(), "A B reset:C reset:C"); /* the Reset of Step resets every child again */
  CHECK_STR(LST(in, r), "SUCCESS");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE); /* Step reset it: idx = nil */
  CHECK_STR(ST(in, r), "READY");
  bt_inst_free(in);
}

static void test_period_and_resume(void) {
  logs();
  leaf C1 = FN("C1", 0), L = LEAF("L", BT_RUNNING);
  L.sleep = 5;
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, r, 2, c1, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C1 L");
  CHECK_STR(ST(in, r), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);
  /* min(Priority: lasttime + period - now = 1, leaf: 5) */
  CHECK_NUM(sleep_of(in), 1);
  C1.result = 1;
  think(in, 0.5); /* between evaluations only the running child is visited */
  CHECK_STR(logs(), "L");
  CHECK_NUM(sleep_of(in), 0.5);
  think(in, 1); /* lasttime + period < now is strict: 1 < 1 is false */
  CHECK_STR(logs(), "L");
  CHECK_NUM(sleep_of(in), 0);
  C1.result = 0;
  think(in, 1.5); /* evaluates; the RUNNING child is continued, not restarted */
  CHECK_STR(logs(), "C1 L");
  CHECK_INT(L.starts, 1);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 1.5);
  CHECK_NUM(sleep_of(in), 1);
  C1.result = 1;
  think(in, 2.75); /* a higher-priority child wins and interrupts L */
  CHECK_STR(logs(), "C1");
  CHECK_STR(LST(in, r), "SUCCESS");
  CHECK_STR(LST(in, l), "READY"); /* reset inside the Visit */
  CHECK_STR(ST(in, l), "READY");
  bt_inst_free(in);
}

static void test_lasttime_cleared_when_child_stops(void) {
  logs();
  leaf C1 = FN("C1", 0), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, r, 2, c1, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C1 L");
  L.status = BT_SUCCESS;
  think(in, 1);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, r), "SUCCESS");
  /* the running child stopped RUNNING: lasttime = nil */
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_STR(ST(in, r), "READY");
  CHECK_NUM(sleep_of(in), 0); /* a READY Priority root: 0 */
  L.status = BT_RUNNING;
  think(in, 2); /* evaluates although 0 + 10 > 2 */
  CHECK_STR(logs(), "C1 L");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 2);
  /* the same when the child fails */
  L.status = BT_FAILED;
  think(in, 3);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, r), "FAILED");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  bt_inst_free(in);
}

static void test_selected_child_not_running(void) {
  logs();
  leaf C1 = FN("C1", 0), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, r, 2, c1, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C1 L");
  bt_node_reset(in, at(in, l)); /* the host resets the running child between thinks */
  think(in, 1);
  /* not due, and children[idx] is not RUNNING: nothing happens, the status stays RUNNING */
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, r), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);
  CHECK_STR(LST(in, l), "READY");
  /* only the Priority's own clock counts: 0 + 10 - 1 */
  CHECK_NUM(sleep_of(in), 9);
  think(in, 10.5);
  CHECK_STR(logs(), "C1 L");
  bt_inst_free(in);
}

static void test_failed_root_polls(void) {
  logs();
  leaf C1 = FN("C1", 0);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  set_kids(g, r, 1, c1);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C1");
  CHECK_STR(LST(in, r), "FAILED");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0); /* stays at the evaluation's time */
  CHECK_NUM(sleep_of(in), 0);
  C1.result = 1;
  think(in, 0.5); /* not due: does nothing, stays READY */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, r), "READY");
  CHECK_NUM(sleep_of(in), 0);
  think(in, 1.25);
  CHECK_STR(logs(), "C1");
  CHECK_STR(LST(in, r), "SUCCESS");
  bt_inst_free(in);
}

/* A failed sub-priority keeps counting as failed for up to its period. */
static void test_failed_subpriority(void) {
  logs();
  leaf C1 = FN("C1", 0), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, "Root", 0.5);
  int s = add_prio(g, "Sub", 5);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, s, 1, c1);
  set_kids(g, r, 2, s, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C1 L");
  CHECK_STR(LST(in, s), "FAILED");
  CHECK_STR(ST(in, s), "READY");
  CHECK_NUM(field(in, s, BT_FIELD_LASTTIME), 0);
  C1.result = 1;
  think(in, 1); /* Root evaluates; Sub is READY and not due: not chosen, C1 not called */
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, s), "READY");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  think(in, 5); /* 0 + 5 < 5 is false */
  CHECK_STR(logs(), "L");
  think(in, 5.75); /* Root: 5 + 0.5 < 5.75; Sub: 0 + 5 < 5.75 */
  CHECK_STR(logs(), "C1");
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_STR(LST(in, r), "SUCCESS");
  CHECK_STR(LST(in, l), "READY");
  bt_inst_free(in);
}

static void test_reset_finished_child_before_visit(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), B = LEAF("B", BT_RUNNING);
  A.log_resets = B.log_resets = 1;
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int a = add_leaf(g, &A), b = add_leaf(g, &B);
  set_kids(g, r, 2, a, b);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  /* Step of the RUNNING root: A (FAILED) is reset; B runs */
  CHECK_STR(logs(), "A B reset:A");
  /* a finished child is reset before it is visited in an evaluation */
  bt_node_set_status(in, at(in, a), BT_SUCCESS);
  think(in, 1.5);
  CHECK_STR(logs(), "reset:A A B reset:A");
  CHECK_INT(A.starts, 2);
  CHECK_INT(B.starts, 1);
  bt_inst_free(in);
}

static void test_reset_keeps_lasttime(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 2);
  int l = add_leaf(g, &L);
  set_kids(g, r, 1, l);
  bt_inst *in = build(g, r, 0);
  const double t0 = 0.78333333333333333; /* a time with low bits set */
  think(in, t0);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  CHECK(field(in, r, BT_FIELD_LASTTIME) == t0);
  CHECK_INT(bt_inst_reset(in), BT_OK);
  /* PriorityNode:Reset: the base reset plus idx = nil; lasttime is kept, to the last bit */
  CHECK_STR(ST(in, r), "READY");
  CHECK_STR(ST(in, l), "READY");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  CHECK(field(in, r, BT_FIELD_LASTTIME) == t0);
  think(in, 1);
  CHECK_STR(logs(), "L"); /* only the first think visited L */
  CHECK_STR(LST(in, r), "READY");
  CHECK(field(in, r, BT_FIELD_LASTTIME) == t0);
  think(in, t0 + 2); /* t0 + 2 < t0 + 2 is false */
  CHECK_STR(logs(), "");
  think(in, 2.8);
  CHECK_STR(logs(), "L");
  /* a failed evaluation's Step (a Reset) keeps it too */
  L.status = BT_FAILED;
  think(in, 4.9);
  CHECK_STR(logs(), "L");
  CHECK(field(in, r, BT_FIELD_LASTTIME) == 4.9);
  bt_inst_free(in);
}

static void test_nil_period(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  /* period nil: 1 */
  int r = add_node(g, BT_PRIORITY, NULL, 7, BT_SPEC_NIL_PARAM | BT_SPEC_NOSCATTER);
  L.sleep = 100;
  int l = add_leaf(g, &L);
  set_kids(g, r, 1, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), 1);
  think(in, 1.5);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 1.5);
  bt_inst_free(in);
}

/* lasttime + period < now, in that order, in doubles */
static void test_time_order(void) {
  logs();
  leaf C = FN("C", 0);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 0.2);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  set_kids(g, r, 1, c);
  bt_inst *in = build(g, r, 0);
  think(in, 0.1);
  CHECK_STR(logs(), "C");
  /* 0.1 + 0.2 < 0.1 + 0.2 is false (now - lasttime > period would be true) */
  think(in, 0.1 + 0.2);
  CHECK_STR(logs(), "");
  think(in, 0.31);
  CHECK_STR(logs(), "C");
  bt_inst_free(in);
}

/* ---- scatter ---- */

static void script_random(double a, double b) {
  RAND_SEQ[0] = a;
  RAND_SEQ[1] = b;
  rand_pos = rand_calls = 0;
}

static bt_inst *scatter_tree(unsigned inner_flags, unsigned inst_flags, int *inner, int *root) {
  bt_graph *g = new_graph();
  /* the inner Priority gets the lower graph id, so it draws first */
  *inner = add_node(g, BT_PRIORITY, "Inner", 1, inner_flags);
  *root = add_node(g, BT_PRIORITY, "Root", 2, 0);
  int b = add_node(g, BT_BEHAVIOUR, "B", 0, 0);
  set_kids(g, *inner, 1, b);
  set_kids(g, *root, 1, *inner);
  return build(g, *root, inst_flags);
}

static void test_scatter(void) {
  logs();
  int inner, root;
  script_random(0.25, 0.75);
  bt_inst *in = scatter_tree(0, 0, &inner, &root);
  /* lasttime = period * 0.5 + period * math.random(), once per Priority, in graph-id order */
  CHECK_INT(rand_calls, 2);
  CHECK_NUM(field(in, inner, BT_FIELD_LASTTIME), 0.75); /* 0.5 + 0.25 */
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), 2.5);   /* 1 + 1.5 */
  /* an absolute time: not due while lasttime + period >= now */
  think(in, 4.5);
  CHECK_STR(LST(in, root), "READY");
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), 2.5);
  think(in, 4.75);
  CHECK_STR(LST(in, root), "FAILED");
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), 4.75);
  /* the inner Priority was visited too: 0.75 + 1 < 4.75 */
  CHECK_NUM(field(in, inner, BT_FIELD_LASTTIME), 4.75);
  CHECK_INT(rand_calls, 2);
  bt_inst_free(in);

  /* later in a game the first Visit evaluates at once */
  script_random(0.25, 0.75);
  in = scatter_tree(0, 0, &inner, &root);
  think(in, 100);
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), 100);
  bt_inst_free(in);

  /* BT_SPEC_NOSCATTER on the inner one: it draws nothing, the root gets the first number */
  script_random(0.25, 0.75);
  in = scatter_tree(BT_SPEC_NOSCATTER, 0, &inner, &root);
  CHECK_INT(rand_calls, 1);
  CHECK_NUM(field(in, inner, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), 1.5);
  bt_inst_free(in);

  /* BT_INST_NOSCATTER: no Priority draws */
  script_random(0.25, 0.75);
  in = scatter_tree(0, BT_INST_NOSCATTER, &inner, &root);
  CHECK_INT(rand_calls, 0);
  CHECK_NUM(field(in, inner, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, root, BT_FIELD_LASTTIME), NIL_VALUE);
  bt_inst_free(in);

  /* the nil period (1) scatters too */
  script_random(0.25, 0.75);
  bt_graph *g = new_graph();
  int r = add_node(g, BT_PRIORITY, NULL, 0, BT_SPEC_NIL_PARAM);
  int b = add_node(g, BT_BEHAVIOUR, "B", 0, 0);
  set_kids(g, r, 1, b);
  in = build(g, r, 0);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0.75);
  bt_inst_free(in);
}

static double now_only(void *d) {
  (void)d;
  return T;
}

static void test_default_random(void) {
  /* without host.random the instance's own generator draws: lasttime in [0.5, 1.5) periods */
  static const bt_host H = {now_only, NULL, NULL, NULL};
  for (int i = 0; i < 20; i++) {
    bt_graph *g = new_graph();
    int r = add_node(g, BT_PRIORITY, NULL, 2, 0);
    int b = add_node(g, BT_BEHAVIOUR, "B", 0, 0);
    set_kids(g, r, 1, b);
    bt_def *d = NULL;
    REQUIRE(bt_def_create(&d, g, r) == BT_OK);
    bt_graph_free(g);
    bt_inst *in = NULL;
    CHECK_INT(bt_inst_create(&in, d, &H, NULL, 0), BT_OK);
    bt_def_release(d);
    double v = -1;
    CHECK_INT(bt_node_get(in, 0, BT_FIELD_LASTTIME, &v), 1);
    CHECK(v >= 1 && v < 3);
    bt_inst_free(in);
  }
}

int main(void) {
  test_first_winner();
  test_period_and_resume();
  test_lasttime_cleared_when_child_stops();
  test_selected_child_not_running();
  test_failed_root_polls();
  test_failed_subpriority();
  test_reset_finished_child_before_visit();
  test_reset_keeps_lasttime();
  test_nil_period();
  test_time_order();
  test_scatter();
  test_default_random();
  return check_report("test_priority");
}
