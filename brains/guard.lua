-- SPDX-License-Identifier: MIT
-- guard.lua: a guard. It chases and attacks predators that come near villagers, eats at the
-- nearest house when hungry, walks back to its post (its home) when it strays, and otherwise
-- patrols around the post.
local bt = require "bt"
-- the name require gave this file (nil under dofile) tells where the behaviours are: "bt." when
-- installed (bt.brains.x), "" in a game's or the source tree's brains/ (docs/lua-api.md)
local here = ...
local prefix = type(here) == "string" and here:match("^(.*)brains[./][^./]+$") or ""
local ChaseAndAttack = require(prefix .. "behaviours.chaseandattack")
local DoAction = require(prefix .. "behaviours.doaction")
local Leash = require(prefix .. "behaviours.leash")
local Wander = require(prefix .. "behaviours.wander")
local util = require(prefix .. "behaviours.util")

local SEE_DIST = 15         -- how far the guard watches
local THREAT_DIST = 6       -- a predator this close to a villager is a threat
local MAX_CHASE_TIME = 8
local GIVE_UP_DIST = 20
local LEASH_DIST = 10       -- out of a fight, farther than this from the post ...
local LEASH_RETURN = 2      -- ... it goes back until this close
local PATROL_DIST = 4       -- each leg of the patrol
local HUNGRY = 0.7          -- GetHunger() from which it goes to eat
local SEE_HOUSE_DIST = 40   -- how far it goes for a meal

local function post(inst)
  return inst:GetHome()
end

-- the nearest predator within sight that is near a villager
local function find_threat(inst)
  local villagers = inst:FindEntities(SEE_DIST + THREAT_DIST, "villager")
  for _, predator in ipairs(inst:FindEntities(SEE_DIST, "predator")) do
    local px, py = predator:GetPosition()
    for _, villager in ipairs(villagers) do
      local vx, vy = villager:GetPosition()
      if util.distsq(px, py, vx, vy) <= THREAT_DIST * THREAT_DIST then
        return predator
      end
    end
  end
  return nil
end

local function hungry(inst)
  return inst:GetHunger() >= HUNGRY
end

-- a meal at the nearest house
local function eat(inst)
  local house = inst:FindEntity(SEE_HOUSE_DIST, "house")
  if house ~= nil then
    return "eat", house
  end
end

-- the patrol turns a quarter each leg, so the guard walks a square around its post
local function patrol_direction(inst)
  inst.patrol_leg = (inst.patrol_leg or 0) + 1
  return (inst.patrol_leg * 90) % 360
end

return bt.SharedBrain(function()
  return bt.PriorityNode({
    ChaseAndAttack(nil, MAX_CHASE_TIME, GIVE_UP_DIST, nil, find_threat),
    bt.IfNode(hungry, "Hungry", DoAction(nil, eat, "EatAtHouse")),
    Leash(nil, post, LEASH_DIST, LEASH_RETURN, true),
    Wander(nil, post, LEASH_DIST, {minwalktime = 2, randwalktime = 0, minwaittime = 1, randwaittime = 1},
      patrol_direction, nil, nil, {wander_dist = PATROL_DIST}),
  }, .25)
end)
