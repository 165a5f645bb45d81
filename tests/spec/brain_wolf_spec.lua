-- SPDX-License-Identifier: MIT
-- brains/wolf.lua in the fake world, thought by a BrainWrangler at 30 ticks a second.
-- The wolf's tree (see the brain file): a Priority (.25) of
--   WhileNode(night, Priority(.25){Leash(den, 25, 10, run), ChaseAndAttack(10 s, 20, prey within 12),
--                                  Wander(den, 15)}),
--   WhileNode(day, Priority(.5){Leash(den, 2, 1), IfNode(tired, DoAction rest in the den), StandStill}).
-- math.random is scripted to 0.5. The fake world: walk 2 u/s, run 5 u/s, hits of 10 within 2
-- units once a second.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the wolf brain", function()
  local world, wrangler, WolfBrain, unstub, den

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    WolfBrain = dofile("brains/wolf.lua")
    den = world:spawn("den", 0, 0)
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  local function wolf_at(x, y, opts)
    opts = opts or {}
    opts.home = den
    local wolf = world:spawn("wolf", x, y, opts)
    world:start_brain(wolf, WolfBrain, wrangler)
    return wolf
  end

  it("at night hunts the prey it sees: runs to it and bites", function()
    world:set_day(false)
    local wolf = wolf_at(0, 0)
    local sheep = world:spawn("sheep", 8, 0)
    world:run(1, wrangler)
    assert.same({"SetTarget(sheep#3)"}, world:commands(wolf, "SetTarget"))
    assert.equal("GoToPoint(8.00, 0.00, true)", world:commands(wolf, "GoToPoint")[1])
    assert.truthy(tostring(wolf.brain):find("ChaseAndAttack - RUNNING <RUNNING> (target sheep#3", 1, true))
    world:run(2, wrangler)
    assert.truthy(sheep:GetHealth() <= 80)
  end)

  it("lets prey out of sight be, roaming around the den instead", function()
    world:set_day(false)
    local wolf = wolf_at(0, 0)
    world:spawn("sheep", 13, 0)
    world:run(2, wrangler)
    assert.same({}, world:commands(wolf, "SetTarget"))
    assert.truthy(tostring(wolf.brain):find("Wander - RUNNING", 1, true))
  end)

  it("kills its prey, drops the target and goes back to roaming", function()
    world:set_day(false)
    local wolf = wolf_at(0, 0)
    local sheep = world:spawn("sheep", 3, 0, {health = 20})
    world:run(4, wrangler)
    assert.is_true(sheep:IsDead())
    assert.is_nil(wolf:GetTarget())
    assert.equal(2, wolf.swings)
    assert.truthy(tostring(wolf.brain):find("Wander - RUNNING", 1, true))
  end)

  it("at night stays leashed to its den, even with prey in sight", function()
    world:set_day(false)
    local wolf = wolf_at(26, 0)
    world:spawn("sheep", 30, 0)
    world:run(1, wrangler)
    assert.same({}, world:commands(wolf, "SetTarget"))
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, true)"},
      {table.unpack(world:commands(wolf, {"Stop", "GoToPoint"}), 1, 2)})
    -- it runs back until within 10 of the den (it thinks every tick while leashed)
    world:run(3.5, wrangler)
    assert.truthy(wolf.x <= 10 and wolf.x > 9.5)
  end)

  it("by day ignores prey and goes back to its den, then stays there", function()
    local wolf = wolf_at(15, 0)
    world:spawn("sheep", 16, 0)
    world:run(1.5, wrangler)
    assert.same({}, world:commands(wolf, "SetTarget"))
    assert.equal("GoToPoint(0.00, 0.00, false)", world:commands(wolf, "GoToPoint")[1])
    world:run(8, wrangler)
    assert.truthy(wolf:GetDistanceSqTo(0, 0) <= 1)
    assert.truthy(tostring(wolf.brain):find("StandStill - RUNNING", 1, true))
    assert.is_false(wolf:IsMoving())
  end)

  it("by day, tired, rests in its den", function()
    local wolf = wolf_at(0.5, 0, {tired = true})
    world:run(1.5, wrangler)
    assert.same({"StartAction(rest, den#1)"}, world:commands(wolf, "StartAction"))
    assert.truthy(tostring(wolf.brain):find("Rest - RUNNING <RUNNING> (doing rest den#1)", 1, true))
    world:run(4, wrangler)
    assert.is_false(wolf:IsTired())
    assert.truthy(tostring(wolf.brain):find("StandStill - RUNNING", 1, true))
  end)

  it("gives up the hunt at dawn and heads home", function()
    world:set_day(false)
    local wolf = wolf_at(0, 0)
    world:spawn("sheep", 11, 0)
    world:run(1, wrangler)
    assert.truthy(wolf.x > 2)
    world:set_day(true)
    world:clear_log()
    world:run(1, wrangler)
    assert.same({}, world:commands(wolf, "TryAttack"))
    assert.equal("Stop()", world:commands(wolf, {"Stop", "GoToPoint"})[1])
    assert.equal("GoToPoint(0.00, 0.00, false)", world:commands(wolf, "GoToPoint")[1])
    assert.truthy(tostring(wolf.brain):find("   >   >Day - READY <SUCCESS>", 1, true))
  end)
end)
