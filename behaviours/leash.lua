-- SPDX-License-Identifier: MIT
-- leash.lua: Leash, Don't Starve's "don't stray too far from home" (docs/behaviours.md),
-- written anew against docs/entity.md.
--
--   Leash(inst, homelocation, max_dist, inner_return_dist, running)
--
-- homelocation: {x, y}, {x = , y = }, or a function of inst returning x, y (nil: no home).
-- max_dist, inner_return_dist: numbers or functions of inst; running: a boolean or a function
-- of inst. No home -> FAILED. READY: inside max_dist -> FAILED; else stop and RUNNING. RUNNING:
-- walks (or runs) home with GoToPoint on every think until inside inner_return_dist, then
-- SUCCESS (a hysteresis band). Like Don't Starve's it never sleeps: while it runs the brain
-- thinks every tick.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local Leash = bt.Class(bt.BehaviourNode, function(self, inst, homelocation, max_dist, inner_return_dist,
                                                  running)
  bt.BehaviourNode._ctor(self, "Leash")
  self.inst = inst
  self.homepos = homelocation
  self.maxdist = max_dist
  self.returndist = inner_return_dist
  -- named `run`, not Don't Starve's `running`: bt.define strips that name from node templates
  self.run = running or false
end)

function Leash:GetHomePos()
  return util.position(self.homepos, self.inst)
end

function Leash:GetDistFromHomeSq()
  local hx, hy = self:GetHomePos()
  if hx == nil then
    return nil
  end
  return self.inst:GetDistanceSqTo(hx, hy)
end

function Leash:Visit()
  local inst = self.inst
  local hx, hy = self:GetHomePos()
  if hx == nil then
    self.status = bt.FAILED
  elseif self.status == bt.READY then
    local maxdist = util.value(self.maxdist, inst)
    if inst:GetDistanceSqTo(hx, hy) < maxdist * maxdist then
      self.status = bt.FAILED
    else
      inst:Stop()
      self.status = bt.RUNNING
    end
  elseif self.status == bt.RUNNING then
    local returndist = util.value(self.returndist, inst)
    if inst:GetDistanceSqTo(hx, hy) > returndist * returndist then
      inst:GoToPoint(hx, hy, util.value(self.run, inst) and true or false)
    else
      self.status = bt.SUCCESS
    end
  end
end

function Leash:DBString()
  local hx, hy = self:GetHomePos()
  return string.format("%s, %2.2f", hx and util.point(hx, hy) or "no home",
    math.sqrt(self:GetDistFromHomeSq() or 0))
end

return Leash
