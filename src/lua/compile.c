/*
 * compile.c: turns a graph of node objects into a definition (a core bt_def, the leaf functions,
 * and the node objects by state), held by a definition userdata. BT(inst, root) compiles the
 * objects for one entity; bt.define(root) compiles them once as templates that any number of
 * entities share through BT(inst, definition).
 */
#include <stdint.h>
#include <string.h>

#include "lbt.h"

#define DEF_META "bt.definition"

const char lbt_key_def = 0;
const char lbt_key_noscatter = 0;

/* ---- sharing compiled definitions ----
 * Entities whose brain builds its tree anew (Don't Starve's way) compile the same tree again and
 * again; equal definitions share one bt_def, held by a holder that a weak cache finds by hash. */

#define HOLDER_META "bt.defholder"
#define GRAPH_META "bt.graphbox" /* a bt_graph * under construction */

typedef struct def_holder {
  bt_def *def;
} def_holder;

static int graph_box_gc(lua_State *L) {
  bt_graph **box = luaL_testudata(L, 1, GRAPH_META);
  if (box) {
    bt_graph_free(*box);
    *box = NULL;
  }
  return 0;
}

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


typedef struct builder {
  lua_State *L;
  bt_graph *g;
  int ids;  /* table: node object -> graph id, for the root's own objects */
  int objs; /* table: graph id + 1 -> node object */
  int fns;  /* table: leaf function slots */
  int nfns;
  int shared;
  const char *fname; /* "BT" or "define", for messages */
  /* subtrees: each SubtreeNode gets a copy of its definition's templates, with graph ids of
   * their own after the root's own objects */
  int maps;  /* table: graph id + 1 of a copy's object -> the ids table of its copy */
  int links; /* table: graph id + 1 of a SubtreeNode -> graph id of its copy's root */
  int roots; /* table: graph id + 1 of a copy's root -> graph id of its SubtreeNode */
  int nown;  /* graph ids below this are the root's own objects */
  int refs;  /* SubtreeNodes among them */
  const char *defining; /* the name bt.define registers, or NULL */
  /* measuring the expanded tree first */
  int msize, mheight; /* tables: node object or subtree name -> size, height; false while under way */
  int chain;          /* table: the subtree names being measured, outermost first */
  int nchain;
  int uses;           /* table: subtree name -> its definition, every one the tree runs */
} builder;

static void push_name(lua_State *L, int obj) {
  lua_getfield(L, obj, "name");
  luaL_tolstring(L, -1, NULL);
  lua_remove(L, -2);
}

static int build_fail(builder *b, const char *fmt, int obj) {
  lua_State *L = b->L;
  push_name(L, obj);
  lua_pushfstring(L, fmt, lua_tostring(L, -1));
  return luaL_error(L, "%s: %s", b->fname, lua_tostring(L, -1));
}

static int is_reference(lua_State *L, int obj) {
  if (lbt_node_kind(L, obj) != BT_SUBTREE) return 0;
  lua_pushliteral(L, "children");
  int leaf = lua_rawget(L, obj) == LUA_TNIL;
  lua_pop(L, 1);
  return leaf;
}

/* Checks that an object of the root's own may go into this tree. */
static void check_own(builder *b, int obj) {
  lua_State *L = b->L;
  if (lua_rawgetp(L, obj, &lbt_key_tree) != LUA_TNIL) {
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
  if (is_reference(L, obj)) b->refs++;
}

/* Adds every node object reachable from the one at root to b->objs, in breadth-first order, with
 * graph ids from n on, found again through the table at ids; own: the root's own objects (not a
 * copy of a subtree's templates). Returns the new count. */
static int collect(builder *b, int root, int ids, int n, int own) {
  lua_State *L = b->L;
  int first = n + 1;
  lua_pushvalue(L, root);
  lua_rawseti(L, b->objs, ++n);
  if (!own) {
    lua_pushvalue(L, ids);
    lua_rawseti(L, b->maps, n);
  }
  lua_pushvalue(L, root);
  lua_pushinteger(L, n - 1);
  lua_rawset(L, ids);
  for (int i = first; i <= n; i++) {
    lua_rawgeti(L, b->objs, i);
    int obj = lua_gettop(L);
    if (own) check_own(b, obj);
    lua_pushliteral(L, "children");
    int type = lua_rawget(L, obj);
    if (type != LUA_TNIL && type != LUA_TTABLE) {
      push_name(L, obj);
      return luaL_error(L, "%s: node '%s' has children that are no table", b->fname,
                        lua_tostring(L, -1));
    }
    if (type == LUA_TTABLE) {
      lua_Integer count = (lua_Integer)lua_rawlen(L, -1);
      for (lua_Integer k = 1; k <= count; k++) {
        lua_rawgeti(L, -1, k);
        if (!lbt_is_node(L, -1)) {
          push_name(L, obj);
          return luaL_error(L, "%s: child %I of node '%s' is a %s, not a node", b->fname, k,
                            lua_tostring(L, -1), luaL_typename(L, -2));
        }
        lua_pushvalue(L, -1);
        if (lua_rawget(L, ids) == LUA_TNIL) {
          lua_pushvalue(L, -2);
          lua_pushinteger(L, n);
          lua_rawset(L, ids);
          lua_pushvalue(L, -2);
          lua_rawseti(L, b->objs, ++n);
          if (!own) {
            lua_pushvalue(L, ids);
            lua_rawseti(L, b->maps, n);
          }
        }
        lua_pop(L, 2);
      }
    }
    lua_settop(L, obj - 1);
  }
  return n;
}

/* ---- subtrees: measured, then expanded ---- */

/* Pushes the definition registered as the string at name, or nil. */
static void push_named(lua_State *L, int name) {
  name = lua_absindex(L, name);
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_pushvalue(L, name);
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

/* Registers the value on the top (popped) as the subtree of the name at index name; nil forgets. */
static void set_named(lua_State *L, int name) {
  name = lua_absindex(L, name);
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_pushvalue(L, name);
  lua_rotate(L, -3, -1); /* table, name, value */
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Pushes the subtree name of the SubtreeNode at obj (a string, or an error). */
static void push_reference(builder *b, int obj) {
  lua_State *L = b->L;
  lua_pushliteral(L, "subtree");
  if (lua_rawget(L, obj) != LUA_TSTRING) {
    push_name(L, obj);
    luaL_error(L, "%s: SubtreeNode '%s' names no subtree (its field subtree is no string)", b->fname,
               lua_tostring(L, -1));
  }
}

static int too_big(builder *b, lua_Integer size, lua_Integer height) {
  if (size > BT_MAX_NODES)
    return luaL_error(b->L, "%s: tree has more than %d nodes once its subtrees are expanded",
                      b->fname, BT_MAX_NODES);
  if (height > BT_MAX_DEPTH + 1)
    return luaL_error(b->L, "%s: tree is deeper than %d levels once its subtrees are expanded",
                      b->fname, BT_MAX_DEPTH);
  return 0;
}

static void measure_obj(builder *b, int obj, int depth, lua_Integer *size, lua_Integer *height);

static int cycle_error(builder *b, int name) {
  lua_State *L = b->L;
  int from = b->nchain;
  for (int i = 1; i <= b->nchain; i++) {
    lua_rawgeti(L, b->chain, i);
    int same = lua_rawequal(L, -1, name);
    lua_pop(L, 1);
    if (same) {
      from = i;
      break;
    }
  }
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  luaL_addstring(&buf, b->fname);
  luaL_addstring(&buf, ": subtree cycle: ");
  for (int i = from; i <= b->nchain; i++) {
    lua_rawgeti(L, b->chain, i);
    luaL_addvalue(&buf);
    luaL_addstring(&buf, " > ");
  }
  lua_pushvalue(L, name);
  luaL_addvalue(&buf);
  luaL_pushresult(&buf);
  return lua_error(L);
}

/* The size and height of the tree registered as the string at name, expanded. */
static void measure_name(builder *b, int name, int depth, lua_Integer *size, lua_Integer *height) {
  lua_State *L = b->L;
  name = lua_absindex(L, name);
  lua_pushvalue(L, name);
  int type = lua_rawget(L, b->msize);
  if (type == LUA_TNUMBER) {
    *size = lua_tointeger(L, -1);
    lua_pushvalue(L, name);
    lua_rawget(L, b->mheight);
    *height = lua_tointeger(L, -1);
    lua_pop(L, 2);
    return;
  }
  if (type != LUA_TNIL) cycle_error(b, name);
  lua_pop(L, 1);
  push_named(L, name);
  if (!lbt_test_def(L, -1)) {
    if (b->nchain > 0) {
      lua_rawgeti(L, b->chain, b->nchain);
      luaL_error(L, "%s: no subtree named '%s' (in subtree '%s')", b->fname, lua_tostring(L, name),
                 lua_tostring(L, -1));
    }
    luaL_error(L, "%s: no subtree named '%s'", b->fname, lua_tostring(L, name));
  }
  lua_pushvalue(L, name);
  lua_pushvalue(L, -2);
  lua_rawset(L, b->uses);
  lua_pushvalue(L, name);
  lua_pushboolean(L, 0);
  lua_rawset(L, b->msize);
  lua_pushvalue(L, name);
  lua_rawseti(L, b->chain, ++b->nchain);
  lua_getiuservalue(L, -1, LBT_DEF_UV_ROOT);
  measure_obj(b, lua_gettop(L), depth, size, height);
  lua_pop(L, 2);
  lua_pushnil(L);
  lua_rawseti(L, b->chain, b->nchain--);
  lua_pushvalue(L, name);
  lua_pushinteger(L, *size);
  lua_rawset(L, b->msize);
  lua_pushvalue(L, name);
  lua_pushinteger(L, *height);
  lua_rawset(L, b->mheight);
}

/* The size and height of the tree under the node object at obj, its subtrees expanded (saturated
 * past the limits). A node that is its own ancestor counts once: bt_def_create names it. */
static void measure_obj(builder *b, int obj, int depth, lua_Integer *size, lua_Integer *height) {
  lua_State *L = b->L;
  luaL_checkstack(L, 10, "bt: tree too deep for the Lua stack");
  obj = lua_absindex(L, obj);
  if (depth > BT_MAX_DEPTH + 1) too_big(b, 0, depth);
  lua_pushvalue(L, obj);
  int type = lua_rawget(L, b->msize);
  if (type != LUA_TNIL) {
    *size = *height = 0;
    if (type == LUA_TNUMBER) {
      *size = lua_tointeger(L, -1);
      lua_pushvalue(L, obj);
      lua_rawget(L, b->mheight);
      *height = lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, obj);
  lua_pushboolean(L, 0);
  lua_rawset(L, b->msize);
  lua_Integer s = 1, h = 1, cs, ch;
  if (is_reference(L, obj)) {
    push_reference(b, obj);
    measure_name(b, -1, depth + 1, &cs, &ch);
    lua_pop(L, 1);
    s += cs;
    h += ch;
  } else {
    lua_pushliteral(L, "children");
    if (lua_rawget(L, obj) == LUA_TTABLE) {
      lua_Integer count = (lua_Integer)lua_rawlen(L, -1);
      for (lua_Integer k = 1; k <= count; k++) {
        lua_rawgeti(L, -1, k);
        if (lbt_is_node(L, -1)) {
          measure_obj(b, -1, depth + 1, &cs, &ch);
          s += cs;
          if (s > BT_MAX_NODES) s = BT_MAX_NODES + 1;
          if (ch + 1 > h) h = ch + 1;
        }
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  *size = s > BT_MAX_NODES ? BT_MAX_NODES + 1 : s;
  *height = h > BT_MAX_DEPTH + 2 ? BT_MAX_DEPTH + 2 : h;
  lua_pushvalue(L, obj);
  lua_pushinteger(L, *size);
  lua_rawset(L, b->msize);
  lua_pushvalue(L, obj);
  lua_pushinteger(L, *height);
  lua_rawset(L, b->mheight);
}

/* Finds every subtree the root names, directly or not, and raises the error of a missing name,
 * a cycle (the name being defined counts), or an expanded tree past the limits. */
static void measure(builder *b, int root) {
  lua_State *L = b->L;
  lua_newtable(L);
  b->msize = lua_gettop(L);
  lua_newtable(L);
  b->mheight = lua_gettop(L);
  lua_newtable(L);
  b->chain = lua_gettop(L);
  b->nchain = 0;
  if (b->defining) {
    lua_pushstring(L, b->defining);
    lua_pushvalue(L, -1);
    lua_pushboolean(L, 0);
    lua_rawset(L, b->msize);
    lua_rawseti(L, b->chain, ++b->nchain);
  }
  lua_Integer size, height;
  measure_obj(b, root, 0, &size, &height);
  too_big(b, size, height);
  lua_settop(L, b->msize - 1);
}

/* Gives each SubtreeNode, own or in a copy, a copy of its definition's templates; n objects so
 * far. Returns the new count. */
static int expand(builder *b, int n) {
  lua_State *L = b->L;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b->objs, i);
    int obj = lua_gettop(L);
    if (is_reference(L, obj)) {
      push_reference(b, obj);
      push_named(L, -1);
      lua_getiuservalue(L, -1, LBT_DEF_UV_ROOT);
      lua_newtable(L);
      int root_id = n;
      n = collect(b, obj + 3, obj + 4, n, 0);
      lua_pushinteger(L, root_id);
      lua_rawseti(L, b->links, i);
      lua_pushinteger(L, i - 1);
      lua_rawseti(L, b->roots, root_id + 1);
    }
    lua_settop(L, obj - 1);
  }
  return n;
}

/* Puts the function at the top of the stack into a leaf slot; returns its index (popped). */
static void *add_fn(builder *b) {
  lua_rawseti(b->L, b->fns, ++b->nfns);
  return (void *)(intptr_t)b->nfns;
}

/* Reads a node parameter: number -> param; function -> time function; nil -> nil_flag. */
static int read_param(builder *b, int obj, const char *field, bt_spec *s, bt_fn time_fn) {
  lua_State *L = b->L;
  lua_pushstring(L, field);
  int type = lua_rawget(L, obj);
  if (type == LUA_TNUMBER) {
    s->param = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else if (type == LUA_TNIL) {
    s->flags |= BT_SPEC_NIL_PARAM;
    lua_pop(L, 1);
  } else if (time_fn && (type == LUA_TFUNCTION || type == LUA_TTABLE || type == LUA_TUSERDATA)) {
    s->flags |= BT_SPEC_PARAM_FN;
    s->fn = time_fn;
    s->ud = add_fn(b);
  } else {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* Reads a leaf function field into fn/ud; 0 if it is missing. */
static int read_fn(builder *b, int obj, const char *field, bt_fn *fn, void **ud) {
  lua_State *L = b->L;
  lua_getfield(L, obj, field);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  *fn = lbt_call_truth;
  *ud = add_fn(b);
  return 1;
}

/* A TaskNode's task table goes into a leaf slot; the core calls it through lbt_task_calls. */
static int read_task(builder *b, int obj, bt_spec *s) {
  lua_State *L = b->L;
  lua_pushliteral(L, "task");
  if (lua_rawget(L, obj) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  s->task = &lbt_task_calls;
  s->ud = add_fn(b);
  return 1;
}

static int policy_is(lua_State *L, int obj, const char *field, const char *policy) {
  lua_pushstring(L, field);
  lua_rawget(L, obj);
  int yes = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), policy) == 0;
  lua_pop(L, 1);
  return yes;
}

static int is_builtin_class(lua_State *L, int obj, int kind) {
  lua_getmetatable(L, obj);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  int same = lua_rawequal(L, -1, -3);
  lua_pop(L, 3);
  return same;
}

static int add_node(builder *b, int obj, int own) {
  lua_State *L = b->L;
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = lbt_node_kind(L, obj);
  int custom = !is_builtin_class(L, obj, s.kind);
  s.ops = custom ? &lbt_custom_ops : &lbt_builtin_ops;
  push_name(L, obj);
  s.name = lua_tostring(L, -1);
  lua_pushliteral(L, "children");
  if (lua_rawget(L, obj) == LUA_TTABLE) s.flags |= BT_SPEC_CHILDREN;
  lua_pop(L, 1);
  int ok = 1;
  switch (s.kind) {
    case BT_PRIORITY:
      ok = read_param(b, obj, "period", &s, NULL);
      if (!own) { /* a subtree's template: as its definition was built */
        if (lua_rawgetp(L, obj, &lbt_key_noscatter) != LUA_TNIL) s.flags |= BT_SPEC_NOSCATTER;
      } else {
        lua_pushliteral(L, "lasttime"); /* the constructor scattered it unless noscatter */
        if (lua_rawget(L, obj) == LUA_TNIL) s.flags |= BT_SPEC_NOSCATTER;
        /* a tree for one entity took its scatter from the constructor, while the instance draws
         * it for the Priorities of its subtrees */
        if (!b->shared && b->refs) s.flags |= BT_SPEC_NOSCATTER;
      }
      lua_pop(L, 1);
      break;
    case BT_LOOP: ok = read_param(b, obj, "maxreps", &s, NULL); break;
    case BT_EVENT: ok = read_param(b, obj, "priority", &s, NULL); break;
    case BT_WAIT: ok = read_param(b, obj, "wait_time", &s, lbt_call_wait_time); break;
    case BT_LATCH: ok = read_param(b, obj, "latchduration", &s, lbt_call_latch_time); break;
    case BT_CONDITION:
    case BT_CONDITIONWAIT: ok = read_fn(b, obj, "fn", &s.fn, &s.ud) || custom; break;
    case BT_ACTION: ok = read_fn(b, obj, "action", &s.fn, &s.ud) || custom; break;
    case BT_MULTICONDITION:
      ok = (read_fn(b, obj, "start", &s.fn, &s.ud) & read_fn(b, obj, "continue", &s.fn2, &s.ud2)) ||
           custom;
      break;
    case BT_TASK: ok = read_task(b, obj, &s) || custom; break;
    case BT_POLICY_PARALLEL:
      if (policy_is(L, obj, "success_policy", "REQUIRE_ONE")) s.flags |= BT_SPEC_SUCCESS_ONE;
      if (policy_is(L, obj, "failure_policy", "REQUIRE_ALL")) s.flags |= BT_SPEC_FAILURE_ALL;
      break;
    case BT_REPEAT: ok = read_param(b, obj, "times", &s, NULL); break;
    case BT_COOLDOWN:
    case BT_TIMEOUT: ok = read_param(b, obj, "seconds", &s, NULL) && !(s.flags & BT_SPEC_NIL_PARAM); break;
    default: break;
  }
  if (!ok) return build_fail(b, "node '%s' lacks the parameter or function of its kind", obj);
  int id = bt_graph_add(b->g, &s);
  lua_pop(L, 1); /* name */
  if (id < 0) return build_fail(b, "cannot add node '%s'", obj);
  return id;
}

/* Pushes the ids table that finds the objects of graph node id's copy (the root's own, or a
 * subtree's). */
static void push_ids(builder *b, int id) {
  if (id < b->nown) lua_pushvalue(b->L, b->ids);
  else lua_rawgeti(b->L, b->maps, id + 1);
}

static void link_node(builder *b, int obj, int id) {
  lua_State *L = b->L;
  if (b->refs && lua_rawgeti(L, b->links, id + 1) == LUA_TNUMBER) { /* a SubtreeNode: its copy */
    int kid = (int)lua_tointeger(L, -1);
    bt_graph_set_children(b->g, id, &kid, 1);
  }
  if (b->refs) lua_pop(L, 1);
  push_ids(b, id);
  int ids = lua_gettop(L);
  lua_pushliteral(L, "children");
  if (lua_rawget(L, obj) == LUA_TTABLE) {
    int n = (int)lua_rawlen(L, -1);
    int stack_ids[16];
    int *kids = n <= 16 ? stack_ids : lua_newuserdatauv(L, (size_t)n * sizeof(int), 0);
    int children = lua_absindex(L, n <= 16 ? -1 : -2);
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, children, k + 1);
      lua_rawget(L, ids);
      kids[k] = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    bt_graph_set_children(b->g, id, kids, n);
    if (n > 16) lua_pop(L, 1);
  }
  lua_pop(L, 2);
}

static void link_parent(builder *b, int obj, int id) {
  lua_State *L = b->L;
  int parent = -1;
  int type = LUA_TNIL;
  if (id >= b->nown) { /* a copy's root: its SubtreeNode */
    type = lua_rawgeti(L, b->roots, id + 1);
    if (type == LUA_TNUMBER) parent = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  if (type != LUA_TNUMBER) {
    push_ids(b, id);
    lua_pushliteral(L, "parent");
    lua_rawget(L, obj);
    if (!lua_isnil(L, -1) && lua_rawget(L, -2) != LUA_TNIL) parent = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
  }
  bt_graph_set_parent(b->g, id, parent);
}


/* A shared EventNode cannot have subscribed through an inst: each entity subscribes its own. */
static void check_template(builder *b, int obj) {
  lua_State *L = b->L;
  if (lbt_node_kind(L, obj) != BT_EVENT) return;
  lua_pushliteral(L, "eventfn");
  if (lua_rawget(L, obj) != LUA_TNIL)
    build_fail(b, "EventNode '%s' listens through its inst; in a shared definition give it inst nil "
                  "(each entity then listens through its own)", obj);
  lua_pop(L, 1);
}

/* Marks an own object of a shared definition as its template. */
static void make_template(lua_State *L, const bt_def *def, int node, int obj, int ud) {
  obj = lua_absindex(L, obj);
  if (bt_def_kind(def, node) == BT_PRIORITY) { /* remembered for the copies made in subtrees */
    lua_pushliteral(L, "lasttime");
    if (lua_rawget(L, obj) == LUA_TNIL) {
      lua_pushboolean(L, 1);
      lua_rawsetp(L, obj, &lbt_key_noscatter);
    }
    lua_pop(L, 1);
  }
  lbt_strip_views(L, def, node, obj);
  lua_pushvalue(L, ud);
  lua_rawsetp(L, obj, &lbt_key_def);
  lua_pushinteger(L, node);
  lua_rawsetp(L, obj, &lbt_key_node);
}

int lbt_compile(lua_State *L, int root, int shared, const char *fname, const char *defining) {
  root = lua_absindex(L, root);
  int top = lua_gettop(L);
  builder b;
  memset(&b, 0, sizeof b);
  b.L = L;
  b.shared = shared;
  b.fname = fname;
  b.defining = defining;
  lua_newtable(L);
  b.ids = lua_gettop(L);
  lua_newtable(L);
  b.objs = lua_gettop(L);
  lua_newtable(L);
  b.fns = lua_gettop(L);
  lua_newtable(L);
  b.maps = lua_gettop(L);
  lua_newtable(L);
  b.links = lua_gettop(L);
  lua_newtable(L);
  b.roots = lua_gettop(L);
  lua_newtable(L);
  b.uses = lua_gettop(L);
  int n = collect(&b, root, b.ids, 0, 1);
  b.nown = n;
  if (b.refs) {
    measure(&b, root);
    n = expand(&b, n);
  }
  /* The graph lives in a box whose __gc frees it: an error while it is built (a script's
   * __index or __tostring, no memory in a state of bounded memory) must not leak it. */
  bt_graph **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  luaL_setmetatable(L, GRAPH_META);
  if (bt_graph_new(box) != BT_OK) return luaL_error(L, "not enough memory");
  b.g = *box;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    if (shared && i <= b.nown) check_template(&b, lua_gettop(L));
    add_node(&b, lua_gettop(L), i <= b.nown);
    lua_pop(L, 1);
  }
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    link_node(&b, lua_gettop(L), i - 1);
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
  d->nown = shared ? 0 : b.nown;
  d->nnodes = n;
  luaL_setmetatable(L, DEF_META);
  if (bt_def_create(&d->def, b.g, 0) != BT_OK) {
    lua_pushfstring(L, "%s: %s", fname, bt_graph_errmsg(b.g));
    return lua_error(L);
  }
  bt_graph_free(b.g);
  *box = b.g = NULL;
  share_def(L, d, ud);

  int states = bt_def_states(d->def);
  lua_createtable(L, states, 0);
  for (int s = 0; s < states; s++) {
    int gid = bt_def_graph_id(d->def, s);
    lua_rawgeti(L, b.objs, gid + 1);
    if (shared && gid < b.nown) make_template(L, d->def, bt_def_node_of_state(d->def, s), -1, ud);
    lua_rawseti(L, -2, s + 1);
  }
  lua_setiuservalue(L, ud, LBT_DEF_UV_TEMPLATES);
  lua_createtable(L, b.nfns, 0); /* exactly sized: every tree of a Don't Starve brain has one */
  for (int i = 1; i <= b.nfns; i++) {
    lua_rawgeti(L, b.fns, i);
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, ud, LBT_DEF_UV_FNS);
  lua_pushvalue(L, root);
  lua_setiuservalue(L, ud, LBT_DEF_UV_ROOT);
  if (b.refs) {
    lua_pushvalue(L, b.uses);
    lua_setiuservalue(L, ud, LBT_DEF_UV_USES);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return top + 1;
}

lbt_def *lbt_test_def(lua_State *L, int idx) { return luaL_testudata(L, idx, DEF_META); }


static int def_gc(lua_State *L) {
  lbt_def *d = lbt_test_def(L, 1); /* a script may call it by hand, with anything */
  if (!d) return 0;
  bt_def_release(d->def);
  d->def = NULL;
  return 0;
}


/* Checks that the argument at arg is a subtree name (or nil, if optional); returns it or NULL. */
static const char *check_subtree_name(lua_State *L, int arg, const char *fname, int optional) {
  if (optional && lua_isnoneornil(L, arg)) return NULL;
  if (lua_type(L, arg) != LUA_TSTRING)
    lbt_typeerror(L, arg, arg, fname, optional ? "string or nil" : "string");
  if (lua_rawlen(L, arg) == 0) lbt_argerror(L, arg, fname, "the name of a subtree expected, got \"\"");
  return lua_tostring(L, arg);
}

/* bt.define(root[, name]): the tree under root, compiled once for every entity that uses it;
 * with a name, also the subtree that SubtreeNode(name) runs in the trees built from now on */
static int l_define(lua_State *L) {
  if (!lbt_is_node(L, 1)) return lbt_typeerror(L, 1, 1, "define", "node");
  const char *name = check_subtree_name(L, 2, "define", 1);
  lua_settop(L, 2);
  lbt_compile(L, 1, 1, "define", name);
  if (name) {
    lua_pushvalue(L, 3);
    set_named(L, 2);
  }
  return 1;
}

/* bt.undefine(name): forgets the subtree of that name; returns its definition, or nil */
static int l_undefine(lua_State *L) {
  check_subtree_name(L, 1, "undefine", 0);
  lua_settop(L, 1);
  push_named(L, 1);
  lua_pushnil(L);
  set_named(L, 1);
  return 1;
}

/* bt.defined(name): the definition registered as name, or nil */
static int l_defined(lua_State *L) {
  check_subtree_name(L, 1, "defined", 0);
  push_named(L, 1);
  return 1;
}

/* definition:instantiate(inst): the same as BT(inst, definition) */
static int def_instantiate(lua_State *L) {
  if (!lbt_test_def(L, 1)) return luaL_error(L, "bad self to 'instantiate' (definition expected)");
  lua_settop(L, 2);
  return lbt_instantiate(L, 1, 2);
}

/* definition:size(): nodes in pre-order (a shared node counts at each place) */
static int def_size(lua_State *L) {
  lbt_def *d = lbt_test_def(L, 1);
  if (!d) return luaL_error(L, "bad self to 'size' (definition expected)");
  lua_pushinteger(L, bt_def_size(d->def));
  return 1;
}

static const luaL_Reg def_methods[] = {
    {"instantiate", def_instantiate},
    {"size", def_size},
    {NULL, NULL},
};

/* core.uses(definition or tree): subtree name -> the definition it ran when that definition was
 * built; nil if it runs no subtree or is no definition or tree (lua/reload.lua and SharedBrain
 * find stale trees with it) */
static int c_uses(lua_State *L) {
  lua_settop(L, 1);
  if (lbt_test_tree(L, 1)) {
    lua_getiuservalue(L, 1, LBT_UV_DEF);
    lua_replace(L, 1);
  }
  if (!lbt_test_def(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  lua_getiuservalue(L, 1, LBT_DEF_UV_USES);
  return 1;
}

void lbt_add_subtree_core(lua_State *L, int core) {
  lbt_registry_get(L, LBT_REG_SUBTREES);
  lua_setfield(L, core, "subtrees");
  lua_pushcfunction(L, c_uses);
  lua_setfield(L, core, "uses");
}

void lbt_open_compile(lua_State *L, int module) {
  luaL_newmetatable(L, HOLDER_META);
  lua_pushcfunction(L, holder_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_newmetatable(L, GRAPH_META);
  lua_pushcfunction(L, graph_box_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_DEFCACHE);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  luaL_newmetatable(L, DEF_META);
  lua_pushcfunction(L, def_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushliteral(L, "BT definition");
  lua_setfield(L, -2, "__name");
  luaL_newlib(L, def_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_define);
  lua_setfield(L, module, "define");
  lua_pushcfunction(L, l_undefine);
  lua_setfield(L, module, "undefine");
  lua_pushcfunction(L, l_defined);
  lua_setfield(L, module, "defined");
}
