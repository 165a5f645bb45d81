-- SPDX-License-Identifier: MIT
-- behaviours.lua: runs Don't Starve Together's own behaviour files (scripts/behaviours/*.lua,
-- loaded unchanged) in randomly composed brains, on the original DST scripts and on bt side by
-- side, think by think, and stops at the first difference in statuses, last results, behaviour
-- state, sleep times, tree dumps, or the calls the behaviours make on their entity.
--
-- The DS scripts are not part of this repository. Point DS_SCRIPTS at the `scripts` folder of a
-- copy of them (game build v638228; e.g. the mirror github.com/zhuyifei1999/dst-scripts at commit
-- 613aaa9c; behaviourtree.lua, class.lua and behaviours/*.lua are needed), build bt, and run from
-- the repository root:
--
--   DS_SCRIPTS=/path/to/scripts LUA_CPATH="build/lib/lua/5.4/?.so;;" \
--     lua5.4 tests/ds_compare/behaviours.lua [first_seed] [seeds] [thinks]
--
-- Each world (the DS one built from class.lua and behaviourtree.lua, the bt one from
-- bt.install_globals) gets its own fake entity from fake_entity.lua beside this file: a scripted,
-- deterministic model of the entity, its components, its stategraph, the entities around it and
-- the host globals the behaviours use. Both fakes start the same and answer the same calls the
-- same way, and every call is logged with its arguments and answer, so the worlds see the same
-- inputs as long as they make the same calls, and any difference in the calls is reported.
--
-- docs/lua-api.md's deviation 1 (a RUNNING WaitNode reports its true remaining time) is applied
-- to the DS side as compare.lua does; deviation 2 (node functions receive inst) is invisible because the
-- generated condition and action functions ignore their arguments (the behaviours call their own
-- stored functions themselves, with the same arguments on both sides).
--
-- EXACT=1: the DS side runs unpatched (its WaitNode sleeps 0) and bt runs DS-exact
-- (bt.set_exact(true)); then the number of calls of each side's clock is compared as well.
--
-- Environment: VERBOSE=1 prints every think's dumps and calls; MAXFAIL=n stops after n failing
-- seeds (default 1); COVERAGE=1 counts, over the run, each node name with each last result, and
-- each kind of call made on the fake entity.

local ds_dir = os.getenv("DS_SCRIPTS") or error("set DS_SCRIPTS to the folder holding behaviourtree.lua")
local first_seed = tonumber(arg[1]) or 1
local nseeds = tonumber(arg[2]) or 200
local nthinks = tonumber(arg[3]) or 60
local verbose = os.getenv("VERBOSE")
local maxfail = tonumber(os.getenv("MAXFAIL") or "1")
local coverage = os.getenv("COVERAGE") and {} or nil

local here = arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local fake = dofile(here .. "/fake_entity.lua")
local ser, serargs, mix = fake.ser, fake.serargs, fake.mix

local bt = require "bt"

local exact = os.getenv("EXACT") == "1"
local now = 0
local clock_calls = {ds = 0, bt = 0} -- the calls of each side's clock (compared under EXACT)
local function ds_clock() clock_calls.ds = clock_calls.ds + 1; return now end
local function bt_clock() clock_calls.bt = clock_calls.bt + 1; return now end
bt.set_clock(bt_clock)
bt.set_exact(exact)

-- errors that bt contains go to the log of the bt world (and so show up as a difference)
local bt_errors = nil
bt.set_error_handler(function(msg)
  if bt_errors then bt_errors[#bt_errors + 1] = "BT ERROR " .. tostring(msg) end
end)

-- ---- the two worlds ----

-- the behaviour files, in an order that a brain's requires could give (follow before approach,
-- whose file redefines Follow:DBString)
local BEHAVIOUR_FILES = {
  "minperiod", "chattynode", "wander", "panic", "standstill", "leash", "doaction", "faceentity",
  "follow", "approach", "runaway", "chaseandattack", "attackwall", "findlight", "findclosest",
  "standandattack", "useshield",
}
local BEHAVIOUR_CLASSES = {
  "MinPeriod", "ChattyNode", "Wander", "Panic", "StandStill", "Leash", "DoAction", "FaceEntity",
  "Follow", "Approach", "RunAway", "ChaseAndAttack", "AttackWall", "FindLight", "FindClosest",
  "StandAndAttack", "UseShield",
}

local function load_into(env, path)
  local chunk = assert(loadfile(path, "t", env))
  return chunk()
end

local function new_env(W)
  local env = setmetatable({}, {__index = _G})
  env.require = function(name)
    name = name:gsub("%.lua$", "")
    return load_into(env, ds_dir .. "/" .. name .. ".lua")
  end
  return env
end

local function load_behaviours(env)
  for _, f in ipairs(BEHAVIOUR_FILES) do env.require("behaviours/" .. f) end
end

local function make_ds(W)
  local env = new_env(W)
  W.install(env)
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
  load_behaviours(env)
  return env
end

local function make_bt(W)
  local env = new_env(W)
  bt.install_globals(env)
  W.install(env)
  load_behaviours(env)
  return env
end

-- ---- random brains ----

local EVENTS = {"panic", "attacked", "newcombattarget", "onattackother", "onmissother", "gohome", "entershield", "epicscare", "giveuptarget"}
local EVENTNODE_EVENTS = {"panic", "attacked", "newcombattarget", "onattackother", "gohome", "entershield", "giveuptarget"}

local function spec_gen(seed)
  local state = mix(seed, 5, 11) % 2147483646 + 1
  local function rnd(n)
    state = (state * 48271) % 2147483647
    return state % n + 1
  end
  local function pick(list) return list[rnd(#list)] end
  local function chance(n) return rnd(n) == 1 end
  local next_id = 0
  local function new_id() next_id = next_id + 1 return next_id end

  -- a number, or a function returning one (called by the behaviour with its own arguments)
  local function numfn(base, step)
    if chance(3) then return {fn = new_id(), base = base, step = step} end
    return {num = base + (rnd(3) - 2) * step}
  end
  local function maybe(n, v) if chance(n) then return nil end return v end
  local function cond()
    return {id = new_id(), kind = pick({"truth", "truth", "hastarget", "incooldown", "nearplayer", "isday", "hashome", "dead"})}
  end
  local function getter(allow_value)
    local kinds = {"leader", "target", "nearest", "scripted"}
    if allow_value then kinds[#kinds + 1] = "fixed" end
    return {id = new_id(), kind = pick(kinds), tag = pick({"player", "character", "monster", "pig", "lightsource"}), idx = rnd(6)}
  end

  local BEHS = {"wander", "panic", "standstill", "leash", "doaction", "faceentity", "follow", "approach",
    "runaway", "chaseandattack", "attackwall", "findlight", "findclosest", "standandattack", "useshield"}

  local function beh(kind)
    kind = kind or pick(BEHS)
    local b = {t = "beh", kind = kind}
    if kind == "wander" then
      b.home = pick({"none", "vec", "known", "fnfalse", "known"})
      b.maxdist = numfn(12, 5)
      if chance(2) then
        b.times = {minwalktime = pick({0.5, 1, 2}), randwalktime = pick({0, 1, 3}), minwaittime = pick({0, 0.5, 1}), randwaittime = pick({0, 0, 2})}
      end
      if chance(3) then b.getdir = new_id() end
      b.setdir = chance(2) and new_id() or nil
      if chance(3) then b.checkpoint = new_id() end
      if chance(2) then
        b.data = {wander_dist = chance(3) and {fn = new_id(), base = 6, step = 3} or pick({4, 8, 12}),
          offest_attempts = pick({2, 4, 8}), should_run = pick({"nil", "true", "false", "fn"}), run_id = new_id()}
      end
    elseif kind == "standstill" then
      if chance(2) then b.startfn = new_id() end
      if chance(2) then b.keepfn = new_id() end
    elseif kind == "leash" then
      b.home = pick({"vec", "known", "fnfalse", "known"})
      b.maxdist = numfn(8, 3)
      b.returndist = numfn(3, 1.5)
      b.running = pick({"nil", "true", "false", "fn"})
      b.run_id = new_id()
    elseif kind == "doaction" then
      b.id = new_id()
      b.name = chance(2) and ("Act" .. b.id) or nil
      b.run = pick({"nil", "true", "false", "fn"})
      b.run_id = new_id()
      b.timeout = maybe(2, pick({0.5, 1, 3}))
    elseif kind == "faceentity" then
      b.get = getter(false)
      b.keep = {id = new_id(), kind = pick({"truth", "near"})}
      b.timeout = maybe(2, pick({0.5, 2, 5}))
      b.customalert = chance(3) and "taunt" or nil
    elseif kind == "follow" then
      b.target = getter(true)
      b.min = numfn(1.5, 1)
      b.targetd = numfn(5, 1.5)
      b.max = numfn(9, 2)
      b.canrun = pick({"nil", "true", "false"})
      b.alwayseval = pick({"nil", "true", "false"})
      b.inlimbo_invalid = chance(2)
    elseif kind == "approach" then
      b.target = getter(true)
      b.dist = numfn(4, 2)
      b.canrun = pick({"nil", "true", "false"})
    elseif kind == "runaway" then
      local h = rnd(3)
      if h == 1 then b.hunter = {str = pick({"scarytoprey", "player", "monster", "character"})}
      elseif h == 2 then
        b.hunter = {tbl = true, tags = chance(2) and {pick({"monster", "character", "lightsource", "hostile"})} or nil,
          notags = chance(2) and {"NOCLICK"} or nil, oneoftags = chance(3) and {"player", "hound", "tool"} or nil,
          fn = chance(2) and new_id() or nil, seeequipped = chance(2)}
      else b.hunter = {fn = new_id()} end
      b.see = pick({4, 6, 8, 12})
      b.safe = b.see + pick({1, 3, 6})
      if chance(2) then b.shouldrun = new_id() end
      b.runhome = chance(3)
      b.fix_overhang = chance(2)
      b.walk_instead = chance(3)
      if chance(3) then b.safepoint = new_id() end
    elseif kind == "chaseandattack" then
      b.max_chase_time = maybe(2, pick({2, 5, 10}))
      b.give_up_dist = maybe(2, pick({8, 15, 25}))
      b.max_attacks = maybe(2, pick({1, 2, 4}))
      if chance(2) then b.findnew = getter(false) end
      b.walk = chance(3)
      local o = rnd(4)
      if o == 2 then b.ocean = {num = 1.5} elseif o == 3 then b.ocean = {fn = new_id(), base = 1, step = 1} end
    elseif kind == "findlight" then
      b.see = pick({8, 15, 30})
      local o = rnd(3)
      if o == 2 then b.safe = {num = pick({2, 4})} elseif o == 3 then b.safe = {fn = new_id(), base = 2, step = 1} end
    elseif kind == "findclosest" then
      b.see = pick({8, 15, 30})
      b.safe = numfn(3, 1)
      b.tags = pick({"lightsource", "character", {"pig"}, {"monster", "hostile"}})
      b.exclude = pick({false, "NOCLICK", {"wall", "player"}})
      b.oneof = pick({false, false, {"player", "pig", "hound"}})
    elseif kind == "standandattack" then
      if chance(2) then b.findnew = getter(false) end
      b.timeout = maybe(2, pick({1, 3}))
    elseif kind == "useshield" then
      b.damage = maybe(2, pick({5, 30}))
      b.shieldtime = maybe(2, pick({0.5, 2, 4}))
      b.projectiles = chance(2)
      b.scared = chance(2)
      if chance(2) then b.data = {dontupdatetimeonattack = chance(2), usecustomanims = chance(2), dontshieldforfire = chance(2)} end
    end
    return b
  end

  local built = {}
  local function gen(depth)
    if #built > 3 and chance(25) then return {t = "ref", target = built[rnd(#built)]} end
    local node
    local roll = rnd(100)
    if depth >= 4 or roll <= 25 + depth * 8 then
      node = beh()
    else
      local k = rnd(24)
      local function kid() return gen(depth + 1) end
      if k <= 3 then node = {t = "while", cond = cond(), name = "While", kid = kid()}
      elseif k <= 5 then node = {t = "if", cond = cond(), name = "If", kid = kid()}
      elseif k == 6 then node = {t = "itdw", cond = cond(), cond2 = cond(), kid = kid()}
      elseif k <= 8 then
        local lines = pick({"PIG_TALK_FIGHT", "PIG_TALK_ONE", "NO_SUCH_LINES", "table", "fn", "params"})
        node = {t = "chatty", lines = lines, lines_id = new_id(), kid = kid(), delay = maybe(2, pick({0.5, 2, 5})),
          rand = maybe(2, pick({0, 1, 3})), enter = maybe(2, pick({0, 1, 4})), enter_rand = maybe(2, pick({0, 2})),
          echo = pick({"nil", "true", "false", "3"})}
      elseif k == 9 then node = {t = "minperiod", period = pick({0.5, 1, 3}), immediate = chance(2), kid = kid()}
      elseif k <= 11 then
        local inner = chance(2) and {t = "parwait", kid = beh(chance(2) and "panic" or nil), time = pick({0.5, 1, 3, 6}), any = false} or kid()
        node = {t = "event", name = pick(EVENTNODE_EVENTS), kid = inner, priority = rnd(3) - 1}
      elseif k <= 13 then node = {t = "parwait", kid = kid(), time = pick({0.5, 1, 3, 6}), timefn = chance(4) and new_id() or nil, any = chance(3)}
      elseif k == 14 then node = {t = "parloop", kid = kid(), time = pick({0.5, 1, 3}), act = {id = new_id(), kind = pick({"log", "event", "target"})}}
      elseif k == 15 then
        local kids = {}
        for i = 1, 1 + rnd(2) do
          local r = rnd(4)
          if r == 1 then kids[i] = {t = "act", act = {id = new_id(), kind = pick({"log", "log", "event", "target", "stop"})}}
          elseif r == 2 then kids[i] = {t = "cond", cond = cond()}
          else kids[i] = kid() end
        end
        node = {t = "seq", kids = kids}
      elseif k == 16 then node = {t = "fir", kid = kid()}
      elseif k == 17 then node = {t = "fis", act = {id = new_id(), kind = pick({"log", "event", "target"})}}
      elseif k == 18 then node = {t = "not", kid = kid()}
      elseif k <= 20 then
        local kids = {}
        for i = 1, 1 + rnd(4) do kids[i] = kid() end
        node = {t = "pri", kids = kids, period = pick({0.1, 0.25, 0.5, 1}), noscatter = chance(4)}
      elseif k == 21 then node = {t = "latch", dur = pick({0, 1, 3}), kid = kid()}
      elseif k == 22 then node = {t = chance(2) and "cond" or "cwait", cond = cond()}
      elseif k == 23 then
        node = {t = "loop", kids = {{t = "chatty", lines = "PIG_TALK_FIGHT", lines_id = new_id(), kid = beh("doaction"), echo = "nil"}}, maxreps = maybe(2, rnd(3))}
      else
        node = {t = pick({"sel", "rand"}), kids = {kid(), kid()}}
      end
    end
    built[#built + 1] = node
    return node
  end

  local root = {t = "pri", period = pick({0.25, 0.5, 1}), noscatter = chance(4), kids = {}}
  for i = 1, 1 + rnd(6) do root.kids[i] = gen(1) end
  return root, rnd
end

-- ---- building a spec in one world ----

local function world(env, W, seed, log)
  local inst = W.inst
  local L = W.L
  local w = {env = env, W = W, inst = inst}

  local function val(p)
    if p == nil then return nil end
    if p.num then return p.num end
    return function(...)
      local v = p.base + W.script("val" .. p.fn, 3) * p.step
      L("val " .. p.fn .. "(" .. serargs(...) .. ") -> " .. v)
      return v
    end
  end

  local function flag(s, id)
    if s == "nil" then return nil elseif s == "true" then return true elseif s == "false" then return false end
    return function(...)
      local v = W.script("flag" .. id, 2) == 0
      L("flag " .. id .. "(" .. serargs(...) .. ") -> " .. tostring(v))
      return v
    end
  end

  -- a condition function; it ignores its arguments (bt passes inst, DS passes nothing)
  local function cond(c)
    return function()
      local v
      local combat = inst.components.combat
      if c.kind == "truth" then v = W.script("cond" .. c.id, 3) ~= 0
      elseif c.kind == "hastarget" then v = combat.target ~= nil
      elseif c.kind == "incooldown" then v = combat:InCooldown()
      elseif c.kind == "nearplayer" then v = env.FindEntity(inst, 8, nil, {"player"}) ~= nil
      elseif c.kind == "isday" then v = (now // 10) % 2 == 0
      elseif c.kind == "hashome" then v = inst.components.homeseeker:HasHome()
      elseif c.kind == "dead" then v = not inst.components.health:IsDead()
      end
      L("cond " .. c.id .. " " .. c.kind .. " -> " .. tostring(v))
      return v
    end
  end

  local function getter(g)
    if g.kind == "fixed" then return W.ents[g.idx] end
    return function(...)
      local v
      if g.kind == "leader" then v = inst.components.follower:GetLeader()
      elseif g.kind == "target" then v = inst.components.combat.target
      elseif g.kind == "nearest" then v = env.FindEntity(inst, 10, nil, {g.tag})
      elseif g.kind == "scripted" then
        local r = W.script("get" .. g.id, #W.ents + 2)
        v = W.ents[r]
      end
      L("get " .. g.id .. " " .. g.kind .. "(" .. serargs(...) .. ") -> " .. ser(v))
      return v
    end
  end

  local function scripted(id, what, n)
    return function(...)
      local v = W.script(what .. id, n or 3) ~= 0
      L(what .. " " .. id .. "(" .. serargs(...) .. ") -> " .. tostring(v))
      return v
    end
  end

  local function action(a)
    return function()
      local r = W.script("act" .. a.id, 4)
      L("act " .. a.id .. " " .. a.kind .. " " .. r)
      if a.kind == "event" and r <= 1 then
        inst:PushEvent(EVENTNODE_EVENTS[W.script("actev" .. a.id, #EVENTNODE_EVENTS) + 1], {target = inst.components.combat.target})
      elseif a.kind == "target" and r <= 1 then
        inst.components.combat:SetTarget(env.FindEntity(inst, 15, nil, nil, {"wall", "NOCLICK"}, {"monster", "player", "rabbit"}))
      elseif a.kind == "stop" and r == 0 and W.script("stop" .. a.id, 4) == 0 then
        w.tree:Stop()
      end
    end
  end

  local ACTION_IDS = {"PICKUP", "EAT", "GOHOME", "CHOP", "WALKTO"}
  local function getaction(id)
    return function(...)
      local r = W.script("getaction" .. id, 5)
      L("getaction " .. id .. "(" .. serargs(...) .. ") -> " .. r)
      if r == 0 then return nil end
      local target
      if r <= 3 then target = env.FindEntity(inst, 12, nil, nil, {"wall"}) end
      if r <= 3 and target == nil then return nil end
      return env.BufferedAction(inst, target, env.ACTIONS[ACTION_IDS[r + 1]])
    end
  end

  local function homepos(kind)
    if kind == "none" then return nil
    elseif kind == "vec" then return env.Vector3(W.home.x, 0, W.home.z)
    elseif kind == "known" then
      return function(...)
        L("home known(" .. serargs(...) .. ")")
        return inst.components.knownlocations:GetLocation("home")
      end
    else
      return function(...)
        -- legacy home functions answer false rather than nil
        local v = inst.components.knownlocations:GetLocation("home") or false
        L("home fnfalse(" .. serargs(...) .. ") -> " .. ser(v))
        return v
      end
    end
  end

  local function behaviour(b)
    local k = b.kind
    if k == "wander" then
      local data
      if b.data then
        local wd = b.data.wander_dist
        if type(wd) == "table" then wd = val(wd) end
        data = {wander_dist = wd, offest_attempts = b.data.offest_attempts, should_run = flag(b.data.should_run, b.data.run_id)}
      end
      local getdir = b.getdir and function(...)
        local r = W.script("dir" .. b.getdir, 3)
        local v = r ~= 0 and (r * 1.3) or nil
        L("getdir " .. b.getdir .. "(" .. serargs(...) .. ") -> " .. ser(v))
        return v
      end
      local setdir = b.setdir and function(...) L("setdir " .. b.setdir .. "(" .. serargs(...) .. ")") end
      local checkpoint = b.checkpoint and scripted(b.checkpoint, "checkpoint", 4)
      return env.Wander(inst, homepos(b.home), val(b.maxdist), b.times, getdir, setdir, checkpoint, data)
    elseif k == "panic" then
      return env.Panic(inst)
    elseif k == "standstill" then
      return env.StandStill(inst, b.startfn and scripted(b.startfn, "start"), b.keepfn and scripted(b.keepfn, "keep", 5))
    elseif k == "leash" then
      return env.Leash(inst, homepos(b.home), val(b.maxdist), val(b.returndist), flag(b.running, b.run_id))
    elseif k == "doaction" then
      return env.DoAction(inst, getaction(b.id), b.name, flag(b.run, b.run_id), b.timeout)
    elseif k == "faceentity" then
      local keep
      if b.keep.kind == "truth" then keep = scripted(b.keep.id, "keepface", 4)
      else
        keep = function(me, target)
          local v = me:IsNear(target, 10)
          L("keepface near " .. b.keep.id .. "(" .. serargs(me, target) .. ") -> " .. tostring(v))
          return v
        end
      end
      return env.FaceEntity(inst, getter(b.get), keep, b.timeout, b.customalert)
    elseif k == "follow" then
      local function bool(s) if s == "nil" then return nil end return s == "true" end
      return env.Follow(inst, getter(b.target), val(b.min), val(b.targetd), val(b.max), bool(b.canrun), bool(b.alwayseval), b.inlimbo_invalid)
    elseif k == "approach" then
      local canrun = nil
      if b.canrun ~= "nil" then canrun = b.canrun == "true" end
      return env.Approach(inst, getter(b.target), val(b.dist), canrun)
    elseif k == "runaway" then
      local h = b.hunter
      local params
      if h.str then params = h.str
      elseif h.tbl then params = {tags = h.tags, notags = h.notags, oneoftags = h.oneoftags, fn = h.fn and scripted(h.fn, "hunter", 3), seeequipped = h.seeequipped}
      else params = scripted(h.fn, "hunter", 2) end
      local safepoint = b.safepoint and function(...)
        local r = W.script("safe" .. b.safepoint, 3)
        local v = r ~= 0 and env.Vector3(W.home.x + r, 0, W.home.z - r) or nil
        L("safepoint " .. b.safepoint .. "(" .. serargs(...) .. ") -> " .. ser(v))
        return v
      end
      return env.RunAway(inst, params, b.see, b.safe, b.shouldrun and scripted(b.shouldrun, "shouldrun", 4),
        b.runhome, b.fix_overhang, b.walk_instead, safepoint)
    elseif k == "chaseandattack" then
      return env.ChaseAndAttack(inst, b.max_chase_time, b.give_up_dist, b.max_attacks, b.findnew and getter(b.findnew), b.walk, val(b.ocean))
    elseif k == "attackwall" then
      return env.AttackWall(inst)
    elseif k == "findlight" then
      return env.FindLight(inst, b.see, val(b.safe))
    elseif k == "findclosest" then
      return env.FindClosest(inst, b.see, val(b.safe), b.tags, b.exclude or nil, b.oneof or nil)
    elseif k == "standandattack" then
      return env.StandAndAttack(inst, b.findnew and getter(b.findnew), b.timeout)
    elseif k == "useshield" then
      return env.UseShield(inst, b.damage, b.shieldtime, b.projectiles, b.scared, b.data)
    end
    error("behaviour " .. k)
  end

  local function chatlines(n)
    local l = n.lines
    if l == "table" then return {"one", "two", "three"}
    elseif l == "fn" then
      return function(...)
        local r = W.script("chat" .. n.lines_id, 3)
        L("chatlines " .. n.lines_id .. "(" .. serargs(...) .. ") -> " .. r)
        return r ~= 0 and ("line " .. r) or nil
      end
    elseif l == "params" then
      local echo = ({["nil"] = nil, ["true"] = true, ["false"] = false, ["3"] = 3})[n.echo]
      return {name = "PIG_TALK_FIGHT", chatterparams = {time = 2, forcetext = true, echotochatpriority = echo}}
    end
    return l
  end

  local objects = {}
  local function build(spec)
    if spec.t == "ref" then return objects[spec.target] end
    local n
    local t = spec.t
    local function kids()
      local list = {}
      for i, k in ipairs(spec.kids) do list[i] = build(k) end
      return list
    end
    if t == "beh" then n = behaviour(spec)
    elseif t == "while" then n = env.WhileNode(cond(spec.cond), "While" .. spec.cond.id, build(spec.kid))
    elseif t == "if" then n = env.IfNode(cond(spec.cond), "If" .. spec.cond.id, build(spec.kid))
    elseif t == "itdw" then n = env.IfThenDoWhileNode(cond(spec.cond), cond(spec.cond2), "ITDW" .. spec.cond.id, build(spec.kid))
    elseif t == "chatty" then
      n = env.ChattyNode(inst, chatlines(spec), build(spec.kid), spec.delay, spec.rand, spec.enter, spec.enter_rand)
    elseif t == "minperiod" then n = env.MinPeriod(inst, spec.period, spec.immediate, build(spec.kid))
    elseif t == "event" then n = env.EventNode(inst, spec.name, build(spec.kid), spec.priority)
    elseif t == "parwait" then
      local time = spec.time
      if spec.timefn then
        local id, base = spec.timefn, spec.time
        time = function(...)
          local v = base + W.script("time" .. id, 3) * 0.5
          L("waittime " .. id .. "(" .. serargs(...) .. ") -> " .. v)
          return v
        end
      end
      local kid = build(spec.kid)
      if spec.any then n = env.ParallelNodeAny({kid, env.WaitNode(time)})
      else n = env.ParallelNode({kid, env.WaitNode(time)}) end
    elseif t == "parloop" then
      n = env.ParallelNode({build(spec.kid), env.LoopNode({env.WaitNode(spec.time), env.ActionNode(action(spec.act), "Act" .. spec.act.id)})})
    elseif t == "seq" then n = env.SequenceNode(kids())
    elseif t == "act" then n = env.ActionNode(action(spec.act), "Act" .. spec.act.id)
    elseif t == "cond" then n = env.ConditionNode(cond(spec.cond), "C" .. spec.cond.id)
    elseif t == "cwait" then n = env.ConditionWaitNode(cond(spec.cond), "W" .. spec.cond.id)
    elseif t == "fir" then n = env.FailIfRunningDecorator(build(spec.kid))
    elseif t == "fis" then n = env.FailIfSuccessDecorator(env.ActionNode(action(spec.act), "Act" .. spec.act.id))
    elseif t == "not" then n = env.NotDecorator(build(spec.kid))
    elseif t == "pri" then n = env.PriorityNode(kids(), spec.period, spec.noscatter)
    elseif t == "latch" then n = env.LatchNode(inst, spec.dur, build(spec.kid))
    elseif t == "loop" then n = env.LoopNode(kids(), spec.maxreps)
    elseif t == "sel" then n = env.SelectorNode(kids())
    elseif t == "rand" then n = env.RandomNode(kids())
    else error("spec " .. t) end
    objects[spec] = n
    return n
  end
  w.build = build
  return w
end

-- ---- observation ----

-- addresses of functions and tables differ between the worlds
local function normal(s)
  return (s:gsub("function: 0x%x+", "function"):gsub("table: 0x%x+", "table"))
end

local function fmt(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end

local NODE_FIELDS = {"idx", "lasttime", "wake_time", "rep"}
-- fields the behaviour files keep on their nodes
local BEHAVIOUR_FIELDS = {
  "waittime", "walking", "far_from_home", "numattacks", "startruntime", "action", "pendingstatus",
  "time", "target", "currenttarget", "hunter", "targ", "lastchecktime", "lastfollowchecktime",
  "avoid_angle", "avoid_time", "done", "starttime", "lastsuccesstime", "nextchattime", "min_dist",
  "max_dist", "target_dist", "dist", "damagetaken", "timelastattacked", "scareendtime",
  "projectileincoming",
}

local function observe(env, root)
  local classes = {}
  for _, c in ipairs(BEHAVIOUR_CLASSES) do classes[#classes + 1] = env[c] end
  local out = {}
  local function walk(n, depth)
    local parts = {string.rep(" ", depth) .. tostring(n.name) .. " " .. tostring(n.status) .. " " .. tostring(n.lastresult)}
    for _, f in ipairs(NODE_FIELDS) do parts[#parts + 1] = f .. "=" .. fmt(n[f]) end
    -- DS leaves `triggered` nil until the first event; only its truth matters
    parts[#parts + 1] = "trig=" .. tostring(n.triggered and true or false)
    local isbeh = false
    for _, c in ipairs(classes) do
      if n:is_a(c) then isbeh = true break end
    end
    if isbeh then
      -- RunAway, ChaseAndAttack, AttackWall and StandAndAttack define __tostring
      parts[#parts + 1] = "str=" .. tostring(n)
      for _, f in ipairs(BEHAVIOUR_FIELDS) do
        local v = rawget(n, f)
        if v ~= nil then parts[#parts + 1] = f .. "=" .. ser(v) end
      end
    end
    out[#out + 1] = table.concat(parts, " ")
    for _, c in ipairs(n.children or {}) do walk(c, depth + 1) end
  end
  walk(root, 0)
  return table.concat(out, "\n")
end

local function event_data(W, name, rnd)
  local e = W.ents[rnd(#W.ents)]
  if name == "attacked" then return {attacker = e, damage = rnd(4) * 10}
  elseif name == "epicscare" then return {duration = rnd(3)}
  else return {target = e} end
end

local function run(seed)
  local spec, rnd = spec_gen(seed)
  now = (rnd(4) - 1) * 0.7
  local dslog, btlog = {}, {}
  local dsW = fake.new_world(seed, dslog, ds_clock)
  local btW = fake.new_world(seed, btlog, bt_clock)
  clock_calls.ds, clock_calls.bt = 0, 0
  bt_errors = btlog
  math.randomseed(seed)
  local ds = world(make_ds(dsW), dsW, seed, dslog)
  math.randomseed(seed)
  local b = world(make_bt(btW), btW, seed, btlog)
  local wake = {ds = 0, bt = 0}
  math.randomseed(seed)
  local dsroot = ds.build(spec)
  local dstree = ds.env.BT(ds.inst, dsroot)
  ds.tree = dstree
  math.randomseed(seed)
  local btroot = b.build(spec)
  local bttree = b.env.BT(b.inst, btroot)
  b.tree = bttree
  ds.inst.brain = {ForceUpdate = function() wake.ds = wake.ds + 1; dstree:ForceUpdate() end}
  b.inst.brain = {ForceUpdate = function() wake.bt = wake.bt + 1; bttree:ForceUpdate() end}

  local seen = 0  -- log lines already compared
  local function compare(step)
    local problems = {}
    local a, c = normal(observe(ds.env, dsroot)), normal(observe(b.env, btroot))
    if a ~= c then problems[#problems + 1] = "statuses:\nDS:\n" .. a .. "\nbt:\n" .. c end
    local sa, sc = dstree:GetSleepTime(), bttree:GetSleepTime()
    if fmt(sa) ~= fmt(sc) then problems[#problems + 1] = "sleep: DS " .. fmt(sa) .. " bt " .. fmt(sc) end
    local da, dc = normal(tostring(dstree)), normal(tostring(bttree))
    if da ~= dc then problems[#problems + 1] = "dump:\nDS:\n" .. da .. "bt:\n" .. dc end
    local same = #dslog == #btlog
    local first
    for i = seen + 1, math.max(#dslog, #btlog) do
      if dslog[i] ~= btlog[i] then same = false; first = i; break end
    end
    if not same then
      problems[#problems + 1] = string.format("calls (first difference at call %s):\nDS:\n%s\nbt:\n%s", tostring(first),
        table.concat(dslog, "\n", seen + 1, #dslog), table.concat(btlog, "\n", seen + 1, #btlog))
    end
    if wake.ds ~= wake.bt then problems[#problems + 1] = "wakes: DS " .. wake.ds .. " bt " .. wake.bt end
    if exact and clock_calls.ds ~= clock_calls.bt then
      problems[#problems + 1] = "clock calls: DS " .. clock_calls.ds .. " bt " .. clock_calls.bt
    end
    -- the fakes themselves (this can only differ after a difference in the calls, or if a
    -- behaviour wrote a different value into a component field)
    local fa, fc = dsW.fingerprint(), btW.fingerprint()
    if fa ~= fc then problems[#problems + 1] = "fake entity state:\nDS:\n" .. fa .. "\nbt:\n" .. fc end
    if #problems > 0 then
      print(string.format("seed %d %s: MISMATCH (time %s)", seed, step, fmt(now)))
      print(table.concat(problems, "\n----\n"))
      return false
    end
    if verbose then
      print(string.format("== seed %d %s at %s", seed, step, fmt(now)))
      io.write(da)
      print(table.concat(dslog, "\n", seen + 1, #dslog))
    end
    if coverage then
      local function count(n)
        local key = tostring(n.name) .. " " .. tostring(n.lastresult)
        coverage[key] = (coverage[key] or 0) + 1
        for _, c in ipairs(n.children or {}) do count(c) end
      end
      count(dsroot)
      for i = seen + 1, #dslog do
        local key = "call " .. (dslog[i]:match("^[%d]+ %- [%w_]+:([%w_:]+)%(") or dslog[i]:match("^([%w_:]+)") or "?")
        coverage[key] = (coverage[key] or 0) + 1
      end
    end
    seen = #dslog
    return true
  end

  if not compare("build") then return false end
  for k = 1, nthinks do
    local action = rnd(14)
    if action <= 3 then
      local name = EVENTS[rnd(#EVENTS)]
      local r1 = rnd(1000)
      local function r(n) return r1 % n + 1 end
      math.randomseed(seed * 1000 + k + 500)
      dsW.inst:PushEvent(name, event_data(dsW, name, r))
      math.randomseed(seed * 1000 + k + 500)
      btW.inst:PushEvent(name, event_data(btW, name, r))
    elseif action == 4 and rnd(4) == 1 then
      dstree:Reset(); bttree:Reset()
    elseif action == 5 and rnd(10) == 1 then
      dstree:Stop(); bttree:Stop()
    elseif action == 6 and rnd(3) == 1 then
      dstree:ForceUpdate(); bttree:ForceUpdate()
    end
    if not compare("before think " .. k .. " (action " .. action .. ")") then return false end
    local dt = ({0, 1 / 30, 1 / 30, 0.1, 0.25, 0.5, 1, 2.5})[rnd(8)]
    now = now + dt
    dsW.advance(dt, k)
    btW.advance(dt, k)
    math.randomseed(seed * 1000 + k)
    dstree:Update()
    math.randomseed(seed * 1000 + k)
    bttree:Update()
    if not compare("think " .. k) then return false end
  end
  return true
end

local failed, ran = 0, 0
for seed = first_seed, first_seed + nseeds - 1 do
  ran = ran + 1
  local ok, err = xpcall(run, debug.traceback, seed)
  if not ok then
    print(string.format("seed %d: error %s", seed, tostring(err)))
    failed = failed + 1
  elseif err == false then
    failed = failed + 1
  end
  if failed >= maxfail then break end
end
if coverage then
  local keys = {}
  for k in pairs(coverage) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do print(string.format("%8d %s", coverage[k], k)) end
end
print(string.format("%d seeds from %d, %d thinks each: %d mismatched", ran, first_seed, nthinks, failed))
os.exit(failed == 0 and 0 or 1)
