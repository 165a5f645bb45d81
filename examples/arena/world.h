/* SPDX-License-Identifier: MIT */
/*
 * world.h: the arena's world, in plain C (no Lua): a 2-D plane with ponds, grass, fields, houses,
 * wolf dens and guard posts; creatures that walk, run, fight, act, get hungry and tired, die and
 * are born again; day and night; a spatial grid for finding entities near a point.
 *
 * The world never calls into Lua. What the scripts must hear about (an action that ended, a death,
 * an entity that appeared or left) goes into queues that the Lua side (entity_lua.c) drains after
 * each world_step.
 */
#ifndef ARENA_WORLD_H
#define ARENA_WORLD_H

#include <stdint.h>

/* Creature kinds are numbered 0 to world.nkinds - 1, in the order of the kinds file
 * (brains/kinds.lua, see kinds.h); the world's objects come after the most there can be. */
#define KINDS_MAX 16
typedef enum {
  KIND_GRASS = KINDS_MAX,
  KIND_FIELD,
  KIND_HOUSE,
  KIND_DEN,
  KIND_POST,
  KIND_COUNT
} kind_t;

/* Where creatures of a kind are placed, born and at home. */
typedef enum { HOME_NONE, HOME_MEADOW, HOME_DEN, HOME_HOUSE, HOME_POST } home_t;

#define KIND_TAGS_MAX 4
#define KIND_NAME_MAX 24

/* The blackboard keys the host writes for a kind's brains (the kinds file's `keys`, docs/arena.md
 * "What the host writes"): bits of kind_info.keys and entity.key_dirty. */
enum { KEY_NIGHT = 1, KEY_HUNGER = 2, KEY_THREAT = 4 };

/* What a kind is: a creature kind from the kinds file, or one of the world's objects. */
typedef struct kind_info {
  char name[KIND_NAME_MAX], plural[KIND_NAME_MAX];
  char tags[KIND_TAGS_MAX][KIND_NAME_MAX]; /* the first ntags are set */
  int ntags;
  char glyph;
  char sgr[24];   /* the view's colour: an SGR parameter list, such as "1;91" */
  char brain[96]; /* the brain's file, relative to the data directory: brains/sheep.lua */
  home_t home;
  unsigned eats;  /* bits (1 << (k - KINDS_MAX)) of the objects its "eat" takes: grass, house */
  double share;   /* its part of the agents, a weight */
  double walk, run, health, damage, range, cooldown;
  double hunger_rate, fatigue_rate; /* per second, idle */
  double radius;
  unsigned keys;  /* KEY_* bits: the blackboard keys the host writes for its brains */
  double threat_near, threat_far; /* KEY_THREAT: a creature tagged threat_tag within near is a
                                     threat, until it is farther than far, dies or leaves */
  char threat_tag[KIND_NAME_MAX];
} kind_info;

typedef uint64_t tagmask;
#define TAG_MAX 64

enum { MOVE_NONE, MOVE_POINT, MOVE_DIR };

/* A creature's writes of itself that its commands will make (entity_lua.c, "What a creature
 * sees"): current while gen is the arena's generation; each field counts only if its bit is in
 * set. */
enum { OWN_MOVE = 1, OWN_BUSY = 2, OWN_TARGET = 4, OWN_ATTACK = 8 };
typedef struct own_view {
  unsigned gen, set;
  int moving, busy, target;
  double last_attack;
} own_view;

typedef struct entity {
  int id;   /* index into world.ents; never reused */
  int kind; /* a creature kind (below KINDS_MAX) or a kind_t */
  tagmask tags;
  double x, y, angle; /* angle in degrees */
  double radius;      /* how far from its centre it can be reached (objects) */
  unsigned valid : 1; /* in the world */
  unsigned dead : 1;  /* health reached 0 (removed at the next world_step) */
  unsigned death_queued : 1; /* in world.died */
  unsigned death_pushed : 1; /* "death" was pushed (then it leaves at the next arena_sync) */
  unsigned has_brain : 1;
  int active_slot, creature_slot;
  int cell, cell_slot;

  /* locomotion */
  int move, run;
  double tx, ty;

  /* combat */
  double health, max_health, damage, range, cooldown, last_attack;
  int target;       /* id, or 0 */
  int killer;       /* id of the entity whose hit killed it, or 0 */
  double died_at;   /* when it died: the body leaves the world a second later */
  const char *cause; /* "attack", "starvation" */

  /* actions */
  char *action; /* the running action's name (malloc'd), or NULL */
  int action_target;
  double action_end;

  /* needs */
  double hunger, fatigue;
  int home;         /* id of its house, den or post, or 0 */
  int has_home;     /* GetHome() gives (hx, hy): its home's position, or a sheep's meadow */
  double hx, hy;

  /* speech */
  char say[48];
  double say_until;

  int patch; /* grass: its patch */

  /* the facts its kind's blackboard keys hold (kind_info.keys), as the world last noted them:
   * hunger in hundredths (rounded), the threat's id (0: none); key_dirty: the KEY_* bits that
   * changed since the host last wrote them (the entity is then in world.keyed) */
  int hunger_key;
  int threat;
  unsigned key_dirty;

  /* bt-arena (entity_lua.c): the Lua state whose scripts think its brain (0 without one), and
   * what its own scripts wrote of it since its commands were last applied, which they read back
   * at once while everyone else reads the world (written by that state's thread only) */
  int shard;
  own_view own;
} entity;

/* An ended action, for the "actiondone" event. */
typedef struct action_done {
  int id, target, success;
  char *action; /* owned by the queue */
} action_done;

typedef struct patch {
  double x, y, r;
  int max, alive;
  double next_growth;
} patch;

typedef struct pond {
  double x, y, r;
} pond;

typedef struct int_vec {
  int *v;
  int n, cap;
} int_vec;

/* The scratch of the spatial queries that list what they found (world_find_all_in): one per
 * thread that queries at once (bt-arena --threads: one per Lua state). */
typedef struct world_scratch {
  struct find_hit *hits;
  int cap_hits;
  int_vec found;
} world_scratch;
void world_scratch_free(world_scratch *s);

typedef struct world {
  double w, h;            /* size in world units */
  double time, dt;        /* simulated seconds; seconds per tick */
  double day_length, night_fraction;
  uint64_t rng;

  entity **ents; /* by id; ents[0] unused; removed entities stay for their last state */
  int nents, cap_ents;
  int_vec active;    /* ids of the entities in the world */
  int_vec creatures; /* ids of the creatures in the world (active_slot indexes active,
                        creature_slot this) */

  /* spatial grid: cells of cell_size units, each a list of ids */
  double cell_size;
  int gw, gh;
  int_vec *cells;

  const char *tag_names[TAG_MAX];
  int ntags;
  kind_info kinds[KIND_COUNT]; /* creature kinds 0 to nkinds - 1, then the objects */
  int nkinds;
  tagmask kind_tag[KIND_COUNT];
  tagmask tag_predator, tag_prey;
  tagmask kind_threat[KINDS_MAX]; /* the tags of what threatens a kind with KEY_THREAT */
  tagmask threat_tags;   /* all of them */
  int *cell_threats;     /* per grid cell, its entities with one of those tags (NULL: no kind asks,
                            or BT_NO_FAST_PATHS: every creature that asks looks) */
  unsigned any_keys; /* the KEY_* bits of every kind */

  pond *ponds;
  int nponds;
  patch *patches;
  int npatches;

  int initial[KINDS_MAX]; /* the population the world keeps up by births */
  int alive[KINDS_MAX];
  double next_birth;
  long long deaths, births;

  /* queues drained by the Lua side after each world_step */
  action_done *done;
  int ndone, cap_done;
  int_vec died;    /* creatures to push "death" to, then remove */
  int_vec removed; /* entities that left the world */
  int_vec spawned; /* entities that entered the world */
  int_vec keyed;   /* creatures whose keys' facts changed (entity.key_dirty says which) */
  int night;       /* it is night (world_is_day is false) ... */
  int night_changed; /* ... since this flag was set: the host writes KEY_NIGHT, and clears it */

  world_scratch scratch; /* world_find_all's */
  int_vec *pond_cells; /* per grid cell, the ponds that overlap it */
  int_vec dens, houses, posts, fields;
} world;

/* Makes a world for `agents` creatures of the n kinds (1 to KINDS_MAX, valid: see kinds.h) from
 * `seed`; 0 on success, -1 out of memory. */
int world_init(world *w, int agents, uint64_t seed, const kind_info *kinds, int n);
void world_free(world *w);
/* A world rebuilt from a recording (--replay): of that size, kinds and ponds, with no entities
 * and no layout of its own; world_place puts them in, with the ids they had. 0, or -1 (out of
 * memory, a size or kind count out of range). */
int world_init_map(world *w, double width, double height, const kind_info *kinds, int n, const pond *ponds,
                   int nponds);
/* Puts an entity of kind k at (x, y) under the id it had: above every id
 * so far and at most WORLD_MAX_ID (ids in between stay empty). NULL for an id or kind out of
 * range, or out of memory. */
#define WORLD_MAX_ID 16000000
entity *world_place(world *w, int id, int k, double x, double y);
/* Moves e to (x, y) (the grid follows). */
void world_set_position(world *w, entity *e, double x, double y);
/* Empties the queues the scripts drain (actions ended, deaths, removals, spawns): a replayed
 * world has no scripts to hear them. */
void world_clear_queues(world *w);

/* Advances the world by one tick of w->dt seconds ending at `time`. */
void world_step(world *w, double time);

/* Brings e's key facts (hunger_key, threat) up to date and queues every key of its kind in
 * world.keyed, to be written: a brain that starts is given all its keys. */
void world_keys_now(world *w, entity *e);

const char *kind_name(const world *w, int k);
int world_is_creature(const entity *e);
int world_is_day(const world *w);

/* The valid entity with that id, or NULL; world_any also returns removed ones. */
entity *world_get(const world *w, int id);
entity *world_any(const world *w, int id);

/* Tags: the bit of a tag name, or -1 for a tag no entity has. */
int world_tag(const world *w, const char *name);

/* Movement commands (no effect on a dead or removed entity). */
void world_go_to(world *w, entity *e, double x, double y, int run);
void world_move_dir(world *w, entity *e, double angle, int run);
void world_stop(world *w, entity *e);
void world_face(entity *e, double x, double y);

/* A free point radius away from (x, y) in about that direction; 0 if none. */
int world_walkable_offset(const world *w, double x, double y, double angle, double radius,
                          double *ox, double *oy);
int world_walkable(const world *w, double x, double y);

/* The nearest entity within radius of e that has every tag of `all` and none of `none`, is in
 * the world and alive, and is not e; NULL if none. */
entity *world_find(const world *w, const entity *e, double radius, tagmask all, tagmask none);
/* All of them, nearest first (ties by id): sets *ids to a scratch array valid until the next
 * call; returns the count. */
int world_find_all(world *w, const entity *e, double radius, tagmask all, tagmask none,
                   const int **ids);

/* world_find_all with the caller's scratch: it reads the world only, so threads may call it at once,
 * each with a scratch of its own, while nobody writes the world. */
int world_find_all_in(const world *w, world_scratch *s, const entity *e, double radius, tagmask all,
                      tagmask none, const int **ids);

/* Combat */
int world_can_target(const entity *a, const entity *b);
int world_in_cooldown(const world *w, const entity *e);
/* Whether world_attack would swing now (reads only). */
int world_attack_possible(const world *w, const entity *a, const entity *b);
/* Whether world_start_action would start it now (reads only). */
int world_action_possible(const world *w, const entity *e, const char *action, const entity *target);
/* 0: did not swing; 1: hit; 2: missed. */
int world_attack(world *w, entity *a, entity *b);

/* Actions: 1 if it started. An action already running ends unsuccessfully first. */
int world_start_action(world *w, entity *e, const char *action, entity *target);
void world_end_action(world *w, entity *e, int success);

int world_is_tired(const entity *e);
void world_say(world *w, entity *e, const char *text);

/* Kills a creature now (its death is pushed by the next world_step's queue). */
void world_kill(world *w, entity *e, const char *cause, int killer);
/* Takes an entity out of the world (it becomes invalid). */
void world_remove(world *w, entity *e);

double world_rand(world *w); /* [0, 1) */

#endif
