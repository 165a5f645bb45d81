/* SPDX-License-Identifier: MIT */
/* test_builder.c: the fluent C builder (bt_builder_*). It builds the same definition as the graph
 * API (bt_def_equal, bt_def_hash) that thinks the same; each mistake gets its error and message;
 * errors stick; end() closes the root and leaves the builder empty for the next tree; subtrees
 * resolve from the library given to end(). */
#include "harness.h"

static leaf hungry = FN("Hungry", 1), eat = FN("Eat", 1), far = FN("Far", 0), near = FN("Near", 1);
static leaf graze = LEAF("Graze", BT_RUNNING), lookout = FN("Lookout", 1);
static const bt_ops GRAZE_OPS = {leaf_visit, leaf_reset, NULL, leaf_stop, NULL, NULL};

/* Priority(0.25) { Sequence "Meal" { Condition Hungry, Action Eat },
 *                  Not { Condition Far },
 *                  Parallel "Watch" { ConditionWait Lookout, Graze },
 *                  Loop(3) { MultiCondition Near/Near "Nearby" },
 *                  Event "Event(hit)" { Latch(5) { Wait 2 } },
 *                  Random { FailIfRunning { Wait 1 }, FailIfSuccess { Action Eat } },
 *                  Selector { ParallelAny { Wait 3 } } } */
static bt_def *by_graph(void) {
  bt_graph *g = new_graph();
  int root = add_node(g, BT_PRIORITY, NULL, 0.25, 0);
  int meal = add_node(g, BT_SEQUENCE, "Meal", 0, 0);
  int h = add_fn(g, BT_CONDITION, &hungry, "Hungry"); /* added in order: graph ids count too */
  set_kids(g, meal, 2, h, add_fn(g, BT_ACTION, &eat, "Eat"));
  int no = add_node(g, BT_NOT, NULL, 0, 0);
  set_kids(g, no, 1, add_fn(g, BT_CONDITION, &far, "Far"));
  int watch = add_node(g, BT_PARALLEL, "Watch", 0, 0);
  bt_spec gs;
  memset(&gs, 0, sizeof gs);
  gs.kind = BT_BEHAVIOUR;
  gs.name = "Graze";
  gs.ops = &GRAZE_OPS;
  gs.ops_ud = &graze;
  int look = add_fn(g, BT_CONDITIONWAIT, &lookout, "Lookout");
  set_kids(g, watch, 2, look, bt_graph_add(g, &gs));
  int loop = add_node(g, BT_LOOP, NULL, 3, 0);
  set_kids(g, loop, 1, add_multi(g, &near, &near, "Nearby"));
  int ev = add_node(g, BT_EVENT, "Event(hit)", 0, 0);
  int latch = add_node(g, BT_LATCH, NULL, 5, 0);
  set_kids(g, latch, 1, add_node(g, BT_WAIT, NULL, 2, 0));
  set_kids(g, ev, 1, latch);
  int rnd = add_node(g, BT_RANDOM, NULL, 0, 0);
  int fir = add_node(g, BT_FAILIFRUNNING, NULL, 0, 0);
  set_kids(g, fir, 1, add_node(g, BT_WAIT, NULL, 1, 0));
  int fis = add_node(g, BT_FAILIFSUCCESS, NULL, 0, 0);
  set_kids(g, fis, 1, add_fn(g, BT_ACTION, &eat, "Eat"));
  set_kids(g, rnd, 2, fir, fis);
  int sel = add_node(g, BT_SELECTOR, NULL, 0, 0);
  int any = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  set_kids(g, any, 1, add_node(g, BT_WAIT, NULL, 3, 0));
  set_kids(g, sel, 1, any);
  set_kids(g, root, 7, meal, no, watch, loop, ev, rnd, sel);
  bt_def *d = NULL;
  REQUIRE(bt_def_create(&d, g, root) == BT_OK);
  bt_graph_free(g);
  return d;
}

static int by_builder(bt_builder *b, bt_def **out) {
  bt_builder_priority(b, NULL, 0.25);
  bt_builder_sequence(b, "Meal");
  bt_builder_condition(b, leaf_fn, &hungry, "Hungry");
  bt_builder_action(b, leaf_fn, &eat, "Eat");
  bt_builder_back(b);
  bt_builder_not(b, NULL);
  bt_builder_condition(b, leaf_fn, &far, "Far");
  bt_builder_back(b);
  bt_builder_parallel(b, "Watch");
  bt_builder_condition_wait(b, leaf_fn, &lookout, "Lookout");
  bt_builder_behaviour(b, &GRAZE_OPS, &graze, "Graze");
  bt_builder_back(b);
  bt_builder_loop(b, 3);
  bt_builder_multi_condition(b, leaf_fn, &near, leaf_fn, &near, "Nearby");
  bt_builder_back(b);
  bt_builder_event(b, "Event(hit)", 0);
  bt_builder_latch(b, NULL, 5);
  bt_builder_wait(b, 2);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_random(b, NULL);
  bt_builder_fail_if_running(b, NULL);
  bt_builder_wait(b, 1);
  bt_builder_back(b);
  bt_builder_fail_if_success(b, NULL);
  bt_builder_action(b, leaf_fn, &eat, "Eat");
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_selector(b, NULL);
  bt_builder_parallel_any(b, NULL);
  bt_builder_wait(b, 3);
  /* end() closes the root itself, but not the Selector and ParallelAny: close them */
  bt_builder_back(b);
  bt_builder_back(b);
  return bt_builder_end(b, out, NULL);
}

static void test_same_as_graph(void) {
  bt_builder *b = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_def *built = NULL, *graph = by_graph();
  CHECK_INT(by_builder(b, &built), BT_OK);
  CHECK_STR(bt_builder_errmsg(b), "");
  REQUIRE(built != NULL);
  CHECK(bt_def_equal(built, graph));
  CHECK(bt_def_hash(built) == bt_def_hash(graph));
  CHECK_INT(bt_def_size(built), 22);
  CHECK_STR(bt_def_name(built, 0), "Priority");
  CHECK_STR(bt_def_name(built, 12), "Latch (5)");
  /* the ops a node was built with, and none for the others */
  int grazes = 0;
  for (int i = 0; i < bt_def_size(built); i++) {
    int graze_node = strcmp(bt_def_name(built, i), "Graze") == 0;
    grazes += graze_node;
    CHECK(bt_def_ops(built, i) == (graze_node ? &GRAZE_OPS : NULL));
  }
  CHECK_INT(grazes, 1);
  CHECK(bt_def_ops(built, -1) == NULL);
  CHECK(bt_def_ops(built, bt_def_size(built)) == NULL);
  /* the same thinks: a log, the dump and the sleep time after each */
  bt_inst *x = NULL, *y = NULL;
  REQUIRE(bt_inst_create(&x, built, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  REQUIRE(bt_inst_create(&y, graph, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  double times[] = {0, 0.1, 0.5, 1, 2, 3.5, 7};
  for (int i = 0; i < 7; i++) {
    if (i == 2) hungry.result = 0;
    if (i == 3) far.result = 1;
    if (i == 4) lookout.result = 0;
    logs();
    think(x, times[i]);
    static char log_x[8192], dump_x[16384];
    snprintf(log_x, sizeof log_x, "%s", logs());
    snprintf(dump_x, sizeof dump_x, "%s", dump(x));
    double sx = sleep_of(x);
    think(y, times[i]);
    CHECK_STR(logs(), log_x);
    CHECK_STR(dump(y), dump_x);
    CHECK_NUM(sleep_of(y), sx);
  }
  bt_inst_free(x);
  bt_inst_free(y);
  /* reused after end(): the builder starts empty */
  bt_def *again = NULL;
  CHECK_INT(by_builder(b, &again), BT_OK);
  CHECK(bt_def_equal(again, graph));
  bt_def_release(again);
  bt_def_release(built);
  bt_def_release(graph);
  bt_builder_free(b);
}

#define CHECK_ERR(call, code, msg)            \
  do {                                        \
    CHECK_INT((call), (code));                \
    CHECK_STR(bt_builder_errmsg(b), (msg));   \
  } while (0)

static void test_errors(void) {
  bt_builder *b = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_def *d = (bt_def *)1;
  CHECK_STR(bt_builder_errmsg(b), "");

  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: nothing is open");
  /* sticky: later calls do nothing and return the first error; end() returns it and resets */
  CHECK_INT(bt_builder_sequence(b, "S"), BT_EINVAL);
  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL, "bt_builder_back: nothing is open");
  CHECK(d == NULL);

  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL, "bt_builder_end: nothing was built");

  bt_builder_sequence(b, "Root");
  bt_builder_wait(b, 1);
  bt_builder_back(b);
  CHECK_ERR(bt_builder_wait(b, 2), BT_EINVAL, "bt_builder_wait: a second root ('Wait'): the root is closed already");
  bt_builder_end(b, &d, NULL);

  bt_builder_selector(b, "Root");
  bt_builder_sequence(b, "x");
  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: Sequence 'x' has no children");
  bt_builder_end(b, &d, NULL);

  bt_builder_not(b, NULL);
  bt_builder_wait(b, 1);
  bt_builder_wait(b, 2);
  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: NotDecorator 'Not' needs exactly one child, it has 2");
  bt_builder_end(b, &d, NULL);

  bt_builder_fail_if_success(b, "F");
  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL,
            "bt_builder_back: FailIfSuccessDecorator 'F' needs exactly one child, it has 0");

  bt_builder_event(b, NULL, 0);
  bt_builder_wait(b, 1);
  bt_builder_wait(b, 1);
  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: Event 'Event' takes at most one child, it has 2");
  bt_builder_end(b, &d, NULL);

  bt_builder_priority(b, "Root", 1);
  bt_builder_sequence(b, "a");
  bt_builder_not(b, NULL);
  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL,
            "bt_builder_end: still open: Sequence 'a', NotDecorator 'Not' (close each with bt_builder_back)");

  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_KIND_COUNT;
  char msg[64];
  snprintf(msg, sizeof msg, "bt_builder_open: bad node kind %d", BT_KIND_COUNT);
  CHECK_ERR(bt_builder_open(b, &s), BT_EINVAL, msg);
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_leaf(b, NULL), BT_EINVAL, "bt_builder_leaf: bad node kind -1");
  bt_builder_end(b, &d, NULL);
  s.kind = BT_CONDITION;
  CHECK_ERR(bt_builder_open(b, &s), BT_EINVAL, "bt_builder_open: a Condition is a leaf (add it with bt_builder_leaf)");
  bt_builder_end(b, &d, NULL);
  s.kind = BT_SEQUENCE;
  CHECK_ERR(bt_builder_leaf(b, &s), BT_EINVAL, "bt_builder_leaf: a Sequence takes children (open it with bt_builder_open)");
  bt_builder_end(b, &d, NULL);
  /* a call that takes a function, given none, names the node and where it stands in the tree
   * (its path: names from the root joined by '/', a name earlier siblings share numbered) */
  CHECK_ERR(bt_builder_condition(b, NULL, NULL, "C"), BT_EINVAL,
            "bt_builder_condition: Condition 'C' (the root) needs its function");
  bt_builder_end(b, &d, NULL);
  bt_builder_priority(b, "Root", 1);
  bt_builder_sequence(b, "Flee");
  bt_builder_condition(b, leaf_fn, NULL, "Scared");
  CHECK_ERR(bt_builder_condition(b, NULL, NULL, "Cornered"), BT_EINVAL,
            "bt_builder_condition: Condition 'Cornered' (Root/Flee/Cornered) needs its function");
  bt_builder_end(b, &d, NULL);
  bt_builder_sequence(b, NULL);
  bt_builder_sequence(b, NULL);
  bt_builder_action(b, leaf_fn, NULL, NULL);
  bt_builder_back(b);
  bt_builder_sequence(b, NULL);
  bt_builder_action(b, leaf_fn, NULL, NULL);
  CHECK_ERR(bt_builder_action(b, NULL, NULL, NULL), BT_EINVAL,
            "bt_builder_action: Action 'ActionNode' (Sequence/Sequence#2/ActionNode#2) needs its function");
  bt_builder_end(b, &d, NULL);
  bt_builder_selector(b, "S");
  CHECK_ERR(bt_builder_condition_wait(b, NULL, NULL, "W"), BT_EINVAL,
            "bt_builder_condition_wait: ConditionWait 'W' (S/W) needs its function");
  bt_builder_end(b, &d, NULL);
  bt_builder_selector(b, "S");
  CHECK_ERR(bt_builder_multi_condition(b, leaf_fn, NULL, NULL, NULL, "M"), BT_EINVAL,
            "bt_builder_multi_condition: MultiCondition 'M' (S/M) needs its continue function");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_multi_condition(b, NULL, NULL, leaf_fn, NULL, NULL), BT_EINVAL,
            "bt_builder_multi_condition: MultiCondition 'Condition' (the root) needs its start function");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_wait(b, -1), BT_EINVAL, "bt_builder_wait: bad time -1");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_latch(b, NULL, NAN), BT_EINVAL, "bt_builder_latch: bad duration nan");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_subtree(b, ""), BT_EINVAL, "bt_builder_subtree: no subtree name");
  bt_builder_end(b, &d, NULL);
  /* a generic leaf without the function its kind needs: refused as it is added, named */
  s.kind = BT_ACTION;
  s.name = "Act";
  bt_builder_sequence(b, NULL);
  CHECK_ERR(bt_builder_leaf(b, &s), BT_EINVAL, "bt_builder_leaf: Action 'Act' (Sequence/Act) needs its function");
  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL, "bt_builder_leaf: Action 'Act' (Sequence/Act) needs its function");
  CHECK(d == NULL);
  /* a BehaviourNode with a children list opens; one without is a leaf */
  s.kind = BT_BEHAVIOUR;
  s.name = "Chatty";
  s.flags = BT_SPEC_CHILDREN;
  CHECK_INT(bt_builder_open(b, &s), BT_OK);
  bt_builder_wait(b, 1);
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  CHECK_STR(bt_builder_errmsg(b), "");
  CHECK_INT(bt_def_child_count(d, 0), 1);
  bt_def_release(d);
  /* a leaf may be the whole tree */
  CHECK_INT(bt_builder_wait(b, 1), BT_OK);
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  CHECK_INT(bt_def_size(d), 1);
  bt_def_release(d);
  /* NULL builders and outputs */
  CHECK_INT(bt_builder_back(NULL), BT_EINVAL);
  CHECK_INT(bt_builder_sequence(NULL, "S"), BT_EINVAL);
  CHECK_INT(bt_builder_wait(NULL, 1), BT_EINVAL);
  CHECK_INT(bt_builder_end(NULL, &d, NULL), BT_EINVAL);
  CHECK_INT(bt_builder_create(NULL), BT_EINVAL);
  bt_builder_wait(b, 1);
  CHECK_ERR(bt_builder_end(b, NULL, NULL), BT_EINVAL, "bt_builder_end: no place for the definition");
  bt_builder_free(NULL);
  bt_builder_free(b);
}

/* A builder that is freed with a tree under way frees it (valgrind checks). */
static void test_free_while_open(void) {
  bt_builder *b = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_builder_sequence(b, "S");
  bt_builder_selector(b, "T");
  bt_builder_wait(b, 1);
  bt_builder_free(b);
}

static void test_subtrees(void) {
  logs();
  leaf run = LEAF("Run", BT_SUCCESS);
  bt_lib *lib = NULL;
  REQUIRE(bt_lib_create(&lib) == BT_OK);
  bt_builder *b = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_def *d = NULL;
  bt_graph *g = new_graph();
  REQUIRE(bt_lib_set(lib, "flee", g, add_leaf(g, &run)) == BT_OK);
  bt_graph_free(g);
  bt_builder_sequence(b, "Root");
  bt_builder_subtree(b, "flee");
  bt_builder_subtree(b, "flee");
  CHECK_INT(bt_builder_end(b, &d, lib), BT_OK);
  CHECK_INT(bt_def_size(d), 5);
  CHECK_INT(bt_def_kind(d, 1), BT_SUBTREE);
  CHECK_STR(bt_def_name(d, 2), "Run");
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, d, &HOST, NULL, 0) == BT_OK);
  think(in, 0);
  CHECK_STR(logs(), "Run Run");
  bt_inst_free(in);
  bt_def_release(d);
  /* without the library, or with a name it lacks */
  bt_builder_subtree(b, "flee");
  CHECK_ERR(bt_builder_end(b, &d, NULL), BT_EINVAL, "subtree 'flee': no library to find it in");
  bt_builder_subtree(b, "fight");
  CHECK_ERR(bt_builder_end(b, &d, lib), BT_EINVAL, "no subtree named 'fight'");
  bt_builder_free(b);
  bt_lib_free(lib);
}

static int task_update(bt_call *c) {
  (void)c;
  return BT_SUCCESS;
}
static const bt_task TASK = {NULL, task_update, NULL};

/* The kinds bt adds: the builder's openers make what the graph API makes. */
static void test_kit_kinds(void) {
  bt_graph *g = new_graph();
  int root = add_node(g, BT_ACTIVE_SELECTOR, "Root", 0, 0);
  int pp = add_node(g, BT_POLICY_PARALLEL, NULL, 0, BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL);
  int mon = add_node(g, BT_MONITOR, "Watch", 0, 0);
  int c = add_fn(g, BT_CONDITION, &near, "Near");
  bt_spec ts;
  memset(&ts, 0, sizeof ts);
  ts.kind = BT_TASK;
  ts.name = "Walk";
  ts.task = &TASK;
  ts.ud = &graze;
  int task = bt_graph_add(g, &ts);
  set_kids(g, mon, 2, c, task);
  int rep = add_node(g, BT_REPEAT, NULL, 3, 0);
  int suc = add_node(g, BT_SUCCEED, NULL, 0, 0);
  set_kids(g, suc, 1, add_node(g, BT_WAIT, NULL, 1, 0));
  set_kids(g, rep, 1, suc);
  set_kids(g, pp, 2, mon, rep);
  int forever = add_node(g, BT_REPEAT, "Forever", 0, BT_SPEC_NIL_PARAM);
  int fl = add_node(g, BT_FAIL, NULL, 0, 0);
  int cd = add_node(g, BT_COOLDOWN, NULL, 2, 0);
  int to = add_node(g, BT_TIMEOUT, NULL, 4, 0);
  set_kids(g, to, 1, add_node(g, BT_WAIT, NULL, 9, 0));
  set_kids(g, cd, 1, to);
  set_kids(g, fl, 1, cd);
  set_kids(g, forever, 1, fl);
  set_kids(g, root, 2, pp, forever);
  bt_def *want = NULL, *got = NULL;
  REQUIRE(bt_def_create(&want, g, root) == BT_OK);
  bt_graph_free(g);

  bt_builder *b = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_builder_active_selector(b, "Root");
  bt_builder_policy_parallel(b, NULL, BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL);
  bt_builder_monitor(b, "Watch");
  bt_builder_condition(b, leaf_fn, &near, "Near");
  bt_builder_task(b, &TASK, &graze, "Walk");
  bt_builder_back(b);
  bt_builder_repeat(b, NULL, 3);
  bt_builder_succeed(b, NULL);
  bt_builder_wait(b, 1);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_repeat(b, "Forever", -1);
  bt_builder_fail(b, NULL);
  bt_builder_cooldown(b, NULL, 2);
  bt_builder_timeout(b, NULL, 4);
  bt_builder_wait(b, 9);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_back(b);
  CHECK_INT(bt_builder_end(b, &got, NULL), BT_OK);
  CHECK_STR(bt_builder_errmsg(b), "");
  CHECK(got && bt_def_equal(got, want));
  CHECK(got && bt_def_hash(got) == bt_def_hash(want));
  bt_def_release(got);
  bt_def_release(want);

  bt_def *d = NULL;
  CHECK_ERR(bt_builder_repeat(b, NULL, 0.5), BT_EINVAL, "bt_builder_repeat: bad times 0.5");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_timeout(b, NULL, -1), BT_EINVAL, "bt_builder_timeout: bad time -1");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_cooldown(b, NULL, INFINITY), BT_EINVAL, "bt_builder_cooldown: bad time inf");
  bt_builder_end(b, &d, NULL);
  CHECK_ERR(bt_builder_policy_parallel(b, NULL, 0x100), BT_EINVAL, "bt_builder_policy_parallel: bad policy 256");
  bt_builder_end(b, &d, NULL);
  bt_builder_sequence(b, "Chores");
  CHECK_ERR(bt_builder_task(b, NULL, NULL, "T"), BT_EINVAL, "bt_builder_task: Task 'T' (Chores/T) needs its bt_task");
  bt_builder_end(b, &d, NULL);
  bt_builder_timeout(b, "T", 1);
  bt_builder_wait(b, 1);
  bt_builder_wait(b, 1);
  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: TimeoutDecorator 'T' needs exactly one child, it has 2");
  bt_builder_end(b, &d, NULL);
  bt_builder_monitor(b, "M");
  CHECK_ERR(bt_builder_back(b), BT_EINVAL, "bt_builder_back: Monitor 'M' has no children");
  bt_builder_end(b, &d, NULL);
  bt_builder_free(b);
}

int main(void) {
  test_same_as_graph();
  test_kit_kinds();
  test_errors();
  test_free_while_open();
  test_subtrees();
  return check_report("test_builder");
}
