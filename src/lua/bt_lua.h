/*
 * bt_lua.h: the bt Lua module, for hosts that embed Lua.
 *
 * luaL_requiref(L, "bt", luaopen_bt, 0) (or require "bt" with bt.so on package.cpath) opens
 * everything API.md describes; the module needs no package.path.
 */
#ifndef BT_LUA_H
#define BT_LUA_H

#include <lua.h>

#include "bt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the module and returns its table (the same table each time in one lua_State). */
int luaopen_bt(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
