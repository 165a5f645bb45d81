-- SPDX-License-Identifier: MIT
-- save.lua: a tree's, a brain's and a brain manager's state as a string for a saved game, and
-- back (docs/lua-api.md "Saved games", docs/scheduler.md "Saved games"). The core writes the
-- tree's state with the shape it was saved from (src/core/save.c); this file adds the Lua data of
-- its nodes (an EventNode's data, what a behaviour's OnSave returns), written out value by value,
-- and a brain's place in its manager.
local bt, shared = ...
local argerror = shared.argerror
local BT = bt.BT

local TREE_MAGIC, BRAIN_MAGIC, BRAINS_MAGIC = "bt-tree 1\n", "bt-brain 1\n", "bt-brains 1\n"
local MAX_NESTING = 100

-- ---- options ----

local function check_options(options, arg, fname)
  if options == nil then
    return {}
  end
  if type(options) ~= "table" then
    argerror(arg, fname, "table or nil expected, got " .. type(options))
  end
  for _, key in ipairs({ "to_id", "from_id" }) do
    local fn = options[key]
    if fn ~= nil and type(fn) ~= "function" then
      argerror(arg, fname, "options." .. key .. " must be a function, got " .. type(fn))
    end
  end
  return options
end

-- ---- Lua values, written out ----
-- true T, false F, an integer i<decimal>, a float d<16 hex digits of its IEEE 754 bits, big
-- endian>, a string s<length>:<bytes>, an entity e<its id>, a table {<pairs> key value ...},
-- separated by spaces; keys sorted, so that the same data gives the same string.

local function hex(bytes)
  return (bytes:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local function unhex(digits)
  return (digits:gsub("..", function(h) return string.char(tonumber(h, 16)) end))
end

local function field_name(field, key)
  if type(key) == "string" and key:match("^[%a_][%w_]*$") then
    return field and (field .. "." .. key) or key
  end
  return (field or "") .. "[" .. tostring(key) .. "]"
end

local encode

local function encode_table(v, ctx, where, field, seen, depth)
  if seen[v] then
    error(string.format("%s: %s is a table that contains itself", where, field or "the data"), 0)
  end
  seen[v] = true
  local pairs_ = {}
  for key, value in pairs(v) do
    local tk = type(key)
    if tk ~= "string" and tk ~= "number" and tk ~= "boolean" then
      error(string.format("%s: %s has a key that is a %s (keys are strings, numbers or booleans)",
        where, field or "the data", tk), 0)
    end
    local k = encode(key, ctx, where, field, seen, depth)
    pairs_[#pairs_ + 1] = { k, encode(value, ctx, where, field_name(field, key), seen, depth + 1) }
  end
  table.sort(pairs_, function(a, b) return a[1] < b[1] end)
  local out = { "{" .. #pairs_ }
  for _, p in ipairs(pairs_) do
    out[#out + 1] = p[1]
    out[#out + 1] = p[2]
  end
  seen[v] = nil
  return table.concat(out, " ")
end

function encode(v, ctx, where, field, seen, depth)
  local t = type(v)
  if depth > MAX_NESTING then
    error(string.format("%s: %s is nested more than %d tables deep", where, field or "the data", MAX_NESTING), 0)
  end
  if t == "boolean" then
    return v and "T" or "F"
  elseif t == "number" then
    if math.type(v) == "integer" then
      return string.format("i%d", v)
    end
    return "d" .. hex(string.pack(">d", v))
  elseif t == "string" then
    return "s" .. #v .. ":" .. v
  elseif t == "table" or t == "userdata" then
    local id
    if ctx.to_id then
      local ok, r = pcall(ctx.to_id, v)
      if not ok then
        error(string.format("%s: %s: to_id: %s", where, field or "the data", tostring(r)), 0)
      end
      id = r
    end
    if id ~= nil then
      local ti = type(id)
      if ti ~= "string" and ti ~= "number" then
        error(string.format("%s: %s: to_id returned a %s (an id is a string or a number)",
          where, field or "the data", ti), 0)
      end
      return "e" .. encode(id, ctx, where, field, seen, depth)
    end
    if t == "userdata" or getmetatable(v) ~= nil then
      error(string.format("%s: %s holds a %s, which cannot be saved (an entity? options.to_id gave no id for it)",
        where, field or "the data", t == "userdata" and "userdata" or "table with a metatable"), 0)
    end
    return encode_table(v, ctx, where, field, seen, depth)
  end
  error(string.format("%s: %s holds a %s, which cannot be saved", where, field or "the data", t), 0)
end

-- Reads the value at pos of s: the value and the position after it, or raises a message.
local decode

local function decode_at(s, pos, ctx, depth)
  local c = s:sub(pos, pos)
  if c == "T" then
    return true, pos + 1
  elseif c == "F" then
    return false, pos + 1
  elseif c == "i" then
    local digits, after = s:match("^(%-?%d+)()", pos + 1)
    local v = digits and math.tointeger(tonumber(digits))
    if not v then
      error("a bad integer at byte " .. pos, 0)
    end
    return v, after
  elseif c == "d" then
    local digits = s:match("^%x+", pos + 1)
    if not digits or #digits < 16 then
      error("a bad number at byte " .. pos, 0)
    end
    return (string.unpack(">d", unhex(digits:sub(1, 16)))), pos + 17
  elseif c == "s" then
    local len, start = s:match("^(%d+):()", pos + 1)
    len = tonumber(len)
    if not len or start + len - 1 > #s then
      error("a bad or cut string at byte " .. pos, 0)
    end
    return s:sub(start, start + len - 1), start + len
  elseif c == "e" then
    local id, after = decode_at(s, pos + 1, ctx, depth)
    if type(id) ~= "string" and type(id) ~= "number" then
      error("a bad entity id at byte " .. pos, 0)
    end
    if not ctx.from_id then
      error("it holds entity ids, and options.from_id is missing", 0)
    end
    local ok, ent = pcall(ctx.from_id, id)
    if not ok then
      error("from_id(" .. tostring(id) .. "): " .. tostring(ent), 0)
    end
    return ent, after -- nil for an entity that is gone
  elseif c == "{" then
    if depth > MAX_NESTING then
      error("tables nested too deep at byte " .. pos, 0)
    end
    local n, after = s:match("^(%d+)()", pos + 1)
    n = tonumber(n)
    if not n then
      error("a bad table at byte " .. pos, 0)
    end
    local t = {}
    pos = after
    for _ = 1, n do
      local k, v
      k, pos = decode(s, pos, ctx, depth + 1)
      v, pos = decode(s, pos, ctx, depth + 1)
      if k == nil or k ~= k then
        error("a bad key at byte " .. pos, 0)
      end
      t[k] = v
    end
    return t, pos
  end
  error("a bad value at byte " .. pos, 0)
end

-- the value after one space at pos
function decode(s, pos, ctx, depth)
  if s:sub(pos, pos) ~= " " then
    error("expected a value at byte " .. pos, 0)
  end
  return decode_at(s, pos + 1, ctx, depth)
end

-- ---- trees ----

-- The parts of a tree's string: the core's text and the Lua data lines {state, what, value text
-- start}, or nil and a message.
local function split_tree(s)
  if type(s) ~= "string" or s:sub(1, #TREE_MAGIC) ~= TREE_MAGIC then
    return nil, "not a saved tree (it does not start with 'bt-tree 1')"
  end
  local len, start = s:match("^core (%d+)\n()", #TREE_MAGIC + 1)
  len = tonumber(len)
  if not len then
    return nil, "corrupt: no core part after the first line"
  end
  if start + len - 1 > #s then
    return nil, "truncated: the core part is cut"
  end
  local core = s:sub(start, start + len - 1)
  local n, pos = s:match("^lua (%d+)\n()", start + len)
  if not n then
    return nil, (start + len > #s and "truncated" or "corrupt") .. ": no Lua part after the core part"
  end
  local lines = {}
  for i = 1, tonumber(n) do
    local state, what, after = s:match("^(%d+) ([do])()", pos)
    if not state then
      return nil, (pos > #s and "truncated" or "corrupt") .. ": Lua data " .. i .. " at byte " .. pos
    end
    lines[i] = { state = tonumber(state), what = what, pos = after }
    -- skip the value: decode it without entities, then find its end
    local ok, r, e = pcall(decode, s, after, { from_id = function() return nil end }, 0)
    if not ok then
      return nil, "corrupt: Lua data " .. i .. ": " .. r
    end
    r = e
    if r > #s then
      return nil, "truncated: Lua data " .. i .. " is cut"
    end
    if s:sub(r, r) ~= "\n" then
      return nil, "corrupt: Lua data " .. i .. " does not end its line"
    end
    pos = r + 1
  end
  if s:sub(pos) ~= "end\n" then
    return nil, (pos > #s and "truncated" or "corrupt") .. ": no 'end' after the Lua data"
  end
  return { core = core, lines = lines, text = s }
end

local function save_tree(tree, options)
  local now = bt.GetTime()
  local core = shared.tree_export(tree, now)
  local ctx = { now = now, to_id = options.to_id, from_id = options.from_id }
  local lines = {}
  for _, e in ipairs(shared.tree_objects(tree)) do
    local obj = e.obj
    if e.kind == "event" then
      local data = obj.data
      if data ~= nil then
        lines[#lines + 1] = e.state .. " d " .. encode(data, ctx, e.path .. ": event", "data", {}, 0)
      end
    elseif obj.OnSave ~= nil then
      local ok, data = pcall(obj.OnSave, obj, ctx)
      if not ok then
        error(e.path .. ": OnSave: " .. tostring(data), 0)
      end
      if data ~= nil then
        if type(data) ~= "table" then
          error(string.format("%s: OnSave returned a %s (a table of data, or nil)", e.path, type(data)), 0)
        end
        lines[#lines + 1] = e.state .. " o " .. encode(data, ctx, e.path .. ": OnSave", nil, {}, 0)
      end
    end
  end
  return table.concat({ TREE_MAGIC, "core ", #core, "\n", core, "lua ", #lines, "\n",
    table.concat(lines, "\n"), #lines > 0 and "\n" or "", "end\n" })
end

-- Checks a tree's string against the tree and reads its Lua data: returns a function that
-- restores it and returns the list of saved paths that were dropped, or nil and a message.
-- Nothing changes before that function is called.
local function prepare_tree(tree, s, options)
  local parts, err = split_tree(s)
  if not parts then
    return nil, err
  end
  local opened, map, dropped = shared.saved_open(tree, parts.core)
  if not opened then
    return nil, map
  end
  local ctx = { now = bt.GetTime(), to_id = options.to_id, from_id = options.from_id }
  local placed = {} -- saved state -> tree state
  for ts, ss in pairs(map) do
    placed[ss] = ts
  end
  local loads = {}
  for i, line in ipairs(parts.lines) do
    local ts = placed[line.state]
    if ts then
      local ok, value = pcall(decode, parts.text, line.pos, ctx, 0)
      if not ok then
        return nil, "Lua data " .. i .. ": " .. value
      end
      loads[#loads + 1] = { state = ts, what = line.what, value = value }
    end
  end
  return function()
    shared.saved_apply(tree, opened, ctx.now)
    local failure
    for _, l in ipairs(loads) do
      local obj, path = shared.state_object(tree, l.state)
      if l.what == "d" then
        obj.data = l.value
      elseif obj.OnLoad ~= nil then
        local ok, e = pcall(obj.OnLoad, obj, l.value, ctx)
        if not ok and not failure then
          failure = string.format("%s: OnLoad: %s", path, tostring(e))
        end
      end
    end
    if failure then
      error("restore: " .. failure, 0)
    end
    return dropped
  end
end

-- tree:save([options]): the tree's state as a string
function BT.save(tree, options)
  options = check_options(options, 1, "save")
  local ok, s = pcall(save_tree, tree, options)
  if not ok then
    error("save: " .. tostring(s), 2)
  end
  return s
end

-- tree:restore(s[, options]): the list of the saved paths not restored, or nil and a message
function BT.restore(tree, s, options)
  if type(s) ~= "string" then
    argerror(1, "restore", "string expected, got " .. type(s))
  end
  options = check_options(options, 2, "restore")
  local commit, err = prepare_tree(tree, s, options)
  if not commit then
    return nil, "restore: " .. err
  end
  return commit()
end

-- ---- brains ----

local Brain, BrainWrangler = bt.Brain, bt.BrainWrangler

local function manager_of(brain)
  return rawget(brain, "manager") or bt.BrainManager
end

local function save_brain(brain, options)
  local manager = manager_of(brain)
  local list, wake = manager:GetList(brain)
  local sched = list or "none"
  if list == "waiting" then
    sched = "waiting " .. (wake - manager:GetStats().tick)
  end
  local tree = brain.bt and save_tree(brain.bt, options) or ""
  return table.concat({ BRAIN_MAGIC, "sched ", sched, "\ntree ", #tree, "\n", tree, "end\n" })
end

local function prepare_brain(brain, s, options)
  if type(s) ~= "string" or s:sub(1, #BRAIN_MAGIC) ~= BRAIN_MAGIC then
    return nil, "not a saved brain (it does not start with 'bt-brain 1')"
  end
  local list, ticks, len, start = s:match("^sched (%a+) ?(%-?%d*)\ntree (%d+)\n()", #BRAIN_MAGIC + 1)
  if not list or (list ~= "none" and list ~= "updating" and list ~= "waiting" and list ~= "hibernating") then
    return nil, "corrupt: no scheduling line after the first line"
  end
  len = tonumber(len)
  if s:sub(start + len) ~= "end\n" then
    return nil, (start + len > #s and "truncated" or "corrupt") .. ": the tree part is cut or not followed by 'end'"
  end
  local commit_tree = function() return {} end
  if len > 0 then
    if not brain.bt then
      return nil, "the brain has no tree to restore into (start it first)"
    end
    local err
    commit_tree, err = prepare_tree(brain.bt, s:sub(start, start + len - 1), options)
    if not commit_tree then
      return nil, err
    end
  end
  ticks = tonumber(ticks)
  return function()
    local dropped = commit_tree()
    local manager = manager_of(brain)
    if manager:GetList(brain) then -- registered: it goes where it was
      if list == "waiting" and ticks and ticks > 0 then
        manager:Sleep(brain, (ticks + 0.5) * shared.tick_time())
      elseif list == "hibernating" then
        manager:Hibernate(brain)
      else
        manager:Wake(brain)
      end
    end
    return dropped
  end
end

-- brain:Save([options]): its tree's state and its place in its manager, as a string
function Brain:Save(options)
  options = check_options(options, 1, "Save")
  local ok, s = pcall(save_brain, self, options)
  if not ok then
    error("Save: " .. tostring(s), 2)
  end
  return s
end

-- brain:Restore(s[, options]): the list of the saved paths not restored, or nil and a message
function Brain:Restore(s, options)
  if type(s) ~= "string" then
    argerror(1, "Restore", "string expected, got " .. type(s))
  end
  options = check_options(options, 2, "Restore")
  local commit, err = prepare_brain(self, s, options)
  if not commit then
    return nil, "Restore: " .. err
  end
  return commit()
end

-- ---- managers ----

-- manager:Save(options): every registered brain whose entity options.to_id names
function BrainWrangler:Save(options)
  options = check_options(options, 1, "Save")
  if not options.to_id then
    argerror(1, "Save", "options.to_id expected (a function from an entity to its id)")
  end
  local entries = {}
  for brain in pairs(shared.live_brains) do
    if manager_of(brain) == self and self:GetList(brain) then
      local id = options.to_id(brain.inst)
      if id ~= nil then
        if type(id) ~= "string" and type(id) ~= "number" then
          error("Save: to_id returned a " .. type(id) .. " (an id is a string or a number)", 2)
        end
        local ok, s = pcall(save_brain, brain, options)
        if not ok then
          error("Save: entity " .. tostring(id) .. ": " .. tostring(s), 2)
        end
        entries[#entries + 1] = { key = encode(id, {}, "Save", "id", {}, 0), brain = s }
      end
    end
  end
  table.sort(entries, function(a, b) return a.key < b.key end)
  local out = { BRAINS_MAGIC, "brains ", #entries, "\n" }
  for _, e in ipairs(entries) do
    out[#out + 1] = e.key .. " " .. #e.brain .. "\n" .. e.brain
  end
  out[#out + 1] = "end\n"
  return table.concat(out)
end

-- manager:Restore(s, options): restores each saved brain into options.from_id(id).brain; all or
-- nothing. Returns {dropped = {[id] = {paths}}, missing = {ids}}, or nil and a message.
function BrainWrangler:Restore(s, options)
  if type(s) ~= "string" then
    argerror(1, "Restore", "string expected, got " .. type(s))
  end
  options = check_options(options, 2, "Restore")
  if not options.from_id then
    argerror(2, "Restore", "options.from_id expected (a function from an id to its entity)")
  end
  if s:sub(1, #BRAINS_MAGIC) ~= BRAINS_MAGIC then
    return nil, "Restore: not saved brains (it does not start with 'bt-brains 1')"
  end
  local n, pos = s:match("^brains (%d+)\n()", #BRAINS_MAGIC + 1)
  if not n then
    return nil, "Restore: corrupt: no count of brains"
  end
  local commits, missing = {}, {}
  for i = 1, tonumber(n) do
    local ok, id, after = pcall(decode_at, s, pos, {}, 0)
    local len, start = s:match("^ (%d+)\n()", ok and after or 0)
    if not ok or not len then
      return nil, "Restore: " .. (pos > #s and "truncated" or "corrupt") .. ": brain " .. i .. " at byte " .. pos
    end
    len = tonumber(len)
    local ent = options.from_id(id)
    local brain = ent and ent.brain
    if brain then
      local commit, err = prepare_brain(brain, s:sub(start, start + len - 1), options)
      if not commit then
        return nil, "Restore: entity " .. tostring(id) .. ": " .. err
      end
      commits[#commits + 1] = { id = id, commit = commit }
    else
      missing[#missing + 1] = id
    end
    pos = start + len
  end
  if s:sub(pos) ~= "end\n" then
    return nil, "Restore: " .. (pos > #s and "truncated" or "corrupt") .. ": no 'end' after the brains"
  end
  local report = { dropped = {}, missing = missing }
  for _, c in ipairs(commits) do
    report.dropped[c.id] = c.commit()
  end
  return report
end
