-- SPDX-License-Identifier: MIT
-- Saved games of the behaviours in behaviours/ (docs/behaviours.md "Saved games"): each behaviour
-- that keeps progress in Lua fields saves it with OnSave and takes it back with OnLoad.
--
-- How each case is checked: one fake world (fake_entity.lua) runs tree A, built as that
-- behaviour's own spec builds it, for some thinks, into the middle of the behaviour; A is saved
-- with entity ids (to_id: an entity's id). The world is then copied as a loaded game would
-- re-create it (same entities, same ids, no event listeners: those belonged to the old brain;
-- the world's own times shifted when the clock starts again) and a fresh tree B is built for the
-- copy and restored from A's string (from_id: the copy's entity with that id, nil if it is gone).
-- A and B then think in lockstep, each on its own world, fed the same random numbers, and must
-- do the same thing at every think: the same dump (statuses, DBStrings, sleep times), the same
-- snapshot, the same sleep time, the same calls on their entities, the same positions, the same
-- random numbers drawn. This is done with the clock going on (same time), restarted near 0 and
-- jumped far ahead. A third tree C, restored the same way but with its behaviour's OnLoad
-- replaced by one that does nothing, must differ from A somewhere: the check can fail.

local H = require "helpers"
local F = require "fake_entity"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

local Panic = require "behaviours.panic"
local Wander = require "behaviours.wander"
local ChaseAndAttack = require "behaviours.chaseandattack"
local RunAway = require "behaviours.runaway"
local Follow = require "behaviours.follow"
local FaceEntity = require "behaviours.faceentity"
local DoAction = require "behaviours.doaction"
local MinPeriod = require "behaviours.minperiod"
local ChattyNode = require "behaviours.chattynode"

local DT = 0.125 -- a think every 1/8 s: every time is a binary fraction, so re-basing is exact

-- ---- a random source both trees can be fed identically ----

local rng = {values = {0.5}, i = 0}
local real_random = math.random

local function fake_random(m, n)
  rng.i = rng.i + 1
  local v = rng.values[(rng.i - 1) % #rng.values + 1]
  if m == nil then
    return v
  elseif n == nil then
    return math.floor(v * m) + 1
  end
  return m + math.floor(v * (n - m + 1))
end

-- ---- the world, as a loaded game re-creates it ----

local function is_entity(v)
  return type(v) == "table" and getmetatable(v) ~= nil and v.world ~= nil and v.id ~= nil
end

local function deep_copy(v, memo)
  if type(v) ~= "table" then
    return v
  end
  if memo[v] then
    return memo[v]
  end
  local c = {}
  memo[v] = c
  for k, x in pairs(v) do
    c[deep_copy(k, memo)] = deep_copy(x, memo)
  end
  return setmetatable(c, getmetatable(v))
end

-- A copy of `world` whose clock reads `time`: its entities' own times (attack cooldowns, actions)
-- shifted with it, no listeners, empty logs. `drop_actions`: actions in flight are lost.
local function reload_world(world, time, drop_actions)
  world.log, world.events = {}, {}
  local w = deep_copy(world, {})
  local delta = time - world.time
  w.time = time
  for _, e in ipairs(w.entities) do
    e.listeners = {}
    e.next_attack = e.next_attack + delta
    for _, a in ipairs(e.actions) do
      a.start = a.start + delta
    end
    if e.busy ~= nil then
      e.busy.ends = e.busy.ends + delta
      if drop_actions then
        e.busy = nil
      end
    end
  end
  return w
end

local function ids_of(world)
  return {
    to_id = function(e) return is_entity(e) and e.id or nil end,
    from_id = function(id)
      local e = world.entities[id]
      return e ~= nil and e.valid and e or nil
    end,
  }
end

-- ---- one think of one tree, recorded ----

local function think(run, base)
  bt.set_clock(run.world:clock())
  rng.i = base
  run.world:clear_log()
  local nerr = #run.errors
  run.tree:Update()
  local inst = run.inst
  local r = {
    snap = H.snap(run.tree),
    sleep = run.tree:GetSleepTime(),
    cmds = run.world:commands(),
    pos = {inst.x, inst.y, inst.facing},
    drawn = rng.i - base,
    errors = #run.errors - nerr,
  }
  if not run.no_dump then
    r.dump = tostring(run.tree)
  end
  run.world:step(DT)
  return r
end

-- Builds a case's tree on `world`: a run {world, inst, tree, node, errors}.
local function start(case, world, errors)
  bt.set_clock(world:clock())
  local inst, root, node = case.build(world)
  return {world = world, inst = inst, tree = bt.BT(inst, root), node = node, errors = errors}
end

-- Runs a case: A for case.before thinks, saved; B (and C, without OnLoad) restored into a copy
-- of the world at `time` (nil: the same time). Returns A, B, C and their traces.
local function run_case(case, time, opts)
  opts = opts or {}
  rng.values, rng.i = case.random or {0.5}, 0
  local errors = {}
  bt.set_error_handler(function(msg) errors[#errors + 1] = msg end)
  local world = F.world(case.world)
  case.setup(world)
  local a = start(case, world, errors)
  for _ = 1, case.before do
    bt.set_clock(world:clock())
    world:clear_log()
    a.tree:Update()
    world:step(DT)
  end
  if case.at_save then
    case.at_save(a)
  end
  bt.set_clock(world:clock())
  local s = a.tree:save(ids_of(world))
  if opts.gone then -- an entity removed just after the save: the loaded game does not have it
    world:remove(world.entities[opts.gone])
  end
  local t = time or world.time
  local b = start(case, reload_world(world, t, opts.drop_actions), errors)
  bt.set_clock(b.world:clock())
  assert.same({}, b.tree:restore(s, ids_of(b.world)))
  local c = start(case, reload_world(world, t, opts.drop_actions), errors)
  c.node.OnLoad = function() end -- the saved data is there, but not taken back
  bt.set_clock(c.world:clock())
  assert.same({}, c.tree:restore(s, ids_of(c.world)))
  assert.same({}, errors)
  a.no_dump, b.no_dump, c.no_dump = opts.gone, opts.gone, opts.gone
  return a, b, c
end

local function lockstep(case, a, b, c, n)
  local base = rng.i
  local differs = false
  local trace_a, trace_b = {}, {}
  for k = 1, n do
    local ra = think(a, base)
    local rb = think(b, base)
    local rc = think(c, base)
    assert.same(ra, rb, case.name .. ": think " .. k .. " after the load")
    assert.equal(0, ra.errors)
    if not differs and not (pcall(assert.same, ra, rc)) then
      differs = true
    end
    trace_a[k], trace_b[k] = ra, rb
    base = base + ra.drawn
  end
  return differs, trace_a, trace_b
end

local TIMES = {
  {"the clock going on", function() return nil end},
  {"the clock restarted", function() return 0.5 end},
  {"the clock far ahead", function(saved) return saved + 1000.25 end},
}

-- ---- the cases: each behaviour as its own spec sets it up ----

local function nearest_villager(inst)
  return inst:FindEntity(10, "villager")
end

local function close(inst, target)
  local x, y = target:GetPosition()
  return inst:GetDistanceSqTo(x, y) < 64
end

local CASES = {
  {
    name = "Panic", random = {0.25, 0.5, 0.75, 0, 0.125, 1, 0.625},
    setup = function(w) w:spawn("sheep", 0, 0) end,
    build = function(w)
      local node = Panic(w.entities[1])
      return w.entities[1], node, node
    end,
    before = 5, after = 40,
  },
  {
    name = "Wander", random = {0.5, 0.25, 0.75, 0.125},
    setup = function(w) w:spawn("sheep", 0, 0) end,
    build = function(w)
      local node = Wander(w.entities[1], {0, 0}, 20)
      return w.entities[1], node, node
    end,
    before = 30, after = 160, -- saved 3.75 s in: walking, its phase half over
    at_save = function(a) assert.is_true(a.node.walking) end,
  },
  {
    name = "ChaseAndAttack",
    setup = function(w)
      w:spawn("wolf", 0, 0)
      local sheep = w:spawn("sheep", 10, 0)
      sheep.move = {mode = "dir", angle = 0, run = false} -- it walks away at 2 u/s
    end,
    build = function(w)
      local node = ChaseAndAttack(w.entities[1], 3, 30, 3, function() return w.entities[2] end)
      return w.entities[1], node, node
    end,
    before = 24, after = 40, -- saved after the first hit, in the cooldown: clock running
    at_save = function(a)
      assert.equal(1, a.node.numattacks)
      assert.is_not_nil(a.node.startruntime)
    end,
  },
  {
    name = "RunAway", world = {bounds = {-6, -6, 6, 6}},
    setup = function(w)
      w:spawn("sheep", 0, 0)
      w:spawn("wolf", 3, 0)
    end,
    build = function(w)
      local node = RunAway(w.entities[1], "predator", 5, 20)
      return w.entities[1], node, node
    end,
    before = 10, after = 60, -- saved at the wall, while a corrected direction is kept
    at_save = function(a) assert.is_not_nil(a.node.avoid_angle) end,
  },
  {
    name = "Follow",
    setup = function(w)
      local leader = w:spawn("villager", 0, 0)
      leader.move = {mode = "dir", angle = 90, run = false}
      w:spawn("guard", 20, 0)
    end,
    build = function(w)
      local node = Follow(w.entities[2], w.entities[1], 2, 5, 10)
      return w.entities[2], node, node
    end,
    before = 24, after = 60, -- saved within 0.75 * max_dist, still running since it ran before
    at_save = function(a)
      assert.equal("APPROACH", a.node.action)
      assert.is_true(a.node.ran)
      local leader = a.world.entities[1]
      assert.is_true(a.inst:GetDistanceSqTo(leader.x, leader.y) < 7.5 * 7.5)
    end,
  },
  {
    name = "FaceEntity",
    setup = function(w)
      w:spawn("guard", 0, 0)
      local v = w:spawn("villager", 3, 4, {walk_speed = 0.25})
      v.move = {mode = "dir", angle = 180, run = false}
    end,
    build = function(w)
      local node = FaceEntity(w.entities[1], nearest_villager, close, 3)
      return w.entities[1], node, node
    end,
    before = 6, after = 60,
  },
  {
    name = "DoAction (walking to its target)",
    setup = function(w)
      w:spawn("sheep", 0, 0, {hunger = 0.8})
      w:spawn("grass", 5, 0)
    end,
    build = function(w)
      local node = DoAction(w.entities[1], function() return "eat", w.entities[2] end, "Graze")
      return w.entities[1], node, node
    end,
    before = 4, after = 40,
  },
  {
    name = "DoAction (its action running, carried by the host)",
    setup = function(w)
      w:spawn("sheep", 0, 0, {hunger = 0.8})
      w:spawn("grass", 5, 0)
    end,
    build = function(w)
      local node = DoAction(w.entities[1], function() return "eat", w.entities[2] end, "Graze")
      return w.entities[1], node, node
    end,
    before = 18, after = 40,
    at_save = function(a) assert.is_true(a.node.started) end,
  },
  {
    name = "MinPeriod",
    setup = function(w) w:spawn("sheep", 0, 0) end,
    build = function(w)
      local node = MinPeriod(w.entities[1], 2, false, H.leaf("Eat", SUCCESS))
      return w.entities[1], node, node
    end,
    before = 6, after = 60, -- saved in the cooldown that began at construction
  },
  {
    name = "ChattyNode", random = {0.5, 0.25, 0.75},
    setup = function(w) w:spawn("sheep", 0, 0) end,
    build = function(w)
      local node = ChattyNode(w.entities[1], {"a", "b", "c"}, H.leaf("Chore", RUNNING), 2, 2)
      return w.entities[1], node, node
    end,
    before = 10, after = 80,
    at_save = function(a) assert.is_not_nil(a.node.lastline) end,
  },
}

describe("saved behaviours", function()
  before_each(function() math.random = fake_random end)
  after_each(function()
    math.random = real_random
    H.restore()
  end)

  for _, case in ipairs(CASES) do
    for _, when in ipairs(TIMES) do
      it(case.name .. " carries on exactly after a load, " .. when[1], function()
        local a, b, c = run_case(case, when[2](case.before * DT))
        local differs = lockstep(case, a, b, c, case.after)
        assert.is_true(differs, case.name .. ": a tree restored without OnLoad did the same")
      end)
    end
  end

  it("ChaseAndAttack's restored node counts attacks, and succeeds after max_attacks", function()
    local case = CASES[3]
    local a, b, c = run_case(case, 0.5)
    local _, ta, tb = lockstep(case, a, b, c, 40)
    assert.equal(3, b.node.numattacks)
    assert.equal(1, b.world:listener_count(b.inst, "onattackother"))
    local ended
    for k, r in ipairs(tb) do
      if not ended and r.snap[1]:find("SUCCESS$") then
        ended = k
      end
    end
    assert.is_not_nil(ended)
    assert.same(ta[ended], tb[ended])
    b.tree:Stop()
    assert.equal(0, b.world:listener_count(b.inst, "onattackother"))
  end)

  it("Panic's saved times are relative: the next turn comes as far after the load", function()
    local case = CASES[1]
    local a = run_case(case, nil)
    local left = a.node.waittime - a.world.time
    local _, b = run_case(case, 0.5)
    assert.equal(0.5 + left, b.node.waittime)
    assert.equal(a.node.angle, b.node.angle)
  end)

  for _, case in ipairs({CASES[4], CASES[5], CASES[6], CASES[7]}) do
    it(case.name .. " restored with its target gone behaves as with no target", function()
      -- the target (or hunter) is removed just after the save: A finds it invalid, B gets nil
      local gone = case.name == "Follow" and 1 or 2
      local a, b, c = run_case(case, 0.5, {gone = gone})
      local _, ta, tb = lockstep(case, a, b, c, 8)
      assert.equal(FAILED, ta[1].snap[1]:match("(%u+)$"))
      assert.same(ta, tb)
    end)
  end

  it("DoAction restarts an action in flight that the loaded game did not keep", function()
    local case = CASES[8]
    local _, b = run_case(case, 0.5, {drop_actions = true})
    local sheep, grass = b.inst, b.world.entities[2]
    assert.is_false(sheep:IsBusy())
    assert.equal(1, b.world:listener_count(sheep, "actiondone"))
    bt.set_clock(b.world:clock())
    b.tree:Update()
    assert.equal(RUNNING, b.node.status)
    assert.same({"StartAction(eat, grass#2)"}, b.world:commands(sheep, "StartAction"))
    assert.is_true(sheep:IsBusy())
    local timeline = {}
    for _ = 1, 20 do
      b.world:step(DT)
      b.tree:Update()
      timeline[#timeline + 1] = b.node.lastresult
      if b.node.lastresult == SUCCESS then
        break
      end
    end
    -- eating takes 2 s from the restart, at 0.5: done at 2.5, seen at that think
    assert.equal(SUCCESS, timeline[#timeline])
    assert.equal(2.5, b.world.time)
    assert.near(0.2, sheep:GetHunger(), 1e-9)
    assert.is_truthy(grass.valid)
  end)

  it("saves only plain data and entities, never a function", function()
    for _, case in ipairs(CASES) do
      rng.values, rng.i = case.random or {0.5}, 0
      local world = F.world(case.world)
      case.setup(world)
      local a = start(case, world, {})
      for _ = 1, case.before do
        a.tree:Update()
        world:step(DT)
      end
      local data = a.node:OnSave({now = world.time, to_id = ids_of(world).to_id})
      for k, v in pairs(data) do
        assert.is_true(type(v) ~= "function", case.name .. "." .. k)
        assert.is_true(type(v) ~= "table" or is_entity(v), case.name .. "." .. k)
      end
    end
  end)
end)

describe("behaviours without runtime state", function()
  it("Leash and StandStill have no OnSave: a restored tree keeps what its constructor gave", function()
    assert.is_nil(require("behaviours.leash").OnSave)
    assert.is_nil(require("behaviours.standstill").OnSave)
  end)
end)
