/* SPDX-License-Identifier: MIT */
/* test_keylog.c: the blackboard's writes through the recorder (BT_REC_KEY). One agent of
 * harness.h's board tree is recorded with a callback, a ring, a log and statistics at once, while
 * the host and its nodes write every type of key, inside and outside its thinks, strings short
 * and long, a write that wakes it and one that unsets a key. Each sink is checked against the
 * callback, the first way: the ring's records equal the callback's field by field, the log read
 * back equals them record for record, and the statistics count as many writes. A replay of the
 * log (bt_log_tree) gives, after each record, the values the instance held when the callback saw
 * it. The log's shape carries the keys and ports, its attach record the values set before the
 * recorder came, and a recorder moved to another instance writes that one's values. */
#include <stdint.h>

#include "harness.h"

/* (the bytes of a log, in memory: harness.h's mem and mem_write) */

/* ---- what the callback saw, with the instance's values then ---- */

#define NKEYS 6
#define MAX_SEEN 2000

typedef struct seen {
  bt_rec_entry e;
  char before[600], after[600]; /* string values, copied */
  bt_value values[NKEYS];       /* the instance's values when the record was made */
  char strings[NKEYS][600];
} seen;

static seen SEEN[MAX_SEEN];
static int nseen;
static bt_inst *WATCHED;

static void copy_value(bt_value *v, char *room, size_t size) {
  if (v->type != BT_KEY_STRING) return;
  snprintf(room, size, "%s", v->as.string);
  v->as.string = room;
}

static void on_record(void *ud, const bt_rec_entry *e) {
  (void)ud;
  REQUIRE(nseen < MAX_SEEN);
  seen *s = &SEEN[nseen++];
  s->e = *e;
  s->e.text = NULL;
  copy_value(&s->e.before, s->before, sizeof s->before);
  copy_value(&s->e.after, s->after, sizeof s->after);
  for (int k = 0; k < NKEYS; k++) {
    bt_inst_key_get(WATCHED, k, &s->values[k]);
    copy_value(&s->values[k], s->strings[k], sizeof s->strings[k]);
  }
}

static int same_value(const bt_value *a, const bt_value *b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
    case BT_KEY_NONE: return 1;
    case BT_KEY_NUMBER: return memcmp(&a->as.number, &b->as.number, sizeof a->as.number) == 0;
    case BT_KEY_INTEGER: return a->as.integer == b->as.integer;
    case BT_KEY_BOOLEAN: return a->as.boolean == b->as.boolean;
    case BT_KEY_STRING: return strcmp(a->as.string, b->as.string) == 0;
    default: return a->as.entity == b->as.entity;
  }
}

/* A record as the callback saw it, and one from elsewhere: every field that a record of its type
 * has (a ring keeps a think's sleep time as a float; a log's time is the think's). */
static int same_record(const bt_rec_entry *a, const bt_rec_entry *b) {
  if (a->type != b->type || a->node != b->node || a->think != b->think || a->time != b->time) return 0;
  switch (a->type) {
    case BT_REC_STATUS: return a->from == b->from && a->to == b->to;
    case BT_REC_THINK: return a->cause == b->cause && a->has_sleep == b->has_sleep && (float)a->sleep == (float)b->sleep;
    case BT_REC_KEY: return a->from == b->from && same_value(&a->before, &b->before) && same_value(&a->after, &b->after);
    default: return 1;
  }
}

/* ---- the run ---- */

static leaf HUNT = LEAF("Hunt", BT_RUNNING), SLEEP = LEAF("Sleep", BT_RUNNING), WANDER = LEAF("Wander", BT_RUNNING);
static int wander_visits;

/* Wander writes its count and, every other visit, its mood, inside the think. */
static void wander_writes(bt_call *c, leaf *l) {
  (void)l;
  wander_visits++;
  bt_value n = {BT_KEY_INTEGER, {.integer = -wander_visits}};
  REQUIRE(bt_inst_key_set(c->inst, KEY_COUNT, &n) == BT_OK);
  if (wander_visits % 2) REQUIRE(set_key(c->inst, KEY_MOOD, str_value(wander_visits % 4 == 1 ? "bored" : "curious")) == BT_OK);
}

/* Hunt writes its prey inside the think. */
static void hunt_writes(bt_call *c, leaf *l) {
  (void)l;
  bt_value prey = {BT_KEY_ENTITY, {.entity = 1ULL << 40}};
  REQUIRE(bt_inst_key_set(c->inst, KEY_PREY, &prey) == BT_OK);
}

static void think_at(bt_inst *in, double t) {
  T = t;
  REQUIRE(bt_inst_update(in) == BT_OK);
}

typedef struct run {
  bt_def *def;
  bt_inst *in;
  bt_rec *rec;
  bt_stats *st;
  mem log;
} run;

/* The scripted run: returns the instance, its recorder (ring of 1024) and the log's bytes. */
static void record_run(run *x) {
  memset(x, 0, sizeof *x);
  nseen = 0;
  wander_visits = 0;
  WANDER.hook = wander_writes;
  HUNT.hook = hunt_writes;
  x->def = board_def(&HUNT, &SLEEP, &WANDER);
  REQUIRE(bt_inst_create(&x->in, x->def, &HOST, NULL, BT_INST_NOSCATTER) == BT_OK);
  WATCHED = x->in;
  /* values before the recorder comes: the log's attach record carries them */
  T = 0;
  REQUIRE(set_key(x->in, KEY_HUNGER, num_value(0.25)) == BT_OK);
  REQUIRE(set_key(x->in, KEY_MOOD, str_value("calm")) == BT_OK);
  bt_log *log = NULL;
  char err[200];
  REQUIRE(bt_log_create_fn(&log, mem_write, &x->log, 0, err, sizeof err) == BT_OK);
  REQUIRE(bt_rec_create(&x->rec, 1024) == BT_OK);
  bt_rec_set_callback(x->rec, on_record, NULL);
  REQUIRE(bt_rec_set_agent(x->rec, 7, "wolf 7") == BT_OK);
  REQUIRE(bt_rec_set_log(x->rec, log) == BT_OK);
  REQUIRE(bt_stats_create(&x->st) == BT_OK);
  REQUIRE(bt_stats_keep_agents(x->st, 1) == BT_OK);
  REQUIRE(bt_rec_set_stats(x->rec, x->st) == BT_OK);
  REQUIRE(bt_inst_set_recorder(x->in, x->rec) == BT_OK);
  char longer[520];
  memset(longer, 'z', sizeof longer - 1);
  longer[sizeof longer - 1] = 0;
  for (int f = 1; f <= 24; f++) {
    double t = f * 0.25;
    T = t;
    /* the host's writes, between thinks */
    REQUIRE(set_key(x->in, KEY_HUNGER, num_value(f % 8 < 4 ? 0.1 * (f % 8) : 0.8 + 0.01 * f)) == BT_OK);
    if (f % 5 == 0) {
      bt_value night = {BT_KEY_BOOLEAN, {.boolean = f % 10 == 0}};
      REQUIRE(bt_inst_key_set(x->in, KEY_NIGHT, &night) == BT_OK);
    }
    if (f == 6) REQUIRE(set_key(x->in, KEY_MOOD, str_value(longer)) == BT_OK); /* longer than a record's room */
    if (f == 9) REQUIRE(bt_inst_key_set(x->in, KEY_MOOD, NULL) == BT_OK);       /* unset */
    if (f % 7 == 0) {
      bt_value token = {BT_KEY_VALUE, {.token = (unsigned long long)f * 1000}};
      REQUIRE(bt_inst_key_set(x->in, KEY_TOKEN, &token) == BT_OK);
    }
    think_at(x->in, t);
    if (f % 4 == 0) REQUIRE(bt_log_flush(log) == BT_OK);
  }
  REQUIRE(bt_log_free(log) == BT_OK);
}

static void run_free(run *x) {
  bt_rec_free(x->rec);
  bt_stats_free(x->st);
  bt_inst_free(x->in);
  bt_def_release(x->def);
  free(x->log.p);
  WANDER.hook = HUNT.hook = NULL;
}

static int count_type(int type) {
  int n = 0;
  for (int i = 0; i < nseen; i++) n += SEEN[i].e.type == type;
  return n;
}

/* Every kind of write happened: each type, a wake, a write inside a think and outside, an unset,
 * a string longer than a ring's small text. */
static void test_writes_seen(void) {
  run x;
  record_run(&x);
  int types[BT_KEY_TYPE_COUNT] = {0}, woke = 0, inside = 0, outside = 0, unset = 0, longer = 0;
  for (int i = 0; i < nseen; i++) {
    const bt_rec_entry *e = &SEEN[i].e;
    if (e->type != BT_REC_KEY) continue;
    types[e->after.type]++;
    woke += e->from;
    if (e->after.type == BT_KEY_NONE) unset++;
    if (e->before.type == BT_KEY_STRING && strlen(e->before.as.string) > 256) longer++;
    /* the record's values are the instance's then */
    CHECK(same_value(&e->after, &SEEN[i].values[e->node]));
    int in_think = 0;
    for (int j = i + 1; j < nseen && !in_think; j++)
      if (SEEN[j].e.type == BT_REC_THINK) in_think = SEEN[j].e.think == e->think;
    if (in_think) inside++;
    else outside++;
  }
  for (int t = BT_KEY_NUMBER; t < BT_KEY_TYPE_COUNT; t++) CHECK(types[t] > 0);
  CHECK(woke > 0 && woke < count_type(BT_REC_KEY));
  CHECK(inside > 0 && outside > 0);
  CHECK_INT(unset, 1);
  CHECK_INT(longer, 1);
  /* a write that woke the instance is the cause of its next think */
  for (int i = 0; i < nseen; i++) {
    if (SEEN[i].e.type != BT_REC_KEY || !SEEN[i].e.from) continue;
    int j = i + 1;
    while (j < nseen && SEEN[j].e.type != BT_REC_THINK) j++;
    if (j < nseen && SEEN[j].e.think > SEEN[i].e.think) CHECK_INT(SEEN[j].e.cause, BT_WAKE_KEY);
  }
  run_free(&x);
}

/* The ring keeps every record as the callback saw it. */
static void test_ring_equals_callback(void) {
  run x;
  record_run(&x);
  CHECK(nseen < 1024); /* all of them in the ring */
  CHECK_INT((int)bt_rec_count(x.rec), nseen);
  for (int i = 0; i < nseen && i < (int)bt_rec_count(x.rec); i++) {
    bt_rec_entry e;
    REQUIRE(bt_rec_get(x.rec, (size_t)i, &e) == BT_OK);
    if (!same_record(&SEEN[i].e, &e)) {
      fprintf(stderr, "ring record %d (type %d) differs from the callback's\n", i, e.type);
      CHECK(0);
      break;
    }
  }
  run_free(&x);
}

/* The statistics count the writes, of the shape and of the agent. */
static void test_stats_count_writes(void) {
  run x;
  record_run(&x);
  bt_stats_shape sh;
  REQUIRE(bt_stats_shape_get(x.st, 0, &sh) == BT_OK);
  CHECK_INT((int)sh.writes, count_type(BT_REC_KEY));
  REQUIRE(bt_rec_stats_shape(x.rec, &sh) == BT_OK);
  CHECK_INT((int)sh.writes, count_type(BT_REC_KEY));
  /* bt_stats_add counts them too, and a merge adds them */
  bt_stats *other = NULL, *sum = NULL;
  REQUIRE(bt_stats_create(&other) == BT_OK && bt_stats_create(&sum) == BT_OK);
  unsigned long long hash = bt_def_hash(x.def);
  int nodes = bt_def_size(x.def);
  for (int i = 0; i < nseen; i++) CHECK_INT(bt_stats_add(other, 7, hash, nodes, &SEEN[i].e), BT_OK);
  REQUIRE(bt_stats_shape_get(other, 0, &sh) == BT_OK);
  CHECK_INT((int)sh.writes, count_type(BT_REC_KEY));
  REQUIRE(bt_stats_merge(sum, other) == BT_OK && bt_stats_merge(sum, x.st) == BT_OK);
  REQUIRE(bt_stats_shape_get(sum, 0, &sh) == BT_OK);
  CHECK_INT((int)sh.writes, 2 * count_type(BT_REC_KEY));
  bt_stats_reset(sum, 10);
  REQUIRE(bt_stats_shape_get(sum, 0, &sh) == BT_OK);
  CHECK_INT((int)sh.writes, 0);
  bt_stats_free(other);
  bt_stats_free(sum);
  run_free(&x);
}

/* The log read back: the shape's keys and ports are the definition's, the attach record the
 * values set before, every record the callback's; replayed, the values after each record are
 * those the instance held when it was made. */
static void test_log_equals_callback(void) {
  run x;
  record_run(&x);
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK);
  REQUIRE(bt_log_reader_feed(r, x.log.p, x.log.len) == BT_OK);
  bt_log_tree *t = NULL;
  REQUIRE(bt_log_tree_create(&t) == BT_OK);
  bt_log_record rec;
  int i = 0, attached = 0, rc;
  bt_value v;
  while ((rc = bt_log_read(r, &rec)) == 1) {
    int type = rec.entry.type;
    CHECK_INT(bt_log_tree_apply(t, r, &rec), BT_OK);
    if (type == BT_LOG_ATTACH) {
      attached++;
      const bt_log_shape *s = rec.shape;
      CHECK_INT(bt_log_shape_key_count(s), bt_def_key_count(x.def));
      for (int k = 0; k < bt_def_key_count(x.def); k++) {
        CHECK_STR(bt_log_shape_key_name(s, k), bt_def_key_name(x.def, k));
        CHECK_INT(bt_log_shape_key_type(s, k), bt_def_key_type(x.def, k));
        CHECK_INT(bt_log_shape_key_flags(s, k), bt_def_key_flags(x.def, k));
        CHECK_INT(bt_log_shape_key_find(s, bt_def_key_name(x.def, k)), k);
      }
      for (int n = 0; n < bt_def_size(x.def); n++) {
        CHECK_INT(bt_log_shape_port_count(s, n), bt_def_port_count(x.def, n));
        for (int p = 0; p < bt_def_port_count(x.def, n); p++) {
          int k1, k2;
          unsigned h1, h2;
          REQUIRE(bt_def_port(x.def, n, p, &k1, &h1) == BT_OK && bt_log_shape_port(s, n, p, &k2, &h2) == BT_OK);
          CHECK(k1 == k2 && h1 == h2);
        }
      }
      /* the values set before the recorder came */
      CHECK_INT(bt_log_tree_key(t, KEY_HUNGER, &v), 1);
      CHECK_NUM(v.as.number, 0.25);
      CHECK_INT(bt_log_tree_key(t, KEY_MOOD, &v), 1);
      CHECK_STR(v.as.string, "calm");
      CHECK_INT(bt_log_tree_key(t, KEY_PREY, &v), 0);
      CHECK_INT(v.type, BT_KEY_NONE);
      int key;
      CHECK_INT(bt_log_reader_value(r, 0, &key, &v), BT_OK);
      CHECK_INT(key, KEY_HUNGER);
      CHECK_INT(bt_log_reader_value(r, 1, &key, &v), BT_OK);
      CHECK_INT(key, KEY_MOOD);
      CHECK_INT(bt_log_reader_value(r, 2, &key, &v), BT_EINVAL);
      continue;
    }
    if (type < BT_REC_STATUS || type > BT_REC_KEY) continue;
    REQUIRE(i < nseen);
    if (!same_record(&SEEN[i].e, &rec.entry)) {
      fprintf(stderr, "log record %d (type %d/%d) differs from the callback's\n", i, type, SEEN[i].e.type);
      CHECK(0);
      break;
    }
    for (int k = 0; k < NKEYS; k++) {
      CHECK_INT(bt_log_tree_key(t, k, &v), SEEN[i].values[k].type != BT_KEY_NONE);
      if (!same_value(&v, &SEEN[i].values[k])) {
        fprintf(stderr, "after record %d, key %d replayed is not the instance's\n", i, k);
        CHECK(0);
      }
    }
    i++;
  }
  if (rc < 0) fprintf(stderr, "%s\n", bt_log_reader_errmsg(r));
  CHECK_INT(rc, 0);
  CHECK_INT(i, nseen);
  CHECK_INT(attached, 1);
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
  CHECK_INT(bt_log_tree_key(t, NKEYS, &v), BT_EINVAL);
  CHECK_INT(bt_log_tree_key(t, -1, &v), BT_EINVAL);
  CHECK_INT(bt_log_tree_key(NULL, 0, &v), BT_EINVAL);
  bt_log_tree_free(t);
  bt_log_reader_free(r);
  run_free(&x);
}

/* A recorder moved to another instance (a tree rebuilt) writes an attach with that one's values;
 * a log cut anywhere still reads to its last whole block with no error. */
static void test_moved_and_cut(void) {
  leaf h = LEAF("Hunt", BT_RUNNING), s = LEAF("Sleep", BT_RUNNING), w = LEAF("Wander", BT_RUNNING);
  bt_def *def = board_def(&h, &s, &w);
  bt_inst *a = NULL, *b = NULL;
  REQUIRE(bt_inst_create(&a, def, &HOST, NULL, 0) == BT_OK && bt_inst_create(&b, def, &HOST, NULL, 0) == BT_OK);
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK && bt_rec_set_log(rec, log) == BT_OK);
  REQUIRE(bt_inst_set_recorder(a, rec) == BT_OK);
  REQUIRE(set_key(a, KEY_MOOD, str_value("a's")) == BT_OK);
  REQUIRE(set_key(b, KEY_MOOD, str_value("b's")) == BT_OK);
  REQUIRE(set_key(b, KEY_HUNGER, num_value(0.5)) == BT_OK);
  REQUIRE(bt_inst_move_hook(b, a) == BT_OK);
  REQUIRE(set_key(b, KEY_HUNGER, num_value(0.75)) == BT_OK);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_rec_free(rec);
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create(&r) == BT_OK && bt_log_reader_feed(r, m.p, m.len) == BT_OK);
  bt_log_tree *t = NULL;
  REQUIRE(bt_log_tree_create(&t) == BT_OK);
  bt_log_record one;
  int attaches = 0, keys = 0;
  bt_value v;
  while (bt_log_read(r, &one) == 1) {
    REQUIRE(bt_log_tree_apply(t, r, &one) == BT_OK);
    if (one.entry.type == BT_LOG_ATTACH && ++attaches == 2) { /* b's values */
      CHECK_INT(bt_log_tree_key(t, KEY_MOOD, &v), 1);
      CHECK_STR(v.as.string, "b's");
      CHECK_INT(bt_log_tree_key(t, KEY_HUNGER, &v), 1);
      CHECK_NUM(v.as.number, 0.5);
    }
    keys += one.entry.type == BT_REC_KEY;
  }
  CHECK_INT(attaches, 2);
  CHECK_INT(keys, 2); /* a's mood, b's hunger; b's writes before the move are b's attach */
  CHECK_INT(bt_log_tree_key(t, KEY_HUNGER, &v), 1);
  CHECK_NUM(v.as.number, 0.75);
  bt_log_tree_free(t);
  bt_log_reader_free(r);
  /* cut at every byte: no error, the records of the whole blocks */
  for (size_t cut = 0; cut < m.len; cut++) {
    REQUIRE(bt_log_reader_create(&r) == BT_OK && bt_log_reader_feed(r, m.p, cut) == BT_OK);
    int rc;
    while ((rc = bt_log_read(r, &one)) == 1) {
    }
    CHECK_INT(rc, 0);
    bt_log_reader_free(r);
  }
  free(m.p);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_def_release(def);
}

/* The CRC-32 of zlib and PNG (docs/log-format.md), bit by bit. */
static uint32_t crc32_of(const unsigned char *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : (c >> 1);
  }
  return c ^ 0xFFFFFFFFu;
}

/* Writes again the CRC-32 of the block of the log's bytes that holds byte `at`. */
static void recheck_block(unsigned char *p, size_t len, size_t at) {
  size_t b = 16;
  while (b < len) {
    size_t q = b + 1, size = 0;
    for (int shift = 0; p[q] & 0x80; shift += 7) size |= (size_t)(p[q++] & 0x7f) << shift;
    size |= (size_t)p[q] << (7 * (int)(q - b - 1));
    q++;
    size_t end = q + size;
    if (at >= b && at < end) {
      uint32_t c = crc32_of(p + b, end - b);
      for (int i = 0; i < 4; i++) p[end + i] = (unsigned char)(c >> (8 * i));
      return;
    }
    b = end + 4;
  }
}

/* A key record's values whose types are not the key's, a key out of the shape: damage, said so. */
static void test_damaged_key_record(void) {
  leaf h = LEAF("Hunt", BT_RUNNING), s = LEAF("Sleep", BT_RUNNING), w = LEAF("Wander", BT_RUNNING);
  bt_def *def = board_def(&h, &s, &w);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  mem m = {0};
  bt_log *log = NULL;
  REQUIRE(bt_log_create_fn(&log, mem_write, &m, 0, NULL, 0) == BT_OK);
  bt_rec *rec = NULL;
  REQUIRE(bt_rec_create(&rec, 0) == BT_OK && bt_rec_set_log(rec, log) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, rec) == BT_OK);
  REQUIRE(set_key(in, KEY_HUNGER, num_value(0.5)) == BT_OK);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_rec_free(rec);
  /* the key record: 39 00 (hunger) 00 (nil) 01 <8 bytes> (0.5); find it near the end */
  size_t at = 0;
  for (size_t i = 0; i + 11 < m.len; i++)
    if (m.p[i] == 0x39 && m.p[i + 1] == 0 && m.p[i + 2] == 0 && m.p[i + 3] == 1) at = i;
  REQUIRE(at > 0);
  int found = 0;
  for (int variant = 0; variant < 2; variant++) {
    unsigned char *copy = malloc(m.len);
    memcpy(copy, m.p, m.len);
    if (variant == 0) copy[at + 1] = NKEYS; /* no such key */
    else copy[at + 3] = BT_KEY_STRING;     /* a string for a number key */
    recheck_block(copy, m.len, at); /* so that the record's bytes are what is read as damage */
    bt_log_reader *r = NULL;
    REQUIRE(bt_log_reader_create(&r) == BT_OK && bt_log_reader_feed(r, copy, m.len) == BT_OK);
    bt_log_record one;
    int rc;
    while ((rc = bt_log_read(r, &one)) == 1) {
    }
    CHECK_INT(rc, BT_ECORRUPT);
    found += strstr(bt_log_reader_errmsg(r), variant ? "a key record's values are bad" : "a key record names no key") != NULL;
    bt_log_reader_free(r);
    free(copy);
  }
  CHECK_INT(found, 2);
  free(m.p);
  bt_inst_free(in);
  bt_def_release(def);
}

int main(void) {
  int built = recorder_built();
  if (!built) {
    printf("test_keylog: the recorder is compiled out (BT_RECORDER=OFF)\n");
    return 0;
  }
  test_writes_seen();
  test_ring_equals_callback();
  test_stats_count_writes();
  test_log_equals_callback();
  test_moved_and_cut();
  test_damaged_key_record();
  return check_report("test_keylog");
}
