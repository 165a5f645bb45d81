-- SPDX-License-Identifier: MIT
-- bench_reload.lua: the time to reload the brain of 10,000 live agents, for a shared brain
-- (bt.SharedBrain) and for a per-entity brain (Don't Starve's style), with a behaviour in each
-- tree that is running when the reload comes. Run by `make bench`:
--
--   LUA_CPATH="build/lib/lua/5.4/?.so;;" lua5.4 bench/bench_reload.lua [agents]
local bt = require "bt"
local agents = tonumber(arg[1]) or 10000

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
package.path = dir .. "/?.lua;" .. package.path
bt.reload.enable()

local function write(name, text)
  local f = assert(io.open(dir .. "/" .. name .. ".lua", "w"))
  f:write(text)
  f:close()
end

write("bench_walk", [[
local bt = require "bt"
local Walk = bt.Class(bt.BehaviourNode, function(self, inst) bt.BehaviourNode._ctor(self, "Walk"); self.inst = inst end)
function Walk:Visit() self.steps = (self.steps or 0) + 1; self.status = bt.RUNNING; self:Sleep(1) end
return Walk]])

-- about 40 nodes: guards, sequences, a parallel, decorators, the running Walk at the end
local tree_code = [[
  local function c(name) return bt.ConditionNode(function(inst) return inst[name] end, name) end
  local function a(name) return bt.ActionNode(function(inst) inst.acts = (inst.acts or 0) + 1 end, name) end
  local root = bt.PriorityNode({
    bt.WhileNode(function(inst) return inst.scared end, "Scared%s", bt.ParallelNode{a("Flee"), bt.WaitNode(2)}),
    bt.IfNode(function(inst) return inst.hungry end, "Hungry", bt.SequenceNode{a("Find"), bt.WaitNode(1), a("Eat")}),
    bt.WhileNode(function(inst) return inst.night end, "Night", bt.PriorityNode({
      bt.IfNode(function(inst) return inst.home end, "Home", a("Sleep")),
      bt.SequenceNode{c("tired"), bt.WaitNode(3)},
      bt.FailIfSuccessDecorator(a("Yawn")),
    }, 0.5)),
    bt.SequenceNode{c("bored"), bt.NotDecorator(c("busy")), a("Play")},
    bt.SelectorNode{c("x"), c("y"), c("z")},
    bt.LoopNode({bt.ConditionNode(function(inst) return inst.loop end, "Loop"), a("Spin")}, 3),
    Walk(%s),
  }, 0.25)
]]

local function shared(tag)
  write("bench_shared", string.format([[
local bt = require "bt"
local Walk = require "bench_walk"
return bt.SharedBrain(function()
%s
  return root
end)]], string.format(tree_code, tag, "nil")))
end

local function per_entity(tag)
  write("bench_ds", string.format([[
local bt = require "bt"
local Walk = require "bench_walk"
local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function B:OnStart()
%s
  self.bt = bt.BT(self.inst, root)
end
return B]], string.format(tree_code, tag, "self.inst")))
end

local t = 0
bt.set_clock(function() return t end)

local function measure(label, module, edit)
  local manager = bt.BrainWrangler()
  local Brain = require(module)
  collectgarbage()
  for i = 1, agents do
    local inst = {}
    local brain = Brain(inst)
    brain.manager = manager
    inst.brain = brain
    brain:Start()
  end
  for tick = 1, 3 do
    t = tick / 30
    manager:Update(tick)
  end
  edit("Edited")
  collectgarbage()
  local t0 = os.clock()
  local ok, info = bt.reload.module(module)
  local dt = os.clock() - t0
  assert(ok, info)
  print(string.format("%-22s %8d %10.1f %12.2f", label, info.brains, dt * 1000, dt / info.brains * 1e6))
end

print(string.format("reloading a ~40-node brain of %d live agents (os.clock)", agents))
print(string.format("%-22s %8s %10s %12s", "brain", "agents", "ms", "us per agent"))
shared("")
measure("shared (SharedBrain)", "bench_shared", shared)
per_entity("")
measure("per entity (DS style)", "bench_ds", per_entity)
os.execute("rm -rf " .. dir)
