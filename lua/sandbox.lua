-- SPDX-License-Identifier: MIT
-- sandbox.lua: the environment brain and behaviour files run in (docs/sandbox.md).
--
-- bt.sandbox.install() makes require load the modules named brains.* and behaviours.*, and
-- bt.brains.* and bt.behaviours.* (or the prefixes given), from package.path as text, into one
-- shared environment: every global of the host but io, debug, os.execute and the other os
-- functions that touch the system, package.loadlib, package.loaded, and binary chunks. Using one
-- of those raises an error naming it; bt.sandbox.allow(name, ...) opts in. bt.sandbox.loadfile
-- and bt.sandbox.dofile load a file the same way.
local bt, shared = ...

local sandbox = {}
bt.sandbox = sandbox

-- what the host may allow, and what each gives
local OPTIONS = {
  io = true, debug = true, binary = true, collectgarbage = true, require = true,
  ["os.execute"] = true, ["os.exit"] = true, ["os.remove"] = true, ["os.rename"] = true,
  ["os.tmpname"] = true, ["os.setlocale"] = true,
  ["package.loadlib"] = true, ["package.loaded"] = true, ["package.searchers"] = true,
  ["package.preload"] = true,
}
local SAFE_COLLECT = {count = true, step = true, collect = true, isrunning = true}

local real = {
  io = io, os = os, debug = debug, package = package, load = load, loadfile = loadfile,
  require = require, coroutine = coroutine, collectgarbage = collectgarbage, error = error,
}
local allowed = {}
local prefixes -- nil until install()
local env

-- Raises "<file>:<line>: <what> is not available ..." at the script's line that used it, however
-- many of bt's own functions lie between (the sandbox's, hot reload's environment), with the call
-- that allows it (option, one of OPTIONS).
local function refuse(what, option)
  real.error(string.format("%s%s not available to brain and behaviour files " ..
    "(a host that trusts them can allow it: bt.sandbox.allow(%q))", shared.where(), what, option), 0)
end

local function mode_of(mode)
  if allowed.binary then
    return mode or "bt"
  end
  if mode ~= nil and mode ~= "t" and type(mode) == "string" and not mode:find("t", 1, true) then
    refuse("binary chunks are", "binary")
  end
  return "t"
end

-- the os and package tables the files see: the safe parts, and an error for the others
local function guarded(name, source, safe)
  return setmetatable(safe, {
    __index = function(_, k)
      local full = name .. "." .. tostring(k)
      if allowed[full] then
        return source[k]
      end
      if source[k] ~= nil then
        refuse(full .. " is", full)
      end
    end,
  })
end

local safe_os = guarded("os", os, {
  clock = os.clock, date = os.date, difftime = os.difftime, time = os.time, getenv = os.getenv,
})
local safe_package = guarded("package", package, {
  config = package.config, searchpath = package.searchpath,
})

local function in_sandbox(name)
  if not prefixes or type(name) ~= "string" then
    return false
  end
  for _, p in ipairs(prefixes) do
    if name == p or name:sub(1, #p + 1) == p .. "." or name:sub(1, #p + 1) == p .. "/" then
      return true
    end
  end
  return false
end

local function sandbox_load(chunk, name, mode, e)
  return real.load(chunk, name, mode_of(mode), e == nil and env or e)
end

local function sandbox_loadfile(path, mode, e)
  return real.loadfile(path, mode_of(mode), e == nil and env or e)
end

local function sandbox_require(name)
  if allowed.require or in_sandbox(name) then
    return real.require(name)
  end
  local loaded = package.loaded[name]
  if loaded ~= nil and name ~= "_G" and name ~= "io" and name ~= "os" and name ~= "debug"
      and name ~= "package" then
    return loaded
  end
  refuse(string.format("require %q is", tostring(name)), "require")
end

-- coroutines resumed from a bounded call are bounded too (bt.set_instruction_limit)
local safe_coroutine = setmetatable({
  resume = function(co, ...)
    shared.bound_thread(co)
    return coroutine.resume(co, ...)
  end,
  wrap = function(f)
    local co = coroutine.create(f)
    return function(...)
      shared.bound_thread(co)
      local results = table.pack(coroutine.resume(co, ...))
      if not results[1] then
        real.error(results[2], 0)
      end
      return table.unpack(results, 2, results.n)
    end
  end,
}, {__index = coroutine})

local function safe_collectgarbage(opt, ...)
  if allowed.collectgarbage or SAFE_COLLECT[opt or "collect"] then
    return real.collectgarbage(opt, ...)
  end
  refuse(string.format("collectgarbage(%q) is", tostring(opt)), "collectgarbage")
end

local function sandbox_dofile(path)
  local chunk, err = sandbox_loadfile(path)
  if not chunk then
    real.error(err, 2)
  end
  return chunk()
end

-- what scripts call in place of Lua's own functions, entered through C (shared.keep_frame), so
-- that a script's `return require "x"` (a tail call) keeps its line for the error
sandbox_load = shared.keep_frame(sandbox_load)
sandbox_loadfile = shared.keep_frame(sandbox_loadfile)
sandbox_dofile = shared.keep_frame(sandbox_dofile)
sandbox_require = shared.keep_frame(sandbox_require)
safe_collectgarbage = shared.keep_frame(safe_collectgarbage)
safe_coroutine.resume = shared.keep_frame(safe_coroutine.resume)
safe_coroutine.wrap = shared.keep_frame(safe_coroutine.wrap)

local special = {
  io = function() if allowed.io then return real.io end refuse("io is", "io") end,
  debug = function() if allowed.debug then return real.debug end refuse("debug is", "debug") end,
  os = function() return safe_os end,
  package = function() return safe_package end,
  load = function() return sandbox_load end,
  loadfile = function() return sandbox_loadfile end,
  dofile = function() return sandbox_dofile end,
  require = function() return sandbox_require end,
  coroutine = function() return safe_coroutine end,
  collectgarbage = function() return safe_collectgarbage end,
}

-- The environment of brain and behaviour files: their globals live here, shared by them all;
-- the host's globals show through, but for the names above.
function sandbox.env()
  if not env then
    env = setmetatable({}, {
      __index = function(_, k)
        local get = special[k]
        if get then
          return get()
        end
        return _G[k]
      end,
    })
    rawset(env, "_G", env)
  end
  return env
end

-- Opts in: each name (see OPTIONS) is given to the files from now on.
function sandbox.allow(...)
  for i = 1, select("#", ...) do
    local name = select(i, ...)
    if not OPTIONS[name] then
      local names = {}
      for k in pairs(OPTIONS) do
        names[#names + 1] = k
      end
      table.sort(names)
      shared.argerror(i, "allow", string.format("one of %s expected, got %s", table.concat(names, ", "),
        tostring(name)))
    end
    allowed[name] = true
  end
end

-- Loads a file as a chunk of the sandbox (text only unless "binary" is allowed).
function sandbox.loadfile(path)
  if type(path) ~= "string" then
    shared.argerror(1, "loadfile", "string expected, got " .. type(path))
  end
  sandbox.env()
  return sandbox_loadfile(path)
end

-- Runs a file in the sandbox and returns what it returns; errors propagate.
function sandbox.dofile(path)
  local chunk, err = sandbox.loadfile(path)
  if not chunk then
    real.error(err, 2)
  end
  return chunk()
end

-- The environment a module loads in: the sandbox's for a sandboxed name, else nil (the host's).
function sandbox.env_for(name)
  if in_sandbox(name) then
    return sandbox.env()
  end
end

-- the package searcher of sandboxed modules (bt.reload's searcher does the same when enabled)
local function searcher(name)
  if not in_sandbox(name) or (bt.reload and bt.reload.enabled and bt.reload.enabled()) then
    return nil
  end
  local file = package.searchpath(name, package.path)
  if not file then
    return nil
  end
  local chunk, message = real.loadfile(file, mode_of(nil), sandbox.env())
  if not chunk then
    real.error(string.format("error loading module '%s' from file '%s':\n\t%s", name, file, message), 0)
  end
  return chunk, file
end

-- From now on require loads the modules whose names start with one of the prefixes (default
-- brains and behaviours, and the installed copies of bt's own, bt.brains and bt.behaviours) in
-- the sandbox.
function sandbox.install(list)
  if list ~= nil and type(list) ~= "table" then
    shared.argerror(1, "install", "table of prefixes expected, got " .. type(list))
  end
  local new = {}
  for i, p in ipairs(list or {"brains", "behaviours", "bt.brains", "bt.behaviours"}) do
    if type(p) ~= "string" or p == "" then
      shared.argerror(1, "install", string.format("prefix %d is not a name", i))
    end
    new[#new + 1] = p
  end
  prefixes = new
  sandbox.env()
  for _, s in ipairs(package.searchers) do
    if s == searcher then
      return
    end
  end
  table.insert(package.searchers, 2, searcher)
end
