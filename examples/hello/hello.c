/* SPDX-License-Identifier: MIT */
/*
 * hello.c: the smallest host. It embeds Lua, opens bt, starts a brain for one entity, and runs
 * the game loop: 30 ticks a simulated second, the world moves, then the brain manager thinks the
 * brains that are due. After each think it prints a line and, when it changed, the tree dump.
 *
 *   bt-hello [brain.lua [seconds]]
 *
 * Without a brain file it runs its own: brain.lua beside the executable in the build tree, or
 * share/bt/hello/brain.lua of the installation, found from the executable's own folder (argv[0],
 * or the folder of PATH it was found in: standard C has no call for it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"

/* the installed brain, relative to the directory of the installed executable (CMake sets it from
 * CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_DATADIR; no absolute path is compiled in) */
#ifndef BT_HELLO_DATA
#define BT_HELLO_DATA "../share/bt/hello"
#endif

static const char USAGE[] =
    "usage: bt-hello [brain.lua [seconds]]\n"
    "\n"
    "The smallest bt host: one entity, a sheep that grazes, eats when hungry and runs from a\n"
    "passing wolf, driven by a brain file. It prints a line per think and the tree dump when\n"
    "it changed.\n"
    "\n"
    "  brain.lua     the brain file (default: the brain installed with bt-hello, in\n"
    "                share/bt/hello/brain.lua)\n"
    "  seconds       simulated seconds to run (default 8)\n"
    "  --help        this text\n"
    "  --version     bt-hello's version\n";

#define PATH_SIZE 4096

/* 1 when the file at path can be read. */
static int readable(const char *path) {
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* The folder of this executable, from argv[0] (standard C has no call that says): the folder it
 * names, or, for a bare name, the folder of PATH it is found in. 0, or -1 when none is. */
static int exe_folder(const char *argv0, char *dir, size_t size) {
  const char *slash = strrchr(argv0, '/');
  if (slash) {
    if ((size_t)(slash - argv0) >= size) return -1;
    memcpy(dir, argv0, (size_t)(slash - argv0));
    dir[slash - argv0] = 0;
    return 0;
  }
  const char *paths = getenv("PATH");
  for (const char *p = paths; p && *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char exe[PATH_SIZE];
    if (n > 0 && n < size && snprintf(exe, sizeof exe, "%.*s/%s", (int)n, p, argv0) < (int)sizeof exe &&
        readable(exe)) {
      memcpy(dir, p, n);
      dir[n] = 0;
      return 0;
    }
    p = end ? end + 1 : p + n;
  }
  return -1;
}

/* path = the folder of this executable + "/" + rel; 0 when that file can be read */
static int beside_exe(const char *argv0, char *path, size_t size, const char *rel) {
  char dir[PATH_SIZE];
  if (exe_folder(argv0, dir, sizeof dir) != 0) return -1;
  if (snprintf(path, size, "%s/%s", dir, rel) >= (int)size) return -1;
  return readable(path) ? 0 : -1;
}

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
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(USAGE, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--version") == 0) {
      printf("bt-hello (bt) %s\n", BT_VERSION);
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "bt-hello: unknown flag '%s'\n(bt-hello --help lists the arguments)\n", argv[i]);
      return 2;
    }
  }
  if (argc > 3) {
    fprintf(stderr, "bt-hello: unexpected argument '%s'\n(bt-hello --help lists the arguments)\n", argv[3]);
    return 2;
  }
  double seconds = 8;
  if (argc > 2) {
    char *end;
    seconds = strtod(argv[2], &end);
    if (!*argv[2] || *end || !(seconds > 0) || seconds > 1e6) {
      fprintf(stderr, "bt-hello: seconds must be a number above 0, got '%s'\n", argv[2]);
      return 2;
    }
  }
  const char *brain_file = argc > 1 ? argv[1] : NULL;
  char found[PATH_SIZE + 64];
  if (!brain_file) { /* the build tree's copy beside the executable, else the installed one */
    if (beside_exe(argv[0], found, sizeof found, "brain.lua") == 0 ||
        beside_exe(argv[0], found, sizeof found, BT_HELLO_DATA "/brain.lua") == 0) {
      brain_file = found;
    } else {
      fprintf(stderr, "bt-hello: no brain.lua beside the executable nor in %s/ beside it; "
                      "name one: bt-hello brain.lua\n", BT_HELLO_DATA);
      return 1;
    }
  }

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
