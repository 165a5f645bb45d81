/* SPDX-License-Identifier: MIT */
/*
 * bench_sched.c: the brain scheduler's cost per frame for 1,000 due brains among 1,000, 100,000
 * and 1,000,000 registered ones. Every brain sleeps so that exactly 1,000 are due each tick
 * (with 1,000 registered, all of them poll every tick); a think does nothing but answer its
 * sleep time, so the figures are the scheduler's own cost.
 *
 *   bench_sched [frames]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt.h"

#define TICK (1.0 / 30)
#define DUE 1000

static double sleep_seconds; /* every brain's sleep after a think */
static long long thinks;

static int think(void *ud, int brain, double *sleep) {
  (void)ud;
  (void)brain;
  thinks++;
  *sleep = sleep_seconds;
  return 1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(int registered, int frames) {
  bt_sched *s;
  if (bt_sched_create(&s, TICK) != BT_OK) return 1;
  int period = registered / DUE; /* ticks between two thinks of one brain */
  sleep_seconds = period > 1 ? period * TICK : 0;
  /* stagger: brain i first thinks at tick 1 + i % period, so DUE brains are due each tick */
  for (int i = 0; i < registered; i++) {
    int b = bt_sched_brain_create(s);
    if (b < 0 || bt_sched_add(s, b) != BT_OK) return 1;
    if (period > 1 && i % period) bt_sched_sleep(s, b, (i % period) * TICK);
  }
  bt_sched_hooks hooks = {NULL, think, NULL};
  long long tick = 0;
  for (int f = 0; f < 2 * period + 10; f++) bt_sched_update(s, ++tick, &hooks); /* warm up */
  thinks = 0;
  double t0 = now();
  for (int f = 0; f < frames; f++) bt_sched_update(s, ++tick, &hooks);
  double dt = now() - t0;
  bt_sched_stats st;
  bt_sched_stats_get(s, &st);
  printf("%10d  %8.0f  %11.0f  %13.1f  %9d  %7d\n", registered, (double)thinks / frames,
         dt / frames * 1e9, dt / (double)thinks * 1e9, st.waiting, st.updating);
  bt_sched_free(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--help")) {
    printf("usage: bench_sched [FRAMES]\n\n"
           "The scheduler's cost per frame with 1,000, 100,000 and 1,000,000 registered brains, of\n"
           "which 1,000 are due each frame (FRAMES frames, default 3000; docs/scheduler.md).\n");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("bench_sched (bt) %s\n", BT_VERSION);
    return 0;
  }
  int frames = argc > 1 ? atoi(argv[1]) : 3000;
  if (frames <= 0) {
    fprintf(stderr, "bench_sched: frames must be a positive number\n");
    return 2;
  }
  printf("scheduler cost per frame (%d frames; each think only answers its sleep time)\n", frames);
  printf("%10s  %8s  %11s  %13s  %9s  %7s\n", "registered", "due", "ns/frame", "ns/due brain",
         "waiting", "polling");
  int sizes[] = {1000, 100000, 1000000};
  for (int i = 0; i < 3; i++)
    if (run(sizes[i], frames)) {
      fprintf(stderr, "bench_sched: out of memory at %d brains\n", sizes[i]);
      return 1;
    }
  return 0;
}
