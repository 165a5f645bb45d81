-- SPDX-License-Identifier: MIT
-- probe.lua: the brain of check_arena.sh's own_writes check. Every tick each probe writes itself
-- and reads its writes back in the same think, as in a serial game; and it reads another probe,
-- which it must see as the last tick left it, not as that probe's scripts wrote it this tick
-- (whether they thought before it, in the same Lua state or in another). A failed check is a
-- script error ("probe: ..."); at tick 60 each probe prints how many checks it made.
local bt = require "bt"

local Probe = bt.Class(bt.BehaviourNode, function(self, inst)
  bt.BehaviourNode._ctor(self, "Probe")
  self.inst = inst
  self.checks = 0
end)

function Probe:check(ok, what)
  if not ok then
    error(string.format("probe %d at tick %d: %s", self.inst.id, self.tick, what), 2)
  end
  self.checks = self.checks + 1
end

-- what a probe does at tick t: moves on even ticks (its id added), stops on odd ones, and aims
-- at the probe after it on ticks that are multiples of 3
local function moves(id, t) return (id + t) % 2 == 0 end
local function aims(t) return t % 3 == 0 end

function Probe:Visit()
  local inst = self.inst
  self.status = bt.RUNNING -- thinks every tick
  local t = math.floor(bt.GetTime() * 30 + 0.5)
  self.tick = t
  local x, y = inst:GetPosition()

  -- its own writes, at once
  inst:GoToPoint(x + 3, y)
  self:check(inst:IsMoving(), "IsMoving() is false right after GoToPoint")
  inst:Stop()
  self:check(not inst:IsMoving(), "IsMoving() is true right after Stop")
  self:check(inst:StartAction("probe"), "StartAction refused")
  self:check(inst:IsBusy(), "IsBusy() is false right after StartAction")
  inst:WalkInDirection(0)
  self:check(inst:IsMoving() and not inst:IsBusy(), "WalkInDirection did not end the action and move")
  if not self.listening then
    self.listening = true
    inst:ListenForEvent("probe", function(_, data) self.heard = data end)
  end
  inst:PushEvent("probe", {tick = t})
  self:check(self.heard ~= nil and self.heard.tick == t, "an event pushed to itself was not heard at once")
  if not self.other then
    self.other = inst:FindEntity(1000, "probe")
  end
  local other = self.other
  inst:SetTarget(other)
  self:check(inst:GetTarget() == other, "GetTarget() is not the target SetTarget set")

  -- what it leaves for this tick, which the others see next tick
  inst:SetTarget(aims(t) and other or nil)
  if moves(inst.id, t) then
    inst:RunInDirection(t % 4 * 90)
  else
    inst:Stop()
  end
  self:check(inst:IsMoving() == moves(inst.id, t), "IsMoving() is not what it just asked")

  -- another probe, as the last tick left it
  if other and other:IsValid() and t > 1 then
    self:check(other:IsMoving() == moves(other.id, t - 1),
      string.format("probe %d: IsMoving() is not what it asked at the last tick", other.id))
    local aimed = other:GetTarget()
    self:check((aimed ~= nil) == aims(t - 1),
      string.format("probe %d: GetTarget() is not what it set at the last tick", other.id))
  end
  if t == 60 then
    print(string.format("probe %d: %d checks", inst.id, self.checks))
  end
end

return bt.SharedBrain(function()
  return bt.PriorityNode({ Probe(nil) }, 0.25, true)
end)
