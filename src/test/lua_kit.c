/* SPDX-License-Identifier: MIT */
/*
 * lua_kit.c: the Lua module bt.testkit (bt/testkit.so), the C half of the test kit bt.test
 * (lua/bt/test.lua, docs/bt-test.md): what the kit does over libbttest (bt_test.h), for the
 * kit's Lua functions to call. It is no API of its own: scripts use bt.test, which requires it
 * when a function needs it. A C module beside bt.so, as bt.view is: it finds bt.so's recorders
 * through the registry's "bt.c_api" (bt_lua.h).
 *
 * One table of functions, a block per part of the kit (bt_test.h's sections). Functions that can
 * fail on what a script gave return nil (fail) and a message, which bt.test raises as the error
 * of its own function and argument.
 */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "bt_lua.h"
#include "bt_test.h"

/* nil and a message: a failure the caller raises as its own argument's error. */
static int push_fail(lua_State *L, const char *message) {
  luaL_pushfail(L);
  lua_pushstring(L, message);
  return 2;
}

/* ---- comparing recorded sessions (bt_diff) ----
 *   kit.diff_logs(a, b)        compares the log files a and b: rows, summary, report | nil, message
 *   kit.diff_check(path)       a comparer whose side A is the log file at path | nil, message
 *   kit.diff_watch(chk, rec)   a bt.Recorder's records (its callback) feed side B, as they come
 *   kit.diff_finish(chk)       ends the comparison: rows, summary, report | nil, message
 * rows: an array, an entry per agent that differs or is in one side only, in the order first
 * seen: {agent =, label =, state = "differs" | "only A" | "only B", time =, path =, a =, b =,
 * path_a =, path_b =, time_a =, time_b =, same =}; summary: {agents =, same =, differ =,
 * only_a =, only_b =, records =}; report: bt_diff_report's text. */

#define CHECK_META "bt.testkit.check"

typedef struct lcheck {
  bt_diff *d;
  bt_log_reader *golden;
  int rc; /* the first error a recorder's record met */
} lcheck;

/* What a watched recorder's callback is given: the check and the recorder. */
typedef struct lwatch {
  lcheck *c;
  bt_rec *rec;
} lwatch;

static const bt_lua_c_api *c_api(lua_State *L) {
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
  if (!api || api->version < 1) luaL_error(L, "bt.testkit: this bt module gives no recorders to C (bt.c_api)");
  return api;
}

static void set_string(lua_State *L, const char *key, const char *s) {
  lua_pushstring(L, s);
  lua_setfield(L, -2, key);
}
static void set_number(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}
static void set_integer(lua_State *L, const char *key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}

/* Pushes rows, summary and report of a finished comparer. */
static int push_diff(lua_State *L, bt_diff *d) {
  static const char *const STATES[] = {"same", "differs", "only A", "only B"};
  lua_newtable(L);
  int n = 0;
  for (int i = 0; i < bt_diff_count(d); i++) {
    bt_diff_row r;
    if (bt_diff_get(d, i, &r) != BT_OK || r.state == BT_DIFF_SAME) continue;
    lua_createtable(L, 0, 12);
    set_integer(L, "agent", (lua_Integer)r.agent);
    set_string(L, "label", r.label);
    set_string(L, "state", STATES[r.state]);
    set_number(L, "time", r.time);
    set_integer(L, "same", (lua_Integer)r.same);
    if (r.state == BT_DIFF_DIFFERS) {
      set_string(L, "path", r.path[r.has[0] && r.path[0][0] ? 0 : 1]);
      set_string(L, "a", r.what[0]);
      set_string(L, "b", r.what[1]);
      set_string(L, "path_a", r.path[0]);
      set_string(L, "path_b", r.path[1]);
      if (r.has[0]) set_number(L, "time_a", r.times[0]);
      if (r.has[1]) set_number(L, "time_b", r.times[1]);
    }
    lua_rawseti(L, -2, ++n);
  }
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  lua_createtable(L, 0, 6);
  set_integer(L, "agents", s.agents);
  set_integer(L, "same", s.same);
  set_integer(L, "differ", s.differ);
  set_integer(L, "only_a", s.only_a);
  set_integer(L, "only_b", s.only_b);
  set_integer(L, "records", (lua_Integer)s.records);
  bt_buf b = {0};
  if (bt_diff_report(d, &b) != BT_OK) {
    bt_buf_free(&b);
    return luaL_error(L, "not enough memory");
  }
  lua_pushlstring(L, b.data ? b.data : "", b.len);
  bt_buf_free(&b);
  return 3;
}

static int l_diff_logs(lua_State *L) {
  const char *paths[2] = {luaL_checkstring(L, 1), luaL_checkstring(L, 2)};
  bt_log_reader *r[2] = {NULL, NULL};
  char err[512];
  for (int s = 0; s < 2; s++)
    if (bt_log_reader_create_file(&r[s], paths[s], err, sizeof err) != BT_OK) {
      bt_log_reader_free(r[0]);
      return push_fail(L, err);
    }
  bt_diff *d = NULL;
  int rc = bt_diff_create(&d);
  if (rc == BT_OK) rc = bt_diff_set_names(d, "A", "B");
  if (rc == BT_OK) rc = bt_diff_logs(d, r[0], r[1]);
  bt_log_reader_free(r[0]);
  bt_log_reader_free(r[1]);
  if (rc != BT_OK) {
    lua_pushstring(L, d ? bt_diff_errmsg(d) : "not enough memory");
    bt_diff_free(d);
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  int n = push_diff(L, d);
  bt_diff_free(d);
  return n;
}

static lcheck *check_check(lua_State *L) {
  lcheck *c = luaL_checkudata(L, 1, CHECK_META);
  if (!c->d) luaL_argerror(L, 1, "the check is finished");
  return c;
}

static void on_record(void *ud, const bt_rec_entry *e) {
  lwatch *w = ud;
  if (!w->c->d || w->c->rc != BT_OK) return;
  w->c->rc = bt_diff_entry(w->c->d, BT_DIFF_B, bt_rec_agent(w->rec), bt_rec_label(w->rec), bt_rec_def(w->rec), e);
}

/* Lets every watched recorder go (uservalue 1: recorder -> its lwatch) and frees the comparer. */
static void check_close(lua_State *L, lcheck *c) {
  if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lwatch *w = lua_touserdata(L, -1);
      /* a recorder collected with the check (its finalizer may have run first) has no bt_rec */
      if (w && w->c && c_api(L)->torecorder(L, -2) == w->rec) bt_rec_set_callback(w->rec, NULL, NULL);
      if (w) w->c = NULL;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  bt_diff_free(c->d);
  bt_log_reader_free(c->golden);
  c->d = NULL;
  c->golden = NULL;
}

static int check_gc(lua_State *L) {
  check_close(L, luaL_checkudata(L, 1, CHECK_META));
  return 0;
}

static int l_diff_check(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lcheck *c = lua_newuserdatauv(L, sizeof *c, 1);
  memset(c, 0, sizeof *c);
  if (luaL_newmetatable(L, CHECK_META)) {
    lua_pushcfunction(L, check_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, check_gc);
    lua_setfield(L, -2, "__close");
  }
  lua_setmetatable(L, -2);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  char err[512];
  if (bt_log_reader_create_file(&c->golden, path, err, sizeof err) != BT_OK) return push_fail(L, err);
  if (bt_diff_create(&c->d) != BT_OK || bt_diff_set_names(c->d, "recorded", "now") != BT_OK ||
      bt_diff_set_reader(c->d, BT_DIFF_A, c->golden) != BT_OK)
    return luaL_error(L, "not enough memory");
  return 1;
}

static int l_diff_watch(lua_State *L) {
  check_check(L);
  lcheck *c = lua_touserdata(L, 1);
  bt_rec *rec = c_api(L)->torecorder(L, 2);
  if (!rec) return luaL_argerror(L, 2, "a bt.Recorder expected");
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 0; /* watched already */
  lua_pop(L, 1);
  lua_pushvalue(L, 2); /* the recorder lives as long as the check: recorder -> its lwatch */
  lwatch *w = lua_newuserdatauv(L, sizeof *w, 0);
  w->c = c;
  w->rec = rec;
  lua_rawset(L, -3);
  bt_rec_set_callback(rec, on_record, w);
  return 0;
}

static int l_diff_finish(lua_State *L) {
  lcheck *c = check_check(L);
  int rc = c->rc;
  if (rc == BT_OK) rc = bt_diff_finish(c->d);
  if (rc != BT_OK) {
    lua_pushstring(L, bt_diff_errmsg(c->d));
    check_close(L, c);
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  int n = push_diff(L, c->d);
  check_close(L, c);
  return n;
}

/* ---- the module ---- */

static const luaL_Reg FUNCS[] = {
    /* comparing recorded sessions */
    {"diff_logs", l_diff_logs},
    {"diff_check", l_diff_check},
    {"diff_watch", l_diff_watch},
    {"diff_finish", l_diff_finish},
    {NULL, NULL},
};

int luaopen_bt_testkit(lua_State *L) {
  luaL_newlib(L, FUNCS);
  return 1;
}
