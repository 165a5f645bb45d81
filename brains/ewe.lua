-- SPDX-License-Identifier: MIT
-- ewe.lua: a ewe, the sheep written on the blackboard. It flees while the world says a predator
-- threatens it, grazes while it is hungry, and otherwise wanders near its meadow, as the sheep
-- does; but it polls nothing. The world writes its keys (brains/kinds.lua: keys = {hunger, threat},
-- docs/arena.md "What the host writes"): its WatchNodes wake the brain in the frame a key changes,
-- and between changes it sleeps until a behaviour's own timer ends.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local ChattyNode = require(prefix .. "behaviours.chattynode")
local RunAway = require(prefix .. "behaviours.runaway")
local Wander = require(prefix .. "behaviours.wander")

local SAFE_DIST = 12        -- it runs from the nearest predator until this far (the world's `far`)
local HUNGRY = 0.5          -- hunger from which it grazes
local SEE_GRASS_DIST = 15
local REACH = 1.5           -- how close it walks to the grass before it eats
local WALK = 2              -- its walking speed (brains/kinds.lua), to sleep while it walks
local EAT_TIME = 2          -- the "eat" action's seconds
local WANDER_DIST = 10      -- how far from home it wanders

local Board = bt.Blackboard {
  threat = {type = "entity", host = true},  -- the predator near it: set and cleared by the world
  hunger = {type = "number", host = true},  -- GetHunger() in hundredths, written as it changes
}

local function home(inst)
  return inst:GetHome()
end

-- Graze: to the nearest grass, then eat it. A task that sleeps while the ewe walks and eats
-- (DoAction, Don't Starve's, thinks every tick while it runs). It does not wait for the meal's
-- end: the meal lowers hunger, the world writes it, and the watch above ends the task. A walk
-- that ends short, or a tuft eaten by another, is taken up at its next update.
local Graze = bt.Class(function(self, inst)
  self.inst = inst
end)

function Graze:start()
  self.grass = nil
end

function Graze:update(inst)
  if inst:IsBusy() then
    return bt.RUNNING, EAT_TIME
  end
  local grass = self.grass
  if grass == nil or not grass:IsValid() then
    grass = inst:FindEntity(SEE_GRASS_DIST, "grass")
    self.grass = grass
    if grass == nil then
      return bt.FAILED
    end
  end
  local gx, gy = grass:GetPosition()
  local dist = math.sqrt(inst:GetDistanceSqTo(gx, gy))
  if dist > REACH then
    inst:GoToPoint(gx, gy, false)
    return bt.RUNNING, (dist - REACH) / WALK + 0.1
  end
  inst:Stop()
  if not inst:StartAction("eat", grass) then
    self.grass = nil
    return bt.RUNNING, 1 -- (another ewe's tuft, gone by then: the next looks again)
  end
  return bt.RUNNING, EAT_TIME
end

return bt.SharedBrain(function()
  return bt.ActiveSelectorNode({
    bt.WatchNode({"threat", "is set"}, "Threatened",
      ChattyNode(nil, {"Meeeh!", "Mee! Mee!"}, RunAway(nil, "predator", SAFE_DIST, SAFE_DIST), 3, 2),
      "both"),
    bt.WatchNode({"hunger", ">=", HUNGRY}, "Hungry", bt.TaskNode(Graze, "Graze"), "both"),
    Wander(nil, home, WANDER_DIST),
  }, "Ewe")
end, Board)
