-- SPDX-License-Identifier: MIT
-- Per-node statistics from Lua (docs/lua-api.md "Statistics"): tree:stats, bt.Stats, brain:Stats,
-- BrainWrangler:Stats. The expected figures are worked out by hand from the statuses Don't
-- Starve's behaviourtree.lua writes at each think (in the comments), and from the definitions
-- of docs/debugging.md "Statistics"; the brains' figures are checked against what their leaves
-- and DoUpdate count themselves.
local H = require "helpers"
local bt = H.bt

-- The counts of a node's figures, in a fixed order, for assert.same.
local function counts(f)
  return { f.visits, f.successes, f.failures, f.aborts, f.runs, f.thinks, f.errors, f.running }
end

describe("a tree's statistics", function()
  local c
  before_each(function() c = H.clock(0) end)
  after_each(H.restore)

  -- Sequence(Ok, Walk): pre-order Sequence, Ok, Walk.
  --   t=0 Ok succeeds, Walk runs, so does the Sequence (Step resets Ok)
  --   t=1 the Sequence resumes Walk, which still runs: no change
  --   t=3 Walk succeeds, so does the Sequence; Step resets both
  --   t=4 Ok fails, so does the Sequence
  local function walker()
    local ok, arrived = true, false
    local tree = bt.BT({}, bt.SequenceNode({
      bt.ConditionNode(function() return ok end, "Ok"),
      bt.ConditionWaitNode(function() return arrived end, "Walk"),
    }))
    local function at(t, o, a)
      c.t, ok, arrived = t, o, a
      tree:Update()
    end
    return tree, at
  end

  it("counts visits, successes, failures, runs, thinks and time by path", function()
    local tree, at = walker()
    local rec = tree:record({ capacity = 0, stats = true })
    assert.truthy(rec:stats())
    at(0, true, false)
    at(1, true, false)
    local f = tree:stats()
    -- Walk has run from 0 to the latest think, 1
    assert.same({ 1, 0, 0, 0, 1, 2, 0, 1 }, counts(f["Sequence/Walk"]))
    assert.equal(1, f["Sequence/Walk"].time)
    at(3, true, true)
    at(4, false, false)
    local nodes, shape = tree:stats()
    assert.same({ 2, 1, 1, 0, 1, 2, 0, 0 }, counts(nodes["Sequence"]))
    assert.equal(3, nodes["Sequence"].time)
    assert.equal(3, nodes["Sequence"].longest)
    assert.same({ 2, 1, 1, 0, 0, 0, 0, 0 }, counts(nodes["Sequence/Ok"]))
    assert.equal(0, nodes["Sequence/Ok"].time)
    assert.same({ 1, 1, 0, 0, 1, 2, 0, 0 }, counts(nodes["Sequence/Walk"]))
    assert.equal(3, nodes["Sequence/Walk"].time)
    assert.equal(3, nodes["Sequence/Walk"].node) -- pre-order from 1
    assert.equal("Walk", nodes["Sequence/Walk"].name)
    assert.equal("Sequence/Walk", nodes["Sequence/Walk"].path)
    assert.equal("Sequence", shape.root)
    assert.equal(4, shape.thinks)
    assert.equal(1, shape.agents)
    assert.equal(0, shape.errors)
    assert.truthy(shape.shape:match("^%x+$") and #shape.shape == 16)
  end)

  it("lists the nodes hottest first, by visits, or in tree order", function()
    local tree, at = walker()
    tree:record({ capacity = 0, stats = true })
    at(0, true, false)
    at(3, true, true)
    at(4, false, false)
    local function paths(list)
      local out = {}
      for i, f in ipairs(list) do out[i] = f.path end
      return out
    end
    -- time: Sequence and Walk ran 3 s, the Sequence was visited twice; Ok never ran
    assert.same({ "Sequence", "Sequence/Walk", "Sequence/Ok" }, paths(tree:stats("time")))
    -- visits: Sequence and Ok twice (the Sequence ran longer), Walk once
    assert.same({ "Sequence", "Sequence/Ok", "Sequence/Walk" }, paths(tree:stats("visits")))
    assert.same({ "Sequence", "Sequence/Ok", "Sequence/Walk" }, paths(tree:stats("tree")))
    assert.has_error(function() tree:stats("hot") end,
      "bad argument #1 to 'stats' (\"tree\", \"time\", \"visits\" or nil expected)")
  end)

  it("resets, and counts a run under way from the reset", function()
    local tree, at = walker()
    tree:record({ capacity = 0, stats = true })
    at(0, true, false)
    c.t = 2
    tree:reset_stats()
    assert.same({ 0, 0, 0, 0, 0, 0, 0, 1 }, counts(tree:stats()["Sequence/Walk"]))
    at(5, true, true) -- Walk ends: 3 s since the reset
    local f = tree:stats()["Sequence/Walk"]
    assert.same({ 0, 1, 0, 0, 0, 0, 0, 0 }, counts(f))
    assert.equal(3, f.time)
  end)

  it("counts aborts, a node visited again after it finished, and contained errors", function()
    local errors = H.errors()
    -- Priority(period 0.5, no scatter; Flip, Graze), Flip scripted FAILED, RUNNING, SUCCESS
    --   t=0 Flip fails, Graze runs, so does the Priority (Step resets Flip)
    --   t=1 Flip runs: the Priority resets Graze (RUNNING>READY, an abort)
    --   t=2 Flip succeeds, so does the Priority; Step resets them
    local flip = H.leaf("Flip", { "FAILED", "RUNNING", "SUCCESS" })
    local tree = bt.BT({}, bt.PriorityNode({ flip, H.leaf("Graze", "RUNNING") }, 0.5, true))
    tree:record({ capacity = 0, stats = true })
    for t = 0, 2 do
      c.t = t
      tree:Update()
    end
    local f = tree:stats()
    assert.same({ 2, 1, 1, 0, 1, 1, 0, 0 }, counts(f["Priority/Flip"]))
    assert.equal(1, f["Priority/Flip"].time)
    assert.same({ 1, 0, 0, 1, 1, 1, 0, 0 }, counts(f["Priority/Graze"]))
    assert.equal(1, f["Priority/Graze"].time)
    assert.same({ 1, 1, 0, 0, 1, 2, 0, 0 }, counts(f["Priority"]))
    assert.equal(2, f["Priority"].time)
    -- an error of a node's code, contained and reported, is counted at the node
    local bad = bt.BT({}, bt.SequenceNode({ bt.ConditionNode(function() error("no grass") end, "Bad") }))
    bad:record({ capacity = 0, stats = true })
    bad:Update()
    bad:Update()
    assert.same({ 2, 0, 2, 0, 0, 0, 2, 0 }, counts(bad:stats()["Sequence/Bad"]))
    assert.equal(2, #errors)
  end)

  it("says how to switch statistics on, and refuses bad options", function()
    local tree = bt.BT({}, bt.ActionNode(function() end, "A"))
    assert.has_error(function() tree:stats() end,
      "bad self to 'stats' (the tree keeps no statistics: tree:record{stats = true} switches them on)")
    tree:record({ capacity = 8 }) -- a recorder without statistics is not enough
    assert.has_error(function() tree:reset_stats() end,
      "bad self to 'reset_stats' (the tree keeps no statistics: tree:record{stats = true} switches them on)")
    assert.has_error(function() bt.Recorder({ stats = 3 }) end,
      "bad argument #1 to 'Recorder' (stats: a boolean or a bt.Stats expected)")
    assert.is_nil(bt.Recorder({ stats = false }):stats())
    assert.is_nil(bt.Recorder():stats())
  end)

  it("shares a bt.Stats between trees: per shape over every tree, and each tree's own", function()
    local stats = bt.Stats()
    local trees = {}
    for i = 1, 3 do
      local n = 0
      trees[i] = bt.BT({}, bt.SequenceNode({
        bt.ConditionNode(function() n = n + 1 return n <= i end, "Turn"),
        bt.ActionNode(function() end, "Act"),
      }))
      trees[i]:record({ capacity = 0, stats = stats })
    end
    for t = 1, 4 do -- tree i succeeds i times, then fails
      c.t = t
      for _, tree in ipairs(trees) do tree:Update() end
    end
    local shapes = stats:shapes()
    local hash, shape = next(shapes)
    assert.is_nil(next(shapes, hash)) -- one shape
    assert.equal(hash, shape.shape)
    assert.equal(3, shape.agents)
    assert.equal(12, shape.thinks)
    assert.equal("Sequence", shape.root)
    assert.same({ 12, 6, 6, 0, 0, 0, 0, 0 }, counts(shape.nodes["Sequence/Turn"]))
    assert.same({ 6, 6, 0, 0, 0, 0, 0, 0 }, counts(shape.nodes["Sequence/Act"]))
    assert.same({ 4, 2, 2, 0, 0, 0, 0, 0 }, counts(trees[2]:stats()["Sequence/Turn"]))
    local ordered = stats:shapes("visits")[hash].nodes -- 12, 12 (in tree order), 6
    assert.same({ "Sequence", "Sequence/Turn", "Sequence/Act" }, { ordered[1].path, ordered[2].path, ordered[3].path })
    -- one tree's reset leaves the others' and the shape's figures
    trees[1]:reset_stats()
    assert.equal(0, trees[1]:stats()["Sequence/Turn"].visits)
    assert.equal(12, stats:shapes()[hash].nodes["Sequence/Turn"].visits)
    stats:reset()
    assert.equal(0, stats:shapes()[hash].nodes["Sequence/Turn"].visits)
    assert.equal(0, trees[2]:stats()["Sequence/Turn"].visits)
    assert.truthy(tostring(stats):match("^Stats %(1 shapes%)$"))
  end)
end)

describe("brains' statistics", function()
  local manager, tick, t
  local function run(n)
    for _ = 1, n do
      tick = tick + 1
      t = tick / 30
      manager:Update(tick)
    end
  end
  before_each(function()
    tick, t = 0, 0
    bt.set_clock(function() return t end)
    manager = bt.BrainWrangler()
  end)
  after_each(H.restore)

  -- Each brain counts its thinks (DoUpdate) and its Count calls itself.
  local Walker = bt.SharedBrain(function()
    return bt.PriorityNode({
      bt.WhileNode(function(inst) return inst.hungry end, "Hungry", bt.ActionNode(function(inst) inst.hungry = false end, "Eat")),
      bt.SequenceNode({ bt.ActionNode(function(inst) inst.count = inst.count + 1 end, "Count"), bt.WaitNode(1) }),
    }, 0.5)
  end)
  function Walker:DoUpdate()
    self.inst.thinks = self.inst.thinks + 1
  end

  local function spawn(n)
    local insts = {}
    for i = 1, n do
      local inst = { count = 0, thinks = 0, prefab = "sheep", GUID = 100 + i }
      inst.brain = Walker(inst)
      inst.brain.manager = manager
      inst.brain:Start()
      insts[i] = inst
    end
    return insts
  end

  it("a wrangler's statistics sum its brains', each brain's are its own", function()
    local insts = spawn(3)
    manager:Record({ capacity = 0, stats = true })
    run(100)
    local counted, thought = 0, 0
    for _, inst in ipairs(insts) do
      local own = inst.brain:Stats()
      local count = own["Priority/Sequence/Count"]
      assert.equal(inst.count, count.visits)
      assert.equal(inst.count, count.successes)
      assert.truthy(inst.count >= 3) -- a Count every second or so, for 3.3 s
      local _, shape = inst.brain.bt:stats()
      assert.equal(inst.thinks, shape.thinks)
      counted, thought = counted + inst.count, thought + inst.thinks
    end
    local hash, shape = next(manager:Stats())
    assert.equal(3, shape.agents)
    assert.equal(thought, shape.thinks)
    assert.equal(counted, shape.nodes["Priority/Sequence/Count"].visits)
    -- the Wait runs between Counts: time running, summed over the brains; each run that ended
    -- lasted its second at least (a think at the first tick after it)
    local wait = shape.nodes["Priority/Sequence/Wait"]
    local sum = 0
    for _, inst in ipairs(insts) do
      local own = inst.brain:Stats()["Priority/Sequence/Wait"]
      assert.truthy(own.successes >= 1)
      assert.truthy(own.time >= own.successes * 1 - 1e-9, own.time .. " s for " .. own.successes .. " runs")
      sum = sum + own.time
    end
    assert.near(sum, wait.time, 1e-9)
    assert.truthy(wait.longest >= 1 - 1e-9)
    assert.equal("Priority/Sequence/Wait", manager:Stats("time")[hash].nodes[3].path) -- after the root
    -- a brain that goes keeps its figures in the wrangler's
    insts[1].brain:Stop()
    run(1)
    assert.equal(counted, manager:Stats()[hash].nodes["Priority/Sequence/Count"].visits)
    -- resets: one brain's, then the wrangler's
    insts[2].brain:ResetStats()
    assert.equal(0, insts[2].brain:Stats()["Priority/Sequence/Count"].visits)
    assert.equal(counted, manager:Stats()[hash].nodes["Priority/Sequence/Count"].visits)
    manager:ResetStats()
    assert.equal(0, manager:Stats()[hash].nodes["Priority/Sequence/Count"].visits)
  end)

  it("a brain keeps statistics of its own, and says how to switch them on", function()
    local inst = spawn(1)[1]
    assert.has_error(function() inst.brain:Stats() end,
      "bad self to 'Stats' (the brain keeps no statistics: brain:Record{stats = true}, or its wrangler's "
        .. "Record{stats = true}, switches them on)")
    assert.has_error(function() manager:Stats() end,
      "bad self to 'Stats' (the wrangler keeps no statistics: Record{stats = true} switches them on)")
    inst.brain:Record({ capacity = 0, stats = true })
    run(40)
    local count = inst.brain:Stats()["Priority/Sequence/Count"]
    assert.equal(inst.count, count.visits)
    assert.has_error(function() inst.brain:Stats(1) end,
      "bad argument #1 to 'Stats' (\"tree\", \"time\", \"visits\" or nil expected)")
    -- the brain's recorder follows it to the tree a restart builds: its figures go on
    inst.brain:Stop()
    inst.brain:Start()
    run(40)
    assert.equal(inst.count, inst.brain:Stats()["Priority/Sequence/Count"].visits)
  end)
end)
