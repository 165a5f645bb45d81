-- SPDX-License-Identifier: MIT
-- Scripts that misuse what the module lets them reach: metamethods called by hand with other
-- values, and a node's private keys (visible to pairs) overwritten with rawset. Most of these
-- used to read or write memory bt did not own (under BT_SANITIZE, tests/ci/sanitize.sh, the
-- process stopped; without it, it crashed or went on with corrupt memory); the others pin that
-- their neighbours are refused the same way. Now each is refused or ignored.
local bt = require "bt"

-- The keys bt keeps on a node object in a tree: the tree (a userdata) and the node's index.
local function private_keys(node)
  local tree_key, index_key
  for k, v in pairs(node) do
    if type(k) == "userdata" then
      if type(v) == "number" then index_key = k else tree_key = k end
    end
  end
  assert(tree_key and index_key, "the node has no private keys")
  return tree_key, index_key
end

local function new_tree()
  local act = bt.ActionNode(function() end, "Act")
  local wait = bt.WaitNode(2)
  local tree = bt.BT({}, bt.PriorityNode({act, wait}, 1, true))
  tree:Update()
  return tree, act, wait
end

-- Reads and writes the node's state and calls its methods; none may touch the tree's memory.
local function use(node)
  for _, field in ipairs({"status", "lastresult", "idx", "wake_time", "nextupdatetime", "parent", "children"}) do
    pcall(function() return node[field] end)
  end
  pcall(function() node.status = "RUNNING" end)
  pcall(function() node.wake_time = 5 end)
  for _, method in ipairs({"Visit", "Reset", "Step", "SaveStatus", "Stop", "GetSleepTime", "GetTreeSleepTime",
                           "DBString", "GetString", "GetTreeString"}) do
    pcall(node[method], node)
  end
  pcall(node.Sleep, node, 1)
end

describe("a node whose private keys a script overwrote", function()
  local bad_indices = {1e6, -5, 2^40, math.mininteger}
  for _, index in ipairs(bad_indices) do
    it("with the index " .. tostring(index) .. " is out of every tree", function()
      local tree, act, wait = new_tree()
      for _, node in ipairs({act, wait}) do
        local _, index_key = private_keys(node)
        rawset(node, index_key, index)
        assert.equal("READY", node.status) -- what a node out of any tree reads
        assert.has_error(function() node:Visit() end)
        use(node)
      end
      tree:Update()
      assert.is_string(tostring(tree))
    end)
  end

  local others = {
    ["a number"] = function() return 5 end,
    ["a table"] = function() return {} end,
    ["a userdata of another library"] = function() return io.stdout end,
    ["a definition"] = function() return bt.define(bt.ActionNode(function() end)) end,
    ["a wrangler's scheduler"] = function() return bt.BrainWrangler()._sched end,
  }
  for what, make in pairs(others) do
    it("with " .. what .. " for its tree is out of every tree", function()
      local tree, act, wait = new_tree()
      for _, node in ipairs({act, wait}) do
        local tree_key = private_keys(node)
        rawset(node, tree_key, make())
        assert.equal("READY", node.status)
        assert.has_error(function() node:Visit() end)
        use(node)
      end
      tree:Update()
      assert.is_string(tostring(tree))
    end)
  end

  it("with another, smaller tree and an index beyond it is out of every tree", function()
    local tree, act, wait = new_tree()
    local small = bt.BT({}, bt.ActionNode(function() end))
    local tree_key = private_keys(wait) -- index 2, and small has one node
    rawset(wait, tree_key, small)
    assert.equal("READY", wait.status)
    use(wait)
    tree:Update()
    small:Update()
    assert.is_string(tostring(small))
  end)
end)

describe("metamethods called by hand", function()
  local tree, act = new_tree()
  local def = bt.define(bt.ActionNode(function() end))
  local sched = bt.BrainWrangler()._sched
  local selves = {1, "x", {}, io.stdout, tree, def, sched, act, true}

  it("a node's __index and __newindex refuse what is not a node table", function()
    local mt = getmetatable(act)
    for _, self in ipairs({1, "x", io.stdout, true, tree}) do
      assert.has_error(function() mt.__index(self, "status") end)
      assert.has_error(function() mt.__newindex(self, "status", "READY") end)
    end
  end)

  it("a tree's __index gives nothing for what is not a tree", function()
    local index = getmetatable(tree).__index
    for _, self in ipairs({1, "x", {}, io.stdout, def, sched}) do
      assert.is_nil(index(self, "root"))
    end
    assert.equal(act.parent, index(tree, "root"))
  end)

  it("__gc of a tree, a definition and a scheduler ignores other values", function()
    local dump = tostring(tree)
    for _, owner in ipairs({tree, def, sched}) do
      local gc = getmetatable(owner).__gc
      for _, self in ipairs(selves) do
        if self ~= owner then pcall(gc, self) end
      end
    end
    assert.equal(dump, tostring(tree))
    tree:Update()
    assert.equal(1, def:size())
    assert.is_string(tostring(def:instantiate({})))
  end)

  it("a definition whose __gc a script called makes no more trees, and says why", function()
    local d = bt.define(bt.SequenceNode({bt.ActionNode(function() end, "A")}))
    local made = d:instantiate({})
    getmetatable(d).__gc(d)
    assert.has_error(function() d:instantiate({}) end,
      "instantiate: the definition was garbage collected")
    assert.has_error(function() bt.BT({}, d) end, "BT: the definition was garbage collected")
    made:Update() -- its trees keep what they need
    assert.matches("A - READY <SUCCESS>", tostring(made), 1, true)
  end)

  -- before, the dump went on with the instance freed under it: a crash
  it("a tree's __gc called by its own script while the tree works on it does nothing", function()
    local t
    local Bad = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Bad") end)
    function Bad:Visit() self.status = bt.RUNNING end
    function Bad:DBString()
      getmetatable(t).__gc(t)
      return "collected?"
    end
    t = bt.BT({}, bt.SequenceNode({Bad(), bt.ActionNode(function() end, "A")}))
    t:Update()
    assert.matches("collected?", tostring(t), 1, true)
    t:Update()
    assert.matches("Bad - RUNNING", tostring(t), 1, true)
  end)
end)

describe("a forged node", function()
  it("whose class says it is a node but of no kind is refused by BT and define, naming it", function()
    local forged = setmetatable({name = "Forged"}, {__bt_node = true})
    assert.has_error(function() bt.BT({}, forged) end, "BT: cannot add node 'Forged'")
    local odd = setmetatable({name = "Odd"}, {__bt_node = true, __bt_kind = 999})
    assert.has_error(function() bt.define(bt.SequenceNode({odd})) end, "define: cannot add node 'Odd'")
  end)
end)

-- bt looks up methods on node objects, brains and entities in the middle of a think or a tick.
-- A script's own __index that raised there used to unwind through the core: the tree stayed
-- "thinking" for good (and leaked), and the tick's other brains did not think (and leaked).
describe("an __index of a script's that raises during a think or a tick", function()
  local errors
  before_each(function()
    errors = {}
    bt.set_error_handler(function(msg) errors[#errors + 1] = msg end)
  end)
  after_each(function()
    bt.set_error_handler(nil)
  end)

  local function raising(_, key) error("no field " .. tostring(key)) end

  it("on a node is not called: bt reads a node's members raw, and the tree thinks on", function()
    local Runner = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Runner") end)
    function Runner:Visit() self.status = bt.RUNNING end
    local runner = Runner()
    local tree = bt.BT({}, bt.PriorityNode({runner}, 0, true))
    tree:Update()
    setmetatable(runner, {__index = raising})
    tree:Update() -- looks up Visit, Step and GetSleepTime
    assert.same({}, errors)
    tree:Update() -- not stuck in the last think
    assert.is_string(tostring(tree))
    tree:Stop() -- looks up OnStop
    tree:Reset()
  end)

  it("on what a DBString written in Lua returns shows as ? in the dump", function()
    local Odd = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Odd") end)
    function Odd:Visit() self.status = bt.RUNNING end
    function Odd:DBString() return setmetatable({}, {__tostring = raising}) end
    local tree = bt.BT({}, bt.PriorityNode({Odd()}, 0, true))
    tree:Update()
    assert.matches("Odd %- RUNNING <RUNNING> %(%?%)", tostring(tree))
    assert.is_true(#errors > 0)
    tree:Update()
  end)

  it("on a brain's entity is reported, and the tick's other brains think", function()
    local W = bt.BrainWrangler()
    local thinks = 0
    local B = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
    function B:OnStart()
      self.bt = bt.BT(self.inst, bt.ActionNode(function() thinks = thinks + 1 end))
    end
    local brains = {}
    for i = 1, 4 do
      local inst = {}
      if i == 2 then setmetatable(inst, {__index = raising}) end -- inst.entity raises
      if i == 3 then inst.entity = setmetatable({}, {__index = raising}) end -- entity.IsValid raises
      brains[i] = B(inst)
      brains[i].manager = W
      brains[i]:Start()
    end
    local odd = brains[4]
    setmetatable(odd, {__index = function(self, key) -- a brain whose methods cannot be found
      if key == "OnUpdate" then error("no OnUpdate") end
      return B[key]
    end})
    W:Update(1)
    assert.is_true(thinks >= 3)
    assert.is_true(#errors >= 3)
    W:Update(2)
    for _, b in ipairs(brains) do b:Stop() end
    W:Update(3)
    assert.equal(0, W:GetStats().registered)
  end)
end)
