/* SPDX-License-Identifier: MIT */
/* test_sched.c: the brain scheduler against Don't Starve's BrainWrangler (scripts/brain.lua). */
#include <stdlib.h>

#include "bt.h"
#include "check.h"

#define MAXB 16

/* Each brain's scripted sleep: has (1) and value, or nil (has 0). */
static int has_sleep[MAXB];
static double sleep_of[MAXB];
static int ready[MAXB];
static int thought[MAXB];   /* thinks in the current tick */
static int total[MAXB];     /* thinks overall */
static bt_sched *S;
static void (*during_think)(int brain); /* optional side effect */

static int hook_ready(void *ud, int b) {
  (void)ud;
  return ready[b];
}

static int hook_think(void *ud, int b, double *sleep) {
  (void)ud;
  thought[b]++;
  total[b]++;
  if (during_think) during_think(b);
  *sleep = sleep_of[b];
  return has_sleep[b];
}

static const bt_sched_hooks hooks = {hook_ready, hook_think, NULL};

static void reset(void) {
  for (int i = 0; i < MAXB; i++) {
    has_sleep[i] = 1;
    sleep_of[i] = 0;
    ready[i] = 1;
    thought[i] = total[i] = 0;
  }
  during_think = NULL;
  bt_sched_free(S);
  CHECK_INT(bt_sched_create(&S, 1.0 / 30), BT_OK);
}

static void tick(long long t) {
  for (int i = 0; i < MAXB; i++) thought[i] = 0;
  CHECK_INT(bt_sched_update(S, t, &hooks), BT_OK);
}

static int new_brain(void) {
  int b = bt_sched_brain_create(S);
  CHECK(b >= 0 && b < MAXB);
  return b;
}

/* A brain that sleeps s seconds at tick t wakes at floor(t + s * 30) if later than t. */
static void test_sleep_ticks(void) {
  reset();
  int b = new_brain();
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_NONE);
  bt_sched_add(S, b);
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_UPDATING);
  sleep_of[b] = 0.5; /* 15 ticks */
  tick(1);
  CHECK_INT(thought[b], 1);
  long long wake;
  CHECK_INT(bt_sched_list(S, b, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 16);
  for (long long t = 2; t < 16; t++) {
    tick(t);
    CHECK_INT(thought[b], 0);
  }
  /* a sleep no longer than a tick keeps the brain among the updaters */
  sleep_of[b] = 1.0 / 30;
  tick(16);
  CHECK_INT(thought[b], 1);
  tick(17);
  CHECK_INT(thought[b], 1);
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_UPDATING);
  tick(18);
  CHECK_INT(thought[b], 1);

  /* floor: 0.05 s = 1.5 ticks from tick 18 wakes at 19 */
  sleep_of[b] = 0.05;
  tick(19);
  CHECK_INT(bt_sched_list(S, b, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 20);

  /* nil hibernates until woken */
  has_sleep[b] = 0;
  tick(20);
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_HIBERNATING);
  for (long long t = 21; t < 40; t++) tick(t);
  CHECK_INT(total[b], 6); /* at 1, 16, 17, 18, 19, 20 */
  bt_sched_wake(S, b);
  tick(40);
  CHECK_INT(thought[b], 1);
}

/* Sleep at the current tick outside an update: a sleep of exactly 0 ticks counts as 1. */
static void test_sleep_call(void) {
  reset();
  int b = new_brain();
  bt_sched_add(S, b);
  tick(5);
  CHECK_INT(bt_sched_sleep(S, b, 0), BT_OK);
  long long wake;
  CHECK_INT(bt_sched_list(S, b, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 6);
  /* a negative sleep lands before the current tick: nothing changes */
  bt_sched_sleep(S, b, -1);
  CHECK_INT(bt_sched_list(S, b, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 6);
  /* an unregistered brain is not filed anywhere (SendToList needs a current list) */
  int c = new_brain();
  bt_sched_sleep(S, c, 1);
  bt_sched_wake(S, c);
  bt_sched_hibernate(S, c);
  CHECK_INT(bt_sched_list(S, c, NULL), BT_SCHED_NONE);
  CHECK_INT(bt_sched_sleep(S, 99, 1), BT_EINVAL);
}

/* Brains whose entity is invalid or asleep are skipped, and stay among the updaters. */
static void test_ready(void) {
  reset();
  int a = new_brain(), b = new_brain();
  bt_sched_add(S, a);
  bt_sched_add(S, b);
  ready[b] = 0;
  sleep_of[a] = sleep_of[b] = 1;
  tick(1);
  CHECK_INT(thought[a], 1);
  CHECK_INT(thought[b], 0);
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_UPDATING);
  tick(2);
  CHECK_INT(thought[b], 0);
  ready[b] = 1;
  tick(3);
  CHECK_INT(thought[b], 1);
}

/* AddInstance on a waiting brain files it among the updaters but leaves it in its bucket too. */
static void test_add_while_waiting(void) {
  reset();
  int b = new_brain();
  bt_sched_add(S, b);
  sleep_of[b] = 1; /* from tick 1: waits for tick 31 */
  tick(1);
  bt_sched_add(S, b); /* instances[b] = updaters; tickwaiters[31][b] stays */
  sleep_of[b] = 0.5;  /* thinks at 2, then waits for 17 */
  tick(2);
  CHECK_INT(thought[b], 1);
  long long wake;
  CHECK_INT(bt_sched_list(S, b, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 17);
  int thinks = 0;
  for (long long t = 3; t <= 31; t++) {
    tick(t);
    thinks += thought[b];
    if (t == 17) CHECK_INT(thought[b], 1);
  }
  /* at 17 it waits again until 32; the stale bucket of 31 wakes it early, as in Don't Starve */
  CHECK_INT(thinks, 2);
  CHECK_INT(thought[b], 1);
}

/* RemoveInstance takes a brain out of every list; Stop from inside its think leaves it out. */
static void stop_self(int b) {
  if (b == 0) bt_sched_remove(S, b);
}

static void test_remove(void) {
  reset();
  int a = new_brain(), b = new_brain();
  bt_sched_add(S, a);
  bt_sched_add(S, b);
  sleep_of[a] = sleep_of[b] = 1;
  during_think = stop_self;
  tick(1);
  CHECK_INT(thought[a], 1);
  CHECK_INT(bt_sched_list(S, a, NULL), BT_SCHED_NONE); /* its sleep did not re-file it */
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_WAITING);
  bt_sched_remove(S, b);
  for (long long t = 2; t < 60; t++) tick(t);
  CHECK_INT(total[a], 1);
  CHECK_INT(total[b], 1);
  bt_sched_stats st;
  bt_sched_stats_get(S, &st);
  CHECK_INT(st.registered, 0);
  CHECK_INT(st.thinks, 2);
}

/* Brains added during a tick think from the next one; a brain removed by another during the
 * tick still thinks in it (it was in the snapshot), unless its id was freed. */
static int added = -1, victim = -1, freed = -1;
static void meddle(int b) {
  if (b != 0) return;
  if (added >= 0) bt_sched_add(S, added);
  if (victim >= 0) bt_sched_remove(S, victim);
  if (freed >= 0) bt_sched_brain_free(S, freed);
}

static void test_changes_during_tick(void) {
  reset();
  int a = new_brain(), b = new_brain(), c = new_brain(), d = new_brain();
  bt_sched_add(S, a); /* first in the snapshot */
  bt_sched_add(S, b);
  bt_sched_add(S, c);
  added = d;
  victim = b;
  freed = c;
  during_think = meddle;
  tick(1);
  CHECK_INT(thought[a], 1);
  CHECK_INT(thought[b], 1); /* removed after the snapshot: thinks anyway */
  CHECK_INT(thought[c], 0); /* freed: skipped */
  CHECK_INT(thought[d], 0); /* added: next tick */
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_NONE);
  added = victim = freed = -1;
  tick(2);
  CHECK_INT(thought[d], 1);
  CHECK_INT(thought[b], 0);
}

/* From a hook of a serial frame the tick time and the policy change as before workers existed;
 * the workers cannot (a frame is under way). */
static int settings_rc[3];
static void change_settings(int b) {
  if (b != 0) return;
  settings_rc[0] = bt_sched_set_tick_time(S, 1.0 / 30);
  settings_rc[1] = bt_sched_set_policy(S, BT_SCHED_DS);
  settings_rc[2] = bt_sched_set_threads(S, 2);
}

static void test_settings_during_tick(void) {
  reset();
  int a = new_brain();
  bt_sched_add(S, a);
  during_think = change_settings;
  tick(1);
  during_think = NULL;
  CHECK_INT(thought[a], 1);
  CHECK_INT(settings_rc[0], BT_OK);
  CHECK_INT(settings_rc[1], BT_OK);
  CHECK_INT(settings_rc[2], BT_EBUSY);
  CHECK_INT(bt_sched_threads(S), 0);
}

/* A freed id is reused; the old brain's bucket entry does not wake the new one. */
static void test_reuse(void) {
  reset();
  int a = new_brain();
  bt_sched_add(S, a);
  sleep_of[a] = 1; /* waits for 31 */
  tick(1);
  bt_sched_brain_free(S, a);
  int b = new_brain();
  CHECK_INT(b, a);
  bt_sched_add(S, b);
  sleep_of[b] = 10;
  tick(2); /* waits for 302 */
  CHECK_INT(thought[b], 1);
  int before = total[b]; /* the same slot counted the freed brain's think at 1 */
  for (long long t = 3; t <= 40; t++) tick(t);
  CHECK_INT(total[b], before);
}

/* Fixed rate: never hibernates, thinks at least once per period. */
static void test_fixed_rate(void) {
  reset();
  CHECK_INT(bt_sched_set_policy(S, BT_SCHED_FIXED_RATE), BT_OK);
  CHECK_INT(bt_sched_set_policy(S, 7), BT_EINVAL);
  int a = new_brain(), b = new_brain();
  bt_sched_set_period(S, a, 0.5);
  bt_sched_add(S, a);
  bt_sched_add(S, b);
  has_sleep[a] = 0; /* would hibernate */
  sleep_of[b] = 10; has_sleep[b] = 0; /* no period: thinks every tick */
  tick(1);
  long long wake;
  CHECK_INT(bt_sched_list(S, a, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 16);
  CHECK_INT(bt_sched_list(S, b, NULL), BT_SCHED_UPDATING);
  has_sleep[a] = 1;
  sleep_of[a] = 5; /* longer than its period */
  tick(16);
  CHECK_INT(bt_sched_list(S, a, &wake), BT_SCHED_WAITING);
  CHECK_INT(wake, 31);
}

/* A frame's work follows the due brains: a million sleeping brains are not visited. */
static int visits;
static int count_ready(void *ud, int b) {
  (void)ud;
  (void)b;
  visits++;
  return 1;
}

static int count_think(void *ud, int b, double *sleep) {
  (void)ud;
  (void)b;
  *sleep = 0;
  return 1;
}

static void test_cost_follows_due(void) {
  reset();
  enum { N = 200000 };
  for (int i = 0; i < N; i++) {
    int b = bt_sched_brain_create(S);
    bt_sched_add(S, b);
    bt_sched_sleep(S, b, 1000); /* registered, waiting far away: never due here */
  }
  /* still updaters until a tick files them: sleep outside update acts on registered brains */
  bt_sched_stats st;
  bt_sched_stats_get(S, &st);
  CHECK_INT(st.waiting, N);
  CHECK_INT(st.updating, 0);
  int due = bt_sched_brain_create(S);
  bt_sched_add(S, due);
  bt_sched_hooks counting = {count_ready, count_think, NULL};
  visits = 0;
  for (long long t = 1; t <= 100; t++) bt_sched_update(S, t, &counting);
  CHECK_INT(visits, 100); /* only the due brain, every tick */
  bt_sched_stats_get(S, &st);
  CHECK_INT(st.registered, N + 1);
}

static void test_errors(void) {
  bt_sched *s;
  CHECK_INT(bt_sched_create(&s, 0), BT_EINVAL);
  CHECK_INT(bt_sched_create(&s, -1), BT_EINVAL);
  CHECK_INT(bt_sched_create(&s, 0.1), BT_OK);
  CHECK_INT(bt_sched_add(s, 0), BT_EINVAL);
  CHECK_INT(bt_sched_update(NULL, 1, NULL), BT_EINVAL);
  CHECK_INT(bt_sched_update(s, 1, NULL), BT_OK); /* no hooks: the instances think (none here) */
  CHECK_INT(bt_sched_set_tick_time(s, 0), BT_EINVAL);
  CHECK_INT(bt_sched_set_tick_time(s, 0.05), BT_OK);
  CHECK_NUM(bt_sched_tick_time(s), 0.05);
  int b = bt_sched_brain_create(s);
  CHECK_INT(bt_sched_set_period(s, b, -1), BT_EINVAL);
  CHECK_INT(bt_sched_brain_free(s, b), BT_OK);
  CHECK_INT(bt_sched_brain_free(s, b), BT_EINVAL);
  bt_sched_free(s);
}

int main(void) {
  test_sleep_ticks();
  test_sleep_call();
  test_ready();
  test_add_while_waiting();
  test_remove();
  test_changes_during_tick();
  test_settings_during_tick();
  test_reuse();
  test_fixed_rate();
  test_cost_follows_due();
  test_errors();
  bt_sched_free(S);
  return check_report("test_sched");
}
