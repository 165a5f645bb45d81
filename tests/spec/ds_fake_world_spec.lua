-- SPDX-License-Identifier: MIT
-- The scripted answers of tests/ds_compare/fake_world.lua (docs/porting-a-ds-brain.md, "Script
-- the world's answers"), with bt alone: fields and calls named as a Don't Starve brain asks them,
-- on the brain's entity, its made-up components and the globals; values, functions of the time
-- and timelines; what nothing scripts answers as before; the errors. Then the guide's example on
-- bt: a tree that asks the rabbit's questions runs the Sniff a mod put before Wander only when
-- the world is told what to answer.

local H = require "helpers"
local bt = H.bt
local SOURCE = os.getenv("BT_SOURCE_DIR") or "."
local fake_world = dofile(SOURCE .. "/tests/ds_compare/fake_world.lua")

describe("the fake Don't Starve world's scripted answers", function()
  local tick, W, env, log

  local function now() return tick / 30 end
  local function new_world(seed)
    local w = fake_world.new_world(seed or 1, log, now)
    local e = setmetatable({}, {__index = _G})
    bt.install_globals(e)
    w.install(e)
    e.GetTime = now
    return w, e
  end
  local function advance(to)
    while tick < to do
      tick = tick + 1
      W.advance(1 / 30, tick)
    end
  end

  before_each(function()
    tick = 0
    log = {}
    W, env = new_world()
  end)

  after_each(function()
    H.restore()
  end)

  it("set a made-up field of a made-up component, which is otherwise always there", function()
    local hauntable = W.inst.components.hauntable
    assert.truthy(hauntable.panic) -- the fake's own, made up: so the rabbit panics on every think
    W.answer("inst.components.hauntable.panic", false)
    assert.is_false(W.inst.components.hauntable.panic)
  end)

  it("hold a modelled field against what the world does to it each tick", function()
    local health = W.inst.components.health
    local set_by_world = false
    for _ = 1, 300 do
      advance(tick + 1)
      set_by_world = set_by_world or health.takingfiredamage
    end
    assert.is_true(set_by_world, "the model sets takingfiredamage now and then")
    W.answer("inst.components.health.takingfiredamage", false)
    for _ = 1, 300 do
      advance(tick + 1)
      assert.is_false(health.takingfiredamage)
    end
  end)

  it("follow a timeline: the world's own answer before its first time, then each value from its time on", function()
    local own = env.TheWorld.state.isspring
    W.answer("TheWorld.state.isday", fake_world.timeline(0, true, 5, false))
    W.answer("TheWorld.state.isspring", fake_world.timeline(2, not own))
    assert.is_true(env.TheWorld.state.isday)
    assert.equal(own, env.TheWorld.state.isspring)
    advance(60)
    assert.equal(not own, env.TheWorld.state.isspring)
    advance(149)
    assert.is_true(env.TheWorld.state.isday)
    advance(150)
    assert.is_false(env.TheWorld.state.isday)
  end)

  it("answer a method of a made-up component with a function of the time and the arguments, and log it", function()
    local seen = {}
    W.answer("inst.components.eater:CanEat()", function(t, item)
      seen[#seen + 1] = {t, item}
      return t >= 1
    end)
    local item = W.ents[1]
    assert.is_false(W.inst.components.eater:CanEat(item))
    advance(30)
    assert.is_true(W.inst.components.eater:CanEat(item))
    assert.same({{0, item}, {1, item}}, seen)
    assert.equal("inst.components.eater:CanEat(" .. fake_world.ser(item) .. ") -> true", log[#log])
  end)

  it("answer the entity's own methods and global functions, nil included", function()
    W.answer("inst:IsAsleep()", false)
    W.answer("FindEntity()", function() end)
    for _ = 1, 20 do
      advance(tick + 1)
      assert.is_false(W.inst:IsAsleep())
      assert.is_nil(env.FindEntity(W.inst, 100))
    end
    assert.equal("FindEntity(" .. fake_world.serargs(W.inst, 100) .. ") -> ", log[#log])
  end)

  it("leave a call to the world before a timeline's first time", function()
    local other = new_world()
    W.answer("inst:IsAsleep()", fake_world.timeline(10, true))
    for _ = 1, 30 do
      advance(tick + 1)
      other.advance(1 / 30, tick)
      assert.equal(other.inst:IsAsleep(), W.inst:IsAsleep())
    end
  end)

  it("change nothing else: what is not scripted answers as in a world without answers", function()
    local plain, plain_env = new_world()
    W.answer("TheWorld.state.isday", true)
    W.answer("inst.components.hauntable.panic", false)
    local a, b = {}, {}
    for _ = 1, 60 do
      tick = tick + 1
      W.advance(1 / 30, tick)
      plain.advance(1 / 30, tick)
      a[#a + 1] = tostring(W.inst.components.combat:HasTarget()) .. " " .. tostring(W.inst.sg:HasStateTag("busy"))
        .. " " .. tostring(W.inst:IsAsleep()) .. " " .. tostring(env.FindEntity(W.inst, 20))
      b[#b + 1] = tostring(plain.inst.components.combat:HasTarget()) .. " " .. tostring(plain.inst.sg:HasStateTag("busy"))
        .. " " .. tostring(plain.inst:IsAsleep()) .. " " .. tostring(plain_env.FindEntity(plain.inst, 20))
    end
    assert.same(b, a)
    assert.equal(plain.fingerprint(), W.fingerprint())
  end)

  it("name what is wrong in their errors", function()
    local function err(...)
      local ok, msg = pcall(W.answer, ...)
      assert.is_false(ok)
      return msg
    end
    assert.matches("bad argument #1 to 'answer' %(name expected, got number%)", err(3, true))
    assert.matches("'inst' is the entity itself", err("inst", true))
    assert.matches("'inst:IsAsleep': a :Method is the last step, and what it answers is named with %(%): inst:IsAsleep%(%)",
      err("inst:IsAsleep", false))
    assert.matches("'inst.sg:HasStateTag%(%).x' is not a name", err("inst.sg:HasStateTag().x", false))
    assert.matches("'inst..x' is not a name", err("inst..x", false))
    assert.matches("bad argument #2 to 'answer' %(an answer expected", err("TheWorld.state.isday"))
    assert.matches("answer inst.nothing.y: inst.nothing is nil, not a table", err("inst.nothing.y", 1))
  end)

  it("let the mod's Sniff, put before Wander, run only when the world is told what to answer", function()
    local function run(answers)
      tick = 0
      log = {}
      W, env = new_world(3)
      for name, a in pairs(answers) do W.answer(name, a) end
      bt.set_clock(now)
      -- the guide's Sniff, as a mod's behaviours/sniff.lua defines it
      assert(load([[
        Sniff = Class(BehaviourNode, function(self, inst)
          BehaviourNode._ctor(self, "Sniff")
          self.inst = inst
        end)
        function Sniff:Visit()
          if self.status == READY then
            self.inst.components.locomotor:Stop()
            self.done = GetTime() + 2
            self.status = RUNNING
          end
          if self.status == RUNNING then
            if GetTime() >= self.done then self.status = SUCCESS else self:Sleep(self.done - GetTime()) end
          end
        end]], "=sniff.lua", "t", env))()
      local inst = W.inst
      local function never() return false end
      -- the rabbit's questions, in the rabbit's order
      local tree = bt.BT(inst, bt.PriorityNode({
        bt.WhileNode(function()
          return inst.components.health.takingfiredamage or inst.components.hauntable.panic
        end, "PanicTrigger", bt.ConditionWaitNode(never, "Panic")),
        bt.ConditionNode(function() return env.FindEntity(inst, 5, nil, {"scarytoprey"}) ~= nil end, "RunAway"),
        bt.WhileNode(function() return not env.TheWorld.state.isday end, "IsNight", bt.ConditionWaitNode(never, "GoHome")),
        bt.ConditionNode(function() return env.FindEntity(inst, 20) ~= nil end, "EatFood"),
        env.Sniff(inst),
        bt.ConditionWaitNode(never, "Wander"),
      }, .5))
      local ran = {}
      for _ = 1, 300 do
        tick = tick + 1
        W.advance(1 / 30, tick)
        tree:Update()
        for _, n in ipairs(tree:snapshot()) do
          if n.status == bt.RUNNING and n.depth > 0 then
            ran[n.name] = ran[n.name] or tick
          end
        end
      end
      return ran
    end
    local plain = run({})
    assert.is_nil(plain.Sniff, "Sniff ran with no answers")
    assert.truthy(plain.Panic)
    local answered = run({
      ["inst.components.health.takingfiredamage"] = false,
      ["inst.components.hauntable.panic"] = fake_world.timeline(0, false, 5, true),
      ["FindEntity()"] = function() end,
      ["TheWorld.state.isday"] = true,
    })
    assert.truthy(answered.Sniff, "Sniff never ran with the answers")
    assert.is_true(answered.Sniff < 150)
    assert.is_true(answered.Panic >= 150, "Panic ran before 5 s")
  end)
end)
