/* SPDX-License-Identifier: MIT */
/* state.c: the ground floor of the binding: the module's state and registry, argument errors,
 * statuses, and the text of the core's buffers. It calls no other file of the binding. */
#include <string.h>

#include "lbt.h"

static const char registry_key = 0;

void lbt_registry_new(lua_State *L) {
  lua_createtable(L, LBT_REG_COUNT, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &registry_key);
}

int lbt_registry_exists(lua_State *L) {
  int yes = lua_rawgetp(L, LUA_REGISTRYINDEX, &registry_key) == LUA_TTABLE;
  lua_pop(L, 1);
  return yes;
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

const char *const lbt_method_names[LBT_METHOD_COUNT] = {"Visit", "Reset", "Step", "GetSleepTime",
                                                        "DBString"};

static const char *const key_names[LBT_KEY_READY - LBT_METHOD_COUNT] = {
    "OnStop", "inst", "entity", "IsValid", "IsAsleep", "OnUpdate", "DoUpdate", "bt", "Update",
    "status"};

const char *lbt_key_name(int key) {
  if (key < LBT_METHOD_COUNT) return lbt_method_names[key];
  if (key < LBT_KEY_READY) return key_names[key - LBT_METHOD_COUNT];
  return bt_status_name(key - LBT_KEY_READY);
}

void lbt_open_keys(lua_State *L, lbt_state *S) {
  for (int k = 0; k < LBT_KEY_COUNT; k++) {
    lua_pushstring(L, lbt_key_name(k));
    S->keys[k] = luaL_ref(L, LUA_REGISTRYINDEX);
  }
}

lbt_tree *lbt_tree_forward(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_pushvalue(L, idx); /* the tree the caller had */
  int first = lua_gettop(L), hops = 0;
  lbt_tree *t = lbt_tree_raw(L, idx);
  lbt_registry_get(L, LBT_REG_REBUILT);
  int rebuilt = lua_gettop(L);
  while (t && t->forwarded) {
    lua_pushvalue(L, idx);
    lua_rawget(L, rebuilt);
    lua_replace(L, idx);
    t = lbt_tree_raw(L, idx);
    hops++;
  }
  if (hops > 1) { /* the first one forwards to the last from now on */
    lua_pushvalue(L, first);
    lua_pushvalue(L, idx);
    lua_rawset(L, rebuilt);
  }
  lua_settop(L, first - 1);
  return t;
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

/* ---- argument errors ---- */

/* "chunk:line" of the innermost Lua function outside the module's own Lua files, the code that
 * called the API (class.lua's constructor call is not where the mistake is). */
void lbt_push_where(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0 && strncmp(ar.source, "@bt/", 4) != 0) {
      lua_pushfstring(L, "%s:%d", ar.short_src, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

/* lbt_push_where's, followed by ": " (nothing if there is none). */
static void push_where(lua_State *L) {
  lbt_push_where(L);
  if (lua_rawlen(L, -1) > 0) {
    lua_pushliteral(L, ": ");
    lua_concat(L, 2);
  }
}

int lbt_argerror(lua_State *L, int arg, const char *fname, const char *msg) {
  push_where(L);
  if (arg == 0) lua_pushfstring(L, "bad self to '%s' (%s)", fname, msg);
  else lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, fname, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

int lbt_typeerror(lua_State *L, int idx, int arg, const char *fname, const char *expected) {
  const char *msg = lua_pushfstring(L, "%s expected, got %s", expected, luaL_typename(L, idx));
  return lbt_argerror(L, arg, fname, msg);
}

lua_Number lbt_checknumber(lua_State *L, int idx, int arg, const char *fname) {
  int isnum;
  lua_Number v = lua_tonumberx(L, idx, &isnum);
  if (!isnum) lbt_typeerror(L, idx, arg, fname, "number");
  return v;
}

/* ---- statuses ---- */

void lbt_push_status(lua_State *L, int status) {
  lua_pushstring(L, bt_status_name(status)); /* a literal: Lua's string cache finds it at once */
}

/* ---- text ---- */

/* the text of the bt_buf at 1 (a light userdata), for a protected call */
static int push_text(lua_State *L) {
  const bt_buf *buf = lua_touserdata(L, 1);
  lua_pushlstring(L, buf->data ? buf->data : "", buf->len);
  return 1;
}

int lbt_push_buf(lua_State *L, bt_buf *buf) {
  if (buf->err) {
    bt_buf_free(buf);
    return luaL_error(L, "not enough memory");
  }
  /* making the string may fail in a state of bounded memory: free buf before raising that */
  lua_pushcfunction(L, push_text);
  lua_pushlightuserdata(L, buf);
  int rc = lua_pcall(L, 1, 1, 0);
  bt_buf_free(buf);
  if (rc != LUA_OK) return lua_error(L);
  return 1;
}

void lbt_push_math_random(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "math");
  lua_getfield(L, -1, "random");
  lua_replace(L, -3);
  lua_pop(L, 1);
}

/* shared.argerror(arg, fname, msg): lbt_argerror for the module's Lua files */
static int l_argerror(lua_State *L) {
  int arg = (int)lua_tointeger(L, 1);
  const char *fname = lua_tostring(L, 2), *msg = lua_tostring(L, 3);
  return lbt_argerror(L, arg, fname ? fname : "?", msg ? msg : "?");
}

/* shared.where(): "chunk:line: " of the innermost Lua function outside the module's own Lua
 * files, or "" (push_where's), for errors the Lua files raise about a script's use of a name */
static int l_where(lua_State *L) {
  push_where(L);
  return 1;
}

const luaL_Reg lbt_state_shared[] = {
    {"argerror", l_argerror},
    {"where", l_where},
    {NULL, NULL},
};
