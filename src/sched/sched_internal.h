/* SPDX-License-Identifier: MIT */
/*
 * sched_internal.h: what the files of the schedulers' layer (src/sched) share, over the engine's
 * internal.h; never installed. Names carry the prefix bti_ and are hidden.
 *
 *   lists.c  the brain scheduler's lists (Don't Starve's BrainWrangler): bti_lists_*
 *   pool.c   a pool of worker threads (bt_pool_*) and its executor
 *   sched.c  the brain scheduler (bt_sched_*): frames over the lists, serially or on workers
 */
#ifndef BT_SCHED_INTERNAL_H
#define BT_SCHED_INTERNAL_H

#include "bt_sched.h"
#include "internal.h"

/* The lists, as bt_sched_* describes them for a serial scheduler: the same arguments, results
 * and errors, on one thread, each change at once. A brain may be bound to an instance
 * (set_inst; NULL: unbound), which brain_free forgets. */
typedef struct bti_lists bti_lists;

BTI_FUNC int bti_lists_create(bti_lists **out, double tick_time);
BTI_FUNC void bti_lists_free(bti_lists *s);
BTI_FUNC int bti_lists_set_tick_time(bti_lists *s, double tick_time);
BTI_FUNC double bti_lists_tick_time(const bti_lists *s);
BTI_FUNC int bti_lists_set_policy(bti_lists *s, int policy);
BTI_FUNC int bti_lists_brain_create(bti_lists *s);
BTI_FUNC int bti_lists_brain_free(bti_lists *s, int brain);
BTI_FUNC int bti_lists_set_period(bti_lists *s, int brain, double period);
BTI_FUNC int bti_lists_add(bti_lists *s, int brain);
BTI_FUNC int bti_lists_remove(bti_lists *s, int brain);
BTI_FUNC int bti_lists_wake(bti_lists *s, int brain);
BTI_FUNC int bti_lists_hibernate(bti_lists *s, int brain);
BTI_FUNC int bti_lists_sleep(bti_lists *s, int brain, double seconds);
BTI_FUNC int bti_lists_set_inst(bti_lists *s, int brain, bt_inst *inst);
BTI_FUNC bt_inst *bti_lists_inst(const bti_lists *s, int brain); /* NULL: a bad id, or none */
/* Every brain id is below this (ids of freed brains among them). */
BTI_FUNC int bti_lists_brains(const bti_lists *s);
BTI_FUNC long long bti_lists_tick(const bti_lists *s);
BTI_FUNC int bti_lists_list(const bti_lists *s, int brain, long long *wake_tick);
/* Fills the counts of brains and thinks; leaves the other fields. */
BTI_FUNC void bti_lists_stats_get(const bti_lists *s, bt_sched_stats *out);

/* A serial frame, as bt_sched_update describes it (hooks->think required): the number of brains
 * that were due, or BT_ENOMEM (nothing thought). */
BTI_FUNC int bti_lists_update(bti_lists *s, long long tick, const bt_sched_hooks *hooks);

/* A frame on workers, cut where the brains think in parallel. begin sets the tick and moves the
 * brains waiting for it to the updaters, and returns the updaters (valid until the lists
 * change); a brain's generation tells a freed id from its next owner; thought counts a think and
 * files the brain by its sleep time (has 0: nil), as bti_lists_update does after each think,
 * unless the brain is gone or of another generation. */
BTI_FUNC int bti_lists_begin(bti_lists *s, long long tick, const int **updaters);
BTI_FUNC uint32_t bti_lists_gen(const bti_lists *s, int brain);
BTI_FUNC void bti_lists_thought(bti_lists *s, int brain, uint32_t gen, int has, double sleep);

#endif
