/* SPDX-License-Identifier: MIT */
/* test_bad_index.c: a child index that names no child (bt_node_set, which scripts reach through
 * `node.idx = ...`) is refused, and the node goes on as before. Before, the core took it and
 * read the definition's children array at idx - 1 unchecked: out of its bounds (ASan:
 * heap-buffer-overflow, SEGV), or at another node's entry, which could be the node itself
 * (endless recursion). */
#include "harness.h"

/* Sequence, Selector and Loop resume at idx while RUNNING: idx 0 is refused. */
static void test_zero_idx(int kind, const char *kname) {
  for (int nested = 0; nested <= 1; nested++) {
    logs();
    leaf L = LEAF("L", BT_RUNNING);
    bt_graph *g = new_graph();
    int r = add_node(g, kind, NULL, 3, 0);
    int l = add_leaf(g, &L);
    set_kids(g, r, 1, l);
    int root = r;
    if (nested) { /* the composite is its parent's only child: children[idx - 1] was itself */
      root = add_node(g, BT_NOT, NULL, 0, 0);
      set_kids(g, root, 1, r);
    }
    bt_inst *in = build(g, root, 0);
    think(in, 0);
    CHECK_STR(ST(in, r), "RUNNING");
    double zero = 0;
    CHECK_INT(bt_node_set(in, at(in, r), BT_FIELD_IDX, &zero), BT_EINVAL);
    think(in, 1);
    if (strcmp(logs(), "L L") != 0) fprintf(stderr, "  (%s, nested %d)\n", kname, nested);
    CHECK_STR(ST(in, r), "RUNNING");
    CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
    bt_inst_free(in);
  }
}

/* A Priority's idx past its children is refused. */
static void test_priority_idx_past_end(void) {
  double bad[] = {2, 3, 4, 1000, 4294967295.0};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    logs();
    leaf L = LEAF("L", BT_RUNNING);
    bt_graph *g = new_graph();
    int r = add_prio(g, NULL, 1);
    int l = add_leaf(g, &L);
    set_kids(g, r, 1, l);
    bt_inst *in = build(g, r, 0);
    think(in, 0);
    CHECK_INT(bt_node_set(in, at(in, r), BT_FIELD_IDX, &bad[i]), BT_EINVAL);
    think(in, 0.5); /* between evaluations: the running child is resumed */
    think(in, 2);   /* evaluates */
    CHECK_STR(logs(), "L L L");
    CHECK_STR(ST(in, r), "RUNNING");
    CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
    bt_inst_free(in);
  }
}

/* idx moved past the children in the middle of an evaluation, by the child that wins it, is
 * refused too. */
static int prio_node;
static void move_idx(bt_call *c, leaf *l) {
  (void)l;
  double v = 50;
  CHECK_INT(bt_node_set(c->inst, prio_node, BT_FIELD_IDX, &v), BT_EINVAL);
}

static void test_priority_idx_moved_during_evaluation(void) {
  logs();
  leaf A = LEAF("A", BT_RUNNING), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int e1 = add_node(g, BT_EVENT, "E1", 0, 0), e2 = add_node(g, BT_EVENT, "E2", 0, 0);
  int a = add_leaf(g, &A), b = add_leaf(g, &B);
  set_kids(g, e1, 1, a);
  set_kids(g, e2, 1, b);
  set_kids(g, r, 2, e1, e2);
  bt_inst *in = build(g, r, 0);
  prio_node = at(in, r);
  CHECK_INT(bt_inst_fire_event(in, at(in, e1)), BT_OK);
  think(in, 0);
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 1);
  B.hook = move_idx;
  CHECK_INT(bt_inst_fire_event(in, at(in, e2)), BT_OK);
  think(in, 2); /* evaluates: E1 ran last, so E2 is tested anyway, and its child moves idx */
  CHECK_STR(ST(in, r), "RUNNING");
  CHECK_NUM(field(in, r, BT_FIELD_IDX), 2);
  bt_inst_free(in);
}

int main(void) {
  test_zero_idx(BT_SEQUENCE, "Sequence");
  test_zero_idx(BT_SELECTOR, "Selector");
  test_zero_idx(BT_LOOP, "Loop");
  test_priority_idx_past_end();
  test_priority_idx_moved_during_evaluation();
  return check_report("test_bad_index");
}
