/* SPDX-License-Identifier: MIT */
/* test_lua_nomem.c: running out of memory in a state of bounded memory (bt_lua_newstate) where
 * bt holds C memory of its own: the text of a dump (tostring(tree), node:GetTreeString()) while it
 * becomes a Lua string, and the graph that BT(inst, root) compiles. The Lua error ("not enough
 * memory") reaches the script; nothing leaks. The limit is swept a few bytes at a time above what
 * is in use, so that some step fails at each allocation on the way. Before, the buffer or the
 * graph leaked (LeakSanitizer under BT_SANITIZE, tests/ci/valgrind.sh otherwise). */
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"
#include "check.h"

static const char *const SCRIPT =
    "local bt = require 'bt'\n"
    "local function tree_of(n)\n"
    "  local kids = {}\n"
    "  for i = 1, n do kids[i] = bt.ActionNode(function() end, 'Action number ' .. i) end\n"
    "  return bt.PriorityNode(kids, 1, true)\n"
    "end\n"
    "local tree = bt.BT({}, tree_of(60))\n"
    "tree:Update()\n"
    "local ops = {\n"
    "  dump = function() return tostring(tree) end,\n"
    "  tree_string = function() return tree.root:GetTreeString() end,\n"
    "  build = function() return bt.BT({}, tree_of(40)) end,\n"
    "}\n"
    "local failed = {}\n"
    "for name, op in pairs(ops) do\n"
    "  failed[name] = 0\n"
    "  for h = 0, 16000, 24 do\n"
    "    collectgarbage()\n" /* else the failed allocation's emergency collection finds room */
    "    local used = bt.memory()\n"
    "    bt.set_memory_limit(used + h)\n"
    "    local ok, err = pcall(op)\n"
    "    bt.set_memory_limit(0)\n"
    "    if not ok then\n"
    /* or luaL_checkstack's message, when the stack could not grow */
    "      assert(tostring(err):find('not enough memory', 1, true) or\n"
    "             tostring(err):find('stack overflow', 1, true), err)\n"
    "      failed[name] = failed[name] + 1\n"
    "    end\n"
    "  end\n"
    "end\n"
    "assert(tostring(tree):find('Action number 60', 1, true))\n"
    "return failed.dump, failed.tree_string, failed.build\n";

int main(void) {
  lua_State *L = bt_lua_newstate(0);
  CHECK(L != NULL);
  if (!L) return check_report("test_lua_nomem");
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  int rc = luaL_dostring(L, SCRIPT);
  if (rc != LUA_OK) fprintf(stderr, "script: %s\n", lua_tostring(L, -1));
  CHECK_INT(rc, LUA_OK);
  if (rc == LUA_OK) {
    /* each op met the limit at some steps, and succeeded past it */
    CHECK(lua_tointeger(L, -3) > 0);
    CHECK(lua_tointeger(L, -2) > 0);
    CHECK(lua_tointeger(L, -1) > 0);
  }
  bt_lua_close(L);
  return check_report("test_lua_nomem");
}
