-- SPDX-License-Identifier: MIT
-- measure.lua: how the think benchmarks time thinks, count leaf calls and weigh agents. Run under
-- bench_think, which provides the "bench" module (a clock and heap counters).

local bench = require "bench"

local measure = {TICK = 1 / 30, WARM = 30, PARTS = 5}

-- Reads the flags of spec, an array of {flag, default, least} (a number at least `least`, rounded
-- down to an integer unless `float` is set) or {flag, default, choices = {...}} (one of the words), each
-- followed by its value; exits with the usage message and status 2 on anything else. Returns the
-- values by flag name without its dashes.
function measure.flags(args, usage, spec)
  local values, by_flag, rules = {}, {}, {}
  for _, f in ipairs(spec) do
    local name = f[1]:sub(3)
    values[name], by_flag[f[1]] = f[2], f
    rules[#rules + 1] = f.choices and name .. " " .. table.concat(f.choices, " or ")
      or string.format("%s >= %s", name, f[3])
  end
  local i = 1
  while args[i] do
    local flag, text = args[i], args[i + 1]
    local f, value = by_flag[flag], tonumber(text)
    if f and f.choices then
      value = nil
      for _, c in ipairs(f.choices) do if c == text then value = c end end
    elseif f and value and value >= f[3] then
      value = f.float and value or math.tointeger(math.floor(value)) -- nil past 2^63
    else
      value = nil
    end
    if value == nil then
      io.stderr:write("usage: ", usage, "\n", "bad argument: ", flag, " ", tostring(text or ""),
        " (", table.concat(rules, ", "), ")\n")
      os.exit(2)
    end
    values[flag:sub(3)] = value
    i = i + 2
  end
  return values
end

-- Reads --agents N, --frames N, --rounds N and --order made|random (measure.flags); --order
-- random sets measure.RANDOM_ORDER.
function measure.options(args, usage, agents, frames, rounds)
  local v = measure.flags(args, usage, {{"--agents", agents, 1}, {"--frames", frames, measure.PARTS},
    {"--rounds", rounds, 1}, {"--order", "made", choices = {"made", "random"}}})
  measure.RANDOM_ORDER = v.order == "random"
  return v.agents, v.frames, v.rounds
end

-- "in the order they were made" or "in one random order", for the headers of the tables.
function measure.order()
  return measure.RANDOM_ORDER and "in one random order" or "in the order they were made"
end

-- Runs every measurement of the list (a function returning a table of figures with at least ns)
-- `rounds` times, a round of all of them after another, so that the figures compared with one
-- another met the same spells of a busy machine. Returns each measurement's figures from its
-- fastest round, with allocs (if any) the most of any round.
function measure.rounds(rounds, list)
  local best = {}
  for _ = 1, rounds do
    for i, measurement in ipairs(list) do
      local r = measurement()
      local b = best[i]
      if b and r.allocs then r.allocs = math.max(r.allocs, b.allocs) end
      if not b or r.ns < b.ns then best[i] = r
      elseif r.allocs then b.allocs = r.allocs end
    end
  end
  return best
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
  full_gc() -- what the scenario before left is freed before this one allocates
  math.randomseed(1)
  local insts, trees = {}, {}
  for i = 1, n do insts[i] = new_agent() end
  full_gc()
  local bytes0 = bench.memory()
  local t0 = bench.now()
  for i = 1, n do trees[i] = make(insts[i], counting) end
  local create = bench.now() - t0
  if measure.RANDOM_ORDER then -- one random order, the same every run
    for i = n, 2, -1 do
      local j = math.random(i)
      trees[i], trees[j] = trees[j], trees[i]
    end
  end
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

-- A measurement for measure.rounds of a scenario (see measure.scenario), with the time read
-- through clock (a function, for bt.set_clock) if given. Leaf calls are counted in the first
-- round only: the same brain makes the same calls.
function measure.measurement(make, agents, frames, frame, new_agent, clock)
  local leaves
  return function()
    if clock then require("bt").set_clock(clock) end
    local r = {}
    if leaves then
      r.ns, r.bytes, r.allocs, r.create = run(make, false, agents, frames, frame, new_agent)
    else
      r.ns, leaves, r.bytes, r.allocs, r.create = measure.scenario(make, agents, frames, frame,
        new_agent)
    end
    if clock then require("bt").set_clock(nil) end
    r.leaves = leaves
    return r
  end
end

local function direct(fn, insts, n) for i = 1, n do fn(insts[i]) end end
local function protected(fn, insts) bench.pcall_each(fn, insts) end

-- The floor: a Lua loop over the agents calling fn(inst) directly, or, if from_c, a C loop
-- calling it through lua_pcall (as bt calls a leaf); fastest of PARTS parts, ns per call.
function measure.floor(fn, agents, frames, new_agent, from_c)
  local loop = from_c and protected or direct
  local insts = {}
  for i = 1, agents do insts[i] = new_agent() end
  loop(fn, insts, agents)
  local per_part = frames // measure.PARTS
  local best = math.huge
  for _ = 1, measure.PARTS do
    local t0 = bench.now()
    for _ = 1, per_part do loop(fn, insts, agents) end
    best = math.min(best, bench.now() - t0)
  end
  return best / (agents * per_part) * 1e9
end

return measure
