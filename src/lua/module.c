/* SPDX-License-Identifier: MIT */
/* module.c: luaopen_bt. It makes the module's state and registry, opens each file of the binding
 * (lbt.h lists them) into the module table, and runs the module's Lua files (lua/) with the
 * module and a table of what the C files share with them. */
#include <string.h>

#include "lbt.h"
#include "lbt_embedded.h"

/* bt.install_globals([env]): the names docs/lua-api.md lists, into env (default _G) */
static int l_install_globals(lua_State *L) {
  int t = lua_type(L, 1);
  if (t == LUA_TNONE || t == LUA_TNIL) lua_pushglobaltable(L);
  else if (t == LUA_TTABLE) lua_pushvalue(L, 1);
  else return lbt_typeerror(L, 1, 1, "install_globals", "table or nil");
  int env = lua_gettop(L);
  lbt_registry_get(L, LBT_REG_MODULE);
  int module = lua_gettop(L);
  lbt_push_global_names(L);
  int names = lua_gettop(L);
  static const char *const more[] = {"SUCCESS", "FAILED", "READY", "RUNNING", "BT", "Class",
                                     "Brain", "BrainWrangler", "BrainManager", NULL};
  for (const char *const *name = more; *name; name++) {
    lua_pushstring(L, *name);
    lua_rawseti(L, names, (lua_Integer)lua_rawlen(L, names) + 1);
  }
  for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, names); i <= n; i++) {
    lua_rawgeti(L, names, i);
    if (lua_getfield(L, module, lua_tostring(L, -1)) == LUA_TNIL) {
      lua_pop(L, 2);
      continue;
    }
    lua_setfield(L, env, lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  if (lua_getfield(L, env, "GetTime") == LUA_TNIL) {
    lua_getfield(L, module, "GetTime");
    lua_setfield(L, env, "GetTime");
  }
  lua_settop(L, env);
  return 1;
}

static const lbt_embedded_file *embedded_find(const char *name) {
  for (const lbt_embedded_file *f = lbt_embedded_files; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

/* Runs an embedded Lua file with the module table and the shared table as its arguments;
 * returns its results. */
static int run_embedded(lua_State *L, const char *name, int shared, int nres) {
  const lbt_embedded_file *f = embedded_find(name);
  if (!f) return luaL_error(L, "bt: embedded file %s missing", name);
  if (luaL_loadbufferx(L, f->source, f->size, f->chunkname, "t") != LUA_OK) return lua_error(L);
  lbt_registry_get(L, LBT_REG_MODULE);
  lua_pushvalue(L, shared);
  lua_call(L, 2, nres);
  return nres;
}

/* The module's state, in its registry. */
static void open_state(lua_State *L) {
  lbt_state *S = lua_newuserdatauv(L, sizeof *S, 0);
  memset(S, 0, sizeof *S);
  lbt_host_init(S);
  S->L = L;
  S->tick_time = 1.0 / 30;
  S->mem = lbt_memory_of(L);
  lbt_registry_set(L, LBT_REG_STATE);
  lbt_open_keys(L, S);
  for (int slot = LBT_REG_CLASSES; slot <= LBT_REG_COUNT; slot++) {
    if (slot == LBT_REG_HANDLER || slot == LBT_REG_CLASS || slot == LBT_REG_LIB || slot == LBT_REG_MADE ||
        slot == LBT_REG_ORIGINS)
      continue;
    lua_newtable(L);
    lbt_registry_set(L, slot);
  }
  lbt_registry_get(L, LBT_REG_WEAKVALUES);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lbt_registry_get(L, LBT_REG_REBUILT);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pop(L, 2);
}

/* Notes Brain's own OnUpdate and GetSleepTime (lbt_state.brain_update, brain_sleep_time). */
static void pin_brain_methods(lua_State *L, int module) {
  lbt_state *S = lbt_state_get(L);
  lbt_registry_get(L, LBT_REG_PINNED);
  lua_getfield(L, module, "Brain");
  lua_getfield(L, -1, "OnUpdate");
  S->brain_update = lua_topointer(L, -1);
  lua_setfield(L, -3, "OnUpdate");
  lua_getfield(L, -1, "GetSleepTime");
  S->brain_sleep_time = lua_topointer(L, -1);
  lua_setfield(L, -3, "GetSleepTime");
  lua_pop(L, 2);
}

/* The statuses: bt.SUCCESS ... (ABORTED is what a task's finish is told, never a node's status) */
static void open_statuses(lua_State *L, int module) {
  lbt_state *S = lbt_state_get(L);
  lbt_registry_get(L, LBT_REG_PINNED);
  for (int s = BT_READY; s <= BT_ABORTED; s++) {
    lbt_push_status(L, s);
    if (s <= BT_RUNNING) {
      S->status_names[s] = lua_tostring(L, -1);
      lua_pushvalue(L, -1);
      lua_rawseti(L, -3, -s - 1); /* the methods take the positive keys */
    }
    lua_setfield(L, module, bt_status_name(s));
  }
  lua_pop(L, 1);
  lua_pushliteral(L, "REQUIRE_ONE");
  lua_setfield(L, module, "REQUIRE_ONE");
  lua_pushliteral(L, "REQUIRE_ALL");
  lua_setfield(L, module, "REQUIRE_ALL");
}

/* A table whose keys are weak. */
static void push_weak_keys(lua_State *L) {
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
}

/* ---- the module's functions written in Lua ---- */

static int keep_frame_done(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  return lua_gettop(L);
}

/* Calls the Lua function in its upvalue with its arguments and returns its results. A C function:
 * `return bt.SharedBrain(5)` in a designer's function, a tail call, keeps that function's frame,
 * so that an argument error names its line (a tail call to a Lua function would replace it). */
static int keep_frame(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, keep_frame_done);
  return lua_gettop(L);
}

/* shared.keep_frame(fn): fn behind keep_frame, for the functions the sandbox gives scripts in
 * place of Lua's (require, load, ...), whose errors must name the script's line */
static int l_keep_frame(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushcclosure(L, keep_frame, 1);
  return 1;
}

/* Puts each function of table t written in Lua behind keep_frame, and those of its tables
 * (bt.reload, bt.sandbox); classes (tables with a metatable) have a C __call already. */
static void keep_frames(lua_State *L, int t, int depth) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    int v = lua_gettop(L);
    if (lua_type(L, v - 1) == LUA_TSTRING && lua_type(L, v) == LUA_TFUNCTION && !lua_iscfunction(L, v)) {
      lua_pushvalue(L, v - 1);
      lua_pushvalue(L, v);
      lua_pushcclosure(L, keep_frame, 1);
      lua_rawset(L, t); /* an existing key: lua_next may go on */
    } else if (depth > 0 && lua_type(L, v) == LUA_TTABLE && !lua_getmetatable(L, v)) {
      keep_frames(L, v, depth - 1);
    }
    lua_settop(L, v - 1);
  }
}

/* A new, empty LBT_REG_ORIGINS, also shared.origins (class.lua fills it). */
static void set_origins(lua_State *L, int shared) {
  push_weak_keys(L);
  lua_pushvalue(L, -1);
  lbt_registry_set(L, LBT_REG_ORIGINS);
  lua_setfield(L, shared, "origins");
}

/* What the module's C files give its Lua files, and what those share with one another: every
 * brain ever started (weak), and each class's subclasses (weak), for reloads. */
static void open_shared(lua_State *L, int module, int shared) {
  lua_pushvalue(L, shared);
  luaL_setfuncs(L, lbt_state_shared, 0);
  luaL_setfuncs(L, lbt_call_shared, 0);
  luaL_setfuncs(L, lbt_clock_shared, 0);
  luaL_setfuncs(L, lbt_objects_shared, 0);
  luaL_setfuncs(L, lbt_board_shared, 0);
  luaL_setfuncs(L, lbt_compile_shared, 0);
  luaL_setfuncs(L, lbt_reload_shared, 0);
  luaL_setfuncs(L, lbt_save_shared, 0);
  luaL_setfuncs(L, lbt_recorder_shared, 0);
  lua_pop(L, 1);
  lbt_open_sched(L, module, shared);
  lua_pushcfunction(L, lbt_watcher_new);
  lua_setfield(L, shared, "watcher");
  lua_pushcfunction(L, l_keep_frame);
  lua_setfield(L, shared, "keep_frame");
  push_weak_keys(L);
  lua_setfield(L, shared, "live_brains");
  push_weak_keys(L);
  lua_setfield(L, shared, "subclasses");
  set_origins(L, shared);
}

int luaopen_bt(lua_State *L) {
  if (lbt_registry_exists(L)) {
    lbt_registry_get(L, LBT_REG_MODULE);
    return 1;
  }
  lbt_registry_new(L);
  open_state(L);
  lbt_registry_get(L, LBT_REG_MODULE);
  int module = lua_gettop(L);
  open_statuses(L, module);
  lbt_open_clock(L, module);
  luaL_setfuncs(L, lbt_call_functions, 0);
  luaL_setfuncs(L, lbt_memory_functions, 0);
  lua_pushcfunction(L, l_install_globals);
  lua_setfield(L, module, "install_globals");
  lua_pushliteral(L, BT_VERSION);
  lua_setfield(L, module, "VERSION");
  lua_pushliteral(L, "bt " BT_VERSION); /* as Lua's own _VERSION, "Lua 5.4" */
  lua_setfield(L, module, "_VERSION");

  lua_newtable(L);
  int shared = lua_gettop(L);
  lua_pushvalue(L, shared);
  lbt_registry_set(L, LBT_REG_SHARED);
  open_shared(L, module, shared);
  run_embedded(L, "class.lua", shared, 1);
  lua_pushvalue(L, -1);
  lbt_registry_set(L, LBT_REG_CLASS);
  lua_setfield(L, module, "Class");
  lbt_open_board(L, module);
  lbt_open_classes(L, module);
  lbt_open_compile(L, module);
  lbt_open_tree(L, module);
  lbt_open_stats(L, module);
  lbt_open_logfile(L, module);
  lbt_open_recorder(L, module);
  run_embedded(L, "brain.lua", shared, 0);
  pin_brain_methods(L, module);
  run_embedded(L, "reload.lua", shared, 0);
  run_embedded(L, "save.lua", shared, 0);
  run_embedded(L, "sandbox.lua", shared, 0);
  run_embedded(L, "pool.lua", shared, 0);
  keep_frames(L, module, 1);
  set_origins(L, shared); /* the module's own classes were made where it was required: no origin */
  lua_settop(L, module);
  return 1;
}
