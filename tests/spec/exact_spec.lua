-- SPDX-License-Identifier: MIT
-- The DS-exact mode (docs/lua-api.md, "Deviations from Don't Starve"): bt.set_exact and BT's
-- options table switch off deviations 1, 2, 6 and 7.
--
-- The expected values were derived from Don't Starve Together's behaviourtree.lua (game build
-- v638228), by reading it and by running it under a counting GetTime (the same tree, clock and
-- calls as below):
--   WaitNode:Visit reads GetTime() once, enters with wake_time = now + time, and while
--   now < wake_time calls Sleep(now - wake_time); Sleep reads GetTime() again and sets
--   nextupdatetime = GetTime() + t, so a Wait entered at 5 for 3 s has wake_time 8 and
--   nextupdatetime 2, and its GetSleepTime (which reads GetTime() when nextupdatetime is set)
--   clamps 2 - now to 0.
--   PriorityNode:Visit reads GetTime() once; PriorityNode:GetSleepTime once while RUNNING with a
--   lasttime; its DBString once. GetTreeString calls GetTreeSleepTime at every line.
--   Counting calls on PriorityNode({SequenceNode{ActionNode(f), WaitNode(3)}}, 1, true) at t = 5:
--   Update 3, GetSleepTime 2, tostring 6; at t = 6: Update 3, GetSleepTime 2; at t = 8 (the
--   Wait ends, the root ends SUCCESS and is reset): Update 2, GetSleepTime 0.
--   BehaviourNode's constructor sets nextupdatetick = 0 and id = a counter over every node made.
--   ConditionNode, ActionNode (and the rest) call their function with no argument.
local bt = require "bt"

local DS_DUMP = table.concat({
  "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00",
  "   >Sequence - RUNNING <RUNNING> (2)>0.00",
  "   >   >ActionNode - READY <SUCCESS> ()>0.00",
  "   >   >Wait - RUNNING <RUNNING> (3.00)>0.00",
  "",
}, "\n")

describe("the DS-exact mode", function()
  local now, calls
  before_each(function()
    now, calls = 5, 0
    bt.set_clock(function() calls = calls + 1; return now end)
  end)
  after_each(function()
    bt.set_exact(false)
    bt.set_clock(nil)
  end)

  -- the tree of the comment above; its action records how many arguments it got
  local function build(opts)
    local got = {}
    local root = bt.PriorityNode({bt.SequenceNode{
      bt.ActionNode(function(...) got[#got + 1] = select("#", ...) end),
      bt.WaitNode(3),
    }}, 1, true)
    return bt.BT({}, root, opts), root, got
  end

  -- the clock calls of fn()
  local function count(fn)
    calls = 0
    local r = fn()
    return calls, r
  end

  it("is off by default", function()
    assert.is_false(bt.set_exact(false))
    local tree, root = build()
    assert.is_false(tree.exact)
    tree:Update()
    assert.equal(3, root.children[1].children[2]:GetSleepTime()) -- deviation 1: the time left
    assert.equal(1, tree:GetSleepTime()) -- the Priority's next evaluation
  end)

  it("gives a running WaitNode Don't Starve's sleep time, 0, and its nextupdatetime", function()
    bt.set_exact(true)
    local tree, root = build()
    assert.is_true(tree.exact)
    tree:Update()
    local wait = root.children[1].children[2]
    assert.equal(8, wait.wake_time)
    assert.equal(2, wait.nextupdatetime) -- 5 + (5 - 8)
    assert.equal(0, tree:GetSleepTime())
    assert.equal(DS_DUMP, tostring(tree))
    now = 8
    tree:Update()
    assert.equal("SUCCESS", root.lastresult)
  end)

  it("calls node functions without arguments", function()
    local exact_tree, _, got = build({exact = true})
    exact_tree:Update()
    assert.same({0}, got)
    local tree, _, got2 = build()
    tree:Update()
    assert.same({1}, got2) -- deviation 2: the tree's inst
    local seen = {}
    local function note(name) return function(...) seen[#seen + 1] = name .. select("#", ...); return true end end
    local t = bt.BT({}, bt.SequenceNode{
      bt.ConditionNode(note("c")),
      bt.MultiConditionNode(note("s"), note("k")),
      bt.WhileNode(note("w"), "W", bt.ConditionWaitNode(note("cw"))),
    }, {exact = true})
    t:Update()
    assert.same({"c0", "s0", "w0", "cw0"}, seen)
  end)

  it("calls the clock as often as Don't Starve calls GetTime()", function()
    local tree = build({exact = true})
    assert.equal(3, (count(function() tree:Update() end)))
    assert.equal(2, (count(function() return tree:GetSleepTime() end)))
    assert.equal(6, (count(function() return tostring(tree) end)))
    now = 6
    assert.equal(3, (count(function() tree:Update() end)))
    assert.equal(2, (count(function() return tree:GetSleepTime() end)))
    now = 8
    assert.equal(2, (count(function() tree:Update() end)))
    assert.equal(0, (count(function() return tree:GetSleepTime() end)))
  end)

  it("calls the clock less without it (deviation 7)", function()
    local tree = build()
    assert.is_true(count(function() tree:Update() end) < 3)
    assert.equal(1, (count(function() return tree:GetSleepTime() end)))
  end)

  it("gives nodes made under bt.set_exact(true) Don't Starve's id and nextupdatetick", function()
    local plain = bt.WaitNode(1)
    assert.is_nil(plain.id)
    assert.is_nil(plain.nextupdatetick)
    bt.set_exact(true)
    local c = bt.ConditionNode(function() end)
    local w = bt.WaitNode(1)
    local while_node = bt.WhileNode(function() end, "x", w)
    assert.equal(0, c.nextupdatetick)
    assert.equal(0, while_node.nextupdatetick)
    -- one counter over all nodes, in the order they were made: WhileNode makes its
    -- ConditionNode, then its ParallelNode
    assert.equal(c.id + 1, w.id)
    assert.equal(c.id + 2, while_node.children[1].id)
    assert.equal(c.id + 3, while_node.id)
    local Custom = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Custom") end)
    assert.equal(c.id + 4, Custom().id)
    -- the fields stay once the nodes are in a tree
    local tree = bt.BT({}, while_node)
    tree:Update()
    assert.equal(c.id + 3, tree.root.id)
    assert.equal(0, tree.root.nextupdatetick)
  end)

  it("is chosen per tree by BT's options, over bt.set_exact", function()
    bt.set_exact(true)
    local tree = build({exact = false})
    assert.is_false(tree.exact)
    tree:Update()
    assert.equal(1, tree:GetSleepTime())
    bt.set_exact(false)
    local def = bt.define(bt.SequenceNode{bt.WaitNode(3)})
    local a, b = bt.BT({}, def, {exact = true}), def:instantiate({}, {exact = true})
    a:Update()
    b:Update()
    assert.equal(0, a:GetSleepTime())
    assert.equal(0, b:GetSleepTime())
    local c = bt.BT({}, def)
    c:Update()
    assert.equal(3, c:GetSleepTime())
    assert.is_true(bt.set_exact(true) == false)
    assert.has_error(function() bt.BT({}, bt.WaitNode(1), 5) end,
      "bad argument #3 to 'BT' (table, Blackboard or nil expected, got number)")
  end)
end)
