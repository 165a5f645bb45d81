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

local function ds_tree(inst, counting)
  local leaf = brains.closure_leaf(inst, brains.small)
  return ds.BT(inst, brains.build(ds, brains.small, counting and measure.counted(leaf) or leaf))
end

local function bt_tree(inst, counting)
  local leaf = brains.closure_leaf(inst, brains.small)
  return bt.BT(inst, brains.build(bt, brains.small, counting and measure.counted(leaf) or leaf))
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
    def = bt.define(brains.build(bt, brains.small, leaf))
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
print(string.format("%-44s %9s %12s %12s %9s", "run", "ns/think", "leaves/think", "bytes/agent",
  "DS / run"))
local ds = best[1]
for i, r in ipairs(runs) do
  local f = best[i]
  print(string.format("%-44s %9.1f %12.2f %12.0f %9s", r[1], f.ns, f.leaves, f.bytes,
    i > 1 and string.format("%.1fx", ds.ns / f.ns) or "-"))
end
print(string.format("memory: Don't Starve %.0f bytes per agent", ds.bytes))
