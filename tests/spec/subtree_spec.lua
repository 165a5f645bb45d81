-- SPDX-License-Identifier: MIT
-- Subtrees by reference (docs/lua-api.md, "Subtrees"): bt.define(root, name), bt.SubtreeNode,
-- bt.undefine, bt.defined; in trees built for one entity and in shared definitions; nodes
-- written in Lua inside; missing names, cycles, redefinition, dumps, events, hot reload.
local bt = require "bt"
local H = require "helpers"

local entity = H.entity

-- A behaviour written in Lua that counts its visits in a field of its own.
local Counter = bt.Class(bt.BehaviourNode, function(self, inst, name)
  bt.BehaviourNode._ctor(self, name or "Counter")
  self.inst = inst
  self.count = 0
end)
function Counter:Visit()
  self.count = self.count + 1
  self.inst.counted = (self.inst.counted or 0) + 1
  self.status = bt.RUNNING
  self:Sleep(1)
end
function Counter:OnStop() self.inst.stopped = (self.inst.stopped or 0) + 1 end
function Counter:DBString() return "count " .. self.count end

-- the names this spec defines, forgotten after each test
local NAMES = {"flee", "pause", "react", "rest", "a", "b", "c", "outer", "inner", "nowhere"}
for i = 0, 40 do NAMES[#NAMES + 1] = "l" .. i end

describe("subtrees", function()
  local clock
  before_each(function()
    clock = H.clock(0)
  end)
  after_each(function()
    for _, name in ipairs(NAMES) do bt.undefine(name) end
    H.restore()
  end)

  describe("SubtreeNode", function()
    it("is a node class named after its subtree", function()
      local node = bt.SubtreeNode("flee")
      assert.is_true(node:is_a(bt.SubtreeNode))
      assert.is_true(node:is_a(bt.BehaviourNode))
      assert.equal("flee", node.name)
      assert.equal("flee", node.subtree)
      assert.equal("READY", node.status)
    end)

    it("checks its argument", function()
      assert.has_error(function() bt.SubtreeNode(3) end,
        "bad argument #1 to 'SubtreeNode' (string expected, got number)")
      assert.has_error(function() bt.SubtreeNode() end,
        "bad argument #1 to 'SubtreeNode' (string expected, got nil)")
      assert.has_error(function() bt.SubtreeNode("") end,
        "bad argument #1 to 'SubtreeNode' (the name of a subtree expected, got \"\")")
    end)
  end)

  describe("in a tree built for one entity", function()
    -- a root that is itself a subtree node, or that holds one, in a new Lua state: building it
    -- pushed past the room BT's C function has on the Lua stack (tests/ci/apicheck.sh's Lua
    -- asserted on it)
    it("is built whatever the depth of the subtree nodes, the root one included", function()
      local out, err, ok = H.run_lua([[
        local bt = require "bt"
        bt.define(bt.SequenceNode({bt.ActionNode(function(inst) inst.a = true end, "A")}), "a")
        bt.define(bt.ActionNode(function(inst) inst.b = true end, "B"), "b")
        local roots = {
          function() return bt.SubtreeNode("a") end,
          function() return bt.SubtreeNode("b") end,
          function() return bt.SequenceNode({bt.SubtreeNode("b"), bt.SubtreeNode("a")}) end,
          function() return bt.NotDecorator(bt.SubtreeNode("b")) end,
        }
        for i, root in ipairs(roots) do
          local inst = {}
          bt.BT(inst, root()):Update()
          io.write(i, inst.a and "a" or "", inst.b and "b" or "", " ")
        end
      ]])
      assert.is_true(ok, err)
      assert.equal("1a 2b 3ab 4b ", out)
    end)

    it("runs the named definition, as the subtree node's only child", function()
      local seen = {}
      bt.define(bt.SequenceNode({
        bt.ConditionNode(function(inst) seen[#seen + 1] = inst.name return inst.scared end, "Scared"),
        bt.ActionNode(function(inst) inst.ran = true end, "Run"),
      }), "flee")
      local sheep = entity("sheep")
      sheep.scared = true
      local root = bt.PriorityNode({bt.SubtreeNode("flee"), bt.WaitNode(2)}, 1, true)
      local tree = bt.BT(sheep, root)
      tree:Update()
      assert.same({"sheep"}, seen)
      assert.is_true(sheep.ran)
      assert.equal(
        "Priority - READY <SUCCESS> ()>0.00\n" ..
        "   >flee - READY <SUCCESS> ()>0.00\n" ..
        "   >   >Sequence - READY <SUCCESS> ()>0.00\n" ..
        "   >   >   >Scared - READY <SUCCESS> ()>0.00\n" ..
        "   >   >   >Run - READY <SUCCESS> ()>0.00\n" ..
        "   >Wait - READY <READY> ()>0.00\n", tostring(tree))
      local snap = tree:snapshot()
      assert.same({depth = 1, name = "flee", status = "READY", last = "SUCCESS"}, snap[2])
      assert.same({depth = 2, name = "Sequence", status = "READY", last = "SUCCESS"}, snap[3])
      -- the subtree node's child is the entity's copy of the definition's root
      local node = root.children[1]
      local child = node.children[1]
      assert.equal(1, #node.children)
      assert.is_true(child:is_a(bt.SequenceNode))
      assert.equal("SUCCESS", child.lastresult)
      assert.equal(node, child.parent)
      assert.equal("Scared", child.children[1].name)
      sheep.scared = false
      clock.t = 1.5
      tree:Update()
      assert.equal("FAILED", node.lastresult)
      assert.equal("RUNNING", root.children[2].status)
    end)

    it("gives each place of reference its own states", function()
      bt.define(bt.WaitNode(1), "pause")
      local root = bt.SequenceNode({bt.SubtreeNode("pause"), bt.SubtreeNode("pause")})
      local tree = bt.BT({}, root)
      tree:Update()
      local first, second = root.children[1].children[1], root.children[2].children[1]
      assert.equal("RUNNING", first.status)
      assert.equal("READY", second.status)
      assert.equal(1, first.wake_time)
      clock.t = 1
      tree:Update()
      assert.equal("SUCCESS", first.lastresult)
      assert.equal("RUNNING", second.status)
      assert.equal(2, second.wake_time)
      assert.equal(1, tree:GetSleepTime())
    end)

    it("copies the nodes written in Lua for each entity and each place, with the entity as inst", function()
      bt.define(bt.ParallelNode({Counter(nil)}, "Busy"), "a")
      local wolf, sheep = entity("wolf"), entity("sheep")
      local rw = bt.SequenceNode({bt.SubtreeNode("a")})
      local rs = bt.ParallelNode({bt.SubtreeNode("a"), bt.SubtreeNode("a")})
      local tw, ts = bt.BT(wolf, rw), bt.BT(sheep, rs)
      tw:Update()
      ts:Update()
      tw:Update()
      assert.equal(2, wolf.counted)
      assert.equal(2, sheep.counted) -- one visit of each of its two copies
      local cw = rw.children[1].children[1].children[1]
      local c1, c2 = rs.children[1].children[1].children[1], rs.children[2].children[1].children[1]
      assert.equal(wolf, cw.inst)
      assert.equal(sheep, c1.inst)
      assert.equal(2, cw.count)
      assert.equal(1, c1.count)
      assert.equal(1, c2.count)
      assert.are_not.equal(c1, c2)
      assert.truthy(tostring(tw):find("Counter - RUNNING <RUNNING> (count 2)", 1, true))
      -- the template is untouched
      local template = bt.defined("a")
      assert.truthy(template)
      tw:Stop()
      assert.equal(1, wolf.stopped)
      ts:Stop()
      assert.equal(2, sheep.stopped)
    end)

    it("resolves nested references when the tree is built", function()
      bt.define(bt.ActionNode(function(inst) inst.log[#inst.log + 1] = "inner" end, "Inner"), "inner")
      bt.define(bt.SequenceNode({bt.SubtreeNode("inner"), bt.SubtreeNode("inner")}), "outer")
      local inst = {log = {}}
      local tree = bt.BT(inst, bt.SubtreeNode("outer"))
      tree:Update()
      assert.same({"inner", "inner"}, inst.log)
      local names = {}
      for _, line in ipairs(tree:snapshot()) do names[#names + 1] = line.depth .. line.name end
      assert.same({"0outer", "1Sequence", "2inner", "3Inner", "2inner", "3Inner"}, names)
    end)

    it("subscribes the EventNodes of a subtree through the entity, and FireEvent reaches them otherwise", function()
      bt.define(bt.EventNode(nil, "hit", bt.ActionNode(function(inst) inst.reacted = true end, "Flinch")), "react")
      local root = bt.PriorityNode({bt.SubtreeNode("react"), bt.WaitNode(5)}, 10, true)
      local pig = entity("pig")
      local tree = bt.BT(pig, root)
      tree:Update()
      assert.equal(1, #pig.handlers.hit)
      clock.t = 1
      pig:PushEvent("hit")
      tree:Update() -- the event cleared the Priority's clock: it evaluates at once
      assert.is_true(pig.reacted)
      tree:Stop()
      assert.equal(0, #pig.handlers.hit)
      -- an entity without ListenForEvent
      local rock = {}
      local tree2 = bt.BT(rock, bt.PriorityNode({bt.SubtreeNode("react"), bt.WaitNode(5)}, 10, true))
      tree2:Update()
      clock.t = 2
      tree2:FireEvent("hit")
      tree2:Update()
      assert.is_true(rock.reacted)
    end)

    it("draws the first evaluation of a subtree's Priority for each entity, unless noscatter", function()
      bt.define(bt.PriorityNode({bt.WaitNode(1)}, 2), "a")
      bt.define(bt.PriorityNode({bt.WaitNode(1)}, 2, true), "b")
      math.randomseed(7)
      local scattered = bt.SequenceNode({bt.SubtreeNode("a")})
      bt.BT({}, scattered)
      local lasttime = scattered.children[1].children[1].lasttime
      assert.is_number(lasttime)
      assert.is_true(lasttime >= 1 and lasttime < 3)
      local plain = bt.SequenceNode({bt.SubtreeNode("b")})
      bt.BT({}, plain)
      assert.is_nil(plain.children[1].children[1].lasttime)
      -- the entity's own Priority keeps the time its constructor drew
      math.randomseed(7)
      local own = bt.PriorityNode({bt.SubtreeNode("b")}, 4)
      local drawn = own.lasttime
      bt.BT({}, own)
      assert.equal(drawn, own.lasttime)
    end)
  end)

  describe("with tasks", function()
    it("gives each entity and each place its own task object, told ABORTED when interrupted", function()
      local log = {}
      local Walk = bt.Class(function(self, inst) self.inst = inst; self.n = 0 end)
      function Walk:update(inst)
        self.n = self.n + 1
        log[#log + 1] = inst.name .. ":" .. self.n
        return bt.RUNNING
      end
      function Walk:finish(inst, status) log[#log + 1] = inst.name .. ":" .. status end
      bt.define(bt.TaskNode(Walk, "Walk"), "a")
      local function brain()
        return bt.PriorityNode({
          bt.IfNode(function(inst) return inst.danger end, "Danger", bt.ActionNode(function() end, "Hide")),
          bt.ParallelNode({bt.SubtreeNode("a"), bt.SubtreeNode("a")}),
        }, 1, true)
      end
      local x, y = entity("x"), entity("y")
      local tx = bt.BT(x, brain())
      local ty = bt.define(brain()):instantiate(y)
      tx:Update()
      ty:Update()
      tx:Update()
      assert.same({"x:1", "x:1", "y:1", "y:1", "x:2", "x:2"}, log)
      log = {}
      x.danger = true
      clock.t = 2
      tx:Update()
      assert.same({"x:ABORTED", "x:ABORTED"}, log)
    end)
  end)

  describe("in a shared definition", function()
    it("runs with each entity's own state", function()
      bt.define(bt.SequenceNode({Counter(nil, "Flee")}), "flee")
      local def = bt.define(bt.PriorityNode({
        bt.IfNode(function(inst) return inst.scared end, "Scared", bt.SubtreeNode("flee")),
        bt.WaitNode(3),
      }, 1, true))
      local a, b = entity("a"), entity("b")
      a.scared = true
      local ta, tb = bt.BT(a, def), bt.BT(b, def)
      ta:Update()
      tb:Update()
      ta:Update()
      assert.equal(2, a.counted)
      assert.is_nil(b.counted)
      assert.truthy(tostring(ta):find("   >   >flee - RUNNING <RUNNING> ()", 1, true))
      assert.truthy(tostring(ta):find("Flee - RUNNING <RUNNING> (count 2)", 1, true))
      assert.truthy(tostring(tb):find("Wait - RUNNING <RUNNING> (3.00)", 1, true))
      assert.equal(def:size(), #ta:snapshot())
      assert.equal(7, def:size())
      assert.equal(a, ta.root.children[1].children[2].children[1].children[1].inst)
    end)

    it("is itself a subtree when it has a name, and can be used directly", function()
      local def = bt.define(bt.ActionNode(function(inst) inst.done = true end, "Do"), "a")
      assert.equal(def, bt.defined("a"))
      local e = {}
      bt.BT(e, def):Update()
      assert.is_true(e.done)
    end)
  end)

  describe("errors", function()
    it("name the missing subtree when the tree is built", function()
      local root = bt.SequenceNode({bt.SubtreeNode("nowhere")})
      assert.has_error(function() bt.BT({}, root) end, "BT: no subtree named 'nowhere'")
      -- nothing was bound: the tree can be built once the name is defined
      bt.define(bt.WaitNode(1), "nowhere")
      bt.BT({}, root):Update()
      assert.equal("RUNNING", root.status)
      bt.undefine("nowhere")
    end)

    it("refuse a definition whose subtree is missing, naming where", function()
      local ok, err = pcall(bt.define, bt.SequenceNode({bt.SubtreeNode("missing")}), "outer")
      assert.is_false(ok)
      assert.equal("define: no subtree named 'missing' (in subtree 'outer')", err)
      assert.is_nil(bt.defined("outer"))
      bt.define(bt.WaitNode(1), "inner")
      bt.define(bt.SequenceNode({bt.SubtreeNode("inner")}), "outer")
      bt.undefine("inner")
      assert.has_error(function() bt.BT({}, bt.SubtreeNode("outer")) end,
        "BT: no subtree named 'inner' (in subtree 'outer')")
    end)

    it("refuse cycles, naming them, and keep the old definition", function()
      assert.has_error(function() bt.define(bt.SequenceNode({bt.SubtreeNode("a")}), "a") end,
        "define: subtree cycle: a > a")
      assert.is_nil(bt.defined("a"))
      local a1 = bt.define(bt.WaitNode(1), "a")
      local b1 = bt.define(bt.SelectorNode({bt.SubtreeNode("a")}), "b")
      bt.define(bt.NotDecorator(bt.SubtreeNode("b")), "c")
      -- a > c > b > a
      assert.has_error(function() bt.define(bt.SequenceNode({bt.WaitNode(2), bt.SubtreeNode("c")}), "a") end,
        "define: subtree cycle: a > c > b > a")
      assert.equal(a1, bt.defined("a"))
      assert.equal(b1, bt.defined("b"))
      local tree = bt.BT({}, bt.SubtreeNode("c"))
      assert.equal(6, #tree:snapshot()) -- c, Not, b, Selector, a, Wait
    end)

    it("refuse a tree too big once expanded, before expanding it", function()
      -- each level runs the one below at two places: l18 would have 4 * 2^18 - 3 nodes
      bt.define(bt.WaitNode(1), "l0")
      local t0 = os.clock()
      for i = 1, 17 do
        local below = bt.SubtreeNode("l" .. (i - 1))
        bt.define(bt.SequenceNode({below, below}), "l" .. i)
      end
      assert.equal(4 * 2 ^ 17 - 3, bt.defined("l17"):size())
      local below = bt.SubtreeNode("l17")
      assert.has_error(function() bt.define(bt.SequenceNode({below, below}), "l18") end,
        "define: tree has more than 1000000 nodes once its subtrees are expanded")
      assert.is_nil(bt.defined("l18"))
      local wide = bt.SequenceNode({})
      for i = 1, 4 do wide.children[i] = bt.SubtreeNode("l17") end
      assert.has_error(function() bt.BT({}, wide) end,
        "BT: tree has more than 1000000 nodes once its subtrees are expanded")
      assert.is_true(os.clock() - t0 < 5)
    end)

    it("check the arguments of define, undefine and defined", function()
      local root = bt.WaitNode(1)
      assert.has_error(function() bt.define(root, 5) end,
        "bad argument #2 to 'define' (string or nil expected, got number)")
      assert.has_error(function() bt.define(root, "") end,
        "bad argument #2 to 'define' (the name of a subtree expected, got \"\")")
      assert.has_error(function() bt.undefine() end,
        "bad argument #1 to 'undefine' (string expected, got no value)")
      assert.has_error(function() bt.defined({}) end,
        "bad argument #1 to 'defined' (string expected, got table)")
    end)
  end)

  describe("redefinition", function()
    it("reaches the trees built afterwards; trees already built keep what they had", function()
      local old = bt.define(bt.ActionNode(function(inst) inst.v = "old" end, "Old"), "a")
      local e1, e2 = {}, {}
      local t1 = bt.BT(e1, bt.SequenceNode({bt.SubtreeNode("a")}))
      local new = bt.define(bt.ActionNode(function(inst) inst.v = "new" end, "New"), "a")
      assert.are_not.equal(old, new)
      local t2 = bt.BT(e2, bt.SequenceNode({bt.SubtreeNode("a")}))
      t1:Update()
      t2:Update()
      assert.equal("old", e1.v)
      assert.equal("new", e2.v)
      -- a definition that ran the old one keeps it; a subtree naming it picks the new one up
      assert.equal(new, bt.undefine("a"))
      assert.is_nil(bt.undefine("a"))
      assert.is_nil(bt.defined("a"))
      t1:Update()
      assert.equal("old", e1.v)
    end)
  end)

  it("gives a SharedBrain built from a function the subtree as it is when a brain starts", function()
    bt.define(bt.ActionNode(function(inst) inst.v = 1 end, "One"), "a")
    local Brain = bt.SharedBrain(function() return bt.SequenceNode({bt.SubtreeNode("a")}) end)
    local d1 = Brain.GetDefinition()
    assert.equal(d1, Brain.GetDefinition())
    bt.define(bt.ActionNode(function(inst) inst.v = 2 end, "Two"), "a")
    local d2 = Brain.GetDefinition()
    assert.are_not.equal(d1, d2)
    local e = {}
    bt.BT(e, d2):Update()
    assert.equal(2, e.v)
    bt.BT(e, d1):Update() -- a definition built before keeps the old subtree
    assert.equal(1, e.v)
  end)

  describe("hot reload", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir .. "/st"))
    local function write(name, text)
      local f = assert(io.open(dir .. "/st/" .. name .. ".lua", "w"))
      f:write(text)
      f:close()
    end
    local saved_path
    setup(function()
      saved_path = package.path
      package.path = dir .. "/?.lua;" .. package.path
      bt.reload.enable()
    end)
    teardown(function()
      package.path = saved_path
    end)

    local function moves(word)
      write("moves", string.format([[
local bt = require "bt"
bt.define(bt.ActionNode(function(inst) inst.did = %q end, "Flee"), "flee")
return true
]], word))
    end

    it("re-registers a reloaded subtree, rebuilds the brains that run it, and refuses broken edits", function()
      moves("run")
      write("sheep", [[
local bt = require "bt"
local Sheep = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function Sheep:OnStart()
  self.bt = bt.BT(self.inst, bt.PriorityNode({bt.SubtreeNode("flee")}, 0.5, true))
end
return Sheep
]])
      require "st.moves" -- the sheep's module does not require it: it only names the subtree
      local Sheep = require "st.sheep"
      local manager = bt.BrainWrangler()
      local inst = {}
      local brain = Sheep(inst)
      brain.manager = manager
      inst.brain = brain
      brain:Start()
      manager:Update(1)
      assert.equal("run", inst.did)
      local old_tree = brain.bt

      moves("hide")
      local ok, info = bt.reload.module("st.moves")
      assert.is_true(ok, info)
      assert.equal(1, info.brains)
      assert.are_not.equal(old_tree, brain.bt)
      clock.t = 1
      manager:Update(2)
      assert.equal("hide", inst.did)

      -- a shared brain built from a function runs the new subtree too, and moves on the next edit
      write("herd", [[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({bt.SubtreeNode("flee")}, 0.5, true)
end)
]])
      local Herd = require "st.herd"
      local cow = {}
      local herd = Herd(cow)
      herd.manager = manager
      cow.brain = herd
      herd:Start()
      manager:Update(3)
      assert.equal("hide", cow.did)
      local herd_tree = herd.bt
      moves("stampede")
      ok, info = bt.reload.module("st.moves")
      assert.is_true(ok, info)
      assert.equal(2, info.brains)
      assert.are_not.equal(herd_tree, herd.bt)
      clock.t = 2
      manager:Update(4)
      assert.equal("stampede", cow.did)
      assert.equal("stampede", inst.did)

      -- a running node inside a subtree keeps its state when its path is unchanged
      local function rest(seconds)
        write("rest", string.format([[
local bt = require "bt"
bt.define(bt.SequenceNode({bt.WaitNode(%s), bt.ActionNode(function(inst) inst.rested = %q end, "Up")}), "rest")
return true
]], seconds, "v" .. seconds))
      end
      rest(10)
      require "st.rest"
      local Dog = bt.Class(bt.Brain, function(self, i) bt.Brain._ctor(self, i) end)
      function Dog:OnStart()
        self.bt = bt.BT(self.inst, bt.PriorityNode({bt.SubtreeNode("rest")}, 100, true))
      end
      local dog = {}
      local dbrain = Dog(dog)
      dbrain.manager = manager
      dog.brain = dbrain
      dbrain:Start()
      manager:Update(5)
      local wait = dbrain.bt.root.children[1].children[1].children[1]
      assert.equal("RUNNING", wait.status)
      local wake = wait.wake_time
      rest(20) -- another duration: the Wait keeps its path, so its state
      ok, info = bt.reload.module("st.rest")
      assert.is_true(ok, info)
      local moved = dbrain.bt.root.children[1].children[1].children[1]
      assert.equal("RUNNING", moved.status)
      assert.equal(wake, moved.wake_time)

      -- a broken edit: refused, and "flee" is still the last good one
      local good = bt.defined("flee")
      write("moves", [[
local bt = require "bt"
bt.define(bt.ActionNode(function() end, "Broken"), "flee")
error("broken on purpose")
]])
      ok = bt.reload.module("st.moves")
      assert.is_nil(ok)
      assert.equal(good, bt.defined("flee"))
    end)
  end)
end)
