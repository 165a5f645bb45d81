/* SPDX-License-Identifier: MIT */
/*
 * fuzz_log.c: a libFuzzer target for the log file's reader (src/record/logread.c; run with
 * tests/fuzz/run.sh, which runs it after fuzz_bt.c's target).
 *
 * The input is a log file, or anything: its first byte says where to split it. The target reads
 * it whole, then fed in two parts split there (as a file read while it is written), and checks:
 * every call returns a code bt.h documents for it; every record names a node of its agent's shape
 * and statuses that exist, and fits the first agent's tree replayed (bt_log_tree); the shapes'
 * paths find their own nodes; the two reads give the same records and stop in the same way; and
 * the reader never reads out of bounds (the sanitizers).
 * A broken expectation aborts, as a crash does. Its seeds are in tests/fuzz/corpus_log/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"

#define EXPECT(cond)                                                                           \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "bt_fuzz_log: expectation failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                                 \
    }                                                                                          \
  } while (0)

/* What a read gave: a digest of its records, their count, how it stopped. */
typedef struct outcome {
  uint64_t digest;
  long records;
  int rc, where;
} outcome;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

static void check_shape(const bt_log_shape *s) {
  int n = bt_log_shape_size(s);
  EXPECT(n >= 1);
  for (int i = 0; i < n && i < 64; i++) {
    EXPECT(bt_log_shape_name(s, i) != NULL && bt_log_shape_kind_name(s, i) != NULL);
    int up = bt_log_shape_up(s, i);
    EXPECT(i == 0 ? up == -1 : up >= 0 && up < i);
    int st = bt_log_shape_state(s, i);
    EXPECT(st >= 0 && st < n);
    for (int k = 0; k < bt_log_shape_child_count(s, i); k++) {
      int c = bt_log_shape_child(s, i, k);
      EXPECT(c > i && c < n && bt_log_shape_up(s, c) == i);
    }
    bt_buf b = {0};
    int rc = bt_log_shape_path(s, i, &b);
    EXPECT(rc == BT_OK || rc == BT_ENOMEM);
    /* a path names one node, unless names hold a '/' or '#' that makes another's */
    if (rc == BT_OK && !strpbrk(bt_log_shape_name(s, i), "/#")) {
      int found = bt_log_shape_find(s, b.data);
      EXPECT(found >= 0 && found <= i);
    }
    bt_buf_free(&b);
    double p;
    bt_log_shape_param(s, i, &p);
  }
  bt_def *def = NULL;
  int rc = bt_log_shape_def(s, &def);
  EXPECT(rc == BT_OK || rc == BT_EINVAL || rc == BT_ENOMEM || rc == BT_ETOOBIG || rc == BT_ECYCLE);
  if (rc == BT_OK) {
    EXPECT(bt_def_size(def) == n);
    bt_buf b = {0};
    bt_def_dot(def, &b);
    bt_buf_free(&b);
    bt_def_release(def);
  }
}

static void check_record(const bt_log_reader *r, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  const bt_log_shape *s = rec->shape;
  int n = s ? bt_log_shape_size(s) : 0;
  switch (e->type) {
    case BT_REC_STATUS:
      EXPECT(s && e->node >= 0 && e->node < n && e->from <= BT_RUNNING && e->to <= BT_RUNNING);
      break;
    case BT_REC_EVENT: EXPECT(s && e->node >= 0 && e->node < n); break;
    case BT_REC_ERROR: EXPECT(e->node == -1 || (s && e->node >= 0 && e->node < n)); break;
    case BT_REC_THINK: EXPECT(e->cause <= BT_WAKE_RELOAD); break;
    case BT_REC_RELOAD: case BT_REC_HOST: case BT_LOG_SAVED: case BT_LOG_LOST: case BT_LOG_STOP: break;
    case BT_LOG_WORLD: EXPECT(rec->agent_index == -1 && !s); break;
    case BT_LOG_ATTACH:
      EXPECT(s);
      for (size_t i = 0; i < e->size; i++) {
        int node, st, last;
        EXPECT(bt_log_reader_state(r, i, &node, &st, &last) == BT_OK);
        EXPECT(node >= 0 && node < n && st <= BT_RUNNING && last <= BT_RUNNING);
      }
      EXPECT(bt_log_reader_state(r, e->size, NULL, NULL, NULL) == BT_EINVAL);
      check_shape(s);
      break;
    case BT_LOG_DESCRIBE:
      EXPECT(s);
      for (size_t i = 0; i < e->size; i++) {
        int node, has;
        double sleep;
        const char *text;
        size_t len;
        EXPECT(bt_log_reader_describe(r, i, &node, &has, &sleep, &text, &len) == BT_OK);
        EXPECT(node >= 0 && node < n);
        if (len) EXPECT(text[0] == text[0] && text[len - 1] == text[len - 1]); /* readable */
      }
      break;
    default: EXPECT(0);
  }
  if (e->type == BT_REC_ERROR || e->type == BT_REC_HOST || e->type == BT_LOG_WORLD)
    if (e->size) EXPECT(e->text && e->text[0] == e->text[0] && e->text[e->size - 1] == e->text[e->size - 1]);
  if (e->type == BT_REC_ERROR) EXPECT(e->text && e->text[e->size] == 0); /* bt.h: ended by a 0 */
  if (rec->agent_index >= 0) EXPECT(rec->label != NULL);
}

static uint64_t digest_of(const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  uint64_t h = mix(0, e->type);
  h = mix(h, (uint64_t)e->node);
  h = mix(h, e->from | e->to << 4 | e->cause << 8 | e->has_sleep << 12);
  h = mix(h, e->think);
  uint64_t t;
  memcpy(&t, &e->time, sizeof t);
  h = mix(h, t);
  h = mix(h, e->size);
  h = mix(h, rec->agent);
  return mix(h, (uint64_t)rec->agent_index);
}

/* Reads everything there is from r into out. */
static void read_all(bt_log_reader *r, outcome *out) {
  bt_log_record rec;
  int rc;
  bt_log_tree *tree = NULL; /* the first agent's tree, replayed: every record the reader gives fits it */
  EXPECT(bt_log_tree_create(&tree) == BT_OK);
  while ((rc = bt_log_read(r, &rec)) == 1) {
    check_record(r, &rec);
    if (rec.agent_index == 0) {
      int applied = bt_log_tree_apply(tree, r, &rec);
      EXPECT(applied == BT_OK || applied == BT_ENOMEM);
      const bt_log_shape *s = bt_log_tree_shape(tree);
      for (int n = 0; s && n < bt_log_shape_size(s); n++) {
        int st = bt_log_tree_status(tree, n), last = bt_log_tree_last(tree, n);
        EXPECT(st >= BT_READY && st <= BT_RUNNING && last >= BT_READY && last <= BT_RUNNING);
      }
    }
    out->digest = mix(out->digest, digest_of(&rec));
    out->records++;
  }
  bt_log_tree_free(tree);
  EXPECT(rc == 0 || rc == BT_EFORMAT || rc == BT_ECORRUPT || rc == BT_ENOMEM);
  EXPECT(bt_log_read(r, &rec) == rc || (rc == 0 && bt_log_read(r, &rec) == 0)); /* it stays */
  out->rc = rc;
  unsigned long long at = 0;
  out->where = bt_log_reader_where(r, &at);
  EXPECT(out->where >= BT_LOG_MORE && out->where <= BT_LOG_FAILED);
  EXPECT((rc < 0) == (out->where == BT_LOG_FAILED));
  if (rc < 0) EXPECT(bt_log_reader_errmsg(r)[0] != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t split = data[0] * (size - 1) / 255;
  data++;
  size--;
  outcome whole = {0, 0, 0, 0}, parts = {0, 0, 0, 0};
  bt_log_reader *r = NULL;
  EXPECT(bt_log_reader_create(&r) == BT_OK);
  EXPECT(bt_log_reader_feed(r, data, size) == BT_OK);
  read_all(r, &whole);
  bt_log_reader_free(r);
  /* in two parts: what the first gives, then the rest, is what the whole gives */
  EXPECT(bt_log_reader_create(&r) == BT_OK);
  EXPECT(bt_log_reader_feed(r, data, split) == BT_OK);
  read_all(r, &parts);
  if (parts.rc == 0) {
    EXPECT(bt_log_reader_feed(r, data + split, size - split) == BT_OK);
    read_all(r, &parts);
    EXPECT(parts.records == whole.records && parts.digest == whole.digest);
    EXPECT(parts.rc == whole.rc && parts.where == whole.where);
  } else {
    EXPECT(parts.rc == whole.rc); /* the same damage, found in the first part */
  }
  bt_log_reader_free(r);
  return 0;
}
