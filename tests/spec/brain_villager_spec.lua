-- SPDX-License-Identifier: MIT
-- brains/villager.lua in the fake world, thought by a BrainWrangler at 30 ticks a second.
-- The villager's tree (see the brain file): a Priority (.25) of
--   RunAway(from "predator", see 10, safe 15),
--   IfNode(hunger >= 0.6, DoAction eat: food within 10 that is not grass, else its house),
--   WhileNode(day, Priority(.5){DoAction work the nearest field within 20, Wander(home, 8)}),
--   WhileNode(night, Priority(.5){Leash(home, 2, 1), IfNode(tired, DoAction rest in the house),
--                                 StandStill}).
-- math.random is scripted to 0.5. The fake world: walk 2 u/s, run 5 u/s; eat 2 s, work 3 s,
-- rest 4 s.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the villager brain", function()
  local world, wrangler, VillagerBrain, unstub, house

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    VillagerBrain = dofile("brains/villager.lua")
    house = world:spawn("house", 0, 0)
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  local function villager_at(x, y, opts)
    opts = opts or {}
    opts.home = house
    local v = world:spawn("villager", x, y, opts)
    world:start_brain(v, VillagerBrain, wrangler)
    return v
  end

  it("by day walks to the nearest field and works it, again and again", function()
    world:spawn("field", 5, 0)
    world:spawn("field", 9, 0)
    local v = villager_at(0, 0)
    world:run(1.5, wrangler)
    -- (the day Priority's own scatter puts its first evaluation after 1 s)
    assert.same({"GoToPoint(5.00, 0.00, false)"}, world:commands(v, "GoToPoint"))
    assert.same({}, world:commands(v, "StartAction"))
    world:run(1.5, wrangler) -- 3.5 units at 2 u/s to come within reach
    assert.same({"StartAction(work, field#2)"}, world:commands(v, "StartAction"))
    assert.truthy(tostring(v.brain):find("Work - RUNNING <RUNNING> (doing work field#2)", 1, true))
    world:run(3.5, wrangler)
    assert.same({"StartAction(work, field#2)", "StartAction(work, field#2)"}, world:commands(v, "StartAction"))
  end)

  it("strolls near home when there is no field to work", function()
    local v = villager_at(0, 0)
    world:run(2, wrangler)
    assert.same({}, world:commands(v, "StartAction"))
    assert.truthy(tostring(v.brain):find("Wander - RUNNING", 1, true))
  end)

  it("when hungry goes home to eat, before working", function()
    world:spawn("field", 5, 0)
    local v = villager_at(6, 0, {hunger = 0.8})
    world:run(4, wrangler)
    assert.equal("GoToPoint(0.00, 0.00, false)", world:commands(v, "GoToPoint")[1])
    assert.equal("StartAction(eat, house#1)", world:commands(v, "StartAction")[1])
    world:run(2, wrangler)
    assert.near(0.2, v:GetHunger(), 1e-9)
    world:run(3, wrangler)
    assert.equal("StartAction(work, field#2)", world:commands(v, "StartAction")[2])
  end)

  it("eats food lying near rather than going home, but never grass", function()
    world:spawn("grass", 7, 0, {tags = {"food"}})
    world:spawn("bread", 9, 0, {tags = {"food"}})
    local v = villager_at(8, 0, {hunger = 0.9})
    world:run(1.5, wrangler)
    assert.same({"StartAction(eat, bread#3)"}, world:commands(v, "StartAction"))
  end)

  it("at night goes home, rests if tired, and stays in", function()
    world:set_day(false)
    world:spawn("field", 12, 0)
    local v = villager_at(10, 0, {tired = true})
    world:run(1.5, wrangler)
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, false)"},
      {table.unpack(world:commands(v, {"Stop", "GoToPoint"}), 1, 2)})
    world:run(5, wrangler)
    assert.truthy(v:GetDistanceSqTo(0, 0) <= 1)
    assert.same({"StartAction(rest, house#1)"}, world:commands(v, "StartAction"))
    world:run(4.5, wrangler)
    assert.is_false(v:IsTired())
    assert.truthy(tostring(v.brain):find("StandStill - RUNNING", 1, true))
    assert.same({"StartAction(rest, house#1)"}, world:commands(v, "StartAction"))
  end)

  it("runs from a wolf, even from its work", function()
    world:spawn("field", 1, 0)
    local v = villager_at(0, 0)
    world:run(1.5, wrangler)
    assert.truthy(v:IsBusy())
    world:spawn("wolf", 4, 0)
    world:run(0.3, wrangler)
    assert.is_false(v:IsBusy())
    assert.equal("RunInDirection(180.00)", world:commands(v, "RunInDirection")[1])
  end)

  it("drives several villagers at once", function()
    world:spawn("field", 20, 0)
    local worker = villager_at(19, 0)
    local eater = villager_at(1, 0, {hunger = 0.7})
    world:run(1.5, wrangler)
    assert.same({"StartAction(work, field#2)"}, world:commands(worker, "StartAction"))
    assert.same({"StartAction(eat, house#1)"}, world:commands(eater, "StartAction"))
  end)
end)
