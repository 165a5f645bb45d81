-- SPDX-License-Identifier: MIT
-- bt.seed_trees, bt.random and tree:random_state: each tree draws from streams of its own, seeded
-- by its entity, so that an agent's draws do not depend on the other agents of its Lua state.
local bt = require "bt"

-- a tree that picks a child at random at each think and draws with bt.random in a leaf
local function build(log)
  return bt.PriorityNode({
    bt.RandomNode({
      bt.ActionNode(function(inst) log[#log + 1] = "a" .. bt.random(1000) end, "A"),
      bt.ActionNode(function(inst) log[#log + 1] = "b" .. bt.random(1000) end, "B"),
      bt.ActionNode(function(inst) log[#log + 1] = string.format("c%.6f", bt.random()) end, "C"),
    }),
  }, 0, true)
end

-- the draws of the tree made for entity {id = id} over n thinks, with others thinking between
local function draws(id, others, n)
  local log = {}
  local tree = bt.BT({id = id}, build(log))
  local noise = {}
  for i = 1, others do
    noise[i] = bt.BT({id = 1000 + i}, build({}))
  end
  for t = 1, n do
    bt.set_clock(t)
    for _, o in ipairs(noise) do o:Update() end
    tree:Update()
  end
  return log, tree
end

describe("bt.seed_trees and bt.random", function()
  before_each(function() bt.seed_trees(function(inst) return inst.id end) end)
  after_each(function()
    bt.seed_trees(nil)
    bt.set_clock(nil)
  end)

  it("give a tree the same draws whatever other trees draw", function()
    local alone = draws(7, 0, 40)
    local among = draws(7, 5, 40)
    assert.same(alone, among)
    assert.equal(40, #alone)
    assert.are_not.same(alone, draws(8, 0, 40))
  end)

  it("carry a tree's streams to another tree with random_state", function()
    local log = {}
    local first = bt.BT({id = 3}, build(log))
    for t = 1, 10 do bt.set_clock(t); first:Update() end
    local core, scripts = first:random_state()
    assert.is_true(math.type(core) == "integer" and math.type(scripts) == "integer")
    local copy_log = {}
    local copy = bt.BT({id = 99}, build(copy_log))
    copy:set_random_state(core, scripts)
    local rest = #log
    for t = 11, 30 do
      bt.set_clock(t)
      first:Update()
      copy:Update()
    end
    assert.same({table.unpack(log, rest + 1)}, copy_log)
  end)

  it("is math.random for a tree made without bt.seed_trees, and outside any tree", function()
    bt.seed_trees(nil)
    local log = {}
    local tree = bt.BT({id = 1}, build(log))
    assert.is_nil(select(2, tree:random_state()))
    math.randomseed(42)
    tree:Update()
    math.randomseed(42)
    local again = {}
    bt.BT({id = 1}, build(again)):Update()
    assert.same(log, again)
    math.randomseed(5)
    local x = bt.random(10)
    math.randomseed(5)
    assert.equal(math.random(10), x)
  end)

  it("refuses what is not a seed or a state", function()
    assert.has_error(function() bt.seed_trees("seed") end,
      "bad argument #1 to 'seed_trees' (function or nil expected, got string)")
    bt.seed_trees(function() return "x" end)
    assert.has_error(function() bt.BT({}, build({})) end)
    bt.seed_trees(function(inst) return inst.id end)
    local tree = bt.BT({id = 1}, build({}))
    assert.has_error(function() tree:set_random_state(0) end)
    assert.has_error(function() tree:set_random_state("x") end)
    assert.has_error(function() bt.random(5, 1) end)
  end)
end)
