/* SPDX-License-Identifier: MIT */
/*
 * lua_view.c: the Lua module bt.view (bt/view.so; docs/viewer.md "From Lua"), a C module of its
 * own so that bt.so links no HTTP library:
 *
 *   local view = require "bt.view"
 *   local v = view.start{port = 0}       -- a bt_view; v:url(), v:port()
 *   v:watch(tree or brain or recorder, "wolf")
 *   v:frame(now)                         -- at each frame end
 *   v:close()
 *
 * A watched tree's or brain's recorder is found, or made (capacity 256), with bt's own Lua
 * functions; its bt_rec comes from bt.so through the registry's "bt.c_api" (bt_lua.h). The view
 * keeps each watched recorder alive (its uservalue) until unwatch or close.
 */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "bt_lua.h"
#include "bt_view.h"

#define VIEW_META "bt.view"
#define WATCH_CAPACITY 256

typedef struct lview {
  bt_view *v;
} lview;

static lview *check_view(lua_State *L) {
  lview *lv = luaL_checkudata(L, 1, VIEW_META);
  if (!lv->v) luaL_argerror(L, 1, "the view is closed");
  return lv;
}

static const bt_lua_c_api *c_api(lua_State *L) {
  const bt_lua_c_api *api = bt_lua_c_api_get(L);
  if (!api || api->version < 1) luaL_error(L, "bt.view: this bt module gives no recorders to C (bt.c_api)");
  return api;
}

/* ---- view.start{...} ---- */

static const char *opt_string(lua_State *L, const char *key, const char *def) {
  lua_getfield(L, 1, key);
  const char *s = def;
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING) luaL_argerror(L, 1, lua_pushfstring(L, "%s: a string expected", key));
    s = lua_tostring(L, -1);
  }
  lua_pop(L, 1); /* the string stays alive in the options table */
  return s;
}

static lua_Integer opt_integer(lua_State *L, const char *key, lua_Integer def, lua_Integer min, lua_Integer max) {
  lua_getfield(L, 1, key);
  lua_Integer v = def;
  if (!lua_isnil(L, -1)) {
    int ok;
    v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < min || v > max)
      luaL_argerror(L, 1, lua_pushfstring(L, "%s: a whole number from %I to %I expected", key, min, max));
  }
  lua_pop(L, 1);
  return v;
}

static int l_start(lua_State *L) {
  bt_view_options o;
  bt_view_options_init(&o);
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    o.address = opt_string(L, "address", o.address);
    o.token = opt_string(L, "token", NULL);
    o.source = opt_string(L, "source", NULL);
    o.port = (int)opt_integer(L, "port", 0, 0, 65535);
    o.history = (size_t)opt_integer(L, "history", 0, 0, 1 << 24);
    o.threads = (int)opt_integer(L, "threads", 0, 0, 512);
  }
  lview *lv = lua_newuserdatauv(L, sizeof *lv, 1);
  lv->v = NULL;
  luaL_setmetatable(L, VIEW_META);
  lua_newtable(L); /* recorder -> true: the watched recorders, kept alive */
  lua_setiuservalue(L, -2, 1);
  char err[256];
  int rc = bt_view_create(&lv->v, &o, err, sizeof err);
  if (rc == BT_EINVAL) return luaL_argerror(L, 1, err);
  if (rc != BT_OK) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    return 2;
  }
  return 1;
}

/* ---- watching ---- */

/* Leaves the recorder of the value at idx on the stack: the value itself, a tree's (tree:recorder()
 * or a new tree:record{capacity}), or a brain's (brain.recorder or brain:Record{capacity}). */
static const char RESOLVE[] =
    "local x, capacity = ...\n"
    "if type(x) == 'table' and type(x.Record) == 'function' then\n"
    "  return rawget(x, 'recorder') or x:Record({capacity = capacity})\n"
    "end\n"
    "local ok, rec = pcall(function() return x:recorder() end)\n"
    "if not ok then return nil end\n"
    "return rec or x:record({capacity = capacity})\n";

static bt_rec *push_recorder(lua_State *L, int idx) {
  const bt_lua_c_api *api = c_api(L);
  idx = lua_absindex(L, idx);
  if (api->torecorder(L, idx)) {
    lua_pushvalue(L, idx);
    return api->torecorder(L, -1);
  }
  if (luaL_loadstring(L, RESOLVE) != LUA_OK) lua_error(L);
  lua_pushvalue(L, idx);
  lua_pushinteger(L, WATCH_CAPACITY);
  lua_call(L, 2, 1);
  bt_rec *rec = api->torecorder(L, -1);
  if (!rec) luaL_argerror(L, 2, "a tree, a brain or a bt.Recorder expected");
  return rec;
}

static int l_watch(lua_State *L) {
  lview *lv = check_view(L);
  luaL_checkany(L, 2);
  const char *brain = luaL_optstring(L, 3, "");
  bt_rec *rec = push_recorder(L, 2);
  int rc = bt_view_add_agent(lv->v, rec, brain);
  if (rc == BT_EINVAL) return luaL_argerror(L, 2, bt_view_errmsg(lv->v));
  if (rc != BT_OK) return luaL_error(L, "%s", bt_view_errmsg(lv->v));
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  return 1; /* the recorder */
}

static int l_unwatch(lua_State *L) {
  lview *lv = check_view(L);
  luaL_checkany(L, 2);
  bt_rec *rec = push_recorder(L, 2);
  if (bt_view_remove_agent(lv->v, rec) != BT_OK) return luaL_argerror(L, 2, "it is not watched");
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, -2);
  lua_pushnil(L);
  lua_rawset(L, -3);
  return 0;
}

static int l_position(lua_State *L) {
  lview *lv = check_view(L);
  lua_Integer id = luaL_checkinteger(L, 2);
  double x = luaL_checknumber(L, 3), y = luaL_checknumber(L, 4);
  if (bt_view_set_position(lv->v, (unsigned long long)id, x, y) != BT_OK)
    return luaL_argerror(L, 2, bt_view_errmsg(lv->v));
  return 0;
}

static int l_frame(lua_State *L) {
  lview *lv = check_view(L);
  double now = luaL_checknumber(L, 2);
  if (bt_view_frame(lv->v, now) != BT_OK) return luaL_error(L, "%s", bt_view_errmsg(lv->v));
  return 0;
}

static int l_url(lua_State *L) {
  lua_pushstring(L, bt_view_url(check_view(L)->v));
  return 1;
}

static int l_port(lua_State *L) {
  lua_pushinteger(L, bt_view_port(check_view(L)->v));
  return 1;
}

static int l_stats(lua_State *L) {
  lview *lv = check_view(L);
  bt_view_stats st;
  bt_view_stats_get(lv->v, &st);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, (lua_Integer)st.frames);
  lua_setfield(L, -2, "frames");
  lua_pushinteger(L, (lua_Integer)st.requests);
  lua_setfield(L, -2, "requests");
  lua_pushinteger(L, (lua_Integer)st.refused);
  lua_setfield(L, -2, "refused");
  lua_pushinteger(L, (lua_Integer)st.messages);
  lua_setfield(L, -2, "messages");
  lua_pushinteger(L, (lua_Integer)st.dropped);
  lua_setfield(L, -2, "dropped");
  lua_pushinteger(L, st.clients);
  lua_setfield(L, -2, "clients");
  return 1;
}

static int l_close(lua_State *L) {
  lview *lv = luaL_checkudata(L, 1, VIEW_META);
  bt_view_free(lv->v);
  lv->v = NULL;
  lua_newtable(L); /* the recorders are let go */
  lua_setiuservalue(L, 1, 1);
  return 0;
}

static int l_tostring(lua_State *L) {
  lview *lv = luaL_checkudata(L, 1, VIEW_META);
  if (lv->v) lua_pushfstring(L, "bt.view (%s)", bt_view_url(lv->v));
  else lua_pushliteral(L, "bt.view (closed)");
  return 1;
}

static const luaL_Reg METHODS[] = {
    {"watch", l_watch}, {"unwatch", l_unwatch}, {"position", l_position}, {"frame", l_frame},
    {"url", l_url},     {"port", l_port},       {"stats", l_stats},       {"close", l_close},
    {NULL, NULL},
};

static const luaL_Reg META[] = {
    {"__gc", l_close},
    {"__close", l_close},
    {"__tostring", l_tostring},
    {NULL, NULL},
};

static const luaL_Reg FUNCS[] = {
    {"start", l_start},
    {NULL, NULL},
};

int luaopen_bt_view(lua_State *L) {
  luaL_newmetatable(L, VIEW_META);
  luaL_setfuncs(L, META, 0);
  luaL_newlib(L, METHODS);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newlib(L, FUNCS);
  return 1;
}
