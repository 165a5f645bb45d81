/* SPDX-License-Identifier: MIT */
/*
 * tree.c: BT(inst, root) and BT(inst, definition): a tree userdata (an lbt_tree and the agent's
 * bt_inst in one block) for one entity, and the tree methods of Don't Starve's BT. Each method
 * that makes the core act on the instance enters the tree first (lbt_tree_enter).
 */
#include <string.h>

#include "lbt.h"

#define TREE_META "bt.tree"
#define OWN_FNS_MAX 32768 /* the most functions a tree holds as user values */

/* Whether a tree is DS-exact: the options table at opts (nil: bt.set_exact's setting), whose
 * field exact, if not nil, says. */
static int read_exact(lua_State *L, int opts, int arg, const char *fname) {
  lbt_state *S = lbt_state_get(L);
  if (lua_isnoneornil(L, opts)) return S->exact;
  if (!lua_istable(L, opts)) return lbt_typeerror(L, opts, arg, fname, "table or nil");
  int type = lua_getfield(L, opts, "exact");
  int exact = type == LUA_TNIL ? S->exact : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return exact;
}

/* Pushes a tree of the definition at def_idx for the entity at inst, for the function fname. */
static int instantiate(lua_State *L, int def_idx, int inst, int exact, const char *fname) {
  def_idx = lua_absindex(L, def_idx);
  inst = lua_absindex(L, inst);
  lbt_def *d = lbt_def_test(L, def_idx);
  if (!d->def) return luaL_error(L, "%s: the definition was garbage collected", fname);
  /* A tree built for one entity holds its functions itself, as user values after its own (Lua
   * gives a userdata fewer than 65,535): its definition keeps none (lbt_push_own_def). */
  lua_getiuservalue(L, def_idx, LBT_DEF_UV_FNS);
  int fns = lua_gettop(L);
  int own = !d->shared && !d->slot_base && lua_rawlen(L, fns) <= OWN_FNS_MAX;
  int nfns = own ? (int)lua_rawlen(L, fns) : 0;
  /* one block: the lbt_tree, the instance, then lbt_tree_slot_base if it runs subtrees */
  size_t inst_size = bt_def_inst_size(d->def);
  size_t bytes = LBT_TREE_HEAD + inst_size + (d->slot_base ? sizeof d->slot_base : 0);
  lbt_tree *t = lua_newuserdatauv(L, bytes, own ? LBT_UV_FNS - 1 + nfns : LBT_UV_FNS);
  int tree = lua_gettop(L);
  memset(t, 0, sizeof *t);
  t->magic = LBT_TREE_MAGIC;
  t->S = lbt_state_get(L);
  t->nown = d->nown;
  t->own_fns = (unsigned)own;
  t->exact = (unsigned)exact;
  t->subtrees = d->slot_base != NULL;
  if (d->slot_base) /* lbt_tree_slot_base */
    memcpy((char *)t + LBT_TREE_HEAD + inst_size, &d->slot_base, sizeof d->slot_base);
  /* which Priorities draw their first evaluation time is in their specs (classes.c) */
  int seeded = t->S->seed_ref != LUA_NOREF;
  unsigned flags = (exact ? BT_INST_EXACT : 0) | (seeded ? BT_INST_NOSCATTER : 0);
  bt_inst *in;
  if (bt_inst_init(&in, (char *)t + LBT_TREE_HEAD, d->def, &t->S->host, t, flags) != BT_OK)
    return luaL_error(L, "not enough memory");
  luaL_setmetatable(L, TREE_META);
  if (seeded) { /* bt.seed_trees: its own stream, seeded by the entity, then its first draws */
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->S->seed_ref);
    lua_pushvalue(L, inst);
    lua_call(L, 1, 1);
    int isint = 0;
    lua_Integer seed = lua_tointegerx(L, -1, &isint);
    if (!isint) return luaL_error(L, "bt.seed_trees: the seed function returned a %s (an integer expected)",
                                  luaL_typename(L, -1));
    lua_pop(L, 1);
    bt_inst_seed(lbt_tree_inst(t), (unsigned long long)seed);
    bt_inst_scatter(lbt_tree_inst(t));
    t->stream = lbt_stream_seed((unsigned long long)seed);
  }
  if (own) {
    for (int i = 1; i <= nfns; i++) {
      lua_rawgeti(L, fns, i);
      lua_setiuservalue(L, tree, LBT_UV_FNS - 1 + i);
    }
  } else {
    lua_pushvalue(L, fns);
    lua_setiuservalue(L, tree, LBT_UV_FNS);
  }
  lua_pushvalue(L, inst);
  lua_setiuservalue(L, tree, LBT_UV_INST);
  lua_pushvalue(L, def_idx);
  lua_setiuservalue(L, tree, LBT_UV_DEF);
  /* a tree built for one entity: its objects become views of their state in the instance */
  if (!d->shared) lbt_adopt_objects(L, t, tree, def_idx, d);
  lbt_events_bind(L, t, tree, inst, d->shared || d->slot_base);
  if (!d->shared && !d->slot_base) { /* it keeps the one definition of its shape */
    lbt_push_own_def(L, def_idx);
    lua_setiuservalue(L, tree, LBT_UV_DEF);
  }
  lua_settop(L, tree);
  return 1;
}

/* definition:instantiate(inst[, options]): the same as BT(inst, definition[, options]) */
static int def_instantiate(lua_State *L) {
  if (!lbt_def_test(L, 1)) return lbt_typeerror(L, 1, 0, "instantiate", "definition");
  lua_settop(L, 3);
  return instantiate(L, 1, 2, read_exact(L, 3, 2, "instantiate"), "instantiate");
}

/* BT(inst, root or definition[, options]): called through the BT table's __call, so the table
 * is argument 1 */
static int tree_new(lua_State *L) {
  lua_settop(L, 4);
  int exact = read_exact(L, 4, 3, "BT");
  if (lbt_def_test(L, 3)) return instantiate(L, 3, 2, exact, "BT");
  if (!lbt_is_node(L, 3)) return lbt_typeerror(L, 3, 2, "BT", "node or definition");
  lbt_compile(L, 3, 0, "BT", NULL);
  return instantiate(L, -1, 2, exact, "BT");
}

/* bt.set_exact(on): whether trees built from now on are DS-exact, and node constructors give
 * nodes Don't Starve's id and nextupdatetick; returns the previous setting. */
static int set_exact(lua_State *L) {
  lbt_state *S = lbt_state_get(L);
  luaL_checkany(L, 1);
  lua_pushboolean(L, S->exact);
  S->exact = lua_toboolean(L, 1);
  return 1;
}


/* ---- tree methods ---- */

static lbt_tree *check_tree(lua_State *L, const char *method) {
  lbt_tree *t = lbt_tree_test(L, 1);
  if (!t) lbt_typeerror(L, 1, 0, method, "BT");
  if (t->collected) luaL_error(L, "%s: the tree was garbage collected", method);
  return t;
}

/* Enters the tree at index tree for a method. Called by a script's Lua code that the tree runs
 * (its islands are live), the statuses of the live islands move into the instance meanwhile;
 * returns what leave takes. */
static int enter_at(lua_State *L, lbt_tree *t, int tree, lbt_entry *entry) {
  lbt_tree_enter(L, t, tree, entry);
  return lbt_live_unflushed(t) ? lbt_live_flush(t) : -1;
}

/* enter_at for the tree at index 1, a method's self */
static int enter(lua_State *L, lbt_tree *t, lbt_entry *entry) { return enter_at(L, t, 1, entry); }

static void leave(lua_State *L, lbt_tree *t, int flushed) {
  if (flushed >= 0) lbt_live_refresh(t, flushed);
  lbt_tree_leave(L, t);
}

/* A think of the entered tree t, which is not thinking. Returns -1, or, when the tree records
 * (its recorder then has the think's record), whether it asks for a sleep time, in *sleep. */
static int think_entered(lbt_tree *t, double *sleep) {
  lbt_state *S = t->S;
  bt_inst *in = lbt_tree_inst(t); /* (an entered tree is not collected: tree_gc) */
  int group = lbt_time_group_begin(S, !t->exact);
  S->thinking++;
  bt_inst_update(in);
  S->thinking--;
  /* a recorder takes the think's record with its sleep time, which may call the tree's Lua
   * nodes: asked here, with the tree entered, never later from a read or a collection */
  int has = bt_inst_recorder(in) ? bt_inst_sleep_time(in, sleep) : -1;
  lbt_time_group_end(S, group);
  return has;
}

/* think_entered for the tree at index 1, t. */
static int think(lua_State *L, lbt_tree *t, double *sleep) {
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  int has = think_entered(t, sleep);
  leave(L, t, flushed);
  lbt_run_deferred(L, t->S); /* a reload asked for during the think */
  return has;
}

static int tree_update(lua_State *L) {
  lbt_tree *t = check_tree(L, "Update");
  if (bt_inst_thinking(lbt_tree_inst(t)))
    return luaL_error(L, "Update: the tree is thinking (Update called from inside its own think)");
  double sleep;
  think(L, t, &sleep);
  return 0;
}

static int tree_force_update(lua_State *L) {
  bt_inst_force_update(lbt_tree_inst(check_tree(L, "ForceUpdate")));
  return 0;
}

/* The sleep time of the entered tree t: 1 and *out, or 0 for none. */
static int sleep_after(lbt_tree *t, double *out) {
  int group = lbt_time_group_begin(t->S, !t->exact);
  int has = bt_inst_sleep_time(lbt_tree_inst(t), out);
  lbt_time_group_end(t->S, group);
  return has;
}

/* The sleep time of the tree at index 1, t: 1 and *out, or 0 for none. */
static int sleep_time(lua_State *L, lbt_tree *t, double *out) {
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  int has = sleep_after(t, out);
  leave(L, t, flushed);
  return has;
}

static int tree_get_sleep_time(lua_State *L) {
  lbt_tree *t = check_tree(L, "GetSleepTime");
  double v;
  if (sleep_time(L, t, &v)) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

/* The tree at index tree if it is one whose BT methods Update and GetSleepTime are still bt's
 * own, else NULL. */
static lbt_tree *own_tree(lua_State *L, int tree) {
  lbt_tree *t = lbt_tree_test(L, tree);
  if (!t || t->collected) return NULL;
  const lbt_state *S = t->S;
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->bt_ref);
  lbt_push_key(L, S, LBT_KEY_UPDATE);
  lua_rawget(L, -2);
  lbt_push_key(L, S, LBT_SLEEP_TIME);
  lua_rawget(L, -3);
  int own = lua_tocfunction(L, -2) == tree_update && lua_tocfunction(L, -1) == tree_get_sleep_time;
  lua_pop(L, 3);
  return own ? t : NULL;
}

int lbt_tree_think_own(lua_State *L, int tree, int brain, double *sleep) {
  tree = lua_absindex(L, tree);
  brain = lua_absindex(L, brain);
  lbt_tree *t = own_tree(L, tree);
  if (!t || bt_inst_thinking(lbt_tree_inst(t))) return LBT_NOT_OWN;
  lbt_state *S = t->S;
  lbt_entry entry;
  int flushed = enter_at(L, t, tree, &entry);
  int has = think_entered(t, sleep);
  if ((!S->deferred || S->thinking > 0) && lua_type(L, brain) == LUA_TTABLE) {
    /* no reload waits to run now, and the brain's tree is read without running any code */
    lbt_push_key(L, S, LBT_KEY_BT);
    int same = lua_rawget(L, brain) == LUA_TUSERDATA && lua_touserdata(L, -1) == t;
    lua_pop(L, 1);
    if (!same) has = LBT_SLEEP_UNKNOWN; /* the brain has another tree now */
    else if (has == LBT_SLEEP_UNKNOWN) has = sleep_after(t, sleep);
  } else {
    has = LBT_SLEEP_UNKNOWN;
  }
  leave(L, t, flushed);
  lbt_run_deferred(L, S); /* a reload asked for during the think */
  return has;
}

int lbt_tree_sleep_own(lua_State *L, int tree, double *sleep) {
  tree = lua_absindex(L, tree);
  lbt_tree *t = own_tree(L, tree);
  if (!t) return LBT_SLEEP_UNKNOWN;
  lbt_entry entry;
  int flushed = enter_at(L, t, tree, &entry);
  int has = sleep_after(t, sleep);
  leave(L, t, flushed);
  return has;
}

static int tree_reset(lua_State *L) {
  lbt_tree *t = check_tree(L, "Reset");
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  bt_inst_reset(lbt_tree_inst(t));
  leave(L, t, flushed);
  return 0;
}

static int tree_stop(lua_State *L) {
  lbt_tree *t = check_tree(L, "Stop");
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  bt_inst_stop(lbt_tree_inst(t));
  leave(L, t, flushed);
  return 0;
}

static int tree_tostring(lua_State *L) {
  lbt_tree *t = check_tree(L, "__tostring");
  lbt_entry entry;
  bt_buf buf = {0};
  int flushed = enter(L, t, &entry);
  int group = lbt_time_group_begin(t->S, !t->exact);
  bt_inst_dump(lbt_tree_inst(t), &buf);
  lbt_time_group_end(t->S, group);
  leave(L, t, flushed);
  return lbt_push_buf(L, &buf);
}

/* tree:dot(): the tree with its statuses as a Graphviz DOT graph (bt_inst_dot) */
static int tree_dot(lua_State *L) {
  lbt_tree *t = check_tree(L, "dot");
  lbt_entry entry;
  bt_buf buf = {0};
  int flushed = enter(L, t, &entry);
  bt_inst_dot(lbt_tree_inst(t), &buf);
  leave(L, t, flushed);
  return lbt_push_buf(L, &buf);
}

/* What tree:snapshot() reads of a node inside the tree: its tree sleep time and where its
 * dbstring lies in the text of all of them. */
typedef struct snap_node {
  size_t start, end; /* its dbstring: text[start .. end) */
  double sleep;
  int has_sleep;
} snap_node;

/* tree:snapshot(): every node in pre-order, {depth, name, status, last[, dbstring][, sleep]}:
 * what the dump shows of it, as fields. A node's dbstring is read as the dump reads it (only while
 * the node runs; a node written in Lua has its DBString called) and sleep is its tree sleep time;
 * both inside the tree, the tables are made after. */
static int tree_snapshot(lua_State *L) {
  lbt_tree *t = check_tree(L, "snapshot");
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int n = bt_def_size(def);
  snap_node *s = lua_newuserdatauv(L, (size_t)n * sizeof *s + 1, 0); /* before entering: may raise */
  bt_buf buf = {0};
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  int group = lbt_time_group_begin(t->S, !t->exact);
  bt_inst *in = lbt_tree_inst(t);
  for (int i = 0; i < n; i++) {
    s[i].start = buf.len;
    if (bt_node_status(in, i) == BT_RUNNING) bt_node_describe(in, i, &buf);
    s[i].end = buf.err ? s[i].start : buf.len;
    s[i].has_sleep = bt_node_tree_sleep_time(in, i, &s[i].sleep);
  }
  lbt_time_group_end(t->S, group);
  leave(L, t, flushed);
  lbt_push_buf(L, &buf); /* frees buf; raises without memory */
  const char *text = lua_tostring(L, -1);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, bt_def_depth(def, i));
    lua_setfield(L, -2, "depth");
    lua_pushstring(L, bt_def_name(def, i));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, bt_status_name(bt_node_status(lbt_tree_inst(t), i)));
    lua_setfield(L, -2, "status");
    lua_pushstring(L, bt_status_name(bt_node_last(lbt_tree_inst(t), i)));
    lua_setfield(L, -2, "last");
    if (s[i].end > s[i].start) {
      lua_pushlstring(L, text + s[i].start, s[i].end - s[i].start);
      lua_setfield(L, -2, "dbstring");
    }
    if (s[i].has_sleep) {
      lua_pushnumber(L, s[i].sleep);
      lua_setfield(L, -2, "sleep");
    }
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int tree_fire_event(lua_State *L) {
  check_tree(L, "FireEvent");
  lbt_events_fire(L, 1, 2, 3);
  return 0;
}

/* tree:random_state(): the states of its two random streams, integers: the core's generator
 * (Priority, RandomNode; nil for a tree that draws nothing) and bt.random's (its scripts'; nil
 * for a tree made without bt.seed_trees) */
static int tree_random_state(lua_State *L) {
  lbt_tree *t = check_tree(L, "random_state");
  unsigned long long x;
  bt_inst_random_state(lbt_tree_inst(t), &x);
  if (x) lua_pushinteger(L, (lua_Integer)x);
  else lua_pushnil(L);
  if (t->stream) lua_pushinteger(L, (lua_Integer)t->stream);
  else lua_pushnil(L);
  return 2;
}

/* tree:set_random_state(core, scripts): sets them (values tree:random_state gave; nil leaves one
 * as it is) */
static int tree_set_random_state(lua_State *L) {
  lbt_tree *t = check_tree(L, "set_random_state");
  for (int arg = 2; arg <= 3; arg++) {
    if (lua_isnoneornil(L, arg)) continue;
    int isint;
    lua_Integer x = lua_tointegerx(L, arg, &isint);
    if (!isint) return lbt_typeerror(L, arg, arg - 1, "set_random_state", "integer or nil");
    if (x == 0) return lbt_argerror(L, arg - 1, "set_random_state", "0 is no stream's state");
    if (arg == 3) {
      t->stream = (unsigned long long)x;
    } else if (bt_inst_set_random_state(lbt_tree_inst(t), (unsigned long long)x) == BT_EBUSY) {
      return luaL_error(L, "set_random_state: not while the tree thinks");
    }
  }
  return 0;
}

static int tree_gc(lua_State *L) {
  lbt_tree *t = lbt_tree_test(L, 1); /* a script may call it by hand, with anything */
  /* by hand, from the tree's own scripts: the tree is in use (entered), and its collection will
   * come */
  if (t && !t->collected && !t->entry && !bt_inst_thinking(lbt_tree_inst(t))) {
    bt_inst_fini(lbt_tree_inst(t));
    t->collected = 1;
    lbt_live_free(L, t);
  }
  return 0;
}

/* The BT table's members (so scripts may patch BT's methods), then tree.inst, tree.root and
 * tree.exact. Upvalues: the BT table, "inst", "root", "exact". */
static int tree_index(lua_State *L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  lbt_tree *t = lbt_tree_test(L, 1); /* a script may call it by hand, with anything */
  if (!t) return 0;
  if (lua_rawequal(L, 2, lua_upvalueindex(2))) {
    lua_getiuservalue(L, 1, LBT_UV_INST);
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(3))) {
    if (t->collected) return 0;
    lbt_push_state_obj(L, t, 1, 0);
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(4))) {
    lua_pushboolean(L, t->exact);
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
    {"random_state", tree_random_state},
    {"set_random_state", tree_set_random_state},
    {"snapshot", tree_snapshot},
    {"dot", tree_dot},
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
  lua_pushliteral(L, "exact");
  lua_pushcclosure(L, tree_index, 4);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "BT");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);

  luaL_getmetatable(L, LBT_DEF_META);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, def_instantiate);
  lua_setfield(L, -2, "instantiate");
  lua_pop(L, 2);

  lbt_registry_get(L, LBT_REG_BT);
  lua_pushvalue(L, -1);
  lbt_state_get(L)->bt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  luaL_setfuncs(L, tree_methods, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, tree_new);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, module, "BT");
  lua_pushcfunction(L, set_exact);
  lua_setfield(L, module, "set_exact");
}
