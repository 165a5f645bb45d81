/* SPDX-License-Identifier: MIT */
/* errlog.c: the default error handler, which writes script errors to standard error and counts
 * repeats instead of writing them again (docs/errors.md "Repeats"). Each Lua state keeps its own
 * log, a userdata in its registry, so the states of a pool, which think on several threads at
 * once, share nothing; its __gc writes the last counts when the state closes. */
#include <stdio.h>
#include <string.h>

#include "lbt.h"

#define ERRLOG_KINDS 256  /* errors told apart; one more is written in full every time */
#define ERRLOG_PERIOD 1.0 /* seconds of real time between two writes of the counts */

/* One error: its head (path, method, message) and how often it came. */
typedef struct errkind {
  char *head; /* allocated with the state's allocator, len + 1 bytes */
  size_t len;
  unsigned hash;
  long long since; /* times it came since its count was last written */
  long long total; /* times it came */
} errkind;

typedef struct errlog {
  lua_Alloc alloc;
  void *ud;
  errkind *kinds; /* n of cap */
  int n, cap;
  int pending;    /* kinds whose since is not 0 */
  double written; /* bt_time_monotonic() when the counts were last written, or the log was made */
} errlog;

static const char errlog_key = 0;

static unsigned hash_of(const char *s, size_t len) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* Writes "bt: the same error <n> more times (<total> in all): <head>" for every error that came
 * again since the last time. */
static void write_counts(errlog *g) {
  for (int i = 0; i < g->n && g->pending > 0; i++) {
    errkind *k = &g->kinds[i];
    if (k->since == 0) continue;
    fprintf(stderr, "bt: the same error %lld more time%s (%lld in all): %s\n", k->since,
            k->since == 1 ? "" : "s", k->total, k->head);
    k->since = 0;
    g->pending--;
  }
  fflush(stderr);
}

static void free_kinds(errlog *g) {
  for (int i = 0; i < g->n; i++) g->alloc(g->ud, g->kinds[i].head, g->kinds[i].len + 1, 0);
  if (g->kinds) g->alloc(g->ud, g->kinds, (size_t)g->cap * sizeof *g->kinds, 0);
  g->kinds = NULL;
  g->n = g->cap = g->pending = 0;
}

/* __gc: the state closes; the counts not written yet are written now. */
static int errlog_gc(lua_State *L) {
  errlog *g = lua_touserdata(L, 1);
  if (g->pending > 0) write_counts(g);
  free_kinds(g);
  return 0;
}

/* The state's log, made on its first error. */
static errlog *errlog_get(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &errlog_key) == LUA_TUSERDATA) {
    errlog *g = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return g;
  }
  lua_pop(L, 1);
  errlog *g = lua_newuserdatauv(L, sizeof *g, 0);
  memset(g, 0, sizeof *g);
  g->alloc = lua_getallocf(L, &g->ud);
  g->written = bt_time_monotonic();
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, errlog_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &errlog_key);
  return g;
}

static errkind *find(errlog *g, const char *head, size_t len, unsigned hash) {
  for (int i = 0; i < g->n; i++) {
    errkind *k = &g->kinds[i];
    if (k->hash == hash && k->len == len && memcmp(k->head, head, len) == 0) return k;
  }
  return NULL;
}

/* Remembers a new error; 0 when the log is full or there is no memory (it is then not counted). */
static int add(errlog *g, const char *head, size_t len, unsigned hash) {
  if (g->n == ERRLOG_KINDS) return 0;
  if (g->n == g->cap) {
    int cap = g->cap ? g->cap * 2 : 8;
    errkind *kinds = g->alloc(g->ud, g->kinds, (size_t)g->cap * sizeof *kinds, (size_t)cap * sizeof *kinds);
    if (!kinds) return 0;
    g->kinds = kinds;
    g->cap = cap;
  }
  char *copy = g->alloc(g->ud, NULL, 0, len + 1);
  if (!copy) return 0;
  memcpy(copy, head, len);
  copy[len] = 0;
  g->kinds[g->n++] = (errkind){copy, len, hash, 0, 1};
  return 1;
}

void lbt_errlog_write(lua_State *L, const char *text, const char *head, size_t len) {
  errlog *g = errlog_get(L);
  unsigned hash = hash_of(head, len);
  errkind *k = find(g, head, len, hash);
  if (k) {
    if (k->since++ == 0) g->pending++;
    k->total++;
  } else {
    add(g, head, len, hash);
    fprintf(stderr, "bt: %s\n", text);
    fflush(stderr);
  }
  if (g->pending > 0) {
    double now = bt_time_monotonic();
    if (now - g->written >= ERRLOG_PERIOD) {
      write_counts(g);
      g->written = now;
    }
  }
}
