/* module.c: luaopen_bt, the module's state, time, errors, limits and globals. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <time.h>

#include "lbt.h"
#include "lbt_embedded.h"

static const char registry_key = 0;

static double monotonic_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lbt_registry_get(lua_State *L, int slot) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &registry_key);
  lua_rawgeti(L, -1, slot);
  lua_remove(L, -2);
}

void lbt_registry_set(lua_State *L, int slot) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &registry_key);
  lua_insert(L, -2);
  lua_rawseti(L, -2, slot);
  lua_pop(L, 1);
}

lbt_state *lbt_state_get(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &registry_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return NULL;
  }
  lua_rawgeti(L, -1, LBT_REG_STATE);
  lbt_state *S = lua_touserdata(L, -1);
  lua_pop(L, 2);
  return S;
}

/* Pushes "chunk:line: " of the innermost Lua function outside the module's own Lua files, the
 * code that called the API (class.lua's constructor call is not where the mistake is). */
static void push_where(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0 && strncmp(ar.source, "@bt/", 4) != 0) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

int lbt_argerror(lua_State *L, int arg, const char *fname, const char *msg) {
  push_where(L);
  lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, fname, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

int lbt_typeerror(lua_State *L, int idx, int arg, const char *fname, const char *expected) {
  const char *msg = lua_pushfstring(L, "%s expected, got %s", expected, luaL_typename(L, idx));
  return lbt_argerror(L, arg, fname, msg);
}

/* ---- time ---- */

/* Reads the clock; 0 if the clock function failed (then *out is the last good time). */
static int read_clock(lbt_state *S, lua_State *L, int msgh, double *out) {
  *out = S->last_time;
  if (S->clock_fixed) return 1;
  if (S->clock_ref == LUA_NOREF) {
    *out = S->last_time = monotonic_now() - S->start;
    return 1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->clock_ref);
  if (lbt_pcall(S, L, 0, 1, msgh, NULL, -1, "clock") != LUA_OK) return 0;
  if (lua_type(L, -1) != LUA_TNUMBER) {
    lua_pushfstring(L, "bt: clock: the clock returned %s, not a number", luaL_typename(L, -1));
    lbt_report(S, L, lua_tostring(L, -1));
    lua_pop(L, 2);
    return 0;
  }
  *out = S->last_time = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return 1;
}

double lbt_clock(lbt_state *S, lua_State *L, int msgh) {
  double t;
  read_clock(S, L, msgh, &t);
  return t;
}

int lbt_time_group_begin(lbt_state *S) {
  int outer = S->group_depth;
  S->group_depth = S->depth;
  S->time_fresh = 0;
  return outer;
}

void lbt_time_group_end(lbt_state *S, int outer) {
  S->group_depth = outer;
  S->time_fresh = 0;
}

/* The core's reads of the time. Within a group (a think; a tree's sleep time), a read with no
 * Lua code run since the last one (Don't Starve's PriorityNode reads GetTime() in Visit and again
 * in Sleep) takes the time that one gave: the clock is a function of what Lua code set, so a
 * second call would return the same. Reads from inside Lua code that the group called (a node
 * written in Lua) always call. */
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

/* math.random(n) from the math library, as Don't Starve's RandomNode calls it */
static int host_random_int(void *data, int n, int *out) {
  lbt_state *S = data;
  lua_State *L = S->L;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "math");
  lua_getfield(L, -1, "random");
  lua_replace(L, -3);
  lua_pop(L, 1);
  lua_pushinteger(L, n);
  if (lbt_pcall(S, L, 1, 1, 0, NULL, -1, "math.random") != LUA_OK) return BT_EINVAL;
  *out = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return BT_OK;
}

static double host_random(void *data) {
  lbt_state *S = data;
  lua_State *L = S->L;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "math");
  lua_getfield(L, -1, "random");
  lua_replace(L, -3);
  lua_pop(L, 1);
  if (lbt_pcall(S, L, 0, 1, 0, NULL, -1, "math.random") != LUA_OK) return 0.5;
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* ---- module functions ---- */

/* bt.set_clock(fn): fn() gives the time; bt.set_clock(t): the time stands at t (a number) until
 * set again; bt.set_clock(nil): seconds since the module was loaded. */
static int l_set_clock(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TFUNCTION && t != LUA_TNUMBER)
    return luaL_error(L, "bad argument #1 to 'set_clock' (function, number or nil expected, got %s)",
                      luaL_typename(L, 1));
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

static int l_get_time(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  lua_State *saved = S->L;
  S->L = L;
  lua_pushnumber(L, lbt_clock(S, L, 0));
  S->L = saved;
  return 1;
}

static int l_set_error_handler(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TFUNCTION)
    return luaL_error(L, "bad argument #1 to 'set_error_handler' (function or nil expected, got %s)",
                      luaL_typename(L, 1));
  lua_settop(L, 1);
  lbt_registry_set(L, LBT_REG_HANDLER);
  return 0;
}

static int l_set_tick_time(lua_State *L) {
  if (lua_type(L, 1) != LUA_TNUMBER || !(lua_tonumber(L, 1) > 0) || lua_tonumber(L, 1) == HUGE_VAL)
    return luaL_error(L, "bad argument #1 to 'set_tick_time' (positive number expected, got %s)",
                      lua_type(L, 1) == LUA_TNUMBER ? "a number that is not positive" : luaL_typename(L, 1));
  lbt_state_get(L)->tick_time = lua_tonumber(L, 1);
  return 0;
}

static int l_set_instruction_limit(lua_State *L) {
  if (!lua_isinteger(L, 1) || lua_tointeger(L, 1) < 0)
    return luaL_error(L,
                      "bad argument #1 to 'set_instruction_limit' (non-negative integer expected, got %s)",
                      lua_type(L, 1) == LUA_TNUMBER ? "a fraction or negative number" : luaL_typename(L, 1));
  lbt_state_get(L)->limit = lua_tointeger(L, 1);
  return 0;
}

/* What install_globals puts into env, besides GetTime. */
static const char *const global_names[] = {
    "SUCCESS", "FAILED", "READY", "RUNNING", "SequenceNode", "SelectorNode", "PriorityNode",
    "ParallelNode", "ParallelNodeAny", "LoopNode", "RandomNode", "ConditionNode",
    "MultiConditionNode", "ConditionWaitNode", "ActionNode", "WaitNode", "NotDecorator",
    "FailIfRunningDecorator", "FailIfSuccessDecorator", "EventNode", "LatchNode", "WhileNode",
    "IfNode", "IfThenDoWhileNode", "BT", "Class", "BehaviourNode", "DecoratorNode", "Brain",
    "BrainWrangler", "BrainManager", NULL};

static int l_install_globals(lua_State *L) {
  int t = lua_type(L, 1);
  if (t == LUA_TNONE || t == LUA_TNIL) lua_pushglobaltable(L);
  else if (t == LUA_TTABLE) lua_pushvalue(L, 1);
  else
    return luaL_error(L, "bad argument #1 to 'install_globals' (table or nil expected, got %s)",
                      luaL_typename(L, 1));
  int env = lua_gettop(L);
  lbt_registry_get(L, LBT_REG_MODULE);
  int module = lua_gettop(L);
  for (const char *const *name = global_names; *name; name++) {
    if (lua_getfield(L, module, *name) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    lua_setfield(L, env, *name);
  }
  if (lua_getfield(L, env, "GetTime") == LUA_TNIL) {
    lua_getfield(L, module, "GetTime");
    lua_setfield(L, env, "GetTime");
  }
  lua_settop(L, env);
  return 1;
}

static const luaL_Reg module_functions[] = {
    {"set_clock", l_set_clock},
    {"GetTime", l_get_time},
    {"set_error_handler", l_set_error_handler},
    {"set_instruction_limit", l_set_instruction_limit},
    {"set_tick_time", l_set_tick_time},
    {"install_globals", l_install_globals},
    {NULL, NULL},
};

static const lbt_embedded_file *embedded_find(const char *name) {
  for (const lbt_embedded_file *f = lbt_embedded_files; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

/* Runs an embedded Lua file with the module table and the table below it (the module's private
 * C functions) as arguments; returns its results. */
static int run_embedded(lua_State *L, const char *name, int nres) {
  const lbt_embedded_file *f = embedded_find(name);
  if (!f) return luaL_error(L, "bt: embedded file %s missing", name);
  int core = lua_gettop(L);
  if (luaL_loadbufferx(L, f->source, f->size, f->chunkname, "t") != LUA_OK) return lua_error(L);
  lbt_registry_get(L, LBT_REG_MODULE);
  lua_pushvalue(L, core);
  lua_call(L, 2, nres);
  return nres;
}

int luaopen_bt(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &registry_key) == LUA_TTABLE) {
    lua_rawgeti(L, -1, LBT_REG_MODULE);
    return 1;
  }
  lua_pop(L, 1);
  lua_createtable(L, LBT_REG_COUNT, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &registry_key);

  lbt_state *S = lua_newuserdatauv(L, sizeof *S, 0);
  memset(S, 0, sizeof *S);
  S->host.now = host_now;
  S->host.random = host_random;
  S->host.random_int = host_random_int;
  S->host.data = S;
  S->L = L;
  S->start = monotonic_now();
  S->tick_time = 1.0 / 30;
  S->clock_ref = LUA_NOREF;
  S->group_depth = -1;
  S->mem = lbt_memory_of(L);
  lbt_registry_set(L, LBT_REG_STATE);
  for (int slot = LBT_REG_CLASSES; slot <= LBT_REG_COUNT; slot++) {
    if (slot == LBT_REG_HANDLER || slot == LBT_REG_CLASS) continue;
    lua_newtable(L);
    lbt_registry_set(L, slot);
  }

  lbt_registry_get(L, LBT_REG_WEAKVALUES);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_MODULE);
  int module = lua_gettop(L);
  lbt_registry_get(L, LBT_REG_STATUSES);
  lbt_registry_get(L, LBT_REG_STATUSCODES);
  for (int s = BT_READY; s <= BT_ABORTED; s++) {
    const char *name = bt_status_name(s);
    lua_pushstring(L, name);
    lua_setfield(L, module, name);
    lua_pushstring(L, name);
    lua_rawseti(L, -3, s + 1);
    if (s == BT_ABORTED) break; /* what a task's finish is told, never a node's status */
    lua_pushinteger(L, s);
    lua_setfield(L, -2, name);
  }
  lua_pop(L, 2);
  lua_pushliteral(L, "REQUIRE_ONE");
  lua_setfield(L, module, "REQUIRE_ONE");
  lua_pushliteral(L, "REQUIRE_ALL");
  lua_setfield(L, module, "REQUIRE_ALL");
  luaL_setfuncs(L, module_functions, 0);
  lua_pushliteral(L, BT_VERSION);
  lua_setfield(L, module, "VERSION");

  /* the module's private functions and tables, handed to its Lua files */
  lbt_push_sched_core(L);
  int core = lua_gettop(L);
  lbt_add_reload_core(L, core);
  lbt_add_call_core(L, core);
  run_embedded(L, "class.lua", 1);
  lua_pushvalue(L, -1);
  lbt_registry_set(L, LBT_REG_CLASS);
  lua_setfield(L, module, "Class");
  lua_settop(L, core);

  lbt_open_nodes(L, module);
  lbt_open_compile(L, module);
  lbt_open_tree(L, module);
  lbt_open_memory(L, module);
  run_embedded(L, "brain.lua", 0);
  run_embedded(L, "reload.lua", 0);
  run_embedded(L, "sandbox.lua", 0);
  lua_settop(L, module);
  return 1;
}
