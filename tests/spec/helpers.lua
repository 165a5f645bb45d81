-- SPDX-License-Identifier: MIT
-- Shared helpers for the busted specs of the `bt` Lua API (docs/lua-api.md).
-- Every expected value in the specs is written by hand from those documents and from
-- Don't Starve's behaviourtree.lua; these helpers only build inputs and read outputs.

local bt = require "bt"

local H = {}
H.bt = bt

-- Restores the module-wide settings a spec may have changed.
function H.restore()
  bt.set_clock(nil)
  bt.set_error_handler(nil)
  bt.set_instruction_limit(0)
end

-- A controlled clock: returns a table whose field `t` is the time every node reads.
function H.clock(t)
  local c = { t = t or 0 }
  bt.set_clock(function() return c.t end)
  return c
end

-- The message of the error fn(...) raises (an assertion fails if it raises none).
function H.error_of(fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "no error")
  return tostring(err)
end

-- Collects the messages given to the error handler.
function H.errors()
  local list = {}
  bt.set_error_handler(function(msg) list[#list + 1] = msg end)
  return list
end

-- A scripted leaf written as a Don't Starve behaviour (a BehaviourNode subclass).
-- `src` is a status string, a function(self) returning a status, or an array of statuses
-- consumed one per visit (the last one repeats). Visits are appended to `log` (by name),
-- and the status each visit started from is kept in `self.entries`.
local Leaf = bt.Class(bt.BehaviourNode, function(self, name, src, log)
  bt.BehaviourNode._ctor(self, name)
  self.src = src
  self.log = log
  self.visits = 0
  self.entries = {}
end)

function Leaf:Visit()
  self.visits = self.visits + 1
  self.entries[#self.entries + 1] = self.status
  if self.log then
    self.log[#self.log + 1] = self.name
  end
  local src = self.src
  if type(src) == "function" then
    self.status = src(self)
  elseif type(src) == "table" then
    self.status = src[self.visits] or src[#src]
  else
    self.status = src
  end
end

H.Leaf = Leaf

function H.leaf(name, src, log)
  return Leaf(name, src, log)
end

-- A parent (written in Lua) that visits its only child twice per Visit and copies its status:
-- it shows what a node does when it is visited while SUCCESS or FAILED.
local Twice = bt.Class(bt.BehaviourNode, function(self, child)
  bt.BehaviourNode._ctor(self, "Twice", { child })
end)

function Twice:Visit()
  local child = self.children[1]
  child:Visit()
  child:Visit()
  self.status = child.status
end

H.Twice = Twice

-- A mock entity with Don't Starve's event interface.
function H.entity(name)
  local e = { name = name, handlers = {}, listens = {}, removes = {} }
  function e:ListenForEvent(event, fn, ...)
    self.listens[#self.listens + 1] = { self = self, event = event, fn = fn, nextra = select("#", ...) }
    self.handlers[event] = self.handlers[event] or {}
    table.insert(self.handlers[event], fn)
  end
  function e:RemoveEventCallback(event, fn)
    self.removes[#self.removes + 1] = { self = self, event = event, fn = fn }
    local list = self.handlers[event] or {}
    for i = #list, 1, -1 do
      if list[i] == fn then
        table.remove(list, i)
      end
    end
  end
  function e:PushEvent(event, data)
    local list = {}
    for i, fn in ipairs(self.handlers[event] or {}) do
      list[i] = fn
    end
    for _, fn in ipairs(list) do
      fn(self, data)
    end
  end
  return e
end

-- A mock brain: counts ForceUpdate calls (and forwards them to a tree when given one).
function H.brain(tree)
  local b = { forced = 0, selves = {}, bt = tree }
  function b:ForceUpdate()
    self.forced = self.forced + 1
    self.selves[#self.selves + 1] = self
    if self.bt then
      self.bt:ForceUpdate()
    end
  end
  return b
end

-- The expected text of a tree dump: one line per entry, each ending in a newline.
function H.dump(lines)
  return table.concat(lines, "\n") .. "\n"
end

-- The name of the running child of the tree's root, or "none".
function H.running(tree)
  for _, e in ipairs(tree:snapshot()) do
    if e.depth == 1 and e.status == bt.RUNNING then return e.name end
  end
  return "none"
end

-- The path of the tree's running nodes from the root, "Root/Child/Leaf", or "" when none runs.
function H.running_path(tree)
  local path = {}
  for _, e in ipairs(tree:snapshot()) do
    if e.status == bt.RUNNING and e.depth == #path then path[#path + 1] = e.name end
  end
  return table.concat(path, "/")
end

-- A compact form of tree:snapshot(): "depth name status last" per node.
function H.snap(tree)
  local out = {}
  for i, e in ipairs(tree:snapshot()) do
    out[i] = string.format("%d %s %s %s", e.depth, e.name, e.status, e.last)
  end
  return out
end

-- The Lua interpreter that runs this process (ctest's LUA_INTERPRETER: tests/ci/apicheck.sh's
-- checking one, say), for the processes a spec starts: the program of the shell's parent, which
-- is this process (busted gives specs an `arg` of its own).
H.lua = (function()
  local p = io.popen("readlink /proc/$PPID/exe 2>/dev/null")
  local path = p and p:read("l")
  if p then p:close() end
  return path and path ~= "" and path or "lua5.4"
end)()

-- Runs a Lua script in a fresh process of H.lua (same LUA_PATH/LUA_CPATH); returns stdout,
-- stderr and whether it exited successfully.
function H.run_lua(code)
  local script = os.tmpname()
  local errfile = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(code)
  f:close()
  -- the child finds bt.so and the helpers where this process does (LUA_CPATH, or busted's cpath)
  local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
  local p = assert(io.popen(string.format("LUA_CPATH=%s LUA_PATH=%s %s %s 2>%s",
    quote(package.cpath), quote(package.path), quote(H.lua), script, errfile)))
  local out = p:read("a")
  local ok = p:close()
  local ef = assert(io.open(errfile))
  local err = ef:read("a")
  ef:close()
  os.remove(script)
  os.remove(errfile)
  return out, err, ok
end

-- For a spec whose calls change the process for good (bt.sandbox.allow): true when it runs in a
-- process of its own (ctest runs each spec so, and sets BT_SPEC_ALONE); otherwise, as in a plain
-- `busted` of every spec, it adds one test that runs `file` in a busted process of its own, and
-- returns false: the spec then returns without defining its tests here. `describe` and `it` are
-- the spec's (busted gives them to spec files, not to modules).
function H.own_process(file, describe, it)
  if os.getenv("BT_SPEC_ALONE") then
    return true
  end
  local busted = arg and arg[0] or "busted"
  describe(file, function()
    it("passes in a busted process of its own", function()
      local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
      local p = assert(io.popen(string.format(
        "BT_SPEC_ALONE=1 LUA_CPATH=%s LUA_PATH=%s %s %s --ignore-lua -o TAP %s 2>&1",
        quote(package.cpath), quote(package.path), quote(H.lua), quote(busted), quote(file))))
      local out = p:read("a")
      local ok = p:close()
      if not ok or not out:find("\nok ", 1, true) then
        error(file .. " failed in a process of its own:\n" .. out, 0)
      end
    end)
  end)
  return false
end

-- Counts the occurrences of a plain substring.
function H.count(s, sub)
  local n, i = 0, 1
  while true do
    local a, b = string.find(s, sub, i, true)
    if not a then
      return n
    end
    n = n + 1
    i = b + 1
  end
end

return H
