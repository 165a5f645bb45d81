-- SPDX-License-Identifier: MIT
-- Loading, install_globals, statuses and time (docs/lua-api.md: Loading, Statuses, Time).

local H = require "helpers"
local bt = H.bt

-- What install_globals must install (the Brain section is out of scope here).
local REQUIRED = {
  "SUCCESS", "FAILED", "READY", "RUNNING",
  "SequenceNode", "SelectorNode", "PriorityNode", "ParallelNode", "ParallelNodeAny", "LoopNode",
  "RandomNode", "ConditionNode", "MultiConditionNode", "ConditionWaitNode", "ActionNode", "WaitNode",
  "NotDecorator", "FailIfRunningDecorator", "FailIfSuccessDecorator", "EventNode", "LatchNode",
  "WhileNode", "IfNode", "IfThenDoWhileNode",
  "BT", "Class", "BehaviourNode", "DecoratorNode",
}
-- Names it may also install (the brain names, once they exist) and GetTime.
local ALLOWED = {}
for _, k in ipairs(REQUIRED) do ALLOWED[k] = true end
ALLOWED.Brain = true
ALLOWED.BrainWrangler = true
ALLOWED.BrainManager = true
ALLOWED.GetTime = true

describe("loading", function()
  after_each(H.restore)

  it("require 'bt' returns the module table and defines no globals", function()
    local out, err, ok = H.run_lua([[
      local before = {}
      for k in pairs(_G) do before[k] = true end
      local bt = require "bt"
      local added = {}
      for k in pairs(_G) do if not before[k] then added[#added + 1] = k end end
      table.sort(added)
      print("TYPE=" .. type(bt))
      print("ADDED=" .. table.concat(added, ","))
    ]])
    assert.is_truthy(ok, err)
    assert.equal("TYPE=table\nADDED=\n", out)
  end)

  it("the module table is the one require caches", function()
    assert.equal(bt, require "bt")
    assert.equal(bt, package.loaded.bt)
  end)
end)

describe("statuses", function()
  it("are their own names", function()
    assert.equal("SUCCESS", bt.SUCCESS)
    assert.equal("FAILED", bt.FAILED)
    assert.equal("READY", bt.READY)
    assert.equal("RUNNING", bt.RUNNING)
  end)
end)

describe("install_globals(env)", function()
  after_each(H.restore)

  it("installs every listed name that exists, the same values as bt's, and nothing else", function()
    local env = {}
    bt.install_globals(env)
    for _, k in ipairs(REQUIRED) do
      assert.is_not_nil(rawget(env, k), "missing " .. k)
      assert.is_true(rawequal(rawget(env, k), bt[k]), "not bt's " .. k)
    end
    for k in pairs(env) do
      assert.is_true(ALLOWED[k] == true, "unexpected global " .. tostring(k))
    end
  end)

  it("installs the brain names only as bt's own values", function()
    local env = {}
    bt.install_globals(env)
    for _, k in ipairs({ "Brain", "BrainWrangler", "BrainManager" }) do
      if rawget(env, k) ~= nil then
        assert.is_true(rawequal(rawget(env, k), bt[k]), k)
      end
    end
  end)

  it("installs GetTime when env has none; it reads the clock", function()
    local c = H.clock(12.5)
    local env = {}
    bt.install_globals(env)
    assert.is_function(env.GetTime)
    assert.equal(12.5, env.GetTime())
    c.t = 13.25
    assert.equal(13.25, env.GetTime())
  end)

  it("keeps the env's own GetTime", function()
    local mine = function() return 42 end
    local env = { GetTime = mine }
    bt.install_globals(env)
    assert.equal(mine, env.GetTime)
  end)

  it("leaves the env's unrelated names alone", function()
    local env = { foo = 1, SUCCESS_X = 2 }
    bt.install_globals(env)
    assert.equal(1, env.foo)
    assert.equal(2, env.SUCCESS_X)
  end)

  it("defaults to _G", function()
    local out, err, ok = H.run_lua([[
      local before = {}
      for k in pairs(_G) do before[k] = true end
      local bt = require "bt"
      bt.install_globals()
      local added = {}
      for k in pairs(_G) do if not before[k] then added[#added + 1] = k end end
      table.sort(added)
      print(table.concat(added, ","))
      print(rawequal(PriorityNode, bt.PriorityNode), rawequal(BT, bt.BT), SUCCESS, type(GetTime))
    ]])
    assert.is_truthy(ok, err)
    local list, check = out:match("^([^\n]*)\n([^\n]*)\n$")
    assert.is_not_nil(list, out)
    assert.equal("true\ttrue\tSUCCESS\tfunction", check)
    local got = {}
    for name in list:gmatch("[^,]+") do
      got[name] = true
      assert.is_true(ALLOWED[name] == true, "unexpected global " .. name)
    end
    for _, k in ipairs(REQUIRED) do
      assert.is_true(got[k] == true, "missing " .. k)
    end
    assert.is_true(got.GetTime == true, "GetTime not installed")
  end)

  it("does not replace a GetTime already in _G", function()
    local out, err, ok = H.run_lua([[
      function GetTime() return 77 end
      local mine = GetTime
      local bt = require "bt"
      bt.install_globals()
      print(rawequal(GetTime, mine), GetTime())
    ]])
    assert.is_truthy(ok, err)
    assert.equal("true\t77\n", out)
  end)

  it("lets Don't Starve style tree code run unchanged in that env", function()
    local c = H.clock(100)
    local env = setmetatable({}, { __index = _G })
    bt.install_globals(env)
    local inst = { name = "pig" }
    env.inst = inst
    local chunk = assert(load([[
      local seen = {}
      local Idle = Class(BehaviourNode, function(self, inst)
        BehaviourNode._ctor(self, "Idle")
        self.inst = inst
      end)
      function Idle:Visit()
        if self.status == READY then
          self.status = RUNNING
        end
        if self.status == RUNNING then
          seen[#seen + 1] = GetTime()
          self:Sleep(2)
        end
      end
      local root = PriorityNode({
        WhileNode(function() return inst.hungry end, "IsHungry",
          ActionNode(function() seen[#seen + 1] = "eat" end, "Eat")),
        Idle(inst),
      }, .25)
      return BT(inst, root), seen
    ]], "brain", "t", env))
    local tree, seen = chunk()
    tree:Update()
    assert.same({ 100 }, seen)
    assert.equal(bt.RUNNING, tree:snapshot()[1].status)
    -- min(the Priority's next evaluation 100 + .25 - 100, Idle's Sleep(2))
    assert.equal(0.25, tree:GetSleepTime())
    assert.is_true(c.t == 100)
  end)
end)

describe("time", function()
  after_each(H.restore)

  it("bt.GetTime returns what the clock function returns, read each time", function()
    local calls = 0
    local t = 0.1
    bt.set_clock(function() calls = calls + 1; return t end)
    assert.equal(0.1, bt.GetTime())
    t = 7.75
    assert.equal(7.75, bt.GetTime())
    assert.equal(2, calls)
  end)

  it("set_clock(nil) restores seconds since the module was loaded, from a monotonic clock", function()
    bt.set_clock(function() return 123456 end)
    assert.equal(123456, bt.GetTime())
    bt.set_clock(nil)
    local t1 = bt.GetTime()
    assert.is_number(t1)
    assert.is_true(t1 >= 0)
    assert.is_true(t1 < 3600)
    local start = os.clock()
    while os.clock() - start < 0.02 do end
    local t2 = bt.GetTime()
    assert.is_true(t2 > t1)
  end)

  it("nodes read the clock whenever they need the time, even in the middle of a think", function()
    local c = H.clock(0)
    local wait = bt.WaitNode(2)
    local root = bt.SequenceNode {
      bt.ActionNode(function() c.t = 5 end, "Advance"),
      wait,
    }
    local tree = bt.BT({}, root)
    tree:Update()
    -- The WaitNode entered at t = 5, so it wakes at 7.
    assert.equal(bt.RUNNING, wait.status)
    c.t = 6.5
    tree:Update()
    assert.equal(bt.RUNNING, wait.status)
    c.t = 7
    tree:Update()
    assert.equal(bt.READY, wait.status)
    assert.equal(bt.SUCCESS, wait.lastresult)
  end)
end)
