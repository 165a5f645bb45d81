-- SPDX-License-Identifier: MIT
-- bt.test: the test helper for specs of brains and behaviours (docs/bt-test.md): a scripted world
-- whose entities implement the entity interface of docs/entity.md in Lua, log every call, and
-- give the answers a test scripts. An optional submodule of bt, installed beside the module as
-- bt/test.lua (Lua's module folder, share/lua/5.4, and the LuaRocks rock); plain Lua that does
-- not load bt itself, but inside the functions that need it (substitution: T.substitute, below,
-- requires bt and bt.testkit). bt's own specs load it as fake_entity (tests/spec/fake_entity.lua).
--
--   local T = require "bt.test"
--   local world = T.world()                       -- day, open plain, time 0
--   bt.set_clock(world:clock())
--   local sheep = world:spawn("sheep", 0, 0, {hunger = 0.8})
--   local grass = world:spawn("grass", 5, 0)
--   world:answer(sheep, "IsDay", T.timeline(0, true, 10, false))  -- night falls at 10 s
--   world:step(0.5)                               -- advance the world by 0.5 s
--   world:run(3, wrangler)                        -- or tick by tick, thinking the brains
--   world:commands(sheep)                         -- {"Stop()", "GoToPoint(5.00, 0.00, false)", ...}
--
-- The model, kept simple and exact so that specs can compute what to expect:
-- - Movement: GoToPoint walks (walk_speed, default 2 u/s) or runs (run_speed, default 5 u/s)
--   in a straight line and stops on arrival; Walk/RunInDirection go on until told otherwise;
--   moving turns the entity to face where it goes. Positions are clamped inside `bounds` if the
--   world has some ({x0, y0, x1, y1}).
-- - GetWalkableOffset: the point `radius` away in the direction asked if it is inside the
--   bounds, else the nearest direction (tried every 15 degrees, alternately either side) whose
--   point is; nil if none, or always when world.no_walkable is set.
-- - Combat: TryAttack swings when the target is within attack_range (default 2) and the attacker
--   is not in cooldown (cooldown seconds, default 1, from the swing). A swing misses when the
--   attacker's `miss` field is set ("onmissother"), else it hits: the target loses `damage`
--   (default 10) health and gets "attacked" {attacker = }, the attacker gets "onattackother"
--   {target = }; at 0 health the target dies (stops, gets "death").
-- - Actions: StartAction refuses when the target is invalid or farther than action_range
--   (default 2); a new action while one runs replaces it (the running one ends, success = false).
--   It takes action_times[action] seconds (eat 2,
--   work 3, rest 4; 0 finishes at once). When it ends the entity gets "actiondone"
--   {action = , target = , success = }: success unless fail_actions[action] is set or the
--   target became invalid. A successful "eat" lowers hunger by eat_amount (default 0.6), a
--   successful "rest" clears `tired`. A movement command (GoToPoint, Walk/RunInDirection) while
--   busy interrupts the action, which then ends at once with success = false.
-- - Needs: hunger grows by hunger_rate per second (default 0), up to 1; `tired` is a flag.
-- - Day and night: world.day (set_day); IsDay reads it.
-- - Scripted answers (world:answer): a method of the interface answers what the test says
--   instead of the model (a value, a function of the time, or a timeline of values from times
--   on), for one entity or for all; a command answered so is not carried out.
-- - Every call made on an entity through the interface is logged (world.log), in order, with
--   its arguments and results; world:commands(ent) lists the commands as strings.
local T = {}

local register_substitutions -- (below, "substituting leaves"): rules for an entity's trees

local DEFAULT_TAGS = {
  sheep = {"prey"},
  villager = {"prey"},
  wolf = {"predator"},
  guard = {"guard"},
}

local ACTION_TIMES = {eat = 2, work = 3, rest = 4}

-- The calls that change something (the rest are queries).
local COMMANDS = {
  FacePoint = true, GoToPoint = true, WalkInDirection = true, RunInDirection = true, Stop = true,
  SetTarget = true, TryAttack = true, StartAction = true, Say = true, ListenForEvent = true,
  RemoveEventCallback = true, PushEvent = true,
}

local function fmt(v)
  local t = type(v)
  if t == "number" then
    return string.format("%.2f", v)
  elseif t == "string" then
    return v
  elseif t == "function" then
    return "fn"
  elseif t == "table" and v.kind ~= nil and v.id ~= nil then
    return v.kind .. "#" .. v.id
  end
  return tostring(v)
end
T.fmt = fmt

local function has_tags(ent, tags)
  if tags == nil then
    return true
  end
  if type(tags) == "string" then
    return ent.tags[tags] == true
  end
  for _, tag in ipairs(tags) do
    if not ent.tags[tag] then
      return false
    end
  end
  return true
end

local function has_none(ent, tags)
  if tags == nil then
    return true
  end
  if type(tags) == "string" then
    return not ent.tags[tags]
  end
  for _, tag in ipairs(tags) do
    if ent.tags[tag] then
      return false
    end
  end
  return true
end

local function dist2(a, b)
  local dx, dy = a.x - b.x, a.y - b.y
  return dx * dx + dy * dy
end

-- ---- the entity interface (docs/entity.md) ----

local api = {}

function api:IsValid() return self.valid end
function api:IsDead() return self.health ~= nil and self.health <= 0 end
function api:HasTag(tag) return self.tags[tag] == true end

function api:GetPosition() return self.x, self.y end

function api:GetDistanceSqTo(x, y)
  local dx, dy = x - self.x, y - self.y
  return dx * dx + dy * dy
end

function api:FacePoint(x, y)
  if x ~= self.x or y ~= self.y then
    self.facing = math.deg(math.atan(y - self.y, x - self.x)) % 360
  end
end

function api:GoToPoint(x, y, run)
  self.world:interrupt(self)
  self.move = {mode = "goto", x = x, y = y, run = run and true or false}
end

function api:WalkInDirection(angle)
  self.world:interrupt(self)
  self.move = {mode = "dir", angle = angle, run = false}
end

function api:RunInDirection(angle)
  self.world:interrupt(self)
  self.move = {mode = "dir", angle = angle, run = true}
end

function api:Stop() self.move = nil end
function api:IsMoving() return self.move ~= nil end

function api:GetWalkableOffset(x, y, angle, radius)
  return self.world:walkable(x, y, angle, radius)
end

function api:GetHome()
  local home = self.home
  if home == nil then
    return nil
  end
  if home.kind ~= nil then
    if not home.valid then
      return nil
    end
    return home.x, home.y
  end
  return home[1] or home.x, home[2] or home.y
end

function api:FindEntities(radius, tags, notags)
  local found = {}
  for _, ent in ipairs(self.world.entities) do
    if ent ~= self and ent.valid and not (ent.health ~= nil and ent.health <= 0)
        and dist2(ent, self) <= radius * radius and has_tags(ent, tags) and has_none(ent, notags) then
      found[#found + 1] = ent
    end
  end
  -- nearest first; equal distances in the order of spawning
  table.sort(found, function(a, b)
    local da, db = dist2(a, self), dist2(b, self)
    if da ~= db then
      return da < db
    end
    return a.id < b.id
  end)
  return found
end

function api:FindEntity(radius, tags, notags)
  return api.FindEntities(self, radius, tags, notags)[1]
end

function api:GetTarget() return self.target end
function api:SetTarget(ent) self.target = ent end

function api:CanTarget(ent)
  return ent ~= nil and ent ~= self and ent.valid and ent.health ~= nil and ent.health > 0
end

function api:GetAttackRange() return self.attack_range end
function api:InCooldown() return self.world.time < self.next_attack end

function api:TryAttack(ent)
  if ent == nil or not api.CanTarget(self, ent) or self.world.time < self.next_attack
      or dist2(self, ent) > self.attack_range * self.attack_range then
    return false
  end
  self.next_attack = self.world.time + self.cooldown
  self.swings = self.swings + 1
  if self.miss then
    self.world:push(self, "onmissother", {target = ent})
    return true
  end
  ent.health = ent.health - self.damage
  self.world:push(self, "onattackother", {target = ent})
  self.world:push(ent, "attacked", {attacker = self})
  if ent.health <= 0 then
    self.world:kill(ent)
  end
  return true
end

function api:GetHealth() return self.health end

function api:StartAction(action, target)
  if target ~= nil and (not target.valid or dist2(self, target) > self.action_range * self.action_range) then
    return false
  end
  if self.busy ~= nil then -- a new action replaces the running one, which fails
    self.world:finish_action(self, false)
  end
  local duration = self.action_times[action] or ACTION_TIMES[action] or 1
  self.busy = {action = action, target = target, ends = self.world.time + duration}
  self.actions[#self.actions + 1] = {action = action, target = target, start = self.world.time}
  if duration <= 0 then
    self.world:finish_action(self)
  end
  return true
end

function api:IsBusy() return self.busy ~= nil end
function api:GetHunger() return self.hunger end
function api:IsTired() return self.tired end

function api:Say(text)
  self.said[#self.said + 1] = text
end

function api:IsDay() return self.world.day end

function api:ListenForEvent(event, fn)
  local list = self.listeners[event] or {}
  self.listeners[event] = list
  list[#list + 1] = fn
end

function api:RemoveEventCallback(event, fn)
  local list = self.listeners[event] or {}
  for i = #list, 1, -1 do
    if list[i] == fn then
      table.remove(list, i)
    end
  end
end

function api:PushEvent(event, data)
  self.world:push(self, event, data)
end

-- ---- scripted answers ----

local Timeline = {__name = "bt.test.timeline"}

-- Times are compared to within a nanosecond: a world's time is a sum or a product of tick lengths
-- (60 ticks of 1/30 s may fall a hair short of 2).
local EPSILON = 1e-9

-- timeline(t1, v1, t2, v2, ...): an answer that changes over time, v1 from time t1 on, v2 from t2
-- on, ...; before t1 the model answers. A value may be a function of the time, as an answer may.
function T.timeline(...)
  local n = select("#", ...)
  if n == 0 or n % 2 ~= 0 then
    error(string.format("bad argument #%d to 'timeline' (a value after each time: got %d argument%s)",
      n + 1, n, n == 1 and "" or "s"), 2)
  end
  local steps = {n = n // 2}
  for i = 1, n, 2 do
    local t, v = select(i, ...)
    if type(t) ~= "number" or t ~= t then
      error(string.format("bad argument #%d to 'timeline' (time expected, got %s)", i,
        t ~= t and "nan" or type(t)), 2)
    end
    local before = steps[#steps]
    if before ~= nil and t <= before[1] then
      error(string.format("bad argument #%d to 'timeline' (time %g is not after the time before it, %g)",
        i, t, before[1]), 2)
    end
    steps[#steps + 1] = {t, v}
  end
  return setmetatable(steps, Timeline)
end

-- answer_at(answer, t, ...): what `answer` answers at time t to a call with the arguments ...:
-- true and the results, or false when it leaves the call to the model (a timeline before its
-- first time). An answer is a value (a table too: an entity, a point), a function called with
-- (t, ...) whose results are the answer, or a timeline. tests/ds_compare/fake_world.lua's
-- answers take the same forms, through this function.
function T.answer_at(answer, t, ...)
  if getmetatable(answer) == Timeline then
    local found, value = false, nil
    for i = 1, answer.n do
      if t < answer[i][1] - EPSILON then
        break
      end
      found, value = true, answer[i][2]
    end
    if not found then
      return false
    end
    answer = value
  end
  if type(answer) == "function" then
    return true, answer(t, ...)
  end
  return true, answer
end

local function pack_answer(found, ...)
  if found then
    return table.pack(...)
  end
end

-- Entity methods: the interface, each call logged; a scripted answer (World:answer) replaces the
-- model's.
local Entity = {}
Entity.__index = Entity
Entity.__tostring = function(e) return e.kind .. "#" .. e.id end

for name, fn in pairs(api) do
  Entity[name] = function(self, ...)
    local world = self.world
    local entry = {t = world.time, who = self, name = name, args = table.pack(...)}
    local log = world.log
    log[#log + 1] = entry
    local own = world.answers[self]
    local box = own ~= nil and own[name] or world.answers[world][name]
    local results = box ~= nil and pack_answer(T.answer_at(box[1], world.time, ...)) or nil
    if results ~= nil then
      entry.scripted = true
    else
      results = table.pack(fn(self, ...))
    end
    entry.results = results
    return table.unpack(results, 1, results.n)
  end
end

-- ---- the world ----

local World = {}
World.__index = World

function T.world(opts)
  opts = opts or {}
  local world = setmetatable({
    time = opts.time or 0,
    tick = 0,
    tick_time = opts.tick_time or 1 / 30,
    day = opts.day ~= false,
    bounds = opts.bounds,
    no_walkable = false,
    entities = {},
    log = {},
    events = {}, -- every event pushed: {t, who, event, data}
    next_id = 1,
    answers = {}, -- scripted answers: [entity or the world itself (all)][method] = {answer}
  }, World)
  world.answers[world] = {}
  return world
end

-- spawn(kind, x, y, opts): opts may set tags (added to the kind and its default tags), home (an
-- entity or {x, y}), health (default 100 for creatures, nil for objects), walk_speed, run_speed,
-- attack_range, damage, cooldown, miss, hunger, hunger_rate, tired, action_times,
-- action_range, eat_amount, fail_actions, answers ({[method] = answer}: see World:answer).
local OBJECTS = {grass = true, field = true, house = true, den = true, post = true}

function World:spawn(kind, x, y, opts)
  opts = opts or {}
  local e = setmetatable({
    world = self,
    id = self.next_id,
    kind = kind,
    valid = true,
    x = x or 0,
    y = y or 0,
    facing = 0,
    tags = {[kind] = true},
    home = opts.home,
    health = opts.health,
    walk_speed = opts.walk_speed or 2,
    run_speed = opts.run_speed or 5,
    attack_range = opts.attack_range or 2,
    damage = opts.damage or 10,
    cooldown = opts.cooldown or 1,
    next_attack = -math.huge,
    miss = opts.miss,
    swings = 0,
    hunger = opts.hunger or 0,
    hunger_rate = opts.hunger_rate or 0,
    tired = opts.tired or false,
    action_times = opts.action_times or {},
    action_range = opts.action_range or 2,
    eat_amount = opts.eat_amount or 0.6,
    fail_actions = opts.fail_actions or {},
    actions = {},
    said = {},
    listeners = {},
  }, Entity)
  if e.health == nil and not OBJECTS[kind] and opts.health ~= false then
    e.health = 100
  end
  if opts.health == false then
    e.health = nil
  end
  for _, tag in ipairs(DEFAULT_TAGS[kind] or {}) do
    e.tags[tag] = true
  end
  for _, tag in ipairs(opts.tags or {}) do
    e.tags[tag] = true
  end
  self.next_id = self.next_id + 1
  self.entities[#self.entities + 1] = e
  if self.substitutions ~= nil then
    register_substitutions(e, self.substitutions)
  end
  for name, answer in pairs(opts.answers or {}) do
    self:answer(e, name, answer)
  end
  return e
end

-- The entity and the method a scripted answer is for: ([ent,] name, ...), where ent is an entity of
-- this world (none: every entity); the index of the argument after the name.
local function answer_target(world, fname, ...)
  local ent, i = ..., 1
  if type(ent) == "string" then
    ent = nil
  elseif getmetatable(ent) == Entity and ent.world == world then
    i = 2
  else
    error(string.format("bad argument #1 to '%s' (an entity of this world or a method name expected, got %s)",
      fname, getmetatable(ent) == Entity and "an entity of another world" or type(ent)), 3)
  end
  local name = select(i, ...)
  if type(name) ~= "string" then
    error(string.format("bad argument #%d to '%s' (method name expected, got %s)", i, fname, type(name)), 3)
  elseif api[name] == nil then
    error(string.format("bad argument #%d to '%s' ('%s' is not a method of the entity interface, docs/entity.md)",
      i, fname, name), 3)
  end
  return ent, name, i + 1
end

-- answer([ent,] name, answer): from now on the method `name` of `ent` (of every entity, without
-- one) answers `answer` (T.answer_at: a value, nil included, a function of the time, a timeline)
-- instead of the model; an entity's own answer comes before one for all. A command answered so
-- is not carried out.
function World:answer(...)
  local ent, name, i = answer_target(self, "answer", ...)
  if select("#", ...) < i then
    error(string.format("bad argument #%d to 'answer' (an answer expected: a value, a function of the " ..
      "time or a timeline; nil answers nil)", i), 2)
  end
  local own = self.answers[ent or self] or {}
  self.answers[ent or self] = own
  own[name] = {(select(i, ...))}
end

-- forget([ent,] name): the method answers as the model again (for that entity, or for all).
function World:forget(...)
  local ent, name = answer_target(self, "forget", ...)
  local own = self.answers[ent or self]
  if own ~= nil then
    own[name] = nil
  end
end

function World:clock()
  return function() return self.time end
end

function World:set_day(day)
  self.day = day
end

-- Delivers an event to an entity's listeners (those present when it is pushed), in order.
function World:push(ent, event, data)
  self.events[#self.events + 1] = {t = self.time, who = ent, event = event, data = data}
  local list = {}
  for i, fn in ipairs(ent.listeners[event] or {}) do
    list[i] = fn
  end
  for _, fn in ipairs(list) do
    fn(ent, data)
  end
end

function World:kill(ent)
  ent.health = 0
  ent.move = nil
  self:push(ent, "death", {})
end

-- Removes an entity from the world (stopping its brain, if it has one).
function World:remove(ent)
  ent.valid = false
  ent.move = nil
  if ent.brain ~= nil then
    ent.brain:Stop()
  end
end

function World:finish_action(ent, success)
  local busy = ent.busy
  ent.busy = nil
  if success == nil then
    success = not ent.fail_actions[busy.action] and (busy.target == nil or busy.target.valid)
  end
  if success then
    if busy.action == "eat" then
      ent.hunger = math.max(0, ent.hunger - ent.eat_amount)
    elseif busy.action == "rest" then
      ent.tired = false
    end
  end
  self:push(ent, "actiondone", {action = busy.action, target = busy.target, success = success})
end

-- A movement command interrupts a running action.
function World:interrupt(ent)
  if ent.busy ~= nil then
    self:finish_action(ent, false)
  end
end

local function inside(b, x, y)
  return b == nil or (x >= b[1] and y >= b[2] and x <= b[3] and y <= b[4])
end

function World:walkable(x, y, angle, radius)
  if self.no_walkable then
    return nil
  end
  for i = 0, 24 do
    local k = math.ceil(i / 2) * (i % 2 == 1 and 1 or -1)
    local a = math.rad(angle + k * 15)
    local px, py = x + radius * math.cos(a), y + radius * math.sin(a)
    if inside(self.bounds, px, py) then
      return px, py
    end
  end
  return nil
end

local function clamp(b, x, y)
  if b == nil then
    return x, y
  end
  return math.min(math.max(x, b[1]), b[3]), math.min(math.max(y, b[2]), b[4])
end

-- Advances the world by dt seconds: movement, hunger, actions that end.
function World:step(dt)
  self.time = self.time + dt
  self:update(dt)
end

function World:update(dt)
  for _, e in ipairs(self.entities) do
    if e.valid and not (e.health ~= nil and e.health <= 0) then
      local m = e.move
      if m ~= nil then
        local speed = m.run and e.run_speed or e.walk_speed
        local d = speed * dt
        if m.mode == "goto" then
          local dx, dy = m.x - e.x, m.y - e.y
          local len = math.sqrt(dx * dx + dy * dy)
          if len > 0 then
            e.facing = math.deg(math.atan(dy, dx)) % 360
          end
          if len <= d then
            e.x, e.y = m.x, m.y
            e.move = nil
          else
            e.x, e.y = e.x + dx / len * d, e.y + dy / len * d
          end
        else
          local a = math.rad(m.angle)
          e.facing = m.angle % 360
          e.x, e.y = e.x + math.cos(a) * d, e.y + math.sin(a) * d
        end
        e.x, e.y = clamp(self.bounds, e.x, e.y)
      end
      e.hunger = math.min(1, e.hunger + e.hunger_rate * dt)
    end
  end
  for _, e in ipairs(self.entities) do
    if e.busy ~= nil and self.time >= e.busy.ends - 1e-9 then
      self:finish_action(e)
    end
  end
end

-- Runs the world for `seconds`, one tick at a time (time = tick * tick_time, as Don't Starve's
-- GetTime), thinking the brains of `wrangler` after each tick's update as Don't Starve does.
-- Calls each(tick) after each tick when given.
function World:run(seconds, wrangler, each)
  local n = math.floor(seconds / self.tick_time + 0.5)
  for _ = 1, n do
    self.tick = self.tick + 1
    local before = self.time
    self.time = self.tick * self.tick_time
    self:update(self.time - before)
    if wrangler ~= nil then
      wrangler:Update(self.tick)
    end
    if each ~= nil then
      each(self.tick)
    end
  end
end

-- Starts a brain (a Brain class, e.g. a SharedBrain) for an entity, on `wrangler`.
function World:start_brain(ent, Brain, wrangler)
  local brain = Brain(ent)
  brain.manager = wrangler
  ent.brain = brain
  brain:Start()
  return brain
end

-- ---- reading the log ----

-- The log entries of `ent` (all entities if nil) whose name is in `names` (a name or a list;
-- all if nil).
function World:calls(ent, names)
  if type(names) == "string" then
    names = {names}
  end
  local wanted
  if names ~= nil then
    wanted = {}
    for _, n in ipairs(names) do
      wanted[n] = true
    end
  end
  local out = {}
  for _, entry in ipairs(self.log) do
    if (ent == nil or entry.who == ent) and (wanted == nil or wanted[entry.name]) then
      out[#out + 1] = entry
    end
  end
  return out
end

local function entry_string(entry)
  local args = {}
  for i = 1, entry.args.n do
    args[i] = fmt(entry.args[i])
  end
  return entry.name .. "(" .. table.concat(args, ", ") .. ")"
end
T.entry_string = entry_string

-- The commands (calls that change something) made on `ent` since the log was last cleared, as
-- strings such as "GoToPoint(5.00, 0.00, true)"; with `names`, only those.
function World:commands(ent, names)
  local out = {}
  for _, entry in ipairs(self:calls(ent, names)) do
    if names ~= nil or COMMANDS[entry.name] then
      out[#out + 1] = entry_string(entry)
    end
  end
  return out
end

function World:clear_log()
  self.log = {}
end

-- The number of listeners an entity has for an event.
function World:listener_count(ent, event)
  return #(ent.listeners[event] or {})
end

-- The events pushed to `ent` with that name.
function World:events_of(ent, event)
  local out = {}
  for _, e in ipairs(self.events) do
    if e.who == ent and e.event == event then
      out[#out + 1] = e
    end
  end
  return out
end

-- ---- randomness ----

-- Replaces math.random with a scripted sequence: math.random() returns the next value,
-- math.random(n) returns floor(value * n) + 1, math.random(m, n) m + floor(value * (n - m + 1)).
-- The last value repeats. Returns a function that restores the real math.random.
function T.stub_random(values)
  local real = math.random
  local i = 0
  math.random = function(m, n)
    i = math.min(i + 1, #values)
    local v = values[i]
    if m == nil then
      return v
    elseif n == nil then
      return math.floor(v * m) + 1
    end
    return m + math.floor(v * (n - m + 1))
  end
  return function()
    math.random = real
  end
end

-- ---- substituting leaves (docs/bt-test.md "Substituting leaves") ----
--
-- A rule picks nodes of a tree, by path (bt_def_path's, as records and error messages give
-- them), by name or by class (node:is_a), and replaces each with a leaf of the kit's that keeps
-- its name and place: a fixed result, a run of some seconds then a result, or a function of the
-- test's. Trees built for one entity are edited through their live children lists; a shared
-- definition (bt.SharedBrain) is built anew from its brain class, edited, and defined again.
-- bt.BT's constructor is wrapped, once, so that every tree built for an entity that has rules
-- (a start, a restart, a hot reload) gets them. bt and bt.testkit (the paths) load when needed.

local SUBST_EPSILON = EPSILON

local Replacement = {__name = "bt.test.replacement"}
Replacement.__index = Replacement

local STATUSES = {SUCCESS = true, FAILED = true}

local function replacement(result, seconds, fn, text)
  return setmetatable({result = result, seconds = seconds, fn = fn, text = text}, Replacement)
end

-- T.succeed(), T.fail(): a leaf that ends every visit SUCCESS, FAILED.
function T.succeed()
  return replacement("SUCCESS", 0, nil, "SUCCESS")
end

function T.fail()
  return replacement("FAILED", 0, nil, "FAILED")
end

-- T.run(seconds[, result]): RUNNING for `seconds` from the visit that starts it, then `result`
-- (default SUCCESS).
function T.run(seconds, result)
  if type(seconds) ~= "number" or not (seconds >= 0) or seconds == math.huge then
    error(string.format("bad argument #1 to 'run' (seconds expected, a number >= 0, got %s)",
      type(seconds) == "number" and tostring(seconds) or type(seconds)), 2)
  end
  if result == nil then
    result = "SUCCESS"
  elseif not STATUSES[result] then
    error(string.format("bad argument #2 to 'run' (\"SUCCESS\" or \"FAILED\" expected, got %s)",
      type(result) == "string" and "'" .. result .. "'" or type(result)), 2)
  end
  return replacement(result, seconds, nil, string.format("%s after %g s", result, seconds))
end

-- The replacement a rule's `as` stands for, or nil and why not.
local function check_as(as)
  if getmetatable(as) == Replacement then
    return as
  elseif STATUSES[as] then
    return replacement(as, 0, nil, as)
  elseif type(as) == "function" then
    return replacement(nil, 0, as, "a function")
  end
  return nil, string.format("'as' expected: \"SUCCESS\", \"FAILED\", a function, T.succeed(), T.fail() " ..
    "or T.run(seconds, result); got %s", type(as) == "string" and "'" .. as .. "'" or type(as))
end

local RULE_KEYS = {"path", "name", "class"}

-- A rule checked: {key = "path", value = ..., as = replacement, label = "rule 2 (path '...')"}.

-- A class's name for a message: its __name, else the module (package.loaded) or the global it is
-- known by (DS classes have no name of their own: "behaviours/wander", "Wander"), else its address.
local function class_name(class)
  local name = rawget(class, "__name")
  if type(name) == "string" then return name end
  for module, value in pairs(package.loaded) do
    if value == class then return "'" .. module .. "'" end
  end
  for global, value in pairs(_G) do
    if value == class then return global end
  end
  return tostring(class)
end

local function check_rule(rule, i, fname, arg)
  local function bad(msg)
    error(string.format("bad argument #%d to '%s' (rule %d: %s)", arg, fname, i, msg), 5)
  end
  if type(rule) ~= "table" then
    bad("table expected, got " .. type(rule))
  end
  local key
  for _, k in ipairs(RULE_KEYS) do
    if rule[k] ~= nil then
      if key ~= nil then
        bad(string.format("one of path, name or class expected, got %s and %s", key, k))
      end
      key = k
    end
  end
  if key == nil then
    bad("one of path, name or class expected")
  end
  local value = rule[key]
  if key ~= "class" and (type(value) ~= "string" or value == "") then
    bad(string.format("%s: a string expected, got %s", key, value == "" and "''" or type(value)))
  elseif key == "class" and type(value) ~= "table" then
    bad("class: a class expected (bt.ActionNode, require \"behaviours/wander\", ...), got " .. type(value))
  end
  local as, why = check_as(rule.as)
  if as == nil then
    bad(why)
  end
  local label
  if key == "class" then
    label = string.format("rule %d (class %s)", i, class_name(value))
  else
    label = string.format("rule %d (%s '%s')", i, key, value)
  end
  return {key = key, value = value, as = as, label = label}
end

-- The rules of a call, checked: a list of rules, or one rule.
local function check_rules(rules, fname, arg)
  if type(rules) ~= "table" then
    error(string.format("bad argument #%d to '%s' (table of rules expected, got %s)", arg, fname,
      type(rules)), 3)
  end
  local list = rules
  for _, k in ipairs(RULE_KEYS) do
    if rules[k] ~= nil then
      list = {rules}
    end
  end
  if #list == 0 then
    error(string.format("bad argument #%d to '%s' (no rules: {path = ..., as = ...}, {name = ...}, " ..
      "{class = ...})", arg, fname), 3)
  end
  local out = {}
  for i, rule in ipairs(list) do
    out[i] = check_rule(rule, i, fname, arg)
  end
  return out
end

-- The kit's leaf: a BehaviourNode of the replaced node's name (a class per bt module).
local substitute_classes = setmetatable({}, {__mode = "k"})

local function substitute_class(bt)
  local Substitute = substitute_classes[bt]
  if Substitute ~= nil then
    return Substitute
  end
  Substitute = bt.Class(bt.BehaviourNode, function(self, name, how, inst)
    bt.BehaviourNode._ctor(self, name)
    self.substitute = how
    self.inst = inst
  end)
  function Substitute:Visit()
    local how = self.substitute
    if how.fn ~= nil then
      local status = how.fn(self.inst, self)
      if status ~= "SUCCESS" and status ~= "FAILED" and status ~= "RUNNING" then
        self.status = "FAILED"
        error(string.format("substitute '%s': its function returned %s, not \"SUCCESS\", \"FAILED\" or \"RUNNING\"",
          self.name, type(status) == "string" and "'" .. status .. "'" or tostring(status)), 0)
      end
      self.status = status
      return
    end
    local now = bt.GetTime()
    if self.status ~= "RUNNING" then
      if how.seconds <= 0 then
        self.status = how.result
        return
      end
      self.ends = now + how.seconds
      self.status = "RUNNING"
      self:Sleep(how.seconds)
    elseif now >= self.ends - SUBST_EPSILON then
      self.status = how.result
    else
      self:Sleep(self.ends - now)
    end
  end
  function Substitute:DBString()
    return "substitute: " .. self.substitute.text
  end
  substitute_classes[bt] = Substitute
  return Substitute
end

local function load_bt()
  local bt = require "bt"
  return bt, require "bt.testkit"
end

-- The nodes of the tree under root, in pre-order, each {node, parent, index, path, where, last}
-- (where: where the definition says it was made, or false; last: the pre-order number of its
-- last descendant in the definition), matched with the definition's paths, child counts and
-- wheres (kit.paths). A node whose object has no children where the definition has some (a
-- SubtreeNode before it is compiled) has them left out.
local function walk(root, paths, counts, wheres)
  local list = {}
  local i = 0
  local function last_of(j)
    local k = j
    for _ = 1, counts[j] do
      k = last_of(k + 1)
    end
    return k
  end
  local function visit(node, parent, index)
    i = i + 1
    local entry = {node = node, parent = parent, index = index, path = paths[i], number = i,
      where = wheres and wheres[i]}
    list[#list + 1] = entry
    local kids = node.children
    local n = type(kids) == "table" and #kids or 0
    if n ~= counts[entry.number] then
      i = last_of(entry.number)
    else
      for k = 1, n do
        visit(kids[k], node, k)
      end
    end
    entry.last = i
  end
  visit(root, nil, nil)
  return list
end

local function matches(rule, entry)
  local node = entry.node
  if rule.key == "path" then
    return entry.path == rule.value
  elseif rule.key == "name" then
    return node.name == rule.value
  end
  return type(node.is_a) == "function" and node:is_a(rule.value)
end

-- What the tree has under the longest part of a path that it has: for a message.
local function near(list, path)
  local have = {}
  for _, e in ipairs(list) do
    have[e.path] = e
  end
  local prefix = path
  while prefix ~= nil and have[prefix] == nil do
    prefix = prefix:match("^(.*)/[^/]*$")
  end
  if prefix == nil then
    return string.format("its root is '%s'", list[1].path)
  end
  local names = {}
  for _, e in ipairs(list) do
    if e.parent == have[prefix].node and e.path:sub(1, #prefix + 1) == prefix .. "/" then
      names[#names + 1] = e.path:sub(#prefix + 2)
    end
  end
  if #names == 0 then
    return string.format("'%s' has no children", prefix)
  end
  return string.format("'%s' has %s", prefix, table.concat(names, ", "))
end

-- Replaces the nodes the rules pick in the tree under root (edit(parent, index, node) puts a
-- node in place); inst is the entity the leaves get (nil: the tree's copies get it). A leaf is
-- noted as made where the node it replaces was (coverage gives it that line). Returns the
-- number of nodes replaced. A rule that matches nothing raises an error naming it.
local function apply_rules(bt, kit, rules, list, inst, edit)
  local Substitute = substitute_class(bt)
  local by = {} -- node -> its substitute
  local count = {}
  local skip = 0
  for _, entry in ipairs(list) do
    for ri, rule in ipairs(rules) do
      if matches(rule, entry) then
        count[ri] = (count[ri] or 0) + 1
        if entry.number > skip and by[entry.node] == nil and getmetatable(entry.node) ~= Substitute then
          if entry.parent == nil then
            error(string.format("substitute: %s matches the root '%s', which stays: pick nodes below it",
              rule.label, entry.path), 0)
          end
          by[entry.node] = Substitute(entry.node.name, rule.as, inst)
          if entry.where then
            kit.set_where(by[entry.node], entry.where)
          end
        end
        break
      end
    end
    if by[entry.node] ~= nil and entry.number > skip then
      skip = entry.last -- what was under it goes with it
    end
  end
  for ri, rule in ipairs(rules) do
    if count[ri] == nil then
      local hint = rule.key == "path" and " (" .. near(list, rule.value) .. ")" or ""
      error(string.format("substitute: %s matches no node of the tree '%s'%s", rule.label, list[1].path,
        hint), 0)
    end
  end
  local n = 0
  for _, entry in ipairs(list) do
    local sub = entry.parent ~= nil and by[entry.node]
    if sub then
      edit(entry.parent, entry.index, sub)
      n = n + 1
    end
  end
  return n
end

local function edit_list(parent, index, node)
  parent.children[index] = node
end

-- An edit of a live children list; a list of a shared definition's node cannot change.
local function edit_live(parent, index, node)
  local ok = pcall(edit_list, parent, index, node)
  if not ok then
    error(string.format("substitute: node '%s' belongs to a shared definition (bt.define), whose " ..
      "nodes cannot change: substitute on its brain (T.substitute(brain, rules), world:substitute)",
      tostring(parent.name)), 0)
  end
end

-- Applies the rules to a tree built for one entity, through its live children lists.
local function substitute_tree(bt, kit, tree, rules)
  tree:GetSleepTime() -- edits made before are compiled: the paths are the tree's now
  local paths, counts, wheres = kit.paths(tree)
  apply_rules(bt, kit, rules, walk(tree.root, paths, counts, wheres), tree.inst, edit_live)
end

-- The entities whose trees get rules: inst -> {rules = list, brain = the brain or nil, defs =
-- definition -> its substituted copy}
local registry = setmetatable({}, {__mode = "k"})

local function brain_class_of(reg, inst)
  local brain = reg.brain or (type(inst) == "table" and rawget(inst, "brain")) or nil
  return brain ~= nil and getmetatable(brain) or nil
end

-- The definition def with the rules applied, made from def's brain class (bt.SharedBrain).
local function substitute_definition(bt, kit, reg, inst, def)
  local copy = reg.defs[def]
  if copy ~= nil then
    return copy
  end
  local cls = brain_class_of(reg, inst)
  local redefine = cls ~= nil and rawget(cls, "_redefine") or nil
  if redefine == nil or rawget(cls, "GetDefinition") == nil or cls.GetDefinition() ~= def then
    error("substitute: a tree of a shared definition (bt.define) is built for " .. fmt(inst) ..
      ", whose nodes the kit cannot copy: substitution in a shared tree works through its brain, a " ..
      "bt.SharedBrain(function) class (set inst.brain, or give the brain to T.substitute)", 0)
  end
  local paths, counts, wheres = kit.paths(def)
  copy = redefine(function(root)
    apply_rules(bt, kit, reg.rules, walk(root, paths, counts, wheres), nil, edit_list)
    return root
  end)
  reg.defs[def] = copy
  return copy
end

local wrapped = setmetatable({}, {__mode = "k"}) -- bt modules whose BT constructor is wrapped

local function wrap_bt(bt, kit)
  if wrapped[bt] then
    return
  end
  local mt = getmetatable(bt.BT)
  local real = mt.__call
  mt.__call = function(cls, inst, root, ...)
    local reg = inst ~= nil and registry[inst] or nil
    if reg == nil then
      return real(cls, inst, root, ...)
    end
    if type(root) == "userdata" then -- a definition
      return real(cls, inst, substitute_definition(bt, kit, reg, inst, root), ...)
    end
    local tree = real(cls, inst, root, ...)
    substitute_tree(bt, kit, tree, reg.rules)
    return tree
  end
  wrapped[bt] = true
end

-- Gives inst the rules (after those it has), for every tree built for it from now on.
function register_substitutions(inst, rules, brain)
  local old = registry[inst]
  local all = {}
  for _, r in ipairs(old ~= nil and old.rules or {}) do
    all[#all + 1] = r
  end
  for _, r in ipairs(rules) do
    all[#all + 1] = r
  end
  registry[inst] = {rules = all, brain = brain or (old and old.brain), defs = setmetatable({}, {__mode = "k"})}
end

-- A Brain object (not a class: a class holds its members itself)
local function is_brain(bt, v)
  return type(v) == "table" and rawget(v, "is_a") == nil and type(v.is_a) == "function" and v:is_a(bt.Brain)
end

-- A started brain builds its tree again (Stop, then Start) so that the rules apply to it.
local function restart(brain)
  if rawget(brain, "bt") ~= nil and not brain.stopped then
    brain:Stop()
    brain:Start()
  end
end

-- substitute(target, rules): target is a tree built for one entity (bt.BT(inst, root): edited
-- now), or a Brain (its trees from now on; a started one is restarted). rules: a list of
-- {path = | name = | class = , as = }, or one such rule.
function T.substitute(target, rules)
  local bt, kit = load_bt()
  local kind = type(target) == "userdata" and (getmetatable(target) or {}).__name or nil
  if kind ~= "BT" and not is_brain(bt, target) then
    error(string.format("bad argument #1 to 'substitute' (BT or Brain expected, got %s)",
      kind or type(target)), 2)
  end
  local list = check_rules(rules, "substitute", 2)
  wrap_bt(bt, kit)
  if kind == "BT" then
    local ok, err = pcall(substitute_tree, bt, kit, target, list)
    if not ok then
      error(err, 2)
    end
    return
  end
  local old = registry[target.inst]
  register_substitutions(target.inst, list, target)
  local ok, err = pcall(restart, target)
  if not ok then -- the rules do not fit its tree: it goes on as it was
    registry[target.inst] = old
    if target.stopped then
      target:Start()
    end
    error(err, 2)
  end
end

-- world:substitute(rules): the rules for every tree built for an entity of this world, those
-- spawned later too; brains started already are restarted.
function World:substitute(rules)
  local bt, kit = load_bt()
  local list = check_rules(rules, "substitute", 1)
  wrap_bt(bt, kit)
  local mine = self.substitutions or {}
  local before = #mine
  for _, r in ipairs(list) do
    mine[#mine + 1] = r
  end
  self.substitutions = mine
  local olds, started = {}, {}
  for i, e in ipairs(self.entities) do
    olds[i] = registry[e]
    register_substitutions(e, list)
    local brain = e.brain
    if brain ~= nil and rawget(brain, "bt") ~= nil and not brain.stopped then
      started[#started + 1] = brain
    end
  end
  for _, brain in ipairs(started) do
    local ok, err = pcall(restart, brain)
    if not ok then -- the rules do not fit a tree: every brain goes on as it was
      for i, e in ipairs(self.entities) do
        registry[e] = olds[i]
      end
      for i = #mine, before + 1, -1 do
        mine[i] = nil
      end
      for _, b in ipairs(started) do
        if not b.stopped then
          b:Stop()
        end
        b:Start()
      end
      error(err, 2)
    end
  end
end

-- T.substitutes(tree or brain): the paths of the kit's leaves in its tree, in pre-order.
function T.substitutes(target)
  local bt, kit = load_bt()
  if is_brain(bt, target) then
    target = rawget(target, "bt")
  end
  local kind = type(target) == "userdata" and (getmetatable(target) or {}).__name or nil
  if kind ~= "BT" then
    error(string.format("bad argument #1 to 'substitutes' (BT or Brain with a tree expected, got %s)",
      kind or type(target)), 2)
  end
  target:GetSleepTime()
  local paths, counts = kit.paths(target)
  local Substitute = substitute_class(bt)
  local out = {}
  for _, e in ipairs(walk(target.root, paths, counts)) do
    if getmetatable(e.node) == Substitute then
      out[#out + 1] = e.path
    end
  end
  return out
end

-- ---- checks over time: what a brain did (docs/bt-test.md "Checking what a brain did") ----
-- T.trace(target) keeps every record of a tree's recorder from now on (bt_trace of the C kit,
-- through the module bt.testkit), and asks them after the run: nodes by path, times in the tree's
-- clock. bt and bt.testkit are required here, when a trace is made, never when this file loads.

local Trace = {__name = "bt.test.trace"}
Trace.__index = Trace

local STATUSES = {READY = true, SUCCESS = true, FAILED = true, RUNNING = true}

local function argerror(i, fname, msg, level)
  error(string.format("bad argument #%d to '%s' (%s)", i, fname, msg), (level or 2) + 1)
end

local function check_time(v, i, fname)
  if type(v) ~= "number" or v ~= v then
    argerror(i, fname, "time expected, got " .. (v ~= v and "nan" or type(v)), 3)
  end
  return v
end

local function check_status(v, i, fname)
  if not STATUSES[v] then
    argerror(i, fname, "a status expected (\"READY\", \"SUCCESS\", \"FAILED\" or \"RUNNING\"), got " ..
      (type(v) == "string" and "'" .. v .. "'" or type(v)), 3)
  end
  return v
end

-- The path at argument i of fname, known to a tree of the trace (else an error naming it).
local function check_path(self, v, i, fname)
  if type(v) ~= "string" then
    argerror(i, fname, "path expected, got " .. type(v), 3)
  end
  local found, msg = self._kit.trace_first(self._c, v, nil, -math.huge)
  if found == nil then
    argerror(i, fname, msg, 3)
  end
  return v
end

-- The trace of each recorder (a recorder has one at most): tracing a target again gives the same.
local traces = setmetatable({}, {__mode = "k"})

-- The trace of a tree, a brain or a bt.Recorder (a brain's and a tree's recorder is the one it has,
-- or one of capacity 0: the trace keeps every record), or nil when target is none of these.
local function new_trace(target)
  local kit = require "bt.testkit"
  local rec = kit.recorder(target)
  if rec == nil then
    return nil
  end
  local trace = traces[rec]
  if trace == nil or trace.detached then
    trace = setmetatable({_kit = kit, _c = kit.trace(rec), recorder = rec, last = 10}, Trace)
    traces[rec] = trace
  end
  return trace
end

-- trace(target): a trace of a tree (bt.BT), a brain (whichever tree it has: brain:Record), a
-- bt.Recorder, or of a world: then a table of traces by entity, one for each entity that has a
-- brain (ent.brain).
function T.trace(target)
  if getmetatable(target) == World then
    local traces = {}
    for _, ent in ipairs(target.entities) do
      if ent.brain ~= nil then
        traces[ent] = new_trace(ent.brain)
      end
    end
    return traces
  end
  local trace = new_trace(target)
  if trace == nil then
    argerror(1, "trace", "a tree, a brain, a bt.Recorder or a world expected, got " .. type(target))
  end
  return trace
end

-- The records kept.
function Trace:count()
  return self._kit.trace_count(self._c)
end

-- Stops taking records (those kept can still be asked).
function Trace:detach()
  self._kit.trace_detach(self._c)
  self.detached = true
end

-- The paths of the deepest nodes running at time t, in pre-order (several under a Parallel).
function Trace:running_at(t)
  check_time(t, 1, "running_at")
  return self._kit.trace_running_at(self._c, t)
end

-- The node's status at time t: "READY", "SUCCESS", "FAILED" or "RUNNING".
function Trace:status_at(path, t)
  if type(path) ~= "string" then
    argerror(1, "status_at", "path expected, got " .. type(path))
  end
  check_time(t, 2, "status_at")
  local status, msg = self._kit.trace_status_at(self._c, path, t)
  if status == nil then
    argerror(1, "status_at", msg)
  end
  return status
end

-- The first time, at `after` or later (default: ever), the node went to `status`; nil if never.
function Trace:first(path, status, after)
  check_path(self, path, 1, "first")
  check_status(status, 2, "first")
  if after ~= nil then
    check_time(after, 3, "first")
  end
  return self._kit.trace_first(self._c, path, status, after or -math.huge) or nil
end

-- Whether the node ever ran (went RUNNING), whether it was ever visited (went other than READY).
function Trace:ran(path)
  check_path(self, path, 1, "ran")
  return self._kit.trace_first(self._c, path, "RUNNING", -math.huge) ~= false
end

function Trace:visited(path)
  check_path(self, path, 1, "visited")
  return self._kit.trace_first(self._c, path, nil, -math.huge) ~= false
end

-- Every status change in order, {time = , path = , from = , to = }; with `paths` (a path or a
-- list of them), those of these nodes only.
function Trace:transitions(paths)
  local wanted
  if paths ~= nil then
    if type(paths) == "string" then
      paths = {paths}
    elseif type(paths) ~= "table" then
      argerror(1, "transitions", "a path or a list of paths expected, got " .. type(paths))
    end
    wanted = {}
    for _, p in ipairs(paths) do
      wanted[check_path(self, p, 1, "transitions")] = true
    end
  end
  local all = self._kit.trace_transitions(self._c)
  if wanted == nil then
    return all
  end
  local out = {}
  for _, tr in ipairs(all) do
    if wanted[tr.path] then
      out[#out + 1] = tr
    end
  end
  return out
end

-- Every think in order, {time = , sleep = } (sleep nil: it asked for none, and hibernates).
function Trace:sleeps()
  return self._kit.trace_sleeps(self._c)
end

-- The sleep time the last think at or before t asked for (nil: none), and that think's time.
function Trace:sleep_at(t)
  check_time(t, 1, "sleep_at")
  local found, sleep, when = self._kit.trace_sleep_at(self._c, t)
  if found == nil then
    argerror(1, "sleep_at", sleep)
  end
  return sleep, when
end

-- The tree at time t, in the dump's layout, with the statuses the records leave then.
function Trace:dump_at(t)
  check_time(t, 1, "dump_at")
  local text, msg = self._kit.trace_dump_at(self._c, t)
  if text == nil then
    argerror(1, "dump_at", msg)
  end
  return text
end

-- The time of the last record kept (-inf: none).
local function last_time(self)
  local last = -math.huge
  local sleeps, trs = self:sleeps(), self._kit.trace_transitions(self._c)
  if #sleeps > 0 then last = math.max(last, sleeps[#sleeps].time) end
  if #trs > 0 then last = math.max(last, trs[#trs].time) end
  return last
end

-- A failed check's text at time t: what was expected, the tree then, the last `trace.last`
-- transitions (default 10) up to then.
function Trace:failure(t, expected)
  check_time(t, 1, "failure")
  if type(expected) ~= "string" then
    argerror(2, "failure", "string expected, got " .. type(expected))
  end
  return self._kit.trace_failure(self._c, t, expected, self.last)
end

-- Raises the failure's text as an error of the caller of the expect_* method that failed.
local function fail(self, t, expected)
  if t == -math.huge then
    t = 0
  end
  error(self:failure(t, expected), 3)
end

local function fmt_time(t)
  return string.format("%.4f", t)
end

-- expect_running(t, path): the node is RUNNING at time t.
function Trace:expect_running(t, path)
  check_time(t, 1, "expect_running")
  check_path(self, path, 2, "expect_running")
  local status, msg = self._kit.trace_status_at(self._c, path, t)
  if status == nil then
    argerror(2, "expect_running", msg)
  end
  if status ~= "RUNNING" then
    local running = self:running_at(t)
    fail(self, t, string.format("%s RUNNING at %s; it was %s (running then: %s)", path, fmt_time(t), status,
      #running > 0 and table.concat(running, ", ") or "nothing"))
  end
end

-- expect_within(path, status, from, seconds): the node goes to `status` at `from` or later, and
-- no later than `seconds` after it. Returns the time it did.
function Trace:expect_within(path, status, from, seconds)
  check_path(self, path, 1, "expect_within")
  check_status(status, 2, "expect_within")
  check_time(from, 3, "expect_within")
  if type(seconds) ~= "number" or not (seconds >= 0) then
    argerror(4, "expect_within", "seconds expected (a number from 0), got " .. tostring(seconds))
  end
  local by = from + seconds
  local when = self:first(path, status, from)
  if when == nil or when > by + EPSILON then
    fail(self, by, string.format("%s %s within %g s of %s (by %s); %s", path, status, seconds, fmt_time(from),
      fmt_time(by), when and "it was first at " .. fmt_time(when) or "it never was from " .. fmt_time(from) .. " on"))
  end
  return when
end

-- expect_order(list[, after]): these transitions happened in this order (others between them
-- allowed), at `after` or later. An item is a path (the node was visited: went other than
-- READY) or {path, status} (it went to that status).
function Trace:expect_order(list, after)
  if type(list) ~= "table" or #list == 0 then
    argerror(1, "expect_order", "a list of paths or {path, status} expected")
  end
  if after ~= nil then
    check_time(after, 2, "expect_order")
  end
  local items, names = {}, {}
  for i, item in ipairs(list) do
    local path, status = item, nil
    if type(item) == "table" then
      path, status = item[1], item[2]
      if type(path) ~= "string" or not STATUSES[status] then
        argerror(1, "expect_order", string.format("item %d: a path or {path, status} expected", i))
      end
    end
    check_path(self, path, 1, "expect_order")
    items[i] = {path = path, status = status}
    names[i] = status and path .. " " .. status or path .. " visited"
  end
  local k, at = 1, after or -math.huge
  for _, tr in ipairs(self._kit.trace_transitions(self._c)) do
    local item = items[k]
    if item == nil then
      break
    end
    if tr.time >= at - EPSILON and tr.path == item.path and
        (item.status == nil and tr.to ~= "READY" or tr.to == item.status) then
      k, at = k + 1, tr.time
    end
  end
  if k <= #items then
    local seen = k == 1 and (after and "from " .. fmt_time(after) .. " on" or "at all")
      or string.format("after %s at %s", names[k - 1], fmt_time(at))
    fail(self, last_time(self), string.format("in order: %s; item %d (%s) did not come %s",
      table.concat(names, ", "), k, names[k], seen))
  end
end

-- expect_never(path[, status]): the node never went to `status` (without one: was never visited).
function Trace:expect_never(path, status)
  check_path(self, path, 1, "expect_never")
  if status ~= nil then
    check_status(status, 2, "expect_never")
  end
  local when = self._kit.trace_first(self._c, path, status, -math.huge)
  if when then
    fail(self, when, string.format("%s never %s; it was at %s", path, status or "visited", fmt_time(when)))
  end
end

-- expect_sleep(t, seconds): the last think at or before t asked for a sleep of `seconds` (nil:
-- none, the brain hibernates).
function Trace:expect_sleep(t, seconds)
  check_time(t, 1, "expect_sleep")
  if seconds ~= nil and (type(seconds) ~= "number" or seconds ~= seconds) then
    argerror(2, "expect_sleep", "seconds or nil expected, got " .. type(seconds))
  end
  local sleep, when = self:sleep_at(t)
  local same
  if seconds == nil or sleep == nil then
    same = seconds == sleep
  else
    same = math.abs(sleep - seconds) <= EPSILON * (1 + math.abs(seconds))
  end
  if not same then
    local function says(s) return s == nil and "none (it hibernates)" or string.format("%g s", s) end
    fail(self, t, string.format("the think at %s or before to ask for a sleep of %s; the think at %s asked for %s",
      fmt_time(t), says(seconds), fmt_time(when), says(sleep)))
  end
end

-- ---- coverage (docs/bt-test.md "Coverage") ----
-- T.coverage(source[, shape]): what a run took of each tree, per node, from the recorder's
-- statistics (bt.Stats) through libbttest (the C module bt.testkit): source is a tree, a brain
-- (the statistics its recorder feeds, for its tree's shape), a BrainWrangler (its statistics), a
-- bt.Stats, a bt.Recorder, or a log file's path. An array of rows, one per node, shape by shape
-- in pre-order: {shape, node, name, path, where, covered, visited, succeeded, failed, ran,
-- interrupted}; cov:missing() the paths never visited, cov:report(format[, name]) and
-- cov:write(file, format[, name]) the report as text, lcov or Cobertura. bt and bt.testkit are
-- loaded here, not with the file (T.world and the rest need no bt).
local Coverage = {}
Coverage.__index = Coverage
local coverage_handles = setmetatable({}, {__mode = "k"}) -- a coverage's bt.testkit object

local function coverage_error(msg)
  error("bad argument #1 to 'coverage' (" .. msg .. ")", 3)
end

-- The recorder of a tree (a userdata with a recorder method), or false for anything else.
local function tree_recorder(source)
  local ok, method = pcall(function() return source.recorder end)
  if not ok or type(method) ~= "function" then return false end
  return source:recorder()
end

-- What bt.testkit.coverage takes for source: a bt.Stats, a bt.Recorder or a path.
local function coverage_source(source)
  local bt = require "bt"
  local kind = type(source)
  if kind == "string" then return source end
  local mt = getmetatable(source)
  local name = type(mt) == "table" and rawget(mt, "__name")
  if name == "Stats" or name == "Recorder" then return source end
  if kind == "table" and type(source.is_a) == "function" then
    if source:is_a(bt.BrainWrangler) then
      return rawget(source, "_stats")
        or coverage_error("the wrangler keeps no statistics: Record{stats = true} switches them on")
    elseif source:is_a(bt.Brain) then
      local tree = rawget(source, "bt")
      local rec = tree and tree:recorder() or rawget(source, "recorder")
      if not (rec and rec:stats()) then
        coverage_error("the brain keeps no statistics: brain:Record{stats = true} or its wrangler's Record{stats = true} switches them on")
      end
      return rec
    end
  end
  if kind == "userdata" then
    local rec = tree_recorder(source)
    if rec ~= false then
      if not (rec and rec:stats()) then
        coverage_error("the tree keeps no statistics: tree:record{stats = true} switches them on")
      end
      return rec
    end
  end
  coverage_error("a tree, a brain, a BrainWrangler, a bt.Stats, a bt.Recorder or a log file's path expected, got "
    .. (name or kind))
end

function T.coverage(source, shape)
  if shape ~= nil and type(shape) ~= "string" then
    error("bad argument #2 to 'coverage' (a shape's hash (16 hex digits) or nil expected, got " .. type(shape) .. ")", 2)
  end
  local kit = require "bt.testkit"
  local cov = kit.coverage(coverage_source(source), shape)
  local self = setmetatable(cov:rows(), Coverage)
  coverage_handles[self] = cov
  return self
end

-- cov:missing(): the paths of the nodes never visited, in the rows' order.
function Coverage:missing()
  local paths = {}
  for _, row in ipairs(self) do
    if not row.covered then paths[#paths + 1] = row.path end
  end
  return paths
end

-- cov:row(path[, shape]): the row of the node at that path (of that shape), or nil.
function Coverage:row(path, shape)
  for _, row in ipairs(self) do
    if row.path == path and (shape == nil or row.shape == shape) then return row end
  end
  return nil
end

-- cov:report([format[, name]]): "text" (the default), "lcov" or "cobertura".
function Coverage:report(format, name)
  return coverage_handles[self]:report(format, name)
end

-- cov:write(file, [format[, name]]): writes the report to the file (a path).
function Coverage:write(file, format, name)
  if type(file) ~= "string" then
    error("bad argument #1 to 'write' (a file's path expected, got " .. type(file) .. ")", 2)
  end
  local text = coverage_handles[self]:report(format, name)
  local f, err = io.open(file, "wb")
  if not f then error("write: " .. err, 2) end
  f:write(text)
  f:close()
  return self
end

-- ---- comparing with a recorded session (docs/bt-test.md) ----
-- The C comparer of the test kit (bt_diff, through bt.testkit): agents matched by id, records
-- compared in order, nodes by path. bt.testkit (and so bt) is required here, when used.

local function testkit()
  return require "bt.testkit"
end

local function check_log_path(fname, n, v)
  if type(v) ~= "string" then
    error(("bad argument #%d to '%s' (a log file's path expected, got %s)"):format(n, fname, type(v)), 3)
  end
end

-- T.diff(a, b): compares two log files; returns rows (an entry per agent that differs or is in
-- one log only, in the order first seen), summary and the report's text.
function T.diff(a, b)
  check_log_path("diff", 1, a)
  check_log_path("diff", 2, b)
  local rows, summary, report = testkit().diff_logs(a, b)
  if not rows then
    error(("bad argument to 'diff' (%s)"):format(summary), 2)
  end
  return rows, summary, report
end

local Check = {}
Check.__index = Check

-- T.check(path): a check of a live run against the log at path: watch trees, brains or
-- recorders, run, then finish.
function T.check(path)
  check_log_path("check", 1, path)
  local handle, err = testkit().diff_check(path)
  if not handle then
    error(("bad argument #1 to 'check' (%s)"):format(err), 2)
  end
  return setmetatable({handle = handle, path = path}, Check)
end

-- check:watch(target): the records of a tree, a brain or a bt.Recorder are compared with the
-- log's from now on, as they are made. Returns the recorder.
function Check:watch(target)
  if self.done then
    error("bad self to 'watch' (the check is finished)", 2)
  end
  local rec = testkit().recorder(target) -- one of capacity 0 if it has none: the check takes every record
  if rec == nil then
    error(("bad argument #1 to 'watch' (a tree, a brain or a bt.Recorder expected, got %s)"):format(type(target)), 2)
  end
  testkit().diff_watch(self.handle, rec)
  return rec
end

-- check:finish(): the log is read to its end; returns rows, summary and report as T.diff.
function Check:finish()
  if self.done then
    error("bad self to 'finish' (the check is finished)", 2)
  end
  self.done = true
  local rows, summary, report = testkit().diff_finish(self.handle)
  if not rows then
    error(("bad self to 'finish' (%s)"):format(summary), 2)
  end
  return rows, summary, report
end

-- check:expect_same(): finish, and raise the report when the run and the log differ.
function Check:expect_same()
  local rows, summary, report = self:finish()
  if #rows > 0 then
    error(("the run differs from %s:\n%s"):format(self.path, report), 2)
  end
  return summary
end

return T
