/* lbt.h: what the files of the Lua binding share. Not installed. */
#ifndef LBT_H
#define LBT_H

#include <lauxlib.h>
#include <lua.h>

#include "bt.h"
#include "bt_lua.h"

/* Upvalue-free registry slots, all inside the module's registry table (lbt_registry). */
#define LBT_REG_STATE 1       /* the lbt_state userdata */
#define LBT_REG_CLASSES 2     /* kind + 1 -> builtin class */
#define LBT_REG_HANDLER 3     /* the error handler, or nil */
#define LBT_REG_BT 4          /* the BT table: tree methods */
#define LBT_REG_MODULE 5      /* the module table */
#define LBT_REG_CLASS 6       /* Class */
#define LBT_REG_VIEWKEYS 7    /* field name -> view code */
#define LBT_REG_STATUSES 8    /* status code + 1 -> name */
#define LBT_REG_STATUSCODES 9 /* status name -> code */
#define LBT_REG_DEFERRED 10   /* functions to run once no tree thinks */
#define LBT_REG_DEFCACHE 11   /* definition hash -> holder of a compiled bt_def (weak values) */
#define LBT_REG_WEAKVALUES 12 /* the metatable {__mode = "v"} */
#define LBT_REG_SUBTREES 13   /* name -> definition: the named definitions (bt.define(root, name)) */
#define LBT_REG_COUNT 13

/* The allocator's state of a Lua state made by bt_lua_newstate (memory.c). */
typedef struct lbt_memory {
  size_t used, limit; /* bytes; limit 0 for none */
  int reserve;        /* bt's own work is under way: it may go past the limit by a reserve */
} lbt_memory;

lbt_memory *lbt_memory_of(lua_State *L); /* NULL for a state bt did not make */
void lbt_open_memory(lua_State *L, int module);
void lbt_add_call_core(lua_State *L, int core); /* core.bound_thread */

/* Per lua_State module state. */
typedef struct lbt_state {
  bt_host host;      /* the core's clock and random numbers, data = this */
  lua_State *L;      /* the thread the core may call back into right now */
  int registry;      /* registry reference of the module's table */
  double start;      /* monotonic time when the module was loaded */
  double last_time;  /* the clock's last good value */
  double tick_time;  /* bt.set_tick_time: seconds per scheduler tick */
  lua_Integer limit; /* instruction limit per call into Lua, 0 for none */
  int depth;         /* nesting of calls from bt into Lua */
  int hooked;        /* the instruction hook is installed */
  int msgh;          /* the message handler's index in S->L's frame of the entry under way, 0 if none */
  int clock_ref;     /* registry reference of the clock function, LUA_NOREF for none */
  int clock_fixed;   /* no clock function: the time is last_time (bt.set_clock(number)) */
  int thinking;      /* trees inside tree:Update */
  int group_depth;   /* depth of the innermost API call whose reads of the time share clock calls
                        (lbt_time_group_begin), -1 outside one */
  int time_fresh;    /* last_time was read at group_depth, and no Lua code has run since */
  int deferred;      /* LBT_REG_DEFERRED holds work for when thinking drops to 0 */
  lbt_memory *mem;   /* the bounded allocator's state, NULL if bt did not make the Lua state */
} lbt_state;

/* What an entry point pushed for the core's callbacks: absolute stack indices in L. */
typedef struct lbt_ctx {
  lua_State *L;
  int tree, fns, inst, msgh;
  int outer_msgh; /* the module state's msgh before this entry */
} lbt_ctx;

/* A BT userdata: an lbt_tree followed by its bt_inst. Its user values are below. */
#define LBT_TREE_MAGIC 0x62747472u /* "bttr" */

typedef struct lbt_tree {
  unsigned magic; /* LBT_TREE_MAGIC: a cheap check that a userdata is a tree */
  bt_inst *inst;
  lbt_state *S;
  lbt_ctx ctx;
  int shared; /* an instance of a shared definition: objs are the entity's copies, made on use */
  int nown;   /* graph ids below this are the entity's own node objects; the rest (every node of a
                 shared definition, the nodes of subtrees) are templates, copied on use */
} lbt_tree;

/* Whether state s of the tree is a template's (its object is the entity's copy, made on use). */
static inline int lbt_is_template(const lbt_tree *t, int s) {
  return bt_def_graph_id(bt_inst_def(t->inst), s) >= t->nown;
}

enum {
  LBT_UV_FNS = 1,  /* first: every think reads these two, next to the userdata's header */
  LBT_UV_INST,
  LBT_UV_OBJS,     /* state + 1 -> the node objects the tree needs: nodes written in Lua,
                      EventNodes, LatchNodes, nodes carrying fields of a script's own */
  LBT_UV_VIEWS,    /* state + 1 -> any other node object, weakly: made anew when gone */
  LBT_UV_DATA,     /* state + 1 -> an EventNode's event data */
  LBT_UV_EVENTS,   /* the EventNodes that FireEvent reaches */
  LBT_UV_DEF,
  LBT_UV_COUNT = LBT_UV_DEF
};

/* OBJS, VIEWS, DATA and EVENTS are made on first use: pushes the table, made now if create,
 * or nil. */
void lbt_tree_table(lua_State *L, int tree, int uv, int create);

/* A definition userdata. Its user values: templates (state + 1 -> node object), fns, root. */
typedef struct lbt_def {
  bt_def *def;
  int shared; /* made by bt.define: its objects are templates, copied for each entity */
  int nown;   /* graph ids of the root's own objects are below this: 0 for a shared definition;
                 the nodes of subtrees come after them */
  int nnodes; /* graph nodes: own objects and those of subtrees */
} lbt_def;

enum {
  LBT_DEF_UV_TEMPLATES = 1,
  LBT_DEF_UV_FNS,
  LBT_DEF_UV_ROOT,
  LBT_DEF_UV_HOLDER, /* the shared holder of its bt_def (see compile.c) */
  LBT_DEF_UV_USES,   /* subtree name -> the definition it ran when this one was built, or nil */
  LBT_DEF_UV_COUNT = LBT_DEF_UV_USES
};

/* Private table keys on node objects. */
extern const char lbt_key_tree; /* the lbt_tree userdata a node belongs to */
extern const char lbt_key_node; /* its pre-order index there (or in its definition) */
extern const char lbt_key_def;  /* the definition userdata a template belongs to */
extern const char lbt_key_noscatter; /* on a PriorityNode template: built with noscatter */

/* module.c */
lbt_state *lbt_state_get(lua_State *L);
void lbt_registry_get(lua_State *L, int slot); /* pushes a registry slot's value */
void lbt_registry_set(lua_State *L, int slot); /* pops a value into a registry slot */
double lbt_clock(lbt_state *S, lua_State *L, int msgh); /* msgh: the entry's handler, or 0 */
/* Within one call of the API (a think, a tree's sleep time or dump), the core's reads of the time
 * with no Lua code run between them share one clock call. Begin returns what end restores. */
int lbt_time_group_begin(lbt_state *S);
void lbt_time_group_end(lbt_state *S, int outer);
int lbt_argerror(lua_State *L, int arg, const char *fname, const char *msg);
/* "bad argument #<arg> to '<fname>' (<expected> expected, got <type of the value at idx>)" */
int lbt_typeerror(lua_State *L, int idx, int arg, const char *fname, const char *expected);

/* call.c: protected calls into Lua, error reports, the instruction limit */
/* Calls the function below nargs arguments, protected, under the instruction limit, with the
 * message handler at stack index msgh (0: one is pushed for the call). On error, reports it with
 * the node's path (what names the method, or NULL) and returns the error code, results popped. */
int lbt_pcall(lbt_state *S, lua_State *L, int nargs, int nres, int msgh, const bt_inst *inst,
              int node, const char *what);
int lbt_msgh(lua_State *L); /* the message handler: the error and a traceback */
void lbt_report(lbt_state *S, lua_State *L, const char *message);
void lbt_push_path(lua_State *L, const bt_inst *inst, int node);

/* node.c */
int lbt_is_node(lua_State *L, int idx);
int lbt_node_kind(lua_State *L, int idx); /* the builtin kind its class derives from */
void lbt_open_nodes(lua_State *L, int module);
int lbt_view_get(lua_State *L, lbt_tree *t, int node, int code); /* pushes a value; 0 if no view */
int lbt_view_set(lua_State *L, lbt_tree *t, int node, int code, int value);
int lbt_view_code(lua_State *L, int key); /* view code of a key, 0 if none */
int lbt_status_code(lua_State *L, int idx); /* the status a string names (READY..RUNNING), or -1 */
void lbt_push_status(lua_State *L, int status); /* pushes its name, "ABORTED" included */
void lbt_push_event_listener(lua_State *L, int obj); /* function(inst, data) obj:OnEvent(data) */
void lbt_strip_views(lua_State *L, const bt_def *def, int node, int obj);
/* Pushes buf's text and frees buf, which is freed also when that raises (no memory). Returns 1. */
int lbt_push_buf(lua_State *L, bt_buf *buf);

/* sched.c: pushes the private table lua/brain.lua builds BrainWrangler from */
void lbt_push_sched_core(lua_State *L);

/* compile.c */
/* Pushes a definition of the tree under root (shared: bt.define's, else BT's for one entity);
 * defining: the subtree name it is registered as (a reference to it is a cycle), or NULL. */
int lbt_compile(lua_State *L, int root, int shared, const char *fname, const char *defining);
lbt_def *lbt_test_def(lua_State *L, int idx);
void lbt_open_compile(lua_State *L, int module);
void lbt_add_subtree_core(lua_State *L, int core); /* core.subtrees, core.uses */

/* tree.c */
extern const bt_ops lbt_builtin_ops, lbt_custom_ops;
int lbt_call_truth(bt_call *c);
extern const bt_task lbt_task_calls; /* a TaskNode's start, update and finish, in Lua */
int lbt_call_wait_time(bt_call *c);
int lbt_call_latch_time(bt_call *c);
int lbt_instantiate(lua_State *L, int def, int inst); /* pushes a tree */
/* If the node object of state has an OnStop, pushes the object and its OnStop and returns 1; an
 * object not made yet is made only then. Else pushes nothing and returns 0. */
int lbt_push_on_stop(lua_State *L, int tree, int state);
/* A bound node's `parent` or `children` (which 0 or 1), from its tree: pushes 1 value. */
void lbt_push_relatives(lua_State *L, int obj, int which);

/* reload.c, watch.c */
void lbt_add_reload_core(lua_State *L, int core);
void lbt_run_deferred(lua_State *L, lbt_state *S);
void lbt_push_watch_core(lua_State *L); /* pushes the watcher constructor */
void lbt_open_tree(lua_State *L, int module);
lbt_tree *lbt_node_tree(lua_State *L, int obj, int *node); /* NULL if unbound; pushes nothing */
lbt_tree *lbt_test_tree(lua_State *L, int idx); /* the tree userdata at idx, or NULL */
void lbt_enter(lua_State *L, int tree_idx, lbt_ctx *saved, lua_State **saved_L);
void lbt_leave(lua_State *L, int tree_idx, const lbt_ctx *saved, lua_State *saved_L);
int lbt_fire(lua_State *L, int obj, int data); /* EventNode:OnEvent for a node object */

#endif
