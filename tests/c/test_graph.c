/* SPDX-License-Identifier: MIT */
/* test_graph.c: graphs and definitions (the bt_def_* accessors, shared nodes, names), graph errors
 * (cycles, decorators without exactly one child, depth and size limits, bad ids), node fields
 * (bt_node_get / bt_node_set), the *_as base-class calls, and the name tables. Names and defaults
 * come from behaviourtree.lua (class names, the names each constructor passes). */
#include "harness.h"

static void test_def_accessors(void) {
  logs();
  leaf C = FN("C", 1), X = LEAF("X", BT_SUCCESS), U = LEAF("U", BT_SUCCESS);
  bt_graph *g = new_graph();
  CHECK_STR(bt_graph_errmsg(g), "");
  int r = add_prio(g, "Root", 1);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int x = add_leaf(g, &X);
  int u = add_leaf(g, &U); /* not reachable from the root */
  CHECK_INT(r, 0);
  CHECK_INT(u, 4);
  set_kids(g, s, 2, c, x);
  set_kids(g, r, 2, s, x);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, r), BT_OK);
  bt_graph_free(g);
  /* pre-order: Root 0, Sequence 1, Condition 2, X 3, X 4 */
  CHECK_INT(bt_def_size(d), 5);
  CHECK_INT(bt_def_states(d), 4);
  CHECK(bt_def_inst_size(d) > 0);
  CHECK_INT(bt_def_kind(d, 0), BT_PRIORITY);
  CHECK_INT(bt_def_kind(d, 1), BT_SEQUENCE);
  CHECK_INT(bt_def_kind(d, 2), BT_CONDITION);
  CHECK_INT(bt_def_kind(d, 3), BT_BEHAVIOUR);
  CHECK_INT(bt_def_kind(d, 4), BT_BEHAVIOUR);
  CHECK_STR(bt_def_name(d, 0), "Root");
  CHECK_STR(bt_def_name(d, 1), "Sequence");
  CHECK_STR(bt_def_name(d, 2), "Condition");
  CHECK_STR(bt_def_name(d, 3), "X");
  CHECK_STR(bt_def_name(d, 4), "X");
  int depth[] = {0, 1, 2, 2, 1}, up[] = {-1, 0, 1, 1, 0}, count[] = {2, 2, 0, 0, 0};
  for (int i = 0; i < 5; i++) {
    CHECK_INT(bt_def_depth(d, i), depth[i]);
    CHECK_INT(bt_def_up(d, i), up[i]);
    CHECK_INT(bt_def_child_count(d, i), count[i]);
  }
  CHECK_INT(bt_def_child(d, 0, 0), 1);
  CHECK_INT(bt_def_child(d, 0, 1), 4);
  CHECK_INT(bt_def_child(d, 1, 0), 2);
  CHECK_INT(bt_def_child(d, 1, 1), 3);
  /* one state for both places of X */
  CHECK_INT(bt_def_state(d, 3), bt_def_state(d, 4));
  CHECK(bt_def_state(d, 0) != bt_def_state(d, 1));
  CHECK_INT(bt_def_node_of_state(d, bt_def_state(d, 4)), 3);
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 4)), x);
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 0)), r);
  CHECK_INT(bt_def_graph_id(d, bt_def_state(d, 2)), c);
  for (int st = 0; st < 4; st++) CHECK_INT(bt_def_state(d, bt_def_node_of_state(d, st)), st);
  /* bad indices */
  CHECK_INT(bt_def_kind(d, 5), -1);
  CHECK_INT(bt_def_kind(d, -1), -1);
  CHECK(bt_def_name(d, 5) == NULL);
  CHECK_INT(bt_def_depth(d, 5), -1);
  CHECK_INT(bt_def_child_count(d, -1), -1);
  CHECK_INT(bt_def_child(d, 0, 2), -1);
  CHECK_INT(bt_def_child(d, 0, -1), -1);
  CHECK_INT(bt_def_child(d, 9, 0), -1);
  CHECK_INT(bt_def_up(d, 99), -1);
  CHECK_INT(bt_def_state(d, 99), -1);
  CHECK_INT(bt_def_node_of_state(d, 4), -1);
  CHECK_INT(bt_def_node_of_state(d, -1), -1);
  CHECK_INT(bt_def_graph_id(d, 4), -1);

  /* paths: a name its siblings share gets "#k"; each path finds its node again */
  static const char *const paths[] = {"Root", "Root/Sequence", "Root/Sequence/Condition", "Root/Sequence/X",
                                      "Root/X"};
  bt_buf b = {0};
  for (int i = 0; i < 5; i++) {
    b.len = 0;
    CHECK_INT(bt_def_path(d, i, &b), BT_OK);
    CHECK_STR(b.data, paths[i]);
    CHECK_INT(bt_def_find(d, paths[i]), i);
  }
  b.len = 0;
  CHECK_INT(bt_def_path(d, 0, &b), BT_OK);
  CHECK_INT(bt_def_path(d, 1, &b), BT_OK); /* appends */
  CHECK_STR(b.data, "RootRoot/Sequence");
  CHECK_INT(bt_def_path(d, 5, &b), BT_EINVAL);
  CHECK_INT(bt_def_path(NULL, 0, &b), BT_EINVAL);
  CHECK_INT(bt_def_path(d, 0, NULL), BT_EINVAL);
  CHECK_INT(bt_def_find(d, "Root/Y"), BT_EINVAL);
  CHECK_INT(bt_def_find(d, "Root/Sequence/"), BT_EINVAL);
  CHECK_INT(bt_def_find(d, NULL), BT_EINVAL);
  CHECK_INT(bt_def_find(NULL, "Root"), BT_EINVAL);
  bt_buf_free(&b);
  {
    bt_graph *g2 = new_graph();
    leaf A = LEAF("A", BT_SUCCESS), A2 = LEAF("A", BT_SUCCESS);
    int s2 = add_node(g2, BT_SELECTOR, NULL, 0, 0);
    int a1 = add_leaf(g2, &A), a2 = add_leaf(g2, &A2);
    set_kids(g2, s2, 2, a1, a2);
    bt_def *d2 = NULL;
    CHECK_INT(bt_def_create(&d2, g2, s2), BT_OK);
    bt_graph_free(g2);
    bt_buf p = {0};
    CHECK_INT(bt_def_path(d2, 2, &p), BT_OK);
    CHECK_STR(p.data, "Selector/A#2");
    CHECK_INT(bt_def_find(d2, "Selector/A#1"), 1);
    CHECK_INT(bt_def_find(d2, "Selector/A"), BT_EINVAL);
    bt_buf_free(&p);
    bt_def_release(d2);
  }

  /* reference counting: the instance keeps the definition alive */
  bt_def_retain(d);
  bt_def_release(d);
  bt_inst *in = NULL;
  CHECK_INT(bt_inst_create(&in, d, &HOST, NULL, 0), BT_OK);
  bt_def_release(d);
  think(in, 0);
  CHECK_STR(logs(), "C X"); /* X SUCCESS at place 3; the Priority wins with the Sequence */
  CHECK_STR(LST(in, s), "SUCCESS");
  bt_inst_free(in);
}

static void test_graph_names_and_roots(void) {
  char name[] = "Mine";
  bt_graph *g = new_graph();
  int a = add_node(g, BT_SEQUENCE, name, 0, 0);
  int b = add_node(g, BT_BEHAVIOUR, "b", 0, 0);
  set_kids(g, a, 1, b);
  name[0] = 'X'; /* the graph copied the name */
  bt_def *d1 = NULL, *d2 = NULL;
  CHECK_INT(bt_def_create(&d1, g, a), BT_OK);
  CHECK_INT(bt_def_create(&d2, g, b), BT_OK); /* any node can be a root */
  bt_graph_free(g);
  CHECK_STR(bt_def_name(d1, 0), "Mine");
  CHECK_INT(bt_def_size(d1), 2);
  CHECK_INT(bt_def_size(d2), 1);
  CHECK_STR(bt_def_name(d2, 0), "b");
  bt_def_release(d1);
  bt_def_release(d2);
}

/* ---- errors ---- */

static void test_cycles(void) {
  bt_graph *g = new_graph();
  int a = add_node(g, BT_SEQUENCE, "Alpha", 0, 0);
  int b = add_node(g, BT_SELECTOR, "Beta", 0, 0);
  int c = add_node(g, BT_SEQUENCE, "Gamma", 0, 0);
  int l = add_node(g, BT_BEHAVIOUR, "Leaf", 0, 0);
  set_kids(g, a, 1, b);
  set_kids(g, b, 2, l, c);
  set_kids(g, c, 1, a);
  bt_def *d = (bt_def *)&g; /* any non-NULL value: must be set to NULL */
  CHECK_INT(bt_def_create(&d, g, a), BT_ECYCLE);
  CHECK(d == NULL);
  const char *msg = bt_graph_errmsg(g);
  CHECK(strstr(msg, "Alpha") != NULL);
  CHECK(strstr(msg, "Beta") != NULL);
  CHECK(strstr(msg, "Gamma") != NULL);
  CHECK(strstr(msg, "Leaf") == NULL); /* not part of the cycle */
  CHECK_INT(bt_def_create(&d, g, b), BT_ECYCLE); /* from another entry point too */
  /* a cycle that the root does not reach is no error */
  CHECK_INT(bt_def_create(&d, g, l), BT_OK);
  bt_def_release(d);
  bt_graph_free(g);

  g = new_graph();
  a = add_node(g, BT_PARALLEL, "Self", 0, 0);
  set_kids(g, a, 1, a);
  CHECK_INT(bt_def_create(&d, g, a), BT_ECYCLE);
  CHECK(strstr(bt_graph_errmsg(g), "Self") != NULL);
  bt_graph_free(g);

  /* a diamond (shared node) is no cycle */
  g = new_graph();
  a = add_node(g, BT_SEQUENCE, "A", 0, 0);
  b = add_node(g, BT_SEQUENCE, "B", 0, 0);
  c = add_node(g, BT_SEQUENCE, "C", 0, 0);
  l = add_node(g, BT_BEHAVIOUR, "L", 0, 0);
  set_kids(g, a, 2, b, c);
  set_kids(g, b, 1, l);
  set_kids(g, c, 1, l);
  CHECK_INT(bt_def_create(&d, g, a), BT_OK);
  CHECK_INT(bt_def_size(d), 5);
  CHECK_INT(bt_def_states(d), 4);
  bt_def_release(d);
  bt_graph_free(g);
}

static void check_one_child(int kind, const char *name) {
  bt_graph *g = new_graph();
  int dnode = add_node(g, kind, name, 5, 0);
  int l1 = add_node(g, BT_BEHAVIOUR, "l1", 0, 0);
  int l2 = add_node(g, BT_BEHAVIOUR, "l2", 0, 0);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, dnode), BT_EINVAL); /* no child */
  CHECK(d == NULL);
  CHECK(strstr(bt_graph_errmsg(g), name) != NULL);
  set_kids(g, dnode, 2, l1, l2);
  CHECK_INT(bt_def_create(&d, g, dnode), BT_EINVAL); /* two */
  CHECK(bt_graph_errmsg(g)[0] != '\0');
  set_kids(g, dnode, 1, l1);
  CHECK_INT(bt_def_create(&d, g, dnode), BT_OK);
  bt_def_release(d);
  /* also deeper in the tree */
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int bad = add_node(g, kind, "Bad", 5, 0);
  set_kids(g, s, 2, dnode, bad);
  CHECK_INT(bt_def_create(&d, g, s), BT_EINVAL);
  CHECK(strstr(bt_graph_errmsg(g), "Bad") != NULL);
  bt_graph_free(g);
}

static void test_decorator_children(void) {
  check_one_child(BT_NOT, "MyNot");
  check_one_child(BT_FAILIFRUNNING, "MyFailIfRunning");
  check_one_child(BT_FAILIFSUCCESS, "MyFailIfSuccess");
  check_one_child(BT_LATCH, "MyLatch");
}

static void test_depth_limit(void) {
  /* a chain whose deepest node has depth BT_MAX_DEPTH is accepted, one more level is not */
  for (int extra = 0; extra <= 1; extra++) {
    int levels = BT_MAX_DEPTH + 1 + extra;
    bt_graph *g = new_graph();
    int prev = -1, first = -1;
    for (int i = 0; i < levels; i++) {
      int n = add_node(g, i == levels - 1 ? BT_BEHAVIOUR : BT_SEQUENCE, i == levels - 1 ? "Deep" : NULL,
                       0, 0);
      if (prev >= 0) set_kids(g, prev, 1, n);
      else first = n;
      prev = n;
    }
    bt_def *d = NULL;
    int rc = bt_def_create(&d, g, first);
    if (extra == 0) {
      CHECK_INT(rc, BT_OK);
      if (rc == BT_OK) {
        CHECK_INT(bt_def_size(d), levels);
        CHECK_INT(bt_def_depth(d, levels - 1), BT_MAX_DEPTH);
        CHECK_STR(bt_def_name(d, levels - 1), "Deep");
        bt_inst *in = NULL;
        CHECK_INT(bt_inst_create(&in, d, &HOST, NULL, 0), BT_OK);
        think(in, 0); /* the leaf fails (BehaviourNode.Visit): every Sequence fails */
        CHECK_INT(bt_node_last(in, 0), BT_FAILED);
        CHECK_INT(bt_node_last(in, levels - 1), BT_FAILED);
        bt_buf b = {0};
        CHECK_INT(bt_inst_dump(in, &b), BT_OK);
        CHECK(b.len > 0);
        bt_buf_free(&b);
        bt_inst_stop(in);
        CHECK_INT(bt_inst_reset(in), BT_OK);
        bt_inst_free(in);
        bt_def_release(d);
      }
    } else {
      CHECK_INT(rc, BT_ETOOBIG);
      CHECK(bt_graph_errmsg(g)[0] != '\0');
    }
    bt_graph_free(g);
  }
}

static void test_size_limit(void) {
  /* node k has children {k-1, k-1}: 21 graph nodes expand to 2^21 - 1 > BT_MAX_NODES */
  bt_graph *g = new_graph();
  int prev = add_node(g, BT_BEHAVIOUR, "leaf", 0, 0);
  for (int i = 1; i < 21; i++) {
    int n = add_node(g, BT_PARALLEL, NULL, 0, 0);
    set_kids(g, n, 2, prev, prev);
    prev = n;
  }
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, prev), BT_ETOOBIG);
  CHECK(d == NULL);
  bt_graph_free(g);
}

static void test_bad_ids(void) {
  bt_graph *g = new_graph();
  int a = add_node(g, BT_SEQUENCE, "A", 0, 0);
  int b = add_node(g, BT_BEHAVIOUR, "B", 0, 0);
  int kids_bad[] = {b, 99};
  int kids_neg[] = {-1};
  int kids_ok[] = {b};
  CHECK_INT(bt_graph_set_children(g, a, kids_bad, 2), BT_EINVAL);
  CHECK(bt_graph_errmsg(g)[0] != '\0');
  CHECK_INT(bt_graph_set_children(g, a, kids_neg, 1), BT_EINVAL);
  CHECK_INT(bt_graph_set_children(g, 99, kids_ok, 1), BT_EINVAL);
  CHECK_INT(bt_graph_set_children(g, -1, kids_ok, 1), BT_EINVAL);
  CHECK_INT(bt_graph_set_children(g, a, kids_ok, -1), BT_EINVAL);
  CHECK_INT(bt_graph_set_children(g, a, NULL, 1), BT_EINVAL);
  CHECK_INT(bt_graph_set_children(g, a, NULL, 0), BT_OK);
  CHECK_INT(bt_graph_set_parent(g, 99, a), BT_EINVAL);
  CHECK_INT(bt_graph_set_parent(g, b, 99), BT_EINVAL);
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_KIND_COUNT;
  CHECK_INT(bt_graph_add(g, &s), BT_EINVAL);
  s.kind = -1;
  CHECK_INT(bt_graph_add(g, &s), BT_EINVAL);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, 2), BT_EINVAL); /* only ids 0 and 1 exist */
  CHECK_INT(bt_def_create(&d, g, -1), BT_EINVAL);
  CHECK(d == NULL);
  /* the failed calls changed nothing: A has no children */
  CHECK_INT(bt_def_create(&d, g, a), BT_OK);
  CHECK_INT(bt_def_size(d), 1);
  bt_def_release(d);
  bt_graph_free(g);
}

/* ---- fields ---- */

static void test_fields(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), S0 = FN("start", 1), C0 = FN("cont", 0);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int sq = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int lp = add_node(g, BT_LOOP, NULL, 2, 0);
  int rn = add_node(g, BT_RANDOM, NULL, 0, 0);
  int w = add_node(g, BT_WAIT, NULL, 1, 0);
  int e = add_node(g, BT_EVENT, "Event(e)", 0, 0);
  int mc = add_multi(g, &S0, &C0, NULL);
  int la = add_node(g, BT_LATCH, NULL, 3, 0);
  int l = add_leaf(g, &L);
  int b1 = add_node(g, BT_BEHAVIOUR, "b1", 0, 0), b2 = add_node(g, BT_BEHAVIOUR, "b2", 0, 0),
      b3 = add_node(g, BT_BEHAVIOUR, "b3", 0, 0), b4 = add_node(g, BT_BEHAVIOUR, "b4", 0, 0),
      b5 = add_node(g, BT_BEHAVIOUR, "b5", 0, 0);
  set_kids(g, sq, 1, b1);
  set_kids(g, lp, 1, b2);
  set_kids(g, rn, 1, b3);
  set_kids(g, e, 1, b4);
  set_kids(g, la, 1, b5);
  set_kids(g, r, 8, sq, lp, rn, w, e, mc, la, l);
  bt_inst *in = build(g, r, 0);
  const bt_def *d = bt_inst_def(in);

  /* which node has which field */
  CHECK(bt_node_has_field(d, at(in, sq), BT_FIELD_IDX));
  CHECK(!bt_node_has_field(d, at(in, sq), BT_FIELD_REP));
  CHECK(bt_node_has_field(d, at(in, lp), BT_FIELD_REP));
  CHECK(bt_node_has_field(d, at(in, r), BT_FIELD_LASTTIME));
  CHECK(bt_node_has_field(d, at(in, r), BT_FIELD_IDX));
  CHECK(bt_node_has_field(d, at(in, rn), BT_FIELD_IDX));
  CHECK(bt_node_has_field(d, at(in, w), BT_FIELD_WAKE_TIME));
  CHECK(bt_node_has_field(d, at(in, w), BT_FIELD_NEXTUPDATETIME));
  CHECK(bt_node_has_field(d, at(in, l), BT_FIELD_NEXTUPDATETIME));
  CHECK(bt_node_has_field(d, at(in, e), BT_FIELD_TRIGGERED));
  CHECK(bt_node_has_field(d, at(in, mc), BT_FIELD_RUNNING));
  CHECK(bt_node_has_field(d, at(in, la), BT_FIELD_LASTLATCHTIME));
  CHECK(bt_node_has_field(d, at(in, la), BT_FIELD_LATCHDURATION));
  CHECK(!bt_node_has_field(d, at(in, e), BT_FIELD_LASTTIME));
  CHECK(!bt_node_has_field(d, at(in, l), BT_FIELD_IDX));
  CHECK(!bt_node_has_field(d, 99, BT_FIELD_IDX));
  CHECK(!bt_node_has_field(d, 0, BT_FIELD_COUNT));
  double v = 0;
  CHECK_INT(bt_node_get(in, at(in, sq), BT_FIELD_REP, &v), BT_EINVAL);
  CHECK_INT(bt_node_get(in, at(in, l), BT_FIELD_TRIGGERED, &v), BT_EINVAL);
  CHECK_INT(bt_node_get(in, 99, BT_FIELD_IDX, &v), BT_EINVAL);
  CHECK_INT(bt_node_get(in, 0, BT_FIELD_COUNT, &v), BT_EINVAL);
  CHECK_INT(bt_node_get(in, 0, -1, &v), BT_EINVAL);
  CHECK_INT(bt_node_set(in, at(in, e), BT_FIELD_REP, &v), BT_EINVAL);

  /* initial values, as the constructors set them */
  CHECK_NUM(field(in, sq, BT_FIELD_IDX), 1);
  CHECK_NUM(field(in, lp, BT_FIELD_IDX), 1);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 0);
  CHECK_NUM(field(in, rn, BT_FIELD_IDX), NIL_VALUE);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), NIL_VALUE);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), NIL_VALUE);
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), NIL_VALUE);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0);
  CHECK_NUM(field(in, mc, BT_FIELD_RUNNING), 0);
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 0);

  /* writes, read back */
  set_field(in, sq, BT_FIELD_IDX, 1);
  set_field(in, lp, BT_FIELD_REP, 4);
  CHECK_NUM(field(in, lp, BT_FIELD_REP), 4);
  set_field(in, la, BT_FIELD_LASTLATCHTIME, 10);
  set_field(in, la, BT_FIELD_LATCHDURATION, 2);
  CHECK_NUM(field(in, la, BT_FIELD_LASTLATCHTIME), 10);
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 2);
  /* nil where nil is allowed, BT_EINVAL where it is not */
  CHECK_INT(bt_node_set(in, at(in, sq), BT_FIELD_IDX, NULL), BT_EINVAL);
  CHECK_INT(bt_node_set(in, at(in, lp), BT_FIELD_REP, NULL), BT_EINVAL);
  CHECK_INT(bt_node_set(in, at(in, la), BT_FIELD_LASTLATCHTIME, NULL), BT_EINVAL);
  CHECK_INT(bt_node_set(in, at(in, la), BT_FIELD_LATCHDURATION, NULL), BT_EINVAL);
  set_field(in, r, BT_FIELD_IDX, 2);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  CHECK_INT(bt_node_set(in, at(in, r), BT_FIELD_IDX, NULL), BT_OK);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), NIL_VALUE);
  set_field(in, rn, BT_FIELD_IDX, 1);
  CHECK_NUM(field(in, rn, BT_FIELD_IDX), 1);
  CHECK_INT(bt_node_set(in, at(in, rn), BT_FIELD_IDX, NULL), BT_OK);
  CHECK_NUM(field(in, rn, BT_FIELD_IDX), NIL_VALUE);
  set_field(in, w, BT_FIELD_WAKE_TIME, 7);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 7);
  CHECK_INT(bt_node_set(in, at(in, w), BT_FIELD_WAKE_TIME, NULL), BT_OK);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), NIL_VALUE);
  set_field(in, mc, BT_FIELD_RUNNING, 1);
  CHECK_NUM(field(in, mc, BT_FIELD_RUNNING), 1);

  /* the fields drive behaviour: lasttime set in the future holds the evaluation back */
  RINT_SEQ[0] = 1; /* math.random(1) */
  rint_pos = 0;
  set_field(in, r, BT_FIELD_LASTTIME, 3.5);
  CHECK_NUM(field(in, r, BT_FIELD_LASTTIME), 3.5);
  think(in, 4); /* 3.5 + 1 < 4 is false */
  CHECK_STR(logs(), "");
  CHECK_STR(LST(in, r), "READY");
  /* the running flag makes the MultiCondition ask continue() */
  CHECK_INT(bt_node_set(in, at(in, r), BT_FIELD_LASTTIME, NULL), BT_OK);
  set_field(in, e, BT_FIELD_TRIGGERED, 1);
  think(in, 4.25);
  /* Sequence (b1 fails), Loop (b2 fails), Random (b3 fails), Wait (RUNNING: wins) */
  CHECK_STR(logs(), "");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 4);
  CHECK_NUM(field(in, w, BT_FIELD_WAKE_TIME), 5.25);
  CHECK_NUM(field(in, e, BT_FIELD_TRIGGERED), 0); /* the losing EventNode was Reset */
  /* a sleep deadline written by the host */
  set_field(in, l, BT_FIELD_NEXTUPDATETIME, 9);
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), 9);
  CHECK_INT(bt_node_set(in, at(in, l), BT_FIELD_NEXTUPDATETIME, NULL), BT_OK);
  CHECK_NUM(field(in, l, BT_FIELD_NEXTUPDATETIME), NIL_VALUE);
  bt_inst_free(in);

  /* the MultiCondition's flag, written */
  g = new_graph();
  mc = add_multi(g, &S0, &C0, NULL);
  in = build(g, mc, 0);
  set_field(in, mc, BT_FIELD_RUNNING, 1);
  think(in, 0);
  CHECK_STR(logs(), "cont");
  CHECK_NUM(field(in, mc, BT_FIELD_RUNNING), 0);
  bt_inst_free(in);

  /* the latch's fields, written */
  leaf A = FN("A", 1);
  g = new_graph();
  la = add_node(g, BT_LATCH, NULL, 3, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  set_kids(g, la, 1, a);
  in = build(g, la, 0);
  set_field(in, la, BT_FIELD_LASTLATCHTIME, 10);
  set_field(in, la, BT_FIELD_LATCHDURATION, 2);
  think(in, 12); /* 12 > 2 + 10 is false */
  CHECK_STR(logs(), "");
  think(in, 12.5);
  CHECK_STR(logs(), "A");
  CHECK_NUM(field(in, la, BT_FIELD_LATCHDURATION), 3);
  bt_inst_free(in);

  /* a leaf's deadline, written */
  L.status = BT_RUNNING;
  L.sleep = -1;
  g = new_graph();
  l = add_leaf(g, &L);
  in = build(g, l, 0);
  think(in, 0);
  set_field(in, l, BT_FIELD_NEXTUPDATETIME, 9);
  T = 4;
  CHECK_NUM(sleep_of(in), 5);
  bt_inst_free(in);
}

/* ---- base-class calls ---- */

static int seq_visit_base(bt_call *c) {
  log_add("override");
  /* SequenceNode.Visit(self) */
  return bt_node_visit_as(c->inst, c->node, BT_SEQUENCE) == BT_OK ? BT_OK : -1;
}

static void test_as_functions(void) {
  logs();
  static const bt_ops OV = {seq_visit_base, NULL, NULL, NULL, NULL, NULL};
  leaf A = LEAF("A", BT_SUCCESS), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = BT_SEQUENCE;
  sp.ops = &OV;
  int s = bt_graph_add(g, &sp);
  int a = add_leaf(g, &A), b = add_leaf(g, &B);
  set_kids(g, s, 2, a, b);
  bt_inst *in = build(g, s, 0);
  think(in, 0);
  CHECK_STR(logs(), "override A B");
  CHECK_STR(ST(in, s), "RUNNING");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);

  /* kinds that do not fit the node */
  CHECK_INT(bt_node_visit_as(in, 0, BT_PRIORITY), BT_EINVAL);
  CHECK_INT(bt_node_reset_as(in, 0, BT_LOOP), BT_EINVAL);
  CHECK_INT(bt_node_step_as(in, 0, BT_PARALLEL), BT_EINVAL);
  double v = 0;
  CHECK_INT(bt_node_sleep_time_as(in, 0, BT_PRIORITY, &v), BT_EINVAL);
  bt_buf buf = {0};
  CHECK_INT(bt_node_describe_as(in, 0, BT_WAIT, &buf), BT_EINVAL);
  CHECK_INT(bt_node_visit_as(in, 99, BT_BEHAVIOUR), BT_EINVAL);

  /* DBString: SequenceNode's idx, BehaviourNode's "" */
  CHECK_INT(bt_node_describe_as(in, 0, BT_SEQUENCE, &buf), BT_OK);
  CHECK_STR(buf.data, "2");
  bt_buf_free(&buf);
  CHECK_INT(bt_node_describe_as(in, 0, BT_BEHAVIOUR, &buf), BT_OK);
  CHECK(buf.len == 0);
  bt_buf_free(&buf);
  /* GetSleepTime: BehaviourNode's is nil for a node with children */
  CHECK_INT(bt_node_sleep_time_as(in, 0, BT_SEQUENCE, &v), 0);
  CHECK_INT(bt_node_sleep_time_as(in, at(in, b), BT_BEHAVIOUR, &v), 1);
  CHECK_NUM(v, 0);

  /* BehaviourNode.Reset: statuses only, idx stays; SequenceNode.Reset: idx = 1 */
  CHECK_INT(bt_node_reset_as(in, 0, BT_BEHAVIOUR), BT_OK);
  CHECK_STR(ST(in, s), "READY");
  CHECK_STR(ST(in, b), "READY");
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 2);
  bt_node_set_status(in, 0, BT_RUNNING);
  CHECK_INT(bt_node_reset_as(in, 0, BT_SEQUENCE), BT_OK);
  CHECK_NUM(field(in, s, BT_FIELD_IDX), 1);

  /* BehaviourNode.Visit: FAILED, no child visited, no override */
  CHECK_INT(bt_node_visit_as(in, 0, BT_BEHAVIOUR), BT_OK);
  CHECK_STR(logs(), "");
  CHECK_STR(ST(in, s), "FAILED");
  bt_inst_free(in);

  /* ParallelNode.Step against BehaviourNode.Step */
  leaf L = LEAF("L", BT_RUNNING), C = LEAF("C", BT_SUCCESS), M = LEAF("M", BT_RUNNING);
  g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int l = add_leaf(g, &L);
  int q = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_leaf(g, &C), m = add_leaf(g, &M);
  set_kids(g, q, 2, c, m);
  set_kids(g, p, 2, l, q);
  in = build(g, p, 0);
  T = 0;
  bt_node_visit(in, 0);
  CHECK_STR(logs(), "L C M");
  CHECK_INT(bt_node_step_as(in, 0, BT_PARALLEL), BT_OK);
  CHECK_STR(ST(in, c), "SUCCESS");
  CHECK_INT(bt_node_step_as(in, 0, BT_BEHAVIOUR), BT_OK); /* steps the Sequence, which resets C */
  CHECK_STR(ST(in, c), "READY");
  CHECK_STR(ST(in, m), "RUNNING");
  bt_inst_free(in);

  /* PriorityNode.GetSleepTime and DBString against BehaviourNode's */
  g = new_graph();
  int r = add_prio(g, NULL, 1);
  int x = add_node(g, BT_BEHAVIOUR, "x", 0, 0);
  set_kids(g, r, 1, x);
  in = build(g, r, 0);
  T = 0.25;
  v = -1;
  CHECK_INT(bt_node_sleep_time_as(in, 0, BT_PRIORITY, &v), 1); /* READY: 0 */
  CHECK_NUM(v, 0);
  CHECK_INT(bt_node_sleep_time_as(in, 0, BT_BEHAVIOUR, &v), 0);
  CHECK_INT(bt_node_describe_as(in, 0, BT_PRIORITY, &buf), BT_OK);
  CHECK_STR(buf.data, "execute -1, eval in 0.75");
  bt_buf_free(&buf);
  bt_inst_free(in);
}

/* ---- name tables ---- */

static void test_names(void) {
  static const char *const cls[] = {
      "BehaviourNode", "SequenceNode", "SelectorNode", "PriorityNode", "ParallelNode",
      "ParallelNodeAny", "LoopNode", "RandomNode", "ConditionNode", "MultiConditionNode",
      "ConditionWaitNode", "ActionNode", "WaitNode", "NotDecorator", "FailIfRunningDecorator",
      "FailIfSuccessDecorator", "EventNode", "LatchNode", "TaskNode", "PolicyParallelNode",
      "MonitorNode", "ActiveSelectorNode", "RepeatNode", "AlwaysSucceedDecorator",
      "AlwaysFailDecorator", "CooldownDecorator", "TimeoutDecorator"};
  for (int k = 0; k <= BT_TIMEOUT; k++) CHECK_STR(bt_kind_name(k), cls[k]);
  for (int k = 0; k < BT_KIND_COUNT; k++) CHECK(bt_kind_name(k) != NULL && bt_kind_default_name(k) != NULL);
  CHECK(bt_kind_name(BT_KIND_COUNT) == NULL);
  CHECK(bt_kind_name(-1) == NULL);
  /* the names the constructors pass */
  CHECK_STR(bt_kind_default_name(BT_BEHAVIOUR), "");
  CHECK_STR(bt_kind_default_name(BT_SEQUENCE), "Sequence");
  CHECK_STR(bt_kind_default_name(BT_SELECTOR), "Selector");
  CHECK_STR(bt_kind_default_name(BT_PRIORITY), "Priority");
  CHECK_STR(bt_kind_default_name(BT_PARALLEL), "Parallel");
  CHECK_STR(bt_kind_default_name(BT_PARALLEL_ANY), "Parallel(Any)");
  CHECK_STR(bt_kind_default_name(BT_LOOP), "Sequence");
  CHECK_STR(bt_kind_default_name(BT_RANDOM), "Random");
  CHECK_STR(bt_kind_default_name(BT_CONDITION), "Condition");
  CHECK_STR(bt_kind_default_name(BT_MULTICONDITION), "Condition");
  CHECK_STR(bt_kind_default_name(BT_CONDITIONWAIT), "Wait");
  CHECK_STR(bt_kind_default_name(BT_ACTION), "ActionNode");
  CHECK_STR(bt_kind_default_name(BT_WAIT), "Wait");
  CHECK_STR(bt_kind_default_name(BT_NOT), "Not");
  CHECK_STR(bt_kind_default_name(BT_FAILIFRUNNING), "FailIfRunning");
  CHECK_STR(bt_kind_default_name(BT_FAILIFSUCCESS), "FailIfSuccess");
  CHECK(bt_kind_default_name(BT_KIND_COUNT) == NULL);
  CHECK_STR(bt_status_name(BT_READY), "READY");
  CHECK_STR(bt_status_name(BT_SUCCESS), "SUCCESS");
  CHECK_STR(bt_status_name(BT_FAILED), "FAILED");
  CHECK_STR(bt_status_name(BT_RUNNING), "RUNNING");
  CHECK_STR(bt_status_name(BT_ABORTED), "ABORTED");
  CHECK_STR(bt_status_name(5), "UNKNOWN");
  CHECK_STR(bt_status_name(-1), "UNKNOWN");
  int codes[] = {BT_OK, BT_ENOMEM, BT_EINVAL, BT_ECYCLE, BT_ETOOBIG, BT_EBUSY, BT_ETHREAD};
  for (int i = 0; i < 7; i++) {
    CHECK(bt_strerror(codes[i]) != NULL && bt_strerror(codes[i])[0] != '\0');
    for (int j = 0; j < i; j++) CHECK(strcmp(bt_strerror(codes[i]), bt_strerror(codes[j])) != 0);
  }
  CHECK(bt_strerror(-99) != NULL);
}

int main(void) {
  test_def_accessors();
  test_graph_names_and_roots();
  test_cycles();
  test_decorator_children();
  test_depth_limit();
  test_size_limit();
  test_bad_ids();
  test_fields();
  test_as_functions();
  test_names();
  return check_report("test_graph");
}
