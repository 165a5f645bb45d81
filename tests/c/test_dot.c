/* SPDX-License-Identifier: MIT */
/* test_dot.c: bt_def_dot and bt_inst_dot. The picture of a known tree (a Priority over a library
 * subtree, a Sequence and a Condition whose names need escaping (UTF-8 kept, a stray byte
 * not), a Wait, a leaf shared by two Sequences), as a definition and as an instance after two
 * thinks, equals tests/c/expected/dot_def.dot and
 * dot_inst.dot byte for byte (BT_SOURCE_DIR names the source tree; with BT_DOT_UPDATE=1 the test
 * writes them instead). Then: parameters of the other kinds, escaping, errors, appending, and
 * that a failed picture leaves the buffer as it was. tests/ci/check_dot.sh has Graphviz read the
 * expected files. */
#include "harness.h"

static const char *source_dir(void) {
  const char *dir = getenv("BT_SOURCE_DIR");
  if (!dir) {
    fprintf(stderr, "test_dot: BT_SOURCE_DIR is not set (ctest sets it)\n");
    exit(2);
  }
  return dir;
}

/* Checks text against tests/c/expected/<name>, or writes it there with BT_DOT_UPDATE=1. */
static void check_file(const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/c/expected/%s", source_dir(), name);
  const char *update = getenv("BT_DOT_UPDATE");
  if (update && strcmp(update, "1") == 0) {
    FILE *f = fopen(path, "wb");
    REQUIRE(f && fputs(text, f) >= 0 && fclose(f) == 0);
    return;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "test_dot: cannot read %s\n", path);
    CHECK(0);
    return;
  }
  static char want[16384];
  size_t n = fread(want, 1, sizeof want - 1, f);
  fclose(f);
  want[n] = '\0';
  if (strcmp(want, text) != 0) fprintf(stderr, "test_dot: %s differs; the output:\n%s", name, text);
  CHECK_STR(text, want);
}

static leaf SCARED = FN("Scared", 0), RUN = LEAF("Run", BT_RUNNING), HAS = FN("Has", 0),
            IDLE = LEAF("Idle", BT_SUCCESS);

/* Root (Priority 0.5): flee (subtree: Flee = Sequence(Scared, Run)), Eat = Sequence(Has "food"?,
 * Idle), Rest = Sequence(Wait 2, Idle): Idle is shared. */
static bt_inst *known_tree(void) {
  bt_lib *lib = NULL;
  REQUIRE(bt_lib_create(&lib) == BT_OK);
  bt_graph *lg = new_graph();
  int flee = add_node(lg, BT_SEQUENCE, "Flee", 0, 0);
  set_kids(lg, flee, 2, add_fn(lg, BT_CONDITION, &SCARED, "Scared"), add_leaf(lg, &RUN));
  REQUIRE(bt_lib_set(lib, "flee", lg, flee) == BT_OK);
  bt_graph_free(lg);

  bt_graph *g = new_graph();
  int root = add_prio(g, "Root", 0.5);
  int ref = add_node(g, BT_SUBTREE, "flee", 0, 0);
  int eat = add_node(g, BT_SEQUENCE, "Eat\nnow", 0, 0);
  int has = add_fn(g, BT_CONDITION, &HAS, "Has \"food\"\\? \xc3\xa9\xff");
  int idle = add_leaf(g, &IDLE);
  int rest = add_node(g, BT_SEQUENCE, "Rest", 0, 0);
  int wait = add_node(g, BT_WAIT, NULL, 2, 0);
  set_kids(g, eat, 2, has, idle);
  set_kids(g, rest, 2, wait, idle);
  set_kids(g, root, 3, ref, eat, rest);
  bt_def *def = NULL;
  REQUIRE(bt_def_create_lib(&def, g, root, lib) == BT_OK);
  bt_graph_free(g);
  bt_lib_free(lib);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  bt_def_release(def);
  return in;
}

static void test_dot_known_tree(void) {
  bt_inst *in = known_tree();
  bt_buf b = {0};
  CHECK_INT(bt_def_dot(bt_inst_def(in), &b), BT_OK);
  check_file("dot_def.dot", b.data);
  /* the definition's picture has no statuses; a new instance's are all READY, nothing bold */
  CHECK(!strstr(b.data, "fillcolor=\"#ffe08a\"") && !strstr(b.data, "READY"));
  bt_buf_free(&b);
  CHECK_INT(bt_inst_dot(in, &b), BT_OK);
  CHECK(strstr(b.data, "READY <READY>") && !strstr(b.data, "bold"));
  bt_buf_free(&b);

  think(in, 0); /* Flee and Eat fail, Rest runs its Wait */
  think(in, 1); /* still waiting */
  CHECK_STR(ST(in, 0), "RUNNING");
  CHECK_INT(bt_inst_dot(in, &b), BT_OK);
  check_file("dot_inst.dot", b.data);
  bt_buf_free(&b);
  bt_inst_free(in);
}

/* Every kind's parameter where it has one, and a shared node's count. */
static void test_dot_params(void) {
  leaf C = FN("C", 1), A = LEAF("A", BT_SUCCESS);
  bt_graph *g = new_graph();
  int root = add_node(g, BT_PARALLEL, NULL, 0, 0);
  int ev = add_node(g, BT_EVENT, "OnHit", 3, 0);
  int loop = add_node(g, BT_LOOP, "Loop", 0, BT_SPEC_NIL_PARAM);
  int loop2 = add_node(g, BT_LOOP, "Loop2", 4, 0);
  int rep = add_node(g, BT_REPEAT, NULL, 3, 0);
  int cool = add_node(g, BT_COOLDOWN, NULL, 1.5, 0);
  int tmo = add_node(g, BT_TIMEOUT, NULL, 0.25, 0);
  int pp = add_node(g, BT_POLICY_PARALLEL, NULL, 0, BT_SPEC_SUCCESS_ONE);
  int prio = add_node(g, BT_PRIORITY, NULL, 0, BT_SPEC_NIL_PARAM | BT_SPEC_NOSCATTER);
  int latch = add_timed_fn(g, BT_LATCH, &C, "L");
  int c = add_fn(g, BT_CONDITION, &C, "Ctl\x01");
  int a = add_leaf(g, &A);
  set_kids(g, ev, 1, a);
  set_kids(g, loop, 1, a);
  set_kids(g, loop2, 1, a);
  set_kids(g, rep, 1, a);
  set_kids(g, cool, 1, a);
  set_kids(g, tmo, 1, a);
  set_kids(g, pp, 2, c, a);
  set_kids(g, prio, 1, a);
  set_kids(g, latch, 1, a);
  set_kids(g, root, 9, ev, loop, loop2, rep, cool, tmo, pp, prio, latch);
  bt_inst *in = build(g, root, 0);
  bt_buf b = {0};
  CHECK_INT(bt_def_dot(bt_inst_def(in), &b), BT_OK);
  const char *want[] = {"OnHit\\nEventNode, priority 3\"", "Loop\\nLoopNode, forever\"",
                        "Loop2\\nLoopNode, maxreps 4\"", "RepeatNode, 3 times\"",
                        "CooldownDecorator, 1.5 s\"", "TimeoutDecorator, 0.25 s\"",
                        "PolicyParallelNode, success: one, failure: one\"",
                        "PriorityNode, period 1\"", "L\\nLatchNode, time from a function\"",
                        "Ctl\\\\x01\\nConditionNode\"", "shared: 9 places\", peripheries=2",
                        "rankdir=TB;", "ordering=out;"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    if (!strstr(b.data, want[i])) fprintf(stderr, "test_dot: no %s in\n%s", want[i], b.data);
    CHECK(strstr(b.data, want[i]) != NULL);
  }
  /* the shared leaf is one box with an edge from each of its nine parents */
  int boxes = 0, edges = 0;
  for (const char *p = b.data; (p = strstr(p, "[label=\"A\\n")); p++) boxes++;
  int ia = bt_def_node_of_state(bt_inst_def(in), bt_def_state(bt_inst_def(in), at(in, a)));
  char tail[32];
  snprintf(tail, sizeof tail, " -> n%d;", ia);
  for (const char *p = b.data; (p = strstr(p, tail)); p++) edges++;
  CHECK_INT(boxes, 1);
  CHECK_INT(edges, 9); /* one from each parent, the PolicyParallel among them */
  bt_buf_free(&b);
  bt_inst_free(in);
}

static void test_dot_errors(void) {
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *in = build(g, add_leaf(g, &A), 0);
  bt_buf b = {0};
  CHECK_INT(bt_def_dot(NULL, &b), BT_EINVAL);
  CHECK_INT(bt_def_dot(bt_inst_def(in), NULL), BT_EINVAL);
  CHECK_INT(bt_inst_dot(NULL, &b), BT_EINVAL);
  CHECK_INT(bt_inst_dot(in, NULL), BT_EINVAL);
  CHECK(b.data == NULL && b.len == 0);
  /* appends; a running root alone is the running path */
  think(in, 0);
  CHECK_INT(bt_buf_printf(&b, "// A\n"), BT_OK);
  CHECK_INT(bt_inst_dot(in, &b), BT_OK);
  CHECK(strncmp(b.data, "// A\ndigraph bt {\n", 18) == 0);
  CHECK(strstr(b.data, "RUNNING <RUNNING>\", fillcolor=\"#ffe08a\", color=\"#b8860b\", "
                       "style=\"rounded,filled,bold\", penwidth=2];") != NULL);
  CHECK_INT((int)b.len, (int)strlen(b.data));
  /* a buffer that failed before stays as it was */
  size_t len = b.len;
  b.err = BT_ENOMEM;
  CHECK_INT(bt_inst_dot(in, &b), BT_ENOMEM);
  CHECK_INT(bt_def_dot(bt_inst_def(in), &b), BT_ENOMEM);
  CHECK_INT((int)b.len, (int)len);
  bt_buf_free(&b);
  bt_inst_free(in);
}

/* A tree with a blackboard (harness.h's board tree): each node with ports says what it reads and
 * writes, a box lists the keys; as a definition, and as an instance running Wander (its
 * WatchNodes' conditions false). tests/c/expected/dot_board_*.dot. */
static void test_dot_ports(void) {
  leaf hunt = LEAF("Hunt", BT_RUNNING), sleep = LEAF("Sleep", BT_RUNNING), wander = LEAF("Wander", BT_RUNNING);
  bt_def *def = board_def(&hunt, &sleep, &wander);
  bt_buf b = {0};
  REQUIRE(bt_def_dot(def, &b) == BT_OK);
  check_file("dot_board_def.dot", b.data);
  CHECK(strstr(b.data, "\\nreads hunger; writes prey\"") != NULL);
  CHECK(strstr(b.data, "\\nreads mood; writes mood, count\"") != NULL);
  CHECK(strstr(b.data, "\\nreads night\"") != NULL); /* a WatchNode reads the key of its condition */
  CHECK(strstr(b.data, "token: value, the host's\\l") != NULL);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  think(in, 1);
  b.len = 0;
  REQUIRE(bt_inst_dot(in, &b) == BT_OK);
  check_file("dot_board_inst.dot", b.data);
  bt_buf_free(&b);
  bt_inst_free(in);
  bt_def_release(def);
}

int main(void) {
  test_dot_known_tree();
  test_dot_ports();
  test_dot_params();
  test_dot_errors();
  return check_report("test_dot");
}
