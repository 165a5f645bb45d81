/* SPDX-License-Identifier: MIT */
/*
 * pool.c: a pool of worker threads (bt_pool_*) that runs a batch of jobs at once, and the
 * executor that hands a bt_sched's batches to it.
 *
 * A run publishes its job with a new generation number (a release store, under the mutex, with
 * a broadcast for the threads that sleep); every worker, and the calling thread, takes job
 * indices from one atomic counter until none is left, so a slow job does not hold up the others;
 * each worker then leaves the run (an acq_rel decrement of `running`, which orders what its jobs
 * wrote before the caller's return), and the caller waits until none is left in it. Waking a
 * sleeping thread takes tens of microseconds (on a virtual machine, at times more than a frame of
 * 10,000 thinks split in two): so a worker that finished a run watches the generation for a while
 * (up to SPIN_NS) before it
 * sleeps on the condition variable, and the caller watches `running` before it sleeps, and runs
 * that follow one another closely (frames back to back, a job system's batches) wake nobody.
 * Watching yields the core after a few polls, so that more threads than cores do not starve the
 * ones that work.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "btp.h"
#include "sched_internal.h"

/* A waiting thread polls SPIN_PAUSES times with a pause, then gives its core to any other thread
 * that wants it between polls (when there are more threads than cores, a thread that only spun
 * would hold up the one it waits for) for up to SPIN_SECONDS, before it sleeps. */
#define SPIN_PAUSES 64
#define SPIN_SECONDS 200e-6

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* The wait after the i-th poll (from 0); 0 when it is time to sleep instead. */
static int keep_watching(int i, double *since) {
  if (i < SPIN_PAUSES) {
    cpu_relax();
    return 1;
  }
  if (i == SPIN_PAUSES) *since = btp_time_monotonic();
  else if (i % 16 == 0 && btp_time_monotonic() - *since > SPIN_SECONDS) return 0;
  btp_thread_yield();
  return 1;
}

struct bt_pool {
  int threads;      /* workers, the calling thread included */
  btp_thread *tids; /* threads - 1 */
  btp_mutex mu;
  btp_cond wake; /* a new run, or stop */
  btp_cond done; /* the last worker left the run */
  atomic_ulong generation; /* stored under mu (with a broadcast), read by waiting workers */
  atomic_int stop;         /* likewise */
  atomic_int running;      /* workers that have not left the run yet */
  /* the run: written before the generation that publishes it, read after it */
  bt_job_fn fn;
  void *job;
  long count;
  atomic_long next; /* the next job index to take */
  atomic_int busy;  /* a run is under way */
};

/* Runs the jobs that are left, in the order of their indices, until none is. */
static void take(bt_pool *p, bt_job_fn fn, void *job, long count) {
  for (;;) {
    long i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= count) return;
    fn(job, (int)i);
  }
}

/* Waits until the generation is no longer `seen`, or stop; returns the new one (0 on stop). */
static unsigned long next_run(bt_pool *p, unsigned long seen) {
  double since = 0;
  for (int i = 0; atomic_load_explicit(&p->generation, memory_order_acquire) == seen && !atomic_load(&p->stop); i++)
    if (!keep_watching(i, &since)) break;
  btp_mutex_lock(&p->mu);
  while (!atomic_load(&p->stop) && atomic_load(&p->generation) == seen) btp_cond_wait(&p->wake, &p->mu);
  unsigned long g = atomic_load(&p->stop) ? 0 : atomic_load(&p->generation);
  btp_mutex_unlock(&p->mu);
  return g;
}

static void worker(void *arg) {
  bt_pool *p = arg;
  unsigned long seen = 0;
  while ((seen = next_run(p, seen)) != 0) {
    take(p, p->fn, p->job, p->count);
    if (atomic_fetch_sub_explicit(&p->running, 1, memory_order_acq_rel) == 1) {
      btp_mutex_lock(&p->mu); /* the caller may be asleep */
      btp_cond_signal(&p->done);
      btp_mutex_unlock(&p->mu);
    }
  }
}

/* Stops and joins the first `started` threads. */
static void stop_threads(bt_pool *p, int started) {
  btp_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  btp_cond_broadcast(&p->wake);
  btp_mutex_unlock(&p->mu);
  for (int i = 0; i < started; i++) btp_thread_join(&p->tids[i]);
}

static void pool_destroy(bt_pool *p) {
  btp_cond_destroy(&p->done);
  btp_cond_destroy(&p->wake);
  btp_mutex_destroy(&p->mu);
  free(p->tids);
  free(p);
}

int bt_pool_create(bt_pool **out, int threads) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (threads < 1 || threads > BT_POOL_MAX_THREADS) return BT_EINVAL;
  bt_pool *p = calloc(1, sizeof *p);
  if (!p) return BT_ENOMEM;
  p->threads = threads;
  p->tids = threads > 1 ? malloc((size_t)(threads - 1) * sizeof *p->tids) : NULL;
  if (threads > 1 && !p->tids) {
    free(p);
    return BT_ENOMEM;
  }
  if (btp_mutex_init(&p->mu)) {
    free(p->tids);
    free(p);
    return BT_ENOMEM;
  }
  if (btp_cond_init(&p->wake)) {
    btp_mutex_destroy(&p->mu);
    free(p->tids);
    free(p);
    return BT_ENOMEM;
  }
  if (btp_cond_init(&p->done)) {
    btp_cond_destroy(&p->wake);
    btp_mutex_destroy(&p->mu);
    free(p->tids);
    free(p);
    return BT_ENOMEM;
  }
  atomic_init(&p->generation, 0);
  atomic_init(&p->stop, 0);
  atomic_init(&p->running, 0);
  atomic_init(&p->next, 0);
  atomic_init(&p->busy, 0);
  /* the workers block every signal (btp_thread_create), so that the host's signals go to the
   * host's threads */
  int started = 0;
  while (started < threads - 1 && btp_thread_create(&p->tids[started], worker, p) == BT_OK) started++;
  if (started < threads - 1) {
    stop_threads(p, started);
    pool_destroy(p);
    return BT_ETHREAD;
  }
  *out = p;
  return BT_OK;
}

void bt_pool_free(bt_pool *p) {
  if (!p) return;
  stop_threads(p, p->threads - 1);
  pool_destroy(p);
}

int bt_pool_threads(const bt_pool *p) { return p ? p->threads : 0; }

int bt_pool_run(bt_pool *p, int count, bt_job_fn fn, void *job) {
  if (!p || !fn || count < 0) return BT_EINVAL;
  int idle = 0;
  if (!atomic_compare_exchange_strong(&p->busy, &idle, 1)) return BT_EBUSY;
  if (p->threads == 1 || count <= 1) {
    for (int i = 0; i < count; i++) fn(job, i);
  } else {
    p->fn = fn;
    p->job = job;
    p->count = count;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->running, p->threads - 1, memory_order_relaxed);
    btp_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release); /* publishes the run */
    btp_cond_broadcast(&p->wake);
    btp_mutex_unlock(&p->mu);
    take(p, fn, job, count);
    double since = 0;
    for (int i = 0; atomic_load_explicit(&p->running, memory_order_acquire) > 0; i++)
      if (!keep_watching(i, &since)) break;
    if (atomic_load_explicit(&p->running, memory_order_acquire) > 0) {
      btp_mutex_lock(&p->mu);
      while (atomic_load_explicit(&p->running, memory_order_acquire) > 0) btp_cond_wait(&p->done, &p->mu);
      btp_mutex_unlock(&p->mu);
    }
  }
  atomic_store(&p->busy, 0);
  return BT_OK;
}

static int pool_executor_run(void *data, int count, bt_job_fn fn, void *job) {
  return bt_pool_run(data, count, fn, job);
}

void bt_pool_executor(bt_pool *p, bt_executor *out) {
  if (!out) return;
  out->run = pool_executor_run;
  out->data = p;
  out->workers = p ? p->threads : 1;
}
