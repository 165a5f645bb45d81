-- SPDX-License-Identifier: MIT
-- argument_errors_spec.lua: every argument error of the module, raised in C or in its Lua files,
-- has one form: "<file>:<line>: bad argument #<n> to '<function>' (<what> expected, got <what>)",
-- or "bad self to '<function>' (...)" for the object a method was called on, where the file and
-- line are the caller's.
local bt = require "bt"

-- The message of the error f raises; f is written on one line, where the error must point.
local function error_of(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return err
end

local function where(f)
  local info = debug.getinfo(f, "S")
  return info.short_src .. ":" .. info.linedefined .. ": "
end

local function check(cases)
  for _, case in ipairs(cases) do
    assert.equal(where(case[1]) .. case[2], error_of(case[1]))
  end
end

describe("argument errors", function()
  it("name the argument, the function and the caller's line, raised in C", function()
    check({
      {function() bt.PriorityNode(42) end, "bad argument #1 to 'PriorityNode' (table expected, got number)"},
      {function() bt.set_clock("x") end, "bad argument #1 to 'set_clock' (function, number or nil expected, got string)"},
      {function() bt.set_tick_time(0) end, "bad argument #1 to 'set_tick_time' (positive number expected, got a number that is not positive)"},
      {function() bt.install_globals(5) end, "bad argument #1 to 'install_globals' (table or nil expected, got number)"},
      {function() bt.define(bt.WaitNode(1), "") end, "bad argument #2 to 'define' (the name of a subtree expected, got \"\")"},
      {function() bt.BrainManager:Update(1.5) end, "bad argument #1 to 'Update' (integer tick expected, got a fraction)"},
      {function() bt.BrainManager:Sleep({}, "soon") end, "bad argument #2 to 'Sleep' (number expected, got string)"},
    })
  end)

  it("have the same form when the module's Lua files raise them", function()
    check({
      {function() bt.Class(5) end, "bad argument #1 to 'Class' (table or function expected, got number)"},
      {function() bt.BrainWrangler(5) end, "bad argument #1 to 'BrainWrangler' (table or nil expected, got number)"},
      {function() bt.BrainWrangler({policy = "odd"}) end, "bad argument #1 to 'BrainWrangler' (policy \"ds\" or \"fixed_rate\" expected, got 'odd')"},
      {function() bt.SharedBrain(5) end, "bad argument #1 to 'SharedBrain' (node or function expected, got number)"},
      {function() bt.reload.module(5) end, "bad argument #1 to 'module' (string expected, got number)"},
      {function() bt.reload.watch("often") end, "bad argument #1 to 'watch' (\"auto\", \"inotify\" or \"poll\" expected, got often)"},
      {function() bt.sandbox.loadfile(5) end, "bad argument #1 to 'loadfile' (string expected, got number)"},
      {function() bt.sandbox.install(5) end, "bad argument #1 to 'install' (table of prefixes expected, got number)"},
    })
  end)

  it("name the line of a return that calls the constructor or function (a tail call)", function()
    local prio_line = debug.getinfo(1, "l").currentline + 1
    local Prio = bt.Class(bt.PriorityNode, function(self, children) bt.PriorityNode._ctor(self, children, 1) end)
    check({
      {function() return bt.PriorityNode(42, 1) end, "bad argument #1 to 'PriorityNode' (table expected, got number)"},
      {function() return bt.WhileNode(5) end, "bad argument #1 to 'WhileNode' (function expected, got number)"},
      {function() return bt.BT({}, 5) end, "bad argument #2 to 'BT' (node or definition expected, got number)"},
      {function() return bt.BrainWrangler(5) end, "bad argument #1 to 'BrainWrangler' (table or nil expected, got number)"},
      {function() return bt.Class(5) end, "bad argument #1 to 'Class' (table or function expected, got number)"},
      {function() return bt.SharedBrain(5) end, "bad argument #1 to 'SharedBrain' (node or function expected, got number)"},
      {function() return bt.reload.module(5) end, "bad argument #1 to 'module' (string expected, got number)"},
      {function() return bt.sandbox.loadfile(5) end, "bad argument #1 to 'loadfile' (string expected, got number)"},
    })
    -- a subclass written in Lua: the mistake is in its constructor, which names that line
    local err = error_of(function() return Prio(42) end)
    assert.equal(string.format("%s:%d: bad argument #1 to 'PriorityNode' (table expected, got number)",
      debug.getinfo(1, "S").short_src, prio_line), err)
  end)

  it("say what a bad self is in one way", function()
    local tree = bt.BT({}, bt.SequenceNode({bt.ActionNode(function() end, "A")}))
    tree:Update()
    local seq = tree.root
    check({
      {function() tree.Update({}) end, "bad self to 'Update' (BT expected, got table)"},
      {function() bt.SequenceNode.Visit(5) end, "bad self to 'Visit' (node expected, got number)"},
      {function() bt.PriorityNode.Visit(seq) end, "bad self to 'Visit' (PriorityNode expected, got SequenceNode)"},
      {function() bt.EventNode.OnEvent(seq) end, "bad self to 'OnEvent' (EventNode expected, got table)"},
      {function() bt.BrainWrangler.AddInstance(5, {}) end, "bad self to 'AddInstance' (BrainWrangler expected, got number)"},
      {function() bt.define(bt.WaitNode(1)).size(5) end, "bad self to 'size' (definition expected, got number)"},
      {function() bt.define(bt.WaitNode(1)).instantiate(5) end, "bad self to 'instantiate' (definition expected, got number)"},
      {function() bt.SequenceNode._ctor(5, {}) end, "bad self to 'SequenceNode' (the node under construction expected, got number)"},
    })
  end)
end)
