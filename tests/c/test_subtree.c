/* SPDX-License-Identifier: MIT */
/* test_subtree.c: subtrees by reference (bt_lib, BT_SUBTREE, bt_def_create_lib): expansion, a
 * copy per place of reference, nesting, missing names, cycles with the names in the message,
 * replacing and removing names, trees too big once expanded, dumps and reload matching, trees
 * defined under a name (bt_def_create_named) and where each copy came from (bt_def_origin). */
#include "harness.h"

static bt_lib *new_lib(void) {
  bt_lib *lib = NULL;
  REQUIRE(bt_lib_create(&lib) == BT_OK);
  return lib;
}

static int add_ref(bt_graph *g, const char *name) { return add_node(g, BT_SUBTREE, name, 0, 0); }

/* lib[name] = the tree under root of g; frees g */
static void lib_put(bt_lib *lib, const char *name, bt_graph *g, int root) {
  REQUIRE(bt_lib_set(lib, name, g, root) == BT_OK);
  bt_graph_free(g);
}

/* "flee" = Sequence(Condition Scared, Run) */
static void put_flee(bt_lib *lib, leaf *scared, leaf *run) {
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, "Flee", 0, 0);
  set_kids(g, seq, 2, add_fn(g, BT_CONDITION, scared, "Scared"), add_leaf(g, run));
  lib_put(lib, "flee", g, seq);
}

static bt_inst *build_lib(bt_graph *g, int root, const bt_lib *lib) {
  bt_def *def = NULL;
  int rc = bt_def_create_lib(&def, g, root, lib);
  if (rc != BT_OK) {
    fprintf(stderr, "build_lib: %s (%s)\n", bt_strerror(rc), bt_graph_errmsg(g));
    exit(2);
  }
  bt_graph_free(g);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  bt_def_release(def);
  return in;
}

static void test_expand_and_run(void) {
  logs();
  leaf scared = FN("Scared", 1), run = LEAF("Run", BT_RUNNING), idle = LEAF("Idle", BT_RUNNING);
  bt_lib *lib = new_lib();
  put_flee(lib, &scared, &run);
  CHECK(bt_lib_has(lib, "flee"));
  CHECK(!bt_lib_has(lib, "fight"));
  bt_graph *g = new_graph();
  int root = add_prio(g, "Root", 1);
  int ref = add_ref(g, "flee");
  int i = add_leaf(g, &idle);
  set_kids(g, root, 2, ref, i);
  bt_inst *in = build_lib(g, root, lib);
  bt_lib_free(lib); /* the definition does not need the library */
  const bt_def *d = bt_inst_def(in);
  /* Root, flee, Flee, Scared, Run, Idle */
  CHECK_INT(bt_def_size(d), 6);
  CHECK_INT(bt_def_kind(d, 1), BT_SUBTREE);
  CHECK_STR(bt_def_name(d, 1), "flee");
  CHECK_STR(bt_kind_name(BT_SUBTREE), "SubtreeNode");
  CHECK_INT(bt_def_child_count(d, 1), 1);
  CHECK_STR(bt_def_name(d, 2), "Flee");
  CHECK_INT(bt_def_up(d, 2), 1);
  CHECK_STR(bt_def_name(d, 5), "Idle");
  /* the graph's own nodes keep their ids; the copy's come after them */
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 1)), ref);
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 5)), i);
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 2)), 3);
  /* Don't Starve's parent of the copy's root is the subtree node */
  CHECK_INT(bt_def_parent(d, bt_def_state(d, 2)), bt_def_state(d, 1));

  think(in, 10);
  CHECK_STR(logs(), "Scared Run");
  CHECK_INT(bt_node_status(in, 1), BT_RUNNING);
  CHECK_INT(bt_node_status(in, 0), BT_RUNNING);
  CHECK_INT(bt_node_status(in, 5), BT_READY);
  CHECK_NUM(sleep_of(in), 0); /* Run never slept: sleep 0 */
  CHECK_STR(dump(in),
            "Root - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00\n"
            "   >flee - RUNNING <RUNNING> ()>0.00\n"
            "   >   >Flee - RUNNING <RUNNING> (2)>0.00\n"
            "   >   >   >Scared - READY <SUCCESS> ()>0.00\n"
            "   >   >   >Run - RUNNING <RUNNING> ()>0.00\n"
            "   >Idle - READY <READY> ()>0.00\n");
  /* the running child fails: so does the subtree node, and the Priority's evaluation goes on */
  run.status = BT_FAILED;
  think(in, 11.5);
  CHECK_STR(logs(), "Run Idle");
  CHECK_INT(bt_node_last(in, 1), BT_FAILED);
  CHECK_INT(bt_node_status(in, 5), BT_RUNNING);
  /* reset and stop reach the copy */
  bt_inst_stop(in);
  CHECK_STR(logs(), "stop:Run stop:Idle");
  REQUIRE(bt_inst_reset(in) == BT_OK);
  for (int n = 0; n < 6; n++) CHECK_INT(bt_node_status(in, n), BT_READY);
  bt_inst_free(in);
}

/* Two subtree nodes naming one tree: two copies with states of their own. */
static void test_two_references_are_independent(void) {
  bt_lib *lib = new_lib();
  bt_graph *w = new_graph();
  lib_put(lib, "pause", w, add_node(w, BT_WAIT, "Pause", 1, 0));
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 2, add_ref(g, "pause"), add_ref(g, "pause"));
  bt_inst *in = build_lib(g, seq, lib);
  const bt_def *d = bt_inst_def(in);
  /* Sequence, pause, Pause, pause, Pause: five places, five states */
  CHECK_INT(bt_def_size(d), 5);
  CHECK_INT(bt_def_states(d), 5);
  CHECK(bt_def_state(d, 2) != bt_def_state(d, 4));
  think(in, 0);
  CHECK_INT(bt_node_status(in, 2), BT_RUNNING);
  CHECK_INT(bt_node_status(in, 4), BT_READY);
  CHECK_NUM(sleep_of(in), 1);
  think(in, 1);
  CHECK_INT(bt_node_last(in, 2), BT_SUCCESS);
  CHECK_INT(bt_node_status(in, 4), BT_RUNNING);
  double wake = 0;
  CHECK_INT(bt_node_get(in, 4, BT_FIELD_WAKE_TIME, &wake), 1);
  CHECK_NUM(wake, 2);
  think(in, 2);
  CHECK_INT(bt_node_status(in, 0), BT_READY); /* SUCCESS, then Step reset it */
  CHECK_INT(bt_node_last(in, 0), BT_SUCCESS);
  bt_inst_free(in);

  /* one subtree node under two parents is one node: one copy, one state */
  g = new_graph();
  seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int ref = add_ref(g, "pause");
  set_kids(g, seq, 2, ref, ref);
  in = build_lib(g, seq, lib);
  CHECK_INT(bt_def_size(bt_inst_def(in)), 5);
  CHECK_INT(bt_def_states(bt_inst_def(in)), 3);
  bt_inst_free(in);
  bt_lib_free(lib);
}

/* "fight" names "flee", which names "cower": resolved recursively when the tree is built. */
static void test_nested(void) {
  logs();
  leaf cower = LEAF("Cower", BT_SUCCESS), bite = LEAF("Bite", BT_FAILED);
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  lib_put(lib, "cower", g, add_leaf(g, &cower));
  g = new_graph();
  int sel = add_node(g, BT_SELECTOR, "Fight", 0, 0);
  set_kids(g, sel, 2, add_leaf(g, &bite), add_ref(g, "flee"));
  lib_put(lib, "fight", g, sel);
  g = new_graph(); /* defined after "fight": names are looked up when a definition is built */
  int no = add_node(g, BT_NOT, NULL, 0, 0);
  set_kids(g, no, 1, add_ref(g, "cower"));
  lib_put(lib, "flee", g, no);
  g = new_graph();
  bt_inst *in = build_lib(g, add_ref(g, "fight"), lib);
  const bt_def *d = bt_inst_def(in);
  /* fight, Fight, Bite, flee, Not, cower, Cower */
  CHECK_INT(bt_def_size(d), 7);
  const char *names[] = {"fight", "Fight", "Bite", "flee", "Not", "cower", "Cower"};
  int depth[] = {0, 1, 2, 2, 3, 4, 5};
  for (int n = 0; n < 7; n++) {
    CHECK_STR(bt_def_name(d, n), names[n]);
    CHECK_INT(bt_def_depth(d, n), depth[n]);
  }
  think(in, 0);
  CHECK_STR(logs(), "Bite Cower");
  CHECK_INT(bt_node_last(in, 3), BT_FAILED); /* Not of SUCCESS */
  CHECK_INT(bt_node_last(in, 0), BT_FAILED);
  bt_inst_free(in);
  bt_lib_free(lib);
}

static void test_missing_name(void) {
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 1, add_ref(g, "nowhere"));
  bt_def *d = NULL;
  CHECK_INT(bt_def_create_lib(&d, g, seq, lib), BT_EINVAL);
  CHECK(d == NULL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named 'nowhere'");
  /* and in a named tree: the message says where */
  lib_put(lib, "outer", g, seq);
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "outer"), lib), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named 'nowhere' (in subtree 'outer')");
  /* without a library, a subtree node cannot be built */
  CHECK_INT(bt_def_create(&d, g, 0), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "subtree 'outer': no library to find it in");
  CHECK_INT(bt_def_create_lib(&d, g, 0, NULL), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "subtree 'outer': no library to find it in");
  bt_graph_free(g);
  /* a subtree node's name is what it runs: the kind's default name without one, and "" names
   * nothing (a library refuses it) */
  g = new_graph();
  int nameless = add_node(g, BT_SUBTREE, NULL, 0, 0);
  CHECK_STR(bt_kind_default_name(BT_SUBTREE), "Subtree");
  CHECK_INT(bt_def_create_lib(&d, g, nameless, lib), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named 'Subtree'");
  int empty = add_node(g, BT_SUBTREE, "", 0, 0);
  CHECK_INT(bt_def_create_lib(&d, g, empty, lib), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named ''");
  CHECK_INT(bt_lib_set(lib, "", g, empty), BT_EINVAL);
  CHECK_STR(bt_lib_errmsg(lib), "bt_lib_set: a subtree needs a name");
  bt_graph_free(g);
  bt_lib_free(lib);
}

/* name = Sequence(subtree refs[0], ...) */
static void put_refs(bt_lib *lib, const char *name, int n, const char **refs) {
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, name, 0, 0);
  int kids[8];
  for (int i = 0; i < n; i++) kids[i] = add_ref(g, refs[i]);
  REQUIRE(bt_graph_set_children(g, seq, kids, n) == BT_OK);
  lib_put(lib, name, g, seq);
}

static void test_cycles(void) {
  leaf x = LEAF("X", BT_SUCCESS);
  bt_lib *lib = new_lib();
  bt_def *d = NULL;
  /* direct: a names itself */
  put_refs(lib, "a", 1, (const char *[]){"a"});
  bt_graph *g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "a"), lib), BT_ECYCLE);
  CHECK_STR(bt_graph_errmsg(g), "subtree cycle: a > a");
  CHECK(d == NULL);
  bt_graph_free(g);
  /* indirect: flee > fight > rally > flee, reached from a tree that names other things too */
  bt_graph *l = new_graph();
  lib_put(lib, "ok", l, add_leaf(l, &x));
  put_refs(lib, "flee", 2, (const char *[]){"ok", "fight"});
  put_refs(lib, "fight", 1, (const char *[]){"rally"});
  put_refs(lib, "rally", 2, (const char *[]){"ok", "flee"});
  g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 2, add_ref(g, "ok"), add_ref(g, "flee"));
  CHECK_INT(bt_def_create_lib(&d, g, seq, lib), BT_ECYCLE);
  CHECK_STR(bt_graph_errmsg(g), "subtree cycle: flee > fight > rally > flee");
  bt_graph_free(g);
  /* entered half-way round, the cycle is named from where it was entered */
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "fight"), lib), BT_ECYCLE);
  CHECK_STR(bt_graph_errmsg(g), "subtree cycle: fight > rally > flee > fight");
  bt_graph_free(g);
  /* break the cycle by replacing one name: the same graph builds */
  put_refs(lib, "rally", 1, (const char *[]){"ok"});
  g = new_graph();
  bt_inst *in = build_lib(g, add_ref(g, "fight"), lib);
  /* fight, fight(Seq), rally, rally(Seq), ok, X */
  CHECK_INT(bt_def_size(bt_inst_def(in)), 6);
  bt_inst_free(in);
  /* a node cycle inside a named tree is reported as bt_def_create reports it */
  g = new_graph();
  int s1 = add_node(g, BT_SEQUENCE, "S1", 0, 0), s2 = add_node(g, BT_SEQUENCE, "S2", 0, 0);
  set_kids(g, s1, 1, s2);
  set_kids(g, s2, 1, s1);
  lib_put(lib, "loop", g, s1);
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "loop"), lib), BT_ECYCLE);
  CHECK(strstr(bt_graph_errmsg(g), "is its own ancestor") != NULL);
  bt_graph_free(g);
  bt_lib_free(lib);
}

static void test_replace_and_remove(void) {
  leaf a = LEAF("A", BT_SUCCESS), b = LEAF("B", BT_SUCCESS);
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  lib_put(lib, "x", g, add_leaf(g, &a));
  bt_graph *outer = new_graph();
  int ref = add_ref(outer, "x");
  bt_def *d1 = NULL, *d2 = NULL, *d3 = NULL;
  REQUIRE(bt_def_create_lib(&d1, outer, ref, lib) == BT_OK);
  /* replacing the name affects only definitions built afterwards */
  g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, "Seq", 0, 0);
  int unreachable = add_leaf(g, &a); /* not copied into the library */
  (void)unreachable;
  set_kids(g, seq, 1, add_leaf(g, &b));
  lib_put(lib, "x", g, seq);
  REQUIRE(bt_def_create_lib(&d2, outer, ref, lib) == BT_OK);
  CHECK_INT(bt_def_size(d1), 2);
  CHECK_STR(bt_def_name(d1, 1), "A");
  CHECK_INT(bt_def_size(d2), 3);
  CHECK_STR(bt_def_name(d2, 1), "Seq");
  CHECK_STR(bt_def_name(d2, 2), "B");
  CHECK_INT(bt_def_states(d2), 3);
  CHECK(!bt_def_equal(d1, d2));
  /* reload matching follows the subtree node: x and its child Seq are new, the root matches */
  int map[8];
  CHECK_INT(bt_def_match(d1, d2, map), 1);
  CHECK_INT(map[0], 0);
  REQUIRE(bt_def_create_lib(&d3, outer, ref, lib) == BT_OK);
  CHECK(bt_def_equal(d2, d3));
  CHECK(bt_def_hash(d2) == bt_def_hash(d3));
  CHECK_INT(bt_def_match(d2, d3, map), 3);
  /* removing */
  CHECK_INT(bt_lib_remove(lib, "x"), BT_OK);
  CHECK(!bt_lib_has(lib, "x"));
  CHECK_INT(bt_lib_remove(lib, "x"), BT_EINVAL);
  CHECK_STR(bt_lib_errmsg(lib), "bt_lib_remove: no subtree named 'x'");
  bt_def *d4 = NULL;
  CHECK_INT(bt_def_create_lib(&d4, outer, ref, lib), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(outer), "no subtree named 'x'");
  /* bad arguments */
  CHECK_INT(bt_lib_set(lib, "", outer, ref), BT_EINVAL);
  CHECK_INT(bt_lib_set(lib, NULL, outer, ref), BT_EINVAL);
  CHECK_INT(bt_lib_set(lib, "y", outer, 7), BT_EINVAL);
  CHECK_STR(bt_lib_errmsg(lib), "bt_lib_set: subtree 'y': no root node 7");
  CHECK_INT(bt_lib_set(NULL, "y", outer, ref), BT_EINVAL);
  CHECK(!bt_lib_has(NULL, "y"));
  bt_lib_free(NULL);
  bt_graph_free(outer);
  bt_def_release(d1);
  bt_def_release(d2);
  bt_def_release(d3);
  bt_lib_free(lib);
}

/* Each level names the one below twice: 2^40 places once expanded. Refused at once. */
static void test_too_big(void) {
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  lib_put(lib, "l0", g, add_node(g, BT_WAIT, NULL, 1, 0));
  char name[16], below[16];
  for (int i = 1; i <= 40; i++) {
    snprintf(name, sizeof name, "l%d", i);
    snprintf(below, sizeof below, "l%d", i - 1);
    put_refs(lib, name, 2, (const char *[]){below, below});
  }
  bt_def *d = NULL;
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "l40"), lib), BT_ETOOBIG);
  CHECK_STR(bt_graph_errmsg(g), "tree has more than 1000000 nodes once its subtrees are expanded");
  CHECK(d == NULL);
  bt_graph_free(g);
  /* l17 is 2^17 Waits, 4 * 2^17 - 3 places below its subtree node: within bounds */
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "l17"), lib), BT_OK);
  CHECK_INT(bt_def_size(d), 1 + 4 * (1 << 17) - 3);
  bt_def_release(d);
  bt_graph_free(g);

  /* 1000 names each naming the next: deeper than BT_MAX_DEPTH */
  for (int i = 0; i < 1000; i++) {
    snprintf(name, sizeof name, "d%d", i);
    snprintf(below, sizeof below, "d%d", i + 1);
    g = new_graph();
    lib_put(lib, name, g, add_ref(g, below));
  }
  g = new_graph();
  lib_put(lib, "d1000", g, add_node(g, BT_WAIT, NULL, 1, 0));
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "d0"), lib), BT_ETOOBIG);
  CHECK(strstr(bt_graph_errmsg(g), "deeper than 1000 levels") != NULL);
  bt_graph_free(g);
  /* ... while 400 of them are fine */
  g = new_graph();
  CHECK_INT(bt_def_create_lib(&d, g, add_ref(g, "d600"), lib), BT_OK);
  CHECK_INT(bt_def_size(d), 402);
  CHECK_INT(bt_def_depth(d, 401), 401);
  bt_def_release(d);
  bt_graph_free(g);
  bt_lib_free(lib);
}

/* An EventNode inside a subtree clears the clock of the Priority above the subtree node. */
static void test_event_through_subtree(void) {
  logs();
  leaf act = LEAF("Act", BT_SUCCESS), idle = LEAF("Idle", BT_RUNNING);
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  int ev = add_node(g, BT_EVENT, "Event(hit)", 0, 0);
  set_kids(g, ev, 1, add_leaf(g, &act));
  lib_put(lib, "react", g, ev);
  g = new_graph();
  int root = add_prio(g, "Root", 10);
  set_kids(g, root, 2, add_ref(g, "react"), add_leaf(g, &idle));
  bt_inst *in = build_lib(g, root, lib);
  think(in, 0);
  CHECK_STR(logs(), "Idle");
  think(in, 1); /* within the period: Idle resumes */
  CHECK_STR(logs(), "Idle");
  CHECK_INT(bt_inst_fire_event(in, 2), BT_OK);
  think(in, 2); /* the Priority evaluates at once */
  CHECK_STR(logs(), "Act");
  CHECK_INT(bt_node_last(in, 1), BT_SUCCESS);
  bt_inst_free(in);
  bt_lib_free(lib);
}

static int walk_update(bt_call *c) {
  (void)c;
  log_add("update");
  return BT_RUNNING;
}
static void walk_finish(bt_call *c, bt_status st) {
  (void)c;
  log_addf("finish:%s", bt_status_name(st));
}
static const bt_task WALK = {NULL, walk_update, walk_finish};

/* A task in a subtree that a Priority interrupts is told ABORTED, through the subtree node. */
static void test_task_interrupted(void) {
  logs();
  leaf danger = FN("Danger", 0);
  bt_lib *lib = new_lib();
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.name = "Walk";
  s.task = &WALK;
  lib_put(lib, "walk", g, bt_graph_add(g, &s));
  g = new_graph();
  int root = add_prio(g, "Root", 1);
  int c = add_fn(g, BT_CONDITION, &danger, "Danger");
  set_kids(g, root, 2, c, add_ref(g, "walk"));
  bt_inst *in = build_lib(g, root, lib);
  think(in, 0);
  CHECK_STR(logs(), "Danger update");
  CHECK_INT(bt_node_status(in, 2), BT_RUNNING);
  danger.result = 1;
  think(in, 2);
  CHECK_STR(logs(), "Danger finish:ABORTED");
  CHECK_INT(bt_node_status(in, 2), BT_READY);
  bt_inst_free(in);
  bt_lib_free(lib);
}

/* A subtree node given its child by hand counts as resolved: bt_def_create runs it. */
static void test_resolved_by_hand(void) {
  leaf a = LEAF("A", BT_FAILED);
  bt_graph *g = new_graph();
  int ref = add_ref(g, "mine");
  set_kids(g, ref, 1, add_leaf(g, &a));
  bt_inst *in = build(g, ref, 0);
  think(in, 0);
  CHECK_INT(bt_node_last(in, 0), BT_FAILED);
  bt_inst_free(in);
  g = new_graph();
  ref = add_ref(g, "two");
  set_kids(g, ref, 2, add_leaf(g, &a), add_leaf(g, &a));
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, ref), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "subtree 'two': a SubtreeNode runs one tree, it has 2 children");
  bt_graph_free(g);
}

/* A tree defined under a name: its own references to the name are a cycle that starts there, and
 * the tree of that name already in the library is not used (it is the one being replaced). */
static void test_named(void) {
  leaf x = LEAF("X", BT_SUCCESS), w = LEAF("W", BT_RUNNING);
  bt_lib *lib = new_lib();
  bt_def *d = NULL;
  /* a > a */
  bt_graph *g = new_graph();
  int seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 1, add_ref(g, "a"));
  CHECK_INT(bt_def_create_named(&d, g, seq, lib, "a"), BT_ECYCLE);
  CHECK_STR(bt_graph_errmsg(g), "subtree cycle: a > a");
  CHECK(d == NULL);
  bt_graph_free(g);
  /* a > c > b > a, with an older "a" in the library that runs nothing */
  g = new_graph();
  lib_put(lib, "a", g, add_leaf(g, &w));
  put_refs(lib, "b", 1, (const char *[]){"a"});
  put_refs(lib, "c", 1, (const char *[]){"b"});
  g = new_graph();
  seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 2, add_leaf(g, &x), add_ref(g, "c"));
  CHECK_INT(bt_def_create_named(&d, g, seq, lib, "a"), BT_ECYCLE);
  CHECK_STR(bt_graph_errmsg(g), "subtree cycle: a > c > b > a");
  /* built as itself (not as "a"), the same graph runs the old "a" through c and b */
  CHECK_INT(bt_def_create_lib(&d, g, seq, lib), BT_OK);
  CHECK_INT(bt_def_size(d), 8); /* Sequence, X, c, c, b, b, a, W */
  bt_def_release(d);
  bt_graph_free(g);
  /* a missing name is said to be in the tree being defined */
  g = new_graph();
  seq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, seq, 1, add_ref(g, "missing"));
  CHECK_INT(bt_def_create_named(&d, g, seq, lib, "outer"), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named 'missing' (in subtree 'outer')");
  CHECK_INT(bt_def_create_named(&d, g, seq, NULL, "outer"), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "no subtree named 'missing' (in subtree 'outer')");
  CHECK_INT(bt_def_create_named(&d, g, seq, lib, ""), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "bt_def_create_named: a subtree needs a name");
  bt_graph_free(g);
  /* without references, it is bt_def_create */
  g = new_graph();
  CHECK_INT(bt_def_create_named(&d, g, add_leaf(g, &x), lib, "solo"), BT_OK);
  CHECK_INT(bt_def_size(d), 1);
  bt_def_release(d);
  bt_graph_free(g);
  bt_lib_free(lib);
}

/* bt_def_origin: each state of a definition names the library tree it was copied from, and its
 * id in the graph that was given to bt_lib_set. */
static void test_origin(void) {
  leaf scared = FN("Scared", 1), run = LEAF("Run", BT_RUNNING), idle = LEAF("Idle", BT_RUNNING);
  bt_lib *lib = new_lib();
  /* "flee" is built from a graph in which its nodes are not the first: ids 2, 4 and 3 */
  bt_graph *g = new_graph();
  add_leaf(g, &idle);
  add_leaf(g, &idle);
  int seq = add_node(g, BT_SEQUENCE, "Flee", 0, 0);
  int run_id = add_leaf(g, &run), scared_id = add_fn(g, BT_CONDITION, &scared, "Scared");
  set_kids(g, seq, 2, scared_id, run_id);
  lib_put(lib, "flee", g, seq);
  g = new_graph();
  int root = add_prio(g, "Root", 1);
  int ref1 = add_ref(g, "flee"), i = add_leaf(g, &idle), ref2 = add_ref(g, "flee");
  set_kids(g, root, 3, ref1, i, ref2);
  bt_inst *in = build_lib(g, root, lib);
  bt_lib_free(lib); /* the names stay with the definition */
  const bt_def *d = bt_inst_def(in);
  /* Root, flee, Flee, Scared, Run, Idle, flee, Flee, Scared, Run */
  CHECK_INT(bt_def_size(d), 10);
  const char *from[] = {NULL, NULL, "flee", "flee", "flee", NULL, NULL, "flee", "flee", "flee"};
  int ids[] = {root, ref1, seq, scared_id, run_id, i, ref2, seq, scared_id, run_id};
  for (int n = 0; n < 10; n++) {
    int id = -5;
    const char *name = bt_def_origin(d, bt_def_state(d, n), &id);
    if (from[n]) CHECK_STR(name ? name : "(null)", from[n]);
    else CHECK(name == NULL);
    CHECK_INT(id, ids[n]);
  }
  int id = 0;
  CHECK(bt_def_origin(d, -1, &id) == NULL);
  CHECK_INT(id, -1);
  CHECK(bt_def_origin(d, bt_def_states(d), &id) == NULL);
  CHECK_INT(id, -1);
  bt_inst_free(in);
  /* a definition built without a library: its own graph ids */
  g = new_graph();
  add_leaf(g, &idle);
  int s2 = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, s2, 1, 0);
  in = build(g, s2, 0);
  CHECK(bt_def_origin(bt_inst_def(in), 1, &id) == NULL);
  CHECK_INT(id, 0);
  bt_inst_free(in);
}

int main(void) {
  test_expand_and_run();
  test_two_references_are_independent();
  test_nested();
  test_missing_name();
  test_cycles();
  test_replace_and_remove();
  test_too_big();
  test_event_through_subtree();
  test_resolved_by_hand();
  test_task_interrupted();
  test_named();
  test_origin();
  return check_report("test_subtree");
}
