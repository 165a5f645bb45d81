# SPDX-License-Identifier: MIT
# Where the Lua side of bt is installed, as Lua's own layout and LuaRocks want it:
#   bt.so                          BT_LUA_CMOD_DIR   (package.cpath: <libdir>/lua/5.4/?.so)
#   bt/view.so, bt/testkit.so      BT_LUA_CMOD_DIR   (the C modules bt.view and bt.testkit, the
#                                  C half of bt.test; the top-level CMakeLists.txt installs them)
#   bt/behaviours/*.lua, bt/brains/*.lua, bt/test.lua
#                                  BT_LUA_LMOD_DIR   (package.path: <datadir>/lua/5.4/?.lua), so
#                                  that require "bt.behaviours.wander" finds the shipped behaviours
#                                  and require "bt.test" the test helper (docs/bt-test.md)
#   library/bt.lua, library/bt_test.lua, config.json
#                                  BT_LUALS_DIR      (a lua-language-server addon: the ---@meta
#                                  annotations of the module and of bt.test, docs/lua-api.md)
# Each is relative to the install prefix, or absolute (the rockspecs give LuaRocks' $(LIBDIR),
# $(LUADIR) and a folder of the rock). Included once by the top-level CMakeLists.txt.
include(GNUInstallDirs)
set(BT_LUA_CMOD_DIR "${CMAKE_INSTALL_LIBDIR}/lua/5.4" CACHE STRING
    "Where bt.so is installed: Lua's C module directory (relative to the prefix, or absolute)")
set(BT_LUA_LMOD_DIR "${CMAKE_INSTALL_DATADIR}/lua/5.4" CACHE STRING
    "Where the Lua modules bt.behaviours.*, bt.brains.* and bt.test are installed: Lua's module directory")
set(BT_LUALS_DIR "${CMAKE_INSTALL_DATADIR}/lua-language-server/bt" CACHE STRING
    "Where the lua-language-server addon of bt (library/bt.lua, library/bt_test.lua, config.json) is installed")

install(TARGETS bt_module LIBRARY DESTINATION ${BT_LUA_CMOD_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/behaviours/ DESTINATION ${BT_LUA_LMOD_DIR}/bt/behaviours
        FILES_MATCHING PATTERN "*.lua")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/brains/ DESTINATION ${BT_LUA_LMOD_DIR}/bt/brains
        FILES_MATCHING PATTERN "*.lua")
# bt.test: an optional submodule, a file of its own (never bt.lua or bt/init.lua, which would
# shadow bt.so)
install(FILES ${PROJECT_SOURCE_DIR}/lua/bt/test.lua DESTINATION ${BT_LUA_LMOD_DIR}/bt)
install(FILES ${PROJECT_SOURCE_DIR}/lua/meta/bt.lua ${PROJECT_SOURCE_DIR}/lua/meta/bt_test.lua
        DESTINATION ${BT_LUALS_DIR}/library)
install(FILES ${PROJECT_SOURCE_DIR}/lua/meta/config.json DESTINATION ${BT_LUALS_DIR})
