-- SPDX-License-Identifier: MIT
-- bt.test's coverage (T.coverage, docs/bt-test.md "Coverage"): a scripted run of a small tree
-- whose statuses are worked out by hand from Don't Starve's behaviourtree.lua (below), read back
-- as rows, missing nodes, and text, lcov and Cobertura reports; the same from a log file of the
-- run (the second way); from a brain and a wrangler; bt.set_where, which gives the lines and
-- leaves the shape's hash alone; and the errors.

local H = require "helpers"
local T = require "bt.test"
local bt = H.bt

local SOURCE = debug.getinfo(1, "S").source:sub(2) -- the file the nodes below are made in

-- The grazer: Selector (Sequence (Hungry, Chew), Wander, Never), each node on a line of its own;
-- returns the root and the lines of the six nodes in pre-order. Hungry answers `state.hungry`,
-- Wander (a ConditionWaitNode) runs until `state.done`.
local function grazer(state)
  local top = debug.getinfo(1, "l").currentline
  local root = bt.SelectorNode({
    bt.SequenceNode({
      bt.ConditionNode(function() return state.hungry end, "Hungry"),
      bt.ActionNode(function() end, "Chew"),
    }),
    bt.ConditionWaitNode(function() return state.done end, "Wander"),
    bt.ActionNode(function() end, "Never"),
  })
  return root, {top + 1, top + 2, top + 3, top + 4, top + 6, top + 7}
end

-- The run: t=1 Hungry fails, so does the Sequence; Wander runs, the Selector runs; its Step
-- resets the Sequence. t=2: the Selector resumes Wander, still running (no record). t=3: Wander
-- succeeds, the Selector succeeds; Step resets all. t=4: Hungry, Chew, Sequence and Selector
-- succeed.
local function run(tree, state, clock)
  for t = 1, 4 do
    clock.t = t
    if t == 3 then state.done = true end
    if t == 4 then state.hungry = true end
    tree:Update()
  end
end

-- {path, visited, succeeded, failed, ran, interrupted} of each node, by hand from the run above.
local EXPECTED = {
  {"Selector", 2, 2, 0, 1, 0},
  {"Selector/Sequence", 2, 1, 1, 0, 0},
  {"Selector/Sequence/Hungry", 2, 1, 1, 0, 0},
  {"Selector/Sequence/Chew", 1, 1, 0, 0, 0},
  {"Selector/Wander", 1, 1, 0, 1, 0},
  {"Selector/Never", 0, 0, 0, 0, 0},
}

local function figures(cov)
  local got = {}
  for i, row in ipairs(cov) do
    got[i] = {row.path, row.visited, row.succeeded, row.failed, row.ran, row.interrupted}
  end
  return got
end

describe("bt.test coverage", function()
  local clock, old_where

  before_each(function()
    clock = H.clock(0)
    old_where = bt.set_where(true)
  end)

  after_each(function()
    bt.set_where(old_where)
    H.restore()
  end)

  local function recorded_grazer(options)
    local state = {}
    local root, lines = grazer(state)
    local tree = bt.BT({}, root)
    tree:record(options or {capacity = 0, stats = true})
    run(tree, state, clock)
    return tree, lines
  end

  it("gives each node's figures, counted by hand, with where it was made", function()
    local tree, lines = recorded_grazer()
    local cov = T.coverage(tree)
    assert.same(EXPECTED, figures(cov))
    for i, row in ipairs(cov) do
      assert.equal(SOURCE .. ":" .. lines[i], row.where)
      assert.equal(i, row.node)
      assert.equal(i < 6, row.covered)
      assert.equal(16, #row.shape)
    end
    assert.same({"Selector/Never"}, cov:missing())
    assert.equal(cov[3], cov:row("Selector/Sequence/Hungry"))
    assert.is_nil(cov:row("Selector/Flee"))
  end)

  it("writes text, lcov and Cobertura reports of the same figures", function()
    local tree, l = recorded_grazer()
    local cov = T.coverage(tree)
    local text = cov:report()
    assert.equal(text, cov:report("text"))
    local lines = {}
    for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.equal("shape\t" .. cov[1].shape .. "\troot\tSelector\tfile\t" .. SOURCE .. "\tnodes\t5/6\tbranches\t4/5",
      lines[1])
    assert.equal("Selector/Sequence/Hungry\t2\t1\t1\t0\t0\t" .. SOURCE .. ":" .. l[3], lines[5])
    assert.equal("missing\tSelector/Never\t" .. SOURCE .. ":" .. l[6], lines[9])
    assert.equal(9, #lines)
    -- lcov: the Selector's three branches (block 0), the Sequence's two (block 1); a line a node
    local want = ("TN:grazer\nSF:%s\n"
      .. "BRDA:%d,0,0,2\nBRDA:%d,0,1,1\nBRDA:%d,0,2,0\nBRDA:%d,1,0,2\nBRDA:%d,1,1,1\n"
      .. "DA:%d,2\nDA:%d,2\nDA:%d,2\nDA:%d,1\nDA:%d,1\nDA:%d,0\n"
      .. "LF:6\nLH:5\nBRF:5\nBRH:4\nend_of_record\n"):format(SOURCE, l[1], l[1], l[1], l[2], l[2],
      l[1], l[2], l[3], l[4], l[5], l[6])
    assert.equal(want, cov:report("lcov", "grazer"))
    local xml = cov:report("cobertura")
    assert.truthy(xml:find('lines-covered="5" lines-valid="6" branches-covered="4" branches-valid="5"', 1, true))
    assert.truthy(xml:find(('<line number="%d" hits="2" branch="true" condition-coverage="66%% (2/3)"/>'):format(l[1]),
      1, true))
    assert.truthy(xml:find(('<line number="%d" hits="0" branch="false"/>'):format(l[6]), 1, true))
    -- write: the same bytes in a file
    local path = os.tmpname()
    assert.equal(cov, cov:write(path, "lcov", "grazer"))
    local f = assert(io.open(path, "rb"))
    assert.equal(want, f:read("a"))
    f:close()
    os.remove(path)
  end)

  it("reads the same figures from a log of the run, its files named by the agent's label", function()
    local path = os.tmpname()
    local log = assert(bt.log.create(path))
    local tree = recorded_grazer({capacity = 0, stats = true, log = log, agent = 7, label = "grazer 7"})
    log:close()
    local from_log = T.coverage(path)
    assert.same(EXPECTED, figures(from_log))
    assert.same(T.coverage(tree)[1].shape, from_log[1].shape)
    assert.is_nil(from_log[1].where) -- a log keeps no lines
    assert.truthy(from_log:report("lcov"):find("SF:grazer 7\nBRDA:1,0,0,2\n", 1, true))
    assert.same({"Selector/Never"}, from_log:missing())
    os.remove(path)
  end)

  it("takes a brain's and a wrangler's statistics", function()
    local state = {}
    local Grazer = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function Grazer:OnStart()
      self.bt = bt.BT(self.inst, (grazer(state)))
    end
    local wrangler = bt.BrainWrangler()
    wrangler:Record({capacity = 0, stats = true})
    local brain = Grazer({})
    brain.manager = wrangler
    brain:Start()
    for tick = 1, 4 do
      clock.t = tick
      if tick == 3 then state.done = true end
      if tick == 4 then state.hungry = true end
      brain:ForceUpdate()
      wrangler:Update(tick)
    end
    assert.same(EXPECTED, figures(T.coverage(brain)))
    assert.same(EXPECTED, figures(T.coverage(wrangler)))
    local shape = T.coverage(brain)[1].shape
    assert.same(EXPECTED, figures(T.coverage(wrangler, shape)))
    assert.same({}, T.coverage(wrangler, string.rep("0", 16)))
  end)

  it("leaves the shape's hash as it is: wheres are not part of it", function()
    local with = recorded_grazer()
    bt.set_where(false)
    local without = recorded_grazer()
    local a, b = T.coverage(with), T.coverage(without)
    assert.equal(a[1].shape, b[1].shape)
    assert.same(figures(a), figures(b))
    assert.is_nil(b[1].where) -- off: nodes without ports have none
    -- without wheres a node's line is its pre-order number, in a file named after the root
    assert.truthy(b:report("lcov"):find("SF:Selector\n", 1, true))
    assert.truthy(b:report("lcov"):find("DA:6,0\n", 1, true))
  end)

  it("says what is wrong with its arguments", function()
    assert.has_error(function() T.coverage(42) end,
      "bad argument #1 to 'coverage' (a tree, a brain, a BrainWrangler, a bt.Stats, a bt.Recorder or a log file's path expected, got number)")
    local tree = bt.BT({}, bt.ActionNode(function() end))
    assert.has_error(function() T.coverage(tree) end,
      "bad argument #1 to 'coverage' (the tree keeps no statistics: tree:record{stats = true} switches them on)")
    assert.has_error(function() T.coverage(bt.BrainWrangler()) end,
      "bad argument #1 to 'coverage' (the wrangler keeps no statistics: Record{stats = true} switches them on)")
    assert.has_error(function() T.coverage(tree, 12) end,
      "bad argument #2 to 'coverage' (a shape's hash (16 hex digits) or nil expected, got number)")
    local ok, err = pcall(T.coverage, "/nonexistent/session.btlog")
    assert.is_false(ok)
    assert.truthy(err:find("coverage: ", 1, true) and err:find("/nonexistent/session.btlog", 1, true), err)
    local cov = T.coverage(bt.Stats())
    assert.same({}, cov)
    assert.equal("", cov:report("lcov"))
    ok, err = pcall(cov.report, cov, "html")
    assert.is_false(ok)
    assert.truthy(err:find("(\"text\", \"lcov\" or \"cobertura\" expected, got 'html')", 1, true), err)
  end)
end)
