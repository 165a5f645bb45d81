-- SPDX-License-Identifier: MIT
-- bt.log: reading the recorders' log files from Lua. The logs here are written by hand, byte by
-- byte as docs/log-format.md describes the format, so this also checks that description.
local bt = require "bt"

-- ---- a writer of the format, after docs/log-format.md ----

local CRC = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    c = (c & 1) ~= 0 and (0xEDB88320 ~ (c >> 1)) or (c >> 1)
  end
  CRC[i] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do
    c = CRC[(c ~ s:byte(i)) & 0xff] ~ (c >> 8)
  end
  return c ~ 0xFFFFFFFF
end

local function varint(v)
  local out = {}
  repeat
    local b = v & 0x7f
    v = v >> 7
    out[#out + 1] = string.char(v ~= 0 and (b | 0x80) or b)
  until v == 0
  return table.concat(out)
end
local function zigzag(v) return varint((v << 1) ~ (v < 0 and -1 or 0)) end
local function str(s) return varint(#s) .. s end
local function u64(v) return string.pack("<I8", v) end
local function f64(v) return string.pack("<d", v) end

local function header(flags)
  local h = "\x89BTLOG\r\n" .. string.char(1, flags or 0, 0, 0)
  return h .. string.pack("<I4", crc32(h))
end
local function block(type, payload)
  local b = string.char(type) .. varint(#payload) .. payload
  return b .. string.pack("<I4", crc32(b))
end

local HASH = 0x1234abcd5678ef00
-- Root (a Priority of period 0.25) over Flee (a Sequence of Scared and Run) and two Looks
local function shape_block()
  local kinds = {"PriorityNode", "SequenceNode", "ConditionNode", "BehaviourNode"}
  local p = {u64(HASH), varint(#kinds)}
  for _, k in ipairs(kinds) do p[#p + 1] = str(k) end
  p[#p + 1] = varint(6)
  local function node(kind, flags, param, name, children, state)
    p[#p + 1] = varint(kind) .. varint(flags) .. (param and f64(param) or "") .. str(name) .. varint(children) .. varint(state)
  end
  node(0, 0x40 | 0x08, 0.25, "Root", 3, 0)
  node(1, 0, nil, "Flee", 2, 1)
  node(2, 0x01, nil, "Scared", 0, 2)
  node(3, 0x01, nil, "Run", 0, 3)
  node(3, 0x01, nil, "Look", 0, 4)
  node(3, 0x01, nil, "Look", 0, 5)
  return block(1, table.concat(p))
end

local function agent_block(index, id, label) return block(2, varint(index) .. varint(id) .. str(label)) end

local function status(from, to, delta)
  local codes = {READY = 0, SUCCESS = 1, FAILED = 2, RUNNING = 3}
  return string.char(codes[from] | codes[to] << 2) .. zigzag(delta)
end

-- agent 12 "sheep 12": attached, then a think at 1.5 (Scared fails, Look#1 runs), then an event
-- and an error; the world's record at 1.5
local function frame_block()
  local records = table.concat({
    "\x34" .. u64(HASH) .. varint(0),   -- attached: every node READY
    "\x20",                             -- think 1, at the table's time 0 (1.5)
    status("READY", "FAILED", 2),       -- Scared (node 2)
    status("READY", "FAILED", -1),      -- Flee (1)
    status("READY", "RUNNING", 3),      -- Look#1 (4)
    status("READY", "RUNNING", -4),     -- Root (0)
    "\x35",                             -- saved
    status("FAILED", "READY", 1),       -- Flee: Step
    status("FAILED", "READY", 1),       -- Scared
    string.char(0x10 | 1 | 2 << 2) .. string.pack("<f", 0.25), -- think: start, sleep 0.25
    "\x2f" .. zigzag(0) .. varint(1),   -- the same think, at the table's time 1 (1.75)
    "\x30" .. zigzag(3),                -- an event at Look#2 (5)
    "\x31" .. zigzag(-1) .. str("oops\n"), -- an error of no node
  })
  return block(3, varint(2) .. f64(1.5) .. f64(1.75) .. zigzag(0) .. varint(#records) .. records)
end

local function log_text()
  return header() .. shape_block() .. agent_block(0, 12, "sheep 12")
    .. block(4, f64(1.5) .. zigzag(-3) .. str("rain"))
    .. frame_block() .. block(5, varint(10))
end

local function all(reader, opts)
  local out = {}
  for r in reader:records(opts) do out[#out + 1] = r end
  return out
end

describe("bt.log", function()
  it("reads a log's records as tables", function()
    local log = bt.log.read(log_text())
    local rs = all(log)
    assert.same({type = "world", time = 1.5, code = -3, data = "rain"}, rs[1])
    assert.same({type = "status", time = 1.5, agent = 12, label = "sheep 12", think = 1,
                 shape = "1234abcd5678ef00", node = 3, path = "Root/Flee/Scared",
                 from = "READY", to = "FAILED"}, rs[2])
    assert.equal("Root/Look#1", rs[4].path)
    assert.equal(5, rs[4].node)
    assert.equal("Root", rs[5].path)
    local think = rs[8]
    assert.same({"think", "start", 0.25, 1, 1.5}, {think.type, think.cause, think.sleep, think.think, think.time})
    assert.same({"event", "Root/Look#2", 6, 1.75, 1}, {rs[9].type, rs[9].path, rs[9].node, rs[9].time, rs[9].think})
    assert.same({"error", "oops\n"}, {rs[10].type, rs[10].message})
    assert.is_nil(rs[10].node)
    assert.equal(10, #rs)
    assert.same({"ended", #log_text()}, {log:where()})
  end)

  it("gives the attach, saved and describe records with {all = true}", function()
    local rs = all(bt.log.read(log_text()), {all = true})
    assert.equal(12, #rs)
    assert.same({"attach", 0}, {rs[2].type, #rs[2].statuses})
    assert.equal("saved", rs[7].type)
  end)

  it("describes a tree by its hash", function()
    local log = bt.log.read(log_text())
    all(log)
    local s = log:shape("1234abcd5678ef00")
    assert.equal("1234abcd5678ef00", s.hash)
    assert.equal(6, #s.nodes)
    assert.same({name = "Root", kind = "PriorityNode", path = "Root", children = {2, 5, 6}, param = 0.25}, s.nodes[1])
    assert.same({name = "Look", kind = "BehaviourNode", path = "Root/Look#2", parent = 1, children = {}}, s.nodes[6])
    assert.is_nil(log:shape("0000000000000001"))
  end)

  it("reads a log cut anywhere to its last whole block, and says so", function()
    local text = log_text()
    local whole = #all(bt.log.read(text))
    for cut = 0, #text - 1 do
      local log = bt.log.read(text:sub(1, cut))
      local n = #all(log)
      local where, at = log:where()
      assert.is_true(n <= whole)
      assert.is_true(where == "cut" or where == "whole", where)
      assert.is_true(at <= cut)
    end
  end)

  it("raises an error naming the byte of a damaged log, after the records before it", function()
    local text = log_text()
    local at = #header() + #shape_block() + #agent_block(0, 12, "sheep 12") + 30 -- inside the frame block
    local bad = text:sub(1, at) .. "\xff" .. text:sub(at + 2)
    local log = bt.log.read(bad)
    local seen = 0
    local ok, err = pcall(function()
      for _ in log:records() do seen = seen + 1 end
    end)
    assert.is_false(ok)
    assert.matches("corrupt at byte %d+: a block's checksum does not match its bytes", err)
    assert.equal("failed", (log:where()))
  end)

  it("says a file that is no log is none, and that another version is another", function()
    local ok, err = pcall(all, bt.log.read("hello, world\n"))
    assert.is_false(ok)
    assert.matches("not a bt log", err)
    local v2 = "\x89BTLOG\r\n\2\0\0\0\0\0\0\0"
    ok, err = pcall(all, bt.log.read(v2))
    assert.is_false(ok)
    assert.matches("format version 2", err)
    local reader, msg = bt.log.open("/nonexistent/x.btlog")
    assert.is_nil(reader)
    assert.matches("cannot open /nonexistent/x.btlog", msg)
  end)

  it("reads a file, and closes", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(log_text())
    f:close()
    do
      local log <close> = assert(bt.log.open(path))
      assert.equal(10, #all(log))
      assert.matches("open", tostring(log))
    end
    local log = assert(bt.log.open(path))
    log:close()
    assert.has_error(function() log:records() end, "bad self to 'records' (the log reader is closed)")
    os.remove(path)
  end)

  it("names the argument that is wrong", function()
    assert.has_error(function() bt.log.open(42) end, "bad argument #1 to 'log.open' (string expected, got number)")
    assert.has_error(function() bt.log.read() end, "bad argument #1 to 'log.read' (string expected, got no value)")
    local log = bt.log.read(log_text())
    assert.has_error(function() log:shape(7) end, "bad argument #1 to 'shape' (string expected, got number)")
    assert.has_error(function() log:shape("xyz") end,
      "bad argument #1 to 'shape' (a shape's hash (16 hexadecimal digits) expected)")
    assert.has_error(function() log:records(5) end, "bad argument #1 to 'records' (table or nil expected, got number)")
  end)
end)
