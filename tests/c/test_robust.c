/* SPDX-License-Identifier: MIT */
/* test_robust.c: what broken or hostile hosts and scripts do to the core, found by the fuzzer
 * (tests/fuzz): each call is refused with an error code or survived, never a crash. */
#include "harness.h"

static int defer(bt_call *c) {
  (void)c;
  return BT_DEFAULT;
}
static const bt_ops DEFER_OPS = {defer, NULL, NULL, NULL, NULL, NULL};

/* A node with an override's visit may go without the child or function its kind needs
 * (bt_def_create lets it); when the override asks for the kind's own visit all the same, the
 * node fails, and bt_node_visit_as refuses. */
static void check_defer(int kind, unsigned flags, int with_fn, int with_fn2) {
  leaf F = FN("F", 1);
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.param = 1;
  s.flags = flags;
  s.ops = &DEFER_OPS;
  if (with_fn) {
    s.fn = leaf_fn;
    s.ud = &F;
  }
  if (with_fn2) {
    s.fn2 = leaf_fn;
    s.ud2 = &F;
  }
  int n = bt_graph_add(g, &s);
  int root = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  set_kids(g, root, 1, n);
  bt_inst *in = build(g, root, 0);
  think(in, 1);
  CHECK_INT(bt_node_last(in, 1), BT_FAILED);
  CHECK_INT(bt_node_last(in, 0), BT_FAILED);
  CHECK_INT(bt_node_visit_as(in, 1, kind), BT_EINVAL);
  CHECK_INT(bt_node_visit_as(in, 1, BT_BEHAVIOUR), BT_OK); /* BehaviourNode.Visit needs nothing */
  CHECK_INT(bt_node_status(in, 1), BT_FAILED);
  bt_inst_free(in);
}

static void test_override_defers_without_child_or_fn(void) {
  check_defer(BT_NOT, 0, 0, 0);
  check_defer(BT_FAILIFRUNNING, 0, 0, 0);
  check_defer(BT_FAILIFSUCCESS, 0, 0, 0);
  check_defer(BT_LATCH, 0, 0, 0);
  check_defer(BT_CONDITION, 0, 0, 0);
  check_defer(BT_CONDITIONWAIT, 0, 0, 0);
  check_defer(BT_ACTION, 0, 0, 0);
  check_defer(BT_MULTICONDITION, 0, 1, 0);
  check_defer(BT_MULTICONDITION, 0, 0, 1);
  check_defer(BT_WAIT, BT_SPEC_PARAM_FN, 0, 0);
}

/* The message of a cycle names the nodes on it, as far as it has room, whatever their names. */
static void test_cycle_of_long_names(void) {
  char name[600];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  for (int len = 350; len < 600; len += 50) {
    name[len] = '\0';
    bt_graph *g = new_graph();
    int a = add_node(g, BT_SEQUENCE, name, 0, 0);
    int b = add_node(g, BT_SELECTOR, name, 0, 0);
    set_kids(g, a, 1, b);
    set_kids(g, b, 2, a, a);
    bt_def *d = NULL;
    CHECK_INT(bt_def_create(&d, g, a), BT_ECYCLE);
    CHECK(d == NULL);
    CHECK(strncmp(bt_graph_errmsg(g), "cycle: node 'nnn", 16) == 0);
    bt_graph_free(g);
    name[len] = 'n';
  }
}

/* A map that bt_def_match did not make may pair nodes of different kinds: those pairs are no
 * match, since their memory differs. */
static void test_transfer_map_of_other_kinds(void) {
  leaf A = FN("A", 1);
  bt_graph *g = new_graph();
  int p = add_prio(g, "P", 1);
  int a = add_fn(g, BT_ACTION, &A, "A");
  set_kids(g, p, 1, a);
  bt_inst *from = build(g, p, 0);
  g = new_graph();
  int s = add_node(g, BT_SEQUENCE, "P", 0, 0);
  a = add_fn(g, BT_ACTION, &A, "A");
  set_kids(g, s, 1, a);
  bt_inst *to = build(g, s, 0);
  think(from, 0.5); /* the Priority's lasttime is 0.5, its idx 1 */
  CHECK_INT(bt_node_last(from, 0), BT_SUCCESS);
  int map[2];
  CHECK_INT(bt_def_match(bt_inst_def(from), bt_inst_def(to), map), 0); /* the roots differ */
  map[0] = 0; /* the Sequence from the Priority */
  map[1] = 1;
  bt_transfer r;
  CHECK_INT(bt_inst_transfer(to, from, map, &r), BT_OK);
  CHECK_INT(r.matched, 1);
  CHECK_INT(r.gone, 1);
  double idx = field(to, s, BT_FIELD_IDX);
  CHECK_NUM(idx, 1);
  CHECK_INT(bt_node_status(to, 0), BT_READY);
  CHECK_INT(bt_node_last(to, 1), BT_SUCCESS); /* the Action's state came over */
  think(to, 1);
  CHECK_INT(bt_node_last(to, 0), BT_SUCCESS);
  bt_inst_free(from);
  bt_inst_free(to);
}

/* A child index that names no child is refused: a Priority's past its children, a Sequence's,
 * Selector's or Loop's 0 (in Lua both raise an error when the node visits children[idx]). */
static void test_index_out_of_range(void) {
  leaf X = LEAF("X", BT_RUNNING);
  bt_graph *g = new_graph();
  int p = add_prio(g, "P", 1);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int e = add_prio(g, "Empty", 1);
  int x = add_leaf(g, &X);
  set_kids(g, s, 1, x);
  set_kids(g, p, 2, s, e);
  bt_inst *in = build(g, p, 0);
  double v = 3;
  CHECK_INT(bt_node_set(in, at(in, p), BT_FIELD_IDX, &v), BT_EINVAL);
  v = 1;
  CHECK_INT(bt_node_set(in, at(in, e), BT_FIELD_IDX, &v), BT_EINVAL); /* no children at all */
  v = 2;
  CHECK_INT(bt_node_set(in, at(in, p), BT_FIELD_IDX, &v), BT_OK);
  CHECK_NUM(field(in, p, BT_FIELD_IDX), 2);
  think(in, 1); /* Sequence RUNNING (X), selected */
  CHECK_STR(LST(in, p), "RUNNING");
  CHECK_NUM(field(in, p, BT_FIELD_IDX), 1);
  v = 0;
  CHECK_INT(bt_node_set(in, at(in, s), BT_FIELD_IDX, &v), BT_EINVAL);
  v = 2; /* past the last child: the Sequence is done */
  CHECK_INT(bt_node_set(in, at(in, s), BT_FIELD_IDX, &v), BT_OK);
  think(in, 1.5);
  CHECK_STR(LST(in, s), "SUCCESS");
  CHECK_STR(LST(in, p), "SUCCESS");
  bt_inst_free(in);
}

/* A saved state whose bytes were changed is refused, or restored as a state the tree can have: each
 * byte set to 0xff in turn, and to 0 in turn. */
static void test_restore_corrupted(void) {
  leaf X = LEAF("X", BT_RUNNING), C = FN("C", 0);
  bt_graph *g = new_graph();
  int p = add_prio(g, "P", 1);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int l = add_node(g, BT_LOOP, NULL, 3, 0);
  int c = add_fn(g, BT_CONDITION, &C, NULL);
  int x = add_leaf(g, &X);
  set_kids(g, s, 2, c, x);
  set_kids(g, l, 1, x);
  set_kids(g, p, 2, s, l);
  bt_inst *in = build(g, p, 0);
  think(in, 1); /* C fails: the Loop runs X */
  CHECK_STR(LST(in, l), "RUNNING");
  size_t size = bt_inst_state_size(bt_inst_def(in));
  unsigned char *saved = malloc(size), *bytes = malloc(size);
  REQUIRE(saved && bytes && bt_inst_save(in, saved, size) == BT_OK);
  int refused = 0;
  for (int value = 0; value <= 0xff; value += 0xff) {
    for (size_t i = 0; i < size; i++) {
      memcpy(bytes, saved, size);
      bytes[i] = (unsigned char)value;
      int rc = bt_inst_restore(in, bytes, size);
      CHECK(rc == BT_OK || rc == BT_EINVAL);
      if (rc != BT_OK) {
        refused++;
        continue;
      }
      double v;
      CHECK(bt_node_get(in, at(in, p), BT_FIELD_IDX, &v) == 0 || (v >= 1 && v <= 2));
      CHECK(bt_node_get(in, at(in, s), BT_FIELD_IDX, &v) == 1 && v >= 1);
      CHECK(bt_node_get(in, at(in, l), BT_FIELD_IDX, &v) == 1 && v >= 1);
      think(in, 3);
    }
  }
  CHECK(refused > 0);
  CHECK_INT(bt_inst_restore(in, saved, size), BT_OK);
  free(saved);
  free(bytes);
  bt_inst_free(in);
}

int main(void) {
  test_override_defers_without_child_or_fn();
  test_cycle_of_long_names();
  test_transfer_map_of_other_kinds();
  test_index_out_of_range();
  test_restore_corrupted();
  return check_report("test_robust");
}
