/* SPDX-License-Identifier: MIT */
/*
 * tsched.c: the threaded scheduler (bt_tsched_*): bt_sched's lists and filing, with the think
 * of a frame's due brains spread over workers (docs/threads.md).
 *
 * A frame: begin (one thread, under the lock) applies the commands queued since the last frame,
 * takes the due brains from the bt_sched inside, and cuts them in order into batches; the
 * workers think the batches, each writing the outcome of its brains into their slots and the
 * commands its leaves make into a queue of its own, found through a thread-local pointer; end
 * (one thread, under the lock) files every brain by its outcome in the frame's order, then
 * applies the batches' queues in batch order, then the queue of the other threads. Nothing a
 * worker writes is read by another worker, and the order of everything applied follows the
 * frame's order of brains, not the threads: so the results do not depend on the workers.
 *
 * The lock is recursive: a command applied may call back into the host, which may call the
 * scheduler again. A call on a brain made between frames by the thread that runs them is applied
 * at once under the lock; any other goes to a queue (a batch's, without a lock, or the others'
 * under qlock), so that only the threads thinking a frame and the thread running them touch an
 * instance, and no call waits for a frame to end.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btp.h"
#include "rec_internal.h"
#include "sched_internal.h"

enum { IDLE, BEGIN, THINK, END, FLUSH }; /* phases */

enum { OP_FREE, OP_ADD, OP_REMOVE, OP_WAKE, OP_HIBERNATE, OP_SLEEP, OP_PERIOD, OP_SET_INST,
       OP_FIRE_EVENT, OP_FORCE_UPDATE, OP_POST };

static const char *const op_names[] = {"brain_free", "add", "remove", "wake", "hibernate", "sleep",
                                       "set_period", "set_inst", "fire_event", "force_update",
                                       "post"};

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
      size_t at, size; /* its bytes in the queue's */
    } post;
  } u;
} command;

typedef struct queue {
  command *cmds;
  int n, cap;
  bt_buf bytes; /* what the posts carry, each from a multiple of 8 */
} queue;

/* A batch: brains lo to hi - 1 of the frame, and what their leaves queued. Each is allocated on
 * its own, so that two workers never write the same cache line. */
typedef struct batch {
  bt_tsched *ts;
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

struct bt_tsched {
  bt_sched *s;
  btp_mutex lock;  /* recursive: everything but the queue of other threads */
  btp_mutex qlock; /* incoming */
  atomic_int phase;
  atomic_uintptr_t owner; /* the thread that applies commands: its tls_me */
  queue incoming, applying; /* commands from outside the frame's batches; the ones being applied */
  bt_inst **insts;          /* by brain id */
  int cap_insts;
  /* the frame */
  due *due;
  outcome *out;
  int ndue, cap_due;
  batch **batches;
  int nbatches, made_batches, cap_batches;
  bt_tsched_hooks hooks;
  /* how batches run */
  bt_pool *pool;
  bt_executor exec;
  int has_exec, workers, batch_size;
  /* figures */
  long long frames, commands, rejected;
  int last_due, last_batches;
  char errmsg[256];
  bt_rec_options recording; /* bt_tsched_set_recording's */
  int records;              /* recording is on: each brain's instance records */
};

/* The batch this thread is thinking, if any; and a byte whose address names this thread. */
static _Thread_local batch *tls_batch;
static _Thread_local char tls_me;

static int in_own_batch(const bt_tsched *ts) { return tls_batch && tls_batch->ts == ts; }

/* The thread that applies commands: the last to begin a frame or flush (first: the creator's). */
static int is_owner(const bt_tsched *ts) { return atomic_load(&ts->owner) == (uintptr_t)&tls_me; }

/* ---- queues ---- */

static int queue_push(queue *q, const command *c, const void *data, size_t size) {
  if (bti_grow((void **)&q->cmds, &q->cap, q->n + 1, sizeof *q->cmds)) return BT_ENOMEM;
  command *d = &q->cmds[q->n];
  *d = *c;
  if (c->op == OP_POST) {
    size_t room = (size + 7) & ~(size_t)7;
    if (room < size || bt_buf_reserve(&q->bytes, room) != BT_OK) return BT_ENOMEM;
    if (size) memcpy(q->bytes.data + q->bytes.len, data, size);
    d->u.post.at = q->bytes.len;
    d->u.post.size = size;
    q->bytes.len += room;
  }
  q->n++;
  return BT_OK;
}

/* The bytes a queued command carries (NULL: none). */
static const void *command_data(const queue *q, const command *c) {
  return c->op == OP_POST && q->bytes.data ? q->bytes.data + c->u.post.at : NULL;
}

static void queue_free(queue *q) {
  free(q->cmds);
  bt_buf_free(&q->bytes);
}

/* ---- applying a command ---- */

static int known(const bt_tsched *ts, int id) { return bt_sched_list(ts->s, id, NULL) >= 0; }

/* The kind that bt_inst_fire_event triggers, for a message (the kind table's BT_KIND_LISTENS). */
static int listening_kind(void) {
  int k = 0;
  while (k < BT_KIND_COUNT - 1 && !bt_kind_has(k, BT_KIND_LISTENS)) k++;
  return k;
}

/* Applies c (its bytes at data); returns what it did. A queued command refused is counted and
 * its message kept. Under the lock. */
static int apply(bt_tsched *ts, const command *c, const void *data, int queued) {
  int id = c->brain, rc = BT_OK;
  const char *why = "no such brain";
  char reason[96];
  switch (c->op) {
    case OP_FREE:
      rc = bt_sched_brain_free(ts->s, id);
      if (rc == BT_OK) ts->insts[id] = NULL;
      break;
    case OP_ADD: rc = bt_sched_add(ts->s, id); break;
    case OP_REMOVE: rc = bt_sched_remove(ts->s, id); break;
    case OP_WAKE: rc = bt_sched_wake(ts->s, id); break;
    case OP_HIBERNATE: rc = bt_sched_hibernate(ts->s, id); break;
    case OP_SLEEP: rc = bt_sched_sleep(ts->s, id, c->u.seconds); break;
    case OP_PERIOD: rc = bt_sched_set_period(ts->s, id, c->u.seconds); break;
    case OP_SET_INST:
      if (known(ts, id)) {
        ts->insts[id] = c->u.inst;
        if (ts->records) rc = bti_rec_attach_new(c->u.inst, &ts->recording, (unsigned long long)id);
      } else {
        rc = BT_EINVAL;
      }
      break;
    case OP_FIRE_EVENT:
      if (!known(ts, id)) {
        rc = BT_EINVAL;
        break;
      }
      rc = bt_inst_fire_event(ts->insts[id], c->u.node);
      if (rc != BT_OK) {
        int k = listening_kind();
        snprintf(reason, sizeof reason, "node %d is not %s %s of its tree", c->u.node, bti_article(k),
                 bt_kind_name(k));
        why = reason;
      }
      break;
    case OP_FORCE_UPDATE:
      if (!known(ts, id)) {
        rc = BT_EINVAL;
        break;
      }
      bt_inst_force_update(ts->insts[id]);
      rc = bt_sched_wake(ts->s, id);
      break;
    case OP_POST: c->u.post.fn(c->u.post.ud, data, c->u.post.size); break;
    default: rc = BT_EINVAL; break;
  }
  if (queued) {
    ts->commands++;
    if (rc != BT_OK) {
      ts->rejected++;
      snprintf(ts->errmsg, sizeof ts->errmsg, "tick %lld: %s of brain %d: %s", bt_sched_tick(ts->s),
               op_names[c->op], id, rc == BT_ENOMEM ? "out of memory" : why);
    }
  }
  return rc;
}

/* Applies the queue of other threads until it stays empty (commands applied may queue more).
 * Under the lock, in a phase other than IDLE. */
static void drain(bt_tsched *ts) {
  for (;;) {
    btp_mutex_lock(&ts->qlock);
    queue q = ts->incoming;
    ts->incoming = ts->applying;
    ts->applying = q;
    btp_mutex_unlock(&ts->qlock);
    if (!q.n) return;
    for (int i = 0; i < q.n; i++) apply(ts, &q.cmds[i], command_data(&q, &q.cmds[i]), 1);
    ts->applying.n = 0;
    ts->applying.bytes.len = 0;
  }
}

/* A call on a brain: into this thread's batch when one of ts's is thinking here; applied at once
 * when made by the thread that applies commands, between frames; otherwise into the queue of
 * other threads. */
static int submit(bt_tsched *ts, const command *c, const void *data, size_t size) {
  if (in_own_batch(ts)) return queue_push(&tls_batch->q, c, data, size);
  if (is_owner(ts) && atomic_load(&ts->phase) == IDLE) {
    btp_mutex_lock(&ts->lock);
    if (atomic_load(&ts->phase) == IDLE) {
      int rc = apply(ts, c, data, 0);
      btp_mutex_unlock(&ts->lock);
      return rc;
    }
    btp_mutex_unlock(&ts->lock);
  }
  btp_mutex_lock(&ts->qlock);
  int rc = queue_push(&ts->incoming, c, data, size);
  btp_mutex_unlock(&ts->qlock);
  return rc;
}

static int on_brain(bt_tsched *ts, int op, int brain) {
  if (!ts || brain < 0) return BT_EINVAL;
  command c = {.op = op, .brain = brain};
  return submit(ts, &c, NULL, 0);
}

/* ---- creation ---- */

int bt_tsched_create(bt_tsched **out, double tick_time) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  bt_tsched *ts = calloc(1, sizeof *ts);
  if (!ts) return BT_ENOMEM;
  int rc = bt_sched_create(&ts->s, tick_time);
  if (rc != BT_OK) {
    free(ts);
    return rc;
  }
  int bad = btp_mutex_init_recursive(&ts->lock) != BT_OK;
  if (!bad && btp_mutex_init(&ts->qlock) != BT_OK) {
    btp_mutex_destroy(&ts->lock);
    bad = 1;
  }
  if (bad) {
    bt_sched_free(ts->s);
    free(ts);
    return BT_ENOMEM;
  }
  atomic_init(&ts->phase, IDLE);
  atomic_init(&ts->owner, (uintptr_t)&tls_me);
  ts->workers = 1;
  *out = ts;
  return BT_OK;
}

void bt_tsched_free(bt_tsched *ts) {
  if (!ts) return;
  bt_pool_free(ts->pool);
  for (int i = 0; i < ts->made_batches; i++) {
    queue_free(&ts->batches[i]->q);
    free(ts->batches[i]);
  }
  free(ts->batches);
  queue_free(&ts->incoming);
  queue_free(&ts->applying);
  free(ts->due);
  free(ts->out);
  free(ts->insts);
  bt_sched_free(ts->s);
  btp_mutex_destroy(&ts->qlock);
  btp_mutex_destroy(&ts->lock);
  free(ts);
}

/* Takes the lock outside a frame; BT_EBUSY (lock not held) during one. */
static int lock_idle(bt_tsched *ts) {
  btp_mutex_lock(&ts->lock);
  if (atomic_load(&ts->phase) != IDLE) {
    btp_mutex_unlock(&ts->lock);
    return BT_EBUSY;
  }
  return BT_OK;
}

int bt_tsched_set_threads(bt_tsched *ts, int threads) {
  if (!ts || threads < 1 || threads > BT_POOL_MAX_THREADS) return BT_EINVAL;
  if (in_own_batch(ts) || lock_idle(ts)) return BT_EBUSY;
  bt_pool *pool = NULL;
  int rc = threads > 1 ? bt_pool_create(&pool, threads) : BT_OK;
  if (rc == BT_OK) {
    bt_pool_free(ts->pool);
    ts->pool = pool;
    ts->has_exec = pool != NULL;
    if (pool) bt_pool_executor(pool, &ts->exec);
    ts->workers = threads;
  }
  btp_mutex_unlock(&ts->lock);
  return rc;
}

int bt_tsched_set_executor(bt_tsched *ts, const bt_executor *ex) {
  if (!ts || (ex && (!ex->run || ex->workers < 1))) return BT_EINVAL;
  if (in_own_batch(ts) || lock_idle(ts)) return BT_EBUSY;
  bt_pool_free(ts->pool);
  ts->pool = NULL;
  ts->has_exec = ex != NULL;
  if (ex) ts->exec = *ex;
  ts->workers = ex ? ex->workers : 1;
  btp_mutex_unlock(&ts->lock);
  return BT_OK;
}

int bt_tsched_threads(const bt_tsched *ts) { return ts ? ts->workers : 0; }

int bt_tsched_set_batch_size(bt_tsched *ts, int brains) {
  if (!ts || brains < 0) return BT_EINVAL;
  if (in_own_batch(ts) || lock_idle(ts)) return BT_EBUSY;
  ts->batch_size = brains;
  btp_mutex_unlock(&ts->lock);
  return BT_OK;
}

int bt_tsched_set_tick_time(bt_tsched *ts, double tick_time) {
  if (!ts) return BT_EINVAL;
  if (in_own_batch(ts) || lock_idle(ts)) return BT_EBUSY;
  int rc = bt_sched_set_tick_time(ts->s, tick_time);
  btp_mutex_unlock(&ts->lock);
  return rc;
}

double bt_tsched_tick_time(const bt_tsched *ts) { return ts ? bt_sched_tick_time(ts->s) : 0; }

int bt_tsched_set_policy(bt_tsched *ts, int policy) {
  if (!ts) return BT_EINVAL;
  if (in_own_batch(ts) || lock_idle(ts)) return BT_EBUSY;
  int rc = bt_sched_set_policy(ts->s, policy);
  btp_mutex_unlock(&ts->lock);
  return rc;
}

/* ---- brains ---- */

int bt_tsched_brain_create(bt_tsched *ts, bt_inst *inst) {
  if (!ts || !inst) return BT_EINVAL;
  btp_mutex_lock(&ts->lock);
  int id = bt_sched_brain_create(ts->s);
  if (id >= 0 && bti_grow((void **)&ts->insts, &ts->cap_insts, id + 1, sizeof *ts->insts)) {
    bt_sched_brain_free(ts->s, id);
    id = BT_ENOMEM;
  }
  if (id >= 0) ts->insts[id] = inst;
  if (id >= 0 && ts->records && bti_rec_attach_new(inst, &ts->recording, (unsigned long long)id) != BT_OK) {
    bt_sched_brain_free(ts->s, id);
    ts->insts[id] = NULL;
    id = BT_ENOMEM;
  }
  btp_mutex_unlock(&ts->lock);
  return id;
}

int bt_tsched_set_recording(bt_tsched *ts, const struct bt_rec_options *opts) {
  if (!ts) return BT_EINVAL;
  if (atomic_load(&ts->phase) != IDLE || in_own_batch(ts)) return BT_EBUSY;
  btp_mutex_lock(&ts->lock);
  int rc = BT_OK;
  ts->records = opts != NULL;
  if (opts) ts->recording = *opts;
  for (int id = 0; id < ts->cap_insts && rc == BT_OK; id++) {
    if (!known(ts, id)) continue; /* the slots of ids never made are not set */
    bt_inst *in = ts->insts[id];
    if (!in) continue;
    if (opts) {
      rc = bti_rec_attach_new(in, opts, (unsigned long long)id);
    } else if (bti_rec_owned(bt_inst_recorder(in))) {
      bt_inst_set_recorder(in, NULL); /* frees it (the host's own recorders stay) */
    }
  }
  btp_mutex_unlock(&ts->lock);
  return rc;
}

int bt_tsched_brain_free(bt_tsched *ts, int brain) { return on_brain(ts, OP_FREE, brain); }
int bt_tsched_add(bt_tsched *ts, int brain) { return on_brain(ts, OP_ADD, brain); }
int bt_tsched_remove(bt_tsched *ts, int brain) { return on_brain(ts, OP_REMOVE, brain); }
int bt_tsched_wake(bt_tsched *ts, int brain) { return on_brain(ts, OP_WAKE, brain); }
int bt_tsched_hibernate(bt_tsched *ts, int brain) { return on_brain(ts, OP_HIBERNATE, brain); }
int bt_tsched_force_update(bt_tsched *ts, int brain) { return on_brain(ts, OP_FORCE_UPDATE, brain); }

int bt_tsched_sleep(bt_tsched *ts, int brain, double seconds) {
  if (!ts || brain < 0) return BT_EINVAL;
  command c = {.op = OP_SLEEP, .brain = brain, .u.seconds = seconds};
  return submit(ts, &c, NULL, 0);
}

int bt_tsched_set_period(bt_tsched *ts, int brain, double period) {
  if (!ts || brain < 0 || !(period >= 0)) return BT_EINVAL;
  command c = {.op = OP_PERIOD, .brain = brain, .u.seconds = period};
  return submit(ts, &c, NULL, 0);
}

int bt_tsched_set_inst(bt_tsched *ts, int brain, bt_inst *inst) {
  if (!ts || brain < 0 || !inst) return BT_EINVAL;
  command c = {.op = OP_SET_INST, .brain = brain, .u.inst = inst};
  return submit(ts, &c, NULL, 0);
}

int bt_tsched_fire_event(bt_tsched *ts, int brain, int node) {
  if (!ts || brain < 0 || node < 0) return BT_EINVAL;
  command c = {.op = OP_FIRE_EVENT, .brain = brain, .u.node = node};
  return submit(ts, &c, NULL, 0);
}

int bt_tsched_post(bt_tsched *ts, bt_post_fn fn, void *ud, const void *data, size_t size) {
  if (!ts || !fn || (!data && size)) return BT_EINVAL;
  command c = {.op = OP_POST, .brain = -1, .u.post = {fn, ud, 0, size}};
  return submit(ts, &c, data, size);
}

bt_inst *bt_tsched_inst(bt_tsched *ts, int brain) {
  if (!ts) return NULL;
  btp_mutex_lock(&ts->lock);
  bt_inst *in = known(ts, brain) ? ts->insts[brain] : NULL;
  btp_mutex_unlock(&ts->lock);
  return in;
}

/* ---- frames ---- */

/* Room for n due brains and nb batches. */
static int frame_room(bt_tsched *ts, int n, int nb) {
  if (n > ts->cap_due) {
    int cap = ts->cap_due;
    if (bti_grow((void **)&ts->due, &cap, n, sizeof *ts->due)) return BT_ENOMEM;
    int cap_out = ts->cap_due;
    if (bti_grow((void **)&ts->out, &cap_out, n, sizeof *ts->out)) return BT_ENOMEM;
    ts->cap_due = cap < cap_out ? cap : cap_out;
  }
  if (bti_grow((void **)&ts->batches, &ts->cap_batches, nb, sizeof *ts->batches)) return BT_ENOMEM;
  while (ts->made_batches < nb) {
    batch *b = calloc(1, (sizeof(batch) + 63) / 64 * 64 + 64); /* its own cache lines */
    if (!b) return BT_ENOMEM;
    b->ts = ts;
    atomic_init(&b->state, NOT_RUN);
    ts->batches[ts->made_batches++] = b;
  }
  return BT_OK;
}

static int batch_size(const bt_tsched *ts, int n) {
  if (ts->batch_size) return ts->batch_size;
  if (ts->workers == 1) return n > 0 ? n : 1;
  int per = (n + ts->workers * 8 - 1) / (ts->workers * 8);
  return per < 32 ? 32 : per;
}

int bt_tsched_frame_begin(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks, int *batches) {
  if (batches) *batches = 0;
  if (!ts || !batches) return BT_EINVAL;
  if (in_own_batch(ts)) return BT_EBUSY;
  btp_mutex_lock(&ts->lock);
  int idle = IDLE;
  if (!atomic_compare_exchange_strong(&ts->phase, &idle, BEGIN)) {
    btp_mutex_unlock(&ts->lock);
    return BT_EBUSY;
  }
  atomic_store(&ts->owner, (uintptr_t)&tls_me);
  drain(ts);
  const int *updaters;
  int n = bti_sched_begin(ts->s, tick, &updaters);
  int size = batch_size(ts, n);
  int nb = n / size + (n % size != 0);
  if (frame_room(ts, n, nb)) {
    atomic_store(&ts->phase, IDLE);
    btp_mutex_unlock(&ts->lock);
    return BT_ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    int id = updaters[i];
    ts->due[i] = (due){id, bti_sched_gen(ts->s, id), ts->insts[id]};
    ts->out[i].state = NOT_READY;
  }
  for (int k = 0; k < nb; k++) {
    batch *b = ts->batches[k];
    b->lo = k * size;
    b->hi = b->lo + size < n ? b->lo + size : n;
    b->q.n = 0;
    b->q.bytes.len = 0;
    atomic_store(&b->state, NOT_RUN);
  }
  ts->ndue = n;
  ts->nbatches = nb;
  if (hooks) ts->hooks = *hooks;
  else memset(&ts->hooks, 0, sizeof ts->hooks);
  atomic_store(&ts->phase, THINK); /* publishes the frame to the workers */
  btp_mutex_unlock(&ts->lock);
  *batches = nb;
  return BT_OK;
}

static void think_batch(bt_tsched *ts, batch *b) {
  batch *outer = tls_batch;
  tls_batch = b;
  const bt_tsched_hooks *h = &ts->hooks;
  for (int i = b->lo; i < b->hi; i++) {
    const due *d = &ts->due[i];
    outcome *o = &ts->out[i];
    if (h->ready && !h->ready(h->ud, d->id, d->inst)) continue; /* stays NOT_READY */
    double sleep = 0;
    int has;
    if (h->think) {
      has = h->think(h->ud, d->id, d->inst, &sleep);
    } else {
      bt_inst_update(d->inst);
      has = bt_inst_sleep_time(d->inst, &sleep);
    }
    o->sleep = sleep;
    o->state = has ? SLEEPS : HIBERNATES;
  }
  tls_batch = outer;
}

int bt_tsched_frame_run(bt_tsched *ts, int k) {
  if (!ts || atomic_load(&ts->phase) != THINK || k < 0 || k >= ts->nbatches) return BT_EINVAL;
  batch *b = ts->batches[k];
  int not_run = NOT_RUN;
  if (!atomic_compare_exchange_strong(&b->state, &not_run, RUNNING)) return BT_EINVAL;
  think_batch(ts, b);
  atomic_store(&b->state, RAN); /* publishes its outcomes and queue to the end */
  return BT_OK;
}

int bt_tsched_frame_end(bt_tsched *ts) {
  if (!ts) return BT_EINVAL;
  if (in_own_batch(ts)) return BT_EBUSY;
  int phase = atomic_load(&ts->phase);
  if (phase != THINK) return phase == IDLE ? BT_EINVAL : BT_EBUSY;
  /* every batch ran, or runs now: none is lost */
  int missed = 0;
  for (int k = 0; k < ts->nbatches; k++) {
    batch *b = ts->batches[k];
    int not_run = NOT_RUN;
    if (atomic_compare_exchange_strong(&b->state, &not_run, RUNNING)) {
      think_batch(ts, b);
      atomic_store(&b->state, RAN);
      missed++;
    }
    while (atomic_load(&b->state) != RAN) btp_thread_yield();
  }
  btp_mutex_lock(&ts->lock);
  atomic_store(&ts->phase, END);
  for (int i = 0; i < ts->ndue; i++) {
    const outcome *o = &ts->out[i];
    if (o->state != NOT_READY) bti_sched_thought(ts->s, ts->due[i].id, ts->due[i].gen, o->state == SLEEPS, o->sleep);
  }
  for (int k = 0; k < ts->nbatches; k++) {
    const queue *q = &ts->batches[k]->q;
    for (int i = 0; i < q->n; i++) apply(ts, &q->cmds[i], command_data(q, &q->cmds[i]), 1);
  }
  drain(ts);
  ts->frames++;
  ts->last_due = ts->ndue;
  ts->last_batches = ts->nbatches;
  if (missed)
    snprintf(ts->errmsg, sizeof ts->errmsg, "tick %lld: %d of %d batches were not run by the host; "
             "the frame's end ran them", bt_sched_tick(ts->s), missed, ts->nbatches);
  atomic_store(&ts->phase, IDLE);
  btp_mutex_unlock(&ts->lock);
  return missed ? BT_EINVAL : BT_OK;
}

static void run_job(void *job, int k) { bt_tsched_frame_run(job, k); }

int bt_tsched_update(bt_tsched *ts, long long tick, const bt_tsched_hooks *hooks) {
  int nb;
  int rc = bt_tsched_frame_begin(ts, tick, hooks, &nb);
  if (rc != BT_OK) return rc;
  int ran = BT_OK;
  if (nb > 0 && ts->has_exec) ran = ts->exec.run(ts->exec.data, nb, run_job, ts);
  else
    for (int k = 0; k < nb; k++) bt_tsched_frame_run(ts, k);
  rc = bt_tsched_frame_end(ts);
  return ran < 0 ? ran : rc;
}

int bt_tsched_flush(bt_tsched *ts) {
  if (!ts) return BT_EINVAL;
  if (in_own_batch(ts)) return BT_EBUSY;
  btp_mutex_lock(&ts->lock);
  int idle = IDLE;
  if (!atomic_compare_exchange_strong(&ts->phase, &idle, FLUSH)) {
    btp_mutex_unlock(&ts->lock);
    return BT_EBUSY;
  }
  atomic_store(&ts->owner, (uintptr_t)&tls_me);
  drain(ts);
  atomic_store(&ts->phase, IDLE);
  btp_mutex_unlock(&ts->lock);
  return BT_OK;
}

/* ---- what it says ---- */

long long bt_tsched_tick(bt_tsched *ts) {
  if (!ts) return 0;
  btp_mutex_lock(&ts->lock);
  long long t = bt_sched_tick(ts->s);
  btp_mutex_unlock(&ts->lock);
  return t;
}

int bt_tsched_list(bt_tsched *ts, int brain, long long *wake_tick) {
  if (!ts) return BT_EINVAL;
  btp_mutex_lock(&ts->lock);
  int rc = bt_sched_list(ts->s, brain, wake_tick);
  btp_mutex_unlock(&ts->lock);
  return rc;
}

void bt_tsched_stats_get(bt_tsched *ts, bt_tsched_stats *out) {
  if (!ts || !out) return;
  btp_mutex_lock(&ts->lock);
  bt_sched_stats st;
  bt_sched_stats_get(ts->s, &st);
  out->thinks = st.thinks;
  out->frames = ts->frames;
  out->registered = st.registered;
  out->updating = st.updating;
  out->waiting = st.waiting;
  out->hibernating = st.hibernating;
  out->due = ts->last_due;
  out->batches = ts->last_batches;
  out->commands = ts->commands;
  out->rejected = ts->rejected;
  btp_mutex_unlock(&ts->lock);
}

const char *bt_tsched_errmsg(bt_tsched *ts) { return ts ? ts->errmsg : ""; }
