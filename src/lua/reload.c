/*
 * reload.c: what lua/reload.lua needs from C: moving a live agent from its old tree to a tree of
 * the new code (core.migrate), and knowing when no tree thinks, so that a reload asked for
 * during a think waits for its end (core.thinking, core.defer).
 */
#include <stdio.h>
#include <string.h>

#include "lbt.h"

#define TREE_META "bt.tree"

static lbt_tree *check_tree(lua_State *L, int idx) {
  lbt_tree *t = luaL_checkudata(L, idx, TREE_META);
  if (!t->inst) luaL_error(L, "migrate: a tree was garbage collected");
  return t;
}

static int is_custom(lua_State *L, int obj) {
  int kind = lbt_node_kind(L, obj);
  if (kind < 0) return 0;
  lua_getmetatable(L, obj);
  lbt_registry_get(L, LBT_REG_CLASSES);
  lua_rawgeti(L, -1, kind + 1);
  int custom = !lua_rawequal(L, -1, -3);
  lua_pop(L, 3);
  return custom;
}

/* obj:OnStop(), protected, if the object has one. */
static void stop_object(lua_State *L, lbt_state *S, int obj, const bt_inst *inst, int node) {
  obj = lua_absindex(L, obj);
  lua_getfield(L, obj, "OnStop");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_pushvalue(L, obj);
  lbt_pcall(S, L, 1, 0, 0, inst, node, "OnStop");
}

/* The configuration of a kept object follows the new template where it differs from the old. */
static void apply_config(lua_State *L, int obj, int old_tpl, int new_tpl) {
  lua_pushnil(L);
  while (lua_next(L, new_tpl)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (key && strcmp(key, "children") && strcmp(key, "parent") && strcmp(key, "inst")) {
      lua_pushvalue(L, -2);
      lua_rawget(L, old_tpl);
      int same = lua_rawequal(L, -1, -2);
      lua_pop(L, 1);
      if (!same) {
        lua_pushvalue(L, -2);
        lua_pushvalue(L, -2);
        lua_rawset(L, obj);
      }
    }
    lua_pop(L, 1);
  }
  lua_pushnil(L);
  while (lua_next(L, old_tpl)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) continue;
    lua_pushvalue(L, -1);
    if (lua_rawget(L, new_tpl) == LUA_TNIL) {
      lua_pushvalue(L, -2);
      lua_pushnil(L);
      lua_rawset(L, obj);
    }
    lua_pop(L, 1);
  }
}

/* A task of the old tree (at index 1) that has no place in the new one is reset there: if its
 * run was under way, its finish is told BT_ABORTED. Matched tasks run on in the new tree. */
static void abort_gone_tasks(lua_State *L, lbt_tree *old, const int *map, int nstates) {
  const bt_def *od = bt_inst_def(old->inst);
  int ostates = bt_def_states(od);
  unsigned char *kept = lua_newuserdatauv(L, (size_t)(ostates ? ostates : 1), 0);
  memset(kept, 0, (size_t)(ostates ? ostates : 1));
  for (int ns = 0; ns < nstates; ns++)
    if (map[ns] >= 0 && map[ns] < ostates) kept[map[ns]] = 1;
  lbt_ctx saved;
  lua_State *saved_L;
  lbt_enter(L, 1, &saved, &saved_L);
  for (int s = 0; s < ostates; s++) {
    int n = bt_def_node_of_state(od, s);
    if (!kept[s] && bt_def_kind(od, n) == BT_TASK) bt_node_reset_as(old->inst, n, BT_TASK);
  }
  lbt_leave(L, 1, &saved, saved_L);
  lua_pop(L, 1);
}

/* core.migrate(old_tree, new_tree): see lua/reload.lua. Returns matched, gone, re-evaluated. */
static int r_migrate(lua_State *L) {
  lbt_tree *old = check_tree(L, 1), *neu = check_tree(L, 2);
  lbt_state *S = lbt_state_get(L);
  lua_settop(L, 2);
  const bt_def *od = bt_inst_def(old->inst), *nd = bt_inst_def(neu->inst);
  int nstates = bt_def_states(nd);
  int *map = lua_newuserdatauv(L, (size_t)(nstates ? nstates : 1) * sizeof *map, 0);
  bt_def_match(od, nd, map);
  bt_transfer r;
  int rc = bt_inst_transfer(neu->inst, old->inst, map, &r);
  if (rc == BT_EBUSY) return luaL_error(L, "migrate: a tree is thinking");
  if (rc != BT_OK) return luaL_error(L, "not enough memory");
  enum { OOBJS = 4, ODATA, NOBJS, NDATA, CARRIED, DISCARDED, OTPL, NTPL };
  lbt_tree_table(L, 1, LBT_UV_OBJS, 1);
  lbt_tree_table(L, 1, LBT_UV_DATA, 1);
  lbt_tree_table(L, 2, LBT_UV_OBJS, 1);
  lbt_tree_table(L, 2, LBT_UV_DATA, 1);
  lua_newtable(L); /* carried: old objects kept in the new tree -> true */
  lua_newtable(L); /* discarded: new objects replaced by kept old ones */
  lua_getiuservalue(L, 1, LBT_UV_DEF);
  lua_getiuservalue(L, -1, LBT_DEF_UV_TEMPLATES);
  lua_replace(L, OTPL);
  lua_getiuservalue(L, 2, LBT_UV_DEF);
  lua_getiuservalue(L, -1, LBT_DEF_UV_TEMPLATES);
  lua_replace(L, NTPL);

  for (int ns = 0; ns < nstates; ns++) {
    int os = map[ns];
    if (os < 0) continue;
    int nnode = bt_def_node_of_state(nd, ns);
    if (bt_def_kind(nd, nnode) == BT_EVENT || bt_def_kind(nd, nnode) == BT_TASK) {
      lua_rawgeti(L, ODATA, os + 1);
      lua_rawseti(L, NDATA, ns + 1);
    }
    if (lua_rawgeti(L, OOBJS, os + 1) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    int obj = lua_gettop(L);
    /* a node written in Lua that was running keeps its object: its progress */
    if (!is_custom(L, obj) || bt_node_status(old->inst, bt_def_node_of_state(od, os)) != BT_RUNNING) {
      lua_pop(L, 1);
      continue;
    }
    if (lbt_is_template(old, os) && lbt_is_template(neu, ns)) {
      lua_rawgeti(L, OTPL, os + 1);
      lua_rawgeti(L, NTPL, ns + 1);
      apply_config(L, obj, obj + 1, obj + 2);
      lua_settop(L, obj);
    } else if (lua_rawgeti(L, NOBJS, ns + 1) != LUA_TNIL) {
      lua_rawseti(L, DISCARDED, (lua_Integer)lua_rawlen(L, DISCARDED) + 1);
    } else {
      lua_pop(L, 1);
    }
    lua_pushvalue(L, 2);
    lua_rawsetp(L, obj, &lbt_key_tree);
    lua_pushinteger(L, nnode);
    lua_rawsetp(L, obj, &lbt_key_node);
    lua_pushvalue(L, obj);
    lua_rawseti(L, NOBJS, ns + 1);
    /* its parent and children are the new tree's, read from it when asked for */
    lua_pushliteral(L, "children");
    lua_pushnil(L);
    lua_rawset(L, obj);
    lua_pushliteral(L, "parent");
    lua_pushnil(L);
    lua_rawset(L, obj);
    lua_pushvalue(L, obj);
    lua_pushboolean(L, 1);
    lua_rawset(L, CARRIED);
    lua_settop(L, obj - 1);
  }

  /* everything of the old tree that was not carried over is stopped, parents first */
  int size = bt_def_size(od);
  for (int n = 0; n < size; n++) {
    int s = bt_def_state(od, n);
    if (bt_def_node_of_state(od, s) != n) continue;
    if (!lbt_push_on_stop(L, 1, s)) continue;
    lua_pushvalue(L, -2);
    if (lua_rawget(L, CARRIED) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_insert(L, -2);
      lbt_pcall(S, L, 1, 0, 0, old->inst, n, "OnStop");
    } else {
      lua_pop(L, 3);
    }
  }
  abort_gone_tasks(L, old, map, nstates);
  lua_Integer nd_count = (lua_Integer)lua_rawlen(L, DISCARDED);
  for (lua_Integer i = 1; i <= nd_count; i++) {
    lua_rawgeti(L, DISCARDED, i);
    stop_object(L, S, -1, neu->inst, 0);
    lua_pop(L, 1);
  }
  lua_pushinteger(L, r.matched);
  lua_pushinteger(L, r.gone);
  lua_pushinteger(L, r.reevaluate);
  return 3;
}

/* core.thinking(): whether a tree of this Lua state is inside its think */
static int r_thinking(lua_State *L) {
  lua_pushboolean(L, lbt_state_get(L)->thinking > 0);
  return 1;
}

/* core.defer(fn): fn() runs once no tree thinks (at the end of the outermost think) */
static int r_defer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lbt_registry_get(L, LBT_REG_DEFERRED);
  lua_pushvalue(L, 1);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lbt_state_get(L)->deferred = 1;
  return 0;
}

void lbt_run_deferred(lua_State *L, lbt_state *S) {
  if (!S->deferred || S->thinking > 0) return;
  S->deferred = 0;
  lbt_registry_get(L, LBT_REG_DEFERRED);
  int list = lua_gettop(L);
  lua_newtable(L);
  lbt_registry_set(L, LBT_REG_DEFERRED);
  lua_Integer n = (lua_Integer)lua_rawlen(L, list);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    lbt_pcall(S, L, 0, 0, 0, NULL, -1, "deferred reload");
  }
  lua_settop(L, list - 1);
}

static const luaL_Reg reload_core[] = {
    {"migrate", r_migrate},
    {"thinking", r_thinking},
    {"defer", r_defer},
    {NULL, NULL},
};

void lbt_add_reload_core(lua_State *L, int core) {
  lbt_add_subtree_core(L, core);
  lua_pushvalue(L, core);
  luaL_setfuncs(L, reload_core, 0);
  lbt_push_watch_core(L);
  lua_setfield(L, -2, "watcher");
  lua_pop(L, 1);
}

/* ---- the C API (bt_lua.h) ---- */

/* Pushes bt.reload[name]. */
static void push_reload_fn(lua_State *L, const char *name) {
  lbt_registry_get(L, LBT_REG_MODULE);
  lua_getfield(L, -1, "reload");
  lua_getfield(L, -1, name);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

int bt_lua_reload_enable(lua_State *L) {
  push_reload_fn(L, "enable");
  int rc = lua_pcall(L, 0, 0, 0);
  if (rc != LUA_OK) lua_pop(L, 1);
  return rc == LUA_OK ? BT_OK : BT_EINVAL;
}

static void copy_message(const char *msg, char *err, size_t size) {
  if (!err || !size) return;
  snprintf(err, size, "%s", msg ? msg : "unknown error");
}

int bt_lua_reload(lua_State *L, const char *module, char *err, size_t size) {
  int top = lua_gettop(L);
  push_reload_fn(L, "module");
  lua_pushstring(L, module);
  int rc = lua_pcall(L, 1, 2, 0);
  int ok = rc == LUA_OK && lua_toboolean(L, -2);
  if (!ok) copy_message(lua_tostring(L, -1), err, size);
  lua_settop(L, top);
  return ok ? BT_OK : BT_EINVAL;
}

int bt_lua_reload_watch(lua_State *L, const char *mode) {
  int top = lua_gettop(L);
  push_reload_fn(L, "watch");
  lua_pushstring(L, mode ? mode : "auto");
  int rc = lua_pcall(L, 1, 1, 0);
  lua_settop(L, top);
  return rc == LUA_OK ? BT_OK : BT_EINVAL;
}

int bt_lua_reload_poll(lua_State *L,
                       void (*report)(void *ud, const char *file, int ok, const char *message),
                       void *ud) {
  int top = lua_gettop(L);
  push_reload_fn(L, "poll");
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    lua_settop(L, top);
    return 0;
  }
  int n = (int)lua_rawlen(L, -1);
  for (int i = 1; report && i <= n; i++) {
    lua_rawgeti(L, -1, i);
    lua_getfield(L, -1, "file");
    lua_getfield(L, -2, "ok");
    lua_getfield(L, -3, "message");
    report(ud, lua_tostring(L, -3), lua_toboolean(L, -2), lua_tostring(L, -1));
    lua_pop(L, 4);
  }
  lua_settop(L, top);
  return n;
}
