-- SPDX-License-Identifier: MIT
-- util.lua: small helpers shared by the behaviours in this folder (not a behaviour itself).
-- Plain Lua over the entity interface of docs/entity.md.
local M = {}

-- Don't Starve's FunctionOrValue: v(inst, ...) when v is a function, else v.
function M.value(v, inst, ...)
  if type(v) == "function" then
    return v(inst, ...)
  end
  return v
end

-- A position argument: a function of inst returning x, y (or a table as below), a table
-- {x = x, y = y} or {x, y}, or nil. Returns x, y, or nil when there is no position.
function M.position(p, inst)
  if type(p) == "function" then
    local x, y = p(inst)
    if type(x) == "table" then
      return M.position(x, inst)
    end
    if type(x) ~= "number" then
      return nil
    end
    return x, y
  elseif type(p) == "table" then
    local x, y = p.x or p[1], p.y or p[2]
    if type(x) ~= "number" then
      return nil
    end
    return x, y
  end
  return nil
end

-- Raises "bad argument #arg to 'fname' (msg)", as bt's constructors do; `level` as error()'s,
-- counted from the caller of argerror (not found with debug.getinfo: the sandbox refuses debug).
local function argerror(arg, fname, msg, level)
  error(string.format("bad argument #%d to '%s' (%s)", arg, fname, msg), level + 1)
end

local function has_list_items(t)
  for k in next, t do
    if math.type(k) == "integer" then
      return true
    end
  end
  return false
end

-- Checks an options argument of a behaviour's constructor, which takes nil or a table of named
-- options: anything else, or a table with list items (no options, which would be ignored without
-- a word), raises an argument error saying `expected` (and `hint` after a list) at the line that
-- called the constructor (the brain's: a class's call is one C function, then the constructor).
-- Call it from the constructor itself. Returns v.
function M.options(v, arg, fname, expected, hint)
  if v == nil then
    return v
  end
  if type(v) ~= "table" then
    argerror(arg, fname, string.format("%s expected, got %s", expected, type(v)), 4)
  elseif has_list_items(v) then
    argerror(arg, fname, string.format("%s expected, got a list%s", expected, hint and ": " .. hint or ""), 4)
  end
  return v
end

function M.distsq(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  return dx * dx + dy * dy
end

-- The angle in degrees, in [0, 360), of the direction from (x1, y1) to (x2, y2).
function M.angle(x1, y1, x2, y2)
  local a = math.deg(math.atan(y2 - y1, x2 - x1))
  if a < 0 then
    a = a + 360
  end
  return a
end

-- The smallest difference between two angles in degrees, in [0, 180].
function M.angle_diff(a, b)
  return math.abs((a - b + 180) % 360 - 180)
end

-- An entity's name for dumps: "wolf#3".
function M.describe(ent)
  if ent == nil then
    return "nil"
  end
  if ent.kind ~= nil and ent.id ~= nil then
    return string.format("%s#%s", tostring(ent.kind), tostring(ent.id))
  end
  return tostring(ent)
end

-- The entity tagged `tag` standing at inst's home (within 1 unit of GetHome()), or nil: the house
-- or den a creature goes back to, to target its "rest" or "eat" action.
function M.home_object(inst, tag)
  local hx, hy = inst:GetHome()
  if hx == nil then
    return nil
  end
  local radius = math.sqrt(inst:GetDistanceSqTo(hx, hy)) + 1
  for _, ent in ipairs(inst:FindEntities(radius, tag)) do
    local x, y = ent:GetPosition()
    if M.distsq(x, y, hx, hy) <= 1 then
      return ent
    end
  end
  return nil
end

function M.point(x, y)
  if x == nil then
    return "nil"
  end
  return string.format("(%.2f, %.2f)", x, y)
end

return M
