-- SPDX-License-Identifier: MIT
-- think.lua: what a think costs. Run by `make bench`, or:
--
--   build/bench/bench_think bench/think.lua [--agents N] [--frames N] [--rounds N]
--     [--order made|random]
--
-- Every agent thinks once per frame at 30 frames a second, and the host sets the time once per
-- frame (bt.set_clock(t)). Each scenario prints ns per think, leaf calls per think, the ratio to
-- the floor (ns per think over leaf calls per think times the floor; the floor is a Lua loop
-- calling the same kind of leaf function directly, measured in the same run), bytes per agent
-- (heap bytes of Lua and bt together, after a full collection) and heap allocations per think.
-- Every measurement, the floor too, runs once per round, the rounds one after another, and the
-- fastest round counts.

local bt = require "bt"
local bench = require "bench"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local measure = dofile(dir .. "/measure.lua")

local AGENTS, FRAMES, ROUNDS = measure.options(arg,
  "bench_think bench/think.lua [--agents N] [--frames N] [--rounds N] [--order made|random]",
  5000, 300, 3)
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
      def = bt.define(brains.builder(text)(bt, leaf))
      defs[counting] = def
    end
    return def:instantiate(inst)
  end
end

-- each agent builds its tree as a brain's OnStart does: constructor calls written out
local function per_agent(text)
  local build = brains.builder(text)
  return function(inst, counting)
    local leaf = brains.closure_leaf(inst, text)
    return bt.BT(inst, build(bt, counting and measure.counted(leaf) or leaf))
  end
end

local small, large = brains.small, brains.large
local nsmall, nlarge = brains.count(small), brains.count(large)

print(string.format("bt think benchmark: %d agents thinking %s, %d frames at 30 Hz after %d " ..
  "to warm up (fastest fifth timed), fastest of %d rounds; the host sets the time once per frame",
  AGENTS, measure.order(), FRAMES, measure.WARM, ROUNDS))

local function c_leaves(text)
  return function()
    local ns, leaves, bytes, allocs, create = bench.c_run(text, AGENTS, measure.WARM, FRAMES,
      measure.RANDOM_ORDER)
    return {ns = ns, leaves = leaves, bytes = bytes, allocs = allocs, create = create}
  end
end
local function lua_leaves(make, frame)
  return measure.measurement(make, AGENTS, FRAMES, frame, brains.agent,
    frame == lua_clock and function() return now end or nil)
end
local rows = {
  {"C leaves, shared definition", nsmall, c_leaves(small)},
  {"C leaves, shared definition", nlarge, c_leaves(large)},
  {"Lua leaves, shared definition", nsmall, lua_leaves(shared(small), set_time), lua = true},
  {"Lua leaves, shared definition", nlarge, lua_leaves(shared(large), set_time), lua = true},
  {"Lua leaves, a tree per agent (DS)", nsmall, lua_leaves(per_agent(small), set_time), lua = true},
  {"Lua leaves, shared, Lua clock fn", nsmall, lua_leaves(shared(small), lua_clock), lua = true},
}
local idle = brains.inst_leaf("Condition", "idle")
local references = {
  function() return {ns = measure.floor(idle, AGENTS, FRAMES, brains.agent)} end,
  function() return {ns = measure.floor(idle, AGENTS, FRAMES, brains.agent, true)} end,
  function() return {ns = measure.floor(bench.nop, AGENTS, FRAMES, brains.agent)} end,
}
local list = {table.unpack(references)}
for _, r in ipairs(rows) do list[#list + 1] = r[3] end
local best = measure.rounds(ROUNDS, list)
local floor, protected, c_call = best[1].ns, best[2].ns, best[3].ns

print(string.format("floor: a Lua loop calling a leaf function directly costs %.1f ns per call", floor))
print(string.format("a C loop calling it through lua_pcall, as bt calls a leaf: %.1f ns per call; " ..
  "a Lua loop calling an empty C function: %.1f ns per call", protected, c_call))
print("")
print(string.format("%-36s %6s %9s %12s %8s %12s %13s", "scenario", "nodes", "ns/think",
  "leaves/think", "x floor", "bytes/agent", "allocs/think"))
for i, r in ipairs(rows) do
  local f = best[i + #references]
  print(string.format("%-36s %6d %9.1f %12.2f %8s %12.0f %13.3f", r[1], r[2], f.ns, f.leaves,
    r.lua and string.format("%.2f", f.ns / (f.leaves * floor)) or "-", f.bytes, f.allocs))
end
local c_small, c_large, lua_small, lua_large, ds = table.unpack(best, #references + 1)
print("")
print(string.format("large / small brain: %.2fx with C leaves, %.2fx with Lua leaves",
  c_large.ns / c_small.ns, lua_large.ns / lua_small.ns))
local least = c_call + lua_small.leaves * protected
print(string.format("least a think from Lua can cost, a call into C and %.2f leaf calls through " ..
  "lua_pcall: %.1f ns, %.2f x floor", lua_small.leaves, least, least / (lua_small.leaves * floor)))
print("agent creation:")
for _, c in ipairs{{"C leaves: bt_inst_create", c_small.create},
  {"Lua leaves: definition:instantiate(inst)", lua_small.create},
  {"Lua leaves: BT(inst, root), tree built too", ds.create}} do
  print(string.format("  %-44s %8.2f us", c[1], c[2] / 1000))
end
