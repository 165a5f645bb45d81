/* SPDX-License-Identifier: MIT */
/*
 * lbt_cmodule.h: what a C module loaded beside bt.so (bt.view: src/view/lua_view.c; bt.testkit:
 * src/test/lua_kit.c) needs of bt.so, in one place. Lua loads a C module with its names local,
 * so such a module cannot call bt.so's functions: it finds them in the table bt keeps in the
 * registry under BT_LUA_C_API (bt_lua.h). Static functions, compiled into each module: no name
 * of them is exported. Not installed.
 */
#ifndef LBT_CMODULE_H
#define LBT_CMODULE_H

#include <lauxlib.h>
#include <lua.h>

#include "bt_lua.h"

/* bt.so's table of functions for C (bt is required first if it is not loaded yet); an error
 * naming `module` when this bt gives none. */
static inline const bt_lua_c_api *lbt_cmodule_api(lua_State *L, const char *module) {
  lua_getfield(L, LUA_REGISTRYINDEX, BT_LUA_C_API);
  const bt_lua_c_api *api = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!api) { /* bt is not loaded yet: load it */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "bt");
    lua_call(L, 1, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, BT_LUA_C_API);
    api = lua_touserdata(L, -1);
    lua_pop(L, 1);
  }
  if (!api || api->version < 1) luaL_error(L, "%s: this bt module gives no recorders to C (bt.c_api)", module);
  return api;
}

/* The recorder of the value at idx, found, or made with bt's own Lua functions: the value itself
 * (a bt.Recorder), a tree's (tree:recorder(), or a new tree:record{capacity = capacity}), or a
 * brain's (brain.recorder, or brain:Record{capacity = capacity}: the brain keeps it on whichever
 * tree it has). Pushes it and returns its bt_rec; or pushes nothing and returns NULL when the
 * value is none of these. */
static inline bt_rec *lbt_cmodule_push_recorder(lua_State *L, int idx, lua_Integer capacity, const char *module) {
  static const char RESOLVE[] =
      "local x, capacity = ...\n"
      "if type(x) == 'table' and type(x.Record) == 'function' then\n"
      "  return rawget(x, 'recorder') or x:Record({capacity = capacity})\n"
      "end\n"
      "local ok, rec = pcall(function() return x:recorder() end)\n"
      "if not ok then return nil end\n"
      "return rec or x:record({capacity = capacity})\n";
  const bt_lua_c_api *api = lbt_cmodule_api(L, module);
  idx = lua_absindex(L, idx);
  if (api->torecorder(L, idx)) {
    lua_pushvalue(L, idx);
    return api->torecorder(L, -1);
  }
  if (luaL_loadstring(L, RESOLVE) != LUA_OK) lua_error(L);
  lua_pushvalue(L, idx);
  lua_pushinteger(L, capacity);
  lua_call(L, 2, 1);
  bt_rec *rec = api->torecorder(L, -1);
  if (!rec) lua_pop(L, 1);
  return rec;
}

#endif
