-- SPDX-License-Identifier: MIT
-- Scripts that misbehave (docs/errors.md): every misuse is a clear error or a contained script
-- error, never a crash or a hang, and what is running goes on.
local bt = require "bt"
local H = require "helpers"
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

local function has(s, part)
  return tostring(s):find(part, 1, true) ~= nil
end

local function leaf(name, fn)
  return bt.ActionNode(fn or function() end, name)
end

describe("hostile scripts", function()
  after_each(H.restore)

  it("recursion without end in a Visit fails that node with a stack overflow", function()
    local errs = H.errors()
    local Rec = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Rec") end)
    function Rec:Visit() self:Visit() end
    local tree = bt.BT({}, bt.SelectorNode { Rec(), leaf("Next") })
    tree:Update()
    assert.equal(SUCCESS, tree.root.lastresult)
    assert.equal(1, #errs)
    assert.is_true(has(errs[1], "Selector/Rec"), errs[1])
    assert.is_true(has(errs[1], "stack overflow"), errs[1])
  end)

  it("a tree 20,000 deep is refused with a clear error; one 1,000 deep works", function()
    local function deep(n)
      local node = leaf("Leaf")
      for _ = 1, n do node = bt.NotDecorator(node) end
      return node
    end
    local ok, err = pcall(bt.BT, {}, deep(20000))
    assert.is_false(ok)
    assert.is_true(has(err, "BT: tree is deeper than 1000 levels"), err)
    ok, err = pcall(bt.define, deep(20000))
    assert.is_false(ok)
    assert.is_true(has(err, "deeper than 1000 levels"), err)
    local tree = bt.BT({}, deep(1000))
    tree:Update()
    assert.equal(1001, #tree:snapshot())
    assert.equal(SUCCESS, tree:snapshot()[1001].last)
  end)

  it("a Priority with 100,000 children thinks, dumps and stops", function()
    local kids, calls = {}, 0
    for i = 1, 100000 do
      kids[i] = bt.ConditionNode(function() calls = calls + 1; return i == 100000 end, "C")
    end
    local tree = bt.BT({}, bt.PriorityNode(kids, 1, true))
    tree:Update()
    assert.equal(100000, calls)
    assert.equal(SUCCESS, tree.root.lastresult)
    assert.equal(100001, #tree:snapshot())
    assert.is_true(#tostring(tree) > 100000)
    tree:Stop()
    tree:Stop()
  end)

  it("Update from inside the tree's own think fails the leaf; Reset and Stop work, twice", function()
    local errs = H.errors()
    local tree
    local log = {}
    tree = bt.BT({}, bt.SequenceNode {
      leaf("Again", function() tree:Update() end),
    })
    tree:Update()
    assert.is_true(has(errs[1], "Update called from inside its own think"), errs[1])
    local t2
    t2 = bt.BT({}, leaf("Reset", function() t2:Reset(); t2:Reset() end))
    t2:Update()
    assert.equal(1, #errs)
    local t3
    local stopper = leaf("Stopper", function() t3:Stop(); t3:Stop() end)
    stopper.OnStop = function() log[#log + 1] = "stopped" end
    t3 = bt.BT({}, bt.SequenceNode { stopper, leaf("After", function() log[#log + 1] = "after" end) })
    t3:Update()
    assert.same({ "stopped", "stopped", "after" }, log)
    assert.equal(SUCCESS, t3.root.lastresult)
    assert.equal(1, #errs)
    -- the trees think again
    tree:Update()
    t2:Update()
    assert.equal(SUCCESS, t2.root.lastresult)
  end)

  it("a node in a second tree is refused; the first tree goes on", function()
    local shared = leaf("S")
    local first = bt.BT({}, bt.SequenceNode { shared })
    local ok, err = pcall(bt.BT, {}, bt.SelectorNode { shared })
    assert.is_false(ok)
    assert.is_true(has(err, "node 'S' already belongs to a tree"), err)
    first:Update()
    assert.equal(SUCCESS, first.root.lastresult)
  end)

  it("garbage collection inside leaves, with trees dropped between thinks", function()
    local trees, thinks = {}, 0
    for i = 1, 300 do
      trees[i] = bt.BT({ i = i }, bt.SequenceNode {
        leaf("GC", function() collectgarbage(); thinks = thinks + 1 end),
        bt.ConditionNode(function(inst) return inst.i % 2 == 0 end, "Even"),
        bt.WaitNode(0.1),
      })
    end
    for round = 1, 6 do
      for i = 1, #trees do
        local tree = trees[i]
        if tree then
          tree:Update()
          if (i + round) % 4 == 0 then trees[i] = nil end
        end
      end
      collectgarbage()
    end
    assert.is_true(thinks > 300)
  end)

  it("a brain whose entity is removed during its own think stops; the manager goes on", function()
    local m = bt.BrainWrangler()
    local log = {}
    local Removed = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function Removed:OnStart()
      self.bt = bt.BT(self.inst, bt.SequenceNode {
        leaf("Remove", function(inst) m:OnRemoveEntity(inst); inst.brain:Stop() end),
        leaf("After", function() log[#log + 1] = "after" end),
      })
    end
    local Other = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function Other:OnStart()
      self.bt = bt.BT(self.inst, leaf("Work", function() log[#log + 1] = "work" end))
    end
    local a, b = { }, { }
    a.brain = Removed(a)
    a.brain.manager = m
    b.brain = Other(b)
    b.brain.manager = m
    a.brain:Start()
    b.brain:Start()
    m:Update(1)
    m:Update(2)
    assert.is_true(a.brain.stopped)
    assert.is_nil(m:GetList(a.brain))
    local works = 0
    for _, v in ipairs(log) do if v == "work" then works = works + 1 end end
    assert.is_true(works >= 1)
  end)

  it("errors inside the error handler, and error objects that are not strings", function()
    bt.set_error_handler(function() error("the handler broke too") end)
    local tree = bt.BT({}, bt.SelectorNode { leaf("Boom", function() error("boom") end), leaf("Next") })
    tree:Update()
    assert.equal(SUCCESS, tree.root.lastresult)
    local errs = H.errors()
    local weird = setmetatable({}, { __tostring = function() error("no string for you") end })
    local t2 = bt.BT({}, bt.SequenceNode {
      leaf("Weird", function() error(weird) end),
    })
    t2:Update()
    local t3 = bt.BT({}, leaf("Nil", function() error(nil) end))
    t3:Update()
    local t4 = bt.BT({}, leaf("Table", function() error({ code = 1 }) end))
    t4:Update()
    assert.equal(3, #errs)
    assert.is_true(has(errs[1], "Sequence/Weird"), errs[1])
    assert.is_true(has(errs[2], "(error object is a nil value)"), errs[2])
    assert.is_true(has(errs[3], "(error object is a table value)"), errs[3])
  end)

  it("methods called on the wrong objects are clear errors", function()
    local tree = bt.BT({}, leaf("A"))
    local ok, err = pcall(tree.Update, {})
    assert.is_false(ok)
    assert.is_true(has(err, "bad self to 'Update' (BT expected, got table)"), err)
    ok, err = pcall(tree.GetSleepTime, 42)
    assert.is_false(ok)
    assert.is_true(has(err, "bad self to 'GetSleepTime' (BT expected, got number)"), err)
    ok, err = pcall(bt.BT, {}, "root")
    assert.is_false(ok)
    assert.is_true(has(err, "bad argument #2 to 'BT' (node or definition expected, got string)"), err)
    ok, err = pcall(function() tree.root.status = "BANANA" end)
    assert.is_false(ok)
    assert.is_true(has(err, "invalid status BANANA"), err)
    tree:Update()
    assert.equal(SUCCESS, tree.root.lastresult)
  end)

  it("a runaway clock function is stopped by the instruction limit; time holds its last value", function()
    local errs = H.errors()
    local now = 1
    bt.set_clock(function() return now end)
    local tree = bt.BT({}, bt.WaitNode(5))
    tree:Update()
    bt.set_instruction_limit(10000)
    bt.set_clock(function() while true do end end)
    tree:Update()
    assert.is_true(#errs >= 1)
    assert.is_true(has(errs[1], "instruction limit exceeded"), errs[1])
    assert.equal(RUNNING, tree.root.lastresult)
  end)
end)
