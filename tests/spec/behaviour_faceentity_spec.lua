-- SPDX-License-Identifier: MIT
-- FaceEntity (behaviours/faceentity.lua): start, facing, keepfn, timeout, shared brains.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts.

local H = require "helpers"
local F = require "fake_entity"
local FaceEntity = require "behaviours.faceentity"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("FaceEntity", function()
  local world, guard, villager

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    guard = world:spawn("guard", 0, 0)
    villager = world:spawn("villager", 3, 4)
  end)

  after_each(H.restore)

  local function nearest_villager(inst)
    return inst:FindEntity(10, "villager")
  end

  local function close(inst, target)
    local x, y = target:GetPosition()
    return inst:GetDistanceSqTo(x, y) < 64
  end

  it("stops and faces the target from getfn while keepfn holds, sleeping .5 s", function()
    local node = FaceEntity(guard, nearest_villager, close)
    local tree = bt.BT(guard, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"Stop()", "FacePoint(3.00, 4.00)"}, world:commands(guard))
    assert.equal(0.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(facing villager#2 for 0.00)>0.50", 1, true))

    world:clear_log()
    villager.x, villager.y = -4, 3
    world:step(0.5)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"FacePoint(-4.00, 3.00)"}, world:commands(guard))
    assert.near(143.13, guard.facing, 0.01) -- the fake turned it towards (-4, 3)
  end)

  it("fails when keepfn turns false or the target is removed", function()
    local node = FaceEntity(guard, nearest_villager, close)
    local tree = bt.BT(guard, node)
    tree:Update()
    villager.x = 9
    world:clear_log()
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(guard))

    villager.x = 3
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    world:remove(villager)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
  end)

  it("fails without a target, without stopping", function()
    local node = FaceEntity(guard, function() return nil end, close)
    bt.BT(guard, node):Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(guard))
  end)

  it("succeeds once more than `timeout` seconds have passed since it started", function()
    local node = FaceEntity(guard, nearest_villager, close, 2)
    local tree = bt.BT(guard, node)
    tree:Update()
    world:step(2)
    world:clear_log()
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    assert.same({"FacePoint(3.00, 4.00)"}, world:commands(guard))
    world:step(0.5)
    world:clear_log()
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({}, world:commands(guard))
  end)

  it("works in a shared definition: each guard faces its own villager", function()
    local def = bt.define(FaceEntity(nil, nearest_villager, close, function(inst) return inst.patience end))
    local g2 = world:spawn("guard", 100, 0)
    world:spawn("villager", 100, 5)
    guard.patience, g2.patience = 1, 3
    local t1, t2 = bt.BT(guard, def), bt.BT(g2, def)
    t1:Update()
    world:step(1)
    t2:Update()
    assert.same({"Stop()", "FacePoint(3.00, 4.00)"}, world:commands(guard))
    assert.same({"Stop()", "FacePoint(100.00, 5.00)"}, world:commands(g2))
    world:step(0.5)
    t1:Update()
    t2:Update()
    assert.equal(SUCCESS, t1.root.lastresult) -- 1.5 s > 1
    assert.equal(RUNNING, t2.root.lastresult) -- 0.5 s of 3
    assert.equal(villager, t1.root.target)
    assert.are_not.equal(villager, t2.root.target)
  end)
end)
