/*
 * hello.c: the smallest host. It embeds Lua, opens bt, builds a brain from a brain file for one
 * entity, and thinks it on a simulated clock, printing the tree dump after every think.
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

int main(int argc, char **argv) {
  const char *brain_file = argc > 1 ? argv[1] : "brains/sheep.lua";
  double seconds = argc > 2 ? atof(argv[2]) : 8;

  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0); /* package.loaded.bt = the module */
  lua_getfield(L, -1, "set_clock");      /* bt.set_clock(game_clock) */
  lua_pushcfunction(L, game_clock);
  lua_call(L, 1, 0);

  /* the entity: a table the host updates and the brain reads */
  lua_newtable(L);
  lua_pushnumber(L, 0);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, 0);
  lua_setfield(L, -2, "hunger");
  int inst = lua_gettop(L);

  /* tree = bt.BT(inst, dofile(brain_file)(inst)) */
  lua_getfield(L, inst - 1, "BT");
  lua_pushvalue(L, inst);
  if (luaL_dofile(L, brain_file) != LUA_OK) {
    fprintf(stderr, "bt-hello: %s\n", lua_tostring(L, -1));
    return 1;
  }
  lua_pushvalue(L, inst);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_pcall(L, 2, 1, 0) != LUA_OK) {
    fprintf(stderr, "bt-hello: %s\n", lua_tostring(L, -1));
    return 1;
  }
  int tree = lua_gettop(L);

  /* the game loop: 30 ticks a second; the brain thinks when its sleep time is up */
  double wake = 0;
  for (int tick = 0; tick <= (int)(seconds * 30); tick++) {
    sim_time = tick / 30.0;
    lua_getfield(L, inst, "hunger"); /* the world: hunger grows, a wolf passes by */
    lua_pushnumber(L, lua_tonumber(L, -1) + 1.0 / 30);
    lua_setfield(L, inst, "hunger");
    lua_pop(L, 1);
    lua_pushboolean(L, sim_time >= 5 && sim_time < 6);
    lua_setfield(L, inst, "wolf_near");
    if (sim_time < wake) continue;

    lua_getfield(L, tree, "Update"); /* tree:Update() */
    lua_pushvalue(L, tree);
    lua_call(L, 1, 0);
    lua_getfield(L, tree, "GetSleepTime"); /* tree:GetSleepTime(): seconds, or nil */
    lua_pushvalue(L, tree);
    lua_call(L, 1, 1);
    double sleep = lua_isnil(L, -1) ? 1e9 : lua_tonumber(L, -1);
    lua_pop(L, 1);
    wake = sim_time + (sleep > 1.0 / 30 ? sleep : 1.0 / 30);

    lua_getfield(L, inst, "x");
    printf("t=%5.2f  x=%4.1f  thinks again in %.2f s\n", sim_time, lua_tonumber(L, -1), sleep);
    const char *dump = luaL_tolstring(L, tree, NULL); /* tostring(tree) */
    lua_getfield(L, LUA_REGISTRYINDEX, "hello.last_dump");
    if (!lua_rawequal(L, -1, -2)) printf("%s", dump);  /* the dump, when it changed */
    lua_pop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hello.last_dump");
    lua_pop(L, 1);
  }
  lua_close(L);
  return 0;
}
