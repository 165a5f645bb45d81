/* SPDX-License-Identifier: MIT */
/* test_wide.c: trees wider than a word of the instance's bit sets. An instance keeps a bit per
 * state for "status changed since the last SaveStatus" and "may differ from what Reset leaves",
 * in 64-bit words, and a summary word over each set (a bit per word, or per two words past 4,096
 * states) so that SaveStatus and the scans of Reset and Step read only the words with bits.
 * Here a Priority's winner moves between children far apart, and every child's status and last
 * result is what Don't Starve's PriorityNode:Visit, SaveStatus and Step give: the children
 * before the winner visited (FAILED, then Reset by Step), the winner RUNNING or SUCCESS, every
 * child after it Reset, and SaveStatus copying every status. The children are leaves with a
 * Reset of the host's (always touched), ConditionNodes (touched only while they differ from
 * READY, so that the scans skip words), or ConditionNodes with, at the winners' places,
 * NotDecorators over a ConditionWaitNode (RUNNING while its function is false, else FAILED):
 * there, the winner before is the only touched child past the new one, words away. A state
 * saved from such a tree restores into another instance whole. */
#include "harness.h"

#define MAX_KIDS 5000

enum { LEAVES, CONDITIONS, GUARDS };

static leaf kids_leaf[MAX_KIDS];
static int kids_id[MAX_KIDS];

/* After a think whose Priority chose child `won`: the children before it READY (FAILED when
 * visited, Reset by Step), last FAILED; the winner RUNNING (a leaf), or READY with last SUCCESS
 * (a condition: the Priority succeeded and Step Reset the tree); the others READY, last READY. */
static void check_children(bt_inst *in, int n, int won, int mode, const char *when) {
  int bad = 0;
  bt_status won_st = mode == CONDITIONS ? BT_READY : BT_RUNNING;
  bt_status won_last = mode == CONDITIONS ? BT_SUCCESS : BT_RUNNING;
  for (int i = 0; i < n; i++) {
    int node = at(in, kids_id[i]);
    bt_status st = bt_node_status(in, node), last = bt_node_last(in, node);
    bt_status want_st = i == won ? won_st : BT_READY;
    bt_status want_last = i < won ? BT_FAILED : i == won ? won_last : BT_READY;
    if (st != want_st || last != want_last) {
      if (bad++ < 3)
        fprintf(stderr, "  %s: child %d of %d: %s <%s>, expected %s <%s>\n", when, i, n,
                bt_status_name(st), bt_status_name(last), bt_status_name(want_st),
                bt_status_name(want_last));
    }
  }
  CHECK_INT(bad, 0);
}

/* A Priority (period 1) over n children; the winner is wins[0], then, at each re-evaluation, the
 * next of wins. */
static void test_moving_winner(int n, int mode, const int *wins, int nwins) {
  static const char *modes[] = {"leaves", "conditions", "guards"};
  bt_graph *g = new_graph();
  int root = add_prio(g, NULL, 1);
  for (int i = 0; i < n; i++) {
    if (mode == LEAVES) {
      kids_leaf[i] = (leaf)LEAF("c", BT_FAILED);
      kids_leaf[i].sleep = 0.5; /* a nextupdatetime in every chunk, for the saved state */
      kids_id[i] = add_leaf(g, &kids_leaf[i]);
      continue;
    }
    kids_leaf[i] = (leaf)FN("c", 0);
    int guard = 0;
    for (int k = 0; k < nwins; k++) guard |= mode == GUARDS && wins[k] == i;
    if (!guard) {
      kids_id[i] = add_fn(g, BT_CONDITION, &kids_leaf[i], NULL);
      continue;
    }
    kids_leaf[i].result = 1; /* ConditionWait SUCCESS: the NotDecorator FAILED */
    kids_id[i] = add_node(g, BT_NOT, NULL, 0, 0);
    set_kids(g, kids_id[i], 1, add_fn(g, BT_CONDITIONWAIT, &kids_leaf[i], NULL));
  }
  REQUIRE(bt_graph_set_children(g, root, kids_id, n) == BT_OK);
  bt_inst *in = build(g, root, 0);
  char when[64];
  for (int k = 0; k < nwins; k++) {
    /* the winner: a leaf RUNNING, a condition true, a guard's ConditionWait false */
    if (k > 0) {
      kids_leaf[wins[k - 1]].status = BT_FAILED;
      kids_leaf[wins[k - 1]].result = mode == GUARDS;
    }
    kids_leaf[wins[k]].status = BT_RUNNING;
    kids_leaf[wins[k]].result = mode != GUARDS;
    int resets_before = k > 0 ? kids_leaf[wins[k - 1]].resets : 0;
    think(in, 2.0 * k); /* past the period: every think re-evaluates */
    snprintf(when, sizeof when, "%d %s, think %d", n, modes[mode], k + 1);
    check_children(in, n, wins[k], mode, when);
    CHECK_STR(ST(in, root), mode == CONDITIONS ? "READY" : "RUNNING");
    CHECK_STR(LST(in, root), mode == CONDITIONS ? "SUCCESS" : "RUNNING");
    /* the leaf that won before, if after this winner, was Reset (by the Priority, then by Step) */
    if (mode == LEAVES && k > 0 && wins[k - 1] > wins[k])
      CHECK_INT(kids_leaf[wins[k - 1]].resets - resets_before, 2);
  }
  /* a saved state restores into another instance whole: the same bytes saved again, and the same
   * next think (the last winner wins again, at a time past the period) */
  const bt_def *def = bt_inst_def(in);
  size_t size = bt_inst_state_size(def);
  unsigned char *a = malloc(size), *b = malloc(size);
  bt_inst *copy = NULL;
  REQUIRE(a && b && bt_inst_create(&copy, (bt_def *)def, &HOST, NULL, 0) == BT_OK);
  CHECK_INT(bt_inst_save(in, a, size), BT_OK);
  CHECK_INT(bt_inst_restore(copy, a, size), BT_OK);
  CHECK_INT(bt_inst_save(copy, b, size), BT_OK);
  CHECK(memcmp(a, b, size) == 0);
  CHECK_NUM(sleep_of(copy), sleep_of(in));
  think(in, 2.0 * nwins);
  think(copy, 2.0 * nwins);
  CHECK_INT(bt_inst_save(in, a, size), BT_OK);
  CHECK_INT(bt_inst_save(copy, b, size), BT_OK);
  CHECK(memcmp(a, b, size) == 0);
  check_children(copy, n, wins[nwins - 1], mode, "restored");
  bt_inst_free(copy);
  free(a);
  free(b);
  /* Reset reaches every touched child, wherever its word */
  REQUIRE(bt_inst_reset(in) == BT_OK);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += bt_node_status(in, at(in, kids_id[i])) != BT_READY;
  CHECK_INT(bad, 0);
  bt_inst_free(in);
}

int main(void) {
  for (int mode = LEAVES; mode <= GUARDS; mode++) {
    test_moving_winner(100, mode, (const int[]){90, 3, 90, 64, 63}, 5);
    test_moving_winner(4000, mode, (const int[]){3990, 10, 2048, 3990}, 4);
    /* past 4,096 states a summary bit stands for two words */
    test_moving_winner(5000, mode, (const int[]){4990, 5, 4990, 4100, 4097, 130, 4999}, 7);
    test_moving_winner(5000, mode, (const int[]){0, 4999, 0}, 3);
    test_moving_winner(5000, mode, (const int[]){1000, 640, 1000, 700}, 4);
  }
  logs();
  return check_report("test_wide");
}
