/* SPDX-License-Identifier: MIT */
/*
 * viewer.c: bt-arena --viewer [PORT]: the live viewer's server (libbtview, docs/viewer.md) on the
 * arena's creatures. Every brain records into a ring (bt.BrainManager:Record); at each tick's end
 * the creatures whose brain has a recorder not yet registered are registered (label "sheep 12",
 * brain its file), those gone are unregistered, positions are set, and bt_view_frame copies what
 * they recorded. A hot reload (--watch) moves a brain's recorder to its new tree: a RELOAD record,
 * which the page shows. Every state of the pool records and is looked at (a
 * creature's brain, and so its recorder, is in one state); bt_view_frame runs between frames.
 */
#define _POSIX_C_SOURCE 200809L
#include "viewer.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_lua.h"

static int record_rings_in(lua_State *L, int capacity);

/* --ring N: bt.BrainManager:Record{capacity = N} */
int arena_record_rings(arena *a, int capacity) {
  for (int i = 0; i < arena_lua_states(a); i++) /* in every state */
    if (record_rings_in(arena_lua_state(a, i, NULL), capacity) != 0) return -1;
  return 0;
}

/* bt.BrainManager:Record{capacity = N} in the state L */
static int record_rings_in(lua_State *L, int capacity) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "bt");
  int rc = lua_pcall(L, 1, 1, 0);
  if (rc == LUA_OK) {
    lua_getfield(L, -1, "BrainManager");
    lua_getfield(L, -1, "Record");
    lua_insert(L, -2);
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, capacity);
    lua_setfield(L, -2, "capacity");
    rc = lua_pcall(L, 2, 0, 0);
  }
  if (rc != LUA_OK) {
    fprintf(stderr, "bt-arena: --ring: %s\n", lua_tostring(L, -1));
    lua_settop(L, 0);
    return -1;
  }
  lua_pop(L, 1);
  return 0;
}

#ifdef BT_ARENA_VIEWER
#include "bt_view.h"

#define VIEW_HISTORY 2048        /* records the page can scrub back through, per creature, */
#define VIEW_RECORDS 2000000     /* but no more than these for all (some 32 MB: 16 bytes a record) */
#define COLLECT_EVERY 10  /* ticks between looks for new and gone brains (a third of a second) */

typedef struct registered {
  int id;
  bt_rec *rec;
} registered;

static struct {
  bt_view *view;
  int *ref_collect; /* per Lua state */
  int nstates;
  registered *agents;
  int n, cap;
  long long ticks;
} V = {NULL, NULL, 0, NULL, 0, 0, 0};

/* collect(live): the recorders of the live creatures' brains (a brain that stops, a creature asleep
 * at home, keeps its recorder and its history) not yet registered (added: {id,
 * recorder} pairs, flattened) and the registered ones gone (removed: recorders), or nil for none;
 * `known` keeps every registered recorder alive until C has unregistered it. It makes no garbage
 * when nothing changed (a think's time must not pay for the viewer's collections) and runs every
 * COLLECT_EVERY ticks */
static const char COLLECT[] =
    "local bt = ...\n"
    "local known, stamp, gen = {}, {}, 0\n"
    "return function(live, ring)\n"
    "  if ring then bt.BrainManager:Record({capacity = ring}) return end\n"
    "  gen = gen + 1\n"
    "  local added, removed\n"
    "  for id, inst in pairs(live) do\n"
    "    local brain = rawget(inst, 'brain')\n"
    "    local rec = type(brain) == 'table' and rawget(brain, 'recorder') or nil\n"
    "    if rec then\n"
    "      stamp[id] = gen\n"
    "      local old = known[id]\n"
    "      if old ~= rec then\n"
    "        added = added or {}\n"
    "        if old then removed = removed or {}; removed[#removed + 1] = old end\n"
    "        known[id] = rec\n"
    "        added[#added + 1] = id\n"
    "        added[#added + 1] = rec\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "  for id, rec in pairs(known) do\n"
    "    if stamp[id] ~= gen then\n"
    "      removed = removed or {}\n"
    "      removed[#removed + 1] = rec\n"
    "      known[id], stamp[id] = nil, nil\n"
    "    end\n"
    "  end\n"
    "  return added, removed\n"
    "end\n";

static void forget(bt_rec *rec) {
  for (int i = 0; i < V.n; i++)
    if (V.agents[i].rec == rec) {
      V.agents[i] = V.agents[--V.n];
      return;
    }
}

/* The collect function in state i (V.ref_collect[i]), and with ring every brain recording. */
static int open_state(arena *a, int i, int recording, char *err, size_t errsize) {
  lua_State *L = arena_lua_state(a, i, NULL);
  if (luaL_loadstring(L, COLLECT) != LUA_OK) {
    snprintf(err, errsize, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  lua_getglobal(L, "require");
  lua_pushliteral(L, "bt");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    snprintf(err, errsize, "%s", lua_tostring(L, -1));
    lua_pop(L, 2);
    return -1;
  }
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    snprintf(err, errsize, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  V.ref_collect[i] = luaL_ref(L, LUA_REGISTRYINDEX);
  if (!recording) { /* every brain records into a ring of its own (--record has made them already) */
    lua_rawgeti(L, LUA_REGISTRYINDEX, V.ref_collect[i]);
    lua_newtable(L);
    lua_pushinteger(L, ARENA_VIEWER_RING);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
      snprintf(err, errsize, "%s", lua_tostring(L, -1));
      lua_pop(L, 1);
      return -1;
    }
  }
  return 0;
}

int arena_viewer_open(arena *a, int port, int agents, int recording, char *err, size_t errsize) {
  int n = arena_lua_states(a);
  V.ref_collect = calloc((size_t)n, sizeof *V.ref_collect);
  if (!V.ref_collect) {
    snprintf(err, errsize, "not enough memory");
    return -1;
  }
  V.nstates = n;
  for (int i = 0; i < n; i++)
    if (open_state(a, i, recording, err, errsize) != 0) return -1;
  bt_view_options o;
  bt_view_options_init(&o);
  o.history = agents > 0 && VIEW_RECORDS / agents < VIEW_HISTORY ? VIEW_RECORDS / agents : VIEW_HISTORY;
  if (o.history < 64) o.history = 64;
  o.source = "bt-arena";
  int rc = BT_EIO;
  char why[256] = "";
  if (port >= 0) {
    o.port = port;
    rc = bt_view_create(&V.view, &o, why, sizeof why);
  } else { /* the default port, or the next free one */
    for (int p = ARENA_VIEWER_PORT; p < ARENA_VIEWER_PORT + 20 && rc == BT_EIO; p++) {
      o.port = p;
      rc = bt_view_create(&V.view, &o, why, sizeof why);
    }
  }
  if (rc != BT_OK) {
    snprintf(err, errsize, "%s", why);
    return -1;
  }
  return 0;
}

const char *arena_viewer_url(void) { return V.view ? bt_view_url(V.view) : ""; }

static void collect(arena *a, int state) {
  int ref_live;
  lua_State *L = arena_lua_state(a, state, &ref_live);
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, V.ref_collect[state]);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_live);
  if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
    lua_settop(L, top);
    return;
  }
  /* removed first: a creature whose brain restarted has a new recorder with its id */
  lua_Integer nremoved = lua_istable(L, -1) ? (lua_Integer)luaL_len(L, -1) : 0;
  for (lua_Integer i = 1; i <= nremoved; i++) {
    lua_rawgeti(L, -1, i);
    bt_rec *rec = bt_lua_torecorder(L, -1);
    if (rec && bt_view_remove_agent(V.view, rec) == BT_OK) forget(rec);
    lua_pop(L, 1);
  }
  lua_Integer nadded = lua_istable(L, -2) ? (lua_Integer)luaL_len(L, -2) : 0;
  for (lua_Integer i = 1; i + 1 <= nadded; i += 2) {
    lua_rawgeti(L, -2, i);
    int id = (int)lua_tointeger(L, -1);
    lua_rawgeti(L, -3, i + 1);
    bt_rec *rec = bt_lua_torecorder(L, -1);
    lua_pop(L, 2);
    entity *e = world_any(&a->w, id);
    if (!rec || !e || e->kind < 0 || e->kind >= a->w.nkinds) continue;
    if (V.n == V.cap) {
      int cap = V.cap ? V.cap * 2 : 256;
      registered *p = realloc(V.agents, (size_t)cap * sizeof *p);
      if (!p) continue;
      V.agents = p;
      V.cap = cap;
    }
    if (bt_view_add_agent(V.view, rec, a->w.kinds[e->kind].brain) == BT_OK)
      V.agents[V.n++] = (registered){id, rec};
  }
  lua_settop(L, top);
}

void arena_viewer_frame(arena *a) {
  if (!V.view) return;
  if (V.ticks++ % COLLECT_EVERY == 0)
    for (int i = 0; i < V.nstates; i++) collect(a, i);
  for (int i = 0; i < V.n; i++) {
    entity *e = world_any(&a->w, V.agents[i].id);
    if (e) bt_view_set_position(V.view, bt_rec_agent(V.agents[i].rec), e->x, e->y);
  }
  bt_view_frame(V.view, a->w.time);
}

void arena_viewer_close(arena *a) {
  (void)a;
  bt_view_free(V.view);
  V.view = NULL;
  free(V.ref_collect);
  V.ref_collect = NULL;
  V.nstates = 0;
  free(V.agents);
  V.agents = NULL;
  V.n = V.cap = 0;
}

#else /* built without libbtview (BT_VIEW=OFF) */

int arena_viewer_open(arena *a, int port, int agents, int recording, char *err, size_t errsize) {
  (void)a;
  (void)port;
  (void)agents;
  (void)recording;
  snprintf(err, errsize, "this bt-arena was built without the viewer (libbtview: configure with BT_VIEW=ON)");
  return -1;
}
const char *arena_viewer_url(void) { return ""; }
void arena_viewer_frame(arena *a) { (void)a; }
void arena_viewer_close(arena *a) { (void)a; }

#endif
