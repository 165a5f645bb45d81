/* SPDX-License-Identifier: MIT */
/* A C host's test with the test kit (bt_test.h, libbttest): a Sequence of a condition and an
 * action thought once, and the kit asked when the action succeeded. */
#include <bt_test.h>
#include <stdio.h>

static int yes(bt_call *c) {
  (void)c;
  return 1;
}

static double now(void *ud) {
  (void)ud;
  return 2.5;
}

int main(void) {
  bt_graph *g;
  bt_def *d;
  bt_inst *in;
  bt_trace *t;
  if (bt_graph_create(&g)) return 1;
  bt_spec s = {0};
  s.kind = BT_CONDITION;
  s.fn = yes;
  s.name = "Ready";
  int kids[2];
  kids[0] = bt_graph_add(g, &s);
  s.kind = BT_ACTION;
  s.name = "Act";
  kids[1] = bt_graph_add(g, &s);
  s.kind = BT_SEQUENCE;
  s.fn = NULL;
  s.name = NULL;
  int root = bt_graph_add(g, &s);
  if (bt_graph_set_children(g, root, kids, 2) || bt_def_create(&d, g, root)) return 1;
  bt_graph_free(g);
  bt_host host = {0};
  host.now = now;
  if (bt_inst_create(&in, d, &host, NULL, 0)) return 1;
  bt_def_release(d);
  if (bt_trace_create(&t) || bt_trace_attach_inst(t, in)) return 1;
  bt_inst_update(in);
  double when = -1;
  int found = bt_trace_first(t, "Sequence/Act", BT_SUCCESS, 0, &when);
  printf("kit %d %.2f\n", found, when);
  bt_trace_free(t);
  bt_inst_free(in);
  return 0;
}
