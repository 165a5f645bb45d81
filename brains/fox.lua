-- SPDX-License-Identifier: MIT
-- fox.lua: a fox, a wolf written on the blackboard. It hunts prey near its den when it is night
-- and it is hungry, prowls about the den at night when it is fed, and dozes by the den by day. The
-- world writes its keys (brains/kinds.lua: keys = {night, hunger}, docs/arena.md "What the host
-- writes"): its WatchNodes wake the brain in the frame night falls or hunger crosses the line, and
-- outside a hunt it sleeps until a behaviour's own timer ends.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local ChaseAndAttack = require(prefix .. "behaviours.chaseandattack")
local Leash = require(prefix .. "behaviours.leash")
local Wander = require(prefix .. "behaviours.wander")

local HUNGRY = 0.5          -- hunger above which it hunts, at night
local SEE_PREY_DIST = 12    -- how far it spots prey
local MAX_CHASE_TIME = 10   -- seconds without landing a blow before it gives up
local GIVE_UP_DIST = 20     -- prey this far away is let go
local LEASH_DIST = 25       -- hunting, farther than this from the den ...
local LEASH_RETURN = 10     -- ... it runs back until this close
local HUNT_WANDER_DIST = 15 -- it roams this far from the den looking for prey
local PROWL_DIST = 10       -- fed, at night, it keeps this close
local DOZE_DIST = 3         -- by day it stays by its den

local Board = bt.Blackboard {
  night = {type = "boolean", host = true},  -- written by the world at dusk and dawn
  hunger = {type = "number", host = true},  -- GetHunger() in hundredths, written as it changes
}

local function den(inst)
  return inst:GetHome()
end

local function find_prey(inst)
  return inst:FindEntity(SEE_PREY_DIST, "prey")
end

return bt.SharedBrain(function()
  -- the wolf's hunt: it looks for prey at the Priority's period, as long as it hunts
  local hunt = bt.PriorityNode({
    Leash(nil, den, LEASH_DIST, LEASH_RETURN, true),
    ChaseAndAttack(nil, MAX_CHASE_TIME, GIVE_UP_DIST, nil, find_prey),
    Wander(nil, den, HUNT_WANDER_DIST),
  }, .25)

  -- two watches that compare, rather than one function of both keys: a watch whose condition is
  -- a function wakes the brain at every write of a key it reads, to ask it again
  return bt.ActiveSelectorNode({
    bt.WatchNode({"night"}, "Night", bt.ActiveSelectorNode({
      bt.WatchNode({"hunger", ">", HUNGRY}, "Hungry", hunt, "both"),
      Wander(nil, den, PROWL_DIST),
    }, "Prowl"), "both"),
    Wander(nil, den, DOZE_DIST),
  }, "Fox")
end, Board)
