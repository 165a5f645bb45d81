-- SPDX-License-Identifier: MIT
-- A brain hot-reloaded while it runs, as a game does it (docs/reload.md): bt.reload.enable, the
-- brain required from a folder, bt.reload.watch(MODE), a BrainWrangler updated frame by frame, the
-- brain's file saved twice (a changed leaf, then a syntax error), bt.reload.poll() once per frame.
-- Prints what the game would see, one line per step, the same on every system: tests/ci/windows.sh
-- runs it with Windows' lua.exe and bt.dll under wine, and with Linux's lua5.4 and bt.so, and
-- compares the two. Exits 1 with a message when a step does not happen.
-- usage: lua reload_smoke.lua FOLDER MODE      (FOLDER: an empty folder to write the brain in;
--                                               MODE: "poll", "inotify" or "auto")
local bt = require "bt"
local folder, mode = assert(arg[1], "usage: reload_smoke.lua FOLDER MODE"), arg[2] or "auto"
package.path = folder .. "/?.lua;" .. package.path

local function save(said)
  local f = assert(io.open(folder .. "/smoke_brain.lua", "w"))
  f:write(string.format([[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.ActionNode(function(inst) inst.said = %q end, "Say"),
  }, 0.5, true)
end)
]], said))
  f:close()
end

local function check(ok, what)
  if not ok then
    io.stderr:write("reload_smoke: ", what, "\n")
    os.exit(1)
  end
end

local tick, t = 0, 0
bt.set_clock(function() return t end)
local manager = bt.BrainWrangler()
local function frame()
  tick = tick + 1
  t = tick / 30
  manager:Update(tick)
  return bt.reload.poll()
end

save("one")
bt.reload.enable()
local Brain = require "smoke_brain"
local inst = {}
inst.brain = Brain(inst)
inst.brain.manager = manager
inst.brain:Start()
local used = bt.reload.watch(mode)
print("watching by " .. used)
frame()
print("the brain said " .. tostring(inst.said))

-- Saves again until the watcher sees it, for up to 10 s of wall time (a file system may keep
-- modification times to the second or two: a later save then differs in size, not only in time).
local function saved_until_seen(write)
  local start = os.time()
  repeat
    write()
    for _ = 1, 60 do
      local reports = frame()
      if #reports > 0 then return reports end
      local wait = os.clock() + 0.01
      repeat until os.clock() >= wait
    end
  until os.time() - start > 10
  return {}
end

local reports = saved_until_seen(function() save("two, after a reload") end)
check(#reports == 1, "the saved brain was not reloaded")
check(reports[1].ok, "the reload was refused: " .. tostring(reports[1].message))
print("reloaded: " .. tostring(reports[1].ok) .. ", modules " .. table.concat(reports[1].modules, " "))
for _ = 1, 30 do frame() end
print("the brain said " .. tostring(inst.said))

reports = saved_until_seen(function()
  local f = assert(io.open(folder .. "/smoke_brain.lua", "w"))
  f:write("return oops(\n")
  f:close()
end)
check(#reports == 1 and not reports[1].ok, "a broken save was not refused")
print("a broken save: refused, " .. (reports[1].message:match("smoke_brain%.lua:%d+:[^\n]*") or "?"))
inst.said = nil
for _ = 1, 30 do frame() end
print("the brain still said " .. tostring(inst.said))
