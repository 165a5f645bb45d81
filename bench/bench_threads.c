/* SPDX-License-Identifier: MIT */
/*
 * bench_threads.c: the scheduler (bt_sched) on workers, 1, 2, ... N threads, next to the serial
 * scheduler (the same, with no workers), with C leaves. Run by `make bench`, or:
 *
 *   bench_threads [--agents N] [--frames N] [--rounds N] [--threads N]
 *
 * Four scenarios, each with --agents agents (default 10,000) sharing one definition; in the
 * first three every agent thinks every frame (the think hook asks the tree for its sleep time,
 * as a host does, and keeps the brain among the updaters):
 *
 *   8 nodes    bench_cleaf's 8-node tree, which finishes at every think;
 *   40 nodes   bench/brains.lua's brains.small, whose idle branch runs;
 *   40 + wakes the same brain, whose idle leaf also wakes another agent every tenth think: a
 *              command queued by a worker and applied in the serial phase;
 *   40 sleeps  the same brain filed by the sleep time its tree asks for, as a game's brains are:
 *              fewer brains are due each frame, and each due brain is taken out of its tick's
 *              bucket and filed into another in the serial phase.
 *
 * The serial scheduler thinks them with bt_sched_update; the one on workers with the three calls
 * of bt_sched_update (bt_sched_frame_begin, the batches on a bt_pool of T threads, the caller
 * included, through bt_pool_run, bt_sched_frame_end), timed apart. Printed per scenario and
 * thread count: thinks per second in the think phase (the batches), frames per second (the
 * whole frame), the serial phases' shares of a frame (begin: commands from outside and the due
 * list; end, the apply phase: filing every brain and the commands its leaves queued), and the think phase's
 * throughput against one thread's in the same run. Each run's frames are cut into five parts
 * and the fastest part counts; the fastest of --rounds rounds is printed. Afterwards the state
 * of every agent (its tree's bytes and its scheduler list) must be the same on every thread
 * count (and, without commands between agents, as with the serial scheduler); the program says
 * so, or exits with status 1.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brain_text.h"
#include "bt.h"

#define MAX_FIELDS 64
#define WARM 30
#define PARTS 5
#define NSCENARIOS 4

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char TREE8[] =
    "(Selector (Sequence (Condition c1) (Action a1)) (Sequence (Condition c2) (Action a2))"
    " (Action a3))";

/* ---- agents and leaves: each reads and writes its own agent only ---- */

typedef struct agent {
  unsigned char field[MAX_FIELDS];
  int index, brain;
  unsigned calls; /* its idle leaf's calls */
  bt_inst *inst;
} agent;

static double frame_time; /* set between frames, read by every worker */
static int wakes;         /* the idle leaf wakes another agent every tenth call */
static int sleeps;        /* brains are filed by their trees' sleep times */
static agent *agents;
static int nagents;
static bt_sched *serial; /* the one running, if serial */
static bt_sched *threaded;

static int leaf_condition(bt_call *call) {
  const agent *a = bt_inst_agent(call->inst);
  return a->field[(size_t)call->ud];
}

static int leaf_action(bt_call *call) {
  agent *a = bt_inst_agent(call->inst);
  if (wakes && ++a->calls % 10 == 0) {
    int other = agents[(a->index * 7 + 1) % nagents].brain; /* read only during a frame */
    if (threaded) bt_sched_wake(threaded, other);
    else bt_sched_wake(serial, other);
  }
  return a->field[(size_t)call->ud] || 1;
}

static double host_now(void *data) {
  (void)data;
  return frame_time;
}
/* random numbers: each instance's own generator, seeded with its agent's index */
static const bt_host host = {host_now, NULL, NULL, NULL};

/* every agent thinks every frame (its sleep time asked for, and 0 given back), or as its tree
 * asks */
static int think(bt_inst *inst, double *sleep) {
  bt_inst_update(inst);
  double s;
  int has = bt_inst_sleep_time(inst, &s);
  if (sleeps) {
    *sleep = s;
    return has;
  }
  *sleep = 0;
  return 1;
}
static int serial_think(void *ud, int brain, double *sleep) {
  (void)ud;
  return think(agents[brain].inst, sleep);
}
static const bt_sched_hooks serial_hooks = {NULL, serial_think, NULL};
static const bt_sched_hooks threaded_hooks = {NULL, serial_think, NULL}; /* brain == agent */

/* ---- scenarios ---- */

typedef struct scenario {
  const char *name;
  brain b;
  bt_def *def;
  int wakes, sleeps;
} scenario;

static int build(scenario *sc, const char *name, const char *text, int with_wakes, int with_sleeps) {
  sc->name = name;
  sc->wakes = with_wakes;
  sc->sleeps = with_sleeps;
  if (brain_read(&sc->b, text) || sc->b.nfields > MAX_FIELDS) {
    fprintf(stderr, "bench_threads: %s: %s\n", name, sc->b.error ? sc->b.error : "too many fields");
    return -1;
  }
  bt_graph *g;
  if (bt_graph_create(&g) != BT_OK) return -1;
  int rc = brain_graph(&sc->b, g, leaf_condition, leaf_action) ? BT_EINVAL : bt_def_create(&sc->def, g, sc->b.root);
  if (rc != BT_OK) fprintf(stderr, "bench_threads: %s\n", bt_graph_errmsg(g));
  bt_graph_free(g);
  return rc == BT_OK ? 0 : -1;
}

/* The agents of a run, made alike every time: fields as bench_cleaf sets them, instances seeded
 * with their index. */
static void make_agents(const scenario *sc) {
  int c1 = brain_field(&sc->b, "c1"), c2 = brain_field(&sc->b, "c2");
  int idle = brain_field(&sc->b, "idle"), calm = brain_field(&sc->b, "calm");
  for (int i = 0; i < nagents; i++) {
    agent *a = &agents[i];
    memset(a, 0, sizeof *a);
    a->index = i;
    if (c1 >= 0) {
      a->field[c1] = i % 3 == 0;
      a->field[c2] = i % 3 == 1;
    } else {
      a->field[idle] = a->field[calm] = 1;
    }
    if (bt_inst_create(&a->inst, sc->def, &host, a, BT_INST_NOSCATTER) != BT_OK ||
        bt_inst_seed(a->inst, (unsigned long long)i) != BT_OK || bt_inst_scatter(a->inst) != BT_OK) {
      fprintf(stderr, "bench_threads: out of memory\n");
      exit(1);
    }
  }
}

/* A hash of every agent's state and scheduler list, to compare runs. */
static uint64_t state_hash(void) {
  uint64_t h = 1469598103934665603ULL;
  static unsigned char buf[1 << 14];
  for (int i = 0; i < nagents; i++) {
    const agent *a = &agents[i];
    size_t size = bt_inst_save_size(a->inst);
    if (size > sizeof buf || bt_inst_save(a->inst, buf, size) != BT_OK) return 0;
    long long wake = 0;
    int list = serial ? bt_sched_list(serial, a->brain, &wake) : bt_sched_list(threaded, a->brain, &wake);
    for (size_t k = 0; k < size; k++) h = (h ^ buf[k]) * 1099511628211ULL;
    h = (h ^ (uint64_t)list) * 1099511628211ULL;
    h = (h ^ (uint64_t)wake) * 1099511628211ULL;
    h = (h ^ a->calls) * 1099511628211ULL;
  }
  return h;
}

static void free_agents(void) {
  for (int i = 0; i < nagents; i++) bt_inst_free(agents[i].inst);
}

typedef struct result {
  double per_frame;  /* thinks per frame */
  double think_rate; /* thinks per second of the think phase */
  double fps;        /* frames per second */
  double begin, end; /* the serial phases' shares of a frame */
  uint64_t hash;
} result;

static int opt_frames;

static void run_batch(void *job, int batch) { bt_sched_frame_run(job, batch); }

/* One run: WARM frames, then opt_frames in PARTS parts; the fastest part counts. threads 0: the
 * serial scheduler. */
static result run(const scenario *sc, int threads) {
  result r;
  memset(&r, 0, sizeof r);
  wakes = sc->wakes;
  sleeps = sc->sleeps;
  make_agents(sc);
  bt_pool *pool = NULL;
  if (threads == 0) {
    if (bt_sched_create(&serial, 1.0 / 30) != BT_OK) exit(1);
    for (int i = 0; i < nagents; i++) {
      agents[i].brain = bt_sched_brain_create(serial);
      if (agents[i].brain != i || bt_sched_add(serial, i) != BT_OK) exit(1);
    }
  } else {
    int rc = bt_sched_create(&threaded, 1.0 / 30);
    if (rc == BT_OK) rc = bt_pool_create(&pool, threads);
    if (rc != BT_OK) {
      fprintf(stderr, "bench_threads: %d threads: %s\n", threads, bt_strerror(rc));
      exit(1);
    }
    bt_executor ex;
    bt_pool_executor(pool, &ex);
    bt_sched_set_executor(threaded, &ex); /* for the batch size it chooses */
    for (int i = 0; i < nagents; i++) {
      agents[i].brain = bt_sched_brain_create(threaded);
      if (agents[i].brain != i || bt_sched_set_inst(threaded, i, agents[i].inst) != BT_OK || bt_sched_add(threaded, i) != BT_OK) exit(1);
    }
  }
  int per_part = opt_frames / PARTS, f = 0;
  double best_total = 1e300, best_think = 0, best_begin = 0;
  long long thinks_in_part = 0;
  for (int part = -1; part < PARTS; part++) { /* part -1: the warm-up */
    int frames = part < 0 ? WARM : per_part;
    double total = 0, think_phase = 0, begin_phase = 0;
    long long thinks0 = 0;
    if (threaded) {
      bt_sched_stats st;
      bt_sched_stats_get(threaded, &st);
      thinks0 = st.thinks;
    } else {
      bt_sched_stats st;
      bt_sched_stats_get(serial, &st);
      thinks0 = st.thinks;
    }
    for (int end = f + frames; f < end; f++) {
      frame_time = (f + 1) / 30.0;
      double t0 = wall();
      if (serial) {
        bt_sched_update(serial, f + 1, &serial_hooks);
        double t1 = wall();
        total += t1 - t0;
        think_phase += t1 - t0;
      } else {
        int nb;
        if (bt_sched_frame_begin(threaded, f + 1, &threaded_hooks, &nb) != BT_OK) exit(1);
        double t1 = wall();
        bt_pool_run(pool, nb, run_batch, threaded);
        double t2 = wall();
        if (bt_sched_frame_end(threaded) != BT_OK) exit(1);
        double t3 = wall();
        total += t3 - t0;
        think_phase += t2 - t1;
        begin_phase += t1 - t0;
      }
    }
    long long thinks1;
    if (threaded) {
      bt_sched_stats st;
      bt_sched_stats_get(threaded, &st);
      thinks1 = st.thinks;
    } else {
      bt_sched_stats st;
      bt_sched_stats_get(serial, &st);
      thinks1 = st.thinks;
    }
    if (part >= 0 && total < best_total) {
      best_total = total;
      best_think = think_phase;
      best_begin = begin_phase;
      thinks_in_part = thinks1 - thinks0;
    }
  }
  r.per_frame = (double)thinks_in_part / per_part;
  r.think_rate = (double)thinks_in_part / best_think;
  r.fps = per_part / best_total;
  r.begin = best_begin / best_total;
  r.end = (best_total - best_think - best_begin) / best_total;
  r.hash = state_hash();
  free_agents();
  bt_sched_free(serial);
  serial = NULL;
  bt_sched_free(threaded);
  threaded = NULL;
  bt_pool_free(pool);
  return r;
}

/* ---- what a queued command costs ---- */

#define POSTS 100000

static double leaf_post_ns;

/* A think hook that queues POSTS wakes from the worker (into its batch's queue, no lock). */
static int posting_think(void *ud, int brain, double *sleep) {
  (void)ud;
  double t0 = wall();
  for (int i = 0; i < POSTS; i++) bt_sched_wake(threaded, brain);
  leaf_post_ns = (wall() - t0) / POSTS * 1e9;
  *sleep = 0;
  return 1;
}

static void *post_from_thread(void *arg) {
  double *ns = arg;
  double t0 = wall();
  for (int i = 0; i < POSTS; i++) bt_sched_wake(threaded, 0);
  *ns = (wall() - t0) / POSTS * 1e9;
  return NULL;
}

/* ns per command queued from a leaf, from one other thread, from two at once, and per command
 * applied (a wake), each the fastest of `rounds`. */
static void queue_costs(long rounds, double out[4]) {
  for (int k = 0; k < 4; k++) out[k] = 1e300;
  static agent one;
  for (long r = 0; r < rounds; r++) {
    if (bt_sched_create(&threaded, 1.0 / 30) != BT_OK || bt_sched_set_threads(threaded, 1) != BT_OK) exit(1);
    bt_def *def = NULL;
    bt_graph *g;
    if (bt_graph_create(&g) != BT_OK) exit(1);
    int leaf = bt_graph_add(g, &(bt_spec){.kind = BT_ACTION, .fn = leaf_condition});
    if (leaf < 0 || bt_def_create(&def, g, leaf) != BT_OK) exit(1);
    bt_graph_free(g);
    if (bt_inst_create(&one.inst, def, &host, &one, 0) != BT_OK) exit(1);
    int b = bt_sched_brain_create(threaded);
    if (b != 0 || bt_sched_set_inst(threaded, b, one.inst) != BT_OK || bt_sched_add(threaded, b) != BT_OK) exit(1);
    const bt_sched_hooks hooks = {NULL, posting_think, NULL};
    int nb;
    if (bt_sched_frame_begin(threaded, 1, &hooks, &nb) != BT_OK || nb != 1) exit(1);
    bt_sched_frame_run(threaded, 0);
    double t0 = wall();
    bt_sched_frame_end(threaded); /* applies the POSTS wakes */
    double apply = (wall() - t0) / POSTS * 1e9;
    double one_thread, two[2];
    pthread_t t[2];
    if (pthread_create(&t[0], NULL, post_from_thread, &one_thread)) exit(1);
    pthread_join(t[0], NULL);
    bt_sched_flush(threaded);
    for (int k = 0; k < 2; k++)
      if (pthread_create(&t[k], NULL, post_from_thread, &two[k])) exit(1);
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    bt_sched_flush(threaded);
    double x[4] = {leaf_post_ns, one_thread, (two[0] + two[1]) / 2, apply};
    for (int k = 0; k < 4; k++)
      if (x[k] < out[k]) out[k] = x[k];
    bt_inst_free(one.inst);
    bt_def_release(def);
    bt_sched_free(threaded);
    threaded = NULL;
  }
}

static int usage(const char *flag, const char *value) {
  fprintf(stderr,
          "usage: bench_threads [--agents N] [--frames N] [--rounds N] [--threads N]\n"
          "bad argument: %s %s (agents >= 1, frames >= %d, rounds >= 1, threads 2 to %d)\n",
          flag, value ? value : "", PARTS, BT_POOL_MAX_THREADS);
  return 2;
}

static long parse_count(const char *s, long min, long max) {
  if (!s || !*s) return -1;
  char *end;
  long v = strtol(s, &end, 10);
  return *end || v < min || v > max ? -1 : v;
}

int main(int argc, char **argv) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  long agents_n = 10000, frames = 300, rounds = 3, max_threads = cores > 2 ? cores : 2;
  for (int i = 1; i < argc; i += 2) {
    const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(flag, "--help") && !value) {
      printf("usage: bench_threads [--agents N] [--frames N] [--rounds N] [--threads N]\n\n"
             "The scheduler with C leaves on 1, 2, ... N worker threads (default: the machine's\n"
             "cores, at least 2) next to the serial scheduler: thinks per second in the think\n"
             "phase, frames per second, the serial phases' share (docs/performance.md).\n");
      return 0;
    }
    if (!strcmp(flag, "--version") && !value) {
      printf("bench_threads (bt) %s\n", BT_VERSION);
      return 0;
    }
    long *dst = !strcmp(flag, "--agents") ? &agents_n : !strcmp(flag, "--frames") ? &frames
              : !strcmp(flag, "--rounds") ? &rounds : !strcmp(flag, "--threads") ? &max_threads : NULL;
    long v = parse_count(value, dst == &frames ? PARTS : dst == &max_threads ? 2 : 1,
                         dst == &max_threads ? BT_POOL_MAX_THREADS : 100000000);
    if (!dst || v < 0) return usage(flag, value);
    *dst = v;
  }
  opt_frames = (int)frames;
  nagents = (int)agents_n;
  agents = calloc((size_t)nagents, sizeof *agents);
  static scenario sc[NSCENARIOS];
  if (!agents || build(&sc[0], "8 nodes", TREE8, 0, 0) || build(&sc[1], "40 nodes", brain_small, 0, 0) ||
      build(&sc[2], "40 + wakes", brain_small, 1, 0) || build(&sc[3], "40 sleeps", brain_small, 0, 1))
    return 1;
  int nt = (int)max_threads;
  printf("the scheduler on workers with C leaves: %d agents sharing one definition, each thinking "
         "every frame (but in '40 sleeps', filed by its sleep time); %ld frames after %d to warm up "
         "(fastest fifth timed), fastest of %ld rounds; this machine has %ld cores\n",
         nagents, frames, WARM, rounds, cores);
  /* BEST(s, 0): serial; BEST(s, t): t threads */
  result *best = calloc((size_t)NSCENARIOS * (size_t)(nt + 1), sizeof *best);
  if (!best) return 1;
#define BEST(s, t) best[(size_t)(s) * (size_t)(nt + 1) + (size_t)(t)]
  int bad = 0;
  for (long r = 0; r < rounds; r++)
    for (int s = 0; s < NSCENARIOS; s++)
      for (int t = 0; t <= nt; t++) {
        result x = run(&sc[s], t);
        result *b = &BEST(s, t);
        if (r == 0 || x.think_rate > b->think_rate) {
          uint64_t first = r == 0 ? x.hash : b->hash;
          *b = x;
          b->hash = first;
        }
        if (r > 0 && x.hash != b->hash) bad = 1; /* a round ended otherwise */
      }
  printf("\n%-10s %-12s %12s %16s %10s %10s %7s %13s %12s\n", "tree", "scheduler", "thinks/frame",
         "thinks/s (think)", "frames/s", "x serial", "begin", "end (apply)", "x 1 thread");
  for (int s = 0; s < NSCENARIOS; s++) {
    for (int t = 0; t <= nt; t++) {
      const result *x = &BEST(s, t);
      char who[32];
      if (t == 0) snprintf(who, sizeof who, "bt_sched");
      else snprintf(who, sizeof who, "%d thread%s", t, t > 1 ? "s" : "");
      char begin[16] = "-", share[16] = "-", speed[16] = "-", serial[16];
      snprintf(serial, sizeof serial, "%.2fx", x->fps / BEST(s, 0).fps);
      if (t > 0) {
        snprintf(begin, sizeof begin, "%.1f%%", 100 * x->begin);
        snprintf(share, sizeof share, "%.1f%%", 100 * x->end);
        snprintf(speed, sizeof speed, "%.2fx", x->think_rate / BEST(s, 1).think_rate);
      }
      printf("%-10s %-12s %12.0f %16.0f %10.1f %10s %7s %13s %12s\n", t == 0 ? sc[s].name : "", who,
             x->per_frame, x->think_rate, x->fps, serial, begin, share, speed);
    }
    /* the same states on every thread count, and as the serial scheduler without commands */
    int same = 1;
    for (int t = 2; t <= nt; t++) same &= BEST(s, t).hash == BEST(s, 1).hash;
    int as_serial = BEST(s, 0).hash == BEST(s, 1).hash;
    if (!same || (!sc[s].wakes && !as_serial)) bad = 1;
    printf("%-10s states after the runs: %s on 1 to %d threads%s\n", "", same ? "the same" : "DIFFERENT",
           nt, sc[s].wakes ? " (the serial scheduler applies wakes at once: it differs, as documented)"
                          : as_serial ? ", and as with bt_sched" : ", MISMATCH with bt_sched");
  }
  double q[4];
  queue_costs(rounds, q);
  printf("\nqueueing a command (a wake): from a leaf %.1f ns (its batch's queue, no lock); from another "
         "thread %.1f ns (a mutex), %.1f ns with two threads at once; applying it %.1f ns (the end's "
         "serial phase)\n",
         q[0], q[1], q[2], q[3]);
  printf("\n2 threads against 1, think phase:");
  for (int s = 0; s < NSCENARIOS; s++)
    printf(" %s %.2fx%s", sc[s].name, BEST(s, 2).think_rate / BEST(s, 1).think_rate,
           s < NSCENARIOS - 1 ? "," : "");
  printf(" (target >= 1.80x on 2 cores)\n");
  printf("2 threads against the serial scheduler, whole frames:");
  for (int s = 0; s < NSCENARIOS; s++)
    printf(" %s %.2fx%s", sc[s].name, BEST(s, 2).fps / BEST(s, 0).fps, s < NSCENARIOS - 1 ? "," : "\n");
  for (int s = 0; s < NSCENARIOS; s++) {
    bt_def_release(sc[s].def);
    brain_free(&sc[s].b);
  }
#undef BEST
  free(best);
  free(agents);
  if (bad) fprintf(stderr, "bench_threads: results differ between runs\n");
  return bad;
}
