-- SPDX-License-Identifier: MIT
-- class.lua: Don't Starve's Class. Class(ctor) or Class(base, ctor) makes a class: a table that is
-- the metatable of its instances, holds a copy of its base's members, and builds an instance
-- when called. Node classes (those with __bt_node) keep the __index and __newindex they inherit,
-- through which a node's state in its tree is read and written.
local _, shared = ...

-- base class -> its subclasses (weak), so that a reload that patches a class reaches the
-- members its subclasses copied from it
local subclasses = shared.subclasses
local argerror = shared.argerror

local function is_a(self, klass)
  local m = getmetatable(self)
  while m do
    if m == klass then return true end
    m = m._base
  end
  return false
end

local function is_class(self)
  return rawget(self, "is_instance") ~= nil
end

local function Class(base, ctor)
  local c = {}
  if not ctor and type(base) == "function" then
    ctor = base
    base = nil
  elseif type(base) == "table" then
    for k, v in pairs(base) do
      c[k] = v
    end
    c._base = base
    subclasses[base] = subclasses[base] or setmetatable({}, {__mode = "k"})
    subclasses[base][c] = true
  elseif base ~= nil then
    argerror(1, "Class", "table or function expected, got " .. type(base))
  end
  if ctor ~= nil and type(ctor) ~= "function" then
    argerror(2, "Class", "function expected, got " .. type(ctor))
  end

  local is_node = base and rawget(base, "__bt_node")
  if not is_node then
    c.__index = c
  end

  -- a C function: `return SomeClass(...)`, a tail call, keeps the caller's frame for errors
  local mt = {__call = is_node and shared.construct_node or shared.construct}

  -- where it was made, for the reports of errors in the trees of brains of this class (call.c)
  local where = shared.where()
  if where ~= "" then
    shared.origins[c] = where:sub(1, -3)
  end

  c._ctor = ctor
  c.is_a = is_a
  c.is_class = is_class
  c.is_instance = function(obj)
    return type(obj) == "table" and is_a(obj, c)
  end
  setmetatable(c, mt)
  return c
end

return Class
