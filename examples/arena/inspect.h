/* SPDX-License-Identifier: MIT */
/*
 * inspect.h: the live view as a debugger: the world paused and stepped a tick at a time, and the
 * inspector, which picks one creature (in turn, by kind, or nearest to a cursor on the map) and
 * shows its whole tree and its last transitions (docs/arena.md, "Keys" and "The inspector").
 *
 * inspect_key turns a key into a change of this state; main.c reads `paused` and the step it
 * returns, view.c draws the panel. Only the selected creature's tree is recorded (entity_lua.c,
 * arena_inspect_select), so the others cost nothing.
 */
#ifndef ARENA_INSPECT_H
#define ARENA_INSPECT_H

#include "arena.h"

typedef struct inspector {
  int open;     /* the panel is up */
  int selected; /* the id of the creature shown, or 0 */
  int paused;   /* the world stands still: no world_step, no thinks, the clock stops */
  double cx, cy;   /* the cursor on the map, in world units */
  int cursor_shown; /* the cursor was moved since the last pick by other means: draw it */
  double cell_w, cell_h; /* a map cell in world units, as last drawn: the cursor's step */
  int scroll;    /* the first line of the tree asked for, or -1: follow the running path */
  int top, page; /* the first line of the tree and how many were shown, as last drawn */
  char kind_key[KINDS_MAX]; /* the letter that picks each kind, or 0 (then only its digit) */
  signed char key_kind[128]; /* by key: 1 + the kind it picks, or 0 */
  char note[80]; /* what the last key could not do ("no wolf alive"), until the next key */
} inspector;

/* What a key asks of the loop. */
enum { INSPECT_NOTHING, INSPECT_REDRAW, INSPECT_STEP, INSPECT_QUIT };

/* Sets the inspector up for the arena's kinds (closed, running, the cursor in the middle). */
void inspect_init(inspector *in, const arena *a);

/* Handles a key (a byte, or a VIEW_KEY_* of view.h): returns INSPECT_QUIT for q, Q and Ctrl-C,
 * INSPECT_STEP when one tick should run now (paused, '.'), INSPECT_REDRAW when the screen changed,
 * else INSPECT_NOTHING. */
int inspect_key(inspector *in, arena *a, int key);

/* The kinds' keys for the legend: "s W v G" (at most size bytes). */
void inspect_kind_keys(const inspector *in, const arena *a, char *buf, size_t size);

#endif
