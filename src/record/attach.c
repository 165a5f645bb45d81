/* SPDX-License-Identifier: MIT */
/*
 * attach.c: the recorders bt makes, which their instances own (bti_rec_set_owned): one for each
 * new instance of a definition that records (bt_def_set_recording, bt_def_set_stats: the
 * definition's watcher), and one for each brain of a scheduler that records (bti_rec_attach_new).
 * Over the recorder and its sinks, which it sets up by their public functions.
 */
#include <stdlib.h>
#include "rec_internal.h"

#if BT_RECORDER

int bti_rec_attach_new(bt_inst *in, const bt_rec_options *o, unsigned long long agent) {
  bt_rec *r = NULL;
  if (bt_inst_recorder(in)) return BT_OK;
  if (bt_rec_create(&r, o->capacity) != BT_OK) return BT_ENOMEM;
  bt_rec_set_callback(r, o->fn, o->ud);
  bti_rec_set_owned(r);
  bt_rec_set_agent(r, agent, NULL);
  int rc = bt_inst_set_recorder(in, r);
  if (rc == BT_OK && o->log) rc = bt_rec_set_log(r, o->log);
  if (rc != BT_OK) {
    if (bt_inst_recorder(in) == r) bt_inst_set_recorder(in, NULL); /* frees it: it is owned */
    else bt_rec_free(r);
  }
  return rc;
}

/* ---- what a definition gives the recorders of its instances: its watcher ---- */

typedef struct def_recording {
  int has_options;
  bt_rec_options options;
  bt_stats *stats;
} def_recording;

/* A new instance of a definition that records: its own recorder. */
static int def_watch(void *ud, bt_inst *in) {
  const def_recording *d = ud;
  const bt_rec_options *o = d->has_options ? &d->options : NULL;
  bt_rec *r = NULL;
  if (bt_rec_create(&r, o ? o->capacity : 0) != BT_OK) return BT_ENOMEM;
  if (o) bt_rec_set_callback(r, o->fn, o->ud);
  bti_rec_set_owned(r);
  int rc = bt_inst_set_recorder(in, r);
  if (rc == BT_OK && o && o->log) rc = bt_rec_set_log(r, o->log);
  if (rc == BT_OK) rc = bt_rec_set_stats(r, d->stats);
  if (rc != BT_OK) {
    if (bt_inst_recorder(in) == r) bt_inst_set_recorder(in, NULL);
    else bt_rec_free(r);
  }
  return rc == BT_OK ? BT_OK : BT_ENOMEM;
}

/* def's settings (made when make is set; NULL: none, or out of memory) */
static def_recording *def_recording_of(bt_def *def, int make) {
  void *ud;
  if (bt_def_watcher(def, &ud) == def_watch) return ud;
  if (!make) return NULL;
  def_recording *d = calloc(1, sizeof *d);
  if (d && bt_def_set_watcher(def, def_watch, d, free) != BT_OK) {
    free(d);
    d = NULL;
  }
  return d;
}

/* Drops def's settings when nothing is asked any more. */
static void def_recording_tidy(bt_def *def, const def_recording *d) {
  if (!d->has_options && !d->stats) bt_def_set_watcher(def, NULL, NULL, NULL);
}

int bt_def_set_recording(bt_def *def, const bt_rec_options *opts) {
  if (!def) return BT_EINVAL;
  def_recording *d = def_recording_of(def, opts != NULL);
  if (!d) return opts ? BT_ENOMEM : BT_OK;
  d->has_options = opts != NULL;
  if (opts) d->options = *opts;
  def_recording_tidy(def, d);
  return BT_OK;
}

int bt_def_set_stats(bt_def *def, bt_stats *st) {
  if (!def) return BT_EINVAL;
  def_recording *d = def_recording_of(def, st != NULL);
  if (!d) return st ? BT_ENOMEM : BT_OK;
  d->stats = st;
  def_recording_tidy(def, d);
  return BT_OK;
}

#else

int bti_rec_attach_new(bt_inst *in, const bt_rec_options *o, unsigned long long agent) {
  (void)in, (void)o, (void)agent;
  return BT_EINVAL;
}
int bt_def_set_recording(bt_def *def, const bt_rec_options *opts) {
  (void)def;
  (void)opts;
  return BT_EINVAL;
}
int bt_def_set_stats(bt_def *def, bt_stats *st) {
  (void)def, (void)st;
  return BT_EINVAL;
}

#endif
