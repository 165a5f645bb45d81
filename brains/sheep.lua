-- SPDX-License-Identifier: MIT
-- sheep.lua: a sheep. It flees wolves (bleating in alarm), grazes on grass when hungry, and
-- otherwise wanders near its home, bleating now and then.
--
-- A brain file returns a brain class: `local SheepBrain = dofile "brains/sheep.lua"`, then
-- `inst.brain = SheepBrain(inst); inst.brain:Start()`. It is a shared brain: the tree is built
-- once, for every sheep, so the functions in it take the sheep as their argument.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local ChattyNode = require(prefix .. "behaviours.chattynode")
local DoAction = require(prefix .. "behaviours.doaction")
local RunAway = require(prefix .. "behaviours.runaway")
local Wander = require(prefix .. "behaviours.wander")

local SEE_WOLF_DIST = 8     -- a wolf this close makes it run
local SAFE_DIST = 12        -- until it is this far away
local HUNGRY = 0.5          -- GetHunger() from which it looks for grass
local SEE_GRASS_DIST = 15
local WANDER_DIST = 10      -- how far from home it wanders

local function home(inst)
  return inst:GetHome()
end

local function hungry(inst)
  return inst:GetHunger() >= HUNGRY
end

local function graze(inst)
  local grass = inst:FindEntity(SEE_GRASS_DIST, "grass")
  if grass ~= nil then
    return "eat", grass
  end
end

return bt.SharedBrain(function()
  return bt.PriorityNode({
    ChattyNode(nil, {"BAAAA!", "Baa! Baa!"},
      RunAway(nil, "predator", SEE_WOLF_DIST, SAFE_DIST), 3, 2),
    bt.IfNode(hungry, "Hungry",
      DoAction(nil, graze, "Graze")),
    ChattyNode(nil, {"Baa.", "Meeh.", "Baa?"},
      Wander(nil, home, WANDER_DIST), 8, 8, 2, 4),
  }, .25)
end)
