-- SPDX-License-Identifier: MIT
-- bt.Class: Don't Starve's Class (docs/lua-api.md: Custom behaviours written in Lua; Don't
-- Starve's scripts/class.lua).

local H = require "helpers"
local bt = H.bt
local Class = bt.Class

describe("bt.Class", function()
  it("Class(ctor) makes a callable class whose instances have it as metatable and run ctor", function()
    local got
    local ctor = function(self, x, y) self.x = x; self.y = y; got = self end
    local C = Class(ctor)
    local o = C(1, 2)
    assert.equal(1, o.x)
    assert.equal(2, o.y)
    assert.equal(o, got)
    assert.equal(C, getmetatable(o))
    assert.equal(ctor, C._ctor)
    assert.is_true(o:is_a(C))
  end)

  it("looks methods up in the class, defined before or after the instance", function()
    local C = Class(function(self) self.n = 1 end)
    function C:get() return self.n end
    local o = C()
    function C:twice() return 2 * self.n end
    assert.equal(1, o:get())
    assert.equal(2, o:twice())
  end)

  it("Class(base, ctor) copies the base's members at definition time and records _base", function()
    local A = Class(function(self, x) self.x = x end)
    function A:hello() return "A" .. self.x end
    local B = Class(A, function(self, x)
      A._ctor(self, x)
      self.b = true
    end)
    function A:late() return "late" end
    local b = B(7)
    assert.equal(7, b.x)
    assert.is_true(b.b)
    assert.equal("A7", b:hello())
    assert.equal(A.hello, rawget(B, "hello"))
    assert.is_nil(rawget(B, "late"))
    assert.is_nil(b.late)
    assert.equal(A, B._base)
    assert.equal(A, b._base)
  end)

  it("lets a subclass override a method and call the base's through _base", function()
    local A = Class(function() end)
    function A:name() return "A" end
    local B = Class(A, function() end)
    function B:name() return "B<" .. self._base.name(self) .. ">" end
    assert.equal("B<A>", B():name())
    assert.equal("A", A():name())
  end)

  it("is_a follows the _base chain", function()
    local A = Class(function() end)
    local B = Class(A, function() end)
    local C = Class(B, function() end)
    local D = Class(function() end)
    local c = C()
    assert.is_true(c:is_a(C))
    assert.is_true(c:is_a(B))
    assert.is_true(c:is_a(A))
    assert.is_false(c:is_a(D))
    assert.is_false(A():is_a(B))
  end)

  it("is_class tells a class from an instance", function()
    local A = Class(function() end)
    assert.is_true(A:is_class())
    assert.is_false(A():is_class())
  end)

  it("Class(base) without a ctor has none: the base's _ctor is not inherited (as written)", function()
    local A = Class(function(self) self.made = true end)
    local B = Class(A)
    local b = B()
    assert.is_nil(B._ctor)
    assert.is_nil(b.made)
    assert.is_true(b:is_a(A))
  end)

  it("a class may define metamethods for its instances, such as __tostring", function()
    local P = Class(function(self, x, y) self.x, self.y = x, y end)
    P.__tostring = function(self) return string.format("(%d,%d)", self.x, self.y) end
    P.__eq = function(a, b) return a.x == b.x and a.y == b.y end
    P.__add = function(a, b) return P(a.x + b.x, a.y + b.y) end
    local p = P(1, 2) + P(3, 4)
    assert.equal("(4,6)", tostring(p))
    assert.is_true(P(4, 6) == p)
  end)

  it("a subclass inherits the base's metamethods by copy", function()
    local A = Class(function(self) self.v = "a" end)
    A.__tostring = function(self) return "I am " .. self.v end
    local B = Class(A, function(self) A._ctor(self); self.v = "b" end)
    assert.equal("I am b", tostring(B()))
  end)

  it("node classes are Classes: a behaviour's __tostring and is_a work", function()
    local Chase = Class(bt.BehaviourNode, function(self, inst)
      bt.BehaviourNode._ctor(self, "ChaseAndAttack")
      self.inst = inst
    end)
    function Chase:__tostring() return "chasing " .. tostring(self.inst.name) end
    local n = Chase({ name = "pig" })
    assert.equal("chasing pig", tostring(n))
    assert.is_true(n:is_a(Chase))
    assert.is_true(n:is_a(bt.BehaviourNode))
    assert.equal(bt.BehaviourNode, Chase._base)
    bt.BT({}, n)
    assert.equal("chasing pig", tostring(n))
  end)

  it("is the Class that install_globals installs", function()
    local env = {}
    bt.install_globals(env)
    assert.equal(Class, env.Class)
  end)
end)
