/* SPDX-License-Identifier: MIT */
/* A C host of the core alone (no Lua): one condition under a sequence, thought once. */
#include <bt.h>
#include <stdio.h>

static int yes(bt_call *c) {
  (void)c;
  return 1;
}

int main(void) {
  bt_graph *g;
  bt_def *d;
  bt_inst *in;
  bt_buf out = {0};
  if (bt_graph_create(&g)) return 1;
  bt_spec s = {0};
  s.kind = BT_CONDITION;
  s.fn = yes;
  int leaf = bt_graph_add(g, &s);
  s.kind = BT_SEQUENCE;
  s.fn = NULL;
  int root = bt_graph_add(g, &s);
  if (bt_graph_set_children(g, root, &leaf, 1) || bt_def_create(&d, g, root)) return 1;
  bt_graph_free(g);
  if (bt_inst_create(&in, d, NULL, NULL, 0)) return 1;
  bt_def_release(d);
  bt_inst_update(in);
  bt_inst_dump(in, &out);
  printf("core %s\n%s", bt_version(), out.data);
  bt_buf_free(&out);
  bt_inst_free(in);
  return 0;
}
