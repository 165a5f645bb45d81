-- SPDX-License-Identifier: MIT
-- definition:dot() and tree:dot(): the tree as a Graphviz DOT graph (docs/lua-api.md: Trees,
-- docs/debugging.md: Pictures of a tree). The C side (bt_def_dot, bt_inst_dot) is compared byte
-- for byte with expected files in tests/c/test_dot.c; here: what the Lua methods give.

local H = require "helpers"
local bt = H.bt

-- the line of the DOT node whose label starts with name (as escaped in the label)
local function box(dot, name)
  for line in dot:gmatch("[^\n]+") do
    if line:find('[label="' .. name, 1, true) then return line end
  end
end

describe("dot()", function()
  after_each(H.restore)

  it("draws a definition top down with names, kinds and parameters, names escaped", function()
    local def = bt.define(bt.PriorityNode({
      bt.ConditionNode(function() return false end, 'Sees "wolf"\\here'),
      bt.SequenceNode({ bt.WaitNode(2), bt.ActionNode(function() end, "Eat\nnow") }),
    }, 0.25, true))
    local dot = def:dot()
    assert.equal("digraph bt {\n  rankdir=TB;\n", dot:sub(1, 27))
    assert.equal("}\n", dot:sub(-2))
    assert.truthy(box(dot, "Priority\\nPriorityNode, period 0.25\""))
    assert.truthy(box(dot, 'Sees \\"wolf\\"\\\\here\\nConditionNode"'))
    assert.truthy(box(dot, "Wait\\nWaitNode, 2 s\""))
    assert.truthy(box(dot, "Eat\\nnow\\nActionNode\""))
    assert.falsy(dot:find("\n", 1, true) and dot:find("Eat\nnow", 1, true)) -- no raw newline in a name
    -- children in order: the edges of the root, then the Sequence's
    local edges = {}
    for a, b in dot:gmatch("n(%d+) %-> n(%d+)") do edges[#edges + 1] = a .. ">" .. b end
    assert.same({ "0>1", "0>2", "2>3", "2>4" }, edges)
    assert.equal(dot, def:dot()) -- deterministic
  end)

  it("colours a tree's statuses and draws its running path bold", function()
    H.clock(0)
    local root = bt.PriorityNode({
      bt.ConditionNode(function() return false end, "Hungry"),
      bt.SequenceNode({ bt.WaitNode(3) }),
    }, 1, true)
    local tree = bt.BT({}, root)
    local before = tree:dot()
    assert.truthy(box(before, "Sequence\\nSequenceNode\\nREADY <READY>\", fillcolor=\"#ffffff\", color=\"#808080\"];"))
    assert.falsy(before:find("bold", 1, true))
    tree:Update()
    local dot = tree:dot()
    local running = ", fillcolor=\"#ffe08a\", color=\"#b8860b\", style=\"rounded,filled,bold\", penwidth=2];"
    assert.equal('  n0 [label="Priority\\nPriorityNode, period 1\\nRUNNING <RUNNING>"' .. running, box(dot, "Priority"))
    assert.equal('  n2 [label="Sequence\\nSequenceNode\\nRUNNING <RUNNING>"' .. running, box(dot, "Sequence"))
    assert.equal('  n1 [label="Hungry\\nConditionNode\\nREADY <FAILED>", fillcolor="#ffffff", color="#c62828"];',
                 box(dot, "Hungry"))
    assert.truthy(dot:find("  n0 -> n2 [style=bold, penwidth=2];", 1, true))
    assert.truthy(dot:find("  n0 -> n1;", 1, true))
  end)

  it("shows the status a node written in Lua sets, as the dump does", function()
    local Busy = bt.Class(bt.BehaviourNode, function(self) bt.BehaviourNode._ctor(self, "Busy") end)
    function Busy:Visit() self.status = bt.RUNNING end
    local tree = bt.BT({}, bt.SequenceNode { Busy() })
    tree:Update()
    assert.truthy(box(tree:dot(), "Busy\\nBehaviourNode\\nRUNNING <RUNNING>\""))
    assert.truthy(tostring(tree):find("Busy - RUNNING", 1, true))
  end)

  it("marks subtrees and shared nodes", function()
    bt.define(bt.SequenceNode({ bt.ActionNode(function() end, "Run") }, "Flee"), "flee")
    local idle = bt.ActionNode(function() end, "Idle")
    local def = bt.define(bt.PriorityNode({
      bt.SubtreeNode("flee"),
      bt.SequenceNode({ idle }, "A"),
      bt.SequenceNode({ idle }, "B"),
    }, 1, true))
    local dot = def:dot()
    assert.truthy(dot:find('subgraph cluster_n2 {\n    label="subtree flee";\n    style=dashed;', 1, true))
    assert.truthy(box(dot, "Idle\\nActionNode\\nshared: 2 places\", peripheries=2"))
    bt.undefine("flee")
  end)

  it("refuses a bad self", function()
    local def = bt.define(bt.WaitNode(1))
    local tree = def:instantiate({})
    assert.has_error(function() def.dot(5) end, "bad self to 'dot' (definition expected, got number)")
    assert.has_error(function() tree.dot({}) end, "bad self to 'dot' (BT expected, got table)")
    assert.has_error(function() def.dot(tree) end, "bad self to 'dot' (definition expected, got userdata)")
  end)
end)
