/* SPDX-License-Identifier: MIT */
/*
 * save.c: what lua/save.lua needs from C to save a tree's state with a game and restore it
 * (tree:save, tree:restore): the core's text of the instance (bt_inst_export), the node objects
 * whose Lua data goes with it, and a saved text opened, matched with a tree and imported.
 */
#include <string.h>

#include "lbt.h"

#define SAVED_META "bt.saved"

/* A saved text opened for one tree: the saved state and its match with the tree's states. */
typedef struct lbt_saved {
  bt_saved *sv;
  const bt_def *def; /* the definition map was made for */
  int *map;          /* the tree's state -> the saved state, or -1 */
} lbt_saved;

static lbt_tree *check_tree(lua_State *L, int idx, const char *fname) {
  lbt_tree *t = lbt_tree_test(L, idx);
  if (!t) lbt_typeerror(L, idx, 0, fname, "BT");
  if (t->collected) luaL_error(L, "%s: the tree was garbage collected", fname);
  if (bt_inst_thinking(lbt_tree_inst(t)))
    luaL_error(L, "%s: the tree is thinking (called from inside its own think)", fname);
  return t;
}

/* shared.tree_export(tree, now): the core's text of the tree's state, keys included. A key of
 * type any that holds a value (a Lua value, which the core keeps as a token) cannot be saved:
 * the error names it. */
static int l_tree_export(lua_State *L) {
  lbt_tree *t = check_tree(L, 1, "save");
  double now = lbt_checknumber(L, 2, 2, "save");
  bt_inst *in = lbt_tree_inst(t);
  int bad = bt_inst_unsaveable_key(in);
  if (bad >= 0) { /* (no position: the message is the caller's, bt/save.lua's line means nothing) */
    lua_pushfstring(L, "key '%s' holds a Lua value, which cannot be saved (a key of type any is saved only when nil)",
                    bt_def_key_name(bt_inst_def(in), bad));
    return lua_error(L);
  }
  bt_buf buf = {0};
  int rc = bt_inst_export(in, now, &buf);
  if (rc != BT_OK) {
    bt_buf_free(&buf);
    return luaL_error(L, "save: %s", bt_strerror(rc));
  }
  return lbt_push_buf(L, &buf);
}

/* shared.tree_objects(tree): a list of {state = s, obj = node object, path = path, kind = class
 * name} for each state whose node is written in Lua (a script's subclass) or listens for events,
 * in state order (0-based states) */
static int l_tree_objects(lua_State *L) {
  lbt_tree *t = check_tree(L, 1, "save");
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int n = bt_def_states(def), k = 0;
  lua_newtable(L);
  int list = lua_gettop(L);
  for (int s = 0; s < n; s++) {
    int node = bt_def_node_of_state(def, s), kind = bt_def_kind(def, node);
    lbt_push_state_obj(L, t, 1, s);
    int obj = lua_gettop(L);
    int listens = bt_kind_has(kind, BT_KIND_LISTENS);
    if (!listens && !lbt_is_custom(L, t->S, obj, kind)) {
      lua_settop(L, list);
      continue;
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, s);
    lua_setfield(L, -2, "state");
    lua_pushvalue(L, obj);
    lua_setfield(L, -2, "obj");
    lbt_push_path(L, lbt_tree_inst(t), node);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, listens ? "event" : "lua");
    lua_setfield(L, -2, "kind");
    lua_rawseti(L, list, ++k);
    lua_settop(L, list);
  }
  return 1;
}

static int saved_gc(lua_State *L) {
  lbt_saved *s = luaL_checkudata(L, 1, SAVED_META);
  bt_saved_free(s->sv);
  s->sv = NULL;
  return 0;
}

static int saved_up(const void *sv, int node) { return bt_saved_up(sv, node); }
static const char *saved_name(const void *sv, int node) { return bt_saved_name(sv, node); }

/* Pushes the path of a saved node, as errors show a node's (lbt_push_path). */
static void push_saved_path(lua_State *L, const bt_saved *sv, int node) {
  lbt_shape sh = {sv, bt_saved_size(sv), saved_up, saved_name};
  lbt_push_shape_path(L, &sh, node);
}

/* shared.saved_open(tree, text): the text read and matched with the tree's states. Returns the
 * opened text (for saved_apply), a table tree state -> saved state (0-based), the list of the
 * paths of the saved nodes that have no place in the tree, and whether the shape is the same;
 * or nil and a message when the text is not a saved state or has no path in common with the
 * tree. Changes nothing. */
static int l_saved_open(lua_State *L) {
  lbt_tree *t = check_tree(L, 1, "restore");
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int nstates = bt_def_states(def);
  lbt_saved *s = lua_newuserdatauv(L, sizeof *s + (size_t)nstates * sizeof(int), 0);
  s->sv = NULL;
  s->def = def;
  s->map = (int *)(void *)(s + 1);
  if (luaL_newmetatable(L, SAVED_META)) {
    lua_pushcfunction(L, saved_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  char err[256];
  int rc = bt_saved_create(&s->sv, text, len, err, sizeof err);
  if (rc == BT_ENOMEM) return luaL_error(L, "not enough memory");
  if (rc != BT_OK) {
    lua_pushnil(L);
    lua_pushfstring(L, "the tree state is %s", err);
    return 2;
  }
  int matched = bt_saved_match(s->sv, def, s->map);
  if (matched <= 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "the state was saved from another tree: its root is '%s' (%s), this tree's is '%s' (%s)",
                    bt_saved_name(s->sv, 0), bt_kind_name(bt_saved_kind(s->sv, 0)), bt_def_name(def, 0),
                    bt_kind_name(bt_def_kind(def, 0)));
    return 2;
  }
  int nsaved = bt_saved_states(s->sv);
  if (matched == 1 && bt_saved_size(s->sv) > 1 && bt_def_size(def) > 1) {
    lua_pushnil(L);
    lua_pushfstring(L, "the state was saved from another tree: no node but the root ('%s') has a path this tree has",
                    bt_def_name(def, 0));
    return 2;
  }
  unsigned char *kept = lua_newuserdatauv(L, (size_t)(nsaved ? nsaved : 1), 0);
  memset(kept, 0, (size_t)(nsaved ? nsaved : 1));
  lua_createtable(L, 0, nstates);
  int map = lua_gettop(L);
  int same = nsaved == nstates;
  for (int st = 0; st < nstates; st++) {
    if (s->map[st] < 0) {
      same = 0;
      continue;
    }
    if (kept[s->map[st]]) same = 0;
    kept[s->map[st]] = 1;
    lua_pushinteger(L, s->map[st]);
    lua_rawseti(L, map, st);
  }
  lua_newtable(L);
  int k = 0;
  for (int st = 0; st < nsaved; st++) {
    if (kept[st]) continue;
    push_saved_path(L, s->sv, bt_saved_node_of_state(s->sv, st));
    lua_rawseti(L, -2, ++k);
  }
  lua_pushboolean(L, same);
  lua_remove(L, map - 1); /* kept */
  return 4;
}

/* shared.saved_apply(tree, opened, now): the opened text's state imported into the tree */
static int l_saved_apply(lua_State *L) {
  lbt_tree *t = check_tree(L, 1, "restore");
  lbt_saved *s = luaL_checkudata(L, 2, SAVED_META);
  double now = lbt_checknumber(L, 3, 3, "restore");
  bt_inst *in = lbt_tree_inst(t);
  if (!s->sv || s->def != bt_inst_def(in)) return luaL_error(L, "restore: opened for another tree");
  int rc = bt_inst_import(in, s->sv, s->map, now, NULL);
  if (rc != BT_OK) return luaL_error(L, "restore: %s", bt_strerror(rc));
  return 0;
}

/* shared.state_object(tree, state): the node object of the state (0-based), and its path */
static int l_state_object(lua_State *L) {
  lbt_tree *t = check_tree(L, 1, "restore");
  lua_Integer s = luaL_checkinteger(L, 2);
  bt_inst *in = lbt_tree_inst(t);
  if (s < 0 || s >= bt_def_states(bt_inst_def(in))) return luaL_error(L, "restore: no state %d", (int)s);
  lbt_push_state_obj(L, t, 1, (int)s);
  lbt_push_path(L, in, bt_def_node_of_state(bt_inst_def(in), (int)s));
  return 2;
}

/* shared.tick_time(): the tick length the wranglers convert sleep times with */
static int l_tick_time(lua_State *L) {
  lua_pushnumber(L, lbt_state_get(L)->tick_time);
  return 1;
}

const luaL_Reg lbt_save_shared[] = {
    {"tree_export", l_tree_export},
    {"tree_objects", l_tree_objects},
    {"saved_open", l_saved_open},
    {"saved_apply", l_saved_apply},
    {"state_object", l_state_object},
    {"tick_time", l_tick_time},
    {NULL, NULL},
};
