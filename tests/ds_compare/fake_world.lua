-- fake_world.lua: a permissive fake Don't Starve world in which the shipped brains
-- (scripts/brains/*.lua) can build their trees and think: fake_entity.lua's scripted entity,
-- components, stategraph, entities around it and host globals, with everything they lack made up
-- on demand, deterministically, and logged.
--
-- For trying a ported brain and for tests/ds_compare/shipped_brains.lua. None of it is Don't
-- Starve code: each part is a model written from the brain scripts' point of view.
--
--   local fake_world = dofile("tests/ds_compare/fake_world.lua")
--   local W = fake_world.new_world(seed, log, clock)   -- log: an array the calls go to
--   W.install(env)       -- the globals: Vector3, FindEntity, TheSim, ACTIONS, STRINGS, TUNING, ...
--   W.inst               -- the brain's entity
--   W.advance(dt, k)     -- the world moves on before think k
--
-- What is made up, when nothing more specific exists:
-- * a global, a method of an entity (a name starting with a capital: inst:IsOnPassablePoint(),
--   inst.AnimState), a component (inst.components.anything) or a member of one is a *stub*:
--   indexing it gives the stub one level down, calling it logs the call with its arguments and
--   answers from a counter per name mixed with the seed: a boolean for names that read as
--   questions (Is, Has, Can, Should, ...), otherwise nil or a stub. Stubs compare, add and
--   concatenate (with scripted answers), have length 0 and no pairs, so most code runs on.
-- * a field of an entity whose name starts with a small letter is nil (not set);
-- * TUNING.X is a number (from X's name); TUNING.X.Y, for the X the brains index further, a
--   table of such numbers; STRINGS.X a list of two lines that can be indexed further;
--   ACTIONS.X an action {id = "X"}.
-- Two worlds made with the same seed answer the same calls the same way.

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local fake = dofile(here .. "/fake_entity.lua")
local ser, serargs, mix, strhash = fake.ser, fake.serargs, fake.mix, fake.strhash

local M = {ser = ser, serargs = serargs, mix = mix, strhash = strhash}

local QUESTION = {"Is", "Has", "Can", "Should", "Was", "Are", "Will", "Does", "Test", "Check", "Contains"}

local function is_question(name)
  local last = name:match("[%w_]+$") or name
  for _, q in ipairs(QUESTION) do
    if last:sub(1, #q) == q then return true end
  end
  return false
end

-- The names X of TUNING.X that the given sources index further (TUNING.X.Y or TUNING.X[...]).
function M.tuning_tables(sources)
  local set = {}
  for _, src in ipairs(sources) do
    for name in src:gmatch("TUNING%.([%w_]+)[%.%[]") do set[name] = true end
  end
  return set
end

function M.new_world(seed, log, clock, tuning_tables)
  local W = fake.new_world(seed, log, clock)
  local L, script = W.L, W.script
  local stubs, StubMeta = {}, {}

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

  StubMeta.__index = function(s, k)
    if type(k) ~= "string" then return nil end -- ipairs ends at once
    if k == "_logname" then return path_of(s) end
    return stub(path_of(s) .. "." .. k)
  end
  StubMeta.__call = function(s, first, ...)
    local path = path_of(s)
    local parent = path:match("^(.*)%.[^.]+$")
    local args
    -- a method call (the object first) logs without the object
    if parent and (stubs[parent] == first or (type(first) == "table" and rawget(first, "_logname") == parent)) then
      args = serargs(...)
    else
      args = serargs(first, ...)
    end
    local r
    if is_question(path) then r = script(path, 2) == 1
    elseif script(path, 3) == 0 then r = nil
    else r = stub(path .. "()") end
    L(path .. "(" .. args .. ") -> " .. ser(r))
    return r
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
    if type(k) == "string" and k:match("^[A-Z]") then return stub(rawget(e, "_logname") .. ":" .. k) end
    return nil
  end
  -- a component the fake models answers the methods it lacks as a stub does
  local function permissive_methods(obj, path)
    local meta = getmetatable(obj)
    local base = meta and meta.__index
    local function fallback(t, k)
      local v
      if type(base) == "function" then v = base(t, k) elseif type(base) == "table" then v = base[k] end
      if v ~= nil then return v end
      if type(k) == "string" and k:match("^[A-Z]") then return stub(path .. ":" .. k) end
      return nil
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
  permissive_components(W.inst)
  for _, e in ipairs(W.ents) do permissive_components(e) end
  local new_ent = W.new_ent
  W.new_ent = function(...)
    local e = new_ent(...)
    permissive_components(e)
    return e
  end
  -- the stategraph answers what it does not know as stubs too
  permissive_methods(W.inst.sg, "sg")
  W.inst.sg.mem = W.inst.sg.mem or {}
  W.inst.sg.statemem = W.inst.sg.statemem or {}

  -- TUNING, STRINGS, ACTIONS
  tuning_tables = tuning_tables or {}
  local function tuning_value(path)
    return 1 + strhash(path) % 20
  end
  local function tuning_table(prefix)
    return setmetatable({}, {__index = function(t, k)
      local path = prefix .. "." .. tostring(k)
      local v
      if prefix == "TUNING" and tuning_tables[k] then v = tuning_table(path)
      else v = tuning_value(path) end
      rawset(t, k, v)
      return v
    end})
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
    env.TUNING = tuning_table("TUNING")
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

  return W
end

return M
