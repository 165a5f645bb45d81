/* SPDX-License-Identifier: MIT */
/*
 * reload.c: what lua/reload.lua needs from C, moving a live agent from its old tree to a tree of
 * the new code (shared.migrate), and the C API of hot reload (bt_lua_reload_*), which calls
 * lua/reload.lua's functions.
 */
#include <stdio.h>
#include <string.h>

#include "btp.h"
#include "lbt.h"

/* shared.migrate's work: the two trees at indices 1 and 2, the map of the new tree's states to the
 * old one's, and the tables the phases share. */
typedef struct move {
  lua_State *L;
  lbt_state *S;
  lbt_tree *old, *neu;
  const bt_def *od, *nd;
  int *map;
  int nstates; /* the new tree's */
} move;

enum { OOBJS = 4, NOBJS, CARRIED, DISCARDED, OTPL, NTPL };

static lbt_tree *check_tree(lua_State *L, int idx) {
  lbt_tree *t = lbt_tree_test(L, idx);
  if (!t) lbt_typeerror(L, idx, idx, "migrate", "BT");
  if (t->collected) luaL_error(L, "migrate: a tree was garbage collected");
  return t;
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

/* Pushes the tables the phases share, at OOBJS .. NTPL. */
static void push_tables(lua_State *L) {
  lbt_tree_table(L, 1, LBT_UV_OBJS, 1);
  lbt_tree_table(L, 2, LBT_UV_OBJS, 1);
  lua_newtable(L); /* carried: old objects kept in the new tree -> true */
  lua_newtable(L); /* discarded: new objects replaced by kept old ones */
  lua_getiuservalue(L, 1, LBT_UV_DEF);
  lua_getiuservalue(L, -1, LBT_DEF_UV_TEMPLATES);
  lua_replace(L, OTPL);
  lua_getiuservalue(L, 2, LBT_UV_DEF);
  lua_getiuservalue(L, -1, LBT_DEF_UV_TEMPLATES);
  lua_replace(L, NTPL);
}

/* The old object at obj, a node written in Lua that was running (its progress is in its
 * fields), becomes the object of new state ns; a new object made for that state is discarded. */
static void carry(move *m, int obj, int os, int ns) {
  lua_State *L = m->L;
  if (bt_def_graph_id(m->od, os) >= m->old->nown &&
      bt_def_graph_id(m->nd, ns) >= m->neu->nown) { /* both copies of templates */
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
  lua_pushinteger(L, bt_def_node_of_state(m->nd, ns));
  lua_rawsetp(L, obj, &lbt_key_node);
  lua_pushvalue(L, obj);
  lua_rawseti(L, NOBJS, ns + 1);
  /* its parent and children are the new tree's, read from it when asked for */
  lua_pushliteral(L, "children");
  lua_pushnil(L);
  lua_rawset(L, obj);
  lua_pushnil(L);
  lua_rawsetp(L, obj, &lbt_key_children);
  lua_pushliteral(L, "parent");
  lua_pushnil(L);
  lua_rawset(L, obj);
  lua_pushvalue(L, obj);
  lua_pushboolean(L, 1);
  lua_rawset(L, CARRIED);
}

/* Phase 1: each matched state keeps its Lua data (an event's data, a task's object), and a
 * running node written in Lua its object. */
static void carry_objects(move *m) {
  lua_State *L = m->L;
  for (int ns = 0; ns < m->nstates; ns++) {
    int os = m->map[ns];
    if (os < 0) continue;
    lua_rawgeti(L, OOBJS, lbt_data_key(os));
    lua_rawseti(L, NOBJS, lbt_data_key(ns));
    if (lua_rawgeti(L, OOBJS, os + 1) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    int obj = lua_gettop(L);
    int node = bt_def_node_of_state(m->od, os);
    if (lbt_is_custom(L, m->old->S, obj, bt_def_kind(m->od, node)) &&
        bt_node_status(lbt_tree_inst(m->old), node) == BT_RUNNING)
      carry(m, obj, os, ns);
    lua_settop(L, obj - 1);
  }
}

/* Phase 2: everything of the old tree that was not carried over is stopped, parents first. */
static void stop_old(move *m) {
  lua_State *L = m->L;
  int size = bt_def_size(m->od);
  for (int n = 0; n < size; n++) {
    int s = bt_def_state(m->od, n);
    if (bt_def_node_of_state(m->od, s) != n) continue;
    if (!lbt_push_on_stop(L, 1, s, 1)) continue;
    lua_pushvalue(L, -2);
    if (lua_rawget(L, CARRIED) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_insert(L, -2);
      lbt_pcall(m->S, L, 1, 0, 0, lbt_tree_inst(m->old), n, "OnStop");
    } else {
      lua_pop(L, 3);
    }
  }
}

/* Phase 3: a node of the old tree that has no place in the new one ends its run (a task's
 * finish is told BT_ABORTED); matched nodes run on in the new tree. */
static void abort_gone(move *m) {
  lua_State *L = m->L;
  int ostates = bt_def_states(m->od);
  unsigned char *kept = lua_newuserdatauv(L, (size_t)(ostates ? ostates : 1), 0);
  memset(kept, 0, (size_t)(ostates ? ostates : 1));
  for (int ns = 0; ns < m->nstates; ns++)
    if (m->map[ns] >= 0 && m->map[ns] < ostates) kept[m->map[ns]] = 1;
  lbt_entry entry;
  lbt_tree_enter(L, m->old, 1, &entry);
  for (int s = 0; s < ostates; s++)
    if (!kept[s]) bt_node_abort(lbt_tree_inst(m->old), bt_def_node_of_state(m->od, s));
  lbt_tree_leave(L, m->old);
  lua_pop(L, 1);
}

/* Phase 4: the new objects that kept old ones replaced are stopped. */
static void stop_discarded(move *m) {
  lua_State *L = m->L;
  lua_Integer n = (lua_Integer)lua_rawlen(L, DISCARDED);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, DISCARDED, i);
    stop_object(L, m->S, -1, lbt_tree_inst(m->neu), 0);
    lua_pop(L, 1);
  }
}

/* shared.migrate(old_tree, new_tree): see lua/reload.lua. Returns matched, gone, re-evaluated. */
static int l_migrate(lua_State *L) {
  move m;
  m.L = L;
  m.old = check_tree(L, 1);
  m.neu = check_tree(L, 2);
  m.S = lbt_state_get(L);
  lua_settop(L, 2);
  m.od = bt_inst_def(lbt_tree_inst(m.old));
  m.nd = bt_inst_def(lbt_tree_inst(m.neu));
  m.nstates = bt_def_states(m.nd);
  m.map = lua_newuserdatauv(L, (size_t)(m.nstates ? m.nstates : 1) * sizeof *m.map, 0);
  bt_def_match(m.od, m.nd, m.map);
  bt_transfer r;
  bt_inst *old = lbt_tree_inst(m.old), *neu = lbt_tree_inst(m.neu);
  lbt_tree_move_hook(L, 1, 2); /* (not while either thinks) */
  int rc = bt_inst_transfer(neu, old, m.map, &r);
  if (rc == BT_EBUSY) return luaL_error(L, "migrate: a tree is thinking");
  if (rc != BT_OK) return luaL_error(L, "not enough memory");
  lbt_board_migrate(L, 1, 2); /* the values of "any" keys; the core carried the others */
  push_tables(L);
  carry_objects(&m);
  stop_old(&m);
  abort_gone(&m);
  stop_discarded(&m);
  lua_pushinteger(L, r.matched);
  lua_pushinteger(L, r.gone);
  lua_pushinteger(L, r.reevaluate);
  return 3;
}

/* shared.read_file(path): the file's bytes, or nil and the error ("<path>: <reason>"), as io.open
 * and read("a") give them, but opened through btp_file_open: an editor that saves by renaming a
 * new file over the old one makes the file unopenable for a moment on Windows, and a reload asked
 * at that moment waits for it instead of refusing the save. */
static int l_read_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  FILE *f = btp_file_open(path, "rb");
  if (!f) return luaL_fileresult(L, 0, path);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  size_t n;
  do {
    char *p = luaL_prepbuffer(&b);
    n = fread(p, 1, LUAL_BUFFERSIZE, f);
    luaL_addsize(&b, n);
  } while (n == LUAL_BUFFERSIZE);
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot be read", path);
    return 2;
  }
  luaL_pushresult(&b);
  return 1;
}

const luaL_Reg lbt_reload_shared[] = {
    {"migrate", l_migrate},
    {"read_file", l_read_file},
    {NULL, NULL},
};

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
