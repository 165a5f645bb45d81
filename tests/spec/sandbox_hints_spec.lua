-- SPDX-License-Identifier: MIT
-- The hints of the sandbox's refusals (docs/sandbox.md): each message names the script's file and
-- line and ends with a call of bt.sandbox.allow; that call, made by the host, works, and then the
-- same script runs. In a file of its own: the calls allow for the rest of the process.
local H = require "helpers"
if not H.own_process("tests/spec/sandbox_hints_spec.lua", describe, it) then
  return
end
local bt = require "bt"

local root = os.tmpname()
os.remove(root)
assert(os.execute("mkdir -p " .. root .. "/brains " .. root .. "/plain"))
package.path = root .. "/?.lua;" .. package.path
bt.sandbox.install({"brains"})
bt.reload.enable()

local counter = 0
local function write(dir, text, name)
  counter = counter + 1
  name = name or "h" .. counter
  local path = string.format("%s/%s/%s.lua", root, dir, name)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return dir .. "." .. name, path
end

-- a module outside the sandbox's prefixes, not loaded yet: require of it is refused
write("plain", "return 'plain module'\n", "mod")

local cases = {
  {"io", "return io.write ~= nil"},
  {"debug", "return debug.traceback ~= nil"},
  {"os.execute", "return os.execute ~= nil"},
  {"os.tmpname", "return type(os.tmpname)"},
  {"package.loadlib", "return package.loadlib ~= nil"},
  {"package.loaded", "return package.loaded ~= nil"},
  {"binary", "return load(string.dump(function() return 5 end), 'x', 'b')()"},
  {"require", "return require('plain.mod')"},
  {"collectgarbage", "return collectgarbage('incremental') ~= nil"},
}

describe("a refusal of the sandbox", function()
  for _, case in ipairs(cases) do
    local option, code = case[1], case[2]
    it("of " .. option .. " names the line and a call of allow that works", function()
      local name, path = write("brains", "local x = 1\n" .. code .. "\n")
      local ok, err = pcall(require, name)
      assert.is_false(ok)
      assert.truthy(err:find(path .. ":2: ", 1, true), err)
      local hint = err:match("(bt%.sandbox%.allow%b())")
      assert.equal(string.format("bt.sandbox.allow(%q)", option), hint, err)
      assert(load(hint, "hint", "t", {bt = bt}))()
      local again = write("brains", "local x = 1\n" .. code .. "\n")
      assert.truthy(require(again))
    end)
  end

  it("in a reloaded file names that file's line, not hot reload's", function()
    local name, path = write("brains", "return {n = 1}\n")
    assert.same({n = 1}, require(name))
    local f = assert(io.open(path, "w"))
    f:write("local n = 2\nreturn {n = n, exec = os.exit}\n")
    f:close()
    local ok, err = bt.reload.module(name)
    assert.is_nil(ok)
    local first = err:match("^[^\n]*")
    assert.truthy(first:find(path .. ":2: os.exit is not available", 1, true), err)
    assert.falsy(first:find("bt/reload.lua", 1, true), err)
  end)
end)
