/* SPDX-License-Identifier: MIT */
/*
 * leaves.c: the core's calls into Lua. A tree's leaf functions (conditions, actions, time
 * functions, tasks) sit in its definition's table of slots; each node holds its slot as its ud.
 * The methods a script's subclass overrides (Visit, Reset, Step, GetSleepTime, DBString, OnStop)
 * are called through the node's bt_ops. Every call runs in the tree entered by the API call under
 * way (lbt_tree_enter), through lbt_pcall.
 */
#include <stdint.h>

#include "lbt.h"

void *lbt_slot_add(lbt_slots *slots) {
  lua_rawseti(slots->L, slots->table, ++slots->n);
  return (void *)(intptr_t)slots->n;
}

static lbt_tree *tree_of(bt_call *c) { return bt_inst_agent(c->inst); }

/* Pushes the function in the slot the call's ud names (a copy of a subtree's node names a slot
 * of its subtree's functions, which the tree's table holds from slot_base[node] on). */
static void push_slot(lbt_tree *t, bt_call *c) {
  lua_Integer slot = (lua_Integer)(intptr_t)c->ud;
  if (t->own_fns) {
    lua_getiuservalue(t->entry->L, t->entry->tree, LBT_UV_FNS - 1 + (int)slot);
    return;
  }
  if (t->entry->slot_base) slot += t->entry->slot_base[c->node];
  lua_rawgeti(t->entry->L, t->entry->fns, slot);
}

/* (tree, state): the node object of the state, made if it is not yet; for a protected call */
static int make_obj(lua_State *L) {
  lbt_push_state_obj(L, lua_touserdata(L, 1), 1, (int)lua_tointeger(L, 2));
  return 1;
}

/* Pushes the object of node `node` of the entered tree t and returns 1: one the tree keeps (a
 * node written in Lua), found at once, or any other. Making one allocates, inside a think: that
 * runs protected, as a script's work, and if it fails (no memory), the failure is reported with
 * the node's path and nothing is pushed (0). */
static int push_node_obj(lbt_tree *t, int node) {
  lua_State *L = t->entry->L;
  int s = bt_def_state(bt_inst_def(lbt_tree_inst(t)), node);
  if (lua_type(L, t->entry->objs) == LUA_TTABLE) {
    if (lua_rawgeti(L, t->entry->objs, s + 1) != LUA_TNIL) return 1;
    lua_pop(L, 1);
  }
  lua_pushcfunction(L, make_obj);
  lua_pushvalue(L, t->entry->tree);
  lua_pushinteger(L, s);
  return lbt_pcall(t->S, L, 2, 1, t->entry->msgh, lbt_tree_inst(t), node, "its object") == LUA_OK;
}

static int push_obj(lbt_tree *t, bt_call *c) { return push_node_obj(t, c->node); }

/* ---- leaf functions ---- */

int lbt_call_truth(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->entry->L;
  push_slot(t, c);
  int nargs = !t->exact; /* DS-exact: called without arguments, as Don't Starve calls them */
  if (nargs) {
    lua_pushvalue(L, t->entry->inst);
    if (t->board) { /* fn(inst, board) (board.c: the tree's board is its objects' item 0) */
      lua_rawgeti(L, t->entry->objs, 0);
      nargs = 2;
    }
  }
  if (lbt_pcall(t->S, L, nargs, 1, t->entry->msgh, c->inst, c->node, NULL) != LUA_OK) return -1;
  int r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* Leaves a number result of a time function in c->value. */
static int take_number(bt_call *c, lbt_tree *t, const char *what) {
  lua_State *L = t->entry->L;
  if (lua_type(L, -1) != LUA_TNUMBER) {
    lbt_push_path(L, c->inst, c->node);
    lua_pushfstring(L, "%s: %s returned %s, not a number", lua_tostring(L, -1), what,
                    luaL_typename(L, -2));
    lbt_report(t->S, L, c->inst, c->node, lua_tostring(L, -1));
    lua_pop(L, 3);
    return -1;
  }
  c->value = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return 1;
}

/* A time function's number result in c->value; a message names the function as "the
 * <kind>'s <what> function". */
static int take_time(bt_call *c, lbt_tree *t, const char *what) {
  lua_State *L = t->entry->L;
  if (lua_type(L, -1) == LUA_TNUMBER) return take_number(c, t, NULL);
  lua_pushfstring(L, "the %s's %s function", bt_kind_name(bt_def_kind(bt_inst_def(c->inst), c->node)),
                  what);
  lua_insert(L, -2);
  int r = take_number(c, t, lua_tostring(L, -2));
  lua_pop(L, 1);
  return r;
}

static int call_time(bt_call *c, int with_inst) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->entry->L;
  push_slot(t, c);
  if (with_inst) {
    if (!push_obj(t, c)) {
      lua_pop(L, 1);
      return -1;
    }
    lbt_node_member(L, t->S, -1, LBT_KEY_INST);
    lua_remove(L, -2);
  }
  if (lbt_pcall(t->S, L, with_inst, 1, t->entry->msgh, c->inst, c->node, NULL) != LUA_OK) return -1;
  return take_time(c, t, with_inst ? "duration" : "time");
}

int lbt_call_time(bt_call *c) { return call_time(c, 0); }

int lbt_call_time_inst(bt_call *c) { return call_time(c, 1); }

/* ---- tasks: start, update and finish of the task, called as its methods ----
 * self is the task given to its node, or, when that is a Class, the entity's own object of it,
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
  lua_State *L = t->entry->L;
  push_slot(t, c);
  int task = lua_gettop(L);
  if (!is_class(L, task)) return 1;
  int s = bt_def_state(bt_inst_def(c->inst), c->node);
  lbt_tree_table(L, t->entry->tree, LBT_UV_OBJS, 1);
  if (lua_rawgeti(L, -1, lbt_data_key(s)) != LUA_TNIL) {
    lua_replace(L, task);
    lua_settop(L, task);
    return 1;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, task);
  lua_pushvalue(L, t->entry->inst);
  if (lbt_pcall(t->S, L, 1, 1, t->entry->msgh, c->inst, c->node, "task object") != LUA_OK) {
    lua_settop(L, task - 1);
    return 0;
  }
  lua_pushvalue(L, -1);
  lua_rawseti(L, task + 1, lbt_data_key(s));
  lua_replace(L, task);
  lua_settop(L, task);
  return 1;
}

/* Calls the task's method with the entity (and status, if >= 0); leaves its two first results
 * and returns 1, returns 0 if it has no such method, or -1 after reporting an error. */
static int call_task(bt_call *c, const char *method, int status) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->entry->L;
  lua_pushcfunction(L, task_method);
  if (!push_task_self(t, c)) {
    lua_pop(L, 1);
    return -1;
  }
  lua_pushstring(L, method);
  lua_pushvalue(L, t->entry->inst);
  if (status >= 0) lbt_push_status(L, status);
  int nargs = status >= 0 ? 4 : 3;
  if (lbt_pcall(t->S, L, nargs, 3, t->entry->msgh, c->inst, c->node, method) != LUA_OK) return -1;
  if (lua_toboolean(L, -3)) {
    lua_remove(L, -3);
    return 1;
  }
  lua_pop(L, 3);
  return 0;
}

static int task_start(bt_call *c) {
  int r = call_task(c, "start", -1);
  if (r > 0) lua_pop(tree_of(c)->entry->L, 2);
  return r < 0 ? -1 : 0;
}

/* tostring(v) for v at 1, for a protected call */
static int to_string(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

/* update's results: a status (or true for SUCCESS, false for FAILED), then optionally the seconds
 * the task may sleep. */
static int task_update(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->entry->L;
  int r = call_task(c, "update", -1);
  if (r <= 0) return BT_FAILED;
  int status = lbt_status_of(t->S, L, -2);
  if (lua_type(L, -2) == LUA_TBOOLEAN) status = lua_toboolean(L, -2) ? BT_SUCCESS : BT_FAILED;
  if (status != BT_SUCCESS && status != BT_FAILED && status != BT_RUNNING) {
    lua_pushcfunction(L, to_string); /* its __tostring or __name may raise: that is reported then */
    lua_pushvalue(L, -3);
    if (lbt_pcall(t->S, L, 1, 1, t->entry->msgh, c->inst, c->node, "update") != LUA_OK) {
      lua_pop(L, 2);
      return BT_FAILED;
    }
    lbt_push_path(L, c->inst, c->node);
    lua_pushfstring(L, "%s: update returned %s, not bt.SUCCESS, bt.FAILED or bt.RUNNING",
                    lua_tostring(L, -1), lua_tostring(L, -2));
    lbt_report(t->S, L, c->inst, c->node, lua_tostring(L, -1));
    lua_pop(L, 5);
    return BT_FAILED;
  }
  if (status == BT_RUNNING && lua_type(L, -1) == LUA_TNUMBER) bt_node_sleep(c->inst, c->node, lua_tonumber(L, -1));
  lua_pop(L, 2);
  return status;
}

static void task_finish(bt_call *c, bt_status status) {
  if (call_task(c, "finish", status) > 0) lua_pop(tree_of(c)->entry->L, 2);
}

const bt_task lbt_task_calls = {task_start, task_update, task_finish};

/* ---- live islands ---- */

/* Puts (put) or takes the status fields of the island of node `root` of the entered tree t,
 * whose object is at stack index obj: the node and, through children written in Lua, its
 * descendants written in Lua, which the root's Lua code may visit directly. */
static void island(lbt_tree *t, int root, int obj, int put) {
  lua_State *L = t->entry->L;
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  if (put) lbt_live_put(L, t, obj, root);
  else lbt_live_take(L, t, obj, root);
  int n = bt_def_child_count(def, root);
  for (int i = 0; i < n; i++) {
    int child = bt_def_child(def, root, i);
    if (bt_def_ops(def, child) != &lbt_custom_ops || !push_node_obj(t, child)) continue;
    island(t, child, lua_gettop(L), put);
    lua_pop(L, 1);
  }
}

/* The same, for the island of live[i], whose object is not on the stack. */
static void island_at(lbt_tree *t, int i, int put) {
  if (!push_node_obj(t, t->live[i])) return; /* (a live island's objects exist) */
  island(t, t->live[i], lua_gettop(t->entry->L), put);
  lua_pop(t->entry->L, 1);
}

/* Makes the island of the call's node (its object at stack index obj) live before its Lua code
 * runs; returns what live_end takes, -1 if there was no memory to note it (the objects then read
 * the instance, a little slower). */
static int live_begin(lbt_tree *t, bt_call *c, int obj) {
  lbt_entry *e = t->entry;
  int cap = t->live ? t->live[-1] : 0;
  if (e->nlive == cap) {
    void *ud;
    lua_Alloc alloc = lua_getallocf(e->L, &ud);
    int grown = cap ? 2 * cap : 7;
    int *block = alloc(ud, t->live ? t->live - 1 : NULL, cap ? (size_t)(cap + 1) * sizeof(int) : 0,
                       (size_t)(grown + 1) * sizeof(int));
    if (!block) return -1;
    block[0] = grown;
    t->live = block + 1;
  }
  int mark = e->nlive;
  t->live[e->nlive++] = c->node;
  island(t, c->node, obj, 1);
  return mark;
}

static void live_end(lbt_tree *t, int mark, int obj) {
  if (mark < 0) return;
  island(t, t->live[mark], obj, 0);
  t->entry->nlive = mark;
}

int lbt_live_flush(lbt_tree *t) {
  lbt_entry *e = t->entry;
  int flushed = e->nflushed;
  for (int i = flushed; i < e->nlive; i++) island_at(t, i, 0);
  e->nflushed = e->nlive;
  return flushed;
}

void lbt_live_refresh(lbt_tree *t, int flushed) {
  for (int i = flushed; i < t->entry->nlive; i++) island_at(t, i, 1);
  t->entry->nflushed = flushed;
}

void lbt_live_free(lua_State *L, lbt_tree *t) {
  if (!t->live) return;
  void *ud;
  lua_Alloc alloc = lua_getallocf(L, &ud);
  alloc(ud, t->live - 1, (size_t)(t->live[-1] + 1) * sizeof(int), 0);
  t->live = NULL;
}

/* ---- methods a script overrides ---- */

/* Pushes obj[method] above the node object and returns 1 if it is not the method the node's
 * kind's class had (a script overrides it); otherwise pops both and returns 0. Returns -1,
 * pushing nothing, if the object could not be made (reported). */
static int overridden(lbt_tree *t, bt_call *c, int method) {
  lua_State *L = t->entry->L;
  if (!push_obj(t, c)) return -1;
  int type = lbt_node_member(L, t->S, -1, method);
  int kind = bt_def_kind(bt_inst_def(c->inst), c->node);
  if (type != LUA_TNIL && lua_topointer(L, -1) != t->S->methods[kind][method]) return 1;
  lua_pop(L, 2);
  return 0;
}

/* Calls the pushed obj[method] with obj as self (both popped), with nres results. */
static int call_method(lbt_tree *t, bt_call *c, int nres, const char *what) {
  lua_State *L = t->entry->L;
  lua_insert(L, -2);
  return lbt_pcall(t->S, L, 1, nres, t->entry->msgh, c->inst, c->node, what);
}

/* Calls the pushed method as call_method does, with the node's island live meanwhile. */
static int call_live(lbt_tree *t, bt_call *c, int nres, const char *what) {
  lua_State *L = t->entry->L;
  int obj = lua_gettop(L) - 1; /* stays below the call, for live_end */
  int mark = live_begin(t, c, obj);
  lua_pushvalue(L, obj);
  int rc = lbt_pcall(t->S, L, 1, nres, t->entry->msgh, c->inst, c->node, what);
  live_end(t, mark, obj);
  lua_remove(L, obj);
  return rc;
}

static int ops_visit(bt_call *c) {
  lbt_tree *t = tree_of(c);
  int has = overridden(t, c, LBT_VISIT);
  if (!has) return BT_DEFAULT;
  if (has < 0 || call_live(t, c, 0, NULL) != LUA_OK) bt_node_set_status(c->inst, c->node, BT_FAILED);
  return BT_OK;
}

static int ops_reset(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (overridden(t, c, LBT_RESET) <= 0) return BT_DEFAULT;
  call_live(t, c, 0, "Reset");
  return BT_OK;
}

static int ops_step(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (overridden(t, c, LBT_STEP) <= 0) return BT_DEFAULT;
  call_live(t, c, 0, "Step");
  return BT_OK;
}

static int ops_sleep_time(bt_call *c) {
  lbt_tree *t = tree_of(c);
  if (overridden(t, c, LBT_SLEEP_TIME) <= 0) return BT_DEFAULT;
  if (call_live(t, c, 1, "GetSleepTime") != LUA_OK) return 0;
  lua_State *L = t->entry->L;
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  return take_number(c, t, "GetSleepTime") == 1 ? 1 : 0;
}

static int ops_describe(bt_call *c, bt_buf *out) {
  lbt_tree *t = tree_of(c);
  if (overridden(t, c, LBT_DESCRIBE) <= 0) return BT_DEFAULT;
  if (call_method(t, c, 1, "DBString") != LUA_OK) return bt_buf_append(out, "?", 1);
  lua_State *L = t->entry->L;
  int type = lua_type(L, -1);
  if (type != LUA_TSTRING && type != LUA_TNUMBER) { /* its __tostring or __name may raise */
    lua_pushcfunction(L, to_string);
    lua_insert(L, -2);
    if (lbt_pcall(t->S, L, 1, 1, t->entry->msgh, c->inst, c->node, "DBString") != LUA_OK)
      return bt_buf_append(out, "?", 1);
  }
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  int rc = bt_buf_append(out, s, len);
  lua_pop(L, 1);
  return rc;
}

/* Stop: self:OnStop() when the node has an OnStop, whoever defined it. An object it needs is
 * made by push_node_obj (and held on the stack below until then). */
static int ops_on_stop(bt_call *c) {
  lbt_tree *t = tree_of(c);
  lua_State *L = t->entry->L;
  int s = bt_def_state(bt_inst_def(c->inst), c->node);
  int has = lbt_push_on_stop(L, t->entry->tree, s, 0);
  if (has < 0) {
    if (!push_node_obj(t, c->node)) return BT_OK;
    has = lbt_push_on_stop(L, t->entry->tree, s, 0);
    lua_remove(L, has > 0 ? -3 : -1);
  }
  if (has) call_method(t, c, 0, "OnStop");
  return BT_OK;
}

const bt_ops lbt_builtin_ops = {NULL, NULL, NULL, ops_on_stop, NULL, NULL};
const bt_ops lbt_custom_ops = {ops_visit, ops_reset, ops_step, ops_on_stop, ops_sleep_time,
                               ops_describe};
