-- SPDX-License-Identifier: MIT
-- brain.lua: the brain bt-hello runs. A sheep that runs from a passing wolf, eats when hungry,
-- and grazes otherwise. Its entity is a plain table the host updates (x, hunger, wolf_near):
-- this brain uses no behaviours, only bt's nodes, whose functions receive the entity.
local bt = require "bt"

return bt.SharedBrain(function()
  local flee = bt.WhileNode(function(inst) return inst.wolf_near end, "WolfNear",
    bt.ActionNode(function(inst) inst.x = inst.x + 2 end, "RunAway"))

  local eat = bt.IfNode(function(inst) return inst.hunger >= 5 end, "Hungry",
    bt.SequenceNode {
      bt.ActionNode(function(inst) inst.eating = true end, "StartEating"),
      bt.WaitNode(1.5),
      bt.ActionNode(function(inst) inst.hunger, inst.eating = 0, false end, "Swallow"),
    })

  local graze = bt.SequenceNode {
    bt.ActionNode(function(inst) inst.x = inst.x + 0.5 end, "Step"),
    bt.WaitNode(1),
  }

  return bt.PriorityNode({flee, eat, graze}, 0.5)
end)
