/* SPDX-License-Identifier: MIT */
/*
 * sched.c: the C scheduler (bt_sched) behind bt.BrainWrangler. A wrangler table keeps its
 * scheduler userdata in the field _sched; the userdata's user values map brain objects to
 * scheduler ids and back. Update thinks each due brain with brain:OnUpdate() and files it by
 * brain:GetSleepTime(), as Don't Starve's BrainWrangler does.
 */
#include <math.h>
#include <string.h>

#include "lbt.h"

#define SCHED_META "bt.scheduler"

/* UV_RECORD: Record's options; UV_BOARDS: brain id + 1 -> the board of its tree that the
 * scheduler binds (bind_board) */
enum { UV_IDS = 1, UV_BRAINS, UV_PENDING, UV_RECORD, UV_BOARDS, UV_COUNT = 5 };

typedef struct lbt_sched {
  bt_sched *s;
  lbt_state *S;
  int updating; /* nesting of Update */
  lua_State *L; /* during Update */
  int ud;       /* the userdata's stack index during Update */
  int brains;   /* its table UV_BRAINS's stack index during Update */
  int msgh;     /* the message handler's stack index during Update */
  const char *ready_step; /* the step of ready_check under way, which names it in an error's report */
  int record;   /* Record is on: every brain it thinks records (options: UV_RECORD) */
} lbt_sched;

/* self._sched of the wrangler at index 1, pushed at index top; checks it. */
static lbt_sched *get(lua_State *L, const char *method) {
  if (lua_type(L, 1) != LUA_TTABLE) lbt_typeerror(L, 1, 0, method, "BrainWrangler");
  lua_getfield(L, 1, "_sched");
  lbt_sched *w = luaL_testudata(L, -1, SCHED_META);
  if (!w || !w->s) lbt_typeerror(L, 1, 0, method, "BrainWrangler");
  bt_sched_set_tick_time(w->s, w->S->tick_time);
  return w;
}

/* The scheduler id of the brain at idx, or -1 (with create, a new id). */
static int brain_id(lua_State *L, lbt_sched *w, int ud, int idx, int create) {
  idx = lua_absindex(L, idx);
  lua_getiuservalue(L, ud, UV_IDS);
  lua_pushvalue(L, idx);
  if (lua_rawget(L, -2) != LUA_TNIL) {
    int id = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return id;
  }
  lua_pop(L, 2);
  if (!create) return -1;
  int id = bt_sched_brain_create(w->s);
  if (id < 0) luaL_error(L, "not enough memory");
  lua_getiuservalue(L, ud, UV_IDS);
  lua_pushvalue(L, idx);
  lua_pushinteger(L, id);
  lua_rawset(L, -3);
  lua_getiuservalue(L, ud, UV_BRAINS);
  lua_pushvalue(L, idx);
  lua_rawseti(L, -2, id + 1);
  lua_pop(L, 2);
  return id;
}

static void check_brain(lua_State *L, const char *method) {
  int t = lua_type(L, 2);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA) lbt_typeerror(L, 2, 1, method, "brain");
}

/* ---- the blackboard: a brain whose tree has one is bound to its instance, whose writes wake it ----
 * The core's scheduler gives the instance a waker (bt_sched_set_inst): a write that the tree's
 * watchers wake it for makes the brain due, as Wake does. The binding is the board's (lbt_proxy),
 * which moves with its tree when the tree is rebuilt; a brain given another tree is bound to it
 * after its next think. An instance bound no more has its waker cleared, so that a tree that
 * outlives its brain or its scheduler wakes nothing. */

/* Unbinds the board the brain id was bound through, if it still is. */
static void unbind_board(lua_State *L, lbt_sched *w, int ud, int id) {
  lua_getiuservalue(L, ud, UV_BOARDS);
  if (lua_rawgeti(L, -1, id + 1) != LUA_TNIL) {
    lbt_proxy *p = lua_touserdata(L, -1);
    if (p->sched == &w->s && p->id == id) lbt_board_unbind(L, lua_gettop(L));
    lua_pushnil(L);
    lua_rawseti(L, -3, id + 1);
  }
  lua_pop(L, 2);
}

/* Binds the brain id to the instance of the tree at tree (a brain's bt), if the tree has a board
 * and it is not bound already. */
static void bind_board(lua_State *L, lbt_sched *w, int ud, int id, int tree) {
  lbt_tree *t = lbt_tree_test(L, tree);
  if (!t || !t->board || t->collected || !w->s) return;
  lbt_tree_table(L, tree, LBT_UV_OBJS, 0);
  lua_rawgeti(L, -1, 0);
  lbt_proxy *p = lua_touserdata(L, -1);
  bt_inst *in = lbt_tree_inst(t);
  if (!p || (p->sched == &w->s && p->id == id && p->bound == in)) {
    lua_pop(L, 2);
    return;
  }
  int proxy = lua_gettop(L);
  unbind_board(L, w, ud, id); /* the brain's former tree */
  if (p->sched) lbt_board_unbind(L, proxy); /* bound elsewhere before */
  if (bt_sched_set_inst(w->s, id, in) == BT_OK) {
    p->sched = &w->s;
    p->id = id;
    p->bound = in;
    lua_pushvalue(L, ud);
    lua_setiuservalue(L, proxy, LBT_PROXY_UV_SCHED); /* w->s stays readable while p points to it */
    lua_getiuservalue(L, ud, UV_BOARDS);
    lua_pushvalue(L, proxy);
    lua_rawseti(L, -2, id + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
}

/* Forgets the brain's id: now, or after the Update under way (a brain removed during a tick
 * still thinks in that tick if it was due, as in Don't Starve). */
static void forget(lua_State *L, lbt_sched *w, int ud, int id) {
  if (w->updating) {
    lua_getiuservalue(L, ud, UV_PENDING);
    lua_pushinteger(L, id);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
    return;
  }
  lua_getiuservalue(L, ud, UV_BRAINS);
  lua_rawgeti(L, -1, id + 1);
  lua_getiuservalue(L, ud, UV_IDS);
  lua_pushvalue(L, -2);
  lua_pushnil(L);
  lua_rawset(L, -3);
  lua_pop(L, 2);
  lua_pushnil(L);
  lua_rawseti(L, -2, id + 1);
  lua_pop(L, 1);
  unbind_board(L, w, ud, id);
  bt_sched_brain_free(w->s, id);
}

static int wrangler_add(lua_State *L) {
  lbt_sched *w = get(L, "AddInstance");
  int ud = lua_gettop(L);
  check_brain(L, "AddInstance");
  int id = brain_id(L, w, ud, 2, 1);
  if (bt_sched_add(w->s, id) != BT_OK) return luaL_error(L, "not enough memory");
  if (w->record) { /* Record is on: the brain records too */
    lua_getiuservalue(L, ud, UV_RECORD);
    lbt_recorder_follow(L, 2, -1);
  }
  return 0;
}

static int wrangler_remove(lua_State *L) {
  lbt_sched *w = get(L, "RemoveInstance");
  int ud = lua_gettop(L);
  check_brain(L, "RemoveInstance");
  int id = brain_id(L, w, ud, 2, 0);
  if (id < 0) return 0;
  bt_sched_remove(w->s, id);
  forget(L, w, ud, id);
  return 0;
}

/* Wake, Hibernate, Sleep act on registered brains only. */
static int wrangler_wake(lua_State *L) {
  lbt_sched *w = get(L, "Wake");
  int id = brain_id(L, w, lua_gettop(L), 2, 0);
  if (id >= 0) bt_sched_wake(w->s, id);
  return 0;
}

static int wrangler_hibernate(lua_State *L) {
  lbt_sched *w = get(L, "Hibernate");
  int id = brain_id(L, w, lua_gettop(L), 2, 0);
  if (id >= 0) bt_sched_hibernate(w->s, id);
  return 0;
}

static int wrangler_sleep(lua_State *L) {
  lbt_sched *w = get(L, "Sleep");
  int ud = lua_gettop(L);
  double t = lbt_checknumber(L, 3, 2, "Sleep");
  int id = brain_id(L, w, ud, 2, 0);
  if (id >= 0 && bt_sched_sleep(w->s, id, t) != BT_OK) return luaL_error(L, "not enough memory");
  return 0;
}

/* ---- Update ---- */

static int push_brain(lbt_sched *w, int id) {
  lua_State *L = w->L;
  lua_rawgeti(L, w->brains, id + 1);
  return lua_gettop(L);
}

/* The lookups below run scripts' __index (an entity may be a host's userdata), which may raise in
 * the middle of bt_sched_update: they run protected, so that an error is reported and cannot
 * unwind the core's frames. */

/* obj:method() for obj and the method's name at 1 and 2: the lookup and the call */
static int method_call(lua_State *L) {
  lua_pushvalue(L, 2);
  lua_gettable(L, 1);
  lua_pushvalue(L, 1);
  lua_call(L, 1, LUA_MULTRET);
  return lua_gettop(L) - 2;
}

/* Calls obj:method() protected; leaves nres results, or returns non-zero having reported. */
static int call_method(lbt_sched *w, int obj, int method, int nres) {
  lua_State *L = w->L;
  obj = lua_absindex(L, obj);
  lua_pushcfunction(L, method_call);
  lua_pushvalue(L, obj);
  lbt_push_key(L, w->S, method);
  return lbt_pcall(w->S, L, 2, nres, w->msgh, NULL, -1, lbt_key_name(method));
}

/* The steps of ready_check, by the names its errors are reported with. */
enum { READY_LOOKUPS, READY_IS_VALID, READY_IS_ASLEEP };
static const char *const ready_steps[] = {"brain.inst", "IsValid", "IsAsleep"};

/* (w, brain, first step): whether the brain may think, inst.entity:IsValid() and not
 * inst:IsAsleep() where inst and inst.entity (tables or userdata) have them. w->ready_step tells
 * the step an error came from (the lookups until a call begins: ready_call sets it so). */
static int ready_check(lua_State *L) {
  lbt_sched *w = lua_touserdata(L, 1);
  int first = (int)lua_tointeger(L, 3);
  lua_settop(L, 2);
  lbt_push_key(L, w->S, LBT_KEY_INST);
  lua_gettable(L, 2); /* 3: inst */
  int t = lua_type(L, 3);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lbt_push_key(L, w->S, LBT_KEY_ENTITY);
  lua_gettable(L, 3); /* 4: inst.entity */
  t = lua_type(L, 4);
  if (t == LUA_TTABLE || t == LUA_TUSERDATA) {
    lbt_push_key(L, w->S, LBT_KEY_IS_VALID);
    lua_gettable(L, 4);
  } else {
    lua_pushnil(L);
  } /* 5: its IsValid */
  lbt_push_key(L, w->S, LBT_KEY_IS_ASLEEP);
  lua_gettable(L, 3); /* 6: inst.IsAsleep */
  if (first <= READY_IS_VALID && !lua_isnil(L, 5)) {
    w->ready_step = ready_steps[READY_IS_VALID];
    lua_pushvalue(L, 5);
    lua_pushvalue(L, 4);
    lua_call(L, 1, 1);
    if (!lua_toboolean(L, -1)) return 1;
  }
  if (!lua_isnil(L, 6)) {
    w->ready_step = ready_steps[READY_IS_ASLEEP];
    lua_pushvalue(L, 6);
    lua_pushvalue(L, 3);
    lua_call(L, 1, 1);
    lua_pushboolean(L, !lua_toboolean(L, -1));
    return 1;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Runs ready_check from step first, protected; sets *ready if it returned. */
static int ready_call(lbt_sched *w, int id, int first, int *ready) {
  lua_State *L = w->L;
  int top = lua_gettop(L);
  lua_pushcfunction(L, ready_check);
  lua_pushlightuserdata(L, w);
  push_brain(w, id);
  lua_pushinteger(L, first);
  w->ready_step = ready_steps[READY_LOOKUPS];
  int rc = lbt_pcall_named(w->S, L, 3, 1, w->msgh, NULL, -1, &w->ready_step);
  if (rc == LUA_OK) *ready = lua_toboolean(L, -1);
  lua_settop(L, top);
  return rc;
}

/* inst.entity:IsValid() and not inst:IsAsleep(), where inst has them. An error in a lookup or in
 * IsAsleep leaves the brain ready; one in IsValid leaves IsAsleep to say. */
static int hook_ready(void *ud, int id) {
  lbt_sched *w = ud;
  int ready = 1;
  if (ready_call(w, id, READY_LOOKUPS, &ready) != LUA_OK && w->ready_step == ready_steps[READY_IS_VALID])
    ready_call(w, id, READY_IS_ASLEEP, &ready);
  return ready;
}

/* Pushes brain[key] for the brain at 1. */
static void get_key(lua_State *L, const lbt_state *S, int key) {
  lbt_push_key(L, S, key);
  lua_gettable(L, 1);
}

/* (brain, scheduler userdata, id): for a brain whose methods OnUpdate and GetSleepTime are
 * Brain's own and that has no DoUpdate, what those methods do, its tree's Update and
 * GetSleepTime, without calling them, and then its tree's binding (bind_board). Returns true and
 * the sleep time (or nil), or false, having done nothing, if the brain or its tree has methods of
 * a script's. */
static int think_own(lua_State *L) {
  lbt_sched *w = lua_touserdata(L, 2);
  int id = (int)lua_tointeger(L, 3);
  const lbt_state *S = w->S;
  lua_settop(L, 2);
  get_key(L, S, LBT_KEY_ON_UPDATE);
  get_key(L, S, LBT_SLEEP_TIME);
  get_key(L, S, LBT_KEY_DO_UPDATE);
  if (lua_topointer(L, 3) != S->brain_update || lua_topointer(L, 4) != S->brain_sleep_time ||
      !lua_isnil(L, 5)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  lua_settop(L, 2);
  get_key(L, S, LBT_KEY_BT); /* 3: its tree */
  const lbt_tree *t = lbt_tree_raw(L, 3);
  int board = t && t->board; /* (a tree rebuilt in the think has its board too) */
  double sleep;
  int has = lbt_tree_think_own(L, 3, 1, &sleep);
  if (has == LBT_NOT_OWN) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (has == LBT_SLEEP_UNKNOWN) { /* the brain may have another tree now (a reload during the think) */
    lua_settop(L, 2);
    get_key(L, S, LBT_KEY_BT);
    has = lbt_tree_sleep_own(L, 3, &sleep);
    board = 1; /* (which may have a board) */
  }
  lua_settop(L, 3);
  if (has == LBT_SLEEP_UNKNOWN) { /* Brain's GetSleepTime: self.bt:GetSleepTime() if self.bt, else 0 */
    if (!lua_toboolean(L, 3)) {
      lua_pushinteger(L, 0);
    } else {
      lbt_push_key(L, S, LBT_SLEEP_TIME);
      lua_gettable(L, 3);
      lua_pushvalue(L, 3);
      lua_call(L, 1, 1);
    }
  } else if (has) {
    lua_pushnumber(L, sleep);
  } else {
    lua_pushnil(L);
  }
  if (board) { /* the tree the brain has now */
    get_key(L, S, LBT_KEY_BT);
    bind_board(L, w, 2, id, lua_gettop(L));
    lua_pop(L, 1);
  }
  lua_pushboolean(L, 1);
  lua_insert(L, -2);
  return 2;
}

/* brain:OnUpdate(), then brain:GetSleepTime() */
static int hook_think(void *ud, int id, double *sleep) {
  lbt_sched *w = ud;
  lua_State *L = w->L;
  int top = lua_gettop(L);
  lua_pushcfunction(L, think_own);
  int brain = push_brain(w, id);
  int has = 0;
  if (lua_isnil(L, brain)) {
    lua_settop(L, top);
    return 0;
  }
  lua_pushvalue(L, w->ud);
  lua_pushinteger(L, id);
  if (lbt_pcall(w->S, L, 3, 2, w->msgh, NULL, -1, "OnUpdate") != LUA_OK) { /* a lookup raised: reported */
    lua_settop(L, top);
    return 0;
  }
  if (lua_toboolean(L, -2)) {
    has = lua_type(L, -1) == LUA_TNUMBER;
    if (has) *sleep = lua_tonumber(L, -1);
  } else {
    lua_settop(L, top);
    brain = push_brain(w, id);
    call_method(w, brain, LBT_KEY_ON_UPDATE, 0);
    if (call_method(w, brain, LBT_SLEEP_TIME, 1) == LUA_OK && lua_type(L, -1) == LUA_TNUMBER) {
      *sleep = lua_tonumber(L, -1);
      has = 1;
    }
    if (lua_type(L, brain) == LUA_TTABLE) { /* the tree the brain has now, read raw */
      lbt_push_key(L, w->S, LBT_KEY_BT);
      if (lua_rawget(L, brain) == LUA_TUSERDATA) bind_board(L, w, w->ud, id, lua_gettop(L));
    }
  }
  lua_settop(L, top);
  return has;
}

static int wrangler_update(lua_State *L) {
  lbt_sched *w = get(L, "Update");
  int ud = lua_gettop(L);
  if (lua_type(L, 2) == LUA_TNUMBER && !lua_isinteger(L, 2))
    return lbt_argerror(L, 1, "Update", "integer tick expected, got a fraction");
  if (!lua_isinteger(L, 2)) return lbt_typeerror(L, 2, 1, "Update", "integer tick");
  lua_Integer tick = lua_tointeger(L, 2);
  lua_State *saved_L = w->L;
  int saved_ud = w->ud, saved_brains = w->brains, saved_msgh = w->msgh;
  w->L = L;
  w->ud = ud;
  lua_getiuservalue(L, ud, UV_BRAINS);
  w->brains = lua_gettop(L);
  lua_pushcfunction(L, lbt_message_handler);
  w->msgh = lua_gettop(L);
  w->updating++;
  bt_sched_hooks hooks = {hook_ready, hook_think, w};
  int rc = bt_sched_update(w->s, tick, &hooks);
  w->updating--;
  lua_settop(L, ud);
  w->L = saved_L;
  w->ud = saved_ud;
  w->brains = saved_brains;
  w->msgh = saved_msgh;
  if (!w->updating) {
    lua_getiuservalue(L, ud, UV_PENDING);
    int pending = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, pending);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, pending, i);
      int id = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
      long long wake;
      if (bt_sched_list(w->s, id, &wake) == BT_SCHED_NONE) forget(L, w, ud, id);
    }
    lua_newtable(L);
    lua_setiuservalue(L, ud, UV_PENDING);
    if (w->record) { /* the frame's end: the log given to Record is written (its error is kept) */
      lua_getiuservalue(L, ud, UV_RECORD);
      lua_getfield(L, -1, "log");
      bt_log *log = lbt_log_writer_test(L, -1);
      if (log) bt_log_flush(log);
      lua_pop(L, 2);
    }
  }
  if (rc != BT_OK) return luaL_error(L, "not enough memory");
  return 0;
}

/* wrangler:GetList(brain): "updating", "waiting" (and its tick), "hibernating", or nil */
static int wrangler_get_list(lua_State *L) {
  lbt_sched *w = get(L, "GetList");
  int id = brain_id(L, w, lua_gettop(L), 2, 0);
  long long wake = 0;
  int list = id >= 0 ? bt_sched_list(w->s, id, &wake) : BT_SCHED_NONE;
  switch (list) {
    case BT_SCHED_UPDATING: lua_pushliteral(L, "updating"); return 1;
    case BT_SCHED_WAITING:
      lua_pushliteral(L, "waiting");
      lua_pushinteger(L, wake);
      return 2;
    case BT_SCHED_HIBERNATING: lua_pushliteral(L, "hibernating"); return 1;
    default: lua_pushnil(L); return 1;
  }
}

static int wrangler_stats(lua_State *L) {
  lbt_sched *w = get(L, "GetStats");
  bt_sched_stats st;
  bt_sched_stats_get(w->s, &st);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, st.thinks);
  lua_setfield(L, -2, "thinks");
  lua_pushinteger(L, st.registered);
  lua_setfield(L, -2, "registered");
  lua_pushinteger(L, st.updating);
  lua_setfield(L, -2, "updating");
  lua_pushinteger(L, st.waiting);
  lua_setfield(L, -2, "waiting");
  lua_pushinteger(L, st.hibernating);
  lua_setfield(L, -2, "hibernating");
  lua_pushinteger(L, bt_sched_tick(w->s));
  lua_setfield(L, -2, "tick");
  return 1;
}

/* wrangler:SetPeriod(brain, seconds): the fixed-rate policy's bound for this brain */
static int wrangler_set_period(lua_State *L) {
  lbt_sched *w = get(L, "SetPeriod");
  int ud = lua_gettop(L);
  check_brain(L, "SetPeriod");
  double p = lbt_checknumber(L, 3, 2, "SetPeriod");
  if (!(p >= 0)) return lbt_argerror(L, 2, "SetPeriod", "non-negative number expected");
  bt_sched_set_period(w->s, brain_id(L, w, ud, 2, 1), p);
  return 0;
}

static int sched_gc(lua_State *L) {
  lbt_sched *w = luaL_testudata(L, 1, SCHED_META); /* a script may call it by hand, with anything */
  if (!w || !w->s) return 0;
  lua_getiuservalue(L, 1, UV_BOARDS); /* their instances' wakers are the scheduler's */
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    lbt_proxy *p = lua_touserdata(L, -1);
    if (p && p->sched == &w->s) lbt_board_unbind(L, lua_gettop(L));
    lua_pop(L, 1);
  }
  bt_sched_free(w->s);
  w->s = NULL;
  return 0;
}

/* shared.scheduler(policy): a new scheduler userdata ("ds" or "fixed_rate") */
static int sched_new(lua_State *L) {
  int t = lua_type(L, 1);
  const char *policy = t == LUA_TSTRING ? lua_tostring(L, 1) : t <= LUA_TNIL ? "ds" : NULL;
  int p = -1;
  if (policy && strcmp(policy, "ds") == 0) p = BT_SCHED_DS;
  else if (policy && strcmp(policy, "fixed_rate") == 0) p = BT_SCHED_FIXED_RATE;
  if (p < 0) {
    const char *got = policy ? lua_pushfstring(L, "'%s'", policy) : luaL_typename(L, 1);
    return lbt_argerror(L, 1, "BrainWrangler",
                        lua_pushfstring(L, "policy \"ds\" or \"fixed_rate\" expected, got %s", got));
  }
  lbt_sched *w = lua_newuserdatauv(L, sizeof *w, UV_COUNT);
  memset(w, 0, sizeof *w);
  w->S = lbt_state_get(L);
  luaL_setmetatable(L, SCHED_META);
  if (bt_sched_create(&w->s, w->S->tick_time) != BT_OK) return luaL_error(L, "not enough memory");
  bt_sched_set_policy(w->s, p);
  for (int uv = 1; uv <= UV_COUNT; uv++) {
    lua_newtable(L);
    lua_setiuservalue(L, -2, uv);
  }
  return 1;
}

/* wrangler:Record(options or nil): every brain registered with it, now and from now on, records
 * into a bt.Recorder of its own (brain.recorder, made with the options: capacity, ...; the agent
 * id and label are its entity's), or, with nil or false, none does any more (each brain's
 * recorder is detached and dropped). A think costs nothing more to look after it: a brain's
 * recorder follows it to the tree its OnStart builds (Brain:Start) and through reloads. */
static int wrangler_record(lua_State *L) {
  lbt_sched *w = get(L, "Record");
  int ud = lua_gettop(L);
  if (lua_toboolean(L, 2) && !lua_istable(L, 2)) return lbt_typeerror(L, 2, 1, "Record", "table or nil");
  lua_getiuservalue(L, ud, UV_IDS);
  int ids = lua_gettop(L);
  if (lua_toboolean(L, 2)) { /* every brain registered records now; AddInstance does the rest */
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, ud, UV_RECORD);
    w->record = 1;
    lua_pushnil(L);
    while (lua_next(L, ids)) { /* brain -> id */
      lua_pop(L, 1);
      lbt_recorder_follow(L, -1, 2);
    }
    return 0;
  }
  w->record = 0;
  lua_pushnil(L);
  while (lua_next(L, ids)) { /* brain -> id */
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pushliteral(L, "bt");
      lua_rawget(L, -2);
      lbt_tree *t = lbt_tree_test(L, -1);
      lua_pushliteral(L, "recorder");
      if (lua_rawget(L, -3) != LUA_TNIL && t && !t->collected)
        bt_inst_set_recorder(lbt_tree_inst(t), NULL);
      lua_pop(L, 2);
      lua_pushliteral(L, "recorder");
      lua_pushnil(L);
      lua_rawset(L, -3);
    }
  }
  return 0;
}

static const luaL_Reg wrangler_methods[] = {
    {"Record", wrangler_record},
    {"AddInstance", wrangler_add},
    {"RemoveInstance", wrangler_remove},
    {"Wake", wrangler_wake},
    {"Hibernate", wrangler_hibernate},
    {"Sleep", wrangler_sleep},
    {"Update", wrangler_update},
    {"GetList", wrangler_get_list},
    {"GetStats", wrangler_stats},
    {"SetPeriod", wrangler_set_period},
    {NULL, NULL},
};

/* bt.set_tick_time(seconds): the tick length sleep times are converted with */
static int l_set_tick_time(lua_State *L) {
  if (lua_type(L, 1) != LUA_TNUMBER) return lbt_typeerror(L, 1, 1, "set_tick_time", "positive number");
  if (!(lua_tonumber(L, 1) > 0) || lua_tonumber(L, 1) == HUGE_VAL)
    return lbt_argerror(L, 1, "set_tick_time", "positive number expected, got a number that is not positive");
  lbt_state_get(L)->tick_time = lua_tonumber(L, 1);
  return 0;
}

void lbt_open_sched(lua_State *L, int module, int shared) {
  lua_pushcfunction(L, l_set_tick_time);
  lua_setfield(L, module, "set_tick_time");
  if (luaL_newmetatable(L, SCHED_META)) {
    lua_pushcfunction(L, sched_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, sched_new);
  lua_setfield(L, shared, "scheduler");
  luaL_newlib(L, wrangler_methods);
  lua_setfield(L, shared, "wrangler_methods");
}
