/* SPDX-License-Identifier: MIT */
/* test_diff: the comparer of recorded sessions (bt_test.h, bt_diff_*). Sessions of a few agents
 * are recorded into logs in memory, each with a change whose first record is known by hand; the
 * comparer must find that record and no other, whether both sides are logs or one is live. */
#include "check.h"
#include "harness.h"
#include "bt_test.h"

/* ---- a session ----
 * Each agent's tree: Selector "Root" [Sequence "Danger" [Condition "Scared", Action "Run"
 * (, Action "Hide": the patch)], Condition "Hungry", Action "Wander"]. Scared is always false, so
 * Danger's branch never runs past Scared; Hungry is true before the agent's fail_from, then false
 * (and Wander runs). Thinks at 0.5, 1.0, ... until the agent's `until`. */
typedef struct agent_cfg {
  unsigned long long id;
  const char *label;
  double fail_from; /* Hungry is false from this time on */
  double until;     /* its last think */
  int patched;      /* Danger has the extra Hide */
  const char *error; /* an error of Hungry's code recorded after the think at 1.0 (NULL: none) */
  leaf scared, run, hide, hungry, wander; /* its leaves (harness.h) */
} agent_cfg;

/* Hungry: true before the time its leaf's value holds. */
static void hungry_hook(bt_call *c, leaf *l) {
  (void)c;
  l->result = T < l->value;
}

static bt_inst *make_agent(agent_cfg *a) {
  a->scared = (leaf)FN("Scared", 0);
  a->run = (leaf)FN("Run", 1);
  a->hide = (leaf)FN("Hide", 1);
  a->wander = (leaf)FN("Wander", 1);
  a->hungry = (leaf)FN("Hungry", 1);
  a->hungry.value = a->fail_from;
  a->hungry.hook = hungry_hook;
  bt_graph *g = new_graph();
  int root = add_node(g, BT_SELECTOR, "Root", 0, 0);
  int danger = add_node(g, BT_SEQUENCE, "Danger", 0, 0);
  int scared = add_fn(g, BT_CONDITION, &a->scared, "Scared");
  int run = add_fn(g, BT_ACTION, &a->run, "Run");
  int hungry = add_fn(g, BT_CONDITION, &a->hungry, "Hungry");
  int wander = add_fn(g, BT_ACTION, &a->wander, "Wander");
  if (a->patched) set_kids(g, danger, 3, scared, run, add_fn(g, BT_ACTION, &a->hide, "Hide"));
  else set_kids(g, danger, 2, scared, run);
  set_kids(g, root, 3, danger, hungry, wander);
  logs(); /* the leaves' calls are not this test's */
  return build(g, root, BT_INST_NOSCATTER);
}

/* What a live side feeds the comparer (a recorder's callback). */
typedef struct live {
  bt_diff *d;
  int side;
  bt_rec *rec;
  int rc; /* the first error */
} live;

static void on_record(void *ud, const bt_rec_entry *e) {
  live *l = ud;
  int rc = bt_diff_entry(l->d, l->side, bt_rec_agent(l->rec), bt_rec_label(l->rec), bt_rec_def(l->rec), e);
  if (rc != BT_OK && l->rc == BT_OK) l->rc = rc;
}

/* Runs the agents; records into a log in m (m not NULL), and/or live into d's side (d not NULL). */
static void run_session(agent_cfg *agents, int n, mem *m, bt_diff *d, int side) {
  bt_log *log = NULL;
  if (m) REQUIRE(bt_log_create_fn(&log, mem_write, m, 0, NULL, 0) == BT_OK);
  bt_inst *in[8];
  bt_rec *rec[8];
  live lv[8];
  T = 0;
  for (int i = 0; i < n; i++) {
    in[i] = make_agent(&agents[i]);
    REQUIRE(bt_rec_create(&rec[i], 0) == BT_OK);
    REQUIRE(bt_rec_set_agent(rec[i], agents[i].id, agents[i].label) == BT_OK);
    if (log) REQUIRE(bt_rec_set_log(rec[i], log) == BT_OK);
    lv[i] = (live){d, side, rec[i], BT_OK};
    if (d) bt_rec_set_callback(rec[i], on_record, &lv[i]);
    REQUIRE(bt_inst_set_recorder(in[i], rec[i]) == BT_OK);
  }
  for (int k = 1; k <= 10; k++) {
    T = 0.5 * k;
    for (int i = 0; i < n; i++) {
      if (T > agents[i].until) continue;
      REQUIRE(bt_inst_update(in[i]) == BT_OK);
      if (T == 1.0 && agents[i].error) /* Hungry's code failed: node 4 unpatched, 5 patched */
        bt_inst_record_error(in[i], agents[i].patched ? 5 : 4, agents[i].error);
    }
    if (log) REQUIRE(bt_log_flush(log) == BT_OK);
  }
  for (int i = 0; i < n; i++) {
    CHECK_INT(lv[i].rc, BT_OK);
    bt_inst_set_recorder(in[i], NULL);
    bt_rec_free(rec[i]);
    bt_inst_free(in[i]);
  }
  if (log) REQUIRE(bt_log_free(log) == BT_OK);
}

static bt_log_reader *reader_of(const mem *m) {
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK);
  REQUIRE(bt_log_reader_feed(r, m->p, m->len) == BT_OK);
  return r;
}

/* Compares two logs; returns the comparer (finished). */
static bt_diff *diff_logs(const mem *a, const mem *b) {
  bt_diff *d = NULL;
  REQUIRE(bt_diff_create(&d) == BT_OK);
  bt_log_reader *ra = reader_of(a), *rb = reader_of(b);
  CHECK_INT(bt_diff_logs(d, ra, rb), BT_OK);
  bt_log_reader_free(ra);
  bt_log_reader_free(rb);
  return d;
}

static const bt_diff_row *row_of(const bt_diff *d, unsigned long long agent) {
  static bt_diff_row row;
  for (int i = 0; i < bt_diff_count(d); i++)
    if (bt_diff_get(d, i, &row) == BT_OK && row.agent == agent) return &row;
  return NULL;
}

/* text begins with prefix (the report's summary ends with a count of records not worked out here). */
static void check_prefix(const char *text, const char *prefix, int line) {
  check_count++;
  if (!text || strncmp(text, prefix, strlen(prefix)) != 0) {
    check_failures++;
    fprintf(stderr, "test_diff.c:%d: CHECK failed: the report\n--- got:\n%s\n--- expected to begin with:\n%s\n", line,
            text ? text : "(null)", prefix);
  }
}

static char *report(const bt_diff *d) {
  bt_buf b = {0};
  CHECK_INT(bt_diff_report(d, &b), BT_OK);
  return b.data ? b.data : calloc(1, 1);
}

/* Agent 2's first difference when its Hungry fails from 2.0 on one side (B) only. */
static void check_hungry_row(const bt_diff_row *r) {
  CHECK(r != NULL);
  if (!r) return;
  CHECK_INT(r->state, BT_DIFF_DIFFERS);
  CHECK_STR(r->label, "sheep 2");
  CHECK_NUM(r->time, 2.0);
  CHECK(r->has[0] && r->has[1]);
  CHECK_STR(r->path[0], "Root/Hungry");
  CHECK_STR(r->path[1], "Root/Hungry");
  CHECK_STR(r->what[0], "READY>SUCCESS");
  CHECK_STR(r->what[1], "READY>FAILED");
}

/* The three agents of the reference session. */
static void reference(agent_cfg *a) {
  a[0] = (agent_cfg){.id = 1, .label = "sheep 1", .fail_from = 99, .until = 99, .patched = 0, .error = NULL};
  a[1] = (agent_cfg){.id = 2, .label = "sheep 2", .fail_from = 3.0, .until = 99, .patched = 0, .error = NULL};
  a[2] = (agent_cfg){.id = 3, .label = "wolf 3", .fail_from = 99, .until = 99, .patched = 0,
                     .error = "brains/wolf.lua:7: attempt to index a nil value"};
}

/* The same session twice: no difference; every agent's records match. */
static void test_same(void) {
  agent_cfg a[3];
  reference(a);
  mem ma = {0}, mb = {0};
  run_session(a, 3, &ma, NULL, 0);
  run_session(a, 3, &mb, NULL, 0);
  bt_diff *d = diff_logs(&ma, &mb);
  CHECK_INT(bt_diff_same(d), 1);
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  CHECK_INT(s.agents, 3);
  CHECK_INT(s.same, 3);
  CHECK_INT(s.differ + s.only_a + s.only_b, 0);
  const bt_diff_row *r = row_of(d, 1);
  CHECK(r && r->state == BT_DIFF_SAME && r->records[0] == r->records[1] && r->same == r->records[0]);
  CHECK(r && r->records[0] > 10); /* 10 thinks at least */
  char *text = report(d);
  check_prefix(text, "3 agents: 3 the same, 0 differ, 0 only in A, 0 only in B; ", __LINE__);
  free(text);
  bt_diff_free(d);
  free(ma.p);
  free(mb.p);
}

/* Agent 2's Hungry fails from 2.0 in B (from 3.0 in A): its first difference is Hungry's record
 * in the think at 2.0, READY>SUCCESS against READY>FAILED; agents 1 and 3 are the same (3's error
 * messages differ, which is not compared). */
static void test_first_difference(void) {
  agent_cfg a[3], b[3];
  reference(a);
  reference(b);
  b[1].fail_from = 2.0;
  b[2].error = "copy/brains/wolf.lua:7: attempt to index a nil value";
  mem ma = {0}, mb = {0};
  run_session(a, 3, &ma, NULL, 0);
  run_session(b, 3, &mb, NULL, 0);
  bt_diff *d = diff_logs(&ma, &mb);
  CHECK_INT(bt_diff_same(d), 0);
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  CHECK_INT(s.agents, 3);
  CHECK_INT(s.same, 2);
  CHECK_INT(s.differ, 1);
  check_hungry_row(row_of(d, 2));
  char *text = report(d);
  check_prefix(text, "2.0000\t2\tsheep 2\tRoot/Hungry\tA: READY>SUCCESS\tB: READY>FAILED\n"
                     "3 agents: 2 the same, 1 differ, 0 only in A, 0 only in B; ", __LINE__);
  free(text);
  bt_diff_free(d);
  free(ma.p);
  free(mb.p);
}

/* A patched brain: Danger gets a third child (Hide), in a branch that never runs past Scared, so
 * every later node's index moves by one. Compared by path, nothing differs; with agent 2's
 * change too, the difference found is the one of test_first_difference. */
static void test_patched_branch(void) {
  agent_cfg a[3], b[3];
  reference(a);
  reference(b);
  for (int i = 0; i < 3; i++) b[i].patched = 1;
  mem ma = {0}, mb = {0};
  run_session(a, 3, &ma, NULL, 0);
  run_session(b, 3, &mb, NULL, 0);
  bt_diff *d = diff_logs(&ma, &mb);
  CHECK_INT(bt_diff_same(d), 1);
  bt_diff_free(d);
  free(mb.p);
  mb = (mem){0};
  b[1].fail_from = 2.0;
  run_session(b, 3, &mb, NULL, 0);
  d = diff_logs(&ma, &mb);
  check_hungry_row(row_of(d, 2));
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  CHECK_INT(s.same, 2);
  bt_diff_free(d);
  free(ma.p);
  free(mb.p);
}

/* Agents only on one side, and a side whose stream of an agent ends early: agent 1 stops after
 * its think at 3.0 in B, so its first difference is A's first record at 3.5 against "no record";
 * agent 3 is only in A, agent 4 only in B. */
static void test_missing(void) {
  agent_cfg a[3], b[3];
  reference(a);
  reference(b);
  b[0].until = 3.0;
  b[2] = (agent_cfg){.id = 4, .label = "fox 4", .fail_from = 99, .until = 99, .patched = 0, .error = NULL};
  mem ma = {0}, mb = {0};
  run_session(a, 3, &ma, NULL, 0);
  run_session(b, 3, &mb, NULL, 0);
  bt_diff *d = diff_logs(&ma, &mb);
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  CHECK_INT(s.agents, 4);
  CHECK_INT(s.same, 1);
  CHECK_INT(s.differ, 1);
  CHECK_INT(s.only_a, 1);
  CHECK_INT(s.only_b, 1);
  const bt_diff_row *r = row_of(d, 1);
  CHECK(r && r->state == BT_DIFF_DIFFERS);
  if (r) {
    CHECK_NUM(r->time, 3.5);
    CHECK(r->has[0] && !r->has[1]);
    CHECK_STR(r->what[1], "no record");
  }
  r = row_of(d, 3);
  CHECK(r && r->state == BT_DIFF_ONLY_A && r->records[1] == 0 && r->records[0] > 0);
  r = row_of(d, 4);
  CHECK(r && r->state == BT_DIFF_ONLY_B);
  if (r) CHECK_NUM(r->time, 0.0); /* its recorder was attached at 0 */
  char *text = report(d);
  CHECK(strstr(text, "\t3\twolf 3\t-\tonly in A\t") != NULL);
  CHECK(strstr(text, "0.0000\t4\tfox 4\t-\tonly in B\t") != NULL);
  free(text);
  bt_diff_free(d);
  free(ma.p);
  free(mb.p);
}

/* A live side: the recorders' callbacks feed B while the comparer reads A's log as far as B has
 * come. The same session: no difference; agent 2's change: the same first difference as two logs
 * give. */
static void test_live(void) {
  agent_cfg a[3], b[3];
  reference(a);
  reference(b);
  mem ma = {0};
  run_session(a, 3, &ma, NULL, 0);
  for (int change = 0; change < 2; change++) {
    if (change) b[1].fail_from = 2.0;
    bt_diff *d = NULL;
    REQUIRE(bt_diff_create(&d) == BT_OK);
    bt_log_reader *ra = reader_of(&ma);
    CHECK_INT(bt_diff_set_reader(d, BT_DIFF_A, ra), BT_OK);
    run_session(b, 3, NULL, d, BT_DIFF_B);
    CHECK_INT(bt_diff_finish(d), BT_OK);
    CHECK_INT(bt_diff_same(d), !change);
    if (change) check_hungry_row(row_of(d, 2));
    else CHECK(row_of(d, 2) && row_of(d, 2)->state == BT_DIFF_SAME);
    bt_log_reader_free(ra);
    bt_diff_free(d);
  }
  free(ma.p);
}

/* A side that runs BT_DIFF_AHEAD records of one agent ahead of the other: the agent differs at
 * the first record the other side never matched ("no record" there), and what comes after is
 * dropped, so memory stays bounded; an agent both sides keep in step stays the same. */
static void test_ahead(void) {
  agent_cfg cfg[3];
  reference(cfg);
  bt_inst *in = make_agent(&cfg[0]);
  const bt_def *def = bt_inst_def(in);
  bt_diff *d = NULL;
  REQUIRE(bt_diff_create(&d) == BT_OK);
  bt_rec_entry think = {0};
  think.type = BT_REC_THINK;
  think.node = -1;
  think.cause = BT_WAKE_DEADLINE;
  for (int i = 0; i < BT_DIFF_AHEAD + 10; i++) { /* agent 1: its first think on side B, every
                                                     think on side A; agent 2 on both */
    think.think = (unsigned long long)i + 1;
    think.time = 0.5 * (i + 1);
    CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, "sheep 1", def, &think), BT_OK);
    if (i == 0) CHECK_INT(bt_diff_entry(d, BT_DIFF_B, 1, "sheep 1", def, &think), BT_OK);
    CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 2, "sheep 2", def, &think), BT_OK);
    CHECK_INT(bt_diff_entry(d, BT_DIFF_B, 2, "sheep 2", def, &think), BT_OK);
  }
  /* before the end: agent 1 already differs, at its second think, which B never matched */
  const bt_diff_row *r = row_of(d, 1);
  CHECK(r != NULL);
  if (r) {
    CHECK_INT(r->state, BT_DIFF_DIFFERS);
    CHECK_NUM(r->time, 1.0);
    CHECK(r->same == 1);
    CHECK(r->has[0] && !r->has[1]);
    CHECK_STR(r->what[1], "no record");
  }
  CHECK_INT(bt_diff_finish(d), BT_OK);
  r = row_of(d, 1);
  CHECK(r && r->state == BT_DIFF_DIFFERS && r->time == 1.0);
  r = row_of(d, 2);
  CHECK(r && r->state == BT_DIFF_SAME && r->same == BT_DIFF_AHEAD + 10);
  CHECK_INT(bt_diff_same(d), 0);
  bt_diff_free(d);
  bt_inst_free(in);
}

/* Bad arguments and uses say what was wrong. */
static void test_errors(void) {
  bt_diff *d = NULL;
  CHECK_INT(bt_diff_create(NULL), BT_EINVAL);
  REQUIRE(bt_diff_create(&d) == BT_OK);
  agent_cfg a = {.id = 1, .label = "sheep 1", .fail_from = 99, .until = 99, .patched = 0, .error = NULL};
  bt_inst *in = make_agent(&a);
  const bt_def *def = bt_inst_def(in);
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_STATUS;
  e.node = 99;
  e.to = BT_RUNNING;
  CHECK_INT(bt_diff_entry(d, 2, 1, NULL, def, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "side 2 is neither BT_DIFF_A nor BT_DIFF_B");
  CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, NULL, def, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "node 99 is not of the tree (6 nodes)");
  CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, NULL, NULL, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "no definition");
  e.type = 42;
  CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, NULL, def, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "record type 42 is none of the recorder's (BT_REC_*)");
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK);
  CHECK_INT(bt_diff_set_reader(d, BT_DIFF_A, r), BT_EINVAL); /* fed already */
  CHECK_STR(bt_diff_errmsg(d), "side A was fed records already");
  CHECK_INT(bt_diff_set_names(d, "old.btlog", "new.btlog"), BT_OK);
  CHECK_INT(bt_diff_set_reader(d, BT_DIFF_B, r), BT_OK);
  e.type = BT_REC_THINK;
  CHECK_INT(bt_diff_entry(d, BT_DIFF_B, 1, NULL, def, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "side new.btlog is read from its reader");
  /* a damaged log on the reader's side: the error names the side */
  REQUIRE(bt_log_reader_feed(r, "not a log at all, sixteen+ bytes", 32) == BT_OK);
  CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, NULL, def, &e), BT_EFORMAT);
  CHECK(strncmp(bt_diff_errmsg(d), "new.btlog: ", 11) == 0);
  CHECK_INT(bt_diff_finish(d), BT_EFORMAT);
  CHECK_INT(bt_diff_entry(d, BT_DIFF_A, 1, NULL, def, &e), BT_EINVAL);
  CHECK_STR(bt_diff_errmsg(d), "the comparison is finished");
  bt_diff_row row;
  CHECK_INT(bt_diff_get(d, 5, &row), BT_EINVAL);
  bt_log_reader_free(r);
  bt_inst_free(in);
  bt_diff_free(d);
  bt_diff_free(NULL);
}

/* test_diff DIR: writes the sessions' logs into DIR for tests/tools/check_bt_log_diff.sh:
 * same.btlog (the reference session), again.btlog (the same again), hungry.btlog (agent 2's
 * change of test_first_difference), patched.btlog (test_patched_branch's patch, no change),
 * missing.btlog (test_missing's B). */
static int write_logs(const char *dir) {
  static const char *const NAMES[] = {"same", "again", "hungry", "patched", "missing"};
  for (int k = 0; k < 5; k++) {
    agent_cfg a[3];
    reference(a);
    if (k == 2) a[1].fail_from = 2.0;
    if (k == 3)
      for (int i = 0; i < 3; i++) a[i].patched = 1;
    if (k == 4) {
      a[0].until = 3.0;
      a[2] = (agent_cfg){.id = 4, .label = "fox 4", .fail_from = 99, .until = 99, .patched = 0, .error = NULL};
    }
    mem m = {0};
    run_session(a, 3, &m, NULL, 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.btlog", dir, NAMES[k]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(m.p, 1, m.len, f) != m.len || fclose(f) != 0) {
      fprintf(stderr, "test_diff: cannot write %s\n", path);
      return 1;
    }
    free(m.p);
  }
  return check_failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1) return write_logs(argv[1]);
  if (!recorder_built()) {
    printf("test_diff: the recorder is compiled out (BT_RECORDER=OFF): no session to compare\n");
    return 0;
  }
  test_same();
  test_first_difference();
  test_patched_branch();
  test_missing();
  test_live();
  test_ahead();
  test_errors();
  return check_report("test_diff");
}
