-- SPDX-License-Identifier: MIT
-- Custom behaviours written in Lua: bt.BehaviourNode subclasses, leaves and wrappers with children
-- (docs/lua-api.md: Custom behaviours written in Lua).

local H = require "helpers"
local bt = H.bt
local Class, BehaviourNode = bt.Class, bt.BehaviourNode
local SUCCESS, FAILED, READY, RUNNING = bt.SUCCESS, bt.FAILED, bt.READY, bt.RUNNING

-- A leaf in the usual shape of a Don't Starve behaviour: start on READY, run, sleep.
local Walk = Class(BehaviourNode, function(self, inst, duration)
  BehaviourNode._ctor(self, "Walk")
  self.inst = inst
  self.duration = duration
  self.seen = {}
end)

function Walk:Visit()
  self.seen[#self.seen + 1] = self.status
  if self.status == READY then
    self.started = bt.GetTime()
    self.status = RUNNING
  end
  if self.status == RUNNING then
    if bt.GetTime() - self.started >= self.duration then
      self.status = SUCCESS
    else
      self:Sleep(0.25)
    end
  end
end

function Walk:DBString()
  return string.format("walked %.2f", bt.GetTime() - self.started)
end

-- A cooldown wrapper with MinPeriod's semantics (behaviours/minperiod.lua), written here anew:
-- on a READY visit within `minperiod` of the child's last success it fails without visiting it.
local Cooldown = Class(BehaviourNode, function(self, inst, minperiod, immediate, child)
  BehaviourNode._ctor(self, "MinPeriod", { child })
  self.inst = inst
  self.minperiod = minperiod
  self.lastsuccesstime = (not immediate) and bt.GetTime() or nil
end)

function Cooldown:Visit()
  local now = bt.GetTime()
  local cooling = self.lastsuccesstime ~= nil and now - self.lastsuccesstime < self.minperiod
  if self.status == READY and cooling then
    self.status = FAILED
    return
  end
  local child = self.children[1]
  child:Visit()
  if child.status == SUCCESS then
    self.lastsuccesstime = bt.GetTime()
  end
  self.status = child.status
end

-- A wrapper in ChattyNode's shape: visits its child, copies its status, and (uselessly) sleeps.
local Talker = Class(BehaviourNode, function(self, child, nap)
  BehaviourNode._ctor(self, "Chatty", { child })
  self.nap = nap
end)

function Talker:Visit()
  local child = self.children[1]
  child:Visit()
  self.status = child.status
  if self.status == RUNNING then
    self:Sleep(self.nap)
  end
end

describe("a BehaviourNode leaf", function()
  after_each(H.restore)

  it("reads and sets self.status in Visit, sleeps with self:Sleep, shows its DBString while RUNNING", function()
    local c = H.clock(0)
    local w = Walk({}, 1)
    local tree = bt.BT({}, bt.SequenceNode { w })
    tree:Update()
    assert.equal(0.25, tree:GetSleepTime())
    assert.equal(H.dump {
      "Sequence - RUNNING <RUNNING> (1)>0.25",
      "   >Walk - RUNNING <RUNNING> (walked 0.00)>0.25",
    }, tostring(tree))
    c.t = 0.5
    assert.equal(0, tree:GetSleepTime())
    assert.equal("   >Walk - RUNNING <RUNNING> (walked 0.50)>0.00", select(2, tostring(tree):match("^([^\n]*)\n([^\n]*)\n$")))
    tree:Update()
    assert.equal(0.25, tree:GetSleepTime())
    c.t = 1
    tree:Update()
    assert.equal(SUCCESS, w.lastresult)
    assert.same({ READY, RUNNING, RUNNING }, w.seen)
    assert.equal(H.dump {
      "Sequence - READY <SUCCESS> ()>0.00",
      "   >Walk - READY <SUCCESS> ()>0.00",
    }, tostring(tree))
  end)

  it("is a node: is_a BehaviourNode, READY, named by _ctor, no children", function()
    local w = Walk({}, 1)
    assert.is_true(w:is_a(Walk))
    assert.is_true(w:is_a(BehaviourNode))
    assert.is_false(w:is_a(bt.ConditionNode))
    assert.equal("Walk", w.name)
    assert.equal(READY, w.status)
    assert.equal(READY, w.lastresult)
    assert.is_nil(w.children)
  end)

  it("gets the name \"\" when _ctor is given none", function()
    local Anon = Class(BehaviourNode, function(self) BehaviourNode._ctor(self) end)
    local tree = bt.BT({}, Anon())
    assert.equal(" - READY <READY> ()>0.00\n", tostring(tree))
  end)

  it("without a Visit of its own fails (the base Visit)", function()
    local Nothing = Class(BehaviourNode, function(self) BehaviourNode._ctor(self, "Nothing") end)
    local n = Nothing()
    local tree = bt.BT({}, n)
    tree:Update()
    assert.equal(FAILED, n.lastresult)
  end)

  it("is the same Lua object in Visit as the one its constructor returned, and keeps its fields", function()
    local selves = {}
    local Keep = Class(BehaviourNode, function(self)
      BehaviourNode._ctor(self, "Keep")
      self.count = 0
    end)
    function Keep:Visit()
      selves[#selves + 1] = self
      self.count = self.count + 1
      self.status = RUNNING
    end
    local k = Keep()
    local tree = bt.BT({}, k)
    tree:Update()
    tree:Update()
    assert.is_true(rawequal(k, selves[1]))
    assert.is_true(rawequal(k, selves[2]))
    assert.equal(2, k.count)
  end)

  it("keeps nextupdatetime through Reset: a later RUNNING visit without Sleep reports the old deadline (as written)", function()
    local c = H.clock(0)
    local n = 0
    local L = H.leaf("L", function(self)
      n = n + 1
      if n == 1 then
        self:Sleep(5)
        return RUNNING
      elseif n == 2 then
        return SUCCESS
      end
      return RUNNING
    end)
    local tree = bt.BT({}, bt.SequenceNode { L })
    tree:Update()
    assert.equal(5, tree:GetSleepTime())
    c.t = 1
    tree:Update()
    assert.is_nil(tree:GetSleepTime())
    c.t = 2
    tree:Update()
    assert.equal(RUNNING, L.status)
    assert.equal(3, tree:GetSleepTime())
  end)

  it("self.status is current in Visit, DBString, OnStop and event callbacks", function()
    local inst = H.entity()
    local Watch = Class(BehaviourNode, function(self, inst)
      BehaviourNode._ctor(self, "Watch")
      self.log = {}
      inst:ListenForEvent("poke", function() self.log[#self.log + 1] = "event " .. self.status end)
    end)
    function Watch:Visit()
      self.log[#self.log + 1] = "visit " .. self.status
      self.status = RUNNING
    end
    function Watch:DBString()
      self.log[#self.log + 1] = "dbstring " .. self.status
      return ""
    end
    function Watch:OnStop()
      self.log[#self.log + 1] = "stop " .. self.status
    end
    local w = Watch(inst)
    local tree = bt.BT(inst, bt.SequenceNode { w })
    inst:PushEvent("poke")
    tree:Update()
    inst:PushEvent("poke")
    local _ = tostring(tree)
    tree:Stop()
    tree:Reset()
    inst:PushEvent("poke")
    tree:Update()
    assert.same({
      "event READY", "visit READY", "event RUNNING", "dbstring RUNNING", "stop RUNNING", "event READY", "visit READY",
    }, w.log)
  end)

  local Lazy = Class(BehaviourNode, function(self, st, s)
    BehaviourNode._ctor(self, "Lazy")
    self.st, self.s = st, s
  end)
  function Lazy:Visit() self.status = self.st end
  function Lazy:GetSleepTime() return self.s end

  it("a GetSleepTime override counts while the node is RUNNING", function()
    H.clock(0)
    local tree = bt.BT({}, bt.ParallelNode { Lazy(RUNNING, 7), Lazy(RUNNING, 9) })
    tree:Update()
    assert.equal(7, tree:GetSleepTime())
  end)

  it("a GetSleepTime override of the root is consulted whatever its status", function()
    H.clock(0)
    assert.equal(3, bt.BT({}, Lazy(READY, 3)):GetSleepTime())
  end)
end)

describe("Reset and Step overrides", function()
  after_each(H.restore)

  it("a Reset override calling self._base.Reset(self) runs when Step resets the node", function()
    local Counter = Class(BehaviourNode, function(self)
      BehaviourNode._ctor(self, "Counter")
      self.n = 0
      self.resets = 0
    end)
    function Counter:Visit()
      self.n = self.n + 1
      self.status = self.n >= 2 and SUCCESS or RUNNING
    end
    function Counter:Reset()
      self._base.Reset(self)
      self.resets = self.resets + 1
      self.n = 0
    end
    local k = Counter()
    local tree = bt.BT({}, bt.SequenceNode { k })
    tree:Update()
    assert.equal(RUNNING, k.lastresult)
    tree:Update()
    assert.equal(SUCCESS, k.lastresult)
    assert.equal(READY, k.status)
    assert.is_true(k.resets >= 1)
    tree:Update()
    assert.equal(RUNNING, k.lastresult)
    assert.equal(1, k.n)
  end)

  it("Step reaches a READY node under a running parent and calls its Reset (how EventNode clears triggered)", function()
    local Flag = Class(BehaviourNode, function(self)
      BehaviourNode._ctor(self, "Flag")
      self.flag = false
    end)
    function Flag:Visit() self.status = self.flag and RUNNING or FAILED end
    function Flag:Reset()
      self.flag = false
      self._base.Reset(self)
    end
    local f = Flag()
    local tree = bt.BT({}, bt.SequenceNode { H.leaf("R", RUNNING), f })
    tree:Update()
    f.flag = true
    tree:Update()
    assert.is_false(f.flag)
    assert.equal(READY, f.status)
  end)

  it("a Step override runs when Step reaches the node, and a running Parallel does not pass Step on", function()
    local Stepper = Class(BehaviourNode, function(self)
      BehaviourNode._ctor(self, "Stepper")
      self.steps = 0
    end)
    function Stepper:Visit() self.status = RUNNING end
    function Stepper:Step()
      self.steps = self.steps + 1
      self._base.Step(self)
    end
    local a, b = Stepper(), Stepper()
    local t1 = bt.BT({}, bt.SequenceNode { a })
    t1:Update()
    t1:Update()
    assert.equal(2, a.steps)
    local t2 = bt.BT({}, bt.ParallelNode { b })
    t2:Update()
    t2:Update()
    assert.equal(0, b.steps)
  end)

  it("a Reset override does not run for OnStop, and an OnStop method is called by tree:Stop", function()
    local Both = Class(BehaviourNode, function(self)
      BehaviourNode._ctor(self, "Both")
      self.calls = {}
    end)
    function Both:Visit() self.status = RUNNING end
    function Both:Reset()
      self.calls[#self.calls + 1] = "reset"
      self._base.Reset(self)
    end
    function Both:OnStop() self.calls[#self.calls + 1] = "stop" end
    local n = Both()
    local tree = bt.BT({}, n)
    tree:Update()
    n.calls = {}
    tree:Stop()
    assert.same({ "stop" }, n.calls)
  end)
end)

describe("a BehaviourNode with children", function()
  after_each(H.restore)

  it("drives a built-in child as MinPeriod does: a cooldown measured from the child's last success", function()
    local c = H.clock(0)
    local calls = 0
    local act = bt.ActionNode(function() calls = calls + 1 end, "Escape")
    local cd = Cooldown({}, 3, false, act)
    local tree = bt.BT({}, cd)
    c.t = 1
    tree:Update()
    assert.equal(FAILED, cd.lastresult)
    assert.equal(0, calls)
    c.t = 3
    tree:Update()
    assert.equal(SUCCESS, cd.lastresult)
    assert.equal(1, calls)
    assert.equal(SUCCESS, act.lastresult)
    assert.equal(READY, act.status)
    c.t = 5
    tree:Update()
    assert.equal(FAILED, cd.lastresult)
    assert.equal(READY, act.lastresult)
    c.t = 6.5
    tree:Update()
    assert.equal(SUCCESS, cd.lastresult)
    assert.equal(2, calls)
  end)

  it("with immediate set, lets the child run at once", function()
    H.clock(0)
    local calls = 0
    local cd = Cooldown({}, 3, true, bt.ActionNode(function() calls = calls + 1 end))
    local tree = bt.BT({}, cd)
    tree:Update()
    assert.equal(1, calls)
  end)

  it("Step, SaveStatus, Reset, Stop and sleep times reach the children", function()
    local c = H.clock(0)
    local stops = {}
    local A = H.leaf("A", SUCCESS)
    local B = H.leaf("B", function(self) self:Sleep(2); return RUNNING end)
    B.OnStop = function() stops[#stops + 1] = "B" end
    local seq = bt.SequenceNode { A, B }
    local talker = Talker(seq, 100)
    local tree = bt.BT({}, talker)
    tree:Update()
    assert.equal(RUNNING, talker.lastresult)
    assert.equal(SUCCESS, A.lastresult)   -- SaveStatus
    assert.equal(READY, A.status)         -- Step reached the running Sequence
    assert.equal(RUNNING, B.lastresult)
    -- the wrapper's own Sleep is ignored, it has children (as written)
    assert.equal(2, tree:GetSleepTime())
    c.t = 0.5
    assert.equal(1.5, tree:GetSleepTime())
    assert.equal(H.dump {
      "Chatty - RUNNING <RUNNING> ()>1.50",
      "   >Sequence - RUNNING <RUNNING> (2)>1.50",
      "   >   >A - READY <SUCCESS> ()>0.00",
      "   >   >B - RUNNING <RUNNING> ()>1.50",
    }, tostring(tree))
    tree:Stop()
    assert.same({ "B" }, stops)
    tree:Reset()
    assert.equal(READY, talker.status)
    assert.equal(READY, seq.status)
    assert.equal(READY, B.status)
  end)

  it("a wrapper's Sleep does not cap a longer child sleep", function()
    H.clock(0)
    local tree = bt.BT({}, Talker(H.leaf("Long", function(self) self:Sleep(200); return RUNNING end), 100))
    tree:Update()
    assert.equal(200, tree:GetSleepTime())
  end)

  it("Step resets the children of a finished wrapper", function()
    local R = H.leaf("R", { RUNNING, FAILED })
    local talker = Talker(bt.SequenceNode { H.leaf("A", SUCCESS), R }, 1)
    local tree = bt.BT({}, talker)
    tree:Update()
    assert.equal(RUNNING, R.status)
    tree:Update()
    assert.equal(FAILED, talker.lastresult)
    assert.equal(READY, R.status)
    assert.equal(FAILED, R.lastresult)
  end)

  it("may reset its child itself", function()
    local Restart = Class(BehaviourNode, function(self, child)
      BehaviourNode._ctor(self, "Restart", { child })
    end)
    function Restart:Visit()
      local child = self.children[1]
      child:Reset()
      child:Visit()
      self.status = child.status
    end
    local R = H.leaf("R", RUNNING)
    local tree = bt.BT({}, Restart(R))
    tree:Update()
    tree:Update()
    tree:Update()
    assert.same({ READY, READY, READY }, R.entries)
  end)

  it("does not recurse Reset below a node left READY (as written)", function()
    local Quiet = Class(BehaviourNode, function(self, child)
      BehaviourNode._ctor(self, "Quiet", { child })
    end)
    function Quiet:Visit() self.children[1]:Visit() end -- leaves its own status READY
    local R = H.leaf("R", RUNNING)
    local tree = bt.BT({}, Quiet(R))
    tree:Update()
    assert.equal(RUNNING, R.status)
    tree:Reset()
    assert.equal(RUNNING, R.status)
    assert.same({
      "0 Quiet READY READY",
      "1 R RUNNING RUNNING",
    }, H.snap(tree))
  end)
end)

describe("DecoratorNode subclasses", function()
  after_each(H.restore)

  it("take their child as children[1] through DecoratorNode._ctor(self, name, child)", function()
    local Inverter = Class(bt.DecoratorNode, function(self, child)
      bt.DecoratorNode._ctor(self, "Inverter", child)
    end)
    function Inverter:Visit()
      local child = self.children[1]
      child:Visit()
      if child.status == SUCCESS then
        self.status = FAILED
      elseif child.status == FAILED then
        self.status = SUCCESS
      else
        self.status = child.status
      end
    end
    local child = H.leaf("C", SUCCESS)
    local inv = Inverter(child)
    assert.is_true(inv:is_a(bt.DecoratorNode))
    assert.is_true(inv:is_a(BehaviourNode))
    assert.equal(child, inv.children[1])
    assert.equal(inv, child.parent)
    local tree = bt.BT({}, inv)
    tree:Update()
    assert.equal(FAILED, inv.lastresult)
    assert.equal("Inverter", tree:snapshot()[1].name)
  end)

  it("are named Decorator by default", function()
    local Plain = Class(bt.DecoratorNode, function(self, child)
      bt.DecoratorNode._ctor(self, nil, child)
    end)
    function Plain:Visit() self.status = SUCCESS end
    local p = Plain(H.leaf("C", SUCCESS))
    assert.equal("Decorator", p.name)
  end)
end)
