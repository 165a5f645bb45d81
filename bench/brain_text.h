/* SPDX-License-Identifier: MIT */
/*
 * brain_text.h: a brain in bench/brains.lua's text form, read in C by the C-leaf benchmarks
 * (bench_think's C-leaf rows and bench_cleaf). While and If become what Don't Starve builds: a
 * Parallel (If: a Sequence) of a Condition and the child.
 */
#ifndef BENCH_BRAIN_TEXT_H
#define BENCH_BRAIN_TEXT_H

#include "bt.h"

enum {
  BRAIN_PRIORITY, BRAIN_SEQUENCE, BRAIN_SELECTOR, BRAIN_PARALLEL, BRAIN_LOOP, BRAIN_NOT,
  BRAIN_FAILIFSUCCESS, BRAIN_WAIT, BRAIN_CONDITION, BRAIN_ACTION
};

/* bench/brains.lua's brains.small, character for character (`bench_cleaf --print-small` prints
 * it; a ctest compares it with the Lua file's): the 40-node brain of the C-leaf benchmarks. */
extern const char brain_small[];

#define BRAIN_FIELD_LEN 16 /* a field name's bytes, its terminating zero included */

typedef struct brain_node {
  int kind;         /* BRAIN_* */
  double param;     /* a Priority's period, a Wait's seconds */
  int field;        /* a Condition's or an Action's field, else -1 */
  int first, nkids; /* its children: the brain's kids[first .. first + nkids) */
} brain_node;

typedef struct brain {
  brain_node *nodes; /* in the order they were read to the end: children before parents */
  int n, root;
  int *kids;
  int nkids;
  char (*fields)[BRAIN_FIELD_LEN]; /* the field names, in the order first met */
  int nfields;
  const char *error, *near; /* why and where brain_read failed */
} brain;

/* Reads text into b; 0, or -1 with b->error and b->near set. brain_free frees what it made,
 * whether it succeeded or not. */
int brain_read(brain *b, const char *text);
void brain_free(brain *b);

/* The index of the field called name, or -1 if the brain reads none of that name. */
int brain_field(const brain *b, const char *name);

/* Adds the brain's nodes to g, its node i as graph id i, each leaf calling condition or action
 * with its field's index as ud and named after its field. 0, or -1 (bt_graph_errmsg says why). */
int brain_graph(const brain *b, bt_graph *g, bt_fn condition, bt_fn action);

#endif
