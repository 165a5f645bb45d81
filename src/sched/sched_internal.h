/* SPDX-License-Identifier: MIT */
/*
 * sched_internal.h: what the files of the schedulers' layer (src/sched) share, over the engine's
 * internal.h; never installed. Names carry the prefix bti_ and are hidden.
 *
 *   sched.c   the brain scheduler (bt_sched_*)
 *   pool.c    a pool of worker threads (bt_pool_*) and its executor
 *   tsched.c  the threaded scheduler (bt_tsched_*), on sched.c's lists
 */
#ifndef BT_SCHED_INTERNAL_H
#define BT_SCHED_INTERNAL_H

#include "bt_sched.h"
#include "internal.h"

/* sched.c, for tsched.c: bt_sched_update cut where the threaded scheduler thinks in parallel.
 * begin sets the tick and moves the brains waiting for it to the updaters, and returns the
 * updaters (valid until the scheduler changes); a brain's generation tells a freed id from its
 * next owner; thought counts a think and files the brain by its sleep time (has 0: nil), as
 * bt_sched_update does after each think, unless the brain is gone or of another generation. */
BTI_FUNC int bti_sched_begin(bt_sched *s, long long tick, const int **updaters);
BTI_FUNC uint32_t bti_sched_gen(const bt_sched *s, int id);
BTI_FUNC void bti_sched_thought(bt_sched *s, int id, uint32_t gen, int has, double sleep);

#endif
