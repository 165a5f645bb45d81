/* SPDX-License-Identifier: MIT */
/* test_lua_running.c: bt_lua_running_entity, which a host's entity methods ask whose scripts make
 * the call: the tree's inst in a leaf, a behaviour's Visit and OnStop, a nested tree's inside it
 * and the outer one's again after; NULL outside any tree; in a pool's state, the agent's entity
 * while its event is delivered. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"
#include "check.h"

/* who(x): the name field of the entity whose scripts run now if it is x itself ("self"), or
 * "other:<name of x>" when another one runs, "none" outside any; the host's side of a method */
static int who(lua_State *L) {
  const void *running = bt_lua_running_entity(L);
  if (!running) {
    lua_pushliteral(L, "none");
  } else if (running == lua_topointer(L, 1)) {
    lua_pushliteral(L, "self");
  } else {
    lua_getfield(L, 1, "name");
    lua_pushfstring(L, "other:%s", lua_tostring(L, -1));
  }
  return 1;
}

static int run(lua_State *L, const char *code) {
  if (luaL_dostring(L, code) != LUA_OK) {
    fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* The global `seen` as a string (the calls' answers joined by spaces). */
static void check_seen(lua_State *L, const char *want) {
  lua_getglobal(L, "seen");
  const char *got = lua_tostring(L, -1);
  CHECK(got != NULL && strcmp(got, want) == 0);
  if (!got || strcmp(got, want) != 0) fprintf(stderr, "  seen: %s\n  want: %s\n", got ? got : "(nil)", want);
  lua_pop(L, 1);
}

static void one_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_pop(L, 1);
  lua_register(L, "who", who);
  CHECK(bt_lua_running_entity(L) == NULL);
  CHECK(run(L, "local bt = require 'bt'\n"
               "seen = ''\n"
               "local function note(s) seen = seen .. (seen == '' and '' or ' ') .. s end\n"
               "local a, b = {name = 'a'}, {name = 'b'}\n"
               "note(who(a))\n" /* outside any tree */
               "local Probe = bt.Class(bt.BehaviourNode, function(self, inst)\n"
               "  bt.BehaviourNode._ctor(self, 'Probe')\n"
               "  self.inst = inst\n"
               "end)\n"
               "function Probe:Visit() note('visit:' .. who(self.inst)); self.status = bt.SUCCESS end\n"
               "function Probe:OnStop() note('stop:' .. who(self.inst)) end\n"
               "local inner = bt.BT(b, bt.ActionNode(function(inst) note('inner:' .. who(inst) .. ',' .. who(a)) end, 'B'))\n"
               "local outer = bt.BT(a, bt.SequenceNode({\n"
               "  bt.ActionNode(function(inst) note('leaf:' .. who(inst) .. ',' .. who(b)) end, 'A'),\n"
               "  bt.ActionNode(function(inst) inner:Update(); note('after:' .. who(inst)) end, 'Nest'),\n"
               "  Probe(a),\n"
               "}))\n"
               "outer:Update()\n"
               "outer:Stop()\n"
               "note(who(a))\n"));
  check_seen(L, "none leaf:self,other:b inner:self,other:a after:self visit:self stop:self none");
  lua_close(L);
}

/* A pool of two states: a host's event delivered to an agent's brain, and the agent's leaf */
static int open_state(void *ud, lua_State *L, int state, char *err, size_t size) {
  (void)ud;
  (void)state;
  lua_register(L, "who", who);
  if (luaL_dostring(L, "local bt = require 'bt'\n"
                       "seen = ''\n"
                       "local function note(s) seen = seen .. (seen == '' and '' or ' ') .. s end\n"
                       "local Brain = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)\n"
                       "function Brain:OnStart()\n"
                       "  self.bt = bt.BT(self.inst, bt.ActionNode(function(inst) note('think:' .. who(inst)) end, 'Think'))\n"
                       "end\n"
                       "bt.pool.place = function(agent) return Brain({name = 'agent' .. agent}) end\n"
                       "bt.pool.event = function(agent, event)\n"
                       "  note(event .. ':' .. who(bt.pool.brain(agent).inst))\n"
                       "end\n") != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return BT_EINVAL;
  }
  return BT_OK;
}

static void pool(void) {
  bt_lua_pool *p = NULL;
  char err[256];
  CHECK_INT(bt_lua_pool_create(&p, 2, 2, open_state, NULL, err, sizeof err), BT_OK);
  if (!p) return;
  CHECK_INT(bt_lua_pool_place(p, 1, "any", 0), 0);
  CHECK_INT(bt_lua_pool_place(p, 2, "any", 1), 1);
  CHECK_INT(bt_lua_pool_send(p, 2, "hello", NULL), BT_OK);
  CHECK_INT(bt_lua_pool_update(p, 1, 0.1), BT_OK);
  check_seen(bt_lua_pool_state(p, 0), "think:self");
  check_seen(bt_lua_pool_state(p, 1), "think:self hello:self");
  CHECK(bt_lua_running_entity(bt_lua_pool_state(p, 1)) == NULL); /* between frames */
  bt_lua_pool_free(p);
}

int main(void) {
  one_state();
  pool();
  return check_report("test_lua_running");
}
