/* SPDX-License-Identifier: MIT */
/*
 * world.c: the arena's world (see world.h). Plain C; the scripts hear about it through the
 * queues that entity_lua.c drains.
 */
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180)
#define REACH 1.5       /* how far beyond a target's radius an action reaches */
#define EDGE 0.5        /* creatures keep this far from the world's edge */
#define HIT_CHANCE 0.85 /* a swing in range hits this often */
#define BODY_SECONDS 1  /* a body lies where it fell this long, then leaves the world */
#define BIRTH_PERIOD 5.0

/* The world's objects; creature kinds come from the kinds file. */
static const kind_info OBJECTS[KIND_COUNT - KINDS_MAX] = {
    {.name = "grass", .tags = {"grass", "food"}, .ntags = 2, .radius = 0.5},
    {.name = "field", .tags = {"field"}, .ntags = 1, .radius = 4.0},
    {.name = "house", .tags = {"house"}, .ntags = 1, .radius = 2.0},
    {.name = "den", .tags = {"den"}, .ntags = 1, .radius = 2.5},
    {.name = "post", .tags = {"post"}, .ntags = 1, .radius = 1.0},
};

static const char *const EXTRA_TAGS[] = {"prey", "predator", "food", "player", NULL};

struct find_hit {
  double d;
  int id;
};

const char *kind_name(const world *w, int k) {
  return (k >= 0 && k < w->nkinds) || (k >= KINDS_MAX && k < KIND_COUNT) ? w->kinds[k].name : "?";
}

static int is_creature(const entity *e) { return e->kind < KINDS_MAX; }
int world_is_creature(const entity *e) { return is_creature(e); }

/* ---- numbers ---- */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double world_rand(world *w) {
  uint64_t x = w->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  w->rng = x;
  return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static double rand_range(world *w, double a, double b) { return a + (b - a) * world_rand(w); }

static double dist2(double ax, double ay, double bx, double by) {
  double dx = ax - bx, dy = ay - by;
  return dx * dx + dy * dy;
}

/* ---- small vectors ---- */

static int vec_push(int_vec *v, int x) {
  if (v->n == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    int *p = realloc(v->v, (size_t)cap * sizeof *p);
    if (!p) return -1;
    v->v = p;
    v->cap = cap;
  }
  v->v[v->n++] = x;
  return 0;
}

static void vec_free(int_vec *v) {
  free(v->v);
  v->v = NULL;
  v->n = v->cap = 0;
}

/* ---- tags ---- */

static int add_tag(world *w, const char *name) {
  int t = world_tag(w, name);
  if (t >= 0 || w->ntags == TAG_MAX) return t;
  w->tag_names[w->ntags] = name;
  return w->ntags++;
}

int world_tag(const world *w, const char *name) {
  for (int i = 0; i < w->ntags; i++)
    if (strcmp(w->tag_names[i], name) == 0) return i;
  return -1;
}

/* ---- day and night ---- */

int world_is_day(const world *w) {
  double t = fmod(w->time, w->day_length);
  return t < w->day_length * (1 - w->night_fraction);
}

/* ---- the grid ---- */

static int cell_of(const world *w, double x, double y) {
  int cx = (int)(x / w->cell_size), cy = (int)(y / w->cell_size);
  if (cx < 0) cx = 0;
  if (cx >= w->gw) cx = w->gw - 1;
  if (cy < 0) cy = 0;
  if (cy >= w->gh) cy = w->gh - 1;
  return cy * w->gw + cx;
}

/* The cells' counts of entities with a threat tag (KEY_THREAT's prefilter), kept with the grid. */
static void count_threat(world *w, const entity *e, int c, int delta) {
  if (w->cell_threats && (e->tags & w->threat_tags)) w->cell_threats[c] += delta;
}

static int grid_insert(world *w, entity *e) {
  int c = cell_of(w, e->x, e->y);
  e->cell = c;
  e->cell_slot = w->cells[c].n;
  count_threat(w, e, c, 1);
  return vec_push(&w->cells[c], e->id);
}

static void grid_remove(world *w, entity *e) {
  int_vec *v = &w->cells[e->cell];
  int last = v->v[--v->n];
  if (last != e->id) {
    v->v[e->cell_slot] = last;
    w->ents[last]->cell_slot = e->cell_slot;
  }
  count_threat(w, e, e->cell, -1);
  e->cell = -1;
}

static void grid_move(world *w, entity *e) {
  int c = cell_of(w, e->x, e->y);
  if (c == e->cell) return;
  grid_remove(w, e);
  e->cell = c;
  e->cell_slot = w->cells[c].n;
  if (vec_push(&w->cells[c], e->id) != 0) e->cell = -1; /* out of memory: unfindable */
  else count_threat(w, e, c, 1);
}

/* ---- space ---- */

static const pond *in_pond(const world *w, double x, double y, double margin) {
  if (x < 0 || y < 0 || x >= w->w || y >= w->h) return NULL;
  const int_vec *v = &w->pond_cells[cell_of(w, x, y)];
  for (int i = 0; i < v->n; i++) {
    const pond *p = &w->ponds[v->v[i]];
    double r = p->r + margin;
    if (dist2(x, y, p->x, p->y) < r * r) return p;
  }
  return NULL;
}

int world_walkable(const world *w, double x, double y) {
  return x >= EDGE && y >= EDGE && x <= w->w - EDGE && y <= w->h - EDGE && !in_pond(w, x, y, 0.3);
}

int world_walkable_offset(const world *w, double x, double y, double angle, double radius,
                          double *ox, double *oy) {
  /* the direction asked for, then alternately 15 degrees more to either side, as Don't Starve's
   * FindWalkableOffset tries a circle of candidates */
  for (int i = 0; i <= 24; i++) {
    int k = (i + 1) / 2;
    double a = (angle + (i % 2 ? k : -k) * 15.0) * DEG;
    double px = x + cos(a) * radius, py = y + sin(a) * radius;
    if (world_walkable(w, px, py)) {
      *ox = px;
      *oy = py;
      return 1;
    }
  }
  return 0;
}

/* ---- entities ---- */

entity *world_any(const world *w, int id) {
  return id > 0 && id < w->nents ? w->ents[id] : NULL;
}

entity *world_get(const world *w, int id) {
  entity *e = world_any(w, id);
  return e && e->valid ? e : NULL;
}

static entity *spawn(world *w, int k, double x, double y) {
  if (w->nents == w->cap_ents) {
    int cap = w->cap_ents * 2;
    entity **p = realloc(w->ents, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    w->ents = p;
    w->cap_ents = cap;
  }
  entity *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  const kind_info *ki = &w->kinds[k];
  e->id = w->nents;
  e->kind = k;
  e->tags = w->kind_tag[k];
  e->x = x;
  e->y = y;
  e->angle = rand_range(w, 0, 360);
  e->radius = ki->radius;
  e->valid = 1;
  e->health = e->max_health = ki->health;
  e->damage = ki->damage;
  e->range = ki->range;
  e->cooldown = ki->cooldown;
  e->last_attack = -1e9;
  e->patch = -1;
  e->creature_slot = -1;
  w->ents[w->nents++] = e;
  e->active_slot = w->active.n;
  if (vec_push(&w->active, e->id) || grid_insert(w, e) || vec_push(&w->spawned, e->id)) return NULL;
  if (k < KINDS_MAX) {
    e->creature_slot = w->creatures.n;
    if (vec_push(&w->creatures, e->id)) return NULL;
    w->alive[k]++;
  }
  return e;
}

/* A walkable point within r of (x, y), or (x, y) itself after a few tries. */
static void near_point(world *w, double x, double y, double r, double *ox, double *oy) {
  for (int i = 0; i < 20; i++) {
    double a = rand_range(w, 0, 2 * PI), d = r * sqrt(world_rand(w));
    double px = x + cos(a) * d, py = y + sin(a) * d;
    if (world_walkable(w, px, py)) {
      *ox = px;
      *oy = py;
      return;
    }
  }
  *ox = x;
  *oy = y;
}

static entity *spawn_creature(world *w, int k, double x, double y, int home) {
  double px, py;
  near_point(w, x, y, 3, &px, &py);
  entity *e = spawn(w, k, px, py);
  if (!e) return NULL;
  e->home = home;
  entity *h = world_get(w, home);
  if (h) {
    e->has_home = 1;
    e->hx = h->x;
    e->hy = h->y;
  }
  e->hunger = rand_range(w, 0, 0.4);
  e->fatigue = rand_range(w, 0, 0.5);
  return e;
}

static entity *spawn_grass(world *w, int pi) {
  patch *p = &w->patches[pi];
  double x, y;
  near_point(w, p->x, p->y, p->r, &x, &y);
  entity *e = spawn(w, KIND_GRASS, x, y);
  if (!e) return NULL;
  e->patch = pi;
  p->alive++;
  return e;
}

void world_remove(world *w, entity *e) {
  if (!e->valid) return;
  if (e->action) {
    free(e->action);
    e->action = NULL;
  }
  e->valid = 0;
  e->move = MOVE_NONE;
  if (e->cell >= 0) grid_remove(w, e);
  int last = w->active.v[--w->active.n];
  if (last != e->id) {
    w->active.v[e->active_slot] = last;
    w->ents[last]->active_slot = e->active_slot;
  }
  if (is_creature(e)) {
    last = w->creatures.v[--w->creatures.n];
    if (last != e->id) {
      w->creatures.v[e->creature_slot] = last;
      w->ents[last]->creature_slot = e->creature_slot;
    }
    if (!e->dead) w->alive[e->kind]--;
  }
  if (e->patch >= 0) {
    patch *p = &w->patches[e->patch];
    if (p->alive-- == p->max) p->next_growth = w->time + rand_range(w, 6, 12);
  }
  vec_push(&w->removed, e->id);
}

void world_kill(world *w, entity *e, const char *cause, int killer) {
  if (!e->valid || e->dead || !is_creature(e)) return;
  if (e->action) world_end_action(w, e, 0);
  e->dead = 1;
  e->health = 0;
  e->move = MOVE_NONE;
  e->cause = cause;
  e->killer = killer;
  e->died_at = w->time;
  w->alive[e->kind]--;
  w->deaths++;
  if (!e->death_queued) {
    e->death_queued = 1;
    vec_push(&w->died, e->id);
  }
}

/* ---- movement ---- */

static int can_act(const entity *e) { return e->valid && !e->dead && is_creature(e); }

void world_face(entity *e, double x, double y) {
  if (!can_act(e) || !isfinite(x) || !isfinite(y)) return;
  if (x != e->x || y != e->y) e->angle = atan2(y - e->y, x - e->x) / DEG;
}

void world_go_to(world *w, entity *e, double x, double y, int run) {
  if (!can_act(e) || !isfinite(x) || !isfinite(y)) return;
  if (e->action) world_end_action(w, e, 0); /* walking away interrupts what it was doing */
  if (x < EDGE) x = EDGE;
  if (y < EDGE) y = EDGE;
  if (x > w->w - EDGE) x = w->w - EDGE;
  if (y > w->h - EDGE) y = w->h - EDGE;
  e->move = MOVE_POINT;
  e->run = run;
  e->tx = x;
  e->ty = y;
  world_face(e, x, y);
}

void world_move_dir(world *w, entity *e, double angle, int run) {
  if (!can_act(e) || !isfinite(angle)) return;
  if (e->action) world_end_action(w, e, 0);
  e->move = MOVE_DIR;
  e->run = run;
  e->angle = angle;
}

void world_stop(world *w, entity *e) {
  (void)w;
  e->move = MOVE_NONE;
}

/* One tick of locomotion: straight on, sliding around ponds, stopping at the edge, at the goal,
 * or when stuck. */
static void locomote(world *w, entity *e) {
  const kind_info *ki = &w->kinds[e->kind];
  double step = (e->run ? ki->run : ki->walk) * w->dt;
  double nx, ny, before = 0;
  int arrive = 0;
  if (e->move == MOVE_POINT) {
    double dx = e->tx - e->x, dy = e->ty - e->y;
    double d = sqrt(dx * dx + dy * dy);
    before = d;
    if (d <= step) {
      nx = e->tx;
      ny = e->ty;
      arrive = 1;
    } else {
      nx = e->x + dx / d * step;
      ny = e->y + dy / d * step;
      e->angle = atan2(dy, dx) / DEG;
    }
  } else {
    nx = e->x + cos(e->angle * DEG) * step;
    ny = e->y + sin(e->angle * DEG) * step;
  }
  const pond *p = in_pond(w, nx, ny, 0.3);
  if (p) {
    /* push out to the shore; head-on, slide along it towards the goal's side */
    double r = p->r + 0.31;
    double ux = nx - p->x, uy = ny - p->y, l = sqrt(ux * ux + uy * uy);
    if (l < 1e-9) ux = 1, uy = 0, l = 1;
    ux /= l;
    uy /= l;
    double sx = p->x + ux * r, sy = p->y + uy * r;
    if (dist2(sx, sy, e->x, e->y) < 0.09 * step * step) {
      double tx = -uy, ty = ux;
      double gx = (e->move == MOVE_POINT ? e->tx : nx) - e->x, gy = (e->move == MOVE_POINT ? e->ty : ny) - e->y;
      if (tx * gx + ty * gy < 0) tx = -tx, ty = -ty;
      sx = e->x + tx * step;
      sy = e->y + ty * step;
      ux = sx - p->x;
      uy = sy - p->y;
      l = sqrt(ux * ux + uy * uy);
      if (l > 1e-9 && l < r) sx = p->x + ux / l * r, sy = p->y + uy / l * r;
    }
    nx = sx;
    ny = sy;
    arrive = 0;
  }
  int edge = 0;
  if (nx < EDGE) nx = EDGE, edge = 1;
  if (ny < EDGE) ny = EDGE, edge = 1;
  if (nx > w->w - EDGE) nx = w->w - EDGE, edge = 1;
  if (ny > w->h - EDGE) ny = w->h - EDGE, edge = 1;
  if (in_pond(w, nx, ny, 0.29)) { /* cornered between a pond and the edge */
    nx = e->x;
    ny = e->y;
    edge = 1;
  }
  e->x = nx;
  e->y = ny;
  grid_move(w, e);
  if (arrive || (edge && e->move == MOVE_DIR)) {
    e->move = MOVE_NONE;
  } else if (e->move == MOVE_POINT) {
    double after = sqrt(dist2(e->x, e->y, e->tx, e->ty));
    if (before - after < 0.05 * step) e->move = MOVE_NONE; /* stuck: give up */
  }
}

/* ---- finding ---- */

static int matches(const entity *o, const entity *e, tagmask all, tagmask none) {
  return o != e && !o->dead && (o->tags & all) == all && !(o->tags & none);
}

#define FOR_CELLS(w, x, y, r, c)                                                   \
  int cx0_ = (int)(((x) - (r)) / (w)->cell_size), cx1_ = (int)(((x) + (r)) / (w)->cell_size); \
  int cy0_ = (int)(((y) - (r)) / (w)->cell_size), cy1_ = (int)(((y) + (r)) / (w)->cell_size); \
  if (cx0_ < 0) cx0_ = 0;                                                          \
  if (cy0_ < 0) cy0_ = 0;                                                          \
  if (cx1_ >= (w)->gw) cx1_ = (w)->gw - 1;                                         \
  if (cy1_ >= (w)->gh) cy1_ = (w)->gh - 1;                                         \
  for (int cy_ = cy0_; cy_ <= cy1_; cy_++)                                         \
    for (int cx_ = cx0_, c = cy_ * (w)->gw + cx_; cx_ <= cx1_; cx_++, c++)

entity *world_find(const world *w, const entity *e, double radius, tagmask all, tagmask none) {
  if (!e->valid || !(radius >= 0)) return NULL;
  if (radius > w->w + w->h) radius = w->w + w->h;
  double best = radius * radius;
  entity *found = NULL;
  FOR_CELLS(w, e->x, e->y, radius, c) {
    const int_vec *v = &w->cells[c];
    for (int i = 0; i < v->n; i++) {
      entity *o = w->ents[v->v[i]];
      if (!matches(o, e, all, none)) continue;
      double d = dist2(e->x, e->y, o->x, o->y);
      if (d < best || (d == best && (!found || o->id < found->id))) {
        best = d;
        found = o;
      }
    }
  }
  return found;
}

static int hit_cmp(const void *a, const void *b) {
  const struct find_hit *x = a, *y = b;
  if (x->d != y->d) return x->d < y->d ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

int world_find_all_in(const world *w, world_scratch *s, const entity *e, double radius, tagmask all,
                      tagmask none, const int **ids) {
  *ids = NULL;
  if (!e->valid || !(radius >= 0)) return 0;
  if (radius > w->w + w->h) radius = w->w + w->h;
  double r2 = radius * radius;
  int n = 0;
  FOR_CELLS(w, e->x, e->y, radius, c) {
    const int_vec *v = &w->cells[c];
    for (int i = 0; i < v->n; i++) {
      entity *o = w->ents[v->v[i]];
      if (!matches(o, e, all, none)) continue;
      double d = dist2(e->x, e->y, o->x, o->y);
      if (d > r2) continue;
      if (n == s->cap_hits) {
        int cap = s->cap_hits ? s->cap_hits * 2 : 64;
        struct find_hit *p = realloc(s->hits, (size_t)cap * sizeof *p);
        if (!p) goto done;
        s->hits = p;
        s->cap_hits = cap;
      }
      s->hits[n].d = d;
      s->hits[n].id = o->id;
      n++;
    }
  }
done:
  if (n) qsort(s->hits, (size_t)n, sizeof *s->hits, hit_cmp);
  s->found.n = 0;
  for (int i = 0; i < n; i++)
    if (vec_push(&s->found, s->hits[i].id)) break;
  *ids = s->found.v;
  return s->found.n;
}

int world_find_all(world *w, const entity *e, double radius, tagmask all, tagmask none,
                   const int **ids) {
  return world_find_all_in(w, &w->scratch, e, radius, all, none, ids);
}

void world_scratch_free(world_scratch *s) {
  free(s->hits);
  free(s->found.v);
  memset(s, 0, sizeof *s);
}

/* ---- combat ---- */

int world_can_target(const entity *a, const entity *b) {
  return b && a != b && b->valid && !b->dead && is_creature(b);
}

int world_in_cooldown(const world *w, const entity *e) {
  return w->time < e->last_attack + e->cooldown;
}

/* A predator eats its kill, and shares it with the predators around. */
static void feast(world *w, entity *killer, const entity *kill) {
  const int_vec *v = NULL;
  FOR_CELLS(w, kill->x, kill->y, 8.0, c) {
    v = &w->cells[c];
    for (int i = 0; i < v->n; i++) {
      entity *o = w->ents[v->v[i]];
      if (o->dead || !(o->tags & w->tag_predator)) continue;
      if (o != killer && dist2(o->x, o->y, kill->x, kill->y) > 64) continue;
      o->hunger -= 0.7;
      if (o->hunger < 0) o->hunger = 0;
    }
  }
}

int world_attack_possible(const world *w, const entity *a, const entity *b) {
  if (!can_act(a) || !world_can_target(a, b)) return 0;
  if (dist2(a->x, a->y, b->x, b->y) > (a->range + 0.01) * (a->range + 0.01)) return 0;
  return !world_in_cooldown(w, a);
}

int world_attack(world *w, entity *a, entity *b) {
  if (!world_attack_possible(w, a, b)) return 0;
  if (a->action) world_end_action(w, a, 0);
  a->last_attack = w->time;
  world_face(a, b->x, b->y);
  if (world_rand(w) >= HIT_CHANCE) return 2;
  b->health -= a->damage;
  if (b->health <= 0) {
    world_kill(w, b, "attack", a->id);
    if ((a->tags & w->tag_predator) && (b->tags & w->tag_prey)) feast(w, a, b);
  }
  return 1;
}

/* ---- actions ---- */

static double action_seconds(const char *action) {
  if (strcmp(action, "eat") == 0) return 2;
  if (strcmp(action, "work") == 0) return 4;
  if (strcmp(action, "rest") == 0) return 6;
  return 1;
}

static int in_reach(const entity *e, const entity *t) {
  double r = t->radius + REACH;
  return dist2(e->x, e->y, t->x, t->y) <= r * r;
}

/* What a kind eats is in its kinds file entry (eats): grass, a house (a meal at home). */
static int edible(const world *w, const entity *e, const entity *t) {
  if (t->kind != KIND_GRASS && t->kind != KIND_HOUSE) return 0;
  return is_creature(e) && (w->kinds[e->kind].eats >> (t->kind - KINDS_MAX)) & 1;
}

/* Where it may rest: anywhere if it has no home, else near its home or at a house, den or post
 * it rests at. */
static int may_rest(const world *w, const entity *e, const entity *t) {
  const entity *home = world_get(w, e->home);
  if (!home) return 1;
  if (in_reach(e, home)) return 1;
  return t && (t->kind == KIND_HOUSE || t->kind == KIND_DEN || t->kind == KIND_POST) && in_reach(e, t);
}

static int action_possible(const world *w, const entity *e, const char *action, const entity *t) {
  if (t && (!t->valid || t->dead || t == e || !in_reach(e, t))) return 0;
  if (strcmp(action, "eat") == 0) return t && edible(w, e, t);
  if (strcmp(action, "work") == 0) return t && t->kind == KIND_FIELD;
  if (strcmp(action, "rest") == 0) return may_rest(w, e, t);
  return 1;
}

int world_action_possible(const world *w, const entity *e, const char *action, const entity *target) {
  return can_act(e) && action_possible(w, e, action, target);
}

int world_start_action(world *w, entity *e, const char *action, entity *target) {
  if (!world_action_possible(w, e, action, target)) return 0;
  char *copy = malloc(strlen(action) + 1);
  if (!copy) return 0;
  strcpy(copy, action);
  if (e->action) world_end_action(w, e, 0);
  e->move = MOVE_NONE;
  if (target) world_face(e, target->x, target->y);
  e->action = copy;
  e->action_target = target ? target->id : 0;
  e->action_end = w->time + action_seconds(action);
  return 1;
}

void world_end_action(world *w, entity *e, int success) {
  if (!e->action) return;
  if (w->ndone == w->cap_done) {
    int cap = w->cap_done ? w->cap_done * 2 : 64;
    action_done *p = realloc(w->done, (size_t)cap * sizeof *p);
    if (!p) {
      free(e->action);
      e->action = NULL;
      return;
    }
    w->done = p;
    w->cap_done = cap;
  }
  action_done *d = &w->done[w->ndone++];
  d->id = e->id;
  d->target = e->action_target;
  d->success = success;
  d->action = e->action;
  e->action = NULL;
  e->action_target = 0;
}

/* The action's effect, when its time is up. */
static void finish_action(world *w, entity *e) {
  entity *t = world_get(w, e->action_target);
  if (e->action_target && !t) {
    world_end_action(w, e, 0);
    return;
  }
  if (!action_possible(w, e, e->action, t)) {
    world_end_action(w, e, 0);
    return;
  }
  if (strcmp(e->action, "eat") == 0) {
    e->hunger -= t->kind == KIND_GRASS ? 0.5 : 0.6;
    if (e->hunger < 0) e->hunger = 0;
    if (t->kind == KIND_GRASS) world_remove(w, t);
  } else if (strcmp(e->action, "work") == 0) {
    e->fatigue += 0.1;
  } else if (strcmp(e->action, "rest") == 0) {
    e->fatigue = 0;
    e->health += 20;
    if (e->health > e->max_health) e->health = e->max_health;
  }
  world_end_action(w, e, 1);
}

int world_is_tired(const entity *e) { return e->fatigue >= 1; }

void world_say(world *w, entity *e, const char *text) {
  size_t n = strlen(text);
  if (n >= sizeof e->say) n = sizeof e->say - 1;
  for (size_t i = 0; i < n; i++) /* no control characters: the view prints it to a terminal */
    e->say[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
  e->say[n] = 0;
  e->say_until = w->time + 3;
}

/* ---- the facts of the blackboard keys the host writes ----
 *
 * A kind's `keys` (kinds file) name the facts the host writes into its brains' blackboards. The
 * world notes a change where it makes it, and queues the creature in w->keyed with the bits that
 * changed (arena_sync writes them, in the state that thinks the creature): hunger in hundredths
 * where needs() computes it, the night at dusk and dawn (w->night_changed: no creature is
 * queued), and the threat once a tick after everyone moved, for the kinds that ask for it only. */

static void key_changed(world *w, entity *e, unsigned bit) {
  if (!e->key_dirty && vec_push(&w->keyed, e->id)) return; /* out of memory: noted next change */
  e->key_dirty |= bit;
}

static int hunger_hundredths(const entity *e) { return (int)floor(e->hunger * 100 + 0.5); }

/* The threat of a creature whose kind has KEY_THREAT: the one it has while that one is alive, in
 * the world and at most `far` away; else the nearest creature within `near` with the kind's
 * threat tag (0: none). */
static int threat_of(const world *w, const entity *e) {
  const kind_info *ki = &w->kinds[e->kind];
  const entity *t = world_get(w, e->threat);
  if (t && !t->dead && dist2(e->x, e->y, t->x, t->y) <= ki->threat_far * ki->threat_far) return t->id;
  if (!w->kind_threat[e->kind]) return 0; /* a tag no entity has */
  if (w->cell_threats) { /* most are far from any threat: the cells say so without a look at one */
    int near = 0;
    FOR_CELLS(w, e->x, e->y, ki->threat_near, c) near |= w->cell_threats[c];
    if (!near) return 0;
  }
  const entity *found = world_find(w, e, ki->threat_near, w->kind_threat[e->kind], 0);
  return found ? found->id : 0;
}

/* Once a tick, after everyone moved: the threats of the creatures whose kind asks for them. */
static void note_threats(world *w) {
  for (int i = 0; i < w->creatures.n; i++) {
    entity *e = w->ents[w->creatures.v[i]];
    if (e->dead || !(w->kinds[e->kind].keys & KEY_THREAT)) continue;
    int t = threat_of(w, e);
    if (t != e->threat) {
      e->threat = t;
      key_changed(w, e, KEY_THREAT);
    }
  }
}

void world_keys_now(world *w, entity *e) {
  unsigned keys = is_creature(e) ? w->kinds[e->kind].keys : 0;
  e->hunger_key = hunger_hundredths(e);
  e->threat = (keys & KEY_THREAT) && !e->dead ? threat_of(w, e) : 0;
  if (keys) key_changed(w, e, keys);
}

/* ---- the tick ---- */

static void needs(world *w, entity *e) {
  const kind_info *ki = &w->kinds[e->kind];
  double dt = w->dt;
  int moving = e->move != MOVE_NONE;
  e->hunger += ki->hunger_rate * dt * (moving && e->run ? 1.5 : 1);
  if (e->hunger > 1) e->hunger = 1;
  if (!(e->action && strcmp(e->action, "rest") == 0)) {
    e->fatigue += ki->fatigue_rate * dt * (moving ? (e->run ? 2 : 1.25) : 1);
    if (e->fatigue > 1.5) e->fatigue = 1.5;
  }
  if (e->hunger >= 1) {
    e->health -= 1 * dt; /* starving */
    if (e->health <= 0) world_kill(w, e, "starvation", 0);
  } else if (e->hunger < 0.6 && e->health < e->max_health) {
    e->health += 0.5 * dt;
    if (e->health > e->max_health) e->health = e->max_health;
  }
  /* (hunger also falls in a meal and a feast: this sees those at the next tick's needs) */
  if ((ki->keys & KEY_HUNGER) && hunger_hundredths(e) != e->hunger_key) {
    e->hunger_key = hunger_hundredths(e);
    key_changed(w, e, KEY_HUNGER);
  }
}

static int pick(world *w, const int_vec *v) {
  return v->n ? v->v[(int)(world_rand(w) * v->n)] : 0;
}

/* Keeps the population up: lambs in the meadows, cubs at the dens, newcomers at the houses and
 * posts. */
static void births(world *w) {
  if (w->time < w->next_birth) return;
  w->next_birth = w->time + BIRTH_PERIOD;
  for (int k = 0; k < w->nkinds; k++) {
    home_t where = w->kinds[k].home;
    int deficit = w->initial[k] - w->alive[k];
    int n = w->initial[k] / 25;
    if (n < 1) n = 1;
    if (n > deficit) n = deficit;
    for (int i = 0; i < n; i++) {
      entity *home = NULL;
      double x, y;
      switch (where) {
        case HOME_MEADOW: {
          if (!w->npatches) return;
          patch *p = &w->patches[(int)(world_rand(w) * w->npatches)];
          x = p->x;
          y = p->y;
          break;
        }
        case HOME_NONE:
          x = rand_range(w, EDGE, w->w - EDGE);
          y = rand_range(w, EDGE, w->h - EDGE);
          break;
        case HOME_DEN: home = world_get(w, pick(w, &w->dens)); break;
        case HOME_HOUSE: home = world_get(w, pick(w, &w->houses)); break;
        default: home = world_get(w, pick(w, &w->posts)); break;
      }
      if (where != HOME_MEADOW && where != HOME_NONE) {
        if (!home) break;
        x = home->x;
        y = home->y;
      }
      entity *e = spawn_creature(w, k, x, y, home ? home->id : 0);
      if (!e) return;
      if (where == HOME_MEADOW) e->has_home = 1, e->hx = x, e->hy = y; /* its meadow */
      e->hunger = 0.1;
      w->births++;
    }
  }
}

static void grow_grass(world *w) {
  for (int i = 0; i < w->npatches; i++) {
    patch *p = &w->patches[i];
    if (p->alive < p->max && w->time >= p->next_growth) {
      spawn_grass(w, i);
      p->next_growth = w->time + rand_range(w, 4, 8);
    }
  }
}

void world_step(world *w, double time) {
  w->time = time;
  if (w->night != !world_is_day(w)) { /* dusk or dawn */
    w->night = !w->night;
    w->night_changed = 1;
  }
  for (int i = w->creatures.n - 1; i >= 0; i--) { /* (a removal moves the last one into slot i) */
    entity *e = w->ents[w->creatures.v[i]];
    if (e->dead && w->time >= e->died_at + BODY_SECONDS) world_remove(w, e);
  }
  for (int i = 0; i < w->creatures.n; i++) {
    entity *e = w->ents[w->creatures.v[i]];
    if (e->dead) continue;
    needs(w, e);
    if (e->dead) continue;
    if (e->move != MOVE_NONE) locomote(w, e);
    if (e->action) {
      entity *t = world_get(w, e->action_target);
      if (e->action_target && (!t || t->dead)) world_end_action(w, e, 0); /* its target is gone */
      else if (w->time >= e->action_end) finish_action(w, e);
    }
  }
  grow_grass(w);
  births(w);
  if (w->any_keys & KEY_THREAT) note_threats(w);
}

/* ---- making the world ---- */

static double min_dist(const world *w, const int_vec *ids, double x, double y) {
  double best = 1e18;
  for (int i = 0; i < ids->n; i++) {
    const entity *o = w->ents[ids->v[i]];
    double d = dist2(x, y, o->x, o->y);
    if (d < best) best = d;
  }
  return sqrt(best);
}

/* A walkable point at least `margin` from the edge: of `tries` candidates, the one farthest from
 * the points (ax, ay)[n]. */
static void place(world *w, double margin, int tries, const double *ax, const double *ay, int n,
                  double *ox, double *oy) {
  double best = -1;
  *ox = w->w / 2;
  *oy = w->h / 2;
  for (int attempt = 0, found = 0; attempt < tries * 4 && found < tries; attempt++) {
    double x = rand_range(w, margin, w->w - margin), y = rand_range(w, margin, w->h - margin);
    if (in_pond(w, x, y, 3)) continue;
    found++;
    double d = 1e18;
    for (int i = 0; i < n; i++) {
      double q = dist2(x, y, ax[i], ay[i]);
      if (q < d) d = q;
    }
    if (d > best) {
      best = d;
      *ox = x;
      *oy = y;
    }
  }
}

/* The creatures of each kind: agents * share / (the shares' sum), rounded, for all but the last
 * kind, which gets the rest; where the rounding overshoots, the latest kinds give some up. */
static void census(const world *w, int agents, int *counts) {
  double total = 0;
  for (int k = 0; k < w->nkinds; k++) total += w->kinds[k].share;
  int sum = 0, last = w->nkinds - 1;
  for (int k = 0; k < last; k++) {
    counts[k] = total > 0 ? (int)floor(agents * (w->kinds[k].share / total) + 0.5) : 0;
    sum += counts[k];
  }
  for (int k = last - 1; k >= 0 && sum > agents; k--) {
    int give = sum - agents < counts[k] ? sum - agents : counts[k];
    counts[k] -= give;
    sum -= give;
  }
  counts[last] = agents - sum;
}

/* How many of the kinds living at `home` go to group g of n (villages, ...): counts spread
 * evenly, the first groups taking one more. */
static int share_of(const world *w, const int *counts, home_t home, int g, int n) {
  int m = 0;
  for (int k = 0; k < w->nkinds; k++)
    if (w->kinds[k].home == home) m += counts[k] / n + (g < counts[k] % n);
  return m;
}

static int living_at(const world *w, const int *counts, home_t home) {
  int m = 0;
  for (int k = 0; k < w->nkinds; k++)
    if (w->kinds[k].home == home) m += counts[k];
  return m;
}

static int build(world *w, int agents) {
  int counts[KINDS_MAX];
  census(w, agents, counts);
  int villagers = living_at(w, counts, HOME_HOUSE), guards = living_at(w, counts, HOME_POST);
  int wolves = living_at(w, counts, HOME_DEN), sheep = living_at(w, counts, HOME_MEADOW);

  /* ponds */
  double area = w->w * w->h / (160.0 * 80.0);
  w->nponds = (int)floor(1.5 * area + 0.5);
  if (w->nponds < 1) w->nponds = 1;
  w->ponds = calloc((size_t)w->nponds, sizeof *w->ponds);
  if (!w->ponds) return -1;
  for (int i = 0; i < w->nponds; i++) {
    pond *p = &w->ponds[i];
    p->r = rand_range(w, 4, 8);
    p->x = rand_range(w, p->r + 8, w->w - p->r - 8);
    p->y = rand_range(w, p->r + 6, w->h - p->r - 6);
    FOR_CELLS(w, p->x, p->y, p->r + 1, c) {
      if (vec_push(&w->pond_cells[c], i)) return -1;
    }
  }

  /* villages: houses (two villagers each), fields, and guard posts around them */
  int nvillages = villagers + guards > 0 ? (villagers + guards + 15) / 16 : 0;
  double *vx = calloc((size_t)nvillages + 1, sizeof *vx), *vy = calloc((size_t)nvillages + 1, sizeof *vy);
  if (!vx || !vy) return free(vx), free(vy), -1;
  for (int v = 0; v < nvillages; v++) place(w, 16, 12, vx, vy, v, &vx[v], &vy[v]);
  int_vec vhouses = {0}, vposts = {0};
  for (int v = 0; v < nvillages; v++) {
    int nv = share_of(w, counts, HOME_HOUSE, v, nvillages);
    int ng = share_of(w, counts, HOME_POST, v, nvillages);
    int nh = (nv + 1) / 2, nf = nh ? (nh + 1) / 2 : 0, np = (ng + 1) / 2;
    vhouses.n = 0;
    for (int i = 0; i < nh; i++) {
      double x = vx[v], y = vy[v], r = 3 + 2.2 * sqrt((double)nh);
      for (int t = 0; t < 30; t++) {
        double a = rand_range(w, 0, 2 * PI), d = r * sqrt(world_rand(w));
        x = vx[v] + cos(a) * d;
        y = vy[v] + sin(a) * d;
        if (world_walkable(w, x, y) && !in_pond(w, x, y, 2) && min_dist(w, &vhouses, x, y) > 4.5) break;
      }
      entity *h = spawn(w, KIND_HOUSE, x, y);
      if (!h || vec_push(&vhouses, h->id) || vec_push(&w->houses, h->id)) return free(vx), free(vy), -1;
    }
    double rr = 5 + 2.2 * sqrt((double)nh);
    for (int i = 0; i < nf; i++) {
      double x = vx[v], y = vy[v];
      for (int t = 0; t < 30; t++) {
        double a = rand_range(w, 0, 2 * PI), d = rand_range(w, rr + 4, rr + 9);
        x = vx[v] + cos(a) * d;
        y = vy[v] + sin(a) * d;
        if (world_walkable(w, x, y) && !in_pond(w, x, y, 5) && min_dist(w, &w->fields, x, y) > 9) break;
      }
      entity *f = spawn(w, KIND_FIELD, x, y);
      if (!f || vec_push(&w->fields, f->id)) return free(vx), free(vy), -1;
    }
    vposts.n = 0;
    double a0 = rand_range(w, 0, 2 * PI);
    for (int i = 0; i < np; i++) {
      double x = vx[v], y = vy[v];
      for (int t = 0; t < 30; t++) {
        double a = a0 + 2 * PI * i / np + rand_range(w, -0.3, 0.3), d = rand_range(w, rr + 10, rr + 14);
        x = vx[v] + cos(a) * d;
        y = vy[v] + sin(a) * d;
        if (world_walkable(w, x, y)) break;
      }
      entity *p = spawn(w, KIND_POST, x, y);
      if (!p || vec_push(&vposts, p->id) || vec_push(&w->posts, p->id)) return free(vx), free(vy), -1;
    }
    /* their people: two to a house, in the order of the kinds; then the posts' */
    for (int k = 0, i = 0; k < w->nkinds; k++) {
      if (w->kinds[k].home != HOME_HOUSE) continue;
      for (int j = counts[k] / nvillages + (v < counts[k] % nvillages); j > 0; j--, i++) {
        entity *h = w->ents[vhouses.v[i / 2]];
        if (!spawn_creature(w, k, h->x, h->y, h->id)) return free(vx), free(vy), -1;
      }
    }
    for (int k = 0, i = 0; k < w->nkinds; k++) {
      if (w->kinds[k].home != HOME_POST) continue;
      for (int j = counts[k] / nvillages + (v < counts[k] % nvillages); j > 0; j--, i++) {
        entity *p = w->ents[vposts.v[i % np]];
        if (!spawn_creature(w, k, p->x, p->y, p->id)) return free(vx), free(vy), -1;
      }
    }
  }
  vec_free(&vhouses);
  vec_free(&vposts);

  /* wolf dens, far from the villages; packs of up to five */
  int ndens = wolves > 0 ? (wolves + 4) / 5 : 0;
  for (int i = 0; i < ndens; i++) {
    double x, y;
    int n = nvillages + i;
    double *ax = malloc(sizeof *ax * (size_t)(n + 1)), *ay = malloc(sizeof *ay * (size_t)(n + 1));
    if (!ax || !ay) return free(ax), free(ay), free(vx), free(vy), -1;
    for (int v = 0; v < nvillages; v++) ax[v] = vx[v], ay[v] = vy[v];
    for (int d = 0; d < i; d++) ax[nvillages + d] = w->ents[w->dens.v[d]]->x, ay[nvillages + d] = w->ents[w->dens.v[d]]->y;
    place(w, 6, 16, ax, ay, n, &x, &y);
    free(ax);
    free(ay);
    entity *den = spawn(w, KIND_DEN, x, y);
    if (!den || vec_push(&w->dens, den->id)) return free(vx), free(vy), -1;
  }
  for (int k = 0, i = 0; k < w->nkinds; k++) {
    if (w->kinds[k].home != HOME_DEN) continue;
    for (int j = 0; j < counts[k]; j++, i++) {
      entity *den = w->ents[w->dens.v[i % ndens]];
      if (!spawn_creature(w, k, den->x, den->y, den->id)) return free(vx), free(vy), -1;
    }
  }

  /* meadows: patches of grass away from the villages; every third one within a wolf's reach of
   * a den (hunting grounds), the others anywhere else */
  w->npatches = sheep > 0 ? (sheep + 2) / 3 : 2;
  if (w->npatches < 2) w->npatches = 2;
  w->patches = calloc((size_t)w->npatches, sizeof *w->patches);
  if (!w->patches) return free(vx), free(vy), -1;
  for (int i = 0; i < w->npatches; i++) {
    patch *p = &w->patches[i];
    const entity *den = ndens && i % 3 == 0 ? w->ents[w->dens.v[(i / 3) % ndens]] : NULL;
    double x = 0, y = 0;
    for (int t = 0; t < 40; t++) {
      if (den) {
        double a = rand_range(w, 0, 2 * PI), d = rand_range(w, 14, 24);
        x = den->x + cos(a) * d;
        y = den->y + sin(a) * d;
      } else {
        x = rand_range(w, 8, w->w - 8);
        y = rand_range(w, 8, w->h - 8);
      }
      int ok = x > 6 && y > 6 && x < w->w - 6 && y < w->h - 6 && !in_pond(w, x, y, 4);
      for (int v = 0; ok && v < nvillages; v++) ok = dist2(x, y, vx[v], vy[v]) > 24 * 24;
      if (ok && min_dist(w, &w->dens, x, y) > 12) break;
    }
    p->x = x;
    p->y = y;
    p->r = rand_range(w, 3.5, 6);
    p->max = 6;
    for (int g = 0; g < p->max; g++)
      if (!spawn_grass(w, i)) return free(vx), free(vy), -1;
  }
  free(vx);
  free(vy);
  for (int k = 0, i = 0; k < w->nkinds; k++) {
    if (w->kinds[k].home != HOME_MEADOW) continue;
    for (int j = 0; j < counts[k]; j++, i++) {
      patch *p = &w->patches[i % w->npatches];
      entity *e = spawn_creature(w, k, p->x, p->y, 0);
      if (!e) return -1;
      e->has_home = 1; /* its meadow */
      e->hx = p->x;
      e->hy = p->y;
    }
  }
  /* the homeless: anywhere */
  for (int k = 0; k < w->nkinds; k++) {
    if (w->kinds[k].home != HOME_NONE) continue;
    for (int j = 0; j < counts[k]; j++) {
      double x = rand_range(w, EDGE, w->w - EDGE), y = rand_range(w, EDGE, w->h - EDGE);
      if (!spawn_creature(w, k, x, y, 0)) return -1;
    }
  }
  for (int k = 0; k < w->nkinds; k++) w->initial[k] = counts[k];
  return 0;
}

/* The cells' threat counts are the arena's one fast path, a second way of finding no threat:
 * with the environment's BT_NO_FAST_PATHS set (not "" nor "0"), as for bt's own, every creature
 * that watches for threats looks, so that arena.fast_paths compares the two ways. */
static int fast_paths(void) {
  const char *v = getenv("BT_NO_FAST_PATHS");
  return !v || !*v || strcmp(v, "0") == 0;
}

/* What every world has before its entities: its size, kinds and tags, the grid, the clock. */
static int setup(world *w, double width, double height, const kind_info *kinds, int n) {
  memset(w, 0, sizeof *w);
  if (n < 1 || n > KINDS_MAX || !(width > 0) || !(height > 0) || width > 1e6 || height > 1e6) return -1;
  w->nkinds = n;
  memcpy(w->kinds, kinds, (size_t)n * sizeof *kinds);
  memcpy(&w->kinds[KINDS_MAX], OBJECTS, sizeof OBJECTS);
  w->w = width;
  w->h = height;
  w->dt = 1.0 / 30;
  w->day_length = 60;
  w->night_fraction = 1.0 / 3;
  w->next_birth = BIRTH_PERIOD;
  w->cap_ents = 256;
  w->ents = calloc((size_t)w->cap_ents, sizeof *w->ents);
  w->nents = 1;
  w->cell_size = 8;
  w->gw = (int)ceil(w->w / w->cell_size);
  w->gh = (int)ceil(w->h / w->cell_size);
  w->cells = calloc((size_t)w->gw * (size_t)w->gh, sizeof *w->cells);
  w->pond_cells = calloc((size_t)w->gw * (size_t)w->gh, sizeof *w->pond_cells);
  if (!w->ents || !w->cells || !w->pond_cells) return -1;
  for (int k = 0; k < KIND_COUNT; k++)
    for (int i = 0; i < w->kinds[k].ntags; i++) add_tag(w, w->kinds[k].tags[i]);
  for (int i = 0; EXTRA_TAGS[i]; i++) add_tag(w, EXTRA_TAGS[i]);
  for (int k = 0; k < KIND_COUNT; k++)
    for (int i = 0; i < w->kinds[k].ntags; i++) {
      int t = world_tag(w, w->kinds[k].tags[i]);
      if (t >= 0) w->kind_tag[k] |= (tagmask)1 << t;
    }
  w->tag_predator = (tagmask)1 << world_tag(w, "predator");
  w->tag_prey = (tagmask)1 << world_tag(w, "prey");
  for (int k = 0; k < n; k++) {
    w->any_keys |= w->kinds[k].keys;
    int t = w->kinds[k].keys & KEY_THREAT ? world_tag(w, w->kinds[k].threat_tag) : -1;
    w->kind_threat[k] = t >= 0 ? (tagmask)1 << t : 0; /* a tag no entity has: no threat */
    w->threat_tags |= w->kind_threat[k];
  }
  if (w->threat_tags && fast_paths() && !(w->cell_threats = calloc((size_t)w->gw * (size_t)w->gh, sizeof *w->cell_threats)))
    return -1;
  return 0;
}

int world_init(world *w, int agents, uint64_t seed, const kind_info *kinds, int n) {
  double f = agents > 200 ? sqrt(agents / 200.0) : 1; /* keep the crowd's density */
  if (setup(w, 160 * f, 80 * f, kinds, n) != 0) return -1;
  uint64_t s = seed;
  w->rng = splitmix(&s) | 1;
  return build(w, agents);
}

/* ---- a world rebuilt from a recording ---- */

int world_init_map(world *w, double width, double height, const kind_info *kinds, int n, const pond *ponds,
                   int nponds) {
  if (setup(w, width, height, kinds, n) != 0 || nponds < 0) return -1;
  w->rng = 1;
  w->ponds = calloc((size_t)nponds + 1, sizeof *w->ponds);
  if (!w->ponds) return -1;
  for (int i = 0; i < nponds; i++) {
    pond *p = &w->ponds[w->nponds++];
    *p = ponds[i];
    FOR_CELLS(w, p->x, p->y, p->r + 1, c) {
      if (vec_push(&w->pond_cells[c], i)) return -1;
    }
  }
  return 0;
}

entity *world_place(world *w, int id, int k, double x, double y) {
  if (id < w->nents || id > WORLD_MAX_ID || !((k >= 0 && k < w->nkinds) || (k >= KINDS_MAX && k < KIND_COUNT)))
    return NULL;
  if (id >= w->cap_ents) {
    int cap = w->cap_ents;
    while (cap <= id) cap *= 2;
    entity **p = realloc(w->ents, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    w->ents = p;
    w->cap_ents = cap;
  }
  while (w->nents < id) w->ents[w->nents++] = NULL; /* ids that came and went unrecorded */
  entity *e = spawn(w, k, x, y);
  if (e && k == KIND_FIELD && vec_push(&w->fields, e->id)) return NULL;
  return e;
}

void world_set_position(world *w, entity *e, double x, double y) {
  e->x = x;
  e->y = y;
  if (e->valid && e->cell >= 0) grid_move(w, e);
}

void world_clear_queues(world *w) {
  for (int i = 0; i < w->ndone; i++) free(w->done[i].action);
  w->ndone = 0;
  w->died.n = w->removed.n = w->spawned.n = 0;
  for (int i = 0; i < w->keyed.n; i++) w->ents[w->keyed.v[i]]->key_dirty = 0;
  w->keyed.n = 0;
  w->night_changed = 0;
}

void world_free(world *w) {
  for (int i = 1; i < w->nents; i++) {
    if (w->ents[i]) free(w->ents[i]->action);
    free(w->ents[i]);
  }
  free(w->ents);
  int ncells = w->gw * w->gh;
  for (int i = 0; w->cells && i < ncells; i++) vec_free(&w->cells[i]);
  for (int i = 0; w->pond_cells && i < ncells; i++) vec_free(&w->pond_cells[i]);
  free(w->cells);
  free(w->pond_cells);
  free(w->cell_threats);
  for (int i = 0; i < w->ndone; i++) free(w->done[i].action);
  free(w->done);
  free(w->ponds);
  free(w->patches);
  world_scratch_free(&w->scratch);
  int_vec *vs[] = {&w->active, &w->creatures, &w->died, &w->removed, &w->spawned, &w->keyed,
                   &w->dens, &w->houses, &w->posts, &w->fields};
  for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) vec_free(vs[i]);
  memset(w, 0, sizeof *w);
}
