-- SPDX-License-Identifier: MIT
-- minperiod.lua: MinPeriod, Don't Starve's cooldown measured from the child's last success
-- (docs/behaviours.md), written anew. A wrapper with one child.
--
--   MinPeriod(inst, minperiod, immediate, child)
--
-- On a READY visit less than `minperiod` seconds after the child last succeeded it is FAILED
-- without visiting the child; otherwise it visits the child, copies its status, and notes the
-- time when the child succeeds. With `immediate` false the cooldown also runs from the start:
-- from construction when built for an entity (inst given, as in Don't Starve), and from the
-- node's first visit in a shared brain (inst nil: the tree is built once for every entity).
-- It does not sleep (a wrapper's sleep would have no effect).
local bt = require "bt"

local MinPeriod = bt.Class(bt.BehaviourNode, function(self, inst, minperiod, immediate, child)
  bt.BehaviourNode._ctor(self, "MinPeriod", {child})
  self.inst = inst
  self.minperiod = minperiod
  self.immediate = immediate
  if not immediate and inst ~= nil then
    self.lastsuccesstime = bt.GetTime()
  end
end)

function MinPeriod:Visit()
  local child = self.children[1]
  if not self.begun then
    self.begun = true
    if not self.immediate and self.lastsuccesstime == nil then
      self.lastsuccesstime = bt.GetTime()
    end
  end
  if self.status == bt.READY and self.lastsuccesstime ~= nil
      and bt.GetTime() - self.lastsuccesstime < self.minperiod then
    self.status = bt.FAILED
    return
  end
  child:Visit()
  if child.status == bt.SUCCESS then
    self.lastsuccesstime = bt.GetTime()
  end
  self.status = child.status
end

function MinPeriod:DBString()
  local since = bt.GetTime() - (self.lastsuccesstime or 0)
  if self.lastsuccesstime == nil or since > self.minperiod then
    return string.format("OK (min period is %2.2f)", self.minperiod)
  end
  return string.format("Waiting for %2.2f (min period is %2.2f)", self.minperiod - since, self.minperiod)
end

-- Saved games (docs/lua-api.md "Saved games"): the time of the child's last success (or of the
-- start, without `immediate`), as seconds from the save (negative), and whether it has begun.
-- The saved time replaces the one the new tree's constructor noted.
function MinPeriod:OnSave(ctx)
  return {last = self.lastsuccesstime and self.lastsuccesstime - ctx.now, begun = self.begun}
end

function MinPeriod:OnLoad(data, ctx)
  self.lastsuccesstime = data.last and ctx.now + data.last
  self.begun = data.begun
end

return MinPeriod
