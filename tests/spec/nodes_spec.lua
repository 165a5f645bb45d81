-- SPDX-License-Identifier: MIT
-- The semantics of each node kind, think by think (Don't Starve's behaviourtree.lua), except
-- PriorityNode, ParallelNode and EventNode, which have spec files of their own.

local H = require "helpers"
local bt = H.bt

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
  return t
end

describe("SequenceNode", function()
  after_each(H.restore)

  it("stops at a RUNNING child and resumes there without re-checking earlier children", function()
    local log = {}
    local b = bt.RUNNING
    local A = H.leaf("A", bt.SUCCESS, log)
    local B = H.leaf("B", function() return b end, log)
    local C = H.leaf("C", bt.FAILED, log)
    local seq = bt.SequenceNode { A, B, C }
    local tree = bt.BT({}, seq)

    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.RUNNING, seq.status)
    assert.equal(bt.RUNNING, seq.lastresult)
    assert.equal(bt.READY, A.status)
    assert.equal(bt.SUCCESS, A.lastresult)
    assert.equal(bt.READY, C.lastresult)

    clear(log)
    b = bt.SUCCESS
    tree:Update()
    assert.same({ "B", "C" }, log)
    assert.equal(bt.FAILED, seq.lastresult)
    assert.equal(bt.READY, seq.status)
    -- A was not visited; SaveStatus still copies its READY status.
    assert.equal(bt.READY, A.lastresult)
    assert.equal(bt.SUCCESS, B.lastresult)
    assert.equal(bt.FAILED, C.lastresult)
    assert.equal(bt.READY, B.status)
    assert.equal(bt.READY, C.status)
  end)

  it("succeeds when every child succeeds, and starts again from the first child", function()
    local log = {}
    local seq = bt.SequenceNode { H.leaf("A", bt.SUCCESS, log), H.leaf("B", bt.SUCCESS, log) }
    local tree = bt.BT({}, seq)
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.SUCCESS, seq.lastresult)
    assert.equal(bt.READY, seq.status)
    tree:Update()
    assert.same({ "A", "B", "A", "B" }, log)
  end)

  it("fails at the first FAILED child without visiting the rest", function()
    local log = {}
    local seq = bt.SequenceNode { H.leaf("A", bt.FAILED, log), H.leaf("B", bt.SUCCESS, log) }
    local tree = bt.BT({}, seq)
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.FAILED, seq.lastresult)
  end)

  it("treats a child left READY as a success", function()
    local log = {}
    local seq = bt.SequenceNode { H.leaf("A", bt.READY, log), H.leaf("B", bt.RUNNING, log) }
    local tree = bt.BT({}, seq)
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.RUNNING, seq.lastresult)
  end)
end)

describe("SelectorNode", function()
  after_each(H.restore)

  it("moves on after FAILED, stops at RUNNING and resumes there", function()
    local log = {}
    local b = bt.RUNNING
    local A = H.leaf("A", bt.FAILED, log)
    local B = H.leaf("B", function() return b end, log)
    local C = H.leaf("C", bt.SUCCESS, log)
    local sel = bt.SelectorNode { A, B, C }
    local tree = bt.BT({}, sel)
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.RUNNING, sel.lastresult)
    clear(log)
    b = bt.FAILED
    tree:Update()
    assert.same({ "B", "C" }, log)
    assert.equal(bt.SUCCESS, sel.lastresult)
    assert.equal(bt.READY, sel.status)
  end)

  it("stops at the first SUCCESS", function()
    local log = {}
    local sel = bt.SelectorNode { H.leaf("A", bt.SUCCESS, log), H.leaf("B", bt.SUCCESS, log) }
    local tree = bt.BT({}, sel)
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.SUCCESS, sel.lastresult)
  end)

  it("fails when every child fails", function()
    local log = {}
    local sel = bt.SelectorNode { H.leaf("A", bt.FAILED, log), H.leaf("B", bt.FAILED, log) }
    local tree = bt.BT({}, sel)
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.FAILED, sel.lastresult)
  end)
end)

describe("decorators", function()
  after_each(H.restore)

  local table_of = {
    { "NotDecorator", bt.NotDecorator,
      { SUCCESS = "FAILED", FAILED = "SUCCESS", RUNNING = "RUNNING", READY = "READY" } },
    { "FailIfRunningDecorator", bt.FailIfRunningDecorator,
      { SUCCESS = "SUCCESS", FAILED = "FAILED", RUNNING = "FAILED", READY = "READY" } },
    { "FailIfSuccessDecorator", bt.FailIfSuccessDecorator,
      { SUCCESS = "FAILED", FAILED = "FAILED", RUNNING = "RUNNING", READY = "READY" } },
  }
  for _, case in ipairs(table_of) do
    for _, child_status in ipairs({ "SUCCESS", "FAILED", "RUNNING", "READY" }) do
      it(case[1] .. " turns a child's " .. child_status .. " into " .. case[3][child_status], function()
        local child = H.leaf("Child", child_status)
        local dec = case[2](child)
        local tree = bt.BT({}, dec)
        tree:Update()
        assert.equal(1, child.visits)
        assert.equal(case[3][child_status], dec.lastresult)
        assert.equal(child_status, child.lastresult)
      end)
    end
  end

  it("FailIfRunningDecorator lets Step reset its running child, which restarts each think", function()
    local child = H.leaf("Face", bt.RUNNING)
    local dec = bt.FailIfRunningDecorator(child)
    local tree = bt.BT({}, dec)
    tree:Update()
    assert.equal(bt.READY, child.status)
    assert.equal(bt.RUNNING, child.lastresult)
    tree:Update()
    assert.same({ bt.READY, bt.READY }, child.entries)
  end)
end)

describe("LoopNode", function()
  after_each(H.restore)

  it("leaves its status unassigned (READY) when a whole pass ends in its first visit; a Sequence moves on", function()
    local log = {}
    local A, B = H.leaf("A", bt.SUCCESS, log), H.leaf("B", bt.SUCCESS, log)
    local loop = bt.LoopNode { A, B }
    local C = H.leaf("C", bt.RUNNING, log)
    local root = bt.SequenceNode { loop, C }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.same({ "A", "B", "C" }, log)
    assert.equal(bt.READY, loop.lastresult)
    assert.equal(bt.RUNNING, root.lastresult)
    -- the loop reset its children inside the visit, before SaveStatus
    assert.equal(bt.READY, A.lastresult)
    assert.equal(bt.READY, B.lastresult)
  end)

  it("READY counts as not chosen under a Priority", function()
    local log = {}
    local loop = bt.LoopNode { H.leaf("A", bt.SUCCESS, log) }
    local C = H.leaf("C", bt.RUNNING, log)
    local root = bt.PriorityNode({ loop, C }, 1, true)
    local tree = bt.BT({}, root)
    tree:Update()
    assert.same({ "A", "C" }, log)
    assert.equal(bt.READY, loop.lastresult)
    assert.equal(bt.RUNNING, C.status)
    assert.equal(bt.RUNNING, root.status)
  end)

  it("stays RUNNING when a pass ends while it runs, and starts the next pass on the next visit", function()
    local log = {}
    local W = H.leaf("W", { bt.RUNNING, bt.SUCCESS, bt.RUNNING }, log)
    local B = H.leaf("B", bt.SUCCESS, log)
    local loop = bt.LoopNode { W, B }
    local tree = bt.BT({}, loop)
    tree:Update()
    assert.same({ "W" }, log)
    assert.equal(bt.RUNNING, loop.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "W", "B" }, log)
    assert.equal(bt.RUNNING, loop.status)
    assert.equal(bt.RUNNING, loop.lastresult)
    assert.equal(bt.READY, W.lastresult)
    assert.equal(bt.READY, B.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "W" }, log)
    assert.same({ bt.READY, bt.RUNNING, bt.READY }, W.entries)
    assert.equal(bt.RUNNING, loop.lastresult)
  end)

  it("succeeds after maxreps passes made while it runs", function()
    local log = {}
    local W = H.leaf("W", { bt.RUNNING, bt.SUCCESS, bt.SUCCESS }, log)
    local B = H.leaf("B", bt.SUCCESS, log)
    local loop = bt.LoopNode({ W, B }, 2)
    local tree = bt.BT({}, loop)
    tree:Update()
    assert.equal(bt.RUNNING, loop.lastresult)
    tree:Update()
    assert.equal(bt.RUNNING, loop.lastresult)
    tree:Update()
    assert.equal(bt.SUCCESS, loop.lastresult)
    assert.equal(bt.READY, loop.status)
    assert.same({ "W", "W", "B", "W", "B" }, log)
  end)

  it("never reaches maxreps when every pass ends in an entering visit (rep restarts at 0)", function()
    local log = {}
    local loop = bt.LoopNode({ H.leaf("A", bt.SUCCESS, log), H.leaf("B", bt.SUCCESS, log) }, 2)
    local tree = bt.BT({}, loop)
    for _ = 1, 3 do
      tree:Update()
      assert.equal(bt.READY, loop.lastresult)
    end
    assert.same({ "A", "B", "A", "B", "A", "B" }, log)
  end)

  it("with maxreps 1 succeeds after one pass", function()
    local loop = bt.LoopNode({ H.leaf("A", bt.SUCCESS) }, 1)
    local tree = bt.BT({}, loop)
    tree:Update()
    assert.equal(bt.SUCCESS, loop.lastresult)
  end)

  it("takes a child's FAILED", function()
    local log = {}
    local loop = bt.LoopNode({ H.leaf("A", bt.SUCCESS, log), H.leaf("F", bt.FAILED, log), H.leaf("C", bt.SUCCESS, log) }, 3)
    local tree = bt.BT({}, loop)
    tree:Update()
    assert.equal(bt.FAILED, loop.lastresult)
    assert.same({ "A", "F" }, log)
  end)
end)

describe("RandomNode", function()
  after_each(H.restore)

  local names = { "A", "B", "C" }

  it("draws math.random(#children) once on a READY visit and tries the children cyclically from there", function()
    local starts = {}
    for seed = 1, 24 do
      local log = {}
      local node = bt.RandomNode {
        H.leaf("A", bt.FAILED, log), H.leaf("B", bt.FAILED, log), H.leaf("C", bt.SUCCESS, log),
      }
      local tree = bt.BT({}, node)
      math.randomseed(seed)
      local start = math.random(3)
      local after = math.random()
      starts[start] = true
      local expected = {}
      for i = start, 3 do expected[#expected + 1] = names[i] end
      math.randomseed(seed)
      tree:Update()
      assert.same(expected, log)
      assert.equal(bt.SUCCESS, node.lastresult)
      assert.equal(after, math.random())
    end
    assert.is_true(starts[1] and starts[2] and starts[3], "seeds should cover every start")
  end)

  it("fails after trying every child once, wrapping around", function()
    for seed = 1, 12 do
      local log = {}
      local node = bt.RandomNode {
        H.leaf("A", bt.FAILED, log), H.leaf("B", bt.FAILED, log), H.leaf("C", bt.FAILED, log),
      }
      local tree = bt.BT({}, node)
      math.randomseed(seed)
      local start = math.random(3)
      local after = math.random()
      local expected = {}
      for k = 0, 2 do expected[#expected + 1] = names[(start - 1 + k) % 3 + 1] end
      math.randomseed(seed)
      tree:Update()
      assert.same(expected, log)
      assert.equal(bt.FAILED, node.lastresult)
      assert.equal(after, math.random())
    end
  end)

  it("while RUNNING visits only the chosen child and draws nothing", function()
    local log = {}
    local node = bt.RandomNode {
      H.leaf("A", bt.RUNNING, log), H.leaf("B", bt.RUNNING, log), H.leaf("C", bt.RUNNING, log),
    }
    local tree = bt.BT({}, node)
    math.randomseed(99)
    local start = math.random(3)
    math.randomseed(99)
    tree:Update()
    assert.same({ names[start] }, log)
    assert.equal(bt.RUNNING, node.status)
    math.randomseed(5)
    local first = math.random()
    math.randomseed(5)
    tree:Update()
    tree:Update()
    assert.same({ names[start], names[start], names[start] }, log)
    assert.equal(first, math.random())
  end)

  it("draws again after Step reset it", function()
    local log = {}
    local node = bt.RandomNode { H.leaf("A", bt.SUCCESS, log), H.leaf("B", bt.SUCCESS, log), H.leaf("C", bt.SUCCESS, log) }
    local tree = bt.BT({}, node)
    math.randomseed(1234)
    local r1, r2, r3 = math.random(3), math.random(3), math.random()
    math.randomseed(1234)
    tree:Update()
    tree:Update()
    assert.same({ names[r1], names[r2] }, log)
    assert.equal(r3, math.random())
  end)

  it("visited again while SUCCESS, visits children[idx] without drawing", function()
    for seed = 1, 8 do
      local log = {}
      local node = bt.RandomNode { H.leaf("A", bt.FAILED, log), H.leaf("B", bt.SUCCESS, log) }
      local twice = H.Twice(node)
      local tree = bt.BT({}, twice)
      math.randomseed(seed)
      local start = math.random(2)
      local after = math.random()
      math.randomseed(seed)
      tree:Update()
      if start == 1 then
        assert.same({ "A", "B", "B" }, log)
      else
        assert.same({ "B", "B" }, log)
      end
      assert.equal(bt.SUCCESS, twice.lastresult)
      assert.equal(after, math.random())
    end
  end)

  it("visited again while FAILED, visits children[idx] (the start) without drawing", function()
    for seed = 1, 8 do
      local log = {}
      local node = bt.RandomNode { H.leaf("A", bt.FAILED, log), H.leaf("B", bt.FAILED, log) }
      local tree = bt.BT({}, H.Twice(node))
      math.randomseed(seed)
      local start = math.random(2)
      local after = math.random()
      math.randomseed(seed)
      tree:Update()
      local other = start == 1 and "B" or "A"
      assert.same({ names[start], other, names[start] }, log)
      assert.equal(after, math.random())
    end
  end)
end)

describe("ConditionNode, ConditionWaitNode, ActionNode", function()
  after_each(H.restore)

  it("ConditionNode succeeds on a truthy result and fails otherwise, never RUNNING", function()
    for _, case in ipairs({
      { true, "SUCCESS" }, { 0, "SUCCESS" }, { "", "SUCCESS" }, { {}, "SUCCESS" },
      { false, "FAILED" }, { nil, "FAILED" },
    }) do
      local node = bt.ConditionNode(function() return case[1] end)
      local tree = bt.BT({}, node)
      tree:Update()
      assert.equal(case[2], node.lastresult)
      assert.equal(bt.READY, node.status)
    end
  end)

  it("ConditionWaitNode is RUNNING until its function is truthy, and never sleeps", function()
    local c = H.clock(0)
    local ready = false
    local w = bt.ConditionWaitNode(function() return ready end)
    local root = bt.SequenceNode { w }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.equal(bt.RUNNING, w.status)
    assert.equal(0, tree:GetSleepTime())
    c.t = 10
    assert.equal(0, tree:GetSleepTime())
    ready = true
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
    assert.equal(bt.SUCCESS, root.lastresult)
    assert.is_nil(tree:GetSleepTime())
  end)

  it("ActionNode calls its function on every visit and succeeds whatever it returns", function()
    local calls = 0
    local rets = { false, nil, bt.FAILED, bt.RUNNING, true }
    for i = 1, 5 do
      local ret = rets[i]
      local node = bt.ActionNode(function() calls = calls + 1; return ret end)
      local tree = bt.BT({}, node)
      tree:Update()
      tree:Update()
      assert.equal(bt.SUCCESS, node.lastresult)
    end
    assert.equal(10, calls)
  end)
end)

describe("MultiConditionNode", function()
  after_each(H.restore)

  it("calls start until it holds, then continue; the running flag survives Reset (as written)", function()
    local calls = {}
    local start_result, continue_result = true, false
    local mc = bt.MultiConditionNode(
      function() calls[#calls + 1] = "start"; return start_result end,
      function() calls[#calls + 1] = "continue"; return continue_result end)
    local root = bt.SequenceNode { mc, bt.ActionNode(function() end) }
    local tree = bt.BT({}, root)

    tree:Update()
    assert.same({ "start" }, calls)
    assert.equal(bt.SUCCESS, mc.lastresult)
    assert.equal(bt.READY, mc.status) -- reset by Step

    tree:Update()
    assert.same({ "start", "continue" }, calls)
    assert.equal(bt.FAILED, mc.lastresult)

    start_result = false
    tree:Update()
    assert.same({ "start", "continue", "start" }, calls)
    assert.equal(bt.FAILED, mc.lastresult)
    tree:Update()
    assert.same({ "start", "continue", "start", "start" }, calls)

    start_result, continue_result = true, true
    tree:Update()
    tree:Reset()
    tree:Update()
    tree:Update()
    assert.same({ "start", "continue", "start", "start", "start", "continue", "continue" }, calls)
    assert.equal(bt.SUCCESS, mc.lastresult)
  end)
end)

describe("WaitNode", function()
  after_each(H.restore)

  it("runs for its time; a RUNNING WaitNode's sleep time is its true remaining time (deviation 1)", function()
    local c = H.clock(0)
    local w = bt.WaitNode(2)
    local root = bt.SequenceNode { w }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.equal(bt.RUNNING, w.status)
    assert.near(2, tree:GetSleepTime(), 1e-12)
    c.t = 0.5
    assert.near(1.5, tree:GetSleepTime(), 1e-12)
    c.t = 1.5
    tree:Update()
    assert.equal(bt.RUNNING, w.lastresult)
    assert.near(0.5, tree:GetSleepTime(), 1e-12)
    c.t = 2
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
    assert.equal(bt.SUCCESS, root.lastresult)
    assert.is_nil(tree:GetSleepTime())
  end)

  it("WaitNode(0) succeeds in its first visit", function()
    H.clock(3)
    local w = bt.WaitNode(0)
    local tree = bt.BT({}, w)
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
  end)

  it("compares now >= start + time in doubles, as Don't Starve computes it", function()
    local c = H.clock(0.5)
    local w = bt.WaitNode(0.1)
    local tree = bt.BT({}, bt.SequenceNode { w })
    tree:Update()
    assert.equal(bt.RUNNING, w.lastresult)
    -- 0.5 + 0.1 is 0.59999999999999998; 0.6 - 0.5 < 0.1, yet the wait is over.
    c.t = 0.5 + 0.1
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
  end)

  it("a time function is called with no arguments, once per entry", function()
    local c = H.clock(0)
    local calls, nargs = 0, {}
    local w = bt.WaitNode(function(...)
      calls = calls + 1
      nargs[#nargs + 1] = select("#", ...)
      return 3
    end)
    local tree = bt.BT({ inst = true }, bt.SequenceNode { w })
    tree:Update()
    c.t = 1
    tree:Update()
    c.t = 2.5
    tree:Update()
    assert.equal(1, calls)
    c.t = 3
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
    c.t = 4
    tree:Update()
    assert.equal(2, calls)
    assert.same({ 0, 0 }, nargs)
    c.t = 6.5
    tree:Update()
    assert.equal(bt.RUNNING, w.lastresult)
    c.t = 7
    tree:Update()
    assert.equal(bt.SUCCESS, w.lastresult)
  end)
end)

describe("LatchNode", function()
  after_each(H.restore)

  it("starts only when now > lastlatchtime + duration, a cooldown measured from entry", function()
    local c = H.clock(0)
    local A = H.leaf("A", bt.SUCCESS)
    local latch = bt.LatchNode({}, 5, A)
    local tree = bt.BT({}, latch)
    tree:Update()
    assert.equal(bt.SUCCESS, latch.lastresult)
    assert.equal(1, A.visits)
    c.t = 3
    tree:Update()
    assert.equal(bt.FAILED, latch.lastresult)
    assert.equal(1, A.visits)
    c.t = 5
    tree:Update()
    assert.equal(bt.FAILED, latch.lastresult)
    assert.equal(1, A.visits)
    c.t = 5.5
    tree:Update()
    assert.equal(bt.SUCCESS, latch.lastresult)
    assert.equal(2, A.visits)
  end)

  it("copies its child's status while RUNNING, whatever the time", function()
    local c = H.clock(0)
    local A = H.leaf("A", { bt.RUNNING, bt.RUNNING, bt.FAILED, bt.SUCCESS })
    local latch = bt.LatchNode({}, 5, A)
    local tree = bt.BT({}, latch)
    tree:Update()
    assert.equal(bt.RUNNING, latch.lastresult)
    c.t = 1
    tree:Update()
    assert.equal(bt.RUNNING, latch.lastresult)
    c.t = 2
    tree:Update()
    assert.equal(bt.FAILED, latch.lastresult)
    assert.equal(3, A.visits)
    c.t = 4.75
    tree:Update()
    assert.equal(bt.FAILED, latch.lastresult)
    assert.equal(3, A.visits)
    c.t = 5.25
    tree:Update()
    assert.equal(bt.SUCCESS, latch.lastresult)
    assert.equal(4, A.visits)
  end)

  it("draws its duration function with the LatchNode's inst, once per start", function()
    local c = H.clock(0)
    local latch_inst, tree_inst = { "latch" }, { "tree" }
    local durations = { 2, 4, 1 }
    local got = {}
    local A = H.leaf("A", bt.SUCCESS)
    local latch = bt.LatchNode(latch_inst, function(...)
      got[#got + 1] = { n = select("#", ...), inst = (...) }
      return durations[#got]
    end, A)
    local tree = bt.BT(tree_inst, latch)
    tree:Update()     -- t = 0: starts, duration 2
    c.t = 1
    tree:Update()     -- 1 > 0 + 2 is false
    c.t = 2.5
    tree:Update()     -- starts, duration 4
    c.t = 6
    tree:Update()     -- 6 > 2.5 + 4 is false
    c.t = 7
    tree:Update()     -- starts, duration 1
    assert.equal(3, A.visits)
    assert.equal(3, #got)
    for _, g in ipairs(got) do
      assert.equal(1, g.n)
      assert.equal(latch_inst, g.inst)
    end
  end)

  it("does nothing when visited while SUCCESS or FAILED", function()
    H.clock(0)
    local A = H.leaf("A", bt.SUCCESS)
    local latch = bt.LatchNode({}, 5, A)
    local twice = H.Twice(latch)
    local tree = bt.BT({}, twice)
    tree:Update()
    assert.equal(1, A.visits)
    assert.equal(bt.SUCCESS, latch.lastresult)
    assert.equal(bt.SUCCESS, twice.lastresult)
  end)
end)

describe("IfNode and WhileNode", function()
  after_each(H.restore)

  it("IfNode checks its condition only on entry", function()
    local cond_calls, ok = 0, true
    local log = {}
    local body = H.leaf("Body", { bt.RUNNING, bt.RUNNING, bt.SUCCESS, bt.RUNNING }, log)
    local node = bt.IfNode(function() cond_calls = cond_calls + 1; return ok end, "Ok", body)
    local tree = bt.BT({}, node)
    tree:Update()
    assert.equal(1, cond_calls)
    ok = false
    tree:Update()
    tree:Update()
    assert.equal(1, cond_calls)
    assert.equal(3, body.visits)
    assert.equal(bt.SUCCESS, node.lastresult)
    tree:Update()
    assert.equal(2, cond_calls)
    assert.equal(3, body.visits)
    assert.equal(bt.FAILED, node.lastresult)
  end)

  it("WhileNode re-tests its condition on every think and fails at once when it turns false", function()
    local cond_calls, ok = 0, true
    local body = H.leaf("Body", bt.RUNNING)
    local node = bt.WhileNode(function() cond_calls = cond_calls + 1; return ok end, "Ok", body)
    local tree = bt.BT({}, node)
    tree:Update()
    tree:Update()
    assert.equal(2, cond_calls)
    assert.equal(2, body.visits)
    assert.equal(bt.RUNNING, node.lastresult)
    ok = false
    tree:Update()
    assert.equal(3, cond_calls)
    assert.equal(2, body.visits)
    assert.equal(bt.FAILED, node.lastresult)
    assert.equal(bt.READY, body.status)
    assert.equal(bt.READY, node.status)
  end)
end)

describe("what the functions given to nodes receive", function()
  after_each(H.restore)

  it("Condition, ConditionWait, Action, While and If conditions, MultiCondition start and continue get the tree's inst", function()
    local inst = { "the inst" }
    local got = {}
    local function rec(tag, ret)
      return function(...)
        got[#got + 1] = { tag = tag, n = select("#", ...), first = (...) }
        return ret
      end
    end
    local mc = bt.MultiConditionNode(rec("start", true), rec("continue", true), "MC")
    local root = bt.SequenceNode {
      bt.ConditionNode(rec("condition", true)),
      bt.ConditionWaitNode(rec("conditionwait", true)),
      bt.ActionNode(rec("action")),
      bt.WhileNode(rec("while", true), "W", bt.ActionNode(rec("whilebody"))),
      bt.IfNode(rec("if", true), "I", bt.ActionNode(rec("ifbody"))),
      mc,
    }
    local tree = bt.BT(inst, root)
    tree:Update()
    tree:Update()
    local tags = {}
    for _, g in ipairs(got) do
      tags[g.tag] = true
      assert.is_true(g.n >= 1, g.tag .. " got no argument")
      assert.equal(inst, g.first, g.tag .. " did not get the tree's inst")
    end
    for _, tag in ipairs({ "condition", "conditionwait", "action", "while", "whilebody", "if", "ifbody", "start", "continue" }) do
      assert.is_true(tags[tag] == true, tag .. " was not called")
    end
  end)
end)
