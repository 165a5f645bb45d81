-- SPDX-License-Identifier: MIT
-- The rockspecs at the top of the source tree (docs/lua-api.md, "Installing with LuaRocks"):
-- exactly bt-<project version>-1.rockspec and bt-scm-1.rockspec, each file named after its own
-- package and version, the same build, and the variables that put bt's files where LuaRocks
-- deploys them. A release that changes project(bt VERSION ...) without renaming the rockspec
-- fails here.
-- usage: lua5.4 check_rockspecs.lua <source dir> <project version>
local src, version = assert(arg[1], "source dir"), assert(arg[2], "project version")
local failures = 0
local function check(ok, message)
  if not ok then
    failures = failures + 1
    io.stderr:write("check_rockspecs: ", message, "\n")
  end
end

local function load_rockspec(name)
  local env = {}
  local chunk, err = loadfile(src .. "/" .. name, "t", env)
  if not chunk then
    return nil, err
  end
  local ok, run_err = pcall(chunk)
  if not ok then
    return nil, run_err
  end
  return env
end

local found = {}
local list = io.popen('ls "' .. src .. '"')
for f in list:lines() do
  if f:match("%.rockspec$") then
    found[#found + 1] = f
  end
end
list:close()
table.sort(found)
local expected = {"bt-" .. version .. "-1.rockspec", "bt-scm-1.rockspec"}
table.sort(expected)
check(table.concat(found, " ") == table.concat(expected, " "),
  "expected the rockspecs " .. table.concat(expected, ", ") .. " at the top, found: " .. table.concat(found, ", "))

local builds = {}
for _, name in ipairs(expected) do
  local spec, err = load_rockspec(name)
  check(spec, name .. ": " .. tostring(err))
  if spec then
    check(spec.package .. "-" .. spec.version .. ".rockspec" == name,
      string.format("%s says package %s, version %s", name, tostring(spec.package), tostring(spec.version)))
    check(spec.version == version .. "-1" or spec.version == "scm-1", name .. ": version " .. tostring(spec.version))
    check(spec.description and spec.description.license == "MIT", name .. ": license is not MIT")
    check(spec.dependencies and spec.dependencies[1] == "lua >= 5.4, < 5.5",
      name .. ": needs the dependency lua >= 5.4, < 5.5")
    local b = spec.build or {}
    local v = b.variables or {}
    check(b.type == "cmake", name .. ": build.type is not cmake")
    check(v.BT_LUA_CMOD_DIR == "$(LIBDIR)", name .. ": BT_LUA_CMOD_DIR must be $(LIBDIR)")
    check(v.BT_LUA_LMOD_DIR == "$(LUADIR)", name .. ": BT_LUA_LMOD_DIR must be $(LUADIR)")
    check(v.CMAKE_INSTALL_PREFIX == "$(PREFIX)", name .. ": CMAKE_INSTALL_PREFIX must be $(PREFIX)")
    check(v.CMAKE_INSTALL_LIBDIR and not tostring(v.CMAKE_INSTALL_LIBDIR):match("^lib/?$"),
      name .. ": the C libraries must not go to the rock's lib/, which LuaRocks deploys as Lua modules")
    local keys = {}
    for k, val in pairs(v) do
      keys[#keys + 1] = k .. "=" .. tostring(val)
    end
    table.sort(keys)
    builds[#builds + 1] = table.concat(keys, " ")
  end
end
check(#builds == 2 and builds[1] == builds[2], "the two rockspecs build differently")
if failures > 0 then
  os.exit(1)
end
print("rockspecs: " .. table.concat(expected, " and ") .. " match project version " .. version)
