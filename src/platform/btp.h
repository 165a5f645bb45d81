/* SPDX-License-Identifier: MIT */
/*
 * btp.h: the platform layer (names btp_*), beneath the engine: threads, locks, condition
 * variables, a once-only call, the monotonic clock, paths (the program's, a file's real path and
 * its folder), a file's stamp, and the system's part of the file watcher. Never installed.
 *
 * It is the only code that includes a system header beyond the C library's, and it calls
 * nothing of bt: it takes only the error codes of bt_core.h. Each system has a folder of the same
 * files, posix/ (Linux, macOS, the BSDs) and win32/ (Windows, on Win32 itself); a port to another
 * system writes them and the types below, nothing else:
 *
 *   thread.c   threads, mutexes, condition variables, once, the processors
 *   clock.c    the monotonic clock, sleeping
 *   path.c     the program's path, real paths and folders, a file's stamp
 *   watch.c    the folder watcher (inotify on Linux; none elsewhere: callers poll stamps)
 *   term.c     the terminal (termios; the Windows console)
 *   memory.c   memory on a boundary
 *
 * Every function that can fail returns BT_OK (0) or a negative BT_E* code; when the system said
 * why (BT_EIO), errno holds its reason. Nothing here aborts or exits.
 */
#ifndef BTP_H
#define BTP_H

#include <stddef.h>
#include <stdio.h>

#ifndef _WIN32
#include <pthread.h>
#endif

#include "bt_core.h"

/* Declares a function of the platform layer, invisible outside the library that holds it. */
#if defined(__GNUC__) && !defined(_WIN32)
#define BTP_FUNC __attribute__((visibility("hidden"))) extern
#else
#define BTP_FUNC extern
#endif

/* ---- threads (thread.c) ---- */

/* A thread. It holds what it runs: it must stay where it is from btp_thread_create to the join. */
typedef struct btp_thread {
#ifdef _WIN32
  void *handle; /* the thread's HANDLE */
#else
  pthread_t id;
#endif
  void (*fn)(void *arg);
  void *arg;
} btp_thread;

/* Starts a thread that runs fn(arg), with every signal blocked, so that the host's signals go to
 * the host's threads. BT_OK; BT_ETHREAD when the system refuses a thread; BT_EINVAL for a NULL t
 * or fn. */
BTP_FUNC int btp_thread_create(btp_thread *t, void (*fn)(void *arg), void *arg);

/* Waits until t's function has returned, and frees what the system kept for t. BT_OK; BT_EINVAL
 * when t is not a thread to join (joined already, or the calling thread itself). */
BTP_FUNC int btp_thread_join(btp_thread *t);

/* Gives the calling thread's core to any other thread that wants it. No errors. */
BTP_FUNC void btp_thread_yield(void);
/* The processors online, at least 1 (1 when the system does not say). */
BTP_FUNC int btp_cpu_count(void);

/* ---- mutexes (thread.c) ---- */

typedef struct btp_mutex {
#ifdef _WIN32
  void *srw;           /* an SRWLOCK, which is one pointer */
  unsigned long owner; /* a recursive mutex's holder's thread id, 0 when free */
  unsigned count;      /* how many times the holder locked it */
  int recursive;
#else
  pthread_mutex_t m;
#endif
} btp_mutex;

/* Makes a mutex. BT_OK; BT_ENOMEM when the system lacks the memory or resources for one. */
BTP_FUNC int btp_mutex_init(btp_mutex *m);

/* Makes a mutex that the thread holding it may lock again (and must unlock as many times).
 * BT_OK; BT_ENOMEM when the system lacks the memory or resources for one. */
BTP_FUNC int btp_mutex_init_recursive(btp_mutex *m);

/* Lock, unlock and free a mutex made by btp_mutex_init*. No errors; a mutex is freed unlocked. */
BTP_FUNC void btp_mutex_lock(btp_mutex *m);
BTP_FUNC void btp_mutex_unlock(btp_mutex *m);
BTP_FUNC void btp_mutex_destroy(btp_mutex *m);

/* ---- condition variables (thread.c) ---- */

typedef struct btp_cond {
#ifdef _WIN32
  void *cv; /* a CONDITION_VARIABLE, which is one pointer */
#else
  pthread_cond_t c;
#endif
} btp_cond;

/* btp_cond_timedwait's result when the time ran out (not an error). */
#define BTP_TIMEDOUT 1

/* Makes a condition variable; its timed waits measure btp_time_monotonic. BT_OK; BT_ENOMEM when
 * the system lacks the memory or resources for one. */
BTP_FUNC int btp_cond_init(btp_cond *c);

/* Releases m (locked by the caller), waits until c is signalled, and locks m again. A wait may
 * also end without a signal: callers test their condition in a loop. No errors. */
BTP_FUNC void btp_cond_wait(btp_cond *c, btp_mutex *m);

/* As btp_cond_wait, for at most `seconds` (0 or more; far futures are cut to a year). BT_OK when
 * woken, BTP_TIMEDOUT when the time ran out (m is locked again either way); BT_EINVAL, without
 * waiting, for a negative or NaN time. */
BTP_FUNC int btp_cond_timedwait(btp_cond *c, btp_mutex *m, double seconds);

/* Wakes one waiter, or every waiter, of c; frees c (no thread may wait on it). No errors. */
BTP_FUNC void btp_cond_signal(btp_cond *c);
BTP_FUNC void btp_cond_broadcast(btp_cond *c);
BTP_FUNC void btp_cond_destroy(btp_cond *c);

/* ---- once (thread.c) ---- */

typedef struct btp_once {
#ifdef _WIN32
  void *o; /* an INIT_ONCE, which is one pointer */
#else
  pthread_once_t o;
#endif
} btp_once;

#ifdef _WIN32
#define BTP_ONCE_INIT {0}
#else
#define BTP_ONCE_INIT {PTHREAD_ONCE_INIT}
#endif

/* Calls fn the first time any thread runs it with `once`; a thread that comes meanwhile waits
 * until that call has returned. No errors. */
BTP_FUNC void btp_once_run(btp_once *once, void (*fn)(void));

/* ---- memory (memory.c) ---- */

/* size bytes on a boundary of align bytes (a power of two), or NULL when out of memory. Freed by
 * btp_aligned_free alone (Windows' runtime keeps such blocks apart from malloc's). */
BTP_FUNC void *btp_aligned_alloc(size_t align, size_t size);
/* Frees what btp_aligned_alloc gave; NULL is allowed. No errors. */
BTP_FUNC void btp_aligned_free(void *p);

/* ---- the clock (clock.c) ---- */

/* Seconds since some moment of the system's (its boot), from a clock that never goes back and is
 * not moved when the date is set. No errors. */
BTP_FUNC double btp_time_monotonic(void);

/* Suspends the calling thread for about `seconds` (nothing for 0, a negative time or NaN). No
 * errors. */
BTP_FUNC void btp_sleep(double seconds);

/* ---- paths and files (path.c) ---- */

/* A buffer of this size holds any path the system gives. */
#define BTP_PATH_MAX 4096

/* Writes the absolute path of the running program's file into buf (size bytes, the terminating
 * zero included), as the system tells it: Linux (/proc/self/exe), macOS (_NSGetExecutablePath,
 * made real), FreeBSD, DragonFly and NetBSD (sysctl), Windows (GetModuleFileNameW). BT_OK;
 * BT_EINVAL for a NULL buf, a size of 0, or a path longer than size - 1 (buf then holds "",
 * nothing is written past it); BT_ENOMEM; BT_EIO when the system cannot tell (errno), ENOSYS
 * where it has no way (OpenBSD): callers then go by argv[0]. */
BTP_FUNC int btp_program_path(char *buf, size_t size);

/* Writes path made absolute, without symbolic links or "." and ".." parts, into buf (size bytes,
 * the terminating zero included). BT_OK; BT_EIO when path does not exist or cannot be followed
 * (errno); BT_ENOMEM; BT_EINVAL for a NULL argument, a size of 0, or a result longer than
 * size - 1 (buf then holds ""). */
BTP_FUNC int btp_path_real(const char *path, char *buf, size_t size);

/* Cuts a real path (btp_path_real's) to the folder that holds it, in place: "/a/b/c" becomes
 * "/a/b", "/c" becomes "/". No errors. */
BTP_FUNC void btp_path_folder(char *path);

/* What changes when a file is written: its modification time and its size. */
typedef struct btp_stamp {
  long long sec, nsec; /* the modification time */
  long long size;      /* in bytes */
} btp_stamp;

/* The stamp of the file at path, into *out. BT_OK; BT_EIO when it cannot be read (errno);
 * BT_EINVAL for a NULL argument. */
BTP_FUNC int btp_file_stamp(const char *path, btp_stamp *out);
/* fopen(path, mode), but where another program may be replacing the file at that moment: on
 * Windows a file being renamed over or written with no sharing cannot be opened for a while
 * (EACCES), and this tries again for up to a quarter of a second. The stream or NULL (errno), as
 * fopen's. */
BTP_FUNC FILE *btp_file_open(const char *path, const char *mode);

/* 1 when path names a folder (following links), else 0. */
BTP_FUNC int btp_path_is_dir(const char *path);

/* 1 when s matches the shell pattern (as POSIX's fnmatch with no flags: '*' any text, '?' any one
 * character, "[a-z]" and "[!a-z]" a class, '\' takes the next character as it is; '/' is matched
 * by all three), else 0. No errors: a malformed class matches nothing. */
BTP_FUNC int btp_pattern_match(const char *pattern, const char *s);

/* ---- the folder watcher (watch.c) ---- */

/* The system's report of files written in folders: a watcher keeps what it was told since its last
 * read, and never blocks. */
typedef struct btp_watch btp_watch;

/* Makes a watcher, into *out (NULL on failure). BT_OK; BT_ENOMEM; BT_EIO when the system has no
 * folder watcher here or refuses one (errno): the caller then compares btp_file_stamp's. */
BTP_FUNC int btp_watch_open(btp_watch **out);

/* Watches the files of folder (not its subfolders). Watching a folder again changes nothing.
 * BT_OK; BT_EIO when the folder cannot be watched (errno: it does not exist, it is no folder,
 * it may not be read, the system's limit of watches); BT_ENOMEM; BT_EINVAL for a NULL argument. */
BTP_FUNC int btp_watch_add(btp_watch *w, const char *folder);

/* Calls fn(data, path) for every report since the last read: a file of a watched folder was
 * written and closed, created, or renamed into it (as an editor that saves by renaming a new
 * file over the old one does). path is the folder as given to btp_watch_add, a separator and the
 * file's name, valid during the call; a file may be reported more than once. Never blocks. fn may
 * leave by a long jump (a Lua error): nothing leaks, the reports not yet handed over are lost.
 * BT_OK; BT_EIO when the system's reports cannot be read (errno); BT_EINVAL for a NULL w or fn. */
BTP_FUNC int btp_watch_read(btp_watch *w, void (*fn)(void *data, const char *path), void *data);

/* Stops watching and frees w. NULL is allowed. No errors. */
BTP_FUNC void btp_watch_close(btp_watch *w);

/* ---- the terminal (term.c): for a program's own view ---- */

/* 1 when standard output (output nonzero) or standard input is a terminal, else 0. */
BTP_FUNC int btp_term_is_tty(int output);

/* The terminal's settings a view changes, to give back. */
typedef struct btp_term btp_term;

/* Takes keys from standard input as they are typed, unechoed (Ctrl-C still interrupts), when it is
 * a terminal; else reads it as it is. BT_OK; BT_EINVAL (out NULL); BT_ENOMEM. */
BTP_FUNC int btp_term_open(btp_term **out);
/* Gives the terminal back its settings, and frees t. NULL is allowed. */
BTP_FUNC void btp_term_close(btp_term *t);
/* A byte of standard input within timeout_ms milliseconds, or -1 (none came, a signal came, or
 * the input ended: then it waits the timeout out). */
BTP_FUNC int btp_term_read(btp_term *t, int timeout_ms);
/* Standard output's terminal's columns and rows. BT_OK; BT_EIO when it is no terminal or does
 * not say; BT_EINVAL for a NULL argument. */
BTP_FUNC int btp_term_size(int *cols, int *rows);
/* Writes size bytes of data to standard output, all of them. BT_OK, or BT_EIO (errno). */
BTP_FUNC int btp_term_write(const void *data, size_t size);

/* Calls fn(signal) when the program is asked to end: Ctrl-C (SIGINT), SIGTERM, and SIGHUP on
 * POSIX systems, Ctrl-Break on Windows. fn runs as a signal handler: it may only set a flag of
 * type volatile sig_atomic_t. No errors. */
BTP_FUNC void btp_quit_catch(void (*fn)(int sig));

/* Makes a standard stream (stdin, stdout) carry bytes as they are: on Windows, where it
 * translates line ends by default, it is put in binary mode; elsewhere nothing changes. BT_OK;
 * BT_EIO when the stream cannot be (errno); BT_EINVAL for NULL. */
BTP_FUNC int btp_stream_binary(FILE *stream);

#endif
