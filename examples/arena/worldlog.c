/* SPDX-License-Identifier: MIT */
/*
 * worldlog.c: the world's records in a recording (see worldlog.h; the bytes: docs/arena.md).
 */
#include "worldlog.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what an entry of a frame holds (its first byte) */
#define W_NEW 0x01
#define W_POS 0x02
#define W_HEALTH 0x04
#define W_HUNGER 0x08
#define W_STATE 0x10
#define W_ACTION 0x20
#define W_SAY 0x40
#define W_MORE 0x80
/* its second byte, after W_MORE */
#define M_TARGET 0x01
#define M_DEATH 0x02
#define M_GONE 0x04
/* the state byte */
#define S_MOVING 0x01
#define S_RUNNING 0x02
#define S_TIRED 0x04
#define S_BRAIN 0x08

#define Q 16.0 /* positions in sixteenths of a unit */
#define ACTION_MAX 24
#define SAY_MAX 48
#define HEALTH_MAX 1000000
#define PONDS_MAX 100000

static const char *const CAUSES[] = {"", "attack", "starvation"};
#define NCAUSES 3

/* ---- bytes ---- */

void worldlog_bytes_free(worldlog_bytes *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static void put(worldlog_bytes *b, const void *data, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
}

static void put_byte(worldlog_bytes *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  put(b, &c, 1);
}

static void put_varint(worldlog_bytes *b, uint64_t v) {
  unsigned char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  buf[n++] = (unsigned char)v;
  put(b, buf, (size_t)n);
}

static void put_zigzag(worldlog_bytes *b, int64_t v) { put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

static void put_f64(worldlog_bytes *b, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  unsigned char buf[8];
  for (int i = 0; i < 8; i++) buf[i] = (unsigned char)(u >> (8 * i));
  put(b, buf, 8);
}

static void put_string(worldlog_bytes *b, const char *s, size_t n) {
  put_varint(b, n);
  put(b, s, n);
}

/* ---- writing ---- */

struct worldlog_seen {
  int qx, qy, health, target;
  unsigned char present, hunger, state, dead;
  double say_until;
  char action[ACTION_MAX], say[SAY_MAX];
};

void worldlog_writer_free(worldlog_writer *wr) {
  free(wr->seen);
  memset(wr, 0, sizeof *wr);
}

int worldlog_map(const world *w, unsigned long long seed, long agents, worldlog_bytes *out) {
  out->n = 0;
  out->oom = 0;
  put_byte(out, WORLDLOG_VERSION);
  put_varint(out, seed);
  put_varint(out, (uint64_t)(agents > 0 ? agents : 0));
  put_f64(out, w->w);
  put_f64(out, w->h);
  put_f64(out, w->dt);
  put_f64(out, w->day_length);
  put_f64(out, w->night_fraction);
  put_varint(out, (uint64_t)w->nkinds);
  for (int k = 0; k < w->nkinds; k++) {
    const kind_info *ki = &w->kinds[k];
    put_string(out, ki->name, strlen(ki->name));
    put_string(out, ki->plural, strlen(ki->plural));
    put_byte(out, (unsigned char)ki->glyph);
    put_string(out, ki->sgr, strlen(ki->sgr));
    put_f64(out, ki->damage);
    put_f64(out, ki->radius);
  }
  put_varint(out, (uint64_t)w->nponds);
  for (int i = 0; i < w->nponds; i++) {
    put_f64(out, w->ponds[i].x);
    put_f64(out, w->ponds[i].y);
    put_f64(out, w->ponds[i].r);
  }
  return out->oom ? -1 : 0;
}

static int quantize(double v) {
  double q = floor(v * Q + 0.5);
  return q < -1e9 ? -1000000000 : q > 1e9 ? 1000000000 : (int)q;
}

static int state_of(const entity *e) {
  return (e->move != MOVE_NONE ? S_MOVING : 0) | (e->move != MOVE_NONE && e->run ? S_RUNNING : 0) |
         (world_is_tired(e) ? S_TIRED : 0) | (e->has_brain ? S_BRAIN : 0);
}

static int cause_of(const entity *e) {
  for (int i = 1; i < NCAUSES; i++)
    if (e->cause && strcmp(e->cause, CAUSES[i]) == 0) return i;
  return 0;
}

/* Copies s into dst (size bytes), cut to fit; 1 if that differs from what dst held. */
static int take(char *dst, size_t size, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n >= size) n = size - 1;
  if (strncmp(dst, s ? s : "", n) == 0 && dst[n] == 0) return 0;
  memcpy(dst, s ? s : "", n);
  dst[n] = 0;
  return 1;
}

/* The entry of entity e into out, if anything of it changed since s; *prev_id: the id of the
 * frame's entry before. */
static void entry(worldlog_bytes *out, int *prev_id, struct worldlog_seen *s, const entity *e, const world *w,
                  int positions) {
  unsigned what = 0, more = 0;
  int qx = 0, qy = 0, health = 0, hunger = 0, state = 0;
  if (!e->valid) {
    if (!s->present) return;
    if (e->dead && !s->dead) more |= M_DEATH; /* it died and left in the same tick */
    more |= M_GONE;
    s->present = 0;
  } else {
    if (s->present && !world_is_creature(e)) return; /* the world's objects only come and go */
    if (!s->present) {
      memset(s, 0, sizeof *s);
      s->present = 1;
      what |= W_NEW;
    }
    qx = quantize(e->x);
    qy = quantize(e->y);
    if (!(what & W_NEW) && (positions || (e->dead && !s->dead)) && (qx != s->qx || qy != s->qy)) what |= W_POS;
    health = (int)floor(e->health + 0.5);
    health = health < 0 ? 0 : health > HEALTH_MAX ? HEALTH_MAX : health;
    if (health != s->health) what |= W_HEALTH;
    double hv = floor(e->hunger * 100 + 0.5);
    hunger = hv < 0 ? 0 : hv > 255 ? 255 : (int)hv;
    if (hunger != s->hunger) what |= W_HUNGER;
    state = state_of(e);
    if (state != s->state) what |= W_STATE;
    if (take(s->action, sizeof s->action, e->action)) what |= W_ACTION;
    if (take(s->say, sizeof s->say, e->say) || e->say_until != s->say_until) what |= W_SAY;
    if (e->target != s->target) more |= M_TARGET;
    if (e->dead && !s->dead) more |= M_DEATH;
  }
  if (!what && !more) return;
  put_varint(out, (uint64_t)(e->id - *prev_id));
  *prev_id = e->id;
  put_byte(out, what | (more ? W_MORE : 0));
  if (more) put_byte(out, more);
  if (what & W_NEW) {
    put_varint(out, (uint64_t)e->kind);
    put_zigzag(out, qx);
    put_zigzag(out, qy);
    s->qx = qx;
    s->qy = qy;
  }
  if (what & W_POS) {
    put_zigzag(out, (int64_t)qx - s->qx);
    put_zigzag(out, (int64_t)qy - s->qy);
    s->qx = qx;
    s->qy = qy;
  }
  if (what & W_HEALTH) put_varint(out, (uint64_t)(s->health = health));
  if (what & W_HUNGER) put_byte(out, s->hunger = (unsigned char)hunger);
  if (what & W_STATE) put_byte(out, s->state = (unsigned char)state);
  if (what & W_ACTION) put_string(out, s->action, strlen(s->action));
  if (what & W_SAY) {
    s->say_until = e->say_until;
    double left = floor((e->say_until - w->time) * 30 + 0.5);
    put_string(out, s->say, strlen(s->say));
    put_varint(out, left < 0 ? 0 : left > 1e6 ? 1000000 : (uint64_t)left);
  }
  if (more & M_TARGET) put_varint(out, (uint64_t)(s->target = e->target < 0 ? 0 : e->target));
  if (more & M_DEATH) {
    s->dead = 1;
    put_byte(out, (unsigned)cause_of(e));
    put_varint(out, (uint64_t)(e->killer < 0 ? 0 : e->killer));
  }
}

int worldlog_frame(worldlog_writer *wr, const world *w, long long tick, int positions, worldlog_bytes *out) {
  out->n = 0;
  out->oom = 0;
  if (w->nents > wr->cap) {
    int cap = wr->cap ? wr->cap : 1024;
    while (cap < w->nents) cap *= 2;
    struct worldlog_seen *p = realloc(wr->seen, (size_t)cap * sizeof *p);
    if (!p) return -1;
    memset(p + wr->cap, 0, (size_t)(cap - wr->cap) * sizeof *p);
    wr->seen = p;
    wr->cap = cap;
  }
  positions |= tick % WORLDLOG_POSITION_TICKS == 0;
  put_varint(out, (uint64_t)(tick < 0 ? 0 : tick));
  int prev = 0;
  for (int id = 1; id < w->nents; id++)
    if (w->ents[id]) entry(out, &prev, &wr->seen[id], w->ents[id], w, positions);
  wr->frames++;
  return out->oom ? -1 : 0;
}

/* ---- reading ---- */

typedef struct cursor {
  const unsigned char *p, *end;
  char *err;
  size_t errsize;
  int failed;
} cursor;

static int fail(cursor *c, const char *fmt, ...) {
  if (!c->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errsize, fmt, ap);
    va_end(ap);
  }
  c->failed = 1;
  return -1;
}

static uint64_t get_varint(cursor *c, const char *what) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (c->p >= c->end) return fail(c, "%s: the record ends inside a number", what), 0;
    unsigned char b = *c->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  return fail(c, "%s: a number of more than 10 bytes", what), 0;
}

/* A varint from 0 to max. */
static long long get_count(cursor *c, const char *what, long long max) {
  uint64_t v = get_varint(c, what);
  if (!c->failed && v > (uint64_t)max) return fail(c, "%s: %llu is above %lld", what, (unsigned long long)v, max), 0;
  return (long long)v;
}

static int64_t get_zigzag(cursor *c, const char *what) {
  uint64_t v = get_varint(c, what);
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static unsigned get_byte(cursor *c, const char *what) {
  if (c->p >= c->end) return (unsigned)fail(c, "%s: the record ends there", what), 0;
  return *c->p++;
}

static double get_f64(cursor *c, const char *what) {
  if (c->end - c->p < 8) return fail(c, "%s: the record ends there", what), 0;
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u |= (uint64_t)c->p[i] << (8 * i);
  c->p += 8;
  double v;
  memcpy(&v, &u, sizeof v);
  if (v != v || v > 1e12 || v < -1e12) return fail(c, "%s: %g is no size", what, v), 0;
  return v;
}

/* A string of fewer than size bytes, without control characters, into buf. */
static void get_string(cursor *c, const char *what, char *buf, size_t size) {
  long long n = get_count(c, what, (long long)size - 1);
  buf[0] = 0;
  if (c->failed) return;
  if (c->end - c->p < n) {
    fail(c, "%s: the record ends inside it", what);
    return;
  }
  for (long long i = 0; i < n; i++) {
    unsigned char ch = c->p[i];
    buf[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  buf[n] = 0;
  c->p += n;
}

int worldlog_read_map(world *w, const void *data, size_t size, char *err, size_t errsize) {
  cursor c = {data, (const unsigned char *)data + size, err, errsize, 0};
  unsigned version = get_byte(&c, "the map's version");
  if (!c.failed && version != WORLDLOG_VERSION)
    return fail(&c, "the map is of version %u of the arena's records; this bt-arena reads version %d", version,
                WORLDLOG_VERSION);
  get_varint(&c, "the seed");
  get_varint(&c, "the agents");
  double width = get_f64(&c, "the width"), height = get_f64(&c, "the height");
  double dt = get_f64(&c, "the tick"), day = get_f64(&c, "the day's length"), night = get_f64(&c, "the night's part");
  int nkinds = (int)get_count(&c, "the kinds", KINDS_MAX);
  if (c.failed) return -1;
  if (nkinds < 1) return fail(&c, "the map has no creature kinds");
  kind_info kinds[KINDS_MAX];
  memset(kinds, 0, sizeof kinds);
  for (int k = 0; k < nkinds && !c.failed; k++) {
    kind_info *ki = &kinds[k];
    get_string(&c, "a kind's name", ki->name, sizeof ki->name);
    get_string(&c, "a kind's plural", ki->plural, sizeof ki->plural);
    unsigned g = get_byte(&c, "a kind's glyph");
    ki->glyph = g > 0x20 && g < 0x7f ? (char)g : '?';
    get_string(&c, "a kind's colour", ki->sgr, sizeof ki->sgr);
    for (char *p = ki->sgr; *p; p++)
      if (!((*p >= '0' && *p <= '9') || *p == ';')) *p = '0'; /* an SGR list: digits and ';' only */
    ki->damage = get_f64(&c, "a kind's damage");
    ki->radius = get_f64(&c, "a kind's radius");
  }
  int nponds = (int)get_count(&c, "the ponds", PONDS_MAX);
  pond *ponds = c.failed ? NULL : calloc((size_t)nponds + 1, sizeof *ponds);
  if (!c.failed && !ponds) return fail(&c, "out of memory");
  for (int i = 0; i < nponds && !c.failed; i++) {
    ponds[i].x = get_f64(&c, "a pond's x");
    ponds[i].y = get_f64(&c, "a pond's y");
    ponds[i].r = get_f64(&c, "a pond's radius");
  }
  if (c.failed) return free(ponds), -1;
  if (c.p != c.end) return free(ponds), fail(&c, "%zu bytes after the map", (size_t)(c.end - c.p));
  /* the arena's largest world, of 1,000,000 agents, is about 11,300 x 5,700 units */
  if (!(width >= 1 && height >= 1 && width <= 1e6 && height <= 1e6 && width * height <= 1e8))
    return free(ponds), fail(&c, "a world of %g x %g units", width, height);
  if (world_init_map(w, width, height, kinds, nkinds, ponds, nponds) != 0) {
    free(ponds);
    world_free(w);
    return fail(&c, "out of memory making a world of %g x %g units", width, height);
  }
  free(ponds);
  if (dt > 0 && dt < 10) w->dt = dt;
  if (day > 0) w->day_length = day;
  if (night >= 0 && night < 1) w->night_fraction = night;
  return 0;
}

int worldlog_run(long long reload_at, worldlog_bytes *out) {
  out->n = 0;
  out->oom = 0;
  put_byte(out, WORLDLOG_VERSION);
  put_varint(out, (uint64_t)(reload_at > 0 ? reload_at : 0));
  return out->oom ? -1 : 0;
}

int worldlog_read_run(const void *data, size_t size, long long *reload_at, char *err, size_t errsize) {
  cursor c = {data, (const unsigned char *)data + size, err, errsize, 0};
  unsigned version = get_byte(&c, "the run's version");
  if (!c.failed && version != WORLDLOG_VERSION)
    return fail(&c, "the run record is of version %u of the arena's records; this bt-arena reads version %d",
                version, WORLDLOG_VERSION);
  *reload_at = get_count(&c, "the tick of --reload-at", 1LL << 40);
  if (!c.failed && c.p != c.end) return fail(&c, "%zu bytes after the run record", (size_t)(c.end - c.p));
  return c.failed ? -1 : 0;
}

int worldlog_map_info(const void *data, size_t size, unsigned long long *seed, long *agents, char *err,
                      size_t errsize) {
  cursor c = {data, (const unsigned char *)data + size, err, errsize, 0};
  unsigned version = get_byte(&c, "the map's version");
  if (!c.failed && version != WORLDLOG_VERSION)
    return fail(&c, "the map is of version %u of the arena's records; this bt-arena reads version %d", version,
                WORLDLOG_VERSION);
  *seed = get_varint(&c, "the seed");
  *agents = (long)get_count(&c, "the agents", 1000000);
  return c.failed ? -1 : 0;
}

void worldlog_reader_free(worldlog_reader *rd) {
  free(rd->q);
  memset(rd, 0, sizeof *rd);
}

static int room_for(worldlog_reader *rd, int id) {
  if (id < rd->cap) return 0;
  int cap = rd->cap ? rd->cap : 1024;
  while (cap <= id) cap *= 2;
  int(*q)[2] = realloc(rd->q, (size_t)cap * sizeof *q);
  if (!q) return -1;
  memset(q + rd->cap, 0, (size_t)(cap - rd->cap) * sizeof *q);
  rd->q = q;
  rd->cap = cap;
  return 0;
}

int worldlog_read_frame(worldlog_reader *rd, world *w, double time, const void *data, size_t size, char *err,
                        size_t errsize) {
  cursor c = {data, (const unsigned char *)data + size, err, errsize, 0};
  long long tick = (long long)get_varint(&c, "the frame's tick");
  if (c.failed) return -1;
  w->time = time;
  int id = 0;
  char text[SAY_MAX];
  while (c.p < c.end && !c.failed) {
    long long gap = get_count(&c, "an entity's id", WORLD_MAX_ID);
    if (c.failed) break;
    if (gap < 1 || id + gap > WORLD_MAX_ID) return fail(&c, "entity ids out of order (%d then %d more)", id, (int)gap);
    id += (int)gap;
    unsigned what = get_byte(&c, "what changed"), more = what & W_MORE ? get_byte(&c, "what else changed") : 0;
    if (c.failed) break;
    if (more & ~(unsigned)(M_TARGET | M_DEATH | M_GONE)) return fail(&c, "entity %d: unknown changes %02x", id, more);
    if (room_for(rd, id) != 0) return fail(&c, "out of memory");
    entity *e = world_any(w, id);
    if (what & W_NEW) {
      long long kind = get_count(&c, "a new entity's kind", KIND_COUNT - 1);
      int64_t qx = get_zigzag(&c, "a new entity's x"), qy = get_zigzag(&c, "a new entity's y");
      if (c.failed) break;
      if (qx < -1000000000 || qy < -1000000000 || qx > 1000000000 || qy > 1000000000)
        return fail(&c, "entity %d comes out of bounds", id);
      if (e) return fail(&c, "entity %d comes twice", id);
      e = world_place(w, id, (int)kind, qx / Q, qy / Q);
      if (!e) return fail(&c, "entity %d of kind %lld cannot be placed (a kind this map has not, or an id out of order)", id, kind);
      rd->q[id][0] = (int)qx;
      rd->q[id][1] = (int)qy;
      if (world_is_creature(e) && rd->frames > 0) w->births++;
    } else if (!e || !e->valid) {
      return fail(&c, "entity %d changes but is not in the world", id);
    }
    if (what & W_POS) {
      int64_t dx = get_zigzag(&c, "a move"), dy = get_zigzag(&c, "a move");
      int64_t qx = rd->q[id][0] + dx, qy = rd->q[id][1] + dy;
      if (c.failed) break;
      if (qx < -1000000000 || qy < -1000000000 || qx > 1000000000 || qy > 1000000000)
        return fail(&c, "entity %d moves out of bounds", id);
      rd->q[id][0] = (int)qx;
      rd->q[id][1] = (int)qy;
      world_set_position(w, e, qx / Q, qy / Q);
    }
    if (what & W_HEALTH) e->health = (double)get_count(&c, "a health", HEALTH_MAX);
    if (what & W_HUNGER) e->hunger = get_byte(&c, "a hunger") / 100.0;
    if (what & W_STATE) {
      unsigned st = get_byte(&c, "a state");
      e->move = st & S_MOVING ? MOVE_DIR : MOVE_NONE;
      e->run = (st & S_RUNNING) != 0;
      e->fatigue = st & S_TIRED ? 1 : 0;
      e->has_brain = (st & S_BRAIN) != 0;
    }
    if (what & W_ACTION) {
      get_string(&c, "an action", text, ACTION_MAX);
      free(e->action);
      e->action = NULL;
      if (text[0] && !(e->action = malloc(strlen(text) + 1))) return fail(&c, "out of memory");
      if (e->action) strcpy(e->action, text);
    }
    if (what & W_SAY) {
      get_string(&c, "a line said", text, SAY_MAX);
      long long left = get_count(&c, "how long a line shows", 1000000);
      snprintf(e->say, sizeof e->say, "%s", text);
      e->say_until = time + left / 30.0;
    }
    if (more & M_TARGET) e->target = (int)get_count(&c, "a target", WORLD_MAX_ID);
    if (more & M_DEATH) { /* after the fields, as written: its health and motion are a body's already */
      unsigned cause = get_byte(&c, "a death's cause");
      long long killer = get_count(&c, "a death's killer", WORLD_MAX_ID);
      if (c.failed) break;
      if (!world_is_creature(e) || e->dead) return fail(&c, "entity %d dies but is no living creature", id);
      world_kill(w, e, cause < NCAUSES && cause ? CAUSES[cause] : "gone", (int)killer);
    }
    if (more & M_GONE) world_remove(w, e);
  }
  world_clear_queues(w);
  if (c.failed) return -1;
  rd->frames++;
  rd->tick = tick;
  return 0;
}

/* ---- the world's digest ---- */

unsigned long long worldlog_digest(const world *w) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int id = 1; id < w->nents; id++) {
    const entity *e = w->ents[id];
    if (!e || !e->valid) continue;
    int health = (int)floor(e->health + 0.5);
    int64_t v[6] = {id, e->kind, quantize(e->x), quantize(e->y), health, e->dead};
    for (int i = 0; i < 6; i++) h = (h ^ (uint64_t)v[i]) * 0x100000001b3ULL;
  }
  return h;
}
