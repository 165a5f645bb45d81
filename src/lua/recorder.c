/* SPDX-License-Identifier: MIT */
/*
 * recorder.c: bt.Recorder, a userdata holding a bt_rec (bt.h "the transition recorder"), and the
 * methods that attach one to a tree (tree:record, tree:recorder) and keep a brain's recorder on
 * whichever tree the brain has (brain.recorder, BrainWrangler:Record). Records are read by
 * polling (rec:records); the recorder calls no Lua code, so a think stays free of Lua callbacks.
 */
#include <string.h>

#include "lbt.h"

#define REC_META "bt.recorder"
#define LBT_STR_(x) #x
#define LBT_STR(x) LBT_STR_(x)
#define DEFAULT_CAPACITY 256

typedef struct lbt_rec {
  bt_rec *rec;
} lbt_rec;

static lbt_rec *test_rec(lua_State *L, int idx) { return luaL_testudata(L, idx, REC_META); }

static lbt_rec *check_rec(lua_State *L, int idx, const char *fname) {
  lbt_rec *r = test_rec(L, idx);
  if (!r) lbt_typeerror(L, idx, 0, fname, "Recorder");
  return r;
}

/* The options table at idx (argument arg of fname): capacity, agent, label, stats; pushes the
 * recorder (its user value: the bt.Stats it feeds, or nil). */
static lbt_rec *make(lua_State *L, int idx, int arg, const char *fname) {
  lua_Integer capacity = DEFAULT_CAPACITY, agent = 0;
  const char *label = NULL;
  idx = lua_absindex(L, idx);
  if (!lua_isnoneornil(L, idx)) {
    if (!lua_istable(L, idx)) lbt_typeerror(L, idx, arg, fname, "table or nil");
    int type = lua_getfield(L, idx, "capacity");
    if (type != LUA_TNIL) {
      if (!lua_isinteger(L, -1) || (capacity = lua_tointeger(L, -1)) < 0 || capacity > BT_REC_MAX_CAPACITY)
        lbt_argerror(L, arg, fname, "capacity: a whole number from 0 to " LBT_STR(BT_REC_MAX_CAPACITY) " expected");
    }
    type = lua_getfield(L, idx, "agent");
    if (type != LUA_TNIL && (!lua_isinteger(L, -1) || (agent = lua_tointeger(L, -1)) < 0))
      lbt_argerror(L, arg, fname, "agent: a whole number from 0 expected");
    type = lua_getfield(L, idx, "label");
    if (type != LUA_TNIL && type != LUA_TSTRING) lbt_argerror(L, arg, fname, "label: a string expected");
    label = lua_tostring(L, -1);
    type = lua_getfield(L, idx, "stats"); /* true: a bt.Stats of its own */
    if (type != LUA_TNIL && !lbt_stats_test(L, -1) && !(type == LUA_TBOOLEAN))
      lbt_argerror(L, arg, fname, "stats: a boolean or a bt.Stats expected");
    if (type == LUA_TBOOLEAN) {
      int on = lua_toboolean(L, -1);
      lua_pop(L, 1);
      if (on) lbt_stats_new(L);
      else lua_pushnil(L);
    }
    lua_replace(L, -4); /* stats where capacity was (the options table keeps the label's string) */
    lua_pop(L, 2);
  } else {
    lua_pushnil(L);
  }
  int stats = lua_gettop(L);
  if (lua_istable(L, idx)) lua_getfield(L, idx, "log"); /* a writer, which the recorder keeps */
  else lua_pushnil(L);
  int log = lua_gettop(L);
  if (!lua_isnil(L, log) && !lbt_log_is_writer(L, log))
    lbt_argerror(L, arg, fname, "log: a log writer (bt.log.create) expected");
  if (!lua_isnil(L, log) && !lbt_log_writer_test(L, log))
    lbt_argerror(L, arg, fname, "log: the log writer is closed");
  lbt_rec *r = lua_newuserdatauv(L, sizeof *r, 2);
  r->rec = NULL;
  luaL_setmetatable(L, REC_META);
  if (bt_rec_create(&r->rec, (size_t)capacity) != BT_OK ||
      bt_rec_set_agent(r->rec, (unsigned long long)agent, label) != BT_OK ||
      bt_rec_set_stats(r->rec, lbt_stats_test(L, stats)) != BT_OK ||
      bt_rec_set_log(r->rec, lua_isnil(L, log) ? NULL : lbt_log_writer_test(L, log)) != BT_OK)
    luaL_error(L, "not enough memory");
  lua_pushvalue(L, stats);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, log);
  lua_setiuservalue(L, -2, 2);
  lua_remove(L, log);
  lua_remove(L, stats);
  return r;
}

/* bt.Recorder([options]) */
static int rec_new(lua_State *L) {
  make(L, 1, 1, "Recorder");
  return 1;
}

/* Sets node, name and path of the table on the top for node n of the definition def (NULL: node
 * only). */
static void set_node(lua_State *L, const void *def, int n) {
  if (n < 0) return;
  lua_pushinteger(L, n + 1);
  lua_setfield(L, -2, "node");
  if (!def || n >= bt_def_size(def)) return;
  lua_pushstring(L, bt_def_name(def, n));
  lua_setfield(L, -2, "name");
  lbt_push_def_path(L, def, n);
  lua_setfield(L, -2, "path");
}

static void push_record(lua_State *L, const bt_rec_entry *e, const bt_def *def, lua_Integer seq) {
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, seq);
  lua_setfield(L, -2, "seq");
  lua_pushstring(L, lbt_record_type(e->type));
  lua_setfield(L, -2, "type");
  lua_pushinteger(L, (lua_Integer)e->think);
  lua_setfield(L, -2, "think");
  lua_pushnumber(L, e->time);
  lua_setfield(L, -2, "time");
  lbt_record_fields(L, e, set_node, def);
  if (e->type == BT_REC_KEY && def && bt_def_key_name(def, e->node)) {
    lua_pushstring(L, bt_def_key_name(def, e->node));
    lua_setfield(L, -2, "name");
  }
}

/* rec:records([first]): the records in the ring whose seq is at least first (default 1), oldest
 * first. A record's node indices are those of the definition it was made in: records older than
 * a reload to another shape carry no name and path. */
static int rec_records(lua_State *L) {
  lbt_rec *r = check_rec(L, 1, "records");
  lua_Integer first = luaL_optinteger(L, 2, 1);
  size_t count = bt_rec_count(r->rec);
  lua_Integer total = (lua_Integer)bt_rec_total(r->rec), oldest = total - (lua_Integer)count + 1;
  size_t skip = first > oldest ? (size_t)(first - oldest) : 0;
  if (skip > count) skip = count;
  lua_createtable(L, (int)(count - skip), 0);
  /* which records the current definition describes: those after the last reload from another */
  const bt_def *def = bt_rec_def(r->rec); /* (for paths) */
  unsigned long long hash = def ? bt_def_hash(def) : 0;
  size_t described = 0;
  bt_rec_entry e;
  for (size_t i = count; i-- > 0;) {
    bt_rec_get(r->rec, i, &e);
    if (e.type == BT_REC_RELOAD && e.def_from != hash) {
      described = i;
      break;
    }
  }
  for (size_t i = skip; i < count; i++) {
    bt_rec_get(r->rec, i, &e);
    push_record(L, &e, i >= described ? def : NULL, oldest + (lua_Integer)i);
    lua_rawseti(L, -2, (lua_Integer)(i - skip + 1));
  }
  return 1;
}

static int rec_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)bt_rec_count(check_rec(L, 1, "count")->rec));
  return 1;
}

static int rec_total(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)bt_rec_total(check_rec(L, 1, "total")->rec));
  return 1;
}

/* rec:stats(): the bt.Stats it feeds, or nil */
static int rec_stats(lua_State *L) {
  check_rec(L, 1, "stats");
  lua_getiuservalue(L, 1, 1);
  return 1;
}

static int rec_clear(lua_State *L) {
  bt_rec_clear(check_rec(L, 1, "clear")->rec);
  return 0;
}

/* rec:agent(): the agent id and label */
static int rec_agent(lua_State *L) {
  lbt_rec *r = check_rec(L, 1, "agent");
  lua_pushinteger(L, (lua_Integer)bt_rec_agent(r->rec));
  lua_pushstring(L, bt_rec_label(r->rec));
  return 2;
}

/* rec:set_agent(id[, label]) */
static int rec_set_agent(lua_State *L) {
  lbt_rec *r = check_rec(L, 1, "set_agent");
  lua_Integer id = luaL_checkinteger(L, 2);
  if (id < 0) return lbt_argerror(L, 1, "set_agent", "agent id: a whole number from 0 expected");
  const char *label = luaL_optstring(L, 3, NULL);
  if (bt_rec_set_agent(r->rec, (unsigned long long)id, label) != BT_OK) return luaL_error(L, "not enough memory");
  return 0;
}

static int rec_tostring(lua_State *L) {
  lbt_rec *r = check_rec(L, 1, "__tostring");
  lua_pushfstring(L, "Recorder (agent %I \"%s\", %I records%s)", (lua_Integer)bt_rec_agent(r->rec),
                  bt_rec_label(r->rec), (lua_Integer)bt_rec_count(r->rec),
                  bt_rec_inst(r->rec) ? "" : ", detached");
  return 1;
}

static int rec_gc(lua_State *L) {
  lbt_rec *r = test_rec(L, 1);
  if (r && r->rec) {
    bt_rec_free(r->rec); /* detaches it */
    r->rec = NULL;
  }
  return 0;
}

/* ---- attaching ---- */

/* Attaches the recorder at ri (NULL, ri 0: none) to the tree at ti, detaching it from the tree it
 * watched. */
static void attach(lua_State *L, int ti, int ri) {
  ti = lua_absindex(L, ti);
  ri = ri ? lua_absindex(L, ri) : 0;
  lbt_tree *t = lbt_tree_test(L, ti);
  lbt_rec *r = ri ? test_rec(L, ri) : NULL;
  bt_inst *was = r ? bt_rec_inst(r->rec) : NULL, *in = lbt_tree_inst(t);
  if (was && was != in) bt_inst_set_recorder(was, NULL);
  if (bt_inst_set_recorder(in, r ? r->rec : NULL) != BT_OK)
    luaL_error(L, "record: the recorder is compiled out of this build of bt (BT_RECORDER=OFF)");
  if (ri) lua_pushvalue(L, ri); /* the tree keeps it alive */
  else lua_pushnil(L);
  lua_setiuservalue(L, ti, LBT_UV_HOOK);
}

/* Pushes "<kind> <id>" for the entity at idx and gives its numeric id in *id (0: none). */
static void entity_agent(lua_State *L, int idx, lua_Integer *id) {
  *id = 0;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TTABLE) {
    static const char *const ids[] = {"GUID", "id"};
    for (int i = 0; i < 2 && !*id; i++) {
      lua_pushstring(L, ids[i]);
      lua_rawget(L, idx);
      if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0) *id = lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
  }
  lbt_push_entity_label(L, idx);
}

/* A new recorder (options at opts, or none) for the entity at inst, pushed: the agent id and label
 * are the entity's unless the options give them. */
static void make_for(lua_State *L, int opts, int inst, int arg, const char *fname) {
  opts = opts ? lua_absindex(L, opts) : 0;
  inst = lua_absindex(L, inst);
  lbt_rec *r = make(L, opts ? opts : lua_gettop(L) + 1, arg, fname);
  int has_agent = 0, has_label = 0;
  if (opts) {
    has_agent = lua_getfield(L, opts, "agent") != LUA_TNIL;
    has_label = lua_getfield(L, opts, "label") != LUA_TNIL;
    lua_pop(L, 2);
  }
  if (has_agent && has_label) return;
  lua_Integer id;
  entity_agent(L, inst, &id);
  if (bt_rec_set_agent(r->rec, has_agent ? bt_rec_agent(r->rec) : (unsigned long long)id,
                       has_label ? bt_rec_label(r->rec) : lua_tostring(L, -1)) != BT_OK)
    luaL_error(L, "not enough memory");
  lua_pop(L, 1);
}

/* tree:record(recorder or options or nil): attaches the recorder (one made from the options: by
 * default 256 records, the entity's id and label), or detaches; returns the recorder or nil. */
static int tree_record(lua_State *L) {
  lbt_tree *t = lbt_tree_test(L, 1);
  if (!t) return lbt_typeerror(L, 1, 0, "record", "BT");
  if (t->collected) return luaL_error(L, "record: the tree was garbage collected");
  lua_settop(L, 2);
  if (!lua_toboolean(L, 2)) {
    attach(L, 1, 0);
    return 0;
  }
  if (!test_rec(L, 2)) {
    if (!lua_istable(L, 2)) return lbt_typeerror(L, 2, 1, "record", "Recorder, table or nil");
    lua_getiuservalue(L, 1, LBT_UV_INST);
    make_for(L, 2, -1, 1, "record");
    lua_replace(L, 2);
  }
  attach(L, 1, 2);
  lua_settop(L, 2);
  return 1;
}

/* tree:recorder(): the recorder attached to the tree, or nil */
static int tree_recorder(lua_State *L) {
  lbt_tree *t = lbt_tree_test(L, 1);
  if (!t) return lbt_typeerror(L, 1, 0, "recorder", "BT");
  lua_getiuservalue(L, 1, LBT_UV_HOOK);
  lbt_rec *r = test_rec(L, -1);
  if (!r || t->collected || bt_inst_recorder(lbt_tree_inst(t)) != r->rec) lua_pushnil(L);
  return 1;
}

void lbt_recorder_follow(lua_State *L, int brain, int opts) {
  brain = lua_absindex(L, brain);
  opts = opts ? lua_absindex(L, opts) : 0;
  if (lua_type(L, brain) != LUA_TTABLE) return;
  int top = lua_gettop(L);
  lua_pushliteral(L, "recorder");
  lua_rawget(L, brain);
  if (!test_rec(L, -1)) {
    if (!opts) {
      lua_settop(L, top);
      return;
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "inst");
    lua_rawget(L, brain);
    make_for(L, lua_istable(L, opts) ? opts : 0, -1, 1, "Record");
    lua_pushliteral(L, "recorder");
    lua_pushvalue(L, -2);
    lua_rawset(L, brain);
  }
  int rec = lua_gettop(L);
  lua_pushliteral(L, "bt");
  lua_rawget(L, brain);
  lbt_tree *t = lbt_tree_test(L, -1);
  if (t && !t->collected && bt_inst_recorder(lbt_tree_inst(t)) != test_rec(L, rec)->rec)
    attach(L, -1, rec);
  lua_settop(L, top);
}

/* shared.follow_recorder(brain[, options]): Brain:Record's attach (lbt_recorder_follow) */
static int l_follow(lua_State *L) {
  lua_settop(L, 2);
  lbt_recorder_follow(L, 1, lua_isnil(L, 2) ? 0 : 2);
  return 0;
}

/* shared.is_recorder(v) */
static int l_is_recorder(lua_State *L) {
  lua_pushboolean(L, test_rec(L, 1) != NULL);
  return 1;
}

static const luaL_Reg rec_methods[] = {
    {"records", rec_records}, {"count", rec_count},         {"total", rec_total},
    {"clear", rec_clear},     {"agent", rec_agent},         {"set_agent", rec_set_agent},
    {"stats", rec_stats},
    {NULL, NULL},
};

static const luaL_Reg rec_meta[] = {
    {"__tostring", rec_tostring},
    {"__gc", rec_gc},
    {NULL, NULL},
};

static const luaL_Reg tree_methods[] = {
    {"record", tree_record},
    {"recorder", tree_recorder},
    {NULL, NULL},
};

const luaL_Reg lbt_recorder_shared[] = {
    {"follow_recorder", l_follow},
    {"is_recorder", l_is_recorder},
    {NULL, NULL},
};

bt_rec *bt_lua_torecorder(lua_State *L, int idx) {
  lbt_rec *r = test_rec(L, idx);
  return r ? r->rec : NULL;
}

/* What a C module loaded beside bt.so (bt.view, bt.testkit) may call: Lua loads C modules with
 * their names local, so it finds bt.so's functions through this table, in the registry as
 * "bt.c_api". */
static const bt_def *c_api_todef(lua_State *L, int idx) {
  lbt_def *d = lbt_def_test(L, idx);
  if (d) return d->def;
  lbt_tree *t = lbt_tree_test(L, idx);
  const bt_inst *in = t ? lbt_tree_inst(t) : NULL;
  return in ? bt_inst_def(in) : NULL;
}

static int c_api_setwhere(lua_State *L, int idx, const char *where) {
  idx = lua_absindex(L, idx);
  if (!where || !lbt_is_node(L, idx)) return 0;
  lua_pushstring(L, where);
  lua_rawsetp(L, idx, &lbt_key_where);
  return 1;
}

static const bt_lua_c_api C_API = {1, bt_lua_torecorder, lbt_stats_test, c_api_todef, c_api_setwhere};

void lbt_open_recorder(lua_State *L, int module) {
  lua_pushlightuserdata(L, (void *)&C_API);
  lua_setfield(L, LUA_REGISTRYINDEX, BT_LUA_C_API);
  luaL_newmetatable(L, REC_META);
  luaL_setfuncs(L, rec_meta, 0);
  luaL_newlib(L, rec_methods);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "Recorder");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  lbt_registry_get(L, LBT_REG_BT);
  luaL_setfuncs(L, tree_methods, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, rec_new);
  lua_setfield(L, module, "Recorder");
}
