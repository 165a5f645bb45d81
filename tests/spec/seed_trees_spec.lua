-- SPDX-License-Identifier: MIT
-- bt.seed_trees covers every tree made after it (docs/lua-api.md; docs/threads.md, "Randomness"):
-- trees built per entity in a brain's OnStart as Don't Starve builds them, shared definitions and
-- subtrees. Each Priority's first evaluation time and each RandomNode's pick come from the tree's
-- own stream, seeded with its entity: the same whatever math.random's seed, and math.random is
-- not called at all. Without bt.seed_trees, math.random is called as Don't Starve calls it.
local bt = require "bt"
local H = require "helpers"

local real_random = math.random
local calls -- math.random's calls (the module looks math.random up at each draw)

local function counting_random(...)
  calls = calls + 1
  return real_random(...)
end

local function never() return false end

-- a leaf that writes "<entity>:<name>@<time>" into its entity's log
local function act(name)
  return bt.ActionNode(function(inst)
    inst.log[#inst.log + 1] = string.format("%d:%s@%.4f", inst.id, name, bt.GetTime())
  end, name)
end

-- Don't Starve's brain shape: a root Priority that scatters, a nested one, and a RandomNode
local function brain_root()
  return bt.PriorityNode({
    bt.PriorityNode({bt.ConditionNode(never, "Never")}, 0.5),
    bt.RandomNode({act("A"), act("B"), act("C")}),
  }, 0.25)
end

-- a brain that builds its tree per entity in OnStart, as Don't Starve's brains do
local PerEntityBrain = bt.Class(bt.Brain, function(self, inst)
  bt.Brain._ctor(self, inst)
end)
function PerEntityBrain:OnStart()
  self.bt = bt.BT(self.inst, brain_root())
end

describe("bt.seed_trees", function()
  local clock
  before_each(function()
    calls = 0
    math.random = counting_random
    bt.seed_trees(function(inst) return inst.id end)
    clock = H.clock(0)
  end)
  after_each(function()
    math.random = real_random
    bt.seed_trees(nil)
    bt.undefine("seeded_sub")
    H.restore()
  end)

  -- the first evaluation times of the Priorities of tree t (pre-order), and its picks over
  -- `ticks` thinks, one every 1/30 s
  local function draws(t, ticks)
    local times = {t.root.lasttime, t.root.children[1].lasttime}
    for tick = 1, ticks do
      clock.t = tick / 30
      t:Update()
    end
    return times, t.inst.log
  end

  it("gives a Priority built for one entity its first evaluation time from the tree's stream", function()
    local function first(seed, id)
      math.randomseed(seed)
      local tree = bt.BT({id = id}, bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.25))
      return tree.root.lasttime
    end
    local t = first(1, 7)
    assert.is_number(t)
    assert.equal(t, first(2, 7))
    assert.is_true(t >= 0.125 and t < 0.375)
    assert.are_not.equal(t, first(1, 8))
    assert.equal(0, calls)
  end)

  it("leaves lasttime nil until BT draws it; noscatter still means none", function()
    local scatters = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.5)
    local still = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.5, true)
    assert.is_nil(scatters.lasttime)
    assert.is_nil(still.lasttime)
    local t1, t2 = bt.BT({id = 3}, scatters), bt.BT({id = 3}, still)
    assert.is_true(t1.root.lasttime >= 0.25 and t1.root.lasttime < 0.75)
    assert.is_nil(t2.root.lasttime)
    assert.is_nil((t2:random_state())) -- a tree that draws nothing has no stream
    assert.equal(0, calls)
  end)

  it("draws the same for brains that build their trees in OnStart, whatever math.random's seed", function()
    local function run(seed)
      math.randomseed(seed)
      local manager = bt.BrainWrangler()
      local brains, log, times = {}, {}, {}
      for id = 1, 6 do
        local brain = PerEntityBrain({id = id, log = log})
        brain.manager = manager
        brain:Start()
        brains[id] = brain
        times[#times + 1] = brain.bt.root.lasttime
        times[#times + 1] = brain.bt.root.children[1].lasttime
      end
      for tick = 1, 90 do
        clock.t = tick / 30
        manager:Update(tick)
      end
      for _, brain in ipairs(brains) do brain:Stop() end
      return times, log
    end
    local times, log = run(1)
    local times2, log2 = run(2)
    assert.equal(12, #times)
    assert.same(times, times2)
    assert.same(log, log2)
    local picked = {}
    for _, entry in ipairs(log) do picked[entry:match(":(%a)@")] = true end
    assert.is_true(picked.A and picked.B and picked.C)
    assert.equal(0, calls)
  end)

  it("gives a shared definition's tree the draws of the tree built for the same entity", function()
    local def = bt.define(brain_root())
    math.randomseed(1)
    local shared_times, shared_log = draws(bt.BT({id = 5, log = {}}, def), 60)
    math.randomseed(2)
    local own_times, own_log = draws(bt.BT({id = 5, log = {}}, brain_root()), 60)
    assert.is_number(shared_times[1])
    assert.is_number(shared_times[2])
    assert.same(own_times, shared_times)
    assert.same(own_log, shared_log)
    assert.is_true(#own_log > 0)
    math.randomseed(3)
    assert.same({shared_times, shared_log}, {draws(bt.BT({id = 5, log = {}}, def), 60)})
    assert.equal(0, calls)
  end)

  it("draws a subtree's Priorities from the stream of the tree that runs it", function()
    bt.define(bt.PriorityNode({bt.RandomNode({act("X"), act("Y"), act("Z")})}, 0.5), "seeded_sub")
    local function run(seed, id)
      math.randomseed(seed)
      local tree = bt.BT({id = id, log = {}}, bt.PriorityNode({
        bt.PriorityNode({bt.ConditionNode(never, "Never")}, 0.25),
        bt.SubtreeNode("seeded_sub"),
      }, 0.25))
      local sub = tree.root.children[2].children[1]
      assert.equal("Priority", sub.name)
      local times = {tree.root.lasttime, tree.root.children[1].lasttime, sub.lasttime}
      local _, log = draws(tree, 90)
      return times, log
    end
    local times, log = run(1, 9)
    assert.is_true(times[3] >= 0.25 and times[3] < 0.75)
    local times2, log2 = run(2, 9)
    assert.same(times, times2)
    assert.same(log, log2)
    assert.is_true(#log > 0)
    assert.are_not.same(times, (run(1, 10)))
    assert.equal(0, calls)
  end)

  it("keeps a time a Priority had before BT: one a script set, or one drawn before seed_trees", function()
    local set = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.5)
    set.lasttime = 3
    assert.equal(3, bt.BT({id = 1}, set).root.lasttime)
    bt.seed_trees(nil)
    local before = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.5)
    local drawn = before.lasttime
    assert.equal(1, calls)
    bt.seed_trees(function(inst) return inst.id end)
    assert.equal(drawn, bt.BT({id = 1}, before).root.lasttime)
    assert.equal(1, calls)
  end)

  it("leaves the draw to math.random when BT wraps a Priority made under it after seed_trees(nil)", function()
    local node = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.5)
    bt.seed_trees(nil)
    math.randomseed(4)
    local r = real_random()
    math.randomseed(4)
    assert.equal(0.5 * 0.5 + 0.5 * r, bt.BT({}, node).root.lasttime)
    assert.equal(1, calls)
  end)
end)

describe("without bt.seed_trees", function()
  before_each(function()
    calls = 0
    math.random = counting_random
  end)
  after_each(function()
    math.random = real_random
    H.restore()
  end)

  it("a Priority draws from math.random in its constructor, once, as Don't Starve's does", function()
    math.randomseed(4)
    local r = real_random()
    math.randomseed(4)
    local node = bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.25)
    assert.equal(1, calls)
    assert.equal(0.25 * 0.5 + 0.25 * r, node.lasttime)
    assert.equal(0.25 * 0.5 + 0.25 * r, bt.BT({}, node).root.lasttime)
    bt.BT({}, bt.PriorityNode({bt.ConditionWaitNode(never)}, 0.25, true))
    assert.equal(1, calls)
  end)
end)
