-- SPDX-License-Identifier: MIT
-- wolf.lua: a wolf. By night it hunts prey near its den with ChaseAndAttack, leashed to the
-- den; by day it goes back to the den and rests there.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local ChaseAndAttack = require(prefix .. "behaviours.chaseandattack")
local DoAction = require(prefix .. "behaviours.doaction")
local Leash = require(prefix .. "behaviours.leash")
local StandStill = require(prefix .. "behaviours.standstill")
local Wander = require(prefix .. "behaviours.wander")
local util = require(prefix .. "behaviours.util")

local SEE_PREY_DIST = 12    -- how far it spots prey
local MAX_CHASE_TIME = 10   -- seconds without landing a blow before it gives up
local GIVE_UP_DIST = 20     -- prey this far away is let go
local LEASH_DIST = 25       -- at night, farther than this from the den ...
local LEASH_RETURN = 10     -- ... it runs back until this close
local HUNT_WANDER_DIST = 15 -- it roams this far from the den looking for prey

local function den(inst)
  return inst:GetHome()
end

local function is_day(inst)
  return inst:IsDay()
end

local function is_night(inst)
  return not inst:IsDay()
end

local function tired(inst)
  return inst:IsTired()
end

local function find_prey(inst)
  return inst:FindEntity(SEE_PREY_DIST, "prey")
end

local function rest(inst)
  return "rest", util.home_object(inst, "den")
end

return bt.SharedBrain(function()
  local hunt = bt.WhileNode(is_night, "Night", bt.PriorityNode({
    Leash(nil, den, LEASH_DIST, LEASH_RETURN, true),
    ChaseAndAttack(nil, MAX_CHASE_TIME, GIVE_UP_DIST, nil, find_prey),
    Wander(nil, den, HUNT_WANDER_DIST),
  }, .25))

  local sleep = bt.WhileNode(is_day, "Day", bt.PriorityNode({
    Leash(nil, den, 2, 1),
    bt.IfNode(tired, "Tired", DoAction(nil, rest, "Rest")),
    StandStill(nil),
  }, .5))

  return bt.PriorityNode({hunt, sleep}, .25)
end)
