/* SPDX-License-Identifier: MIT */
/*
 * lua_kit.c: the Lua module bt.testkit (bt/testkit.so), the C half of the test kit bt.test
 * (lua/bt/test.lua, docs/bt-test.md): what the kit does over libbttest (bt_test.h), for the
 * kit's Lua functions to call. It is no API of its own: scripts use bt.test, which requires it
 * when a function needs it. A C module beside bt.so, as bt.view is: it finds bt.so's recorders,
 * statistics and definitions through the registry's "bt.c_api" (bt_lua.h, lbt_cmodule.h).
 *
 * One table of functions, a block per part of the kit (bt_test.h's sections). Functions that can
 * fail on what a script gave return nil (fail) and a message, which bt.test raises as the error
 * of its own function and argument.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_test.h"
#include "lbt_cmodule.h"

/* nil and a message: a failure the caller raises as its own argument's error. */
static int push_fail(lua_State *L, const char *message) {
  luaL_pushfail(L);
  lua_pushstring(L, message);
  return 2;
}

/* t[key] = v, for the table on the top of the stack. */
static void set_number(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

static void set_integer(lua_State *L, const char *key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}

static void set_string(lua_State *L, const char *key, const char *s) {
  lua_pushstring(L, s);
  lua_setfield(L, -2, key);
}

/* ---- substitution (bt.test's substitute) ---- */

/* The definition of the tree or definition at arg, or an argument error. */
static const bt_def *check_def(lua_State *L, int arg) {
  const bt_lua_c_api *api = lbt_cmodule_api(L, "bt.testkit");
  const bt_def *def = api->todef ? api->todef(L, arg) : NULL;
  if (!def) {
    const char *got = luaL_typename(L, arg);
    luaL_argerror(L, arg, lua_pushfstring(L, "BT or definition expected, got %s", got));
  }
  return def;
}

/* paths(tree or definition): an array of its nodes' paths in pre-order (bt_def_path: as the
 * recorder's records and error messages give them), an array of their numbers of children, and
 * an array of where they were made (bt_def_where, "brains/wolf.lua:12", or false) */
static int kit_paths(lua_State *L) {
  const bt_def *def = check_def(L, 1);
  int n = bt_def_size(def);
  lua_createtable(L, n, 0);
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
    lua_rawseti(L, -4, i + 1);
    lua_pushinteger(L, bt_def_child_count(def, i));
    lua_rawseti(L, -3, i + 1);
    const char *where = bt_def_where(def, i);
    if (where) lua_pushstring(L, where);
    else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, i + 1);
  }
  bt_buf_free(&b);
  return 3;
}

/* set_where(node, where): the node object (a substitute) is noted as made at where, the line of
 * the node it replaces, for coverage and messages (bt.c_api's setwhere); true, or false when this
 * bt module cannot note it */
static int kit_set_where(lua_State *L) {
  const bt_lua_c_api *api = lbt_cmodule_api(L, "bt.testkit");
  const char *where = luaL_checkstring(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushboolean(L, api->setwhere && api->setwhere(L, 1, where));
  return 1;
}

/* ---- checks over time: a trace of a recorder (bt_trace) ----
 *   kit.recorder(x)                     the recorder of a tree, a brain or a bt.Recorder (one of
 *                                       capacity 0 made when it has none), or nil
 *   kit.trace(recorder)                 a trace taking every record of a bt.Recorder from now on
 *   kit.trace_detach(tr)                stops taking records
 *   kit.trace_count(tr)                 records kept
 *   kit.trace_transitions(tr)           {{time =, path =, from =, to =}, ...}, every status change
 *   kit.trace_sleeps(tr)                {{time =, sleep =}, ...}, every think (sleep nil: none)
 *   kit.trace_status_at(tr, path, t)    "RUNNING", ... | nil, message
 *   kit.trace_running_at(tr, t)         {path, ...}: the deepest running nodes
 *   kit.trace_first(tr, path, status, after)  time | false | nil, message (status nil: a visit)
 *   kit.trace_sleep_at(tr, t)           true, sleep (nil: none), think time | nil, message
 *   kit.trace_dump_at(tr, t)            the tree at t | nil, message
 *   kit.trace_failure(tr, t, expected, last)  a failed check's text */

#define TRACE_META "bt.testkit.trace"

typedef struct ltrace {
  bt_trace *t;
} ltrace;

static bt_trace *check_trace(lua_State *L) {
  ltrace *lt = luaL_checkudata(L, 1, TRACE_META);
  if (!lt->t) luaL_argerror(L, 1, "the trace is freed");
  return lt->t;
}

static int trace_gc(lua_State *L) {
  ltrace *lt = luaL_checkudata(L, 1, TRACE_META);
  bt_trace_free(lt->t);
  lt->t = NULL;
  return 0;
}

static int l_recorder(lua_State *L) {
  luaL_checkany(L, 1);
  if (!lbt_cmodule_push_recorder(L, 1, 0, "bt.testkit")) lua_pushnil(L);
  return 1;
}

static int l_trace(lua_State *L) {
  bt_rec *rec = lbt_cmodule_api(L, "bt.testkit")->torecorder(L, 1);
  if (!rec) return luaL_argerror(L, 1, "a bt.Recorder expected");
  ltrace *lt = lua_newuserdatauv(L, sizeof *lt, 1);
  lt->t = NULL;
  if (luaL_newmetatable(L, TRACE_META)) {
    lua_pushcfunction(L, trace_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, trace_gc);
    lua_setfield(L, -2, "__close");
  }
  lua_setmetatable(L, -2);
  lua_pushvalue(L, 1); /* the recorder lives as long as the trace */
  lua_setiuservalue(L, -2, 1);
  if (bt_trace_create(&lt->t) != BT_OK) return luaL_error(L, "not enough memory");
  int rc = bt_trace_attach(lt->t, rec);
  if (rc == BT_EINVAL) return luaL_argerror(L, 1, bt_trace_errmsg(lt->t));
  if (rc != BT_OK) return luaL_error(L, "%s", bt_trace_errmsg(lt->t));
  return 1;
}

static int l_trace_detach(lua_State *L) {
  bt_trace_detach(check_trace(L));
  return 0;
}

static int l_trace_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)bt_trace_count(check_trace(L)));
  return 1;
}

static int l_trace_transitions(lua_State *L) {
  bt_trace *t = check_trace(L);
  lua_newtable(L);
  bt_buf path = {0};
  lua_Integer n = 0;
  for (size_t i = 0, count = bt_trace_count(t); i < count; i++) {
    bt_rec_entry e;
    if (bt_trace_get(t, i, &e) != BT_OK || e.type != BT_REC_STATUS) continue;
    path.len = 0;
    path.err = 0;
    if (bt_trace_path(t, i, &path) != BT_OK) {
      bt_buf_free(&path);
      return luaL_error(L, "%s", bt_trace_errmsg(t));
    }
    lua_createtable(L, 0, 4);
    set_number(L, "time", e.time);
    lua_pushlstring(L, path.data, path.len);
    lua_setfield(L, -2, "path");
    set_string(L, "from", bt_status_name(e.from));
    set_string(L, "to", bt_status_name(e.to));
    lua_rawseti(L, -2, ++n);
  }
  bt_buf_free(&path);
  return 1;
}

static int l_trace_sleeps(lua_State *L) {
  bt_trace *t = check_trace(L);
  lua_newtable(L);
  lua_Integer n = 0;
  for (size_t i = 0, count = bt_trace_count(t); i < count; i++) {
    bt_rec_entry e;
    if (bt_trace_get(t, i, &e) != BT_OK || e.type != BT_REC_THINK) continue;
    lua_createtable(L, 0, 2);
    set_number(L, "time", e.time);
    if (e.has_sleep) set_number(L, "sleep", e.sleep);
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

static int l_trace_status_at(lua_State *L) {
  bt_trace *t = check_trace(L);
  const char *path = luaL_checkstring(L, 2);
  double time = luaL_checknumber(L, 3);
  int st = bt_trace_status_at(t, path, time);
  if (st < 0) return push_fail(L, bt_trace_errmsg(t));
  lua_pushstring(L, bt_status_name(st));
  return 1;
}

/* Pushes the lines of b as an array. */
static void push_lines(lua_State *L, const bt_buf *b) {
  lua_newtable(L);
  lua_Integer n = 0;
  for (size_t at = 0; at < b->len;) {
    const char *nl = memchr(b->data + at, '\n', b->len - at);
    size_t end = nl ? (size_t)(nl - b->data) : b->len;
    lua_pushlstring(L, b->data + at, end - at);
    lua_rawseti(L, -2, ++n);
    at = end + 1;
  }
}

static int l_trace_running_at(lua_State *L) {
  bt_trace *t = check_trace(L);
  double time = luaL_checknumber(L, 2);
  bt_buf b = {0};
  int rc = bt_trace_running_at(t, time, &b);
  if (rc < 0) {
    bt_buf_free(&b);
    return push_fail(L, bt_trace_errmsg(t));
  }
  push_lines(L, &b);
  bt_buf_free(&b);
  return 1;
}

static const char *const STATUSES[] = {"READY", "SUCCESS", "FAILED", "RUNNING", NULL};

static int l_trace_first(lua_State *L) {
  bt_trace *t = check_trace(L);
  const char *path = luaL_checkstring(L, 2);
  int status = lua_isnoneornil(L, 3) ? BT_TRACE_VISIT : luaL_checkoption(L, 3, NULL, STATUSES);
  double after = luaL_optnumber(L, 4, -HUGE_VAL), when = 0;
  int rc = bt_trace_first(t, path, status, after, &when);
  if (rc < 0) return push_fail(L, bt_trace_errmsg(t));
  if (rc) lua_pushnumber(L, when);
  else lua_pushboolean(L, 0);
  return 1;
}

static int l_trace_sleep_at(lua_State *L) {
  bt_trace *t = check_trace(L);
  double time = luaL_checknumber(L, 2), sleep = 0, think = 0;
  int rc = bt_trace_sleep_at(t, time, &sleep, &think);
  if (rc < 0) return push_fail(L, bt_trace_errmsg(t));
  lua_pushboolean(L, 1);
  if (rc) lua_pushnumber(L, sleep);
  else lua_pushnil(L);
  lua_pushnumber(L, think);
  return 3;
}

static int l_trace_dump_at(lua_State *L) {
  bt_trace *t = check_trace(L);
  double time = luaL_checknumber(L, 2);
  bt_buf b = {0};
  int rc = bt_trace_dump_at(t, time, &b);
  if (rc == BT_OK) lua_pushlstring(L, b.data ? b.data : "", b.len);
  bt_buf_free(&b);
  return rc == BT_OK ? 1 : push_fail(L, bt_trace_errmsg(t));
}

static int l_trace_failure(lua_State *L) {
  bt_trace *t = check_trace(L);
  double time = luaL_checknumber(L, 2);
  const char *expected = luaL_checkstring(L, 3);
  lua_Integer last = luaL_optinteger(L, 4, 10);
  luaL_argcheck(L, last >= 0 && last <= 1000000, 4, "a whole number from 0 to 1000000 expected");
  bt_buf b = {0};
  int rc = bt_trace_failure(t, time, expected, (int)last, &b);
  if (rc == BT_OK) lua_pushlstring(L, b.data ? b.data : "", b.len);
  bt_buf_free(&b);
  return rc == BT_OK ? 1 : luaL_error(L, "%s", bt_trace_errmsg(t));
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
  const bt_lua_c_api *api = lbt_cmodule_api(L, "bt.testkit");
  if (!api->tostats) luaL_error(L, "bt.testkit: this bt module gives no statistics to C (bt.c_api)");
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
      set_integer(L, "visited", (lua_Integer)f.visits);
      set_integer(L, "succeeded", (lua_Integer)f.successes);
      set_integer(L, "failed", (lua_Integer)f.failures);
      set_integer(L, "ran", (lua_Integer)f.runs);
      set_integer(L, "interrupted", (lua_Integer)f.aborts);
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
  bt_rec_fn next; /* the callback the recorder had (a trace's, the host's), called after ours */
  void *next_ud;
} lwatch;

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
  if (w->c && w->c->d && w->c->rc == BT_OK)
    w->c->rc = bt_diff_entry(w->c->d, BT_DIFF_B, bt_rec_agent(w->rec), bt_rec_label(w->rec), bt_rec_def(w->rec), e);
  if (w->next) w->next(w->next_ud, e);
}

/* Lets every watched recorder go (uservalue 1: recorder -> its lwatch) and frees the comparer. */
static void check_close(lua_State *L, lcheck *c) {
  if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lwatch *w = lua_touserdata(L, -1);
      /* a recorder collected with the check (its finalizer may have run first) has no bt_rec */
      if (w && w->c && lbt_cmodule_api(L, "bt.testkit")->torecorder(L, -2) == w->rec) {
        void *ud;
        if (bt_rec_callback(w->rec, &ud) == on_record && ud == w) {
          bt_rec_set_callback(w->rec, w->next, w->next_ud);
        } else { /* a later watcher (a trace) calls it: it stays, passing records on, for good */
          lua_pushvalue(L, -1);
          luaL_ref(L, LUA_REGISTRYINDEX);
        }
      }
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
  bt_rec *rec = lbt_cmodule_api(L, "bt.testkit")->torecorder(L, 2);
  if (!rec) return luaL_argerror(L, 2, "a bt.Recorder expected");
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 0; /* watched already */
  lua_pop(L, 1);
  lua_pushvalue(L, 2); /* the recorder lives as long as the check: recorder -> its lwatch */
  lwatch *w = lua_newuserdatauv(L, sizeof *w, 0);
  w->c = c;
  w->rec = rec;
  w->next = bt_rec_callback(rec, &w->next_ud);
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
    /* substitution */
    {"paths", kit_paths},
    {"set_where", kit_set_where},
    /* checks over time */
    {"recorder", l_recorder},
    {"trace", l_trace},
    {"trace_detach", l_trace_detach},
    {"trace_count", l_trace_count},
    {"trace_transitions", l_trace_transitions},
    {"trace_sleeps", l_trace_sleeps},
    {"trace_status_at", l_trace_status_at},
    {"trace_running_at", l_trace_running_at},
    {"trace_first", l_trace_first},
    {"trace_sleep_at", l_trace_sleep_at},
    {"trace_dump_at", l_trace_dump_at},
    {"trace_failure", l_trace_failure},
    /* coverage */
    {"coverage", l_coverage},
    /* comparing recorded sessions */
    {"diff_logs", l_diff_logs},
    {"diff_check", l_diff_check},
    {"diff_watch", l_diff_watch},
    {"diff_finish", l_diff_finish},
    {NULL, NULL},
};

int luaopen_bt_testkit(lua_State *L) {
  open_coverage(L);
  luaL_newlib(L, FUNCS);
  return 1;
}
