-- SPDX-License-Identifier: MIT
-- Wander (behaviours/wander.lua): wait and walk phases, going home, directions, shared brains.
-- Expected values follow docs/behaviours.md and the Don't Starve scripts. math.random is
-- scripted (0.5 unless said otherwise), so a wait phase lasts 1 + 0.5 * 3 = 2.5 s, a walk phase
-- 2 + 0.5 * 3 = 3.5 s, and a random direction is 0.5 * 360 = 180 degrees. The fake world walks
-- at 2 units a second.

local H = require "helpers"
local F = require "fake_entity"
local Wander = require "behaviours.wander"
local bt = H.bt
local READY, RUNNING = bt.READY, bt.RUNNING

describe("Wander", function()
  local world, unstub

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    unstub = F.stub_random({0.5})
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  it("enters by stopping and waiting, walks to a point wander_dist away, then holds position", function()
    local sheep = world:spawn("sheep", 0, 0)
    local node = Wander(sheep)
    local tree = bt.BT(sheep, node)

    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"Stop()"}, world:commands(sheep))
    assert.equal(2.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(wait for 2.50, no home, 0.00, Go Wherever)>2.50", 1, true))

    -- at the end of the wait (strictly after it) it walks: 180 degrees, 12 units
    world:clear_log()
    world:step(2.625)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"GoToPoint(-12.00, 0.00, false)"}, world:commands(sheep))
    assert.equal(3.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(walk for 3.50,", 1, true))

    -- while it walks, a think changes nothing and keeps the phase's deadline
    world:clear_log()
    world:step(1)
    tree:Update()
    assert.same({}, world:commands(sheep))
    assert.equal(2.5, tree:GetSleepTime())

    -- at the end of the walk phase it stops wherever it is and waits again
    world:step(2.625)
    tree:Update()
    assert.same({"Stop()"}, world:commands(sheep))
    assert.equal(-7.25, sheep.x)
    assert.equal(2.5, tree:GetSleepTime())
    assert.equal(RUNNING, node.lastresult)
  end)

  it("a wait phase thinks again at its very end without walking yet (the test is strict)", function()
    local sheep = world:spawn("sheep", 0, 0)
    local tree = bt.BT(sheep, Wander(sheep))
    tree:Update()
    world:clear_log()
    world:step(2.5)
    tree:Update()
    assert.same({}, world:commands(sheep))
    assert.equal(0, tree:GetSleepTime())
  end)

  it("holds position when the walk ends early (the entity stopped moving)", function()
    local sheep = world:spawn("sheep", 0, 0)
    local tree = bt.BT(sheep, Wander(sheep, nil, nil, nil, nil, nil, nil, {wander_dist = 2}))
    tree:Update()
    world:step(2.625)
    tree:Update() -- walks to (-2, 0): there after 1 s
    world:clear_log()
    world:step(1.5)
    assert.is_false(sheep:IsMoving())
    tree:Update()
    assert.same({"Stop()"}, world:commands(sheep))
    assert.equal(2.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(wait for 2.50,", 1, true))
  end)

  it("goes straight home when farther than max_dist, as soon as it is not walking", function()
    local sheep = world:spawn("sheep", 20, 0)
    local node = Wander(sheep, {0, 0}, 10)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.same({"Stop()"}, world:commands(sheep))
    world:clear_log()
    world:step(0.125)
    tree:Update()
    assert.same({"GoToPoint(0.00, 0.00, false)"}, world:commands(sheep))
    assert.equal(3.5, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(walk for 3.50, (0.00, 0.00), 20.00, Go Home)", 1, true))
  end)

  it("wanders freely within max_dist of home, with home and max_dist given as functions", function()
    local sheep = world:spawn("sheep", 3, 0, {home = {0, 0}})
    local tree = bt.BT(sheep, Wander(sheep, function(inst) return inst:GetHome() end,
      function(inst) return inst.roam end))
    sheep.roam = 5
    tree:Update()
    world:clear_log()
    world:step(2.625)
    tree:Update()
    assert.same({"GoToPoint(-9.00, 0.00, false)"}, world:commands(sheep))
    assert.truthy(tostring(tree):find("Go Wherever", 1, true))
    -- a shorter leash read from the function makes the same spot too far
    sheep.roam = 2
    world:clear_log()
    world:step(3.625)
    tree:Update() -- the walk phase ends: hold
    world:step(0.125)
    tree:Update() -- not walking and far from home: go home
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, false)"}, world:commands(sheep))
  end)

  it("uses getdirectionFn's angle and reports the direction taken to setdirectionFn", function()
    local sheep = world:spawn("sheep", 0, 0)
    local told = {}
    local tree = bt.BT(sheep, Wander(sheep, nil, nil, nil,
      function() return 90 end, function(_, angle) told[#told + 1] = angle end))
    tree:Update()
    world:clear_log()
    world:step(2.625)
    tree:Update()
    assert.same({"GoToPoint(0.00, 12.00, false)"}, world:commands(sheep))
    assert.equal(1, #told)
    assert.near(90, told[1], 1e-9)
  end)

  it("reports a random direction, then the direction the walkable point really lies in", function()
    world.bounds = {-5, -5, 100, 100}
    local sheep = world:spawn("sheep", 0, 0)
    local told = {}
    local tree = bt.BT(sheep, Wander(sheep, nil, nil, nil, nil,
      function(_, angle) told[#told + 1] = angle end))
    tree:Update()
    world:clear_log()
    world:step(2.625)
    tree:Update()
    -- 180 degrees is out of bounds; the fake offers 105 degrees, the nearest free direction
    assert.same({"GoToPoint(-3.11, 11.59, false)"}, world:commands(sheep))
    assert.equal(2, #told)
    assert.equal(180, told[1])
    assert.near(105, told[2], 1e-9)
  end)

  it("walks (or runs, with should_run) in its direction when there is no walkable point", function()
    world.no_walkable = true
    local a = world:spawn("sheep", 0, 0)
    local b = world:spawn("sheep", 0, 0)
    local ta = bt.BT(a, Wander(a))
    local tb = bt.BT(b, Wander(b, nil, nil, nil, nil, nil, nil, {should_run = function() return true end}))
    ta:Update()
    tb:Update()
    world:clear_log()
    world:step(2.625)
    ta:Update()
    tb:Update()
    assert.same({"WalkInDirection(180.00)"}, world:commands(a))
    assert.same({"RunInDirection(180.00)"}, world:commands(b))
  end)

  it("skips points that checkpointFn rejects, trying the other directions", function()
    local sheep = world:spawn("sheep", 0, 0)
    local tree = bt.BT(sheep, Wander(sheep, nil, nil, nil, nil, nil,
      function(_, x) return x > 0 end, {offest_attempts = 4}))
    tree:Update()
    world:clear_log()
    world:step(2.625)
    tree:Update()
    -- 180 is rejected (x < 0), then 270 (x = 0), then 0 (x = 12) is taken
    assert.same({"GoToPoint(12.00, 0.00, false)"}, world:commands(sheep))
  end)

  it("with no wait time walks again at once when a walk phase ends", function()
    local sheep = world:spawn("sheep", 0, 0)
    local tree = bt.BT(sheep, Wander(sheep, nil, nil, {minwaittime = 0, randwaittime = 0}))
    tree:Update()
    assert.equal(0, tree:GetSleepTime())
    world:clear_log()
    world:step(0.125)
    tree:Update()
    assert.same({"GoToPoint(-12.00, 0.00, false)"}, world:commands(sheep))
    world:clear_log()
    world:step(3.625)
    tree:Update()
    assert.same({"GoToPoint(-19.25, 0.00, false)"}, world:commands(sheep))
  end)

  it("never ends by itself, and starts over with a wait after a reset", function()
    local sheep = world:spawn("sheep", 0, 0)
    local node = Wander(sheep)
    local tree = bt.BT(sheep, node)
    for _ = 1, 12 do
      tree:Update()
      assert.equal(RUNNING, node.lastresult)
      world:step(1)
    end
    tree:Reset()
    assert.equal(READY, node.status)
    world:clear_log()
    tree:Update()
    assert.same({"Stop()"}, world:commands(sheep))
    assert.equal(2.5, tree:GetSleepTime())
  end)

  it("rejects a list or a value that is no table for times and data, at the line that builds it", function()
    -- each function on one line: the error names that line
    local cases = {
      {function() return bt.PriorityNode({Wander(nil, nil, 10, {2, 3, 1, 3})}, .5) end, 4,
       "nil or a table {minwalktime, randwalktime, minwaittime, randwaittime} expected, got a list"},
      {function() local node = Wander(nil, nil, 10, 2) end, 4,
       "nil or a table {minwalktime, randwalktime, minwaittime, randwaittime} expected, got number"},
      {function() local node = Wander(nil, nil, 10, nil, nil, nil, nil, {6, 8}) end, 8,
       "nil or a table {wander_dist, offest_attempts, should_run} expected, got a list"},
      {function() local node = Wander(nil, nil, 10, {minwaittime = 0, 5}) end, 4,
       "nil or a table {minwalktime, randwalktime, minwaittime, randwaittime} expected, got a list"},
    }
    for _, case in ipairs(cases) do
      local ok, err = pcall(case[1])
      assert.is_false(ok)
      local info = debug.getinfo(case[1], "S")
      assert.equal(string.format("%s:%d: bad argument #%d to 'Wander' (%s)", info.short_src, info.linedefined,
        case[2], case[3]), err)
    end
  end)

  it("works in a shared definition: each entity keeps its own phase and home", function()
    local def = bt.define(Wander(nil, function(inst) return inst:GetHome() end, 5))
    local a = world:spawn("sheep", 20, 0, {home = {0, 0}})
    local b = world:spawn("sheep", 100, 50, {home = {100, 40}})
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update()
    world:step(0.125)
    ta:Update() -- a is walking home
    tb:Update() -- b only now starts its wait
    assert.same({"Stop()", "GoToPoint(0.00, 0.00, false)"}, world:commands(a))
    assert.same({"Stop()"}, world:commands(b))
    assert.equal(3.5, ta:GetSleepTime())
    assert.equal(2.5, tb:GetSleepTime())
    assert.truthy(tostring(ta):find("Go Home", 1, true))
    assert.truthy(tostring(tb):find("wait for 2.50, (100.00, 40.00), 10.00, Go Wherever", 1, true))
    world:clear_log()
    world:step(0.125)
    tb:Update()
    assert.same({"GoToPoint(100.00, 40.00, false)"}, world:commands(b))
    assert.same({}, world:commands(a))
  end)
end)
