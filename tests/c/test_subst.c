/* SPDX-License-Identifier: MIT */
/* test_subst.c: the test kit's substitution (bt_test.h, src/test/subst.c): a definition like
 * another with some nodes replaced by path, by name and by function; what each replacement does
 * over time; shared nodes, subtrees, keys; the errors; and that the copy thinks as the original
 * where nothing was replaced. */
#include "check.h"
#include "harness.h"
#include "bt_test.h"

static const bt_subst_as SUCCEED = {BT_SUBST_RESULT, BT_SUCCESS, 0, NULL, NULL};
static const bt_subst_as FAIL = {BT_SUBST_RESULT, BT_FAILED, 0, NULL, NULL};

/* A bt_fn leaf of its own, to find by function: it logs its name (the leaf's) as leaf_fn does. */
static int attack(bt_call *c) { return leaf_fn(c); }

static bt_def *make(bt_graph *g, int root) {
  bt_def *d = NULL;
  int rc = bt_def_create(&d, g, root);
  if (rc != BT_OK) {
    fprintf(stderr, "make: %s\n", bt_graph_errmsg(g));
    exit(2);
  }
  bt_graph_free(g);
  return d;
}

static bt_inst *inst_of(bt_def *d) {
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, d, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  return in;
}

static bt_def *substituted(bt_subst *s, const bt_def *d) {
  bt_def *out = NULL;
  int rc = bt_subst_apply(s, d, &out);
  if (rc != BT_OK) {
    fprintf(stderr, "bt_subst_apply: %s\n", bt_subst_errmsg(s));
    exit(2);
  }
  return out;
}

/* The path of node i of d. */
static char PATH[512];
static const char *path_of(const bt_def *d, int i) {
  bt_buf b = {0};
  REQUIRE(bt_def_path(d, i, &b) == BT_OK);
  snprintf(PATH, sizeof PATH, "%s", b.data ? b.data : "");
  bt_buf_free(&b);
  return PATH;
}

/* Root: a Sequence of Hungry (Condition), Eat (Action), Wander (a C behaviour). */
typedef struct eater {
  leaf hungry, eat, wander;
  bt_def *def;
} eater;

static void make_eater(eater *e) {
  e->hungry = (leaf)FN("Hungry", 1);
  e->eat = (leaf)FN("Eat", 1);
  e->wander = (leaf)LEAF("Wander", BT_SUCCESS);
  bt_graph *g = new_graph();
  int root = add_node(g, BT_SEQUENCE, "Root", 0, 0);
  set_kids(g, root, 3, add_fn(g, BT_CONDITION, &e->hungry, "Hungry"), add_fn(g, BT_ACTION, &e->eat, "Eat"),
           add_leaf(g, &e->wander));
  e->def = make(g, root);
}

static void test_by_path(void) {
  eater e;
  make_eater(&e);
  bt_subst *s = NULL;
  CHECK_INT(bt_subst_create(&s), BT_OK);
  CHECK_INT(bt_subst_path(s, "Root/Eat", &FAIL), 0);
  bt_def *d = substituted(s, e.def);
  CHECK_INT(bt_subst_matches(s, 0), 1);
  /* the same shape and names: every path is the original's */
  CHECK_INT(bt_def_size(d), bt_def_size(e.def));
  for (int i = 0; i < bt_def_size(d); i++) {
    char was[512];
    snprintf(was, sizeof was, "%s", path_of(e.def, i));
    CHECK_STR(path_of(d, i), was);
  }
  CHECK_INT(bt_def_kind(d, 2), BT_BEHAVIOUR);
  CHECK_INT(bt_def_kind(d, 1), BT_CONDITION);
  /* the Sequence fails at Eat, whose function is not called; Wander is not reached */
  bt_inst *in = inst_of(d);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "Hungry");
  CHECK_STR(bt_status_name(bt_node_last(in, 0)), "FAILED");
  CHECK_STR(bt_status_name(bt_node_last(in, 2)), "FAILED");
  CHECK_INT(e.eat.calls, 0);
  CHECK_INT(e.wander.calls, 0);
  /* the original is untouched: it still eats and wanders */
  bt_inst *orig = inst_of(e.def);
  think(orig, 0);
  CHECK_STR(logs(), "Hungry Eat Wander");
  CHECK_STR(bt_status_name(bt_node_last(orig, 0)), "SUCCESS");
  bt_inst_free(orig);
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(e.def);
}

/* Two nodes named Wander, in two places, run 3 s then succeed; the dump keeps the names. */
static void test_by_name_run(void) {
  leaf w1 = LEAF("Wander", BT_FAILED), w2 = LEAF("Wander", BT_FAILED), idle = LEAF("Idle", BT_SUCCESS);
  bt_graph *g = new_graph();
  int root = add_node(g, BT_SELECTOR, "Root", 0, 0);
  int day = add_node(g, BT_SEQUENCE, "Day", 0, 0);
  set_kids(g, day, 1, add_leaf(g, &w1));
  int night = add_node(g, BT_SEQUENCE, "Night", 0, 0);
  set_kids(g, night, 2, add_leaf(g, &w2), add_leaf(g, &idle));
  set_kids(g, root, 2, day, night);
  bt_def *orig = make(g, root);
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  bt_subst_as run = {BT_SUBST_RUN, BT_SUCCESS, 3, NULL, NULL};
  CHECK_INT(bt_subst_name(s, "Wander", &run), 0);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_subst_matches(s, 0), 2);
  bt_inst *in = inst_of(d);
  think(in, 10);
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_NUM(sleep_of(in), 3);
  think(in, 12.5);
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_NUM(sleep_of(in), 0.5);
  think(in, 13);
  CHECK_STR(dump(in), "Root - READY <SUCCESS> ()>0.00\n"
                      "   >Day - READY <SUCCESS> ()>0.00\n"
                      "   >   >Wander - READY <SUCCESS> ()>0.00\n"
                      "   >Night - READY <READY> ()>0.00\n"
                      "   >   >Wander - READY <READY> ()>0.00\n"
                      "   >   >Idle - READY <READY> ()>0.00\n");
  /* the next run starts again from its first visit */
  think(in, 20);
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_NUM(sleep_of(in), 3);
  CHECK_INT(w1.calls + w2.calls, 0);
  bt_inst_free(in);
  bt_def_release(d);
  /* run then fail, and a run of 0 seconds is a result at once */
  bt_subst *f = NULL;
  REQUIRE(bt_subst_create(&f) == BT_OK);
  bt_subst_as run_fail = {BT_SUBST_RUN, BT_FAILED, 1, NULL, NULL}, now = {BT_SUBST_RUN, BT_SUCCESS, 0, NULL, NULL};
  CHECK_INT(bt_subst_path(f, "Root/Day/Wander", &run_fail), 0);
  CHECK_INT(bt_subst_path(f, "Root/Night/Wander", &now), 1);
  d = substituted(f, orig);
  in = inst_of(d);
  think(in, 0);
  CHECK_STR(ST(in, 0), "RUNNING");
  think(in, 1);
  /* Day fails after its run; Night's Wander succeeds at once, then Idle */
  CHECK_STR(LAST(in, root), "SUCCESS");
  CHECK_STR(LAST(in, day), "FAILED");
  CHECK_STR(LAST(in, night), "SUCCESS");
  CHECK_INT(idle.calls, 1);
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(f);
  bt_subst_free(s);
  bt_def_release(orig);
}

/* Replaced by function: attack's two Actions; a C behaviour's visit (LEAF_OPS) */
static void test_by_fn(void) {
  leaf bite = FN("Bite", 1), claw = FN("Claw", 1), roar = LEAF("Roar", BT_SUCCESS), look = FN("Look", 1);
  bt_graph *g = new_graph();
  int root = add_node(g, BT_SEQUENCE, "Root", 0, 0);
  bt_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = BT_ACTION;
  sp.fn = attack;
  sp.ud = &bite;
  sp.name = "Bite";
  int b = bt_graph_add(g, &sp);
  sp.ud = &claw;
  sp.name = "Claw";
  int c = bt_graph_add(g, &sp);
  set_kids(g, root, 4, add_fn(g, BT_CONDITION, &look, "Look"), b, c, add_leaf(g, &roar));
  bt_def *orig = make(g, root);
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_fn(s, attack, &SUCCEED), 0);
  CHECK_INT(bt_subst_fn(s, leaf_visit, &FAIL), 1);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_subst_matches(s, 0), 2);
  CHECK_INT(bt_subst_matches(s, 1), 1);
  bt_inst *in = inst_of(d);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "Look");
  CHECK_STR(LAST(in, root), "FAILED");
  CHECK_STR(LAST(in, b), "SUCCESS");
  CHECK_STR(LAST(in, c), "SUCCESS");
  CHECK_INT(bite.calls + claw.calls + roar.calls, 0);
  CHECK_STR(path_of(d, 4), "Root/Roar");
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(orig);
}

/* BT_SUBST_CALL: the test's function, with the node's call; RUNNING with a sleep of its own */
typedef struct script {
  int calls;
  int node;
  const bt_inst *inst;
} script;

static int scripted(bt_call *c) {
  script *sc = c->ud;
  sc->calls++;
  sc->node = c->node;
  sc->inst = c->inst;
  if (sc->calls == 1) {
    bt_node_sleep(c->inst, c->node, 4);
    return BT_RUNNING;
  }
  if (sc->calls == 2) return BT_SUCCESS;
  return 7; /* no status: the node fails */
}

static void test_call(void) {
  eater e;
  make_eater(&e);
  script sc = {0, -1, NULL};
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  bt_subst_as call = {BT_SUBST_CALL, 0, 0, scripted, &sc};
  CHECK_INT(bt_subst_name(s, "Eat", &call), 0);
  bt_def *d = substituted(s, e.def);
  bt_inst *in = inst_of(d);
  think(in, 1);
  CHECK_INT(sc.calls, 1);
  CHECK_INT(sc.node, 2);
  CHECK(sc.inst == in);
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_NUM(sleep_of(in), 4);
  think(in, 5);
  CHECK_STR(LST(in, 0), "SUCCESS");
  CHECK_INT(e.wander.calls, 1);
  think(in, 6);
  CHECK_STR(LST(in, 0), "FAILED");
  CHECK_INT(e.eat.calls, 0);
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(e.def);
}

/* A leaf under two parents is one node: replaced at both places, one state still */
static void test_shared(void) {
  leaf eat = FN("Eat", 1), a = FN("A", 1), b = FN("B", 0);
  bt_graph *g = new_graph();
  int root = add_node(g, BT_SELECTOR, "Root", 0, 0);
  int eat_id = add_fn(g, BT_ACTION, &eat, "Eat");
  int s1 = add_node(g, BT_SEQUENCE, "First", 0, 0), s2 = add_node(g, BT_SEQUENCE, "Second", 0, 0);
  set_kids(g, s1, 2, add_fn(g, BT_CONDITION, &b, "B"), eat_id);
  set_kids(g, s2, 2, add_fn(g, BT_CONDITION, &a, "A"), eat_id);
  set_kids(g, root, 2, s1, s2);
  bt_def *orig = make(g, root);
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_path(s, "Root/Second/Eat", &FAIL), 0);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_subst_matches(s, 0), 1);
  CHECK_INT(bt_def_states(d), bt_def_states(orig));
  CHECK_INT(bt_def_size(d), bt_def_size(orig));
  CHECK_INT(bt_def_state(d, 3), bt_def_state(d, 6)); /* Root/First/Eat and Root/Second/Eat */
  CHECK_INT(bt_def_kind(d, 3), BT_BEHAVIOUR);
  CHECK_INT(bt_def_kind(d, 6), BT_BEHAVIOUR);
  bt_inst *in = inst_of(d);
  think(in, 0);
  CHECK_STR(LAST(in, root), "FAILED");
  CHECK_INT(eat.calls, 0);
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(orig);
}

/* Subtrees: a leaf inside a library tree's copy, by its path through the subtree node; and the
 * subtree node itself, which becomes a leaf */
static void test_subtree(void) {
  leaf scared = FN("Scared", 1), run = FN("Run", 1), wander = LEAF("Wander", BT_RUNNING);
  bt_lib *lib = NULL;
  REQUIRE(bt_lib_create(&lib) == BT_OK);
  bt_graph *fg = new_graph();
  int seq = add_node(fg, BT_SEQUENCE, NULL, 0, 0);
  set_kids(fg, seq, 2, add_fn(fg, BT_CONDITION, &scared, "Scared"), add_fn(fg, BT_ACTION, &run, "Run"));
  REQUIRE(bt_lib_set(lib, "flee", fg, seq) == BT_OK);
  bt_graph_free(fg);
  bt_graph *g = new_graph();
  int root = add_prio(g, "Root", 1);
  set_kids(g, root, 2, add_node(g, BT_SUBTREE, "flee", 0, 0), add_leaf(g, &wander));
  bt_def *orig = NULL;
  REQUIRE(bt_def_create_lib(&orig, g, root, lib) == BT_OK);
  bt_graph_free(g);
  bt_lib_free(lib);
  CHECK_STR(path_of(orig, 3), "Root/flee/Sequence/Scared");

  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_path(s, "Root/flee/Sequence/Scared", &FAIL), 0);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_def_size(d), 6);
  CHECK_STR(path_of(d, 4), "Root/flee/Sequence/Run");
  bt_inst *in = inst_of(d);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "Wander");
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_STR(bt_status_name(bt_node_last(in, 1)), "FAILED");
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);

  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_path(s, "Root/flee", &SUCCEED), 0);
  d = substituted(s, orig);
  CHECK_INT(bt_def_size(d), 3); /* the copy under it is gone */
  CHECK_STR(path_of(d, 1), "Root/flee");
  CHECK_STR(path_of(d, 2), "Root/Wander");
  in = inst_of(d);
  logs();
  think(in, 0);
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, 0), "SUCCESS");
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(orig);
}

/* Keys and ports come along: a tree with a blackboard, Hunt (which writes prey) replaced */
static void test_keys(void) {
  leaf hunt = LEAF("Hunt", BT_RUNNING), sleep_ = LEAF("Sleep", BT_RUNNING), wander = LEAF("Wander", BT_RUNNING);
  bt_def *orig = board_def(&hunt, &sleep_, &wander);
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_name(s, "Hunt", &SUCCEED), 0);
  CHECK_INT(bt_subst_path(s, "Root/Wander", &FAIL), 1);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_def_key_count(d), bt_def_key_count(orig));
  for (int k = 0; k < bt_def_key_count(d); k++) {
    CHECK_STR(bt_def_key_name(d, k), bt_def_key_name(orig, k));
    CHECK_INT(bt_def_key_type(d, k), bt_def_key_type(orig, k));
    CHECK_INT(bt_def_key_flags(d, k), bt_def_key_flags(orig, k));
  }
  CHECK_INT(bt_def_port_count(d, 2), 2); /* Hunt's ports stay */
  bt_inst *in = inst_of(d);
  think(in, 0);
  CHECK_STR(LST(in, 0), "FAILED"); /* not hungry, not night, Wander fails */
  CHECK_INT(set_key(in, KEY_HUNGER, num_value(0.9)), BT_OK);
  think(in, 0.5);
  CHECK_STR(LST(in, 0), "SUCCESS"); /* the watch let Hungry run Hunt, which succeeds */
  CHECK_INT(hunt.calls + wander.calls, 0);
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(orig);
}

static void test_errors(void) {
  eater e;
  make_eater(&e);
  bt_subst *s = NULL;
  CHECK_INT(bt_subst_create(NULL), BT_EINVAL);
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_STR(bt_subst_errmsg(s), "");
  bt_def *d = (bt_def *)1;
  CHECK_INT(bt_subst_apply(s, e.def, &d), BT_EINVAL);
  CHECK(d == NULL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_apply: no rules (bt_subst_path, _name, _fn add them)");
  CHECK_INT(bt_subst_path(NULL, "Root", &FAIL), BT_EINVAL);
  CHECK_INT(bt_subst_path(s, NULL, &FAIL), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_path: the path is NULL");
  CHECK_INT(bt_subst_name(s, "", &FAIL), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_name: the name is empty");
  CHECK_INT(bt_subst_fn(s, NULL, &FAIL), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_fn: the function is NULL");
  CHECK_INT(bt_subst_path(s, "Root", NULL), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_path: as is NULL");
  bt_subst_as bad = {BT_SUBST_RESULT, BT_RUNNING, 0, NULL, NULL};
  CHECK_INT(bt_subst_path(s, "Root", &bad), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_path: result 3 is not BT_SUCCESS or BT_FAILED");
  bad = (bt_subst_as){BT_SUBST_RUN, BT_SUCCESS, -1, NULL, NULL};
  CHECK_INT(bt_subst_name(s, "Eat", &bad), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_name: a run of -1 seconds (as->seconds must be a number >= 0)");
  bad.seconds = NAN;
  CHECK_INT(bt_subst_name(s, "Eat", &bad), BT_EINVAL);
  bad = (bt_subst_as){BT_SUBST_CALL, 0, 0, NULL, NULL};
  CHECK_INT(bt_subst_name(s, "Eat", &bad), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_name: BT_SUBST_CALL without a function (as->fn is NULL)");
  bad = (bt_subst_as){0, BT_SUCCESS, 0, NULL, NULL};
  CHECK_INT(bt_subst_name(s, "Eat", &bad), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_name: as->how 0 is not BT_SUBST_RESULT, BT_SUBST_RUN or BT_SUBST_CALL");
  CHECK_INT(bt_subst_matches(s, 0), BT_EINVAL); /* no rule was added */
  CHECK_INT(bt_subst_matches(NULL, 0), BT_EINVAL);

  /* rules that match nothing are named, the first of them */
  CHECK_INT(bt_subst_path(s, "Root/Eat", &FAIL), 0);
  CHECK_INT(bt_subst_path(s, "Root/Eet", &FAIL), 1);
  CHECK_INT(bt_subst_fn(s, attack, &FAIL), 2);
  CHECK_INT(bt_subst_apply(s, e.def, &d), BT_EINVAL);
  CHECK(d == NULL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_apply: rule 2 (path 'Root/Eet') matches no node of the tree 'Root'");
  CHECK_INT(bt_subst_apply(s, NULL, &d), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_apply: def is NULL");
  CHECK_INT(bt_subst_apply(s, e.def, NULL), BT_EINVAL);
  CHECK_INT(bt_subst_apply(NULL, e.def, &d), BT_EINVAL);
  bt_subst_free(s);

  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_fn(s, attack, &FAIL), 0);
  CHECK_INT(bt_subst_apply(s, e.def, &d), BT_EINVAL);
  CHECK_STR(bt_subst_errmsg(s), "bt_subst_apply: rule 1 (fn) matches no node of the tree 'Root'");
  CHECK_INT(bt_subst_name(s, "Wander", &FAIL), 1);
  /* the first rule added wins where two match, and a set serves again */
  bt_subst_free(s);
  REQUIRE(bt_subst_create(&s) == BT_OK);
  CHECK_INT(bt_subst_name(s, "Eat", &FAIL), 0);
  CHECK_INT(bt_subst_path(s, "Root/Eat", &SUCCEED), 1);
  d = substituted(s, e.def);
  bt_inst *in = inst_of(d);
  think(in, 0);
  CHECK_STR(LST(in, 0), "FAILED");
  bt_inst_free(in);
  bt_def_release(d);
  d = substituted(s, e.def);
  CHECK_INT(bt_subst_matches(s, 0), 1);
  CHECK_INT(bt_subst_matches(s, 1), 1);
  bt_subst_free(s); /* the copy needs nothing of the set */
  in = inst_of(d);
  think(in, 0);
  CHECK_STR(LST(in, 0), "FAILED");
  bt_inst_free(in);
  bt_def_release(d);
  bt_subst_free(NULL);
  bt_def_release(e.def);
}

/* A copy whose replaced leaf does what the original did thinks as the original: the same dump
 * (statuses, last results, sleep times) after every think of a scripted run, on a tree of many
 * kinds. The replacement of Scared calls Scared's own function. */
static int like_condition(bt_call *c) { return leaf_fn(c) ? BT_SUCCESS : BT_FAILED; }

static void test_same_as_original(void) {
  leaf scared = FN("Scared", 0), runaway = FN("RunAway", 1), hungry = FN("Hungry", 0), full = FN("Full", 0);
  leaf wander = LEAF("Wander", BT_RUNNING), baa = FN("Baa", 1);
  wander.sleep = 0.5;
  bt_graph *g = new_graph();
  int root = add_prio(g, "Root", 1);
  int flee = add_node(g, BT_SEQUENCE, "Flee", 0, 0);
  int scared_id = add_fn(g, BT_CONDITION, &scared, "Scared");
  set_kids(g, flee, 2, scared_id, add_fn(g, BT_ACTION, &runaway, "RunAway"));
  int food = add_node(g, BT_SELECTOR, "Food", 0, 0);
  int eat = add_node(g, BT_SEQUENCE, "Eat", 0, 0);
  set_kids(g, eat, 2, add_fn(g, BT_CONDITION, &hungry, "Hungry"), add_node(g, BT_WAIT, "Chew", 2, 0));
  int not_full = add_node(g, BT_NOT, NULL, 0, 0);
  set_kids(g, not_full, 1, add_fn(g, BT_CONDITION, &full, "Full"));
  set_kids(g, food, 2, eat, not_full);
  int roam = add_node(g, BT_PARALLEL, "Roam", 0, 0);
  int loop = add_node(g, BT_LOOP, NULL, 2, 0);
  set_kids(g, loop, 1, add_fn(g, BT_ACTION, &baa, "Baa"));
  set_kids(g, roam, 2, add_leaf(g, &wander), loop);
  set_kids(g, root, 3, flee, food, roam);
  bt_def *orig = make(g, root);
  bt_subst *s = NULL;
  REQUIRE(bt_subst_create(&s) == BT_OK);
  bt_subst_as same = {BT_SUBST_CALL, 0, 0, like_condition, &scared};
  CHECK_INT(bt_subst_path(s, "Root/Flee/Scared", &same), 0);
  bt_def *d = substituted(s, orig);
  CHECK_INT(bt_def_kind(d, 2), BT_BEHAVIOUR);
  bt_inst *a = inst_of(orig), *b = inst_of(d);
  /* the input: Scared from 2 s to 3 s, Hungry from 4 s to 6 s, Full but then */
  int differ = 0;
  for (int step = 0; step <= 40; step++) {
    double t = step * 0.25;
    scared.result = t >= 2 && t < 3;
    hungry.result = t >= 4 && t < 6;
    full.result = t < 4 || t >= 6;
    think(a, t);
    char da[16384];
    snprintf(da, sizeof da, "%s", dump(a));
    double sa = sleep_of(a);
    think(b, t);
    if (strcmp(da, dump(b)) != 0 || sa != sleep_of(b)) {
      if (!differ) fprintf(stderr, "at %.2f:\n%s---\n%s", t, da, dump(b));
      differ++;
    }
  }
  CHECK_INT(differ, 0);
  /* and the run went through every branch: it is a test of something */
  CHECK(runaway.calls > 0);
  CHECK(baa.calls > 0);
  CHECK(full.calls > 0);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_def_release(d);
  bt_subst_free(s);
  bt_def_release(orig);
}

int main(void) {
  test_by_path();
  test_by_name_run();
  test_by_fn();
  test_call();
  test_shared();
  test_subtree();
  test_keys();
  test_errors();
  test_same_as_original();
  return check_report("test_subst");
}
