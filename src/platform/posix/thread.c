/* SPDX-License-Identifier: MIT */
/* thread.c: threads, mutexes, condition variables and once-only calls, on POSIX threads; the
 * processors online. */
#include "source.h" /* first: the names the C library shows */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "btp.h"

#define LONGEST_WAIT (365.0 * 24 * 3600)

/* ---- threads ---- */

static void *thread_main(void *arg) {
  btp_thread *t = arg;
  t->fn(t->arg);
  return NULL;
}

int btp_thread_create(btp_thread *t, void (*fn)(void *arg), void *arg) {
  if (!t || !fn) return BT_EINVAL;
  t->fn = fn;
  t->arg = arg;
  /* a thread starts with its creator's mask: every signal, blocked here for the moment */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&t->id, NULL, thread_main, t);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc == 0 ? BT_OK : BT_ETHREAD;
}

int btp_thread_join(btp_thread *t) {
  if (!t) return BT_EINVAL;
  return pthread_join(t->id, NULL) == 0 ? BT_OK : BT_EINVAL;
}

void btp_thread_yield(void) { sched_yield(); }

int btp_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 && n < 1 << 20 ? (int)n : 1;
}

/* ---- mutexes ---- */

int btp_mutex_init(btp_mutex *m) {
  if (!m) return BT_EINVAL;
  return pthread_mutex_init(&m->m, NULL) == 0 ? BT_OK : BT_ENOMEM;
}

int btp_mutex_init_recursive(btp_mutex *m) {
  if (!m) return BT_EINVAL;
  pthread_mutexattr_t attr;
  if (pthread_mutexattr_init(&attr) != 0) return BT_ENOMEM;
  int rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  if (rc == 0) rc = pthread_mutex_init(&m->m, &attr);
  pthread_mutexattr_destroy(&attr);
  return rc == 0 ? BT_OK : BT_ENOMEM;
}

void btp_mutex_lock(btp_mutex *m) { pthread_mutex_lock(&m->m); }

void btp_mutex_unlock(btp_mutex *m) { pthread_mutex_unlock(&m->m); }

void btp_mutex_destroy(btp_mutex *m) { pthread_mutex_destroy(&m->m); }

/* ---- condition variables ---- */

int btp_cond_init(btp_cond *c) {
  if (!c) return BT_EINVAL;
#if defined(__APPLE__)
  /* macOS has no pthread_condattr_setclock: its timed waits are relative (btp_cond_timedwait) */
  return pthread_cond_init(&c->c, NULL) == 0 ? BT_OK : BT_ENOMEM;
#else
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) return BT_ENOMEM;
  int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  if (rc == 0) rc = pthread_cond_init(&c->c, &attr);
  pthread_condattr_destroy(&attr);
  return rc == 0 ? BT_OK : BT_ENOMEM;
#endif
}

void btp_cond_wait(btp_cond *c, btp_mutex *m) { pthread_cond_wait(&c->c, &m->m); }

/* `seconds` (0 or more) as a time span */
static struct timespec span(double seconds) {
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  return ts;
}

#if !defined(__APPLE__)
/* The moment `seconds` (0 or more) from now on the clock of btp_cond_init's conditions. */
static struct timespec deadline(double seconds) {
  struct timespec ts, add = span(seconds);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += add.tv_sec;
  ts.tv_nsec += add.tv_nsec;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}
#endif

int btp_cond_timedwait(btp_cond *c, btp_mutex *m, double seconds) {
  if (isnan(seconds) || seconds < 0) return BT_EINVAL;
  if (seconds > LONGEST_WAIT) seconds = LONGEST_WAIT;
#if defined(__APPLE__)
  /* a span, not a moment: no change of the date moves it, as the monotonic clock would not */
  struct timespec wait = span(seconds);
  int rc = pthread_cond_timedwait_relative_np(&c->c, &m->m, &wait);
#else
  struct timespec until = deadline(seconds);
  int rc = pthread_cond_timedwait(&c->c, &m->m, &until);
#endif
  return rc == ETIMEDOUT ? BTP_TIMEDOUT : BT_OK;
}

void btp_cond_signal(btp_cond *c) { pthread_cond_signal(&c->c); }

void btp_cond_broadcast(btp_cond *c) { pthread_cond_broadcast(&c->c); }

void btp_cond_destroy(btp_cond *c) { pthread_cond_destroy(&c->c); }

/* ---- once ---- */

void btp_once_run(btp_once *once, void (*fn)(void)) { pthread_once(&once->o, fn); }
