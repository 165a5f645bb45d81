-- SPDX-License-Identifier: MIT
-- Bugs found by comparing bt with the original scripts (tests/ds_compare), each pinned here.
local bt = require "bt"

describe("regressions", function()
  local t
  before_each(function()
    t = 0
    bt.set_clock(function() return t end)
  end)
  after_each(function()
    bt.set_clock(nil)
  end)

  it("a Priority's Reset keeps its lasttime to the last bit", function()
    -- the reset used to write an index over the low bits of lasttime
    local root = bt.PriorityNode({bt.ConditionNode(function() return false end, "No")}, 0.5, true)
    local tree = bt.BT({}, root)
    t = 0.78333333333333333
    tree:Update() -- evaluates, fails, and Step resets the root
    assert.equal("READY", root.status)
    assert.is_true(rawequal(root.lasttime, 0.78333333333333333))
    tree:Reset()
    assert.is_true(rawequal(root.lasttime, 0.78333333333333333))
  end)

  it("an event clears the clocks along the parent that took its node last", function()
    local listeners = {}
    local inst = {ListenForEvent = function(_, e, fn) listeners[e] = fn end}
    local event = bt.EventNode(inst, "hit", bt.ActionNode(function() end, "React"))
    local inner = bt.PriorityNode({event}, 1, true)
    local outer = bt.PriorityNode({bt.ParallelNodeAny({inner}), event}, 1, true)
    assert.equal(outer, event.parent)
    local root = bt.PriorityNode({outer}, 1, true)
    local tree = bt.BT(inst, root)
    t = 1
    tree:Update()
    t = 2
    tree:Update()
    assert.equal(1, inner.lasttime)
    listeners.hit(inst, "data")
    -- DoToParents follows parent links: outer and root, never inner
    assert.is_nil(outer.lasttime)
    assert.is_nil(root.lasttime)
    assert.equal(1, inner.lasttime)
  end)

  it("EventNode and LatchNode take their names from their arguments", function()
    assert.equal("Event(hit)", bt.EventNode({}, "hit").name)
    local latch = bt.LatchNode({}, 5, bt.ActionNode(function() end))
    assert.equal("Latch (5)", latch.name)
    local tree = bt.BT({}, bt.SequenceNode({bt.EventNode({}, "hit"), latch}))
    assert.equal("Event(hit)", tree:snapshot()[2].name)
    assert.equal("Latch (5)", tree:snapshot()[3].name)
  end)
end)

describe("regressions (C tests)", function()
  it("a GetSleepTime written in Lua gives the tree's sleep time", function()
    -- BT_DEFAULT used to equal the 'has a value' result of a sleep-time override
    local Napper = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Napper") end)
    function Napper:Visit() self.status = bt.RUNNING end
    function Napper:GetSleepTime() return 7 end
    local tree = bt.BT({}, bt.SequenceNode({Napper()}))
    tree:Update()
    assert.equal(7, tree:GetSleepTime())
  end)
end)

describe("regressions (shared definitions)", function()
  it("bt.define keeps a Lua node's own fields that share a name with another kind's state", function()
    -- define used to strip running/data/idx/... from every template, whatever its kind
    local Leaf = bt.Class(bt.BehaviourNode, function(self, running, data, idx)
      bt.BehaviourNode._ctor(self, "Leaf")
      self.running, self.data, self.idx = running, data, idx
    end)
    local seen
    function Leaf:Visit()
      seen = {self.running, self.data, self.idx}
      self.status = bt.FAILED
    end
    bt.BT({}, bt.define(bt.PriorityNode({Leaf(true, "d", 7)}, 1, true))):Update()
    assert.same({true, "d", 7}, seen)
  end)
end)

describe("regressions (arena)", function()
  it("the instruction limit gives the host's own hook back after each call", function()
    -- the hook used to be removed instead of restored
    bt.set_instruction_limit(1000000)
    local tree = bt.BT({}, bt.PriorityNode({bt.ActionNode(function() end, "A")}, 1, true))
    local function host_hook() end
    debug.sethook(host_hook, "", 100)
    tree:Update()
    local hook, mask, count = debug.gethook()
    debug.sethook()
    bt.set_instruction_limit(0)
    assert.equal(host_hook, hook)
    assert.equal("", mask)
    assert.equal(100, count)
  end)
end)
