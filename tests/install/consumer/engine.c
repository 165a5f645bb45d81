/* SPDX-License-Identifier: MIT */
/* A C host of the engine alone (bt_core.h, libbtengine): a tree built with the C builder and
 * thought twice on the host's clock, without recorder, scheduler or Lua. */
#include <bt_core.h>
#include <stdio.h>

static int hungry(bt_call *c) {
  const int *food = c->ud;
  return *food < 1;
}

static int graze(bt_call *c) {
  int *food = c->ud;
  *food += 1;
  return 1;
}

static double now(void *data) {
  (void)data;
  return 10; /* the game's time stands still: the dump's times are the same on every run */
}

int main(void) {
  static const bt_host host = {now, NULL, NULL, NULL};
  int food = 0;
  bt_builder *b;
  bt_def *def;
  bt_inst *inst;
  bt_buf out = {0};
  if (bt_builder_create(&b) != BT_OK) return 1;
  bt_builder_selector(b, "Root");
  bt_builder_sequence(b, "Eat");
  bt_builder_condition(b, hungry, &food, "Hungry");
  bt_builder_action(b, graze, &food, "Graze");
  bt_builder_back(b);
  bt_builder_wait(b, 2);
  if (bt_builder_end(b, &def, NULL) != BT_OK) {
    fprintf(stderr, "%s\n", bt_builder_errmsg(b));
    return 1;
  }
  bt_builder_free(b);
  if (bt_inst_create(&inst, def, &host, NULL, 0) != BT_OK) return 1;
  bt_def_release(def);
  if (bt_inst_update(inst) != BT_OK || bt_inst_update(inst) != BT_OK) return 1;
  bt_inst_dump(inst, &out);
  printf("engine %s, food %d\n%s", bt_version(), food, out.err ? "" : out.data);
  bt_buf_free(&out);
  bt_inst_free(inst);
  return 0;
}
