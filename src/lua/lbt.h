/* SPDX-License-Identifier: MIT */
/*
 * lbt.h: what the files of the Lua binding share. Not installed.
 *
 * The files are layered; each calls only the files listed before it. They follow the layers of
 * src/: the binding of the engine first, which names nothing of recording or the schedulers (a
 * tree's recorder is its instance's hook to it), then of recording, then of the schedulers:
 *
 *   state.c    the module's state and registry, argument errors, statuses
 *   memory.c   Lua states of bounded memory
 *   errlog.c   the default error handler: standard error, repeats counted
 *   call.c     every call into Lua (lbt_pcall), error reports, the instruction limit, entering
 *              a tree, work deferred until no tree thinks
 *   clock.c    the time every node reads, and the core's random numbers
 *   objects.c  node objects: their fields in a tree's instance, making them, binding them
 *   leaves.c   the core's calls into Lua: leaf, time and task functions, overridden methods,
 *              the live islands (statuses as plain fields while a Lua method runs)
 *   board.c    the blackboard: bt.Blackboard's keys, a tree's board (tree.board) read and
 *              written, moved with its tree when the tree is rebuilt or reloaded
 *   classes.c  the node classes: one section per kind (constructor, what the constructor's
 *              fields mean to the core), the methods, events
 *   compile.c  definitions: a graph of node objects compiled, named subtrees
 *   tree.c     BT(inst, root) and the tree methods; a tree rebuilt when its children lists changed
 *   reload.c   moving live agents to a tree of new code
 *   save.c     a tree's state saved with a game and restored (the C side of lua/save.lua)
 *   watch.c    the file watcher of hot reload
 *   records.c  a recorder's record as the fields of a Lua table (the rings' and the logs')
 *   stats.c    bt.Stats: per-node statistics as tables, tree:stats
 *   logfile.c  bt.log: the recorders' log files written and read (over the core's bt_log)
 *   recorder.c bt.Recorder: a tree's transition recorder, tree:record, a brain's recorder
 *   sched.c    BrainWrangler's scheduler
 *   lbt_embedded.c  the module's Lua files (lua/), written into C by cmake/embed.cmake
 *   module.c   luaopen_bt, and nothing else
 *   pool.c     a pool of Lua states that think shards of the agents on several threads
 *
 * Every name here is hidden: the libraries export only bt.h's and bt_lua.h's.
 */
#ifndef LBT_H
#define LBT_H

#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "bt.h"
#include "bt_lua.h"

/* Declares a function or object shared by the binding's files, invisible outside the library. */
#if defined(__GNUC__) && !defined(_WIN32) /* PE has no hidden names */
#define LBT_FUNC __attribute__((visibility("hidden"))) extern
#else
#define LBT_FUNC extern
#endif

/* ---- the data the files share ---- */

/* Slots of the module's registry table (lbt_registry_get). */
#define LBT_REG_STATE 1       /* the lbt_state userdata */
#define LBT_REG_CLASSES 2     /* kind + 1 -> the kind's class */
#define LBT_REG_HANDLER 3     /* the error handler, or nil */
#define LBT_REG_BT 4          /* the BT table: tree methods */
#define LBT_REG_MODULE 5      /* the module table */
#define LBT_REG_CLASS 6       /* Class */
#define LBT_REG_DEFERRED 7    /* functions to run once no tree thinks */
#define LBT_REG_DEFCACHE 8    /* definition hash -> holder of a compiled bt_def (weak values) */
#define LBT_REG_WEAKVALUES 9  /* the metatable {__mode = "v"} */
#define LBT_REG_SUBTREES 10   /* name -> definition: the named definitions (bt.define(root, name)) */
#define LBT_REG_LIB 11        /* the bt_lib of the named definitions' graphs, in a box */
#define LBT_REG_CTORFIELDS 12 /* the fields a node object may hold that its tree knows: a view's
                                 name -> its view code (objects.c), else a name the classes'
                                 constructors set -> true */
#define LBT_REG_PINNED 13     /* what lbt_state points to (its methods and status names), kept alive */
#define LBT_REG_OWNDEFS 14    /* bt_def (light userdata) -> the definition every tree built for one
                                 entity with that shape keeps, once built (weak values) */
#define LBT_REG_MADE 15       /* nil, or the list of node objects made since shared.made_begin */
#define LBT_REG_ORIGINS 16    /* class -> "file:line" where Class made it (weak keys) */
#define LBT_REG_SHARED 17     /* the table the module's C and Lua files share (module.c) */
#define LBT_REG_SHAPES 18     /* hash of a signature -> the shape of the trees built for one entity
                                 that BT(inst, root) compiled from it (weak values; compile.c) */
#define LBT_REG_ROOTS 19      /* tree -> the root's object it was built from, while both live (weak
                                 keys and values; objects.c): a tree need not hold a table for it */
#define LBT_REG_LISTMETA 20   /* the metatable of the children lists a tree watches (objects.c) */
#define LBT_REG_REBUILT 21    /* tree -> the tree it was rebuilt into, its children lists edited (weak
                                 keys; tree.c, lbt_tree_forward) */
#define LBT_REG_COUNT 21

/* The allocator's state of a Lua state made by bt_lua_newstate. */
typedef struct lbt_memory {
  size_t used, limit; /* bytes; limit 0 for none */
  int reserve;        /* bt's own work is under way: it may go past the limit by a reserve */
} lbt_memory;

/* The methods a script's subclass may override, whose calls the core makes (leaves.c). */
enum { LBT_VISIT, LBT_RESET, LBT_STEP, LBT_SLEEP_TIME, LBT_DESCRIBE, LBT_METHOD_COUNT };
LBT_FUNC const char *const lbt_method_names[LBT_METHOD_COUNT]; /* "Visit", ... */

/* The names a think looks up (lbt_push_key): the methods above first, by the same numbers. */
enum {
  LBT_KEY_ON_STOP = LBT_METHOD_COUNT,
  LBT_KEY_INST,
  LBT_KEY_ENTITY,
  LBT_KEY_IS_VALID,
  LBT_KEY_IS_ASLEEP,
  LBT_KEY_ON_UPDATE,
  LBT_KEY_DO_UPDATE,
  LBT_KEY_BT,
  LBT_KEY_UPDATE,
  LBT_KEY_STATUS,
  LBT_KEY_READY, /* the statuses' names, READY .. RUNNING, by their numbers from here */
  LBT_KEY_COUNT = LBT_KEY_READY + BT_RUNNING + 1
};

#define LBT_FIELD_SLOTS 128 /* lbt_state.field_names: a power of 2, over twice the known names */

/* Per lua_State module state. */
typedef struct lbt_state {
  bt_host host;      /* the core's clock and random numbers, data = this */
  lua_State *L;      /* the thread the core may call back into right now */
  double start;      /* monotonic time when the module was loaded */
  double last_time;  /* the clock's last good value */
  double tick_time;  /* bt.set_tick_time: seconds per scheduler tick */
  lua_Integer limit; /* instruction limit per call into Lua, 0 for none */
  int depth;         /* nesting of calls from bt into Lua */
  int hooked;        /* the instruction hook is installed */
  int msgh;          /* the message handler's index in S->L's frame of the entry under way, 0 if none */
  int clock_ref;     /* registry reference of the clock function, LUA_NOREF for none */
  int clock_fixed;   /* no clock function: the time is last_time (bt.set_clock(number)) */
  int seed_ref;      /* bt.seed_trees: registry reference of the function giving a new tree's seed,
                        LUA_NOREF when trees draw from math.random */
  int owner_ref;     /* registry reference of the tree bt.random draws for outside any tree
                        (shared.set_random_tree), LUA_NOREF */
  struct lbt_tree *owner; /* that tree */
  const void *owner_inst; /* its entity (lua_topointer), for bt_lua_running_entity */
  int math_random_ref; /* math.random as the module found it: bt.random's fallback */
  struct lbt_tree *entered; /* the innermost tree entered (lbt_tree_enter), NULL if none */
  int thinking;      /* trees inside tree:Update */
  int group_depth;   /* depth of the innermost API call whose reads of the time share clock calls
                        (lbt_time_group_begin), -1 outside one */
  int time_fresh;    /* last_time was read at group_depth, and no Lua code has run since */
  int deferred;      /* LBT_REG_DEFERRED holds work for when thinking drops to 0 */
  int exact;         /* bt.set_exact: trees built from now on are DS-exact; constructors set id */
  int where_all;     /* bt.set_where: every node constructor notes where it was called */
  int listing_made;  /* LBT_REG_MADE is a list: node constructors add to it (objects.c) */
  /* The names LBT_REG_CTORFIELDS knows, by the address of their Lua strings (Lua keeps one copy
   * of each short string), and what it says of each (objects.c's known_field): open addressing. */
  const char *field_names[LBT_FIELD_SLOTS];
  signed char field_codes[LBT_FIELD_SLOTS];
  lua_Integer next_id; /* the id the next node constructor gives under exact (Don't Starve's NODE_COUNT) */
  lbt_memory *mem;   /* the bounded allocator's state, NULL if bt did not make the Lua state */
  unsigned char classes[BT_KIND_COUNT]; /* LBT_CLASS_* of each kind's class (classes.c) */
  /* The value of each method a script may override (lbt_method_names) in each kind's class when
   * the module opened, as lua_topointer gives it (classes.c; LBT_REG_PINNED keeps the values):
   * a node whose method is another is a script's override. */
  const void *methods[BT_KIND_COUNT][LBT_METHOD_COUNT];
  const void *class_of[BT_KIND_COUNT]; /* each kind's class, as lua_topointer gives it (classes.c) */
  /* The Lua strings of the four statuses (module.c): Lua keeps one copy of each short string, so
   * a value is a status if lua_tostring gives one of these (lbt_status_of). */
  const char *status_names[BT_RUNNING + 1];
  /* Brain's OnUpdate and GetSleepTime (lua/brain.lua) as lua_topointer gives them (module.c): the
   * scheduler runs a brain whose methods are these without calling them (sched.c). */
  const void *brain_update, *brain_sleep_time;
  /* Registry references of the strings lbt_key_names lists: pushing one is an index into the
   * registry's array, where lua_pushstring would hash the text (lbt_push_key). */
  int keys[LBT_KEY_COUNT];
  int bt_ref; /* registry reference of the BT table (LBT_REG_BT), which a think of a brain reads */
} lbt_state;

/* What a kind's class says of its objects. */
#define LBT_CLASS_INST 0x01 /* its objects hold the entity the constructor took (field inst) */
#define LBT_CLASS_DATA 0x02 /* its field `data` is its Lua data in the tree */

/* An entry of a tree (lbt_tree_enter): what it pushed for the core's callbacks, at absolute
 * stack indices in L, and what lbt_tree_leave puts back. It lives on the C stack of the call that
 * entered the tree, which leaves it before returning; the tree points to its innermost one. */
typedef struct lbt_entry {
  lua_State *L;
  int tree, fns, inst, msgh;
  const void *inst_ptr; /* the entity at inst (lua_topointer), for bt_lua_running_entity */
  int objs;       /* the tree's table LBT_UV_OBJS as it was when entered (nil if none then) */
  int outer_msgh; /* the module state's msgh before this entry */
  /* The nodes written in Lua whose code runs now (leaves.c): each the root of an island, the
   * node and its descendants written in Lua through parents written in Lua, whose objects hold
   * their status as a plain field meanwhile (objects.c, lbt_live_put). live[0 .. nlive) of the
   * tree's array; an entry starts with its outer entry's, and leaving drops what it added. */
  int nlive;
  int nflushed; /* live[0 .. nflushed) are flushed: a method of the core is under way (leaves.c) */
  const int *slot_base;          /* lbt_tree_slot_base if the tree runs subtrees, else NULL */
  struct lbt_entry *outer;       /* the tree's entry before this one, NULL if none */
  lua_State *outer_L;            /* the state's thread before this entry */
  struct lbt_tree *outer_tree;   /* the state's innermost entered tree before this entry */
} lbt_entry;

/* A BT userdata: an lbt_tree followed by its bt_inst (lbt_tree_inst). Its user values are
 * below. The fields a tree needs only now and then live elsewhere, so that the many trees of a
 * game (one per agent) stay small. */
#define LBT_TREE_MAGIC 0x62747472u /* "bttr" */

typedef struct lbt_tree {
  unsigned magic; /* LBT_TREE_MAGIC: a cheap check that a userdata is a tree */
  int nown : 24;  /* graph ids below this are the entity's own node objects; the rest (every node
                     of a shared definition, the nodes of subtrees) are templates, copied on use */
  unsigned board : 1;     /* its definition has blackboard keys: its board (a proxy, board.c) is
                             its table LBT_UV_OBJS's item 0, and its leaf functions get it */
  unsigned strays : 1;    /* a node's parent field may hold another node than its definition's
                             parent (one out of the tree, as Don't Starve's constructor set it or
                             before an edit, or one a script wrote): an event walks up by the
                             fields (classes.c, fire) */
  unsigned edited : 1;    /* a script may have edited a children list of its nodes: its next call
                             compares them with its definition (lbt_tree_refresh) */
  unsigned forwarded : 1; /* rebuilt since (LBT_REG_REBUILT): lbt_tree_test gives the tree it
                             became in its place; its instance stays as it was, for the nodes a
                             script took out (they are still bound to it) */
  unsigned own_fns : 1;   /* its function of slot i is its user value LBT_UV_FNS + i - 1 (a tree
                             built for one entity); else its table LBT_UV_FNS has them */
  unsigned exact : 1;     /* DS-exact (docs/lua-api.md): functions get no inst, every read calls
                             the clock */
  unsigned subtrees : 1;  /* it runs copies of named subtrees (lbt_tree_slot_base) */
  unsigned collected : 1; /* its instance is gone (tree_gc): it must not be entered */
  lbt_state *S;
  unsigned long long stream; /* bt.random's stream for the tree's scripts (bt.seed_trees), 0: none */
  lbt_entry *entry; /* the innermost entry, NULL when not entered */
  int *live;        /* the entries' islands (lbt_entry.nlive); live[-1] is its capacity */
} lbt_tree;

/* The key of state s's Lua data in the tree's table LBT_UV_OBJS. */
static inline lua_Integer lbt_data_key(int s) { return -(lua_Integer)s - 1; }

/* The bytes of the lbt_tree at the head of a tree's userdata: its instance follows them. */
#define LBT_TREE_HEAD ((sizeof(lbt_tree) + 7) & ~(size_t)7)

/* The tree's instance, or NULL once it is collected. */
static inline bt_inst *lbt_tree_inst(const lbt_tree *t) {
  return t->collected ? NULL : (bt_inst *)(void *)((char *)(uintptr_t)t + LBT_TREE_HEAD);
}

/* node -> what to add to its functions' slots (copies of subtrees), after the instance, for a
 * tree that runs subtrees (its definition's lbt_def.slot_base) */
static inline const int *lbt_tree_slot_base(const lbt_tree *t) {
  const bt_inst *in = lbt_tree_inst(t);
  const int *base;
  memcpy(&base, (const char *)in + bt_def_inst_size(bt_inst_def(in)), sizeof base);
  return base;
}

enum {
  LBT_UV_INST = 1,
  LBT_UV_OBJS,     /* state + 1 -> the node objects the tree needs: nodes written in Lua, those
                      holding their entity, nodes carrying fields of a script's own;
                      lbt_data_key(state) -> a node's Lua data: an event's data, a task's object;
                      and 0 -> its board (lbt_tree.board) */
  LBT_UV_VIEWS,    /* state + 1 -> any other node object, weakly: made anew when gone */
  LBT_UV_EVENTS,   /* the nodes listening for events that FireEvent reaches */
  LBT_UV_DEF,
  LBT_UV_HOOK,     /* the Lua object of its instance's hook (a bt.Recorder), which the tree keeps
                      alive; it goes with the hook to a tree that replaces this one
                      (lbt_tree_move_hook) */
  LBT_UV_FNS       /* last: the table of its functions by slot; in a tree that holds its
                      functions itself (lbt_tree.own_fns), the function of slot 1, and the
                      others after it */
};

/* The tree userdata at idx as it is, or NULL: a tree rebuilt since is its old self (forwarded). */
static inline lbt_tree *lbt_tree_raw(lua_State *L, int idx) {
  lbt_tree *t = (lbt_tree *)lua_touserdata(L, idx);
  /* a light userdata has no length: lua_rawlen gives 0 */
  if (!t || lua_rawlen(L, idx) < sizeof *t || t->magic != LBT_TREE_MAGIC) return NULL;
  return t;
}

/* The tree at idx, a tree rebuilt since (its children lists changed) replaced at idx by the tree
 * it became (lbt_tree_forward), or NULL. */
LBT_FUNC lbt_tree *lbt_tree_forward(lua_State *L, int idx);
static inline lbt_tree *lbt_tree_test(lua_State *L, int idx) {
  lbt_tree *t = lbt_tree_raw(L, idx);
  return t && t->forwarded ? lbt_tree_forward(L, idx) : t;
}

/* A definition userdata, of the metatable LBT_DEF_META. */
#define LBT_DEF_META "bt.definition"

typedef struct lbt_def {
  bt_def *def;
  const int *slot_base; /* its trees' lbt_tree.slot_base: NULL unless it runs named subtrees */
  int shared; /* made by bt.define: its objects are templates, copied for each entity */
  int nown;   /* graph ids of the root's own objects are below this: 0 for a shared definition;
                 the nodes of subtrees come after them */
} lbt_def;

enum {
  LBT_DEF_UV_TEMPLATES = 1, /* state + 1 -> node object */
  LBT_DEF_UV_FNS,           /* the leaf functions, by slot */
  LBT_DEF_UV_HOLDER,        /* the shared holder of its bt_def (compile.c) */
  LBT_DEF_UV_SUBTREES,      /* for a definition that is a named subtree or runs some, a table:
                               objs (its own objects by graph id + 1) and graph (the library's
                               entry, in a box) of a named one; uses (subtree name -> the
                               definition it ran when built) and slots (slot_base's memory) */
  LBT_DEF_UV_BOARD,         /* the bt.Blackboard whose keys it declares, or nil */
  LBT_DEF_UV_COUNT = LBT_DEF_UV_BOARD
};

/* Private table keys on node objects. */
LBT_FUNC const char lbt_key_tree; /* the lbt_tree userdata a node belongs to */
LBT_FUNC const char lbt_key_node; /* its pre-order index there (or in its definition) */
LBT_FUNC const char lbt_key_def;  /* the definition userdata a template belongs to */
LBT_FUNC const char lbt_key_children; /* a bound node's children list (lbt_children_watch) */
LBT_FUNC const char lbt_key_where;    /* "file:line" where a node with ports, or a watch, was
                                         made (or its ports assigned), for the core's messages,
                                         and under bt.set_where(true) where any node was made
                                         (coverage); false if no script's code was found */

/* ---- state.c ---- */

LBT_FUNC lbt_state *lbt_state_get(lua_State *L);
LBT_FUNC void lbt_registry_new(lua_State *L);     /* makes the module's registry table */
LBT_FUNC int lbt_registry_exists(lua_State *L);   /* whether the module is open in this state */
LBT_FUNC void lbt_registry_get(lua_State *L, int slot); /* pushes a registry slot's value */
LBT_FUNC void lbt_registry_set(lua_State *L, int slot); /* pops a value into a registry slot */
LBT_FUNC void lbt_open_keys(lua_State *L, lbt_state *S); /* fills S->keys */
static inline void lbt_push_key(lua_State *L, const lbt_state *S, int key) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->keys[key]);
}
/* Pushes "chunk:line" of the innermost Lua function outside the module's own Lua files (the code
 * that called the API), or "" if there is none. */
LBT_FUNC void lbt_push_where(lua_State *L);
/* Raises "bad argument #<arg> to '<fname>' (<msg>)", or "bad self to '<fname>' (<msg>)" for arg
 * 0, where the user's code called the API (the innermost Lua function outside bt's own files).
 * Every argument error of the binding goes through it. */
LBT_FUNC int lbt_argerror(lua_State *L, int arg, const char *fname, const char *msg);
/* lbt_argerror with "<expected> expected, got <type of the value at idx>". */
LBT_FUNC int lbt_typeerror(lua_State *L, int idx, int arg, const char *fname, const char *expected);
LBT_FUNC lua_Number lbt_checknumber(lua_State *L, int idx, int arg, const char *fname);
/* The status (READY..RUNNING) the string at idx names, or -1: Lua keeps one copy of each short
 * string, so the string is one of lbt_state.status_names. */
static inline int lbt_status_of(const lbt_state *S, lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  const char *s = lua_tostring(L, idx);
  for (int code = 0; code <= BT_RUNNING; code++)
    if (s == S->status_names[code]) return code;
  return -1;
}
LBT_FUNC void lbt_push_status(lua_State *L, int status); /* pushes its name, "ABORTED" included */
/* Pushes buf's text and frees buf, which is freed also when that raises (no memory). Returns 1. */
LBT_FUNC int lbt_push_buf(lua_State *L, bt_buf *buf);
LBT_FUNC void lbt_push_math_random(lua_State *L); /* math.random of the math library */
LBT_FUNC const luaL_Reg lbt_state_shared[]; /* shared.argerror(arg, fname, msg) */

/* ---- memory.c ---- */

LBT_FUNC lbt_memory *lbt_memory_of(lua_State *L); /* NULL for a state bt did not make */
LBT_FUNC const luaL_Reg lbt_memory_functions[]; /* bt.set_memory_limit, bt.memory */

/* ---- errlog.c ---- */

/* Writes a script error to standard error as "bt: <text>", the default error handler. An error
 * whose head (head, len bytes: its path, method and message, not its creature or traceback) came
 * before in this Lua state is counted instead; the counts are written as "bt: the same error <n>
 * more times (<total> in all): <head>" with an error that comes a second or more (real time)
 * after the last ones, and when the state closes. */
LBT_FUNC void lbt_errlog_write(lua_State *L, const char *text, const char *head, size_t len);

/* ---- call.c ---- */

/* Calls the function below nargs arguments, protected, under the instruction limit, with the
 * message handler at stack index msgh (0: one is pushed for the call). On error, reports it with
 * the node's path (what names the method, or NULL) and returns the error code, results popped.
 * Every call from bt into Lua code goes through it. */
LBT_FUNC int lbt_pcall(lbt_state *S, lua_State *L, int nargs, int nres, int msgh,
                       const bt_inst *inst, int node, const char *what);
/* lbt_pcall whose report reads the name *what when the call has failed: a call of several steps
 * names the one that raised. */
LBT_FUNC int lbt_pcall_named(lbt_state *S, lua_State *L, int nargs, int nres, int msgh,
                             const bt_inst *inst, int node, const char *const *what);
/* A message handler for lbt_pcall's msgh (adds a traceback), for a caller making many calls. */
LBT_FUNC int lbt_message_handler(lua_State *L);
/* The name of key (LBT_KEY_*) */
LBT_FUNC const char *lbt_key_name(int key);
LBT_FUNC void lbt_report(lbt_state *S, lua_State *L, const bt_inst *inst, int node, const char *message);
/* Pushes node's path: the names from the root joined by '/', siblings that share a name
 * numbered "#1", "#2", ... in their order, so that a path names one node. */
LBT_FUNC void lbt_push_path(lua_State *L, const bt_inst *inst, int node);
LBT_FUNC void lbt_push_def_path(lua_State *L, const bt_def *def, int node); /* the same, of a definition */
/* The same for a tree given by its nodes in pre-order (a definition, or a saved state's shape). */
typedef struct lbt_shape {
  const void *data;
  int size;
  int (*up)(const void *data, int node);            /* parent, -1 for the root */
  const char *(*name)(const void *data, int node);
} lbt_shape;
LBT_FUNC void lbt_push_shape_path(lua_State *L, const lbt_shape *shape, int node);
/* Pushes what names the entity at idx without running Lua code (raw fields only): "<kind> <id>"
 * from prefab or kind and GUID or id, else its name, else its type and address. */
LBT_FUNC void lbt_push_entity_label(lua_State *L, int idx);

/* ---- statistics (stats.c) ---- */
LBT_FUNC void lbt_open_stats(lua_State *L, int module);
/* The bt_stats of the bt.Stats at idx, or NULL if it is none. */
LBT_FUNC bt_stats *lbt_stats_test(lua_State *L, int idx);
/* Pushes a new bt.Stats (it keeps each recorder's own figures) and returns its bt_stats. */
LBT_FUNC bt_stats *lbt_stats_new(lua_State *L);

/* ---- records (records.c) ---- */
/* Sets node (1-based), and what the caller names it by, of the table at the top for node of shape. */
typedef void (*lbt_set_node_fn)(lua_State *L, const void *shape, int node);
/* "status", "think", ... for a BT_REC_* type; NULL for another. */
LBT_FUNC const char *lbt_record_type(int type);
LBT_FUNC void lbt_push_hash(lua_State *L, unsigned long long hash); /* 16 hexadecimal digits */
/* Sets the fields of the table at the top that e's type has (docs/lua-api.md "Recording"):
 * status: node, from, to; think: cause, sleep; event: node; error: node, message; reload: from,
 * to; host: code, data; key: key (1-based), old, new, woke (the caller names the key: `name`).
 * Nodes are named by set_node. Other types: none. */
LBT_FUNC void lbt_record_fields(lua_State *L, const bt_rec_entry *e, lbt_set_node_fn set_node, const void *shape);

/* ---- the recorder (recorder.c) ---- */
LBT_FUNC void lbt_open_recorder(lua_State *L, int module);
LBT_FUNC const luaL_Reg lbt_recorder_shared[];
/* A reload: the recorder of the tree at from (if any, and if the tree at to has none) moves to it. */
/* The brain at idx keeps its recorder (its raw field `recorder`; with options at opts (0: none),
 * one is made if it has none) attached to its tree (its raw field `bt`). */
LBT_FUNC void lbt_recorder_follow(lua_State *L, int brain, int opts);


/* Entering a tree. The core calls back into Lua (leaves, a script's Visit, OnStop, ...) through
 * what the tree's entry pushed: the tree's functions, its inst, a message handler, and the thread
 * to call in. So every entry point that makes the core act on a tree's instance (a think, Reset,
 * Stop, a sleep time, a dump, a node method, an event, a reload's stops) enters that tree before
 * the call and leaves it after, on the same stack; entries nest. t is the tree userdata at the
 * absolute index tree, and entry the caller's, which the tree uses until lbt_tree_leave pops
 * what enter pushed and puts back the entry it replaced. Nothing between the two may raise an
 * error, or the tree would keep an entry whose C frame is gone: every call into Lua is protected
 * (lbt_pcall), and bt's own allocations meanwhile may go a reserve past a memory limit (bt's work
 * that needs memory is done before entering where it can be; only a machine out of memory, which
 * no Lua state survives well, could still raise there).
 * A tree whose instance is gone (collected) must not be entered. */
LBT_FUNC void lbt_tree_enter(lua_State *L, lbt_tree *t, int tree, lbt_entry *entry);
LBT_FUNC void lbt_tree_leave(lua_State *L, lbt_tree *t);

LBT_FUNC void lbt_run_deferred(lua_State *L, lbt_state *S); /* the work deferred during thinks */
LBT_FUNC const luaL_Reg lbt_call_functions[]; /* bt.set_error_handler, bt.set_instruction_limit */
LBT_FUNC const luaL_Reg lbt_call_shared[]; /* shared.thinking, shared.defer, shared.bound_thread */

/* ---- clock.c ---- */

LBT_FUNC void lbt_host_init(lbt_state *S); /* the core's clock and random numbers */
/* The first state of a tree's bt.random stream, from its bt.seed_trees seed. */
LBT_FUNC uint64_t lbt_stream_seed(unsigned long long seed);
/* shared.set_random_tree (bt.random's stream outside a tree) */
LBT_FUNC const luaL_Reg lbt_clock_shared[];
/* Within one call of the API (a think, a tree's sleep time or dump), the core's reads of the time
 * with no Lua code run between them share one clock call; with share 0 (a DS-exact tree) none
 * do, every read calls the clock. Begin returns what end restores. */
LBT_FUNC int lbt_time_group_begin(lbt_state *S, int share);
LBT_FUNC void lbt_time_group_end(lbt_state *S, int outer);
LBT_FUNC void lbt_open_clock(lua_State *L, int module); /* bt.set_clock, bt.GetTime */
LBT_FUNC double lbt_clock_now(lua_State *L);            /* bt.GetTime() */

/* ---- objects.c ---- */

LBT_FUNC const luaL_Reg lbt_objects_shared[]; /* shared.new_object(class) */
/* shared.construct_node, the __call of the node classes; a closure over the lbt_state (a light
 * userdata) is quicker than one without (lbt_open_classes makes it so). */
LBT_FUNC int lbt_construct_node(lua_State *L);
/* Notes (lbt_key_where) where the node object at obj was made, if it has no such note: the code
 * that called the innermost node constructor on the stack (a class's, whose ctor makes the node),
 * or the innermost script code if none; "chunk:line" (the chunk's whole name under
 * bt.set_where(true), else its short form), or false if no script's code is on the stack. */
LBT_FUNC void lbt_note_where(lua_State *L, int obj);
LBT_FUNC int lbt_is_node(lua_State *L, int idx);
LBT_FUNC int lbt_node_kind(lua_State *L, int idx); /* the kind its class derives from, or -1 */
/* Whether the class of the node object at idx, of that kind, is not the kind's own: a script's
 * subclass. */
LBT_FUNC int lbt_is_custom(lua_State *L, const lbt_state *S, int idx, int kind);
/* The tree a node object is bound to and its index there, or NULL; pushes nothing. */
LBT_FUNC lbt_tree *lbt_node_tree(lua_State *L, int obj, int *node);
/* __index and __newindex of every node class: closures over the lbt_state (light userdata) */
LBT_FUNC int lbt_node_index(lua_State *L);
LBT_FUNC int lbt_node_newindex(lua_State *L);
LBT_FUNC void lbt_open_views(lua_State *L);   /* the field names node objects have */
/* Indexes LBT_REG_CTORFIELDS in the module's state, once it is filled (lbt_open_classes). */
LBT_FUNC void lbt_index_fields(lua_State *L);
/* Pushes the table uv (OBJS, VIEWS, DATA, EVENTS) of the tree, made now if create, or nil. */
LBT_FUNC void lbt_tree_table(lua_State *L, int tree, int uv, int create);
/* Pushes the node object of state s of the tree: the one that exists, or made anew. */
LBT_FUNC void lbt_push_state_obj(lua_State *L, lbt_tree *t, int tree, int s);
/* Pushes the node object of state s that exists and returns 1, or pushes nothing and returns 0. */
LBT_FUNC int lbt_push_existing_obj(lua_State *L, lbt_tree *t, int tree, int s);
/* Whether state s of the tree is a template's (a shared definition's or a subtree's: its object is
 * the entity's copy, made on use). */
LBT_FUNC int lbt_is_template_state(const lbt_tree *t, int s);
/* Live children lists, as in Don't Starve. The children list of the node object at obj (its field
 * `children`, or where a bound node keeps it, lbt_key_children) is watched: its items move to a
 * table of their own, so that every write to the list (an item replaced, added or removed) goes
 * through its metamethods, and marks the owner's tree (lbt_children_mark); a write to a list of a
 * shared definition's node is an error naming the node. Reads, #, ipairs, pairs and the table
 * library see the items. A list with a metatable of its own (a script's) is left as it is. */
LBT_FUNC void lbt_children_watch(lua_State *L, int obj);
/* Marks the tree at index tree (lbt_tree_test) as one a script may have edited: its first call
 * outside a think compares its lists with its definition. */
LBT_FUNC void lbt_children_mark(lua_State *L, int tree);
/* Pushes the items of the children list of the node object at obj (those of a watched list, else
 * the list), or what its field holds if no table; returns the type pushed. */
LBT_FUNC int lbt_push_children(lua_State *L, int obj);
/* lbt_push_children, the string "children" at stack index key (a builder's, interned once). */
LBT_FUNC int lbt_push_children_at(lua_State *L, int obj, int key);
/* Pushes the items of the table at list if it is a watched list, else the value at list. */
LBT_FUNC void lbt_push_list_items(lua_State *L, int list);
/* The node object at obj, if a script took it out of a tree whose children lists it edited (it is
 * still bound to the tree rebuilt since, lbt_tree.forwarded, which keeps its state), leaves that
 * tree, a node of none that a tree may take in: its state (but lastresult and data) and its
 * relatives become plain fields. Then pushes the tree it left, sets *node to its node there and
 * returns 1; else pushes nothing and returns 0. */
LBT_FUNC int lbt_release_stale(lua_State *L, int obj, int *node);
/* Pushes obj[key] read raw from the object, else from its class, and returns its type: a script
 * that gave the object an __index cannot raise in the middle of a think. */
LBT_FUNC int lbt_node_member(lua_State *L, const lbt_state *S, int obj, int key);
/* Binds the root's own objects of a tree built for one entity to its instance (tree at index
 * tree, its definition d at index def): their state moves into the instance. */
LBT_FUNC void lbt_adopt_objects(lua_State *L, lbt_tree *t, int tree, int def, const lbt_def *d);
/* Makes obj, an own object of a shared definition, its template (stripped of state). */
LBT_FUNC void lbt_make_template(lua_State *L, const bt_def *def, int node, int obj, int defud);
/* While a node's Lua code runs, its object holds its status as a plain field, so that the code
 * reads and writes it at a table's speed. Put sets the field of the object at stack index obj,
 * node `node` of the tree, from the instance; take moves the field's value into the instance (a
 * value that is no status is reported as the node's error, and the node FAILED) and removes the
 * field, so that reads and writes go to the instance again. */
LBT_FUNC void lbt_live_put(lua_State *L, lbt_tree *t, int obj, int node);
LBT_FUNC void lbt_live_take(lua_State *L, lbt_tree *t, int obj, int node);
/* If the node object of state has an OnStop, pushes the object and its OnStop and returns 1; an
 * object not made yet is made only then, and only if make (else -1 says one is needed). Else
 * pushes nothing and returns 0. */
LBT_FUNC int lbt_push_on_stop(lua_State *L, int tree, int state, int make);

/* ---- leaves.c ---- */

/* The leaf functions of a definition being compiled, by slot. */
typedef struct lbt_slots {
  lua_State *L;
  int table; /* absolute index */
  int n;
} lbt_slots;

/* Pops the value on the top into the next slot; returns what the core gives back as its ud. */
LBT_FUNC void *lbt_slot_add(lbt_slots *slots);
LBT_FUNC int lbt_call_truth(bt_call *c);     /* fn(inst), truthiness */
LBT_FUNC int lbt_call_time(bt_call *c);      /* fn(): a number of seconds */
LBT_FUNC int lbt_call_time_inst(bt_call *c); /* fn(the node object's inst): seconds */
LBT_FUNC const bt_task lbt_task_calls;       /* a task's start, update and finish */
/* The overrides of a node whose class is its kind's own (a script's OnStop only), and of one
 * whose class a script derived (any method). */
LBT_FUNC const bt_ops lbt_builtin_ops, lbt_custom_ops;
/* A method of the core called from Lua on a node of a tree whose islands are live (a Visit
 * running calls a node's Reset, say), once it entered the tree, first moves their statuses into
 * the instance, removing the fields (flush: it returns what refresh takes), and, when the core is
 * done, before leaving, puts the instance's back into them (refresh). Meanwhile scripts read and
 * write them in the instance. */
LBT_FUNC int lbt_live_flush(lbt_tree *t);
LBT_FUNC void lbt_live_refresh(lbt_tree *t, int flushed);
LBT_FUNC void lbt_live_free(lua_State *L, lbt_tree *t); /* at the tree's collection */
/* Whether t is entered with live islands that no method of the core flushed. */
static inline int lbt_live_unflushed(const lbt_tree *t) {
  return t->entry && t->entry->nlive > t->entry->nflushed;
}

/* ---- board.c ---- */

/* A declaration of keys, bt.Blackboard{...}: a userdata of LBT_BOARD_META, its keys sorted by
 * name (a key's id in a tree is its index here). Its user value is a table: name -> id, and
 * id + 1 -> name (which keeps the names alive). */
#define LBT_BOARD_META "bt.Blackboard"
typedef struct lbt_board_key {
  const char *name;
  int type;       /* a bt_key_type */
  unsigned flags; /* BT_KEY_HOST */
} lbt_board_key;
typedef struct lbt_board {
  int nkeys;
  lbt_board_key keys[];
} lbt_board;

/* A tree's board (tree.board): what reads and writes its instance's keys. Its user values: the
 * tree, the declaration, the values of its "any" keys (id + 1 -> value), and the scheduler's
 * userdata while a scheduler wakes the tree's brain through it (sched.c binds, board.c moves the
 * binding with the tree). */
typedef struct lbt_proxy {
  lbt_tree *t;
  const lbt_state *S;      /* the Lua state the tree belongs to */
  unsigned long long token; /* the last token written for an "any" key */
  bt_sched *const *sched;  /* the binding: the scheduler (its owner's field, NULL once it is freed), */
  int id;                  /* the brain's id there, */
  bt_inst *bound;          /* and the instance it binds (NULL: none) */
} lbt_proxy;
enum { LBT_PROXY_UV_TREE = 1, LBT_PROXY_UV_BOARD, LBT_PROXY_UV_VALUES, LBT_PROXY_UV_SCHED, LBT_PROXY_UV_COUNT = 4 };

/* The key type the string at idx names ("number", ..., "any"), or -1; and the name of a type. */
LBT_FUNC int lbt_key_type_of(lua_State *L, int idx);
LBT_FUNC const char *lbt_key_type_name(int type);
LBT_FUNC lbt_board *lbt_board_test(lua_State *L, int idx);
/* The id of the key named by the string at name in the declaration at board, or -1. */
LBT_FUNC int lbt_board_find(lua_State *L, int board, int name);
LBT_FUNC int lbt_board_same(const lbt_board *a, const lbt_board *b); /* the same keys */
/* Declares the keys in the graph, in their order (ids as the declaration's). */
LBT_FUNC void lbt_board_declare(lua_State *L, const lbt_board *b, bt_graph *g, const char *fname);
/* Whether the value at idx is a whole number (an integer, or a float of an integral value in
 * range): then *out is it. */
LBT_FUNC int lbt_whole(lua_State *L, int idx, lua_Integer *out);
/* Pushes a blackboard value as Lua reads it: nil for none, an entity's id (and a binding's
 * token) as an integer. A tree's board gives an "any" key's Lua value instead (board.c). */
LBT_FUNC void lbt_push_key_value(lua_State *L, const bt_value *v);
/* The entity id of the value at idx: an integer, or a table or userdata whose GUID (else id) is
 * one. Returns 1 and *out, or 0. May run the value's __index. */
LBT_FUNC int lbt_entity_id(lua_State *L, int idx, unsigned long long *out);
/* Gives the new tree t (at tree) its board, of the declaration at board. */
LBT_FUNC void lbt_board_attach(lua_State *L, lbt_tree *t, int tree, int board);
/* The board of the tree at tree moves to the tree at to that replaces it (its children lists were
 * edited): scripts keep the same object, and a scheduler's binding follows. */
LBT_FUNC void lbt_board_move(lua_State *L, int from, int to);
/* A reload gave the tree at to the state of the tree at from: the values of "any" keys follow
 * (the core carried the other values), and the old tree wakes nothing any more. */
LBT_FUNC void lbt_board_migrate(lua_State *L, int from, int to);
/* The proxy at idx wakes no scheduler any more (its instance's waker cleared). */
LBT_FUNC void lbt_board_unbind(lua_State *L, int idx);
LBT_FUNC void lbt_open_board(lua_State *L, int module); /* bt.Blackboard */
LBT_FUNC const luaL_Reg lbt_board_shared[];              /* shared.is_board */

/* ---- classes.c ---- */

/* Reads the node object at obj into s (kind, name, params, functions into slots, ports and where);
 * template: it is an object of a shared definition; board: the stack index of the tree's
 * bt.Blackboard, or 0 (a watch's value takes its key's type). Pushes the string s->name
 * points into: pop it once the spec is used (the ports and the other texts s points to are held
 * by the object). Raises what is wrong with the object, prefixed with fname. */
LBT_FUNC void lbt_class_spec(lua_State *L, const lbt_state *S, int obj, int template,
                             lbt_slots *slots, const char *fname, bt_spec *s, int keys, int board);
/* The strings lbt_class_spec and the compiler read node objects and their classes by, pushed once
 * at consecutive stack indices (lbt_push_spec_keys), the first at `keys`: pushing a copy of a
 * string on the stack costs less than pushing the string anew. */
enum { LBT_SPEC_NAME, LBT_SPEC_CHILDREN, LBT_SPEC_PARENT, LBT_SPEC_KIND, LBT_SPEC_NODE, LBT_SPEC_READS,
       LBT_SPEC_WRITES, LBT_SPEC_KEYS };
LBT_FUNC void lbt_push_spec_keys(lua_State *L);
/* The nodes of a new tree that listen for events: the entity listens for each template's event
 * through its inst, or FireEvent reaches the node; an own node that did not listen is reached by
 * FireEvent. templated: the tree has templates (it is shared, or runs named subtrees). */
LBT_FUNC void lbt_events_bind(lua_State *L, lbt_tree *t, int tree, int inst, int templated);
/* tree:FireEvent(event, data): tree, event and data at those indices. */
LBT_FUNC void lbt_events_fire(lua_State *L, int tree, int event, int data);
LBT_FUNC void lbt_open_classes(lua_State *L, int module);
/* Pushes a list of the classes and constructors of Don't Starve's that install_globals sets. */
LBT_FUNC void lbt_push_global_names(lua_State *L);

/* ---- compile.c ---- */

/* Pushes a definition of the tree under root (shared: bt.define's, else BT's for one entity);
 * defining: the subtree name it is being defined as (a reference to it is a cycle), or NULL;
 * board: the stack index of the bt.Blackboard whose keys it declares, or 0. */
LBT_FUNC int lbt_compile(lua_State *L, int root, int shared, const char *fname, const char *defining,
                         int board);
/* lbt_compile(L, root, 0, "BT", NULL) of a tree being rebuilt, its children lists edited (tree.c):
 * the objects in the table at old (object -> its node in od, the old definition) are read from
 * od, and the new definition's slots begin with the nfns of fns, the old tree's functions by slot,
 * where the nodes of od find theirs; those in the table at others (object -> {definition as a light
 * userdata, node, offset}: nodes taken in from a tree rebuilt before) are read from theirs, their
 * functions in fns from the offset on. */
LBT_FUNC int lbt_compile_again(lua_State *L, int root, int old, const bt_def *od, int fns, lua_Integer nfns,
                               int others, int board);
LBT_FUNC lbt_def *lbt_def_test(lua_State *L, int idx);
/* Pushes the definition that trees built for one entity from the definition at def_idx keep once
 * built: one per shape, holding no entity's functions (each tree holds its own). The definition
 * at def_idx, of such a tree (not shared, without subtrees), becomes that one if there is none. */
LBT_FUNC void lbt_push_own_def(lua_State *L, int def_idx);
LBT_FUNC void lbt_open_compile(lua_State *L, int module);
LBT_FUNC const luaL_Reg lbt_compile_shared[]; /* shared.uses, stale, save_subtrees, restore_subtrees */

/* ---- tree.c ---- */

LBT_FUNC void lbt_open_tree(lua_State *L, int module);
/* What a Brain's OnUpdate and GetSleepTime do when they are Brain's own: tree:Update() and
 * tree:GetSleepTime() for the brain's tree at index tree, if it is a tree whose BT methods are
 * still bt's own and which is not thinking. think_own thinks and returns 1 and *sleep, or 0 for
 * no sleep time; LBT_SLEEP_UNKNOWN if the brain at index brain has another tree after the think
 * (or it ran deferred work, which may have changed that): the caller asks the tree it has then;
 * LBT_NOT_OWN, doing nothing, if not its own. sleep_own: the sleep time only (1 and *sleep, 0
 * for nil, or LBT_SLEEP_UNKNOWN if not its own). */
#define LBT_SLEEP_UNKNOWN (-1)
#define LBT_NOT_OWN (-2)
LBT_FUNC int lbt_tree_think_own(lua_State *L, int tree, int brain, double *sleep);
LBT_FUNC int lbt_tree_sleep_own(lua_State *L, int tree, double *sleep);
/* The hook of the instance of the tree at index from (a recorder) goes to the tree at index to,
 * which takes that tree's place, with the Lua object that keeps it (LBT_UV_HOOK); nothing moves
 * when from has none, to has one of its own, or either is thinking (bt_inst_move_hook). */
LBT_FUNC void lbt_tree_move_hook(lua_State *L, int from, int to);

/* ---- sched.c, reload.c, watch.c: the private functions lua/brain.lua and lua/reload.lua use ---- */

/* bt.set_tick_time; shared.scheduler and shared.wrangler_methods */
LBT_FUNC void lbt_open_sched(lua_State *L, int module, int shared);
LBT_FUNC const luaL_Reg lbt_reload_shared[];            /* shared.migrate */
/* shared.tree_export, tree_objects, saved_open, saved_apply, state_object, tick_time */
LBT_FUNC const luaL_Reg lbt_save_shared[];

/* ---- logfile.c ---- */

LBT_FUNC void lbt_open_logfile(lua_State *L, int module); /* bt.log.create, open, read */
/* The log of the writer at idx (bt.log.create), NULL if it is closed; lbt_log_is_writer: whether
 * the value at idx is a writer. */
LBT_FUNC bt_log *lbt_log_writer_test(lua_State *L, int idx);
LBT_FUNC int lbt_log_is_writer(lua_State *L, int idx);
LBT_FUNC int lbt_watcher_new(lua_State *L);             /* shared.watcher(mode) */

#endif
