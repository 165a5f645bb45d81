/*
 * hello.c: the smallest host. It embeds Lua, opens bt, starts a brain for one entity, and runs
 * the game loop: 30 ticks a simulated second, the world moves, then the brain manager thinks the
 * brains that are due. After each think it prints a line and, when it changed, the tree dump.
 *
 *   bt-hello [brain.lua] [seconds]
 */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"

static double sim_time; /* the game's clock, in seconds */

static int game_clock(lua_State *L) {
  lua_pushnumber(L, sim_time);
  return 1;
}

static int fail(lua_State *L) {
  fprintf(stderr, "bt-hello: %s\n", lua_tostring(L, -1));
  lua_close(L);
  return 1;
}

int main(int argc, char **argv) {
  const char *brain_file = argc > 1 ? argv[1] : "examples/hello/brain.lua";
  double seconds = argc > 2 ? atof(argv[2]) : 8;

  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0); /* package.loaded.bt = the module */
  int bt = lua_gettop(L);
  lua_getfield(L, bt, "set_clock"); /* bt.set_clock(game_clock) */
  lua_pushcfunction(L, game_clock);
  lua_call(L, 1, 0);

  /* the entity: a table the host updates and the brain reads */
  lua_newtable(L);
  lua_pushnumber(L, 0);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, 0);
  lua_setfield(L, -2, "hunger");
  int inst = lua_gettop(L);

  /* inst.brain = bt.sandbox.dofile(brain_file)(inst); inst.brain:Start() */
  lua_getfield(L, bt, "sandbox");
  lua_getfield(L, -1, "dofile");
  lua_remove(L, -2);
  lua_pushstring(L, brain_file);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) return fail(L);
  lua_pushvalue(L, inst);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) return fail(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, inst, "brain");
  int brain = lua_gettop(L);
  lua_getfield(L, brain, "Start");
  lua_pushvalue(L, brain);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) return fail(L);

  lua_getfield(L, bt, "BrainManager");
  int manager = lua_gettop(L);
  lua_Integer thinks = 0;
  for (int tick = 1; tick <= (int)(seconds * 30); tick++) {
    sim_time = tick / 30.0;
    /* the world moves: hunger grows, a wolf passes by */
    lua_getfield(L, inst, "hunger");
    lua_pushnumber(L, lua_tonumber(L, -1) + 1.0 / 30);
    lua_setfield(L, inst, "hunger");
    lua_pop(L, 1);
    lua_pushboolean(L, sim_time >= 5 && sim_time < 6);
    lua_setfield(L, inst, "wolf_near");

    /* bt.BrainManager:Update(tick): thinks the brains that are due */
    lua_getfield(L, manager, "Update");
    lua_pushvalue(L, manager);
    lua_pushinteger(L, tick);
    lua_call(L, 2, 0);

    /* did our brain think? (bt.BrainManager:GetStats().thinks grew) */
    lua_getfield(L, manager, "GetStats");
    lua_pushvalue(L, manager);
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "thinks");
    lua_Integer now_thinks = lua_tointeger(L, -1);
    lua_pop(L, 2);
    if (now_thinks == thinks) continue;
    thinks = now_thinks;

    lua_getfield(L, brain, "GetSleepTime"); /* seconds, or nil: hibernating */
    lua_pushvalue(L, brain);
    lua_call(L, 1, 1);
    char sleep[32] = "an event: hibernating";
    if (!lua_isnil(L, -1)) snprintf(sleep, sizeof sleep, "%.2f s", lua_tonumber(L, -1));
    lua_getfield(L, inst, "x");
    printf("t=%5.2f  x=%4.1f  thinks again in %s\n", sim_time, lua_tonumber(L, -1), sleep);
    lua_settop(L, manager);
    lua_getfield(L, brain, "bt");
    const char *dump = luaL_tolstring(L, -1, NULL); /* tostring(brain.bt) */
    lua_getfield(L, LUA_REGISTRYINDEX, "hello.last_dump");
    if (!lua_rawequal(L, -1, -2)) printf("%s", dump); /* the dump, when it changed */
    lua_pop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hello.last_dump");
    lua_settop(L, manager);
  }
  lua_close(L);
  return 0;
}
