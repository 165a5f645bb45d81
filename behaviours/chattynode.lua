-- SPDX-License-Identifier: MIT
-- chattynode.lua: ChattyNode, Don't Starve's "talk while doing something" wrapper
-- (docs/behaviours.md), written anew against docs/entity.md. A wrapper with one child.
--
--   ChattyNode(inst, chatlines, child, delay, rand_delay, enter_delay, enter_delay_rand)
--
-- chatlines: a list of lines (one is picked at random each time), a single line, a function of
-- inst returning a line or nil, or {name = <one of those>, chatterparams = {...}} (Don't Starve's
-- form; the parameters are ignored). It visits its child and copies its status. While that is
-- RUNNING it says a line with inst:Say at most every delay (10) + random * rand_delay (10)
-- seconds; on entering (becoming RUNNING) the first line waits enter_delay + random *
-- enter_delay_rand seconds (both 0 by default), less one frame. It calls Sleep until its next
-- line as Don't Starve's does, which has no effect: only leaves' sleeps count.
local bt = require "bt"

local FRAMES = 1 / 30

local ChattyNode = bt.Class(bt.BehaviourNode, function(self, inst, chatlines, child, delay, rand_delay,
                                                       enter_delay, enter_delay_rand)
  bt.BehaviourNode._ctor(self, "ChattyNode", {child})
  self.inst = inst
  if type(chatlines) == "table" and chatlines.chatterparams ~= nil then
    self.chatlines = chatlines.name
  else
    self.chatlines = chatlines
  end
  self.nextchattime = 0
  self.delay = delay
  self.rand_delay = rand_delay
  self.enter_delay = enter_delay
  self.enter_delay_rand = enter_delay_rand
end)

function ChattyNode:PickLine()
  local lines = self.chatlines
  if type(lines) == "function" then
    return lines(self.inst)
  elseif type(lines) == "table" then
    if #lines == 0 then
      return nil
    end
    return lines[math.random(#lines)]
  end
  return lines
end

function ChattyNode:Visit()
  local child = self.children[1]
  child:Visit()
  local prev_status = self.status
  self.status = child.status

  if self.status == bt.RUNNING then
    local t = bt.GetTime()
    if prev_status ~= bt.RUNNING then
      local rand = self.enter_delay_rand ~= nil and math.random() * self.enter_delay_rand or 0
      self.nextchattime = t + (self.enter_delay or 0) + rand - FRAMES
    end
    if self.nextchattime == nil or t > self.nextchattime then
      local line = self:PickLine()
      if line ~= nil then
        self.inst:Say(line)
        self.lastline = line
      end
      self.nextchattime = t + (self.delay or 10) + math.random() * (self.rand_delay or 10)
    end
    self:Sleep(self.nextchattime - t)
  end
end

function ChattyNode:DBString()
  return string.format("next line in %2.2f, last %q", self.nextchattime - bt.GetTime(),
    tostring(self.lastline or ""))
end

-- Saved games (docs/lua-api.md "Saved games"): when the next line is due, as seconds from the
-- save, and the last line said.
function ChattyNode:OnSave(ctx)
  local last = self.lastline
  if type(last) ~= "string" and type(last) ~= "number" then
    last = nil -- a line that is not text (a table from chatlines(inst)) is only shown in dumps
  end
  return {next_in = self.nextchattime and self.nextchattime - ctx.now, lastline = last}
end

function ChattyNode:OnLoad(data, ctx)
  self.nextchattime = data.next_in and ctx.now + data.next_in
  self.lastline = data.lastline
end

return ChattyNode
