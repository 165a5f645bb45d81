-- SPDX-License-Identifier: MIT
-- Saved games (docs/lua-api.md "Saved games", docs/scheduler.md "Saved games"): tree:save and
-- tree:restore, Brain:Save and Brain:Restore, BrainWrangler:Save and BrainWrangler:Restore,
-- behaviours' OnSave and OnLoad.
local bt = require "bt"
local H = require "helpers"

-- A behaviour that keeps its progress in Lua fields: a target entity and a deadline.
local Stalk = bt.Class(bt.BehaviourNode, function(self, inst)
  bt.BehaviourNode._ctor(self, "Stalk")
  self.inst = inst
end)

function Stalk:Visit()
  if self.status == bt.READY then
    self.target = self.inst.prey
    self.giveup = bt.GetTime() + 5
    self.status = bt.RUNNING
  end
  if bt.GetTime() >= self.giveup then
    self.status = bt.FAILED
    return
  end
  self:Sleep(1)
end

function Stalk:OnSave(ctx)
  return { target = self.target, left = self.giveup and self.giveup - ctx.now }
end

function Stalk:OnLoad(data, ctx)
  self.target = data.target
  self.giveup = data.left and ctx.now + data.left
end

local function named(node, name)
  node.name = name
  return node
end

local function wolf_root(inst, variant)
  local children = {
    bt.WhileNode(function(i) return i.hurt end, "Hurt", bt.ActionNode(function() end, "Flee")),
    bt.EventNode(inst, "attacked", bt.ActionNode(function() end, "Retaliate")),
    named(bt.SequenceNode({ bt.WaitNode(2), Stalk(inst) }), "Hunt"),
    bt.WaitNode(3),
  }
  if variant == "added" then
    table.insert(children, 1, bt.IfNode(function(i) return i.hungry end, "Hungry", bt.ActionNode(function() end, "Eat")))
  elseif variant == "renamed" then
    children[3] = named(bt.SequenceNode({ bt.WaitNode(2), Stalk(inst) }), "Chase")
  end
  return bt.PriorityNode(children, 0.5, true)
end

local ids = {}
local ents = {}
local function entity(id)
  local e = { GUID = id }
  ids[e] = id
  ents[id] = e
  return e
end
local options = {
  to_id = function(e) return ids[e] end,
  from_id = function(id) return ents[id] end,
}

local function same(a, b)
  assert.are.same(a:snapshot(), b:snapshot())
  assert.are.equal(tostring(a), tostring(b))
  assert.are.equal(a:GetSleepTime(), b:GetSleepTime())
end

describe("tree:save and tree:restore", function()
  local clock
  before_each(function() clock = H.clock(10) end)
  after_each(H.restore)

  it("resumes exactly, think by think, a tree restored at the same time", function()
    local sheep = entity("sheep1")
    local wolf = { prey = sheep }
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    clock.t = 12.25
    a:Update() -- the Wait ended at 12: Stalk runs, gives up at 17.25
    assert.are.equal("RUNNING", a:snapshot()[9].status)
    local s = a:save(options)
    assert.are.equal("string", type(s))

    local wolf2 = { prey = nil }
    local b = bt.BT(wolf2, wolf_root(wolf2))
    local dropped = b:restore(s, options)
    assert.are.same({}, dropped)
    same(a, b)
    -- the behaviour's own fields came through OnSave/OnLoad, the entity by its id
    local stalk_b = b.root.children[3].children[2]
    assert.are.equal(sheep, stalk_b.target)
    assert.are.equal(17.25, stalk_b.giveup)
    local gave_up
    for t = 12.5, 18, 0.25 do
      clock.t = t
      a:Update()
      b:Update()
      same(a, b)
      if not gave_up and b:snapshot()[9].last == "FAILED" then
        gave_up = t
      end
    end
    assert.are.equal(17.25, gave_up) -- 5 s after it started, as its saved deadline says
  end)

  it("keeps every deadline as far away after a load whose clock started again", function()
    local wolf = { prey = entity("sheep2") }
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    clock.t = 12.25
    a:Update()
    local s = a:save(options)
    clock.t = 0.5 -- a loaded game: GetTime() starts again (Don't Starve's does)
    local wolf2 = {}
    local b = bt.BT(wolf2, wolf_root(wolf2))
    b:restore(s, options)
    local stalk = b.root.children[3].children[2]
    assert.are.equal(5.5, stalk.giveup)       -- 17.25 - 12.25 + 0.5
    assert.are.equal(1.5, stalk.nextupdatetime) -- it slept 1 s at 12.25
    assert.are.equal(0.5, b.root.lasttime)  -- the Priority evaluated at the save's time
    clock.t = 2.75
    b:Update()
    assert.are.equal("RUNNING", b:snapshot()[9].status)
    clock.t = 5.5
    b:Update() -- the Stalk gives up 5 s after it started, 3 s after the load
    assert.are.equal("FAILED", b:snapshot()[9].last)
  end)

  it("restores a changed brain node by node and reports what was dropped", function()
    local wolf = { prey = entity("sheep3") }
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    clock.t = 12.25
    a:Update()
    local s = a:save(options)

    -- a branch added in front: every old path is still there, the Stalk keeps running
    local w2 = {}
    local b = bt.BT(w2, wolf_root(w2, "added"))
    assert.are.same({}, b:restore(s, options))
    local snap = b:snapshot()
    assert.are.equal("Hunt", snap[10].name)
    assert.are.equal("RUNNING", snap[10].status)
    assert.are.equal("Stalk", snap[12].name)
    assert.are.equal("RUNNING", snap[12].status)
    assert.are.equal(4, b.root.idx) -- the running child, at its new place
    assert.is_nil(b.root.lasttime)  -- a changed shape: the Priority evaluates at the next think
    assert.are.equal(17.25, b.root.children[4].children[2].giveup)

    -- the Hunt renamed Chase: its nodes are dropped, the Priority above re-evaluates
    local w3 = {}
    local c = bt.BT(w3, wolf_root(w3, "renamed"))
    local dropped = c:restore(s, options)
    table.sort(dropped)
    assert.are.same({ "Priority/Hunt", "Priority/Hunt/Stalk", "Priority/Hunt/Wait" }, dropped)
    assert.are.equal("READY", c:snapshot()[1].status)
    assert.are.equal("READY", c:snapshot()[7].status)
    clock.t = 12.5
    c:Update()
    assert.are.equal("RUNNING", c:snapshot()[7].status) -- Chase starts afresh at its Wait
  end)

  it("refuses a string of another tree, or a corrupt or truncated one, and changes nothing", function()
    local wolf = { prey = entity("sheep4") }
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    clock.t = 12.25
    a:Update()
    local s = a:save(options)
    local before_dump, before_snap = tostring(a), a:snapshot()
    local stalk = a.root.children[3].children[2]
    local target, giveup = stalk.target, stalk.giveup

    local other = bt.BT({}, named(bt.SequenceNode({ bt.WaitNode(1) }), "Graze"))
    local ok, msg = a:restore(other:save())
    assert.is_nil(ok)
    assert.are.equal("restore: the state was saved from another tree: its root is 'Graze' (SequenceNode), this tree's is 'Priority' (PriorityNode)", msg)
    -- another brain with a Priority root too: nothing in common below the root
    local sheep = bt.BT({}, bt.PriorityNode({ bt.ActionNode(function() end, "Graze") }, 1))
    ok, msg = a:restore(sheep:save())
    assert.is_nil(ok)
    assert.are.equal("restore: the state was saved from another tree: no node but the root ('Priority') has a path this tree has", msg)

    local cases = {
      { "hello", "not a saved tree" },
      { s:sub(1, 60), "truncated" },
      { s:sub(1, #s - 5), "truncated" },
      { s:gsub("SequenceNode", "SequenceNodx", 1), "corrupt at byte %d+: expected a node kind" },
      { s:gsub("RUNNING RUNNING", "RUNNING RUNNINX", 1), "expected a last result" },
      { s:gsub("bt%-state 2", "bt-state 7", 1), "format version 7" },
    }
    for _, case in ipairs(cases) do
      local r, m = a:restore(case[1], options)
      assert.is_nil(r)
      assert.matches(case[2], m)
      assert.are.equal(before_dump, tostring(a))
      assert.are.same(before_snap, a:snapshot())
      assert.are.equal(target, stalk.target)
      assert.are.equal(giveup, stalk.giveup)
    end
    -- entity ids without from_id: refused before anything changed
    local r, m = a:restore(s)
    assert.is_nil(r)
    assert.matches("options.from_id is missing", m)
    assert.are.equal(before_dump, tostring(a))
  end)

  it("refuses data that cannot be saved, naming the node and the field", function()
    local wolf = { prey = entity("sheep5") }
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    clock.t = 12.25
    a:Update()
    local stalk = a.root.children[3].children[2]
    stalk.target = { pos = { x = 1, fn = print } } -- no id: a plain table, holding a function
    assert.has_error(function() a:save(options) end,
      "save: Priority/Hunt/Stalk: OnSave: target.pos.fn holds a function, which cannot be saved")
    stalk.target = setmetatable({}, {})
    assert.has_error(function() a:save(options) end,
      "save: Priority/Hunt/Stalk: OnSave: target holds a table with a metatable, which cannot be saved (an entity? options.to_id gave no id for it)")
    assert.has_error(function() a:save("x") end, "bad argument #1 to 'save' (table or nil expected, got string)")
  end)

  it("saves an EventNode's trigger and data, entities by id", function()
    local attacker = entity("player")
    local wolf = {}
    local a = bt.BT(wolf, wolf_root(wolf))
    a:Update()
    a:FireEvent("attacked", { attacker = attacker, damage = 2.5 })
    local s = a:save(options)
    local w2 = {}
    local b = bt.BT(w2, wolf_root(w2))
    b:restore(s, options)
    local ev = b.root.children[2]
    assert.is_true(ev.triggered)
    assert.are.equal(attacker, ev.data.attacker)
    assert.are.equal(2.5, ev.data.damage)
    a:Update()
    b:Update()
    same(a, b)
  end)
end)

describe("Brain:Save, Brain:Restore and the manager's", function()
  local clock
  before_each(function()
    clock = H.clock(0)
    bt.set_tick_time(1 / 8) -- times of binary fractions: shifting them by the load is exact
  end)
  after_each(function()
    bt.set_tick_time(1 / 30)
    H.restore()
  end)

  local WolfBrain = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)
  function WolfBrain:OnStart() self.bt = bt.BT(self.inst, wolf_root(self.inst)) end

  local function creature(manager, id, prey)
    local e = entity(id)
    e.prey = prey
    e.brain = WolfBrain(e)
    e.brain.manager = manager
    e.brain:Start()
    return e
  end

  it("saves a game's creatures and loads them into a new game, each where it was", function()
    local m = bt.BrainWrangler()
    local sheep = entity("sheepA")
    local w1 = creature(m, "wolfA", sheep)
    local w2 = creature(m, "wolfB", nil)
    for tick = 1, 23 do -- 2.875 s: wolfA stalks; wolfB waits in its Wait(3)
      clock.t = tick / 8
      m:Update(tick)
    end
    local save = m:Save(options)
    local listA, wakeA = m:GetList(w1.brain)
    assert.are.equal("waiting", listA)

    -- the loaded game: a new manager, its clock and ticks start again; entities re-created
    ids, ents = {}, {}
    local m2 = bt.BrainWrangler()
    clock.t = 0
    local sheep2 = entity("sheepA")
    local n1 = creature(m2, "wolfA", nil)
    local n2 = creature(m2, "wolfB", nil)
    local report = assert(m2:Restore(save, options))
    assert.are.same({}, report.dropped.wolfA)
    assert.are.same({}, report.missing)
    assert.are.equal(sheep2, n1.brain.bt.root.children[3].children[2].target)
    local list2, wake2 = m2:GetList(n1.brain)
    assert.are.equal("waiting", list2)
    assert.are.equal(wakeA - 23, wake2) -- as many ticks away as at the save
    -- think by think, the loaded brains do what the saved ones do: the same snapshots, each
    -- read on its own game's clock (so the times left in dbstrings and sleeps agree too)
    for k = 1, 40 do
      clock.t = (23 + k) / 8
      m:Update(23 + k)
      local a1, a2 = w1.brain.bt:snapshot(), w2.brain.bt:snapshot()
      clock.t = k / 8
      m2:Update(k)
      assert.are.same(a1, n1.brain.bt:snapshot())
      assert.are.same(a2, n2.brain.bt:snapshot())
      assert.are.equal((m:GetList(w1.brain)), (m2:GetList(n1.brain)))
    end
  end)

  it("refuses the whole manager's string if one brain's is bad, changing none", function()
    local m = bt.BrainWrangler()
    local a = creature(m, "wolfC", nil)
    clock.t = 0.125
    m:Update(1)
    local s = m:Save(options)
    local bad = s:gsub("WaitNode", "WaitNodx", 1)
    local before = tostring(a.brain.bt)
    local r, msg = m:Restore(bad, options)
    assert.is_nil(r)
    assert.matches("Restore: entity wolfC: the tree state is corrupt at byte", msg)
    assert.are.equal(before, tostring(a.brain.bt))
    local one = a.brain:Save(options)
    assert.are.same({}, a.brain:Restore(one, options))
    local r2, msg2 = a.brain:Restore("nonsense")
    assert.is_nil(r2)
    assert.matches("not a saved brain", msg2)
  end)
end)
