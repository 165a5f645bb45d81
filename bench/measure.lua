-- measure.lua: how the think benchmarks time thinks, count leaf calls and weigh agents. Run under
-- bench_think, which provides the "bench" module (a clock and heap counters).

local bench = require "bench"

local measure = {TICK = 1 / 30, WARM = 30, PARTS = 5}

-- Reads --agents N and --frames N; exits with a usage message on anything else.
function measure.options(args, usage, agents, frames)
  local i = 1
  while args[i] do
    local flag, value = args[i], tonumber(args[i + 1])
    if flag == "--agents" and value and value >= 1 then agents = math.floor(value)
    elseif flag == "--frames" and value and value >= measure.PARTS then frames = math.floor(value)
    else
      io.stderr:write("usage: ", usage, "\n", "bad argument: ", flag,
        value and "" or " (expects a number: agents >= 1, frames >= 5)", "\n")
      os.exit(2)
    end
    i = i + 2
  end
  return agents, frames
end

local function full_gc()
  collectgarbage()
  collectgarbage()
end

-- Leaf calls: leaves made through counted() add to a counter.
local calls = 0
function measure.counted(leaf)
  return function(kind, field)
    local fn = leaf(kind, field)
    return function(...) calls = calls + 1; return fn(...) end
  end
end

-- Builds n agents with make(inst, counting) (inst from new_agent()) and thinks them for `frames`
-- frames after WARM frames, calling frame(trees, f) once per frame. The frames are timed in PARTS
-- parts and the fastest part counts, so that a busy machine disturbs the figure less. Returns
-- ns per think, bytes per agent, heap allocations per think and ns per agent creation.
local function run(make, counting, n, frames, frame, new_agent)
  math.randomseed(1)
  local insts, trees = {}, {}
  for i = 1, n do insts[i] = new_agent() end
  full_gc()
  local bytes0 = bench.memory()
  local t0 = bench.now()
  for i = 1, n do trees[i] = make(insts[i], counting) end
  local create = bench.now() - t0
  full_gc()
  local bytes = bench.memory() - bytes0
  local f = 1
  for _ = 1, measure.WARM do frame(trees, f); f = f + 1 end
  local _, allocs0 = bench.memory()
  local per_part = frames // measure.PARTS
  local best = math.huge
  for _ = 1, measure.PARTS do
    t0 = bench.now()
    for _ = 1, per_part do frame(trees, f); f = f + 1 end
    best = math.min(best, bench.now() - t0)
  end
  local _, allocs1 = bench.memory()
  for i = 1, n do trees[i]:Stop() end
  return best / (n * per_part) * 1e9, bytes / n, (allocs1 - allocs0) / (n * per_part * measure.PARTS),
    create / n * 1e9
end

-- Measures a scenario, then runs it again on up to 1,000 agents with counting leaves for the leaf
-- calls per think. Returns ns/think, leaf calls/think, bytes/agent, allocs/think, ns/creation.
function measure.scenario(make, agents, frames, frame, new_agent)
  local ns, bytes, allocs, create = run(make, false, agents, frames, frame, new_agent)
  local counted_agents = math.min(agents, 1000)
  calls = 0
  run(make, true, counted_agents, frames, frame, new_agent)
  local per_part = frames // measure.PARTS
  return ns, calls / (counted_agents * per_part * measure.PARTS), bytes, allocs, create
end

-- The floor: a Lua loop over the agents calling leaf(inst) directly, fastest of PARTS parts.
function measure.floor(leaf, agents, frames, new_agent)
  local insts = {}
  for i = 1, agents do insts[i] = new_agent() end
  for i = 1, agents do leaf(insts[i]) end
  local per_part = frames // measure.PARTS
  local best = math.huge
  for _ = 1, measure.PARTS do
    local t0 = bench.now()
    for _ = 1, per_part do
      for i = 1, agents do leaf(insts[i]) end
    end
    best = math.min(best, bench.now() - t0)
  end
  return best / (agents * per_part) * 1e9
end

return measure
