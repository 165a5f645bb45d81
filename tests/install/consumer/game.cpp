/* SPDX-License-Identifier: MIT */
// A C++ host: the same as game.c. bt.h and bt_lua.h come first, with the lua.h bt_lua.h includes
// (whose C names reach C++ only through bt_lua.h's extern "C"); lauxlib.h and lualib.h have no
// extern "C" of their own either.
#include <bt.h>
#include <bt_lua.h>
extern "C" {
#include <lauxlib.h>
#include <lualib.h>
}
#include <cstdio>
#include <string>

static const char brain[] =
  "local bt = require 'bt'\n"
  "local tree = bt.BT({}, bt.PriorityNode({bt.ActionNode(function() end, 'Act')}, 1, true))\n"
  "tree:Update()\n"
  "return bt._VERSION, tostring(tree)\n";

int main() {
  std::printf("BT_VERSION %s %d.%d.%d, bt_version() %s\n", BT_VERSION, BT_VERSION_MAJOR,
              BT_VERSION_MINOR, BT_VERSION_PATCH, bt_version());
  lua_State *L = bt_lua_newstate(0);
  if (L == nullptr) return 1;
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  if (luaL_loadstring(L, brain) != LUA_OK || lua_pcall(L, 0, 2, 0) != LUA_OK) {
    std::fprintf(stderr, "%s\n", lua_tostring(L, -1));
    bt_lua_close(L);
    return 1;
  }
  std::string version = lua_tostring(L, -2), dump = lua_tostring(L, -1);
  std::printf("%s\n%s\n", version.c_str(), dump.c_str());
  bt_lua_close(L);
  return 0;
}
