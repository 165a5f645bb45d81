-- SPDX-License-Identifier: MIT
-- faceentity.lua: FaceEntity, Don't Starve's "stop and look at someone" (docs/behaviours.md),
-- written anew against docs/entity.md.
--
--   FaceEntity(inst, getfn, keepfn, timeout, customalert)
--
-- READY: target = getfn(inst); with one it stops moving and becomes RUNNING, else FAILED.
-- RUNNING: SUCCESS once more than `timeout` seconds (if given) have passed since it started;
-- FAILED when the target is gone or keepfn(inst, target) is false; otherwise it turns to face
-- the target. Sleeps .5 s. Never succeeds by itself without a timeout. customalert (a stategraph
-- state in Don't Starve) is accepted and ignored: the host animates.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local FaceEntity = bt.Class(bt.BehaviourNode, function(self, inst, getfn, keepfn, timeout, customalert)
  bt.BehaviourNode._ctor(self, "FaceEntity")
  self.inst = inst
  self.getfn = getfn
  self.keepfn = keepfn
  self.timeout = timeout
  self.customalert = customalert
  self.starttime = 0
end)

function FaceEntity:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    self.target = self.getfn(inst)
    if self.target ~= nil then
      self.status = bt.RUNNING
      inst:Stop()
      self.starttime = bt.GetTime()
    else
      self.status = bt.FAILED
    end
  end

  if self.status == bt.RUNNING then
    local timeout = util.value(self.timeout, inst)
    if timeout ~= nil and bt.GetTime() - self.starttime > timeout then
      self.status = bt.SUCCESS
      return
    end
    local target = self.target
    if not (target ~= nil and target:IsValid() and self.keepfn(inst, target)) then
      self.status = bt.FAILED
    else
      inst:FacePoint(target:GetPosition())
    end
    self:Sleep(.5)
  end
end

function FaceEntity:DBString()
  return string.format("facing %s for %2.2f", util.describe(self.target), bt.GetTime() - self.starttime)
end

-- Saved games (docs/lua-api.md "Saved games"): the target (an entity, saved by its id: one that
-- is gone comes back nil, and the node fails at its next think) and the start, as seconds from
-- the save.
function FaceEntity:OnSave(ctx)
  return {target = self.target, started = self.starttime and self.starttime - ctx.now}
end

function FaceEntity:OnLoad(data, ctx)
  self.target = data.target
  self.starttime = data.started and ctx.now + data.started or ctx.now
end

return FaceEntity
