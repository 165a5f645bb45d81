/* SPDX-License-Identifier: MIT */
/* test_coverage.c: the test kit's coverage (bt_test.h "coverage"). Two small trees run by a
 * script whose statuses are worked out by hand from Don't Starve's behaviourtree.lua (in the
 * comments); the figures of each node, the nodes and branches covered, and each report (text,
 * lcov, Cobertura) are written out by hand from them. The same run written to a log and read back
 * gives the same figures (the second way); bad arguments get their errors. */
#include "bt_test.h"
#include "harness.h"

/* The grazer: Selector Root (Sequence Eat (Condition Hungry, Chew), Wander, Never); pre-order
 * Root 0, Eat 1, Hungry 2, Chew 3, Wander 4, Never 5. No wheres: a C tree.
 *   t=1: Hungry false: Hungry FAILED, Eat FAILED; Wander RUNNING, Root RUNNING. Step: Root runs,
 *        so its children step: Eat is done, so it resets (Eat, Hungry READY).
 *   t=2: Root resumes Wander, still RUNNING: no record.
 *   t=3: Wander SUCCESS, Root SUCCESS; Step resets the whole tree.
 *   t=4: Hungry true: Hungry, Chew, Eat, Root SUCCESS; Step resets all.
 * visits/successes/failures/runs/aborts: Root 2/2/0/1/0 (READY>RUNNING, RUNNING>SUCCESS is no
 * visit, READY>SUCCESS), Eat 2/1/1/0/0, Hungry 2/1/1/0/0, Chew 1/1/0/0/0, Wander 1/1/0/1/0,
 * Never 0: missing. Branches (children of Root and Eat): Eat, Wander taken, Never not; Hungry and
 * Chew taken: 4 of 5. */
static leaf HUNGRY = FN("Hungry", 0), CHEW = LEAF("Chew", BT_SUCCESS), WANDER = LEAF("Wander", BT_RUNNING),
            NEVER = LEAF("Never", BT_SUCCESS);

static bt_inst *grazer(void) {
  bt_graph *g = new_graph();
  int hungry = add_fn(g, BT_CONDITION, &HUNGRY, "Hungry"), chew = add_leaf(g, &CHEW);
  int eat = add_node(g, BT_SEQUENCE, "Eat", 0, 0), wander = add_leaf(g, &WANDER), never = add_leaf(g, &NEVER);
  int root = add_node(g, BT_SELECTOR, "Root", 0, 0);
  set_kids(g, eat, 2, hungry, chew);
  set_kids(g, root, 3, eat, wander, never);
  return build(g, root, 0);
}

static void run_grazer(bt_inst *in) {
  think(in, 1);
  think(in, 2);
  WANDER.status = BT_SUCCESS;
  think(in, 3);
  HUNGRY.result = 1;
  think(in, 4);
}

/* The watcher, made where its wheres say: Priority P (period 1, no scatter) of Condition Alarm
 * and behaviour Graze, P on line 1 of watcher.lua, Alarm and Graze both on line 2.
 *   t=0: Alarm false: FAILED; Graze RUNNING; P RUNNING. Step: Alarm resets (READY).
 *   t=2: the period is over: Alarm true, SUCCESS; Graze, not reached, is reset: RUNNING>READY,
 *        an interruption; P SUCCESS. Step resets all.
 * P 1/1/0/1/0, Alarm 2/1/1/0/0, Graze 1/0/0/1/1. */
static leaf ALARM = FN("Alarm", 0), GRAZE = LEAF("Graze", BT_RUNNING);

static int add_where(bt_graph *g, int kind, leaf *l, const char *name, double param, const char *where) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.param = param;
  s.where = where;
  if (kind == BT_PRIORITY) s.flags = BT_SPEC_NOSCATTER;
  if (kind == BT_CONDITION) {
    s.fn = leaf_fn;
    s.ud = l;
  } else if (kind == BT_BEHAVIOUR) {
    s.ops = &LEAF_OPS;
    s.ops_ud = l;
  }
  int id = bt_graph_add(g, &s);
  REQUIRE(id >= 0);
  return id;
}

static bt_inst *watcher(void) {
  bt_graph *g = new_graph();
  int alarm = add_where(g, BT_CONDITION, &ALARM, "Alarm", 0, "watcher.lua:2");
  int graze = add_where(g, BT_BEHAVIOUR, &GRAZE, "Graze", 0, "watcher.lua:2");
  int p = add_where(g, BT_PRIORITY, NULL, "P", 1, "watcher.lua:1");
  set_kids(g, p, 2, alarm, graze);
  return build(g, p, 0);
}

static void run_watcher(bt_inst *in) {
  think(in, 0);
  ALARM.result = 1;
  think(in, 2);
}

static void reset_leaves(void) {
  HUNGRY.result = 0;
  WANDER.status = BT_RUNNING;
  ALARM.result = 0;
}

/* Checks a node's figures (the coverage's) and whether it was visited. */
#define FIGURES(c, shape, node, visited, v, s, f, r, a)             \
  do {                                                              \
    bt_stats_node fig_;                                             \
    memset(&fig_, 0xff, sizeof fig_);                               \
    CHECK_INT(bt_coverage_node((c), (shape), (node), &fig_), visited); \
    CHECK_INT((int)fig_.visits, v);                                 \
    CHECK_INT((int)fig_.successes, s);                              \
    CHECK_INT((int)fig_.failures, f);                               \
    CHECK_INT((int)fig_.runs, r);                                   \
    CHECK_INT((int)fig_.aborts, a);                                 \
  } while (0)

static void check_figures(bt_coverage *c, unsigned long long g, unsigned long long w) {
  FIGURES(c, g, 0, 1, 2, 2, 0, 1, 0);
  FIGURES(c, g, 1, 1, 2, 1, 1, 0, 0);
  FIGURES(c, g, 2, 1, 2, 1, 1, 0, 0);
  FIGURES(c, g, 3, 1, 1, 1, 0, 0, 0);
  FIGURES(c, g, 4, 1, 1, 1, 0, 1, 0);
  FIGURES(c, g, 5, 0, 0, 0, 0, 0, 0);
  FIGURES(c, w, 0, 1, 1, 1, 0, 1, 0);
  FIGURES(c, w, 1, 1, 2, 1, 1, 0, 0);
  FIGURES(c, w, 2, 1, 1, 0, 0, 1, 1);
}

static const char *report(bt_coverage *c, int format, const char *name) {
  static bt_buf b;
  b.len = 0;
  int rc = bt_coverage_write(c, format, name, &b);
  if (rc != BT_OK) {
    fprintf(stderr, "bt_coverage_write: %s\n", bt_coverage_errmsg(c));
    return "";
  }
  return b.data ? b.data : "";
}

/* The text: per shape its sums, its nodes' figures in pre-order, then the missing ones. The
 * watcher's lines are in wfile (NULL: watcher.lua, its wheres), else at its indices + 1. */
static void check_text(bt_coverage *c, unsigned long long g, unsigned long long w, const char *gfile,
                       const char *wfile) {
  char want[2048], wl[3][64];
  for (int i = 0; i < 3; i++)
    snprintf(wl[i], sizeof wl[i], "%s:%d", wfile ? wfile : "watcher.lua", wfile ? i + 1 : i ? 2 : 1);
  snprintf(want, sizeof want,
           "shape\t%016llx\troot\tRoot\tfile\t%s\tnodes\t5/6\tbranches\t4/5\n"
           "node\tvisits\tsuccesses\tfailures\truns\tinterrupted\tline\n"
           "Root\t2\t2\t0\t1\t0\t%s:1\n"
           "Root/Eat\t2\t1\t1\t0\t0\t%s:2\n"
           "Root/Eat/Hungry\t2\t1\t1\t0\t0\t%s:3\n"
           "Root/Eat/Chew\t1\t1\t0\t0\t0\t%s:4\n"
           "Root/Wander\t1\t1\t0\t1\t0\t%s:5\n"
           "Root/Never\t0\t0\t0\t0\t0\t%s:6\n"
           "missing\tRoot/Never\t%s:6\n"
           "shape\t%016llx\troot\tP\tfile\t%s\tnodes\t3/3\tbranches\t2/2\n"
           "node\tvisits\tsuccesses\tfailures\truns\tinterrupted\tline\n"
           "P\t1\t1\t0\t1\t0\t%s\n"
           "P/Alarm\t2\t1\t1\t0\t0\t%s\n"
           "P/Graze\t1\t0\t0\t1\t1\t%s\n",
           g, gfile, gfile, gfile, gfile, gfile, gfile, gfile, gfile, w, wfile ? wfile : "watcher.lua", wl[0], wl[1],
           wl[2]);
  CHECK_STR(report(c, BT_COVERAGE_TEXT, NULL), want);
}

/* lcov: files in byte order ("Root" before "watcher.lua"); the grazer's lines are its nodes'
 * pre-order indices + 1; watcher.lua's line 2 made Alarm (2 visits) and Graze (1): 1. */
static void check_lcov(bt_coverage *c, const char *gfile) {
  char want[2048];
  snprintf(want, sizeof want,
           "TN:spec\nSF:%s\n"
           "BRDA:1,0,0,2\nBRDA:1,0,1,1\nBRDA:1,0,2,0\nBRDA:2,1,0,2\nBRDA:2,1,1,1\n"
           "DA:1,2\nDA:2,2\nDA:3,2\nDA:4,1\nDA:5,1\nDA:6,0\n"
           "LF:6\nLH:5\nBRF:5\nBRH:4\nend_of_record\n"
           "TN:spec\nSF:watcher.lua\n"
           "BRDA:1,0,0,2\nBRDA:1,0,1,1\n"
           "DA:1,1\nDA:2,1\n"
           "LF:2\nLH:2\nBRF:2\nBRH:2\nend_of_record\n",
           gfile);
  CHECK_STR(report(c, BT_COVERAGE_LCOV, "spec"), want);
}

/* Cobertura: 8 lines of which 7 hit, 7 branches of which 6 taken. */
static void check_cobertura(bt_coverage *c, const char *gfile) {
  char want[4096];
  snprintf(want, sizeof want,
           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<coverage line-rate=\"0.8750\" branch-rate=\"0.8571\" lines-covered=\"7\" lines-valid=\"8\" "
           "branches-covered=\"6\" branches-valid=\"7\" complexity=\"0\" version=\"bt %s\" timestamp=\"0\">\n"
           "  <sources><source>.</source></sources>\n"
           "  <packages>\n"
           "    <package name=\"bt\" line-rate=\"0.8750\" branch-rate=\"0.8571\" complexity=\"0\">\n"
           "      <classes>\n"
           "        <class name=\"%s\" filename=\"%s\" line-rate=\"0.8333\" branch-rate=\"0.8000\" complexity=\"0\">\n"
           "          <methods/>\n"
           "          <lines>\n"
           "            <line number=\"1\" hits=\"2\" branch=\"true\" condition-coverage=\"66%% (2/3)\"/>\n"
           "            <line number=\"2\" hits=\"2\" branch=\"true\" condition-coverage=\"100%% (2/2)\"/>\n"
           "            <line number=\"3\" hits=\"2\" branch=\"false\"/>\n"
           "            <line number=\"4\" hits=\"1\" branch=\"false\"/>\n"
           "            <line number=\"5\" hits=\"1\" branch=\"false\"/>\n"
           "            <line number=\"6\" hits=\"0\" branch=\"false\"/>\n"
           "          </lines>\n"
           "        </class>\n"
           "        <class name=\"watcher.lua\" filename=\"watcher.lua\" line-rate=\"1.0000\" branch-rate=\"1.0000\" complexity=\"0\">\n"
           "          <methods/>\n"
           "          <lines>\n"
           "            <line number=\"1\" hits=\"1\" branch=\"true\" condition-coverage=\"100%% (2/2)\"/>\n"
           "            <line number=\"2\" hits=\"1\" branch=\"false\"/>\n"
           "          </lines>\n"
           "        </class>\n"
           "      </classes>\n"
           "    </package>\n"
           "  </packages>\n"
           "</coverage>\n",
           BT_VERSION, gfile, gfile);
  CHECK_STR(report(c, BT_COVERAGE_COBERTURA, NULL), want);
}

static int buf_write(void *ud, const void *data, size_t size) { return bt_buf_append(ud, data, size); }

/* Both trees live, feeding one bt_stats and a log in memory; the coverage of the statistics,
 * then of the log read back. */
static void test_live_and_log(void) {
  reset_leaves();
  bt_inst *gi = grazer(), *wi = watcher();
  unsigned long long g = bt_def_hash(bt_inst_def(gi)), w = bt_def_hash(bt_inst_def(wi));
  bt_stats *st = NULL;
  REQUIRE(bt_stats_create(&st) == BT_OK);
  bt_buf bytes = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, buf_write, &bytes, 0, NULL, 0) == BT_OK);
  bt_rec *gr = NULL, *wr = NULL;
  REQUIRE(bt_rec_create(&gr, 0) == BT_OK && bt_rec_create(&wr, 0) == BT_OK);
  REQUIRE(bt_rec_set_agent(gr, 1, "sheep 1") == BT_OK && bt_rec_set_agent(wr, 2, "sheep 2") == BT_OK);
  REQUIRE(bt_inst_set_recorder(gi, gr) == BT_OK && bt_inst_set_recorder(wi, wr) == BT_OK);
  REQUIRE(bt_rec_set_stats(gr, st) == BT_OK && bt_rec_set_stats(wr, st) == BT_OK);
  REQUIRE(bt_rec_set_log(gr, log) == BT_OK && bt_rec_set_log(wr, log) == BT_OK);
  run_grazer(gi);
  run_watcher(wi);
  REQUIRE(bt_log_free(log) == BT_OK);

  bt_coverage *c = NULL;
  REQUIRE(bt_coverage_create(&c, st) == BT_OK);
  CHECK(bt_coverage_stats(c) == st);
  CHECK_INT(bt_coverage_shape_count(c), 2);
  unsigned long long h = 0;
  const bt_def *d = NULL;
  CHECK_INT(bt_coverage_shape(c, 1, &h, &d), BT_OK);
  CHECK(h == w && d == bt_inst_def(wi));
  check_figures(c, g, w);
  check_text(c, g, w, "Root", NULL);
  check_lcov(c, "Root");
  check_cobertura(c, "Root");
  /* a label names the grazer's file */
  CHECK_INT(bt_coverage_name(c, bt_inst_def(gi), "grazer"), BT_OK);
  check_lcov(c, "grazer");
  /* only the watcher */
  CHECK_INT(bt_coverage_only(c, w), BT_OK);
  CHECK_INT(bt_coverage_shape_count(c), 1);
  CHECK_STR(report(c, BT_COVERAGE_LCOV, NULL),
            "TN:\nSF:watcher.lua\nBRDA:1,0,0,2\nBRDA:1,0,1,1\nDA:1,1\nDA:2,1\nLF:2\nLH:2\nBRF:2\nBRH:2\nend_of_record\n");
  bt_coverage_free(c);

  /* the log: the same figures; its shapes have no wheres, so each file is its first agent's
   * label, and the watcher's lines are its nodes' indices + 1 */
  REQUIRE(bt_coverage_create(&c, NULL) == BT_OK);
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK);
  REQUIRE(bt_log_reader_feed(r, bytes.data, bytes.len) == BT_OK);
  bt_log_record rec;
  while (bt_log_read(r, &rec) == 1) CHECK_INT(bt_coverage_add_log(c, r, &rec), BT_OK);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
  bt_log_reader_free(r);
  check_figures(c, g, w);
  check_text(c, g, w, "sheep 1", "sheep 2");
  CHECK(strstr(report(c, BT_COVERAGE_LCOV, NULL), "SF:sheep 2\nBRDA:1,0,0,2\nBRDA:1,0,1,1\nDA:1,1\nDA:2,2\nDA:3,1\n"));
  bt_coverage_free(c);

  bt_buf_free(&bytes);
  bt_inst_free(gi);
  bt_inst_free(wi);
  bt_rec_free(gr);
  bt_rec_free(wr);
  bt_stats_free(st);
}

/* Two shapes without wheres whose files would have one name: the second is "Root#2". A shape
 * whose node is shared counts it at its first place, shown at both. */
static void test_names(void) {
  reset_leaves();
  bt_inst *a = grazer();
  leaf X = LEAF("X", BT_SUCCESS);
  bt_graph *gr = new_graph();
  int x = add_leaf(gr, &X), root = add_node(gr, BT_SEQUENCE, "Root", 0, 0);
  set_kids(gr, root, 2, x, x); /* X under Root twice: one node, two places */
  bt_inst *b = build(gr, root, 0);
  bt_stats *st = NULL;
  REQUIRE(bt_stats_create(&st) == BT_OK);
  bt_rec *ra = NULL, *rb = NULL;
  REQUIRE(bt_rec_create(&ra, 0) == BT_OK && bt_rec_create(&rb, 0) == BT_OK);
  REQUIRE(bt_inst_set_recorder(a, ra) == BT_OK && bt_inst_set_recorder(b, rb) == BT_OK);
  REQUIRE(bt_rec_set_stats(ra, st) == BT_OK && bt_rec_set_stats(rb, st) == BT_OK);
  think(a, 1);
  think(b, 1); /* X READY>SUCCESS; visited again at its second place it stays SUCCESS (no record) */
  unsigned long long hb = bt_def_hash(bt_inst_def(b));
  bt_coverage *c = NULL;
  REQUIRE(bt_coverage_create(&c, st) == BT_OK);
  CHECK_INT(bt_coverage_node(c, hb, 1, &(bt_stats_node){0}), 1);
  CHECK_INT(bt_coverage_node(c, hb, 2, &(bt_stats_node){0}), 1); /* the second place: the first's figures */
  const char *lcov = report(c, BT_COVERAGE_LCOV, NULL);
  CHECK(strstr(lcov, "SF:Root\n") != NULL);
  CHECK(strstr(lcov, "SF:Root#2\nBRDA:1,0,0,1\nBRDA:1,0,1,1\nDA:1,1\nDA:2,1\nDA:3,1\n") != NULL);
  bt_coverage_free(c);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_rec_free(ra);
  bt_rec_free(rb);
  bt_stats_free(st);
}

static void test_errors(void) {
  CHECK_INT(bt_coverage_create(NULL, NULL), BT_EINVAL);
  bt_coverage *c = NULL;
  REQUIRE(bt_coverage_create(&c, NULL) == BT_OK);
  CHECK_STR(bt_coverage_errmsg(c), "");
  bt_buf b = {0};
  CHECK_INT(bt_coverage_write(c, 7, NULL, &b), BT_EINVAL);
  CHECK_STR(bt_coverage_errmsg(c), "bt_coverage_write: no format 7 (BT_COVERAGE_TEXT, _LCOV or _COBERTURA)");
  CHECK_INT(bt_coverage_write(c, BT_COVERAGE_TEXT, NULL, NULL), BT_EINVAL);
  CHECK_INT(bt_coverage_node(c, 42, 0, &(bt_stats_node){0}), BT_EINVAL);
  CHECK_STR(bt_coverage_errmsg(c), "the statistics have no shape 000000000000002a");
  CHECK_INT(bt_coverage_name(c, NULL, "x"), BT_EINVAL);
  CHECK_INT(bt_coverage_add_log(c, NULL, NULL), BT_EINVAL);
  CHECK_INT(bt_coverage_shape(c, 0, NULL, NULL), BT_EINVAL);
  CHECK_STR(bt_coverage_errmsg(c), "no shape 0 (the coverage has 0)");
  /* no shape: an empty report */
  CHECK_INT(bt_coverage_write(c, BT_COVERAGE_LCOV, NULL, &b), BT_OK);
  CHECK_INT((int)b.len, 0);
  /* a shape fed by hand is named by nothing */
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_STATUS;
  e.node = 1;
  e.from = BT_READY;
  e.to = BT_SUCCESS;
  e.think = 1;
  REQUIRE(bt_stats_add(bt_coverage_stats(c), 1, 0xabc, 2, &e) == BT_OK);
  CHECK_INT(bt_coverage_write(c, BT_COVERAGE_TEXT, NULL, &b), BT_EINVAL);
  CHECK_STR(bt_coverage_errmsg(c), "shape 0000000000000abc: no definition names its nodes (bt_coverage_name)");
  CHECK_INT(bt_coverage_node(c, 0xabc, 2, &(bt_stats_node){0}), BT_EINVAL);
  CHECK_STR(bt_coverage_errmsg(c), "no node 2 in shape 0000000000000abc (its nodes are 0 to 1)");
  CHECK_INT(bt_coverage_node(c, 0xabc, 1, &(bt_stats_node){0}), 1);
  bt_buf_free(&b);
  bt_coverage_free(c);
  bt_coverage_free(NULL);
}

int main(void) {
  test_errors();
  if (!recorder_built()) {
    printf("test_coverage: the recorder is compiled out (BT_RECORDER=OFF): live coverage not tested\n");
    return check_report("test_coverage");
  }
  test_live_and_log();
  test_names();
  return check_report("test_coverage");
}
