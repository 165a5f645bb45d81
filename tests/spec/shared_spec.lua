-- SPDX-License-Identifier: MIT
-- Shared definitions: bt.define, BT(inst, definition), definition:instantiate, bt.SharedBrain.
local bt = require "bt"

local H = require "helpers"
local entity = H.entity

-- A behaviour written in Lua that keeps per-entity state in its fields.
local Counter = bt.Class(bt.BehaviourNode, function(self, inst)
  bt.BehaviourNode._ctor(self, "Counter")
  self.inst = inst
  self.count = 0
end)
function Counter:Visit()
  self.count = self.count + 1
  self.inst.seen = self.count
  self.status = bt.RUNNING
  self:Sleep(1)
end
function Counter:DBString() return "count " .. self.count end

describe("shared definitions", function()
  local t
  before_each(function()
    t = 0
    bt.set_clock(function() return t end)
  end)
  after_each(function()
    bt.set_clock(nil)
  end)

  it("compile once and think each entity with its own state and functions receiving it", function()
    local calls = {}
    local def = bt.define(bt.PriorityNode({
      bt.WhileNode(function(inst) calls[#calls + 1] = inst.name return inst.scared end, "Scared", Counter()),
      bt.WaitNode(3),
    }, 1, true))
    local a, b = entity("a"), entity("b")
    a.scared = true
    local ta, tb = bt.BT(a, def), def:instantiate(b)
    ta:Update()
    tb:Update()
    assert.same({"a", "b"}, calls)
    assert.equal(1, a.seen)
    assert.is_nil(b.seen)
    ta:Update()
    assert.equal(2, a.seen)
    assert.equal(1, ta:GetSleepTime())
    assert.equal(1, tb:GetSleepTime()) -- the Wait has 3 s left, the Priority re-evaluates in 1
    -- each dump shows its own entity
    assert.truthy(tostring(ta):find("Counter - RUNNING <RUNNING> (count 2)", 1, true))
    assert.truthy(tostring(tb):find("Wait - RUNNING <RUNNING> (3.00)", 1, true))
    assert.equal(def:size(), #ta:snapshot())
  end)

  it("gives each entity its own copy of nodes written in Lua, whose children are its own", function()
    local Wrapper = bt.Class(bt.BehaviourNode, function(self, inst, child)
      bt.BehaviourNode._ctor(self, "Wrapper", {child})
    end)
    function Wrapper:Visit()
      self.children[1]:Visit()
      self.status = self.children[1].status
      self.inst.child_status = self.children[1].status
    end
    local def = bt.define(Wrapper(nil, bt.ConditionWaitNode(function(inst) return inst.done end, "Done")))
    local a, b = entity("a"), entity("b")
    b.done = true
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update()
    tb:Update()
    assert.equal("RUNNING", a.child_status)
    assert.equal("SUCCESS", b.child_status)
    local ra, rb = ta.root, tb.root
    assert.are_not.equal(ra, rb)
    assert.equal(a, ra.inst)
    assert.equal(ra, ra.children[1].parent)
    assert.equal("RUNNING", ra.children[1].status)
    assert.equal("READY", rb.children[1].status)
    assert.is_true(ra:is_a(Wrapper))
  end)

  it("subscribe each entity's EventNodes through its own inst, and FireEvent reaches the others", function()
    local def = bt.define(bt.PriorityNode({
      bt.EventNode(nil, "poke", bt.ActionNode(function(inst) inst.poked = (inst.poked or 0) + 1 end, "Ouch")),
      bt.WaitNode(10),
    }, 1, true))
    local a, b = entity("a"), entity("b")
    local plain = {name = "plain"} -- no ListenForEvent
    local ta, tb, tp = bt.BT(a, def), bt.BT(b, def), bt.BT(plain, def)
    for _, tree in ipairs({ta, tb, tp}) do tree:Update() end
    a:PushEvent("poke")
    t = 0.5
    for _, tree in ipairs({ta, tb, tp}) do tree:Update() end
    assert.equal(1, a.poked)
    assert.is_nil(b.poked)
    tp:FireEvent("poke", "x")
    tp:Update()
    assert.equal(1, plain.poked)
    -- Stop removes this entity's listener only
    ta:Stop()
    assert.equal(0, #a.handlers.poke)
    assert.equal(1, #b.handlers.poke)
  end)

  it("scatter each entity's Priorities with math.random when it is instantiated", function()
    local def = bt.define(bt.PriorityNode({bt.WaitNode(1)}, 2))
    math.randomseed(7)
    local expected = 2 * 0.5 + 2 * math.random()
    math.randomseed(7)
    local tree = bt.BT({}, def)
    assert.equal(expected, tree.root.lasttime)
    local nos = bt.define(bt.PriorityNode({bt.WaitNode(1)}, 2, true))
    assert.is_nil(bt.BT({}, nos).root.lasttime)
  end)

  it("keep templates out of trees", function()
    local root = bt.SequenceNode{bt.WaitNode(1)}
    local def = bt.define(root)
    assert.equal("READY", root.status)
    assert.has_error(function() bt.BT({}, root) end,
      "BT: node 'Sequence' already belongs to a definition (use BT(inst, definition))")
    assert.has_error(function() root:Visit() end)
    local listening = bt.EventNode(entity("x"), "poke")
    assert.has_error(function() bt.define(bt.SequenceNode{listening}) end)
    assert.has_error(function() bt.define(5) end, "bad argument #1 to 'define' (node expected, got number)")
  end)

  it("bt.SharedBrain builds its tree once, when the first brain starts", function()
    local builds = 0
    local Sheep = bt.SharedBrain(function()
      builds = builds + 1
      return bt.PriorityNode({bt.ActionNode(function(inst) inst.acted = true end, "Act")}, 1, true)
    end)
    assert.equal(0, builds)
    local m = bt.BrainWrangler()
    local insts = {}
    for i = 1, 3 do
      insts[i] = {}
      local b = Sheep(insts[i])
      b.manager = m
      insts[i].brain = b
      b:Start()
    end
    assert.equal(1, builds)
    m:Update(1)
    for i = 1, 3 do assert.is_true(insts[i].acted) end
    assert.equal(3, m:GetStats().thinks)
    assert.equal(Sheep.GetDefinition(), Sheep.GetDefinition())
    assert.is_true(insts[1].brain:is_a(bt.Brain))
    assert.has_error(function() bt.SharedBrain(5) end, "bad argument #1 to 'SharedBrain' (node or function expected, got number)")
  end)
end)
