-- SPDX-License-Identifier: MIT
-- board.lua: a Lua brain that polls against the same decisions on the blackboard, both of
-- behaviour classes, as bench_board.c does with C leaves. Run by `make bench`, or:
--
--   build/bench/bench_think bench/board.lua [--agents N] [--seconds S] [--seed X] [--rounds R]
--     [--only polling|blackboard]
--
-- Each agent flees while the world says it is threatened, eats while it is hungry (hunger above
-- 0.7), and rests otherwise. The world is bench_board.c's, draw for draw: it changes one of the
-- two things each agent watches at random times, every 10 s on average (uniform between 1 and
-- 19 s, from the same xorshift64* stream and seed; none in the last second). Two brains of
-- bt.SharedBrain classes run it on bt.BrainManager, 30 ticks a second, the time set once a tick:
--
--   polling     Don't Starve's style: PriorityNode({WhileNode(threatened, "Threatened", Flee),
--               WhileNode(hungry, "Hungry", Eat), Rest}, 0.5, true), its conditions reading the
--               entity's fields;
--   blackboard  ActiveSelectorNode({WatchNode({"threat"}, "Threatened", Flee, "both"),
--               WatchNode({"hunger", ">", 0.7}, "Hungry", Eat, "both"), Rest}), the world
--               writing brain.bt.board.threat or .hunger when it changes one.
--
-- Flee, Eat and Rest are one BehaviourNode class: an action that runs until something else is
-- chosen, sleeping 60 s. The world keeps its changes in a list per tick (a game's timers), so
-- that a frame costs the agents that change in it, not a pass over all of them.
--
-- The script checks that each agent starts the same actions in the same order under both brains
-- (else it exits 1), and prints thinks per simulated second, process CPU time (os.clock) of the
-- frames and the world's changes per agent and simulated second, and the time from a change to
-- the first action on it. The targets of issue 31: at least 10x fewer thinks and 5x less CPU for
-- the blackboard brain, and its action in the frame of the change (latency 0). Every round runs
-- both brains, one after the other; each brain's figures are those of its fastest round.
-- `--only` runs one brain (for a profiler), and checks nothing.

local bt = require "bt"
local dir = arg[0]:match("^(.*)/") or "."
local measure = dofile(dir .. "/measure.lua")

local USAGE = "bench_think bench/board.lua [--agents N] [--seconds S] [--seed X] [--rounds R] " ..
  "[--only polling|blackboard]"
local opt = measure.flags(arg, USAGE, {{"--agents", 10000, 1}, {"--seconds", 600, 1, float = true},
  {"--seed", 31, 1}, {"--rounds", 3, 1}, {"--only", "both", choices = {"polling", "blackboard"}}})
local AGENTS, SECONDS, SEED, ROUNDS = opt.agents, opt.seconds, opt.seed, opt.rounds
local TICKS_PER_SECOND = 30
local HUNGRY = 0.7
local FLEE, EAT, REST = 1, 2, 3
local NAMES = {"Flee", "Eat", "Rest"}

-- ---- the world: bench_board.c's, draw for draw ----

local T = 0 -- the simulated time
local rng

-- xorshift64*: a double in [0, 1), the same as bench_board.c's uniform() for the same seed
local function uniform()
  rng = rng ~ (rng >> 12)
  rng = rng ~ (rng << 25)
  rng = rng ~ (rng >> 27)
  return ((rng * 0x2545F4914F6CDD1D) >> 11) * (1.0 / 9007199254740992.0)
end

local function decision(a)
  return a.threatened and FLEE or a.hunger > HUNGRY and EAT or REST
end

-- The first tick whose time (tick / 30) is at or after t: when bench_board.c's pass over the
-- agents finds the change due.
local function tick_of(t)
  local k = math.ceil(t * TICKS_PER_SECOND)
  while k / TICKS_PER_SECOND < t do k = k + 1 end
  while (k - 1) / TICKS_PER_SECOND >= t do k = k - 1 end
  return k
end

local due -- due[tick]: the agents that change in that tick

local function schedule(i, t)
  local k = tick_of(t)
  local list = due[k]
  if list then list[#list + 1] = i else due[k] = {i} end
end

-- The world's change of one agent: its threat toggled, or a new hunger; the blackboard brain's
-- key written.
local function change(a, i, board)
  local before = decision(a)
  if uniform() < 0.5 then
    a.threatened = not a.threatened
    if board then a.brain.bt.board.threat = a.threatened end
  else
    a.hunger = uniform()
    if board then a.brain.bt.board.hunger = a.hunger end
  end
  schedule(i, T + 1 + 18 * uniform())
  if decision(a) ~= before then a.changed = T end
end

-- ---- the brains ----

local run -- the run under way: its latencies

-- An action: started when its node is not running (logged in the entity), then running, asleep
-- for 60 s, until the brain chooses another.
local Action = bt.Class(bt.BehaviourNode, function(self, action)
  bt.BehaviourNode._ctor(self, NAMES[action])
  self.action = action
end)

function Action:Visit()
  if self.status ~= bt.RUNNING then
    local inst = self.inst
    local n = inst.nstarts + 1
    inst.nstarts, inst.starts[n] = n, self.action
    if inst.changed >= 0 then
      local l = T - inst.changed
      run.latency_sum = run.latency_sum + l
      if l > run.latency_max then run.latency_max = l end
      run.reactions = run.reactions + 1
      inst.changed = -1
    end
    self.status = bt.RUNNING
  end
  self:Sleep(60)
end

local Polling = bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.WhileNode(function(inst) return inst.threatened end, "Threatened", Action(FLEE)),
    bt.WhileNode(function(inst) return inst.hunger > HUNGRY end, "Hungry", Action(EAT)),
    Action(REST),
  }, 0.5, true)
end)

local Board = bt.Blackboard {
  threat = {type = "boolean", host = true},
  hunger = {type = "number", host = true},
}
local Watching = bt.SharedBrain(function()
  return bt.ActiveSelectorNode({
    bt.WatchNode({"threat"}, "Threatened", Action(FLEE), "both"),
    bt.WatchNode({"hunger", ">", HUNGRY}, "Hungry", Action(EAT), "both"),
    Action(REST),
  })
end, Board)

-- ---- a run ----

-- Runs the world for SECONDS on AGENTS brains of the polling (board false) or the blackboard brain.
-- Returns thinks, CPU seconds, the latencies and the agents (their starts).
local function simulate(board)
  collectgarbage()
  collectgarbage()
  run = {thinks = 0, cpu = 0, latency_sum = 0, latency_max = 0, reactions = 0}
  rng, T, due = SEED, 0, {}
  local Brain = board and Watching or Polling
  local agents = {}
  for i = 1, AGENTS do
    local a = {GUID = i, threatened = false, changed = -1, nstarts = 0, starts = {}}
    a.hunger = uniform() * HUNGRY -- not hungry, not threatened: resting
    schedule(i, 1 + 18 * uniform())
    a.brain = Brain(a)
    a.brain:Start()
    if board then
      a.brain.bt.board.threat = false
      a.brain.bt.board.hunger = a.hunger
    end
    agents[i] = a
  end
  local manager = bt.BrainManager
  local thinks0 = manager:GetStats().thinks
  local ticks = math.floor(SECONDS * TICKS_PER_SECOND)
  local last = SECONDS - 1 -- the last second: time to react
  local cpu0 = os.clock()
  for tick = 1, ticks do
    T = tick / TICKS_PER_SECOND
    bt.set_clock(T)
    local list = due[tick]
    if list then
      due[tick] = nil
      if T < last then
        if #list > 1 then table.sort(list) end -- in the order bench_board.c's pass finds them
        for j = 1, #list do
          local i = list[j]
          change(agents[i], i, board)
        end
      end
    end
    manager:Update(tick)
  end
  run.cpu = os.clock() - cpu0
  run.thinks = manager:GetStats().thinks - thinks0
  for i = 1, AGENTS do agents[i].brain:Stop() end
  bt.set_clock(nil)
  run.agents = agents
  return run
end

-- ---- rounds and the table ----

print(string.format("board.lua: Lua brains of behaviour classes, %d agents, %g simulated seconds, " ..
  "%d ticks a second, a change every 10 s on average (seed %d), best of %d",
  AGENTS, SECONDS, TICKS_PER_SECOND, SEED, ROUNDS))

local BRAINS = {"polling", "blackboard"}
local differ = 0
local best = {}
for round = 1, ROUNDS do
  local r = {}
  for b, name in ipairs(BRAINS) do
    if opt.only == "both" or opt.only == name then r[b] = simulate(b == 2) end
  end
  for i = 1, opt.only == "both" and AGENTS or 0 do
    local x, y = r[1].agents[i], r[2].agents[i]
    local same = x.nstarts == y.nstarts
    for k = 1, x.nstarts do
      if not same then break end
      same = x.starts[k] == y.starts[k]
    end
    if not same then differ = differ + 1 end
  end
  for b = 1, 2 do
    if r[b] and (round == 1 or r[b].cpu < best[b].cpu) then best[b] = r[b] end
  end
end

local agent_seconds = AGENTS * SECONDS
print(string.format("%-11s %14s %14s %16s %14s %14s", "brain", "thinks", "thinks/agent-s",
  "CPU ns/agent-s", "latency mean", "latency max"))
for b, name in ipairs(BRAINS) do
  local r = best[b]
  if r then print(string.format("%-11s %14d %14.3f %16.0f %12.3f s %12.3f s", name, r.thinks,
    r.thinks / agent_seconds, r.cpu / agent_seconds * 1e9,
    r.reactions > 0 and r.latency_sum / r.reactions or 0, r.latency_max)) end
end
if opt.only ~= "both" then return end
local starts = 0
for i = 1, AGENTS do starts = starts + best[1].agents[i].nstarts end
print(string.format("the same actions, in the same order, for every agent: %s (%d actions started, " ..
  "%d reactions)", differ > 0 and "NO" or "yes", starts, best[2].reactions))
print(string.format("blackboard against polling: %.1fx fewer thinks (target 10x), %.1fx less CPU " ..
  "(target 5x), action %s the frame of the change",
  best[2].thinks > 0 and best[1].thinks / best[2].thinks or 0,
  best[2].cpu > 0 and best[1].cpu / best[2].cpu or 0, best[2].latency_max == 0 and "in" or "after"))
if differ > 0 then os.exit(1) end
