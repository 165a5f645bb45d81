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
  int ids;  /* table: node object -> graph id */
  int objs; /* table: graph id + 1 -> node object */
  int fns;  /* table: leaf function slots */
  int nfns;
  int shared;
  const char *fname; /* "BT" or "define", for messages */
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

/* Adds every node object reachable from the root to b->objs, in breadth-first order. */
static int collect(builder *b, int root) {
  lua_State *L = b->L;
  int n = 0;
  lua_pushvalue(L, root);
  lua_rawseti(L, b->objs, ++n);
  lua_pushvalue(L, root);
  lua_pushinteger(L, 0);
  lua_rawset(L, b->ids);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b->objs, i);
    int obj = lua_gettop(L);
    if (lua_rawgetp(L, obj, &lbt_key_tree) != LUA_TNIL) {
      push_name(L, obj);
      return luaL_error(L, "%s: node '%s' already belongs to a tree (a node can be in one BT only)",
                        b->fname, lua_tostring(L, -1));
    }
    if (lua_rawgetp(L, obj, &lbt_key_def) != LUA_TNIL) {
      push_name(L, obj);
      return luaL_error(L,
                        "%s: node '%s' already belongs to a definition (use BT(inst, definition))",
                        b->fname, lua_tostring(L, -1));
    }
    lua_pop(L, 2);
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
        if (lua_rawget(L, b->ids) == LUA_TNIL) {
          lua_pushvalue(L, -2);
          lua_pushinteger(L, n);
          lua_rawset(L, b->ids);
          lua_pushvalue(L, -2);
          lua_rawseti(L, b->objs, ++n);
        }
        lua_pop(L, 2);
      }
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

static int add_node(builder *b, int obj) {
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
      lua_pushliteral(L, "lasttime"); /* the constructor scattered it unless noscatter */
      if (lua_rawget(L, obj) == LUA_TNIL) s.flags |= BT_SPEC_NOSCATTER;
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

static void link_node(builder *b, int obj, int id) {
  lua_State *L = b->L;
  lua_pushliteral(L, "children");
  if (lua_rawget(L, obj) == LUA_TTABLE) {
    int n = (int)lua_rawlen(L, -1);
    int stack_ids[16];
    int *ids = n <= 16 ? stack_ids : lua_newuserdatauv(L, (size_t)n * sizeof(int), 0);
    int children = lua_absindex(L, n <= 16 ? -1 : -2);
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, children, k + 1);
      lua_rawget(L, b->ids);
      ids[k] = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    bt_graph_set_children(b->g, id, ids, n);
    if (n > 16) lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static void link_parent(builder *b, int obj, int id) {
  lua_State *L = b->L;
  lua_pushliteral(L, "parent");
  lua_rawget(L, obj);
  int parent = -1;
  if (!lua_isnil(L, -1) && lua_rawget(L, b->ids) != LUA_TNIL) parent = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
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

int lbt_compile(lua_State *L, int root, int shared, const char *fname) {
  root = lua_absindex(L, root);
  int top = lua_gettop(L);
  builder b = {L, NULL, 0, 0, 0, 0, shared, fname};
  lua_newtable(L);
  b.ids = lua_gettop(L);
  lua_newtable(L);
  b.objs = lua_gettop(L);
  lua_newtable(L);
  b.fns = lua_gettop(L);
  int n = collect(&b, root);
  /* The graph lives in a box whose __gc frees it: an error while it is built (a script's
   * __index or __tostring, no memory in a state of bounded memory) must not leak it. */
  bt_graph **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  luaL_setmetatable(L, GRAPH_META);
  if (bt_graph_new(box) != BT_OK) return luaL_error(L, "not enough memory");
  b.g = *box;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
    if (shared) check_template(&b, lua_gettop(L));
    add_node(&b, lua_gettop(L));
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
    lua_rawgeti(L, b.objs, bt_def_graph_id(d->def, s) + 1);
    if (shared) {
      lbt_strip_views(L, d->def, bt_def_node_of_state(d->def, s), -1);
      lua_pushvalue(L, ud);
      lua_rawsetp(L, -2, &lbt_key_def);
      lua_pushinteger(L, bt_def_node_of_state(d->def, s));
      lua_rawsetp(L, -2, &lbt_key_node);
    }
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


/* bt.define(root): the tree under root, compiled once for every entity that uses it */
static int l_define(lua_State *L) {
  if (!lbt_is_node(L, 1)) return lbt_typeerror(L, 1, 1, "define", "node");
  lbt_compile(L, 1, 1, "define");
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
}
