-- SPDX-License-Identifier: MIT
-- tostring(tree): Don't Starve's tree dump, byte for byte (docs/lua-api.md: Trees).
-- Format of a line: indent .. "<name> - <STATUS> <<LAST>> (<DBString if RUNNING>)>" .. %2.2f of the
-- node's tree sleep time (nil as 0.00) .. "\n"; children indented by a further "   >".

local H = require "helpers"
local bt = H.bt

describe("tostring(tree)", function()
  after_each(H.restore)

  it("follows a Priority with While, Sequence, Wait, ParallelNodeAny and Latch through several thinks", function()
    local c = H.clock(10)
    local day = true
    local eats, barks = 0, 0
    local inst = {}
    local root = bt.PriorityNode({
      bt.WhileNode(function() return day end, "IsDay", bt.SequenceNode {
        bt.ActionNode(function() eats = eats + 1 end, "Eat"),
        bt.WaitNode(3),
      }),
      bt.ParallelNodeAny {
        bt.ConditionWaitNode(function() return false end, "Idle"),
        bt.LatchNode(inst, 5, bt.ActionNode(function() barks = barks + 1 end)),
      },
    }, 0.5, true)
    local tree = bt.BT(inst, root)

    assert.equal(H.dump {
      "Priority - READY <READY> ()>0.00",
      "   >Parallel - READY <READY> ()>0.00",
      "   >   >IsDay - READY <READY> ()>0.00",
      "   >   >Sequence - READY <READY> ()>0.00",
      "   >   >   >Eat - READY <READY> ()>0.00",
      "   >   >   >Wait - READY <READY> ()>0.00",
      "   >Parallel(Any) - READY <READY> ()>0.00",
      "   >   >Idle - READY <READY> ()>0.00",
      "   >   >Latch (5) - READY <READY> ()>0.00",
      "   >   >   >ActionNode - READY <READY> ()>0.00",
    }, tostring(tree))

    tree:Update()
    c.t = 10.25
    -- Eat stays SUCCESS: the running Parallel does not pass Step on to its Sequence (as written).
    local running_dump = H.dump {
      "Priority - RUNNING <RUNNING> (execute 1, eval in 0.25)>0.25",
      "   >Parallel - RUNNING <RUNNING> ()>2.75",
      "   >   >IsDay - READY <SUCCESS> ()>0.00",
      "   >   >Sequence - RUNNING <RUNNING> (2)>2.75",
      "   >   >   >Eat - SUCCESS <SUCCESS> ()>0.00",
      "   >   >   >Wait - RUNNING <RUNNING> (2.75)>2.75",
      "   >Parallel(Any) - READY <READY> ()>0.00",
      "   >   >Idle - READY <READY> ()>0.00",
      "   >   >Latch (5) - READY <READY> ()>0.00",
      "   >   >   >ActionNode - READY <READY> ()>0.00",
    }
    assert.equal(running_dump, tostring(tree))
    tree:Update()
    assert.equal(running_dump, tostring(tree))

    day = false
    c.t = 10.75
    tree:Update()
    assert.equal(H.dump {
      "Priority - READY <SUCCESS> ()>0.00",
      "   >Parallel - READY <FAILED> ()>0.00",
      "   >   >IsDay - READY <FAILED> ()>0.00",
      "   >   >Sequence - READY <RUNNING> ()>0.00",
      "   >   >   >Eat - READY <SUCCESS> ()>0.00",
      "   >   >   >Wait - READY <RUNNING> ()>0.00",
      "   >Parallel(Any) - READY <SUCCESS> ()>0.00",
      "   >   >Idle - READY <RUNNING> ()>0.00",
      "   >   >Latch (5) - READY <SUCCESS> ()>0.00",
      "   >   >   >ActionNode - READY <SUCCESS> ()>0.00",
    }, tostring(tree))

    c.t = 11.5
    tree:Update()
    assert.equal(H.dump {
      "Priority - READY <FAILED> ()>0.00",
      "   >Parallel - READY <FAILED> ()>0.00",
      "   >   >IsDay - READY <FAILED> ()>0.00",
      "   >   >Sequence - READY <READY> ()>0.00",
      "   >   >   >Eat - READY <READY> ()>0.00",
      "   >   >   >Wait - READY <READY> ()>0.00",
      "   >Parallel(Any) - READY <FAILED> ()>0.00",
      "   >   >Idle - READY <RUNNING> ()>0.00",
      "   >   >Latch (5) - READY <FAILED> ()>0.00",
      "   >   >   >ActionNode - READY <READY> ()>0.00",
    }, tostring(tree))
    assert.equal(1, eats)
    assert.equal(1, barks)
  end)

  it("shows Not, LoopNode (named Sequence, DBString idx) and WaitNode; a RUNNING loop between passes sleeps nil", function()
    local c = H.clock(0)
    local root = bt.SequenceNode {
      bt.NotDecorator(bt.ConditionNode(function() return false end, "Hungry")),
      bt.LoopNode({ bt.WaitNode(2), bt.ActionNode(function() end, "Bark") }, 3),
    }
    local tree = bt.BT({}, root)
    tree:Update()
    c.t = 0.5
    assert.equal(H.dump {
      "Sequence - RUNNING <RUNNING> (2)>1.50",
      "   >Not - READY <SUCCESS> ()>0.00",
      "   >   >Hungry - READY <FAILED> ()>0.00",
      "   >Sequence - RUNNING <RUNNING> (1)>1.50",
      "   >   >Wait - RUNNING <RUNNING> (1.50)>1.50",
      "   >   >Bark - READY <READY> ()>0.00",
    }, tostring(tree))
    c.t = 2
    tree:Update()
    assert.equal(H.dump {
      "Sequence - RUNNING <RUNNING> (2)>0.00",
      "   >Not - READY <READY> ()>0.00",
      "   >   >Hungry - READY <READY> ()>0.00",
      "   >Sequence - RUNNING <RUNNING> (1)>0.00",
      "   >   >Wait - READY <READY> ()>0.00",
      "   >   >Bark - READY <READY> ()>0.00",
    }, tostring(tree))
    assert.is_nil(tree:GetSleepTime())
  end)

  it("shows EventNode, RandomNode and leaf sleep times", function()
    local c = H.clock(0)
    local inst = {}
    local root = bt.PriorityNode({
      bt.EventNode(inst, "panic", H.leaf("Flee", function(self) self:Sleep(0.5); return bt.RUNNING end), 2),
      bt.RandomNode { H.leaf("Only", function(self) self:Sleep(4); return bt.RUNNING end) },
    }, 0.25, true)
    local tree = bt.BT(inst, root)
    tree:Update()
    c.t = 0.0625
    assert.equal(H.dump {
      "Priority - RUNNING <RUNNING> (execute 2, eval in 0.19)>0.19",
      "   >Event(panic) - READY <READY> ()>0.00",
      "   >   >Flee - READY <READY> ()>0.00",
      "   >Random - RUNNING <RUNNING> ()>3.94",
      "   >   >Only - RUNNING <RUNNING> ()>3.94",
    }, tostring(tree))
    tree:FireEvent("panic")
    tree:Update()
    c.t = 0.25
    assert.equal(H.dump {
      "Priority - RUNNING <RUNNING> (execute 1, eval in 0.06)>0.06",
      "   >Event(panic) - RUNNING <RUNNING> ()>0.31",
      "   >   >Flee - RUNNING <RUNNING> ()>0.31",
      "   >Random - READY <READY> ()>0.00",
      "   >   >Only - READY <READY> ()>0.00",
    }, tostring(tree))
  end)

  it("shows a Selector's idx, a ConditionWaitNode and a finished tree", function()
    H.clock(0)
    local go = false
    local root = bt.SelectorNode {
      bt.ConditionNode(function() return false end, "CanFly"),
      bt.ConditionWaitNode(function() return go end, "UntilReady"),
    }
    local tree = bt.BT({}, root)
    tree:Update()
    assert.equal(H.dump {
      "Selector - RUNNING <RUNNING> (2)>0.00",
      "   >CanFly - READY <FAILED> ()>0.00",
      "   >UntilReady - RUNNING <RUNNING> ()>0.00",
    }, tostring(tree))
    go = true
    tree:Update()
    assert.equal(H.dump {
      "Selector - READY <SUCCESS> ()>0.00",
      "   >CanFly - READY <READY> ()>0.00",
      "   >UntilReady - READY <SUCCESS> ()>0.00",
    }, tostring(tree))
  end)

  it("formats the sleep column with %2.2f, including large values", function()
    H.clock(0)
    local tree = bt.BT({}, bt.SequenceNode { bt.WaitNode(123.456) })
    tree:Update()
    assert.equal(H.dump {
      "Sequence - RUNNING <RUNNING> (1)>123.46",
      "   >Wait - RUNNING <RUNNING> (123.46)>123.46",
    }, tostring(tree))
  end)

  it("shows a custom node's DBString only while it is RUNNING", function()
    local Named = bt.Class(bt.BehaviourNode, function(self, st)
      bt.BehaviourNode._ctor(self, "Custom")
      self.st = st
    end)
    function Named:Visit() self.status = self.st end
    function Named:DBString() return "target APPROACH (3.00)" end
    local n = Named(bt.RUNNING)
    local tree = bt.BT({}, n)
    tree:Update()
    assert.equal("Custom - RUNNING <RUNNING> (target APPROACH (3.00))>0.00\n", tostring(tree))
    n.st = bt.FAILED
    tree:Update()
    assert.equal("Custom - READY <FAILED> ()>0.00\n", tostring(tree))
  end)

  -- a host's debug view reads the dump's fields from tree:snapshot() (docs/lua-api.md: Trees)
  local function dump_of(snapshot)
    local lines = {}
    for i, e in ipairs(snapshot) do
      lines[i] = string.rep("   >", e.depth) .. string.format("%s - %s <%s> (%s)>%2.2f", e.name, e.status,
        e.last, e.dbstring or "", e.sleep or 0)
    end
    return H.dump(lines)
  end

  it("tree:snapshot() has each line's fields: dbstring while RUNNING, the tree sleep time", function()
    local c = H.clock(10)
    local Custom = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Custom") end)
    function Custom:Visit() self.status = bt.RUNNING end
    function Custom:DBString() return "custom says (x)" end
    local tree = bt.BT({}, bt.PriorityNode({
      bt.WhileNode(function() return c.t < 12 end, "Early", bt.SequenceNode { bt.WaitNode(1.5), Custom() }),
      bt.ActionNode(function() end, "Late"),
    }, 0.5, true))
    local seen = { dbstring = 0, sleep = 0, without = 0 }
    for _ = 1, 12 do
      tree:Update()
      local snap = tree:snapshot()
      assert.equal(tostring(tree), dump_of(snap))
      for _, e in ipairs(snap) do
        if e.dbstring then
          assert.equal("RUNNING", e.status)
          seen.dbstring = seen.dbstring + 1
          if e.name == "Custom" then seen.custom = e.dbstring end
        end
        if e.sleep then seen.sleep = seen.sleep + 1 else seen.without = seen.without + 1 end
      end
      c.t = c.t + 0.4
    end
    assert.is_true(seen.dbstring > 0 and seen.sleep > 0 and seen.without > 0)
    assert.equal("custom says (x)", seen.custom)
  end)
end)
