/* SPDX-License-Identifier: MIT */
/*
 * lua_kit.c: the Lua module bt.testkit (bt/testkit.so), the C half of bt.test (lua/bt/test.lua):
 * what the kit does over libbttest, a C module of its own beside bt.so. bt.so's objects (a
 * bt.Recorder's bt_rec, a bt.Stats' bt_stats) come through the registry's "bt.c_api" (bt_lua.h).
 * One luaL_Reg table; each part of the kit keeps its functions in a block of its own.
 *
 *   local kit = require "bt.testkit"
 *   local cov = kit.coverage(stats or recorder or "session.btlog"[, shape])
 *   cov:rows(), cov:report("text" | "lcov" | "cobertura"[, name])
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_lua.h"
#include "bt_test.h"

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
  if (!api || api->version < 1 || !api->tostats)
    luaL_error(L, "bt.testkit: this bt module gives no recorders and statistics to C (bt.c_api)");
  return api;
}

/* ---- coverage: kit.coverage (bt_test.h "coverage"; docs/bt-test.md "Coverage") ---- */

#define COVERAGE_META "bt.testkit.coverage"

typedef struct lcoverage {
  bt_coverage *c;
} lcoverage;

static int coverage_gc(lua_State *L) {
  lcoverage *lc = luaL_checkudata(L, 1, COVERAGE_META);
  bt_coverage_free(lc->c);
  lc->c = NULL;
  return 0;
}

/* Reads the log file at path into a coverage of its own; raises the reader's error. */
static void coverage_read_log(lua_State *L, bt_coverage *c, const char *path) {
  char err[512];
  bt_log_reader *r = NULL;
  if (bt_log_reader_create_file(&r, path, err, sizeof err) != BT_OK) luaL_error(L, "coverage: %s", err);
  bt_log_record rec;
  int rc;
  while ((rc = bt_log_read(r, &rec)) == 1)
    if (bt_coverage_add_log(c, r, &rec) != BT_OK) {
      bt_log_reader_free(r);
      luaL_error(L, "coverage: %s", bt_coverage_errmsg(c));
    }
  if (rc < 0) {
    lua_pushfstring(L, "coverage: %s: %s", path, bt_log_reader_errmsg(r));
    bt_log_reader_free(r);
    lua_error(L);
  }
  bt_log_reader_free(r);
}

/* kit.coverage(source[, shape]): the coverage of a bt.Stats, of the statistics a bt.Recorder
 * feeds (its tree's shape only), or of a log file (a path); shape (16 hex digits) keeps one. The
 * userdata keeps the statistics alive (its uservalue). Of bt.so's objects only their data is
 * read here: this module has the core of its own, whose functions that find a recorder's sinks
 * (bt_rec_stats) do not know bt.so's, so a recorder's statistics come from its Lua method. */
static int l_coverage(lua_State *L) {
  const bt_lua_c_api *api = c_api(L);
  const char *only = luaL_optstring(L, 2, NULL);
  unsigned long long hash = 0;
  if (only) {
    char *end = NULL;
    hash = strtoull(only, &end, 16);
    if (strlen(only) != 16 || *end) luaL_argerror(L, 2, "a shape's hash (16 hex digits) expected");
  }
  lua_settop(L, 1);
  bt_stats *st = api->tostats(L, 1);
  bt_rec *rec = st ? NULL : api->torecorder(L, 1);
  if (rec) { /* its bt.Stats, by its method: this module's copy of the core knows not bt.so's sinks */
    lua_getfield(L, 1, "stats");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (!(st = api->tostats(L, 2)))
      luaL_argerror(L, 1, "the recorder keeps no statistics (bt.Recorder{stats = true})");
    lua_replace(L, 1); /* the statistics are what the coverage keeps alive */
  }
  lcoverage *lc = lua_newuserdatauv(L, sizeof *lc, 1);
  lc->c = NULL;
  luaL_setmetatable(L, COVERAGE_META);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  if (!st && lua_type(L, 1) != LUA_TSTRING)
    luaL_argerror(L, 1, lua_pushfstring(L, "a bt.Stats, a bt.Recorder or a log file's path expected, got %s",
                                        luaL_typename(L, 1)));
  if (bt_coverage_create(&lc->c, st) != BT_OK) luaL_error(L, "not enough memory");
  if (!st) coverage_read_log(L, lc->c, lua_tostring(L, 1));
  if (rec && bt_rec_def(rec) && bt_coverage_only(lc->c, bt_def_hash(bt_rec_def(rec))) != BT_OK)
    luaL_error(L, "not enough memory");
  if (only && bt_coverage_only(lc->c, hash) != BT_OK) luaL_error(L, "not enough memory");
  return 1;
}

static bt_coverage *check_coverage(lua_State *L) {
  lcoverage *lc = luaL_checkudata(L, 1, COVERAGE_META);
  if (!lc->c) luaL_argerror(L, 1, "the coverage was freed");
  return lc->c;
}

static void set_count(lua_State *L, const char *field, unsigned long long n) {
  lua_pushinteger(L, (lua_Integer)n);
  lua_setfield(L, -2, field);
}

/* cov:rows(): an array, shape by shape (in the order first seen), node by node in pre-order, of
 * {shape, node (from 1), name, path, where (nil: none), covered (visited or set running),
 * visited, succeeded, failed, ran, interrupted (bt_stats_node's visits, successes, failures,
 * runs, aborts)}. */
static int coverage_rows(lua_State *L) {
  bt_coverage *c = check_coverage(L);
  int shapes = bt_coverage_shape_count(c);
  if (shapes < 0) luaL_error(L, "rows: %s", bt_coverage_errmsg(c));
  lua_newtable(L);
  lua_Integer row = 0;
  bt_buf path = {0};
  for (int i = 0; i < shapes; i++) {
    unsigned long long shape;
    const bt_def *def;
    if (bt_coverage_shape(c, i, &shape, &def) != BT_OK || !def) continue;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", shape);
    for (int n = 0; n < bt_def_size(def); n++) {
      bt_stats_node f;
      int visited = bt_coverage_node(c, shape, n, &f);
      path.len = 0;
      if (visited < 0 || bt_def_path(def, n, &path) != BT_OK) {
        bt_buf_free(&path);
        luaL_error(L, "rows: %s", visited < 0 ? bt_coverage_errmsg(c) : "not enough memory");
      }
      lua_createtable(L, 0, 11);
      lua_pushstring(L, hex);
      lua_setfield(L, -2, "shape");
      lua_pushinteger(L, n + 1);
      lua_setfield(L, -2, "node");
      lua_pushstring(L, bt_def_name(def, n));
      lua_setfield(L, -2, "name");
      lua_pushlstring(L, path.data, path.len);
      lua_setfield(L, -2, "path");
      if (bt_def_where(def, n)) {
        lua_pushstring(L, bt_def_where(def, n));
        lua_setfield(L, -2, "where");
      }
      lua_pushboolean(L, visited);
      lua_setfield(L, -2, "covered");
      set_count(L, "visited", f.visits);
      set_count(L, "succeeded", f.successes);
      set_count(L, "failed", f.failures);
      set_count(L, "ran", f.runs);
      set_count(L, "interrupted", f.aborts);
      lua_rawseti(L, -2, ++row);
    }
  }
  bt_buf_free(&path);
  return 1;
}

/* cov:report([format[, name]]): the report as a string; format "text" (default), "lcov" or
 * "cobertura"; name: lcov's TN, Cobertura's package. */
static int coverage_report(lua_State *L) {
  static const char *const formats[] = {"text", "lcov", "cobertura", NULL};
  bt_coverage *c = check_coverage(L);
  const char *f = luaL_optstring(L, 2, "text");
  int format = 0;
  while (formats[format] && strcmp(formats[format], f) != 0) format++;
  if (!formats[format])
    luaL_argerror(L, 2, lua_pushfstring(L, "\"text\", \"lcov\" or \"cobertura\" expected, got '%s'", f));
  const char *name = luaL_optstring(L, 3, NULL);
  bt_buf out = {0};
  int rc = bt_coverage_write(c, format, name, &out);
  if (rc != BT_OK) {
    bt_buf_free(&out);
    luaL_error(L, "report: %s", bt_coverage_errmsg(c));
  }
  lua_pushlstring(L, out.data ? out.data : "", out.len);
  bt_buf_free(&out);
  return 1;
}

static const luaL_Reg coverage_methods[] = {
    {"rows", coverage_rows},
    {"report", coverage_report},
    {NULL, NULL},
};

static void open_coverage(lua_State *L) {
  luaL_newmetatable(L, COVERAGE_META);
  lua_pushcfunction(L, coverage_gc);
  lua_setfield(L, -2, "__gc");
  luaL_newlib(L, coverage_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* ---- the module ---- */

static const luaL_Reg kit_functions[] = {
    /* coverage */
    {"coverage", l_coverage},
    {NULL, NULL},
};

int luaopen_bt_testkit(lua_State *L) {
  open_coverage(L);
  luaL_newlib(L, kit_functions);
  return 1;
}
