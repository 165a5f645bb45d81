-- SPDX-License-Identifier: MIT
-- bt.set_clock with a number: the time stands still until set again.
local bt = require "bt"

describe("bt.set_clock(number)", function()
  after_each(function() bt.set_clock(nil) end)

  it("stops the time at that number, for GetTime and for every node", function()
    bt.set_clock(5)
    assert.equal(5, bt.GetTime())
    local tree = bt.BT({}, bt.SequenceNode{bt.WaitNode(2)})
    tree:Update()
    assert.equal(7, tree.root.children[1].wake_time)
    assert.equal(2, tree:GetSleepTime())
    bt.set_clock(6.5)
    assert.equal(0.5, tree:GetSleepTime())
    bt.set_clock(7)
    tree:Update()
    assert.equal("SUCCESS", tree.root.lastresult)
  end)

  it("gives way to a function or to the default clock", function()
    bt.set_clock(100)
    local t = 3
    bt.set_clock(function() return t end)
    assert.equal(3, bt.GetTime())
    bt.set_clock(nil)
    assert.is_true(bt.GetTime() < 100)
    assert.has_error(function() bt.set_clock("soon") end,
      "bad argument #1 to 'set_clock' (function, number or nil expected, got string)")
  end)
end)

describe("the clock function within a think", function()
  local now, calls
  before_each(function()
    now, calls = 10, 0
    bt.set_clock(function() calls = calls + 1; return now end)
  end)
  after_each(function() bt.set_clock(nil) end)

  it("is called once for reads with no Lua code run between them", function()
    -- Don't Starve reads GetTime() three times here: the Priority's Visit, the WaitNode's Visit,
    -- the Priority's Sleep
    local tree = bt.BT({}, bt.PriorityNode({bt.WaitNode(2)}, 0.25))
    tree:Update()
    assert.equal(1, calls)
    assert.equal(10, tree.root.lasttime)
    assert.equal(12, tree.root.children[1].wake_time)
    assert.equal(0.25, tree:GetSleepTime())
    now = 10.1
    calls = 0
    tree:Update()
    assert.equal(1, calls)
    assert.near(0.15, tree:GetSleepTime(), 1e-12)
  end)

  it("is called again once Lua code has run, which may have moved the time", function()
    local tree = bt.BT({}, bt.PriorityNode({
      bt.SequenceNode{bt.ActionNode(function() now = now + 1 end), bt.WaitNode(2)},
    }, 0.25))
    tree:Update()
    assert.equal(10, tree.root.lasttime)
    assert.equal(13, tree.root.children[1].children[2].wake_time)
    assert.equal(0, tree:GetSleepTime()) -- the Priority slept from 11: its period is over at 10.25
  end)

  it("is called for every read made from inside Lua code, as a node written in Lua", function()
    local Mover = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Mover") end)
    function Mover:Visit()
      now = now + 5
      self:Sleep(1)
      self.status = bt.RUNNING
    end
    local tree = bt.BT({}, bt.PriorityNode({Mover()}, 1))
    tree:Update()
    assert.equal(10, tree.root.lasttime)
    assert.equal("RUNNING", tree.root.children[1].status)
    assert.equal(1, tree.root.children[1]:GetSleepTime()) -- it slept from 15, the time it set
  end)

  it("is called once by GetSleepTime and by the dump for reads with no Lua code between", function()
    -- Don't Starve's GetTreeSleepTime reads GetTime() for the Priority and for the WaitNode
    local tree = bt.BT({}, bt.PriorityNode({bt.WaitNode(2)}, 0.25, true))
    tree:Update()
    now = 10.1
    calls = 0
    assert.near(0.15, tree:GetSleepTime(), 1e-12)
    assert.equal(1, calls)
    calls = 0
    local dump = tostring(tree)
    assert.equal(1, calls)
    assert.truthy(dump:find(">0.15", 1, true), dump)
  end)

  it("is called again within GetSleepTime after a node written in Lua moved the time", function()
    local Slow = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Slow") end)
    function Slow:Visit() self.status = bt.RUNNING end
    function Slow:GetSleepTime() now = now + 1; return 100 end
    local tree = bt.BT({}, bt.PriorityNode({bt.ParallelNode{Slow(), bt.WaitNode(20)}}, 30, true))
    tree:Update() -- at 10: the Priority's clock is 10, the WaitNode wakes at 30
    calls = 0
    -- children first, as Don't Starve's GetTreeSleepTime: Slow moves the time to 11, then the
    -- WaitNode reads 11 (19 s left) and the Priority takes that read (29 s left)
    assert.equal(19, tree:GetSleepTime())
    assert.equal(1, calls)
  end)

  it("is called afresh at the next think and by every call of the API", function()
    local tree = bt.BT({}, bt.SequenceNode{bt.WaitNode(2)})
    tree:Update()
    now = 11
    assert.equal(11, bt.GetTime())
    assert.equal(1, tree:GetSleepTime())
    now = 12
    tree:Update()
    assert.equal("SUCCESS", tree.root.lastresult)
  end)
end)
