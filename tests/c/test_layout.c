/* SPDX-License-Identifier: MIT */
/* test_layout.c: the instance's layout and creation. A small tree's instance is small (the
 * 8-node tree of bench_cleaf fits an 80-byte allocation: at most twice the floor's), the Sleep
 * deadlines kept outside the instance behave as those inside, a new instance is the definition's
 * image with its pointers set (fields at their first values, host hooks marked for Step),
 * saved states are version 2 and refuse version 1, and trees of one chunk (no summaries) and of
 * many (summaries, and groups of words per summary bit) think, save and reset alike. */
#include <stdlib.h>
#include <string.h>

#include "bt.h"
#include "check.h"

static double now;
static double clock_now(void *data) {
  (void)data;
  return now;
}
static const bt_host host = {clock_now, NULL, NULL, NULL};

static int truth[8];
static int calls;
static int leaf(bt_call *c) {
  calls++;
  return truth[(int)(size_t)c->ud];
}

/* Selector(Sequence(Condition c1, Action a1), Sequence(Condition c2, Action a2), Action a3) */
static bt_def *tree8(void) {
  bt_builder *b;
  bt_def *d = NULL;
  bt_builder_create(&b);
  bt_builder_selector(b, NULL);
  bt_builder_sequence(b, NULL);
  bt_builder_condition(b, leaf, (void *)0, "c1");
  bt_builder_action(b, leaf, (void *)1, "a1");
  bt_builder_back(b);
  bt_builder_sequence(b, NULL);
  bt_builder_condition(b, leaf, (void *)2, "c2");
  bt_builder_action(b, leaf, (void *)3, "a2");
  bt_builder_back(b);
  bt_builder_action(b, leaf, (void *)4, "a3");
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  bt_builder_free(b);
  return d;
}

static void small_tree(void) {
  bt_def *d = tree8();
  /* 32 bytes of header, 8 of the touched word (one chunk: no dirty word), 8 statuses, 8 flags
   * with the last results in their low bits, and 3 child indices: 68, 72 aligned; malloc's 80-byte
   * chunk gives 72 usable (120 before the actions' deadlines and the recorder's pointer left the
   * instance, the last results joined the flags and the dirty word went) */
  CHECK(bt_def_inst_size(d) <= 72);
  /* saved: a 24-byte header, 3 bytes per state, memory packed (3 x 8 + 3 x 4, to 40) */
  CHECK_INT(bt_inst_state_size(d), 24 + 3 * 8 + 40);

  bt_inst *a, *b;
  void *mem = malloc(bt_def_inst_size(d));
  CHECK_INT(bt_inst_create(&a, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_init(&b, mem, d, &host, NULL, 0), BT_OK);
  CHECK(b == mem);
  double v = 0;
  CHECK_INT(bt_node_get(b, 1, BT_FIELD_IDX, &v), 1); /* a Sequence's idx starts at 1 */
  CHECK_NUM(v, 1);
  truth[0] = 0;
  truth[2] = 1;
  for (int i = 0; i < 3; i++) {
    calls = 0;
    CHECK_INT(bt_inst_update(a), BT_OK);
    CHECK_INT(calls, 3); /* c1, c2, a2 and nothing else: the Selector succeeds with a2 */
    CHECK_INT(bt_inst_update(b), BT_OK);
    for (int n = 0; n < bt_def_size(d); n++) {
      CHECK_INT(bt_node_status(a, n), BT_READY);
      CHECK_INT(bt_node_last(a, n), bt_node_last(b, n));
    }
  }
  CHECK_INT(bt_node_last(a, 0), BT_SUCCESS);
  CHECK_INT(bt_node_last(a, 2), BT_FAILED);   /* c1 */
  CHECK_INT(bt_node_last(a, 7), BT_READY);    /* a3: not visited */

  /* version 3 of the saved state; a version 2 state taken (the tree has no keys: the same
   * bytes), and a version 1 state refused */
  size_t size = bt_inst_state_size(d);
  unsigned char *state = malloc(size);
  CHECK_INT(bt_inst_save(a, state, size), BT_OK);
  CHECK(memcmp(state, "bts3", 4) == 0);
  CHECK_INT(bt_inst_restore(b, state, size), BT_OK);
  state[3] = '2';
  CHECK_INT(bt_inst_restore(b, state, size), BT_OK);
  state[3] = '1';
  CHECK_INT(bt_inst_restore(b, state, size), BT_EINVAL);
  free(state);
  bt_inst_free(a);
  bt_inst_fini(b);
  free(mem);
  bt_def_release(d);
}

/* The deadline of a leaf that never sleeps by itself (an ActionNode, a ConditionWaitNode) is kept
 * outside the instance, in room made at its first Sleep: it still reads, steers the sleep time,
 * survives save and restore, export and import and a transfer, and the agent pointer, in whose
 * place the room hangs, reads the same throughout (also with a recorder attached and gone). */
static int waiting(bt_call *c) {
  (void)c;
  return 0; /* a ConditionWait's condition: never, it runs */
}

static void spilled_deadlines(void) {
  bt_builder *b;
  bt_def *d = NULL;
  bt_builder_create(&b);
  bt_builder_sequence(b, NULL);
  bt_builder_action(b, leaf, (void *)6, "act");
  bt_builder_condition_wait(b, waiting, NULL, "wait");
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  bt_builder_free(b);
  int agent_a, agent_b;
  bt_inst *a, *c;
  CHECK_INT(bt_inst_create(&a, d, &host, &agent_a, 0), BT_OK);
  CHECK_INT(bt_inst_create(&c, d, &host, &agent_b, 0), BT_OK);
  CHECK(bt_node_has_field(d, 1, BT_FIELD_NEXTUPDATETIME));
  CHECK(bt_node_has_field(d, 2, BT_FIELD_NEXTUPDATETIME));
  double v = 0, t = 0;
  CHECK_INT(bt_node_get(a, 1, BT_FIELD_NEXTUPDATETIME, &v), 0);
  now = 10;
  CHECK_INT(bt_inst_update(a), BT_OK);
  CHECK_INT(bt_node_status(a, 2), BT_RUNNING);
  CHECK_INT(bt_inst_sleep_time(a, &t), 1);
  CHECK_NUM(t, 0); /* a running ConditionWait that never slept: 0 */
  bt_node_sleep(a, 2, 3);
  bt_node_sleep(a, 1, 5);
  CHECK(bt_inst_agent(a) == &agent_a);
  CHECK_INT(bt_node_get(a, 2, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 13);
  CHECK_INT(bt_node_get(a, 1, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 15);
  CHECK_INT(bt_node_tree_sleep_time(a, 0, &t), 1);
  CHECK_NUM(t, 3);
  /* saved and restored into an instance that never slept */
  size_t size = bt_inst_state_size(d);
  unsigned char *state = malloc(size);
  CHECK_INT(bt_inst_save(a, state, size), BT_OK);
  CHECK_INT(bt_inst_restore(c, state, size), BT_OK);
  CHECK(bt_inst_agent(c) == &agent_b);
  CHECK_INT(bt_node_get(c, 2, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 13);
  CHECK_INT(bt_node_get(c, 1, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 15);
  /* nil again, then exported and imported 2 seconds later: the deadline moves with the clock */
  CHECK_INT(bt_node_set(c, 1, BT_FIELD_NEXTUPDATETIME, NULL), BT_OK);
  CHECK_INT(bt_node_get(c, 1, BT_FIELD_NEXTUPDATETIME, &v), 0);
  bt_buf text = {0};
  CHECK_INT(bt_inst_export(a, now, &text), BT_OK);
  /* the action's line: READY (Step reset it), last SUCCESS, the format's flag for a deadline (2), the deadline */
  CHECK(strstr(text.data, "\nREADY SUCCESS 2 x") != NULL);
  bt_saved *sv;
  CHECK_INT(bt_saved_create(&sv, text.data, text.len, NULL, 0), BT_OK);
  int map[3];
  CHECK_INT(bt_saved_match(sv, d, map), 3);
  CHECK_INT(bt_inst_import(c, sv, map, now + 2, NULL), BT_OK);
  CHECK_INT(bt_node_get(c, 1, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 17);
  CHECK_INT(bt_node_get(c, 2, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 15);
  bt_saved_free(sv);
  bt_buf_free(&text);
  /* a transfer to a fresh instance, which has no room yet */
  bt_inst *fresh;
  CHECK_INT(bt_inst_create(&fresh, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_def_match(d, d, map), 3);
  CHECK_INT(bt_inst_transfer(fresh, a, map, NULL), BT_OK);
  CHECK_INT(bt_node_get(fresh, 1, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 15);
  CHECK(bt_inst_agent(fresh) == NULL);
  bt_inst_free(fresh);
  /* a recorder comes and goes: the agent and the deadlines stay */
  bt_rec *rec;
  CHECK_INT(bt_rec_create(&rec, 16), BT_OK);
  CHECK_INT(bt_inst_set_recorder(c, rec), BT_OK);
  CHECK(bt_inst_recorder(c) == rec);
  CHECK(bt_inst_agent(c) == &agent_b);
  CHECK_INT(bt_inst_set_recorder(c, NULL), BT_OK);
  CHECK(bt_inst_recorder(c) == NULL);
  CHECK(bt_inst_agent(c) == &agent_b);
  CHECK_INT(bt_node_get(c, 1, BT_FIELD_NEXTUPDATETIME, &v), 1);
  CHECK_NUM(v, 17);
  bt_rec_free(rec);
  free(state);
  bt_inst_free(a);
  bt_inst_free(c);
  bt_def_release(d);
}

/* A new instance's fields are at their first values, whatever instance the memory held before. */
static void fields_of_a_new_instance(void) {
  bt_builder *b;
  bt_def *d = NULL;
  bt_builder_create(&b);
  bt_builder_priority(b, NULL, 0.5);
  bt_builder_latch(b, NULL, 2);
  bt_builder_wait(b, 1);
  bt_builder_back(b);
  bt_builder_loop(b, 3);
  bt_builder_action(b, leaf, (void *)1, "act");
  bt_builder_back(b);
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  bt_builder_free(b);
  size_t size = bt_def_inst_size(d);
  void *mem = malloc(size);
  memset(mem, 0xA5, size);
  bt_inst *in;
  CHECK_INT(bt_inst_init(&in, mem, d, &host, NULL, BT_INST_NOSCATTER), BT_OK);
  double v = 0;
  CHECK_INT(bt_node_get(in, 0, BT_FIELD_LASTTIME, &v), 0); /* no scatter: nil */
  CHECK_INT(bt_node_get(in, 0, BT_FIELD_IDX, &v), 0);      /* nil */
  CHECK_INT(bt_node_get(in, 1, BT_FIELD_LASTLATCHTIME, &v), 1);
  CHECK(v < -1e300);
  CHECK_INT(bt_node_get(in, 1, BT_FIELD_LATCHDURATION, &v), 1);
  CHECK_NUM(v, 0);
  CHECK_INT(bt_node_get(in, 2, BT_FIELD_WAKE_TIME, &v), 0);
  CHECK_INT(bt_node_get(in, 2, BT_FIELD_NEXTUPDATETIME, &v), 0);
  CHECK_INT(bt_node_get(in, 3, BT_FIELD_IDX, &v), 1);
  CHECK_NUM(v, 1);
  CHECK_INT(bt_node_get(in, 3, BT_FIELD_REP, &v), 1);
  CHECK_NUM(v, 0);
  for (int n = 0; n < bt_def_size(d); n++) {
    CHECK_INT(bt_node_status(in, n), BT_READY);
    CHECK_INT(bt_node_last(in, n), BT_READY);
  }
  bt_inst_fini(in);
  /* with scatter, the Priority draws its first evaluation time: in [0.25, 0.75) */
  CHECK_INT(bt_inst_init(&in, mem, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_node_get(in, 0, BT_FIELD_LASTTIME, &v), 1);
  CHECK(v >= 0.25 && v < 0.75);
  bt_inst_fini(in);
  free(mem);
  bt_def_release(d);
}

/* A new instance marks the nodes with a host Reset for Step: DS's Reset reaches every child, so a
 * host Reset of a node never visited runs when its parent is reset. */
static int resets;
static int count_reset(bt_call *c) {
  (void)c;
  resets++;
  return BT_DEFAULT;
}
static const bt_ops reset_ops = {NULL, count_reset, NULL, NULL, NULL, NULL};

static void host_reset_of_a_new_instance(void) {
  bt_builder *b;
  bt_def *d = NULL;
  bt_builder_create(&b);
  bt_builder_sequence(b, NULL);
  bt_builder_condition(b, leaf, (void *)5, "no"); /* truth[5] == 0 */
  bt_builder_behaviour(b, &reset_ops, NULL, "Custom");
  CHECK_INT(bt_builder_end(b, &d, NULL), BT_OK);
  bt_builder_free(b);
  bt_inst *in;
  CHECK_INT(bt_inst_create(&in, d, &host, NULL, 0), BT_OK);
  resets = 0;
  CHECK_INT(bt_inst_update(in), BT_OK);
  CHECK_INT(bt_node_last(in, 0), BT_FAILED);
  CHECK_INT(resets, 1);
  bt_inst_free(in);
  bt_def_release(d);
}

/* A Selector of n Conditions, the last true (one chunk up to 64 states; more have summaries). */
static void wide(int n) {
  bt_graph *g;
  bt_graph_create(&g);
  int *kids = malloc((size_t)n * sizeof *kids);
  for (int i = 0; i < n; i++) {
    bt_spec s = {0};
    s.kind = BT_CONDITION;
    s.fn = leaf;
    s.ud = (void *)(size_t)(i == n - 1 ? 6 : 5); /* truth[6] == 1 */
    kids[i] = bt_graph_add(g, &s);
  }
  bt_spec r = {0};
  r.kind = BT_SELECTOR;
  int root = bt_graph_add(g, &r);
  CHECK_INT(bt_graph_set_children(g, root, kids, n), BT_OK);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, root), BT_OK);
  bt_graph_free(g);
  bt_inst *in, *twin;
  CHECK_INT(bt_inst_create(&in, d, &host, NULL, 0), BT_OK);
  CHECK_INT(bt_inst_create(&twin, d, &host, NULL, 0), BT_OK);
  truth[6] = 1;
  for (int t = 0; t < 3; t++) {
    calls = 0;
    CHECK_INT(bt_inst_update(in), BT_OK);
    CHECK_INT(calls, n);
    CHECK_INT(bt_node_last(in, 0), BT_SUCCESS);
    CHECK_INT(bt_node_last(in, 1), BT_FAILED);
    CHECK_INT(bt_node_last(in, n), BT_SUCCESS);
    CHECK_INT(bt_node_status(in, n), BT_READY);
  }
  size_t size = bt_inst_state_size(d);
  void *state = malloc(size);
  CHECK_INT(bt_inst_save(in, state, size), BT_OK);
  CHECK_INT(bt_inst_restore(twin, state, size), BT_OK);
  for (int i = 0; i <= n; i++) CHECK_INT(bt_node_last(twin, i), bt_node_last(in, i));
  /* the last child fails too: every last result FAILED, after a think that changed only two */
  truth[6] = 0;
  CHECK_INT(bt_inst_update(twin), BT_OK);
  CHECK_INT(bt_node_last(twin, 0), BT_FAILED);
  CHECK_INT(bt_node_last(twin, n), BT_FAILED);
  CHECK_INT(bt_node_last(twin, n / 2), BT_FAILED);
  free(state);
  free(kids);
  bt_inst_free(in);
  bt_inst_free(twin);
  bt_def_release(d);
}

/* A small plain tree (one chunk, no bt_ops, only Sequences, Selectors, Conditions and Actions)
 * thinks by a path of its own; the same tree with an empty bt_ops on its root thinks by the
 * general one. Random shapes, leaf results and a host's meddling (statuses set, idx fields
 * written, nodes reset) between thinks: both leave the same statuses, last results and idx
 * fields, make the same leaf calls and record the same transitions. */
static unsigned long long lcg = 7;
static unsigned rnd(unsigned n) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(lcg >> 33) % n;
}
static int answers[64], log_at[2], call_log[2][4096];
static int logged_leaf(bt_call *c) {
  int side = bt_inst_agent(c->inst) != NULL;
  if (log_at[side] < 4096) call_log[side][log_at[side]++] = c->node;
  return answers[(size_t)c->ud];
}
static const bt_ops no_ops = {NULL, NULL, NULL, NULL, NULL, NULL};

/* A random tree of up to 4 levels; root_ops: the root's bt_ops */
static int random_node(bt_graph *g, int depth, int *leaves, const bt_ops *root_ops) {
  bt_spec s = {0};
  if (depth == 0 || (depth < 4 && rnd(3) == 0)) {
    s.kind = rnd(2) ? BT_SEQUENCE : BT_SELECTOR;
    s.ops = depth == 0 ? root_ops : NULL;
    int kids[5], n = 1 + (int)rnd(5);
    for (int i = 0; i < n; i++) kids[i] = random_node(g, depth + 1, leaves, NULL);
    int id = bt_graph_add(g, &s);
    CHECK_INT(bt_graph_set_children(g, id, kids, n), BT_OK);
    return id;
  }
  s.kind = rnd(2) ? BT_CONDITION : BT_ACTION;
  s.fn = logged_leaf;
  s.ud = (void *)(size_t)((*leaves)++ % 64);
  return bt_graph_add(g, &s);
}

static bt_def *random_def(unsigned long long seed, const bt_ops *root_ops) {
  lcg = seed;
  bt_graph *g;
  bt_graph_create(&g);
  int leaves = 0, root = random_node(g, 0, &leaves, root_ops);
  bt_def *d = NULL;
  CHECK_INT(bt_def_create(&d, g, root), BT_OK);
  bt_graph_free(g);
  return d;
}

static void same_inst(bt_inst *a, bt_inst *b, int n) {
  for (int i = 0; i < n; i++) {
    CHECK_INT(bt_node_status(a, i), bt_node_status(b, i));
    CHECK_INT(bt_node_last(a, i), bt_node_last(b, i));
    double x = -1, y = -2;
    CHECK_INT(bt_node_get(a, i, BT_FIELD_IDX, &x), bt_node_get(b, i, BT_FIELD_IDX, &y));
    if (bt_node_has_field(bt_inst_def(a), i, BT_FIELD_IDX)) CHECK_NUM(x, y);
  }
}

static void small_path_as_general(void) {
  int side_b = 1;
  for (unsigned long long seed = 1; seed <= 300; seed++) {
    bt_def *da = random_def(seed, NULL), *db = random_def(seed, &no_ops);
    int n = bt_def_size(da);
    CHECK_INT(n, bt_def_size(db));
    bt_inst *a, *b;
    CHECK_INT(bt_inst_create(&a, da, &host, NULL, 0), BT_OK);
    CHECK_INT(bt_inst_create(&b, db, &host, &side_b, 0), BT_OK);
    bt_rec *ra, *rb;
    CHECK_INT(bt_rec_create(&ra, 4096), BT_OK);
    CHECK_INT(bt_rec_create(&rb, 4096), BT_OK);
    CHECK_INT(bt_inst_set_recorder(a, ra), BT_OK);
    CHECK_INT(bt_inst_set_recorder(b, rb), BT_OK);
    log_at[0] = log_at[1] = 0;
    lcg = seed * 977;
    for (int t = 0; t < 40; t++) {
      for (int i = 0; i < 64; i++) answers[i] = (int)rnd(3) - 1; /* FAILED, or SUCCESS */
      if (t % 10 == 5) { /* the recorder goes on and off */
        CHECK_INT(bt_inst_set_recorder(a, t % 20 == 5 ? NULL : ra), BT_OK);
        CHECK_INT(bt_inst_set_recorder(b, t % 20 == 5 ? NULL : rb), BT_OK);
      }
      int node = (int)rnd((unsigned)n);
      switch (rnd(6)) { /* the host meddles, alike on both */
        case 0: {
          bt_status st = (bt_status)rnd(4);
          bt_node_set_status(a, node, st);
          bt_node_set_status(b, node, st);
          break;
        }
        case 1: {
          double v = 1 + rnd(4);
          CHECK_INT(bt_node_set(a, node, BT_FIELD_IDX, &v), bt_node_set(b, node, BT_FIELD_IDX, &v));
          break;
        }
        case 2:
          bt_node_reset(a, node);
          bt_node_reset(b, node);
          break;
        default: break;
      }
      now += 1;
      CHECK_INT(bt_inst_update(a), BT_OK);
      CHECK_INT(bt_inst_update(b), BT_OK);
      same_inst(a, b, n);
    }
    CHECK_INT(log_at[0], log_at[1]);
    CHECK(memcmp(call_log[0], call_log[1], (size_t)log_at[0] * sizeof(int)) == 0);
    CHECK_INT((long long)bt_rec_count(ra), (long long)bt_rec_count(rb));
    for (size_t i = 0; i < bt_rec_count(ra) && i < bt_rec_count(rb); i++) {
      bt_rec_entry x, y;
      CHECK_INT(bt_rec_get(ra, i, &x), BT_OK);
      CHECK_INT(bt_rec_get(rb, i, &y), BT_OK);
      CHECK_INT(x.type, y.type);
      CHECK_INT(x.node, y.node);
      CHECK_INT(x.from, y.from);
      CHECK_INT(x.to, y.to);
    }
    bt_inst_free(a);
    bt_inst_free(b);
    bt_rec_free(ra);
    bt_rec_free(rb);
    bt_def_release(da);
    bt_def_release(db);
  }
}

int main(void) {
  small_tree();
  spilled_deadlines();
  fields_of_a_new_instance();
  host_reset_of_a_new_instance();
  wide(8);
  wide(63);  /* with the root: 64 states, one chunk */
  wide(64);  /* two chunks: summaries */
  wide(5000); /* 79 words: a summary bit stands for two */
  small_path_as_general();
  return check_report("test_layout");
}
