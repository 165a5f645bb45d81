/* SPDX-License-Identifier: MIT */
/*
 * objects.c: node objects. A constructor makes a plain table of its node's class, holding what
 * it was given. Once BT wraps the tree, the object is bound to the tree and its state (status,
 * lastresult, idx, lasttime, ...) lives in the tree's instance, read and written through the
 * classes' __index and __newindex here. Objects of a shared definition are templates: each
 * entity gets copies, made when first asked for; an object that nothing holds is made anew, as a
 * view of its node, when asked for again.
 */
#include <string.h>

#include "lbt.h"

const char lbt_key_tree = 0;
const char lbt_key_node = 0;
const char lbt_key_def = 0;
const char lbt_key_children = 0;
const char lbt_key_where = 0;

/* ---- views: the fields of a node object that live in its tree's instance ---- */

enum {
  VK_NONE,
  VK_STATUS,
  VK_LASTRESULT,
  VK_IDX,
  VK_REP,
  VK_LASTTIME,
  VK_WAKE_TIME,
  VK_NEXTUPDATETIME,
  VK_TRIGGERED,
  VK_RUNNING,
  VK_LASTLATCHTIME,
  VK_LATCHDURATION,
  VK_DATA,     /* the node's Lua data in the tree, for a class that says so (LBT_CLASS_DATA) */
  VK_BOARD,    /* its tree's board, read only (nil for a tree without one) */
  VK_PARENT,
  VK_CHILDREN,
  VK_COUNT,
  VK_PORTS = VK_COUNT /* not a view: reads and writes, whose assignment notes where (lbt_key_where) */
};

static const char *const view_names[VK_COUNT] = {
    NULL,           "status",   "lastresult",    "idx",       "rep",       "lasttime",
    "wake_time",    "nextupdatetime", "triggered", "running", "lastlatchtime",
    "currentlatchduration", "data", "board", "parent", "children"};

static const int view_fields[VK_COUNT] = {
    [VK_IDX] = BT_FIELD_IDX,
    [VK_REP] = BT_FIELD_REP,
    [VK_LASTTIME] = BT_FIELD_LASTTIME,
    [VK_WAKE_TIME] = BT_FIELD_WAKE_TIME,
    [VK_NEXTUPDATETIME] = BT_FIELD_NEXTUPDATETIME,
    [VK_TRIGGERED] = BT_FIELD_TRIGGERED,
    [VK_RUNNING] = BT_FIELD_RUNNING,
    [VK_LASTLATCHTIME] = BT_FIELD_LASTLATCHTIME,
    [VK_LATCHDURATION] = BT_FIELD_LATCHDURATION,
};

/* Whether a view code is one of the core's fields (bt_node_get/bt_node_set). */
static int is_field(int code) { return code >= VK_IDX && code < VK_DATA; }

static void open_lists(lua_State *L);
static int push_items(lua_State *L, int list);

void lbt_open_views(lua_State *L) {
  lbt_registry_get(L, LBT_REG_ROOTS);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "kv");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_CTORFIELDS);
  for (int i = 1; i < VK_COUNT; i++) {
    lua_pushinteger(L, i);
    lua_setfield(L, -2, view_names[i]);
  }
  lua_pushinteger(L, VK_PORTS);
  lua_setfield(L, -2, "reads");
  lua_pushinteger(L, VK_PORTS);
  lua_setfield(L, -2, "writes");
  lua_pop(L, 1);
  open_lists(L);
}

static unsigned field_slot(const char *name) {
  return (unsigned)(((uintptr_t)name >> 4) ^ ((uintptr_t)name >> 11)) & (LBT_FIELD_SLOTS - 1);
}

void lbt_index_fields(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  lbt_registry_get(L, LBT_REG_CTORFIELDS);
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (++count > LBT_FIELD_SLOTS / 2) luaL_error(L, "bt: too many known field names");
    const char *name = lua_tostring(L, -2); /* held by the table's key */
    unsigned i = field_slot(name);
    while (S->field_names[i]) i = (i + 1) & (LBT_FIELD_SLOTS - 1);
    S->field_names[i] = name;
    S->field_codes[i] = (signed char)(lua_isinteger(L, -1) ? lua_tointeger(L, -1) : VK_NONE);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* What LBT_REG_CTORFIELDS says of the field name: its view code, VK_NONE for a name the
 * constructors set, -1 for an unknown one. name is a Lua string's (lua_tostring). */
static int known_field(const lbt_state *S, const char *name) {
  for (unsigned i = field_slot(name);; i = (i + 1) & (LBT_FIELD_SLOTS - 1)) {
    if (S->field_names[i] == name) return S->field_codes[i];
    if (!S->field_names[i]) return -1;
  }
}

static int construct(lua_State *L, int node, const lbt_state *S);

/* Notes where the node object at obj was made, or given its ports (reads or writes assigned), if
 * it has no such note (lbt.h): inside a constructor (a class's sets them), where the constructor
 * was called; otherwise the assignment. lbt_push_where says which code is the API's caller. */
void lbt_note_where(lua_State *L, int obj) {
  obj = lua_absindex(L, obj);
  if (lua_rawgetp(L, obj, &lbt_key_where) == LUA_TNIL) {
    lua_Debug ar;
    int level = 1;
    for (; lua_getstack(L, level, &ar); level++) { /* a node constructor's frame (construct) */
      lua_getinfo(L, "f", &ar);
      int ctor = lua_tocfunction(L, -1) == lbt_construct_node;
      lua_pop(L, 1);
      if (ctor) break;
    }
    int found = lua_getstack(L, level, &ar); /* from there (else from the top) up: the caller */
    int whole = lbt_state_get(L)->where_all; /* coverage names files by their whole names */
    lua_pushboolean(L, 0); /* if no code of a script's is found: a node with ports all the same */
    for (level = found ? level + 1 : 1; lua_getstack(L, level, &ar); level++) {
      lua_getinfo(L, "Sl", &ar);
      if (ar.currentline > 0 && strncmp(ar.source, "@bt/", 4) != 0) {
        const char *chunk = whole && ar.source[0] == '@' ? ar.source + 1 : ar.short_src;
        lua_pushfstring(L, "%s:%d", chunk, ar.currentline);
        lua_replace(L, -2);
        break;
      }
    }
    lua_rawsetp(L, obj, &lbt_key_where);
  }
  lua_pop(L, 1);
}

/* The view code of the key at index key, for __index and __newindex, whose upvalue is the
 * lbt_state. A view's name is a short string, of which Lua keeps one copy: its pointer says it. */
static int view_code(lua_State *L, int key) {
  if (lua_type(L, key) != LUA_TSTRING) return VK_NONE;
  int code = known_field(lua_touserdata(L, lua_upvalueindex(1)), lua_tostring(L, key));
  return code < 0 ? VK_NONE : code;
}

/* The module's state, in a node class's __index or __newindex (its upvalue). */
static const lbt_state *index_state(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* ---- classes, as the node objects see them ---- */

int lbt_is_node(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return 0;
  lua_pushliteral(L, "__bt_node");
  lua_rawget(L, -2);
  int yes = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return yes;
}

int lbt_node_kind(lua_State *L, int idx) {
  if (!lua_getmetatable(L, idx)) return -1;
  lua_pushliteral(L, "__bt_kind");
  lua_rawget(L, -2);
  int kind = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 2);
  return kind;
}

static void push_class(lua_State *L, int kind) {
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  lua_remove(L, -2);
}

int lbt_is_custom(lua_State *L, const lbt_state *S, int idx, int kind) {
  if (kind < 0 || kind >= BT_KIND_COUNT || !lua_getmetatable(L, idx)) return 0;
  int custom = lua_topointer(L, -1) != S->class_of[kind];
  lua_pop(L, 1);
  return custom;
}

/* The node's object holds its entity (as the field inst): its constructor takes one. */
static int takes_inst(const lbt_state *S, int kind) { return S->classes[kind] & LBT_CLASS_INST; }

/* The node's `data` is its Lua data in the tree (an event's data). */
static int has_data(const lbt_state *S, int kind) { return S->classes[kind] & LBT_CLASS_DATA; }

int lbt_node_member(lua_State *L, const lbt_state *S, int obj, int key) {
  obj = lua_absindex(L, obj);
  lbt_push_key(L, S, key);
  lua_pushvalue(L, -1);
  int type = lua_rawget(L, obj); /* key, obj[key] */
  if (type != LUA_TNIL || !lua_getmetatable(L, obj)) {
    lua_replace(L, -2);
    return type;
  }
  lua_pushvalue(L, -3);
  type = lua_rawget(L, -2); /* key, nil, class, class[key] */
  lua_copy(L, -1, -4);
  lua_settop(L, -4);
  return type;
}

/* Adds the node object at obj to the list of LBT_REG_MADE, if there is one. */
static void note_made(lua_State *L, const lbt_state *S, int obj) {
  if (S && !S->listing_made) return;
  lbt_registry_get(L, LBT_REG_MADE);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushvalue(L, obj);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  }
  lua_pop(L, 1);
}

/* Calls class._ctor(obj, ...) with the arguments after the class at 1 and returns obj: the
 * __call of a Class. A C function, so that `return SomeNode(...)` in a designer's function, a tail
 * call, keeps that function's frame: an argument error in the constructor names its line. */
static int construct(lua_State *L, int node, const lbt_state *S) {
  int nargs = lua_gettop(L) - 1;
  luaL_checkstack(L, nargs + 3, "too many constructor arguments");
  lua_createtable(L, 0, node ? 8 : 0);
  lua_pushvalue(L, 1);
  lua_setmetatable(L, -2);
  lua_insert(L, 2); /* class, obj, args... */
  if (node) note_made(L, S, 2);
  if (lua_getfield(L, 1, "_ctor") == LUA_TNIL) {
    lua_settop(L, 2);
    return 1;
  }
  lua_insert(L, 3);
  lua_pushvalue(L, 2);
  lua_insert(L, 4); /* class, obj, ctor, obj, args... */
  lua_call(L, nargs + 1, 0);
  return 1;
}

/* shared.construct_node / shared.construct: the __call of a node class (whose objects are made
 * with room for the fields a constructor and a tree give them, so that filling one in does not
 * grow it field by field) and of any other class */
int lbt_construct_node(lua_State *L) {
  return construct(L, 1, lua_touserdata(L, lua_upvalueindex(1))); /* NULL without the upvalue */
}
static int l_construct(lua_State *L) { return construct(L, 0, NULL); }

/* shared.made_begin(): from now on every node object made is listed; returns the list of an
 * outer collection under way (or nil), to give to made_end. */
static int l_made_begin(lua_State *L) {
  lbt_registry_get(L, LBT_REG_MADE);
  lua_newtable(L);
  lbt_registry_set(L, LBT_REG_MADE);
  lbt_state_get(L)->listing_made = 1;
  return 1;
}

/* shared.made_end(outer): the node objects made since the matching made_begin, as a list; the
 * outer collection (its result) goes on and lists them too. */
static int l_made_end(lua_State *L) {
  lua_settop(L, 1);
  lbt_registry_get(L, LBT_REG_MADE);
  if (lua_type(L, 1) == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2), at = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, 2, i);
      lua_rawseti(L, 1, at + i);
    }
  }
  lua_pushvalue(L, 1);
  lbt_registry_set(L, LBT_REG_MADE);
  lbt_state_get(L)->listing_made = lua_type(L, 1) == LUA_TTABLE;
  return 1;
}

/* shared.stop_unplaced(list): calls the OnStop of each node object of list that is in no tree
 * and no definition (made, then never given to BT: its listeners would outlive it), as Stop
 * would; errors are reported and the others still stopped. The templates of a shared definition
 * hold no entity and listen to nothing. */
static int l_stop_unplaced(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lbt_state *S = lbt_state_get(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
  for (lua_Integer i = 1; i <= n; i++) {
    int node;
    lua_rawgeti(L, 1, i);
    if (lbt_node_tree(L, -1, &node) || lua_rawgetp(L, -1, &lbt_key_def) != LUA_TNIL ||
        lua_getfield(L, -2, "OnStop") == LUA_TNIL) {
      lua_settop(L, 1);
      continue;
    }
    lua_replace(L, -2); /* OnStop over the nil of lbt_key_def */
    lua_insert(L, -2);
    lbt_pcall(S, L, 1, 0, 0, NULL, -1, "OnStop");
    lua_settop(L, 1);
  }
  return 0;
}

const luaL_Reg lbt_objects_shared[] = {
    {"construct_node", lbt_construct_node},
    {"construct", l_construct},
    {"made_begin", l_made_begin},
    {"made_end", l_made_end},
    {"stop_unplaced", l_stop_unplaced},
    {NULL, NULL},
};

/* ---- bound objects ---- */

lbt_tree *lbt_node_tree(lua_State *L, int obj, int *node) {
  obj = lua_absindex(L, obj);
  *node = -1;
  if (lua_type(L, obj) != LUA_TTABLE) return NULL;
  /* The keys are in the node's own table, where pairs finds them and rawset can change them:
   * believe them only if they are a tree and an index into it. A tree rebuilt since (its children
   * edited) is the one it stays bound to: the node was taken out, and the old instance keeps its
   * state. */
  lua_rawgetp(L, obj, &lbt_key_tree);
  lbt_tree *t = lbt_tree_raw(L, -1);
  lua_rawgetp(L, obj, &lbt_key_node);
  int isint;
  lua_Integer n = lua_tointegerx(L, -1, &isint);
  lua_pop(L, 2);
  if (!t || t->collected || !isint || n < 0) return NULL;
  if (n >= bt_def_size(bt_inst_def(lbt_tree_inst(t)))) return NULL;
  *node = (int)n;
  return t;
}

static void bind(lua_State *L, int tree, int obj, int node) {
  lua_pushvalue(L, tree);
  lua_rawsetp(L, obj, &lbt_key_tree);
  lua_pushinteger(L, node);
  lua_rawsetp(L, obj, &lbt_key_node);
}

void lbt_tree_table(lua_State *L, int tree, int uv, int create) {
  tree = lua_absindex(L, tree);
  if (lua_getiuservalue(L, tree, uv) != LUA_TNIL || !create) return;
  lua_pop(L, 1);
  lua_newtable(L);
  if (uv == LBT_UV_VIEWS) {
    lbt_registry_get(L, LBT_REG_WEAKVALUES);
    lua_setmetatable(L, -2);
  }
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, tree, uv);
}

/* Pushes the value of a view of node `node`; returns 0 (pushing nothing) if it has none. */
static int view_get(lua_State *L, lbt_tree *t, int node, int code) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  switch (code) {
    case VK_STATUS: lbt_push_status(L, bt_node_status(lbt_tree_inst(t), node)); return 1;
    case VK_LASTRESULT: lbt_push_status(L, bt_node_last(lbt_tree_inst(t), node)); return 1;
    default: break;
  }
  if (!is_field(code) || !bt_node_has_field(def, node, view_fields[code])) return 0;
  double v;
  if (bt_node_get(lbt_tree_inst(t), node, view_fields[code], &v) != 1) {
    lua_pushnil(L);
  } else if (code == VK_TRIGGERED || code == VK_RUNNING) {
    lua_pushboolean(L, v != 0);
  } else if (code == VK_IDX || code == VK_REP) {
    lua_pushinteger(L, (lua_Integer)v);
  } else {
    lua_pushnumber(L, v);
  }
  return 1;
}

/* Sets a view of node `node` to the value at index value; returns 0 if the node has no such
 * view. Raises what is wrong with the value. */
static int view_set(lua_State *L, lbt_tree *t, int node, int code, int value) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  if (code == VK_STATUS) {
    int s = lbt_status_of(t->S, L, value);
    if (s < 0)
      return luaL_error(L, "invalid status %s for node '%s' (READY, SUCCESS, FAILED or RUNNING)",
                        luaL_tolstring(L, value, NULL), bt_def_name(def, node));
    bt_node_set_status(lbt_tree_inst(t), node, (bt_status)s);
    return 1;
  }
  if (code == VK_LASTRESULT)
    return luaL_error(L, "lastresult of node '%s' is set by the tree's think, not by scripts",
                      bt_def_name(def, node));
  if (!is_field(code) || !bt_node_has_field(def, node, view_fields[code])) return 0;
  int type = lua_type(L, value);
  double v;
  const double *pv = &v;
  if (type == LUA_TNIL) pv = NULL;
  else if (code == VK_TRIGGERED || code == VK_RUNNING) v = lua_toboolean(L, value);
  else if (type == LUA_TNUMBER) v = lua_tonumber(L, value);
  else
    return luaL_error(L, "field '%s' of node '%s' takes a number, got %s", view_names[code],
                      bt_def_name(def, node), luaL_typename(L, value));
  int rc = bt_node_set(lbt_tree_inst(t), node, view_fields[code], pv);
  if (rc == BT_ENOMEM)
    return luaL_error(L, "field '%s' of node '%s': %s", view_names[code], bt_def_name(def, node),
                      bt_strerror(rc));
  if (rc != BT_OK)
    return luaL_error(L, "bad value for field '%s' of node '%s'", view_names[code],
                      bt_def_name(def, node));
  return 1;
}

/* What a field reads before the node is in a tree: what Don't Starve's constructor set. */
static void push_unbound(lua_State *L, int kind, int code) {
  double v;
  if (code == VK_STATUS || code == VK_LASTRESULT) {
    lbt_push_status(L, BT_READY);
  } else if (is_field(code) && bt_kind_field_default(kind, view_fields[code], &v) == 1) {
    lua_Integer i;
    if (lua_numbertointeger(v, &i) && (lua_Number)i == v) lua_pushinteger(L, i);
    else lua_pushnumber(L, v);
  } else {
    lua_pushnil(L);
  }
}

/* ---- live objects: the status of a node whose Lua code runs is a plain field of its object ---- */

void lbt_live_put(lua_State *L, lbt_tree *t, int obj, int node) {
  lbt_push_key(L, t->S, LBT_KEY_STATUS);
  lbt_push_key(L, t->S, LBT_KEY_READY + (int)bt_node_status(lbt_tree_inst(t), node));
  lua_rawset(L, obj);
}

/* Reports a status a script stored that is none. */
static void bad_status(lua_State *L, lbt_tree *t, int node, int value) {
  bt_inst *in = lbt_tree_inst(t);
  const char *name = bt_def_name(bt_inst_def(in), node);
  lbt_push_path(L, in, node);
  if (lua_type(L, value) == LUA_TSTRING)
    lua_pushfstring(L, "%s: invalid status %s for node '%s' (READY, SUCCESS, FAILED or RUNNING)",
                    lua_tostring(L, -1), lua_tostring(L, value), name);
  else
    lua_pushfstring(L, "%s: invalid status (a %s) for node '%s' (READY, SUCCESS, FAILED or RUNNING)",
                    lua_tostring(L, -1), luaL_typename(L, value), name);
  lbt_report(t->S, L, in, node, lua_tostring(L, -1));
  lua_pop(L, 2);
}

void lbt_live_take(lua_State *L, lbt_tree *t, int obj, int node) {
  lbt_push_key(L, t->S, LBT_KEY_STATUS);
  int type = lua_rawget(L, obj);
  int s = lbt_status_of(t->S, L, -1);
  if (s < 0 && type != LUA_TNIL) {
    bad_status(L, t, node, lua_gettop(L));
    s = BT_FAILED;
  }
  bt_inst *in = lbt_tree_inst(t);
  if (s >= 0 && s != (int)bt_node_status(in, node)) bt_node_set_status(in, node, (bt_status)s);
  lua_pop(L, 1);
  lbt_push_key(L, t->S, LBT_KEY_STATUS);
  lua_pushnil(L);
  lua_rawset(L, obj);
}

/* ---- making node objects for a tree's states ---- */

/* Pushes the object the tree holds for state s in its table uv (OBJS or VIEWS) and returns 1,
 * or pushes nothing and returns 0. */
static int push_kept(lua_State *L, int tree, int s, int uv) {
  if (lua_getiuservalue(L, tree, uv) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  if (lua_rawgeti(L, -1, s + 1) == LUA_TNIL) {
    lua_pop(L, 2);
    return 0;
  }
  lua_remove(L, -2);
  return 1;
}

/* Files the object at obj as the object of state s: strongly (the tree needs it) or weakly. */
static void file_obj(lua_State *L, int tree, int obj, int s, int keep) {
  lbt_tree_table(L, tree, keep ? LBT_UV_OBJS : LBT_UV_VIEWS, 1);
  lua_pushvalue(L, obj);
  lua_rawseti(L, -2, s + 1);
  lua_pop(L, 1);
}

/* Files the object at obj as the root's object of the tree built for one entity: weakly, in
 * LBT_REG_ROOTS. */
static void file_root(lua_State *L, int tree, int obj) {
  lbt_registry_get(L, LBT_REG_ROOTS);
  lua_pushvalue(L, tree);
  lua_pushvalue(L, obj);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Pushes the object filed by file_root for the tree and returns 1, or pushes nothing and returns 0. */
static int push_root(lua_State *L, int tree) {
  lbt_registry_get(L, LBT_REG_ROOTS);
  lua_pushvalue(L, tree);
  if (lua_rawget(L, -2) == LUA_TNIL) {
    lua_pop(L, 2);
    return 0;
  }
  lua_remove(L, -2);
  return 1;
}

/* Pushes the object the tree keeps for state s, strongly or weakly, and returns 1; or pushes
 * nothing and returns 0. */
static int push_kept_any(lua_State *L, int tree, int s) {
  return push_kept(L, tree, s, LBT_UV_OBJS) || push_kept(L, tree, s, LBT_UV_VIEWS) ||
         (s == 0 && push_root(L, tree));
}

/* Whether state s of the tree is a template's (its object is the entity's copy, made on use). */
static int is_template(const lbt_tree *t, int s) {
  return bt_def_graph_id(bt_inst_def(lbt_tree_inst(t)), s) >= t->nown;
}

/* Pushes the template of state s of a shared definition. */
static void push_template(lua_State *L, int tree, int s) {
  lua_getiuservalue(L, tree, LBT_UV_DEF);
  lua_getiuservalue(L, -1, LBT_DEF_UV_TEMPLATES);
  lua_rawgeti(L, -1, s + 1);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

/* Pushes the entity's copy of state s of a shared definition, made on first use: the
 * template's fields and class, the entity as inst (for nodes written in Lua and those whose
 * class takes one), bound to this tree. Its parent and children are read from the tree. */
static void push_copy(lua_State *L, lbt_tree *t, int tree, int s) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int node = bt_def_node_of_state(def, s);
  luaL_checkstack(L, 12, "bt: tree too deep for the Lua stack");
  push_template(L, tree, s);
  int tpl = lua_gettop(L);
  lua_newtable(L);
  int copy = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tpl)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (key && strcmp(key, "children") != 0 && strcmp(key, "parent") != 0) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, copy);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_getmetatable(L, tpl);
  lua_setmetatable(L, copy);
  int kind = bt_def_kind(def, node);
  int keep = lbt_is_custom(L, t->S, copy, kind) || takes_inst(t->S, kind);
  if (keep) {
    lua_pushliteral(L, "inst");
    lua_getiuservalue(L, tree, LBT_UV_INST);
    lua_rawset(L, copy);
  }
  bind(L, tree, copy, node);
  file_obj(L, tree, copy, s, keep);
  lua_replace(L, tpl);
  lua_settop(L, tpl);
}

/* Pushes a view of node state s of a tree built for one entity whose object is gone: an object
 * of the node's class, bound to it, with its name. */
static void push_view(lua_State *L, lbt_tree *t, int tree, int s) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int node = bt_def_node_of_state(def, s);
  lua_createtable(L, 0, 3);
  int view = lua_gettop(L);
  push_class(L, bt_def_kind(def, node));
  lua_setmetatable(L, view);
  lua_pushliteral(L, "name");
  lua_pushstring(L, bt_def_name(def, node));
  lua_rawset(L, view); /* not through the class's __newindex: a script may have replaced it */
  bind(L, tree, view, node);
  file_obj(L, tree, view, s, 0);
}

/* Pushes the original object of state s of a tree built for one entity and returns 1, if it is
 * still alive: it is reached from the root's object through the children lists that objects
 * keep. Otherwise pushes nothing and returns 0. */
static int find_original(lua_State *L, int tree, const bt_def *def, int s) {
  int path[BT_MAX_DEPTH + 1], depth = 0;
  for (int n = bt_def_node_of_state(def, s); n > 0 && depth <= BT_MAX_DEPTH; n = bt_def_up(def, n))
    path[depth++] = bt_def_child_index(def, n);
  if (!push_kept_any(L, tree, 0)) return 0;
  while (depth > 0) {
    if (lua_type(L, -1) != LUA_TTABLE) { /* a list that holds less now: a script edited it */
      lua_pop(L, 1);
      return 0;
    }
    if (lbt_push_children(L, -1) != LUA_TTABLE) {
      lua_pop(L, 2);
      return 0;
    }
    lua_rawgeti(L, -1, path[--depth] + 1);
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
  int node = -1;
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_rawgetp(L, -1, &lbt_key_tree);
    lua_rawgetp(L, -2, &lbt_key_node);
    node = lua_rawequal(L, -2, tree) ? (int)lua_tointeger(L, -1) : -1;
    lua_pop(L, 2);
  }
  if (node < 0 || bt_def_state(def, node) != s) {
    lua_pop(L, 1);
    return 0;
  }
  file_obj(L, tree, lua_gettop(L), s, 0);
  return 1;
}

/* Pushes the node object of state s and returns 1 if it exists; else pushes nothing. */
static int push_existing(lua_State *L, lbt_tree *t, int tree, int s) {
  return push_kept_any(L, tree, s) ||
         (!is_template(t, s) && find_original(L, tree, bt_inst_def(lbt_tree_inst(t)), s));
}

int lbt_push_existing_obj(lua_State *L, lbt_tree *t, int tree, int s) {
  return push_existing(L, t, lua_absindex(L, tree), s);
}

int lbt_is_template_state(const lbt_tree *t, int s) { return is_template(t, s); }

void lbt_push_state_obj(lua_State *L, lbt_tree *t, int tree, int s) {
  tree = lua_absindex(L, tree);
  if (push_existing(L, t, tree, s)) return;
  if (is_template(t, s)) push_copy(L, t, tree, s);
  else push_view(L, t, tree, s);
}

/* Pushes what a new object of state s would take its members from: the template it would copy,
 * or the class of the view it would be. */
static void push_model(lua_State *L, lbt_tree *t, int tree, int s) {
  if (is_template(t, s)) {
    push_template(L, tree, s);
  } else {
    const bt_def *def = bt_inst_def(lbt_tree_inst(t));
    push_class(L, bt_def_kind(def, bt_def_node_of_state(def, s)));
  }
}

int lbt_push_on_stop(lua_State *L, int tree, int state, int make) {
  tree = lua_absindex(L, tree);
  lbt_tree *t = lua_touserdata(L, tree);
  if (!push_existing(L, t, tree, state)) {
    int top = lua_gettop(L);
    push_model(L, t, tree, state);
    int has = lua_istable(L, -1) && lbt_node_member(L, t->S, -1, LBT_KEY_ON_STOP) != LUA_TNIL;
    lua_settop(L, top);
    if (!has) return 0;
    if (!make) return -1;
    lbt_push_state_obj(L, t, tree, state);
  }
  if (lbt_node_member(L, t->S, -1, LBT_KEY_ON_STOP) != LUA_TNIL) return 1;
  lua_pop(L, 2);
  return 0;
}

/* A bound node's `parent` or `children` (which 0 or 1), from its tree: pushes 1 value. */
static void push_relatives(lua_State *L, int obj, int which) {
  obj = lua_absindex(L, obj);
  int node;
  lbt_tree *t = lbt_node_tree(L, obj, &node);
  lua_rawgetp(L, obj, &lbt_key_tree);
  int tree = lua_gettop(L);
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  if (which == 0) {
    int p = bt_def_parent(def, bt_def_state(def, node));
    if (p < 0) lua_pushnil(L);
    else lbt_push_state_obj(L, t, tree, p);
  } else {
    int n = bt_def_child_count(def, node);
    bt_spec spec;
    if (n == 0 && bt_def_spec(def, node, &spec) == BT_OK && !(spec.flags & BT_SPEC_CHILDREN)) {
      lua_pushnil(L); /* a leaf: Don't Starve's has no children list */
      lua_remove(L, tree);
      return;
    }
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
      lbt_push_state_obj(L, t, tree, bt_def_state(def, bt_def_child(def, node, i)));
      lua_rawseti(L, -2, i + 1);
    }
    lua_pushvalue(L, -1); /* kept: a script that edits it edits the node's children */
    if (lbt_is_custom(L, t->S, obj, bt_def_kind(def, node))) { /* its Visit reads it: a field */
      lua_pushliteral(L, "children");
      lua_insert(L, -2);
      lua_rawset(L, obj);
      lbt_children_mark(L, tree); /* a script may edit it */
    } else {
      lua_rawsetp(L, obj, &lbt_key_children);
      lbt_children_watch(L, obj);
    }
  }
  lua_remove(L, tree);
}

/* ---- the classes' metamethods ---- */

int lbt_node_index(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) /* a script may call it by hand, with anything */
    return lbt_typeerror(L, 1, 1, "__index", "node");
  if (lua_getmetatable(L, 1)) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL) return 1;
    lua_pop(L, 2);
  }
  int code = view_code(L, 2);
  if (code == VK_CHILDREN) { /* a bound node's list, watched from the first time a script asks for
                                 it outside every tree (inside one, its nodes' own code reads it) */
    int type = lua_rawgetp(L, 1, &lbt_key_children);
    if (type != LUA_TNIL) {
      if (type == LUA_TTABLE && !index_state(L)->entered) {
        if (lua_getmetatable(L, -1)) lua_pop(L, 1); /* watched, or the script's own */
        else lbt_children_watch(L, 1);
      }
      return 1;
    }
    lua_pop(L, 1);
  }
  if (code == VK_NONE || code == VK_PORTS) return 0;
  int node;
  lbt_tree *t = lbt_node_tree(L, 1, &node);
  if (!t) {
    push_unbound(L, lbt_node_kind(L, 1), code);
    return 1;
  }
  if (code == VK_BOARD) {
    if (!t->board) return 0;
    lua_rawgetp(L, 1, &lbt_key_tree);
    lbt_tree_table(L, lua_gettop(L), LBT_UV_OBJS, 0);
    lua_rawgeti(L, -1, 0);
    return 1;
  }
  if (code == VK_PARENT || code == VK_CHILDREN) {
    push_relatives(L, 1, code == VK_CHILDREN);
    return 1;
  }
  if (code == VK_DATA) {
    if (!has_data(t->S, bt_def_kind(bt_inst_def(lbt_tree_inst(t)), node))) return 0;
    lua_rawgetp(L, 1, &lbt_key_tree);
    lbt_tree_table(L, lua_gettop(L), LBT_UV_OBJS, 0);
    if (lua_isnil(L, -1)) return 1;
    lua_rawgeti(L, -1, lbt_data_key(bt_def_state(bt_inst_def(lbt_tree_inst(t)), node)));
    return 1;
  }
  return view_get(L, t, node, code) > 0 ? 1 : 0;
}

int lbt_node_newindex(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) /* a script may call it by hand, with anything */
    return lbt_typeerror(L, 1, 1, "__newindex", "node");
  int code = view_code(L, 2);
  int node;
  if (code == VK_PORTS) { /* ports given after the constructor: where they were given */
    lbt_note_where(L, 1);
    code = VK_NONE;
  }
  lbt_tree *t = code ? lbt_node_tree(L, 1, &node) : NULL;
  if (t) {
    if (code == VK_DATA && has_data(t->S, bt_def_kind(bt_inst_def(lbt_tree_inst(t)), node))) {
      lua_rawgetp(L, 1, &lbt_key_tree);
      lbt_tree_table(L, lua_gettop(L), LBT_UV_OBJS, 1);
      lua_pushvalue(L, 3);
      lua_rawseti(L, -2, lbt_data_key(bt_def_state(bt_inst_def(lbt_tree_inst(t)), node)));
      return 0;
    }
    if (view_set(L, t, node, code, 3)) return 0;
  }
  lua_settop(L, 3);
  if (t && code == VK_CHILDREN) { /* a new list: the tree compares it at its next call */
    if (lbt_is_custom(L, t->S, 1, bt_def_kind(bt_inst_def(lbt_tree_inst(t)), node))) {
      lua_rawset(L, 1); /* a node written in Lua reads it as a field */
    } else {
      lua_rawsetp(L, 1, &lbt_key_children);
      lbt_children_watch(L, 1);
    }
    lua_rawgetp(L, 1, &lbt_key_tree);
    lbt_children_mark(L, -1);
    return 0;
  }
  lua_rawset(L, 1);
  if (t && code == VK_PARENT) t->strays = 1; /* an event walks up by the field (classes.c, fire) */
  return 0;
}

int lbt_release_stale(lua_State *L, int obj, int *node) {
  obj = lua_absindex(L, obj);
  lua_rawgetp(L, obj, &lbt_key_tree);
  int tree = lua_gettop(L);
  lbt_tree *t = lbt_tree_raw(L, tree);
  if (!t || !t->forwarded || lbt_node_tree(L, obj, node) != t) {
    lua_pop(L, 1);
    return 0;
  }
  /* the relatives first, read from the tree: fields again, as a node of no tree holds them */
  lua_pushliteral(L, "parent");
  if (lua_rawget(L, obj) == LUA_TNIL) {
    lua_pushliteral(L, "parent");
    push_relatives(L, obj, 0);
    lua_rawset(L, obj);
  }
  lua_pushliteral(L, "children");
  if (lua_rawgetp(L, obj, &lbt_key_children) == LUA_TNIL) {
    lua_pop(L, 1);
    push_relatives(L, obj, 1);
  }
  lua_rawset(L, obj);
  lua_pushnil(L);
  lua_rawsetp(L, obj, &lbt_key_children);
  lua_settop(L, tree);
  for (int code = VK_STATUS; code < VK_COUNT; code++) {
    if (code == VK_PARENT || code == VK_CHILDREN || code == VK_LASTRESULT || code == VK_DATA) continue;
    lua_pushstring(L, view_names[code]);
    if (!view_get(L, t, *node, code)) {
      lua_pop(L, 1);
      continue;
    }
    lua_rawset(L, obj);
  }
  lua_pushnil(L);
  lua_rawsetp(L, obj, &lbt_key_tree);
  lua_pushnil(L);
  lua_rawsetp(L, obj, &lbt_key_node);
  return 1;
}

/* ---- live children lists (lbt.h, lbt_children_watch) ----
 * A watched list is an empty table whose items live in a table of their own, at the list's key
 * lbt_key_items, so that every write to it, a child replaced as well as one added or removed, goes
 * through its metamethods: the owner's tree is marked, and compares its lists at its next call
 * (tree.c). The owner is the items' index 0. */

static const char lbt_key_items = 0;

/* Pushes the items of the watched list at list and returns 1; else pushes nothing, returns 0. */
static int push_items(lua_State *L, int list) {
  if (lua_rawgetp(L, list, &lbt_key_items) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}

void lbt_push_list_items(lua_State *L, int list) {
  list = lua_absindex(L, list);
  if (lua_type(L, list) != LUA_TTABLE || !lua_getmetatable(L, list)) { /* a plain list */
    lua_pushvalue(L, list);
    return;
  }
  lua_pop(L, 1);
  if (!push_items(L, list)) lua_pushvalue(L, list);
}

/* Pushes the children list of the node object at obj: its field, or where a bound node keeps it. */
static int push_list(lua_State *L, int obj) {
  lua_pushliteral(L, "children");
  if (lua_rawget(L, obj) != LUA_TNIL) return lua_type(L, -1);
  lua_pop(L, 1);
  return lua_rawgetp(L, obj, &lbt_key_children);
}

int lbt_push_children_at(lua_State *L, int obj, int key) {
  obj = lua_absindex(L, obj);
  lua_pushvalue(L, key);
  int type = lua_rawget(L, obj);
  if (type == LUA_TNIL) {
    lua_pop(L, 1);
    type = lua_rawgetp(L, obj, &lbt_key_children);
  }
  if (type != LUA_TTABLE || !lua_getmetatable(L, -1)) return type; /* a plain list */
  lua_pop(L, 1);
  if (push_items(L, lua_gettop(L))) lua_remove(L, -2);
  return LUA_TTABLE;
}

int lbt_push_children(lua_State *L, int obj) {
  obj = lua_absindex(L, obj);
  lua_pushliteral(L, "children");
  int type = lbt_push_children_at(L, obj, lua_gettop(L));
  lua_remove(L, -2);
  return type;
}

void lbt_children_mark(lua_State *L, int tree) {
  lbt_tree *t = lbt_tree_test(L, tree);
  if (t && !t->collected) t->edited = 1;
}

/* The list's owner (a node object) at items[0], whose items are at items: pushed, and returned as
 * bound, its tree (NULL for none) and node. */
static lbt_tree *items_owner(lua_State *L, int items, int *node) {
  lua_rawgeti(L, items, 0);
  return lbt_node_tree(L, -1, node);
}

/* Raises, if the list's owner (at owner) is a shared definition's node (a template, or an entity's
 * copy of one), that its children cannot change. */
static void check_not_shared(lua_State *L, lbt_tree *t, int node, int owner) {
  int shared = lua_rawgetp(L, owner, &lbt_key_def) != LUA_TNIL;
  lua_pop(L, 1);
  if (!shared && t) shared = is_template(t, bt_def_state(bt_inst_def(lbt_tree_inst(t)), node));
  if (!shared) return;
  lua_getfield(L, owner, "name");
  luaL_error(L, "node '%s' belongs to a shared definition (bt.define): its children cannot change (edit "
                "the nodes before bt.define, or build the tree for one entity: BT(inst, root))",
             luaL_tolstring(L, -1, NULL));
}

static int list_index(lua_State *L) {
  if (!push_items(L, 1)) return 0;
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int list_newindex(lua_State *L) {
  lua_settop(L, 3);
  if (!push_items(L, 1)) return 0; /* 4 */
  int node;
  lbt_tree *t = items_owner(L, 4, &node); /* 5: the owner */
  if (lua_type(L, 2) == LUA_TNUMBER && lua_tointeger(L, 2) == 0)
    return luaL_error(L, "a children list has no index 0");
  check_not_shared(L, t, node, 5);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, 4);
  if (t) {
    lua_rawgetp(L, 5, &lbt_key_tree); /* 6 */
    lbt_children_mark(L, 6);
    /* The tree holds the owner from now on: until the next think reads the list, the list is the
     * node's children, and an owner held weakly (a view, the root's object) that the collector
     * took would take the edit with it. */
    if (lbt_tree_test(L, 6)) file_obj(L, 6, 5, bt_def_state(bt_inst_def(lbt_tree_inst(t)), node), 1);
  }
  return 0;
}

static int list_len(lua_State *L) {
  lua_pushinteger(L, push_items(L, 1) ? (lua_Integer)lua_rawlen(L, -1) : 0);
  return 1;
}

/* __pairs: the items, as next walks them, less the owner */
static int list_next(lua_State *L) {
  lua_settop(L, 2);
  while (lua_next(L, 1)) {
    if (!(lua_type(L, -2) == LUA_TNUMBER && lua_tointeger(L, -2) == 0)) return 2;
    lua_pop(L, 1);
  }
  return 0;
}

static int list_pairs(lua_State *L) {
  lua_pushcfunction(L, list_next);
  if (!push_items(L, 1)) lua_newtable(L);
  lua_pushnil(L);
  return 3;
}

static const luaL_Reg list_metamethods[] = {
    {"__index", list_index}, {"__newindex", list_newindex}, {"__len", list_len}, {"__pairs", list_pairs},
    {NULL, NULL},
};

static void open_lists(lua_State *L) {
  lbt_registry_get(L, LBT_REG_LISTMETA);
  luaL_setfuncs(L, list_metamethods, 0);
  lua_pop(L, 1);
}

void lbt_children_watch(lua_State *L, int obj) {
  obj = lua_absindex(L, obj);
  int top = lua_gettop(L);
  if (push_list(L, obj) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  int list = top + 1;
  if (push_items(L, list)) { /* watched already: obj owns it now */
    lua_pushvalue(L, obj);
    lua_rawseti(L, -2, 0);
    lua_settop(L, top);
    return;
  }
  if (lua_getmetatable(L, list)) { /* the script's own */
    lua_settop(L, top);
    return;
  }
  lua_Integer n = (lua_Integer)lua_rawlen(L, list);
  lua_createtable(L, (int)n, 1); /* the items, moved out of the list */
  int items = list + 1;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    lua_rawseti(L, items, i);
  }
  for (lua_Integer i = n; i >= 1; i--) {
    lua_pushnil(L);
    lua_rawseti(L, list, i);
  }
  lua_pushnil(L);
  while (lua_next(L, list)) { /* keys beyond the sequence (a script's): moved too */
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, items);
    lua_pushvalue(L, -1);
    lua_pushnil(L);
    lua_rawset(L, list); /* an existing field cleared during next: allowed */
  }
  lua_pushvalue(L, obj);
  lua_rawseti(L, items, 0);
  lua_rawsetp(L, list, &lbt_key_items); /* the list's only key: its emptied array goes */
  lbt_registry_get(L, LBT_REG_LISTMETA);
  lua_setmetatable(L, list);
  lua_settop(L, top);
}


/* ---- binding the objects of a new tree ---- */

/* Adopts the field of node `node`'s object at obj whose key (a string) is at -2 and value at -1,
 * its view code (LBT_REG_CTORFIELDS) `code`: state the object held before it was in a tree (the
 * lasttime its constructor drew, a status or trigger set by a script, an event's data) moves into
 * the instance, and the field goes. Returns whether the field stays a field the tree does not
 * know: one a script added. Pushes nothing. */
static int adopt_field(lua_State *L, lbt_tree *t, int tree, int obj, int node, int code) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  if (code == VK_PARENT) { /* read from the tree from now on (push_relatives), if it is there */
    if (bt_def_parent(def, bt_def_state(def, node)) < 0 && lbt_is_node(L, -1)) {
      t->strays = 1;
      return 1;
    }
    lua_pushvalue(L, -2);
    lua_pushnil(L);
    lua_rawset(L, obj);
    return 0;
  }
  if (code == VK_DATA) {
    if (!has_data(t->S, bt_def_kind(def, node))) return 1;
    lbt_tree_table(L, tree, LBT_UV_OBJS, 1);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, lbt_data_key(bt_def_state(def, node)));
    lua_pop(L, 1);
  } else if (code == VK_LASTRESULT) {
    return 1;
  } else if (code == VK_CHILDREN) { /* kept where no rawset reaches it (adopt_object) */
  } else if (!view_set(L, t, node, code, lua_gettop(L))) {
    return 1; /* a field the node does not have stays where it is */
  }
  lua_pushvalue(L, -2);
  lua_pushnil(L);
  lua_rawset(L, obj);
  return 0;
}

/* Binds the object at obj to node `node` of the tree: its state moves into the instance and its
 * parent goes (read from the tree from now on, so that holding a node holds its subtree, its
 * children, but not the tree above it). Returns whether the tree must hold the object strongly:
 * it is written in Lua (it keeps its own state), or its class takes an inst (it holds the entity,
 * and maybe a listener), or it carries fields a script added (an OnStop, for instance). Any other
 * node object can be made anew from the definition when asked for, so the tree holds it only
 * weakly. One walk over the object's fields, each looked up in LBT_REG_CTORFIELDS (known_field).
 * marked: its lbt_key_node holds node already (the compiler's graph id, which is the node's index
 * in a tree without shared nodes). */
static int adopt_object(lua_State *L, lbt_tree *t, int tree, int obj, int node, int marked) {
  int kind = bt_def_kind(bt_inst_def(lbt_tree_inst(t)), node);
  int keep = takes_inst(t->S, kind);
  int custom = lbt_is_custom(L, t->S, obj, kind);
  keep = keep || custom;
  lua_pushnil(L); /* its children list */
  int list = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, obj)) {
    if (lua_type(L, -2) == LUA_TSTRING) { /* not one of the binding's keys */
      int code = known_field(t->S, lua_tostring(L, -2));
      if (code == VK_CHILDREN && custom) code = VK_NONE; /* read by its Visit: a field (below) */
      if (code == VK_CHILDREN) lua_copy(L, -1, list);
      if (code < 0) keep = 1;
      else if (code != VK_NONE && code != VK_PORTS && adopt_field(L, t, tree, obj, node, code)) keep = 1;
    }
    lua_pop(L, 1);
  }
  /* a bound node keeps its list where no rawset reaches it, so that `node.children = list` goes
   * through lbt_node_newindex; it is watched once a script asks for it (lbt_node_index). A node
   * written in Lua, whose Visit reads its list at every think, keeps it as a field: a script's
   * edit of it is seen after the tree's root was read (tree.c, tree_index) */
  if (!lua_isnil(L, list)) lua_rawsetp(L, obj, &lbt_key_children);
  else lua_pop(L, 1);
  lua_pushvalue(L, tree);
  lua_rawsetp(L, obj, &lbt_key_tree);
  if (!marked) {
    lua_pushinteger(L, node);
    lua_rawsetp(L, obj, &lbt_key_node);
  }
  return keep;
}

void lbt_adopt_objects(lua_State *L, lbt_tree *t, int tree, int def_idx, const lbt_def *d) {
  tree = lua_absindex(L, tree);
  def_idx = lua_absindex(L, def_idx);
  const bt_def *def = d->def;
  luaL_checkstack(L, 10, "bt: no room on the Lua stack");
  lua_getiuservalue(L, def_idx, LBT_DEF_UV_TEMPLATES);
  int objs = lua_gettop(L);
  int states = bt_def_states(def);
  for (int s = 0; s < states; s++) {
    if (is_template(t, s)) continue; /* a subtree's: copied on use */
    lua_rawgeti(L, objs, s + 1);
    int obj = lua_gettop(L);
    int node = bt_def_node_of_state(def, s);
    /* the objects the tree needs are held; the others are found from the root while whoever
     * holds them does (find_original), and made anew as views if the tree is asked for them later */
    int keep = adopt_object(L, t, tree, obj, node, bt_def_graph_id(def, s) == node);
    if (keep) file_obj(L, tree, obj, s, 1);
    else if (s == 0) file_root(L, tree, obj);
    lua_pop(L, 1);
    if (d->slot_base) { /* the definition keeps the subtrees' templates only */
      lua_pushnil(L);
      lua_rawseti(L, objs, s + 1);
    }
  }
  lua_settop(L, objs - 1);
  if (!d->slot_base) {
    lua_pushnil(L);
    lua_setiuservalue(L, def_idx, LBT_DEF_UV_TEMPLATES);
  }
}

/* Removes from obj the raw fields that are views of the node's state in a tree: kept, they would
 * hide the state of the copies made from a template. Fields the node's kind does not have stay. */
static void strip_views(lua_State *L, const bt_def *def, int node, int obj) {
  int kind = bt_def_kind(def, node);
  const lbt_state *S = lbt_state_get(L);
  for (int code = VK_NONE + 1; code < VK_COUNT; code++) {
    if (code == VK_PARENT || code == VK_CHILDREN || code == VK_BOARD) continue;
    int applies = code == VK_STATUS || code == VK_LASTRESULT ||
                  (code == VK_DATA ? has_data(S, kind) : bt_node_has_field(def, node, view_fields[code]));
    if (!applies) continue;
    lua_pushstring(L, view_names[code]);
    lua_pushnil(L);
    lua_rawset(L, obj);
  }
}

void lbt_make_template(lua_State *L, const bt_def *def, int node, int obj, int defud) {
  obj = lua_absindex(L, obj);
  defud = lua_absindex(L, defud);
  strip_views(L, def, node, obj);
  lua_pushvalue(L, defud);
  lua_rawsetp(L, obj, &lbt_key_def);
  lua_pushinteger(L, node);
  lua_rawsetp(L, obj, &lbt_key_node);
  lbt_children_watch(L, obj); /* a write to it is an error */
}
