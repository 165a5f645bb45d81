-- bt.set_clock with a number: the time stands still until set again.
local bt = require "bt"

describe("bt.set_clock(number)", function()
  after_each(function() bt.set_clock(nil) end)

  it("stops the time at that number, for GetTime and for every node", function()
    bt.set_clock(5)
    assert.equal(5, bt.GetTime())
    local tree = bt.BT({}, bt.SequenceNode{bt.WaitNode(2)})
    tree:Update()
    assert.equal(7, tree.root.children[1].wake_time)
    assert.equal(2, tree:GetSleepTime())
    bt.set_clock(6.5)
    assert.equal(0.5, tree:GetSleepTime())
    bt.set_clock(7)
    tree:Update()
    assert.equal("SUCCESS", tree.root.lastresult)
  end)

  it("gives way to a function or to the default clock", function()
    bt.set_clock(100)
    local t = 3
    bt.set_clock(function() return t end)
    assert.equal(3, bt.GetTime())
    bt.set_clock(nil)
    assert.is_true(bt.GetTime() < 100)
    assert.has_error(function() bt.set_clock("soon") end,
      "bad argument #1 to 'set_clock' (function, number or nil expected, got string)")
  end)
end)
