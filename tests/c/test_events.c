/* SPDX-License-Identifier: MIT */
/* test_events.c: EventNode through bt_inst_fire_event (and bt_node_trigger, which leaves the clocks
 * above to its host). Resetting a running child, triggering for
 * exactly one think, clearing the lasttime of Priority ancestors along DS parent links, the
 * trigger lost to a higher-priority sibling, and PriorityNode's test_anyway. Expected values come
 * from Don't Starve's behaviourtree.lua. */
#include "harness.h"

static int add_event(bt_graph *g, const char *name, double priority, unsigned flags) {
  return add_node(g, BT_EVENT, name, priority, flags);
}

static void test_event_basics(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), X = LEAF("X", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int e = add_event(g, "Event(hit)", 0, 0);
  int l = add_leaf(g, &L), x = add_leaf(g, &X);
  set_kids(g, e, 1, l);
  set_kids(g, r, 2, e, x);
  bt_inst *in = build(g, r, 0);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0);
  think(in, 0);
  /* not triggered: the EventNode stays READY, "not chosen" */
  CHECK_STR(logs(), "X");
  CHECK_STR(LST(in, e), "READY");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);

  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 1);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE); /* the Priority parent evaluates again */
  CHECK_STR(ST(in, e), "READY");
  think(in, 1);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, e), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  CHECK_STR(LST(in, x), "READY"); /* interrupted */
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0); /* EventNode:Step clears it */
  think(in, 2); /* not due: the running EventNode is continued */
  CHECK_STR(logs(), "L");
  CHECK_INT(L.starts, 1);

  /* firing while RUNNING resets the child: the reaction restarts */
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  CHECK_STR(ST(in, l), "READY");
  CHECK_STR(ST(in, e), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  think(in, 3);
  CHECK_STR(logs(), "L");
  CHECK_INT(L.starts, 2);
  CHECK_STR(ST(in, e), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);

  L.status = BT_SUCCESS;
  think(in, 4);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, e), "SUCCESS");
  CHECK_STR(LST(in, r), "SUCCESS");
  think(in, 5); /* the trigger is spent: X again */
  CHECK_STR(logs(), "X");
  CHECK_STR(LST(in, e), "READY");
  bt_inst_free(in);
}

static void test_event_trigger_lost_to_higher_sibling(void) {
  logs();
  leaf C = FN("C", 1), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int e = add_event(g, "Event(e)", 0, 0);
  int l = add_leaf(g, &L);
  set_kids(g, e, 1, l);
  set_kids(g, r, 2, c, e);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "C");
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0.25); /* lasttime was cleared: evaluates; C wins, the EventNode is Reset */
  CHECK_STR(logs(), "C");
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0);
  C.result = 0;
  think(in, 1.5);
  CHECK_STR(logs(), "C");
  CHECK_STR(LST(in, e), "READY");
  CHECK_STR(LST(in, r), "FAILED");
  CHECK_INT(L.calls, 0);
  bt_inst_free(in);
}

static void test_event_one_think_even_unvisited(void) {
  logs();
  /* an EventNode that is stepped but not visited loses its trigger in that think */
  leaf L = LEAF("L", BT_RUNNING), A = FN("A", 1);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int l = add_leaf(g, &L);
  int e = add_event(g, "Event(e)", 0, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, e, 1, a);
  set_kids(g, s, 2, l, e);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 1);
  CHECK_STR(logs(), "L L");
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0);
  L.status = BT_SUCCESS;
  think(in, 2); /* the EventNode is READY and untriggered: the Sequence passes it */
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, e), "READY");
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_INT(A.calls, 0);
  bt_inst_free(in);

  /* under a RUNNING Parallel, EventNode:Step is never called: triggered stays set */
  leaf W = FN("W", 0);
  g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int w = add_fn(g, BT_CONDITIONWAIT, &W, NULL);
  e = add_event(g, "Event(e)", 0, 0);
  a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, e, 1, a);
  set_kids(g, p, 2, w, e);
  in = build(g, p, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "W A");
  CHECK_STR(ST(in, e), "SUCCESS");
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 1);
  think(in, 1); /* SUCCESS: not visited again */
  CHECK_STR(logs(), "W");
  W.result = 1;
  think(in, 2);
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0); /* EventNode:Reset clears it */
  bt_inst_free(in);
}

static void test_event_without_child(void) {
  logs();
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int e = add_event(g, "Event(e)", 0, 0);
  set_kids(g, r, 1, e);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0);
  /* RUNNING, then no single child: FAILED */
  CHECK_STR(LST(in, e), "FAILED");
  CHECK_STR(LST(in, r), "FAILED");
  /* firing something that is no EventNode, or no node */
  CHECK_INT(bt_inst_fire_event(in, at(in, r)), BT_EINVAL);
  CHECK_INT(bt_inst_fire_event(in, 5), BT_EINVAL);
  CHECK_INT(bt_inst_fire_event(in, -1), BT_EINVAL);
  bt_inst_free(in);
}

/* DoToParents walks parent links through any node (here a Parallel), clearing every
 * PriorityNode's lasttime. */
static void test_event_clears_priority_ancestors(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), Y = LEAF("Y", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, "R", 10);
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int q = add_prio(g, "Q", 10);
  int e = add_event(g, "Event(e)", 0, 0);
  int l = add_leaf(g, &L), y = add_leaf(g, &Y);
  set_kids(g, e, 1, l);
  set_kids(g, q, 2, e, y);
  set_kids(g, p, 1, q);
  set_kids(g, r, 1, p);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "Y");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);
  CHECK_NUM(field(in, q, BT_FIELD_LASTTIME), 0);
  think(in, 1);
  CHECK_STR(logs(), "Y");
  CHECK_NUM(field(in, q, BT_FIELD_LASTTIME), 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, q, BT_FIELD_LASTTIME), NIL_VALUE);
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, q), "RUNNING");
  CHECK_NUM(field(in, q, BT_FIELD_IDX), 1);
  CHECK_NUM(field(in, q, BT_FIELD_LASTTIME), 2);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 2);
  bt_inst_free(in);
}

/* bt_node_trigger is bt_inst_fire_event on the same tree but for the clocks above, which it
 * leaves: the Priorities think on within their period, and the trigger waits for their next
 * evaluation. */
static void test_trigger_leaves_clocks(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), Y = LEAF("Y", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, "R", 10);
  int q = add_prio(g, "Q", 10);
  int e = add_event(g, "Event(e)", 0, 0);
  int l = add_leaf(g, &L), y = add_leaf(g, &Y);
  set_kids(g, e, 1, l);
  set_kids(g, q, 2, e, y);
  set_kids(g, r, 1, q);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "Y");
  CHECK_INT(bt_node_trigger(in, at(in, e)), BT_OK);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 1);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 0);
  CHECK_NUM(field(in, q, BT_FIELD_LASTTIME), 0);
  think(in, 1);
  CHECK_STR(logs(), "Y"); /* not due: the running Y goes on */
  CHECK_NUM(bt_node_set(in, at(in, q), BT_FIELD_LASTTIME, NULL), BT_OK);
  CHECK_NUM(bt_node_set(in, at(in, r), BT_FIELD_LASTTIME, NULL), BT_OK);
  CHECK_INT(bt_node_trigger(in, at(in, e)), BT_OK); /* with the clocks cleared by the host */
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_INT(bt_node_trigger(in, at(in, r)), BT_EINVAL);
  CHECK_INT(bt_node_trigger(in, -1), BT_EINVAL);
  bt_inst_free(in);
}

/* A shared EventNode: parent is the last parent that took it, or the one bt_graph_set_parent
 * names. Only that chain is cleared. */
static leaf ZA = LEAF("Za", BT_RUNNING), ZB = LEAF("Zb", BT_RUNNING);

static bt_inst *shared_event_tree(int set_parent_to_a, int *qa, int *qb, int *e) {
  bt_graph *g = new_graph();
  int root = add_node(g, BT_PARALLEL, NULL, 0, 0);
  *qa = add_prio(g, "QA", 10);
  *qb = add_prio(g, "QB", 10);
  *e = add_event(g, "Event(e)", 0, 0);
  int za = add_leaf(g, &ZA), zb = add_leaf(g, &ZB);
  set_kids(g, *qa, 2, *e, za);
  set_kids(g, *qb, 2, *e, zb);
  set_kids(g, root, 2, *qa, *qb);
  if (set_parent_to_a == 1) CHECK_INT(bt_graph_set_parent(g, *e, *qa), BT_OK);
  if (set_parent_to_a == 2) set_kids(g, *qa, 2, *e, za); /* QA takes it again, last */
  return build(g, root, 0);
}

static void test_event_shared_parent(void) {
  logs();
  int qa, qb, e;
  bt_inst *in = shared_event_tree(0, &qa, &qb, &e);
  think(in, 0);
  CHECK_STR(logs(), "Za Zb");
  CHECK_NUM(field(in, qa, BT_FIELD_LASTTIME), 0);
  CHECK_NUM(field(in, qb, BT_FIELD_LASTTIME), 0);
  /* pre-order: root 0, QA 1, Event 2, Za 3, QB 4, Event 5, Zb 6 */
  CHECK_INT(at(in, e), 2);
  CHECK_INT(bt_def_state(bt_inst_def(in), 2), bt_def_state(bt_inst_def(in), 5));
  CHECK_INT(bt_inst_fire_event(in, 2), BT_OK);
  CHECK_NUM(field(in, qa, BT_FIELD_LASTTIME), 0);
  CHECK_NUM(field(in, qb, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 1);
  double v = 0;
  CHECK_INT(bt_node_get(in, 5, BT_FIELD_TRIGGERED, &v), 1);
  CHECK_NUM(v, 1);
  bt_inst_free(in);

  in = shared_event_tree(1, &qa, &qb, &e);
  think(in, 0);
  CHECK_INT(bt_inst_fire_event(in, 5), BT_OK); /* either place: one state, one parent */
  CHECK_NUM(field(in, qa, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, qb, BT_FIELD_LASTTIME), 0);
  bt_inst_free(in);

  in = shared_event_tree(2, &qa, &qb, &e);
  think(in, 0);
  CHECK_INT(bt_inst_fire_event(in, 2), BT_OK);
  CHECK_NUM(field(in, qa, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, qb, BT_FIELD_LASTTIME), 0);
  bt_inst_free(in);
}

/* test_anyway: when the selected child is an EventNode, later EventNode siblings whose priority
 * is >= its own are still tested, and take over. */
static void test_event_test_anyway(void) {
  logs();
  leaf L1 = LEAF("L1", BT_RUNNING), A = LEAF("A", BT_RUNNING), L2 = LEAF("L2", BT_RUNNING),
       L3 = LEAF("L3", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  /* E1's priority is nil: 0 (the param 5 is ignored) */
  int e1 = add_event(g, "Event(one)", 5, BT_SPEC_NIL_PARAM);
  int a = add_leaf(g, &A);
  int e2 = add_event(g, "Event(two)", 1, 0);
  int e3 = add_event(g, "Event(three)", 0, 0);
  int l1 = add_leaf(g, &L1), l2 = add_leaf(g, &L2), l3 = add_leaf(g, &L3);
  set_kids(g, e1, 1, l1);
  set_kids(g, e2, 1, l2);
  set_kids(g, e3, 1, l3);
  set_kids(g, r, 4, e1, a, e2, e3);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "L1");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  think(in, 1);
  /* E1 is continued; A (no EventNode) is only reset; E2 (0 <= 1) is tested and wins, and the
   * previously selected E1 is reset; E3 (0 <= 0) is tested, untriggered, stays READY */
  CHECK_STR(logs(), "L1 L2");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 3);
  CHECK_STR(ST(in, e1), "READY");
  CHECK_STR(LST(in, e1), "READY");
  CHECK_STR(ST(in, l1), "READY");
  CHECK_STR(ST(in, e2), "RUNNING");
  CHECK_INT(A.calls, 0);
  think(in, 2);
  CHECK_STR(logs(), "L2");
  bt_inst_free(in);
}

static void test_event_lower_priority_not_tested(void) {
  logs();
  leaf L1 = LEAF("L1", BT_RUNNING), L2 = LEAF("L2", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int e1 = add_event(g, "Event(one)", 2, 0);
  int e2 = add_event(g, "Event(two)", 1, 0);
  int l1 = add_leaf(g, &L1), l2 = add_leaf(g, &L2);
  set_kids(g, e1, 1, l1);
  set_kids(g, e2, 1, l2);
  set_kids(g, r, 2, e1, e2);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "L1");
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  think(in, 1);
  /* 2 <= 1 is false: E2 is not tested; it is Reset and its trigger is lost */
  CHECK_STR(logs(), "L1");
  CHECK_NUM(field(in, e2, BT_FIELD_TRIGGERED), 0);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  CHECK_INT(L2.calls, 0);
  bt_inst_free(in);
}

/* 11b: under test_anyway the child reset is children[self.idx], which may be a winner chosen
 * earlier in the same pass; EventNode children tested anyway that lose are not reset. */
static void test_event_test_anyway_chain(void) {
  logs();
  leaf L1 = LEAF("L1", BT_RUNNING), L2 = LEAF("L2", BT_RUNNING), L3 = LEAF("L3", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int e1 = add_event(g, "Event(one)", 0, 0);
  int e2 = add_event(g, "Event(two)", 0, 0);
  int e3 = add_event(g, "Event(three)", 0, 0);
  int l1 = add_leaf(g, &L1), l2 = add_leaf(g, &L2), l3 = add_leaf(g, &L3);
  set_kids(g, e1, 1, l1);
  set_kids(g, e2, 1, l2);
  set_kids(g, e3, 1, l3);
  set_kids(g, r, 3, e1, e2, e3);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "L1");
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  CHECK_INT(bt_inst_fire_event(in, at(in, e3)), BT_OK);
  think(in, 1);
  /* E2 wins and resets E1; E3 wins and resets children[idx] = E2, chosen in this pass */
  CHECK_STR(logs(), "L1 L2 L3");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 3);
  CHECK_STR(LST(in, e1), "READY");
  CHECK_STR(LST(in, e2), "READY");
  CHECK_STR(LST(in, l2), "READY");
  CHECK_STR(ST(in, e3), "RUNNING");
  bt_inst_free(in);

  /* a tested-anyway EventNode that loses (its child fails) is not reset in that pass */
  L1.status = L2.status = BT_RUNNING;
  leaf F = LEAF("F", BT_FAILED);
  g = new_graph();
  r = add_prio(g, NULL, 10);
  e1 = add_event(g, "Event(one)", 0, 0);
  e2 = add_event(g, "Event(two)", 0, 0);
  l1 = add_leaf(g, &L1);
  int f = add_leaf(g, &F);
  set_kids(g, e1, 1, l1);
  set_kids(g, e2, 1, f);
  set_kids(g, r, 2, e1, e2);
  in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "L1");
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  think(in, 1);
  CHECK_STR(logs(), "L1 F");
  CHECK_STR(LST(in, e2), "FAILED"); /* still FAILED when SaveStatus ran */
  CHECK_STR(LST(in, f), "FAILED");
  CHECK_STR(ST(in, e2), "READY");   /* Step reset it afterwards */
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  CHECK_STR(ST(in, e1), "RUNNING");
  bt_inst_free(in);

  /* the running EventNode stopped: a later triggered EventNode takes over and the old
   * selection (children[idx] = E1) is reset */
  L1.status = BT_RUNNING;
  L2.status = BT_RUNNING;
  g = new_graph();
  r = add_prio(g, NULL, 10);
  e1 = add_event(g, "Event(one)", 0, 0);
  e2 = add_event(g, "Event(two)", 0, 0);
  l1 = add_leaf(g, &L1);
  l2 = add_leaf(g, &L2);
  set_kids(g, e1, 1, l1);
  set_kids(g, e2, 1, l2);
  set_kids(g, r, 2, e1, e2);
  in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "L1");
  L1.status = BT_FAILED;
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  think(in, 1);
  CHECK_STR(logs(), "L1 L2");
  CHECK_STR(LST(in, e1), "READY");
  CHECK_STR(LST(in, e2), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  bt_inst_free(in);
}

/* A running EventNode tested anyway takes the selection back from a higher-priority winner of the
 * same pass, and resets it (children[self.idx] is that winner). */
static void test_event_keeps_over_higher_winner(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int a = add_leaf(g, &A);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int l = add_leaf(g, &L);
  set_kids(g, e, 1, l);
  set_kids(g, r, 2, a, e);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "A L");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  A.status = BT_RUNNING;
  think(in, 1.5);
  CHECK_STR(logs(), "A L");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_STR(LST(in, a), "READY");
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(ST(in, e), "RUNNING");
  CHECK_INT(L.starts, 1);
  bt_inst_free(in);
}

/* An event fired from inside a think, during the Priority's evaluation. */
static int fire_target = -1;
static void hook_fire(bt_call *c, leaf *l) {
  (void)l;
  CHECK_INT(bt_inst_fire_event(c->inst, fire_target), BT_OK);
}

static void test_event_fired_inside_think(void) {
  logs();
  leaf A = LEAF("A", BT_FAILED), L = LEAF("L", BT_RUNNING);
  A.hook = hook_fire;
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int a = add_leaf(g, &A);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int l = add_leaf(g, &L);
  set_kids(g, e, 1, l);
  set_kids(g, r, 2, a, e);
  bt_inst *in = build(g, r, 0);
  fire_target = at(in, e);
  think(in, 0);
  /* the trigger is seen by the same pass; the evaluation's lasttime = now was cleared after it */
  CHECK_STR(logs(), "A L");
  CHECK_STR(ST(in, e), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(sleep_of(in), 0); /* RUNNING Priority with lasttime nil */
  A.hook = NULL;
  think(in, 1); /* so it evaluates again */
  CHECK_STR(logs(), "A L");
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 1);
  bt_inst_free(in);
}

int main(void) {
  test_event_basics();
  test_event_trigger_lost_to_higher_sibling();
  test_event_one_think_even_unvisited();
  test_event_without_child();
  test_event_clears_priority_ancestors();
  test_trigger_leaves_clocks();
  test_event_shared_parent();
  test_event_test_anyway();
  test_event_lower_priority_not_tested();
  test_event_test_anyway_chain();
  test_event_keeps_over_higher_winner();
  test_event_fired_inside_think();
  return check_report("test_events");
}
