-- SPDX-License-Identifier: MIT
-- Node constructors: default names, shapes, classes and node fields (docs/lua-api.md: Node
-- constructors).

local H = require "helpers"
local bt = H.bt

local function yes() return true end
local function no() return false end

-- The first line of the dump of a fresh tree around `node`.
local function first_line(node)
  local tree = bt.BT({}, node)
  return (tostring(tree):match("^[^\n]*"))
end

local function root_name(node)
  return bt.BT({}, node):snapshot()[1].name
end

describe("constructor default names", function()
  after_each(H.restore)

  local inst = {}
  local function leaf() return bt.ActionNode(yes, "Leaf") end
  local fn_duration = function() return 3 end

  local cases = {
    { "SequenceNode", function() return bt.SequenceNode { leaf() } end, "Sequence" },
    { "SelectorNode", function() return bt.SelectorNode { leaf() } end, "Selector" },
    { "PriorityNode", function() return bt.PriorityNode({ leaf() }, 1, true) end, "Priority" },
    { "PriorityNode with scatter", function() return bt.PriorityNode({ leaf() }, .25) end, "Priority" },
    { "ParallelNode", function() return bt.ParallelNode { leaf() } end, "Parallel" },
    { "ParallelNode named", function() return bt.ParallelNode({ leaf() }, "Both") end, "Both" },
    { "ParallelNodeAny", function() return bt.ParallelNodeAny { leaf() } end, "Parallel(Any)" },
    { "LoopNode (as written)", function() return bt.LoopNode({ leaf() }, 3) end, "Sequence" },
    { "LoopNode without maxreps", function() return bt.LoopNode { leaf() } end, "Sequence" },
    { "RandomNode", function() return bt.RandomNode { leaf() } end, "Random" },
    { "ConditionNode", function() return bt.ConditionNode(yes) end, "Condition" },
    { "ConditionNode named", function() return bt.ConditionNode(yes, "IsDay") end, "IsDay" },
    { "MultiConditionNode", function() return bt.MultiConditionNode(yes, no) end, "Condition" },
    { "MultiConditionNode named", function() return bt.MultiConditionNode(yes, no, "Chop") end, "Chop" },
    { "ConditionWaitNode", function() return bt.ConditionWaitNode(yes) end, "Wait" },
    { "ConditionWaitNode named", function() return bt.ConditionWaitNode(yes, "Until") end, "Until" },
    { "ActionNode", function() return bt.ActionNode(yes) end, "ActionNode" },
    { "ActionNode named", function() return bt.ActionNode(yes, "Eat") end, "Eat" },
    { "WaitNode(number)", function() return bt.WaitNode(3) end, "Wait" },
    { "WaitNode(function)", function() return bt.WaitNode(fn_duration) end, "Wait" },
    { "NotDecorator", function() return bt.NotDecorator(leaf()) end, "Not" },
    { "FailIfRunningDecorator", function() return bt.FailIfRunningDecorator(leaf()) end, "FailIfRunning" },
    { "FailIfSuccessDecorator", function() return bt.FailIfSuccessDecorator(leaf()) end, "FailIfSuccess" },
    { "EventNode", function() return bt.EventNode(inst, "panic", leaf()) end, "Event(panic)" },
    { "EventNode with priority", function() return bt.EventNode(inst, "attacked", leaf(), 3) end, "Event(attacked)" },
    { "LatchNode(integer)", function() return bt.LatchNode(inst, 5, leaf()) end, "Latch (5)" },
    { "LatchNode(float)", function() return bt.LatchNode(inst, 2.5, leaf()) end, "Latch (2.5)" },
    { "LatchNode(float with integral value)", function() return bt.LatchNode(inst, 5.0, leaf()) end, "Latch (5.0)" },
    { "LatchNode(function)", function() return bt.LatchNode(inst, fn_duration, leaf()) end,
      "Latch (" .. tostring(fn_duration) .. ")" },
    { "WhileNode", function() return bt.WhileNode(yes, "IsDay", leaf()) end, "Parallel" },
    { "IfNode", function() return bt.IfNode(yes, "IsDay", leaf()) end, "Sequence" },
    { "IfThenDoWhileNode", function() return bt.IfThenDoWhileNode(yes, no, "Chop", leaf()) end, "Parallel" },
  }

  for _, case in ipairs(cases) do
    it(case[1] .. " is named " .. case[3] .. " in dumps and snapshots", function()
      local node = case[2]()
      assert.equal(case[3], node.name)
      assert.equal(case[3], root_name(case[2]()))
      assert.equal(case[3] .. " - READY <READY> ()>0.00", first_line(case[2]()))
    end)
  end
end)

describe("function constructors build Don't Starve's shapes", function()
  local function leaf() return bt.ActionNode(yes, "Leaf") end

  it("WhileNode is a Parallel of ConditionNode(cond, name) and node", function()
    local node = leaf()
    local w = bt.WhileNode(yes, "IsDay", node)
    assert.is_true(w:is_a(bt.ParallelNode))
    assert.equal(2, #w.children)
    assert.is_true(w.children[1]:is_a(bt.ConditionNode))
    assert.equal("IsDay", w.children[1].name)
    assert.equal(node, w.children[2])
    assert.same({ "0 Parallel READY READY", "1 IsDay READY READY", "1 Leaf READY READY" },
      H.snap(bt.BT({}, w)))
  end)

  it("WhileNode without a name names its condition Condition", function()
    local w = bt.WhileNode(yes, nil, leaf())
    assert.equal("Condition", w.children[1].name)
  end)

  it("IfNode is a Sequence of ConditionNode(cond, name) and node", function()
    local node = leaf()
    local i = bt.IfNode(yes, "HasTarget", node)
    assert.is_true(i:is_a(bt.SequenceNode))
    assert.is_true(i.children[1]:is_a(bt.ConditionNode))
    assert.equal(node, i.children[2])
    assert.same({ "0 Sequence READY READY", "1 HasTarget READY READY", "1 Leaf READY READY" },
      H.snap(bt.BT({}, i)))
  end)

  it("IfThenDoWhileNode is a Parallel of MultiConditionNode(ifcond, whilecond, name) and node", function()
    local node = leaf()
    local n = bt.IfThenDoWhileNode(yes, no, "KeepChopping", node)
    assert.is_true(n:is_a(bt.ParallelNode))
    assert.is_true(n.children[1]:is_a(bt.MultiConditionNode))
    assert.is_false(n.children[1]:is_a(bt.ConditionNode))
    assert.equal(node, n.children[2])
    assert.same({ "0 Parallel READY READY", "1 KeepChopping READY READY", "1 Leaf READY READY" },
      H.snap(bt.BT({}, n)))
  end)
end)

describe("node classes", function()
  local inst = {}
  local function leaf() return bt.ActionNode(yes, "Leaf") end

  it("every constructor class is_a itself and BehaviourNode, before and after a BT wraps it", function()
    local nodes = {
      { bt.SequenceNode, bt.SequenceNode { leaf() } },
      { bt.SelectorNode, bt.SelectorNode { leaf() } },
      { bt.PriorityNode, bt.PriorityNode({ leaf() }, 1, true) },
      { bt.ParallelNode, bt.ParallelNode { leaf() } },
      { bt.ParallelNodeAny, bt.ParallelNodeAny { leaf() } },
      { bt.LoopNode, bt.LoopNode { leaf() } },
      { bt.RandomNode, bt.RandomNode { leaf() } },
      { bt.ConditionNode, bt.ConditionNode(yes) },
      { bt.MultiConditionNode, bt.MultiConditionNode(yes, yes) },
      { bt.ConditionWaitNode, bt.ConditionWaitNode(yes) },
      { bt.ActionNode, bt.ActionNode(yes) },
      { bt.WaitNode, bt.WaitNode(1) },
      { bt.NotDecorator, bt.NotDecorator(leaf()) },
      { bt.FailIfRunningDecorator, bt.FailIfRunningDecorator(leaf()) },
      { bt.FailIfSuccessDecorator, bt.FailIfSuccessDecorator(leaf()) },
      { bt.EventNode, bt.EventNode(inst, "e", leaf()) },
      { bt.LatchNode, bt.LatchNode(inst, 1, leaf()) },
    }
    for i, pair in ipairs(nodes) do
      local class, node = pair[1], pair[2]
      assert.is_true(node:is_a(class), "case " .. i)
      assert.is_true(node:is_a(bt.BehaviourNode), "case " .. i)
      bt.BT({}, node)
      assert.is_true(node:is_a(class), "case " .. i .. " after BT")
      assert.is_true(node:is_a(bt.BehaviourNode), "case " .. i .. " after BT")
    end
  end)

  it("follows Don't Starve's class hierarchy", function()
    assert.is_true(bt.ParallelNodeAny { leaf() }:is_a(bt.ParallelNode))
    assert.is_false(bt.ParallelNode { leaf() }:is_a(bt.ParallelNodeAny))
    assert.is_false(bt.LoopNode { leaf() }:is_a(bt.SequenceNode))
    assert.is_false(bt.SequenceNode { leaf() }:is_a(bt.LoopNode))
    assert.is_false(bt.MultiConditionNode(yes, yes):is_a(bt.ConditionNode))
    assert.is_false(bt.ConditionWaitNode(yes):is_a(bt.ConditionNode))
    assert.is_true(bt.NotDecorator(leaf()):is_a(bt.DecoratorNode))
    assert.is_true(bt.FailIfRunningDecorator(leaf()):is_a(bt.DecoratorNode))
    assert.is_true(bt.FailIfSuccessDecorator(leaf()):is_a(bt.DecoratorNode))
    assert.is_false(bt.EventNode(inst, "e", leaf()):is_a(bt.DecoratorNode))
    assert.is_false(bt.PriorityNode({ leaf() }, 1, true):is_a(bt.SequenceNode))
    assert.is_false(bt.ActionNode(yes):is_a(bt.ConditionNode))
  end)
end)

describe("node fields", function()
  after_each(H.restore)

  it("children is the array of the node objects given, in order", function()
    local a, b, c = bt.ActionNode(yes, "A"), bt.ActionNode(yes, "B"), bt.ActionNode(yes, "C")
    local seq = bt.SequenceNode { a, b, c }
    assert.equal(3, #seq.children)
    assert.equal(a, seq.children[1])
    assert.equal(b, seq.children[2])
    assert.equal(c, seq.children[3])
    bt.BT({}, seq)
    assert.equal(3, #seq.children)
    assert.equal(a, seq.children[1])
    assert.equal(c, seq.children[3])
  end)

  it("decorators, EventNode and LatchNode have their child as children[1]", function()
    local inst = {}
    for _, make in ipairs({
      function(c) return bt.NotDecorator(c) end,
      function(c) return bt.FailIfRunningDecorator(c) end,
      function(c) return bt.FailIfSuccessDecorator(c) end,
      function(c) return bt.EventNode(inst, "e", c) end,
      function(c) return bt.LatchNode(inst, 2, c) end,
    }) do
      local child = bt.ActionNode(yes, "Child")
      local node = make(child)
      assert.equal(1, #node.children)
      assert.equal(child, node.children[1])
      assert.equal(node, child.parent)
    end
  end)

  it("leaves have no children, as in Don't Starve", function()
    assert.is_nil(bt.ActionNode(yes).children)
    assert.is_nil(bt.ConditionNode(yes).children)
    assert.is_nil(bt.ConditionWaitNode(yes).children)
    assert.is_nil(bt.MultiConditionNode(yes, yes).children)
    assert.is_nil(bt.WaitNode(1).children)
  end)

  it("parent is set by the constructor of the parent; the root has none", function()
    local a = bt.ActionNode(yes, "A")
    local w = bt.WhileNode(yes, "Cond", a)
    local root = bt.PriorityNode({ w }, 1, true)
    assert.equal(w, a.parent)
    assert.equal(w, w.children[1].parent)
    assert.equal(root, w.parent)
    assert.is_nil(root.parent)
    bt.BT({}, root)
    assert.equal(w, a.parent)
    assert.equal(root, w.parent)
    assert.is_nil(root.parent)
  end)

  it("a node under several parents has the last parent that took it", function()
    local shared = bt.ActionNode(yes, "Shared")
    local s1 = bt.SequenceNode { shared }
    assert.equal(s1, shared.parent)
    local s2 = bt.SelectorNode { shared }
    assert.equal(s2, shared.parent)
    bt.BT({}, bt.PriorityNode({ s1, s2 }, 1, true))
    assert.equal(s2, shared.parent)
  end)

  it("status and lastresult start READY", function()
    local a = bt.ActionNode(yes, "A")
    local root = bt.SequenceNode { a }
    assert.equal(bt.READY, a.status)
    assert.equal(bt.READY, a.lastresult)
    bt.BT({}, root)
    assert.equal(bt.READY, root.status)
    assert.equal(bt.READY, root.lastresult)
    assert.equal(bt.READY, a.status)
    assert.equal(bt.READY, a.lastresult)
  end)

  it("status and lastresult follow the thinks", function()
    local a = bt.ActionNode(yes, "A")
    local w = bt.ConditionWaitNode(no, "W")
    local root = bt.SequenceNode { a, w }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.equal(bt.RUNNING, root.status)
    assert.equal(bt.RUNNING, root.lastresult)
    assert.equal(bt.READY, a.status) -- reset by the Step of the running Sequence
    assert.equal(bt.SUCCESS, a.lastresult)
    assert.equal(bt.RUNNING, w.status)
    assert.equal(bt.RUNNING, w.lastresult)
  end)

  it("ordinary nodes have no OnStop; an assigned OnStop is called by tree:Stop with the node", function()
    local a = bt.ActionNode(yes, "A")
    local root = bt.SequenceNode { a }
    assert.is_nil(root.OnStop)
    assert.is_nil(a.OnStop)
    local got = {}
    root.OnStop = function(self) got[#got + 1] = self end
    local tree = bt.BT({}, root)
    a.OnStop = function(self) got[#got + 1] = self end
    tree:Stop()
    assert.equal(2, #got)
    assert.equal(root, got[1])
    assert.equal(a, got[2])
  end)

  it("OnStop can be chained the braincommon way on a node that has none", function()
    local calls = {}
    local w = bt.WhileNode(yes, "Scared", bt.ActionNode(yes, "Panic"))
    local _OnStop = w.OnStop
    w.OnStop = function()
      calls[#calls + 1] = "cleanup"
      if _OnStop ~= nil then
        _OnStop(w)
      end
    end
    local tree = bt.BT({}, bt.PriorityNode({ w }, .25))
    tree:Stop()
    assert.same({ "cleanup" }, calls)
  end)
end)
