-- SPDX-License-Identifier: MIT
-- runaway.lua: RunAway, Don't Starve's flight from a "hunter" (docs/behaviours.md),
-- written anew against docs/entity.md.
--
--   RunAway(inst, hunterparams, see_dist, safe_dist, shouldrunfn, runhome, fix_overhang,
--           walk_instead, safe_point_fn)
--
-- hunterparams: a tag ("wolf"); a table {tags = , notags = , oneoftags = , fn = } (fn(ent, inst)
-- filters; a list where this table goes is an error); a function fn(ent, inst); or nil (any
-- entity). see_dist and safe_dist: numbers or functions of inst.
-- READY: the nearest hunter within see_dist (dropped if shouldrunfn(hunter, inst) is false):
-- RUNNING if there is one, else FAILED. RUNNING: FAILED and stop when the hunter is gone or dead.
-- With runhome and a home, it runs home (GoToPoint). Otherwise it runs (walks with walk_instead)
-- straight away from the hunter, or halfway between that and the direction of
-- safe_point_fn(inst) (x, y) when given, corrected by GetWalkableOffset; a corrected (deflected)
-- direction is kept for 1 s. SUCCESS and stop once farther than safe_dist. Sleeps .25 s.
-- fix_overhang is accepted for Don't Starve's signature and ignored (no ocean here).
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local RunAway = bt.Class(bt.BehaviourNode, function(self, inst, hunterparams, see_dist, safe_dist,
                                                    shouldrunfn, runhome, fix_overhang, walk_instead,
                                                    safe_point_fn)
  bt.BehaviourNode._ctor(self, "RunAway")
  self.inst = inst
  self.see_dist = see_dist
  self.safe_dist = safe_dist
  if type(hunterparams) == "string" then
    self.huntertags = {hunterparams}
  elseif type(hunterparams) == "function" or hunterparams == nil then
    self.hunterfn = hunterparams
  else
    util.options(hunterparams, 2, "RunAway", "a tag, a function or a table {tags, notags, oneoftags, fn}",
      "a list of tags is written {tags = {...}}")
    self.huntertags = hunterparams.tags
    self.hunternotags = hunterparams.notags
    self.hunteroneoftags = hunterparams.oneoftags
    self.hunterfn = hunterparams.fn
  end
  self.shouldrunfn = shouldrunfn
  self.runshomewhenchased = runhome
  self.fix_overhang = fix_overhang
  self.walk_instead = walk_instead
  self.safe_point_fn = safe_point_fn
end)

local function has_one_of(ent, tags)
  for _, tag in ipairs(tags) do
    if ent:HasTag(tag) then
      return true
    end
  end
  return false
end

function RunAway:FindHunter()
  local inst = self.inst
  local see_dist = util.value(self.see_dist, inst)
  if self.hunterfn == nil and self.hunteroneoftags == nil then
    return inst:FindEntity(see_dist, self.huntertags, self.hunternotags)
  end
  for _, ent in ipairs(inst:FindEntities(see_dist, self.huntertags, self.hunternotags)) do
    if (self.hunteroneoftags == nil or has_one_of(ent, self.hunteroneoftags))
        and (self.hunterfn == nil or self.hunterfn(ent, inst)) then
      return ent
    end
  end
  return nil
end

-- The direction to run in, in degrees, from (x, y), away from the hunter at (hx, hy), blended
-- towards the safe point (sx, sy) if any.
function RunAway:GetRunAngle(x, y, hx, hy, sx, sy)
  local now = bt.GetTime()
  if self.avoid_angle ~= nil then
    if now - self.avoid_time < 1 then
      return self.avoid_angle
    end
    self.avoid_time, self.avoid_angle = nil, nil
  end

  local angle = util.angle(hx, hy, x, y)
  if sx ~= nil then
    local away = math.rad(angle)
    local safe = math.rad(util.angle(x, y, sx, sy))
    local bx, by = math.cos(away) + math.cos(safe), math.sin(away) + math.sin(safe)
    if bx * bx + by * by > 1e-12 then
      angle = util.angle(0, 0, bx, by)
    end
  end

  local px, py = self.inst:GetWalkableOffset(x, y, angle, 6)
  if px == nil then
    return angle -- nowhere free: run anyway
  end
  local result = util.angle(x, y, px, py)
  if util.angle_diff(result, angle) > 1 then
    self.avoid_time, self.avoid_angle = now, result
  end
  return result
end

function RunAway:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    self.hunter = self:FindHunter()
    if self.hunter ~= nil and self.shouldrunfn ~= nil and not self.shouldrunfn(self.hunter, inst) then
      self.hunter = nil
    end
    self.status = self.hunter ~= nil and bt.RUNNING or bt.FAILED
  end

  if self.status == bt.RUNNING then
    local hunter = self.hunter
    if hunter == nil or not hunter:IsValid() or hunter:IsDead() then
      self.status = bt.FAILED
      inst:Stop()
      return
    end
    local homex, homey
    if self.runshomewhenchased then
      homex, homey = inst:GetHome()
    end
    if homex ~= nil then
      inst:GoToPoint(homex, homey, true)
    else
      local x, y = inst:GetPosition()
      local hx, hy = hunter:GetPosition()
      local sx, sy
      if self.safe_point_fn ~= nil then
        sx, sy = util.position(self.safe_point_fn, inst)
      end
      local angle = self:GetRunAngle(x, y, hx, hy, sx, sy)
      if self.walk_instead then
        inst:WalkInDirection(angle)
      else
        inst:RunInDirection(angle)
      end
      local safe_dist = util.value(self.safe_dist, inst)
      if util.distsq(x, y, hx, hy) > safe_dist * safe_dist then
        self.status = bt.SUCCESS
        inst:Stop()
      end
    end
    self:Sleep(.25)
  end
end

function RunAway:DBString()
  local hunter = self.hunter
  local dist = 0
  if hunter ~= nil and hunter:IsValid() then
    local hx, hy = hunter:GetPosition()
    dist = math.sqrt(self.inst:GetDistanceSqTo(hx, hy))
  end
  return string.format("from %s, %2.2f away, safe at %2.2f", util.describe(hunter), dist,
    util.value(self.safe_dist, self.inst) or 0)
end

-- Saved games (docs/lua-api.md "Saved games"): the hunter (an entity, by its id: one that is gone
-- comes back nil, and a running RunAway fails and stops at its next think) and a kept corrected
-- direction with its start, as seconds from the save.
function RunAway:OnSave(ctx)
  return {hunter = self.hunter, avoid_angle = self.avoid_angle,
          avoid_since = self.avoid_time and self.avoid_time - ctx.now}
end

function RunAway:OnLoad(data, ctx)
  self.hunter = data.hunter
  self.avoid_angle = data.avoid_angle
  self.avoid_time = data.avoid_since and ctx.now + data.avoid_since
  if self.avoid_time == nil then
    self.avoid_angle = nil
  end
end

return RunAway
