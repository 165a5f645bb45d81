-- SPDX-License-Identifier: MIT
-- bt.test's checks over time (lua/bt/test.lua "checks over time", docs/bt-test.md "Checking what
-- a brain did"): T.trace of a tree, a brain and a world; what ran at a time, statuses, first
-- changes, transitions, sleeps; the expectations, passing and failing (their messages hold the
-- expectation, the tree and the last transitions); the bad arguments.
--
-- The sheep (brains/sheep.lua) in bt.test's world at 30 ticks a second, math.random scripted to
-- 0.5: its root Priority (period 0.25) draws its first evaluation time 0.25 * 0.5 + 0.25 * 0.5 =
-- 0.25, so it first evaluates at the first tick past 0.25 + 0.25, tick 16 (0.5333 s: tick 15 is
-- 0.5, not past it); each evaluation then comes at the first tick more than 0.25 s after the last
-- (7.5 ticks: 8 ticks on), at ticks 16 + 8k. Between them the brain thinks once, at the tick
-- before the evaluation (its sleep, 0.25 s, is 7.5 ticks: the 7th tick on), asking to sleep the
-- 1/60 s left. A wolf that comes within 8 units at 2 s (tick 60) is seen at the next evaluation,
-- tick 64 (2.1333 s): the sheep runs away 0.1333 s after, within the 0.5 s it must.

local H = require "helpers"
local T = require "bt.test"
local bt = H.bt

local ROOT = "Priority"
local RUNAWAY = "Priority/ChattyNode#1/RunAway"
local WANDER = "Priority/ChattyNode#2/Wander"
local GRAZE = "Priority/Sequence/Graze"

local function tick(n)
  return n / 30
end

describe("bt.test's checks over time", function()
  local world, wrangler, unstub

  before_each(function()
    unstub = T.stub_random({0.5})
    world = T.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  -- A sheep at home; a wolf comes within 8 units at 2 s; the world runs to 3 s.
  local function sheep_and_wolf()
    local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}})
    local brain = world:start_brain(sheep, dofile("brains/sheep.lua"), wrangler)
    local trace = T.trace(brain)
    world:run(2, wrangler)
    world:spawn("wolf", 5, 0)
    world:run(1, wrangler)
    return trace, sheep
  end

  describe("the sheep", function()
    it("flees within 0.5 s of a wolf coming near, at the next evaluation of its Priority", function()
      local trace = sheep_and_wolf()
      local when = trace:expect_within(RUNAWAY, "RUNNING", 2, 0.5)
      assert.near(tick(64), when, 1e-9)
      assert.near(tick(64), trace:first(RUNAWAY, "RUNNING", 2), 1e-9)
      assert.near(tick(16), trace:first(RUNAWAY, "FAILED"), 1e-9) -- tested at the first evaluation
      assert.is_true(trace:ran(RUNAWAY))
      trace:expect_running(tick(64), RUNAWAY)
      trace:expect_running(2, WANDER)
    end)

    it("wanders until the wolf comes, then runs: the running path at each time", function()
      local trace = sheep_and_wolf()
      assert.same({}, trace:running_at(0.5)) -- before the first evaluation
      assert.same({WANDER}, trace:running_at(tick(16)))
      assert.same({WANDER}, trace:running_at(tick(63)))
      assert.same({RUNAWAY}, trace:running_at(tick(64)))
      assert.same({RUNAWAY}, trace:running_at(3))
      assert.equal("RUNNING", trace:status_at(ROOT, 1))
      assert.equal("READY", trace:status_at(WANDER, tick(64))) -- interrupted
      assert.equal("READY", trace:status_at(ROOT, 0.5))
    end)

    it("never grazes when not hungry, and never ran away before the wolf", function()
      local trace = sheep_and_wolf()
      trace:expect_never(GRAZE)
      trace:expect_never(RUNAWAY, "SUCCESS")
      trace:expect_never("Priority/Sequence/Hungry", "SUCCESS")
      assert.is_false(trace:visited(GRAZE))
      assert.is_true(trace:visited("Priority/Sequence/Hungry")) -- tested, and failed
      assert.is_nil(trace:first(RUNAWAY, "RUNNING", tick(65)))
    end)

    it("gives the transitions in order: at the evaluation of tick 64 RunAway starts, then Wander is interrupted", function()
      local trace = sheep_and_wolf()
      local got = {}
      for _, tr in ipairs(trace:transitions({RUNAWAY, WANDER})) do
        got[#got + 1] = string.format("%d %s %s>%s", math.floor(tr.time * 30 + 0.5), tr.path, tr.from, tr.to)
      end
      -- RunAway is tested (and fails, and Step resets it) at every evaluation from tick 16 to 56
      local want = {string.format("16 %s READY>FAILED", RUNAWAY), string.format("16 %s READY>RUNNING", WANDER),
        string.format("16 %s FAILED>READY", RUNAWAY)}
      for k = 24, 56, 8 do
        want[#want + 1] = string.format("%d %s READY>FAILED", k, RUNAWAY)
        want[#want + 1] = string.format("%d %s FAILED>READY", k, RUNAWAY)
      end
      want[#want + 1] = string.format("64 %s READY>RUNNING", RUNAWAY)
      want[#want + 1] = string.format("64 %s RUNNING>READY", WANDER)
      assert.same(want, got)
      trace:expect_order({{WANDER, "RUNNING"}, {RUNAWAY, "RUNNING"}, {WANDER, "READY"}})
      trace:expect_order({RUNAWAY, WANDER}) -- visits
      -- every transition: the filtered ones are among them, in the same order
      assert.equal(#trace:transitions(), trace:count() - #trace:sleeps())
    end)

    it("asks to sleep a period at each evaluation, and the rest of it at the tick before the next", function()
      local trace = sheep_and_wolf()
      trace:expect_sleep(tick(16), 0.25)
      trace:expect_sleep(tick(17), 0.25) -- the think at 16 is the last at or before 17
      trace:expect_sleep(tick(23), tick(16) + 0.25 - tick(23)) -- 1/60
      local sleep, when = trace:sleep_at(tick(23))
      assert.near(1 / 60, sleep, 1e-9)
      assert.near(tick(23), when, 1e-9)
      local sleeps = trace:sleeps()
      -- a think every tick until the first evaluation (a READY Priority asks for 0), then two per
      -- 8 ticks
      assert.near(tick(1), sleeps[1].time, 1e-9)
      assert.equal(0, sleeps[1].sleep)
      assert.near(tick(16), sleeps[16].time, 1e-9)
      assert.near(0.25, sleeps[16].sleep, 1e-9)
      assert.near(tick(23), sleeps[17].time, 1e-9)
      assert.near(tick(24), sleeps[18].time, 1e-9)
    end)
  end)

  describe("failing expectations", function()
    -- The error's message: the expectation, the tree then (dump layout), the last transitions.
    local function failure(fn)
      local ok, msg = pcall(fn)
      assert.is_false(ok)
      return msg
    end

    it("expect_within: the time it came, the tree by the deadline and the last transitions", function()
      local trace = sheep_and_wolf()
      local msg = failure(function() trace:expect_within(RUNAWAY, "RUNNING", 2, 0.1) end)
      assert.matches("^[^\n]*bt_test_trace_spec.lua:%d+: expected: ", msg)
      assert.truthy(msg:find("expected: " .. RUNAWAY .. " RUNNING within 0.1 s of 2.0000 (by 2.1000); it was first at 2.1333\n", 1, true))
      -- at 2.1 the sheep still wanders: the dump's lines, statuses replayed
      assert.truthy(msg:find("the tree at 2.1000 (statuses replayed from the trace):\n" ..
        "Priority - RUNNING\n   >ChattyNode - READY\n   >   >RunAway - READY\n   >Sequence - READY\n" ..
        "   >   >Hungry - READY\n   >   >Graze - READY\n   >ChattyNode - RUNNING\n   >   >Wander - RUNNING\n", 1, true))
      -- the last 10 transitions up to 2.1: the 8 of the evaluation of tick 56 (1.8667: RunAway,
      -- its ChattyNode, Hungry and its Sequence fail, and Step resets them), the last 2 of tick 48
      assert.truthy(msg:find("the last 10 transitions up to 2.1000:\n", 1, true))
      assert.truthy(msg:find("  1.8667  Priority/Sequence/Hungry  FAILED > READY\n", 1, true))
      assert.equal(8, H.count(msg, "  1.8667  "))
      assert.equal(2, H.count(msg, "  1.6000  "))
    end)

    it("expect_within when it never came, expect_running, expect_never, expect_sleep, expect_order", function()
      local trace = sheep_and_wolf()
      local msg = failure(function() trace:expect_within(GRAZE, "RUNNING", 0, 1) end)
      assert.truthy(msg:find("expected: " .. GRAZE .. " RUNNING within 1 s of 0.0000 (by 1.0000); it never was from 0.0000 on\n", 1, true))
      msg = failure(function() trace:expect_running(1, RUNAWAY) end)
      assert.truthy(msg:find("expected: " .. RUNAWAY .. " RUNNING at 1.0000; it was READY (running then: " .. WANDER .. ")\n", 1, true))
      assert.truthy(msg:find("   >   >Wander - RUNNING\n", 1, true))
      msg = failure(function() trace:expect_never(RUNAWAY, "RUNNING") end)
      assert.truthy(msg:find("expected: " .. RUNAWAY .. " never RUNNING; it was at 2.1333\n", 1, true))
      assert.truthy(msg:find("the tree at 2.1333", 1, true))
      assert.truthy(msg:find("  2.1333  " .. RUNAWAY .. "  READY > RUNNING\n", 1, true))
      msg = failure(function() trace:expect_sleep(tick(16), 0.1) end)
      assert.truthy(msg:find("expected: the think at 0.5333 or before to ask for a sleep of 0.1 s; the think at 0.5333 asked for 0.25 s\n", 1, true))
      msg = failure(function() trace:expect_order({{WANDER, "READY"}, {RUNAWAY, "RUNNING"}}) end)
      assert.truthy(msg:find("expected: in order: " .. WANDER .. " READY, " .. RUNAWAY .. " RUNNING; item 2 (" ..
        RUNAWAY .. " RUNNING) did not come after " .. WANDER .. " READY at 2.1333\n", 1, true))
      msg = failure(function() trace:expect_order({GRAZE}) end)
      assert.truthy(msg:find("item 1 (" .. GRAZE .. " visited) did not come at all\n", 1, true))
    end)

    it("raises at the line of the spec that called it, so busted shows where", function()
      local trace = sheep_and_wolf()
      local line
      local ok, msg = pcall(function()
        line = debug.getinfo(1, "l").currentline + 1
        trace:expect_never(RUNAWAY)
      end)
      assert.is_false(ok)
      assert.truthy(msg:find("bt_test_trace_spec.lua:" .. line .. ": expected: ", 1, true))
    end)
  end)

  describe("small trees", function()
    -- A Priority of period 1 (no scatter) over a Sequence (Danger, then Flee) and Wander (which
    -- sleeps 5 s a visit); Danger is true from 1.2 on; the tree thinks at 0, 1.5 (the Priority's
    -- evaluation, due after 0 + 1: Flee starts, Wander is interrupted) and 2 (Flee succeeds: the
    -- Sequence and the Priority succeed, and Step resets them).
    local function escape()
      local clock = H.clock(0)
      local danger, flee_status = false, "RUNNING"
      local tree = bt.BT({}, bt.PriorityNode({
        bt.SequenceNode({bt.ConditionNode(function() return danger end, "Danger"),
          H.leaf("Flee", function() return flee_status end)}),
        H.leaf("Wander", function(self)
          self:Sleep(5)
          return "RUNNING"
        end),
      }, 1, true))
      local trace = T.trace(tree)
      tree:Update()
      clock.t = 1.2
      danger = true
      clock.t = 1.5
      tree:Update()
      clock.t = 2
      flee_status = "SUCCESS"
      tree:Update()
      return trace, tree
    end

    it("follows a tree's recorder: the running path, statuses and first changes by hand", function()
      local trace = escape()
      assert.same({"Priority/Wander"}, trace:running_at(0))
      assert.same({"Priority/Sequence/Flee"}, trace:running_at(1.5))
      assert.same({}, trace:running_at(2))
      assert.equal("READY", trace:status_at("Priority/Wander", 1.5))
      assert.equal(1.5, trace:first("Priority/Sequence/Flee", "RUNNING"))
      assert.equal(2, trace:first("Priority/Sequence/Flee", "SUCCESS"))
      assert.equal(1.5, trace:first("Priority/Wander", "READY", 1))
      trace:expect_within("Priority/Sequence/Flee", "RUNNING", 1.2, 0.5)
      trace:expect_order({"Priority/Sequence/Danger", {"Priority/Sequence/Flee", "RUNNING"}, {"Priority/Wander", "READY"}}, 1)
      trace:expect_sleep(0, 1) -- the least of the Priority's next evaluation (0 + 1) and Wander's 5
      trace:expect_sleep(1.5, 0) -- Flee runs, and never sleeps: 0
      trace:expect_sleep(2, 0) -- a READY Priority asks for 0
      assert.equal("Priority - READY\n   >Sequence - READY\n   >   >Danger - READY\n   >   >Flee - READY\n" ..
        "   >Wander - READY\n", trace:dump_at(2))
    end)

    it("is the same trace when asked again, keeps the records after detach, and a recorder of its own", function()
      local trace, tree = escape()
      assert.equal(trace, T.trace(tree))
      local rec = tree:recorder()
      assert.equal(rec, trace.recorder)
      assert.equal(0, rec:count()) -- capacity 0: the trace keeps them
      assert.equal(rec:total(), trace:count())
      trace:detach()
      local kept = trace:count()
      tree:Update() -- the Priority evaluates again (it succeeded at 2): records the trace does not keep
      assert.is_true(rec:total() > kept)
      assert.equal(kept, trace:count())
      assert.same({"Priority/Sequence/Flee"}, trace:running_at(1.5)) -- still asked
      assert.are_not.equal(trace, T.trace(tree)) -- a new one
    end)

    it("traces a world's brains, one trace per entity with a brain", function()
      local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}})
      world:spawn("grass", 4, 0)
      world:start_brain(sheep, dofile("brains/sheep.lua"), wrangler)
      local traces = T.trace(world)
      world:run(1, wrangler)
      assert.equal(1, (function() local n = 0 for _ in pairs(traces) do n = n + 1 end return n end)())
      traces[sheep]:expect_running(1, WANDER)
      assert.equal(traces[sheep], T.trace(sheep.brain))
    end)
  end)

  describe("bad arguments", function()
    it("name the function and the argument", function()
      local trace = sheep_and_wolf()
      local function err(fn)
        local ok, msg = pcall(fn)
        assert.is_false(ok)
        return msg
      end
      assert.matches("bad argument #1 to 'trace' %(a tree, a brain, a bt.Recorder or a world expected, got number%)",
        err(function() T.trace(3) end))
      assert.matches("bad argument #1 to 'status_at' %(no node 'Priority/Nope' in the tree at 1.0000%)",
        err(function() trace:status_at("Priority/Nope", 1) end))
      assert.matches("bad argument #1 to 'expect_never' %(no node 'Nope' in the trace's tree%)",
        err(function() trace:expect_never("Nope") end))
      assert.matches("bad argument #2 to 'first' %(a status expected %(\"READY\", \"SUCCESS\", \"FAILED\" or \"RUNNING\"%), got 'RUN'%)",
        err(function() trace:first(ROOT, "RUN") end))
      assert.matches("bad argument #1 to 'running_at' %(time expected, got string%)",
        err(function() trace:running_at("now") end))
      assert.matches("bad argument #4 to 'expect_within' %(seconds expected %(a number from 0%), got %-1%)",
        err(function() trace:expect_within(ROOT, "RUNNING", 0, -1) end))
      assert.matches("bad argument #1 to 'sleep_at' %(no think at %-1.0000 or before%)",
        err(function() trace:sleep_at(-1) end))
      assert.matches("bad argument #1 to 'expect_order' %(item 2: a path or {path, status} expected%)",
        err(function() trace:expect_order({ROOT, {ROOT}}) end))
      assert.matches("bad argument #1 to 'transitions' %(no node 'X' in the trace's tree%)",
        err(function() trace:transitions({ROOT, "X"}) end))
    end)
  end)
end)
