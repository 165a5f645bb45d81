-- SPDX-License-Identifier: MIT
-- EventNode and tree:FireEvent (docs/lua-api.md: Events).

local H = require "helpers"
local bt = H.bt

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
  return t
end

describe("EventNode subscription", function()
  after_each(H.restore)

  it("subscribes at construction through inst:ListenForEvent(event, fn)", function()
    local inst = H.entity()
    bt.EventNode(inst, "panic", H.leaf("A", bt.RUNNING))
    assert.equal(1, #inst.listens)
    local l = inst.listens[1]
    assert.equal(inst, l.self)
    assert.equal("panic", l.event)
    assert.is_function(l.fn)
    assert.equal(0, l.nextra)
  end)

  it("OnStop calls inst:RemoveEventCallback(event, fn) with the same fn, once", function()
    local inst = H.entity()
    local e = bt.EventNode(inst, "panic", H.leaf("A", bt.RUNNING))
    local tree = bt.BT(inst, bt.PriorityNode({ e }, 1, true))
    assert.equal(0, #inst.removes)
    tree:Stop()
    assert.equal(1, #inst.removes)
    local r = inst.removes[1]
    assert.equal(inst, r.self)
    assert.equal("panic", r.event)
    assert.equal(inst.listens[1].fn, r.fn)
    tree:Stop()
    assert.equal(1, #inst.removes)
  end)

  it("keeps removing its listener when OnStop is chained the braincommon way", function()
    local inst = H.entity()
    local calls = {}
    local e = bt.EventNode(inst, "epicscare", H.leaf("Panic", bt.RUNNING))
    local _OnStop = e.OnStop
    assert.is_function(_OnStop)
    e.OnStop = function()
      calls[#calls + 1] = "cleanup"
      if _OnStop ~= nil then
        _OnStop(e)
      end
    end
    local tree = bt.BT(inst, bt.PriorityNode({ e }, .25))
    tree:Stop()
    assert.same({ "cleanup" }, calls)
    assert.equal(1, #inst.removes)
    assert.equal(inst.listens[1].fn, inst.removes[1].fn)
  end)

  it("uses the inst given to the EventNode, not the tree's", function()
    local node_inst, tree_inst = H.entity(), H.entity()
    local e = bt.EventNode(node_inst, "ev", H.leaf("A", bt.RUNNING))
    local tree = bt.BT(tree_inst, e)
    assert.equal(1, #node_inst.listens)
    assert.equal(0, #tree_inst.listens)
    tree:Stop()
    assert.equal(1, #node_inst.removes)
    assert.equal(0, #tree_inst.removes)
  end)
end)

describe("EventNode firing", function()
  after_each(H.restore)

  local c, log, inst, A, L, E, P, tree
  before_each(function()
    c = H.clock(10)
    log = {}
    inst = H.entity()
    inst.brain = H.brain()
    A = H.leaf("A", bt.RUNNING, log)
    L = H.leaf("L", bt.RUNNING, log)
    E = bt.EventNode(inst, "panic", A)
    P = bt.PriorityNode({ E, L }, 1, true)
    tree = bt.BT(inst, P)
  end)

  it("stays READY (not chosen) until triggered", function()
    tree:Update()
    assert.same({ "L" }, log)
    assert.equal(bt.READY, E.lastresult)
    assert.equal(bt.RUNNING, L.status)
  end)

  it("when fired: sets data, calls inst.brain:ForceUpdate(), clears the Priority's clock; runs on the next think", function()
    tree:Update()
    clear(log)
    c.t = 10.5
    local data = { x = 1 }
    inst:PushEvent("panic", data)
    assert.equal(data, E.data)
    assert.equal(1, inst.brain.forced)
    assert.equal(inst.brain, inst.brain.selves[1])
    -- lasttime is nil: "eval in" shows 0 + 1 - 10.5; the Priority's own sleep time is 0
    assert.equal(H.dump {
      "Priority - RUNNING <RUNNING> (execute 2, eval in -9.50)>0.00",
      "   >Event(panic) - READY <READY> ()>0.00",
      "   >   >A - READY <READY> ()>0.00",
      "   >L - RUNNING <RUNNING> ()>0.00",
    }, tostring(tree))
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.RUNNING, E.status)
    assert.equal(bt.RUNNING, P.status)
    assert.equal(bt.READY, L.status)
    assert.equal(bt.READY, L.lastresult)
  end)

  it("fired while RUNNING resets its child at once; the child restarts on the next think", function()
    tree:Update()
    c.t = 10.5
    inst:PushEvent("panic")
    tree:Update()
    assert.equal(bt.RUNNING, A.status)
    c.t = 10.75
    inst:PushEvent("panic", "again")
    assert.equal(bt.READY, A.status)
    assert.equal(bt.RUNNING, E.status)
    assert.equal("again", E.data)
    tree:Update()
    assert.same({ bt.READY, bt.READY }, A.entries)
    assert.equal(bt.RUNNING, E.lastresult)
  end)

  it("a trigger lasts exactly one think", function()
    local ok = false
    local inst2 = H.entity()
    local B = H.leaf("B", bt.RUNNING)
    local e = bt.EventNode(inst2, "ev", B)
    local root = bt.SequenceNode { bt.ConditionNode(function() return ok end), e }
    local t2 = bt.BT(inst2, root)
    inst2:PushEvent("ev")
    t2:Update()
    assert.equal(bt.FAILED, root.lastresult)
    ok = true
    t2:Update()
    assert.equal(0, B.visits)
    assert.equal(bt.READY, e.lastresult)
    assert.equal(bt.SUCCESS, root.lastresult)
  end)

  it("lasts until the child finishes, then needs a new trigger", function()
    local a = bt.RUNNING
    A.src = function() return a end
    inst:PushEvent("panic")
    tree:Update()
    assert.same({ "A" }, log)
    c.t = 10.25
    a = bt.SUCCESS
    tree:Update()
    assert.equal(bt.SUCCESS, E.lastresult)
    assert.equal(bt.SUCCESS, P.lastresult)
    c.t = 10.5
    a = bt.RUNNING
    tree:Update()
    assert.same({ "A", "A", "L" }, log)
    assert.equal(bt.READY, E.lastresult)
  end)
end)

describe("EventNode under PriorityNode", function()
  after_each(H.restore)

  it("loses its trigger when a higher sibling wins that evaluation", function()
    local c = H.clock(0)
    local inst = H.entity()
    local log = {}
    local h = bt.FAILED
    local Hn = H.leaf("H", function() return h end, log)
    local A = H.leaf("A", bt.RUNNING, log)
    local L = H.leaf("L", bt.RUNNING, log)
    local E = bt.EventNode(inst, "ev", A)
    local tree = bt.BT(inst, bt.PriorityNode({ Hn, E, L }, 1, true))
    tree:Update()
    assert.same({ "H", "L" }, log)
    clear(log)
    h = bt.RUNNING
    c.t = 0.5
    inst:PushEvent("ev")
    tree:Update()
    assert.same({ "H" }, log)
    clear(log)
    h = bt.FAILED
    c.t = 2
    tree:Update()
    assert.same({ "H", "L" }, log)
    assert.equal(0, A.visits)
  end)

  local function two_events(p2)
    local c = H.clock(0)
    local inst = H.entity()
    local A1 = H.leaf("A1", bt.RUNNING)
    local A2 = H.leaf("A2", bt.RUNNING)
    local E1 = bt.EventNode(inst, "e1", A1, 1)
    local E2 = bt.EventNode(inst, "e2", A2, p2)
    local L = H.leaf("L", bt.RUNNING)
    local P = bt.PriorityNode({ E1, E2, L }, 10, true)
    local tree = bt.BT(inst, P)
    tree:Update()
    c.t = 1
    inst:PushEvent("e1")
    tree:Update()
    assert.equal(bt.RUNNING, E1.status)
    c.t = 2
    inst:PushEvent("e2")
    tree:Update()
    return { tree = tree, E1 = E1, E2 = E2, A1 = A1, A2 = A2, L = L, P = P, c = c }
  end

  it("test_anyway: a later EventNode with priority >= the running one's takes over and resets it", function()
    local s = two_events(1)
    assert.equal(bt.RUNNING, s.E2.status)
    assert.equal(1, s.A2.visits)
    assert.equal(bt.READY, s.E1.status)
    assert.equal(bt.READY, s.E1.lastresult)
    assert.equal(bt.READY, s.A1.status)
    assert.equal(bt.RUNNING, s.P.status)
    assert.equal("Priority - RUNNING <RUNNING> (execute 2, eval in 10.00)>0.00",
      (tostring(s.tree):match("^[^\n]*")))
  end)

  it("test_anyway: a later EventNode with a lower priority is not tested, and its trigger is lost", function()
    local s = two_events(0)
    assert.equal(bt.RUNNING, s.E1.status)
    assert.equal(2, s.A1.visits)
    assert.equal(0, s.A2.visits)
    assert.equal(bt.READY, s.E2.lastresult)
    s.c.t = 13
    s.tree:Update()
    assert.equal(0, s.A2.visits)
  end)

  it("test_anyway: an EventNode tested anyway that loses is not reset in that pass", function()
    local c = H.clock(0)
    local inst = H.entity()
    local A1 = H.leaf("A1", bt.RUNNING)
    local A2 = H.leaf("A2", bt.FAILED)
    local E1 = bt.EventNode(inst, "e1", A1)
    local E2 = bt.EventNode(inst, "e2", A2)
    local tree = bt.BT(inst, bt.PriorityNode({ E1, E2 }, 10, true))
    inst:PushEvent("e1")
    tree:Update()
    c.t = 1
    inst:PushEvent("e2")
    tree:Update()
    assert.equal(1, A2.visits)
    assert.equal(bt.FAILED, E2.lastresult)
    assert.equal(bt.FAILED, A2.lastresult)
    assert.equal(bt.RUNNING, E1.status)
  end)

  it("test_anyway resets children[idx], which may be a winner chosen earlier in the same pass", function()
    local c = H.clock(0)
    local inst = H.entity()
    local log = {}
    local h = bt.FAILED
    local Hn = H.leaf("H", function() return h end, log)
    local A1 = H.leaf("A1", bt.RUNNING, log)
    local E1 = bt.EventNode(inst, "e1", A1, 0)
    local E2 = bt.EventNode(inst, "e2", H.leaf("A2", bt.RUNNING, log))
    local P = bt.PriorityNode({ Hn, E1, E2 }, 10, true)
    local tree = bt.BT(inst, P)
    inst:PushEvent("e1")
    tree:Update()
    assert.same({ "H", "A1" }, log)
    clear(log)
    h = bt.RUNNING
    c.t = 11
    tree:Update()
    -- H wins first, then E1 (the running EventNode, tested anyway) resets children[idx] = H
    assert.same({ "H", "A1" }, log)
    assert.equal(bt.READY, Hn.status)
    assert.equal(bt.READY, Hn.lastresult)
    assert.equal(bt.RUNNING, E1.status)
    assert.equal("Priority - RUNNING <RUNNING> (execute 2, eval in 10.00)>0.00",
      (tostring(tree):match("^[^\n]*")))
  end)

  it("clears the clock of every PriorityNode above it", function()
    local c = H.clock(0)
    local inst = H.entity()
    local log = {}
    local H1 = H.leaf("H1", bt.FAILED, log)
    local H2 = H.leaf("H2", bt.FAILED, log)
    local A = H.leaf("A", bt.RUNNING, log)
    local L = H.leaf("L", bt.RUNNING, log)
    local sub = bt.PriorityNode({ H2, bt.EventNode(inst, "ev", A) }, 10, true)
    local root = bt.PriorityNode({ H1, sub, L }, 10, true)
    local tree = bt.BT(inst, root)
    tree:Update()
    assert.same({ "H1", "H2", "L" }, log)
    clear(log)
    c.t = 1
    tree:Update()
    assert.same({ "L" }, log)
    clear(log)
    inst:PushEvent("ev")
    tree:Update()
    assert.same({ "H1", "H2", "A" }, log)
    assert.equal(bt.RUNNING, sub.status)
    assert.equal(bt.READY, L.status)
  end)

  it("an event fired during the think is seen by an EventNode visited later in the same pass", function()
    H.clock(0)
    local inst = H.entity()
    local log = {}
    local A = H.leaf("A", bt.RUNNING, log)
    local root = bt.PriorityNode({
      bt.FailIfSuccessDecorator(bt.ActionNode(function() inst:PushEvent("ev", 5) end, "Fire")),
      bt.EventNode(inst, "ev", A),
      H.leaf("L", bt.RUNNING, log),
    }, 1, true)
    local tree = bt.BT(inst, root)
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal(bt.RUNNING, root.lastresult)
  end)
end)

describe("EventNode under a running ParallelNode", function()
  after_each(H.restore)

  it("keeps a trigger that arrived after its visit, since the Parallel's Step does not reach it (as written)", function()
    H.clock(0)
    local inst = H.entity()
    local fired = false
    local A = H.leaf("A", bt.RUNNING)
    local E = bt.EventNode(inst, "ev", A)
    local W = H.leaf("W", function()
      if not fired then
        fired = true
        inst:PushEvent("ev")
      end
      return bt.RUNNING
    end)
    local par = bt.ParallelNode { E, W }
    local tree = bt.BT(inst, par)
    tree:Update()
    assert.equal(0, A.visits)
    assert.equal(bt.READY, E.status)
    tree:Update()
    assert.equal(1, A.visits)
    assert.equal(bt.RUNNING, E.status)

    -- the same under a parent that visits every child and whose (base) Step reaches them: lost
    local All = bt.Class(bt.BehaviourNode, function(self, children)
      bt.BehaviourNode._ctor(self, "All", children)
    end)
    function All:Visit()
      for _, child in ipairs(self.children) do child:Visit() end
      self.status = bt.RUNNING
    end
    local inst2 = H.entity()
    local fired2 = false
    local A2 = H.leaf("A2", bt.RUNNING)
    local E2 = bt.EventNode(inst2, "ev", A2)
    local W2 = H.leaf("W2", function()
      if not fired2 then
        fired2 = true
        inst2:PushEvent("ev")
      end
      return bt.RUNNING
    end)
    local t2 = bt.BT(inst2, All { E2, W2 })
    t2:Update()
    t2:Update()
    assert.equal(0, A2.visits)
  end)
end)

describe("tree:FireEvent", function()
  after_each(H.restore)

  it("delivers to EventNodes whose inst has no ListenForEvent, between thinks", function()
    local c = H.clock(0)
    local inst = { brain = H.brain() }
    local log = {}
    local A = H.leaf("A", bt.RUNNING, log)
    local E = bt.EventNode(inst, "attacked", A)
    local P = bt.PriorityNode({ E, H.leaf("L", bt.RUNNING, log) }, 5, true)
    local tree = bt.BT(inst, P)
    tree:Update()
    assert.same({ "L" }, log)
    c.t = 1
    local data = { attacker = "spider" }
    tree:FireEvent("attacked", data)
    assert.equal(data, E.data)
    assert.equal(1, inst.brain.forced)
    tree:Update()
    assert.same({ "L", "A" }, log)
    assert.equal(bt.RUNNING, E.status)
    -- fired again while running: the child is reset
    tree:FireEvent("attacked", "more")
    assert.equal(bt.READY, A.status)
    assert.equal("more", E.data)
    assert.equal(2, inst.brain.forced)
  end)

  it("makes a brain that forwards ForceUpdate to the tree think at once", function()
    H.clock(0)
    local inst = {}
    local E = bt.EventNode(inst, "ev", H.leaf("A", bt.RUNNING))
    local tree = bt.BT(inst, bt.SequenceNode { E })
    inst.brain = H.brain(tree)
    tree:Update()
    assert.is_nil(tree:GetSleepTime())
    tree:FireEvent("ev")
    assert.equal(0, tree:GetSleepTime())
    tree:Update()
    assert.equal(bt.RUNNING, E.status)
  end)

  it("may be called from inside a think", function()
    H.clock(0)
    local inst = {}
    local log = {}
    local tree
    local A = H.leaf("A", bt.RUNNING, log)
    local E = bt.EventNode(inst, "ev", A)
    local root = bt.SequenceNode {
      bt.ActionNode(function() tree:FireEvent("ev", "inside") end, "Fire"),
      E,
    }
    tree = bt.BT(inst, root)
    tree:Update()
    assert.same({ "A" }, log)
    assert.equal("inside", E.data)
    assert.equal(bt.RUNNING, root.lastresult)
  end)

  it("does not reach EventNodes that subscribed through their inst", function()
    H.clock(0)
    local inst = H.entity()
    local A = H.leaf("A", bt.RUNNING)
    local E = bt.EventNode(inst, "ev", A)
    local tree = bt.BT(inst, bt.SequenceNode { E })
    tree:FireEvent("ev", 1)
    tree:Update()
    assert.equal(0, A.visits)
    assert.is_nil(E.data)
    inst:PushEvent("ev", 2)
    tree:Update()
    assert.equal(1, A.visits)
    assert.equal(2, E.data)
  end)

  it("delivers only the named event, and ignores events no node listens for", function()
    H.clock(0)
    local inst = {}
    local A = H.leaf("A", bt.RUNNING)
    local B = H.leaf("B", bt.RUNNING)
    local tree = bt.BT(inst, bt.ParallelNode {
      bt.EventNode(inst, "a", A),
      bt.EventNode(inst, "b", B),
    })
    tree:FireEvent("nobody")
    tree:FireEvent("b")
    tree:Update()
    assert.equal(0, A.visits)
    assert.equal(1, B.visits)
  end)
end)
