-- SPDX-License-Identifier: MIT
-- doaction.lua: DoAction, Don't Starve's "perform a buffered action" (docs/behaviours.md),
-- written anew against docs/entity.md, where an action is a name and a target entity (or nil).
--
--   DoAction(inst, getactionfn, name, run, timeout)
--
-- getactionfn(inst) returns action, target[, reach] (e.g. "eat", grass), or nil. READY: no action
-- -> FAILED; else RUNNING. RUNNING: it walks (runs, if `run`, a boolean or function of inst) to
-- the target until within `reach` (default DoAction.reach, 1.5), then stops and calls
-- StartAction(action, target); FAILED if that refuses. The "actiondone" event for that action and
-- target gives the result: SUCCESS or FAILED as its `success` (even if the target is gone since).
-- Otherwise FAILED when the target stops being valid, when the entity is no longer busy, or after
-- `timeout` seconds. Like
-- Don't Starve's, it never sleeps: while it runs the brain thinks every tick. It listens to
-- "actiondone" from its first visit until OnStop.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local DoAction = bt.Class(bt.BehaviourNode, function(self, inst, getactionfn, name, run, timeout)
  bt.BehaviourNode._ctor(self, name or "DoAction")
  self.inst = inst
  self.getactionfn = getactionfn
  self.shouldrun = run
  self.timeout = timeout
end)

DoAction.reach = 1.5

function DoAction:Listen()
  if self.onactiondone ~= nil then
    return
  end
  self.onactiondone = function(_, data)
    -- a result for another action, or one that comes back after this one was given up, is stale
    if self.started and self.pendingstatus == nil and data ~= nil
        and data.action == self.act and data.target == self.acttarget then
      self.pendingstatus = data.success and bt.SUCCESS or bt.FAILED
    end
  end
  self.inst:ListenForEvent("actiondone", self.onactiondone)
end

function DoAction:OnStop()
  if self.onactiondone ~= nil then
    self.inst:RemoveEventCallback("actiondone", self.onactiondone)
    self.onactiondone = nil
  end
end

-- Walks towards the target, or starts the action once within reach.
function DoAction:Approach()
  local inst = self.inst
  local target = self.acttarget
  if target ~= nil then
    local tx, ty = target:GetPosition()
    if inst:GetDistanceSqTo(tx, ty) > self.actreach * self.actreach then
      if not inst:IsMoving() or tx ~= self.goalx or ty ~= self.goaly then
        self.goalx, self.goaly = tx, ty
        inst:GoToPoint(tx, ty, util.value(self.shouldrun, inst) and true or false)
      end
      return
    end
  end
  if inst:IsMoving() then
    inst:Stop()
  end
  self.started = true
  if not inst:StartAction(self.act, target) then
    self.started = false
    self.status = bt.FAILED
  end
end

function DoAction:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    self:Listen()
    local action, target, reach = self.getactionfn(inst)
    self.act, self.acttarget, self.actreach = action, target, reach or self.reach
    self.pendingstatus = nil
    self.started = false
    self.goalx, self.goaly = nil, nil
    self.targetgone, self.loaded = nil, nil
    if action then
      self.time = bt.GetTime()
      self.status = bt.RUNNING
    else
      self.status = bt.FAILED
    end
  end

  if self.status == bt.RUNNING then
    local target = self.acttarget
    if self.loaded then -- the first think after a saved game was loaded (OnLoad)
      self.loaded = nil
      if self.started and self.pendingstatus == nil and not inst:IsBusy() then
        -- the action it had started was not saved with the brain: start it again
        self.started = false
        self.goalx, self.goaly = nil, nil
      end
    end
    if not self.started and not self.targetgone and (target == nil or target:IsValid()) then
      self:Approach()
    end
    if self.status == bt.RUNNING then
      local timeout = util.value(self.timeout, inst)
      if timeout ~= nil and bt.GetTime() - self.time > timeout then
        self.status = bt.FAILED
      end
      -- a result that came wins, even if the target is gone since (eaten, say)
      if self.pendingstatus ~= nil then
        self.status = self.pendingstatus
      elseif self.targetgone or (target ~= nil and not target:IsValid()) then
        self.status = bt.FAILED
      elseif self.started and not inst:IsBusy() then
        self.status = bt.FAILED
      end
    end
    if self.status ~= bt.RUNNING then
      self.started = false
    end
  end
end

function DoAction:DBString()
  local phase = self.started and "doing" or "going to"
  return string.format("%s %s %s", phase, tostring(self.act), util.describe(self.acttarget))
end

-- Saved games (docs/lua-api.md "Saved games"): the action, its target (an entity, by its id),
-- reach and start (as seconds from the save, for the timeout), whether it was started, a result
-- that came and was not yet taken, the point it walks to, and whether it listens for
-- "actiondone". An action in flight in the world is the entity's, not the brain's: if the
-- entity is not busy at the first think after the load, the node starts the action again
-- (walking back within reach if need be), keeping its timeout clock. A target that is gone
-- (from_id gave nil) fails the node at that think, as an invalid target does.
function DoAction:OnSave(ctx)
  return {act = self.act, target = self.acttarget, had_target = self.acttarget ~= nil,
          reach = self.actreach, started = self.started, pending = self.pendingstatus,
          goalx = self.goalx, goaly = self.goaly, since = self.time and self.time - ctx.now,
          listening = self.onactiondone ~= nil}
end

function DoAction:OnLoad(data, ctx)
  self.act, self.acttarget, self.actreach = data.act, data.target, data.reach
  self.targetgone = data.had_target and data.target == nil or nil
  self.started, self.pendingstatus = data.started, data.pending
  self.goalx, self.goaly = data.goalx, data.goaly
  self.time = data.since and ctx.now + data.since
  self.loaded = true
  if data.listening and self.inst ~= nil then
    self:Listen()
  end
end

return DoAction
