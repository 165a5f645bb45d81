/* SPDX-License-Identifier: MIT */
/* test_think.c: the think cycle (bt_inst_update: Visit, SaveStatus, Step), lastresult, sleep
 * times, force_update, reset, stop with on_stop, BT_EBUSY inside a think, and the node method
 * entry points. Expected values come from Don't Starve's behaviourtree.lua (BT:Update,
 * BT:GetSleepTime, BehaviourNode methods). */
#include "harness.h"

static void test_visit_save_step(void) {
  logs();
  leaf A = LEAF("A", BT_SUCCESS);
  A.log_resets = 1;
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_leaf(g, &A);
  set_kids(g, s, 1, a);
  bt_inst *in = build(g, s, 0);
  CHECK_STR(ST(in, s), "READY");
  CHECK_STR(LST(in, s), "READY");
  think(in, 0);
  /* SaveStatus runs before Step: lastresult is the status at the end of the Visit */
  CHECK_STR(logs(), "A reset:A");
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_STR(LST(in, a), "SUCCESS");
  CHECK_STR(ST(in, s), "READY");
  CHECK_STR(ST(in, a), "READY");
  bt_inst_free(in);
}

/* SaveStatus copies every node's status, visited or not. */
static void test_lastresult_of_unvisited_nodes(void) {
  logs();
  leaf C1 = FN("C1", 0), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, r, 2, c1, l);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(LST(in, c1), "FAILED");
  CHECK_STR(ST(in, c1), "READY"); /* Step reset it after SaveStatus */
  think(in, 1);
  CHECK_STR(logs(), "C1 L L");
  /* C1 was not visited, but its READY shows in lastresult after this think */
  CHECK_STR(LST(in, c1), "READY");
  /* a status set by the host between thinks shows after the next think */
  bt_node_set_status(in, at(in, c1), BT_SUCCESS);
  CHECK_STR(LST(in, c1), "READY");
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, c1), "SUCCESS");
  CHECK_STR(ST(in, c1), "READY"); /* and the RUNNING root's Step reset it */
  /* a host Reset between thinks */
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_STR(LST(in, l), "RUNNING");
  CHECK_STR(LST(in, r), "RUNNING");
  think(in, 3); /* not due (0 + 10), idx nil: nothing runs */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, l), "READY");
  CHECK_STR(LST(in, r), "READY");
  bt_inst_free(in);

  /* an event resetting a running child between thinks */
  leaf M = LEAF("M", BT_RUNNING), C = FN("C", 1);
  g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int m = add_leaf(g, &M);
  set_kids(g, e, 1, m);
  set_kids(g, p, 2, c, e);
  in = build(g, p, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "C M");
  CHECK_STR(LST(in, m), "RUNNING");
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK); /* resets M */
  CHECK_STR(ST(in, m), "READY");
  C.result = 0;
  think(in, 1); /* the While fails before reaching the EventNode: M is not visited */
  CHECK_STR(logs(), "C");
  CHECK_STR(LST(in, p), "FAILED");
  CHECK_STR(LST(in, e), "RUNNING");
  CHECK_STR(LST(in, m), "READY");
  bt_inst_free(in);
}

/* A Reset that passes a triggered EventNode still READY (whose Reset is its kind's own and changes
 * no status) after other statuses went back to READY: the next think's SaveStatus still copies
 * them (a first version of the walking Reset lost them, showing FAILED where Don't Starve shows
 * READY). */
static void test_lastresult_after_reset_through_event(void) {
  logs();
  leaf C1 = FN("C1", 0), A = FN("A", 1); /* function leaves: no Reset of the host's anywhere */
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c1 = add_fn(g, BT_CONDITION, &C1, NULL);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int l = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, e, 1, l);
  set_kids(g, s, 2, c1, e);
  set_kids(g, r, 1, s);
  bt_inst *in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0); /* the Sequence fails at C1: the EventNode is not visited */
  CHECK_STR(logs(), "C1");
  CHECK_STR(LST(in, r), "FAILED");
  CHECK_STR(LST(in, s), "FAILED");
  CHECK_STR(LST(in, c1), "FAILED");
  CHECK_STR(LST(in, e), "READY");
  CHECK_STR(ST(in, c1), "READY"); /* Step reset the tree after SaveStatus */
  think(in, 1); /* not due (0 + 10): nothing runs, and SaveStatus copies the READYs */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, r), "READY");
  CHECK_STR(LST(in, s), "READY");
  CHECK_STR(LST(in, c1), "READY");
  bt_inst_free(in);
}

static void test_bt_node_save_status(void) {
  logs();
  leaf A = LEAF("A", BT_SUCCESS);
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_leaf(g, &A);
  set_kids(g, s, 1, a);
  bt_inst *in = build(g, s, 0);
  T = 0;
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "A");
  CHECK_STR(ST(in, s), "SUCCESS");
  CHECK_STR(LST(in, s), "READY");
  bt_node_save_status(in, 0); /* copies status into lastresult, then the children */
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_STR(LST(in, a), "SUCCESS");
  bt_node_step(in, 0); /* not RUNNING: Reset */
  CHECK_STR(ST(in, s), "READY");
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(LST(in, a), "SUCCESS");
  bt_inst_free(in);
}

/* ---- sleep times ---- */

static void test_sleep_min_over_running_path(void) {
  logs();
  leaf L1 = LEAF("L1", BT_RUNNING), L2 = LEAF("L2", BT_RUNNING), L3 = LEAF("L3", BT_RUNNING);
  L1.sleep = 3;
  L2.sleep = 2;
  L3.sleep = 1.5;
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int l1 = add_leaf(g, &L1), l2 = add_leaf(g, &L2);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int l3 = add_leaf(g, &L3);
  set_kids(g, s, 1, l3);
  set_kids(g, p, 3, l1, l2, s);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), 1.5);
  T = 1;
  CHECK_NUM(sleep_of(in), 0.5);
  double v = -1;
  CHECK_INT(bt_node_tree_sleep_time(in, at(in, l2), &v), 1);
  CHECK_NUM(v, 1);
  CHECK_INT(bt_node_sleep_time(in, at(in, s), &v), 0); /* no leaf: nil */
  CHECK_INT(bt_node_tree_sleep_time(in, at(in, s), &v), 1);
  CHECK_NUM(v, 0.5);
  L3.status = BT_SUCCESS; /* the Sequence stops running: its deadline no longer counts */
  think(in, 1);
  CHECK_STR(ST(in, s), "SUCCESS"); /* kept by the running Parallel */
  CHECK_NUM(sleep_of(in), 2); /* L1 slept 3 and L2 slept 2 more at 1 */
  L1.status = L2.status = BT_SUCCESS;
  think(in, 1.25);
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_NUM(sleep_of(in), NIL_VALUE); /* nothing runs: hibernate */
  bt_inst_free(in);

  /* a running Priority's next evaluation counts */
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 5;
  g = new_graph();
  int r = add_prio(g, NULL, 0.25);
  int l = add_leaf(g, &L);
  set_kids(g, r, 1, l);
  in = build(g, r, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), 0.25);
  T = 0.125;
  CHECK_NUM(sleep_of(in), 0.125);
  T = 1;
  CHECK_NUM(sleep_of(in), 0); /* clamped */
  /* a Priority that is SUCCESS or FAILED: nil */
  bt_node_set_status(in, 0, BT_FAILED);
  CHECK_INT(bt_node_sleep_time(in, 0, &v), 0);
  bt_node_set_status(in, 0, BT_READY);
  v = -1;
  CHECK_INT(bt_node_sleep_time(in, 0, &v), 1);
  CHECK_NUM(v, 0);
  bt_inst_free(in);
}

static void test_sleep_nil_and_non_leaf(void) {
  logs();
  /* a RUNNING BehaviourNode with a children list is no leaf: nil even after Sleep */
  leaf K = LEAF("K", BT_RUNNING);
  K.sleep = 1;
  bt_graph *g = new_graph();
  bt_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = BT_BEHAVIOUR;
  sp.name = "K";
  sp.flags = BT_SPEC_CHILDREN;
  sp.ops = &LEAF_OPS;
  sp.ops_ud = &K;
  int k = bt_graph_add(g, &sp);
  CHECK(k >= 0);
  bt_inst *in = build(g, k, 0);
  think(in, 0);
  CHECK_STR(ST(in, k), "RUNNING");
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_free(in);

  /* a READY root that is no Priority: nil */
  leaf A = LEAF("A", BT_SUCCESS);
  g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_leaf(g, &A);
  set_kids(g, s, 1, a);
  in = build(g, s, 0);
  CHECK_NUM(sleep_of(in), NIL_VALUE); /* before any think too */
  think(in, 0);
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_free(in);

  /* a READY Priority root: 0, before any think too */
  g = new_graph();
  int r = add_prio(g, NULL, 1);
  a = add_leaf(g, &A);
  set_kids(g, r, 1, a);
  in = build(g, r, 0);
  CHECK_NUM(sleep_of(in), 0);
  bt_inst_free(in);

  /* an ActionNode made RUNNING by a script, then Sleep(2): a RUNNING leaf, not a ConditionNode */
  leaf X = FN("X", 1);
  g = new_graph();
  int x = add_fn(g, BT_ACTION, &X, NULL);
  in = build(g, x, 0);
  T = 0;
  bt_node_set_status(in, 0, BT_RUNNING);
  bt_node_sleep(in, 0, 2);
  CHECK_NUM(sleep_of(in), 2);
  bt_inst_free(in);

  /* a ConditionNode made RUNNING: is_a(ConditionNode) gives nil */
  leaf C = FN("C", 1);
  g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  in = build(g, c, 0);
  bt_node_set_status(in, 0, BT_RUNNING);
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_free(in);
}

static void test_force_update(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 5;
  bt_graph *g = new_graph();
  int l = add_leaf(g, &L);
  bt_inst *in = build(g, l, 0);
  bt_inst_force_update(in);
  CHECK_NUM(sleep_of(in), 0);
  think(in, 0); /* Update clears the flag */
  CHECK_NUM(sleep_of(in), 5);
  bt_inst_force_update(in);
  CHECK_NUM(sleep_of(in), 0);
  T = 1;
  CHECK_NUM(sleep_of(in), 0); /* until the next update */
  L.status = BT_SUCCESS;
  think(in, 1);
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_force_update(in); /* even when the tree would hibernate */
  CHECK_NUM(sleep_of(in), 0);
  bt_inst_free(in);
}

/* ---- reset ---- */

static void test_reset(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), A = LEAF("A", BT_SUCCESS), S0 = FN("start", 1),
       C0 = FN("cont", 1), M = LEAF("M", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int m = add_leaf(g, &M);
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int mc = add_multi(g, &S0, &C0, NULL);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_leaf(g, &A), l = add_leaf(g, &L);
  set_kids(g, e, 1, m);
  set_kids(g, s, 2, a, l);
  set_kids(g, p, 2, mc, s);
  set_kids(g, r, 2, e, p);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "start A L");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  /* the trigger of a READY EventNode under the RUNNING root */
  T = 0.5;
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_STR(ST(in, r), "READY");
  CHECK_STR(ST(in, p), "READY");
  CHECK_STR(ST(in, mc), "READY");
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(ST(in, l), "READY");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  /* the event's lasttime clearing stays; Reset does not touch lasttime */
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, mc, BT_FIELD_RUNNING), 1);
  /* EventNode:Reset clears triggered before the base Reset's READY test */
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0);
  /* Reset keeps lastresult */
  CHECK_STR(LST(in, l), "RUNNING");
  think(in, 1);
  CHECK_STR(logs(), "cont A L");
  bt_inst_free(in);

  /* a READY root does not pass Reset on: the trigger survives */
  leaf N = LEAF("N", BT_RUNNING);
  g = new_graph();
  r = add_prio(g, NULL, 10);
  e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int n = add_leaf(g, &N);
  set_kids(g, e, 1, n);
  set_kids(g, r, 1, e);
  in = build(g, r, 0);
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 1);
  think(in, 0);
  CHECK_STR(logs(), "N");
  bt_inst_free(in);
}

/* ---- stop ---- */

static int add_stopper(bt_graph *g, int kind, const char *name, double param) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.param = param;
  s.flags = kind == BT_PRIORITY ? BT_SPEC_NOSCATTER : 0;
  s.ops = &STOP_OPS;
  s.ops_ud = (void *)name;
  int id = bt_graph_add(g, &s);
  CHECK(id >= 0);
  return id;
}

static void test_stop(void) {
  logs();
  leaf A = LEAF("A", BT_RUNNING), B = LEAF("B", BT_SUCCESS), C = LEAF("C", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_stopper(g, BT_PRIORITY, "R", 1);
  int s = add_stopper(g, BT_SEQUENCE, "S", 0);
  int plain = add_node(g, BT_SELECTOR, "Plain", 0, 0); /* no on_stop: skipped, children still */
  int a = add_leaf(g, &A), b = add_leaf(g, &B), c = add_leaf(g, &C);
  set_kids(g, s, 2, b, a);
  set_kids(g, plain, 1, c);
  set_kids(g, r, 2, s, plain);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "B A");
  bt_inst_stop(in);
  /* OnStop of the node, then Stop on the children, in order */
  CHECK_STR(logs(), "stop:R stop:S stop:B stop:A stop:C");
  /* Stop changes no status */
  CHECK_STR(ST(in, r), "RUNNING");
  CHECK_STR(ST(in, a), "RUNNING");
  bt_inst_free(in);

  /* a shared node is stopped at each place */
  leaf X = LEAF("X", BT_SUCCESS);
  g = new_graph();
  int q = add_stopper(g, BT_SEQUENCE, "Q", 0);
  int x = add_leaf(g, &X);
  set_kids(g, q, 2, x, x);
  in = build(g, q, 0);
  bt_inst_stop(in);
  CHECK_STR(logs(), "stop:Q stop:X stop:X");
  bt_node_stop(in, 1); /* Stop of one node */
  CHECK_STR(logs(), "stop:X");
  bt_inst_free(in);
}

/* ---- calls from inside a think ---- */

static int busy_update, busy_reset, busy_thinking;

static void hook_busy(bt_call *c, leaf *l) {
  (void)l;
  busy_update = bt_inst_update(c->inst);
  busy_reset = bt_inst_reset(c->inst);
  busy_thinking = bt_inst_thinking(c->inst);
}

static void hook_stop(bt_call *c, leaf *l) {
  (void)l;
  bt_inst_stop(c->inst);
}

static void test_inside_think(void) {
  logs();
  leaf A = LEAF("A", BT_RUNNING), B = LEAF("B", BT_RUNNING);
  A.hook = hook_busy;
  bt_graph *g = new_graph();
  int s = add_stopper(g, BT_PARALLEL, "P", 0);
  int a = add_leaf(g, &A), b = add_leaf(g, &B);
  set_kids(g, s, 2, a, b);
  bt_inst *in = build(g, s, 0);
  CHECK_INT(bt_inst_thinking(in), 0);
  busy_update = busy_reset = 99;
  think(in, 0);
  CHECK_INT(busy_update, BT_EBUSY);
  CHECK_INT(busy_reset, BT_OK); /* as Don't Starve's: the root is READY yet, so nothing changes */
  CHECK_INT(busy_thinking, 1);
  CHECK_INT(bt_inst_thinking(in), 0);
  CHECK_STR(logs(), "A B"); /* the refused update visited nothing */
  CHECK_STR(ST(in, a), "RUNNING");
  CHECK_STR(ST(in, s), "RUNNING");
  /* stop is allowed inside a think, and the think goes on */
  A.hook = hook_stop;
  think(in, 1);
  CHECK_STR(logs(), "A stop:P stop:A stop:B B");
  CHECK_STR(ST(in, s), "RUNNING");
  A.hook = NULL;
  think(in, 2); /* and the instance still works */
  CHECK_STR(logs(), "A B");
  bt_inst_free(in);
}

/* A leaf that resets its own tree (a mod's "unstick" action) does what Don't Starve's Reset does
 * there and then, and the think goes on with the fields as they now are. Under a RUNNING
 * Priority that evaluates again, the Sequence S (READY when its visit began) is reset between
 * its children: its index goes back to 1, so after A it visits A again, then B; W, RUNNING, is
 * reset too. (Don't Starve's scripts, run on the same tree: "C A A B", then S SUCCESS.) */
static int unstick_calls;
static void hook_unstick(bt_call *c, leaf *l) {
  (void)l;
  if (unstick_calls++ == 0) CHECK_INT(bt_inst_reset(c->inst), BT_OK);
}

static void test_reset_inside_think(void) {
  logs();
  leaf C = FN("C", 0), A = FN("A", 1), B = FN("B", 1), W = FN("W", 0);
  A.hook = hook_unstick;
  bt_graph *g = new_graph();
  int p = add_prio(g, "P", 0.25);
  int seq = add_node(g, BT_SEQUENCE, "S", 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "C"), a = add_fn(g, BT_ACTION, &A, "A"), b = add_fn(g, BT_ACTION, &B, "B");
  int w = add_fn(g, BT_CONDITIONWAIT, &W, "W");
  set_kids(g, seq, 3, c, a, b);
  set_kids(g, p, 2, seq, w);
  bt_inst *in = build(g, p, BT_INST_NOSCATTER);
  think(in, 0); /* C fails: W runs */
  CHECK_STR(logs(), "C W");
  CHECK_STR(ST(in, w), "RUNNING");
  C.result = 1;
  think(in, 1); /* the Priority evaluates again: S, and A resets the tree under its visit */
  CHECK_STR(logs(), "C A A B");
  CHECK_INT(unstick_calls, 2);
  CHECK_STR(ST(in, p), "READY"); /* SUCCESS, then Step's reset */
  CHECK_STR(LAST(in, seq), "SUCCESS");
  CHECK_STR(LAST(in, w), "READY");
  bt_inst_free(in);
}

static void test_inst_accessors(void) {
  logs();
  int agent = 7;
  bt_graph *g = new_graph();
  int b = add_node(g, BT_BEHAVIOUR, "B", 0, 0);
  bt_def *def = NULL;
  CHECK_INT(bt_def_create(&def, g, b), BT_OK);
  bt_graph_free(g);
  bt_inst *in = NULL;
  CHECK_INT(bt_inst_create(&in, def, &HOST, &agent, 0), BT_OK);
  CHECK(bt_inst_agent(in) == &agent);
  CHECK(bt_inst_def(in) == def);
  T = 42.5;
  CHECK_NUM(bt_inst_now(in), 42.5);
  /* two instances of one definition keep separate state */
  bt_inst *in2 = NULL;
  CHECK_INT(bt_inst_create(&in2, def, &HOST, NULL, 0), BT_OK);
  bt_def_release(def); /* the instances hold their own references */
  think(in, 0);
  CHECK_STR(LST(in, b), "FAILED");
  CHECK_STR(LST(in2, b), "READY");
  bt_inst_free(in);
  think(in2, 1);
  CHECK_STR(LST(in2, b), "FAILED");
  bt_inst_free(in2);
  CHECK_INT(bt_inst_create(&in2, NULL, &HOST, NULL, 0), BT_EINVAL);
}

/* The clock is read where Don't Starve calls GetTime(), in the same order: a clock that moves on
 * every read shows which read each value came from. */
static double counter;
static int clock_reads;
static double counting_now(void *d) {
  (void)d;
  clock_reads++;
  return counter++;
}

static void test_clock_reads(void) {
  static const bt_host H = {counting_now, NULL, NULL, NULL};
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 10);
  int la = add_node(g, BT_LATCH, NULL, 5, 0);
  int w = add_node(g, BT_WAIT, NULL, 10, 0);
  set_kids(g, la, 1, w);
  set_kids(g, r, 1, la);
  bt_def *d = NULL;
  REQUIRE(bt_def_create(&d, g, r) == BT_OK);
  bt_graph_free(g);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, d, &H, NULL, 0) == BT_OK);
  bt_def_release(d);
  counter = 100;
  clock_reads = 0;
  CHECK_INT(bt_inst_update(in), BT_OK);
  /* PriorityNode:Visit: time = GetTime() (100); LatchNode:Visit: GetTime() > ... (101), then
   * lastlatchtime = GetTime() (102); WaitNode:Visit: current_time = GetTime() (103), wake_time =
   * 113; Sleep(wake_time - current_time) reads GetTime() (104): nextupdatetime = 114 */
  CHECK_INT(clock_reads, 5);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 100);
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 102);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 113);
  CHECK_NUM(field(in, w, BT_FIELD_NEXTUPDATETIME), 114);
  CHECK_INT(clock_reads, 5);
  /* GetTreeSleepTime asks the RUNNING children before the node itself: the Wait reads 105
   * (114 - 105 = 9), then the Priority reads 106 (100 + 10 - 106 = 4) */
  double v = -1;
  CHECK_INT(bt_inst_sleep_time(in, &v), 1);
  CHECK_NUM(v, 4);
  CHECK_INT(clock_reads, 7);
  bt_inst_free(in);
}

/* A Priority with many children: a think passes over the children Reset would not change, and
 * still resets every one it would (Don't Starve's behaviourtree.lua: Step resets each
 * non-RUNNING child of a RUNNING node; Reset of a READY node does not reach its children). */
static void test_wide_priority_step(void) {
  enum { N = 20, RUN = 12 };
  static char names[N][8];
  leaf conds[N], acts[N];
  leaf L = LEAF("L", BT_RUNNING);
  int seq[N], cond[N];
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 100);
  int kids[N];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "C%d", i + 1);
    conds[i] = (leaf)FN(names[i], i + 1 == RUN);
    acts[i] = (leaf)FN("A", 1);
    seq[i] = add_node(g, BT_SEQUENCE, NULL, 0, 0);
    cond[i] = add_fn(g, BT_CONDITION, &conds[i], NULL);
    int second = i + 1 == RUN ? add_leaf(g, &L) : add_fn(g, BT_ACTION, &acts[i], NULL);
    set_kids(g, seq[i], 2, cond[i], second);
    kids[i] = seq[i];
  }
  REQUIRE(bt_graph_set_children(g, r, kids, N) == BT_OK);
  bt_inst *in = build(g, r, 0);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12 L");
  CHECK_STR(LST(in, seq[10]), "FAILED");
  CHECK_STR(ST(in, seq[10]), "READY");
  CHECK_STR(ST(in, seq[RUN - 1]), "RUNNING");
  think(in, 1);
  CHECK_STR(logs(), "L");

  /* a later child changed by the host: the next Step resets it, its index rewound */
  bt_node_set_status(in, at(in, seq[16]), BT_SUCCESS);
  set_field(in, seq[16], BT_FIELD_IDX, 2);
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, seq[16]), "SUCCESS");
  CHECK_STR(ST(in, seq[16]), "READY");
  CHECK(field(in, seq[16], BT_FIELD_IDX) == 1);
  /* a READY child whose index alone was changed is rewound too */
  set_field(in, seq[15], BT_FIELD_IDX, 2);
  think(in, 3);
  CHECK(field(in, seq[15], BT_FIELD_IDX) == 1);

  /* the child of a READY child keeps the status the host gave it */
  bt_node_set_status(in, at(in, cond[17]), BT_FAILED);
  think(in, 4);
  CHECK_STR(ST(in, cond[17]), "FAILED");
  CHECK_STR(LST(in, cond[17]), "FAILED");

  /* an evaluation resets the children after the one it picks, before SaveStatus */
  bt_node_set_status(in, at(in, seq[18]), BT_RUNNING);
  logs();
  think(in, 101);
  CHECK_STR(logs(), "C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 L");
  CHECK_STR(LST(in, seq[18]), "READY");
  CHECK_STR(ST(in, seq[18]), "READY");
  CHECK_STR(ST(in, cond[17]), "FAILED");
  bt_inst_free(in);
}

/* While nothing changes, a think only walks the running path; a change made by the host between
 * thinks is still seen by the next Step (Don't Starve's behaviourtree.lua). */
static void test_quiet_thinks_see_host_changes(void) {
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 100);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int w = add_node(g, BT_WAIT, NULL, 10, 0);
  set_kids(g, s, 2, c, w);
  set_kids(g, r, 1, s);
  bt_inst *in = build(g, r, 0);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "C");
  CHECK_STR(ST(in, c), "READY");
  think(in, 1);
  think(in, 2);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, w), "RUNNING");
  bt_node_set_status(in, at(in, c), BT_SUCCESS);
  think(in, 3);
  CHECK_STR(LST(in, c), "SUCCESS");
  CHECK_STR(ST(in, c), "READY");
  think(in, 11);
  CHECK_STR(LST(in, w), "SUCCESS");
  CHECK_STR(ST(in, w), "READY");
  CHECK_STR(ST(in, s), "READY");
  bt_inst_free(in);
}

int main(void) {
  test_visit_save_step();
  test_lastresult_of_unvisited_nodes();
  test_lastresult_after_reset_through_event();
  test_bt_node_save_status();
  test_sleep_min_over_running_path();
  test_sleep_nil_and_non_leaf();
  test_force_update();
  test_reset();
  test_stop();
  test_inside_think();
  test_reset_inside_think();
  test_inst_accessors();
  test_clock_reads();
  test_wide_priority_step();
  test_quiet_thinks_see_host_changes();
  return check_report("test_think");
}
