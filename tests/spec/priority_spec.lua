-- SPDX-License-Identifier: MIT
-- PriorityNode, think by think with a controlled clock (Don't Starve's behaviourtree.lua).

local H = require "helpers"
local bt = H.bt

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
  return t
end

describe("PriorityNode construction and scatter", function()
  after_each(H.restore)

  it("calls math.random() once unless noscatter", function()
    local leaf = H.leaf("A", bt.RUNNING)
    math.randomseed(42)
    local r1, r2 = math.random(), math.random()
    math.randomseed(42)
    bt.PriorityNode({ leaf }, 2)
    assert.equal(r2, math.random())
    math.randomseed(42)
    bt.PriorityNode({ H.leaf("B", bt.RUNNING) }, 2, true)
    assert.equal(r1, math.random())
    math.randomseed(42)
    bt.PriorityNode({ H.leaf("C", bt.RUNNING) })
    assert.equal(r2, math.random())
  end)

  it("sets lasttime = period*0.5 + period*random(), an absolute time: the first evaluation waits until lasttime + period < now", function()
    local period = 2
    math.randomseed(7)
    local r = math.random()
    math.randomseed(7)
    local log = {}
    local A = H.leaf("A", bt.RUNNING, log)
    local p = bt.PriorityNode({ A }, period)
    local lasttime = period * 0.5 + (period * r)
    local c = H.clock(0)
    local tree = bt.BT({}, p)
    tree:Update()
    assert.same({}, log)
    assert.equal(bt.READY, p.lastresult)
    c.t = lasttime + period
    tree:Update()
    assert.same({}, log)
    c.t = lasttime + period + 1e-6
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.RUNNING, p.lastresult)
  end)

  it("defaults period to 1 (lasttime = 0.5 + random())", function()
    math.randomseed(11)
    local r = math.random()
    math.randomseed(11)
    local log = {}
    local p = bt.PriorityNode({ H.leaf("A", bt.RUNNING, log) })
    local lasttime = 1 * 0.5 + (1 * r)
    local c = H.clock(lasttime + 1)
    local tree = bt.BT({}, p)
    tree:Update()
    assert.same({}, log)
    c.t = lasttime + 1 + 1e-6
    tree:Update()
    assert.same({ "A" }, log)
  end)

  it("evaluates at once on its first visit later in a game (as written)", function()
    local log = {}
    local p = bt.PriorityNode({ H.leaf("A", bt.RUNNING, log) }, .25)
    H.clock(1000)
    local tree = bt.BT({}, p)
    tree:Update()
    assert.same({ "A" }, log)
  end)

  it("with noscatter evaluates on its first visit, even at time 0", function()
    local log = {}
    local p = bt.PriorityNode({ H.leaf("A", bt.RUNNING, log) }, 5, true)
    H.clock(0)
    local tree = bt.BT({}, p)
    tree:Update()
    assert.same({ "A" }, log)
  end)
end)

describe("PriorityNode evaluation", function()
  after_each(H.restore)

  local c, log, a, b, A, B, C, p, tree
  before_each(function()
    c = H.clock(0)
    log = {}
    a, b = bt.FAILED, bt.RUNNING
    A = H.leaf("A", function() return a end, log)
    B = H.leaf("B", function(self) self:Sleep(5); return b end, log)
    C = H.leaf("C", bt.RUNNING, log)
    p = bt.PriorityNode({ A, B, C }, 1, true)
    tree = bt.BT({}, p)
  end)

  it("picks the first child that is SUCCESS or RUNNING and leaves the rest unvisited", function()
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.RUNNING, p.status)
    assert.equal(bt.FAILED, A.lastresult)
    assert.equal(bt.READY, A.status)
    assert.equal(bt.RUNNING, B.status)
    assert.equal(bt.READY, C.lastresult)
    assert.equal(0, C.visits)
  end)

  it("between evaluations visits only the running child; re-evaluates only when lasttime + period < now", function()
    tree:Update()
    clear(log)
    a = bt.SUCCESS
    c.t = 0.5
    tree:Update()
    assert.same({ "B" }, log)
    c.t = 1
    tree:Update()
    assert.same({ "B", "B" }, log)
    assert.equal(bt.RUNNING, p.lastresult)
    c.t = 1.25
    tree:Update()
    -- A wins; B, a lower child, is reset (interrupted) in the same pass.
    assert.same({ "B", "B", "A" }, log)
    assert.equal(bt.SUCCESS, p.lastresult)
    assert.equal(bt.READY, p.status)
    assert.equal(bt.READY, B.status)
    assert.equal(bt.READY, B.lastresult)
    assert.equal(bt.SUCCESS, A.lastresult)
  end)

  it("after an evaluation that ends SUCCESS or FAILED, does nothing until a period has passed (READY, polled every tick)", function()
    a = bt.SUCCESS
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.SUCCESS, p.lastresult)
    assert.equal(0, tree:GetSleepTime())
    clear(log)
    for _, t in ipairs({ 0.25, 0.5, 1 }) do
      c.t = t
      tree:Update()
      assert.same({}, log)
      assert.equal(bt.READY, p.lastresult)
      assert.equal(0, tree:GetSleepTime())
    end
    c.t = 1.125
    tree:Update()
    assert.same({ "A" }, log)
  end)

  it("continues a RUNNING child at an evaluation instead of restarting it", function()
    tree:Update()
    c.t = 1.5
    tree:Update()
    assert.same({ "A", "B", "A", "B" }, log)
    assert.same({ bt.READY, bt.RUNNING }, B.entries)
    assert.same({ bt.READY, bt.READY }, A.entries)
  end)

  it("resets a finished child before visiting it again in an evaluation", function()
    -- B moves the clock past the period, so the second visit of the same think evaluates again.
    local c2 = H.clock(0)
    local X = H.leaf("X", bt.FAILED)
    local Y = H.leaf("Y", function() c2.t = c2.t + 1; return bt.RUNNING end)
    local q = bt.PriorityNode({ X, Y }, 0.5, true)
    local t2 = bt.BT({}, H.Twice(q))
    t2:Update()
    assert.same({ bt.READY, bt.READY }, X.entries)
    assert.same({ bt.READY, bt.RUNNING }, Y.entries)

    local S = H.leaf("S", function() c2.t = c2.t + 1; return bt.SUCCESS end)
    local q2 = bt.PriorityNode({ S }, 0.5, true)
    local t3 = bt.BT({}, H.Twice(q2))
    t3:Update()
    assert.same({ bt.READY, bt.READY }, S.entries)
  end)

  it("re-evaluates on the next visit when the running child stops RUNNING between evaluations", function()
    tree:Update()
    clear(log)
    c.t = 0.25
    b = bt.SUCCESS
    tree:Update()
    assert.same({ "B" }, log)
    assert.equal(bt.SUCCESS, p.lastresult)
    clear(log)
    b = bt.RUNNING
    c.t = 0.375
    tree:Update()
    assert.same({ "A", "B" }, log)
    assert.equal(bt.RUNNING, p.lastresult)
  end)

  it("takes a FAILED of its running child between evaluations without trying the next child", function()
    tree:Update()
    clear(log)
    c.t = 0.25
    b = bt.FAILED
    tree:Update()
    assert.same({ "B" }, log)
    assert.equal(bt.FAILED, p.lastresult)
    assert.equal(0, C.visits)
    clear(log)
    c.t = 0.375
    tree:Update()
    assert.same({ "A", "B", "C" }, log)
    assert.equal(bt.RUNNING, p.lastresult)
    assert.equal(bt.RUNNING, C.status)
  end)

  it("fails when no child succeeds or runs", function()
    local q = bt.PriorityNode({ H.leaf("F1", bt.FAILED, log), H.leaf("F2", bt.FAILED, log) }, 1, true)
    local t2 = bt.BT({}, q)
    t2:Update()
    assert.same({ "F1", "F2" }, log)
    assert.equal(bt.FAILED, q.lastresult)
    assert.equal(bt.READY, q.status)
  end)

  it("keeps lasttime through Reset and forgets the selected child", function()
    tree:Update()
    clear(log)
    c.t = 0.5
    tree:Reset()
    assert.equal(bt.READY, p.status)
    assert.equal(bt.READY, B.status)
    tree:Update()
    assert.same({}, log)
    assert.equal(bt.READY, p.lastresult)
    c.t = 1.25
    tree:Update()
    assert.same({ "A", "B" }, log)
  end)

  it("reports its sleep time: lasttime + period - now while RUNNING, clamped at 0, the minimum with its running children", function()
    tree:Update()
    -- B slept 5 s at time 0, so the Priority's next evaluation (0 + 1) decides.
    assert.equal((0 + 1) - 0, tree:GetSleepTime())
    c.t = 0.25
    assert.equal((0 + 1) - 0.25, tree:GetSleepTime())
    c.t = 1.5
    assert.equal(0, tree:GetSleepTime())
  end)

  it("computes its sleep time in Don't Starve's order of operations", function()
    c.t = 0.1
    local q = bt.PriorityNode({ H.leaf("L", function(self) self:Sleep(10); return bt.RUNNING end) }, 0.3, true)
    local t2 = bt.BT({}, q)
    t2:Update()
    c.t = 0.2
    assert.equal((0.1 + 0.3) - 0.2, t2:GetSleepTime())
  end)

  it("shows execute <idx>, eval in <lasttime + period - now> (unclamped) while RUNNING", function()
    tree:Update()
    c.t = 0.25
    assert.equal(H.dump {
      "Priority - RUNNING <RUNNING> (execute 2, eval in 0.75)>0.75",
      "   >A - READY <FAILED> ()>0.00",
      "   >B - RUNNING <RUNNING> ()>4.75",
      "   >C - READY <READY> ()>0.00",
    }, tostring(tree))
    c.t = 1.5
    assert.equal(H.dump {
      "Priority - RUNNING <RUNNING> (execute 2, eval in -0.50)>0.00",
      "   >A - READY <FAILED> ()>0.00",
      "   >B - RUNNING <RUNNING> ()>3.50",
      "   >C - READY <READY> ()>0.00",
    }, tostring(tree))
  end)
end)

describe("PriorityNode time arithmetic", function()
  after_each(H.restore)

  it("is not due at lasttime + period computed in doubles (1 + 0.1 is not < 1.1000000000000001)", function()
    local c = H.clock(1)
    local log = {}
    local p = bt.PriorityNode({ H.leaf("A", bt.FAILED, log), H.leaf("B", bt.RUNNING, log) }, 0.1, true)
    local tree = bt.BT({}, p)
    tree:Update()
    assert.same({ "A", "B" }, log)
    clear(log)
    c.t = 1 + 0.1 -- now - lasttime > period would say due here
    tree:Update()
    assert.same({ "B" }, log)
    c.t = 1.2
    tree:Update()
    assert.same({ "B", "A", "B" }, log)
  end)

  it("is due when lasttime + period < now in doubles (0.2 + 0.7 < 0.9)", function()
    local c = H.clock(0.2)
    local log = {}
    local p = bt.PriorityNode({ H.leaf("A", bt.FAILED, log), H.leaf("B", bt.RUNNING, log) }, 0.7, true)
    local tree = bt.BT({}, p)
    tree:Update()
    clear(log)
    c.t = 0.9 -- now - lasttime > period would say not due here
    tree:Update()
    assert.same({ "A", "B" }, log)
  end)
end)

describe("nested PriorityNodes", function()
  after_each(H.restore)

  it("a failed sub-priority counts as failed (READY, not chosen) for up to its period", function()
    local c = H.clock(0)
    local log = {}
    local x = bt.FAILED
    local X = H.leaf("X", function() return x end, log)
    local Y = H.leaf("Y", bt.RUNNING, log)
    local sub = bt.PriorityNode({ X }, 10, true)
    local root = bt.PriorityNode({ sub, Y }, 1, true)
    local tree = bt.BT({}, root)
    tree:Update()
    assert.same({ "X", "Y" }, log)
    assert.equal(bt.FAILED, sub.lastresult)
    assert.equal(bt.READY, sub.status)
    clear(log)
    x = bt.SUCCESS
    c.t = 1.5
    tree:Update()
    assert.same({ "Y" }, log)
    assert.equal(bt.READY, sub.lastresult)
    assert.equal(bt.RUNNING, root.lastresult)
    clear(log)
    c.t = 11
    tree:Update()
    assert.same({ "X" }, log)
    assert.equal(bt.SUCCESS, sub.lastresult)
    assert.equal(bt.SUCCESS, root.lastresult)
    assert.equal(bt.READY, Y.status)
  end)

  it("a running sub-priority continues its running child between its own evaluations", function()
    local c = H.clock(0)
    local log = {}
    local h = bt.FAILED
    local H1 = H.leaf("H", function() return h end, log)
    local R = H.leaf("R", bt.RUNNING, log)
    local sub = bt.PriorityNode({ H1, R }, 10, true)
    local root = bt.PriorityNode({ sub, H.leaf("Idle", bt.RUNNING, log) }, 1, true)
    local tree = bt.BT({}, root)
    tree:Update()
    assert.same({ "H", "R" }, log)
    clear(log)
    h = bt.SUCCESS
    c.t = 2
    tree:Update()
    -- the root evaluates, the sub-priority is RUNNING and not due: it visits R only
    assert.same({ "R" }, log)
    assert.equal(bt.RUNNING, sub.lastresult)
    assert.equal(bt.RUNNING, root.lastresult)
  end)
end)
