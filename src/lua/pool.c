/* SPDX-License-Identifier: MIT */
/*
 * pool.c: a pool of Lua states (bt_lua_pool, bt_lua.h; docs/threads.md "A pool of Lua states").
 * Each state thinks a shard of the agents on its own bt.BrainManager; a frame runs one job per
 * state on a bt_pool (or the host's executor), then routes the agents' events between states in
 * an order that does not depend on the threads. lua/pool.lua is the Lua side.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "btp.h"
#include "lbt.h"

#define MAX_NESTING 100

/* ---- plain data, as bytes: nil, booleans, integers, floats, strings, tables of them ---- */

/* Each value is encoded into a bt_buf as a tag byte and its bytes. */
static int buf_tag(bt_buf *b, char tag) { return bt_buf_append(b, &tag, 1); }

/* Appends the value at idx; raises an error naming what is not plain data (`what`: "data",
 * "data.target"...). seen is the stack index of a table of the tables under way. */
static void encode_value(lua_State *L, bt_buf *b, int idx, int seen, const char *fname, const char *what,
                         int depth) {
  idx = lua_absindex(L, idx);
  int rc = BT_OK;
  switch (lua_type(L, idx)) {
  case LUA_TNIL: rc = buf_tag(b, 'n'); break;
  case LUA_TBOOLEAN: rc = buf_tag(b, lua_toboolean(L, idx) ? 't' : 'f'); break;
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      lua_Integer v = lua_tointeger(L, idx);
      rc = buf_tag(b, 'i');
      if (rc == BT_OK) rc = bt_buf_append(b, (const char *)&v, sizeof v);
    } else {
      lua_Number v = lua_tonumber(L, idx);
      rc = buf_tag(b, 'd');
      if (rc == BT_OK) rc = bt_buf_append(b, (const char *)&v, sizeof v);
    }
    break;
  case LUA_TSTRING: {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    rc = buf_tag(b, 's');
    if (rc == BT_OK) rc = bt_buf_append(b, (const char *)&len, sizeof len);
    if (rc == BT_OK) rc = bt_buf_append(b, s, len);
    break;
  }
  case LUA_TTABLE: {
    if (depth >= MAX_NESTING) luaL_error(L, "%s: %s nests tables deeper than %d", fname, what, MAX_NESTING);
    if (lua_rawgetp(L, seen, lua_topointer(L, idx)) != LUA_TNIL)
      luaL_error(L, "%s: %s is a table that contains itself", fname, what);
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_rawsetp(L, seen, lua_topointer(L, idx));
    if (buf_tag(b, '{') != BT_OK) luaL_error(L, "not enough memory");
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      int kt = lua_type(L, -2);
      if (kt != LUA_TSTRING && kt != LUA_TNUMBER && kt != LUA_TBOOLEAN)
        luaL_error(L, "%s: %s has a key that is a %s (keys are strings, numbers or booleans)", fname, what,
                   lua_typename(L, kt));
      char field[96];
      if (kt == LUA_TSTRING) snprintf(field, sizeof field, "%s.%s", what, lua_tostring(L, -2));
      else if (kt == LUA_TNUMBER && lua_isinteger(L, -2))
        snprintf(field, sizeof field, "%s[%lld]", what, (long long)lua_tointeger(L, -2));
      else snprintf(field, sizeof field, "%s[...]", what);
      encode_value(L, b, -2, seen, fname, what, depth + 1);
      encode_value(L, b, -1, seen, fname, field, depth + 1);
      lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_rawsetp(L, seen, lua_topointer(L, idx));
    rc = buf_tag(b, '}');
    break;
  }
  default:
    luaL_error(L, "%s: %s is a %s (events and sources carry plain data: nil, booleans, numbers, strings "
               "and tables of them)", fname, what, luaL_typename(L, idx));
  }
  if (rc != BT_OK) luaL_error(L, "not enough memory");
}

/* Pushes the value at *pos of the bytes (made by encode_value, so well formed). */
static void decode_value(lua_State *L, const char *p, size_t *pos) {
  luaL_checkstack(L, 4, "decoding plain data");
  char tag = p[(*pos)++];
  switch (tag) {
  case 'n': lua_pushnil(L); break;
  case 't': lua_pushboolean(L, 1); break;
  case 'f': lua_pushboolean(L, 0); break;
  case 'i': {
    lua_Integer v;
    memcpy(&v, p + *pos, sizeof v);
    *pos += sizeof v;
    lua_pushinteger(L, v);
    break;
  }
  case 'd': {
    lua_Number v;
    memcpy(&v, p + *pos, sizeof v);
    *pos += sizeof v;
    lua_pushnumber(L, v);
    break;
  }
  case 's': {
    size_t len;
    memcpy(&len, p + *pos, sizeof len);
    *pos += sizeof len;
    lua_pushlstring(L, p + *pos, len);
    *pos += len;
    break;
  }
  default: /* '{' */
    lua_newtable(L);
    while (p[*pos] != '}') {
      decode_value(L, p, pos);
      decode_value(L, p, pos);
      lua_rawset(L, -3);
    }
    (*pos)++;
    break;
  }
}

/* Encodes the value at idx into b, protected: BT_OK, or BT_EINVAL with the message on the stack. */
typedef struct encode_args {
  bt_buf *b;
  const char *fname, *what;
} encode_args;

static int encode_protected(lua_State *L) {
  encode_args *a = lua_touserdata(L, 2);
  lua_newtable(L);
  encode_value(L, a->b, 1, lua_gettop(L), a->fname, a->what, 0);
  return 0;
}

/* ---- events ---- */

typedef struct pool_event {
  long long to, from;
  unsigned long long phase; /* the pool's phase when it was sent (see bt_lua_pool.phase) */
  unsigned long long seq;   /* the order its state sent it in */
  int source;             /* the state that sent it, -1 for the host: a last tie-break */
  size_t size;            /* of bytes: the event's name as a string value, then the data */
  char bytes[];
} pool_event;

typedef struct event_vec {
  pool_event **v;
  size_t n, cap;
} event_vec;

static int events_push(event_vec *q, pool_event *e) {
  if (q->n == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 64;
    pool_event **v = realloc(q->v, cap * sizeof *v);
    if (!v) return BT_ENOMEM;
    q->v = v;
    q->cap = cap;
  }
  q->v[q->n++] = e;
  return BT_OK;
}

static void events_clear(event_vec *q) {
  for (size_t i = 0; i < q->n; i++) free(q->v[i]);
  q->n = 0;
}

static void events_free(event_vec *q) {
  events_clear(q);
  free(q->v);
  q->v = NULL;
  q->cap = 0;
}

static int event_order(const void *a, const void *b) {
  const pool_event *x = *(pool_event *const *)a, *y = *(pool_event *const *)b;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  if (x->phase != y->phase) return x->phase < y->phase ? -1 : 1;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return x->source < y->source ? -1 : x->source > y->source;
}

static pool_event *event_new(long long to, long long from, unsigned long long seq, int source, const bt_buf *b) {
  pool_event *e = malloc(sizeof *e + b->len);
  if (!e) return NULL;
  e->source = source;
  e->phase = 0;
  e->to = to;
  e->from = from;
  e->seq = seq;
  e->size = b->len;
  memcpy(e->bytes, b->data, b->len);
  return e;
}

/* ---- agents placed and removed later (at a frame's end) ---- */

enum { CHANGE_PLACE = 1, CHANGE_REMOVE };

typedef struct pool_change {
  long long agent;
  int op, state;
  unsigned long long phase, seq; /* as an event's: the order does not depend on the states */
  int source;
  char kind[]; /* CHANGE_PLACE's */
} pool_change;

typedef struct change_vec {
  pool_change **v;
  size_t n, cap;
} change_vec;

static int changes_push(change_vec *q, long long agent, int op, int state, const char *kind,
                        unsigned long long phase, unsigned long long seq, int source) {
  if (q->n == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 16;
    pool_change **v = realloc(q->v, cap * sizeof *v);
    if (!v) return BT_ENOMEM;
    q->v = v;
    q->cap = cap;
  }
  size_t len = kind ? strlen(kind) : 0;
  pool_change *c = malloc(sizeof *c + len + 1);
  if (!c) return BT_ENOMEM;
  *c = (pool_change){agent, op, state, phase, seq, source};
  memcpy(c->kind, kind ? kind : "", len + 1);
  q->v[q->n++] = c;
  return BT_OK;
}

static void changes_free(change_vec *q) {
  for (size_t i = 0; i < q->n; i++) free(q->v[i]);
  free(q->v);
  *q = (change_vec){0};
}

static int change_order(const void *a, const void *b) {
  const pool_change *x = *(pool_change *const *)a, *y = *(pool_change *const *)b;
  if (x->agent != y->agent) return x->agent < y->agent ? -1 : 1;
  if (x->phase != y->phase) return x->phase < y->phase ? -1 : 1;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return x->source < y->source ? -1 : x->source > y->source;
}

/* ---- agents: id -> state and kind, open addressing ---- */

typedef struct agent_slot {
  long long id; /* 0: empty, -1: deleted */
  int state;
  char *kind;
} agent_slot;

typedef struct agent_map {
  agent_slot *v;
  size_t cap, used, live; /* used: live and deleted */
} agent_map;

static size_t agent_hash(long long id, size_t cap) {
  uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
  return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

static agent_slot *agents_find(const agent_map *m, long long id) {
  if (!m->cap) return NULL;
  for (size_t i = agent_hash(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->v[i].id == id) return &m->v[i];
    if (m->v[i].id == 0) return NULL;
  }
}

static int agents_grow(agent_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  if (m->live * 4 < m->cap) cap = m->cap; /* mostly deleted slots: the same size, cleaned */
  agent_slot *v = calloc(cap, sizeof *v);
  if (!v) return BT_ENOMEM;
  for (size_t i = 0; i < m->cap; i++) {
    if (m->v[i].id <= 0) continue;
    size_t j = agent_hash(m->v[i].id, cap);
    while (v[j].id) j = (j + 1) & (cap - 1);
    v[j] = m->v[i];
  }
  free(m->v);
  m->v = v;
  m->cap = cap;
  m->used = m->live;
  return BT_OK;
}

static int agents_add(agent_map *m, long long id, int state, const char *kind) {
  if ((m->used + 1) * 4 > m->cap * 3 && agents_grow(m) != BT_OK) return BT_ENOMEM;
  char *k = malloc(strlen(kind) + 1);
  if (!k) return BT_ENOMEM;
  strcpy(k, kind);
  size_t i = agent_hash(id, m->cap);
  while (m->v[i].id > 0) i = (i + 1) & (m->cap - 1);
  if (m->v[i].id == 0) m->used++;
  m->v[i] = (agent_slot){id, state, k};
  m->live++;
  return BT_OK;
}

static void agents_delete(agent_map *m, agent_slot *s) {
  free(s->kind);
  s->kind = NULL;
  s->id = -1;
  m->live--;
}

/* ---- the pool ---- */

typedef struct pool_state {
  lua_State *L;
  struct bt_lua_pool *pool;
  int index;
  int agents;
  event_vec out; /* sent by this state's scripts (only its own thread touches it) */
  event_vec in;  /* routed to its agents at the frame's end, in order */
  change_vec changes; /* bt.pool.place_later and remove_later of its scripts */
  unsigned long long seq;
  long long tick; /* the frame's, for its job */
  double time;
  char err[256]; /* the job's error, "" if none */
} pool_state;

struct bt_lua_pool {
  int nstates;
  pool_state *st;
  bt_pool *threads; /* NULL with one thread */
  bt_executor ex;
  int has_ex;
  int in_frame;
  /* Counts the think phases, the delivery phases and the moves: an agent sends from one state
   * within a phase, so (sender, phase, its state's order) orders its events whatever the states */
  unsigned long long phase;
  agent_map agents;
  btp_mutex lock; /* host_q, host_seq */
  event_vec host_q;
  change_vec host_changes; /* bt_lua_pool_place_later and remove_later, under lock */
  unsigned long long host_seq;
  bt_lua_pool_stats stats;
  char errmsg[512];
  char **later; /* bt_lua_pool_reload_later's modules, under lock */
  int nlater, cap_later;
  bt_lua_pool_report_fn report;
  void *report_ud;
};

static void set_err(bt_lua_pool *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->errmsg, sizeof p->errmsg, fmt, ap);
  va_end(ap);
}

/* a pool's state keeps its pool_state in its registry, under this key */
static const char POOL_KEY = 'p';

/* bt.pool.send(to, event[, data[, from]]): queues the event for the frame's end */
static int l_send(lua_State *L) {
  pool_state *s = lua_touserdata(L, lua_upvalueindex(1));
  int isint;
  lua_Integer to = lua_tointegerx(L, 1, &isint);
  if (!isint) return lbt_typeerror(L, 1, 1, "send", "integer agent id");
  if (to < 1) return lbt_argerror(L, 1, "send", "an agent id is 1 or more");
  if (lua_type(L, 2) != LUA_TSTRING) return lbt_typeerror(L, 2, 2, "send", "string (the event's name)");
  const char *event = lua_tostring(L, 2);
  lua_Integer from = 0;
  if (!lua_isnoneornil(L, 4)) {
    from = lua_tointegerx(L, 4, &isint);
    if (!isint || from < 0) return lbt_argerror(L, 4, "send", "the sender's agent id (an integer >= 0) or nil expected");
  }
  lua_settop(L, 3);
  bt_buf b = {0};
  size_t len = strlen(event);
  int rc = buf_tag(&b, 's');
  if (rc == BT_OK) rc = bt_buf_append(&b, (const char *)&len, sizeof len);
  if (rc == BT_OK) rc = bt_buf_append(&b, event, len);
  if (rc != BT_OK) {
    bt_buf_free(&b);
    return luaL_error(L, "not enough memory");
  }
  encode_args a = {&b, "bt.pool.send", "data"};
  lua_pushcfunction(L, encode_protected);
  lua_pushvalue(L, 3);
  lua_pushlightuserdata(L, &a);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    bt_buf_free(&b);
    return lua_error(L);
  }
  pool_event *e = event_new(to, from, s->seq++, s->index, &b);
  if (e) e->phase = s->pool->phase;
  bt_buf_free(&b);
  if (!e || events_push(&s->out, e) != BT_OK) {
    free(e);
    return luaL_error(L, "not enough memory");
  }
  return 0;
}

/* bt.pool.place_later(agent, kind[, state]), bt.pool.remove_later(agent): at the frame's end */
static int l_place_later(lua_State *L) {
  pool_state *s = lua_touserdata(L, lua_upvalueindex(1));
  int isint;
  lua_Integer agent = lua_tointegerx(L, 1, &isint);
  if (!isint || agent < 1) return lbt_argerror(L, 1, "place_later", "an agent id (an integer >= 1) expected");
  const char *kind = luaL_checkstring(L, 2);
  lua_Integer state = luaL_optinteger(L, 3, -1);
  if (state >= s->pool->nstates) return lbt_argerror(L, 3, "place_later", "no such state");
  if (changes_push(&s->changes, agent, CHANGE_PLACE, state < 0 ? -1 : (int)state, kind, s->pool->phase, s->seq++,
                   s->index) != BT_OK)
    return luaL_error(L, "not enough memory");
  return 0;
}

static int l_remove_later(lua_State *L) {
  pool_state *s = lua_touserdata(L, lua_upvalueindex(1));
  int isint;
  lua_Integer agent = lua_tointegerx(L, 1, &isint);
  if (!isint || agent < 1) return lbt_argerror(L, 1, "remove_later", "an agent id (an integer >= 1) expected");
  if (changes_push(&s->changes, agent, CHANGE_REMOVE, -1, NULL, s->pool->phase, s->seq++, s->index) != BT_OK)
    return luaL_error(L, "not enough memory");
  return 0;
}

static int l_state(lua_State *L) {
  pool_state *s = lua_touserdata(L, lua_upvalueindex(1));
  lua_pushinteger(L, s->index);
  return 1;
}

static int l_states(lua_State *L) {
  pool_state *s = lua_touserdata(L, lua_upvalueindex(1));
  lua_pushinteger(L, s->pool->nstates);
  return 1;
}

/* Pushes shared[name]. */
static void push_shared(lua_State *L, const char *name) {
  lbt_registry_get(L, LBT_REG_SHARED);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
}

/* Calls the function under nargs arguments, protected, with a traceback-free message: BT_OK, or
 * BT_EINVAL with "state N: message" in s->err (or the pool's errmsg when to_pool). */
static int call_in(pool_state *s, int nargs, int nres) {
  lua_State *L = s->L;
  if (lua_pcall(L, nargs, nres, 0) == LUA_OK) return BT_OK;
  const char *msg = lua_tostring(L, -1);
  snprintf(s->err, sizeof s->err, "state %d: %s", s->index, msg ? msg : "(an error that is not a string)");
  lua_pop(L, 1);
  return BT_EINVAL;
}

static int open_state(bt_lua_pool *p, pool_state *s, bt_lua_pool_open_fn open, void *ud, char *err, size_t size) {
  lua_State *L = bt_lua_newstate(0);
  if (!L) return BT_ENOMEM;
  s->L = L;
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  int module = lua_gettop(L);
  lua_pushlightuserdata(L, s);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &POOL_KEY);
  lua_getfield(L, module, "pool");
  static const luaL_Reg fns[] = {{"send", l_send},
                                 {"place_later", l_place_later},
                                 {"remove_later", l_remove_later},
                                 {"state", l_state},
                                 {"states", l_states},
                                 {NULL, NULL}};
  lua_pushlightuserdata(L, s);
  luaL_setfuncs(L, fns, 1);
  lua_pop(L, 1);
  /* every tree draws from a stream seeded with its agent's id */
  lua_getfield(L, module, "seed_trees");
  push_shared(L, "pool_seed");
  lua_call(L, 1, 0);
  /* math.random draws from the stream of the agent whose scripts call it (bt.random) */
  lua_getglobal(L, "math");
  lua_getfield(L, module, "random");
  lua_setfield(L, -2, "random");
  lua_pop(L, 1);
  lua_settop(L, 0);
  bt_lua_reload_enable(L);
  (void)p;
  int rc = open(ud, L, s->index, err, size);
  lua_settop(L, 0);
  return rc;
}

static void close_states(bt_lua_pool *p) {
  for (int i = 0; i < p->nstates; i++) {
    if (p->st[i].L) bt_lua_close(p->st[i].L);
    events_free(&p->st[i].out);
    events_free(&p->st[i].in);
    changes_free(&p->st[i].changes);
  }
}

void bt_lua_pool_free(bt_lua_pool *p) {
  if (!p) return;
  close_states(p);
  bt_pool_free(p->threads);
  for (size_t i = 0; i < p->agents.cap; i++)
    if (p->agents.v[i].id > 0) free(p->agents.v[i].kind);
  free(p->agents.v);
  events_free(&p->host_q);
  changes_free(&p->host_changes);
  for (int i = 0; i < p->nlater; i++) free(p->later[i]);
  free(p->later);
  btp_mutex_destroy(&p->lock);
  free(p->st);
  free(p);
}

int bt_lua_pool_create(bt_lua_pool **out, int states, int threads, bt_lua_pool_open_fn open, void *ud,
                       char *err, size_t size) {
  char scratch[8];
  if (!err || !size) {
    err = scratch;
    size = sizeof scratch;
  }
  err[0] = '\0';
  if (!out) {
    snprintf(err, size, "bt_lua_pool_create: out is NULL");
    return BT_EINVAL;
  }
  *out = NULL;
  if (states < 1 || states > BT_POOL_MAX_THREADS || !open) {
    snprintf(err, size, "bt_lua_pool_create: %s", !open ? "open is NULL" : "states must be 1 to 256");
    return BT_EINVAL;
  }
  bt_lua_pool *p = calloc(1, sizeof *p);
  if (!p || !(p->st = calloc((size_t)states, sizeof *p->st)) || btp_mutex_init(&p->lock) != BT_OK) {
    if (p) free(p->st);
    free(p);
    snprintf(err, size, "not enough memory");
    return BT_ENOMEM;
  }
  p->nstates = states;
  for (int i = 0; i < states; i++) {
    p->st[i].pool = p;
    p->st[i].index = i;
  }
  if (threads <= 0 || threads > states) threads = states;
  int rc = BT_OK;
  if (threads > 1 && (rc = bt_pool_create(&p->threads, threads)) != BT_OK)
    snprintf(err, size, "bt_lua_pool_create: %s", rc == BT_ETHREAD ? "the system refused a thread" : "not enough memory");
  for (int i = 0; rc == BT_OK && i < states; i++) {
    rc = open_state(p, &p->st[i], open, ud, err, size);
    if (rc == BT_ENOMEM && !err[0]) snprintf(err, size, "not enough memory");
    else if (rc != BT_OK && !err[0]) snprintf(err, size, "state %d: the open function failed (%d)", i, rc);
  }
  if (rc != BT_OK) {
    bt_lua_pool_free(p);
    return rc;
  }
  *out = p;
  return BT_OK;
}

int bt_lua_pool_states(const bt_lua_pool *p) { return p ? p->nstates : 0; }

lua_State *bt_lua_pool_state(bt_lua_pool *p, int state) {
  return p && state >= 0 && state < p->nstates ? p->st[state].L : NULL;
}

int bt_lua_pool_set_executor(bt_lua_pool *p, const bt_executor *ex) {
  if (!p) return BT_EINVAL;
  if (p->in_frame) return BT_EBUSY;
  if (!ex) {
    p->has_ex = 0;
    return BT_OK;
  }
  if (!ex->run || ex->workers < 1) return BT_EINVAL;
  p->ex = *ex;
  p->has_ex = 1;
  return BT_OK;
}

const char *bt_lua_pool_errmsg(const bt_lua_pool *p) { return p ? p->errmsg : "no pool"; }

void bt_lua_pool_stats_get(const bt_lua_pool *p, bt_lua_pool_stats *out) {
  if (out) *out = p ? p->stats : (bt_lua_pool_stats){0};
}

int bt_lua_pool_agent_state(const bt_lua_pool *p, long long agent) {
  const agent_slot *a = p ? agents_find(&p->agents, agent) : NULL;
  return a && agent > 0 ? a->state : BT_EINVAL;
}

int bt_lua_pool_agents(const bt_lua_pool *p, int state) {
  if (!p) return 0;
  if (state < 0) return (int)p->agents.live;
  return state < p->nstates ? p->st[state].agents : 0;
}

static int check_between_frames(bt_lua_pool *p, const char *fname) {
  if (!p) return BT_EINVAL;
  if (p->in_frame) {
    set_err(p, "%s: not allowed during a frame", fname);
    return BT_EBUSY;
  }
  return BT_OK;
}

/* Calls shared[name](agent, kind) in the state; BT_EINVAL with the message in the pool's errmsg. */
static int agent_call(bt_lua_pool *p, pool_state *s, const char *name, long long agent, const char *kind,
                      const char *saved, size_t saved_len) {
  lua_State *L = s->L;
  push_shared(L, name);
  lua_pushinteger(L, agent);
  int nargs = 1;
  if (kind) {
    lua_pushstring(L, kind);
    nargs++;
  }
  if (saved) {
    lua_pushlstring(L, saved, saved_len);
    nargs++;
  }
  s->err[0] = '\0';
  int rc = call_in(s, nargs, 0);
  if (rc != BT_OK) set_err(p, "%s", s->err);
  lua_settop(L, 0);
  return rc;
}

int bt_lua_pool_place(bt_lua_pool *p, long long agent, const char *kind, int state) {
  int rc = check_between_frames(p, "bt_lua_pool_place");
  if (rc != BT_OK) return rc;
  if (agent < 1 || !kind || state >= p->nstates) {
    set_err(p, "bt_lua_pool_place: %s", agent < 1 ? "an agent id is 1 or more" : !kind ? "kind is NULL"
                                                                                     : "no such state");
    return BT_EINVAL;
  }
  if (agents_find(&p->agents, agent)) {
    set_err(p, "bt_lua_pool_place: agent %lld is placed already (in state %d)", agent,
            agents_find(&p->agents, agent)->state);
    return BT_EINVAL;
  }
  if (state < 0) {
    state = 0;
    for (int i = 1; i < p->nstates; i++)
      if (p->st[i].agents < p->st[state].agents) state = i;
  }
  if (agents_add(&p->agents, agent, state, kind) != BT_OK) {
    set_err(p, "not enough memory");
    return BT_ENOMEM;
  }
  p->phase++; /* what its start sends comes after what it sent elsewhere before */
  rc = agent_call(p, &p->st[state], "pool_place", agent, kind, NULL, 0);
  if (rc != BT_OK) {
    agents_delete(&p->agents, agents_find(&p->agents, agent));
    return rc;
  }
  p->st[state].agents++;
  return state;
}

int bt_lua_pool_remove(bt_lua_pool *p, long long agent) {
  int rc = check_between_frames(p, "bt_lua_pool_remove");
  if (rc != BT_OK) return rc;
  agent_slot *a = agent > 0 ? agents_find(&p->agents, agent) : NULL;
  if (!a) {
    set_err(p, "bt_lua_pool_remove: agent %lld is not placed", agent);
    return BT_EINVAL;
  }
  pool_state *s = &p->st[a->state];
  agents_delete(&p->agents, a);
  s->agents--;
  return agent_call(p, s, "pool_remove", agent, NULL, NULL, 0);
}

int bt_lua_pool_move(bt_lua_pool *p, long long agent, int state) {
  int rc = check_between_frames(p, "bt_lua_pool_move");
  if (rc != BT_OK) return rc;
  agent_slot *a = agent > 0 ? agents_find(&p->agents, agent) : NULL;
  if (!a || state < 0 || state >= p->nstates) {
    set_err(p, "bt_lua_pool_move: %s", !a ? "no such agent" : "no such state");
    return BT_EINVAL;
  }
  if (a->state == state) return BT_OK;
  pool_state *from = &p->st[a->state], *to = &p->st[state];
  /* the save, copied out of the old state */
  lua_State *L = from->L;
  push_shared(L, "pool_save");
  lua_pushinteger(L, agent);
  from->err[0] = '\0';
  if ((rc = call_in(from, 1, 1)) != BT_OK) {
    set_err(p, "bt_lua_pool_move: agent %lld: %s", agent, from->err);
    return rc;
  }
  size_t len;
  const char *saved = lua_tolstring(L, -1, &len);
  rc = agent_call(p, to, "pool_restore", agent, a->kind, saved, len);
  lua_settop(L, 0);
  if (rc != BT_OK) {
    char msg[sizeof p->errmsg];
    snprintf(msg, sizeof msg, "%s", p->errmsg);
    set_err(p, "bt_lua_pool_move: agent %lld: %s", agent, msg);
    return rc;
  }
  a->state = state;
  p->phase++;
  to->agents++;
  from->agents--;
  return agent_call(p, from, "pool_remove", agent, NULL, NULL, 0);
}

int bt_lua_pool_send(bt_lua_pool *p, long long agent, const char *event, const char *data) {
  if (!p || agent < 1 || !event) return BT_EINVAL;
  bt_buf b = {0};
  size_t len = strlen(event);
  int rc = buf_tag(&b, 's');
  if (rc == BT_OK) rc = bt_buf_append(&b, (const char *)&len, sizeof len);
  if (rc == BT_OK) rc = bt_buf_append(&b, event, len);
  if (rc == BT_OK && data) {
    size_t dlen = strlen(data);
    rc = buf_tag(&b, 's');
    if (rc == BT_OK) rc = bt_buf_append(&b, (const char *)&dlen, sizeof dlen);
    if (rc == BT_OK) rc = bt_buf_append(&b, data, dlen);
  } else if (rc == BT_OK) {
    rc = buf_tag(&b, 'n');
  }
  if (rc != BT_OK) {
    bt_buf_free(&b);
    return BT_ENOMEM;
  }
  btp_mutex_lock(&p->lock);
  pool_event *e = event_new(agent, 0, p->host_seq++, -1, &b);
  if (!e || events_push(&p->host_q, e) != BT_OK) {
    free(e);
    rc = BT_ENOMEM;
  }
  btp_mutex_unlock(&p->lock);
  bt_buf_free(&b);
  return rc;
}

int bt_lua_pool_place_later(bt_lua_pool *p, long long agent, const char *kind, int state) {
  if (!p || agent < 1 || !kind || state >= p->nstates) return BT_EINVAL;
  btp_mutex_lock(&p->lock);
  int rc = changes_push(&p->host_changes, agent, CHANGE_PLACE, state < 0 ? -1 : state, kind, 0, p->host_seq++, -1);
  btp_mutex_unlock(&p->lock);
  return rc;
}

int bt_lua_pool_remove_later(bt_lua_pool *p, long long agent) {
  if (!p || agent < 1) return BT_EINVAL;
  btp_mutex_lock(&p->lock);
  int rc = changes_push(&p->host_changes, agent, CHANGE_REMOVE, -1, NULL, 0, p->host_seq++, -1);
  btp_mutex_unlock(&p->lock);
  return rc;
}

/* The places and removals asked for since the last frame's end, in agent order: a refused one is
 * counted (stats.rejected) and said by the pool's errmsg. */
static int apply_changes(bt_lua_pool *p) {
  btp_mutex_lock(&p->lock);
  change_vec host = p->host_changes;
  p->host_changes = (change_vec){0};
  btp_mutex_unlock(&p->lock);
  size_t total = host.n;
  for (int i = 0; i < p->nstates; i++) total += p->st[i].changes.n;
  if (!total) {
    changes_free(&host);
    return BT_OK;
  }
  pool_change **all = malloc(total * sizeof *all);
  if (!all) {
    changes_free(&host);
    for (int i = 0; i < p->nstates; i++) changes_free(&p->st[i].changes);
    return BT_ENOMEM;
  }
  size_t n = 0;
  for (size_t j = 0; j < host.n; j++) all[n++] = host.v[j];
  host.n = 0;
  for (int i = 0; i < p->nstates; i++) {
    for (size_t j = 0; j < p->st[i].changes.n; j++) all[n++] = p->st[i].changes.v[j];
    p->st[i].changes.n = 0;
  }
  qsort(all, n, sizeof *all, change_order);
  char msg[sizeof p->errmsg] = "";
  for (size_t j = 0; j < n; j++) {
    pool_change *c = all[j];
    int rc = c->op == CHANGE_PLACE ? bt_lua_pool_place(p, c->agent, c->kind, c->state)
                                   : bt_lua_pool_remove(p, c->agent);
    if (rc < 0) {
      p->stats.rejected++;
      snprintf(msg, sizeof msg, "%s", p->errmsg);
    }
    free(c);
  }
  free(all);
  changes_free(&host);
  p->errmsg[0] = '\0';
  if (msg[0]) set_err(p, "%s", msg);
  return BT_OK;
}

/* ---- a frame ---- */

static void reload_queued(bt_lua_pool *p); /* below, with hot reload */

static void think_job(void *job, int index) {
  bt_lua_pool *p = job;
  pool_state *s = &p->st[index];
  lua_State *L = s->L;
  s->err[0] = '\0';
  lua_settop(L, 0);
  lbt_registry_get(L, LBT_REG_MODULE);
  lua_getfield(L, 1, "set_clock");
  lua_pushnumber(L, s->time);
  if (call_in(s, 1, 0) != BT_OK) return;
  lua_getfield(L, 1, "BrainManager");
  lua_getfield(L, -1, "Update");
  lua_insert(L, -2);
  lua_pushinteger(L, s->tick);
  call_in(s, 2, 0);
  lua_settop(L, 0);
}

static void deliver_job(void *job, int index) {
  bt_lua_pool *p = job;
  pool_state *s = &p->st[index];
  lua_State *L = s->L;
  for (size_t i = 0; i < s->in.n; i++) {
    pool_event *e = s->in.v[i];
    push_shared(L, "pool_deliver");
    lua_pushinteger(L, e->to);
    size_t pos = 0;
    decode_value(L, e->bytes, &pos); /* the event's name */
    decode_value(L, e->bytes, &pos); /* its data */
    lua_pushinteger(L, e->from);
    char saved[sizeof s->err];
    snprintf(saved, sizeof saved, "%s", s->err);
    if (call_in(s, 4, 0) != BT_OK && saved[0]) snprintf(s->err, sizeof s->err, "%s", saved); /* the first */
  }
  events_clear(&s->in);
  lua_settop(L, 0);
}

/* Runs fn for every state: on the host's executor, the pool's threads, or this thread. */
static int run_states(bt_lua_pool *p, bt_job_fn fn, void *job) {
  int rc = BT_OK;
  if (p->has_ex) rc = p->ex.run(p->ex.data, p->nstates, fn, job);
  else if (p->threads) rc = bt_pool_run(p->threads, p->nstates, fn, job);
  else
    for (int i = 0; i < p->nstates; i++) fn(job, i);
  return rc;
}

/* The frame's events, sorted, to their agents' states. */
static int route_events(bt_lua_pool *p) {
  event_vec all = {0};
  int rc = BT_OK;
  btp_mutex_lock(&p->lock);
  event_vec host = p->host_q;
  p->host_q = (event_vec){0};
  btp_mutex_unlock(&p->lock);
  size_t total = host.n;
  for (int i = 0; i < p->nstates; i++) total += p->st[i].out.n;
  if (total && !(all.v = malloc(total * sizeof *all.v))) rc = BT_ENOMEM;
  if (rc == BT_OK) {
    for (size_t j = 0; j < host.n; j++) all.v[all.n++] = host.v[j];
    host.n = 0;
    for (int i = 0; i < p->nstates; i++) {
      for (size_t j = 0; j < p->st[i].out.n; j++) all.v[all.n++] = p->st[i].out.v[j];
      p->st[i].out.n = 0;
    }
    if (all.n) qsort(all.v, all.n, sizeof *all.v, event_order);
    for (size_t j = 0; j < all.n; j++) {
      pool_event *e = all.v[j];
      const agent_slot *a = agents_find(&p->agents, e->to);
      if (!a || e->to < 1) {
        p->stats.dropped++;
        free(e);
      } else if (events_push(&p->st[a->state].in, e) != BT_OK) {
        free(e);
        rc = BT_ENOMEM;
      } else {
        p->stats.events++;
      }
    }
  }
  events_free(&host);
  free(all.v);
  return rc;
}

int bt_lua_pool_update(bt_lua_pool *p, long long tick, double time) {
  int rc = check_between_frames(p, "bt_lua_pool_update");
  if (rc != BT_OK) return rc;
  reload_queued(p);
  p->in_frame = 1;
  p->errmsg[0] = '\0';
  for (int i = 0; i < p->nstates; i++) {
    p->st[i].tick = tick;
    p->st[i].time = time;
  }
  double t0 = bt_time_monotonic();
  p->phase++;
  int run = run_states(p, think_job, p);
  double t1 = bt_time_monotonic();
  char first[sizeof p->st[0].err] = "";
  for (int i = 0; i < p->nstates && !first[0]; i++) snprintf(first, sizeof first, "%s", p->st[i].err);
  rc = route_events(p);
  double t2 = bt_time_monotonic();
  p->phase++;
  int run2 = run_states(p, deliver_job, p);
  double t3 = bt_time_monotonic();
  p->stats.think_seconds += t1 - t0;
  p->stats.route_seconds += t2 - t1;
  p->stats.deliver_seconds += t3 - t2;
  for (int i = 0; i < p->nstates && !first[0]; i++) snprintf(first, sizeof first, "%s", p->st[i].err);
  p->in_frame = 0;
  p->phase++;
  if (rc == BT_OK) rc = apply_changes(p);
  p->stats.frames++;
  if (run != BT_OK || run2 != BT_OK) {
    set_err(p, "bt_lua_pool_update: the executor failed (%d)", run != BT_OK ? run : run2);
    return run != BT_OK ? run : run2;
  }
  if (rc != BT_OK) {
    set_err(p, "not enough memory");
    return rc;
  }
  if (first[0]) {
    set_err(p, "tick %lld: %s", tick, first);
    return BT_EINVAL;
  }
  return BT_OK;
}

/* ---- hot reload in every state ---- */

typedef struct reload_job {
  bt_lua_pool *p;
  const char *const *names; /* the modules, reloaded together */
  int nnames;
  bt_buf sources; /* as state 0 read them */
  int apply;        /* the commit's phase: apply (1) or drop (0) */
  char *checked;    /* per state: its check passed */
} reload_job;

static void push_names(lua_State *L, const reload_job *r) {
  lua_createtable(L, r->nnames, 0);
  for (int i = 0; i < r->nnames; i++) {
    lua_pushstring(L, r->names[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void check_job(void *job, int index) {
  reload_job *r = job;
  if (index == 0) return; /* state 0 checked first */
  pool_state *s = &r->p->st[index];
  lua_State *L = s->L;
  s->err[0] = '\0';
  push_shared(L, "reload_check");
  push_names(L, r);
  size_t pos = 0;
  decode_value(L, r->sources.data, &pos);
  if (call_in(s, 2, 2) != BT_OK) return;
  if (lua_isnil(L, -2))
    snprintf(s->err, sizeof s->err, "state %d: %s", index, lua_tostring(L, -1) ? lua_tostring(L, -1) : "refused");
  else r->checked[index] = 1;
  lua_settop(L, 0);
}

static void commit_job(void *job, int index) {
  reload_job *r = job;
  if (!r->checked[index]) return;
  pool_state *s = &r->p->st[index];
  lua_State *L = s->L;
  int top = lua_gettop(L); /* state 0's stack may hold bt_lua_pool_reload_poll's list */
  s->err[0] = '\0';
  push_shared(L, "reload_commit");
  lua_pushboolean(L, r->apply);
  if (call_in(s, 1, 2) != BT_OK) return;
  if (lua_isnil(L, -2))
    snprintf(s->err, sizeof s->err, "state %d: %s", index, lua_tostring(L, -1) ? lua_tostring(L, -1) : "failed");
  lua_settop(L, top);
}

/* Reloads the modules together in every state, or in none: BT_OK, or an error with the message in
 * the pool's errmsg. */
static int reload_modules(bt_lua_pool *p, const char *const *names, int nnames) {
  reload_job r = {p, names, nnames, {0}, 0, calloc((size_t)p->nstates, 1)};
  if (!r.checked) {
    set_err(p, "not enough memory");
    return BT_ENOMEM;
  }
  int rc = BT_OK;
  p->in_frame = 1; /* no place, move or frame from inside the scripts' reload */
  /* state 0 reads the files, checks them, and gives the sources to the others */
  pool_state *s0 = &p->st[0];
  lua_State *L = s0->L;
  int top = lua_gettop(L);
  s0->err[0] = '\0';
  push_shared(L, "reload_check");
  push_names(L, &r);
  if (call_in(s0, 1, 2) == BT_OK) {
    if (lua_isnil(L, -2)) {
      snprintf(s0->err, sizeof s0->err, "state 0: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "refused");
    } else {
      r.checked[0] = 1;
      lua_pop(L, 1);
      encode_args a = {&r.sources, "bt_lua_pool_reload", "sources"};
      lua_pushcfunction(L, encode_protected);
      lua_insert(L, -2);
      lua_pushlightuserdata(L, &a);
      if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        snprintf(s0->err, sizeof s0->err, "state 0: %s", lua_tostring(L, -1));
        rc = BT_ENOMEM;
      }
    }
  }
  lua_settop(L, top);
  int all = r.checked[0] && rc == BT_OK;
  if (all) {
    for (int i = 1; i < p->nstates; i++) p->st[i].err[0] = '\0';
    rc = run_states(p, check_job, &r);
    for (int i = 0; i < p->nstates; i++) all = all && r.checked[i];
  }
  r.apply = all && rc == BT_OK;
  int run = run_states(p, commit_job, &r);
  if (rc == BT_OK) rc = run;
  p->in_frame = 0;
  const char *first = NULL;
  for (int i = 0; i < p->nstates && !first; i++)
    if (p->st[i].err[0]) first = p->st[i].err;
  if (first || !all) {
    set_err(p, "%s", first ? first : "the reload was refused");
    if (rc == BT_OK) rc = BT_EINVAL;
  }
  bt_buf_free(&r.sources);
  free(r.checked);
  return rc;
}

int bt_lua_pool_reload(bt_lua_pool *p, const char *module, char *err, size_t size) {
  char scratch[8];
  if (!err || !size) {
    err = scratch;
    size = sizeof scratch;
  }
  err[0] = '\0';
  int rc = check_between_frames(p, "bt_lua_pool_reload");
  if (rc != BT_OK || !module) {
    if (p && !module) set_err(p, "bt_lua_pool_reload: module is NULL");
    snprintf(err, size, "%s", p ? p->errmsg : "bt_lua_pool_reload: pool is NULL");
    return rc != BT_OK ? rc : BT_EINVAL;
  }
  rc = reload_modules(p, &module, 1);
  if (rc != BT_OK) snprintf(err, size, "%s", p->errmsg);
  return rc;
}

int bt_lua_pool_reload_later(bt_lua_pool *p, const char *module) {
  if (!p || !module) return BT_EINVAL;
  size_t len = strlen(module);
  btp_mutex_lock(&p->lock);
  int rc = BT_OK;
  if (p->nlater == p->cap_later) {
    int cap = p->cap_later ? p->cap_later * 2 : 8;
    char **v = realloc(p->later, (size_t)cap * sizeof *v);
    if (v) {
      p->later = v;
      p->cap_later = cap;
    } else {
      rc = BT_ENOMEM;
    }
  }
  char *copy = rc == BT_OK ? malloc(len + 1) : NULL;
  if (copy) {
    memcpy(copy, module, len + 1);
    p->later[p->nlater++] = copy;
  } else {
    rc = BT_ENOMEM;
  }
  btp_mutex_unlock(&p->lock);
  return rc;
}

void bt_lua_pool_set_reload_report(bt_lua_pool *p, bt_lua_pool_report_fn report, void *ud) {
  if (!p) return;
  p->report = report;
  p->report_ud = ud;
}

/* The reloads other threads asked for, in the order they asked, at a frame's start. */
static void reload_queued(bt_lua_pool *p) {
  btp_mutex_lock(&p->lock);
  char **later = p->later;
  int n = p->nlater;
  p->later = NULL;
  p->nlater = p->cap_later = 0;
  btp_mutex_unlock(&p->lock);
  for (int i = 0; i < n; i++) {
    int rc = reload_modules(p, (const char *const *)&later[i], 1);
    char msg[sizeof p->errmsg + 64];
    if (rc == BT_OK) {
      p->stats.reloads++;
      snprintf(msg, sizeof msg, "reloaded %s in %d state%s", later[i], p->nstates, p->nstates == 1 ? "" : "s");
    } else {
      p->stats.reloads_refused++;
      snprintf(msg, sizeof msg, "refused %s: %s", later[i], p->errmsg);
    }
    if (p->report) p->report(p->report_ud, later[i], rc == BT_OK, msg);
    free(later[i]);
  }
  free(later);
  p->errmsg[0] = '\0';
}

int bt_lua_pool_reload_watch(bt_lua_pool *p, const char *mode) {
  int rc = check_between_frames(p, "bt_lua_pool_reload_watch");
  if (rc != BT_OK) return rc;
  rc = bt_lua_reload_watch(p->st[0].L, mode);
  if (rc != BT_OK) set_err(p, "bt_lua_pool_reload_watch: mode %s is not available", mode ? mode : "(NULL)");
  return rc;
}

int bt_lua_pool_reload_poll(bt_lua_pool *p, bt_lua_pool_report_fn report, void *ud) {
  if (check_between_frames(p, "bt_lua_pool_reload_poll") != BT_OK) return 0;
  pool_state *s0 = &p->st[0];
  lua_State *L = s0->L;
  lua_settop(L, 0);
  push_shared(L, "reload_changed");
  if (call_in(s0, 0, 1) != BT_OK) {
    set_err(p, "%s", s0->err);
    return 0;
  }
  int changed = 1, count = 0;
  for (lua_Integer i = 1; lua_rawgeti(L, changed, i) == LUA_TTABLE; i++) {
    int entry = lua_gettop(L);
    lua_getfield(L, entry, "file");
    lua_getfield(L, entry, "modules");
    int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    const char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names) break;
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, list, k + 1);
      names[k] = lua_tostring(L, -1); /* kept alive by the list */
      lua_pop(L, 1);
    }
    char file[512];
    snprintf(file, sizeof file, "%s", lua_tostring(L, entry + 1));
    int rc = reload_modules(p, names, n); /* uses state 0's stack above these */
    free(names);
    char msg[sizeof p->errmsg + 600];
    if (rc == BT_OK) {
      p->stats.reloads++;
      snprintf(msg, sizeof msg, "reloaded %s in %d state%s", file, p->nstates, p->nstates == 1 ? "" : "s");
    } else {
      p->stats.reloads_refused++;
      snprintf(msg, sizeof msg, "refused %s: %s", file, p->errmsg);
    }
    if (report) report(ud, file, rc == BT_OK, msg);
    count++;
    lua_settop(L, changed);
  }
  lua_settop(L, 0);
  return count;
}
