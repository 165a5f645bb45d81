/* SPDX-License-Identifier: MIT */
/*
 * bench_think.c: the host of the think benchmark (bench/think.lua). It embeds Lua with bt, counts
 * every heap allocation (Lua's through its allocator, bt's by wrapping malloc and friends at link
 * time), and runs the C-leaf scenarios itself through the core API.
 *
 *   bench_think SCRIPT [script arguments...]
 *
 * The script sees a module "bench" with:
 *   bench.now()        monotonic seconds
 *   bench.memory()     bytes live on the heap (Lua and bt) and the number of allocations so far
 *   bench.c_run(brain, agents, warm, frames[, random_order])
 *                      runs a brain (bench/brains.lua's text form) with C leaves, every agent sharing
 *                      one definition and thinking every frame (in the order the agents were made,
 *                      or, if random_order is true, in one random order); returns ns per think (the
 *                      fastest fifth of the frames), leaf calls per think, bytes per agent,
 *                      allocations per think and ns per agent creation
 *   bench.nop(...)     does nothing: the least a call from Lua into C costs
 *   bench.pcall_each(fn, list)
 *                      calls fn(list[i]) through lua_pcall for each i, as bt calls a leaf
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "bt.h"
#include "brain_text.h"
#include "bt_lua.h"
#include "heap.h"

/* ---- counting allocations: bt's by heap.c, Lua's by its allocator here ---- */

static void *lua_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  (void)ud;
  long long before = p ? (long long)malloc_usable_size(p) : 0;
  if (nsize == 0) {
    heap_bytes -= before;
    __real_free(p);
    return NULL;
  }
  void *q = __real_realloc(p, nsize);
  if (q) {
    if (!p || nsize > osize) heap_allocs++;
    heap_bytes += (long long)malloc_usable_size(q) - before;
  }
  return q;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- brains with C leaves ---- */

#define MAX_FIELDS 2048
#define PARTS 5

typedef struct agent {
  unsigned char field[MAX_FIELDS];
} agent;

static long long leaf_calls;
static double c_time;

static double c_now(void *data) {
  (void)data;
  return c_time;
}

static int c_condition(bt_call *call) {
  const agent *a = bt_inst_agent(call->inst);
  leaf_calls++;
  return a->field[(size_t)call->ud];
}

static int c_action(bt_call *call) {
  const agent *a = bt_inst_agent(call->inst);
  leaf_calls++;
  return a->field[(size_t)call->ud] || 1;
}

/* Puts the instances in one random order (the same every run). */
static void shuffle(bt_inst **insts, int n) {
  unsigned long long x = 0x9E3779B97F4A7C15ULL;
  for (int i = n - 1; i > 0; i--) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int j = (int)((x >> 33) % (unsigned long long)(i + 1));
    bt_inst *tmp = insts[i];
    insts[i] = insts[j];
    insts[j] = tmp;
  }
}

static int l_c_run(lua_State *L) {
  const char *text = luaL_checkstring(L, 1);
  int nagents = (int)luaL_checkinteger(L, 2);
  int warm = (int)luaL_checkinteger(L, 3);
  int frames = (int)luaL_checkinteger(L, 4);
  luaL_argcheck(L, nagents > 0, 2, "at least one agent");
  luaL_argcheck(L, frames >= PARTS, 4, "at least 5 frames");
  int random_order = lua_toboolean(L, 5);

  brain b;
  bt_graph *g = NULL;
  bt_def *def = NULL;
  if (brain_read(&b, text) || b.nfields > MAX_FIELDS || bt_graph_create(&g) != BT_OK ||
      brain_graph(&b, g, c_condition, c_action) || bt_def_create(&def, g, b.root) != BT_OK) {
    const char *msg = b.error ? b.error : b.nfields > MAX_FIELDS ? "too many fields"
                      : g ? bt_graph_errmsg(g) : "out of memory";
    char near[24];
    snprintf(near, sizeof near, "%.20s", b.near ? b.near : "");
    lua_pushfstring(L, "brain: %s near '%s'", msg, near);
    bt_graph_free(g);
    brain_free(&b);
    return lua_error(L);
  }
  bt_graph_free(g);

  static const bt_host host = {c_now, NULL, NULL, NULL};
  agent *agents = calloc((size_t)nagents, sizeof *agents);
  bt_inst **insts = calloc((size_t)nagents, sizeof *insts);
  if (!agents || !insts) return luaL_error(L, "out of memory");
  int idle = brain_field(&b, "idle"), calm = brain_field(&b, "calm");
  brain_free(&b);
  for (int i = 0; i < nagents; i++) {
    if (idle >= 0) agents[i].field[idle] = 1;
    if (calm >= 0) agents[i].field[calm] = 1;
  }

  long long bytes0 = heap_bytes;
  double t0 = now();
  for (int i = 0; i < nagents; i++)
    if (bt_inst_create(&insts[i], def, &host, &agents[i], 0) != BT_OK) return luaL_error(L, "out of memory");
  double create = now() - t0;
  long long bytes = heap_bytes - bytes0;
  if (random_order) shuffle(insts, nagents);

  int f = 0;
  for (; f < warm; f++) {
    c_time = (f + 1) / 30.0;
    for (int i = 0; i < nagents; i++) bt_inst_update(insts[i]);
  }
  /* timed in PARTS parts, the fastest counting, as bench/measure.lua does */
  long long calls0 = leaf_calls, allocs0 = heap_allocs;
  int per_part = frames / PARTS;
  double dt = 1e300;
  for (int part = 0; part < PARTS; part++) {
    t0 = now();
    for (int end = f + per_part; f < end; f++) {
      c_time = (f + 1) / 30.0;
      for (int i = 0; i < nagents; i++) bt_inst_update(insts[i]);
    }
    double t = now() - t0;
    if (t < dt) dt = t;
  }
  double thinks = (double)nagents * per_part;
  lua_pushnumber(L, dt / thinks * 1e9);
  lua_pushnumber(L, (double)(leaf_calls - calls0) / (thinks * PARTS));
  lua_pushnumber(L, (double)bytes / nagents);
  lua_pushnumber(L, (double)(heap_allocs - allocs0) / (thinks * PARTS));
  lua_pushnumber(L, create / nagents * 1e9);

  for (int i = 0; i < nagents; i++) bt_inst_free(insts[i]);
  free(insts);
  free(agents);
  bt_def_release(def);
  return 5;
}

static int l_now(lua_State *L) {
  lua_pushnumber(L, now());
  return 1;
}

static int l_memory(lua_State *L) {
  lua_pushinteger(L, heap_bytes);
  lua_pushinteger(L, heap_allocs);
  return 2;
}

static int l_nop(lua_State *L) {
  (void)L;
  return 0;
}

static int l_pcall_each(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 2);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_pushvalue(L, 1);
    lua_rawgeti(L, 2, i);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) return lua_error(L);
    lua_pop(L, 1);
  }
  return 0;
}

static const luaL_Reg bench_funcs[] = {{"now", l_now},
                                       {"memory", l_memory},
                                       {"c_run", l_c_run},
                                       {"nop", l_nop},
                                       {"pcall_each", l_pcall_each},
                                       {NULL, NULL}};

static int open_bench(lua_State *L) {
  luaL_newlib(L, bench_funcs);
  return 1;
}

static int report(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--help")) {
    printf("usage: bench_think SCRIPT [arguments...]\n\n"
           "Runs a Lua benchmark script (bench/*.lua) with bt and the bench module (allocation\n"
           "counts, a monotonic clock) preloaded; docs/performance.md describes each script.\n");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("bench_think (bt) %s\n", BT_VERSION);
    return 0;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRIPT [arguments...]\n", argv[0]);
    return 2;
  }
  lua_State *L = lua_newstate(lua_alloc, NULL);
  if (!L) return 1;
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  luaL_requiref(L, "bench", open_bench, 0);
  lua_pop(L, 2);
  lua_createtable(L, argc - 2, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");
  lua_pushcfunction(L, report);
  int status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK) status = lua_pcall(L, 0, 0, -2);
  if (status != LUA_OK) fprintf(stderr, "%s: %s\n", argv[0], lua_tostring(L, -1));
  lua_close(L);
  return status == LUA_OK ? 0 : 1;
}
