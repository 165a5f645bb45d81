-- SPDX-License-Identifier: MIT
-- brains/guard.lua in the fake world, thought by a BrainWrangler at 30 ticks a second.
-- The guard's tree (see the brain file): a Priority (.25) of
--   ChaseAndAttack(8 s, 20, a predator within 15 that is within 6 of a villager),
--   IfNode(hunger >= 0.7, DoAction(eat at the nearest house within 40)),
--   Leash(post, 10, 2, run),
--   Wander(post, 10, walk 2 s, wait 1 + r s, a quarter turn each leg, legs of 4).
-- The post is the guard's home. math.random is scripted to 0.5. The fake world: walk 2 u/s,
-- run 5 u/s, hits of 10 within 2 units once a second.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the guard brain", function()
  local world, wrangler, GuardBrain, unstub

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    GuardBrain = dofile("brains/guard.lua")
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  local function guard_at(x, y)
    local g = world:spawn("guard", x, y, {home = {0, 0}})
    world:start_brain(g, GuardBrain, wrangler)
    return g
  end

  it("chases and attacks a predator that comes near a villager", function()
    local g = guard_at(0, 0)
    world:spawn("villager", 8, 0)
    local wolf = world:spawn("wolf", 10, 0)
    world:run(1, wrangler)
    assert.same({"SetTarget(wolf#3)"}, world:commands(g, "SetTarget"))
    assert.equal("GoToPoint(10.00, 0.00, true)", world:commands(g, "GoToPoint")[1])
    world:run(2, wrangler)
    assert.truthy(wolf:GetHealth() < 100)
  end)

  it("eats at the nearest house when hungry, and not before", function()
    local g = world:spawn("guard", 0, 0, {home = {0, 0}, hunger = 0.6})
    world:start_brain(g, GuardBrain, wrangler)
    world:spawn("house", 30, 0)
    local near = world:spawn("house", 6, 0)
    world:run(1, wrangler)
    assert.same({}, world:commands(g, "StartAction"))
    g.hunger = 0.75
    world:run(6, wrangler)
    assert.same({"StartAction(eat, house#3)"}, world:commands(g, "StartAction"))
    assert.equal(near, world:calls(g, "StartAction")[1].args[2])
  end)

  it("leaves alone predators far from villagers, or near sheep only", function()
    local g = guard_at(0, 0)
    world:spawn("villager", -10, 0)
    world:spawn("wolf", 10, 0)
    world:spawn("sheep", 11, 0)
    world:run(2, wrangler)
    assert.same({}, world:commands(g, "SetTarget"))
  end)

  it("after the fight walks back to its post", function()
    local g = guard_at(0, 0)
    world:spawn("villager", 12, 0)
    local wolf = world:spawn("wolf", 14, 0, {health = 20})
    world:run(5, wrangler)
    assert.is_true(wolf:IsDead())
    assert.is_nil(g:GetTarget())
    local moves = world:commands(g, "GoToPoint")
    assert.equal("GoToPoint(0.00, 0.00, true)", moves[#moves])
    world:run(3, wrangler)
    assert.truthy(g:GetDistanceSqTo(0, 0) <= 4)
  end)

  it("patrols a square around its post, a quarter turn each leg", function()
    local g = guard_at(0, 0)
    world:run(16, wrangler)
    local legs = world:commands(g, "GoToPoint")
    assert.same({"GoToPoint(0.00, 4.00, false)", "GoToPoint(-4.00, 4.00, false)",
                 "GoToPoint(-4.00, 0.00, false)", "GoToPoint(0.00, 0.00, false)"},
      {table.unpack(legs, 1, 4)})
  end)

  it("returns to its post when it finds itself away", function()
    local g = guard_at(20, 0)
    world:run(1, wrangler)
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, true)"},
      {table.unpack(world:commands(g, {"Stop", "GoToPoint"}), 1, 2)})
  end)
end)
