/*
 * node.c: Don't Starve's node classes in Lua. Each is a Class whose instances are plain tables
 * (so scripts may add fields and override methods) holding what the constructor was given.
 * Once BT wraps a tree, a node's state (status, lastresult, idx, lasttime, ...) lives in the
 * tree's C instance, and these names read and write it through the classes' __index/__newindex.
 */
#include <math.h>
#include <string.h>

#include "lbt.h"

const char lbt_key_tree = 0;
const char lbt_key_node = 0;

/* ---- view codes: node fields that live in the C instance once the node is in a tree ---- */

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
  VK_DATA,
  VK_PARENT,
  VK_CHILDREN,
  VK_COUNT
};

static const char *const view_names[VK_COUNT] = {
    NULL,           "status",   "lastresult",    "idx",       "rep",       "lasttime",
    "wake_time",    "nextupdatetime", "triggered", "running", "lastlatchtime",
    "currentlatchduration", "data", "parent", "children"};

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

int lbt_view_code(lua_State *L, int key) {
  if (lua_type(L, key) != LUA_TSTRING) return VK_NONE;
  key = lua_absindex(L, key);
  lbt_registry_get(L, LBT_REG_VIEWKEYS);
  lua_pushvalue(L, key);
  lua_rawget(L, -2);
  int code = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return code;
}

int lbt_status_code(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  idx = lua_absindex(L, idx);
  lbt_registry_get(L, LBT_REG_STATUSCODES);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 2);
  return code;
}

void lbt_push_status(lua_State *L, int status) {
  lbt_registry_get(L, LBT_REG_STATUSES);
  lua_rawgeti(L, -1, status + 1);
  lua_remove(L, -2);
}

int lbt_view_get(lua_State *L, lbt_tree *t, int node, int code) {
  const bt_def *def = bt_inst_def(t->inst);
  switch (code) {
    case VK_STATUS: lbt_push_status(L, bt_node_status(t->inst, node)); return 1;
    case VK_LASTRESULT: lbt_push_status(L, bt_node_last(t->inst, node)); return 1;
    default: break;
  }
  if (code <= VK_NONE || code >= VK_DATA || !bt_node_has_field(def, node, view_fields[code])) return 0;
  double v;
  if (bt_node_get(t->inst, node, view_fields[code], &v) != 1) {
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

int lbt_view_set(lua_State *L, lbt_tree *t, int node, int code, int value) {
  const bt_def *def = bt_inst_def(t->inst);
  if (code == VK_STATUS) {
    int s = lbt_status_code(L, value);
    if (s < 0)
      return luaL_error(L, "invalid status %s for node '%s' (READY, SUCCESS, FAILED or RUNNING)",
                        luaL_tolstring(L, value, NULL), bt_def_name(def, node));
    bt_node_set_status(t->inst, node, (bt_status)s);
    return 1;
  }
  if (code == VK_LASTRESULT)
    return luaL_error(L, "lastresult of node '%s' is set by the tree's think, not by scripts",
                      bt_def_name(def, node));
  if (code <= VK_NONE || code >= VK_DATA || !bt_node_has_field(def, node, view_fields[code]))
    return 0;
  int type = lua_type(L, value);
  double v;
  const double *pv = &v;
  if (type == LUA_TNIL) pv = NULL;
  else if (code == VK_TRIGGERED || code == VK_RUNNING) v = lua_toboolean(L, value);
  else if (type == LUA_TNUMBER) v = lua_tonumber(L, value);
  else
    return luaL_error(L, "field '%s' of node '%s' takes a number, got %s", view_names[code],
                      bt_def_name(def, node), luaL_typename(L, value));
  if (bt_node_set(t->inst, node, view_fields[code], pv) != BT_OK)
    return luaL_error(L, "bad value for field '%s' of node '%s'", view_names[code],
                      bt_def_name(def, node));
  return 1;
}

/* Removes from obj the raw fields that are views of the node's state in a tree: kept, they would
 * hide the state of the copies made from a template. Fields the node's kind does not have stay. */
void lbt_strip_views(lua_State *L, const bt_def *def, int node, int obj) {
  obj = lua_absindex(L, obj);
  for (int code = VK_NONE + 1; code < VK_COUNT; code++) {
    if (code == VK_PARENT || code == VK_CHILDREN) continue;
    int applies = code == VK_STATUS || code == VK_LASTRESULT ||
                  (code == VK_DATA ? bt_def_kind(def, node) == BT_EVENT
                                   : bt_node_has_field(def, node, view_fields[code]));
    if (!applies) continue;
    lua_pushstring(L, view_names[code]);
    lua_pushnil(L);
    lua_rawset(L, obj);
  }
}

/* ---- node objects ---- */

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

/* What a field reads before the node is in a tree (Don't Starve's constructor values). */
static void push_unbound(lua_State *L, int kind, int code) {
  switch (code) {
    case VK_STATUS:
    case VK_LASTRESULT: lua_pushliteral(L, "READY"); return;
    case VK_IDX:
      if (kind == BT_SEQUENCE || kind == BT_SELECTOR || kind == BT_LOOP) lua_pushinteger(L, 1);
      else lua_pushnil(L);
      return;
    case VK_REP:
      if (kind == BT_LOOP) lua_pushinteger(L, 0);
      else lua_pushnil(L);
      return;
    case VK_LASTLATCHTIME:
      if (kind == BT_LATCH) lua_pushnumber(L, -HUGE_VAL);
      else lua_pushnil(L);
      return;
    case VK_LATCHDURATION:
      if (kind == BT_LATCH) lua_pushinteger(L, 0);
      else lua_pushnil(L);
      return;
    default: lua_pushnil(L); return;
  }
}

/* __index of every node class: the class's members, then the node's state. */
static int node_index(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE); /* a script may call it by hand, with anything */
  if (lua_getmetatable(L, 1)) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL) return 1;
    lua_pop(L, 2);
  }
  int code = lbt_view_code(L, 2);
  if (code == VK_NONE) return 0;
  int node;
  lbt_tree *t = lbt_node_tree(L, 1, &node);
  if (!t) {
    push_unbound(L, lbt_node_kind(L, 1), code);
    return 1;
  }
  if (code == VK_PARENT || code == VK_CHILDREN) {
    lbt_push_relatives(L, 1, code == VK_CHILDREN);
    return 1;
  }
  if (code == VK_DATA) {
    if (bt_def_kind(bt_inst_def(t->inst), node) != BT_EVENT) return 0;
    lua_rawgetp(L, 1, &lbt_key_tree);
    lbt_tree_table(L, lua_gettop(L), LBT_UV_DATA, 0);
    if (lua_isnil(L, -1)) return 1;
    lua_rawgeti(L, -1, bt_def_state(bt_inst_def(t->inst), node) + 1);
    return 1;
  }
  return lbt_view_get(L, t, node, code) > 0 ? 1 : 0;
}

/* __newindex of every node class: the node's state, or a plain field. */
static int node_newindex(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE); /* a script may call it by hand, with anything */
  int code = lbt_view_code(L, 2);
  int node;
  lbt_tree *t = code ? lbt_node_tree(L, 1, &node) : NULL;
  if (t) {
    if (code == VK_DATA && bt_def_kind(bt_inst_def(t->inst), node) == BT_EVENT) {
      lua_rawgetp(L, 1, &lbt_key_tree);
      lbt_tree_table(L, lua_gettop(L), LBT_UV_DATA, 1);
      lua_pushvalue(L, 3);
      lua_rawseti(L, -2, bt_def_state(bt_inst_def(t->inst), node) + 1);
      return 0;
    }
    if (lbt_view_set(L, t, node, code, 3)) return 0;
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 0;
}

/* ---- argument checks, in the words of luaL_argerror ---- */

static void check_self(lua_State *L, const char *fname) {
  if (lua_type(L, 1) != LUA_TTABLE)
    luaL_error(L, "bad self to '%s' (the node under construction expected, got %s)", fname,
               luaL_typename(L, 1));
}

static int is_callable(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TFUNCTION) return 1;
  if (!lua_getmetatable(L, idx)) return 0;
  int yes = lua_getfield(L, -1, "__call") != LUA_TNIL;
  lua_pop(L, 2);
  return yes;
}

/* Constructor argument `arg` (1-based, after self) is at stack index arg + 1. */
static void check_function(lua_State *L, int arg, const char *fname) {
  if (!is_callable(L, arg + 1)) lbt_typeerror(L, arg + 1, arg, fname, "function");
}

static void check_optname(lua_State *L, int arg, const char *fname) {
  int t = lua_type(L, arg + 1);
  if (t > LUA_TNIL && t != LUA_TSTRING) lbt_typeerror(L, arg + 1, arg, fname, "string or nil");
}

static void check_optnumber(lua_State *L, int arg, const char *fname) {
  int t = lua_type(L, arg + 1);
  if (t > LUA_TNIL && t != LUA_TNUMBER) lbt_typeerror(L, arg + 1, arg, fname, "number or nil");
}

static void check_node(lua_State *L, int arg, const char *fname) {
  if (!lbt_is_node(L, arg + 1)) lbt_typeerror(L, arg + 1, arg, fname, "node");
}

static void check_children(lua_State *L, int arg, const char *fname) {
  int idx = arg + 1;
  if (lua_type(L, idx) != LUA_TTABLE) lbt_typeerror(L, idx, arg, fname, "table");
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, idx, i);
    if (!lbt_is_node(L, -1)) {
      const char *msg = lua_pushfstring(L, "node expected at index %I, got %s", i, luaL_typename(L, -1));
      lbt_argerror(L, arg, fname, msg);
    }
    lua_pop(L, 1);
  }
  lua_Integer keys = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    keys++;
    lua_pop(L, 1);
  }
  if (keys != n) lbt_argerror(L, arg, fname, "children must be a list of nodes without holes");
}

/* Sets name and children as BehaviourNode._ctor does, and each child's parent. */
static void init_node(lua_State *L, const char *name, int name_idx, int children_idx) {
  name_idx = name_idx ? lua_absindex(L, name_idx) : 0;
  children_idx = children_idx ? lua_absindex(L, children_idx) : 0;
  lua_pushliteral(L, "name");
  if (name_idx && !lua_isnoneornil(L, name_idx)) lua_pushvalue(L, name_idx);
  else lua_pushstring(L, name);
  lua_rawset(L, 1);
  if (!children_idx || lua_isnoneornil(L, children_idx)) return;
  lua_pushliteral(L, "children");
  lua_pushvalue(L, children_idx);
  lua_rawset(L, 1);
  lua_Integer n = (lua_Integer)lua_rawlen(L, children_idx);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, children_idx, i);
    lua_pushliteral(L, "parent");
    lua_pushvalue(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
}

static void set_field(lua_State *L, const char *key, int value_idx) {
  lua_pushstring(L, key);
  lua_pushvalue(L, value_idx);
  lua_rawset(L, 1);
}

/* Wraps the single child at stack index idx in a new children table, pushed. */
static int push_single(lua_State *L, int idx) {
  lua_createtable(L, 1, 0);
  if (!lua_isnil(L, idx)) {
    lua_pushvalue(L, idx);
    lua_rawseti(L, -2, 1);
  }
  return lua_gettop(L);
}

/* ---- constructors (each a class's _ctor: self, then Don't Starve's arguments) ---- */

static int ctor_behaviour(lua_State *L) {
  check_self(L, "BehaviourNode");
  lua_settop(L, 3);
  if (!lua_isnoneornil(L, 3)) check_children(L, 2, "BehaviourNode");
  init_node(L, "", 2, lua_isnoneornil(L, 3) ? 0 : 3);
  return 0;
}

static int ctor_decorator(lua_State *L) {
  check_self(L, "DecoratorNode");
  if (!lua_isnoneornil(L, 3)) check_node(L, 2, "DecoratorNode");
  lua_settop(L, 3);
  init_node(L, "Decorator", 2, push_single(L, 3));
  return 0;
}

static int ctor_composite(lua_State *L, const char *fname, const char *name) {
  check_self(L, fname);
  lua_settop(L, 2);
  check_children(L, 1, fname);
  init_node(L, name, 0, 2);
  return 0;
}

static int ctor_sequence(lua_State *L) { return ctor_composite(L, "SequenceNode", "Sequence"); }
static int ctor_selector(lua_State *L) { return ctor_composite(L, "SelectorNode", "Selector"); }
static int ctor_random(lua_State *L) { return ctor_composite(L, "RandomNode", "Random"); }

/* math.random from the math library, as Don't Starve calls it */
static void push_math_random(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "math");
  lua_getfield(L, -1, "random");
  lua_replace(L, -3);
  lua_pop(L, 1);
}

static int ctor_priority(lua_State *L) {
  check_self(L, "PriorityNode");
  check_children(L, 1, "PriorityNode");
  check_optnumber(L, 2, "PriorityNode");
  lua_settop(L, 4);
  init_node(L, "Priority", 0, 2);
  if (lua_isnil(L, 3)) lua_pushinteger(L, 1);
  else lua_pushvalue(L, 3);
  int period = lua_gettop(L);
  set_field(L, "period", period);
  if (!lua_toboolean(L, 4)) {
    /* lasttime = period * 0.5 + (period * math.random()) */
    lua_pushvalue(L, period);
    lua_pushnumber(L, 0.5);
    lua_arith(L, LUA_OPMUL);
    lua_pushvalue(L, period);
    push_math_random(L);
    lua_call(L, 0, 1);
    lua_arith(L, LUA_OPMUL);
    lua_arith(L, LUA_OPADD);
    set_field(L, "lasttime", lua_gettop(L));
  }
  return 0;
}

/* A composite whose constructor takes (children, name). */
static int ctor_named_composite(lua_State *L, const char *fname, const char *name) {
  check_self(L, fname);
  lua_settop(L, 3);
  check_children(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, name, 3, 2);
  return 0;
}

static int ctor_parallel(lua_State *L) { return ctor_named_composite(L, "ParallelNode", "Parallel"); }

static int ctor_parallel_any(lua_State *L) {
  check_self(L, "ParallelNodeAny");
  lua_settop(L, 2);
  check_children(L, 1, "ParallelNodeAny");
  init_node(L, "Parallel(Any)", 0, 2);
  lua_pushboolean(L, 1);
  set_field(L, "stoponanycomplete", lua_gettop(L));
  return 0;
}

static int ctor_loop(lua_State *L) {
  check_self(L, "LoopNode");
  check_children(L, 1, "LoopNode");
  check_optnumber(L, 2, "LoopNode");
  lua_settop(L, 3);
  init_node(L, "Sequence", 0, 2);
  set_field(L, "maxreps", 3);
  return 0;
}

static int ctor_fn_leaf(lua_State *L, const char *fname, const char *name, const char *field) {
  check_self(L, fname);
  lua_settop(L, 3);
  check_function(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, name, 3, 0);
  set_field(L, field, 2);
  return 0;
}

static int ctor_condition(lua_State *L) { return ctor_fn_leaf(L, "ConditionNode", "Condition", "fn"); }
static int ctor_conditionwait(lua_State *L) { return ctor_fn_leaf(L, "ConditionWaitNode", "Wait", "fn"); }
static int ctor_action(lua_State *L) { return ctor_fn_leaf(L, "ActionNode", "ActionNode", "action"); }

static int ctor_multicondition(lua_State *L) {
  check_self(L, "MultiConditionNode");
  lua_settop(L, 4);
  check_function(L, 1, "MultiConditionNode");
  check_function(L, 2, "MultiConditionNode");
  check_optname(L, 3, "MultiConditionNode");
  init_node(L, "Condition", 4, 0);
  set_field(L, "start", 2);
  set_field(L, "continue", 3);
  return 0;
}

static void check_time(lua_State *L, int arg, const char *fname) {
  if (lua_type(L, arg + 1) != LUA_TNUMBER && !is_callable(L, arg + 1))
    lbt_typeerror(L, arg + 1, arg, fname, "number or function");
}

static int ctor_wait(lua_State *L) {
  check_self(L, "WaitNode");
  lua_settop(L, 2);
  check_time(L, 1, "WaitNode");
  init_node(L, "Wait", 0, 0);
  set_field(L, "wait_time", 2);
  return 0;
}

static int ctor_decorator_kind(lua_State *L, const char *fname, const char *name) {
  check_self(L, fname);
  check_node(L, 1, fname);
  lua_settop(L, 2);
  init_node(L, name, 0, push_single(L, 2));
  return 0;
}

static int ctor_not(lua_State *L) { return ctor_decorator_kind(L, "NotDecorator", "Not"); }
static int ctor_failifrunning(lua_State *L) {
  return ctor_decorator_kind(L, "FailIfRunningDecorator", "FailIfRunning");
}
static int ctor_failifsuccess(lua_State *L) {
  return ctor_decorator_kind(L, "FailIfSuccessDecorator", "FailIfSuccess");
}

/* The listener an EventNode registers: function(inst, data) self:OnEvent(data) end */
static int event_listener(lua_State *L) {
  lua_settop(L, 2);
  int self = lua_upvalueindex(1);
  int node = -1;
  lbt_tree *t = lbt_node_tree(L, self, &node);
  lua_getfield(L, self, "OnEvent");
  lua_pushvalue(L, self);
  lua_pushvalue(L, 2);
  lbt_pcall(lbt_state_get(L), L, 2, 0, 0, t ? t->inst : NULL, node, "event");
  return 0;
}

void lbt_push_event_listener(lua_State *L, int obj) {
  lua_pushvalue(L, obj);
  lua_pushcclosure(L, event_listener, 1);
}

static int ctor_event(lua_State *L) {
  check_self(L, "EventNode");
  lua_settop(L, 5);
  int t = lua_type(L, 2);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA && t != LUA_TNIL)
    lbt_typeerror(L, 2, 1, "EventNode", "table or nil");
  if (lua_type(L, 3) != LUA_TSTRING && lua_type(L, 3) != LUA_TNUMBER)
    lbt_typeerror(L, 3, 2, "EventNode", "string");
  if (!lua_isnil(L, 4)) check_node(L, 3, "EventNode");
  check_optnumber(L, 4, "EventNode");
  lua_pushfstring(L, "Event(%s)", lua_tostring(L, 3));
  int name = lua_gettop(L);
  init_node(L, NULL, name, push_single(L, 4));
  set_field(L, "inst", 2);
  set_field(L, "event", 3);
  if (lua_isnil(L, 5)) lua_pushinteger(L, 0);
  else lua_pushvalue(L, 5);
  set_field(L, "priority", lua_gettop(L));
  if (t != LUA_TNIL && lua_getfield(L, 2, "ListenForEvent") != LUA_TNIL) {
    lbt_push_event_listener(L, 1);
    int fn = lua_gettop(L);
    set_field(L, "eventfn", fn);
    lua_pushvalue(L, fn - 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, fn);
    lua_call(L, 3, 0);
  }
  return 0;
}

static int ctor_latch(lua_State *L) {
  check_self(L, "LatchNode");
  lua_settop(L, 4);
  check_time(L, 2, "LatchNode");
  check_node(L, 3, "LatchNode");
  lua_pushfstring(L, "Latch (%s)", luaL_tolstring(L, 3, NULL));
  int name = lua_gettop(L);
  init_node(L, NULL, name, push_single(L, 4));
  set_field(L, "inst", 2);
  set_field(L, "latchduration", 3);
  return 0;
}

/* ---- the kinds bt adds (docs/nodes.md) ---- */

/* TaskNode(task, name): task is a table, an object or a Class with an update method. */
static int ctor_task(lua_State *L) {
  check_self(L, "TaskNode");
  lua_settop(L, 3);
  if (lua_type(L, 2) != LUA_TTABLE) lbt_typeerror(L, 2, 1, "TaskNode", "table");
  lua_getfield(L, 2, "update");
  if (!is_callable(L, -1)) lbt_argerror(L, 1, "TaskNode", "the task has no update function");
  lua_pop(L, 1);
  check_optname(L, 2, "TaskNode");
  init_node(L, "Task", 3, 0);
  set_field(L, "task", 2);
  return 0;
}

/* A policy argument: nil (the default), "REQUIRE_ONE" or "REQUIRE_ALL"; pushes the policy. */
static void push_policy(lua_State *L, int arg, const char *fname, const char *dflt) {
  int idx = arg + 1;
  if (lua_isnil(L, idx)) {
    lua_pushstring(L, dflt);
    return;
  }
  const char *p = lua_tostring(L, idx);
  if (lua_type(L, idx) != LUA_TSTRING || (strcmp(p, "REQUIRE_ONE") != 0 && strcmp(p, "REQUIRE_ALL") != 0))
    lbt_argerror(L, arg, fname, "bt.REQUIRE_ONE or bt.REQUIRE_ALL expected");
  lua_pushvalue(L, idx);
}

static int ctor_policy_parallel(lua_State *L) {
  check_self(L, "PolicyParallelNode");
  lua_settop(L, 5);
  check_children(L, 1, "PolicyParallelNode");
  check_optname(L, 4, "PolicyParallelNode");
  push_policy(L, 2, "PolicyParallelNode", "REQUIRE_ALL");
  push_policy(L, 3, "PolicyParallelNode", "REQUIRE_ONE");
  init_node(L, "PolicyParallel", 5, 2);
  set_field(L, "success_policy", 6);
  set_field(L, "failure_policy", 7);
  return 0;
}

/* MonitorNode(conditions, child, name): the children are the conditions, then child. */
static int ctor_monitor(lua_State *L) {
  check_self(L, "MonitorNode");
  lua_settop(L, 4);
  check_children(L, 1, "MonitorNode");
  check_node(L, 2, "MonitorNode");
  check_optname(L, 3, "MonitorNode");
  lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
  lua_createtable(L, (int)n + 1, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, 2, i);
    lua_rawseti(L, -2, i);
  }
  lua_pushvalue(L, 3);
  lua_rawseti(L, -2, n + 1);
  init_node(L, "Monitor", 4, lua_gettop(L));
  return 0;
}

static int ctor_active_selector(lua_State *L) {
  return ctor_named_composite(L, "ActiveSelectorNode", "ActiveSelector");
}

/* A decorator of bt's with a number parameter: field = the number at arg 2, then a name. */
static int ctor_counted(lua_State *L, const char *fname, const char *name, const char *field) {
  check_self(L, fname);
  lua_settop(L, 4);
  check_node(L, 1, fname);
  check_optname(L, 3, fname);
  int isnum = lua_type(L, 3) == LUA_TNUMBER;
  double v = lua_tonumber(L, 3);
  if (field[0] == 't') { /* times: nil (for ever) or at least 1 */
    if (!lua_isnil(L, 3) && !(isnum && v >= 1))
      lbt_argerror(L, 2, fname, "a number of times, at least 1, or nil expected");
  } else if (!(isnum && v >= 0 && v <= 1e300)) { /* seconds */
    lbt_argerror(L, 2, fname, "a number of seconds, at least 0, expected");
  }
  init_node(L, name, 4, push_single(L, 2));
  set_field(L, field, 3);
  return 0;
}

static int ctor_repeat(lua_State *L) { return ctor_counted(L, "RepeatNode", "Repeat", "times"); }
static int ctor_cooldown(lua_State *L) {
  return ctor_counted(L, "CooldownDecorator", "Cooldown", "seconds");
}
static int ctor_timeout(lua_State *L) { return ctor_counted(L, "TimeoutDecorator", "Timeout", "seconds"); }

static int ctor_named_decorator(lua_State *L, const char *fname, const char *name) {
  check_self(L, fname);
  lua_settop(L, 3);
  check_node(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, name, 3, push_single(L, 2));
  return 0;
}

static int ctor_succeed(lua_State *L) {
  return ctor_named_decorator(L, "AlwaysSucceedDecorator", "AlwaysSucceed");
}
static int ctor_fail(lua_State *L) { return ctor_named_decorator(L, "AlwaysFailDecorator", "AlwaysFail"); }

/* SubtreeNode(name): runs the definition registered as name (bt.define(root, name)), looked up
 * when the tree that holds it is compiled. Its name in dumps is the subtree's. */
static int ctor_subtree(lua_State *L) {
  check_self(L, "SubtreeNode");
  lua_settop(L, 2);
  if (lua_type(L, 2) != LUA_TSTRING) lbt_typeerror(L, 2, 1, "SubtreeNode", "string");
  if (lua_rawlen(L, 2) == 0) lbt_argerror(L, 1, "SubtreeNode", "the name of a subtree expected, got \"\"");
  init_node(L, NULL, 2, 0);
  set_field(L, "subtree", 2);
  return 0;
}

/* ---- WhileNode, IfNode, IfThenDoWhileNode: functions that compose nodes ---- */

static void push_class(lua_State *L, int kind) {
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  lua_remove(L, -2);
}

/* Pushes kind_class{ first, node } where first is on top of the stack (popped). */
static void compose(lua_State *L, int kind, int node_idx) {
  int first = lua_gettop(L);
  push_class(L, kind);
  lua_createtable(L, 2, 0);
  lua_pushvalue(L, first);
  lua_rawseti(L, -2, 1);
  lua_pushvalue(L, node_idx);
  lua_rawseti(L, -2, 2);
  lua_call(L, 1, 1);
  lua_remove(L, first);
}

static int guarded(lua_State *L, const char *fname, int composite) {
  if (!is_callable(L, 1)) lbt_typeerror(L, 1, 1, fname, "function");
  int t = lua_type(L, 2);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TSTRING) lbt_typeerror(L, 2, 2, fname, "string or nil");
  if (!lbt_is_node(L, 3)) lbt_typeerror(L, 3, 3, fname, "node");
  lua_settop(L, 3);
  push_class(L, BT_CONDITION);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_call(L, 2, 1);
  compose(L, composite, 3);
  return 1;
}

static int l_while(lua_State *L) { return guarded(L, "WhileNode", BT_PARALLEL); }
static int l_if(lua_State *L) { return guarded(L, "IfNode", BT_SEQUENCE); }

static int l_ifthendowhile(lua_State *L) {
  const char *fname = "IfThenDoWhileNode";
  if (!is_callable(L, 1)) lbt_typeerror(L, 1, 1, fname, "function");
  if (!is_callable(L, 2)) lbt_typeerror(L, 2, 2, fname, "function");
  int t = lua_type(L, 3);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TSTRING) lbt_typeerror(L, 3, 3, fname, "string or nil");
  if (!lbt_is_node(L, 4)) lbt_typeerror(L, 4, 4, fname, "node");
  lua_settop(L, 4);
  push_class(L, BT_MULTICONDITION);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_call(L, 3, 1);
  compose(L, BT_PARALLEL, 4);
  return 1;
}

/* ---- methods: the Don't Starve class's own method, applied to a node of a tree ---- */

typedef struct bound {
  lbt_tree *t;
  int node;
  int tree_idx;
  lbt_ctx saved;
  lua_State *saved_L;
} bound;

/* Checks that self (index 1) is a node in a tree, pushes its tree and enters it. */
static void enter_self(lua_State *L, const char *method, bound *b) {
  if (!lbt_is_node(L, 1))
    luaL_error(L, "bad self to '%s' (node expected, got %s)", method, luaL_typename(L, 1));
  b->t = lbt_node_tree(L, 1, &b->node);
  if (!b->t) {
    lua_getfield(L, 1, "name");
    luaL_error(L, "%s: node '%s' is not in a tree yet (wrap its root with BT first)", method,
               luaL_tolstring(L, -1, NULL));
  }
  lua_rawgetp(L, 1, &lbt_key_tree);
  b->tree_idx = lua_gettop(L);
  lbt_enter(L, b->tree_idx, &b->saved, &b->saved_L);
}

static void leave_self(lua_State *L, bound *b) { lbt_leave(L, b->tree_idx, &b->saved, b->saved_L); }

static int method_kind(lua_State *L) { return (int)lua_tointeger(L, lua_upvalueindex(1)); }

static int bad_kind(lua_State *L, const char *method, int kind) {
  return luaL_error(L, "bad self to '%s' (a %s's method called on another kind of node)", method,
                    bt_kind_name(kind));
}

static int m_visit(lua_State *L) {
  bound b;
  enter_self(L, "Visit", &b);
  int rc = bt_node_visit_as(b.t->inst, b.node, method_kind(L));
  leave_self(L, &b);
  return rc ? bad_kind(L, "Visit", method_kind(L)) : 0;
}

static int m_reset(lua_State *L) {
  bound b;
  enter_self(L, "Reset", &b);
  int rc = bt_node_reset_as(b.t->inst, b.node, method_kind(L));
  leave_self(L, &b);
  return rc ? bad_kind(L, "Reset", method_kind(L)) : 0;
}

static int m_step(lua_State *L) {
  bound b;
  enter_self(L, "Step", &b);
  int rc = bt_node_step_as(b.t->inst, b.node, method_kind(L));
  leave_self(L, &b);
  return rc ? bad_kind(L, "Step", method_kind(L)) : 0;
}

static int m_get_sleep_time(lua_State *L) {
  bound b;
  double v;
  enter_self(L, "GetSleepTime", &b);
  int rc = bt_node_sleep_time_as(b.t->inst, b.node, method_kind(L), &v);
  leave_self(L, &b);
  if (rc < 0) return bad_kind(L, "GetSleepTime", method_kind(L));
  if (rc == 1) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

/* the text of the bt_buf at 1 (a light userdata), for a protected call */
static int push_text(lua_State *L) {
  const bt_buf *buf = lua_touserdata(L, 1);
  lua_pushlstring(L, buf->data ? buf->data : "", buf->len);
  return 1;
}

int lbt_push_buf(lua_State *L, bt_buf *buf) {
  if (buf->err) {
    bt_buf_free(buf);
    return luaL_error(L, "not enough memory");
  }
  /* making the string may fail in a state of bounded memory: free buf before raising that */
  lua_pushcfunction(L, push_text);
  lua_pushlightuserdata(L, buf);
  int rc = lua_pcall(L, 1, 1, 0);
  bt_buf_free(buf);
  if (rc != LUA_OK) return lua_error(L);
  return 1;
}

static int m_dbstring(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  enter_self(L, "DBString", &b);
  int rc = bt_node_describe_as(b.t->inst, b.node, method_kind(L), &buf);
  leave_self(L, &b);
  if (rc == BT_EINVAL) {
    bt_buf_free(&buf);
    return bad_kind(L, "DBString", method_kind(L));
  }
  return lbt_push_buf(L, &buf);
}

static int m_save_status(lua_State *L) {
  bound b;
  enter_self(L, "SaveStatus", &b);
  bt_node_save_status(b.t->inst, b.node);
  leave_self(L, &b);
  return 0;
}

static int m_stop(lua_State *L) {
  bound b;
  enter_self(L, "Stop", &b);
  bt_node_stop(b.t->inst, b.node);
  leave_self(L, &b);
  return 0;
}

static int m_sleep(lua_State *L) {
  bound b;
  double t = luaL_checknumber(L, 2);
  enter_self(L, "Sleep", &b);
  bt_node_sleep(b.t->inst, b.node, t);
  leave_self(L, &b);
  return 0;
}

static int m_get_tree_sleep_time(lua_State *L) {
  bound b;
  double v;
  enter_self(L, "GetTreeSleepTime", &b);
  int has = bt_node_tree_sleep_time(b.t->inst, b.node, &v);
  leave_self(L, &b);
  if (has) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

static int m_get_string(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  enter_self(L, "GetString", &b);
  bt_node_string(b.t->inst, b.node, &buf);
  leave_self(L, &b);
  return lbt_push_buf(L, &buf);
}

static int m_get_tree_string(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  const char *indent = luaL_optstring(L, 2, "");
  enter_self(L, "GetTreeString", &b);
  bt_node_tree_string(b.t->inst, b.node, indent, &buf);
  leave_self(L, &b);
  return lbt_push_buf(L, &buf);
}

/* DoToParents(fn): fn(parent), fn(grandparent), ... following the `parent` fields. */
static int m_do_to_parents(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  for (;;) {
    lua_getfield(L, -1, "parent");
    lua_remove(L, -2);
    if (lua_isnil(L, -1)) return 0;
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
  }
}

static int m_on_event(lua_State *L) {
  if (!lbt_is_node(L, 1) || lbt_node_kind(L, 1) != BT_EVENT)
    return luaL_error(L, "bad self to 'OnEvent' (EventNode expected)");
  lua_settop(L, 2);
  return lbt_fire(L, 1, 2);
}

/* EventNode:OnStop(): removes the listener that the constructor registered. */
static int m_event_on_stop(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "eventfn");
  if (lua_isnil(L, -1)) return 0;
  lua_getfield(L, 1, "inst");
  lua_getfield(L, -1, "RemoveEventCallback");
  lua_insert(L, -2);
  lua_getfield(L, 1, "event");
  lua_pushvalue(L, -4);
  lua_call(L, 3, 0);
  lua_pushliteral(L, "eventfn");
  lua_pushnil(L);
  lua_rawset(L, 1);
  return 0;
}

/* ---- classes ---- */

typedef struct class_def {
  int kind;
  const char *name; /* module field */
  int base;         /* kind of the base class, -1 for none, -2 for DecoratorNode */
  lua_CFunction ctor;
} class_def;

static const class_def classes[] = {
    {BT_SEQUENCE, "SequenceNode", BT_BEHAVIOUR, ctor_sequence},
    {BT_SELECTOR, "SelectorNode", BT_BEHAVIOUR, ctor_selector},
    {BT_PRIORITY, "PriorityNode", BT_BEHAVIOUR, ctor_priority},
    {BT_PARALLEL, "ParallelNode", BT_BEHAVIOUR, ctor_parallel},
    {BT_PARALLEL_ANY, "ParallelNodeAny", BT_PARALLEL, ctor_parallel_any},
    {BT_LOOP, "LoopNode", BT_BEHAVIOUR, ctor_loop},
    {BT_RANDOM, "RandomNode", BT_BEHAVIOUR, ctor_random},
    {BT_CONDITION, "ConditionNode", BT_BEHAVIOUR, ctor_condition},
    {BT_MULTICONDITION, "MultiConditionNode", BT_BEHAVIOUR, ctor_multicondition},
    {BT_CONDITIONWAIT, "ConditionWaitNode", BT_BEHAVIOUR, ctor_conditionwait},
    {BT_ACTION, "ActionNode", BT_BEHAVIOUR, ctor_action},
    {BT_WAIT, "WaitNode", BT_BEHAVIOUR, ctor_wait},
    {BT_NOT, "NotDecorator", -2, ctor_not},
    {BT_FAILIFRUNNING, "FailIfRunningDecorator", -2, ctor_failifrunning},
    {BT_FAILIFSUCCESS, "FailIfSuccessDecorator", -2, ctor_failifsuccess},
    {BT_EVENT, "EventNode", BT_BEHAVIOUR, ctor_event},
    {BT_LATCH, "LatchNode", BT_BEHAVIOUR, ctor_latch},
    {BT_TASK, "TaskNode", BT_BEHAVIOUR, ctor_task},
    {BT_POLICY_PARALLEL, "PolicyParallelNode", BT_BEHAVIOUR, ctor_policy_parallel},
    {BT_MONITOR, "MonitorNode", BT_BEHAVIOUR, ctor_monitor},
    {BT_ACTIVE_SELECTOR, "ActiveSelectorNode", BT_BEHAVIOUR, ctor_active_selector},
    {BT_REPEAT, "RepeatNode", -2, ctor_repeat},
    {BT_SUCCEED, "AlwaysSucceedDecorator", -2, ctor_succeed},
    {BT_FAIL, "AlwaysFailDecorator", -2, ctor_fail},
    {BT_COOLDOWN, "CooldownDecorator", -2, ctor_cooldown},
    {BT_TIMEOUT, "TimeoutDecorator", -2, ctor_timeout},
    {BT_SUBTREE, "SubtreeNode", BT_BEHAVIOUR, ctor_subtree},
};

/* Methods each class defines itself (the rest come from its base). */
typedef struct method_def {
  int kind;
  const char *name;
  lua_CFunction fn;
} method_def;

static const method_def methods[] = {
    {BT_BEHAVIOUR, "Visit", m_visit},
    {BT_BEHAVIOUR, "Reset", m_reset},
    {BT_BEHAVIOUR, "Step", m_step},
    {BT_BEHAVIOUR, "GetSleepTime", m_get_sleep_time},
    {BT_BEHAVIOUR, "DBString", m_dbstring},
    {BT_BEHAVIOUR, "SaveStatus", m_save_status},
    {BT_BEHAVIOUR, "Stop", m_stop},
    {BT_BEHAVIOUR, "Sleep", m_sleep},
    {BT_BEHAVIOUR, "GetTreeSleepTime", m_get_tree_sleep_time},
    {BT_BEHAVIOUR, "GetString", m_get_string},
    {BT_BEHAVIOUR, "GetTreeString", m_get_tree_string},
    {BT_BEHAVIOUR, "DoToParents", m_do_to_parents},
    {BT_SEQUENCE, "Visit", m_visit},
    {BT_SEQUENCE, "Reset", m_reset},
    {BT_SEQUENCE, "DBString", m_dbstring},
    {BT_SELECTOR, "Visit", m_visit},
    {BT_SELECTOR, "Reset", m_reset},
    {BT_SELECTOR, "DBString", m_dbstring},
    {BT_LOOP, "Visit", m_visit},
    {BT_LOOP, "Reset", m_reset},
    {BT_LOOP, "DBString", m_dbstring},
    {BT_RANDOM, "Visit", m_visit},
    {BT_RANDOM, "Reset", m_reset},
    {BT_PRIORITY, "Visit", m_visit},
    {BT_PRIORITY, "Reset", m_reset},
    {BT_PRIORITY, "GetSleepTime", m_get_sleep_time},
    {BT_PRIORITY, "DBString", m_dbstring},
    {BT_PARALLEL, "Visit", m_visit},
    {BT_PARALLEL, "Step", m_step},
    {BT_CONDITION, "Visit", m_visit},
    {BT_MULTICONDITION, "Visit", m_visit},
    {BT_CONDITIONWAIT, "Visit", m_visit},
    {BT_ACTION, "Visit", m_visit},
    {BT_WAIT, "Visit", m_visit},
    {BT_WAIT, "DBString", m_dbstring},
    {BT_NOT, "Visit", m_visit},
    {BT_FAILIFRUNNING, "Visit", m_visit},
    {BT_FAILIFSUCCESS, "Visit", m_visit},
    {BT_EVENT, "Visit", m_visit},
    {BT_EVENT, "Step", m_step},
    {BT_EVENT, "Reset", m_reset},
    {BT_EVENT, "OnStop", m_event_on_stop},
    {BT_EVENT, "OnEvent", m_on_event},
    {BT_LATCH, "Visit", m_visit},
    {BT_TASK, "Visit", m_visit},
    {BT_TASK, "Reset", m_reset},
    {BT_POLICY_PARALLEL, "Visit", m_visit},
    {BT_POLICY_PARALLEL, "Step", m_step},
    {BT_MONITOR, "Visit", m_visit},
    {BT_ACTIVE_SELECTOR, "Visit", m_visit},
    {BT_REPEAT, "Visit", m_visit},
    {BT_REPEAT, "Reset", m_reset},
    {BT_REPEAT, "GetSleepTime", m_get_sleep_time},
    {BT_REPEAT, "DBString", m_dbstring},
    {BT_SUCCEED, "Visit", m_visit},
    {BT_FAIL, "Visit", m_visit},
    {BT_COOLDOWN, "Visit", m_visit},
    {BT_COOLDOWN, "Reset", m_reset},
    {BT_COOLDOWN, "DBString", m_dbstring},
    {BT_TIMEOUT, "Visit", m_visit},
    {BT_TIMEOUT, "GetSleepTime", m_get_sleep_time},
    {BT_TIMEOUT, "DBString", m_dbstring},
    {BT_SUBTREE, "Visit", m_visit},
};

/* Sets the methods of `kind` on the class at the top of the stack. */
static void set_methods(lua_State *L, int kind) {
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
    if (methods[i].kind != kind) continue;
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, methods[i].fn, 1);
    lua_setfield(L, -2, methods[i].name);
  }
}

/* Pushes Class(base, ctor) (base at index base_idx, or 0 for none). */
static void new_class(lua_State *L, int base_idx, lua_CFunction ctor) {
  lbt_registry_get(L, LBT_REG_CLASS);
  if (base_idx) lua_pushvalue(L, base_idx);
  lua_pushcfunction(L, ctor);
  lua_call(L, base_idx ? 2 : 1, 1);
}

static void set_kind(lua_State *L, int kind) {
  lua_pushinteger(L, kind);
  lua_setfield(L, -2, "__bt_kind");
}

void lbt_open_nodes(lua_State *L, int module) {
  lbt_registry_get(L, LBT_REG_CLASSES);
  int reg = lua_gettop(L);

  /* view keys */
  lbt_registry_get(L, LBT_REG_VIEWKEYS);
  for (int i = 1; i < VK_COUNT; i++) {
    lua_pushinteger(L, i);
    lua_setfield(L, -2, view_names[i]);
  }
  lua_pop(L, 1);

  /* BehaviourNode: the base of every node class */
  new_class(L, 0, ctor_behaviour);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "__bt_node");
  set_kind(L, BT_BEHAVIOUR);
  lua_pushcfunction(L, node_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, node_newindex);
  lua_setfield(L, -2, "__newindex");
  set_methods(L, BT_BEHAVIOUR);
  int behaviour = lua_gettop(L);
  lua_pushvalue(L, behaviour);
  lua_rawseti(L, reg, BT_BEHAVIOUR + 1);
  lua_pushvalue(L, behaviour);
  lua_setfield(L, module, "BehaviourNode");

  new_class(L, behaviour, ctor_decorator);
  int decorator = lua_gettop(L);
  lua_pushvalue(L, decorator);
  lua_setfield(L, module, "DecoratorNode");

  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
    const class_def *c = &classes[i];
    int base = behaviour;
    if (c->base == -2) base = decorator;
    else if (c->base != BT_BEHAVIOUR) {
      lua_rawgeti(L, reg, c->base + 1);
      base = lua_gettop(L);
    }
    new_class(L, base, c->ctor);
    set_kind(L, c->kind);
    set_methods(L, c->kind);
    lua_pushvalue(L, -1);
    lua_rawseti(L, reg, c->kind + 1);
    lua_setfield(L, module, c->name);
    if (base != behaviour && base != decorator) lua_pop(L, 1);
  }

  lua_pushcfunction(L, l_while);
  lua_setfield(L, module, "WhileNode");
  lua_pushcfunction(L, l_if);
  lua_setfield(L, module, "IfNode");
  lua_pushcfunction(L, l_ifthendowhile);
  lua_setfield(L, module, "IfThenDoWhileNode");
  lua_settop(L, reg - 1);
}
