-- SPDX-License-Identifier: MIT
-- StandStill (behaviours/standstill.lua): startfn, keepfn, stopping every think, shared brains.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts.

local H = require "helpers"
local F = require "fake_entity"
local StandStill = require "behaviours.standstill"
local bt = H.bt
local FAILED, RUNNING = bt.FAILED, bt.RUNNING

describe("StandStill", function()
  local world, sheep

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    sheep = world:spawn("sheep", 0, 0)
  end)

  after_each(H.restore)

  it("without functions starts at once and stops the entity on every think, sleeping .5 s", function()
    local node = StandStill(sheep)
    local tree = bt.BT(sheep, node)
    sheep:RunInDirection(0)
    world:clear_log()
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"Stop()", "Stop()"}, world:commands(sheep)) -- on entering, then as it runs
    assert.is_false(sheep:IsMoving())
    assert.equal(0.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("StandStill - RUNNING <RUNNING> (standing still)>0.50", 1, true))
    for _ = 1, 5 do
      world:clear_log()
      world:step(0.5)
      tree:Update()
      assert.equal(RUNNING, node.lastresult)
      assert.same({"Stop()"}, world:commands(sheep))
    end
  end)

  it("fails without starting when startfn is false", function()
    local node = StandStill(sheep, function(inst) return inst.stay end)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(sheep))
    sheep.stay = true
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
  end)

  it("fails as soon as keepfn turns false", function()
    local node = StandStill(sheep, nil, function(inst) return not inst:IsDay() end)
    world:set_day(false)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    world:set_day(true)
    world:clear_log()
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(sheep))
  end)

  it("works in a shared definition: each entity's keepfn decides for it", function()
    local def = bt.define(StandStill(nil, nil, function(inst) return inst.stay end))
    local a = world:spawn("sheep", 0, 0)
    local b = world:spawn("sheep", 0, 0)
    a.stay, b.stay = true, true
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update()
    tb:Update()
    b.stay = false
    ta:Update()
    tb:Update()
    assert.equal(RUNNING, ta.root.lastresult)
    assert.equal(FAILED, tb.root.lastresult)
    assert.equal(3, #world:commands(a, "Stop"))
    assert.equal(2, #world:commands(b, "Stop"))
  end)
end)
