/* SPDX-License-Identifier: MIT */
/* sys.h: what the C tests need of the system, on POSIX and on Windows: a new temporary folder or
 * file, an environment variable set or unset, a file renamed over another, an empty folder
 * removed, a pause, host threads (started, joined), a mutex, and the file descriptors of standard
 * input and output (pipes, duplicates). Files are removed by C's remove().
 *
 * Include it before any other header: on POSIX it asks for POSIX.1-2008 (_XOPEN_SOURCE 700) when
 * the test has not asked for a version itself. Tests live outside src/, so this is the one place
 * where they call the system; bt itself calls it through src/platform alone. */
#ifndef SYS_H
#define SYS_H

#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#define SYS_SEP "\\"
#ifndef STDIN_FILENO
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#endif
#else
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#define SYS_SEP "/"
#endif

/* A buffer of this size holds the paths the tests make. */
#define SYS_PATH_MAX 1024

/* A new empty folder whose name starts with prefix, its path into buf (size bytes). 1, or 0 when
 * none could be made. */
static inline int sys_temp_folder(char *buf, size_t size, const char *prefix) {
#ifdef _WIN32
  char base[MAX_PATH + 1];
  if (!GetTempPathA(sizeof base, base)) return 0;
  for (int n = 0; n < 1000; n++) { /* a folder left by an earlier run of the same process id */
    if (snprintf(buf, size, "%s%s%lu_%d", base, prefix, (unsigned long)GetCurrentProcessId(), n) >= (int)size)
      return 0;
    if (_mkdir(buf) == 0) return 1;
    if (errno != EEXIST) return 0;
  }
  return 0;
#else
  return snprintf(buf, size, "/tmp/%sXXXXXX", prefix) < (int)size && mkdtemp(buf) != NULL;
#endif
}

/* A new empty file whose name starts with prefix, in the system's temporary folder, its path
 * into buf (size bytes). 1, or 0 when none could be made. */
static inline int sys_temp_file(char *buf, size_t size, const char *prefix) {
#ifdef _WIN32
  char base[MAX_PATH + 1];
  if (!GetTempPathA(sizeof base, base)) return 0;
  for (int n = 0; n < 1000; n++) {
    if (snprintf(buf, size, "%s%s%lu_%d", base, prefix, (unsigned long)GetCurrentProcessId(), n) >= (int)size)
      return 0;
    int fd = _open(buf, _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
    if (fd >= 0) return _close(fd) == 0;
    if (errno != EEXIST) return 0;
  }
  return 0;
#else
  if (snprintf(buf, size, "/tmp/%sXXXXXX", prefix) >= (int)size) return 0;
  int fd = mkstemp(buf);
  return fd >= 0 && close(fd) == 0;
#endif
}

/* Sets the environment variable name to value, or removes it (value NULL). 0, or -1. On Windows
 * a value of "" removes it too: the C runtime keeps no empty variable. */
static inline int sys_setenv(const char *name, const char *value) {
#ifdef _WIN32
  return _putenv_s(name, value ? value : "") == 0 ? 0 : -1; /* "": removed */
#else
  return value ? setenv(name, value, 1) : unsetenv(name);
#endif
}

/* Renames from to to, replacing to if it exists (C's rename does not on Windows). 0, or -1. On
 * Windows a file another thread has open cannot be replaced (the C runtime opens files without
 * FILE_SHARE_DELETE): it tries again for a second meanwhile. */
static inline int sys_rename(const char *from, const char *to) {
#ifdef _WIN32
  for (int i = 0; i < 100; i++) {
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING)) return 0;
    DWORD why = GetLastError();
    if (why != ERROR_ACCESS_DENIED && why != ERROR_SHARING_VIOLATION) return -1;
    Sleep(10);
  }
  return -1;
#else
  return rename(from, to);
#endif
}

/* Removes the empty folder path. 0, or -1. */
static inline int sys_rmdir(const char *path) {
#ifdef _WIN32
  return _rmdir(path);
#else
  return rmdir(path);
#endif
}

/* path made absolute, without links, "." or "..", by the system's C library, into buf (size
 * bytes). 1, or 0 when it cannot. */
static inline int sys_full_path(const char *path, char *buf, size_t size) {
#ifdef _WIN32
  return _fullpath(buf, path, size) != NULL;
#else
  char *real = realpath(path, NULL);
  size_t len = real ? strlen(real) : 0;
  if (real && len < size) memcpy(buf, real, len + 1);
  free(real);
  return real && len < size;
#endif
}

/* Suspends the calling thread for about `seconds`. */
static inline void sys_sleep(double seconds) {
#ifdef _WIN32
  Sleep((DWORD)(seconds * 1000 + 0.5));
#else
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
#endif
}

/* Gives the calling thread's core to any other thread that wants it. */
static inline void sys_yield(void) {
#ifdef _WIN32
  SwitchToThread();
#else
  sched_yield();
#endif
}

/* ---- host threads: the system's own, as a host program makes them (pthread_create, or
 * CreateThread on Windows: test_threads wraps either at link time) ---- */

/* A thread; it must stay where it is from sys_thread_start to sys_thread_join. */
typedef struct sys_thread {
#ifdef _WIN32
  HANDLE handle;
  void *(*fn)(void *arg);
  void *arg;
#else
  pthread_t id;
#endif
} sys_thread;

#ifdef _WIN32
static inline DWORD WINAPI sys_thread_main(LPVOID p) {
  sys_thread *t = p;
  t->fn(t->arg);
  return 0;
}
#endif

/* Starts a thread that runs fn(arg). 0, or -1 when the system refuses one. */
static inline int sys_thread_start(sys_thread *t, void *(*fn)(void *arg), void *arg) {
#ifdef _WIN32
  t->fn = fn;
  t->arg = arg;
  t->handle = CreateThread(NULL, 0, sys_thread_main, t, 0, NULL);
  return t->handle ? 0 : -1;
#else
  return pthread_create(&t->id, NULL, fn, arg) == 0 ? 0 : -1;
#endif
}

/* Waits until t's function has returned. */
static inline void sys_thread_join(sys_thread *t) {
#ifdef _WIN32
  WaitForSingleObject(t->handle, INFINITE);
  CloseHandle(t->handle);
#else
  pthread_join(t->id, NULL);
#endif
}

/* A mutex, initialized by SYS_MUTEX_INIT. */
#ifdef _WIN32
typedef SRWLOCK sys_mutex;
#define SYS_MUTEX_INIT SRWLOCK_INIT
static inline void sys_mutex_lock(sys_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void sys_mutex_unlock(sys_mutex *m) { ReleaseSRWLockExclusive(m); }
#else
typedef pthread_mutex_t sys_mutex;
#define SYS_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
static inline void sys_mutex_lock(sys_mutex *m) { pthread_mutex_lock(m); }
static inline void sys_mutex_unlock(sys_mutex *m) { pthread_mutex_unlock(m); }
#endif

/* ---- file descriptors: the C runtime's POSIX-like calls on Windows, in binary mode ---- */

static inline int sys_pipe(int fds[2]) {
#ifdef _WIN32
  return _pipe(fds, 4096, _O_BINARY);
#else
  return pipe(fds);
#endif
}

#ifdef _WIN32
#define sys_dup _dup
#define sys_dup2 _dup2
#define sys_close _close
#define sys_fileno _fileno
static inline long sys_read(int fd, void *buf, size_t n) { return _read(fd, buf, (unsigned)n); }
static inline long sys_write(int fd, const void *buf, size_t n) { return _write(fd, buf, (unsigned)n); }
#else
#define sys_dup dup
#define sys_dup2 dup2
#define sys_close close
#define sys_fileno fileno
static inline long sys_read(int fd, void *buf, size_t n) { return (long)read(fd, buf, n); }
static inline long sys_write(int fd, const void *buf, size_t n) { return (long)write(fd, buf, n); }
#endif

#endif
