-- SPDX-License-Identifier: MIT
-- shipped_brains.lua: runs the shipped Don't Starve Together brains (scripts/brains/*.lua),
-- unchanged, in fake_world.lua's fake world, on the original scripts (class.lua, brain.lua,
-- behaviourtree.lua, behaviours/) and on bt in its DS-exact mode, side by side, tick by tick,
-- and compares after every tick: which brains thought, their sleep times, their dumps
-- (tostring(brain): statuses, last results, dbstrings, sleep times), every call made on the fake
-- world with its arguments and answer, the number of clock calls, and the fake world's state.
--
--   DS_SCRIPTS=/path/to/scripts LUA_CPATH="build/lib/lua/5.4/?.so;;" \
--     lua5.4 tests/ds_compare/shipped_brains.lua [seeds] [ticks] [brain ...]
--
-- Each brain runs alone in its world for `ticks` ticks of 1/30 s, once per seed 1..seeds; events
-- that its EventNodes listen for (found in its source) and common ones are pushed on its entity
-- between ticks. Without brain names it runs every brain file that returns a Brain class.
-- A brain whose Don't Starve side raises an error in the brain's or behaviours' code (the fake
-- world lacks what it needs) is compared up to that tick and counted as "ds error"; an error
-- raised in the fake world's own code (fake_*.lua), on the Don't Starve side or outside the thinks,
-- ends that brain's comparison too and is counted as "fake error": neither is ever a match. bt
-- containing an error where Don't Starve raised none, or any difference, is a mismatch. A file of
-- brains/ that makes no brain (braincommon, beecommon) is reported as a helper. VERBOSE=1 prints
-- the first differing tick in full; TRACE=1 adds a traceback to errors. The exit status is 0 only
-- without mismatch.

local ds_dir = os.getenv("DS_SCRIPTS") or error("set DS_SCRIPTS to the folder holding brain.lua")
local nseeds = tonumber(arg[1]) or 3
local nticks = tonumber(arg[2]) or 300
local verbose = os.getenv("VERBOSE")
-- TRACE=1 adds a traceback to the DS side's errors
local trace = os.getenv("TRACE") and debug.traceback or function(e) return e end

local here = arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local fake_world = dofile(here .. "/fake_world.lua")

local bt = require "bt"
bt.set_exact(true)

local TICK = 1 / 30
local tick = 0
local clock_calls = {ds = 0, bt = 0}
local function ds_now() clock_calls.ds = clock_calls.ds + 1; return tick * TICK end
local function bt_now() clock_calls.bt = clock_calls.bt + 1; return tick * TICK end
bt.set_clock(bt_now)
bt.set_tick_time(TICK)

local bt_errors
bt.set_error_handler(function(msg) if bt_errors then bt_errors[#bt_errors + 1] = "BT ERROR " .. tostring(msg) end end)

local read = fake_world.read_file

-- the brain files, and the sources whose TUNING tables matter
local names = {}
if arg[3] then
  for i = 3, #arg do names[#names + 1] = arg[i] end
else
  names = fake_world.lua_names(ds_dir .. "/brains")
end
table.sort(names)
-- the sources whose use of TUNING and of fields shapes what the fake makes up: every brain,
-- every behaviour and every file they require, whichever brains run (so a brain's world does
-- not depend on which others run with it)
local sources = {}
do
  local seen = {class = true, behaviourtree = true, brain = true}
  local queue = {}
  for _, dir in ipairs({"behaviours", "brains"}) do
    for _, n in ipairs(fake_world.lua_names(ds_dir .. "/" .. dir)) do queue[#queue + 1] = dir .. "/" .. n end
  end
  table.sort(queue)
  local i = 1
  while queue[i] do
    local name = queue[i]
    i = i + 1
    if not seen[name] then
      seen[name] = true
      local src = read(ds_dir .. "/" .. name .. ".lua")
      if src then
        sources[#sources + 1] = src
        for req in src:gmatch('require%s*%(?%s*["\']([%w_/]+)["\']') do queue[#queue + 1] = req end
      end
    end
  end
end
local shapes = fake_world.shapes(sources)

local BEHAVIOURS = {}
for _, n in ipairs(fake_world.lua_names(ds_dir .. "/behaviours")) do
  if n ~= "approach" then BEHAVIOURS[#BEHAVIOURS + 1] = n end
end
BEHAVIOURS[#BEHAVIOURS + 1] = "approach"

local function make_env(W, side, log)
  local env = setmetatable({}, {__index = _G})
  local loaded = {}
  env.require = function(name)
    name = name:gsub("%.lua$", "")
    if side == "bt" and (name == "class" or name == "behaviourtree" or name == "brain") then return end
    if loaded[name] ~= nil then return loaded[name] end
    local chunk, err = loadfile(ds_dir .. "/" .. name .. ".lua", "t", env)
    if not chunk then error("require " .. name .. ": " .. err, 0) end
    local r = chunk()
    loaded[name] = r == nil and true or r
    return r
  end
  if side == "bt" then
    bt.install_globals(env)
    bt.BrainManager = bt.BrainWrangler()
    env.BrainManager = bt.BrainManager
  end
  W.install(env)
  env.GetTime = side == "ds" and ds_now or bt_now
  env.GetTick = function() return tick end
  env.GetTickTime = function() return TICK end
  if side == "ds" then
    env.require("class")
    env.require("behaviourtree")
    env.require("brain")
  end
  -- in the game every behaviour file is loaded by some brain before long, and brains use the
  -- globals they define without requiring them: load them all, in one order on both sides
  -- (approach.lua redefines Follow:DBString: after follow.lua)
  for _, f in ipairs(BEHAVIOURS) do pcall(env.require, "behaviours/" .. f) end
  return env
end

-- a file in brains/ that makes no brain (braincommon, beecommon: functions the brains share)
local NOT_A_BRAIN = "helper, not a brain"

-- an error raised in the fake world's own code is the fake falling short, not a brain's doing:
-- it ends that brain's comparison and is counted apart, never as a match
local function classify(kind, err)
  if tostring(err):match("^%S*fake_[%w_]+%.lua:%d+:") then return "fake error" end
  return kind
end

local COMMON_EVENTS = {"attacked", "newcombattarget", "onattackother", "epicscare", "panic", "gohome"}

local function run(name, seed)
  local worlds = {}
  local events = {}
  for _, e in ipairs(COMMON_EVENTS) do events[#events + 1] = e end
  local src = read(ds_dir .. "/brains/" .. name .. ".lua") or ""
  for e in src:gmatch('EventNode%(%s*[%w_.]+%s*,%s*"([%w_]+)"') do events[#events + 1] = e end
  for _, side in ipairs({"ds", "bt"}) do
    local log = {}
    if side == "bt" then bt_errors = log end
    local W = fake_world.new_world(seed, log, side == "ds" and ds_now or bt_now, shapes)
    local w = {side = side, W = W, log = log}
    tick = 0
    math.randomseed(seed)
    local ok, err = pcall(function()
      w.env = make_env(W, side, log)
      local B = w.env.require("brains/" .. name)
      if type(B) ~= "table" or not B._ctor or not (B.OnStart or B.OnUpdate) then error(NOT_A_BRAIN, 0) end
      local inst = W.inst
      local b = B(inst)
      b.inst = inst
      inst.brain = b
      w.brain = b
      local update = b.OnUpdate
      b.OnUpdate = function(self)
        update(self)
        local s = self:GetSleepTime()
        log[#log + 1] = "think, sleep " .. (s and string.format("%.17g", s) or "nil")
        -- the dump calls the behaviours' DBString methods, which may raise on what a brain leaves
        -- unset (Leash's with a home position function that returns nothing): on both sides alike
        local ok, dump = pcall(tostring, self)
        log[#log + 1] = ok and dump or ("dump raised: " .. tostring(dump))
      end
      b:Start()
    end)
    if not ok then
      if err == NOT_A_BRAIN then return "helper", nil, 0 end
      return classify("load", err), (side == "ds" and "DS: " or "bt: ") .. tostring(err), 0
    end
    worlds[side] = w
  end
  local ds, b = worlds.ds, worlds.bt
  local function compare(step)
    local problems = {}
    local la, lb = table.concat(ds.log, "\n"), table.concat(b.log, "\n")
    if la ~= lb then problems[#problems + 1] = "calls:\nDS:\n" .. la .. "\nbt:\n" .. lb end
    if clock_calls.ds ~= clock_calls.bt then
      problems[#problems + 1] = "clock calls: DS " .. clock_calls.ds .. " bt " .. clock_calls.bt
    end
    local fa, fb = ds.W.fingerprint(), b.W.fingerprint()
    if fa ~= fb then problems[#problems + 1] = "fake world:\nDS:\n" .. fa .. "\nbt:\n" .. fb end
    if #problems > 0 then
      if verbose then print(string.format("%s seed %d %s: MISMATCH\n%s", name, seed, step, table.concat(problems, "\n----\n"))) end
      return false
    end
    for k in pairs(ds.log) do ds.log[k] = nil end
    for k in pairs(b.log) do b.log[k] = nil end
    return true
  end
  clock_calls.ds, clock_calls.bt = 0, 0
  if not compare("start") then return "mismatch", "at start", 0 end
  local control = seed
  local function rnd(k)
    control = (control * 48271 + 7) % 2147483647
    return control % k
  end
  local thinks = 0
  for t = 1, nticks do
    tick = t
    local ev = rnd(20) == 0 and events[1 + rnd(#events)] or nil
    local r1 = rnd(1000)
    for _, w in ipairs({ds, b}) do
      -- what happens between thinks (callbacks of finished actions, events) may draw random
      -- numbers: from the same state on both sides
      math.randomseed(seed * 100000 + t, 1)
      w.W.advance(TICK, t)
      if ev then
        local e = w.W.ents[1 + r1 % #w.W.ents]
        local ok, err = pcall(w.W.inst.PushEvent, w.W.inst, ev, {attacker = e, target = e, damage = 10, duration = 5})
        if not ok then
          if w.side == "ds" then return classify("ds error", err), "event " .. ev .. ": " .. tostring(err), thinks end
          return "mismatch", "bt raised on event " .. ev .. ": " .. tostring(err), thinks
        end
      end
    end
    math.randomseed(seed * 100000 + t)
    local ok, err = xpcall(ds.env.BrainManager.Update, trace, ds.env.BrainManager, t)
    if not ok then return classify("ds error", err), string.format("tick %d: %s", t, tostring(err)), thinks end
    math.randomseed(seed * 100000 + t)
    bt.BrainManager:Update(t)
    for _, l in ipairs(ds.log) do if l:sub(1, 6) == "think," then thinks = thinks + 1 end end
    if not compare("tick " .. t) then return "mismatch", "tick " .. t, thinks end
  end
  return "match", nil, thinks
end

local counts = {match = 0, mismatch = 0, load = 0, ["ds error"] = 0, ["fake error"] = 0, helper = 0}
local results = {}
local total_thinks = 0
for _, name in ipairs(names) do
  local worst, why, thinks_all = "match", nil, 0
  for seed = 1, nseeds do
    local ok, res, reason, thinks = pcall(run, name, seed)
    -- an error outside both sides' thinks (in the fake world's own code): the fake falls short
    if not ok then res, reason = "fake error", "outside the thinks: " .. tostring(res) end
    thinks_all = thinks_all + (thinks or 0)
    if res == "helper" then worst = "helper" break end
    if res ~= "match" then
      worst, why = res, string.format("seed %d: %s", seed, tostring(reason))
      break
    end
  end
  total_thinks = total_thinks + thinks_all
  counts[worst] = counts[worst] + 1
  results[#results + 1] = {name = name, res = worst, why = why, thinks = thinks_all}
end
for _, r in ipairs(results) do
  local why = r.why and (os.getenv("TRACE") and r.why or r.why:gsub("\n.*", "")) or (r.res == "helper" and NOT_A_BRAIN) or nil
  print(string.format("%-28s %-10s %6d thinks%s", r.name, r.res, r.thinks, why and ("  " .. why) or ""))
end
print(string.format("%d brain files, %d seeds, %d ticks: %d match, %d mismatched, %d stopped by a DS error in the fake world, %d by an error in the fake's own code, %d do not load, %d helpers (not brains); %d thinks compared",
  #names, nseeds, nticks, counts.match, counts.mismatch, counts["ds error"], counts["fake error"], counts.load, counts.helper, total_thinks))
os.exit(counts.mismatch == 0 and 0 or 1)
