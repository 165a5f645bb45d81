-- SPDX-License-Identifier: MIT
-- The node kinds bt adds beside Don't Starve's (docs/nodes.md): TaskNode with the Behaviour
-- Tree Starter Kit's contract, PolicyParallelNode, MonitorNode, ActiveSelectorNode, RepeatNode,
-- AlwaysSucceedDecorator, AlwaysFailDecorator, CooldownDecorator, TimeoutDecorator.
local bt = require "bt"
local H = require "helpers"
local SUCCESS, FAILED, RUNNING, ABORTED = bt.SUCCESS, bt.FAILED, bt.RUNNING, bt.ABORTED

-- A task whose update returns the statuses of `script` in turn (the last repeats) and logs
-- "start:N", "update:N", "finish:N:STATUS" into log.
local function task(name, script, log)
  local run = 0
  return {
    start = function(_, inst)
      assert(type(inst) == "table")
      run = 0
      log[#log + 1] = "start:" .. name
    end,
    update = function()
      run = run + 1
      log[#log + 1] = "update:" .. name
      return script[run] or script[#script]
    end,
    finish = function(_, _, status)
      log[#log + 1] = "finish:" .. name .. ":" .. status
    end,
  }
end

local function take(log)
  local s = table.concat(log, " ")
  for i = #log, 1, -1 do log[i] = nil end
  return s
end

describe("TaskNode", function()
  local clock
  before_each(function() clock = H.clock(0) end)
  after_each(H.restore)

  it("starts once, updates at every think, and finishes once with the result", function()
    local log = {}
    local tree = bt.BT({}, bt.TaskNode(task("A", { RUNNING, RUNNING, SUCCESS }, log), "A"))
    tree:Update()
    assert.equal("start:A update:A", take(log))
    assert.equal(RUNNING, tree.root.status)
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    tree:Update()
    assert.equal("update:A update:A finish:A:SUCCESS", take(log))
    assert.equal(SUCCESS, tree.root.lastresult)
    tree:Update()
    assert.equal("start:A update:A", take(log))
  end)

  it("is told ABORTED exactly once when a Priority switches to a higher branch", function()
    local log, inst = {}, { threat = false }
    local tree = bt.BT(inst, bt.PriorityNode({
      bt.IfNode(function(i) return i.threat end, "Threat", bt.TaskNode(task("Flee", { RUNNING }, log), "Flee")),
      bt.TaskNode(task("Graze", { RUNNING }, log), "Graze"),
    }, 1, true))
    tree:Update()
    assert.equal("start:Graze update:Graze", take(log))
    inst.threat = true
    clock.t = 2
    tree:Update()
    assert.equal("start:Flee update:Flee finish:Graze:ABORTED", take(log))
    clock.t = 4
    tree:Update()
    assert.equal("update:Flee", take(log))
  end)

  it("is told ABORTED when the condition of its WhileNode fails", function()
    local log, inst = {}, { ok = true }
    local tree = bt.BT(inst, bt.WhileNode(function(i) return i.ok end, "Ok", bt.TaskNode(task("A", { RUNNING }, log))))
    tree:Update()
    inst.ok = false
    tree:Update()
    assert.equal("start:A update:A finish:A:ABORTED", take(log))
    assert.equal(FAILED, tree.root.lastresult)
  end)

  it("is told ABORTED when its Parallel ends, when the tree is reset, and once when stopped twice", function()
    local log = {}
    local tree = bt.BT({}, bt.ParallelNodeAny {
      bt.TaskNode(task("A", { RUNNING, SUCCESS }, log)),
      bt.TaskNode(task("B", { RUNNING }, log)),
    })
    tree:Update()
    tree:Update()
    assert.equal("start:A update:A start:B update:B update:A finish:A:SUCCESS update:B finish:B:ABORTED", take(log))
    tree:Update()
    tree:Reset()
    assert.equal("start:A update:A start:B update:B finish:A:ABORTED finish:B:ABORTED", take(log))
    tree:Update()
    take(log)
    tree:Stop()
    tree:Stop()
    assert.equal("finish:A:ABORTED finish:B:ABORTED", take(log))
  end)

  it("takes true and false for SUCCESS and FAILED, and a second result as seconds to sleep", function()
    local results = { { RUNNING, 2.5 }, { true }, { false } }
    local n = 0
    local statuses = {}
    local tree = bt.BT({}, bt.TaskNode {
      update = function() n = n + 1; return table.unpack(results[n]) end,
      finish = function(_, _, status) statuses[#statuses + 1] = status end,
    })
    tree:Update()
    assert.equal(2.5, tree:GetSleepTime())
    tree:Update()
    assert.equal(SUCCESS, tree.root.lastresult)
    tree:Update()
    assert.equal(FAILED, tree.root.lastresult)
    assert.same({ SUCCESS, FAILED }, statuses)
  end)

  it("gives each entity its own object when the task is a Class, made with the entity", function()
    local Count = bt.Class(function(self, inst) self.inst = inst; self.n = 0 end)
    function Count:update(inst)
      assert.equal(self.inst, inst)
      self.n = self.n + 1
      inst.n = self.n
      return RUNNING
    end
    local def = bt.define(bt.TaskNode(Count, "Count"))
    local a, b = { name = "a" }, { name = "b" }
    local ta, tb = def:instantiate(a), def:instantiate(b)
    ta:Update(); ta:Update(); tb:Update()
    assert.equal(2, a.n)
    assert.equal(1, b.n)
    -- per-entity trees built the Don't Starve way too
    local c = {}
    local tc = bt.BT(c, bt.TaskNode(Count))
    tc:Update(); tc:Update(); tc:Update()
    assert.equal(3, c.n)
  end)

  it("fails on an error in start or update and still finishes the run; errors are reported", function()
    local errs = H.errors()
    local log = {}
    local tree = bt.BT({}, bt.SelectorNode {
      bt.TaskNode({
        start = function() error("no start") end,
        update = function() return SUCCESS end,
        finish = function(_, _, s) log[#log + 1] = "finish:S:" .. s end,
      }, "S"),
      bt.TaskNode({
        update = function() error("no update") end,
        finish = function(_, _, s) log[#log + 1] = "finish:U:" .. s end,
      }, "U"),
      bt.TaskNode({ update = function() return "nonsense" end }, "N"),
      bt.TaskNode({ update = function() return RUNNING end, finish = function() error("no finish") end }, "F"),
    })
    tree:Update()
    assert.equal("finish:S:FAILED finish:U:FAILED", take(log))
    assert.equal(RUNNING, tree.root.status)
    assert.equal(3, #errs)
    assert.truthy(errs[1]:find("Selector/S: start: ", 1, true), errs[1])
    assert.truthy(errs[1]:find("no start", 1, true), errs[1])
    assert.truthy(errs[2]:find("Selector/U: update: ", 1, true), errs[2])
    assert.truthy(errs[3]:find("Selector/N: update returned nonsense, not bt.SUCCESS, bt.FAILED or bt.RUNNING", 1, true), errs[3])
    tree:Stop()
    assert.equal(4, #errs)
    assert.truthy(errs[4]:find("Selector/F: finish: ", 1, true), errs[4])
  end)

  it("checks its arguments", function()
    assert.has_error(function() bt.TaskNode(5) end, "bad argument #1 to 'TaskNode' (table expected, got number)")
    assert.has_error(function() bt.TaskNode({}) end, "bad argument #1 to 'TaskNode' (the task has no update function)")
    assert.has_error(function() bt.TaskNode({ update = print }, 5) end,
      "bad argument #2 to 'TaskNode' (string or nil expected, got number)")
    assert.equal("Task", bt.TaskNode({ update = print }).name)
    assert.equal(ABORTED, "ABORTED")
  end)
end)

describe("the other kinds", function()
  local clock
  before_each(function() clock = H.clock(0) end)
  after_each(H.restore)

  it("ActiveSelectorNode re-tests higher children at every think and aborts the lower one", function()
    local log, inst = {}, { threat = false }
    local tree = bt.BT(inst, bt.ActiveSelectorNode {
      bt.IfNode(function(i) return i.threat end, "Threat", bt.TaskNode(task("Flee", { RUNNING }, log))),
      bt.TaskNode(task("Graze", { RUNNING }, log)),
    })
    tree:Update()
    clock.t = 0.01
    tree:Update()
    assert.equal("start:Graze update:Graze update:Graze", take(log))
    inst.threat = true
    clock.t = 0.02
    tree:Update()
    assert.equal("start:Flee update:Flee finish:Graze:ABORTED", take(log))
    assert.equal("ActiveSelector", tree.root.name)
  end)

  it("PolicyParallelNode honours its success and failure policies", function()
    local function run(success, failure, scripts)
      local log, kids = {}, {}
      for i, s in ipairs(scripts) do kids[i] = bt.TaskNode(task(tostring(i), s, log)) end
      local tree = bt.BT({}, bt.PolicyParallelNode(kids, success, failure))
      local seen = {}
      repeat
        tree:Update()
        seen[#seen + 1] = tree.root.lastresult:sub(1, 1)
      until tree.root.lastresult ~= RUNNING or #seen == 5
      return table.concat(seen), log
    end
    local ONE, ALL = bt.REQUIRE_ONE, bt.REQUIRE_ALL
    assert.equal("RS", (run(nil, nil, { { SUCCESS }, { RUNNING, SUCCESS } })))
    assert.equal("RF", (run(ALL, ONE, { { RUNNING, FAILED }, { RUNNING } })))
    local result, log = run(ONE, ONE, { { RUNNING }, { RUNNING, SUCCESS } })
    assert.equal("RS", result)
    assert.equal("finish:1:ABORTED", log[#log])
    assert.equal("RRF", (run(ONE, ALL, { { FAILED }, { RUNNING, RUNNING, FAILED } })))
    assert.equal("RS", (run(ONE, ALL, { { FAILED }, { RUNNING, SUCCESS } })))
    assert.equal("RF", (run(ALL, ALL, { { FAILED }, { RUNNING, SUCCESS } })))
    assert.has_error(function() bt.PolicyParallelNode({}, "one") end,
      "bad argument #2 to 'PolicyParallelNode' (bt.REQUIRE_ONE or bt.REQUIRE_ALL expected)")
  end)

  it("MonitorNode re-checks its conditions at every think while its child runs", function()
    local log, inst = {}, { ok = true, near = true }
    local tree = bt.BT(inst, bt.MonitorNode({
      bt.ConditionNode(function(i) log[#log + 1] = "ok"; return i.ok end),
      bt.ConditionNode(function(i) log[#log + 1] = "near"; return i.near end),
    }, bt.TaskNode(task("A", { RUNNING }, log)), "Guarded"))
    tree:Update()
    tree:Update()
    assert.equal("ok near start:A update:A ok near update:A", take(log))
    inst.near = false
    tree:Update()
    assert.equal("ok near finish:A:ABORTED", take(log))
    assert.equal(FAILED, tree.root.lastresult)
    assert.equal("Guarded", tree.root.name)
  end)

  it("RepeatNode runs its child n times, one pass per think", function()
    local log = {}
    local tree = bt.BT({}, bt.RepeatNode(bt.TaskNode(task("A", { SUCCESS }, log)), 3))
    tree:Update()
    assert.equal(RUNNING, tree.root.status)
    assert.equal(1, tree.root.rep)
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    tree:Update()
    assert.equal(SUCCESS, tree.root.lastresult)
    assert.equal(3, #log / 3)
    assert.has_error(function() bt.RepeatNode(bt.WaitNode(1), 0) end,
      "bad argument #2 to 'RepeatNode' (a number of times, at least 1, or nil expected)")
  end)

  it("AlwaysSucceedDecorator and AlwaysFailDecorator wait for their child, then give their result", function()
    local s = bt.BT({}, bt.AlwaysSucceedDecorator(bt.ConditionNode(function() return false end)))
    s:Update()
    assert.equal(SUCCESS, s.root.lastresult)
    local f = bt.BT({}, bt.AlwaysFailDecorator(bt.WaitNode(1), "Never"))
    f:Update()
    assert.equal(RUNNING, f.root.status)
    clock.t = 1
    f:Update()
    assert.equal(FAILED, f.root.lastresult)
    assert.equal("Never", f.root.name)
  end)

  it("CooldownDecorator fails for its seconds after its child ran", function()
    local n = 0
    local tree = bt.BT({}, bt.SelectorNode {
      bt.CooldownDecorator(bt.ActionNode(function() n = n + 1 end, "Bark"), 5),
      bt.ActionNode(function() end, "Idle"),
    })
    tree:Update()
    clock.t = 4.9
    tree:Update()
    assert.equal(1, n)
    clock.t = 5
    tree:Update()
    assert.equal(2, n)
    assert.has_error(function() bt.CooldownDecorator(bt.WaitNode(1), -1) end,
      "bad argument #2 to 'CooldownDecorator' (a number of seconds, at least 0, expected)")
  end)

  it("TimeoutDecorator fails its child when it runs too long, and wakes the brain for it", function()
    local log = {}
    local tree = bt.BT({}, bt.TimeoutDecorator(bt.WaitNode(10), 2))
    tree:Update()
    assert.equal(2, tree:GetSleepTime())
    clock.t = 2
    tree:Update()
    assert.equal(FAILED, tree.root.lastresult)
    tree = bt.BT({}, bt.TimeoutDecorator(bt.TaskNode(task("A", { RUNNING }, log)), 1))
    tree:Update()
    clock.t = 3
    tree:Update()
    assert.equal("start:A update:A finish:A:ABORTED", take(log))
  end)

  it("are classes of their own, as the Don't Starve nodes are", function()
    local r = bt.RepeatNode(bt.WaitNode(1))
    assert.is_true(r:is_a(bt.RepeatNode))
    assert.is_true(r:is_a(bt.DecoratorNode))
    assert.is_nil(r.times)
    assert.is_true(bt.ActiveSelectorNode({}):is_a(bt.BehaviourNode))
    assert.has_error(function() bt.MonitorNode({}, 5) end,
      "bad argument #2 to 'MonitorNode' (node expected, got number)")
  end)
end)
