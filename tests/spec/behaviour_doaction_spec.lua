-- SPDX-License-Identifier: MIT
-- DoAction (behaviours/doaction.lua): approaching the target, starting the action, the result
-- from "actiondone", the ways it fails, listeners, shared brains. Expected values follow
-- docs/behaviours.md and the Don't Starve scripts. In the fake world a sheep walks at 2 units
-- a second and runs at 5; "eat" takes 2 s and lowers hunger by 0.6.

local H = require "helpers"
local F = require "fake_entity"
local DoAction = require "behaviours.doaction"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("DoAction", function()
  local world, sheep, grass

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    sheep = world:spawn("sheep", 0, 0, {hunger = 0.8})
    grass = world:spawn("grass", 5, 0)
  end)

  after_each(H.restore)

  local function eat_grass()
    return "eat", grass
  end

  it("walks to the target, starts the action within reach, and succeeds when it is done", function()
    local node = DoAction(sheep, eat_grass, "Graze")
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"ListenForEvent(actiondone, fn)", "GoToPoint(5.00, 0.00, false)"}, world:commands(sheep))
    assert.equal(0, tree:GetSleepTime()) -- it never sleeps
    assert.truthy(tostring(tree):find("Graze - RUNNING <RUNNING> (going to eat grass#2)>0.00", 1, true))

    -- on its way (3 units left): nothing new
    world:clear_log()
    world:step(1)
    tree:Update()
    assert.same({}, world:commands(sheep))

    -- within 1.5 units: it stops and starts eating
    world:step(0.875)
    tree:Update()
    assert.same({"Stop()", "StartAction(eat, grass#2)"}, world:commands(sheep))
    assert.equal(RUNNING, node.status)
    assert.truthy(tostring(tree):find("(doing eat grass#2)", 1, true))

    world:clear_log()
    world:step(1)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({}, world:commands(sheep))

    world:step(1) -- 2 s after it started: "actiondone", success
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.near(0.2, sheep:GetHunger(), 1e-9)
  end)

  it("fails when getactionfn gives nothing", function()
    local node = DoAction(sheep, function() return nil end)
    bt.BT(sheep, node):Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(sheep, {"GoToPoint", "StartAction"}))
    assert.equal("DoAction", node.name)
  end)

  it("fails when the action fails, or when StartAction refuses", function()
    sheep.fail_actions.eat = true
    grass.x = 1
    local node = DoAction(sheep, eat_grass)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    world:step(2)
    tree:Update()
    assert.equal(FAILED, node.lastresult)

    sheep.fail_actions.eat = nil
    sheep.action_range = 0.5 -- the grass, 1 away, is within DoAction's reach but not the host's
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.is_false(world:calls(sheep, "StartAction")[2].results[1])
  end)

  it("starts at once, where it stands, an action without a target; an instant one succeeds in the same think", function()
    sheep.action_times.rest = 0
    local node = DoAction(sheep, function() return "rest" end)
    bt.BT(sheep, node):Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({"StartAction(rest, nil)"}, world:commands(sheep, {"GoToPoint", "StartAction"}))
  end)

  it("runs to the target with `run`, and stops short at the reach getactionfn gives", function()
    local node = DoAction(sheep, function() return "eat", grass, 4 end, nil, function() return true end)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.same({"GoToPoint(5.00, 0.00, true)"}, world:commands(sheep, "GoToPoint"))
    world:step(0.25) -- at 1.25: 3.75 left, within 4
    tree:Update()
    assert.same({"StartAction(eat, grass#2)"}, world:commands(sheep, "StartAction"))
  end)

  it("fails when the target stops being valid, or after the timeout", function()
    local node = DoAction(sheep, eat_grass)
    local tree = bt.BT(sheep, node)
    tree:Update()
    world:remove(grass)
    tree:Update()
    assert.equal(FAILED, node.lastresult)

    local far = world:spawn("grass", 100, 0)
    local slow = DoAction(sheep, function() return "eat", far end, "Slow", false, 1)
    local t2 = bt.BT(sheep, slow)
    t2:Update()
    world:step(1)
    t2:Update()
    assert.equal(RUNNING, slow.lastresult) -- 1 s is not more than 1 s
    world:step(0.125)
    t2:Update()
    assert.equal(FAILED, slow.lastresult)
  end)

  it("succeeds on the action's result even if the target was removed since (eaten up)", function()
    grass.x = 1
    local node = DoAction(sheep, eat_grass)
    local tree = bt.BT(sheep, node)
    tree:Update()
    world:step(2)
    world:remove(grass)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
  end)

  it("ignores results for other actions or targets, and fails when the entity stops being busy silently", function()
    grass.x = 1
    local node = DoAction(sheep, eat_grass)
    local tree = bt.BT(sheep, node)
    local other = world:spawn("grass", 1, 1)
    sheep:PushEvent("actiondone", {action = "eat", target = grass, success = true}) -- before it started
    tree:Update()
    sheep:PushEvent("actiondone", {action = "eat", target = other, success = true})
    sheep:PushEvent("actiondone", {action = "work", target = grass, success = true})
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    sheep.busy = nil -- the host dropped the action without telling
    tree:Update()
    assert.equal(FAILED, node.lastresult)
  end)

  it("fails when the action is interrupted (the fake ends it when the entity is moved)", function()
    grass.x = 1
    local node = DoAction(sheep, eat_grass)
    local tree = bt.BT(sheep, node)
    tree:Update()
    sheep:RunInDirection(180)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.equal(0.8, sheep:GetHunger())
  end)

  it("removes its listener in OnStop", function()
    local tree = bt.BT(sheep, DoAction(sheep, eat_grass))
    tree:Update()
    assert.equal(1, world:listener_count(sheep, "actiondone"))
    tree:Update()
    assert.equal(1, world:listener_count(sheep, "actiondone"))
    world:clear_log()
    tree:Stop()
    assert.equal(0, world:listener_count(sheep, "actiondone"))
    assert.same({"RemoveEventCallback(actiondone, fn)"}, world:commands(sheep))
  end)

  it("works in a shared definition: each entity gets the results of its own actions", function()
    local def = bt.define(DoAction(nil, function(inst) return "eat", inst.food end, "Graze"))
    local a = world:spawn("sheep", 50, 0, {hunger = 0.9})
    local b = world:spawn("sheep", 80, 0, {hunger = 0.9, action_times = {eat = 4}})
    a.food = world:spawn("grass", 51, 0)
    b.food = world:spawn("grass", 81, 0)
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update()
    tb:Update()
    assert.same({"ListenForEvent(actiondone, fn)", "StartAction(eat, grass#5)"}, world:commands(a))
    assert.same({"ListenForEvent(actiondone, fn)", "StartAction(eat, grass#6)"}, world:commands(b))
    world:step(2)
    ta:Update()
    tb:Update()
    assert.equal(SUCCESS, ta.root.lastresult)
    assert.equal(RUNNING, tb.root.lastresult)
    world:step(2)
    tb:Update()
    assert.equal(SUCCESS, tb.root.lastresult)
    ta:Stop()
    assert.equal(0, world:listener_count(a, "actiondone"))
    assert.equal(1, world:listener_count(b, "actiondone"))
  end)
end)
