/* SPDX-License-Identifier: MIT */
/* test_leaves.c: BehaviourNode and bt_ops overrides, ConditionNode, MultiConditionNode,
 * ConditionWaitNode, ActionNode, WaitNode, the three decorators and LatchNode.
 * Expected values come from Don't Starve's behaviourtree.lua. */
#include "harness.h"

/* ---- BehaviourNode ---- */

static void test_behaviour_default(void) {
  logs();
  bt_graph *g = new_graph();
  int b = add_node(g, BT_BEHAVIOUR, NULL, 0, 0);
  bt_inst *in = build(g, b, 0);
  /* BehaviourNode(name): self.name = name or "" */
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "");
  think(in, 0);
  /* BehaviourNode:Visit(): self.status = FAILED; Step resets it */
  CHECK_STR(LST(in, b), "FAILED");
  CHECK_STR(ST(in, b), "READY");
  /* a READY root that is no Priority: nil, hibernate */
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_free(in);
}

static void test_c_leaf_running_and_sleep(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 2;
  bt_graph *g = new_graph();
  int l = add_leaf(g, &L);
  bt_inst *in = build(g, l, 0);
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), NIL_VALUE); /* never slept */
  think(in, 10);
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, l), "RUNNING");
  CHECK_STR(LST(in, l), "RUNNING");
  /* Sleep(2) at 10: nextupdatetime = 12; GetSleepTime = nextupdatetime - now */
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), 12);
  CHECK_NUM(sleep_of(in), 2);
  T = 11;
  CHECK_NUM(sleep_of(in), 1);
  T = 13;
  CHECK_NUM(sleep_of(in), 0); /* time_to < 0 becomes 0 */
  L.sleep = -1;
  think(in, 13); /* RUNNING without a new Sleep: the old deadline stays */
  CHECK_STR(logs(), "L");
  CHECK_NUM(sleep_of(in), 0);
  CHECK_INT(L.starts, 1); /* the second visit found it RUNNING */
  L.status = BT_SUCCESS;
  think(in, 14);
  CHECK_STR(LST(in, l), "SUCCESS");
  CHECK_STR(ST(in, l), "READY");
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  /* "nextupdatetime is never cleared by Reset" */
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), 12);
  bt_inst_free(in);
}

static void test_stale_sleep_deadline(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 5;
  bt_graph *g = new_graph();
  int l = add_leaf(g, &L);
  bt_inst *in = build(g, l, 0);
  think(in, 0); /* nextupdatetime = 5 */
  L.status = BT_SUCCESS;
  L.sleep = -1;
  think(in, 1); /* SUCCESS, then reset */
  CHECK_STR(ST(in, l), "READY");
  L.status = BT_RUNNING;
  think(in, 2); /* runs again without calling Sleep */
  CHECK_INT(L.starts, 2);
  /* the deadline of the earlier run still counts: 5 - 2 */
  CHECK_NUM(sleep_of(in), 3);
  bt_inst_free(in);
}

static void test_leaf_running_never_slept(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int l = add_leaf(g, &L);
  bt_inst *in = build(g, l, 0);
  think(in, 3);
  /* a RUNNING leaf that never called Sleep: 0 */
  CHECK_NUM(sleep_of(in), 0);
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), NIL_VALUE);
  bt_inst_free(in);
}

static void hook_sleep_negative(bt_call *c, leaf *l) {
  (void)l;
  bt_node_sleep(c->inst, c->node, -1);
}

static void test_negative_sleep(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  L.hook = hook_sleep_negative;
  bt_graph *g = new_graph();
  int l = add_leaf(g, &L);
  bt_inst *in = build(g, l, 0);
  think(in, 4);
  /* Sleep(-1): nextupdatetime = now - 1; GetSleepTime clamps to 0 */
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), 3);
  CHECK_NUM(sleep_of(in), 0);
  bt_inst_free(in);
}

/* ---- bt_ops overrides ---- */

static int visit_default(bt_call *c) {
  log_addf("visit:%s", (const char *)c->ud);
  return BT_DEFAULT;
}
static int step_default(bt_call *c) {
  log_addf("step:%s", (const char *)c->ud);
  return BT_DEFAULT;
}
static int step_nothing(bt_call *c) {
  log_addf("step:%s", (const char *)c->ud);
  return BT_OK;
}
static int reset_keep(bt_call *c) {
  leaf *l = c->ud;
  log_addf("keep:%s", l->name);
  return BT_OK; /* an override that does not call the base Reset */
}
static int sleep7(bt_call *c) {
  c->value = 7;
  return 1;
}
static int sleepnil(bt_call *c) {
  (void)c;
  return 0;
}
static int sleepdefault(bt_call *c) {
  (void)c;
  return BT_DEFAULT;
}
static int describe_hello(bt_call *c, bt_buf *out) {
  (void)c;
  return bt_buf_append(out, "hello", 5);
}

static int add_with_ops(bt_graph *g, int kind, const char *name, const bt_ops *ops, void *ud) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.ops = ops;
  s.ops_ud = ud;
  int id = bt_graph_add(g, &s);
  CHECK(id >= 0);
  return id;
}

static void test_ops_default(void) {
  logs();
  static const bt_ops VD = {visit_default, NULL, NULL, NULL, NULL, NULL};
  /* a BehaviourNode whose override asks for the default: BehaviourNode.Visit, FAILED */
  bt_graph *g = new_graph();
  int b = add_with_ops(g, BT_BEHAVIOUR, "B", &VD, "B");
  bt_inst *in = build(g, b, 0);
  think(in, 0);
  CHECK_STR(logs(), "visit:B");
  CHECK_STR(LST(in, b), "FAILED");
  bt_inst_free(in);

  /* a Sequence whose override asks for the default: SequenceNode.Visit */
  leaf A = LEAF("A", BT_SUCCESS), Bl = LEAF("B", BT_RUNNING);
  g = new_graph();
  int s = add_with_ops(g, BT_SEQUENCE, NULL, &VD, "S");
  int a = add_leaf(g, &A), bb = add_leaf(g, &Bl);
  set_kids(g, s, 2, a, bb);
  in = build(g, s, 0);
  think(in, 0);
  CHECK_STR(logs(), "visit:S A B");
  CHECK_STR(ST(in, s), "RUNNING");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);
  think(in, 1); /* resumes at idx 2 */
  CHECK_STR(logs(), "visit:S B");
  bt_inst_free(in);
}

static void test_ops_reset(void) {
  logs();
  /* Step of a node that is not RUNNING calls its Reset, through the override */
  leaf C = FN("C", 0), L = LEAF("L", BT_RUNNING);
  L.log_resets = 1;
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int l = add_leaf(g, &L);
  set_kids(g, s, 2, c, l);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  /* C fails the Sequence; Step: Sequence:Reset (FAILED -> READY) resets every child, L too */
  CHECK_STR(logs(), "C reset:L");
  CHECK_INT(L.resets, 1);
  CHECK_STR(ST(in, s), "READY");
  bt_inst_free(in);

  /* an override that does not call the base keeps the status */
  static const bt_ops KEEP = {leaf_visit, reset_keep, NULL, NULL, NULL, NULL};
  leaf K = LEAF("K", BT_SUCCESS);
  g = new_graph();
  int k = add_with_ops(g, BT_BEHAVIOUR, "K", &KEEP, &K);
  in = build(g, k, 0);
  think(in, 0);
  CHECK_STR(logs(), "K keep:K");
  CHECK_STR(LST(in, k), "SUCCESS");
  CHECK_STR(ST(in, k), "SUCCESS");
  bt_inst_free(in);
}

static void test_ops_step(void) {
  logs();
  static const bt_ops SD = {NULL, NULL, step_default, NULL, NULL, NULL};
  static const bt_ops SN = {NULL, NULL, step_nothing, NULL, NULL, NULL};
  leaf L = LEAF("L", BT_RUNNING), A = LEAF("A", BT_SUCCESS);
  L.log_resets = A.log_resets = 1;
  bt_graph *g = new_graph();
  int s = add_with_ops(g, BT_SEQUENCE, NULL, &SD, "S");
  int a = add_leaf(g, &A), l = add_leaf(g, &L);
  set_kids(g, s, 2, a, l);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  /* BT:Update: Visit (A, L), SaveStatus, Step: S (RUNNING) steps its children: A is SUCCESS and
   * is reset, L is RUNNING and stays */
  CHECK_STR(logs(), "A L step:S reset:A");
  CHECK_STR(ST(in, a), "READY");
  CHECK_STR(ST(in, l), "RUNNING");
  bt_inst_free(in);

  /* a Step override that does nothing: the finished Sequence is not reset */
  leaf B = LEAF("B", BT_SUCCESS);
  g = new_graph();
  s = add_with_ops(g, BT_SEQUENCE, NULL, &SN, "S");
  int b = add_leaf(g, &B);
  set_kids(g, s, 1, b);
  in = build(g, s, 0);
  think(in, 0);
  CHECK_STR(logs(), "B step:S");
  CHECK_STR(ST(in, s), "SUCCESS");
  CHECK_STR(ST(in, b), "SUCCESS");
  bt_inst_free(in);
}

static void test_ops_sleep_and_describe(void) {
  logs();
  static const bt_ops S7 = {leaf_visit, NULL, NULL, NULL, sleep7, describe_hello};
  static const bt_ops SNIL = {leaf_visit, NULL, NULL, NULL, sleepnil, NULL};
  static const bt_ops SDEF = {leaf_visit, NULL, NULL, NULL, sleepdefault, NULL};
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 2;
  bt_graph *g = new_graph();
  int l = add_with_ops(g, BT_BEHAVIOUR, "L", &S7, &L);
  bt_inst *in = build(g, l, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), 7);
  CHECK_STR(dump(in), "L - RUNNING <RUNNING> (hello)>7.00\n");
  L.status = BT_SUCCESS;
  think(in, 1);
  /* DBString only shows while RUNNING */
  CHECK_STR(dump(in), "L - READY <SUCCESS> ()>7.00\n");
  bt_inst_free(in);

  L.status = BT_RUNNING;
  g = new_graph();
  l = add_with_ops(g, BT_BEHAVIOUR, "L", &SNIL, &L);
  in = build(g, l, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_free(in);

  g = new_graph();
  l = add_with_ops(g, BT_BEHAVIOUR, "L", &SDEF, &L);
  in = build(g, l, 0);
  think(in, 0);
  CHECK_NUM(sleep_of(in), 2); /* the default: Sleep(2) from the visit */
  bt_inst_free(in);
}

/* ---- ConditionNode ---- */

static void test_condition(void) {
  logs();
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  bt_inst *in = build(g, c, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Condition");
  think(in, 0);
  CHECK_STR(logs(), "C");
  CHECK_STR(LST(in, c), "SUCCESS");
  CHECK_STR(ST(in, c), "READY");
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  C.result = 0;
  think(in, 1);
  CHECK_STR(LST(in, c), "FAILED");
  C.result = -1; /* an error: the node fails */
  think(in, 2);
  CHECK_STR(LST(in, c), "FAILED");
  C.result = 5; /* truthy */
  think(in, 3);
  CHECK_STR(LST(in, c), "SUCCESS");
  CHECK_INT(C.calls, 4);
  bt_inst_free(in);
}

/* ---- MultiConditionNode, and IfThenDoWhileNode = Parallel{MultiCondition, node} ---- */

static void test_multicondition_alone(void) {
  logs();
  leaf S = FN("start", 1), Cn = FN("cont", 0);
  bt_graph *g = new_graph();
  int m = add_multi(g, &S, &Cn, NULL);
  bt_inst *in = build(g, m, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Condition");
  CHECK_NUM(field(in, m, BT_FIELD_RUNNING), 0);
  think(in, 0);
  CHECK_STR(logs(), "start");
  CHECK_STR(LST(in, m), "SUCCESS");
  CHECK_STR(ST(in, m), "READY");
  CHECK_NUM(field(in, m, BT_FIELD_RUNNING), 1); /* survives the Reset of Step */
  think(in, 1);
  CHECK_STR(logs(), "cont"); /* running: continue() */
  CHECK_STR(LST(in, m), "FAILED");
  CHECK_NUM(field(in, m, BT_FIELD_RUNNING), 0);
  think(in, 2);
  CHECK_STR(logs(), "start");
  bt_inst_free(in);
}

static void test_ifthendowhile(void) {
  logs();
  leaf S = FN("start", 1), Cn = FN("cont", 0), L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int m = add_multi(g, &S, &Cn, "IfThenDoWhile");
  int l = add_leaf(g, &L);
  set_kids(g, p, 2, m, l);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "start L");
  CHECK_STR(ST(in, p), "RUNNING");
  /* MultiConditionNode is no ConditionNode: Parallel's Step leaves it SUCCESS */
  CHECK_STR(ST(in, m), "SUCCESS");
  think(in, 1);
  /* ... and its Visit does not visit a SUCCESS child: cont is not consulted */
  CHECK_STR(logs(), "L");
  CHECK_STR(ST(in, p), "RUNNING");
  L.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, p), "SUCCESS");
  CHECK_STR(ST(in, m), "READY");
  CHECK_NUM(field(in, m, BT_FIELD_RUNNING), 1);
  /* re-entry uses continue() (the flag survived), which is false: the Parallel fails at once */
  L.status = BT_RUNNING;
  think(in, 3);
  CHECK_STR(logs(), "cont");
  CHECK_STR(LST(in, p), "FAILED");
  CHECK_STR(LST(in, l), "READY");
  think(in, 4);
  CHECK_STR(logs(), "start L");
  CHECK_STR(LST(in, p), "RUNNING");
  /* bt_inst_reset: statuses go READY, the flag stays */
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_STR(ST(in, m), "READY");
  CHECK_NUM(field(in, m, BT_FIELD_RUNNING), 1);
  Cn.result = 1;
  think(in, 5);
  CHECK_STR(logs(), "cont L");
  bt_inst_free(in);
}

/* ---- ConditionWaitNode ---- */

static void test_conditionwait(void) {
  logs();
  leaf W = FN("W", 0);
  bt_graph *g = new_graph();
  int w = add_fn(g, BT_CONDITIONWAIT, &W, NULL);
  bt_inst *in = build(g, w, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Wait");
  think(in, 0);
  CHECK_STR(logs(), "W");
  CHECK_STR(ST(in, w), "RUNNING");
  /* it never calls Sleep: a RUNNING leaf without deadline sleeps 0 */
  CHECK_NUM(sleep_of(in), 0);
  T = 50;
  CHECK_NUM(sleep_of(in), 0);
  think(in, 51);
  CHECK_STR(logs(), "W");
  CHECK_STR(ST(in, w), "RUNNING");
  W.result = 1;
  think(in, 52);
  CHECK_STR(LST(in, w), "SUCCESS");
  CHECK_STR(ST(in, w), "READY");
  W.result = -1;
  think(in, 53);
  CHECK_STR(LST(in, w), "FAILED"); /* an error fails the node */
  bt_inst_free(in);
}

/* ---- ActionNode ---- */

static void test_action(void) {
  logs();
  leaf A = FN("A", 0);
  bt_graph *g = new_graph();
  int a = add_fn(g, BT_ACTION, &A, NULL);
  bt_inst *in = build(g, a, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "ActionNode");
  think(in, 0);
  /* self.action(); self.status = SUCCESS, whatever action returns */
  CHECK_STR(logs(), "A");
  CHECK_STR(LST(in, a), "SUCCESS");
  A.result = 1;
  think(in, 1);
  CHECK_STR(LST(in, a), "SUCCESS");
  A.result = -1;
  think(in, 2);
  CHECK_STR(LST(in, a), "FAILED"); /* an error fails the node */
  bt_inst_free(in);
}

/* ---- WaitNode ---- */

static void test_wait_fixed(void) {
  logs();
  bt_graph *g = new_graph();
  int w = add_node(g, BT_WAIT, NULL, 3, 0);
  bt_inst *in = build(g, w, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Wait");
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), NIL_VALUE);
  think(in, 10);
  CHECK_STR(ST(in, w), "RUNNING");
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 13);
  /* the documented deviation: Sleep(wake_time - now), so the sleep time is the time left */
  CHECK_NUM(sleep_of(in), 3);
  CHECK_NUM(field(in, w, BT_FIELD_NEXTUPDATETIME), 13);
  T = 11;
  CHECK_NUM(sleep_of(in), 2);
  CHECK_STR(dump(in), "Wait - RUNNING <RUNNING> (2.00)>2.00\n");
  think(in, 12.5);
  CHECK_STR(ST(in, w), "RUNNING");
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 13); /* set only on enter */
  CHECK_NUM(sleep_of(in), 0.5);
  think(in, 13); /* now >= wake_time */
  CHECK_STR(LST(in, w), "SUCCESS");
  CHECK_STR(ST(in, w), "READY");
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  think(in, 20); /* enters again */
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 23);
  bt_inst_free(in);

  /* Wait(0) succeeds in the Visit that enters it */
  g = new_graph();
  w = add_node(g, BT_WAIT, NULL, 0, 0);
  in = build(g, w, 0);
  think(in, 5);
  CHECK_STR(LST(in, w), "SUCCESS");
  bt_inst_free(in);
}

/* The deviation is computed as Sleep(wake_time - now) would: nextupdatetime = now + (wake_time -
 * now), then GetSleepTime = nextupdatetime - now, with double rounding at each step. */
static void test_wait_sleep_rounding(void) {
  logs();
  bt_graph *g = new_graph();
  int w = add_node(g, BT_WAIT, NULL, 3.3, 0);
  bt_inst *in = build(g, w, 0);
  think(in, 0.1);
  double wake = 0.1 + 3.3;
  CHECK(field(in, w, BT_FIELD_WAKE_TIME) == wake);
  think(in, 0.7);
  double nut = 0.7 + (wake - 0.7);
  CHECK(nut != wake); /* the two roundings differ here */
  CHECK(field(in, w, BT_FIELD_NEXTUPDATETIME) == nut);
  CHECK(sleep_of(in) == nut - 0.7);
  bt_inst_free(in);
}

static void test_wait_fn(void) {
  logs();
  leaf F = FN("time", 0);
  F.value = 1.5;
  bt_graph *g = new_graph();
  int w = add_timed_fn(g, BT_WAIT, &F, NULL);
  bt_inst *in = build(g, w, 0);
  think(in, 10);
  CHECK_STR(logs(), "time");
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 11.5);
  CHECK_NUM(sleep_of(in), 1.5);
  think(in, 11); /* FunctionOrValue is evaluated on enter only */
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, w), "RUNNING");
  CHECK_NUM(sleep_of(in), 0.5);
  think(in, 11.5);
  CHECK_STR(LST(in, w), "SUCCESS");
  F.value = 2;
  think(in, 12);
  CHECK_STR(logs(), "time");
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 14);
  F.result = -1; /* an error from the time function fails the node; it is RUNNING, so no call */
  think(in, 13);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, w), "RUNNING");
  bt_inst_free(in);

  F.result = -1;
  g = new_graph();
  w = add_timed_fn(g, BT_WAIT, &F, NULL);
  in = build(g, w, 0);
  think(in, 0);
  CHECK_STR(logs(), "time");
  CHECK_STR(LST(in, w), "FAILED");
  bt_inst_free(in);
}

/* ---- decorators ---- */

static void check_decorator(int kind, int child_status, const char *expect) {
  logs();
  leaf L = LEAF("L", child_status);
  bt_graph *g = new_graph();
  int d = add_node(g, kind, NULL, 0, 0);
  int l = add_leaf(g, &L);
  set_kids(g, d, 1, l);
  bt_inst *in = build(g, d, 0);
  think(in, 0);
  CHECK_STR(logs(), "L");
  CHECK_STR(LST(in, d), expect);
  CHECK_STR(LST(in, l), bt_status_name(child_status));
  bt_inst_free(in);
}

static void test_decorators(void) {
  /* NotDecorator: SUCCESS <-> FAILED, others pass through */
  check_decorator(BT_NOT, BT_SUCCESS, "FAILED");
  check_decorator(BT_NOT, BT_FAILED, "SUCCESS");
  check_decorator(BT_NOT, BT_RUNNING, "RUNNING");
  check_decorator(BT_NOT, BT_READY, "READY");
  /* FailIfRunningDecorator: RUNNING -> FAILED */
  check_decorator(BT_FAILIFRUNNING, BT_RUNNING, "FAILED");
  check_decorator(BT_FAILIFRUNNING, BT_SUCCESS, "SUCCESS");
  check_decorator(BT_FAILIFRUNNING, BT_FAILED, "FAILED");
  check_decorator(BT_FAILIFRUNNING, BT_READY, "READY");
  /* FailIfSuccessDecorator: SUCCESS -> FAILED */
  check_decorator(BT_FAILIFSUCCESS, BT_SUCCESS, "FAILED");
  check_decorator(BT_FAILIFSUCCESS, BT_FAILED, "FAILED");
  check_decorator(BT_FAILIFSUCCESS, BT_RUNNING, "RUNNING");
  check_decorator(BT_FAILIFSUCCESS, BT_READY, "READY");

  /* default names */
  bt_graph *g = new_graph();
  int n = add_node(g, BT_NOT, NULL, 0, 0);
  int fr = add_node(g, BT_FAILIFRUNNING, NULL, 0, 0);
  int fs = add_node(g, BT_FAILIFSUCCESS, NULL, 0, 0);
  int a = add_node(g, BT_BEHAVIOUR, "a", 0, 0);
  set_kids(g, n, 1, fr);
  set_kids(g, fr, 1, fs);
  set_kids(g, fs, 1, a);
  bt_inst *in = build(g, n, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Not");
  CHECK_STR(bt_def_name(bt_inst_def(in), 1), "FailIfRunning");
  CHECK_STR(bt_def_name(bt_inst_def(in), 2), "FailIfSuccess");
  bt_inst_free(in);
}

/* FailIfRunning lets a behaviour act once per evaluation: the decorator fails, Step resets it and
 * its child, so the child enters again at every visit. */
static void test_failifrunning_side_effect(void) {
  logs();
  leaf F = LEAF("Face", BT_RUNNING), W = LEAF("Wander", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int d = add_node(g, BT_FAILIFRUNNING, NULL, 0, 0);
  int f = add_leaf(g, &F), w = add_leaf(g, &W);
  set_kids(g, d, 1, f);
  set_kids(g, r, 2, d, w);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(logs(), "Face Wander");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_STR(ST(in, f), "READY");
  CHECK_STR(LST(in, f), "RUNNING");
  think(in, 1.5);
  CHECK_STR(logs(), "Face Wander");
  CHECK_INT(F.starts, 2); /* entered again, not continued */
  CHECK_INT(W.starts, 1); /* continued */
  bt_inst_free(in);
}

/* ---- LatchNode ---- */

static void test_latch_cooldown(void) {
  logs();
  leaf A = FN("A", 1);
  bt_graph *g = new_graph();
  int la = add_node(g, BT_LATCH, NULL, 5, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, la, 1, a);
  bt_inst *in = build(g, la, 0);
  /* "Latch (" .. tostring(latchduration) .. ")" */
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Latch (5)");
  /* currentlatchduration = 0, lastlatchtime = -math.huge */
  double last = field(in, la, BT_FIELD_LASTLATCHTIME);
  CHECK(isinf(last) && last < 0);
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 0);
  think(in, 0);
  CHECK_STR(logs(), "A");
  CHECK_STR(LST(in, la), "SUCCESS");
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 0);
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 5);
  think(in, 3); /* 3 > 5 + 0 is false */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, la), "FAILED");
  think(in, 5); /* strictly greater */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, la), "FAILED");
  think(in, 5.5);
  CHECK_STR(logs(), "A");
  CHECK_STR(LST(in, la), "SUCCESS");
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 5.5);

  /* a Latch that is SUCCESS or FAILED does nothing when visited */
  bt_node_set_status(in, 0, BT_SUCCESS);
  T = 100;
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, la), "SUCCESS");
  bt_node_set_status(in, 0, BT_FAILED);
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, la), "FAILED");
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 5.5);
  bt_inst_free(in);

  g = new_graph();
  la = add_node(g, BT_LATCH, NULL, 2.5, 0);
  a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, la, 1, a);
  in = build(g, la, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Latch (2.5)");
  /* lastlatchtime = -inf: even a negative clock lets the first visit in */
  think(in, -1000);
  CHECK_STR(logs(), "A");
  CHECK_STR(LST(in, la), "SUCCESS");
  bt_inst_free(in);
}

/* GetTime() > self.currentlatchduration + self.lastlatchtime, in that order */
static void test_latch_time_order(void) {
  logs();
  leaf A = FN("A", 1);
  bt_graph *g = new_graph();
  int la = add_node(g, BT_LATCH, NULL, 0.2, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, la, 1, a);
  bt_inst *in = build(g, la, 0);
  think(in, 0.1);
  CHECK_STR(logs(), "A");
  /* 0.2 + 0.1 is 0.30000000000000004: equal, not greater (now - last > dur would pass) */
  think(in, 0.1 + 0.2);
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, la), "FAILED");
  bt_inst_free(in);
}

static void test_latch_from_entry(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  int la = add_node(g, BT_LATCH, NULL, 2, 0);
  int l = add_leaf(g, &L);
  set_kids(g, la, 1, l);
  bt_inst *in = build(g, la, 0);
  think(in, 0);
  think(in, 1);
  think(in, 2); /* while RUNNING the latch only copies its child */
  CHECK_STR(logs(), "L L L");
  CHECK_STR(ST(in, la), "RUNNING");
  L.status = BT_SUCCESS;
  think(in, 3);
  CHECK_STR(LST(in, la), "SUCCESS");
  L.status = BT_RUNNING;
  /* the cooldown counts from entry (0), not from the end (3): 3.5 > 0 + 2 */
  think(in, 3.5);
  CHECK_STR(logs(), "L L");
  CHECK_STR(ST(in, la), "RUNNING");
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 3.5);
  bt_inst_free(in);
}

static void test_latch_fn(void) {
  logs();
  leaf D = FN("dur", 0), A = FN("A", 1);
  D.value = 1;
  bt_graph *g = new_graph();
  int la = add_timed_fn(g, BT_LATCH, &D, "Latch");
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, la, 1, a);
  bt_inst *in = build(g, la, 0);
  think(in, 0);
  CHECK_STR(logs(), "dur A");
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 1);
  D.value = 10;
  think(in, 0.5); /* 0.5 > 1 + 0 is false: the function is not called */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, la), "FAILED");
  think(in, 1.5);
  CHECK_STR(logs(), "dur A");
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 10);
  think(in, 11); /* 11 > 10 + 1.5 is false */
  CHECK_STR(logs(), "");
  think(in, 12);
  CHECK_STR(logs(), "dur A");
  bt_inst_free(in);
}

int main(void) {
  test_behaviour_default();
  test_c_leaf_running_and_sleep();
  test_stale_sleep_deadline();
  test_leaf_running_never_slept();
  test_negative_sleep();
  test_ops_default();
  test_ops_reset();
  test_ops_step();
  test_ops_sleep_and_describe();
  test_condition();
  test_multicondition_alone();
  test_ifthendowhile();
  test_conditionwait();
  test_action();
  test_wait_fixed();
  test_wait_sleep_rounding();
  test_wait_fn();
  test_decorators();
  test_failifrunning_side_effect();
  test_latch_cooldown();
  test_latch_time_order();
  test_latch_from_entry();
  test_latch_fn();
  return check_report("test_leaves");
}
