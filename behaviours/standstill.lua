-- SPDX-License-Identifier: MIT
-- standstill.lua: StandStill, Don't Starve's "stay put" (docs/behaviours.md), written
-- anew against docs/entity.md.
--
--   StandStill(inst, startfn, keepfn)
--
-- READY: starts (RUNNING, and stops moving) when there is no startfn or startfn(inst) is true,
-- else FAILED. RUNNING: while there is no keepfn or keepfn(inst) is true it stops the entity
-- again on every think, else FAILED. Sleeps .5 s. Never succeeds.
local bt = require "bt"

local StandStill = bt.Class(bt.BehaviourNode, function(self, inst, startfn, keepfn)
  bt.BehaviourNode._ctor(self, "StandStill")
  self.inst = inst
  self.startfn = startfn
  self.keepfn = keepfn
end)

function StandStill:Visit()
  local inst = self.inst
  if self.status == bt.READY then
    if not self.startfn or self.startfn(inst) then
      self.status = bt.RUNNING
      inst:Stop()
    else
      self.status = bt.FAILED
    end
  end

  if self.status == bt.RUNNING then
    if not self.keepfn or self.keepfn(inst) then
      inst:Stop()
    else
      self.status = bt.FAILED
    end
    self:Sleep(.5)
  end
end

function StandStill:DBString()
  return "standing still"
end

return StandStill
