/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp */
/*
 * logview.c: the log source, a view of a log file (bt_view_create_log; its table of functions,
 * logview_methods, is at the end). Opening reads the file through once with the core's reader
 * (src/record/logread.c), keeping per agent only what the answers need at once: its number of
 * records, its tree at the log's end (a bt_log_tree), its statistics, and the times of its
 * records in its last seconds (activity). A window of history is read from the file when it is
 * asked for: a reader reads from the start, following the agent's tree (for statuses_before)
 * and keeping only the window's records, and stops at the window's end. The file is never held
 * whole; a window late in a large file costs a read up to it.
 *
 * The index keeps, besides, each agent's last TAIL records (in bt's one ring of records, bti_ring,
 * rec_internal.h, which copies their texts) and the statuses just before the oldest of them, or
 * just after its last attach or reload when that came later (`base`, kept up to date as records
 * leave the tail): a window among them that starts after the last attach or reload (the first a
 * page asks for: the newest) is answered from memory, its statuses_before replayed from the
 * base. Both replays, the file's (bt_log_tree_apply) and the tail's, take the recording
 * layer's one step, bt_rec_entry_apply, by state.
 *
 * An agent's records are numbered (seq) from 1 as the recorder made them (status to host, and a
 * "lost" record where the writer lost some); the log's own records (attach, saved, describe)
 * change its tree and take no number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btv_internal.h"

#define TAIL 512 /* records of each agent kept in memory: 8 KB, and the records kept whole (ring.c) */

typedef struct log_agent {
  unsigned long long id;
  char *label;
  unsigned long long seq; /* records */
  bt_log_tree *tree;      /* at the log's end */
  bt_stats *stats;
  double first, last;
  unsigned long long transitions; /* status records: activity is their mean rate over the log */
  double *since;               /* per node: the time it became RUNNING (NAN: not running) */
  int since_nodes;
  bti_ring tail;               /* the last TAIL records */
  /* the statuses, by state, just before the record base_seq: the tail's oldest, or the first
     after its last attach or reload when that is later; of the tree's shape (no attach since) */
  unsigned char *base;
  int *base_state; /* each node's state (bt_log_shape_state) */
  int base_nodes;
  unsigned long long base_seq;
} log_agent;

/* the source's data (v->src_data) */
typedef struct btv_logview {
  char *path;
  bt_log_reader *reader; /* the index's reader: its shapes live as long as it */
  log_agent *agents;     /* by the log's agent number */
  int n, cap;
  bt_stats *stats;
  double first, last;
  int have;
} btv_logview;

static int is_counted(int type) { return (type >= BT_REC_STATUS && type <= BT_REC_KEY) || type == BT_LOG_LOST; }

static log_agent *agent_by_id(btv_logview *L, unsigned long long id) {
  for (int i = 0; L && i < L->n; i++)
    if (L->agents[i].id == id && L->agents[i].tree) return &L->agents[i];
  return NULL;
}

static log_agent *agent_at(btv_logview *L, int index) {
  if (index < 0) return NULL;
  while (index >= L->cap) {
    int cap = L->cap ? L->cap * 2 : 64;
    log_agent *p = realloc(L->agents, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    memset(p + L->cap, 0, (size_t)(cap - L->cap) * sizeof *p);
    L->agents = p;
    L->cap = cap;
  }
  if (index >= L->n) L->n = index + 1;
  return &L->agents[index];
}

static void since_update(log_agent *a, const bt_log_record *rec) {
  const bt_log_shape *s = rec->shape;
  int nodes = s ? bt_log_shape_size(s) : 0;
  if (rec->entry.type == BT_LOG_ATTACH || nodes != a->since_nodes) {
    double *p = nodes > 0 ? realloc(a->since, (size_t)nodes * sizeof *p) : NULL;
    if (nodes > 0 && !p) return;
    if (nodes == 0) free(a->since);
    a->since = p;
    a->since_nodes = nodes;
    for (int i = 0; i < nodes; i++) a->since[i] = NAN;
  }
  if (rec->entry.type == BT_REC_STATUS && rec->entry.node >= 0 && rec->entry.node < nodes) {
    if (rec->entry.to == BT_RUNNING) a->since[rec->entry.node] = rec->entry.time;
    else if (rec->entry.from == BT_RUNNING) a->since[rec->entry.node] = NAN;
  }
}

/* the i-th record of the tail (0: the oldest), read into *e */
static const bt_rec_entry *tail_at(const log_agent *a, size_t i, bt_rec_entry *e) {
  bti_ring_get(&a->tail, i, e);
  return e;
}

/* the base becomes the agent's tree as it is, after an attach or a reload: the records replayed on
 * it are those after this one */
static int base_take(log_agent *a) {
  const bt_log_shape *s = bt_log_tree_shape(a->tree);
  int nodes = s ? bt_log_shape_size(s) : 0;
  if (nodes != a->base_nodes) {
    free(a->base);
    free(a->base_state);
    a->base = nodes > 0 ? calloc((size_t)nodes, 1) : NULL;
    a->base_state = nodes > 0 ? malloc((size_t)nodes * sizeof *a->base_state) : NULL;
    a->base_nodes = a->base && a->base_state ? nodes : 0;
    if (nodes > 0 && !a->base_nodes) return BT_ENOMEM;
  }
  for (int n = 0; n < nodes; n++) a->base_state[n] = bt_log_shape_state(s, n);
  for (int n = 0; n < nodes; n++) a->base[a->base_state[n]] = (unsigned char)bt_log_tree_status(a->tree, n);
  a->base_seq = a->seq + 1;
  return BT_OK;
}

/* keeps a copy of the record (the ring copies its text) in the agent's tail, of which the oldest
 * leaves when it is full (into the base, when it came after the base) */
static int tail_push(log_agent *a, const bt_log_record *rec) {
  if (!a->tail.cap && bti_ring_reserve(&a->tail, TAIL) != BT_OK) return BT_ENOMEM;
  bt_rec_entry left;
  if (bti_ring_push(&a->tail, &rec->entry, &left) != BT_OK) return BT_ENOMEM;
  if (left.type && a->base_seq == a->seq - TAIL) { /* (a->seq is rec's) */
    bt_rec_entry_apply(&left, a->base_nodes, a->base_state, a->base, NULL);
    a->base_seq++;
  }
  return BT_OK;
}

static const btv_source_methods logview_methods; /* at the end of the file */

int btv_log_open(bt_view *v, const char *path, char *err, size_t errsize) {
  v->src = &logview_methods;
  btv_logview *L = calloc(1, sizeof *L);
  if (!L || !(L->path = strdup(path))) {
    free(L);
    btv_set_error(v, err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  v->src_data = L;
  char rerr[256];
  int rc = bt_log_reader_create_file(&L->reader, path, rerr, sizeof rerr);
  if (rc != BT_OK) {
    btv_set_error(v, err, errsize, "%s", rerr);
    return rc;
  }
  if (bt_stats_create(&L->stats) != BT_OK) {
    btv_set_error(v, err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  bt_log_record rec;
  unsigned long long records = 0;
  while ((rc = bt_log_read(L->reader, &rec)) == 1) {
    if (rec.agent_index < 0) continue; /* the world's records */
    log_agent *a = agent_at(L, rec.agent_index);
    if (!a) {
      btv_set_error(v, err, errsize, "out of memory");
      return BT_ENOMEM;
    }
    if (!a->tree) {
      a->id = rec.agent;
      if (!(a->label = strdup(rec.label ? rec.label : "")) || bt_log_tree_create(&a->tree) != BT_OK ||
          bt_stats_create(&a->stats) != BT_OK) {
        btv_set_error(v, err, errsize, "out of memory");
        return BT_ENOMEM;
      }
      a->base_seq = 1;
    }
    bt_log_tree_apply(a->tree, L->reader, &rec);
    since_update(a, &rec);
    int type = rec.entry.type;
    int reshaped = type == BT_LOG_ATTACH || type == BT_REC_RELOAD;
    if (is_counted(type)) a->seq++;
    if ((reshaped && base_take(a) != BT_OK) || (is_counted(type) && tail_push(a, &rec) != BT_OK)) {
      btv_set_error(v, err, errsize, "out of memory");
      return BT_ENOMEM;
    }
    if (!is_counted(type)) continue;
    records++;
    if (type == BT_REC_STATUS) a->transitions++;
    double t = rec.entry.time;
    if (a->seq == 1) a->first = t;
    a->last = t;
    if (!L->have || t < L->first) L->first = t;
    if (!L->have || t > L->last) L->last = t;
    L->have = 1;
    if (rec.shape && type != BT_LOG_LOST) {
      unsigned long long hash = bt_log_shape_hash(rec.shape);
      int nodes = bt_log_shape_size(rec.shape);
      bt_stats_add(L->stats, rec.agent, hash, nodes, &rec.entry);
      bt_stats_add(a->stats, rec.agent, hash, nodes, &rec.entry);
    }
  }
  if (rc < 0 && records == 0) {
    btv_set_error(v, err, errsize, "%s", bt_log_reader_errmsg(L->reader));
    return rc;
  }
  return BT_OK;
}

static void logview_free(bt_view *v) {
  btv_logview *L = v->src_data;
  if (!L) return;
  for (int i = 0; i < L->n; i++) {
    bt_log_tree_free(L->agents[i].tree);
    bt_stats_free(L->agents[i].stats);
    free(L->agents[i].label);
    free(L->agents[i].since);
    free(L->agents[i].base);
    free(L->agents[i].base_state);
    bti_ring_fini(&L->agents[i].tail);
  }
  free(L->agents);
  bt_stats_free(L->stats);
  bt_log_reader_free(L->reader);
  free(L->path);
  free(L);
  v->src_data = NULL;
}

static void logview_range(bt_view *v, btv_range *out) {
  btv_logview *L = v->src_data;
  out->have = L->have;
  out->first = L->first;
  out->last = L->last;
  out->time = L->have ? L->last : 0;
  out->agents = 0;
  for (int i = 0; i < L->n; i++) out->agents += L->agents[i].tree != NULL;
}

/* ---- answers ---- */

/* the tree's blackboard as JSON: a value per key of its shape */
static void json_keys(bt_buf *out, const bt_log_tree *t) {
  int n = bt_log_shape_key_count(bt_log_tree_shape(t));
  btv_json_raw(out, "[");
  for (int k = 0; k < n; k++) {
    bt_value v;
    bt_log_tree_key(t, k, &v);
    if (k) btv_json_raw(out, ",");
    btv_json_value(out, &v);
  }
  btv_json_raw(out, "]");
}

/* the tree's blackboard as an array of values (valid until the tree's next apply or free) */
static bt_value *keys_of(const bt_log_tree *t, int *n) {
  *n = bt_log_shape_key_count(bt_log_tree_shape(t));
  bt_value *v = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *v);
  for (int k = 0; v && k < *n; k++) bt_log_tree_key(t, k, &v[k]);
  return v;
}

static void json_running(bt_buf *out, const bt_log_tree *t) {
  const bt_log_shape *s = bt_log_tree_shape(t);
  bt_buf_append(out, "[", 1);
  int n = 0, first = 1;
  while (s && bt_log_tree_status(t, n) == BT_RUNNING) {
    if (!first) bt_buf_append(out, ",", 1);
    first = 0;
    btv_json_cstring(out, bt_log_shape_name(s, n));
    int next = -1;
    for (int i = 0; i < bt_log_shape_child_count(s, n); i++) {
      int c = bt_log_shape_child(s, n, i);
      if (bt_log_tree_status(t, c) == BT_RUNNING) {
        next = c;
        break;
      }
    }
    if (next < 0) break;
    n = next;
  }
  bt_buf_append(out, "]", 1);
}

/* an agent's object up to its shape: {"id", "label", "brain" (the root's name), "shape" */
static void json_agent_head(bt_buf *out, const log_agent *a, const bt_log_shape *s) {
  bt_buf_printf(out, "{\"id\":%llu,\"label\":", a->id);
  btv_json_cstring(out, a->label);
  btv_json_raw(out, ",\"brain\":");
  btv_json_cstring(out, s ? bt_log_shape_name(s, 0) : "");
  btv_json_raw(out, ",\"shape\":");
  if (s) btv_json_shape(out, bt_log_shape_hash(s));
  else btv_json_raw(out, "null");
}

static int logview_agents(bt_view *v, bt_buf *out) {
  btv_logview *L = v->src_data;
  btv_json_raw(out, "{\"time\":");
  btv_json_number(out, L->have ? L->last : 0);
  bt_buf_printf(out, ",\"frame\":%llu,\"agents\":[", v->frames);
  int first = 1;
  for (int i = 0; i < L->n; i++) {
    log_agent *a = &L->agents[i];
    if (!a->tree) continue;
    const bt_log_shape *s = bt_log_tree_shape(a->tree);
    if (!first) btv_json_raw(out, ",");
    first = 0;
    json_agent_head(out, a, s);
    btv_json_raw(out, ",\"running\":");
    json_running(out, a->tree);
    double span = L->last - L->first;
    btv_json_raw(out, ",\"activity\":");
    btv_json_number(out, span > 0 ? a->transitions / span : 0);
    bt_buf_printf(out, ",\"seq\":%llu}", a->seq);
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static int logview_agent(bt_view *v, unsigned long long id, bt_buf *out) {
  log_agent *a = agent_by_id(v->src_data, id);
  if (!a) return BTV_NOT_FOUND;
  const bt_log_shape *s = bt_log_tree_shape(a->tree);
  int nodes = s ? bt_log_shape_size(s) : 0;
  unsigned long long think = 0;
  double time = 0;
  bt_log_tree_think(a->tree, &think, &time);
  json_agent_head(out, a, s);
  btv_json_raw(out, ",\"time\":");
  btv_json_number(out, a->last);
  bt_buf_printf(out, ",\"think\":%llu,\"seq\":%llu,\"statuses\":[", think, a->seq);
  for (int n = 0; n < nodes; n++) bt_buf_printf(out, n ? ",%d" : "%d", bt_log_tree_status(a->tree, n));
  btv_json_raw(out, "],\"last\":[");
  for (int n = 0; n < nodes; n++) bt_buf_printf(out, n ? ",%d" : "%d", bt_log_tree_last(a->tree, n));
  btv_json_raw(out, "],\"since\":[");
  for (int n = 0; n < nodes; n++) {
    if (n) bt_buf_append(out, ",", 1);
    btv_json_number(out, n < a->since_nodes ? a->since[n] : NAN);
  }
  /* the sleep time of the last think: the root's describe entry when the log keeps them */
  int has_sleep = 0;
  double sleep = 0;
  btv_json_raw(out, "],\"sleep\":");
  if (nodes && bt_log_tree_describe(a->tree, 0, &has_sleep, &sleep, NULL, NULL) == 1 && has_sleep)
    btv_json_number(out, sleep);
  else btv_json_raw(out, "null");
  btv_json_raw(out, ",\"dbstrings\":[");
  for (int n = 0; n < nodes; n++) {
    const char *text = NULL;
    size_t len = 0;
    if (n) bt_buf_append(out, ",", 1);
    if (bt_log_tree_describe(a->tree, n, NULL, NULL, &text, &len) == 1 && text && len) btv_json_string(out, text, len);
    else btv_json_raw(out, "null");
  }
  btv_json_raw(out, "],\"keys\":");
  json_keys(out, a->tree);
  btv_json_raw(out, "}");
  return BT_OK;
}

/* whether the tail holds a loss at or after the record `start`, in a tree with keys: its values
 * before the loss are not known from the end (btv_json_keys_before), but a read of the file
 * gives them */
static int lost_after(const log_agent *a, unsigned long long start) {
  if (!bt_log_shape_key_count(bt_log_tree_shape(a->tree))) return 0;
  unsigned long long oldest = a->seq - a->tail.count + 1;
  bt_rec_entry e;
  for (unsigned long long q = start; q <= a->seq; q++)
    if (tail_at(a, (size_t)(q - oldest), &e)->type == BT_LOG_LOST) return 1;
  return 0;
}

/* a window within the agent's tail that starts after its last attach or reload (at base_seq or
 * later): from memory, the base replayed up to the window's start */
static int tail_history(log_agent *a, unsigned long long start, unsigned long long end, bt_buf *out) {
  const bt_log_shape *s = bt_log_tree_shape(a->tree);
  int nodes = a->base_nodes;
  unsigned char *st = nodes > 0 ? malloc((size_t)nodes) : NULL;
  if (nodes > 0 && !st) {
    out->err = BT_ENOMEM;
    return BT_ENOMEM;
  }
  if (nodes > 0) memcpy(st, a->base, (size_t)nodes);
  unsigned long long oldest = a->seq - a->tail.count + 1;
  bt_rec_entry e;
  for (unsigned long long q = a->base_seq; q < start; q++)
    bt_rec_entry_apply(tail_at(a, (size_t)(q - oldest), &e), nodes, a->base_state, st, NULL);
  bt_buf_printf(out, "{\"agent\":%llu,\"oldest\":1,\"newest\":%llu,\"statuses_before\":[", a->id, a->seq);
  for (int n = 0; n < nodes; n++) bt_buf_printf(out, n ? ",%d" : "%d", st[a->base_state[n]]);
  free(st);
  btv_json_raw(out, "],\"shape_before\":");
  if (s) btv_json_shape(out, bt_log_shape_hash(s));
  else btv_json_raw(out, "null");
  int nkeys;
  bt_value *now = keys_of(a->tree, &nkeys); /* the log's end: undone back to the window's start */
  btv_json_raw(out, ",\"keys_before\":");
  if (now) btv_json_keys_before(out, now, nkeys, &a->tail, (size_t)(start - oldest));
  else out->err = BT_ENOMEM;
  free(now);
  btv_json_raw(out, ",\"records\":[");
  for (unsigned long long q = start; q < end; q++) {
    if (q > start) bt_buf_append(out, ",", 1);
    btv_json_record(out, q, tail_at(a, (size_t)(q - oldest), &e));
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static int logview_history(bt_view *v, unsigned long long id, unsigned long long before, int count, bt_buf *out) {
  btv_logview *L = v->src_data;
  log_agent *a = agent_by_id(L, id);
  if (!a) return BTV_NOT_FOUND;
  if (before == 0 || before > a->seq + 1) before = a->seq + 1;
  unsigned long long end = before;
  unsigned long long start = end > (unsigned long long)count ? end - (unsigned long long)count : 1;
  if (start < 1) start = 1;
  const bt_log_shape *now = bt_log_tree_shape(a->tree);
  if (start < end && a->tail.count && start >= a->seq - a->tail.count + 1 && start >= a->base_seq &&
      a->base_nodes == (now ? bt_log_shape_size(now) : 0) && !lost_after(a, start))
    return tail_history(a, start, end, out);
  bt_log_reader *r = NULL;
  bt_log_tree *t = NULL;
  char rerr[200];
  if (bt_log_reader_create_file(&r, L->path, rerr, sizeof rerr) != BT_OK || bt_log_tree_create(&t) != BT_OK) {
    bt_log_reader_free(r);
    bt_buf_free(out);
    bt_buf_printf(out, "the log cannot be read again: %s", rerr);
    return BTV_BAD_REQUEST;
  }
  bt_buf records = {0};
  bt_buf before_statuses = {0}, before_keys = {0};
  unsigned long long seq = 0, shape_before = 0;
  int captured = 0;
  bt_log_record rec;
  int agent_index = (int)(a - L->agents);
  while (seq + 1 < end && bt_log_read(r, &rec) == 1) {
    if (rec.agent_index != agent_index) continue;
    if (is_counted(rec.entry.type)) {
      seq++;
      if (seq == start && !captured) { /* the statuses just before the window */
        const bt_log_shape *s = bt_log_tree_shape(t);
        int nodes = s ? bt_log_shape_size(s) : 0;
        bt_buf_append(&before_statuses, "[", 1);
        for (int n = 0; n < nodes; n++) bt_buf_printf(&before_statuses, n ? ",%d" : "%d", bt_log_tree_status(t, n));
        bt_buf_append(&before_statuses, "]", 1);
        shape_before = s ? bt_log_shape_hash(s) : 0;
        json_keys(&before_keys, t); /* (the record at start is not applied yet) */
        captured = 1;
      }
      if (seq >= start) {
        if (records.len) bt_buf_append(&records, ",", 1);
        btv_json_record(&records, seq, &rec.entry); /* (its text: written before the next read) */
      }
    }
    bt_log_tree_apply(t, r, &rec);
  }
  if (!captured) btv_json_raw(&before_statuses, "[]");
  bt_buf_printf(out, "{\"agent\":%llu,\"oldest\":1,\"newest\":%llu,\"statuses_before\":", a->id, a->seq);
  bt_buf_append(out, before_statuses.data ? before_statuses.data : "[]", before_statuses.len ? before_statuses.len : 2);
  btv_json_raw(out, ",\"shape_before\":");
  if (shape_before) btv_json_shape(out, shape_before);
  else btv_json_raw(out, "null");
  btv_json_raw(out, ",\"keys_before\":");
  bt_buf_append(out, before_keys.len ? before_keys.data : "[]", before_keys.len ? before_keys.len : 2);
  btv_json_raw(out, ",\"records\":[");
  if (records.len) bt_buf_append(out, records.data, records.len);
  btv_json_raw(out, "]}");
  if (records.err || before_statuses.err || before_keys.err) out->err = BT_ENOMEM;
  bt_buf_free(&records);
  bt_buf_free(&before_statuses);
  bt_buf_free(&before_keys);
  bt_log_tree_free(t);
  bt_log_reader_free(r);
  return BT_OK;
}

static int logview_agent_stats(bt_view *v, unsigned long long id, bt_buf *out) {
  log_agent *a = agent_by_id(v->src_data, id);
  if (!a) return BTV_NOT_FOUND;
  const bt_log_shape *s = bt_log_tree_shape(a->tree);
  if (!s) {
    btv_json_raw(out, "{\"shape\":null,\"agents\":0,\"thinks\":0,\"writes\":0,\"nodes\":[]}");
    return BT_OK;
  }
  return btv_json_stats(out, a->stats, bt_log_shape_hash(s));
}

static int logview_shape(bt_view *v, unsigned long long hash, bt_buf *out) {
  btv_logview *L = v->src_data;
  const bt_log_shape *s = bt_log_reader_shape(L->reader, hash);
  if (!s) return BTV_NOT_FOUND;
  int n = bt_log_shape_size(s);
  btv_json_raw(out, "{\"shape\":");
  btv_json_shape(out, hash);
  btv_json_raw(out, ",\"name\":");
  btv_json_cstring(out, bt_log_shape_name(s, 0));
  btv_json_raw(out, ",\"nodes\":[");
  for (int i = 0; i < n; i++) {
    btv_json_raw(out, i ? ",{\"name\":" : "{\"name\":");
    btv_json_cstring(out, bt_log_shape_name(s, i));
    btv_json_raw(out, ",\"kind\":");
    btv_json_cstring(out, bt_log_shape_kind_name(s, i));
    bt_buf_printf(out, ",\"parent\":%d,\"children\":[", bt_log_shape_up(s, i));
    int kids = bt_log_shape_child_count(s, i);
    for (int k = 0; k < kids; k++) bt_buf_printf(out, k ? ",%d" : "%d", bt_log_shape_child(s, i, k));
    double param;
    btv_json_raw(out, "],\"param\":");
    if (bt_log_shape_param(s, i, &param) == 1) btv_json_number(out, param);
    else btv_json_raw(out, "null");
    int state = bt_log_shape_state(s, i), places = 0;
    for (int j = 0; j < n; j++) places += bt_log_shape_state(s, j) == state;
    bt_buf_printf(out, ",\"shared\":%d", places > 1 ? places : 0);
    int ports = bt_log_shape_port_count(s, i);
    for (int p = 0; p < ports; p++) {
      int key;
      unsigned how;
      bt_log_shape_port(s, i, p, &key, &how);
      bt_buf_printf(out, "%s[%d,%u]", p ? "," : ",\"ports\":[", key, how);
    }
    btv_json_raw(out, ports > 0 ? "]}" : "}");
  }
  btv_json_raw(out, "],\"keys\":[");
  for (int k = 0; k < bt_log_shape_key_count(s); k++) {
    btv_json_raw(out, k ? ",{\"name\":" : "{\"name\":");
    btv_json_cstring(out, bt_log_shape_key_name(s, k));
    bt_buf_printf(out, ",\"type\":\"%s\",\"host\":%s}", bt_key_type_name(bt_log_shape_key_type(s, k)),
                  bt_log_shape_key_flags(s, k) & BT_KEY_HOST ? "true" : "false");
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static int logview_shape_stats(bt_view *v, unsigned long long hash, bt_buf *out) {
  btv_logview *L = v->src_data;
  if (!bt_log_reader_shape(L->reader, hash)) return BTV_NOT_FOUND;
  return btv_json_stats(out, L->stats, hash);
}

/* the log source (btv_internal.h): a log never changes, so it has no watch and no frame */
static const btv_source_methods logview_methods = {
  .name = "log",
  .agents = logview_agents,
  .agent = logview_agent,
  .history = logview_history,
  .agent_stats = logview_agent_stats,
  .shape = logview_shape,
  .shape_stats = logview_shape_stats,
  .range = logview_range,
  .watch = NULL,
  .frame = NULL,
  .free = logview_free,
};
