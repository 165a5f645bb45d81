/* SPDX-License-Identifier: MIT */
/* test_rec.c: the transition recorder (bt_rec_*): every status change recorded once and in order,
 * for Don't Starve's nodes, host behaviours, shared nodes, Resets, transfers and restores; the ring
 * keeps the last N; the callback sees the same stream. */
#include "harness.h"

static char TRACE[8192];

static void trace_add(const bt_inst *in, const bt_rec_entry *e) {
  char one[128];
  const bt_def *d = bt_inst_def(in);
  if (e->type == BT_REC_STATUS)
    snprintf(one, sizeof one, "%s:%s>%s ", bt_def_name(d, e->node), bt_status_name((bt_status)e->from),
             bt_status_name((bt_status)e->to));
  else if (e->type == BT_REC_EVENT)
    snprintf(one, sizeof one, "event:%s ", bt_def_name(d, e->node));
  else if (e->type == BT_REC_RELOAD)
    snprintf(one, sizeof one, "reload:%s ", e->def_from == e->def_to ? "same" : "other");
  else if (e->type == BT_REC_ERROR)
    snprintf(one, sizeof one, "error:%s:%s ", e->node >= 0 ? bt_def_name(d, e->node) : "-", e->text);
  else if (e->type == BT_REC_HOST)
    snprintf(one, sizeof one, "host%d:%.*s ", e->node, (int)e->size, e->text);
  else if (e->has_sleep)
    snprintf(one, sizeof one, "think%llu@%g(%g) ", e->think, e->time, e->sleep);
  else
    snprintf(one, sizeof one, "think%llu@%g ", e->think, e->time);
  strncat(TRACE, one, sizeof TRACE - strlen(TRACE) - 1);
}

/* The ring, oldest first, as text. */
static const char *ring_text(const bt_inst *in, bt_rec *r) {
  TRACE[0] = 0;
  bt_rec_entry e;
  for (size_t i = 0; i < bt_rec_count(r); i++) {
    REQUIRE(bt_rec_get(r, i, &e) == BT_OK);
    trace_add(in, &e);
  }
  size_t n = strlen(TRACE);
  if (n) TRACE[n - 1] = 0;
  return TRACE;
}

static bt_rec *attach(bt_inst *in, size_t cap) {
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, cap) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, r) == BT_OK);
  return r;
}

/* SequenceNode: the condition succeeds, the behaviour runs; the sequence takes its child's status
 * after the child's visit; Step resets the finished condition (BehaviourNode:Step). */
static void test_sequence_order(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *in = build(g, s, 0);
  bt_rec *r = attach(in, 64);
  CHECK(bt_inst_recorder(in) == r);
  T = 1;
  REQUIRE(bt_inst_update(in) == BT_OK);
  bt_rec_entry first;
  REQUIRE(bt_rec_get(r, 0, &first) == BT_OK); /* read before the think's record is made */
  CHECK_NUM(first.time, 1);
  CHECK_INT((int)first.think, 1);
  CHECK_STR(ring_text(in, r), "C:READY>SUCCESS B:READY>RUNNING S:READY>RUNNING C:SUCCESS>READY think1@1(0)");
  T = 1.5; /* the host's clock moves on: the records keep their think's time */
  REQUIRE(bt_rec_get(r, 2, &first) == BT_OK);
  CHECK_NUM(first.time, 1);
  B.status = BT_SUCCESS;
  bt_rec_clear(r);
  think(in, 2);
  /* S runs on from B (its index stays 2); B and S succeed; Step resets S, then its children */
  CHECK_STR(ring_text(in, r), "B:RUNNING>SUCCESS S:RUNNING>SUCCESS S:SUCCESS>READY B:SUCCESS>READY think2@2"); /* nothing runs: no sleep */
  bt_rec_clear(r);
  think(in, 3); /* nothing stays changed, but each change is recorded */
  CHECK_STR(ring_text(in, r),
            "C:READY>SUCCESS B:READY>SUCCESS S:READY>SUCCESS S:SUCCESS>READY C:SUCCESS>READY B:SUCCESS>READY think3@3");
  /* a status the host sets outside a think, and a Reset */
  bt_rec_clear(r);
  T = 4;
  bt_node_set_status(in, 2, BT_RUNNING);
  bt_node_set_status(in, 2, BT_RUNNING); /* no change: no record */
  bt_node_set_status(in, 0, BT_RUNNING);
  REQUIRE(bt_inst_reset(in) == BT_OK); /* the walking Reset: S, then its children not READY */
  CHECK_STR(ring_text(in, r), "B:READY>RUNNING S:READY>RUNNING S:RUNNING>READY B:RUNNING>READY");
  bt_rec_entry e;
  REQUIRE(bt_rec_get(r, 0, &e) == BT_OK);
  CHECK_NUM(e.time, 4);
  CHECK_INT((int)e.think, 3);
  CHECK_INT(bt_rec_get(r, 4, &e), BT_EINVAL);
  /* detached: nothing more */
  REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK);
  CHECK(bt_inst_recorder(in) == NULL);
  think(in, 5);
  CHECK_INT((int)bt_rec_count(r), 4);
  bt_rec_free(r);
  bt_inst_free(in);
}

/* A think records the sleep time it asks for; an event fired is recorded before its effects
 * (EventNode: READY until triggered; OnEvent resets a running child). */
static void test_think_sleep_and_event(void) {
  leaf A = LEAF("A", BT_RUNNING);
  A.sleep = 0.5;
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A), ev = add_node(g, BT_EVENT, "E", 0, 0), p = add_prio(g, "P", 0.5);
  set_kids(g, ev, 1, a);
  set_kids(g, p, 1, ev);
  bt_inst *in = build(g, p, 0);
  bt_rec *r = attach(in, 64);
  REQUIRE(bt_rec_set_agent(r, 12, "sheep 12") == BT_OK);
  CHECK_INT((int)bt_rec_agent(r), 12);
  CHECK_STR(bt_rec_label(r), "sheep 12");
  think(in, 1);
  bt_rec_clear(r);
  T = 1.25;
  REQUIRE(bt_inst_fire_event(in, 1) == BT_OK);
  think(in, 1.25);
  CHECK_STR(ring_text(in, r), "event:E E:READY>RUNNING A:READY>RUNNING P:READY>RUNNING think2@1.25(0.5)");
  bt_rec_clear(r);
  T = 1.5;
  REQUIRE(bt_inst_fire_event(in, 1) == BT_OK);
  think(in, 1.5);
  CHECK_STR(ring_text(in, r), "event:E A:RUNNING>READY A:READY>RUNNING think3@1.5(0.5)");
  bt_rec_free(r); /* detaches */
  CHECK(bt_inst_recorder(in) == NULL);
  bt_inst_free(in);
}

/* The ring keeps the last N records, and the callback sees every one, in the same order. */
static bt_rec_entry SEEN[4096];
static size_t nseen;
static void on_record(void *ud, const bt_rec_entry *e) {
  (void)ud;
  if (nseen < 4096) SEEN[nseen] = *e;
  nseen++;
}

static void test_ring_keeps_last_n(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *in = build(g, s, 0);
  bt_rec *r = attach(in, 5);
  bt_rec_set_callback(r, on_record, NULL);
  nseen = 0;
  for (int t = 1; t <= 20; t++) {
    B.status = t % 3 ? BT_RUNNING : BT_SUCCESS;
    C.result = t % 4 ? 1 : -1;
    think(in, t);
  }
  CHECK((size_t)bt_rec_total(r) == nseen);
  CHECK(nseen > 20);
  CHECK_INT((int)bt_rec_count(r), 5);
  for (size_t i = 0; i < 5; i++) {
    bt_rec_entry e;
    REQUIRE(bt_rec_get(r, i, &e) == BT_OK);
    CHECK(memcmp(&e, &SEEN[nseen - 5 + i], sizeof e) == 0);
  }
  bt_rec_free(r);
  bt_inst_free(in);
}

/* A restore and a transfer (a reload) write statuses too: each change is recorded. */
static bt_inst *seq_tree(leaf *C, leaf *B) {
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, C, "C"), b = add_leaf(g, B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  return build(g, s, 0);
}

static void test_restore_and_transfer(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_inst *from = seq_tree(&C, &B), *to = seq_tree(&C, &B);
  think(from, 1); /* S and B run */
  bt_rec *r = attach(to, 16);
  const bt_def *d = bt_inst_def(to);
  int map[8];
  REQUIRE(bt_def_match(bt_inst_def(from), d, map) == 3);
  REQUIRE(bt_inst_transfer(to, from, map, NULL) == BT_OK);
  CHECK_STR(ring_text(to, r), "reload:same S:READY>RUNNING B:READY>RUNNING");
  REQUIRE(bt_inst_reset(to) == BT_OK);
  unsigned char saved[4096];
  REQUIRE(bt_inst_state_size(d) <= sizeof saved);
  REQUIRE(bt_inst_save(from, saved, sizeof saved) == BT_OK);
  bt_rec_clear(r);
  REQUIRE(bt_inst_restore(to, saved, bt_inst_state_size(d)) == BT_OK);
  CHECK_STR(ring_text(to, r), "S:READY>RUNNING B:READY>RUNNING");
  for (int n = 0; n < 3; n++) CHECK_INT(bt_node_status(to, n), bt_node_status(from, n));
  /* a saved game's text (bt_inst_import): each status from what it was to what was saved, once,
   * and the recorder stays attached */
  bt_buf text = {0};
  REQUIRE(bt_inst_export(from, 1, &text) == BT_OK);
  bt_saved *sv = NULL;
  char err[200];
  REQUIRE(bt_saved_create(&sv, text.data, text.len, err, sizeof err) == BT_OK);
  REQUIRE(bt_inst_reset(to) == BT_OK);
  bt_rec_clear(r);
  REQUIRE(bt_saved_match(sv, d, map) == 3);
  REQUIRE(bt_inst_import(to, sv, map, 1, NULL) == BT_OK);
  CHECK_STR(ring_text(to, r), "S:READY>RUNNING B:READY>RUNNING");
  CHECK(bt_inst_recorder(to) == r);
  bt_rec_clear(r);
  REQUIRE(bt_inst_import(to, sv, map, 1, NULL) == BT_OK); /* the same again: nothing changes */
  CHECK_STR(ring_text(to, r), "");
  bt_saved_free(sv);
  free(text.data);
  /* bt_inst_free detaches the recorder, which keeps its records; it may then be freed */
  think(to, 2);
  size_t kept = bt_rec_count(r);
  CHECK(kept > 0);
  bt_inst_free(to);
  CHECK_INT((int)bt_rec_count(r), (int)kept);
  CHECK(bt_inst_recorder(from) == NULL);
  bt_rec_free(r);
  bt_inst_free(from);
}

/* What made each think: the first the recorder sees, a deadline, ForceUpdate, an event. */
static char CAUSES[256];
static void on_cause(void *ud, const bt_rec_entry *e) {
  (void)ud;
  if (e->type != BT_REC_THINK) return;
  strncat(CAUSES, bt_wake_name(e->cause), sizeof CAUSES - strlen(CAUSES) - 2);
  strcat(CAUSES, " ");
}

static void test_wake_causes(void) {
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A), ev = add_node(g, BT_EVENT, "E", 0, 0), p = add_prio(g, "P", 0.5);
  set_kids(g, ev, 1, a);
  set_kids(g, p, 1, ev);
  bt_inst *in = build(g, p, 0);
  bt_rec *r = attach(in, 0);
  bt_rec_set_callback(r, on_cause, NULL);
  CAUSES[0] = 0;
  think(in, 1);
  think(in, 2);
  bt_inst_force_update(in);
  think(in, 3);
  REQUIRE(bt_inst_fire_event(in, 1) == BT_OK);
  think(in, 4);
  REQUIRE(bt_inst_fire_event(in, 1) == BT_OK);
  bt_inst_force_update(in); /* the latest says */
  think(in, 5);
  think(in, 6);
  bt_rec_total(r); /* the last think's record is made when it is read */
  CHECK_STR(CAUSES, "start deadline force event force deadline ");
  bt_rec_free(r);
  bt_inst_free(in);
}

/* A reload: the recorder, moved to the new instance that takes the old one's state, records the
 * next think as "reload", even when an event or a ForceUpdate came between; a recorder whose
 * first think comes after the reload records it as "start"; the ring keeps the cause. */
static void test_reload_cause(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_inst *old = seq_tree(&C, &B), *neu = seq_tree(&C, &B);
  bt_rec *r = attach(old, 16);
  bt_rec_set_callback(r, on_cause, NULL);
  CAUSES[0] = 0;
  think(old, 1);
  think(old, 2);
  REQUIRE(bt_inst_set_recorder(old, NULL) == BT_OK);
  REQUIRE(bt_inst_set_recorder(neu, r) == BT_OK);
  int map[8];
  REQUIRE(bt_def_match(bt_inst_def(old), bt_inst_def(neu), map) == 3);
  REQUIRE(bt_inst_transfer(neu, old, map, NULL) == BT_OK);
  bt_inst_force_update(neu);
  think(neu, 3);
  think(neu, 4);
  bt_rec_total(r);
  CHECK_STR(CAUSES, "start deadline reload deadline ");
  bt_rec_entry e;
  int found = 0;
  for (size_t i = 0; i < bt_rec_count(r); i++) {
    REQUIRE(bt_rec_get(r, i, &e) == BT_OK);
    if (e.type != BT_REC_THINK || e.think != 3) continue;
    found = 1;
    CHECK_STR(bt_wake_name(e.cause), "reload");
  }
  CHECK(found);
  bt_rec_free(r);
  /* a recorder that saw no think: its first think is its start, reload or not */
  bt_inst *again = seq_tree(&C, &B);
  r = attach(again, 0);
  bt_rec_set_callback(r, on_cause, NULL);
  CAUSES[0] = 0;
  REQUIRE(bt_inst_transfer(again, neu, map, NULL) == BT_OK);
  think(again, 5);
  bt_rec_total(r);
  CHECK_STR(CAUSES, "start ");
  CHECK_STR(bt_wake_name(BT_WAKE_RELOAD), "reload");
  CHECK_STR(bt_wake_name(5), "key");
  CHECK_STR(bt_wake_name(6), "unknown");
  CHECK_STR(bt_wake_name(-1), "unknown");
  bt_rec_free(r);
  bt_inst_free(again);
  bt_inst_free(old);
  bt_inst_free(neu);
}

/* A think's record is made when the think ends, with the sleep time the tree has then. The host's
 * question after it, on the same clock and tree, is answered without walking the tree again;
 * anything else walks it, as an instance without a hook does. */
static bt_rec_entry LAST;
static int nthinks, nwalks;
static void on_think(void *ud, const bt_rec_entry *e) {
  (void)ud;
  if (e->type == BT_REC_THINK) LAST = *e, nthinks++;
}
static int sleep_counted(bt_call *c) {
  nwalks++;
  c->value = 0.75;
  return 1;
}

static bt_inst *counted_leaf(leaf *A) {
  static const bt_ops ops = {leaf_visit, NULL, NULL, NULL, sleep_counted, NULL};
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = "A";
  s.ops = &ops;
  s.ops_ud = A;
  return build(g, bt_graph_add(g, &s), 0);
}

static void test_think_record_made_at_think_end(void) {
  leaf A = LEAF("A", BT_RUNNING);
  bt_inst *in = counted_leaf(&A);
  bt_rec *r = attach(in, 16);
  bt_rec_set_callback(r, on_think, NULL);
  nthinks = nwalks = 0;
  T = 1;
  REQUIRE(bt_inst_update(in) == BT_OK);
  CHECK_INT(nthinks, 1);
  CHECK_INT(nwalks, 1);
  CHECK_NUM(LAST.sleep, 0.75);
  CHECK_INT(LAST.has_sleep, 1);
  CHECK_INT((int)LAST.think, 1);
  CHECK_NUM(LAST.time, 1);
  /* reading never writes: the same figures, no record, no walk */
  const bt_rec *cr = r;
  CHECK_INT((int)bt_rec_total(cr), 2); /* A:READY>RUNNING, then the think: nothing held back */
  bt_rec_entry last;
  REQUIRE(bt_rec_get(cr, bt_rec_count(cr) - 1, &last) == BT_OK);
  CHECK_INT(last.type, BT_REC_THINK);
  CHECK_INT((int)bt_rec_count(cr), 2);
  CHECK_INT((int)bt_rec_total(cr), 2);
  CHECK_INT(nthinks, 1);
  CHECK_INT(nwalks, 1);
  double t = -1;
  CHECK_INT(bt_inst_sleep_time(in, &t), 1); /* the think's own: no walk */
  CHECK_NUM(t, 0.75);
  CHECK_INT(nwalks, 1);
  T = 1.5; /* another time: the tree is asked */
  CHECK_INT(bt_inst_sleep_time(in, &t), 1);
  CHECK_INT(nwalks, 2);
  T = 1;
  bt_node_set_status(in, 0, BT_SUCCESS); /* the tree changed: asked again */
  CHECK_INT(bt_inst_sleep_time(in, &t), 1);
  CHECK_INT(nwalks, 3);
  CHECK_INT(nthinks, 1);
  T = 2;
  REQUIRE(bt_inst_update(in) == BT_OK);
  CHECK_INT(nthinks, 2);
  CHECK_INT((int)LAST.think, 2);
  CHECK_NUM(LAST.time, 2);
  int walks = nwalks;
  bt_inst_force_update(in); /* a ForceUpdate after the think: 0, without a walk */
  CHECK_INT(bt_inst_sleep_time(in, &t), 1);
  CHECK_NUM(t, 0);
  CHECK_INT(nwalks, walks);
  bt_rec_free(r);
  CHECK_INT(nthinks, 2);
  /* without a hook every question walks the tree */
  nwalks = 0;
  REQUIRE(bt_inst_update(in) == BT_OK);
  CHECK_INT(nwalks, 0);
  CHECK_INT(bt_inst_sleep_time(in, &t), 1);
  CHECK_INT(bt_inst_sleep_time(in, &t), 1);
  CHECK_INT(nwalks, 2);
  bt_inst_free(in);
}

/* Errors the host contained and records of its own carry their bytes; the ring frees them when
 * they leave it (the sanitizer and valgrind runs see a leak otherwise). */
static void test_error_and_host_records(void) {
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 1, a);
  bt_inst *in = build(g, s, 0);
  CHECK_INT(bt_inst_record_error(in, 0, "no recorder: nothing"), BT_OK);
  bt_rec *big = NULL;
  CHECK_INT(bt_rec_create(&big, (size_t)BT_REC_MAX_CAPACITY + 1), BT_EINVAL);
  CHECK(big == NULL);
  CHECK_INT(bt_rec_create(NULL, 4), BT_EINVAL);
  bt_rec *r = attach(in, 3);
  T = 7;
  CHECK_INT(bt_inst_record_error(in, 1, "attempt to index a nil value"), BT_OK);
  CHECK_INT(bt_inst_record_error(in, -1, "brain.lua:3: oops"), BT_OK);
  static const char pos[] = {'x', 0, 'y'}; /* bytes, not a string */
  CHECK_INT(bt_inst_record_host(in, 7, pos, sizeof pos), BT_OK);
  CHECK_STR(ring_text(in, r), "error:A:attempt to index a nil value error:-:brain.lua:3: oops host7:x");
  bt_rec_entry e;
  REQUIRE(bt_rec_get(r, 2, &e) == BT_OK);
  CHECK_INT((int)e.size, 3);
  CHECK(memcmp(e.text, pos, 3) == 0);
  CHECK_NUM(e.time, 7);
  REQUIRE(bt_rec_get(r, 0, &e) == BT_OK);
  CHECK_INT((int)e.size, (int)strlen("attempt to index a nil value"));
  CHECK_INT(bt_inst_record_error(in, 2, "x"), BT_EINVAL); /* no node 2 */
  CHECK_INT(bt_inst_record_error(in, -2, "x"), BT_EINVAL);
  CHECK_INT(bt_inst_record_error(in, 0, NULL), BT_EINVAL);
  CHECK_INT(bt_inst_record_host(in, 1, NULL, 4), BT_EINVAL);
  CHECK_INT(bt_inst_record_host(in, 1, NULL, 0), BT_OK);
  for (int t = 8; t < 12; t++) think(in, t); /* the text records leave the ring */
  CHECK_INT((int)bt_rec_count(r), 3);
  bt_rec_free(r);
  bt_inst_free(in);
}

/* A reload records both definitions' hashes before the statuses it moves. */
static void test_reload_record(void) {
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING), D = LEAF("D", BT_RUNNING);
  bt_inst *from = seq_tree(&C, &B);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), d = add_leaf(g, &D),
      s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 3, c, d, b);
  bt_inst *to = build(g, s, 0);
  think(from, 1);
  bt_rec *r = attach(to, 8);
  int map[8];
  REQUIRE(bt_def_match(bt_inst_def(to), bt_inst_def(from), map) >= 0);
  REQUIRE(bt_def_match(bt_inst_def(from), bt_inst_def(to), map) >= 0);
  REQUIRE(bt_inst_transfer(to, from, map, NULL) == BT_OK);
  bt_rec_entry e;
  REQUIRE(bt_rec_get(r, 0, &e) == BT_OK);
  CHECK_INT(e.type, BT_REC_RELOAD);
  CHECK(e.def_from == bt_def_hash(bt_inst_def(from)));
  CHECK(e.def_to == bt_def_hash(bt_inst_def(to)));
  CHECK(e.def_from != e.def_to);
  bt_rec_free(r);
  bt_inst_free(from);
  bt_inst_free(to);
}

/* Recording switched on for a definition: each instance made afterwards has a recorder of its
 * own, which its bt_inst_fini frees; one made before has none; switched off, none again. */
static int def_records;
static void count_record(void *ud, const bt_rec_entry *e) {
  (void)e;
  (*(int *)ud)++;
}

static void test_recording_by_definition(void) {
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  int a = add_leaf(g, &A);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, a) == BT_OK);
  bt_graph_free(g);
  bt_inst *before = NULL, *x = NULL, *y = NULL, *after = NULL;
  REQUIRE(bt_inst_create(&before, def, &HOST, NULL, 0) == BT_OK);
  bt_rec_options o = {4, count_record, &def_records, NULL};
  CHECK_INT(bt_def_set_recording(NULL, &o), BT_EINVAL);
  REQUIRE(bt_def_set_recording(def, &o) == BT_OK);
  REQUIRE(bt_inst_create(&x, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_inst_create(&y, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_def_set_recording(def, NULL) == BT_OK);
  REQUIRE(bt_inst_create(&after, def, &HOST, NULL, 0) == BT_OK);
  CHECK(bt_inst_recorder(before) == NULL);
  CHECK(bt_inst_recorder(after) == NULL);
  CHECK(bt_inst_recorder(x) != NULL && bt_inst_recorder(y) != NULL);
  CHECK(bt_inst_recorder(x) != bt_inst_recorder(y));
  CHECK(bt_rec_inst(bt_inst_recorder(x)) == x);
  def_records = 0;
  think(x, 1);
  think(y, 1);
  think(before, 1);
  CHECK_INT((int)bt_rec_count(bt_inst_recorder(x)), 2); /* A:READY>RUNNING, the think */
  CHECK_INT((int)bt_rec_total(bt_inst_recorder(y)), 2);
  CHECK_INT(def_records, 4);
  bt_inst_free(x); /* frees its recorder */
  REQUIRE(bt_inst_set_recorder(y, NULL) == BT_OK); /* so does detaching it */
  CHECK(bt_inst_recorder(y) == NULL);
  bt_inst_free(y);
  bt_inst_free(before);
  bt_inst_free(after);
  bt_def_release(def);
}

/* ---- differential: replaying the records onto a shadow of the statuses gives the statuses ---- */

static unsigned long long seed = 88172645463325252ull;
static unsigned rnd(unsigned n) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return (unsigned)(seed % n);
}

#define MAXL 24
static leaf LEAVES[MAXL];
static int nleaves;
static unsigned char SHADOW[1024];
static const bt_inst *SHADOW_IN;
static int shadow_bad;

static void on_shadow(void *ud, const bt_rec_entry *e) {
  (void)ud;
  if (e->type != BT_REC_STATUS) return;
  int st = bt_def_state(bt_inst_def(SHADOW_IN), e->node);
  if (SHADOW[st] != e->from || e->from == e->to) shadow_bad++;
  SHADOW[st] = e->to;
}

static int gen(bt_graph *g, int depth, int *pool, int *npool) {
  if (depth >= 4 || rnd(3) == 0) {
    if (*npool && rnd(4) == 0) return pool[rnd((unsigned)*npool)]; /* a shared node */
    if (nleaves >= MAXL) return pool[0];
    leaf *l = &LEAVES[nleaves++];
    static const char *names[MAXL] = {"l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10", "l11",
                                      "l12", "l13", "l14", "l15", "l16", "l17", "l18", "l19", "l20", "l21", "l22", "l23"};
    *l = (leaf)LEAF(names[l - LEAVES], BT_RUNNING);
    int id = rnd(2) ? add_leaf(g, l) : add_fn(g, rnd(2) ? BT_CONDITION : BT_ACTION, l, names[l - LEAVES]);
    pool[(*npool)++] = id;
    return id;
  }
  static const int kinds[] = {BT_SEQUENCE, BT_SELECTOR, BT_PRIORITY, BT_PARALLEL, BT_NOT, BT_LOOP, BT_EVENT};
  int kind = kinds[rnd(sizeof kinds / sizeof kinds[0])];
  int one = kind == BT_NOT || kind == BT_EVENT;
  int n = one ? 1 : 1 + (int)rnd(3), kids[4];
  for (int i = 0; i < n; i++) kids[i] = gen(g, depth + 1, pool, npool);
  int id = kind == BT_PRIORITY ? add_prio(g, NULL, 0.25 * rnd(3)) : add_node(g, kind, NULL, kind == BT_LOOP ? 2 : 0, 0);
  REQUIRE(bt_graph_set_children(g, id, kids, n) == BT_OK);
  return id;
}

static void test_differential(void) {
  for (int round = 0; round < 300; round++) {
    nleaves = 0;
    int pool[MAXL * 2], npool = 0;
    bt_graph *g = new_graph();
    int root = gen(g, 0, pool, &npool);
    bt_def *def = NULL;
    if (bt_def_create(&def, g, root) != BT_OK) { /* e.g. one node twice among a parent's children */
      bt_graph_free(g);
      continue;
    }
    bt_graph_free(g);
    bt_inst *in = NULL;
    REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
    bt_def_release(def);
    bt_rec *r = attach(in, 0);
    bt_rec_set_callback(r, on_shadow, NULL);
    SHADOW_IN = in;
    memset(SHADOW, BT_READY, sizeof SHADOW);
    shadow_bad = 0;
    for (int t = 1; t <= 30; t++) {
      for (int i = 0; i < nleaves; i++) {
        static const int st[] = {BT_SUCCESS, BT_FAILED, BT_RUNNING};
        LEAVES[i].status = st[rnd(3)];
        LEAVES[i].result = (int)rnd(3) - 1;
      }
      if (rnd(8) == 0) REQUIRE(bt_inst_reset(in) == BT_OK);
      if (rnd(8) == 0) bt_inst_force_update(in);
      think(in, t * 0.2);
      for (int n = 0; n < bt_def_size(bt_inst_def(in)); n++)
        if (SHADOW[bt_def_state(bt_inst_def(in), n)] != bt_node_status(in, n)) shadow_bad++;
    }
    CHECK_INT(shadow_bad, 0);
    bt_rec_free(r);
    bt_inst_free(in);
  }
}

/* The engine's hook with a watcher of the host's own: each thing the recorder records arrives
 * as a message, in order; replacing the hook or finishing the instance sends DETACH last; a
 * definition's watcher hooks each new instance, and its failure fails bt_inst_init. */
static char HOOKED[512];
static int hook_log(void *ud, bt_inst *in, const bt_hook_msg *m) {
  (void)ud;
  char one[64];
  const bt_def *d = bt_inst_def(in);
  switch (m->what) {
  case BT_HOOK_STATUS:
    snprintf(one, sizeof one, "%s:%s>%s ", bt_def_name(d, m->node), bt_status_name((bt_status)m->from),
             bt_status_name((bt_status)m->to));
    break;
  case BT_HOOK_BEGIN: snprintf(one, sizeof one, "begin "); break;
  case BT_HOOK_END: snprintf(one, sizeof one, "end(%g) ", m->has_sleep ? m->sleep : -1); break;
  case BT_HOOK_EVENT: snprintf(one, sizeof one, "event:%s ", bt_def_name(d, m->node)); break;
  case BT_HOOK_FORCE: snprintf(one, sizeof one, "force "); break;
  case BT_HOOK_KEY: snprintf(one, sizeof one, "key:%s ", bt_def_key_name(d, m->node)); break;
  case BT_HOOK_SAVED: snprintf(one, sizeof one, "saved "); break;
  case BT_HOOK_STOP: snprintf(one, sizeof one, "stop "); break;
  case BT_HOOK_RELOAD: snprintf(one, sizeof one, "reload "); break;
  case BT_HOOK_ERROR: snprintf(one, sizeof one, "error:%.*s ", (int)m->size, (const char *)m->data); break;
  case BT_HOOK_HOST: snprintf(one, sizeof one, "host%d:%.*s ", m->node, (int)m->size, (const char *)m->data); break;
  case BT_HOOK_DETACH: snprintf(one, sizeof one, "detach "); break;
  case BT_HOOK_MOVE: snprintf(one, sizeof one, "move:%s ", bt_def_name(d, 0)); break;
  }
  strncat(HOOKED, one, sizeof HOOKED - strlen(HOOKED) - 1);
  return m->what == BT_HOOK_HOST && m->node == 99 ? BT_ENOMEM : BT_OK;
}

static int watch_count;
static int watch_hook(void *ud, bt_inst *in) {
  watch_count++;
  return ud ? BT_ENOMEM : bt_inst_set_hook(in, hook_log, NULL);
}

static void test_hook_messages(void) {
  leaf B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  int b = add_leaf(g, &B), e = add_node(g, BT_EVENT, "E", 0, 0);
  set_kids(g, e, 1, b);
  bt_inst *in = build(g, e, 0);
  HOOKED[0] = 0;
  REQUIRE(bt_inst_set_hook(in, hook_log, NULL) == BT_OK);
  void *ud = &ud;
  CHECK(bt_inst_hook(in, &ud) == hook_log && ud == NULL);
  T = 1;
  CHECK_INT(bt_inst_fire_event(in, 0), BT_OK); /* (pre-order: E is 0, B is 1) */
  REQUIRE(bt_inst_update(in) == BT_OK);
  bt_inst_force_update(in);
  CHECK_INT(bt_inst_record_error(in, 1, "oops"), BT_OK);
  CHECK_INT(bt_inst_record_host(in, 7, "xy", 2), BT_OK);
  CHECK_INT(bt_inst_record_host(in, 99, "", 0), BT_ENOMEM); /* the hook's result */
  bt_inst_stop(in);
  REQUIRE(bt_inst_set_hook(in, NULL, NULL) == BT_OK);
  CHECK(bt_inst_hook(in, NULL) == NULL);
  CHECK_STR(HOOKED, "event:E begin E:READY>RUNNING B:READY>RUNNING saved end(0) force error:oops host7:xy "
                    "host99: stop detach ");
  HOOKED[0] = 0;
  REQUIRE(bt_inst_update(in) == BT_OK); /* unhooked: nothing */
  CHECK_STR(HOOKED, "");
  bt_inst_free(in);

  /* a definition's watcher */
  bt_graph *g2 = new_graph();
  int b2 = add_leaf(g2, &B);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g2, b2) == BT_OK);
  bt_graph_free(g2);
  REQUIRE(bt_def_set_watcher(def, watch_hook, NULL, NULL) == BT_OK);
  CHECK(bt_def_watcher(def, NULL) == watch_hook);
  watch_count = 0;
  HOOKED[0] = 0;
  bt_inst *w = NULL;
  REQUIRE(bt_inst_create(&w, def, &HOST, NULL, 0) == BT_OK);
  CHECK_INT(watch_count, 1);
  CHECK(bt_inst_hook(w, NULL) == hook_log);
  bt_inst_free(w);
  CHECK_STR(HOOKED, "detach ");
  REQUIRE(bt_def_set_watcher(def, watch_hook, &watch_count, NULL) == BT_OK); /* it fails */
  w = NULL;
  CHECK_INT(bt_inst_create(&w, def, &HOST, NULL, 0), BT_ENOMEM);
  CHECK(w == NULL);
  REQUIRE(bt_def_set_watcher(def, NULL, NULL, NULL) == BT_OK);
  REQUIRE(bt_inst_create(&w, def, &HOST, NULL, 0) == BT_OK);
  CHECK(bt_inst_hook(w, NULL) == NULL);
  bt_inst_free(w);
  bt_def_release(def);
}

/* bt_inst_move_hook: the hook goes to the new instance with MOVE, and the old one has none;
 * what it refuses, it refuses without moving anything. */
static void test_hook_move(void) {
  leaf A = LEAF("A", BT_RUNNING), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *one = build(g, add_leaf(g, &A), 0);
  g = new_graph();
  bt_inst *two = build(g, add_leaf(g, &B), 0);
  CHECK_INT(bt_inst_move_hook(two, one), BT_OK); /* nothing to move */
  CHECK(bt_inst_hook(two, NULL) == NULL);
  HOOKED[0] = 0;
  REQUIRE(bt_inst_set_hook(one, hook_log, &HOOKED) == BT_OK);
  CHECK_INT(bt_inst_move_hook(NULL, one), BT_EINVAL);
  CHECK_INT(bt_inst_move_hook(one, NULL), BT_EINVAL);
  CHECK_INT(bt_inst_move_hook(one, one), BT_EINVAL);
  CHECK_INT(bt_inst_move_hook(two, one), BT_OK);
  void *ud = NULL;
  CHECK(bt_inst_hook(two, &ud) == hook_log && ud == &HOOKED);
  CHECK(bt_inst_hook(one, NULL) == NULL);
  T = 1;
  REQUIRE(bt_inst_update(one) == BT_OK); /* unhooked now: nothing */
  REQUIRE(bt_inst_update(two) == BT_OK);
  CHECK_STR(HOOKED, "move:B begin B:READY>RUNNING saved end(0) ");
  REQUIRE(bt_inst_set_hook(one, hook_log, NULL) == BT_OK);
  CHECK_INT(bt_inst_move_hook(two, one), BT_EBUSY); /* two has one of its own */
  CHECK(bt_inst_hook(one, NULL) == hook_log);
  HOOKED[0] = 0;
  bt_inst_free(one);
  bt_inst_free(two);
  CHECK_STR(HOOKED, "detach detach ");
}

/* A recorder moved with bt_inst_move_hook records what one detached from the old instance and
 * attached to the new one records: the same ring, the same log bytes, the new definition. */
static bt_buf moved_log[2];
static int keep_log(void *ud, const void *data, size_t size) {
  return bt_buf_append(ud, data, size) == BT_OK ? 0 : -1;
}

static void record_across(int by_move, bt_buf *out_log, bt_rec_entry *out, size_t *n) {
  leaf A = LEAF("A", BT_RUNNING), C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *old = build(g, add_leaf(g, &A), 0);
  g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), b = add_leaf(g, &B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  bt_inst *neu = build(g, s, 0);
  bt_log *log = NULL;
  char err[128];
  T = 0; /* (the attach's record takes the clock's time) */
  REQUIRE(bt_log_create_fn(&log, keep_log, out_log, 0, err, sizeof err) == BT_OK);
  bt_rec *r = attach(old, 64);
  REQUIRE(bt_rec_set_agent(r, 7, "mover") == BT_OK);
  REQUIRE(bt_rec_set_log(r, log) == BT_OK);
  for (int t = 1; t <= 3; t++) think(old, t);
  CHECK(bt_rec_def(r) == bt_inst_def(old));
  if (by_move) {
    CHECK_INT(bt_inst_move_hook(neu, old), BT_OK);
  } else {
    REQUIRE(bt_inst_set_recorder(old, NULL) == BT_OK);
    REQUIRE(bt_inst_set_recorder(neu, r) == BT_OK);
  }
  CHECK(bt_inst_recorder(neu) == r && bt_inst_recorder(old) == NULL && bt_rec_inst(r) == neu);
  CHECK(bt_rec_def(r) == bt_inst_def(neu));
  for (int t = 4; t <= 6; t++) think(neu, t);
  REQUIRE(bt_log_flush(log) == BT_OK);
  *n = bt_rec_count(r);
  for (size_t i = 0; i < *n && i < 64; i++) REQUIRE(bt_rec_get(r, i, &out[i]) == BT_OK);
  bt_inst_free(old);
  bt_inst_free(neu);
  bt_rec_free(r);
  REQUIRE(bt_log_free(log) == BT_OK);
}

static void test_recorder_moved(void) {
  bt_rec_entry a[64], b[64];
  size_t na = 0, nb = 0;
  record_across(1, &moved_log[0], a, &na);
  record_across(0, &moved_log[1], b, &nb);
  CHECK(na > 6 && na == nb);
  int same = 1;
  for (size_t i = 0; i < na && i < nb; i++)
    same &= a[i].type == b[i].type && a[i].node == b[i].node && a[i].from == b[i].from &&
            a[i].to == b[i].to && a[i].think == b[i].think && a[i].time == b[i].time &&
            a[i].cause == b[i].cause;
  CHECK(same);
  CHECK(moved_log[0].len > 0 && moved_log[0].len == moved_log[1].len &&
        memcmp(moved_log[0].data, moved_log[1].data, moved_log[0].len) == 0);
  bt_buf_free(&moved_log[0]);
  bt_buf_free(&moved_log[1]);

  /* a recorder the definition made moves too, and is not freed with the old instance */
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  int x = add_leaf(g, &A);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, x) == BT_OK);
  bt_graph_free(g);
  bt_rec_options o = {16, NULL, NULL, NULL};
  REQUIRE(bt_def_set_recording(def, &o) == BT_OK);
  bt_inst *old = NULL, *neu = NULL;
  REQUIRE(bt_inst_create(&old, def, &HOST, NULL, 0) == BT_OK);
  REQUIRE(bt_def_set_recording(def, NULL) == BT_OK);
  REQUIRE(bt_inst_create(&neu, def, &HOST, NULL, 0) == BT_OK);
  bt_rec *r = bt_inst_recorder(old);
  CHECK(r != NULL && bt_inst_recorder(neu) == NULL);
  CHECK_INT(bt_inst_move_hook(neu, old), BT_OK);
  bt_inst_free(old);
  CHECK(bt_inst_recorder(neu) == r && bt_rec_inst(r) == neu);
  think(neu, 1);
  CHECK(bt_rec_total(r) > 0);
  bt_inst_free(neu); /* frees r, which it owns */
  bt_def_release(def);
}

/* A sleep time override that makes a record while the engine works out a think's sleep time at
 * its end: its record is filed, then the think's, once. */
static int TYPES[16], ntypes;
static void on_type(void *ud, const bt_rec_entry *e) {
  (void)ud;
  if (ntypes < 16) TYPES[ntypes++] = e->type;
}
static int sleep_records(bt_call *c) {
  REQUIRE(bt_inst_record_host(c->inst, 1, "s", 1) == BT_OK);
  c->value = 0.5;
  return 1;
}

static void test_settle_reentered(void) {
  static const bt_ops ops = {leaf_visit, NULL, NULL, NULL, sleep_records, NULL};
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = "A";
  s.ops = &ops;
  s.ops_ud = &A;
  int a = bt_graph_add(g, &s);
  bt_inst *in = build(g, a, 0);
  bt_rec *r = attach(in, 0);
  bt_rec_set_callback(r, on_type, NULL);
  ntypes = 0;
  think(in, 1);
  CHECK_INT(ntypes, 3);
  CHECK_INT(TYPES[0], BT_REC_STATUS);
  CHECK_INT(TYPES[1], BT_REC_HOST);
  CHECK_INT(TYPES[2], BT_REC_THINK);
  bt_rec_free(r);
  bt_inst_free(in);
}

/* DBStrings kept inside each think for the running nodes (a viewer's page shows them), dropped
 * when switched off; none before they are asked for. */
static void test_keep_dbstrings(void) {
  leaf C = FN("C", 1);
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &C, "C"), w = add_node(g, BT_WAIT, "W", 3, 0);
  int s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, w);
  bt_inst *in = build(g, s, 0);
  bt_rec *r = attach(in, 0);
  T = 1;
  REQUIRE(bt_inst_update(in) == BT_OK);
  CHECK(bt_rec_dbstring(r, 2) == NULL); /* not kept yet */
  REQUIRE(bt_rec_keep_dbstrings(r, 1) == BT_OK);
  T = 2;
  REQUIRE(bt_inst_update(in) == BT_OK);
  T = 2.5; /* what the think saw, not what describing now would say */
  CHECK_STR(bt_rec_dbstring(r, 0), "2"); /* the Sequence runs its second child (DS: tostring(self.idx)) */
  CHECK(bt_rec_dbstring(r, 1) == NULL);   /* C succeeded: not running */
  CHECK_STR(bt_rec_dbstring(r, 2), "2.00"); /* the Wait: 4 - 2 seconds left at the think */
  CHECK(bt_rec_dbstring(r, 3) == NULL);
  CHECK(bt_rec_dbstring(r, -1) == NULL);
  REQUIRE(bt_rec_keep_dbstrings(r, 0) == BT_OK);
  CHECK(bt_rec_dbstring(r, 2) == NULL);
  CHECK_INT(bt_rec_keep_dbstrings(NULL, 1), BT_EINVAL);
  CHECK(bt_rec_dbstring(NULL, 0) == NULL);
  bt_rec_free(r);
  bt_inst_free(in);
}

int main(void) {
  /* built with BT_RECORDER=OFF: attaching is refused, and there is nothing else to test */
  int built = recorder_built();
  if (!built) {
    printf("test_rec: the recorder is compiled out (BT_RECORDER=OFF): bt_inst_set_recorder refuses\n");
    return 0;
  }
  test_sequence_order();
  test_think_sleep_and_event();
  test_ring_keeps_last_n();
  test_restore_and_transfer();
  test_reload_cause();
  test_wake_causes();
  test_think_record_made_at_think_end();
  test_hook_messages();
  test_error_and_host_records();
  test_reload_record();
  test_recording_by_definition();
  test_differential();
  test_settle_reentered();
  test_keep_dbstrings();
  test_hook_move();
  test_recorder_moved();
  return check_report("test_rec");
}
