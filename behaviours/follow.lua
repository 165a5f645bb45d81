-- SPDX-License-Identifier: MIT
-- follow.lua: Follow, Don't Starve's keep-within-a-band follower (docs/behaviours.md),
-- written anew against docs/entity.md.
--
--   Follow(inst, target, min_dist, target_dist, max_dist, canrun, alwayseval, inlimbo_invalid)
--
-- target: an entity or a function of inst returning one. The three distances: numbers or
-- functions of inst, evaluated when a new target is picked (or on every start with alwayseval,
-- the default). READY: closer than min_dist -> RUNNING "BACKOFF"; farther than max_dist ->
-- RUNNING "APPROACH"; in between (or no target) -> FAILED, so lower priorities run.
-- APPROACH: SUCCESS within target_dist, else GoToPoint(target), running (if canrun, the default)
-- when beyond 0.75 * max_dist or when it is already running. BACKOFF: SUCCESS beyond target_dist,
-- else move straight away. FAILED and stop when the target is gone or dead. Sleeps .25 s.
-- inlimbo_invalid is accepted for Don't Starve's signature and ignored (no limbo here).
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local Follow = bt.Class(bt.BehaviourNode, function(self, inst, target, min_dist, target_dist, max_dist,
                                                   canrun, alwayseval, inlimbo_invalid)
  bt.BehaviourNode._ctor(self, "Follow")
  self.inst = inst
  self.target = target
  self.min_dist_arg = min_dist
  self.target_dist_arg = target_dist
  self.max_dist_arg = max_dist
  self.canrun = canrun ~= false
  self.alwayseval = alwayseval ~= false
  self.inlimbo_invalid = inlimbo_invalid
  self.action = "STAND"
end)

function Follow:GetTarget()
  local target = util.value(self.target, self.inst)
  if target ~= nil and target:IsValid() then
    return target
  end
  return nil
end

function Follow:EvaluateDistances()
  self.min_dist = util.value(self.min_dist_arg, self.inst)
  self.target_dist = util.value(self.target_dist_arg, self.inst)
  self.max_dist = util.value(self.max_dist_arg, self.inst)
end

function Follow:Visit()
  local inst = self.inst
  local dsq, tx, ty
  if self.status == bt.READY then
    local prev = self.currenttarget
    self.currenttarget = self:GetTarget()
    if self.currenttarget ~= nil then
      tx, ty = self.currenttarget:GetPosition()
      dsq = inst:GetDistanceSqTo(tx, ty)
      if prev ~= self.currenttarget or self.alwayseval or self.min_dist == nil then
        self:EvaluateDistances()
      end
      if dsq < self.min_dist * self.min_dist then
        self.status = bt.RUNNING
        self.action = "BACKOFF"
      elseif dsq > self.max_dist * self.max_dist then
        self.status = bt.RUNNING
        self.action = "APPROACH"
      else
        self.status = bt.FAILED
      end
    else
      self.status = bt.FAILED
    end
  end

  if self.status == bt.RUNNING then
    local target = self.currenttarget
    if target == nil or not target:IsValid() or target:IsDead() then
      self.status = bt.FAILED
      inst:Stop()
      return
    end
    if dsq == nil then
      tx, ty = target:GetPosition()
      dsq = inst:GetDistanceSqTo(tx, ty)
    end
    if self.action == "APPROACH" then
      if dsq < self.target_dist * self.target_dist then
        self.status = bt.SUCCESS
        return
      end
      local far = self.max_dist * .75
      local run = self.canrun and (dsq > far * far or (self.ran and inst:IsMoving())) or false
      inst:GoToPoint(tx, ty, run)
      self.ran = run
    elseif self.action == "BACKOFF" then
      if dsq > self.target_dist * self.target_dist then
        self.status = bt.SUCCESS
        return
      end
      local x, y = inst:GetPosition()
      local away = util.angle(tx, ty, x, y)
      if self.canrun then
        inst:RunInDirection(away)
      else
        inst:WalkInDirection(away)
      end
      self.ran = self.canrun
    end
    self:Sleep(.25)
  end
end

function Follow:DBString()
  local target = self.currenttarget
  local dist = 0
  if target ~= nil and target:IsValid() then
    local tx, ty = target:GetPosition()
    dist = math.sqrt(self.inst:GetDistanceSqTo(tx, ty))
  end
  return string.format("%s %s, (%2.2f)", util.describe(target), self.action, dist)
end

-- Saved games (docs/lua-api.md "Saved games"): the target being followed (an entity, by its id:
-- one that is gone comes back nil, and a running Follow fails and stops at its next think), the
-- action, whether its last order was to run, and the distances evaluated for that target.
function Follow:OnSave()
  return {currenttarget = self.currenttarget, action = self.action, ran = self.ran,
          min_dist = self.min_dist, target_dist = self.target_dist, max_dist = self.max_dist}
end

function Follow:OnLoad(data)
  self.currenttarget = data.currenttarget
  self.action = data.action or "STAND"
  self.ran = data.ran
  self.min_dist, self.target_dist, self.max_dist = data.min_dist, data.target_dist, data.max_dist
end

return Follow
