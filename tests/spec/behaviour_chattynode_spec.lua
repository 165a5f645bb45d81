-- SPDX-License-Identifier: MIT
-- ChattyNode (behaviours/chattynode.lua): talking while the child runs. Expected values follow
-- docs/behaviours.md and the Don't Starve scripts; math.random is scripted: a line is
-- lines[floor(r * #lines) + 1], the next one comes delay + r * rand_delay seconds later.

local H = require "helpers"
local F = require "fake_entity"
local ChattyNode = require "behaviours.chattynode"
local bt = H.bt
local SUCCESS, FAILED, RUNNING = bt.SUCCESS, bt.FAILED, bt.RUNNING

-- a leaf whose status is inst.doing (RUNNING by default), sleeping 1 s
local Chore = bt.Class(bt.BehaviourNode, function(self)
  bt.BehaviourNode._ctor(self, "Chore")
end)

function Chore:Visit()
  self.status = self.inst.doing or RUNNING
  self:Sleep(1)
end

describe("ChattyNode", function()
  local world, sheep, unstub

  before_each(function()
    world = F.world()
    bt.set_clock(world:clock())
    sheep = world:spawn("sheep", 0, 0)
  end)

  after_each(function()
    if unstub then
      unstub()
      unstub = nil
    end
    H.restore()
  end)

  it("says a random line on entering and then every delay + random * rand_delay seconds", function()
    unstub = F.stub_random({0.5, 0.5, 0, 0})
    local chore = Chore()
    chore.inst = sheep
    local node = ChattyNode(sheep, {"a", "b", "c"}, chore, 5, 5)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.equal(RUNNING, node.status)
    assert.same({"Say(b)"}, world:commands(sheep))
    assert.equal(7.5, node.nextchattime)
    assert.equal(1, tree:GetSleepTime()) -- its own Sleep has no effect: not a leaf
    assert.truthy(tostring(tree):find('(next line in 7.50, last "b")', 1, true))

    world:clear_log()
    world:step(7.5)
    tree:Update()
    assert.same({}, world:commands(sheep))
    world:step(0.125)
    tree:Update()
    assert.same({"Say(a)"}, world:commands(sheep))
    assert.equal(12.625, node.nextchattime)
  end)

  it("waits enter_delay before the first line, and starts over after the child stops running", function()
    unstub = F.stub_random({0.5})
    local chore = Chore()
    chore.inst = sheep
    local node = ChattyNode(sheep, "Baa.", chore, 10, 0, 2)
    local tree = bt.BT(sheep, node)
    tree:Update()
    world:step(1.875)
    tree:Update()
    assert.same({}, world:commands(sheep))
    world:step(0.125) -- 2 > 2 - 1/30
    tree:Update()
    assert.same({"Say(Baa.)"}, world:commands(sheep))

    sheep.doing = FAILED
    tree:Update()
    assert.equal(FAILED, node.lastresult)
    sheep.doing = nil
    world:clear_log()
    world:step(1)
    tree:Update()
    assert.same({}, world:commands(sheep)) -- a fresh entry: 2 s again
    world:step(2)
    tree:Update()
    assert.same({"Say(Baa.)"}, world:commands(sheep))
  end)

  it("copies a finished child's status without talking", function()
    sheep.doing = SUCCESS
    local chore = Chore()
    chore.inst = sheep
    local node = ChattyNode(sheep, {"a"}, chore)
    bt.BT(sheep, node):Update()
    assert.equal(SUCCESS, node.lastresult)
    assert.same({}, world:commands(sheep))
  end)

  it("takes lines from a function of inst (nil says nothing) and from Don't Starve's {name, chatterparams}", function()
    local chore = Chore()
    chore.inst = sheep
    local node = ChattyNode(sheep, function(inst) return inst.mood end, chore, 1, 0)
    local tree = bt.BT(sheep, node)
    tree:Update()
    assert.same({}, world:commands(sheep))
    sheep.mood = "Grr."
    world:step(1.125)
    tree:Update()
    assert.same({"Say(Grr.)"}, world:commands(sheep))

    local other = world:spawn("sheep", 0, 0)
    local c2 = Chore()
    c2.inst = other
    bt.BT(other, ChattyNode(other, {name = {"Hi."}, chatterparams = {time = 2}}, c2)):Update()
    assert.same({"Say(Hi.)"}, world:commands(other))
  end)

  it("works in a shared definition: each entity talks on its own schedule", function()
    unstub = F.stub_random({0})
    local def = bt.define(ChattyNode(nil, {"x"}, Chore(), 4, 4))
    local a = world:spawn("sheep", 0, 0)
    local b = world:spawn("sheep", 0, 0)
    local ta, tb = bt.BT(a, def), bt.BT(b, def)
    ta:Update() -- a: a line at 0, the next after 4
    world:step(3)
    tb:Update() -- b: a line at 3, the next after 7
    world:step(1.125)
    ta:Update()
    tb:Update()
    assert.equal(2, #world:commands(a, "Say"))
    assert.equal(1, #world:commands(b, "Say"))
    assert.equal(8.125, ta.root.nextchattime)
    assert.equal(7, tb.root.nextchattime)
  end)
end)
