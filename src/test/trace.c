/* SPDX-License-Identifier: MIT */
/*
 * trace.c: the test kit's checks over time (bt_test.h, "checks over time"). A bt_trace is its
 * recorder's callback: it copies each record into an array of its own (their bytes into one
 * bt_buf), so that nothing is lost when a recorder's ring wraps, and passes the record on to the
 * callback set before it. The records are cut into runs, one per instance the recorder watched
 * (a brain's tree rebuilt, a reload's new tree): a run starts with the statuses its instance had
 * when the trace first saw it, and each query replays a run's records over them with
 * bt_rec_entry_apply, the one replayer of statuses, looking paths up with bt_def_find.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_internal.h"

/* One record: the recorder's entry, its bytes kept at `text` in the trace's texts (or none). */
typedef struct trace_rec {
  bt_rec_entry e;
  size_t text; /* offset in texts + 1, 0: none */
} trace_rec;

/* The records of one instance: from records[first] to the next run's first. */
typedef struct trace_run {
  bt_def *def;           /* its definition (a reference of the trace's) */
  const bt_inst *inst;   /* the instance, to tell the next one by (never read) */
  size_t first;
  unsigned char *status; /* by state: the statuses the instance had when the run began */
  int *state;            /* by node: bt_def_state */
} trace_run;

struct bt_trace {
  bt_rec *rec;      /* the recorder it takes records from (NULL: detached) */
  bt_rec *own;      /* the recorder it made for an instance (bt_trace_attach_inst), or NULL */
  bt_rec_fn prev_fn; /* the callback rec had before */
  void *prev_ud;
  trace_rec *recs;
  size_t count, cap;
  bt_buf texts;
  trace_run *runs;
  int nruns, runs_cap;
  unsigned long long lost; /* records lost for want of memory */
  char err[256];
};

/* ---- errors ---- */

#define fail(t, code, message) kit_fail((t)->err, sizeof (t)->err, (code), "%s", (message))

static int ok(bt_trace *t) {
  t->err[0] = '\0';
  return BT_OK;
}

/* BT_ENOMEM when a record was lost: no query can be answered right after that. */
static int check_whole(bt_trace *t) {
  if (!t->lost) return ok(t);
  snprintf(t->err, sizeof t->err, "the trace lost %llu record%s for want of memory", t->lost, t->lost == 1 ? "" : "s");
  return BT_ENOMEM;
}

/* ---- taking records ---- */

static void run_free(trace_run *r) {
  bt_def_release(r->def);
  free(r->status);
  free(r->state);
}

/* A new run for the instance in of definition def, its statuses as they are now: the record the
 * recorder is making has not changed any yet (the engine tells before it writes). */
static int run_begin(bt_trace *t, const bt_inst *in, const bt_def *def) {
  if (kit_grow((void **)&t->runs, &t->runs_cap, t->nruns + 1, sizeof *t->runs) != BT_OK) return BT_ENOMEM;
  int n = bt_def_size(def), states = bt_def_states(def);
  trace_run r = {(bt_def *)(uintptr_t)def, in, t->count, calloc((size_t)(states ? states : 1), 1),
                 malloc((size_t)(n ? n : 1) * sizeof(int))};
  if (!r.status || !r.state) {
    free(r.status);
    free(r.state);
    return BT_ENOMEM;
  }
  for (int i = 0; i < n; i++) r.state[i] = bt_def_state(def, i);
  for (int s = 0; s < states; s++) r.status[s] = (unsigned char)bt_node_status(in, bt_def_node_of_state(def, s));
  bt_def_retain(r.def);
  t->runs[t->nruns++] = r;
  return BT_OK;
}

static int keep(bt_trace *t, const bt_rec_entry *e) {
  if (t->count == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    trace_rec *x = realloc(t->recs, cap * sizeof *x);
    if (!x) return BT_ENOMEM;
    t->recs = x;
    t->cap = cap;
  }
  trace_rec *r = &t->recs[t->count];
  r->e = *e;
  r->e.text = NULL;
  r->text = 0;
  if (e->text && e->size) {
    size_t at = t->texts.len;
    if (bt_buf_append(&t->texts, e->text, e->size) != BT_OK) return BT_ENOMEM;
    r->text = at + 1;
  }
  t->count++;
  return BT_OK;
}

/* The recorder's callback: a new run when the recorder watches another instance than the last
 * run's, the record kept, and the callback set before called. */
static void on_record(void *ud, const bt_rec_entry *e) {
  bt_trace *t = ud;
  if (t->rec) { /* detached under a later watcher, it only passes records on */
    const bt_inst *in = bt_rec_inst(t->rec);
    const bt_def *def = bt_rec_def(t->rec);
    int rc = BT_OK;
    if (in && def && (!t->nruns || t->runs[t->nruns - 1].inst != in || t->runs[t->nruns - 1].def != def))
      rc = run_begin(t, in, def);
    if (rc == BT_OK && t->nruns) rc = keep(t, e);
    if (rc != BT_OK) t->lost++;
  }
  if (t->prev_fn) t->prev_fn(t->prev_ud, e);
}

/* ---- making and attaching ---- */

int bt_trace_create(bt_trace **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_trace_detach(bt_trace *t) {
  if (!t || !t->rec) return;
  void *ud;
  if (bt_rec_callback(t->rec, &ud) == on_record && ud == t) { /* else a later watcher calls it */
    bt_rec_set_callback(t->rec, t->prev_fn, t->prev_ud);
    t->prev_fn = NULL;
    t->prev_ud = NULL;
  }
  t->rec = NULL;
  bt_rec_free(t->own); /* (it detaches from its instance) */
  t->own = NULL;
}

void bt_trace_free(bt_trace *t) {
  if (!t) return;
  bt_trace_detach(t);
  for (int i = 0; i < t->nruns; i++) run_free(&t->runs[i]);
  free(t->runs);
  free(t->recs);
  bt_buf_free(&t->texts);
  free(t);
}

int bt_trace_attach(bt_trace *t, bt_rec *rec) {
  if (!t) return BT_EINVAL;
  if (!rec) return fail(t, BT_EINVAL, "no recorder given");
  void *ud;
  bt_rec_fn fn = bt_rec_callback(rec, &ud);
  if (fn == on_record && ud == t) return ok(t); /* attached already */
  if (fn == on_record) return fail(t, BT_EINVAL, "the recorder is another trace's");
  bt_trace_detach(t);
  const bt_inst *in = bt_rec_inst(rec);
  const bt_def *def = bt_rec_def(rec);
  t->rec = rec; /* a run for its instance now: its replay starts from the statuses it has */
  if (in && def && run_begin(t, in, def) != BT_OK) {
    t->rec = NULL;
    return fail(t, BT_ENOMEM, "out of memory");
  }
  t->prev_fn = fn;
  t->prev_ud = ud;
  bt_rec_set_callback(rec, on_record, t);
  return ok(t);
}

int bt_trace_attach_inst(bt_trace *t, bt_inst *inst) {
  if (!t) return BT_EINVAL;
  if (!inst) return fail(t, BT_EINVAL, "no instance given");
  bt_rec *rec = bt_inst_recorder(inst);
  if (rec && rec == t->rec) return ok(t);
  bt_trace_detach(t);
  bt_rec *made = NULL;
  if (!rec) {
    if (bt_rec_create(&made, 0) != BT_OK) return fail(t, BT_ENOMEM, "out of memory");
    int rc = bt_inst_set_recorder(inst, made);
    if (rc != BT_OK) {
      bt_rec_free(made);
      return fail(t, rc, rc == BT_EINVAL ? "the recorder is compiled out (BT_RECORDER=OFF)" : "out of memory");
    }
    rec = made;
  }
  int rc = bt_trace_attach(t, rec);
  if (rc != BT_OK) {
    bt_rec_free(made);
    return rc;
  }
  t->own = made;
  return BT_OK;
}

bt_rec *bt_trace_recorder(const bt_trace *t) { return t ? t->rec : NULL; }
const char *bt_trace_errmsg(const bt_trace *t) { return t ? t->err : ""; }
size_t bt_trace_count(const bt_trace *t) { return t ? t->count : 0; }

/* ---- reading records ---- */

/* A key record's string values point into its text, before's then after's (bt_rec_entry). */
static void key_strings(bt_rec_entry *e) {
  const char *p = e->text;
  if (e->before.type == BT_KEY_STRING) {
    e->before.as.string = p;
    p += strlen(p) + 1;
  }
  if (e->after.type == BT_KEY_STRING) e->after.as.string = p;
}

int bt_trace_get(const bt_trace *t, size_t i, bt_rec_entry *out) {
  if (!t || !out || i >= t->count) return BT_EINVAL;
  const trace_rec *r = &t->recs[i];
  *out = r->e;
  out->text = r->text ? t->texts.data + r->text - 1 : NULL;
  if (out->type == BT_REC_KEY && out->text) key_strings(out);
  return BT_OK;
}

/* The run record i belongs to. */
static const trace_run *run_of_record(const bt_trace *t, size_t i) {
  int k = t->nruns - 1;
  while (k > 0 && t->runs[k].first > i) k--;
  return &t->runs[k];
}

/* The index of the run in force at `time`: the last that began at it or before (a run begins
 * at its first record's time, or at once when it has none yet), else the first. -1: no run. */
static int run_at(const bt_trace *t, double time) {
  int k = t->nruns - 1;
  while (k > 0 && t->runs[k].first < t->count && t->recs[t->runs[k].first].e.time > time + BT_TRACE_EPSILON) k--;
  return k;
}

/* One past the last record of run k. */
static size_t run_end(const bt_trace *t, int k) { return k + 1 < t->nruns ? t->runs[k + 1].first : t->count; }

int bt_trace_path(bt_trace *t, size_t i, bt_buf *out) {
  if (!t || !out) return BT_EINVAL;
  if (i >= t->count) return fail(t, BT_EINVAL, "no record of that number");
  const bt_rec_entry *e = &t->recs[i].e;
  if (e->type != BT_REC_STATUS && e->type != BT_REC_EVENT && e->type != BT_REC_ERROR) return fail(t, BT_EINVAL, "the record names no node");
  if (e->node < 0) return fail(t, BT_EINVAL, "the record names no node");
  int rc = bt_def_path(run_of_record(t, i)->def, e->node, out);
  return rc == BT_OK ? ok(t) : fail(t, rc, rc == BT_ENOMEM ? "out of memory" : "the record's node is not in its tree");
}

/* Replays run k's statuses up to `time` into status (bt_def_states bytes). */
static void replay(const bt_trace *t, int k, double time, unsigned char *status) {
  const trace_run *r = &t->runs[k];
  int n = bt_def_size(r->def);
  memcpy(status, r->status, (size_t)(bt_def_states(r->def) ? bt_def_states(r->def) : 1));
  size_t end = run_end(t, k);
  for (size_t i = r->first; i < end && t->recs[i].e.time <= time + BT_TRACE_EPSILON; i++)
    bt_rec_entry_apply(&t->recs[i].e, n, r->state, status, NULL);
}

/* The statuses at `time` (k: its run), in memory the caller frees; NULL: no run (BT_EINVAL), or
 * out of memory (BT_ENOMEM): *rc says which, with the message. */
static unsigned char *statuses_at(bt_trace *t, double time, int *k, int *rc) {
  *rc = check_whole(t);
  if (*rc != BT_OK) return NULL;
  *k = run_at(t, time);
  if (*k < 0) {
    *rc = fail(t, BT_EINVAL, "the trace has seen no tree yet");
    return NULL;
  }
  int states = bt_def_states(t->runs[*k].def);
  unsigned char *status = malloc((size_t)(states ? states : 1));
  if (!status) {
    *rc = fail(t, BT_ENOMEM, "out of memory");
    return NULL;
  }
  replay(t, *k, time, status);
  return status;
}

/* ---- queries ---- */

int bt_trace_status_at(bt_trace *t, const char *path, double time) {
  if (!t) return BT_EINVAL;
  if (!path) return fail(t, BT_EINVAL, "no path given");
  int k, rc;
  unsigned char *status = statuses_at(t, time, &k, &rc);
  if (!status) return rc;
  const trace_run *r = &t->runs[k];
  int node = bt_def_find(r->def, path);
  int result = node >= 0 ? status[r->state[node]] : node;
  free(status);
  if (result == BT_ENOMEM) return fail(t, BT_ENOMEM, "out of memory");
  if (result < 0) {
    snprintf(t->err, sizeof t->err, "no node '%.200s' in the tree at %.4f", path, time);
    return BT_EINVAL;
  }
  ok(t);
  return result;
}

int bt_trace_running_at(bt_trace *t, double time, bt_buf *out) {
  if (!t) return BT_EINVAL;
  if (!out) return fail(t, BT_EINVAL, "no buffer given");
  if (!t->nruns) return check_whole(t) == BT_OK ? 0 : BT_ENOMEM;
  int k, rc;
  unsigned char *status = statuses_at(t, time, &k, &rc);
  if (!status) return rc;
  const trace_run *r = &t->runs[k];
  int n = bt_def_size(r->def), found = 0;
  for (int i = 0; i < n && rc == BT_OK; i++) {
    if (status[r->state[i]] != BT_RUNNING) continue;
    int deepest = 1;
    for (int c = 0; c < bt_def_child_count(r->def, i) && deepest; c++)
      if (status[r->state[bt_def_child(r->def, i, c)]] == BT_RUNNING) deepest = 0;
    if (!deepest) continue;
    rc = bt_def_path(r->def, i, out);
    if (rc == BT_OK) rc = bt_buf_append(out, "\n", 1);
    found++;
  }
  free(status);
  if (rc != BT_OK) return fail(t, BT_ENOMEM, "out of memory");
  ok(t);
  return found;
}

int bt_trace_first(bt_trace *t, const char *path, int status, double after, double *when) {
  if (!t) return BT_EINVAL;
  if (!path) return fail(t, BT_EINVAL, "no path given");
  if (status != BT_TRACE_VISIT && (status < BT_READY || status > BT_ABORTED)) return fail(t, BT_EINVAL, "no such status");
  int rc = check_whole(t);
  if (rc != BT_OK) return rc;
  int known = 0;
  for (int k = 0; k < t->nruns; k++) {
    int node = bt_def_find(t->runs[k].def, path);
    if (node == BT_ENOMEM) return fail(t, BT_ENOMEM, "out of memory");
    if (node < 0) continue;
    known = 1;
    for (size_t i = t->runs[k].first, end = run_end(t, k); i < end; i++) {
      const bt_rec_entry *e = &t->recs[i].e;
      if (e->type != BT_REC_STATUS || e->node != node || e->time < after - BT_TRACE_EPSILON) continue;
      if (status == BT_TRACE_VISIT ? e->to == BT_READY : e->to != status) continue;
      if (when) *when = e->time;
      ok(t);
      return 1;
    }
  }
  if (!known) {
    if (!t->nruns) snprintf(t->err, sizeof t->err, "no node '%.200s': the trace has seen no tree yet", path);
    else snprintf(t->err, sizeof t->err, "no node '%.200s' in the trace's tree%s", path, t->nruns > 1 ? "s" : "");
    return BT_EINVAL;
  }
  ok(t);
  return 0;
}

int bt_trace_sleep_at(bt_trace *t, double time, double *sleep, double *think_time) {
  if (!t) return BT_EINVAL;
  int rc = check_whole(t);
  if (rc != BT_OK) return rc;
  const bt_rec_entry *found = NULL;
  for (size_t i = 0; i < t->count && t->recs[i].e.time <= time + BT_TRACE_EPSILON; i++)
    if (t->recs[i].e.type == BT_REC_THINK) found = &t->recs[i].e;
  if (!found) {
    snprintf(t->err, sizeof t->err, "no think at %.4f or before", time);
    return BT_EINVAL;
  }
  if (sleep) *sleep = found->sleep;
  if (think_time) *think_time = found->time;
  ok(t);
  return found->has_sleep ? 1 : 0;
}

/* ---- what a failure prints ---- */

int bt_trace_dump_at(bt_trace *t, double time, bt_buf *out) {
  if (!t) return BT_EINVAL;
  if (!out) return fail(t, BT_EINVAL, "no buffer given");
  int k, rc;
  unsigned char *status = statuses_at(t, time, &k, &rc);
  if (!status) return rc;
  const trace_run *r = &t->runs[k];
  int n = bt_def_size(r->def);
  for (int i = 0; i < n; i++) {
    for (int d = bt_def_depth(r->def, i); d > 0; d--) bt_buf_append(out, "   >", 4);
    bt_buf_printf(out, "%s - %s\n", bt_def_name(r->def, i), bt_status_name(status[r->state[i]]));
  }
  free(status);
  return out->err ? fail(t, BT_ENOMEM, "out of memory") : ok(t);
}

int bt_trace_failure(bt_trace *t, double time, const char *expected, int last, bt_buf *out) {
  if (!t) return BT_EINVAL;
  if (!out || last < 0) return fail(t, BT_EINVAL, !out ? "no buffer given" : "a negative number of transitions");
  bt_buf_printf(out, "expected: %s\n", expected ? expected : "");
  bt_buf_printf(out, "the tree at %.4f (statuses replayed from the trace):\n", time);
  int rc = bt_trace_dump_at(t, time, out);
  if (rc == BT_EINVAL) bt_buf_printf(out, "  (%s)\n", t->err);
  else if (rc != BT_OK) return rc;
  /* the last `last` status changes at or before time */
  size_t end = 0, first;
  while (end < t->count && t->recs[end].e.time <= time + BT_TRACE_EPSILON) end++;
  int n = 0;
  for (first = end; first > 0 && n < last; first--)
    if (t->recs[first - 1].e.type == BT_REC_STATUS) n++;
  bt_buf_printf(out, "the last %d transition%s up to %.4f:\n", n, n == 1 ? "" : "s", time);
  for (size_t i = first; i < end; i++) {
    const bt_rec_entry *e = &t->recs[i].e;
    if (e->type != BT_REC_STATUS) continue;
    bt_buf_printf(out, "  %.4f  ", e->time);
    if (bt_def_path(run_of_record(t, i)->def, e->node, out) != BT_OK) bt_buf_printf(out, "node %d", e->node);
    bt_buf_printf(out, "  %s > %s\n", bt_status_name(e->from), bt_status_name(e->to));
  }
  if (t->lost) bt_buf_printf(out, "(the trace lost %llu records for want of memory)\n", t->lost);
  return out->err ? fail(t, BT_ENOMEM, "out of memory") : ok(t);
}
