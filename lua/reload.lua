-- SPDX-License-Identifier: MIT
-- reload.lua: hot reload of brains and behaviours (docs/reload.md).
--
-- bt.reload.enable() tracks every module loaded by require from then on: its file and the
-- modules it requires. bt.reload.module(name) reloads a module and every tracked module that
-- depends on it, in two passes. The check pass runs the files in a fresh environment (their
-- globals staged, require answering with the new versions) and builds the brains they define:
-- any error stops the reload there, and nothing has changed. The apply pass runs them again,
-- require now answering with the loaded tables, which are patched in place as each file runs,
-- so that references held elsewhere see the new code; then every live brain whose code
-- changed gets a new tree, with each agent's state carried over by path (shared.migrate).
local bt, shared = ...

local reload = {}
bt.reload = reload

local modules = {}  -- tracked module name -> its file
local requires = {} -- module name -> {required module name = true}
local loading = {}  -- the modules being run, innermost last
local original_require
local watcher
local argerror = shared.argerror

local function traceback(msg)
  return debug.traceback(tostring(msg), 2)
end

-- ---- tracking ----

local function note_require(name)
  local current = loading[#loading]
  if current and requires[current] then
    requires[current][name] = true
  end
end

local function tracking_require(name)
  note_require(name)
  return original_require(name)
end

-- runs a module's chunk as a tracked module
local function run_tracked(name, file, chunk, ...)
  modules[name] = file
  requires[name] = {}
  if watcher then
    watcher:add(file)
  end
  loading[#loading + 1] = name
  local results = table.pack(pcall(chunk, ...))
  loading[#loading] = nil
  if not results[1] then
    error(results[2], 0)
  end
  return table.unpack(results, 2, results.n)
end

-- a package searcher like Lua's own for files on package.path, but tracking what it loads
local function searcher(name)
  local file = package.searchpath(name, package.path)
  if not file then
    return nil
  end
  local chunk, message
  local env = bt.sandbox.env_for(name)
  if env then
    chunk, message = loadfile(file, "t", env)
  else
    chunk, message = loadfile(file, "t")
  end
  if not chunk then
    modules[name] = file -- watched all the same: the fix will load it
    requires[name] = requires[name] or {}
    if watcher then
      watcher:add(file)
    end
    error(string.format("error loading module '%s' from file '%s':\n\t%s", name, file, message), 0)
  end
  return function(...)
    return run_tracked(name, file, chunk, ...)
  end, file
end

function reload.enable()
  if original_require then
    return
  end
  original_require = require
  _G.require = tracking_require
  table.insert(package.searchers, 2, searcher)
end

function reload.enabled()
  return original_require ~= nil
end

function reload.modules()
  local list = {}
  for name, file in pairs(modules) do
    list[name] = file
  end
  return list
end

-- ---- which modules a reload runs again ----

-- names and every tracked module that requires one of them, directly or not, each after the
-- modules of the set it requires
local function reload_order(names)
  local set = {}
  for _, name in ipairs(names) do
    set[name] = true
  end
  local grew = true
  while grew do
    grew = false
    for name, reqs in pairs(requires) do
      if not set[name] then
        for dep in pairs(reqs) do
          if set[dep] then
            set[name] = true
            grew = true
            break
          end
        end
      end
    end
  end
  local order, placed, visiting = {}, {}, {}
  local function place(name)
    if placed[name] or visiting[name] then
      return
    end
    visiting[name] = true
    for dep in pairs(requires[name] or {}) do
      if set[dep] then
        place(dep)
      end
    end
    visiting[name] = nil
    placed[name] = true
    order[#order + 1] = name
  end
  local sorted = {}
  for name in pairs(set) do
    sorted[#sorted + 1] = name
  end
  table.sort(sorted)
  for _, name in ipairs(sorted) do
    place(name)
  end
  return order
end

local function file_of(name)
  return modules[name] or package.searchpath(name, package.path)
end

-- ---- running files in a fresh environment ----

-- runs the files of order; answer(name) gives what require returns for a module of the batch.
-- Returns the values by module name and the staged globals, or nil and the error.
-- The globals a file sets are staged by the environment they belong to: the host's (_G), or the
-- sandbox's for a sandboxed module (bt.sandbox).
local function run_batch(order, sources, answer, on_value)
  local staged = {} -- base environment -> its staged globals
  local envs = {}   -- base environment -> the batch's environment over it
  local function env_over(base)
    if not envs[base] then
      local st = {}
      staged[base] = st
      envs[base] = setmetatable({}, {
        __index = function(_, k)
          local v = st[k]
          if v ~= nil then
            return v
          end
          return base[k]
        end,
        __newindex = st,
      })
    end
    return envs[base]
  end
  local in_batch, values = {}, {}
  for _, name in ipairs(order) do
    in_batch[name] = true
  end
  local current
  local new_requires = {}
  local function batch_require(base)
    return function(name)
      if current then
        new_requires[current][name] = true
      end
      if in_batch[name] then
        local v = answer(name, values)
        if v ~= nil then
          return v
        end
      end
      if base ~= _G then
        return base.require(name)
      end
      return (original_require or require)(name)
    end
  end
  for _, name in ipairs(order) do
    local file = file_of(name)
    local base = bt.sandbox.env_for(name) or _G
    local env = env_over(base)
    if rawget(env, "require") == nil then
      rawset(env, "require", batch_require(base))
    end
    local chunk, err = load(sources[name], "@" .. file, "t", env)
    if not chunk then
      return nil, err
    end
    current = name
    new_requires[name] = {}
    local ok, value = xpcall(chunk, traceback, name, file)
    current = nil
    if not ok then
      return nil, value
    end
    if value == nil then
      value = true
    end
    values[name] = value
    if on_value then
      on_value(name, value)
    end
  end
  return values, staged, new_requires
end

-- ---- brains ----

local function is_class(v)
  return type(v) == "table" and rawget(v, "is_instance") ~= nil
end

local function is_brain_class(v)
  if type(v) ~= "table" or rawget(v, "is_instance") == nil then
    return false
  end
  local c = v
  while c do
    if c == bt.Brain then
      return true
    end
    c = rawget(c, "_base")
  end
  return false
end

-- the live brains whose class is exactly cls
local function brains_of(cls)
  local list = {}
  for brain in pairs(shared.live_brains) do
    if getmetatable(brain) == cls and brain.bt and not brain.stopped then
      list[#list + 1] = brain
    end
  end
  return list
end

-- the brain classes of a module's new value, each with the old one it replaces (or nil): the
-- value itself, or the classes held in its keys (a module returning a table of brain classes)
local function brain_pairs(old, new)
  if is_brain_class(new) then
    return {{old, new}}
  end
  local pairs_of = {}
  if type(new) == "table" and not is_class(new) then
    for k, v in pairs(new) do
      if is_brain_class(v) then
        pairs_of[#pairs_of + 1] = {type(old) == "table" and rawget(old, k) or nil, v}
      end
    end
  end
  return pairs_of
end

-- builds, for each live brain of old, a tree of the new brain class new, without touching the
-- brain; returns the trees, or nil and the error (the trees built so far are stopped)
local function build_trees(old, new)
  local built = {}
  for _, brain in ipairs(brains_of(old)) do
    local view = setmetatable({}, {__index = function(_, k)
      local v = new[k]
      if v ~= nil then
        return v
      end
      return brain[k]
    end})
    local ok, err = xpcall(new.OnStart, traceback, view)
    local tree = rawget(view, "bt")
    if not ok or tree == nil then
      for _, t in ipairs(built) do
        t:Stop()
      end
      return nil, ok and "OnStart built no tree (self.bt)" or err
    end
    built[#built + 1] = tree
  end
  return built
end

-- ---- patching tables in place ----

-- Patches old with new's keys; a class held in one of old's keys (a module returning a table of
-- classes) is patched in place too, not replaced, so that its objects get the new methods.
-- befores[t] gets each patched table's keys as they were, and list the tables in the order they
-- were patched.
local function patch(old, new, befores, list)
  local before = {}
  for k, v in pairs(old) do
    before[k] = v
  end
  befores[old] = before
  list[#list + 1] = old
  for k, v in pairs(new) do
    local was = before[k]
    if k ~= "is_instance" then
      if v ~= new and is_class(v) and is_class(was) and was ~= v and not befores[was] then
        patch(was, v, befores, list)
      else
        rawset(old, k, v == new and old or v) -- a class is its own __index
      end
    end
  end
  for k in pairs(before) do
    if rawget(new, k) == nil and k ~= "is_instance" then
      rawset(old, k, nil)
    end
  end
end

-- a class's subclasses copied its members when they were defined: give them the new ones
local function propagate(cls, before, patched)
  local subs = shared.subclasses[cls]
  if not subs then
    return
  end
  for sub in pairs(subs) do
    if not patched[sub] then
      local sub_before = {}
      for k, v in pairs(sub) do
        sub_before[k] = v
      end
      for k, v in pairs(before) do
        if rawget(sub, k) == v and k ~= "_base" and k ~= "is_instance" and k ~= "_ctor" then
          rawset(sub, k, rawget(cls, k))
        end
      end
      for k, v in pairs(cls) do
        if before[k] == nil and rawget(sub, k) == nil and k ~= "is_instance" then
          rawset(sub, k, v)
        end
      end
      propagate(sub, sub_before, patched)
    end
  end
end

-- ---- reloading ----

local function wake(brain)
  local manager = rawget(brain, "manager") or bt.BrainManager
  manager:Wake(brain)
end

-- gives a live brain of class cls a tree of the new code, carrying its state over
local function move(brain, cls)
  local old_tree = brain.bt
  local ok, msg
  local outer = shared.made_begin()
  if cls.GetDefinition then
    ok, msg = xpcall(function() brain.bt = bt.BT(brain.inst, cls.GetDefinition()) end, traceback)
  else
    ok, msg = xpcall(cls.OnStart, traceback, brain)
    if ok and rawget(brain, "bt") == old_tree then
      ok, msg = false, "OnStart built no new tree"
    end
  end
  local made = shared.made_end(outer)
  if not ok then
    -- what the failed build made goes: a tree it finished, and the nodes no tree holds
    local built = rawget(brain, "bt")
    if built ~= old_tree and built ~= nil and getmetatable(built) == getmetatable(old_tree) then
      built:Stop()
    end
    shared.stop_unplaced(made)
    brain.bt = old_tree
    return nil, msg
  end
  shared.migrate(old_tree, brain.bt)
  wake(brain)
  return true
end

-- the sources of the modules of order, or nil and the error
local function read_sources(order)
  local sources = {}
  for _, name in ipairs(order) do
    local file = file_of(name)
    if not file then
      return nil, string.format("module '%s' not found on package.path", name)
    end
    local source, err = shared.read_file(file) -- (waits for a file an editor is replacing)
    if not source then
      return nil, err
    end
    sources[name] = source
  end
  return sources
end

-- The check pass: the files run in a fresh environment, and the brains of their new classes are
-- built, then stopped (they were only a check: their listeners go). Returns true, or nil and the
-- error; nothing has changed either way.
local check_brains

local function check(order, sources)
  -- every node the check makes goes with it: those its trees hold are stopped with the trees,
  -- the others (made, then never given to BT, as by an OnStart that failed half-way) by
  -- stop_unplaced, so that no listener of theirs outlives the check
  local outer = shared.made_begin()
  local done, ok, err = pcall(check_brains, order, sources)
  shared.stop_unplaced(shared.made_end(outer)) -- whatever happened, the collection ends here
  if not done then
    error(ok, 0)
  end
  return ok, err
end

function check_brains(order, sources)
  local values, err = run_batch(order, sources, function(name, vals) return vals[name] end)
  if not values then
    return nil, err
  end
  local checked = {}
  for _, name in ipairs(order) do
    for _, pair in ipairs(brain_pairs(package.loaded[name], values[name])) do
      local old, new = pair[1], pair[2]
      if new.GetDefinition then
        local ok, msg = xpcall(new.GetDefinition, traceback)
        if not ok then
          return nil, msg
        end
      elseif is_brain_class(old) then
        local trees, msg = build_trees(old, new)
        if not trees then
          return nil, msg
        end
        checked[#checked + 1] = trees
      end
    end
  end
  for _, trees in ipairs(checked) do
    for _, tree in ipairs(trees) do
      tree:Stop()
    end
  end
  return true
end

-- The apply pass: the files run again, the loaded tables and the globals they set patched in
-- place, and the classes' subclasses given the new members. Returns the brain classes the files
-- define, or nil and the error.
local function apply(order, sources)
  local patched, befores, brain_classes, list = {}, {}, {}, {}
  local applied, staged, new_requires = run_batch(order, sources,
    function(name) return package.loaded[name] end,
    function(name, value)
      local old = package.loaded[name]
      if type(old) == "table" and type(value) == "table" and old ~= value then
        patch(old, value, befores, list)
        value = old
      end
      package.loaded[name] = value
    end)
  if not applied then
    return nil, "the reload failed half-way, after its check passed: " .. tostring(staged)
  end
  for base, globals in pairs(staged) do
    for k, v in pairs(globals) do
      local old = rawget(base, k)
      if type(old) == "table" and type(v) == "table" and old ~= v then
        patch(old, v, befores, list)
      else
        rawset(base, k, v)
      end
    end
  end
  for _, t in ipairs(list) do
    patched[t] = true
  end
  for _, cls in ipairs(list) do
    propagate(cls, befores[cls], patched)
    if is_brain_class(cls) then
      brain_classes[#brain_classes + 1] = cls
    end
  end
  for name, reqs in pairs(new_requires) do
    requires[name] = reqs
  end
  return brain_classes
end

-- Every live brain of a class that changed moves to a tree of the new code, and so does every
-- other live brain whose tree runs a subtree that the files redefined. Returns how many moved, or
-- nil and the error.
local function move_brains(brain_classes)
  local moved, done = 0, {}
  for _, cls in ipairs(brain_classes) do
    for _, brain in ipairs(brains_of(cls)) do
      local ok, msg = move(brain, cls)
      if not ok then
        return nil, msg
      end
      done[brain] = true
      moved = moved + 1
    end
  end
  local stale = {}
  for brain in pairs(shared.live_brains) do
    if not done[brain] and brain.bt and not brain.stopped and shared.stale(brain.bt) then
      stale[#stale + 1] = brain
    end
  end
  for _, brain in ipairs(stale) do
    local ok, msg = move(brain, getmetatable(brain))
    if not ok then
      return nil, msg
    end
    moved = moved + 1
  end
  return moved
end

local function reload_batch(names)
  local order = reload_order(names)
  local sources, err = read_sources(order)
  if not sources then
    return nil, err
  end
  local ok, check_err = check(order, sources)
  if not ok then
    return nil, check_err
  end
  local brain_classes, apply_err = apply(order, sources)
  if not brain_classes then
    return nil, apply_err
  end
  local moved, move_err = move_brains(brain_classes)
  if not moved then
    return nil, move_err
  end
  return true, {modules = order, brains = moved}
end

-- a refused reload leaves the named subtrees (bt.define(root, name)) as they were: the files may
-- have redefined some
local function run_reload(names)
  local saved = shared.save_subtrees()
  local ok, info = reload_batch(names)
  if not ok then
    shared.restore_subtrees(saved)
  end
  return ok, info
end

-- A reload in two calls, for a pool of states (src/lua/pool.c) that checks an edit in every
-- state before it applies it in any. reload_check(names[, sources]) reads the modules' files (or
-- takes their sources, module name -> text, as the first state read them) and checks them: it
-- returns the sources, or nil and the error. reload_commit(apply) then applies the checked edit
-- (true: returns true and {modules, brains}, or nil and the error) or drops it (false).
local staged_reload

function shared.reload_check(names, sources)
  staged_reload = nil
  local order = reload_order(names)
  if not sources then
    local err
    sources, err = read_sources(order)
    if not sources then
      return nil, err
    end
  end
  for _, name in ipairs(order) do
    if type(sources[name]) ~= "string" then
      return nil, string.format("module '%s': no source given", name)
    end
  end
  local saved = shared.save_subtrees()
  local ok, err = check(order, sources)
  if not ok then
    shared.restore_subtrees(saved)
    return nil, err
  end
  staged_reload = {order = order, sources = sources, saved = saved}
  return sources
end

function shared.reload_commit(apply_it)
  local staged = staged_reload
  staged_reload = nil
  if not staged then
    return nil, "no reload was checked"
  end
  if not apply_it then
    shared.restore_subtrees(staged.saved)
    return true
  end
  local brain_classes, err = apply(staged.order, staged.sources)
  local moved
  if brain_classes then
    moved, err = move_brains(brain_classes)
  end
  if not moved then
    shared.restore_subtrees(staged.saved)
    return nil, err
  end
  return true, {modules = staged.order, brains = moved}
end

function reload.module(name)
  if type(name) ~= "string" then
    argerror(1, "module", "string expected, got " .. type(name))
  end
  if shared.thinking() then
    shared.defer(function() run_reload({name}) end)
    return true, "deferred until the think ends"
  end
  return run_reload({name})
end

-- ---- watching files ----

function reload.watch(mode)
  if mode ~= nil and mode ~= "auto" and mode ~= "inotify" and mode ~= "poll" then
    argerror(1, "watch", "\"auto\", \"inotify\" or \"poll\" expected, got " .. tostring(mode))
  end
  reload.enable()
  if not watcher then
    watcher = shared.watcher(mode)
    for _, file in pairs(modules) do
      watcher:add(file)
    end
  end
  return watcher:mode()
end

-- For a pool of states (src/lua/pool.c), which reloads in every state: the watched files that
-- changed, each with the modules it holds ({file = path, modules = {...}}, sorted), reloading
-- nothing.
function shared.reload_changed()
  if not watcher then
    return {}
  end
  local out = {}
  for _, file in ipairs(watcher:poll()) do
    local names = {}
    for name, f in pairs(modules) do
      if f == file then
        names[#names + 1] = name
      end
    end
    if #names > 0 then
      table.sort(names)
      out[#out + 1] = {file = file, modules = names}
    end
  end
  return out
end

-- Checks the watched files; reloads the modules of those that changed. Returns a list of
-- {file = path, modules = {...}, ok = boolean, message = string}, empty when nothing changed.
function reload.poll()
  local results = {}
  for _, change in ipairs(shared.reload_changed()) do
    local file, names = change.file, change.modules
    local ok, info
    if shared.thinking() then
      shared.defer(function() run_reload(names) end)
      ok, info = true, "deferred until the think ends"
    else
      ok, info = run_reload(names)
    end
    ok = ok and true or false
    local message
    if ok then
      message = type(info) == "table"
        and string.format("reloaded %s (%d module%s, %d brain%s)", file, #info.modules,
          #info.modules == 1 and "" or "s", info.brains, info.brains == 1 and "" or "s")
        or info
    else
      message = string.format("refused %s: %s", file, tostring(info))
    end
    results[#results + 1] = {file = file, modules = names, ok = ok, message = message}
  end
  return results
end
