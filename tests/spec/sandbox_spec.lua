-- SPDX-License-Identifier: MIT
-- The sandbox of brain and behaviour files (docs/sandbox.md): bt.sandbox.install, loadfile,
-- dofile, env, allow; binary chunks refused; coroutines bounded by the instruction limit.
local bt = require "bt"
local H = require "helpers"

local root = os.tmpname()
os.remove(root)
assert(os.execute("mkdir -p " .. root .. "/brains " .. root .. "/behaviours " .. root .. "/other"))
package.path = root .. "/?.lua;" .. package.path
bt.sandbox.install()

local counter = 0
local function write(dir, text)
  counter = counter + 1
  local name = "f" .. counter
  local f = assert(io.open(string.format("%s/%s/%s.lua", root, dir, name), "w"))
  f:write(text)
  f:close()
  return dir .. "." .. name, string.format("%s/%s/%s.lua", root, dir, name)
end

local function load_error(dir, text)
  local name = write(dir, text)
  local ok, err = pcall(require, name)
  assert.is_false(ok, "expected " .. name .. " to fail to load")
  return tostring(err)
end

local function contains(s, part)
  return s:find(part, 1, true) ~= nil
end

describe("brain and behaviour files in the sandbox", function()
  it("fail to load when they use a name the host did not allow, with a message naming it", function()
    local uses = {
      io = "local f = io.open('/etc/passwd')",
      debug = "local info = debug.getinfo(1)",
      ["os.execute"] = "os.execute('true')",
      ["os.exit"] = "os.exit(1)",
      ["os.remove"] = "os.remove('/tmp/nothing-here')",
      ["os.rename"] = "os.rename('/tmp/a', '/tmp/b')",
      ["package.loadlib"] = "local f = package.loadlib('libc.so.6', 'puts')",
      ["package.loaded"] = "local g = package.loaded._G",
      ['require "io"'] = "local io2 = require 'io'",
      ['collectgarbage("stop")'] = "collectgarbage('stop')",
    }
    for name, code in pairs(uses) do
      for _, dir in ipairs { "brains", "behaviours" } do
        local err = load_error(dir, code .. "\nreturn true\n")
        assert.is_true(contains(err, name .. " is not available to brain and behaviour files"), err)
        assert.is_true(contains(err, "bt.sandbox.allow"), err)
      end
    end
  end)

  it("name the forbidden use when a function uses it later, at the call", function()
    local name = write("brains", "return function() return io.read() end\n")
    local f = require(name)
    local ok, err = pcall(f)
    assert.is_false(ok)
    assert.is_true(contains(err, "io is not available"), err)
    assert.is_true(contains(err, name:gsub("%.", "/") .. ".lua:1:"), err)
  end)

  it("refuse binary chunks, from require, loadfile and load", function()
    local _, path = write("brains", "return 1\n")
    local f = assert(io.open(path, "wb"))
    f:write(string.dump(function() return 42 end))
    f:close()
    local name = path:match("(brains/f%d+)%.lua$"):gsub("/", ".")
    local ok, err = pcall(require, name)
    assert.is_false(ok)
    assert.is_true(contains(err, "binary chunk"), err)
    local chunk, msg = bt.sandbox.loadfile(path)
    assert.is_nil(chunk)
    assert.is_true(contains(msg, "binary chunk"), msg)
    local code = write("behaviours", string.format(
      "local f, e = load(%q) assert(f == nil) return e\n", string.dump(function() end)))
    assert.is_true(contains(require(code), "binary chunk"))
    local code2, path2 = write("behaviours", "return load('return 5', 'x', 'b')\n")
    local ok2, err2 = pcall(require, code2)
    assert.is_false(ok2)
    assert.is_true(contains(err2, path2 .. ":1: binary chunks are not available"), err2)
    assert.is_true(contains(err2, 'bt.sandbox.allow("binary")'), err2)
  end)

  it("see the host's globals and the safe parts of os, and share their own globals", function()
    _G.HOST_TUNING = 7
    local behaviour = write("behaviours", [[
SandboxedWalk = bt and "no" or "walk"
return {tuning = HOST_TUNING, clock = type(os.clock()), time = type(os.time()), bt = require("bt") ~= nil}
]])
    local b = require(behaviour)
    assert.same({tuning = 7, clock = "number", time = "number", bt = true}, b)
    local brain = write("brains", "return SandboxedWalk\n")
    assert.equal("walk", require(brain))
    assert.is_nil(rawget(_G, "SandboxedWalk"))
    assert.equal("walk", rawget(bt.sandbox.env(), "SandboxedWalk"))
    _G.HOST_TUNING = nil
  end)

  it("leave other modules alone", function()
    local name = write("other", "return io ~= nil and os.execute ~= nil\n")
    assert.is_true(require(name))
  end)

  it("load through bt.sandbox.loadfile and dofile, with errors naming the file", function()
    local _, path = write("other", "return os.getenv ~= nil, io\n")
    local chunk = assert(bt.sandbox.loadfile(path))
    local ok, err = pcall(chunk)
    assert.is_false(ok)
    assert.is_true(contains(err, "io is not available"), err)
    local _, good = write("other", "return 1 + 1\n")
    assert.equal(2, bt.sandbox.dofile(good))
    local ok2, err2 = pcall(bt.sandbox.dofile, root .. "/missing.lua")
    assert.is_false(ok2)
    assert.is_true(contains(err2, "missing.lua"), err2)
    local ok3, err3 = pcall(bt.sandbox.loadfile, 42)
    assert.is_false(ok3)
    assert.is_true(contains(err3, "bad argument #1 to 'loadfile' (string expected, got number)"), err3)
  end)

  it("are bounded by the instruction limit in coroutines they resume", function()
    local errs = H.errors()
    local name = write("behaviours", [[
local spinner = coroutine.create(function() while true do end end)
return function() coroutine.resume(spinner) end
]])
    local spin = require(name)
    bt.set_instruction_limit(100000)
    local tree = bt.BT({}, bt.ActionNode(spin, "Spin"))
    tree:Update()
    bt.set_instruction_limit(0)
    assert.equal(1, #errs)
    assert.is_true(contains(errs[1], "instruction limit exceeded"), errs[1])
    H.restore()
  end)

  it("build with bt's own behaviours, whose argument errors name the brain's line", function()
    local name, path = write("brains", [[
local RunAway = require "behaviours.runaway"
return function()
  return RunAway(nil, {"predator"}, 5, 9)
end
]])
    local build = require(name)
    local ok, err = pcall(build)
    assert.is_false(ok)
    assert.is_true(contains(err, path:match("[^/]+/[^/]+$") .. ":3: bad argument #2 to 'RunAway'"), err)
  end)

  it("refuse an unknown option or prefix", function()
    local ok, err = pcall(bt.sandbox.allow, "io", "sockets")
    assert.is_false(ok)
    assert.is_true(contains(err, "bad argument #2 to 'allow'"), err)
    assert.is_true(contains(err, "got sockets"), err)
    local ok2, err2 = pcall(bt.sandbox.install, "brains")
    assert.is_false(ok2)
    assert.is_true(contains(err2, "bad argument #1 to 'install'"), err2)
  end)

  -- last: what the host allows stays allowed
  it("get what a host that opts in allows", function()
    bt.sandbox.allow("io", "os.execute", "debug", "package.loadlib", "binary")
    local name = write("brains", [[
return {io = io.write ~= nil, execute = os.execute ~= nil, debug = debug.traceback ~= nil,
        loadlib = package.loadlib ~= nil, binary = load(string.dump(function() return 3 end))()}
]])
    assert.same({io = true, execute = true, debug = true, loadlib = true, binary = 3}, require(name))
  end)
end)
