/* SPDX-License-Identifier: MIT */
/*
 * bt_sched.h: bt's scheduler, over the engine (bt_core.h): the brain scheduler, Don't Starve's
 * BrainWrangler (bt_sched_*), which runs a frame's thinks serially or on workers: a pool of
 * threads of bt's own (bt_pool_*) or the host's job system (bt_executor). Its functions are in
 * libbtcore (and libbt), not in the engine's libbtengine. It includes the engine's header only: a
 * host that records its brains includes bt_record.h too, for bt_sched_set_recording's options.
 */
#ifndef BT_SCHED_H
#define BT_SCHED_H

#include "bt_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the brain scheduler: Don't Starve's BrainWrangler ----
 *
 * Brains are ids. A registered brain is in one list: updaters (thinks every tick), waiting (thinks
 * at a later tick), or hibernating (thinks when woken). bt_sched_update(tick) moves the brains
 * waiting for that tick to the updaters, takes the updaters that are ready (their entity valid
 * and awake), thinks each, and files it by its sleep time: nil hibernates, more than one tick
 * waits until floor(tick + sleep / tick_time), less stays. A frame costs in proportion to the
 * brains that are due, however many are registered.
 *
 * A frame runs one of two ways (bt_sched_set_threads; docs/threads.md):
 *
 *   serial (threads 0, the default): Don't Starve's. The due brains think one after another on
 *   the calling thread, each filed as soon as it has thought, and a call made from a hook or a
 *   leaf (a wake, a brain added or freed) takes effect at once. One thread uses the scheduler.
 *
 *   on workers (threads >= 1, or the host's executor): the frame's due brains think on several
 *   threads at once, cut into batches, and every other change is queued and applied at the
 *   frame's end in an order that does not depend on the threads; the results are the same on any
 *   number of workers. See "on workers" below.
 *
 * A brain may be bound to its agent's instance (bt_sched_set_inst): then the scheduler thinks it
 * itself when the hooks give no think, events and forced thinks reach it by brain
 * (bt_sched_fire_event, bt_sched_force_update), and recording can be switched on for every
 * brain at once (bt_sched_set_recording). */

typedef struct bt_sched bt_sched;

/* The lists, as bt_sched_list reports them. */
enum { BT_SCHED_NONE, BT_SCHED_UPDATING, BT_SCHED_WAITING, BT_SCHED_HIBERNATING };

/* Policies: Don't Starve's, or a fixed rate: think at least once per brain period, never hibernate. */
enum { BT_SCHED_DS, BT_SCHED_FIXED_RATE };

/* What a frame asks the host, on the thread that thinks the brain: whether a due brain is ready
 * this tick (NULL: always), and to think it, returning 1 with *sleep in seconds, or 0 for nil
 * (NULL: the brain's instance thinks, bt_inst_update then bt_inst_sleep_time; a brain bound to
 * no instance is then not ready). bt_sched_inst gives a hook the brain's instance. */
typedef struct bt_sched_hooks {
  int (*ready)(void *ud, int brain);
  int (*think)(void *ud, int brain, double *sleep);
  void *ud;
} bt_sched_hooks;

typedef struct bt_sched_stats {
  long long thinks;   /* thinks since creation */
  int registered, updating, waiting, hibernating;
  long long frames;   /* frames run (bt_sched_update, or frame_begin to frame_end) */
  int due, batches;   /* the last frame's due brains and batches (0 batches: serial) */
  long long commands; /* calls queued on workers and applied */
  long long rejected; /* of those, refused when applied (bt_sched_errmsg: the last) */
} bt_sched_stats;

/* Creates a serial scheduler whose ticks last tick_time seconds (> 0). BT_EINVAL, BT_ENOMEM. */
int bt_sched_create(bt_sched **out, double tick_time);

/* Frees it, and stops the pool it owns (not during a frame). Instances are the host's. NULL is
 * allowed. */
void bt_sched_free(bt_sched *s);

/* The tick length used to turn sleep times into ticks. BT_EINVAL for one not > 0; BT_EBUSY
 * during a frame on workers (a serial scheduler takes it at any time, from a hook too). */
int bt_sched_set_tick_time(bt_sched *s, double tick_time);
double bt_sched_tick_time(const bt_sched *s);

/* BT_SCHED_DS (the default) or BT_SCHED_FIXED_RATE. BT_EINVAL; BT_EBUSY during a frame on workers
 * (a serial scheduler takes it at any time). */
int bt_sched_set_policy(bt_sched *s, int policy);

/* A new brain id, known but not registered and bound to no instance; or BT_ENOMEM, BT_ETOOBIG.
 * Ids of freed brains are reused. */
int bt_sched_brain_create(bt_sched *s);

/* Forgets a brain (removing it first); a brain already taken for this tick's thinks is skipped.
 * BT_EINVAL for a bad id. */
int bt_sched_brain_free(bt_sched *s, int brain);

/* Under BT_SCHED_FIXED_RATE the brain sleeps at most this long (seconds; 0: no bound). BT_EINVAL
 * for a bad id or a NaN or negative period. */
int bt_sched_set_period(bt_sched *s, int brain, double period);

/* AddInstance: registers the brain among the updaters. BT_EINVAL for a bad id. */
int bt_sched_add(bt_sched *s, int brain);

/* RemoveInstance: takes the brain out of every list. BT_EINVAL for a bad id. */
int bt_sched_remove(bt_sched *s, int brain);

/* Wake: a registered brain joins the updaters. BT_EINVAL for a bad id. */
int bt_sched_wake(bt_sched *s, int brain);

/* Hibernate: a registered brain waits until woken. BT_EINVAL for a bad id. */
int bt_sched_hibernate(bt_sched *s, int brain);

/* Sleep: a registered brain waits until tick floor(current + seconds / tick_time) if that is later
 * than the current tick (a sleep of exactly 0 ticks counts as 1). BT_EINVAL for a bad id. */
int bt_sched_sleep(bt_sched *s, int brain, double seconds);

/* Binds the brain to its agent's instance (a reload moved its agent to a new one: bind it
 * again). One instance is bound to one brain at most. An instance of a tree with blackboard keys
 * gets the brain's waker (bt_inst_set_waker), so that a write its watchers wake it for makes the
 * brain due in the next frame; an instance bound no more is woken no more. BT_EINVAL for a bad id
 * or a NULL inst, BT_ENOMEM. */
int bt_sched_set_inst(bt_sched *s, int brain, bt_inst *inst);

/* The brain's instance (NULL for a bad id or none bound). */
bt_inst *bt_sched_inst(bt_sched *s, int brain);

/* bt_inst_fire_event(inst, node) on the brain's instance. BT_EINVAL for a bad id, a brain bound
 * to no instance, or a node of its tree that listens for no event (BT_KIND_LISTENS). (An event
 * in Don't Starve also makes the brain think at once: add bt_sched_force_update.) */
int bt_sched_fire_event(bt_sched *s, int brain, int node);

/* bt_inst_force_update on the brain's instance and Wake: it thinks at the next frame. BT_EINVAL
 * for a bad id or a brain bound to no instance. */
int bt_sched_force_update(bt_sched *s, int brain);

/* Writes a blackboard key of the brain's instance (bt_inst_key_set), as the scheduler's other calls
 * on a brain go: serially at once; on workers, a write from a leaf of another agent is queued and
 * applied at the frame's end in an order no thread count changes (docs/threads.md), and a write
 * from another thread in the next frame's beginning. A brain binds to its instance with a waker
 * (bt_sched_set_inst), so that a write its watchers wake it for makes it due. An agent writes its
 * own keys in its think with bt_inst_key_set (at once). A string is copied. BT_EINVAL for a bad
 * argument, an unknown brain, one bound to no instance, a bad key or a value of another type (a
 * queued one is counted as rejected, bt_sched_errmsg); BT_ENOMEM. */
int bt_sched_key_set(bt_sched *s, int brain, int key, const bt_value *value);

/* A command of the host's own (bt_sched_post): data is the copy of the bytes posted, valid
 * during the call. It may call bt_sched_* (on workers, a call that queues is applied in the same
 * phase, after the commands before it). */
typedef void (*bt_post_fn)(void *ud, const void *data, size_t size);

/* Runs fn(ud, copy of data, size): at once in a serial scheduler or between frames on the thread
 * that runs them; otherwise at the next point commands are applied, in order with the others.
 * BT_EINVAL for a NULL fn or NULL data with a size; BT_ENOMEM. */
int bt_sched_post(bt_sched *s, bt_post_fn fn, void *ud, const void *data, size_t size);

/* Switches recording on (opts) or off (NULL) for every brain bound to an instance, now and from
 * now on (bt_sched_set_inst): each brain's instance that has no recorder gets one made with opts
 * (its ring, callback and log; the agent id is the brain's id), which the instance owns
 * (bt_inst_fini frees it); off, the recorders it made are detached and freed (a host's own
 * stay). Callbacks run on the thread that thinks the brain; a log's recorders write into buffers
 * of their own, and the host calls bt_log_flush after bt_sched_update. Between frames, from the
 * thread that runs them. BT_EINVAL (NULL s, or the recorder compiled out), BT_EBUSY (during a
 * frame), BT_ENOMEM. */
struct bt_rec_options; /* the transition recorder's options (bt_record.h) */
int bt_sched_set_recording(bt_sched *s, const struct bt_rec_options *opts);

/* One frame of the tick: see above; on workers, the three phases below. hooks may be NULL (the
 * instances think). Brains may be added, removed, woken or freed from inside the hooks, and a
 * serial frame may run another inside a hook (as a Lua brain manager's Update may). Returns
 * BT_OK; on workers, BT_EBUSY when a frame of s is under way (called from a leaf, a hook or a
 * command);
 * BT_ENOMEM (nothing thought: the brains stay where they are); or, on workers, the executor's
 * error, after the frame ran whole (the batches it did not start ran on this thread). */
int bt_sched_update(bt_sched *s, long long tick, const bt_sched_hooks *hooks);

/* The current tick: the one given to the last frame (0 before any). */
long long bt_sched_tick(const bt_sched *s);

/* The brain's list (BT_SCHED_*), and the tick it waits for; BT_EINVAL for a bad id. */
int bt_sched_list(const bt_sched *s, int brain, long long *wake_tick);

/* Counts of brains by list, thinks and frames so far, and the queue's figures. */
void bt_sched_stats_get(const bt_sched *s, bt_sched_stats *out);

/* The message of the last call refused when applied from the queue, or of a frame that did not
 * run whole ("" if none), which names the tick, the call, the brain and what was wrong: "tick 12:
 * wake of brain 5000: no such brain". Valid until the next frame or flush. */
const char *bt_sched_errmsg(const bt_sched *s);

/* ---- on workers: a pool of threads, the host's executor, and frames on them ----
 *
 * bt_pool is a set of threads of bt's own that run a batch of jobs at once. bt_executor says
 * how jobs run: on a bt_pool, or on the host's own job system. A scheduler given workers
 * (bt_sched_set_threads, bt_sched_set_executor) runs a frame in three phases:
 *
 *   1. (the calling thread) the commands queued since the last frame are applied; the brains
 *      waiting for the tick join the updaters; the updaters are the frame's due brains, cut in
 *      order into batches of consecutive brains;
 *   2. (the workers) the batches think: for each brain, hooks.ready, then hooks.think (by
 *      default its instance's). Each instance is touched by one thread; a leaf touches its own
 *      agent and data that no one writes during the phase, and changes anything else through
 *      the calls on brains, which queue;
 *   3. (the calling thread) every due brain is filed by its sleep time, in the frame's order;
 *      then the commands its leaves queued are applied, brain after brain in the frame's order
 *      and each brain's in the order they were made; then those queued from other threads, in
 *      the order they arrived.
 *
 * So a brain woken, or fired an event, by another brain's leaf thinks at the next frame, not in
 * this one, and a frame's results (statuses, thinks, sleep times, lists) are the same on any
 * number of workers, as long as the leaves keep to those rules and draw random numbers from
 * their own agent's stream (bt_inst_seed; bt_host in docs/threads.md).
 *
 * On workers, the calls on brains (brain_create, brain_free, add, remove, wake, hibernate, sleep,
 * set_period, set_inst, fire_event, force_update, post) may be made from any thread at any time.
 * Made between frames by the thread that runs the frames (the last to call bt_sched_update,
 * bt_sched_frame_begin, bt_sched_flush or bt_sched_set_threads), they are applied at once and
 * return what they did; brain_create is always at once. Made from a leaf, during a frame, or
 * from any other thread, they are queued until the next point commands are applied (a frame's
 * start or end, or bt_sched_flush): they check what they can (a negative brain, a NaN period)
 * and return BT_OK, BT_EINVAL or BT_ENOMEM (the command is then dropped); what fails when the
 * command is applied (a brain that does not exist, a node that listens for no event) is counted
 * in bt_sched_stats.rejected and said by bt_sched_errmsg. The readers (tick, list, inst,
 * stats_get) may be called from any thread: during a frame they give the state of its start
 * (the think phase) or its end. The settings (threads, executor, batch size, tick time, policy)
 * are for the thread that runs the frames, between frames. */

/* One job of a batch of count jobs: index is in [0, count). */
typedef void (*bt_job_fn)(void *job, int index);

/* How a batch of jobs runs. run(data, count, fn, job) calls fn(job, i) exactly once for each i
 * in [0, count), on any threads and any number at once, and returns once every call has
 * returned (so that what the jobs wrote is visible to the caller, as after a join): BT_OK, or a
 * negative code when it could not start them all (bt_sched_update then runs the jobs that did
 * not start itself, on its own thread). workers (>= 1) is how many threads run jobs at once: it
 * only decides how finely the work is cut. */
typedef struct bt_executor {
  int (*run)(void *data, int count, bt_job_fn fn, void *job);
  void *data;
  int workers;
} bt_executor;

typedef struct bt_pool bt_pool;

#define BT_POOL_MAX_THREADS 256

/* A pool of `threads` workers: the thread that calls bt_pool_run, and threads - 1 threads the
 * pool starts now (with every signal blocked) and keeps: after a run each watches for the next
 * for up to 200 microseconds, yielding its core, then sleeps. BT_EINVAL for threads < 1 or more than
 * BT_POOL_MAX_THREADS, BT_ENOMEM, BT_ETHREAD when the system refuses a thread (the threads
 * started are stopped again and *out is NULL). */
int bt_pool_create(bt_pool **out, int threads);

/* Stops and joins the pool's threads and frees it (not during a run). NULL is allowed. */
void bt_pool_free(bt_pool *pool);

/* The pool's workers, the calling thread included. */
int bt_pool_threads(const bt_pool *pool);

/* Runs fn(job, i) for each i in [0, count), each once, on the pool's threads and the calling
 * one: each takes the next index not taken yet until none is left. Returns when all have
 * returned. BT_EINVAL for a NULL pool or fn or a negative count; BT_EBUSY while a run of the
 * pool is under way (from one of its jobs, or from two threads at once). */
int bt_pool_run(bt_pool *pool, int count, bt_job_fn fn, void *job);

/* Fills *out with an executor that runs jobs with bt_pool_run on the pool (workers: its
 * threads). The pool must outlive the executor's use. */
void bt_pool_executor(bt_pool *pool, bt_executor *out);

/* Runs frames on `threads` workers: 0, serially (the default; the queued commands are applied
 * first); 1, on the calling thread alone; more, on a pool of threads the scheduler owns
 * (bt_pool_create). The calling thread becomes the one that runs the frames. Replaces the
 * previous pool or executor only on success. BT_EINVAL for threads < 0 or > BT_POOL_MAX_THREADS,
 * BT_ENOMEM, BT_ETHREAD; BT_EBUSY during a frame. */
int bt_sched_set_threads(bt_sched *s, int threads);

/* Runs frames on the host's executor (copied; NULL: on the calling thread alone, as
 * bt_sched_set_threads(s, 1)), which replaces the scheduler's pool. BT_EINVAL for an executor
 * without run or with workers < 1; BT_EBUSY during a frame. */
int bt_sched_set_executor(bt_sched *s, const bt_executor *executor);

/* The workers thinking a frame: 0 (serial), 1, the pool's threads, or the executor's workers. */
int bt_sched_threads(const bt_sched *s);

/* Brains per batch (0, the default: about eight batches per worker, and at least 32 brains in
 * each). BT_EINVAL for a negative size; BT_EBUSY during a frame. */
int bt_sched_set_batch_size(bt_sched *s, int brains);

/* bt_sched_update in three calls, for a job system that cannot wait inside a job (on workers
 * only: BT_EINVAL from begin on a serial scheduler): begin does phase 1 and says how many
 * batches the frame has (*batches, maybe 0); the host runs bt_sched_frame_run(s, i) for each i
 * in [0, *batches), each once, on any threads at once; then end, on the thread that began, does
 * phase 3. frame_run returns BT_EINVAL for a batch out of range or run already, or outside the
 * think phase. end runs on its own thread the batches that were not run (and then returns
 * BT_EINVAL), waits for those still running, and returns BT_OK. begin returns BT_EINVAL for a
 * NULL s or batches or a serial scheduler, BT_EBUSY when a frame is under way, or BT_ENOMEM (no
 * frame); end returns BT_EBUSY from inside a batch or a command being applied, BT_EINVAL with no
 * frame begun. */
int bt_sched_frame_begin(bt_sched *s, long long tick, const bt_sched_hooks *hooks, int *batches);
int bt_sched_frame_run(bt_sched *s, int batch);
int bt_sched_frame_end(bt_sched *s);

/* Applies the queued commands now, on the calling thread, which becomes the one that runs the
 * frames (between frames; BT_EBUSY during one, or from a command being applied). Serial: BT_OK. */
int bt_sched_flush(bt_sched *s);

/* ---- deprecated names ----
 * What these were called before 0.3 (CHANGELOG.md, "Renamed"): bt makes with _create and frees
 * with _free everywhere, and the threaded scheduler is the scheduler on workers (bt_tsched_* is
 * bt_sched_*; bt_tsched_create is bt_sched_create then bt_sched_set_threads(s, 1)). The old
 * names stay as aliases for a while; new code should not use them. */
#define bt_sched_brain_new  bt_sched_brain_create
#define bt_tsched_brain_new bt_tsched_brain_create

typedef bt_sched bt_tsched;
typedef bt_sched_stats bt_tsched_stats;
/* The old hooks, which were given the brain's instance too. */
typedef struct bt_tsched_hooks {
  int (*ready)(void *ud, int brain, bt_inst *inst);
  int (*think)(void *ud, int brain, bt_inst *inst, double *sleep);
  void *ud;
} bt_tsched_hooks;
int bt_tsched_create(bt_tsched **out, double tick_time);
int bt_tsched_brain_create(bt_tsched *ts, bt_inst *inst); /* bt_sched_brain_create, then set_inst */
int bt_tsched_update(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks);
int bt_tsched_frame_begin(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks, int *batches);
#define bt_tsched_free           bt_sched_free
#define bt_tsched_set_threads    bt_sched_set_threads
#define bt_tsched_set_executor   bt_sched_set_executor
#define bt_tsched_threads        bt_sched_threads
#define bt_tsched_set_batch_size bt_sched_set_batch_size
#define bt_tsched_set_tick_time  bt_sched_set_tick_time
#define bt_tsched_tick_time      bt_sched_tick_time
#define bt_tsched_set_policy     bt_sched_set_policy
#define bt_tsched_brain_free     bt_sched_brain_free
#define bt_tsched_add            bt_sched_add
#define bt_tsched_remove         bt_sched_remove
#define bt_tsched_wake           bt_sched_wake
#define bt_tsched_hibernate      bt_sched_hibernate
#define bt_tsched_sleep          bt_sched_sleep
#define bt_tsched_set_period     bt_sched_set_period
#define bt_tsched_set_inst       bt_sched_set_inst
#define bt_tsched_set_recording  bt_sched_set_recording
#define bt_tsched_inst           bt_sched_inst
#define bt_tsched_fire_event     bt_sched_fire_event
#define bt_tsched_force_update   bt_sched_force_update
#define bt_tsched_post           bt_sched_post
#define bt_tsched_frame_run      bt_sched_frame_run
#define bt_tsched_frame_end      bt_sched_frame_end
#define bt_tsched_flush          bt_sched_flush
#define bt_tsched_tick           bt_sched_tick
#define bt_tsched_list           bt_sched_list
#define bt_tsched_stats_get      bt_sched_stats_get
#define bt_tsched_errmsg         bt_sched_errmsg

#ifdef __cplusplus
}
#endif

#endif
