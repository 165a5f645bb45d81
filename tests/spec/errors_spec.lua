-- SPDX-License-Identifier: MIT
-- Errors in scripts (docs/lua-api.md: Errors in scripts).

local H = require "helpers"
local bt = H.bt
local SUCCESS, FAILED, READY, RUNNING = bt.SUCCESS, bt.FAILED, bt.READY, bt.RUNNING

local function has(s, sub)
  return type(s) == "string" and string.find(s, sub, 1, true) ~= nil
end

describe("an error in a node's Lua code", function()
  after_each(H.restore)

  it("fails that node for that visit, lets the think go on, and sends one message with text, traceback and path", function()
    local errs = H.errors()
    local log = {}
    local exploding = bt.ActionNode(function() error("kaboom-1234") end, "Exploding")
    local par = bt.ParallelNode { exploding }
    local nextleaf = H.leaf("Next", RUNNING, log)
    local root = bt.PriorityNode({ par, nextleaf }, 1, true)
    local tree = bt.BT({}, root)
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(1, #errs)
    local msg = errs[1]
    assert.is_string(msg)
    assert.is_true(has(msg, "kaboom-1234"), msg)
    assert.is_true(has(msg, "stack traceback"), msg)
    assert.is_true(has(msg, "Priority/Parallel/Exploding"), msg)
    assert.equal(FAILED, exploding.lastresult)
    assert.equal(FAILED, par.lastresult)
    assert.same({ "Next" }, log)
    assert.equal(RUNNING, root.lastresult)
  end)

  it("names the creature and the file of its brain's class, whichever brain shares the code", function()
    local errs = H.errors()
    -- two brain classes sharing Brain's methods: Lua's traceback may name the shared OnUpdate after
    -- either, so the message says which creature and brain it was
    local Villager = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    local sheep_line = debug.getinfo(1, "l").currentline + 1
    local Sheep = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function Villager:OnStart() self.bt = bt.BT(self.inst, bt.ActionNode(function() end, "Chat")) end
    function Sheep:OnStart()
      self.bt = bt.BT(self.inst, bt.PriorityNode({bt.ActionNode(function() error("no grass") end, "Graze")}, 1, true))
    end
    local villager, sheep = {kind = "villager", id = 3}, {kind = "sheep", id = 12}
    villager.brain, sheep.brain = Villager(villager), Sheep(sheep)
    villager.brain:OnStart()
    sheep.brain:OnStart()
    villager.brain:OnUpdate()
    sheep.brain:OnUpdate()
    assert.equal(1, #errs)
    local where = string.format("creature: sheep 12, brain: %s:%d", debug.getinfo(1, "S").short_src, sheep_line)
    assert.is_true(has(errs[1], "Priority/Graze: ") and has(errs[1], "no grass"), errs[1])
    assert.is_true(has(errs[1], "\n" .. where .. "\nstack traceback:"), errs[1])
    -- Don't Starve's entities: prefab and GUID; a tree without a brain names the creature only
    local tree = bt.BT({prefab = "pigman", GUID = 100042}, bt.ActionNode(function() error("oops") end, "Act"))
    tree:Update()
    assert.is_true(has(errs[2], "Act: ") and has(errs[2], "\ncreature: pigman 100042\nstack traceback:"), errs[2])
    -- a tree without an entity: the message as before
    bt.BT(nil, bt.ActionNode(function() error("plain") end, "Act")):Update()
    assert.is_false(has(errs[3], "creature:"), errs[3])
  end)

  it("names one node in its path: siblings that share a name are numbered", function()
    local errs = H.errors()
    local function chat(fail) return bt.ActionNode(function() if fail then error("hush") end end, "Chat") end
    local root = bt.SequenceNode({chat(false), bt.ActionNode(function() end, "Look"), chat(true)})
    bt.BT({}, bt.PriorityNode({bt.ActionNode(function() error("alone") end, "Solo"), root}, 1, true)):Update()
    assert.equal(2, #errs)
    assert.is_true(has(errs[1], "Priority/Solo: "), errs[1])
    assert.is_true(has(errs[2], "Priority/Sequence/Chat#2: "), errs[2])
  end)

  it("sends one message per failure, on every think that fails", function()
    local errs = H.errors()
    local tree = bt.BT({}, bt.SequenceNode { bt.ConditionNode(function() error("again") end, "Check") })
    tree:Update()
    tree:Update()
    assert.equal(2, #errs)
    assert.is_true(has(errs[2], "Sequence/Check"))
  end)

  local cases = {
    { "ConditionNode", function(boom) return bt.ConditionNode(boom, "Bad") end },
    { "ConditionWaitNode", function(boom) return bt.ConditionWaitNode(boom, "Bad") end },
    { "ActionNode", function(boom) return bt.ActionNode(boom, "Bad") end },
    { "MultiConditionNode start", function(boom) return bt.MultiConditionNode(boom, function() return true end, "Bad") end },
  }
  for _, case in ipairs(cases) do
    it("in a " .. case[1] .. " function fails the node", function()
      local errs = H.errors()
      local node = case[2](function() error("leaf-err") end)
      local tree = bt.BT({}, bt.SelectorNode { node, H.leaf("After", SUCCESS) })
      tree:Update()
      assert.equal(FAILED, node.lastresult)
      assert.equal(1, #errs)
      assert.is_true(has(errs[1], "leaf-err"))
      assert.is_true(has(errs[1], "Selector/Bad"))
      assert.equal(SUCCESS, tree:snapshot()[1].last)
    end)
  end

  it("in a WhileNode condition fails the condition, and so the While", function()
    local errs = H.errors()
    local body = H.leaf("Body", RUNNING)
    local w = bt.WhileNode(function() error("cond-err") end, "Guard", body)
    local tree = bt.BT({}, w)
    tree:Update()
    assert.equal(FAILED, w.children[1].lastresult)
    assert.equal(FAILED, w.lastresult)
    assert.equal(0, body.visits)
    assert.is_true(has(errs[1], "Parallel/Guard"))
  end)

  it("in a WaitNode time function fails the WaitNode", function()
    H.clock(0)
    local errs = H.errors()
    local w = bt.WaitNode(function() error("time-err") end)
    local tree = bt.BT({}, bt.SelectorNode { w, H.leaf("After", RUNNING) })
    tree:Update()
    assert.equal(FAILED, w.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "time-err"))
    assert.is_true(has(errs[1], "Selector/Wait"))
  end)

  it("in a LatchNode duration function fails the LatchNode", function()
    H.clock(0)
    local errs = H.errors()
    local child = H.leaf("C", SUCCESS)
    local latch = bt.LatchNode({}, function() error("dur-err") end, child)
    local tree = bt.BT({}, bt.SelectorNode { latch, H.leaf("After", RUNNING) })
    tree:Update()
    assert.equal(FAILED, latch.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "dur-err"))
  end)

  it("in a custom Visit fails the node even if it set RUNNING first", function()
    local errs = H.errors()
    local Bad = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Bad") end)
    function Bad:Visit()
      self.status = RUNNING
      error("visit-err")
    end
    local b = Bad()
    local tree = bt.BT({}, bt.SequenceNode { b })
    tree:Update()
    assert.equal(FAILED, b.lastresult)
    assert.equal(READY, b.status)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "Sequence/Bad"))
  end)

  it("in a child visited by a custom parent fails the child; the parent goes on and sees FAILED", function()
    local errs = H.errors()
    local seen
    local Wrap = bt.Class(bt.BehaviourNode, function(self, child) bt.BehaviourNode._ctor(self, "Wrap", { child }) end)
    function Wrap:Visit()
      local child = self.children[1]
      child:Visit()
      seen = child.status
      self.status = SUCCESS
    end
    local bad = bt.ActionNode(function() error("deep-err") end, "Deep")
    local w = Wrap(bad)
    local tree = bt.BT({}, bt.SequenceNode { w })
    tree:Update()
    assert.equal(FAILED, seen)
    assert.equal(FAILED, bad.lastresult)
    assert.equal(SUCCESS, w.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "Sequence/Wrap/Deep"))
  end)

  it("with a non-string error value still reaches the handler as one message", function()
    local errs = H.errors()
    local node = bt.ActionNode(function() error({ code = 1 }) end, "Tbl")
    local tree = bt.BT({}, node)
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(1, #errs)
    assert.is_string(errs[1])
    assert.equal(FAILED, node.lastresult)
  end)
end)

describe("the error handler", function()
  after_each(H.restore)

  it("defaults to standard error", function()
    local out, err, ok = H.run_lua([[
      local bt = require "bt"
      local tree = bt.BT({}, bt.SequenceNode { bt.ActionNode(function() error("to-stderr-5678") end, "Boom") })
      tree:Update()
      print("done")
    ]])
    assert.is_truthy(ok, err)
    assert.equal("done\n", out)
    assert.is_true(has(err, "to-stderr-5678"), err)
    assert.is_true(has(err, "Sequence/Boom"), err)
  end)

  it("set_error_handler(nil) restores the default", function()
    local out, err, ok = H.run_lua([[
      local bt = require "bt"
      local got = 0
      bt.set_error_handler(function() got = got + 1 end)
      bt.set_error_handler(nil)
      local tree = bt.BT({}, bt.SequenceNode { bt.ActionNode(function() error("back-to-stderr") end, "Boom") })
      tree:Update()
      print("got=" .. got)
    ]])
    assert.is_truthy(ok, err)
    assert.equal("got=0\n", out)
    assert.is_true(has(err, "back-to-stderr"), err)
  end)

  -- the repeats that the count lines of standard error tell, by head: {head = {more, total}}
  local function counts_of(err)
    local counts = {}
    for more, total, head in err:gmatch("bt: the same error (%d+) more times? %((%d+) in all%): ([^\n]*)\n") do
      local c = counts[head] or {0, 0}
      counts[head] = {c[1] + tonumber(more), math.max(c[2], tonumber(total))}
    end
    return counts
  end

  it("by default writes an error once in full, then counts its repeats, whatever the creature", function()
    -- four creatures of one definition, each failing the same two conditions at every think
    local out, err, ok = H.run_lua([[
      local bt = require "bt"
      local def = bt.define(bt.SelectorNode {
        bt.ConditionNode(function(inst) return inst.hunger > 1 end, "Hungry"), -- hunger is nil
        bt.ConditionNode(function() error("broken-7") end, "Broken"),
      })
      local trees = {}
      for i = 1, 4 do trees[i] = bt.BT({kind = "sheep", id = i}, def) end
      for _ = 1, 250 do
        for i = 1, 4 do trees[i]:Update() end
      end
      print("done")
    ]])
    assert.is_truthy(ok, err)
    assert.equal("done\n", out)
    assert.equal(2, H.count(err, "stack traceback:"), err)
    assert.equal(2, H.count(err, "creature: sheep 1\n"), err) -- the first to fail, in full
    assert.equal(0, H.count(err, "creature: sheep 2"), err)
    local counts = counts_of(err)
    local hungry, broken
    for head, c in pairs(counts) do
      if has(head, "Selector/Hungry: ") and has(head, "attempt to compare") then hungry = c end
      if has(head, "Selector/Broken: ") and has(head, "broken-7") then broken = c end
    end
    -- the counts not written yet are written when the state closes: every repeat is told
    assert.same({999, 1000}, hungry, err)
    assert.same({999, 1000}, broken, err)
  end)

  it("by default writes the counts with an error a second (real time) after the last ones", function()
    local _, err, ok = H.run_lua([[
      local bt = require "bt"
      local tree = bt.BT({}, bt.SequenceNode { bt.ConditionNode(function() error("again-9") end, "Broken") })
      tree:Update()
      tree:Update()
      os.execute("sleep 1.2")
      tree:Update()
      io.stderr:write("still open\n")
    ]])
    assert.is_truthy(ok, err)
    assert.equal(1, H.count(err, "stack traceback:"), err)
    local line = err:match("bt: the same error [^\n]*again%-9\nstill open\n$")
    assert.is_truthy(line, err)
    assert.is_true(has(line, "the same error 2 more times (3 in all): Sequence/Broken: "), err)
  end)

  it("set with bt.set_error_handler gets every error in full, each time", function()
    local errs = H.errors()
    local tree = bt.BT({}, bt.SequenceNode { bt.ConditionNode(function() error("again-11") end, "Broken") })
    for _ = 1, 100 do tree:Update() end
    assert.equal(100, #errs)
    for _, msg in ipairs(errs) do
      assert.is_true(has(msg, "Sequence/Broken: ") and has(msg, "again-11") and has(msg, "stack traceback:"), msg)
    end
  end)

  it("drops an error raised inside the handler", function()
    local calls = 0
    bt.set_error_handler(function() calls = calls + 1; error("handler broke") end)
    local log = {}
    local tree = bt.BT({}, bt.SelectorNode {
      bt.ActionNode(function() error("first") end, "One"),
      bt.ActionNode(function() error("second") end, "Two"),
      H.leaf("Three", RUNNING, log),
    })
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(2, calls)
    assert.same({ "Three" }, log)
  end)
end)

describe("constructor argument errors", function()
  local function msg_of(fn)
    local ok, msg = pcall(fn)
    assert.is_false(ok)
    return tostring(msg)
  end
  local leaf = function() return bt.ActionNode(function() end) end

  it("read like luaL_argerror: bad argument #1 to 'PriorityNode' (table expected, got number)", function()
    local msg = msg_of(function() return bt.PriorityNode(5) end)
    assert.is_true(has(msg, "bad argument #1 to 'PriorityNode' (table expected, got number)"), msg)
  end)

  local cases = {
    { "SequenceNode", 1, function() return bt.SequenceNode(5) end },
    { "SelectorNode", 1, function() return bt.SelectorNode(5) end },
    { "ParallelNode", 1, function() return bt.ParallelNode(5) end },
    { "ParallelNodeAny", 1, function() return bt.ParallelNodeAny(5) end },
    { "LoopNode", 1, function() return bt.LoopNode(5) end },
    { "RandomNode", 1, function() return bt.RandomNode(5) end },
    { "ConditionNode", 1, function() return bt.ConditionNode(5) end },
    { "ConditionWaitNode", 1, function() return bt.ConditionWaitNode(5) end },
    { "ActionNode", 1, function() return bt.ActionNode(5) end },
    { "MultiConditionNode", 1, function() return bt.MultiConditionNode(5, function() end) end },
    { "MultiConditionNode", 2, function() return bt.MultiConditionNode(function() end, 5) end },
    { "WaitNode", 1, function() return bt.WaitNode({}) end },
    { "NotDecorator", 1, function() return bt.NotDecorator(5) end },
    { "FailIfRunningDecorator", 1, function() return bt.FailIfRunningDecorator(5) end },
    { "FailIfSuccessDecorator", 1, function() return bt.FailIfSuccessDecorator(5) end },
    { "EventNode", 3, function() return bt.EventNode({}, "e", 5) end },
    { "LatchNode", 2, function() return bt.LatchNode({}, {}, leaf()) end },
    { "LatchNode", 3, function() return bt.LatchNode({}, 1, 5) end },
    { "BT", 2, function() return bt.BT({}, 5) end },
  }
  for _, case in ipairs(cases) do
    it("name the function and the argument: " .. case[1] .. " #" .. case[2], function()
      local msg = msg_of(case[3])
      local want = string.format("bad argument #%d to '%s'", case[2], case[1])
      assert.is_true(has(msg, want), msg)
    end)
  end

  it("name the constructor when a child is not a node", function()
    local msg = msg_of(function() return bt.SequenceNode { leaf(), 5 } end)
    assert.is_true(has(msg, "'SequenceNode'"), msg)
    msg = msg_of(function() return bt.PriorityNode({ "x" }, 1) end)
    assert.is_true(has(msg, "'PriorityNode'"), msg)
  end)
end)

describe("set_instruction_limit", function()
  after_each(H.restore)

  it("stops a runaway leaf with an error handled like any other", function()
    local errs = H.errors()
    bt.set_instruction_limit(100000)
    local log = {}
    local spin = bt.ActionNode(function() while true do end end, "Spin")
    local tree = bt.BT({}, bt.SelectorNode { spin, H.leaf("Next", RUNNING, log) })
    tree:Update()
    assert.equal(FAILED, spin.lastresult)
    assert.same({ "Next" }, log)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "Selector/Spin"), errs[1])
  end)

  it("stops a runaway custom Visit and condition", function()
    local errs = H.errors()
    bt.set_instruction_limit(50000)
    local Loop = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Loopy") end)
    function Loop:Visit() while true do end end
    local l = Loop()
    local cond = bt.ConditionNode(function() while true do end end, "Forever")
    local tree = bt.BT({}, bt.ParallelNodeAny { l })
    tree:Update()
    assert.equal(FAILED, l.lastresult)
    local t2 = bt.BT({}, bt.SequenceNode { cond })
    t2:Update()
    assert.equal(FAILED, cond.lastresult)
    assert.equal(2, #errs)
  end)

  it("bounds each call separately, and 0 removes the bound", function()
    local errs = H.errors()
    local function work(n)
      return function()
        local x = 0
        for i = 1, n do x = x + i end
        return x
      end
    end
    local nodes = {}
    for i = 1, 10 do nodes[i] = bt.ActionNode(work(1500), "W" .. i) end
    local tree = bt.BT({}, bt.SequenceNode(nodes))
    bt.set_instruction_limit(20000)
    tree:Update()
    assert.same({}, errs)
    assert.equal(SUCCESS, tree:snapshot()[1].last)

    local big = bt.ActionNode(work(200000), "Big")
    local t2 = bt.BT({}, big)
    t2:Update()
    assert.equal(FAILED, big.lastresult)
    assert.equal(1, #errs)
    bt.set_instruction_limit(0)
    t2:Update()
    assert.equal(SUCCESS, big.lastresult)
    assert.equal(1, #errs)
  end)
end)

describe("set_instruction_limit against scripts that fight it", function()
  after_each(H.restore)

  it("stops a leaf that catches the limit's error with pcall and loops", function()
    local errs = H.errors()
    bt.set_instruction_limit(100000)
    local sneaky = bt.ActionNode(function()
      while true do pcall(function() while true do end end) end
    end, "Sneaky")
    local tree = bt.BT({}, bt.SelectorNode { sneaky, bt.ActionNode(function() end, "Next") })
    tree:Update()
    assert.equal(FAILED, sneaky.lastresult)
    assert.equal(SUCCESS, tree.root.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "Selector/Sneaky"), errs[1])
    assert.is_true(has(errs[1], "instruction limit exceeded"), errs[1])
  end)

  it("bounds a coroutine made during the call, and lets it run free after", function()
    local errs = H.errors()
    bt.set_instruction_limit(100000)
    local co
    local tree = bt.BT({}, bt.ActionNode(function()
      co = coroutine.create(function()
        for i = 1, math.huge do
          if i % 500000 == 0 then coroutine.yield(i) end
        end
      end)
      local ok = coroutine.resume(co)
      assert(not ok)
    end, "Spawner"))
    tree:Update()
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "instruction limit exceeded"), errs[1])
    -- outside bt's calls, a new coroutine of the same code runs unbounded
    local free = coroutine.create(function()
      for i = 1, math.huge do
        if i % 500000 == 0 then coroutine.yield(i) end
      end
    end)
    assert.same({ true, 500000 }, { coroutine.resume(free) })
  end)
end)

describe("errors never escape", function()
  after_each(H.restore)

  it("from the clock", function()
    local errs = H.errors()
    H.clock(0)
    local tree = bt.BT({}, bt.SequenceNode { bt.WaitNode(2) })
    tree:Update()
    bt.set_clock(function() error("clock-broke") end)
    assert.has_no.errors(function() tree:Update() end)
    assert.has_no.errors(function() tree:GetSleepTime() end)
    assert.has_no.errors(function() tostring(tree) end)
    assert.is_true(#errs >= 1)
    assert.is_true(has(errs[1], "clock-broke"))
  end)

  it("from the clock read by a Sleep that a behaviour's Visit calls: the report names it", function()
    local errs = H.errors()
    H.clock(0)
    local Napper = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Napper") end)
    local visits = 0
    function Napper:Visit()
      visits = visits + 1
      self.status = RUNNING
      self:Sleep(1)
    end
    local tree = bt.BT({}, bt.SequenceNode { Napper() })
    bt.set_clock(function() error("clock-broke") end)
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(1, visits)
    assert.is_true(#errs >= 1)
    for _, e in ipairs(errs) do assert.is_true(has(e, "clock-broke"), e) end
  end)

  it("from a DBString during tostring; the other lines are still written", function()
    local errs = H.errors()
    local Bad = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Bad") end)
    function Bad:Visit() self.status = RUNNING end
    function Bad:DBString() error("db-err") end
    local tree = bt.BT({}, bt.SequenceNode { Bad() })
    tree:Update()
    local s
    assert.has_no.errors(function() s = tostring(tree) end)
    assert.is_string(s)
    assert.equal("Sequence - RUNNING <RUNNING> (1)>0.00\n", s:match("^[^\n]*\n"))
    assert.equal(2, H.count(s, "\n"))
    assert.is_truthy(s:find("\n   >Bad - RUNNING <RUNNING> (", 1, true))
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "db-err"))
  end)

  it("from the __tostring of a value a task's update returned instead of a status: the node fails, the tree thinks on", function()
    -- the message about the bad status formats the value; its __tostring ran unprotected inside
    -- the think, and its error left the tree thinking for good (and later a crash)
    local errs = H.errors()
    local bad = setmetatable({}, { __tostring = function() error("tostring-err") end })
    local answers = { bad, SUCCESS }
    local task = { update = function() return table.remove(answers, 1) end }
    local node = bt.TaskNode(task, "T")
    local tree = bt.BT({}, bt.SequenceNode { node })
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(FAILED, node.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "tostring-err"), errs[1])
    assert.is_true(has(errs[1], "Sequence/T"), errs[1])
    assert.has_no.errors(function() tree:Update() end)
    assert.equal(SUCCESS, node.lastresult)
    assert.equal(1, #errs)
    collectgarbage()
    assert.has_no.errors(function() tree:Update() end)
  end)

  it("from an OnStop; the other OnStops still run", function()
    local errs = H.errors()
    local ran = {}
    local A, B = H.leaf("A", SUCCESS), H.leaf("B", SUCCESS)
    A.OnStop = function() error("stop-err") end
    B.OnStop = function() ran[#ran + 1] = "B" end
    local root = bt.SequenceNode { A, B }
    root.OnStop = function() ran[#ran + 1] = "root" end
    local tree = bt.BT({}, root)
    assert.has_no.errors(function() tree:Stop() end)
    assert.same({ "root", "B" }, ran)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "stop-err"))
    assert.is_true(has(errs[1], "Sequence/A"))
  end)

  it("from a Reset override, in tree:Reset and in Step", function()
    local errs = H.errors()
    local R = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "R") end)
    function R:Visit() self.status = SUCCESS end
    function R:Reset() error("reset-err") end
    local tree = bt.BT({}, bt.SequenceNode { R(), H.leaf("Run", RUNNING) })
    assert.has_no.errors(function() tree:Update() end)
    assert.has_no.errors(function() tree:Reset() end)
    assert.is_true(#errs >= 1)
    assert.is_true(has(errs[1], "reset-err"))
  end)

  it("from a GetSleepTime override", function()
    local errs = H.errors()
    local S = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "S") end)
    function S:Visit() self.status = RUNNING end
    function S:GetSleepTime() error("sleep-err") end
    local tree = bt.BT({}, bt.SequenceNode { S() })
    tree:Update()
    local t
    assert.has_no.errors(function() t = tree:GetSleepTime() end)
    assert.is_true(t == nil or type(t) == "number")
    assert.is_true(#errs >= 1)
    assert.is_true(has(errs[1], "sleep-err"))
  end)

  it("from an event delivery: a failing inst.brain:ForceUpdate() does not stop the rest of the handler", function()
    local errs = H.errors()
    local c = H.clock(0)
    local inst = H.entity()
    inst.brain = { ForceUpdate = function() error("brain-err") end }
    local A = H.leaf("A", RUNNING)
    local root = bt.PriorityNode({ bt.EventNode(inst, "ev", A), H.leaf("L", RUNNING) }, 10, true)
    local tree = bt.BT(inst, root)
    tree:Update()
    c.t = 1
    assert.has_no.errors(function() inst:PushEvent("ev") end)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "brain-err"))
    tree:Update()
    assert.equal(1, A.visits)
  end)

  it("from an event delivery through tree:FireEvent", function()
    local errs = H.errors()
    H.clock(0)
    local inst = { brain = { ForceUpdate = function() error("brain-err-2") end } }
    local A = H.leaf("A", RUNNING)
    local tree = bt.BT(inst, bt.SequenceNode { bt.EventNode(inst, "ev", A) })
    assert.has_no.errors(function() tree:FireEvent("ev") end)
    assert.equal(1, #errs)
    tree:Update()
    assert.equal(1, A.visits)
  end)

  it("from a child's Reset when an event restarts a running EventNode", function()
    local errs = H.errors()
    H.clock(0)
    local inst = {}
    local C = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "C") end)
    function C:Visit() self.status = RUNNING end
    function C:Reset() error("child-reset-err") end
    local tree = bt.BT(inst, bt.SequenceNode { bt.EventNode(inst, "ev", C()) })
    tree:FireEvent("ev")
    tree:Update()
    assert.has_no.errors(function() tree:FireEvent("ev") end)
    assert.is_true(#errs >= 1)
    assert.is_true(has(errs[1], "child-reset-err"))
  end)
end)
