/* SPDX-License-Identifier: MIT */
/*
 * compile.c: turns a graph of node objects into a definition (a core bt_def, the leaf functions,
 * and the node objects by state), held by a definition userdata. BT(inst, root) compiles the
 * objects for one entity; bt.define(root) compiles them once as templates that any number of
 * entities share through BT(inst, definition). bt.define(root, name) also names the tree: the
 * core's library (bt_lib) resolves every subtree node by its name when a tree is built, and the
 * definition says where each copied node came from, so that its object is that subtree's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbt.h"

#define HOLDER_META "bt.defholder"
#define GRAPH_META "bt.graphbox" /* a bt_graph * */
#define LIB_META "bt.library"    /* a bt_lib * */

/* ---- boxes: core objects owned by userdata, so that an error cannot leak them ---- */

static int graph_box_gc(lua_State *L) {
  bt_graph **box = luaL_testudata(L, 1, GRAPH_META);
  if (box) {
    bt_graph_free(*box);
    *box = NULL;
  }
  return 0;
}

static int lib_box_gc(lua_State *L) {
  bt_lib **box = luaL_testudata(L, 1, LIB_META);
  if (box) {
    bt_lib_free(*box);
    *box = NULL;
  }
  return 0;
}

static bt_lib *get_lib(lua_State *L) {
  lbt_registry_get(L, LBT_REG_LIB);
  bt_lib *lib = *(bt_lib **)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return lib;
}

/* ---- sharing compiled definitions ----
 * Entities whose brain builds its tree anew (Don't Starve's way) compile the same tree again and
 * again; equal definitions share one bt_def, held by a holder that a weak cache finds by hash. */

typedef struct def_holder {
  bt_def *def;
} def_holder;

static int holder_gc(lua_State *L) {
  def_holder *h = lua_touserdata(L, 1);
  bt_def_release(h->def);
  h->def = NULL;
  return 0;
}

/* Replaces d->def by an equal one already in use, or makes it the one others will share. */
static void share_def(lua_State *L, lbt_def *d, int ud) {
  lua_Integer hash = (lua_Integer)bt_def_hash(d->def);
  lbt_registry_get(L, LBT_REG_DEFCACHE);
  int cache = lua_gettop(L);
  lua_rawgeti(L, cache, hash);
  def_holder *h = lua_touserdata(L, -1);
  if (h && h->def && bt_def_equal(h->def, d->def)) {
    bt_def_release(d->def);
    d->def = h->def;
    bt_def_retain(d->def);
  } else {
    lua_pop(L, 1);
    h = lua_newuserdatauv(L, sizeof *h, 0);
    h->def = d->def;
    bt_def_retain(h->def);
    luaL_setmetatable(L, HOLDER_META);
    lua_pushvalue(L, -1);
    lua_rawseti(L, cache, hash);
  }
  lua_setiuservalue(L, ud, LBT_DEF_UV_HOLDER);
  lua_settop(L, cache - 1);
}

/* ---- the graph of the root's own objects ---- */

typedef struct builder {
  lua_State *L;
  const lbt_state *S;
  int keys; /* lbt_push_spec_keys's strings */
  bt_graph *g;
  int objs; /* table: graph id + 1 -> node object; each object's lbt_key_node is its graph id
               meanwhile (bound to a tree, it becomes its node's index there) */
  lbt_slots slots;
  int shared;
  const char *fname; /* "BT" or "define", for messages */
  int old;           /* a tree rebuilt (lbt_compile_again): table object -> its node in od, or 0 */
  const bt_def *od;
  int others;        /* and object -> {definition, node, slot offset}: nodes of other trees */
  int board;         /* the bt.Blackboard whose keys the graph declares, or 0 */
} builder;

static void push_name(lua_State *L, int obj) {
  lua_getfield(L, obj, "name");
  luaL_tolstring(L, -1, NULL);
  lua_remove(L, -2);
}

/* Checks that an object of the root's own may go into this tree. */
static void check_own(builder *b, int obj) {
  lua_State *L = b->L;
  int node;
  if (lua_rawgetp(L, obj, &lbt_key_tree) != LUA_TNIL && lbt_release_stale(L, obj, &node)) {
    lua_pop(L, 2); /* taken out of a tree rebuilt since: a node of none now */
    lua_rawgetp(L, obj, &lbt_key_tree);
  }
  if (!lua_isnil(L, -1)) {
    push_name(L, obj);
    luaL_error(L, "%s: node '%s' already belongs to a tree (a node can be in one BT only)", b->fname,
               lua_tostring(L, -1));
  }
  if (lua_rawgetp(L, obj, &lbt_key_def) != LUA_TNIL) {
    push_name(L, obj);
    luaL_error(L, "%s: node '%s' already belongs to a definition (use BT(inst, definition))",
               b->fname, lua_tostring(L, -1));
  }
  lua_pop(L, 2);
}

/* The graph id of the node object at obj (absolute) among the first n collected, or -1: its mark
 * (lbt_key_node) is believed only if that id's object is this one, so that a mark left by a
 * compile that failed, or a node index in another tree, means nothing. */
static int graph_id(builder *b, int obj, int n) {
  lua_State *L = b->L;
  int isint = 0;
  lua_Integer id = -1;
  if (lua_rawgetp(L, obj, &lbt_key_node) == LUA_TNUMBER) id = lua_tointegerx(L, -1, &isint);
  lua_pop(L, 1);
  if (!isint || id < 0 || id >= n) return -1;
  lua_rawgeti(L, b->objs, id + 1);
  int same = lua_rawequal(L, -1, obj);
  lua_pop(L, 1);
  return same ? (int)id : -1;
}

/* Pushes the children of the object at obj (absolute), nil or a table; returns their count. */
static lua_Integer push_children(builder *b, int obj) {
  lua_State *L = b->L;
  int type = lbt_push_children_at(L, obj, b->keys + LBT_SPEC_CHILDREN);
  if (type != LUA_TNIL && type != LUA_TTABLE) {
    push_name(L, obj);
    return luaL_error(L, "%s: node '%s' has children that are no table", b->fname, lua_tostring(L, -1));
  }
  return type == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, -1) : 0;
}

/* Pushes child k of the object at obj, whose children are at children, and returns its graph id
 * among the first n collected, or -1. Raises if it is no node. */
static int child_id(builder *b, int obj, int children, lua_Integer k, int n) {
  lua_State *L = b->L;
  int child = lua_gettop(L) + 1;
  int node = lua_rawgeti(L, children, k) == LUA_TTABLE && lua_getmetatable(L, child);
  if (node) { /* lbt_is_node */
    lua_pushvalue(L, b->keys + LBT_SPEC_NODE);
    lua_rawget(L, -2);
    node = lua_toboolean(L, -1);
    lua_settop(L, child);
  }
  if (!node) {
    push_name(L, obj);
    return luaL_error(L, "%s: child %I of node '%s' is a %s, not a node", b->fname, k,
                      lua_tostring(L, -1), luaL_typename(L, child));
  }
  return graph_id(b, child, n);
}

/* Checks the object at obj (absolute) and gives it the graph id n. */
static void add_object(builder *b, int obj, int n) {
  lua_State *L = b->L;
  check_own(b, obj);
  lua_pushinteger(L, n);
  lua_rawsetp(L, obj, &lbt_key_node);
  lua_pushvalue(L, obj);
  lua_rawseti(L, b->objs, n + 1);
}

static size_t sign_node(builder *b, bt_buf *sig, int obj, lua_Integer nchildren, int n);
static void sign_child(bt_buf *sig, size_t at, lua_Integer k, int id);

/* Collects the object at obj (absolute: a node not collected yet, at the given depth) and then,
 * depth first, each of its children not collected yet: graph ids in pre-order from *n on, so that
 * in a tree without shared nodes a node's graph id is its index and its state's. With sig, also
 * reads each object into b's slots and writes its record into sig (sign_node); returns 0 if the
 * shape is beyond a signature (and stops). Raises what is wrong with an object. */
static int collect_from(builder *b, int obj, int depth, int *n, bt_buf *sig) {
  lua_State *L = b->L;
  if (depth > BT_MAX_DEPTH) /* as bt_def_create would say, before C's stack runs out */
    return luaL_error(L, "%s: tree is deeper than %d levels", b->fname, BT_MAX_DEPTH);
  luaL_checkstack(L, 8, "bt: tree too deep for the Lua stack");
  add_object(b, obj, (*n)++);
  int top = lua_gettop(L);
  lua_Integer count = push_children(b, obj);
  int children = top + 1;
  size_t at = sig ? sign_node(b, sig, obj, count, *n) : 0; /* where its children's ids go */
  if (sig && !at) return 0;
  for (lua_Integer k = 1; k <= count; k++) {
    int id = child_id(b, obj, children, k, *n);
    if (id < 0) {
      id = *n;
      if (!collect_from(b, lua_gettop(L), depth + 1, n, sig)) return 0;
    }
    if (sig) sign_child(sig, at, k, id);
    lua_settop(L, children);
  }
  lua_settop(L, top);
  return 1;
}

/* Gives every node object reachable from the one at root a graph id (collect_from); returns their
 * count. */
static int collect(builder *b, int root) {
  int n = 0;
  collect_from(b, root, 0, &n, NULL);
  return n;
}

/* The spec of a node of the tree being rebuilt (b->old): the one it was made with, whose functions
 * are in the slots the new definition's begin with. Returns 0 for another object. */
static int old_spec(builder *b, int obj, bt_spec *s) {
  lua_State *L = b->L;
  if (!b->old) return 0;
  lua_pushvalue(L, obj);
  if (lua_rawget(L, b->old) == LUA_TNUMBER) {
    bt_def_spec(b->od, (int)lua_tointeger(L, -1), s);
    lua_pop(L, 1);
    return 1;
  }
  lua_pushvalue(L, obj);
  if (lua_rawget(L, b->others) != LUA_TTABLE) {
    lua_pop(L, 2);
    return 0;
  }
  lua_rawgeti(L, -1, 1);
  lua_rawgeti(L, -2, 2);
  lua_rawgeti(L, -3, 3);
  bt_def_spec(lua_touserdata(L, -3), (int)lua_tointeger(L, -2), s);
  intptr_t offset = (intptr_t)lua_tointeger(L, -1); /* its tree's functions come after ours */
  if (s->ud) s->ud = (void *)((intptr_t)s->ud + offset);
  if (s->ud2) s->ud2 = (void *)((intptr_t)s->ud2 + offset);
  lua_pop(L, 5);
  return 1;
}

static void add_node(builder *b, int obj) {
  lua_State *L = b->L;
  bt_spec s;
  int old = old_spec(b, obj, &s);
  if (!old) lbt_class_spec(L, b->S, obj, b->shared, &b->slots, b->fname, &s, b->keys, b->board);
  int id = bt_graph_add(b->g, &s);
  if (!old) lua_pop(L, 1); /* the name */
  if (id < 0) {
    push_name(L, obj);
    luaL_error(L, "%s: cannot add node '%s'", b->fname, lua_tostring(L, -1));
  }
}

static void link_children(builder *b, int obj, int id) {
  lua_State *L = b->L;
  if (lbt_push_children_at(L, obj, b->keys + LBT_SPEC_CHILDREN) == LUA_TTABLE) {
    int n = (int)lua_rawlen(L, -1);
    int stack_ids[16];
    int *kids = n <= 16 ? stack_ids : lua_newuserdatauv(L, (size_t)n * sizeof(int), 0);
    int children = lua_absindex(L, n <= 16 ? -1 : -2);
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, children, k + 1);
      kids[k] = graph_id(b, lua_gettop(L), INT32_MAX);
      lua_pop(L, 1);
    }
    bt_graph_set_children(b->g, id, kids, n);
    if (n > 16) lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static void link_parent(builder *b, int obj, int id) {
  lua_State *L = b->L;
  lua_pushvalue(L, b->keys + LBT_SPEC_PARENT);
  int parent = lua_rawget(L, obj) == LUA_TTABLE ? graph_id(b, lua_gettop(L), INT32_MAX) : -1;
  lua_pop(L, 1);
  bt_graph_set_parent(b->g, id, parent);
}

/* ---- what each state of a new definition is made of ---- */

/* Pushes the definition registered as the string at name, or nil. */
static void push_named(lua_State *L, int name) {
  name = lua_absindex(L, name);
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_pushvalue(L, name);
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

/* Pushes the subtrees table of the definition at ud (LBT_DEF_UV_SUBTREES), made now if create,
 * or nil. */
static void push_subtrees(lua_State *L, int ud, int create) {
  ud = lua_absindex(L, ud);
  if (lua_getiuservalue(L, ud, LBT_DEF_UV_SUBTREES) != LUA_TNIL || !create) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, 4);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, ud, LBT_DEF_UV_SUBTREES);
}

/* Sets field name of the subtrees table of the definition at ud to the value on the top (popped). */
static void set_subtrees_field(lua_State *L, int ud, const char *name) {
  push_subtrees(L, ud, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

/* Pushes field name of the subtrees table of the definition at ud, or nil. */
static void push_subtrees_field(lua_State *L, int ud, const char *name) {
  push_subtrees(L, ud, 0);
  if (!lua_isnil(L, -1)) lua_getfield(L, -1, name);
  else lua_pushnil(L);
  lua_remove(L, -2);
}

/* Gives the definition at ud its templates by state: the root's own objects (made templates if
 * the definition is shared), and for each copy of a named subtree, that subtree's object.
 * Returns how many states are copies. */
static int set_templates(builder *b, lbt_def *d, int ud) {
  lua_State *L = b->L;
  const bt_def *def = d->def;
  int states = bt_def_states(def), copies = 0;
  if (!d->shared) { /* a tree's own objects, each state's at its graph id: the objects as they are */
    int s = 0, id = -1;
    while (s < states && !bt_def_origin(def, s, &id) && id == s) s++;
    if (s == states) {
      lua_pushvalue(L, b->objs);
      lua_setiuservalue(L, ud, LBT_DEF_UV_TEMPLATES);
      return 0;
    }
  }
  luaL_checkstack(L, 8, "bt: no room on the Lua stack");
  lua_createtable(L, states, 0);
  int templates = lua_gettop(L);
  for (int s = 0; s < states; s++) {
    int id;
    const char *from = bt_def_origin(def, s, &id);
    if (!from) {
      lua_rawgeti(L, b->objs, id + 1);
      if (d->shared) lbt_make_template(L, def, bt_def_node_of_state(def, s), -1, ud);
    } else {
      copies++;
      lua_pushstring(L, from);
      push_named(L, -1);
      push_subtrees_field(L, -1, "objs");
      lua_rawgeti(L, -1, id + 1);
      lua_replace(L, -4);
      lua_pop(L, 2);
    }
    lua_rawseti(L, templates, s + 1);
  }
  lua_setiuservalue(L, ud, LBT_DEF_UV_TEMPLATES);
  return copies;
}

/* For a definition that runs named subtrees: the definitions it ran (uses), and the functions of
 * each appended to its slots, where its copies' nodes find them (slot_base). */
static void link_copies(builder *b, lbt_def *d, int ud) {
  lua_State *L = b->L;
  const bt_def *def = d->def;
  int states = bt_def_states(def), nnodes = bt_def_size(def);
  luaL_checkstack(L, 12, "bt: no room on the Lua stack");
  int *state_base = lua_newuserdatauv(L, (size_t)states * sizeof(int), 0);
  lua_newtable(L); /* subtree name -> the slot its functions follow */
  int bases = lua_gettop(L);
  lua_newtable(L);
  int uses = lua_gettop(L);
  for (int s = 0; s < states; s++) {
    const char *from = bt_def_origin(def, s, NULL);
    state_base[s] = 0;
    if (!from) continue;
    lua_pushstring(L, from);
    int name = lua_gettop(L);
    lua_pushvalue(L, name);
    if (lua_rawget(L, bases) == LUA_TNIL) { /* the first copy of it: its functions come next */
      push_named(L, name);
      lua_pushvalue(L, name);
      lua_pushvalue(L, -2);
      lua_rawset(L, uses);
      lua_pushvalue(L, name);
      lua_pushinteger(L, b->slots.n);
      lua_rawset(L, bases);
      lua_getiuservalue(L, -1, LBT_DEF_UV_FNS);
      for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, -1); i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lbt_slot_add(&b->slots);
      }
      lua_pushvalue(L, name);
      lua_rawget(L, bases);
    }
    state_base[s] = (int)lua_tointeger(L, -1);
    lua_settop(L, name - 1);
  }
  int *slot_base = lua_newuserdatauv(L, (size_t)nnodes * sizeof(int), 0);
  for (int n = 0; n < nnodes; n++) slot_base[n] = state_base[bt_def_state(def, n)];
  d->slot_base = slot_base;
  set_subtrees_field(L, ud, "slots");
  lua_pushvalue(L, uses);
  set_subtrees_field(L, ud, "uses");
  lua_settop(L, bases - 2);
}

/* Gives the definition at ud the builder's bt.Blackboard (its trees' boards read its keys). */
static void set_board(builder *b, int ud) {
  if (!b->board) return;
  lua_pushvalue(b->L, b->board);
  lua_setiuservalue(b->L, ud, LBT_DEF_UV_BOARD);
}

/* Gives the definition at ud its leaf functions, exactly sized: every tree of a Don't Starve brain
 * has a table of them. */
static void set_functions(builder *b, int ud) {
  lua_State *L = b->L;
  lua_createtable(L, b->slots.n, 0);
  for (int i = 1; i <= b->slots.n; i++) {
    lua_rawgeti(L, b->slots.table, i);
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, ud, LBT_DEF_UV_FNS);
}

/* ---- trees built for one entity: a bt_def per shape ----
 * A brain that builds its tree anew for each entity (Don't Starve's way) gives BT objects of the
 * same shape again and again. While the objects are read, their shape (each node's spec with its
 * name spelled out, its parent and children by graph id) is written into a signature; the bt_def
 * of a shape seen before is found by its signature (LBT_REG_SHAPES, by the signature's hash), so
 * that a graph and a bt_def are built only for a new shape. The definitions of its trees hold the
 * shape (LBT_DEF_UV_HOLDER), and the shape holds the bt_def's holder: the shape is known while a
 * tree of it lives. */

#define SIGNATURE_META "bt.signature" /* a signature being written */
#define SHAPE_META "bt.shape"

/* A shape: its bt_def (released when the shape is collected) and its signature. Its user value is
 * the bt_def's holder (share_def). */
typedef struct shape {
  def_holder h; /* first: holder_gc frees a shape too */
  size_t len;
  char signature[];
} shape;

/* Frees the memory of the signature at idx, a box (at once: the collector does not see it). */
static void signature_free(lua_State *L, int idx) {
  bt_buf *sig = luaL_testudata(L, idx, SIGNATURE_META);
  if (sig) bt_buf_free(sig);
}

static int signature_gc(lua_State *L) {
  signature_free(L, 1);
  return 0;
}

static void signature_add(lua_State *L, bt_buf *sig, const void *p, size_t n) {
  if (bt_buf_append(sig, p, n) != BT_OK) luaL_error(L, "not enough memory");
}

/* What a node writes into a signature, followed by its name, its blackboard's texts (sign_board)
 * and its children's graph ids. Made of zeroed memory, so that its padding is always the same. */
typedef struct signature_node {
  bt_spec spec; /* name NULL, and the pointers of its blackboard's texts */
  size_t name_len;
  int nchildren, parent;
  int texts; /* its blackboard's texts follow its name: ports, where, a watched key and its value */
} signature_node;

/* Writes a text (NULL: none) into the signature, its length first. */
static void sign_text(lua_State *L, bt_buf *sig, const char *text) {
  size_t len = text ? strlen(text) : (size_t)-1;
  signature_add(L, sig, &len, sizeof len);
  if (text) signature_add(L, sig, text, len);
}

/* The texts of a spec's blackboard: its ports, where, and a watched key and its string value. */
typedef struct board_texts {
  const bt_port *ports;
  int nports;
  const char *where, *key, *value;
} board_texts;

/* Takes the texts out of the spec (its pointers cleared) into t; returns whether it has any. */
static int take_texts(bt_spec *s, board_texts *t) {
  if (!s->nports && !s->where && !s->key && s->value.type != BT_KEY_STRING) return 0;
  *t = (board_texts){s->ports, s->nports, s->where, s->key,
                     s->value.type == BT_KEY_STRING ? s->value.as.string : NULL};
  s->ports = NULL;
  s->where = s->key = NULL;
  if (t->value) s->value.as.string = NULL;
  return 1;
}

/* Writes the texts into the signature. */
static void sign_board(lua_State *L, bt_buf *sig, const board_texts *t) {
  for (int i = 0; i < t->nports; i++) {
    bt_port p = t->ports[i];
    sign_text(L, sig, p.key);
    p.key = NULL;
    signature_add(L, sig, &p, sizeof p);
  }
  sign_text(L, sig, t->where);
  sign_text(L, sig, t->key);
  sign_text(L, sig, t->value);
}

/* Writes the declaration at board (0: none) into the signature: the trees of one shape declare
 * the same keys. */
static void sign_declaration(lua_State *L, bt_buf *sig, int board) {
  const lbt_board *b = board ? lua_touserdata(L, board) : NULL;
  int n = b ? b->nkeys : 0;
  signature_add(L, sig, &n, sizeof n);
  for (int k = 0; k < n; k++) {
    sign_text(L, sig, b->keys[k].name);
    int tf[2] = {b->keys[k].type, (int)b->keys[k].flags};
    signature_add(L, sig, tf, sizeof tf);
  }
}

/* Writes the record of the object at obj into the signature: its spec, name and parent, and
 * room for the ids of its nchildren children (sign_child); n objects are collected so far. Returns
 * where the room begins, or 0 if the object's shape is beyond a signature: it is a subtree node
 * (what it runs is the library's), or its parent was not collected before it (in a tree, the node
 * that lists a child is collected before it). */
static size_t sign_node(builder *b, bt_buf *sig, int obj, lua_Integer nchildren, int n) {
  lua_State *L = b->L;
  signature_node r;
  lbt_class_spec(L, b->S, obj, 0, &b->slots, b->fname, &r.spec, b->keys, b->board); /* zeroes r.spec first */
  const char *name = r.spec.name;
  memset((char *)&r + sizeof r.spec, 0, sizeof r - sizeof r.spec);
  r.spec.name = NULL;
  board_texts texts = {NULL, 0, NULL, NULL, NULL}; /* the blackboard's texts, written after the name */
  r.texts = take_texts(&r.spec, &texts);
  r.name_len = strlen(name);
  r.nchildren = (int)nchildren;
  lua_pushvalue(L, b->keys + LBT_SPEC_PARENT);
  r.parent = lua_rawget(L, obj) == LUA_TTABLE ? graph_id(b, lua_gettop(L), n) : -2;
  lua_pop(L, 1);
  if (bt_kind_has(r.spec.kind, BT_KIND_INCLUDES) || r.parent == -1) {
    lua_pop(L, 1); /* the name */
    return 0;
  }
  if (r.parent == -2) r.parent = -1;
  signature_add(L, sig, &r, sizeof r);
  signature_add(L, sig, name, r.name_len);
  if (r.texts) sign_board(L, sig, &texts);
  lua_pop(L, 1); /* the name */
  size_t at = sig->len;
  for (lua_Integer k = 0; k < nchildren; k++) {
    int none = -1;
    signature_add(L, sig, &none, sizeof none);
  }
  return at;
}

/* Writes the id of child k (1-based) of a node into the room sign_node made at `at`. */
static void sign_child(bt_buf *sig, size_t at, lua_Integer k, int id) {
  memcpy(sig->data + at + (size_t)(k - 1) * sizeof id, &id, sizeof id);
}

/* Collects the objects under root as collect does, reads each into b's slots, and pushes the
 * signature of their shape (a box of SIGNATURE_META), or nil for a shape beyond a signature
 * (sign_node). */
static void push_signature(builder *b, int root) {
  lua_State *L = b->L;
  bt_buf *sig = lua_newuserdatauv(L, sizeof *sig, 0);
  memset(sig, 0, sizeof *sig);
  luaL_setmetatable(L, SIGNATURE_META);
  /* 4 KiB in one allocation, enough for most trees */
  if (bt_buf_reserve(sig, 4095) != BT_OK) luaL_error(L, "not enough memory");
  int box = lua_gettop(L);
  int n = 0;
  sign_declaration(L, sig, b->board);
  if (!collect_from(b, root, 0, &n, sig)) {
    lua_settop(L, box - 1);
    lua_pushnil(L);
  }
}

/* The hash of a signature: 64 bits at a time (its buffer is malloc's, aligned). */
static lua_Integer signature_hash(const bt_buf *sig) {
  uint64_t h = 14695981039346656037u ^ sig->len;
  size_t words = sig->len / 8;
  for (size_t i = 0; i < words; i++) {
    uint64_t w;
    memcpy(&w, sig->data + 8 * i, 8);
    h = (h ^ w) * 1099511628211u;
    h ^= h >> 29;
  }
  for (size_t i = words * 8; i < sig->len; i++) h = (h ^ (unsigned char)sig->data[i]) * 1099511628211u;
  return (lua_Integer)h;
}

/* Pushes the shape of the signature at sig (a box), or nil. */
static void push_shape(lua_State *L, int sig) {
  const bt_buf *g = lua_touserdata(L, sig);
  lbt_registry_get(L, LBT_REG_SHAPES);
  lua_rawgeti(L, -1, signature_hash(g));
  lua_remove(L, -2);
  const shape *known = luaL_testudata(L, -1, SHAPE_META);
  if (!known || !known->h.def || known->len != g->len || memcmp(known->signature, g->data, g->len) != 0) {
    lua_pop(L, 1);
    lua_pushnil(L);
  }
}

/* Pushes a definition of b's objects (read by push_signature, whose signature is at sig) with the
 * bt_def of their shape and returns 1, if it was seen before; else returns 0. */
static int compile_known(builder *b, int sig) {
  lua_State *L = b->L;
  push_shape(L, sig);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  int known = lua_gettop(L);
  const shape *sh = lua_touserdata(L, known);
  lbt_def *d = lua_newuserdatauv(L, sizeof *d, LBT_DEF_UV_COUNT);
  int ud = lua_gettop(L);
  memset(d, 0, sizeof *d);
  luaL_setmetatable(L, LBT_DEF_META);
  d->def = sh->h.def;
  bt_def_retain(d->def);
  d->nown = bt_def_states(d->def);
  lua_pushvalue(L, known);
  lua_setiuservalue(L, ud, LBT_DEF_UV_HOLDER);
  set_templates(b, d, ud);
  lua_pushvalue(L, b->slots.table); /* its tree takes its functions from it */
  lua_setiuservalue(L, ud, LBT_DEF_UV_FNS);
  set_board(b, ud);
  lua_replace(L, known);
  return 1;
}

/* Makes the definition at ud, just compiled from the signature at sig, the shape of that
 * signature. */
static void add_shape(lua_State *L, int sig, int ud) {
  const bt_buf *g = lua_touserdata(L, sig);
  lbt_def *d = lua_touserdata(L, ud);
  shape *sh = lua_newuserdatauv(L, sizeof *sh + g->len, 1);
  sh->h.def = NULL;
  luaL_setmetatable(L, SHAPE_META);
  sh->h.def = d->def;
  bt_def_retain(sh->h.def);
  sh->len = g->len;
  memcpy(sh->signature, g->data, g->len);
  lua_getiuservalue(L, ud, LBT_DEF_UV_HOLDER);
  lua_setiuservalue(L, -2, 1);
  lbt_registry_get(L, LBT_REG_SHAPES);
  lua_pushvalue(L, -2);
  lua_rawseti(L, -2, signature_hash(g));
  lua_pop(L, 1);
  lua_setiuservalue(L, ud, LBT_DEF_UV_HOLDER);
}

/* Starts a builder: its tables of objects and slots pushed. */
static void builder_init(builder *b, lua_State *L, int shared, const char *fname, int board) {
  memset(b, 0, sizeof *b);
  b->L = L;
  b->S = lbt_state_get(L);
  b->shared = shared;
  b->fname = fname;
  b->board = board;
  lbt_push_spec_keys(L);
  b->keys = lua_gettop(L) - LBT_SPEC_KEYS + 1;
  lua_createtable(L, 16, 0);
  b->objs = lua_gettop(L);
  lua_createtable(L, 16, 0);
  b->slots = (lbt_slots){L, lua_gettop(L), 0};
}

/* Compiles the objects under root through a graph: pushes the definition and returns its index.
 * old, od, fns: those of lbt_compile_again, or 0, NULL, 0. */
static int compile_graph(lua_State *L, int root, int shared, const char *fname, const char *defining, int old,
                         const bt_def *od, int fns, lua_Integer nfns, int others, int board) {
  builder b;
  builder_init(&b, L, shared, fname, board);
  b.old = old;
  b.od = od;
  b.others = others;
  for (lua_Integer i = 1; i <= nfns; i++) {
    lua_rawgeti(L, fns, i); /* the old tree's functions keep their slots */
    lbt_slot_add(&b.slots);
  }
  int n = collect(&b, root);
  /* The graph lives in a box whose __gc frees it: an error while it is built (a script's
   * __index or __tostring, no memory in a state of bounded memory) must not leak it. */
  bt_graph **box = lua_newuserdatauv(L, sizeof *box, 0);
  int graph = lua_gettop(L);
  *box = NULL;
  luaL_setmetatable(L, GRAPH_META);
  if (bt_graph_create(box) != BT_OK) return luaL_error(L, "not enough memory");
  b.g = *box;
  if (board) lbt_board_declare(L, lua_touserdata(L, board), b.g, fname); /* the keys first: ids 0, 1, ... */
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    add_node(&b, lua_gettop(L));
    lua_pop(L, 1);
  }
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    link_children(&b, lua_gettop(L), i - 1);
    lua_pop(L, 1);
  }
  /* after every child list: set_children would overwrite the parents */
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    link_parent(&b, lua_gettop(L), i - 1);
    lua_pop(L, 1);
  }
  lbt_def *d = lua_newuserdatauv(L, sizeof *d, LBT_DEF_UV_COUNT);
  int ud = lua_gettop(L);
  memset(d, 0, sizeof *d);
  d->shared = shared;
  d->nown = shared ? 0 : n;
  luaL_setmetatable(L, LBT_DEF_META);
  int rc = defining ? bt_def_create_named(&d->def, b.g, 0, get_lib(L), defining)
                    : bt_def_create_lib(&d->def, b.g, 0, get_lib(L));
  if (rc != BT_OK) {
    lua_pushfstring(L, "%s: %s", fname, bt_graph_errmsg(b.g));
    return lua_error(L);
  }
  share_def(L, d, ud);
  if (set_templates(&b, d, ud)) link_copies(&b, d, ud);
  set_functions(&b, ud);
  set_board(&b, ud);
  if (defining) { /* the library's entry for the name is made of this graph and these objects */
    lua_pushvalue(L, graph);
    set_subtrees_field(L, ud, "graph");
    lua_pushvalue(L, b.objs);
    set_subtrees_field(L, ud, "objs");
  } else {
    bt_graph_free(b.g);
    *box = NULL;
  }
  return ud;
}

int lbt_compile(lua_State *L, int root, int shared, const char *fname, const char *defining, int board) {
  root = lua_absindex(L, root);
  board = board ? lua_absindex(L, board) : 0;
  /* the builder's keys and tables, the signature, then a shape's lookup and definition */
  luaL_checkstack(L, LBT_SPEC_KEYS + 16, "bt: no room on the Lua stack");
  int top = lua_gettop(L);
  int sig = 0;
  if (!shared && !defining) { /* BT(inst, root): a shape seen before needs no graph */
    builder b;
    builder_init(&b, L, 0, fname, board);
    push_signature(&b, root);
    if (!lua_isnil(L, -1)) {
      sig = lua_gettop(L);
      if (compile_known(&b, sig)) {
        signature_free(L, sig);
        lua_replace(L, top + 1);
        lua_settop(L, top + 1);
        return top + 1;
      }
    }
  }
  int ud = compile_graph(L, root, shared, fname, defining, 0, NULL, 0, 0, 0, board);
  if (sig) { /* for the trees of that shape built next */
    add_shape(L, sig, ud);
    signature_free(L, sig);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return top + 1;
}

int lbt_compile_again(lua_State *L, int root, int old, const bt_def *od, int fns, lua_Integer nfns, int others,
                      int board) {
  root = lua_absindex(L, root);
  board = board ? lua_absindex(L, board) : 0;
  old = lua_absindex(L, old);
  fns = lua_absindex(L, fns);
  others = lua_absindex(L, others);
  luaL_checkstack(L, LBT_SPEC_KEYS + 16, "bt: no room on the Lua stack");
  int top = lua_gettop(L);
  compile_graph(L, root, 0, "BT", NULL, old, od, fns, nfns, others, board);
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return top + 1;
}

lbt_def *lbt_def_test(lua_State *L, int idx) { return luaL_testudata(L, idx, LBT_DEF_META); }

void lbt_push_own_def(lua_State *L, int def_idx) {
  def_idx = lua_absindex(L, def_idx);
  lbt_def *d = lua_touserdata(L, def_idx);
  lbt_registry_get(L, LBT_REG_OWNDEFS);
  if (lua_rawgetp(L, -1, d->def) != LUA_TNIL) {
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  lua_pushnil(L); /* its trees hold their functions */
  lua_setiuservalue(L, def_idx, LBT_DEF_UV_FNS);
  lua_pushvalue(L, def_idx);
  lua_rawsetp(L, -2, d->def);
  lua_pop(L, 1);
  lua_pushvalue(L, def_idx);
}

static int def_gc(lua_State *L) {
  lbt_def *d = lbt_def_test(L, 1); /* a script may call it by hand, with anything */
  if (!d) return 0;
  bt_def_release(d->def);
  d->def = NULL;
  return 0;
}

/* ---- named subtrees ---- */

/* Registers the definition at index def (0: none) as the subtree of the name at index name: in
 * the registry, and in the library, as the graph it was defined from. */
static void set_named(lua_State *L, int name, int def) {
  name = lua_absindex(L, name);
  bt_lib *lib = get_lib(L);
  const char *key = lua_tostring(L, name);
  if (def) {
    def = lua_absindex(L, def);
    push_subtrees_field(L, def, "graph");
    bt_graph **box = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (bt_lib_set(lib, key, *box, 0) != BT_OK) luaL_error(L, "not enough memory");
  } else if (bt_lib_has(lib, key)) {
    bt_lib_remove(lib, key);
  }
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_pushvalue(L, name);
  if (def) lua_pushvalue(L, def);
  else lua_pushnil(L);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Checks that the argument at arg is a subtree name (or nil, if optional); returns it or NULL. */
static const char *check_subtree_name(lua_State *L, int arg, const char *fname, int optional) {
  if (optional && lua_isnoneornil(L, arg)) return NULL;
  if (lua_type(L, arg) != LUA_TSTRING)
    lbt_typeerror(L, arg, arg, fname, optional ? "string or nil" : "string");
  if (lua_rawlen(L, arg) == 0) lbt_argerror(L, arg, fname, "the name of a subtree expected, got \"\"");
  return lua_tostring(L, arg);
}

/* bt.define(root[, name][, board]): the tree under root, compiled once for every entity that
 * uses it; with a name, also the subtree that subtree nodes of that name run in the trees built
 * from now on; with a bt.Blackboard (in name's place, or after it), its keys */
static int l_define(lua_State *L) {
  if (!lbt_is_node(L, 1)) return lbt_typeerror(L, 1, 1, "define", "node");
  lua_settop(L, 3);
  if (lbt_board_test(L, 2)) { /* define(root, board) */
    if (!lua_isnil(L, 3)) return lbt_argerror(L, 3, "define", "nothing expected after the board");
    lua_insert(L, 2);
  }
  const char *name = check_subtree_name(L, 2, "define", 1);
  if (!lua_isnil(L, 3) && !lbt_board_test(L, 3)) return lbt_typeerror(L, 3, 3, "define", "Blackboard or nil");
  lbt_compile(L, 1, 1, "define", name, lua_isnil(L, 3) ? 0 : 3);
  if (name) set_named(L, 2, 4);
  return 1;
}

/* bt.undefine(name): forgets the subtree of that name; returns its definition, or nil */
static int l_undefine(lua_State *L) {
  check_subtree_name(L, 1, "undefine", 0);
  lua_settop(L, 1);
  push_named(L, 1);
  set_named(L, 1, 0);
  return 1;
}

/* bt.defined(name): the definition registered as name, or nil */
static int l_defined(lua_State *L) {
  check_subtree_name(L, 1, "defined", 0);
  push_named(L, 1);
  return 1;
}

/* definition:size(): nodes in pre-order (a shared node counts at each place) */
static int def_size(lua_State *L) {
  lbt_def *d = lbt_def_test(L, 1);
  if (!d) return lbt_typeerror(L, 1, 0, "size", "definition");
  lua_pushinteger(L, bt_def_size(d->def));
  return 1;
}

/* definition:dot(): the tree as a Graphviz DOT graph (bt_def_dot) */
static int def_dot(lua_State *L) {
  lbt_def *d = lbt_def_test(L, 1);
  if (!d) return lbt_typeerror(L, 1, 0, "dot", "definition");
  bt_buf buf = {0};
  bt_def_dot(d->def, &buf);
  return lbt_push_buf(L, &buf);
}

/* A definition's methods; tree.c adds instantiate. */
static const luaL_Reg def_methods[] = {
    {"size", def_size},
    {"dot", def_dot},
    {NULL, NULL},
};

/* ---- what lua/brain.lua and lua/reload.lua ask of named subtrees ---- */

/* Pushes the subtrees the definition or tree at idx ran when it was built (name -> definition),
 * or nil if it runs none or is no definition or tree. */
static void push_uses(lua_State *L, int idx) {
  if (lbt_tree_test(L, idx)) {
    lua_getiuservalue(L, idx, LBT_UV_DEF);
    idx = lua_gettop(L);
  }
  if (lbt_def_test(L, idx)) push_subtrees_field(L, idx, "uses");
  else lua_pushnil(L);
}

/* shared.uses(definition or tree) */
static int l_uses(lua_State *L) {
  lua_settop(L, 1);
  push_uses(L, 1);
  return 1;
}

/* shared.stale(definition or tree): whether it runs a subtree whose name now names another
 * definition */
static int l_stale(lua_State *L) {
  lua_settop(L, 1);
  push_uses(L, 1);
  int uses = lua_gettop(L);
  if (lua_isnil(L, uses)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  lua_pushnil(L);
  while (lua_next(L, uses)) {
    push_named(L, -2);
    if (!lua_rawequal(L, -1, -2)) {
      lua_pushboolean(L, 1);
      return 1;
    }
    lua_pop(L, 2);
  }
  lua_pushboolean(L, 0);
  return 1;
}

/* shared.save_subtrees(): a copy of the named subtrees, name -> definition */
static int l_save_subtrees(lua_State *L) {
  lua_newtable(L);
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  return 1;
}

/* shared.restore_subtrees(copy): the named subtrees as save_subtrees saw them */
static int l_restore_subtrees(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) return lbt_typeerror(L, 1, 1, "restore_subtrees", "table");
  lua_settop(L, 1);
  lbt_registry_get(L, LBT_REG_SUBTREES);
  int now = lua_gettop(L);
  /* the names to forget first, then those to set: the registry is not changed while walked */
  lua_newtable(L);
  int changes = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, now)) {
    lua_pushvalue(L, -2);
    if (lua_rawget(L, 1) == LUA_TNIL) {
      lua_pushvalue(L, -3);
      lua_pushboolean(L, 0);
      lua_rawset(L, changes);
    }
    lua_pop(L, 2);
  }
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pushvalue(L, -2);
    lua_rawget(L, now);
    if (!lua_rawequal(L, -1, -2)) {
      lua_pushvalue(L, -3);
      lua_pushvalue(L, -3);
      lua_rawset(L, changes);
    }
    lua_pop(L, 2);
  }
  lua_pushnil(L);
  while (lua_next(L, changes)) {
    set_named(L, -2, lua_toboolean(L, -1) ? lua_gettop(L) : 0);
    lua_pop(L, 1);
  }
  return 0;
}

const luaL_Reg lbt_compile_shared[] = {
    {"uses", l_uses},
    {"stale", l_stale},
    {"save_subtrees", l_save_subtrees},
    {"restore_subtrees", l_restore_subtrees},
    {NULL, NULL},
};

static const luaL_Reg module_functions[] = {
    {"define", l_define},
    {"undefine", l_undefine},
    {"defined", l_defined},
    {NULL, NULL},
};

static void new_meta(lua_State *L, const char *name, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
}

void lbt_open_compile(lua_State *L, int module) {
  new_meta(L, HOLDER_META, holder_gc);
  new_meta(L, GRAPH_META, graph_box_gc);
  new_meta(L, LIB_META, lib_box_gc);
  new_meta(L, SIGNATURE_META, signature_gc);
  new_meta(L, SHAPE_META, holder_gc);
  lua_pop(L, 5);
  bt_lib **lib = lua_newuserdatauv(L, sizeof *lib, 0);
  *lib = NULL;
  luaL_setmetatable(L, LIB_META);
  if (bt_lib_create(lib) != BT_OK) luaL_error(L, "not enough memory");
  lbt_registry_set(L, LBT_REG_LIB);
  lbt_registry_get(L, LBT_REG_DEFCACHE);
  lbt_registry_get(L, LBT_REG_WEAKVALUES);
  lua_setmetatable(L, -2);
  lbt_registry_get(L, LBT_REG_OWNDEFS);
  lbt_registry_get(L, LBT_REG_WEAKVALUES);
  lua_setmetatable(L, -2);
  lbt_registry_get(L, LBT_REG_SHAPES);
  lbt_registry_get(L, LBT_REG_WEAKVALUES);
  lua_setmetatable(L, -2);
  lua_pop(L, 3);
  new_meta(L, LBT_DEF_META, def_gc);
  lua_pushliteral(L, "BT definition");
  lua_setfield(L, -2, "__name");
  luaL_newlib(L, def_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushvalue(L, module);
  luaL_setfuncs(L, module_functions, 0);
  lua_pop(L, 1);
}
