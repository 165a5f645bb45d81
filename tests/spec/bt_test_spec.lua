-- SPDX-License-Identifier: MIT
-- bt.test (lua/bt/test.lua, docs/bt-test.md): scripted answers of its fake entities, by method name,
-- for one entity or for all, as a value, a function of the time or a timeline; forget; the
-- errors; and a brain driven into the branch a test wants. The rest of its world (movement,
-- combat, actions) is what the behaviour and brain specs run on.

local H = require "helpers"
local T = require "bt.test"
local bt = H.bt

describe("bt.test", function()
  local world

  before_each(function()
    world = T.world()
  end)

  after_each(function()
    H.restore()
  end)

  it("is the fake world the specs load as fake_entity", function()
    assert.equal(T, require "fake_entity")
    assert.equal("function", type(T.world))
  end)

  describe("answer", function()
    it("replaces the model's answer for one entity, and logs the call as scripted", function()
      local sheep = world:spawn("sheep", 0, 0, {hunger = 0.1})
      local other = world:spawn("sheep", 3, 0, {hunger = 0.1})
      world:answer(sheep, "GetHunger", 0.9)
      assert.equal(0.9, sheep:GetHunger())
      assert.equal(0.1, other:GetHunger())
      local calls = world:calls(sheep, "GetHunger")
      assert.equal(1, #calls)
      assert.is_true(calls[1].scripted)
      assert.equal(0.9, calls[1].results[1])
      assert.is_nil(world:calls(other, "GetHunger")[1].scripted)
    end)

    it("answers for every entity without one, after an entity's own answer", function()
      local sheep = world:spawn("sheep", 0, 0)
      local wolf = world:spawn("wolf", 3, 0)
      world:answer("IsDay", false)
      world:answer(wolf, "IsDay", true)
      assert.is_false(sheep:IsDay())
      assert.is_true(wolf:IsDay())
      assert.is_true(world.day) -- the model's day is left as it was
    end)

    it("answers nil when told so, and more than one value", function()
      local sheep = world:spawn("sheep", 0, 0)
      world:spawn("grass", 2, 0)
      world:answer(sheep, "FindEntity", nil)
      assert.is_nil(sheep:FindEntity(10, "grass"))
      world:answer(sheep, "GetPosition", function() return 7, 8 end)
      assert.same({7, 8}, {sheep:GetPosition()})
    end)

    it("calls a function with the time and the call's arguments", function()
      local sheep = world:spawn("sheep", 0, 0)
      local grass = world:spawn("grass", 2, 0)
      local seen = {}
      world:answer(sheep, "FindEntity", function(t, radius, tags)
        seen[#seen + 1] = {t, radius, tags}
        return t >= 1 and grass or nil
      end)
      assert.is_nil(sheep:FindEntity(15, "grass"))
      world:step(1)
      assert.equal(grass, sheep:FindEntity(15, "grass"))
      assert.same({{0, 15, "grass"}, {1, 15, "grass"}}, seen)
    end)

    it("follows a timeline: the model before its first time, each value from its time on", function()
      local sheep = world:spawn("sheep", 0, 0, {hunger = 0.3})
      world:answer(sheep, "GetHunger", T.timeline(1, 0.6, 2, function(t) return t / 10 end, 3, nil))
      local seen = {}
      world:run(3.5, nil, function(tick)
        if tick % 15 == 0 then
          seen[#seen + 1] = tostring(sheep:GetHunger())
        end
      end)
      -- ticks 15 .. 105 are 0.5 s .. 3.5 s; 60 ticks of 1/30 s count as 2 s
      local tt = world.tick_time
      assert.same({"0.3", "0.6", "0.6", tostring(60 * tt / 10), tostring(75 * tt / 10), "nil", "nil"}, seen)
    end)

    it("keeps a command answered so from being carried out", function()
      local sheep = world:spawn("sheep", 0, 0)
      local grass = world:spawn("grass", 1, 0)
      world:answer(sheep, "StartAction", false)
      assert.is_false(sheep:StartAction("eat", grass))
      assert.is_false(sheep:IsBusy())
      assert.same({}, sheep.actions)
      world:answer(sheep, "GoToPoint", nil)
      sheep:GoToPoint(5, 0)
      world:step(1)
      assert.same({0, 0}, {sheep:GetPosition()})
    end)

    it("is given to spawn as answers", function()
      local sheep = world:spawn("sheep", 0, 0, {answers = {IsTired = true, GetHunger = T.timeline(1, 1)}})
      assert.is_true(sheep:IsTired())
      assert.equal(0, sheep:GetHunger())
      world:step(1)
      assert.equal(1, sheep:GetHunger())
    end)

    it("is forgotten: the model answers again", function()
      local sheep = world:spawn("sheep", 0, 0, {hunger = 0.2})
      world:answer(sheep, "GetHunger", 1)
      world:answer("GetHunger", 0.7)
      world:forget(sheep, "GetHunger")
      assert.equal(0.7, sheep:GetHunger())
      world:forget("GetHunger")
      assert.equal(0.2, sheep:GetHunger())
      world:forget(sheep, "IsDay") -- nothing to forget
      assert.is_true(sheep:IsDay())
    end)

    it("names what is wrong in its errors", function()
      local sheep = world:spawn("sheep", 0, 0)
      local stranger = T.world():spawn("wolf", 0, 0)
      local function err(f, ...)
        local ok, msg = pcall(f, ...)
        assert.is_false(ok)
        return msg
      end
      assert.matches("bad argument #2 to 'answer' %('GetHungr' is not a method of the entity interface",
        err(world.answer, world, sheep, "GetHungr", 1))
      assert.matches("bad argument #1 to 'answer' %(an entity of this world or a method name expected, got number%)",
        err(world.answer, world, 3, "IsDay", 1))
      assert.matches("bad argument #1 to 'forget' %(an entity of this world or a method name expected, got an entity of another world%)",
        err(world.forget, world, stranger, "IsDay"))
      assert.matches("bad argument #2 to 'answer' %(method name expected, got nil%)",
        err(world.answer, world, sheep))
      assert.matches("bad argument #3 to 'answer' %(an answer expected",
        err(world.answer, world, sheep, "IsDay"))
      assert.matches("bad argument #2 to 'answer' %(an answer expected",
        err(world.answer, world, "IsDay"))
      assert.matches("bad argument #2 to 'answer' %('fly' is not a method",
        err(world.spawn, world, "sheep", 0, 0, {answers = {fly = true}}))
      assert.matches("bad argument #1 to 'timeline' %(a value after each time: got 0 arguments%)",
        err(T.timeline))
      assert.matches("bad argument #4 to 'timeline' %(a value after each time: got 3 arguments%)",
        err(T.timeline, 0, true, 5))
      assert.matches("bad argument #3 to 'timeline' %(time expected, got string%)",
        err(T.timeline, 0, true, "5", false))
      assert.matches("bad argument #3 to 'timeline' %(time 1 is not after the time before it, 2%)",
        err(T.timeline, 2, true, 1, false))
      assert.matches("bad argument #1 to 'timeline' %(time expected, got nan%)",
        err(T.timeline, 0 / 0, true))
    end)
  end)

  describe("answer_at", function()
    it("gives a value, a function's results, or a timeline's, and false before a timeline starts", function()
      assert.same({true, 4}, {T.answer_at(4, 0)})
      local none = table.pack(T.answer_at(nil, 0))
      assert.equal(2, none.n)
      assert.is_true(none[1])
      assert.is_nil(none[2])
      assert.same({true, 2, "x"}, {T.answer_at(function(t, a) return t * 2, a end, 1, "x")})
      local tl = T.timeline(1, "a", 3, function(t) return "b" .. t end)
      assert.same({false}, {T.answer_at(tl, 0.5)})
      assert.same({true, "a"}, {T.answer_at(tl, 1)})
      assert.same({true, "b3"}, {T.answer_at(tl, 3)})
    end)
  end)

  it("drives a brain into the branch a test wants: the sheep grazes once it is hungry", function()
    local unstub = T.stub_random({0.5})
    bt.set_clock(world:clock())
    local wrangler = bt.BrainWrangler()
    local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}})
    world:spawn("grass", 6, 0)
    world:answer(sheep, "GetHunger", T.timeline(0, 0, 3, 0.8))
    world:start_brain(sheep, dofile("brains/sheep.lua"), wrangler)
    world:run(2.9, wrangler)
    local before = world:commands(sheep, {"GoToPoint", "StartAction"})
    world:run(4, wrangler)
    local after = world:commands(sheep, {"GoToPoint", "StartAction"})
    unstub()
    for _, c in ipairs(before) do
      assert.is_nil(c:find("^StartAction"), "grazed before it was hungry: " .. c)
    end
    local grazed = false
    for _, c in ipairs(after) do
      grazed = grazed or c == "StartAction(eat, grass#2)"
    end
    assert.is_true(grazed, "never grazed: " .. table.concat(after, " "))
  end)
end)
