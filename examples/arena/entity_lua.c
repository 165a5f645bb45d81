/* SPDX-License-Identifier: MIT */
/*
 * entity_lua.c: the entity interface of docs/entity.md, in C. Every creature and object is a Lua
 * table `inst` = {id = <n>, kind = "<kind>"} whose methods come from one shared metatable of C
 * functions; the world (world.c) keeps the state. Brains may add their own fields to inst.
 *
 * Each method's upvalues: 1 the state's arena_side (light userdata), 2 the key "id", 3 the metatable,
 * 4 insts (id -> inst, weak values), 5 listeners (id -> {event -> {fn, ...}}), 6 tags (name ->
 * bit). A removed entity keeps its inst (the same table) as long as some script holds it;
 * IsValid() is then false.
 *
 * The brains think on a pool of Lua states (bt_lua_pool, docs/threads.md): one state on the
 * calling thread with --threads 0 or 1, N states on N threads with --threads N. Every state has the
 * inst of every entity and thinks the brains of a shard of the creatures. A tick is the same in
 * every mode ("What a creature sees", below): while the brains think (the think phase) the world
 * is only read, and every method that writes (GoToPoint, TryAttack, Say, PushEvent to another, ...)
 * queues a command in its state's side; a creature's writes of itself are also noted in its own
 * view, which its own scripts read back at once. The serial phase (apply_commands) applies the
 * commands in the order of the entity written, then of the creature that wrote (ids), telling the
 * listeners in the state that thinks each entity ("actiondone", "attacked", "death", ...). So the
 * world after a tick does not depend on the number of states (docs/arena.md, "One world on any
 * number of threads").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "arena.h"
#include "kinds.h"
#include "replay.h"
#include "bt_lua.h"
#include "btp.h"

#define UV_ARENA lua_upvalueindex(1)
#define UV_IDKEY lua_upvalueindex(2)
#define UV_META lua_upvalueindex(3)
#define UV_INSTS lua_upvalueindex(4)
#define UV_LISTENERS lua_upvalueindex(5)
#define UV_TAGS lua_upvalueindex(6)
#define NUPVALUES 6

/* ---- a Lua state's side ---- */

/* A write asked for while the brains think: applied by apply_commands. */
enum { CMD_GO, CMD_DIR, CMD_STOP, CMD_FACE, CMD_TARGET, CMD_ATTACK, CMD_ACTION, CMD_SAY, CMD_EVENT };
enum { DATA_NIL, DATA_BOOLEAN, DATA_NUMBER, DATA_STRING };

typedef struct arena_cmd {
  int id;        /* the entity written: the first key of the order of application */
  int writer;    /* the creature whose scripts asked (0: none, the host's), then ... */
  int side;      /* ... the state that queued it, then ... */
  long long seq; /* ... the order it queued them in */
  int op;
  int other;     /* a target entity's id, or 0 */
  int flag;      /* run; an event's data type (DATA_*) */
  double x, y;   /* a point; an angle (x); an event's number or boolean (x) */
  char *text;    /* the action, the line said, the event's name (malloc'd) */
  char *data;    /* an event's string (malloc'd), or NULL */
} arena_cmd;

struct arena_side {
  arena *a;
  lua_State *L;
  int state; /* its number in the pool */
  int ref_insts, ref_live, ref_listeners, ref_meta;
  int ref_ids;     /* lua_topointer(inst) (a light userdata) -> id, for the entities in the world */
  int ref_classes; /* kind name -> Brain class */
  int ref_manager, ref_stats;
  int ref_doing, ref_inspect_select, ref_inspect_read, ref_set_key;
  int ref_set_clock;  /* bt.set_clock */
  double clock_at;    /* the time pool_write_keys gave bt.set_clock, or -1 */
  world_scratch scratch; /* FindEntities' */
  arena_cmd *cmds;       /* queued since the last serial phase */
  int ncmds, cap_cmds;
  long long seq;
  int telling; /* the serial phase: the entity whose listeners it calls, or 0 */
};

static int load_classes(arena *a, int k);
static void pool_start_brain(arena *a, entity *e);
static void apply_commands(arena *a);

/* report() is called on the pool's threads at once: one lock, made once */
static btp_mutex report_lock;
static btp_once report_lock_made = BTP_ONCE_INIT;
static void make_report_lock(void) { btp_mutex_init(&report_lock); }

/* ---- errors ---- */

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* An error for the view's last line (and, live, for the report at exit). */
static void show_error(arena *a, const char *msg) {
  error_line(a->status, sizeof a->status, msg, a->data_dir, sizeof a->status - 1);
  a->status_ok = 0;
  a->status_time = a->w.time;
  if (a->live) error_log_add(&a->errors, msg);
}

/* Every contained script error comes here: bt's error handler and the host's own pcalls. */
static void report_locked(arena *a, const char *msg);
static void report(arena *a, const char *msg) {
  btp_once_run(&report_lock_made, make_report_lock);
  btp_mutex_lock(&report_lock);
  report_locked(a, msg);
  btp_mutex_unlock(&report_lock);
}

static void report_locked(arena *a, const char *msg) {
  a->script_errors++;
  error_line(a->status, sizeof a->status, msg, a->data_dir, sizeof a->status - 1);
  a->status_ok = 0;
  a->status_time = a->w.time;
  if (a->live) {
    size_t n = strlen(msg) + 16;
    char *full = malloc(n);
    if (full) snprintf(full, n, "script error: %s", msg);
    error_log_add(&a->errors, full ? full : msg);
    free(full);
    return;
  }
  if (a->script_errors <= 10) fprintf(stderr, "bt-arena: script error: %s\n", msg);
  if (a->script_errors == 10)
    fprintf(stderr, "bt-arena: further script errors are counted, not shown (script_errors= in the summary)\n");
}

static int error_handler(lua_State *L) {
  arena_side *side = lua_touserdata(L, lua_upvalueindex(1));
  report(side->a, luaL_optstring(L, 1, "(no message)"));
  return 0;
}

/* The most Lua VM instructions one call from the host or from bt into a script may run: a
 * runaway script (`while true do end`) fails its call instead of freezing the game. */
#define INSTRUCTION_LIMIT 10000000

static void limit_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  luaL_error(L, "instruction limit exceeded (%d instructions)", INSTRUCTION_LIMIT);
}

/* lua_pcall under traceback; reports a failure. The function and its nargs arguments are on
 * the stack. Returns 0 on success (nres results left), -1 on error (nothing left). */
static int pcall_report(arena *a, lua_State *L, int nargs, int nres) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  int hook = lua_gethook(L) == NULL; /* inside a think, bt's own limit is on already */
  if (hook) lua_sethook(L, limit_hook, LUA_MASKCOUNT, INSTRUCTION_LIMIT);
  int rc = lua_pcall(L, nargs, nres, base);
  if (hook) lua_sethook(L, NULL, 0, 0);
  if (rc != LUA_OK) {
    report(a, lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object is not a string)");
    lua_settop(L, base - 1);
    return -1;
  }
  lua_remove(L, base);
  return 0;
}

/* ---- the entity of an argument ---- */

static arena_side *side_of(lua_State *L) { return lua_touserdata(L, UV_ARENA); }
static arena *arena_of(lua_State *L) { return side_of(L)->a; }

/* ---- what a creature sees ----
 *
 * While the brains think, the world stands as the last serial phase left it: every creature reads
 * the same world, whichever state thinks it and in whatever order. A write is a command, applied in
 * the serial phase. What a creature writes of itself (it moves or stops, starts an action, swings,
 * sets its target) its own scripts read back at once from its own view (entity.own), as in a
 * serial game: after GoToPoint, IsMoving() is true; after StartAction, IsBusy(); after SetTarget,
 * GetTarget() the new target. Everyone else reads the world until the commands are applied. */

/* The id of the creature whose scripts make this call: the one whose tree runs it
 * (bt_lua_running_entity; self, at 1, for a method called on itself), or outside any tree the one
 * whose listeners the serial phase calls; 0 for none (the host's own calls). */
static int writer_of(lua_State *L, const entity *self) {
  arena_side *side = side_of(L);
  const void *p = bt_lua_running_entity(L);
  if (!p) return side->telling;
  if (p == lua_topointer(L, 1)) return self->id;
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_ids);
  lua_rawgetp(L, -1, p);
  int id = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return id;
}

/* e's own view, if this call is made by e's own scripts and they wrote e since its commands were
 * last applied; else NULL (read the world). Only e's state writes e->own, and the others do not
 * read it. */
static const own_view *own_of(lua_State *L, const entity *e) {
  arena_side *side = side_of(L);
  if (e->shard != side->state || e->own.gen != side->a->gen) return NULL;
  return writer_of(L, e) == e->id ? &e->own : NULL;
}

/* e's own view, to write: made current (empty) if it was not. */
static own_view *own_write(entity *e, const arena *a) {
  if (e->own.gen != a->gen) {
    e->own.gen = a->gen;
    e->own.set = 0;
  }
  return &e->own;
}

/* A command for entity e, queued in the state's side, which owns text and data (malloc'd or
 * NULL); an error without memory, nothing queued. Call it once the arguments are checked. *own
 * (if not NULL) is e's own view when e's own scripts ask, to note what the command will do; else
 * NULL. */
static arena_cmd *queue_with(lua_State *L, int op, entity *e, char *text, char *data, own_view **own) {
  arena_side *side = side_of(L);
  if (side->ncmds == side->cap_cmds) {
    int cap = side->cap_cmds ? side->cap_cmds * 2 : 256;
    arena_cmd *p = realloc(side->cmds, (size_t)cap * sizeof *p);
    if (!p) {
      free(text);
      free(data);
      luaL_error(L, "not enough memory for a command");
    }
    side->cmds = p;
    side->cap_cmds = cap;
  }
  arena_cmd *c = &side->cmds[side->ncmds++];
  memset(c, 0, sizeof *c);
  c->id = e->id;
  c->writer = writer_of(L, e);
  c->side = side->state;
  c->seq = side->seq++;
  c->op = op;
  c->text = text;
  c->data = data;
  if (own) *own = c->writer == e->id && e->shard == side->state ? own_write(e, side->a) : NULL;
  return c;
}

static arena_cmd *queue(lua_State *L, int op, entity *e, own_view **own) {
  return queue_with(L, op, e, NULL, NULL, own);
}

/* A copy of s for a command (NULL for NULL), or NULL without memory. */
static char *copy_text(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

/* A command with a copy of text (and of data, if not NULL) for entity e; an error without memory. */
static arena_cmd *queue_text(lua_State *L, int op, entity *e, const char *text, const char *data, own_view **own) {
  char *t = copy_text(text), *d = copy_text(data);
  if (!t || (data && !d)) {
    free(t);
    free(d);
    luaL_error(L, "not enough memory for a command");
  }
  return queue_with(L, op, e, t, d, own);
}

/* The entity the value at idx stands for (its table with our metatable), or NULL. */
static entity *to_entity(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return NULL;
  int ours = lua_rawequal(L, -1, UV_META);
  lua_pop(L, 1);
  if (!ours) return NULL;
  lua_pushvalue(L, UV_IDKEY);
  lua_rawget(L, idx);
  int isnum;
  lua_Integer id = lua_tointegerx(L, -1, &isnum);
  lua_pop(L, 1);
  return isnum ? world_any(&arena_of(L)->w, (int)id) : NULL;
}

static entity *self(lua_State *L) {
  entity *e = to_entity(L, 1);
  if (!e) luaL_error(L, "bad self (an entity expected, got %s); call methods with ':'", luaL_typename(L, 1));
  return e;
}

/* An entity argument: nil gives NULL; anything else but an entity is an error. */
static entity *opt_entity(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx)) return NULL;
  entity *e = to_entity(L, idx);
  if (!e) luaL_typeerror(L, idx, "entity");
  return e;
}

/* A point: x, y at idx, or an entity (its position). Returns the index after it. */
static int check_point(lua_State *L, int idx, double *x, double *y) {
  entity *e = to_entity(L, idx);
  if (e) {
    *x = e->x;
    *y = e->y;
    return idx + 1;
  }
  *x = luaL_checknumber(L, idx);
  *y = luaL_checknumber(L, idx + 1);
  return idx + 2;
}

static void push_inst(lua_State *L, int id) {
  lua_rawgeti(L, UV_INSTS, id);
}

/* The bit of the tag name at idx, or -1. */
static int tag_bit(lua_State *L, int idx) {
  lua_pushvalue(L, idx);
  lua_rawget(L, UV_TAGS);
  int isnum;
  int b = (int)lua_tointegerx(L, -1, &isnum);
  lua_pop(L, 1);
  return isnum ? b : -1;
}

/* Tags from a string, a list of strings, or nil. all: 0 when a tag no entity has is named
 * (nothing matches: *impossible = 1); none: unknown tags are ignored. */
static tagmask check_tags(lua_State *L, int idx, int *impossible) {
  tagmask m = 0;
  int t = lua_type(L, idx);
  if (t == LUA_TNONE || t == LUA_TNIL) return 0;
  if (t == LUA_TSTRING) {
    int b = tag_bit(L, idx);
    if (b < 0) *impossible = 1;
    else m |= (tagmask)1 << b;
    return m;
  }
  if (t != LUA_TTABLE) luaL_typeerror(L, idx, "tag, list of tags or nil");
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_rawgeti(L, idx, i) != LUA_TSTRING) luaL_argerror(L, idx, "tags must be strings");
    int b = tag_bit(L, -1);
    lua_pop(L, 1);
    if (b < 0) *impossible = 1;
    else m |= (tagmask)1 << b;
  }
  return m;
}

/* ---- events ---- */

/* Calls the listeners of entity id for `event` with (inst, data), data at index `data` (0: nil),
 * in the order they were added; a listener added or removed meanwhile takes effect next time.
 * Needs the methods' upvalues, or the tables pushed at insts/listeners. Outside a tree, what the
 * listeners write is id's own writing (side->telling). */
static void dispatch(lua_State *L, arena_side *side, int insts, int listeners, int id, const char *event,
                     int data) {
  arena *a = side->a;
  int top = lua_gettop(L);
  if (data) data = lua_absindex(L, data);
  insts = lua_absindex(L, insts);
  listeners = lua_absindex(L, listeners);
  if (lua_rawgeti(L, listeners, id) != LUA_TTABLE || lua_getfield(L, -1, event) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  int list = lua_gettop(L);
  int n = (int)lua_rawlen(L, list);
  luaL_checkstack(L, n + 8, "too many listeners");
  lua_rawgeti(L, insts, id);
  int inst = lua_gettop(L);
  for (int i = 1; i <= n; i++) lua_rawgeti(L, list, i);
  int first = inst + 1;
  int telling = side->telling;
  side->telling = id;
  for (int i = 0; i < n; i++) {
    lua_pushvalue(L, first + i);
    lua_pushvalue(L, inst);
    if (data) lua_pushvalue(L, data);
    else lua_pushnil(L);
    pcall_report(a, L, 2, 0);
  }
  side->telling = telling;
  lua_settop(L, top);
}

/* Pushes "actiondone" {action, target, success} to the entity that did it (if still in the
 * world); frees d->action. insts and listeners: as for dispatch. */
static void deliver_done(lua_State *L, arena_side *side, int insts, int listeners, action_done *d) {
  if (world_get(&side->a->w, d->id)) {
    insts = lua_absindex(L, insts);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, d->action);
    lua_setfield(L, -2, "action");
    if (d->target) {
      lua_rawgeti(L, insts, d->target); /* nil only if no script holds it any more */
      lua_setfield(L, -2, "target");
    }
    lua_pushboolean(L, d->success);
    lua_setfield(L, -2, "success");
    dispatch(L, side, insts, listeners, d->id, "actiondone", -1);
    lua_pop(L, 1);
  }
  free(d->action);
  d->action = NULL;
}

/* Pushes "death" {cause, afflicter} to a creature that just died, once. */
static void push_death(lua_State *L, arena_side *side, int insts, int listeners, entity *e) {
  if (e->death_pushed || !e->valid) return;
  e->death_pushed = 1;
  insts = lua_absindex(L, insts);
  lua_createtable(L, 0, 2);
  lua_pushstring(L, e->cause ? e->cause : "unknown");
  lua_setfield(L, -2, "cause");
  if (e->killer) {
    lua_rawgeti(L, insts, e->killer);
    lua_setfield(L, -2, "afflicter");
  }
  dispatch(L, side, insts, listeners, e->id, "death", -1);
  lua_pop(L, 1);
}

static int m_listen(lua_State *L) {
  entity *e = self(L);
  const char *event = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  if (!e->valid) return 0;
  if (lua_rawgeti(L, UV_LISTENERS, e->id) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, UV_LISTENERS, e->id);
  }
  if (lua_getfield(L, -1, event) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, event);
  }
  lua_pushvalue(L, 3);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  return 0;
}

/* Removes every registration of fn for the event (as Don't Starve's RemoveByValue). */
static int m_remove_callback(lua_State *L) {
  entity *e = self(L);
  const char *event = luaL_checkstring(L, 2);
  if (lua_rawgeti(L, UV_LISTENERS, e->id) != LUA_TTABLE || lua_getfield(L, -1, event) != LUA_TTABLE) return 0;
  int list = lua_gettop(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, list), kept = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    if (lua_rawequal(L, -1, 3)) {
      lua_pop(L, 1);
      continue;
    }
    lua_rawseti(L, list, ++kept);
  }
  for (lua_Integer i = kept + 1; i <= n; i++) {
    lua_pushnil(L);
    lua_rawseti(L, list, i);
  }
  return 0;
}

/* An event a creature pushes to itself is heard at once, as in a serial game; one pushed to
 * another is heard in the serial phase, in the state that thinks it: its data must cross. */
static int m_push_event(lua_State *L) {
  entity *e = self(L);
  const char *event = luaL_checkstring(L, 2);
  if (e->shard == side_of(L)->state && writer_of(L, e) == e->id) {
    dispatch(L, side_of(L), UV_INSTS, UV_LISTENERS, e->id, event, lua_isnoneornil(L, 3) ? 0 : 3);
    return 0;
  }
  int t = lua_type(L, 3);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TNUMBER && t != LUA_TSTRING)
    luaL_argerror(L, 3, lua_pushfstring(L, "an event pushed to another entity carries nil, a boolean, a number or "
                                           "a string (it may go to another Lua state), got %s", luaL_typename(L, 3)));
  const char *text = t == LUA_TSTRING ? lua_tostring(L, 3) : NULL;
  double x = t == LUA_TNUMBER ? lua_tonumber(L, 3) : t == LUA_TBOOLEAN ? lua_toboolean(L, 3) : 0;
  arena_cmd *c = queue_text(L, CMD_EVENT, e, event, text, NULL);
  c->flag = t == LUA_TSTRING ? DATA_STRING : t == LUA_TNUMBER ? DATA_NUMBER : t == LUA_TBOOLEAN ? DATA_BOOLEAN : DATA_NIL;
  c->x = x;
  return 0;
}

/* ---- identity ---- */

static int m_is_valid(lua_State *L) {
  lua_pushboolean(L, self(L)->valid);
  return 1;
}

static int m_is_dead(lua_State *L) {
  lua_pushboolean(L, self(L)->dead);
  return 1;
}

static int m_has_tag(lua_State *L) {
  entity *e = self(L);
  luaL_checktype(L, 2, LUA_TSTRING);
  int b = tag_bit(L, 2);
  lua_pushboolean(L, b >= 0 && (e->tags >> b) & 1);
  return 1;
}

/* ---- space and movement ---- */

static int m_get_position(lua_State *L) {
  entity *e = self(L);
  lua_pushnumber(L, e->x);
  lua_pushnumber(L, e->y);
  return 2;
}

static int m_distsq(lua_State *L) {
  entity *e = self(L);
  double x, y;
  check_point(L, 2, &x, &y);
  double dx = e->x - x, dy = e->y - y;
  lua_pushnumber(L, dx * dx + dy * dy);
  return 1;
}

static int m_face_point(lua_State *L) {
  entity *e = self(L);
  double x, y;
  check_point(L, 2, &x, &y);
  arena_cmd *c = queue(L, CMD_FACE, e, NULL);
  c->x = x;
  c->y = y;
  return 0;
}

/* What a movement command does, as its own scripts see it: world_go_to and world_move_dir move a
 * creature that can act, and end what it was doing. */
static void own_moves(own_view *own, const entity *e, int valid) {
  if (!own || !valid || !e->valid || e->dead) return;
  own->set |= OWN_MOVE | OWN_BUSY;
  own->moving = 1;
  own->busy = 0;
}

static int m_go_to_point(lua_State *L) {
  entity *e = self(L);
  double x, y;
  int next = check_point(L, 2, &x, &y);
  own_view *own;
  arena_cmd *c = queue(L, CMD_GO, e, &own);
  c->x = x;
  c->y = y;
  c->flag = lua_toboolean(L, next);
  own_moves(own, e, isfinite(x) && isfinite(y));
  return 0;
}

static int move_dir(lua_State *L, int run) {
  entity *e = self(L);
  double angle = luaL_checknumber(L, 2);
  own_view *own;
  arena_cmd *c = queue(L, CMD_DIR, e, &own);
  c->x = angle;
  c->flag = run;
  own_moves(own, e, isfinite(angle));
  return 0;
}
static int m_walk_dir(lua_State *L) { return move_dir(L, 0); }
static int m_run_dir(lua_State *L) { return move_dir(L, 1); }

static int m_stop(lua_State *L) {
  entity *e = self(L);
  own_view *own;
  queue(L, CMD_STOP, e, &own);
  if (own) {
    own->set |= OWN_MOVE;
    own->moving = 0;
  }
  return 0;
}

static int m_is_moving(lua_State *L) {
  entity *e = self(L);
  const own_view *own = own_of(L, e);
  lua_pushboolean(L, own && (own->set & OWN_MOVE) ? own->moving : e->move != MOVE_NONE);
  return 1;
}

static int m_walkable_offset(lua_State *L) {
  self(L);
  double x, y, ox, oy;
  int next = check_point(L, 2, &x, &y);
  double angle = luaL_checknumber(L, next), radius = luaL_checknumber(L, next + 1);
  if (!world_walkable_offset(&arena_of(L)->w, x, y, angle, radius, &ox, &oy)) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushnumber(L, ox);
  lua_pushnumber(L, oy);
  return 2;
}

static int m_get_home(lua_State *L) {
  entity *e = self(L);
  if (!e->has_home) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushnumber(L, e->hx);
  lua_pushnumber(L, e->hy);
  return 2;
}

/* ---- finding others ---- */

static int m_find_entity(lua_State *L) {
  entity *e = self(L);
  double r = luaL_checknumber(L, 2);
  int impossible = 0, ignored = 0;
  tagmask all = check_tags(L, 3, &impossible), none = check_tags(L, 4, &ignored);
  entity *o = impossible ? NULL : world_find(&arena_of(L)->w, e, r, all, none);
  if (o) push_inst(L, o->id);
  else lua_pushnil(L);
  return 1;
}

static int m_find_entities(lua_State *L) {
  entity *e = self(L);
  double r = luaL_checknumber(L, 2);
  int impossible = 0, ignored = 0;
  tagmask all = check_tags(L, 3, &impossible), none = check_tags(L, 4, &ignored);
  const int *ids = NULL;
  int n = impossible ? 0 : world_find_all_in(&arena_of(L)->w, &side_of(L)->scratch, e, r, all, none, &ids);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    push_inst(L, ids[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* ---- combat ---- */

/* The target of e as the caller sees it: the one e's own scripts set, or the world's. */
static int target_of(lua_State *L, const entity *e) {
  const own_view *own = own_of(L, e);
  return own && (own->set & OWN_TARGET) ? own->target : e->target;
}

/* The target as set, dead or alive, until it leaves the world (then nil). */
static int m_get_target(lua_State *L) {
  entity *e = self(L);
  entity *t = world_get(&arena_of(L)->w, target_of(L, e));
  if (!t) lua_pushnil(L);
  else push_inst(L, t->id);
  return 1;
}

static int m_set_target(lua_State *L) {
  entity *e = self(L);
  entity *t = opt_entity(L, 2);
  own_view *own;
  arena_cmd *c = queue(L, CMD_TARGET, e, &own);
  c->other = t ? t->id : 0;
  if (own) {
    own->set |= OWN_TARGET;
    own->target = c->other;
  }
  return 0;
}

static int m_can_target(lua_State *L) {
  entity *e = self(L);
  lua_pushboolean(L, world_can_target(e, to_entity(L, 2)));
  return 1;
}

static int m_attack_range(lua_State *L) {
  lua_pushnumber(L, self(L)->range);
  return 1;
}

/* Whether e is in cooldown as the caller sees it: since its own swing, if e's own scripts swung. */
static int cooldown_of(lua_State *L, const entity *e) {
  const own_view *own = own_of(L, e);
  double last = own && (own->set & OWN_ATTACK) ? own->last_attack : e->last_attack;
  return arena_of(L)->w.time < last + e->cooldown;
}

static int m_in_cooldown(lua_State *L) {
  entity *e = self(L);
  lua_pushboolean(L, cooldown_of(L, e));
  return 1;
}

/* The swing is made in the serial phase: true if it can swing now (world_attack_possible, with
 * the attacker's own cooldown). A swing ends what the attacker was doing. */
static int m_try_attack(lua_State *L) {
  arena *a = arena_of(L);
  entity *e = self(L);
  entity *t = lua_isnoneornil(L, 2) ? world_get(&a->w, target_of(L, e)) : opt_entity(L, 2);
  int can = t && world_attack_possible(&a->w, e, t) && !cooldown_of(L, e);
  if (can) {
    own_view *own;
    queue(L, CMD_ATTACK, e, &own)->other = t->id;
    if (own) {
      own->set |= OWN_ATTACK | OWN_BUSY;
      own->last_attack = a->w.time;
      own->busy = 0;
    }
  }
  lua_pushboolean(L, can);
  return 1;
}

static int m_get_health(lua_State *L) {
  lua_pushnumber(L, self(L)->health);
  return 1;
}

/* ---- actions and needs ---- */

/* Started in the serial phase: true if it can start now (world_action_possible). Starting one
 * ends the running action and stops the creature. */
static int m_start_action(lua_State *L) {
  entity *e = self(L);
  const char *action = luaL_checkstring(L, 2);
  entity *t = opt_entity(L, 3);
  int can = world_action_possible(&arena_of(L)->w, e, action, t);
  if (can) {
    own_view *own;
    queue_text(L, CMD_ACTION, e, action, NULL, &own)->other = t ? t->id : 0;
    if (own) {
      own->set |= OWN_MOVE | OWN_BUSY;
      own->moving = 0;
      own->busy = 1;
    }
  }
  lua_pushboolean(L, can);
  return 1;
}

static int m_is_busy(lua_State *L) {
  entity *e = self(L);
  const own_view *own = own_of(L, e);
  lua_pushboolean(L, own && (own->set & OWN_BUSY) ? own->busy : e->action != NULL);
  return 1;
}

static int m_get_hunger(lua_State *L) {
  lua_pushnumber(L, self(L)->hunger);
  return 1;
}

static int m_is_tired(lua_State *L) {
  lua_pushboolean(L, world_is_tired(self(L)));
  return 1;
}

/* ---- talk and time of day ---- */

static int m_say(lua_State *L) {
  entity *e = self(L);
  const char *text = luaL_checkstring(L, 2);
  queue_text(L, CMD_SAY, e, text, NULL, NULL);
  return 0;
}

static int m_is_day(lua_State *L) {
  self(L);
  lua_pushboolean(L, world_is_day(&arena_of(L)->w));
  return 1;
}

static int m_tostring(lua_State *L) {
  entity *e = to_entity(L, 1);
  if (e) lua_pushfstring(L, "%s#%d", kind_name(&arena_of(L)->w, e->kind), e->id);
  else lua_pushliteral(L, "entity");
  return 1;
}

static const luaL_Reg METHODS[] = {
    {"IsValid", m_is_valid},
    {"IsDead", m_is_dead},
    {"HasTag", m_has_tag},
    {"GetPosition", m_get_position},
    {"GetDistanceSqTo", m_distsq},
    {"FacePoint", m_face_point},
    {"GoToPoint", m_go_to_point},
    {"WalkInDirection", m_walk_dir},
    {"RunInDirection", m_run_dir},
    {"Stop", m_stop},
    {"IsMoving", m_is_moving},
    {"GetWalkableOffset", m_walkable_offset},
    {"GetHome", m_get_home},
    {"FindEntity", m_find_entity},
    {"FindEntities", m_find_entities},
    {"GetTarget", m_get_target},
    {"SetTarget", m_set_target},
    {"CanTarget", m_can_target},
    {"GetAttackRange", m_attack_range},
    {"InCooldown", m_in_cooldown},
    {"TryAttack", m_try_attack},
    {"GetHealth", m_get_health},
    {"StartAction", m_start_action},
    {"IsBusy", m_is_busy},
    {"GetHunger", m_get_hunger},
    {"IsTired", m_is_tired},
    {"Say", m_say},
    {"IsDay", m_is_day},
    {"ListenForEvent", m_listen},
    {"RemoveEventCallback", m_remove_callback},
    {"PushEvent", m_push_event},
    {NULL, NULL},
};

/* ---- helpers written in Lua ---- */

static const char GLUE[] =
    "local M = {}\n"
    "-- the name of the deepest RUNNING node in pre-order\n"
    "function M.doing(inst)\n"
    "  local brain = rawget(inst, 'brain')\n"
    "  if not brain then return '-' end\n"
    "  if brain.stopped then return '(stopped)' end\n"
    "  if not brain.bt then return '(no tree)' end\n"
    "  local name, depth = '(idle)', -1\n"
    "  for _, n in ipairs(brain.bt:snapshot()) do\n"
    "    if n.status == 'RUNNING' and n.depth > depth then name, depth = n.name, n.depth end\n"
    "  end\n"
    "  return name\n"
    "end\n"
    "-- the inspector: the selected creature, and a recorder on its tree (the only one recorded)\n"
    "local bt = require 'bt'\n"
    "local picked = {}\n"
    "local function detach()\n"
    "  if picked.tree and picked.rec and not picked.shared then pcall(picked.tree.record, picked.tree, nil) end\n"
    "  picked.tree, picked.rec, picked.shared = nil, nil, nil\n"
    "end\n"
    "function M.inspect_select(inst)\n"
    "  detach()\n"
    "  picked = {inst = inst}\n"
    "end\n"
    "-- the recorder follows the creature's tree (a brain that restarts has a new one); a bt built\n"
    "-- without the recorder refuses it, and says so. With --record the brain has a recorder of its\n"
    "-- own, writing to the log: its ring is read, and no other recorder replaces it\n"
    "local function attach(tree, brain)\n"
    "  local own = brain and rawget(brain, 'recorder')\n"
    "  if own then\n"
    "    if own ~= picked.rec then detach(); picked.tree, picked.rec, picked.shared = tree, own, true end\n"
    "    return\n"
    "  end\n"
    "  if tree == picked.tree then return end\n"
    "  detach()\n"
    "  picked.tree, picked.refused = tree, nil\n"
    "  if not tree then return end\n"
    "  local rec = bt.Recorder{capacity = 64}\n"
    "  local ok, err = pcall(tree.record, tree, rec)\n"
    "  if ok then picked.rec = rec else picked.refused = tostring(err) end\n"
    "end\n"
    "-- the selected creature's tree:snapshot() (or nil and why not), and its records (or nil and\n"
    "-- why not)\n"
    "function M.inspect_read()\n"
    "  local inst = picked.inst\n"
    "  if not inst then return nil, 'nothing selected', nil, 'nothing selected' end\n"
    "  local brain = rawget(inst, 'brain')\n"
    "  local tree = type(brain) == 'table' and brain.bt or nil\n"
    "  attach(tree, type(brain) == 'table' and brain or nil)\n"
    "  local snap, why, records, none\n"
    "  if not brain then why = 'no brain'\n"
    "  elseif not tree then why = 'no tree (the brain has not built it)'\n"
    "  else snap = tree:snapshot() end\n"
    "  if picked.rec then records = picked.rec:records()\n"
    "  else none = picked.refused or 'no tree to record' end\n"
    "  return snap, why, records, none\n"
    "end\n"
    "-- the host writes a blackboard key of a creature's brain (docs/arena.md, 'What the host writes')\n"
    "local function set(board, key, value) board[key] = value end\n"
    "function M.set_key(inst, key, value)\n"
    "  local brain = rawget(inst, 'brain')\n"
    "  local tree = type(brain) == 'table' and brain.bt or nil\n"
    "  if tree == nil then return end\n"
    "  local board = tree.board\n"
    "  if board == nil then\n"
    "    error(tostring(inst) .. \": the host writes its key '\" .. key .. \"' (keys in brains/kinds.lua), \" ..\n"
    "      'but its brain has no blackboard (bt.SharedBrain(build, Board))', 0)\n"
    "  end\n"
    "  local ok, err = pcall(set, board, key, value)\n"
    "  if not ok then error(tostring(inst) .. ': ' .. tostring(err), 0) end\n"
    "end\n"
    "return M\n";

static int ref_field(lua_State *L, int t, const char *name) {
  lua_getfield(L, t, name);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

static int clock_fn(lua_State *L) {
  arena *a = lua_touserdata(L, lua_upvalueindex(1));
  lua_pushnumber(L, a->w.time);
  return 1;
}

/* Sets up a state of the pool (the standard libraries and bt open) for the arena: the package
 * path, the clock, the error handler, the entities' metatable, the helpers; its refs go into
 * side. 0, or -1 with a message in err. */
static int setup_side(arena *a, arena_side *side, lua_State *L, unsigned long long seed, char *err, size_t size) {
  side->a = a;
  side->L = L;
  /* brains and behaviours come from the data directory, before anything else */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", a->data_dir, a->data_dir, lua_tostring(L, -1));
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);

  /* the state's own math.random: what bt.random draws from outside any creature's tree */
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, (lua_Integer)(seed & 0x7fffffffffffffffULL));
  lua_call(L, 1, 0);
  lua_pop(L, 1);

  luaL_requiref(L, "bt", luaopen_bt, 0); /* package.loaded.bt */
  int bt = lua_gettop(L);
  lua_getfield(L, bt, "set_clock");
  lua_pushvalue(L, -1);
  side->ref_set_clock = luaL_ref(L, LUA_REGISTRYINDEX);
  side->clock_at = -1;
  lua_pushlightuserdata(L, a);
  lua_pushcclosure(L, clock_fn, 1);
  lua_call(L, 1, 0);
  lua_getfield(L, bt, "set_tick_time");
  lua_pushnumber(L, a->w.dt);
  lua_call(L, 1, 0);
  lua_getfield(L, bt, "set_error_handler");
  lua_pushlightuserdata(L, side);
  lua_pushcclosure(L, error_handler, 1);
  lua_call(L, 1, 0);
  lua_getfield(L, bt, "set_instruction_limit");
  lua_pushinteger(L, INSTRUCTION_LIMIT);
  lua_call(L, 1, 0);
  /* brains.* and behaviours.* load in the sandbox: no io, os.execute, debug, binary chunks */
  lua_getfield(L, bt, "sandbox");
  lua_getfield(L, -1, "install");
  lua_call(L, 0, 0);
  lua_pop(L, 1);
  lua_getfield(L, bt, "BrainManager");
  int manager = lua_gettop(L);
  lua_pushvalue(L, manager);
  side->ref_manager = luaL_ref(L, LUA_REGISTRYINDEX);
  side->ref_stats = ref_field(L, manager, "GetStats");
  lua_settop(L, 0);

  /* the entities' metatable and its methods */
  lua_newtable(L); /* 1: metatable */
  lua_newtable(L); /* 2: insts */
  lua_newtable(L); /* 3: listeners */
  lua_createtable(L, 0, 1); /* insts' values are weak */
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, 2);
  lua_pushvalue(L, 2);
  side->ref_insts = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  side->ref_live = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 3);
  side->ref_listeners = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 1);
  side->ref_meta = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  side->ref_ids = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L); /* 4: tags */
  for (int i = 0; i < a->w.ntags; i++) {
    lua_pushinteger(L, i);
    lua_setfield(L, 4, a->w.tag_names[i]);
  }
  lua_createtable(L, 0, (int)(sizeof METHODS / sizeof *METHODS)); /* 5: __index */
  for (const luaL_Reg *r = METHODS; r->name; r++) {
    lua_pushlightuserdata(L, side);
    lua_pushliteral(L, "id");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    lua_pushcclosure(L, r->func, NUPVALUES);
    lua_setfield(L, 5, r->name);
  }
  lua_setfield(L, 1, "__index");
  lua_pushlightuserdata(L, side);
  lua_pushliteral(L, "id");
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 4);
  lua_pushcclosure(L, m_tostring, NUPVALUES);
  lua_setfield(L, 1, "__tostring");
  lua_pushliteral(L, "entity");
  lua_setfield(L, 1, "__name");
  lua_settop(L, 0);

  if (luaL_loadbuffer(L, GLUE, sizeof GLUE - 1, "=arena") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    snprintf(err, size, "%s", lua_tostring(L, -1));
    return -1;
  }
  side->ref_doing = ref_field(L, 1, "doing");
  side->ref_inspect_select = ref_field(L, 1, "inspect_select");
  side->ref_inspect_read = ref_field(L, 1, "inspect_read");
  side->ref_set_key = ref_field(L, 1, "set_key");
  lua_newtable(L);
  side->ref_classes = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, 0);
  return 0;
}

static arena_side *side_new(int state) {
  arena_side *side = calloc(1, sizeof *side);
  if (side) side->state = state;
  return side;
}

static void side_free(arena_side *side) {
  if (!side) return;
  for (int i = 0; i < side->ncmds; i++) {
    free(side->cmds[i].text);
    free(side->cmds[i].data);
  }
  free(side->cmds);
  world_scratch_free(&side->scratch);
  free(side);
}

static int open_pool_state(void *ud, lua_State *L, int state, char *err, size_t size);

int arena_lua_init(arena *a, unsigned long long seed) {
  char err[1024];
  /* --threads 0 and 1: one state, which the pool thinks on the calling thread */
  int states = a->threads > 1 ? a->threads : 1;
  for (int k = 0; k < KINDS_MAX; k++) a->brain_class[k] = LUA_NOREF;
  a->sides = calloc((size_t)states, sizeof *a->sides);
  if (!a->sides) {
    fprintf(stderr, "bt-arena: out of memory for %d Lua states\n", states);
    return -1;
  }
  a->nsides = states;
  a->seed = seed;
  a->gen = 1;
  int rc = bt_lua_pool_create(&a->pool, states, states, open_pool_state, a, err, sizeof err);
  if (rc != BT_OK) {
    fprintf(stderr, "bt-arena: --threads %d: %s\n", a->threads, err);
    return -1;
  }
  a->L = a->sides[0]->L;
  return 0;
}

void arena_lua_close(arena *a) {
  if (a->log) { /* (a run that ended before the log's close) */
    bt_log_free(a->log);
    a->log = NULL;
  }
  bt_lua_pool_free(a->pool);
  a->pool = NULL;
  a->L = NULL;
  for (int i = 0; i < a->nsides; i++) side_free(a->sides[i]);
  free(a->sides);
  a->sides = NULL;
  a->nsides = 0;
}

/* ---- brains ---- */

static void brain_error(arena *a, int k, const char *what, const char *msg) {
  error_line(a->brain_error[k], sizeof a->brain_error[k], msg, a->data_dir, sizeof a->brain_error[k] - 1);
  size_t n = strlen(what) + strlen(msg) + KIND_NAME_MAX + 16;
  char *line = malloc(n);
  if (line) snprintf(line, n, "%s for %s: %s", what, kind_name(&a->w, k), msg);
  show_error(a, line ? line : msg);
  if (!a->live) fprintf(stderr, "bt-arena: %s\n", line ? line : msg);
  free(line);
}

int arena_load_brains(arena *a) {
  int loaded = 0;
  for (int k = 0; k < a->w.nkinds; k++) loaded += load_classes(a, k); /* the same files in every state */
  if (a->watch && bt_lua_pool_reload_watch(a->pool, "auto") != BT_OK)
    fprintf(stderr, "bt-arena: cannot watch the brain files: reloads stay off\n");
  return loaded;
}

/* ---- the pool of Lua states ---- */

/* In each state of the pool, after setup_side: bt.pool.place(agent, kind) makes the creature's
 * Brain (its kind's class, loaded by load_class) on its inst, not started: the pool starts it.
 * Each tree draws from a stream seeded with its agent's id and --seed, in whichever state. */
static const char PLACE[] =
    "local bt, insts, classes, seed = ...\n"
    "-- each tree's random stream: its agent's (the pool's rule), and --seed's\n"
    "bt.seed_trees(function(owner)\n"
    "  return ((bt.pool.agent(owner) or 0) * -7046029254386353131) ~ seed\n"
    "end)\n"
    "bt.pool.place = function(agent, kind)\n"
    "  local inst = insts[agent]\n"
    "  if inst == nil then error('no entity ' .. agent, 0) end\n"
    "  local Class = classes[kind]\n"
    "  if Class == nil then error('no brain for ' .. kind, 0) end\n"
    "  local brain = Class(inst)\n"
    "  inst.brain = brain\n"
    "  return brain\n"
    "end\n";

static int open_pool_state(void *ud, lua_State *L, int state, char *err, size_t size) {
  arena *a = ud;
  arena_side *side = side_new(state);
  if (!side) {
    snprintf(err, size, "not enough memory");
    return BT_ENOMEM;
  }
  a->sides[state] = side;
  if (setup_side(a, side, L, a->seed, err, size) != 0) return BT_EINVAL;
  if (luaL_loadbuffer(L, PLACE, sizeof PLACE - 1, "=arena") != LUA_OK) goto failed;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "bt");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) goto failed;
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_classes);
  lua_pushinteger(L, (lua_Integer)(a->seed & 0x7fffffffffffffffULL));
  if (lua_pcall(L, 4, 0, 0) != LUA_OK) goto failed;
  return BT_OK;
failed:
  snprintf(err, size, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
  lua_settop(L, 0);
  return BT_EINVAL;
}

/* require "brains.<kind>" in the state: its class goes into the state's classes, under the kind's
 * name. 1 on success; else 0, said (by state 0 only: every state loads the same files). */
static int load_class(arena *a, arena_side *side, int k) {
  lua_State *L = side->L;
  char module[sizeof a->w.kinds[k].brain], msg[512];
  kinds_module(&a->w.kinds[k], module, sizeof module);
  lua_settop(L, 0);
  lua_pushcfunction(L, traceback);
  lua_getglobal(L, "require");
  lua_pushstring(L, module);
  int ok = lua_pcall(L, 1, 1, 1) == LUA_OK;
  if (!ok) {
    snprintf(msg, sizeof msg, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
  } else {
    ok = lua_type(L, -1) == LUA_TTABLE;
    if (ok) {
      lua_getfield(L, -1, "Start");
      ok = lua_type(L, -1) == LUA_TFUNCTION;
      lua_pop(L, 1);
    }
    if (!ok)
      snprintf(msg, sizeof msg, "%s: expected the file to return a Brain class (a bt.Brain subclass), got %s",
               a->w.kinds[k].brain, luaL_typename(L, -1));
  }
  if (ok) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_classes);
    lua_pushstring(L, kind_name(&a->w, k));
    lua_pushvalue(L, 2);
    lua_rawset(L, -3);
  } else if (side->state == 0) {
    brain_error(a, k, "no brain", msg);
  }
  lua_settop(L, 0);
  return ok;
}

/* The kind's class in every state; brain_class[k] is 1 (not LUA_NOREF) once there. */
static int load_classes(arena *a, int k) {
  int ok = 1;
  for (int i = 0; ok && i < a->nsides; i++) ok = load_class(a, a->sides[i], k);
  a->brain_class[k] = ok ? 1 : LUA_NOREF;
  if (ok) {
    a->brain_broken[k] = 0;
    a->brain_error[k][0] = '\0';
  }
  return ok;
}

/* The side of the state that thinks the entity (state 0 for one without a brain). */
static arena_side *owner_side(arena *a, int id) {
  const entity *e = world_any(&a->w, id);
  int s = e ? e->shard : 0;
  return a->sides[s >= 0 && s < a->nsides ? s : 0];
}

/* Pushes the insts and listeners of the state that thinks entity id; returns that state's side. */
static arena_side *owner_tables(arena *a, int id, int *insts, int *listeners) {
  arena_side *side = owner_side(a, id);
  lua_State *L = side->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
  *insts = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_listeners);
  *listeners = lua_gettop(L);
  return side;
}

/* The actions ended since index n0 of the world's queue: "actiondone" to each, in its state. */
static void tell_done(arena *a, int n0) {
  world *w = &a->w;
  while (w->ndone > n0) {
    action_done d = w->done[n0];
    memmove(&w->done[n0], &w->done[n0 + 1], (size_t)(w->ndone - n0 - 1) * sizeof d);
    w->ndone--;
    int insts, listeners;
    arena_side *side = owner_tables(a, d.id, &insts, &listeners);
    deliver_done(side->L, side, insts, listeners, &d);
    lua_settop(side->L, insts - 1);
  }
}

/* The creatures that died since index died0 of the world's queue: "death", in their states. */
static void tell_deaths(arena *a, int died0) {
  world *w = &a->w;
  for (int i = died0; i < w->died.n; i++) {
    entity *d = world_get(w, w->died.v[i]);
    if (!d) continue;
    int insts, listeners;
    arena_side *side = owner_tables(a, d->id, &insts, &listeners);
    push_death(side->L, side, insts, listeners, d);
    lua_settop(side->L, insts - 1);
  }
}

static void apply_attack(arena *a, entity *e, entity *t, int n0, int died0) {
  world *w = &a->w;
  double before = t ? t->health : 0;
  int r = t ? world_attack(w, e, t) : 0;
  tell_done(a, n0); /* a swing ends what the attacker was doing */
  if (!r) return;
  int insts, listeners;
  arena_side *side = owner_tables(a, e->id, &insts, &listeners);
  lua_State *L = side->L;
  lua_createtable(L, 0, 1);
  lua_rawgeti(L, insts, t->id);
  lua_setfield(L, -2, "target");
  dispatch(L, side, insts, listeners, e->id, r == 1 ? "onattackother" : "onmissother", -1);
  lua_settop(L, insts - 1);
  if (r == 1) {
    side = owner_tables(a, t->id, &insts, &listeners);
    L = side->L;
    lua_createtable(L, 0, 2);
    lua_rawgeti(L, insts, e->id);
    lua_setfield(L, -2, "attacker");
    lua_pushnumber(L, before - t->health);
    lua_setfield(L, -2, "damage");
    dispatch(L, side, insts, listeners, t->id, "attacked", -1);
    lua_settop(L, insts - 1);
  }
  tell_deaths(a, died0); /* a killing blow: "death" at once; the brain stops at the next tick */
}

static void apply_event(arena *a, entity *e, const arena_cmd *c) {
  int insts, listeners;
  arena_side *side = owner_tables(a, e->id, &insts, &listeners);
  lua_State *L = side->L;
  switch (c->flag) {
  case DATA_BOOLEAN: lua_pushboolean(L, c->x != 0); break;
  case DATA_NUMBER: lua_pushnumber(L, c->x); break;
  case DATA_STRING: lua_pushstring(L, c->data ? c->data : ""); break;
  default: lua_pushnil(L); break;
  }
  dispatch(L, side, insts, listeners, e->id, c->text, c->flag == DATA_NIL ? 0 : -1);
  lua_settop(L, insts - 1);
}

/* The write a command asked for, and what it tells. */
static void apply_one(arena *a, const arena_cmd *c) {
  world *w = &a->w;
  entity *e = world_any(w, c->id);
  if (!e) return;
  int n0 = w->ndone, died0 = w->died.n;
  switch (c->op) {
  case CMD_GO: world_go_to(w, e, c->x, c->y, c->flag); break;
  case CMD_DIR: world_move_dir(w, e, c->x, c->flag); break;
  case CMD_STOP: world_stop(w, e); break;
  case CMD_FACE: world_face(e, c->x, c->y); break;
  case CMD_TARGET: e->target = c->other; break;
  case CMD_SAY: world_say(w, e, c->text); break;
  case CMD_ACTION: world_start_action(w, e, c->text, c->other ? world_any(w, c->other) : NULL); break;
  case CMD_ATTACK: apply_attack(a, e, c->other ? world_any(w, c->other) : NULL, n0, died0); break;
  case CMD_EVENT: apply_event(a, e, c); break;
  }
  tell_done(a, n0);
}

static int cmd_order(const void *x, const void *y) {
  const arena_cmd *p = x, *q = y;
  if (p->id != q->id) return p->id < q->id ? -1 : 1;
  if (p->writer != q->writer) return p->writer < q->writer ? -1 : 1;
  if (p->side != q->side) return p->side < q->side ? -1 : 1;
  return (p->seq > q->seq) - (p->seq < q->seq);
}

#define APPLY_ROUNDS 64 /* commands queued by listeners of applied ones: rounds in one serial phase */

/* The serial phase: every state's commands, in the order of the entity written (its id), then of
 * the creature that wrote it (a creature writes from one state), the state (the host's own
 * writes) and the order queued; the listeners they call queue more, applied in a next round.
 * Each round starts a generation: the own views noted before it are being applied. */
static void apply_commands(arena *a) {
  for (int round = 0; round < APPLY_ROUNDS; round++) {
    int total = 0;
    for (int i = 0; i < a->nsides; i++) total += a->sides[i]->ncmds;
    if (!total) return;
    a->gen++;
    arena_cmd *all = malloc((size_t)total * sizeof *all);
    if (!all) {
      report(a, "not enough memory to apply the frame's commands: they are dropped");
      for (int i = 0; i < a->nsides; i++) {
        arena_side *side = a->sides[i];
        for (int j = 0; j < side->ncmds; j++) {
          free(side->cmds[j].text);
          free(side->cmds[j].data);
        }
        side->ncmds = 0;
      }
      return;
    }
    int n = 0;
    for (int i = 0; i < a->nsides; i++) {
      arena_side *side = a->sides[i];
      if (side->ncmds) memcpy(all + n, side->cmds, (size_t)side->ncmds * sizeof *all);
      n += side->ncmds;
      side->ncmds = 0;
    }
    qsort(all, (size_t)n, sizeof *all, cmd_order);
    for (int i = 0; i < n; i++) {
      apply_one(a, &all[i]);
      free(all[i].text);
      free(all[i].data);
    }
    free(all);
    a->commands += n;
  }
  report(a, "the listeners queued commands for 64 rounds in one serial phase; the rest waits for the next");
}

/* ---- the blackboard keys the host writes (the kinds file's keys; world.c notes the facts) ---- */

/* Writes the keys of `bits` (KEY_*) into creature e's blackboard, in the state that thinks it, as
 * the world last noted them: night, hunger in hundredths, the threat's inst (nil: none). A write
 * of the value the key holds is no write (bt wakes nothing); a brain without the key fails the
 * write, which is reported as a script error. */
static void write_keys(arena *a, const entity *e, unsigned bits) {
  static const struct { unsigned bit; const char *name; } KEYS[] = {
      {KEY_NIGHT, "night"}, {KEY_HUNGER, "hunger"}, {KEY_THREAT, "threat"}};
  arena_side *side = owner_side(a, e->id);
  lua_State *L = side->L;
  for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
    if (!(bits & KEYS[i].bit)) continue;
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_set_key);
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
    lua_rawgeti(L, -1, e->id);
    lua_remove(L, -2);
    lua_pushstring(L, KEYS[i].name);
    switch (KEYS[i].bit) {
    case KEY_NIGHT: lua_pushboolean(L, a->w.night); break;
    case KEY_HUNGER: lua_pushnumber(L, e->hunger_key / 100.0); break;
    default:
      lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
      lua_rawgeti(L, -1, e->threat); /* nil for 0: none */
      lua_remove(L, -2);
      break;
    }
    pcall_report(a, L, 3, 0);
  }
}

/* What changed since the last tick: the night of every creature whose kind has it, at dusk and
 * dawn; the keys of the creatures the world queued, among them every key of a brain that started
 * (world_keys_now). Those without a brain (dead, or none) are skipped. Written just before the
 * think phase, with the states' clocks at the tick's time, as bt_lua_pool_update sets them: a
 * write is recorded at the time of the think it wakes, the same frame. */
static void pool_write_keys(arena *a) {
  world *w = &a->w;
  if (!w->night_changed && !w->keyed.n) return;
  for (int i = 0; i < a->nsides; i++) {
    arena_side *side = a->sides[i];
    if (side->clock_at == w->time) continue;
    side->clock_at = w->time;
    lua_rawgeti(side->L, LUA_REGISTRYINDEX, side->ref_set_clock);
    lua_pushnumber(side->L, w->time);
    lua_call(side->L, 1, 0);
  }
  if (w->night_changed) {
    w->night_changed = 0;
    for (int i = 0; (w->any_keys & KEY_NIGHT) && i < w->creatures.n; i++) {
      const entity *e = w->ents[w->creatures.v[i]];
      if (e->has_brain && !e->dead && (w->kinds[e->kind].keys & KEY_NIGHT)) write_keys(a, e, KEY_NIGHT);
    }
  }
  for (int i = 0; i < w->keyed.n; i++) {
    entity *e = world_any(w, w->keyed.v[i]);
    unsigned bits = e ? e->key_dirty : 0;
    if (!e) continue;
    e->key_dirty = 0;
    if (bits && e->has_brain && !e->dead) write_keys(a, e, bits);
  }
  w->keyed.n = 0;
}

/* The creature's brain, placed in the state with the fewest brains (the lowest numbered of those). */
static void pool_start_brain(arena *a, entity *e) {
  int k = e->kind;
  if (a->brain_class[k] == LUA_NOREF || a->brain_broken[k]) return;
  int best = 0;
  for (int s = 1; s < a->nsides; s++)
    if (bt_lua_pool_agents(a->pool, s) < bt_lua_pool_agents(a->pool, best)) best = s;
  e->shard = best;
  if (bt_lua_pool_place(a->pool, e->id, kind_name(&a->w, k), best) < 0) {
    a->brain_broken[k] = 1; /* one report per kind: the others of that kind stand still too */
    brain_error(a, k, "brain failed to start", bt_lua_pool_errmsg(a->pool));
    return;
  }
  e->has_brain = 1;
  if (a->log) { /* --record: its recorder joins the log (in the order of the ids: the same for any N) */
    lua_State *L = a->sides[best]->L;
    int top = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->sides[best]->ref_insts);
    lua_rawgeti(L, -1, e->id);
    bt_rec *rec = NULL;
    if (lua_istable(L, -1) && lua_getfield(L, -1, "brain") == LUA_TTABLE && lua_getfield(L, -1, "recorder") != LUA_TNIL)
      rec = bt_lua_torecorder(L, -1);
    if (rec && bt_rec_log(rec) != a->log && bt_rec_set_log(rec, a->log) != BT_OK)
      report(a, "--record: not enough memory to add a brain's recorder to the log");
    lua_settop(L, top);
  }
  world_keys_now(&a->w, e); /* all its keys, written before its first think (pool_write_keys) */
}

/* Pushes a new entity's inst in the side's state: {id, kind} with the entities' metatable, known
 * by its address to writer_of. */
static void push_new_inst(arena_side *side, world *w, const entity *e) {
  lua_State *L = side->L;
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, e->id);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, kind_name(w, e->kind));
  lua_setfield(L, -2, "kind");
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_meta);
  lua_setmetatable(L, -2);
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_ids);
  lua_pushinteger(L, e->id);
  lua_rawsetp(L, -2, lua_topointer(L, -3));
  lua_pop(L, 1);
}

static void pool_stop_brain(arena *a, entity *e) {
  if (!e->has_brain) return;
  if (bt_lua_pool_remove(a->pool, e->id) != BT_OK) report(a, bt_lua_pool_errmsg(a->pool));
  e->has_brain = 0;
}

static void pool_sync(arena *a) {
  world *w = &a->w;
  int n = w->spawned.n;
  for (int s = 0; s < a->nsides; s++) { /* every state has the inst of every entity */
    arena_side *side = a->sides[s];
    lua_State *L = side->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_live);
    for (int i = 0; i < n; i++) {
      entity *e = world_get(w, w->spawned.v[i]);
      if (!e) continue;
      push_new_inst(side, w, e);
      lua_pushvalue(L, -1);
      lua_rawseti(L, -4, e->id);
      lua_rawseti(L, -2, e->id);
    }
    lua_pop(L, 2);
  }
  for (int i = 0; i < n; i++) {
    entity *e = world_get(w, w->spawned.v[i]);
    if (e && world_is_creature(e)) pool_start_brain(a, e);
  }
  if (w->spawned.n > n) memmove(w->spawned.v, w->spawned.v + n, (size_t)(w->spawned.n - n) * sizeof *w->spawned.v);
  w->spawned.n -= n;

  tell_done(a, 0); /* the actions world_step ended */

  n = w->died.n; /* "death", then the brain stops (the body leaves the world a second later) */
  for (int i = 0; i < n; i++) {
    entity *e = world_get(w, w->died.v[i]);
    if (!e) continue;
    int insts, listeners;
    arena_side *side = owner_tables(a, e->id, &insts, &listeners);
    push_death(side->L, side, insts, listeners, e);
    lua_settop(side->L, insts - 1);
    pool_stop_brain(a, e);
  }
  if (w->died.n > n) memmove(w->died.v, w->died.v + n, (size_t)(w->died.n - n) * sizeof *w->died.v);
  w->died.n -= n;

  for (int i = 0; i < w->removed.n; i++) {
    int id = w->removed.v[i];
    entity *e = world_any(w, id);
    if (e) pool_stop_brain(a, e); /* left the world without dying */
    for (int s = 0; s < a->nsides; s++) {
      arena_side *side = a->sides[s];
      lua_State *L = side->L;
      lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_listeners);
      lua_pushnil(L);
      lua_rawseti(L, -2, id);
      lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_ids);
      lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_live);
      lua_rawgeti(L, -1, id);
      lua_pushnil(L);
      lua_rawsetp(L, -4, lua_topointer(L, -2)); /* (no writer once gone) */
      lua_pop(L, 1);
      lua_pushnil(L);
      lua_rawseti(L, -2, id);
      lua_pop(L, 3);
    }
  }
  w->removed.n = 0;
  apply_commands(a); /* what the listeners above asked for */
}

static double seconds_now(void) { return btp_time_monotonic(); }

/* The think phase (every state's brains at once, the world read only), then the serial phase. */
static void pool_think(arena *a, long long tick) {
  pool_write_keys(a);
  int rc = bt_lua_pool_update(a->pool, tick, a->w.time);
  if (rc != BT_OK) report(a, bt_lua_pool_errmsg(a->pool));
  double t0 = seconds_now();
  apply_commands(a);
  a->apply_seconds += seconds_now() - t0;
  if (a->log) bt_log_flush(a->log); /* (a failure is kept by the log, and said at its close) */
}

/* --record: the log is the host's (bt_log_create); every state's manager gives its
 * brains recorders (with a ring of `capacity` for the inspector), which join the log as the brains
 * start (pool_start_brain), and the host flushes it after each frame. */
/* Every state's brains record into a->log (made by the caller). */
static int pool_record_open(arena *a, int capacity, char *err, size_t errsize) {
  for (int i = 0; i < a->nsides; i++) {
    lua_State *L = a->sides[i]->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->sides[i]->ref_manager);
    lua_getfield(L, -1, "Record");
    lua_insert(L, -2);
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, capacity);
    lua_setfield(L, -2, "capacity");
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
      snprintf(err, errsize, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "the brains cannot record");
      lua_pop(L, 1);
      bt_log_free(a->log);
      a->log = NULL;
      return -1;
    }
  }
  return 0;
}

/* ---- what the world did, and the brains' tick ---- */

/* New insts (in every state) and brains, "actiondone", "death" (then the brain stops and the
 * creature leaves), removals; then what the listeners asked for. */
void arena_sync(arena *a) { pool_sync(a); }

void arena_think(arena *a, long long tick) { pool_think(a, tick); }

long long arena_thinks(arena *a, long long *registered) {
  long long thinks = 0, brains = 0;
  for (int i = 0; i < a->nsides; i++) { /* the sum over the states */
    arena_side *side = a->sides[i];
    lua_State *L = side->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_stats);
    lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_manager);
    if (pcall_report(a, L, 1, 1) == 0) {
      lua_getfield(L, -1, "thinks");
      thinks += (long long)lua_tointeger(L, -1);
      lua_getfield(L, -2, "registered");
      brains += (long long)lua_tointeger(L, -1);
      lua_pop(L, 3);
    }
  }
  if (registered) *registered = brains;
  return thinks;
}

int arena_lua_states(const arena *a) { return a->nsides; }

lua_State *arena_lua_state(const arena *a, int i, int *ref_live) {
  const arena_side *side = a->sides[i];
  if (ref_live) *ref_live = side->ref_live;
  return side->L;
}

void arena_doing(arena *a, int id, char *buf, size_t size) {
  if (a->replay) {
    replay_doing(a->replay, id, buf, size);
    return;
  }
  arena_side *side = owner_side(a, id);
  lua_State *L = side->L;
  snprintf(buf, size, "-");
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_doing);
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
  lua_rawgeti(L, -1, id);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 2);
    return;
  }
  if (pcall_report(a, L, 1, 1) == 0) {
    const char *s = lua_tostring(L, -1);
    if (s) snprintf(buf, size, "%s", s);
    lua_pop(L, 1);
  }
}

/* ---- --record ---- */

int arena_record_open(arena *a, const char *path, int capacity, char *err, size_t errsize) {
  if (bt_log_create(&a->log, path, 0, err, errsize) != BT_OK) return -1;
  return pool_record_open(a, capacity, err, errsize);
}

int arena_record_open_fn(arena *a, int (*fn)(void *ud, const void *data, size_t size), void *ud, int capacity,
                         char *err, size_t errsize) {
  if (bt_log_create_fn(&a->log, fn, ud, 0, err, errsize) != BT_OK) return -1;
  return pool_record_open(a, capacity, err, errsize);
}

void arena_record_world(arena *a, int code, const void *data, size_t size) {
  if (a->log && bt_log_write_host(a->log, a->w.time, code, data, size) != BT_OK)
    show_error(a, "the world's record was not written: not enough memory");
}

int arena_record_close(arena *a, arena_record_stats *st, char *err, size_t errsize) {
  memset(st, 0, sizeof *st);
  if (!a->log) {
    snprintf(err, errsize, "no log open");
    return -1;
  }
  int rc = bt_log_flush(a->log);
  bt_log_stats st_log;
  bt_log_stats_get(a->log, &st_log);
  st->records = st_log.records;
  st->statuses = st_log.statuses;
  if (rc != BT_OK) snprintf(err, errsize, "%s", bt_log_errmsg(a->log));
  int closed = bt_log_free(a->log); /* the recorders still joined are detached */
  if (rc == BT_OK && closed != BT_OK) snprintf(err, errsize, "%s", bt_strerror(closed));
  rc = rc != BT_OK ? rc : closed;
  a->log = NULL;
  return rc == BT_OK ? 0 : -1;
}

/* ---- the inspector ---- */

void arena_inspect_select(arena *a, int id) {
  if (a->replay) {
    replay_inspect_select(a->replay, id);
    return;
  }
  for (int i = 0; i < a->nsides; i++) { /* the last one's state lets it go */
    lua_State *L = a->sides[i]->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->sides[i]->ref_inspect_select);
    lua_pushnil(L);
    pcall_report(a, L, 1, 0);
  }
  a->inspected = id;
  arena_side *side = owner_side(a, id);
  lua_State *L = side->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_inspect_select);
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_insts);
  lua_rawgeti(L, -1, id); /* nil for 0 or a creature whose inst is gone: nothing selected */
  lua_remove(L, -2);
  pcall_report(a, L, 1, 0);
}

static int status_of_name(const char *name) {
  for (int s = BT_READY; name && s <= BT_ABORTED; s++)
    if (strcmp(name, bt_status_name(s)) == 0) return s;
  return -1;
}

/* The string field of the table on the top into buf ("" when it is not a string or number). */
static void field_text(lua_State *L, const char *key, char *buf, size_t size) {
  lua_getfield(L, -1, key);
  const char *s = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : NULL;
  snprintf(buf, size, "%s", s ? s : "");
  lua_pop(L, 1);
}

/* The number field of the table on the top: 1 and *out, or 0 when it is not a number. */
static int field_number(lua_State *L, const char *key, double *out) {
  lua_getfield(L, -1, key);
  int isnum = lua_type(L, -1) == LUA_TNUMBER;
  if (isnum) *out = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return isnum;
}

int arena_grow(void **v, int *cap, int n, size_t size) {
  if (n <= *cap) return 1;
  int c = *cap ? *cap : 32;
  while (c < n) c *= 2;
  void *p = realloc(*v, (size_t)c * size);
  if (!p) return 0;
  *v = p;
  *cap = c;
  return 1;
}

static void read_nodes(lua_State *L, int snap, arena_inspection *out) {
  int n = (int)lua_rawlen(L, snap);
  if (!arena_grow((void **)&out->nodes, &out->cap_nodes, n, sizeof *out->nodes)) {
    snprintf(out->why, sizeof out->why, "not enough memory for %d nodes", n);
    return;
  }
  char text[16];
  for (int i = 0; i < n; i++) {
    arena_node *d = &out->nodes[i];
    double v = 0;
    lua_rawgeti(L, snap, i + 1);
    d->depth = field_number(L, "depth", &v) ? (int)v : 0;
    field_text(L, "name", d->name, sizeof d->name);
    field_text(L, "status", text, sizeof text);
    d->status = status_of_name(text);
    field_text(L, "last", text, sizeof text);
    d->last = status_of_name(text);
    field_text(L, "dbstring", d->dbstring, sizeof d->dbstring);
    d->has_sleep = field_number(L, "sleep", &d->sleep);
    lua_pop(L, 1);
  }
  out->nnodes = n;
  out->has_tree = 1;
}

/* A key record's write, from the record at the top, for the inspector: "hunger 0.5 -> 0.51 (woke)"
 * (an entity's key holds its id). */
static void key_message(lua_State *L, char *buf, size_t size) {
  int top = lua_gettop(L);
  lua_getfield(L, top, "name");
  lua_getfield(L, top, "old");
  lua_getfield(L, top, "new");
  lua_getfield(L, top, "woke");
  const char *name = lua_tostring(L, top + 1);
  const char *before = luaL_tolstring(L, top + 2, NULL), *after = luaL_tolstring(L, top + 3, NULL);
  snprintf(buf, size, "%s %s -> %s%s", name ? name : "?", before, after, lua_toboolean(L, top + 4) ? " (woke)" : "");
  lua_settop(L, top);
}

static void read_records(lua_State *L, int recs, arena_inspection *out) {
  int n = (int)lua_rawlen(L, recs);
  if (!arena_grow((void **)&out->records, &out->cap_records, n, sizeof *out->records)) {
    snprintf(out->no_records, sizeof out->no_records, "not enough memory for %d records", n);
    return;
  }
  char text[16];
  for (int i = 0; i < n; i++) {
    arena_record *r = &out->records[i];
    double v = 0;
    lua_rawgeti(L, recs, i + 1);
    field_text(L, "type", r->type, sizeof r->type);
    r->node = field_number(L, "node", &v) ? (int)v : 0;
    field_text(L, "from", text, sizeof text);
    r->from = status_of_name(text);
    field_text(L, "to", text, sizeof text);
    r->to = status_of_name(text);
    r->think = field_number(L, "think", &v) ? (long long)v : 0;
    r->time = field_number(L, "time", &v) ? v : 0;
    r->has_sleep = field_number(L, "sleep", &r->sleep);
    field_text(L, "path", r->path, sizeof r->path);
    field_text(L, "cause", r->cause, sizeof r->cause);
    field_text(L, "message", r->message, sizeof r->message);
    if (strcmp(r->type, "key") == 0) key_message(L, r->message, sizeof r->message);
    lua_pop(L, 1);
  }
  out->nrecords = n;
  out->recording = 1;
}

void arena_inspect_read(arena *a, arena_inspection *out) {
  if (a->replay) {
    replay_inspect_read(a->replay, out);
    return;
  }
  arena_side *side = owner_side(a, a->inspected);
  lua_State *L = side->L;
  int top = lua_gettop(L);
  out->has_tree = out->recording = 0;
  out->nnodes = out->nrecords = 0;
  snprintf(out->why, sizeof out->why, "(the brain's tree could not be read)");
  snprintf(out->no_records, sizeof out->no_records, "(the records could not be read)");
  lua_rawgeti(L, LUA_REGISTRYINDEX, side->ref_inspect_read);
  if (pcall_report(a, L, 0, 4) == 0) {
    if (lua_istable(L, top + 1)) read_nodes(L, top + 1, out);
    else snprintf(out->why, sizeof out->why, "%s", lua_tostring(L, top + 2) ? lua_tostring(L, top + 2) : "");
    if (lua_istable(L, top + 3)) read_records(L, top + 3, out);
    else snprintf(out->no_records, sizeof out->no_records, "%s", lua_tostring(L, top + 4) ? lua_tostring(L, top + 4) : "");
  }
  lua_settop(L, top);
}

void arena_inspection_free(arena_inspection *in) {
  free(in->nodes);
  free(in->records);
  memset(in, 0, sizeof *in);
}

/* ---- reloading (--watch) ---- */

static void on_reload(void *ud, const char *file, int ok, const char *message) {
  arena *a = ud;
  char plain[1024];
  const char *state = strstr(message, ": state ");
  if (state) { /* every state runs the same files; which one refused says nothing */
    const char *p = state + 8;
    while (*p >= '0' && *p <= '9') p++;
    if (p > state + 8 && p[0] == ':' && p[1] == ' ') {
      snprintf(plain, sizeof plain, "%.*s%s", (int)(state - message), message, p);
      message = plain;
    }
  }
  if (ok) {
    error_line(a->status, sizeof a->status, message, a->data_dir, sizeof a->status - 1);
    a->status_ok = 1;
    a->status_time = a->w.time;
  } else {
    show_error(a, message);
  }
  if (!a->live) fprintf(stderr, "bt-arena: %s\n", message);
  if (!ok) return;
  /* a brain that could not load before: its creatures start now */
  for (int k = 0; k < a->w.nkinds; k++) {
    char tail[128]; /* the watcher names the file as require found it: .../brains/<kind>.lua */
    snprintf(tail, sizeof tail, "/%s", a->w.kinds[k].brain);
    size_t lt = strlen(tail), lf = strlen(file);
    int same = lf >= lt && strcmp(file + lf - lt, tail) == 0;
    /* loaded once the poll returned (arena_reload_poll): the reloader's calls are under way here */
    if (same && a->brain_class[k] == LUA_NOREF) a->brain_retry[k] = 1;
  }
}

/* The brains whose files failed to load and were saved since: loaded, and their creatures'
 * brains started. */
static void retry_brains(arena *a) {
  for (int k = 0; k < a->w.nkinds; k++) {
    if (!a->brain_retry[k]) continue;
    a->brain_retry[k] = 0;
    if (!load_classes(a, k)) continue; /* in every state */
    for (int i = 0; i < a->w.creatures.n; i++) {
      entity *e = a->w.ents[a->w.creatures.v[i]];
      if ((int)e->kind == k && !e->has_brain && !e->dead) pool_start_brain(a, e);
    }
    apply_commands(a);
  }
}

/* The kinds file's modification time and size, as one number (0: cannot stat it). */
static long long kinds_stamp(const arena *a) {
  char path[4096];
  btp_stamp st;
  snprintf(path, sizeof path, "%s/%s", a->data_dir, KINDS_FILE);
  if (btp_file_stamp(path, &st) != BT_OK) return 0;
  return (st.sec * 1000000000LL + st.nsec) ^ (st.size << 40);
}

/* The kinds file was saved: its numbers, looks and food apply at once (to the living too); a kind
 * added, removed or renamed is refused, and tags, home, share, brain and keys wait for a restart. */
static void reload_kinds(arena *a) {
  static kind_info k[KINDS_MAX];
  int n = 0;
  char err[1024], msg[1200];
  world *w = &a->w;
  if (kinds_load(a->data_dir, KINDS_FILE, k, &n, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "refused %s: %s", KINDS_FILE, err);
    on_reload(a, KINDS_FILE, 0, msg);
    return;
  }
  int same = n == w->nkinds;
  for (int i = 0; same && i < n; i++) same = strcmp(k[i].name, w->kinds[i].name) == 0;
  if (!same) {
    snprintf(msg, sizeof msg, "refused %s: %s: kinds added, removed or renamed take a restart of bt-arena",
             KINDS_FILE, KINDS_FILE);
    on_reload(a, KINDS_FILE, 0, msg);
    return;
  }
  int later = 0;
  for (int i = 0; i < n; i++) {
    kind_info *o = &w->kinds[i];
    int tags = o->ntags != k[i].ntags;
    for (int t = 0; !tags && t < o->ntags; t++) tags = strcmp(o->tags[t], k[i].tags[t]) != 0;
    int keys = o->keys != k[i].keys || o->threat_near != k[i].threat_near || o->threat_far != k[i].threat_far ||
               strcmp(o->threat_tag, k[i].threat_tag) != 0;
    later |= tags || keys || o->home != k[i].home || o->share != k[i].share || strcmp(o->brain, k[i].brain) != 0;
    memcpy(k[i].tags, o->tags, sizeof o->tags);
    k[i].ntags = o->ntags;
    k[i].home = o->home;
    k[i].share = o->share;
    memcpy(k[i].brain, o->brain, sizeof o->brain);
    k[i].keys = o->keys; /* the world notes their facts from the start: a change takes a restart */
    k[i].threat_near = o->threat_near;
    k[i].threat_far = o->threat_far;
    memcpy(k[i].threat_tag, o->threat_tag, sizeof o->threat_tag);
    *o = k[i];
  }
  for (int i = 0; i < w->creatures.n; i++) {
    entity *e = w->ents[w->creatures.v[i]];
    const kind_info *ki = &w->kinds[e->kind];
    e->max_health = ki->health;
    if (e->health > e->max_health) e->health = e->max_health;
    e->damage = ki->damage;
    e->range = ki->range;
    e->cooldown = ki->cooldown;
    e->radius = ki->radius;
  }
  snprintf(msg, sizeof msg, "reloaded %s%s", KINDS_FILE,
           later ? " (changes of tags, home, share, brain or keys take a restart)" : "");
  on_reload(a, KINDS_FILE, 1, msg);
}

typedef struct module_file {
  char *name, *file;
} module_file;

static int module_order(const void *x, const void *y) {
  return strcmp(((const module_file *)x)->name, ((const module_file *)y)->name);
}

void arena_reload_all(arena *a) {
  lua_State *L = a->L; /* state 0's modules: every state loads the same files */
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "bt");
  lua_getfield(L, -1, "reload");
  lua_getfield(L, -1, "modules");
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
    show_error(a, "--reload-at: the modules loaded could not be listed");
    lua_settop(L, top);
    return;
  }
  module_file *m = NULL;
  int n = 0, cap = 0, short_of_memory = 0;
  for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING) continue;
    if (!arena_grow((void **)&m, &cap, n + 1, sizeof *m)) {
      short_of_memory = 1;
      break;
    }
    m[n].name = copy_text(lua_tostring(L, -2));
    m[n].file = copy_text(lua_tostring(L, -1));
    n++;
    if (!m[n - 1].name || !m[n - 1].file) short_of_memory = 1;
  }
  lua_settop(L, top);
  if (short_of_memory) {
    show_error(a, "--reload-at: not enough memory");
  } else {
    qsort(m, (size_t)n, sizeof *m, module_order);
    for (int i = 0; i < n; i++) {
      char err[1024], msg[1200];
      int ok = bt_lua_pool_reload(a->pool, m[i].name, err, sizeof err) == BT_OK;
      if (ok) snprintf(msg, sizeof msg, "reloaded %s", m[i].name);
      else snprintf(msg, sizeof msg, "refused %s: %s", m[i].name, err);
      on_reload(a, m[i].file, ok, msg);
    }
    retry_brains(a);
  }
  for (int i = 0; i < n; i++) {
    free(m[i].name);
    free(m[i].file);
  }
  free(m);
}

void arena_reload_poll(arena *a) {
  if (!a->watch) return;
  bt_lua_pool_reload_poll(a->pool, on_reload, a); /* in every state, or in none */
  retry_brains(a);
  long long stamp = kinds_stamp(a);
  if (!a->kinds_stamp) a->kinds_stamp = stamp; /* the first poll: as loaded */
  if (stamp && stamp != a->kinds_stamp) {
    a->kinds_stamp = stamp;
    reload_kinds(a);
  }
}

