/* SPDX-License-Identifier: MIT */
/*
 * worldlog.h: the world in a recording (bt-arena --record, --replay; docs/arena.md "Recording
 * and replaying"). Besides its brains' records, the arena writes WORLD records of its own to the
 * log (bt_log_write_host, through the Lua log's world method), what a replay needs to draw the
 * map as it was:
 *
 *   code 1, the map, once at the start: the world's size, the creature kinds' looks, the ponds;
 *   code 2, a frame, after every tick: what changed since the last frame, entity by entity (an
 *           entity that came, with its kind; its position every few ticks; its health, hunger,
 *           motion, action, speech, target; its death; its leaving), in varints, positions as
 *           differences in sixteenths of a unit;
 *   code 3, the run, once after the map: what a re-run of the session needs beside the map's
 *           seed and agents (--check): the tick of --reload-at. A reader that does not know
 *           code 3 skips it.
 *
 * The writer keeps what it last wrote of each entity; the reader applies a frame to a world made
 * from the map (world_init_map), in which entities keep the ids they had. The byte layout is
 * given in docs/arena.md; every field is checked when read, so damaged bytes give an error that
 * says what, never a world out of bounds.
 */
#ifndef ARENA_WORLDLOG_H
#define ARENA_WORLDLOG_H

#include <stddef.h>

#include "world.h"

#define WORLDLOG_MAP 1
#define WORLDLOG_FRAME 2
#define WORLDLOG_RUN 3
#define WORLDLOG_VERSION 1
#define WORLDLOG_POSITION_TICKS 3 /* positions are written every this many ticks */

/* A growable byte buffer. */
typedef struct worldlog_bytes {
  unsigned char *p;
  size_t n, cap;
  int oom; /* an append ran out of memory */
} worldlog_bytes;
void worldlog_bytes_free(worldlog_bytes *b);

/* What the writer last wrote of each entity, by id. */
typedef struct worldlog_writer {
  struct worldlog_seen *seen;
  int cap;
  long long frames; /* frames written */
} worldlog_writer;

/* The map record of w into out (emptied first); the seed and agents are written for the reader's
 * information. 0, or -1 out of memory. */
int worldlog_map(const world *w, unsigned long long seed, long agents, worldlog_bytes *out);
/* The frame of tick `tick` into out (emptied first): what changed in w since the writer's last
 * frame (the first: every entity); positions when tick is a multiple of WORLDLOG_POSITION_TICKS
 * or `positions` is set. 0, or -1 out of memory. */
int worldlog_frame(worldlog_writer *wr, const world *w, long long tick, int positions, worldlog_bytes *out);
void worldlog_writer_free(worldlog_writer *wr);

/* The run record into out (emptied first): reload_at, the tick of --reload-at (0: none). 0, or -1
 * out of memory. */
int worldlog_run(long long reload_at, worldlog_bytes *out);
/* Reads a run record: 0 and *reload_at, or -1 with err saying what was wrong. */
int worldlog_read_run(const void *data, size_t size, long long *reload_at, char *err, size_t errsize);
/* The seed and the agents a map record names (for a re-run, bt-arena --check): 0, or -1 with err
 * saying what was wrong. */
int worldlog_map_info(const void *data, size_t size, unsigned long long *seed, long *agents, char *err,
                      size_t errsize);

/* Makes *w (uninitialised) from a map record; on failure says why in err and returns -1 (w then
 * needs no world_free). */
int worldlog_read_map(world *w, const void *data, size_t size, char *err, size_t errsize);

/* What the reader keeps between frames. */
typedef struct worldlog_reader {
  long long frames; /* frames applied */
  long long tick;   /* the last frame's tick */
  int (*q)[2];      /* by id: the position as last written, in sixteenths of a unit */
  int cap;
} worldlog_reader;
void worldlog_reader_free(worldlog_reader *rd);

/* Applies a frame record at `time` to w: w->time, the entities that came (births counted after
 * the first frame), moved, changed, died (deaths counted) and left. 0, or -1 with err saying what
 * was wrong (the frame may be half applied). */
int worldlog_read_frame(worldlog_reader *rd, world *w, double time, const void *data, size_t size, char *err,
                        size_t errsize);

/* A digest of the entities in the world: their ids, kinds, positions as written, health and
 * deaths. A replay's last frame and the recording's end give the same one. */
unsigned long long worldlog_digest(const world *w);

#endif
