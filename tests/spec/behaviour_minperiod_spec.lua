-- SPDX-License-Identifier: MIT
-- MinPeriod (behaviours/minperiod.lua): a cooldown measured from the child's last success.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts. The child
-- is a scripted leaf (helpers.lua) whose statuses are given per visit.

local H = require "helpers"
local F = require "fake_entity"
local MinPeriod = require "behaviours.minperiod"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

-- a leaf that stays RUNNING and sleeps `nap` seconds
local Busy = bt.Class(bt.BehaviourNode, function(self, nap)
  bt.BehaviourNode._ctor(self, "Busy")
  self.nap = nap
end)

function Busy:Visit()
  self.status = RUNNING
  self:Sleep(self.nap)
end

describe("MinPeriod", function()
  local world, sheep

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    sheep = world:spawn("sheep", 0, 0)
  end)

  after_each(H.restore)

  it("with immediate, runs the child at once, then fails without visiting it for minperiod after a success", function()
    local leaf = H.leaf("Eat", SUCCESS)
    local node = MinPeriod(sheep, 2, true, leaf)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(1, leaf.visits)
    world:step(1)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.equal(1, leaf.visits)
    world:step(0.875)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    world:step(0.125) -- 2 s after the success
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(2, leaf.visits)
  end)

  it("copies the child's status; the cooldown starts only from a success", function()
    local leaf = H.leaf("Try", {FAILED, FAILED, RUNNING, RUNNING, SUCCESS, SUCCESS})
    local node = MinPeriod(sheep, 5, true, leaf)
    local tree = bt.BT(sheep, node)
    local seen = {}
    for _ = 1, 6 do
      tree:Update()
      seen[#seen + 1] = node.lastresult
      world:step(1)
    end
    -- a running child is continued without checking the cooldown; after the success at the
    -- fifth think, the sixth fails without a visit
    assert.same({FAILED, FAILED, RUNNING, RUNNING, SUCCESS, FAILED}, seen)
    assert.equal(5, leaf.visits)
  end)

  it("without immediate, built for an entity, counts the cooldown from construction", function()
    local leaf = H.leaf("Eat", SUCCESS)
    local node = MinPeriod(sheep, 2, false, leaf)
    world:step(1)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    world:step(1)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(1, leaf.visits)
  end)

  it("leaves sleeping to the child, and shows its state in DBString", function()
    local node = MinPeriod(sheep, 2, true, Busy(0.75))
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.equal(0.75, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("MinPeriod - RUNNING <RUNNING> (OK (min period is 2.00))>0.75", 1, true))

    local cooling = MinPeriod(sheep, 2, true, H.leaf("Eat", SUCCESS))
    bt.BT(sheep, cooling):Update()
    world:step(0.5)
    assert.equal("Waiting for 1.50 (min period is 2.00)", cooling:DBString())
  end)

  it("works in a shared definition: each entity has its own cooldown, started at its first visit", function()
    local def = bt.define(MinPeriod(nil, 2, false, H.leaf("Eat", SUCCESS)))
    world:step(10)
    local a = world:spawn("sheep", 0, 0)
    local b = world:spawn("sheep", 0, 0)
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update() -- a's cooldown starts at 10
    assert.equal(FAILED, ta.root.lastresult)
    world:step(1)
    tb:Update() -- b's at 11
    assert.equal(FAILED, tb.root.lastresult)
    world:step(1)
    ta:Update()
    tb:Update()
    assert.equal(SUCCESS, ta.root.lastresult)
    assert.equal(FAILED, tb.root.lastresult)
    assert.equal(1, ta.root.children[1].visits)
    assert.equal(0, tb.root.children[1].visits)
    world:step(1)
    ta:Update()
    tb:Update()
    assert.equal(FAILED, ta.root.lastresult) -- a succeeded at 12
    assert.equal(SUCCESS, tb.root.lastresult)
  end)
end)
