/* SPDX-License-Identifier: MIT */
/* test_kit.c: the node kinds bt adds beside Don't Starve's (docs/nodes.md): tasks with the
 * Behaviour Tree Starter Kit's contract (start, update, finish told once, ABORTED when
 * interrupted), PolicyParallel, Monitor, ActiveSelector, Repeat, AlwaysSucceed, AlwaysFail,
 * Cooldown and Timeout. Expected values follow the semantics documented there. */
#include "harness.h"

/* ---- a scripted task ---- */

typedef struct task_leaf {
  const char *name;
  int results[8]; /* what the n-th update of a run returns; the last one repeats */
  int nresults;
  int start_result;
  int run_updates; /* updates in the current run */
  int starts, updates, finishes;
} task_leaf;

#define TASK(nm, ...) \
  { .name = (nm), .results = {__VA_ARGS__}, .nresults = sizeof((int[]){__VA_ARGS__}) / sizeof(int) }

static void log_event(const char *what, const char *name, const char *status) {
  char tmp[128];
  snprintf(tmp, sizeof tmp, status ? "%s:%s:%s" : "%s:%s", what, name, status ? status : "");
  log_add(tmp);
}

static int task_start(bt_call *c) {
  task_leaf *t = c->ud;
  t->starts++;
  t->run_updates = 0;
  log_event("start", t->name, NULL);
  return t->start_result;
}

static int task_update(bt_call *c) {
  task_leaf *t = c->ud;
  t->updates++;
  int i = t->run_updates < t->nresults ? t->run_updates : t->nresults - 1;
  t->run_updates++;
  log_event("update", t->name, NULL);
  return t->results[i];
}

static void task_finish(bt_call *c, bt_status s) {
  task_leaf *t = c->ud;
  t->finishes++;
  log_event("finish", t->name, bt_status_name(s));
}

static const bt_task TASK_CALLS = {task_start, task_update, task_finish};

static int add_task(bt_graph *g, task_leaf *t) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.name = t->name;
  s.task = &TASK_CALLS;
  s.ud = t;
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

#define R BT_RUNNING
#define S BT_SUCCESS
#define F BT_FAILED

/* ---- the contract ---- */

static void test_task_run(void) {
  logs();
  task_leaf A = TASK("A", R, R, S);
  bt_graph *g = new_graph();
  int a = add_task(g, &A);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  CHECK_STR(logs(), "start:A update:A");
  CHECK_STR(LST(in, a), "RUNNING");
  CHECK_NUM(sleep_of(in), 0); /* a running task is updated at every think */
  think(in, 2);
  CHECK_STR(logs(), "update:A");
  think(in, 3);
  CHECK_STR(logs(), "update:A finish:A:SUCCESS");
  CHECK_STR(LST(in, a), "SUCCESS");
  think(in, 4); /* a new run */
  CHECK_STR(logs(), "start:A update:A");
  CHECK_INT(A.starts, 2);
  CHECK_INT(A.finishes, 1);
  bt_inst_free(in); /* freeing is no interruption: no finish */
  CHECK_STR(logs(), "");
}

static void test_task_start_fails(void) {
  logs();
  task_leaf A = TASK("A", S);
  A.start_result = -1;
  bt_graph *g = new_graph();
  int a = add_task(g, &A);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  CHECK_STR(logs(), "start:A finish:A:FAILED");
  CHECK_STR(LST(in, a), "FAILED");
  bt_inst_free(in);
}

static void test_task_bad_result_fails(void) {
  logs();
  task_leaf A = TASK("A", 7);
  bt_graph *g = new_graph();
  int a = add_task(g, &A);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  CHECK_STR(logs(), "start:A update:A finish:A:FAILED");
  bt_inst_free(in);
}

/* Without update the task succeeds at once; without start or finish nothing is called. */
static int count_finish;
static void only_finish(bt_call *c, bt_status s) {
  (void)c;
  count_finish += s == BT_SUCCESS;
}
static void test_task_optional_calls(void) {
  static const bt_task calls = {NULL, NULL, only_finish};
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.task = &calls;
  int a = bt_graph_add(g, &s);
  REQUIRE(a >= 0);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  CHECK_STR(LST(in, a), "SUCCESS");
  CHECK_INT(count_finish, 1);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Task");
  bt_inst_free(in);
}

/* bt_node_abort: a task whose run is under way is told ABORTED, once; other nodes and a task
 * between runs are left as they are. */
static void test_task_abort(void) {
  logs();
  task_leaf A = TASK("A", R), B = TASK("B", S);
  bt_graph *g = new_graph();
  int par = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int a = add_task(g, &A), b = add_task(g, &B);
  set_kids(g, par, 2, a, b);
  bt_inst *in = build(g, par, 0);
  think(in, 1);
  CHECK_STR(logs(), "start:A update:A start:B update:B finish:B:SUCCESS");
  CHECK_INT(bt_node_abort(in, at(in, b)), BT_OK); /* B's run ended */
  CHECK_INT(bt_node_abort(in, 0), BT_OK);         /* the Parallel has no run */
  CHECK_STR(logs(), "");
  CHECK_INT(bt_node_abort(in, at(in, a)), BT_OK);
  CHECK_STR(logs(), "finish:A:ABORTED");
  CHECK_INT(bt_node_abort(in, at(in, a)), BT_OK);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, a), "RUNNING"); /* its status is the discarded tree's business */
  CHECK_INT(bt_node_abort(in, 3), BT_EINVAL);
  CHECK_INT(bt_node_abort(in, -1), BT_EINVAL);
  bt_inst_free(in);
  CHECK_STR(logs(), "");
}

/* A task sleeps as long as its last update asked, not longer. */
static int sleepy_update(bt_call *c) {
  task_leaf *t = c->ud;
  t->updates++;
  if (t->updates == 1) bt_node_sleep(c->inst, c->node, 10);
  return BT_RUNNING;
}
static void test_task_sleep(void) {
  static const bt_task calls = {NULL, sleepy_update, NULL};
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.task = &calls;
  s.ud = &A;
  int a = bt_graph_add(g, &s);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  CHECK_NUM(sleep_of(in), 10);
  think(in, 2); /* the second update asks nothing: updated at the next think */
  CHECK_NUM(sleep_of(in), 0);
  bt_inst_free(in);
}

/* A Priority that switches to a higher branch interrupts the lower one: ABORTED, once. */
static void test_abort_by_priority(void) {
  logs();
  task_leaf H = TASK("H", R), L = TASK("L", R);
  leaf C = FN("C", 0);
  bt_graph *g = new_graph();
  int p = add_prio(g, "P", 1);
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "C");
  int h = add_task(g, &H), l = add_task(g, &L);
  set_kids(g, seq, 2, c, h);
  set_kids(g, p, 2, seq, l);
  bt_inst *in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "C start:L update:L");
  think(in, 0.5); /* between evaluations: the running branch only */
  CHECK_STR(logs(), "update:L");
  C.result = 1;
  think(in, 1.5);
  CHECK_STR(logs(), "C start:H update:H finish:L:ABORTED");
  CHECK_STR(LST(in, l), "READY");
  think(in, 1.7);
  think(in, 3);
  CHECK_INT(L.finishes, 1);
  CHECK_INT(H.finishes, 0);
  bt_inst_free(in);
}

/* A WhileNode (Parallel of a ConditionNode and the action) whose condition fails. */
static void test_abort_by_guard(void) {
  logs();
  task_leaf A = TASK("A", R);
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  int par = add_node(g, BT_PARALLEL, "While", 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "C");
  int a = add_task(g, &A);
  set_kids(g, par, 2, c, a);
  bt_inst *in = build(g, par, 0);
  think(in, 1);
  think(in, 2);
  CHECK_STR(logs(), "C start:A update:A C update:A");
  C.result = 0;
  think(in, 3);
  CHECK_STR(logs(), "C finish:A:ABORTED");
  CHECK_STR(LST(in, par), "FAILED");
  CHECK_INT(A.finishes, 1);
  bt_inst_free(in);
}

/* A ParallelNodeAny ends when one child is done: the others are interrupted. */
static void test_abort_by_parallel_end(void) {
  logs();
  task_leaf A = TASK("A", R, S), B = TASK("B", R);
  bt_graph *g = new_graph();
  int par = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  int a = add_task(g, &A), b = add_task(g, &B);
  set_kids(g, par, 2, a, b);
  bt_inst *in = build(g, par, 0);
  think(in, 1);
  CHECK_STR(logs(), "start:A update:A start:B update:B");
  think(in, 2);
  CHECK_STR(logs(), "update:A finish:A:SUCCESS update:B finish:B:ABORTED");
  CHECK_STR(LST(in, par), "SUCCESS");
  bt_inst_free(in);
}

/* Resetting and stopping the tree interrupt the running task; a second stop tells nothing. */
static void test_abort_by_reset_and_stop(void) {
  logs();
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int a = add_task(g, &A);
  set_kids(g, seq, 1, a);
  bt_inst *in = build(g, seq, 0);
  think(in, 1);
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_STR(logs(), "start:A update:A finish:A:ABORTED");
  CHECK_INT(bt_inst_reset(in), BT_OK); /* nothing runs any more */
  think(in, 2);
  CHECK_STR(logs(), "start:A update:A");
  bt_inst_stop(in);
  bt_inst_stop(in);
  CHECK_STR(logs(), "finish:A:ABORTED");
  think(in, 3); /* a stopped run is over: the next visit starts another */
  CHECK_STR(logs(), "start:A update:A");
  CHECK_INT(A.finishes, 2);
  bt_inst_free(in);
}

/* An event resets the running child of its EventNode. */
static void test_abort_by_event(void) {
  logs();
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  int e = add_node(g, BT_EVENT, "E", 0, 0);
  int a = add_task(g, &A);
  set_kids(g, e, 1, a);
  bt_inst *in = build(g, e, 0);
  CHECK_INT(bt_inst_fire_event(in, 0), BT_OK);
  think(in, 1);
  CHECK_STR(logs(), "start:A update:A");
  CHECK_INT(bt_inst_fire_event(in, 0), BT_OK);
  CHECK_STR(logs(), "finish:A:ABORTED");
  bt_inst_free(in);
}

/* A task's callbacks that stop the tree or reset their own node end the run once. */
static bt_inst *self_in;
static int stop_in_start(bt_call *c) {
  task_leaf *t = c->ud;
  t->starts++;
  log_event("start", t->name, NULL);
  bt_inst_stop(self_in);
  return 0;
}
static int stop_in_update(bt_call *c) {
  (void)c;
  log_add("update");
  bt_inst_stop(self_in);
  return BT_RUNNING;
}
static void test_task_reentry(void) {
  static const bt_task calls1 = {stop_in_start, task_update, task_finish};
  static const bt_task calls2 = {task_start, stop_in_update, task_finish};
  const bt_task *calls[] = {&calls1, &calls2};
  const char *expect[] = {"start:A finish:A:ABORTED", "start:A update finish:A:ABORTED"};
  for (int i = 0; i < 2; i++) {
    logs();
    task_leaf A = TASK("A", R);
    bt_graph *g = new_graph();
    bt_spec s;
    memset(&s, 0, sizeof s);
    s.kind = BT_TASK;
    s.name = "A";
    s.task = calls[i];
    s.ud = &A;
    int a = bt_graph_add(g, &s);
    bt_inst *in = self_in = build(g, a, 0);
    think(in, 1);
    CHECK_STR(logs(), expect[i]);
    CHECK_INT(A.finishes, 1);
    bt_inst_stop(in);
    CHECK_STR(logs(), "");
    bt_inst_free(in);
  }
}

/* ---- ActiveSelector ---- */

static void test_active_selector(void) {
  logs();
  task_leaf H = TASK("H", R), L = TASK("L", R);
  leaf C = FN("C", 0);
  bt_graph *g = new_graph();
  int as = add_node(g, BT_ACTIVE_SELECTOR, NULL, 0, 0);
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "C");
  int h = add_task(g, &H), l = add_task(g, &L);
  set_kids(g, seq, 2, c, h);
  set_kids(g, as, 2, seq, l);
  bt_inst *in = build(g, as, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "ActiveSelector");
  think(in, 0);
  CHECK_STR(logs(), "C start:L update:L");
  think(in, 0.01); /* unlike a Priority, the higher branch is tested at every think */
  CHECK_STR(logs(), "C update:L");
  CHECK_STR(LST(in, as), "RUNNING");
  C.result = 1;
  think(in, 0.02);
  CHECK_STR(logs(), "C start:H update:H finish:L:ABORTED");
  CHECK_STR(LST(in, seq), "RUNNING");
  CHECK_STR(LST(in, l), "READY");
  think(in, 0.03); /* the running higher branch resumes (its condition is not tested again) */
  CHECK_STR(logs(), "update:H");
  H.results[0] = S;
  H.run_updates = 0;
  think(in, 0.04);
  CHECK_STR(logs(), "update:H finish:H:SUCCESS");
  CHECK_STR(LST(in, as), "SUCCESS");
  C.result = 0;
  L.results[0] = F;
  think(in, 0.05);
  CHECK_STR(logs(), "C start:L update:L finish:L:FAILED");
  CHECK_STR(LST(in, as), "FAILED");
  bt_inst_free(in);
}

/* ---- PolicyParallel ---- */

/* Children A, B, C run the scripts; returns the node's status after each think, as letters. */
static void run_policy(unsigned flags, task_leaf *a, task_leaf *b, task_leaf *c, const char *expect) {
  logs();
  bt_graph *g = new_graph();
  int p = add_node(g, BT_POLICY_PARALLEL, NULL, 0, flags);
  int ia = add_task(g, a), ib = add_task(g, b), ic = add_task(g, c);
  set_kids(g, p, 3, ia, ib, ic);
  bt_inst *in = build(g, p, 0);
  char got[16] = "";
  for (int i = 0; i < 4 && (i == 0 || bt_node_last(in, 0) == BT_RUNNING); i++) {
    think(in, i);
    got[strlen(got)] = bt_status_name(bt_node_last(in, 0))[0];
  }
  CHECK_STR(got, expect);
  bt_inst_free(in);
}

static void test_policy_parallel(void) {
  /* success all, failure one (the default) */
  {
    task_leaf A = TASK("A", S), B = TASK("B", R, S), C = TASK("C", R, R, S);
    run_policy(0, &A, &B, &C, "RRS");
    CHECK_STR(logs(), "start:A update:A finish:A:SUCCESS start:B update:B start:C update:C "
                      "update:B finish:B:SUCCESS update:C update:C finish:C:SUCCESS");
  }
  {
    task_leaf A = TASK("A", S), B = TASK("B", R, F), C = TASK("C", R);
    run_policy(0, &A, &B, &C, "RF");
    CHECK_STR(logs(), "start:A update:A finish:A:SUCCESS start:B update:B start:C update:C "
                      "update:B finish:B:FAILED finish:C:ABORTED");
  }
  /* success one: the first success ends it, later children are not visited */
  {
    task_leaf A = TASK("A", R), B = TASK("B", R, S), C = TASK("C", R);
    run_policy(BT_SPEC_SUCCESS_ONE, &A, &B, &C, "RS");
    CHECK_STR(logs(), "start:A update:A start:B update:B start:C update:C "
                      "update:A update:B finish:B:SUCCESS finish:A:ABORTED finish:C:ABORTED");
  }
  /* failure all: failures are counted until every child failed */
  {
    task_leaf A = TASK("A", F), B = TASK("B", R, F), C = TASK("C", R, R, F);
    run_policy(BT_SPEC_FAILURE_ALL, &A, &B, &C, "RRF");
  }
  /* failure all, success all, a mix: when nothing runs any more, it fails */
  {
    task_leaf A = TASK("A", F), B = TASK("B", R, S), C = TASK("C", R);
    run_policy(BT_SPEC_FAILURE_ALL, &A, &B, &C, "RRRR");
  }
  {
    task_leaf A = TASK("A", F), B = TASK("B", R, S), C = TASK("C", R, S);
    run_policy(BT_SPEC_FAILURE_ALL, &A, &B, &C, "RF");
  }
  /* success one, failure all */
  {
    task_leaf A = TASK("A", F), B = TASK("B", R, F), C = TASK("C", R, R, S);
    run_policy(BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL, &A, &B, &C, "RRS");
  }
  {
    task_leaf A = TASK("A", F), B = TASK("B", F), C = TASK("C", F);
    run_policy(BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL, &A, &B, &C, "F");
  }
  /* finished children are not visited again while the node runs */
  {
    task_leaf A = TASK("A", S), B = TASK("B", R, R, S), C = TASK("C", S);
    run_policy(0, &A, &B, &C, "RRS");
    CHECK_INT(A.updates, 1);
    CHECK_INT(C.updates, 1);
    CHECK_INT(B.updates, 3);
  }
}

/* ---- Monitor ---- */

static void test_monitor(void) {
  logs();
  leaf C1 = FN("C1", 1), C2 = FN("C2", 1);
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  int m = add_node(g, BT_MONITOR, NULL, 0, 0);
  int c1 = add_fn(g, BT_CONDITION, &C1, "C1"), c2 = add_fn(g, BT_CONDITION, &C2, "C2");
  int a = add_task(g, &A);
  set_kids(g, m, 3, c1, c2, a);
  bt_inst *in = build(g, m, 0);
  think(in, 1);
  think(in, 2);
  CHECK_STR(logs(), "C1 C2 start:A update:A C1 C2 update:A");
  CHECK_STR(LST(in, m), "RUNNING");
  C2.result = 0;
  think(in, 3);
  CHECK_STR(logs(), "C1 C2 finish:A:ABORTED");
  CHECK_STR(LST(in, m), "FAILED");
  C2.result = 1;
  A.results[0] = S;
  think(in, 4);
  CHECK_STR(logs(), "C1 C2 start:A update:A finish:A:SUCCESS");
  CHECK_STR(LST(in, m), "SUCCESS");
  bt_inst_free(in);
}

/* ---- Repeat ---- */

static void test_repeat(void) {
  logs();
  task_leaf A = TASK("A", S);
  bt_graph *g = new_graph();
  int r = add_node(g, BT_REPEAT, NULL, 3, 0);
  int a = add_task(g, &A);
  set_kids(g, r, 1, a);
  bt_inst *in = build(g, r, 0);
  CHECK_STR(bt_def_name(bt_inst_def(in), 0), "Repeat");
  think(in, 1);
  CHECK_STR(LST(in, r), "RUNNING");
  CHECK_NUM(sleep_of(in), 0); /* the next pass at the next think */
  CHECK_NUM(field(in, r, BT_FIELD_REP), 1);
  think(in, 2);
  CHECK_STR(LST(in, r), "RUNNING");
  think(in, 3);
  CHECK_STR(LST(in, r), "SUCCESS");
  CHECK_INT(A.starts, 3);
  CHECK_INT(A.finishes, 3);
  think(in, 4); /* entered again: counts from 0 */
  CHECK_STR(LST(in, r), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_REP), 1);
  A.results[0] = F;
  think(in, 5);
  CHECK_STR(LST(in, r), "FAILED");
  bt_inst_free(in);

  /* nil: for ever; a running child is waited for */
  task_leaf B = TASK("B", R, S);
  g = new_graph();
  r = add_node(g, BT_REPEAT, NULL, 0, BT_SPEC_NIL_PARAM);
  int b = add_task(g, &B);
  set_kids(g, r, 1, b);
  in = build(g, r, 0);
  for (int i = 0; i < 10; i++) think(in, i);
  CHECK_STR(LST(in, r), "RUNNING");
  CHECK_INT(B.finishes, 5);
  CHECK_NUM(field(in, r, BT_FIELD_REP), 5);
  bt_inst_free(in);
}

/* ---- AlwaysSucceed, AlwaysFail ---- */

static void test_always(void) {
  int kinds[] = {BT_SUCCEED, BT_FAIL};
  const char *ends[] = {"SUCCESS", "FAILED"};
  for (int k = 0; k < 2; k++) {
    for (int r = BT_SUCCESS; r <= BT_FAILED; r++) {
      task_leaf A = TASK("A", R, r);
      bt_graph *g = new_graph();
      int d = add_node(g, kinds[k], NULL, 0, 0);
      int a = add_task(g, &A);
      set_kids(g, d, 1, a);
      bt_inst *in = build(g, d, 0);
      think(in, 1);
      CHECK_STR(LST(in, d), "RUNNING");
      think(in, 2);
      CHECK_STR(LST(in, d), ends[k]);
      bt_inst_free(in);
    }
  }
}

/* ---- Cooldown ---- */

static void test_cooldown(void) {
  logs();
  task_leaf A = TASK("A", R, S);
  leaf B = FN("B", 1);
  bt_graph *g = new_graph();
  int sel = add_node(g, BT_SELECTOR, NULL, 0, 0);
  int cd = add_node(g, BT_COOLDOWN, NULL, 5, 0);
  int a = add_task(g, &A);
  int b = add_fn(g, BT_ACTION, &B, "B");
  set_kids(g, cd, 1, a);
  set_kids(g, sel, 2, cd, b);
  bt_inst *in = build(g, sel, 0);
  think(in, 1);
  think(in, 2); /* A succeeds at 2: cooling until 7 */
  CHECK_STR(logs(), "start:A update:A update:A finish:A:SUCCESS");
  think(in, 3);
  CHECK_STR(logs(), "B");
  CHECK_STR(LST(in, cd), "FAILED");
  think(in, 6.9);
  CHECK_STR(logs(), "B");
  think(in, 7);
  CHECK_STR(logs(), "start:A update:A");
  /* interrupted while running: the cooldown starts then */
  CHECK_INT(bt_inst_reset(in), BT_OK);
  CHECK_STR(logs(), "finish:A:ABORTED");
  think(in, 8);
  CHECK_STR(logs(), "B");
  think(in, 12);
  CHECK_STR(logs(), "start:A update:A");
  bt_inst_free(in);
}

/* ---- Timeout ---- */

static void test_timeout(void) {
  logs();
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  int to = add_node(g, BT_TIMEOUT, NULL, 2, 0);
  int a = add_task(g, &A);
  set_kids(g, to, 1, a);
  bt_inst *in = build(g, to, 0);
  think(in, 10);
  CHECK_STR(LST(in, to), "RUNNING");
  T = 10.5;
  CHECK_NUM(sleep_of(in), 0); /* the task asks for every think */
  think(in, 11.9);
  CHECK_STR(logs(), "start:A update:A update:A");
  think(in, 12);
  CHECK_STR(logs(), "finish:A:ABORTED");
  CHECK_STR(LST(in, to), "FAILED");
  think(in, 13); /* entered again: a new deadline */
  CHECK_STR(LST(in, to), "RUNNING");
  bt_inst_free(in);

  /* sleeping children: the deadline bounds the sleep */
  leaf W = LEAF("W", BT_RUNNING);
  W.sleep = 10;
  g = new_graph();
  to = add_node(g, BT_TIMEOUT, NULL, 2, 0);
  int w = add_leaf(g, &W);
  set_kids(g, to, 1, w);
  in = build(g, to, 0);
  think(in, 0);
  T = 0.5;
  CHECK_NUM(sleep_of(in), 1.5);
  bt_inst_free(in);
}

/* ---- building ---- */

static void expect_refused(bt_graph *g, int root, int code, const char *msg) {
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, root), code);
  CHECK(d == NULL);
  CHECK_STR(bt_graph_errmsg(g), msg);
  bt_graph_free(g);
}

static void test_build_errors(void) {
  leaf X = LEAF("X", BT_SUCCESS);
  bt_graph *g = new_graph();
  int r = add_node(g, BT_REPEAT, "R", 0, 0);
  set_kids(g, r, 1, add_leaf(g, &X));
  expect_refused(g, r, BT_EINVAL, "node 0 'R': a RepeatNode repeats at least once, not 0");
  g = new_graph();
  r = add_node(g, BT_COOLDOWN, "C", -1, 0);
  set_kids(g, r, 1, add_leaf(g, &X));
  expect_refused(g, r, BT_EINVAL, "node 0 'C': CooldownDecorator needs a number of seconds, not -1");
  g = new_graph();
  r = add_node(g, BT_TIMEOUT, "T", NAN, 0);
  set_kids(g, r, 1, add_leaf(g, &X));
  expect_refused(g, r, BT_EINVAL, "node 0 'T': TimeoutDecorator needs a number of seconds, not nan");
  g = new_graph();
  r = add_node(g, BT_MONITOR, "M", 0, 0);
  expect_refused(g, r, BT_EINVAL, "node 0 'M': a MonitorNode needs a child to run");
  g = new_graph();
  r = add_node(g, BT_SUCCEED, "S", 0, 0);
  set_kids(g, r, 2, add_leaf(g, &X), add_leaf(g, &X));
  expect_refused(g, r, BT_EINVAL, "node 0 'S': AlwaysSucceedDecorator needs exactly one child, it has 2");
  g = new_graph();
  r = add_node(g, BT_TASK, "K", 0, 0);
  expect_refused(g, r, BT_EINVAL, "node 0 'K': a TaskNode needs its bt_task");
}

/* A saved state keeps a run under way: restored, the task is updated, not started again. */
static void test_save_keeps_run(void) {
  logs();
  task_leaf A = TASK("A", R);
  bt_graph *g = new_graph();
  int a = add_task(g, &A);
  bt_inst *in = build(g, a, 0);
  think(in, 1);
  size_t size = bt_inst_state_size(bt_inst_def(in));
  unsigned char *buf = malloc(size);
  REQUIRE(buf && bt_inst_save(in, buf, size) == BT_OK);
  bt_inst *copy = NULL;
  REQUIRE(bt_inst_create(&copy, (bt_def *)bt_inst_def(in), &HOST, NULL, 0) == BT_OK);
  CHECK_INT(bt_inst_restore(copy, buf, size), BT_OK);
  logs();
  think(copy, 2);
  CHECK_STR(logs(), "update:A");
  bt_inst_stop(copy);
  CHECK_STR(logs(), "finish:A:ABORTED");
  free(buf);
  bt_inst_free(copy);
  bt_inst_free(in);
}

int main(void) {
  test_task_run();
  test_task_start_fails();
  test_task_bad_result_fails();
  test_task_optional_calls();
  test_task_sleep();
  test_abort_by_priority();
  test_abort_by_guard();
  test_abort_by_parallel_end();
  test_abort_by_reset_and_stop();
  test_abort_by_event();
  test_task_reentry();
  test_task_abort();
  test_active_selector();
  test_policy_parallel();
  test_monitor();
  test_repeat();
  test_always();
  test_cooldown();
  test_timeout();
  test_build_errors();
  test_save_keeps_run();
  return check_report("test_kit");
}
