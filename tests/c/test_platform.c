/* SPDX-License-Identifier: MIT */
/*
 * test_platform.c: the platform layer (src/platform, btp.h) alone, linked without the rest of bt
 * (tests/CMakeLists.txt): threads and a mutex that guards a counter under contention, a recursive
 * mutex, a condition that wakes a waiter, a timed wait that times out, once, the clock, the
 * program's path, real paths and folders, file stamps, and the folder watcher (a file written in
 * place, a file replaced by a rename, nothing when nothing changed), the processors online, a
 * folder test, and the terminal with standard input and output made pipes; sleeping, memory on a
 * boundary, shell patterns (on Linux, Windows' matcher against glibc's fnmatch on the same
 * patterns), a standard stream made binary, a file opened while another holds it (Windows); and
 * their errors.
 * Where the system has no program's path or no watcher (HAS_PROGRAM_PATH, HAS_WATCHER), that
 * they say so: BT_EIO with ENOSYS.
 */
#include "sys.h" /* first: the system's calls the test makes itself */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "btp.h"
#include "check.h"

#ifdef BT_TEST_PATTERN_C
#include <fnmatch.h>
int pattern_c_match(const char *pattern, const char *s); /* src/platform/pattern.c, renamed */
#endif

#define THREADS 4
#define ROUNDS 200000

/* What the system gives here (btp.h): the program's path everywhere but OpenBSD, a folder watcher
 * on Linux alone; neither on Linux built as on macOS and the BSDs (BTP_NO_LINUX). */
#if defined(__linux__) && !defined(BTP_NO_LINUX)
#define HAS_WATCHER 1
#else
#define HAS_WATCHER 0
#endif
#if HAS_WATCHER || defined(_WIN32) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__DragonFly__) || \
    defined(__NetBSD__)
#define HAS_PROGRAM_PATH 1
#else
#define HAS_PROGRAM_PATH 0
#endif

/* ---- threads and mutexes ---- */

typedef struct counter {
  btp_mutex mu;
  long value;
} counter;

static void count_up(void *arg) {
  counter *c = arg;
  for (int i = 0; i < ROUNDS; i++) {
    btp_mutex_lock(&c->mu);
    c->value++;
    btp_mutex_unlock(&c->mu);
  }
}

static void test_threads_and_mutex(void) {
  counter c = {.value = 0};
  CHECK_INT(btp_mutex_init(&c.mu), BT_OK);
  btp_thread t[THREADS];
  for (int i = 0; i < THREADS; i++) CHECK_INT(btp_thread_create(&t[i], count_up, &c), BT_OK);
  for (int i = 0; i < THREADS; i++) CHECK_INT(btp_thread_join(&t[i]), BT_OK);
  CHECK_INT(c.value, (long)THREADS * ROUNDS);
  btp_mutex_destroy(&c.mu);

  CHECK_INT(btp_thread_create(NULL, count_up, &c), BT_EINVAL);
  CHECK_INT(btp_thread_create(&t[0], NULL, &c), BT_EINVAL);
  CHECK_INT(btp_thread_join(NULL), BT_EINVAL);
  CHECK_INT(btp_mutex_init(NULL), BT_EINVAL);
  CHECK_INT(btp_mutex_init_recursive(NULL), BT_EINVAL);
  btp_thread_yield();
}

static void lock_once(void *arg) {
  counter *c = arg;
  btp_mutex_lock(&c->mu);
  c->value++;
  btp_mutex_unlock(&c->mu);
}

/* Locked twice and unlocked twice by one thread, a recursive mutex is free for another. */
static void test_recursive(void) {
  counter c = {.value = 0};
  CHECK_INT(btp_mutex_init_recursive(&c.mu), BT_OK);
  btp_mutex_lock(&c.mu);
  btp_mutex_lock(&c.mu);
  c.value++;
  btp_mutex_unlock(&c.mu);
  btp_mutex_unlock(&c.mu);
  btp_thread t;
  CHECK_INT(btp_thread_create(&t, lock_once, &c), BT_OK);
  CHECK_INT(btp_thread_join(&t), BT_OK);
  CHECK_INT(c.value, 2);
  btp_mutex_destroy(&c.mu);
}

/* ---- conditions ---- */

typedef struct flag {
  btp_mutex mu;
  btp_cond cond;
  int set, waiting;
  int rc; /* the waiter's last btp_cond_timedwait */
} flag;

static void wait_for_flag(void *arg) {
  flag *f = arg;
  btp_mutex_lock(&f->mu);
  f->waiting = 1;
  btp_cond_signal(&f->cond);
  while (!f->set) btp_cond_wait(&f->cond, &f->mu);
  btp_mutex_unlock(&f->mu);
}

static void timed_wait_for_flag(void *arg) {
  flag *f = arg;
  btp_mutex_lock(&f->mu);
  f->waiting = 1;
  btp_cond_signal(&f->cond);
  while (!f->set) f->rc = btp_cond_timedwait(&f->cond, &f->mu, 60.0);
  btp_mutex_unlock(&f->mu);
}

/* A waiter (fn) started, the flag set once it waits, and the waiter woken by `broadcast`. */
static void wake_waiter(void (*fn)(void *), int broadcast) {
  flag f = {.set = 0, .rc = -100};
  CHECK_INT(btp_mutex_init(&f.mu), BT_OK);
  CHECK_INT(btp_cond_init(&f.cond), BT_OK);
  btp_thread t;
  CHECK_INT(btp_thread_create(&t, fn, &f), BT_OK);
  btp_mutex_lock(&f.mu);
  while (!f.waiting) btp_cond_wait(&f.cond, &f.mu);
  f.set = 1;
  if (broadcast) btp_cond_broadcast(&f.cond);
  else btp_cond_signal(&f.cond);
  btp_mutex_unlock(&f.mu);
  CHECK_INT(btp_thread_join(&t), BT_OK);
  if (fn == timed_wait_for_flag) CHECK_INT(f.rc, BT_OK); /* woken, long before its minute */
  btp_cond_destroy(&f.cond);
  btp_mutex_destroy(&f.mu);
}

static void test_cond(void) {
  wake_waiter(wait_for_flag, 0);
  wake_waiter(wait_for_flag, 1);
  wake_waiter(timed_wait_for_flag, 0);
  CHECK_INT(btp_cond_init(NULL), BT_EINVAL);
}

/* A timed wait nobody signals ends with BTP_TIMEDOUT, not before its time. */
static void test_timedwait(void) {
  btp_mutex mu;
  btp_cond cond;
  CHECK_INT(btp_mutex_init(&mu), BT_OK);
  CHECK_INT(btp_cond_init(&cond), BT_OK);
  btp_mutex_lock(&mu);
  double start = btp_time_monotonic();
  int rc;
  while ((rc = btp_cond_timedwait(&cond, &mu, 0.05)) == BT_OK && btp_time_monotonic() - start < 0.05) {
  }
  CHECK_INT(rc, BTP_TIMEDOUT);
  CHECK(btp_time_monotonic() - start >= 0.05 - 1e-6);
  CHECK_INT(btp_cond_timedwait(&cond, &mu, 0), BTP_TIMEDOUT);
  CHECK_INT(btp_cond_timedwait(&cond, &mu, -1), BT_EINVAL);
  CHECK_INT(btp_cond_timedwait(&cond, &mu, NAN), BT_EINVAL);
  btp_mutex_unlock(&mu);
  btp_cond_destroy(&cond);
  btp_mutex_destroy(&mu);
}

/* ---- once ---- */

static btp_once once = BTP_ONCE_INIT;
static int once_calls;

static void count_call(void) { once_calls++; }

static void run_once(void *arg) {
  (void)arg;
  btp_once_run(&once, count_call);
}

static void test_once(void) {
  btp_thread t[THREADS];
  for (int i = 0; i < THREADS; i++) CHECK_INT(btp_thread_create(&t[i], run_once, NULL), BT_OK);
  run_once(NULL);
  for (int i = 0; i < THREADS; i++) CHECK_INT(btp_thread_join(&t[i]), BT_OK);
  CHECK_INT(once_calls, 1);
}

/* ---- the clock ---- */

static void test_clock(void) {
  double first = btp_time_monotonic(), last = first;
  int back = 0;
  for (int i = 0; i < 100000; i++) {
    double now = btp_time_monotonic();
    if (now < last) back++;
    last = now;
  }
  CHECK_INT(back, 0);
  CHECK(first > 0 && isfinite(first));
}

/* ---- paths ---- */

static void test_program_path(const char *argv0) {
  char expected[BTP_PATH_MAX], got[BTP_PATH_MAX];
  CHECK_INT(btp_program_path(NULL, 10), BT_EINVAL);
  CHECK_INT(btp_program_path(got, 0), BT_EINVAL);
  if (!HAS_PROGRAM_PATH) { /* the system cannot tell: BT_EIO, ENOSYS, "" */
    got[0] = 'x';
    errno = 0;
    int rc = btp_program_path(got, sizeof got), why = errno;
    CHECK_INT(rc, BT_EIO);
    CHECK_INT(why, ENOSYS);
    CHECK_STR(got, "");
    return;
  }
  CHECK(sys_full_path(argv0, expected, sizeof expected));
  CHECK_INT(btp_program_path(got, sizeof got), BT_OK);
  CHECK_STR(got, expected);

  /* a buffer one byte short: an error, "" in it, nothing written past it */
  size_t len = strlen(expected);
  char small[BTP_PATH_MAX + 8];
  memset(small, 'x', sizeof small);
  CHECK_INT(btp_program_path(small, len), BT_EINVAL);
  CHECK_INT(small[0], '\0');
  int past = 0;
  for (size_t i = len; i < sizeof small; i++) past += small[i] != 'x';
  CHECK_INT(past, 0);
  CHECK_INT(btp_program_path(small, len + 1), BT_OK);
  CHECK_STR(small, expected);
}

static void test_real_path(const char *dir) {
  char real[BTP_PATH_MAX], expected[BTP_PATH_MAX], dotted[BTP_PATH_MAX];
  snprintf(dotted, sizeof dotted, "%s" SYS_SEP "." SYS_SEP ".." SYS_SEP "%s", dir,
           strrchr(dir, SYS_SEP[0]) + 1);
  CHECK(sys_full_path(dir, expected, sizeof expected));
  CHECK_INT(btp_path_real(dotted, real, sizeof real), BT_OK);
  CHECK_STR(real, expected);
  CHECK_INT(btp_path_real(dir, real, 3), BT_EINVAL);
  CHECK_INT(real[0], '\0');
  snprintf(dotted, sizeof dotted, "%s/none", dir);
  CHECK_INT(btp_path_real(dotted, real, sizeof real), BT_EIO);
  CHECK_INT(btp_path_real(NULL, real, sizeof real), BT_EINVAL);

  char p1[] = "/a/b/c", p2[] = "/c", p3[] = "/";
  btp_path_folder(p1);
  btp_path_folder(p2);
  btp_path_folder(p3);
  CHECK_STR(p1, "/a/b");
  CHECK_STR(p2, "/");
  CHECK_STR(p3, "/");
#ifdef _WIN32 /* a drive's folders, either separator */
  char w1[] = "C:\\a\\b", w2[] = "C:\\a", w3[] = "C:\\", w4[] = "C:/a/b";
  btp_path_folder(w1);
  btp_path_folder(w2);
  btp_path_folder(w3);
  btp_path_folder(w4);
  CHECK_STR(w1, "C:\\a");
  CHECK_STR(w2, "C:\\");
  CHECK_STR(w3, "C:\\");
  CHECK_STR(w4, "C:/a");
#endif
}

/* ---- files and the watcher ---- */

static void write_file(const char *path, const char *mode, const char *text) {
  FILE *f = fopen(path, mode);
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void test_stamp(const char *dir) {
  char path[BTP_PATH_MAX];
  snprintf(path, sizeof path, "%s" SYS_SEP "stamped", dir);
  write_file(path, "w", "one");
  btp_stamp a, b;
  CHECK_INT(btp_file_stamp(path, &a), BT_OK);
  CHECK_INT(a.size, 3);
  write_file(path, "a", "two");
  CHECK_INT(btp_file_stamp(path, &b), BT_OK);
  CHECK_INT(b.size, 6);
  CHECK(b.sec > a.sec || (b.sec == a.sec && b.nsec >= a.nsec));
  remove(path);
  CHECK_INT(btp_file_stamp(path, &a), BT_EIO);
  CHECK_INT(btp_file_stamp(NULL, &a), BT_EINVAL);
}

/* ---- the processors, folders, and the terminal (standard input and output made pipes) ---- */

static void test_cpu_and_dir(const char *dir) {
  CHECK(btp_cpu_count() >= 1);
  CHECK_INT(btp_path_is_dir(dir), 1);
  char path[BTP_PATH_MAX];
  snprintf(path, sizeof path, "%s" SYS_SEP "file", dir);
  write_file(path, "w", "x");
  CHECK_INT(btp_path_is_dir(path), 0);
  remove(path);
  CHECK_INT(btp_path_is_dir(path), 0);
  CHECK_INT(btp_path_is_dir(NULL), 0);
}

static void test_term(void) {
  int in[2], out[2];
  if (sys_pipe(in) != 0 || sys_pipe(out) != 0) {
    CHECK(!"pipes for standard input and output");
    return;
  }
  int saved_in = sys_dup(STDIN_FILENO), saved_out = sys_dup(STDOUT_FILENO);
  CHECK(saved_in >= 0 && saved_out >= 0);
  fflush(stdout);
  CHECK(sys_dup2(in[0], STDIN_FILENO) >= 0 && sys_dup2(out[1], STDOUT_FILENO) >= 0);
  CHECK(sys_write(in[1], "ab", 2) == 2);
  sys_close(in[1]);
  CHECK_INT(btp_term_is_tty(0), 0);
  CHECK_INT(btp_term_is_tty(1), 0);
  int cols = 0, rows = 0;
  CHECK_INT(btp_term_size(&cols, &rows), BT_EIO); /* a pipe says no size */
  CHECK_INT(btp_term_size(NULL, &rows), BT_EINVAL);
  btp_term *t = NULL;
  CHECK_INT(btp_term_open(&t), BT_OK); /* no terminal: input is read as it is */
  CHECK_INT(btp_term_read(t, 1000), 'a');
  CHECK_INT(btp_term_read(t, 1000), 'b');
  CHECK_INT(btp_term_read(t, 1000), -1); /* the input's end */
  double t0 = btp_time_monotonic();
  CHECK_INT(btp_term_read(t, 50), -1); /* after the end: it waits the time out */
  CHECK(btp_time_monotonic() - t0 >= 0.04);
  CHECK_INT(btp_term_write("frame", 5), BT_OK);
  btp_term_close(t);
  btp_term_close(NULL);
  CHECK_INT(btp_term_open(NULL), BT_EINVAL);
  CHECK_INT(btp_term_read(NULL, 0), -1);
  CHECK(sys_dup2(saved_in, STDIN_FILENO) >= 0 && sys_dup2(saved_out, STDOUT_FILENO) >= 0);
  sys_close(saved_in);
  sys_close(saved_out);
  sys_close(in[0]);
  sys_close(out[1]);
  char got[16] = {0};
  CHECK_INT(sys_read(out[0], got, sizeof got - 1), 5);
  CHECK_STR(got, "frame");
  sys_close(out[0]);
}

typedef struct seen {
  char paths[8][BTP_PATH_MAX];
  int n, more;
} seen;

static void note(void *data, const char *path) {
  seen *s = data;
  if (s->n < 8) snprintf(s->paths[s->n++], BTP_PATH_MAX, "%s", path);
  else s->more++;
}

/* Reads w's reports; whether path is among them. */
static int reported(btp_watch *w, const char *path, int *count) {
  seen s = {.n = 0};
  CHECK_INT(btp_watch_read(w, note, &s), BT_OK);
  *count = s.n + s.more;
  for (int i = 0; i < s.n; i++)
    if (strcmp(s.paths[i], path) == 0) return 1;
  return 0;
}

static void test_watch(const char *dir, const char *side) {
  char path[BTP_PATH_MAX], other[BTP_PATH_MAX];
  snprintf(path, sizeof path, "%s/brain.lua", dir);
  snprintf(other, sizeof other, "%s/new.lua", side);
  write_file(path, "w", "return 1\n");
  btp_watch *w = NULL;
  errno = 0;
  int rc = btp_watch_open(&w), why = errno;
  if (!HAS_WATCHER) { /* none: BT_EIO, ENOSYS, and the caller compares stamps */
    CHECK_INT(rc, BT_EIO);
    CHECK_INT(why, ENOSYS);
    CHECK(w == NULL);
    CHECK_INT(btp_watch_open(NULL), BT_EINVAL);
    btp_watch_close(NULL);
    remove(path);
    return;
  }
  CHECK_INT(rc, BT_OK);
  if (rc != BT_OK) return;
  CHECK_INT(btp_watch_add(w, dir), BT_OK);
  CHECK_INT(btp_watch_add(w, dir), BT_OK); /* again: nothing changes */
  int count = -1;
  reported(w, path, &count);
  CHECK_INT(count, 0); /* nothing changed */

  write_file(path, "w", "return 2\n"); /* written in place */
  CHECK(reported(w, path, &count));
  reported(w, path, &count);
  CHECK_INT(count, 0);

  write_file(other, "w", "return 3\n"); /* written beside, renamed over it */
  CHECK_INT(rename(other, path), 0);
  CHECK(reported(w, path, &count));
  CHECK_INT(count, 1);
  reported(w, path, &count);
  CHECK_INT(count, 0);

  char none[BTP_PATH_MAX];
  snprintf(none, sizeof none, "%s/no such folder", dir);
  CHECK_INT(btp_watch_add(w, none), BT_EIO);
  CHECK_INT(btp_watch_add(w, path), BT_EIO); /* a file, not a folder */
  CHECK_INT(btp_watch_add(w, NULL), BT_EINVAL);
  CHECK_INT(btp_watch_add(NULL, dir), BT_EINVAL);
  CHECK_INT(btp_watch_read(w, NULL, NULL), BT_EINVAL);
  btp_watch_close(w);
  btp_watch_close(NULL);
  CHECK_INT(btp_watch_open(NULL), BT_EINVAL);
  remove(path);
}

/* ---- sleeping, memory on a boundary, binary streams ---- */

static void test_sleep_and_memory(void) {
  double t0 = btp_time_monotonic();
  btp_sleep(0.05);
  CHECK(btp_time_monotonic() - t0 >= 0.045);
  t0 = btp_time_monotonic();
  btp_sleep(-1); /* nothing for a negative time, NaN or 0 */
  btp_sleep(NAN);
  btp_sleep(0);
  CHECK(btp_time_monotonic() - t0 < 1);
  size_t aligns[] = {8, 16, 64, 4096};
  for (size_t i = 0; i < sizeof aligns / sizeof *aligns; i++) {
    unsigned char *p = btp_aligned_alloc(aligns[i], 100); /* a size that is no multiple of it */
    CHECK(p != NULL && (uintptr_t)p % aligns[i] == 0);
    if (p) memset(p, 0xab, 100);
    btp_aligned_free(p);
  }
  btp_aligned_free(NULL);
  CHECK_INT(btp_stream_binary(NULL), BT_EINVAL);
  CHECK_INT(btp_stream_binary(stdout), BT_OK);
}

/* ---- a file another program is replacing ---- */

#ifdef _WIN32
/* Holds a file open with no sharing for a tenth of a second, as a save in progress does. */
static void *hold_file(void *arg) {
  HANDLE h = arg;
  sys_sleep(0.1);
  CloseHandle(h);
  return NULL;
}
#endif

static void test_file_open(const char *dir) {
  char path[SYS_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s" SYS_SEP "held.lua", dir);
  errno = 0;
  CHECK(btp_file_open(path, "rb") == NULL && errno == ENOENT);
  write_file(path, "wb", "return 1\n");
  FILE *f = btp_file_open(path, "rb");
  char got[16] = {0};
  CHECK(f != NULL && fread(got, 1, sizeof got - 1, f) == 9);
  if (f) fclose(f);
  CHECK_STR(got, "return 1\n");
#ifdef _WIN32
  /* opened with no sharing elsewhere: fopen fails at once, btp_file_open waits for it */
  HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
  CHECK(h != INVALID_HANDLE_VALUE);
  sys_thread th;
  CHECK_INT(sys_thread_start(&th, hold_file, h), 0);
  FILE *plain = fopen(path, "rb");
  CHECK(plain == NULL && errno == EACCES);
  if (plain) fclose(plain);
  f = btp_file_open(path, "rb");
  CHECK(f != NULL);
  if (f) fclose(f);
  sys_thread_join(&th);
#endif
  remove(path);
}

/* ---- shell patterns ---- */

/* Patterns, texts, and whether glibc's fnmatch(pattern, text, 0) matches them (each run through
 * it on Linux): on every system btp_pattern_match must agree. */
static const struct {
  const char *pattern, *text;
  int match;
} PATTERNS[] = {
  {"*", "", 1}, {"*", "abc", 1}, {"a*c", "abc", 1}, {"a*c", "abcd", 0}, {"?", "", 0}, {"?", "x", 1},
  {"Priority/*/Flee", "Priority/Sequence/Flee", 1}, {"*Flee*", "Priority/Flee#2", 1},
  {"[a-c]x", "bx", 1}, {"[!a-c]x", "bx", 0}, {"[!a-c]x", "dx", 1}, {"[]]", "]", 1}, {"[a-]", "-", 1},
  {"\\*", "*", 1}, {"\\*", "a", 0}, {"[abc", "a", 0}, {"[abc", "[abc", 1}, {"a**b", "ab", 1},
  {"*a*b*", "xxaxxbxx", 1}, {"", "", 1}, {"", "a", 0}, {"sheep*", "sheep 12", 1}, {"sheep*", "ewe 3", 0},
  {"*[0-9]", "wolf 7", 1}, {"a?c", "a/c", 1}, {"\\", "\\", 0}, {"[\\]]", "]", 1}, {"[c\\]", "c", 0},
};

static void test_patterns(void) {
  for (size_t i = 0; i < sizeof PATTERNS / sizeof *PATTERNS; i++)
    if (btp_pattern_match(PATTERNS[i].pattern, PATTERNS[i].text) != PATTERNS[i].match) {
      fprintf(stderr, "pattern '%s', text '%s': expected %d\n", PATTERNS[i].pattern, PATTERNS[i].text,
              PATTERNS[i].match);
      CHECK(!"btp_pattern_match as fnmatch");
    }
#ifdef BT_TEST_PATTERN_C
  /* Windows' matcher (src/platform/pattern.c, compiled in here as pattern_c_match) against glibc's
   * fnmatch, on patterns of literals, '*', '?', escapes and closed classes: those glibc reads as
   * POSIX says (it refuses some unclosed classes that POSIX reads as a '[') */
  static const char *const parts[] = {"a", "b", "/", "-", "!", "*", "?", "\\*", "\\[", "[ab]", "[!a]",
                                      "[a-c]", "[]a]", "[!]]", "[\\]]", "[-a]", "[*?]"};
  const char text_chars[] = "ab/c-]![*?\\";
  unsigned seed = 7;
  long differ = 0;
  for (int i = 0; i < 200000; i++) {
    char pattern[64] = "", text[16];
    int np = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
    for (int k = 0; k < np; k++)
      strcat(pattern, parts[((seed = seed * 1103515245u + 12345u) >> 16) % (sizeof parts / sizeof *parts)]);
    int nt = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;
    for (int k = 0; k < nt; k++) text[k] = text_chars[((seed = seed * 1103515245u + 12345u) >> 16) % (sizeof text_chars - 1)];
    text[nt] = '\0';
    if (pattern_c_match(pattern, text) != (fnmatch(pattern, text, 0) == 0) && differ++ < 5)
      fprintf(stderr, "pattern '%s', text '%s': pattern.c %d, fnmatch %d\n", pattern, text,
              pattern_c_match(pattern, text), fnmatch(pattern, text, 0) == 0);
  }
  CHECK_INT(differ, 0);
#endif
}

int main(int argc, char **argv) {
  (void)argc;
  test_threads_and_mutex();
  test_recursive();
  test_cond();
  test_timedwait();
  test_once();
  test_clock();
  test_sleep_and_memory();
  test_patterns();
  test_program_path(argv[0]);
  char dir[SYS_PATH_MAX], side[SYS_PATH_MAX];
  CHECK(sys_temp_folder(dir, sizeof dir, "bt_platform_"));
  CHECK(sys_temp_folder(side, sizeof side, "bt_platform_side_"));
  test_real_path(dir);
  test_stamp(dir);
  test_cpu_and_dir(dir);
  test_file_open(dir);
  test_term();
  test_watch(dir, side);
  sys_rmdir(side);
  sys_rmdir(dir);
  return check_report("test_platform");
}
