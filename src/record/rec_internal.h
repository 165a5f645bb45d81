/* SPDX-License-Identifier: MIT */
/*
 * rec_internal.h: what the files of the recording layer (src/record) share, and the schedulers'
 * way to give their brains recorders; never installed. Names carry the prefix bti_ and are hidden.
 *
 *   rec.c      the recorder: the engine's hook, the ring, the callback; feeds the log and the
 *              statistics
 *   stats.c    the statistics a recorder feeds
 *   log.c      the log file's writer: a buffer per recorder
 *   logread.c  the log file's reader; logtree.c an agent's tree replayed from its records
 */
#ifndef BT_REC_INTERNAL_H
#define BT_REC_INTERNAL_H

#include "internal.h"

/* Unless inst has a recorder already, a recorder made with o, of the host's agent id, that inst
 * owns (bt_inst_fini and detaching free it). BT_ENOMEM, BT_EINVAL when compiled out. */
BTI_FUNC int bti_rec_attach_new(bt_inst *in, const bt_rec_options *o, unsigned long long agent);
BTI_FUNC int bti_rec_owned(const bt_rec *rec); /* made by bt (a definition, a scheduler), not the host */

/* The statistics a recorder feeds (stats.c): an agent of a bt_stats, one per recorder. */
typedef struct bti_stats_agent bti_stats_agent;
BTI_FUNC bti_stats_agent *bti_stats_attach(bt_stats *st, bt_rec *rec); /* NULL: out of memory */
BTI_FUNC void bti_stats_detach(bti_stats_agent *a); /* ends its runs under way, frees it */
BTI_FUNC void bti_stats_unwatch(bti_stats_agent *a); /* its recorder left its instance: ends its runs */
BTI_FUNC void bti_stats_record(bti_stats_agent *a, const bt_inst *in, const bt_rec_entry *e);
BTI_FUNC bt_stats *bti_stats_of(const bti_stats_agent *a);
BTI_FUNC bti_stats_agent *bti_rec_stats_agent(const bt_rec *rec); /* rec.c: the agent rec feeds, or NULL */
BTI_FUNC void bti_rec_drop_stats(bt_rec *rec); /* rec.c: rec feeds nothing more */

/* ---- the log's side of a recorder (log.c) ----
 * A recorder writing to a log (bt_rec_set_log) holds a bti_logrec, log.c's buffer for it; rec.c
 * calls these with each record it files, when the instance is attached, when a think saved its
 * statuses, and when the recorder goes. */
typedef struct bti_logrec bti_logrec;
BTI_FUNC bti_logrec **bti_rec_logp(bt_rec *rec); /* rec.c: where a recorder keeps its bti_logrec */
BTI_FUNC void bti_rec_log_attach(bt_rec *rec);   /* rec.c: tells its log the instance it watches */
BTI_FUNC void bti_log_agent_changed(bti_logrec *lr); /* bt_rec_set_agent was called: declare it again */
/* A record without bytes (STATUS, THINK, EVENT): a is STATUS's from | to << 4, THINK's cause; b is
 * THINK's has_sleep. */
BTI_FUNC void bti_log_record(bti_logrec *lr, int type, unsigned a, unsigned b, int node, unsigned long long think,
                             double time, double sleep);
BTI_FUNC void bti_log_entry(bti_logrec *lr, const bt_rec_entry *e); /* any other record */
BTI_FUNC void bti_log_attached(bti_logrec *lr, bt_inst *in, unsigned long long think, double time);
BTI_FUNC void bti_log_saved(bti_logrec *lr, bt_inst *in, unsigned long long think, double time);
BTI_FUNC void bti_log_stopped(bti_logrec *lr, unsigned long long think, double time);
BTI_FUNC void bti_log_release(bti_logrec *lr); /* the recorder is freed */

#endif
