-- SPDX-License-Identifier: MIT
-- chaseandattack.lua: ChaseAndAttack, Don't Starve's melee chase (docs/behaviours.md),
-- written anew against docs/entity.md.
--
--   ChaseAndAttack(inst, max_chase_time, give_up_dist, max_attacks, findnewtargetfn, walk)
--
-- READY: drops a target it may no longer attack, asks findnewtargetfn(inst) for one if it has
-- none, and with a target becomes RUNNING, else FAILED. RUNNING: the target gone -> FAILED (target
-- cleared, stop); dead -> SUCCESS (target cleared, stop). Otherwise it runs (walks if `walk`) to the
-- target until within attack range, then stops, faces it and calls TryAttack every think.
-- SUCCESS after max_attacks attacks (hits and misses); FAILED, giving the target up, when the
-- target is give_up_dist away or more, or when more than max_chase_time seconds have passed since
-- the chase started or since the last attack. Sleeps .125 s. The three limits are numbers, nil
-- (no limit) or functions of inst. It counts attacks by listening to "onattackother" and
-- "onmissother", from its first visit until OnStop.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.behaviours.x), "" in a game's or the source tree's behaviours/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)behaviours[./][^./]+$") or ""
local util = require(prefix .. "behaviours.util")

local ChaseAndAttack = bt.Class(bt.BehaviourNode, function(self, inst, max_chase_time, give_up_dist,
                                                            max_attacks, findnewtargetfn, walk)
  bt.BehaviourNode._ctor(self, "ChaseAndAttack")
  self.inst = inst
  self.max_chase_time = max_chase_time
  self.give_up_dist = give_up_dist
  self.max_attacks = max_attacks
  self.findnewtargetfn = findnewtargetfn
  self.walk = walk
  self.numattacks = 0
end)

-- Listens for the entity's attacks; done on the first visit, so that each entity of a shared
-- brain listens through its own copy.
function ChaseAndAttack:Listen()
  if self.onattackfn ~= nil then
    return
  end
  self.onattackfn = function()
    self:OnAttackOther()
  end
  self.inst:ListenForEvent("onattackother", self.onattackfn)
  self.inst:ListenForEvent("onmissother", self.onattackfn)
end

function ChaseAndAttack:OnStop()
  if self.onattackfn ~= nil then
    self.inst:RemoveEventCallback("onattackother", self.onattackfn)
    self.inst:RemoveEventCallback("onmissother", self.onattackfn)
    self.onattackfn = nil
  end
end

function ChaseAndAttack:OnAttackOther()
  self.numattacks = self.numattacks + 1
  self.startruntime = nil -- the chase timer restarts from the last attack
end

-- Gives up the target: clears it and stops.
function ChaseAndAttack:Finish(status)
  self.status = status
  self.inst:SetTarget(nil)
  self.inst:Stop()
end

function ChaseAndAttack:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    self:Listen()
    local target = inst:GetTarget()
    if target ~= nil and not inst:CanTarget(target) then
      inst:SetTarget(nil)
      target = nil
    end
    if target == nil and self.findnewtargetfn ~= nil then
      local found = self.findnewtargetfn(inst)
      if found ~= nil then
        inst:SetTarget(found)
        target = inst:GetTarget()
      end
    end
    if target ~= nil then
      self.startruntime = bt.GetTime()
      self.numattacks = 0
      self.status = bt.RUNNING
    else
      self.status = bt.FAILED
    end
  end

  if self.status == bt.RUNNING then
    local target = inst:GetTarget()
    if target == nil or not target:IsValid() then
      self:Finish(bt.FAILED)
    elseif target:IsDead() then
      self:Finish(bt.SUCCESS)
    else
      local tx, ty = target:GetPosition()
      local dsq = inst:GetDistanceSqTo(tx, ty)
      local range = inst:GetAttackRange()
      if dsq > range * range then
        inst:GoToPoint(tx, ty, not self.walk)
      else
        inst:Stop()
        inst:FacePoint(tx, ty)
      end
      if not inst:TryAttack(target) and self.startruntime == nil then
        self.startruntime = bt.GetTime()
      end

      local max_attacks = util.value(self.max_attacks, inst)
      local give_up_dist = util.value(self.give_up_dist, inst)
      local max_chase_time = util.value(self.max_chase_time, inst)
      if max_attacks ~= nil and self.numattacks >= max_attacks then
        self:Finish(bt.SUCCESS)
        return
      elseif (give_up_dist ~= nil and dsq >= give_up_dist * give_up_dist)
          or (max_chase_time ~= nil and self.startruntime ~= nil
              and bt.GetTime() - self.startruntime > max_chase_time) then
        self:Finish(bt.FAILED)
        return
      end
      self:Sleep(.125)
    end
  end
end

function ChaseAndAttack:DBString()
  local chase = self.startruntime and string.format("%2.2f", bt.GetTime() - self.startruntime) or "-"
  return string.format("target %s, attacks %d, chasing for %s",
    util.describe(self.inst:GetTarget()), self.numattacks, chase)
end

-- Saved games (docs/lua-api.md "Saved games"): the attacks counted, the chase clock (as seconds
-- from the save, nil while stopped) and whether it listens for attacks. The target is the
-- entity's own (inst:GetTarget()), saved with the entity by the game, not here.
function ChaseAndAttack:OnSave(ctx)
  return {numattacks = self.numattacks, chase_start = self.startruntime and self.startruntime - ctx.now,
          listening = self.onattackfn ~= nil}
end

function ChaseAndAttack:OnLoad(data, ctx)
  self.numattacks = data.numattacks or 0
  self.startruntime = data.chase_start and ctx.now + data.chase_start
  if data.listening and self.inst ~= nil then
    self:Listen() -- the saved node counted attacks: so does this one, from now on
  end
end

return ChaseAndAttack
