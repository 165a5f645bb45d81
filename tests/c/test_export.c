/* SPDX-License-Identifier: MIT */
/* test_export.c: an instance's state as portable text (bt_inst_export), read back
 * (bt_saved_create) and restored (bt_inst_import) into the same shape, a changed one, at a later
 * clock; texts of other trees and broken texts are refused and change nothing. */
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

/* Priority(0.5) { Sequence "Eat" { Cond0 "Hungry", [extra Cond "New"], Wait 2 }, Cond1 "Idle" } */
static bt_def *make_def(int extra, const char *seq_name) {
  bt_graph *g;
  bt_graph_create(&g);
  int c0 = bt_graph_add(g, &(bt_spec){.kind = BT_CONDITION, .fn = cond, .ud = (void *)0, .name = "Hungry"});
  int c1 = bt_graph_add(g, &(bt_spec){.kind = BT_CONDITION, .fn = cond, .ud = (void *)1, .name = "Idle"});
  int cn = bt_graph_add(g, &(bt_spec){.kind = BT_CONDITION, .fn = cond, .ud = (void *)2, .name = "New"});
  int wait = bt_graph_add(g, &(bt_spec){.kind = BT_WAIT, .param = 2});
  int seq = bt_graph_add(g, &(bt_spec){.kind = BT_SEQUENCE, .name = seq_name});
  if (extra) bt_graph_set_children(g, seq, (int[]){c0, cn, wait}, 3);
  else bt_graph_set_children(g, seq, (int[]){c0, wait}, 2);
  int root = bt_graph_add(g, &(bt_spec){.kind = BT_PRIORITY, .param = 0.5, .flags = BT_SPEC_NOSCATTER});
  bt_graph_set_children(g, root, (int[]){seq, c1}, 2);
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

static void same_dump(bt_inst *a, bt_inst *b) {
  char *da = dump(a), *db = dump(b);
  CHECK_STR(db, da);
  free(da);
  free(db);
}

static bt_saved *open_text(const bt_buf *text) {
  bt_saved *sv = NULL;
  char err[200];
  CHECK_INT(bt_saved_create(&sv, text->data, text->len, err, sizeof err), BT_OK);
  return sv;
}

/* The message bt_saved_create gives for a text. */
static void refused(const char *text, size_t len, const char *expect) {
  bt_saved *sv = (bt_saved *)1;
  char err[200];
  CHECK_INT(bt_saved_create(&sv, text, len, err, sizeof err), BT_EINVAL);
  CHECK(sv == NULL);
  if (!strstr(err, expect)) {
    fprintf(stderr, "message '%s' does not contain '%s'\n", err, expect);
    CHECK(0);
  }
}

static int act(bt_call *c) {
  (void)c;
  return 1;
}

static int add(bt_graph *g, int kind, double param, int nkids, const int *kids) {
  int n = bt_graph_add(g, &(bt_spec){.kind = kind, .param = param, .fn = kind == BT_CONDITION || kind == BT_ACTION ? act : NULL,
                                      .flags = kind == BT_PRIORITY ? BT_SPEC_NOSCATTER : 0});
  if (nkids) bt_graph_set_children(g, n, kids, nkids);
  return n;
}

/* Every kind whose memory holds something (kinds.c's mem_times, mem_doubles, mem_words: a
 * Priority's clock and child, a Loop's and a Repeat's index and passes, a Latch's time and
 * duration, the deadlines of a Wait, a Cooldown and a Timeout) saved at one time and restored
 * 100 s later: the two instances then think alike, tick by tick. */
static void test_every_memory(void) {
  bt_graph *g;
  bt_graph_create(&g);
  int seq = add(g, BT_SEQUENCE, 0, 2, (int[]){add(g, BT_CONDITION, 0, 0, NULL), add(g, BT_WAIT, 1, 0, NULL)});
  int kids[] = {
      add(g, BT_LOOP, 3, 1, &seq),
      add(g, BT_LATCH, 8, 1, (int[]){add(g, BT_ACTION, 0, 0, NULL)}),
      add(g, BT_COOLDOWN, 3, 1, (int[]){add(g, BT_ACTION, 0, 0, NULL)}),
      add(g, BT_TIMEOUT, 5, 1, (int[]){add(g, BT_WAIT, 10, 0, NULL)}),
      add(g, BT_REPEAT, 4, 1, (int[]){add(g, BT_WAIT, 0.5, 0, NULL)}),
      add(g, BT_PRIORITY, 0.5, 2, (int[]){add(g, BT_WAIT, 0.75, 0, NULL), add(g, BT_ACTION, 0, 0, NULL)}),
  };
  int root = add(g, BT_PARALLEL, 0, 6, kids);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, root), BT_OK);
  bt_graph_free(g);
  bt_inst *a, *b;
  CHECK_INT(bt_inst_create(&a, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_create(&b, d, &host, NULL, 0), BT_OK);
  for (now = 0; now < 2.3; now += 0.125) bt_inst_update(a);
  bt_buf text = {0};
  CHECK_INT(bt_inst_export(a, now, &text), BT_OK);
  bt_saved *sv = open_text(&text);
  int map[32];
  CHECK_INT(bt_saved_match(sv, d, map), bt_def_states(d));
  double at = now;
  now = at + 100;
  bt_transfer r;
  CHECK_INT(bt_inst_import(b, sv, map, now, &r), BT_OK);
  int differ = 0;
  for (int tick = 0; tick < 120; tick++) {
    double sa = 0, sb = 0;
    now = at + tick * 0.125;
    bt_inst_update(a);
    int ha = bt_inst_sleep_time(a, &sa);
    now = at + 100 + tick * 0.125;
    bt_inst_update(b);
    int hb = bt_inst_sleep_time(b, &sb);
    for (int n = 0; n < bt_def_size(d); n++)
      differ += bt_node_status(a, n) != bt_node_status(b, n) || bt_node_last(a, n) != bt_node_last(b, n);
    differ += ha != hb || (ha && (sa - sb > 1e-9 || sb - sa > 1e-9));
  }
  CHECK_INT(differ, 0);
  free(text.data);
  bt_saved_free(sv);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_def_release(d);
}

int main(void) {
  test_every_memory();
  bt_def *d = make_def(0, "Eat");
  bt_inst *a, *b;
  CHECK_INT(bt_inst_create(&a, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_create(&b, d, &host, NULL, 0), BT_OK);

  /* a thinks into the middle of its Wait: evaluated at 1, the Wait ends at 3 */
  now = 1;
  results[0] = 1;
  bt_inst_update(a);
  now = 1.25;
  bt_inst_update(a);
  CHECK_INT(bt_node_status(a, 3), BT_RUNNING);

  bt_buf text = {0};
  CHECK_INT(bt_inst_export(a, now, &text), BT_OK);
  CHECK(strncmp(text.data, "bt-state 2 5 5 0 x", 18) == 0);
  CHECK(strstr(text.data, " 0\n0 PriorityNode 2 8:Priority\n") != NULL); /* no keys */
  CHECK(strstr(text.data, "\n1 SequenceNode 2 3:Eat\n") != NULL);

  /* the same shape at the same time: b is a, exactly, think by think */
  bt_saved *sv = open_text(&text);
  CHECK_INT(bt_saved_size(sv), 5);
  CHECK_STR(bt_saved_name(sv, 1), "Eat");
  CHECK_INT(bt_saved_kind(sv, 3), BT_WAIT);
  CHECK_INT(bt_saved_up(sv, 3), 1);
  CHECK_INT(bt_saved_status(sv, 3), BT_RUNNING);
  CHECK_NUM(bt_saved_time(sv), 1.25);
  int map[8];
  CHECK_INT(bt_saved_match(sv, d, map), 5);
  bt_transfer r;
  CHECK_INT(bt_inst_import(b, sv, map, now, &r), BT_OK);
  CHECK_INT(r.matched, 5);
  CHECK_INT(r.gone, 0);
  same_dump(a, b);
  double t;
  double sa, sb;
  CHECK_INT(bt_node_get(b, 0, BT_FIELD_LASTTIME, &t), 1);
  CHECK(t == 1); /* the clock kept, exactly */
  for (double at = 1.5; at < 4; at += 0.25) {
    now = at;
    if (at == 2.5) results[0] = 0;
    bt_inst_update(a);
    bt_inst_update(b);
    same_dump(a, b);
    CHECK_INT(bt_inst_sleep_time(a, &sa), bt_inst_sleep_time(b, &sb));
    CHECK(sa == sb);
  }

  /* restored 100 s later (a game loaded with a clock that started again elsewhere): every
   * deadline is as far away as at the save; the Wait ends 1.75 s after the restore */
  bt_inst *c;
  CHECK_INT(bt_inst_create(&c, d, &host, NULL, 0), BT_OK);
  now = 101.25;
  CHECK_INT(bt_inst_import(c, sv, map, now, &r), BT_OK);
  CHECK_INT(bt_node_get(c, 3, BT_FIELD_WAKE_TIME, &t), 1);
  CHECK_NUM(t, 103);
  CHECK_INT(bt_node_get(c, 0, BT_FIELD_LASTTIME, &t), 1);
  CHECK_NUM(t, 101);
  results[0] = 1;
  now = 102.9;
  bt_inst_update(c);
  CHECK_INT(bt_node_status(c, 3), BT_RUNNING);
  now = 103;
  bt_inst_update(c);
  CHECK_INT(bt_node_last(c, 3), BT_SUCCESS);

  /* a changed shape: a node added into the Sequence. The Wait keeps running at its new
   * position; every clock is cleared */
  bt_def *d2 = make_def(1, "Eat");
  bt_inst *e;
  CHECK_INT(bt_inst_create(&e, d2, &host, NULL, 0), BT_OK);
  int map2[8];
  CHECK_INT(bt_saved_match(sv, d2, map2), 5);
  now = 1.25;
  CHECK_INT(bt_inst_import(e, sv, map2, now, &r), BT_OK);
  CHECK_INT(r.matched, 5);
  CHECK_INT(bt_node_status(e, 4), BT_RUNNING); /* the Wait, now the Sequence's third child */
  CHECK_INT(bt_node_get(e, 1, BT_FIELD_IDX, &t), 1);
  CHECK_INT((int)t, 3);
  CHECK_INT(bt_node_get(e, 0, BT_FIELD_LASTTIME, &t), 0); /* evaluates at the next think */

  /* another tree (the root's name differs): no path in common */
  bt_graph *g;
  bt_graph_create(&g);
  int only = bt_graph_add(g, &(bt_spec){.kind = BT_ACTION, .fn = cond, .name = "Other"});
  bt_def *other;
  CHECK_INT(bt_def_create(&other, g, only), BT_OK);
  bt_graph_free(g);
  CHECK_INT(bt_saved_match(sv, other, map), 0);
  bt_def_release(other);

  /* broken texts */
  refused("hello", 5, "not a saved tree state");
  refused("bt-state 9 1 1 0 x0000000000000000\n", 35, "format version 9");
  refused(text.data, text.len - 10, "truncated");
  refused(text.data, 40, "truncated");
  char *bad = malloc(text.len + 1);
  memcpy(bad, text.data, text.len + 1);
  char *k = strstr(bad, "SequenceNode");
  memcpy(k, "SequenceNade", 12);
  refused(bad, text.len, "corrupt at byte");
  memcpy(bad, text.data, text.len + 1);
  k = strstr(bad, "RUNNING");
  memcpy(k, "RUNNINX", 7);
  refused(bad, text.len, "expected a status");
  free(bad);
  refused(NULL, 0, "no text");

  bt_buf_free(&text);
  bt_saved_free(sv);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_inst_free(c);
  bt_inst_free(e);
  bt_def_release(d);
  bt_def_release(d2);
  return check_report("test_export");
}
