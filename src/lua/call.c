/* SPDX-License-Identifier: MIT */
/* call.c: every call from bt into Lua code goes through lbt_pcall: protected, bounded by the
 * instruction limit, and reported with a traceback and the node's path when it fails. Entering a
 * tree sets up what the core's calls into Lua need; work asked for during a think waits here
 * until no tree thinks. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lbt.h"

/* Message handler: the error as a string, plus a traceback (as lua.c's msghandler). */
int lbt_message_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* The count hook of a bounded call: past the limit, an error at every instruction from then on,
 * so that a script that catches the error with pcall is stopped at its next instruction outside
 * the pcall. A coroutine made during a bounded call inherits the hook; resumed after it, it loses
 * the hook instead. */
static void limit_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lbt_state *S = lbt_state_get(L);
  if (!S || !S->hooked) {
    lua_sethook(L, NULL, 0, 0);
    return;
  }
  lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
  /* tripped in a coroutine: the bounded call stops too, even if the script catches this error */
  if (S->L && S->L != L) lua_sethook(S->L, limit_hook, LUA_MASKCOUNT, 1);
  luaL_error(L, "instruction limit exceeded (%I instructions)", S->limit);
}

/* shared.bound_thread(co): during a bounded call, gives the coroutine co the call's instruction
 * hook, so that a coroutine made before the call and resumed in it is bounded too. */
static int l_bound_thread(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  lbt_state *S = lbt_state_get(L);
  if (co && co != L && S && S->hooked && lua_gethook(L) == limit_hook)
    lua_sethook(co, limit_hook, LUA_MASKCOUNT, lua_gethookcount(L));
  return 0;
}

/* The host's hook, put back when the outermost bounded call returns. */
typedef struct saved_hook {
  int installed;
  lua_Hook hook;
  int mask, count;
} saved_hook;

/* Installs the instruction limit for a call, unless a call under way already did. */
static void limit_begin(lbt_state *S, lua_State *L, saved_hook *h) {
  h->installed = S->limit > 0 && !S->hooked;
  if (!h->installed) return;
  h->hook = lua_gethook(L);
  h->mask = lua_gethookmask(L);
  h->count = lua_gethookcount(L);
  lua_sethook(L, limit_hook, LUA_MASKCOUNT, S->limit > 0x7fffffff ? 0x7fffffff : (int)S->limit);
  S->hooked = 1;
}

static void limit_end(lbt_state *S, lua_State *L, const saved_hook *h) {
  if (!h->installed) return;
  lua_sethook(L, h->hook, h->mask, h->count);
  S->hooked = 0;
}

/* Adds node's name to b, with "#k" if siblings share it: it is the k-th of them. The nodes are in
 * pre-order, so the children of p are the nodes after it whose parent is p, up to the first
 * whose parent comes before p. */
static void add_name(luaL_Buffer *b, const lbt_shape *sh, int node) {
  const char *name = sh->name(sh->data, node);
  luaL_addstring(b, name);
  int p = sh->up(sh->data, node);
  if (p < 0) return;
  int same = 0, k = 0;
  for (int c = p + 1; c < sh->size; c++) {
    int up = sh->up(sh->data, c);
    if (up < p) break;
    if (up != p || strcmp(sh->name(sh->data, c), name) != 0) continue;
    same++;
    if (c == node) k = same;
  }
  if (same > 1) {
    char tag[24];
    snprintf(tag, sizeof tag, "#%d", k);
    luaL_addstring(b, tag);
  }
}

void lbt_push_shape_path(lua_State *L, const lbt_shape *sh, int node) {
  int chain[BT_MAX_DEPTH + 1];
  int n = 0;
  for (int i = node; i >= 0 && n <= BT_MAX_DEPTH; i = sh->up(sh->data, i)) chain[n++] = i;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (n-- > 0) {
    add_name(&b, sh, chain[n]);
    if (n > 0) luaL_addchar(&b, '/');
  }
  luaL_pushresult(&b);
}

static int def_up(const void *def, int node) { return bt_def_up(def, node); }
static const char *def_name(const void *def, int node) { return bt_def_name(def, node); }

void lbt_push_def_path(lua_State *L, const bt_def *def, int node) {
  lbt_shape sh = {def, bt_def_size(def), def_up, def_name};
  lbt_push_shape_path(L, &sh, node);
}

void lbt_push_path(lua_State *L, const bt_inst *inst, int node) { lbt_push_def_path(L, bt_inst_def(inst), node); }

void lbt_push_entity_label(lua_State *L, int idx) {
  static const char *const kinds[] = {"prefab", "kind"}, *const ids[] = {"GUID", "id"};
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushfstring(L, "%s: %p", luaL_typename(L, idx), lua_topointer(L, idx));
    return;
  }
  int top = lua_gettop(L);
  const char *kind = NULL, *id = NULL;
  for (int i = 0; i < 2 && !kind; i++) {
    lua_pushstring(L, kinds[i]);
    if (lua_rawget(L, idx) == LUA_TSTRING) kind = lua_tostring(L, -1);
  }
  for (int i = 0; i < 2 && !id; i++) {
    lua_pushstring(L, ids[i]);
    int type = lua_rawget(L, idx);
    if (type == LUA_TNUMBER || type == LUA_TSTRING) id = lua_tostring(L, -1);
  }
  if (kind || id) {
    lua_pushfstring(L, "%s%s%s", kind ? kind : "", kind && id ? " " : "", id ? id : "");
  } else {
    lua_pushliteral(L, "name");
    if (lua_rawget(L, idx) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushfstring(L, "table: %p", lua_topointer(L, idx));
    }
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* Pushes "creature: <label>[, brain: <file>:<line>]" for the tree of inst if it is entered on L
 * and has an entity (the brain: where the class of the entity's `brain` was made,
 * LBT_REG_ORIGINS), else "". Runs no Lua code. */
static void push_context(lua_State *L, const bt_inst *inst) {
  lbt_tree *t = inst ? bt_inst_agent(inst) : NULL;
  if (!t || t->magic != LBT_TREE_MAGIC || !t->entry || t->entry->L != L ||
      lua_isnoneornil(L, t->entry->inst)) {
    lua_pushliteral(L, "");
    return;
  }
  int top = lua_gettop(L), ent = t->entry->inst;
  lbt_push_entity_label(L, ent);
  lua_pushfstring(L, "creature: %s", lua_tostring(L, -1));
  int line = lua_gettop(L);
  lua_pushliteral(L, "brain");
  if (lua_type(L, ent) == LUA_TTABLE && lua_rawget(L, ent) == LUA_TTABLE && lua_getmetatable(L, -1)) {
    lbt_registry_get(L, LBT_REG_ORIGINS);
    lua_insert(L, -2);
    if (lua_rawget(L, -2) == LUA_TSTRING)
      lua_pushfstring(L, "%s, brain: %s", lua_tostring(L, line), lua_tostring(L, -1));
    else
      lua_pushvalue(L, line);
  } else {
    lua_pushvalue(L, line);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* Hands message to the error handler, or writes it to standard error (errlog.c). For a node of the tree of
 * inst (NULL: none), the line naming its creature and brain (push_context) goes after the
 * message's first part, before its traceback; and the instance's hook (its recorder), if it has
 * one, is told that first part (bt_inst_record_error). */
void lbt_report(lbt_state *S, lua_State *L, const bt_inst *inst, int node, const char *message) {
  if (inst && bt_inst_hook(inst, NULL)) {
    const char *tb = strstr(message, "\nstack traceback:");
    lua_pushlstring(L, message, tb ? (size_t)(tb - message) : strlen(message));
    bt_inst_record_error((bt_inst *)(uintptr_t)inst, node, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  push_context(L, inst);
  if (lua_rawlen(L, -1) == 0) {
    lua_pop(L, 1);
    lua_pushstring(L, message);
  } else {
    const char *tb = strstr(message, "\nstack traceback:");
    size_t head = tb ? (size_t)(tb - message) : strlen(message);
    lua_pushlstring(L, message, head);
    lua_pushfstring(L, "%s\n%s%s", lua_tostring(L, -1), lua_tostring(L, -2), message + head);
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
  lbt_registry_get(L, LBT_REG_HANDLER);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    const char *tb = strstr(message, "\nstack traceback:");
    lbt_errlog_write(L, lua_tostring(L, -1), message, tb ? (size_t)(tb - message) : strlen(message));
    lua_pop(L, 1);
    return;
  }
  lua_insert(L, -2);
  int base = lua_gettop(L) - 1;
  lua_pushcfunction(L, lbt_message_handler);
  lua_insert(L, base);
  saved_hook h;
  limit_begin(S, L, &h);
  S->depth++;
  lua_pcall(L, 1, 0, base); /* an error inside the handler is dropped */
  S->depth--;
  S->time_fresh = 0;
  limit_end(S, L, &h);
  lua_settop(L, base - 1);
}

/* Reports the error of a failed call (its message on the top, popped) as
 * "<path>: <what>: <message>". */
static void report_failure(lbt_state *S, lua_State *L, int rc, const bt_inst *inst, int node,
                           const char *what) {
  if (rc == LUA_ERRMEM) lua_gc(L, LUA_GCCOLLECT); /* what the script left behind, before reporting */
  const char *msg = lua_tostring(L, -1);
  if (!msg) msg = "(error without message)";
  if (inst) lbt_push_path(L, inst, node);
  else lua_pushliteral(L, "bt");
  lua_pushfstring(L, "%s: %s%s%s", lua_tostring(L, -1), what ? what : "", what ? ": " : "", msg);
  lua_replace(L, -3);
  lua_pop(L, 1);

  lbt_report(S, L, inst, node, lua_tostring(L, -1));
  lua_pop(L, 1);
}

int lbt_pcall(lbt_state *S, lua_State *L, int nargs, int nres, int msgh, const bt_inst *inst,
              int node, const char *what) {
  return lbt_pcall_named(S, L, nargs, nres, msgh, inst, node, &what);
}

int lbt_pcall_named(lbt_state *S, lua_State *L, int nargs, int nres, int msgh, const bt_inst *inst,
                    int node, const char *const *what) {
  int base = 0;
  if (!msgh) {
    base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, lbt_message_handler);
    lua_insert(L, base);
    msgh = base;
  }
  saved_hook h;
  limit_begin(S, L, &h);
  lua_State *saved = S->L;
  S->L = L;
  S->depth++;
  /* the script gets the memory limit; bt's own work around it keeps the reserve */
  lbt_memory *mem = S->mem;
  int reserve = 0;
  if (mem) {
    reserve = mem->reserve;
    mem->reserve = 0;
  }
  int rc = lua_pcall(L, nargs, nres, msgh);
  if (mem) mem->reserve = reserve;
  S->depth--;
  S->time_fresh = 0; /* the script may have moved the time */
  S->L = saved;
  limit_end(S, L, &h);
  if (base) lua_remove(L, base);
  if (rc != LUA_OK) report_failure(S, L, rc, inst, node, *what);
  return rc;
}

/* ---- entering a tree ---- */

void lbt_tree_enter(lua_State *L, lbt_tree *t, int tree, lbt_entry *entry) {
  if (t->S->mem) t->S->mem->reserve++; /* bt's own work from here: the stack may grow into it */
  if (!lua_checkstack(L, 40)) {
    if (t->S->mem) t->S->mem->reserve--;
    luaL_error(L, "stack overflow (bt: tree too deep for the Lua stack)");
  }
  lbt_entry *outer = t->entry;
  lua_getiuservalue(L, tree, LBT_UV_FNS);
  int base = lua_gettop(L);
  lua_getiuservalue(L, tree, LBT_UV_INST);
  lua_pushcfunction(L, lbt_message_handler);
  lua_getiuservalue(L, tree, LBT_UV_OBJS);
  *entry = (lbt_entry){.L = L, .tree = tree, .fns = base, .inst = base + 1, .msgh = base + 2,
                       .inst_ptr = lua_topointer(L, base + 1),
                       .objs = base + 3, .outer_msgh = t->S->msgh,
                       .nlive = outer ? outer->nlive : 0, .nflushed = outer ? outer->nflushed : 0,
                       .slot_base = t->subtrees ? lbt_tree_slot_base(t) : NULL, .outer = outer,
                       .outer_L = t->S->L, .outer_tree = t->S->entered};
  t->entry = entry;
  t->S->entered = t;
  t->S->L = L;
  t->S->msgh = base + 2;
}

void lbt_tree_leave(lua_State *L, lbt_tree *t) {
  lbt_entry *e = t->entry;
  if (t->S->mem) t->S->mem->reserve--;
  lua_settop(L, e->fns - 1);
  t->S->msgh = e->outer_msgh;
  t->S->L = e->outer_L;
  t->S->entered = e->outer_tree;
  t->entry = e->outer;
}

/* ---- work deferred until no tree thinks (a reload asked for inside a think) ---- */

/* shared.thinking(): whether a tree of this Lua state is inside its think */
static int l_thinking(lua_State *L) {
  lua_pushboolean(L, lbt_state_get(L)->thinking > 0);
  return 1;
}

/* shared.defer(fn): fn() runs once no tree thinks (at the end of the outermost think) */
static int l_defer(lua_State *L) {
  if (lua_type(L, 1) != LUA_TFUNCTION) return lbt_typeerror(L, 1, 1, "defer", "function");
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

/* bt.set_error_handler(fn): fn(message) gets the errors of scripts; nil: standard error */
static int l_set_error_handler(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNIL && t != LUA_TNONE && t != LUA_TFUNCTION)
    return lbt_typeerror(L, 1, 1, "set_error_handler", "function or nil");
  lua_settop(L, 1);
  lbt_registry_set(L, LBT_REG_HANDLER);
  return 0;
}

/* bt.set_instruction_limit(n): every call into Lua is stopped after n instructions; 0: never */
static int l_set_instruction_limit(lua_State *L) {
  if (!lua_isinteger(L, 1) || lua_tointeger(L, 1) < 0)
    return lbt_argerror(L, 1, "set_instruction_limit",
                        lua_pushfstring(L, "non-negative integer expected, got %s",
                                        lua_type(L, 1) == LUA_TNUMBER ? "a fraction or negative number"
                                                                      : luaL_typename(L, 1)));
  lbt_state_get(L)->limit = lua_tointeger(L, 1);
  return 0;
}

const luaL_Reg lbt_call_functions[] = {
    {"set_error_handler", l_set_error_handler},
    {"set_instruction_limit", l_set_instruction_limit},
    {NULL, NULL},
};

const luaL_Reg lbt_call_shared[] = {
    {"thinking", l_thinking},
    {"defer", l_defer},
    {"bound_thread", l_bound_thread},
    {NULL, NULL},
};
