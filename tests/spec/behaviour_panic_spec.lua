-- SPDX-License-Identifier: MIT
-- Panic (behaviours/panic.lua): random directions every 0.25 to 0.5 s, sleeping until the next
-- change; never ends. Expected values follow docs/behaviours.md and the Don't Starve scripts;
-- math.random is scripted: direction = r * 360, the next change after .25 + r * .25 s.

local H = require "helpers"
local F = require "fake_entity"
local Panic = require "behaviours.panic"
local bt = H.bt
local READY, RUNNING = bt.READY, bt.RUNNING

describe("Panic", function()
  local world, unstub

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
  end)

  after_each(function()
    if unstub then
      unstub()
      unstub = nil
    end
    H.restore()
  end)

  it("runs in a random direction at once, then turns when its time is up, sleeping until then", function()
    unstub = F.stub_random({0.25, 0.5, 0.75, 0})
    local sheep = world:spawn("sheep", 0, 0)
    local node = Panic(sheep)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"RunInDirection(90.00)"}, world:commands(sheep))
    assert.equal(0, tree:GetSleepTime()) -- no Sleep on entering, as in Don't Starve
    assert.equal(0.375, node.waittime)

    world:clear_log()
    world:step(0.125)
    tree:Update()
    assert.same({}, world:commands(sheep))
    assert.equal(0.25, tree:GetSleepTime())

    world:step(0.375) -- 0.5: past 0.375
    tree:Update()
    assert.same({"RunInDirection(270.00)"}, world:commands(sheep))
    assert.equal(0.25, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(running at 270, turns in 0.25)", 1, true))
  end)

  it("never ends by itself", function()
    -- with r = 1 each direction lasts .5 s, changed at the first think after: every .625 s
    unstub = F.stub_random({1})
    local sheep = world:spawn("sheep", 0, 0)
    local node = Panic(sheep)
    local tree = bt.BT(sheep, node)
    for _ = 1, 40 do
      tree:Update()
      assert.equal(RUNNING, node.lastresult)
      world:step(0.125)
    end
    assert.equal(8, #world:commands(sheep, "RunInDirection")) -- at 0, .625, ..., 4.375
    tree:Reset()
    assert.equal(READY, node.status)
  end)

  it("works in a shared definition: each entity keeps its own direction and clock", function()
    unstub = F.stub_random({0, 0, 0.5, 1})
    local def = bt.define(Panic(nil))
    local a = world:spawn("sheep", 0, 0)
    local b = world:spawn("sheep", 0, 0)
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update() -- angle 0, next change at .25
    tb:Update() -- angle 180, next change at .5
    assert.same({"RunInDirection(0.00)"}, world:commands(a))
    assert.same({"RunInDirection(180.00)"}, world:commands(b))
    world:step(0.375)
    ta:Update()
    tb:Update()
    assert.equal(2, #world:commands(a))
    assert.equal(1, #world:commands(b))
    assert.equal(0.125, tb:GetSleepTime())
  end)
end)
