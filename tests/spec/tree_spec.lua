-- SPDX-License-Identifier: MIT
-- Trees: Update, ForceUpdate, GetSleepTime, Reset, Stop, snapshot, shared nodes, re-entrancy
-- (docs/lua-api.md: Trees).

local H = require "helpers"
local bt = H.bt

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
  return t
end

local function sleeper(name, seconds, status, log)
  return H.leaf(name, function(self)
    self:Sleep(seconds)
    return status or bt.RUNNING
  end, log)
end

describe("tree:Update", function()
  after_each(H.restore)

  it("visits, saves every status as lastresult, then steps: afterwards every node reached by Step is RUNNING or READY", function()
    local tree = bt.BT({}, bt.PriorityNode({
      bt.SequenceNode { H.leaf("A", bt.SUCCESS), H.leaf("B", bt.FAILED) },
      bt.SelectorNode { H.leaf("C", bt.FAILED), H.leaf("D", bt.RUNNING), H.leaf("E", bt.SUCCESS) },
    }, 1, true))
    tree:Update()
    assert.same({
      "0 Priority RUNNING RUNNING",
      "1 Sequence READY FAILED",
      "2 A READY SUCCESS",
      "2 B READY FAILED",
      "1 Selector RUNNING RUNNING",
      "2 C READY FAILED",
      "2 D RUNNING RUNNING",
      "2 E READY READY",
    }, H.snap(tree))
  end)

  it("SaveStatus copies a status changed between thinks into lastresult even for nodes the next think does not visit", function()
    local c = H.clock(0)
    local R = H.leaf("R", bt.RUNNING)
    local P = bt.PriorityNode({ H.leaf("F", bt.FAILED), R }, 10, true)
    local tree = bt.BT({}, P)
    tree:Update()
    assert.equal(bt.RUNNING, R.lastresult)
    c.t = 1
    tree:Reset()
    assert.equal(bt.READY, R.status)
    assert.equal(bt.RUNNING, R.lastresult)
    assert.equal(bt.RUNNING, P.lastresult)
    tree:Update()
    assert.equal(1, R.visits)
    assert.equal(bt.READY, R.lastresult)
    assert.equal(bt.READY, P.lastresult)
  end)

  it("trees built for one entity each, of the same shape, each call their own functions", function()
    local log = {}
    local function brain(name, ok)
      return bt.PriorityNode({
        bt.IfNode(function() log[#log + 1] = name .. "?"; return ok end, "Ok?",
          bt.ActionNode(function() log[#log + 1] = name .. "!" end, "Do")),
        bt.ActionNode(function() log[#log + 1] = name .. " idle" end, "Idle"),
      }, 1, true)
    end
    local trees = {}
    for i = 1, 3 do trees[i] = bt.BT({}, brain("t" .. i, i ~= 2)) end
    collectgarbage() -- only the trees hold their functions now
    for i = 1, 3 do trees[i]:Update() end
    assert.same({"t1?", "t1!", "t2?", "t2 idle", "t3?", "t3!"}, log)
  end)

  it("another tree may be updated from inside a think", function()
    local inner_leaf = H.leaf("Inner", bt.RUNNING)
    local inner = bt.BT({}, inner_leaf)
    local outer = bt.BT({}, bt.ActionNode(function() inner:Update() end, "Outer"))
    local errs = H.errors()
    outer:Update()
    assert.same({}, errs)
    assert.equal(1, inner_leaf.visits)
    assert.equal(bt.RUNNING, inner_leaf.lastresult)
  end)
end)

describe("tree:ForceUpdate", function()
  after_each(H.restore)

  it("makes GetSleepTime return 0 until the next Update", function()
    local c = H.clock(0)
    local tree = bt.BT({}, bt.SequenceNode { sleeper("S", 5) })
    tree:Update()
    assert.equal(5, tree:GetSleepTime())
    tree:ForceUpdate()
    assert.equal(0, tree:GetSleepTime())
    c.t = 1
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    assert.equal(5, tree:GetSleepTime())
  end)

  it("wakes a hibernating tree for one think", function()
    local tree = bt.BT({}, bt.SequenceNode { H.leaf("A", bt.SUCCESS) })
    tree:Update()
    assert.is_nil(tree:GetSleepTime())
    tree:ForceUpdate()
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    assert.is_nil(tree:GetSleepTime())
  end)
end)

describe("tree:GetSleepTime", function()
  after_each(H.restore)

  it("is 0 for a READY Priority root and nil for any other READY root", function()
    H.clock(0)
    assert.equal(0, bt.BT({}, bt.PriorityNode({ H.leaf("A", bt.RUNNING) }, 1, true)):GetSleepTime())
    assert.is_nil(bt.BT({}, bt.SequenceNode { H.leaf("A", bt.RUNNING) }):GetSleepTime())
    assert.is_nil(bt.BT({}, H.leaf("B", bt.RUNNING)):GetSleepTime())
    assert.is_nil(bt.BT({}, bt.WaitNode(3)):GetSleepTime())
  end)

  it("is a running leaf's Sleep deadline minus now, clamped at 0, or 0 if it never slept", function()
    local c = H.clock(1)
    local tree = bt.BT({}, bt.SequenceNode { sleeper("S", 2.5) })
    tree:Update()
    assert.equal((1 + 2.5) - 1, tree:GetSleepTime())
    c.t = 3
    assert.equal((1 + 2.5) - 3, tree:GetSleepTime())
    c.t = 4
    assert.equal(0, tree:GetSleepTime())
    local t2 = bt.BT({}, bt.SequenceNode { H.leaf("N", bt.RUNNING) })
    t2:Update()
    assert.equal(0, t2:GetSleepTime())
  end)

  it("is the minimum over the RUNNING children, ignoring the others", function()
    local c = H.clock(0)
    local tree = bt.BT({}, bt.ParallelNode {
      sleeper("Long", 3),
      sleeper("Short", 1),
      sleeper("Done", 0.25, bt.SUCCESS),
    })
    tree:Update()
    assert.equal(1, tree:GetSleepTime())
    c.t = 0.25
    assert.equal(0.75, tree:GetSleepTime())
  end)

  it("is nil when nothing runs", function()
    local tree = bt.BT({}, bt.SelectorNode { H.leaf("A", bt.FAILED) })
    tree:Update()
    assert.is_nil(tree:GetSleepTime())
  end)
end)

describe("tree:Reset", function()
  after_each(H.restore)

  it("makes every node READY, keeps lastresult, calls no OnStop; a Sequence starts again at its first child", function()
    local log = {}
    local stops = 0
    local A = H.leaf("A", bt.SUCCESS, log)
    local B = H.leaf("B", bt.RUNNING, log)
    local seq = bt.SequenceNode { A, B }
    seq.OnStop = function() stops = stops + 1 end
    local tree = bt.BT({}, seq)
    tree:Update()
    tree:Update()
    assert.same({ "A", "B", "B" }, log)
    tree:Reset()
    assert.equal(0, stops)
    assert.equal(bt.READY, seq.status)
    assert.equal(bt.READY, B.status)
    assert.equal(bt.RUNNING, seq.lastresult)
    assert.equal(bt.RUNNING, B.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.same({ bt.READY, bt.RUNNING, bt.READY }, B.entries)
  end)

  it("reaches grandchildren that a running Parallel left SUCCESS", function()
    local X = H.leaf("X", bt.SUCCESS)
    local tree = bt.BT({}, bt.ParallelNode { bt.SequenceNode { X, H.leaf("Y", bt.RUNNING) } })
    tree:Update()
    assert.equal(bt.SUCCESS, X.status)
    tree:Reset()
    for _, e in ipairs(tree:snapshot()) do
      assert.equal(bt.READY, e.status, e.name)
    end
  end)
end)

describe("tree:Stop", function()
  after_each(H.restore)

  it("calls every node's OnStop in pre-order, and changes no status", function()
    local order = {}
    local A, B, C = H.leaf("A", bt.SUCCESS), H.leaf("B", bt.RUNNING), H.leaf("C", bt.RUNNING)
    local seq = bt.SequenceNode { A, B }
    local root = bt.PriorityNode({ seq, C }, 1, true)
    for _, n in ipairs({ root, seq, A, B, C }) do
      n.OnStop = function(self) order[#order + 1] = self.name end
    end
    local tree = bt.BT({}, root)
    tree:Update()
    local before = H.snap(tree)
    tree:Stop()
    assert.same({ "Priority", "Sequence", "A", "B", "C" }, order)
    assert.same(before, H.snap(tree))
  end)

  it("works from inside a think: every OnStop runs and the think goes on", function()
    local inst = H.entity()
    local order = {}
    local tree
    local errs = H.errors()
    local after = H.leaf("After", bt.RUNNING)
    local stopper = bt.ActionNode(function() tree:Stop() end, "Stopper")
    local E = bt.EventNode(inst, "ev", H.leaf("Child", bt.RUNNING))
    local root = bt.SequenceNode { stopper, after, E }
    root.OnStop = function() order[#order + 1] = "root" end
    stopper.OnStop = function() order[#order + 1] = "stopper" end
    after.OnStop = function() order[#order + 1] = "after" end
    tree = bt.BT(inst, root)
    tree:Update()
    assert.same({ "root", "stopper", "after" }, order)
    assert.equal(1, #inst.removes)
    assert.equal(1, after.visits)
    assert.equal(bt.SUCCESS, stopper.lastresult)
    assert.equal(bt.RUNNING, root.lastresult)
    assert.same({}, errs)
  end)
end)

describe("re-entering a tree from inside its own think (Update; Reset does what Don't Starve's does: reset_inside_spec.lua)", function()
  after_each(H.restore)

  local function nested(method)
    local errs = H.errors()
    local tree
    local armed = true
    local after = H.leaf("After", bt.RUNNING)
    local nestednode = bt.ActionNode(function()
      if armed then
        armed = false
        tree[method](tree)
      end
    end, "Nested")
    local root = bt.SelectorNode { nestednode, after }
    tree = bt.BT({}, root)
    tree:Update()
    return { errs = errs, tree = tree, after = after, nested = nestednode, root = root }
  end

  for _, method in ipairs({ "Update" }) do
    it(method .. " is an error handled like any script error: the node fails, the think goes on, the tree stays consistent", function()
      local s = nested(method)
      assert.equal(1, #s.errs)
      assert.is_truthy(s.errs[1]:find("Selector/Nested", 1, true))
      assert.equal(bt.FAILED, s.nested.lastresult)
      assert.equal(1, s.after.visits)
      assert.equal(bt.RUNNING, s.root.lastresult)
      assert.same({
        "0 Selector RUNNING RUNNING",
        "1 Nested READY FAILED",
        "1 After RUNNING RUNNING",
      }, H.snap(s.tree))
      s.tree:Update()
      assert.equal(2, s.after.visits)
      assert.equal(1, #s.errs)
      assert.equal(bt.RUNNING, s.root.lastresult)
    end)

    it(method .. " from inside the think raises an error that the script can catch", function()
      local errs = H.errors()
      local tree
      local ok, msg
      local root = bt.SequenceNode {
        bt.ActionNode(function() ok, msg = pcall(tree[method], tree) end, "Catch"),
        H.leaf("After", bt.RUNNING),
      }
      tree = bt.BT({}, root)
      tree:Update()
      assert.is_false(ok)
      assert.is_not_nil(msg)
      assert.same({}, errs)
      assert.equal(bt.RUNNING, root.lastresult)
    end)
  end
end)

describe("tree:snapshot", function()
  after_each(H.restore)

  it("is an array in pre-order of {depth, name, status, last[, dbstring][, sleep]}, the root at depth 0", function()
    local tree = bt.BT({}, bt.SequenceNode {
      bt.NotDecorator(H.leaf("A", bt.FAILED)),
      bt.WhileNode(function() return true end, "Ok", H.leaf("B", bt.RUNNING)),
    })
    tree:Update()
    local snap = tree:snapshot()
    assert.same({
      -- a running Sequence says which child runs (2); running leaves sleep 0 (think every tick)
      { depth = 0, name = "Sequence", status = "RUNNING", last = "RUNNING", dbstring = "2", sleep = 0 },
      { depth = 1, name = "Not", status = "READY", last = "SUCCESS" },
      { depth = 2, name = "A", status = "READY", last = "FAILED" },
      { depth = 1, name = "Parallel", status = "RUNNING", last = "RUNNING", sleep = 0 },
      { depth = 2, name = "Ok", status = "READY", last = "SUCCESS" },
      { depth = 2, name = "B", status = "RUNNING", last = "RUNNING", sleep = 0 },
    }, snap)
  end)

  it("before any think shows every node READY <READY>", function()
    local tree = bt.BT({}, bt.PriorityNode({ bt.ActionNode(function() end, "Act") }, 1, true))
    assert.same({
      { depth = 0, name = "Priority", status = "READY", last = "READY", sleep = 0 },
      { depth = 1, name = "Act", status = "READY", last = "READY" },
    }, tree:snapshot())
  end)
end)

describe("node objects of a tree built for one entity", function()
  it("are the objects the script holds, found again after a collection", function()
    local leaf = bt.ActionNode(function() end, "Leaf")
    local mid = bt.SequenceNode { leaf }
    local root = bt.PriorityNode({ bt.SelectorNode { mid } }, 1, true)
    local tree = bt.BT({}, root)
    collectgarbage()
    collectgarbage()
    assert.equal(root, tree.root)
    assert.equal(mid, leaf.parent)
    assert.equal(leaf, mid.children[1])
    -- the script let go of the Selector's object: a view of its state stands for it, the same
    -- one while it is held
    local sel = mid.parent
    assert.equal("Selector", sel.name)
    assert.equal(sel, mid.parent)
    assert.equal(root, sel.parent)
    assert.equal(mid, sel.children[1])
    tree:Update()
    assert.equal(bt.SUCCESS, leaf.lastresult)
    assert.equal(bt.SUCCESS, sel.lastresult)
  end)
end)

describe("shared nodes", function()
  after_each(H.restore)

  it("a node under two parents has one state and is visited at each place", function()
    local S = H.leaf("Shared", bt.SUCCESS)
    local s1 = bt.SequenceNode { S }
    local s2 = bt.SelectorNode { S }
    local tree = bt.BT({}, bt.SequenceNode { s1, s2 })
    tree:Update()
    assert.equal(2, S.visits)
    -- the second visit starts from the state the first one left (no Step in between)
    assert.same({ bt.READY, bt.SUCCESS }, S.entries)
    assert.equal(s2, S.parent)
  end)

  it("shows at each place in snapshots and dumps", function()
    local S = H.leaf("Shared", bt.RUNNING)
    local tree = bt.BT({}, bt.ParallelNode {
      bt.NotDecorator(S),
      bt.FailIfSuccessDecorator(S),
    })
    tree:Update()
    assert.same({
      "0 Parallel RUNNING RUNNING",
      "1 Not RUNNING RUNNING",
      "2 Shared RUNNING RUNNING",
      "1 FailIfSuccess RUNNING RUNNING",
      "2 Shared RUNNING RUNNING",
    }, H.snap(tree))
    assert.equal(H.dump {
      "Parallel - RUNNING <RUNNING> ()>0.00",
      "   >Not - RUNNING <RUNNING> ()>0.00",
      "   >   >Shared - RUNNING <RUNNING> ()>0.00",
      "   >FailIfSuccess - RUNNING <RUNNING> ()>0.00",
      "   >   >Shared - RUNNING <RUNNING> ()>0.00",
    }, tostring(tree))
  end)

  it("a reset through one place shows at the other", function()
    local s = bt.RUNNING
    local S = H.leaf("Shared", function() return s end)
    local root = bt.SequenceNode { bt.SequenceNode { S }, bt.SelectorNode { S } }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.equal(bt.RUNNING, S.status)
    tree:Reset()
    local snap = H.snap(tree)
    assert.equal("2 Shared READY RUNNING", snap[3])
    assert.equal("2 Shared READY RUNNING", snap[5])
  end)

  it("Stop reaches the shared node at each place", function()
    local S = H.leaf("Shared", bt.SUCCESS)
    local n = 0
    S.OnStop = function() n = n + 1 end
    local tree = bt.BT({}, bt.SequenceNode { bt.SequenceNode { S }, bt.SequenceNode { S } })
    tree:Stop()
    assert.equal(2, n)
  end)
end)

describe("wrapping nodes in a second BT", function()
  after_each(H.restore)

  it("is an error for the root, a subtree, or a node of the first tree under a new parent", function()
    local leaf = H.leaf("Leaf", bt.RUNNING)
    local mid = bt.SequenceNode { leaf }
    local root = bt.SelectorNode { mid }
    local tree = bt.BT({}, root)
    assert.has_error(function() bt.BT({}, root) end)
    assert.has_error(function() bt.BT({}, mid) end)
    assert.has_error(function() bt.BT({}, leaf) end)
    assert.has_error(function() bt.BT({}, bt.ParallelNode { leaf }) end)
    tree:Update()
    assert.equal(bt.RUNNING, root.lastresult)
    assert.equal(1, leaf.visits)
  end)
end)
