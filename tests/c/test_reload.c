/* SPDX-License-Identifier: MIT */
/* test_reload.c: matching two definitions by path and carrying an agent's state across a reload
 * (bt_def_match, bt_inst_transfer), or as it is (bt_inst_carry); a definition's specs (bt_def_spec). */
#include <stdarg.h>
#include <stdlib.h>

#include "bt.h"
#include "check.h"
#include "harness.h"

static leaf scared = FN("Scared", 0), hungry = FN("Hungry", 0), tired = FN("Tired", 0);
static leaf wander = LEAF("Wander", BT_RUNNING), eat = LEAF("Eat", BT_RUNNING);
static leaf panic = LEAF("Panic", BT_RUNNING), sleepy = LEAF("Sleep", BT_RUNNING);

/* Priority(1) {
 *   Parallel "Flee" { Condition "Scared", Panic },
 *   Sequence { Condition "Hungry", Eat },
 *   [extra, when given: Sequence { Condition "Tired", Sleep }]
 *   [Wander, unless without_wander]
 * } */
typedef struct shape {
  int extra_before_wander;
  int without_wander;
  int wander_as_condition; /* same name, another kind */
  int rename_flee;
} shape;

static bt_inst *make(shape sh, int *wander_gid) {
  bt_graph *g = new_graph();
  int c_scared = add_fn(g, BT_CONDITION, &scared, "Scared");
  int l_panic = add_leaf(g, &panic);
  int flee = add_node(g, BT_PARALLEL, sh.rename_flee ? "Run" : "Flee", 0, 0);
  set_kids(g, flee, 2, c_scared, l_panic);
  int c_hungry = add_fn(g, BT_CONDITION, &hungry, "Hungry");
  int l_eat = add_leaf(g, &eat);
  int graze = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, graze, 2, c_hungry, l_eat);
  int kids[5], n = 0;
  kids[n++] = flee;
  kids[n++] = graze;
  if (sh.extra_before_wander) {
    int c_tired = add_fn(g, BT_CONDITION, &tired, "Tired");
    int l_sleep = add_leaf(g, &sleepy);
    int rest = add_node(g, BT_SEQUENCE, NULL, 0, 0);
    set_kids(g, rest, 2, c_tired, l_sleep);
    kids[n++] = rest;
  }
  int w = -1;
  if (sh.wander_as_condition) w = add_fn(g, BT_CONDITION, &scared, "Wander");
  else if (!sh.without_wander) w = add_leaf(g, &wander);
  if (w >= 0) kids[n++] = w;
  if (wander_gid) *wander_gid = w;
  int root = add_prio(g, NULL, 1);
  REQUIRE(bt_graph_set_children(g, root, kids, n) == BT_OK);
  return build(g, root, 0);
}

/* A field of the root (pre-order index 0), or NIL_VALUE. */
static double root_field(bt_inst *in, int f) {
  double v;
  return bt_node_get(in, 0, f, &v) == 1 ? v : NIL_VALUE;
}

static const char *root_status(bt_inst *in) { return bt_status_name(bt_node_status(in, 0)); }

static int *match(bt_inst *from, bt_inst *to, int *count) {
  int *map = malloc((size_t)bt_def_states(bt_inst_def(to)) * sizeof *map);
  *count = bt_def_match(bt_inst_def(from), bt_inst_def(to), map);
  return map;
}

/* The old instance thinks until it wanders: Scared and Hungry false, Wander RUNNING, sleeping 2. */
static bt_inst *wandering(int *wander_gid) {
  scared.result = hungry.result = tired.result = 0;
  wander.sleep = 2;
  bt_inst *in = make((shape){0}, wander_gid);
  think(in, 1);
  REQUIRE(bt_node_status(in, 0) == BT_RUNNING);
  return in;
}

static void test_same_shape(void) {
  int w;
  bt_inst *old = wandering(&w);
  bt_inst *neu = make((shape){0}, NULL);
  int count;
  int *map = match(old, neu, &count);
  CHECK_INT(count, bt_def_states(bt_inst_def(neu)));
  for (int s = 0; s < bt_def_states(bt_inst_def(neu)); s++) CHECK_INT(map[s], s);
  CHECK(bt_def_hash(bt_inst_def(old)) == bt_def_hash(bt_inst_def(neu)));
  bt_transfer r;
  CHECK_INT(bt_inst_transfer(neu, old, map, &r), BT_OK);
  CHECK_INT(r.matched, count);
  CHECK_INT(r.gone, 0);
  CHECK_INT(r.reevaluate, 0);
  /* the same state but for the root's clock, cleared so that the new code decides at once */
  CHECK_NUM(root_field(old, BT_FIELD_LASTTIME), 1);
  CHECK_NUM(root_field(neu, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_STR(ST(neu, w), ST(old, w));
  CHECK_NUM(field(neu, w, BT_FIELD_NEXTUPDATETIME), field(old, w, BT_FIELD_NEXTUPDATETIME));
  CHECK_NUM(root_field(neu, BT_FIELD_IDX), root_field(old, BT_FIELD_IDX));
  /* and it goes on as the old one would */
  int calls = wander.calls;
  think(neu, 1.5);
  CHECK_INT(wander.calls, calls + 1);
  CHECK_INT(wander.starts, 1); /* still the same run: not started again */
  free(map);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* A branch inserted before the running Wander: Wander keeps running, the Priority points at it. */
static void test_branch_inserted(void) {
  int w;
  bt_inst *old = wandering(&w);
  int nw;
  bt_inst *neu = make((shape){.extra_before_wander = 1}, &nw);
  int count;
  int *map = match(old, neu, &count);
  CHECK_INT(count, bt_def_states(bt_inst_def(old)));
  bt_transfer r;
  CHECK_INT(bt_inst_transfer(neu, old, map, &r), BT_OK);
  CHECK_INT(r.gone, 0);
  CHECK_INT(r.reevaluate, 0);
  CHECK_STR(ST(neu, nw), "RUNNING");
  CHECK_NUM(root_field(neu, BT_FIELD_IDX), 4);     /* was 3 */
  CHECK_NUM(root_field(neu, BT_FIELD_LASTTIME), NIL_VALUE); /* cleared: evaluates next think */
  CHECK_NUM(field(neu, nw, BT_FIELD_NEXTUPDATETIME), 3);
  int starts = wander.starts;
  think(neu, 1.5); /* evaluates: Scared, Hungry and Tired fail, the running Wander goes on */
  CHECK_INT(wander.starts, starts);
  CHECK_INT(tired.calls, 1);
  CHECK_STR(ST(neu, nw), "RUNNING");
  CHECK_INT(sleepy.calls, 0);
  free(map);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* The running Wander is gone: its parent re-evaluates at the next think. */
static void test_running_node_gone(void) {
  int w;
  bt_inst *old = wandering(&w);
  bt_inst *neu = make((shape){.without_wander = 1, .extra_before_wander = 1}, NULL);
  int count;
  int *map = match(old, neu, &count);
  bt_transfer r;
  CHECK_INT(bt_inst_transfer(neu, old, map, &r), BT_OK);
  CHECK_INT(r.gone, 1);
  CHECK_INT(r.reevaluate, 1);
  CHECK_STR(root_status(neu), "READY");
  CHECK_NUM(root_field(neu, BT_FIELD_IDX), NIL_VALUE);
  CHECK_NUM(root_field(neu, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(sleep_of(neu), 0); /* a READY root Priority: think now */
  tired.result = 1;
  sleepy.sleep = 5;
  think(neu, 1.1); /* lasttime nil: evaluates although its period has not passed */
  CHECK_INT(sleepy.calls, 1);
  CHECK_STR(root_status(neu), "RUNNING");
  free(map);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* Same name, another kind: no match; renamed parents do not match their subtree. */
static void test_kind_and_names(void) {
  int w;
  bt_inst *old = wandering(&w);
  int nw;
  bt_inst *neu = make((shape){.wander_as_condition = 1}, &nw);
  int count;
  int *map = match(old, neu, &count);
  CHECK_INT(map[bt_def_state(bt_inst_def(neu), at(neu, nw))], -1);
  bt_transfer r;
  CHECK_INT(bt_inst_transfer(neu, old, map, &r), BT_OK);
  CHECK_INT(r.gone, 1);
  CHECK_INT(r.reevaluate, 1);
  free(map);
  bt_inst_free(neu);

  bt_inst *renamed = make((shape){.rename_flee = 1}, NULL);
  map = match(old, renamed, &count);
  CHECK_INT(count, bt_def_states(bt_inst_def(old)) - 3); /* Flee, Scared, Panic */
  CHECK_INT(map[1], -1);
  free(map);
  bt_inst_free(renamed);
  bt_inst_free(old);
}

/* A Sequence resumes at the same child after a sibling was added before it. */
static leaf first = FN("First", 1), step = LEAF("Step", BT_RUNNING), added = FN("Added", 1);

static bt_inst *sequence(int with_added, int *step_gid) {
  bt_graph *g = new_graph();
  int a = add_fn(g, BT_CONDITION, &first, "First");
  int b = add_leaf(g, &step);
  int kids[3], n = 0;
  if (with_added) kids[n++] = add_fn(g, BT_ACTION, &added, "Added");
  kids[n++] = a;
  kids[n++] = b;
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  REQUIRE(bt_graph_set_children(g, seq, kids, n) == BT_OK);
  *step_gid = b;
  return build(g, seq, 0);
}

static void test_sequence_index_moves(void) {
  int sg;
  bt_inst *old = sequence(0, &sg);
  think(old, 0);
  CHECK_NUM(root_field(old, BT_FIELD_IDX), 2);
  int ng;
  bt_inst *neu = sequence(1, &ng);
  int count;
  int *map = match(old, neu, &count);
  CHECK_INT(bt_inst_transfer(neu, old, map, NULL), BT_OK);
  CHECK_NUM(root_field(neu, BT_FIELD_IDX), 3);
  int calls = first.calls;
  think(neu, 1);
  CHECK_INT(first.calls, calls); /* resumed at Step: First is not tested again */
  CHECK_INT(added.calls, 0);
  free(map);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* The same branch inserted, carried as it is (bt_inst_carry, for a children list a script edited)
 * instead of moved (bt_inst_transfer, test_branch_inserted): the Priority's index stays the number
 * it was, as Don't Starve's idx does, so it names the inserted branch, and its clock is kept. */
static void test_carry_as_is(void) {
  int w;
  bt_inst *old = wandering(&w);
  int nw;
  bt_inst *neu = make((shape){.extra_before_wander = 1}, &nw);
  int count;
  int *map = match(old, neu, &count);
  double lasttime = root_field(old, BT_FIELD_LASTTIME);
  CHECK(lasttime != NIL_VALUE);
  bt_transfer r;
  CHECK_INT(bt_inst_carry(neu, old, map, &r), BT_OK);
  CHECK_INT(r.matched, count);
  CHECK_INT(r.gone, 0);
  CHECK_INT(r.reevaluate, 0);
  CHECK_STR(ST(neu, nw), "RUNNING");
  CHECK_NUM(root_field(neu, BT_FIELD_IDX), 3); /* the number it was: now the inserted branch */
  CHECK_NUM(root_field(neu, BT_FIELD_LASTTIME), lasttime);
  CHECK_NUM(field(neu, nw, BT_FIELD_NEXTUPDATETIME), 3);
  CHECK_STR(root_status(neu), "RUNNING");
  int calls = sleepy.calls, tests = tired.calls;
  think(neu, 1.5); /* within the period: resumes child 3, which does not run, so nothing runs */
  CHECK_INT(sleepy.calls, calls);
  CHECK_INT(tired.calls, tests);
  CHECK_INT(bt_inst_carry(neu, old, NULL, NULL), BT_EINVAL);
  free(map);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* bt_def_spec gives each node the spec it was added with: a graph of them, added in the order of
 * the first (their graph ids), makes an equal definition. */
static void test_def_spec(void) {
  bt_inst *in = make((shape){.extra_before_wander = 1}, NULL);
  const bt_def *def = bt_inst_def(in);
  bt_graph *g = new_graph();
  int n = bt_def_size(def);
  int *ids = malloc((size_t)n * sizeof *ids);
  for (int gid = 0; gid < n; gid++) {
    for (int i = 0; i < n; i++) {
      if (bt_def_graph_id(def, bt_def_state(def, i)) != gid) continue;
      bt_spec s;
      CHECK_INT(bt_def_spec(def, i, &s), BT_OK);
      ids[i] = bt_graph_add(g, &s);
      CHECK_INT(ids[i], gid);
    }
  }
  for (int i = 0; i < n; i++) {
    int kids[8], k = bt_def_child_count(def, i);
    for (int c = 0; c < k; c++) kids[c] = ids[bt_def_child(def, i, c)];
    if (k) CHECK_INT(bt_graph_set_children(g, ids[i], kids, k), BT_OK);
  }
  bt_inst *again = build(g, ids[0], 0);
  CHECK(bt_def_equal(bt_inst_def(again), def));
  bt_spec s;
  CHECK_INT(bt_def_spec(def, n, &s), BT_EINVAL);
  CHECK_INT(bt_def_spec(NULL, 0, &s), BT_EINVAL);
  CHECK_INT(bt_def_spec(def, 0, NULL), BT_EINVAL);
  free(ids);
  bt_inst_free(in);
  bt_inst_free(again);
}

static bt_inst *reentered;
static int busy_rc;
static void transfer_inside(bt_call *c, leaf *l) {
  (void)l;
  int map[16];
  bt_def_match(bt_inst_def(c->inst), bt_inst_def(reentered), map);
  busy_rc = bt_inst_transfer(reentered, c->inst, map, NULL);
}

static void test_errors(void) {
  int w;
  bt_inst *a = wandering(&w);
  bt_inst *b = make((shape){0}, NULL);
  CHECK_INT(bt_def_match(NULL, bt_inst_def(b), (int[16]){0}), BT_EINVAL);
  CHECK_INT(bt_inst_transfer(b, a, NULL, NULL), BT_EINVAL);
  reentered = b;
  wander.hook = transfer_inside;
  think(a, 5);
  wander.hook = NULL;
  CHECK_INT(busy_rc, BT_EBUSY);
  bt_inst_free(a);
  bt_inst_free(b);
}

int main(void) {
  test_same_shape();
  test_branch_inserted();
  test_running_node_gone();
  test_kind_and_names();
  test_sequence_index_moves();
  test_carry_as_is();
  test_def_spec();
  test_errors();
  return check_report("test_reload");
}
