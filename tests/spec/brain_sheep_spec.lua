-- SPDX-License-Identifier: MIT
-- brains/sheep.lua in the fake world, thought by a BrainWrangler at 30 ticks a second.
-- The sheep's tree (see the brain file): a Priority (period .25) of
--   ChattyNode(RunAway from "predator", see 8, safe 12),
--   IfNode(hunger >= 0.5, DoAction eat the nearest grass within 15),
--   ChattyNode(Wander near home, max 10; a line 2 + r * 4 s after entering).
-- math.random is scripted to 0.5, so the root's first evaluation comes after 0.5 s (its scatter
-- is .25 * 0.5 + .25 * 0.5 = .25, then a period), Wander waits 2.5 s and walks 3.5 s, and chatty
-- lines are the middle ones. The fake world walks at 2 units a second and runs at 5.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the sheep brain", function()
  local world, wrangler, SheepBrain, unstub

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    SheepBrain = dofile("brains/sheep.lua")
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  local function sheep_at(x, y, opts)
    opts = opts or {}
    opts.home = opts.home or {0, 0}
    local sheep = world:spawn("sheep", x, y, opts)
    world:start_brain(sheep, SheepBrain, wrangler)
    return sheep
  end

  it("is a shared brain class whose tree shows in tostring(inst.brain)", function()
    local sheep = sheep_at(0, 0)
    assert.is_true(sheep.brain:is_a(bt.Brain))
    world:run(1, wrangler)
    local dump = tostring(sheep.brain)
    assert.equal("--brain--\nsleep time: ", dump:sub(1, 22))
    assert.truthy(dump:find("\nPriority - RUNNING <RUNNING> (execute 3,", 1, true))
    assert.truthy(dump:find("   >   >Wander - RUNNING <RUNNING> (wait for", 1, true))
  end)

  it("does nothing before the root's first evaluation", function()
    local sheep = sheep_at(0, 0)
    world:spawn("wolf", 4, 0)
    world:run(0.5, wrangler)
    assert.same({}, world:commands(sheep, {"RunInDirection", "Stop", "GoToPoint"}))
    world:run(0.1, wrangler)
    assert.same({"RunInDirection(180.00)"}, world:commands(sheep, {"RunInDirection", "Stop", "GoToPoint"}))
  end)

  it("flees a wolf in sight, bleating, until it is safe, then wanders", function()
    local sheep = sheep_at(0, 0)
    world:spawn("wolf", 4, 0)
    world:run(1, wrangler)
    assert.equal("RunInDirection(180.00)", world:commands(sheep, "RunInDirection")[1])
    assert.truthy(sheep.x < -1)
    assert.same({"Baa! Baa!"}, sheep.said)
    assert.truthy(tostring(sheep.brain):find("RunAway - RUNNING", 1, true))

    -- farther than 12 from the wolf (x < -8) it stops; the next evaluation picks Wander
    world:run(2, wrangler)
    -- it thinks about every .25 s, running 1.25 units in between: it stops within that of -8
    assert.truthy(sheep.x < -8 and sheep.x > -9.25)
    local moves = world:commands(sheep, {"RunInDirection", "Stop"})
    -- RunAway's SUCCESS stops it, then Wander's start stops it again
    assert.same({"RunInDirection(180.00)", "Stop()", "Stop()"}, {table.unpack(moves, #moves - 2)})
    assert.truthy(tostring(sheep.brain):find("Wander - RUNNING", 1, true))
    assert.falsy(tostring(sheep.brain):find("RunAway - RUNNING", 1, true))
  end)

  it("ignores a wolf out of sight", function()
    local sheep = sheep_at(0, 0)
    world:spawn("wolf", 9, 0)
    world:run(2, wrangler)
    assert.same({}, world:commands(sheep, "RunInDirection"))
  end)

  it("when hungry walks to the nearest grass and eats it, then wanders again", function()
    local sheep = sheep_at(0, 0, {hunger = 0.8})
    world:spawn("grass", 6, 0)
    local grass = world:spawn("grass", 3, 0)
    world:run(1, wrangler)
    assert.same({"GoToPoint(3.00, 0.00, false)"}, world:commands(sheep, "GoToPoint"))
    assert.truthy(tostring(sheep.brain):find("Graze - RUNNING <RUNNING> (going to eat grass#3)", 1, true))
    world:run(1, wrangler)
    assert.same({"StartAction(eat, grass#3)"}, world:commands(sheep, "StartAction"))
    assert.equal(grass, sheep.busy.target)
    world:run(2, wrangler)
    assert.near(0.2, sheep:GetHunger(), 1e-9)
    world:run(0.5, wrangler)
    assert.equal(1, #world:commands(sheep, "StartAction"))
    assert.truthy(tostring(sheep.brain):find("Wander - RUNNING", 1, true))
  end)

  it("leaves the grass alone when not hungry", function()
    local sheep = sheep_at(0, 0, {hunger = 0.3})
    world:spawn("grass", 3, 0)
    world:run(3, wrangler)
    assert.same({}, world:commands(sheep, {"StartAction", "GoToPoint"}))
    assert.truthy(tostring(sheep.brain):find("Hungry - READY <FAILED>", 1, true))
  end)

  it("breaks off eating for a wolf, and goes back to the grass once the wolf is gone", function()
    local sheep = sheep_at(0, 0, {hunger = 0.8})
    world:spawn("grass", 1, 0)
    world:run(1, wrangler)
    assert.truthy(sheep:IsBusy())
    local wolf = world:spawn("wolf", 5, 0)
    world:run(0.3, wrangler) -- within a period
    assert.is_false(sheep:IsBusy())
    assert.equal(0.8, sheep:GetHunger())
    assert.equal("RunInDirection(180.00)", world:commands(sheep, "RunInDirection")[1])
    world:remove(wolf)
    world:run(4, wrangler)
    assert.equal(2, #world:commands(sheep, "StartAction"))
    assert.near(0.2, sheep:GetHunger(), 1e-9)
  end)

  it("heads home when it finds itself farther than 10 from home", function()
    local sheep = sheep_at(30, 0)
    world:run(1, wrangler)
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, false)"}, world:commands(sheep, {"Stop", "GoToPoint"}))
  end)

  it("bleats while it wanders, 2 + 0.5 * 4 s after it starts", function()
    local sheep = sheep_at(0, 0)
    world:run(4.4, wrangler)
    assert.same({}, sheep.said)
    world:run(0.5, wrangler)
    assert.same({"Meeh."}, sheep.said)
  end)

  it("drives several sheep at once, each from its own situation", function()
    local scared = sheep_at(0, 0)
    world:spawn("wolf", 4, 0)
    local hungry = sheep_at(100, 0, {hunger = 0.9, home = {100, 0}})
    world:spawn("grass", 101, 0)
    world:run(1, wrangler)
    assert.equal("RunInDirection(180.00)", world:commands(scared, "RunInDirection")[1])
    assert.same({}, world:commands(scared, "StartAction"))
    assert.same({"StartAction(eat, grass#4)"}, world:commands(hungry, "StartAction"))
    assert.same({}, world:commands(hungry, "RunInDirection"))
  end)

  it("stops thinking and listening when its brain stops", function()
    local sheep = sheep_at(0, 0, {hunger = 0.8})
    world:spawn("grass", 3, 0)
    world:run(1, wrangler)
    assert.equal(1, world:listener_count(sheep, "actiondone"))
    sheep.brain:Stop()
    assert.equal(0, world:listener_count(sheep, "actiondone"))
    world:clear_log()
    world:run(2, wrangler)
    assert.same({}, world:commands(sheep))
  end)
end)
