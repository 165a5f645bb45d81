-- SPDX-License-Identifier: MIT
-- bt.test's substitution (docs/bt-test.md "Substituting leaves"): leaves and behaviours replaced by
-- path, by name and by class, with a fixed result, a run of some seconds or a function, on a tree,
-- on shipped shared brains started by the world or by the test, on a brain that builds its tree in
-- OnStart (a restart), after a hot reload; rules that match nothing and bad arguments. What the
-- creature does is read from the world's log and the recorder's transitions; the expected values
-- come from the brains' files and from the same run without substitution.

local H = require "helpers"
local T = require "bt.test"
local bt = H.bt
local Wander = require "behaviours.wander"

-- the status records of one node, as {time, from, to}
local function transitions(rec, path)
  local out = {}
  for _, r in ipairs(rec:records()) do
    if r.type == "status" and r.path == path then
      out[#out + 1] = {r.time, r.from, r.to}
    end
  end
  return out
end

local function think_times(rec)
  local out = {}
  for _, r in ipairs(rec:records()) do
    if r.type == "think" then
      out[#out + 1] = r.time
    end
  end
  return out
end

local error_of = H.error_of

local function contains(list, value)
  for _, v in ipairs(list) do
    if v == value then
      return true
    end
  end
  return false
end

describe("bt.test substitute", function()
  local world, wrangler, unstub

  before_each(function()
    world = T.world()
    bt.set_clock(world:clock())
    wrangler = bt.BrainWrangler()
    unstub = T.stub_random({0.5})
  end)

  after_each(function()
    unstub()
    H.restore()
  end)

  -- the sheep of docs/bt-test.md's first test: full, hungry from 2 s on, grass 4 units away
  local function hungry_sheep()
    local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}})
    world:spawn("grass", 4, 0)
    world:answer(sheep, "GetHunger", T.timeline(0, 0.1, 2, 0.9))
    return sheep
  end

  describe("on the shipped sheep (a bt.SharedBrain)", function()
    it("makes its eating fail by path, in the world: it never starts to eat", function()
      -- the same run without substitution eats (docs/bt-test.md): the second way
      local control = hungry_sheep()
      world:start_brain(control, dofile("brains/sheep.lua"), wrangler)
      world:run(6, wrangler)
      assert.is_true(contains(world:commands(control, "StartAction"), "StartAction(eat, grass#2)"))

      world = T.world()
      bt.set_clock(world:clock())
      wrangler = bt.BrainWrangler()
      world:substitute({{path = "Priority/Sequence/Graze", as = T.fail()}})
      local sheep = hungry_sheep()
      local brain = world:start_brain(sheep, dofile("brains/sheep.lua"), wrangler)
      local rec = brain:Record({capacity = 4096})
      world:run(6, wrangler)
      assert.same({}, world:commands(sheep, "StartAction"))
      assert.same({"Priority/Sequence/Graze"}, T.substitutes(brain))
      -- Graze ran from 2 s on (Hungry succeeded), and failed each time, never running
      local graze = transitions(rec, "Priority/Sequence/Graze")
      assert.is_true(#graze > 0)
      for _, tr in ipairs(graze) do
        assert.is_true(tr[1] >= 2 - 1e-9, "Graze visited before the sheep was hungry")
        assert.is_true(tr[3] == "FAILED" or tr[3] == "READY", "Graze went " .. tr[3])
      end
      -- the dump keeps the tree's shape and names
      assert.truthy(tostring(brain.bt):find("   >   >Graze - ", 1, true))
    end)

    it("makes its wander run 3 s then succeed, by class, on a brain the test starts", function()
      local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}, hunger = 0.1})
      local brain = dofile("brains/sheep.lua")(sheep)
      brain.manager = wrangler
      sheep.brain = brain
      T.substitute(brain, {class = Wander, as = T.run(3, "SUCCESS")})
      local rec = brain:Record({capacity = 4096})
      brain:Start()
      world:run(8, wrangler)
      -- the real Wander walks; its substitute does not move the sheep
      assert.same({}, world:commands(sheep, {"GoToPoint", "WalkInDirection", "RunInDirection"}))
      assert.same({"Priority/ChattyNode#2/Wander"}, T.substitutes(brain))
      local wander = transitions(rec, "Priority/ChattyNode#2/Wander")
      local thinks = think_times(rec)
      -- each run: RUNNING at its start, SUCCESS at the first think at or after 3 s later
      local runs = 0
      local started
      for _, tr in ipairs(wander) do
        if tr[3] == "RUNNING" then
          started = tr[1]
        elseif tr[3] == "SUCCESS" then
          assert.is_not_nil(started)
          local first
          for _, t in ipairs(thinks) do
            if t >= started + 3 - 1e-9 then
              first = t
              break
            end
          end
          assert.equal(first, tr[1])
          runs = runs + 1
          started = nil
        end
      end
      assert.is_true(runs >= 2, "runs: " .. runs) -- 8 s hold two runs of 3 s and more
    end)

    it("substitutes in a brain already started: it starts again with the substitutes", function()
      local sheep = hungry_sheep()
      local brain = world:start_brain(sheep, dofile("brains/sheep.lua"), wrangler)
      world:run(1, wrangler)
      T.substitute(brain, {{name = "Graze", as = "FAILED"}, {name = "Wander", as = T.run(100)}})
      world:clear_log()
      world:run(5, wrangler)
      assert.same({}, world:commands(sheep, {"StartAction", "GoToPoint", "WalkInDirection"}))
      assert.same({"Priority/Sequence/Graze", "Priority/ChattyNode#2/Wander"}, T.substitutes(brain))
    end)
  end)

  describe("on a brain that builds its tree in OnStart", function()
    local Eater = bt.Class(bt.Brain, function(self, inst)
      bt.Brain._ctor(self, inst)
    end)
    function Eater:OnStart()
      local inst = self.inst
      self.bt = bt.BT(inst, bt.PriorityNode({
        bt.IfNode(function() return inst.hunger > 0.5 end, "Hungry",
          bt.ActionNode(function() inst.ate = (inst.ate or 0) + 1 end, "Eat")),
        bt.ActionNode(function() inst.idled = (inst.idled or 0) + 1 end, "Idle"),
      }, 0.5, true))
    end

    local function eater()
      local inst = {hunger = 0.9}
      local brain = Eater(inst)
      brain.manager = wrangler
      inst.brain = brain
      return inst, brain
    end

    it("keeps the substitutes through a restart, which builds the tree again", function()
      local inst, brain = eater()
      local seen = {}
      T.substitute(brain, {path = "Priority/Sequence/Eat", as = function(who, node)
        seen[#seen + 1] = {who, node.name}
        return bt.RUNNING
      end})
      brain:Start()
      local first = brain.bt
      world:run(1, wrangler)
      assert.is_nil(inst.ate)
      assert.is_true(#seen > 0)
      assert.equal(inst, seen[1][1]) -- the function gets the entity, as a leaf's code does
      assert.equal("Eat", seen[1][2])
      assert.equal("RUNNING", brain.bt:snapshot()[4].status) -- Priority, Sequence, Hungry, Eat
      brain:Stop()
      brain:Start()
      assert.are_not.equal(first, brain.bt)
      local before = #seen
      world:run(1, wrangler)
      assert.is_nil(inst.ate)
      assert.is_true(#seen > before)
      assert.same({"Priority/Sequence/Eat"}, T.substitutes(brain))
    end)

    it("replaces by name a node shared by two parents, at both places", function()
      local inst = {}
      local idle = bt.ActionNode(function() inst.idled = (inst.idled or 0) + 1 end, "Idle")
      local tree = bt.BT(inst, bt.SelectorNode({
        bt.SequenceNode({bt.ConditionNode(function() return false end, "No"), idle}),
        bt.SequenceNode({idle, bt.ConditionNode(function() return false end, "Never")}),
      }))
      T.substitute(tree, {name = "Idle", as = T.succeed()})
      assert.same({"Selector/Sequence#1/Idle", "Selector/Sequence#2/Idle"}, T.substitutes(tree))
      tree:Update()
      assert.is_nil(inst.idled)
      -- Sequence#2: Idle (substituted) succeeds, Never fails: the Selector fails
      assert.equal("FAILED", tree:snapshot()[1].last)
    end)
  end)

  describe("on a tree", function()
    local function leafy()
      local log = {}
      local inst = {}
      local tree = bt.BT(inst, bt.PriorityNode({
        bt.SequenceNode({H.Leaf("Look", bt.SUCCESS, log), H.Leaf("Chase", bt.RUNNING, log)}),
        H.Leaf("Sleep", bt.RUNNING, log),
      }, 1, true))
      return tree, log, inst
    end

    it("replaces by path, keeping every name and place; the dump's lines stay", function()
      local tree, log = leafy()
      local names = {}
      for i, n in ipairs(tree:snapshot()) do
        names[i] = n.depth .. n.name
      end
      T.substitute(tree, {{path = "Priority/Sequence/Chase", as = T.fail()}})
      tree:Update()
      assert.same({"Look", "Sleep"}, log)
      local after = {}
      for i, n in ipairs(tree:snapshot()) do
        after[i] = n.depth .. n.name
      end
      assert.same(names, after)
      assert.equal("FAILED", tree:snapshot()[2].last) -- the Sequence
      assert.equal("RUNNING", tree:snapshot()[5].status) -- Sleep
    end)

    it("replaces by class: every node that is_a the class", function()
      local tree, log = leafy()
      T.substitute(tree, {class = H.Leaf, as = T.succeed()})
      assert.same({"Priority/Sequence/Look", "Priority/Sequence/Chase", "Priority/Sleep"}, T.substitutes(tree))
      tree:Update()
      assert.same({}, log)
      assert.equal("SUCCESS", tree:snapshot()[1].last)
    end)

    it("reports a function that returns no status, and fails the node", function()
      local tree = leafy()
      local errors = H.errors()
      T.substitute(tree, {path = "Priority/Sequence/Look", as = function() return true end})
      tree:Update()
      assert.equal(1, #errors)
      assert.truthy(errors[1]:find("substitute 'Look': its function returned true, not \"SUCCESS\", " ..
        "\"FAILED\" or \"RUNNING\"", 1, true))
      assert.equal("FAILED", tree:snapshot()[3].last)
    end)
  end)

  describe("under bt.set_where(true), for coverage", function()
    local old_where
    before_each(function() old_where = bt.set_where(true) end)
    after_each(function() bt.set_where(old_where) end)

    it("gives a leaf the line of the node it replaces, in a tree", function()
      local file = debug.getinfo(1, "S").source:sub(2)
      local line = debug.getinfo(1, "l").currentline + 2
      local tree = bt.BT({}, bt.PriorityNode({
        bt.ActionNode(function() end, "Eat"),
        bt.ActionNode(function() end, "Wander"),
      }, 1, true))
      tree:record({capacity = 0, stats = true})
      T.substitute(tree, {name = "Eat", as = T.fail()})
      tree:Update()
      local cov = T.coverage(tree)
      assert.equal(file .. ":" .. line, cov:row("Priority/Eat").where)
      assert.equal(file .. ":" .. (line + 1), cov:row("Priority/Wander").where)
      assert.equal(1, cov:row("Priority/Eat").failed)
    end)

    it("gives a leaf of a shared brain the line the brain's file gives the node", function()
      -- the second way: the same sheep without substitution
      local function graze_where(rules)
        local w = T.world()
        bt.set_clock(w:clock())
        local wr = bt.BrainWrangler()
        wr:Record({capacity = 0, stats = true})
        if rules then w:substitute(rules) end
        local sheep = w:spawn("sheep", 0, 0, {home = {0, 0}, answers = {GetHunger = 0.9}})
        w:spawn("grass", 4, 0)
        w:start_brain(sheep, dofile("brains/sheep.lua"), wr)
        w:run(1, wr)
        return T.coverage(wr):row("Priority/Sequence/Graze")
      end
      local plain = graze_where()
      local replaced = graze_where({path = "Priority/Sequence/Graze", as = T.fail()})
      assert.truthy(plain.where:find("brains/sheep.lua:%d+$"), plain.where)
      assert.equal(plain.where, replaced.where)
      assert.is_true(replaced.failed > 0)
    end)
  end)

  describe("after a hot reload", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir .. "/substreload"))
    package.path = dir .. "/?.lua;" .. package.path
    local function write(threshold)
      local f = assert(io.open(dir .. "/substreload/brain.lua", "w"))
      f:write(string.format([[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.IfNode(function(inst) return inst.hunger > %g end, "Hungry",
      bt.ActionNode(function(inst) inst.ate = (inst.ate or 0) + 1 end, "Eat")),
    bt.ActionNode(function(inst) inst.idled = (inst.idled or 0) + 1 end, "Idle"),
  }, 0.5, true)
end)
]], threshold))
      f:close()
    end

    -- (bt.reload.enable is not called: the module requires none of the others that a reload
    -- would run again; and enabled here, busted.all's other files would lose the tracking)
    it("gives the new tree the substitutes", function()
      write(0.5)
      local Brain = require "substreload.brain"
      local inst = {hunger = 0.3}
      local brain = Brain(inst)
      brain.manager = wrangler
      inst.brain = brain
      T.substitute(brain, {name = "Eat", as = T.fail()})
      brain:Start()
      local rec = brain:Record({capacity = 1024})
      world:run(1, wrangler)
      assert.is_true(inst.idled > 0)
      assert.same({}, transitions(rec, "Priority/Sequence/Eat")) -- not hungry: Eat is not reached
      write(0.1) -- now a hunger of 0.3 is hungry: the real Eat would eat
      local old = brain.bt
      local ok, info = bt.reload.module("substreload.brain")
      assert.is_true(ok, tostring(info))
      assert.equal(1, info.brains)
      assert.are_not.equal(old, brain.bt)
      world:run(1, wrangler)
      assert.is_nil(inst.ate)
      -- the new code's Hungry holds, and the substitute fails in Eat's place
      local eat = transitions(rec, "Priority/Sequence/Eat")
      assert.is_true(#eat > 0)
      assert.same({"READY", "FAILED"}, {eat[1][2], eat[1][3]})
      assert.same({"Priority/Sequence/Eat"}, T.substitutes(brain))
    end)
  end)

  describe("errors", function()
    local function tree()
      return bt.BT({}, bt.PriorityNode({
        bt.SequenceNode({bt.ConditionNode(function() return true end, "Hungry"),
          bt.ActionNode(function() end, "Eat")}),
        bt.ActionNode(function() end, "Idle"),
      }, 1, true))
    end

    it("names a rule that matches no node, and what the tree has there", function()
      local err = error_of(T.substitute, tree(), {{path = "Priority/Sequence/Eat", as = "FAILED"},
        {path = "Priority/Sequence/Eet", as = "FAILED"}})
      assert.truthy(err:find("substitute: rule 2 (path 'Priority/Sequence/Eet') matches no node of the " ..
        "tree 'Priority' ('Priority/Sequence' has Hungry, Eat)", 1, true), err)
      err = error_of(T.substitute, tree(), {{path = "Root/Eat", as = "FAILED"}})
      assert.truthy(err:find("rule 1 (path 'Root/Eat') matches no node of the tree 'Priority' (its root is " ..
        "'Priority')", 1, true), err)
      err = error_of(T.substitute, tree(), {{name = "Sleep", as = "FAILED"}})
      local msg = "substitute: rule 1 (name 'Sleep') matches no node of the tree 'Priority'"
      assert.equal(msg, err:sub(-#msg))
      err = error_of(T.substitute, tree(), {{class = Wander, as = "FAILED"}})
      assert.truthy(err:find("rule 1 (class 'behaviours.wander') matches no node", 1, true), err)
      local Anon = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Anon") end)
      err = error_of(T.substitute, tree(), {{class = Anon, as = "FAILED"}})
      assert.truthy(err:find("rule 1 (class table: 0x", 1, true), err) -- a class known by no name
      err = error_of(T.substitute, tree(), {{path = "Priority", as = "FAILED"}})
      assert.truthy(err:find("substitute: rule 1 (path 'Priority') matches the root 'Priority', which stays",
        1, true), err)
    end)

    it("raises a rule that matches nothing when the brain builds its tree, and keeps a started one", function()
      world:substitute({{path = "Priority/Sequence/Graz", as = T.fail()}})
      local sheep = world:spawn("sheep", 0, 0, {home = {0, 0}})
      local err = error_of(world.start_brain, world, sheep, dofile("brains/sheep.lua"), wrangler)
      assert.truthy(err:find("rule 1 (path 'Priority/Sequence/Graz') matches no node of the tree 'Priority' " ..
        "('Priority/Sequence' has Hungry, Graze)", 1, true), err)

      world = T.world()
      bt.set_clock(world:clock())
      local hungry = hungry_sheep()
      local brain = world:start_brain(hungry, dofile("brains/sheep.lua"), wrangler)
      err = error_of(T.substitute, brain, {{name = "Graze", as = "FAILED"}, {name = "Graz", as = "FAILED"}})
      assert.truthy(err:find("rule 2 (name 'Graz') matches no node", 1, true), err)
      world:run(6, wrangler) -- it goes on as it was: it eats
      assert.same({}, T.substitutes(brain))
      assert.is_true(contains(world:commands(hungry, "StartAction"), "StartAction(eat, grass#2)"))
    end)

    it("names bad arguments in luaL_argerror's style", function()
      local t = tree()
      local cases = {
        {{3, {}}, "bad argument #1 to 'substitute' (BT or Brain expected, got number)"},
        {{bt.Brain, {}}, "bad argument #1 to 'substitute' (BT or Brain expected, got table)"},
        {{t, "x"}, "bad argument #2 to 'substitute' (table of rules expected, got string)"},
        {{t, {}}, "bad argument #2 to 'substitute' (no rules: {path = ..., as = ...}, {name = ...}, " ..
          "{class = ...})"},
        {{t, {5}}, "bad argument #2 to 'substitute' (rule 1: table expected, got number)"},
        {{t, {{as = "FAILED"}}}, "bad argument #2 to 'substitute' (rule 1: one of path, name or class expected)"},
        {{t, {{path = "a", name = "b", as = "FAILED"}}},
          "bad argument #2 to 'substitute' (rule 1: one of path, name or class expected, got path and name)"},
        {{t, {{path = "", as = "FAILED"}}}, "bad argument #2 to 'substitute' (rule 1: path: a string expected, got '')"},
        {{t, {{name = 4, as = "FAILED"}}}, "bad argument #2 to 'substitute' (rule 1: name: a string expected, got number)"},
        {{t, {{class = "Wander", as = "FAILED"}}}, "bad argument #2 to 'substitute' (rule 1: class: a class " ..
          "expected (bt.ActionNode, require \"behaviours/wander\", ...), got string)"},
        {{t, {{name = "Eat", as = "RUNNING"}}}, "bad argument #2 to 'substitute' (rule 1: 'as' expected: " ..
          "\"SUCCESS\", \"FAILED\", a function, T.succeed(), T.fail() or T.run(seconds, result); got 'RUNNING')"},
        {{t, {{name = "Eat", as = T.fail()}, {name = "Idle"}}}, "bad argument #2 to 'substitute' (rule 2: 'as' " ..
          "expected: \"SUCCESS\", \"FAILED\", a function, T.succeed(), T.fail() or T.run(seconds, result); got nil)"},
      }
      for _, case in ipairs(cases) do
        local err = error_of(T.substitute, table.unpack(case[1]))
        assert.truthy(err:find(case[2], 1, true), err)
      end
      local err = error_of(T.run, -1)
      assert.truthy(err:find("bad argument #1 to 'run' (seconds expected, a number >= 0, got -1)", 1, true), err)
      err = error_of(T.run, "3")
      assert.truthy(err:find("bad argument #1 to 'run' (seconds expected, a number >= 0, got string)", 1, true), err)
      err = error_of(T.run, 3, "RUNNING")
      assert.truthy(err:find("bad argument #2 to 'run' (\"SUCCESS\" or \"FAILED\" expected, got 'RUNNING')", 1,
        true), err)
      err = error_of(world.substitute, world, 7)
      assert.truthy(err:find("bad argument #1 to 'substitute' (table of rules expected, got number)", 1, true), err)
      err = error_of(T.substitutes, {})
      assert.truthy(err:find("bad argument #1 to 'substitutes' (BT or Brain with a tree expected, got table)", 1,
        true), err)
    end)

    it("refuses a tree of a shared definition, and names the way that works", function()
      local def = bt.define(bt.SequenceNode({bt.ActionNode(function() end, "Eat")}))
      local err = error_of(T.substitute, bt.BT({}, def), {name = "Eat", as = "FAILED"})
      assert.truthy(err:find("belongs to a shared definition (bt.define), whose nodes cannot change: substitute " ..
        "on its brain", 1, true), err)
    end)
  end)
end)
