/* SPDX-License-Identifier: MIT */
/*
 * diff.c: the comparer of recorded sessions (bt_test.h, "comparing recorded sessions"). Each
 * side's records are turned into one form (drec: the node named by its path), and each agent
 * keeps a queue per side of the records the other side has not reached yet; a record that finds
 * one waiting on the other side is compared with it at once. An agent's first difference ends
 * its comparison: it keeps nothing more.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_internal.h"

#define TEXT_MAX 120 /* an error's message kept for the report, at most */

/* A record in the one form both sides take. */
typedef struct drec {
  unsigned char type, from, to, cause, has_sleep;
  double time, sleep;
  const char *path; /* the node's path (the shape cache's), or a key's name; "" for none */
  bt_value before, after; /* KEY: strings point into text */
  size_t size;            /* LOST: how many */
  char *text;             /* ERROR: the message's start; KEY: its string values (malloc'd) */
} drec;

/* The records of one agent on one side that wait for the other side: a ring. */
typedef struct dqueue {
  drec *v;
  int head, n, cap;
} dqueue;

typedef struct dagent {
  unsigned long long id;
  char *label;
  int state; /* BT_DIFF_SAME or BT_DIFF_DIFFERS */
  int present[2];
  double first_time[2]; /* the time of the side's first record of it */
  unsigned long long same, records[2];
  dqueue q[2];
  /* the first difference, or the first record of an agent one side lacks */
  int has_first[2];
  double times[2];
  const char *path[2];
  char *what[2];
} dagent;

/* A tree's node paths and key names, by its hash: made once, kept until the comparer is freed. */
typedef struct dshape {
  unsigned long long hash;
  int nodes, keys;
  char **paths; /* made as asked */
  char **key_names;
} dshape;

struct bt_diff {
  dagent *agents;
  int nagents, cap_agents;
  int *slots; /* open addressing by id: 1 + the agent's index, or 0 */
  int nslots;
  dshape *shapes;
  int nshapes, cap_shapes, last_shape;
  bt_log_reader *reader[2];
  int fed[2];        /* a record was given to the side by the caller */
  int reader_end[2]; /* the reader read to its end (finish) */
  int ended;         /* finished */
  int have_time[2];
  double last_time[2]; /* the time of the last record read from the side's reader */
  char *names[2];
  char err[512];
};

static const char *const SIDE_NAME[2] = {"A", "B"};

#define fail(d, code, ...) kit_fail((d)->err, sizeof (d)->err, (code), __VA_ARGS__)

static int nomem(bt_diff *d) { return fail(d, BT_ENOMEM, "out of memory"); }

static const char *side_name(const bt_diff *d, int side) { return d->names[side] ? d->names[side] : SIDE_NAME[side]; }

static char *copy_text(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

/* ---- records ---- */

static void drec_free(drec *r) {
  free(r->text);
  r->text = NULL;
}

/* A BT_KEY_VALUE's token is the run's own: two runs are the same there when both have one. */
static int value_same(const bt_value *a, const bt_value *b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
    case BT_KEY_NUMBER: return a->as.number == b->as.number || (a->as.number != a->as.number && b->as.number != b->as.number);
    case BT_KEY_INTEGER: return a->as.integer == b->as.integer;
    case BT_KEY_BOOLEAN: return !a->as.boolean == !b->as.boolean;
    case BT_KEY_STRING: return strcmp(a->as.string, b->as.string) == 0;
    case BT_KEY_ENTITY: return a->as.entity == b->as.entity;
    default: return 1; /* none, value */
  }
}

static int drec_same(const drec *a, const drec *b) {
  if (a->type != b->type || a->time != b->time) return 0;
  switch (a->type) {
    case BT_REC_STATUS: return a->from == b->from && a->to == b->to && strcmp(a->path, b->path) == 0;
    case BT_REC_THINK:
      return a->cause == b->cause && a->has_sleep == b->has_sleep &&
             (!a->has_sleep || (float)a->sleep == (float)b->sleep);
    case BT_REC_EVENT:
    case BT_REC_ERROR: return strcmp(a->path, b->path) == 0;
    case BT_REC_KEY:
      return a->from == b->from && strcmp(a->path, b->path) == 0 && value_same(&a->before, &b->before) &&
             value_same(&a->after, &b->after);
    case BT_LOG_LOST: return a->size == b->size;
    default: return 1; /* reload */
  }
}

static void put_value(bt_buf *b, const bt_value *v) {
  switch (v->type) {
    case BT_KEY_NUMBER: bt_buf_printf(b, "%.9g", v->as.number); break;
    case BT_KEY_INTEGER: bt_buf_printf(b, "%lld", v->as.integer); break;
    case BT_KEY_BOOLEAN: bt_buf_printf(b, "%s", v->as.boolean ? "true" : "false"); break;
    case BT_KEY_STRING: bt_buf_printf(b, "\"%s\"", v->as.string); break;
    case BT_KEY_ENTITY: bt_buf_printf(b, "entity %llu", v->as.entity); break;
    case BT_KEY_VALUE: bt_buf_printf(b, "value"); break;
    default: bt_buf_printf(b, "nil"); break;
  }
}

/* The record as the report shows it (malloc'd, or NULL out of memory); digits: of a sleep time. */
static char *drec_what(const drec *r, int digits) {
  bt_buf b = {0};
  switch (r->type) {
    case BT_REC_STATUS: bt_buf_printf(&b, "%s>%s", bt_status_name(r->from), bt_status_name(r->to)); break;
    case BT_REC_THINK:
      bt_buf_printf(&b, "think %s ", bt_wake_name(r->cause));
      if (r->has_sleep) bt_buf_printf(&b, "%.*g", digits, r->sleep);
      else bt_buf_printf(&b, "-");
      break;
    case BT_REC_EVENT: bt_buf_printf(&b, "event"); break;
    case BT_REC_ERROR: bt_buf_printf(&b, "error: %s", r->text ? r->text : ""); break;
    case BT_REC_RELOAD: bt_buf_printf(&b, "reload"); break;
    case BT_REC_KEY:
      bt_buf_printf(&b, "key %s ", r->path);
      put_value(&b, &r->before);
      bt_buf_printf(&b, " -> ");
      put_value(&b, &r->after);
      if (r->from) bt_buf_printf(&b, " (woke)");
      break;
    case BT_LOG_LOST: bt_buf_printf(&b, "lost %zu records", r->size); break;
    default: bt_buf_printf(&b, "?"); break;
  }
  if (b.err) {
    bt_buf_free(&b);
    return NULL;
  }
  return b.data;
}

/* Copies a key record's string values into r->text, and points the values at them. */
static int drec_keep_strings(drec *r) {
  size_t nb = r->before.type == BT_KEY_STRING ? strlen(r->before.as.string) + 1 : 0;
  size_t na = r->after.type == BT_KEY_STRING ? strlen(r->after.as.string) + 1 : 0;
  if (!nb && !na) return 0;
  char *p = malloc(nb + na);
  if (!p) return -1;
  if (nb) {
    memcpy(p, r->before.as.string, nb);
    r->before.as.string = p;
  }
  if (na) {
    memcpy(p + nb, r->after.as.string, na);
    r->after.as.string = p + nb;
  }
  r->text = p;
  return 0;
}

/* ---- shapes ---- */

/* The cache of the tree of that hash (made with its node and key counts), or NULL. */
static dshape *shape_of(bt_diff *d, unsigned long long hash, int nodes, int keys) {
  if (d->last_shape < d->nshapes && d->shapes[d->last_shape].hash == hash) return &d->shapes[d->last_shape];
  for (int i = 0; i < d->nshapes; i++)
    if (d->shapes[i].hash == hash) return &d->shapes[d->last_shape = i];
  if (kit_grow((void **)&d->shapes, &d->cap_shapes, d->nshapes + 1, sizeof *d->shapes) != BT_OK) return NULL;
  dshape *s = &d->shapes[d->nshapes];
  memset(s, 0, sizeof *s);
  s->hash = hash;
  s->nodes = nodes;
  s->keys = keys > 0 ? keys : 0;
  s->paths = calloc((size_t)nodes, sizeof *s->paths);
  s->key_names = calloc((size_t)s->keys + 1, sizeof *s->key_names);
  if (!s->paths || !s->key_names) {
    free(s->paths);
    free(s->key_names);
    return NULL;
  }
  d->last_shape = d->nshapes++;
  return s;
}

/* The cache of the tree def, or else of the log's shape ls (NULL out of memory). */
static dshape *cache_of(bt_diff *d, const bt_def *def, const bt_log_shape *ls) {
  if (def) return shape_of(d, bt_def_hash(def), bt_def_size(def), bt_def_key_count(def));
  return shape_of(d, bt_log_shape_hash(ls), bt_log_shape_size(ls), bt_log_shape_key_count(ls));
}

/* The path of a node of the tree (def, or else the log's shape ls): from the cache. NULL with
 * BT_ENOMEM or BT_EINVAL (a node outside the tree) in *rc. */
static const char *node_path(bt_diff *d, const bt_def *def, const bt_log_shape *ls, int node, int *rc) {
  dshape *s = cache_of(d, def, ls);
  if (!s) return *rc = nomem(d), NULL;
  if (node < 0 || node >= s->nodes) {
    *rc = fail(d, BT_EINVAL, "node %d is not of the tree (%d nodes)", node, s->nodes);
    return NULL;
  }
  if (!s->paths[node]) {
    bt_buf b = {0};
    int got = def ? bt_def_path(def, node, &b) : bt_log_shape_path(ls, node, &b);
    if (got != BT_OK || b.err || !b.data) {
      bt_buf_free(&b);
      *rc = got == BT_EINVAL ? fail(d, BT_EINVAL, "node %d has no path", node) : nomem(d);
      return NULL;
    }
    s->paths[node] = b.data;
  }
  return s->paths[node];
}

/* The name of a key of the tree, as node_path. */
static const char *key_name(bt_diff *d, const bt_def *def, const bt_log_shape *ls, int key, int *rc) {
  dshape *s = cache_of(d, def, ls);
  if (!s) return *rc = nomem(d), NULL;
  if (key < 0 || key >= s->keys) {
    *rc = fail(d, BT_EINVAL, "key %d is not of the tree (%d keys)", key, s->keys);
    return NULL;
  }
  if (!s->key_names[key]) {
    const char *name = def ? bt_def_key_name(def, key) : bt_log_shape_key_name(ls, key);
    if (!name) name = "?";
    if (!(s->key_names[key] = copy_text(name, strlen(name)))) return *rc = nomem(d), NULL;
  }
  return s->key_names[key];
}

/* ---- agents ---- */

static unsigned slot_of(unsigned long long id, int nslots) {
  id ^= id >> 33;
  id *= 0xff51afd7ed558ccdULL;
  id ^= id >> 33;
  return (unsigned)(id & (unsigned long long)(nslots - 1));
}

static int grow_slots(bt_diff *d) {
  int n = d->nslots ? 2 * d->nslots : 256;
  int *slots = calloc((size_t)n, sizeof *slots);
  if (!slots) return -1;
  for (int i = 0; i < d->nagents; i++) {
    unsigned k = slot_of(d->agents[i].id, n);
    while (slots[k]) k = (k + 1) & (unsigned)(n - 1);
    slots[k] = i + 1;
  }
  free(d->slots);
  d->slots = slots;
  d->nslots = n;
  return 0;
}

/* The agent of that id, made at its first record (NULL out of memory). */
static dagent *agent_of(bt_diff *d, unsigned long long id, const char *label) {
  if (2 * (d->nagents + 1) > d->nslots && grow_slots(d) != 0) return NULL;
  unsigned k = slot_of(id, d->nslots);
  dagent *a = NULL;
  for (; d->slots[k]; k = (k + 1) & (unsigned)(d->nslots - 1))
    if (d->agents[d->slots[k] - 1].id == id) {
      a = &d->agents[d->slots[k] - 1];
      break;
    }
  if (!a) {
    if (kit_grow((void **)&d->agents, &d->cap_agents, d->nagents + 1, sizeof *d->agents) != BT_OK) return NULL;
    a = &d->agents[d->nagents];
    memset(a, 0, sizeof *a);
    a->id = id;
    d->slots[k] = ++d->nagents;
  }
  if ((!a->label || !a->label[0]) && label && label[0]) {
    char *l = copy_text(label, strlen(label));
    if (!l) return NULL;
    free(a->label);
    a->label = l;
  }
  return a;
}

/* Agent a has a record on side s at that time. */
static void mark(dagent *a, int s, double time) {
  if (!a->present[s]) a->first_time[s] = time;
  a->present[s] = 1;
}

static void queue_clear(dqueue *q) {
  for (int i = 0; i < q->n; i++) drec_free(&q->v[(q->head + i) % q->cap]);
  free(q->v);
  memset(q, 0, sizeof *q);
}

static drec *queue_front(dqueue *q) { return q->n ? &q->v[q->head] : NULL; }

static void queue_pop(dqueue *q) {
  drec_free(&q->v[q->head]);
  q->head = (q->head + 1) % q->cap;
  q->n--;
}

static int queue_push(dqueue *q, const drec *r) {
  if (q->n == q->cap) {
    int cap = q->cap ? 2 * q->cap : 8;
    drec *v = malloc((size_t)cap * sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < q->n; i++) v[i] = q->v[(q->head + i) % q->cap];
    free(q->v);
    q->v = v;
    q->head = 0;
    q->cap = cap;
  }
  q->v[(q->head + q->n) % q->cap] = *r;
  q->n++;
  return 0;
}

/* Keeps the first difference of agent a: side s's record rs against the other's ro (NULL: no
 * record), and drops everything it kept. */
static int resolve(bt_diff *d, dagent *a, int s, const drec *rs, const drec *ro) {
  const drec *r[2];
  r[s] = rs;
  r[1 - s] = ro;
  a->state = BT_DIFF_DIFFERS;
  int digits = 6;
  for (int i = 0; i < 2; i++) {
    a->has_first[i] = r[i] != NULL;
    a->times[i] = r[i] ? r[i]->time : 0;
    a->path[i] = r[i] && r[i]->type != BT_REC_KEY ? r[i]->path : "";
  }
  for (int tries = 0; tries < 2; tries++) {
    for (int i = 0; i < 2; i++) {
      free(a->what[i]);
      a->what[i] = r[i] ? drec_what(r[i], digits) : copy_text("no record", 9);
      if (!a->what[i]) return nomem(d);
    }
    if (strcmp(a->what[0], a->what[1]) != 0 || strcmp(a->path[0], a->path[1]) != 0 || a->times[0] != a->times[1])
      break;
    digits = 9; /* sleep times apart in the last digits */
  }
  queue_clear(&a->q[0]);
  queue_clear(&a->q[1]);
  return BT_OK;
}

/* Compares (or queues) record r (taken over: its text is freed here) of agent a on side s. */
static int take(bt_diff *d, dagent *a, int s, drec *r) {
  int rc = BT_OK;
  mark(a, s, r->time);
  a->records[s]++;
  if (a->state == BT_DIFF_DIFFERS) {
    drec_free(r);
    return BT_OK;
  }
  dqueue *other = &a->q[1 - s];
  if (other->n) {
    drec *o = queue_front(other);
    if (drec_same(r, o)) {
      a->same++;
      queue_pop(other);
    } else {
      rc = resolve(d, a, s, r, o);
    }
    drec_free(r);
    return rc;
  }
  if (d->ended) {
    rc = resolve(d, a, s, r, NULL);
    drec_free(r);
    return rc;
  }
  if (a->q[s].n >= BT_DIFF_AHEAD) { /* the other side lacks this agent's records over that span */
    rc = resolve(d, a, s, queue_front(&a->q[s]), NULL);
    drec_free(r);
    return rc;
  }
  if (queue_push(&a->q[s], r) != 0) {
    drec_free(r);
    return nomem(d);
  }
  return BT_OK;
}

/* ---- feeding ---- */

static int check_side(bt_diff *d, int side) {
  if (side != BT_DIFF_A && side != BT_DIFF_B) return fail(d, BT_EINVAL, "side %d is neither BT_DIFF_A nor BT_DIFF_B", side);
  if (d->ended) return fail(d, BT_EINVAL, "the comparison is finished");
  if (d->reader[side]) return fail(d, BT_EINVAL, "side %s is read from its reader", side_name(d, side));
  return BT_OK;
}

/* Fills r (type, time and path set) from e, and compares it. */
static int take_entry(bt_diff *d, dagent *a, int s, const bt_rec_entry *e, drec *r) {
  switch (e->type) {
    case BT_REC_STATUS:
      if (e->from > BT_RUNNING || e->to > BT_RUNNING)
        return fail(d, BT_EINVAL, "%s: a status record of agent %llu with a status out of range", side_name(d, s), a->id);
      r->from = e->from;
      r->to = e->to;
      break;
    case BT_REC_THINK:
      r->cause = e->cause;
      r->has_sleep = e->has_sleep != 0;
      r->sleep = e->has_sleep ? e->sleep : 0;
      break;
    case BT_REC_ERROR: {
      size_t n = e->text ? strnlen(e->text, e->size < TEXT_MAX ? e->size : TEXT_MAX) : 0;
      size_t line = 0;
      while (line < n && e->text[line] != '\n') line++;
      if (!(r->text = copy_text(e->text ? e->text : "", line))) return nomem(d);
      break;
    }
    case BT_REC_KEY:
      r->from = e->from != 0;
      r->before = e->before;
      r->after = e->after;
      if (drec_keep_strings(r) != 0) return nomem(d);
      break;
    case BT_LOG_LOST: r->size = e->size; break;
    default: break;
  }
  return take(d, a, s, r);
}

/* A log's record on side s (no reader check). */
static int feed_log(bt_diff *d, int s, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  if (rec->agent_index < 0) return BT_OK; /* the world's: the host's */
  int compared = (e->type >= BT_REC_STATUS && e->type <= BT_REC_KEY && e->type != BT_REC_HOST) || e->type == BT_LOG_LOST;
  if (!compared && e->type != BT_LOG_ATTACH) return BT_OK;
  dagent *a = agent_of(d, rec->agent, rec->label);
  if (!a) return nomem(d);
  if (!compared) {
    mark(a, s, e->time);
    return BT_OK;
  }
  drec r = {0};
  r.type = e->type;
  r.time = e->time;
  r.path = "";
  int rc = BT_OK;
  int named = e->type == BT_REC_STATUS || e->type == BT_REC_EVENT || (e->type == BT_REC_ERROR && e->node >= 0);
  if ((named || e->type == BT_REC_KEY) && !rec->shape)
    return fail(d, BT_EINVAL, "%s: a record of agent %llu before its tree's shape", side_name(d, s), rec->agent);
  if (named && !(r.path = node_path(d, NULL, rec->shape, e->node, &rc))) return rc;
  if (e->type == BT_REC_KEY && !(r.path = key_name(d, NULL, rec->shape, e->node, &rc))) return rc;
  return take_entry(d, a, s, e, &r);
}

/* Reads side s's reader on while its records are not later than `upto` (all of them: to its
 * end, or to the end of what there is for now). */
static int pull(bt_diff *d, int s, double upto, int all) {
  bt_log_reader *r = d->reader[s];
  if (!r || d->reader_end[s]) return BT_OK;
  while (all || !d->have_time[s] || d->last_time[s] <= upto) {
    bt_log_record rec;
    int got = bt_log_read(r, &rec);
    if (got < 0) return fail(d, got, "%s: %s", side_name(d, s), bt_log_reader_errmsg(r));
    if (got == 0) {
      if (all) d->reader_end[s] = 1;
      return BT_OK;
    }
    d->have_time[s] = 1;
    d->last_time[s] = rec.entry.time;
    int rc = feed_log(d, s, &rec);
    if (rc != BT_OK) return rc;
  }
  return BT_OK;
}

/* ---- the API ---- */

int bt_diff_create(bt_diff **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_diff_free(bt_diff *d) {
  if (!d) return;
  for (int i = 0; i < d->nagents; i++) {
    dagent *a = &d->agents[i];
    queue_clear(&a->q[0]);
    queue_clear(&a->q[1]);
    free(a->label);
    free(a->what[0]);
    free(a->what[1]);
  }
  for (int i = 0; i < d->nshapes; i++) {
    for (int n = 0; n < d->shapes[i].nodes; n++) free(d->shapes[i].paths[n]);
    for (int k = 0; k < d->shapes[i].keys; k++) free(d->shapes[i].key_names[k]);
    free(d->shapes[i].paths);
    free(d->shapes[i].key_names);
  }
  free(d->shapes);
  free(d->agents);
  free(d->slots);
  free(d->names[0]);
  free(d->names[1]);
  free(d);
}

const char *bt_diff_errmsg(const bt_diff *d) { return d ? d->err : "no comparer"; }

int bt_diff_set_names(bt_diff *d, const char *a, const char *b) {
  if (!d) return BT_EINVAL;
  const char *names[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    char *p = names[i] ? copy_text(names[i], strlen(names[i])) : NULL;
    if (names[i] && !p) return nomem(d);
    free(d->names[i]);
    d->names[i] = p;
  }
  return BT_OK;
}

int bt_diff_log(bt_diff *d, int side, const bt_log_record *rec) {
  if (!d) return BT_EINVAL;
  if (!rec) return fail(d, BT_EINVAL, "no record");
  int rc = check_side(d, side);
  if (rc != BT_OK) return rc;
  d->fed[side] = 1;
  if ((rc = pull(d, 1 - side, rec->entry.time, 0)) != BT_OK) return rc;
  return feed_log(d, side, rec);
}

int bt_diff_entry(bt_diff *d, int side, unsigned long long agent, const char *label, const bt_def *def,
                  const bt_rec_entry *e) {
  if (!d) return BT_EINVAL;
  if (!e || !def) return fail(d, BT_EINVAL, "%s", e ? "no definition" : "no record");
  int rc = check_side(d, side);
  if (rc != BT_OK) return rc;
  if (e->type < BT_REC_STATUS || e->type > BT_REC_KEY)
    return fail(d, BT_EINVAL, "record type %d is none of the recorder's (BT_REC_*)", e->type);
  d->fed[side] = 1;
  if ((rc = pull(d, 1 - side, e->time, 0)) != BT_OK) return rc;
  if (e->type == BT_REC_HOST) return BT_OK; /* the host's */
  drec r = {0};
  r.type = e->type;
  r.time = e->time;
  r.path = "";
  int named = e->type == BT_REC_STATUS || e->type == BT_REC_EVENT || (e->type == BT_REC_ERROR && e->node >= 0);
  if (named && !(r.path = node_path(d, def, NULL, e->node, &rc))) return rc;
  if (e->type == BT_REC_KEY && !(r.path = key_name(d, def, NULL, e->node, &rc))) return rc;
  dagent *a = agent_of(d, agent, label);
  if (!a) return nomem(d);
  return take_entry(d, a, side, e, &r);
}

int bt_diff_set_reader(bt_diff *d, int side, bt_log_reader *r) {
  if (!d) return BT_EINVAL;
  if (!r) return fail(d, BT_EINVAL, "no reader");
  int rc = check_side(d, side);
  if (rc != BT_OK) return rc;
  if (d->fed[side]) return fail(d, BT_EINVAL, "side %s was fed records already", side_name(d, side));
  d->reader[side] = r;
  return BT_OK;
}

int bt_diff_finish(bt_diff *d) {
  if (!d) return BT_EINVAL;
  if (d->ended) return fail(d, BT_EINVAL, "the comparison is finished");
  int rc = BT_OK;
  for (int s = 0; s < 2 && rc == BT_OK; s++) rc = pull(d, s, 0, 1);
  d->ended = 1;
  for (int i = 0; i < d->nagents; i++) {
    dagent *a = &d->agents[i];
    for (int s = 0; s < 2 && a->state == BT_DIFF_SAME; s++)
      if (a->q[s].n) {
        int got = resolve(d, a, s, queue_front(&a->q[s]), NULL);
        if (rc == BT_OK) rc = got;
      }
  }
  return rc;
}

int bt_diff_logs(bt_diff *d, bt_log_reader *a, bt_log_reader *b) {
  if (!d) return BT_EINVAL;
  if (!b) return fail(d, BT_EINVAL, "no reader");
  int rc = bt_diff_set_reader(d, BT_DIFF_A, a);
  bt_log_record rec;
  int got;
  while (rc == BT_OK && (got = bt_log_read(b, &rec)) != 0) {
    if (got < 0) rc = fail(d, got, "%s: %s", side_name(d, BT_DIFF_B), bt_log_reader_errmsg(b));
    else rc = bt_diff_log(d, BT_DIFF_B, &rec);
  }
  if (rc != BT_OK) return rc;
  return bt_diff_finish(d);
}

/* ---- results ---- */

int bt_diff_count(const bt_diff *d) { return d ? d->nagents : 0; }

static int state_of(const dagent *a) {
  if (!a->present[BT_DIFF_B]) return BT_DIFF_ONLY_A;
  if (!a->present[BT_DIFF_A]) return BT_DIFF_ONLY_B;
  return a->state;
}

int bt_diff_get(const bt_diff *d, int i, bt_diff_row *out) {
  if (!d || !out || i < 0 || i >= d->nagents) return BT_EINVAL;
  const dagent *a = &d->agents[i];
  memset(out, 0, sizeof *out);
  out->agent = a->id;
  out->label = a->label ? a->label : "";
  out->state = state_of(a);
  out->same = a->same;
  for (int s = 0; s < 2; s++) {
    out->records[s] = a->records[s];
    out->has[s] = a->has_first[s];
    out->times[s] = a->times[s];
    out->path[s] = a->path[s] ? a->path[s] : "";
    out->what[s] = a->what[s] ? a->what[s] : a->present[s] ? "" : "no record";
  }
  if (out->state == BT_DIFF_ONLY_A || out->state == BT_DIFF_ONLY_B) {
    int s = out->state == BT_DIFF_ONLY_A ? 0 : 1;
    out->time = a->first_time[s];
  } else if (out->state == BT_DIFF_DIFFERS) {
    out->time = !out->has[0] ? out->times[1] : !out->has[1] ? out->times[0] : fmin(out->times[0], out->times[1]);
  }
  return BT_OK;
}

void bt_diff_summary_get(const bt_diff *d, bt_diff_summary *out) {
  memset(out, 0, sizeof *out);
  if (!d) return;
  out->agents = d->nagents;
  for (int i = 0; i < d->nagents; i++) {
    const dagent *a = &d->agents[i];
    switch (state_of(a)) {
      case BT_DIFF_ONLY_A: out->only_a++; break;
      case BT_DIFF_ONLY_B: out->only_b++; break;
      case BT_DIFF_DIFFERS: out->differ++; break;
      default: out->same++; break;
    }
    out->records += a->same;
  }
}

int bt_diff_same(const bt_diff *d) {
  if (!d || !d->ended) return 0;
  bt_diff_summary s;
  bt_diff_summary_get(d, &s);
  return s.differ == 0 && s.only_a == 0 && s.only_b == 0;
}

int bt_diff_report(const bt_diff *d, bt_buf *out) {
  if (!d || !out) return BT_EINVAL;
  for (int i = 0; i < d->nagents; i++) {
    bt_diff_row row;
    bt_diff_get(d, i, &row);
    if (row.state == BT_DIFF_SAME) continue;
    bt_buf_printf(out, "%.4f\t%llu\t%s\t", row.time, row.agent, row.label[0] ? row.label : "-");
    if (row.state != BT_DIFF_DIFFERS) {
      bt_buf_printf(out, "-\tonly in %s\t%llu records\n", side_name(d, row.state == BT_DIFF_ONLY_A ? 0 : 1),
                    row.records[row.state == BT_DIFF_ONLY_A ? 0 : 1]);
      continue;
    }
    /* the node: the one both records name, or else the first side's that names one */
    int col = row.has[0] && row.path[0][0] ? 0 : 1;
    const char *path = row.path[col];
    bt_buf_printf(out, "%s", path[0] ? path : "-");
    for (int s = 0; s < 2; s++) {
      bt_buf_printf(out, "\t%s: ", side_name(d, s));
      if (row.has[s] && strcmp(row.path[s], path) != 0) bt_buf_printf(out, "%s ", row.path[s][0] ? row.path[s] : "-");
      bt_buf_printf(out, "%s", row.what[s]);
      if (row.has[s] && row.times[s] != row.time) bt_buf_printf(out, " at %.4f", row.times[s]);
    }
    bt_buf_printf(out, "\n");
  }
  bt_diff_summary sum;
  bt_diff_summary_get(d, &sum);
  bt_buf_printf(out, "%d agent%s: %d the same, %d differ, %d only in %s, %d only in %s; %llu records the same\n",
                sum.agents, sum.agents == 1 ? "" : "s", sum.same, sum.differ, sum.only_a, side_name(d, 0), sum.only_b,
                side_name(d, 1), sum.records);
  return out->err ? BT_ENOMEM : BT_OK;
}
