-- SPDX-License-Identifier: MIT
-- recorder.lua: what recording costs a think from Lua. Run by `make bench`, or:
--
--   build/bench/bench_think bench/recorder.lua [--agents N] [--frames N] [--rounds N]
--
-- The benchmark brain (bench/brains.lua's small brain, Lua leaves), every agent thinking once per
-- frame and then asked for its sleep time, as a scheduler does; plain, and with every agent's tree
-- recording into a ring of its own (tree:record) of 256 records, of 32 (a ring that stays in
-- the cache), and of none (what recording costs apart from the ring's memory). The same rounds
-- measure every row, one after the other; the fastest round counts. bench_rec prints the same for C leaves, with the
-- recorder compiled out as a third reference.

local bt = require "bt"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local measure = dofile(dir .. "/measure.lua")

local AGENTS, FRAMES, ROUNDS = measure.options(arg,
  "bench_think bench/recorder.lua [--agents N] [--frames N] [--rounds N]", 5000, 300, 3)
local TICK = measure.TICK

local function frame(trees, f)
  bt.set_clock(f * TICK)
  for i = 1, #trees do
    local tree = trees[i]
    tree:Update()
    tree:GetSleepTime()
  end
end

local text = brains.small
local function shared(capacity)
  local defs = {}
  return function(inst, counting)
    local def = defs[counting]
    if not def then
      local leaf = counting and measure.counted(brains.inst_leaf) or brains.inst_leaf
      def = bt.define(brains.builder(text)(bt, leaf))
      defs[counting] = def
    end
    local tree = def:instantiate(inst)
    if capacity then tree:record({capacity = capacity}) end
    return tree
  end
end
local function per_agent(capacity)
  local build = brains.builder(text)
  return function(inst, counting)
    local leaf = brains.closure_leaf(inst, text)
    local tree = bt.BT(inst, build(bt, counting and measure.counted(leaf) or leaf))
    if capacity then tree:record({capacity = capacity}) end
    return tree
  end
end

print(string.format("the recorder from Lua: %d agents of the %d-node benchmark brain (Lua leaves), " ..
  "%d frames at 30 Hz, each think followed by GetSleepTime, fastest of %d rounds",
  AGENTS, brains.count(text), FRAMES, ROUNDS))
local rows = {
  {"shared definition, plain", shared()},
  {"shared definition, a ring of 256 each", shared(256), ref = 1},
  {"shared definition, a ring of 32 each", shared(32), ref = 1},
  {"shared definition, no ring (records counted)", shared(0), ref = 1},
  {"a tree per agent (DS), plain", per_agent()},
  {"a tree per agent (DS), a ring of 256 each", per_agent(256), ref = 5},
}
local list = {}
for i, r in ipairs(rows) do list[i] = measure.measurement(r[2], AGENTS, FRAMES, frame, brains.agent) end
local best = measure.rounds(ROUNDS, list)
print(string.format("  %-44s %9s %8s %12s", "scenario", "ns/think", "vs plain", "bytes/agent"))
for i, r in ipairs(rows) do
  local ref = r.ref and best[r.ref]
  print(string.format("  %-44s %9.1f %8s %12.0f", r[1], best[i].ns,
    ref and string.format("%+.1f%%", (best[i].ns / ref.ns - 1) * 100) or "(ref)", best[i].bytes))
end
