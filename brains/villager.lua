-- SPDX-License-Identifier: MIT
-- villager.lua: a villager. It runs from wolves; eats when hungry (food lying near, or at home);
-- by day it works the nearest field, or strolls near home; at night it goes home and rests.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local DoAction = require(prefix .. "behaviours.doaction")
local Leash = require(prefix .. "behaviours.leash")
local RunAway = require(prefix .. "behaviours.runaway")
local StandStill = require(prefix .. "behaviours.standstill")
local Wander = require(prefix .. "behaviours.wander")
local util = require(prefix .. "behaviours.util")

local SEE_WOLF_DIST = 10
local SAFE_DIST = 15
local HUNGRY = 0.6
local SEE_FOOD_DIST = 10
local SEE_FIELD_DIST = 20
local STROLL_DIST = 8

local function home(inst)
  return inst:GetHome()
end

local function hungry(inst)
  return inst:GetHunger() >= HUNGRY
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

-- eats food lying near (not grass: that is for sheep), or else at home
local function eat(inst)
  local food = inst:FindEntity(SEE_FOOD_DIST, "food", "grass") or util.home_object(inst, "house")
  if food ~= nil then
    return "eat", food
  end
end

local function work(inst)
  local field = inst:FindEntity(SEE_FIELD_DIST, "field")
  if field ~= nil then
    return "work", field
  end
end

local function rest(inst)
  return "rest", util.home_object(inst, "house")
end

return bt.SharedBrain(function()
  local day = bt.WhileNode(is_day, "Day", bt.PriorityNode({
    DoAction(nil, work, "Work"),
    Wander(nil, home, STROLL_DIST),
  }, .5))

  local night = bt.WhileNode(is_night, "Night", bt.PriorityNode({
    Leash(nil, home, 2, 1),
    bt.IfNode(tired, "Tired", DoAction(nil, rest, "Rest")),
    StandStill(nil),
  }, .5))

  return bt.PriorityNode({
    RunAway(nil, "predator", SEE_WOLF_DIST, SAFE_DIST),
    bt.IfNode(hungry, "Hungry", DoAction(nil, eat, "Eat")),
    day,
    night,
  }, .25)
end)
