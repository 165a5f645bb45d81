/* SPDX-License-Identifier: MIT */
/*
 * logfile.c: bt.log, the log files of the transition recorders written and read from Lua
 * (docs/lua-api.md "Log files"): a thin layer over the core's bt_log and bt_log_reader.
 * bt.log.create(path) gives a writer that recorders write to (their option log); bt.log.open(path)
 * and bt.log.read(s) give a reader; reader:records() iterates over its records as tables,
 * reader:shape(hash) describes a tree, reader:where() says where reading stopped. Nodes are 1-based
 * pre-order indices and paths as the rest of the binding names nodes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt.h"

#define READER "bt.log.reader"

typedef struct reader {
  bt_log_reader *r; /* NULL once closed */
} reader;

static reader *check_reader(lua_State *L, const char *fname) {
  reader *rd = luaL_testudata(L, 1, READER);
  if (!rd) lbt_typeerror(L, 1, 0, fname, "log reader");
  if (!rd->r) lbt_argerror(L, 0, fname, "the log reader is closed");
  return rd;
}

/* Pushes the path of node of s ("?" for none). */
static void push_path(lua_State *L, const bt_log_shape *s, int node) {
  bt_buf b = {0};
  if (bt_log_shape_path(s, node, &b) != BT_OK || !b.data) {
    bt_buf_free(&b);
    lua_pushliteral(L, "?");
    return;
  }
  lbt_push_buf(L, &b);
}

/* Sets t.node (1-based) and t.path for node of the log's shape s (t at the top). */
static void set_node(lua_State *L, const void *s, int node) {
  lua_pushinteger(L, node + 1);
  lua_setfield(L, -2, "node");
  push_path(L, s, node);
  lua_setfield(L, -2, "path");
}

static const char *type_name(int type) {
  if (lbt_record_type(type)) return lbt_record_type(type);
  switch (type) {
    case BT_LOG_SAVED: return "saved";
    case BT_LOG_DESCRIBE: return "describe";
    case BT_LOG_WORLD: return "world";
    case BT_LOG_LOST: return "lost";
    case BT_LOG_ATTACH: return "attach";
    case BT_LOG_STOP: return "stop";
    default: return "unknown";
  }
}

/* Pushes the record as a table. */
static void push_record(lua_State *L, const bt_log_reader *r, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  const bt_log_shape *s = rec->shape;
  lua_createtable(L, 0, 10);
  lua_pushstring(L, type_name(e->type));
  lua_setfield(L, -2, "type");
  lua_pushnumber(L, e->time);
  lua_setfield(L, -2, "time");
  if (rec->agent_index >= 0) {
    lua_pushinteger(L, (lua_Integer)rec->agent);
    lua_setfield(L, -2, "agent");
    lua_pushstring(L, rec->label);
    lua_setfield(L, -2, "label");
    lua_pushinteger(L, (lua_Integer)e->think);
    lua_setfield(L, -2, "think");
    if (s) {
      lbt_push_hash(L, bt_log_shape_hash(s));
      lua_setfield(L, -2, "shape");
    }
  }
  lbt_record_fields(L, e, set_node, s);
  if (e->type == BT_REC_KEY && bt_log_shape_key_name(s, e->node)) {
    lua_pushstring(L, bt_log_shape_key_name(s, e->node));
    lua_setfield(L, -2, "name");
  }
  switch (e->type) {
    case BT_LOG_WORLD:
      lua_pushinteger(L, e->node);
      lua_setfield(L, -2, "code");
      lua_pushlstring(L, e->text ? e->text : "", e->size);
      lua_setfield(L, -2, "data");
      break;
    case BT_LOG_LOST:
      lua_pushinteger(L, (lua_Integer)e->size);
      lua_setfield(L, -2, "count");
      break;
    case BT_LOG_ATTACH:
      lua_createtable(L, (int)e->size, 0);
      for (size_t i = 0; i < e->size; i++) {
        int node, st, last;
        if (bt_log_reader_state(r, i, &node, &st, &last) != BT_OK) break;
        lua_createtable(L, 0, 4);
        set_node(L, s, node);
        lbt_push_status(L, st);
        lua_setfield(L, -2, "status");
        lbt_push_status(L, last);
        lua_setfield(L, -2, "last");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      lua_setfield(L, -2, "statuses");
      break;
    case BT_LOG_DESCRIBE:
      lua_createtable(L, (int)e->size, 0);
      for (size_t i = 0; i < e->size; i++) {
        int node, has;
        double sleep;
        const char *text;
        size_t len;
        if (bt_log_reader_describe(r, i, &node, &has, &sleep, &text, &len) != BT_OK) break;
        lua_createtable(L, 0, 4);
        set_node(L, s, node);
        lua_pushlstring(L, text, len);
        lua_setfield(L, -2, "text");
        if (has) {
          lua_pushnumber(L, sleep);
          lua_setfield(L, -2, "sleep");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      lua_setfield(L, -2, "nodes");
      break;
    default: break;
  }
}

/* The iterator of reader:records(): upvalue 1 the reader, 2 whether every type is wanted. */
static int records_next(lua_State *L) {
  reader *rd = lua_touserdata(L, lua_upvalueindex(1));
  int all = lua_toboolean(L, lua_upvalueindex(2));
  if (!rd->r) return luaL_error(L, "bt.log: the log reader is closed");
  bt_log_record rec;
  for (;;) {
    int rc = bt_log_read(rd->r, &rec);
    if (rc == 0) return 0;
    if (rc < 0) return luaL_error(L, "bt.log: %s", bt_log_reader_errmsg(rd->r));
    int type = rec.entry.type;
    if (all || type <= BT_REC_HOST || type == BT_LOG_WORLD || type == BT_LOG_LOST || type == BT_LOG_STOP) break;
  }
  push_record(L, rd->r, &rec);
  return 1;
}

/* reader:records([{all = true}]) */
static int l_records(lua_State *L) {
  check_reader(L, "records");
  int all = 0;
  if (!lua_isnoneornil(L, 2)) {
    if (!lua_istable(L, 2)) return lbt_typeerror(L, 2, 1, "records", "table or nil");
    lua_getfield(L, 2, "all");
    all = lua_toboolean(L, -1);
  }
  lua_settop(L, 1);
  lua_pushboolean(L, all);
  lua_pushcclosure(L, records_next, 2);
  return 1;
}

/* reader:shape(hash): the tree of that hash (16 hexadecimal digits), or nil */
static int l_shape(lua_State *L) {
  reader *rd = check_reader(L, "shape");
  if (lua_type(L, 2) != LUA_TSTRING) return lbt_typeerror(L, 2, 1, "shape", "string");
  const char *hex = lua_tostring(L, 2);
  char *end = NULL;
  unsigned long long hash = strtoull(hex, &end, 16);
  if (!*hex || *end || strlen(hex) > 16) return lbt_argerror(L, 1, "shape", "a shape's hash (16 hexadecimal digits) expected");
  const bt_log_shape *s = bt_log_reader_shape(rd->r, hash);
  if (!s) return 0;
  int n = bt_log_shape_size(s);
  lua_createtable(L, 0, 2);
  lbt_push_hash(L, hash);
  lua_setfield(L, -2, "hash");
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, bt_log_shape_name(s, i));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, bt_log_shape_kind_name(s, i));
    lua_setfield(L, -2, "kind");
    push_path(L, s, i);
    lua_setfield(L, -2, "path");
    if (bt_log_shape_up(s, i) >= 0) {
      lua_pushinteger(L, bt_log_shape_up(s, i) + 1);
      lua_setfield(L, -2, "parent");
    }
    lua_createtable(L, bt_log_shape_child_count(s, i), 0);
    for (int k = 0; k < bt_log_shape_child_count(s, i); k++) {
      lua_pushinteger(L, bt_log_shape_child(s, i, k) + 1);
      lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "children");
    double param;
    if (bt_log_shape_param(s, i, &param)) {
      lua_pushnumber(L, param);
      lua_setfield(L, -2, "param");
    }
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "nodes");
  return 1;
}

/* reader:where(): "more", "ended", "whole", "cut" or "failed", and the bytes read through */
static int l_where(lua_State *L) {
  reader *rd = check_reader(L, "where");
  static const char *const names[] = {"more", "ended", "whole", "cut", "failed"};
  unsigned long long at = 0;
  int w = bt_log_reader_where(rd->r, &at);
  lua_pushstring(L, w >= 0 && w <= BT_LOG_FAILED ? names[w] : "failed");
  lua_pushinteger(L, (lua_Integer)at);
  return 2;
}

/* reader:close(), and __gc, __close */
static int l_close(lua_State *L) {
  reader *rd = luaL_testudata(L, 1, READER);
  if (!rd) return lbt_typeerror(L, 1, 0, "close", "log reader");
  bt_log_reader_free(rd->r);
  rd->r = NULL;
  return 0;
}

static int l_tostring(lua_State *L) {
  reader *rd = luaL_checkudata(L, 1, READER);
  lua_pushfstring(L, "bt log reader (%s)", rd->r ? "open" : "closed");
  return 1;
}

static reader *new_reader(lua_State *L) {
  reader *rd = lua_newuserdatauv(L, sizeof *rd, 0);
  rd->r = NULL;
  luaL_setmetatable(L, READER);
  return rd;
}

/* bt.log.open(path): a reader of the file, or nil and a message */
static int l_open(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return lbt_typeerror(L, 1, 1, "log.open", "string");
  reader *rd = new_reader(L);
  char err[512];
  if (bt_log_reader_create_file(&rd->r, lua_tostring(L, 1), err, sizeof err) != BT_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err[0] ? err : "out of memory");
    return 2;
  }
  return 1;
}

/* bt.log.read(s): a reader of the log in the string s */
static int l_read(lua_State *L) {
  size_t n;
  if (lua_type(L, 1) != LUA_TSTRING) return lbt_typeerror(L, 1, 1, "log.read", "string");
  const char *s = lua_tolstring(L, 1, &n);
  reader *rd = new_reader(L);
  if (bt_log_reader_create(&rd->r) != BT_OK || bt_log_reader_feed(rd->r, s, n) != BT_OK)
    return luaL_error(L, "bt.log.read: out of memory");
  return 1;
}

/* ---- writing: bt.log.create ---- */

#define WRITER "bt.log.writer"

typedef struct writer {
  bt_log *log; /* NULL once closed */
} writer;

static writer *check_writer(lua_State *L, const char *fname) {
  writer *w = luaL_testudata(L, 1, WRITER);
  if (!w) lbt_typeerror(L, 1, 0, fname, "log writer");
  if (!w->log) lbt_argerror(L, 0, fname, "the log writer is closed");
  return w;
}

bt_log *lbt_log_writer_test(lua_State *L, int idx) {
  writer *w = luaL_testudata(L, idx, WRITER);
  return w ? w->log : NULL;
}

int lbt_log_is_writer(lua_State *L, int idx) { return luaL_testudata(L, idx, WRITER) != NULL; }

/* Returns true, or nil and the log's message. */
static int push_result(lua_State *L, writer *w, int rc) {
  if (rc == BT_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushnil(L);
  const char *msg = w && w->log ? bt_log_errmsg(w->log) : "";
  lua_pushstring(L, msg && msg[0] ? msg : bt_strerror(rc));
  return 2;
}

/* bt.log.create(path[, options]): a log file written from now on, or nil and a message;
 * options: dbstrings (each think also keeps its running nodes' DBStrings and sleep times),
 * thread (encode and write on a thread of the log's own) */
static int l_create(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return lbt_typeerror(L, 1, 1, "log.create", "string");
  unsigned flags = 0;
  if (!lua_isnoneornil(L, 2)) {
    if (!lua_istable(L, 2)) return lbt_typeerror(L, 2, 2, "log.create", "table or nil");
    if (lua_getfield(L, 2, "dbstrings") != LUA_TNIL && lua_toboolean(L, -1)) flags |= BT_LOG_DBSTRINGS;
    if (lua_getfield(L, 2, "thread") != LUA_TNIL && lua_toboolean(L, -1)) flags |= BT_LOG_THREAD;
    lua_pop(L, 2);
  }
  writer *w = lua_newuserdatauv(L, sizeof *w, 0);
  w->log = NULL;
  luaL_setmetatable(L, WRITER);
  char err[512] = "";
  int rc = bt_log_create(&w->log, lua_tostring(L, 1), flags, err, sizeof err);
  if (rc != BT_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err[0] ? err : bt_strerror(rc));
    return 2;
  }
  return 1;
}

/* writer:flush(): what its recorders recorded since the last flush, written; true, or nil and a
 * message */
static int w_flush(lua_State *L) {
  writer *w = check_writer(L, "flush");
  return push_result(L, w, bt_log_flush(w->log));
}

/* writer:world(code, data[, time]): a record of the host's of no one agent, written at the next
 * flush; time: the clock's now by default */
static int w_world(lua_State *L) {
  writer *w = check_writer(L, "world");
  lua_Integer code = luaL_checkinteger(L, 2);
  size_t n;
  const char *data = luaL_checklstring(L, 3, &n);
  double time = lua_isnoneornil(L, 4) ? lbt_clock_now(L) : luaL_checknumber(L, 4);
  if (code < INT_MIN || code > INT_MAX) return lbt_argerror(L, 1, "world", "code out of range");
  int rc = bt_log_write_host(w->log, time, (int)code, data, n);
  if (rc == BT_EINVAL) return lbt_argerror(L, 2, "world", "data over 16 MiB");
  return push_result(L, w, rc);
}

/* writer:stats(): {records, statuses, bytes, lost, shapes, agents} */
static int w_stats(lua_State *L) {
  writer *w = check_writer(L, "stats");
  bt_log_stats st;
  bt_log_stats_get(w->log, &st);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, (lua_Integer)st.records);
  lua_setfield(L, -2, "records");
  lua_pushinteger(L, (lua_Integer)st.statuses);
  lua_setfield(L, -2, "statuses");
  lua_pushinteger(L, (lua_Integer)st.bytes);
  lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, (lua_Integer)st.lost);
  lua_setfield(L, -2, "lost");
  lua_pushinteger(L, st.shapes);
  lua_setfield(L, -2, "shapes");
  lua_pushinteger(L, st.agents);
  lua_setfield(L, -2, "agents");
  return 1;
}

/* writer:close(): flushes, writes the log's end and closes the file (its recorders go on without
 * a log); true, or nil and the log's first error. Closing again does nothing. */
static int w_close(lua_State *L) {
  writer *w = luaL_testudata(L, 1, WRITER);
  if (!w) return lbt_typeerror(L, 1, 0, "close", "log writer");
  if (!w->log) {
    lua_pushboolean(L, 1);
    return 1;
  }
  char msg[512];
  snprintf(msg, sizeof msg, "%s", bt_log_errmsg(w->log));
  int rc = bt_log_free(w->log);
  w->log = NULL;
  if (rc == BT_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushnil(L);
  lua_pushstring(L, msg[0] ? msg : bt_strerror(rc));
  return 2;
}

static int w_tostring(lua_State *L) {
  writer *w = luaL_checkudata(L, 1, WRITER);
  lua_pushfstring(L, "bt log writer (%s)", w->log ? "open" : "closed");
  return 1;
}

static const luaL_Reg writer_methods[] = {
    {"flush", w_flush}, {"world", w_world}, {"stats", w_stats}, {"close", w_close}, {NULL, NULL}};

static const luaL_Reg reader_methods[] = {
    {"records", l_records}, {"shape", l_shape}, {"where", l_where}, {"close", l_close}, {NULL, NULL}};

static const luaL_Reg log_functions[] = {{"open", l_open}, {"read", l_read}, {"create", l_create}, {NULL, NULL}};

void lbt_open_logfile(lua_State *L, int module) {
  if (luaL_newmetatable(L, READER)) {
    luaL_newlib(L, reader_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, WRITER)) {
    luaL_newlib(L, writer_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, w_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, w_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, w_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  luaL_newlib(L, log_functions);
  lua_setfield(L, module, "log");
}
