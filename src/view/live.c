/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp */
/*
 * live.c: the live source, the agents the host registers (its table of functions, live_methods,
 * is at the end). bt_view_add_agent registers a recorder; bt_view_frame, on the host's thread,
 * copies each recorder's new records into the agent's history (a ring of the newest `history`
 * records), reads the agent's statuses from its instance, feeds the view's statistics and leaves
 * the stream's messages in the view's outbox (which the server empties), all under the view's
 * lock; the server's threads answer from these copies, under the same lock (they never touch a
 * recorder or an instance).
 *
 * An agent's history is kept in bt's one ring of records (bti_ring, rec_internal.h: the
 * recorder's own, 16 bytes for a record a think made), which copies the texts it keeps. Each
 * agent keeps, besides its ring, the statuses its tree had just before the ring's oldest record
 * (`base`), kept up to date as old records leave the ring, so that a window of history comes with
 * the statuses just before it (statuses_before) at the cost of replaying the ring.
 * Both are replayed by the recording layer's one step (bt_rec_entry_apply), by state as the
 * instance keeps them and the log source replays them: every place of a shared node has one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "btv_internal.h"

typedef struct btv_shape {
  unsigned long long hash;
  bt_def *def; /* one reference, to name the nodes */
  char *name;  /* the brain of the first agent seen with it */
  int *state;  /* each node's state (bt_def_state): statuses are replayed by state */
} btv_shape;

/* an agent's statuses at a point of its history (base, a window's statuses_before) */
typedef struct btv_past {
  unsigned long long shape; /* 0: none known */
  int nodes;                /* its nodes (0: none) */
  unsigned char *status;    /* nodes bytes, by state (bt_rec_entry_apply) */
  const int *state;         /* the shape's btv_shape.state */
} btv_past;

typedef struct btv_agent {
  bt_rec *rec;
  unsigned long long id;
  char *label, *brain;
  const bt_def *def;        /* the definition its instance had at the last frame (the view holds
                               a reference to every one it saw: a pointer is never reused) */
  /* now (at the last frame) */
  unsigned long long shape; /* 0: its recorder watches no instance */
  int nodes;
  unsigned char *statuses, *last;
  double *since; /* NAN: not running */
  char **dbstrings;
  int has_sleep;
  double sleep;
  unsigned long long think;
  int has_pos;
  double x, y;
  int nkeys;        /* its blackboard now (at the last frame): a value per key of its tree */
  bt_value *keys;   /* (a string's: its copy in key_text) */
  char **key_text;
  int watchers; /* streams subscribed to it */
  int keeping;  /* its recorder keeps the DBStrings of its thinks */
  bti_ring ring;             /* the history: its newest records (ring.count), at most `history` */
  unsigned long long seq;    /* the newest record's seq (0: none yet) */
  unsigned long long total;  /* bt_rec_total at the last frame */
  btv_past base;             /* statuses before the oldest record kept */
  unsigned long long rec_shape; /* the shape the records being copied are of */
  /* activity: transitions in each of the last whole seconds */
  long long bucket_second[6];
  unsigned bucket_count[6];
  unsigned frame_count; /* transitions in this frame */
} btv_agent;

/* the source's data (v->src_data) */
typedef struct btv_live {
  btv_agent **agents;
  int n, cap;
  btv_agent **table; /* by id: open addressing, a power of two twice the agents at least */
  size_t table_size;
  btv_shape *shapes;
  int nshapes, shapes_cap;
  bt_stats *stats; /* every agent's figures, per shape */
  int changed;     /* agents were added or removed since the last frame */
} btv_live;

/* ---- finding ---- */

static size_t hash_id(unsigned long long id, size_t size) {
  id ^= id >> 33;
  id *= 0xff51afd7ed558ccdULL;
  id ^= id >> 33;
  return (size_t)id & (size - 1);
}

static int table_build(btv_live *L, size_t want) {
  size_t size = 16;
  while (size < want * 2) size *= 2;
  btv_agent **t = calloc(size, sizeof *t);
  if (!t) return BT_ENOMEM;
  for (int i = 0; i < L->n; i++) {
    size_t h = hash_id(L->agents[i]->id, size);
    while (t[h]) h = (h + 1) & (size - 1);
    t[h] = L->agents[i];
  }
  free(L->table);
  L->table = t;
  L->table_size = size;
  return BT_OK;
}

static btv_agent *agent_find(btv_live *L, unsigned long long id) {
  if (!L || !L->table) return NULL;
  for (size_t h = hash_id(id, L->table_size);; h = (h + 1) & (L->table_size - 1)) {
    if (!L->table[h]) return NULL;
    if (L->table[h]->id == id) return L->table[h];
  }
}

static btv_shape *shape_find(btv_live *L, unsigned long long hash) {
  for (int i = 0; L && i < L->nshapes; i++)
    if (L->shapes[i].hash == hash) return &L->shapes[i];
  return NULL;
}

static btv_shape *shape_note(btv_live *L, const bt_def *def, const char *brain) {
  for (int i = 0; i < L->nshapes; i++)
    if (L->shapes[i].def == def) return &L->shapes[i];
  unsigned long long hash = bt_def_hash(def);
  btv_shape *s = shape_find(L, hash);
  if (s) return s; /* another definition of the same shape: its nodes are named the same */
  if (L->nshapes == L->shapes_cap) {
    int cap = L->shapes_cap ? L->shapes_cap * 2 : 8;
    btv_shape *p = realloc(L->shapes, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    L->shapes = p;
    L->shapes_cap = cap;
  }
  int nodes = bt_def_size(def);
  char *name = strdup(brain ? brain : "");
  int *state = malloc((size_t)(nodes > 0 ? nodes : 1) * sizeof *state);
  if (!name || !state) {
    free(name);
    free(state);
    return NULL;
  }
  for (int i = 0; i < nodes; i++) state[i] = bt_def_state(def, i);
  s = &L->shapes[L->nshapes++];
  s->hash = hash;
  s->def = (bt_def *)def;
  bt_def_retain(s->def);
  s->name = name;
  s->state = state;
  return s;
}

static int shape_nodes(btv_live *L, unsigned long long hash) {
  btv_shape *s = shape_find(L, hash);
  return s ? bt_def_size(s->def) : 0;
}

/* ---- statuses replayed from records ---- */

/* p becomes the statuses of a tree of that shape as a new instance has them: READY */
static int past_reset(btv_live *L, btv_past *p, unsigned long long shape) {
  btv_shape *s = shape_find(L, shape);
  int nodes = s ? bt_def_size(s->def) : 0;
  unsigned char *st = nodes > 0 ? calloc((size_t)nodes, 1) : NULL;
  if (nodes > 0 && !st) return BT_ENOMEM;
  free(p->status);
  p->status = st;
  p->nodes = nodes > 0 ? nodes : 0;
  p->state = s ? s->state : NULL;
  p->shape = shape;
  return BT_OK;
}

/* what a record does to statuses: a reload gives them the new shape, READY (without memory, or
 * for a shape not seen: none); every other record is the recording layer's one replay step */
static void apply(btv_live *L, btv_past *p, const bt_rec_entry *r) {
  if (r->type == BT_REC_RELOAD) {
    if (past_reset(L, p, r->def_to) != BT_OK) {
      free(p->status);
      p->status = NULL;
      p->nodes = 0;
      p->state = NULL;
      p->shape = r->def_to;
    }
  } else {
    bt_rec_entry_apply(r, p->nodes, p->state, p->status, NULL); /* (a node out of range: nothing) */
  }
}

/* the statuses as JSON, by node: [0,3,1] */
static void json_past(bt_buf *out, const btv_past *p) {
  bt_buf_append(out, "[", 1);
  for (int n = 0; n < p->nodes; n++) bt_buf_printf(out, n ? ",%d" : "%d", p->status[p->state ? p->state[n] : n]);
  bt_buf_append(out, "]", 1);
}

/* ---- an agent ---- */

static void agent_free_now(btv_agent *a) {
  if (a->dbstrings)
    for (int i = 0; i < a->nodes; i++) free(a->dbstrings[i]);
  free(a->dbstrings);
  free(a->statuses);
  free(a->last);
  free(a->since);
  a->dbstrings = NULL;
  a->statuses = a->last = NULL;
  a->since = NULL;
  a->nodes = 0;
}

static void keys_free(btv_agent *a) {
  for (int k = 0; k < a->nkeys; k++) free(a->key_text[k]);
  free(a->keys);
  free(a->key_text);
  a->keys = NULL;
  a->key_text = NULL;
  a->nkeys = 0;
}

/* reads the instance's blackboard into the agent's (a string that finds no memory reads as unset) */
static int keys_read(btv_agent *a, bt_inst *inst) {
  const bt_def *def = bt_inst_def(inst);
  int n = bt_def_key_count(def);
  if (n != a->nkeys) {
    keys_free(a);
    if (n == 0) return BT_OK;
    a->keys = calloc((size_t)n, sizeof *a->keys);
    a->key_text = calloc((size_t)n, sizeof *a->key_text);
    if (!a->keys || !a->key_text) {
      keys_free(a);
      return BT_ENOMEM;
    }
    a->nkeys = n;
  }
  for (int k = 0; k < n; k++) {
    bt_value v;
    bt_inst_key_get(inst, k, &v);
    if (v.type == BT_KEY_STRING) {
      if (!a->key_text[k] || strcmp(a->key_text[k], v.as.string) != 0) {
        free(a->key_text[k]);
        a->key_text[k] = strdup(v.as.string);
      }
      if (!a->key_text[k]) v.type = BT_KEY_NONE;
      else v.as.string = a->key_text[k];
    }
    a->keys[k] = v;
  }
  return BT_OK;
}

static void agent_free(btv_agent *a) {
  if (!a) return;
  agent_free_now(a);
  keys_free(a);
  bti_ring_fini(&a->ring);
  free(a->base.status);
  free(a->label);
  free(a->brain);
  free(a);
}

/* gives the agent's "now" arrays the node count of its shape (statuses READY) */
static int agent_reshape(btv_agent *a, unsigned long long shape, int nodes) {
  agent_free_now(a);
  a->shape = shape;
  if (nodes <= 0) return BT_OK;
  a->statuses = calloc((size_t)nodes, 1);
  a->last = calloc((size_t)nodes, 1);
  a->since = malloc((size_t)nodes * sizeof *a->since);
  a->dbstrings = calloc((size_t)nodes, sizeof *a->dbstrings);
  if (!a->statuses || !a->last || !a->since || !a->dbstrings) {
    agent_free_now(a);
    a->shape = 0;
    return BT_ENOMEM;
  }
  for (int i = 0; i < nodes; i++) a->since[i] = NAN;
  a->nodes = nodes;
  return BT_OK;
}

/* the i-th record of the history (0: the oldest), read into *e */
static const bt_rec_entry *ring_at(const btv_agent *a, size_t i, bt_rec_entry *e) {
  bti_ring_get(&a->ring, i, e);
  return e;
}

/* appends a record (the ring copies its text); the oldest leaves, into the base, when the ring
 * holds `history` */
static int ring_push(btv_live *L, btv_agent *a, size_t history, const bt_rec_entry *r) {
  bti_ring *g = &a->ring;
  size_t most = history < BTI_RING_MAX ? history : BTI_RING_MAX;
  if (g->count == g->cap && g->cap < most) { /* grows, up to `history` */
    size_t cap = g->cap ? (size_t)g->cap * 2 : 64;
    if (bti_ring_reserve(g, cap < most ? cap : most) != BT_OK) return BT_ENOMEM;
  }
  bt_rec_entry left;
  if (bti_ring_push(g, r, &left) != BT_OK) return BT_ENOMEM;
  if (left.type) apply(L, &a->base, &left);
  a->seq++;
  return BT_OK;
}

/* ---- registration ---- */

static const btv_source_methods live_methods; /* at the end of the file */

int btv_live_open(bt_view *v, char *err, size_t errsize) {
  v->src = &live_methods;
  v->src_data = calloc(1, sizeof(btv_live));
  if (v->src_data) return BT_OK;
  btv_set_error(v, err, errsize, "out of memory");
  return BT_ENOMEM;
}

/* the view's agents; NULL: not a live view */
static btv_live *live_of(bt_view *v) { return v && v->src == &live_methods ? v->src_data : NULL; }

int bt_view_add_agent(bt_view *v, bt_rec *rec, const char *brain) {
  btv_live *L = live_of(v);
  if (!L || !rec) {
    if (v) btv_set_error(v, NULL, 0, "bt_view_add_agent: %s", !rec ? "rec is NULL" : "a log view has no live agents");
    return BT_EINVAL;
  }
  btp_mutex_lock(&v->lock);
  int rc = BT_OK;
  btv_agent *a = NULL;
  unsigned long long id = bt_rec_agent(rec);
  btv_agent *same = agent_find(L, id);
  if (same) {
    btv_set_error(v, NULL, 0, same->rec == rec ? "bt_view_add_agent: this recorder is registered already"
                                               : "bt_view_add_agent: agent id %llu is registered already", id);
    rc = BT_EINVAL;
    goto done;
  }
  for (int i = 0; i < L->n; i++)
    if (L->agents[i]->rec == rec) {
      btv_set_error(v, NULL, 0, "bt_view_add_agent: this recorder is registered already");
      rc = BT_EINVAL;
      goto done;
    }
  a = calloc(1, sizeof *a);
  if (!a || !(a->label = strdup(bt_rec_label(rec))) || !(a->brain = strdup(brain ? brain : ""))) {
    rc = BT_ENOMEM;
    goto done;
  }
  a->rec = rec;
  a->id = id;
  bt_inst *inst = bt_rec_inst(rec);
  if (inst) {
    const bt_def *def = bt_inst_def(inst);
    a->def = def;
    if (!shape_note(L, def, a->brain) || agent_reshape(a, bt_def_hash(def), bt_def_size(def)) != BT_OK) {
      rc = BT_ENOMEM;
      goto done;
    }
  }
  /* the records the ring holds now start from the statuses before them: unknown, READY */
  a->rec_shape = a->shape;
  if (past_reset(L, &a->base, a->shape) != BT_OK) {
    rc = BT_ENOMEM;
    goto done;
  }
  if (L->n == L->cap) {
    int cap = L->cap ? L->cap * 2 : 64;
    btv_agent **p = realloc(L->agents, (size_t)cap * sizeof *p);
    if (!p) {
      rc = BT_ENOMEM;
      goto done;
    }
    L->agents = p;
    L->cap = cap;
  }
  L->agents[L->n++] = a;
  if ((size_t)L->n * 2 > L->table_size) {
    if (table_build(L, (size_t)L->n) != BT_OK) {
      L->n--;
      rc = BT_ENOMEM;
      goto done;
    }
  } else {
    size_t h = hash_id(id, L->table_size);
    while (L->table[h]) h = (h + 1) & (L->table_size - 1);
    L->table[h] = a;
  }
  a = NULL;
  L->changed = 1;
done:
  if (rc == BT_ENOMEM) btv_set_error(v, NULL, 0, "bt_view_add_agent: out of memory");
  agent_free(a);
  btp_mutex_unlock(&v->lock);
  return rc;
}

int bt_view_remove_agent(bt_view *v, bt_rec *rec) {
  btv_live *L = live_of(v);
  if (!L || !rec) {
    if (v) btv_set_error(v, NULL, 0, "bt_view_remove_agent: that recorder is not registered");
    return BT_EINVAL;
  }
  btp_mutex_lock(&v->lock);
  int rc = BT_EINVAL;
  for (int i = 0; i < L->n; i++) {
    if (L->agents[i]->rec != rec) continue;
    if (L->agents[i]->keeping) bt_rec_keep_dbstrings(rec, 0);
    agent_free(L->agents[i]);
    L->agents[i] = L->agents[--L->n];
    /* rebuilds the table at its size (no allocation needed but the new array) */
    size_t size = L->table_size;
    memset(L->table, 0, size * sizeof *L->table);
    for (int j = 0; j < L->n; j++) {
      size_t h = hash_id(L->agents[j]->id, size);
      while (L->table[h]) h = (h + 1) & (size - 1);
      L->table[h] = L->agents[j];
    }
    L->changed = 1;
    rc = BT_OK;
    break;
  }
  if (rc != BT_OK) btv_set_error(v, NULL, 0, "bt_view_remove_agent: that recorder is not registered");
  btp_mutex_unlock(&v->lock);
  return rc;
}

int bt_view_set_position(bt_view *v, unsigned long long agent, double x, double y) {
  btv_live *L = live_of(v);
  if (!L) return BT_EINVAL;
  if (!isfinite(x) || !isfinite(y)) {
    btv_set_error(v, NULL, 0, "bt_view_set_position: the position must be finite");
    return BT_EINVAL;
  }
  btp_mutex_lock(&v->lock);
  btv_agent *a = agent_find(L, agent);
  if (a) {
    a->has_pos = 1;
    a->x = x;
    a->y = y;
  }
  btp_mutex_unlock(&v->lock);
  if (!a) btv_set_error(v, NULL, 0, "bt_view_set_position: no agent of id %llu", agent);
  return a ? BT_OK : BT_EINVAL;
}

static void live_watch(bt_view *v, unsigned long long id, int delta) {
  btv_agent *a = agent_find(v->src_data, id);
  if (a) a->watchers += delta;
}

static void live_free(bt_view *v) {
  btv_live *L = v->src_data;
  if (!L) return;
  for (int i = 0; i < L->n; i++) agent_free(L->agents[i]);
  for (int i = 0; i < L->nshapes; i++) {
    bt_def_release(L->shapes[i].def);
    free(L->shapes[i].name);
    free(L->shapes[i].state);
  }
  free(L->shapes);
  free(L->agents);
  free(L->table);
  bt_stats_free(L->stats);
  free(L);
  v->src_data = NULL;
}

/* ---- the frame ---- */

static void count_activity(btv_agent *a, double now) {
  long long second = (long long)floor(now);
  int slot = (int)(((second % 6) + 6) % 6);
  if (a->bucket_second[slot] != second) {
    a->bucket_second[slot] = second;
    a->bucket_count[slot] = 0;
  }
  a->bucket_count[slot] += a->frame_count;
}

static double activity(const btv_agent *a, double now) {
  long long second = (long long)floor(now);
  unsigned sum = 0;
  for (int i = 0; i < 6; i++)
    if (a->bucket_second[i] > second - 5 && a->bucket_second[i] <= second) sum += a->bucket_count[i];
  return sum / 5.0;
}

/* the shapes' figures, every record counted (an agent's own are counted from its history when
 * asked: live_agent_stats) */
static void feed_stats(btv_live *L, btv_agent *a, const bt_rec_entry *e) {
  int nodes = shape_nodes(L, a->rec_shape);
  if (nodes <= 0) return;
  if (!L->stats && bt_stats_create(&L->stats) != BT_OK) return;
  bt_stats_add(L->stats, a->id, a->rec_shape, nodes, e);
}

/* the DBStrings its recorder kept at its last think (bt_rec_keep_dbstrings) */
static void read_dbstrings(btv_agent *a) {
  for (int n = 0; n < a->nodes; n++) {
    free(a->dbstrings[n]);
    const char *s = a->statuses[n] == BT_RUNNING ? bt_rec_dbstring(a->rec, n) : NULL;
    a->dbstrings[n] = s ? strdup(s) : NULL;
  }
}

/* copies one agent's new records; appends the stream's records message to msg when watched */
static int frame_agent(bt_view *v, btv_agent *a, bt_buf *msg, int *reloaded) {
  btv_live *L = v->src_data;
  int rc = BT_OK;
  a->frame_count = 0;
  unsigned long long total = bt_rec_total(a->rec);
  if (total < a->total) a->total = 0; /* the recorder was cleared */
  unsigned long long fresh = total - a->total;
  bt_inst *inst = bt_rec_inst(a->rec);
  const bt_def *def = inst ? bt_inst_def(inst) : NULL;
  unsigned long long shape = a->shape;
  if (def != a->def) { /* hashing a tree costs: only when it is another */
    btv_shape *s = def ? shape_note(L, def, a->brain) : NULL;
    if (def && !s) return BT_ENOMEM;
    shape = s ? s->hash : 0;
    a->def = def;
  }
  if (shape != a->shape) {
    if (agent_reshape(a, shape, def ? bt_def_size(def) : 0) != BT_OK) return BT_ENOMEM;
    if (a->ring.count == 0) {
      a->rec_shape = shape;
      if (past_reset(L, &a->base, shape) != BT_OK) return BT_ENOMEM;
    }
  }
  if (fresh == 0 && a->watchers == 0) return BT_OK;
  size_t count = bt_rec_count(a->rec);
  size_t take = fresh < count ? (size_t)fresh : count;
  unsigned long long first_seq = a->seq + 1;
  if (fresh > take) {
    bt_rec_entry lost; /* as a log marks its own losses */
    memset(&lost, 0, sizeof lost);
    lost.type = BT_LOG_LOST;
    lost.node = -1;
    lost.time = v->now;
    lost.size = (size_t)(fresh - take);
    if (ring_push(L, a, v->history, &lost) != BT_OK) return BT_ENOMEM;
  }
  for (size_t i = count - take; i < count; i++) {
    bt_rec_entry e;
    if (bt_rec_get(a->rec, i, &e) != BT_OK) continue;
    if (ring_push(L, a, v->history, &e) != BT_OK) {
      rc = BT_ENOMEM;
      break;
    }
    if (e.type == BT_REC_RELOAD) {
      a->rec_shape = e.def_to;
      *reloaded = 1;
    }
    feed_stats(L, a, &e);
    if (e.type == BT_REC_STATUS) {
      a->frame_count++;
      if (e.node >= 0 && e.node < a->nodes && a->rec_shape == a->shape) {
        if (e.to == BT_RUNNING) a->since[e.node] = e.time;
        else if (e.from == BT_RUNNING) a->since[e.node] = NAN;
      }
    } else if (e.type == BT_REC_THINK) {
      a->has_sleep = e.has_sleep;
      a->sleep = e.sleep;
      a->think = e.think;
    }
  }
  a->total = total;
  if (inst) {
    for (int n = 0; n < a->nodes; n++) {
      a->statuses[n] = (unsigned char)bt_node_status(inst, n);
      a->last[n] = (unsigned char)bt_node_last(inst, n);
      if (a->statuses[n] != BT_RUNNING) a->since[n] = NAN;
      else if (isnan(a->since[n])) a->since[n] = v->now;
    }
    if (keys_read(a, inst) != BT_OK) rc = BT_ENOMEM;
    int keep = a->watchers > 0 && v->dbstrings; /* described inside the thinks, of the agents shown */
    if (keep != a->keeping && bt_rec_keep_dbstrings(a->rec, keep) == BT_OK) a->keeping = keep;
    if (keep) read_dbstrings(a);
  }
  count_activity(a, v->now);
  if (a->watchers > 0 && a->seq >= first_seq) {
    bt_buf_printf(msg, "{\"type\":\"records\",\"agent\":%llu,\"records\":[", a->id);
    for (unsigned long long s = first_seq; s <= a->seq; s++) {
      unsigned long long back = a->seq - s; /* 0: the newest */
      bt_rec_entry e;
      if (back >= a->ring.count) continue;
      if (s > first_seq) bt_buf_append(msg, ",", 1);
      btv_json_record(msg, s, ring_at(a, a->ring.count - 1 - back, &e));
    }
    btv_json_raw(msg, "]}");
  }
  return rc;
}

static int live_frame(bt_view *v, double now) {
  int rc = BT_OK;
  bt_buf msg = {0}, counts = {0};
  btv_live *L = v->src_data;
  int any = 0;
  for (int i = 0; i < L->n; i++) {
    btv_agent *a = L->agents[i];
    int reloaded = 0;
    msg.len = 0;
    msg.err = 0;
    if (frame_agent(v, a, &msg, &reloaded) != BT_OK) rc = BT_ENOMEM;
    if (msg.len && !msg.err) btv_outbox_add(&v->outbox, 0, a->id, msg.data, msg.len);
    if (reloaded) {
      msg.len = 0;
      bt_buf_printf(&msg, "{\"type\":\"reload\",\"agent\":%llu,\"shape\":", a->id);
      btv_json_shape(&msg, a->shape);
      btv_json_raw(&msg, "}");
      if (!msg.err) btv_outbox_add(&v->outbox, 1, 0, msg.data, msg.len);
    }
    if (a->frame_count && v->clients) {
      bt_buf_printf(&counts, "%s\"%llu\":%u", any ? "," : "", a->id, a->frame_count);
      any = 1;
    }
  }
  if (L->changed) {
    L->changed = 0;
    btv_outbox_add(&v->outbox, 1, 0, "{\"type\":\"agents\"}", 17);
  }
  if (v->clients) { /* the frame's counts: built only when someone listens */
    msg.len = 0;
    msg.err = 0;
    bt_buf_printf(&msg, "{\"type\":\"frame\",\"frame\":%llu,\"time\":", v->frames);
    btv_json_number(&msg, now);
    btv_json_raw(&msg, ",\"counts\":{");
    if (counts.len) bt_buf_append(&msg, counts.data, counts.len);
    btv_json_raw(&msg, "}}");
    if (!msg.err && !counts.err) btv_outbox_add(&v->outbox, 1, 0, msg.data, msg.len);
  }
  bt_buf_free(&msg);
  bt_buf_free(&counts);
  return rc;
}

/* ---- the answers ---- */

static void json_running(bt_buf *out, btv_live *L, const btv_agent *a) {
  bt_buf_append(out, "[", 1);
  btv_shape *s = shape_find(L, a->shape);
  int n = 0;
  int first = 1;
  while (s && a->nodes > 0 && a->statuses[n] == BT_RUNNING) {
    if (!first) bt_buf_append(out, ",", 1);
    first = 0;
    btv_json_cstring(out, bt_def_name(s->def, n));
    int next = -1;
    for (int i = 0; i < bt_def_child_count(s->def, n); i++) {
      int c = bt_def_child(s->def, n, i);
      if (c >= 0 && c < a->nodes && a->statuses[c] == BT_RUNNING) {
        next = c;
        break;
      }
    }
    if (next < 0) break;
    n = next;
  }
  bt_buf_append(out, "]", 1);
}

static void json_shape_or_null(bt_buf *out, unsigned long long shape) {
  if (shape) btv_json_shape(out, shape);
  else btv_json_raw(out, "null");
}

static int live_agents(bt_view *v, bt_buf *out) {
  btv_live *L = v->src_data;
  btv_json_raw(out, "{\"time\":");
  btv_json_number(out, v->now);
  bt_buf_printf(out, ",\"frame\":%llu,\"agents\":[", v->frames);
  for (int i = 0; i < L->n; i++) {
    btv_agent *a = L->agents[i];
    bt_buf_printf(out, "%s{\"id\":%llu,\"label\":", i ? "," : "", a->id);
    btv_json_cstring(out, a->label);
    btv_json_raw(out, ",\"brain\":");
    btv_json_cstring(out, a->brain);
    btv_json_raw(out, ",\"shape\":");
    json_shape_or_null(out, a->shape);
    btv_json_raw(out, ",\"running\":");
    json_running(out, L, a);
    btv_json_raw(out, ",\"activity\":");
    btv_json_number(out, activity(a, v->now));
    bt_buf_printf(out, ",\"seq\":%llu", a->seq);
    if (a->has_pos) {
      btv_json_raw(out, ",\"x\":");
      btv_json_number(out, a->x);
      btv_json_raw(out, ",\"y\":");
      btv_json_number(out, a->y);
    }
    bt_buf_append(out, "}", 1);
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static void json_bytes(bt_buf *out, const unsigned char *s, int n) {
  bt_buf_append(out, "[", 1);
  for (int i = 0; i < n; i++) bt_buf_printf(out, i ? ",%d" : "%d", s[i]);
  bt_buf_append(out, "]", 1);
}

static int live_agent(bt_view *v, unsigned long long id, bt_buf *out) {
  btv_agent *a = agent_find(v->src_data, id);
  if (!a) return BTV_NOT_FOUND;
  bt_buf_printf(out, "{\"id\":%llu,\"label\":", a->id);
  btv_json_cstring(out, a->label);
  btv_json_raw(out, ",\"brain\":");
  btv_json_cstring(out, a->brain);
  btv_json_raw(out, ",\"shape\":");
  json_shape_or_null(out, a->shape);
  btv_json_raw(out, ",\"time\":");
  btv_json_number(out, v->now);
  bt_buf_printf(out, ",\"think\":%llu,\"seq\":%llu,\"statuses\":", a->think, a->seq);
  json_bytes(out, a->statuses, a->nodes);
  btv_json_raw(out, ",\"last\":");
  json_bytes(out, a->last, a->nodes);
  btv_json_raw(out, ",\"since\":[");
  for (int n = 0; n < a->nodes; n++) {
    if (n) bt_buf_append(out, ",", 1);
    btv_json_number(out, a->since[n]);
  }
  btv_json_raw(out, "],\"sleep\":");
  if (a->has_sleep) btv_json_number(out, a->sleep);
  else btv_json_raw(out, "null");
  btv_json_raw(out, ",\"dbstrings\":[");
  int any = 0;
  for (int n = 0; a->watchers > 0 && v->dbstrings && n < a->nodes; n++) {
    if (n) bt_buf_append(out, ",", 1);
    btv_json_cstring(out, a->dbstrings[n]);
    any = 1;
  }
  (void)any;
  btv_json_raw(out, "],\"keys\":[");
  for (int k = 0; k < a->nkeys; k++) {
    if (k) btv_json_raw(out, ",");
    btv_json_value(out, &a->keys[k]);
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static int live_history(bt_view *v, unsigned long long id, unsigned long long before, int count, bt_buf *out) {
  btv_live *L = v->src_data;
  btv_agent *a = agent_find(L, id);
  if (!a) return BTV_NOT_FOUND;
  unsigned long long oldest = a->seq - a->ring.count + 1; /* the oldest kept (seq + 1 when none) */
  if (before == 0 || before > a->seq + 1) before = a->seq + 1;
  unsigned long long end = before;                   /* the window: [start, end) */
  unsigned long long start = end > oldest + (unsigned long long)count ? end - (unsigned long long)count : oldest;
  if (end < oldest) start = end = oldest;
  /* the statuses before the window: base, then the records from the oldest to start */
  btv_past past = a->base;
  past.status = past.nodes > 0 ? malloc((size_t)past.nodes) : NULL;
  if (past.nodes > 0 && !past.status) {
    out->err = BT_ENOMEM;
    return BT_ENOMEM;
  }
  if (past.nodes > 0) memcpy(past.status, a->base.status, (size_t)past.nodes);
  bt_rec_entry e;
  for (unsigned long long s = oldest; s < start; s++) apply(L, &past, ring_at(a, (size_t)(s - oldest), &e));
  bt_buf_printf(out, "{\"agent\":%llu,\"oldest\":%llu,\"newest\":%llu,\"statuses_before\":", a->id, oldest, a->seq);
  json_past(out, &past);
  free(past.status);
  btv_json_raw(out, ",\"shape_before\":");
  json_shape_or_null(out, past.shape);
  btv_json_raw(out, ",\"keys_before\":");
  btv_json_keys_before(out, a->keys, a->nkeys, &a->ring, (size_t)(start - oldest));
  btv_json_raw(out, ",\"records\":[");
  for (unsigned long long s = start; s < end; s++) {
    if (s > start) bt_buf_append(out, ",", 1);
    btv_json_record(out, s, ring_at(a, (size_t)(s - oldest), &e));
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

/* an agent's own figures, counted from the records the view keeps of it (its last `history`) */
static int live_agent_stats(bt_view *v, unsigned long long id, bt_buf *out) {
  btv_live *L = v->src_data;
  btv_agent *a = agent_find(L, id);
  if (!a) return BTV_NOT_FOUND;
  bt_stats *st = NULL;
  if (bt_stats_create(&st) != BT_OK) {
    out->err = BT_ENOMEM;
    return BT_ENOMEM;
  }
  unsigned long long shape = a->base.shape;
  for (size_t i = 0; i < a->ring.count; i++) {
    bt_rec_entry r;
    const bt_rec_entry *e = ring_at(a, i, &r);
    if (e->type == BT_REC_RELOAD) shape = e->def_to;
    int nodes = shape_nodes(L, shape);
    if (nodes <= 0 || e->type == BT_LOG_LOST) continue;
    bt_stats_add(st, a->id, shape, nodes, e);
  }
  int rc = btv_json_stats(out, st, shape ? shape : a->shape);
  bt_stats_free(st);
  return rc;
}

static int live_shape(bt_view *v, unsigned long long hash, bt_buf *out) {
  btv_shape *s = shape_find(v->src_data, hash);
  if (!s) return BTV_NOT_FOUND;
  int n = bt_def_size(s->def);
  btv_json_raw(out, "{\"shape\":");
  btv_json_shape(out, hash);
  btv_json_raw(out, ",\"name\":");
  btv_json_cstring(out, s->name);
  btv_json_raw(out, ",\"nodes\":[");
  for (int i = 0; i < n; i++) {
    btv_json_raw(out, i ? ",{\"name\":" : "{\"name\":");
    btv_json_cstring(out, bt_def_name(s->def, i));
    btv_json_raw(out, ",\"kind\":");
    btv_json_cstring(out, bt_kind_name(bt_def_kind(s->def, i)));
    bt_buf_printf(out, ",\"parent\":%d,\"children\":[", bt_def_up(s->def, i));
    int kids = bt_def_child_count(s->def, i);
    for (int k = 0; k < kids; k++) bt_buf_printf(out, k ? ",%d" : "%d", bt_def_child(s->def, i, k));
    int state = bt_def_state(s->def, i), places = 0;
    for (int j = 0; j < n; j++) places += bt_def_state(s->def, j) == state;
    bt_buf_printf(out, "],\"param\":null,\"shared\":%d", places > 1 ? places : 0);
    int ports = bt_def_port_count(s->def, i);
    for (int p = 0; p < ports; p++) {
      int key;
      unsigned how;
      bt_def_port(s->def, i, p, &key, &how);
      bt_buf_printf(out, "%s[%d,%u]", p ? "," : ",\"ports\":[", key, how);
    }
    btv_json_raw(out, ports > 0 ? "]}" : "}");
  }
  btv_json_raw(out, "],\"keys\":[");
  for (int k = 0; k < bt_def_key_count(s->def); k++) {
    btv_json_raw(out, k ? ",{\"name\":" : "{\"name\":");
    btv_json_cstring(out, bt_def_key_name(s->def, k));
    bt_buf_printf(out, ",\"type\":\"%s\",\"host\":%s}", bt_key_type_name(bt_def_key_type(s->def, k)),
                  bt_def_key_flags(s->def, k) & BT_KEY_HOST ? "true" : "false");
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static int live_shape_stats(bt_view *v, unsigned long long hash, bt_buf *out) {
  btv_live *L = v->src_data;
  if (!shape_find(L, hash)) return BTV_NOT_FOUND;
  if (!L->stats) {
    btv_json_raw(out, "{\"shape\":");
    btv_json_shape(out, hash);
    btv_json_raw(out, ",\"agents\":0,\"thinks\":0,\"writes\":0,\"nodes\":[]}");
    return BT_OK;
  }
  return btv_json_stats(out, L->stats, hash);
}

static void live_range(bt_view *v, btv_range *out) {
  btv_live *L = v->src_data;
  out->have = 0;
  out->agents = L->n;
  out->time = v->now;
  for (int i = 0; i < L->n; i++) {
    btv_agent *a = L->agents[i];
    bt_rec_entry e0, e1;
    if (!a->ring.count) continue;
    double t0 = ring_at(a, 0, &e0)->time, t1 = ring_at(a, a->ring.count - 1, &e1)->time;
    if (!out->have || t0 < out->first) out->first = t0;
    if (!out->have || t1 > out->last) out->last = t1;
    out->have = 1;
  }
}

/* the live source (btv_internal.h): every member */
static const btv_source_methods live_methods = {
  .name = "live",
  .agents = live_agents,
  .agent = live_agent,
  .history = live_history,
  .agent_stats = live_agent_stats,
  .shape = live_shape,
  .shape_stats = live_shape_stats,
  .range = live_range,
  .watch = live_watch,
  .frame = live_frame,
  .free = live_free,
};
