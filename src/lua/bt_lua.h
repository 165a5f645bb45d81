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

/* Hot reload (docs/reload.md), for hosts that drive it from C. Each leaves the stack as it was. */

/* Tracks the modules require loads from now on (bt.reload.enable()). Returns BT_OK. */
int bt_lua_reload_enable(lua_State *L);

/* Reloads a module by the name require knows it by (bt.reload.module(name)). Returns BT_OK, or
 * BT_EINVAL and copies the message ("file:line: ...") into err (size bytes, NUL-terminated). */
int bt_lua_reload(lua_State *L, const char *module, char *err, size_t size);

/* Watches the files of tracked modules (bt.reload.watch(mode)); mode is "auto", "inotify" or
 * "poll". Returns BT_OK, or BT_EINVAL if that mode is not available. */
int bt_lua_reload_watch(lua_State *L, const char *mode);

/* Reloads the modules whose files changed (bt.reload.poll()); calls report(ud, file, ok, message)
 * for each, report may be NULL. Returns the number of files reloaded or refused. Call it once per
 * frame. */
int bt_lua_reload_poll(lua_State *L,
                       void (*report)(void *ud, const char *file, int ok, const char *message),
                       void *ud);

#ifdef __cplusplus
}
#endif

#endif
