/* SPDX-License-Identifier: MIT */
/* test_trace.c: the test kit's checks over time (bt_test.h, bt_trace_*): a trace keeps every
 * record of its recorder however small the ring, and answers what ran at a time, a node's status
 * at a time, when a node first went to a status, the sleep times, and a failure's text. The
 * expected times are worked out by hand from Don't Starve's semantics (behaviourtree.lua) on a
 * small tree driven by the harness's clock; the transitions in order are the recorder's own ring,
 * a second way of reading the same run. */
#include "harness.h"

#include "bt_test.h"

/* Root, a Priority of period 1, over Escape (a Sequence of the condition Danger and the
 * behaviour Flee, which sleeps 0.25 s a visit) and Wander (which sleeps 5 s a visit).
 * Pre-order: 0 Root, 1 Escape, 2 Danger, 3 Flee, 4 Wander. */
static leaf Danger, Flee, Wander;

static bt_inst *escape_tree(void) {
  Danger = (leaf)FN("Danger", 0);
  Flee = (leaf)LEAF("Flee", BT_RUNNING);
  Flee.sleep = 0.25;
  Wander = (leaf)LEAF("Wander", BT_RUNNING);
  Wander.sleep = 5;
  bt_graph *g = new_graph();
  int danger = add_fn(g, BT_CONDITION, &Danger, "Danger"), flee = add_leaf(g, &Flee);
  int escape = add_node(g, BT_SEQUENCE, "Escape", 0, 0);
  set_kids(g, escape, 2, danger, flee);
  int wander = add_leaf(g, &Wander), root = add_prio(g, "Root", 1);
  set_kids(g, root, 2, escape, wander);
  return build(g, root, 0);
}

/* The run every test reads: thinks at 0 (Danger false: Wander runs), 1.5 (Danger true since 1.2:
 * the Priority's evaluation, due after 0 + 1, starts Flee and interrupts Wander), 1.75 (Flee
 * runs on: no change), 2 (Flee succeeds: the Sequence and the Priority succeed, and Step resets
 * them). */
static void escape_run(bt_inst *in) {
  think(in, 0);
  Danger.result = 1; /* a wolf comes near at 1.2 */
  think(in, 1.5);
  think(in, 1.75);
  Flee.status = BT_SUCCESS;
  think(in, 2);
}

static char LINES[4096];

static const char *running(bt_trace *t, double time) {
  bt_buf b = {0};
  int n = bt_trace_running_at(t, time, &b);
  snprintf(LINES, sizeof LINES, "%d:%s", n, b.data ? b.data : "");
  bt_buf_free(&b);
  return LINES;
}

static double first(bt_trace *t, const char *path, int status, double after) {
  double when = -1;
  int rc = bt_trace_first(t, path, status, after, &when);
  return rc == 1 ? when : rc == 0 ? NIL_VALUE : -99;
}

static double sleep_at(bt_trace *t, double time) {
  double sleep = -1;
  int rc = bt_trace_sleep_at(t, time, &sleep, NULL);
  return rc == 1 ? sleep : rc == 0 ? NIL_VALUE : -99;
}

static void test_queries(void) {
  bt_inst *in = escape_tree();
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach_inst(t, in) == BT_OK);
  CHECK(bt_inst_recorder(in) != NULL); /* one of the trace's own, of capacity 0 */
  CHECK(bt_trace_recorder(t) == bt_inst_recorder(in));
  escape_run(in);
  CHECK_INT(bt_trace_count(t), bt_rec_total(bt_inst_recorder(in)));

  /* the running path */
  CHECK_STR(running(t, 0), "1:Root/Wander\n");
  CHECK_STR(running(t, 1.4), "1:Root/Wander\n");
  CHECK_STR(running(t, 1.5), "1:Root/Escape/Flee\n");
  CHECK_STR(running(t, 1.9), "1:Root/Escape/Flee\n");
  CHECK_STR(running(t, 2), "0:");
  CHECK_STR(running(t, -1), "0:"); /* before the first think: every node READY */

  /* statuses at a time */
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root/Wander", 1)), "RUNNING");
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root/Wander", 1.5)), "READY"); /* interrupted */
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root", 1.7)), "RUNNING");
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root/Escape/Danger", 1.5)), "READY"); /* Step reset it */
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root", 2)), "READY");
  /* a time within a nanosecond of a think's counts as that think's */
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Root/Escape/Flee", 1.5 - 1e-10)), "RUNNING");
  CHECK_INT(bt_trace_status_at(t, "Root/Nope", 1), BT_EINVAL);
  CHECK(strstr(bt_trace_errmsg(t), "'Root/Nope'") != NULL);

  /* first changes */
  CHECK_NUM(first(t, "Root/Escape/Flee", BT_RUNNING, -INFINITY), 1.5);
  CHECK_NUM(first(t, "Root/Escape/Flee", BT_SUCCESS, -INFINITY), 2);
  CHECK_NUM(first(t, "Root/Escape/Flee", BT_TRACE_VISIT, 0.5), 1.5);
  CHECK_NUM(first(t, "Root/Wander", BT_READY, 1), 1.5);
  CHECK_NUM(first(t, "Root/Wander", BT_RUNNING, 0.1), NIL_VALUE); /* it never ran again */
  CHECK_NUM(first(t, "Root/Escape/Danger", BT_FAILED, -INFINITY), 0);
  CHECK_NUM(first(t, "Root/Escape/Danger", BT_FAILED, 0.5), NIL_VALUE);
  CHECK_NUM(first(t, "Root/Escape/Danger", BT_RUNNING, -INFINITY), NIL_VALUE); /* a condition never runs */
  CHECK_INT(bt_trace_first(t, "Root/Escape/Flee", 7, 0, NULL), BT_EINVAL);
  CHECK_INT(bt_trace_first(t, "Escape", BT_RUNNING, 0, NULL), BT_EINVAL);
  CHECK(strstr(bt_trace_errmsg(t), "'Escape'") != NULL);

  /* sleep times: the Priority's next evaluation and the running leaf's own, the least of them */
  CHECK_NUM(sleep_at(t, 0), 1);      /* Root: 0 + 1 - 0; Wander 5 */
  CHECK_NUM(sleep_at(t, 1.6), 0.25); /* the think at 1.5: Flee 0.25; Root 1.5 + 1 - 1.5 */
  CHECK_NUM(sleep_at(t, 1.75), 0.25); /* Flee 2 - 1.75; Root 2.5 - 1.75 */
  CHECK_NUM(sleep_at(t, 3), 0); /* the think at 2 left Root READY: a READY Priority asks for 0 */
  double when = 0;
  CHECK_INT(bt_trace_sleep_at(t, 1.9, NULL, &when), 1);
  CHECK_NUM(when, 1.75);
  CHECK_INT(bt_trace_sleep_at(t, -0.5, NULL, NULL), BT_EINVAL);
  CHECK(strstr(bt_trace_errmsg(t), "no think at -0.5000") != NULL);

  /* every record, and their paths */
  bt_buf b = {0};
  bt_rec_entry e;
  REQUIRE(bt_trace_get(t, 0, &e) == BT_OK);
  CHECK_INT(e.type, BT_REC_STATUS);
  CHECK_INT(bt_trace_path(t, 0, &b), BT_OK);
  CHECK_STR(b.data, "Root/Escape/Danger"); /* the condition was the first visited */
  CHECK_INT(bt_trace_get(t, bt_trace_count(t), &e), BT_EINVAL);
  bt_buf_free(&b);

  bt_trace_free(t);
  CHECK(bt_inst_recorder(in) == NULL); /* the trace's own recorder went with it */
  bt_inst_free(in);
}

/* The failure's text: the tree at the time, replayed, and the last transitions before it. */
static void test_failure(void) {
  bt_inst *in = escape_tree();
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach_inst(t, in) == BT_OK);
  escape_run(in);
  bt_buf b = {0};
  CHECK_INT(bt_trace_failure(t, 1.6, "Root/Wander RUNNING at 1.6", 3, &b), BT_OK);
  /* at 1.5: Danger READY>SUCCESS, Flee READY>RUNNING, Escape READY>RUNNING, then the Priority
   * resets the child after the one it found (Wander RUNNING>READY), then Step resets Danger */
  CHECK_STR(b.data,
            "expected: Root/Wander RUNNING at 1.6\n"
            "the tree at 1.6000 (statuses replayed from the trace):\n"
            "Root - RUNNING\n"
            "   >Escape - RUNNING\n"
            "   >   >Danger - READY\n"
            "   >   >Flee - RUNNING\n"
            "   >Wander - READY\n"
            "the last 3 transitions up to 1.6000:\n"
            "  1.5000  Root/Escape  READY > RUNNING\n"
            "  1.5000  Root/Wander  RUNNING > READY\n"
            "  1.5000  Root/Escape/Danger  SUCCESS > READY\n");
  b.len = 0;
  CHECK_INT(bt_trace_dump_at(t, 0, &b), BT_OK);
  CHECK_STR(b.data, "Root - RUNNING\n   >Escape - READY\n   >   >Danger - READY\n   >   >Flee - READY\n   >Wander - RUNNING\n");
  CHECK_INT(bt_trace_failure(t, 1, "x", -1, &b), BT_EINVAL);
  bt_buf_free(&b);
  bt_trace_free(t);
  bt_inst_free(in);
}

/* A ring of 4 records wraps many times: the trace keeps them all, in the ring's order. */
static void test_no_loss(void) {
  bt_inst *in = escape_tree();
  bt_rec *all = NULL, *small = NULL;
  REQUIRE(bt_rec_create(&small, 4) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, small) == BT_OK);
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach(t, small) == BT_OK);
  escape_run(in);
  CHECK_INT(bt_rec_count(small), 4);
  size_t n = bt_trace_count(t);
  CHECK_INT(n, bt_rec_total(small));
  /* the same run with a ring that holds it all: the second way */
  bt_trace_free(t);
  bt_rec_free(small);
  bt_inst_free(in);
  in = escape_tree();
  REQUIRE(bt_rec_create(&all, 256) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, all) == BT_OK);
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach(t, all) == BT_OK);
  escape_run(in);
  CHECK_INT(bt_trace_count(t), n);
  CHECK_INT(bt_rec_count(all), n);
  for (size_t i = 0; i < n && i < bt_rec_count(all); i++) {
    bt_rec_entry a, b;
    REQUIRE(bt_rec_get(all, i, &a) == BT_OK);
    REQUIRE(bt_trace_get(t, i, &b) == BT_OK);
    CHECK_INT(a.type, b.type);
    CHECK_INT(a.node, b.node);
    CHECK_INT(a.from, b.from);
    CHECK_INT(a.to, b.to);
    CHECK_NUM(a.time, b.time);
    CHECK_INT(a.has_sleep, b.has_sleep);
  }
  bt_trace_free(t);
  bt_rec_free(all);
  bt_inst_free(in);
}

/* A host's callback goes on being called while a trace watches, and is given back after. */
static int host_calls;
static void host_callback(void *ud, const bt_rec_entry *e) {
  (void)e;
  CHECK(ud == &host_calls);
  host_calls++;
}

static void test_chained_callback(void) {
  bt_inst *in = escape_tree();
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  bt_rec_set_callback(rec, host_callback, &host_calls);
  bt_trace *t = NULL, *other = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach(t, rec) == BT_OK);
  REQUIRE(bt_trace_create(&other) == BT_OK);
  CHECK_INT(bt_trace_attach(other, rec), BT_EINVAL); /* one trace a recorder */
  CHECK_STR(bt_trace_errmsg(other), "the recorder is another trace's");
  CHECK_INT(bt_trace_attach(other, NULL), BT_EINVAL);
  CHECK_INT(bt_trace_attach_inst(other, NULL), BT_EINVAL);
  escape_run(in);
  CHECK_INT(host_calls, (int)bt_trace_count(t));
  CHECK_INT(host_calls, (int)bt_rec_total(rec));
  bt_trace_detach(t);
  void *ud = NULL;
  CHECK(bt_rec_callback(rec, &ud) == host_callback);
  CHECK(ud == &host_calls);
  size_t kept = bt_trace_count(t);
  think(in, 3); /* detached: the trace takes no more, and can still be asked */
  CHECK_INT(bt_trace_count(t), kept);
  CHECK_STR(running(t, 1.5), "1:Root/Escape/Flee\n");
  CHECK_INT(bt_trace_attach(other, rec), BT_OK);
  bt_trace_free(other);
  CHECK(bt_rec_callback(rec, NULL) == host_callback);
  bt_trace_free(t);
  bt_rec_free(rec);
  bt_inst_free(in);
}

/* A trace attached to an instance that ran already starts from its statuses then; and it follows
 * its recorder to another instance, of another tree. */
static void test_attached_late_and_moved(void) {
  bt_inst *in = escape_tree();
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  think(in, 0); /* Wander runs */
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach(t, rec) == BT_OK);
  CHECK_INT(bt_trace_count(t), 0);
  CHECK_STR(running(t, 0.5), "1:Root/Wander\n"); /* no record says so: the instance did */
  Danger.result = 1;
  think(in, 1.5);
  CHECK_STR(running(t, 1.5), "1:Root/Escape/Flee\n");

  /* the recorder moves to an instance of another tree: Other, a Priority over Idle */
  leaf Idle = LEAF("Idle", BT_RUNNING);
  bt_graph *g = new_graph();
  int idle = add_leaf(g, &Idle), root = add_prio(g, "Other", 1);
  set_kids(g, root, 1, idle);
  bt_inst *in2 = build(g, root, 0);
  REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in2, rec) == BT_OK);
  think(in2, 4);
  CHECK_STR(running(t, 1.6), "1:Root/Escape/Flee\n");
  CHECK_STR(running(t, 4), "1:Other/Idle\n");
  CHECK_NUM(first(t, "Other/Idle", BT_RUNNING, -INFINITY), 4);
  CHECK_NUM(first(t, "Root/Escape/Flee", BT_RUNNING, -INFINITY), 1.5);
  CHECK_INT(bt_trace_status_at(t, "Root/Wander", 4), BT_EINVAL); /* not in the tree at 4 */
  CHECK_STR(bt_trace_errmsg(t), "no node 'Root/Wander' in the tree at 4.0000");
  CHECK_INT(bt_trace_first(t, "Nowhere", BT_RUNNING, 0, NULL), BT_EINVAL);
  CHECK_STR(bt_trace_errmsg(t), "no node 'Nowhere' in the trace's trees");
  bt_trace_free(t);
  bt_inst_free(in2);
  bt_rec_free(rec);
  bt_inst_free(in);
}

/* A Parallel runs two branches: both are the running path. */
static void test_parallel_paths(void) {
  leaf A = LEAF("Walk", BT_RUNNING), B = LEAF("Look", BT_RUNNING);
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A), b = add_leaf(g, &B), par = add_node(g, BT_PARALLEL, "Both", 0, 0);
  set_kids(g, par, 2, a, b);
  bt_inst *in = build(g, par, 0);
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  CHECK_STR(running(t, 0), "0:"); /* attached to nothing yet */
  CHECK_INT(bt_trace_dump_at(t, 0, &(bt_buf){0}), BT_EINVAL);
  REQUIRE(bt_trace_attach_inst(t, in) == BT_OK);
  think(in, 1);
  CHECK_STR(running(t, 1), "2:Both/Walk\nBoth/Look\n");
  B.status = BT_SUCCESS;
  think(in, 2);
  CHECK_STR(running(t, 2), "1:Both/Walk\n");
  CHECK_NUM(first(t, "Both/Look", BT_SUCCESS, -INFINITY), 2);
  bt_trace_free(t);
  bt_inst_free(in);
}

/* A tree of one leaf that succeeds: Step resets it, nothing runs, and a READY leaf asks for no
 * sleep: the think hibernates (0: none). */
static void test_hibernate(void) {
  leaf Done = LEAF("Done", BT_SUCCESS);
  bt_graph *g = new_graph();
  bt_inst *in = build(g, add_leaf(g, &Done), 0);
  bt_trace *t = NULL;
  REQUIRE(bt_trace_create(&t) == BT_OK);
  REQUIRE(bt_trace_attach_inst(t, in) == BT_OK);
  think(in, 1);
  CHECK_NUM(sleep_at(t, 1), NIL_VALUE);
  CHECK_NUM(first(t, "Done", BT_SUCCESS, -INFINITY), 1);
  CHECK_NUM(first(t, "Done", BT_RUNNING, -INFINITY), NIL_VALUE);
  CHECK_STR(bt_status_name(bt_trace_status_at(t, "Done", 1)), "READY");
  bt_trace_free(t);
  bt_inst_free(in);
}

int main(void) {
  if (!recorder_built()) {
    printf("test_trace: the recorder is compiled out (BT_RECORDER=OFF): attaching fails\n");
    bt_trace *t = NULL;
    REQUIRE(bt_trace_create(&t) == BT_OK);
    leaf B = LEAF("B", BT_RUNNING);
    bt_graph *g = new_graph();
    bt_inst *in = build(g, add_leaf(g, &B), 0);
    CHECK_INT(bt_trace_attach_inst(t, in), BT_EINVAL);
    bt_trace_free(t);
    bt_inst_free(in);
    return check_report("test_trace");
  }
  test_queries();
  test_failure();
  test_no_loss();
  test_chained_callback();
  test_attached_late_and_moved();
  test_parallel_paths();
  test_hibernate();
  return check_report("test_trace");
}
