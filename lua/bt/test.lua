-- SPDX-License-Identifier: MIT
-- bt.test: the test helper for specs of brains and behaviours (docs/bt-test.md): a scripted world
-- whose entities implement the entity interface of docs/entity.md in Lua, log every call, and
-- give the answers a test scripts. An optional submodule of bt, installed beside the module as
-- bt/test.lua (Lua's module folder, share/lua/5.4, and the LuaRocks rock); plain Lua that does
-- not load bt itself. bt's own specs load it as fake_entity (tests/spec/fake_entity.lua).
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

-- ---- comparing with a recorded session (docs/bt-test.md) ----
-- The C comparer of the test kit (bt_diff, through bt.testkit): agents matched by id, records
-- compared in order, nodes by path. bt.testkit (and so bt) is required here, when used.

local function testkit()
  return require "bt.testkit"
end

local function check_path(fname, n, v)
  if type(v) ~= "string" then
    error(("bad argument #%d to '%s' (a log file's path expected, got %s)"):format(n, fname, type(v)), 3)
  end
end

-- T.diff(a, b): compares two log files; returns rows (an entry per agent that differs or is in
-- one log only, in the order first seen), summary and the report's text.
function T.diff(a, b)
  check_path("diff", 1, a)
  check_path("diff", 2, b)
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
  check_path("check", 1, path)
  local handle, err = testkit().diff_check(path)
  if not handle then
    error(("bad argument #1 to 'check' (%s)"):format(err), 2)
  end
  return setmetatable({handle = handle, path = path}, Check)
end

-- The recorder of a bt.Recorder, a brain (brain.recorder, or one brain:Record makes) or a tree
-- (tree:recorder(), or one tree:record makes): capacity 0, the records go to the check only.
local function recorder_of(target)
  local t = type(target)
  if t == "table" and type(target.Record) == "function" then
    return rawget(target, "recorder") or target:Record({capacity = 0})
  end
  if t == "userdata" or t == "table" then
    local ok, rec = pcall(function() return target:recorder() end)
    if ok then
      return rec or target:record({capacity = 0})
    end
    if t == "userdata" then
      return target -- a bt.Recorder (bt.testkit checks it)
    end
  end
  error(("bad argument #1 to 'watch' (a tree, a brain or a bt.Recorder expected, got %s)"):format(t), 3)
end

-- check:watch(target): the records of a tree, a brain or a bt.Recorder are compared with the
-- log's from now on, as they are made. Returns the recorder.
function Check:watch(target)
  if self.done then
    error("bad self to 'watch' (the check is finished)", 2)
  end
  local rec = recorder_of(target)
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
