-- SPDX-License-Identifier: MIT
-- RunAway (behaviours/runaway.lua): finding a hunter, the flight direction, its end, running
-- home, walls, shared brains. Expected values follow docs/behaviours.md and the
-- Don't Starve scripts. In the fake world a sheep runs at 5 units a second and walks at 2.

local H = require "helpers"
local F = require "fake_entity"
local RunAway = require "behaviours.runaway"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

describe("RunAway", function()
  local world, sheep, wolf

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    sheep = world:spawn("sheep", 0, 0)
    wolf = world:spawn("wolf", 3, 0)
  end)

  after_each(H.restore)

  it("runs straight away from a hunter within see_dist until farther than safe_dist", function()
    local node = RunAway(sheep, "predator", 5, 8)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"RunInDirection(180.00)"}, world:commands(sheep))
    assert.equal(0.25, tree:GetSleepTime())
    assert.truthy(tostring(tree):find("(from wolf#2, 3.00 away, safe at 8.00)", 1, true))

    world:clear_log()
    world:step(1) -- 8 away: not farther than 8 yet
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"RunInDirection(180.00)"}, world:commands(sheep))

    world:clear_log()
    world:step(0.25)
    tree:Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({"RunInDirection(180.00)", "Stop()"}, world:commands(sheep))
  end)

  it("fails without a hunter in sight, and does nothing", function()
    wolf.x = 6
    local node = RunAway(sheep, "predator", 5, 8)
    bt.BT(sheep, node):Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({}, world:commands(sheep))
  end)

  it("picks hunters with tags, notags, oneoftags and fn", function()
    local function try(params)
      local t = bt.BT(sheep, RunAway(sheep, params, 5, 8))
      t:Update()
      return t.root.lastresult
    end
    assert.equal(RUNNING, try({tags = {"predator"}}))
    wolf.tags.tame = true
    assert.equal(FAILED, try({tags = {"predator"}, notags = {"tame"}}))
    assert.equal(RUNNING, try({oneoftags = {"guard", "tame"}}))
    assert.equal(FAILED, try({oneoftags = {"guard", "player"}}))
    assert.equal(RUNNING, try({fn = function(ent, inst) return ent.kind == "wolf" and inst == sheep end}))
    assert.equal(FAILED, try(function(ent) return ent.kind == "guard" end))
  end)

  -- the message of the error f raises, and the "file:line: " of the line that defined f (written
  -- on one line, where the error must point: the line that builds the brain)
  local function error_at(f)
    local ok, err = pcall(f)
    assert.is_false(ok)
    local info = debug.getinfo(f, "S")
    return err, info.short_src .. ":" .. info.linedefined .. ": "
  end

  it("rejects a list for hunterparams where the brain is built, instead of fleeing from everything", function()
    local want = "bad argument #2 to 'RunAway' (a tag, a function or a table {tags, notags, oneoftags, fn}"
      .. " expected, got a list: a list of tags is written {tags = {...}})"
    local err, where = error_at(function() return bt.PriorityNode({RunAway(nil, {"predator"}, 5, 9)}, .25) end)
    assert.equal(where .. want, err)
    err, where = error_at(function() local node = RunAway(sheep, {"predator", notags = {"tame"}}, 5, 9) end)
    assert.equal(where .. want, err)
    err, where = error_at(function() local node = RunAway(sheep, 5, 5, 9) end)
    assert.equal(where .. "bad argument #2 to 'RunAway' (a tag, a function or a table {tags, notags, oneoftags, fn}"
      .. " expected, got number)", err)
    -- a table of options with a key bt ignores (Don't Starve's seeequipped) is fine
    local node = RunAway(sheep, {tags = {"predator"}, seeequipped = true}, 5, 8)
    bt.BT(sheep, node):Update()
    assert.equal(RUNNING, node.status)
  end)

  it("with hunterparams nil flees from any entity", function()
    wolf.tags = {}
    local node = RunAway(sheep, nil, 5, 8)
    bt.BT(sheep, node):Update()
    assert.equal(RUNNING, node.status)
    assert.equal(wolf, node.hunter)
  end)

  it("does not run when shouldrunfn(hunter, inst) says no", function()
    local seen = {}
    local node = RunAway(sheep, "predator", 5, 8, function(hunter, inst)
      seen[#seen + 1] = {hunter, inst}
      return false
    end)
    bt.BT(sheep, node):Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({{wolf, sheep}}, seen)
  end)

  it("fails and stops when the hunter disappears or dies", function()
    local node = RunAway(sheep, "predator", 5, 8)
    local tree = bt.BT(sheep, node)
    tree:Update()
    world:remove(wolf)
    world:clear_log()
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    assert.same({"Stop()"}, world:commands(sheep))

    local wolf2 = world:spawn("wolf", 2, 0)
    tree:Update()
    assert.equal(RUNNING, node.lastresult)
    world:kill(wolf2)
    tree:Update()
    assert.equal(FAILED, node.lastresult)
  end)

  it("walks instead of running with walk_instead", function()
    local tree = bt.BT(sheep, RunAway(sheep, "predator", 5, 8, nil, nil, nil, true))
    tree:Update()
    assert.same({"WalkInDirection(180.00)"}, world:commands(sheep))
  end)

  it("runs home with runhome when it has a home, without an end of its own", function()
    sheep.home = {-20, 5}
    local node = RunAway(sheep, "predator", 5, 1, nil, true)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.same({"GoToPoint(-20.00, 5.00, true)"}, world:commands(sheep))
    assert.equal(RUNNING, node.lastresult) -- 3 > safe_dist 1, but running home has no end test
    local homeless = world:spawn("sheep", 0, 1)
    local t2 = bt.BT(homeless, RunAway(homeless, "predator", 5, 8, nil, true))
    t2:Update()
    assert.same({"RunInDirection(161.57)"}, world:commands(homeless))
  end)

  it("blends the flight with the direction of safe_point_fn", function()
    local tree = bt.BT(sheep, RunAway(sheep, "predator", 5, 8, nil, nil, nil, nil,
      function() return 0, 10 end))
    tree:Update()
    assert.same({"RunInDirection(135.00)"}, world:commands(sheep))
  end)

  it("takes the walkable direction when blocked and keeps it for 1 s", function()
    world.bounds = {-1, -10, 10, 10}
    local node = RunAway(sheep, "predator", 8, 20)
    local tree = bt.BT(sheep, node)
    tree:Update()
    -- 180 degrees is walled off; the nearest free direction the fake offers is 270
    assert.same({"RunInDirection(270.00)"}, world:commands(sheep))
    world:clear_log()
    world:step(0.5)
    wolf.x, wolf.y = sheep.x, sheep.y - 3 -- now straight away would be 90
    tree:Update()
    assert.same({"RunInDirection(270.00)"}, world:commands(sheep))
    world:clear_log()
    world:step(0.75)
    wolf.x, wolf.y = sheep.x, sheep.y - 3
    tree:Update()
    assert.same({"RunInDirection(90.00)"}, world:commands(sheep))
  end)

  it("runs anyway, straight away, when there is no walkable point at all", function()
    world.no_walkable = true
    local tree = bt.BT(sheep, RunAway(sheep, "predator", 5, 8))
    tree:Update()
    assert.same({"RunInDirection(180.00)"}, world:commands(sheep))
  end)

  it("works in a shared definition: each sheep flees its own hunter", function()
    local def = bt.define(RunAway(nil, "predator", function(inst) return inst.see end, 8))
    local far = world:spawn("sheep", 100, 0)
    local wolf2 = world:spawn("wolf", 100, 3)
    sheep.see, far.see = 5, 5
    local t1, t2 = bt.BT(sheep, def), bt.BT(far, def)
    t1:Update()
    t2:Update()
    assert.same({"RunInDirection(180.00)"}, world:commands(sheep))
    assert.same({"RunInDirection(270.00)"}, world:commands(far))
    assert.equal(wolf, t1.root.hunter)
    assert.equal(wolf2, t2.root.hunter)
    world:remove(wolf)
    t1:Update()
    t2:Update()
    assert.equal(FAILED, t1.root.lastresult)
    assert.equal(RUNNING, t2.root.lastresult)
  end)
end)
