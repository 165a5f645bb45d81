/* SPDX-License-Identifier: MIT */
/*
 * bench_lua_pool.c: Lua brains on a pool of Lua states (bt_lua_pool) on 1, 2, ... N threads, next
 * to one plain Lua state running bt.BrainManager (the serial scheduler), in the same process. Run
 * by `make bench`, or:
 *
 *   bench_lua_pool [--agents N] [--frames N] [--rounds N] [--threads N] [--events]
 *
 * Every agent (default 10,000) runs bench/brains.lua's brains.small (about 40 nodes, Lua leaves
 * that read a field of the entity); the tick time is 1/30 s and each frame's time is tick / 30,
 * so brains think when their trees ask to, as a game's do. With --events, an agent's idle leaf
 * also sends an event (a table of plain data) to another agent at every think. Pools of T states
 * on T threads (T = 1, 2, ... --threads, default the cores sysconf counts, at least 2) think
 * the same agents. Printed for each: thinks per second in the think phase (the states' Update,
 * in parallel), frames per second (whole frames) and their ratio to the serial run's, the serial
 * phase's share of a frame (routing the events between states), and the think phase's throughput
 * against one state on one thread, in the same run; with --events, the events a frame and what
 * routing one costs. Each run's frames are cut into five parts and the fastest part counts; the
 * fastest of --rounds rounds (default 3) is printed, with the range over the rounds. The serial
 * run seeds its trees and draws math.random as a pool's state does (bt.seed_trees, bt.random), so
 * that its brains think as the pools' do: afterwards the thinks counted must be the same in the
 * serial run and on every pool (the program says so, or exits with status 1).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"

#define PARTS 5

static int agents = 10000, frames = 300, rounds = 3, max_threads = 0, events = 0;

static const char SETUP[] =
    "local bt = require 'bt'\n"
    "local brains = require 'brains'\n"
    "local EVENTS, AGENTS = ...\n"
    "local function leaf(kind, field)\n"
    "  if kind == 'Condition' then return function(inst) return inst[field] end end\n"
    "  if EVENTS and field == 'wander' then\n"
    "    return function(inst)\n"
    "      bt.pool.send(inst.id % AGENTS + 1, 'seen', {by = inst.id, x = 1.5, what = 'sheep'}, inst.id)\n"
    "    end\n"
    "  end\n"
    "  return function(inst) local _ = inst[field] end\n"
    "end\n"
    "local build = brains.builder(brains.small)\n"
    "local Brain = bt.SharedBrain(function() return build(bt, leaf) end)\n"
    "heard = 0\n"
    "bt.pool.event = function() heard = heard + 1 end\n"
    "bt.pool.place = function(agent)\n"
    "  local e = brains.agent(); e.id = agent; return Brain(e)\n"
    "end\n";

static int open_state(void *ud, lua_State *L, int state, char *err, size_t size) {
  (void)ud;
  (void)state;
  if (luaL_dostring(L, "package.path = 'bench/?.lua;' .. package.path") != LUA_OK ||
      luaL_loadstring(L, SETUP) != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return BT_EINVAL;
  }
  lua_pushboolean(L, events);
  lua_pushinteger(L, agents);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return BT_EINVAL;
  }
  return BT_OK;
}

static long long thinks_of(lua_State *L) {
  if (luaL_dostring(L, "return require('bt').BrainManager:GetStats().thinks") != LUA_OK) return -1;
  long long n = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return n;
}

typedef struct result {
  double think_rate, frame_rate, route_share;
  double route_ns; /* routing, per event routed */
  long long thinks, events;
} result;

static int run_pool(int threads, result *out) {
  bt_lua_pool *pool;
  char err[512];
  if (bt_lua_pool_create(&pool, threads, threads, open_state, NULL, err, sizeof err) != BT_OK) {
    fprintf(stderr, "bench_lua_pool: %s\n", err);
    return -1;
  }
  for (int id = 1; id <= agents; id++) {
    if (bt_lua_pool_place(pool, id, "small", -1) < 0) {
      fprintf(stderr, "bench_lua_pool: %s\n", bt_lua_pool_errmsg(pool));
      bt_lua_pool_free(pool);
      return -1;
    }
  }
  for (int tick = 1; tick <= 30; tick++) bt_lua_pool_update(pool, tick, tick / 30.0); /* warm */
  /* the frames in PARTS parts: the fastest part counts (the machine's other work comes and goes) */
  out->think_rate = 0;
  out->thinks = 0;
  out->events = 0;
  out->route_ns = 0;
  int tick = 31;
  for (int part = 0; part < PARTS; part++) {
    bt_lua_pool_stats s0, s1;
    bt_lua_pool_stats_get(pool, &s0);
    long long before = 0, after = 0;
    for (int i = 0; i < threads; i++) before += thinks_of(bt_lua_pool_state(pool, i));
    double t0 = bt_time_monotonic();
    int n = frames / PARTS + (part < frames % PARTS);
    for (int f = 0; f < n; f++, tick++) {
      if (bt_lua_pool_update(pool, tick, tick / 30.0) != BT_OK) {
        fprintf(stderr, "bench_lua_pool: %s\n", bt_lua_pool_errmsg(pool));
        bt_lua_pool_free(pool);
        return -1;
      }
    }
    double wall = bt_time_monotonic() - t0;
    bt_lua_pool_stats_get(pool, &s1);
    for (int i = 0; i < threads; i++) after += thinks_of(bt_lua_pool_state(pool, i));
    out->thinks += after - before;
    out->events += s1.events - s0.events;
    double rate = (double)(after - before) / (s1.think_seconds - s0.think_seconds);
    if (rate > out->think_rate) {
      out->think_rate = rate;
      out->frame_rate = n / wall;
      out->route_share = (s1.route_seconds - s0.route_seconds) / wall;
      out->route_ns = s1.events > s0.events ? 1e9 * (s1.route_seconds - s0.route_seconds) / (double)(s1.events - s0.events) : 0;
    }
  }
  bt_lua_pool_free(pool);
  return 0;
}

static void serial_frame(lua_State *L, int bt, int tick) {
  lua_getfield(L, bt, "set_clock");
  lua_pushnumber(L, tick / 30.0);
  lua_call(L, 1, 0);
  lua_getfield(L, bt, "BrainManager");
  lua_getfield(L, -1, "Update");
  lua_insert(L, -2);
  lua_pushinteger(L, tick);
  lua_call(L, 2, 0);
}

/* One plain state, bt.BrainManager:Update(tick) each frame: the serial scheduler. */
static int run_serial(result *out) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  char err[512];
  /* each tree's stream seeded with its agent's id, math.random its scripts' stream: a pool's rule */
  if (luaL_dostring(L, "local bt = require 'bt'\n"
                       "bt.seed_trees(function(owner) return owner and owner.id or 0 end)\n"
                       "math.random = bt.random\n") != LUA_OK) {
    fprintf(stderr, "bench_lua_pool: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return -1;
  }
  int saved = events;
  events = 0; /* bt.pool.send needs a pool */
  int rc = open_state(NULL, L, 0, err, sizeof err);
  events = saved;
  if (rc != BT_OK) {
    fprintf(stderr, "bench_lua_pool: %s\n", err);
    lua_close(L);
    return -1;
  }
  char code[256];
  snprintf(code, sizeof code,
           "local bt = require 'bt'; for id = 1, %d do bt.pool.place(id):Start() end", agents);
  if (luaL_dostring(L, code) != LUA_OK) {
    fprintf(stderr, "bench_lua_pool: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return -1;
  }
  lua_getglobal(L, "require");
  lua_pushliteral(L, "bt");
  lua_call(L, 1, 1);
  int bt = lua_gettop(L);
  out->think_rate = 0;
  out->thinks = 0;
  for (int tick = 1; tick <= 30; tick++) serial_frame(L, bt, tick);
  int tick = 31;
  for (int part = 0; part < PARTS; part++) {
    long long before = thinks_of(L);
    double t0 = bt_time_monotonic();
    int n = frames / PARTS + (part < frames % PARTS);
    for (int f = 0; f < n; f++, tick++) serial_frame(L, bt, tick);
    double wall = bt_time_monotonic() - t0;
    long long thinks = thinks_of(L) - before;
    out->thinks += thinks;
    if (thinks / wall > out->think_rate) {
      out->think_rate = thinks / wall;
      out->frame_rate = n / wall;
    }
  }
  out->route_share = 0;
  out->events = 0;
  out->route_ns = 0;
  lua_close(L);
  return 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--agents") && i + 1 < argc) agents = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) max_threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--events")) events = 1;
    else if (!strcmp(argv[i], "--help")) {
      printf("usage: bench_lua_pool [--agents N] [--frames N] [--rounds N] [--threads N] [--events]\n\n"
             "Lua brains (bench/brains.lua's small brain, run from the repository's root) on a pool of\n"
             "Lua states on 1, 2, ... N threads (default: the machine's cores, at least 2), next to one\n"
             "plain state: thinks per second in the think phase, frames per second, the serial phase's\n"
             "share of a frame. --events: each idle think also sends another agent an event.\n");
      return 0;
    } else if (!strcmp(argv[i], "--version")) {
      printf("bench_lua_pool (bt) %s\n", BT_VERSION);
      return 0;
    }
    else {
      fprintf(stderr, "usage: bench_lua_pool [--agents N] [--frames N] [--rounds N] [--threads N] [--events]\n");
      return 2;
    }
  }
  if (agents < 1 || frames < 1 || rounds < 1) {
    fprintf(stderr, "bench_lua_pool: --agents, --frames and --rounds must be 1 or more\n");
    return 2;
  }
  if (max_threads < 1) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    max_threads = cores >= 2 ? (int)cores : 2;
  }
  if (max_threads > 64) max_threads = 64;
  printf("Lua brains (bench/brains.lua's small brain) on a pool of Lua states: %d agents, %d frames, "
         "best of %d rounds [range]%s\n",
         agents, frames, rounds, events ? ", an event sent at every idle think" : "");
  int nconf = max_threads + 1; /* 0: the serial scheduler; t: a pool of t states on t threads */
  result *best = calloc((size_t)nconf, sizeof *best);
  double *lo = calloc((size_t)nconf, sizeof *lo), *hi = calloc((size_t)nconf, sizeof *hi);
  int ok = 1;
  for (int r = 0; r < rounds && ok; r++) {
    for (int c = 0; c < nconf && ok; c++) {
      result res;
      if ((c == 0 ? run_serial(&res) : run_pool(c, &res)) != 0) {
        ok = 0;
        break;
      }
      if (r == 0 || res.think_rate > best[c].think_rate) best[c] = res;
      if (r == 0 || res.think_rate < lo[c]) lo[c] = res.think_rate;
      if (r == 0 || res.think_rate > hi[c]) hi[c] = res.think_rate;
      if (c > 0 && !events && res.thinks != best[0].thinks) {
        fprintf(stderr, "bench_lua_pool: %d threads thought %lld times, the serial run %lld\n", c, res.thinks,
                best[0].thinks);
        ok = 0;
      }
      if (c > 1 && res.thinks != best[1].thinks) {
        fprintf(stderr, "bench_lua_pool: %d threads thought %lld times, one thread %lld\n", c, res.thinks,
                best[1].thinks);
        ok = 0;
      }
    }
  }
  if (ok) {
    printf("  %-22s %14s %22s %10s %9s %12s %9s\n", "", "thinks/s", "[range]", "frames/s", "x serial", "serial share",
           "vs 1");
    for (int c = 0; c < nconf; c++) {
      char name[32];
      if (c == 0) snprintf(name, sizeof name, "serial (one state)");
      else snprintf(name, sizeof name, "pool, %d thread%s", c, c == 1 ? "" : "s");
      char range[48];
      snprintf(range, sizeof range, "[%.0f-%.0f]", lo[c], hi[c]);
      char vs1[16] = "-";
      if (c) snprintf(vs1, sizeof vs1, "%.2fx", best[c].think_rate / best[1].think_rate);
      printf("  %-22s %14.0f %22s %10.1f %8.2fx %11.1f%% %9s\n", name, best[c].think_rate, range, best[c].frame_rate,
             best[c].frame_rate / best[0].frame_rate, 100 * best[c].route_share, vs1);
    }
    if (events) printf("  thinks per run: %lld on every pool (the serial run sends no event)\n", best[1].thinks);
    else printf("  thinks per run: %lld, the same in the serial run and on every pool\n", best[1].thinks);
    if (events)
      printf("  events: %.0f a frame; routing them costs %.0f ns an event on %d thread%s, %.0f on 1\n",
             (double)best[1].events / frames, best[nconf - 1].route_ns, nconf - 1, nconf - 1 == 1 ? "" : "s",
             best[1].route_ns);
  }
  free(best);
  free(lo);
  free(hi);
  return ok ? 0 : 1;
}
