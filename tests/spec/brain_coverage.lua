-- SPDX-License-Identifier: MIT
-- The coverage of bt's shipped brains (brains/*.lua) by their specs (tests/spec/brain_*_spec.lua),
-- which `make test` prints after ctest's summary. Two roles:
--
-- - a busted helper (busted --helper=tests/spec/brain_coverage.lua, as ctest's busted.brain_*
--   run the specs, with BT_COVERAGE_DIR set): nodes note where they are made (bt.set_where), every
--   BrainWrangler records its brains' statistics into one bt.Stats before its first Update (the
--   specs are not edited), and at the end of the suite the rows of bt.test's coverage are written
--   to BT_COVERAGE_DIR/<spec>.txt, one line a node: brain file, path, 1 if visited, else 0;
-- - a script (lua5.4 tests/spec/brain_coverage.lua print DIR): per shipped brain, over every
--   spec's rows, the nodes visited of all, and the paths of those never visited.
local args = {...}

if args[1] == "print" then
  local dir = args[2] or "build/coverage"
  local brains, order = {}, {}
  local listing = io.popen('ls "' .. dir .. '"/*.txt 2>/dev/null')
  for file in listing:lines() do
    for line in io.lines(file) do
      local brain, path, covered = line:match("^([^\t]+)\t([^\t]+)\t([01])$")
      if brain then
        local b = brains[brain]
        if not b then
          b = {paths = {}, list = {}}
          brains[brain] = b
          order[#order + 1] = brain
        end
        if b.paths[path] == nil then b.list[#b.list + 1] = path end
        b.paths[path] = b.paths[path] == true or covered == "1"
      end
    end
  end
  listing:close()
  table.sort(order)
  if #order == 0 then
    print("coverage of the shipped brains: none recorded (in " .. dir .. ": run the busted.brain_* tests)")
    return
  end
  print("coverage of the shipped brains by their specs (tests/spec/brain_*_spec.lua):")
  for _, brain in ipairs(order) do
    local b, missing = brains[brain], {}
    for _, path in ipairs(b.list) do
      if not b.paths[path] then missing[#missing + 1] = path end
    end
    print(("  %-22s %d/%d nodes%s"):format(brain, #b.list - #missing, #b.list,
      #missing == 0 and ", every branch taken" or ("; never visited: " .. table.concat(missing, ", "))))
  end
  return
end

local dir = os.getenv("BT_COVERAGE_DIR")
if not dir or dir == "" then return end

local bt = require "bt"
local T = require "bt.test"
local busted = require "busted"

bt.set_where(true)
local stats = bt.Stats()
local recording = setmetatable({}, {__mode = "k"})
local update = bt.BrainWrangler.Update
function bt.BrainWrangler.Update(self, ...)
  if not recording[self] then
    recording[self] = true
    if not rawget(self, "_stats") then self:Record({capacity = 0, stats = stats}) end
  end
  return update(self, ...)
end

-- The brain file a where names ("brains/sheep.lua:12" or a longer path ending so), or nil.
local function brain_file(where)
  return where and where:match("(brains/[%w_]+%.lua):%d+$")
end

busted.subscribe({"suite", "end"}, function()
  local spec = (arg and arg[#arg] or "spec"):match("([%w_]+)%.lua$") or "spec"
  local out = assert(io.open(dir .. "/" .. spec .. ".txt", "w"))
  local brain
  for _, row in ipairs(T.coverage(stats)) do
    if row.node == 1 then brain = brain_file(row.where) end
    if brain then out:write(brain, "\t", row.path, "\t", row.covered and "1" or "0", "\n") end
  end
  out:close()
  return nil, true
end)
