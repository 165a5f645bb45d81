/* SPDX-License-Identifier: MIT */
/*
 * viewer.h: bt-arena --viewer [PORT] (viewer.c; docs/viewer.md, docs/arena.md): the live viewer's
 * server on the arena's creatures.
 */
#ifndef ARENA_VIEWER_H
#define ARENA_VIEWER_H

#include <stddef.h>

#include "arena.h"

#define ARENA_VIEWER_PORT 8642 /* --viewer without a port: this one, or the next free one */
#define ARENA_VIEWER_RING 128  /* records each brain's recorder keeps between two ticks */

/* Starts the server on 127.0.0.1:port (port -1: ARENA_VIEWER_PORT or the next free one of the 20
 * after it; 0: any free port), keeping for each of about `agents` creatures its last 2048 records,
 * fewer when there are more than a thousand (2 million records in all). Unless `recording`
 * (--record made every brain record already, with a ring of ARENA_VIEWER_RING), every brain
 * records into a ring from now on. 0, or -1 with err. */
int arena_viewer_open(arena *a, int port, int agents, int recording, char *err, size_t errsize);
/* --ring N: every brain records into a ring of `capacity` records from now on
 * (bt.BrainManager:Record). 0, or -1 with a message on standard error. */
int arena_record_rings(arena *a, int capacity);
/* The page's URL ("" when no viewer). */
const char *arena_viewer_url(void);
/* At each tick's end: registers the new brains' recorders, unregisters those gone, sets the
 * positions and calls bt_view_frame. */
void arena_viewer_frame(arena *a);
void arena_viewer_close(arena *a);

#endif
