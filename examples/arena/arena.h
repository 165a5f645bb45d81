/* SPDX-License-Identifier: MIT */
/*
 * arena.h: the host's state shared by main.c, entity_lua.c and view.c: the world, the Lua state
 * with bt, the creatures' brains, and what went wrong in the scripts.
 */
#ifndef ARENA_H
#define ARENA_H

#include <lua.h>

#include "errors.h"
#include "world.h"

struct bt_lua_pool;
struct bt_log;
/* One Lua state's part of the host (entity_lua.c): its registry refs, its scratch for spatial
 * queries and the commands its scripts queued during a frame. */
typedef struct arena_side arena_side;

typedef struct arena {
  world w;
  lua_State *L; /* the pool's state 0 */

  /* --threads N: the creatures' brains think on a pool of N Lua states, one thread each
   * (bt_lua_pool); 0 and 1: one Lua state, on the calling thread. The world is the same for any N
   * (entity_lua.c, "What a creature sees") */
  int threads;
  struct bt_lua_pool *pool;
  arena_side **sides;     /* the pool's states, by number */
  int nsides;
  unsigned gen;           /* the creatures' own views made since the last round of commands */
  int inspected;          /* the creature the inspector selected, or 0 */
  double apply_seconds;   /* the time the serial phases took applying the commands */
  long long commands;     /* the commands applied */
  struct bt_log *log;     /* --record: the log, which every state's recorders join */
  const char *data_dir;
  int live; /* the terminal view is up: keep standard error quiet until it is closed */
  int watch; /* --watch: brains and behaviours reload when their files are saved */
  /* the view's last line: the last reload or error, in one line (errors.h); an error stays until
   * the next reload, a reload that went through for 5 seconds; empty until the first (the view
   * shows --viewer's URL until then) */
  char status[256];
  int status_ok;
  double status_time; /* when it came (simulated seconds) */
  error_log errors;   /* live: every error, written out when the terminal is back */
  long long kinds_stamp; /* --watch: the kinds file's modification time and size, when last read */

  int brain_class[KINDS_MAX]; /* 1 once the kind's Brain class is loaded in every state, else LUA_NOREF */
  int brain_broken[KINDS_MAX]; /* a brain of that kind failed to start: start no more */
  char brain_error[KINDS_MAX][160]; /* the first line of the kind's load or start error */
  int brain_retry[KINDS_MAX]; /* --watch: its brain file, which failed to load, was saved */

  long long script_errors;
  unsigned long long seed; /* --seed */

  struct replay *replay; /* --replay: the recording played back (replay.h); no Lua, no brains */
} arena;

/* Opens Lua and bt on the arena's world: package.path, the clock, the tick time, the error
 * handler, the entities' methods. 0 on success; -1 with a message on standard error. */
int arena_lua_init(arena *a, unsigned long long seed);
void arena_lua_close(arena *a);

/* Loads the brain of every creature kind (its kinds file entry's brain, brains/<kind>.lua: require
 * "brains.<kind>"); reports each failure
 * with its file and line and goes on (creatures of that kind then have no brain). Returns the
 * number that loaded. With a->watch, starts watching their files and their behaviours'. */
int arena_load_brains(arena *a);

/* With --watch: reloads the brains and behaviours whose files changed (once per frame); a line
 * for each goes to the view, or to standard error. A brain that failed to load and now loads gets
 * its creatures going. */
void arena_reload_poll(arena *a);

/* --reload-at: reloads every brain and behaviour module the brains loaded, in the order of their
 * names, in every state or in none for each, as a save of its file would, and says so as
 * arena_reload_poll does. */
void arena_reload_all(arena *a);

/* Tells the scripts what the last world_step did: new entities (creatures get brains),
 * "actiondone", "death" (then the brain stops and the entity leaves), removals. */
void arena_sync(arena *a);

/* The Lua states the brains think in (the pool's); state i (0 to that - 1), for calls between
 * frames, and its table of the live entities' insts (a registry ref, into *ref_live if not NULL). */
int arena_lua_states(const arena *a);
lua_State *arena_lua_state(const arena *a, int i, int *ref_live);

/* The brains' tick: every state's bt.BrainManager:Update(tick) (the think phase), then the
 * commands they queued, applied in order (the serial phase). */
void arena_think(arena *a, long long tick);

/* bt.BrainManager:GetStats().thinks, and .registered into *registered (if not NULL) */
long long arena_thinks(arena *a, long long *registered);

/* The name of the deepest RUNNING node in the creature's brain, into buf ("-" without a brain). */
void arena_doing(arena *a, int id, char *buf, size_t size);

/* ---- --record FILE: the brains' records and the world's frames in a log file ---- */

/* Creates the log file at path and makes every brain record into it (bt_log_create, then in every
 * state bt.BrainManager:Record{capacity = capacity}: a ring of that many records per brain, which
 * the inspector reads; each brain's recorder joins the log when it starts). 0, or -1 with err
 * saying why (the file cannot be created). */
int arena_record_open(arena *a, const char *path, int capacity, char *err, size_t errsize);
/* The same, the log's bytes going to fn(ud, ...) (bt_log_create_fn): --check reads them back as
 * they are written. */
int arena_record_open_fn(arena *a, int (*fn)(void *ud, const void *data, size_t size), void *ud, int capacity,
                         char *err, size_t errsize);
/* A record of the world's (worldlog.h, bt_log_write_host): written with the brains' records when
 * the log is flushed after the next tick's serial phase, or at the close. */
void arena_record_world(arena *a, int code, const void *data, size_t size);
/* What the log wrote (the writer's stats()). */
typedef struct arena_record_stats {
  unsigned long long records, statuses; /* the brains' records, of which status changes */
} arena_record_stats;
/* Writes the log's end and closes it, with what it wrote in *st. 0, or -1 with err saying why
 * (a write failed). */
int arena_record_close(arena *a, arena_record_stats *st, char *err, size_t errsize);

/* ---- the inspector (inspect.h): one creature's tree and its last transitions ---- */

/* A node of the tree, as tree:snapshot() gives it (cut to the sizes below). */
typedef struct arena_node {
  int depth;
  int status, last; /* bt_status */
  int has_sleep;    /* sleep is its tree sleep time */
  double sleep;
  char name[64];
  char dbstring[96]; /* "" when none: the node does not run, or says nothing */
} arena_node;

/* A record of the tree's recorder: a status change, a think, or another kind of record. */
typedef struct arena_record {
  char type[16];   /* "status", "think", ... as the recorder names them */
  int node;        /* status: the node's 1-based pre-order index, or 0 */
  int from, to;    /* status: bt_status, or -1 */
  long long think; /* the think it came in or after */
  double time;
  int has_sleep;   /* think: the sleep time it asked for */
  double sleep;
  char path[96];   /* status: the node's path ("Priority/Wander") */
  char cause[32];  /* think: what woke it */
  char message[96]; /* another kind of record: what it says, if anything */
} arena_record;

/* What the inspector shows of the selected creature. */
typedef struct arena_inspection {
  int has_tree;    /* nodes were read; else why says why not */
  char why[96];    /* "no brain", "(stopped)", ... */
  arena_node *nodes;
  int nnodes, cap_nodes;
  int recording;   /* records were read; else no_records says why not */
  char no_records[96];
  arena_record *records; /* oldest first */
  int nrecords, cap_records;
} arena_inspection;

/* Selects the creature `id` for the inspector (0: none): keeps its inst (so that its last tree
 * stays readable after it dies and leaves) and records its tree's transitions, with a recorder
 * of the last 64 records (or, with --record, reads the ring of the recorder its brain records
 * with); the previous one's recorder is detached. A replay reads the log instead. */
void arena_inspect_select(arena *a, int id);

/* Reads the selected creature's tree (tree:snapshot()) and its recorder's records into *out
 * (its arrays grow as needed and are kept for the next call). */
void arena_inspect_read(arena *a, arena_inspection *out);
void arena_inspection_free(arena_inspection *in);
/* Room for n items of size bytes in *v (capacity *cap, doubled from 32 as needed): the
 * inspection's arrays, read live or from a replay. 0 without memory (*v is then unchanged). */
int arena_grow(void **v, int *cap, int n, size_t size);

#endif
