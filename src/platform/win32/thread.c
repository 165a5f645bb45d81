/* SPDX-License-Identifier: MIT */
/* thread.c: threads, mutexes, condition variables and once-only calls on Win32 itself (threads,
 * SRWLOCK, CONDITION_VARIABLE, INIT_ONCE), not a POSIX emulation; the processors online. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <math.h>
#include <string.h>

#include "btp.h"

#define LONGEST_WAIT (365.0 * 24 * 3600)

_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "an SRWLOCK is one pointer (btp_mutex.srw)");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "a CONDITION_VARIABLE is one pointer");
_Static_assert(sizeof(INIT_ONCE) == sizeof(void *), "an INIT_ONCE is one pointer (btp_once)");

#define SRW(m) ((PSRWLOCK)&(m)->srw)
#define CV(c) ((PCONDITION_VARIABLE)&(c)->cv)

/* ---- threads ---- */

static DWORD WINAPI thread_main(LPVOID arg) {
  btp_thread *t = arg;
  t->fn(t->arg);
  return 0;
}

int btp_thread_create(btp_thread *t, void (*fn)(void *arg), void *arg) {
  if (!t || !fn) return BT_EINVAL;
  t->fn = fn;
  t->arg = arg;
  t->handle = CreateThread(NULL, 0, thread_main, t, 0, NULL);
  return t->handle ? BT_OK : BT_ETHREAD;
}

int btp_thread_join(btp_thread *t) {
  if (!t || !t->handle || GetThreadId(t->handle) == GetCurrentThreadId()) return BT_EINVAL;
  if (WaitForSingleObject(t->handle, INFINITE) != WAIT_OBJECT_0) return BT_EINVAL;
  CloseHandle(t->handle);
  t->handle = NULL;
  return BT_OK;
}

void btp_thread_yield(void) { SwitchToThread(); }

int btp_cpu_count(void) {
  DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  return n >= 1 && n < 1 << 20 ? (int)n : 1;
}

/* ---- mutexes: an SRWLOCK; a recursive one counts its holder's locks itself ---- */

int btp_mutex_init(btp_mutex *m) {
  if (!m) return BT_EINVAL;
  InitializeSRWLock(SRW(m));
  m->owner = 0;
  m->count = 0;
  m->recursive = 0;
  return BT_OK;
}

int btp_mutex_init_recursive(btp_mutex *m) {
  int rc = btp_mutex_init(m);
  if (rc == BT_OK) m->recursive = 1;
  return rc;
}

/* Only the holder writes owner, and only its own id or 0: another thread never reads its own id
 * there, so the unlocked read below is safe. */
void btp_mutex_lock(btp_mutex *m) {
  if (m->recursive) {
    DWORD self = GetCurrentThreadId();
    if (InterlockedCompareExchange((volatile LONG *)&m->owner, 0, 0) == (LONG)self) {
      m->count++;
      return;
    }
    AcquireSRWLockExclusive(SRW(m));
    InterlockedExchange((volatile LONG *)&m->owner, (LONG)self);
    m->count = 1;
    return;
  }
  AcquireSRWLockExclusive(SRW(m));
}

void btp_mutex_unlock(btp_mutex *m) {
  if (m->recursive) {
    if (--m->count > 0) return;
    InterlockedExchange((volatile LONG *)&m->owner, 0);
  }
  ReleaseSRWLockExclusive(SRW(m));
}

void btp_mutex_destroy(btp_mutex *m) { (void)m; /* an SRWLOCK holds nothing to free */ }

/* ---- condition variables ---- */

int btp_cond_init(btp_cond *c) {
  if (!c) return BT_EINVAL;
  InitializeConditionVariable(CV(c));
  return BT_OK;
}

/* Waits ms milliseconds at most (INFINITE: for ever); a recursive mutex's count is given up during
 * the wait and taken back after. 1 when the time ran out. */
static int wait_ms(btp_cond *c, btp_mutex *m, DWORD ms) {
  unsigned count = m->count;
  if (m->recursive) InterlockedExchange((volatile LONG *)&m->owner, 0);
  BOOL woken = SleepConditionVariableSRW(CV(c), SRW(m), ms, 0);
  DWORD why = woken ? 0 : GetLastError();
  if (m->recursive) {
    InterlockedExchange((volatile LONG *)&m->owner, (LONG)GetCurrentThreadId());
    m->count = count;
  }
  return !woken && why == ERROR_TIMEOUT;
}

void btp_cond_wait(btp_cond *c, btp_mutex *m) { wait_ms(c, m, INFINITE); }

int btp_cond_timedwait(btp_cond *c, btp_mutex *m, double seconds) {
  if (isnan(seconds) || seconds < 0) return BT_EINVAL;
  double ms = ceil((seconds < LONGEST_WAIT ? seconds : LONGEST_WAIT) * 1000.0);
  if (ms >= (double)INFINITE) ms = (double)(INFINITE - 1);
  return wait_ms(c, m, (DWORD)ms) ? BTP_TIMEDOUT : BT_OK;
}

void btp_cond_signal(btp_cond *c) { WakeConditionVariable(CV(c)); }

void btp_cond_broadcast(btp_cond *c) { WakeAllConditionVariable(CV(c)); }

void btp_cond_destroy(btp_cond *c) { (void)c; /* a CONDITION_VARIABLE holds nothing to free */ }

/* ---- once ---- */

static BOOL CALLBACK once_main(PINIT_ONCE once, PVOID fn, PVOID *context) {
  (void)once;
  (void)context;
  void (*call)(void);
  memcpy(&call, &fn, sizeof call);
  call();
  return TRUE;
}

void btp_once_run(btp_once *once, void (*fn)(void)) {
  PVOID arg;
  memcpy(&arg, &fn, sizeof arg);
  InitOnceExecuteOnce((PINIT_ONCE)&once->o, once_main, arg, NULL);
}
