/* SPDX-License-Identifier: MIT */
/*
 * lua_kit.c: the Lua module bt.testkit (bt/testkit.so), what `require "bt.test"` does in C
 * through libbttest (bt_test.h). bt.test loads it when a function needs it; scripts use bt.test.
 * It finds bt.so's trees and definitions through the registry's "bt.c_api" (bt_lua.h), as
 * bt.view does. Each part of the kit keeps its functions in a block of its own below, and in
 * the module's table.
 */
#include <lauxlib.h>
#include <lua.h>

#include "bt_lua.h"
#include "bt_test.h"

static const bt_lua_c_api *c_api(lua_State *L) {
  const bt_lua_c_api *api = bt_lua_c_api_get(L);
  if (!api || api->version < 1) luaL_error(L, "bt.testkit: this bt module gives nothing to C (bt.c_api)");
  return api;
}

/* ---- substitution (bt.test's substitute) ---- */

/* The definition of the tree or definition at arg, or an argument error. */
static const bt_def *check_def(lua_State *L, int arg) {
  const bt_lua_c_api *api = c_api(L);
  const bt_def *def = api->todef ? api->todef(L, arg) : NULL;
  if (!def) {
    const char *got = luaL_typename(L, arg);
    luaL_argerror(L, arg, lua_pushfstring(L, "BT or definition expected, got %s", got));
  }
  return def;
}

/* paths(tree or definition): an array of its nodes' paths in pre-order (bt_def_path: as the
 * recorder's records and error messages give them), and an array of their numbers of children */
static int kit_paths(lua_State *L) {
  const bt_def *def = check_def(L, 1);
  int n = bt_def_size(def);
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  bt_buf b = {0};
  for (int i = 0; i < n; i++) {
    b.len = 0;
    if (bt_def_path(def, i, &b) != BT_OK) {
      bt_buf_free(&b);
      return luaL_error(L, "paths: out of memory");
    }
    lua_pushlstring(L, b.data, b.len);
    lua_rawseti(L, -3, i + 1);
    lua_pushinteger(L, bt_def_child_count(def, i));
    lua_rawseti(L, -2, i + 1);
  }
  bt_buf_free(&b);
  return 2;
}

/* ---- the module ---- */

static const luaL_Reg kit_functions[] = {
    /* substitution */
    {"paths", kit_paths},
    {NULL, NULL},
};

int luaopen_bt_testkit(lua_State *L) {
  luaL_newlib(L, kit_functions);
  return 1;
}
