/* SPDX-License-Identifier: MIT */
/*
 * internal.h: the core's data layout and the functions its files share, and nothing else uses.
 * Every name here carries the prefix bti_ (or is a macro of this header) and is hidden: the
 * libraries export only what bt.h declares.
 */
#ifndef BT_INTERNAL_H
#define BT_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "bt_core.h"

/* Declares a function or object shared by the core's files, invisible outside the library. */
#if defined(__GNUC__) && !defined(_WIN32) /* PE has no hidden names */
#define BTI_FUNC __attribute__((visibility("hidden"))) extern
#else
#define BTI_FUNC extern
#endif

/* Keeps a function out of line (a cold path), so that its caller stays small. */
#if defined(__GNUC__)
#define BTI_NOINLINE __attribute__((noinline))
#else
#define BTI_NOINLINE
#endif

/* bt_node.flags */
#define NF_LEAF 0x01      /* no children list: Don't Starve's `not self.children` */
#define NF_NIL_PARAM 0x02 /* param is nil */
#define NF_PARAM_FN 0x04  /* the param is a time function's (fn) */
#define NF_NOSCATTER 0x08 /* no random first evaluation time */
#define NF_SUCCESS_ONE 0x10 /* one child's success is enough */
#define NF_FAILURE_ALL 0x20 /* it fails when every child failed */
#define NF_ABORT_SELF 0x40  /* a watching node's BT_SPEC_ABORT_SELF */
#define NF_ABORT_LOWER 0x80 /* a watching node's BT_SPEC_ABORT_LOWER */

#define NO_SLOT UINT32_MAX

/* bt_node.hooks: which of the node's bt_ops a think must call (ops set and the method given) */
#define HOOK_VISIT 0x01
#define HOOK_RESET 0x02
#define HOOK_STEP 0x04
/* Not a bt_ops method: the definition was compiled with its fast paths off (bt_def.fast_paths
 * 0). The node then counts as one whose Reset or Step is the host's (has_own_reset), which is
 * what turns the shape-chosen resets off: its kind's own Reset and Step run (reset_kind,
 * step_kind) instead of reset_plain and reset_walk, no Step is skipped (plain_step 0, so
 * `settled` is never set), and its touched bit is never cleared, so that Reset and Step go to
 * every child as Don't Starve's do. */
#define HOOK_REFERENCE 0x08

/* One node of a definition, in pre-order. */
typedef struct bt_node {
  uint8_t kind;
  uint8_t flags;
  uint8_t hooks;
  uint32_t state;     /* state slot */
  uint32_t nchildren;
  uint32_t children;  /* offset of the children's indices in bt_def.kids */
  uint32_t end;       /* one past the last node of its subtree */
  uint32_t sib;       /* its index among its pre-order parent's children */
  int32_t up;         /* pre-order parent, -1 for the root */
  uint32_t depth;
  uint32_t name;      /* offset in bt_def.names */
  uint32_t mem;       /* offset of its state's kind memory in the instance */
  uint32_t soff, foff; /* offsets of its state's status and flags in the instance */
  /* The offset of its state's chunk's touched word, and its state's bit in it and in the dirty
   * word, the 8 bytes before; a tree of one chunk keeps no dirty word (SaveStatus copies its
   * statuses whole), and has no summaries: there sum is 0, and marking a node dirty changes no
   * bit. */
  uint32_t touched;
  uint64_t mask;
  uint32_t sums;      /* bt_def.sums_off: the dirty summary, then the touched one */
  uint64_t sum;       /* the bit of those words in the summaries (0 without summaries) */
  uint64_t sum_clear; /* sum, if a zero word clears it (one word per summary bit), else 0 */
  /* What its kind's Reset puts back in its memory (bti_rewind's writes, worked out once): the
   * child indices and counters at these offsets get these values. */
  uint8_t rewinds;
  uint8_t rewind_off[2], rewind_val[2];
  double param;
  bt_fn fn, fn2;
  void *ud, *ud2;
  const bt_ops *ops;
  void *ops_ud;
  const bt_task *task;
} bt_node;

/* One state slot: a graph node reachable from the root. */
typedef struct bt_state {
  uint32_t node;  /* first pre-order index using it */
  int32_t parent; /* state of Don't Starve's `parent`, -1 if none in the tree */
  int32_t graph;  /* graph id */
  uint32_t mem;   /* offset of the kind's memory in the instance */
  uint32_t nut;   /* offset of nextupdatetime in the instance, or NO_SLOT */
  uint32_t spill; /* a leaf that keeps no deadline in the instance (its kind's BTI_SPILL_DEADLINE):
                     the index of its deadline in bti_ext.deadlines, else NO_SLOT */
  uint32_t soff, foff; /* offsets of its status and of its flags (its last result in their bits 0-1) */
  uint32_t pmem, pnut;       /* mem and nut in a saved state's packed memory */
} bt_state;

struct bt_def {
  atomic_int refs; /* instances and hosts on any thread retain and release it (C11 atomics) */
  uint32_t nnodes, nstates;
  bt_node *nodes;
  uint32_t *kids;
  char *names;
  bt_state *states;
  uint32_t *scatter; /* the states that draw a first evaluation time, in graph-id order */
  uint32_t nscatter;
  uint32_t nwords;   /* 64-bit words of one per-state bit set, and chunks of 64 states */
  uint32_t *chunks;  /* offset in the instance of each chunk's touched word (layout_memory); its
                        dirty word, in a tree of several chunks, is the 8 bytes before */
  uint8_t sum_shift; /* a bit of a summary word stands for 1 << sum_shift words of its bit set */
  int unshared;      /* every state is at one place, so state == pre-order index */
  int plain_step;    /* no node has a Reset or Step of the host's (bt_inst.settled applies) */
  int walk_reset;    /* plain_step, and no task (whose abort calls the host): nodes.c's reset_walk */
  int small_plain;   /* one chunk, no bt_ops at all, and only kinds that bti_kind.small marks: a
                        think runs nodes.c's bti_think_small */
  /* 1, unless the environment had BT_NO_FAST_PATHS set (not "" nor "0") when it was compiled
   * (graph.c's fast_paths_wanted): then the think takes the reference way only, as docs/internals.md "Fast
   * paths" lists: small_plain, plain_step and walk_reset 0, every node HOOK_REFERENCE,
   * scan_children none, and SaveStatus walks the whole tree. */
  int fast_paths;
  /* Children a node must have more than for Reset and Step to find its touched ones a word of
   * bits at a time (nodes.c's scan_touched_from): SCAN_CHILDREN in a tree without shared nodes
   * (unshared) when fast_paths, else UINT32_MAX (never). */
  uint32_t scan_children;
  uint32_t nspill;   /* states whose deadline is spilled (bt_state.spill) */
  size_t mem_size;   /* bytes of the node memory of a saved state */
  size_t inst_size;  /* bytes of one instance, header included */
  /* Offsets in an instance of the summaries (dirty's, then touched's; 0 in a tree of one chunk,
   * which has none: every summary bit is 0), and of the random
   * generator (0: none; only trees with Priorities or RandomNodes have one). */
  uint32_t sums_off, rng_off;
  unsigned char *image; /* a new instance, inst_size bytes: bt_inst_init copies it */
  /* Where each state came from, for a definition built with a library (subtree.c): the offset in
   * origin_names of the library tree's name (NO_SLOT: the graph it was built from) and the id of
   * the node in the graph given to bt_lib_set. NULL when nothing came from a library. */
  uint32_t *origin_name, *origin_id;
  char *origin_names;
  /* The blackboard (board.c): the keys, their values' offset in an instance (nkeys bti_value_slot),
   * the nodes' ports (node n's are ports[port_first[n]] up to port_first[n + 1]; NULL when no
   * node has any), where each node was made (NULL: nowhere given), the watching nodes' conditions
   * (a node's bt_node.ud2), and per key the states that read it (readers[keys[k].readers] on). */
  uint32_t nkeys;
  struct bti_key *keys;
  uint32_t board_off;
  bt_port *ports;
  int *port_keys;
  uint32_t *port_first;
  const char **wheres;
  struct bti_watch *watches;
  uint32_t *readers;
  char *board_text; /* the keys' names, the wheres and the conditions' strings */
  bt_def_watch_fn watch;     /* bt_def_set_watcher's: called for each new instance */
  void *watch_ud;
  void (*watch_free)(void *ud);
};

/* Children a node has before finding its touched ones a word of bits at a time pays (nodes.c's
 * scans; bt_def.scan_children). */
#define SCAN_CHILDREN 16

/* ---- the kinds (kinds.c) ---- */

/* The shapes of kind memory (kinds.c says which kind has which). */
typedef struct mem_idx { uint32_t idx; } mem_idx;               /* a child index */
typedef struct mem_seq { uint32_t idx, rep; } mem_seq;           /* a child index and passes */
typedef struct mem_prio { double lasttime; uint32_t idx; } mem_prio; /* a clock and a child */
typedef struct mem_wait { double wake; } mem_wait;                  /* a time to wait for */
typedef struct mem_latch { double last, dur; } mem_latch;           /* a time and a duration */

/* How many children a kind takes. */
enum {
  BTI_LEAF,        /* none */
  BTI_OPTIONAL,    /* a leaf unless its spec has BT_SPEC_CHILDREN; then any number */
  BTI_ANY,         /* any number (the builder asks for one at least) */
  BTI_SOME,        /* one at least */
  BTI_ONE,         /* exactly one */
  BTI_AT_MOST_ONE, /* none or one */
  BTI_NAMED        /* a leaf naming a library tree, which becomes its one child */
};

/* Where a kind keeps its Sleep deadline (nextupdatetime). */
enum {
  BTI_NO_DEADLINE,   /* none: Sleep does nothing (the kind's sleep time is always nil) */
  BTI_OWN_DEADLINE,  /* 8 bytes in the instance: the kind sleeps by itself (Wait, a task) */
  BTI_SPILL_DEADLINE /* outside the instance, in its bti_ext, made at the first Sleep: the kind
                        never sleeps by itself in Don't Starve, only a script can make it */
};

/* What a kind's param is. */
enum {
  BTI_NO_PARAM,
  BTI_DEFAULT, /* a number; nil stands for the kind's nil_param */
  BTI_FOREVER, /* a number of passes; nil: for ever */
  BTI_TIMES,   /* a number of passes, at least 1; nil: for ever */
  BTI_SECONDS, /* a number of seconds, required */
  BTI_TIME_FN  /* seconds, or a time function (BT_SPEC_PARAM_FN) */
};

/* The functions a kind's spec must have. */
enum { BTI_NO_FN, BTI_FN, BTI_FN2, BTI_TASK };

/* How a field lives in the kind's memory. */
enum {
  BTI_INDEX,     /* a child index, 1-based, never nil: 1 when rewound */
  BTI_INDEX_NIL, /* a child index or nil (0), checked when it is used */
  BTI_CHILD,     /* nil (0) or the index of one of the node's children */
  BTI_COUNTER,   /* passes done, 0 when rewound */
  BTI_TIME,      /* a time, nil while its flag is clear */
  BTI_CLOCK,     /* a time the node is evaluated by, nil while its flag is clear; cleared to have
                    it evaluate at once */
  BTI_NUMBER,    /* a number, never nil, `init` before the first think */
  BTI_FLAG       /* a flag bit */
};

typedef struct bti_field {
  uint8_t id;   /* BT_FIELD_* */
  uint8_t type;
  uint8_t flag; /* TIME, CLOCK: the SF_* bit that says it is set; FLAG: the bit itself */
  uint16_t off; /* offset in the kind's memory */
  double init;  /* NUMBER: its value in a new instance */
} bti_field;

#define BTI_MAX_FIELDS 2

/* One kind: everything the core and the binding ask of it but how its nodes behave (nodes.c). */
typedef struct bti_kind {
  bt_kind_info info;
  uint8_t children;  /* BTI_LEAF ... */
  uint8_t mem_size;  /* bytes of its memory: its doubles first, then its 32-bit words */
  /* What its memory holds, for saved states (save.c): bit i of mem_times set if its double i is a
   * time (shifted when a saved state is restored at another time), of mem_doubles if it is
   * another number; then mem_words child indices and counters. */
  uint8_t mem_times, mem_doubles, mem_words;
  uint8_t deadline;  /* its Sleep deadline (nextupdatetime): BTI_NO_DEADLINE ... */
  uint8_t param;     /* BTI_NO_PARAM ... */
  uint8_t fn;        /* BTI_NO_FN ... */
  uint8_t scatters;  /* a new instance draws its first evaluation time */
  uint8_t draws;     /* its visits draw random numbers: the instance has a generator (graph.c) */
  uint8_t small;     /* nodes.c's bti_think_small visits it (graph.c: small_plain) */
  uint8_t policies;  /* its spec's BT_SPEC_SUCCESS_ONE and BT_SPEC_FAILURE_ALL say when it ends */
  uint8_t nfields;
  double nil_param;  /* BTI_DEFAULT: the param when it is nil */
  const char *param_name; /* the default name when the param is a number, a format of it */
  const char *param_format; /* its param shown (bt_kind_param_format); NULL: it takes none */
  bti_field fields[BTI_MAX_FIELDS];
} bti_kind;

BTI_FUNC const bti_kind bti_kinds[BT_KIND_COUNT];

/* The kind's field id, or NULL if it has none such. */
BTI_FUNC const bti_field *bti_field_of(int kind, int field);

/* "a" or "an", for a message naming the kind. */
BTI_FUNC const char *bti_article(int kind);

/* What a node of spec lacks of the functions its kind needs (none when its own ops->visit does
 * without them), for a message: "its function", "its start function", "its continue function",
 * "its time function", "its bt_task"; NULL if it lacks nothing. spec's kind must be valid. */
BTI_FUNC const char *bti_spec_lacks(const bt_spec *spec);

/* The value a child index or counter has when rewound: 1 for BTI_INDEX, else 0 (nil). */
static inline uint32_t bti_rewound(const bti_field *f) { return f->type == BTI_INDEX; }

static inline int bti_is_index(const bti_field *f) {
  return f->type == BTI_INDEX || f->type == BTI_INDEX_NIL || f->type == BTI_CHILD;
}

/* ---- the blackboard (board.c) ---- */

typedef struct bti_graph_key { char *name; int type; unsigned flags; } bti_graph_key;

typedef struct bti_key {
  const char *name;
  uint8_t type, flags;
  uint32_t readers, nreaders; /* the states that read it: bt_def.readers[readers] on */
} bti_key;

/* A watching node's condition: key cmp value, or (key -1) its fn. */
typedef struct bti_watch {
  int key;
  int cmp;
  bt_value value;
} bti_watch;

/* One key's value in an instance: a string is a copy the instance owns (freed by bt_inst_fini). */
typedef struct bti_value_slot {
  union {
    double number;
    long long integer;
    int boolean;
    char *string;
    unsigned long long id;
  } v;
  uint8_t type; /* BT_KEY_NONE while unset */
} bti_value_slot;

/* graph.c: the keys a graph declares; keys.c: */
BTI_FUNC const bti_graph_key *bti_graph_keys(const bt_graph *g, int *count);
/* Resolves and checks the ports of def's nodes against g's keys (bt_def_create, after emit). */
BTI_FUNC int bti_board_build(bt_def *def, bt_graph *g);
BTI_FUNC void bti_board_free(bt_def *def);
/* Whether the blackboards of a and b, whose nodes are equal, are: keys, ports, wheres and the
 * WatchNodes' conditions (bt_def_equal). */
BTI_FUNC int bti_board_equal(const bt_def *a, const bt_def *b);
/* What bt_def_spec adds of the blackboard: ports, where, key, cmp, value. */
BTI_FUNC void bti_board_spec(const bt_def *def, int node, bt_spec *out);
/* Frees an instance's strings (bt_inst_fini). */
BTI_FUNC void bti_board_fini(bt_inst *in);
/* A watching node's condition now: 1 true, 0 false. */
static inline int watches(int kind) { return (bti_kinds[kind].info.flags & BT_KIND_WATCHES) != 0; }
BTI_FUNC int bti_watch_holds(bt_inst *in, int node);

/* ---- an instance ---- */

/* Per-state flag bits in the instance. Bits 0-1 hold the state's last result (a bt_status,
 * 0-3): SaveStatus writes them, nothing else in a think reads them. */
#define SF_LAST 0x03      /* the last result */
#define SF_NUT 0x04       /* nextupdatetime is set */
#define SF_LASTTIME 0x08  /* lasttime, a clock, is set */
#define SF_TRIGGERED 0x10 /* an event fired for the node */
#define SF_RUNNING 0x20   /* a two-condition node runs on its second condition */
#define SF_WAKE 0x40      /* the time in a mem_wait is set */
#define SF_STARTED 0x80   /* a run is under way (started, not yet finished) */
/* Saved states (save.c, bt_inst_save) write the flags as they were before the last result joined
 * them, one bit lower: SF_NUT as 0x02 ... SF_STARTED as 0x40. */
#define SF_SAVED_SHIFT 1

/* An instance: this header, then (layout_memory in graph.c) the summaries of the bit sets of a
 * tree of several chunks, the random generator of a tree that draws random numbers, and the
 * chunks of its states. 32 bytes, so that a small tree's instance is small. */
struct bt_inst {
  bt_def *def;
  const bt_host *host;
  void *agent;
  uint32_t hint; /* the last node the last think visited: the end of its running path */
  uint8_t thinking;
  uint8_t forceupdate : 1;
  uint8_t exact : 1; /* BT_INST_EXACT: Don't Starve's sleep of a Wait (a bit: the header stays 32 bytes) */
  uint8_t hooked : 1;    /* a hook is attached (bt_inst_set_hook): it is told every status change */
  uint8_t kept : 1;      /* hooked: the sleep time the last think ended with is kept (bti_ext), and
                            nothing changed since (every write outside a think clears it) */
  uint8_t extended : 1;  /* agent points to a bti_ext, which holds the agent */
  uint8_t woken : 1;     /* a write inside its think woke it: the think's end sets forceupdate */
  /* The last Step left nothing for the next one to do but walk the running path: set after a
   * Step of a tree whose nodes all have the kinds' own Reset and Step, cleared by any change of a
   * status, a touched bit, an event trigger or a field. Update skips Step while it is set. */
  uint8_t settled;
  uint8_t unsaved; /* a dirty bit may be set: the next SaveStatus has statuses to copy */
};
/* What an instance keeps outside its bytes, when it needs it: its hook, and the Sleep
 * deadlines of the leaves that keep none in the instance (bt_state.spill). Made at its first need
 * and freed by bt_inst_fini, it takes the place of the agent pointer (bt_inst.extended), so that
 * an instance without one pays nothing for it. */
typedef struct bti_ext {
  void *agent;      /* the host's agent */
  bt_hook_fn hook;  /* bt_inst_set_hook's, NULL if none */
  void *hook_ud;
  /* A hooked instance's sleep time at its last think's end, and the clock then: its sleep time
   * while bt_inst.kept is set and the clock has not moved (bt_inst_sleep_time) */
  int kept_has;
  double kept_sleep, kept_now;
  double *deadlines; /* bt_def.nspill deadlines, each valid while its state's SF_NUT is set; NULL
                        until one is set */
  bt_waker_fn waker; /* bt_inst_set_waker's */
  void *waker_ud;
} bti_ext;

static inline bti_ext *ext_of(const bt_inst *in) { return in->extended ? (bti_ext *)in->agent : NULL; }

/* The summaries of the bit sets by state (dirty: the status changed since the last SaveStatus;
 * touched: the state may differ from what Reset leaves (READY, child index rewound, no
 * trigger), or the node has a Reset or Step of the host's; a node whose bit is clear needs no
 * Reset and no Step). Bit b clear means words b << sum_shift up to the next group's are all
 * zero (a set bit may cover zero words), so that SaveStatus and the scans for touched nodes of
 * a large tree read the words that have bits, not all of them. A tree of one chunk has no
 * summaries and no dirty word: its sum bits and dirty masks are all 0, and the words they would
 * be written to are its touched word. */

/* The instance's bytes: the base of the offsets of bt_state and bt_node. */
static inline unsigned char *inst_mem(const bt_inst *in) { return (unsigned char *)(uintptr_t)in; }

/* Key k's value in the instance (board.c reads and writes them). */
static inline bti_value_slot *key_slot(const bt_inst *in, uint32_t k) {
  return (bti_value_slot *)(void *)(inst_mem(in) + in->def->board_off) + k;
}

/* A state's status, flags and last result, and the words of the bit sets, in their chunks. */
static inline uint8_t *status_at(const bt_inst *in, uint32_t st) { return inst_mem(in) + in->def->states[st].soff; }
static inline uint8_t *flags_at(const bt_inst *in, uint32_t st) { return inst_mem(in) + in->def->states[st].foff; }
static inline uint8_t last_of(const bt_inst *in, uint32_t st) { return *flags_at(in, st) & SF_LAST; }
static inline void set_last(bt_inst *in, uint32_t st, uint8_t v) {
  uint8_t *f = flags_at(in, st);
  *f = (uint8_t)((*f & ~SF_LAST) | (v & SF_LAST));
}
#define INST_HEADER_SIZE ((sizeof(bt_inst) + 7) & ~(size_t)7)
static inline uint64_t *touched_word(const bt_inst *in, uint32_t w) {
  return (uint64_t *)(void *)(inst_mem(in) + in->def->chunks[w]);
}
/* Only in a tree of several chunks (nwords > 1): */
static inline uint64_t *dirty_word(const bt_inst *in, uint32_t w) { return touched_word(in, w) - 1; }
static inline uint64_t *dirty_sum(const bt_inst *in) {
  return (uint64_t *)(void *)(inst_mem(in) + in->def->sums_off);
}
static inline uint64_t *touched_sum(const bt_inst *in) { return dirty_sum(in) + 1; }
static inline int touched_bit(const bt_inst *in, uint32_t st) {
  return (int)(*touched_word(in, st >> 6) >> (st & 63) & 1);
}
static inline uint64_t sum_bit(const bt_inst *in, uint32_t st) {
  return in->def->nwords > 1 ? (uint64_t)1 << ((st >> 6) >> in->def->sum_shift) : 0;
}

/* ---- the hook (inst.c) ---- */
/* BT_HOOKS 0 (cmake -DBT_RECORDER=OFF) compiles it out: no test of `hooked` anywhere. */
#ifndef BT_HOOKS
#define BT_HOOKS 1
#endif
BTI_FUNC void bti_hook_status(bt_inst *in, const bt_node *d, int from, int to);
BTI_FUNC int bti_hook_send(bt_inst *in, bt_hook_what what, int node); /* a message of a node or none */
BTI_FUNC void bti_hook_reload(bt_inst *in, const bt_def *from);

/* A chunk's statuses, k of them, into the last results in its flags: 8 at a time (SaveStatus) */
static inline void bti_save_chunk(unsigned char *status, uint32_t k) {
  unsigned char *flags = status + k;
  const uint64_t last = 0x0303030303030303ULL;
  uint32_t i = 0;
  for (; i + 8 <= k; i += 8) {
    uint64_t s, f;
    memcpy(&s, status + i, 8);
    memcpy(&f, flags + i, 8);
    f = (f & ~last) | s; /* a status is 0-3 */
    memcpy(flags + i, &f, 8);
  }
  for (; i < k; i++) flags[i] = (unsigned char)((flags[i] & ~SF_LAST) | status[i]);
}

#if BT_HOOKS
#define BTI_HOOKED(in) __builtin_expect((in)->hooked, 0)
#else
#define BTI_HOOKED(in) 0
#endif
/* Every write outside a think that may change the tree's sleep time: the kept one is no more. */
static inline void forget_sleep(bt_inst *in) { in->kept = 0; }

/* Every write of a status goes through here or tests BTI_HOOKED itself: tells the hook if it changes. */
static inline void hook_status(bt_inst *in, const bt_node *d, int from, int to) {
  if (BTI_HOOKED(in) && from != to) bti_hook_status(in, d, from, to);
}

/* Marks state st touched. */
static inline void touch(bt_inst *in, uint32_t st) {
  uint64_t *w = touched_word(in, st >> 6), m = (uint64_t)1 << (st & 63);
  if (*w & m) return;
  *w |= m;
  if (in->def->nwords > 1) *touched_sum(in) |= sum_bit(in, st);
  in->settled = 0;
}

/* Clears state st's touched bit. */
static inline void untouch(bt_inst *in, uint32_t st) {
  uint64_t *w = touched_word(in, st >> 6);
  *w &= ~((uint64_t)1 << (st & 63));
  if (!*w && !in->def->sum_shift && in->def->nwords > 1) *touched_sum(in) &= ~sum_bit(in, st);
}

/* Marks state st's status changed since the last SaveStatus. */
static inline void mark_dirty(bt_inst *in, uint32_t st) {
  if (in->def->nwords > 1) {
    *dirty_word(in, st >> 6) |= (uint64_t)1 << (st & 63);
    *dirty_sum(in) |= sum_bit(in, st);
  }
  in->unsaved = 1;
}

/* The same for the state of node d, with the words and bits the definition worked out for it. */
static inline uint64_t *word_at(const bt_inst *in, uint32_t off) {
  return (uint64_t *)(void *)(inst_mem(in) + off);
}
static inline int node_touched(const bt_inst *in, const bt_node *d) {
  return (*word_at(in, d->touched) & d->mask) != 0;
}
static inline void touch_node(bt_inst *in, const bt_node *d) {
  uint64_t *w = word_at(in, d->touched);
  if (*w & d->mask) return;
  *w |= d->mask;
  if (d->sum) *word_at(in, d->sums + 8) |= d->sum; /* (a tree of one chunk has no summaries) */
  in->settled = 0;
}
static inline void untouch_node(bt_inst *in, const bt_node *d) {
  uint64_t *w = word_at(in, d->touched);
  *w &= ~d->mask;
  if (!*w && d->sum_clear) *word_at(in, d->sums + 8) &= ~d->sum_clear;
}
static inline void mark_dirty_node(bt_inst *in, const bt_node *d) {
  if (d->sum) { /* (a tree of one chunk has no dirty word) */
    *word_at(in, d->touched - 8) |= d->mask;
    *word_at(in, d->sums) |= d->sum;
  }
  in->unsaved = 1;
}

static inline const bt_node *node_at(const bt_inst *in, int n) { return &in->def->nodes[n]; }
static inline uint32_t state_of(const bt_inst *in, int n) { return in->def->nodes[n].state; }
static inline int child_at(const bt_inst *in, int n, uint32_t i) {
  return (int)in->def->kids[in->def->nodes[n].children + i];
}
static inline bt_status status_of(const bt_inst *in, int n) {
  return (bt_status)inst_mem(in)[in->def->nodes[n].soff];
}
static inline void *mem_of(const bt_inst *in, int n) { return inst_mem(in) + in->def->nodes[n].mem; }
static inline uint8_t *flags_of(const bt_inst *in, int n) { return inst_mem(in) + in->def->nodes[n].foff; }
static inline int is_leaf(const bt_inst *in, int n) { return in->def->nodes[n].flags & NF_LEAF; }
/* A node whose Reset or Step is the host's: the core cannot tell that they would change nothing.
 * (Every node of a definition compiled with its fast paths off: HOOK_REFERENCE.) */
static inline int has_own_reset(const bt_node *d) {
  return d->hooks & (HOOK_RESET | HOOK_STEP | HOOK_REFERENCE);
}

/* The kind of state st, and the memory of its field f. */
static inline const bti_kind *kind_of_state(const bt_inst *in, uint32_t st) {
  return &bti_kinds[in->def->nodes[in->def->states[st].node].kind];
}
static inline unsigned char *field_at(const bt_inst *in, uint32_t st, const bti_field *f) {
  return inst_mem(in) + in->def->states[st].mem + f->off;
}

/* A child index or counter in kind memory, which need not be aligned for it. */
static inline uint32_t get_u32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }

/* Puts state st's child indices and counters (its kind k's) back where Reset leaves them. */
static inline void bti_rewind(bt_inst *in, uint32_t st, const bti_kind *k) {
  for (int i = 0; i < k->nfields; i++) {
    const bti_field *f = &k->fields[i];
    if (bti_is_index(f) || f->type == BTI_COUNTER) put_u32(field_at(in, st, f), bti_rewound(f));
  }
}

/* Whether v can be the node's child index in field f: a BTI_CHILD names one of its children; a
 * BTI_INDEX may also be one past the last (done), but not 0; a BTI_INDEX_NIL is checked when the
 * node visits. */
static inline int bti_index_ok(const bt_def *d, int n, const bti_field *f, uint32_t v) {
  switch (f->type) {
    case BTI_CHILD: return v >= 1 && v <= d->nodes[n].nchildren;
    case BTI_INDEX: return v >= 1;
    default: return 1;
  }
}

/* fields.c */
BTI_FUNC bti_ext *bti_ext_get(bt_inst *in); /* the instance's bti_ext, made if need be; NULL: out of memory */
BTI_FUNC void bti_ext_free(bt_inst *in);    /* gives the agent back its place and frees the bti_ext */
/* State st's Sleep deadline: 1 and *out, or 0 if it has none (nil). */
BTI_FUNC int bti_deadline_get(const bt_inst *in, uint32_t st, double *out);
/* Sets state st's Sleep deadline (NULL: nil). BT_EINVAL if its node keeps none, BT_ENOMEM when a
 * spilled one finds no room (bti_deadline_reserve beforehand makes it never fail). */
BTI_FUNC int bti_deadline_set(bt_inst *in, uint32_t st, const double *t);
/* Makes room for every spilled deadline of the instance: BT_OK or BT_ENOMEM. */
BTI_FUNC int bti_deadline_reserve(bt_inst *in);
/* Whether state st has a Sleep deadline, in the instance or spilled. */
static inline int bti_has_deadline(const bt_def *d, uint32_t st) {
  return d->states[st].nut != NO_SLOT || d->states[st].spill != NO_SLOT;
}
/* Clears state st's clock (its kind's BTI_CLOCK field), so that it evaluates at its next visit. */
BTI_FUNC void bti_clear_clock(bt_inst *in, uint32_t st);
BTI_FUNC void bti_mark_touched(bt_inst *in); /* after the state was written wholesale */
/* Inside a think, gives every state that differs from what Reset leaves its touched bit. */
BTI_FUNC void bti_touch_unclean(bt_inst *in);
/* Makes def->image, a new instance's bytes but its header's pointers (after layout_memory). */
BTI_FUNC int bti_make_image(bt_def *def);

/* inst.c */
BTI_FUNC double bti_now(bt_inst *in);
BTI_FUNC int bti_random_int(bt_inst *in, int n, int *out);
BTI_FUNC double bti_random(bt_inst *in);

/* transfer.c: bt_inst_transfer, and the ways it may go (how): BTI_KEEP_CLOCKS keeps every clock
 * (save.c restores that way a state saved from the same shape); BTI_AS_IS also keeps child
 * indices as the numbers they were and sets nothing to re-evaluate (bt_inst_carry) */
enum { BTI_KEEP_CLOCKS = 1, BTI_AS_IS = 2 };
BTI_FUNC int bti_transfer(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out, int how);

/* nodes.c */
BTI_FUNC void bti_scatter(bt_inst *in); /* each scattering node draws its first evaluation time */
/* A think's visit, SaveStatus and step of a small_plain tree: bt_inst_update's between its
 * bookkeeping */
BTI_FUNC void bti_think_small(bt_inst *in);

/* graph.c: a graph's nodes, for subtree.c and builder.c (ids must be valid) */
BTI_FUNC int bti_graph_count(const bt_graph *g);
BTI_FUNC const bt_spec *bti_graph_spec(const bt_graph *g, int id); /* name is the graph's copy */
BTI_FUNC int bti_graph_nkids(const bt_graph *g, int id);
BTI_FUNC const int *bti_graph_kids(const bt_graph *g, int id);
BTI_FUNC int bti_graph_parent(const bt_graph *g, int id);
BTI_FUNC int bti_graph_fail(bt_graph *g, int code, const char *msg); /* sets the message; returns code */

/* text.c */
/* Formats the message into msg (size bytes) and returns code: the error of a handle that keeps
 * its last message (a graph, a library, a builder). */
BTI_FUNC int bti_fail(char *msg, size_t size, int code, const char *fmt, ...)
    BT_PRINTF_CHECK(4, 5)
    ;

/* mem.c */
BTI_FUNC char *bti_strdup(const char *s); /* a malloc'd copy, NULL when out of memory */
/* Makes room for need elements of elem bytes in the array *p of *cap, doubling it. */
BTI_FUNC int bti_grow(void **p, int *cap, int need, size_t elem);

#endif
