/* SPDX-License-Identifier: MIT */
/* test_nomem.c: what an instance keeps outside its bytes (the block that holds its recorder and
 * the Sleep deadlines of its ActionNodes, ConditionWaitNodes and MultiConditionNodes) when memory
 * runs out. The allocator is wrapped at link time: the n-th allocation from now fails, and the
 * live allocations are counted, so that a call refused for want of memory is seen to leave the
 * instance as it was (its agent, its statuses, its deadlines) and to leak nothing. */
#include <stdlib.h>
#include <string.h>

#include "bt.h"
#include "check.h"
#include "nomem.h"

static double now = 10;
static double clock_now(void *data) {
  (void)data;
  return now;
}
static const bt_host host = {clock_now, NULL, NULL, NULL};
static int succeed(bt_call *c) {
  (void)c;
  return 1;
}
static int never(bt_call *c) {
  (void)c;
  return 0;
}

/* Sequence(Action act, ConditionWait wait): after a think, act is done and wait runs */
static bt_def *tree(void) {
  bt_builder *b;
  bt_def *d = NULL;
  bt_builder_create(&b);
  bt_builder_sequence(b, NULL);
  bt_builder_action(b, succeed, NULL, "act");
  bt_builder_condition_wait(b, never, NULL, "wait");
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  bt_builder_free(b);
  return d;
}

/* An instance that never slept, thought once: its agent and no deadline. */
static void as_new(bt_inst *in, void *agent) {
  double t;
  CHECK(bt_inst_agent(in) == agent);
  CHECK_INT(bt_node_get(in, 1, BT_FIELD_NEXTUPDATETIME, &t), 0);
  CHECK_INT(bt_node_get(in, 2, BT_FIELD_NEXTUPDATETIME, &t), 0);
  CHECK_INT(bt_node_status(in, 2), BT_RUNNING);
}

int main(void) {
  bt_def *d = tree();
  int agent, other;
  bt_inst *from, *in;
  CHECK_INT(bt_inst_create(&from, d, &host, &other, 0), BT_OK);
  CHECK_INT(bt_inst_update(from), BT_OK);
  bt_node_sleep(from, 1, 5);
  bt_node_sleep(from, 2, 3);
  bt_buf text = {0};
  CHECK_INT(bt_inst_export(from, now, &text), BT_OK);
  bt_saved *sv;
  CHECK_INT(bt_saved_create(&sv, text.data, text.len, NULL, 0), BT_OK);
  int map[3];
  CHECK_INT(bt_saved_match(sv, d, map), 3);
  size_t size = bt_inst_state_size(d);
  void *state = malloc(size);
  CHECK_INT(bt_inst_save(from, state, size), BT_OK);
  long base = live;

  /* each allocation of an import, of a restore, of a Sleep, of a field's write and of a
   * recorder's attachment fails in turn: refused, the instance is as it was */
  int refused = 0, done = 0;
  for (long k = 0; k < 40; k++) {
    for (int op = 0; op < 5; op++) {
      CHECK_INT(bt_inst_create(&in, d, &host, &agent, 0), BT_OK);
      CHECK_INT(bt_inst_update(in), BT_OK);
      bt_rec *rec = NULL;
      if (op == 4) CHECK_INT(bt_rec_create(&rec, 8), BT_OK);
      double t = 7, got;
      int rc = BT_OK;
      countdown = k;
      switch (op) {
        case 0: rc = bt_inst_import(in, sv, map, now, NULL); break;
        case 1: rc = bt_inst_restore(in, state, size); break;
        case 2: bt_node_sleep(in, 1, 2); rc = bt_node_get(in, 1, BT_FIELD_NEXTUPDATETIME, &got) == 1 ? BT_OK : BT_ENOMEM; break;
        case 3: rc = bt_node_set(in, 2, BT_FIELD_NEXTUPDATETIME, &t); break;
        default: rc = bt_inst_set_recorder(in, rec); break;
      }
      int failed = countdown < 0; /* the armed allocation was made (and failed) */
      countdown = -1;
      if (rc == BT_ENOMEM) {
        CHECK(failed);
        as_new(in, &agent);
        if (op == 4) CHECK(bt_inst_recorder(in) == NULL);
        refused++;
      } else {
        CHECK_INT(rc, BT_OK);
        CHECK(bt_inst_agent(in) == &agent);
        if (op < 2) {
          CHECK_INT(bt_node_get(in, 1, BT_FIELD_NEXTUPDATETIME, &got), 1);
          CHECK_NUM(got, 15);
        }
        if (op == 4) CHECK(bt_inst_recorder(in) == rec);
        if (!failed) done |= 1 << op;
      }
      bt_inst_free(in);
      bt_rec_free(rec);
      CHECK_INT(live, base); /* nothing leaked, refused or not */
    }
  }
  CHECK(refused >= 5); /* every call met a failure... */
  CHECK_INT(done, 31); /* ...and each succeeded once no allocation failed */

  free(state);
  bt_saved_free(sv);
  bt_buf_free(&text);
  bt_inst_free(from);
  bt_def_release(d);
  return check_report("test_nomem");
}
