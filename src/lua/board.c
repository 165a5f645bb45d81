/* SPDX-License-Identifier: MIT */
/*
 * board.c: the blackboard in Lua (docs/blackboard.md). bt.Blackboard{...} declares keys, sorted
 * by name, which a tree's graph declares in that order (compile.c), so that a key's id is its
 * index in the declaration. A tree of such a definition has a board (tree.board, a proxy): its
 * fields read and write the instance's values with bt_inst_key_set, so that the core wakes what
 * watches them; the values of "any" keys stay in a Lua table of the board, the core holding a
 * fresh token for each. A scheduler that thinks the tree's brain binds the instance to it
 * (sched.c), and the binding moves with the board when the tree is rebuilt.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt.h"

#define PROXY_META "bt.board"

/* ---- key types: the core's, "any" for a binding's value ---- */

static const char *const type_names[] = {
    [BT_KEY_NUMBER] = "number", [BT_KEY_INTEGER] = "integer", [BT_KEY_BOOLEAN] = "boolean",
    [BT_KEY_STRING] = "string", [BT_KEY_ENTITY] = "entity",   [BT_KEY_VALUE] = "any"};

int lbt_key_type_of(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  const char *s = lua_tostring(L, idx);
  for (int t = BT_KEY_NUMBER; t < BT_KEY_TYPE_COUNT; t++)
    if (strcmp(s, type_names[t]) == 0) return t;
  return -1;
}

const char *lbt_key_type_name(int type) {
  return type > BT_KEY_NONE && type < BT_KEY_TYPE_COUNT ? type_names[type] : "nil";
}

/* "a number", "an integer", "an entity", "any value" */
static const char *a_type(int type) {
  switch (type) {
    case BT_KEY_INTEGER: return "an integer";
    case BT_KEY_ENTITY: return "an entity";
    case BT_KEY_VALUE: return "any value";
    default: return type == BT_KEY_NUMBER ? "a number" : type == BT_KEY_BOOLEAN ? "a boolean" : "a string";
  }
}

/* ---- bt.Blackboard{name = type or {type = ..., host = ...}, ...} ---- */

lbt_board *lbt_board_test(lua_State *L, int idx) { return luaL_testudata(L, idx, LBT_BOARD_META); }

/* Raises bad argument #1 to 'Blackboard' with the message on the top. */
static int key_error(lua_State *L) { return lbt_argerror(L, 1, "Blackboard", lua_tostring(L, -1)); }

/* Whether the string at idx is a name of letters, digits and underscores, not starting with a
 * digit: a key read as board.name. */
static int is_name(lua_State *L, int idx) {
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  if (len == 0 || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return 1;
}

/* Reads the declaration of the key whose name is at name and spec at spec into k. */
static void read_key(lua_State *L, int name, int spec, lbt_board_key *k) {
  static const char *const types = "\"number\", \"integer\", \"boolean\", \"string\", \"entity\" or \"any\"";
  const char *key = lua_tostring(L, name);
  int type_at = spec;
  k->flags = 0;
  if (lua_type(L, spec) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, spec)) {
      lua_pop(L, 1);
      const char *f = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (f && (strcmp(f, "type") == 0 || strcmp(f, "host") == 0)) continue;
      if (f) lua_pushfstring(L, "key '%s': unknown field '%s' (type and host expected)", key, f);
      else lua_pushfstring(L, "key '%s': unknown field, a %s (type and host expected)", key, luaL_typename(L, -1));
      key_error(L);
    }
    lua_getfield(L, spec, "host");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
      lua_pushfstring(L, "key '%s': host: a boolean expected, got %s", key, luaL_typename(L, -1));
      key_error(L);
    }
    if (lua_toboolean(L, -1)) k->flags = BT_KEY_HOST;
    lua_getfield(L, spec, "type");
    type_at = lua_gettop(L);
  } else if (lua_type(L, spec) != LUA_TSTRING) {
    lua_pushfstring(L, "key '%s': a type name or {type = ..., host = ...} expected, got %s", key,
                    luaL_typename(L, spec));
    key_error(L);
  }
  k->type = lbt_key_type_of(L, type_at);
  if (k->type < 0) {
    if (lua_type(L, type_at) == LUA_TSTRING)
      lua_pushfstring(L, "key '%s': unknown type '%s' (%s expected)", key, lua_tostring(L, type_at), types);
    else
      lua_pushfstring(L, "key '%s': type: %s expected, got %s", key, types, luaL_typename(L, type_at));
    key_error(L);
  }
  k->name = key;
  lua_settop(L, spec);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(((const lbt_board_key *)a)->name, ((const lbt_board_key *)b)->name);
}

static int l_blackboard(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) return lbt_typeerror(L, 1, 1, "Blackboard", "table");
  lua_settop(L, 1);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    n++;
  }
  if (n == 0) return lbt_argerror(L, 1, "Blackboard", "no keys declared");
  if (n > 65536) return lbt_argerror(L, 1, "Blackboard", "more than 65536 keys");
  lbt_board *b = lua_newuserdatauv(L, sizeof *b + (size_t)n * sizeof b->keys[0], 1);
  int ud = lua_gettop(L);
  b->nkeys = 0;
  luaL_setmetatable(L, LBT_BOARD_META);
  lua_createtable(L, n, n);
  int names = lua_gettop(L);
  lua_pushvalue(L, names);
  lua_setiuservalue(L, ud, 1);
  lua_pushnil(L);
  while (lua_next(L, 1)) { /* -2: the name, -1: its declaration */
    int name = lua_gettop(L) - 1;
    if (lua_type(L, name) != LUA_TSTRING) {
      const char *msg = lua_pushfstring(L, "key %s: a name (a string) expected, got %s",
                                        luaL_tolstring(L, name, NULL), luaL_typename(L, name));
      return lbt_argerror(L, 1, "Blackboard", msg);
    }
    if (!is_name(L, name)) {
      lua_pushfstring(L, "key '%s': a name of letters, digits and underscores expected", lua_tostring(L, name));
      key_error(L);
    }
    read_key(L, name, name + 1, &b->keys[b->nkeys]);
    lua_pushvalue(L, name);
    lua_rawseti(L, names, b->nkeys + 1); /* keeps the name alive */
    b->nkeys++;
    lua_pop(L, 1);
  }
  qsort(b->keys, (size_t)b->nkeys, sizeof b->keys[0], compare_names);
  for (int k = 0; k < b->nkeys; k++) { /* the ids in sorted order */
    lua_pushstring(L, b->keys[k].name);
    lua_pushvalue(L, -1);
    lua_rawseti(L, names, k + 1);
    lua_pushinteger(L, k);
    lua_rawset(L, names);
  }
  lua_settop(L, ud);
  return 1;
}

int lbt_board_find(lua_State *L, int board, int name) {
  board = lua_absindex(L, board);
  name = lua_absindex(L, name);
  if (lua_type(L, name) != LUA_TSTRING) return -1;
  lua_getiuservalue(L, board, 1);
  lua_pushvalue(L, name);
  int id = lua_rawget(L, -2) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 2);
  return id;
}

int lbt_board_same(const lbt_board *a, const lbt_board *b) {
  if (a == b) return 1;
  if (a->nkeys != b->nkeys) return 0;
  for (int k = 0; k < a->nkeys; k++)
    if (a->keys[k].type != b->keys[k].type || a->keys[k].flags != b->keys[k].flags ||
        strcmp(a->keys[k].name, b->keys[k].name) != 0)
      return 0;
  return 1;
}

void lbt_board_declare(lua_State *L, const lbt_board *b, bt_graph *g, const char *fname) {
  for (int k = 0; k < b->nkeys; k++)
    if (bt_graph_add_key(g, b->keys[k].name, b->keys[k].type, b->keys[k].flags) != k)
      luaL_error(L, "%s: %s", fname, bt_graph_errmsg(g));
}

/* Pushes a list of the keys a declaration (or a tree's board) holds, in the order of their ids. */
static void push_key_names(lua_State *L, const lbt_board *b) {
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  for (int k = 0; k < b->nkeys; k++) {
    if (k) luaL_addstring(&buf, ", ");
    luaL_addstring(&buf, b->keys[k].name);
  }
  luaL_pushresult(&buf);
}

/* declaration:keys(): {{name = ..., type = ..., host = true or false}, ...} in the order of ids */
static int board_keys(lua_State *L) {
  lbt_board *b = lbt_board_test(L, 1);
  if (!b) return lbt_typeerror(L, 1, 0, "keys", "Blackboard");
  lua_createtable(L, b->nkeys, 0);
  for (int k = 0; k < b->nkeys; k++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, b->keys[k].name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, type_names[b->keys[k].type]);
    lua_setfield(L, -2, "type");
    lua_pushboolean(L, (b->keys[k].flags & BT_KEY_HOST) != 0);
    lua_setfield(L, -2, "host");
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

static int board_tostring(lua_State *L) {
  lbt_board *b = lbt_board_test(L, 1);
  if (!b) return lbt_typeerror(L, 1, 0, "__tostring", "Blackboard");
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  luaL_addstring(&buf, "Blackboard{");
  for (int k = 0; k < b->nkeys; k++) {
    lua_pushfstring(L, "%s%s = \"%s\"%s", k ? ", " : "", b->keys[k].name, type_names[b->keys[k].type],
                    b->keys[k].flags & BT_KEY_HOST ? " (host)" : "");
    luaL_addvalue(&buf);
  }
  luaL_addstring(&buf, "}");
  luaL_pushresult(&buf);
  return 1;
}

/* ---- values ---- */

int lbt_whole(lua_State *L, int idx, lua_Integer *out) {
  if (lua_isinteger(L, idx)) {
    *out = lua_tointeger(L, idx);
    return 1;
  }
  lua_Number n = lua_tonumber(L, idx);
  return lua_type(L, idx) == LUA_TNUMBER && lua_numbertointeger(n, out) && (lua_Number)*out == n;
}

void lbt_push_key_value(lua_State *L, const bt_value *v) {
  switch (v->type) {
    case BT_KEY_NUMBER: lua_pushnumber(L, v->as.number); break;
    case BT_KEY_INTEGER: lua_pushinteger(L, (lua_Integer)v->as.integer); break;
    case BT_KEY_BOOLEAN: lua_pushboolean(L, v->as.boolean); break;
    case BT_KEY_STRING: lua_pushstring(L, v->as.string); break;
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: lua_pushinteger(L, (lua_Integer)v->as.entity); break;
    default: lua_pushnil(L);
  }
}

int lbt_entity_id(lua_State *L, int idx, unsigned long long *out) {
  static const char *const fields[] = {"GUID", "id"};
  idx = lua_absindex(L, idx);
  lua_Integer i = 0;
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER) {
    if (!lbt_whole(L, idx, &i)) return 0;
    *out = (unsigned long long)i;
    return 1;
  }
  if (t != LUA_TTABLE && t != LUA_TUSERDATA) return 0;
  for (int f = 0; f < 2; f++) {
    lua_getfield(L, idx, fields[f]);
    int isint;
    i = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (isint) {
      *out = (unsigned long long)i;
      return 1;
    }
  }
  return 0;
}

/* The proxy at idx (its tree not collected), or an error naming what. */
static lbt_proxy *check_proxy(lua_State *L, int idx, const char *what) {
  lbt_proxy *p = luaL_testudata(L, idx, PROXY_META);
  if (!p) lbt_typeerror(L, idx, 0, what, "board");
  if (!p->t || p->t->collected) luaL_error(L, "board: its tree was garbage collected");
  return p;
}

/* The id of the key named at name, of the board at proxy; raises for a key it does not have. */
static int key_of(lua_State *L, int proxy, int name) {
  lua_getiuservalue(L, proxy, LBT_PROXY_UV_BOARD);
  int board = lua_gettop(L);
  int id = lbt_board_find(L, board, name);
  if (id < 0) {
    const lbt_board *b = lua_touserdata(L, board);
    push_key_names(L, b);
    if (lua_type(L, name) == LUA_TSTRING)
      luaL_error(L, "board: no key '%s' (its keys: %s)", lua_tostring(L, name), lua_tostring(L, -1));
    luaL_error(L, "board: no key %s (a key is a name: its keys: %s)", luaL_tolstring(L, name, NULL),
               lua_tostring(L, -2));
  }
  lua_pop(L, 1);
  return id;
}

/* Pushes the value v of key id (the proxy at proxy): an "any" key's is the board's Lua value. */
static void push_value(lua_State *L, int proxy, int id, const bt_value *v) {
  if (v->type != BT_KEY_VALUE) {
    lbt_push_key_value(L, v);
  } else if (lua_getiuservalue(L, proxy, LBT_PROXY_UV_VALUES) == LUA_TTABLE) {
    lua_rawgeti(L, -1, id + 1);
    lua_remove(L, -2);
  }
}

/* board.key */
static int proxy_index(lua_State *L) {
  lbt_proxy *p = check_proxy(L, 1, "__index");
  int id = key_of(L, 1, 2);
  bt_value v;
  bt_inst_key_get(lbt_tree_inst(p->t), id, &v);
  push_value(L, 1, id, &v);
  return 1;
}

/* Raises "board key '<name>' takes <type>, got <what>". */
static int type_error(lua_State *L, int name, int type, const char *what) {
  return luaL_error(L, "board key '%s' takes %s, got %s", lua_tostring(L, name), a_type(type), what);
}

/* The value at idx for key id of type `type` (the name at name, for errors), into v. */
static void to_value(lua_State *L, int name, int type, int idx, bt_value *v) {
  memset(v, 0, sizeof *v);
  int t = lua_type(L, idx);
  if (t == LUA_TNIL) return; /* unsets it */
  v->type = type;
  switch (type) {
    case BT_KEY_NUMBER:
      if (t != LUA_TNUMBER) type_error(L, name, type, luaL_typename(L, idx));
      v->as.number = lua_tonumber(L, idx);
      return;
    case BT_KEY_INTEGER: {
      if (t != LUA_TNUMBER) type_error(L, name, type, luaL_typename(L, idx));
      lua_Integer i = 0;
      if (!lbt_whole(L, idx, &i))
        type_error(L, name, type, lua_pushfstring(L, "a number that is not whole (%s)", luaL_tolstring(L, idx, NULL)));
      v->as.integer = (long long)i;
      return;
    }
    case BT_KEY_BOOLEAN:
      if (t != LUA_TBOOLEAN) type_error(L, name, type, luaL_typename(L, idx));
      v->as.boolean = lua_toboolean(L, idx);
      return;
    case BT_KEY_STRING:
      if (t != LUA_TSTRING) type_error(L, name, type, luaL_typename(L, idx));
      v->as.string = lua_tostring(L, idx);
      return;
    case BT_KEY_ENTITY:
      if (!lbt_entity_id(L, idx, &v->as.entity))
        type_error(L, name, type,
                   t == LUA_TTABLE || t == LUA_TUSERDATA
                       ? lua_pushfstring(L, "a %s without an integer GUID or id", luaL_typename(L, idx))
                       : t == LUA_TNUMBER ? "a number that is not whole" : luaL_typename(L, idx));
      return;
    default: return; /* BT_KEY_VALUE: the caller's */
  }
}

/* board.key = value */
static int proxy_newindex(lua_State *L) {
  lbt_proxy *p = check_proxy(L, 1, "__newindex");
  lua_settop(L, 3);
  int id = key_of(L, 1, 2);
  bt_inst *in = lbt_tree_inst(p->t);
  int type = bt_def_key_type(bt_inst_def(in), id);
  bt_value v;
  to_value(L, 2, type, 3, &v);
  if (type == BT_KEY_VALUE) {
    /* the value stays in this Lua state, in the board's table; the core holds a fresh token */
    if (lbt_state_get(L) != p->S)
      return luaL_error(L, "board key '%s' (any): a value cannot cross Lua states, and this board's tree "
                           "belongs to another one", lua_tostring(L, 2));
    if (lua_getiuservalue(L, 1, LBT_PROXY_UV_VALUES) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_setiuservalue(L, 1, LBT_PROXY_UV_VALUES);
    }
    lua_rawgeti(L, 4, id + 1);
    if (lua_rawequal(L, -1, 3)) return 0; /* the same value: no write */
    lua_pushvalue(L, 3);
    lua_rawseti(L, 4, id + 1);
    if (v.type) v.as.token = ++p->token;
  }
  int rc = bt_inst_key_set(in, id, &v);
  if (rc == BT_ENOMEM) return luaL_error(L, "board key '%s': not enough memory", lua_tostring(L, 2));
  if (rc != BT_OK) return luaL_error(L, "board key '%s': %s", lua_tostring(L, 2), bt_strerror(rc));
  return 0;
}

/* next(t, k), for pairs(board) */
static int snapshot_next(lua_State *L) {
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

/* pairs(board): the keys that are set, with their values (a snapshot) */
static int proxy_pairs(lua_State *L) {
  lbt_proxy *p = check_proxy(L, 1, "__pairs");
  bt_inst *in = lbt_tree_inst(p->t);
  const bt_def *def = bt_inst_def(in);
  int n = bt_def_key_count(def);
  lua_pushcfunction(L, snapshot_next);
  lua_createtable(L, 0, n);
  for (int k = 0; k < n; k++) {
    bt_value v;
    if (bt_inst_key_get(in, k, &v) != 1) continue;
    push_value(L, 1, k, &v);
    lua_setfield(L, -2, bt_def_key_name(def, k));
  }
  lua_pushnil(L);
  return 3;
}

static int proxy_tostring(lua_State *L) {
  lbt_proxy *p = check_proxy(L, 1, "__tostring");
  bt_inst *in = lbt_tree_inst(p->t);
  const bt_def *def = bt_inst_def(in);
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  luaL_addstring(&buf, "board{");
  for (int k = 0, first = 1; k < bt_def_key_count(def); k++) {
    bt_value v;
    if (bt_inst_key_get(in, k, &v) != 1) continue;
    if (!first) luaL_addstring(&buf, ", ");
    first = 0;
    lua_pushfstring(L, "%s = ", bt_def_key_name(def, k));
    luaL_addvalue(&buf);
    if (v.type == BT_KEY_STRING) {
      lua_pushfstring(L, "\"%s\"", v.as.string);
    } else if (v.type == BT_KEY_VALUE) {
      lua_pushfstring(L, "<%s>", lbt_key_type_name(BT_KEY_VALUE));
    } else {
      push_value(L, 1, k, &v);
      luaL_tolstring(L, -1, NULL);
      lua_remove(L, -2);
    }
    luaL_addvalue(&buf);
  }
  luaL_addstring(&buf, "}");
  luaL_pushresult(&buf);
  return 1;
}

/* ---- a tree's board ---- */

void lbt_board_attach(lua_State *L, lbt_tree *t, int tree, int board) {
  tree = lua_absindex(L, tree);
  board = lua_absindex(L, board);
  lbt_proxy *p = lua_newuserdatauv(L, sizeof *p, LBT_PROXY_UV_COUNT);
  memset(p, 0, sizeof *p);
  p->t = t;
  p->S = t->S;
  luaL_setmetatable(L, PROXY_META);
  lua_pushvalue(L, tree);
  lua_setiuservalue(L, -2, LBT_PROXY_UV_TREE);
  lua_pushvalue(L, board);
  lua_setiuservalue(L, -2, LBT_PROXY_UV_BOARD);
  lbt_tree_table(L, tree, LBT_UV_OBJS, 1);
  lua_insert(L, -2);
  lua_rawseti(L, -2, 0);
  lua_pop(L, 1);
  t->board = 1;
}

/* Pushes the board of the tree at tree and returns it, or pushes nothing and returns NULL. */
static lbt_proxy *push_proxy(lua_State *L, int tree) {
  lbt_tree_table(L, tree, LBT_UV_OBJS, 0);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    return NULL;
  }
  lua_rawgeti(L, -1, 0);
  lua_remove(L, -2);
  lbt_proxy *p = luaL_testudata(L, -1, PROXY_META);
  if (!p) lua_pop(L, 1);
  return p;
}

void lbt_board_unbind(lua_State *L, int idx) {
  lbt_proxy *p = lua_touserdata(L, idx);
  if (p->bound && p->t && !p->t->collected && lbt_tree_inst(p->t) == p->bound)
    bt_inst_set_waker(p->bound, NULL, NULL);
  p->sched = NULL;
  p->bound = NULL;
  lua_pushnil(L);
  lua_setiuservalue(L, idx, LBT_PROXY_UV_SCHED);
}

void lbt_board_move(lua_State *L, int from, int to) {
  from = lua_absindex(L, from);
  to = lua_absindex(L, to);
  lbt_proxy *p = push_proxy(L, from);
  if (!p) return;
  int proxy = lua_gettop(L);
  lbt_tree *nt = lbt_tree_raw(L, to);
  lbt_tree_table(L, to, LBT_UV_OBJS, 1);
  lua_pushvalue(L, proxy);
  lua_rawseti(L, -2, 0);
  lua_pop(L, 1);
  nt->board = 1;
  bt_inst *was = p->bound;
  p->t = nt;
  lua_pushvalue(L, to);
  lua_setiuservalue(L, proxy, LBT_PROXY_UV_TREE);
  if (was) { /* the scheduler's brain thinks the new instance: bound in the old one's place */
    bt_inst_set_waker(was, NULL, NULL);
    bt_sched *s = p->sched ? *p->sched : NULL;
    if (s && bt_sched_set_inst(s, p->id, lbt_tree_inst(nt)) == BT_OK) p->bound = lbt_tree_inst(nt);
    else lbt_board_unbind(L, proxy);
  }
  lua_settop(L, proxy - 1);
}

void lbt_board_migrate(lua_State *L, int from, int to) {
  from = lua_absindex(L, from);
  to = lua_absindex(L, to);
  lbt_proxy *p = push_proxy(L, from);
  if (!p) return;
  int old = lua_gettop(L);
  lbt_proxy *n = push_proxy(L, to);
  if (n) {
    int neu = lua_gettop(L);
    if (n->token < p->token) n->token = p->token; /* the tokens carried over stay unique */
    lua_getiuservalue(L, old, LBT_PROXY_UV_VALUES);
    lua_getiuservalue(L, old, LBT_PROXY_UV_BOARD);
    lua_getiuservalue(L, neu, LBT_PROXY_UV_BOARD);
    int values = neu + 1, ob = neu + 2, nb = neu + 3;
    const lbt_board *b = lua_touserdata(L, nb);
    bt_inst *in = lbt_tree_inst(n->t);
    for (int k = 0; lua_istable(L, values) && k < b->nkeys; k++) {
      bt_value v;
      if (b->keys[k].type != BT_KEY_VALUE || bt_inst_key_get(in, k, &v) != 1) continue;
      lua_pushstring(L, b->keys[k].name);
      int was = lbt_board_find(L, ob, -1);
      lua_pop(L, 1);
      if (was < 0) continue;
      if (lua_getiuservalue(L, neu, LBT_PROXY_UV_VALUES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, neu, LBT_PROXY_UV_VALUES);
      }
      lua_rawgeti(L, values, was + 1);
      lua_rawseti(L, -2, k + 1);
      lua_pop(L, 1);
    }
  }
  lbt_board_unbind(L, old);
  lua_settop(L, old - 1);
}

/* shared.is_board(v): whether v is a bt.Blackboard */
static int l_is_board(lua_State *L) {
  lua_pushboolean(L, lbt_board_test(L, 1) != NULL);
  return 1;
}

const luaL_Reg lbt_board_shared[] = {
    {"is_board", l_is_board},
    {NULL, NULL},
};

/* ---- opening ---- */

static const luaL_Reg board_methods[] = {
    {"keys", board_keys},
    {NULL, NULL},
};

static const luaL_Reg proxy_meta[] = {
    {"__index", proxy_index},
    {"__newindex", proxy_newindex},
    {"__pairs", proxy_pairs},
    {"__tostring", proxy_tostring},
    {NULL, NULL},
};

void lbt_open_board(lua_State *L, int module) {
  module = lua_absindex(L, module);
  luaL_newmetatable(L, LBT_BOARD_META);
  luaL_newlib(L, board_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, board_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  luaL_newmetatable(L, PROXY_META);
  luaL_setfuncs(L, proxy_meta, 0);
  lua_pushliteral(L, "board");
  lua_setfield(L, -2, "__metatable"); /* getmetatable(board) cannot reach the methods */
  lua_pop(L, 1);
  lua_pushcfunction(L, l_blackboard);
  lua_setfield(L, module, "Blackboard");
}
