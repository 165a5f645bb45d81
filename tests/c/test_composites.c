/* SPDX-License-Identifier: MIT */
/* test_composites.c: SequenceNode, SelectorNode, LoopNode, RandomNode, and WhileNode / IfNode
 * built from Parallel / Sequence and a ConditionNode. Expected values come from Don't Starve's
 * behaviourtree.lua. */
#include "harness.h"

/* ---- SequenceNode ---- */

static void test_sequence(void) {
  logs();
  leaf A = LEAF("A", BT_SUCCESS), B = LEAF("B", BT_SUCCESS), C = LEAF("C", BT_SUCCESS);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_leaf(g, &A), b = add_leaf(g, &B), c = add_leaf(g, &C);
  set_kids(g, s, 3, a, b, c);
  bt_inst *in = build(g, s, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Sequence");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1);
  think(in, 0);
  CHECK_STR(logs(), "A B C");
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_STR(ST(in, s), "READY");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1); /* Reset sets idx = 1 */

  B.status = BT_FAILED; /* stops at FAILED */
  think(in, 1);
  CHECK_STR(logs(), "A B");
  CHECK_STR(LST(in, s), "FAILED");
  CHECK_STR(LST(in, c), "READY");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1);

  B.status = BT_RUNNING; /* stops at RUNNING and resumes there */
  think(in, 2);
  CHECK_STR(logs(), "A B");
  CHECK_STR(ST(in, s), "RUNNING");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);
  /* Step of a RUNNING Sequence steps its children: A (SUCCESS) is reset */
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(LST(in, a), "SUCCESS");
  A.status = BT_FAILED; /* would fail, but children before idx are not re-checked */
  think(in, 3);
  CHECK_STR(logs(), "B");
  CHECK_STR(ST(in, s), "RUNNING");
  B.status = BT_SUCCESS;
  think(in, 4);
  CHECK_STR(logs(), "B C");
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1);
  bt_inst_free(in);
}

/* ---- SelectorNode ---- */

static void test_selector(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), B = LEAF("B", BT_SUCCESS), C = LEAF("C", BT_SUCCESS);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SELECTOR, NULL, 0, 0);
  int a = add_leaf(g, &A), b = add_leaf(g, &B), c = add_leaf(g, &C);
  set_kids(g, s, 3, a, b, c);
  bt_inst *in = build(g, s, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Selector");
  think(in, 0);
  CHECK_STR(logs(), "A B"); /* stops at SUCCESS */
  CHECK_STR(LST(in, s), "SUCCESS");
  B.status = BT_FAILED;
  C.status = BT_FAILED;
  think(in, 1);
  CHECK_STR(logs(), "A B C"); /* all fail */
  CHECK_STR(LST(in, s), "FAILED");
  B.status = BT_RUNNING;
  think(in, 2);
  CHECK_STR(logs(), "A B");
  CHECK_STR(ST(in, s), "RUNNING");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);
  CHECK_STR(dump(in), "Selector - RUNNING <RUNNING> (2)>0.00\n"
                      "   >A - READY <FAILED> ()>0.00\n"
                      "   >B - RUNNING <RUNNING> ()>0.00\n"
                      "   >C - READY <READY> ()>0.00\n");
  A.status = BT_SUCCESS; /* not reactive: A is not looked at while B runs */
  think(in, 3);
  CHECK_STR(logs(), "B");
  B.status = BT_FAILED;
  C.status = BT_SUCCESS;
  think(in, 4);
  CHECK_STR(logs(), "B C");
  CHECK_STR(LST(in, s), "SUCCESS");
  bt_inst_free(in);
}

/* ---- LoopNode ---- */

static void test_loop_maxreps(void) {
  logs();
  leaf A = FN("A", 1);
  bt_graph *g = new_graph();
  int lp = add_node(g, BT_LOOP, NULL, 2, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  int w = add_node(g, BT_WAIT, NULL, 1, 0);
  set_kids(g, lp, 2, a, w);
  bt_inst *in = build(g, lp, 0);
  /* LoopNode's name is "Sequence" (as written) */
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Sequence");
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 0);
  think(in, 0);
  CHECK_STR(logs(), "A");
  CHECK_STR(ST(in, lp), "RUNNING");
  CHECK_NUM(field(in, lp, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 0);
  think(in, 1);
  /* the pass completes: idx = 1, rep = 1 < 2: children reset, status unassigned (RUNNING) */
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, lp), "RUNNING");
  CHECK_STR(LST(in, lp), "RUNNING");
  CHECK_NUM(field(in, lp, BT_FIELD_IDX), 1);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 1);
  /* the Wait succeeded and was reset inside the Visit, before SaveStatus */
  CHECK_STR(LST(in, w), "READY");
  /* nothing below the loop runs and a loop is no leaf: nil, the brain hibernates */
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  CHECK_STR(dump(in), "Sequence - RUNNING <RUNNING> (1)>0.00\n"
                      "   >ActionNode - READY <READY> ()>0.00\n"
                      "   >Wait - READY <READY> ()>0.00\n");
  think(in, 1.5); /* the next pass starts on the next Visit */
  CHECK_STR(logs(), "A");
  CHECK_NUM(field(in, lp, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 2.5);
  think(in, 2.5);
  CHECK_STR(LST(in, lp), "SUCCESS"); /* rep 2 >= maxreps */
  CHECK_STR(ST(in, lp), "READY");
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 0); /* LoopNode:Reset */
  bt_inst_free(in);
}

static void test_loop_instant_pass(void) {
  logs();
  leaf A = FN("A", 1);
  bt_graph *g = new_graph();
  int lp = add_node(g, BT_LOOP, NULL, 2, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, lp, 1, a);
  bt_inst *in = build(g, lp, 0);
  /* a whole pass inside the first Visit leaves the status READY; Step's Reset sets rep = 0, so
   * maxreps 2 is never reached */
  for (int i = 0; i < 3; i++) {
    think(in, i);
    CHECK_STR(logs(), "A");
    CHECK_STR(LST(in, lp), "READY");
    CHECK_STR(ST(in, lp), "READY");
    CHECK_NUM(field(in, lp, BT_FIELD_REP), 0);
  }
  bt_inst_free(in);

  g = new_graph();
  lp = add_node(g, BT_LOOP, NULL, 1, 0);
  a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, lp, 1, a);
  in = build(g, lp, 0);
  think(in, 0);
  CHECK_STR(logs(), "A");
  CHECK_STR(LST(in, lp), "SUCCESS"); /* rep 1 >= 1 */
  bt_inst_free(in);

  /* maxreps 0 is set (0 is truthy in Lua): 1 >= 0 after the first pass */
  g = new_graph();
  lp = add_node(g, BT_LOOP, NULL, 0, 0);
  a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, lp, 1, a);
  in = build(g, lp, 0);
  think(in, 0);
  CHECK_STR(LST(in, lp), "SUCCESS");
  bt_inst_free(in);
}

static void test_loop_forever(void) {
  logs();
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  /* BT_SPEC_NIL_PARAM: maxreps = nil, the param is ignored */
  int lp = add_node(g, BT_LOOP, NULL, 1, BT_SPEC_NIL_PARAM);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int w = add_node(g, BT_WAIT, NULL, 1, 0);
  set_kids(g, lp, 2, c, w);
  bt_inst *in = build(g, lp, 0);
  think(in, 0);
  think(in, 1);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 1);
  think(in, 2);
  think(in, 3);
  CHECK_STR(logs(), "C C");
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 2);
  CHECK_STR(ST(in, lp), "RUNNING");
  think(in, 4);
  think(in, 5);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 3);
  C.result = 0; /* only a child's FAILED ends it */
  think(in, 6);
  CHECK_STR(logs(), "C C");
  CHECK_STR(LST(in, lp), "FAILED");
  bt_inst_free(in);
}

static void test_loop_status_unassigned(void) {
  logs();
  /* READY counts as success under a Sequence */
  leaf A = FN("A", 1), B = LEAF("B", BT_SUCCESS);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int lp = add_node(g, BT_LOOP, NULL, 0, BT_SPEC_NIL_PARAM);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  int b = add_leaf(g, &B);
  set_kids(g, lp, 1, a);
  set_kids(g, s, 2, lp, b);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  CHECK_STR(logs(), "A B");
  CHECK_STR(LST(in, lp), "READY");
  CHECK_STR(LST(in, s), "SUCCESS");
  bt_inst_free(in);

  /* ... and as "not chosen" under a Priority */
  B.status = BT_RUNNING;
  g = new_graph();
  int r = add_prio(g, NULL, 1);
  lp = add_node(g, BT_LOOP, NULL, 0, BT_SPEC_NIL_PARAM);
  a = add_fn(g, BT_ACTION, &A, NULL);
  b = add_leaf(g, &B);
  set_kids(g, lp, 1, a);
  set_kids(g, r, 2, lp, b);
  in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "A B");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_STR(ST(in, r), "RUNNING");
  /* the pass left the loop READY with rep 1; the Priority's Step resets it (LoopNode:Reset sets
   * rep = 0 whatever the status) */
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 0);
  bt_inst_free(in);

  /* a loop entered from FAILED (not RUNNING) that completes a pass keeps FAILED */
  g = new_graph();
  lp = add_node(g, BT_LOOP, NULL, 0, BT_SPEC_NIL_PARAM);
  a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, lp, 1, a);
  in = build(g, lp, 0);
  bt_node_set_status(in, 0, BT_FAILED);
  T = 0;
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "A");
  CHECK_STR(ST(in, lp), "FAILED");
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 1);
  bt_inst_free(in);
}

/* ---- RandomNode ---- */

static bt_inst *random_tree(leaf *A, leaf *B, leaf *C, int *r) {
  bt_graph *g = new_graph();
  *r = add_node(g, BT_RANDOM, NULL, 0, 0);
  int a = add_leaf(g, A), b = add_leaf(g, B), c = add_leaf(g, C);
  set_kids(g, *r, 3, a, b, c);
  return build(g, *r, 0);
}

static void script_ints(int a, int b, int c) {
  RINT_SEQ[0] = a;
  RINT_SEQ[1] = b;
  RINT_SEQ[2] = c;
  rint_pos = rint_calls = 0;
  rint_last_n = 0;
  rint_fail = 0;
}

static void test_random(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), B = LEAF("B", BT_FAILED), C = LEAF("C", BT_FAILED);
  int r;
  bt_inst *in = random_tree(&A, &B, &C, &r);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Random");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  /* math.random(#children) = 2: B, C, then wraps to A; back at the start: FAILED */
  script_ints(2, 3, 1);
  think(in, 0);
  CHECK_INT(rint_calls, 1);
  CHECK_INT(rint_last_n, 3);
  CHECK_STR(logs(), "B C A");
  CHECK_STR(LST(in, r), "FAILED");
  /* start at 3: C fails, A succeeds */
  A.status = BT_SUCCESS;
  think(in, 1);
  CHECK_STR(logs(), "C A");
  CHECK_STR(LST(in, r), "SUCCESS");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE); /* Reset: idx = nil */
  /* start at 1 */
  think(in, 2);
  CHECK_STR(logs(), "A");
  CHECK_INT(rint_calls, 3);
  bt_inst_free(in);

  /* RUNNING: remembers idx and visits only that child, without a new random number */
  A.status = BT_FAILED;
  B.status = BT_RUNNING;
  in = random_tree(&A, &B, &C, &r);
  script_ints(2, 1, 1);
  think(in, 0);
  CHECK_STR(logs(), "B");
  CHECK_STR(ST(in, r), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  A.status = BT_SUCCESS;
  think(in, 1);
  CHECK_STR(logs(), "B");
  CHECK_INT(rint_calls, 1);
  /* a node that is SUCCESS or FAILED (not READY) visits children[idx] again */
  bt_node_set_status(in, 0, BT_SUCCESS);
  B.status = BT_FAILED;
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "B");
  CHECK_STR(ST(in, r), "FAILED");
  CHECK_INT(rint_calls, 1);
  bt_inst_free(in);

  /* random_int fails: the RandomNode fails, no child is visited */
  in = random_tree(&A, &B, &C, &r);
  script_ints(1, 1, 1);
  rint_fail = 1;
  think(in, 0);
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, r), "FAILED");
  rint_fail = 0;
  bt_inst_free(in);
}

/* ---- WhileNode and IfNode ---- */

static void test_while(void) {
  logs();
  leaf C = FN("C", 1), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "IsDay");
  int l = add_leaf(g, &L);
  set_kids(g, p, 2, c, l);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "C L");
  CHECK_STR(ST(in, p), "RUNNING");
  think(in, 1); /* the guard is re-tested on every think */
  CHECK_STR(logs(), "C L");
  C.result = 0;
  think(in, 2); /* fails at once; L is not visited; Step resets the subtree */
  CHECK_STR(logs(), "C");
  CHECK_STR(LST(in, p), "FAILED");
  CHECK_STR(LST(in, l), "RUNNING");
  CHECK_STR(ST(in, l), "READY");
  CHECK_INT(L.starts, 1);
  bt_inst_free(in);
}

static void test_if(void) {
  logs();
  leaf C = FN("C", 1), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "IsDay");
  int l = add_leaf(g, &L);
  set_kids(g, s, 2, c, l);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  CHECK_STR(logs(), "C L");
  C.result = 0; /* checked on entry only */
  think(in, 1);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, s), "RUNNING");
  L.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, s), "SUCCESS");
  think(in, 3);
  CHECK_STR(logs(), "C");
  CHECK_STR(LST(in, s), "FAILED");
  bt_inst_free(in);
}

static void test_empty_composites(void) {
  /* no children: Sequence SUCCESS, Selector FAILED, Priority FAILED, Loop(nil) READY */
  int kinds[] = {BT_SEQUENCE, BT_SELECTOR, BT_PRIORITY, BT_LOOP};
  const char *expect[] = {"SUCCESS", "FAILED", "FAILED", "READY"};
  for (int i = 0; i < 4; i++) {
    bt_graph *g = new_graph();
    int n = add_node(g, kinds[i], NULL, 1, kinds[i] == BT_LOOP ? BT_SPEC_NIL_PARAM : BT_SPEC_NOSCATTER);
    bt_inst *in = build(g, n, 0);
    think(in, 0);
    CHECK_STR(LST(in, n), expect[i]);
    bt_inst_free(in);
  }
}

int main(void) {
  test_sequence();
  test_selector();
  test_loop_maxreps();
  test_loop_instant_pass();
  test_loop_forever();
  test_loop_status_unassigned();
  test_random();
  test_while();
  test_if();
  test_empty_composites();
  return check_report("test_composites");
}
