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

static void enter_tree(lua_State *L, lbt_tree *t, int tree_idx, lbt_ctx *saved, lua_State **saved_L) {
  *saved = t->ctx;
  *saved_L = t->S->L;
  luaL_checkstack(L, 40, "bt: tree too deep for the Lua stack");
  lua_getiuservalue(L, tree_idx, LBT_UV_FNS);
  int base = lua_gettop(L);
  lua_getiuservalue(L, tree_idx, LBT_UV_INST);
  lua_pushcfunction(L, lbt_msgh);
  t->ctx = (lbt_ctx){L, tree_idx, base, base + 1, base + 2, t->S->msgh};
  t->S->L = L;
  t->S->msgh = base + 2;
  if (t->S->mem) t->S->mem->reserve++;
}

static void leave_tree(lua_State *L, lbt_tree *t, const lbt_ctx *saved, lua_State *saved_L) {
  if (t->S->mem) t->S->mem->reserve--;
  lua_settop(L, t->ctx.fns - 1);
  t->S->msgh = t->ctx.outer_msgh;
  t->ctx = *saved;
  t->S->L = saved_L;
}

void lbt_enter(lua_State *L, int tree_idx, lbt_ctx *saved, lua_State **saved_L) {
  tree_idx = lua_absindex(L, tree_idx);
  enter_tree(L, lua_touserdata(L, tree_idx), tree_idx, saved, saved_L);
}

void lbt_leave(lua_State *L, int tree_idx, const lbt_ctx *saved, lua_State *saved_L) {
  leave_tree(L, lua_touserdata(L, tree_idx), saved, saved_L);
}

lbt_tree *lbt_test_tree(lua_State *L, int idx) {
  lbt_tree *t = lua_touserdata(L, idx);
  /* a light userdata has no length: lua_rawlen gives 0 */
  if (!t || lua_rawlen(L, idx) < sizeof *t || t->magic != LBT_TREE_MAGIC) return NULL;
  return t;
}

lbt_tree *lbt_node_tree(lua_State *L, int obj, int *node) {
  obj = lua_absindex(L, obj);
  *node = -1;
  if (lua_type(L, obj) != LUA_TTABLE) return NULL;
  /* The keys are in the node's own table, where pairs finds them and rawset can change them:
   * believe them only if they are a tree and an index into it. */
  lua_rawgetp(L, obj, &lbt_key_tree);
  lbt_tree *t = lbt_test_tree(L, -1);
  lua_rawgetp(L, obj, &lbt_key_node);
  int isint;
  lua_Integer n = lua_tointegerx(L, -1, &isint);
  lua_pop(L, 2);
  if (!t || !t->inst || !isint || n < 0 || n >= bt_def_size(bt_inst_def(t->inst))) return NULL;
  *node = (int)n;
  return t;
}

/* ---- callbacks from the core into Lua ---- */

static lbt_tree *tree_of(bt_call *c) { return bt_inst_agent(c->inst); }

/* Pushes the member key of the node object at obj and returns its type: the object's own field,
 * else its class's, as the class's __index finds a member. Read raw, running no script code: a
 * script that gave the object an __index of its own cannot raise here, in the middle of a think,
 * where an error would unwind the core's frames. key must not be a node's view (status, ...). */
static int node_member(lua_State *L, int obj, const char *key) {
  obj = lua_absindex(L, obj);
  lua_pushstring(L, key);
  if (lua_rawget(L, obj) != LUA_TNIL) return lua_type(L, -1);
  lua_pop(L, 1);
  if (!lua_getmetatable(L, obj)) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  lua_pushstring(L, key);
  int type = lua_rawget(L, -2);
  lua_remove(L, -2);
  return type;
}

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

static void push_state_obj(lua_State *L, lbt_tree *t, int tree, int s);

/* Pushes the node object of the call's node. */
static void push_obj(lbt_tree *t, bt_call *c) {
  push_state_obj(t->ctx.L, t, t->ctx.tree, bt_def_state(bt_inst_def(c->inst), c->node));
}

/* ConditionNode, ConditionWaitNode, ActionNode, MultiConditionNode: fn(inst), truthiness. */
int lbt_call_truth(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  lua_pushvalue(L, t->ctx.inst);
  if (lbt_pcall(t->S, L, 1, 1, t->ctx.msgh, c->inst, c->node, NULL) != LUA_OK) return -1;
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
int lbt_call_wait_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  if (lbt_pcall(t->S, L, 0, 1, t->ctx.msgh, c->inst, c->node, NULL) != LUA_OK) return -1;
  return take_number(c, t, "the WaitNode's time function");
}

/* LatchNode's duration function: called with the inst given to the LatchNode. */
int lbt_call_latch_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  push_obj(t, c);
  node_member(L, -1, "inst");
  lua_remove(L, -2);
  if (lbt_pcall(t->S, L, 1, 1, t->ctx.msgh, c->inst, c->node, NULL) != LUA_OK) return -1;
  return take_number(c, t, "the LatchNode's duration function");
}

/* ---- TaskNode: start, update and finish of the task, called as its methods ----
 * self is the task given to TaskNode, or, when that is a Class, the entity's own object of it,
 * made by calling the class with the entity at the first start and kept with the tree. */

/* (self, method name, inst[, status]): true and self[name](self, inst[, status])'s two first
 * results, or false if self has no such method. In the protected call, so that a script's
 * __index may raise. */
static int task_method(lua_State *L) {
  int nargs = lua_gettop(L) - 2;
  lua_pushvalue(L, 2);
  lua_gettable(L, 1);
  if (lua_isnil(L, -1)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  lua_insert(L, 2); /* true, fn, self, name, args */
  lua_remove(L, 4);
  lua_call(L, nargs + 1, 2);
  return 3;
}

static int is_class(lua_State *L, int idx) {
  lua_pushliteral(L, "is_instance");
  int yes = lua_rawget(L, idx) == LUA_TFUNCTION && lua_getmetatable(L, idx);
  lua_pop(L, yes ? 2 : 1);
  return yes;
}

/* Pushes the task's self; returns 0 (pushing nothing) if making the entity's object failed. */
static int push_task_self(lbt_tree *t, bt_call *c) {
  lua_State *L = t->ctx.L;
  lua_rawgeti(L, t->ctx.fns, (lua_Integer)(intptr_t)c->ud);
  int task = lua_gettop(L);
  if (!is_class(L, task)) return 1;
  int s = bt_def_state(bt_inst_def(c->inst), c->node);
  lbt_tree_table(L, t->ctx.tree, LBT_UV_DATA, 1);
  if (lua_rawgeti(L, -1, s + 1) != LUA_TNIL) {
    lua_replace(L, task);
    lua_settop(L, task);
    return 1;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, task);
  lua_pushvalue(L, t->ctx.inst);
  if (lbt_pcall(t->S, L, 1, 1, t->ctx.msgh, c->inst, c->node, "task object") != LUA_OK) {
    lua_settop(L, task - 1);
    return 0;
  }
  lua_pushvalue(L, -1);
  lua_rawseti(L, task + 1, s + 1);
  lua_replace(L, task);
  lua_settop(L, task);
  return 1;
}

/* Calls the task's method with the entity (and status, if >= 0); leaves its two first results
 * and returns 1, returns 0 if it has no such method, or -1 after reporting an error. */
static int call_task(bt_call *c, const char *method, int status) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  lua_pushcfunction(L, task_method);
  if (!push_task_self(t, c)) {
    lua_pop(L, 1);
    return -1;
  }
  lua_pushstring(L, method);
  lua_pushvalue(L, t->ctx.inst);
  if (status >= 0) lbt_push_status(L, status);
  if (lbt_pcall(t->S, L, status >= 0 ? 4 : 3, 3, t->ctx.msgh, c->inst, c->node, method) != LUA_OK)
    return -1;
  if (lua_toboolean(L, -3)) {
    lua_remove(L, -3);
    return 1;
  }
  lua_pop(L, 3);
  return 0;
}

static int task_start(bt_call *c) {
  int r = call_task(c, "start", -1);
  if (r > 0) lua_pop(tree_of(c)->ctx.L, 2);
  return r < 0 ? -1 : 0;
}

/* update's results: a status (or true for SUCCESS, false for FAILED), then optionally the seconds
 * the task may sleep. */
static int task_update(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->ctx.L;
  int r = call_task(c, "update", -1);
  if (r <= 0) return BT_FAILED;
  int status = lbt_status_code(L, -2);
  if (lua_type(L, -2) == LUA_TBOOLEAN) status = lua_toboolean(L, -2) ? BT_SUCCESS : BT_FAILED;
  if (status != BT_SUCCESS && status != BT_FAILED && status != BT_RUNNING) {
    const char *got = luaL_tolstring(L, -2, NULL);
    lbt_push_path(L, c->inst, c->node);
    lua_pushfstring(L, "%s: update returned %s, not bt.SUCCESS, bt.FAILED or bt.RUNNING",
                    lua_tostring(L, -1), got);
    lbt_report(t->S, L, lua_tostring(L, -1));
    lua_pop(L, 5);
    return BT_FAILED;
  }
  if (status == BT_RUNNING && lua_type(L, -1) == LUA_TNUMBER) bt_node_sleep(c->inst, c->node, lua_tonumber(L, -1));
  lua_pop(L, 2);
  return status;
}

static void task_finish(bt_call *c, bt_status status) {
  if (call_task(c, "finish", status) > 0) lua_pop(tree_of(c)->ctx.L, 2);
}

const bt_task lbt_task_calls = {task_start, task_update, task_finish};

/* Pushes obj[method] above the node object and returns 1 if it is not the builtin method of the
 * node's kind (a script overrides it); otherwise pops both and returns 0. */
static int overridden(lbt_tree *t, bt_call *c, const char *method) {
  lua_State *L = t->ctx.L;
  push_obj(t, c);
  node_member(L, -1, method);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, bt_def_kind(bt_inst_def(c->inst), c->node) + 1);
  lua_pushstring(L, method); /* bt's own classes hold their methods */
  lua_rawget(L, -2);
  int same = lua_rawequal(L, -1, -4);
  lua_pop(L, 3);
  if (!same && !lua_isnil(L, -1)) return 1;
  lua_pop(L, 2);
  return 0;
}

/* tostring(v) for v at 1, for a protected call */
static int to_string(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

/* Calls the pushed obj[method] with obj as self (both popped), with nres results. */
static int call_method(lbt_tree *t, bt_call *c, int nres, const char *what) {
  lua_State *L = t->ctx.L;
  lua_insert(L, -2);
  return lbt_pcall(t->S, L, 1, nres, t->ctx.msgh, c->inst, c->node, what);
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
  lua_State *L = t->ctx.L;
  int type = lua_type(L, -1);
  if (type != LUA_TSTRING && type != LUA_TNUMBER) { /* its __tostring or __name may raise */
    lua_pushcfunction(L, to_string);
    lua_insert(L, -2);
    if (lbt_pcall(t->S, L, 1, 1, t->ctx.msgh, c->inst, c->node, "DBString") != LUA_OK)
      return bt_buf_append(out, "?", 1);
  }
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  int rc = bt_buf_append(out, s, len);
  lua_pop(L, 1);
  return rc;
}

/* Stop: self:OnStop() when the node has an OnStop, whoever defined it. */
static int ops_on_stop(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (lbt_push_on_stop(t->ctx.L, t->ctx.tree, bt_def_state(bt_inst_def(c->inst), c->node)))
    call_method(t, c, 0, "OnStop");
  return BT_OK;
}

const bt_ops lbt_builtin_ops = {NULL, NULL, NULL, ops_on_stop, NULL, NULL};
const bt_ops lbt_custom_ops = {ops_visit, ops_reset, ops_step, ops_on_stop, ops_sleep_time,
                               ops_describe};

/* ---- instances ---- */

/* Moves state that a node object holds before it is in a tree (a Priority's scattered lasttime,
 * a status or trigger set by a script) into the instance. */
static void migrate(lua_State *L, lbt_tree *t, int tree, int obj, int node) {
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
    lbt_tree_table(L, tree, LBT_UV_DATA, 1);
    lua_pushliteral(L, "data");
    lua_rawget(L, obj);
    lua_rawseti(L, -2, bt_def_state(bt_inst_def(t->inst), node) + 1);
    lua_pop(L, 1);
    lua_pushliteral(L, "data");
    lua_pushnil(L);
    lua_rawset(L, obj);
  }
}


/* Whether the tree must hold the object of node n strongly: it is written in Lua (it keeps its
 * own state), or an EventNode or LatchNode (their inst and listener), or it carries fields a
 * script added (an OnStop, for instance). Any other node object can be made anew from the
 * definition when asked for, so the tree holds it only weakly. */
static int must_keep(lua_State *L, const bt_def *def, int n, int obj) {
  static const char *const standard[] = {"name", "children", "parent", "fn", "action", "start",
                                         "continue", "period", "maxreps", "wait_time",
                                         "stoponanycomplete", "task", "success_policy",
                                         "failure_policy", "times", "seconds", "subtree", NULL};
  int kind = bt_def_kind(def, n);
  if (kind == BT_EVENT || kind == BT_LATCH) return 1;
  lua_getmetatable(L, obj);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  int custom = !lua_rawequal(L, -1, -3);
  lua_pop(L, 3);
  if (custom) return 1;
  int extra = 0;
  lua_pushnil(L);
  while (!extra && lua_next(L, obj)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) continue; /* the binding's keys */
    const char *key = lua_tostring(L, -1);
    int known = 0;
    for (const char *const *k = standard; *k && !known; k++) known = strcmp(key, *k) == 0;
    extra = !known;
  }
  if (extra) lua_pop(L, 1);
  return extra;
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

/* Files the object at obj as the object of state s: strongly or weakly (see must_keep). */
static void file_obj(lua_State *L, int tree, int obj, int s, int keep) {
  lbt_tree_table(L, tree, keep ? LBT_UV_OBJS : LBT_UV_VIEWS, 1);
  lua_pushvalue(L, obj);
  lua_rawseti(L, -2, s + 1);
  lua_pop(L, 1);
}

static void bind(lua_State *L, int tree, int obj, int node) {
  lua_pushvalue(L, tree);
  lua_rawsetp(L, obj, &lbt_key_tree);
  lua_pushinteger(L, node);
  lua_rawsetp(L, obj, &lbt_key_node);
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
 * template's fields and class, the entity as inst (for nodes written in Lua, EventNodes and
 * LatchNodes), bound to this tree. Its parent and children are read from the tree. */
static void push_copy(lua_State *L, lbt_tree *t, int tree, int s) {
  const bt_def *def = bt_inst_def(t->inst);
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
  lua_getmetatable(L, tpl);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  int custom = !lua_rawequal(L, -1, -3);
  lua_pop(L, 3);
  int keep = custom || kind == BT_EVENT || kind == BT_LATCH;
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
  const bt_def *def = bt_inst_def(t->inst);
  int node = bt_def_node_of_state(def, s);
  lua_createtable(L, 0, 3);
  int view = lua_gettop(L);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, bt_def_kind(def, node) + 1);
  lua_setmetatable(L, view);
  lua_pop(L, 1);
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
  if (!push_kept(L, tree, 0, LBT_UV_OBJS) && !push_kept(L, tree, 0, LBT_UV_VIEWS)) return 0;
  while (depth > 0) {
    lua_pushliteral(L, "children");
    if (lua_type(L, -2) != LUA_TTABLE || lua_rawget(L, -2) != LUA_TTABLE) {
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
  return push_kept(L, tree, s, LBT_UV_OBJS) || push_kept(L, tree, s, LBT_UV_VIEWS) ||
         (!lbt_is_template(t, s) && find_original(L, tree, bt_inst_def(t->inst), s));
}

/* Pushes the node object of state s: the one that exists, or made anew (an entity's copy of a
 * template in a shared tree, or a view). */
static void push_state_obj(lua_State *L, lbt_tree *t, int tree, int s) {
  if (push_existing(L, t, tree, s)) return;
  if (lbt_is_template(t, s)) push_copy(L, t, tree, s);
  else push_view(L, t, tree, s);
}

/* Pushes what a new object of state s would take its members from: the template it would copy,
 * or the class of the view it would be. */
static void push_model(lua_State *L, lbt_tree *t, int tree, int s) {
  if (lbt_is_template(t, s)) {
    push_template(L, tree, s);
  } else {
    const bt_def *def = bt_inst_def(t->inst);
    lbt_registry_get(L, LBT_REG_CLASSES);
    lua_rawgeti(L, -1, bt_def_kind(def, bt_def_node_of_state(def, s)) + 1);
    lua_remove(L, -2);
  }
}

int lbt_push_on_stop(lua_State *L, int tree, int state) {
  tree = lua_absindex(L, tree);
  lbt_tree *t = lua_touserdata(L, tree);
  if (!push_existing(L, t, tree, state)) {
    int top = lua_gettop(L);
    push_model(L, t, tree, state);
    int has = lua_istable(L, -1) && node_member(L, -1, "OnStop") != LUA_TNIL;
    lua_settop(L, top);
    if (!has) return 0;
    push_state_obj(L, t, tree, state);
  }
  if (node_member(L, -1, "OnStop") != LUA_TNIL) return 1;
  lua_pop(L, 2);
  return 0;
}

void lbt_push_relatives(lua_State *L, int obj, int which) {
  obj = lua_absindex(L, obj);
  int node;
  lbt_tree *t = lbt_node_tree(L, obj, &node);
  lua_rawgetp(L, obj, &lbt_key_tree);
  int tree = lua_gettop(L);
  const bt_def *def = bt_inst_def(t->inst);
  if (which == 0) {
    int p = bt_def_parent(def, bt_def_state(def, node));
    if (p < 0) lua_pushnil(L);
    else push_state_obj(L, t, tree, p);
  } else {
    int n = bt_def_child_count(def, node);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
      push_state_obj(L, t, tree, bt_def_state(def, bt_def_child(def, node, i)));
      lua_rawseti(L, -2, i + 1);
    }
    lua_pushliteral(L, "children"); /* cached: a node's children do not change */
    lua_pushvalue(L, -2);
    lua_rawset(L, obj);
  }
  lua_remove(L, tree);
}

/* The entity subscribes each EventNode of a template (of a shared definition, or in a subtree)
 * through its own inst, or, if it has no ListenForEvent, the node is one that FireEvent delivers
 * to. */
/* Adds an EventNode to those FireEvent reaches. */
static void add_event(lua_State *L, int tree, int node) {
  lbt_tree_table(L, tree, LBT_UV_EVENTS, 1);
  lua_pushinteger(L, node);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 1);
}

static void subscribe_events(lua_State *L, lbt_tree *t, int tree, int inst) {
  const bt_def *def = bt_inst_def(t->inst);
  int listens = 0;
  int it = lua_type(L, inst);
  if (it == LUA_TTABLE || it == LUA_TUSERDATA) {
    listens = lua_getfield(L, inst, "ListenForEvent") != LUA_TNIL;
    lua_pop(L, 1);
  }
  for (int s = 0; s < bt_def_states(def); s++) {
    int node = bt_def_node_of_state(def, s);
    if (bt_def_kind(def, node) != BT_EVENT || !lbt_is_template(t, s)) continue;
    if (!listens) {
      add_event(L, tree, node);
      continue;
    }
    push_state_obj(L, t, tree, s);
    int obj = lua_gettop(L);
    lbt_push_event_listener(L, obj);
    lua_pushliteral(L, "eventfn");
    lua_pushvalue(L, -2);
    lua_rawset(L, obj);
    lua_getfield(L, inst, "ListenForEvent");
    lua_pushvalue(L, inst);
    lua_getfield(L, obj, "event");
    lua_pushvalue(L, obj + 1);
    lua_call(L, 3, 0);
    lua_settop(L, obj - 1);
  }
}

int lbt_instantiate(lua_State *L, int def_idx, int inst) {
  def_idx = lua_absindex(L, def_idx);
  inst = lua_absindex(L, inst);
  lbt_def *d = lbt_test_def(L, def_idx);
  /* one block: the lbt_tree, then the instance */
  size_t head = (sizeof(lbt_tree) + 7) & ~(size_t)7;
  lbt_tree *t = lua_newuserdatauv(L, head + bt_def_inst_size(d->def), LBT_UV_COUNT);
  int tree = lua_gettop(L);
  memset(t, 0, sizeof *t);
  t->magic = LBT_TREE_MAGIC;
  t->S = lbt_state_get(L);
  t->shared = d->shared;
  t->nown = d->nown;
  int templated = d->nown < d->nnodes; /* a shared definition, or subtrees */
  /* a shared definition scatters each entity's Priorities with math.random, as do subtrees; a
   * tree built for one entity took its scatter from the PriorityNode constructors (compile.c
   * marks those noscatter when the tree has subtrees) */
  int rc = bt_inst_init(&t->inst, (char *)t + head, d->def, &t->S->host, t,
                        templated ? 0 : BT_INST_NOSCATTER);
  if (rc != BT_OK) return luaL_error(L, "not enough memory");
  luaL_setmetatable(L, TREE_META);
  const bt_def *def = d->def;
  int states = bt_def_states(def);
  lua_getiuservalue(L, def_idx, LBT_DEF_UV_FNS);
  lua_setiuservalue(L, tree, LBT_UV_FNS);
  lua_pushvalue(L, inst);
  lua_setiuservalue(L, tree, LBT_UV_INST);
  lua_pushvalue(L, def_idx);
  lua_setiuservalue(L, tree, LBT_UV_DEF);

  if (d->shared) {
    subscribe_events(L, t, tree, inst);
    lua_settop(L, tree);
    return 1;
  }
  /* a tree built for one entity: its objects become views of their state in the instance; the
   * definition, made for this tree alone, lets go of them */

  lua_getiuservalue(L, def_idx, LBT_DEF_UV_TEMPLATES);
  int objs = lua_gettop(L);
  for (int s = 0; s < states; s++) {
    if (lbt_is_template(t, s)) continue; /* a subtree's: copied on use */
    lua_rawgeti(L, objs, s + 1);
    int obj = lua_gettop(L);
    int node = bt_def_node_of_state(def, s);
    migrate(L, t, tree, obj, node);
    if (bt_def_kind(def, node) == BT_EVENT) {
      lua_pushliteral(L, "eventfn");
      if (lua_rawget(L, obj) == LUA_TNIL) add_event(L, tree, node);
      lua_pop(L, 1);
    }
    /* a node's parent is read from the tree from now on (lbt_push_relatives), so that holding a
     * node holds its subtree (its children) but not the tree above it */
    lua_pushliteral(L, "parent");
    lua_pushnil(L);
    lua_rawset(L, obj);
    bind(L, tree, obj, node);
    /* the objects the tree needs are held; the others are found from the root while whoever
     * holds them does (find_original), and made anew as views if the tree is asked for them later */
    int keep = must_keep(L, def, node, obj);
    if (keep || s == 0) file_obj(L, tree, obj, s, keep);
    lua_pop(L, 1);
    if (templated) { /* the definition keeps the subtrees' templates only */
      lua_pushnil(L);
      lua_rawseti(L, objs, s + 1);
    }
  }
  if (templated) {
    subscribe_events(L, t, tree, inst);
  } else {
    lua_pushnil(L);
    lua_setiuservalue(L, def_idx, LBT_DEF_UV_TEMPLATES);
  }
  lua_pushnil(L);
  lua_setiuservalue(L, def_idx, LBT_DEF_UV_ROOT);
  lua_settop(L, tree);
  return 1;
}

/* BT(inst, root or definition): called through the BT table's __call, so the table is argument 1 */
static int tree_new(lua_State *L) {
  lua_settop(L, 3);
  if (lbt_test_def(L, 3)) return lbt_instantiate(L, 3, 2);
  if (!lbt_is_node(L, 3)) return lbt_typeerror(L, 3, 2, "BT", "node or definition");
  lbt_compile(L, 3, 0, "BT", NULL);
  return lbt_instantiate(L, -1, 2);
}


/* ---- tree methods ---- */

static lbt_tree *check_tree(lua_State *L, const char *method) {
  lbt_tree *t = lbt_test_tree(L, 1);
  if (!t)
    luaL_error(L, "bad self to '%s' (BT expected, got %s)", method, luaL_typename(L, 1));
  if (!t->inst) luaL_error(L, "%s: the tree was garbage collected", method);
  return t;
}

static int tree_update(lua_State *L) {
  lbt_tree *t = check_tree(L, "Update");
  if (bt_inst_thinking(t->inst))
    return luaL_error(L, "Update: the tree is thinking (Update called from inside its own think)");
  lbt_ctx saved;
  lua_State *saved_L;
  enter_tree(L, t, 1, &saved, &saved_L);
  lbt_state *S = t->S;
  int outer = lbt_time_group_begin(S);
  S->thinking++;
  bt_inst_update(t->inst);
  S->thinking--;
  lbt_time_group_end(S, outer);
  leave_tree(L, t, &saved, saved_L);
  lbt_run_deferred(L, t->S); /* a reload asked for during the think */
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
  int outer = lbt_time_group_begin(t->S);
  int has = bt_inst_sleep_time(t->inst, &v);
  lbt_time_group_end(t->S, outer);
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
  int outer = lbt_time_group_begin(t->S);
  bt_inst_dump(t->inst, &buf);
  lbt_time_group_end(t->S, outer);
  lbt_leave(L, 1, &saved, saved_L);
  return lbt_push_buf(L, &buf);
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
    lbt_tree_table(L, tree, LBT_UV_DATA, 1);
    lua_pushvalue(L, data);
    lua_rawseti(L, -2, bt_def_state(bt_inst_def(t->inst), node) + 1);
    lua_pop(L, 1);
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
      lbt_pcall(lbt_state_get(L), L, 1, 0, 0, t ? t->inst : NULL, node, "brain:ForceUpdate");
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
  lbt_tree_table(L, 1, LBT_UV_EVENTS, 1);
  lbt_tree *t = lua_touserdata(L, 1);
  int n = (int)lua_rawlen(L, 4);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, 4, i);
    int node = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (!t->inst) break;
    push_state_obj(L, t, 1, bt_def_state(bt_inst_def(t->inst), node));
    lua_getfield(L, -1, "event");
    if (lua_rawequal(L, -1, 2)) lbt_fire(L, -2, 3);
    lua_pop(L, 2);
  }
  return 0;
}

static int tree_gc(lua_State *L) {
  lbt_tree *t = lbt_test_tree(L, 1); /* a script may call it by hand, with anything */
  if (t && t->inst && !bt_inst_thinking(t->inst)) {
    bt_inst_fini(t->inst);
    t->inst = NULL;
  }
  return 0;
}

/* The BT table's members (so scripts may patch BT's methods), then tree.inst and tree.root.
 * Upvalues: the BT table, "inst", "root". */
static int tree_index(lua_State *L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  lbt_tree *t = lbt_test_tree(L, 1); /* a script may call it by hand, with anything */
  if (!t) return 0;
  if (lua_rawequal(L, 2, lua_upvalueindex(2))) {
    lua_getiuservalue(L, 1, LBT_UV_INST);
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(3))) {
    if (!t->inst) return 0;
    push_state_obj(L, t, 1, 0);
    return 1;
  }
  return 0;
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
    {"__tostring", tree_tostring},
    {"__gc", tree_gc},
    {NULL, NULL},
};

void lbt_open_tree(lua_State *L, int module) {
  luaL_newmetatable(L, TREE_META);
  luaL_setfuncs(L, tree_meta, 0);
  lbt_registry_get(L, LBT_REG_BT);
  lua_pushliteral(L, "inst");
  lua_pushliteral(L, "root");
  lua_pushcclosure(L, tree_index, 3);
  lua_setfield(L, -2, "__index");
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
