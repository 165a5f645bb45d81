-- SPDX-License-Identifier: MIT
-- wander.lua: Wander, Don't Starve's idle roaming (docs/behaviours.md), written anew
-- against docs/entity.md. Always RUNNING once entered: it alternates a wait phase (standing still)
-- and a walk phase (towards a free point `wander_dist` away at a random angle, or the angle
-- getdirectionFn gives); when it is farther than max_dist from home it walks straight home.
-- Each phase lasts min + random * rand seconds, and the node sleeps for the phase.
--
--   Wander(inst, homelocation, max_dist, times, getdirectionFn, setdirectionFn, checkpointFn, data)
--
-- homelocation: nil (no leash), {x, y}, {x = , y = }, or a function of inst returning x, y.
-- max_dist: a number or a function of inst. times: {minwalktime = 2, randwalktime = 3,
-- minwaittime = 1, randwaittime = 3}. getdirectionFn(inst) -> angle in degrees or nil;
-- setdirectionFn(inst, angle); checkpointFn(inst, x, y) -> whether a candidate point is acceptable.
-- data: {wander_dist = 12 (number or function of inst), offest_attempts = 8, should_run
-- (boolean or function of inst)}. times and data given a list (or anything but a table or nil)
-- raise an argument error.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local Wander = bt.Class(bt.BehaviourNode, function(self, inst, homelocation, max_dist, times,
                                                    getdirectionFn, setdirectionFn, checkpointFn, data)
  bt.BehaviourNode._ctor(self, "Wander")
  self.inst = inst
  self.homepos = homelocation
  self.maxdist = max_dist
  self.getdirectionFn = getdirectionFn
  self.setdirectionFn = setdirectionFn
  self.checkpointFn = checkpointFn
  self.far_from_home = false
  util.options(times, 4, "Wander", "nil or a table {minwalktime, randwalktime, minwaittime, randwaittime}")
  util.options(data, 8, "Wander", "nil or a table {wander_dist, offest_attempts, should_run}")
  self.wander_dist = data and data.wander_dist or 12
  self.offset_attempts = data and (data.offest_attempts or data.offset_attempts) or 8
  self.should_run = data and data.should_run or nil
  -- built here once and only read afterwards: entities of a shared brain share this table
  self.times = {
    minwalktime = times and times.minwalktime or 2,
    randwalktime = times and times.randwalktime or 3,
    minwaittime = times and times.minwaittime or 1,
    randwaittime = times and times.randwaittime or 3,
  }
  self.times.no_wait_time = self.times.minwaittime <= 0 and self.times.randwaittime <= 0
end)

function Wander:GetHomePos()
  return util.position(self.homepos, self.inst)
end

function Wander:GetDistFromHomeSq()
  local hx, hy = self:GetHomePos()
  if hx == nil then
    return nil
  end
  return self.inst:GetDistanceSqTo(hx, hy)
end

function Wander:IsFarFromHome()
  local dsq = self:GetDistFromHomeSq()
  local maxdist = util.value(self.maxdist, self.inst)
  return dsq ~= nil and maxdist ~= nil and dsq > maxdist * maxdist
end

-- Starts a phase of t seconds.
function Wander:Wait(t)
  self.waittime = bt.GetTime() + t
  self:Sleep(t)
end

function Wander:HoldPosition()
  self.walking = false
  self.inst:Stop()
  self:Wait(self.times.minwaittime + math.random() * self.times.randwaittime)
end

-- A free point `radius` away in about the direction `angle`, accepted by checkpointFn when
-- there is one (then the other directions are tried too, evenly spread); nil if none.
function Wander:FindPoint(x, y, angle, radius)
  local inst = self.inst
  local tries = self.checkpointFn and math.max(1, self.offset_attempts) or 1
  for i = 0, tries - 1 do
    local a = (angle + i * 360 / tries) % 360
    local px, py = inst:GetWalkableOffset(x, y, a, radius)
    if px ~= nil and (self.checkpointFn == nil or self.checkpointFn(inst, px, py)) then
      return px, py
    end
  end
  return nil
end

function Wander:PickNewDirection()
  local inst = self.inst
  self.far_from_home = self:IsFarFromHome()
  self.walking = true
  if self.far_from_home then
    local hx, hy = self:GetHomePos()
    inst:GoToPoint(hx, hy, false)
  else
    local x, y = inst:GetPosition()
    local angle = self.getdirectionFn and self.getdirectionFn(inst)
    if not angle then
      angle = math.random() * 360
      if self.setdirectionFn then
        self.setdirectionFn(inst, angle)
      end
    end
    local radius = util.value(self.wander_dist, inst)
    local px, py = self:FindPoint(x, y, angle, radius)
    if px ~= nil then
      angle = util.angle(x, y, px, py)
      if self.setdirectionFn then
        self.setdirectionFn(inst, angle)
      end
    end
    local run = util.value(self.should_run, inst) and true or false
    if px ~= nil then
      inst:GoToPoint(px, py, run)
    elseif run then
      inst:RunInDirection(angle)
    else
      inst:WalkInDirection(angle)
    end
  end
  self:Wait(self.times.minwalktime + math.random() * self.times.randwalktime)
end

function Wander:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    inst:Stop()
    self:Wait(self.times.minwaittime + math.random() * self.times.randwaittime)
    self.walking = false
    self.status = bt.RUNNING
  elseif self.status == bt.RUNNING then
    if not self.walking and self:IsFarFromHome() then
      self:PickNewDirection()
    end
    local now = bt.GetTime()
    if now > self.waittime then
      if not self.walking or self.times.no_wait_time then
        self:PickNewDirection()
      else
        self:HoldPosition()
      end
    elseif not self.walking then
      self:Sleep(self.waittime - now)
    elseif not inst:IsMoving() then
      self:HoldPosition()
    end
  end
end

function Wander:DBString()
  local hx, hy = self:GetHomePos()
  local dsq = self:GetDistFromHomeSq()
  return string.format("%s for %2.2f, %s, %2.2f, %s",
    self.walking and "walk" or "wait",
    (self.waittime or bt.GetTime()) - bt.GetTime(),
    hx and util.point(hx, hy) or "no home",
    math.sqrt(dsq or 0),
    self.far_from_home and "Go Home" or "Go Wherever")
end

-- Saved games (docs/lua-api.md "Saved games"): the phase (walking or waiting), its end as
-- seconds from the save, and whether the last walk went home. The walk itself is the entity's
-- (its GoToPoint), which the game restores with the entity.
function Wander:OnSave(ctx)
  return {walking = self.walking, phase_left = self.waittime and self.waittime - ctx.now,
          far_from_home = self.far_from_home}
end

function Wander:OnLoad(data, ctx)
  self.walking = data.walking
  self.waittime = data.phase_left and ctx.now + data.phase_left
  self.far_from_home = data.far_from_home or false
end

return Wander
