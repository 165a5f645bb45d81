-- SPDX-License-Identifier: MIT
-- Brain, BrainWrangler and BrainManager: Don't Starve's brain.lua semantics (docs/scheduler.md).
local bt = require "bt"

local t
local function tick_to(manager, from, to)
  for k = from, to do
    t = k / 30
    manager:Update(k)
  end
end

-- A brain whose tree is a WaitNode of `seconds` (or whatever root build returns), logging thinks.
local function brain_class(build, log)
  local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
  function B:OnStart()
    self.bt = bt.BT(self.inst, build(self.inst))
  end
  local on_update = B.OnUpdate
  function B:OnUpdate()
    log[#log + 1] = self.inst.name
    on_update(self)
  end
  return B
end

-- A started brain of manager whose OnStart builds build(brain) as its tree; with slow, its OnUpdate
-- only calls Brain's, so that the wrangler calls the brain's methods instead of doing what
-- Brain's own would. Returns the brain and its class.
local function own_brain(manager, build, slow)
  local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
  function B:OnStart() self.bt = bt.BT(self.inst, build(self)) end
  if slow then function B:OnUpdate() bt.Brain.OnUpdate(self) end end
  local inst = {}
  local b = B(inst)
  b.manager = manager
  inst.brain = b
  b:Start()
  return b, B
end

describe("BrainWrangler", function()
  local m, log
  before_each(function()
    t = 0
    bt.set_clock(function() return t end)
    bt.set_tick_time(1 / 30)
    m = bt.BrainWrangler()
    log = {}
  end)
  after_each(function()
    bt.set_clock(nil)
    bt.set_tick_time(1 / 30)
  end)

  local function start(name, build, inst)
    inst = inst or {}
    inst.name = name
    local b = brain_class(build, log)(inst)
    b.manager = m
    inst.brain = b
    b:Start()
    return b, inst
  end

  it("thinks a brain of Brain's own methods as they would, and calls what a script puts in their place", function()
    -- two brains of the same tree: one with Brain's own methods, one whose OnUpdate only calls
    -- Brain's (so the wrangler calls its methods); they must be filed alike at every tick
    local function make(slow)
      return own_brain(m, function() return bt.SequenceNode{bt.WaitNode(0.5), bt.WaitNode(0.7)} end,
        slow)
    end
    local fast, F = make(false)
    local slow = make(true)
    local function same(from, to)
      for k = from, to do
        tick_to(m, k, k)
        local fl, fw = m:GetList(fast)
        local sl, sw = m:GetList(slow)
        assert.same({sl, sw}, {fl, fw}, "tick " .. k)
      end
    end
    same(1, 16)
    assert.equal("waiting", (m:GetList(fast)))
    -- the tree's methods patched in the BT table are called
    local update, updates = bt.BT.Update, 0
    bt.BT.Update = function(tree) updates = updates + 1; return update(tree) end
    local ok, err = pcall(same, 17, 40)
    bt.BT.Update = update
    assert(ok, err)
    assert.equal(2, updates) -- each brain once, when its second wait ended
    assert.equal("hibernating", (m:GetList(fast)))
    -- and so are a GetSleepTime and a DoUpdate of the brain's class
    local did = 0
    function F:DoUpdate() did = did + 1 end
    function F:GetSleepTime() return 1 end
    fast:ForceUpdate()
    tick_to(m, 41, 41)
    assert.equal(1, did)
    assert.same({"waiting", 41 + 30}, {m:GetList(fast)})
  end)

  it("files a brain by the tree it has after its think, when the think gave it another", function()
    local function make(slow)
      return own_brain(m, function(brain)
        return bt.ActionNode(function()
          brain.bt = bt.BT(brain.inst, bt.WaitNode(5)) -- as a reload during the think would
          brain.bt:Update()
        end, "Swap")
      end, slow)
    end
    local fast, slow = make(false), make(true)
    tick_to(m, 1, 1)
    assert.same({"waiting", 1 + 150}, {m:GetList(slow)})
    assert.same({m:GetList(slow)}, {m:GetList(fast)})
  end)

  it("allocates nothing per think of a brain", function()
    local function kb_over_ticks(nbrains)
      local w = bt.BrainWrangler()
      for _ = 1, nbrains do
        own_brain(w, function()
          return bt.PriorityNode({bt.ActionNode(function() end, "A"), bt.WaitNode(0.1)}, 0.25)
        end)
      end
      tick_to(w, 1, 60)
      collectgarbage()
      collectgarbage("stop")
      local before = collectgarbage("count")
      tick_to(w, 61, 600)
      local kb = collectgarbage("count") - before
      collectgarbage("restart")
      return kb
    end
    -- what the ticks themselves allocate is the same with no brain
    assert.equal(kb_over_ticks(0), kb_over_ticks(10))
  end)

  it("files a brain by its sleep time: floor(tick + sleep / tick_time)", function()
    local b = start("w", function() return bt.SequenceNode{bt.WaitNode(0.5)} end)
    assert.equal("updating", m:GetList(b))
    tick_to(m, 1, 1)
    assert.same({"w"}, log)
    local list, wake = m:GetList(b)
    assert.equal("waiting", list)
    assert.equal(16, wake)
    tick_to(m, 2, 15)
    assert.equal(1, #log)
    tick_to(m, 16, 16)
    assert.equal(2, #log)
    -- the Wait ended: the Sequence is READY, its sleep time nil: it hibernates
    assert.equal("hibernating", m:GetList(b))
    tick_to(m, 17, 100)
    assert.equal(2, #log)
  end)

  it("wakes a waiting brain only at its own tick: ticks that skip numbers leave it waiting", function()
    local b = start("w", function() return bt.SequenceNode{bt.WaitNode(0.5)} end)
    tick_to(m, 1, 1)
    assert.equal(16, select(2, m:GetList(b)))
    tick_to(m, 10, 10)
    tick_to(m, 20, 30) -- tick 16 never came: as Don't Starve's tickwaiters[current_tick]
    assert.equal(1, #log)
    assert.equal("waiting", m:GetList(b))
    m:Wake(b)
    tick_to(m, 31, 31)
    assert.equal(2, #log)
  end)

  it("keeps a period under the ds policy without using it", function()
    local b = start("w", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    m:SetPeriod(b, 0.1)
    tick_to(m, 1, 1)
    assert.equal(151, select(2, m:GetList(b))) -- the Wait's 5 s, not the period's 0.1
  end)

  it("uses the tick length set by bt.set_tick_time", function()
    bt.set_tick_time(0.1)
    local b = start("w", function() return bt.SequenceNode{bt.WaitNode(0.5)} end)
    m:Update(10)
    local _, wake = m:GetList(b)
    assert.equal(15, wake)
    assert.has_error(function() bt.set_tick_time(0) end)
    assert.has_error(function() bt.set_tick_time("x") end)
  end)

  it("keeps a brain that sleeps at most one tick among the updaters (a READY root Priority polls)", function()
    local b = start("p", function() return bt.PriorityNode({bt.ConditionNode(function() return false end)}, 1, true) end)
    tick_to(m, 1, 5)
    assert.equal(5, #log)
    assert.equal("updating", m:GetList(b))
  end)

  it("wakes a hibernating brain on ForceUpdate, and the tree reports 0 until it thinks", function()
    local b = start("h", function() return bt.SequenceNode{bt.ActionNode(function() end)} end)
    tick_to(m, 1, 1)
    assert.equal("hibernating", m:GetList(b))
    assert.is_nil(b:GetSleepTime())
    b:ForceUpdate()
    assert.equal("updating", m:GetList(b))
    assert.equal(0, b:GetSleepTime())
    tick_to(m, 2, 2)
    assert.equal(2, #log)
    assert.is_nil(b:GetSleepTime())
  end)

  it("wakes a brain through an EventNode: inst.brain:ForceUpdate()", function()
    local listeners = {}
    local inst = {}
    function inst:ListenForEvent(e, fn) listeners[e] = fn end
    function inst:RemoveEventCallback(e) listeners[e] = nil end
    local b = start("e", function(i)
      return bt.PriorityNode({bt.EventNode(i, "poke", bt.ActionNode(function(x) x.poked = true end, "Ouch"))}, 1, true)
    end, inst)
    tick_to(m, 1, 1)
    -- root Priority failed: READY, polling every tick until its period
    tick_to(m, 2, 40)
    listeners.poke(inst, "data")
    assert.equal("updating", m:GetList(b))
    tick_to(m, 41, 41)
    assert.is_true(inst.poked)
    b:Stop()
    assert.is_nil(listeners.poke)
    assert.is_nil(m:GetList(b))
  end)

  it("skips brains whose entity is invalid or asleep, keeping them among the updaters", function()
    local inst = {valid = true, asleep = false}
    inst.entity = {IsValid = function() return inst.valid end}
    function inst:IsAsleep() return self.asleep end
    local b = start("s", function() return bt.PriorityNode({bt.ConditionNode(function() return false end)}, 1, true) end, inst)
    inst.valid = false
    tick_to(m, 1, 3)
    assert.equal(0, #log)
    inst.valid, inst.asleep = true, true
    tick_to(m, 4, 6)
    assert.equal(0, #log)
    assert.equal("updating", m:GetList(b))
    inst.asleep = false
    tick_to(m, 7, 7)
    assert.equal(1, #log)
  end)

  it("thinks a brain that is a userdata (a host's entity may be one) as a table", function()
    local ud = io.tmpfile()
    ud:close() -- a full userdata whose metatable is its own once set
    local fields = {inst = {name = "ud"}, manager = m}
    fields.bt = bt.BT(fields.inst, bt.PriorityNode({bt.ActionNode(function(i)
      log[#log + 1] = i.name
    end, "Count")}, 1, true))
    debug.setmetatable(ud, {__index = function(_, k)
      if fields[k] ~= nil then return fields[k] end
      return bt.Brain[k]
    end})
    m:AddInstance(ud)
    tick_to(m, 1, 45)
    -- the Priority's period is a second: at 30 ticks a second, a think at tick 1 and one at 31
    assert.same({"ud", "ud"}, log)
    m:RemoveInstance(ud)
  end)

  it("names the step whose error it reports when it asks whether a brain may think", function()
    local errors = {}
    local old = bt.set_error_handler(function(msg) errors[#errors + 1] = msg end)
    local inst = {asleep = true}
    inst.entity = {IsValid = function() error("no validity") end}
    function inst:IsAsleep() return self.asleep end
    start("v", function() return bt.PriorityNode({bt.ConditionNode(function() return false end)}, 1, true) end, inst)
    tick_to(m, 1, 1)
    -- IsValid raised: reported under its name, and IsAsleep still decides (asleep: no think)
    assert.equal(1, #errors)
    assert.matches("^bt: IsValid: .*no validity", errors[1])
    assert.equal(0, #log)
    inst.asleep = false
    tick_to(m, 2, 2)
    assert.equal(1, #log)
    inst.entity = nil
    function inst:IsAsleep() error("no sleep") end
    tick_to(m, 3, 3)
    -- IsAsleep raised: reported under its name, and the brain thinks
    assert.equal(3, #errors)
    assert.matches("^bt: IsAsleep: .*no sleep", errors[3])
    assert.equal(2, #log)
    bt.set_error_handler(old)
  end)

  it("lets a brain stop itself during its think; it is not filed again", function()
    local b
    b = start("self", function()
      return bt.SequenceNode{bt.ActionNode(function(i) i.brain:Stop() end, "Quit"), bt.WaitNode(1)}
    end)
    tick_to(m, 1, 1)
    assert.is_true(b.stopped)
    assert.is_nil(m:GetList(b))
    tick_to(m, 2, 60)
    assert.equal(1, #log)
  end)

  it("adds brains started during a tick from the next tick", function()
    local late
    start("first", function()
      return bt.SequenceNode{bt.ActionNode(function()
        if not late then late = start("late", function() return bt.SequenceNode{bt.WaitNode(5)} end) end
      end), bt.WaitNode(5)}
    end)
    tick_to(m, 1, 1)
    assert.same({"first"}, log)
    tick_to(m, 2, 2)
    assert.same({"first", "late"}, log)
  end)

  it("runs an Update that a brain's think makes inside its own, and goes on with the outer one", function()
    -- a host's script may step the world (and its brains) from a leaf; the scheduler lets it
    local inner, inner_err
    start("outer", function()
      return bt.SequenceNode{bt.ActionNode(function()
        if not inner then
          inner = true
          inner_err = select(2, pcall(m.Update, m, 1))
        end
      end, "Step"), bt.WaitNode(5)}
    end)
    start("other", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    tick_to(m, 1, 1)
    assert.is_nil(inner_err)
    -- the inner Update thinks the tick's brains, "outer" (again, inside its own think) and
    -- "other"; then the outer one thinks "other" too
    assert.same({"outer", "outer", "other", "other"}, log)
  end)

  it("Pause and Resume take a brain out and put it back; Start and Stop do nothing while paused", function()
    local b = start("p", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    b:Pause()
    assert.is_nil(m:GetList(b))
    b:Start()
    b:Stop()
    assert.is_nil(m:GetList(b))
    assert.is_false(b.stopped) -- as Start left it: the paused Stop did nothing
    b:Resume()
    assert.equal("updating", m:GetList(b))
  end)

  it("Start calls OnStart, registers, then OnInitializationComplete and modpostinitfns", function()
    local order = {}
    local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function B:OnStart() order[#order + 1] = "OnStart " .. tostring(m:GetList(self)) end
    function B:OnInitializationComplete() order[#order + 1] = "Init " .. tostring(m:GetList(self)) end
    local b
    B.modpostinitfns = {function(brain) order[#order + 1] = "mod " .. tostring(brain == b) end}
    local inst = {}
    b = B(inst)
    b.manager = m
    b:Start()
    assert.same({"OnStart nil", "Init updating", "mod true"}, order)
    assert.is_false(b.stopped)
    assert.equal(inst, b.inst)
    -- Stop: OnStop, then the tree's Stop
    local stops = {}
    function b:OnStop() stops[#stops + 1] = "brain" end
    b.bt = bt.BT(inst, bt.ActionNode(function() end))
    b.bt.root.OnStop = function() stops[#stops + 1] = "node" end
    b:Stop()
    assert.same({"brain", "node"}, stops)
    assert.is_true(b.stopped)
  end)

  it("DoUpdate runs before each think", function()
    local B = brain_class(function() return bt.SequenceNode{bt.ConditionWaitNode(function(i) return i.ready end)} end, log)
    function B:DoUpdate() self.inst.ready = true end
    local b = B({name = "d"})
    b.manager = m
    b:Start()
    tick_to(m, 1, 1)
    assert.equal("READY", b.bt.root.status)
    assert.equal("SUCCESS", b.bt.root.lastresult)
  end)

  it("prints as Don't Starve does, and uses its event handlers", function()
    local b = start("t", function() return bt.PriorityNode({bt.WaitNode(2)}, 1, true) end)
    tick_to(m, 1, 1)
    assert.equal("--brain--\nsleep time: 1.00\n" .. tostring(b.bt), tostring(b))
    local got
    b:AddEventHandler("hello", function(data) got = data end)
    b:PushEvent("hello", 42)
    b:PushEvent("other", 1)
    assert.equal(42, got)
    local empty = bt.Brain()
    assert.equal("--brain--", tostring(empty))
    assert.equal(0, empty:GetSleepTime())
  end)

  it("uses bt.BrainManager unless brain.manager names another", function()
    local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    local b = B({})
    b:Start()
    assert.equal("updating", bt.BrainManager:GetList(b))
    assert.is_nil(m:GetList(b))
    b:Stop()
    assert.is_nil(bt.BrainManager:GetList(b))
  end)

  it("OnRemoveEntity removes the entity's brain", function()
    local b, inst = start("r", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    m:OnRemoveEntity(inst)
    assert.is_nil(m:GetList(b))
    m:OnRemoveEntity({}) -- an entity without a brain: nothing to do
  end)

  it("counts thinks and brains per list", function()
    start("a", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    start("b", function() return bt.SequenceNode{bt.ActionNode(function() end)} end)
    tick_to(m, 1, 1)
    local s = m:GetStats()
    assert.equal(2, s.thinks)
    assert.equal(2, s.registered)
    assert.equal(1, s.waiting)
    assert.equal(1, s.hibernating)
    assert.equal(0, s.updating)
    assert.equal(1, s.tick)
  end)

  it("with the fixed-rate policy never hibernates and thinks at least once per period", function()
    local f = bt.BrainWrangler({policy = "fixed_rate"})
    local inst = {name = "f"}
    local b = brain_class(function() return bt.SequenceNode{bt.ActionNode(function() end)} end, log)(inst)
    b.manager = f
    b:Start()
    f:SetPeriod(b, 0.5)
    f:Update(1)
    local list, wake = f:GetList(b)
    assert.equal("waiting", list)
    assert.equal(16, wake)
    assert.has_error(function() bt.BrainWrangler({policy = "sometimes"}) end)
    assert.has_error(function() bt.BrainWrangler(5) end)
  end)

  it("rejects bad arguments with clear errors", function()
    assert.has_error(function() m:Update(1.5) end, "bad argument #1 to 'Update' (integer tick expected, got a fraction)")
    assert.has_error(function() m:AddInstance(5) end, "bad argument #1 to 'AddInstance' (brain expected, got number)")
    assert.has_error(function() m.Update({}, 1) end)
  end)

  it("keeps thinking the others when a brain's code raises an error", function()
    local errors = {}
    bt.set_error_handler(function(msg) errors[#errors + 1] = msg end)
    local Bad = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function Bad:DoUpdate() error("bad brain") end
    local bad = Bad({})
    bad.manager = m
    bad:Start()
    start("good", function() return bt.SequenceNode{bt.WaitNode(5)} end)
    tick_to(m, 1, 1)
    bt.set_error_handler(nil)
    assert.same({"good"}, log)
    assert.equal(1, #errors)
    assert.truthy(errors[1]:find("bad brain", 1, true))
  end)
end)
