/* SPDX-License-Identifier: MIT */
/*
 * sched.c: the brain scheduler (bt_sched_*): frames over the lists of lists.c, run serially (Don't
 * Starve's way, each call at once) or with the think of a frame's due brains spread over workers
 * (docs/threads.md).
 *
 * Serially, a frame is bti_lists_update, and every call goes straight to the lists. On workers, a
 * frame: begin (one thread, under the lock) applies the commands queued since the last frame,
 * takes the due brains from the lists, and cuts them in order into batches; the workers think
 * the batches, each writing the outcome of its brains into their slots and the commands its
 * leaves make into a queue of its own, found through a thread-local pointer; end (one thread,
 * under the lock) files every brain by its outcome in the frame's order, then applies the
 * batches' queues in batch order, then the queue of the other threads. Nothing a worker writes
 * is read by another worker, and the order of everything applied follows the frame's order of
 * brains, not the threads: so the results do not depend on the workers.
 *
 * The lock is recursive: a command applied may call back into the host, which may call the
 * scheduler again. On workers, a call on a brain made between frames by the thread that runs them
 * is applied at once under the lock; any other goes to a queue (a batch's, without a lock, or the
 * others' under qlock), so that only the threads thinking a frame and the thread running them
 * touch an instance, and no call waits for a frame to end.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btp.h"
#include "rec_internal.h"
#include "sched_internal.h"

enum { IDLE, BEGIN, THINK, END, FLUSH }; /* phases of a frame on workers */

enum { OP_FREE, OP_ADD, OP_REMOVE, OP_WAKE, OP_HIBERNATE, OP_SLEEP, OP_PERIOD, OP_SET_INST,
       OP_FIRE_EVENT, OP_FORCE_UPDATE, OP_POST, OP_KEY_SET };

static const char *const op_names[] = {"brain_free", "add", "remove", "wake", "hibernate", "sleep",
                                       "set_period", "set_inst", "fire_event", "force_update",
                                       "post", "key_set"};

typedef struct command {
  int op;
  int brain;
  union {
    double seconds; /* SLEEP, PERIOD */
    int node;       /* FIRE_EVENT */
    bt_inst *inst;  /* SET_INST */
    struct {
      bt_post_fn fn;
      void *ud;
    } post;
    struct {
      int key;
      bt_value value; /* a string's text is the command's bytes */
    } key;
  } u;
  size_t at, size; /* POST, KEY_SET: its bytes in the queue's */
} command;

typedef struct queue {
  command *cmds;
  int n, cap;
  bt_buf bytes; /* what the posts carry, each from a multiple of 8 */
} queue;

/* A batch: brains lo to hi - 1 of the frame, and what their leaves queued. Each is allocated on
 * its own, so that two workers never write the same cache line. */
typedef struct batch {
  bt_sched *s;
  int lo, hi;
  atomic_int state; /* NOT_RUN, RUNNING, RAN */
  queue q;
} batch;

enum { NOT_RUN, RUNNING, RAN };

typedef struct due {
  int id;
  uint32_t gen;
  bt_inst *inst;
} due;

enum { NOT_READY, SLEEPS, HIBERNATES }; /* a due brain's outcome */

typedef struct outcome {
  double sleep;
  int state;
} outcome;

struct bt_sched {
  bti_lists *lists;
  atomic_int workers; /* 0: serial; else the workers that think a frame (read by any thread) */
  int serial_depth; /* serial frames under way (a hook may run one inside another) */
  atomic_int phase;
  btp_mutex lock;  /* recursive: on workers, everything but the queue of other threads */
  btp_mutex qlock; /* incoming */
  atomic_uintptr_t owner; /* the thread that applies commands: its tls_me */
  queue incoming, applying; /* commands from outside the frame's batches; the ones being applied */
  /* the frame */
  due *due;
  outcome *out;
  int ndue, cap_due;
  batch **batches;
  int nbatches, made_batches, cap_batches;
  bt_sched_hooks hooks;
  bt_tsched_hooks old_hooks; /* given to the deprecated bt_sched_update, bt_sched_frame_begin */
  int has_old_hooks;
  /* how batches run */
  bt_pool *pool;
  bt_executor exec;
  int has_exec, batch_size;
  /* figures */
  long long frames, commands, rejected;
  int last_due, last_batches;
  char errmsg[256];
  bt_rec_options recording; /* bt_sched_set_recording's */
  int records;              /* recording is on: each brain's instance records */
  struct waker **wakers;    /* by brain id: each brain's instances' waker (bind) */
  int nwakers;
  int in_apply;             /* applying a key write: its waker wakes under the lock */
};

/* The batch this thread is thinking, if any; and a byte whose address names this thread. */
static _Thread_local batch *tls_batch;
static _Thread_local char tls_me;

static int in_own_batch(const bt_sched *s) { return tls_batch && tls_batch->s == s; }

/* The thread that applies commands: the last to begin a frame, flush or set the threads (first:
 * the creator's). */
static int is_owner(const bt_sched *s) { return atomic_load(&s->owner) == (uintptr_t)&tls_me; }

/* 0 (serial), or the workers. Set by the thread that runs the frames, between frames. */
static int workers_of(const bt_sched *s) { return atomic_load_explicit(&s->workers, memory_order_relaxed); }

/* ---- queues ---- */

static int carries_bytes(const command *c) { return c->op == OP_POST || c->op == OP_KEY_SET; }

static int queue_push(queue *q, const command *c, const void *data, size_t size) {
  if (bti_grow((void **)&q->cmds, &q->cap, q->n + 1, sizeof *q->cmds)) return BT_ENOMEM;
  command *d = &q->cmds[q->n];
  *d = *c;
  if (carries_bytes(c)) {
    size_t room = (size + 7) & ~(size_t)7;
    if (room < size || bt_buf_reserve(&q->bytes, room) != BT_OK) return BT_ENOMEM;
    if (size) memcpy(q->bytes.data + q->bytes.len, data, size);
    d->at = q->bytes.len;
    d->size = size;
    q->bytes.len += room;
  }
  q->n++;
  return BT_OK;
}

/* The bytes a queued command carries (NULL: none). */
static const void *command_data(const queue *q, const command *c) {
  return carries_bytes(c) && q->bytes.data ? q->bytes.data + c->at : NULL;
}

static void queue_free(queue *q) {
  free(q->cmds);
  bt_buf_free(&q->bytes);
}

/* ---- applying a command ---- */

static int known(const bt_sched *s, int id) { return bti_lists_list(s->lists, id, NULL) >= 0; }

/* The kind that bt_inst_fire_event triggers, for a message (the kind table's BT_KIND_LISTENS). */
static int listening_kind(void) {
  int k = 0;
  while (k < BT_KIND_COUNT - 1 && !bt_kind_has(k, BT_KIND_LISTENS)) k++;
  return k;
}

/* The waker of a brain's instance (bt_inst_set_waker): a blackboard write that the instance's
 * watchers wake it for wakes the brain. One per brain id, made at its first binding and kept until
 * the scheduler is freed, so that an instance that outlives its binding wakes nothing. */
typedef struct waker {
  bt_sched *s;
  int brain;
} waker;

static void wake_brain(void *ud, bt_inst *inst) {
  const waker *w = ud;
  bt_sched *s = w->s;
  if (s->in_apply) { /* a queued bt_sched_key_set, applied under the lock */
    if (bti_lists_inst(s->lists, w->brain) == inst) bti_lists_wake(s->lists, w->brain);
    return;
  }
  if (bt_sched_inst(s, w->brain) == inst) bt_sched_wake(s, w->brain);
}

static waker *waker_of(bt_sched *s, int id) {
  if (id >= s->nwakers) {
    int cap = s->nwakers;
    if (bti_grow((void **)&s->wakers, &cap, id + 1, sizeof *s->wakers)) return NULL;
    memset(s->wakers + s->nwakers, 0, (size_t)(cap - s->nwakers) * sizeof *s->wakers);
    s->nwakers = cap;
  }
  if (!s->wakers[id] && (s->wakers[id] = malloc(sizeof(waker)))) *s->wakers[id] = (waker){s, id};
  return s->wakers[id];
}

/* Binds the brain to inst, with a recorder when recording is on, and its waker. */
static int bind(bt_sched *s, int id, bt_inst *inst) {
  int rc = bti_lists_set_inst(s->lists, id, inst);
  if (rc == BT_OK && s->records) rc = bti_rec_attach_new(inst, &s->recording, (unsigned long long)id);
  if (rc == BT_OK && bt_def_key_count(bt_inst_def(inst)) > 0) {
    waker *w = waker_of(s, id);
    rc = w ? bt_inst_set_waker(inst, wake_brain, w) : BT_ENOMEM;
  }
  return rc;
}

/* Applies c (its bytes at data); returns what it did. A queued command refused is counted and
 * its message kept. Serially, or on workers under the lock. */
static int apply(bt_sched *s, const command *c, const void *data, int queued) {
  int id = c->brain, rc = BT_OK;
  const char *why = "no such brain";
  char reason[96];
  bt_inst *inst = NULL;
  if (c->op == OP_FIRE_EVENT || c->op == OP_FORCE_UPDATE || c->op == OP_KEY_SET) {
    if (!known(s, id)) {
      rc = BT_EINVAL;
    } else if (!(inst = bti_lists_inst(s->lists, id))) {
      rc = BT_EINVAL;
      why = "bound to no instance";
    }
  }
  if (rc == BT_OK) switch (c->op) {
    case OP_FREE: rc = bti_lists_brain_free(s->lists, id); break;
    case OP_ADD: rc = bti_lists_add(s->lists, id); break;
    case OP_REMOVE: rc = bti_lists_remove(s->lists, id); break;
    case OP_WAKE: rc = bti_lists_wake(s->lists, id); break;
    case OP_HIBERNATE: rc = bti_lists_hibernate(s->lists, id); break;
    case OP_SLEEP: rc = bti_lists_sleep(s->lists, id, c->u.seconds); break;
    case OP_PERIOD: rc = bti_lists_set_period(s->lists, id, c->u.seconds); break;
    case OP_SET_INST: rc = bind(s, id, c->u.inst); break;
    case OP_FIRE_EVENT:
      rc = bt_inst_fire_event(inst, c->u.node);
      if (rc != BT_OK) {
        int k = listening_kind();
        snprintf(reason, sizeof reason, "node %d is not %s %s of its tree", c->u.node, bti_article(k),
                 bt_kind_name(k));
        why = reason;
      }
      break;
    case OP_FORCE_UPDATE:
      bt_inst_force_update(inst);
      rc = bti_lists_wake(s->lists, id);
      break;
    case OP_POST: c->u.post.fn(c->u.post.ud, data, c->size); break;
    case OP_KEY_SET: {
      bt_value v = c->u.key.value;
      if (v.type == BT_KEY_STRING) v.as.string = data;
      s->in_apply++; /* the instance's waker wakes the brain here, under the lock */
      rc = bt_inst_key_set(inst, c->u.key.key, &v);
      s->in_apply--;
      if (rc == BT_EINVAL) {
        snprintf(reason, sizeof reason, "key %d is no key of its tree, or not of type %s", c->u.key.key,
                 bt_key_type_name(v.type) ? bt_key_type_name(v.type) : "?");
        why = reason;
      }
      break;
    }
    default: rc = BT_EINVAL; break;
  }
  if (queued) {
    s->commands++;
    if (rc != BT_OK) {
      s->rejected++;
      snprintf(s->errmsg, sizeof s->errmsg, "tick %lld: %s of brain %d: %s", bti_lists_tick(s->lists),
               op_names[c->op], id, rc == BT_ENOMEM ? "out of memory" : why);
    }
  }
  return rc;
}

/* Applies the queue of other threads until it stays empty (commands applied may queue more).
 * Under the lock, in a phase other than IDLE. */
static void drain(bt_sched *s) {
  for (;;) {
    btp_mutex_lock(&s->qlock);
    queue q = s->incoming;
    s->incoming = s->applying;
    s->applying = q;
    btp_mutex_unlock(&s->qlock);
    if (!q.n) return;
    for (int i = 0; i < q.n; i++) apply(s, &q.cmds[i], command_data(&q, &q.cmds[i]), 1);
    s->applying.n = 0;
    s->applying.bytes.len = 0;
  }
}

/* A call on a brain: serially, at once; on workers, into this thread's batch when one of s's is
 * thinking here; applied at once when made by the thread that applies commands, between frames;
 * otherwise into the queue of other threads. */
static int submit(bt_sched *s, const command *c, const void *data, size_t size) {
  if (!workers_of(s)) return apply(s, c, data, 0);
  if (in_own_batch(s)) return queue_push(&tls_batch->q, c, data, size);
  if (is_owner(s) && atomic_load(&s->phase) == IDLE) {
    btp_mutex_lock(&s->lock);
    if (atomic_load(&s->phase) == IDLE) {
      int rc = apply(s, c, data, 0);
      btp_mutex_unlock(&s->lock);
      return rc;
    }
    btp_mutex_unlock(&s->lock);
  }
  btp_mutex_lock(&s->qlock);
  int rc = queue_push(&s->incoming, c, data, size);
  btp_mutex_unlock(&s->qlock);
  return rc;
}

static int on_brain(bt_sched *s, int op, int brain) {
  if (!s || brain < 0) return BT_EINVAL;
  command c = {.op = op, .brain = brain};
  return submit(s, &c, NULL, 0);
}

/* The lock on workers (a serial scheduler has one thread: none); readers may be const. */
static void lock(const bt_sched *s) {
  if (workers_of(s)) btp_mutex_lock((btp_mutex *)&s->lock);
}

static void unlock(const bt_sched *s) {
  if (workers_of(s)) btp_mutex_unlock((btp_mutex *)&s->lock);
}

/* ---- creation ---- */

int bt_sched_create(bt_sched **out, double tick_time) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  bt_sched *s = calloc(1, sizeof *s);
  if (!s) return BT_ENOMEM;
  int rc = bti_lists_create(&s->lists, tick_time);
  if (rc != BT_OK) {
    free(s);
    return rc;
  }
  int bad = btp_mutex_init_recursive(&s->lock) != BT_OK;
  if (!bad && btp_mutex_init(&s->qlock) != BT_OK) {
    btp_mutex_destroy(&s->lock);
    bad = 1;
  }
  if (bad) {
    bti_lists_free(s->lists);
    free(s);
    return BT_ENOMEM;
  }
  atomic_init(&s->phase, IDLE);
  atomic_init(&s->workers, 0);
  atomic_init(&s->owner, (uintptr_t)&tls_me);
  *out = s;
  return BT_OK;
}

void bt_sched_free(bt_sched *s) {
  if (!s) return;
  bt_pool_free(s->pool);
  for (int i = 0; i < s->made_batches; i++) {
    queue_free(&s->batches[i]->q);
    free(s->batches[i]);
  }
  free(s->batches);
  queue_free(&s->incoming);
  queue_free(&s->applying);
  free(s->due);
  free(s->out);
  for (int i = 0; i < s->nwakers; i++) free(s->wakers[i]);
  free(s->wakers);
  bti_lists_free(s->lists);
  btp_mutex_destroy(&s->qlock);
  btp_mutex_destroy(&s->lock);
  free(s);
}

/* Takes the lock outside a frame; BT_EBUSY (lock not held) during one. */
static int lock_idle(bt_sched *s) {
  btp_mutex_lock(&s->lock);
  if (atomic_load(&s->phase) != IDLE || s->serial_depth) {
    btp_mutex_unlock(&s->lock);
    return BT_EBUSY;
  }
  return BT_OK;
}

/* How frames run from now on: serially (workers 0), or on workers through pool (owned; NULL:
 * none) or ex (NULL: none). Under lock_idle; the queued commands are applied before a frame
 * turns serial. */
static void set_workers(bt_sched *s, int workers, bt_pool *pool, const bt_executor *ex) {
  if (!workers && workers_of(s)) {
    atomic_store(&s->phase, FLUSH);
    drain(s);
    atomic_store(&s->phase, IDLE);
  }
  bt_pool_free(s->pool);
  s->pool = pool;
  s->has_exec = pool || ex;
  if (pool) bt_pool_executor(pool, &s->exec);
  else if (ex) s->exec = *ex;
  atomic_store(&s->workers, workers);
  atomic_store(&s->owner, (uintptr_t)&tls_me);
}

int bt_sched_set_threads(bt_sched *s, int threads) {
  if (!s || threads < 0 || threads > BT_POOL_MAX_THREADS) return BT_EINVAL;
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  bt_pool *pool = NULL;
  int rc = threads > 1 ? bt_pool_create(&pool, threads) : BT_OK;
  if (rc == BT_OK) set_workers(s, threads, pool, NULL);
  btp_mutex_unlock(&s->lock);
  return rc;
}

int bt_sched_set_executor(bt_sched *s, const bt_executor *ex) {
  if (!s || (ex && (!ex->run || ex->workers < 1))) return BT_EINVAL;
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  set_workers(s, ex ? ex->workers : 1, NULL, ex);
  btp_mutex_unlock(&s->lock);
  return BT_OK;
}

int bt_sched_threads(const bt_sched *s) { return s ? workers_of(s) : 0; }

int bt_sched_set_batch_size(bt_sched *s, int brains) {
  if (!s || brains < 0) return BT_EINVAL;
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  s->batch_size = brains;
  btp_mutex_unlock(&s->lock);
  return BT_OK;
}

int bt_sched_set_tick_time(bt_sched *s, double tick_time) {
  if (!s) return BT_EINVAL;
  if (!workers_of(s)) return bti_lists_set_tick_time(s->lists, tick_time); /* even from a hook */
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  int rc = bti_lists_set_tick_time(s->lists, tick_time);
  btp_mutex_unlock(&s->lock);
  return rc;
}

double bt_sched_tick_time(const bt_sched *s) { return s ? bti_lists_tick_time(s->lists) : 0; }

int bt_sched_set_policy(bt_sched *s, int policy) {
  if (!s) return BT_EINVAL;
  if (!workers_of(s)) return bti_lists_set_policy(s->lists, policy); /* even from a hook */
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  int rc = bti_lists_set_policy(s->lists, policy);
  btp_mutex_unlock(&s->lock);
  return rc;
}

/* ---- brains ---- */

/* A new brain, bound to inst unless NULL: at once, from any thread. */
static int brain_create(bt_sched *s, bt_inst *inst) {
  lock(s);
  int id = bti_lists_brain_create(s->lists);
  if (id >= 0 && inst && bind(s, id, inst) != BT_OK) {
    bti_lists_brain_free(s->lists, id);
    id = BT_ENOMEM;
  }
  unlock(s);
  return id;
}

int bt_sched_brain_create(bt_sched *s) { return s ? brain_create(s, NULL) : BT_EINVAL; }

int bt_sched_set_recording(bt_sched *s, const struct bt_rec_options *opts) {
  if (!s) return BT_EINVAL;
  if (in_own_batch(s) || lock_idle(s)) return BT_EBUSY;
  int rc = BT_OK;
  s->records = opts != NULL;
  if (opts) s->recording = *opts;
  for (int id = 0; id < bti_lists_brains(s->lists) && rc == BT_OK; id++) {
    bt_inst *in = bti_lists_inst(s->lists, id);
    if (!in) continue;
    if (opts) {
      rc = bti_rec_attach_new(in, opts, (unsigned long long)id);
    } else if (bti_rec_owned(bt_inst_recorder(in))) {
      bt_inst_set_recorder(in, NULL); /* frees it (the host's own recorders stay) */
    }
  }
  btp_mutex_unlock(&s->lock);
  return rc;
}

int bt_sched_brain_free(bt_sched *s, int brain) { return on_brain(s, OP_FREE, brain); }
int bt_sched_add(bt_sched *s, int brain) { return on_brain(s, OP_ADD, brain); }
int bt_sched_remove(bt_sched *s, int brain) { return on_brain(s, OP_REMOVE, brain); }
int bt_sched_wake(bt_sched *s, int brain) { return on_brain(s, OP_WAKE, brain); }
int bt_sched_hibernate(bt_sched *s, int brain) { return on_brain(s, OP_HIBERNATE, brain); }
int bt_sched_force_update(bt_sched *s, int brain) { return on_brain(s, OP_FORCE_UPDATE, brain); }

int bt_sched_sleep(bt_sched *s, int brain, double seconds) {
  if (!s || brain < 0) return BT_EINVAL;
  command c = {.op = OP_SLEEP, .brain = brain, .u.seconds = seconds};
  return submit(s, &c, NULL, 0);
}

int bt_sched_set_period(bt_sched *s, int brain, double period) {
  if (!s || brain < 0 || !(period >= 0)) return BT_EINVAL;
  command c = {.op = OP_PERIOD, .brain = brain, .u.seconds = period};
  return submit(s, &c, NULL, 0);
}

int bt_sched_set_inst(bt_sched *s, int brain, bt_inst *inst) {
  if (!s || brain < 0 || !inst) return BT_EINVAL;
  command c = {.op = OP_SET_INST, .brain = brain, .u.inst = inst};
  return submit(s, &c, NULL, 0);
}

int bt_sched_fire_event(bt_sched *s, int brain, int node) {
  if (!s || brain < 0 || node < 0) return BT_EINVAL;
  command c = {.op = OP_FIRE_EVENT, .brain = brain, .u.node = node};
  return submit(s, &c, NULL, 0);
}

int bt_sched_post(bt_sched *s, bt_post_fn fn, void *ud, const void *data, size_t size) {
  if (!s || !fn || (!data && size)) return BT_EINVAL;
  command c = {.op = OP_POST, .brain = -1, .u.post = {fn, ud}, .size = size};
  return submit(s, &c, data, size);
}

int bt_sched_key_set(bt_sched *s, int brain, int key, const bt_value *value) {
  if (!s || brain < 0 || key < 0) return BT_EINVAL;
  command c = {.op = OP_KEY_SET, .brain = brain, .u.key = {key, {BT_KEY_NONE, {0}}}};
  const void *data = NULL;
  if (value) c.u.key.value = *value;
  if (c.u.key.value.type == BT_KEY_STRING) {
    if (!value->as.string) return BT_EINVAL;
    data = value->as.string;
    c.size = strlen(value->as.string) + 1;
  }
  return submit(s, &c, data, c.size);
}

bt_inst *bt_sched_inst(bt_sched *s, int brain) {
  if (!s) return NULL;
  lock(s);
  bt_inst *in = bti_lists_inst(s->lists, brain);
  unlock(s);
  return in;
}

/* ---- a serial frame ---- */

/* The hooks of a serial frame whose host gives no think: the brains' instances think. */
typedef struct own_think {
  bt_sched *s;
  const bt_sched_hooks *host; /* its ready, if any */
} own_think;

static int own_ready(void *ud, int brain) {
  own_think *o = ud;
  if (!bti_lists_inst(o->s->lists, brain)) return 0;
  return !o->host || !o->host->ready || o->host->ready(o->host->ud, brain);
}

static int inst_think(bt_inst *inst, double *sleep) {
  bt_inst_update(inst);
  return bt_inst_sleep_time(inst, sleep);
}

static int own_think_fn(void *ud, int brain, double *sleep) {
  own_think *o = ud;
  bt_inst *inst = bti_lists_inst(o->s->lists, brain);
  return inst ? inst_think(inst, sleep) : 0;
}

/* A serial frame; a hook may run another inside it, as a Lua brain manager's Update may. */
static int serial_update(bt_sched *s, long long tick, const bt_sched_hooks *hooks) {
  int n;
  s->serial_depth++;
  if (hooks && hooks->think) {
    n = bti_lists_update(s->lists, tick, hooks);
  } else {
    own_think o = {s, hooks};
    bt_sched_hooks own = {own_ready, own_think_fn, &o};
    n = bti_lists_update(s->lists, tick, &own);
  }
  s->serial_depth--;
  if (n < 0) return n;
  s->frames++;
  s->last_due = n;
  s->last_batches = 0;
  return BT_OK;
}

/* ---- a frame on workers ---- */

/* Takes the lock and moves from IDLE to phase; this thread becomes the one that applies
 * commands, and applies the queue of other threads. BT_EBUSY (lock not held) when not IDLE. */
static int enter(bt_sched *s, int phase) {
  btp_mutex_lock(&s->lock);
  int idle = IDLE;
  if (!atomic_compare_exchange_strong(&s->phase, &idle, phase)) {
    btp_mutex_unlock(&s->lock);
    return BT_EBUSY;
  }
  atomic_store(&s->owner, (uintptr_t)&tls_me);
  drain(s);
  return BT_OK;
}

/* Room for n due brains and nb batches. */
static int frame_room(bt_sched *s, int n, int nb) {
  if (n > s->cap_due) {
    int cap = s->cap_due;
    if (bti_grow((void **)&s->due, &cap, n, sizeof *s->due)) return BT_ENOMEM;
    int cap_out = s->cap_due;
    if (bti_grow((void **)&s->out, &cap_out, n, sizeof *s->out)) return BT_ENOMEM;
    s->cap_due = cap < cap_out ? cap : cap_out;
  }
  if (bti_grow((void **)&s->batches, &s->cap_batches, nb, sizeof *s->batches)) return BT_ENOMEM;
  while (s->made_batches < nb) {
    batch *b = calloc(1, (sizeof(batch) + 63) / 64 * 64 + 64); /* its own cache lines */
    if (!b) return BT_ENOMEM;
    b->s = s;
    atomic_init(&b->state, NOT_RUN);
    s->batches[s->made_batches++] = b;
  }
  return BT_OK;
}

static int batch_size(const bt_sched *s, int n) {
  if (s->batch_size) return s->batch_size;
  int workers = workers_of(s);
  if (workers == 1) return n > 0 ? n : 1;
  int per = (n + workers * 8 - 1) / (workers * 8);
  return per < 32 ? 32 : per;
}

/* Phase 1, with the host's hooks (hooks) or the deprecated ones (old); NULL: the instances think. */
static int frame_begin(bt_sched *s, long long tick, const bt_sched_hooks *hooks, const bt_tsched_hooks *old,
                       int *batches) {
  if (batches) *batches = 0;
  if (!s || !batches || !workers_of(s)) return BT_EINVAL;
  if (in_own_batch(s)) return BT_EBUSY;
  if (enter(s, BEGIN)) return BT_EBUSY;
  const int *updaters;
  int n = bti_lists_begin(s->lists, tick, &updaters);
  int size = batch_size(s, n);
  int nb = n / size + (n % size != 0);
  if (frame_room(s, n, nb)) {
    atomic_store(&s->phase, IDLE);
    btp_mutex_unlock(&s->lock);
    return BT_ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    int id = updaters[i];
    s->due[i] = (due){id, bti_lists_gen(s->lists, id), bti_lists_inst(s->lists, id)};
    s->out[i].state = NOT_READY;
  }
  for (int k = 0; k < nb; k++) {
    batch *b = s->batches[k];
    b->lo = k * size;
    b->hi = b->lo + size < n ? b->lo + size : n;
    b->q.n = 0;
    b->q.bytes.len = 0;
    atomic_store(&b->state, NOT_RUN);
  }
  s->ndue = n;
  s->nbatches = nb;
  if (hooks) s->hooks = *hooks;
  else memset(&s->hooks, 0, sizeof s->hooks);
  s->has_old_hooks = old != NULL;
  if (old) s->old_hooks = *old;
  atomic_store(&s->phase, THINK); /* publishes the frame to the workers */
  btp_mutex_unlock(&s->lock);
  *batches = nb;
  return BT_OK;
}

int bt_sched_frame_begin(bt_sched *s, long long tick, const bt_sched_hooks *hooks, int *batches) {
  return frame_begin(s, tick, hooks, NULL, batches);
}

/* Thinks a due brain: its outcome (NOT_READY, SLEEPS with *sleep, HIBERNATES). */
static int think_due(const bt_sched *s, const due *d, double *sleep) {
  int has;
  if (s->has_old_hooks) { /* their brains were always bound */
    const bt_tsched_hooks *h = &s->old_hooks;
    if (!d->inst) return NOT_READY;
    if (h->ready && !h->ready(h->ud, d->id, d->inst)) return NOT_READY;
    has = h->think ? h->think(h->ud, d->id, d->inst, sleep) : inst_think(d->inst, sleep);
  } else {
    const bt_sched_hooks *h = &s->hooks;
    if (!h->think && !d->inst) return NOT_READY;
    if (h->ready && !h->ready(h->ud, d->id)) return NOT_READY;
    has = h->think ? h->think(h->ud, d->id, sleep) : inst_think(d->inst, sleep);
  }
  return has ? SLEEPS : HIBERNATES;
}

static void think_batch(bt_sched *s, batch *b) {
  batch *outer = tls_batch;
  tls_batch = b;
  for (int i = b->lo; i < b->hi; i++) {
    double sleep = 0;
    outcome *o = &s->out[i];
    o->state = think_due(s, &s->due[i], &sleep);
    o->sleep = sleep;
  }
  tls_batch = outer;
}

int bt_sched_frame_run(bt_sched *s, int k) {
  if (!s || atomic_load(&s->phase) != THINK || k < 0 || k >= s->nbatches) return BT_EINVAL;
  batch *b = s->batches[k];
  int not_run = NOT_RUN;
  if (!atomic_compare_exchange_strong(&b->state, &not_run, RUNNING)) return BT_EINVAL;
  think_batch(s, b);
  atomic_store(&b->state, RAN); /* publishes its outcomes and queue to the end */
  return BT_OK;
}

int bt_sched_frame_end(bt_sched *s) {
  if (!s) return BT_EINVAL;
  if (in_own_batch(s)) return BT_EBUSY;
  int phase = atomic_load(&s->phase);
  if (phase != THINK) return phase == IDLE ? BT_EINVAL : BT_EBUSY;
  /* every batch ran, or runs now: none is lost */
  int missed = 0;
  for (int k = 0; k < s->nbatches; k++) {
    batch *b = s->batches[k];
    int not_run = NOT_RUN;
    if (atomic_compare_exchange_strong(&b->state, &not_run, RUNNING)) {
      think_batch(s, b);
      atomic_store(&b->state, RAN);
      missed++;
    }
    while (atomic_load(&b->state) != RAN) btp_thread_yield();
  }
  btp_mutex_lock(&s->lock);
  atomic_store(&s->phase, END);
  for (int i = 0; i < s->ndue; i++) {
    const outcome *o = &s->out[i];
    if (o->state != NOT_READY)
      bti_lists_thought(s->lists, s->due[i].id, s->due[i].gen, o->state == SLEEPS, o->sleep);
  }
  for (int k = 0; k < s->nbatches; k++) {
    const queue *q = &s->batches[k]->q;
    for (int i = 0; i < q->n; i++) apply(s, &q->cmds[i], command_data(q, &q->cmds[i]), 1);
  }
  drain(s);
  s->frames++;
  s->last_due = s->ndue;
  s->last_batches = s->nbatches;
  if (missed)
    snprintf(s->errmsg, sizeof s->errmsg, "tick %lld: %d of %d batches were not run by the host; "
             "the frame's end ran them", bti_lists_tick(s->lists), missed, s->nbatches);
  atomic_store(&s->phase, IDLE);
  btp_mutex_unlock(&s->lock);
  return missed ? BT_EINVAL : BT_OK;
}

static void run_job(void *job, int k) { bt_sched_frame_run(job, k); }

/* A frame on workers: begin, the batches on the executor (or this thread), end. */
static int frame(bt_sched *s, long long tick, const bt_sched_hooks *hooks, const bt_tsched_hooks *old) {
  int nb;
  int rc = frame_begin(s, tick, hooks, old, &nb);
  if (rc != BT_OK) return rc;
  int ran = BT_OK;
  if (nb > 0 && s->has_exec) ran = s->exec.run(s->exec.data, nb, run_job, s);
  else
    for (int k = 0; k < nb; k++) bt_sched_frame_run(s, k);
  rc = bt_sched_frame_end(s);
  return ran < 0 ? ran : rc;
}

int bt_sched_update(bt_sched *s, long long tick, const bt_sched_hooks *hooks) {
  if (!s) return BT_EINVAL;
  if (in_own_batch(s)) return BT_EBUSY;
  return workers_of(s) ? frame(s, tick, hooks, NULL) : serial_update(s, tick, hooks);
}

int bt_sched_flush(bt_sched *s) {
  if (!s) return BT_EINVAL;
  if (!workers_of(s)) return BT_OK;
  if (in_own_batch(s)) return BT_EBUSY;
  if (enter(s, FLUSH)) return BT_EBUSY;
  atomic_store(&s->phase, IDLE);
  btp_mutex_unlock(&s->lock);
  return BT_OK;
}

/* ---- what it says ---- */

long long bt_sched_tick(const bt_sched *s) {
  if (!s) return 0;
  lock(s);
  long long t = bti_lists_tick(s->lists);
  unlock(s);
  return t;
}

int bt_sched_list(const bt_sched *s, int brain, long long *wake_tick) {
  if (!s) return BT_EINVAL;
  lock(s);
  int rc = bti_lists_list(s->lists, brain, wake_tick);
  unlock(s);
  return rc;
}

void bt_sched_stats_get(const bt_sched *s, bt_sched_stats *out) {
  if (!s || !out) return;
  lock(s);
  bti_lists_stats_get(s->lists, out);
  out->frames = s->frames;
  out->due = s->last_due;
  out->batches = s->last_batches;
  out->commands = s->commands;
  out->rejected = s->rejected;
  unlock(s);
}

const char *bt_sched_errmsg(const bt_sched *s) { return s ? s->errmsg : ""; }

/* ---- deprecated names (bt_sched.h) ---- */

int bt_tsched_create(bt_tsched **out, double tick_time) {
  int rc = bt_sched_create(out, tick_time);
  if (rc == BT_OK) atomic_store(&(*out)->workers, 1); /* as bt_sched_set_threads(s, 1) */
  return rc;
}

int bt_tsched_brain_create(bt_tsched *ts, bt_inst *inst) {
  return ts && inst ? brain_create(ts, inst) : BT_EINVAL;
}

int bt_tsched_update(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks) {
  if (!ts) return BT_EINVAL;
  if (in_own_batch(ts)) return BT_EBUSY;
  bt_tsched_hooks none = {0};
  return frame(ts, tick, NULL, hooks ? hooks : &none);
}

int bt_tsched_frame_begin(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks, int *batches) {
  bt_tsched_hooks none = {0};
  return frame_begin(ts, tick, NULL, hooks ? hooks : &none, batches);
}
