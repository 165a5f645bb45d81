/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c: the ring of records (src/record/ring.c, rec_internal.h), linked alone
 * (tests/CMakeLists.txt): what bti_ring_push takes comes back as it was, every field and text, in
 * a ring that wraps and grows, whatever the record (the viewer's: a log's double sleep times, a
 * lost-records mark, think numbers far apart or going back); the records that leave are handed
 * back; the records a think makes take no room beside their slot; the think path's records, timed
 * by their THINK; and the errors.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rec_internal.h"

enum { LOST = 19 }; /* the log's BT_LOG_LOST, which the ring keeps as any other */

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* e and f say the same: every field, the text's bytes (not where they are) */
static int same(const bt_rec_entry *e, const bt_rec_entry *f) {
  if (e->type != f->type || e->from != f->from || e->to != f->to || e->has_sleep != f->has_sleep ||
      e->cause != f->cause || e->node != f->node || e->think != f->think || !same_bits(e->time, f->time) ||
      !same_bits(e->sleep, f->sleep) || e->def_from != f->def_from || e->def_to != f->def_to || e->size != f->size ||
      !e->text != !f->text)
    return 0;
  return !e->text || memcmp(e->text, f->text, e->size) == 0;
}

static const char texts[4][12] = {"", "bad leaf", "a\0b", "\xff\x01zz"};

/* a record of any type, of fields as the recorder or a log reader give them, mostly; think goes on
 * from *think, now and then far, or back */
static bt_rec_entry any_record(unsigned long long *think) {
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  uint64_t k = next();
  switch (k % 16) {
  case 0: *think += 1u << 22; break; /* far on (records lost) */
  case 1: *think = *think > 40 ? *think - 40 : 0; break; /* back */
  case 2: case 3: case 4: case 5: *think += 1; break;
  default: break;
  }
  e.think = *think;
  e.time = (double)(next() % 100000) / 7.0;
  e.node = -1;
  switch (next() % 10) {
  case 0: case 1: case 2: case 3:
    e.type = BT_REC_STATUS;
    e.from = (unsigned char)(next() % 4);
    e.to = (unsigned char)(next() % 4);
    e.node = (int)(next() % 50);
    break;
  case 4: case 5:
    e.type = BT_REC_THINK;
    e.cause = (unsigned char)(next() % 7);
    e.has_sleep = (unsigned char)(next() % 2);
    if (e.has_sleep) e.sleep = next() % 2 ? 0.25 * (double)(next() % 64) : (double)(next() % 1000) / 3.0;
    break;
  case 6:
    e.type = BT_REC_EVENT;
    e.node = (int)(next() % 50);
    break;
  case 7:
    e.type = next() % 2 ? BT_REC_ERROR : BT_REC_HOST;
    e.node = (int)(next() % 50) - 5;
    e.text = texts[next() % 4];
    e.size = e.text[0] ? strlen(e.text) : e.text == texts[2] ? 3 : 0;
    break;
  case 8:
    e.type = BT_REC_RELOAD;
    e.def_from = next();
    e.def_to = next();
    break;
  default:
    e.type = LOST;
    e.size = (size_t)(next() % 1000) + 1;
    e.think = 0;
    e.time = -0.0;
    break;
  }
  return e;
}

/* Records pushed come back as they were, the newest cap of them, in a ring that grows midway; the
 * records that leave are handed back as they were (but their text). */
static void test_push(void) {
  enum { N = 20000, CAP = 300 };
  bt_rec_entry *all = malloc(N * sizeof *all);
  bti_ring r;
  CHECK_INT(bti_ring_init(&r, 64), BT_OK);
  unsigned long long think = 1;
  int ok = 1, left_ok = 1, leaves = 0;
  for (int i = 0; i < N; i++) {
    all[i] = any_record(&think);
    if (i == 1000) CHECK_INT(bti_ring_reserve(&r, CAP), BT_OK);
    size_t before = r.count;
    bt_rec_entry left;
    CHECK_INT(bti_ring_push(&r, &all[i], &left), BT_OK);
    if (left.type) {
      leaves++;
      bt_rec_entry want = all[i - (int)before];
      want.text = NULL;
      left_ok &= before == r.cap && same(&left, &want);
    } else {
      left_ok &= before < r.cap;
    }
    if (i % 97 == 0 || i == N - 1)
      for (size_t k = 0; k < r.count; k++) {
        bt_rec_entry got;
        CHECK_INT(bti_ring_get(&r, k, &got), BT_OK);
        ok &= same(&got, &all[i + 1 - (int)r.count + (int)k]);
      }
  }
  CHECK(ok);
  CHECK(left_ok);
  CHECK_INT(leaves, N - CAP);
  CHECK_INT(r.count, CAP);
  bti_ring_fini(&r);
  CHECK_INT(r.cap, 0);
  free(all);
}

/* A think's records, as the recorder and a log give them, take no room beside their slot; a
 * sleep time a float cannot hold, or a think number older than the newest, does, and comes back
 * exactly, as does one beyond a float's range, an infinity, a NaN. */
static void test_compact(void) {
  bti_ring r;
  CHECK_INT(bti_ring_init(&r, 16), BT_OK);
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  for (unsigned long long t = 1; t <= 40; t++) {
    e.type = BT_REC_STATUS;
    e.node = (int)t % 7;
    e.from = 0;
    e.to = 3;
    e.has_sleep = 0;
    e.sleep = 0;
    e.think = t;
    e.time = (double)t / 30;
    CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
    e.type = BT_REC_THINK;
    e.node = -1;
    e.from = e.to = 0;
    e.has_sleep = 1;
    e.sleep = 0.5;
    CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
  }
  CHECK_INT(r.nextra, 0);
  e.sleep = 0.1; /* a double */
  CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
  CHECK_INT(r.nextra, 1);
  bt_rec_entry got;
  CHECK_INT(bti_ring_get(&r, r.count - 1, &got), BT_OK);
  CHECK(same(&got, &e));
  e.think = 3; /* older than the newest */
  e.sleep = 0.5;
  CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
  CHECK_INT(r.nextra, 2);
  CHECK_INT(bti_ring_get(&r, r.count - 1, &got), BT_OK);
  CHECK(same(&got, &e));
  e.think = 40;
  const double wide[] = {1e300, -1e39, INFINITY, NAN}; /* beyond a float, or none */
  for (int i = 0; i < 4; i++) {
    e.sleep = wide[i];
    CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
    CHECK_INT(r.nextra, 3 + i);
    CHECK_INT(bti_ring_get(&r, r.count - 1, &got), BT_OK);
    CHECK(same(&got, &e));
  }
  bti_ring_clear(&r);
  CHECK_INT(r.count, 0);
  CHECK_INT(r.nextra, 0);
  bti_ring_fini(&r);
}

/* The think path's form: statuses made inside a think take its THINK's time, or the think under
 * way's; a THINK's sleep time is kept as a float; a record with bytes keeps a copy of them. */
static void test_think_path(void) {
  bti_ring r;
  CHECK_INT(bti_ring_init(&r, 8), BT_OK);
  r.think = 5;
  r.now = 2.5;
  bti_ring_put_status(&r, 3, BT_READY, BT_RUNNING);
  bti_ring_put_think(&r, BT_WAKE_EVENT, 1, 0.1);
  r.think = 6;
  r.now = 3.5;
  bti_ring_put_status(&r, 4, BT_RUNNING, BT_SUCCESS);
  bti_ring_bytes *x = bti_ring_bytes_new("oops", 4);
  CHECK(x != NULL);
  bt_rec_entry e;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_ERROR;
  e.node = 4;
  e.think = 6;
  e.time = 3.5;
  e.size = 4;
  e.text = bti_ring_bytes_text(x);
  CHECK_STR(e.text, "oops");
  bti_ring_put_bytes(&r, x, &e);
  CHECK_INT(r.count, 4);
  CHECK_INT(r.nextra, 1);
  bt_rec_entry got[4];
  for (int i = 0; i < 4; i++) CHECK_INT(bti_ring_get(&r, (size_t)i, &got[i]), BT_OK);
  CHECK_INT(got[0].type, BT_REC_STATUS);
  CHECK_INT(got[0].node, 3);
  CHECK_INT(got[0].think, 5);
  CHECK_NUM(got[0].time, 2.5);
  CHECK_INT(got[1].type, BT_REC_THINK);
  CHECK_INT(got[1].cause, BT_WAKE_EVENT);
  CHECK_INT(got[1].has_sleep, 1);
  CHECK(same_bits(got[1].sleep, (double)0.1f));
  CHECK_INT(got[2].think, 6);
  CHECK_NUM(got[2].time, 3.5); /* the think under way's */
  CHECK_INT(got[3].type, BT_REC_ERROR);
  CHECK_INT(got[3].node, 4);
  CHECK_STR(got[3].text, "oops");
  bti_ring_fini(&r);
}

static void test_errors(void) {
  bti_ring r;
  bt_rec_entry e, left;
  memset(&e, 0, sizeof e);
  e.type = BT_REC_EVENT;
  CHECK_INT(bti_ring_init(&r, 0), BT_OK);
  left.type = BT_REC_STATUS;
  CHECK_INT(bti_ring_push(&r, &e, &left), BT_EINVAL); /* no room */
  CHECK_INT(left.type, 0);
  CHECK_INT(bti_ring_get(&r, 0, &e), BT_EINVAL);
  CHECK_INT(bti_ring_reserve(&r, 2), BT_OK);
  CHECK_INT(bti_ring_push(&r, NULL, NULL), BT_EINVAL);
  CHECK_INT(bti_ring_push(&r, &e, NULL), BT_OK);
  CHECK_INT(bti_ring_get(&r, 0, NULL), BT_EINVAL);
  CHECK_INT(bti_ring_get(&r, 1, &e), BT_EINVAL);
  CHECK_INT(bti_ring_reserve(&r, 1), BT_OK); /* never shrinks */
  CHECK_INT(r.cap, 2);
  if ((size_t)BTI_RING_MAX < SIZE_MAX) CHECK_INT(bti_ring_reserve(&r, (size_t)BTI_RING_MAX + 1), BT_EINVAL);
  CHECK_INT(r.count, 1);
  bti_ring_fini(&r);
  bti_ring_fini(&r); /* twice: an empty ring of no room */
}

int main(void) {
  test_push();
  test_compact();
  test_think_path();
  test_errors();
  return check_report("test_ring");
}
