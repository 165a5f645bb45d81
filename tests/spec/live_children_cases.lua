-- SPDX-License-Identifier: MIT
-- The trees and edits of live_children_spec.lua. Each case takes the node classes as W (bt's, or
-- Don't Starve's behaviourtree.lua, on which the expected values were taken), a function note(s)
-- that records a call, and the entity; it returns the root, the edits to make before given thinks
-- (edits[k](tree, root) runs before think k), and the nodes taken out, whose fields are reported
-- too (kept).
local C = {}

local function cond(W, note, name, value)
  return W.ConditionNode(function() note(name); return value end, name)
end

local function act(W, note, name)
  return W.ActionNode(function() note(name) end, name)
end

local function wait(W, note, name) -- runs for ever
  return W.ConditionWaitNode(function() note(name); return false end, name)
end

-- AddBrainPostInit's usual patch: a new first choice, before the brain's first think
C.insert_before_first = function(W, note)
  local root = W.PriorityNode({cond(W, note, "Hungry", false), wait(W, note, "Wander")}, 1, true)
  return root, {
    [1] = function(tree) table.insert(tree.root.children, 1, cond(W, note, "Flee", true)) end,
  }
end

-- A child inserted above the running one, between thinks: the Priority's idx stays the number it
-- was, so until it evaluates again it resumes the child now at that place (which does not run)
C.insert_above_running = function(W, note)
  local root = W.PriorityNode({cond(W, note, "C1", false), wait(W, note, "Run")}, 1, true)
  return root, {
    [2] = function(tree) table.insert(tree.root.children, 1, cond(W, note, "New", true)) end,
  }
end

-- The running child removed: it is neither stopped nor reset, and keeps its fields
C.remove_running = function(W, note)
  local run = wait(W, note, "Run")
  run.OnStop = function() note("stop Run") end
  local root = W.PriorityNode({cond(W, note, "C1", false), run, wait(W, note, "Idle")}, 1, true)
  return root, {
    [2] = function(tree) table.remove(tree.root.children, 2) end,
  }, {run}
end

-- A deep child replaced, as a mod reaches into the brain's tree
C.replace_deep = function(W, note)
  local root = W.PriorityNode({
    W.SequenceNode({cond(W, note, "Ready", true), act(W, note, "Old")}),
    wait(W, note, "Idle"),
  }, 0.5, true)
  return root, {
    [3] = function(tree) tree.root.children[1].children[2] = act(W, note, "New") end,
  }
end

-- A child wrapped in a guard: the WhileNode's constructor makes it the child's parent
C.wrap = function(W, note)
  local root = W.PriorityNode({wait(W, note, "Work"), wait(W, note, "Idle")}, 1, true)
  local on = true
  return root, {
    [2] = function(tree)
      local old = tree.root.children[1]
      tree.root.children[1] = W.WhileNode(function() note("guard"); return on end, "Guard", old)
    end,
    [4] = function() on = false end,
  }
end

-- The list given to the constructor, kept by the script, and a child replaced through it (after
-- the list was asked for through its node: play reads the tree after every think)
C.list_kept = function(W, note)
  local kids = {cond(W, note, "C1", false), wait(W, note, "Idle")}
  local root = W.PriorityNode(kids, 0.5, true)
  return root, {
    [3] = function() kids[1] = cond(W, note, "C2", true) end,
  }
end

-- A node's whole children list replaced
C.list_assigned = function(W, note)
  local root = W.PriorityNode({cond(W, note, "C1", false), wait(W, note, "Idle")}, 0.5, true)
  return root, {
    [2] = function(tree) tree.root.children = {wait(W, note, "Other"), cond(W, note, "C1", true)} end,
  }
end

-- A node taken out, then put back two thinks later: it brings back its fields
C.out_and_in = function(W, note)
  local seq = W.SequenceNode({cond(W, note, "A", true), wait(W, note, "B")})
  local root = W.PriorityNode({seq, wait(W, note, "Idle")}, 1, true)
  return root, {
    [2] = function(tree) table.remove(tree.root.children, 1) end,
    [4] = function(tree) table.insert(tree.root.children, 1, seq) end,
  }, {seq}
end

-- An EventNode taken out still hears its event, as Don't Starve's keeps its listener: it clears
-- the clock of the Priority it was under, which then evaluates at its next think
C.event_out = function(W, note, inst)
  local ev = W.EventNode(inst, "attacked", act(W, note, "Fight"))
  local root = W.PriorityNode({wait(W, note, "Wander"), ev}, 5, true)
  return root, {
    [2] = function(tree) table.remove(tree.root.children, 2) end,
    [3] = function() inst:PushEvent("attacked") end,
  }, {ev}
end

C.names = {"insert_before_first", "insert_above_running", "remove_running", "replace_deep", "wrap",
           "list_kept", "list_assigned", "out_and_in", "event_out"}
C.thinks = 6

-- What the test sees after a think: the dump, then each node's fields in pre-order (its parent by
-- name), then those of the nodes taken out.
function C.seen(tree, root, kept)
  local out = {}
  for line in tostring(tree):gmatch("[^\n]+") do out[#out + 1] = line end
  local function line(n, depth)
    return string.rep(" ", depth) .. n.name .. " " .. tostring(n.status) .. " " .. tostring(n.lastresult) ..
      " idx=" .. tostring(n.idx) .. " parent=" .. tostring(n.parent and n.parent.name)
  end
  local function walk(n, depth)
    out[#out + 1] = line(n, depth)
    for _, c in ipairs(n.children or {}) do walk(c, depth + 1) end
  end
  walk(root, 0)
  for _, n in ipairs(kept or {}) do out[#out + 1] = "out: " .. line(n, 0) end
  return out
end

-- Plays a case with the classes W, the tree constructor make(inst, root) and an entity with Don't
-- Starve's event interface (entity()): returns, per think, the calls and what was seen. set_now(t)
-- moves the clock both worlds read.
function C.play(W, name, set_now, make, entity)
  local now = 10
  set_now(now)
  local calls = {}
  local function note(s) calls[#calls + 1] = s end
  local inst = entity()
  local root, edits, kept = C[name](W, note, inst)
  local tree = make(inst, root)
  local out = {}
  for k = 1, C.thinks do
    if edits[k] then edits[k](tree, tree.root) end
    now = now + 0.5
    set_now(now)
    tree:Update()
    out[k] = {calls = table.concat(calls, " "), seen = C.seen(tree, tree.root, kept)}
    calls = {}
  end
  return out
end

return C
