-- SPDX-License-Identifier: MIT
-- ds_compare.lua: the think benchmark's brain on the original Don't Starve scripts and on bt, in
-- one run, each agent building its own tree the Don't Starve way (leaves are closures over the
-- agent) and every agent thinking every frame; then bt with one definition shared by all agents.
--
-- The Don't Starve scripts are not part of this repository. Point DS_SCRIPTS at the `scripts`
-- folder of a copy of them (the one holding behaviourtree.lua and class.lua; for instance the
-- public mirror github.com/zhuyifei1999/dst-scripts), build bt, and run from the repository root:
--
--   DS_SCRIPTS=/path/to/scripts build/bench/bench_think bench/ds_compare.lua [--agents N] [--frames N]
--     [--rounds N] [--order made|random]
--
-- Every run is measured once per round, the rounds one after another, and the fastest round
-- counts, so that the runs compared met the same spells of a busy machine.
--
-- `make bench` runs it too when DS_SCRIPTS is set.

local bt = require "bt"
local bench = require "bench"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local measure = dofile(dir .. "/measure.lua")

local ds_dir = os.getenv("DS_SCRIPTS")
if not ds_dir or ds_dir == "" then
  io.stderr:write("ds_compare.lua: set DS_SCRIPTS to the Don't Starve scripts folder (the one ",
    "holding behaviourtree.lua)\n")
  os.exit(2)
end
local AGENTS, FRAMES, ROUNDS = measure.options(arg,
  "DS_SCRIPTS=/path/to/scripts bench_think bench/ds_compare.lua [--agents N] [--frames N] " ..
  "[--rounds N] [--order made|random]", 5000, 300, 3)
local TICK = measure.TICK

-- Don't Starve's behaviourtree.lua in an environment of its own, reading the time through the
-- GetTime() it expects.
local now = 0
local ds = setmetatable({}, {__index = _G})
ds.GetTime = function() return now end
ds.FunctionOrValue = function(v, ...) -- a host global that WaitNode calls (util.lua in the game)
  if type(v) == "function" then return v(...) end
  return v
end
ds.require = function(name)
  local path = ds_dir .. "/" .. name:gsub("%.lua$", "") .. ".lua"
  local chunk, err = loadfile(path, "t", ds)
  if not chunk then
    io.stderr:write("ds_compare.lua: ", err, "\n")
    os.exit(2)
  end
  return chunk()
end
ds.require("class")
ds.require("behaviourtree")

-- Each agent's tree is built as a brain's OnStart builds it: the constructor calls written out,
-- leaves closures over the agent.
local build = brains.builder(brains.small)

local function ds_tree(inst, counting)
  local leaf = brains.closure_leaf(inst, brains.small)
  return ds.BT(inst, build(ds, counting and measure.counted(leaf) or leaf))
end

local function bt_tree(inst, counting)
  local leaf = brains.closure_leaf(inst, brains.small)
  return bt.BT(inst, build(bt, counting and measure.counted(leaf) or leaf))
end

-- The closures alone, as each agent's brain makes them: what a tree per agent must hold anyway.
local function closures(inst)
  local leaf = brains.closure_leaf(inst, brains.small)
  local list = {}
  for kind, field in brains.small:gmatch("%((%a+) (%a[%w_]*)") do
    if kind == "While" or kind == "If" then kind = "Condition" end
    if kind == "Condition" or kind == "Action" then list[#list + 1] = leaf(kind, field) end
  end
  return list
end

local function lua_clock(trees, f)
  now = f * TICK
  for i = 1, #trees do trees[i]:Update() end
end

local function set_time(trees, f)
  bt.set_clock(f * TICK)
  for i = 1, #trees do trees[i]:Update() end
end

-- the same brain compiled once (bt.define) and instantiated per agent; leaves read the inst they
-- are given instead of a closure's
local defs = {}
local function shared(inst, counting)
  local def = defs[counting]
  if not def then
    local leaf = counting and measure.counted(brains.inst_leaf) or brains.inst_leaf
    def = bt.define(brains.builder(brains.small)(bt, leaf))
    defs[counting] = def
  end
  return def:instantiate(inst)
end

local function clock() return now end
local runs = {
  {"Don't Starve scripts, GetTime() a Lua fn", ds_tree, lua_clock},
  {"bt, clock a Lua fn (bt.set_clock(fn))", bt_tree, lua_clock, clock},
  {"bt, time set per frame (bt.set_clock(t))", bt_tree, set_time},
  {"bt, one shared definition, clock a Lua fn", shared, lua_clock, clock},
}
local list = {}
for i, r in ipairs(runs) do
  list[i] = measure.measurement(r[2], AGENTS, FRAMES, r[3], brains.agent, r[4])
end
local best = measure.rounds(ROUNDS, list)

print(string.format("Don't Starve scripts and bt, the same %d-node brain, a tree per agent: " ..
  "%d agents thinking %s, %d frames at 30 Hz (fastest fifth timed), fastest of %d rounds",
  brains.count(brains.small), AGENTS, measure.order(), FRAMES, ROUNDS))
print(string.format("%-44s %9s %12s %12s %12s %9s %12s", "run", "ns/think", "leaves/think",
  "bytes/agent", "ns/creation", "DS / run", "DS creation"))
local ds_run = best[1]
for i, r in ipairs(runs) do
  local f = best[i]
  print(string.format("%-44s %9.1f %12.2f %12.0f %12.0f %9s %12s", r[1], f.ns, f.leaves, f.bytes,
    f.create, i > 1 and string.format("%.1fx", ds_run.ns / f.ns) or "-",
    i > 1 and string.format("%.2fx", ds_run.create / f.create) or "-"))
end

-- AGENTS new agents, with the collector run before and after making them
local function settled_agents()
  collectgarbage()
  collectgarbage()
  local insts = {}
  for i = 1, AGENTS do insts[i] = brains.agent() end
  collectgarbage()
  collectgarbage()
  return insts
end

-- the closures alone: what any tree per agent holds besides its own state (the bytes of lists of
-- them less those of lists as long of booleans)
local function bytes_of(make)
  local kept, insts = {}, settled_agents()
  local bytes0 = bench.memory()
  for i = 1, AGENTS do kept[i] = make(insts[i]) end
  collectgarbage()
  collectgarbage()
  return (bench.memory() - bytes0) / AGENTS
end
local closure_bytes = bytes_of(closures) - bytes_of(function(inst)
  local list = closures(inst)
  for i = 1, #list do list[i] = true end
  return list
end)
local entity, shared_run = best[2], best[4]
print(string.format("a tree per agent (clock a Lua fn) against one shared definition (the same clock): " ..
  "%.2fx the think (target 1.2x), %.0f bytes per agent (target 1536), of which %.0f are its " ..
  "brain's closures (measured alone); creation %.2fx faster than Don't Starve (target 3x)",
  entity.ns / shared_run.ns, entity.bytes, closure_bytes, ds_run.create / entity.create))

-- what building the node objects alone costs on each (the closures made too), against which the
-- rest of BT(inst, root) is what bt adds
local function ctor_ns(env)
  local best = math.huge
  for _ = 1, ROUNDS do
    collectgarbage()
    collectgarbage()
    local kept, insts = {}, {}
    for i = 1, AGENTS do insts[i] = brains.agent() end
    local t0 = bench.now()
    for i = 1, AGENTS do kept[i] = build(env, brains.closure_leaf(insts[i], brains.small)) end
    best = math.min(best, (bench.now() - t0) / AGENTS * 1e9)
  end
  return best
end
local ds_ctor, bt_ctor = ctor_ns(ds), ctor_ns(bt)
print(string.format("the constructors alone (node objects and closures, no BT): Don't Starve %.0f ns, " ..
  "bt %.0f ns per agent; BT(inst, root) adds %.0f ns on bt", ds_ctor, bt_ctor,
  entity.create - bt_ctor))

-- creation alone, each figure the fastest of the rounds (the three made one after another in each
-- round): the creation figures above are those of the round with the fastest think
local function create_ns(make)
  local kept, insts = {}, settled_agents()
  local t0 = bench.now()
  for i = 1, AGENTS do kept[i] = make(insts[i], false) end
  return (bench.now() - t0) / AGENTS * 1e9
end
local makers = {ds_tree, bt_tree, shared}
local created = {math.huge, math.huge, math.huge}
for _ = 1, ROUNDS do
  for i, make in ipairs(makers) do created[i] = math.min(created[i], create_ns(make)) end
end
print(string.format("creation alone, fastest of %d rounds: Don't Starve %.0f ns, bt a tree per agent " ..
  "%.0f ns (%.2fx faster than Don't Starve), bt one shared definition %.0f ns per agent", ROUNDS,
  created[1], created[2], created[1] / created[2], created[3]))
