/* SPDX-License-Identifier: MIT */
/* test_save.c: an instance's state saved and restored, into itself and into a twin agent. */
#include <stdlib.h>

#include "bt.h"
#include "check.h"

static double now;
static double clock_now(void *data) {
  (void)data;
  return now;
}
static const bt_host host = {clock_now, NULL, NULL, NULL};

static int results[8];
static int cond(bt_call *c) { return results[(int)(size_t)c->ud]; }

/* Priority(0.5) { Sequence { Cond0, Wait 2 }, Cond1 } */
static bt_def *make_def(void) {
  bt_graph *g;
  bt_graph_create(&g);
  bt_spec s = {0};
  s.kind = BT_CONDITION;
  s.fn = cond;
  s.ud = (void *)0;
  s.name = "Cond0";
  int c0 = bt_graph_add(g, &s);
  s.ud = (void *)1;
  s.name = "Cond1";
  int c1 = bt_graph_add(g, &s);
  bt_spec w = {0};
  w.kind = BT_WAIT;
  w.param = 2;
  int wait = bt_graph_add(g, &w);
  bt_spec q = {0};
  q.kind = BT_SEQUENCE;
  int seq = bt_graph_add(g, &q);
  int seq_kids[] = {c0, wait};
  bt_graph_set_children(g, seq, seq_kids, 2);
  bt_spec p = {0};
  p.kind = BT_PRIORITY;
  p.param = 0.5;
  p.flags = BT_SPEC_NOSCATTER;
  int root = bt_graph_add(g, &p);
  int root_kids[] = {seq, c1};
  bt_graph_set_children(g, root, root_kids, 2);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, root), BT_OK);
  bt_graph_free(g);
  return d;
}

static char *dump(bt_inst *in) {
  bt_buf b = {0};
  bt_inst_dump(in, &b);
  return b.data;
}

int main(void) {
  bt_def *d1 = make_def(), *d2 = make_def();
  CHECK(bt_def_hash(d1) == bt_def_hash(d2));
  /* built alike, so equal: compares every byte of both, valgrind (tests/ci/valgrind.sh) sees
   * any it reads that bt_def_create left unset */
  CHECK(bt_def_equal(d1, d2));
  bt_inst *a, *b;
  CHECK_INT(bt_inst_create(&a, d1, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_create(&b, d2, &host, NULL, 0), BT_OK);

  /* a thinks into the middle of its Wait */
  now = 1;
  results[0] = 1;
  bt_inst_update(a);
  now = 1.5;
  bt_inst_update(a);
  CHECK_INT(bt_node_status(a, 0), BT_RUNNING);

  size_t size = bt_inst_state_size(d1);
  unsigned char *saved = malloc(size);
  CHECK_INT(bt_inst_save(a, saved, size - 1), BT_EINVAL);
  CHECK_INT(bt_inst_save(a, saved, size), BT_OK);

  /* b takes a's state: same dump now and after the same next thinks */
  CHECK_INT(bt_inst_restore(b, saved, size), BT_OK);
  char *da = dump(a), *db = dump(b);
  CHECK_STR(db, da);
  free(da);
  free(db);
  double sa, sb;
  CHECK_INT(bt_inst_sleep_time(a, &sa), 1);
  CHECK_INT(bt_inst_sleep_time(b, &sb), 1);
  CHECK_NUM(sb, sa);
  now = 3.2;
  bt_inst_update(a);
  bt_inst_update(b);
  da = dump(a);
  db = dump(b);
  CHECK_STR(db, da);
  free(da);
  free(db);
  /* the Sequence resumed at its Wait, which has ended; Cond0 was not visited again */
  CHECK_INT(bt_node_last(b, 3), BT_SUCCESS);
  CHECK_INT(bt_node_last(b, 2), BT_READY);

  /* restored mid-wait, a status changed between thinks shows in lastresult after the next think
   * even though that think does not visit the node (DS's SaveStatus walks every node) */
  now = 1.5;
  CHECK_INT(bt_inst_save(a, saved, size), BT_OK); /* a is READY now: save it, then b's old state */
  unsigned char *mid = malloc(size);
  bt_inst *m;
  CHECK_INT(bt_inst_create(&m, d1, &host, NULL, 0), BT_OK);
  now = 1;
  bt_inst_update(m);
  now = 1.5;
  bt_inst_update(m);
  CHECK_INT(bt_inst_save(m, mid, size), BT_OK);
  CHECK_INT(bt_inst_restore(b, mid, size), BT_OK);
  bt_node_set_status(b, 4, BT_FAILED); /* Cond1, which the next think leaves alone */
  CHECK_INT(bt_node_last(b, 4), BT_READY);
  now = 1.5; /* lasttime 1 + period 0.5 is not < 1.5: no evaluation, only the Wait is resumed */
  bt_inst_update(b);
  CHECK_INT(bt_node_status(b, 3), BT_RUNNING);
  CHECK_INT(bt_node_last(b, 4), BT_FAILED);
  CHECK_INT(bt_node_status(b, 4), BT_READY); /* Step reset it under the running Priority */
  bt_inst_free(m);
  free(mid);

  /* bytes of another shape, or garbage, are refused and change nothing */
  bt_graph *g;
  bt_graph_create(&g);
  bt_spec s = {0};
  s.kind = BT_ACTION;
  s.fn = cond;
  int only = bt_graph_add(g, &s);
  bt_def *other;
  CHECK_INT(bt_def_create(&other, g, only), BT_OK);
  bt_graph_free(g);
  CHECK(bt_def_hash(other) != bt_def_hash(d1));
  CHECK(!bt_def_equal(other, d1));
  bt_inst *c;
  CHECK_INT(bt_inst_create(&c, other, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_restore(c, saved, size), BT_EINVAL);
  CHECK_INT(bt_inst_restore(c, saved, bt_inst_state_size(other)), BT_EINVAL);
  saved[0] ^= 0xff;
  da = dump(b);
  CHECK_INT(bt_inst_restore(b, saved, size), BT_EINVAL);
  db = dump(b);
  CHECK_STR(db, da);
  free(da);
  free(db);

  free(saved);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_inst_free(c);
  bt_def_release(d1);
  bt_def_release(d2);
  bt_def_release(other);
  return check_report("test_save");
}
