/* SPDX-License-Identifier: MIT */
/*
 * bt.h: the bt core. Behaviour trees with Don't Starve's semantics, in plain C11, without Lua.
 *
 * A host describes a tree as a graph of nodes (bt_graph), compiles it into an immutable
 * definition (bt_def) that any number of agents share, and gives each agent an instance
 * (bt_inst): one allocation that holds every node's state. bt_inst_update is one think.
 *
 * Nodes are addressed by their index in the definition's depth-first (pre-order) layout. A
 * graph node placed under several parents appears at several indices that share one state.
 * Every function that can fail returns BT_OK (0) or a negative BT_E* code; bt_strerror names it,
 * and the graph keeps a message (bt_graph_errmsg). Nothing here aborts or exits.
 */
#ifndef BT_H
#define BT_H

#include <stddef.h>

#include "bt_version.h" /* BT_VERSION ("0.2.0"), BT_VERSION_MAJOR, _MINOR, _PATCH: generated */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked in, as BT_VERSION ("MAJOR.MINOR.PATCH"); a host built against
 * one version's headers can compare it with BT_VERSION at run time. Static, never NULL; no errors. */
const char *bt_version(void);

/* Error codes. */
#define BT_OK 0
#define BT_ENOMEM (-1)  /* out of memory */
#define BT_EINVAL (-2)  /* bad argument */
#define BT_ECYCLE (-3)  /* a node is its own ancestor */
#define BT_ETOOBIG (-4) /* the tree is deeper than BT_MAX_DEPTH or has more than BT_MAX_NODES nodes */
#define BT_EBUSY (-5)   /* not allowed now: the tree is thinking, or a bt_tsched frame is under way */
#define BT_EIO (-6)     /* a file could not be opened, read or written (the message says why) */
#define BT_EFORMAT (-7) /* not a bt log, or a log of a format version this library does not read */
#define BT_ECORRUPT (-8) /* a bt log whose bytes are damaged (the message says where) */
#define BT_ETHREAD (-9) /* the system refused to start a thread (bt_pool_create) */
#define BT_DEFAULT 2    /* returned by a bt_ops function: "do what the node's kind does" */

#define BT_MAX_DEPTH 1000     /* deepest tree bt_def_create accepts */
#define BT_MAX_NODES 1000000  /* most nodes (after expanding shared ones) bt_def_create accepts */

/* Returns a static English description of a BT_* code. */
const char *bt_strerror(int code);

/* The four statuses of Don't Starve, and BT_ABORTED: never a node's status, it is what a task's
 * finish is told when its run was interrupted (see bt_task). */
typedef enum bt_status {
  BT_READY = 0,
  BT_SUCCESS = 1,
  BT_FAILED = 2,
  BT_RUNNING = 3,
  BT_ABORTED = 4
} bt_status;

/* Returns "READY", "SUCCESS", "FAILED", "RUNNING" or "ABORTED" ("UNKNOWN" for anything else). */
const char *bt_status_name(int status);

/* Node kinds: Don't Starve's node classes, then the kinds bt adds from the Behaviour Tree Starter
 * Kit and other engines (docs/nodes.md describes each). BT_BEHAVIOUR is the plain BehaviourNode,
 * whose visit fails unless its bt_ops say otherwise; it is how C hosts and Lua scripts write
 * leaves in Don't Starve's way. */
typedef enum bt_kind {
  BT_BEHAVIOUR,
  BT_SEQUENCE,
  BT_SELECTOR,
  BT_PRIORITY,
  BT_PARALLEL,
  BT_PARALLEL_ANY,
  BT_LOOP,
  BT_RANDOM,
  BT_CONDITION,
  BT_MULTICONDITION,
  BT_CONDITIONWAIT,
  BT_ACTION,
  BT_WAIT,
  BT_NOT,
  BT_FAILIFRUNNING,
  BT_FAILIFSUCCESS,
  BT_EVENT,
  BT_LATCH,
  BT_TASK,            /* a leaf with the Starter Kit's contract: start, update, finish (bt_task) */
  BT_POLICY_PARALLEL, /* every child at once, ended by a success and a failure policy */
  BT_MONITOR,         /* conditions re-checked at every visit while its last child runs */
  BT_ACTIVE_SELECTOR, /* a Selector that re-evaluates at every visit and aborts a lower child */
  BT_REPEAT,          /* runs its child param times (nil: for ever), one pass per visit */
  BT_SUCCEED,         /* SUCCESS when its child ends */
  BT_FAIL,            /* FAILED when its child ends */
  BT_COOLDOWN,        /* FAILED without visiting its child until param seconds after its last run */
  BT_TIMEOUT,         /* FAILED when its child runs longer than param seconds */
  BT_SUBTREE,         /* runs a named tree of a bt_lib in its place (bt_def_create_lib, below) */
  BT_KIND_COUNT
} bt_kind;

/* Returns the kind's name in Don't Starve ("PriorityNode", ...), or NULL for a bad kind. */
const char *bt_kind_name(int kind);

/* Returns the name Don't Starve gives a node of this kind when none is given ("Priority", ...). */
const char *bt_kind_default_name(int kind);

/* What a kind is, as bt_kind_get reports it. */
typedef struct bt_kind_info {
  const char *name;         /* its class: bt_kind_name */
  const char *default_name; /* bt_kind_default_name */
  int base;                 /* the kind whose class it extends: BT_BEHAVIOUR, or BT_PARALLEL for
                               ParallelNodeAny; -1 for BT_BEHAVIOUR itself */
  unsigned flags;           /* BT_KIND_DS, BT_KIND_DECORATOR, ... (below) */
  unsigned methods;         /* the BT_METHOD_* its class defines itself; it inherits the others */
} bt_kind_info;

#define BT_KIND_DS 0x01        /* a class of Don't Starve's behaviourtree.lua (the others are bt's) */
#define BT_KIND_DECORATOR 0x02 /* its class extends DecoratorNode, a BehaviourNode with one child */
#define BT_KIND_SELECTS 0x04   /* each evaluation runs its first child that does not fail and stops a
                                  later one that ran: its running child switches (bt-log's "why") */
#define BT_KIND_PERIODIC 0x08  /* its param is a period: it evaluates its children again at most once
                                  a period, by its clock (BT_FIELD_LASTTIME); an event below clears it */
#define BT_KIND_LISTENS 0x10   /* bt_inst_fire_event triggers it: it listens for events */
#define BT_KIND_INCLUDES 0x20  /* a leaf naming a tree of a bt_lib, whose copy becomes its one child
                                  when the definition is built (bt_def_create_lib) */

/* The methods of a kind's class, as the bt_node_*_as functions apply them. */
#define BT_METHOD_VISIT 0x01
#define BT_METHOD_RESET 0x02
#define BT_METHOD_STEP 0x04
#define BT_METHOD_SLEEP_TIME 0x08 /* GetSleepTime */
#define BT_METHOD_DESCRIBE 0x10   /* DBString */

/* Returns what the kind is, or NULL for a bad kind. */
const bt_kind_info *bt_kind_get(int kind);

/* Returns 1 if the kind has every one of flags (BT_KIND_*), else 0; 0 for a bad kind. */
int bt_kind_has(int kind, unsigned flags);

/* Returns a printf format of one double that shows a node's param ("period %.14g", "%.14g s"), or
 * NULL when nodes of the kind take no param (bt_spec.param) or for a bad kind. */
const char *bt_kind_param_format(int kind);

/* What a nil param (BT_SPEC_NIL_PARAM) stands for: returns 1 and sets *out when it is a number (a
 * Priority's period 1), 0 when it is none (for ever) or the kind takes no param; BT_EINVAL for a bad kind. */
int bt_kind_nil_param(int kind, double *out);

typedef struct bt_graph bt_graph; /* a tree being described; mutable */
typedef struct bt_def bt_def;     /* a compiled tree; immutable, reference counted, shareable */
typedef struct bt_inst bt_inst;   /* one agent's state for one bt_def */

/* The argument of every callback: the instance, the node's index, the callback's user data, and
 * a number in or out (a WaitNode or LatchNode time function stores its result in value). */
typedef struct bt_call {
  bt_inst *inst;
  int node;
  void *ud;
  double value;
} bt_call;

/* A leaf function: returns 1 for true, 0 for false, or a negative value on error (the node then
 * fails that visit, as if the function had returned false; reporting the error is the callee's
 * business). */
typedef int (*bt_fn)(bt_call *call);

/* bt's growable buffer, of text (dumps, node descriptions, JSON) or bytes (the log). Zero-
 * initialise, then append; or reserve room, write at data + len and add what you wrote to len. */
typedef struct bt_buf {
  char *data; /* NUL-terminated when len > 0 and the last write was an append or a printf */
  size_t len;
  size_t cap;
  int err; /* BT_ENOMEM once a reserve or append failed; later ones do nothing */
} bt_buf;

/* Makes room for n more bytes after len, and one more for a NUL: then cap >= len + n + 1.
 * Returns BT_OK, or BT_ENOMEM (also b->err's from then on, and for an n too large). */
int bt_buf_reserve(bt_buf *b, size_t n);

/* Appends n bytes of s; returns BT_OK or BT_ENOMEM. */
int bt_buf_append(bt_buf *b, const char *s, size_t n);

/* Appends printf-style formatted text; returns BT_OK or BT_ENOMEM. */
int bt_buf_printf(bt_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Frees the buffer's memory and zeroes it. */
void bt_buf_free(bt_buf *b);

/* Overrides of a node's methods, as a Lua subclass of BehaviourNode overrides them. Any member
 * may be NULL. Each returns BT_DEFAULT to get the node kind's own behaviour instead, which lets a
 * host decide per call. visit must set the node's status with bt_node_set_status. */
typedef struct bt_ops {
  int (*visit)(bt_call *call);
  int (*reset)(bt_call *call);
  int (*step)(bt_call *call);
  int (*on_stop)(bt_call *call); /* Don't Starve's OnStop: called by Stop before the children's */
  /* GetSleepTime: return 1 with call->value set, 0 for nil, or BT_DEFAULT. */
  int (*sleep_time)(bt_call *call);
  /* DBString: append the text to out (shown in dumps while the node runs), or BT_DEFAULT. */
  int (*describe)(bt_call *call, bt_buf *out);
} bt_ops;

/* A task: a leaf written in the Starter Kit's way. A run of the task begins at a visit of the
 * node when no run is under way: start is called, then update; later visits call update only.
 * The run ends when update returns BT_SUCCESS or BT_FAILED, and then finish is told that status;
 * or when the node is interrupted while the run is under way (reset by its parent or the tree,
 * a Priority or ActiveSelector choosing another branch, a guard failing, a Parallel ending, the
 * tree stopped, the node gone after a reload), and then finish is told BT_ABORTED. finish is
 * called exactly once per run. Each callback gets the spec's ud in call->ud. Any may be NULL: no
 * update succeeds at once. */
typedef struct bt_task {
  int (*start)(bt_call *call);  /* negative: the run fails (finish is told BT_FAILED) */
  int (*update)(bt_call *call); /* BT_RUNNING, BT_SUCCESS or BT_FAILED; anything else fails */
  void (*finish)(bt_call *call, bt_status status); /* BT_SUCCESS, BT_FAILED or BT_ABORTED */
} bt_task;

/* Flags of a bt_spec. */
#define BT_SPEC_NIL_PARAM 0x01 /* param is nil: Priority period 1, Loop forever, Event priority 0 */
#define BT_SPEC_PARAM_FN 0x02  /* Wait/Latch: the time comes from fn (result in call->value) */
#define BT_SPEC_NOSCATTER 0x04 /* Priority: no random first evaluation time */
#define BT_SPEC_CHILDREN 0x08  /* BT_BEHAVIOUR: the node has a children list, so it is no leaf */
#define BT_SPEC_SUCCESS_ONE 0x10 /* PolicyParallel: one child's success is enough (default: all) */
#define BT_SPEC_FAILURE_ALL 0x20 /* PolicyParallel: it fails when all fail (default: one) */

/* One node of a graph. Zero-initialise, then set what the kind needs. */
typedef struct bt_spec {
  int kind;         /* a bt_kind */
  const char *name; /* NULL: the kind's default name; copied */
  double param;     /* Priority period, Wait seconds, Loop maxreps, Event priority, Latch seconds,
                       Repeat times, Cooldown and Timeout seconds */
  unsigned flags;   /* BT_SPEC_* */
  bt_fn fn;         /* Condition, ConditionWait, Action; MultiCondition start; Wait/Latch time */
  void *ud;
  bt_fn fn2; /* MultiCondition continue */
  void *ud2;
  const bt_ops *ops; /* optional overrides; must outlive every bt_def made from the graph */
  void *ops_ud;
  const bt_task *task; /* BT_TASK: its callbacks, with ud; must outlive every bt_def as ops */
} bt_spec;

/* Creates an empty graph. */
int bt_graph_new(bt_graph **out);

/* Frees a graph (definitions made from it are independent of it). */
void bt_graph_free(bt_graph *g);

/* Adds a node; returns its id (>= 0) or a BT_E* code. */
int bt_graph_add(bt_graph *g, const bt_spec *spec);

/* Sets the node's children, in order. A node may be the child of several nodes. */
int bt_graph_set_children(bt_graph *g, int node, const int *children, int count);

/* Sets the node's parent as Don't Starve records it (the last parent that took it), which events
 * walk up. By default it is the last node whose children were set to include it. */
int bt_graph_set_parent(bt_graph *g, int node, int parent);

/* Returns the message of the graph's last error ("" if none). */
const char *bt_graph_errmsg(const bt_graph *g);

/* Compiles the tree under root into a definition with one reference. Fails with BT_ECYCLE,
 * BT_ETOOBIG, or BT_EINVAL (a decorator or Latch without exactly one child, a Monitor without
 * children, a leaf without its function, a Repeat, Cooldown or Timeout without a valid param);
 * see bt_graph_errmsg. With the environment variable BT_NO_FAST_PATHS set (not "" nor "0") when
 * it is called, the definition thinks the reference way only, without the fast paths its shape
 * allows: the same results, slower; a switch for tests (docs/internals.md "Fast paths"). */
int bt_def_create(bt_def **out, bt_graph *g, int root);

/* Adds a reference. */
void bt_def_retain(bt_def *def);

/* Drops a reference; the last one frees the definition. Instances hold a reference of their own. */
void bt_def_release(bt_def *def);

/* Number of nodes in pre-order (a shared node counts at each place). Node 0 is the root. */
int bt_def_size(const bt_def *def);

/* Number of distinct node states (graph nodes reachable from the root). */
int bt_def_states(const bt_def *def);

/* Bytes of one instance of this definition. */
size_t bt_def_inst_size(const bt_def *def);

/* The node's kind, name, depth (root 0), children count, i-th child (0-based) and tree parent
 * (-1 for the root); bad indices give -1 or NULL. */
int bt_def_kind(const bt_def *def, int node);
const char *bt_def_name(const bt_def *def, int node);
int bt_def_depth(const bt_def *def, int node);
int bt_def_child_count(const bt_def *def, int node);
int bt_def_child(const bt_def *def, int node, int i);
int bt_def_up(const bt_def *def, int node);

/* The bt_ops the node was built with (bt_spec.ops, bt_builder_behaviour), or NULL for none or a
 * bad index. */
const bt_ops *bt_def_ops(const bt_def *def, int node);

/* The node's index among its tree parent's children (0-based), or -1 for the root. */
int bt_def_child_index(const bt_def *def, int node);

/* The node's state slot (its graph id's slot, shared by every place of a shared node), and the
 * first node index that uses a state slot. */
int bt_def_state(const bt_def *def, int node);
int bt_def_node_of_state(const bt_def *def, int state);

/* The graph id that a state slot came from. */
int bt_def_graph_id(const bt_def *def, int state);

/* The state of Don't Starve's parent of a state (the last parent that took it), or -1. */
int bt_def_parent(const bt_def *def, int state);

/* The spec node `node` of def was added with (bt_graph_add), into *out: its kind, name (def's
 * copy, valid while def lives), parameter, flags, functions and overrides; BT_SPEC_CHILDREN is set
 * for every node that is no leaf, of any kind. A graph that adds it again makes the same node (the
 * Lua binding rebuilds that way a tree whose children lists a script edited). BT_EINVAL for a NULL
 * def or out, or a node out of range. */
int bt_def_spec(const bt_def *def, int node, bt_spec *out);

/* Services an instance needs from its host. Any member may be NULL: the default clock is
 * CLOCK_MONOTONIC in seconds, and the default random numbers come from a generator in the
 * instance. random returns a number in [0, 1); random_int stores one in [1, n] and returns
 * BT_OK, or returns an error (the RandomNode then fails). */
typedef struct bt_host {
  double (*now)(void *data);
  double (*random)(void *data);
  int (*random_int)(void *data, int n, int *out);
  void *data;
} bt_host;

/* Seconds from CLOCK_MONOTONIC: the clock of an instance whose host gives none. */
double bt_time_monotonic(void);

/* A Priority's first evaluation time, scattered as Don't Starve's PriorityNode constructor draws
 * it: period * 0.5 + period * random, for a random number in [0, 1). */
double bt_priority_scatter(double period, double random);

/* Flags of bt_inst_create. */
#define BT_INST_NOSCATTER 0x01 /* leave every Priority's first evaluation time nil */
/* Don't Starve's exact WaitNode (docs/lua-api.md, deviation 1 switched off): a RUNNING WaitNode
 * calls Sleep(now - wake_time), a negative time, as Don't Starve's does, so its sleep time is 0
 * and the brain thinks every tick until it ends; without the flag it sleeps wake_time - now. */
#define BT_INST_EXACT 0x02

/* Creates an instance for an agent. host may be NULL and must outlive the instance. Unless
 * BT_INST_NOSCATTER is given, each Priority without BT_SPEC_NOSCATTER draws its first evaluation
 * time (bt_priority_scatter with the host's random number), in the order of its graph id. */
int bt_inst_create(bt_inst **out, bt_def *def, const bt_host *host, void *agent, unsigned flags);

/* Frees an instance (it must not be thinking). */
void bt_inst_free(bt_inst *inst);

/* Seeds the instance's own random generator, the one it draws from when its host gives no
 * random or random_int: the same seed gives the same numbers. A new instance's generator is
 * seeded from its address, which differs from run to run; a host that wants the same draws on
 * every run (and on any thread: docs/threads.md) seeds each instance, with its agent's id for
 * instance. Priorities drew their first evaluation times when the instance was made: create it
 * with BT_INST_NOSCATTER, seed it, then bt_inst_scatter. A tree without Priority or RandomNode
 * draws nothing and has no generator: seeding it does nothing. BT_EINVAL for a NULL inst,
 * BT_EBUSY inside its think. */
int bt_inst_seed(bt_inst *inst, unsigned long long seed);

/* The state of the instance's own generator (the stream bt_inst_seed seeds), to carry an agent's
 * stream over to another instance of the same definition (bt_inst_set_random_state), as a pool of
 * Lua states does when it moves an agent: never 0, except for a tree that draws nothing (no
 * Priority or RandomNode: no generator), whose state is 0. BT_EINVAL for a NULL argument. */
int bt_inst_random_state(const bt_inst *inst, unsigned long long *out);

/* Sets the generator's state (a value bt_inst_random_state gave). A tree that draws nothing
 * ignores it. BT_EINVAL for a NULL inst or a state of 0 (the generator's fixed point), BT_EBUSY
 * inside its think. */
int bt_inst_set_random_state(bt_inst *inst, unsigned long long state);

/* Draws every Priority's first evaluation time (each without BT_SPEC_NOSCATTER, in the order of
 * its graph id), as bt_inst_create does without BT_INST_NOSCATTER. BT_EINVAL for a NULL inst,
 * BT_EBUSY inside its think. */
int bt_inst_scatter(bt_inst *inst);

/* Like bt_inst_create, in memory the host provides (bt_def_inst_size(def) bytes, aligned for a
 * double), so that an instance can live inside the host's own object. *out points into mem. */
int bt_inst_init(bt_inst **out, void *mem, bt_def *def, const bt_host *host, void *agent,
                 unsigned flags);

/* Ends an instance made by bt_inst_init (it must not be thinking); the host frees the memory. */
void bt_inst_fini(bt_inst *inst);

/* The flags of bt_inst_create that the instance keeps: BT_INST_EXACT or 0. */
unsigned bt_inst_flags(const bt_inst *inst);

/* Sets or clears BT_INST_EXACT (on: nonzero); it applies from the next visit of a WaitNode. No
 * errors (a tree being reloaded takes the flag of the tree it replaces this way). */
void bt_inst_set_exact(bt_inst *inst, int on);

/* The agent pointer and definition given to bt_inst_create. */
void *bt_inst_agent(const bt_inst *inst);
const bt_def *bt_inst_def(const bt_inst *inst);

/* The current time, from the host's clock. */
double bt_inst_now(bt_inst *inst);

/* One think, as Don't Starve's BT:Update: visit the root, save every status as last result, step,
 * and clear the force-update flag. BT_EBUSY when called from inside this instance's think. */
int bt_inst_update(bt_inst *inst);

/* Until the next update, bt_inst_sleep_time gives 0. */
void bt_inst_force_update(bt_inst *inst);

/* Seconds until the tree wants to think again: returns 1 and sets *out, or returns 0 for nil
 * (nothing runs: hibernate). */
int bt_inst_sleep_time(bt_inst *inst, double *out);

/* ---- watching an instance: the hook ----
 * An instance tells one watcher (a recorder, a host's logger) what happens to it, through one
 * function: every change of a node's status (in a think, a Reset, a transfer, a restore or
 * bt_node_set_status), each think's begin and end with its sleep time, each event fired, a
 * ForceUpdate, a think's SaveStatus, a stop, a reload, and the errors and records the host gives
 * it. The engine does not know who listens. Unhooked, it costs one test of a bit of the
 * instance's header per status change; built with -DBT_RECORDER=OFF the hook is compiled out
 * (bt_inst_set_hook then fails with BT_EINVAL). Called on the thread that thinks the instance. */
typedef enum bt_hook_what {
  BT_HOOK_STATUS = 1,  /* node's status went from `from` to `to` */
  BT_HOOK_BEGIN = 2,   /* a think begins */
  BT_HOOK_END = 3,     /* a think ended: has_sleep and sleep are the tree's sleep time then */
  BT_HOOK_EVENT = 4,   /* an event was fired for node (bt_inst_fire_event, bt_node_trigger) */
  BT_HOOK_FORCE = 5,   /* bt_inst_force_update */
  BT_HOOK_SAVED = 6,   /* the think saved its statuses as last results (its running nodes can be
                          described now, inside it) */
  BT_HOOK_STOP = 7,    /* the tree was stopped (bt_inst_stop), after every on_stop */
  BT_HOOK_RELOAD = 8,  /* the instance takes the state of one of def (bt_inst_transfer, carry) */
  BT_HOOK_ERROR = 9,   /* bt_inst_record_error: node (-1: none), data and size the message */
  BT_HOOK_HOST = 10,   /* bt_inst_record_host: node is the host's code, data and size its bytes */
  BT_HOOK_DETACH = 11  /* the hook is replaced, or the instance is finished: the last call */
} bt_hook_what;

typedef struct bt_hook_msg {
  bt_hook_what what;
  int node;             /* STATUS, EVENT, ERROR: the node's pre-order index; HOST: the code */
  int from, to;         /* STATUS: the statuses (bt_status) */
  int has_sleep;        /* END: the tree has a sleep time (0: nil), and it */
  double sleep;
  const bt_def *def;    /* RELOAD: the definition whose instance's state it takes */
  const void *data;     /* ERROR, HOST: the bytes (valid during the call only) */
  size_t size;
} bt_hook_msg;

/* The watcher's function: what happened to inst. Its result is returned by bt_inst_record_error
 * and bt_inst_record_host (BT_OK, BT_ENOMEM); ignored for the others. */
typedef int (*bt_hook_fn)(void *ud, bt_inst *inst, const bt_hook_msg *msg);

/* Sets inst's hook (fn NULL: none). The previous one gets BT_HOOK_DETACH first. BT_EINVAL for a
 * NULL inst or a hook compiled out, BT_ENOMEM. bt_inst_fini detaches the hook. */
int bt_inst_set_hook(bt_inst *inst, bt_hook_fn fn, void *ud);
/* inst's hook, and its ud into *ud (if not NULL); NULL when none. */
bt_hook_fn bt_inst_hook(const bt_inst *inst, void **ud);

/* Called by bt_inst_init for each instance made of def from now on (fn NULL: none), before it is
 * returned: a watcher's way to hook every agent of a tree (bt_def_set_recording). A result other
 * than BT_OK fails bt_inst_init with it. free_ud, if not NULL, is called with ud when def is freed
 * or the watcher replaced. BT_EINVAL for a NULL def. */
typedef int (*bt_def_watch_fn)(void *ud, bt_inst *inst);
int bt_def_set_watcher(bt_def *def, bt_def_watch_fn fn, void *ud, void (*free_ud)(void *ud));
/* def's watcher, and its ud into *ud (if not NULL); NULL when none. */
bt_def_watch_fn bt_def_watcher(const bt_def *def, void **ud);

/* Tells the hook that the host contained an error of the code of node (-1: of no one node), with
 * its message. Nothing happens when no hook is attached. BT_EINVAL for a NULL inst or message or
 * a node out of range; otherwise the hook's result (BT_ENOMEM). */
int bt_inst_record_error(bt_inst *inst, int node, const char *message);
/* Tells the hook `size` bytes of the host's, with a code of its own (a position, a target: what a
 * replay needs), at the instance's time. Nothing happens when no hook is attached. BT_EINVAL for
 * a NULL inst, or NULL data with a size; otherwise the hook's result (BT_ENOMEM). */
int bt_inst_record_host(bt_inst *inst, int code, const void *data, size_t size);

/* Resets the root (statuses to READY, as Don't Starve's Reset). Inside a think (a leaf resetting
 * its own tree) it resets there and then, as Don't Starve's does, and the think goes on with the
 * nodes' state as it now is. Returns BT_OK. */
int bt_inst_reset(bt_inst *inst);

/* Stops the tree: every node's on_stop, parents before children. Allowed inside a think. */
void bt_inst_stop(bt_inst *inst);

/* Ends the run under way of one node that is gone for good (a reload dropped it), without its
 * on_stop or its children: a task's finish is told BT_ABORTED; nodes of other kinds have no runs
 * to end. BT_EINVAL for a bad node. */
int bt_node_abort(bt_inst *inst, int node);

/* Non-zero while the instance is inside bt_inst_update. */
int bt_inst_thinking(const bt_inst *inst);

/* Delivers an event to an EventNode, as its OnEvent: resets its child if the node runs, marks it
 * triggered, and clears the clock of every Priority above it. BT_EINVAL if node is no EventNode. */
int bt_inst_fire_event(bt_inst *inst, int node);

/* bt_inst_fire_event but for the clocks above the node, which it leaves: for a binding whose nodes'
 * parents, as Don't Starve's fields hold them, may differ from the definition's (a script gave a
 * node another parent), and which clears them itself (bt_node_set of BT_FIELD_LASTTIME to none).
 * BT_EINVAL if node is no EventNode. */
int bt_node_trigger(bt_inst *inst, int node);

/* Appends Don't Starve's tree dump (tostring(tree)) of the whole tree to out. */
int bt_inst_dump(bt_inst *inst, bt_buf *out);

/* A hash of the definition's shape (kinds, parameters, names, children): equal for definitions
 * built alike, so that saved states can be matched with the definition they came from. */
unsigned long long bt_def_hash(const bt_def *def);

/* Non-zero if the two definitions are the same tree: the same nodes, names, parameters,
 * callbacks and user data, so that an instance of one could be an instance of the other. */
int bt_def_equal(const bt_def *a, const bt_def *b);

/* Bytes that bt_inst_save writes for an instance of this definition. */
size_t bt_inst_state_size(const bt_def *def);

/* Saves the instance's whole state (statuses, last results, node memory, the force-update flag)
 * into out, which has room for bt_inst_state_size bytes. The bytes are for this machine's
 * byte order. BT_EINVAL if size is too small. */
int bt_inst_save(const bt_inst *inst, void *out, size_t size);

/* Restores a state saved by bt_inst_save from an instance of an equal definition (same
 * bt_def_hash). BT_EINVAL if the bytes are not such a state (another definition's: another
 * size, shape or hash; another format; a status or child index out of range, as bt_node_set
 * refuses it); BT_EBUSY inside a think; BT_ENOMEM when a Sleep deadline of a leaf that keeps it
 * outside the instance (bt_node_sleep) finds no room. A refused restore leaves the instance
 * unchanged. */
int bt_inst_restore(bt_inst *inst, const void *data, size_t size);

/* ---- reloading: carrying an agent's state to a new definition of its tree ---- */

/* Matches the states of `to` with those of `from` by their path from the root: the kinds and
 * names of the nodes on the way, siblings of the same kind and name told apart by their order.
 * map must have room for bt_def_states(to) ints; map[s] is the matching state of from, or -1
 * (a new node, or one whose kind changed). Returns the number of matched states. */
int bt_def_match(const bt_def *from, const bt_def *to, int *map);

/* What bt_inst_transfer did, for the host to finish the move (its Lua objects, for instance). */
typedef struct bt_transfer {
  int matched;   /* states carried over */
  int gone;      /* states of from with no match */
  int reevaluate; /* nodes of to set to re-evaluate because a running node below them is gone */
} bt_transfer;

/* Gives `to` the state of `from` where map (from bt_def_match) matches them: statuses, last
 * results and node memory, with child indices moved to where those children now are (entries out
 * of range or pairing nodes of different kinds are no match). Every node
 * of `to` above a running node of `from` that is gone is set to re-evaluate at the next think:
 * READY, its child index reset, a Priority's clock cleared; its other children keep their state.
 * So that the new definition decides at once, every Priority's clock is cleared (it evaluates at
 * the next think). The force-update flag carries over. BT_EBUSY if either instance is thinking. */
int bt_inst_transfer(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out);

/* Gives `to` the state of `from` where map matches them (map[s], for each state s of to, a state
 * of from or -1), as it is: statuses, last results, flags, deadlines, node memory, child indices
 * as the numbers they were (as Don't Starve's fields are when a children list changes under
 * them), clocks, and the force-update flag; nothing is set to re-evaluate, and the states of to
 * that map leaves out keep what they hold. For a tree whose children lists a script edited (the
 * Lua binding rebuilds it: docs/lua-api.md, "Live children lists"). A recorder of to gets a RELOAD
 * record, as with bt_inst_transfer. BT_EINVAL for a NULL argument, BT_EBUSY if either instance is
 * thinking, BT_ENOMEM (nothing changed). */
int bt_inst_carry(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out);

/* ---- saved games: an agent's state as portable text, restored node by node by path ---- */

/* Appends the instance's state to out as text: the shape of its tree (each node's kind, name and
 * number of children, in pre-order), then each state's status, last result, flags and memory,
 * and the force-update flag. Numbers are written out as text (doubles as the hexadecimal digits
 * of their IEEE 754 bits), so the text does not depend on byte order, type sizes or the locale.
 * Times are written as they are, with `now` (the host's time of the save), which
 * bt_inst_import uses to shift them. BT_EBUSY inside a think; BT_ENOMEM. */
int bt_inst_export(const bt_inst *inst, double now, bt_buf *out);

/* A state read back from bt_inst_export's text: its shape and its states. */
typedef struct bt_saved bt_saved;

/* Reads a text written by bt_inst_export. BT_EINVAL when it is not one, and err (errsize bytes)
 * says what is wrong: "not a saved tree state ...", "saved with format version N ...",
 * "truncated: ..." or "corrupt at byte N: ..."; BT_ENOMEM. */
int bt_saved_open(bt_saved **out, const void *data, size_t size, char *err, size_t errsize);
void bt_saved_free(bt_saved *saved);

/* The saved tree, as bt_def_* describe a definition: its nodes in pre-order (root 0), their
 * kind, name, tree parent (-1 for the root) and state; a state's first node and saved status;
 * the time of the save. BT_EINVAL (NULL for the name) for a bad node or state. */
int bt_saved_size(const bt_saved *saved);
int bt_saved_states(const bt_saved *saved);
int bt_saved_kind(const bt_saved *saved, int node);
const char *bt_saved_name(const bt_saved *saved, int node);
int bt_saved_up(const bt_saved *saved, int node);
int bt_saved_state(const bt_saved *saved, int node);
int bt_saved_node_of_state(const bt_saved *saved, int state);
int bt_saved_status(const bt_saved *saved, int state);
double bt_saved_time(const bt_saved *saved);

/* bt_def_match with the saved tree as `from`: map[s] is the saved state at the same path as
 * state s of `to`, or -1. Returns the number of matched states (0: no path in common, not even
 * the root's). */
int bt_saved_match(const bt_saved *saved, const bt_def *to, int *map);

/* Gives the instance the saved state where map (from bt_saved_match) matches, as
 * bt_inst_transfer does: the instance first becomes as a new one (no first evaluation times
 * drawn), then matched nodes take their saved status, last result and memory, child indices
 * follow their children, and the nodes above a saved running node that is gone re-evaluate.
 * Every saved time is shifted by now minus the time of the save. When every state of the
 * instance and of the saved tree is matched (the same shape), every Priority keeps its saved
 * clock and the tree resumes as it was saved; otherwise every Priority evaluates at the next
 * think. Nothing is called (no on_stop, no task finish). BT_EBUSY inside a think; BT_ENOMEM
 * (the instance is then unchanged). */
int bt_inst_import(bt_inst *inst, const bt_saved *saved, const int *map, double now, bt_transfer *out);

/* The node's current status and the status saved by the last think. */
bt_status bt_node_status(const bt_inst *inst, int node);
bt_status bt_node_last(const bt_inst *inst, int node);

/* Sets the node's status (a custom visit's result, or a script's assignment). */
void bt_node_set_status(bt_inst *inst, int node, bt_status status);

/* The node methods of Don't Starve, dispatched through the node's bt_ops as Lua's method calls
 * are: Visit, Reset, Step, SaveStatus, Stop, Sleep, GetSleepTime (1 and *out, or 0 for nil),
 * GetTreeSleepTime, DBString, GetString and GetTreeString. */
void bt_node_visit(bt_inst *inst, int node);
void bt_node_reset(bt_inst *inst, int node);
void bt_node_step(bt_inst *inst, int node);
void bt_node_save_status(bt_inst *inst, int node);
void bt_node_stop(bt_inst *inst, int node);
/* Sleep: nextupdatetime = now + seconds, on a node that has the field (bt_node_has_field); on
 * others it does nothing. A ConditionWaitNode, MultiConditionNode or ActionNode, which never sleeps
 * by itself in Don't Starve, keeps its deadline outside the instance, in room made at its first
 * Sleep: if that room cannot be had (out of memory), the Sleep does nothing. */
void bt_node_sleep(bt_inst *inst, int node, double seconds);
int bt_node_sleep_time(bt_inst *inst, int node, double *out);
int bt_node_tree_sleep_time(bt_inst *inst, int node, double *out);
int bt_node_describe(bt_inst *inst, int node, bt_buf *out);
int bt_node_string(bt_inst *inst, int node, bt_buf *out);
int bt_node_tree_string(bt_inst *inst, int node, const char *indent, bt_buf *out);

/* What a method of the Don't Starve class of `kind` does to the node, bypassing its bt_ops (so an
 * override can call its base class, as Lua's `SequenceNode.Visit(self)` does). BT_EINVAL when the
 * node's state does not have that kind's shape: kind must be the node's kind or BT_BEHAVIOUR.
 * bt_node_visit_as also refuses a node that lacks what the kind's visit needs (a node whose
 * visit override let it go without its child or function); such a node fails when its override
 * returns BT_DEFAULT from visit. */
int bt_node_visit_as(bt_inst *inst, int node, int kind);
int bt_node_reset_as(bt_inst *inst, int node, int kind);
int bt_node_step_as(bt_inst *inst, int node, int kind);
int bt_node_sleep_time_as(bt_inst *inst, int node, int kind, double *out);
int bt_node_describe_as(bt_inst *inst, int node, int kind, bt_buf *out);

/* Per-kind node memory, readable and writable by name as Don't Starve's fields. */
typedef enum bt_field {
  BT_FIELD_IDX,            /* Sequence, Selector, Loop: child index (1-based); Priority, Random: nil or index */
  BT_FIELD_REP,            /* Loop, Repeat: passes done */
  BT_FIELD_LASTTIME,       /* Priority: time of the last evaluation, or nil */
  BT_FIELD_WAKE_TIME,      /* Wait: when it ends, or nil */
  BT_FIELD_NEXTUPDATETIME, /* leaves but ConditionNode, and nodes with a custom visit: Sleep deadline */
  BT_FIELD_TRIGGERED,      /* Event: 1 or 0 */
  BT_FIELD_RUNNING,        /* MultiCondition: 1 or 0 */
  BT_FIELD_LASTLATCHTIME,  /* Latch */
  BT_FIELD_LATCHDURATION,  /* Latch: currentlatchduration */
  BT_FIELD_COUNT
} bt_field;

/* Reads a field: returns 1 and sets *out, 0 if it is nil, or BT_EINVAL if the node has no such
 * field. */
int bt_node_get(const bt_inst *inst, int node, int field, double *out);

/* Writes a field (value NULL makes it nil where nil is allowed). BT_EINVAL if the node has no such
 * field, it cannot be nil, or the value cannot be its: an index or rep is a whole number, a
 * Priority's index names one of its children, a Sequence's, Selector's or Loop's is at least 1.
 * BT_ENOMEM when the nextupdatetime of a leaf that keeps it outside the instance (bt_node_sleep)
 * finds no room. */
int bt_node_set(bt_inst *inst, int node, int field, const double *value);

/* Non-zero if the node has the field. */
int bt_node_has_field(const bt_def *def, int node, int field);

/* The value a node of the kind has in the field before it is in a tree, as Don't Starve's
 * constructor leaves it: returns 1 and sets *out, 0 for nil, or BT_EINVAL if nodes of the kind
 * have no such field (BT_FIELD_NEXTUPDATETIME is no kind's: it depends on the node). */
int bt_kind_field_default(int kind, int field, double *out);

/* ---- the brain scheduler: Don't Starve's BrainWrangler ----
 *
 * Brains are ids. A registered brain is in one list: updaters (thinks every tick), waiting (thinks
 * at a later tick), or hibernating (thinks when woken). bt_sched_update(tick) moves the brains
 * waiting for that tick to the updaters, takes the updaters that are ready (their entity valid
 * and awake), thinks each, and files it by its sleep time: nil hibernates, more than one tick
 * waits until floor(tick + sleep / tick_time), less stays. A frame costs in proportion to the
 * brains that are due, however many are registered. */

typedef struct bt_sched bt_sched;

/* The lists, as bt_sched_list reports them. */
enum { BT_SCHED_NONE, BT_SCHED_UPDATING, BT_SCHED_WAITING, BT_SCHED_HIBERNATING };

/* Policies: Don't Starve's, or a fixed rate: think at least once per brain period, never hibernate. */
enum { BT_SCHED_DS, BT_SCHED_FIXED_RATE };

/* What bt_sched_update asks the host: whether a brain is ready this tick (NULL: always), and to
 * think it, returning 1 with *sleep in seconds, or 0 for nil. */
typedef struct bt_sched_hooks {
  int (*ready)(void *ud, int brain);
  int (*think)(void *ud, int brain, double *sleep);
  void *ud;
} bt_sched_hooks;

typedef struct bt_sched_stats {
  long long thinks;  /* thinks since creation */
  int registered, updating, waiting, hibernating;
} bt_sched_stats;

/* Creates a scheduler whose ticks last tick_time seconds (> 0). */
int bt_sched_create(bt_sched **out, double tick_time);
void bt_sched_free(bt_sched *s);

/* The tick length used to turn sleep times into ticks. */
int bt_sched_set_tick_time(bt_sched *s, double tick_time);
double bt_sched_tick_time(const bt_sched *s);

/* BT_SCHED_DS (the default) or BT_SCHED_FIXED_RATE. */
int bt_sched_set_policy(bt_sched *s, int policy);

/* A new brain id, known but not registered; or an error. Ids of freed brains are reused. */
int bt_sched_brain_new(bt_sched *s);

/* Forgets a brain (removing it first); a brain already taken for this tick's thinks is skipped. */
int bt_sched_brain_free(bt_sched *s, int brain);

/* Under BT_SCHED_FIXED_RATE the brain sleeps at most this long (seconds; 0: no bound). */
int bt_sched_set_period(bt_sched *s, int brain, double period);

/* AddInstance: registers the brain among the updaters. */
int bt_sched_add(bt_sched *s, int brain);

/* RemoveInstance: takes the brain out of every list. */
int bt_sched_remove(bt_sched *s, int brain);

/* Wake: a registered brain joins the updaters. */
int bt_sched_wake(bt_sched *s, int brain);

/* Hibernate: a registered brain waits until woken. */
int bt_sched_hibernate(bt_sched *s, int brain);

/* Sleep: a registered brain waits until tick floor(current + seconds / tick_time) if that is later
 * than the current tick (a sleep of exactly 0 ticks counts as 1). */
int bt_sched_sleep(bt_sched *s, int brain, double seconds);

/* One tick: see above. Brains may be added, removed, woken or freed from inside the hooks. */
int bt_sched_update(bt_sched *s, long long tick, const bt_sched_hooks *hooks);

/* The current tick: the one given to the last bt_sched_update (0 before any). */
long long bt_sched_tick(const bt_sched *s);

/* The brain's list (BT_SCHED_*), and the tick it waits for; BT_EINVAL for a bad id. */
int bt_sched_list(const bt_sched *s, int brain, long long *wake_tick);

/* Counts of brains by list, and thinks so far. */
void bt_sched_stats_get(const bt_sched *s, bt_sched_stats *out);

/* ---- threads: a pool of workers, and the threaded scheduler (docs/threads.md) ----
 *
 * bt_pool is a set of threads of bt's own that run a batch of jobs at once. bt_executor says
 * how jobs run: on a bt_pool, or on the host's own job system. bt_tsched is the brain scheduler
 * of bt_sched_* in a threaded mode: the brains due in a frame think on several threads at once,
 * cut into batches of brains, and every other change (events, wakes, brains added and removed,
 * the host's own commands) is queued from any thread and applied at the frame's end, in an
 * order that does not depend on the threads, so that a frame gives the same results on any
 * number of them. */

/* One job of a batch of count jobs: index is in [0, count). */
typedef void (*bt_job_fn)(void *job, int index);

/* How a batch of jobs runs. run(data, count, fn, job) calls fn(job, i) exactly once for each i
 * in [0, count), on any threads and any number at once, and returns once every call has
 * returned (so that what the jobs wrote is visible to the caller, as after a join): BT_OK, or a
 * negative code when it could not start them all (bt_tsched_update then runs the jobs that did
 * not start itself, on its own thread). workers (>= 1) is how many threads run jobs at once: it
 * only decides how finely the work is cut. */
typedef struct bt_executor {
  int (*run)(void *data, int count, bt_job_fn fn, void *job);
  void *data;
  int workers;
} bt_executor;

typedef struct bt_pool bt_pool;

#define BT_POOL_MAX_THREADS 256

/* A pool of `threads` workers: the thread that calls bt_pool_run, and threads - 1 threads the
 * pool starts now (with every signal blocked) and keeps: after a run each watches for the next
 * for up to 200 microseconds, yielding its core, then sleeps. BT_EINVAL for threads < 1 or more than
 * BT_POOL_MAX_THREADS, BT_ENOMEM, BT_ETHREAD when the system refuses a thread (the threads
 * started are stopped again and *out is NULL). */
int bt_pool_create(bt_pool **out, int threads);

/* Stops and joins the pool's threads and frees it (not during a run). NULL is allowed. */
void bt_pool_free(bt_pool *pool);

/* The pool's workers, the calling thread included. */
int bt_pool_threads(const bt_pool *pool);

/* Runs fn(job, i) for each i in [0, count), each once, on the pool's threads and the calling
 * one: each takes the next index not taken yet until none is left. Returns when all have
 * returned. BT_EINVAL for a NULL pool or fn or a negative count; BT_EBUSY while a run of the
 * pool is under way (from one of its jobs, or from two threads at once). */
int bt_pool_run(bt_pool *pool, int count, bt_job_fn fn, void *job);

/* Fills *out with an executor that runs jobs with bt_pool_run on the pool (workers: its
 * threads). The pool must outlive the executor's use. */
void bt_pool_executor(bt_pool *pool, bt_executor *out);

/* ---- the threaded scheduler ----
 *
 * A bt_tsched files brains as bt_sched does (the same lists, ticks, policies and sleep times;
 * see the brain scheduler above), but each brain is bound to its agent's instance, and a frame
 * (bt_tsched_update) runs in three phases:
 *
 *   1. (the calling thread) the commands queued since the last frame are applied; the brains
 *      waiting for the tick join the updaters; the updaters are the frame's due brains, cut in
 *      order into batches of consecutive brains;
 *   2. (the workers) the batches think: for each brain, hooks.ready, then hooks.think (by
 *      default bt_inst_update and bt_inst_sleep_time of its instance). Each instance is touched
 *      by one thread; a leaf touches its own agent and data that no one writes during the
 *      phase, and changes anything else through the calls below, which queue;
 *   3. (the calling thread) every due brain is filed by its sleep time, in the frame's order;
 *      then the commands its leaves queued are applied, brain after brain in the frame's order
 *      and each brain's in the order they were made; then those queued from other threads, in
 *      the order they arrived.
 *
 * So a brain woken, or fired an event, by another brain's leaf thinks at the next frame, not in
 * this one, and a frame's results (statuses, thinks, sleep times, lists) are the same on any
 * number of workers, as long as the leaves keep to those rules and draw random numbers from
 * their own agent's stream (bt_inst_seed; bt_host in docs/threads.md).
 *
 * The calls on brains (brain_free, add, remove, wake, hibernate, sleep, set_period, set_inst,
 * fire_event, force_update, post) may be made from any thread at any time. Made between frames
 * by the thread that runs the frames (the last to call bt_tsched_update, bt_tsched_frame_begin
 * or bt_tsched_flush; before any, the one that created the scheduler), they are applied at once
 * and return what they did. Made from a leaf, during a frame, or from any other thread, they
 * are queued until the next point commands are applied (a frame's start or end, or
 * bt_tsched_flush): they check what they can (a negative brain, a NaN period) and return BT_OK,
 * BT_EINVAL or BT_ENOMEM (the command is then dropped); what fails when the command is applied
 * (a brain that does not exist, a node that is no EventNode) is counted in
 * bt_tsched_stats.rejected and said by bt_tsched_errmsg. So an instance is touched only by the
 * worker thinking it, in the think phase, and by the thread that runs the frames. The settings
 * (threads, executor, batch size, tick time, policy) are for that thread, between frames. */

typedef struct bt_tsched bt_tsched;

/* What the workers ask the host, each on the thread that thinks the brain: whether a due brain
 * is ready this tick (NULL: always), and to think it (NULL: bt_inst_update(inst), then
 * bt_inst_sleep_time(inst, sleep)), returning 1 with *sleep in seconds, or 0 for nil. */
typedef struct bt_tsched_hooks {
  int (*ready)(void *ud, int brain, bt_inst *inst);
  int (*think)(void *ud, int brain, bt_inst *inst, double *sleep);
  void *ud;
} bt_tsched_hooks;

/* A command of the host's own (bt_tsched_post), applied with the others: data is the copy of
 * the bytes posted, valid during the call. It may call bt_tsched_* (a call that queues is
 * applied in the same phase, after the commands before it). */
typedef void (*bt_post_fn)(void *ud, const void *data, size_t size);

typedef struct bt_tsched_stats {
  long long thinks;   /* thinks since creation */
  long long frames;   /* frames run */
  int registered, updating, waiting, hibernating;
  int due, batches;   /* the last frame's due brains and batches */
  long long commands; /* queued commands applied */
  long long rejected; /* queued commands refused when applied (bt_tsched_errmsg: the last) */
} bt_tsched_stats;

/* Creates a threaded scheduler whose ticks last tick_time seconds (> 0), with one worker (the
 * calling thread) until bt_tsched_set_threads or bt_tsched_set_executor. BT_EINVAL, BT_ENOMEM. */
int bt_tsched_create(bt_tsched **out, double tick_time);

/* Frees it, and stops the pool it owns (not during a frame). Instances are the host's. */
void bt_tsched_free(bt_tsched *ts);

/* Thinks on a pool of `threads` workers that the scheduler owns (bt_pool_create; 1: on the
 * calling thread alone, no pool). Replaces the previous pool or executor only on success.
 * BT_EINVAL for threads < 1 or > BT_POOL_MAX_THREADS, BT_ENOMEM, BT_ETHREAD; BT_EBUSY during a
 * frame. */
int bt_tsched_set_threads(bt_tsched *ts, int threads);

/* Thinks through the host's executor (copied; NULL: on the calling thread alone), which
 * replaces the scheduler's pool. BT_EINVAL for an executor without run or with workers < 1;
 * BT_EBUSY during a frame. */
int bt_tsched_set_executor(bt_tsched *ts, const bt_executor *executor);

/* The workers thinking a frame: 1, the pool's threads, or the executor's workers. */
int bt_tsched_threads(const bt_tsched *ts);

/* Brains per batch (0, the default: about eight batches per worker, and at least 32 brains in
 * each). BT_EINVAL for a negative size; BT_EBUSY during a frame. */
int bt_tsched_set_batch_size(bt_tsched *ts, int brains);

/* The tick length, and the policy (BT_SCHED_DS or BT_SCHED_FIXED_RATE), as bt_sched's.
 * BT_EINVAL, BT_EBUSY during a frame. */
int bt_tsched_set_tick_time(bt_tsched *ts, double tick_time);
double bt_tsched_tick_time(const bt_tsched *ts);
int bt_tsched_set_policy(bt_tsched *ts, int policy);

/* A new brain bound to inst, known but not registered: its id (>= 0), or BT_EINVAL (NULL inst),
 * BT_ENOMEM, BT_ETOOBIG. Any thread, at once (ids of freed brains are reused; an id taken
 * during a frame depends on which thread asked first: make brains between frames, or in a
 * posted command, for runs that repeat). One instance is bound to one brain at most. */
int bt_tsched_brain_new(bt_tsched *ts, bt_inst *inst);

/* Forgets a brain, as bt_sched_brain_free. Queued during a frame: the host frees its instance
 * after it is applied (between frames, when the call returned; otherwise in a command posted
 * after it). BT_EINVAL for a bad id. */
int bt_tsched_brain_free(bt_tsched *ts, int brain);

/* AddInstance, RemoveInstance, Wake, Hibernate, Sleep and the fixed-rate period, as bt_sched's.
 * BT_EINVAL for a bad id, a NaN or negative period. */
int bt_tsched_add(bt_tsched *ts, int brain);
int bt_tsched_remove(bt_tsched *ts, int brain);
int bt_tsched_wake(bt_tsched *ts, int brain);
int bt_tsched_hibernate(bt_tsched *ts, int brain);
int bt_tsched_sleep(bt_tsched *ts, int brain, double seconds);
int bt_tsched_set_period(bt_tsched *ts, int brain, double period);

/* Binds the brain to another instance (a reload moved its agent to a new one). BT_EINVAL for a
 * bad id or a NULL inst. */
int bt_tsched_set_inst(bt_tsched *ts, int brain, bt_inst *inst);
/* Switches recording on (opts) or off (NULL) for every brain of the scheduler, now and from now
 * on (bt_tsched_brain_new, bt_tsched_set_inst): each brain's instance that has no recorder gets
 * one made with opts (its ring, callback and log; the agent id is the brain's id), which the
 * instance owns (bt_inst_fini frees it); off, the recorders it made are detached and freed (a
 * host's own stay). Callbacks run on the worker thread that thinks the brain; a log's recorders
 * write into buffers of their own, and the host calls bt_log_flush after bt_tsched_update. Call
 * it between frames, from the thread that runs them. BT_EINVAL (NULL ts, or the recorder compiled
 * out), BT_EBUSY (during a frame), BT_ENOMEM. */
struct bt_rec_options; /* the transition recorder's (below) */
int bt_tsched_set_recording(bt_tsched *ts, const struct bt_rec_options *opts);

/* The brain's instance (NULL for a bad id), as of the last command applied. */
bt_inst *bt_tsched_inst(bt_tsched *ts, int brain);

/* bt_inst_fire_event(inst, node) on the brain's instance. BT_EINVAL for a bad id or a node that
 * is no EventNode of its tree. (An EventNode's event in Don't Starve also makes the brain think
 * at once: add bt_tsched_force_update.) */
int bt_tsched_fire_event(bt_tsched *ts, int brain, int node);

/* bt_inst_force_update on the brain's instance and Wake: it thinks at the next frame. BT_EINVAL
 * for a bad id. */
int bt_tsched_force_update(bt_tsched *ts, int brain);

/* Queues a command of the host's: fn(ud, copy of data, size) at the next point commands are
 * applied, in order with the others (at once between frames). BT_EINVAL for a NULL fn or NULL
 * data with a size; BT_ENOMEM. */
int bt_tsched_post(bt_tsched *ts, bt_post_fn fn, void *ud, const void *data, size_t size);

/* One frame of the tick: the three phases above, the think phase on the executor. hooks may be
 * NULL (the defaults). Returns BT_OK; BT_EBUSY when a frame of ts is under way (called from a
 * leaf, a hook or a command); BT_ENOMEM (nothing thought: the brains stay where they are, as in
 * bt_sched_update); or the executor's error, after the frame ran whole (the batches it did not
 * start ran on this thread). */
int bt_tsched_update(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks);

/* bt_tsched_update in three calls, for a job system that cannot wait inside a job: begin does
 * phase 1 and says how many batches the frame has (*batches, maybe 0); the host runs
 * bt_tsched_frame_run(ts, i) for each i in [0, *batches), each once, on any threads at once;
 * then end, on the thread that began, does phase 3. frame_run returns BT_EINVAL for a batch out
 * of range or run already, or outside the think phase. end runs on its own thread the batches
 * that were not run (and then returns BT_EINVAL), waits for those still running, and returns
 * BT_OK. begin returns BT_EINVAL for a NULL ts or batches, BT_EBUSY when a frame is under way,
 * or BT_ENOMEM (no frame); end returns BT_EBUSY from inside a batch or a command being applied,
 * BT_EINVAL with no frame begun. */
int bt_tsched_frame_begin(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks, int *batches);
int bt_tsched_frame_run(bt_tsched *ts, int batch);
int bt_tsched_frame_end(bt_tsched *ts);

/* Applies the queued commands now, on the calling thread, which becomes the one that runs the
 * frames (between frames; BT_EBUSY during one, or from a command being applied). */
int bt_tsched_flush(bt_tsched *ts);

/* The tick of the last frame (0 before any); a brain's list (BT_SCHED_*) and the tick it waits
 * for, BT_EINVAL for a bad id; counts. Any thread: during a frame they give the state of its
 * start (the think phase) or its end. */
long long bt_tsched_tick(bt_tsched *ts);
int bt_tsched_list(bt_tsched *ts, int brain, long long *wake_tick);
void bt_tsched_stats_get(bt_tsched *ts, bt_tsched_stats *out);

/* The message of the last command refused when applied ("" if none): "tick 12: fire_event of
 * brain 3: node 9 is not an EventNode". Valid until the next frame or flush. */
const char *bt_tsched_errmsg(bt_tsched *ts);

/* ---- subtrees by reference: a library of named trees ----
 *
 * A BT_SUBTREE node runs another tree by its name: in a graph it is a leaf whose bt_spec.name is
 * the name of a tree in a bt_lib (NULL: the kind's default name, "Subtree").
 * bt_def_create_lib expands each subtree node that is reachable from the root into a copy of the
 * named tree, as its one child, so every place of reference
 * (every subtree node of the graph) has its own node states; the copies are resolved recursively,
 * by name, when the definition is built. At run time a subtree node passes its child's status on
 * (visit, reset, step, stop and sleep time as a decorator's). A subtree node that already has one
 * child (given with bt_graph_set_children) counts as resolved and runs that child. */

typedef struct bt_lib bt_lib; /* named trees: mutable; definitions built from it do not use it */

/* Creates an empty library. */
int bt_lib_new(bt_lib **out);

/* Frees a library (definitions built with it are independent of it). */
void bt_lib_free(bt_lib *lib);

/* Names the tree under root in g: copies the part of g reachable from root, as it is (its own
 * subtree nodes stay references by name). Replaces a tree of that name, which affects only the
 * definitions built afterwards. BT_EINVAL for an empty name or a bad root. */
int bt_lib_set(bt_lib *lib, const char *name, const bt_graph *g, int root);

/* Removes the tree of that name; BT_EINVAL if there is none. */
int bt_lib_remove(bt_lib *lib, const char *name);

/* 1 if the library has a tree of that name, else 0. */
int bt_lib_has(const bt_lib *lib, const char *name);

/* Returns the message of the library's last error ("" if none). */
const char *bt_lib_errmsg(const bt_lib *lib);

/* bt_def_create with the subtree nodes resolved from lib (NULL: none may be left). Graph ids of
 * g's nodes stay theirs; the nodes of the copies get the ids from g's node count up. Fails with
 * BT_EINVAL for a name not in lib ("no subtree named 'x'"), BT_ECYCLE for a subtree that runs
 * itself, directly or not (the message names the cycle: "subtree cycle: a > b > a"), BT_ETOOBIG
 * when the expanded tree would pass BT_MAX_DEPTH or BT_MAX_NODES (found before anything is
 * expanded), or as bt_def_create; the message is in bt_graph_errmsg(g). bt_def_create itself
 * refuses an unresolved subtree node with BT_EINVAL. */
int bt_def_create_lib(bt_def **out, bt_graph *g, int root, const bt_lib *lib);

/* bt_def_create_lib for a tree being defined as the library tree `name` (before bt_lib_set names
 * it): a subtree node of g naming it refers to g itself, a cycle, and messages name the tree as
 * the outermost subtree ("subtree cycle: name > b > name", "no subtree named 'x' (in subtree
 * 'name')"). A tree of that name in lib is not used; lib may be NULL (no other trees).
 * BT_EINVAL for an empty name. */
int bt_def_create_named(bt_def **out, bt_graph *g, int root, const bt_lib *lib, const char *name);

/* Where state s of a definition came from: the name of the library tree it was copied from, its
 * id in the graph given to bt_lib_set in *id; or NULL, with its graph id in *id, for a node of
 * the graph the definition was built from (every node, without subtrees). NULL and -1 for a bad
 * state. The name lives as long as the definition. */
const char *bt_def_origin(const bt_def *def, int state, int *id);

/* ---- the builder: trees from code, in the fluent style of the Behaviour Tree Starter Kit ----
 *
 *   bt_builder_priority(b, NULL, 0.25);          opens the root
 *     bt_builder_sequence(b, "Flee");            opens a child of the innermost open node
 *       bt_builder_condition(b, scared, NULL, "Scared");
 *       bt_builder_action(b, run, NULL, "Run");
 *     bt_builder_back(b);                        closes the Sequence
 *     bt_builder_wait(b, 1);
 *   bt_builder_end(b, &def, NULL);               closes the root and builds the definition
 *
 * Errors are sticky, as in bt_buf: each call returns BT_OK or the builder's first error, calls
 * after an error do nothing, and bt_builder_errmsg says what was wrong. A name NULL gives the
 * kind's default name. Parameters are those of bt_spec; a negative period or maxreps means
 * Don't Starve's nil (a period of 1, a loop forever). */

typedef struct bt_builder bt_builder;

/* Creates an empty builder. */
int bt_builder_new(bt_builder **out);

/* Frees a builder and the tree it holds. */
void bt_builder_free(bt_builder *b);

/* Opens a node of any kind with children (a composite, a decorator, or a BT_BEHAVIOUR with
 * BT_SPEC_CHILDREN) as the root or as the next child of the innermost open node. */
int bt_builder_open(bt_builder *b, const bt_spec *spec);

/* Adds a leaf of any kind (BT_BEHAVIOUR without BT_SPEC_CHILDREN, a condition, ..., a subtree).
 * A spec without the function (or bt_task) its kind needs is BT_EINVAL, the message naming the
 * node and its path as for bt_builder_condition. */
int bt_builder_leaf(bt_builder *b, const bt_spec *spec);

/* Closes the innermost open node: BT_EINVAL if nothing is open, if a composite has no child, or
 * if a decorator (Not, FailIfRunning, FailIfSuccess, Latch, Repeat, AlwaysSucceed, AlwaysFail,
 * Cooldown, Timeout) has other than one child. */
int bt_builder_back(bt_builder *b);

/* Builds the definition (bt_def_create_lib with lib, which may be NULL), closing the root if it
 * is the only node open; BT_EINVAL if the builder is empty or other nodes are still open (the
 * message names them). The builder is empty again afterwards, its error cleared, so that it can
 * build another tree; the message of a failure stays readable until the next error. */
int bt_builder_end(bt_builder *b, bt_def **out, const bt_lib *lib);

/* The message of the builder's error ("" if none). */
const char *bt_builder_errmsg(const bt_builder *b);

/* Openers of Don't Starve's composites and decorators (their bt_spec parameters). */
int bt_builder_sequence(bt_builder *b, const char *name);
int bt_builder_selector(bt_builder *b, const char *name);
int bt_builder_priority(bt_builder *b, const char *name, double period);
int bt_builder_parallel(bt_builder *b, const char *name);
int bt_builder_parallel_any(bt_builder *b, const char *name);
/* A Loop, named as Don't Starve's LoopNode ("Sequence"; bt_builder_open names one otherwise). */
int bt_builder_loop(bt_builder *b, double maxreps); /* < 0: forever */
int bt_builder_random(bt_builder *b, const char *name);
int bt_builder_not(bt_builder *b, const char *name);
int bt_builder_fail_if_running(bt_builder *b, const char *name);
int bt_builder_fail_if_success(bt_builder *b, const char *name);
int bt_builder_latch(bt_builder *b, const char *name, double seconds); /* NULL: "Latch (<seconds>)" */
int bt_builder_event(bt_builder *b, const char *name, double priority); /* fired by bt_inst_fire_event */

/* Openers of the kinds bt adds (docs/nodes.md). policy: BT_SPEC_SUCCESS_ONE and/or
 * BT_SPEC_FAILURE_ALL (0: all must succeed, one failure fails); a negative times repeats for ever. */
int bt_builder_policy_parallel(bt_builder *b, const char *name, unsigned policy);
int bt_builder_monitor(bt_builder *b, const char *name); /* its conditions, then the child it runs */
int bt_builder_active_selector(bt_builder *b, const char *name);
int bt_builder_repeat(bt_builder *b, const char *name, double times);
int bt_builder_succeed(bt_builder *b, const char *name);
int bt_builder_fail(bt_builder *b, const char *name);
int bt_builder_cooldown(bt_builder *b, const char *name, double seconds);
int bt_builder_timeout(bt_builder *b, const char *name, double seconds);

/* Leaves. ud is given back in bt_call.ud. A NULL fn (start, cont) is BT_EINVAL, with a message
 * that names the node, its kind and its path from the root: "bt_builder_condition: Condition
 * 'Cornered' (Root/Flee/Cornered) needs its function". */
int bt_builder_condition(bt_builder *b, bt_fn fn, void *ud, const char *name);
int bt_builder_condition_wait(bt_builder *b, bt_fn fn, void *ud, const char *name);
int bt_builder_action(bt_builder *b, bt_fn fn, void *ud, const char *name);
int bt_builder_multi_condition(bt_builder *b, bt_fn start, void *start_ud, bt_fn cont,
                               void *cont_ud, const char *name);
int bt_builder_wait(bt_builder *b, double seconds); /* seconds >= 0 */
/* A leaf written in C: a BT_BEHAVIOUR node with these overrides (ops must outlive the definition). */
int bt_builder_behaviour(bt_builder *b, const bt_ops *ops, void *ud, const char *name);
/* A task: a leaf with the Starter Kit's start, update and finish (task must outlive the
 * definition; ud is given back in bt_call.ud). A NULL task is BT_EINVAL, the message naming the
 * node and its path as for the leaves above. */
int bt_builder_task(bt_builder *b, const bt_task *task, void *ud, const char *name);
/* A subtree node that runs the tree named name in the lib given to bt_builder_end. */
int bt_builder_subtree(bt_builder *b, const char *name);

/* ---- pictures: a tree in Graphviz's DOT language (docs/debugging.md) ----
 *
 * `dot -Tsvg tree.dot > tree.svg` draws them. One box per node state, top down (rankdir=TB),
 * children left to right in order, labelled with the name, the kind (bt_kind_name) and the
 * parameter where it matters (a Priority's period, a Wait's seconds, ...). A node shared by
 * several parents is drawn once, with a double border and "shared: N places", and an edge from
 * each parent; the copy of a library tree under a subtree node is a dashed cluster labelled
 * "subtree <name>". Names are escaped: quotes, backslashes and newlines as DOT wants them,
 * control bytes and bytes that are not UTF-8 shown as \xNN. The text depends on the tree alone
 * (and, for an instance, its statuses): the same tree gives the same bytes. On failure out keeps
 * what it held before. */

/* Appends the definition's picture to out. BT_EINVAL for a NULL def or out; BT_ENOMEM. */
int bt_def_dot(const bt_def *def, bt_buf *out);

/* Appends the picture of the instance's tree with its statuses: each box filled with the
 * colour of its status now (READY white #ffffff, SUCCESS green #b7e4a8, FAILED red #f4a6a6,
 * RUNNING yellow #ffe08a), bordered with the colour of its last result (READY grey #808080,
 * SUCCESS #2e7d32, FAILED #c62828, RUNNING #b8860b), "STATUS <LAST>" in its label as in the
 * dump, and the running path (the running nodes under a running root) and its edges bold. Reads
 * statuses only, so it may be called inside a think. BT_EINVAL for a NULL inst or out; BT_ENOMEM. */
int bt_inst_dot(const bt_inst *inst, bt_buf *out);

/* ---- the transition recorder (docs/c-api.md "The transition recorder") ----
 * A bt_rec watches one instance: every change of a node's status (in a think, a Reset, a
 * transfer, a restore or bt_node_set_status), every think with its sleep time and what woke it,
 * every event fired, the errors the host contained, reloads, and records of the host's own, in
 * order, into a ring buffer of the last N records and/or a callback. Off (no recorder attached) it
 * costs one test of a bit of the instance's header per status change; built with
 * -DBT_RECORDER=OFF it is compiled out (bt_inst_set_recorder then fails with BT_EINVAL). The
 * recorder lives in the instance (no state is shared between instances): attach, detach and read
 * a recorder on the thread that thinks its instance (with bt_tsched: between frames, on the
 * thread that runs them; a callback is called on the worker that thinks the instance, next to
 * other workers' callbacks, and for an event bt_tsched_fire_event fired, on the thread applying
 * commands: docs/threads.md). */
typedef struct bt_rec bt_rec;

enum {
  BT_REC_STATUS = 1, /* node's status went from `from` to `to` */
  BT_REC_THINK = 2,  /* a think ended: sleep is the sleep time it asked for (has_sleep 0: none),
                        cause what made it think (BT_WAKE_*) */
  BT_REC_EVENT = 3,  /* an event was fired for node (bt_inst_fire_event) */
  BT_REC_ERROR = 4,  /* the host contained an error of node's code: text is the message */
  BT_REC_RELOAD = 5, /* the instance took the state of one of another definition (bt_inst_transfer):
                        def_from and def_to are their bt_def_hash */
  BT_REC_HOST = 6    /* a record of the host's (bt_inst_record_host): node is its code, text and
                        size its bytes */
};

/* What made a think happen (bt_rec_entry.cause of a BT_REC_THINK). START and RELOAD win over
 * an event or a ForceUpdate before the think; of an event and a ForceUpdate, the later one. */
enum {
  BT_WAKE_DEADLINE = 0, /* its sleep time ran out (or it thinks every tick) */
  BT_WAKE_START = 1,    /* the first think since the recorder was attached to the instance: the
                           first it saw, or the first of another instance it was moved to */
  BT_WAKE_EVENT = 2,    /* an event was fired since the last think (bt_inst_fire_event) */
  BT_WAKE_FORCE = 3,    /* bt_inst_force_update was called since the last think */
  BT_WAKE_RELOAD = 4    /* the first think since a reload (bt_inst_transfer, a BT_REC_RELOAD) gave
                           the instance another's state; not the first think the recorder saw */
};
/* Returns "deadline", "start", "event", "force" or "reload" ("unknown" for anything else): the
 * names bt-log, the Lua records and the viewer give the causes. */
const char *bt_wake_name(int cause);

typedef struct bt_rec_entry {
  unsigned char type;      /* BT_REC_* */
  unsigned char from, to;  /* STATUS: the statuses (bt_status) */
  unsigned char has_sleep; /* THINK: the tree asked for a sleep time */
  unsigned char cause;     /* THINK: BT_WAKE_* */
  int node;                /* STATUS, EVENT, ERROR: the pre-order index of the node (-1: the
                              error of no one node); HOST: the host's code; others -1 */
  unsigned long long think;/* the number of the think it happened in or after (the first is 1) */
  double time;             /* the instance's clock (bt_host.now) */
  double sleep;            /* THINK: the sleep time */
  unsigned long long def_from, def_to; /* RELOAD: the definitions' hashes */
  const char *text;        /* ERROR, HOST: the bytes (ERROR's end with a 0); NULL for others */
  size_t size;             /* ERROR, HOST: their number (ERROR's without the 0) */
} bt_rec_entry;

/* Called with each record as it is made (e and its text are valid during the call only). A
 * think's record is made when the think ends, with the sleep time the tree has then. */
typedef void (*bt_rec_fn)(void *ud, const bt_rec_entry *e);

/* A new recorder keeping the last `capacity` records (0: none, a callback only; at most
 * BT_REC_MAX_CAPACITY). BT_EINVAL for a NULL out or a capacity too large, BT_ENOMEM. */
#define BT_REC_MAX_CAPACITY 2097152
int bt_rec_create(bt_rec **out, size_t capacity);
/* Detaches it from its instance if attached, and frees it. NULL is allowed. */
void bt_rec_free(bt_rec *rec);
/* The callback sink (fn NULL: none). */
void bt_rec_set_callback(bt_rec *rec, bt_rec_fn fn, void *ud);
/* The host's stable agent id and label ("sheep 12"; copied; NULL: none). BT_ENOMEM. */
int bt_rec_set_agent(bt_rec *rec, unsigned long long id, const char *label);
unsigned long long bt_rec_agent(const bt_rec *rec);
const char *bt_rec_label(const bt_rec *rec); /* "" when none */
/* Records in the ring (at most the capacity), and records made since creation or bt_rec_clear. */
size_t bt_rec_count(const bt_rec *rec);
unsigned long long bt_rec_total(const bt_rec *rec);
/* Copies the i-th record in the ring, 0 the oldest (its text stays valid until the record leaves
 * the ring); BT_EINVAL when i >= bt_rec_count. The ring keeps a think's sleep time as a float (7
 * significant digits); the callback gets it as the tree gave it. */
int bt_rec_get(const bt_rec *rec, size_t i, bt_rec_entry *out);
/* Empties the ring and zeroes the total (the think number goes on). */
void bt_rec_clear(bt_rec *rec);
/* The instance rec watches (NULL: none). */
bt_inst *bt_rec_inst(const bt_rec *rec);
/* Attaches rec to inst (NULL detaches; a recorder watches one instance at a time, an instance has
 * one recorder at most: attaching replaces and detaches the previous one, and frees it if the
 * instance's definition made it). BT_EINVAL when rec is attached to another instance or the
 * recorder is compiled out, BT_ENOMEM. bt_inst_fini detaches the recorder. */
int bt_inst_set_recorder(bt_inst *inst, bt_rec *rec);
bt_rec *bt_inst_recorder(const bt_inst *inst);

/* What a definition gives the recorders it makes (bt_def_set_recording). */
typedef struct bt_log bt_log; /* a log file being written (below) */

typedef struct bt_rec_options {
  size_t capacity; /* the ring's size (0: none) */
  bt_rec_fn fn;    /* the callback (NULL: none) */
  void *ud;
  bt_log *log;     /* the log each recorder writes to (bt_rec_set_log; NULL: none) */
} bt_rec_options;

/* Switches recording on (opts) or off (NULL) for the instances bt_inst_init makes of def from now
 * on: each gets a recorder of its own, made with opts, which bt_inst_recorder returns and
 * bt_inst_fini frees (instances made before are left as they are). BT_EINVAL for a NULL def or a
 * recorder compiled out; BT_ENOMEM (bt_inst_init fails with BT_ENOMEM when it cannot make one). */
int bt_def_set_recording(bt_def *def, const bt_rec_options *opts);

/* Keeps (on: nonzero), from the next think on, the DBStrings of the nodes running when each think
 * has saved its statuses (what the dump shows beside them), described inside the think, where a
 * script's DBString may run; off (0) drops them. It costs a describe call per running node per
 * think: a viewer keeps them for the agents a page shows. BT_EINVAL for a NULL rec or a recorder
 * compiled out. */
int bt_rec_keep_dbstrings(bt_rec *rec, int on);
/* The DBString node had at the last think the recorder kept them for ("" when it said nothing),
 * or NULL: not running then, none kept, or a node out of range. Valid until that instance's next
 * think, or bt_rec_keep_dbstrings. */
const char *bt_rec_dbstring(const bt_rec *rec, int node);

/* ---- statistics: per-node figures from the recorder's records (docs/c-api.md "Statistics") ----
 * A bt_stats counts, for each tree shape (bt_def_hash) and each node of it (pre-order index),
 * summed over any number of agents, what the records say the node did. It is fed the records of
 * live recorders (bt_rec_set_stats, bt_def_set_stats: a recorder of capacity 0 keeps no ring, so
 * statistics need no log), or records decoded from anywhere (bt_stats_add). The figures:
 *   visits     the node was entered: in a think, its status changed from READY to another, or
 *              from SUCCESS or FAILED to other than READY (a finished node visited again without
 *              a reset). A running node that a think visits again and leaves RUNNING makes no
 *              record, so it is no new visit (thinks counts those); a visit that leaves a node
 *              READY (an EventNode not fired) is not seen.
 *   successes, failures   changes to SUCCESS, to FAILED, in a think
 *   aborts     runs interrupted: changes from RUNNING to READY (a parent's reset, a Priority
 *              choosing another child, an event, bt_inst_reset), in a think or not
 *   runs       changes to RUNNING, in a think or not (a restore or a reload that sets a node
 *              RUNNING starts a run, and is no visit)
 *   thinks     thinks at whose end the node was RUNNING
 *   time       seconds RUNNING, summed over runs: a run lasts from the record of its change to
 *              RUNNING to that of its change out of RUNNING; a run under way counts up to its
 *              agent's latest record
 *   longest    the longest run, runs under way included
 *   running    agents in which the node runs now
 *   errors     BT_REC_ERROR records naming the node (bt_inst_record_error)
 * A record is in a think when its think number is above that of its agent's latest BT_REC_THINK
 * record. Runs are kept per agent and node: a change to RUNNING of a node already running ends
 * the run under way first. A think's record is made when it ends, so a read right after
 * bt_inst_update counts that think. A bt_stats belongs to one thread, as its recorders do (merge
 * several threads' with bt_stats_merge), and must outlive them or be freed first. */
typedef struct bt_stats bt_stats;

/* One node's figures (bt_stats_node_get, bt_stats_list, bt_rec_stats_node). */
typedef struct bt_stats_node {
  unsigned long long shape; /* bt_def_hash of its tree */
  int node;                 /* its pre-order index */
  int running;              /* agents in which it runs now */
  unsigned long long visits, successes, failures, aborts, runs, thinks, errors;
  double time;    /* seconds running */
  double longest; /* the longest run, in seconds */
} bt_stats_node;

/* One shape's figures (bt_stats_shape_get, bt_rec_stats_shape). */
typedef struct bt_stats_shape {
  unsigned long long shape;  /* bt_def_hash */
  int nodes;                 /* its node count (bt_def_size) */
  int agents;                /* agents whose records were counted */
  unsigned long long thinks; /* BT_REC_THINK records */
  unsigned long long errors; /* BT_REC_ERROR records of no one node (node -1) */
  const bt_def *def; /* a definition of the shape that a live recorder fed (held until
                        bt_stats_free), to name the nodes; NULL for shapes known by bt_stats_add */
} bt_stats_shape;

/* Orders of bt_stats_list. */
enum {
  BT_STATS_BY_TREE = 0,  /* shapes in the order they were first seen, nodes in pre-order */
  BT_STATS_BY_TIME = 1,  /* hottest first: most time running, then most visits, then tree order */
  BT_STATS_BY_VISITS = 2 /* most visits, then most time running, then tree order */
};

/* An empty bt_stats. BT_EINVAL (out NULL), BT_ENOMEM. */
int bt_stats_create(bt_stats **out);
/* Detaches it from every recorder that feeds it and frees it. NULL is allowed. */
void bt_stats_free(bt_stats *st);
/* Makes st the statistics that rec feeds (NULL: none; a recorder feeds one bt_stats at most).
 * Each recorder is an agent of its own; its runs under way end at its latest record when it
 * leaves its instance, stops feeding st or is freed. A shared node's figures are counted at its
 * first place (bt_def_node_of_state). BT_EINVAL (rec NULL), BT_ENOMEM. */
int bt_rec_set_stats(bt_rec *rec, bt_stats *st);
bt_stats *bt_rec_stats(const bt_rec *rec);
/* Switches statistics on (st) or off (NULL) for the instances bt_inst_init makes of def from now
 * on: each feeds st through its recorder, the one bt_def_set_recording gives it, or else one of
 * capacity 0 made for the purpose (bt_inst_recorder returns it; bt_inst_fini frees it). Instances
 * made before are left as they are. BT_EINVAL for a NULL def or a recorder compiled out
 * (bt_inst_init fails with BT_ENOMEM when it cannot attach a recorder to st). */
int bt_def_set_stats(bt_def *def, bt_stats *st);
/* Counts one record of `agent` (an id of the caller's: each agent's runs are its own), made by an
 * instance of a tree of shape `shape` (bt_def_hash) with `nodes` nodes. When the shape of an agent
 * changes (a reload), its runs under way end at its latest record. BT_EINVAL: st or e NULL,
 * nodes < 1, a shape already known with another node count, an unknown type, a STATUS record with
 * a node out of range or statuses bad or equal, an ERROR record with a node out of range;
 * BT_ENOMEM. A refused record changes no figure. */
int bt_stats_add(bt_stats *st, unsigned long long agent, unsigned long long shape, int nodes,
                 const bt_rec_entry *e);
/* Zeroes every figure, the agents' own too; runs under way go on, counted from `now` (on the
 * agents' clock). */
void bt_stats_reset(bt_stats *st, double now);
/* Adds src's figures into dst, shape by shape, src's runs under way counted as far as they went
 * (as running, and as time). BT_EINVAL (NULL, dst == src, a shape of another node count);
 * BT_ENOMEM (dst is then unchanged). */
int bt_stats_merge(bt_stats *dst, bt_stats *src);
/* The shapes counted, and the i-th (0: the first seen); BT_EINVAL for a bad i. */
int bt_stats_shape_count(bt_stats *st);
int bt_stats_shape_get(bt_stats *st, int i, bt_stats_shape *out);
/* One node's figures; BT_EINVAL for a shape not counted or a node out of range. */
int bt_stats_node_get(bt_stats *st, unsigned long long shape, int node, bt_stats_node *out);
/* Every node of every shape, in the order given (BT_STATS_BY_*): writes the first min(max, n)
 * rows and returns n, the number of rows there are; BT_EINVAL (bad order, rows NULL with
 * max > 0), BT_ENOMEM. */
int bt_stats_list(bt_stats *st, int order, bt_stats_node *rows, int max);
/* Records a live recorder could not count for want of memory (0 unless an allocation failed). */
unsigned long long bt_stats_dropped(const bt_stats *st);

/* Keeps (on: nonzero), besides the shapes' figures, each live recorder's figures of its own, so
 * that one bt_stats gives both a whole population's figures and one agent's (a row of figures per
 * node per recorder). Those of a recorder feeding st already count from its latest record.
 * BT_EINVAL (st NULL), BT_ENOMEM (nothing changed). */
int bt_stats_keep_agents(bt_stats *st, int on);
/* A recorder's own figures in the bt_stats it feeds, for the shape of its tree (they start afresh
 * when it moves to a tree of another shape): as bt_stats_shape_get (agents 1), bt_stats_node_get
 * and bt_stats_list. BT_EINVAL when rec feeds no bt_stats that keeps agents' figures, has not yet
 * seen a tree, or for a bad node or order; BT_ENOMEM. */
int bt_rec_stats_shape(bt_rec *rec, bt_stats_shape *out);
int bt_rec_stats_node(bt_rec *rec, int node, bt_stats_node *out);
int bt_rec_stats_list(bt_rec *rec, int order, bt_stats_node *rows, int max);
/* Zeroes the recorder's own figures; its runs under way count on from `now`. BT_EINVAL as above. */
int bt_rec_stats_reset(bt_rec *rec, double now);

/* ---- the log file: what many agents' recorders saw, in a file (docs/log-format.md) ----
 * A bt_log is a sink of any number of recorders, each the recorder of one agent. On the think
 * path a recorder only appends its record to a buffer of its own (agents thinking on different
 * threads share nothing); bt_log_flush, which the host calls at each frame end, encodes what every
 * recorder of the log made since the last flush (varints, deltas, one table of the frame's times)
 * and writes it as one block, in the order the recorders were given to the log, after the shape
 * of every tree first used (keyed by bt_def_hash: the agents of one brain share it) and the id and
 * label of every agent first seen. With BT_LOG_THREAD the encoding and writing happen on a thread
 * of the log's own and the flush only swaps buffers. A log is read back with a bt_log_reader
 * (below), tools/bt-log, or bt.log.open from Lua; a log cut anywhere reads to its last whole
 * block. Errors are kept: bt_log_errmsg says what went wrong. */

#define BT_LOG_DBSTRINGS 0x01 /* each think also keeps its running nodes' DBStrings and sleep times
                                 (what the dump shows; they cost a describe call per running node) */
#define BT_LOG_THREAD 0x02   /* encode and write on a thread of the log's own */

/* Where a log's bytes go: write returns 0, or non-zero on failure (the log then fails with
 * BT_EIO). With BT_LOG_THREAD it is called on the log's thread. */
typedef int (*bt_log_write_fn)(void *ud, const void *data, size_t size);

/* Creates (or truncates) the file at path and writes the log's header. On failure *out is NULL
 * and err (errsize bytes, may be NULL) says why: BT_EINVAL (NULL out or path, unknown flags, or
 * BT_LOG_THREAD where threads are not built in), BT_EIO (the file cannot be created), BT_ENOMEM. */
int bt_log_open(bt_log **out, const char *path, unsigned flags, char *err, size_t errsize);
/* The same, writing through fn(ud, ...) instead of a file (a socket, memory, a host's own file). */
int bt_log_open_fn(bt_log **out, bt_log_write_fn fn, void *ud, unsigned flags, char *err, size_t errsize);

/* Makes rec write to log as well as to its ring and callback (NULL: to no log; a recorder writes
 * to one log at most, and setting another detaches it from the first). Records made before are
 * not written; records not yet flushed still are. Any thread may call it, but not while rec's
 * instance thinks nor during a bt_log_flush of either log. BT_EINVAL for a NULL rec or a
 * recorder compiled out, BT_ENOMEM. */
int bt_rec_set_log(bt_rec *rec, bt_log *log);
bt_log *bt_rec_log(const bt_rec *rec); /* NULL: none */

/* Writes what the log's recorders recorded since the last flush: call it at each frame end, when
 * none of their instances thinks (from one thread at a time). With BT_LOG_THREAD it waits for the
 * log's thread to finish the previous flush, hands it this one and returns. BT_EIO once a write
 * failed (then and later: nothing more is written, recorders go on recording into nothing;
 * bt_log_errmsg says why), BT_ENOMEM (the records of this flush are lost), BT_EINVAL for NULL. */
int bt_log_flush(bt_log *log);

/* Records `size` bytes of the host's that belong to no one agent (the world's state in a frame),
 * with a code of its own and a time; written at the next flush before the agents' records of that
 * flush. Call it from the thread that flushes. BT_EINVAL for a NULL log, NULL data with a size, or
 * a size over 16 MiB; BT_ENOMEM. */
int bt_log_write_host(bt_log *log, double time, int code, const void *data, size_t size);

/* Flushes, writes the log's end, closes the file bt_log_open opened and frees the log; the
 * recorders still writing to it are detached from it (a think whose record was not yet made,
 * because the host never asked for its sleep time, is not in the log: free or detach recorders
 * first to keep it). Returns BT_OK or the log's first error (BT_EIO, BT_ENOMEM). NULL is allowed. */
int bt_log_close(bt_log *log);

/* The message of the log's first error ("" if none). */
const char *bt_log_errmsg(const bt_log *log);

/* What a log has written so far (with BT_LOG_THREAD: up to the last flush its thread finished). */
typedef struct bt_log_stats {
  unsigned long long records;  /* the recorders' records written (BT_REC_*) */
  unsigned long long statuses; /* of which BT_REC_STATUS: the transitions */
  unsigned long long bytes;    /* bytes written, header included */
  unsigned long long lost;     /* records lost for want of memory (each marked in the log) */
  int shapes, agents;          /* shapes and agents declared */
} bt_log_stats;
void bt_log_stats_get(bt_log *log, bt_log_stats *out);

/* ---- reading a log ---- */

typedef struct bt_log_reader bt_log_reader;
typedef struct bt_log_shape bt_log_shape; /* a tree's shape, as the log keeps it */

/* Record types a log adds to the recorder's BT_REC_* (bt_log_record.entry.type). */
enum {
  BT_LOG_SAVED = 16,    /* a think saved its statuses as last results (the dump's <LASTRESULT>):
                           every node's last result is now its status */
  BT_LOG_DESCRIBE = 17, /* the running nodes' DBStrings and sleep times at a think's end
                           (BT_LOG_DBSTRINGS logs only): bt_log_reader_describe reads them */
  BT_LOG_WORLD = 18,    /* bt_log_write_host's: entry.node is the code, text and size the bytes;
                           of no agent */
  BT_LOG_LOST = 19,     /* entry.size records of this agent were lost here for want of memory */
  BT_LOG_ATTACH = 20,   /* the agent's recorder was attached to an instance of record.shape: its
                           nodes are READY with last results READY but for the entry.size ones
                           bt_log_reader_state reads (it may have run before) */
  BT_LOG_STOP = 21      /* the agent's tree was stopped (bt_inst_stop: Lua's tree:Stop, a brain's
                           Stop, a pool's remove); it keeps its statuses (bt_log_tree_stopped) */
};

typedef struct bt_log_record {
  bt_rec_entry entry;        /* as the recorder made it (text: valid until the next read or feed;
                                an error's ends with a 0, as the recorder's) */
  unsigned long long agent;  /* the host's agent id (bt_rec_set_agent; 0 for BT_LOG_WORLD) */
  const char *label;         /* its label ("" when none) */
  int agent_index;           /* the agent's number in the log, 0 up, in order of appearance
                                (-1 for BT_LOG_WORLD) */
  const bt_log_shape *shape; /* the agent's tree at this record (NULL: none yet, BT_LOG_WORLD) */
  unsigned long long offset; /* the byte offset of the block the record came from */
} bt_log_record;

/* Where a reader stopped (bt_log_reader_where). */
enum {
  BT_LOG_MORE = 0,  /* it has not reached the end of what it was given */
  BT_LOG_ENDED = 1, /* the log's end was read: the writer closed it */
  BT_LOG_WHOLE = 2, /* the bytes end after a whole block but the log has no end (yet): it is being
                       written, or its writer stopped without closing it */
  BT_LOG_CUT = 3,   /* the bytes end inside a block (or the header): the log was cut there, or
                       the rest is being written */
  BT_LOG_FAILED = 4 /* an error stopped it (bt_log_reader_errmsg) */
};

/* Opens the log file at path for reading. On failure *out is NULL and err (errsize bytes, may be
 * NULL) says why: BT_EIO (cannot open it), BT_EFORMAT (its first bytes are not a bt log's, or its
 * format version is not one this library reads), BT_EINVAL (NULL out or path), BT_ENOMEM. A file
 * shorter than the header whose bytes begin one is accepted: it is being written. */
int bt_log_reader_open(bt_log_reader **out, const char *path, char *err, size_t errsize);
/* A reader of bytes the host feeds it (bt_log_reader_feed): a log in memory, a pipe, a socket. */
int bt_log_reader_new(bt_log_reader **out);
/* Appends size bytes (copied) to what a reader made by bt_log_reader_new reads. BT_EINVAL for a
 * reader of a file, BT_ENOMEM. */
int bt_log_reader_feed(bt_log_reader *r, const void *data, size_t size);
void bt_log_reader_free(bt_log_reader *r); /* NULL is allowed */

/* Reads the next record into *out: 1 when there is one (its text and label stay valid until the
 * next read or feed); 0 when there is none for now (bt_log_reader_where says why: the log's end, or its
 * bytes end: a reader of a file that grows reads on at the next call); or an error, after which
 * every call returns it: BT_EFORMAT (not a log, another format version), BT_ECORRUPT (damaged
 * bytes: the message says at which byte and what), BT_EIO, BT_ENOMEM. Every record of the blocks
 * before the error was read. */
int bt_log_read(bt_log_reader *r, bt_log_record *out);

/* Why reading stopped (BT_LOG_*), and in *offset (may be NULL) how far: the end of the last block
 * whose records were all read (a log cut anywhere reads up to there). */
int bt_log_reader_where(const bt_log_reader *r, unsigned long long *offset);
/* The message of the reader's error ("" if none). */
const char *bt_log_reader_errmsg(const bt_log_reader *r);
/* The header's flags (BT_LOG_DBSTRINGS: the log keeps DBStrings and sleep times), or -1 before
 * the header was read. */
int bt_log_reader_flags(const bt_log_reader *r);

/* The i-th entry of the BT_LOG_DESCRIBE record just read: its node, its sleep time (1 and *sleep,
 * or 0 for none) and its DBString (text, len bytes; valid until the next read). BT_EINVAL when i
 * is not below the record's entry.size or the last record read is no BT_LOG_DESCRIBE. */
int bt_log_reader_describe(const bt_log_reader *r, size_t i, int *node, int *has_sleep,
                           double *sleep, const char **text, size_t *len);

/* The i-th entry of the BT_LOG_ATTACH record just read: a node and its status and last result.
 * BT_EINVAL when i is not below entry.size or the last record read is no BT_LOG_ATTACH. */
int bt_log_reader_state(const bt_log_reader *r, size_t i, int *node, int *status, int *last);

/* The shape of that hash the log has declared so far (NULL: none). It lives as long as the reader. */
const bt_log_shape *bt_log_reader_shape(const bt_log_reader *r, unsigned long long hash);

/* A shape's nodes, in pre-order (root 0), as bt_def_* describe a definition's: its hash, its
 * number of nodes, and a node's kind (a bt_kind, or -1 for a kind this library does not know),
 * the kind's name as the log wrote it, its name, its number of children, its i-th child, its tree
 * parent (-1 for the root), its state (nodes placed under several parents share one); bad
 * indices give -1 or NULL. bt_log_shape_param returns 1 and the parameter (a Priority's period,
 * a Wait's seconds, ...; a nil one as its kind reads it: a Priority's period 1) or 0 for none. */
unsigned long long bt_log_shape_hash(const bt_log_shape *s);
int bt_log_shape_size(const bt_log_shape *s);
int bt_log_shape_kind(const bt_log_shape *s, int node);
const char *bt_log_shape_kind_name(const bt_log_shape *s, int node);
const char *bt_log_shape_name(const bt_log_shape *s, int node);
int bt_log_shape_child_count(const bt_log_shape *s, int node);
int bt_log_shape_child(const bt_log_shape *s, int node, int i);
int bt_log_shape_up(const bt_log_shape *s, int node);
int bt_log_shape_state(const bt_log_shape *s, int node);
int bt_log_shape_param(const bt_log_shape *s, int node, double *out);

/* Appends the node's path to out: the names from the root joined by '/', a node whose siblings
 * share its name numbered "#1", "#2", ... in their order (as the Lua binding names nodes), so that
 * a path names one node. BT_EINVAL for a bad node or NULL out, BT_ENOMEM. */
int bt_log_shape_path(const bt_log_shape *s, int node, bt_buf *out);
/* The node at that path, or -1. */
int bt_log_shape_find(const bt_log_shape *s, const char *path);

/* Builds a definition of the shape (one reference), for bt_def_dot, bt_inst_dot, bt_def_match:
 * the same nodes, kinds, names, parameters and shared nodes, with leaves whose functions fail.
 * BT_EINVAL for a NULL argument or a kind this library does not know; as bt_def_create. */
int bt_log_shape_def(const bt_log_shape *s, bt_def **out);

/* ---- an agent's statuses from its records ----
 * One step of replaying an agent's statuses from its records: the one that bt_log_tree_apply,
 * bt-log and the viewer (a window's statuses_before) take. The statuses and last results of a
 * tree of `nodes` nodes are kept by state (status[s] and last[s], `nodes` bytes each, s the state
 * of a node: state[node], as bt_def_state or bt_log_shape_state give it; state NULL: by node), so
 * that every place of a shared node has the one status the instance gives it. BT_REC_STATUS sets
 * its node's status to e->to; BT_LOG_SAVED makes every last result the status (last NULL: nothing
 * changes); every other type changes nothing: a change of shape (BT_LOG_ATTACH, BT_REC_RELOAD)
 * is the caller's, who knows the new shape. BT_EINVAL for a NULL e or status, nodes below 0, or a
 * STATUS record whose node or its state is not below nodes or whose status is no bt_status
 * (nothing changes then). */
int bt_rec_entry_apply(const bt_rec_entry *e, int nodes, const int *state, unsigned char *status,
                       unsigned char *last);

/* ---- an agent's tree from its records ----
 * A bt_log_tree follows the records of one agent, given to it one by one as a reader reads them,
 * and keeps the agent's tree as they leave it: each node's status and last result (what the dump
 * shows), the DBStrings and sleep times of the running nodes at its last think (BT_LOG_DBSTRINGS
 * logs), and its last think. Read to a moment, it is the agent's tree at that moment (bt-log tree,
 * bt-arena --replay). Statuses are kept by state: a node placed under several parents has one. */
typedef struct bt_log_tree bt_log_tree;

/* An empty tree (no shape: its agent's first BT_LOG_ATTACH gives it one). BT_EINVAL for NULL out,
 * BT_ENOMEM. */
int bt_log_tree_create(bt_log_tree **out);
void bt_log_tree_free(bt_log_tree *t); /* NULL is allowed */

/* Applies the record that r has just read (bt_log_read), a record of the agent the tree follows:
 * BT_LOG_ATTACH takes rec's shape, its nodes READY with last results READY but those the record
 * lists (bt_log_reader_state); BT_REC_STATUS sets the node's status and BT_LOG_SAVED makes every
 * last result the status (bt_rec_entry_apply); BT_LOG_DESCRIBE replaces the DBStrings kept; BT_REC_THINK is the last think;
 * BT_LOG_STOP marks the tree stopped until a think after it or an attach (bt_log_tree_stopped).
 * Other records, and every record before the first attach, change nothing. BT_EINVAL for a NULL
 * argument or a record that does not fit the tree's shape (a node or status out of range),
 * BT_ENOMEM (then the DBStrings of that describe record are not kept). */
int bt_log_tree_apply(bt_log_tree *t, const bt_log_reader *r, const bt_log_record *rec);

/* The tree's shape: the one of the last attach applied (it lives as long as the reader that read
 * it), or NULL before the first. */
const bt_log_shape *bt_log_tree_shape(const bt_log_tree *t);
/* A node's status and last result (bt_status), or -1 for a node outside the shape or no shape. */
int bt_log_tree_status(const bt_log_tree *t, int node);
int bt_log_tree_last(const bt_log_tree *t, int node);
/* The node's entry in the last BT_LOG_DESCRIBE applied since the last attach (the describe of the
 * last think that had one; the nodes that ran then): 1 with its sleep time (*has_sleep 0: none)
 * and its DBString (text, len bytes: valid until the next apply or free), or 0 when it has none.
 * Any pointer may be NULL. */
int bt_log_tree_describe(const bt_log_tree *t, int node, int *has_sleep, double *sleep, const char **text,
                         size_t *len);
/* 1 with the last think's number and time (any pointer may be NULL), or 0 when no think was
 * applied yet. */
int bt_log_tree_think(const bt_log_tree *t, unsigned long long *think, double *time);
/* 1 when the agent is gone: its tree was stopped (a BT_LOG_STOP) and neither thought after the
 * think of the stop nor was attached again (a brain's restart) since; with the stop's think
 * number and time (any pointer may be NULL). 0 for a tree that lives, or none. A tree its host
 * freed without stopping it leaves no such mark. */
int bt_log_tree_stopped(const bt_log_tree *t, unsigned long long *think, double *time);

#ifdef __cplusplus
}
#endif

#endif
