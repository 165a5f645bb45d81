/* SPDX-License-Identifier: MIT */
/* clock.c: the time every node reads (bt.set_clock, bt.GetTime), and the random numbers the core
 * draws, both from Lua: the host's clock function or the monotonic clock, and math.random. */
#include <stdint.h>

#include "lbt.h"

/* Reads the clock; 0 if the clock function failed (then *out is the last good time). */
static int read_clock(lbt_state *S, lua_State *L, int msgh, double *out) {
  *out = S->last_time;
  if (S->clock_fixed) return 1;
  if (S->clock_ref == LUA_NOREF) {
    *out = S->last_time = bt_time_monotonic() - S->start;
    return 1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->clock_ref);
  if (lbt_pcall(S, L, 0, 1, msgh, NULL, -1, "clock") != LUA_OK) return 0;
  if (lua_type(L, -1) != LUA_TNUMBER) {
    lua_pushfstring(L, "bt: clock: the clock returned %s, not a number", luaL_typename(L, -1));
    lbt_report(S, L, NULL, -1, lua_tostring(L, -1));
    lua_pop(L, 2);
    return 0;
  }
  *out = S->last_time = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return 1;
}

/* The time; msgh: the entry's message handler, or 0. */
static double clock_now(lbt_state *S, lua_State *L, int msgh) {
  double t;
  read_clock(S, L, msgh, &t);
  return t;
}

int lbt_time_group_begin(lbt_state *S, int share) {
  int outer = S->group_depth;
  S->group_depth = share ? S->depth : -1; /* a DS-exact tree shares no read: every one calls */
  S->time_fresh = 0;
  return outer;
}

void lbt_time_group_end(lbt_state *S, int outer) {
  S->group_depth = outer;
  S->time_fresh = 0;
}

/* The core's reads of the time. Within a group (a think; a tree's sleep time), a read with no
 * Lua code run since the last one (a node that reads GetTime() in Visit and again in Sleep) takes
 * the time that one gave: the clock is a function of what Lua code set, so a second call would
 * return the same. Reads from inside Lua code that the group called (a node written in Lua)
 * always call. */
static double host_now(void *data) {
  lbt_state *S = data;
  if (S->clock_fixed) return S->last_time; /* bt.set_clock(t): no call at all */
  int in_group = S->depth == S->group_depth;
  if (in_group && S->time_fresh) return S->last_time;
  double t;
  int ok = read_clock(S, S->L, S->msgh, &t);
  S->time_fresh = in_group && ok;
  return t;
}

/* math.random(n), as Don't Starve calls it to pick a child */
static int host_random_int(void *data, int n, int *out) {
  lbt_state *S = data;
  lua_State *L = S->L;
  lbt_push_math_random(L);
  lua_pushinteger(L, n);
  if (lbt_pcall(S, L, 1, 1, 0, NULL, -1, "math.random") != LUA_OK) return BT_EINVAL;
  *out = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return BT_OK;
}

static double host_random(void *data) {
  lbt_state *S = data;
  lua_State *L = S->L;
  lbt_push_math_random(L);
  if (lbt_pcall(S, L, 0, 1, 0, NULL, -1, "math.random") != LUA_OK) return 0.5;
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

void lbt_host_init(lbt_state *S) {
  S->host.now = host_now;
  S->host.random = host_random;
  S->host.random_int = host_random_int;
  S->host.data = S;
  S->start = bt_time_monotonic();
  S->clock_ref = LUA_NOREF;
  S->seed_ref = LUA_NOREF;
  S->owner_ref = LUA_NOREF;
  S->math_random_ref = LUA_NOREF;
  S->group_depth = -1;
}

/* bt.set_clock(fn): fn() gives the time; bt.set_clock(t): the time stands at t (a number) until
 * set again; bt.set_clock(nil): seconds since the module was loaded. */
static int l_set_clock(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TFUNCTION && t != LUA_TNUMBER)
    return lbt_typeerror(L, 1, 1, "set_clock", "function, number or nil");
  lua_settop(L, 1);
  lbt_state *S = lbt_state_get(L);
  luaL_unref(L, LUA_REGISTRYINDEX, S->clock_ref);
  S->clock_ref = LUA_NOREF;
  S->clock_fixed = t == LUA_TNUMBER;
  S->time_fresh = 0;
  if (t == LUA_TNUMBER) S->last_time = lua_tonumber(L, 1);
  else if (t == LUA_TFUNCTION) S->clock_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

/* bt.seed_trees(fn): every tree made from now on draws its random numbers (a Priority's first
 * evaluation time, a random choice among children) from a stream of its own, seeded with
 * fn(owner), an integer (owner: the entity the tree was made for), instead of math.random; trees
 * made before keep to their own streams too (the core's generator, seeded from their address).
 * Meanwhile the Priority's constructor draws nothing: BT draws from the tree's stream
 * (classes.c). nil: back to math.random for every tree. */
static int l_seed_trees(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TFUNCTION)
    return lbt_typeerror(L, 1, 1, "seed_trees", "function or nil");
  lua_settop(L, 1);
  lbt_state *S = lbt_state_get(L);
  luaL_unref(L, LUA_REGISTRYINDEX, S->seed_ref);
  S->seed_ref = LUA_NOREF;
  if (t == LUA_TFUNCTION) {
    S->seed_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    S->host.random = NULL;
    S->host.random_int = NULL;
  } else {
    S->host.random = host_random;
    S->host.random_int = host_random_int;
  }
  return 0;
}

/* ---- bt.random: math.random's draws from a stream of the agent's own ---- */

uint64_t lbt_stream_seed(unsigned long long seed) {
  uint64_t x = (uint64_t)seed ^ 0x5DEECE66DULL; /* not the core generator's stream of the same seed */
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return (x ^ (x >> 31)) | 1;
}

/* bt.random([m[, n]]): as math.random, from the stream of the tree whose scripts run the call (a
 * leaf, a behaviour's Visit; outside any tree, the one shared.set_random_tree names), which
 * bt.seed_trees seeded with its entity, so that an agent's draws do not depend on which other
 * agents share the Lua state; math.random itself for a tree made without bt.seed_trees, or
 * outside any tree. */
static int l_random(lua_State *L) {
  lbt_state *S = lua_touserdata(L, lua_upvalueindex(1));
  lbt_tree *t = S->entered ? S->entered : S->owner;
  int nargs = lua_gettop(L);
  if (!t || !t->stream) {
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, S->math_random_ref) != LUA_TFUNCTION)
      return luaL_error(L, "bt.random: no tree's stream and no math.random");
    lua_insert(L, 1);
    lua_call(L, nargs, LUA_MULTRET);
    return lua_gettop(L);
  }
  uint64_t x = t->stream; /* xorshift64* */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  t->stream = x;
  x *= 0x2545F4914F6CDD1DULL;
  if (nargs == 0) {
    lua_pushnumber(L, (lua_Number)(x >> 11) * (1.0 / 9007199254740992.0));
    return 1;
  }
  lua_Integer lo = 1, hi;
  if (nargs == 1) {
    hi = luaL_checkinteger(L, 1);
  } else {
    lo = luaL_checkinteger(L, 1);
    hi = luaL_checkinteger(L, 2);
  }
  luaL_argcheck(L, lo <= hi, nargs, "interval is empty");
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the whole range */
  lua_pushinteger(L, (lua_Integer)((uint64_t)lo + (span ? x % span : x)));
  return 1;
}

/* shared.set_random_tree(tree or nil): the tree bt.random draws for outside any tree (a pool's
 * deliveries and starts) */
static int l_set_random_tree(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  lbt_tree *t = lua_isnoneornil(L, 1) ? NULL : lbt_tree_test(L, 1);
  luaL_unref(L, LUA_REGISTRYINDEX, S->owner_ref);
  S->owner_ref = LUA_NOREF;
  S->owner = t;
  S->owner_inst = NULL;
  if (t) {
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, LBT_UV_INST);
    S->owner_inst = lua_topointer(L, -1);
    lua_pop(L, 1);
    S->owner_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  return 0;
}

const void *bt_lua_running_entity(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  if (!S) return NULL;
  return S->entered ? S->entered->entry->inst_ptr : S->owner_inst;
}

const luaL_Reg lbt_clock_shared[] = {
    {"set_random_tree", l_set_random_tree},
    {NULL, NULL},
};

/* bt.GetTime(): the module's state is its upvalue (lbt_open_clock), as behaviours call it often */
static int l_get_time(lua_State *L) {
  lbt_state *S = lua_touserdata(L, lua_upvalueindex(1));
  lua_State *saved = S->L;
  S->L = L;
  lua_pushnumber(L, clock_now(S, L, 0));
  S->L = saved;
  return 1;
}

double lbt_clock_now(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  lua_State *saved = S->L;
  S->L = L;
  double t = clock_now(S, L, 0);
  S->L = saved;
  return t;
}

void lbt_open_clock(lua_State *L, int module) {
  lua_pushcfunction(L, l_set_clock);
  lua_setfield(L, module, "set_clock");
  lua_pushcfunction(L, l_seed_trees);
  lua_setfield(L, module, "seed_trees");
  lbt_state *S = lbt_state_get(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* math.random, if math is open */
  if (lua_getfield(L, -1, "math") == LUA_TTABLE) lua_getfield(L, -1, "random");
  else lua_pushnil(L);
  S->math_random_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 2);
  lua_pushlightuserdata(L, S);
  lua_pushcclosure(L, l_random, 1);
  lua_setfield(L, module, "random");
  lua_pushlightuserdata(L, lbt_state_get(L));
  lua_pushcclosure(L, l_get_time, 1);
  lua_setfield(L, module, "GetTime");
}
