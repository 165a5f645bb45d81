-- SPDX-License-Identifier: MIT
-- ChaseAndAttack (behaviours/chaseandattack.lua): target selection, the chase, attacks counted
-- through "onattackother"/"onmissother", the ways it ends, listeners, shared brains.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts. In the fake world a
-- wolf runs at 5 units a second, hits within 2 units for 10 damage, then cools down for 1 s.

local H = require "helpers"
local F = require "fake_entity"
local ChaseAndAttack = require "behaviours.chaseandattack"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("ChaseAndAttack", function()
  local world, wolf, sheep

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    wolf = world:spawn("wolf", 0, 0)
    sheep = world:spawn("sheep", 10, 0)
  end)

  after_each(H.restore)

  local function prey()
    return sheep
  end

  it("fails without a target and a way to find one, listening for attacks once", function()
    local node = ChaseAndAttack(wolf)
    local tree = bt.BT(wolf, node)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({"ListenForEvent(onattackother, fn)", "ListenForEvent(onmissother, fn)"},
      world:commands(wolf))
    tree:Update()
    assert.equal(1, world:listener_count(wolf, "onattackother"))
    assert.equal(1, world:listener_count(wolf, "onmissother"))
  end)

  it("takes the target from findnewtargetfn, runs to it, stops, faces it and attacks", function()
    local node = ChaseAndAttack(wolf, nil, nil, 2, prey)
    local tree = bt.BT(wolf, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.equal(sheep, wolf:GetTarget())
    assert.same({"SetTarget(sheep#2)", "GoToPoint(10.00, 0.00, true)", "TryAttack(sheep#2)"},
      world:commands(wolf, {"SetTarget", "GoToPoint", "TryAttack", "Stop", "FacePoint"}))
    assert.equal(0.125, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(target sheep#2, attacks 0, chasing for 0.00)", 1, true))

    -- 1.75 s later the wolf is at 8.75, in range: it stops, faces and hits
    world:clear_log()
    world:step(1.75)
    tree:Update()
    assert.same({"Stop()", "FacePoint(10.00, 0.00)", "TryAttack(sheep#2)"}, world:commands(wolf))
    assert.equal(90, sheep:GetHealth())
    assert.equal(RUNNING, node.status)
    assert.equal(1, node.numattacks)

    -- in cooldown: the swing fails, the chase clock restarts now
    world:step(0.125)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.equal(90, sheep:GetHealth())
    assert.equal(1.875, node.startruntime)

    -- the second hit reaches max_attacks: SUCCESS, target dropped, stopped
    world:clear_log()
    world:step(1)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(80, sheep:GetHealth())
    assert.is_nil(wolf:GetTarget())
    assert.same({"Stop()", "FacePoint(10.00, 0.00)", "TryAttack(sheep#2)", "SetTarget(nil)", "Stop()"},
      world:commands(wolf))
  end)

  it("keeps a valid target it already has, and walks to it with `walk`", function()
    local other = world:spawn("sheep", -6, 0)
    wolf:SetTarget(other)
    world:clear_log()
    local tree = bt.BT(wolf, ChaseAndAttack(wolf, nil, nil, nil, prey, true))
    tree:Update()
    assert.same({"GoToPoint(-6.00, 0.00, false)", "TryAttack(sheep#3)"}, world:commands(wolf, {"SetTarget", "GoToPoint", "TryAttack"}))
  end)

  it("drops a target it may no longer attack before looking for a new one", function()
    local corpse = world:spawn("sheep", 1, 0)
    world:kill(corpse)
    wolf:SetTarget(corpse)
    world:clear_log()
    local tree = bt.BT(wolf, ChaseAndAttack(wolf, nil, nil, nil, prey))
    tree:Update()
    assert.same({"SetTarget(nil)", "SetTarget(sheep#2)"}, world:commands(wolf, "SetTarget"))
  end)

  it("succeeds when the target dies, and fails when it is removed", function()
    sheep.health = 10
    sheep.x = 1
    local node = ChaseAndAttack(wolf, nil, nil, nil, prey)
    local tree = bt.BT(wolf, node)
    tree:Update() -- the hit kills it
    assert.is_true(sheep:IsDead())
    assert.equal(RUNNING, node.lastresult)
    world:clear_log()
    world:step(0.125)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({"SetTarget(nil)", "Stop()"}, world:commands(wolf))

    local other = world:spawn("sheep", 30, 0)
    local tree2 = bt.BT(wolf, ChaseAndAttack(wolf, nil, nil, nil, function() return other end))
    tree2:Update()
    assert.equal(RUNNING, tree2.root.lastresult)
    world:remove(other)
    world:clear_log()
    tree2:Update()
    assert.equal(FAILED, tree2.root.lastresult)
    assert.same({"SetTarget(nil)", "Stop()"}, world:commands(wolf))
  end)

  it("gives up at give_up_dist or more, clearing the target and stopping", function()
    local node = ChaseAndAttack(wolf, nil, function() return 10 end, nil, prey)
    local tree = bt.BT(wolf, node)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({"SetTarget(sheep#2)", "GoToPoint(10.00, 0.00, true)", "TryAttack(sheep#2)", "SetTarget(nil)", "Stop()"},
      world:commands(wolf, {"SetTarget", "GoToPoint", "TryAttack", "Stop"}))

    sheep.x = 9.9
    local tree2 = bt.BT(wolf, ChaseAndAttack(wolf, nil, 10, nil, prey))
    tree2:Update()
    assert.equal(RUNNING, tree2.root.lastresult)
  end)

  it("gives up after max_chase_time without an attack, counted from the last hit or miss", function()
    sheep.x = 100
    local node = ChaseAndAttack(wolf, 2, nil, nil, prey)
    local tree = bt.BT(wolf, node)
    tree:Update()
    world:step(2)
    tree:Update()
    assert.equal(RUNNING, node.lastresult) -- 2 s is not more than 2 s
    world:step(0.125)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.is_nil(wolf:GetTarget())

    -- a miss at 1.5 s restarts the clock: the chase then lasts until after 3.5 s
    local wolf2 = world:spawn("wolf", 0, 0)
    local tree2 = bt.BT(wolf2, ChaseAndAttack(wolf2, 2, nil, nil, prey))
    tree2:Update()
    world:step(1.5)
    wolf2:PushEvent("onmissother", {target = sheep})
    tree2:Update()
    world:step(2)
    tree2:Update()
    assert.equal(RUNNING, tree2.root.lastresult)
    world:step(0.125)
    tree2:Update()
    assert.equal(FAILED, tree2.root.lastresult)
  end)

  it("counts misses as attacks", function()
    wolf.miss = true
    sheep.x = 1
    local node = ChaseAndAttack(wolf, nil, nil, 1, prey)
    local tree = bt.BT(wolf, node)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(100, sheep:GetHealth())
  end)

  it("removes its listeners in OnStop, and adds none before its first visit", function()
    local tree = bt.BT(wolf, ChaseAndAttack(wolf, nil, nil, nil, prey))
    tree:Stop()
    assert.same({}, world:commands(wolf))

    tree:Update()
    world:clear_log()
    tree:Stop()
    assert.equal(0, world:listener_count(wolf, "onattackother"))
    assert.equal(0, world:listener_count(wolf, "onmissother"))
    assert.same({"RemoveEventCallback(onattackother, fn)", "RemoveEventCallback(onmissother, fn)"},
      world:commands(wolf))
  end)

  it("works in a shared definition: each wolf listens and counts its own attacks", function()
    local def = bt.define(ChaseAndAttack(nil, nil, nil, 2, function(inst) return inst.prey end))
    local w1 = world:spawn("wolf", 0, 20)
    local w2 = world:spawn("wolf", 50, 0)
    w1.prey = world:spawn("sheep", 1, 20)
    w2.prey = world:spawn("sheep", 60, 0)
    local t1, t2 = bt.BT(w1, def), bt.BT(w2, def)
    t1:Update()
    t2:Update()
    assert.equal(1, world:listener_count(w1, "onattackother"))
    assert.equal(1, world:listener_count(w2, "onattackother"))
    assert.equal(90, w1.prey:GetHealth())
    assert.equal(1, t1.root.numattacks)
    assert.equal(0, t2.root.numattacks)
    assert.same({"GoToPoint(60.00, 0.00, true)"}, world:commands(w2, "GoToPoint"))

    world:step(1)
    t1:Update()
    t2:Update()
    assert.equal(SUCCESS, t1.root.lastresult)
    assert.equal(RUNNING, t2.root.lastresult)
    assert.equal(w2.prey, w2:GetTarget())

    t1:Stop()
    assert.equal(0, world:listener_count(w1, "onattackother"))
    assert.equal(1, world:listener_count(w2, "onattackother"))
    t2:Stop()
    assert.equal(0, world:listener_count(w2, "onmissother"))
  end)
end)
