/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c: the worker pool (bt_pool_*) and the scheduler on workers (bt_sched_*).
 *
 * The heart of it is a scripted world whose leaves do what the threaded mode allows: they read
 * and write their own agent, read data shared by all (food, the other agents' brain ids) that
 * only the serial phase writes, and change everything else through the scheduler: events, wakes,
 * force updates, sleeps, commands of the host's own that eat food, make agents and bury them.
 * Its random numbers come from each instance's own generator, seeded with the agent's number.
 * It runs with 1, 2, 3 and 4 workers, with batches of several sizes, through a job system of the
 * host's, through the three-call frame, and through an executor that fails half way; after every
 * frame each agent's whole state (its tree's bytes, its fields, its list and wake tick, its
 * recorder's records) and the scheduler's counts are written to a trace, and every run's trace
 * must equal the first run's byte for byte.
 *
 * The same world runs through the deprecated names (bt_tsched_*, whose hooks are given the
 * instance), with the same trace. Then: without commands between agents, the scheduler on
 * workers thinks and files as the serial one does; a scheduler turns serial and back, its
 * instances thinking without hooks; another thread hammers the queue while frames run (nothing lost, in order); leaves make
 * and remove brains while others think; instances of one definition are made and freed on
 * several threads at once; every call's errors; a thread the system refuses.
 *
 * The system's thread creation (pthread_create; CreateThread on Windows) is wrapped at link time
 * (tests/CMakeLists.txt), so that the test can make the system refuse a thread. The host's own
 * threads are the system's too (sys.h).
 */
#include "sys.h" /* first: the host's threads */

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"
#include "check.h"

/* A precondition of the test itself (a tree built, an instance made): the test stops without it. */
#define REQUIRE(cond)                                                            \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* A scheduler that runs its frames on workers (the calling thread until bt_sched_set_threads). */
static int sched_create_on_workers(bt_sched **out, double tick_time) {
  int rc = bt_sched_create(out, tick_time);
  return rc == BT_OK ? bt_sched_set_threads(*out, 1) : rc;
}

/* A new brain bound to inst. */
static int brain_bound(bt_sched *s, bt_inst *inst) {
  int id = bt_sched_brain_create(s);
  return id >= 0 && bt_sched_set_inst(s, id, inst) != BT_OK ? BT_EINVAL : id;
}

/* Checks made on other threads than main's: counted atomically, added to check.h's at the end. */
static atomic_long worker_checks, worker_failures;
#define WCHECK_INT(a, b)                                                                       \
  do {                                                                                         \
    long long wa_ = (long long)(a), wb_ = (long long)(b);                                      \
    atomic_fetch_add(&worker_checks, 1);                                                       \
    if (wa_ != wb_) {                                                                          \
      atomic_fetch_add(&worker_failures, 1);                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a, \
              #b, wa_, wb_);                                                                   \
    }                                                                                          \
  } while (0)
#define WCHECK(cond) WCHECK_INT(!!(cond), 1)

/* ---- a system that refuses threads when asked ---- */

static atomic_int creations_left = -1; /* thread creations until one fails; -1: none fails */
static atomic_int creations;

/* Whether the system refuses the thread asked for now; if not, it is counted. */
static int refused(void) {
  int left = atomic_load(&creations_left);
  if (left == 0) return 1;
  if (left > 0) atomic_fetch_sub(&creations_left, 1);
  atomic_fetch_add(&creations, 1);
  return 0;
}

#ifdef _WIN32
/* The headers declare CreateThread imported: its callers call it through the import table's
 * pointer __imp_CreateThread, which is what is wrapped (--wrap=__imp_CreateThread), by a pointer
 * to a function. */
typedef HANDLE(WINAPI *create_thread_fn)(LPSECURITY_ATTRIBUTES, SIZE_T, LPTHREAD_START_ROUTINE, LPVOID, DWORD,
                                          LPDWORD);
extern create_thread_fn __real___imp_CreateThread;
static HANDLE WINAPI create_thread(LPSECURITY_ATTRIBUTES sa, SIZE_T stack, LPTHREAD_START_ROUTINE fn, LPVOID arg,
                                   DWORD flags, LPDWORD id) {
  if (refused()) {
    SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return NULL;
  }
  return __real___imp_CreateThread(sa, stack, fn, arg, flags, id);
}
create_thread_fn __wrap___imp_CreateThread = create_thread;
#else
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
  return refused() ? 11 /* EAGAIN */ : __real_pthread_create(t, a, fn, arg);
}
#endif

static void yield_a_little(void) { sys_yield(); }

/* ---- the pool ---- */

static atomic_int hits[1000];

static void count_job(void *job, int i) {
  (void)job;
  atomic_fetch_add(&hits[i], 1);
}

/* Two jobs that each wait until the other started: they finish only if they run at once. */
static atomic_int started_pair;
static atomic_int saw_other;

static void pair_job(void *job, int i) {
  (void)job;
  (void)i;
  atomic_fetch_add(&started_pair, 1);
  for (long spins = 0; spins < 2000000000L && atomic_load(&started_pair) < 2; spins++) yield_a_little();
  if (atomic_load(&started_pair) >= 2) atomic_fetch_add(&saw_other, 1);
}

static bt_pool *nested_pool;
static atomic_int nested_rc;

static void nested_job(void *job, int i) {
  (void)job;
  (void)i;
  atomic_store(&nested_rc, bt_pool_run(nested_pool, 1, count_job, NULL));
}

static void test_pool(void) {
  bt_pool *p = NULL;
  CHECK_INT(bt_pool_create(NULL, 2), BT_EINVAL);
  CHECK_INT(bt_pool_create(&p, 0), BT_EINVAL);
  CHECK(p == NULL);
  CHECK_INT(bt_pool_create(&p, BT_POOL_MAX_THREADS + 1), BT_EINVAL);
  CHECK_INT(bt_pool_run(NULL, 1, count_job, NULL), BT_EINVAL);
  for (int threads = 1; threads <= 4; threads++) {
    int before = atomic_load(&creations);
    CHECK_INT(bt_pool_create(&p, threads), BT_OK);
    CHECK_INT(atomic_load(&creations) - before, threads - 1); /* the caller is a worker */
    CHECK_INT(bt_pool_threads(p), threads);
    CHECK_INT(bt_pool_run(p, -1, count_job, NULL), BT_EINVAL);
    CHECK_INT(bt_pool_run(p, 1, NULL, NULL), BT_EINVAL);
    for (int round = 0; round < 3; round++) { /* the threads sleep and wake again between runs */
      for (int i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
      int count = round == 0 ? 0 : round == 1 ? 1 : 1000;
      CHECK_INT(bt_pool_run(p, count, count_job, NULL), BT_OK);
      int once = 1;
      for (int i = 0; i < 1000; i++) once &= atomic_load(&hits[i]) == (i < count);
      CHECK(once);
    }
    bt_executor ex;
    bt_pool_executor(p, &ex);
    CHECK_INT(ex.workers, threads);
    for (int i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
    CHECK_INT(ex.run(ex.data, 500, count_job, NULL), BT_OK);
    CHECK_INT(atomic_load(&hits[499]), 1);
    CHECK_INT(atomic_load(&hits[500]), 0);
    /* a job may not run its own pool */
    nested_pool = p;
    atomic_store(&nested_rc, 99);
    CHECK_INT(bt_pool_run(p, 2, nested_job, NULL), BT_OK);
    CHECK_INT(atomic_load(&nested_rc), BT_EBUSY);
    if (threads >= 2) { /* two jobs run at once */
      atomic_store(&started_pair, 0);
      atomic_store(&saw_other, 0);
      CHECK_INT(bt_pool_run(p, 2, pair_job, NULL), BT_OK);
      CHECK_INT(atomic_load(&saw_other), 2);
    }
    bt_pool_free(p);
  }
  bt_pool_free(NULL);
}

/* The system refuses the third thread: nothing is left of the pool; a scheduler keeps thinking
 * as it did. */
static void test_refused_thread(void) {
  bt_pool *p = (bt_pool *)&p;
  atomic_store(&creations_left, 2);
  CHECK_INT(bt_pool_create(&p, 5), BT_ETHREAD);
  CHECK(p == NULL);
  atomic_store(&creations_left, -1);
  CHECK(strcmp(bt_strerror(BT_ETHREAD), bt_strerror(BT_EINVAL)) != 0);

  bt_sched *ts;
  CHECK_INT(sched_create_on_workers(&ts, 1.0 / 30), BT_OK);
  CHECK_INT(bt_sched_set_threads(ts, 2), BT_OK);
  atomic_store(&creations_left, 0);
  CHECK_INT(bt_sched_set_threads(ts, 4), BT_ETHREAD);
  atomic_store(&creations_left, -1);
  CHECK_INT(bt_sched_threads(ts), 2); /* the pool it had */
  CHECK_INT(bt_sched_update(ts, 1, NULL), BT_OK);
  bt_sched_free(ts);
}

/* ---- the scripted world ---- */

#define MAX_AGENTS 2048
#define CELLS 64
#define MAX_REC 96

typedef struct agent {
  int index; /* in the order agents were made */
  int brain; /* -1 once buried */
  int alive;
  bt_inst *inst;
  bt_rec *rec; /* every fifth agent's */
  int hunger, wander, shouts, calls, patrol, finished;
  long long thinks, heard;       /* thinks (the think hook), records its recorder's callback saw */
  unsigned long long heard_hash; /* and their hash */
} agent;

typedef struct world {
  bt_sched *ts;  /* NULL: the serial scheduler runs it (and leaves queue nothing) */
  bt_sched *serial;
  int old_names; /* ts is made and run with the deprecated bt_tsched names */
  int late_binds; /* brains bound in a frame's end: a queued command each, not with old_names */
  bt_def *def;
  int alarm;      /* the EventNode's pre-order index */
  agent *agents;
  int nagents;    /* made so far: read during a frame, changed only between frames' thinks */
  int by_brain[MAX_AGENTS]; /* agent index of each brain id (-1: none) */
  int food[CELLS];
  double now;
  long long tick;
  int quiet;      /* leaves queue nothing */
  unsigned char *trace;
  size_t len, cap;
} world;

static world W;

static double w_now(void *data) {
  (void)data;
  return W.now;
}
static const bt_host w_host = {w_now, NULL, NULL, NULL}; /* random numbers: each instance's own */

static agent *me(bt_call *c) { return bt_inst_agent(c->inst); }

static void eat_food(void *ud, const void *data, size_t size);
static void spawn_agent(void *ud, const void *data, size_t size);
static void bury_agent(void *ud, const void *data, size_t size);

/* The agent whose turn it is to hear from a: any one made before this frame. */
static agent *neighbour(const agent *a, int k) {
  int n = W.nagents;
  return &W.agents[(a->index * 7 + k + 1) % n];
}

static int leaf_hungry(bt_call *c) {
  agent *a = me(c);
  return a->hunger > 3 && W.food[a->index % CELLS] > 0; /* shared data, read only */
}

static int leaf_eat(bt_call *c) {
  agent *a = me(c);
  a->hunger -= 2;
  int cell = a->index % CELLS;
  if (!W.quiet) WCHECK_INT(bt_sched_post(W.ts, eat_food, &W, &cell, sizeof cell), BT_OK);
  return 1;
}

static int leaf_digest(bt_call *c) {
  agent *a = me(c);
  c->value = 0.1 + (a->hunger % 5) * 0.05;
  return 1;
}

static int leaf_shout(bt_call *c) {
  agent *a = me(c);
  a->shouts++;
  agent *b = neighbour(a, a->shouts);
  if (!W.quiet && b->alive) {
    WCHECK_INT(bt_sched_fire_event(W.ts, b->brain, W.alarm), BT_OK);
    WCHECK_INT(bt_sched_force_update(W.ts, b->brain), BT_OK);
  }
  return 1;
}

static int leaf_wander(bt_call *c) {
  agent *a = me(c);
  a->wander++;
  a->hunger++;
  if (!W.quiet) {
    agent *b = neighbour(a, a->wander);
    if (a->wander % 11 == 0 && b->alive) WCHECK_INT(bt_sched_wake(W.ts, b->brain), BT_OK);
    if (a->wander % 5 == 0 && b->alive) { /* raises the alarm */
      WCHECK_INT(bt_sched_fire_event(W.ts, b->brain, W.alarm), BT_OK);
      WCHECK_INT(bt_sched_force_update(W.ts, b->brain), BT_OK);
    }
    if (a->wander % 17 == 0) WCHECK_INT(bt_sched_sleep(W.ts, a->brain, 0.4), BT_OK);
    if (a->wander % 23 == 0 && b->alive) WCHECK_INT(bt_sched_hibernate(W.ts, b->brain), BT_OK);
  }
  return 1;
}

static int leaf_lonely(bt_call *c) { return me(c)->wander % 3 == 0; }

static int leaf_call(bt_call *c) {
  agent *a = me(c);
  a->calls++;
  if (W.quiet) return 1;
  if (a->index % 7 == 0 && a->calls % 2 == 0 && W.nagents < MAX_AGENTS - 64)
    WCHECK_INT(bt_sched_post(W.ts, spawn_agent, &W, &a->index, sizeof a->index), BT_OK);
  if (a->calls % 3 == 2 && a->index % 5 == 1) { /* dies: leaves the scheduler, then the world */
    WCHECK_INT(bt_sched_remove(W.ts, a->brain), BT_OK);
    WCHECK_INT(bt_sched_brain_free(W.ts, a->brain), BT_OK);
    WCHECK_INT(bt_sched_post(W.ts, bury_agent, &W, &a->index, sizeof a->index), BT_OK);
  }
  return 1;
}

static int patrol_start(bt_call *c) {
  me(c)->patrol = 0;
  return 0;
}
static int patrol_update(bt_call *c) {
  agent *a = me(c);
  if (++a->patrol < 3) {
    bt_node_sleep(c->inst, c->node, 0.2);
    return BT_RUNNING;
  }
  return BT_SUCCESS;
}
static void patrol_finish(bt_call *c, bt_status s) { me(c)->finished += (int)s; }
static const bt_task patrol = {patrol_start, patrol_update, patrol_finish};

/* Priority(0.5)
 *   Event Alarm -> Sequence(Shout, Wait 0.3)
 *   Sequence Feed (Hungry, Eat, Wait digest)
 *   Random Idle (Wander, Patrol, Sequence(Lonely, Call)) */
static bt_def *world_def(void) {
  bt_builder *b;
  bt_def *def = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_builder_priority(b, "Root", 0.2);
  bt_builder_event(b, "Alarm", 1);
  bt_builder_sequence(b, "Respond");
  bt_builder_action(b, leaf_shout, NULL, "Shout");
  bt_builder_wait(b, 0.3);
  bt_builder_back(b);
  bt_builder_back(b);
  bt_builder_sequence(b, "Feed");
  bt_builder_condition(b, leaf_hungry, NULL, "Hungry");
  bt_builder_action(b, leaf_eat, NULL, "Eat");
  bt_builder_leaf(b, &(bt_spec){.kind = BT_WAIT, .flags = BT_SPEC_PARAM_FN, .fn = leaf_digest, .name = "Digest"});
  bt_builder_back(b);
  bt_builder_random(b, "Idle");
  bt_builder_action(b, leaf_wander, NULL, "Wander");
  bt_builder_task(b, &patrol, NULL, "Patrol");
  bt_builder_sequence(b, "Social");
  bt_builder_condition(b, leaf_lonely, NULL, "Lonely");
  bt_builder_action(b, leaf_call, NULL, "Call");
  bt_builder_back(b);
  bt_builder_back(b);
  int rc = bt_builder_end(b, &def, NULL);
  if (rc != BT_OK) fprintf(stderr, "world_def: %s\n", bt_builder_errmsg(b));
  REQUIRE(rc == BT_OK);
  bt_builder_free(b);
  return def;
}

static void heard(void *ud, const bt_rec_entry *e) { /* on the thread that thinks the agent */
  agent *a = ud;
  a->heard++;
  a->heard_hash = a->heard_hash * 1099511628211ULL ^ (unsigned long long)(e->type * 131 + e->node * 7 + e->to);
}

/* Makes agent number W.nagents (between frames' thinks only). */
static agent *make_agent(int hunger) {
  agent *a = &W.agents[W.nagents];
  memset(a, 0, sizeof *a);
  a->index = W.nagents;
  a->hunger = hunger;
  REQUIRE(bt_inst_create(&a->inst, W.def, &w_host, a, BT_INST_NOSCATTER) == BT_OK);
  CHECK_INT(bt_inst_seed(a->inst, 1000 + (unsigned long long)a->index), BT_OK);
  CHECK_INT(bt_inst_scatter(a->inst), BT_OK);
  if (a->index % 5 == 0) {
    REQUIRE(bt_rec_create(&a->rec, MAX_REC) == BT_OK);
    if (a->index % 10 == 0) bt_rec_set_callback(a->rec, heard, a);
    REQUIRE(bt_inst_set_recorder(a->inst, a->rec) == BT_OK);
  }
  if (W.old_names) a->brain = bt_tsched_brain_create(W.ts, a->inst); /* binds at once */
  else a->brain = W.ts ? brain_bound(W.ts, a->inst) : bt_sched_brain_create(W.serial);
  W.late_binds += W.ts && !W.old_names && W.tick > 0;
  REQUIRE(a->brain >= 0 && a->brain < MAX_AGENTS);
  W.by_brain[a->brain] = a->index;
  if (W.ts) CHECK_INT(bt_sched_add(W.ts, a->brain), BT_OK);
  else CHECK_INT(bt_sched_add(W.serial, a->brain), BT_OK);
  a->alive = 1;
  W.nagents++;
  return a;
}

static void eat_food(void *ud, const void *data, size_t size) {
  world *w = ud;
  int cell;
  CHECK_INT(size, sizeof cell);
  memcpy(&cell, data, sizeof cell);
  if (w->food[cell] > 0) w->food[cell]--;
}

static void spawn_agent(void *ud, const void *data, size_t size) {
  (void)ud;
  int parent;
  CHECK_INT(size, sizeof parent);
  memcpy(&parent, data, sizeof parent);
  if (W.nagents < MAX_AGENTS) make_agent(W.agents[parent].hunger / 2);
}

static void bury_agent(void *ud, const void *data, size_t size) {
  (void)ud;
  int index;
  CHECK_INT(size, sizeof index);
  memcpy(&index, data, sizeof index);
  agent *a = &W.agents[index];
  if (!a->alive) return;
  CHECK(bt_sched_list(W.ts, a->brain, NULL) == BT_EINVAL); /* its brain_free came first */
  W.by_brain[a->brain] = -1;
  bt_inst_free(a->inst);
  bt_rec_free(a->rec);
  a->inst = NULL;
  a->rec = NULL;
  a->alive = 0;
  a->brain = -1;
}

static int w_ready_inst(void *ud, int brain, bt_inst *inst) {
  (void)ud;
  (void)brain;
  agent *a = bt_inst_agent(inst);
  return (a->index + W.tick) % 9 != 0;
}

static int w_think_inst(void *ud, int brain, bt_inst *inst, double *sleep) {
  (void)ud;
  (void)brain;
  agent *a = bt_inst_agent(inst);
  a->thinks++;
  bt_inst_update(inst);
  return bt_inst_sleep_time(inst, sleep);
}

/* the hooks of a frame on workers: the brain's instance from the scheduler */
static int w_ready(void *ud, int brain) { return w_ready_inst(ud, brain, bt_sched_inst(W.ts, brain)); }
static int w_think(void *ud, int brain, double *sleep) {
  return w_think_inst(ud, brain, bt_sched_inst(W.ts, brain), sleep);
}
static const bt_sched_hooks w_hooks = {w_ready, w_think, NULL};
/* the deprecated bt_sched_hooks, given the instance */
static const bt_tsched_hooks w_hooks_inst = {w_ready_inst, w_think_inst, NULL};

/* the serial scheduler's hooks, for the same world */
static int s_ready(void *ud, int brain) {
  (void)ud;
  return w_ready_inst(NULL, brain, W.agents[W.by_brain[brain]].inst);
}
static int s_think(void *ud, int brain, double *sleep) {
  (void)ud;
  return w_think_inst(NULL, brain, W.agents[W.by_brain[brain]].inst, sleep);
}
static const bt_sched_hooks s_hooks = {s_ready, s_think, NULL};

static void put(const void *p, size_t n) {
  if (W.len + n > W.cap) {
    size_t cap = W.cap ? W.cap : 1 << 16;
    while (cap < W.len + n) cap *= 2;
    unsigned char *t = realloc(W.trace, cap);
    REQUIRE(t != NULL);
    if (!t) exit(1);
    W.trace = t;
    W.cap = cap;
  }
  memcpy(W.trace + W.len, p, n);
  W.len += n;
}
static void put_ll(long long v) { put(&v, sizeof v); }
static void put_d(double v) { put(&v, sizeof v); }

/* Everything the frame left, in the order agents were made; `common`: only what both schedulers
 * count. */
static void trace_frame(int common) {
  if (W.ts && !common) {
    bt_sched_stats st;
    bt_sched_stats_get(W.ts, &st);
    long long v[] = {st.thinks, st.frames, st.registered, st.updating, st.waiting, st.hibernating,
                     st.due, st.commands - W.late_binds, st.rejected};
    put(v, sizeof v);
  } else if (W.ts) {
    bt_sched_stats st;
    bt_sched_stats_get(W.ts, &st);
    long long v[] = {st.thinks, st.registered, st.updating, st.waiting, st.hibernating};
    put(v, sizeof v);
  } else {
    bt_sched_stats st;
    bt_sched_stats_get(W.serial, &st);
    long long v[] = {st.thinks, st.registered, st.updating, st.waiting, st.hibernating};
    put(v, sizeof v);
  }
  put(W.food, sizeof W.food);
  static unsigned char state[4096];
  for (int i = 0; i < W.nagents; i++) {
    const agent *a = &W.agents[i];
    long long wake = -1;
    int list = !a->alive ? -1 : W.ts ? bt_sched_list(W.ts, a->brain, &wake) : bt_sched_list(W.serial, a->brain, &wake);
    long long v[] = {a->index, a->brain, a->alive, list, wake, a->hunger, a->wander, a->shouts,
                     a->calls, a->patrol, a->finished, a->thinks, a->heard, (long long)a->heard_hash};
    put(v, sizeof v);
    if (!a->alive) continue;
    size_t size = bt_inst_state_size(W.def);
    REQUIRE(size <= sizeof state);
    CHECK_INT(bt_inst_save(a->inst, state, size), BT_OK);
    put(state, size);
    if (!a->rec) continue;
    put_ll((long long)bt_rec_total(a->rec));
    size_t n = bt_rec_count(a->rec);
    for (size_t k = 0; k < n; k++) {
      bt_rec_entry e;
      CHECK_INT(bt_rec_get(a->rec, k, &e), BT_OK);
      long long f[] = {e.type, e.from, e.to, e.has_sleep, e.cause, e.node, (long long)e.think};
      put(f, sizeof f);
      put_d(e.time);
      put_d(e.sleep);
    }
  }
}

#define FRAMES 90
#define FIRST_AGENTS 400

enum { PLAIN, HOST_JOBS, FAILING_JOBS, THREE_CALLS, OLD_NAMES }; /* OLD_NAMES: the deprecated bt_tsched_* */

/* The host's job system: `workers` threads of its own per run, taking the jobs from the last. */
typedef struct host_jobs {
  int workers;
  atomic_int next;
  int count, fail_half;
  bt_job_fn fn;
  void *job;
} host_jobs;

static void *host_worker(void *arg) {
  host_jobs *h = arg;
  for (;;) {
    int k = atomic_fetch_add(&h->next, 1);
    if (k >= h->count) return NULL;
    int i = h->count - 1 - k;
    if (h->fail_half && i % 2) continue; /* "could not start" the odd ones */
    h->fn(h->job, i);
  }
}

static int host_run(void *data, int count, bt_job_fn fn, void *job) {
  host_jobs *h = data;
  atomic_store(&h->next, 0);
  h->count = count;
  h->fn = fn;
  h->job = job;
  sys_thread t[8];
  int started = 0;
  for (int i = 1; i < h->workers; i++)
    if (sys_thread_start(&t[started], host_worker, h) == 0) started++;
  host_worker(h);
  for (int i = 0; i < started; i++) sys_thread_join(&t[i]);
  return h->fail_half ? BT_ENOMEM : BT_OK;
}

/* The three-call frame, the batches run by two threads of the host's in reverse order, the
 * first batch skipped every third frame (the frame's end must run it). */
typedef struct three_calls {
  bt_sched *ts;
  int nb, skip;
  atomic_int next;
} three_calls;

static void *three_worker(void *arg) {
  three_calls *t = arg;
  for (;;) {
    int k = atomic_fetch_add(&t->next, 1);
    if (k >= t->nb) return NULL;
    int i = t->nb - 1 - k;
    if (t->skip && i == 0) continue;
    WCHECK_INT(bt_sched_frame_run(t->ts, i), BT_OK);
  }
}

enum { THREADED, SERIAL_QUIET, THREADED_QUIET }; /* quiet: leaves queue nothing */

/* Runs the world with `threads` workers; returns its trace (the caller frees it). */
static unsigned char *run_world(int threads, int batch, int how, int mode, size_t *len) {
  int serial = mode == SERIAL_QUIET;
  memset(&W, 0, sizeof W);
  for (int i = 0; i < MAX_AGENTS; i++) W.by_brain[i] = -1;
  W.agents = calloc(MAX_AGENTS, sizeof *W.agents);
  REQUIRE(W.agents != NULL);
  W.def = world_def();
  W.quiet = mode != THREADED;
  for (int n = 0; n < bt_def_size(W.def); n++)
    if (bt_def_kind(W.def, n) == BT_EVENT) W.alarm = n;
  host_jobs jobs = {.workers = threads, .fail_half = how == FAILING_JOBS};
  if (serial) {
    REQUIRE(bt_sched_create(&W.serial, 1.0 / 30) == BT_OK);
  } else {
    if (how == OLD_NAMES) REQUIRE(bt_tsched_create(&W.ts, 1.0 / 30) == BT_OK);
    else REQUIRE(sched_create_on_workers(&W.ts, 1.0 / 30) == BT_OK);
    W.old_names = how == OLD_NAMES;
    if (how == PLAIN || how == THREE_CALLS || how == OLD_NAMES) CHECK_INT(bt_sched_set_threads(W.ts, threads), BT_OK);
    else CHECK_INT(bt_sched_set_executor(W.ts, &(bt_executor){host_run, &jobs, threads}), BT_OK);
    CHECK_INT(bt_sched_threads(W.ts), threads);
    CHECK_INT(bt_sched_set_batch_size(W.ts, batch), BT_OK);
  }
  for (int c = 0; c < CELLS; c++) W.food[c] = 20;
  for (int i = 0; i < FIRST_AGENTS; i++) make_agent(i % 7);
  for (int f = 1; f <= FRAMES; f++) {
    W.tick = f;
    W.now = f / 30.0;
    if (f % 10 == 0)
      for (int c = 0; c < CELLS; c++) W.food[c] += 3; /* the world's own step, between frames */
    if (serial) {
      CHECK_INT(bt_sched_update(W.serial, f, &s_hooks), BT_OK);
    } else if (how == OLD_NAMES && f % 3 == 0) {
      int nb;
      CHECK_INT(bt_tsched_frame_begin(W.ts, f, &w_hooks_inst, &nb), BT_OK);
      for (int k = 0; k < nb; k++) CHECK_INT(bt_tsched_frame_run(W.ts, k), BT_OK);
      CHECK_INT(bt_tsched_frame_end(W.ts), BT_OK);
    } else if (how == OLD_NAMES) {
      CHECK_INT(bt_tsched_update(W.ts, f, &w_hooks_inst), BT_OK);
    } else if (how == THREE_CALLS) {
      three_calls t = {.ts = W.ts, .skip = f % 3 == 0};
      CHECK_INT(bt_sched_frame_begin(W.ts, f, &w_hooks, &t.nb), BT_OK);
      sys_thread th[2];
      for (int i = 0; i < 2; i++) REQUIRE(sys_thread_start(&th[i], three_worker, &t) == 0);
      for (int i = 0; i < 2; i++) sys_thread_join(&th[i]);
      CHECK_INT(bt_sched_frame_end(W.ts), t.skip && t.nb > 0 ? BT_EINVAL : BT_OK);
    } else {
      int rc = bt_sched_update(W.ts, f, &w_hooks);
      bt_sched_stats st;
      bt_sched_stats_get(W.ts, &st);
      CHECK_INT(rc, how == FAILING_JOBS && st.batches > 0 ? BT_ENOMEM : BT_OK);
    }
    trace_frame(mode != THREADED);
    put_ll(-f); /* frame separator */
  }
  if (mode == THREADED) { /* the world did what it is there for */
    bt_sched_stats st;
    bt_sched_stats_get(W.ts, &st);
    CHECK(st.commands > 1000);
    int buried = 0;
    for (int i = 0; i < W.nagents; i++) buried += !W.agents[i].alive;
    CHECK(W.nagents > FIRST_AGENTS);
    CHECK(buried > 0);
  }
  for (int i = 0; i < W.nagents; i++)
    if (W.agents[i].alive) {
      bt_inst_free(W.agents[i].inst);
      bt_rec_free(W.agents[i].rec);
    }
  bt_sched_free(W.ts);
  bt_sched_free(W.serial);
  bt_def_release(W.def);
  free(W.agents);
  *len = W.len;
  return W.trace;
}

/* The first frame whose trace differs, or 0. */
static int first_difference(const unsigned char *a, size_t na, const unsigned char *b, size_t nb) {
  if (na == nb && !memcmp(a, b, na)) return 0;
  /* find the frame: separators are -f as a long long */
  size_t n = na < nb ? na : nb, i = 0;
  while (i < n && a[i] == b[i]) i++;
  int frame = 1;
  for (size_t k = 0; k + sizeof(long long) <= i; k++) {
    long long v;
    memcpy(&v, a + k, sizeof v);
    if (v == -frame) frame++;
  }
  return frame;
}

static void test_same_for_any_workers(void) {
  size_t ref_len;
  unsigned char *ref = run_world(1, 0, PLAIN, THREADED, &ref_len);
  struct { int threads, batch, how; const char *name; } runs[] = {
      {2, 0, PLAIN, "2 workers"},
      {3, 0, PLAIN, "3 workers"},
      {4, 0, PLAIN, "4 workers"},
      {1, 7, PLAIN, "1 worker, batches of 7"},
      {3, 1, PLAIN, "3 workers, batches of 1"},
      {2, 50, HOST_JOBS, "the host's job system, 2 threads"},
      {3, 16, FAILING_JOBS, "a job system that fails half way"},
      {2, 20, THREE_CALLS, "begin, run, end"},
      {2, 0, OLD_NAMES, "the deprecated bt_tsched names"},
  };
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    size_t len;
    unsigned char *t = run_world(runs[r].threads, runs[r].batch, runs[r].how, THREADED, &len);
    int frame = first_difference(ref, ref_len, t, len);
    if (frame) fprintf(stderr, "test_same_for_any_workers: %s: frame %d differs\n", runs[r].name, frame);
    CHECK_INT(frame, 0);
    free(t);
  }
  free(ref);
}

/* Without commands between agents, the scheduler on workers thinks and files as the serial one. */
static void test_files_as_serial(void) {
  size_t a_len, b_len;
  unsigned char *a = run_world(1, 0, PLAIN, SERIAL_QUIET, &a_len);
  unsigned char *b = run_world(3, 10, PLAIN, THREADED_QUIET, &b_len);
  int frame = first_difference(a, a_len, b, b_len);
  if (frame) fprintf(stderr, "test_files_as_serial: frame %d differs\n", frame);
  CHECK_INT(frame, 0);
  free(a);
  free(b);
}

/* ---- a small world for the tests below ---- */

typedef struct mob {
  int index, brain, dead;
  bt_inst *inst;
  atomic_int thinks; /* read by the main thread after the frames */
  int heard;         /* events it handled */
} mob;

static bt_sched *M_ts;
static int M_alarm, M_pokes;

static int mob_heard(bt_call *c) {
  mob *m = bt_inst_agent(c->inst);
  m->heard++;
  return 1;
}
static int mob_idle(bt_call *c) {
  mob *m = bt_inst_agent(c->inst);
  atomic_fetch_add_explicit(&m->thinks, 1, memory_order_relaxed);
  return 1;
}

/* Priority(0.1) { Event Alarm -> Action Heard; Action Idle; } with a leaf given for Idle */
static bt_def *mob_def(bt_fn idle) {
  bt_builder *b;
  bt_def *def = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_builder_priority(b, "Root", 0.1);
  bt_builder_event(b, "Alarm", 1);
  bt_builder_action(b, mob_heard, NULL, "Heard");
  bt_builder_back(b);
  bt_builder_action(b, idle ? idle : mob_idle, NULL, "Idle");
  REQUIRE(bt_builder_end(b, &def, NULL) == BT_OK);
  bt_builder_free(b);
  for (int n = 0; n < bt_def_size(def); n++)
    if (bt_def_kind(def, n) == BT_EVENT) M_alarm = n;
  return def;
}

static mob *mob_new(bt_def *def, int index) {
  mob *m = calloc(1, sizeof *m);
  REQUIRE(m != NULL);
  m->index = index;
  REQUIRE(bt_inst_create(&m->inst, def, &w_host, m, BT_INST_NOSCATTER) == BT_OK);
  bt_inst_seed(m->inst, (unsigned long long)index);
  m->brain = brain_bound(M_ts, m->inst);
  REQUIRE(m->brain >= 0);
  return m;
}

static void mob_free(mob *m) {
  bt_inst_free(m->inst);
  free(m);
}

/* ---- another thread hammers the queue while frames run ---- */

#define HAMMER_MOBS 600

typedef struct hammer {
  bt_def *def;
  mob **world;
  atomic_int stop;
  int seq, bad, added, removed;
} hammer;

static long long posts_applied;
static int last_seq, out_of_order;

static void count_post(void *ud, const void *data, size_t size) {
  (void)ud;
  int seq;
  CHECK_INT(size, sizeof seq);
  memcpy(&seq, data, sizeof seq);
  if (seq != last_seq + 1) out_of_order++;
  last_seq = seq;
  posts_applied++;
}

static void free_mob_command(void *ud, const void *data, size_t size) {
  (void)ud;
  mob *m;
  CHECK_INT(size, sizeof m);
  memcpy(&m, data, sizeof m);
  mob_free(m);
}

static void *hammer_thread(void *arg) {
  hammer *h = arg;
  mob *own[32];
  int nown = 0;
  for (int i = 0; !atomic_load(&h->stop) || i < 4000; i++) {
    int b = h->world[(i * 37) % HAMMER_MOBS]->brain;
    switch (i % 9) {
      case 0: WCHECK_INT(bt_sched_wake(M_ts, b), BT_OK); break;
      case 1: WCHECK_INT(bt_sched_force_update(M_ts, b), BT_OK); break;
      case 2: WCHECK_INT(bt_sched_fire_event(M_ts, b, M_alarm), BT_OK); break;
      case 3: WCHECK_INT(bt_sched_sleep(M_ts, b, 0.1), BT_OK); break;
      case 4:
        h->seq++;
        WCHECK_INT(bt_sched_post(M_ts, count_post, NULL, &h->seq, sizeof h->seq), BT_OK);
        break;
      case 5: /* a brain that does not exist: refused when applied */
        WCHECK_INT(bt_sched_wake(M_ts, 100000 + i), BT_OK);
        h->bad++;
        break;
      case 6: /* a brain of its own, added while frames run */
        if (nown < 32) {
          own[nown] = mob_new(h->def, 100000 + i);
          WCHECK_INT(bt_sched_add(M_ts, own[nown]->brain), BT_OK);
          nown++;
          h->added++;
        }
        break;
      case 7: /* removed and freed; its instance freed by a command applied after the free */
        if (nown > 0 && i % 2) {
          mob *m = own[--nown];
          WCHECK_INT(bt_sched_remove(M_ts, m->brain), BT_OK);
          WCHECK_INT(bt_sched_brain_free(M_ts, m->brain), BT_OK);
          WCHECK_INT(bt_sched_post(M_ts, free_mob_command, NULL, &m, sizeof m), BT_OK);
          h->removed++;
        }
        break;
      default:
        if (bt_sched_list(M_ts, b, NULL) < 0) WCHECK(0); /* queries from any thread */
        sys_yield();
        break;
    }
  }
  while (nown > 0) {
    mob *m = own[--nown];
    WCHECK_INT(bt_sched_brain_free(M_ts, m->brain), BT_OK);
    WCHECK_INT(bt_sched_post(M_ts, free_mob_command, NULL, &m, sizeof m), BT_OK);
    h->removed++;
  }
  return NULL;
}

/* A leaf that pokes another mob: a wake, an event and a force update, queued from a worker. */
static int mob_poke(bt_call *c) {
  mob *m = bt_inst_agent(c->inst);
  atomic_fetch_add_explicit(&m->thinks, 1, memory_order_relaxed);
  int other = (m->index * 13 + 1) % HAMMER_MOBS;
  if (m->index < HAMMER_MOBS && M_pokes) {
    WCHECK_INT(bt_sched_fire_event(M_ts, other, M_alarm), BT_OK);
    WCHECK_INT(bt_sched_wake(M_ts, other), BT_OK);
  }
  return 1;
}

static void test_other_threads(void) {
  bt_def *def = mob_def(mob_poke);
  M_pokes = 1;
  REQUIRE(sched_create_on_workers(&M_ts, 1.0 / 30) == BT_OK);
  CHECK_INT(bt_sched_set_threads(M_ts, 2), BT_OK);
  CHECK_INT(bt_sched_set_batch_size(M_ts, 40), BT_OK);
  mob *world[HAMMER_MOBS];
  for (int i = 0; i < HAMMER_MOBS; i++) {
    world[i] = mob_new(def, i);
    CHECK_INT(world[i]->brain, i);
    CHECK_INT(bt_sched_add(M_ts, world[i]->brain), BT_OK);
  }
  hammer h = {.def = def, .world = world};
  atomic_init(&h.stop, 0);
  posts_applied = 0;
  last_seq = out_of_order = 0;
  sys_thread t;
  REQUIRE(sys_thread_start(&t, hammer_thread, &h) == 0);
  long long statuses = 0;
  for (int f = 1; f <= 200; f++) {
    W.now = f / 30.0;
    CHECK_INT(bt_sched_update(M_ts, f, NULL), BT_OK);
    /* between frames this thread reads every instance: nothing else touches them now */
    for (int i = 0; i < HAMMER_MOBS; i++) statuses += bt_node_last(world[i]->inst, 0);
  }
  atomic_store(&h.stop, 1);
  sys_thread_join(&t);
  CHECK_INT(bt_sched_flush(M_ts), BT_OK);
  CHECK(statuses > 0);
  CHECK(h.seq > 0);
  CHECK_INT(posts_applied, h.seq); /* nothing lost */
  CHECK_INT(last_seq, h.seq);
  CHECK_INT(out_of_order, 0); /* in the order they were made */
  bt_sched_stats st;
  bt_sched_stats_get(M_ts, &st);
  CHECK_INT(st.rejected, h.bad); /* the commands to brains that do not exist, and no other */
  CHECK(strstr(bt_sched_errmsg(M_ts), "no such brain") != NULL);
  CHECK_INT(st.registered, HAMMER_MOBS);
  CHECK_INT(h.added, h.removed);
  CHECK(h.added > 0);
  int heard = 0;
  for (int i = 0; i < HAMMER_MOBS; i++) heard += world[i]->heard;
  CHECK(heard > 0);
  for (int i = 0; i < HAMMER_MOBS; i++) mob_free(world[i]);
  bt_sched_free(M_ts);
  bt_def_release(def);
}

/* ---- leaves make and remove brains while others think ---- */

static sys_mutex registry_lock = SYS_MUTEX_INIT;
static mob *registry[8192];
static int nregistry;
static bt_def *breed_def;

static int mob_breed(bt_call *c) {
  mob *m = bt_inst_agent(c->inst);
  int n = atomic_fetch_add_explicit(&m->thinks, 1, memory_order_relaxed) + 1;
  if (m->index % 4 == 0 && n % 5 == 0) { /* a child: a new instance and brain, from a worker */
    sys_mutex_lock(&registry_lock);
    int room = nregistry < 8000;
    int index = nregistry;
    if (room) registry[nregistry++] = NULL;
    sys_mutex_unlock(&registry_lock);
    if (room) {
      mob *child = mob_new(breed_def, index);
      WCHECK_INT(bt_sched_add(M_ts, child->brain), BT_OK);
      sys_mutex_lock(&registry_lock);
      registry[index] = child;
      sys_mutex_unlock(&registry_lock);
    }
  }
  if (m->index % 4 == 1 && n == 7) { /* leaves: removed, freed, then its memory */
    WCHECK_INT(bt_sched_remove(M_ts, m->brain), BT_OK);
    WCHECK_INT(bt_sched_brain_free(M_ts, m->brain), BT_OK);
    m->dead = 1;
  }
  return 1;
}

static void test_brains_made_in_frames(void) {
  breed_def = mob_def(mob_breed);
  REQUIRE(sched_create_on_workers(&M_ts, 1.0 / 30) == BT_OK);
  CHECK_INT(bt_sched_set_threads(M_ts, 3), BT_OK);
  CHECK_INT(bt_sched_set_batch_size(M_ts, 16), BT_OK);
  nregistry = 0;
  for (int i = 0; i < 400; i++) {
    registry[nregistry] = mob_new(breed_def, nregistry);
    CHECK_INT(bt_sched_add(M_ts, registry[nregistry]->brain), BT_OK);
    nregistry++;
  }
  for (int f = 1; f <= 60; f++) {
    W.now = f / 30.0;
    CHECK_INT(bt_sched_update(M_ts, f, NULL), BT_OK);
  }
  int alive = 0, dead = 0;
  for (int i = 0; i < nregistry; i++) {
    REQUIRE(registry[i] != NULL);
    if (registry[i]->dead) dead++;
    else alive++;
  }
  bt_sched_stats st;
  bt_sched_stats_get(M_ts, &st);
  CHECK(nregistry > 400);
  CHECK(dead > 0);
  CHECK_INT(st.registered, alive);
  CHECK_INT(st.rejected, 0);
  for (int i = 0; i < nregistry; i++) mob_free(registry[i]);
  bt_sched_free(M_ts);
  bt_def_release(breed_def);
}

/* ---- one definition, instances made and freed on several threads at once ---- */

static bt_def *shared_def;

static void *churn(void *arg) {
  (void)arg;
  for (int i = 0; i < 3000; i++) {
    mob m = {.index = i};
    bt_inst *in;
    WCHECK_INT(bt_inst_create(&in, shared_def, &w_host, &m, 0), BT_OK);
    bt_def_retain(shared_def);
    WCHECK_INT(bt_inst_update(in), BT_OK);
    bt_def_release(shared_def);
    bt_inst_free(in);
  }
  return NULL;
}

static void test_shared_definition(void) {
  shared_def = mob_def(NULL);
  sys_thread t[4];
  for (int i = 0; i < 4; i++) REQUIRE(sys_thread_start(&t[i], churn, NULL) == 0);
  for (int i = 0; i < 4; i++) sys_thread_join(&t[i]);
  /* the definition is whole: one reference left, which the last release frees */
  mob m = {0};
  bt_inst *in;
  CHECK_INT(bt_inst_create(&in, shared_def, &w_host, &m, 0), BT_OK);
  bt_def_release(shared_def);
  CHECK_INT(bt_inst_update(in), BT_OK);
  CHECK_INT(atomic_load(&m.thinks), 1);
  bt_inst_free(in);
}

/* ---- seeds ---- */

static int seed_in_think_rc;
static int seed_in_think(bt_call *c) {
  seed_in_think_rc = bt_inst_seed(c->inst, 1);
  return 1;
}

static void test_seed(void) {
  bt_def *def = mob_def(NULL);
  mob m = {0};
  bt_inst *a, *b, *c;
  CHECK_INT(bt_inst_create(&a, def, &w_host, &m, BT_INST_NOSCATTER), BT_OK);
  CHECK_INT(bt_inst_create(&b, def, &w_host, &m, BT_INST_NOSCATTER), BT_OK);
  CHECK_INT(bt_inst_create(&c, def, &w_host, &m, BT_INST_NOSCATTER), BT_OK);
  double ta, tb, tc;
  CHECK_INT(bt_node_get(a, 0, BT_FIELD_LASTTIME, &ta), 0); /* nil: not scattered */
  CHECK_INT(bt_inst_seed(a, 42), BT_OK);
  CHECK_INT(bt_inst_seed(b, 42), BT_OK);
  CHECK_INT(bt_inst_seed(c, 43), BT_OK);
  CHECK_INT(bt_inst_scatter(a), BT_OK);
  CHECK_INT(bt_inst_scatter(b), BT_OK);
  CHECK_INT(bt_inst_scatter(c), BT_OK);
  CHECK_INT(bt_node_get(a, 0, BT_FIELD_LASTTIME, &ta), 1);
  CHECK_INT(bt_node_get(b, 0, BT_FIELD_LASTTIME, &tb), 1);
  CHECK_INT(bt_node_get(c, 0, BT_FIELD_LASTTIME, &tc), 1);
  CHECK(ta == tb); /* the same seed, the same draw */
  CHECK(ta != tc);
  CHECK(ta >= 0.05 && ta < 0.15); /* period 0.1: 0.05 + 0.1 * [0, 1) */
  /* drawn again from where the stream is: another number */
  CHECK_INT(bt_inst_scatter(a), BT_OK);
  CHECK_INT(bt_node_get(a, 0, BT_FIELD_LASTTIME, &tc), 1);
  CHECK(tc != ta);
  CHECK_INT(bt_inst_seed(NULL, 1), BT_EINVAL);
  CHECK_INT(bt_inst_scatter(NULL), BT_EINVAL);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_inst_free(c);
  bt_def_release(def);
  /* inside its own think: refused; a tree that draws nothing: nothing to seed */
  bt_builder *bl;
  bt_def *plain = NULL;
  REQUIRE(bt_builder_create(&bl) == BT_OK);
  bt_builder_action(bl, seed_in_think, NULL, "Seed");
  REQUIRE(bt_builder_end(bl, &plain, NULL) == BT_OK);
  bt_builder_free(bl);
  CHECK_INT(bt_inst_create(&a, plain, &w_host, &m, 0), BT_OK);
  CHECK_INT(bt_inst_seed(a, 7), BT_OK);
  CHECK_INT(bt_inst_update(a), BT_OK);
  CHECK_INT(seed_in_think_rc, BT_EBUSY);
  bt_inst_free(a);
  bt_def_release(plain);
}

/* ---- the calls, their errors, and when what they ask for happens ---- */

static int leaf_rc[16];
static int leaf_calls;
static void (*leaf_action)(bt_call *c);

static int api_leaf(bt_call *c) {
  mob *m = bt_inst_agent(c->inst);
  atomic_fetch_add_explicit(&m->thinks, 1, memory_order_relaxed);
  if (leaf_action && m->index == 0) leaf_action(c);
  return 1;
}

static void calls_inside_a_think(bt_call *c) {
  (void)c;
  leaf_calls++;
  leaf_rc[0] = bt_sched_update(M_ts, 99, NULL);
  leaf_rc[1] = bt_sched_frame_end(M_ts);
  leaf_rc[2] = bt_sched_flush(M_ts);
  leaf_rc[3] = bt_sched_set_threads(M_ts, 2);
  leaf_rc[4] = bt_sched_set_batch_size(M_ts, 3);
  int batches;
  leaf_rc[5] = bt_sched_frame_begin(M_ts, 99, NULL, &batches);
  leaf_rc[6] = bt_sched_fire_event(M_ts, 1, 0);     /* the root is no EventNode: refused later */
  leaf_rc[7] = bt_sched_wake(M_ts, 5000);          /* no such brain: refused later */
  leaf_rc[8] = bt_sched_wake(M_ts, -1);            /* refused now */
  leaf_rc[9] = bt_sched_wake(M_ts, 1);             /* brain 1 thinks at the next frame */
  leaf_rc[10] = bt_sched_list(M_ts, 1, NULL);      /* as the frame began */
  leaf_rc[11] = bt_sched_fire_event(M_ts, 1, M_alarm); /* reaches brain 1 after the frame */
}

static void bad_event_inside_a_think(bt_call *c) {
  (void)c;
  leaf_rc[0] = bt_sched_fire_event(M_ts, 1, 0);
}

static int order_log[8], norder;
static void log_post(void *ud, const void *data, size_t size) {
  (void)data;
  (void)size;
  int v = (int)(intptr_t)ud;
  order_log[norder++] = v;
  if (v == 1) CHECK_INT(bt_sched_post(M_ts, log_post, (void *)(intptr_t)3, NULL, 0), BT_OK);
}
static void posts_inside_a_think(bt_call *c) {
  (void)c;
  leaf_rc[0] = bt_sched_post(M_ts, log_post, (void *)(intptr_t)1, NULL, 0);
  leaf_rc[1] = bt_sched_post(M_ts, log_post, (void *)(intptr_t)2, "ab", 2);
  leaf_rc[2] = bt_sched_post(M_ts, NULL, NULL, NULL, 0);
  leaf_rc[3] = bt_sched_post(M_ts, log_post, NULL, NULL, 4);
}

static void *queue_from_other_thread(void *arg) {
  (void)arg;
  leaf_rc[0] = bt_sched_add(M_ts, 2);        /* queued: this thread does not run the frames */
  leaf_rc[1] = bt_sched_set_period(M_ts, 2, -1); /* refused now */
  leaf_rc[2] = bt_sched_hibernate(M_ts, 777);    /* queued, refused when applied */
  leaf_rc[3] = bt_sched_flush(M_ts); /* this thread applies them, and runs the frames from now */
  return NULL;
}

static int host_executor_calls;
static int counting_run(void *data, int count, bt_job_fn fn, void *job) {
  (void)data;
  host_executor_calls++;
  for (int i = 0; i < count; i++) fn(job, i);
  return BT_OK;
}

/* A frame a second later than the last (the mobs' Priority evaluates at every one). */
static int frame(bt_sched *ts, long long tick, const bt_sched_hooks *hooks) {
  W.now += 1;
  return bt_sched_update(ts, tick, hooks);
}

/* ---- one scheduler, serial or on workers ---- */

static void *wake_from_another_thread(void *arg) {
  mob *m = arg;
  WCHECK_INT(bt_sched_wake(M_ts, m->brain), BT_OK); /* not the thread that runs the frames: queued */
  return NULL;
}

static void *fire_from_another_thread(void *arg) {
  WCHECK_INT(bt_sched_fire_event(M_ts, *(int *)arg, M_alarm), BT_OK); /* checked when applied */
  return NULL;
}

/* A scheduler is serial until given workers, and serial again with 0: the instances bound to
 * brains think when the hooks give no think, a brain bound to none is not ready, and the calls
 * queued on workers are applied when it turns serial. */
static void test_serial_and_workers(void) {
  bt_def *def = mob_def(NULL);
  REQUIRE(bt_sched_create(&M_ts, 1.0 / 30) == BT_OK);
  bt_sched *s = M_ts;
  CHECK_INT(bt_sched_threads(s), 0);
  int nb = 7;
  CHECK_INT(bt_sched_frame_begin(s, 1, NULL, &nb), BT_EINVAL); /* three calls: on workers only */
  CHECK_INT(nb, 0);
  mob *m[2] = {mob_new(def, 0), mob_new(def, 1)};
  int unbound = bt_sched_brain_create(s);
  REQUIRE(unbound >= 0);
  CHECK(bt_sched_inst(s, unbound) == NULL);
  for (int i = 0; i < 2; i++) CHECK_INT(bt_sched_add(s, m[i]->brain), BT_OK);
  CHECK_INT(bt_sched_add(s, unbound), BT_OK);
  CHECK_INT(bt_sched_fire_event(s, unbound, M_alarm), BT_EINVAL);
  CHECK_INT(bt_sched_force_update(s, unbound), BT_EINVAL);
  /* a serial frame with no hooks: the bound instances think */
  CHECK_INT(bt_sched_update(s, 1, NULL), BT_OK);
  bt_sched_stats st;
  bt_sched_stats_get(s, &st);
  CHECK_INT(st.thinks, 2);
  CHECK_INT(st.frames, 1);
  CHECK_INT(st.due, 3);
  CHECK_INT(st.batches, 0);
  CHECK_INT(atomic_load(&m[0]->thinks), 1);
  CHECK_INT(atomic_load(&m[1]->thinks), 1);
  CHECK_INT(bt_sched_list(s, unbound, NULL), BT_SCHED_UPDATING); /* not ready: stays */
  for (int i = 0; i < 2; i++) CHECK_INT(bt_sched_hibernate(s, m[i]->brain), BT_OK); /* at once */
  CHECK_INT(bt_sched_list(s, m[0]->brain, NULL), BT_SCHED_HIBERNATING);
  /* on workers, a call from another thread waits in the queue... */
  CHECK_INT(bt_sched_set_threads(s, 2), BT_OK);
  CHECK_INT(bt_sched_threads(s), 2);
  sys_thread t;
  REQUIRE(sys_thread_start(&t, wake_from_another_thread, m[0]) == 0);
  sys_thread_join(&t);
  CHECK_INT(bt_sched_list(s, m[0]->brain, NULL), BT_SCHED_HIBERNATING);
  REQUIRE(sys_thread_start(&t, fire_from_another_thread, &unbound) == 0);
  sys_thread_join(&t);
  /* ...until the scheduler turns serial again */
  CHECK_INT(bt_sched_set_threads(s, 0), BT_OK);
  CHECK_INT(bt_sched_threads(s), 0);
  CHECK_INT(bt_sched_list(s, m[0]->brain, NULL), BT_SCHED_UPDATING);
  CHECK_INT(bt_sched_list(s, m[1]->brain, NULL), BT_SCHED_HIBERNATING);
  bt_sched_stats_get(s, &st);
  CHECK_INT(st.commands, 2);
  CHECK_INT(st.rejected, 1);
  CHECK(strstr(bt_sched_errmsg(s), "fire_event of brain 2: bound to no instance") != NULL);
  W.now += 1; /* past the Priority's period */
  CHECK_INT(bt_sched_update(s, 2, NULL), BT_OK);
  CHECK_INT(atomic_load(&m[0]->thinks), 2);
  CHECK_INT(atomic_load(&m[1]->thinks), 1);
  CHECK_INT(bt_sched_flush(s), BT_OK);
  bt_sched_free(s);
  M_ts = NULL;
  for (int i = 0; i < 2; i++) mob_free(m[i]);
  bt_def_release(def);
}

static void test_calls(void) {
  bt_sched *ts;
  CHECK_INT(bt_sched_create(NULL, 1.0), BT_EINVAL);
  CHECK_INT(sched_create_on_workers(&ts, 0), BT_EINVAL);
  CHECK(ts == NULL);
  bt_sched_free(NULL);
  bt_def *def = mob_def(api_leaf);
  REQUIRE(sched_create_on_workers(&M_ts, 1.0 / 30) == BT_OK);
  ts = M_ts;
  CHECK_INT(bt_sched_set_threads(ts, -1), BT_EINVAL);
  CHECK_INT(bt_sched_set_threads(ts, BT_POOL_MAX_THREADS + 1), BT_EINVAL);
  CHECK_INT(bt_sched_set_executor(ts, &(bt_executor){NULL, NULL, 2}), BT_EINVAL);
  CHECK_INT(bt_sched_set_executor(ts, &(bt_executor){counting_run, NULL, 0}), BT_EINVAL);
  CHECK_INT(bt_sched_set_batch_size(ts, -1), BT_EINVAL);
  CHECK_INT(bt_sched_set_policy(ts, 7), BT_EINVAL);
  CHECK_INT(bt_sched_set_tick_time(ts, 0), BT_EINVAL);
  CHECK_INT(bt_sched_set_tick_time(ts, 1.0 / 30), BT_OK);
  CHECK_NUM(bt_sched_tick_time(ts), 1.0 / 30);
  CHECK_INT(bt_sched_set_inst(ts, 0, NULL), BT_EINVAL);
  CHECK_INT(bt_sched_threads(ts), 1);
  mob *m[3];
  for (int i = 0; i < 3; i++) m[i] = mob_new(def, i);
  /* made between frames by the thread that runs them: applied at once */
  CHECK_INT(bt_sched_add(ts, m[0]->brain), BT_OK);
  CHECK_INT(bt_sched_list(ts, m[0]->brain, NULL), BT_SCHED_UPDATING);
  CHECK_INT(bt_sched_add(ts, 5000), BT_EINVAL);
  CHECK_INT(bt_sched_add(ts, -1), BT_EINVAL);
  CHECK_INT(bt_sched_set_period(ts, m[0]->brain, 0.0 / 0.0), BT_EINVAL);
  CHECK_INT(bt_sched_set_period(ts, m[0]->brain, -1), BT_EINVAL);
  CHECK_INT(bt_sched_set_period(ts, m[0]->brain, 0.5), BT_OK);
  CHECK_INT(bt_sched_fire_event(ts, m[2]->brain, 0), BT_EINVAL); /* the root: no EventNode */
  CHECK_INT(bt_sched_fire_event(ts, m[2]->brain, -1), BT_EINVAL);
  double triggered = 0;
  CHECK_INT(bt_sched_fire_event(ts, m[2]->brain, M_alarm), BT_OK);
  CHECK_INT(bt_node_get(m[2]->inst, M_alarm, BT_FIELD_TRIGGERED, &triggered), 1);
  CHECK_NUM(triggered, 1);
  CHECK_INT(bt_sched_set_inst(ts, m[0]->brain, NULL), BT_EINVAL);
  CHECK_INT(bt_sched_set_inst(ts, 5000, m[0]->inst), BT_EINVAL);
  CHECK(bt_sched_inst(ts, m[0]->brain) == m[0]->inst);
  CHECK(bt_sched_inst(ts, 5000) == NULL);
  CHECK_INT(bt_sched_post(ts, NULL, NULL, NULL, 0), BT_EINVAL);
  CHECK_INT(bt_sched_force_update(ts, 5000), BT_EINVAL);
  CHECK_INT(bt_sched_force_update(ts, m[0]->brain), BT_OK);
  double sleep;
  CHECK_INT(bt_inst_sleep_time(m[0]->inst, &sleep), 1);
  CHECK_NUM(sleep, 0);
  CHECK_INT(bt_sched_hibernate(ts, m[1]->brain), BT_OK); /* not registered: nothing */
  CHECK_INT(bt_sched_list(ts, m[1]->brain, NULL), BT_SCHED_NONE);
  CHECK_INT(bt_sched_add(ts, m[1]->brain), BT_OK);
  CHECK_INT(bt_sched_hibernate(ts, m[1]->brain), BT_OK);
  CHECK_INT(bt_sched_list(ts, m[1]->brain, NULL), BT_SCHED_HIBERNATING);
  CHECK_INT(bt_sched_frame_end(ts), BT_EINVAL); /* no frame begun */
  CHECK_INT(bt_sched_frame_run(ts, 0), BT_EINVAL);
  CHECK_INT(bt_sched_frame_begin(ts, 1, NULL, NULL), BT_EINVAL);
  CHECK_INT(bt_sched_flush(ts), BT_OK);
  CHECK(strcmp(bt_sched_errmsg(ts), "") == 0); /* nothing refused from a queue yet */

  /* inside a think: the frame's calls are refused, the others queued */
  leaf_action = calls_inside_a_think;
  leaf_calls = 0;
  CHECK_INT(frame(ts, 1, NULL), BT_OK);
  CHECK_INT(leaf_calls, 1);
  CHECK_INT(leaf_rc[0], BT_EBUSY);
  CHECK_INT(leaf_rc[1], BT_EBUSY);
  CHECK_INT(leaf_rc[2], BT_EBUSY);
  CHECK_INT(leaf_rc[3], BT_EBUSY);
  CHECK_INT(leaf_rc[4], BT_EBUSY);
  CHECK_INT(leaf_rc[5], BT_EBUSY);
  CHECK_INT(leaf_rc[6], BT_OK);
  CHECK_INT(leaf_rc[7], BT_OK);
  CHECK_INT(leaf_rc[8], BT_EINVAL);
  CHECK_INT(leaf_rc[9], BT_OK);
  CHECK_INT(leaf_rc[10], BT_SCHED_HIBERNATING); /* the wake is not applied yet */
  CHECK_INT(leaf_rc[11], BT_OK);
  CHECK_INT(bt_node_get(m[1]->inst, M_alarm, BT_FIELD_TRIGGERED, &triggered), 1);
  CHECK_NUM(triggered, 1);
  CHECK_INT(m[1]->heard, 0);
  CHECK_INT(atomic_load(&m[1]->thinks), 0);      /* woken by a leaf: not in this frame */
  CHECK_INT(bt_sched_list(ts, m[1]->brain, NULL), BT_SCHED_UPDATING);
  bt_sched_stats st;
  bt_sched_stats_get(ts, &st);
  CHECK_INT(st.rejected, 2);
  CHECK_INT(st.commands, 4);
  CHECK_INT(st.frames, 1);
  CHECK_INT(st.due, 1);
  CHECK(strstr(bt_sched_errmsg(ts), "tick 1: wake of brain 5000: no such brain") != NULL);
  leaf_action = NULL;
  CHECK_INT(frame(ts, 2, NULL), BT_OK);
  CHECK_INT(m[1]->heard, 1); /* at the next frame, with the event */
  CHECK_INT(bt_sched_tick(ts), 2);

  /* an event for a node that is no EventNode: refused when applied, and said */
  leaf_action = bad_event_inside_a_think;
  CHECK_INT(frame(ts, 3, NULL), BT_OK);
  CHECK_INT(leaf_rc[0], BT_OK);
  CHECK_STR(bt_sched_errmsg(ts), "tick 3: fire_event of brain 1: node 0 is not an EventNode of its tree");
  leaf_action = NULL;

  /* the host's commands, in order; one posted by a command runs after the others */
  leaf_action = posts_inside_a_think;
  norder = 0;
  CHECK_INT(frame(ts, 4, NULL), BT_OK);
  CHECK_INT(leaf_rc[0], BT_OK);
  CHECK_INT(leaf_rc[1], BT_OK);
  CHECK_INT(leaf_rc[2], BT_EINVAL);
  CHECK_INT(leaf_rc[3], BT_EINVAL);
  CHECK_INT(norder, 3);
  CHECK_INT(order_log[0], 1);
  CHECK_INT(order_log[1], 2);
  CHECK_INT(order_log[2], 3);
  leaf_action = NULL;
  /* between frames a command runs at once, and one it posts too */
  norder = 0;
  CHECK_INT(bt_sched_post(ts, log_post, (void *)(intptr_t)1, NULL, 0), BT_OK);
  CHECK_INT(norder, 2);
  CHECK_INT(order_log[1], 3);

  /* from another thread: queued until the next point commands are applied */
  sys_thread t;
  REQUIRE(sys_thread_start(&t, queue_from_other_thread, NULL) == 0);
  sys_thread_join(&t);
  CHECK_INT(leaf_rc[0], BT_OK);
  CHECK_INT(leaf_rc[1], BT_EINVAL);
  CHECK_INT(leaf_rc[2], BT_OK);
  CHECK_INT(leaf_rc[3], BT_OK);
  CHECK_INT(bt_sched_list(ts, 2, NULL), BT_SCHED_UPDATING);
  CHECK(strstr(bt_sched_errmsg(ts), "hibernate of brain 777") != NULL);
  /* that thread runs the frames now: this one's calls are queued until the next frame */
  CHECK_INT(bt_sched_remove(ts, 2), BT_OK);
  CHECK_INT(bt_sched_list(ts, 2, NULL), BT_SCHED_UPDATING);
  CHECK_INT(frame(ts, 5, NULL), BT_OK); /* applied first: brain 2 does not think */
  CHECK_INT(bt_sched_list(ts, 2, NULL), BT_SCHED_NONE);
  CHECK_INT(atomic_load(&m[2]->thinks), 0);

  /* the three calls, by hand */
  int nb = -1;
  W.now += 1;
  CHECK_INT(bt_sched_frame_begin(ts, 6, NULL, &nb), BT_OK);
  CHECK_INT(nb, 1);
  CHECK_INT(bt_sched_frame_begin(ts, 6, NULL, &nb), BT_EBUSY);
  CHECK_INT(nb, 0);
  CHECK_INT(bt_sched_flush(ts), BT_EBUSY);
  CHECK_INT(bt_sched_set_threads(ts, 2), BT_EBUSY);
  CHECK_INT(frame(ts, 6, NULL), BT_EBUSY);
  CHECK_INT(bt_sched_add(ts, m[2]->brain), BT_OK); /* queued during a frame */
  CHECK_INT(bt_sched_frame_run(ts, 1), BT_EINVAL);
  CHECK_INT(bt_sched_frame_run(ts, -1), BT_EINVAL);
  CHECK_INT(bt_sched_frame_run(ts, 0), BT_OK);
  CHECK_INT(bt_sched_frame_run(ts, 0), BT_EINVAL); /* once */
  CHECK_INT(bt_sched_frame_end(ts), BT_OK);
  CHECK_INT(bt_sched_list(ts, m[2]->brain, NULL), BT_SCHED_UPDATING);
  /* a frame whose batch the host did not run: the end runs it */
  long long before = atomic_load(&m[0]->thinks);
  W.now += 1;
  CHECK_INT(bt_sched_frame_begin(ts, 7, NULL, &nb), BT_OK);
  CHECK_INT(bt_sched_frame_end(ts), BT_EINVAL);
  CHECK(strstr(bt_sched_errmsg(ts), "were not run by the host") != NULL);
  CHECK_INT(atomic_load(&m[0]->thinks), before + 1);

  /* an executor of the host's */
  CHECK_INT(bt_sched_set_executor(ts, &(bt_executor){counting_run, NULL, 3}), BT_OK);
  CHECK_INT(bt_sched_threads(ts), 3);
  host_executor_calls = 0;
  CHECK_INT(frame(ts, 8, NULL), BT_OK);
  CHECK_INT(host_executor_calls, 1);
  CHECK_INT(bt_sched_set_executor(ts, NULL), BT_OK);
  CHECK_INT(bt_sched_threads(ts), 1);
  host_executor_calls = 0;
  CHECK_INT(frame(ts, 9, NULL), BT_OK);
  CHECK_INT(host_executor_calls, 0);

  /* freed: between frames at once, and its instance with it */
  CHECK_INT(bt_sched_brain_free(ts, m[2]->brain), BT_OK);
  CHECK_INT(bt_sched_list(ts, m[2]->brain, NULL), BT_EINVAL);
  CHECK_INT(bt_sched_brain_free(ts, m[2]->brain), BT_EINVAL);
  bt_sched_stats_get(ts, &st);
  CHECK_INT(st.registered, 2);
  for (int i = 0; i < 3; i++) mob_free(m[i]);
  bt_sched_free(ts);
  bt_def_release(def);
}

/* ---- recording every brain of a scheduler (bt_sched_set_recording) ---- */

#define REC_BRAINS 40
static int rec_flag[REC_BRAINS]; /* each brain's condition, flipped by the frames */
static unsigned long long rec_hash[REC_BRAINS];
static int rec_count[REC_BRAINS];

static int rec_cond(bt_call *c) { return rec_flag[(intptr_t)bt_inst_agent(c->inst)]; }
static int rec_act(bt_call *c) { return rec_flag[(intptr_t)bt_inst_agent(c->inst)] ? 1 : 0; }


/* Frames of REC_BRAINS brains on `workers` workers, recording into rings; each brain's records
 * hashed into rec_hash. */
static void run_recorded(int workers, bt_def *def) {
  bt_sched *ts = NULL;
  bt_inst *in[REC_BRAINS];
  REQUIRE(sched_create_on_workers(&ts, 0.1) == BT_OK);
  REQUIRE(bt_sched_set_threads(ts, workers) == BT_OK);
  bt_sched_set_batch_size(ts, 3);
  for (int i = 0; i < REC_BRAINS / 2; i++) { /* half the brains before recording is switched on */
    REQUIRE(bt_inst_create(&in[i], def, &w_host, (void *)(intptr_t)i, BT_INST_NOSCATTER) == BT_OK);
    REQUIRE(bt_inst_seed(in[i], (unsigned long long)i + 1) == BT_OK);
    REQUIRE(bt_inst_scatter(in[i]) == BT_OK);
    REQUIRE(bt_sched_add(ts, brain_bound(ts, in[i])) == BT_OK);
  }
  bt_rec *own = NULL; /* a host's recorder of its own on brain 0: recording leaves it alone */
  REQUIRE(bt_rec_create(&own, 4) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in[0], own) == BT_OK);
  bt_rec_options o = {64, NULL, NULL, NULL};
  CHECK_INT(bt_sched_set_recording(NULL, &o), BT_EINVAL);
  CHECK_INT(bt_sched_set_recording(ts, &o), BT_OK);
  for (int i = REC_BRAINS / 2; i < REC_BRAINS; i++) { /* the rest after: they record too */
    REQUIRE(bt_inst_create(&in[i], def, &w_host, (void *)(intptr_t)i, BT_INST_NOSCATTER) == BT_OK);
    REQUIRE(bt_inst_seed(in[i], (unsigned long long)i + 1) == BT_OK);
    REQUIRE(bt_inst_scatter(in[i]) == BT_OK);
    REQUIRE(bt_sched_add(ts, brain_bound(ts, in[i])) == BT_OK);
  }
  CHECK(bt_inst_recorder(in[0]) == own);
  for (int i = 1; i < REC_BRAINS; i++) {
    bt_rec *r = bt_inst_recorder(in[i]);
    CHECK(r != NULL && r != own);
    if (r) CHECK_INT((int)bt_rec_agent(r), i); /* the brain's id */
  }
  for (int f = 1; f <= 30; f++) {
    W.now = f * 0.1;
    for (int i = 0; i < REC_BRAINS; i++) rec_flag[i] = (f / (1 + i % 4)) % 2;
    CHECK_INT(bt_sched_update(ts, f, NULL), BT_OK);
  }
  for (int i = 1; i < REC_BRAINS; i++) {
    bt_rec *r = bt_inst_recorder(in[i]);
    rec_hash[i] = 1469598103934665603ULL;
    rec_count[i] = r ? (int)bt_rec_total(r) : 0;
    bt_rec_entry e;
    for (size_t k = 0; r && bt_rec_get(r, k, &e) == BT_OK; k++)
      rec_hash[i] = (rec_hash[i] ^ (unsigned long long)(e.type * 1000003 + e.node * 131 + e.from * 7 + e.to) ^
                     (unsigned long long)(e.time * 1000)) * 1099511628211ULL;
  }
  CHECK_INT(bt_sched_set_recording(ts, NULL), BT_OK); /* off: what it made goes, the host's stays */
  CHECK(bt_inst_recorder(in[0]) == own);
  for (int i = 1; i < REC_BRAINS; i++) CHECK(bt_inst_recorder(in[i]) == NULL);
  for (int i = 0; i < REC_BRAINS; i++) bt_inst_free(in[i]);
  bt_rec_free(own);
  bt_sched_free(ts);
}

static void test_recording(void) {
  bt_builder *b;
  bt_def *def = NULL;
  REQUIRE(bt_builder_create(&b) == BT_OK);
  bt_builder_priority(b, "Root", 0.3);
  bt_builder_sequence(b, "Busy");
  bt_builder_condition(b, rec_cond, NULL, "Flag");
  bt_builder_action(b, rec_act, NULL, "Act");
  bt_builder_wait(b, 0.2);
  bt_builder_back(b);
  bt_builder_wait(b, 0.5);
  REQUIRE(bt_builder_end(b, &def, NULL) == BT_OK);
  bt_builder_free(b);
  unsigned long long one[REC_BRAINS];
  int counts[REC_BRAINS];
  run_recorded(1, def);
  memcpy(one, rec_hash, sizeof one);
  memcpy(counts, rec_count, sizeof counts);
  for (int i = 1; i < REC_BRAINS; i++) CHECK(counts[i] > 30); /* every brain recorded its thinks */
  run_recorded(2, def);
  for (int i = 1; i < REC_BRAINS; i++) {
    CHECK(rec_hash[i] == one[i]); /* the same records on two workers as on one */
    CHECK_INT(rec_count[i], counts[i]);
  }
  bt_def_release(def);
}

int main(void) {
  test_pool();
  test_refused_thread();
  test_same_for_any_workers();
  test_files_as_serial();
  test_other_threads();
  test_brains_made_in_frames();
  test_shared_definition();
  test_seed();
  test_serial_and_workers();
  test_calls();
  test_recording();
  check_count += (int)atomic_load(&worker_checks);
  check_failures += (int)atomic_load(&worker_failures);
  return check_report("test_threads");
}
