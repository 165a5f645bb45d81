-- SPDX-License-Identifier: MIT
-- The LuaRocks package of bt: `luarocks make bt-scm-1.rockspec` in a checkout (docs/lua-api.md,
-- "Installing with LuaRocks"). CMake builds it; the variables below put bt.so in the rock's
-- $(LIBDIR) and the Lua modules bt.behaviours.*, bt.brains.* and bt.test in its $(LUADIR)
-- (cmake/lua_install.cmake), which LuaRocks then deploys to the tree's lib/lua/5.4 and
-- share/lua/5.4. The C libraries, headers and the LuaLS annotations stay in the rock's own folder
-- (`luarocks show --rock-dir bt`).
rockspec_format = "3.0"
package = "bt"
version = "scm-1"
source = {
  -- the development version: luarocks make builds the checkout it is run in, whatever this says
  url = "git+https://example.invalid/bt.git",
  branch = "main",
}
description = {
  summary = "Behaviour trees with Don't Starve semantics: a C core and a Lua 5.4 module",
  detailed = [[
bt runs behaviour trees for game AI with the semantics of Don't Starve Together's
behaviourtree.lua and brain.lua; the trees run in C. The module bt has Don't Starve's node classes, Brain and BrainWrangler, shared
definitions, subtrees, saved games, hot reload and a sandbox; the shipped behaviours load as
bt.behaviours.<name> (bt.behaviours.wander, ...), and bt.test is a scripted world for the specs
of brains and behaviours. Lua 5.4 only.
]],
  license = "MIT",
  labels = {"gamedev", "ai", "behaviour-tree"},
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    -- the C libraries and pkg-config files: in the rock's folder, not in $(LIBDIR), whose files
    -- LuaRocks deploys as Lua C modules
    CMAKE_INSTALL_LIBDIR = "c/lib",
    CMAKE_INSTALL_BINDIR = "$(BINDIR)",
    BT_LUA_CMOD_DIR = "$(LIBDIR)",
    BT_LUA_LMOD_DIR = "$(LUADIR)",
    BT_LUALS_DIR = "$(PREFIX)/lua-language-server",
    LUA_INCLUDE_DIR = "$(LUA_INCDIR)",
    -- the module alone: bt's tests, benchmarks and example programs are not part of the rock
    BT_BUILD_TESTS = "OFF",
    BT_BUILD_BENCH = "OFF",
    BT_BUILD_EXAMPLES = "OFF",
  },
}
