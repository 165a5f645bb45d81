-- SPDX-License-Identifier: MIT
-- brains/fox.lua in the fake world, thought by a BrainWrangler at 30 ticks a second, with the
-- spec as its host: it writes the fox's keys (night, hunger) between frames, as bt-arena does
-- (docs/arena.md, "What the host writes"). The fox's tree (see the brain file): an
-- ActiveSelector "Fox" of
--   Watch(night, both) "Night": ActiveSelector "Prowl" of
--     Watch(hunger > 0.5, both) "Hungry": Priority(.25){Leash(den, 25, 10, run),
--                                                      ChaseAndAttack(10 s, 20, prey within 12),
--                                                      Wander(den, 15)},
--     Wander(den, 10);
--   Wander(den, 3).
-- math.random is scripted to 0.5. The fake world: walk 2 u/s, run 5 u/s.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the fox brain", function()
  local world, wrangler, FoxBrain, unstub, den

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    FoxBrain = dofile("brains/fox.lua")
    den = world:spawn("den", 0, 0)
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  -- a fox whose brain started by day, given its keys as a host gives a brain that starts
  local function fox_at(x, y, hunger)
    local fox = world:spawn("fox", x, y, {home = den, tags = {"predator"}, hunger = hunger or 0.2})
    world:start_brain(fox, FoxBrain, wrangler)
    fox.brain.bt.board.night = false
    fox.brain.bt.board.hunger = fox.hunger
    return fox
  end

  local function thinks()
    return wrangler:GetStats().thinks
  end

  -- one frame: the host's writes first, then the world's tick and the brains' think
  local function frame(write)
    write()
    world:run(1 / 30, wrangler)
  end

  local function running(fox)
    return H.running_path(fox.brain.bt)
  end

  it("dozes by its den by day: hunger by day wakes it once, when it crosses the line", function()
    local fox = fox_at(0, 0)
    world:spawn("sheep", 5, 0)
    world:run(1, wrangler)
    assert.equal("Fox/Wander", running(fox))
    local before = thinks()
    frame(function() fox.brain.bt.board.hunger = 0.45 end)
    assert.equal(0, thinks() - before)
    -- the Hungry watch flips, under a Night that does not run: a think that changes nothing
    -- (the engine wakes a watch's "lower" whether or not its parent runs)
    frame(function() fox.brain.bt.board.hunger = 0.9 end)
    assert.equal(1, thinks() - before)
    frame(function() fox.brain.bt.board.hunger = 0.95 end)
    assert.equal(1, thinks() - before)
    assert.equal("Fox/Wander", running(fox))
    assert.same({}, world:commands(fox, "SetTarget"))
  end)

  it("prowls in the frame night falls, and hunts in the frame its hunger crosses the line", function()
    local fox = fox_at(0, 0, 0.45)
    local sheep = world:spawn("sheep", 8, 0)
    world:run(1, wrangler)
    world:clear_log()
    local before = thinks()
    frame(function() fox.brain.bt.board.night = true end)
    assert.equal(1, thinks() - before)
    assert.equal("Fox/Night/Prowl/Wander", running(fox))
    assert.same({}, world:commands(fox, "SetTarget"), "fed, it does not hunt")

    world:run(0.5, wrangler)
    before = thinks()
    frame(function() fox.brain.bt.board.hunger = 0.5 end)
    assert.equal(0, thinks() - before, "0.5 is not above the line: nothing wakes")
    frame(function() fox.brain.bt.board.hunger = 0.51 end)
    assert.equal(1, thinks() - before)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/ChaseAndAttack", running(fox))
    assert.same({"SetTarget(sheep#" .. sheep.id .. ")"}, world:commands(fox, "SetTarget"))
    assert.equal("GoToPoint(8.00, 0.00, true)", world:commands(fox, "GoToPoint")[1])
  end)

  it("hunts in the frame night falls when it is hungry already", function()
    local fox = fox_at(0, 0, 0.8)
    local sheep = world:spawn("sheep", 0, 8)
    world:run(2, wrangler)
    world:clear_log()
    frame(function() fox.brain.bt.board.night = true end)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/ChaseAndAttack", running(fox))
    assert.same({"SetTarget(sheep#" .. sheep.id .. ")"}, world:commands(fox, "SetTarget"))
  end)

  it("roams its hunting ground when hungry at night with no prey in sight, and chases what comes", function()
    local fox = fox_at(0, 0, 0.8)
    world:run(1, wrangler)
    world:clear_log()
    frame(function() fox.brain.bt.board.night = true end)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/Wander", running(fox))
    world:run(1, wrangler)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/Wander", running(fox))
    assert.same({}, world:commands(fox, "SetTarget"))
    -- a sheep within 12: the hunt's Priority finds it at its next evaluation (a period of .25 s)
    local sheep = world:spawn("sheep", fox.x + 6, fox.y)
    world:run(0.3, wrangler)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/ChaseAndAttack", running(fox))
    assert.same({"SetTarget(sheep#" .. sheep.id .. ")"}, world:commands(fox, "SetTarget"))
  end)

  it("ends the hunt in the frame it is fed, and in the frame day breaks", function()
    local fox = fox_at(0, 0, 0.8)
    world:spawn("sheep", 11, 0)
    world:run(1, wrangler)
    frame(function() fox.brain.bt.board.night = true end)
    world:run(1, wrangler)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/ChaseAndAttack", running(fox))
    world:clear_log()
    frame(function() fox.brain.bt.board.hunger = 0.1 end) -- a feast: the world lowered its hunger
    assert.equal("Fox/Night/Prowl/Wander", running(fox))
    assert.same({"Stop()"}, world:commands(fox, {"Stop", "GoToPoint"}))

    frame(function() fox.brain.bt.board.hunger = 0.8 end)
    assert.equal("Fox/Night/Prowl/Hungry/Priority/ChaseAndAttack", running(fox))
    world:clear_log()
    frame(function() fox.brain.bt.board.night = false end)
    assert.equal("Fox/Wander", running(fox))
    assert.same({"Stop()"}, world:commands(fox, {"Stop", "GoToPoint"}))
  end)

  it("thinks a few times a minute by day: Wander's phases only", function()
    fox_at(0, 0)
    world:run(1 / 30, wrangler)
    local before = thinks()
    world:run(60, wrangler)
    assert.truthy(thinks() - before <= 40)
  end)
end)
