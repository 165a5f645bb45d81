-- SPDX-License-Identifier: MIT
-- The LuaLS annotations (lua/meta/bt.lua, docs/lua-api.md "Editors"): every public name of the
-- module has an annotation, and every annotation names something that exists. A name added to
-- the module without its annotation, or an annotation left behind by a removed name, fails here.
local bt = require "bt"

local SOURCE = os.getenv("BT_SOURCE_DIR") or "."

local function read(path)
  local f = assert(io.open(SOURCE .. "/" .. path))
  local text = f:read("a")
  f:close()
  return text
end

-- Reads the meta file as its header describes its layout: classes (`---@class bt.X[: bt.Y]`
-- followed by `local X = {}`, or by nothing but `---@field` lines: a shape), their fields and
-- methods, and the module's members (`bt.X =`, `function bt.X(`). A description is the text of
-- the `---` lines (not `---@`) right above a `---@class` or a function's annotations: each class
-- keeps its own (`desc`), and so does each function (meta.functions: {name, desc, line}).
local function parse(text)
  local meta = {classes = {}, module = {}, locals = {}, aliases = {}, functions = {}}
  local pending
  local desc, in_desc -- the description being read, and whether the last line added to it
  local function finish(kind)
    if pending then
      pending.kind = kind
      meta.classes[pending.name] = pending
      pending = nil
    end
  end
  local n = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    local name, parent = line:match("^%-%-%-@class%s+([%w_.]+)%s*:?%s*([%w_.]*)")
    local free = line:match("^%-%-%-([^@].*)$") or line:match("^%-%-%-$")
    if free then
      desc = (in_desc and desc .. "\n" or "") .. free
    end
    in_desc = free ~= nil
    if name then
      finish("shape")
      assert(not meta.classes[name], "class " .. name .. " annotated twice")
      pending = {name = name, parent = parent ~= "" and parent or nil, fields = {}, methods = {},
                 line = n, desc = desc}
      desc = nil
    elseif line:match("^%-%-%-@field") then
      local field = assert(line:match("^%-%-%-@field%s+([%w_]+)"), "line " .. n .. ": " .. line)
      if pending then
        pending.fields[field] = true
      end
    elseif line:match("^%-%-%-@alias") then
      local alias, def = line:match("^%-%-%-@alias%s+([%w_.]+)%s+(.*)$")
      meta.aliases[alias] = def
    elseif not line:match("^%-%-%-") then
      local var = line:match("^local%s+([%w_]+)%s*=%s*{}%s*$")
      if pending and var then
        meta.locals[var] = pending
        finish("table")
      else
        finish("shape")
      end
      local owner, sep, member = line:match("^function%s+([%w_]+)([.:])([%w_]+)%s*%(")
      local field = line:match("^bt%.([%w_]+)%s*=")
      if owner then
        meta.functions[#meta.functions + 1] = {name = owner .. sep .. member, desc = desc, line = n}
      end
      desc = nil -- code, a blank line, a comment: a description above it was its own
      if owner == "bt" then
        meta.module[member] = n
      elseif owner then
        local class = assert(meta.locals[owner], "line " .. n .. ": function of an unknown table " .. owner)
        class.methods[member] = sep
      elseif field then
        meta.module[field] = n
      end
    end
  end
  finish("shape")
  return meta
end

local meta = parse(read("lua/meta/bt.lua"))

-- the public names of a table: string keys, without the metamethods and bt's internal __bt_*
local INTERNAL = {_sched = true, _stats = true} -- a wrangler's scheduler handle and statistics
local function public(t)
  local names = {}
  for k in pairs(t) do
    if type(k) == "string" and not k:match("^__") and not INTERNAL[k] then
      names[#names + 1] = k
    end
  end
  table.sort(names)
  return names
end

-- the table of the module each annotated class describes
local function runtime(name)
  if name == "bt" then
    return bt
  elseif name == "bt.Object" then
    return bt.Class(function() end)
  elseif name == "bt.Definition" then
    return getmetatable(bt.define(bt.ActionNode(function() end))).__index
  elseif name == "bt.SharedBrainClass" then
    return bt.SharedBrain(function() return bt.ActionNode(function() end) end)
  elseif name == "bt.Recorder" then
    return getmetatable(bt.Recorder()).__index
  elseif name == "bt.Stats" then
    return getmetatable(bt.Stats()).__index
  end
  local path = name:match("^bt%.(.+)$")
  local t = bt
  for part in (path or ""):gmatch("[^.]+") do
    t = type(t) == "table" and rawget(t, part) or nil
  end
  return type(t) == "table" and t or nil
end

-- whether `member` is annotated on class `name` or one of its ancestors (in `m`, default the
-- module's annotations)
local function annotated(name, member, m)
  m = m or meta
  local class = m.classes[name]
  while class do
    if class.methods[member] or class.fields[member] then
      return true
    end
    class = class.parent and m.classes[class.parent]
  end
  return false
end

-- adds to `missing` the public names of `t` that class `name` of the annotations `m` lacks, and to
-- `extra` the methods it annotates that `t` has not
local function compare_members(m, name, t, missing, extra)
  for _, k in ipairs(public(t)) do
    if not annotated(name, k, m) then
      missing[#missing + 1] = name .. "." .. k
    end
  end
  for member in pairs(m.classes[name].methods) do
    if t[member] == nil then
      extra[#extra + 1] = name .. "." .. member
    end
  end
end

-- every word that appears inside `backticks` in the documents
local documented = {}
for _, doc in ipairs({"docs/lua-api.md", "docs/nodes.md", "docs/scheduler.md",
                      "docs/writing-a-behaviour.md", "docs/writing-a-brain.md"}) do
  for span in read(doc):gmatch("`([^`\n]+)`") do
    for word in span:gmatch("[%a_][%w_]*") do
      documented[word] = true
    end
  end
end

describe("the LuaLS annotations (lua/meta/bt.lua)", function()
  it("start with ---@meta and return the module", function()
    local text = read("lua/meta/bt.lua")
    assert.truthy(text:match("^%-%-%-@meta bt\n"), "first line must be ---@meta bt")
    assert.truthy(text:match("\nreturn bt\n$"), "last line must be return bt")
    assert.truthy(load(text, "=lua/meta/bt.lua", "t", {}), "valid Lua")
  end)

  it("annotate every name of the module, and only names that exist", function()
    local missing, extra = {}, {}
    for _, k in ipairs(public(bt)) do
      if not meta.module[k] then
        missing[#missing + 1] = "bt." .. k
      end
    end
    for k in pairs(meta.module) do
      if rawget(bt, k) == nil then
        extra[#extra + 1] = "bt." .. k
      end
    end
    table.sort(extra)
    assert.same({}, missing, "names of bt without an annotation")
    assert.same({}, extra, "annotated names bt does not have")
  end)

  it("give every class and subtable of the module a ---@class with its members", function()
    local missing = {}
    for _, k in ipairs(public(bt)) do
      local v = bt[k]
      local is_class = type(v) == "table" and (rawget(v, "_ctor") ~= nil or getmetatable(v)
        and getmetatable(v).__call ~= nil)
      local is_sub = type(v) == "table" and not is_class and k:match("^%l")
      if (is_class or is_sub) and not (meta.classes["bt." .. k] and meta.classes["bt." .. k].kind == "table") then
        missing[#missing + 1] = "---@class bt." .. k
      end
    end
    assert.same({}, missing)
  end)

  it("annotate every method of every class and subtable, and only methods that exist", function()
    local missing, extra, unknown = {}, {}, {}
    local names = {}
    for name, class in pairs(meta.classes) do
      if class.kind == "table" and name ~= "bt" then
        names[#names + 1] = name
      end
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local t = runtime(name)
      if not t then
        unknown[#unknown + 1] = name
      else
        compare_members(meta, name, t, missing, extra)
      end
    end
    table.sort(extra)
    assert.same({}, unknown, "annotated classes the module does not have")
    assert.same({}, missing, "members without an annotation")
    assert.same({}, extra, "annotated methods that do not exist")
  end)

  it("give each class the base class it has (_base)", function()
    local wrong = {}
    local by_table = {}
    for _, k in ipairs(public(bt)) do
      if type(bt[k]) == "table" then
        by_table[bt[k]] = "bt." .. k
      end
    end
    for name, class in pairs(meta.classes) do
      local t = class.kind == "table" and runtime(name)
      if t and rawget(t, "_ctor") ~= nil and name ~= "bt.Object" then
        local base = rawget(t, "_base")
        local expected = base and (by_table[base] or "?") or "bt.Object"
        if name == "bt.SharedBrainClass" then
          expected = "bt.Brain"
        end
        if class.parent ~= expected then
          wrong[#wrong + 1] = string.format("%s: %s, not %s", name, expected, tostring(class.parent))
        end
      end
    end
    table.sort(wrong)
    assert.same({}, wrong)
  end)

  it("annotate fields that the documents name", function()
    local unknown = {}
    for name, class in pairs(meta.classes) do
      if class.kind == "table" then
        for f in pairs(class.fields) do
          if not documented[f] then
            unknown[#unknown + 1] = name .. "." .. f
          end
        end
      end
    end
    table.sort(unknown)
    assert.same({}, unknown, "fields no document names")
  end)

  it("annotate every field of the node objects, trees and brains the documents list", function()
    local api = read("docs/lua-api.md")
    local nodes = assert(api:match("\n## Node objects\n(.-)\n## "), "lua-api.md has a Node objects section")
    local missing = {}
    local classes_of_nodes = {}
    for name, class in pairs(meta.classes) do
      local c = class
      while c do
        if c.name == "bt.BehaviourNode" then
          classes_of_nodes[#classes_of_nodes + 1] = name
          break
        end
        c = c.parent and meta.classes[c.parent]
      end
    end
    local function on_some_node(field)
      for _, name in ipairs(classes_of_nodes) do
        if annotated(name, field) then
          return true
        end
      end
    end
    local found = 0
    for cell in nodes:gmatch("\n| ([^|]-) |") do
      for field in cell:gmatch("`([%w_]+)`") do
        found = found + 1
        if not on_some_node(field) then
          missing[#missing + 1] = "node field " .. field
        end
      end
    end
    assert.is_true(found >= 10, "read the fields of the Node objects table")
    for field in api:gmatch("`tree%.([%w_]+)`") do
      if not annotated("bt.BT", field) then
        missing[#missing + 1] = "tree." .. field
      end
    end
    for field in read("docs/scheduler.md"):gmatch("`brain%.([%w_]+)`") do
      if not annotated("bt.Brain", field) then
        missing[#missing + 1] = "brain." .. field
      end
    end
    assert.same({}, missing)
  end)

  it("describe every table of the module and every function, each on its own", function()
    local missing = {}
    for name, class in pairs(meta.classes) do
      if class.kind == "table" and not class.desc then
        missing[#missing + 1] = name .. " (line " .. class.line .. ")"
      end
    end
    for _, f in ipairs(meta.functions) do
      if not f.desc then
        missing[#missing + 1] = f.name .. " (line " .. f.line .. ")"
      end
    end
    table.sort(missing)
    assert.same({}, missing, "without a description")
  end)

  it("cite in a description a document (and section) that exists and names what it describes", function()
    local wrong = {}
    local function check(what, desc, module_table)
      for doc, after in (desc or ""):gmatch("docs/([%w_-]+%.md)()") do
        local section = desc:match('^%s+"([^"]+)"', after)
        local ok, text = pcall(read, "docs/" .. doc)
        if not ok then
          wrong[#wrong + 1] = what .. ": docs/" .. doc .. " does not exist"
        else
          if section and not text:find("\n#+ " .. section:gsub("%p", "%%%0") .. "\n") then
            wrong[#wrong + 1] = string.format('%s: docs/%s has no section "%s"', what, doc, section)
          end
          -- a table of the module (bt.pool, bt.reload, ...) is described where its name is
          if module_table and not text:find("`" .. what .. "[.`]") then
            wrong[#wrong + 1] = what .. ": docs/" .. doc .. " does not name " .. what
          end
        end
      end
    end
    for name, class in pairs(meta.classes) do
      check(name, class.desc, class.kind == "table" and name:match("^bt%.%l") ~= nil)
    end
    for _, f in ipairs(meta.functions) do
      check(f.name, f.desc, false)
    end
    table.sort(wrong)
    assert.same({}, wrong)
  end)

  it("name the four statuses as bt.Status", function()
    local values = {}
    for v in assert(meta.aliases["bt.Status"]):gmatch('"(%u+)"') do
      values[#values + 1] = v
    end
    table.sort(values)
    assert.same({bt.FAILED, bt.READY, bt.RUNNING, bt.SUCCESS}, values)
  end)
end)

describe("the LuaLS annotations of bt.test (lua/meta/bt_test.lua)", function()
  local T = require "bt.test"
  local text = read("lua/meta/bt_test.lua")
  local tmeta = parse(text)
  local world = T.world()
  local runtimes = {
    ["bt.test"] = T,
    ["bt.test.World"] = getmetatable(world),
    ["bt.test.Entity"] = getmetatable(world:spawn("sheep", 0, 0)),
    ["bt.test.Trace"] = getmetatable(T.trace(bt.BT({}, bt.ActionNode(function() end)))),
  }

  it("start with ---@meta bt.test and return the table", function()
    assert.truthy(text:match("^%-%-%-@meta bt%.test\n"), "first line must be ---@meta bt.test")
    assert.truthy(text:match("\nreturn test\n$"), "last line must be return test")
    assert.truthy(load(text, "=lua/meta/bt_test.lua", "t", {}), "valid Lua")
  end)

  it("annotate every function of bt.test and method of its world and entities, and only those", function()
    local missing, extra = {}, {}
    for name, t in pairs(runtimes) do
      assert(tmeta.classes[name], "no ---@class " .. name)
      compare_members(tmeta, name, t, missing, extra)
    end
    table.sort(missing)
    table.sort(extra)
    assert.same({}, missing, "members without an annotation")
    assert.same({}, extra, "annotated members that do not exist")
  end)
end)
