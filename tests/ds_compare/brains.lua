-- SPDX-License-Identifier: MIT
-- brains.lua: runs random populations of brains on Don't Starve Together's own brain.lua and
-- behaviourtree.lua and on bt side by side, tick by tick, and stops at the first tick where the
-- brains that thought, or the sleep times they reported, differ.
--
--   DS_SCRIPTS=/path/to/scripts LUA_CPATH="build/lib/lua/5.4/?.so;;" \
--     lua5.4 tests/ds_compare/brains.lua [first_seed] [seeds] [ticks]
--
-- The brains poll, nap, run periodic priorities, hibernate, are woken by events and by
-- ForceUpdate, have entities that fall asleep or become invalid, and are stopped, restarted,
-- paused, resumed, started twice and removed, between ticks and from inside their own think.
--
-- The DS side's WaitNode is given docs/lua-api.md's deviation 1 (it sleeps until it wakes).
-- EXACT=1: the DS side runs unpatched and bt runs DS-exact (bt.set_exact(true)); then the number
-- of calls of each side's clock in each tick is compared as well.

local ds_dir = os.getenv("DS_SCRIPTS") or error("set DS_SCRIPTS to the folder holding brain.lua")
local first_seed = tonumber(arg[1]) or 1
local nseeds = tonumber(arg[2]) or 100
local nticks = tonumber(arg[3]) or 300

local bt = require "bt"

local exact = os.getenv("EXACT") == "1"
local TICK = 1 / 30
local tick = 0
local function now() return tick * TICK end
local clock_calls = {ds = 0, bt = 0} -- compared under EXACT
local function ds_now() clock_calls.ds = clock_calls.ds + 1; return tick * TICK end
local function bt_now() clock_calls.bt = clock_calls.bt + 1; return tick * TICK end

local function new_env()
  return setmetatable({}, {__index = _G})
end

local function load_into(env, path)
  return assert(loadfile(path, "t", env))()
end

local function make_ds()
  local env = new_env()
  env.GetTime = ds_now
  env.GetTick = function() return tick end
  env.GetTickTime = function() return TICK end
  env.FunctionOrValue = function(v, ...)
    if type(v) == "function" then return v(...) end
    return v
  end
  env.require = function() end -- behaviourtree.lua's require("class"): loaded just below
  load_into(env, ds_dir .. "/class.lua")
  load_into(env, ds_dir .. "/behaviourtree.lua")
  load_into(env, ds_dir .. "/brain.lua")
  local WaitNode = env.WaitNode -- docs/lua-api.md's deviation 1
  if not exact then function WaitNode:Visit()
    local current_time = env.GetTime()
    if self.status ~= env.RUNNING then
      self.wake_time = current_time + env.FunctionOrValue(self.wait_time)
      self.status = env.RUNNING
    end
    if self.status == env.RUNNING then
      if current_time >= self.wake_time then self.status = env.SUCCESS
      else self:Sleep(self.wake_time - current_time) end
    end
  end end
  return env
end

local function make_bt()
  local env = new_env()
  bt.install_globals(env)
  bt.BrainManager = bt.BrainWrangler() -- a fresh manager per seed
  env.BrainManager = bt.BrainManager
  env.GetTime = bt_now
  return env
end

bt.set_clock(bt_now)
bt.set_exact(exact)
bt.set_tick_time(TICK)

local function mix(a, b, c)
  return ((a * 1103515245 + b * 12345 + c * 2654435761) % 2147483647 * 48271) % 2147483647
end

-- One population in one world. Every choice comes from (seed, brain, count), so both worlds see
-- the same inputs as long as they make the same calls.
local function population(env, seed, n, log)
  local counts = {}
  local function pick(id, key, k)
    local slot = id .. key
    local c = (counts[slot] or 0) + 1
    counts[slot] = c
    return mix(seed, id * 7919 + #key, c) % k
  end
  local brains, insts = {}, {}
  for id = 1, n do
    local inst = {id = id, asleep = false, valid = true, listeners = {}}
    inst.entity = {IsValid = function() return inst.valid end}
    function inst:IsAsleep() return self.asleep end
    function inst:ListenForEvent(e, fn)
      self.listeners[e] = self.listeners[e] or {}
      table.insert(self.listeners[e], fn)
    end
    function inst:RemoveEventCallback(e, fn)
      local l = self.listeners[e] or {}
      for i = #l, 1, -1 do if l[i] == fn then table.remove(l, i) end end
    end
    function inst:PushEvent(e, data)
      for _, fn in ipairs({table.unpack(self.listeners[e] or {})}) do fn(self, data) end
    end
    insts[id] = inst
    local kind = mix(seed, id, 0) % 6
    local B = env.Class(env.Brain, function(self, i) env.Brain._ctor(self, i) end)
    function B:OnStart()
      local i = self.inst
      local function cond(key) return function() return pick(id, key, 3) ~= 0 end end
      local act = env.ActionNode(function()
        local r = pick(id, "act", 40)
        log[#log + 1] = "act " .. id
        if r == 0 then i.brain:Stop() end -- stops its own brain mid-think
        if r == 1 then i.brain:ForceUpdate() end
      end, "Act")
      local root
      if kind == 0 then -- polling
        root = env.PriorityNode({env.ConditionWaitNode(cond("poll"), "Poll")}, 0.25)
      elseif kind == 1 then -- napping
        root = env.PriorityNode({env.SequenceNode{act, env.WaitNode(0.1 + pick(id, "nap", 5) * 0.7)}}, 1)
      elseif kind == 2 then -- periodic
        root = env.PriorityNode({env.WhileNode(cond("guard"), "Guard", env.WaitNode(3)), act}, 0.5)
      elseif kind == 3 then -- hibernating: nothing runs once it ends
        root = env.SequenceNode{act, env.WaitNode(0.4)}
      elseif kind == 4 then -- event-woken
        root = env.PriorityNode({
          env.EventNode(i, "poke", env.SequenceNode{act, env.WaitNode(0.3)}),
          env.IfNode(cond("idle"), "Idle", env.WaitNode(2)),
        }, 1)
      else -- a bare sequence ending READY
        root = env.SelectorNode{env.ConditionNode(cond("sel"), "Sel"), act}
      end
      self.bt = env.BT(i, root)
    end
    local b = B(inst)
    b.inst = inst -- as Don't Starve's RestartBrain does: its Brain constructor ignores inst
    inst.brain = b
    brains[id] = b
  end
  return brains, insts, pick
end

local function run(seed)
  clock_calls.ds, clock_calls.bt = 0, 0
  local n = 3 + mix(seed, 0, 1) % 12
  local worlds = {}
  for _, name in ipairs({"ds", "bt"}) do
    local env = name == "ds" and make_ds() or make_bt()
    local w = {name = name, env = env, log = {}}
    local manager = env.BrainManager
    -- record every think and its sleep time
    w.brains, w.insts, w.pick = population(env, seed, n, w.log)
    for _, b in ipairs(w.brains) do
      local update = b.OnUpdate
      b.OnUpdate = function(self)
        update(self)
        w.log[#w.log + 1] = string.format("think %d sleep %s", self.inst.id,
          tostring(self:GetSleepTime() and string.format("%.17g", self:GetSleepTime())))
      end
    end
    w.manager = manager
    worlds[name] = w
  end
  tick = 0
  math.randomseed(seed)
  for _, b in ipairs(worlds.ds.brains) do b:Start() end
  math.randomseed(seed)
  for _, b in ipairs(worlds.bt.brains) do b:Start() end

  local control = seed
  local function rnd(k)
    control = (control * 48271 + 7) % 2147483647
    return control % k
  end
  for t = 1, nticks do
    tick = t
    -- between ticks: the world changes the same way in both
    if rnd(4) == 0 then
      local id = 1 + rnd(n)
      local what = rnd(9)
      if os.getenv("VERBOSE") then
        print(string.format("tick %d: brain %d (kind %d): %s", t, id, mix(seed, id, 0) % 6,
          ({"poke", "ForceUpdate", "asleep", "valid", "Stop", "Start", "Pause", "Resume", "Wake"})[what + 1]))
      end
      for _, w in pairs(worlds) do
        local b, inst = w.brains[id], w.insts[id]
        math.randomseed(seed * 100000 + t, 1)
        if what == 0 then inst:PushEvent("poke", t)
        elseif what == 1 then b:ForceUpdate()
        elseif what == 2 then inst.asleep = not inst.asleep
        elseif what == 3 then inst.valid = not inst.valid
        elseif what == 4 then b:Stop()
        elseif what == 5 then b:Start()
        elseif what == 6 then b:Pause()
        elseif what == 7 then b:Resume()
        else w.manager:Wake(b) end
      end
    end
    local sorted = {}
    for _, w in pairs(worlds) do
      for k in pairs(w.log) do w.log[k] = nil end
      math.randomseed(seed * 100000 + t)
      w.manager:Update(t)
    end
    -- thinks within a tick come in table order in Don't Starve: compare them sorted
    for name, w in pairs(worlds) do
      local lines = {}
      for _, l in ipairs(w.log) do lines[#lines + 1] = l end
      table.sort(lines)
      sorted[name] = table.concat(lines, "\n")
    end
    if exact then
      for name, w in pairs(worlds) do sorted[name] = sorted[name] .. "\nclock calls " .. clock_calls[name] end
    end
    if sorted.ds ~= sorted.bt then
      print(string.format("seed %d tick %d: MISMATCH\nDS:\n%s\nbt:\n%s", seed, t, sorted.ds, sorted.bt))
      return false
    end
  end
  return true
end

local failed = 0
for seed = first_seed, first_seed + nseeds - 1 do
  local ok, err = pcall(run, seed)
  if not ok then
    print(string.format("seed %d: error %s", seed, tostring(err)))
    failed = failed + 1
  elseif err == false then
    failed = failed + 1
  end
  if failed >= 3 then break end
end
print(string.format("%d seeds from %d, %d ticks each: %d mismatched", nseeds, first_seed, nticks, failed))
os.exit(failed == 0 and 0 or 1)
