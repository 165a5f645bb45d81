-- SPDX-License-Identifier: MIT
-- brains/ewe.lua in the fake world, thought by a BrainWrangler at 30 ticks a second, with the
-- spec as its host: it writes the ewe's keys (threat, hunger) between frames, as bt-arena does
-- (docs/arena.md, "What the host writes"). The ewe's tree (see the brain file): an
-- ActiveSelector of
--   Watch(threat is set, both): ChattyNode(RunAway from "predator", see 12, safe 12),
--   Watch(hunger >= 0.5, both): Graze (a task: to the nearest grass within 15, then eat),
--   Wander near home, max 10.
-- math.random is scripted to 0.5: Wander waits 2.5 s and walks 3.5 s. The fake world walks at
-- 2 units a second and runs at 5.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt

describe("the ewe brain", function()
  local world, wrangler, EweBrain, unstub

  before_each(function()
    unstub = F.stub_random({0.5})
    world = F.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    EweBrain = dofile("brains/ewe.lua")
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  -- a ewe whose brain started, given its keys as a host gives a brain that starts
  local function ewe_at(x, y, opts)
    opts = opts or {}
    opts.home = opts.home or {0, 0}
    opts.tags = {"prey"}
    local ewe = world:spawn("ewe", x, y, opts)
    world:start_brain(ewe, EweBrain, wrangler)
    ewe.brain.bt.board.hunger = ewe.hunger
    return ewe
  end

  local function thinks()
    return wrangler:GetStats().thinks
  end

  -- one frame: the host's writes first, then the world's tick and the brains' think
  local function frame(write)
    if write then
      write()
    end
    world:run(1 / 30, wrangler)
  end

  local function running(ewe)
    return H.running_path(ewe.brain.bt)
  end

  it("is a shared brain class with a blackboard of the keys the host writes", function()
    local ewe = ewe_at(0, 0)
    assert.is_true(ewe.brain:is_a(bt.Brain))
    local keys = {}
    for k in pairs(ewe.brain.bt.board) do
      keys[#keys + 1] = k
    end
    assert.same({"hunger"}, keys)
    local wolf = world:spawn("wolf", 30, 0)
    ewe.brain.bt.board.threat = wolf
    assert.equal(wolf.id, ewe.brain.bt.board.threat) -- an entity key holds the entity's id
  end)

  it("sleeps while nothing it watches changes: it thinks only when Wander's phases end", function()
    local ewe = ewe_at(0, 0)
    world:run(1 / 30, wrangler)
    assert.equal("Ewe/Wander", running(ewe))
    local before = thinks()
    -- 12 s: waits of 2.5 s and walks of 3.5 s; at the end of each phase two thinks (the first
    -- comes at the phase's end, which Wander, as Don't Starve's, takes as not yet over)
    world:run(12, wrangler)
    assert.equal(6, thinks() - before)
  end)

  it("flees in the frame the world sets its threat, and stops in the frame it is cleared", function()
    local ewe = ewe_at(0, 0)
    world:run(1, wrangler)
    local wolf = world:spawn("wolf", 6, 0)
    world:run(0.5, wrangler)
    assert.same({}, world:commands(ewe, "RunInDirection"), "a wolf it is not told of")

    world:clear_log()
    local before = thinks()
    frame(function() ewe.brain.bt.board.threat = wolf end)
    assert.equal(1, thinks() - before)
    assert.same({"RunInDirection(180.00)"}, world:commands(ewe, "RunInDirection"))
    assert.equal("Ewe/Threatened/ChattyNode/RunAway", running(ewe))

    world:run(0.5, wrangler)
    assert.truthy(ewe.x < -1)
    world:clear_log()
    before = thinks()
    frame(function() ewe.brain.bt.board.threat = nil end)
    assert.equal(1, thinks() - before)
    assert.equal("Ewe/Wander", running(ewe))
    assert.same({"Stop()"}, world:commands(ewe, {"Stop", "RunInDirection"}))
  end)

  it("grazes in the frame its hunger reaches 0.5, sleeping while it walks and eats", function()
    local ewe = ewe_at(0, 0, {hunger = 0.3})
    local grass = world:spawn("grass", 6, 0)
    world:run(1, wrangler)
    world:clear_log()
    local before = thinks()
    frame(function() ewe.brain.bt.board.hunger = 0.45 end)
    assert.equal(0, thinks() - before, "a write that flips no watch wakes nothing")

    frame(function() ewe.brain.bt.board.hunger = 0.5 end)
    assert.equal(1, thinks() - before)
    assert.same({"GoToPoint(6.00, 0.00, false)"}, world:commands(ewe, "GoToPoint"))
    assert.equal("Ewe/Hungry/Graze", running(ewe))

    -- 4.5 units at 2 a second: one think on arrival, which starts the meal
    before = thinks()
    world:run(2.5, wrangler)
    assert.equal(1, thinks() - before)
    assert.same({"StartAction(eat, grass#" .. grass.id .. ")"}, world:commands(ewe, "StartAction"))

    -- the meal lowers hunger: the host writes it, and the watch ends the task in that frame
    world:run(2, wrangler)
    assert.truthy(ewe.hunger < 0.5)
    before = thinks()
    frame(function() ewe.brain.bt.board.hunger = ewe.hunger end)
    assert.equal(1, thinks() - before)
    assert.equal("Ewe/Wander", running(ewe))
  end)

  it("flees rather than grazes: a threat interrupts the meal in its frame", function()
    local ewe = ewe_at(0, 0, {hunger = 0.6})
    world:spawn("grass", 10, 0)
    world:run(1, wrangler)
    assert.equal("Ewe/Hungry/Graze", running(ewe))
    local y = ewe.y
    local wolf = world:spawn("wolf", ewe.x, y + 6)
    world:clear_log()
    frame(function() ewe.brain.bt.board.threat = wolf end)
    assert.equal("Ewe/Threatened/ChattyNode/RunAway", running(ewe))
    assert.equal(1, #world:commands(ewe, "RunInDirection"))
    world:run(0.5, wrangler)
    assert.truthy(ewe.y < y - 2) -- away from the wolf, to the south
  end)
end)
