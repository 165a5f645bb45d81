/* SPDX-License-Identifier: MIT */
/* test_log.c: the log file (bt_log_*, bt_log_reader_*): a scripted run of several agents written
 * through their recorders and read back equals, record for record, what the recorders' callbacks
 * saw; shapes are written once per hash; a log cut at every byte reads to its last whole block and
 * says where; damaged and foreign bytes give an error, never a wrong record; the log's thread
 * writes the same bytes; a file read while it grows; DBStrings; shapes rebuilt as definitions; an
 * agent's tree replayed from its records equals the live one at every think (bt_log_tree), and
 * the one step of that replay (bt_rec_entry_apply). */
#include "sys.h" /* first: temporary files */

#include "harness.h"

/* (the bytes of a log, in memory: harness.h's mem and mem_write) */

/* ---- what the recorders' callbacks saw ---- */

typedef struct seen {
  unsigned long long agent;
  bt_rec_entry e;
  char text[96];
} seen;

#define MAX_SEEN 20000
static seen SEEN[MAX_SEEN];
static int nseen;

static void on_record(void *ud, const bt_rec_entry *e) {
  if (nseen >= MAX_SEEN) return;
  seen *s = &SEEN[nseen++];
  s->agent = bt_rec_agent(ud);
  s->e = *e;
  s->text[0] = 0;
  if (e->text) {
    size_t n = e->size < sizeof s->text ? e->size : sizeof s->text - 1;
    memcpy(s->text, e->text, n);
    s->e.size = n;
  }
  s->e.text = NULL;
}

/* A record read back, comparable with a seen one. */
typedef struct got {
  unsigned long long agent;
  int index;
  bt_log_record r;
  char text[96];
  char label[32];
} got;

static got GOT[MAX_SEEN];
static int ngot;

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_entry(const bt_rec_entry *a, const char *atext, const bt_rec_entry *b, const char *btext) {
  return a->type == b->type && a->from == b->from && a->to == b->to && a->node == b->node &&
         a->think == b->think && same_bits(a->time, b->time) && a->cause == b->cause &&
         a->has_sleep == b->has_sleep && (!a->has_sleep || same_bits(a->sleep, b->sleep)) &&
         a->def_from == b->def_from && a->def_to == b->def_to &&
         (!(a->type == BT_REC_ERROR || a->type == BT_REC_HOST) ||
          (a->size == b->size && memcmp(atext, btext, a->size) == 0));
}

/* Reads everything r gives into GOT (the records of the recorders' types and the world's);
 * returns bt_log_read's last result. */
static int read_all(bt_log_reader *r) {
  ngot = 0;
  bt_log_record rec;
  int rc;
  while ((rc = bt_log_read(r, &rec)) == 1) {
    if (rec.entry.type > BT_REC_HOST && rec.entry.type != BT_LOG_WORLD) continue;
    if (ngot >= MAX_SEEN) continue;
    got *g = &GOT[ngot++];
    g->agent = rec.agent;
    g->index = rec.agent_index;
    g->r = rec;
    g->text[0] = 0;
    snprintf(g->label, sizeof g->label, "%s", rec.label);
    if (rec.entry.text) {
      size_t n = rec.entry.size < sizeof g->text ? rec.entry.size : sizeof g->text - 1;
      memcpy(g->text, rec.entry.text, n);
      g->r.entry.size = n;
    }
    g->r.entry.text = NULL;
    g->r.label = NULL;
  }
  return rc;
}

/* Every agent's records read back equal those its callback saw, in order. */
static int equal_per_agent(unsigned long long agent) {
  int i = 0, j = 0, ok = 1;
  for (;;) {
    while (i < nseen && SEEN[i].agent != agent) i++;
    while (j < ngot && (GOT[j].agent != agent || GOT[j].r.entry.type == BT_LOG_WORLD)) j++;
    if (i == nseen || j == ngot) return ok && i == nseen && j == ngot;
    if (!same_entry(&SEEN[i].e, SEEN[i].text, &GOT[j].r.entry, GOT[j].text)) {
      fprintf(stderr, "agent %llu: record %d differs (type %d/%d node %d/%d think %llu/%llu)\n", agent, i,
              SEEN[i].e.type, GOT[j].r.entry.type, SEEN[i].e.node, GOT[j].r.entry.node, SEEN[i].e.think,
              GOT[j].r.entry.think);
      return 0;
    }
    i++;
    j++;
  }
}

/* ---- the scripted run ---- */

/* Agent A's tree: a Priority over a guarded flight, an event, a wait and two same-named looks. */
static leaf Scared = FN("Scared", 0), Run = LEAF("Run", BT_RUNNING), Cry = LEAF("Cry", BT_RUNNING),
            Look = LEAF("Look", BT_SUCCESS);

static bt_def *tree_a(void) {
  bt_graph *g = new_graph();
  int scared = add_fn(g, BT_CONDITION, &Scared, "Scared"), run = add_leaf(g, &Run);
  int flee = add_node(g, BT_SEQUENCE, "Flee", 0, 0);
  set_kids(g, flee, 2, scared, run);
  int cry = add_leaf(g, &Cry), hit = add_node(g, BT_EVENT, "Hit", 0, 0);
  set_kids(g, hit, 1, cry);
  int look1 = add_leaf(g, &Look), look2 = add_leaf(g, &Look), idle = add_node(g, BT_SEQUENCE, "Idle", 0, 0);
  set_kids(g, idle, 2, look1, look2);
  int wait = add_node(g, BT_WAIT, NULL, 0.75, 0);
  int loop = add_node(g, BT_SEQUENCE, "Loiter", 0, 0);
  set_kids(g, loop, 2, idle, wait);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, root, 3, flee, hit, loop);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, root) == BT_OK);
  bt_graph_free(g);
  return def;
}

/* Agent B's tree: a Sequence of a condition and a running behaviour. */
static bt_def *tree_b(void) {
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, &Scared, "Check"), r = add_leaf(g, &Run), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, r);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, s) == BT_OK);
  bt_graph_free(g);
  return def;
}

#define NAGENTS 5

typedef struct world {
  bt_def *a, *b, *a2; /* a2: A's tree edited (a reload) */
  bt_inst *in[NAGENTS];
  bt_rec *rec[NAGENTS];
} world;

/* A think as a scheduler makes it: the update, then the sleep time. */
static void think_at(bt_inst *in, double t) {
  think(in, t);
  double s;
  bt_inst_sleep_time(in, &s);
}

/* A recorder of no ring writing to log. */
static bt_rec *log_recorder(bt_log *log) {
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
  return rec;
}

/* An instance of S, a Sequence of the condition C and the behaviour B. */
static bt_inst *cond_then(leaf *C, leaf *B) {
  bt_graph *g = new_graph();
  int c = add_fn(g, BT_CONDITION, C, "C"), b = add_leaf(g, B), s = add_node(g, BT_SEQUENCE, "S", 0, 0);
  set_kids(g, s, 2, c, b);
  return build(g, s, 0);
}

/* Runs the scripted scenario into log (flushing each frame); every record also to on_record. */
static void run_world(bt_log *log, int frames) {
  world w;
  memset(&w, 0, sizeof w);
  w.a = tree_a();
  w.b = tree_b();
  nseen = 0;
  T = 0; /* the attach records' time */
  static const char *labels[NAGENTS] = {"sheep 1", "sheep 2", "wolf 3", "guard 4", "sheep 5"};
  for (int i = 0; i < NAGENTS; i++) {
    REQUIRE(bt_inst_create(&w.in[i], i == 3 ? w.b : w.a, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
    REQUIRE(bt_rec_create(&w.rec[i], 0) == BT_OK);
    bt_rec_set_callback(w.rec[i], on_record, w.rec[i]);
    REQUIRE(bt_rec_set_agent(w.rec[i], 100 + (unsigned long long)i, labels[i]) == BT_OK);
    REQUIRE(bt_rec_set_log(w.rec[i], log) == BT_OK);
    REQUIRE(bt_inst_set_recorder(w.in[i], w.rec[i]) == BT_OK);
    CHECK(bt_rec_log(w.rec[i]) == log);
  }
  for (int f = 1; f <= frames; f++) {
    double t = f / 30.0;
    Scared.result = (f / 7) % 2;
    Run.status = f % 11 == 0 ? BT_SUCCESS : BT_RUNNING;
    for (int i = 0; i < NAGENTS; i++) {
      if (!w.in[i] || (f + i) % (i + 1)) continue; /* agent i thinks every i+1 frames */
      if (i == 1 && f % 13 == 0) REQUIRE(bt_inst_fire_event(w.in[i], 4) == BT_OK); /* Hit */
      if (i == 2 && f % 17 == 0) bt_inst_force_update(w.in[i]);
      think_at(w.in[i], t);
    }
    if (f % 10 == 0 && w.in[0]) REQUIRE(bt_inst_record_host(w.in[0], 7, "xy\0z", 4) == BT_OK);
    if (f % 19 == 0) REQUIRE(bt_inst_record_error(w.in[2], 2, "attempt to index a nil value") == BT_OK);
    if (f % 15 == 0) REQUIRE(bt_log_write_host(log, t, 3, "world", 5) == BT_OK);
    if (f == frames / 2) { /* agent 4 reloads into an edited tree: its recorder goes with it */
      bt_graph *g = new_graph();
      int c = add_fn(g, BT_CONDITION, &Scared, "Scared"), r = add_leaf(g, &Run), x = add_leaf(g, &Look);
      int s = add_node(g, BT_SELECTOR, "Sel", 0, 0);
      set_kids(g, s, 3, c, x, r);
      REQUIRE(bt_def_create(&w.a2, g, s) == BT_OK);
      bt_graph_free(g);
      bt_inst *to = NULL;
      REQUIRE(bt_inst_create(&to, w.a2, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
      int map[16];
      REQUIRE(bt_def_match(bt_inst_def(w.in[4]), w.a2, map) >= 0);
      REQUIRE(bt_inst_set_recorder(w.in[4], NULL) == BT_OK);
      REQUIRE(bt_inst_set_recorder(to, w.rec[4]) == BT_OK);
      T = t;
      REQUIRE(bt_inst_transfer(to, w.in[4], map, NULL) == BT_OK);
      bt_inst_free(w.in[4]);
      w.in[4] = to;
    }
    if (f == frames - 3) { /* agent 0 goes: its last records are still written */
      bt_rec_free(w.rec[0]);
      bt_inst_free(w.in[0]);
      w.rec[0] = NULL;
      w.in[0] = NULL;
    }
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  for (int i = 0; i < NAGENTS; i++) {
    bt_rec_free(w.rec[i]);
    bt_inst_free(w.in[i]);
  }
  bt_def_release(w.a);
  bt_def_release(w.b);
  bt_def_release(w.a2);
}

/* A log of the scenario in memory. */
static mem write_log(unsigned flags, int frames) {
  mem m = {0};
  bt_log *log = NULL;
  char err[200];
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, flags, err, sizeof err) == BT_OK);
  run_world(log, frames);
  bt_log_stats st;
  bt_log_stats_get(log, &st);
  CHECK(st.records == (unsigned long long)nseen);
  CHECK_INT(st.lost, 0);
  REQUIRE(bt_log_free(log) == BT_OK);
  CHECK(st.bytes > 0 && st.bytes < m.len); /* the end came after */
  return m;
}

static bt_log_reader *reader_of(const unsigned char *p, size_t n) {
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK);
  REQUIRE(bt_log_reader_feed(r, p, n) == BT_OK);
  return r;
}

static void test_round_trip(void) {
  mem m = write_log(0, 120);
  bt_log_reader *r = reader_of(m.p, m.len);
  CHECK_INT(read_all(r), 0);
  if (bt_log_reader_errmsg(r)[0]) fprintf(stderr, "%s\n", bt_log_reader_errmsg(r));
  unsigned long long end = 0;
  CHECK_INT(bt_log_reader_where(r, &end), BT_LOG_ENDED);
  CHECK(end == m.len);
  CHECK(nseen > 500);
  for (int i = 0; i < NAGENTS; i++) CHECK(equal_per_agent(100 + (unsigned long long)i));
  /* every type made it, labels too, and the world's records */
  int types[32] = {0}, world = 0;
  for (int j = 0; j < ngot; j++) {
    types[GOT[j].r.entry.type]++;
    if (GOT[j].r.entry.type == BT_LOG_WORLD) {
      world++;
      CHECK_STR(GOT[j].text, "world");
      CHECK_INT(GOT[j].r.entry.node, 3);
      CHECK_INT(GOT[j].index, -1);
    } else if (GOT[j].agent == 102) {
      CHECK_STR(GOT[j].label, "wolf 3");
    }
  }
  for (int t = BT_REC_STATUS; t <= BT_REC_HOST; t++) CHECK(types[t] > 0);
  CHECK_INT(world, 8);
  /* the think causes the script made: each agent's first think, and the reloaded one's first
   * think after its reload */
  int causes[BT_WAKE_RELOAD + 1] = {0};
  for (int i = 0; i < nseen; i++)
    if (SEEN[i].e.type == BT_REC_THINK) {
      REQUIRE(SEEN[i].e.cause <= BT_WAKE_RELOAD);
      causes[SEEN[i].e.cause]++;
    }
  CHECK(causes[BT_WAKE_START] == NAGENTS && causes[BT_WAKE_EVENT] > 0 && causes[BT_WAKE_FORCE] > 0);
  CHECK_INT(causes[BT_WAKE_RELOAD], 1);
  bt_log_reader_free(r);
  free(m.p);
}

/* The same run on the log's thread writes the same bytes; and a run with DBStrings reads back the
 * same records. */
static void test_thread_writes_the_same(void) {
  mem a = write_log(0, 90), b = write_log(BT_LOG_THREAD, 90);
  CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
  mem c = write_log(BT_LOG_THREAD | BT_LOG_DBSTRINGS, 90);
  bt_log_reader *r = reader_of(c.p, c.len);
  CHECK_INT(read_all(r), 0);
  CHECK_INT(bt_log_reader_flags(r), BT_LOG_DBSTRINGS);
  for (int i = 0; i < NAGENTS; i++) CHECK(equal_per_agent(100 + (unsigned long long)i));
  bt_log_reader_free(r);
  free(a.p);
  free(b.p);
  free(c.p);
}

/* Walks the blocks of a log as docs/log-format.md describes them: counts those of each type, and
 * puts the end of each in ends. */
static int walk_blocks(const unsigned char *p, size_t n, int counts[8], size_t *ends, int max) {
  size_t at = 16;
  int k = 0;
  while (at < n) {
    int type = p[at++];
    unsigned long long size = 0;
    for (int shift = 0;; shift += 7) {
      unsigned b = p[at++];
      size |= (unsigned long long)(b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    at += size + 4;
    if (type < 8) counts[type]++;
    if (k < max) ends[k++] = at;
  }
  return k;
}

/* One SHAPE block per shape, however many agents use it. */
static void test_shapes_once(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  bt_def *a = tree_a(), *b = tree_b();
  enum { N = 60 };
  bt_inst *in[N];
  bt_rec *rec[N];
  for (int i = 0; i < N; i++) {
    REQUIRE(bt_inst_create(&in[i], i % 3 ? a : b, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
    REQUIRE(bt_rec_create(&rec[i], 0) == BT_OK);
    REQUIRE(bt_rec_set_agent(rec[i], (unsigned long long)i, NULL) == BT_OK);
    REQUIRE(bt_rec_set_log(rec[i], log) == BT_OK);
    REQUIRE(bt_inst_set_recorder(in[i], rec[i]) == BT_OK);
  }
  for (int f = 1; f < 5; f++) {
    for (int i = 0; i < N; i++) think_at(in[i], f);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  bt_log_stats st;
  bt_log_stats_get(log, &st);
  CHECK_INT(st.shapes, 2);
  CHECK_INT(st.agents, N);
  for (int i = 0; i < N; i++) {
    bt_rec_free(rec[i]);
    bt_inst_free(in[i]);
  }
  REQUIRE(bt_log_free(log) == BT_OK);
  int counts[8] = {0};
  size_t ends[1];
  walk_blocks(m.p, m.len, counts, ends, 0);
  CHECK_INT(counts[1], 2);      /* SHAPE */
  CHECK_INT(counts[2], N);      /* AGENT */
  CHECK_INT(counts[3], 4);      /* FRAME: one a flush */
  CHECK_INT(counts[5], 1);      /* END */
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record rec1;
  int shapes_seen = 0;
  while (bt_log_read(r, &rec1) == 1)
    if (rec1.entry.type == BT_LOG_ATTACH) {
      shapes_seen++;
      CHECK(rec1.shape != NULL);
      CHECK(bt_log_shape_hash(rec1.shape) == bt_def_hash(rec1.agent % 3 ? a : b));
    }
  CHECK_INT(shapes_seen, N);
  CHECK(bt_log_reader_shape(r, bt_def_hash(a)) != NULL && bt_log_reader_shape(r, bt_def_hash(b)) != NULL);
  bt_log_reader_free(r);
  bt_def_release(a);
  bt_def_release(b);
  free(m.p);
}

/* A log cut at every byte reads exactly the records of the whole blocks before the cut, and says
 * it stopped at the end of the last of them. */
static void test_cut_everywhere(void) {
  mem m = write_log(BT_LOG_DBSTRINGS, 40);
  bt_log_reader *r = reader_of(m.p, m.len);
  CHECK_INT(read_all(r), 0);
  bt_log_reader_free(r);
  int total = ngot;
  /* the records of each block: how many records end before each block's end */
  size_t ends[4096];
  int counts[8] = {0};
  int nblocks = walk_blocks(m.p, m.len, counts, ends, 4096);
  REQUIRE(nblocks < 4096);
  static got all[MAX_SEEN];
  memcpy(all, GOT, sizeof(got) * (size_t)total);
  int bad = 0;
  for (size_t cut = 0; cut <= m.len && bad < 5; cut++) {
    r = reader_of(m.p, cut);
    int rc = read_all(r);
    unsigned long long stop = 0;
    int where = bt_log_reader_where(r, &stop);
    size_t whole = cut < 16 ? 0 : 16;
    for (int k = 0; k < nblocks && ends[k] <= cut; k++) whole = ends[k];
    int ok = rc == 0 && stop == whole && ngot <= total &&
             where == (cut == m.len ? BT_LOG_ENDED : cut == whole && cut >= 16 ? BT_LOG_WHOLE : BT_LOG_CUT);
    for (int j = 0; ok && j < ngot; j++)
      ok = all[j].agent == GOT[j].agent && same_entry(&all[j].r.entry, all[j].text, &GOT[j].r.entry, GOT[j].text);
    if (!ok) {
      fprintf(stderr, "cut at %zu: rc %d where %d stop %llu (whole %zu), %d records\n", cut, rc, where, stop,
              whole, ngot);
      bad++;
    }
    /* the rest fed later: it reads on to the end, the same records */
    int before = ngot;
    REQUIRE(bt_log_reader_feed(r, m.p + cut, m.len - cut) == BT_OK);
    read_all(r);
    if (before + ngot != total || bt_log_reader_where(r, NULL) != BT_LOG_ENDED) {
      fprintf(stderr, "cut at %zu, then fed: %d + %d records of %d\n", cut, before, ngot, total);
      bad++;
    }
    bt_log_reader_free(r);
  }
  CHECK_INT(bad, 0);
  free(m.p);
}

/* Any byte damaged, any bit: an error (or a cut, when a size grew past the end), and never a
 * record that was not written. */
static void test_damaged_bytes(void) {
  mem m = write_log(BT_LOG_DBSTRINGS, 30);
  bt_log_reader *r = reader_of(m.p, m.len);
  read_all(r);
  bt_log_reader_free(r);
  int total = ngot;
  static got all[MAX_SEEN];
  memcpy(all, GOT, sizeof(got) * (size_t)total);
  unsigned char *copy = malloc(m.len);
  int bad = 0, errors = 0;
  for (size_t at = 0; at < m.len && bad < 5; at++) {
    for (int bit = 0; bit < 8; bit += (at < 64 ? 1 : 3)) {
      memcpy(copy, m.p, m.len);
      copy[at] ^= (unsigned char)(1 << bit);
      r = reader_of(copy, m.len);
      int rc = read_all(r), where = bt_log_reader_where(r, NULL);
      int ok = (rc == BT_ECORRUPT || rc == BT_EFORMAT) ? where == BT_LOG_FAILED : rc == 0 && where == BT_LOG_CUT;
      ok = ok && ngot <= total;
      if (rc < 0) {
        errors++;
        ok = ok && (strstr(bt_log_reader_errmsg(r), "corrupt at byte") || strstr(bt_log_reader_errmsg(r), "bt log"));
        CHECK_INT(bt_log_read(r, &GOT[0].r), rc); /* it stays */
      }
      for (int j = 0; ok && j < ngot; j++)
        ok = all[j].agent == GOT[j].agent && same_entry(&all[j].r.entry, all[j].text, &GOT[j].r.entry, GOT[j].text);
      if (!ok) {
        fprintf(stderr, "byte %zu bit %d: rc %d where %d, %d records: %s\n", at, bit, rc, where, ngot,
                bt_log_reader_errmsg(r));
        bad++;
      }
      bt_log_reader_free(r);
    }
  }
  CHECK_INT(bad, 0);
  CHECK(errors > 0);
  free(copy);
  free(m.p);
}

/* Bytes that are no log, a newer format version, an empty file (a log being created). */
static void test_foreign(void) {
  bt_log_reader *r = reader_of((const unsigned char *)"hello, world\n", 13);
  bt_log_record rec;
  CHECK_INT(bt_log_read(r, &rec), BT_EFORMAT);
  CHECK(strstr(bt_log_reader_errmsg(r), "not a bt log") != NULL);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_FAILED);
  bt_log_reader_free(r);
  unsigned char v2[16] = {0x89, 'B', 'T', 'L', 'O', 'G', '\r', '\n', 2, 0, 0, 0, 0, 0, 0, 0};
  r = reader_of(v2, sizeof v2);
  CHECK_INT(bt_log_read(r, &rec), BT_EFORMAT);
  CHECK(strstr(bt_log_reader_errmsg(r), "version 2") != NULL);
  bt_log_reader_free(r);
  r = reader_of(v2, 5); /* the start of a header: being written */
  CHECK_INT(bt_log_read(r, &rec), 0);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_CUT);
  bt_log_reader_free(r);
  /* files */
  char path[SYS_PATH_MAX];
  REQUIRE(sys_temp_file(path, sizeof path, "test_log_"));
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL);
  if (!f) return;
  fputs("#!/bin/sh\necho not a log\n", f);
  fclose(f);
  char err[256];
  CHECK_INT(bt_log_reader_create_file(&r, path, err, sizeof err), BT_EFORMAT);
  CHECK(r == NULL && strstr(err, "not a bt log") && strstr(err, path));
  f = fopen(path, "wb");
  fclose(f);
  CHECK_INT(bt_log_reader_create_file(&r, path, err, sizeof err), BT_OK); /* empty: a log being created */
  CHECK_INT(bt_log_read(r, &rec), 0);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_CUT);
  bt_log_reader_free(r);
  remove(path);
  CHECK_INT(bt_log_reader_create_file(&r, "/nonexistent/dir/x.btlog", err, sizeof err), BT_EIO);
  CHECK(strstr(err, "cannot open /nonexistent/dir/x.btlog") != NULL);
  bt_log *log = NULL;
  CHECK_INT(bt_log_create(&log, "/nonexistent/dir/x.btlog", 0, err, sizeof err), BT_EIO);
  CHECK(log == NULL && strstr(err, "cannot create") != NULL);
  CHECK_INT(bt_log_create(&log, "/tmp/x", 0x100, err, sizeof err), BT_EINVAL);
  CHECK_INT(bt_log_create(NULL, "/tmp/x", 0, err, sizeof err), BT_EINVAL);
  CHECK_INT(bt_log_create_fn(&log, NULL, NULL, 0, err, sizeof err), BT_EINVAL);
  CHECK_STR(bt_strerror(BT_ECORRUPT), "damaged log");
}

/* A failing write stops the log: the flush says so, and so does every later one and the close. */
static void test_write_fails(void) {
  for (int threaded = 0; threaded < 2; threaded++) {
    mem m = {0};
    bt_log *log = NULL;
    REQUIRE(bt_log_create_fn(&log, mem_write, &m, threaded ? BT_LOG_THREAD : 0, NULL, 0) == BT_OK);
    leaf A = LEAF("A", BT_RUNNING);
    bt_graph *g = new_graph();
    bt_inst *in = build(g, add_leaf(g, &A), 0);
    bt_rec *rec = NULL;
    REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
    REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
    REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
    think_at(in, 1);
    REQUIRE(bt_log_flush(log) == BT_OK);
    REQUIRE(bt_log_flush(log) == BT_OK); /* waits for the thread to write the first */
    m.fail = 1;
    think_at(in, 2);
    int rc = bt_log_flush(log);
    if (threaded) { /* the thread's error shows at the next flush */
      CHECK_INT(rc, BT_OK);
      think_at(in, 3);
      rc = bt_log_flush(log);
    }
    CHECK_INT(rc, BT_EIO);
    CHECK(strstr(bt_log_errmsg(log), "cannot write the log") != NULL);
    think_at(in, 4);
    CHECK_INT(bt_log_flush(log), BT_EIO);
    bt_rec_free(rec);
    bt_inst_free(in);
    CHECK_INT(bt_log_free(log), BT_EIO);
    free(m.p);
  }
}

/* A file read while it is written: each flush's records are there after it. */
static void test_file_grows(void) {
  char path[SYS_PATH_MAX];
  REQUIRE(sys_temp_file(path, sizeof path, "test_log_"));
  bt_log *log = NULL;
  char err[256];
  REQUIRE(bt_log_create(&log, path, 0, err, sizeof err) == BT_OK);
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create_file(&r, path, err, sizeof err) == BT_OK);
  leaf A = LEAF("A", BT_RUNNING);
  A.sleep = 0.5;
  bt_graph *g = new_graph();
  bt_inst *in = build(g, add_leaf(g, &A), 0);
  bt_rec *rec = log_recorder(log);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  bt_log_record x;
  int thinks = 0;
  for (int f = 1; f <= 20; f++) {
    A.status = f % 4 ? BT_RUNNING : BT_SUCCESS;
    think_at(in, f * 0.1);
    REQUIRE(bt_log_flush(log) == BT_OK);
    int n = 0;
    while (bt_log_read(r, &x) == 1)
      if (x.entry.type == BT_REC_THINK) {
        n++;
        CHECK_INT((int)x.entry.think, f);
        CHECK(x.entry.time == f * 0.1);
      }
    CHECK_INT(n, 1);
    thinks += n;
    CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_WHOLE);
  }
  bt_rec_free(rec);
  bt_inst_free(in);
  REQUIRE(bt_log_free(log) == BT_OK);
  while (bt_log_read(r, &x) == 1) {
  }
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
  CHECK_INT(thinks, 20);
  bt_log_reader_free(r);
  remove(path);
}

/* With BT_LOG_DBSTRINGS each think keeps its running nodes' DBStrings and sleep times: those the
 * instance gives after it. */
static void test_dbstrings(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, BT_LOG_DBSTRINGS, NULL, 0) == BT_OK);
  bt_graph *g = new_graph();
  int w = add_node(g, BT_WAIT, NULL, 2, 0), s = add_node(g, BT_SEQUENCE, "Seq", 0, 0);
  set_kids(g, s, 1, w);
  int p = add_prio(g, "P", 0.25);
  set_kids(g, p, 1, s);
  bt_inst *in = build(g, p, 0);
  bt_rec *rec = log_recorder(log);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  char expect[3][128];
  double sleeps[3];
  think_at(in, 1);
  for (int n = 0; n < 3; n++) {
    bt_buf b = {0};
    bt_node_describe(in, n, &b);
    snprintf(expect[n], sizeof expect[n], "%s", b.data ? b.data : "");
    bt_buf_free(&b);
    REQUIRE(bt_node_tree_sleep_time(in, n, &sleeps[n]) == 1);
  }
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  int found = 0, saved = 0;
  while (bt_log_read(r, &x) == 1) {
    if (x.entry.type == BT_LOG_SAVED) saved++;
    if (x.entry.type != BT_LOG_DESCRIBE) continue;
    found++;
    CHECK_INT((int)x.entry.size, 3);
    CHECK_NUM(x.entry.time, 1);
    for (size_t i = 0; i < x.entry.size; i++) {
      int node, has;
      double sl;
      const char *text;
      size_t len;
      REQUIRE(bt_log_reader_describe(r, i, &node, &has, &sl, &text, &len) == BT_OK);
      CHECK_INT(node, (int)i);
      CHECK(has && sl == sleeps[i]);
      CHECK(len == strlen(expect[i]) && memcmp(text, expect[i], len) == 0);
    }
    CHECK_INT(bt_log_reader_describe(r, 3, NULL, NULL, NULL, NULL, NULL), BT_EINVAL);
  }
  CHECK_INT(found, 1);
  CHECK_INT(saved, 1);
  CHECK_STR(expect[0], "execute 1, eval in 0.25");
  CHECK_STR(expect[2], "2.00");
  bt_log_reader_free(r);
  free(m.p);
}

/* A recorder attached to an instance that already ran: the attach record gives its statuses. */
static void test_attach_midway(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_inst *in = cond_then(&C, &B);
  think_at(in, 1); /* S and B run; C's last result SUCCESS */
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK); /* after attaching: the log is told at once */
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  REQUIRE(bt_log_read(r, &x) == 1);
  CHECK_INT(x.entry.type, BT_LOG_ATTACH);
  CHECK_INT((int)x.entry.size, 3);
  const char *want[] = {"0 RUNNING RUNNING", "1 READY SUCCESS", "2 RUNNING RUNNING"};
  for (size_t i = 0; i < 3 && i < x.entry.size; i++) {
    int node, st, last;
    REQUIRE(bt_log_reader_state(r, i, &node, &st, &last) == BT_OK);
    char got1[64];
    snprintf(got1, sizeof got1, "%d %s %s", node, bt_status_name(st), bt_status_name(last));
    CHECK_STR(got1, want[i]);
  }
  CHECK_INT(bt_log_reader_state(r, 3, NULL, NULL, NULL), BT_EINVAL);
  bt_log_reader_free(r);
  free(m.p);
}

/* An error record read back ends its text with a 0, as bt.h says of BT_REC_ERROR (in the log,
 * the message is followed by the next record's bytes); an empty message reads as "". */
static void test_error_text_ends_with_0(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  bt_inst *in = cond_then(&C, &B);
  bt_rec *rec = log_recorder(log);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  think_at(in, 1);
  REQUIRE(bt_inst_record_error(in, 2, "behaviours/run.lua:12: oops") == BT_OK);
  REQUIRE(bt_inst_record_error(in, -1, "") == BT_OK);
  REQUIRE(bt_inst_record_host(in, 7, "xyz", 3) == BT_OK);
  think_at(in, 2);
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  int errors = 0;
  while (bt_log_read(r, &x) == 1) {
    if (x.entry.type != BT_REC_ERROR) continue;
    errors++;
    REQUIRE(x.entry.text != NULL);
    CHECK_INT(x.entry.text[x.entry.size], 0);
    CHECK_INT((int)strlen(x.entry.text), (int)x.entry.size);
    CHECK_STR(x.entry.text, errors == 1 ? "behaviours/run.lua:12: oops" : "");
  }
  CHECK_INT(errors, 2);
  CHECK_STR(bt_log_reader_errmsg(r), "");
  bt_log_reader_free(r);
  free(m.p);
}

/* A stop of the tree (bt_inst_stop) is in the log; bt_log_tree_stopped says the agent is gone
 * from it until the agent thinks after the think of the stop, or is attached to a tree again. A
 * stop from inside a think (an action stopping its own brain) is followed by that think's own
 * record, which does not bring the agent back. */
static int stop_inside;
static void stop_hook(bt_call *c, leaf *l) {
  (void)l;
  if (stop_inside) bt_inst_stop(c->inst);
}

static int stopped_at(const mem *m, double at, unsigned long long *think, double *time, int *stops) {
  bt_log_reader *r = reader_of(m->p, m->len);
  bt_log_tree *t = NULL;
  REQUIRE(bt_log_tree_create(&t) == BT_OK);
  bt_log_record x;
  *stops = 0;
  while (bt_log_read(r, &x) == 1 && x.entry.time <= at) {
    if (x.entry.type == BT_LOG_STOP) (*stops)++;
    REQUIRE(bt_log_tree_apply(t, r, &x) == BT_OK);
  }
  *think = 0;
  *time = -1;
  int gone = bt_log_tree_stopped(t, think, time);
  bt_log_tree_free(t);
  bt_log_reader_free(r);
  return gone;
}

static void test_stop_marks_the_agent_gone(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  leaf C = FN("C", 1), B = LEAF("B", BT_RUNNING);
  B.hook = stop_hook;
  stop_inside = 0;
  bt_inst *in = cond_then(&C, &B);
  bt_rec *rec = log_recorder(log);
  T = 0.5;
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  think_at(in, 1);
  T = 1.5;
  bt_inst_stop(in); /* outside a think: a brain's Stop */
  think_at(in, 2);  /* the same tree thinks again: the agent is back */
  stop_inside = 1;
  think_at(in, 3);  /* B stops its own tree; the think goes on */
  stop_inside = 0;
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_inst *again = cond_then(&C, &B); /* a restart: a new tree, the same recorder */
  T = 4;
  REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK);
  REQUIRE(bt_inst_set_recorder(again, rec) == BT_OK);
  think_at(again, 5);
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  bt_inst_free(again);
  REQUIRE(bt_log_free(log) == BT_OK);
  unsigned long long think;
  double time;
  int stops;
  CHECK_INT(stopped_at(&m, 1.2, &think, &time, &stops), 0);
  CHECK_INT(stops, 0);
  CHECK_INT(stopped_at(&m, 1.6, &think, &time, &stops), 1);
  CHECK_INT(stops, 1);
  CHECK_INT((int)think, 1);
  CHECK_NUM(time, 1.5);
  CHECK_INT(stopped_at(&m, 2.5, &think, &time, &stops), 0);
  CHECK_INT(stopped_at(&m, 3.5, &think, &time, &stops), 1);
  CHECK_INT(stops, 2);
  CHECK_INT((int)think, 3);
  CHECK_NUM(time, 3);
  CHECK_INT(stopped_at(&m, 4.5, &think, &time, &stops), 0);
  CHECK_INT(stopped_at(&m, 9, &think, &time, &stops), 0);
  CHECK_INT(bt_log_tree_stopped(NULL, NULL, NULL), 0);
  free(m.p);
}

/* Paths name one node each, as the Lua binding's do; a shape rebuilt as a definition draws the
 * same picture as the definition it came from. */
static void test_shape_paths_and_def(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  bt_def *a = tree_a();
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, a, &HOST, NULL, 0) == BT_OK);
  bt_rec *rec = log_recorder(log);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  REQUIRE(bt_log_flush(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  while (bt_log_read(r, &x) == 1) {
  }
  const bt_log_shape *s = bt_log_reader_shape(r, bt_def_hash(a));
  REQUIRE(s != NULL);
  CHECK_INT(bt_log_shape_size(s), bt_def_size(a));
  const char *paths[] = {"Root", "Root/Flee", "Root/Flee/Scared", "Root/Flee/Run", "Root/Hit", "Root/Hit/Cry",
                         "Root/Loiter", "Root/Loiter/Idle", "Root/Loiter/Idle/Look#1", "Root/Loiter/Idle/Look#2",
                         "Root/Loiter/Wait"};
  for (int n = 0; n < bt_log_shape_size(s); n++) {
    bt_buf b = {0};
    REQUIRE(bt_log_shape_path(s, n, &b) == BT_OK);
    CHECK_STR(b.data, paths[n]);
    bt_buf_free(&b);
    CHECK_INT(bt_log_shape_find(s, paths[n]), n);
    CHECK_INT(bt_log_shape_kind(s, n), bt_def_kind(a, n));
    CHECK_STR(bt_log_shape_kind_name(s, n), bt_kind_name(bt_def_kind(a, n)));
    CHECK_INT(bt_log_shape_up(s, n), bt_def_up(a, n));
    CHECK_INT(bt_log_shape_child_count(s, n), bt_def_child_count(a, n));
  }
  CHECK_INT(bt_log_shape_find(s, "Root/Nobody"), -1);
  CHECK_INT(bt_log_shape_find(s, "Root/Loiter/Idle/Look"), -1);
  double period = 0;
  CHECK_INT(bt_log_shape_param(s, 0, &period), 1);
  CHECK_NUM(period, 0.5);
  CHECK_INT(bt_log_shape_param(s, 10, &period), 1);
  CHECK_NUM(period, 0.75);
  CHECK_INT(bt_log_shape_param(s, 1, &period), 0);
  CHECK_INT(bt_log_shape_child(s, 0, 2), 6);
  CHECK_INT(bt_log_shape_child(s, 0, 3), -1);
  bt_def *rebuilt = NULL;
  REQUIRE(bt_log_shape_def(s, &rebuilt) == BT_OK);
  bt_buf d1 = {0}, d2 = {0};
  REQUIRE(bt_def_dot(a, &d1) == BT_OK && bt_def_dot(rebuilt, &d2) == BT_OK);
  CHECK_STR(d2.data, d1.data);
  bt_buf_free(&d1);
  bt_buf_free(&d2);
  bt_def_release(rebuilt);
  bt_def_release(a);
  bt_log_reader_free(r);
  free(m.p);
}

/* Many agents with many records in one frame: the frame is written as several blocks (agents'
 * numbers counted again from each block's start), read back the same. */
static void test_big_frame(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  leaf A = LEAF("A", BT_RUNNING);
  enum { N = 4 };
  bt_inst *in[N];
  bt_rec *rec[N];
  for (int i = 0; i < N; i++) {
    bt_graph *g = new_graph();
    in[i] = build(g, add_leaf(g, &A), 0);
    REQUIRE(bt_rec_create(&rec[i], 0) == BT_OK);
    REQUIRE(bt_rec_set_agent(rec[i], 50 + (unsigned long long)i, NULL) == BT_OK);
    REQUIRE(bt_rec_set_log(rec[i], log) == BT_OK);
    REQUIRE(bt_inst_set_recorder(in[i], rec[i]) == BT_OK);
  }
  static char big[300000];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (char)(i * 7);
  for (int k = 0; k < 8; k++) REQUIRE(bt_inst_record_host(in[0], k, big, sizeof big) == BT_OK);
  for (int i = 1; i < N; i++) {
    REQUIRE(bt_inst_record_host(in[i], 100 + i, big, sizeof big / 2) == BT_OK);
    think_at(in[i], 1);
  }
  REQUIRE(bt_log_flush(log) == BT_OK);
  for (int i = 0; i < N; i++) {
    bt_rec_free(rec[i]);
    bt_inst_free(in[i]);
  }
  REQUIRE(bt_log_free(log) == BT_OK);
  int counts[8] = {0};
  size_t ends[1];
  walk_blocks(m.p, m.len, counts, ends, 0);
  CHECK(counts[3] >= 3);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  int n = 0, others = 0, thinks = 0;
  while (bt_log_read(r, &x) == 1) {
    if (x.entry.type == BT_REC_THINK) {
      CHECK(x.agent >= 51 && x.agent < 50 + N);
      thinks++;
    }
    if (x.entry.type != BT_REC_HOST) continue;
    if (x.agent == 50) {
      CHECK_INT(x.entry.node, n);
      CHECK(x.entry.size == sizeof big && memcmp(x.entry.text, big, sizeof big) == 0);
      n++;
    } else {
      CHECK_INT(x.entry.node, 100 + (int)(x.agent - 50));
      CHECK(x.entry.size == sizeof big / 2 && memcmp(x.entry.text, big, sizeof big / 2) == 0);
      others++;
    }
  }
  CHECK_INT(n, 8);
  CHECK_INT(others, N - 1);
  CHECK_INT(thinks, N - 1);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
  bt_log_reader_free(r);
  free(m.p);
}

/* A recorder moved to another log, and a log closed with recorders still on it. */
static void test_recorder_moves(void) {
  mem m1 = {0}, m2 = {0};
  bt_log *l1 = NULL, *l2 = NULL;
  REQUIRE(bt_log_create_fn(&l1, mem_write, &m1, 0, NULL, 0) == BT_OK);
  REQUIRE(bt_log_create_fn(&l2, mem_write, &m2, 0, NULL, 0) == BT_OK);
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *in = build(g, add_leaf(g, &A), 0);
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_rec_set_log(rec, l1) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  think_at(in, 1);
  REQUIRE(bt_rec_set_log(rec, l2) == BT_OK); /* think 1 is still written to l1 */
  think_at(in, 2);
  REQUIRE(bt_log_flush(l1) == BT_OK);
  REQUIRE(bt_log_flush(l2) == BT_OK);
  REQUIRE(bt_log_free(l2) == BT_OK); /* the recorder still on it is detached */
  CHECK(bt_rec_log(rec) == NULL);
  think_at(in, 3);
  REQUIRE(bt_log_free(l1) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  int thinks[2] = {0};
  mem *ms[2] = {&m1, &m2};
  for (int i = 0; i < 2; i++) {
    bt_log_reader *r = reader_of(ms[i]->p, ms[i]->len);
    bt_log_record x;
    while (bt_log_read(r, &x) == 1)
      if (x.entry.type == BT_REC_THINK) thinks[i] += (int)x.entry.think;
    CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
    bt_log_reader_free(r);
  }
  CHECK_INT(thinks[0], 1);
  CHECK_INT(thinks[1], 2);
  free(m1.p);
  free(m2.p);
}

/* An agent renamed while its recorder writes to a log: the records after the rename carry the
 * new id and label, those before the old ones, and one agent number throughout; a rename to the
 * same id and label changes nothing. */
static void test_agent_renamed(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  leaf A = LEAF("A", BT_RUNNING);
  bt_graph *g = new_graph();
  bt_inst *in = build(g, add_leaf(g, &A), 0);
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK);
  REQUIRE(bt_rec_set_agent(rec, 3, "lamb 3") == BT_OK);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  think_at(in, 1);
  REQUIRE(bt_log_flush(log) == BT_OK);
  think_at(in, 2);
  REQUIRE(bt_log_flush(log) == BT_OK);
  REQUIRE(bt_rec_set_agent(rec, 4, "sheep 4") == BT_OK); /* the lamb grew up */
  think_at(in, 3);
  REQUIRE(bt_log_flush(log) == BT_OK);
  REQUIRE(bt_rec_set_agent(rec, 4, "sheep 4") == BT_OK);
  think_at(in, 4);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_rec_free(rec);
  bt_inst_free(in);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  int thinks = 0;
  while (bt_log_read(r, &x) == 1) {
    if (x.entry.type != BT_REC_THINK) continue;
    thinks++;
    CHECK_INT(x.agent_index, 0);
    CHECK_INT((int)x.agent, x.entry.think <= 2 ? 3 : 4);
    CHECK_STR(x.label, x.entry.think <= 2 ? "lamb 3" : "sheep 4");
  }
  CHECK_INT(thinks, 4);
  bt_log_reader_free(r);
  free(m.p);
}

/* Recording switched on for a definition with a log: every instance made of it writes there. */
static void test_recording_by_definition(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  bt_def *a = tree_a();
  bt_rec_options o = {0, NULL, NULL, log};
  REQUIRE(bt_def_set_recording(a, &o) == BT_OK);
  bt_inst *in[3];
  for (int i = 0; i < 3; i++) {
    REQUIRE(bt_inst_create(&in[i], a, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
    REQUIRE(bt_rec_set_agent(bt_inst_recorder(in[i]), 7 + (unsigned long long)i, "made") == BT_OK);
    CHECK(bt_rec_log(bt_inst_recorder(in[i])) == log);
  }
  for (int i = 0; i < 3; i++) think_at(in[i], 1);
  REQUIRE(bt_log_flush(log) == BT_OK);
  for (int i = 0; i < 3; i++) bt_inst_free(in[i]); /* frees their recorders */
  REQUIRE(bt_def_set_recording(a, NULL) == BT_OK);
  bt_def_release(a);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_record x;
  int thinks = 0;
  while (bt_log_read(r, &x) == 1)
    if (x.entry.type == BT_REC_THINK) {
      CHECK(x.agent >= 7 && x.agent <= 9);
      CHECK_STR(x.label, "made");
      thinks++;
    }
  CHECK_INT(thinks, 3);
  bt_log_reader_free(r);
  free(m.p);
}

/* ---- an agent's tree from its records (bt_log_tree) ---- */

/* What the live instance showed after one think: its statuses, last results and running nodes'
 * DBStrings, to compare with the tree replayed from the log at that think's record. */
#define TREE_THINKS 200
#define TREE_NODES 16
typedef struct tree_seen {
  int size;
  unsigned char status[TREE_NODES], last[TREE_NODES];
  char desc[TREE_NODES][48];
  double sleep[TREE_NODES];
} tree_seen;
static tree_seen TREES[TREE_THINKS + 1]; /* by think number */

static void note_tree(bt_inst *in, unsigned long long think) {
  if (think > TREE_THINKS) return;
  tree_seen *t = &TREES[think];
  t->size = bt_def_size(bt_inst_def(in));
  for (int n = 0; n < t->size && n < TREE_NODES; n++) {
    t->status[n] = (unsigned char)bt_node_status(in, n);
    t->last[n] = (unsigned char)bt_node_last(in, n);
    t->desc[n][0] = 0;
    t->sleep[n] = 0;
    if (t->status[n] != BT_RUNNING) continue;
    bt_buf b = {0};
    bt_node_describe(in, n, &b);
    snprintf(t->desc[n], sizeof t->desc[n], "%s", b.data ? b.data : "");
    bt_buf_free(&b);
    bt_node_tree_sleep_time(in, n, &t->sleep[n]);
  }
}

/* An agent that thinks with its conditions changing, hears events and a ForceUpdate, had run
 * before its recorder came, and reloads into another tree halfway: the tree replayed from its
 * records equals, at every think, what the live instance showed, DBStrings too; records of
 * another agent and of the world are not its own and change nothing. */
static void test_tree_replayed(void) {
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, BT_LOG_DBSTRINGS, NULL, 0) == BT_OK);
  bt_def *a = tree_a(), *b = tree_b();
  bt_inst *in = NULL, *other = NULL;
  REQUIRE(bt_inst_create(&in, a, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  REQUIRE(bt_inst_create(&other, b, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  Scared.result = 1;
  Run.status = BT_RUNNING;
  think_at(in, 0.1); /* before the recorder: the attach record carries it */
  bt_rec *rec = NULL, *orec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK && bt_rec_create(&orec, 0) == BT_OK);
  REQUIRE(bt_rec_set_agent(rec, 7, "sheep 7") == BT_OK && bt_rec_set_agent(orec, 8, "wolf 8") == BT_OK);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK && bt_rec_set_log(orec, log) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK && bt_inst_set_recorder(other, orec) == BT_OK);
  memset(TREES, 0, sizeof TREES);
  unsigned long long thinks = 0;
  for (int f = 1; f <= 150; f++) {
    double t = 0.1 + f / 30.0;
    Scared.result = (f / 9) % 2;
    Run.status = f % 13 == 0 ? BT_SUCCESS : BT_RUNNING;
    if (f % 11 == 0 && f < 75) REQUIRE(bt_inst_fire_event(in, 4) == BT_OK); /* Hit */
    if (f % 17 == 0) bt_inst_force_update(in);
    if (f == 75) { /* the reload: into tree B's shape, carried over by path where it can */
      bt_inst *to = NULL;
      REQUIRE(bt_inst_create(&to, b, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
      int map[16];
      REQUIRE(bt_def_match(a, b, map) >= 0);
      REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK);
      REQUIRE(bt_inst_set_recorder(to, rec) == BT_OK);
      T = t;
      REQUIRE(bt_inst_transfer(to, in, map, NULL) == BT_OK);
      bt_inst_free(in);
      in = to;
    }
    if (f % 2) {
      think_at(in, t);
      thinks = bt_rec_total(rec) ? thinks + 1 : thinks;
      note_tree(in, thinks);
    }
    think_at(other, t);
    if (f % 5 == 0) REQUIRE(bt_log_write_host(log, t, 1, "frame", 5) == BT_OK);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  bt_rec_free(rec);
  bt_rec_free(orec);
  bt_inst_free(in);
  bt_inst_free(other);
  REQUIRE(bt_log_free(log) == BT_OK);

  bt_log_reader *r = reader_of(m.p, m.len);
  bt_log_tree *tree = NULL;
  REQUIRE(bt_log_tree_create(&tree) == BT_OK);
  CHECK(bt_log_tree_shape(tree) == NULL);
  CHECK_INT(bt_log_tree_status(tree, 0), -1);
  CHECK_INT(bt_log_tree_think(tree, NULL, NULL), 0);
  bt_log_record x;
  int compared = 0, attaches = 0, bad = 0;
  while (bt_log_read(r, &x) == 1) {
    if (x.agent_index < 0 || x.agent != 7) continue;
    REQUIRE(bt_log_tree_apply(tree, r, &x) == BT_OK);
    if (x.entry.type == BT_LOG_ATTACH) {
      attaches++;
      CHECK(bt_log_tree_shape(tree) == x.shape);
      if (attaches == 1) /* the think before the recorder: Root, Flee and its Run run */
        CHECK(bt_log_tree_status(tree, 0) == BT_RUNNING && bt_log_tree_status(tree, 1) == BT_RUNNING &&
              bt_log_tree_status(tree, 3) == BT_RUNNING && bt_log_tree_last(tree, 3) == BT_RUNNING);
    }
    if (x.entry.type != BT_REC_THINK || x.entry.think > TREE_THINKS) continue;
    unsigned long long think = 0;
    double when = 0;
    CHECK_INT(bt_log_tree_think(tree, &think, &when), 1);
    CHECK(think == x.entry.think && same_bits(when, x.entry.time));
    const tree_seen *seen_then = &TREES[x.entry.think];
    const bt_log_shape *s = bt_log_tree_shape(tree);
    CHECK_INT(bt_log_shape_size(s), seen_then->size);
    for (int n = 0; n < seen_then->size && n < TREE_NODES; n++) {
      int has = 0, described;
      double sl = 0;
      const char *text = NULL;
      size_t len = 0;
      described = bt_log_tree_describe(tree, n, &has, &sl, &text, &len);
      int running = seen_then->status[n] == BT_RUNNING;
      if (bt_log_tree_status(tree, n) != seen_then->status[n] || bt_log_tree_last(tree, n) != seen_then->last[n] ||
          described != running ||
          (running && (!has || sl != seen_then->sleep[n] || len != strlen(seen_then->desc[n]) ||
                       memcmp(text, seen_then->desc[n], len) != 0))) {
        if (!bad++)
          fprintf(stderr, "think %llu node %d: replayed %s <%s> '%.*s', live %s <%s> '%s'\n", x.entry.think, n,
                  bt_status_name(bt_log_tree_status(tree, n)), bt_status_name(bt_log_tree_last(tree, n)),
                  (int)len, text ? text : "", bt_status_name(seen_then->status[n]),
                  bt_status_name(seen_then->last[n]), seen_then->desc[n]);
      }
    }
    compared++;
  }
  CHECK_INT(bad, 0);
  CHECK_INT(attaches, 2); /* the first, and the reload's */
  CHECK(compared >= 70);
  CHECK_INT(bt_log_tree_status(tree, 99), -1);
  CHECK_INT(bt_log_tree_describe(tree, 99, NULL, NULL, NULL, NULL), 0);
  CHECK_INT(bt_log_tree_apply(tree, r, NULL), BT_EINVAL);
  CHECK_INT(bt_log_tree_create(NULL), BT_EINVAL);
  bt_log_tree_free(tree);
  bt_log_tree_free(NULL);
  bt_log_reader_free(r);
  bt_def_release(a);
  bt_def_release(b);
  free(m.p);
}

/* bt_rec_entry_apply, the one step of replaying statuses (bt_log_tree_apply's, the viewer's):
 * by node, by state (a shared node's places have one status), SAVED, the records that change
 * nothing, and what it refuses, which changes nothing either */
static void test_entry_apply(void) {
  unsigned char st[4] = {0, 0, 0, 0}, last[4] = {0, 0, 0, 0};
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_STATUS;
  e.node = 2;
  e.from = BT_READY;
  e.to = BT_RUNNING;
  CHECK_INT(bt_rec_entry_apply(&e, 4, NULL, st, last), BT_OK); /* by node */
  CHECK(st[2] == BT_RUNNING && st[0] == 0 && st[1] == 0 && st[3] == 0);
  const int state[4] = {0, 1, 1, 2}; /* nodes 1 and 2: one node placed twice */
  e.node = 1;
  e.to = BT_SUCCESS;
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_OK);
  CHECK(st[state[1]] == BT_SUCCESS && st[state[2]] == BT_SUCCESS);
  e.type = BT_LOG_SAVED;
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, NULL), BT_OK); /* no last: nothing */
  CHECK(last[1] == 0);
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_OK);
  CHECK(memcmp(last, st, 4) == 0);
  unsigned char before[4];
  memcpy(before, st, 4);
  static const int others[] = {BT_REC_THINK, BT_REC_EVENT, BT_REC_ERROR, BT_REC_RELOAD, BT_REC_HOST,
                               BT_LOG_DESCRIBE, BT_LOG_LOST, BT_LOG_ATTACH, BT_LOG_STOP, 99};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    e.type = (unsigned char)others[i];
    CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_OK);
  }
  CHECK(memcmp(before, st, 4) == 0);
  e.type = BT_REC_STATUS;
  e.node = 4; /* out of range */
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_EINVAL);
  e.node = -1;
  CHECK_INT(bt_rec_entry_apply(&e, 4, NULL, st, last), BT_EINVAL);
  e.node = 3;
  e.to = BT_RUNNING + 1; /* no status */
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_EINVAL);
  const int bad_state[4] = {0, 1, 1, 4}; /* a state out of range */
  e.to = BT_FAILED;
  CHECK_INT(bt_rec_entry_apply(&e, 4, bad_state, st, last), BT_EINVAL);
  CHECK_INT(bt_rec_entry_apply(&e, 0, NULL, st, last), BT_EINVAL); /* no nodes */
  CHECK_INT(bt_rec_entry_apply(NULL, 4, state, st, last), BT_EINVAL);
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, NULL, last), BT_EINVAL);
  CHECK_INT(bt_rec_entry_apply(&e, -1, state, st, last), BT_EINVAL);
  CHECK(memcmp(before, st, 4) == 0);
  CHECK_INT(bt_rec_entry_apply(&e, 4, state, st, last), BT_OK);
  CHECK(st[2] == BT_FAILED && st[0] == before[0] && st[1] == before[1]);
}

int main(void) {
  test_entry_apply(); /* (no recorder needed) */
  int built = recorder_built();
  if (!built) {
    printf("test_log: the recorder is compiled out (BT_RECORDER=OFF): no log to write\n");
    return 0;
  }
  test_round_trip();
  test_thread_writes_the_same();
  test_shapes_once();
  test_cut_everywhere();
  test_damaged_bytes();
  test_foreign();
  test_write_fails();
  test_file_grows();
  test_dbstrings();
  test_attach_midway();
  test_error_text_ends_with_0();
  test_stop_marks_the_agent_gone();
  test_shape_paths_and_def();
  test_big_frame();
  test_recorder_moves();
  test_agent_renamed();
  test_recording_by_definition();
  test_tree_replayed();
  return check_report("test_log");
}
