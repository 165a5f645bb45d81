/* SPDX-License-Identifier: MIT */
/* test_lua_reload.c: a C host reloading a brain through bt_lua.h: bt_lua_reload_enable,
 * bt_lua_reload, bt_lua_reload_watch and bt_lua_reload_poll. */
#include "sys.h" /* first: the temporary folder */

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"
#include "check.h"

static char dir[200];

static void write_brain(const char *cond) {
  char path[256];
  snprintf(path, sizeof path, "%s/hostbrain.lua", dir);
  FILE *f = fopen(path, "w");
  fprintf(f,
          "local bt = require 'bt'\n"
          "return bt.SharedBrain(function()\n"
          "  return bt.PriorityNode({\n"
          "    bt.IfNode(function(inst) return %s end, 'Check', bt.ActionNode(function(inst) inst.acted = true end, 'Act')),\n"
          "  }, 1, true)\n"
          "end)\n",
          cond);
  fclose(f);
  sys_sleep(0.02); /* let the modification time move on for the polling watcher */
}

static int run(lua_State *L, const char *code) {
  if (luaL_dostring(L, code) != LUA_OK) {
    fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

static int reports, last_ok;
static char last_file[512];
static void on_report(void *ud, const char *file, int ok, const char *message) {
  (void)ud;
  (void)message;
  reports++;
  last_ok = ok;
  snprintf(last_file, sizeof last_file, "%s", file);
}

int main(void) {
  CHECK(sys_temp_folder(dir, sizeof dir, "bt_reload_"));
  write_brain("false");
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  CHECK_INT(bt_lua_reload_enable(L), BT_OK);
  char setup[512]; /* the folder in long brackets: a Windows path's backslashes are no escapes */
  snprintf(setup, sizeof setup,
           "package.path = [==[%s/?.lua;]==] .. package.path\n"
           "t = 0\n"
           "require('bt').set_clock(function() return t end)\n"
           "function think(tick) t = tick * 2; bt.BrainManager:Update(tick) end\n"
           "inst = {}\n"
           "inst.brain = require('hostbrain')(inst)\n"
           "inst.brain:Start()\n"
           "bt = require 'bt'\n"
           "think(1)\n",
           dir);
  CHECK(run(L, setup));
  CHECK(run(L, "assert(inst.acted == nil)"));
  int top = lua_gettop(L);

  /* an edit applied at once */
  write_brain("true");
  char err[256] = "";
  CHECK_INT(bt_lua_reload(L, "hostbrain", err, sizeof err), BT_OK);
  CHECK(run(L, "think(2); assert(inst.acted == true)"));

  /* a broken edit: refused, with the file and line */
  write_brain("true )");
  CHECK_INT(bt_lua_reload(L, "hostbrain", err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "hostbrain.lua:4:") != NULL);
  CHECK(run(L, "inst.acted = nil; think(3); assert(inst.acted == true)"));
  CHECK_INT(lua_gettop(L), top);

  /* the watcher, polled once per frame */
  CHECK_INT(bt_lua_reload_watch(L, "poll"), BT_OK);
  CHECK_INT(bt_lua_reload_watch(L, "sometimes"), BT_EINVAL);
  CHECK_INT(bt_lua_reload_poll(L, on_report, NULL), 0);
  write_brain("inst.ready");
  CHECK_INT(bt_lua_reload_poll(L, on_report, NULL), 1);
  CHECK_INT(reports, 1);
  CHECK(last_ok);
  CHECK(strstr(last_file, "hostbrain.lua") != NULL);
  CHECK(run(L, "inst.acted = nil; think(4); assert(inst.acted == nil)"));
  CHECK(run(L, "inst.ready = true; think(5); assert(inst.acted == true)"));
  CHECK_INT(bt_lua_reload(L, "no_such_module", err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "not found") != NULL);
  CHECK_INT(lua_gettop(L), top);

  lua_close(L);
  char path[256];
  snprintf(path, sizeof path, "%s/hostbrain.lua", dir);
  remove(path);
  sys_rmdir(dir);
  return check_report("test_lua_reload");
}
