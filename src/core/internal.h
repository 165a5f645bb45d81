/* internal.h: the core's data layout, shared by its files and by nothing else. */
#ifndef BT_INTERNAL_H
#define BT_INTERNAL_H

#include <stdint.h>

#include "bt.h"

/* bt_node.flags */
#define NF_LEAF 0x01      /* no children list: Don't Starve's `not self.children` */
#define NF_NIL_PARAM 0x02 /* param is nil */
#define NF_PARAM_FN 0x04  /* Wait/Latch time from fn */
#define NF_NOSCATTER 0x08 /* Priority without a random first evaluation */
#define NF_SUCCESS_ONE 0x10 /* PolicyParallel: one child's success is enough */
#define NF_FAILURE_ALL 0x20 /* PolicyParallel: it fails when every child failed */

#define NO_SLOT UINT32_MAX

/* bt_node.hooks: which of the node's bt_ops a think must call (ops set and the method given) */
#define HOOK_VISIT 0x01
#define HOOK_RESET 0x02
#define HOOK_STEP 0x04

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
  uint32_t soff, foff, loff; /* offsets of its status, flags and last result in the instance */
  uint32_t pmem, pnut;       /* mem and nut in a saved state's packed memory */
} bt_state;

struct bt_def {
  int refs;
  uint32_t nnodes, nstates;
  bt_node *nodes;
  uint32_t *kids;
  char *names;
  bt_state *states;
  uint32_t *scatter; /* Priority states in graph-id order */
  uint32_t nscatter;
  uint32_t nwords;   /* 64-bit words of one per-state bit set, and chunks of 64 states */
  uint32_t *chunks;  /* offset in the instance of each chunk (layout_memory) */
  uint8_t sum_shift; /* a bit of a summary word stands for 1 << sum_shift words of its bit set */
  int unshared;      /* every state is at one place, so state == pre-order index */
  int plain_step;    /* no node has a Reset or Step of the host's (bt_inst.settled applies) */
  size_t mem_size;   /* bytes of the node memory of a saved state */
  size_t inst_size;  /* bytes of one instance, header included */
};

/* Kind memory. */
typedef struct mem_seq { uint32_t idx, rep; } mem_seq; /* Sequence, Selector, Loop, Random */
typedef struct mem_prio { double lasttime; uint32_t idx; } mem_prio;
typedef struct mem_wait { double wake; } mem_wait;
typedef struct mem_latch { double last, dur; } mem_latch;

/* Per-state flag bits in the instance. */
#define SF_NUT 0x02       /* nextupdatetime is set */
#define SF_LASTTIME 0x04  /* Priority lasttime is set */
#define SF_TRIGGERED 0x08 /* Event triggered */
#define SF_RUNNING 0x10   /* MultiCondition running */
#define SF_WAKE 0x20      /* Wait wake_time is set */
#define SF_STARTED 0x40   /* Task: a run is under way (started, not yet finished) */

/* An instance: this header, then the chunks of its states (layout_memory in graph.c). The first
 * cache line holds what a think reads before anything else. */
struct bt_inst {
  bt_def *def;
  const bt_host *host;
  void *agent;
  unsigned char *mem; /* the instance itself: the base of the offsets of bt_state and bt_node */
  uint32_t hint; /* the last node the last think visited: the end of its running path */
  uint16_t thinking;
  uint8_t forceupdate;
  /* The last Step left nothing for the next one to do but walk the running path: set after a
   * Step of a tree whose nodes all have the kinds' own Reset and Step, cleared by any change of a
   * status, a touched bit, an Event trigger or a field. Update skips Step while it is set. */
  uint8_t settled;
  uint8_t unsaved; /* a dirty bit may be set: the next SaveStatus has statuses to copy */
  uint8_t sum_shift; /* the definition's, next to the summaries */
  /* Summaries of the bit sets by state (dirty: the status changed since the last SaveStatus;
   * touched: the state may differ from what Reset leaves (READY, child index rewound, no
   * trigger), or the node has a Reset or Step of the host's; a node whose bit is clear needs no
   * Reset and no Step). Bit b clear means words b << sum_shift up to the next group's are all
   * zero (a set bit may cover zero words), so that SaveStatus and the scans for touched nodes of
   * a large tree read the words that have bits, not all of them. */
  uint64_t dirty_sum, touched_sum;
  uint64_t rng;
};

/* A state's status, flags and last result, and the words of the bit sets, in their chunks. */
static inline uint8_t *status_at(const bt_inst *in, uint32_t st) { return in->mem + in->def->states[st].soff; }
static inline uint8_t *flags_at(const bt_inst *in, uint32_t st) { return in->mem + in->def->states[st].foff; }
static inline uint8_t *last_at(const bt_inst *in, uint32_t st) { return in->mem + in->def->states[st].loff; }
#define INST_HEADER_SIZE ((sizeof(bt_inst) + 7) & ~(size_t)7) /* where the first chunk begins */
static inline uint64_t *dirty_word(const bt_inst *in, uint32_t w) {
  return (uint64_t *)(void *)(in->mem + (w ? in->def->chunks[w] : INST_HEADER_SIZE));
}
static inline uint64_t *touched_word(const bt_inst *in, uint32_t w) { return dirty_word(in, w) + 1; }
static inline int touched_bit(const bt_inst *in, uint32_t st) {
  return (int)(*touched_word(in, st >> 6) >> (st & 63) & 1);
}
static inline uint64_t sum_bit(const bt_inst *in, uint32_t st) {
  return (uint64_t)1 << ((st >> 6) >> in->sum_shift);
}

/* Marks state st touched. */
static inline void touch(bt_inst *in, uint32_t st) {
  uint64_t *w = touched_word(in, st >> 6), m = (uint64_t)1 << (st & 63);
  if (*w & m) return;
  *w |= m;
  in->touched_sum |= sum_bit(in, st);
  in->settled = 0;
}

/* Clears state st's touched bit. */
static inline void untouch(bt_inst *in, uint32_t st) {
  uint64_t *w = touched_word(in, st >> 6);
  *w &= ~((uint64_t)1 << (st & 63));
  if (!*w && !in->sum_shift) in->touched_sum &= ~sum_bit(in, st);
}

/* Marks state st's status changed since the last SaveStatus. */
static inline void mark_dirty(bt_inst *in, uint32_t st) {
  *dirty_word(in, st >> 6) |= (uint64_t)1 << (st & 63);
  in->dirty_sum |= sum_bit(in, st);
  in->unsaved = 1;
}

static inline const bt_node *node_at(const bt_inst *in, int n) { return &in->def->nodes[n]; }
static inline uint32_t state_of(const bt_inst *in, int n) { return in->def->nodes[n].state; }
static inline int child_at(const bt_inst *in, int n, uint32_t i) {
  return (int)in->def->kids[in->def->nodes[n].children + i];
}
static inline bt_status status_of(const bt_inst *in, int n) {
  return (bt_status)in->mem[in->def->nodes[n].soff];
}
static inline void *mem_of(const bt_inst *in, int n) { return in->mem + in->def->nodes[n].mem; }
static inline uint8_t *flags_of(const bt_inst *in, int n) { return in->mem + in->def->nodes[n].foff; }
static inline int is_leaf(const bt_inst *in, int n) { return in->def->nodes[n].flags & NF_LEAF; }
/* A node whose Reset or Step is the host's: the core cannot tell that they would change nothing. */
static inline int has_own_reset(const bt_node *d) { return d->hooks & (HOOK_RESET | HOOK_STEP); }

/* inst.c */
double inst_now(bt_inst *in);
int inst_random_int(bt_inst *in, int n, int *out);
double inst_random(bt_inst *in);

/* graph.c: a graph's nodes, for subtree.c and builder.c (ids must be valid) */
int graph_count(const bt_graph *g);
const bt_spec *graph_spec(const bt_graph *g, int id); /* name is the graph's copy */
int graph_nkids(const bt_graph *g, int id);
const int *graph_kids(const bt_graph *g, int id);
int graph_parent(const bt_graph *g, int id);
int graph_fail(bt_graph *g, int code, const char *msg); /* sets the message; returns code */
char *copy_string(const char *s); /* a malloc'd copy, NULL when out of memory */

/* nodes.c */
int kind_has_children(int kind);
int kind_takes_one_child(int kind);
int kind_mem_size(int kind);
int kind_needs_nut(int kind);
void kind_init_mem(bt_inst *in, int n);
void inst_mark_touched(bt_inst *in); /* after the state was written wholesale */

#endif
