-- SPDX-License-Identifier: MIT
-- The status of a node written in Lua is a plain field of its object while its Lua code runs
-- (docs/lua-api.md: Custom behaviours written in Lua): the code reads and writes it at a table's
-- speed, and everything else (the tree, other nodes, the core's methods called meanwhile, code
-- running later) sees the same status as before.

local H = require "helpers"
local bt = H.bt
local READY, SUCCESS, FAILED, RUNNING = bt.READY, bt.SUCCESS, bt.FAILED, bt.RUNNING

local function class(name, visit, ctor)
  local C = bt.Class(bt.BehaviourNode, function(self, children)
    bt.BehaviourNode._ctor(self, name, children)
    if ctor then ctor(self) end
  end)
  C.Visit = visit
  return C
end

describe("a Lua Visit's self.status", function()
  before_each(H.restore)

  it("is a plain field of the object while the Visit runs, and read from the tree after", function()
    local seen
    local Leaf = class("Leaf", function(self)
      seen = rawget(self, "status")
      self.status = RUNNING
    end)
    local node = Leaf()
    local tree = bt.BT({}, node)
    tree:Update()
    assert.equal(READY, seen) -- the Visit read a plain field
    assert.is_nil(rawget(node, "status")) -- gone after the Visit
    assert.equal(RUNNING, node.status)
    assert.equal(RUNNING, node.lastresult)
    tree:Update()
    assert.equal(RUNNING, seen)
    tree:Reset()
    assert.equal(READY, node.status) -- the core's Reset reaches the object
  end)

  it("of children that a Lua parent visits directly are plain fields too, and reach the tree", function()
    local child_seen
    local Child = class("Child", function(self)
      child_seen = rawget(self, "status")
      self.status = self.status == READY and RUNNING or SUCCESS
    end)
    local Parent = class("Parent", function(self)
      local child = self.children[1]
      child:Visit()
      self.status = child.status
    end)
    local child = Child()
    local tree = bt.BT({}, Parent({child}))
    tree:Update()
    assert.equal(READY, child_seen)
    assert.equal(RUNNING, child.status)
    assert.equal(RUNNING, tree.root.status)
    assert.truthy(tostring(tree):find("Child - RUNNING", 1, true), tostring(tree))
    tree:Update()
    assert.equal(RUNNING, child_seen)
    assert.equal(SUCCESS, child.lastresult)
    assert.equal(SUCCESS, tree.root.lastresult)
  end)

  it("is seen by the core's methods a Visit calls, and their changes are seen by the Visit", function()
    local dump, after_reset
    local Child = class("Child", function(self) self.status = RUNNING end)
    local Parent = class("Parent", function(self)
      local child = self.children[1]
      child:Visit()
      self.status = RUNNING
      dump = self:GetTreeString()
      child:Reset() -- the core's Reset on a child whose status is a plain field
      after_reset = child.status
      self.status = SUCCESS
    end)
    local tree = bt.BT({}, Parent({Child()}))
    tree:Update()
    assert.truthy(dump:find("Parent - RUNNING", 1, true), dump)
    assert.truthy(dump:find("Child - RUNNING", 1, true), dump)
    assert.equal(READY, after_reset)
    assert.equal(SUCCESS, tree.root.lastresult)
  end)

  it("is not written back over a Reset the core does while a Lua Reset of a child runs", function()
    local Leaf = class("Leaf", function(self) self.status = FAILED end)
    function Leaf:Reset() self._base.Reset(self) end
    local Parent = class("Parent", function(self)
      self.children[1]:Visit()
      self.status = FAILED
    end)
    function Parent:Reset() self._base.Reset(self) end
    local leaf = Leaf()
    local tree = bt.BT({}, Parent({leaf}))
    tree:Update() -- both FAILED, then the tree's Step resets them through their Lua Resets
    assert.equal(FAILED, tree.root.lastresult)
    assert.equal(READY, tree.root.status)
    assert.equal(READY, leaf.status)
    assert.truthy(tostring(tree):find("Parent - READY", 1, true), tostring(tree))
  end)

  it("reaches the core when a builtin child a Lua parent visits runs Lua nodes of its own", function()
    local Leaf = class("Leaf", function(self) self.status = SUCCESS end)
    local Parent = class("Parent", function(self)
      local seq = self.children[1]
      seq:Visit()
      self.status = seq.status
    end)
    local leaf = Leaf()
    local tree = bt.BT({}, Parent({bt.SequenceNode({leaf, bt.ActionNode(function() end)})}))
    tree:Update()
    assert.equal(SUCCESS, leaf.lastresult)
    assert.equal(SUCCESS, tree.root.lastresult)
  end)

  it("that is no status fails the node with an error naming it, and the tree goes on", function()
    local errs = H.errors()
    local Bad = class("Bad", function(self) self.status = "BANANA" end)
    local tree = bt.BT({}, bt.SelectorNode({Bad(), bt.ActionNode(function() end, "Fine")}))
    tree:Update()
    assert.equal(1, #errs)
    assert.truthy(errs[1]:find("invalid status BANANA for node 'Bad'", 1, true), errs[1])
    assert.equal(FAILED, tree.root.children[1].lastresult)
    assert.equal(SUCCESS, tree.root.lastresult)
  end)

  it("set before an error in the Visit gives way to FAILED", function()
    local errs = H.errors()
    local Boom = class("Boom", function(self)
      self.status = RUNNING
      error("boom")
    end)
    local node = Boom()
    local tree = bt.BT({}, node)
    tree:Update()
    assert.equal(1, #errs)
    assert.equal(FAILED, node.lastresult)
    assert.is_nil(rawget(node, "status"))
  end)

  it("written by code outside the Visit still goes to the tree at once", function()
    local Leaf = class("Leaf", function(self) self.status = RUNNING end)
    local node = Leaf()
    local tree = bt.BT({}, node)
    tree:Update()
    node.status = SUCCESS
    assert.is_nil(rawget(node, "status"))
    assert.truthy(tostring(tree):find("Leaf - SUCCESS", 1, true), tostring(tree))
    assert.has_error(function() node.status = "BANANA" end)
  end)

  it("is a plain field in a shared definition's copies as well", function()
    local seen = {}
    local Leaf = class("Leaf", function(self)
      seen[#seen + 1] = rawget(self, "status")
      self.status = RUNNING
    end)
    local def = bt.define(Leaf())
    local a, b = def:instantiate({}), def:instantiate({})
    a:Update()
    b:Update()
    a:Update()
    assert.same({READY, READY, RUNNING}, seen)
    assert.equal(RUNNING, a.root.status)
  end)
end)
