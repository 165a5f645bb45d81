/* SPDX-License-Identifier: MIT */
/*
 * view.h: the live terminal view: the map scaled to the terminal, a status line, a few creatures
 * and what their brains are doing, and the inspector's panel (inspect.h). ANSI escapes; the terminal goes to raw mode (no echo, keys
 * one at a time) on an alternate screen, and is restored by view_close.
 */
#ifndef ARENA_VIEW_H
#define ARENA_VIEW_H

#include "arena.h"
#include "inspect.h"

typedef struct view_info {
  long long tick;
  double brain_us, host_us; /* per tick, over the last second */
  double thinks_per_s;
  const char *replay;       /* replaying (--replay): the status line's " REPLAY x2"; else NULL */
  const char *note;         /* a replay's line for the last line (its end, a cut), or NULL */
  int note_is_error;        /* ... in red: the log is damaged */
  const char *viewer;       /* --viewer: the page's URL, on the last line until the first reload or
                               error (arena.status) takes it; else NULL */
} view_info;

/* Takes the terminal (raw mode, alternate screen, cursor hidden). 0 on success. */
int view_open(void);
/* Gives it back as it was, and frees what the inspector read; safe to call twice, and from atexit. */
void view_close(void);
/* Keys beyond a byte: the escape sequences of the arrows, the page keys and Shift-Tab. */
enum {
  VIEW_KEY_ESC = 27, /* Esc alone: no sequence followed within a few milliseconds */
  VIEW_KEY_UP = 0x100,
  VIEW_KEY_DOWN,
  VIEW_KEY_RIGHT,
  VIEW_KEY_LEFT,
  VIEW_KEY_PAGE_UP,
  VIEW_KEY_PAGE_DOWN,
  VIEW_KEY_BACK_TAB
};

/* Waits up to timeout_ms for a key; returns it (a byte, or a VIEW_KEY_*), or -1 (none, or a
 * sequence it does not know). */
int view_key(int timeout_ms);
/* Draws the whole screen; with the inspector open, its panel (in->cell_w, cell_h and page are
 * set from the layout drawn). */
void view_draw(arena *a, const view_info *vi, inspector *in);

#endif
