-- SPDX-License-Identifier: MIT
-- pool.lua: the Lua side of a pool of states (bt_lua_pool, src/lua/pool.c, docs/threads.md "A
-- pool of Lua states"). Each state of a pool runs a shard of the agents on its own
-- bt.BrainManager; the host's scripts say how an agent's brain is made (bt.pool.place), and may
-- say how it hears an event (bt.pool.event) and how it goes (bt.pool.remove). The C side calls
-- the shared.pool_* functions below; bt.pool.send, state and states are C functions it adds to
-- the states of a pool (outside one, they say so).
local bt, shared = ...
local Brain = bt.Brain

local pool = {}
local brains = {}                                   -- agent id -> its brain, in this state
local agent_of = setmetatable({}, {__mode = "k"}) -- entity (brain.inst) -> agent id

local function not_in_pool(fname)
  return function()
    error("bt.pool." .. fname .. ": this Lua state is not in a pool (bt_lua_pool_create)", 2)
  end
end
pool.send = not_in_pool("send")
pool.place_later = not_in_pool("place_later")
pool.remove_later = not_in_pool("remove_later")
pool.state = not_in_pool("state")
pool.states = not_in_pool("states")

-- bt.pool.brain(agent): the agent's brain in this state, or nil
function pool.brain(agent)
  return brains[agent]
end

-- bt.pool.agent(entity): the id of the agent whose brain was made for the entity, or nil
function pool.agent(entity)
  if entity == nil then
    return nil
  end
  return agent_of[entity]
end

-- bt.pool.agents(): the ids of this state's agents, in increasing order
function pool.agents()
  local ids = {}
  for id in pairs(brains) do
    ids[#ids + 1] = id
  end
  table.sort(ids)
  return ids
end

-- a new tree's random stream: seeded with its agent's id, so that it draws the same numbers in
-- whichever state, on whichever thread, thinks it
function shared.pool_seed(owner)
  return (owner ~= nil and agent_of[owner]) or 0
end

local function make_brain(agent, kind)
  local place = rawget(pool, "place")
  if type(place) ~= "function" then
    error("bt.pool.place is not set: the state's scripts must set it to a function(agent, kind) "
      .. "that returns the agent's brain, not started", 0)
  end
  local brain = place(agent, kind)
  if type(brain) ~= "table" or not brain.is_a or not brain:is_a(Brain) then
    error(string.format("bt.pool.place(%d, %q) returned a %s (a Brain, not started, expected)",
      agent, kind, type(brain)), 0)
  end
  if brain.inst ~= nil then
    agent_of[brain.inst] = agent
  end
  brains[agent] = brain
  return brain
end

function shared.pool_place(agent, kind)
  local brain = make_brain(agent, kind)
  local ok, err = pcall(brain.Start, brain)
  shared.set_random_tree(nil)
  if not ok then
    brains[agent] = nil
    error(err, 0)
  end
end

local function drop(agent)
  local brain = brains[agent]
  brains[agent] = nil
  return brain
end

function shared.pool_remove(agent)
  local brain = drop(agent)
  if not brain then
    return
  end
  local remove = rawget(pool, "remove")
  if type(remove) == "function" then
    remove(agent, brain)
  else
    brain:Stop()
  end
end

-- the agent's brain as brain:Save writes it (bt.pool.save_options: its options, if set)
function shared.pool_save(agent)
  local brain = brains[agent]
  if not brain then
    error("agent " .. agent .. " has no brain in this state", 0)
  end
  local tree = rawget(brain, "bt")
  local core, scripts
  if tree then
    core, scripts = tree:random_state()
  end
  -- the tree's random streams go with it (a save keeps the generator of the tree it goes into)
  return string.format("%d %d\n", core or 0, scripts or 0) .. brain:Save(rawget(pool, "save_options"))
end

-- a brain made for the agent here, then restored from s; nothing stays if that fails
function shared.pool_restore(agent, kind, s)
  shared.pool_place(agent, kind)
  local brain = brains[agent]
  local core, scripts, saved = s:match("^(%-?%d+) (%-?%d+)\n(.*)$")
  local dropped, err = brain:Restore(saved, rawget(pool, "save_options"))
  if not dropped then
    shared.pool_remove(agent)
    error(err, 0)
  end
  local tree = rawget(brain, "bt")
  core, scripts = math.tointeger(tonumber(core)), math.tointeger(tonumber(scripts))
  if tree then
    tree:set_random_state(core ~= 0 and core or nil, scripts ~= 0 and scripts or nil)
  end
end

-- an event at the frame's end: bt.pool.event(agent, event, data, from) if set, else the
-- brain's handler of it (brain:PushEvent(event, data))
function shared.pool_deliver(agent, event, data, from)
  local brain = brains[agent]
  -- bt.random (math.random in a pool's state) draws from the agent's stream in its handlers
  shared.set_random_tree(brain and rawget(brain, "bt"))
  local handler = rawget(pool, "event")
  local ok, err = true, nil
  if type(handler) == "function" then
    ok, err = pcall(handler, agent, event, data, from)
  elseif brain then
    ok, err = pcall(brain.PushEvent, brain, event, data)
  end
  shared.set_random_tree(nil)
  if not ok then
    error(err, 0)
  end
end

bt.pool = pool
