-- SPDX-License-Identifier: MIT
-- bt.test's comparing with a recorded session (docs/bt-test.md "Comparing with a recorded
-- session"): T.diff of two log files, T.check of a live run against a log. Each session is two
-- creatures whose tree is Priority(0.25, noscatter) [Condition "Hungry", Action "Wander"] ticking every 0.5 s
-- for 5 s; a changed creature's Hungry turns false from 2.0 on, so its first difference is Hungry's
-- change in the think at 2.0: READY>SUCCESS recorded, READY>FAILED now.

local H = require "helpers"
local T = require "bt.test"
local bt = H.bt

-- Runs the session; hungry_until[i]: the time creature i stops being hungry. Records into a log
-- at `path` (when given), and into the check `chk` (when given).
local function session(hungry_until, path, chk)
  local clock = H.clock(0)
  local log = path and assert(bt.log.create(path))
  local trees = {}
  for i, until_t in ipairs(hungry_until) do
    local root = bt.PriorityNode({
      bt.ConditionNode(function() return clock.t < until_t end, "Hungry"),
      bt.ActionNode(function() end, "Wander"),
    }, 0.25, true) -- no scattered first evaluation: no random draw
    local tree = bt.BT({id = i}, root)
    local rec = tree:record({capacity = 0, agent = i, label = "sheep " .. i, log = log})
    if chk then chk:watch(rec) end
    trees[i] = tree
  end
  for k = 1, 10 do
    clock.t = 0.5 * k
    for _, tree in ipairs(trees) do tree:Update() end
    if log then log:flush() end
  end
  if log then assert(log:close()) end
end

describe("bt.test comparing", function()
  local files = {}
  local function tmp()
    files[#files + 1] = os.tmpname()
    return files[#files]
  end

  after_each(function()
    H.restore()
    for _, f in ipairs(files) do os.remove(f) end
    files = {}
  end)

  it("T.diff finds no difference between two recordings of one session", function()
    local a, b = tmp(), tmp()
    session({99, 3}, a)
    session({99, 3}, b)
    local rows, summary, report = T.diff(a, b)
    assert.same({}, rows)
    assert.equal(2, summary.agents)
    assert.equal(2, summary.same)
    assert.equal(0, summary.differ)
    assert.matches("^2 agents: 2 the same, 0 differ", report)
    -- every record compared: as many as the log's records of the compared kinds
    local n = 0
    local log <close> = assert(bt.log.open(a))
    for r in log:records() do
      if r.type == "status" or r.type == "think" then n = n + 1 end
    end
    assert.equal(n, summary.records)
  end)

  it("T.diff names the first differing record of the agent that changed", function()
    local a, b = tmp(), tmp()
    session({99, 3}, a)
    session({99, 2}, b)
    local rows, summary = T.diff(a, b)
    assert.equal(1, #rows)
    local r = rows[1]
    assert.equal(2, r.agent)
    assert.equal("sheep 2", r.label)
    assert.equal("differs", r.state)
    assert.equal(2.0, r.time)
    assert.equal("Priority/Hungry", r.path)
    assert.equal("READY>SUCCESS", r.a)
    assert.equal("READY>FAILED", r.b)
    assert.equal(1, summary.same)
    assert.equal(1, summary.differ)
  end)

  it("T.diff names agents only one log has", function()
    local a, b = tmp(), tmp()
    session({99, 3}, a)
    session({99}, b)
    local rows, summary = T.diff(a, b)
    assert.equal(1, #rows)
    assert.equal(2, rows[1].agent)
    assert.equal("only A", rows[1].state)
    assert.equal(1, summary.only_a)
  end)

  it("T.check compares a live run with a log as its records come", function()
    local golden = tmp()
    session({99, 3}, golden)
    local chk = T.check(golden)
    session({99, 3}, nil, chk)
    local summary = chk:expect_same()
    assert.equal(2, summary.same)
    -- a changed creature: the same first difference as two logs give
    chk = T.check(golden)
    session({99, 2}, nil, chk)
    local rows = chk:finish()
    assert.equal(1, #rows)
    assert.equal("Priority/Hungry", rows[1].path)
    assert.equal(2.0, rows[1].time)
    assert.equal("READY>SUCCESS", rows[1].a)
    assert.equal("READY>FAILED", rows[1].b)
    -- expect_same raises the report
    chk = T.check(golden)
    session({99, 2}, nil, chk)
    local ok, err = pcall(chk.expect_same, chk)
    assert.is_false(ok)
    assert.matches("the run differs from .*2%.0000\t2\tsheep 2\tPriority/Hungry\trecorded: READY>SUCCESS\tnow: READY>FAILED", err)
  end)

  it("T.check watches trees and brains, whose recorders it finds or makes", function()
    local golden = tmp()
    session({99}, golden)
    local clock = H.clock(0)
    local tree = bt.BT({id = 1}, bt.PriorityNode({
      bt.ConditionNode(function() return true end, "Hungry"),
      bt.ActionNode(function() end, "Wander"),
    }, 0.25, true))
    local chk = T.check(golden)
    local rec = chk:watch(tree)
    rec:set_agent(1, "sheep 1")
    for k = 1, 10 do
      clock.t = 0.5 * k
      tree:Update()
    end
    chk:expect_same()
  end)

  it("shares a recorder with a trace, whichever is let go first", function()
    local golden = tmp()
    session({99}, golden)
    for order = 1, 2 do
      local clock = H.clock(0)
      local tree = bt.BT({id = 1}, bt.PriorityNode({
        bt.ConditionNode(function() return true end, "Hungry"),
        bt.ActionNode(function() end, "Wander"),
      }, 0.25, true))
      tree:record({capacity = 0, agent = 1, label = "sheep 1"})
      local chk, trace
      if order == 1 then
        trace = T.trace(tree)
        chk = T.check(golden)
        chk:watch(tree)
      else
        chk = T.check(golden)
        chk:watch(tree)
        trace = T.trace(tree)
      end
      for k = 1, 5 do clock.t = 0.5 * k; tree:Update() end
      local kept = trace:count()
      assert.is_true(kept > 0)
      if order == 1 then
        trace:detach() -- under the check, which took the callback after it: the check goes on
      else
        chk:finish() -- under the trace: the trace goes on
      end
      collectgarbage()
      collectgarbage()
      for k = 6, 10 do clock.t = 0.5 * k; tree:Update() end
      if order == 1 then
        assert.equal(kept, trace:count())
        chk:expect_same()
      else
        assert.is_true(trace:count() > kept)
        assert.equal(3.0, trace:first("Priority/Hungry", "SUCCESS", 2.75)) -- a think after the finish
      end
    end
  end)

  it("names what is wrong", function()
    assert.has_error(function() T.diff(1, "b") end, "bad argument #1 to 'diff' (a log file's path expected, got number)")
    assert.has_error(function() T.diff("a") end, "bad argument #2 to 'diff' (a log file's path expected, got nil)")
    local ok, err = pcall(T.diff, "/nonexistent/a.btlog", "/nonexistent/b.btlog")
    assert.is_false(ok)
    assert.matches("bad argument to 'diff' %(cannot open /nonexistent/a.btlog", err)
    ok, err = pcall(T.check, "/nonexistent/a.btlog")
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'check' %(cannot open /nonexistent/a.btlog", err)
    local golden = tmp()
    session({99}, golden)
    local chk = T.check(golden)
    assert.has_error(function() chk:watch(42) end, "bad argument #1 to 'watch' (a tree, a brain or a bt.Recorder expected, got number)")
    chk:finish()
    assert.has_error(function() chk:finish() end, "bad self to 'finish' (the check is finished)")
    assert.has_error(function() chk:watch({}) end, "bad self to 'watch' (the check is finished)")
  end)
end)
