-- SPDX-License-Identifier: MIT
-- fake_entity.lua: a deterministic, scripted stand-in for the Don't Starve game objects that the
-- shipped behaviour files (scripts/behaviours/*.lua) call: the brain's entity with its components
-- (locomotor, combat, health, talker, homeseeker, follower, knownlocations), its stategraph, the
-- entities around it, and the host globals (Vector3/Point, distsq, FindEntity, TheSim:FindEntities,
-- FindWalkableOffset, BufferedAction, ACTIONS, STRINGS, ...).
--
-- Written for tests/ds_compare/behaviours.lua. None of this is Don't Starve code: each function
-- here is a small model written from the behaviour files' point of view (what they call, with
-- which arguments, and what they expect back).
--
-- One world is made per side of the comparison: `M.new_world(seed, log, clock)`. Two worlds made
-- with the same seed start identical and stay identical as long as they receive the same calls in
-- the same order: every answer comes either from the world state (positions, validity, tags ...)
-- or from a per-(question) counter mixed with the seed. Every call a behaviour makes on the fake is
-- appended to `log` with its arguments and its answer, so any difference in calls between the two
-- sides shows up in the logs.

local M = {}

local PI = math.pi
local DEGREES = PI / 180

-- ---- deterministic numbers ----

local function mix(a, b, c)
  local h = (a * 1103515245 + b * 12345 + c * 2654435761) % 2147483647
  h = (h * 48271) % 2147483647
  return h
end
M.mix = mix

local function strhash(s)
  local h = 5381
  for i = 1, #s do h = (h * 33 + s:byte(i)) % 2147483647 end
  return h
end
M.strhash = strhash

-- a Park-Miller generator: r(n) gives 1..n, r() gives a float in [0, 1)
local function lcg(seed)
  local s = seed % 2147483646 + 1
  return function(n)
    s = (s * 48271) % 2147483647
    if n then return s % n + 1 end
    return (s - 1) / 2147483646
  end
end
M.lcg = lcg

-- ---- vectors (Point and Vector3 are the same class, as in the game) ----

local Vec = {}
Vec.__index = Vec
local function V(x, y, z) return setmetatable({x = x or 0, y = y or 0, z = z or 0}, Vec) end
Vec.__add = function(a, b) return V(a.x + b.x, a.y + b.y, a.z + b.z) end
Vec.__sub = function(a, b) return V(a.x - b.x, a.y - b.y, a.z - b.z) end
Vec.__unm = function(a) return V(-a.x, -a.y, -a.z) end
Vec.__mul = function(a, b)
  if type(a) == "number" then return V(a * b.x, a * b.y, a * b.z) end
  if type(b) == "number" then return V(a.x * b, a.y * b, a.z * b) end
  return a.x * b.x + a.y * b.y + a.z * b.z
end
Vec.__div = function(a, b) return V(a.x / b, a.y / b, a.z / b) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y and a.z == b.z end
Vec.__tostring = function(a) return string.format("(%2.2f, %2.2f, %2.2f)", a.x, a.y, a.z) end
function Vec:Get() return self.x, self.y, self.z end
function Vec:LengthSq() return self.x * self.x + self.y * self.y + self.z * self.z end
function Vec:Length() return math.sqrt(self:LengthSq()) end
function Vec:DistSq(o) local dx, dy, dz = self.x - o.x, self.y - o.y, self.z - o.z return dx * dx + dy * dy + dz * dz end
function Vec:Dist(o) return math.sqrt(self:DistSq(o)) end
function Vec:Dot(o) return self.x * o.x + self.y * o.y + self.z * o.z end
function Vec:GetNormalized() local l = self:Length() if l == 0 then return V(0, 0, 0) end return self / l end
function Vec:Normalize() local n = self:GetNormalized() self.x, self.y, self.z = n.x, n.y, n.z return self end
function Vec:GetNormalizedAndLength() local l = self:Length() if l == 0 then return V(0, 0, 0), 0 end return self / l, l end
function Vec:IsVector3() return true end
M.V = V
M.Vec = Vec

-- ---- serialising arguments for the call log ----

local ser
-- a number, or whatever a brain put where a number goes (a stub, a table): logged as it is
local function num(v)
  if type(v) ~= "number" then return ser(v) end
  if v ~= v then return "nan" end
  return string.format("%.17g", v)
end

function ser(v, depth)
  local t = type(v)
  if t == "number" then return num(v)
  elseif t == "string" then return string.format("%q", v)
  elseif t == "nil" or t == "boolean" then return tostring(v)
  elseif t == "function" then return "fn"
  elseif t == "table" then
    if getmetatable(v) == Vec then return "V(" .. num(v.x) .. "," .. num(v.y) .. "," .. num(v.z) .. ")" end
    local name = rawget(v, "_logname")
    if name then return name end
    depth = depth or 0
    if depth > 2 then return "{...}" end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
      return type(a) < type(b)
    end)
    local parts = {}
    for _, k in ipairs(keys) do
      if type(k) == "number" then parts[#parts + 1] = ser(v[k], depth + 1)
      else parts[#parts + 1] = tostring(k) .. "=" .. ser(v[k], depth + 1) end
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return t
end
M.ser = ser

local function serargs(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = ser((select(i, ...))) end
  return table.concat(parts, ", ")
end
M.serargs = serargs

-- ---- the catalogue of things around the brain's entity ----

local PREFABS = {
  {prefab = "player", tags = {"player", "character"}, health = true, speed = 4, radius = 0.5},
  {prefab = "spider", tags = {"monster", "hostile", "scarytoprey", "spider"}, health = true, speed = 3, radius = 0.5},
  {prefab = "pigman", tags = {"pig", "character", "scarytoprey"}, health = true, speed = 3, radius = 0.5},
  {prefab = "wall_stone", tags = {"wall", "structure"}, health = true, speed = 0, radius = 0.5},
  {prefab = "campfire", tags = {"lightsource", "fire", "campfire"}, speed = 0, radius = 0.3},
  {prefab = "torch", tags = {"lightsource", "tool"}, equippable = true, speed = 2, radius = 0.2},
  {prefab = "hound", tags = {"hound", "monster", "hostile", "scarytoprey"}, health = true, speed = 5, radius = 0.6},
  {prefab = "ghost", tags = {"ghost", "monster", "NOCLICK"}, health = true, speed = 2, radius = 0.5},
  {prefab = "berrybush", tags = {"pickable", "bush"}, speed = 0, radius = 0.4},
  {prefab = "tree", tags = {"tree", "CHOP_workable"}, speed = 0, radius = 1},
  {prefab = "rabbit", tags = {"rabbit", "prey", "smallcreature"}, health = true, speed = 5, radius = 0.3},
}
M.PREFABS = PREFABS

-- ---- a world ----

-- seed: the seed of this comparison; log: the array the calls go to; clock: the time function.
function M.new_world(seed, log, clock)
  local W = {seed = seed, log = log, ents = {}, counters = {}, actions = {}, nextguid = 100}
  local rng = lcg(mix(seed, 17, 3))

  local function L(s) log[#log + 1] = s end
  W.L = L
  -- a scripted answer 0..n-1 for the question `key`, from a counter per key
  local function script(key, n)
    local c = (W.counters[key] or 0) + 1
    W.counters[key] = c
    return mix(seed, strhash(key), c) % n
  end
  W.script = script

  -- the terrain: pure functions of the position
  local p1, p2, p3 = rng() * 6, rng() * 6, rng() * 40 - 20
  local function land(x, z)
    return math.sin(x * 0.21 + p1) + math.cos(z * 0.17 + p2) < 1.25
  end
  local function clear(x0, z0, x1, z1)
    -- a wall along x = p3, from z = -6 to z = 6
    if (x0 - p3) * (x1 - p3) >= 0 then return true end
    local t = (p3 - x0) / (x1 - x0)
    local zc = z0 + t * (z1 - z0)
    return zc < -6 or zc > 6
  end
  W.land, W.clear = land, clear

  -- ---- entities ----

  local Ent = {}
  Ent.__index = Ent
  Ent.__tostring = function(e) return e._logname end
  W.Ent = Ent

  local function pos_of(e) return e.x, e.y, e.z end

  -- where a thing is: an entity or a point where it says; anything else a brain passes for an
  -- entity (a made-up stub) somewhere fixed by its name; nothing at all is an error, as in the game
  local function where(o)
    if type(o) == "table" and type(rawget(o, "x")) == "number" then return o.x, o.y, o.z end
    if o == nil then error("an entity expected, got nil", 3) end
    local h = strhash(tostring(o))
    return h % 41 - 20, 0, (h // 41) % 41 - 20
  end
  local function dist2(a, b)
    local ax, ay, az = where(a)
    local bx, by, bz = where(b)
    local dx, dy, dz = ax - bx, ay - by, az - bz
    return dx * dx + dy * dy + dz * dz
  end

  local function logged(name, what, fn)
    return function(self, ...)
      local owner = self.owner or self
      local r = table.pack(fn(owner, ...))
      L(owner._logname .. ":" .. name .. "(" .. serargs(...) .. ") -> " .. serargs(table.unpack(r, 1, r.n)))
      return table.unpack(r, 1, r.n)
    end
  end

  local EntityHandle = {}
  EntityHandle.__index = EntityHandle
  EntityHandle.IsValid = logged("entity:IsValid", nil, function(e) return e.valid end)
  EntityHandle.IsVisible = logged("entity:IsVisible", nil, function(e) return e.visible end)

  local Transform = {}
  Transform.__index = Transform
  Transform.GetWorldPosition = logged("Transform:GetWorldPosition", nil, pos_of)
  Transform.GetRotation = logged("Transform:GetRotation", nil, function(e) return e.rotation end)

  Ent.IsValid = logged("IsValid", nil, function(e) return e.valid end)
  Ent.GetPosition = logged("GetPosition", nil, function(e) return V(e.x, e.y, e.z) end)
  Ent.HasTag = logged("HasTag", nil, function(e, tag) return e.tags[tag] == true end)
  Ent.IsInLimbo = logged("IsInLimbo", nil, function(e) return e.limbo end)
  Ent.GetDistanceSqToInst = logged("GetDistanceSqToInst", nil, function(e, o) return dist2(e, o) end)
  Ent.GetCurrentPlatform = logged("GetCurrentPlatform", nil, function(e) return e.platform end)
  Ent.GetPhysicsRadius = logged("GetPhysicsRadius", nil, function(e, default) return e.radius or default end)
  Ent.IsOnValidGround = logged("IsOnValidGround", nil, function(e) return land(e.x, e.z) end)
  Ent.GetDistanceSqToPoint = logged("GetDistanceSqToPoint", nil, function(e, x, y, z)
    if type(x) == "table" then x, y, z = x.x, x.y, x.z end
    local dx, dy, dz = e.x - x, e.y - (y or 0), e.z - z
    return dx * dx + dy * dy + dz * dz
  end)
  Ent.IsNear = logged("IsNear", nil, function(e, o, d) return o ~= nil and dist2(e, o) < d * d end)
  Ent.GetPositionAdjacentTo = logged("GetPositionAdjacentTo", nil, function(e, target, d)
    local dx, dz = e.x - target.x, e.z - target.z
    local l = math.sqrt(dx * dx + dz * dz)
    if l == 0 then return V(target.x, 0, target.z) end
    return V(target.x + dx / l * d, 0, target.z + dz / l * d)
  end)
  local function xyz(x, y, z)
    if type(x) == "table" then return x.x, x.y, x.z end
    return x, y, z
  end
  Ent.GetAngleToPoint = logged("GetAngleToPoint", nil, function(e, x, y, z)
    x, y, z = xyz(x, y, z)
    if x == nil then return 0 end
    return math.atan(e.z - z, x - e.x) / DEGREES
  end)
  Ent.FacePoint = logged("FacePoint", nil, function(e, x, y, z)
    x, y, z = xyz(x, y, z)
    e.rotation = math.atan(e.z - z, x - e.x) / DEGREES
  end)
  -- events: the listeners of an entity, in registration order, as EntityScript keeps them
  function Ent:ListenForEvent(event, fn)
    L(self._logname .. ":ListenForEvent(" .. ser(event) .. ")")
    self.listeners[event] = self.listeners[event] or {}
    table.insert(self.listeners[event], fn)
  end
  function Ent:RemoveEventCallback(event, fn)
    local list = self.listeners[event] or {}
    local found = false
    for i = #list, 1, -1 do
      if list[i] == fn then table.remove(list, i); found = true end
    end
    L(self._logname .. ":RemoveEventCallback(" .. ser(event) .. ") -> " .. tostring(found))
  end
  function Ent:PushEvent(event, data)
    L(self._logname .. ":PushEvent(" .. ser(event) .. ", " .. ser(data) .. ")")
    local list = {table.unpack(self.listeners[event] or {})}
    for _, fn in ipairs(list) do fn(self, data) end
  end

  local function new_ent(kind, x, z)
    W.nextguid = W.nextguid + 1
    local p = PREFABS[kind]
    local e = setmetatable({
      GUID = W.nextguid, prefab = p.prefab, _logname = W.nextguid .. " - " .. p.prefab,
      tags = {}, x = x, y = 0, z = z, rotation = 0, valid = true, visible = true, limbo = false,
      radius = p.radius, speed = p.speed, listeners = {}, components = {},
    }, Ent)
    for _, t in ipairs(p.tags) do e.tags[t] = true end
    e.entity = setmetatable({owner = e}, EntityHandle)
    e.Transform = setmetatable({owner = e}, Transform)
    if p.health then
      e.dead = false
      e.components.health = {
        owner = e,
        IsDead = logged("health:IsDead", nil, function(o) return o.dead end),
      }
    end
    if p.equippable then
      e.equipped = false
      e.components.equippable = {owner = e, IsEquipped = logged("equippable:IsEquipped", nil, function(o) return o.equipped end)}
      e.components.inventoryitem = {owner = e, GetGrandOwner = logged("inventoryitem:GetGrandOwner", nil, function(o) return o.grandowner end)}
    end
    W.ents[#W.ents + 1] = e
    if W.on_new_ent then W.on_new_ent(e) end
    return e
  end
  W.new_ent = new_ent

  for _ = 1, 4 + rng(6) do
    new_ent(rng(#PREFABS), rng() * 40 - 20, rng() * 40 - 20)
  end
  -- a light and a player are always somewhere
  new_ent(5, rng() * 30 - 15, rng() * 30 - 15)
  new_ent(1, rng() * 30 - 15, rng() * 30 - 15)
  -- a boat to stand on: an entity that is not among the others (FindEntities does not see it)
  W.boat = setmetatable({
    GUID = 99, prefab = "boat", _logname = "boat", tags = {boat = true}, x = rng() * 10 - 5, y = 0,
    z = rng() * 10 - 5, rotation = 0, valid = true, visible = true, limbo = false, radius = 4, speed = 0,
    listeners = {}, components = {},
  }, Ent)
  -- the boat knows who stands on it (a set, as the game's walkableplatform keeps it)
  W.boat.components.walkableplatform = {owner = W.boat,
    GetEntitiesOnPlatform = logged("walkableplatform:GetEntitiesOnPlatform", nil, function(b)
      local on = {}
      if W.inst and W.inst.platform == b then on[W.inst] = true end
      return on
    end)}
  W.boat.entity = setmetatable({owner = W.boat}, EntityHandle)
  W.boat.Transform = setmetatable({owner = W.boat}, Transform)

  -- ---- the brain's entity ----

  local inst = setmetatable({
    GUID = 100, prefab = "me", _logname = "100 - me", tags = {character = true, pig = true},
    x = rng() * 10 - 5, y = 0, z = rng() * 10 - 5, rotation = rng() * 360 - 180, valid = true,
    visible = true, limbo = false, radius = 0.5, listeners = {}, components = {},
  }, Ent)
  inst.entity = setmetatable({owner = inst}, EntityHandle)
  inst.Transform = setmetatable({owner = inst}, Transform)
  W.inst = inst
  if rng(3) == 1 then inst.platform = W.boat end

  -- stategraph
  local STATES = {
    idle = {"idle", "canrotate"},
    alert = {"idle", "alert", "canrotate"},
    taunt = {"idle", "canrotate", "busy"},
    run = {"moving", "running", "canrotate"},
    walk = {"moving", "canrotate"},
    attack = {"attack", "busy"},
    longattack = {"attack", "longattack", "busy"},
    jump = {"jumping", "busy"},
    shield = {"shield", "busy"},
    frozen = {"frozen", "busy"},
  }
  local STATE_NAMES = {"idle", "alert", "taunt", "run", "walk", "attack", "longattack", "jump", "shield", "frozen"}
  W.STATE_NAMES = STATE_NAMES
  local sg = {owner = inst, currentstate = {name = "idle"}, tags = {}, sg = {states = {}}}
  for name in pairs(STATES) do sg.sg.states[name] = {name = name} end
  if rng(4) == 1 then sg.sg.states.alert = nil end
  local function set_state(name)
    sg.currentstate = {name = name}
    sg.tags = {}
    for _, t in ipairs(STATES[name] or {"idle"}) do sg.tags[t] = true end
  end
  set_state("idle")
  W.set_state = set_state
  sg.HasStateTag = logged("sg:HasStateTag", nil, function(_, tag) return sg.tags[tag] == true end)
  sg.GoToState = logged("sg:GoToState", nil, function(_, name) set_state(name) end)
  inst.sg = sg

  inst.AnimState = {
    owner = inst,
    PlayAnimation = logged("AnimState:PlayAnimation", nil, function() end),
    PushAnimation = logged("AnimState:PushAnimation", nil, function() end),
  }

  -- locomotor
  local loco = {owner = inst, skipHoldWhenFarFromHome = rng(3) == 1, allow_platform_hopping = rng(3) == 1}
  local aquatic, water_path = rng(8) == 1, rng(3) == 1
  loco.Stop = logged("locomotor:Stop", nil, function()
    loco.dest, loco.dir, loco.running, loco.bufferedaction = nil, nil, false, nil
  end)
  loco.GoToPoint = logged("locomotor:GoToPoint", nil, function(_, pt, ba, run)
    loco.dest = pt and V(pt.x, pt.y, pt.z) or nil
    loco.dir, loco.running, loco.bufferedaction = nil, run and true or false, ba
  end)
  loco.RunInDirection = logged("locomotor:RunInDirection", nil, function(_, angle)
    loco.dest, loco.dir, loco.running = nil, angle, true
  end)
  loco.WalkInDirection = logged("locomotor:WalkInDirection", nil, function(_, angle, run)
    loco.dest, loco.dir, loco.running = nil, angle, run and true or false
  end)
  loco.PushAction = logged("locomotor:PushAction", nil, function(_, ba, run)
    loco.bufferedaction = ba
    loco.dir, loco.running = nil, run and true or false
    loco.dest = ba.target and V(ba.target.x, 0, ba.target.z) or nil
    -- some actions resolve at once, as instant actions do
    local r = script("PushAction", 8)
    if r == 0 then ba:Fail() elseif r == 1 then ba:Succeed() end
  end)
  loco.WantsToMoveForward = logged("locomotor:WantsToMoveForward", nil, function()
    return loco.dest ~= nil or loco.dir ~= nil
  end)
  loco.WantsToRun = logged("locomotor:WantsToRun", nil, function() return loco.running == true end)
  loco.IsAquatic = logged("locomotor:IsAquatic", nil, function() return aquatic end)
  loco.CanPathfindOnWater = logged("locomotor:CanPathfindOnWater", nil, function() return water_path end)
  inst.components.locomotor = loco
  W.aquatic = aquatic

  -- health
  inst.dead = false
  inst.components.health = {
    owner = inst, takingfiredamage = false,
    IsDead = logged("health:IsDead", nil, function(o) return o.dead end),
  }

  -- combat
  local combat = {owner = inst, cooldown = false, range = 2 + rng(3)}
  local function alive(t)
    return t ~= nil and t.valid and not t.dead
  end
  combat.ValidateTarget = logged("combat:ValidateTarget", nil, function()
    if combat.target ~= nil and not alive(combat.target) then
      combat.target = nil
      return false
    end
    return combat.target ~= nil
  end)
  combat.SetTarget = logged("combat:SetTarget", nil, function(_, t)
    local old = combat.target
    combat.target = t
    if t ~= nil and t ~= old then inst:PushEvent("newcombattarget", {target = t, oldtarget = old}) end
  end)
  combat.BattleCry = logged("combat:BattleCry", nil, function() end)
  combat.TryAttack = logged("combat:TryAttack", nil, function(_, t)
    t = t or combat.target
    if t == nil or combat.cooldown then return false end
    local r = script("TryAttack", 6)
    if r >= 3 then
      combat.cooldown = true
      inst:PushEvent("onattackother", {target = t})
      return true
    elseif r == 1 then
      inst:PushEvent("onmissother", {target = t})
    end
    return false
  end)
  combat.CalcAttackRangeSq = logged("combat:CalcAttackRangeSq", nil, function(_, t)
    t = t or combat.target
    local r = combat.range + (t and t.radius or 0)
    return r * r
  end)
  combat.GiveUp = logged("combat:GiveUp", nil, function()
    local old = combat.target
    combat.target = nil
    if old then inst:PushEvent("giveuptarget", {target = old}) end
  end)
  combat.HasTarget = logged("combat:HasTarget", nil, function() return combat.target ~= nil end)
  combat.InCooldown = logged("combat:InCooldown", nil, function() return combat.cooldown end)
  combat.CanTarget = logged("combat:CanTarget", nil, function(_, guy)
    return alive(guy) and script("CanTarget", 4) ~= 0
  end)
  inst.components.combat = combat

  -- talker
  inst.components.talker = {
    owner = inst,
    Say = logged("talker:Say", nil, function() end),
    Chatter = logged("talker:Chatter", nil, function() end),
  }

  -- home
  local home = new_ent(3, rng() * 20 - 10, rng() * 20 - 10)  -- a pig house stands in for a home
  home.prefab, home._logname = "pighouse", home.GUID .. " - pighouse"
  home.tags = {structure = true}
  home.speed = 0
  home.dead, home.burning = nil, false
  home.components = {burnable = {owner = home}}
  home.components.burnable.IsBurning = logged("burnable:IsBurning", nil, function(o) return o.burning end)
  W.home = home
  local homeseeker = {owner = inst, home = rng(4) ~= 1 and home or nil}
  homeseeker.GoHome = logged("homeseeker:GoHome", nil, function() end)
  homeseeker.HasHome = logged("homeseeker:HasHome", nil, function() return homeseeker.home ~= nil end)
  inst.components.homeseeker = homeseeker

  local knownlocations = {owner = inst, locs = {home = V(home.x, 0, home.z)}}
  if rng(5) == 1 then knownlocations.locs.home = nil end
  knownlocations.GetLocation = logged("knownlocations:GetLocation", nil, function(_, name)
    local p = knownlocations.locs[name]
    -- "home" comes and goes; any other location (a spawn point, a landing spot ...) the entity
    -- knows from the start, as the prefabs that use them remember them at once
    if p == nil and name ~= "home" and type(name) == "string" then
      local h = strhash(name)
      p = V(home.x + h % 17 - 8, 0, home.z + h % 13 - 6)
    end
    return p and V(p.x, p.y, p.z) or nil
  end)
  inst.components.knownlocations = knownlocations

  local follower = {owner = inst, leader = nil}
  follower.GetLeader = logged("follower:GetLeader", nil, function() return follower.leader end)
  inst.components.follower = follower

  -- a wall just in front of the entity, where AttackWall looks
  local function wall_ahead(d, spread)
    local a = (inst.rotation + spread) * DEGREES
    return new_ent(4, inst.x + d * math.cos(a), inst.z - d * math.sin(a))
  end
  W.wall_ahead = wall_ahead
  if rng(3) == 1 then wall_ahead(1.6, 0) end

  -- ---- host globals, installed into a Lua environment ----

  local BA = {}
  BA.__index = BA
  BA.__tostring = function(a) return a._logname end
  BA.AddFailAction = logged("AddFailAction", nil, function(a, fn) a.onfail[#a.onfail + 1] = fn end)
  BA.AddSuccessAction = logged("AddSuccessAction", nil, function(a, fn) a.onsuccess[#a.onsuccess + 1] = fn end)
  BA.IsValid = logged("IsValid", nil, function(a)
    return a.valid and (a.target == nil or a.target.valid) and not inst.dead
  end)
  function BA:Succeed()
    L(self._logname .. ":Succeed()")
    self.done = true
    for _, fn in ipairs(self.onsuccess) do fn() end
  end
  function BA:Fail()
    L(self._logname .. ":Fail()")
    self.done = true
    for _, fn in ipairs(self.onfail) do fn() end
  end
  local nactions = 0
  local function BufferedAction(doer, target, action, invobject, pos)
    nactions = nactions + 1
    local a = setmetatable({
      _logname = "BA" .. nactions .. "<" .. action.id .. " " .. tostring(target) .. ">",
      doer = doer, target = target, action = action, invobject = invobject, pos = pos,
      valid = true, onfail = {}, onsuccess = {},
    }, BA)
    L("BufferedAction(" .. serargs(doer, target, action.id) .. ") -> " .. a._logname)
    W.actions[#W.actions + 1] = a
    return a
  end

  local ACTIONS = {}
  for _, id in ipairs({"WALKTO", "PICKUP", "EAT", "GOHOME", "CHOP", "ATTACK", "PICK", "UNPIN"}) do
    ACTIONS[id] = {id = id}
  end

  local function matches(e, musttags, canttags, oneoftags)
    if musttags then for _, t in ipairs(musttags) do if not e.tags[t] then return false end end end
    if canttags then for _, t in ipairs(canttags) do if e.tags[t] then return false end end end
    if oneoftags then
      for _, t in ipairs(oneoftags) do if e.tags[t] then return true end end
      return false
    end
    return true
  end

  -- entities in range, nearest first (ties in creation order); the brain's entity included
  local function find_entities(x, y, z, r, musttags, canttags, oneoftags)
    local found = {}
    local all = {inst}
    for _, e in ipairs(W.ents) do all[#all + 1] = e end
    for order, e in ipairs(all) do
      if e.valid and not e.limbo and matches(e, musttags, canttags, oneoftags) then
        local dx, dz = e.x - x, e.z - z
        local d = dx * dx + dz * dz
        if d <= r * r then found[#found + 1] = {e = e, d = d, o = order} end
      end
    end
    table.sort(found, function(a, b) if a.d ~= b.d then return a.d < b.d end return a.o < b.o end)
    local out = {}
    for i, f in ipairs(found) do out[i] = f.e end
    return out
  end

  local TheSim = {}
  function TheSim:FindEntities(x, y, z, r, musttags, canttags, oneoftags)
    local out = find_entities(x, y, z, r, musttags, canttags, oneoftags)
    L("TheSim:FindEntities(" .. serargs(x, y, z, r, musttags, canttags, oneoftags) .. ") -> " .. ser(out))
    return out
  end

  local function FindEntity(e, radius, fn, musttags, canttags, oneoftags)
    L("FindEntity(" .. serargs(e, radius, fn, musttags, canttags, oneoftags) .. ")")
    if e == nil or not e.valid then return nil end
    local list = find_entities(e.x, e.y, e.z, radius, musttags, canttags, oneoftags)
    for _, v in ipairs(list) do
      if v ~= e and v.visible and (fn == nil or fn(v, e)) then
        L("FindEntity -> " .. ser(v))
        return v
      end
    end
    L("FindEntity -> nil")
    return nil
  end

  local function GetClosestInstWithTag(tag, e, radius)
    local list = find_entities(e.x, e.y, e.z, radius, type(tag) == "string" and {tag} or tag)
    local r = list[1] ~= e and list[1] or list[2]
    L("GetClosestInstWithTag(" .. serargs(tag, e, radius) .. ") -> " .. ser(r))
    return r
  end

  -- fan out from start_angle, alternating sides, and take the first acceptable offset
  local function fan(name, wantland, position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn, allow_water)
    L(name .. "(" .. serargs(position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn, allow_water) .. ")")
    attempts = attempts or 8
    for i = 0, attempts - 1 do
      local step = (i % 2 == 1) and (i + 1) // 2 or -(i // 2)
      local a = start_angle + step * (2 * PI / attempts)
      local ox, oz = radius * math.cos(a), -radius * math.sin(a)
      local x, z = position.x + ox, position.z + oz
      local ok
      if wantland then ok = land(x, z) or allow_water == true else ok = not land(x, z) end
      ok = ok and (not check_los or ignore_walls or clear(position.x, position.z, x, z))
      if ok and customcheckfn then ok = customcheckfn(V(x, 0, z)) end
      if ok then
        L(name .. " -> " .. serargs(V(ox, 0, oz), a, i > 0))
        return V(ox, 0, oz), a, i > 0
      end
    end
    L(name .. " -> nil")
    return nil
  end

  local function distsq(a, b, c, d)
    if type(a) == "table" then
      local dx, dz = a.x - b.x, a.z - b.z
      return dx * dx + dz * dz
    end
    local dx, dz = a - c, b - d
    return dx * dx + dz * dz
  end

  local function anglediff(a, b)
    local d = (a - b) % 360
    if d > 180 then d = d - 360 end
    return d
  end

  local function normalize(x, z)
    local l = math.sqrt(x * x + z * z)
    if l == 0 then return 0, 0 end
    return x / l, z / l
  end

  local function slerp(ax, az, bx, bz, t)
    local a1, a2 = math.atan(az, ax), math.atan(bz, bx)
    local d = (a2 - a1 + PI) % (2 * PI) - PI
    local a = a1 + d * t
    local l = math.sqrt(ax * ax + az * az) * (1 - t) + math.sqrt(bx * bx + bz * bz) * t
    return l * math.cos(a), l * math.sin(a)
  end

  local TheWorld = {Map = {}}
  function TheWorld.Map:IsAboveGroundAtPoint(x, y, z, allow_water)
    local r = land(x, z) or allow_water == true
    L("Map:IsAboveGroundAtPoint(" .. serargs(x, y, z, allow_water) .. ") -> " .. tostring(r))
    return r
  end

  local function nearby(name, want)
    return function(position, range)
      local r
      if script(name, 3) ~= 0 then
        for i = 1, 8 do
          local a = i * PI / 4
          local x, z = position.x + range * math.cos(a), position.z + range * math.sin(a)
          if land(x, z) == want then r = V(x, 0, z) break end
        end
      end
      L(name .. "(" .. serargs(position, range) .. ") -> " .. ser(r))
      return r
    end
  end

  local STRINGS = {
    PIG_TALK_FIGHT = {"Fight!", "Grr!", "For the pigs!"},
    PIG_TALK_FOLLOW = {"Wait for me", "Coming"},
    PIG_TALK_ONE = "Only line",
    PIG_TALK_EMPTY = {"..."},
  }

  function W.install(env)
    env.Point = setmetatable({}, {__call = function(_, x, y, z) return V(x, y, z) end})
    env.Vector3 = env.Point
    env.PI, env.PI2, env.TWOPI, env.DEGREES, env.RADIANS = PI, 2 * PI, 2 * PI, DEGREES, 180 / PI
    env.FRAMES = 1 / 30
    env.GetTime = clock
    env.FunctionOrValue = function(v, ...)
      if type(v) == "function" then return v(...) end
      return v
    end
    env.distsq = distsq
    env.anglediff = anglediff
    env.VecUtil_Normalize = normalize
    env.VecUtil_Slerp = slerp
    env.FindEntity = FindEntity
    env.GetClosestInstWithTag = GetClosestInstWithTag
    env.TheSim = TheSim
    env.TheWorld = TheWorld
    env.FindWalkableOffset = function(position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn, allow_water)
      return fan("FindWalkableOffset", true, position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn, allow_water)
    end
    env.FindSwimmableOffset = function(position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn)
      return fan("FindSwimmableOffset", false, position, start_angle, radius, attempts, check_los, ignore_walls, customcheckfn)
    end
    env.FindNearbyLand = nearby("FindNearbyLand", true)
    env.FindNearbyOcean = nearby("FindNearbyOcean", false)
    env.STRINGS = STRINGS
    env.TUNING = {}
    env.ACTIONS = ACTIONS
    env.BufferedAction = BufferedAction
    env.dumptable = function(t) L("dumptable(" .. ser(t) .. ")") end
  end

  -- the whole scripted state in one string: two worlds that saw the same calls print the same
  function W.fingerprint()
    local parts = {}
    for _, e in ipairs({inst, table.unpack(W.ents)}) do
      parts[#parts + 1] = table.concat({e._logname, num(e.x), num(e.y), num(e.z), num(e.rotation), tostring(e.valid),
        tostring(e.dead), tostring(e.limbo), tostring(e.visible), tostring(e.equipped), ser(e.grandowner),
        tostring(e.burning), ser(e.platform), tostring(e.tags.lightsource), tostring(e.tags.burnt)}, " ")
    end
    parts[#parts + 1] = "loco " .. serargs(loco.dest, loco.dir, loco.running, loco.bufferedaction, loco.skipHoldWhenFarFromHome)
    parts[#parts + 1] = "combat " .. serargs(combat.target, combat.cooldown)
    parts[#parts + 1] = "sg " .. sg.currentstate.name
    parts[#parts + 1] = "home " .. serargs(homeseeker.home, knownlocations.locs.home, follower.leader, inst.components.health.takingfiredamage)
    for _, a in ipairs(W.actions) do parts[#parts + 1] = serargs(a, a.valid, a.done, #a.onfail, #a.onsuccess) end
    local keys = {}
    for k in pairs(W.counters) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. W.counters[k] end
    return table.concat(parts, "\n")
  end

  -- ---- the world moves on between thinks ----

  -- dt: seconds since the last think; k: the think number. Everything here is scripted from
  -- (seed, k) and the world state, so two worlds that saw the same calls stay the same.
  function W.advance(dt, k)
    local r = lcg(mix(seed, k, 99))
    -- the brain's entity moves as its locomotor was told
    local speed = loco.running and 6 or 3
    if loco.dest then
      local dx, dz = loco.dest.x - inst.x, loco.dest.z - inst.z
      local d = math.sqrt(dx * dx + dz * dz)
      local step = speed * dt
      if d <= step or d < 0.2 then
        inst.x, inst.z = loco.dest.x, loco.dest.z
        loco.dest = nil
        loco.running = false
      else
        inst.x, inst.z = inst.x + dx / d * step, inst.z + dz / d * step
      end
      if d > 0 then inst.rotation = math.atan(-dz, dx) / DEGREES end
    elseif loco.dir then
      local a = loco.dir * DEGREES
      inst.x, inst.z = inst.x + math.cos(a) * speed * dt, inst.z - math.sin(a) * speed * dt
      inst.rotation = loco.dir
    end
    -- the others wander, die, vanish, appear
    for _, e in ipairs(W.ents) do
      if e.valid and e.speed > 0 then
        local a = r() * 2 * PI
        local s = e.speed * dt * r()
        e.x, e.z = e.x + math.cos(a) * s, e.z + math.sin(a) * s
        if r(3) == 1 then e.y = (r(3) - 2) * 0.5 else e.y = 0 end
      end
      if e.valid then
        local roll = r(200)
        if roll <= 4 and e.dead == false then e.dead = true
        elseif roll <= 6 then e.valid = false
        elseif roll <= 9 then e.limbo = not e.limbo
        elseif roll <= 12 then e.visible = not e.visible
        elseif roll <= 15 and e.equipped ~= nil then e.equipped = not e.equipped
        elseif roll <= 17 and e.equipped ~= nil then e.grandowner = (e.grandowner == nil) and follower.leader or nil
        elseif roll <= 21 and (e.prefab == "campfire" or e.prefab == "torch") then e.tags.lightsource = not e.tags.lightsource or nil
        end
      end
    end
    if r(12) == 1 then
      new_ent(r(#PREFABS), inst.x + r() * 30 - 15, inst.z + r() * 30 - 15)
    end
    if r(15) == 1 then wall_ahead(1 + r() * 1.5, r() * 80 - 40) end
    -- the brain's entity itself
    if r(3) == 1 then set_state(STATE_NAMES[r(#STATE_NAMES)]) end
    if r(3) == 1 then combat.cooldown = not combat.cooldown end
    if r(15) == 1 then
      local e = W.ents[r(#W.ents)]
      if e.valid and e.dead == false then combat.target = e end
    end
    if r(20) == 1 then combat.target = nil end
    if r(20) == 1 then
      local e = W.ents[r(#W.ents)]
      follower.leader = (follower.leader == nil and e.valid) and e or nil
    end
    if r(30) == 1 then
      knownlocations.locs.home = (knownlocations.locs.home == nil) and V(home.x, 0, home.z) or nil
    end
    if r(20) == 1 then home.burning = not home.burning end
    if r(25) == 1 then home.tags.burnt = not home.tags.burnt or nil end
    if r(25) == 1 then homeseeker.home = homeseeker.home == nil and home or nil end
    if r(10) == 1 then inst.components.health.takingfiredamage = not inst.components.health.takingfiredamage end
    if r(15) == 1 then inst.platform = inst.platform == nil and W.boat or nil end
    if r(50) == 1 then loco.skipHoldWhenFarFromHome = not loco.skipHoldWhenFarFromHome end
    -- pending buffered actions finish or break
    for _, a in ipairs(W.actions) do
      if not a.done then
        local roll = r(20)
        if roll <= 4 then a:Succeed()
        elseif roll <= 6 then a:Fail()
        elseif roll <= 7 then a.valid = false
        end
      end
    end
  end

  return W
end

return M
