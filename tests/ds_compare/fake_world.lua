-- SPDX-License-Identifier: MIT
-- fake_world.lua: a permissive fake Don't Starve world in which the shipped brains
-- (scripts/brains/*.lua) can build their trees and think: fake_entity.lua's scripted entity,
-- components, stategraph, entities around it and host globals, with everything they lack made up
-- on demand, deterministically, and logged.
--
-- For trying a ported brain and for tests/ds_compare/shipped_brains.lua. None of it is Don't
-- Starve code: each part is a model written from the brain scripts' point of view.
--
--   local fake_world = dofile("tests/ds_compare/fake_world.lua")
--   local shapes = fake_world.shapes(sources)            -- sources: the Lua texts the brains use
--   local W = fake_world.new_world(seed, log, clock, shapes)   -- log: an array the calls go to
--   W.install(env)       -- the globals: Vector3, FindEntity, TheSim, ACTIONS, STRINGS, TUNING, ...
--   W.inst               -- the brain's entity
--   W.advance(dt, k)     -- the world moves on before think k
--
-- What is made up, when nothing more specific exists:
-- * a global, a method of an entity (a name starting with a capital: inst:IsOnPassablePoint(),
--   inst.AnimState), of its handles (inst.entity, inst.Transform), a component
--   (inst.components.anything) or a member of one is a *stub*: indexing it gives the stub one
--   level down; calling it logs the call with its arguments and answers by the name, the same for
--   the same call within one think (from the seed, the call and the think number): a boolean for
--   questions (Is, Has, Can, ...); three numbers for GetWorldPosition and Get; for a getter
--   (Get..., Calc...) or finder (Find...) a number if it names an amount (Percent, Time, Dist,
--   Num, ...), a point if a place (Position, Pos, Location, ...), a list of entities if plural
--   things (Targets, Ents, Players, ...; in comparisons it counts as its length), else one of the
--   world's entities; any other call nothing or a stub. Stubs compare, add and concatenate (with
--   scripted answers; with a point a stub is no displacement), have length 0 and no pairs.
-- * a field nothing sets (a name starting with a small letter) is made up as the sources use it
--   (M.shapes): called or indexed, a stub; only indexed with [ ], a one-entity list that is also
--   a set; only in arithmetic or comparisons, a number; named as a place (...pos, ...location,
--   ...pt), a point; `boat`, the boat. A field no source needs is nil, as flags are; the fields
--   the fake itself keeps (MODELLED) are never made up.
-- * TUNING.A.B... is a table where the sources index it further, else a number from its path;
--   tables also act as numbers in arithmetic and comparisons. STRINGS.X is a list of two lines
--   that can be indexed further; ACTIONS.X an action {id = "X"}.
-- * the helpers DS's util.lua adds that the brains call (math.clamp, string.split,
--   table.contains, Remap, DiffAngle, ReduceAngle, VecUtil_*) are small models of their results.
-- Two worlds made with the same seed answer the same calls the same way.
--
-- Scripted answers, on top of all that (W.answer(name, answer), M.timeline): a question named as
-- the brain asks it answers what the caller says, so that a branch can be driven:
--   W.answer("inst.components.health.takingfiredamage", false)    -- a field: its value
--   W.answer("TheWorld.state.isday", M.timeline(0, true, 5, false)) -- day, night from 5 s on
--   W.answer("inst.components.eater:CanEat()", false)              -- a method: its answer
--   W.answer("FindEntity()", function() end)                        -- a global function: nil
-- A name starts at `inst` (the brain's entity) or at a global; `.field` and `:Method` steps
-- follow; `()` at the end names a call's answer, else a field's value. The answer is a value,
-- a function of the time (called with the time and the call's arguments; its results are the
-- answer) or a timeline, as bt.test's (docs/bt-test.md). A field is set to its answer when the
-- answer is given, when the globals are installed and after each W.advance, over what the world
-- did; a call answers at the time it is made, logged as `name(args) -> answer`. Before a
-- timeline's first time the world answers as it would. Nothing changes without answers.

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local fake = dofile(here .. "/fake_entity.lua")
-- bt.test's evaluator of scripted answers (a value, a function of the time, a timeline), plain Lua
-- that loads nothing of bt: the --original runs use it too
local bt_test = dofile(here .. "/../../lua/bt/test.lua")
local ser, serargs, mix, strhash = fake.ser, fake.serargs, fake.mix, fake.strhash

-- M.kit: bt.test itself, for what a test does with the kit on a brain in this world (try_brain.lua)
local M = {ser = ser, serargs = serargs, mix = mix, strhash = strhash, timeline = bt_test.timeline, kit = bt_test}

local QUESTION = {"Is", "Has", "Can", "Should", "Was", "Are", "Will", "Does", "Test", "Check", "Contains"}

local function is_question(name)
  local last = name:match("[%w_]+$") or name
  for _, q in ipairs(QUESTION) do
    if last:sub(1, #q) == q then return true end
  end
  return false
end

-- What the given sources (brains, behaviours, the files they require) say about the shape of
-- what they use, so that what the fake makes up has that shape:
-- * tuning[path]: TUNING.A.B is a table when a source indexes it further (TUNING.A.B.C,
--   TUNING.A.B[...]); any other TUNING path is a number;
-- * fields[name]: how a source uses a field `x.name` or method `x:name` (name starting with a small letter) that the
--   fake does not set: "value" (called, indexed or a method called on it: a stub), "list" (only
--   indexed with [ ]: a list of stubs), "number" (only in arithmetic or comparisons). A field no
--   source uses so is nil (not set), as flags are.
-- ---- files of the scripts, for the runners (shipped_brains.lua, try_brain.lua) ----

-- The text of a file, or nil if it cannot be read.
function M.read_file(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- The names of the .lua files of a folder, without ".lua", sorted ({} if it cannot be listed).
function M.lua_names(dir)
  local out = {}
  local p = io.popen('ls "' .. dir .. '" 2>/dev/null')
  for f in p:lines() do
    local n = f:match("^(.*)%.lua$")
    if n then out[#out + 1] = n end
  end
  p:close()
  table.sort(out)
  return out
end

local function strip_comments(src)
  src = src:gsub("%-%-%[(=*)%[.-%]%1%]", "")
  return (src:gsub("%-%-[^\n]*", ""))
end
function M.shapes(sources)
  local tuning, uses = {}, {}
  for _, src in ipairs(sources) do
    src = strip_comments(src)
    for path, nxt in src:gmatch("(TUNING[%.%w_]*)%s*()") do
      path = path:gsub("%.$", "")
      local prefix = "TUNING"
      for part in path:gmatch("%.([%w_]+)") do
        tuning[prefix] = true
        prefix = prefix .. "." .. part
      end
      if src:sub(nxt, nxt) == "[" then tuning[path] = true end
    end
    for start, sep, name, after in src:gmatch("()([%.:])([%a_][%w_]*)%s*()") do
      local before = src:sub(start - 1, start - 1)
      if before:match("[%w_%]%)]") and not name:match("^[A-Z]") then
        local c, c2 = src:sub(after, after), src:sub(after, after + 1)
        local kind
        if sep == ":" or c == "(" or c == ":" or c == "." or c == "{" or c == '"' then kind = "value"
        elseif c == "[" and c2 ~= "[[" then kind = "list"
        elseif c:match("[%+%*/%%^<>]") or (c == "-" and c2 ~= "--") then kind = "number"
        else
          -- an operand on the right of an operator: `a < x.name`, `1 + inst.speed`
          local i = start - 1
          while i > 0 and src:sub(i, i):match("[%w_%.]") do i = i - 1 end
          while i > 0 and src:sub(i, i):match("%s") do i = i - 1 end
          local op = src:sub(i, i)
          if op:match("[%+%*/%%^<>]") or (op == "=" and src:sub(i - 1, i - 1):match("[<>]")) or (op == "-" and src:sub(i - 1, i - 1) ~= "-") then
            kind = "number"
          end
        end
        if kind then
          local u = uses[name] or {}
          uses[name] = u
          u[kind] = true
        end
      end
    end
  end
  local fields = {}
  for name, u in pairs(uses) do
    if u.value then fields[name] = "value"
    elseif u.list then fields[name] = "list"
    else fields[name] = "number" end
  end
  return {tuning = tuning, fields = fields}
end

-- The fields that the fake itself keeps on its entities and components and that may be nil:
-- never made up, whatever the sources do with them.
local MODELLED = {}
for name in ([[dead equipped grandowner burning platform limbo valid visible radius speed tags
  listeners components leader target home dest dir running bufferedaction cooldown
  takingfiredamage locs owner range onfail onsuccess done brain x y z rotation GUID prefab
  skipHoldWhenFarFromHome allow_platform_hopping currentstate]]):gmatch("%S+") do
  MODELLED[name] = true
end

-- What an unknown function or method answers, by its name: questions a boolean; GetWorldPosition
-- and Get three numbers; what a getter (Get..., Calc...) or finder (Find...) names: an amount a
-- number, a position a point, plural things a list of entities, anything else an entity; any
-- other call (Do..., Start..., Set...) nothing or a stub.
local NUMBER_WORDS = {"Percent", "Time", "Num", "Count", "Dist", "Range", "Radius", "Speed", "Level",
  "Amount", "Size", "Health", "Damage", "Angle", "Rotation", "Scale", "Period", "Delay", "Remaining",
  "Mult", "Chance", "Sanity", "Hunger", "Temperature", "Age", "Debt", "Value", "Max", "Min", "Sq",
  "Rate", "Index", "Total", "Score", "Stage", "Fuel", "Uses", "Moisture", "Wetness", "Weight",
  "Duration", "Cooldown", "Height", "Width", "Length", "Strength", "Power", "Remap", "Clamp", "Lerp",
  "Reduce"}
local POSITION_WORDS = {"Position", "Pos", "Point", "Location", "Offset", "Spot", "Pt", "Dest"}
local LIST_WORDS = {"Targets", "Ents", "Entities", "Players", "Items", "Members", "Soldiers",
  "Children", "Followers", "Minions", "List", "All"}
local function has_word(name, words)
  for _, w in ipairs(words) do
    local i = name:find(w, 1, true)
    -- a word: starts with a capital or the name, ends at a capital, a digit or the end
    if i and name:sub(i + #w, i + #w):match("^[A-Z0-9_]?$") then return true end
  end
  return false
end

function M.new_world(seed, log, clock, shapes)
  shapes = shapes or M.shapes({})
  local fields = shapes.fields
  local W = fake.new_world(seed, log, clock)
  local L, script = W.L, W.script
  local stubs, StubMeta, CountedList = {}, {}, {}

  local function stub(path)
    local s = stubs[path]
    if s then return s end
    s = setmetatable({}, StubMeta)
    stubs[path] = s
    stubs[s] = path
    return s
  end
  W.stub = stub
  local function path_of(s) return stubs[s] end
  local function num_answer(key) return script(key, 20) + 1 end

  -- a field nothing sets, as the sources use it (see M.shapes); nil if they never need it
  -- a list is one entity, found both at [1] (ipairs, t[#t]) and as a key (pairs, next: a set of
  -- entities, as the game keeps doers, followers, ...)
  local lists = {}
  local function made_up_list(path)
    if lists[path] then return lists[path] end
    local e = W.ents[1 + strhash(path) % #W.ents]
    local t = setmetatable({[e] = e}, {__len = function() return 1 end, __index = {e}})
    lists[path] = t
    return t
  end
  local function made_up_field(path, k)
    local kind = fields[k]
    if kind == nil or MODELLED[k] then return nil end
    -- a field named as a place (homepos, herdlocation, targetpt ...) is a point
    if k:match("pos$") or k:match("position$") or k:match("location$") or k:match("point$") or k:match("pt$") then
      local h = strhash(path)
      return fake.V(h % 41 - 20, 0, (h // 41) % 41 - 20)
    end
    -- a field named as the boat (crewmember.boat ...) is the boat
    if k == "boat" and kind == "value" then return W.boat end
    if kind == "number" then return 1 + strhash(path) % 20 end
    if kind == "list" then return made_up_list(path) end
    return stub(path)
  end
  W.made_up_field = made_up_field

  StubMeta.__index = function(s, k)
    if type(k) ~= "string" then return nil end -- ipairs ends at once
    if k == "_logname" then return path_of(s) end
    if not k:match("^[A-Z]") and fields[k] and not MODELLED[k] then
      return made_up_field(path_of(s) .. "." .. k, k)
    end
    return stub(path_of(s) .. "." .. k)
  end
  local function answer(path, args)
    -- the same call in the same think gets the same answer (the world stands still while a brain
    -- thinks): from the seed, the call with its arguments and the think number
    local key = path .. "(" .. args .. ")"
    local function script(k, n) return mix(seed, strhash(k), W.tick) % n end
    local name = path:match("([%w_]+)$") or path
    if is_question(path) then return script(key, 2) == 1 end
    if name == "GetWorldPosition" or name == "Get" then
      return script(key .. " x", 40) - 20, 0, script(key .. " z", 40) - 20
    end
    local getter = name:match("^Get") or name:match("^Calc") or name:match("^Compute")
    local finder = name:match("^Find")
    if (getter or name:match("^Num") or name:match("^Count")) and has_word(name, NUMBER_WORDS) then
      if name:find("Percent", 1, true) then return script(key, 11) / 10 end
      return num_answer(path)
    end
    if (getter or finder) and has_word(name, POSITION_WORDS) then
      return fake.V(script(key .. " x", 40) - 20, 0, script(key .. " z", 40) - 20)
    end
    if (getter or finder) and has_word(name, LIST_WORDS) then
      local list = {}
      for i = 1, script(key, 4) do list[i] = W.ents[1 + script(key .. " item", #W.ents)] end
      return setmetatable(list, CountedList)
    end
    if getter or finder then return W.ents[1 + script(key, #W.ents)] end
    if script(key, 3) == 0 then return nil end
    return stub(path .. "()")
  end
  -- a list a call answers, in arithmetic and comparisons, counts as its length (GetDesiredSoldiers()
  -- may read as a count or as the soldiers)
  local function count(v) if type(v) == "table" and getmetatable(v) == CountedList then return #v end return v end
  CountedList.__lt = function(a, b) return count(a) < count(b) end
  CountedList.__le = function(a, b) return count(a) <= count(b) end
  CountedList.__add = function(a, b) return count(a) + count(b) end
  CountedList.__sub = function(a, b) return count(a) - count(b) end
  StubMeta.__call = function(s, first, ...)
    local path = path_of(s)
    local parent = path:match("^(.*)[.:][^.:]+$")
    local args
    -- a method call (the object first) logs without the object
    if parent and (stubs[parent] == first or (type(first) == "table" and rawget(first, "_logname") == parent)) then
      args = serargs(...)
    else
      args = serargs(first, ...)
    end
    local r = table.pack(answer(path, args))
    L(path .. "(" .. args .. ") -> " .. serargs(table.unpack(r, 1, r.n)))
    return table.unpack(r, 1, r.n)
  end
  StubMeta.__tostring = function(s) return path_of(s) end
  StubMeta.__len = function() return 0 end
  StubMeta.__pairs = function() return next, {}, nil end
  StubMeta.__concat = function(a, b) return tostring(a) .. tostring(b) end
  local function cmp(a, b)
    local r = script("compare " .. tostring(a) .. " " .. tostring(b), 2) == 1
    L("compare(" .. ser(a) .. ", " .. ser(b) .. ") -> " .. tostring(r))
    return r
  end
  StubMeta.__lt, StubMeta.__le = cmp, cmp
  local function arith(a, b)
    -- with a point, a stub is no displacement: the answer is the point
    for _, p in ipairs({a, b}) do
      if getmetatable(p) == fake.Vec then
        L("arith(" .. ser(a) .. ", " .. ser(b) .. ") -> " .. ser(p))
        return fake.V(p.x, p.y, p.z)
      end
    end
    local v = num_answer("arith " .. tostring(a) .. " " .. tostring(b))
    L("arith(" .. ser(a) .. ", " .. ser(b) .. ") -> " .. v)
    return v
  end
  for _, m in ipairs({"__add", "__sub", "__mul", "__div", "__mod", "__pow", "__idiv"}) do StubMeta[m] = arith end
  StubMeta.__unm = function(a) return arith(a, 0) end

  -- entities: unknown methods are stubs, unknown fields nil; unknown components are stubs
  local Ent = W.Ent
  local methods = {}
  for k, v in pairs(Ent) do methods[k] = v end
  Ent.__index = function(e, k)
    local m = methods[k]
    if m ~= nil then return m end
    if type(k) ~= "string" then return nil end
    if k:match("^[A-Z]") then return stub(rawget(e, "_logname") .. ":" .. k) end
    return made_up_field(rawget(e, "_logname") .. "." .. k, k)
  end
  -- a component the fake models answers the methods it lacks as a stub does
  local function permissive_methods(obj, path)
    local meta = getmetatable(obj)
    local base = meta and meta.__index
    local function fallback(t, k)
      local v
      if type(base) == "function" then v = base(t, k) elseif type(base) == "table" then v = base[k] end
      if v ~= nil then return v end
      if type(k) ~= "string" then return nil end
      if k:match("^[A-Z]") then return stub(path .. ":" .. k) end
      return made_up_field(path .. "." .. k, k)
    end
    local m = {}
    if meta then for k, v in pairs(meta) do m[k] = v end end
    m.__index = fallback
    setmetatable(obj, m)
  end
  local function permissive_components(e)
    local c = rawget(e, "components")
    for name, comp in pairs(c) do
      if type(comp) == "table" then permissive_methods(comp, rawget(e, "_logname") .. ".components." .. name) end
    end
    setmetatable(c, {__index = function(_, name)
      if type(name) ~= "string" then return nil end
      return stub(rawget(e, "_logname") .. ".components." .. name)
    end})
  end
  -- an entity's handles (entity, Transform, AnimState) answer what they lack as stubs too
  local function permissive_entity(e)
    permissive_components(e)
    local name = rawget(e, "_logname")
    for _, h in ipairs({"entity", "Transform", "AnimState"}) do
      local handle = rawget(e, h)
      if type(handle) == "table" then permissive_methods(handle, name .. "." .. h) end
    end
  end
  permissive_entity(W.inst)
  permissive_entity(W.boat)
  for _, e in ipairs(W.ents) do permissive_entity(e) end
  -- and so do the entities that appear later
  W.on_new_ent = permissive_entity
  -- the stategraph answers what it does not know as stubs too
  permissive_methods(W.inst.sg, "sg")
  W.inst.sg.mem = W.inst.sg.mem or {}
  W.inst.sg.statemem = W.inst.sg.statemem or {}

  -- the think number, for answers that hold for one think
  W.tick = 0
  local advance = W.advance
  function W.advance(dt, k)
    W.tick = k
    return advance(dt, k)
  end

  -- TUNING, STRINGS, ACTIONS
  -- TUNING.A.B... is a table where the sources index it further, else a number (from its path);
  -- a table also stands for a number (its path's) in arithmetic and comparisons, so a shape the
  -- sources did not show still computes
  local function tuning_value(path)
    return 1 + strhash(path) % 20
  end
  local TuningMeta = {}
  local tuning_path = setmetatable({}, {__mode = "k"})
  local function as_number(v)
    if type(v) == "table" and tuning_path[v] then return tuning_value(tuning_path[v]) end
    return v
  end
  TuningMeta.__index = function(t, k)
    local path = tuning_path[t] .. "." .. tostring(k)
    local v
    if shapes.tuning[path] then
      v = setmetatable({}, TuningMeta)
      tuning_path[v] = path
    else
      v = tuning_value(path)
    end
    rawset(t, k, v)
    return v
  end
  for _, m in ipairs({"add", "sub", "mul", "div", "mod", "pow", "idiv"}) do
    local op = load("local a, b = ... return a " .. ({add = "+", sub = "-", mul = "*", div = "/", mod = "%", pow = "^", idiv = "//"})[m] .. " b")
    TuningMeta["__" .. m] = function(a, b) return op(as_number(a), as_number(b)) end
  end
  TuningMeta.__unm = function(a) return -as_number(a) end
  TuningMeta.__lt = function(a, b) return as_number(a) < as_number(b) end
  TuningMeta.__le = function(a, b) return as_number(a) <= as_number(b) end
  TuningMeta.__tostring = function(a) return tuning_path[a] end
  local function tuning_table()
    local t = setmetatable({}, TuningMeta)
    tuning_path[t] = "TUNING"
    return t
  end
  local function strings_table(prefix, lines)
    local t = lines or {prefix .. " 1", prefix .. " 2"}
    return setmetatable(t, {__index = function(tt, k)
      if type(k) ~= "string" then return nil end
      local v = strings_table(prefix .. "." .. k)
      rawset(tt, k, v)
      return v
    end})
  end

  local install = W.install
  function W.install(env)
    install(env)
    -- TheWorld: its map and itself answer unknown methods as stubs; its components are stubs;
    -- TheWorld.state.isX a boolean, any other state a number, both from the name and the seed
    local world = env.TheWorld
    permissive_methods(world.Map, "TheWorld.Map")
    permissive_methods(world, "TheWorld")
    world.ismastersim = true
    world.components = setmetatable({}, {__index = function(_, n)
      if type(n) ~= "string" then return nil end
      return stub("TheWorld.components." .. n)
    end})
    world.state = setmetatable({}, {__index = function(t, k)
      if type(k) ~= "string" then return nil end
      local h = mix(seed, strhash(k), 1)
      local v
      if k:match("^is") then v = h % 2 == 1 else v = h % 20 end
      rawset(t, k, v)
      return v
    end})
    env.TUNING = tuning_table()
    local strings = env.STRINGS
    env.STRINGS = strings_table("STRINGS", {})
    for k, v in pairs(strings) do rawset(env.STRINGS, k, v) end
    setmetatable(env.ACTIONS, {__index = function(t, k)
      if type(k) ~= "string" then return nil end
      local a = {id = k, _logname = "ACTIONS." .. k}
      rawset(t, k, a)
      return a
    end})
    -- small models of DS utility functions (what they return, from the scripts' point of view)
    env.SpringCombatMod = function(x) return x end
    env.SpringGrowthMod = function(x) return x end
    env.GetRandomWithVariance = function(base, var) return base + var * (2 * math.random() - 1) end
    env.GetRandomMinMax = function(a, b) return a + (b - a) * math.random() end
    env.GetRandomItem = function(t) return t[math.random(#t)] end
    env.Lerp = function(a, b, t) return a + (b - a) * t end
    env.IsEntityDead = function(e, require_health)
      local h = e.components.health
      if h == nil then return require_health == true end
      return h:IsDead() == true
    end
    env.IsEntityDeadOrGhost = env.IsEntityDead
    env.checkbit = function(x, b) return x % (b + b) >= b end
    env.shallowcopy = function(t) local o = {} for k, v in pairs(t) do o[k] = v end return o end
    env.deepcopy = env.shallowcopy
    -- DS's util.lua adds helpers to the standard libraries; models of the ones the brains use
    -- (string methods are found through the one string metatable, so that one is global)
    env.math = setmetatable({clamp = function(v, lo, hi) return math.min(math.max(v, lo), hi) end}, {__index = math})
    env.table = setmetatable({contains = function(t, v)
      for _, x in pairs(t) do if x == v then return true end end
      return false
    end}, {__index = table})
    if string.split == nil then
      -- "a.b.c":split(".") -> {"a", "b", "c"}: the pieces between the separators, empty ones dropped
      function string.split(str, sep)
        local out = {}
        for piece in (str .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do
          if piece ~= "" then out[#out + 1] = piece end
        end
        return out
      end
    end
    env.math.atan2 = math.atan2 or function(y, x) return math.atan(y, x) end
    env.Remap = function(v, a, b, c, d) return c + (v - a) * (d - c) / (b - a) end
    env.DiffAngle = function(a, b) return math.abs(env.anglediff(a, b)) end
    env.VecUtil_LengthSq = function(x, z) return x * x + z * z end
    env.VecUtil_Length = function(x, z) return math.sqrt(x * x + z * z) end
    env.VecUtil_DistSq = function(x1, z1, x2, z2) return (x1 - x2) ^ 2 + (z1 - z2) ^ 2 end
    env.VecUtil_Dist = function(x1, z1, x2, z2) return math.sqrt((x1 - x2) ^ 2 + (z1 - z2) ^ 2) end
    env.VecUtil_Dot = function(x1, z1, x2, z2) return x1 * x2 + z1 * z2 end
    env.VecUtil_Add = function(x1, z1, x2, z2) return x1 + x2, z1 + z2 end
    env.VecUtil_Sub = function(x1, z1, x2, z2) return x1 - x2, z1 - z2 end
    env.VecUtil_Scale = function(x, z, k) return x * k, z * k end
    env.VecUtil_NormalAndLength = function(x, z)
      local l = math.sqrt(x * x + z * z)
      if l == 0 then return 0, 0, 0 end
      return x / l, z / l, l
    end
    env.ReduceAngle = function(a) return (a + 180) % 360 - 180 end
    env.ThePlayer = nil
    env.AllPlayers = {W.ents[#W.ents]}
    -- any other global: a stub
    local meta = getmetatable(env) or {}
    local base = meta.__index
    meta.__index = function(t, k)
      local v
      if type(base) == "function" then v = base(t, k) elseif base then v = base[k] end
      if v ~= nil then return v end
      if type(k) == "string" and k:match("^[A-Z]") then return stub(k) end
      return nil
    end
    setmetatable(env, meta)
  end

  -- ---- scripted answers (W.answer) ----

  local answers = {} -- in the order given; one per name
  local function call_of(entry, orig)
    return function(...)
      local args = table.pack(...)
      local first = entry.method and 2 or 1
      local r = table.pack(bt_test.answer_at(entry.answer, clock(), table.unpack(args, first, args.n)))
      if not r[1] then -- before a timeline's first time: the world's own answer
        if orig == nil then
          error("answer " .. entry.name .. ": nothing answers this call before the timeline's first time", 2)
        end
        return orig(...)
      end
      L(entry.name:sub(1, -3) .. "(" .. serargs(table.unpack(args, first, args.n)) .. ") -> " ..
        serargs(table.unpack(r, 2, r.n)))
      return table.unpack(r, 2, r.n)
    end
  end
  -- sets one answer where its name says, if the globals it needs are there
  local function apply(entry)
    local obj, path
    if entry.root == "inst" then
      obj, path = W.inst, "inst"
    elseif W.env ~= nil then
      obj, path = W.env, ""
    else
      return
    end
    local steps = entry.steps
    for i = 1, #steps - 1 do
      obj = obj[steps[i][2]]
      path = path .. steps[i][1] .. steps[i][2]
      if type(obj) ~= "table" then
        error(string.format("answer %s: %s is %s, not a table", entry.name, (path:gsub("^%.", "")), type(obj)), 3)
      end
    end
    local key = steps[#steps][2]
    local function set(v)
      if obj == W.env then W.env[key] = v else rawset(obj, key, v) end
    end
    if entry.call then
      if obj[key] ~= entry.fn then
        entry.fn = call_of(entry, obj[key])
        set(entry.fn)
      end
    else
      local r = table.pack(bt_test.answer_at(entry.answer, clock()))
      if r[1] then
        set(r[2])
      end
    end
  end
  local function apply_all()
    for _, entry in ipairs(answers) do apply(entry) end
  end

  -- W.answer(name, answer): see the top of this file
  function W.answer(...)
    local name, answer = ...
    local usage = " (a name such as inst.components.health.takingfiredamage, " ..
      "inst.components.eater:CanEat() or TheWorld.state.isday)"
    if type(name) ~= "string" then
      error("bad argument #1 to 'answer' (name expected, got " .. type(name) .. ")", 2)
    end
    local root, rest = name:match("^([%a_][%w_]*)(.*)$")
    local call = rest ~= nil and rest:sub(-2) == "()"
    if call then rest = rest:sub(1, -3) end
    local steps, parsed = {}, ""
    for sep, k in (rest or ""):gmatch("([.:])([%a_][%w_]*)") do
      steps[#steps + 1] = {sep, k}
      parsed = parsed .. sep .. k
    end
    if root == nil or parsed ~= rest then
      error("bad argument #1 to 'answer' ('" .. name .. "' is not a name" .. usage .. ")", 2)
    end
    for i, st in ipairs(steps) do
      if st[1] == ":" and (i < #steps or not call) then
        error("bad argument #1 to 'answer' ('" .. name .. "': a :Method is the last step, and what it answers " ..
          "is named with (): " .. root .. parsed:match("^(.-:[%a_][%w_]*)") .. "())", 2)
      end
    end
    if root == "inst" and #steps == 0 then
      error("bad argument #1 to 'answer' ('" .. name .. "' is the entity itself: name a field or a method" .. usage .. ")", 2)
    end
    if select("#", ...) < 2 then
      error("bad argument #2 to 'answer' (an answer expected: a value, a function of the time or a timeline)", 2)
    end
    if root ~= "inst" then
      table.insert(steps, 1, {".", root}) -- a global: a field of the environment
    end
    local entry
    for _, e in ipairs(answers) do
      if e.name == name then entry = e end
    end
    if entry == nil then
      entry = {name = name, root = root, steps = steps, call = call, method = steps[#steps][1] == ":"}
      answers[#answers + 1] = entry
    end
    entry.answer = answer
    apply(entry)
  end

  local install_answered = W.install
  function W.install(env)
    install_answered(env)
    W.env = env
    apply_all()
  end
  local advance_answered = W.advance
  function W.advance(dt, k)
    local r = table.pack(advance_answered(dt, k))
    apply_all()
    return table.unpack(r, 1, r.n)
  end

  return W
end

return M
