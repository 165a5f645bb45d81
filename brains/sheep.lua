-- sheep.lua: a sheep that runs from wolves, eats when hungry, and grazes otherwise.
-- A brain file returns a function that builds the tree for one entity (its `inst`); every
-- function in the tree receives that inst.
local bt = require "bt"

return function(inst)
  local flee = bt.WhileNode(function(i) return i.wolf_near end, "WolfNear",
    bt.ActionNode(function(i) i.x = i.x + 2 end, "RunAway"))

  local eat = bt.IfNode(function(i) return i.hunger >= 5 end, "Hungry",
    bt.SequenceNode {
      bt.ActionNode(function(i) i.eating = true end, "StartEating"),
      bt.WaitNode(1.5),
      bt.ActionNode(function(i) i.hunger, i.eating = 0, false end, "Swallow"),
    })

  local graze = bt.SequenceNode {
    bt.ActionNode(function(i) i.x = i.x + 0.5 end, "Step"),
    bt.WaitNode(1),
  }

  return bt.PriorityNode({flee, eat, graze}, 0.5)
end
