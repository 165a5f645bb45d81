/* SPDX-License-Identifier: MIT */
/*
 * bench_rec: what the transition recorder (src/core/rec.c) costs a think, on bench/brains.lua's
 * brains.small with C leaves (bench_cleaf's 40-node brain), in one run: the core with the
 * recorder compiled out (bench_rec_norec, the same program built on a core made with
 * BT_RECORDER=0, which bench_rec runs and reads), compiled in and off, and on, every agent
 * recorded into a ring buffer of its own, or feeding one bt_stats through a recorder of capacity 0
 * (run-time statistics, src/core/stats.c). Figures are printed, never asserted.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "brain_text.h"
#include "bt.h"


typedef struct agent {
  unsigned char field[64];
} agent;

static double frame_time;
static uint64_t rng_state = 1;

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int condition(bt_call *c) { return ((agent *)bt_inst_agent(c->inst))->field[(size_t)c->ud]; }
static int action(bt_call *c) { return ((agent *)bt_inst_agent(c->inst))->field[(size_t)c->ud] || 1; }
static double host_now(void *d) {
  (void)d;
  return frame_time;
}
static double host_random(void *d) {
  (void)d;
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static const bt_host host = {host_now, host_random, NULL, NULL};

/* A think as a scheduler makes it: the update, then the sleep time it asks for (the recorder
 * takes the think's record then, with that time). */
static double slept;
static void think(bt_inst *in) {
  double t;
  bt_inst_update(in);
  if (bt_inst_sleep_time(in, &t)) slept += t;
}

/* ns per think of `frames` frames (after 30 to warm up) of n agents, fastest fifth; ring > 0:
 * each agent records into a ring of that many records; st: each agent's recorder (of capacity
 * `ring`, 0 or not) feeds st. Records per think in *per_think. */
static double run(bt_def *def, agent *agents, int n, int frames, size_t ring, bt_stats *st, double *per_think) {
  bt_inst **in = calloc((size_t)n, sizeof *in);
  bt_rec **rec = calloc((size_t)n, sizeof *rec);
  if (!in || !rec) exit(1);
  rng_state = 1;
  for (int i = 0; i < n; i++) {
    if (bt_inst_create(&in[i], def, &host, &agents[i], 0) != BT_OK) exit(1);
    if ((ring || st) && (bt_rec_create(&rec[i], ring) != BT_OK || bt_inst_set_recorder(in[i], rec[i]) != BT_OK ||
                         bt_rec_set_stats(rec[i], st) != BT_OK)) {
      fprintf(stderr, "bench_rec: cannot attach a recorder\n");
      exit(1);
    }
  }
  int f = 0;
  for (; f < 30; f++) {
    frame_time = (f + 1) / 30.0;
    for (int i = 0; i < n; i++) think(in[i]);
  }
  double best = 1e300;
  int per = frames / 5;
  for (int part = 0; part < 5; part++) {
    double t0 = wall();
    for (int end = f + per; f < end; f++) {
      frame_time = (f + 1) / 30.0;
      for (int i = 0; i < n; i++) think(in[i]);
    }
    double t = wall() - t0;
    if (t < best) best = t;
  }
  double total = 0;
  for (int i = 0; i < n; i++) {
    if (rec[i]) total += (double)bt_rec_total(rec[i]);
    bt_rec_free(rec[i]);
    bt_inst_free(in[i]);
  }
  if (per_think) *per_think = total / ((double)n * f);
  free(in);
  free(rec);
  return best / ((double)n * per) * 1e9;
}

int main(int argc, char **argv) {
  int agents = 10000, frames = 300, rounds = 5, measure = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      printf("usage: bench_rec [--agents N] [--frames N] [--rounds N]\n\n"
             "What the transition recorder costs a think: compiled out, compiled in and off, and\n"
             "on into ring buffers, on the 40-node brain with C leaves (docs/performance.md).\n");
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      printf("bench_rec (bt) %s\n", BT_VERSION);
      return 0;
    }
    if (!strcmp(argv[i], "--measure")) { /* one figure, for bench_rec to read from bench_rec_norec */
      measure = 1;
      continue;
    }
    int *dst = !strcmp(argv[i], "--agents") ? &agents : !strcmp(argv[i], "--frames") ? &frames
             : !strcmp(argv[i], "--rounds") ? &rounds : NULL;
    if (!dst || i + 1 >= argc || (*dst = atoi(argv[++i])) < 1 || (dst == &frames && *dst < 5)) {
      fprintf(stderr, "bench_rec: bad argument '%s' (--help)\n", argv[i]);
      return 2;
    }
  }
  brain b;
  bt_graph *g;
  bt_def *def = NULL;
  if (brain_read(&b, brain_small) || bt_graph_new(&g) != BT_OK || brain_graph(&b, g, condition, action) ||
      bt_def_create(&def, g, b.root) != BT_OK)
    return 1;
  bt_graph_free(g);
  agent *ag = calloc((size_t)agents, sizeof *ag);
  if (!ag) return 1;
  int idle = brain_field(&b, "idle"), calm = brain_field(&b, "calm");
  for (int i = 0; i < agents; i++) ag[i].field[idle] = ag[i].field[calm] = 1;

  if (measure) {
    double best = 1e300;
    for (int r = 0; r < rounds; r++) {
      double ns = run(def, ag, agents, frames, 0, NULL, NULL);
      if (ns < best) best = ns;
    }
    printf("%.3f\n", best);
    return 0;
  }
  /* the reference: this program built on a core without the recorder, next to this one */
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s_norec' --measure --agents %d --frames %d --rounds 1", argv[0], agents, frames);
  double out = 1e300, off = 1e300, on = 1e300, counted = 1e300, per = 0;
  bt_stats *st = NULL;
  if (bt_stats_create(&st) != BT_OK) return 1;
  for (int r = 0; r < rounds; r++) {
    FILE *p = popen(cmd, "r");
    double v;
    if (p && fscanf(p, "%lf", &v) == 1 && v < out) out = v;
    if (p) pclose(p);
    double ns = run(def, ag, agents, frames, 0, NULL, NULL);
    if (ns < off) off = ns;
    ns = run(def, ag, agents, frames, 256, NULL, &per);
    if (ns < on) on = ns;
    ns = run(def, ag, agents, frames, 0, st, NULL);
    if (ns < counted) counted = ns;
  }
  printf("the transition recorder: %d agents of the 40-node brain with C leaves, %d frames at 30 Hz, "
         "fastest of %d rounds\n", agents, frames, rounds);
  if (out < 1e300)
    printf("  compiled out (BT_RECORDER=0)  %8.1f ns/think  (reference)\n", out);
  else
    printf("  compiled out (BT_RECORDER=0)  not measured: %s_norec did not run\n", argv[0]);
  printf("  compiled in, off              %8.1f ns/think  %+.1f%%\n", off, out < 1e300 ? (off / out - 1) * 100 : 0);
  printf("  on, a ring of 256 per agent   %8.1f ns/think  %+.1f%%  (%.1f records a think)\n", on,
         out < 1e300 ? (on / out - 1) * 100 : 0, per);
  printf("  on, statistics, no ring       %8.1f ns/think  %+.1f%%  (one bt_stats for every agent)\n", counted,
         out < 1e300 ? (counted / out - 1) * 100 : 0);
  bt_stats_free(st);
  bt_def_release(def);
  free(ag);
  return 0;
}
