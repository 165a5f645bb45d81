/* SPDX-License-Identifier: MIT */
/* test_parallel.c: ParallelNode and ParallelNodeAny. ConditionNode children re-tested on every
 * visit, succeeded children not revisited, the first FAILED child ending the node, and Step
 * resetting only succeeded ConditionNode children so that grandchildren keep their statuses.
 * Expected values come from Don't Starve's behaviourtree.lua. */
#include "harness.h"

static void test_condition_retested(void) {
  logs();
  leaf C = FN("C", 1), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, p, 2, c, l);
  bt_inst *in = build(g, p, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Parallel");
  think(in, 0);
  CHECK_STR(logs(), "C L");
  CHECK_STR(ST(in, p), "RUNNING");
  /* Step of a RUNNING Parallel resets its succeeded ConditionNode children */
  CHECK_STR(ST(in, c), "READY");
  CHECK_STR(LST(in, c), "SUCCESS");
  think(in, 1);
  think(in, 2);
  CHECK_STR(logs(), "C L C L");
  CHECK_INT(L.starts, 1);
  bt_inst_free(in);
}

static void test_succeeded_not_revisited(void) {
  logs();
  leaf A = LEAF("A", BT_SUCCESS), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int a = add_leaf(g, &A), l = add_leaf(g, &L);
  set_kids(g, p, 2, a, l);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "A L");
  CHECK_STR(ST(in, a), "SUCCESS"); /* no ConditionNode: Step leaves it SUCCESS */
  A.status = BT_FAILED;
  think(in, 1);
  CHECK_STR(logs(), "L"); /* a SUCCESS child is not visited again */
  CHECK_STR(ST(in, p), "RUNNING");
  L.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, p), "SUCCESS"); /* no child RUNNING */
  CHECK_STR(ST(in, a), "READY");
  A.status = BT_SUCCESS;
  think(in, 3);
  CHECK_STR(logs(), "A L");
  CHECK_STR(LST(in, p), "SUCCESS");
  bt_inst_free(in);

  /* a ConditionWaitNode is no ConditionNode either */
  leaf W = FN("W", 1);
  L.status = BT_RUNNING;
  g = new_graph();
  p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int w = add_fn(g, BT_CONDITIONWAIT, &W, NULL);
  l = add_leaf(g, &L);
  set_kids(g, p, 2, w, l);
  in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "W L");
  CHECK_STR(ST(in, w), "SUCCESS");
  W.result = 0;
  think(in, 1);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, p), "RUNNING");
  bt_inst_free(in);
}

static void test_failed_child_stops(void) {
  logs();
  leaf A = LEAF("A", BT_RUNNING), F = LEAF("F", BT_FAILED), C = LEAF("C", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int a = add_leaf(g, &A), f = add_leaf(g, &F), c = add_leaf(g, &C);
  set_kids(g, p, 3, a, f, c);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "A F"); /* returns at the FAILED child */
  CHECK_STR(LST(in, p), "FAILED");
  CHECK_STR(LST(in, a), "RUNNING");
  CHECK_STR(LST(in, c), "READY");
  CHECK_STR(ST(in, a), "READY"); /* Step resets the failed Parallel and its children */
  bt_inst_free(in);
}

static void test_all_done(void) {
  logs();
  leaf A = LEAF("A", BT_SUCCESS), B = LEAF("B", BT_SUCCESS);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int a = add_leaf(g, &A), b = add_leaf(g, &B);
  set_kids(g, p, 2, a, b);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "A B");
  CHECK_STR(LST(in, p), "SUCCESS");
  /* a READY child counts as done ("some done"), not as running */
  B.status = BT_READY;
  think(in, 1);
  CHECK_STR(LST(in, p), "SUCCESS");
  bt_inst_free(in);
}

static void test_parallel_any(void) {
  logs();
  leaf C = FN("C", 1), L = LEAF("L", BT_RUNNING);
  L.log_resets = 1;
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, p, 2, c, l);
  bt_inst *in = build(g, p, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Parallel(Any)");
  think(in, 0);
  /* every child is visited; a succeeding ConditionNode ends it with SUCCESS */
  CHECK_STR(logs(), "C L reset:L");
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_STR(LST(in, l), "RUNNING");
  CHECK_STR(ST(in, l), "READY");
  bt_inst_free(in);

  /* "do X until a Wait expires" */
  L.log_resets = 0;
  g = new_graph();
  p = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  l = add_leaf(g, &L);
  int w = add_node(g, BT_WAIT, NULL, 2, 0);
  set_kids(g, p, 2, l, w);
  in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, p), "RUNNING");
  CHECK_NUM(sleep_of(in), 0); /* L never sleeps */
  think(in, 1);
  CHECK_STR(ST(in, p), "RUNNING");
  think(in, 2);
  CHECK_STR(logs(), "L L");
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_STR(LST(in, w), "SUCCESS");
  bt_inst_free(in);

  /* a READY child (an untriggered EventNode) counts as done */
  g = new_graph();
  p = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  l = add_leaf(g, &L);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  set_kids(g, p, 2, l, e);
  in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, e), "READY");
  CHECK_STR(LST(in, p), "SUCCESS");
  bt_inst_free(in);

  /* a failure still wins */
  leaf F = LEAF("F", BT_FAILED);
  g = new_graph();
  p = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  l = add_leaf(g, &L);
  int f = add_leaf(g, &F);
  set_kids(g, p, 2, l, f);
  in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "L F");
  CHECK_STR(LST(in, p), "FAILED");
  bt_inst_free(in);
}

/* Step of a RUNNING Parallel does not pass on to its children: grandchildren keep statuses. */
static void test_grandchildren_keep_statuses(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), A = LEAF("A", BT_SUCCESS), L2 = LEAF("L2", BT_RUNNING);
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int l = add_leaf(g, &L);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int a = add_leaf(g, &A), l2 = add_leaf(g, &L2);
  set_kids(g, s, 3, c, a, l2);
  set_kids(g, p, 2, l, s);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "L C A L2");
  CHECK_STR(ST(in, s), "RUNNING");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 3);
  /* the Sequence was not stepped: its finished children are still SUCCESS, the grandchild
   * ConditionNode included (only direct ConditionNode children are reset) */
  CHECK_STR(ST(in, c), "SUCCESS");
  CHECK_STR(ST(in, a), "SUCCESS");
  C.result = 0;
  think(in, 1);
  CHECK_STR(logs(), "L L2"); /* the Sequence resumes at idx 3 */
  CHECK_STR(ST(in, a), "SUCCESS");
  CHECK_STR(LST(in, a), "SUCCESS");
  L2.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(logs(), "L L2");
  CHECK_STR(ST(in, s), "SUCCESS"); /* stays SUCCESS under the running Parallel */
  CHECK_STR(ST(in, l2), "SUCCESS");
  think(in, 3);
  CHECK_STR(logs(), "L");
  L.status = BT_SUCCESS;
  think(in, 4);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(ST(in, s), "READY");
  bt_inst_free(in);

  /* under a Priority: the Priority steps the Parallel, the Parallel's own Step applies */
  leaf M = LEAF("M", BT_RUNNING), B = LEAF("B", BT_SUCCESS);
  g = new_graph();
  int r = add_prio(g, NULL, 1);
  p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int b = add_leaf(g, &B), m = add_leaf(g, &M);
  set_kids(g, s, 2, b, m);
  set_kids(g, p, 1, s);
  set_kids(g, r, 1, p);
  in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "B M");
  CHECK_STR(ST(in, b), "SUCCESS");
  bt_inst_free(in);
}

static void test_empty(void) {
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(LST(in, p), "SUCCESS"); /* no child RUNNING */
  bt_inst_free(in);
}

int main(void) {
  test_condition_retested();
  test_succeeded_not_revisited();
  test_failed_child_stops();
  test_all_done();
  test_parallel_any();
  test_grandchildren_keep_statuses();
  test_empty();
  return check_report("test_parallel");
}
