-- SPDX-License-Identifier: MIT
-- ParallelNode, ParallelNodeAny, WhileNode and IfThenDoWhileNode (Don't Starve's behaviourtree.lua).

local H = require "helpers"
local bt = H.bt

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
  return t
end

describe("ParallelNode", function()
  after_each(H.restore)

  it("resets and re-tests ConditionNode children on every visit; Step resets only those that are SUCCESS", function()
    local calls, log = 0, {}
    local cond = bt.ConditionNode(function() calls = calls + 1; return true end, "Cond")
    local R = H.leaf("R", bt.RUNNING, log)
    local par = bt.ParallelNode { cond, R }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.equal(1, calls)
    assert.equal(bt.RUNNING, par.status)
    assert.equal(bt.READY, cond.status)
    assert.equal(bt.SUCCESS, cond.lastresult)
    assert.equal(bt.RUNNING, R.status)
    tree:Update()
    tree:Update()
    assert.equal(3, calls)
    assert.equal(3, R.visits)
  end)

  it("does not visit a child that is already SUCCESS, and its Step leaves that child SUCCESS (as written)", function()
    local log = {}
    local A = H.leaf("A", bt.SUCCESS, log)
    local R = H.leaf("R", { bt.RUNNING, bt.RUNNING, bt.SUCCESS }, log)
    local par = bt.ParallelNode { A, R }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.same({ "A", "R" }, log)
    assert.equal(bt.SUCCESS, A.status)
    assert.equal(bt.RUNNING, par.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "R" }, log)
    assert.equal(bt.SUCCESS, A.status)
    assert.equal(bt.SUCCESS, A.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "R" }, log)
    assert.equal(bt.SUCCESS, par.lastresult)
    assert.equal(bt.READY, A.status)
    assert.equal(bt.READY, R.status)
  end)

  it("fails at once when a child fails, without visiting the rest; Step then resets every child", function()
    local log = {}
    local R = H.leaf("R", bt.RUNNING, log)
    local F = H.leaf("F", { bt.RUNNING, bt.FAILED }, log)
    local Z = H.leaf("Z", bt.RUNNING, log)
    local par = bt.ParallelNode { R, F, Z }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.same({ "R", "F", "Z" }, log)
    assert.equal(bt.RUNNING, par.lastresult)
    clear(log)
    tree:Update()
    assert.same({ "R", "F" }, log)
    assert.equal(bt.FAILED, par.lastresult)
    assert.equal(bt.RUNNING, R.lastresult)
    assert.equal(bt.RUNNING, Z.lastresult)
    assert.equal(bt.READY, R.status)
    assert.equal(bt.READY, Z.status)
    assert.equal(bt.READY, par.status)
  end)

  it("succeeds when no child is RUNNING", function()
    local par = bt.ParallelNode { H.leaf("A", bt.SUCCESS), bt.ConditionNode(function() return true end) }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.equal(bt.SUCCESS, par.lastresult)
  end)

  it("does not pass Step on: grandchildren inside a running Parallel keep SUCCESS and FAILED (as written)", function()
    local X = H.leaf("X", bt.SUCCESS)
    local Y = H.leaf("Y", bt.RUNNING)
    local F = H.leaf("F", bt.FAILED)
    local Z = H.leaf("Z", bt.RUNNING)
    local par = bt.ParallelNode { bt.SequenceNode { X, Y }, bt.SelectorNode { F, Z } }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.equal(bt.SUCCESS, X.status)
    assert.equal(bt.FAILED, F.status)
    assert.same({
      "0 Parallel RUNNING RUNNING",
      "1 Sequence RUNNING RUNNING",
      "2 X SUCCESS SUCCESS",
      "2 Y RUNNING RUNNING",
      "1 Selector RUNNING RUNNING",
      "2 F FAILED FAILED",
      "2 Z RUNNING RUNNING",
    }, H.snap(tree))
    -- the same Sequence outside a Parallel: its Step resets X
    local X2 = H.leaf("X2", bt.SUCCESS)
    local t2 = bt.BT({}, bt.SequenceNode { X2, H.leaf("Y2", bt.RUNNING) })
    t2:Update()
    assert.equal(bt.READY, X2.status)
  end)

  it("does not reset a ConditionWaitNode child (not a ConditionNode)", function()
    local calls = 0
    local cw = bt.ConditionWaitNode(function() calls = calls + 1; return true end, "Until")
    local R = H.leaf("R", bt.RUNNING)
    local par = bt.ParallelNode { cw, R }
    local tree = bt.BT({}, par)
    tree:Update()
    tree:Update()
    tree:Update()
    assert.equal(1, calls)
    assert.equal(bt.SUCCESS, cw.status)
    assert.equal(3, R.visits)
  end)
end)

describe("ParallelNodeAny", function()
  after_each(H.restore)

  it("succeeds as soon as any child is not RUNNING, including a succeeding ConditionNode", function()
    local log = {}
    local R = H.leaf("R", bt.RUNNING, log)
    local par = bt.ParallelNodeAny { bt.ConditionNode(function() return true end), R }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.same({ "R" }, log)
    assert.equal(bt.SUCCESS, par.lastresult)
    assert.equal(bt.RUNNING, R.lastresult)
    assert.equal(bt.READY, R.status)
  end)

  it("runs a behaviour until a WaitNode expires", function()
    local c = H.clock(0)
    local R = H.leaf("R", bt.RUNNING)
    local par = bt.ParallelNodeAny { R, bt.WaitNode(2) }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.equal(bt.RUNNING, par.lastresult)
    c.t = 1.5
    tree:Update()
    assert.equal(bt.RUNNING, par.lastresult)
    c.t = 2
    tree:Update()
    assert.equal(bt.SUCCESS, par.lastresult)
    assert.equal(3, R.visits)
  end)

  it("still fails when a child fails", function()
    local par = bt.ParallelNodeAny { H.leaf("R", bt.RUNNING), H.leaf("F", { bt.RUNNING, bt.FAILED }) }
    local tree = bt.BT({}, par)
    tree:Update()
    assert.equal(bt.RUNNING, par.lastresult)
    tree:Update()
    assert.equal(bt.FAILED, par.lastresult)
  end)
end)

describe("WhileNode", function()
  after_each(H.restore)

  it("shows its condition READY <SUCCESS> after each think while the body runs", function()
    local tree = bt.BT({}, bt.WhileNode(function() return true end, "IsDay", H.leaf("Body", bt.RUNNING)))
    tree:Update()
    assert.same({
      "0 Parallel RUNNING RUNNING",
      "1 IsDay READY SUCCESS",
      "1 Body RUNNING RUNNING",
    }, H.snap(tree))
  end)

  it("interrupts a running body inside a Priority without waiting for the period", function()
    local c = H.clock(0)
    local ok = true
    local log = {}
    local body = H.leaf("Body", bt.RUNNING, log)
    local idle = H.leaf("Idle", bt.RUNNING, log)
    local root = bt.PriorityNode({ bt.WhileNode(function() return ok end, "Ok", body), idle }, 10, true)
    local tree = bt.BT({}, root)
    tree:Update()
    assert.same({ "Body" }, log)
    ok = false
    c.t = 1
    tree:Update()
    -- the Priority is not due: it visits the While, which fails; lasttime is cleared
    assert.same({ "Body" }, log)
    assert.equal(bt.FAILED, root.lastresult)
    assert.equal(bt.READY, body.status)
    c.t = 1.25
    tree:Update()
    assert.same({ "Body", "Idle" }, log)
    assert.equal(bt.RUNNING, root.lastresult)
  end)
end)

describe("IfThenDoWhileNode", function()
  after_each(H.restore)

  it("neither resets nor re-visits its MultiConditionNode while it is SUCCESS; re-entry uses whilecond (as written)", function()
    local calls = {}
    local ifc, whilec = true, false
    local body_status = bt.RUNNING
    local body = H.leaf("Body", function() return body_status end)
    local node = bt.IfThenDoWhileNode(
      function() calls[#calls + 1] = "if"; return ifc end,
      function() calls[#calls + 1] = "while"; return whilec end,
      "Chop", body)
    local mc = node.children[1]
    local tree = bt.BT({}, node)

    tree:Update()
    assert.same({ "if" }, calls)
    assert.equal(bt.SUCCESS, mc.status)
    assert.equal(bt.RUNNING, node.lastresult)

    tree:Update()
    assert.same({ "if" }, calls)
    assert.equal(2, body.visits)
    assert.equal(bt.RUNNING, node.lastresult)

    body_status = bt.FAILED
    tree:Update()
    assert.same({ "if" }, calls)
    assert.equal(bt.FAILED, node.lastresult)
    assert.equal(bt.READY, mc.status)

    body_status = bt.RUNNING
    tree:Update()
    assert.same({ "if", "while" }, calls)
    assert.equal(bt.FAILED, node.lastresult)
    assert.equal(3, body.visits)

    tree:Update()
    assert.same({ "if", "while", "if" }, calls)
    assert.equal(bt.RUNNING, node.lastresult)
    assert.equal(4, body.visits)
  end)
end)
