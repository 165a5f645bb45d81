/* SPDX-License-Identifier: MIT */
/*
 * stats.c: per-node statistics (bt.h "statistics") as Lua tables. bt.Stats is a userdata holding
 * a bt_stats that keeps each recorder's own figures, so that one object answers for a whole
 * population (stats:shapes()) and for each tree that feeds it (tree:stats()). Recorders feed it
 * (recorder.c: bt.Recorder{stats = ...}); nothing here runs during a think.
 */
#include <stdio.h>
#include <string.h>

#include "lbt.h"

#define STATS_META "bt.stats"

typedef struct lbt_stats {
  bt_stats *st;
} lbt_stats;

bt_stats *lbt_stats_test(lua_State *L, int idx) {
  lbt_stats *s = luaL_testudata(L, idx, STATS_META);
  return s ? s->st : NULL;
}

bt_stats *lbt_stats_new(lua_State *L) {
  lbt_stats *s = lua_newuserdatauv(L, sizeof *s, 0);
  s->st = NULL;
  luaL_setmetatable(L, STATS_META);
  if (bt_stats_create(&s->st) != BT_OK || bt_stats_keep_agents(s->st, 1) != BT_OK)
    luaL_error(L, "not enough memory");
  return s->st;
}

static bt_stats *check_stats(lua_State *L, const char *fname) {
  bt_stats *st = lbt_stats_test(L, 1);
  if (!st) lbt_typeerror(L, 1, 0, fname, "Stats");
  return st;
}

/* The order argument at idx (argument arg of fname): nil gives -1, a table keyed by path. */
static int check_order(lua_State *L, int idx, int arg, const char *fname) {
  static const char *const names[] = {"tree", "time", "visits"};
  static const int orders[] = {BT_STATS_BY_TREE, BT_STATS_BY_TIME, BT_STATS_BY_VISITS};
  if (lua_isnoneornil(L, idx)) return -1;
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
  for (int i = 0; s && i < 3; i++)
    if (!strcmp(s, names[i])) return orders[i];
  return lbt_argerror(L, arg, fname, "\"tree\", \"time\", \"visits\" or nil expected");
}

static void set_integer(lua_State *L, const char *field, unsigned long long v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, field);
}

static void set_number(lua_State *L, const char *field, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, field);
}

/* Pushes a node's figures; its path (def NULL: "#<node>") is pushed below it when by_path. */
static void push_row(lua_State *L, const bt_stats_node *r, const bt_def *def, int by_path) {
  if (def) {
    lbt_push_def_path(L, def, r->node);
  } else {
    lua_pushfstring(L, "#%d", r->node + 1);
  }
  lua_createtable(L, 0, 13);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "path");
  if (def) {
    lua_pushstring(L, bt_def_name(def, r->node));
    lua_setfield(L, -2, "name");
  }
  set_integer(L, "node", (unsigned long long)r->node + 1);
  set_integer(L, "visits", r->visits);
  set_integer(L, "successes", r->successes);
  set_integer(L, "failures", r->failures);
  set_integer(L, "aborts", r->aborts);
  set_integer(L, "runs", r->runs);
  set_integer(L, "thinks", r->thinks);
  set_integer(L, "errors", r->errors);
  set_integer(L, "running", (unsigned long long)r->running);
  set_number(L, "time", r->time);
  set_number(L, "longest", r->longest);
  if (!by_path) lua_remove(L, -2);
}

/* Pushes the rows: a table keyed by path (order -1), or an array in that order. */
static void push_rows(lua_State *L, const bt_stats_node *rows, int n, const bt_def *def, int order) {
  lua_createtable(L, order < 0 ? 0 : n, order < 0 ? n : 0);
  for (int i = 0; i < n; i++) {
    push_row(L, &rows[i], def, order < 0);
    if (order < 0) lua_rawset(L, -3);
    else lua_rawseti(L, -2, i + 1);
  }
}

static void push_hash(lua_State *L, unsigned long long h) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", h);
  lua_pushstring(L, hex);
}

/* Pushes a shape's table without its nodes: shape, root, agents, thinks, errors. */
static void push_shape(lua_State *L, const bt_stats_shape *sh) {
  lua_createtable(L, 0, 6);
  push_hash(L, sh->shape);
  lua_setfield(L, -2, "shape");
  if (sh->def) {
    lua_pushstring(L, bt_def_name(sh->def, 0));
    lua_setfield(L, -2, "root");
  }
  set_integer(L, "agents", (unsigned long long)sh->agents);
  set_integer(L, "thinks", sh->thinks);
  set_integer(L, "errors", sh->errors);
}

/* Room for n rows: a userdata pushed on the stack, collected with it (raises without memory). */
static bt_stats_node *rows_alloc(lua_State *L, int n) {
  return lua_newuserdatauv(L, ((size_t)n + 1) * sizeof(bt_stats_node), 0);
}

/* stats:shapes([order]): shape hash -> {shape, root, agents, thinks, errors, nodes} */
static int stats_shapes(lua_State *L) {
  bt_stats *st = check_stats(L, "shapes");
  int order = check_order(L, 2, 1, "shapes");
  int n = bt_stats_list(st, BT_STATS_BY_TREE, NULL, 0);
  if (n < 0) return luaL_error(L, "not enough memory");
  bt_stats_node *rows = rows_alloc(L, n);
  if (bt_stats_list(st, order < 0 ? BT_STATS_BY_TREE : order, rows, n) < 0) return luaL_error(L, "not enough memory");
  int nshapes = bt_stats_shape_count(st);
  lua_createtable(L, 0, nshapes);
  for (int i = 0; i < nshapes; i++) {
    bt_stats_shape sh;
    bt_stats_shape_get(st, i, &sh);
    push_shape(L, &sh);
    /* the shape's rows, in the order asked */
    lua_createtable(L, order < 0 ? 0 : sh.nodes, order < 0 ? sh.nodes : 0);
    for (int k = 0, m = 0; k < n; k++) {
      if (rows[k].shape != sh.shape) continue;
      push_row(L, &rows[k], sh.def, order < 0);
      if (order < 0) lua_rawset(L, -3);
      else lua_rawseti(L, -2, ++m);
    }
    lua_setfield(L, -2, "nodes");
    push_hash(L, sh.shape);
    lua_insert(L, -2);
    lua_rawset(L, -3);
  }
  return 1;
}

/* stats:reset(): every figure zeroed; runs under way counted from now (bt.GetTime()) */
static int stats_reset(lua_State *L) {
  bt_stats *st = check_stats(L, "reset");
  bt_stats_reset(st, lbt_clock_now(L));
  return 0;
}

static int stats_tostring(lua_State *L) {
  bt_stats *st = check_stats(L, "__tostring");
  lua_pushfstring(L, "Stats (%d shapes)", bt_stats_shape_count(st));
  return 1;
}

static int stats_gc(lua_State *L) {
  lbt_stats *s = luaL_testudata(L, 1, STATS_META);
  if (s && s->st) {
    bt_stats_free(s->st); /* detaches it from the recorders that feed it */
    s->st = NULL;
  }
  return 0;
}

/* bt.Stats() */
static int stats_new(lua_State *L) {
  lbt_stats_new(L);
  return 1;
}

/* ---- a tree's own figures ---- */

/* The recorder of the tree at 1 that keeps figures of its own, or raises. */
static bt_rec *tree_rec(lua_State *L, const char *fname) {
  lbt_tree *t = lbt_tree_test(L, 1);
  if (!t) lbt_typeerror(L, 1, 0, fname, "BT");
  bt_stats_shape sh;
  bt_rec *rec = lbt_tree_inst(t) ? bt_inst_recorder(lbt_tree_inst(t)) : NULL;
  if (!rec || !bt_rec_stats(rec) || bt_rec_stats_shape(rec, &sh) != BT_OK)
    lbt_argerror(L, 0, fname, "the tree keeps no statistics: tree:record{stats = true} switches them on");
  return rec;
}

/* tree:stats([order]): path -> figures, or an array in that order; and the shape's table */
static int tree_stats(lua_State *L) {
  bt_rec *rec = tree_rec(L, "stats");
  int order = check_order(L, 2, 1, "stats");
  bt_stats_shape sh;
  bt_rec_stats_shape(rec, &sh);
  bt_stats_node *rows = rows_alloc(L, sh.nodes);
  if (bt_rec_stats_list(rec, order < 0 ? BT_STATS_BY_TREE : order, rows, sh.nodes) < 0)
    return luaL_error(L, "not enough memory");
  push_rows(L, rows, sh.nodes, sh.def, order);
  push_shape(L, &sh);
  return 2;
}

/* tree:reset_stats(): the tree's own figures zeroed (a bt.Stats it shares keeps the others') */
static int tree_reset_stats(lua_State *L) {
  bt_rec *rec = tree_rec(L, "reset_stats");
  bt_rec_stats_reset(rec, lbt_clock_now(L));
  return 0;
}

static const luaL_Reg stats_methods[] = {
    {"shapes", stats_shapes},
    {"reset", stats_reset},
    {NULL, NULL},
};

static const luaL_Reg stats_meta[] = {
    {"__tostring", stats_tostring},
    {"__gc", stats_gc},
    {NULL, NULL},
};

static const luaL_Reg tree_methods[] = {
    {"stats", tree_stats},
    {"reset_stats", tree_reset_stats},
    {NULL, NULL},
};

void lbt_open_stats(lua_State *L, int module) {
  luaL_newmetatable(L, STATS_META);
  luaL_setfuncs(L, stats_meta, 0);
  luaL_newlib(L, stats_methods);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "Stats");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_BT);
  luaL_setfuncs(L, tree_methods, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, stats_new);
  lua_setfield(L, module, "Stats");
}
