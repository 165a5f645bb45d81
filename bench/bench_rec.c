/* SPDX-License-Identifier: MIT */
/*
 * bench_rec: what the transition recorder (src/record/rec.c) costs a think, on bench/brains.lua's
 * brains.small with C leaves (bench_cleaf's 40-node brain), in one run: the core with the
 * recorder compiled out (bench_rec_norec, the same program built on a core made with
 * BT_RECORDER=0, which bench_rec runs and reads), compiled in and off, and on, every agent
 * recorded into a ring buffer of its own, or into a log file (src/record/log.c) flushed at each
 * frame's end, on this thread or on the log's own. Then a world whose agents' conditions change
 * and whose brains think when their sleep times say, recorded into a log: the bytes a transition
 * takes on disk, and how fast a bt_log_reader reads that log back. Figures are printed, never
 * asserted.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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

/* Where a run's records go. */
enum { TO_NOTHING, TO_RING, TO_LOG, TO_LOG_THREAD, TO_NO_SINK, TO_STATS };

static bt_stats *stats_sink; /* TO_STATS: every agent's recorder (of capacity 0) feeds it */

static const char *log_path; /* the log file the runs write (removed at the end) */

static bt_log *open_log(unsigned flags) {
  bt_log *log = NULL;
  char err[256];
  if (bt_log_create(&log, log_path, flags, err, sizeof err) != BT_OK) {
    fprintf(stderr, "bench_rec: %s\n", err);
    exit(1);
  }
  return log;
}

/* ns per think of `frames` frames (after 30 to warm up) of n agents, fastest fifth, a log flushed
 * at each frame's end counted in; with TO_RING each agent records into a ring of 256 records, with
 * TO_LOG into the log file, with TO_STATS into run-time statistics (stats_sink). Records per think
 * in *per_think, the log's figures in *st. */
static double run(bt_def *def, agent *agents, int n, int frames, int to, double *per_think, bt_log_stats *st) {
  bt_inst **in = calloc((size_t)n, sizeof *in);
  bt_rec **rec = calloc((size_t)n, sizeof *rec);
  if (!in || !rec) exit(1);
  rng_state = 1;
  bt_log *log = to == TO_LOG || to == TO_LOG_THREAD ? open_log(to == TO_LOG_THREAD ? BT_LOG_THREAD : 0) : NULL;
  for (int i = 0; i < n; i++) {
    if (bt_inst_create(&in[i], def, &host, &agents[i], 0) != BT_OK) exit(1);
    if (to != TO_NOTHING && (bt_rec_create(&rec[i], to == TO_RING ? 256 : 0) != BT_OK ||
                             bt_rec_set_agent(rec[i], (unsigned long long)i, NULL) != BT_OK ||
                             (log && bt_rec_set_log(rec[i], log) != BT_OK) ||
                             (to == TO_STATS && bt_rec_set_stats(rec[i], stats_sink) != BT_OK) ||
                             bt_inst_set_recorder(in[i], rec[i]) != BT_OK)) {
      fprintf(stderr, "bench_rec: cannot attach a recorder\n");
      exit(1);
    }
  }
  int f = 0;
  for (; f < 30; f++) {
    frame_time = (f + 1) / 30.0;
    for (int i = 0; i < n; i++) think(in[i]);
    if (log) bt_log_flush(log);
  }
  double best = 1e300;
  int per = frames / 5;
  for (int part = 0; part < 5; part++) {
    double t0 = wall();
    for (int end = f + per; f < end; f++) {
      frame_time = (f + 1) / 30.0;
      for (int i = 0; i < n; i++) think(in[i]);
      if (log && bt_log_flush(log) != BT_OK) {
        fprintf(stderr, "bench_rec: %s\n", bt_log_errmsg(log));
        exit(1);
      }
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
  if (log) {
    bt_log_flush(log);
    if (st) bt_log_stats_get(log, st);
    if (bt_log_free(log) != BT_OK) exit(1);
  }
  if (per_think) *per_think = total / ((double)n * f);
  free(in);
  free(rec);
  return best / ((double)n * per) * 1e9;
}

/* ---- a world: conditions that change, brains that think when their sleep times say ---- */

typedef struct world {
  bt_inst **in;
  agent *agents;
  const brain *b;
} world;

static int world_think(void *ud, int id, double *sleep) {
  world *w = ud;
  bt_inst_update(w->in[id]);
  return bt_inst_sleep_time(w->in[id], sleep);
}

static uint64_t world_rng = 7;
static unsigned world_rand(unsigned n) {
  world_rng = world_rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(world_rng >> 33) % n;
}

/* Runs n agents for `frames` frames at 30 Hz under the scheduler, each frame flipping a condition
 * of one agent in 20 (scared, hungry, night, ...) and waking it, as a world's events would; every
 * agent recorded into a log at path. The log's figures in *st, thinks in *thinks. */
static void run_world(bt_def *def, const brain *b, int n, int frames, unsigned flags, bt_log_stats *st,
                      long long *thinks) {
  world w = {calloc((size_t)n, sizeof(bt_inst *)), calloc((size_t)n, sizeof(agent)), b};
  bt_rec **rec = calloc((size_t)n, sizeof *rec);
  bt_sched *s = NULL;
  if (!w.in || !w.agents || !rec || bt_sched_create(&s, 1.0 / 30) != BT_OK) exit(1);
  bt_log *log = open_log(flags);
  int idle = brain_field(b, "idle"), calm = brain_field(b, "calm");
  rng_state = 1;
  world_rng = 7;
  for (int i = 0; i < n; i++) {
    w.agents[i].field[idle] = w.agents[i].field[calm] = 1;
    if (bt_inst_create(&w.in[i], def, &host, &w.agents[i], 0) != BT_OK || bt_rec_create(&rec[i], 0) != BT_OK ||
        bt_rec_set_agent(rec[i], (unsigned long long)i, NULL) != BT_OK || bt_rec_set_log(rec[i], log) != BT_OK ||
        bt_inst_set_recorder(w.in[i], rec[i]) != BT_OK || bt_sched_brain_create(s) != i || bt_sched_add(s, i) != BT_OK)
      exit(1);
  }
  bt_sched_hooks hooks = {NULL, world_think, &w};
  for (int f = 1; f <= frames; f++) {
    frame_time = f / 30.0;
    for (int k = 0; k < n / 20; k++) {
      int i = (int)world_rand((unsigned)n), field = (int)world_rand((unsigned)b->nfields);
      w.agents[i].field[field] ^= 1;
      bt_sched_wake(s, i);
    }
    bt_sched_update(s, f, &hooks);
    bt_log_flush(log);
  }
  bt_sched_stats ss;
  bt_sched_stats_get(s, &ss);
  *thinks = ss.thinks;
  for (int i = 0; i < n; i++) {
    bt_rec_free(rec[i]);
    bt_inst_free(w.in[i]);
  }
  bt_log_flush(log);
  bt_log_stats_get(log, st);
  if (bt_log_free(log) != BT_OK) exit(1);
  bt_sched_free(s);
  free(w.in);
  free(w.agents);
  free(rec);
}

/* Reads the log at path to its end: records read and the seconds it took (fastest of 3). */
static double read_log(long long *records) {
  double best = 1e300;
  for (int round = 0; round < 3; round++) {
    bt_log_reader *r = NULL;
    char err[256];
    if (bt_log_reader_create_file(&r, log_path, err, sizeof err) != BT_OK) {
      fprintf(stderr, "bench_rec: %s\n", err);
      exit(1);
    }
    bt_log_record rec;
    long long n = 0;
    double t0 = wall();
    while (bt_log_read(r, &rec) == 1) n++;
    double t = wall() - t0;
    if (bt_log_reader_where(r, NULL) != BT_LOG_ENDED) {
      fprintf(stderr, "bench_rec: the log did not read to its end: %s\n", bt_log_reader_errmsg(r));
      exit(1);
    }
    bt_log_reader_free(r);
    if (t < best) best = t;
    *records = n;
  }
  return best;
}

/* The index of --only's value in argv. */
static int i_only(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--only")) return i + 1;
  return 0;
}

int main(int argc, char **argv) {
  int agents = 10000, frames = 300, rounds = 5, measure = 0, only = -1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      printf("usage: bench_rec [--agents N] [--frames N] [--rounds N] [--only off|ring|log|thread|nosink|stats]\n\n"
             "What the transition recorder costs a think: compiled out, compiled in and off, and\n"
             "on into ring buffers or a log file, on the 40-node brain with C leaves; the bytes a\n"
             "transition takes in the log of a world, and how fast the log reads back\n"
             "(docs/performance.md). The log is written to $TMPDIR (default /tmp) and removed.\n"
             "--only runs one of the rows, for a profiler, and prints its figure alone.\n");
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
    if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      static const char *const rows[] = {"off", "ring", "log", "thread", "nosink", "stats"};
      for (int k = 0; k < 6; k++)
        if (!strcmp(argv[i + 1], rows[k])) only = k;
      if (only < 0) {
        fprintf(stderr, "bench_rec: bad argument '%s' (--help)\n", argv[i + 1]);
        return 2;
      }
      i++;
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
  if (brain_read(&b, brain_small) || bt_graph_create(&g) != BT_OK || brain_graph(&b, g, condition, action) ||
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
      double ns = run(def, ag, agents, frames, TO_NOTHING, NULL, NULL);
      if (ns < best) best = ns;
    }
    printf("%.3f\n", best);
    return 0;
  }
  char path[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/bench_rec_%ld.btlog", tmp && *tmp ? tmp : "/tmp", (long)getpid());
  log_path = path;
  if (bt_stats_create(&stats_sink) != BT_OK) return 1;
  if (only >= 0) {
    double best = 1e300, per = 0;
    for (int r = 0; r < rounds; r++) {
      double ns = run(def, ag, agents, frames, only, &per, NULL);
      if (ns < best) best = ns;
    }
    printf("%s: %.1f ns/think (%.1f records a think)\n", argv[i_only(argc, argv)], best, per);
    remove(path);
    return 0;
  }
  /* the reference: this program built on a core without the recorder, next to this one */
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s_norec' --measure --agents %d --frames %d --rounds 1", argv[0], agents, frames);
  double out = 1e300, off = 1e300, on = 1e300, logged = 1e300, threaded = 1e300, counted = 1e300, per = 0,
         per_log = 0;
  bt_log_stats st = {0};
  for (int r = 0; r < rounds; r++) {
    FILE *p = popen(cmd, "r");
    double v;
    if (p && fscanf(p, "%lf", &v) == 1 && v < out) out = v;
    if (p) pclose(p);
    double ns = run(def, ag, agents, frames, TO_NOTHING, NULL, NULL);
    if (ns < off) off = ns;
    ns = run(def, ag, agents, frames, TO_RING, &per, NULL);
    if (ns < on) on = ns;
    ns = run(def, ag, agents, frames, TO_LOG, &per_log, &st);
    if (ns < logged) logged = ns;
    ns = run(def, ag, agents, frames, TO_LOG_THREAD, NULL, NULL);
    if (ns < threaded) threaded = ns;
    ns = run(def, ag, agents, frames, TO_STATS, NULL, NULL);
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
  printf("  on, into a log file           %8.1f ns/think  %+.1f%%  (flushed each frame; %.2f bytes a record)\n",
         logged, out < 1e300 ? (logged / out - 1) * 100 : 0, st.records ? (double)st.bytes / (double)st.records : 0);
  printf("  on, into a log file, thread   %8.1f ns/think  %+.1f%%  (BT_LOG_THREAD: encoded and written on another)\n",
         threaded, out < 1e300 ? (threaded / out - 1) * 100 : 0);
  printf("  on, statistics, no ring       %8.1f ns/think  %+.1f%%  (one bt_stats for every agent)\n", counted,
         out < 1e300 ? (counted / out - 1) * 100 : 0);
  /* the world, into a log; then the log read back */
  int world_frames = frames < 900 ? 900 : frames;
  long long thinks = 0, records = 0;
  run_world(def, &b, agents, world_frames, 0, &st, &thinks);
  double secs = read_log(&records);
  printf("a world of %d agents for %.0f s at 30 Hz under the scheduler, conditions changing, into a log:\n",
         agents, world_frames / 30.0);
  printf("  %lld thinks, %llu records (%.2f a think, %llu transitions), %llu bytes: "
         "%.2f bytes a transition, %.2f a record\n",
         thinks, st.records, (double)st.records / (double)thinks, st.statuses, st.bytes,
         (double)st.bytes / (double)st.statuses, (double)st.bytes / (double)st.records);
  printf("  read back by bt_log_reader: %lld records in %.3f s, %.1f million records a second\n", records, secs,
         (double)records / secs / 1e6);
  run_world(def, &b, agents, world_frames, BT_LOG_DBSTRINGS, &st, &thinks);
  printf("  with BT_LOG_DBSTRINGS (each think's DBStrings and sleep times): %llu bytes, %.2f a transition\n",
         st.bytes, (double)st.bytes / (double)st.statuses);
  remove(path);
  bt_def_release(def);
  free(ag);
  return 0;
}
