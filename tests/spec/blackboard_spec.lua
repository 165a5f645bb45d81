-- SPDX-License-Identifier: MIT
-- The blackboard from Lua (docs/blackboard.md): bt.Blackboard, a tree's board, ports, WatchNode,
-- and the brains a write wakes through their BrainWrangler.
local bt = require "bt"
local H = require "helpers"

local HERE = debug.getinfo(1, "S").short_src

-- "<this file>:<line>" of the line after the call (the line the caller writes next)
local function next_line()
  return HERE .. ":" .. (debug.getinfo(2, "l").currentline + 1)
end

local error_of = H.error_of -- the message of the error fn raises

-- each case {fn, message}: fn, a function written on one line, raises "<this file>:<that line>:
-- <message>"
local function raise_where_written(cases)
  for _, case in ipairs(cases) do
    local line = debug.getinfo(case[1], "S").linedefined
    assert.equal(HERE .. ":" .. line .. ": " .. case[2], error_of(case[1]))
  end
end

local Board = bt.Blackboard {
  night  = {type = "boolean", host = true},
  hunger = {type = "number", host = true},
  count  = {type = "integer", host = true},
  mood   = {type = "string", host = true},
  prey   = "entity",
  target = "any",
}

-- a task that runs until told otherwise, sleeping `sleep` seconds between visits; its calls go to log
local function task(name, log, sleep)
  return {
    update = function() return bt.RUNNING, sleep or 10 end,
    finish = function(_, _, status) log[#log + 1] = name .. " " .. status end,
  }
end

describe("bt.Blackboard", function()
  it("gives the keys ids in the order of their names, and lists them", function()
    local b = bt.Blackboard {zeta = "number", alpha = {type = "entity"}, mid = {type = "any", host = true}}
    assert.same({{name = "alpha", type = "entity", host = false},
                 {name = "mid", type = "any", host = true},
                 {name = "zeta", type = "number", host = false}}, b:keys())
    assert.equal('Blackboard{alpha = "entity", mid = "any" (host), zeta = "number"}', tostring(b))
    -- the same declaration made again gives the same keys, whatever order pairs() takes
    for _ = 1, 5 do
      local t = {}
      for _, k in ipairs({"d", "b", "e", "a", "c"}) do t[k] = "integer" end
      local names = {}
      for i, k in ipairs(bt.Blackboard(t):keys()) do names[i] = k.name end
      assert.same({"a", "b", "c", "d", "e"}, names)
    end
  end)

  it("raises an error naming the key for bad input", function()
    local cases = {
      {{hunger = "numbr"}, "key 'hunger': unknown type 'numbr' (\"number\", \"integer\", \"boolean\", \"string\", \"entity\" or \"any\" expected)"},
      {{hunger = 5}, "key 'hunger': a type name or {type = ..., host = ...} expected, got number"},
      {{hunger = {host = true}}, "key 'hunger': type: \"number\", \"integer\", \"boolean\", \"string\", \"entity\" or \"any\" expected, got nil"},
      {{hunger = {type = "number", hots = true}}, "key 'hunger': unknown field 'hots' (type and host expected)"},
      {{hunger = {type = "number", host = 1}}, "key 'hunger': host: a boolean expected, got number"},
      {{"hunger"}, "key 1: a name (a string) expected, got number"},
      {{["hunger level"] = "number"}, "key 'hunger level': a name of letters, digits and underscores expected"},
      {{}, "no keys declared"},
    }
    for _, case in ipairs(cases) do
      local err = error_of(bt.Blackboard, case[1])
      assert.truthy(err:find("bad argument #1 to 'Blackboard' (" .. case[2] .. ")", 1, true), err)
    end
    assert.truthy(error_of(bt.Blackboard, "hunger"):find("bad argument #1 to 'Blackboard' (table expected, got string)", 1, true))
  end)

  it("is not among the names install_globals sets, nor is WatchNode", function()
    local env = bt.install_globals({})
    assert.is_nil(env.Blackboard)
    assert.is_nil(env.WatchNode)
    assert.is_not_nil(env.ActionNode)
  end)
end)

describe("a tree's board", function()
  after_each(H.restore)

  local function tree_of(root)
    return bt.BT({GUID = 1}, root or bt.ActionNode(function() end, "A"), Board)
  end

  it("reads nil for a key that is unset, and what the host writes; nil unsets", function()
    local tree = tree_of()
    local board = tree.board
    assert.equal(board, tree.board) -- one board per tree
    assert.is_nil(board.hunger)
    board.hunger = 0.8
    board.count = 3
    board.night = true
    board.mood = "calm"
    assert.equal(0.8, board.hunger)
    assert.equal(3, board.count)
    assert.is_true(board.night)
    assert.equal("calm", board.mood)
    board.count = 4.0 -- a float with an integral value is an integer
    assert.equal(4, board.count)
    assert.equal(math.type(board.count), "integer")
    board.hunger = 2 -- an integer is a number
    assert.equal(math.type(board.hunger), "float")
    board.night = false
    assert.is_false(board.night)
    board.hunger = nil
    assert.is_nil(board.hunger)
    local seen = {}
    for k, v in pairs(board) do seen[k] = v end
    assert.same({count = 4, mood = "calm", night = false}, seen)
  end)

  it("is saved with the tree, and a save refused names the key that holds a Lua value", function()
    local tree = tree_of()
    tree.board.hunger = 0.25
    tree.board.mood = "calm"
    local s = tree:save()
    local other = tree_of()
    other:restore(s)
    assert.equal(0.25, other.board.hunger)
    assert.equal("calm", other.board.mood)
    tree.board.target = {}
    local ok, err = pcall(tree.save, tree)
    assert.is_false(ok)
    assert.equal("save: key 'target' holds a Lua value, which cannot be saved (a key of type any is saved only when nil)", err)
    tree.board.target = nil
    assert.is_string(tree:save())
  end)

  it("takes an entity as an integer id, or a table's GUID (else its id), and reads it as the id", function()
    local board = tree_of().board
    board.prey = 12
    assert.equal(12, board.prey)
    board.prey = {GUID = 40, id = 9}
    assert.equal(40, board.prey)
    board.prey = {id = 9}
    assert.equal(9, board.prey)
    board.prey = nil
    assert.is_nil(board.prey)
  end)

  it("raises errors naming the key and both types, and unknown keys", function()
    local board = tree_of().board
    local cases = {
      {function() board.hunger = "x" end, "board key 'hunger' takes a number, got string"},
      {function() board.count = 0.5 end, "board key 'count' takes an integer, got a number that is not whole (0.5)"},
      {function() board.count = "3" end, "board key 'count' takes an integer, got string"},
      {function() board.night = 1 end, "board key 'night' takes a boolean, got number"},
      {function() board.mood = 5 end, "board key 'mood' takes a string, got number"},
      {function() board.prey = {name = "wolf"} end, "board key 'prey' takes an entity, got a table without an integer GUID or id"},
      {function() board.prey = 1.5 end, "board key 'prey' takes an entity, got a number that is not whole"},
      {function() board.hungr = 1 end, "board: no key 'hungr' (its keys: count, hunger, mood, night, prey, target)"},
      {function() return board.hungr end, "board: no key 'hungr' (its keys: count, hunger, mood, night, prey, target)"},
    }
    raise_where_written(cases)
    assert.is_nil(board.hunger) -- a refused write changes nothing
  end)

  it("keeps an \"any\" value as it is, in the tree's Lua state", function()
    local board = tree_of().board
    local t = {x = 1}
    board.target = t
    assert.equal(t, board.target)
    board.target = print
    assert.equal(print, board.target)
    board.target = nil
    assert.is_nil(board.target)
  end)

  it("is nil for a tree without one, which calls its functions with inst alone, as before", function()
    local counts = {}
    local Node = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "N") end)
    function Node:Visit()
      counts.node_board = self.board == nil
      self.status = bt.SUCCESS
    end
    local tree = bt.BT({}, bt.SequenceNode({
      bt.ConditionNode(function(...) counts.cond = select("#", ...); return true end, "C"),
      bt.ActionNode(function(...) counts.action = select("#", ...) end, "A"),
      Node(),
    }))
    tree:Update()
    assert.is_nil(tree.board)
    assert.same({cond = 1, action = 1, node_board = true}, counts)
    -- a behaviour whose own fields are named reads and writes, and the options of before
    local Reader = bt.Class(bt.BehaviourNode, function(self)
      bt.BehaviourNode._ctor(self, "Reader")
      self.reads, self.writes = 0, "a book"
    end)
    function Reader:Visit() self.reads = self.reads + 1; self.status = bt.SUCCESS end
    local reader = bt.BT({}, Reader())
    reader:Update()
    assert.equal(1, reader.root.reads)
    local exact = bt.BT({}, bt.ConditionNode(function(...) counts.exact = select("#", ...) end), {exact = true})
    exact:Update()
    assert.equal(0, counts.exact)
    assert.is_nil(exact.board)
  end)

  it("is the second argument of the tree's functions, and a node's self.board", function()
    local got = {}
    local Node = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "N") end)
    function Node:Visit()
      got.node = self.board
      self.status = bt.SUCCESS
    end
    local tree = tree_of(bt.SequenceNode({
      bt.ConditionNode(function(inst, board) got.cond = {inst, board}; return true end, "C"),
      bt.MultiConditionNode(function(_, board) got.start = board; return true end,
                            function(_, board) got.continue = board; return true end, "M"),
      bt.ConditionWaitNode(function(_, board) got.wait = board; return true end, "W"),
      bt.ActionNode(function(_, board) got.action = board end, "A"),
      Node(),
    }))
    tree:Update()
    assert.equal(tree.inst, got.cond[1])
    for _, k in ipairs({"start", "wait", "action", "node"}) do
      assert.equal(tree.board, got[k], k)
    end
    assert.equal(tree.board, got.cond[2])
  end)

  it("is written by a leaf and seen by the nodes visited after it in the same think", function()
    local seen
    local tree = tree_of(bt.SequenceNode({
      bt.ActionNode(function(_, board) board.prey = 7 end, "Spot", {writes = {"prey"}}),
      bt.ConditionNode(function(_, board) seen = board.prey; return true end, "Check", {reads = {prey = "entity"}}),
    }))
    tree:Update()
    assert.equal(7, seen)
  end)

  it("reports a leaf's bad write as that node's error, and the tree goes on", function()
    local errs = H.errors()
    local tree = tree_of(bt.SequenceNode({
      bt.ActionNode(function(_, board) board.hunger = "lots" end, "Eat"),
    }))
    tree:Update()
    assert.equal(1, #errs)
    assert.truthy(errs[1]:find("Sequence/Eat: .*board key 'hunger' takes a number, got string"), errs[1])
  end)
end)

describe("ports", function()
  after_each(H.restore)

  it("show in tree:snapshot() as reads and writes, a WatchNode's condition a read", function()
    local tree = bt.BT({GUID = 1}, bt.SequenceNode({
      bt.WatchNode({"hunger", ">", 0.5}, "Hungry"),
      bt.ActionNode(function() end, "Spot", {reads = {"hunger", "night"}, writes = {"prey"}}),
    }), Board)
    local snap = tree:snapshot()
    assert.is_nil(snap[1].reads)
    assert.is_nil(snap[1].writes)
    assert.same({"hunger"}, snap[2].reads)
    assert.is_nil(snap[2].writes)
    assert.same({"hunger", "night"}, snap[3].reads)
    assert.same({"prey"}, snap[3].writes)
  end)

  it("are given by the leaf constructors' options, checked there", function()
    local n = bt.ActionNode(function() end, "A", {reads = {"hunger"}, writes = {prey = "entity"}})
    assert.same({"hunger"}, n.reads)
    assert.same({prey = "entity"}, n.writes)
    local cases = {
      {function() bt.ActionNode(function() end, "A", 5) end,
       "bad argument #3 to 'ActionNode' (table or nil expected, got number)"},
      {function() bt.ConditionNode(function() end, "C", {raeds = {"x"}}) end,
       "bad argument #3 to 'ConditionNode' (unknown option 'raeds' (reads and writes expected))"},
      {function() bt.ConditionWaitNode(function() end, "W", {reads = "hunger"}) end,
       "bad argument #3 to 'ConditionWaitNode' (reads: a list of key names expected, got string)"},
      {function() bt.MultiConditionNode(function() end, function() end, "M", {writes = {3}}) end,
       "bad argument #4 to 'MultiConditionNode' (writes[1]: a key name expected, got number)"},
      {function() bt.TaskNode({update = function() end}, "T", {reads = {hunger = "float"}}) end,
       "bad argument #3 to 'TaskNode' (reads.hunger: a key type (\"number\", \"integer\", \"boolean\", \"string\", \"entity\" or \"any\") expected, got 'float')"},
    }
    raise_where_written(cases)
  end)

  it("that are wrong make BT raise the core's message, naming the node, its path, file and line", function()
    local where = next_line()
    local hunt = bt.ActionNode(function() end, "Hunt", {writes = {"pray"}})
    local err = error_of(bt.BT, {}, bt.PriorityNode({hunt}, 1), Board)
    assert.equal("BT: ActionNode 'Hunt' (Priority/Hunt, " .. where .. ") writes key 'pray', which is not declared", err)

    where = next_line()
    local watch = bt.WatchNode({"hungr", ">", 0.7}, "Hungry", bt.ActionNode(function() end))
    err = error_of(bt.BT, {}, bt.PriorityNode({watch}), Board)
    assert.equal("BT: WatchNode 'Hungry' (Priority/Hungry, " .. where .. ") reads key 'hungr', which is not declared", err)

    where = next_line()
    local c = bt.ConditionNode(function() end, "Full", {reads = {hunger = "integer"}})
    err = error_of(bt.BT, {}, c, Board)
    assert.equal("BT: ConditionNode 'Full' (Full, " .. where .. ") reads key 'hunger' as an integer, but it is declared a number", err)

    where = next_line()
    c = bt.ConditionNode(function() end, "HasPrey", {reads = {"prey"}}) -- no node writes it
    err = error_of(bt.BT, {}, c, Board)
    assert.truthy(err:find("BT: ConditionNode 'HasPrey' (HasPrey, " .. where .. ") reads key 'prey', which no node", 1, true), err)

    -- a tree without a board has no keys
    where = next_line()
    c = bt.ConditionNode(function() end, "Dark", {reads = {"night"}})
    err = error_of(bt.BT, {}, c)
    assert.equal("BT: ConditionNode 'Dark' (Dark, " .. where .. ") reads key 'night', which is not declared", err)
  end)

  it("may be assigned before BT (where: the assignment) or set by a class's constructor", function()
    local node = bt.ActionNode(function() end, "Eat")
    local where = next_line()
    node.reads = {"hungry"}
    local err = error_of(bt.BT, {}, node, Board)
    assert.equal("BT: ActionNode 'Eat' (Eat, " .. where .. ") reads key 'hungry', which is not declared", err)

    local Stalk = bt.Class(bt.BehaviourNode, function(self)
      bt.BehaviourNode._ctor(self, "Stalk")
      self.writes = {"prey"}
      self.reads = {"nite"}
    end)
    function Stalk:Visit() self.status = bt.SUCCESS end
    where = next_line()
    local stalk = Stalk()
    err = error_of(bt.BT, {}, stalk, Board)
    assert.equal("BT: BehaviourNode 'Stalk' (Stalk, " .. where .. ") reads key 'nite', which is not declared", err)
  end)
end)

describe("WatchNode", function()
  after_each(H.restore)

  it("takes a condition, a name (a readable default), a child and an abort mode", function()
    local child = bt.ActionNode(function() end, "Hunt")
    local w = bt.WatchNode({"hunger", ">", 0.7}, nil, child, "lower")
    assert.is_true(w:is_a(bt.WatchNode))
    assert.is_true(w:is_a(bt.BehaviourNode))
    assert.equal("Watch(hunger > 0.7)", w.name)
    assert.same({child}, w.children)
    assert.equal(w, child.parent)
    assert.equal("lower", w.abort)
    assert.equal("none", bt.WatchNode({"night"}).abort)
    assert.equal("Watch(night)", bt.WatchNode({"night"}).name)
    assert.equal("Watch(prey is set)", bt.WatchNode({"prey", "is set"}).name)
    assert.equal('Watch(mood == "angry")', bt.WatchNode({"mood", "==", "angry"}).name)
    assert.equal("Watch(prey == 12)", bt.WatchNode({"prey", "==", {GUID = 12}}).name)
    assert.equal("Watch(hunger, night)", bt.WatchNode({function() end, reads = {"night", "hunger"}}).name)
    assert.equal("Hungry", bt.WatchNode({"hunger", ">", 0.7}, "Hungry").name)
    assert.is_nil(bt.WatchNode({"night"}).children)
  end)

  it("raises luaL_argerror-style errors naming the argument", function()
    local leaf = bt.ActionNode(function() end)
    local cases = {
      {function() bt.WatchNode("hunger") end, "bad argument #1 to 'WatchNode' (table expected, got string)"},
      {function() bt.WatchNode({5}) end, "bad argument #1 to 'WatchNode' (cond[1]: a key name or a function expected, got number)"},
      {function() bt.WatchNode({"hunger", "=>", 1}) end,
       "bad argument #1 to 'WatchNode' (cond[2]: \"==\", \"~=\", \"<\", \"<=\", \">\", \">=\", \"is set\" or \"is not set\" expected, got '=>')"},
      {function() bt.WatchNode({"hunger", ">"}) end,
       "bad argument #1 to 'WatchNode' (cond[3]: a value to compare with expected (a number, string, boolean or entity), got nil)"},
      {function() bt.WatchNode({"prey", "is set", 1}) end, "bad argument #1 to 'WatchNode' (cond[3]: 'is set' takes no value)"},
      {function() bt.WatchNode({function() end}) end,
       "bad argument #1 to 'WatchNode' (a condition that is a function needs reads, the keys it reads: {fn, reads = {\"hunger\"}})"},
      {function() bt.WatchNode({"night"}, 5) end, "bad argument #2 to 'WatchNode' (string or nil expected, got number)"},
      {function() bt.WatchNode({"night"}, nil, 5) end, "bad argument #3 to 'WatchNode' (node expected, got number)"},
      {function() bt.WatchNode({"night"}, nil, leaf, "always") end,
       "bad argument #4 to 'WatchNode' (\"none\", \"self\", \"lower\", \"both\" or nil expected, got 'always')"},
      {function() bt.WatchNode({"night"}, nil, nil, "self") end,
       "bad argument #4 to 'WatchNode' (abort \"self\" ends the watch's own branch, which needs a child)"},
    }
    raise_where_written(cases)
  end)

  it("fails while its condition is false, else runs its child or succeeds", function()
    local tree = bt.BT({}, bt.SequenceNode({
      bt.WatchNode({"night"}, "Night"),
      bt.WatchNode({"hunger", ">=", 1}, "Starving"),
      bt.WatchNode({"mood", "~=", "calm"}, "Upset"),
      bt.WatchNode({"count", "<", 3}, "Few"),
    }), Board)
    H.clock(0)
    local function result()
      tree:Update()
      return tree:snapshot()[1].last
    end
    assert.equal("FAILED", result())
    tree.board.night = true
    tree.board.hunger = 1
    tree.board.count = 2
    assert.equal("SUCCESS", result()) -- an unset mood is unequal to anything
    tree.board.mood = "calm"
    assert.equal("FAILED", result())
    tree.board.mood = "upset"
    tree.board.count = 3.0 -- an integer key compared with 3, whole
    assert.equal("FAILED", result())
  end)

  it("with a function asks it with (inst, board)", function()
    local args
    local tree = bt.BT({}, bt.WatchNode({function(inst, board)
      args = {inst, board}
      return board.hunger and board.hunger > 0.5
    end, reads = {"hunger"}}, "Hungry"), Board)
    H.clock(0)
    tree:Update()
    assert.equal("FAILED", tree:snapshot()[1].last)
    assert.same({tree.inst, tree.board}, args)
    tree.board.hunger = 0.6
    tree:Update()
    assert.equal("SUCCESS", tree:snapshot()[1].last)
  end)
end)

-- a brain of the wrangler m whose tree is build(log); returns the brain
local function brain_of(m, build, board, log)
  local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
  function B:OnStart()
    self.bt = bt.BT(self.inst, build(log), board)
  end
  local inst = {}
  local b = B(inst)
  b.manager = m
  inst.brain = b
  b:Start()
  return b
end

local running = H.running

describe("waking brains", function()
  local m, clock, k
  before_each(function()
    clock = H.clock(0)
    m = bt.BrainWrangler()
    k = 0
  end)
  after_each(H.restore)

  local function tick(n)
    for _ = 1, n or 1 do
      k = k + 1
      clock.t = k / 30
      m:Update(k)
    end
  end
  local function thinks() return m:GetStats().thinks end

  -- hunts while hungry; with nothing to do it hibernates
  local function hunter(log)
    return bt.ActiveSelectorNode({
      bt.WatchNode({"hunger", ">", 0.7}, "Hungry", bt.TaskNode(task("Hunt", log), "Hunt"), "lower"),
    })
  end

  it("a watched write before Update makes a hibernating brain think in that Update", function()
    local log = {}
    local b = brain_of(m, hunter, Board, log)
    tick()
    assert.equal("hibernating", m:GetList(b))
    local before = thinks()
    tick(10)
    assert.equal(before, thinks()) -- hibernating: nothing thinks
    b.bt.board.hunger = 0.9
    assert.equal("updating", m:GetList(b))
    tick()
    assert.equal(before + 1, thinks())
    assert.equal("Hungry", running(b.bt))
  end)

  it("a write that wakes nothing causes no think", function()
    local b = brain_of(m, hunter, Board, {})
    tick()
    local before = thinks()
    b.bt.board.hunger = 0.5 -- still false
    b.bt.board.night = true -- read by nothing
    b.bt.board.mood = "sleepy"
    tick(30)
    assert.equal(before, thinks())
    assert.equal("hibernating", m:GetList(b))
  end)

  it("a brain wakes for a write to a key a running node reads", function()
    local b = brain_of(m, function()
      return bt.SequenceNode({bt.TaskNode({update = function() return bt.RUNNING, 100 end}, "Watching",
                                          {reads = {"night"}})})
    end, Board)
    tick()
    local before = thinks()
    tick(3)
    assert.equal(before, thinks())
    b.bt.board.night = true
    tick()
    assert.equal(before + 1, thinks())
  end)

  it("a leaf's own write wakes its brain no earlier than the next tick", function()
    local writes = 0
    local b = brain_of(m, function()
      return bt.ActiveSelectorNode({
        bt.WatchNode({"hunger", ">", 0.7}, "Hungry", bt.TaskNode(task("Hunt", {}), "Hunt"), "lower"),
        bt.ActionNode(function(_, board)
          writes = writes + 1
          if writes == 2 then board.hunger = 0.9 end
        end, "Tick", {writes = {"hunger"}}),
      })
    end, Board)
    tick() -- the first think: Tick succeeds, the tree hibernates
    b.bt.board.count = 1
    b:ForceUpdate()
    local before = thinks()
    tick() -- the second: Tick writes hunger, which flips Hungry
    assert.equal(before + 1, thinks())
    assert.equal("none", running(b.bt))
    assert.equal("updating", m:GetList(b)) -- due next tick, not in this one
    tick()
    assert.equal(before + 2, thinks())
    assert.equal("Hungry", running(b.bt))
  end)

  it("keeps waking the brain through its tree rebuilt, and not a brain that stopped", function()
    local b = brain_of(m, hunter, Board, {})
    tick()
    -- a script edits a children list: the tree is rebuilt at its next call, board and all
    b.bt.board.mood = "grumpy"
    table.insert(b.bt.root.children, bt.WatchNode({"night"}, "Night", bt.TaskNode(task("Sleep", {}), "Sleep"), "lower"))
    b:ForceUpdate()
    tick()
    assert.equal("grumpy", b.bt.board.mood)
    assert.equal("hibernating", m:GetList(b))
    b.bt.board.night = true
    tick()
    assert.equal("Night", running(b.bt))
    b:Stop()
    local before = thinks()
    b.bt.board.night = false
    b.bt.board.hunger = 1
    tick(3)
    assert.equal(before, thinks())
    assert.is_nil(m:GetList(b))
  end)

  it("wakes nothing once its wrangler's scheduler is freed", function()
    local w = bt.BrainWrangler()
    local b = brain_of(w, hunter, Board, {})
    w:Update(1)
    local sched = rawget(w, "_sched")
    getmetatable(sched).__gc(sched) -- what the collector does, in any order at lua_close
    b.bt.board.hunger = 0.9 -- the instance's waker is gone with its scheduler
    assert.equal(0, b.bt:GetSleepTime()) -- and the tree itself is due
  end)
end)

describe("abort modes", function()
  local clock, k
  before_each(function()
    clock = H.clock(0)
    k = 0
  end)
  after_each(H.restore)

  -- Threat (a watch of `threat`, over Flee) above Graze, under an ActiveSelector or a Priority of
  -- period 1: the branch running after the threat appears while Graze runs (and 40 ticks later),
  -- and after it goes while Flee runs; the tasks' ends
  local function run(root_kind, mode)
    local m = bt.BrainWrangler()
    local log = {}
    local b = brain_of(m, function()
      local kids = {
        bt.WatchNode({"threat", "is set"}, "Threat", bt.TaskNode(task("Flee", log), "Flee"), mode),
        bt.TaskNode(task("Graze", log), "Graze"),
      }
      if root_kind == "ActiveSelector" then return bt.ActiveSelectorNode(kids) end
      return bt.PriorityNode(kids, 1, true)
    end, bt.Blackboard {threat = {type = "entity", host = true}}, log)
    local function tick(n)
      for _ = 1, n or 1 do
        k = k + 1
        clock.t = k / 30
        m:Update(k)
      end
    end
    tick()
    local r = {running(b.bt)}
    b.bt.board.threat = 3
    tick()
    r[2] = running(b.bt)
    tick(40)
    r[3] = running(b.bt)
    b.bt.board.threat = nil
    tick()
    r[4] = running(b.bt)
    r[5] = table.concat(log, ", ")
    return r
  end

  -- what docs/blackboard.md's table says
  local expected = {
    ActiveSelector = {
      none  = {"Graze", "Graze", "Graze", "Graze", ""},
      self  = {"Graze", "Graze", "Graze", "Graze", ""},
      lower = {"Graze", "Threat", "Threat", "Threat", "Graze ABORTED"},
      both  = {"Graze", "Threat", "Threat", "Graze", "Graze ABORTED, Flee ABORTED"},
    },
    Priority = {
      none  = {"Graze", "Graze", "Threat", "Threat", "Graze ABORTED"},
      self  = {"Graze", "Graze", "Threat", "Graze", "Graze ABORTED, Flee ABORTED"},
      lower = {"Graze", "Threat", "Threat", "Threat", "Graze ABORTED"},
      both  = {"Graze", "Threat", "Threat", "Graze", "Graze ABORTED, Flee ABORTED"},
    },
  }
  for _, root_kind in ipairs({"ActiveSelector", "Priority"}) do
    for _, mode in ipairs({"none", "self", "lower", "both"}) do
      it(mode .. " under a " .. root_kind .. " root", function()
        assert.same(expected[root_kind][mode], run(root_kind, mode))
      end)
    end
  end

  it("tell a task that its branch was aborted", function()
    local log = {}
    local tree = bt.BT({}, bt.ActiveSelectorNode({
      bt.WatchNode({"night"}, "Night", bt.TaskNode(task("Sleep", log), "Sleep"), "self"),
    }), Board)
    tree.board.night = true
    tree:Update()
    tree.board.night = false
    tree:Update()
    assert.same({"Sleep ABORTED"}, log)
  end)
end)

describe("a board in shared definitions and subtrees", function()
  after_each(H.restore)

  it("bt.define(root, board) gives each entity's tree its own board", function()
    local def = bt.define(bt.ConditionNode(function(inst, board) return board.hunger == inst.want end, "Want",
                                           {reads = {"hunger"}}), Board)
    local a, b = def:instantiate({want = 1}), bt.BT({want = 2}, def)
    a.board.hunger = 1
    b.board.hunger = 1
    H.clock(0)
    a:Update()
    b:Update()
    assert.equal("SUCCESS", a:snapshot()[1].last)
    assert.equal("FAILED", b:snapshot()[1].last)
    assert.is_nil(bt.BT({}, def, Board).board.hunger) -- the same keys: accepted
    local err = error_of(bt.BT, {}, def, bt.Blackboard {hunger = "number"})
    assert.truthy(err:find("bad argument #3 to 'BT' (the definition was compiled with another board (its keys differ))", 1, true), err)
    err = error_of(bt.BT, {}, bt.define(bt.ActionNode(function() end)), Board)
    assert.truthy(err:find("compiled without a board (give it to bt.define)", 1, true), err)
  end)

  it("bt.SharedBrain(build, board) and named subtrees declare the board's keys", function()
    bt.define(bt.WatchNode({"night"}, "Dark", bt.ActionNode(function() end, "Hide")), "hide", Board)
    local B = bt.SharedBrain(function() return bt.SequenceNode({bt.SubtreeNode("hide")}) end, Board)
    local b = B({})
    b.manager = bt.BrainWrangler()
    b:Start()
    assert.is_nil(b.bt.board.night)
    b.bt.board.night = true
    H.clock(0)
    b.bt:Update()
    assert.equal("SUCCESS", b.bt:snapshot()[1].last)
    -- a tree that runs the subtree without the keys is refused, naming the subtree's node
    local err = error_of(bt.BT, {}, bt.SequenceNode({bt.SubtreeNode("hide")}))
    assert.truthy(err:find("BT: WatchNode 'Dark' (Sequence/hide/Dark, ", 1, true), err)
    b:Stop()
    bt.undefine("hide")
    assert.truthy(error_of(bt.SharedBrain, bt.ActionNode(function() end), 5):find(
      "bad argument #2 to 'SharedBrain' (Blackboard or nil expected, got number)", 1, true))
  end)

  it("trees built alike share their definition only with the same board", function()
    local function tree(board)
      return bt.BT({}, bt.ActionNode(function() end, "A"), board)
    end
    assert.is_nil(tree().board)
    assert.is_not_nil(tree(Board).board)
    assert.is_nil(tree().board)
    assert.same({}, (function() local s = {} for k in pairs(tree(bt.Blackboard {x = "number"}).board) do s[#s + 1] = k end return s end)())
    local err = error_of(function() tree(bt.Blackboard {x = "number"}).board.hunger = 1 end)
    assert.truthy(err:find("no key 'hunger' (its keys: x)", 1, true), err)
  end)
end)

describe("a board through a reload", function()
  -- in a process of its own: bt.reload.enable() changes require for good
  it("keeps every value, \"any\" ones too, and the brain wakes as before", function()
    local out, err, ok = H.run_lua([==[
local bt = require "bt"
bt.reload.enable()
local root = os.tmpname()
os.remove(root)
assert(os.execute("mkdir -p " .. root .. "/bbreload"))
package.path = root .. "/?.lua;" .. package.path
local function write(threshold)
  local f = assert(io.open(root .. "/bbreload/brain.lua", "w"))
  f:write(string.format([[
local bt = require "bt"
local Board = bt.Blackboard {hunger = {type = "number", host = true}, target = "any", night = "boolean"}
return bt.SharedBrain(function()
  return bt.ActiveSelectorNode({
    bt.WatchNode({"hunger", ">", %s}, "Hungry",
      bt.TaskNode({update = function() return bt.RUNNING, 100 end}, "Hunt"), "both"),
  })
end, Board)
]], threshold))
  f:close()
end
local running = require("helpers").running
local t = 0
bt.set_clock(function() return t end)
local m = bt.BrainWrangler()
write("0.9")
local B = require "bbreload.brain"
local b = B({})
b.manager = m
b:Start()
local k = 0
local function tick()
  k = k + 1
  t = k / 30
  m:Update(k)
end
tick()
local target = {}
b.bt.board.hunger = 0.8
b.bt.board.target = target
tick()
assert(m:GetList(b) == "hibernating")
local old = b.bt
write("0.7")
assert(bt.reload.module("bbreload.brain"))
assert(old ~= b.bt)
assert(b.bt.board.hunger == 0.8)
assert(b.bt.board.target == target)
tick() -- woken by the reload: 0.8 > 0.7 now
assert(running(b.bt) == "Hungry")
local thinks = m:GetStats().thinks
b.bt.board.hunger = 0.1 -- the watch aborts itself: its brain thinks, and hibernates
tick()
assert(m:GetStats().thinks == thinks + 1)
assert(m:GetList(b) == "hibernating")
old.board.hunger = 0.95 -- the old tree's board wakes nothing now
tick()
assert(m:GetStats().thinks == thinks + 1)
b.bt.board.hunger = 0.95
tick()
assert(m:GetStats().thinks == thinks + 2)
assert(running(b.bt) == "Hungry")
os.execute("rm -r " .. root)
print("ok")
]==])
    assert.is_true(ok, err)
    assert.equal("ok\n", out)
  end)
end)
