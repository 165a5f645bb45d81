-- SPDX-License-Identifier: MIT
-- brains.lua: the brains the think benchmark runs, written once as text so that the C host, bt's
-- Lua API and the original Don't Starve scripts all build the same tree from them.
--
-- A brain is an S-expression: (Kind arguments... children...). Kinds and their arguments:
--   (Priority period child...)  (Sequence child...)  (Selector child...)  (Parallel child...)
--   (Loop child...)  (Not child)  (FailIfSuccess child)  (While field child)  (If field child)
--   (Condition field)  (Action field)  (Wait seconds)
-- A Condition (and the condition of a While or If) returns the agent's field; an Action reads its
-- field and succeeds. Field names are Lua identifiers.

local brains = {}

-- About 40 nodes in the shape of a Don't Starve brain: guarded branches under a Priority root that
-- re-evaluates every 0.25 s, and an idle branch, five levels deep, that runs. Between two
-- evaluations a think resumes the running branch, so a think makes about one leaf call on average.
local IDLE = "(If calm (Sequence (Selector (Not (Condition alarmed)) (Action cope))" ..
  " (Loop (Sequence (Condition idle) (Wait 1.5) (Action wander) (Wait 0.5) (Action look)))))"

local function body()
  return table.concat({
    "(Priority 0.25",
    "  (While scared (Parallel (Action flee) (Wait 2)))",
    "  (If hungry (Sequence (Action find) (Wait 1) (Action eat)))",
    "  (While night (Priority 0.5",
    "    (If home (Action sleep))",
    "    (Sequence (Condition tired) (Wait 3))))",
    "  (Sequence (Condition bored) (Not (Condition busy)) (Action play))",
    "  " .. IDLE,
  }, "\n")
end

brains.small = body() .. ")"

-- About 2,000 nodes: the small brain followed by branches of lower priority that a think never
-- reaches while the idle branch runs.
local function filler(k)
  return string.format(
    "(If f%d (Sequence (Condition g%d) (Action h%d) (Wait 1) (Selector (Condition i%d) (Action j%d))" ..
    " (Not (Condition k%d)) (Parallel (Action l%d) (Wait 2)) (Action m%d)))", k, k, k, k, k, k, k, k)
end

do
  local parts = {body()}
  for k = 1, 130 do parts[#parts + 1] = "  " .. filler(k) end
  brains.large = table.concat(parts, "\n") .. ")"
end

-- The fields of the agents: idle and calm are true, every other field is false.
function brains.agent()
  return {idle = true, calm = true}
end

-- Parses a brain into nested arrays {kind, args..., children...}: numbers stay numbers, field
-- names are strings, children are arrays.
function brains.parse(text)
  local pos = 1
  local function skip() pos = text:find("[^%s]", pos) or #text + 1 end
  local function node()
    skip()
    assert(text:sub(pos, pos) == "(", "brain: '(' expected at " .. pos)
    pos = pos + 1
    local out = {}
    while true do
      skip()
      local c = text:sub(pos, pos)
      if c == ")" then pos = pos + 1; return out end
      if c == "(" then
        out[#out + 1] = node()
      else
        local atom = assert(text:match("^[^%s()]+", pos), "brain: unexpected end at " .. pos)
        pos = pos + #atom
        out[#out + 1] = tonumber(atom) or atom
      end
    end
  end
  return node()
end

-- A function(env, leaf) that builds the node objects of a brain with the constructors in env (bt's
-- or Don't Starve's), the constructor calls written out as a brain's OnStart has them (the text
-- is parsed once, here). leaf(kind, field) returns the function of a Condition or an Action
-- ("Condition" or "Action").
function brains.builder(text)
  local ctor = {Priority = "PriorityNode", Sequence = "SequenceNode", Selector = "SelectorNode",
    Parallel = "ParallelNode", Loop = "LoopNode", Not = "NotDecorator",
    FailIfSuccess = "FailIfSuccessDecorator", While = "WhileNode", If = "IfNode",
    Condition = "ConditionNode", Action = "ActionNode", Wait = "WaitNode"}
  local function gen(n)
    local kind = n[1]
    local kids = {}
    local first = (kind == "Priority" or kind == "While" or kind == "If" or kind == "Condition"
      or kind == "Action" or kind == "Wait") and 3 or 2
    for i = first, #n do kids[#kids + 1] = gen(n[i]) end
    local list = "{" .. table.concat(kids, ", ") .. "}"
    local c = "env." .. assert(ctor[kind], "brain: unknown kind " .. tostring(kind))
    if kind == "Priority" then return string.format("%s(%s, %s)", c, list, n[2])
    elseif kind == "Not" or kind == "FailIfSuccess" then return string.format("%s(%s)", c, kids[1])
    elseif kind == "While" or kind == "If" then
      return string.format("%s(leaf(\"Condition\", %q), %q, %s)", c, n[2], n[2], kids[1])
    elseif kind == "Condition" or kind == "Action" then
      return string.format("%s(leaf(%q, %q), %q)", c, kind, n[2], n[2])
    elseif kind == "Wait" then return string.format("%s(%s)", c, n[2])
    end
    return string.format("%s(%s)", c, list)
  end
  local src = "local env, leaf = ...\nreturn " .. gen(brains.parse(text))
  local chunk = assert(load(src, "=brain"))
  return function(env, leaf) return chunk(env, leaf) end
end

-- Leaf functions that read a field of the inst they are given (bt passes the tree's inst).
function brains.inst_leaf(kind, field)
  local src = kind == "Condition" and "return function(inst) return inst.%s end"
    or "return function(inst) local _ = inst.%s end"
  return load(string.format(src, field), "=" .. field)()
end

-- Leaf functions the Don't Starve way: closures over one agent's inst, called without arguments.
-- As in a brain's OnStart, all the closures of one agent are made in one function, so they share
-- the one upvalue.
local makers = {}
function brains.closure_leaf(inst, text)
  local make = makers[text]
  if not make then
    local fields, src = {}, {"local inst = ...", "return {"}
    for kind, field in text:gmatch("%((%a+) (%a[%w_]*)") do
      if kind == "While" or kind == "If" then kind = "Condition" end
      local key = kind .. " " .. field
      if (kind == "Condition" or kind == "Action") and not fields[key] then
        fields[key] = true
        src[#src + 1] = string.format(kind == "Condition" and "[%q] = function() return inst.%s end,"
          or "[%q] = function() local _ = inst.%s end,", key, field)
      end
    end
    src[#src + 1] = "}"
    make = assert(load(table.concat(src, "\n"), "=leaves"))
    makers[text] = make
  end
  local leaves = make(inst)
  return function(kind, field) return leaves[kind .. " " .. field] end
end

-- Counts the nodes of a brain.
function brains.count(text)
  local function count(n)
    local c = 1
    if n[1] == "While" or n[1] == "If" then c = 2 end -- a Parallel or Sequence and a Condition
    for i = 2, #n do if type(n[i]) == "table" then c = c + count(n[i]) end end
    return c
  end
  return count(brains.parse(text))
end

return brains
