/* SPDX-License-Identifier: MIT */
/* A C host: prints the versions (headers, library, Lua module) and a brain's first think. */
#include <bt.h>
#include <bt_lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

static const char brain[] =
  "local bt = require 'bt'\n"
  "local tree = bt.BT({}, bt.PriorityNode({bt.ActionNode(function() end, 'Act')}, 1, true))\n"
  "tree:Update()\n"
  "return bt._VERSION, tostring(tree)\n";

int main(void) {
  printf("BT_VERSION %s %d.%d.%d, bt_version() %s\n", BT_VERSION, BT_VERSION_MAJOR, BT_VERSION_MINOR,
         BT_VERSION_PATCH, bt_version());
  lua_State *L = bt_lua_newstate(0);
  if (!L) return 1;
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  if (luaL_loadstring(L, brain) != LUA_OK || lua_pcall(L, 0, 2, 0) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    bt_lua_close(L);
    return 1;
  }
  printf("%s\n%s\n", lua_tostring(L, -2), lua_tostring(L, -1));
  bt_lua_close(L);
  return 0;
}
