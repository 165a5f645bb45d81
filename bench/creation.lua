-- SPDX-License-Identifier: MIT
-- creation.lua: builds the think benchmark's 40-node brain for N agents one way, with the collector
-- stopped, and nothing else: run it under callgrind with two values of N, and the difference of the
-- instruction counts divided by the difference of the N is what one agent's creation costs.
--
--   [DS_SCRIPTS=/path/to/scripts] valgrind --tool=callgrind build/bench/bench_think \
--     bench/creation.lua WAY N
--
-- WAY: bt (a tree per agent: the constructors, then BT(inst, root)), ds (the same on the original
-- Don't Starve scripts, DS_SCRIPTS needed), ctors and ds_ctors (the constructors alone, with the
-- brain's closures), plain (the same node tables and closures made in plain Lua: name, children,
-- parent and the kind's fields, a metatable, each table made at its full size, no checks: the
-- constructors' floor), closures (the brain's closures alone), shared (bt.define once,
-- definition:instantiate(inst) per agent), where (bt as above, after bt.set_where(true): every
-- constructor notes where it was called, for coverage).

local bt = require "bt"
local dir = arg[0]:match("^(.*)/") or "."
local brains = dofile(dir .. "/brains.lua")
local way, n = arg[1], tonumber(arg[2])
local usage = "usage: bench_think bench/creation.lua bt|ds|ctors|ds_ctors|plain|closures|shared|where N"
if not (way and n and n >= 1) then
  io.stderr:write(usage, "\n")
  os.exit(2)
end

local ds
if way == "ds" or way == "ds_ctors" then
  local ds_dir = os.getenv("DS_SCRIPTS")
  if not ds_dir or ds_dir == "" then
    io.stderr:write("creation.lua: set DS_SCRIPTS to the Don't Starve scripts folder\n")
    os.exit(2)
  end
  ds = setmetatable({GetTime = function() return 0 end}, {__index = _G})
  ds.require = function(name)
    return assert(loadfile(ds_dir .. "/" .. name:gsub("%.lua$", "") .. ".lua", "t", ds))()
  end
  ds.require("class")
  ds.require("behaviourtree")
end

-- the constructors' floor: plain tables with the fields bt's constructors set and a metatable, each
-- made by one table constructor with every field it will hold (`parent` too), so that none grows
local plain = {}
do
  local mt = {}
  local function node(o, children)
    setmetatable(o, mt)
    for i = 1, #children do children[i].parent = o end
    return o
  end
  local function list(name, c) return node({name = name, children = c, parent = false}, c) end
  local function one(name, c)
    local l = {c}
    return node({name = name, children = l, parent = false}, l)
  end
  plain.PriorityNode = function(c, p)
    return node({name = "Priority", children = c, parent = false, period = p, lasttime = 0}, c)
  end
  plain.SequenceNode = function(c) return list("Sequence", c) end
  plain.SelectorNode = function(c) return list("Selector", c) end
  plain.ParallelNode = function(c, name) return list(name or "Parallel", c) end
  plain.LoopNode = function(c, m) return node({name = "Loop", children = c, parent = false, maxreps = m}, c) end
  plain.NotDecorator = function(c) return one("Not", c) end
  plain.FailIfSuccessDecorator = function(c) return one("FailIfSuccess", c) end
  plain.ConditionNode = function(fn, name)
    return setmetatable({name = name or "Condition", parent = false, fn = fn}, mt)
  end
  plain.ActionNode = function(fn, name)
    return setmetatable({name = name or "Action", parent = false, action = fn}, mt)
  end
  plain.WaitNode = function(t) return setmetatable({name = "Wait", parent = false, wait_time = t}, mt) end
  plain.WhileNode = function(fn, name, c) return plain.ParallelNode({plain.ConditionNode(fn, name), c}, name) end
  plain.IfNode = function(fn, name, c) return plain.SequenceNode({plain.ConditionNode(fn, name), c}, name) end
end

local build = brains.builder(brains.small)
local def
local ways = {
  bt = function(inst) return bt.BT(inst, build(bt, brains.closure_leaf(inst, brains.small))) end,
  where = function(inst) return bt.BT(inst, build(bt, brains.closure_leaf(inst, brains.small))) end,
  ds = function(inst) return ds.BT(inst, build(ds, brains.closure_leaf(inst, brains.small))) end,
  ctors = function(inst) return build(bt, brains.closure_leaf(inst, brains.small)) end,
  ds_ctors = function(inst) return build(ds, brains.closure_leaf(inst, brains.small)) end,
  plain = function(inst) return build(plain, brains.closure_leaf(inst, brains.small)) end,
  closures = function(inst) return brains.closure_leaf(inst, brains.small) end,
  shared = function(inst)
    def = def or bt.define(build(bt, brains.inst_leaf))
    return def:instantiate(inst)
  end,
}
if way == "where" then bt.set_where(true) end
local make = ways[way]
if not make then
  io.stderr:write(usage, "\n")
  os.exit(2)
end
local insts, kept = {}, {}
for i = 1, n do insts[i] = brains.agent() end
make(brains.agent()) -- the first of a shape compiles it; the others find it
collectgarbage("stop")
for i = 1, n do kept[i] = make(insts[i]) end
