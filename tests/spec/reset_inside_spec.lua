-- SPDX-License-Identifier: MIT
-- Reset from inside a think does what Don't Starve's does (docs/lua-api.md, "Trees"): the tree
-- resets there and then, and the think goes on with the nodes' fields as they now are. A mod's
-- "unstick" action that resets its own brain's tree succeeds, and the next child of its Sequence
-- runs.
--
-- The expected calls, dumps and fields were taken from Don't Starve Together's behaviourtree.lua
-- (game build v638228) by running the same trees on it, with the same clock (10, then 0.5 s more
-- before each think): a mod's unstick action; LoopNodes reset from their second child (Don't
-- Starve's LoopNode then counts on from its rewound index, and visits that child again); a
-- Sequence reset between its children; a node written in Lua that resets the tree from its own
-- Visit, then sets its status.
local bt = require "bt"
local H = require "helpers"

local EXPECTED = {
  {scenario = "unstick", think = 1, calls = "unstick next", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Unstick - READY <SUCCESS> ()>0.00",
    "   >   >Next - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Unstick idx=nil rep=nil",
    "  Next idx=nil rep=nil",
    " Idle idx=nil rep=nil",
  }},
  {scenario = "unstick", think = 2, calls = "unstick next", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Unstick - READY <SUCCESS> ()>0.00",
    "   >   >Next - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Unstick idx=nil rep=nil",
    "  Next idx=nil rep=nil",
    " Idle idx=nil rep=nil",
  }},
  {scenario = "loop", think = 1, calls = "c a1 w", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00",
    "   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=1 rep=nil",
    " Parallel idx=nil rep=nil",
    "  Sequence idx=1 rep=1",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  W idx=nil rep=nil",
  }},
  {scenario = "loop", think = 2, calls = "c a2 w", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.00",
    "   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=1 rep=nil",
    " Parallel idx=nil rep=nil",
    "  Sequence idx=1 rep=1",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  W idx=nil rep=nil",
  }},
  {scenario = "loop", think = 3, calls = "c a3 a4 w", seen = {
    "Priority - RUNNING <RUNNING> (execute -1, eval in 0.00)>0.00",
    "   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=nil rep=nil",
    " Parallel idx=nil rep=nil",
    "  Sequence idx=1 rep=1",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  W idx=nil rep=nil",
  }},
  {scenario = "loop2", think = 1, calls = "c a1 w", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 5.00)>0.00",
    "   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >   >A - READY <READY> ()>0.00",
    "   >   >   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=1 rep=nil",
    " Parallel idx=nil rep=nil",
    "  Parallel idx=nil rep=nil",
    "   Sequence idx=1 rep=1",
    "    C idx=nil rep=nil",
    "    A idx=nil rep=nil",
    "   W idx=nil rep=nil",
  }},
  {scenario = "loop2", think = 2, calls = "c a2 w", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 4.50)>0.00",
    "   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >Parallel - RUNNING <RUNNING> ()>0.00",
    "   >   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >   >A - READY <READY> ()>0.00",
    "   >   >   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=1 rep=nil",
    " Parallel idx=nil rep=nil",
    "  Parallel idx=nil rep=nil",
    "   Sequence idx=1 rep=1",
    "    C idx=nil rep=nil",
    "    A idx=nil rep=nil",
    "   W idx=nil rep=nil",
  }},
  {scenario = "loop2", think = 3, calls = "c a3 a4 w", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Parallel - READY <SUCCESS> ()>0.00",
    "   >   >Parallel - READY <SUCCESS> ()>0.00",
    "   >   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >   >A - READY <READY> ()>0.00",
    "   >   >   >W - READY <SUCCESS> ()>0.00",
    "Priority idx=nil rep=nil",
    " Parallel idx=nil rep=nil",
    "  Parallel idx=nil rep=nil",
    "   Sequence idx=1 rep=0",
    "    C idx=nil rep=nil",
    "    A idx=nil rep=nil",
    "   W idx=nil rep=nil",
  }},
  {scenario = "loop2", think = 4, calls = "c a5 w", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Parallel - READY <SUCCESS> ()>0.00",
    "   >   >Parallel - READY <SUCCESS> ()>0.00",
    "   >   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >   >A - READY <READY> ()>0.00",
    "   >   >   >W - READY <SUCCESS> ()>0.00",
    "Priority idx=nil rep=nil",
    " Parallel idx=nil rep=nil",
    "  Parallel idx=nil rep=nil",
    "   Sequence idx=1 rep=0",
    "    C idx=nil rep=nil",
    "    A idx=nil rep=nil",
    "   W idx=nil rep=nil",
  }},
  {scenario = "seq", think = 1, calls = "c w", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.25)>0.00",
    "   >Sequence - READY <FAILED> ()>0.00",
    "   >   >C - READY <FAILED> ()>0.00",
    "   >   >A - READY <READY> ()>0.00",
    "   >   >B - READY <READY> ()>0.00",
    "   >W - RUNNING <RUNNING> ()>0.00",
    "Priority idx=2 rep=nil",
    " Sequence idx=1 rep=nil",
    "  C idx=nil rep=nil",
    "  A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " W idx=nil rep=nil",
  }},
  {scenario = "seq", think = 2, calls = "c a1 a2 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >C - READY <SUCCESS> ()>0.00",
    "   >   >A - READY <SUCCESS> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >W - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  C idx=nil rep=nil",
    "  A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " W idx=nil rep=nil",
  }},
  {scenario = "seq", think = 3, calls = "c a3 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >C - READY <SUCCESS> ()>0.00",
    "   >   >A - READY <SUCCESS> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >W - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  C idx=nil rep=nil",
    "  A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " W idx=nil rep=nil",
  }},
  {scenario = "loop3", think = 1, calls = "c a1 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >D - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Sequence idx=1 rep=0",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " D idx=nil rep=nil",
  }},
  {scenario = "loop3", think = 2, calls = "c a2 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >D - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Sequence idx=1 rep=0",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " D idx=nil rep=nil",
  }},
  {scenario = "loop3", think = 3, calls = "c a3 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >D - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Sequence idx=1 rep=0",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " D idx=nil rep=nil",
  }},
  {scenario = "loop3", think = 4, calls = "c a4 b", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Sequence - READY <READY> ()>0.00",
    "   >   >   >C - READY <READY> ()>0.00",
    "   >   >   >A - READY <READY> ()>0.00",
    "   >   >B - READY <SUCCESS> ()>0.00",
    "   >D - READY <READY> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Sequence idx=1 rep=0",
    "   C idx=nil rep=nil",
    "   A idx=nil rep=nil",
    "  B idx=nil rep=nil",
    " D idx=nil rep=nil",
  }},
  {scenario = "lua node", think = 1, calls = "cond visit READY after reset RUNNING", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.25)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >Cond - READY <SUCCESS> ()>0.00",
    "   >   >Resetter - RUNNING <RUNNING> ()>0.00",
    "   >   >After - READY <READY> ()>0.00",
    "Priority idx=1 rep=nil",
    " Sequence idx=2 rep=nil",
    "  Cond idx=nil rep=nil",
    "  Resetter idx=nil rep=nil",
    "  After idx=nil rep=nil",
  }},
  {scenario = "lua node", think = 2, calls = "visit RUNNING after", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Cond - READY <READY> ()>0.00",
    "   >   >Resetter - READY <SUCCESS> ()>0.00",
    "   >   >After - READY <SUCCESS> ()>0.00",
    "Priority idx=nil rep=nil",
    " Sequence idx=1 rep=nil",
    "  Cond idx=nil rep=nil",
    "  Resetter idx=nil rep=nil",
    "  After idx=nil rep=nil",
  }},
  {scenario = "lua node", think = 3, calls = "cond visit READY after reset RUNNING", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.25)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >Cond - READY <SUCCESS> ()>0.00",
    "   >   >Resetter - RUNNING <RUNNING> ()>0.00",
    "   >   >After - READY <READY> ()>0.00",
    "Priority idx=1 rep=nil",
    " Sequence idx=2 rep=nil",
    "  Cond idx=nil rep=nil",
    "  Resetter idx=nil rep=nil",
    "  After idx=nil rep=nil",
  }},
}

-- the trees; reset() resets the tree being built, note(s) records a call
local SCENARIOS = {}

SCENARIOS.unstick = function(note, reset)
  return bt.PriorityNode({
    bt.SequenceNode({
      bt.ActionNode(function() note("unstick"); reset() end, "Unstick"),
      bt.ActionNode(function() note("next") end, "Next"),
    }),
    bt.ActionNode(function() note("idle") end, "Idle"),
  }, 0.25, true)
end

SCENARIOS.loop = function(note, reset)
  local n = 0
  return bt.PriorityNode({
    bt.ParallelNode({
      bt.LoopNode({
        bt.ConditionNode(function() note("c"); return true end, "C"),
        bt.ActionNode(function() n = n + 1; note("a" .. n); if n % 2 == 1 then reset() end end, "A"),
      }, 3),
      bt.ConditionWaitNode(function() note("w"); return false end, "W"),
    }),
  }, 1, true)
end

-- the Loop under visit is reset, counts its pass after, and the think ends in SUCCESS: its Step
-- resets the Loop again (its touched bit must have come back after the first reset)
SCENARIOS.loop2 = function(note, reset)
  local n = 0
  return bt.PriorityNode({
    bt.ParallelNode({
      bt.ParallelNode({
        bt.LoopNode({
          bt.ConditionNode(function() note("c"); return true end, "C"),
          bt.ActionNode(function() n = n + 1; note("a" .. n); if n == 3 then reset() end end, "A"),
        }),
        bt.ConditionWaitNode(function() note("w"); return n >= 3 end, "W"),
      }),
    }),
  }, 5, true)
end

-- a Sequence that started READY this think is reset between its children: it goes on from its
-- rewound index, so its second child runs again
SCENARIOS.seq = function(note, reset)
  local think, calls = 0, 0
  return bt.PriorityNode({
    bt.SequenceNode({
      bt.ConditionNode(function() think = think + 1; note("c"); return think >= 2 end, "C"),
      bt.ActionNode(function() calls = calls + 1; note("a" .. calls); if calls == 1 then reset() end end, "A"),
      bt.ActionNode(function() note("b") end, "B"),
    }),
    bt.ConditionWaitNode(function() note("w"); return false end, "W"),
  }, 0.25, true)
end

SCENARIOS.loop3 = function(note, reset)
  local n = 0
  return bt.PriorityNode({
    bt.SequenceNode({
      bt.LoopNode({
        bt.ConditionNode(function() note("c"); return true end, "C"),
        bt.ActionNode(function() n = n + 1; note("a" .. n); if n == 2 then reset() end end, "A"),
      }, 4),
      bt.ActionNode(function() note("b") end, "B"),
    }),
    bt.ConditionNode(function() note("d"); return true end, "D"),
  }, 0.25, true)
end

local Resetter = bt.Class(bt.BehaviourNode, function(self, note, reset)
  bt.BehaviourNode._ctor(self, "Resetter")
  self.note, self.reset = note, reset
end)
function Resetter:Visit()
  self.note("visit " .. tostring(self.status))
  if self.status == bt.READY then
    self.status = bt.RUNNING
    self.reset()
    self.note("after reset " .. tostring(self.status))
  else
    self.status = bt.SUCCESS
  end
end

SCENARIOS["lua node"] = function(note, reset)
  return bt.PriorityNode({
    bt.SequenceNode({
      bt.ConditionNode(function() note("cond"); return true end, "Cond"),
      Resetter(note, reset),
      bt.ActionNode(function() note("after") end, "After"),
    }),
  }, 0.25, true)
end

-- what the test sees after a think: the dump, then each node's idx and rep, in pre-order
local function seen(tree, root)
  local out = {}
  for line in tostring(tree):gmatch("[^\n]+") do out[#out + 1] = line end
  local function walk(n, depth)
    out[#out + 1] = string.rep(" ", depth) .. n.name .. " idx=" .. tostring(n.idx) .. " rep=" .. tostring(n.rep)
    for _, c in ipairs(n.children or {}) do walk(c, depth + 1) end
  end
  walk(root, 0)
  return table.concat(out, "\n")
end

local function play(name, make_tree)
  local now = 10
  bt.set_clock(function() return now end)
  local calls, tree = {}, nil
  local function note(s) calls[#calls + 1] = s end
  local root
  tree, root = make_tree(SCENARIOS[name](note, function() tree:Reset() end))
  local thinks = 0
  for _, want in ipairs(EXPECTED) do
    if want.scenario == name then
      thinks = thinks + 1
      now = now + 0.5
      tree:Update()
      assert.equal(want.calls, table.concat(calls, " "), name .. ": calls of think " .. want.think)
      calls = {}
      assert.equal(table.concat(want.seen, "\n"), seen(tree, root), name .. ": after think " .. want.think)
    end
  end
  assert.is_true(thinks > 1)
end

describe("Reset from inside a think", function()
  after_each(H.restore)

  for _, name in ipairs({ "unstick", "loop", "loop2", "seq", "loop3", "lua node" }) do
    it("does what Don't Starve's does: " .. name, function()
      local errs = H.errors()
      play(name, function(root) return bt.BT({}, root), root end)
      assert.same({}, errs)
    end)
  end

  for _, name in ipairs({ "unstick", "loop2", "seq" }) do
    it("the same in the DS-exact mode and in a tree of a shared definition: " .. name, function()
      local errs = H.errors()
      play(name, function(root) return bt.BT({}, root, { exact = true }), root end)
      play(name, function(root)
        local tree = bt.BT({}, bt.define(root))
        return tree, tree.root
      end)
      assert.same({}, errs)
    end)
  end
end)
