-- SPDX-License-Identifier: MIT
-- Hot reload (docs/reload.md): bt.reload.enable, module, watch, poll.
local bt = require "bt"
local H = require "helpers"

bt.reload.enable()

local root = os.tmpname()
os.remove(root)
assert(os.execute("mkdir -p " .. root))
package.path = root .. "/?.lua;" .. package.path

local counter = 0
-- a fresh module prefix per test, so that package.loaded never mixes them
local function fresh()
  counter = counter + 1
  local prefix = "rl" .. counter
  assert(os.execute(string.format("mkdir -p %s/%s", root, prefix)))
  return prefix
end

local function write(prefix, name, text)
  local f = assert(io.open(string.format("%s/%s/%s.lua", root, prefix, name), "w"))
  f:write(text)
  f:close()
end

local function shared_brain(prefix, threshold, extra)
  write(prefix, "brain", string.format([[
local bt = require "bt"
local Walk = require "%s.walk"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.WhileNode(function(inst) return inst.hunger > %d end, "Hungry",
      bt.ActionNode(function(inst) inst.ate = (inst.ate or 0) + 1; inst.hunger = 0 end, "Eat")),
    %s
    Walk(nil, 1),
  }, 0.5, true)
end)
]], prefix, threshold, extra or ""))
end

local function walk_behaviour(prefix, step_name)
  write(prefix, "walk", string.format([[
local bt = require "bt"
local Walk = bt.Class(bt.BehaviourNode, function(self, inst, speed)
  bt.BehaviourNode._ctor(self, "Walk")
  self.inst = inst
  self.speed = speed
end)
function Walk:Visit()
  self.steps = (self.steps or 0) + 1
  self.inst.x = self.inst.x + self.speed
  self.inst.last_step = %q
  self.status = bt.RUNNING
  self:Sleep(1)
end
function Walk:OnStop() self.inst.walk_stopped = (self.inst.walk_stopped or 0) + 1 end
function Walk:DBString() return "steps " .. tostring(self.steps) end
return Walk
]], step_name or "step"))
end

describe("bt.reload", function()
  local tick, t, manager
  local function run(n)
    for _ = 1, n do
      tick = tick + 1
      t = tick / 30
      manager:Update(tick)
    end
  end

  before_each(function()
    tick, t = 0, 0
    bt.set_clock(function() return t end)
    manager = bt.BrainWrangler()
  end)
  after_each(function()
    H.restore()
  end)

  local function spawn(Class, n)
    local insts = {}
    for i = 1, n do
      local inst = {x = 0, hunger = 0, id = i}
      local brain = Class(inst)
      brain.manager = manager
      inst.brain = brain
      brain:Start()
      insts[i] = inst
    end
    return insts
  end

  it("applies an edited condition at the next think, keeping every agent and its state", function()
    local p = fresh()
    walk_behaviour(p)
    shared_brain(p, 10)
    local Brain = require(p .. ".brain")
    local insts = spawn(Brain, 3)
    run(30)
    for _, inst in ipairs(insts) do inst.hunger = 5 end
    run(30)
    assert.is_nil(insts[1].ate) -- 5 is not more than 10
    local steps = insts[1].brain.bt.root.children[2].steps
    local brain, tree = insts[1].brain, insts[1].brain.bt
    shared_brain(p, 3)
    local ok, info = bt.reload.module(p .. ".brain")
    assert.is_true(ok, info)
    assert.same({p .. ".brain"}, info.modules)
    assert.equal(3, info.brains)
    assert.equal(brain, insts[1].brain) -- the same brain, registered as before
    assert.are_not.equal(tree, brain.bt)
    assert.equal("updating", manager:GetList(brain)) -- woken: it thinks next tick
    run(1)
    for _, inst in ipairs(insts) do assert.equal(1, inst.ate) end
    assert.equal(steps, brain.bt.root.children[2].steps) -- the running Walk kept its progress
    assert.equal(Brain, require(p .. ".brain")) -- the module keeps its identity
    assert.equal(Brain, rawget(Brain, "__index")) -- and a class stays its own __index
  end)

  it("keeps a running wrapper and its running child together", function()
    -- the wrapper's children were made before the child was kept, so it drove a fresh copy
    local p = fresh()
    walk_behaviour(p)
    write(p, "wrap", [[
local bt = require "bt"
local Wrap = bt.Class(bt.BehaviourNode, function(self, inst, child)
  bt.BehaviourNode._ctor(self, "Wrap", {child})
end)
function Wrap:Visit()
  self.children[1]:Visit()
  self.status = self.children[1].status
end
return Wrap]])
    local function brain(name)
      write(p, "brain", string.format([[
local bt = require "bt"
local Walk = require "%s.walk"
local Wrap = require "%s.wrap"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.ConditionNode(function() return false end, %q),
    Wrap(nil, Walk(nil, 1)),
  }, 0.5, true)
end)]], p, p, name))
    end
    brain("A")
    local insts = spawn(require(p .. ".brain"), 1)
    run(20)
    local wrap = insts[1].brain.bt.root.children[2]
    local walk = wrap.children[1]
    local steps = walk.steps
    brain("B")
    assert.is_true((bt.reload.module(p .. ".brain")))
    assert.equal(wrap, insts[1].brain.bt.root.children[2])
    assert.equal(walk, wrap.children[1])
    run(1)
    assert.equal(steps + 1, walk.steps)
  end)

  it("refuses a broken edit, with file and line, and the old brain keeps thinking", function()
    local p = fresh()
    walk_behaviour(p)
    shared_brain(p, 10)
    local insts = spawn(require(p .. ".brain"), 2)
    run(30)
    local tree = insts[1].brain.bt
    write(p, "brain", "local bt = require 'bt'\nreturn bt.SharedBrain(function() return oops( end)\n")
    local ok, err = bt.reload.module(p .. ".brain")
    assert.is_nil(ok)
    assert.truthy(err:find(p .. "/brain.lua:2:", 1, true), err)
    -- a runtime error while building the brain is refused as well
    write(p, "brain", "local bt = require 'bt'\nreturn bt.SharedBrain(function() error('no tree today') end)\n")
    ok, err = bt.reload.module(p .. ".brain")
    assert.is_nil(ok)
    assert.truthy(err:find("no tree today", 1, true))
    -- a constructor error in the brain's return (a tail call) names the brain file's line
    write(p, "brain", "local bt = require 'bt'\nreturn bt.SharedBrain(function()\n  return bt.PriorityNode(42, 1)\nend)\n")
    ok, err = bt.reload.module(p .. ".brain")
    assert.is_nil(ok)
    assert.truthy(err:find(p .. "/brain.lua:3: bad argument #1 to 'PriorityNode'", 1, true), err)
    assert.equal(tree, insts[1].brain.bt)
    local x = insts[1].x
    run(60)
    assert.is_true(insts[1].x > x)
    assert.equal("updating", manager:GetList(insts[1].brain) and "updating" or nil)
  end)

  it("keeps a running Walk through an edit of another branch, and stops what is gone", function()
    local p = fresh()
    walk_behaviour(p)
    shared_brain(p, 10)
    local insts = spawn(require(p .. ".brain"), 1)
    run(45)
    local walk = insts[1].brain.bt.root.children[2]
    assert.equal("RUNNING", walk.status)
    -- a new branch before the Walk: the Walk is the same object, still running, resumed
    shared_brain(p, 10, 'bt.IfNode(function(inst) return inst.cold end, "Cold", bt.ActionNode(function() end, "Shiver")),')
    assert.is_true((bt.reload.module(p .. ".brain")))
    local root_node = insts[1].brain.bt.root
    assert.equal(walk, root_node.children[3])
    assert.equal("RUNNING", walk.status)
    assert.equal(3, root_node.idx)
    assert.is_nil(insts[1].walk_stopped)
    local steps = walk.steps
    run(30)
    assert.is_true(walk.steps > steps) -- resumed: its count goes on from where it was
    assert.equal("RUNNING", walk.status)
    -- the Walk renamed away: it is gone, so it is stopped, and the Priority evaluates again
    write(p, "brain", string.format([[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({bt.ActionNode(function(inst) inst.idle = true end, "Idle")}, 0.5, true)
end)]]))
    assert.is_true((bt.reload.module(p .. ".brain")))
    assert.equal(1, insts[1].walk_stopped)
    assert.equal("READY", insts[1].brain.bt.root.status)
    assert.is_nil(insts[1].brain.bt.root.lasttime)
    run(1)
    assert.is_true(insts[1].idle)
  end)

  it("keeps a running Wander (behaviours/wander.lua) when only another branch changed", function()
    local F = require "fake_entity"
    local world = F.world()
    bt.set_clock(world:clock())
    local p = fresh()
    local function sheep(flee_dist)
      write(p, "sheep", string.format([[
local bt = require "bt"
local Wander = require "behaviours.wander"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.WhileNode(function(inst) return inst:FindEntity(%d, "predator") ~= nil end, "Danger",
      bt.ActionNode(function(inst) inst.fled = true end, "Flee")),
    Wander(nil, function(inst) return inst:GetHome() end, 10),
  }, 0.25)
end)]], flee_dist))
    end
    sheep(5)
    local s = world:spawn("sheep", 0, 0, {home = {0, 0}})
    world:start_brain(s, require(p .. ".sheep"), manager)
    world:run(3, manager)
    local wander = s.brain.bt.root.children[2]
    assert.equal("RUNNING", wander.status)
    local phase = {wander.walking, wander.waittime}
    world:spawn("wolf", 8, 0)
    sheep(12) -- only the Danger branch changed
    assert.is_true((bt.reload.module(p .. ".sheep")))
    assert.equal(wander, s.brain.bt.root.children[2])
    assert.equal("RUNNING", wander.status)
    assert.same(phase, {wander.walking, wander.waittime})
    world:run(0.1, manager)
    assert.is_true(s.fled) -- the new distance sees the wolf at 8
  end)

  it("updates a behaviour in place and rebuilds the brains that require it", function()
    local p = fresh()
    walk_behaviour(p, "old")
    shared_brain(p, 10)
    local Walk = require(p .. ".walk")
    local held_visit = Walk.Visit
    local insts = spawn(require(p .. ".brain"), 1)
    run(30)
    assert.equal("old", insts[1].last_step)
    walk_behaviour(p, "new")
    local ok, info = bt.reload.module(p .. ".walk")
    assert.is_true(ok, info)
    assert.same({p .. ".walk", p .. ".brain"}, info.modules)
    assert.equal(Walk, require(p .. ".walk"))
    assert.are_not.equal(held_visit, Walk.Visit)
    run(30)
    assert.equal("new", insts[1].last_step)
    assert.is_true(insts[1].brain.bt.root.children[2]:is_a(Walk))
  end)

  it("reloads per-entity brains (Don't Starve's style) the same way", function()
    local p = fresh()
    local function ds_brain(threshold)
      write(p, "dsbrain", string.format([[
local bt = require "bt"
local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function B:OnStart()
  local inst = self.inst
  self.bt = bt.BT(inst, bt.PriorityNode({
    bt.WhileNode(function() return inst.hunger > %d end, "Hungry", bt.ActionNode(function() inst.ate = true end, "Eat")),
    bt.SequenceNode{bt.ActionNode(function() inst.x = inst.x + 1 end, "Step"), bt.WaitNode(5)},
  }, 0.5, true))
end
return B
]], threshold))
    end
    ds_brain(10)
    local insts = spawn(require(p .. ".dsbrain"), 2)
    run(30)
    local wait = insts[1].brain.bt.root.children[2]
    assert.equal("RUNNING", wait.status)
    local x = insts[1].x
    for _, inst in ipairs(insts) do inst.hunger = 5 end
    ds_brain(3)
    assert.is_true((bt.reload.module(p .. ".dsbrain")))
    run(16) -- the next evaluation of the Priority
    assert.is_true(insts[1].ate)
    assert.equal(x, insts[1].x) -- the Sequence was not started again
    -- an OnStart that fails is refused, and the old trees stay
    write(p, "dsbrain", "local bt = require 'bt'\nlocal B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)\nfunction B:OnStart() error('broken OnStart') end\nreturn B\n")
    local tree = insts[1].brain.bt
    local ok, err = bt.reload.module(p .. ".dsbrain")
    assert.is_nil(ok)
    assert.truthy(err:find("broken OnStart", 1, true))
    assert.equal(tree, insts[1].brain.bt)
  end)

  it("stops a shared brain's old trees without making a copy of every agent's nodes", function()
    -- only a node with an OnStop needs its object when its tree is stopped; making each agent's
    -- copy of every node for a reload made it ten times slower
    local p = fresh()
    write(p, "wide", [[
local bt = require "bt"
return bt.SharedBrain(function()
  local leaves = {}
  for i = 1, 40 do leaves[i] = bt.ConditionNode(function(inst) return inst.flag end, "C" .. i) end
  return bt.PriorityNode({bt.SelectorNode(leaves)}, 0.5)
end)]])
    local insts = spawn(require(p .. ".wide"), 100)
    run(3)
    local function heap_growth(fn)
      collectgarbage()
      collectgarbage("stop")
      local before = collectgarbage("count")
      fn()
      local grown = collectgarbage("count") - before
      collectgarbage("restart")
      return grown
    end
    local function walk(node)
      for _, child in ipairs(node.children or {}) do walk(child) end
    end
    local copies = heap_growth(function() walk(insts[1].brain.bt.root) end)
    local ok, info
    local per_agent = heap_growth(function() ok, info = bt.reload.module(p .. ".wide") end) / #insts
    assert.is_true(ok, info)
    assert.equal(100, info.brains)
    assert.is_true(per_agent < copies / 2,
      string.format("a reload took %.1f KB per agent; one agent's node copies take %.1f KB", per_agent, copies))
  end)

  it("stops the old trees' EventNodes: their listeners are removed", function()
    local p = fresh()
    write(p, "ev", [[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.EventNode(nil, "attacked", bt.ActionNode(function() end, "Flee")),
    bt.ActionNode(function(inst) inst.x = inst.x + 1 end, "Idle"),
  }, 0.5)
end)]])
    write(p, "dsev", [[
local bt = require "bt"
local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function B:OnStart()
  self.bt = bt.BT(self.inst, bt.PriorityNode({
    bt.EventNode(self.inst, "attacked", bt.ActionNode(function() end, "Flee")),
    bt.ActionNode(function(inst) inst.x = inst.x + 1 end, "Idle"),
  }, 0.5))
end
return B]])
    for _, name in ipairs{"ev", "dsev"} do
      local Brain = require(p .. "." .. name)
      local insts = {}
      for i = 1, 3 do
        local inst = H.entity(name .. i)
        inst.x = 0
        inst.brain = Brain(inst)
        inst.brain.manager = manager
        inst.brain:Start()
        insts[i] = inst
      end
      run(2)
      local ok, info = bt.reload.module(p .. "." .. name)
      assert.is_true(ok, info)
      for _, inst in ipairs(insts) do
        -- every listener but the new tree's was removed: the old tree's, and for a per-entity
        -- brain the one of the tree its OnStart built for the check (docs/reload.md)
        local n = #inst.listens
        assert.equal(name == "ev" and 2 or 3, n, inst.name)
        assert.equal(n - 1, #inst.removes, inst.name)
        local removed = {}
        for _, r in ipairs(inst.removes) do removed[r.fn] = true end
        for i = 1, n - 1 do assert.is_true(removed[inst.listens[i].fn], inst.name) end
        assert.same({inst.listens[n].fn}, inst.handlers.attacked, inst.name)
        inst.brain:Stop()
        assert.same({}, inst.handlers.attacked, inst.name)
      end
    end
  end)

  it("leaves no listener of a refused reload behind: nodes its check made and never placed are stopped", function()
    local p = fresh()
    local function ds_brain(body)
      write(p, "half", [[
local bt = require "bt"
local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function B:OnStart()
  local ev = bt.EventNode(self.inst, "attacked", bt.ActionNode(function() end, "Flee"))
]] .. body .. [[
end
return B]])
    end
    ds_brain('  self.bt = bt.BT(self.inst, bt.PriorityNode({ev, bt.ActionNode(function() end, "Idle")}, 0.5))\n')
    local Brain = require(p .. ".half")
    local inst = H.entity("half")
    inst.brain = Brain(inst)
    inst.brain.manager = manager
    inst.brain:Start()
    run(2)
    assert.equal(1, #inst.handlers.attacked)
    -- a broken edit: OnStart makes its EventNode (which listens at once), then raises before BT
    ds_brain('  error("broken half-way")\n')
    local ok, err = bt.reload.module(p .. ".half")
    assert.is_nil(ok)
    assert.truthy(err:find("broken half-way", 1, true), err)
    assert.equal(1, #inst.handlers.attacked) -- only the running tree's: the check's was removed
    assert.same({inst.brain.bt.root.children[1].eventfn}, inst.handlers.attacked)
    inst.brain:Stop()
    assert.same({}, inst.handlers.attacked)
  end)

  it("patches the classes a module keeps in its table in place, and moves the brains of those that are brains", function()
    local p = fresh()
    local function kit(step, hunger)
      write(p, "kit", string.format([[
local bt = require "bt"
local M = {}
M.Walk = bt.Class(bt.BehaviourNode, function(self, inst) bt.BehaviourNode._ctor(self, "Walk"); self.inst = inst end)
function M.Walk:Visit()
  self.inst.x = self.inst.x + %d
  self.status = bt.RUNNING
end
M.Brain = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function M.Brain:OnStart()
  local inst = self.inst
  self.bt = bt.BT(inst, bt.PriorityNode({
    bt.WhileNode(function() return inst.hunger > %d end, "Hungry", bt.ActionNode(function() inst.ate = true end, "Eat")),
    M.Walk(inst),
  }, 0.5, true))
end
return M]], step, hunger))
    end
    kit(1, 10)
    local M = require(p .. ".kit")
    local Walk = M.Walk
    local insts = spawn(M.Brain, 2)
    run(3)
    local walk = insts[1].brain.bt.root.children[2]
    assert.equal(3, insts[1].x)
    kit(100, 3)
    local ok, info = bt.reload.module(p .. ".kit")
    assert.is_true(ok, info)
    assert.equal(2, info.brains) -- the brain class kept in the module's table moved its brains
    assert.equal(Walk, M.Walk)   -- patched, not replaced: an old object's class has the new Visit
    assert.equal(Walk.Visit, getmetatable(walk).Visit)
    run(1)
    assert.equal(103, insts[1].x) -- the kept Walk ran the new Visit
    for _, inst in ipairs(insts) do inst.hunger = 5 end
    run(16)
    assert.is_true(insts[1].ate)  -- and the new condition (hunger > 3, was > 10) decides
  end)

  it("tells a running task that a reload removed that its run was aborted; a kept one runs on", function()
    local p = fresh()
    local function brain(with_dig)
      write(p, "brain", string.format([[
local bt = require "bt"
local function task(name)
  return {
    start = function(_, inst) inst.log[#inst.log + 1] = "start:" .. name end,
    update = function() return bt.RUNNING end,
    finish = function(_, inst, s) inst.log[#inst.log + 1] = "finish:" .. name .. ":" .. s end,
  }
end
return bt.SharedBrain(function()
  return bt.ParallelNode({
    bt.TaskNode(task("Walk"), "Walk"),
    %s
  })
end)]], with_dig and 'bt.TaskNode(task("Dig"), "Dig"),' or ""))
    end
    brain(true)
    local insts = spawn(require(p .. ".brain"), 1)
    insts[1].log = {}
    run(3)
    assert.same({ "start:Walk", "start:Dig" }, insts[1].log)
    brain(false)
    assert.is_true((bt.reload.module(p .. ".brain")))
    assert.same({ "start:Walk", "start:Dig", "finish:Dig:ABORTED" }, insts[1].log)
    run(3)
    insts[1].brain:Stop()
    assert.same({ "start:Walk", "start:Dig", "finish:Dig:ABORTED", "finish:Walk:ABORTED" }, insts[1].log)
  end)

  it("waits for the end of a think when asked during one", function()
    local p = fresh()
    walk_behaviour(p)
    write(p, "brain", string.format([[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.ActionNode(function(inst) inst.result = { bt.reload.module(%q) } end, "Reloader"),
  }, 1, true)
end)]], p .. ".brain"))
    local insts = spawn(require(p .. ".brain"), 1)
    local tree = insts[1].brain.bt
    run(1)
    assert.is_true(insts[1].result[1])
    assert.equal("deferred until the think ends", insts[1].result[2])
    assert.are_not.equal(tree, insts[1].brain.bt) -- done as soon as the think ended
  end)

  it("watches the files of tracked modules and reloads them when saved", function()
    local p = fresh()
    walk_behaviour(p)
    shared_brain(p, 10)
    local insts = spawn(require(p .. ".brain"), 1)
    for _, mode in ipairs({"poll"}) do
      local m = bt.reload.watch(mode)
      assert.truthy(m == "inotify" or m == "poll")
    end
    assert.same({}, bt.reload.poll())
    local file = bt.reload.modules()[p .. ".brain"]
    assert.truthy(file:find(p .. "/brain.lua", 1, true))
    shared_brain(p, 3)
    os.execute("sleep 0.02")
    local results = bt.reload.poll()
    assert.equal(1, #results)
    assert.is_true(results[1].ok)
    assert.equal(file, results[1].file)
    assert.truthy(results[1].message:find("reloaded", 1, true))
    insts[1].hunger = 5
    run(1)
    assert.equal(1, insts[1].ate)
    write(p, "brain", "return oops(")
    os.execute("sleep 0.02")
    results = bt.reload.poll()
    assert.is_false(results[1].ok)
    assert.truthy(results[1].message:find("refused", 1, true))
    assert.same({}, bt.reload.poll())
  end)

  it("rejects a module name that is not a string", function()
    assert.has_error(function() bt.reload.module(5) end, "bad argument #1 to 'module' (string expected, got number)")
    local ok, err = bt.reload.module("no.such.module.here")
    assert.is_nil(ok)
    assert.equal("module 'no.such.module.here' not found on package.path", err)
  end)

  it("says whether it is enabled, and keeps the watcher a first watch made", function()
    assert.is_true(bt.reload.enabled())
    local mode = bt.reload.watch("poll")
    assert.equal(mode, bt.reload.watch("inotify"))
  end)

  it("runs a module that is on package.path but was never required, with no brains to move", function()
    local p = fresh()
    write(p, "fresh", "return {v = 7}\n")
    local ok, info = bt.reload.module(p .. ".fresh")
    assert.is_true(ok, info)
    assert.same({p .. ".fresh"}, info.modules)
    assert.equal(0, info.brains)
    assert.same({v = 7}, package.loaded[p .. ".fresh"])
  end)
end)
