/* SPDX-License-Identifier: MIT */
/*
 * bt_lua.h: the bt Lua module, for hosts that embed Lua.
 *
 * luaL_requiref(L, "bt", luaopen_bt, 0) (or require "bt" with bt.so on package.cpath) opens
 * everything docs/lua-api.md describes; the module needs no package.path.
 */
#ifndef BT_LUA_H
#define BT_LUA_H

#include "bt.h"

/* lua.h has no extern "C" of its own: C++ hosts get Lua's C names through this block (as lua.hpp) */
#ifdef __cplusplus
extern "C" {
#endif

#include <lua.h>

/* Opens the module and returns its table (the same table each time in one lua_State). */
int luaopen_bt(lua_State *L);

/* Bounded memory (docs/errors.md). A Lua state made by bt_lua_newstate fails any allocation that
 * would take it past limit bytes (0: no bound): the script that asked gets a "not enough memory"
 * error, handled as any script error. bt's own bookkeeping may go a reserve past the limit (an
 * eighth of it, at least 64 KiB), so that it can report the error. Returns NULL without memory. */
lua_State *bt_lua_newstate(size_t limit);

/* Closes a state made by bt_lua_newstate (lua_close, then the allocator's state), or any state. */
void bt_lua_close(lua_State *L);

/* Changes the bound of a state made by bt_lua_newstate (bt.set_memory_limit); BT_EINVAL for
 * another state. */
int bt_lua_set_memory_limit(lua_State *L, size_t limit);

/* Bytes in use by a state made by bt_lua_newstate (bt.memory()), 0 for another state. */
size_t bt_lua_memory_used(lua_State *L);

/* The bt_rec of the bt.Recorder at idx (docs/lua-api.md "Recording"), or NULL when the value is
 * none. It lives as long as the Lua object: keep a reference to it while C uses it (a viewer
 * registration, bt_view_add_agent). */
bt_rec *bt_lua_torecorder(lua_State *L, int idx);

/* For C modules loaded beside bt.so (bt.view): Lua loads a C module with its names local, so that
 * such a module cannot call bt_lua_torecorder directly; bt keeps, in the registry under
 * BT_LUA_C_API, a light userdata pointing to this table. version is 1. */
#define BT_LUA_C_API "bt.c_api"
typedef struct bt_lua_c_api {
  int version;
  bt_rec *(*torecorder)(lua_State *L, int idx);
} bt_lua_c_api;

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
