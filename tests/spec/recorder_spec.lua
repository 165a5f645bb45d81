-- SPDX-License-Identifier: MIT
-- The transition recorder from Lua (docs/lua-api.md "Recording"): bt.Recorder, tree:record,
-- brain:Record, BrainWrangler:Record. Expected sequences are Don't Starve's order of status
-- changes (behaviourtree.lua: a node's Visit, then its parent's; Step resets what finished).
local H = require "helpers"
local bt = H.bt

-- "<path> FROM>TO" for status records, "think <cause>" for thinks, "<type> <path>" for others
local function story(rec, first)
  local out = {}
  for _, r in ipairs(rec:records(first)) do
    if r.type == "status" then
      out[#out + 1] = string.format("%s %s>%s", r.path, r.from, r.to)
    elseif r.type == "think" then
      out[#out + 1] = "think " .. r.cause
    else
      out[#out + 1] = r.type .. " " .. tostring(r.path)
    end
  end
  return out
end

describe("the recorder", function()
  local c
  before_each(function() c = H.clock(0) end)
  after_each(H.restore)

  it("records every status change of a think in order, then the think", function()
    local ok = true
    local tree = bt.BT({}, bt.SequenceNode({
      bt.ConditionNode(function() return ok end, "Ok"),
      bt.ActionNode(function() end, "Act"),
    }))
    local rec = tree:record({ capacity = 32 })
    assert.equal(rec, tree:recorder())
    tree:Update()
    assert.same({
      "Sequence/Ok READY>SUCCESS", "Sequence/Act READY>SUCCESS", "Sequence READY>SUCCESS",
      "Sequence SUCCESS>READY", "Sequence/Ok SUCCESS>READY", "Sequence/Act SUCCESS>READY",
      "think start",
    }, story(rec))
    local records = rec:records()
    assert.equal(1, records[1].seq)
    assert.equal(2, records[1].node) -- pre-order, from 1 as tree:snapshot()
    assert.equal("Ok", records[1].name)
    assert.equal(1, records[1].think)
    assert.equal(0, records[1].time)
    assert.is_nil(records[7].sleep) -- nothing runs: no sleep time
    ok = false
    c.t = 1
    tree:Update()
    assert.same({ "Sequence/Ok READY>FAILED", "Sequence READY>FAILED", "Sequence FAILED>READY",
      "Sequence/Ok FAILED>READY", "think deadline" }, story(rec, 8))
    assert.equal(12, rec:total())
    assert.equal(12, rec:count())
  end)

  it("keeps the last N records, with their sequence numbers", function()
    local tree = bt.BT({}, bt.ActionNode(function() end, "A"))
    local rec = tree:record({ capacity = 4 })
    for i = 1, 5 do
      c.t = i
      tree:Update()
    end
    assert.equal(15, rec:total()) -- READY>SUCCESS, SUCCESS>READY, the think: 3 a think
    assert.equal(4, rec:count())
    local r = rec:records()
    assert.equal(12, r[1].seq)
    assert.same({ "think deadline", "A READY>SUCCESS", "A SUCCESS>READY", "think deadline" }, story(rec))
    rec:clear()
    assert.equal(0, rec:count())
    assert.same({}, rec:records())
  end)

  it("records the sleep a think asked for, what woke it, events and contained errors", function()
    local errors = H.errors()
    local inst = H.entity("wolf")
    inst.prefab, inst.GUID = "wolf", 28
    local tree = bt.BT(inst, bt.PriorityNode({
      bt.EventNode(inst, "attacked", bt.ActionNode(function() error("no fangs") end, "Bite")),
      bt.WaitNode(2),
    }, 0.5))
    local rec = tree:record({})
    assert.same({ 28, "wolf 28" }, { rec:agent() }) -- the entity's id and label by default
    c.t = 1
    tree:Update()
    local think = rec:records()[#rec:records()]
    assert.equal("think", think.type)
    assert.equal("start", think.cause)
    assert.equal(tree:GetSleepTime(), think.sleep)
    tree:ForceUpdate()
    c.t = 1.1
    tree:Update()
    assert.equal("force", rec:records()[#rec:records()].cause)
    local before = rec:total()
    inst:PushEvent("attacked")
    c.t = 1.2
    tree:Update()
    local s = story(rec, before + 1)
    assert.equal("event Priority/Event(attacked)", s[1])
    assert.equal("think event", s[#s])
    local err
    for _, r in ipairs(rec:records(before + 1)) do
      if r.type == "error" then err = r end
    end
    assert.truthy(err, "an error record")
    assert.equal("Priority/Event(attacked)/Bite", err.path)
    assert.truthy(err.message:find("no fangs", 1, true))
    assert.falsy(err.message:find("stack traceback", 1, true))
    assert.equal(1, #errors) -- still reported as before
  end)

  it("takes a think's sleep time while the tree is entered, so nodes written in Lua are asked safely", function()
    -- before: the think's record waited for its sleep time until the recorder was read or
    -- collected, then asked the tree's Lua nodes with no tree entered, and the process crashed
    local out, err, ok = H.run_lua([[
      local H = require "helpers"
      local bt = H.bt
      local tree = bt.BT({}, bt.PriorityNode({H.Twice(H.leaf("Flip", {"SUCCESS", "FAILED", "RUNNING"})),
        H.leaf("Graze", "RUNNING")}, 0.5, true))
      local rec = tree:record({capacity = 4})
      tree:Update()
      tree:Update()
      local last = rec:records()[#rec:records()]
      print(last.type, last.sleep)
      rec = nil
      collectgarbage()
      print("done")
    ]])
    assert.is_true(ok, err)
    assert.equal("think\t0.0\ndone\n", out)
  end)

  it("detaches with nil, and refuses what is not a recorder or options", function()
    local tree = bt.BT({}, bt.ActionNode(function() end, "A"))
    local rec = bt.Recorder({ capacity = 8, agent = 5, label = "sheep 5" })
    assert.equal(rec, tree:record(rec))
    assert.same({ 5, "sheep 5" }, { rec:agent() })
    assert.is_nil(tree:record(nil))
    assert.is_nil(tree:recorder())
    tree:Update()
    assert.equal(0, rec:total())
    assert.has_error(function() tree:record(42) end,
      "bad argument #1 to 'record' (Recorder, table or nil expected, got number)")
    assert.has_error(function() bt.Recorder({ capacity = -1 }) end,
      "bad argument #1 to 'Recorder' (capacity: a whole number from 0 to 2097152 expected)")
    assert.has_error(function() bt.Recorder({ label = 3 }) end,
      "bad argument #1 to 'Recorder' (label: a string expected)")
    -- one recorder watches one tree: attaching it to another moves it
    local other = bt.BT({}, bt.ActionNode(function() end, "B"))
    tree:record(rec)
    other:record(rec)
    assert.is_nil(tree:recorder())
    assert.equal(rec, other:recorder())
  end)
end)

describe("recording brains", function()
  local manager, tick, t
  local function run(n)
    for _ = 1, n do
      tick = tick + 1
      t = tick / 30
      manager:Update(tick)
    end
  end
  before_each(function()
    tick, t = 0, 0
    bt.set_clock(function() return t end)
    manager = bt.BrainWrangler()
  end)
  after_each(H.restore)

  local Walker = bt.SharedBrain(function()
    return bt.PriorityNode({
      bt.WhileNode(function(inst) return inst.hungry end, "Hungry", bt.ActionNode(function(inst) inst.hungry = false end, "Eat")),
      bt.SequenceNode({ bt.ActionNode(function(inst) inst.x = inst.x + 1 end, "Step"), bt.WaitNode(1) }),
    }, 0.5)
  end)

  local function spawn(n)
    local insts = {}
    for i = 1, n do
      local inst = { x = 0, prefab = "sheep", GUID = 100 + i }
      inst.brain = Walker(inst)
      inst.brain.manager = manager
      inst.brain:Start()
      insts[i] = inst
    end
    return insts
  end

  it("switched on for a manager, every brain it thinks records, and off again", function()
    local insts = spawn(3)
    manager:Record({ capacity = 64 })
    run(30)
    for i, inst in ipairs(insts) do
      local rec = inst.brain.recorder
      assert.truthy(rec, "brain " .. i .. " records")
      assert.same({ 100 + i, "sheep " .. (100 + i) }, { rec:agent() })
      assert.equal(rec, inst.brain.bt:recorder())
      assert.truthy(rec:total() > 0)
    end
    -- a brain that joins later records too
    local late = spawn(1)[1]
    run(1)
    assert.truthy(late.brain.recorder)
    manager:Record(nil)
    local rec = insts[1].brain.recorder
    assert.is_nil(rec)
    assert.is_nil(insts[1].brain.bt:recorder())
  end)

  it("a brain's recorder follows it to a new tree on restart and through a reload", function()
    local inst = spawn(1)[1]
    local rec = inst.brain:Record({ capacity = 256 })
    assert.equal(rec, inst.brain.recorder)
    run(30)
    local first = inst.brain.bt
    inst.brain:Stop()
    inst.brain:Start()
    assert.are_not.equal(first, inst.brain.bt)
    assert.equal(rec, inst.brain.bt:recorder())
    -- a reload moves the recorder to the new tree and records it
    local root = os.tmpname()
    os.remove(root)
    assert(os.execute("mkdir -p " .. root .. "/rrec"))
    package.path = root .. "/?.lua;" .. package.path
    local function write(threshold, name)
      local f = assert(io.open(root .. "/rrec/brain.lua", "w"))
      f:write(string.format([[
local bt = require "bt"
return bt.SharedBrain(function()
  return bt.PriorityNode({
    bt.WhileNode(function(inst) return inst.x > %d end, %q, bt.ActionNode(function(inst) inst.x = 0 end, "Home")),
    bt.SequenceNode({ bt.ActionNode(function(inst) inst.x = inst.x + 1 end, "Step"), bt.WaitNode(1) }),
  }, 0.5)
end)
]], threshold, name))
      f:close()
    end
    write(100, "Far")
    local B = require "rrec.brain"
    local other = { x = 0, prefab = "sheep", GUID = 7 }
    other.brain = B(other)
    other.brain.manager = manager
    other.brain:Start()
    local logpath = os.tmpname()
    local log = assert(bt.log.create(logpath))
    local r = other.brain:Record({ capacity = 1024, log = log })
    run(10)
    write(2, "Near")
    assert.is_true((bt.reload.module("rrec.brain")))
    run(30)
    assert.equal(r, other.brain.bt:recorder())
    -- the first think is the recorder's start; the first after the reload says so
    local function causes(records)
      local list, after = {}, nil
      for x in records do
        if x.type == "reload" then
          after = "reload>"
        elseif x.type == "think" then
          list[#list + 1] = (after or "") .. x.cause
          after = nil
        end
      end
      return table.concat(list, " ")
    end
    local ring = causes(coroutine.wrap(function() for _, x in ipairs(r:records()) do coroutine.yield(x) end end))
    assert.matches("^start[ a-z]* reload>reload deadline[ a-z]*$", ring)
    assert.is_nil(ring:find("start", 2, true))
    assert.equal(2, select(2, ring:gsub("reload", ""))) -- the record, and the one think after it
    assert.is_true(log:close())
    local reader = assert(bt.log.open(logpath))
    assert.equal(ring, causes(reader:records()))
    reader:close()
    os.remove(logpath)
    local reloads, paths, unnamed = 0, {}, 0
    for _, x in ipairs(r:records()) do
      if x.type == "status" and not x.path then
        assert.equal(0, reloads) -- made before the reload, in the old shape
        assert.truthy(x.node)
        unnamed = unnamed + 1
      end
      if x.type == "reload" then
        reloads = reloads + 1
        assert.are_not.equal(x.from, x.to)
      end
      if x.path then paths[x.path] = true end
    end
    assert.equal(1, reloads)
    assert.truthy(unnamed > 0)
    local names = {}
    for p in pairs(paths) do names[#names + 1] = p end
    table.sort(names)
    assert.truthy(paths["Priority/Parallel/Near"], "a node of the new tree is named: " .. table.concat(names, ", "))
    assert.falsy(paths["Priority/Parallel/Far"], "records before the reload are not named after the new tree")
    assert.is_nil(other.brain:Record(nil))
    assert.is_nil(other.brain.bt:recorder())
    os.execute("rm -rf " .. root)
  end)
end)

describe("writing a log from Lua", function()
  local c
  before_each(function() c = H.clock(0) end)
  after_each(H.restore)

  local function read_all(path)
    local r = assert(bt.log.open(path))
    local list = {}
    for rec in r:records() do list[#list + 1] = rec end
    local where = r:where()
    r:close()
    return list, where
  end

  it("writes what a tree's recorder records, the same records as its ring", function()
    local path = os.tmpname()
    local log = assert(bt.log.create(path))
    local ok = true
    local tree = bt.BT({ prefab = "sheep", GUID = 4 }, bt.PriorityNode({
      bt.SequenceNode({ bt.ConditionNode(function() return ok end, "Ok"), bt.WaitNode(1) }),
      bt.ActionNode(function() end, "Idle"),
    }, 0.5))
    local rec = tree:record({ capacity = 256, log = log })
    for i = 1, 40 do
      c.t = i / 10
      ok = i < 20
      tree:Update()
    end
    assert.is_true(log:flush())
    local st = log:stats()
    assert.is_true(log:close())
    assert.equal("bt log writer (closed)", tostring(log))
    local from_log = {}
    local records, where = read_all(path)
    for _, r in ipairs(records) do
      assert.equal(4, r.agent)
      assert.equal("sheep 4", r.label)
      from_log[#from_log + 1] = r.type .. " " .. tostring(r.path) .. " " .. tostring(r.from) .. ">" .. tostring(r.to)
        .. " " .. string.format("%.2f", r.time)
    end
    local from_ring = {}
    for _, r in ipairs(rec:records()) do
      from_ring[#from_ring + 1] = r.type .. " " .. tostring(r.path) .. " " .. tostring(r.from) .. ">" .. tostring(r.to)
        .. " " .. string.format("%.2f", r.time)
    end
    assert.equal("ended", where)
    assert.same(from_ring, from_log)
    assert.equal(rec:total(), st.records)
    assert.truthy(st.statuses > 0)
    os.remove(path)
  end)

  -- a log at a new path, a wrangler, and a brain class that waits
  local function logged_wrangler()
    local path = os.tmpname()
    local log = assert(bt.log.create(path))
    local m = bt.BrainWrangler()
    local B = bt.SharedBrain(function()
      return bt.PriorityNode({ bt.WaitNode(1) }, 0.5)
    end)
    return path, log, m, B
  end

  it("a wrangler recording into a log writes it at the end of each Update", function()
    local path, log, m, B = logged_wrangler()
    m:Record({ capacity = 0, log = log })
    for i = 1, 3 do
      local inst = { prefab = "wolf", GUID = 10 + i }
      inst.brain = B(inst)
      inst.brain.manager = m
      inst.brain:Start()
    end
    for tick = 1, 45 do
      c.t = tick / 30
      m:Update(tick)
    end
    -- no flush, no close: the file has every Update's records already
    local records, where = read_all(path)
    assert.equal("whole", where) -- written up to a frame's end, not closed
    local agents, thinks = {}, 0
    for _, r in ipairs(records) do
      agents[r.label] = true
      if r.type == "think" then thinks = thinks + 1 end
    end
    assert.same({ ["wolf 11"] = true, ["wolf 12"] = true, ["wolf 13"] = true }, agents)
    assert.equal(m:GetStats().thinks, thinks)
    log:world(3, "the map")
    assert.is_true(log:close())
    records = read_all(path)
    assert.equal("world", records[#records].type)
    assert.equal("the map", records[#records].data)
    assert.equal(3, records[#records].code)
    os.remove(path)
  end)

  it("a brain's Stop is a stop record; a restart attaches its new tree and thinks on", function()
    local path, log, m, B = logged_wrangler()
    local inst = { prefab = "sheep", GUID = 21 }
    inst.brain = B(inst)
    inst.brain.manager = m
    inst.brain:Start()
    m:Record({ capacity = 0, log = log })
    local tick = 0
    local function run(n)
      for _ = 1, n do
        tick = tick + 1
        c.t = tick / 30
        m:Update(tick)
      end
    end
    run(10)
    inst.brain:Stop() -- the creature died: its brain stops, its tree keeps its statuses
    local stopped_at = c.t
    run(10)
    inst.brain:Start() -- and comes back (DS restarts a brain that woke up)
    run(10)
    assert.is_true(log:close())
    local seq = {}
    for _, r in ipairs(read_all(path)) do
      if r.type == "stop" then
        assert.equal(21, r.agent)
        assert.equal(stopped_at, r.time)
        seq[#seq + 1] = "stop"
      elseif r.type == "think" and seq[#seq] ~= "think" then
        seq[#seq + 1] = "think"
      end
    end
    assert.same({ "think", "stop", "think" }, seq)
    os.remove(path)
  end)

  it("says what is wrong with a path, an option or a closed writer", function()
    local log, err = bt.log.create("/nonexistent-dir/x.btlog")
    assert.is_nil(log)
    assert.truthy(err:find("/nonexistent-dir/x.btlog", 1, true), err)
    assert.has_error(function() bt.log.create(42) end,
      "bad argument #1 to 'log.create' (string expected, got number)")
    assert.has_error(function() bt.Recorder({ log = 42 }) end,
      "bad argument #1 to 'Recorder' (log: a log writer (bt.log.create) expected)")
    local path = os.tmpname()
    local w = assert(bt.log.create(path))
    assert.is_true(w:close())
    assert.is_true(w:close()) -- again: nothing to do
    assert.has_error(function() bt.Recorder({ log = w }) end,
      "bad argument #1 to 'Recorder' (log: the log writer is closed)")
    assert.has_error(function() w:flush() end, "bad self to 'flush' (the log writer is closed)")
    os.remove(path)
  end)
end)
