-- SPDX-License-Identifier: MIT
-- The names the shipped behaviours and brains load under (docs/lua-api.md, "Module names"): a
-- game's folders with Don't Starve's require "behaviours/wander", and the source tree's
-- behaviours.wander; each file requires its siblings under the prefix of its own name.
-- (Installed under bt.: tests/install/check_luarocks.sh.)
local bt = require "bt"

describe("the shipped files' requires", function()
  local saved

  before_each(function()
    saved = {}
    for name in pairs(package.loaded) do
      saved[name] = true
    end
  end)

  after_each(function()
    for name in pairs(package.loaded) do
      if not saved[name] then
        package.loaded[name] = nil
      end
    end
  end)

  it("load Don't Starve's require \"behaviours/wander\", with util beside it", function()
    package.loaded["behaviours.util"] = nil
    local Wander = require "behaviours/wander"
    assert.equal(bt.BehaviourNode, Wander._base)
    assert.truthy(package.loaded["behaviours.util"])
  end)

  it("load a brain required as brains/wolf with its behaviours as behaviours.*", function()
    package.loaded["behaviours.wander"] = nil
    local Wolf = require "brains/wolf"
    assert.equal(bt.Brain, Wolf._base)
    assert.truthy(package.loaded["behaviours.wander"])
    assert.is_nil(package.loaded["bt.behaviours.wander"])
  end)

  it("load a brain under another prefix with the behaviours under that prefix", function()
    -- a game that keeps bt's files in a folder of its own, say mods/bt/behaviours/*.lua
    local root = os.tmpname()
    os.remove(root)
    assert(os.execute("mkdir -p " .. root .. "/mods/brains " .. root .. "/mods/behaviours"))
    for _, f in ipairs({"brains/wolf", "behaviours/chaseandattack", "behaviours/doaction",
                        "behaviours/leash", "behaviours/standstill", "behaviours/wander",
                        "behaviours/util"}) do
      local src = assert(io.open(f .. ".lua")):read("a")
      local out = assert(io.open(root .. "/mods/" .. f .. ".lua", "w"))
      out:write(src)
      out:close()
    end
    local path = package.path
    package.path = root .. "/?.lua;" .. path
    local ok, Wolf = pcall(require, "mods.brains.wolf")
    package.path = path
    os.execute("rm -rf " .. root)
    assert.is_true(ok, Wolf)
    assert.equal(bt.Brain, Wolf._base)
    assert.truthy(package.loaded["mods.behaviours.wander"])
    assert.truthy(package.loaded["mods.behaviours.util"])
  end)
end)
