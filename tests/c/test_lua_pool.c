/* SPDX-License-Identifier: MIT */
/* test_lua_pool.c: a C host's world thought by a pool of Lua states (bt_lua_pool, bt_lua.h):
 * the same world frame by frame whatever the number of states and threads, the executor, agents
 * placed, removed and moved between states, for brains of one shared definition and for brains
 * that build their trees per entity as Don't Starve's do; events between states with plain data, refused
 * otherwise; events from other threads while frames run; hot reload in all states or none. */
#include "sys.h" /* first: the temporary folder, host threads, standard error made a file */

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"
#include "check.h"

#define NAGENTS 60
#define TICKS 120

static char dir[200];

/* The world: each agent's value as the last frame left it (cur, which leaves read) and as this
 * frame makes it (next, which only the agent's own leaves and events write). */
static unsigned long long cur[NAGENTS + 1], next_[NAGENTS + 1];

static void mix(int id, long long v) { next_[id] = next_[id] * 1000003ULL + (unsigned long long)v; }

static int agent_arg(lua_State *L, int idx) {
  lua_Integer id = luaL_checkinteger(L, idx);
  luaL_argcheck(L, id >= 1 && id <= NAGENTS, idx, "no such agent");
  return (int)id;
}

static int w_get(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)(cur[agent_arg(L, 1)] % 1000));
  return 1;
}

static int w_mix(lua_State *L) {
  mix(agent_arg(L, 1), luaL_checkinteger(L, 2));
  return 0;
}

/* Writes the brain file whole (a temporary file renamed), so that a reload never reads half of it. */
static void write_brain(const char *step, const char *extra) {
  char path[256], tmp[264];
  snprintf(path, sizeof path, "%s/poolbrain.lua", dir);
  snprintf(tmp, sizeof tmp, "%s.new", path);
  FILE *f = fopen(tmp, "w");
  fprintf(f,
          "local bt = require 'bt'\n"
          "local B = bt.SharedBrain(function()\n"
          "  %s\n"
          "  return bt.PriorityNode({\n"
          "    bt.RandomNode({\n"
          "      bt.ActionNode(function(inst) world.mix(inst.id, %s) end, 'Step'),\n"
          "      bt.ActionNode(function(inst) world.mix(inst.id, math.random(1000)) end, 'Dice'),\n"
          "      bt.ActionNode(function(inst)\n"
          "        bt.pool.send(inst.id %% NAGENTS + 1, 'poke', {n = world.get(inst.id), tag = 'p'}, inst.id)\n"
          "        bt.pool.send((inst.id * 7) %% NAGENTS + 1, 'poke', {n = 3, list = {1, 2.5, true}}, inst.id)\n"
          "      end, 'Poke'),\n"
          "    }),\n"
          "  }, 0.4, true)\n"
          "end)\n"
          "B.STEP = %s\n"
          "return B\n",
          extra, step, step);
  fclose(f);
  sys_rename(tmp, path);
}

/* Writes text to the file name in dir, whose path goes to path (size bytes). */
static void write_file(const char *name, const char *text, char *path, size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* The brain of Don't Starve's kind: a Brain whose OnStart builds the entity's own tree, a root
 * Priority and a nested one that scatter their first evaluation (drawn from the tree's stream, as
 * bt.seed_trees asks, whichever state builds it) and a RandomNode. */
static void write_ds_brain(void) {
  char path[256];
  write_file("dsbrain.lua",
             "local bt = require 'bt'\n"
             "local DSBrain = bt.Class(bt.Brain, function(self, inst) bt.Brain._ctor(self, inst) end)\n"
             "function DSBrain:OnStart()\n"
             "  self.bt = bt.BT(self.inst, bt.PriorityNode({\n"
             "    bt.PriorityNode({\n"
             "      bt.IfNode(function(inst) return world.get(inst.id) % 4 == 0 end, 'Lucky',\n"
             "        bt.ActionNode(function(inst) world.mix(inst.id, 5) end, 'Treat')),\n"
             "    }, 0.3),\n"
             "    bt.RandomNode({\n"
             "      bt.ActionNode(function(inst) world.mix(inst.id, 7) end, 'Step'),\n"
             "      bt.ActionNode(function(inst) world.mix(inst.id, math.random(1000)) end, 'Dice'),\n"
             "      bt.ActionNode(function(inst)\n"
             "        bt.pool.send(inst.id % NAGENTS + 1, 'poke', {n = world.get(inst.id)}, inst.id)\n"
             "      end, 'Poke'),\n"
             "    }),\n"
             "  }, 0.5))\n"
             "end\n"
             "return DSBrain\n",
             path, sizeof path);
}

/* Each state: the world's functions, the brain (the module named by ud; NULL: poolbrain), and
 * how the pool makes and tells an agent. */
static int open_state(void *ud, lua_State *L, int state, char *err, size_t size) {
  const char *brain = ud ? ud : "poolbrain";
  static const luaL_Reg world[] = {{"get", w_get}, {"mix", w_mix}, {NULL, NULL}};
  luaL_newlib(L, world);
  lua_setglobal(L, "world");
  lua_pushinteger(L, NAGENTS);
  lua_setglobal(L, "NAGENTS");
  if (state == 0) { /* for the reload that only state 0 accepts */
    lua_pushboolean(L, 1);
    lua_setglobal(L, "ONLY_STATE_0");
  }
  char code[1024]; /* the folder in long brackets: a Windows path's backslashes are no escapes */
  snprintf(code, sizeof code,
           "package.path = [==[%s/?.lua;]==] .. package.path\n"
           "local bt = require 'bt'\n"
           "local Brain = require '%s'\n"
           "bt.pool.place = function(agent, kind) return Brain({id = agent, kind = kind}) end\n"
           "bt.pool.event = function(agent, event, data, from)\n"
           "  local v = type(data) == 'table' and (data.n or 0) or #tostring(data)\n"
           "  world.mix(agent, 1000 + v * 100 + from + math.random(7))\n"
           "  if event == 'host' then\n" /* the agent starts again, with a new brain, at the frame's end */
           "    bt.pool.remove_later(agent); bt.pool.place_later(agent, 'wolf')\n"
           "  end\n"
           "end\n",
           dir, brain);
  if (luaL_dostring(L, code) != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return BT_EINVAL;
  }
  return BT_OK;
}

/* An executor of the host's: the jobs last to first, on the calling thread. */
static int backwards(void *data, int count, bt_job_fn fn, void *job) {
  (void)data;
  for (int i = count - 1; i >= 0; i--) fn(job, i);
  return BT_OK;
}

static unsigned long long digest(void) {
  unsigned long long h = 1469598103934665603ULL;
  for (int i = 1; i <= NAGENTS; i++) h = (h ^ cur[i]) * 1099511628211ULL;
  return h;
}

typedef struct run_opts {
  int states, threads;
  int executor; /* the host's backwards executor */
  int moves;    /* move agents between states every few ticks */
  int spread;   /* place agents in explicit states, not the least loaded */
  const char *brain; /* the brain's module: poolbrain (NULL) or dsbrain */
} run_opts;

/* Runs the world; fills out[t] with the digest after tick t. */
static void run_world(run_opts o, unsigned long long *out) {
  memset(cur, 0, sizeof cur);
  memset(next_, 0, sizeof next_);
  bt_lua_pool *pool;
  char err[256];
  int rc = bt_lua_pool_create(&pool, o.states, o.threads, open_state, (void *)o.brain, err, sizeof err);
  CHECK_INT(rc, BT_OK);
  if (rc != BT_OK) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK_INT(bt_lua_pool_states(pool), o.states);
  if (o.executor) CHECK_INT(bt_lua_pool_set_executor(pool, &(bt_executor){backwards, NULL, 3}), BT_OK);
  for (int id = 1; id <= NAGENTS; id++) {
    int state = o.spread ? (id * 5) % o.states : -1;
    int got = bt_lua_pool_place(pool, id, id % 3 ? "sheep" : "wolf", state);
    CHECK(got >= 0 && got < o.states);
    if (o.spread) CHECK_INT(got, state);
  }
  CHECK_INT(bt_lua_pool_agents(pool, -1), NAGENTS);
  if (!o.spread) /* the least loaded: as even as can be */
    for (int s = 0; s < o.states; s++) CHECK(abs(bt_lua_pool_agents(pool, s) - NAGENTS / o.states) <= 1);
  for (int tick = 1; tick <= TICKS; tick++) {
    if (tick % 9 == 0) CHECK_INT(bt_lua_pool_send(pool, tick % NAGENTS + 1, "host", "hello"), BT_OK);
    if (tick == 50) { /* an agent goes, and comes back with a new brain */
      CHECK_INT(bt_lua_pool_remove(pool, 17), BT_OK);
      CHECK_INT(bt_lua_pool_agent_state(pool, 17), BT_EINVAL);
      CHECK(bt_lua_pool_place(pool, 17, "sheep", -1) >= 0);
    }
    if (o.moves && tick % 4 == 0) {
      for (int id = tick % 5 + 1; id <= NAGENTS; id += 5) {
        int to = (bt_lua_pool_agent_state(pool, id) + 1) % o.states;
        int mrc = bt_lua_pool_move(pool, id, to);
        CHECK_INT(mrc, BT_OK);
        if (mrc != BT_OK) fprintf(stderr, "%s\n", bt_lua_pool_errmsg(pool));
        CHECK_INT(bt_lua_pool_agent_state(pool, id), to);
      }
    }
    rc = bt_lua_pool_update(pool, tick, tick / 30.0);
    CHECK_INT(rc, BT_OK);
    if (rc != BT_OK) fprintf(stderr, "%s\n", bt_lua_pool_errmsg(pool));
    memcpy(cur, next_, sizeof cur);
    out[tick] = digest();
  }
  bt_lua_pool_stats st;
  bt_lua_pool_stats_get(pool, &st);
  CHECK(st.events > 0);
  CHECK_INT(st.dropped, 0);
  CHECK_INT(st.frames, TICKS);
  bt_lua_pool_free(pool);
}

/* The world of the brains of module brain (NULL: poolbrain) on 1 state, then on more states, threads
 * and executors, with agents placed in explicit states and moved between them: the same world. */
static void check_same_world(const char *brain) {
  static unsigned long long base[TICKS + 1], other[TICKS + 1];
  run_world((run_opts){1, 1, 0, 0, 0, brain}, base);
  CHECK(base[TICKS] != base[1]); /* the world moves */
  run_opts variants[] = {
      {2, 2, 0, 0, 0, brain}, {3, 2, 0, 0, 1, brain}, {4, 0, 1, 0, 0, brain},
      {2, 2, 0, 1, 0, brain}, {3, 3, 0, 1, 1, brain},
  };
  for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
    run_world(variants[v], other);
    int first = 0;
    for (int t = 1; t <= TICKS && !first; t++)
      if (other[t] != base[t]) first = t;
    if (first)
      fprintf(stderr, "%s, variant %zu (states %d, threads %d, executor %d, moves %d): differs from tick %d\n",
              brain ? brain : "poolbrain", v, variants[v].states, variants[v].threads, variants[v].executor,
              variants[v].moves, first);
    CHECK_INT(first, 0);
  }
}

static int dostring(lua_State *L, const char *code, char *msg, size_t size) {
  int rc = luaL_dostring(L, code);
  if (rc != LUA_OK) {
    snprintf(msg, size, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  return rc;
}

static void check_errors(void) {
  bt_lua_pool *pool;
  char err[256], msg[512];
  CHECK_INT(bt_lua_pool_create(&pool, 0, 1, open_state, NULL, err, sizeof err), BT_EINVAL);
  CHECK(pool == NULL);
  CHECK_INT(bt_lua_pool_create(&pool, 2, 1, NULL, NULL, err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "open") != NULL);
  CHECK_INT(bt_lua_pool_create(&pool, 2, 2, open_state, NULL, err, sizeof err), BT_OK);
  lua_State *L = bt_lua_pool_state(pool, 1);
  CHECK(L != NULL);
  CHECK(bt_lua_pool_state(pool, 2) == NULL);
  CHECK_INT(bt_lua_pool_place(pool, 0, "sheep", -1), BT_EINVAL);
  CHECK_INT(bt_lua_pool_place(pool, 1, NULL, -1), BT_EINVAL);
  CHECK_INT(bt_lua_pool_place(pool, 1, "sheep", 2), BT_EINVAL);
  CHECK_INT(bt_lua_pool_place(pool, 1, "sheep", 1), 1);
  CHECK_INT(bt_lua_pool_place(pool, 1, "sheep", 0), BT_EINVAL);
  CHECK(strstr(bt_lua_pool_errmsg(pool), "placed already") != NULL);
  CHECK_INT(bt_lua_pool_remove(pool, 2), BT_EINVAL);
  CHECK_INT(bt_lua_pool_move(pool, 2, 0), BT_EINVAL);
  CHECK_INT(bt_lua_pool_move(pool, 1, 5), BT_EINVAL);
  CHECK_INT(bt_lua_pool_send(pool, 0, "x", NULL), BT_EINVAL);
  CHECK_INT(bt_lua_pool_send(pool, 1, NULL, NULL), BT_EINVAL);
  /* a place function that fails: the agent is not placed */
  CHECK_INT(dostring(L, "local bt = require 'bt'; old_place = bt.pool.place; "
                        "bt.pool.place = function() return 42 end", msg, sizeof msg), LUA_OK);
  CHECK_INT(bt_lua_pool_place(pool, 2, "sheep", 1), BT_EINVAL);
  CHECK(strstr(bt_lua_pool_errmsg(pool), "returned a number") != NULL);
  CHECK_INT(bt_lua_pool_agent_state(pool, 2), BT_EINVAL);
  CHECK_INT(bt_lua_pool_agents(pool, 1), 1);
  CHECK_INT(dostring(L, "require('bt').pool.place = old_place", msg, sizeof msg), LUA_OK);
  /* the state's Lua side */
  CHECK_INT(dostring(L, "local bt = require 'bt'; assert(bt.pool.state() == 1 and bt.pool.states() == 2); "
                        "assert(bt.pool.brain(1) and bt.pool.agent(bt.pool.brain(1).inst) == 1); "
                        "assert(#bt.pool.agents() == 1)", msg, sizeof msg), LUA_OK);
  /* events carry plain data only */
  CHECK(dostring(L, "require('bt').pool.send(1, 'x', {f = print})", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "data.f is a function") != NULL);
  CHECK(dostring(L, "local t = {}; t.me = t; require('bt').pool.send(1, 'x', t)", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "contains itself") != NULL);
  CHECK(dostring(L, "require('bt').pool.send(1, 'x', {[{}] = 1})", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "key that is a table") != NULL);
  CHECK(dostring(L, "require('bt').pool.send(1, 'x', io.stdout)", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "data is a userdata") != NULL);
  CHECK(dostring(L, "require('bt').pool.send('one', 'x')", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "integer agent id expected") != NULL);
  CHECK(dostring(L, "require('bt').pool.send(1, 42)", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "string (the event's name) expected, got number") != NULL);
  CHECK(dostring(L, "require('bt').pool.place_later(0, 'x')", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "place_later") != NULL);
  CHECK(dostring(L, "require('bt').pool.place_later(5, 'x', 9)", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "no such state") != NULL);
  CHECK(dostring(L, "require('bt').pool.remove_later('x')", msg, sizeof msg) != LUA_OK);
  /* plain data arrives whole, in another state; an event to no one is dropped */
  CHECK_INT(bt_lua_pool_place(pool, 2, "sheep", 0), 0);
  CHECK_INT(dostring(bt_lua_pool_state(pool, 0), "local bt = require 'bt'; bt.pool.event = function(a, e, d, f) "
                     "got = {a, e, d, f} end", msg, sizeof msg), LUA_OK);
  CHECK_INT(dostring(L, "require('bt').pool.send(2, 'gift', {s = 'a\\0b', i = 1 << 40, f = 0.25, b = false, "
                        "t = {1, 2, {x = 'y'}}}, 1); require('bt').pool.send(99, 'lost')", msg, sizeof msg), LUA_OK);
  CHECK_INT(bt_lua_pool_update(pool, 1, 1 / 30.0), BT_OK);
  CHECK_INT(dostring(bt_lua_pool_state(pool, 0),
                     "assert(got[1] == 2 and got[2] == 'gift' and got[4] == 1, 'who'); local d = got[3]; "
                     "assert(d.s == 'a\\0b' and d.i == 1 << 40 and math.type(d.i) == 'integer' and d.f == 0.25 "
                     "and d.b == false and d.t[3].x == 'y' and #d.t == 3, 'data')", msg, sizeof msg), LUA_OK);
  bt_lua_pool_stats st;
  bt_lua_pool_stats_get(pool, &st);
  CHECK_INT(st.dropped, 1);
  /* a state that is not in a pool says so */
  lua_State *plain = luaL_newstate();
  luaL_openlibs(plain);
  luaL_requiref(plain, "bt", luaopen_bt, 0);
  CHECK(dostring(plain, "require('bt').pool.send(1, 'x')", msg, sizeof msg) != LUA_OK);
  CHECK(strstr(msg, "not in a pool") != NULL);
  lua_close(plain);
  /* an error in a state's frame is reported, and the other state still thinks */
  CHECK_INT(dostring(L, "local bt = require 'bt'; bt.pool.event = function() error('handler broke') end; "
                        "bt.pool.send(1, 'x')", msg, sizeof msg), LUA_OK);
  CHECK_INT(bt_lua_pool_update(pool, 2, 2 / 30.0), BT_EINVAL);
  CHECK(strstr(bt_lua_pool_errmsg(pool), "state 1") != NULL && strstr(bt_lua_pool_errmsg(pool), "handler broke") != NULL);
  /* a move whose restore fails leaves the agent where it was */
  CHECK_INT(dostring(bt_lua_pool_state(pool, 0), "require('bt').pool.place = function() return nil end", msg,
                     sizeof msg), LUA_OK);
  CHECK_INT(bt_lua_pool_move(pool, 1, 0), BT_EINVAL);
  CHECK_INT(bt_lua_pool_agent_state(pool, 1), 1);
  CHECK_INT(dostring(L, "assert(require('bt').pool.brain(1))", msg, sizeof msg), LUA_OK);
  CHECK_INT(bt_lua_pool_agents(pool, 0), 1);
  bt_lua_pool_free(pool);
  bt_lua_pool_free(NULL);
}

/* A thread of the host's sends events while frames run: every one arrives, each sender's in order. */
typedef struct sender {
  bt_lua_pool *pool;
  int n, targets;
  int changes; /* also places and removes agents 9 to 12 */
} sender;

static void *send_many(void *arg) {
  sender *s = arg;
  char data[32];
  for (int i = 0; i < s->n; i++) {
    if (s->changes && i % 100 == 0) { /* agents 9 to 12 come and go, asked from this thread */
      int r = i / 100, id = 9 + r % 4;
      if ((r / 4) % 2 == 0) bt_lua_pool_place_later(s->pool, id, "idle", -1);
      else bt_lua_pool_remove_later(s->pool, id);
    }
    snprintf(data, sizeof data, "%d", i);
    bt_lua_pool_send(s->pool, i % s->targets + 1, "count", data);
    if (i % 50 == 0) sys_sleep(20e-6); /* spread over the frames */
  }
  return NULL;
}

static int open_counter(void *ud, lua_State *L, int state, char *err, size_t size) {
  (void)ud;
  (void)state;
  if (luaL_dostring(L, "local bt = require 'bt'\n"
                       "local Brain = bt.SharedBrain(bt.ActionNode(function() end, 'Idle'))\n"
                       "bt.pool.place = function(agent) return Brain({id = agent}) end\n"
                       "last, count, bad = {}, 0, 0\n"
                       "bt.pool.event = function(agent, event, data)\n"
                       "  local i = tonumber(data)\n"
                       "  if last[agent] and i <= last[agent] then bad = bad + 1 end\n"
                       "  last[agent] = i; count = count + 1\n"
                       "end\n") != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return BT_EINVAL;
  }
  return BT_OK;
}

static long long lua_global_int(lua_State *L, const char *name) {
  lua_getglobal(L, name);
  long long v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

static void check_other_threads(void) {
  bt_lua_pool *pool;
  char err[256];
  CHECK_INT(bt_lua_pool_create(&pool, 2, 2, open_counter, NULL, err, sizeof err), BT_OK);
  for (int id = 1; id <= 4; id++) CHECK(bt_lua_pool_place(pool, id, "idle", -1) >= 0);
  /* agents 1 to 4 stay; 5 to 8 come and go every frame while the events come */
  sender s = {pool, 20000, 8, 1};
  CHECK_INT(bt_lua_pool_place_later(pool, 0, "idle", -1), BT_EINVAL);
  CHECK_INT(bt_lua_pool_place_later(pool, 1, NULL, -1), BT_EINVAL);
  CHECK_INT(bt_lua_pool_place_later(pool, 1, "idle", 2), BT_EINVAL);
  CHECK_INT(bt_lua_pool_remove_later(pool, 0), BT_EINVAL);
  sys_thread th;
  CHECK_INT(sys_thread_start(&th, send_many, &s), 0);
  int moves = 0;
  for (int tick = 1; tick <= 400; tick++) {
    CHECK_INT(bt_lua_pool_update(pool, tick, tick / 30.0), BT_OK);
    if (tick % 10 == 0) {
      CHECK_INT(bt_lua_pool_move(pool, tick % 4 + 1, (bt_lua_pool_agent_state(pool, tick % 4 + 1) + 1) % 2), BT_OK);
      moves++;
    }
    int id = 5 + tick % 4;
    if (bt_lua_pool_agent_state(pool, id) >= 0) CHECK_INT(bt_lua_pool_remove(pool, id), BT_OK);
    else CHECK(bt_lua_pool_place(pool, id, "idle", -1) >= 0);
  }
  sys_thread_join(&th);
  CHECK_INT(bt_lua_pool_update(pool, 401, 401 / 30.0), BT_OK);
  long long count = 0;
  for (int i = 0; i < 2; i++) count += lua_global_int(bt_lua_pool_state(pool, i), "count");
  /* nothing is lost: every event was delivered, or dropped for an agent not placed then */
  bt_lua_pool_stats st;
  bt_lua_pool_stats_get(pool, &st);
  CHECK_INT(count + st.dropped, s.n);
  CHECK_INT(st.events, count);
  /* 200 changes asked from the other thread, each agent's in order: place, remove, place, ... */
  CHECK_INT(st.rejected, 0);
  for (int id = 9; id <= 12; id++) CHECK_INT(bt_lua_pool_agent_state(pool, id), BT_EINVAL);
  CHECK_INT(bt_lua_pool_agents(pool, 0) + bt_lua_pool_agents(pool, 1), bt_lua_pool_agents(pool, -1));
  /* a refused change is counted and said, and the frame goes on */
  CHECK_INT(bt_lua_pool_remove_later(pool, 12), BT_OK);
  CHECK_INT(bt_lua_pool_update(pool, 402, 402 / 30.0), BT_OK);
  bt_lua_pool_stats_get(pool, &st);
  CHECK_INT(st.rejected, 1);
  CHECK(strstr(bt_lua_pool_errmsg(pool), "agent 12 is not placed") != NULL);
  CHECK(count >= s.n / 2); /* agents 1 to 4 are always there */
  CHECK(moves > 0);
  bt_lua_pool_free(pool);
}

static long long step_in(bt_lua_pool *pool, int state) {
  lua_State *L = bt_lua_pool_state(pool, state);
  if (luaL_dostring(L, "return require('poolbrain').STEP") != LUA_OK) return -1;
  long long v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

static int reports, oks;
static char last_message[600];

static void on_report(void *ud, const char *module, int ok, const char *message) {
  (void)ud;
  (void)module;
  reports++;
  oks += ok != 0;
  snprintf(last_message, sizeof last_message, "%s", message);
}

typedef struct reloader {
  bt_lua_pool *pool;
  atomic_int done;
} reloader;

/* Saves ten edits, asking for a reload after each. */
static void *reload_many(void *arg) {
  reloader *r = arg;
  for (int k = 1; k <= 10; k++) {
    char step[16];
    snprintf(step, sizeof step, "%d", 100 + k);
    write_brain(step, "");
    bt_lua_pool_reload_later(r->pool, "poolbrain");
    sys_sleep(500e-6);
  }
  atomic_store(&r->done, 1);
  return NULL;
}

static void check_reload(void) {
  write_brain("1", "");
  bt_lua_pool *pool;
  char err[512];
  CHECK_INT(bt_lua_pool_create(&pool, 3, 2, open_state, NULL, err, sizeof err), BT_OK);
  for (int id = 1; id <= 9; id++) CHECK(bt_lua_pool_place(pool, id, "sheep", -1) >= 0);
  for (int tick = 1; tick <= 10; tick++) CHECK_INT(bt_lua_pool_update(pool, tick, tick / 30.0), BT_OK);
  /* accepted by every state: applied in every state */
  write_brain("2", "");
  CHECK_INT(bt_lua_pool_reload(pool, "poolbrain", err, sizeof err), BT_OK);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 2);
  /* refused by states 1 and 2 only: applied in none */
  write_brain("3", "if not ONLY_STATE_0 then error('this state refuses') end");
  CHECK_INT(bt_lua_pool_reload(pool, "poolbrain", err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "state 1") != NULL && strstr(err, "this state refuses") != NULL);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 2);
  /* a syntax error: refused by state 0, which reads the file */
  write_brain("4 +", "");
  CHECK_INT(bt_lua_pool_reload(pool, "poolbrain", err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "state 0") != NULL);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 2);
  CHECK_INT(bt_lua_pool_reload(pool, NULL, err, sizeof err), BT_EINVAL);
  /* reloads under load: events from another thread while frames run, an edit every few frames,
   * every other one refused by two states */
  sender snd = {pool, 5000, 9, 0};
  sys_thread th;
  CHECK_INT(sys_thread_start(&th, send_many, &snd), 0);
  long long applied = 2;
  for (int tick = 11; tick <= 90; tick++) {
    CHECK_INT(bt_lua_pool_update(pool, tick, tick / 30.0), BT_OK);
    if (tick % 5 == 0) {
      char step[16];
      snprintf(step, sizeof step, "%d", tick);
      int refused = tick % 10 == 0;
      write_brain(step, refused ? "if not ONLY_STATE_0 then error('refused') end" : "");
      CHECK_INT(bt_lua_pool_reload(pool, "poolbrain", err, sizeof err), refused ? BT_EINVAL : BT_OK);
      if (!refused) applied = tick;
      for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), applied);
    }
  }
  sys_thread_join(&th);
  CHECK_INT(bt_lua_pool_update(pool, 91, 91 / 30.0), BT_OK);
  bt_lua_pool_stats st;
  bt_lua_pool_stats_get(pool, &st);
  CHECK(st.events >= snd.n); /* the host's, and the agents' own */
  CHECK_INT(st.dropped, 0);

  /* reloads asked by another thread while frames run: made at the next frame's start, in order */
  reports = oks = 0;
  CHECK_INT(bt_lua_pool_reload_later(pool, NULL), BT_EINVAL);
  bt_lua_pool_set_reload_report(pool, on_report, NULL);
  reloader rl = {pool, 0};
  CHECK_INT(sys_thread_start(&th, reload_many, &rl), 0);
  int tick = 92;
  while (!atomic_load(&rl.done)) {
    CHECK_INT(bt_lua_pool_update(pool, tick, tick / 30.0), BT_OK);
    tick++;
  }
  sys_thread_join(&th);
  CHECK_INT(bt_lua_pool_update(pool, tick, tick / 30.0), BT_OK);
  CHECK_INT(reports, 10);
  CHECK_INT(oks, 10);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 110);
  bt_lua_pool_stats_get(pool, &st);
  CHECK_INT(st.reloads, 10);

  /* the files watched: an edit saved is reloaded in every state at the next poll, a refused one in none */
  CHECK_INT(bt_lua_pool_reload_watch(pool, "poll"), BT_OK);
  CHECK_INT(bt_lua_pool_reload_poll(pool, NULL, NULL), 0);
  sys_sleep(0.02); /* the modification time moves on */
  write_brain("200", "");
  reports = oks = 0;
  CHECK_INT(bt_lua_pool_reload_poll(pool, on_report, NULL), 1);
  CHECK_INT(reports, 1);
  CHECK_INT(oks, 1);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 200);
  sys_sleep(0.02);
  write_brain("300", "if not ONLY_STATE_0 then error('refused') end");
  CHECK_INT(bt_lua_pool_reload_poll(pool, on_report, NULL), 1);
  CHECK_INT(reports, 2);
  CHECK_INT(oks, 1);
  CHECK(strstr(last_message, "refused") != NULL && strstr(last_message, "state 1") != NULL);
  for (int s = 0; s < 3; s++) CHECK_INT(step_in(pool, s), 200);
  bt_lua_pool_stats_get(pool, &st);
  CHECK_INT(st.reloads_refused, 1);
  bt_lua_pool_free(pool);
}

/* The default error handler in a pool: each state writes an error once in full and counts its
 * repeats (docs/errors.md "Repeats"), on two threads at once; the counts left are written when
 * the states close. Standard error goes to a file meanwhile (no CHECK until it is back). */
static void check_grouped_errors(void) {
  char path[300];
  write_file("brokenbrain.lua",
             "local bt = require 'bt'\n"
             "FAILS = 0\n"
             "return bt.SharedBrain(function()\n"
             "  return bt.PriorityNode({\n"
             "    bt.ConditionNode(function() FAILS = FAILS + 1; error('broken-in-pool') end, 'Broken'),\n"
             "    bt.ActionNode(function(inst) world.mix(inst.id, 1) end, 'Step'),\n"
             "  }, 0.1, true)\n"
             "end)\n",
             path, sizeof path);
  char errpath[320];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  fflush(stderr);
  int saved = sys_dup(STDERR_FILENO);
  FILE *out = fopen(errpath, "w");
  sys_dup2(sys_fileno(out), STDERR_FILENO);

  bt_lua_pool *pool;
  char err[256];
  int rc_create = bt_lua_pool_create(&pool, 2, 2, open_state, "brokenbrain", err, sizeof err), rc_update = BT_OK;
  long long fails = 0;
  if (rc_create == BT_OK) {
    for (int id = 1; id <= NAGENTS; id++) bt_lua_pool_place(pool, id, "sheep", id % 2);
    for (int tick = 1; tick <= 30 && rc_update == BT_OK; tick++) rc_update = bt_lua_pool_update(pool, tick, tick / 30.0);
    for (int s = 0; s < 2; s++) {
      lua_State *L = bt_lua_pool_state(pool, s);
      lua_getglobal(L, "FAILS");
      fails += lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    bt_lua_pool_free(pool);
  }
  fflush(stderr);
  sys_dup2(saved, STDERR_FILENO);
  sys_close(saved);
  fclose(out);
  CHECK_INT(rc_create, BT_OK);
  CHECK_INT(rc_update, BT_OK);

  /* one traceback per state; the counts tell every other error */
  FILE *f = fopen(errpath, "r");
  char line[1024];
  long long full = 0, more = 0, n;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "stack traceback:", 16) == 0) full++;
    if (sscanf(line, "bt: the same error %lld more time", &n) == 1 && strstr(line, "broken-in-pool")) more += n;
  }
  fclose(f);
  CHECK(fails >= 2 * 30); /* each state's agents think at every tick or more often */
  CHECK_INT(full, 2);
  CHECK_INT(more, fails - 2);
  remove(errpath);
  remove(path);
}

int main(void) {
  CHECK(sys_temp_folder(dir, sizeof dir, "bt_pool_"));
  write_brain("1", "");
  write_ds_brain();
  check_same_world(NULL);
  check_same_world("dsbrain");
  check_errors();
  check_grouped_errors();
  check_other_threads();
  check_reload();
  char path[300];
  snprintf(path, sizeof path, "%s/poolbrain.lua", dir);
  remove(path);
  snprintf(path, sizeof path, "%s/dsbrain.lua", dir);
  remove(path);
  sys_rmdir(dir);
  return check_report("test_lua_pool");
}
