-- SPDX-License-Identifier: MIT
-- exact.lua: what bt's DS-exact mode (bt.set_exact, docs/lua-api.md) costs. Runs the same
-- population of brains for a simulated minute under the default mode and under the exact one,
-- and prints thinks per brain per simulated second, clock calls per think, microseconds of CPU
-- per brain per simulated second, and the Lua heap per brain.
--
--   LUA_CPATH="build/lib/lua/5.4/?.so;;" lua5.4 bench/exact.lua [brains] [seconds] [mode]
--
-- mode: "default", "exact" or both (the default), each run after a warm-up run of the other.
--
-- The brain is the pattern of the Don't Starve brains whose thinking the mode changes (a
-- Panic-when-scared subtree: a Parallel of a leaf that sleeps and a Sequence starting with
-- WaitNode(3)), under a root Priority of period .25, with a Wander-like leaf below it.
local bt = require "bt"

local nbrains = tonumber(arg[1]) or 1000
local seconds = tonumber(arg[2]) or 60
local TICK = 1 / 30

local tick, calls = 0, 0
bt.set_clock(function() calls = calls + 1; return tick * TICK end)
bt.set_tick_time(TICK)

-- a leaf that runs for ever and sleeps .25 s between visits, as Panic does
local Sleeper = bt.Class(bt.BehaviourNode, function(self, t)
  bt.BehaviourNode._ctor(self, "Sleeper")
  self.t = t
end)
function Sleeper:Visit()
  self.status = bt.RUNNING
  self:Sleep(self.t)
end

local function make_brain(inst)
  local B = bt.Class(bt.Brain, function(self, i) bt.Brain._ctor(self, i) end)
  function B:OnStart()
    local scared = bt.WhileNode(function() return inst.scared end, "Scared",
      bt.ParallelNode{Sleeper(0.25), bt.SequenceNode{bt.WaitNode(3), bt.ActionNode(function() inst.scared = false end)}})
    self.bt = bt.BT(inst, bt.PriorityNode({scared, Sleeper(2)}, .25))
  end
  local b = B(inst)
  b.inst = inst
  inst.brain = b
  return b
end

local function run(exact)
  bt.set_exact(exact)
  bt.BrainManager = bt.BrainWrangler()
  collectgarbage("collect"); collectgarbage("collect")
  local before = collectgarbage("count")
  local brains = {}
  for i = 1, nbrains do
    local b = make_brain({id = i, scared = true})
    b:Start()
    brains[i] = b
  end
  collectgarbage("collect"); collectgarbage("collect")
  local kib = collectgarbage("count") - before
  local thinks = 0
  for _, b in ipairs(brains) do
    local update = b.OnUpdate
    b.OnUpdate = function(self) thinks = thinks + 1; return update(self) end
  end
  tick, calls = 0, 0
  local t0 = os.clock()
  for t = 1, seconds * 30 do
    tick = t
    if t % 150 == 0 then -- every 5 s, every brain is scared again
      for _, b in ipairs(brains) do b.inst.scared = true; b:ForceUpdate() end
    end
    bt.BrainManager:Update(t)
  end
  local cpu = os.clock() - t0
  for _, b in ipairs(brains) do b:Stop() end
  bt.set_exact(false)
  return thinks / nbrains / seconds, calls / thinks, cpu * 1e6 / nbrains / seconds, kib * 1024 / nbrains
end

print(string.format("%d brains, %d simulated seconds", nbrains, seconds))
print(string.format("%-8s %14s %16s %18s %12s", "mode", "thinks/brain/s", "clock calls/think", "us CPU/brain/s", "bytes/brain"))
local modes = arg[3] == "exact" and {true} or arg[3] == "default" and {false} or {false, true}
for _, exact in ipairs(modes) do
  run(not exact) -- a warm-up: classes, strings and the allocator's pools are made once
  local tps, cpt, us, bytes = run(exact)
  print(string.format("%-8s %14.2f %16.2f %18.2f %12.0f", exact and "exact" or "default", tps, cpt, us, bytes))
end
