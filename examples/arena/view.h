/* SPDX-License-Identifier: MIT */
/*
 * view.h: the live terminal view: the map scaled to the terminal, a status line, a few creatures
 * and what their brains are doing. ANSI escapes; the terminal goes to raw mode (no echo, keys
 * one at a time) on an alternate screen, and is restored by view_close.
 */
#ifndef ARENA_VIEW_H
#define ARENA_VIEW_H

#include "arena.h"

typedef struct view_info {
  long long tick;
  double brain_us, host_us; /* per tick, over the last second */
  double thinks_per_s;
} view_info;

/* Takes the terminal (raw mode, alternate screen, cursor hidden). 0 on success. */
int view_open(void);
/* Gives it back as it was; safe to call twice, and from atexit. */
void view_close(void);
/* Waits up to timeout_ms for a key; returns it, or -1. */
int view_key(int timeout_ms);
/* Draws the whole screen. */
void view_draw(arena *a, const view_info *vi);

#endif
