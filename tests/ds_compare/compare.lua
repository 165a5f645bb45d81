-- SPDX-License-Identifier: MIT
-- compare.lua: runs random Don't Starve-style trees on the original Don't Starve Together scripts
-- and on bt side by side, think by think, and stops at the first difference in statuses, last
-- results, sleep times, tree dumps, leaf calls or brain wake-ups.
--
-- The DS scripts are not part of this repository. Point DS_SCRIPTS at the `scripts` folder of a
-- copy of them (game build v638228; e.g. the mirror github.com/zhuyifei1999/dst-scripts at commit
-- 613aaa9c), build bt, and run from the repository root:
--
--   DS_SCRIPTS=/path/to/scripts LUA_CPATH="build/lib/lua/5.4/?.so;;" \
--     lua5.4 tests/ds_compare/compare.lua [first_seed] [seeds] [thinks]
--
-- docs/lua-api.md's deviation 1 (a RUNNING WaitNode reports its true remaining time) is applied
-- to the DS side by giving its WaitNode the corrected Sleep argument; deviation 2 (functions
-- receive inst) is invisible here because the generated functions ignore their arguments.
--
-- EXACT=1: the DS side runs unpatched and bt runs DS-exact (bt.set_exact(true)); then the
-- number of arguments each function receives, every node's id and nextupdatetick fields and its
-- nextupdatetime, and the number of calls of each side's clock are compared as well.

local ds_dir = os.getenv("DS_SCRIPTS") or error("set DS_SCRIPTS to the folder holding behaviourtree.lua")
local first_seed = tonumber(arg[1]) or 1
local nseeds = tonumber(arg[2]) or 200
local nthinks = tonumber(arg[3]) or 60
local verbose = os.getenv("VERBOSE")
-- SHARED=1: the bt side compiles the tree once with bt.define and runs an instance of it. Its
-- Priorities do not scatter (a shared definition draws each entity's scatter in its own order),
-- and its EventNodes are built without inst (each entity listens through its own).
local shared = os.getenv("SHARED")
-- WIDE=1: composites get up to three times as many children, and every other tree shares no
-- node, which is where a think scans the touched bits of a subtree instead of its children.
local wide = os.getenv("WIDE")
local exact = os.getenv("EXACT") == "1"

local bt = require "bt"

local now = 0
local clock_calls = {ds = 0, bt = 0} -- the calls of each side's clock (compared under EXACT)
local function ds_clock() clock_calls.ds = clock_calls.ds + 1; return now end
local function bt_clock() clock_calls.bt = clock_calls.bt + 1; return now end

-- ---- the two worlds ----

local function load_into(env, path)
  local chunk = assert(loadfile(path, "t", env))
  return chunk()
end

local function new_env()
  return setmetatable({}, {__index = _G})
end

local function make_ds()
  local env = new_env()
  env.GetTime = ds_clock
  env.FRAMES = 1 / 30
  env.FunctionOrValue = function(v, ...)
    if type(v) == "function" then return v(...) end
    return v
  end
  env.require = function(name)
    name = name:gsub("%.lua$", "")
    return load_into(env, ds_dir .. "/" .. name .. ".lua")
  end
  env.require("class")
  env.require("behaviourtree")
  -- deviation 1: WaitNode sleeps until it wakes
  local WaitNode = env.WaitNode
  if not exact then function WaitNode:Visit()
    local current_time = env.GetTime()
    if self.status ~= env.RUNNING then
      self.wake_time = current_time + env.FunctionOrValue(self.wait_time)
      self.status = env.RUNNING
    end
    if self.status == env.RUNNING then
      if current_time >= self.wake_time then
        self.status = env.SUCCESS
      else
        self:Sleep(self.wake_time - current_time)
      end
    end
  end end
  env.require("behaviours/minperiod")
  env.require("behaviours/chattynode")
  return env
end

local function make_bt()
  local env = new_env()
  bt.install_globals(env)
  env.GetTime = bt_clock
  env.FRAMES = 1 / 30
  env.FunctionOrValue = function(v, ...)
    if type(v) == "function" then return v(...) end
    return v
  end
  env.require = function(name)
    name = name:gsub("%.lua$", "")
    return load_into(env, ds_dir .. "/" .. name .. ".lua")
  end
  env.require("behaviours/minperiod")
  env.require("behaviours/chattynode")
  return env
end

bt.set_clock(bt_clock)
bt.set_exact(exact)

-- ---- deterministic scripted results ----

local function mix(a, b, c)
  local h = (a * 1103515245 + b * 12345 + c * 2654435761) % 2147483647
  h = (h * 48271) % 2147483647
  return h
end

-- ---- random specs ----

local function spec_gen(seed)
  local state = seed
  local function rnd(n)
    state = (state * 48271 + 11) % 2147483647
    return state % n + 1
  end
  local leaf_id = 0
  local function new_id()
    leaf_id = leaf_id + 1
    return leaf_id
  end
  local built = {}
  local function gen(depth)
    local roll = rnd(100)
    local leafy = depth >= 4 or roll <= 40 + depth * 10
    if #built > 3 and not (wide and seed % 2 == 1) and rnd(20) == 1 then
      return {t = "ref", target = built[rnd(#built)]}
    end
    local node
    if leafy then
      local k = rnd(11)
      if k == 1 then node = {t = "cond", id = new_id()}
      elseif k == 2 then node = {t = "mcond", id = new_id(), id2 = new_id()}
      elseif k == 3 then node = {t = "cwait", id = new_id()}
      elseif k == 4 then node = {t = "act", id = new_id()}
      elseif k == 5 then node = {t = "wait", time = ({0, 0.1, 0.5, 1, 2.5})[rnd(5)], fn = rnd(3) == 1 and new_id() or nil}
      elseif k <= 8 then node = {t = "custom", id = new_id()}
      elseif k == 9 then node = {t = "event", name = ({"a", "b"})[rnd(2)], priority = rnd(3) - 1}
      else node = {t = "cond", id = new_id()} end
    else
      local k = rnd(19)
      local function kids(min, max)
        local list = {}
        if wide then max = max * 3 end
        for i = 1, min + rnd(max - min + 1) - 1 do list[i] = gen(depth + 1) end
        return list
      end
      if k == 1 then node = {t = "seq", kids = kids(1, 4)}
      elseif k == 2 then node = {t = "sel", kids = kids(1, 4)}
      elseif k <= 4 then node = {t = "pri", kids = kids(1, 5), period = ({0.1, 0.25, 0.5, 1})[rnd(4)], noscatter = shared or rnd(3) == 1}
      elseif k == 5 then node = {t = "par", kids = kids(1, 3)}
      elseif k == 6 then node = {t = "parany", kids = kids(1, 3)}
      elseif k == 7 then node = {t = "loop", kids = kids(1, 3), maxreps = rnd(3) == 1 and nil or rnd(3)}
      elseif k == 8 then node = {t = "rand", kids = kids(1, 3)}
      elseif k == 9 then node = {t = "not", kid = gen(depth + 1)}
      elseif k == 10 then node = {t = "fir", kid = gen(depth + 1)}
      elseif k == 11 then node = {t = "fis", kid = gen(depth + 1)}
      elseif k == 12 then node = {t = "event", name = ({"a", "b"})[rnd(2)], priority = rnd(3) - 1, kid = gen(depth + 1)}
      elseif k == 13 then node = {t = "latch", dur = ({0, 0.5, 2})[rnd(3)], fn = rnd(3) == 1 and new_id() or nil, kid = gen(depth + 1)}
      elseif k == 14 then node = {t = "while", id = new_id(), kid = gen(depth + 1)}
      elseif k == 15 then node = {t = "if", id = new_id(), kid = gen(depth + 1)}
      elseif k == 16 then node = {t = "itdw", id = new_id(), id2 = new_id(), kid = gen(depth + 1)}
      elseif k == 17 then node = {t = "minperiod", period = ({0.5, 1, 3})[rnd(3)], immediate = rnd(2) == 1, kid = gen(depth + 1)}
      elseif k == 18 then node = {t = "chatty", kid = gen(depth + 1)}
      else node = {t = "customp", id = new_id(), kids = kids(1, 2)} end
    end
    built[#built + 1] = node
    return node
  end
  local root = {t = "pri", period = ({0.25, 0.5, 1})[rnd(3)], noscatter = shared or rnd(2) == 1, kids = {}}
  for i = 1, rnd(wide and 15 or 5) do root.kids[i] = gen(1) end
  return root, rnd
end

-- ---- building a spec in one world ----

local function world(env, seed, log, name)
  local inst = {listeners = {}, name = name}
  function inst:ListenForEvent(event, fn)
    self.listeners[event] = self.listeners[event] or {}
    table.insert(self.listeners[event], fn)
  end
  function inst:RemoveEventCallback(event, fn)
    local list = self.listeners[event] or {}
    for i = #list, 1, -1 do
      if list[i] == fn then table.remove(list, i) end
    end
  end
  function inst:PushEvent(event, data)
    local list = {table.unpack(self.listeners[event] or {})}
    for _, fn in ipairs(list) do fn(self, data) end
  end
  local counts = {}
  local w = {env = env, inst = inst, log = log}
  local function result(id, n)
    counts[id] = (counts[id] or 0) + 1
    return mix(seed, id, counts[id]) % n
  end
  w.result = result

  local Scripted = env.Class(env.BehaviourNode, function(self, id)
    env.BehaviourNode._ctor(self, "Scripted" .. id)
    self.sid = id
    self.visits = 0
  end)
  function Scripted:Visit()
    self.visits = self.visits + 1
    local r = result(self.sid, 7)
    log[#log + 1] = "visit " .. self.sid .. " " .. tostring(self.status)
    if r <= 1 then self.status = env.FAILED
    elseif r == 2 then self.status = env.SUCCESS
    else
      self.status = env.RUNNING
      self:Sleep(({0, 0.05, 0.3, 1.5})[r - 2])
    end
  end
  function Scripted:DBString() return "visits " .. self.visits end
  function Scripted:OnStop() log[#log + 1] = "stop " .. self.sid end

  local Parent = env.Class(env.BehaviourNode, function(self, id, kids)
    env.BehaviourNode._ctor(self, "Parent" .. id, kids)
    self.sid = id
  end)
  function Parent:Visit()
    local r = result(self.sid, 3)
    for i, child in ipairs(self.children) do
      child:Visit()
      log[#log + 1] = "parent " .. self.sid .. " child " .. i .. " " .. child.status
      if child.status ~= env.SUCCESS or r == 0 then
        self.status = child.status
        return
      end
    end
    self.status = env.SUCCESS
  end
  function Parent:Reset()
    log[#log + 1] = "reset parent " .. self.sid
    self._base.Reset(self)
  end

  local function truth(id)
    return function(...)
      local v = result(id, 3) ~= 0
      log[#log + 1] = "fn " .. id .. " " .. tostring(v) .. (exact and " args " .. select("#", ...) or "")
      return v
    end
  end
  local function timefn(id, base)
    return function()
      local v = base + result(id, 3) * 0.25
      log[#log + 1] = "time " .. id .. " " .. v
      return v
    end
  end

  local objects = {}
  local function build(spec)
    if spec.t == "ref" then return objects[spec.target] end
    local n
    local function kids()
      local list = {}
      for i, k in ipairs(spec.kids) do list[i] = build(k) end
      return list
    end
    local t = spec.t
    if t == "seq" then n = env.SequenceNode(kids())
    elseif t == "sel" then n = env.SelectorNode(kids())
    elseif t == "pri" then n = env.PriorityNode(kids(), spec.period, spec.noscatter)
    elseif t == "par" then n = env.ParallelNode(kids())
    elseif t == "parany" then n = env.ParallelNodeAny(kids())
    elseif t == "loop" then n = env.LoopNode(kids(), spec.maxreps)
    elseif t == "rand" then n = env.RandomNode(kids())
    elseif t == "cond" then n = env.ConditionNode(truth(spec.id), "C" .. spec.id)
    elseif t == "mcond" then n = env.MultiConditionNode(truth(spec.id), truth(spec.id2), "M" .. spec.id)
    elseif t == "cwait" then n = env.ConditionWaitNode(truth(spec.id), "W" .. spec.id)
    elseif t == "act" then
      local id = spec.id
      n = env.ActionNode(function()
        local r = result(id, 6)
        log[#log + 1] = "act " .. id .. " " .. r
        if r == 0 then inst:PushEvent("a", id) end
        if r == 1 then inst:PushEvent("b", id) end
        if r == 2 and result(id, 5) == 0 then w.tree:Stop() end
        if r == 3 and result(id, 4) == 0 then w.tree:Reset() end
      end, "A" .. spec.id)
    elseif t == "wait" then n = env.WaitNode(spec.fn and timefn(spec.fn, spec.time) or spec.time)
    elseif t == "not" then n = env.NotDecorator(build(spec.kid))
    elseif t == "fir" then n = env.FailIfRunningDecorator(build(spec.kid))
    elseif t == "fis" then n = env.FailIfSuccessDecorator(build(spec.kid))
    elseif t == "event" then
      local listener = inst
      if shared and name == "bt" then listener = nil end
      n = env.EventNode(listener, spec.name, spec.kid and build(spec.kid), spec.priority)
    elseif t == "latch" then n = env.LatchNode(inst, spec.fn and timefn(spec.fn, spec.dur) or spec.dur, build(spec.kid))
    elseif t == "while" then n = env.WhileNode(truth(spec.id), "While" .. spec.id, build(spec.kid))
    elseif t == "if" then n = env.IfNode(truth(spec.id), "If" .. spec.id, build(spec.kid))
    elseif t == "itdw" then n = env.IfThenDoWhileNode(truth(spec.id), truth(spec.id2), "ITDW" .. spec.id, build(spec.kid))
    elseif t == "minperiod" then n = env.MinPeriod(inst, spec.period, spec.immediate, build(spec.kid))
    elseif t == "chatty" then n = env.ChattyNode(inst, function() return nil end, build(spec.kid), 1, 1)
    elseif t == "custom" then n = Scripted(spec.id)
    elseif t == "customp" then n = Parent(spec.id, kids())
    else error("spec " .. t) end
    objects[spec] = n
    return n
  end
  w.build = build
  return w
end

-- function addresses (a LatchNode named after its duration function) differ between the worlds
local function normal(s)
  return (s:gsub("function: 0x%x+", "function"))
end

local function fmt(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end

-- ---- observation ----

local function observe(root, first_id)
  local out = {}
  local function walk(n, depth)
    out[#out + 1] = string.rep(" ", depth) .. tostring(n.name) .. " " .. tostring(n.status) .. " " .. tostring(n.lastresult)
      .. " idx=" .. tostring(n.idx) .. " last=" .. fmt(n.lasttime) .. " wake=" .. fmt(n.wake_time)
      .. " trig=" .. tostring(n.triggered and true or false) .. " rep=" .. tostring(n.rep)
      .. (exact and " id=" .. tostring(type(n.id) == "number" and math.tointeger(n.id - first_id) or n.id)
        .. " tick=" .. tostring(n.nextupdatetick) .. " nut=" .. fmt(n.nextupdatetime) or "")
    for _, c in ipairs(n.children or {}) do walk(c, depth + 1) end
  end
  walk(root, 0)
  return table.concat(out, "\n")
end

local function run(seed)
  local spec, rnd = spec_gen(seed)
  now = (rnd(4) - 1) * 0.7
  local dslog, btlog = {}, {}
  clock_calls.ds, clock_calls.bt = 0, 0
  local ds = world(make_ds(), seed, dslog, "ds")
  local b = world(make_bt(), seed, btlog, "bt")
  local wake = {ds = 0, bt = 0}
  math.randomseed(seed)
  local dsroot = ds.build(spec)
  local dstree = ds.env.BT(ds.inst, dsroot)
  ds.tree = dstree
  math.randomseed(seed)
  -- Don't Starve's ids count from 0 in each world (behaviourtree.lua is loaded anew); bt's count
  -- on across seeds: compare each node's id less that of a node made just before the tree
  local first_id = exact and bt.BehaviourNode().id + 1 or 0
  local btroot = b.build(spec)
  local bttree
  if shared then
    bttree = b.env.BT(b.inst, bt.define(btroot))
    btroot = bttree.root -- the entity's copy of the root: statuses are read through it
  else
    bttree = b.env.BT(b.inst, btroot)
  end
  b.tree = bttree
  ds.inst.brain = {ForceUpdate = function() wake.ds = wake.ds + 1; dstree:ForceUpdate() end}
  b.inst.brain = {ForceUpdate = function() wake.bt = wake.bt + 1; bttree:ForceUpdate() end}

  local function compare(step)
    local problems = {}
    local a, c = normal(observe(dsroot, 0)), normal(observe(btroot, first_id))
    if a ~= c then problems[#problems + 1] = "statuses:\nDS:\n" .. a .. "\nbt:\n" .. c end
    local sa, sc = dstree:GetSleepTime(), bttree:GetSleepTime()
    if fmt(sa) ~= fmt(sc) then problems[#problems + 1] = "sleep: DS " .. fmt(sa) .. " bt " .. fmt(sc) end
    local da, dc = normal(tostring(dstree)), normal(tostring(bttree))
    if da ~= dc then problems[#problems + 1] = "dump:\nDS:\n" .. da .. "bt:\n" .. dc end
    local la, lc = table.concat(dslog, "\n"), table.concat(btlog, "\n")
    if la ~= lc then problems[#problems + 1] = "calls:\nDS:\n" .. la .. "\nbt:\n" .. lc end
    if wake.ds ~= wake.bt then problems[#problems + 1] = "wakes: DS " .. wake.ds .. " bt " .. wake.bt end
    if exact and clock_calls.ds ~= clock_calls.bt then
      problems[#problems + 1] = "clock calls: DS " .. clock_calls.ds .. " bt " .. clock_calls.bt
    end
    if #problems > 0 then
      print(string.format("seed %d step %s: MISMATCH", seed, step))
      print(table.concat(problems, "\n----\n"))
      return false
    end
    return true
  end

  if not compare("build") then return false end
  for k = 1, nthinks do
    local action = rnd(12)
    if action == 1 then
      ds.inst:PushEvent("a", k); b.inst:PushEvent("a", k)
    elseif action == 2 then
      ds.inst:PushEvent("b", k); b.inst:PushEvent("b", k)
    elseif action == 3 and rnd(4) == 1 then
      dstree:Reset(); bttree:Reset()
    elseif action == 4 and rnd(10) == 1 then
      dstree:Stop(); bttree:Stop()
    elseif action == 5 and rnd(3) == 1 then
      dstree:ForceUpdate(); bttree:ForceUpdate()
      if not compare("force " .. k) then return false end
    end
    now = now + ({0, 1 / 30, 0.1, 0.25, 0.5, 1, 2.5})[rnd(7)]
    if verbose then
      print(string.format("== think %d at %s after action %d", k, fmt(now), action))
      io.write("DS before:\n", tostring(dstree))
      print("root lasttime DS", fmt(dsroot.lasttime), "bt", fmt(btroot.lasttime), "period", fmt(dsroot.period))
    end
    math.randomseed(seed * 1000 + k)
    dstree:Update()
    math.randomseed(seed * 1000 + k)
    bttree:Update()
    if not compare("think " .. k) then return false end
  end
  return true
end

local failed, ds_crashed = 0, 0
for seed = first_seed, first_seed + nseeds - 1 do
  local ok, err = pcall(run, seed)
  if not ok and tostring(err):find(ds_dir, 1, true) then
    -- the original scripts raised an error (e.g. a node reset during its own visit): there is
    -- no Don't Starve behaviour to compare with from there on
    ds_crashed = ds_crashed + 1
    if verbose then print(string.format("seed %d: the DS scripts raised %s", seed, tostring(err))) end
  elseif not ok then
    print(string.format("seed %d: error %s", seed, tostring(err)))
    failed = failed + 1
  elseif err == false then
    failed = failed + 1
    if failed >= 3 then break end
  end
end
print(string.format("%d seeds from %d, %d thinks each: %d mismatched (%d stopped where the DS scripts raise an error)",
  nseeds, first_seed, nthinks, failed, ds_crashed))
os.exit(failed == 0 and 0 or 1)
