/*
 * tree.c: BT(inst, root). Compiles a graph of node objects into a core definition and instance,
 * binds the objects to it, and gives the core the callbacks that call back into Lua: leaf
 * functions, and the methods that Lua subclasses override.
 */
#include <stdint.h>
#include <string.h>

#include "lbt.h"

#define TREE_META "bt.tree"

/* ---- entering a tree: what the core's callbacks need, pushed on the caller's stack ---- */

void lbt_enter(lua_State *L, int tree_idx, lbt_ctx *saved, lua_State **saved_L) {
  tree_idx = lua_absindex(L, tree_idx);
  lbt_tree *t = lua_touserdata(L, tree_idx);
  *saved = t->ctx;
  *saved_L = t->S->L;
  luaL_checkstack(L, 40, "bt: tree too deep for the Lua stack");
  lua_getiuservalue(L, tree_idx, LBT_UV_OBJS);
  int base = lua_gettop(L);
  lua_getiuservalue(L, tree_idx, LBT_UV_FNS);
  lua_getiuservalue(L, tree_idx, LBT_UV_INST);
  lua_getiuservalue(L, tree_idx, LBT_UV_DATA);
  t->ctx = (lbt_ctx){L, tree_idx, base, base + 1, base + 2, base + 3};
  t->S->L = L;
}

void lbt_leave(lua_State *L, int tree_idx, const lbt_ctx *saved, lua_State *saved_L) {
  lbt_tree *t = lua_touserdata(L, tree_idx);
  lua_settop(L, t->ctx.objs - 1);
  t->ctx = *saved;
  t->S->L = saved_L;
}

lbt_tree *lbt_node_tree(lua_State *L, int obj, int *node) {
  obj = lua_absindex(L, obj);
  lua_rawgetp(L, obj, &lbt_key_tree);
  lbt_tree *t = lua_touserdata(L, -1);
  lua_rawgetp(L, obj, &lbt_key_node);
  *node = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return t && t->inst ? t : NULL;
}

/* ---- callbacks from the core into Lua ---- */

static lbt_tree *tree_of(bt_call *c) { return bt_inst_agent(c->inst); }

/* Pushes the node object of the call's node. */
static void push_obj(lbt_tree *t, bt_call *c) {
  const bt_def *def = bt_inst_def(c->inst);
  lua_rawgeti(t->ctx.L, t->ctx.objs, bt_def_state(def, c->node) + 1);
}

/* ConditionNode, ConditionWaitNode, ActionNode, MultiConditionNode: fn(inst), truthiness. */
static int call_truth(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  lua_pushvalue(L, t->ctx.inst);
  if (lbt_pcall(t->S, L, 1, 1, c->inst, c->node, NULL) != LUA_OK) return -1;
  int r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* Leaves a number result of a time function in c->value. */
static int take_number(bt_call *c, lbt_tree *t, const char *what) {
  lua_State *L = t->ctx.L;
  if (lua_type(L, -1) != LUA_TNUMBER) {
    lbt_push_path(L, c->inst, c->node);
    lua_pushfstring(L, "%s: %s returned %s, not a number", lua_tostring(L, -1), what,
                    luaL_typename(L, -2));
    lbt_report(t->S, L, lua_tostring(L, -1));
    lua_pop(L, 3);
    return -1;
  }
  c->value = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return 1;
}

/* WaitNode's time function: called with nothing. */
static int call_wait_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  if (lbt_pcall(t->S, L, 0, 1, c->inst, c->node, NULL) != LUA_OK) return -1;
  return take_number(c, t, "the WaitNode's time function");
}

/* LatchNode's duration function: called with the inst given to the LatchNode. */
static int call_latch_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  push_obj(t, c);
  lua_getfield(L, -1, "inst");
  lua_remove(L, -2);
  if (lbt_pcall(t->S, L, 1, 1, c->inst, c->node, NULL) != LUA_OK) return -1;
  return take_number(c, t, "the LatchNode's duration function");
}

/* Pushes obj[method] above the node object and returns 1 if it is not the builtin method of the
 * node's kind (a script overrides it); otherwise pops both and returns 0. */
static int overridden(lbt_tree *t, bt_call *c, const char *method) {
  lua_State *L = t->ctx.L;
  push_obj(t, c);
  lua_getfield(L, -1, method);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, bt_def_kind(bt_inst_def(c->inst), c->node) + 1);
  lua_getfield(L, -1, method);
  int same = lua_rawequal(L, -1, -4);
  lua_pop(L, 3);
  if (!same && !lua_isnil(L, -1)) return 1;
  lua_pop(L, 2);
  return 0;
}

/* Calls the pushed obj[method] with obj as self (both popped), with nres results. */
static int call_method(lbt_tree *t, bt_call *c, int nres, const char *what) {
  lua_State *L = t->ctx.L;
  lua_insert(L, -2);
  return lbt_pcall(t->S, L, 1, nres, c->inst, c->node, what);
}

static int ops_visit(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (!overridden(t, c, "Visit")) return BT_DEFAULT;
  if (call_method(t, c, 0, NULL) != LUA_OK) bt_node_set_status(c->inst, c->node, BT_FAILED);
  return BT_OK;
}

static int ops_reset(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (!overridden(t, c, "Reset")) return BT_DEFAULT;
  call_method(t, c, 0, "Reset");
  return BT_OK;
}

static int ops_step(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (!overridden(t, c, "Step")) return BT_DEFAULT;
  call_method(t, c, 0, "Step");
  return BT_OK;
}

static int ops_sleep_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (!overridden(t, c, "GetSleepTime")) return BT_DEFAULT;
  if (call_method(t, c, 1, "GetSleepTime") != LUA_OK) return 0;
  lua_State *L = t->ctx.L;
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  return take_number(c, t, "GetSleepTime") == 1 ? 1 : 0;
}

static int ops_describe(bt_call *c, bt_buf *out) {
  lbt_tree *t = tree_of(c);
  if (!overridden(t, c, "DBString")) return BT_DEFAULT;
  if (call_method(t, c, 1, "DBString") != LUA_OK) return bt_buf_append(out, "?", 1);
  size_t len;
  const char *s = luaL_tolstring(t->ctx.L, -1, &len);
  int rc = bt_buf_append(out, s, len);
  lua_pop(t->ctx.L, 2);
  return rc;
}

/* Stop: self:OnStop() when the node has an OnStop, whoever defined it. */
static int ops_on_stop(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  push_obj(t, c);
  lua_getfield(L, -1, "OnStop");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 2);
    return BT_OK;
  }
  call_method(t, c, 0, "OnStop");
  return BT_OK;
}

static const bt_ops builtin_ops = {NULL, NULL, NULL, ops_on_stop, NULL, NULL};
static const bt_ops custom_ops = {ops_visit, ops_reset, ops_step, ops_on_stop, ops_sleep_time,
                                  ops_describe};

/* ---- compiling node objects ---- */

typedef struct builder {
  lua_State *L;
  bt_graph *g;
  int ids;  /* table: node object -> graph id */
  int objs; /* table: graph id + 1 -> node object */
  int fns;  /* table: leaf function slots */
  int nfns;
} builder;

static void push_name(lua_State *L, int obj) {
  lua_getfield(L, obj, "name");
  luaL_tolstring(L, -1, NULL);
  lua_remove(L, -2);
}

static int build_fail(builder *b, const char *fmt, int obj) {
  lua_State *L = b->L;
  bt_graph_free(b->g);
  b->g = NULL;
  push_name(L, obj);
  return luaL_error(L, fmt, lua_tostring(L, -1));
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
      return luaL_error(L, "BT: node '%s' already belongs to a tree (a node can be in one BT only)",
                        lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "children");
    int type = lua_rawget(L, obj);
    if (type != LUA_TNIL && type != LUA_TTABLE) {
      push_name(L, obj);
      return luaL_error(L, "BT: node '%s' has children that are no table", lua_tostring(L, -1));
    }
    if (type == LUA_TTABLE) {
      lua_Integer count = (lua_Integer)lua_rawlen(L, -1);
      for (lua_Integer k = 1; k <= count; k++) {
        lua_rawgeti(L, -1, k);
        if (!lbt_is_node(L, -1)) {
          push_name(L, obj);
          return luaL_error(L, "BT: child %I of node '%s' is a %s, not a node", k,
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
  *fn = call_truth;
  *ud = add_fn(b);
  return 1;
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
  s.ops = custom ? &custom_ops : &builtin_ops;
  push_name(L, obj);
  s.name = lua_tostring(L, -1);
  lua_pushliteral(L, "children");
  if (lua_rawget(L, obj) == LUA_TTABLE) s.flags |= BT_SPEC_CHILDREN;
  lua_pop(L, 1);
  int ok = 1;
  switch (s.kind) {
    case BT_PRIORITY: ok = read_param(b, obj, "period", &s, NULL); break;
    case BT_LOOP: ok = read_param(b, obj, "maxreps", &s, NULL); break;
    case BT_EVENT: ok = read_param(b, obj, "priority", &s, NULL); break;
    case BT_WAIT: ok = read_param(b, obj, "wait_time", &s, call_wait_time); break;
    case BT_LATCH: ok = read_param(b, obj, "latchduration", &s, call_latch_time); break;
    case BT_CONDITION:
    case BT_CONDITIONWAIT: ok = read_fn(b, obj, "fn", &s.fn, &s.ud) || custom; break;
    case BT_ACTION: ok = read_fn(b, obj, "action", &s.fn, &s.ud) || custom; break;
    case BT_MULTICONDITION:
      ok = (read_fn(b, obj, "start", &s.fn, &s.ud) & read_fn(b, obj, "continue", &s.fn2, &s.ud2)) ||
           custom;
      break;
    default: break;
  }
  if (!ok) return build_fail(b, "BT: node '%s' lacks the parameter or function of its kind", obj);
  int id = bt_graph_add(b->g, &s);
  lua_pop(L, 1); /* name */
  if (id < 0) return build_fail(b, "BT: cannot add node '%s'", obj);
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

/* Moves state that a node object holds before it is in a tree (a Priority's scattered lasttime,
 * a status or trigger set by a script) into the instance. */
static void migrate(lua_State *L, lbt_tree *t, int obj, int node, int data) {
  static const char *const fields[] = {"status", "idx", "rep", "lasttime", "wake_time",
                                       "nextupdatetime", "triggered", "running", "lastlatchtime",
                                       "currentlatchduration"};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    lua_pushstring(L, fields[i]);
    if (lua_rawget(L, obj) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    int value = lua_gettop(L);
    lua_pushstring(L, fields[i]);
    if (lbt_view_set(L, t, node, lbt_view_code(L, -1), value)) {
      lua_pushstring(L, fields[i]);
      lua_pushnil(L);
      lua_rawset(L, obj);
    }
    lua_settop(L, value - 1);
  }
  if (bt_def_kind(bt_inst_def(t->inst), node) == BT_EVENT) {
    lua_pushliteral(L, "data");
    lua_rawget(L, obj);
    lua_rawseti(L, data, bt_def_state(bt_inst_def(t->inst), node) + 1);
    lua_pushliteral(L, "data");
    lua_pushnil(L);
    lua_rawset(L, obj);
  }
}

static int tree_new(lua_State *L) {
  /* BT(inst, root): called through the BT table's __call, so the table is argument 1 */
  lua_settop(L, 3);
  if (!lbt_is_node(L, 3)) return lbt_typeerror(L, 3, 2, "BT", "node");
  lbt_state *S = lbt_state_get(L);
  builder b = {L, NULL, 0, 0, 0, 0};
  lua_newtable(L);
  b.ids = lua_gettop(L);
  lua_newtable(L);
  b.objs = lua_gettop(L);
  lua_newtable(L);
  b.fns = lua_gettop(L);
  int n = collect(&b, 3);
  if (bt_graph_new(&b.g) != BT_OK) return luaL_error(L, "not enough memory");
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, b.objs, i);
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
  bt_def *def;
  if (bt_def_create(&def, b.g, 0) != BT_OK) {
    lua_pushfstring(L, "BT: %s", bt_graph_errmsg(b.g));
    bt_graph_free(b.g);
    return lua_error(L);
  }
  bt_graph_free(b.g);

  lbt_tree *t = lua_newuserdatauv(L, sizeof *t, LBT_UV_COUNT);
  int tree = lua_gettop(L);
  memset(t, 0, sizeof *t);
  t->S = S;
  luaL_setmetatable(L, TREE_META);
  int rc = bt_inst_create(&t->inst, def, &S->host, t, BT_INST_NOSCATTER);
  bt_def_release(def);
  if (rc != BT_OK) return luaL_error(L, "not enough memory");

  /* objs by state, the events no inst delivers, and the user values */
  int states = bt_def_states(def);
  lua_createtable(L, states, 0);
  int objs = lua_gettop(L);
  lua_newtable(L);
  int events = lua_gettop(L);
  lua_newtable(L);
  int data = lua_gettop(L);
  for (int s = 0; s < states; s++) {
    lua_rawgeti(L, b.objs, bt_def_graph_id(def, s) + 1);
    int obj = lua_gettop(L);
    int node = bt_def_node_of_state(def, s);
    migrate(L, t, obj, node, data);
    if (bt_def_kind(def, node) == BT_EVENT) {
      lua_pushliteral(L, "eventfn");
      if (lua_rawget(L, obj) == LUA_TNIL) {
        lua_pushinteger(L, node);
        lua_rawseti(L, events, (lua_Integer)lua_rawlen(L, events) + 1);
      }
      lua_pop(L, 1);
    }
    lua_rawseti(L, objs, s + 1);
  }
  lua_pushvalue(L, objs);
  lua_setiuservalue(L, tree, LBT_UV_OBJS);
  lua_pushvalue(L, b.fns);
  lua_setiuservalue(L, tree, LBT_UV_FNS);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, tree, LBT_UV_INST);
  lua_pushvalue(L, data);
  lua_setiuservalue(L, tree, LBT_UV_DATA);
  lua_pushvalue(L, 3);
  lua_setiuservalue(L, tree, LBT_UV_ROOT);
  lua_pushvalue(L, events);
  lua_setiuservalue(L, tree, LBT_UV_EVENTS);

  /* bind every object: from now on its state lives in the instance */
  for (int s = 0; s < states; s++) {
    lua_rawgeti(L, objs, s + 1);
    lua_pushvalue(L, tree);
    lua_rawsetp(L, -2, &lbt_key_tree);
    lua_pushinteger(L, bt_def_node_of_state(def, s));
    lua_rawsetp(L, -2, &lbt_key_node);
    lua_pop(L, 1);
  }
  lua_pushvalue(L, tree);
  return 1;
}

/* ---- tree methods ---- */

static lbt_tree *check_tree(lua_State *L, const char *method) {
  lbt_tree *t = luaL_testudata(L, 1, TREE_META);
  if (!t) luaL_error(L, "bad self to '%s' (BT expected, got %s)", method, luaL_typename(L, 1));
  if (!t->inst) luaL_error(L, "%s: the tree was garbage collected", method);
  return t;
}

static int tree_update(lua_State *L) {
  lbt_tree *t = check_tree(L, "Update");
  if (bt_inst_thinking(t->inst))
    return luaL_error(L, "Update: the tree is thinking (Update called from inside its own think)");
  lbt_ctx saved;
  lua_State *saved_L;
  lbt_enter(L, 1, &saved, &saved_L);
  bt_inst_update(t->inst);
  lbt_leave(L, 1, &saved, saved_L);
  return 0;
}

static int tree_force_update(lua_State *L) {
  bt_inst_force_update(check_tree(L, "ForceUpdate")->inst);
  return 0;
}

static int tree_get_sleep_time(lua_State *L) {
  lbt_tree *t = check_tree(L, "GetSleepTime");
  lbt_ctx saved;
  lua_State *saved_L;
  double v;
  lbt_enter(L, 1, &saved, &saved_L);
  int has = bt_inst_sleep_time(t->inst, &v);
  lbt_leave(L, 1, &saved, saved_L);
  if (has) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

static int tree_reset(lua_State *L) {
  lbt_tree *t = check_tree(L, "Reset");
  if (bt_inst_thinking(t->inst))
    return luaL_error(L, "Reset: the tree is thinking (Reset called from inside its own think)");
  lbt_ctx saved;
  lua_State *saved_L;
  lbt_enter(L, 1, &saved, &saved_L);
  bt_inst_reset(t->inst);
  lbt_leave(L, 1, &saved, saved_L);
  return 0;
}

static int tree_stop(lua_State *L) {
  lbt_tree *t = check_tree(L, "Stop");
  lbt_ctx saved;
  lua_State *saved_L;
  lbt_enter(L, 1, &saved, &saved_L);
  bt_inst_stop(t->inst);
  lbt_leave(L, 1, &saved, saved_L);
  return 0;
}

static int tree_tostring(lua_State *L) {
  lbt_tree *t = check_tree(L, "__tostring");
  lbt_ctx saved;
  lua_State *saved_L;
  bt_buf buf = {0};
  lbt_enter(L, 1, &saved, &saved_L);
  bt_inst_dump(t->inst, &buf);
  lbt_leave(L, 1, &saved, saved_L);
  if (buf.err) {
    bt_buf_free(&buf);
    return luaL_error(L, "not enough memory");
  }
  lua_pushlstring(L, buf.data ? buf.data : "", buf.len);
  bt_buf_free(&buf);
  return 1;
}

static int tree_snapshot(lua_State *L) {
  lbt_tree *t = check_tree(L, "snapshot");
  const bt_def *def = bt_inst_def(t->inst);
  int n = bt_def_size(def);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, bt_def_depth(def, i));
    lua_setfield(L, -2, "depth");
    lua_pushstring(L, bt_def_name(def, i));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, bt_status_name(bt_node_status(t->inst, i)));
    lua_setfield(L, -2, "status");
    lua_pushstring(L, bt_status_name(bt_node_last(t->inst, i)));
    lua_setfield(L, -2, "last");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* EventNode:OnEvent(data) for the node object at obj, with the event data at data. */
int lbt_fire(lua_State *L, int obj, int data) {
  obj = lua_absindex(L, obj);
  data = lua_absindex(L, data);
  int node;
  lbt_tree *t = lbt_node_tree(L, obj, &node);
  if (t) {
    lbt_ctx saved;
    lua_State *saved_L;
    lua_rawgetp(L, obj, &lbt_key_tree);
    int tree = lua_gettop(L);
    lbt_enter(L, tree, &saved, &saved_L);
    bt_inst_fire_event(t->inst, node);
    lua_pushvalue(L, data);
    lua_rawseti(L, t->ctx.data, bt_def_state(bt_inst_def(t->inst), node) + 1);
    lbt_leave(L, tree, &saved, saved_L);
    lua_pop(L, 1);
  } else {
    /* not in a tree yet: what Don't Starve's OnEvent does to the plain fields */
    lua_pushboolean(L, 1);
    lua_setfield(L, obj, "triggered");
    lua_pushvalue(L, data);
    lua_setfield(L, obj, "data");
  }
  /* if self.inst.brain then self.inst.brain:ForceUpdate() end */
  lua_getfield(L, obj, "inst");
  if (lua_type(L, -1) == LUA_TTABLE || lua_type(L, -1) == LUA_TUSERDATA) {
    lua_getfield(L, -1, "brain");
    if (!lua_isnil(L, -1)) {
      lua_getfield(L, -1, "ForceUpdate");
      lua_insert(L, -2);
      lbt_pcall(lbt_state_get(L), L, 1, 0, t ? t->inst : NULL, node, "brain:ForceUpdate");
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  if (!t) {
    /* DoToParents: clear the clock of every PriorityNode above */
    lua_pushvalue(L, obj);
    for (;;) {
      lua_getfield(L, -1, "parent");
      lua_remove(L, -2);
      if (!lbt_is_node(L, -1)) break;
      if (lbt_node_kind(L, -1) == BT_PRIORITY) {
        lua_pushnil(L);
        lua_setfield(L, -2, "lasttime");
      }
    }
    lua_pop(L, 1);
  }
  return 0;
}

static int tree_fire_event(lua_State *L) {
  check_tree(L, "FireEvent");
  lua_settop(L, 3);
  lua_getiuservalue(L, 1, LBT_UV_EVENTS);
  lua_getiuservalue(L, 1, LBT_UV_OBJS);
  lbt_tree *t = lua_touserdata(L, 1);
  int n = (int)lua_rawlen(L, 4);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, 4, i);
    int node = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (!t->inst) break;
    lua_rawgeti(L, 5, bt_def_state(bt_inst_def(t->inst), node) + 1);
    lua_getfield(L, -1, "event");
    if (lua_rawequal(L, -1, 2)) lbt_fire(L, -2, 3);
    lua_pop(L, 2);
  }
  return 0;
}

static int tree_gc(lua_State *L) {
  lbt_tree *t = lua_touserdata(L, 1);
  if (t->inst && !bt_inst_thinking(t->inst)) {
    bt_inst_free(t->inst);
    t->inst = NULL;
  }
  return 0;
}

/* tree.inst, tree.root, then the BT table's members (so scripts may patch BT's methods). */
static int tree_index(lua_State *L) {
  const char *key = lua_tostring(L, 2);
  if (key && strcmp(key, "inst") == 0) {
    lua_getiuservalue(L, 1, LBT_UV_INST);
    return 1;
  }
  if (key && strcmp(key, "root") == 0) {
    lua_getiuservalue(L, 1, LBT_UV_ROOT);
    return 1;
  }
  lbt_registry_get(L, LBT_REG_BT);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}



static const luaL_Reg tree_methods[] = {
    {"Update", tree_update},
    {"ForceUpdate", tree_force_update},
    {"GetSleepTime", tree_get_sleep_time},
    {"Reset", tree_reset},
    {"Stop", tree_stop},
    {"FireEvent", tree_fire_event},
    {"snapshot", tree_snapshot},
    {"__tostring", tree_tostring},
    {NULL, NULL},
};

static const luaL_Reg tree_meta[] = {
    {"__index", tree_index},
    {"__tostring", tree_tostring},
    {"__gc", tree_gc},
    {NULL, NULL},
};

void lbt_open_tree(lua_State *L, int module) {
  luaL_newmetatable(L, TREE_META);
  luaL_setfuncs(L, tree_meta, 0);
  lua_pushliteral(L, "BT");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);

  lbt_registry_get(L, LBT_REG_BT);
  luaL_setfuncs(L, tree_methods, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, tree_new);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, module, "BT");
}
