-- SPDX-License-Identifier: MIT
-- panic.lua: Panic, Don't Starve's headless running (docs/behaviours.md), written anew
-- against docs/entity.md.
--
--   Panic(inst)
--
-- READY: runs in a random direction and becomes RUNNING (without sleeping). RUNNING: once its
-- time is up it picks a new random direction for the next 0.25 to 0.5 s; it sleeps until the
-- next change. Never ends by itself: a WhileNode, a WaitNode in a Parallel or a Priority ends it.
local bt = require "bt"

local Panic = bt.Class(bt.BehaviourNode, function(self, inst)
  bt.BehaviourNode._ctor(self, "Panic")
  self.inst = inst
  self.waittime = 0
end)

function Panic:PickNewDirection()
  self.angle = math.random() * 360
  self.inst:RunInDirection(self.angle)
  self.waittime = bt.GetTime() + .25 + math.random() * .25
end

function Panic:Visit()
  if self.status == bt.READY then
    self:PickNewDirection()
    self.status = bt.RUNNING
  else
    if bt.GetTime() > self.waittime then
      self:PickNewDirection()
    end
    self:Sleep(self.waittime - bt.GetTime())
  end
end

function Panic:DBString()
  return string.format("running at %.0f, turns in %2.2f", self.angle or 0, self.waittime - bt.GetTime())
end

-- Saved games (docs/lua-api.md "Saved games"): the direction and the time of the next change,
-- as seconds from the save.
function Panic:OnSave(ctx)
  return {angle = self.angle, turn_in = self.waittime and self.waittime - ctx.now}
end

function Panic:OnLoad(data, ctx)
  self.angle = data.angle
  self.waittime = data.turn_in and ctx.now + data.turn_in
end

return Panic
