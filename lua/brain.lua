-- SPDX-License-Identifier: MIT
-- brain.lua: Don't Starve's Brain, BrainWrangler and BrainManager (scripts/brain.lua), on the C
-- scheduler. A brain uses the wrangler in its `manager` field, or bt.BrainManager.
local bt, shared = ...
local Class = bt.Class
local argerror = shared.argerror

-- every brain ever started (weak): a reload rebuilds the trees of those whose code changed
local live_brains = shared.live_brains

local function manager_of(brain)
  return rawget(brain, "manager") or bt.BrainManager
end

-- ---- BrainWrangler ----

local BrainWrangler = Class(function(self, options)
  if options ~= nil and type(options) ~= "table" then
    argerror(1, "BrainWrangler", "table or nil expected, got " .. type(options))
  end
  self._sched = shared.scheduler(options and options.policy)
end)

for name, fn in pairs(shared.wrangler_methods) do
  BrainWrangler[name] = fn
end

-- wrangler:Record(options or nil): as the scheduler's, but `stats = true` in the options makes one
-- bt.Stats that every brain's recorder feeds (each brain's would otherwise have its own), kept in
-- self._stats for Stats and ResetStats.
local record = BrainWrangler.Record
function BrainWrangler:Record(options)
  if options and type(options) ~= "table" then
    argerror(1, "Record", "table or nil expected, got " .. type(options))
  end
  if options and options.stats == true then
    local shared_options = {}
    for k, v in pairs(options) do
      shared_options[k] = v
    end
    shared_options.stats = bt.Stats()
    options = shared_options
  end
  if options and options.stats then
    rawset(self, "_stats", options.stats)
  end
  return record(self, options)
end

local ORDERS = {tree = true, time = true, visits = true}

local function check_order(order, fname)
  if order ~= nil and not ORDERS[order] then
    argerror(1, fname, '"tree", "time", "visits" or nil expected')
  end
end

-- wrangler:Stats([order]): the statistics of the brains it records (Record{stats = true}), per
-- shape: as bt.Stats's shapes
function BrainWrangler:Stats(order)
  check_order(order, "Stats")
  local stats = rawget(self, "_stats")
  if not stats then
    argerror(0, "Stats", "the wrangler keeps no statistics: Record{stats = true} switches them on")
  end
  return stats:shapes(order)
end

function BrainWrangler:ResetStats()
  local stats = rawget(self, "_stats")
  if stats then
    stats:reset()
  end
end

function BrainWrangler:OnRemoveEntity(inst)
  if inst.brain and self:GetList(inst.brain) then
    self:RemoveInstance(inst.brain)
  end
end

-- ---- Brain ----

local Brain = Class(function(self, inst)
  self.inst = inst
  self.currentbehaviour = nil
  self.behaviourqueue = {}
  self.events = {}
  self.thinkperiod = nil
  self.lastthinktime = nil
  self.paused = false
end)

function Brain:ForceUpdate()
  if self.bt then
    self.bt:ForceUpdate()
  end
  manager_of(self):Wake(self)
end

function Brain:__tostring()
  if self.bt then
    return string.format("--brain--\nsleep time: %2.2f\n%s", self:GetSleepTime(), tostring(self.bt))
  end
  return "--brain--"
end

function Brain:AddEventHandler(event, fn)
  self.events[event] = fn
end

function Brain:GetSleepTime()
  if self.bt then
    return self.bt:GetSleepTime()
  end
  return 0
end

function Brain:Start()
  if self.paused then
    return
  end
  live_brains[self] = true -- for reloads
  if self.OnStart then
    self:OnStart()
  end
  if rawget(self, "recorder") then -- the new tree records into the brain's recorder
    shared.follow_recorder(self)
  end
  self.stopped = false
  manager_of(self):AddInstance(self)
  if self.OnInitializationComplete then
    self:OnInitializationComplete()
  end
  if self.modpostinitfns then
    for _, modfn in ipairs(self.modpostinitfns) do
      modfn(self)
    end
  end
end

function Brain:OnUpdate()
  if self.DoUpdate then
    self:DoUpdate()
  end
  if self.bt then
    self.bt:Update()
  end
end

function Brain:Stop()
  if self.paused then
    return
  end
  if self.OnStop then
    self:OnStop()
  end
  if self.bt then
    self.bt:Stop()
  end
  self.stopped = true
  manager_of(self):RemoveInstance(self)
end

-- brain:Record(recorder or options or nil): the brain's tree records into the recorder (one made
-- from the options: bt.Recorder's, with the entity's id and label), kept in brain.recorder and on
-- whichever tree the brain has (a restart or a reload keeps it); nil stops. Returns the recorder.
function Brain:Record(options)
  if not options then
    local tree, rec = rawget(self, "bt"), rawget(self, "recorder")
    if tree and rec and tree:recorder() == rec then
      tree:record(nil)
    end
    self.recorder = nil
    return nil
  end
  if shared.is_recorder(options) then
    self.recorder = options
  elseif type(options) ~= "table" then
    argerror(1, "Record", "Recorder, table or nil expected, got " .. type(options))
  else
    self.recorder = nil
  end
  shared.follow_recorder(self, options)
  return self.recorder
end

-- brain:Stats([order]): the figures of the brain's tree (tree:stats), which records with
-- statistics (Record{stats = true}, its own or its wrangler's)
local function stats_tree(brain, fname)
  local tree = rawget(brain, "bt")
  local rec = tree and tree:recorder()
  if not (rec and rec:stats()) then
    argerror(0, fname, "the brain keeps no statistics: brain:Record{stats = true}, or its wrangler's "
      .. "Record{stats = true}, switches them on")
  end
  return tree
end

function Brain:Stats(order)
  check_order(order, "Stats")
  return stats_tree(self, "Stats"):stats(order)
end

function Brain:ResetStats()
  stats_tree(self, "ResetStats"):reset_stats()
end

function Brain:PushEvent(event, data)
  local handler = self.events[event]
  if handler then
    handler(data)
  end
end

function Brain:Pause()
  self.paused = true
  manager_of(self):RemoveInstance(self)
end

function Brain:Resume()
  self.paused = false
  manager_of(self):AddInstance(self)
end

-- ---- shared brains ----

-- SharedBrain(root[, board]) or SharedBrain(build[, board]): a Brain class whose tree is compiled
-- once, from root, or from build() when the first brain starts, and instantiated for each entity;
-- with a bt.Blackboard, the tree declares its keys (bt.define(root, board)). The tree's functions
-- receive the entity; nodes written in Lua are copied for each entity.
local function SharedBrain(build, board)
  local t = type(build)
  if t ~= "function" and not (t == "table" and getmetatable(build) and getmetatable(build).__bt_node) then
    argerror(1, "SharedBrain", "node or function expected, got " .. t)
  end
  if board ~= nil and not shared.is_board(board) then
    argerror(2, "SharedBrain", "Blackboard or nil expected, got " .. type(board))
  end
  local B = Class(Brain, function(self, inst)
    Brain._ctor(self, inst)
  end)
  local definition
  function B.GetDefinition()
    -- built from a function, the tree is built again once a subtree it runs was redefined
    if definition and t == "function" and shared.stale(definition) then
      definition = nil
    end
    if not definition then
      local root = build
      if t == "function" then
        root = build()
      end
      definition = bt.define(root, board)
    end
    return definition
  end
  function B:OnStart()
    self.bt = bt.BT(self.inst, B.GetDefinition())
  end
  -- For bt.test's substitution (docs/bt-test.md): a new definition of the tree, built anew and
  -- given to edit(root), which edits it before it is compiled; nil for a class made from a root,
  -- whose nodes belong to its definition for good.
  function B._redefine(edit)
    if t ~= "function" then
      return nil
    end
    return bt.define(edit(build()), board)
  end
  return B
end

bt.Brain = Brain
bt.BrainWrangler = BrainWrangler
bt.BrainManager = BrainWrangler()
bt.SharedBrain = SharedBrain
