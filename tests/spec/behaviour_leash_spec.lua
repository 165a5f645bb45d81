-- SPDX-License-Identifier: MIT
-- Leash (behaviours/leash.lua): the leash and the return band, no home, running, shared brains.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts. The fake world walks
-- at 2 units a second and runs at 5.

local H = require "helpers"
local F = require "fake_entity"
local Leash = require "behaviours.leash"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("Leash", function()
  local world, wolf

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    wolf = world:spawn("wolf", 30, 0)
  end)

  after_each(H.restore)

  it("outside max_dist stops, then goes home on every think until inside the return distance", function()
    local node = Leash(wolf, {0, 0}, 20, 5, true)
    local tree = bt.BT(wolf, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"Stop()"}, world:commands(wolf))
    assert.equal(0, tree:GetSleepTime()) -- it never sleeps
    assert.truthy(tostring(tree):find("Leash - RUNNING <RUNNING> ((0.00, 0.00), 30.00)>0.00", 1, true))

    world:clear_log()
    world:step(0.125)
    tree:Update()
    assert.same({"GoToPoint(0.00, 0.00, true)"}, world:commands(wolf))
    world:step(0.125)
    tree:Update()
    assert.equal(2, #world:commands(wolf, "GoToPoint"))

    -- inside 20 but not yet within 5: still RUNNING (the band)
    world:step(3)
    tree:Update()
    assert.equal(RUNNING, node.status)
    world:clear_log()
    world:step(1.875) -- 5 s of running: at 5.00, not farther than 5
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({}, world:commands(wolf))
  end)

  it("fails inside max_dist, and fails without a home", function()
    wolf.x = 19
    local node = Leash(wolf, {x = 0, y = 0}, 20, 5)
    bt.BT(wolf, node):Update()
    assert.equal(FAILED, node.lastresult)
    local homeless = Leash(wolf, function(inst) return inst:GetHome() end, 1, 0)
    bt.BT(wolf, homeless):Update()
    assert.equal(FAILED, homeless.lastresult)
    assert.same({}, world:commands(wolf))
  end)

  it("walks unless running, reading distances and running from functions of inst", function()
    wolf.home = {0, 0}
    wolf.leash, wolf.hurry = 25, false
    local node = Leash(wolf, function(inst) return inst:GetHome() end,
      function(inst) return inst.leash end, function() return 1 end, function(inst) return inst.hurry end)
    local tree = bt.BT(wolf, node)
    tree:Update()
    tree:Update()
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, false)"}, world:commands(wolf))
    wolf.hurry = true
    tree:Update()
    assert.same({"GoToPoint(0.00, 0.00, false)", "GoToPoint(0.00, 0.00, true)"}, world:commands(wolf, "GoToPoint"))
  end)

  it("works in a shared definition: each wolf is leashed to its own home", function()
    local def = bt.define(Leash(nil, function(inst) return inst:GetHome() end, 10, 2, true))
    local den1 = world:spawn("den", 0, 0)
    local den2 = world:spawn("den", 100, 100)
    wolf.home = den1
    local near = world:spawn("wolf", 95, 100, {home = den2})
    local t1, t2 = bt.BT(wolf, def), bt.BT(near, def)
    t1:Update()
    t2:Update()
    t1:Update()
    t2:Update()
    assert.equal(RUNNING, t1.root.lastresult)
    assert.equal(FAILED, t2.root.lastresult)
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, true)"}, world:commands(wolf))
    assert.same({}, world:commands(near))
  end)
end)
