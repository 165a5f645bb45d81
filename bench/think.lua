-- think.lua: what a think costs. Run by `make bench`, or:
--
--   build/bench/bench_think bench/think.lua [--agents N] [--frames N]
--
-- Every agent thinks once per frame at 30 frames a second, and the host sets the time once per
-- frame (bt.set_clock(t)). Each scenario prints ns per think, leaf calls per think, the ratio to
-- the floor (ns per think over leaf calls per think times the floor; the floor is a Lua loop
-- calling the same kind of leaf function directly, measured in the same run), bytes per agent
-- (heap bytes of Lua and bt together, after a full collection) and heap allocations per think.

local bt = require "bt"
local bench = require "bench"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local measure = dofile(dir .. "/measure.lua")

local AGENTS, FRAMES = measure.options(arg, "bench_think bench/think.lua [--agents N] [--frames N]",
  5000, 300)
local TICK = measure.TICK

local function set_time(trees, f)
  bt.set_clock(f * TICK)
  for i = 1, #trees do trees[i]:Update() end
end

local now = 0
local function lua_clock(trees, f)
  now = f * TICK
  for i = 1, #trees do trees[i]:Update() end
end

local function shared(text)
  local defs = {}
  return function(inst, counting)
    local def = defs[counting]
    if not def then
      local leaf = counting and measure.counted(brains.inst_leaf) or brains.inst_leaf
      def = bt.define(brains.build(bt, text, leaf))
      defs[counting] = def
    end
    return def:instantiate(inst)
  end
end

local function per_agent(text)
  return function(inst, counting)
    local leaf = brains.closure_leaf(inst, text)
    return bt.BT(inst, brains.build(bt, text, counting and measure.counted(leaf) or leaf))
  end
end

local small, large = brains.small, brains.large
local nsmall, nlarge = brains.count(small), brains.count(large)

print(string.format("bt think benchmark: %d agents, %d frames at 30 Hz after %d to warm up " ..
  "(fastest fifth timed); the host sets the time once per frame", AGENTS, FRAMES, measure.WARM))
local floor = measure.floor(brains.inst_leaf("Condition", "idle"), AGENTS, FRAMES, brains.agent)
print(string.format("floor: a Lua loop calling a leaf function directly costs %.1f ns per call", floor))
print("")
print(string.format("%-36s %6s %9s %12s %8s %12s %13s", "scenario", "nodes", "ns/think",
  "leaves/think", "x floor", "bytes/agent", "allocs/think"))

local figures = {}
local function row(key, name, nodes, ns, leaves, bytes, allocs, lua_leaves)
  figures[key] = ns
  print(string.format("%-36s %6d %9.1f %12.2f %8s %12.0f %13.3f", name, nodes, ns, leaves,
    lua_leaves and string.format("%.2f", ns / (leaves * floor)) or "-", bytes, allocs))
end

local creates = {}
do
  local ns, leaves, bytes, allocs, create = bench.c_run(small, AGENTS, measure.WARM, FRAMES)
  row("c_small", "C leaves, shared definition", nsmall, ns, leaves, bytes, allocs, false)
  creates[#creates + 1] = {"C leaves: bt_inst_create", create}
  ns, leaves, bytes, allocs = bench.c_run(large, AGENTS, measure.WARM, FRAMES)
  row("c_large", "C leaves, shared definition", nlarge, ns, leaves, bytes, allocs, false)
end
do
  local ns, leaves, bytes, allocs, create = measure.scenario(shared(small), AGENTS, FRAMES, set_time,
    brains.agent)
  row("small", "Lua leaves, shared definition", nsmall, ns, leaves, bytes, allocs, true)
  creates[#creates + 1] = {"Lua leaves: definition:instantiate(inst)", create}
  ns, leaves, bytes, allocs = measure.scenario(shared(large), AGENTS, FRAMES, set_time, brains.agent)
  row("large", "Lua leaves, shared definition", nlarge, ns, leaves, bytes, allocs, true)
end
do
  local ns, leaves, bytes, allocs, create = measure.scenario(per_agent(small), AGENTS, FRAMES,
    set_time, brains.agent)
  row("ds", "Lua leaves, a tree per agent (DS)", nsmall, ns, leaves, bytes, allocs, true)
  creates[#creates + 1] = {"Lua leaves: BT(inst, root), tree built too", create}
end
do
  bt.set_clock(function() return now end)
  local ns, leaves, bytes, allocs = measure.scenario(shared(small), AGENTS, FRAMES, lua_clock,
    brains.agent)
  bt.set_clock(nil)
  row("clock", "Lua leaves, shared, Lua clock fn", nsmall, ns, leaves, bytes, allocs, true)
end

print("")
print(string.format("large / small brain: %.2fx with C leaves, %.2fx with Lua leaves",
  figures.c_large / figures.c_small, figures.large / figures.small))
print("agent creation:")
for _, c in ipairs(creates) do print(string.format("  %-44s %8.2f us", c[1], c[2] / 1000)) end
