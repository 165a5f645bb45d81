-- SPDX-License-Identifier: MIT
-- Follow (behaviours/follow.lua): the comfort band, APPROACH and BACKOFF, running, distances
-- given as functions, losing the target, shared brains. Expected values follow
-- docs/behaviours.md and the Don't Starve scripts. The fake world walks at 2 units a second and
-- runs at 5. Distances below: min 2, target 5, max 10.

local H = require "helpers"
local F = require "fake_entity"
local Follow = require "behaviours.follow"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("Follow", function()
  local world, leader

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    leader = world:spawn("villager", 0, 0)
  end)

  after_each(H.restore)

  it("approaches a target beyond max_dist, running, until within target_dist", function()
    local dog = world:spawn("guard", 20, 0)
    local node = Follow(dog, leader, 2, 5, 10)
    local tree = bt.BT(dog, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"GoToPoint(0.00, 0.00, true)"}, world:commands(dog))
    assert.equal(0.25, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(villager#1 APPROACH, (20.00))", 1, true))

    -- at 5 units (within 0.75 * max) it keeps running, since it already runs
    world:clear_log()
    world:step(3)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"GoToPoint(0.00, 0.00, true)"}, world:commands(dog))

    world:clear_log()
    world:step(0.25)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({}, world:commands(dog))
  end)

  it("walks when it may not run, and follows the target as it moves", function()
    local dog = world:spawn("guard", 12, 0)
    local tree = bt.BT(dog, Follow(dog, leader, 2, 5, 10, false))
    tree:Update()
    leader.x, leader.y = 0, 4
    world:step(0.25)
    tree:Update()
    assert.same({"GoToPoint(0.00, 0.00, false)", "GoToPoint(0.00, 4.00, false)"}, world:commands(dog))
  end)

  it("fails inside the band (or without a target) and does nothing", function()
    local dog = world:spawn("guard", 7, 0)
    local node = Follow(dog, leader, 2, 5, 10)
    bt.BT(dog, node):Update()
    assert.equal(FAILED, node.lastresult)
    local lonely = Follow(dog, function() return nil end, 2, 5, 10)
    bt.BT(dog, lonely):Update()
    assert.equal(FAILED, lonely.lastresult)
    assert.same({}, world:commands(dog))
  end)

  it("backs off from a target closer than min_dist until farther than target_dist", function()
    local dog = world:spawn("guard", 1, 0)
    local node = Follow(dog, leader, 2, 5, 10)
    local tree = bt.BT(dog, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"RunInDirection(0.00)"}, world:commands(dog))
    assert.truthy(tostring(tree):find("BACKOFF", 1, true))
    world:step(0.75) -- at 4.75: not yet past 5
    tree:Update()
    assert.equal(RUNNING, node.status)
    world:step(0.25)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)

    local shy = world:spawn("guard", 0, -1)
    local t2 = bt.BT(shy, Follow(shy, leader, 2, 5, 10, false))
    t2:Update()
    assert.same({"WalkInDirection(270.00)"}, world:commands(shy))
  end)

  it("fails and stops when the target is removed or dies", function()
    local dog = world:spawn("guard", 20, 0)
    local node = Follow(dog, leader, 2, 5, 10)
    local tree = bt.BT(dog, node)
    tree:Update()
    world:kill(leader)
    world:clear_log()
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({"Stop()"}, world:commands(dog))

    local other = world:spawn("villager", 40, 0)
    local t2 = bt.BT(dog, Follow(dog, other, 2, 5, 10))
    t2:Update()
    world:remove(other)
    world:clear_log()
    t2:Update()
    assert.equal(FAILED, t2.root.lastresult)
    assert.same({"Stop()"}, world:commands(dog))
  end)

  it("evaluates distance functions on every start, or only for a new target without alwayseval", function()
    local dog = world:spawn("guard", 7, 0)
    dog.band = 10
    local function max(inst) return inst.band end
    local always = Follow(dog, leader, 2, 5, max)
    local once = Follow(dog, leader, 2, 5, max, true, false)
    local ta, to = bt.BT(dog, always), bt.BT(dog, once)
    ta:Update()
    to:Update()
    assert.equal(FAILED, always.lastresult)
    assert.equal(FAILED, once.lastresult)
    dog.band = 6
    ta:Update()
    to:Update()
    assert.equal(RUNNING, always.lastresult) -- 7 > 6
    assert.equal(FAILED, once.lastresult)    -- still 10: same target
  end)

  it("works in a shared definition: each follower has its own target and action", function()
    local def = bt.define(Follow(nil, function(inst) return inst.leader end, 2, 5, 10))
    local a = world:spawn("guard", 20, 0)
    local b = world:spawn("guard", 0, -1)
    local c = world:spawn("guard", 0, 7)
    local other = world:spawn("villager", 100, 100)
    a.leader, b.leader, c.leader = leader, leader, other
    local ta, tb, tc = bt.BT(a, def), bt.BT(b, def), bt.BT(c, def)
    ta:Update()
    tb:Update()
    tc:Update()
    assert.same({"GoToPoint(0.00, 0.00, true)"}, world:commands(a))
    assert.same({"RunInDirection(270.00)"}, world:commands(b))
    assert.same({"GoToPoint(100.00, 100.00, true)"}, world:commands(c))
    assert.equal("APPROACH", ta.root.action)
    assert.equal("BACKOFF", tb.root.action)
    assert.equal(other, tc.root.currenttarget)
    assert.equal(leader, ta.root.currenttarget)
  end)
end)
