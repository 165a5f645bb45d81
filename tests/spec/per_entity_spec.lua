-- SPDX-License-Identifier: MIT
-- Trees built for one entity each (BT(inst, root), Don't Starve's way): BT compiles a shape once
-- and finds it again for the next tree of that shape (docs/performance.md), so trees whose objects
-- differ in anything a node is made of must each run their own.
local bt = require "bt"

local H = require "helpers"

-- Sequence{Wait(seconds), Action(set inst.done)}: done once `seconds` have passed.
local function waiter(inst, seconds, name)
  return bt.SequenceNode({
    bt.WaitNode(seconds),
    bt.ActionNode(function() inst.done = true end, name or "finish"),
  })
end

describe("trees built for one entity each", function()
  local clock
  before_each(function() clock = H.clock(0) end)
  after_each(H.restore)

  it("of shapes that differ only in a parameter each wait their own time", function()
    local a, b, c = {}, {}, {}
    local ta = bt.BT(a, waiter(a, 1))
    local tb = bt.BT(b, waiter(b, 2))
    local tc = bt.BT(c, waiter(c, 1))
    for _, t in ipairs({ta, tb, tc}) do t:Update() end
    clock.t = 1.5
    for _, t in ipairs({ta, tb, tc}) do t:Update() end
    assert.is_true(a.done)
    assert.is_nil(b.done)
    assert.is_true(c.done)
    clock.t = 2.5
    tb:Update()
    assert.is_true(b.done)
  end)

  it("of shapes that differ only in a name each show their own", function()
    local a, b = {}, {}
    local ta = bt.BT(a, waiter(a, 1, "eat"))
    local tb = bt.BT(b, waiter(b, 1, "sleep"))
    assert.truthy(tostring(ta):find("eat", 1, true))
    assert.falsy(tostring(ta):find("sleep", 1, true))
    assert.truthy(tostring(tb):find("sleep", 1, true))
    assert.falsy(tostring(tb):find("eat", 1, true))
  end)

  it("of shapes that differ only in a node's class each run their own class's code", function()
    local Mine = bt.Class(bt.ActionNode, function(self, fn) bt.ActionNode._ctor(self, fn, "act") end)
    function Mine:Visit() self.status = bt.FAILED end
    local a, b = {}, {}
    local ta = bt.BT(a, bt.ActionNode(function() a.acted = true end, "act"))
    local tb = bt.BT(b, Mine(function() b.acted = true end))
    ta:Update()
    tb:Update()
    assert.is_true(a.acted)
    assert.equal(bt.SUCCESS, ta.root.lastresult)
    assert.is_nil(b.acted)
    assert.equal(bt.FAILED, tb.root.lastresult)
  end)

  it("of shapes that differ only in a child listed twice or two alike each keep theirs", function()
    local calls = {}
    local function act(tag) return bt.ActionNode(function() calls[#calls + 1] = tag end, "act") end
    local one = act("one")
    local ta = bt.BT({}, bt.SequenceNode({one, one}))
    local tb = bt.BT({}, bt.SequenceNode({act("first"), act("second")}))
    assert.equal(2, ta.root.children[1] == ta.root.children[2] and 2 or 0)
    ta:Update()
    tb:Update()
    assert.same({"one", "one", "first", "second"}, calls)
  end)

  it("given a node of another tree fail, and leave that tree's node bound to it", function()
    local a = {}
    local leaf = bt.ActionNode(function() a.acted = true end, "act")
    local ta = bt.BT(a, bt.SelectorNode({bt.ConditionNode(function() return false end, "no"), leaf}))
    ta:Update()
    assert.equal(bt.SUCCESS, leaf.lastresult)
    -- leaf would be the other tree's node 1, where ta has "no"
    assert.has_error(function() bt.BT({}, bt.SequenceNode({leaf})) end,
      "BT: node 'act' already belongs to a tree (a node can be in one BT only)")
    assert.equal(bt.SUCCESS, leaf.lastresult)
    assert.equal(bt.FAILED, ta.root.children[1].lastresult)
  end)

  it("built from objects that failed to compile once run them when given again", function()
    local a = {}
    local leaf = bt.ActionNode(function() a.acted = true end, "act")
    local bad = bt.SequenceNode({leaf})
    bad.children[2] = 42
    assert.has_error(function() bt.BT(a, bad) end)
    bad.children[2] = nil
    local t = bt.BT(a, bad)
    t:Update()
    assert.is_true(a.acted)
    assert.is_true(rawequal(t.root.children[1], leaf))
    assert.is_true(rawequal(t.root, bad))
  end)

  it("whose node's parent field names a node outside the tree still build and run", function()
    local a = {}
    local leaf = bt.ActionNode(function() a.acted = true end, "act")
    local root = bt.SequenceNode({leaf})
    bt.SelectorNode({leaf}) -- takes leaf as its child too: leaf.parent is that Selector
    local t = bt.BT(a, root)
    t:Update()
    assert.is_true(a.acted)
    assert.equal(bt.SUCCESS, t.root.lastresult)
  end)

  it("give back the root's own object while it lives, and do not keep it alive", function()
    local root = bt.SequenceNode({bt.ActionNode(function() end, "act")})
    local t = bt.BT({}, root)
    assert.is_true(rawequal(t.root, root))
    local weak = setmetatable({root}, {__mode = "v"})
    root = nil
    collectgarbage()
    collectgarbage()
    assert.is_nil(weak[1])
    assert.equal("Sequence", t.root.name) -- a view of the root, made anew
    assert.equal("act", t.root.children[1].name)
  end)
end)
