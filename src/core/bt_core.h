/* SPDX-License-Identifier: MIT */
/*
 * bt_core.h: the bt engine. Behaviour trees with Don't Starve's semantics, in plain C11, without Lua.
 *
 * A host describes a tree as a graph of nodes (bt_graph), compiles it into an immutable
 * definition (bt_def) that any number of agents share, and gives each agent an instance
 * (bt_inst): one allocation that holds every node's state. bt_inst_update is one think.
 *
 * Nodes are addressed by their index in the definition's depth-first (pre-order) layout. A
 * graph node placed under several parents appears at several indices that share one state.
 * Every function that can fail returns BT_OK (0) or a negative BT_E* code; bt_strerror names it,
 * and the graph keeps a message (bt_graph_errmsg). Nothing here aborts or exits.
 *
 * This header is the engine alone, and names none of the layers over it: its library is
 * libbtengine (CMake bt::engine, pkg-config btengine). Over it are recording (bt_record.h: the
 * recorder, its statistics, the log file) and the scheduler (bt_sched.h: the brain scheduler,
 * serial or on a pool of threads), which libbtcore holds with the engine; bt.h
 * includes all three.
 */
#ifndef BT_CORE_H
#define BT_CORE_H

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
#define BT_EBUSY (-5)   /* not allowed now: the tree is thinking, or a scheduler's frame is under way */
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
  BT_WATCH,           /* a condition on blackboard keys that watches them (the blackboard, below) */
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
#define BT_KIND_WATCHES 0x40   /* a condition on blackboard keys that a write to them re-checks */

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
  int err; /* BT_ENOMEM once an append or printf failed; later ones do nothing */
} bt_buf;

/* Makes room for n more bytes after len, and one more for a NUL: then cap >= len + n + 1.
 * Returns BT_OK, or BT_ENOMEM (also for an n too large) with the buffer as it was: a reserve
 * neither reads nor sets err, so a writer in place may try again, or with less. */
int bt_buf_reserve(bt_buf *b, size_t n);

/* Appends n bytes of s; returns BT_OK or BT_ENOMEM. */
int bt_buf_append(bt_buf *b, const char *s, size_t n);

/* Has the compiler check the arguments of a printf-style function (format at argument f, the
 * values from argument a) against C99's formats, which bt's formatting follows on every system
 * (MinGW-w64's own printf family on Windows, gnu_printf, not the old runtime's). */
#if defined(__MINGW32__)
#define BT_PRINTF_CHECK(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define BT_PRINTF_CHECK(f, a) __attribute__((format(printf, f, a)))
#else
#define BT_PRINTF_CHECK(f, a)
#endif

/* Appends printf-style formatted text; returns BT_OK or BT_ENOMEM. */
int bt_buf_printf(bt_buf *b, const char *fmt, ...)
    BT_PRINTF_CHECK(2, 3)
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
#define BT_SPEC_ABORT_SELF 0x40  /* Watch: its running branch ends when its condition turns false */
#define BT_SPEC_ABORT_LOWER 0x80 /* Watch: a lower branch ends when its condition turns true */

/* The blackboard (below): one key a node reads or writes, as a bt_spec lists them. */
typedef struct bt_port {
  const char *key; /* the key's name, as bt_graph_add_key declares it */
  int type;        /* the type the node takes it for (a bt_key_type), or 0: whatever it is declared */
  unsigned how;    /* BT_PORT_READ and/or BT_PORT_WRITE */
} bt_port;
#define BT_PORT_READ 0x01
#define BT_PORT_WRITE 0x02

/* A blackboard value: its type (a bt_key_type; BT_KEY_NONE: no value, nil) and the value. */
typedef struct bt_value {
  int type;
  union {
    double number;            /* BT_KEY_NUMBER */
    long long integer;        /* BT_KEY_INTEGER */
    int boolean;              /* BT_KEY_BOOLEAN: 0 or 1 */
    const char *string;       /* BT_KEY_STRING: NUL-terminated, copied when written */
    unsigned long long entity; /* BT_KEY_ENTITY: an entity's id */
    unsigned long long token; /* BT_KEY_VALUE: what a binding keeps in place of its value */
  } as;
} bt_value;

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
  /* The blackboard (below). Copied by bt_graph_add. */
  const bt_port *ports; /* the keys the node reads and writes, nports of them */
  int nports;
  const char *where; /* where the node was made ("brains/wolf.lua:12"), for messages; or NULL */
  /* BT_WATCH: with fn NULL, the condition `key cmp value` (a BT_CMP_*); with fn, fn is the
   * condition and its ports say which keys it reads. */
  const char *key;
  int cmp;
  bt_value value;
} bt_spec;

/* Creates an empty graph. */
int bt_graph_create(bt_graph **out);

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

/* Appends the node's path from the root to out: names joined by '/', a node that shares its name
 * with siblings followed by "#k" (the k-th of them, from 1), as in error messages, logs and the
 * recorder's records: "Priority/Sequence#2/Eat". BT_EINVAL (NULL def or out, a node out of range),
 * BT_ENOMEM (out is then as it was). */
int bt_def_path(const bt_def *def, int node, bt_buf *out);
/* The node whose path (bt_def_path) is `path`, or BT_EINVAL when none is (or def or path is
 * NULL), BT_ENOMEM. */
int bt_def_find(const bt_def *def, const char *path);

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
 * instance's header per status change; built with -DBT_RECORDER=OFF (which defines BT_HOOKS 0
 * for the engine) the hook is compiled out (bt_inst_set_hook then fails with BT_EINVAL). Called on the thread that thinks the instance. */
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
  BT_HOOK_DETACH = 11, /* the hook is replaced, or the instance is finished: the last call */
  BT_HOOK_MOVE = 12,   /* the hook moved to inst from another instance (bt_inst_move_hook) */
  BT_HOOK_KEY = 13     /* a blackboard key (node: its id) was written: before and after */
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
  const bt_value *before, *after; /* KEY: the values (valid during the call only) */
} bt_hook_msg;

/* The watcher's function: what happened to inst. Its result is returned by bt_inst_record_error
 * and bt_inst_record_host (BT_OK, BT_ENOMEM); ignored for the others. */
typedef int (*bt_hook_fn)(void *ud, bt_inst *inst, const bt_hook_msg *msg);

/* Sets inst's hook (fn NULL: none). The previous one gets BT_HOOK_DETACH first. BT_EINVAL for a
 * NULL inst or a hook compiled out, BT_ENOMEM. bt_inst_fini detaches the hook. */
int bt_inst_set_hook(bt_inst *inst, bt_hook_fn fn, void *ud);
/* inst's hook, and its ud into *ud (if not NULL); NULL when none. */
bt_hook_fn bt_inst_hook(const bt_inst *inst, void **ud);
/* Moves from's hook to `to`, for a host that gives an agent a new instance in place of its old
 * one (a tree rebuilt, a reload): the hook then gets BT_HOOK_MOVE with `to` as its instance, and
 * from has none. BT_OK, also when from has no hook (nothing moves); BT_EINVAL for a NULL or the
 * same instance; BT_EBUSY while either thinks or when `to` has a hook of its own; BT_ENOMEM. */
int bt_inst_move_hook(bt_inst *to, bt_inst *from);

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

/* A hash of the definition's shape (kinds, parameters, names, children, and of a tree with keys
 * its blackboard: keys, ports, WatchNodes' conditions): equal for definitions built alike, so
 * that saved states and logs can be matched with the definition they came from. */
unsigned long long bt_def_hash(const bt_def *def);

/* Non-zero if the two definitions are the same tree: the same nodes, names, parameters,
 * callbacks and user data, and the same blackboard (keys, ports, conditions, wheres), so that an
 * instance of one could be an instance of the other. */
int bt_def_equal(const bt_def *a, const bt_def *b);

/* Bytes that bt_inst_save writes for an instance of this definition whose string keys are unset
 * or empty (every instance of a definition without string keys); bt_inst_save_size gives an
 * instance's. 0 for NULL. */
size_t bt_inst_state_size(const bt_def *def);

/* Bytes that bt_inst_save writes for this instance: bt_inst_state_size and the bytes of its
 * strings' values. 0 for NULL. */
size_t bt_inst_save_size(const bt_inst *inst);

/* Saves the instance's whole state (statuses, last results, node memory, the force-update flag,
 * the keys' values, strings by copy) into out, which has room for bt_inst_save_size bytes. The
 * bytes are for this machine's byte order and hold no pointers. BT_EINVAL if size is too small,
 * or if a key of type BT_KEY_VALUE has a value (a binding's, which bt cannot save):
 * bt_inst_unsaveable_key names it. */
int bt_inst_save(const bt_inst *inst, void *out, size_t size);

/* The first key whose value cannot be saved (bt_inst_save, bt_inst_export): one of type
 * BT_KEY_VALUE that has a value; or -1 when every value can be (and for NULL). */
int bt_inst_unsaveable_key(const bt_inst *inst);

/* Restores a state saved by bt_inst_save from an instance of an equal definition (same
 * bt_def_hash), keys' values included; the values are not writes: the hook is told of none
 * and nothing wakes. BT_EINVAL if the bytes are not such a state (another definition's: another
 * size, shape, keys or hash; another format; a status or child index out of range, as
 * bt_node_set refuses it; a value its key cannot hold); BT_EBUSY inside a think; BT_ENOMEM
 * when a string or a Sleep deadline of a leaf that keeps it outside the instance
 * (bt_node_sleep) finds no room. A refused restore leaves the instance unchanged. */
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
 * the next think). The force-update flag carries over. Each key of `to` takes the value of the key
 * of `from` with the same name and type (strings copied; a BT_KEY_VALUE's token as it is); a key
 * `from` has not keeps its value (a new instance's are unset), and a key of `from` that `to` has
 * not is dropped. The values are not writes: the hook is told of none and nothing wakes.
 * BT_EBUSY if either instance is thinking, BT_ENOMEM (nothing changed). */
int bt_inst_transfer(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out);

/* Gives `to` the state of `from` where map matches them (map[s], for each state s of to, a state
 * of from or -1), as it is: statuses, last results, flags, deadlines, node memory, child indices
 * as the numbers they were (as Don't Starve's fields are when a children list changes under
 * them), clocks, the force-update flag, and the keys' values as bt_inst_transfer gives them;
 * nothing is set to re-evaluate, and the states of to that map leaves out keep what they hold.
 * For a tree whose children lists a script edited (the Lua binding rebuilds it: docs/lua-api.md,
 * "Live children lists"). A recorder of to gets a RELOAD record, as with bt_inst_transfer. BT_EINVAL for a NULL argument, BT_EBUSY if either instance is
 * thinking, BT_ENOMEM (nothing changed). */
int bt_inst_carry(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out);

/* ---- saved games: an agent's state as portable text, restored node by node by path ---- */

/* Appends the instance's state to out as text: the shape of its tree (each node's kind, name and
 * number of children, in pre-order), then each state's status, last result, flags and memory,
 * the force-update flag, and each key's name, type and value. Numbers are written out as text
 * (doubles as the hexadecimal digits of their IEEE 754 bits), so the text does not depend on byte
 * order, type sizes or the locale. Times are written as they are, with `now` (the host's time of
 * the save), which bt_inst_import uses to shift them. BT_EINVAL (nothing appended) if a key of
 * type BT_KEY_VALUE has a value: bt_inst_unsaveable_key names it; BT_EBUSY inside a think;
 * BT_ENOMEM. */
int bt_inst_export(const bt_inst *inst, double now, bt_buf *out);

/* A state read back from bt_inst_export's text: its shape and its states. */
typedef struct bt_saved bt_saved;

/* Reads a text written by bt_inst_export (of this version, or of the one before, which has no
 * keys). BT_EINVAL when it is not one, and err (errsize bytes) says what is wrong: "not a saved
 * tree state ...", "saved with format version N ...", "truncated: ..." or "corrupt at byte N:
 * ..."; BT_ENOMEM. */
int bt_saved_create(bt_saved **out, const void *data, size_t size, char *err, size_t errsize);
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

/* The saved keys, as bt_def_key_* and bt_inst_key_get read a definition's and an instance's:
 * their number (0 for a text of version 1, or NULL); the id of a name (BT_EINVAL for none); a
 * key's name (NULL for a bad key), type (BT_EINVAL for a bad key); its saved value: 1 and *out,
 * or 0 when it was unset (out->type BT_KEY_NONE), BT_EINVAL for a bad key or a NULL argument. A
 * string stays valid until bt_saved_free. */
int bt_saved_key_count(const bt_saved *saved);
int bt_saved_key_find(const bt_saved *saved, const char *name);
const char *bt_saved_key_name(const bt_saved *saved, int key);
int bt_saved_key_type(const bt_saved *saved, int key);
int bt_saved_key_value(const bt_saved *saved, int key, bt_value *out);

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
 * think. Each key takes the saved value of the key with its name and type; a key the text has
 * not (renamed, retyped or new since the save) is unset, as in a new instance. The values are not
 * writes: the hook is told of none and nothing wakes. Nothing is called (no on_stop, no task
 * finish). BT_EBUSY inside a think; BT_ENOMEM (the instance is then unchanged). */
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
int bt_lib_create(bt_lib **out);

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
int bt_builder_create(bt_builder **out);

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

/* ---- what made a think happen: the causes a recorder (bt_record.h) gives its think records ---- */

/* What made a think happen (bt_rec_entry.cause of a BT_REC_THINK). START and RELOAD win over
 * an event or a ForceUpdate before the think; of an event and a ForceUpdate, the later one. */
enum {
  BT_WAKE_DEADLINE = 0, /* its sleep time ran out (or it thinks every tick) */
  BT_WAKE_START = 1,    /* the first think since the recorder was attached to the instance: the
                           first it saw, or the first of another instance it was moved to */
  BT_WAKE_EVENT = 2,    /* an event was fired since the last think (bt_inst_fire_event) */
  BT_WAKE_FORCE = 3,    /* bt_inst_force_update was called since the last think */
  BT_WAKE_RELOAD = 4,   /* the first think since a reload (bt_inst_transfer, a BT_REC_RELOAD) gave
                           the instance another's state; not the first think the recorder saw */
  BT_WAKE_KEY = 5       /* a blackboard key that it watches was written since the last think
                           (bt_inst_key_set); of a key, an event and a ForceUpdate, the later one */
};
/* Returns "deadline", "start", "event", "force", "reload" or "key" ("unknown" for anything else): the
 * names bt-log, the Lua records and the viewer give the causes. */
const char *bt_wake_name(int cause);

/* ---- the blackboard: typed keys, declared once per tree, valued per agent ----
 *
 * A graph declares its keys (bt_graph_add_key); every definition made from it shares them, and
 * each instance holds a value per key, unset (nil) at first. The host and the nodes read and
 * write them (bt_inst_key_get, bt_inst_key_set). A node lists the keys it reads and writes
 * (bt_spec.ports), and bt_def_create checks them: a key read that is not declared, that no node
 * writes and the host does not provide (BT_KEY_HOST), or taken for another type, is BT_EINVAL
 * with a message that names the node, its path, where it was made and the key.
 *
 * A WatchNode (BT_WATCH) is a condition on keys that watches them: `key cmp value`, or a
 * function whose ports list the keys it reads. Visited, it fails when its condition is false,
 * else it runs its child (if it has one) and takes its status. Its abort flags say what a
 * write does while the tree runs (docs/blackboard.md has the table):
 *   BT_SPEC_ABORT_SELF   while it runs, a write that makes its condition false ends its branch
 *                        at the next think (the child is reset: a task is told BT_ABORTED);
 *   BT_SPEC_ABORT_LOWER  while it does not run, a write that makes its condition true has the
 *                        composites above it choose again at the next think, so that it runs in
 *                        place of a lower branch.
 * Either way the write clears the clock of every Priority above it, as an event does, and wakes
 * the instance. A write also wakes it when a node that reads the key is running. Any other
 * write wakes nothing: a tree that waits on keys and timers only sleeps until one of them.
 *
 * A wake outside the instance's think sets its force-update flag (its sleep time is 0) and calls
 * its waker (bt_inst_set_waker: the scheduler it thinks on); inside its own think a write is
 * seen at once by the nodes visited after it, and the wake comes when the think ends (its sleep
 * time is then 0: the next tick). */

typedef enum bt_key_type {
  BT_KEY_NONE = 0,    /* no value (nil): a bt_value's type when the key is unset */
  BT_KEY_NUMBER = 1,  /* a double */
  BT_KEY_INTEGER = 2, /* a long long */
  BT_KEY_BOOLEAN = 3,
  BT_KEY_STRING = 4,  /* text, copied */
  BT_KEY_ENTITY = 5,  /* an entity's id */
  BT_KEY_VALUE = 6,   /* a binding's value (a Lua value): the engine keeps a token of it, which it
                         cannot save */
  BT_KEY_TYPE_COUNT
} bt_key_type;

/* "nil", "number", "integer", "boolean", "string", "entity", "value" (NULL for a bad type). */
const char *bt_key_type_name(int type);

/* Flags of a key. */
#define BT_KEY_HOST 0x01 /* the host provides it (the world writes it): a read needs no writer */

/* The comparisons of a WatchNode's condition `key cmp value`. A key that is unset is equal to
 * nothing (BT_CMP_NE holds) and neither less nor greater. Numbers and integers compare with each
 * other; strings compare as strcmp; booleans, entities and values only for (in)equality. */
enum {
  BT_CMP_TRUE = 0, /* the key is set and, for a boolean, true (no value needed) */
  BT_CMP_EQ,
  BT_CMP_NE,
  BT_CMP_LT,
  BT_CMP_LE,
  BT_CMP_GT,
  BT_CMP_GE,
  BT_CMP_SET,   /* the key has a value (no value needed) */
  BT_CMP_UNSET, /* it has none (no value needed) */
  BT_CMP_COUNT
};

/* "is true", "==", "~=", "<", "<=", ">", ">=", "is set", "is not set" (NULL for a bad one). */
const char *bt_cmp_name(int cmp);

/* Declares a key of the graph: returns its id (0, 1, ... in the order of declaration) or a BT_E*
 * code. Declaring a name again with the same type and flags returns its id; with another, or an
 * empty name, a bad type or flags, BT_EINVAL (the message says which). */
int bt_graph_add_key(bt_graph *g, const char *name, int type, unsigned flags);

/* The definition's keys: their number; the id of a name (BT_EINVAL for none); a key's name,
 * type and flags (NULL, BT_EINVAL for a bad key). */
int bt_def_key_count(const bt_def *def);
int bt_def_key_find(const bt_def *def, const char *name);
const char *bt_def_key_name(const bt_def *def, int key);
int bt_def_key_type(const bt_def *def, int key);
int bt_def_key_flags(const bt_def *def, int key);

/* The node's ports: their number, and the i-th's key id and BT_PORT_* into *key and *how
 * (BT_EINVAL for a bad node or i). A WatchNode's condition on a key is a read port of it. */
int bt_def_port_count(const bt_def *def, int node);
int bt_def_port(const bt_def *def, int node, int i, int *key, unsigned *how);

/* Where the node was made (bt_spec.where), or NULL. */
const char *bt_def_where(const bt_def *def, int node);

/* Reads a key: returns 1 and its value in *out, or 0 when it is unset (out->type BT_KEY_NONE);
 * BT_EINVAL for a bad key. A string stays valid until the key is written again. */
int bt_inst_key_get(const bt_inst *inst, int key, bt_value *out);

/* Writes a key (value NULL, or of type BT_KEY_NONE: unsets it). A value equal to the key's is
 * no write: nothing is told and nothing wakes. Otherwise the hook is told (BT_HOOK_KEY) and the
 * watchers of the key wake the instance, as the section's comment says. BT_EINVAL for a bad key
 * or a value of another type than the key's (an integer key takes no number, a number key no
 * integer: the caller converts), BT_ENOMEM (a string that finds no room; the key keeps its value). */
int bt_inst_key_set(bt_inst *inst, int key, const bt_value *value);

/* What the instance calls when a write outside its think wakes it: fn(ud, inst) (fn NULL:
 * nothing). A scheduler sets it for the instances it thinks (bt_sched_set_inst). BT_EINVAL for a
 * NULL inst, BT_ENOMEM. */
typedef void (*bt_waker_fn)(void *ud, bt_inst *inst);
int bt_inst_set_waker(bt_inst *inst, bt_waker_fn fn, void *ud);

/* ---- deprecated names ----
 * What these functions were called before 0.3 (CHANGELOG.md, "Renamed"): bt makes with _create
 * and frees with _free everywhere. The old names stay as aliases for a while; new code should
 * not use them. */
#define bt_graph_new   bt_graph_create
#define bt_lib_new     bt_lib_create
#define bt_builder_new bt_builder_create
#define bt_saved_open  bt_saved_create

#ifdef __cplusplus
}
#endif

#endif
