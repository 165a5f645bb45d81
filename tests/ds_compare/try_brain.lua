-- SPDX-License-Identifier: MIT
-- try_brain.lua: runs one Don't Starve brain file on bt, alone, in fake_world.lua's fake world,
-- and prints every think: the tick, the brain's sleep time and its tree dump (tostring(brain)).
-- For a modder porting a brain (docs/porting-a-ds-brain.md): the brain, the behaviour files it
-- requires and the game's globals it uses need no game.
--
--   DS_SCRIPTS=/path/to/scripts LUA_CPATH="build/lib/lua/5.4/?.so;;" \
--     lua5.4 tests/ds_compare/try_brain.lua [options] brain.lua [ticks] [seed]
--
-- options:
--   --exact         bt's DS-exact mode (bt.set_exact(true)): Don't Starve's timing to the tick
--   --original      run the file on Don't Starve's own class.lua, behaviourtree.lua and brain.lua
--                   instead of bt; with --exact on the bt run, the two outputs are the same text
--   --calls         also print the calls the brain and its behaviours made on the world
--   --answers FILE  the world's scripted answers: FILE is Lua that returns a table of them, by
--                   name as the brain asks (fake_world.lua's W.answer: a value, a function of
--                   the time, or timeline(t1, v1, t2, v2, ...), which FILE may call), e.g.
--                   {["TheWorld.state.isday"] = timeline(0, true, 5, false),
--                    ["FindEntity()"] = function() end}
--   --quiet         print nothing per think (only errors, and what the options below print)
--
-- the test kit (bt.test, docs/bt-test.md) on the brain, for bt runs only:
--   --substitute RULE  replaces nodes of the brain's tree by a leaf of the kit's (T.substitute),
--                   without editing the file; repeatable. RULE is WHO:AS, WHO one of
--                   path=PATH (Priority/Parallel/PanicTrigger), name=NAME (every node of that
--                   name), class=CLASS (every node of a class of the brain's world: a behaviour's,
--                   Wander, or a constructor, ActionNode); AS one of succeed, fail, run=SECONDS
--                   (RUNNING for SECONDS, then SUCCESS), run=SECONDS,fail; e.g. name=Wander:run=3
--   --coverage      at the end, the kit's text coverage of the brain (T.coverage): per node,
--                   its figures and its line in the brain file, then the nodes never visited
--   --record FILE   writes the run's log (bt.log) to FILE, a golden log for --check
--   --check FILE    compares this run with the one recorded in FILE (T.check): at the end, the
--                   first differing record (time, agent, path, each side's) and a summary;
--                   exit status 1 when they differ
--
-- ticks (default 300) are ticks of 1/30 s; seed (default 1) decides what the fake world answers
-- and which events happen. `require "x/y"` in the brain and in what it loads looks first in the
-- scripts folder the brain file is in (the folder above its `brains/`, if it is in one), then in
-- DS_SCRIPTS: a mod's own behaviours come before the game's. Without DS_SCRIPTS a bt run takes
-- everything from the brain's own scripts folder (a brain that needs none of the game's files);
-- --original needs it. The events the brain's EventNodes listen for, and a few common ones, are
-- pushed on its entity now and then, as tests/ds_compare/shipped_brains.lua does. Nothing printed
-- says which side ran, so that two runs' outputs compare with diff, standard error included. The
-- exit status is 1 if the brain does not load or an error escapes a think (which, on bt, only the
-- --original run can do) or --check finds a difference, 2 on bad usage.

local usage = "usage: try_brain.lua [--exact] [--original] [--calls] [--quiet] [--answers FILE] " ..
  "[--substitute RULE]... [--coverage] [--record FILE] [--check FILE] brain.lua [ticks] [seed]"
local function die(msg)
  io.stderr:write(msg, "\n")
  os.exit(2)
end

-- A --substitute RULE read: {text = RULE, key = "path" | "name" | "class", value = , as = {"succeed"}
-- | {"fail"} | {"run", seconds, result}}; a bad one is an error naming it and what was wrong.
local RULE_FORM = " (WHO:AS: WHO path=PATH, name=NAME or class=CLASS; AS succeed, fail, run=SECONDS " ..
  "or run=SECONDS,fail)"
local function parse_rule(text)
  local function bad(why) die("--substitute " .. text .. ": " .. why .. RULE_FORM) end
  local who, as = text:match("^(.*):([^:]*)$")
  if not who then bad("no :AS at the end") end
  local key, value = who:match("^(%a+)=(.*)$")
  if key ~= "path" and key ~= "name" and key ~= "class" then
    bad("'" .. who .. "' does not start with path=, name= or class=")
  end
  if value == "" then bad("the " .. key .. " is empty") end
  local how
  if as == "succeed" or as == "fail" then
    how = {as}
  else
    local seconds, result = as:match("^run=([^,]*),?(.*)$")
    local s = tonumber(seconds)
    if not s or s < 0 or s == math.huge then
      bad("'" .. as .. "' is not succeed, fail or run=SECONDS (SECONDS a number, 0 or more)")
    end
    if result ~= "" and result ~= "fail" and result ~= "succeed" then
      bad("'" .. as .. "': after run=SECONDS, ',fail' or ',succeed' or nothing")
    end
    how = {"run", s, result == "fail" and "FAILED" or "SUCCESS"}
  end
  return {text = text, key = key, value = value, as = how}
end

local opts, args = {substitute = {}}, {}
local i = 1
while i <= #arg do
  local a = arg[i]
  local o, value = a:match("^%-%-(%w+)=(.*)$")
  o = o or a:match("^%-%-(%w+)$")
  if o == "answers" or o == "substitute" or o == "record" or o == "check" then
    if value == nil then
      i = i + 1
      value = arg[i] or die("--" .. o .. " needs " .. (o == "substitute" and "a rule" or "a file") .. "\n" .. usage)
    end
    if o == "substitute" then
      table.insert(opts.substitute, parse_rule(value))
    else
      opts[o] = value
    end
  elseif o == "exact" or o == "original" or o == "calls" or o == "quiet" or o == "coverage" then
    opts[o] = true
  elseif o or a:match("^%-%-") then
    die("unknown option " .. a .. "\n" .. usage)
  else
    args[#args + 1] = a
  end
  i = i + 1
end
local brain_file = args[1] or die(usage)
local nticks = tonumber(args[2]) or 300
local seed = tonumber(args[3]) or 1
local ds_dir = os.getenv("DS_SCRIPTS")
if ds_dir == "" then ds_dir = nil end
if opts.original then
  -- the kit works on bt's trees: the game's own scripts have none
  local kit = #opts.substitute > 0 and "--substitute" or opts.coverage and "--coverage" or
    opts.record and "--record" or opts.check and "--check"
  if kit then
    die(kit .. " works on bt's run of the brain (the test kit, bt.test), not with --original, which runs " ..
      "the game's own scripts")
  end
end
if opts.record and opts.record == opts.check then
  die("--record and --check name the same file, " .. opts.record .. ": record into another one")
end
if not ds_dir and opts.original then
  die("--original runs the game's class.lua, behaviourtree.lua and brain.lua: set DS_SCRIPTS to the " ..
    "game's scripts folder (the one holding brain.lua)")
end

local here = arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local fake_world = dofile(here .. "/fake_world.lua")

local read, ls = fake_world.read_file, fake_world.lua_names
-- the test kit (bt.test), whose scripted answers the world gives; it loads bt when used
local T = fake_world.kit

local brain_src = read(brain_file)
if not brain_src then io.stderr:write("cannot open ", brain_file, "\n") os.exit(2) end
-- where `require` looks: the brain's own scripts folder, then the game's
local roots = {}
local brain_dir = brain_file:match("^(.*)[/\\][^/\\]*$") or "."
local mod_root = brain_dir:match("^(.*)[/\\]brains$") or (brain_dir == "brains" and ".")
if mod_root and mod_root ~= ds_dir then roots[#roots + 1] = mod_root end
roots[#roots + 1] = ds_dir
if #roots == 0 then
  die("set DS_SCRIPTS to the game's scripts folder (the one holding brain.lua), or put " .. brain_file ..
    " in the brains/ folder of a mod's scripts")
end
local function find(name)
  for _, r in ipairs(roots) do
    local path = r .. "/" .. name .. ".lua"
    if read(path) then return path end
  end
end

local TICK = 1 / 30
local tick = 0
local function now() return tick * TICK end

local bt
if not opts.original then
  bt = require "bt"
  bt.set_exact(opts.exact == true)
  bt.set_clock(now)
  bt.set_tick_time(TICK)
  -- bt contains errors in scripts and reports them here; print them where the thinks are
  bt.set_error_handler(function(msg) print("error: " .. tostring(msg)) end)
  -- coverage gives each node its line: set before any node is made
  if opts.coverage then bt.set_where(true) end
end

-- what the fake world makes up follows how the sources use it: every behaviour and brain of the
-- game (and of the mod), and this brain (as tests/ds_compare/shipped_brains.lua does, so both
-- runs agree)
local sources = {brain_src}
for _, r in ipairs(roots) do
  for _, d in ipairs({"behaviours", "brains"}) do
    for _, n in ipairs(ls(r .. "/" .. d)) do sources[#sources + 1] = read(r .. "/" .. d .. "/" .. n .. ".lua") end
  end
end
local log = {}
local W = fake_world.new_world(seed, log, now, fake_world.shapes(sources))

-- the brain's globals: bt's (bt.install_globals) or the original scripts', and the fake world's
local env = setmetatable({}, {__index = _G})
local loaded = {}
env.require = function(name)
  name = name:gsub("%.lua$", "")
  -- on bt, bt.install_globals() stands for class.lua, behaviourtree.lua and brain.lua
  if bt and (name == "class" or name == "behaviourtree" or name == "brain") then return end
  if loaded[name] ~= nil then return loaded[name] end
  local path = find(name) or error("require " .. name .. ": not in " .. table.concat(roots, " or "), 2)
  local r = assert(loadfile(path, "t", env))()
  loaded[name] = r == nil and true or r
  return r
end
if bt then
  bt.install_globals(env)
end
W.install(env)
-- the answers the world is told to give (--answers), in the order of their names
if opts.answers then
  local chunk, err = loadfile(opts.answers, "t", setmetatable({timeline = fake_world.timeline}, {__index = _G}))
  local ok, answers = pcall(chunk or error, err)
  if not ok or type(answers) ~= "table" then
    die(opts.answers .. ": " .. (ok and "returns no table of answers" or tostring(answers)))
  end
  local names = {}
  for name in pairs(answers) do names[#names + 1] = name end
  table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
  for _, name in ipairs(names) do
    local oka, erra = pcall(W.answer, name, answers[name])
    if not oka then die(opts.answers .. ": " .. tostring(erra)) end
  end
end
env.GetTime = now
env.GetTick = function() return tick end
env.GetTickTime = function() return TICK end
if not bt then
  env.require("class")
  env.require("behaviourtree")
  env.require("brain")
end
-- in the game every behaviour file is loaded before long, and brains use the globals they define
-- without requiring them: load them all (approach.lua after follow.lua, whose DBString it redefines)
local behaviours, seen = {}, {}
for _, r in ipairs(roots) do
  for _, n in ipairs(ls(r .. "/behaviours")) do
    if not seen[n] then seen[n], behaviours[#behaviours + 1] = true, n end
  end
end
table.sort(behaviours, function(a, b) return (a == "approach" and "~" or a) < (b == "approach" and "~" or b) end)
for _, f in ipairs(behaviours) do pcall(env.require, "behaviours/" .. f) end

-- the calls made on the world since the last print (with --calls), indented
local function flush_calls()
  if opts.calls and not opts.quiet then
    for _, l in ipairs(log) do print("  " .. l) end
  end
  for k in pairs(log) do log[k] = nil end
end

math.randomseed(seed)
local chunk, err = loadfile(brain_file, "t", env)
local ok, Brain = pcall(chunk or error, err)
if not ok or type(Brain) ~= "table" or not Brain._ctor then
  print("does not load: " .. (ok and "the file returns no Brain class" or tostring(Brain)))
  os.exit(1)
end
local inst = W.inst
local brain = Brain(inst)
brain.inst = inst
inst.brain = brain

-- the kit on the brain: its rules apply to the tree its OnStart builds; the recorder it records
-- into (statistics for --coverage, the log for --record) is the one --check compares
local kit = {}
if #opts.substitute > 0 then
  kit.rules = {}
  for k, r in ipairs(opts.substitute) do
    local value = r.value
    if r.key == "class" then
      value = rawget(env, value)
      if type(value) ~= "table" or type(value.is_a) ~= "function" then
        die("--substitute " .. r.text .. ": no class '" .. r.value .. "' in the brain's world (a behaviour's " ..
          "class, such as Wander, or a node constructor, such as ActionNode)")
      end
    end
    local as = r.as[1] == "succeed" and T.succeed() or r.as[1] == "fail" and T.fail() or T.run(r.as[2], r.as[3])
    kit.rules[k] = {[r.key] = value, as = as}
  end
  T.substitute(brain, kit.rules)
end
if opts.coverage or opts.record then
  local log
  if opts.record then
    local err
    log, err = bt.log.create(opts.record)
    if not log then die("--record " .. opts.record .. ": " .. tostring(err)) end
    kit.log = log
  end
  brain:Record({capacity = 0, stats = opts.coverage, log = log})
end
if opts.check then
  local ok, check = pcall(T.check, opts.check)
  if not ok then die("--check " .. opts.check .. ": " .. tostring(check)) end
  check:watch(brain)
  kit.check = check
end

local update = brain.OnUpdate
brain.OnUpdate = function(self)
  update(self)
  if opts.quiet then
    return
  end
  local s = self:GetSleepTime()
  print(string.format("tick %d: thought, sleep %s", tick, s and string.format("%.2f", s) or "nil (hibernates)"))
  flush_calls()
  local okd, dump = pcall(tostring, self)
  print(okd and dump or ("dump raised: " .. tostring(dump)))
end
if kit.rules then
  -- a rule that fits no node of the tree OnStart builds fails here, named by its place
  local okstart, errstart = pcall(brain.Start, brain)
  if not okstart then
    -- the kit's "substitute: rule k (...) matches ..." said with the rule as it was given
    local msg = tostring(errstart)
    local k, rest = msg:match("^substitute: rule (%d+) %b() (.*)$")
    local rule = opts.substitute[tonumber(k)]
    die(rule and "--substitute " .. rule.text .. " " .. rest or msg)
  end
else
  brain:Start()
end
-- on standard error, and without the side (bt, DS-exact, the original scripts), so that the
-- outputs of two runs compare with diff even with standard error
io.stderr:write(string.format("%s: seed %d, %d ticks\n", brain_file, seed, nticks))
if opts.calls and not opts.quiet and #log > 0 then print("start:") end
flush_calls()

-- events: those the brain's EventNodes listen for, and common ones
local events = {"attacked", "newcombattarget", "onattackother", "epicscare", "panic", "gohome"}
for e in brain_src:gmatch('EventNode%(%s*[%w_.]+%s*,%s*"([%w_]+)"') do events[#events + 1] = e end
local control = seed
local function rnd(k)
  control = (control * 48271 + 7) % 2147483647
  return control % k
end
local manager = bt and bt.BrainManager or env.BrainManager
for t = 1, nticks do
  tick = t
  local ev = rnd(20) == 0 and events[1 + rnd(#events)] or nil
  local r1 = rnd(1000)
  math.randomseed(seed * 100000 + t, 1)
  W.advance(TICK, t)
  if ev then
    local e = W.ents[1 + r1 % #W.ents]
    if not opts.quiet then print(string.format("tick %d: event %s", t, ev)) end
    inst:PushEvent(ev, {attacker = e, target = e, damage = 10, duration = 5})
  end
  math.randomseed(seed * 100000 + t)
  local okt, errt = pcall(manager.Update, manager, t)
  if not okt then
    print(string.format("tick %d: error: %s", t, tostring(errt)))
    os.exit(1)
  end
  -- calls of a tick without a think (the manager asking whether the entity is asleep)
  if opts.calls and not opts.quiet and #log > 0 then print(string.format("tick %d: no think", t)) end
  flush_calls()
end

-- what the kit says at the end: coverage, then the comparison with the golden log
if kit.log then kit.log:close() end
if opts.coverage then
  io.write(T.coverage(brain):report())
end
if kit.check then
  local rows, _, report = kit.check:finish()
  io.write(report)
  if #rows > 0 then os.exit(1) end
end
