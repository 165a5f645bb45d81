-- SPDX-License-Identifier: MIT
-- The picture of docs/debugging.md (Pictures of a tree): a wolf's brain after two thinks, as
-- tree:dot() draws it. Remake it from the repository root, with bt.so on LUA_CPATH:
--   lua5.4 docs/img/wolf.lua > docs/img/wolf.dot && dot -Tsvg docs/img/wolf.dot > docs/img/wolf.svg
local bt = require "bt"
local now = 0
bt.set_clock(function() return now end)

local hungry, prey_near = true, false
bt.define(bt.SequenceNode { bt.ConditionNode(function() return prey_near end, "PreyNear"),
                            bt.ActionNode(function() end, "Pounce") }, "hunt")
local wander = bt.ActionNode(function() end, "Wander")
local root = bt.PriorityNode({
  bt.WhileNode(function() return false end, "Scared", bt.ActionNode(function() end, "RunAway")),
  bt.IfNode(function() return hungry end, "Hungry", bt.SubtreeNode("hunt")),
  bt.SequenceNode { bt.WaitNode(2), wander },
  wander,
}, 0.5, true)
local tree = bt.BT({}, root)
tree:Update()
now = 0.6
tree:Update()
io.write(tree:dot())
