-- SPDX-License-Identifier: MIT
-- bt.view, the live viewer's server from Lua (docs/viewer.md "From Lua"): start, watch a tree, a
-- brain or a recorder, frame, the endpoints' answers, close, and every argument error. The HTTP
-- checks use LuaSocket (Debian: lua-socket) when it is there, and say they are skipped when not.
local H = require "helpers"
local bt = H.bt
local has_view, view = pcall(require, "bt.view")
local has_socket, socket = pcall(require, "socket")

-- GET path from the server on port: status, body (one request, Connection: close)
local function get(port, path, host)
  local c = assert(socket.connect("127.0.0.1", port))
  c:settimeout(20)
  c:send(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"):format(path, host or ("127.0.0.1:" .. port)))
  local all = c:receive("*a")
  c:close()
  local status = tonumber(all:match("^HTTP/1%.%d (%d+)"))
  return status, all:match("\r\n\r\n(.*)$")
end

describe("bt.view", function()
  local c
  before_each(function() c = H.clock(0) end)
  after_each(H.restore)

  if not has_view then
    pending("bt.view is not built (BT_VIEW=OFF): " .. tostring(view))
    return
  end

  it("serves a watched tree's agent, its state and its records", function()
    local seen = true
    local tree = bt.BT({GUID = 7, prefab = "wolf"}, bt.PriorityNode({
      bt.WhileNode(function() return seen end, "Seen", bt.ActionNode(function() end, "Bite")),
      bt.ActionNode(function() end, "Idle"),
    }, 0.5))
    local v = view.start({port = 0})
    assert.truthy(v:port() > 0)
    assert.equal(("http://127.0.0.1:%d/"):format(v:port()), v:url())
    local rec = v:watch(tree, "wolf")
    assert.equal(rec, tree:recorder())
    assert.equal(7, rec:agent())
    for i = 1, 4 do
      c.t = i
      seen = i % 2 == 1
      tree:Update()
      v:position(7, i, -i)
      v:frame(c.t)
    end
    local st = v:stats()
    assert.equal(4, st.frames)
    if not has_socket then
      pending("LuaSocket is not installed (Debian: lua-socket): the HTTP answers are not checked")
    else
      local status, body = get(v:port(), "/api/agents")
      assert.equal(200, status)
      assert.truthy(body:find('"id":7,"label":"wolf 7","brain":"wolf"', 1, true), body)
      assert.truthy(body:find('"x":4,"y":-4', 1, true), body)
      status, body = get(v:port(), "/api/agents/7/history?count=2000")
      assert.equal(200, status)
      local n = 0
      for _ in body:gmatch('"seq":') do n = n + 1 end
      assert.equal(rec:total(), n)
      status = get(v:port(), "/api/agents/7", "evil.example:" .. v:port())
      assert.equal(403, status)
    end
    v:unwatch(tree)
    assert.has_error(function() v:unwatch(tree) end, "bad argument #1 to 'unwatch' (it is not watched)")
    v:close()
    v:close() -- twice is allowed
    assert.has_error(function() v:frame(1) end, "calling 'frame' on bad self (the view is closed)")
  end)

  it("watches a brain's recorder and a bt.Recorder", function()
    local v = view.start()
    local rec = bt.Recorder({capacity = 8, agent = 3, label = "sheep 3"})
    assert.equal(rec, v:watch(rec, "sheep"))
    assert.has_error(function() v:watch(rec, "sheep") end)
    assert.has_error(function() v:watch({}, "x") end, "bad argument #1 to 'watch' (a tree, a brain or a bt.Recorder expected)")
    v:close()
  end)

  it("refuses bad options", function()
    assert.has_error(function() view.start({port = 70000}) end,
      "bad argument #1 to 'start' (port: a whole number from 0 to 65535 expected)")
    assert.has_error(function() view.start({address = "0.0.0.0"}) end)
    assert.has_error(function() view.start({token = 12}) end, "bad argument #1 to 'start' (token: a string expected)")
    assert.has_error(function() view.start(5) end)
  end)
end)
