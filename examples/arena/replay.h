/* SPDX-License-Identifier: MIT */
/*
 * replay.h: bt-arena --replay FILE: a recording (--record) played back, no brain running. The
 * world is rebuilt from the map record and moved frame by frame by the frame records
 * (worldlog.h); every creature's tree is replayed from its brain's records by the core's
 * bt_log_tree, with its last transitions, so that the inspector shows the tree a creature had at
 * the frame shown. A log still being written replays as far as it goes, and on as it grows; a
 * cut one up to its cut; a damaged one up to the damage, then says where.
 */
#ifndef ARENA_REPLAY_H
#define ARENA_REPLAY_H

#include <stddef.h>

#include "arena.h"

typedef struct replay replay;

/* Opens the recording at path and rebuilds its world in *w (uninitialised) from its map, with its
 * first frame. 0, or -1 with err saying why (the file cannot be read, is not a bt log, or holds
 * no map of the arena's: not a recording of bt-arena, or nothing written yet). */
int replay_open(replay **out, const char *path, world *w, char *err, size_t errsize);
void replay_free(replay *rp); /* the world stays: world_free it */

/* Reads on to the next frame and applies it, with the brains' records up to it: 1 when a frame
 * was applied; 0 when there is none for now (the log's end, or the end of what is written: a log
 * that grows reads on at the next call); -1 at an error (replay_message says it; the world stays
 * at the last good frame). */
int replay_step(replay *rp);

/* Why the last replay_step returned 0 or -1: "" while frames come; else a line for the user
 * ("the end of the recording", "FILE: the log stops at byte N inside a block ...", "FILE: corrupt
 * at byte N: ..."). */
const char *replay_message(const replay *rp);
/* Where reading stopped: BT_LOG_MORE while frames come, else BT_LOG_ENDED (the log's end),
 * BT_LOG_WHOLE (no end yet), BT_LOG_CUT (inside a block), BT_LOG_FAILED (damage: replay_message). */
int replay_where(const replay *rp);

/* What was replayed so far. */
typedef struct replay_counts {
  long long frames, tick;       /* frames applied; the last one's tick */
  long long agents;             /* agents (brains) in the log */
  unsigned long long records;   /* the brains' records of the recorder's types (status to host) */
  unsigned long long statuses;  /* of which status changes: the transitions */
  unsigned long long thinks;
  unsigned long long offset;    /* the bytes read through */
} replay_counts;
void replay_counts_get(const replay *rp, replay_counts *out);

/* The inspector on a replay (arena.h's arena_doing, arena_inspect_select and arena_inspect_read
 * call these when the arena replays). */
void replay_doing(replay *rp, int id, char *buf, size_t size);
void replay_inspect_select(replay *rp, int id);
void replay_inspect_read(replay *rp, arena_inspection *out);

#endif
