-- SPDX-License-Identifier: MIT
-- recorder.lua: what recording costs a think from Lua. Run by `make bench`, or:
--
--   build/bench/bench_think bench/recorder.lua [--agents N] [--frames N] [--rounds N]
--
-- The benchmark brain (bench/brains.lua's small brain, Lua leaves) as users run it: brains of a
-- bt.SharedBrain class (one shared definition), and brains whose OnStart builds a tree of their
-- own (Don't Starve's style), thought by a BrainWrangler at 30 ticks a second. Plain, and with
-- every brain recording (BrainWrangler:Record) into a ring of 256 records, of 32 (a ring that
-- stays in the cache), of none (what recording costs apart from the ring's memory), and into a
-- log file written at the end of each Update (no ring), encoded on this thread or on the log's. Each
-- round measures every row, one after the other; the fastest round counts. ns per think is the
-- time of the frames over the thinks the wrangler made. bench_rec prints the same for C leaves,
-- with the recorder compiled out as a third reference.

local bt = require "bt"
local bench = require "bench"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local measure = dofile(dir .. "/measure.lua")

local AGENTS, FRAMES, ROUNDS = measure.options(arg,
  "bench_think bench/recorder.lua [--agents N] [--frames N] [--rounds N]", 5000, 300, 3)

local text = brains.small
local Shared = bt.SharedBrain(function() return brains.builder(text)(bt, brains.inst_leaf) end)
local build = brains.builder(text)
local Own = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
function Own:OnStart() self.bt = bt.BT(self.inst, build(bt, brains.closure_leaf(self.inst, text))) end

-- ns per think and bytes per agent of n brains of Class thought by a wrangler for `frames` ticks
-- after WARM, recording with record's options (nil: not recording); the fastest of PARTS parts.
local function run(Class, record)
  collectgarbage()
  collectgarbage()
  local bytes0 = bench.memory()
  local manager = bt.BrainWrangler()
  local path
  if record and record.log then -- a log file of its own, removed after the run
    path = os.tmpname()
    record = {capacity = record.capacity, log = assert(bt.log.create(path, {thread = record.thread}))}
  end
  if record then manager:Record(record) end
  local list = {}
  for i = 1, AGENTS do
    local inst = brains.agent()
    inst.id = i
    local brain = Class(inst)
    brain.manager = manager
    brain:Start()
    list[i] = brain
  end
  local tick = 0
  for _ = 1, measure.WARM do
    tick = tick + 1
    bt.set_clock(tick * measure.TICK)
    manager:Update(tick)
  end
  collectgarbage()
  collectgarbage()
  local bytes = bench.memory() - bytes0
  local best = math.huge
  local per_part = FRAMES // measure.PARTS
  for _ = 1, measure.PARTS do
    local thinks0 = manager:GetStats().thinks
    local t0 = bench.now()
    for _ = 1, per_part do
      tick = tick + 1
      bt.set_clock(tick * measure.TICK)
      manager:Update(tick)
    end
    local ns = (bench.now() - t0) / (manager:GetStats().thinks - thinks0) * 1e9
    best = math.min(best, ns)
  end
  for i = 1, AGENTS do list[i]:Stop() end
  bt.set_clock(nil)
  local written
  if path then
    written = record.log:stats()
    record.log:close()
    os.remove(path)
  end
  return {ns = best, bytes = bytes / AGENTS, log = written}
end

print(string.format("the recorder from Lua: %d brains of the %d-node benchmark brain (Lua leaves) " ..
  "thought by a BrainWrangler, %d ticks at 30 Hz, fastest of %d rounds",
  AGENTS, brains.count(text), FRAMES, ROUNDS))
local rows = {
  {"shared definition, plain", Shared},
  {"shared definition, a ring of 256 each", Shared, {capacity = 256}, ref = 1},
  {"shared definition, a ring of 32 each", Shared, {capacity = 32}, ref = 1},
  {"shared definition, no ring (records counted)", Shared, {capacity = 0}, ref = 1},
  {"shared definition, into a log file", Shared, {capacity = 0, log = true}, ref = 1},
  {"shared definition, into a log file, thread", Shared, {capacity = 0, log = true, thread = true}, ref = 1},
  {"a tree per agent (DS), plain", Own},
  {"a tree per agent (DS), a ring of 256 each", Own, {capacity = 256}, ref = 7},
}
local list = {}
for i, r in ipairs(rows) do list[i] = function() return run(r[2], r[3]) end end
local best = measure.rounds(ROUNDS, list)
print(string.format("  %-44s %9s %8s %12s", "scenario", "ns/think", "vs plain", "bytes/agent"))
for i, r in ipairs(rows) do
  local ref = r.ref and best[r.ref]
  print(string.format("  %-44s %9.1f %8s %12.0f%s", r[1], best[i].ns,
    ref and string.format("%+.1f%%", (best[i].ns / ref.ns - 1) * 100) or "(ref)", best[i].bytes,
    best[i].log and string.format("  (%.2f bytes a transition)", best[i].log.bytes / math.max(1, best[i].log.statuses)) or ""))
end
