/* SPDX-License-Identifier: MIT */
/*
 * replay.c: a recording played back (see replay.h). The log's records come in the order they
 * were written: the map and the first frame, then each tick's brain records followed by the
 * frame the arena wrote after that tick's thinks (docs/arena.md "Recording and replaying"). So
 * a step reads records, applying each brain's to its agent's tree, until it has applied a frame:
 * the world and the trees are then both as they were after that tick.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"
#include "worldlog.h"

#define RING 24 /* the last records kept per agent, for the inspector's last transitions */

/* One record of an agent, as the inspector lists it. */
typedef struct ring_rec {
  double time, sleep;
  unsigned long long think;
  const bt_log_shape *shape; /* the agent's tree then, for the node's path */
  char *message;             /* an error's, or a key write's "hunger 0.5 -> 0.51" (malloc'd), or NULL */
  int node;
  unsigned char type, from, to, cause, has_sleep;
} ring_rec;

typedef struct agent {
  unsigned long long id;
  bt_log_tree *tree;
  ring_rec *ring; /* RING of them, made at the agent's first record worth listing */
  int nring, head; /* records in the ring; where the next goes */
} agent;

struct replay {
  bt_log_reader *r;
  char path[256];
  world *w;
  worldlog_reader wl;
  agent *agents; /* by the agent's number in the log */
  int nagents, cap_agents;
  int *agent_of_id; /* by creature id: 1 + the agent's number, or 0 */
  int cap_ids;
  int has_map;
  int picked; /* the inspector's creature, or 0 */
  unsigned long long records, statuses, thinks;
  int failed;
  int where; /* BT_LOG_*: where the last read stopped */
  char message[1024];
};

static const char *const TYPE_NAMES[] = {
    [BT_REC_STATUS] = "status", [BT_REC_THINK] = "think",   [BT_REC_EVENT] = "event",
    [BT_REC_ERROR] = "error",   [BT_REC_RELOAD] = "reload", [BT_REC_HOST] = "host",
    [BT_REC_KEY] = "key",
};

/* ---- agents ---- */

static void agent_free(agent *ag) {
  bt_log_tree_free(ag->tree);
  if (ag->ring)
    for (int i = 0; i < RING; i++) free(ag->ring[i].message);
  free(ag->ring);
}

/* The agent of number index (made as needed), or NULL out of memory. */
static agent *agent_at(replay *rp, int index, unsigned long long id) {
  if (index >= rp->cap_agents) {
    int cap = rp->cap_agents ? rp->cap_agents : 256;
    while (cap <= index) cap *= 2;
    agent *p = realloc(rp->agents, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    memset(p + rp->cap_agents, 0, (size_t)(cap - rp->cap_agents) * sizeof *p);
    rp->agents = p;
    rp->cap_agents = cap;
  }
  agent *ag = &rp->agents[index];
  if (!ag->tree) {
    if (bt_log_tree_create(&ag->tree) != BT_OK) return NULL;
    if (index >= rp->nagents) rp->nagents = index + 1;
  }
  if (ag->id != id || !ag->id) { /* its id: a creature's */
    ag->id = id;
    if (id > 0 && id <= WORLD_MAX_ID) {
      int i = (int)id;
      if (i >= rp->cap_ids) {
        int cap = rp->cap_ids ? rp->cap_ids : 1024;
        while (cap <= i) cap *= 2;
        int *p = realloc(rp->agent_of_id, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        memset(p + rp->cap_ids, 0, (size_t)(cap - rp->cap_ids) * sizeof *p);
        rp->agent_of_id = p;
        rp->cap_ids = cap;
      }
      rp->agent_of_id[i] = index + 1;
    }
  }
  return ag;
}

static agent *agent_of(replay *rp, int id) {
  if (id <= 0 || id >= rp->cap_ids || !rp->agent_of_id[id]) return NULL;
  return &rp->agents[rp->agent_of_id[id] - 1];
}

/* A key's value as bt-log prints it: 0.51, true, "text", entity 12, nil. */
static int value_text(char *buf, size_t size, const bt_value *v) {
  switch (v->type) {
    case BT_KEY_NUMBER: return snprintf(buf, size, "%.17g", v->as.number);
    case BT_KEY_INTEGER: return snprintf(buf, size, "%lld", v->as.integer);
    case BT_KEY_BOOLEAN: return snprintf(buf, size, "%s", v->as.boolean ? "true" : "false");
    case BT_KEY_STRING: return snprintf(buf, size, "\"%s\"", v->as.string);
    case BT_KEY_ENTITY: return snprintf(buf, size, "entity %llu", v->as.entity);
    case BT_KEY_VALUE: return snprintf(buf, size, "value %llu", v->as.token);
    default: return snprintf(buf, size, "nil");
  }
}

/* A key write for the inspector: "hunger 0.5 -> 0.51 (woke)"; malloc'd, or NULL. */
static char *key_text(const bt_log_shape *shape, const bt_rec_entry *e) {
  char before[64], after[64], *text = malloc(200);
  const char *name = shape ? bt_log_shape_key_name(shape, e->node) : NULL;
  if (!text) return NULL;
  value_text(before, sizeof before, &e->before);
  value_text(after, sizeof after, &e->after);
  snprintf(text, 200, "%s %s -> %s%s", name ? name : "?", before, after, e->from ? " (woke)" : "");
  return text;
}

/* Keeps the record in the agent's ring if the inspector lists its kind. */
static int keep(agent *ag, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  if (e->type < BT_REC_STATUS || e->type > BT_REC_KEY) return 0;
  if (!ag->ring && !(ag->ring = calloc(RING, sizeof *ag->ring))) return -1;
  ring_rec *x = &ag->ring[ag->head];
  free(x->message);
  x->message = NULL;
  x->time = e->time;
  x->sleep = e->sleep;
  x->think = e->think;
  x->shape = rec->shape;
  x->node = e->node;
  x->type = e->type;
  x->from = e->from;
  x->to = e->to;
  x->cause = e->cause;
  x->has_sleep = e->has_sleep;
  if (e->type == BT_REC_ERROR && e->text) {
    size_t n = e->size < 200 ? e->size : 200;
    if ((x->message = malloc(n + 1))) {
      memcpy(x->message, e->text, n);
      x->message[n] = 0;
    }
  } else if (e->type == BT_REC_KEY) {
    x->message = key_text(rec->shape, e);
  }
  ag->head = (ag->head + 1) % RING;
  if (ag->nring < RING) ag->nring++;
  return 0;
}

/* ---- reading ---- */

static void say_where(replay *rp) {
  unsigned long long at = 0;
  int where = bt_log_reader_where(rp->r, &at);
  rp->where = where;
  if (where == BT_LOG_ENDED)
    snprintf(rp->message, sizeof rp->message, "the end of the recording");
  else if (where == BT_LOG_CUT)
    snprintf(rp->message, sizeof rp->message,
             "%s: the log stops at byte %llu inside a block (cut there, or still being written): replayed to tick %lld",
             rp->path, at, rp->wl.tick);
  else
    snprintf(rp->message, sizeof rp->message,
             "%s: the log has no end after byte %llu (still being written, or its writer did not close it): replayed to tick %lld",
             rp->path, at, rp->wl.tick);
}

static int failure(replay *rp, const char *fmt, const char *what) {
  char text[400];
  snprintf(text, sizeof text, fmt, what);
  snprintf(rp->message, sizeof rp->message, "%s: %s%s", rp->path, text,
           rp->has_map ? "" : " (not a recording of bt-arena?)");
  rp->failed = 1;
  rp->where = BT_LOG_FAILED;
  return -1;
}

/* Reads records until a frame (or, before the map, the map and the first frame) was applied:
 * 1, 0 at the end of what there is, -1 at an error. */
static int read_on(replay *rp) {
  if (rp->failed) return -1;
  bt_log_record rec;
  for (;;) {
    int rc = bt_log_read(rp->r, &rec);
    if (rc < 0) return failure(rp, "%s", bt_log_reader_errmsg(rp->r));
    if (rc == 0) {
      say_where(rp);
      return 0;
    }
    const bt_rec_entry *e = &rec.entry;
    if (rec.agent_index >= 0) { /* a brain's record */
      if (e->type >= BT_REC_STATUS && e->type <= BT_REC_KEY) rp->records++; /* the recorder's kinds */
      agent *ag = agent_at(rp, rec.agent_index, rec.agent);
      if (!ag) return failure(rp, "%s", "out of memory");
      int applied = bt_log_tree_apply(ag->tree, rp->r, &rec);
      if (applied == BT_ENOMEM || keep(ag, &rec) != 0) return failure(rp, "%s", "out of memory");
      if (e->type == BT_REC_STATUS) rp->statuses++;
      if (e->type == BT_REC_THINK) rp->thinks++;
      continue;
    }
    if (e->type != BT_LOG_WORLD) continue;
    char err[300] = "";
    if (e->node == WORLDLOG_MAP) {
      if (rp->has_map) return failure(rp, "%s", "a second map record");
      if (worldlog_read_map(rp->w, e->text, e->size, err, sizeof err) != 0)
        return failure(rp, "the map record: %s", err);
      rp->has_map = 1;
    } else if (e->node == WORLDLOG_FRAME) {
      if (!rp->has_map) return failure(rp, "%s", "a frame before the map record");
      if (worldlog_read_frame(&rp->wl, rp->w, e->time, e->text, e->size, err, sizeof err) != 0) {
        char what[400];
        snprintf(what, sizeof what, "the frame at %.4f s: %s", e->time, err);
        return failure(rp, "%s", what);
      }
      rp->message[0] = 0;
      rp->where = BT_LOG_MORE;
      return 1;
    }
  }
}

int replay_open(replay **out, const char *path, world *w, char *err, size_t errsize) {
  *out = NULL;
  replay *rp = calloc(1, sizeof *rp);
  if (!rp) return snprintf(err, errsize, "out of memory"), -1;
  snprintf(rp->path, sizeof rp->path, "%s", path);
  memset(w, 0, sizeof *w);
  rp->w = w;
  if (bt_log_reader_create_file(&rp->r, path, err, errsize) != BT_OK) {
    replay_free(rp);
    return -1;
  }
  int rc = read_on(rp);
  if (rc <= 0 || !rp->has_map) {
    if (rc == 0 && !rp->has_map)
      snprintf(err, errsize, "%s: no map record of bt-arena's in it (not a recording of bt-arena, or nothing written yet)", path);
    else if (rc == 0)
      snprintf(err, errsize, "%s: a map but no frame (nothing recorded yet)", path);
    else
      snprintf(err, errsize, "%s", rp->message);
    if (rp->has_map) world_free(w);
    replay_free(rp);
    return -1;
  }
  *out = rp;
  return 0;
}

void replay_free(replay *rp) {
  if (!rp) return;
  for (int i = 0; i < rp->nagents; i++) agent_free(&rp->agents[i]);
  free(rp->agents);
  free(rp->agent_of_id);
  worldlog_reader_free(&rp->wl);
  bt_log_reader_free(rp->r);
  free(rp);
}

int replay_step(replay *rp) { return read_on(rp); }

const char *replay_message(const replay *rp) { return rp->message; }
int replay_where(const replay *rp) { return rp->where; }

void replay_counts_get(const replay *rp, replay_counts *out) {
  out->frames = rp->wl.frames;
  out->tick = rp->wl.tick;
  out->agents = rp->nagents;
  out->records = rp->records;
  out->statuses = rp->statuses;
  out->thinks = rp->thinks;
  out->offset = 0;
  bt_log_reader_where(rp->r, &out->offset);
}

/* ---- the inspector ---- */

static int depth_of(const bt_log_shape *s, int node) {
  int d = 0;
  for (int u = bt_log_shape_up(s, node); u >= 0 && d <= BT_MAX_DEPTH; u = bt_log_shape_up(s, u)) d++;
  return d;
}

void replay_doing(replay *rp, int id, char *buf, size_t size) {
  agent *ag = agent_of(rp, id);
  const bt_log_shape *s = ag ? bt_log_tree_shape(ag->tree) : NULL;
  if (!s) {
    snprintf(buf, size, "-");
    return;
  }
  int best = -1, best_depth = -1;
  for (int n = 0; n < bt_log_shape_size(s); n++) {
    if (bt_log_tree_status(ag->tree, n) != BT_RUNNING) continue;
    int d = depth_of(s, n);
    if (d > best_depth) best = n, best_depth = d;
  }
  snprintf(buf, size, "%s", best >= 0 ? bt_log_shape_name(s, best) : "(idle)");
}

void replay_inspect_select(replay *rp, int id) { rp->picked = id; }

static void read_tree(const agent *ag, arena_inspection *out) {
  const bt_log_shape *s = bt_log_tree_shape(ag->tree);
  int n = bt_log_shape_size(s);
  if (!arena_grow((void **)&out->nodes, &out->cap_nodes, n, sizeof *out->nodes)) {
    snprintf(out->why, sizeof out->why, "not enough memory for %d nodes", n);
    return;
  }
  for (int i = 0; i < n; i++) {
    arena_node *d = &out->nodes[i];
    d->depth = depth_of(s, i);
    d->status = bt_log_tree_status(ag->tree, i);
    d->last = bt_log_tree_last(ag->tree, i);
    snprintf(d->name, sizeof d->name, "%s", bt_log_shape_name(s, i));
    d->dbstring[0] = 0;
    d->has_sleep = 0;
    d->sleep = 0;
    const char *text = NULL;
    size_t len = 0;
    if (d->status == BT_RUNNING && bt_log_tree_describe(ag->tree, i, &d->has_sleep, &d->sleep, &text, &len))
      snprintf(d->dbstring, sizeof d->dbstring, "%.*s", (int)(len < sizeof d->dbstring ? len : sizeof d->dbstring - 1), text);
  }
  out->nnodes = n;
  out->has_tree = 1;
}

static void read_records(const agent *ag, arena_inspection *out) {
  if (!arena_grow((void **)&out->records, &out->cap_records, ag->nring, sizeof *out->records)) {
    snprintf(out->no_records, sizeof out->no_records, "not enough memory for %d records", ag->nring);
    return;
  }
  int first = (ag->head - ag->nring + RING) % RING;
  for (int i = 0; i < ag->nring; i++) {
    const ring_rec *x = &ag->ring[(first + i) % RING];
    arena_record *r = &out->records[i];
    memset(r, 0, sizeof *r);
    snprintf(r->type, sizeof r->type, "%s", TYPE_NAMES[x->type] ? TYPE_NAMES[x->type] : "?");
    r->from = r->to = -1;
    r->think = (long long)x->think;
    r->time = x->time;
    if (x->type == BT_REC_STATUS || x->type == BT_REC_EVENT || (x->type == BT_REC_ERROR && x->node >= 0)) {
      r->node = x->node + 1;
      bt_buf b = {0};
      if (x->shape && bt_log_shape_path(x->shape, x->node, &b) == BT_OK && b.data)
        snprintf(r->path, sizeof r->path, "%s", b.data);
      bt_buf_free(&b);
    }
    if (x->type == BT_REC_STATUS) {
      r->from = x->from;
      r->to = x->to;
    } else if (x->type == BT_REC_THINK) {
      r->has_sleep = x->has_sleep;
      r->sleep = x->sleep;
      snprintf(r->cause, sizeof r->cause, "%s", bt_wake_name(x->cause));
    } else if (x->message) {
      snprintf(r->message, sizeof r->message, "%s", x->message);
    }
  }
  out->nrecords = ag->nring;
  out->recording = 1;
}

void replay_inspect_read(replay *rp, arena_inspection *out) {
  out->has_tree = out->recording = 0;
  out->nnodes = out->nrecords = 0;
  agent *ag = agent_of(rp, rp->picked);
  if (!rp->picked) {
    snprintf(out->why, sizeof out->why, "nothing selected");
    snprintf(out->no_records, sizeof out->no_records, "nothing selected");
    return;
  }
  if (!ag) {
    snprintf(out->why, sizeof out->why, "no brain in the recording (yet)");
    snprintf(out->no_records, sizeof out->no_records, "no records of it in the recording (yet)");
    return;
  }
  if (bt_log_tree_shape(ag->tree)) read_tree(ag, out);
  else snprintf(out->why, sizeof out->why, "no tree recorded yet");
  if (ag->ring) read_records(ag, out);
  else snprintf(out->no_records, sizeof out->no_records, "no records of it yet");
}
