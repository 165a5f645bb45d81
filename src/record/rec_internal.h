/* SPDX-License-Identifier: MIT */
/*
 * rec_internal.h: what the files of the recording layer (src/record) share, and the schedulers'
 * way to give their brains recorders; never installed. Names carry the prefix bti_ and are hidden.
 *
 *   rec.c      the recorder: the engine's hook, the ring, the callback, and the sinks it feeds
 *   stats.c    the statistics: a sink
 *   log.c      the log file's writer: a sink, a buffer per recorder
 *   attach.c   the recorders bt makes: a definition's for each instance, a scheduler's
 *   logread.c  the log file's reader; logtree.c an agent's tree replayed from its records
 *
 * Each calls only files listed before it (and logcrc.c, the blocks' CRC, beneath them all): the
 * sinks call the recorder, and rec.c, which names none of them, calls them through their
 * bti_sink_methods.
 */
#ifndef BT_REC_INTERNAL_H
#define BT_REC_INTERNAL_H

#include "bt_record.h"
#include "internal.h"

/* BT_RECORDER 0 (cmake -DBT_RECORDER=OFF, which also compiles the engine's hook out: BT_HOOKS 0)
 * leaves the recorder out: attaching one fails. */
#ifndef BT_RECORDER
#define BT_RECORDER BT_HOOKS
#endif

/* ---- sinks: what a recorder feeds besides its ring and its callback ----
 * A sink is a struct of its own holding a bti_sink; the recorder keeps a list of them and calls
 * each through its methods, in the order they were added. */
typedef struct bti_sink bti_sink;
typedef struct bti_sink_methods {
  /* A STATUS, THINK or EVENT record in the think path's form: a is STATUS's from | to << 4,
   * THINK's cause; b is THINK's has_sleep. NULL: the sink takes every record through entry, and
   * the recorder makes a bt_rec_entry of each. */
  void (*record)(bti_sink *s, int type, unsigned a, unsigned b, int node, unsigned long long think,
                 double time, double sleep);
  /* Any record, as a bt_rec_entry; in is the recorder's instance (NULL after it left it). */
  void (*entry)(bti_sink *s, const bt_inst *in, const bt_rec_entry *e);
  /* The recorder watches in (set, or the sink added to a recorder that does). May be NULL. */
  void (*attached)(bti_sink *s, bt_inst *in, unsigned long long think, double time);
  /* A think saved its statuses (SaveStatus), in think. May be NULL. */
  void (*saved)(bti_sink *s, bt_inst *in, unsigned long long think, double time);
  /* The instance's tree was stopped. May be NULL. */
  void (*stopped)(bti_sink *s, unsigned long long think, double time);
  /* The recorder left its instance. May be NULL. */
  void (*detached)(bti_sink *s);
  /* bt_rec_set_agent was called. May be NULL. */
  void (*agent_changed)(bti_sink *s);
  /* The recorder is freed, after taking the sink off its list: the sink lets it go. */
  void (*release)(bti_sink *s);
} bti_sink_methods;

struct bti_sink {
  const bti_sink_methods *methods;
  bti_sink *next;
};

/* Adds s to rec's sinks, last, and tells it the instance rec watches, if any (attached). */
BTI_FUNC void bti_rec_sink_add(bt_rec *rec, bti_sink *s);
/* Takes s off rec's sinks (release is not called). */
BTI_FUNC void bti_rec_sink_remove(bt_rec *rec, bti_sink *s);
/* rec's first sink with these methods, or NULL. */
BTI_FUNC bti_sink *bti_rec_sink_find(const bt_rec *rec, const bti_sink_methods *m);
/* rec is bt's (a definition's, a scheduler's): its instance frees it when they part. */
BTI_FUNC void bti_rec_set_owned(bt_rec *rec);
BTI_FUNC int bti_rec_owned(const bt_rec *rec); /* made by bt (a definition, a scheduler), not the host */

/* attach.c: unless inst has a recorder already, a recorder made with o, of the host's agent id,
 * that inst owns (bt_inst_fini and detaching free it). BT_ENOMEM, BT_EINVAL when compiled out. */
BTI_FUNC int bti_rec_attach_new(bt_inst *in, const bt_rec_options *o, unsigned long long agent);

#endif
