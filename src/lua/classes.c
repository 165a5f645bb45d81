/* SPDX-License-Identifier: MIT */
/*
 * classes.c: Don't Starve's node classes, and the kinds bt adds, in Lua. Each is a Class whose
 * instances are plain tables (so scripts may add fields and override methods) holding what the
 * constructor was given. The classes, their bases and the methods each defines come from the
 * core's kind table (bt_kind_get); what is particular to a kind in Lua is in its section below:
 * its constructor, and how the fields the constructor set become the core's bt_spec.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt.h"

/* ---- argument checks, in the words of luaL_argerror ---- */

/* Constructor argument `arg` (1-based, after self) is at stack index arg + 1. */

static void check_self(lua_State *L, const char *fname) {
  if (lua_type(L, 1) != LUA_TTABLE) lbt_typeerror(L, 1, 0, fname, "the node under construction");
}

static int is_callable(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TFUNCTION) return 1;
  if (!lua_getmetatable(L, idx)) return 0;
  int yes = lua_getfield(L, -1, "__call") != LUA_TNIL;
  lua_pop(L, 2);
  return yes;
}

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

static void check_time(lua_State *L, int arg, const char *fname) {
  if (lua_type(L, arg + 1) != LUA_TNUMBER && !is_callable(L, arg + 1))
    lbt_typeerror(L, arg + 1, arg, fname, "number or function");
}

static void check_children(lua_State *L, int arg, const char *fname) {
  if (lua_type(L, arg + 1) != LUA_TTABLE) lbt_typeerror(L, arg + 1, arg, fname, "table");
  lbt_push_list_items(L, arg + 1); /* another node's children list, for instance */
  int idx = lua_gettop(L);
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
  lua_pop(L, 1);
}

/* ---- what constructors set ---- */

/* The kind a constructor makes: its first upvalue. */
static int ctor_kind(lua_State *L) { return (int)lua_tointeger(L, lua_upvalueindex(1)); }

/* The module's state: a constructor's second upvalue. */
static lbt_state *ctor_state(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(2)); }

/* Sets name and children as BehaviourNode._ctor does, and each child's parent. */
static void init_node(lua_State *L, const char *name, int name_idx, int children_idx) {
  name_idx = name_idx ? lua_absindex(L, name_idx) : 0;
  children_idx = children_idx ? lua_absindex(L, children_idx) : 0;
  lua_pushliteral(L, "name");
  if (name_idx && !lua_isnoneornil(L, name_idx)) lua_pushvalue(L, name_idx);
  else lua_pushstring(L, name);
  lua_rawset(L, 1);
  lbt_state *S = ctor_state(L);
  if (S->where_all) lbt_note_where(L, 1); /* bt.set_where(true): for coverage */
  if (S->exact) { /* bt.set_exact: Don't Starve's two fields, its id counted across all nodes */
    lua_pushinteger(L, 0);
    lua_setfield(L, 1, "nextupdatetick");
    lua_pushinteger(L, S->next_id++);
    lua_setfield(L, 1, "id");
  }
  if (!children_idx || lua_isnoneornil(L, children_idx)) return;
  lua_pushliteral(L, "children");
  lua_pushvalue(L, children_idx);
  lua_rawset(L, 1);
  lbt_push_list_items(L, children_idx);
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    lua_pushliteral(L, "parent");
    lua_pushvalue(L, 1);
    lua_rawset(L, -3);
    if (lua_rawgetp(L, -1, &lbt_key_tree) != LUA_TNIL) { /* a node of a tree given another parent */
      lbt_tree *t = lbt_tree_raw(L, -1);
      if (t) t->strays = 1; /* an event walks up by the field (fire) */
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
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

/* The fields the constructors below set, besides the state that moves into a tree: an object
 * with only these can be made anew from its definition (objects.c's must_keep). */
static const char *const ctor_fields[] = {
    "name", "children", "parent", "fn", "action", "start", "continue", "period", "maxreps",
    "wait_time", "stoponanycomplete", "task", "success_policy", "failure_policy", "times",
    "seconds", "subtree", "cond", "abort", NULL};

/* ---- what the core is told of a node object ---- */

typedef struct reader {
  lua_State *L;
  int obj;
  int custom;   /* a script's subclass: its methods may stand for missing functions */
  int template; /* an object of a shared definition */
  lbt_slots *slots;
  const char *fname;
  bt_spec *s;
  int keys;  /* lbt_push_spec_keys's strings */
  int board; /* the tree's bt.Blackboard, or 0 */
} reader;

/* Raises "<fname>: <fmt with the node's name>". */
static int spec_error(reader *r, const char *fmt) {
  lua_State *L = r->L;
  lua_getfield(L, r->obj, "name");
  lua_pushfstring(L, fmt, luaL_tolstring(L, -1, NULL));
  return luaL_error(L, "%s: %s", r->fname, lua_tostring(L, -1));
}

/* Raises "<fname>: <kind> '<name>': <msg>" for the message on the top. */
static int spec_fail(reader *r) {
  lua_State *L = r->L;
  int msg = lua_gettop(L);
  lua_getfield(L, r->obj, "name");
  return luaL_error(L, "%s: %s '%s': %s", r->fname, bt_kind_name(r->s->kind), luaL_tolstring(L, -1, NULL),
                    lua_tostring(L, msg));
}

/* Reads the param from field: a number; nil (BT_SPEC_NIL_PARAM); or, given a time function, a
 * function (BT_SPEC_PARAM_FN, its slot in ud). Returns 0 for anything else. */
static int read_param(reader *r, const char *field, bt_fn time_fn) {
  lua_State *L = r->L;
  lua_pushstring(L, field);
  int type = lua_rawget(L, r->obj);
  if (type == LUA_TNUMBER) {
    r->s->param = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else if (type == LUA_TNIL) {
    r->s->flags |= BT_SPEC_NIL_PARAM;
    lua_pop(L, 1);
  } else if (time_fn && (type == LUA_TFUNCTION || type == LUA_TTABLE || type == LUA_TUSERDATA)) {
    r->s->flags |= BT_SPEC_PARAM_FN;
    r->s->fn = time_fn;
    r->s->ud = lbt_slot_add(r->slots);
  } else {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* Reads a leaf function from field into fn and ud; 0 if it is missing. */
static int read_fn(reader *r, const char *field, bt_fn *fn, void **ud) {
  lua_State *L = r->L;
  lua_getfield(L, r->obj, field);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  *fn = lbt_call_truth;
  *ud = lbt_slot_add(r->slots);
  return 1;
}

/* ---- ports: the keys a node reads and writes (docs/blackboard.md) ----
 * A node's fields reads and writes each list keys: an array of names, or a map of names to the
 * type the node takes the key for ("number", ...), or both. Leaf constructors take them in a
 * trailing options table; a class's constructor or a script may set the fields. */

/* Checks the ports list at idx, the field `field`; returns NULL, or pushes what is wrong with it
 * and returns it. */
static const char *check_ports(lua_State *L, int idx, const char *field) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE)
    return lua_pushfstring(L, "%s: a list of key names expected, got %s", field, luaL_typename(L, idx));
  int top = lua_gettop(L);
  const char *bad = NULL;
  lua_pushnil(L);
  while (!bad && lua_next(L, idx)) {
    int kt = lua_type(L, -2), vt = lua_type(L, -1);
    if (kt == LUA_TNUMBER && vt != LUA_TSTRING)
      bad = lua_pushfstring(L, "%s[%s]: a key name expected, got %s", field, luaL_tolstring(L, -2, NULL),
                            luaL_typename(L, -2));
    else if (kt == LUA_TSTRING && lbt_key_type_of(L, -1) < 0) {
      const char *key = lua_tostring(L, -2);
      const char *got = vt == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, -1)) : luaL_typename(L, -1);
      bad = lua_pushfstring(L, "%s.%s: a key type (\"number\", \"integer\", \"boolean\", \"string\", "
                            "\"entity\" or \"any\") expected, got %s", field, key, got);
    }
    else if (kt != LUA_TNUMBER && kt != LUA_TSTRING)
      bad = lua_pushfstring(L, "%s: a key name expected, got a %s", field, lua_typename(L, kt));
    else
      lua_pop(L, 1);
  }
  if (!bad) return NULL;
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return bad;
}

/* The private key of the array of a node's bt_port that a spec points to (the object keeps it). */
static const char ports_key = 0;

/* Adds the ports of the list at list (checked) to ports[0 .. *n), each key once. */
static void add_ports(lua_State *L, int list, unsigned how, bt_port *ports, int *n) {
  lua_pushnil(L);
  while (lua_next(L, list)) {
    int named = lua_type(L, -2) == LUA_TSTRING; /* name -> type, else a name */
    const char *key = lua_tostring(L, named ? -2 : -1);
    int type = named ? lbt_key_type_of(L, -1) : BT_KEY_NONE;
    lua_pop(L, 1);
    int i = 0;
    while (i < *n && strcmp(ports[i].key, key) != 0) i++;
    if (i == *n) ports[(*n)++] = (bt_port){key, type, 0};
    ports[i].how |= how;
    if (!ports[i].type) ports[i].type = type;
  }
}

/* Reads the node's ports into r->s: its reads and writes, and a WatchNode's function's reads. */
static void read_ports(reader *r) {
  lua_State *L = r->L;
  int top = lua_gettop(L);
  lua_pushvalue(L, r->keys + LBT_SPEC_READS);
  int none = lua_rawget(L, r->obj) == LUA_TNIL;
  lua_pushvalue(L, r->keys + LBT_SPEC_WRITES);
  none = lua_rawget(L, r->obj) == LUA_TNIL && none;
  if (none && r->s->kind != BT_WATCH) { /* most nodes */
    lua_settop(L, top);
    return;
  }
  if (lua_rawgetp(L, r->obj, &lbt_key_where) == LUA_TSTRING) /* where, for the core's messages */
    r->s->where = lua_tostring(L, -1); /* (the object holds it) */
  lua_pop(L, 1);
  lua_pushnil(L); /* a WatchNode's function's reads */
  if (r->s->kind == BT_WATCH && r->s->fn) {
    lua_pushliteral(L, "cond");
    lua_rawget(L, r->obj);
    lua_getfield(L, -1, "reads");
    lua_replace(L, top + 3);
    lua_pop(L, 1);
  }
  static const char *const fields[] = {"reads", "writes", "cond.reads"};
  static const unsigned how[] = {BT_PORT_READ, BT_PORT_WRITE, BT_PORT_READ};
  int count = 0;
  for (int i = 0; i < 3; i++) {
    int list = top + 1 + i;
    /* in a tree without a board, a field reads or writes that is no table is a script's own (a
     * Don't Starve behaviour's, say), not ports */
    if (!r->board && !lua_istable(L, list)) {
      lua_pushnil(L);
      lua_replace(L, list);
    }
    if (lua_isnil(L, list)) continue;
    if (check_ports(L, list, fields[i])) spec_fail(r);
    count += (int)lua_rawlen(L, list);
    lua_pushnil(L);
    while (lua_next(L, list)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) == LUA_TSTRING) count++;
    }
  }
  if (count > 0) {
    bt_port *ports = lua_newuserdatauv(L, (size_t)count * sizeof *ports, 0);
    int n = 0;
    for (int i = 0; i < 3; i++)
      if (!lua_isnil(L, top + 1 + i)) add_ports(L, top + 1 + i, how[i], ports, &n);
    lua_rawsetp(L, r->obj, &ports_key); /* the names are the lists', which the object holds */
    r->s->ports = ports;
    r->s->nports = n;
  }
  lua_settop(L, top);
}

/* Notes where the node under construction was made, for the core's messages: the code that
 * called the constructor (under bt.set_where(true) init_node noted it already). */
static void note_where(lua_State *L) {
  if (ctor_state(L)->where_all) {
    int noted = lua_rawgetp(L, 1, &lbt_key_where) == LUA_TSTRING;
    lua_pop(L, 1);
    if (noted) return;
  }
  lbt_push_where(L);
  if (lua_rawlen(L, -1) == 0) { /* no code of a script's: a node with ports all the same */
    lua_pop(L, 1);
    lua_pushboolean(L, 0);
  }
  lua_rawsetp(L, 1, &lbt_key_where);
}

/* The options of a leaf constructor, argument arg: nil, or {reads = ..., writes = ...}, which
 * become the node's fields. */
static void set_options(lua_State *L, int arg, const char *fname) {
  int idx = arg + 1;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE) lbt_typeerror(L, idx, arg, fname, "table or nil");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (k && (strcmp(k, "reads") == 0 || strcmp(k, "writes") == 0)) continue;
    const char *msg = k ? lua_pushfstring(L, "unknown option '%s' (reads and writes expected)", k)
                        : lua_pushfstring(L, "unknown option, a %s (reads and writes expected)", luaL_typename(L, -1));
    lbt_argerror(L, arg, fname, msg);
  }
  static const char *const fields[] = {"reads", "writes"};
  for (int i = 0; i < 2; i++) {
    if (lua_getfield(L, idx, fields[i]) != LUA_TNIL) {
      const char *bad = check_ports(L, -1, fields[i]);
      if (bad) lbt_argerror(L, arg, fname, bad);
      set_field(L, fields[i], lua_gettop(L));
    }
    lua_pop(L, 1);
  }
  note_where(L);
}

/* ---- BehaviourNode and DecoratorNode ---- */

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

/* ---- SequenceNode(children), SelectorNode(children), RandomNode(children), and
 * ParallelNodeAny(children), which also sets stoponanycomplete ---- */

static int ctor_composite(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  lua_settop(L, 2);
  check_children(L, 1, fname);
  init_node(L, bt_kind_default_name(kind), 0, 2);
  return 0;
}

static int ctor_parallel_any(lua_State *L) {
  ctor_composite(L);
  lua_pushboolean(L, 1);
  set_field(L, "stoponanycomplete", lua_gettop(L));
  return 0;
}

/* ---- PriorityNode(children, period, noscatter) ----
 * The constructor draws the first evaluation time from math.random, as Don't Starve's does. With
 * bt.seed_trees set it draws nothing and marks the node (scatter_key): its tree draws the time
 * from the tree's own stream when BT wraps it (bt_inst_scatter), so that the time does not depend
 * on math.random; lasttime stays nil until then. A shared definition's Priorities (and a
 * subtree's) are drawn again by each entity's instance. Whether a Priority draws when it is
 * wrapped is its spec's BT_SPEC_NOSCATTER, which spec_priority alone decides. */

static const char scatter_key = 0; /* a Priority's mark: its tree draws its first evaluation time */

static int ctor_priority(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  check_children(L, 1, fname);
  check_optnumber(L, 2, fname);
  lua_settop(L, 4);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 0, 2);
  if (lua_isnil(L, 3)) lua_pushinteger(L, 1);
  else lua_pushvalue(L, 3);
  set_field(L, "period", lua_gettop(L));
  if (lua_toboolean(L, 4)) return 0;
  if (ctor_state(L)->seed_ref != LUA_NOREF) {
    lua_pushboolean(L, 1);
    lua_rawsetp(L, 1, &scatter_key);
  } else {
    lbt_push_math_random(L);
    lua_call(L, 0, 1);
    lua_pushnumber(L, bt_priority_scatter(lua_tonumber(L, -2), lua_tonumber(L, -1)));
    set_field(L, "lasttime", lua_gettop(L));
  }
  return 0;
}

static int spec_priority(reader *r) {
  if (!read_param(r, "period", NULL)) return 0;
  /* it draws when wrapped if its constructor left the draw to its tree (bt.seed_trees), or if it
   * is a template whose constructor drew a time (each copy draws its own); otherwise it keeps the
   * time it holds, if any: the one its constructor drew, a script's, or none (noscatter) */
  int draws = lua_rawgetp(r->L, r->obj, &scatter_key) != LUA_TNIL;
  lua_pop(r->L, 1);
  if (!draws && r->template) {
    lua_pushliteral(r->L, "lasttime");
    draws = lua_rawget(r->L, r->obj) != LUA_TNIL;
    lua_pop(r->L, 1);
  }
  if (!draws) r->s->flags |= BT_SPEC_NOSCATTER;
  return 1;
}

/* ---- ParallelNode(children, name), ActiveSelectorNode(children, name) ---- */

static int ctor_named_composite(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  lua_settop(L, 3);
  check_children(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, bt_kind_default_name(kind), 3, 2);
  return 0;
}

/* ---- LoopNode(children, maxreps) ---- */

static int ctor_loop(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  check_children(L, 1, fname);
  check_optnumber(L, 2, fname);
  lua_settop(L, 3);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 0, 2);
  set_field(L, "maxreps", 3);
  return 0;
}

static int spec_loop(reader *r) { return read_param(r, "maxreps", NULL); }

/* ---- ConditionNode(fn, name), ConditionWaitNode(fn, name), ActionNode(action, name) ---- */

static const char *fn_field(int kind) { return kind == BT_ACTION ? "action" : "fn"; }

static int ctor_fn_leaf(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  lua_settop(L, 4);
  check_function(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, bt_kind_default_name(kind), 3, 0);
  set_field(L, fn_field(kind), 2);
  set_options(L, 3, fname);
  return 0;
}

static int spec_fn_leaf(reader *r) {
  return read_fn(r, fn_field(r->s->kind), &r->s->fn, &r->s->ud) || r->custom;
}

/* ---- MultiConditionNode(start, continue, name) ---- */

static int ctor_multicondition(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 5);
  check_function(L, 1, fname);
  check_function(L, 2, fname);
  check_optname(L, 3, fname);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 4, 0);
  set_field(L, "start", 2);
  set_field(L, "continue", 3);
  set_options(L, 4, fname);
  return 0;
}

static int spec_multicondition(reader *r) {
  bt_spec *s = r->s;
  return (read_fn(r, "start", &s->fn, &s->ud) & read_fn(r, "continue", &s->fn2, &s->ud2)) || r->custom;
}

/* ---- WaitNode(seconds or fn): fn is called with nothing ---- */

static int ctor_wait(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 2);
  check_time(L, 1, fname);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 0, 0);
  set_field(L, "wait_time", 2);
  return 0;
}

static int spec_wait(reader *r) { return read_param(r, "wait_time", lbt_call_time); }

/* ---- NotDecorator(child), FailIfRunningDecorator(child), FailIfSuccessDecorator(child) ---- */

static int ctor_decorator_kind(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  check_node(L, 1, fname);
  lua_settop(L, 2);
  init_node(L, bt_kind_default_name(kind), 0, push_single(L, 2));
  return 0;
}

/* ---- EventNode(inst, event, child, priority) ----
 * Its object holds the entity it listens through, and a listener that an OnStop removes; an
 * event's data is the node's Lua data in the tree. The entity listens through its inst when
 * the inst has ListenForEvent; otherwise tree:FireEvent delivers the event. */

/* The listener an EventNode registers: function(inst, data) self:OnEvent(data) end */
static int event_listener(lua_State *L) {
  lua_settop(L, 2);
  int self = lua_upvalueindex(1);
  int node = -1;
  lbt_tree *t = lbt_node_tree(L, self, &node);
  lua_getfield(L, self, "OnEvent");
  lua_pushvalue(L, self);
  lua_pushvalue(L, 2);
  lbt_pcall(lbt_state_get(L), L, 2, 0, 0, t ? lbt_tree_inst(t) : NULL, node, "event");
  return 0;
}

/* Makes the object at obj listen through the inst at inst: inst:ListenForEvent(obj.event,
 * obj.eventfn), the listener kept as obj.eventfn. */
static void listen(lua_State *L, int obj, int inst) {
  lua_pushvalue(L, obj);
  lua_pushcclosure(L, event_listener, 1);
  int fn = lua_gettop(L);
  lua_pushliteral(L, "eventfn");
  lua_pushvalue(L, fn);
  lua_rawset(L, obj);
  lua_getfield(L, inst, "ListenForEvent");
  lua_pushvalue(L, inst);
  lua_getfield(L, obj, "event");
  lua_pushvalue(L, fn);
  lua_call(L, 3, 0);
  lua_settop(L, fn - 1);
}

static int ctor_event(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 5);
  int t = lua_type(L, 2);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA && t != LUA_TNIL)
    lbt_typeerror(L, 2, 1, fname, "table or nil");
  if (lua_type(L, 3) != LUA_TSTRING && lua_type(L, 3) != LUA_TNUMBER)
    lbt_typeerror(L, 3, 2, fname, "string");
  if (!lua_isnil(L, 4)) check_node(L, 3, fname);
  check_optnumber(L, 4, fname);
  lua_pushfstring(L, "Event(%s)", lua_tostring(L, 3));
  int name = lua_gettop(L);
  init_node(L, NULL, name, push_single(L, 4));
  set_field(L, "inst", 2);
  set_field(L, "event", 3);
  if (lua_isnil(L, 5)) lua_pushinteger(L, 0);
  else lua_pushvalue(L, 5);
  set_field(L, "priority", lua_gettop(L));
  if (t != LUA_TNIL && lua_getfield(L, 2, "ListenForEvent") != LUA_TNIL) listen(L, 1, 2);
  return 0;
}

/* A shared EventNode cannot have subscribed through an inst: each entity subscribes its own. */
static int spec_event(reader *r) {
  if (r->template) {
    lua_pushliteral(r->L, "eventfn");
    if (lua_rawget(r->L, r->obj) != LUA_TNIL)
      spec_error(r, "EventNode '%s' listens through its inst; in a shared definition give it inst "
                    "nil (each entity then listens through its own)");
    lua_pop(r->L, 1);
  }
  return read_param(r, "priority", NULL);
}

/* EventNode:OnEvent(data) for the node object at obj, with the event data at data. */
static void fire(lua_State *L, int obj, int data) {
  obj = lua_absindex(L, obj);
  data = lua_absindex(L, data);
  int node;
  lbt_tree *t = lbt_node_tree(L, obj, &node);
  /* DoToParents by the parent fields where they may differ from the definition's */
  int walk = !t || t->forwarded || t->edited || t->strays;
  if (t && t->forwarded && bt_node_status(lbt_tree_inst(t), node) == BT_RUNNING) {
    /* taken out of its tree: its child may be in the tree now (keep_event_relatives in tree.c) */
    lua_getfield(L, obj, "children");
    if (lua_istable(L, -1) && lua_geti(L, -1, 1) == LUA_TTABLE && lbt_is_node(L, -1)) {
      lua_getfield(L, -1, "Reset");
      lua_insert(L, -2);
      lbt_pcall(lbt_state_get(L), L, 1, 0, 0, lbt_tree_inst(t), node, "Reset");
    }
    lua_settop(L, data);
  }
  if (t) {
    lbt_entry entry;
    lua_rawgetp(L, obj, &lbt_key_tree);
    int tree = lua_gettop(L);
    /* the data first: storing it may need memory, which must not fail inside the entry */
    lbt_tree_table(L, tree, LBT_UV_OBJS, 1);
    lua_pushvalue(L, data);
    lua_rawseti(L, -2, lbt_data_key(bt_def_state(bt_inst_def(lbt_tree_inst(t)), node)));
    lua_pop(L, 1);
    lbt_tree_enter(L, t, tree, &entry);
    if (walk) bt_node_trigger(lbt_tree_inst(t), node);
    else bt_inst_fire_event(lbt_tree_inst(t), node);
    lbt_tree_leave(L, t);
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
      bt_inst *in = t ? lbt_tree_inst(t) : NULL;
      lbt_pcall(lbt_state_get(L), L, 1, 0, 0, in, node, "brain:ForceUpdate");
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  if (walk) {
    /* DoToParents: clear the clock of every node above that has one (BT_KIND_PERIODIC), by their
     * parent fields: of a node in no tree, or taken out of its tree (keep_event_relatives in
     * tree.c), or in a tree a script may have edited, or whose nodes' parent fields do not all
     * hold the definition's */
    lua_pushvalue(L, obj);
    for (;;) {
      lua_getfield(L, -1, "parent");
      lua_remove(L, -2);
      if (!lbt_is_node(L, -1)) break;
      if (bt_kind_has(lbt_node_kind(L, -1), BT_KIND_PERIODIC)) {
        lua_pushnil(L);
        lua_setfield(L, -2, "lasttime");
      }
    }
    lua_pop(L, 1);
  }
}

static int m_on_event(lua_State *L) {
  if (!lbt_is_node(L, 1) || lbt_node_kind(L, 1) != BT_EVENT)
    return lbt_typeerror(L, 1, 0, "OnEvent", "EventNode");
  lua_settop(L, 2);
  fire(L, 1, 2);
  return 0;
}

/* EventNode:OnStop(): removes the listener that the constructor registered. */
static int m_event_on_stop(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) return lbt_typeerror(L, 1, 0, "OnStop", "EventNode");
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

static const luaL_Reg event_methods[] = {
    {"OnEvent", m_on_event},
    {"OnStop", m_event_on_stop},
    {NULL, NULL},
};

/* Adds an EventNode to those FireEvent reaches. */
static void add_event(lua_State *L, int tree, int node) {
  lbt_tree_table(L, tree, LBT_UV_EVENTS, 1);
  lua_pushinteger(L, node);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 1);
}

/* Whether the entity at inst listens for events itself (it has ListenForEvent). */
static int listens(lua_State *L, int inst) {
  int t = lua_type(L, inst);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA) return 0;
  int yes = lua_getfield(L, inst, "ListenForEvent") != LUA_TNIL;
  lua_pop(L, 1);
  return yes;
}

void lbt_events_bind(lua_State *L, lbt_tree *t, int tree, int inst, int templated) {
  tree = lua_absindex(L, tree);
  inst = lua_absindex(L, inst);
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int listening = -1; /* whether the inst listens: asked only if a template's EventNode needs it */
  /* the entity's own EventNodes first (they listen through the inst their constructor took),
   * then those of the templates it copies */
  for (int own = t->nown > 0; own >= !templated; own--) {
    for (int s = 0; s < bt_def_states(def); s++) {
      int node = bt_def_node_of_state(def, s);
      if (bt_def_kind(def, node) != BT_EVENT || (bt_def_graph_id(def, s) < t->nown) != own) continue;
      if (own) {
        lbt_push_state_obj(L, t, tree, s);
        lua_pushliteral(L, "eventfn");
        if (lua_rawget(L, -2) == LUA_TNIL) add_event(L, tree, node);
        lua_pop(L, 2);
        continue;
      }
      if (listening < 0) listening = listens(L, inst);
      if (!listening) {
        add_event(L, tree, node);
      } else {
        lbt_push_state_obj(L, t, tree, s);
        listen(L, lua_gettop(L), inst);
        lua_pop(L, 1);
      }
    }
  }
}

void lbt_events_fire(lua_State *L, int tree, int event, int data) {
  tree = lua_absindex(L, tree);
  event = lua_absindex(L, event);
  data = lua_absindex(L, data);
  lbt_tree_table(L, tree, LBT_UV_EVENTS, 1);
  int events = lua_gettop(L);
  lbt_tree *t = lua_touserdata(L, tree);
  int n = (int)lua_rawlen(L, events);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, events, i);
    int node = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (t->collected) break;
    lbt_push_state_obj(L, t, tree, bt_def_state(bt_inst_def(lbt_tree_inst(t)), node));
    lua_getfield(L, -1, "event");
    if (lua_rawequal(L, -1, event)) fire(L, -2, data);
    lua_pop(L, 2);
  }
  lua_settop(L, events - 1);
}

/* ---- LatchNode(inst, duration or fn, child): fn is called with inst ---- */

static int ctor_latch(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 4);
  check_time(L, 2, fname);
  check_node(L, 3, fname);
  lua_pushfstring(L, "Latch (%s)", luaL_tolstring(L, 3, NULL));
  int name = lua_gettop(L);
  init_node(L, NULL, name, push_single(L, 4));
  set_field(L, "inst", 2);
  set_field(L, "latchduration", 3);
  return 0;
}

static int spec_latch(reader *r) { return read_param(r, "latchduration", lbt_call_time_inst); }

/* ---- TaskNode(task, name): task is a table, an object or a Class with an update method ---- */

static int ctor_task(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 4);
  if (lua_type(L, 2) != LUA_TTABLE) lbt_typeerror(L, 2, 1, fname, "table");
  lua_getfield(L, 2, "update");
  if (!is_callable(L, -1)) lbt_argerror(L, 1, fname, "the task has no update function");
  lua_pop(L, 1);
  check_optname(L, 2, fname);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 3, 0);
  set_field(L, "task", 2);
  set_options(L, 3, fname);
  return 0;
}

/* The task table goes into a slot; the core calls it through lbt_task_calls. */
static int spec_task(reader *r) {
  lua_pushliteral(r->L, "task");
  if (lua_rawget(r->L, r->obj) != LUA_TTABLE) {
    lua_pop(r->L, 1);
    return r->custom;
  }
  r->s->task = &lbt_task_calls;
  r->s->ud = lbt_slot_add(r->slots);
  return 1;
}

/* ---- PolicyParallelNode(children, success, failure, name) ---- */

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
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 5);
  check_children(L, 1, fname);
  check_optname(L, 4, fname);
  push_policy(L, 2, fname, "REQUIRE_ALL");
  push_policy(L, 3, fname, "REQUIRE_ONE");
  init_node(L, bt_kind_default_name(ctor_kind(L)), 5, 2);
  set_field(L, "success_policy", 6);
  set_field(L, "failure_policy", 7);
  return 0;
}

static int policy_is(reader *r, const char *field, const char *policy) {
  lua_pushstring(r->L, field);
  lua_rawget(r->L, r->obj);
  int yes = lua_type(r->L, -1) == LUA_TSTRING && strcmp(lua_tostring(r->L, -1), policy) == 0;
  lua_pop(r->L, 1);
  return yes;
}

static int spec_policy_parallel(reader *r) {
  if (policy_is(r, "success_policy", "REQUIRE_ONE")) r->s->flags |= BT_SPEC_SUCCESS_ONE;
  if (policy_is(r, "failure_policy", "REQUIRE_ALL")) r->s->flags |= BT_SPEC_FAILURE_ALL;
  return 1;
}

/* ---- MonitorNode(conditions, child, name): the children are the conditions, then child ---- */

static int ctor_monitor(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 4);
  check_children(L, 1, fname);
  check_node(L, 2, fname);
  check_optname(L, 3, fname);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
  lua_createtable(L, (int)n + 1, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, 2, i);
    lua_rawseti(L, -2, i);
  }
  lua_pushvalue(L, 3);
  lua_rawseti(L, -2, n + 1);
  init_node(L, bt_kind_default_name(ctor_kind(L)), 4, lua_gettop(L));
  return 0;
}

/* ---- RepeatNode(child, times, name), CooldownDecorator(child, seconds, name),
 * TimeoutDecorator(child, seconds, name) ---- */

/* The field that holds the count or the seconds. */
static const char *counted_field(int kind) { return kind == BT_REPEAT ? "times" : "seconds"; }

static int ctor_counted(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  lua_settop(L, 4);
  check_node(L, 1, fname);
  check_optname(L, 3, fname);
  int isnum = lua_type(L, 3) == LUA_TNUMBER;
  double v = lua_tonumber(L, 3);
  if (kind == BT_REPEAT) { /* times: nil (for ever) or at least 1 */
    if (!lua_isnil(L, 3) && !(isnum && v >= 1))
      lbt_argerror(L, 2, fname, "a number of times, at least 1, or nil expected");
  } else if (!(isnum && v >= 0 && v <= 1e300)) { /* seconds */
    lbt_argerror(L, 2, fname, "a number of seconds, at least 0, expected");
  }
  init_node(L, bt_kind_default_name(kind), 4, push_single(L, 2));
  set_field(L, counted_field(kind), 3);
  return 0;
}

static int spec_counted(reader *r) {
  int kind = r->s->kind;
  return read_param(r, counted_field(kind), NULL) &&
         (kind == BT_REPEAT || !(r->s->flags & BT_SPEC_NIL_PARAM));
}

/* ---- AlwaysSucceedDecorator(child, name), AlwaysFailDecorator(child, name) ---- */

static int ctor_named_decorator(lua_State *L) {
  int kind = ctor_kind(L);
  const char *fname = bt_kind_name(kind);
  check_self(L, fname);
  lua_settop(L, 3);
  check_node(L, 1, fname);
  check_optname(L, 2, fname);
  init_node(L, bt_kind_default_name(kind), 3, push_single(L, 2));
  return 0;
}

/* ---- SubtreeNode(name): runs the definition registered as name (bt.define(root, name)),
 * looked up when the tree that holds it is compiled. Its name in dumps is the subtree's. ---- */

static int ctor_subtree(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 2);
  if (lua_type(L, 2) != LUA_TSTRING) lbt_typeerror(L, 2, 1, fname, "string");
  if (lua_rawlen(L, 2) == 0) lbt_argerror(L, 1, fname, "the name of a subtree expected, got \"\"");
  init_node(L, NULL, 2, 0);
  set_field(L, "subtree", 2);
  return 0;
}

/* The core looks the subtree up by the node's name: the field subtree. */
static int spec_subtree(reader *r) {
  lua_pushliteral(r->L, "subtree");
  if (lua_rawget(r->L, r->obj) != LUA_TSTRING)
    spec_error(r, "SubtreeNode '%s' names no subtree (its field subtree is no string)");
  lua_replace(r->L, -2); /* in place of the node's name */
  r->s->name = lua_tostring(r->L, -1);
  return 1;
}

/* ---- WatchNode(cond, name, child, abort): a condition on blackboard keys that watches them ----
 * cond is {key, op, value} (ops "==", "~=", "<", "<=", ">", ">="), {key, "is set"},
 * {key, "is not set"}, {key} (the key is set and, for a boolean, true), or {fn, reads = {...}}:
 * fn(inst, board) decides, and a write of a key it reads has it asked again. abort is "none",
 * "self", "lower" or "both" (docs/blackboard.md). */

static const char *const abort_names[] = {"none", "self", "lower", "both"};
static const unsigned abort_flags[] = {0, BT_SPEC_ABORT_SELF, BT_SPEC_ABORT_LOWER,
                                       BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER};

/* The comparison the value at idx names, or -1 (nil: BT_CMP_TRUE). */
static int cmp_of(lua_State *L, int idx) {
  if (lua_isnil(L, idx)) return BT_CMP_TRUE;
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  for (int c = 0; c < BT_CMP_COUNT; c++)
    if (strcmp(lua_tostring(L, idx), bt_cmp_name(c)) == 0) return c;
  return -1;
}

static int compare_texts(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int unary(int cmp) { return cmp == BT_CMP_TRUE || cmp == BT_CMP_SET || cmp == BT_CMP_UNSET; }

/* Checks the condition at cond (a table); returns NULL, or pushes what is wrong and returns it. */
static const char *check_cond(lua_State *L, int cond) {
  cond = lua_absindex(L, cond);
  int top = lua_gettop(L);
  const char *bad = NULL;
  lua_rawgeti(L, cond, 1);
  lua_rawgeti(L, cond, 2);
  lua_rawgeti(L, cond, 3);
  int key = top + 1, op = top + 2, value = top + 3;
  if (is_callable(L, key)) {
    lua_getfield(L, cond, "reads");
    int reads = lua_gettop(L);
    if (lua_isnil(L, reads)) {
      bad = "a condition that is a function needs reads, the keys it reads: {fn, reads = {\"hunger\"}}";
    } else if (!(bad = check_ports(L, reads, "reads"))) {
      lua_pushnil(L);
      if (!lua_next(L, reads)) bad = "reads: no key (a function's condition reads at least one)";
    }
  } else if (lua_type(L, key) != LUA_TSTRING || lua_rawlen(L, key) == 0) {
    bad = lua_pushfstring(L, "cond[1]: a key name or a function expected, got %s", luaL_typename(L, key));
  } else {
    int cmp = cmp_of(L, op);
    int t = lua_type(L, value);
    if (cmp < 0)
      bad = lua_pushfstring(L, "cond[2]: \"==\", \"~=\", \"<\", \"<=\", \">\", \">=\", \"is set\" or "
                            "\"is not set\" expected, got %s",
                            lua_type(L, op) == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, op))
                                                           : luaL_typename(L, op));
    else if (unary(cmp) && t != LUA_TNIL)
      bad = lua_pushfstring(L, "cond[3]: '%s' takes no value", bt_cmp_name(cmp));
    else if (!unary(cmp) && t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN && t != LUA_TTABLE &&
             t != LUA_TUSERDATA)
      bad = lua_pushfstring(L, "cond[3]: a value to compare with expected (a number, string, boolean or "
                            "entity), got %s", luaL_typename(L, value));
  }
  if (bad) {
    lua_pushstring(L, bad);
    lua_replace(L, top + 1);
  }
  lua_settop(L, top + (bad != NULL));
  return bad ? lua_tostring(L, -1) : NULL;
}

/* Pushes the default name of the WatchNode of the condition at cond (checked): "Watch(hunger >
 * 0.7)", "Watch(night)", "Watch(prey is set)", or for a function "Watch(hunger, night)". */
static void push_watch_name(lua_State *L, int cond) {
  cond = lua_absindex(L, cond);
  int top = lua_gettop(L);
  lua_pushliteral(L, "Watch(");
  if (lua_rawgeti(L, cond, 1) == LUA_TSTRING) { /* key [op [value]] */
    if (lua_rawgeti(L, cond, 2) == LUA_TNIL) {
      lua_pop(L, 1);
    } else {
      lua_pushliteral(L, " ");
      lua_insert(L, -2);
      unsigned long long id;
      int v = lua_gettop(L) + 1;
      int t = lua_rawgeti(L, cond, 3);
      if (t == LUA_TNIL) lua_pop(L, 1);
      else if (t == LUA_TSTRING) lua_pushfstring(L, " \"%s\"", lua_tostring(L, v));
      else if (t != LUA_TNUMBER && lbt_entity_id(L, v, &id)) lua_pushfstring(L, " %I", (lua_Integer)id);
      else lua_pushfstring(L, " %s", luaL_tolstring(L, v, NULL));
      if (t != LUA_TNIL) lua_replace(L, v);
      lua_settop(L, t == LUA_TNIL ? v - 1 : v);
    }
  } else { /* a function: the keys it reads, in the order of their names */
    lua_pop(L, 1);
    lua_getfield(L, cond, "reads");
    int reads = lua_gettop(L), n = 0;
    lua_pushnil(L);
    while (lua_next(L, reads)) {
      lua_pop(L, 1);
      n++;
    }
    const char **names = lua_newuserdatauv(L, (size_t)n * sizeof *names + 1, 0);
    n = 0;
    lua_pushnil(L);
    while (lua_next(L, reads)) {
      names[n++] = lua_tostring(L, lua_type(L, -2) == LUA_TSTRING ? -2 : -1); /* (held by reads) */
      lua_pop(L, 1);
    }
    qsort(names, (size_t)n, sizeof *names, compare_texts);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < n; i++) {
      if (i) luaL_addstring(&b, ", ");
      luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    lua_replace(L, reads);
    lua_settop(L, reads);
  }
  lua_pushliteral(L, ")");
  lua_concat(L, lua_gettop(L) - top);
}

/* The abort mode at idx: its index in abort_names (nil: "none"), or -1. */
static int abort_of(lua_State *L, int idx) {
  if (lua_isnil(L, idx)) return 0;
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(lua_tostring(L, idx), abort_names[i]) == 0) return i;
  return -1;
}

static int ctor_watch(lua_State *L) {
  const char *fname = bt_kind_name(ctor_kind(L));
  check_self(L, fname);
  lua_settop(L, 5);
  if (lua_type(L, 2) != LUA_TTABLE) lbt_typeerror(L, 2, 1, fname, "table");
  const char *bad = check_cond(L, 2);
  if (bad) lbt_argerror(L, 1, fname, bad);
  check_optname(L, 2, fname);
  if (!lua_isnil(L, 4)) check_node(L, 3, fname);
  int abort = abort_of(L, 5);
  if (abort < 0)
    lbt_argerror(L, 4, fname, lua_pushfstring(L, "\"none\", \"self\", \"lower\", \"both\" or nil expected, got %s",
                                              lua_type(L, 5) == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, 5))
                                                                            : luaL_typename(L, 5)));
  if ((abort_flags[abort] & BT_SPEC_ABORT_SELF) && lua_isnil(L, 4))
    lbt_argerror(L, 4, fname, lua_pushfstring(L, "abort \"%s\" ends the watch's own branch, which needs a child",
                                              abort_names[abort]));
  if (lua_isnil(L, 3)) {
    push_watch_name(L, 2);
    lua_replace(L, 3);
  }
  init_node(L, NULL, 3, lua_isnil(L, 4) ? 0 : push_single(L, 4));
  set_field(L, "cond", 2);
  lua_pushstring(L, abort_names[abort]);
  set_field(L, "abort", lua_gettop(L));
  note_where(L);
  return 0;
}

/* The value at idx, compared with a key of type `type` (-1: not declared), into v. */
static void watch_value(lua_State *L, int idx, int type, bt_value *v) {
  memset(v, 0, sizeof *v);
  switch (lua_type(L, idx)) {
    case LUA_TNIL: v->type = BT_KEY_NONE; return;
    case LUA_TBOOLEAN: v->type = BT_KEY_BOOLEAN; v->as.boolean = lua_toboolean(L, idx); return;
    case LUA_TSTRING: v->type = BT_KEY_STRING; v->as.string = lua_tostring(L, idx); return;
    case LUA_TNUMBER:
      if (type == BT_KEY_ENTITY && lbt_entity_id(L, idx, &v->as.entity)) {
        v->type = BT_KEY_ENTITY;
      } else { /* an integer, compared as the key's type says (numbers and integers compare) */
        lua_Integer i;
        if ((lua_isinteger(L, idx) && type != BT_KEY_NUMBER) || (type == BT_KEY_INTEGER && lbt_whole(L, idx, &i))) {
          v->type = BT_KEY_INTEGER;
          v->as.integer = (long long)(lua_isinteger(L, idx) ? lua_tointeger(L, idx) : i);
        } else {
          v->type = BT_KEY_NUMBER;
          v->as.number = lua_tonumber(L, idx);
        }
      }
      return;
    default: /* an entity */
      v->type = lbt_entity_id(L, idx, &v->as.entity) ? BT_KEY_ENTITY : BT_KEY_VALUE;
      return;
  }
}

static int spec_watch(reader *r) {
  lua_State *L = r->L;
  bt_spec *s = r->s;
  lua_pushliteral(L, "cond");
  if (lua_rawget(L, r->obj) != LUA_TTABLE) {
    lua_pushliteral(L, "it has no condition (its field cond is no table)");
    spec_fail(r);
  }
  int cond = lua_gettop(L);
  if (check_cond(L, cond)) spec_fail(r);
  lua_pushliteral(L, "abort");
  lua_rawget(L, r->obj);
  int abort = abort_of(L, -1);
  if (abort < 0) {
    lua_pushliteral(L, "its field abort is none of \"none\", \"self\", \"lower\", \"both\"");
    spec_fail(r);
  }
  lua_pop(L, 1);
  s->flags |= abort_flags[abort];
  lua_rawgeti(L, cond, 1);
  if (lua_type(L, -1) != LUA_TSTRING) { /* a function: it goes into a slot (its reads: read_ports) */
    s->fn = lbt_call_truth;
    s->ud = lbt_slot_add(r->slots);
    lua_pop(L, 1);
    return 1;
  }
  s->key = lua_tostring(L, -1); /* (held by the condition, which the object holds) */
  int type = -1;
  if (r->board) {
    int id = lbt_board_find(L, r->board, -1);
    if (id >= 0) type = ((const lbt_board *)lua_touserdata(L, r->board))->keys[id].type;
  }
  lua_rawgeti(L, cond, 2);
  s->cmp = cmp_of(L, -1);
  lua_rawgeti(L, cond, 3);
  watch_value(L, -1, type, &s->value);
  lua_settop(L, cond - 1);
  return 1;
}

/* ---- the kinds ---- */

typedef struct kind_class {
  lua_CFunction ctor;
  int (*spec)(reader *r); /* reads what the kind's core spec needs; 0 if it is missing */
  unsigned flags;           /* LBT_CLASS_* */
  const luaL_Reg *methods; /* besides those of bt_kind_get's methods */
} kind_class;

static const kind_class kind_classes[BT_KIND_COUNT] = {
    [BT_BEHAVIOUR] = {ctor_behaviour},
    [BT_SEQUENCE] = {ctor_composite},
    [BT_SELECTOR] = {ctor_composite},
    [BT_PRIORITY] = {ctor_priority, spec_priority},
    [BT_PARALLEL] = {ctor_named_composite},
    [BT_PARALLEL_ANY] = {ctor_parallel_any},
    [BT_LOOP] = {ctor_loop, spec_loop},
    [BT_RANDOM] = {ctor_composite},
    [BT_CONDITION] = {ctor_fn_leaf, spec_fn_leaf},
    [BT_MULTICONDITION] = {ctor_multicondition, spec_multicondition},
    [BT_CONDITIONWAIT] = {ctor_fn_leaf, spec_fn_leaf},
    [BT_ACTION] = {ctor_fn_leaf, spec_fn_leaf},
    [BT_WAIT] = {ctor_wait, spec_wait},
    [BT_NOT] = {ctor_decorator_kind},
    [BT_FAILIFRUNNING] = {ctor_decorator_kind},
    [BT_FAILIFSUCCESS] = {ctor_decorator_kind},
    [BT_EVENT] = {ctor_event, spec_event, LBT_CLASS_INST | LBT_CLASS_DATA, event_methods},
    [BT_LATCH] = {ctor_latch, spec_latch, LBT_CLASS_INST},
    [BT_TASK] = {ctor_task, spec_task},
    [BT_POLICY_PARALLEL] = {ctor_policy_parallel, spec_policy_parallel},
    [BT_MONITOR] = {ctor_monitor},
    [BT_ACTIVE_SELECTOR] = {ctor_named_composite},
    [BT_REPEAT] = {ctor_counted, spec_counted},
    [BT_SUCCEED] = {ctor_named_decorator},
    [BT_FAIL] = {ctor_named_decorator},
    [BT_COOLDOWN] = {ctor_counted, spec_counted},
    [BT_TIMEOUT] = {ctor_counted, spec_counted},
    [BT_SUBTREE] = {ctor_subtree, spec_subtree},
    [BT_WATCH] = {ctor_watch, spec_watch},
};

void lbt_push_spec_keys(lua_State *L) {
  static const char *const keys[LBT_SPEC_KEYS] = {
      [LBT_SPEC_NAME] = "name",         [LBT_SPEC_CHILDREN] = "children", [LBT_SPEC_PARENT] = "parent",
      [LBT_SPEC_KIND] = "__bt_kind",    [LBT_SPEC_NODE] = "__bt_node",    [LBT_SPEC_READS] = "reads",
      [LBT_SPEC_WRITES] = "writes"};
  luaL_checkstack(L, LBT_SPEC_KEYS, "bt: no room on the Lua stack");
  for (int k = 0; k < LBT_SPEC_KEYS; k++) lua_pushstring(L, keys[k]);
}

void lbt_class_spec(lua_State *L, const lbt_state *S, int obj, int template, lbt_slots *slots,
                    const char *fname, bt_spec *s, int keys, int board) {
  /* room for what a kind's spec and the ports push (a compile calls this deep in its stack) */
  luaL_checkstack(L, 24, "bt: no room on the Lua stack");
  obj = lua_absindex(L, obj);
  memset(s, 0, sizeof *s);
  s->kind = -1;
  int custom = 0;
  if (lua_getmetatable(L, obj)) { /* the kind its class derives from; whether it is a script's */
    lua_pushvalue(L, keys + LBT_SPEC_KIND);
    lua_rawget(L, -2);
    if (lua_isinteger(L, -1)) s->kind = (int)lua_tointeger(L, -1);
    custom = s->kind >= 0 && s->kind < BT_KIND_COUNT && lua_topointer(L, -2) != S->class_of[s->kind];
    lua_pop(L, 2);
  }
  reader r = {L, obj, custom, template, slots, fname, s, keys, board ? lua_absindex(L, board) : 0};
  s->ops = r.custom ? &lbt_custom_ops : &lbt_builtin_ops;
  lua_pushvalue(L, keys + LBT_SPEC_NAME);
  if (lua_gettable(L, obj) != LUA_TSTRING) {
    luaL_tolstring(L, -1, NULL);
    lua_remove(L, -2);
  }
  s->name = lua_tostring(L, -1);
  if (lbt_push_children_at(L, obj, keys + LBT_SPEC_CHILDREN) == LUA_TTABLE) s->flags |= BT_SPEC_CHILDREN;
  lua_pop(L, 1);
  if (s->kind < 0 || s->kind >= BT_KIND_COUNT) return; /* a forged class: the core refuses it */
  int (*spec)(reader *) = kind_classes[s->kind].spec;
  if (spec && !spec(&r)) spec_error(&r, "node '%s' lacks the parameter or function of its kind");
  if (S->where_all) { /* bt.set_where(true): every node's where, for coverage */
    if (lua_rawgetp(L, obj, &lbt_key_where) == LUA_TSTRING) s->where = lua_tostring(L, -1); /* (obj holds it) */
    lua_pop(L, 1);
  }
  read_ports(&r);
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

static const luaL_Reg composers[] = {
    {"WhileNode", l_while},
    {"IfNode", l_if},
    {"IfThenDoWhileNode", l_ifthendowhile},
    {NULL, NULL},
};

/* ---- methods: the class's own method, applied to a node of a tree ---- */

typedef struct bound {
  lbt_tree *t;
  int node;
  int entered; /* enter_self entered the tree (it was not entered on this thread already) */
  int flushed; /* lbt_live_flush's result, or -1 if the method flushed nothing */
  lbt_entry entry;
  lua_State *outer_L; /* not entered: the state's thread and msgh, which this call replaced */
  int outer_msgh;
} bound;

/* Checks that self (index 1) is a node in a tree, pushes its tree and enters it. Unless the
 * method only sleeps (it reads and writes no status), the statuses of the tree's live islands
 * move into the instance for the core to see, and back when leaving. */
static void enter_self_as(lua_State *L, const char *method, bound *b, int sleeps) {
  b->t = lbt_node_tree(L, 1, &b->node); /* bound: a node (only bt binds objects to trees) */
  if (!b->t && !lbt_is_node(L, 1)) lbt_typeerror(L, 1, 0, method, "node");
  if (!b->t) {
    lua_getfield(L, 1, "name");
    luaL_error(L, "%s: node '%s' is not in a tree yet (wrap its root with BT first)", method,
               luaL_tolstring(L, -1, NULL));
  }
  b->flushed = -1;
  /* a node's Sleep in its tree's think needs no entry, only a message handler in this frame for
   * the clock's call */
  b->entered = !sleeps || !b->t->entry || b->t->entry->L != L;
  if (!b->entered) {
    lbt_state *S = b->t->S;
    b->outer_L = S->L;
    b->outer_msgh = S->msgh;
    lua_pushcfunction(L, lbt_message_handler);
    S->L = L;
    S->msgh = lua_gettop(L);
    return;
  }
  lua_rawgetp(L, 1, &lbt_key_tree);
  int tree = lua_gettop(L);
  lbt_tree_enter(L, b->t, tree, &b->entry);
  if (!sleeps && lbt_live_unflushed(b->t)) b->flushed = lbt_live_flush(b->t);
}

static void enter_self(lua_State *L, const char *method, bound *b) { enter_self_as(L, method, b, 0); }

static void leave_self(lua_State *L, bound *b) {
  if (b->flushed >= 0) lbt_live_refresh(b->t, b->flushed);
  if (b->entered) {
    lbt_tree_leave(L, b->t);
  } else {
    b->t->S->L = b->outer_L;
    b->t->S->msgh = b->outer_msgh;
    lua_pop(L, 1);
  }
}

static int method_kind(lua_State *L) { return (int)lua_tointeger(L, lua_upvalueindex(1)); }

/* The method of kind's class was called on a node of another kind. */
static int bad_kind(lua_State *L, const char *method, bound *b) {
  const char *got = bt_kind_name(bt_def_kind(bt_inst_def(lbt_tree_inst(b->t)), b->node));
  const char *msg = lua_pushfstring(L, "%s expected, got %s", bt_kind_name(method_kind(L)), got);
  return lbt_argerror(L, 0, method, msg);
}

/* Visit, Reset or Step of the method's class: the core's bt_node_*_as. */
static int apply_as(lua_State *L, const char *method, int (*as)(bt_inst *, int, int)) {
  bound b;
  enter_self(L, method, &b);
  int rc = as(lbt_tree_inst(b.t), b.node, method_kind(L));
  leave_self(L, &b);
  return rc ? bad_kind(L, method, &b) : 0;
}

static int m_visit(lua_State *L) { return apply_as(L, "Visit", bt_node_visit_as); }
static int m_reset(lua_State *L) { return apply_as(L, "Reset", bt_node_reset_as); }
static int m_step(lua_State *L) { return apply_as(L, "Step", bt_node_step_as); }

static int m_get_sleep_time(lua_State *L) {
  bound b;
  double v;
  enter_self(L, "GetSleepTime", &b);
  int rc = bt_node_sleep_time_as(lbt_tree_inst(b.t), b.node, method_kind(L), &v);
  leave_self(L, &b);
  if (rc < 0) return bad_kind(L, "GetSleepTime", &b);
  if (rc == 1) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

static int m_dbstring(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  enter_self(L, "DBString", &b);
  int rc = bt_node_describe_as(lbt_tree_inst(b.t), b.node, method_kind(L), &buf);
  leave_self(L, &b);
  if (rc == BT_EINVAL) {
    bt_buf_free(&buf);
    return bad_kind(L, "DBString", &b);
  }
  return lbt_push_buf(L, &buf);
}

static int m_save_status(lua_State *L) {
  bound b;
  enter_self(L, "SaveStatus", &b);
  bt_node_save_status(lbt_tree_inst(b.t), b.node);
  leave_self(L, &b);
  return 0;
}

static int m_stop(lua_State *L) {
  bound b;
  enter_self(L, "Stop", &b);
  bt_node_stop(lbt_tree_inst(b.t), b.node);
  leave_self(L, &b);
  return 0;
}

static int m_sleep(lua_State *L) {
  bound b;
  double t = lbt_checknumber(L, 2, 1, "Sleep");
  enter_self_as(L, "Sleep", &b, 1);
  bt_node_sleep(lbt_tree_inst(b.t), b.node, t);
  leave_self(L, &b);
  return 0;
}

static int m_get_tree_sleep_time(lua_State *L) {
  bound b;
  double v;
  enter_self(L, "GetTreeSleepTime", &b);
  int has = bt_node_tree_sleep_time(lbt_tree_inst(b.t), b.node, &v);
  leave_self(L, &b);
  if (has) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

static int m_get_string(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  enter_self(L, "GetString", &b);
  bt_node_string(lbt_tree_inst(b.t), b.node, &buf);
  leave_self(L, &b);
  return lbt_push_buf(L, &buf);
}

static int m_get_tree_string(lua_State *L) {
  bound b;
  bt_buf buf = {0};
  int t = lua_type(L, 2);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TSTRING && t != LUA_TNUMBER)
    lbt_typeerror(L, 2, 1, "GetTreeString", "string or nil");
  const char *indent = t > LUA_TNIL ? lua_tostring(L, 2) : "";
  enter_self(L, "GetTreeString", &b);
  bt_node_tree_string(lbt_tree_inst(b.t), b.node, indent, &buf);
  leave_self(L, &b);
  return lbt_push_buf(L, &buf);
}

/* DoToParents(fn): fn(parent), fn(grandparent), ... following the `parent` fields. */
static int m_do_to_parents(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE) return lbt_typeerror(L, 1, 0, "DoToParents", "node");
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

/* The methods a kind's class may define itself (bt_kind_info.methods). */
static const struct {
  unsigned method;
  const char *name;
  lua_CFunction fn;
} kind_methods[] = {
    {BT_METHOD_VISIT, "Visit", m_visit},
    {BT_METHOD_RESET, "Reset", m_reset},
    {BT_METHOD_STEP, "Step", m_step},
    {BT_METHOD_SLEEP_TIME, "GetSleepTime", m_get_sleep_time},
    {BT_METHOD_DESCRIBE, "DBString", m_dbstring},
};

/* BehaviourNode's methods that no class redefines. */
static const luaL_Reg behaviour_methods[] = {
    {"SaveStatus", m_save_status},
    {"Stop", m_stop},
    {"Sleep", m_sleep},
    {"GetTreeSleepTime", m_get_tree_sleep_time},
    {"GetString", m_get_string},
    {"GetTreeString", m_get_tree_string},
    {"DoToParents", m_do_to_parents},
    {NULL, NULL},
};

/* ---- the classes ---- */

/* Sets the methods the class of kind defines itself on the class at the top of the stack. */
static void set_methods(lua_State *L, int kind) {
  unsigned own = bt_kind_get(kind)->methods;
  for (size_t i = 0; i < sizeof kind_methods / sizeof *kind_methods; i++) {
    if (!(own & kind_methods[i].method)) continue;
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, kind_methods[i].fn, 1);
    lua_setfield(L, -2, kind_methods[i].name);
  }
  if (kind_classes[kind].methods) luaL_setfuncs(L, kind_classes[kind].methods, 0);
}

/* Pushes Class(base, ctor) (base at index base_idx, or 0 for none), the constructor a closure
 * over the kind; with kind < 0, ctor is the function itself. */
static void new_class(lua_State *L, int base_idx, lua_CFunction ctor, int kind) {
  lbt_registry_get(L, LBT_REG_CLASS);
  if (base_idx) lua_pushvalue(L, base_idx);
  lua_pushinteger(L, kind);
  lua_pushlightuserdata(L, lbt_state_get(L));
  lua_pushcclosure(L, ctor, 2);
  lua_call(L, base_idx ? 2 : 1, 1);
  if (kind < 0) return;
  lua_pushinteger(L, kind);
  lua_setfield(L, -2, "__bt_kind");
  set_methods(L, kind);
  lbt_state_get(L)->classes[kind] = (unsigned char)kind_classes[kind].flags;
}

void lbt_open_classes(lua_State *L, int module) {
  lbt_open_views(L);
  lbt_registry_get(L, LBT_REG_SHARED); /* the __call of the classes made from now on */
  lua_pushlightuserdata(L, lbt_state_get(L));
  lua_pushcclosure(L, lbt_construct_node, 1);
  lua_setfield(L, -2, "construct_node");
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_CTORFIELDS); /* besides the views' names and codes (objects.c) */
  for (const char *const *f = ctor_fields; *f; f++) {
    if (lua_getfield(L, -1, *f) == LUA_TNIL) {
      lua_pushboolean(L, 1);
      lua_setfield(L, -3, *f);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lbt_index_fields(L);
  lbt_registry_get(L, LBT_REG_CLASSES);
  int reg = lua_gettop(L);

  /* BehaviourNode: the base of every node class */
  new_class(L, 0, ctor_behaviour, BT_BEHAVIOUR);
  int behaviour = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_setfield(L, behaviour, "__bt_node");
  lua_pushlightuserdata(L, lbt_state_get(L));
  lua_pushcclosure(L, lbt_node_index, 1);
  lua_setfield(L, behaviour, "__index");
  lua_pushlightuserdata(L, lbt_state_get(L));
  lua_pushcclosure(L, lbt_node_newindex, 1);
  lua_setfield(L, behaviour, "__newindex");
  luaL_setfuncs(L, behaviour_methods, 0);
  lua_pushvalue(L, behaviour);
  lua_rawseti(L, reg, BT_BEHAVIOUR + 1);
  lua_pushvalue(L, behaviour);
  lua_setfield(L, module, "BehaviourNode");

  new_class(L, behaviour, ctor_decorator, -1);
  int decorator = lua_gettop(L);
  lua_pushvalue(L, decorator);
  lua_setfield(L, module, "DecoratorNode");

  /* the others, each after its base (the kind table lists a base before the kinds extending it) */
  for (int kind = BT_BEHAVIOUR + 1; kind < BT_KIND_COUNT; kind++) {
    const bt_kind_info *k = bt_kind_get(kind);
    if (k->flags & BT_KIND_DECORATOR) lua_pushvalue(L, decorator);
    else lua_rawgeti(L, reg, k->base + 1);
    new_class(L, lua_gettop(L), kind_classes[kind].ctor, kind);
    lua_pushvalue(L, -1);
    lua_rawseti(L, reg, kind + 1);
    lua_setfield(L, module, k->name);
    lua_pop(L, 1);
  }

  /* what each class's overridable methods are now, inherited or its own */
  lbt_state *S = lbt_state_get(L);
  lbt_registry_get(L, LBT_REG_PINNED);
  int pinned = lua_gettop(L);
  for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
    lua_rawgeti(L, reg, kind + 1); /* kept by LBT_REG_CLASSES */
    S->class_of[kind] = lua_topointer(L, -1);
    for (int m = 0; m < LBT_METHOD_COUNT; m++) {
      lua_getfield(L, -1, lbt_method_names[m]);
      S->methods[kind][m] = lua_topointer(L, -1);
      lua_rawseti(L, pinned, kind * LBT_METHOD_COUNT + m + 1);
    }
    lua_pop(L, 1);
  }

  lua_pushvalue(L, module);
  luaL_setfuncs(L, composers, 0);
  lua_settop(L, reg - 1);
}

void lbt_push_global_names(lua_State *L) {
  lua_newtable(L);
  int n = 0;
  for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
    if (!(bt_kind_get(kind)->flags & BT_KIND_DS)) continue;
    lua_pushstring(L, bt_kind_name(kind));
    lua_rawseti(L, -2, ++n);
  }
  lua_pushliteral(L, "DecoratorNode");
  lua_rawseti(L, -2, ++n);
  for (const luaL_Reg *c = composers; c->name; c++) {
    lua_pushstring(L, c->name);
    lua_rawseti(L, -2, ++n);
  }
}
