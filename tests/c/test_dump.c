/* SPDX-License-Identifier: MIT */
/* test_dump.c: bt_inst_dump byte for byte, as BehaviourNode:GetTreeString builds it: per node
 * "<name> - <status> <<lastresult>> (<DBString if RUNNING>)" then ">" and the tree sleep time
 * ("%2.2f", nil printed as 0), each line ending in "\n", children indented by a further "   >".
 * DBStrings: Priority "execute %d, eval in %2.2f" with (lasttime or 0) + period - now, unclamped;
 * Sequence/Selector/Loop the idx; Wait "%2.2f" seconds left; others "". Expected values come
 * from Don't Starve's behaviourtree.lua. */
#include <stdint.h>

#include "harness.h"

static void test_dump_priority_sequence_wait(void) {
  logs();
  leaf C = FN("IsDay", 1), I = LEAF("Idle", BT_RUNNING);
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int c = add_fn(g, BT_CONDITION, &C, "IsDay");
  int w = add_node(g, BT_WAIT, NULL, 3, 0);
  int idle = add_leaf(g, &I);
  set_kids(g, s, 2, c, w);
  set_kids(g, r, 2, s, idle);
  bt_inst *in = build(g, r, 0);
  CHECK_STR(dump(in), "Priority - READY <READY> ()>0.00\n"
                      "   >Sequence - READY <READY> ()>0.00\n"
                      "   >   >IsDay - READY <READY> ()>0.00\n"
                      "   >   >Wait - READY <READY> ()>0.00\n"
                      "   >Idle - READY <READY> ()>0.00\n");
  think(in, 0);
  CHECK_STR(logs(), "IsDay");
  T = 0.5;
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.50\n"
                      "   >Sequence - RUNNING <RUNNING> (2)>2.50\n"
                      "   >   >IsDay - READY <SUCCESS> ()>0.00\n"
                      "   >   >Wait - RUNNING <RUNNING> (2.50)>2.50\n"
                      "   >Idle - READY <READY> ()>0.00\n");
  CHECK_NUM(sleep_of(in), 0.5);

  /* the node-level strings */
  bt_buf b = {0};
  CHECK_INT(bt_node_string(in, at(in, s), &b), BT_OK);
  CHECK_STR(b.data, "Sequence - RUNNING <RUNNING> (2)");
  bt_buf_free(&b);
  CHECK_INT(bt_node_describe(in, 0, &b), BT_OK);
  CHECK_STR(b.data, "execute 1, eval in 0.50");
  bt_buf_free(&b);
  CHECK_INT(bt_node_tree_string(in, at(in, s), "#", &b), BT_OK);
  CHECK_STR(b.data, "#Sequence - RUNNING <RUNNING> (2)>2.50\n"
                    "#   >IsDay - READY <SUCCESS> ()>0.00\n"
                    "#   >Wait - RUNNING <RUNNING> (2.50)>2.50\n");
  bt_buf_free(&b);
  /* bt_inst_dump appends, as "--brain--\nsleep time: ...\n" .. tostring(bt) would */
  CHECK_INT(bt_buf_printf(&b, "--brain--\nsleep time: %2.2f\n", sleep_of(in)), BT_OK);
  CHECK_INT(bt_inst_dump(in, &b), BT_OK);
  CHECK_STR(b.data, "--brain--\nsleep time: 0.50\n"
                    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.50\n"
                    "   >Sequence - RUNNING <RUNNING> (2)>2.50\n"
                    "   >   >IsDay - READY <SUCCESS> ()>0.00\n"
                    "   >   >Wait - RUNNING <RUNNING> (2.50)>2.50\n"
                    "   >Idle - READY <READY> ()>0.00\n");
  CHECK_INT((int)b.len, (int)strlen(b.data));
  bt_buf_free(&b);

  C.result = 0;
  think(in, 1.5); /* evaluates; the Sequence resumes at the Wait, IsDay is not asked */
  CHECK_STR(logs(), "");
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>1.00\n"
                      "   >Sequence - RUNNING <RUNNING> (2)>1.50\n"
                      "   >   >IsDay - READY <READY> ()>0.00\n"
                      "   >   >Wait - RUNNING <RUNNING> (1.50)>1.50\n"
                      "   >Idle - READY <READY> ()>0.00\n");
  T = 2.75; /* past the evaluation time: the DBString is not clamped, the sleep time is */
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in -0.25)>0.00\n"
                      "   >Sequence - RUNNING <RUNNING> (2)>0.25\n"
                      "   >   >IsDay - READY <READY> ()>0.00\n"
                      "   >   >Wait - RUNNING <RUNNING> (0.25)>0.25\n"
                      "   >Idle - READY <READY> ()>0.00\n");
  think(in, 3);
  CHECK_STR(dump(in), "Priority - READY <SUCCESS> ()>0.00\n"
                      "   >Sequence - READY <SUCCESS> ()>0.00\n"
                      "   >   >IsDay - READY <READY> ()>0.00\n"
                      "   >   >Wait - READY <SUCCESS> ()>0.00\n"
                      "   >Idle - READY <READY> ()>0.00\n");
  CHECK_INT(I.calls, 0);
  bt_inst_free(in);
}

static void test_dump_selector_loop(void) {
  logs();
  leaf F = LEAF("F", BT_FAILED), A = FN("A", 1);
  bt_graph *g = new_graph();
  int sel = add_node(g, BT_SELECTOR, NULL, 0, 0);
  int f = add_leaf(g, &F);
  int lp = add_node(g, BT_LOOP, NULL, 3, 0);
  int a = add_fn(g, BT_ACTION, &A, NULL);
  int w = add_node(g, BT_WAIT, NULL, 2, 0);
  set_kids(g, lp, 2, a, w);
  set_kids(g, sel, 2, f, lp);
  bt_inst *in = build(g, sel, 0);
  think(in, 0);
  CHECK_STR(logs(), "F A");
  T = 0.5;
  CHECK_STR(dump(in), "Selector - RUNNING <RUNNING> (2)>1.50\n"
                      "   >F - READY <FAILED> ()>0.00\n"
                      "   >Sequence - RUNNING <RUNNING> (2)>1.50\n"
                      "   >   >ActionNode - READY <SUCCESS> ()>0.00\n"
                      "   >   >Wait - RUNNING <RUNNING> (1.50)>1.50\n");
  bt_inst_free(in);
}

static void test_dump_event(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING);
  L.sleep = 2;
  bt_graph *g = new_graph();
  int r = add_prio(g, NULL, 1);
  int e = add_node(g, BT_EVENT, "Event(panic)", 0, 0);
  int l = add_leaf(g, &L);
  set_kids(g, e, 1, l);
  set_kids(g, r, 1, e);
  bt_inst *in = build(g, r, 0);
  think(in, 0);
  CHECK_STR(dump(in), "Priority - READY <FAILED> ()>0.00\n"
                      "   >Event(panic) - READY <READY> ()>0.00\n"
                      "   >   >L - READY <READY> ()>0.00\n");
  T = 0.25;
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  think(in, 0.25);
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>1.00\n"
                      "   >Event(panic) - RUNNING <RUNNING> ()>2.00\n"
                      "   >   >L - RUNNING <RUNNING> ()>2.00\n");
  T = 0.5;
  CHECK_INT(bt_inst_fire_event(in, at(in, e)), BT_OK);
  /* lasttime nil: the DBString counts from 0, the sleep time is 0; L was reset */
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.00\n"
                      "   >Event(panic) - RUNNING <RUNNING> ()>0.00\n"
                      "   >   >L - READY <RUNNING> ()>0.00\n");
  T = 3;
  CHECK_STR(dump(in), "Priority - RUNNING <RUNNING> (execute 1, eval in -2.00)>0.00\n"
                      "   >Event(panic) - RUNNING <RUNNING> ()>0.00\n"
                      "   >   >L - READY <RUNNING> ()>0.00\n");
  bt_inst_free(in);
}

static void test_dump_shared(void) {
  logs();
  leaf X = LEAF("X", BT_RUNNING);
  X.sleep = 3;
  bt_graph *g = new_graph();
  int s = add_node(g, BT_SEQUENCE, NULL, 0, 0);
  int x = add_leaf(g, &X);
  set_kids(g, s, 2, x, x);
  bt_inst *in = build(g, s, 0);
  CHECK_INT(bt_def_size(bt_inst_def(in)), 3);
  CHECK_INT(bt_def_states(bt_inst_def(in)), 2);
  think(in, 0);
  CHECK_STR(logs(), "X");
  /* one state, shown at each place: the second place is RUNNING too */
  CHECK_STR(dump(in), "Sequence - RUNNING <RUNNING> (1)>3.00\n"
                      "   >X - RUNNING <RUNNING> ()>3.00\n"
                      "   >X - RUNNING <RUNNING> ()>3.00\n");
  CHECK_INT(bt_node_status(in, 2), BT_RUNNING);
  X.status = BT_SUCCESS;
  think(in, 1); /* visited at both places */
  CHECK_STR(logs(), "X X");
  CHECK_STR(dump(in), "Sequence - READY <SUCCESS> ()>0.00\n"
                      "   >X - READY <SUCCESS> ()>0.00\n"
                      "   >X - READY <SUCCESS> ()>0.00\n");
  bt_inst_free(in);

  /* a shared node in a Parallel: the second place visits it again while RUNNING */
  X.status = BT_RUNNING;
  g = new_graph();
  int p = add_node(g, BT_PARALLEL, NULL, 0, 0);
  x = add_leaf(g, &X);
  set_kids(g, p, 2, x, x);
  in = build(g, p, 0);
  think(in, 0);
  CHECK_STR(logs(), "X X");
  bt_inst_free(in);
}

static void test_dump_other_kinds(void) {
  logs();
  leaf L = LEAF("L", BT_RUNNING), W = FN("W", 0);
  bt_graph *g = new_graph();
  int pa = add_node(g, BT_PARALLEL_ANY, NULL, 0, 0);
  int la = add_node(g, BT_LATCH, NULL, 5, 0);
  int l = add_leaf(g, &L);
  int n = add_node(g, BT_NOT, NULL, 0, 0);
  int cw = add_fn(g, BT_CONDITIONWAIT, &W, NULL);
  set_kids(g, la, 1, l);
  set_kids(g, n, 1, cw);
  set_kids(g, pa, 2, la, n);
  bt_inst *in = build(g, pa, 0);
  think(in, 0);
  CHECK_STR(dump(in), "Parallel(Any) - RUNNING <RUNNING> ()>0.00\n"
                      "   >Latch (5) - RUNNING <RUNNING> ()>0.00\n"
                      "   >   >L - RUNNING <RUNNING> ()>0.00\n"
                      "   >Not - RUNNING <RUNNING> ()>0.00\n"
                      "   >   >Wait - RUNNING <RUNNING> ()>0.00\n");
  bt_inst_free(in);
}

static void test_buf(void) {
  bt_buf b = {0};
  CHECK_INT(bt_buf_append(&b, "ab", 2), BT_OK);
  CHECK_INT(bt_buf_printf(&b, "%d-%s", 12, "x"), BT_OK);
  CHECK_STR(b.data, "ab12-x");
  CHECK_INT((int)b.len, 6);
  char big[600];
  memset(big, 'y', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  CHECK_INT(bt_buf_printf(&b, "%s", big), BT_OK);
  CHECK_INT((int)b.len, 6 + 599);
  CHECK_INT((int)strlen(b.data), 6 + 599);
  bt_buf_free(&b);
  CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
  /* bytes written in the room a reserve made, then text after them */
  CHECK_INT(bt_buf_reserve(&b, 3), BT_OK);
  CHECK(b.cap >= 4);
  memcpy(b.data + b.len, "\0\1\2", 3);
  b.len += 3;
  CHECK_INT(bt_buf_append(&b, "z", 1), BT_OK);
  CHECK(b.len == 4 && memcmp(b.data, "\0\1\2z", 5) == 0);
  size_t cap = b.cap;
  CHECK_INT(bt_buf_reserve(&b, cap - b.len - 1), BT_OK); /* fits: nothing moves */
  CHECK(b.cap == cap);
  /* a size no memory holds: refused, the buffer as it was, and a writer may go on */
  CHECK_INT(bt_buf_reserve(&b, SIZE_MAX - 2), BT_ENOMEM);
  CHECK_INT(b.err, BT_OK);
  CHECK(b.len == 4 && b.cap == cap && memcmp(b.data, "\0\1\2z", 5) == 0);
  CHECK_INT(bt_buf_append(&b, "w", 1), BT_OK);
  CHECK(b.len == 5 && memcmp(b.data, "\0\1\2zw", 6) == 0);
  /* an append that fails is remembered: later ones do nothing */
  CHECK_INT(bt_buf_append(&b, "w", SIZE_MAX - 2), BT_ENOMEM);
  CHECK_INT(b.err, BT_ENOMEM);
  CHECK_INT(bt_buf_append(&b, "v", 1), BT_ENOMEM);
  CHECK(b.len == 5);
  bt_buf_free(&b);
}

int main(void) {
  test_dump_priority_sequence_wait();
  test_dump_selector_loop();
  test_dump_event();
  test_dump_shared();
  test_dump_other_kinds();
  test_buf();
  return check_report("test_dump");
}
