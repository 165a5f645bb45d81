-- SPDX-License-Identifier: MIT
-- big_tree.lua LOG [SECONDS]: writes a log (docs/log-format.md) of one agent, "big 1", whose tree
-- has 2,010 nodes, thinking every 0.1 s of a stopped clock for SECONDS (default 20), with
-- conditions that flip over time so that statuses keep changing. bt-log view LOG then serves it:
-- the browser test times a frame of pan and zoom of the page on it (docs/viewer.md).
local bt = require "bt"
local path = assert(arg[1], "usage: lua5.4 big_tree.lua LOG [SECONDS]")
local seconds = tonumber(arg[2] or "20")

local now = 0
bt.set_clock(now)

-- a group of 41 nodes: Sequence{ gate, Selector{ 18 conditions }, Parallel{ 19 waits and actions } }
local function group(g)
  local conditions = {}
  for i = 1, 18 do
    conditions[i] = bt.ConditionNode(function() return math.floor(now * 2 + g + i) % 19 == 0 end,
                                     ("Check %d.%d"):format(g, i))
  end
  local work = {}
  for i = 1, 19 do
    if i % 4 == 0 then
      work[i] = bt.ActionNode(function() end, ("Act %d.%d"):format(g, i))
    else
      work[i] = bt.WaitNode(0.1 * (1 + (g + i) % 7))
    end
  end
  return bt.SequenceNode({
    bt.ConditionNode(function() return math.floor(now + g) % 5 ~= 0 end, ("Gate %d"):format(g)),
    bt.SelectorNode(conditions),
    bt.ParallelNode(work, ("Work %d"):format(g)),
  })
end

local groups = {}
for g = 1, 49 do groups[g] = group(g) end
local tree = bt.BT({GUID = 1, prefab = "big"}, bt.PriorityNode(groups, 0.5, true))
local log = assert(bt.log.create(path, {dbstrings = true}))
tree:record({agent = 1, label = "big 1", capacity = 0, log = log})
for _ = 1, math.floor(seconds * 10) do
  tree:Update()
  assert(log:flush())
  now = now + 0.1
  bt.set_clock(now)
end
assert(log:close())
