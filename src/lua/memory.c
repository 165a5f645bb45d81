/* SPDX-License-Identifier: MIT */
/* memory.c: Lua states whose memory is bounded (bt_lua_newstate), and bt.set_memory_limit. */
#include <stdio.h>
#include <stdlib.h>

#include "lbt.h"

/* Past the limit, scripts' allocations fail; bt's own work (reporting an error, making a node's
 * view) may go this much further, so that a script that filled the memory cannot make bt fail. */
static size_t reserve_of(size_t limit) { return limit / 8 > 65536 ? limit / 8 : 65536; }

static void *bounded_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lbt_memory *m = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    m->used -= old;
    return NULL;
  }
  if (m->limit && nsize > old) {
    size_t bound = m->limit + (m->reserve ? reserve_of(m->limit) : 0);
    if (m->used - old + nsize > bound) return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) m->used = m->used - old + nsize;
  return p;
}

static int panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n", msg ? msg : "?");
  fflush(stderr);
  return 0; /* Lua aborts after this */
}

lua_State *bt_lua_newstate(size_t limit) {
  lbt_memory *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->limit = limit;
  lua_State *L = lua_newstate(bounded_alloc, m);
  if (!L) {
    free(m);
    return NULL;
  }
  lua_atpanic(L, panic);
  return L;
}

void bt_lua_close(lua_State *L) {
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  lua_close(L);
  if (f == bounded_alloc) free(ud);
}

lbt_memory *lbt_memory_of(lua_State *L) {
  void *ud;
  return lua_getallocf(L, &ud) == bounded_alloc ? ud : NULL;
}

int bt_lua_set_memory_limit(lua_State *L, size_t limit) {
  lbt_memory *m = lbt_memory_of(L);
  if (!m) return BT_EINVAL;
  m->limit = limit;
  return BT_OK;
}

size_t bt_lua_memory_used(lua_State *L) {
  lbt_memory *m = lbt_memory_of(L);
  return m ? m->used : 0;
}

/* bt.set_memory_limit(bytes): 0 for none */
static int l_set_memory_limit(lua_State *L) {
  if (!lua_isinteger(L, 1)) return lbt_typeerror(L, 1, 1, "set_memory_limit", "integer");
  if (lua_tointeger(L, 1) < 0)
    return lbt_argerror(L, 1, "set_memory_limit", "a number of bytes >= 0 expected");
  if (bt_lua_set_memory_limit(L, (size_t)lua_tointeger(L, 1)) != BT_OK)
    return luaL_error(L, "set_memory_limit: this Lua state was not made by bt_lua_newstate, so bt "
                         "cannot bound its memory");
  return 0;
}

/* bt.memory() -> bytes in use, limit (0 for none); nil for a state bt did not make */
static int l_memory(lua_State *L) {
  lbt_memory *m = lbt_memory_of(L);
  if (!m) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushinteger(L, (lua_Integer)m->used);
  lua_pushinteger(L, (lua_Integer)m->limit);
  return 2;
}

const luaL_Reg lbt_memory_functions[] = {
    {"set_memory_limit", l_set_memory_limit},
    {"memory", l_memory},
    {NULL, NULL},
};
