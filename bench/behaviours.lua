-- SPDX-License-Identifier: MIT
-- behaviours.lua: what a think costs when the leaves are behaviour classes (BehaviourNode
-- subclasses with a Visit in Lua), as in every real brain. Run by `make bench`, or:
--
--   [DS_SCRIPTS=/path/to/scripts] build/bench/bench_think bench/behaviours.lua [--agents N]
--     [--frames N] [--rounds N] [--order made|random]
--
-- The brain, a tree per agent built the Don't Starve way:
--
--   PriorityNode({WhileNode(scared, "Scared", Panic(inst)), Leash(inst, home, 80, 30, true),
--     IfNode(hungry, "Hungry", ActionNode(eat, "Eat")), MinPeriod(inst, 2, true,
--     ChattyNode(inst, {"hello", "hi", "hey"}, FaceEntity(inst, getfn, keepfn, 1.5), 1, 0.5)),
--     StandStill(inst, startfn, keepfn)}, .25)
--
-- run on: Don't Starve's own behaviour files (scripts/behaviours/*.lua, loaded unchanged) on the
-- original scripts (with DS_SCRIPTS set) and on bt after bt.install_globals(); bt's own
-- behaviours/; and the behaviour floor: the same Don't Starve Visit bodies on plain tables, called
-- by a minimal hand-written loop that does the Priority's work and nothing more. Every agent
-- thinks every frame; the time comes from a Lua function, as Don't Starve's GetTime. The world is
-- cheap: each method of an entity does one field write (or returns a stored value), so what is
-- measured is the tree and the behaviours' own Lua. Each run prints the calls its behaviours made
-- on the world per think: equal counts mean equal work.
--
-- Then a field microbenchmark: a Visit that reads and writes self.status and the behaviour's own
-- fields, on a bt node object inside a think and on a plain table.

local bt = require "bt"
local bench = require "bench"
local dir = arg[0]:match("^(.*)/") or "."
local measure = dofile(dir .. "/measure.lua")

local AGENTS, FRAMES, ROUNDS = measure.options(arg,
  "[DS_SCRIPTS=/path/to/scripts] bench_think bench/behaviours.lua [--agents N] [--frames N] " ..
  "[--rounds N] [--order made|random]", 2000, 300, 3)
local TICK = measure.TICK
local ds_dir = os.getenv("DS_SCRIPTS")
if ds_dir == "" then ds_dir = nil end

local now = 0
local function clock() return now end

-- ---- the world ----

-- Calls the behaviours make on the world, the figure that shows two runs did the same work.
local calls = 0

-- The situation of agent i at time t: the brain's conditions change every few seconds, each agent
-- out of phase with the others.
local function phase(inst) return (now + inst.offset) % 12 end
local function scared(inst) calls = calls + 1; local p = phase(inst); return p >= 1 and p < 2.5 end
local function hungry(inst) calls = calls + 1; local p = phase(inst); return p >= 4 and p < 4.3 end
local function eat(inst) calls = calls + 1; inst.ate = now end
local function far(inst) local p = phase(inst); return p >= 6 and p < 7 end
local function getfn(inst) calls = calls + 1; local p = phase(inst); if p >= 8 then return inst.friend end end
local function keepfn(inst) calls = calls + 1; return phase(inst) < 11 end
local function startfn(inst) calls = calls + 1; return true end

local HOME = {x = 0, y = 0, z = 0}
local NEAR, FAR = {x = 5, y = 0, z = 0}, {x = 100, y = 0, z = 0}

-- An entity as Don't Starve's behaviours see it: components, a stategraph, a transform.
local function ds_agent(i)
  local inst = {offset = (i * 0.37) % 12}
  local loco = {}
  function loco:RunInDirection(angle) calls = calls + 1; self.angle = angle end
  function loco:Stop() calls = calls + 1; self.stopped = true end
  function loco:GoToPoint(pos, _, run) calls = calls + 1; self.dest = pos end
  local talker = {}
  function talker:Say(line) calls = calls + 1; self.line = line end
  local sg = {sg = {states = {alert = true}}, currentstate = {name = "idle"}}
  function sg:HasStateTag(tag) calls = calls + 1; return tag ~= "alert" end
  function sg:GoToState(name) calls = calls + 1; self.wanted = name end
  inst.components = {locomotor = loco, talker = talker}
  inst.sg = sg
  function inst:GetPosition() calls = calls + 1; return far(self) and FAR or NEAR end
  function inst:FacePoint(x) calls = calls + 1; self.facing = x end
  local friend = {Transform = {GetWorldPosition = function() calls = calls + 1; return 1, 0, 1 end}}
  function friend:IsValid() calls = calls + 1; return true end
  inst.friend = friend
  return inst
end

-- The same entity through docs/entity.md, for bt's own behaviours.
local function bt_agent(i)
  local inst = {offset = (i * 0.37) % 12}
  function inst:RunInDirection(angle) calls = calls + 1; self.angle = angle end
  function inst:Stop() calls = calls + 1; self.stopped = true end
  function inst:GoToPoint(x) calls = calls + 1; self.dest = x end
  function inst:Say(line) calls = calls + 1; self.line = line end
  function inst:GetPosition() calls = calls + 1; return far(self) and 100 or 5, 0 end
  function inst:GetDistanceSqTo(x, y)
    calls = calls + 1
    local px = far(self) and 100 or 5
    return (px - x) ^ 2 + y * y
  end
  function inst:FacePoint(x) calls = calls + 1; self.facing = x end
  local friend = {}
  function friend:IsValid() calls = calls + 1; return true end
  function friend:GetPosition() calls = calls + 1; return 1, 1 end
  inst.friend = friend
  return inst
end

-- ---- the behaviour files ----

local DS_FILES = {"panic", "leash", "minperiod", "chattynode", "faceentity", "standstill"}

-- What Don't Starve's util.lua and vector3.lua give the behaviours.
local function host_globals(env)
  env.FunctionOrValue = function(v, ...)
    if type(v) == "function" then return v(...) end
    return v
  end
  env.distsq = function(a, b)
    local dx, dz = a.x - b.x, a.z - b.z
    return dx * dx + dz * dz
  end
  env.FRAMES = 1 / 30
  return env
end

local function load_ds(env, name)
  local chunk, err = loadfile(ds_dir .. "/" .. name .. ".lua", "t", env)
  if not chunk then
    io.stderr:write("behaviours.lua: ", err, "\n")
    os.exit(2)
  end
  return chunk()
end

-- Don't Starve's classes and tree, and its behaviour files, in an environment of their own.
local ds
if ds_dir then
  ds = host_globals(setmetatable({}, {__index = _G}))
  ds.GetTime = clock
  ds.require = function(name) return load_ds(ds, name) end
  load_ds(ds, "class")
  load_ds(ds, "behaviourtree")
  for _, f in ipairs(DS_FILES) do load_ds(ds, "behaviours/" .. f) end
end

-- The same files on bt, after bt.install_globals().
local on_bt
if ds_dir then
  on_bt = host_globals(bt.install_globals(setmetatable({}, {__index = _G})))
  on_bt.require = function(name) return load_ds(on_bt, name) end
  for _, f in ipairs(DS_FILES) do load_ds(on_bt, "behaviours/" .. f) end
end

-- bt's own behaviours.
package.path = dir .. "/../?.lua;" .. package.path
local own = {
  Panic = require "behaviours.panic", Leash = require "behaviours.leash",
  MinPeriod = require "behaviours.minperiod", ChattyNode = require "behaviours.chattynode",
  FaceEntity = require "behaviours.faceentity", StandStill = require "behaviours.standstill",
}

local LINES = {"hello", "hi", "hey"}

-- The brain, with the classes in env (the behaviours) and nodes (the tree's own nodes).
local function brain(env, nodes, inst, home)
  return nodes.PriorityNode({
    nodes.WhileNode(function() return scared(inst) end, "Scared", env.Panic(inst)),
    env.Leash(inst, home, 80, 30, true),
    nodes.IfNode(function() return hungry(inst) end, "Hungry",
      nodes.ActionNode(function() eat(inst) end, "Eat")),
    env.MinPeriod(inst, 2, true, env.ChattyNode(inst, LINES,
      env.FaceEntity(inst, getfn, keepfn, 1.5), 1, 0.5)),
    env.StandStill(inst, startfn, keepfn),
  }, .25)
end

local function ds_tree(inst) return ds.BT(inst, brain(ds, ds, inst, HOME)) end
local function bt_ds_tree(inst) return bt.BT(inst, brain(on_bt, bt, inst, HOME)) end
local function bt_own_tree(inst) return bt.BT(inst, brain(own, bt, inst, {0, 0})) end

local function update(trees, f)
  now = f * TICK
  for i = 1, #trees do trees[i]:Update() end
end

-- ---- the floor: Don't Starve's behaviours on plain tables, the Priority written by hand ----

local READY, SUCCESS, FAILED, RUNNING = "READY", "SUCCESS", "FAILED", "RUNNING"

local function reset(node)
  if node.status ~= READY then
    node.status = READY
    local kids = node.children
    if kids then for i = 1, #kids do reset(kids[i]) end end
  end
end

-- One agent: its behaviour objects, the statuses of the While and the If, the Priority's state
-- (its first evaluation scattered over a period, as Don't Starve's constructor does), and the
-- closures of its conditions and action.
local function floor_agent(inst)
  local a = {
    inst = inst,
    panic = ds.Panic(inst), leash = ds.Leash(inst, HOME, 80, 30, true),
    chatty = ds.MinPeriod(inst, 2, true, ds.ChattyNode(inst, LINES, ds.FaceEntity(inst, getfn,
      keepfn, 1.5), 1, 0.5)),
    still = ds.StandStill(inst, startfn, keepfn),
    scared = READY, hungry = READY, status = READY, idx = nil,
    lasttime = .25 * 0.5 + .25 * math.random(),
    -- the brain's own closures, as the trees have them
    is_scared = function() return scared(inst) end,
    is_hungry = function() return hungry(inst) end,
    eat = function() eat(inst) end,
  }
  a.kids = {a.panic, a.leash, false, a.chatty, a.still}
  return a
end

-- Visits child i of the Priority; returns its status. The While is a Parallel of its condition
-- and Panic, the If a Sequence of its condition and the action, as Don't Starve builds them.
local function visit(a, i)
  if i == 1 then
    if not a.is_scared() then
      a.scared = FAILED
    else
      local panic = a.panic
      if panic.status ~= SUCCESS then panic:Visit() end
      local s = panic.status
      a.scared = (s == FAILED and FAILED) or (s == RUNNING and RUNNING) or SUCCESS
    end
    return a.scared
  elseif i == 3 then
    if a.is_hungry() then a.eat(); a.hungry = SUCCESS else a.hungry = FAILED end
    return a.hungry
  end
  local node = a.kids[i]
  node:Visit()
  return node.status
end

local function status_of(a, i)
  if i == 1 then return a.scared elseif i == 3 then return a.hungry end
  return a.kids[i].status
end

local function reset_child(a, i)
  if i == 1 then
    if a.scared ~= READY then a.scared = READY; reset(a.panic) end
  elseif i == 3 then a.hungry = READY
  else reset(a.kids[i]) end
end

-- A think: Don't Starve's PriorityNode:Visit, then BT:Update's Step (what is not running resets).
local function floor_think(a)
  if not a.lasttime or a.lasttime + .25 < now then
    a.lasttime = now
    local found = false
    for i = 1, 5 do
      if not found then
        local s = status_of(a, i)
        if s == FAILED or s == SUCCESS then reset_child(a, i) end
        s = visit(a, i)
        if s == SUCCESS or s == RUNNING then
          a.status = s
          found = true
          a.idx = i
        end
      else
        reset_child(a, i)
      end
    end
    if not found then a.status = FAILED end
  elseif a.idx and status_of(a, a.idx) == RUNNING then
    a.status = visit(a, a.idx)
    if a.status ~= RUNNING then a.lasttime = nil end
  end
  if a.status ~= RUNNING then
    a.status = READY
    a.idx = nil
    for i = 1, 5 do reset_child(a, i) end
  else
    for i = 1, 5 do
      if status_of(a, i) ~= RUNNING then reset_child(a, i) end
    end
  end
end

local function floor_frame(agents, f)
  now = f * TICK
  for i = 1, #agents do floor_think(agents[i]) end
end

-- A measurement for measure.rounds: make(inst) per agent, frame(list, f) per frame.
local function measurement(make, new_agent, frame, set_clock)
  return function()
    if set_clock then bt.set_clock(clock) end
    collectgarbage()
    collectgarbage()
    math.randomseed(1)
    local insts, list = {}, {}
    for i = 1, AGENTS do insts[i] = new_agent(i) end
    collectgarbage()
    collectgarbage()
    local bytes0 = bench.memory()
    local t0 = bench.now()
    for i = 1, AGENTS do list[i] = make(insts[i]) end
    local create = bench.now() - t0
    collectgarbage()
    collectgarbage()
    local bytes = bench.memory() - bytes0
    if measure.RANDOM_ORDER then
      for i = AGENTS, 2, -1 do
        local j = math.random(i)
        list[i], list[j] = list[j], list[i]
      end
    end
    local f = 1
    for _ = 1, measure.WARM do frame(list, f); f = f + 1 end
    local per_part = FRAMES // measure.PARTS
    local best, calls0 = math.huge, calls
    for _ = 1, measure.PARTS do
      local t = bench.now()
      for _ = 1, per_part do frame(list, f); f = f + 1 end
      best = math.min(best, bench.now() - t)
    end
    local thinks = AGENTS * per_part
    local r = {ns = best / thinks * 1e9, calls = (calls - calls0) / (thinks * measure.PARTS),
      bytes = bytes / AGENTS, create = create / AGENTS * 1e9}
    if list[1].Stop then for i = 1, AGENTS do list[i]:Stop() end end
    if set_clock then bt.set_clock(nil) end
    return r
  end
end

local runs = {}
if ds_dir then
  runs[#runs + 1] = {"Don't Starve scripts", measurement(ds_tree, ds_agent, update), "ds"}
  runs[#runs + 1] = {"floor: DS's Visits on plain tables", measurement(floor_agent, ds_agent,
    floor_frame), "floor"}
  runs[#runs + 1] = {"bt, Don't Starve's behaviour files", measurement(bt_ds_tree, ds_agent,
    update, true), "bt"}
end
runs[#runs + 1] = {"bt, bt's own behaviours/", measurement(bt_own_tree, bt_agent, update, true),
  "own"}
-- BENCH_RUNS="bt own" (any of ds, floor, bt, own) keeps only those runs, for profiling one
local only = os.getenv("BENCH_RUNS")
if only then
  local kept = {}
  for _, r in ipairs(runs) do
    if (" " .. only .. " "):find(" " .. r[3] .. " ", 1, true) then kept[#kept + 1] = r end
  end
  runs = kept
end
local list = {}
for i, r in ipairs(runs) do list[i] = r[2] end
local best = measure.rounds(ROUNDS, list)
local by = {}
for i, r in ipairs(runs) do by[r[3]] = best[i] end

print(string.format("A brain of behaviour classes (Panic, Leash, MinPeriod, ChattyNode, FaceEntity, " ..
  "StandStill under a Priority), a tree per agent: %d agents thinking %s every frame, %d frames " ..
  "at 30 Hz (fastest fifth timed), the time from a Lua function, fastest of %d rounds",
  AGENTS, measure.order(), FRAMES, ROUNDS))
print(string.format("%-38s %9s %11s %12s %12s %9s %9s", "run", "ns/think", "calls/think",
  "bytes/agent", "ns/creation", "DS / run", "run/floor"))
for i, r in ipairs(runs) do
  local f = best[i]
  print(string.format("%-38s %9.1f %11.2f %12.0f %12.0f %9s %9s", r[1], f.ns, f.calls, f.bytes,
    f.create, by.ds and string.format("%.2fx", by.ds.ns / f.ns) or "-",
    by.floor and string.format("%.2fx", f.ns / by.floor.ns) or "-"))
end
if by.ds and by.bt and by.floor then
  print(string.format("target: bt >= 5x Don't Starve (now %.2fx), or within 1.5x of the floor " ..
    "(now %.2fx; the floor is %.2fx Don't Starve)", by.ds.ns / by.bt.ns, by.bt.ns / by.floor.ns,
    by.ds.ns / by.floor.ns))
elseif not ds_dir then
  print("(set DS_SCRIPTS to the Don't Starve scripts folder for the runs on the original scripts, " ..
    "Don't Starve's behaviour files on bt, and the floor)")
end

-- ---- fields: a Visit touching self.status and its own fields, on a node object and a table ----

local N = 200
local function visit_body(self)
  for _ = 1, N do
    if self.status == "RUNNING" then self.count = self.count + 1 end
    self.status = "RUNNING"
  end
  self.status = "SUCCESS"
end

local Touch = bt.Class(bt.BehaviourNode, function(self)
  bt.BehaviourNode._ctor(self, "Touch")
  self.count = 0
end)
Touch.Visit = visit_body

local plain = {status = "READY", count = 0}
local tree = bt.BT({}, Touch())
local reps = math.max(1, AGENTS // 4)
local function time_of(fn)
  local b = math.huge
  for _ = 1, ROUNDS * measure.PARTS do
    local t = bench.now()
    for _ = 1, reps do fn() end
    b = math.min(b, bench.now() - t)
  end
  return b / (reps * N * 3) * 1e9 -- three field accesses per iteration
end
local node_ns = time_of(function() tree:Reset(); tree:Update() end)
local plain_ns = time_of(function() plain.status = "READY"; visit_body(plain) end)
print(string.format("\nA Visit reading and writing self.status and its own fields, %d times per visit:",
  N))
print(string.format("%-38s %9.2f ns per access", "bt node object, inside a think", node_ns))
print(string.format("%-38s %9.2f ns per access", "plain Lua table", plain_ns))
print(string.format("node / plain: %.2fx (target: at most 2x)", node_ns / plain_ns))
