/* SPDX-License-Identifier: MIT */
/*
 * logtree.c: an agent's tree replayed from a log (bt.h "an agent's tree from its records"): the
 * statuses and last results its records leave, the running nodes' DBStrings and sleep times of
 * its last describe record, its last think, and the values of its blackboard's keys (copied: a
 * record's strings live until the reader's next read). bt-log's tree and why and bt-arena's replay read
 * an agent's tree at a moment through it.
 *
 * Statuses are kept by state (a node placed under several parents shares its state with its other
 * places), as the instance keeps them, and a record changes them through bt_rec_entry_apply, the
 * one step of replaying statuses, which the viewer takes too (its windows' statuses_before); the
 * DBStrings of a describe record are copied into one
 * buffer, since the reader's text lives only until its next read.
 */
#include <stdlib.h>

#include "rec_internal.h"

typedef struct described {
  int node, has_sleep;
  double sleep;
  size_t off, len; /* the DBString in text */
} described;

struct bt_log_tree {
  const bt_log_shape *shape; /* NULL until the first attach */
  int size, cap;             /* the shape's nodes; the arrays' room */
  unsigned char *status, *last; /* by state */
  int *state;                /* the state of each node (bt_log_shape_state) */
  described *desc;           /* the last describe record's entries */
  size_t ndesc, cap_desc;
  bt_buf text;               /* their DBStrings, one after the other */
  unsigned long long think;  /* the last think's number and time */
  double think_time;
  int thought;               /* a think was applied */
  int stopped;               /* a stop was applied, and no think after it, nor an attach */
  unsigned long long stop_think;
  double stop_time;
  int nkeys, keys_cap;       /* the shape's keys, and the values' room */
  bt_value *values;          /* each key's value (a string's: its copy in strings) */
  char **strings;
};

int bt_rec_entry_apply(const bt_rec_entry *e, int nodes, const int *state, unsigned char *status,
                       unsigned char *last) {
  if (!e || !status || nodes < 0) return BT_EINVAL;
  if (e->type == BT_REC_STATUS) {
    if (e->node < 0 || e->node >= nodes || e->to > BT_RUNNING) return BT_EINVAL;
    int st = state ? state[e->node] : e->node;
    if (st < 0 || st >= nodes) return BT_EINVAL;
    status[st] = e->to;
  } else if (e->type == BT_LOG_SAVED && last && nodes > 0) {
    memcpy(last, status, (size_t)nodes);
  }
  return BT_OK;
}

int bt_log_tree_create(bt_log_tree **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_log_tree_free(bt_log_tree *t) {
  if (!t) return;
  free(t->status);
  free(t->last);
  free(t->state);
  free(t->desc);
  bt_buf_free(&t->text);
  for (int k = 0; k < t->nkeys; k++) free(t->strings[k]);
  free(t->values);
  free(t->strings);
  free(t);
}

/* Sets key k's value (a string copied): BT_OK, BT_EINVAL (no such key, a value of another type
 * than the key's), BT_ENOMEM (the key keeps its value). */
static int set_value(bt_log_tree *t, int k, const bt_value *v) {
  int type = bt_log_shape_key_type(t->shape, k);
  if (k < 0 || k >= t->nkeys || type < 0 || (v->type != BT_KEY_NONE && v->type != type)) return BT_EINVAL;
  char *copy = NULL;
  if (v->type == BT_KEY_STRING) {
    size_t n = strlen(v->as.string) + 1;
    if (!(copy = malloc(n))) return BT_ENOMEM;
    memcpy(copy, v->as.string, n);
  }
  free(t->strings[k]);
  t->strings[k] = copy;
  t->values[k] = *v;
  if (copy) t->values[k].as.string = copy;
  return BT_OK;
}

/* Every key of the shape unset. */
static int clear_values(bt_log_tree *t, const bt_log_shape *s) {
  int n = bt_log_shape_key_count(s);
  for (int k = 0; k < t->nkeys; k++) {
    free(t->strings[k]);
    t->strings[k] = NULL;
  }
  t->nkeys = 0;
  if (n > t->keys_cap) {
    bt_value *v = realloc(t->values, (size_t)n * sizeof *v);
    if (v) t->values = v;
    char **str = v ? realloc(t->strings, (size_t)n * sizeof *str) : NULL;
    if (str) t->strings = str;
    if (!v || !str) return BT_ENOMEM;
    t->keys_cap = n;
  }
  for (int k = 0; k < n; k++) {
    memset(&t->values[k], 0, sizeof t->values[k]);
    t->strings[k] = NULL;
  }
  t->nkeys = n;
  return BT_OK;
}

/* Takes the shape s, every node READY with last result READY. */
static int take_shape(bt_log_tree *t, const bt_log_shape *s) {
  int n = bt_log_shape_size(s);
  if (n < 1) return BT_EINVAL;
  if (n > t->cap) {
    unsigned char *st = malloc((size_t)n), *la = malloc((size_t)n);
    int *map = malloc((size_t)n * sizeof *map);
    if (!st || !la || !map) {
      free(st);
      free(la);
      free(map);
      return BT_ENOMEM;
    }
    free(t->status);
    free(t->last);
    free(t->state);
    t->status = st;
    t->last = la;
    t->state = map;
    t->cap = n;
  }
  for (int i = 0; i < n; i++) t->state[i] = bt_log_shape_state(s, i);
  memset(t->status, BT_READY, (size_t)n);
  memset(t->last, BT_READY, (size_t)n);
  t->shape = s;
  t->size = n;
  t->ndesc = 0;
  t->text.len = 0;
  return BT_OK;
}

static int attach(bt_log_tree *t, const bt_log_reader *r, const bt_log_record *rec) {
  if (!rec->shape) return BT_EINVAL;
  int rc = take_shape(t, rec->shape);
  if (rc == BT_OK) rc = clear_values(t, rec->shape);
  if (rc != BT_OK) return rc;
  t->stopped = 0; /* a tree the agent thinks with again (a brain's restart) */
  int key;
  bt_value v;
  for (size_t i = 0; bt_log_reader_value(r, i, &key, &v) == BT_OK; i++)
    if ((rc = set_value(t, key, &v)) != BT_OK) return rc;
  for (size_t i = 0; i < rec->entry.size; i++) {
    int node, status, last;
    if (bt_log_reader_state(r, i, &node, &status, &last) != BT_OK) return BT_EINVAL;
    int st = bt_log_shape_state(t->shape, node);
    if (st < 0 || status < BT_READY || status > BT_RUNNING || last < BT_READY || last > BT_RUNNING) return BT_EINVAL;
    t->status[st] = (unsigned char)status;
    t->last[st] = (unsigned char)last;
  }
  return BT_OK;
}

static int describe(bt_log_tree *t, const bt_log_reader *r, const bt_log_record *rec) {
  size_t n = rec->entry.size;
  if (n > t->cap_desc) {
    described *d = realloc(t->desc, n * sizeof *d);
    if (!d) return BT_ENOMEM;
    t->desc = d;
    t->cap_desc = n;
  }
  t->ndesc = 0;
  t->text.len = 0;
  for (size_t i = 0; i < n; i++) {
    described *d = &t->desc[t->ndesc];
    const char *text;
    size_t len;
    if (bt_log_reader_describe(r, i, &d->node, &d->has_sleep, &d->sleep, &text, &len) != BT_OK) return BT_EINVAL;
    d->off = t->text.len;
    d->len = len;
    if (bt_buf_append(&t->text, text, len) != BT_OK) {
      t->ndesc = 0;
      t->text.err = 0; /* the buffer keeps what it had; the next describe tries again */
      return BT_ENOMEM;
    }
    t->ndesc++;
  }
  return BT_OK;
}

int bt_log_tree_apply(bt_log_tree *t, const bt_log_reader *r, const bt_log_record *rec) {
  if (!t || !r || !rec) return BT_EINVAL;
  const bt_rec_entry *e = &rec->entry;
  if (e->type == BT_LOG_ATTACH) return attach(t, r, rec);
  if (!t->shape) return BT_OK; /* no tree yet: the agent's records before its first attach */
  switch (e->type) {
    case BT_REC_STATUS:
    case BT_LOG_SAVED: return bt_rec_entry_apply(e, t->size, t->state, t->status, t->last);
    case BT_LOG_DESCRIBE: return describe(t, r, rec);
    case BT_REC_KEY: return set_value(t, e->node, &e->after);
    case BT_REC_THINK:
      t->think = e->think;
      t->think_time = e->time;
      t->thought = 1;
      if (e->think > t->stop_think) t->stopped = 0; /* (the think a stop was made in ends after it) */
      return BT_OK;
    case BT_LOG_STOP:
      t->stopped = 1;
      t->stop_think = e->think;
      t->stop_time = e->time;
      return BT_OK;
    default: return BT_OK;
  }
}

const bt_log_shape *bt_log_tree_shape(const bt_log_tree *t) { return t ? t->shape : NULL; }

int bt_log_tree_status(const bt_log_tree *t, int node) {
  int st = t ? bt_log_shape_state(t->shape, node) : -1;
  return st < 0 ? -1 : t->status[st];
}

int bt_log_tree_last(const bt_log_tree *t, int node) {
  int st = t ? bt_log_shape_state(t->shape, node) : -1;
  return st < 0 ? -1 : t->last[st];
}

int bt_log_tree_describe(const bt_log_tree *t, int node, int *has_sleep, double *sleep, const char **text,
                         size_t *len) {
  if (!t) return 0;
  for (size_t i = 0; i < t->ndesc; i++) {
    const described *d = &t->desc[i];
    if (d->node != node) continue;
    if (has_sleep) *has_sleep = d->has_sleep;
    if (sleep) *sleep = d->has_sleep ? d->sleep : 0;
    if (text) *text = t->text.data ? t->text.data + d->off : "";
    if (len) *len = d->len;
    return 1;
  }
  return 0;
}

int bt_log_tree_key(const bt_log_tree *t, int key, bt_value *out) {
  if (!t || !out || key < 0 || key >= t->nkeys) return BT_EINVAL;
  *out = t->values[key];
  return out->type != BT_KEY_NONE;
}

int bt_log_tree_think(const bt_log_tree *t, unsigned long long *think, double *time) {
  if (!t || !t->thought) return 0;
  if (think) *think = t->think;
  if (time) *time = t->think_time;
  return 1;
}

int bt_log_tree_stopped(const bt_log_tree *t, unsigned long long *think, double *time) {
  if (!t || !t->stopped) return 0;
  if (think) *think = t->stop_think;
  if (time) *time = t->stop_time;
  return 1;
}
