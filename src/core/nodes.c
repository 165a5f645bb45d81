/* SPDX-License-Identifier: MIT */
/*
 * nodes.c: what every node kind does, one section per kind, as Don't Starve Together's
 * behaviourtree.lua does it (docs/nodes.md). Each method has a dispatching entry point
 * (bt_node_visit, ...) that gives the node's bt_ops the first word, as a Lua override would be
 * called, and a per-kind part that is the Don't Starve class's own method.
 */
#include "internal.h"

/* ---- state helpers ---- */

/* A state whose status is not READY is touched already, so an unchanged status needs nothing. */
static inline void set_node_status(bt_inst *in, const bt_node *d, bt_status s) {
  uint8_t *status = inst_mem(in) + d->soff;
  if (*status == s) return;
  hook_status(in, d, *status, s);
  if (s != BT_READY) touch_node(in, d);
  *status = (uint8_t)s;
  mark_dirty_node(in, d);
  in->settled = 0;
}
static void set_status(bt_inst *in, int n, bt_status s) { set_node_status(in, node_at(in, n), s); }
static bt_status node_status(const bt_inst *in, const bt_node *d) { return (bt_status)inst_mem(in)[d->soff]; }
static void *kind_mem(const bt_inst *in, const bt_node *d) { return inst_mem(in) + d->mem; }
static const uint32_t *kids_of(const bt_inst *in, const bt_node *d) { return in->def->kids + d->children; }

static bt_status visit(bt_inst *in, int n);

static int nchildren(const bt_inst *in, int n) { return (int)node_at(in, n)->nchildren; }

/* The first touched state in [from, end), or end; words the summary says are zero are skipped
 * unread. */
static uint32_t next_touched(const bt_inst *in, uint32_t from, uint32_t end) {
  if (from >= end) return end;
  uint32_t w = from >> 6;
  uint64_t bits = *touched_word(in, w) & (~(uint64_t)0 << (from & 63));
  while (!bits) {
    if (w + 1 >= in->def->nwords) return end; /* (and a tree of one chunk has no summaries) */
    uint32_t group = (w + 1) >> in->def->sum_shift;
    if (group >= 64) return end;
    uint64_t later = *touched_sum(in) & (~(uint64_t)0 << group);
    if (!later) return end;
    uint32_t next = (uint32_t)__builtin_ctzll(later) << in->def->sum_shift;
    w = next > w + 1 ? next : w + 1;
    if ((w << 6) >= end) return end;
    bits = *touched_word(in, w);
  }
  uint32_t q = (w << 6) + (uint32_t)__builtin_ctzll(bits);
  return q < end ? q : end;
}

/* The child of n above node q of its subtree, or -1 if q is past the subtree. */
static int child_above(const bt_node *nodes, int n, uint32_t q) {
  if (q >= nodes[n].end) return -1;
  while (nodes[q].up != n) q = (uint32_t)nodes[q].up;
  return (int)q;
}

/* n's first child at index i or later whose subtree has a touched node, found a word of bits at
 * a time: for a node with many children in a tree without shared nodes (where a state is its
 * pre-order index). */
static int scan_touched_from(const bt_inst *in, int n, uint32_t i) {
  const bt_def *def = in->def;
  const bt_node *d = &def->nodes[n];
  return i < d->nchildren ? child_above(def->nodes, n, next_touched(in, def->kids[d->children + i], d->end)) : -1;
}

/* n's first child at index i or later whose state is touched (or, for many children, whose
 * subtree has a touched node), or -1. Reset and Step pass over the other children: for them both
 * would change nothing. */
static inline int touched_from(const bt_inst *in, int n, uint32_t i) {
  const bt_def *def = in->def;
  const bt_node *d = &def->nodes[n];
  if (d->nchildren > def->scan_children) return scan_touched_from(in, n, i);
  const uint32_t *kids = def->kids + d->children;
  for (; i < d->nchildren; i++)
    if (touched_bit(in, def->nodes[kids[i]].state)) return (int)kids[i];
  return -1;
}

/* The touched child of n after its child c, or -1. */
static inline int touched_after(const bt_inst *in, int n, int c) {
  const bt_def *def = in->def;
  if (def->nodes[n].nchildren > def->scan_children)
    return child_above(def->nodes, n, next_touched(in, def->nodes[c].end, def->nodes[n].end));
  return touched_from(in, n, def->nodes[c].sib + 1);
}

#define FOR_TOUCHED_CHILD(in, n, c, from) \
  for (int c = touched_from(in, n, from); c >= 0; c = touched_after(in, n, c))

static int call_fn(bt_inst *in, int n, bt_fn fn, void *ud, double *value) {
  bt_call c = {in, n, ud, 0};
  int r = fn(&c);
  if (value) *value = c.value;
  return r;
}

static bt_call make_call(bt_inst *in, int n) {
  bt_call c = {in, n, node_at(in, n)->ops_ud, 0};
  return c;
}

/* ---- BehaviourNode: the base class ---- */

static void visit_base(bt_inst *in, int n) { set_status(in, n, BT_FAILED); }

static void reset_base(bt_inst *in, int n) {
  if (status_of(in, n) == BT_READY) return;
  set_status(in, n, BT_READY);
  FOR_TOUCHED_CHILD(in, n, c, 0) bt_node_reset(in, c);
}

/* The reset of a kind whose memory holds child indices or counters: they go back to where they
 * started (kinds.c says which and where). */
static void reset_rewind(bt_inst *in, int n) {
  reset_base(in, n);
  const bt_node *d = node_at(in, n);
  bti_rewind(in, d->state, &bti_kinds[d->kind]);
}

/* Visits child c afresh: reset first if its last visit ended it (a RUNNING child goes on). */
static bt_status visit_again(bt_inst *in, int c) {
  bt_status s = status_of(in, c);
  if (s == BT_SUCCESS || s == BT_FAILED) bt_node_reset(in, c);
  return visit(in, c);
}

static void step_base(bt_inst *in, int n) {
  if (status_of(in, n) != BT_RUNNING) {
    bt_node_reset(in, n);
    return;
  }
  FOR_TOUCHED_CHILD(in, n, c, 0) bt_node_step(in, c);
}

/* A RUNNING leaf that is no ConditionNode sleeps until its Sleep deadline (0 if none). */
static int sleep_base(bt_inst *in, int n, double *out) {
  if (status_of(in, n) != BT_RUNNING || !is_leaf(in, n) || node_at(in, n)->kind == BT_CONDITION)
    return 0;
  double t = 0;
  if (bti_deadline_get(in, state_of(in, n), &t)) {
    t -= bti_now(in);
    if (t < 0) t = 0;
  }
  *out = t;
  return 1;
}

void bt_node_sleep(bt_inst *in, int n, double seconds) {
  forget_sleep(in);
  double t = bti_now(in) + seconds;
  uint32_t st = state_of(in, n);
  const bt_state *s = &in->def->states[st];
  if (s->nut != NO_SLOT) { /* kept in the instance: the common case (a Wait, a task, a Lua node) */
    memcpy(inst_mem(in) + s->nut, &t, sizeof t);
    *flags_at(in, st) |= SF_NUT;
  } else if (s->spill == NO_SLOT || bti_deadline_set(in, st, &t) != BT_OK) {
    return;
  }
  touch(in, st);
}

/* ---- ConditionNode: SUCCESS if fn() is truthy, else FAILED ---- */

static void visit_condition(bt_inst *in, int n, const bt_node *d) {
  int r = call_fn(in, n, d->fn, d->ud, NULL);
  set_node_status(in, d, r > 0 ? BT_SUCCESS : BT_FAILED);
}

/* ---- MultiConditionNode: start() until it holds, then continue(); the flag survives Reset ---- */

static void visit_multicondition(bt_inst *in, int n, const bt_node *d) {
  uint8_t *fl = flags_of(in, n);
  int running = *fl & SF_RUNNING;
  int r = running ? call_fn(in, n, d->fn2, d->ud2, NULL) : call_fn(in, n, d->fn, d->ud, NULL);
  if (r < 0) {
    set_status(in, n, BT_FAILED);
    return;
  }
  if (r > 0) *fl |= SF_RUNNING;
  else *fl &= (uint8_t)~SF_RUNNING;
  set_status(in, n, r > 0 ? BT_SUCCESS : BT_FAILED);
}

/* ---- ConditionWaitNode: SUCCESS if fn() is truthy, else RUNNING (never sleeps) ---- */

static void visit_conditionwait(bt_inst *in, int n, const bt_node *d) {
  int r = call_fn(in, n, d->fn, d->ud, NULL);
  set_node_status(in, d, r > 0 ? BT_SUCCESS : r == 0 ? BT_RUNNING : BT_FAILED);
}

/* ---- ActionNode: fn(), then SUCCESS in the same visit ---- */

static void visit_action(bt_inst *in, int n, const bt_node *d) {
  int r = call_fn(in, n, d->fn, d->ud, NULL);
  set_node_status(in, d, r < 0 ? BT_FAILED : BT_SUCCESS);
}

/* ---- WaitNode: RUNNING until now >= wake_time ----
 * docs/lua-api.md's deviation 1: while waiting it sleeps wake_time - now, where Don't Starve
 * passes now - wake_time (negative, so its sleep time is 0); BT_INST_EXACT passes that. */

static void visit_wait(bt_inst *in, int n, const bt_node *d) {
  mem_wait *m = kind_mem(in, d);
  double now = bti_now(in);
  if (node_status(in, d) != BT_RUNNING) {
    double t = d->param;
    if ((d->flags & NF_PARAM_FN) && call_fn(in, n, d->fn, d->ud, &t) < 0) {
      set_node_status(in, d, BT_FAILED);
      return;
    }
    m->wake = now + t;
    inst_mem(in)[d->foff] |= SF_WAKE;
    set_node_status(in, d, BT_RUNNING);
  }
  if (node_status(in, d) != BT_RUNNING) return;
  if (now >= m->wake) set_node_status(in, d, BT_SUCCESS);
  else bt_node_sleep(in, n, in->exact ? now - m->wake : m->wake - now);
}

static int describe_wait(bt_inst *in, int n, bt_buf *out) {
  mem_wait *m = mem_of(in, n);
  if (!(*flags_of(in, n) & SF_WAKE)) return bt_buf_printf(out, "nil");
  return bt_buf_printf(out, "%2.2f", m->wake - bti_now(in));
}

/* ---- SequenceNode: children in order until one is RUNNING or FAILED; resumes at idx ---- */

static void visit_sequence(bt_inst *in, const bt_node *d) {
  mem_idx *m = kind_mem(in, d);
  const uint32_t *kids = kids_of(in, d);
  /* idx is 1-based; 0 (set by a script) would read before the node's children */
  if (node_status(in, d) != BT_RUNNING || m->idx == 0) m->idx = 1;
  while (m->idx <= d->nchildren) {
    bt_status cs = visit(in, (int)kids[m->idx - 1]);
    if (cs == BT_RUNNING || cs == BT_FAILED) {
      set_node_status(in, d, cs);
      return;
    }
    m->idx++;
  }
  set_node_status(in, d, BT_SUCCESS);
}

static int describe_idx(bt_inst *in, int n, bt_buf *out) {
  mem_idx *m = mem_of(in, n);
  return bt_buf_printf(out, "%u", (unsigned)m->idx);
}

/* ---- SelectorNode: children in order until one is RUNNING or SUCCESS; resumes at idx ---- */

static void visit_selector(bt_inst *in, const bt_node *d) {
  mem_idx *m = kind_mem(in, d);
  const uint32_t *kids = kids_of(in, d);
  if (node_status(in, d) != BT_RUNNING || m->idx == 0) m->idx = 1; /* as in visit_sequence */
  while (m->idx <= d->nchildren) {
    bt_status cs = visit(in, (int)kids[m->idx - 1]);
    if (cs == BT_RUNNING || cs == BT_SUCCESS) {
      set_node_status(in, d, cs);
      return;
    }
    m->idx++;
  }
  set_node_status(in, d, BT_FAILED);
}

/* ---- NotDecorator, FailIfRunningDecorator, FailIfSuccessDecorator, and bt's AlwaysSucceed and
 * AlwaysFail decorators (RUNNING while the child runs, then SUCCESS or FAILED) ---- */

static void visit_decorator(bt_inst *in, const bt_node *d, int kind) {
  bt_status cs = visit(in, (int)kids_of(in, d)[0]);
  if (kind == BT_NOT && cs == BT_SUCCESS) cs = BT_FAILED;
  else if (kind == BT_NOT && cs == BT_FAILED) cs = BT_SUCCESS;
  else if (kind == BT_FAILIFRUNNING && cs == BT_RUNNING) cs = BT_FAILED;
  else if (kind == BT_FAILIFSUCCESS && cs == BT_SUCCESS) cs = BT_FAILED;
  else if (kind == BT_SUCCEED && cs != BT_RUNNING) cs = BT_SUCCESS;
  else if (kind == BT_FAIL && cs != BT_RUNNING) cs = BT_FAILED;
  set_node_status(in, d, cs);
}

/* ---- LoopNode: a Sequence that starts over; after maxreps passes, SUCCESS ----
 * A pass that ends without reaching maxreps resets the children and leaves the status as it was
 * (as written). */

static void visit_loop(bt_inst *in, int n, const bt_node *d) {
  mem_seq *m = kind_mem(in, d);
  const uint32_t *kids = kids_of(in, d);
  if (node_status(in, d) != BT_RUNNING) {
    m->idx = 1;
    m->rep = 0;
  }
  if (m->idx == 0) m->idx = 1; /* as in visit_sequence */
  while (m->idx <= d->nchildren) {
    bt_status cs = visit(in, (int)kids[m->idx - 1]);
    if (cs == BT_RUNNING || cs == BT_FAILED) {
      set_node_status(in, d, cs);
      return;
    }
    m->idx++;
  }
  m->idx = 1;
  m->rep++;
  if (!(d->flags & NF_NIL_PARAM) && (double)m->rep >= d->param) {
    set_node_status(in, d, BT_SUCCESS);
    return;
  }
  FOR_TOUCHED_CHILD(in, n, c, 0) bt_node_reset(in, c);
}

/* ---- RandomNode: from READY, tries the children cyclically from a random one ---- */

static void visit_random(bt_inst *in, int n) {
  mem_seq *m = mem_of(in, n);
  uint32_t count = (uint32_t)nchildren(in, n);
  if (status_of(in, n) != BT_READY) {
    if (m->idx == 0 || m->idx > count) {
      set_status(in, n, BT_FAILED);
      return;
    }
    int c = child_at(in, n, m->idx - 1);
    bt_node_visit(in, c);
    set_status(in, n, status_of(in, c));
    return;
  }
  int pick;
  if (bti_random_int(in, (int)count, &pick) != BT_OK || pick < 1 || (uint32_t)pick > count) {
    set_status(in, n, BT_FAILED);
    return;
  }
  m->idx = (uint32_t)pick;
  uint32_t start = m->idx;
  for (;;) {
    int c = child_at(in, n, m->idx - 1);
    bt_node_visit(in, c);
    if (status_of(in, c) != BT_FAILED) {
      set_status(in, n, status_of(in, c));
      return;
    }
    m->idx++;
    if (m->idx > count) m->idx = 1;
    if (m->idx == start) {
      set_status(in, n, BT_FAILED);
      return;
    }
  }
}

/* ---- PriorityNode: re-evaluates its children at most once per period ----
 * Between evaluations it only resumes the running child. An evaluation resets finished children
 * before visiting them, picks the first that is RUNNING or SUCCESS, and resets the rest; when the
 * selected child is an EventNode, later EventNodes of equal or higher priority are tested anyway. */

static double event_priority(const bt_inst *in, int n) { return node_at(in, n)->param; }

static void evaluate_priority(bt_inst *in, int n, double time) {
  mem_prio *m = mem_of(in, n);
  int count = nchildren(in, n);
  int old_event = -1;
  if (m->idx && m->idx <= (uint32_t)count) { /* a script may have set idx past the children */
    int c = child_at(in, n, m->idx - 1);
    if (node_at(in, c)->kind == BT_EVENT) old_event = c;
  }
  m->lasttime = time;
  *flags_of(in, n) |= SF_LASTTIME;
  int found = 0;
  for (int i = 1; i <= count; i++) {
    int c = child_at(in, n, (uint32_t)i - 1);
    int test_anyway = old_event >= 0 && node_at(in, c)->kind == BT_EVENT &&
                      event_priority(in, old_event) <= event_priority(in, c);
    if (found && old_event < 0) { /* no later EventNode is tested anyway: reset the rest */
      FOR_TOUCHED_CHILD(in, n, j, (uint32_t)i - 1) bt_node_reset(in, j);
      break;
    }
    if (found && !test_anyway) {
      bt_node_reset(in, c);
      continue;
    }
    bt_status cs = visit_again(in, c);
    if (cs == BT_SUCCESS || cs == BT_RUNNING) {
      if (test_anyway && m->idx != (uint32_t)i && m->idx && m->idx <= (uint32_t)count)
        bt_node_reset(in, child_at(in, n, m->idx - 1));
      set_status(in, n, cs);
      found = 1;
      m->idx = (uint32_t)i;
    }
  }
  if (!found) set_status(in, n, BT_FAILED);
}

static void visit_priority(bt_inst *in, int n, const bt_node *d) {
  mem_prio *m = kind_mem(in, d);
  double time = bti_now(in);
  int has_last = inst_mem(in)[d->foff] & SF_LASTTIME;
  if (!has_last || m->lasttime + d->param < time) {
    evaluate_priority(in, n, time);
    return;
  }
  if (!m->idx || m->idx > d->nchildren) return;
  int c = (int)kids_of(in, d)[m->idx - 1];
  if (status_of(in, c) != BT_RUNNING) return;
  bt_status cs = visit(in, c);
  set_node_status(in, d, cs);
  if (cs != BT_RUNNING) inst_mem(in)[d->foff] &= (uint8_t)~SF_LASTTIME;
}

static int sleep_priority(bt_inst *in, int n, double *out) {
  bt_status s = status_of(in, n);
  if (s == BT_READY) {
    *out = 0;
    return 1;
  }
  if (s != BT_RUNNING) return 0;
  mem_prio *m = mem_of(in, n);
  double t = 0;
  if (*flags_of(in, n) & SF_LASTTIME) {
    t = m->lasttime + node_at(in, n)->param - bti_now(in);
    if (t < 0) t = 0;
  }
  *out = t;
  return 1;
}

double bt_priority_scatter(double period, double random) { return period * 0.5 + (period * random); }

void bti_scatter(bt_inst *in) {
  const bt_def *def = in->def;
  for (uint32_t i = 0; i < def->nscatter; i++) {
    uint32_t s = def->scatter[i];
    mem_prio *m = (mem_prio *)(void *)(inst_mem(in) + def->states[s].mem);
    m->lasttime = bt_priority_scatter(def->nodes[def->states[s].node].param, bti_random(in));
    *flags_at(in, s) |= SF_LASTTIME;
  }
}

static int describe_priority(bt_inst *in, int n, bt_buf *out) {
  mem_prio *m = mem_of(in, n);
  double last = (*flags_of(in, n) & SF_LASTTIME) ? m->lasttime : 0;
  double till = last + node_at(in, n)->param - bti_now(in);
  return bt_buf_printf(out, "execute %d, eval in %2.2f", m->idx ? (int)m->idx : -1, till);
}

/* ---- ParallelNode, ParallelNodeAny: all children at once ----
 * ConditionNode children are reset and so re-tested on every visit; a child that already
 * succeeded is not visited again; the first FAILED child fails the node. */

static void visit_parallel(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  int done = 1, any_done = 0;
  for (uint32_t i = 0; i < d->nchildren; i++) {
    int c = child_at(in, n, i);
    if (node_at(in, c)->kind == BT_CONDITION) bt_node_reset(in, c);
    if (status_of(in, c) != BT_SUCCESS) {
      bt_node_visit(in, c);
      if (status_of(in, c) == BT_FAILED) {
        set_status(in, n, BT_FAILED);
        return;
      }
    }
    if (status_of(in, c) == BT_RUNNING) done = 0;
    else any_done = 1;
  }
  int any = d->kind == BT_PARALLEL_ANY;
  set_status(in, n, done || (any && any_done) ? BT_SUCCESS : BT_RUNNING);
}

/* Only resets itself, or its succeeded ConditionNode children: grandchildren keep their statuses. */
static void step_parallel(bt_inst *in, int n) {
  if (status_of(in, n) != BT_RUNNING) {
    bt_node_reset(in, n);
    return;
  }
  for (int i = 0; i < nchildren(in, n); i++) {
    int c = child_at(in, n, (uint32_t)i);
    if (status_of(in, c) == BT_SUCCESS && node_at(in, c)->kind == BT_CONDITION) bt_node_reset(in, c);
  }
}

/* ---- EventNode: READY until its event fires; then RUNNING with its child for that think ---- */

static void visit_event(bt_inst *in, int n) {
  if (status_of(in, n) == BT_READY && (*flags_of(in, n) & SF_TRIGGERED))
    set_status(in, n, BT_RUNNING);
  if (status_of(in, n) != BT_RUNNING) return;
  if (nchildren(in, n) != 1) {
    set_status(in, n, BT_FAILED);
    return;
  }
  int c = child_at(in, n, 0);
  bt_node_visit(in, c);
  set_status(in, n, status_of(in, c));
}

static void step_event(bt_inst *in, int n) {
  step_base(in, n);
  *flags_of(in, n) &= (uint8_t)~SF_TRIGGERED;
}

static void reset_event(bt_inst *in, int n) {
  *flags_of(in, n) &= (uint8_t)~SF_TRIGGERED;
  reset_base(in, n);
}

int bt_node_trigger(bt_inst *in, int n) {
  if (n < 0 || (uint32_t)n >= in->def->nnodes || node_at(in, n)->kind != BT_EVENT) return BT_EINVAL;
  if (BTI_HOOKED(in)) bti_hook_send(in, BT_HOOK_EVENT, n);
  if (status_of(in, n) == BT_RUNNING && nchildren(in, n) == 1) bt_node_reset(in, child_at(in, n, 0));
  *flags_of(in, n) |= SF_TRIGGERED;
  touch(in, state_of(in, n));
  in->settled = 0;
  return BT_OK;
}

int bt_inst_fire_event(bt_inst *in, int n) {
  int rc = bt_node_trigger(in, n);
  if (rc != BT_OK) return rc;
  for (int32_t s = in->def->states[state_of(in, n)].parent; s >= 0; s = in->def->states[s].parent)
    bti_clear_clock(in, (uint32_t)s);
  return BT_OK;
}

/* ---- LatchNode: a cooldown on entry ----
 * From READY it starts only if now > lastlatchtime + currentlatchduration; then it draws a new
 * duration and runs its child. SUCCESS and FAILED latches do nothing when visited. */

static void visit_latch(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  mem_latch *m = mem_of(in, n);
  if (status_of(in, n) == BT_READY) {
    if (bti_now(in) > m->dur + m->last) {
      m->last = bti_now(in);
      double dur = d->param;
      if ((d->flags & NF_PARAM_FN) && call_fn(in, n, d->fn, d->ud, &dur) < 0) {
        set_status(in, n, BT_FAILED);
        return;
      }
      m->dur = dur;
      set_status(in, n, BT_RUNNING);
    } else {
      set_status(in, n, BT_FAILED);
    }
  }
  if (status_of(in, n) == BT_RUNNING) {
    int c = child_at(in, n, 0);
    bt_node_visit(in, c);
    set_status(in, n, status_of(in, c));
  }
}

/* ---- TaskNode: the Starter Kit's contract ----
 * A run starts at a visit when none is under way (start, then update); later visits update. It
 * ends when update returns SUCCESS or FAILED, or when the node is reset or stopped while it is
 * under way (ABORTED); either way finish is told once. */

static void end_run(bt_inst *in, int n, bt_status how) {
  uint8_t *fl = flags_of(in, n);
  if (!(*fl & SF_STARTED)) return;
  *fl &= (uint8_t)~SF_STARTED;
  const bt_node *d = node_at(in, n);
  if (d->task && d->task->finish) {
    bt_call c = {in, n, d->ud, 0};
    d->task->finish(&c, how);
  }
}

static void visit_task(bt_inst *in, int n) {
  const bt_task *task = node_at(in, n)->task;
  void *ud = node_at(in, n)->ud;
  uint8_t *fl = flags_of(in, n);
  int r = BT_RUNNING;
  if (!(*fl & SF_STARTED)) {
    *fl |= SF_STARTED;
    if (task->start && call_fn(in, n, task->start, ud, NULL) < 0) r = BT_FAILED;
    else if (!(*fl & SF_STARTED)) return; /* start stopped or reset its own node: the run is over */
  }
  if (r == BT_RUNNING) {
    *fl &= (uint8_t)~SF_NUT; /* each update says how long it may sleep */
    r = task->update ? call_fn(in, n, task->update, ud, NULL) : BT_SUCCESS;
  }
  if (r != BT_SUCCESS && r != BT_RUNNING) r = BT_FAILED;
  set_status(in, n, (bt_status)r);
  if (r != BT_RUNNING) end_run(in, n, (bt_status)r);
}

static void reset_task(bt_inst *in, int n) {
  end_run(in, n, BT_ABORTED);
  reset_base(in, n);
}

int bt_node_abort(bt_inst *in, int n) {
  if (n < 0 || (uint32_t)n >= in->def->nnodes) return BT_EINVAL;
  if (node_at(in, n)->kind == BT_TASK) end_run(in, n, BT_ABORTED);
  return BT_OK;
}

/* ---- ActiveSelectorNode: a Selector that starts over at every visit ----
 * Each visit tries the children in order (a finished one is reset first), picks the first that is
 * RUNNING or SUCCESS, and resets every child after it: a lower child that was running is
 * interrupted by a higher one that now runs or succeeds. */

static void visit_active_selector(bt_inst *in, int n) {
  uint32_t count = node_at(in, n)->nchildren;
  for (uint32_t i = 0; i < count; i++) {
    int c = child_at(in, n, i);
    bt_status cs = visit_again(in, c);
    if (cs == BT_RUNNING || cs == BT_SUCCESS) {
      set_status(in, n, cs);
      FOR_TOUCHED_CHILD(in, n, j, i + 1) bt_node_reset(in, j);
      return;
    }
  }
  set_status(in, n, BT_FAILED);
}

/* ---- PolicyParallelNode: every child at once, ended by its policies ----
 * Each visit visits, in order, the children that have not finished. The first success ends the
 * node with SUCCESS when one success is enough, the first failure ends it with FAILED when one is
 * enough; otherwise it succeeds when all succeeded, fails when all failed or when none runs any
 * more, and runs on. Children that finished keep their status until the node ends. */

static void visit_policy_parallel(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  int one_success = d->flags & NF_SUCCESS_ONE, all_failures = d->flags & NF_FAILURE_ALL;
  uint32_t succeeded = 0, failed = 0;
  for (uint32_t i = 0; i < d->nchildren; i++) {
    int c = child_at(in, n, i);
    bt_status cs = status_of(in, c);
    if (cs != BT_SUCCESS && cs != BT_FAILED) {
      bt_node_visit(in, c);
      cs = status_of(in, c);
    }
    if (cs == BT_SUCCESS) {
      succeeded++;
      if (one_success) {
        set_status(in, n, BT_SUCCESS);
        return;
      }
    } else if (cs == BT_FAILED) {
      failed++;
      if (!all_failures) {
        set_status(in, n, BT_FAILED);
        return;
      }
    }
  }
  bt_status s = BT_RUNNING;
  if (all_failures && failed == d->nchildren) s = BT_FAILED;
  else if (succeeded == d->nchildren) s = BT_SUCCESS;
  else if (succeeded + failed == d->nchildren) s = BT_FAILED;
  set_status(in, n, s);
}

/* While it runs, Step leaves its finished children as they are (so they are not run again) and
 * steps the running ones. */
static void step_policy_parallel(bt_inst *in, int n) {
  if (status_of(in, n) != BT_RUNNING) {
    bt_node_reset(in, n);
    return;
  }
  for (uint32_t i = 0; i < node_at(in, n)->nchildren; i++) {
    int c = child_at(in, n, i);
    if (status_of(in, c) == BT_RUNNING) bt_node_step(in, c);
  }
}

/* ---- MonitorNode: guards re-checked at every visit ----
 * Every child but the last is a condition: at each visit each is reset if it finished and
 * visited again, and the first that fails ends the node with FAILED (its last child, if it was
 * running, is then interrupted). Otherwise the last child is visited and gives the status. */

static void visit_monitor(bt_inst *in, int n) {
  uint32_t count = node_at(in, n)->nchildren;
  for (uint32_t i = 0; i + 1 < count; i++) {
    int c = child_at(in, n, i);
    if (visit_again(in, c) == BT_FAILED) {
      set_status(in, n, BT_FAILED);
      return;
    }
  }
  int last = child_at(in, n, count - 1);
  bt_node_visit(in, last);
  set_status(in, n, status_of(in, last));
}

/* ---- RepeatNode: its child param times (nil: for ever), a pass per visit ----
 * A success counts a pass; until the count is reached the child is reset and the node stays
 * RUNNING, asking for the next think at once (sleep time 0). A failure fails the node. */

static void visit_repeat(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  mem_seq *m = mem_of(in, n);
  if (status_of(in, n) != BT_RUNNING) m->rep = 0;
  int c = child_at(in, n, 0);
  bt_node_visit(in, c);
  bt_status cs = status_of(in, c);
  if (cs != BT_SUCCESS) {
    set_status(in, n, cs);
    return;
  }
  m->rep++;
  if (!(d->flags & NF_NIL_PARAM) && (double)m->rep >= d->param) {
    set_status(in, n, BT_SUCCESS);
    return;
  }
  bt_node_reset(in, c);
  set_status(in, n, BT_RUNNING);
}

static int sleep_repeat(bt_inst *in, int n, double *out) {
  if (status_of(in, n) != BT_RUNNING || status_of(in, child_at(in, n, 0)) == BT_RUNNING) return 0;
  *out = 0;
  return 1;
}

static int describe_rep(bt_inst *in, int n, bt_buf *out) {
  return bt_buf_printf(out, "%u", (unsigned)((mem_seq *)mem_of(in, n))->rep);
}

/* ---- CooldownDecorator: after its child ran, FAILED for param seconds ----
 * The cooldown starts when the child ends, or when the node is interrupted while it runs; until
 * then (SF_WAKE clear) the node may run. */

static void cool_down(bt_inst *in, int n, double now) {
  ((mem_wait *)mem_of(in, n))->wake = now + node_at(in, n)->param;
  *flags_of(in, n) |= SF_WAKE;
}

static void visit_cooldown(bt_inst *in, int n) {
  mem_wait *m = mem_of(in, n);
  double now = bti_now(in);
  if (status_of(in, n) != BT_RUNNING && (*flags_of(in, n) & SF_WAKE) && now < m->wake) {
    set_status(in, n, BT_FAILED);
    return;
  }
  int c = child_at(in, n, 0);
  bt_node_visit(in, c);
  bt_status cs = status_of(in, c);
  if (cs != BT_RUNNING) cool_down(in, n, now);
  set_status(in, n, cs);
}

static void reset_cooldown(bt_inst *in, int n) {
  if (status_of(in, n) == BT_RUNNING) cool_down(in, n, bti_now(in));
  reset_base(in, n);
}

/* The seconds until it may run again (0 when it may). */
static int describe_cooldown(bt_inst *in, int n, bt_buf *out) {
  double t = (*flags_of(in, n) & SF_WAKE) ? ((mem_wait *)mem_of(in, n))->wake - bti_now(in) : 0;
  return bt_buf_printf(out, "%2.2f", t > 0 ? t : 0);
}

/* ---- TimeoutDecorator: FAILED when its child has run param seconds ----
 * Entering it sets a deadline; a visit at or after it fails the node without visiting the child,
 * which is then interrupted. While it runs it sleeps until the deadline at most. */

static void visit_timeout(bt_inst *in, int n) {
  mem_wait *m = mem_of(in, n);
  double now = bti_now(in);
  if (status_of(in, n) != BT_RUNNING) m->wake = now + node_at(in, n)->param;
  if (now >= m->wake) {
    set_status(in, n, BT_FAILED);
    return;
  }
  int c = child_at(in, n, 0);
  bt_node_visit(in, c);
  set_status(in, n, status_of(in, c));
}

static int sleep_timeout(bt_inst *in, int n, double *out) {
  if (status_of(in, n) != BT_RUNNING) return 0;
  double t = ((mem_wait *)mem_of(in, n))->wake - bti_now(in);
  *out = t > 0 ? t : 0;
  return 1;
}

/* The seconds left. */
static int describe_timeout(bt_inst *in, int n, bt_buf *out) {
  double t = ((mem_wait *)mem_of(in, n))->wake - bti_now(in);
  return bt_buf_printf(out, "%2.2f", t > 0 ? t : 0);
}

/* ---- WatchNode: a condition on blackboard keys, and the branch it guards ----
 * Entered, it fails when its condition is false, else it runs its child (a WatchNode without
 * one succeeds). While it runs it checks its condition again at each visit only if it aborts
 * itself (BT_SPEC_ABORT_SELF): false, its child is reset (a task is told BT_ABORTED) and it
 * fails. What a write does between thinks is board.c's (observe). */

static void visit_watch(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  int running = status_of(in, n) == BT_RUNNING;
  if ((!running || (d->flags & NF_ABORT_SELF)) && !bti_watch_holds(in, n)) {
    if (running && d->nchildren) bt_node_reset(in, child_at(in, n, 0));
    set_status(in, n, BT_FAILED);
    return;
  }
  if (!d->nchildren) {
    set_status(in, n, BT_SUCCESS);
    return;
  }
  int c = child_at(in, n, 0);
  bt_node_visit(in, c);
  set_status(in, n, status_of(in, c));
}

/* Its DBString: its condition and abort mode, "hunger > 0.7, abort lower", "night is true";
 * a function's condition names the keys it reads: "a function of hunger, night". */
static int describe_watch(bt_inst *in, int n, bt_buf *out) {
  const bt_def *def = in->def;
  const bt_node *d = node_at(in, n);
  const bti_watch *w = d->ud2;
  if (w && w->key >= 0) {
    bt_buf_printf(out, "%s %s", def->keys[w->key].name, bt_cmp_name(w->cmp));
    const bt_value *v = &w->value;
    int valued = w->cmp != BT_CMP_TRUE && w->cmp != BT_CMP_SET && w->cmp != BT_CMP_UNSET;
    if (valued && v->type == BT_KEY_NUMBER) bt_buf_printf(out, " %.14g", v->as.number);
    else if (valued && v->type == BT_KEY_INTEGER) bt_buf_printf(out, " %lld", v->as.integer);
    else if (valued && v->type == BT_KEY_BOOLEAN) bt_buf_printf(out, " %s", v->as.boolean ? "true" : "false");
    else if (valued && v->type == BT_KEY_STRING) bt_buf_printf(out, " \"%s\"", v->as.string);
    else if (valued && v->type == BT_KEY_ENTITY) bt_buf_printf(out, " entity %llu", v->as.entity);
  } else {
    bt_buf_printf(out, "a function");
    int ports = bt_def_port_count(def, n), first = 1;
    for (int i = 0; i < ports; i++) {
      int key;
      unsigned how;
      if (bt_def_port(def, n, i, &key, &how) != BT_OK || !(how & BT_PORT_READ)) continue;
      bt_buf_printf(out, "%s%s", first ? " of " : ", ", def->keys[key].name);
      first = 0;
    }
  }
  int self = (d->flags & NF_ABORT_SELF) != 0, lower = (d->flags & NF_ABORT_LOWER) != 0;
  if (self || lower) bt_buf_printf(out, ", abort %s", self && lower ? "both" : self ? "self" : "lower");
  return out->err;
}

/* Whether a method of the class of `kind` may apply to node n: kind is n's kind or a base of its
 * class. */
static int compatible(const bt_inst *in, int n, int kind) {
  for (int k = node_at(in, n)->kind; k >= 0; k = bti_kinds[k].info.base)
    if (k == kind) return 1;
  return 0;
}

static int valid(const bt_inst *in, int n) { return n >= 0 && (uint32_t)n < in->def->nnodes; }

/* Whether the node has what the kind's own visit needs: the child of a kind that takes one,
 * the functions of a leaf. bt_def_create lets a node whose bt_ops has a visit go without them. */
static int can_visit(const bt_inst *in, int n, int kind) {
  const bt_node *d = node_at(in, n);
  const bti_kind *k = &bti_kinds[kind];
  if ((k->children == BTI_ONE || k->children == BTI_SOME) && d->nchildren == 0) return 0;
  if (k->param == BTI_TIME_FN && (d->flags & NF_PARAM_FN) && !d->fn) return 0;
  switch (k->fn) {
    case BTI_TASK: return d->task != NULL;
    case BTI_FN: return d->fn != NULL;
    case BTI_FN2: return d->fn != NULL && d->fn2 != NULL;
    default: return 1;
  }
}

/* Kinds whose visit leaves them READY only as they were (without memory, or always ending in
 * another status, which marks them touched): the others may change their memory and stay READY
 * (a LoopNode's pass), so their visit marks them touched first. */
#define UNTOUCHED_VISIT                                                                         \
  ((1u << BT_SEQUENCE) | (1u << BT_SELECTOR) | (1u << BT_PARALLEL) | (1u << BT_PARALLEL_ANY) |  \
   (1u << BT_CONDITION) | (1u << BT_CONDITIONWAIT) | (1u << BT_ACTION) | (1u << BT_NOT) |       \
   (1u << BT_FAILIFRUNNING) | (1u << BT_FAILIFSUCCESS))

static void visit_kind(bt_inst *in, int n, const bt_node *d, int kind) {
  if (!(UNTOUCHED_VISIT >> kind & 1)) touch_node(in, d);
  switch (kind) {
    case BT_SEQUENCE: visit_sequence(in, d); break;
    case BT_SELECTOR: visit_selector(in, d); break;
    case BT_PRIORITY: visit_priority(in, n, d); break;
    case BT_PARALLEL:
    case BT_PARALLEL_ANY: visit_parallel(in, n); break;
    case BT_LOOP: visit_loop(in, n, d); break;
    case BT_RANDOM: visit_random(in, n); break;
    case BT_CONDITION: visit_condition(in, n, d); break;
    case BT_MULTICONDITION: visit_multicondition(in, n, d); break;
    case BT_CONDITIONWAIT: visit_conditionwait(in, n, d); break;
    case BT_ACTION: visit_action(in, n, d); break;
    case BT_WAIT: visit_wait(in, n, d); break;
    case BT_NOT:
    case BT_FAILIFRUNNING:
    case BT_FAILIFSUCCESS:
    case BT_SUCCEED:
    case BT_FAIL: visit_decorator(in, d, kind); break;
    case BT_EVENT: visit_event(in, n); break;
    case BT_LATCH: visit_latch(in, n); break;
    case BT_TASK: visit_task(in, n); break;
    case BT_ACTIVE_SELECTOR: visit_active_selector(in, n); break;
    case BT_POLICY_PARALLEL: visit_policy_parallel(in, n); break;
    case BT_MONITOR: visit_monitor(in, n); break;
    case BT_REPEAT: visit_repeat(in, n); break;
    case BT_COOLDOWN: visit_cooldown(in, n); break;
    case BT_TIMEOUT: visit_timeout(in, n); break;
    case BT_SUBTREE: visit_decorator(in, d, kind); break; /* passes its child's status on */
    case BT_WATCH: visit_watch(in, n); break;
    default: visit_base(in, n); break;
  }
}

static inline void reset_kind(bt_inst *in, int n, int kind) {
  switch (kind) {
    case BT_EVENT: reset_event(in, n); break;
    case BT_TASK: reset_task(in, n); break;
    case BT_COOLDOWN: reset_cooldown(in, n); break;
    case BT_BEHAVIOUR: reset_base(in, n); break;
    default: reset_rewind(in, n); break;
  }
}

static inline void step_kind(bt_inst *in, int n, int kind) {
  switch (kind) {
    case BT_PARALLEL:
    case BT_PARALLEL_ANY: step_parallel(in, n); break;
    case BT_EVENT: step_event(in, n); break;
    case BT_POLICY_PARALLEL: step_policy_parallel(in, n); break;
    default: step_base(in, n); break;
  }
}

static int sleep_kind(bt_inst *in, int n, int kind, double *out) {
  switch (kind) {
    case BT_PRIORITY: return sleep_priority(in, n, out);
    case BT_REPEAT: return sleep_repeat(in, n, out);
    case BT_TIMEOUT: return sleep_timeout(in, n, out);
    default: return sleep_base(in, n, out);
  }
}

static int describe_kind(bt_inst *in, int n, int kind, bt_buf *out) {
  switch (kind) {
    case BT_PRIORITY: return describe_priority(in, n, out);
    case BT_SEQUENCE:
    case BT_SELECTOR:
    case BT_LOOP: return describe_idx(in, n, out);
    case BT_WAIT: return describe_wait(in, n, out);
    case BT_REPEAT: return describe_rep(in, n, out);
    case BT_COOLDOWN: return describe_cooldown(in, n, out);
    case BT_TIMEOUT: return describe_timeout(in, n, out);
    case BT_WATCH: return describe_watch(in, n, out);
    default: return bt_buf_append(out, "", 0);
  }
}

/* ---- dispatch: the node's ops first, as a Lua override would be ---- */

/* Visits n and returns its status after the visit. */
/* The visit of a node whose bt_ops has a visit: the override first, as a Lua override. */
static BTI_NOINLINE bt_status visit_hooked(bt_inst *in, int n, const bt_node *d) {
  touch_node(in, d);
  bt_call c = make_call(in, n);
  if (d->ops->visit(&c) != BT_DEFAULT) return node_status(in, d);
  if (!can_visit(in, n, d->kind)) { /* the override deferred to a visit the node cannot do */
    set_node_status(in, d, BT_FAILED);
    return BT_FAILED;
  }
  visit_kind(in, n, d, d->kind);
  return node_status(in, d);
}

/* The visit of the kinds visit() does not do itself; out of line, so that visit stays small. */
static BTI_NOINLINE bt_status visit_other(bt_inst *in, int n, const bt_node *d) {
  visit_kind(in, n, d, d->kind);
  return node_status(in, d);
}

/* Visits n and returns its status after the visit. The kinds of most nodes of most trees are
 * visited here directly (as visit_kind would: they need no touch first). */
static bt_status visit(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  in->hint = (uint32_t)n;
  if (d->hooks & HOOK_VISIT) return visit_hooked(in, n, d);
  switch (d->kind) {
    case BT_CONDITION: visit_condition(in, n, d); break;
    case BT_ACTION: visit_action(in, n, d); break;
    case BT_SEQUENCE: visit_sequence(in, d); break;
    case BT_SELECTOR: visit_selector(in, d); break;
    default: return visit_other(in, n, d);
  }
  return node_status(in, d);
}

void bt_node_visit(bt_inst *in, int n) { visit(in, n); }

/* ---- the visit of a small plain tree (bt_def.small_plain) ----
 * The same visit as visit()'s for its four kinds, with what a tree of one chunk without bt_ops
 * lets go: no hooks to look for, no summaries and no dirty word to mark, and `hint`, which only a
 * tree too large to prefetch whole reads, left alone. Statuses, child indices, touched bits, the
 * recorder's records and the leaf calls are the same, in the same order. */

static bt_status visit_small(bt_inst *in, const bt_node *nodes, const bt_node *d);

static inline void set_small_status(bt_inst *in, const bt_node *d, bt_status s) {
  uint8_t *status = inst_mem(in) + d->soff;
  if (*status == s) return;
  hook_status(in, d, *status, s);
  if (s != BT_READY) *word_at(in, d->touched) |= d->mask;
  *status = (uint8_t)s;
  in->unsaved = 1; /* (and `settled` is cleared once, by bti_think_small) */
}

/* A Condition or an Action (node n, at d): its function, then its status. */
static inline bt_status visit_small_leaf(bt_inst *in, uint32_t n, const bt_node *d) {
  bt_call c = {in, (int)n, d->ud, 0};
  int r = d->fn(&c);
  if (d->kind == BT_CONDITION) set_small_status(in, d, r > 0 ? BT_SUCCESS : BT_FAILED);
  else set_small_status(in, d, r < 0 ? BT_FAILED : BT_SUCCESS);
  return node_status(in, d);
}

/* A Sequence (stop at FAILED, end in SUCCESS) or a Selector (stop at SUCCESS, end in FAILED); its
 * leaves are visited here, without a call of their own. */
static inline bt_status visit_small_composite(bt_inst *in, const bt_node *nodes, const bt_node *d,
                                              bt_status stop) {
  mem_idx *m = kind_mem(in, d);
  const uint32_t *kids = kids_of(in, d);
  if (node_status(in, d) != BT_RUNNING || m->idx == 0) m->idx = 1;
  bt_status s = stop == BT_FAILED ? BT_SUCCESS : BT_FAILED;
  while (m->idx <= d->nchildren) {
    uint32_t child = kids[m->idx - 1];
    const bt_node *cd = &nodes[child];
    bt_status cs =
        cd->flags & NF_LEAF ? visit_small_leaf(in, child, cd) : visit_small(in, nodes, cd);
    if (cs == BT_RUNNING || cs == stop) {
      s = cs;
      break;
    }
    m->idx++;
  }
  set_small_status(in, d, s);
  return node_status(in, d);
}

static bt_status visit_small(bt_inst *in, const bt_node *nodes, const bt_node *d) {
  if (d->kind == BT_SEQUENCE) return visit_small_composite(in, nodes, d, BT_FAILED);
  return visit_small_composite(in, nodes, d, BT_SUCCESS);
}

/* The Reset of a node without a Reset or Step of the host's: reset_kind's, with the common kinds
 * (those whose reset is the base's, plus rewinding their child indices and counters) done here in
 * one piece, and their touched children reset the same way. */
#define OWN_RESET ((1u << BT_EVENT) | (1u << BT_TASK) | (1u << BT_COOLDOWN)) /* reset_kind's own */

static void reset_plain(bt_inst *in, const bt_node *d);

/* reset_plain of the nodes [i, end) of a tree whose nodes have no Reset or Step of the host's,
 * walked in pre-order instead of recursively: a node the recursion would not reach (an untouched
 * child, or any child of a node already READY) is passed over with its whole subtree, a node with
 * many children goes through reset_plain (which scans their touched bits a word at a time). The
 * writes are the recursion's, but a node's rewinds come before its children's resets: only a
 * TaskNode's abort, which calls the host, could tell, and trees with one are not walked
 * (bt_def.walk_reset). With one chunk (one_chunk, a constant where it is inlined) its
 * touched word stays in a register for the walk (and it has no dirty word). */
static inline void reset_walk_in(bt_inst *in, uint32_t i, uint32_t end, int one_chunk) {
  const bt_node *nodes = in->def->nodes;
  unsigned char *mem = inst_mem(in);
  uint64_t *tword = touched_word(in, 0), touched = *tword;
  int first = 1, changed = 0;
  while (i < end) {
    const bt_node *d = &nodes[i];
    if (!first && !(one_chunk ? (touched & d->mask) != 0 : node_touched(in, d))) {
      i = d->end;
      continue;
    }
    first = 0;
    if (OWN_RESET >> d->kind & 1 || d->nchildren > SCAN_CHILDREN) {
      if (one_chunk) *tword = touched;
      reset_plain(in, d);
      if (one_chunk) touched = *tword;
      i = d->end;
      continue;
    }
    if (one_chunk) touched &= ~d->mask;
    else untouch_node(in, d);
    for (int r = 0; r < d->rewinds; r++) put_u32(mem + d->mem + d->rewind_off[r], d->rewind_val[r]);
    if (mem[d->soff] != BT_READY) {
      hook_status(in, d, mem[d->soff], BT_READY);
      mem[d->soff] = BT_READY;
      if (one_chunk) changed = 1; /* (no dirty word) */
      else mark_dirty_node(in, d);
      i++;
    } else {
      i = d->end;
    }
  }
  if (one_chunk) {
    if (changed) in->unsaved = 1;
    *tword = touched;
  }
}

/* reset_walk_in of a small plain tree (bt_def.small_plain): its kinds have the base's Reset, a
 * Sequence's and a Selector's idx rewound to 1, and a node with many children is walked as the
 * others (reset_plain would scan for the same children), so every node is done here. */
static void reset_small(bt_inst *in, uint32_t i, uint32_t end) {
  const bt_node *nodes = in->def->nodes;
  unsigned char *mem = inst_mem(in);
  uint64_t *tword = touched_word(in, 0), touched = *tword;
  int changed = 0;
  while (i < end) {
    const bt_node *d = &nodes[i];
    touched &= ~d->mask;
    if (!(d->flags & NF_LEAF)) put_u32(mem + d->mem, 1); /* a Sequence's or Selector's idx */
    if (mem[d->soff] != BT_READY) {
      hook_status(in, d, mem[d->soff], BT_READY);
      mem[d->soff] = BT_READY;
      changed = 1;
      i++;
    } else {
      i = d->end;
    }
    while (i < end && !(touched & nodes[i].mask)) i = nodes[i].end;
  }
  if (changed) in->unsaved = 1;
  *tword = touched;
}

static void reset_walk(bt_inst *in, uint32_t i, uint32_t end) {
  if (in->def->small_plain) reset_small(in, i, end);
  else if (in->def->nwords == 1) reset_walk_in(in, i, end, 1);
  else reset_walk_in(in, i, end, 0);
}

static void reset_plain(bt_inst *in, const bt_node *d) {
  const bt_def *def = in->def;
  /* cleared first: whatever the Reset of a child written in Lua does to this node marks it again */
  untouch_node(in, d);
  in->settled = 0;
  if (OWN_RESET >> d->kind & 1) {
    reset_kind(in, (int)(d - def->nodes), d->kind);
    return;
  }
  unsigned char *mem = inst_mem(in);
  if (mem[d->soff] != BT_READY) {
    hook_status(in, d, mem[d->soff], BT_READY);
    mem[d->soff] = BT_READY;
    mark_dirty_node(in, d);
    if (d->nchildren > def->scan_children) {
      int n = (int)(d - def->nodes);
      FOR_TOUCHED_CHILD(in, n, c, 0) bt_node_reset(in, c);
    } else {
      const uint32_t *kids = def->kids + d->children;
      for (uint32_t i = 0; i < d->nchildren; i++) {
        const bt_node *cd = &def->nodes[kids[i]];
        if (!node_touched(in, cd)) continue;
        if (has_own_reset(cd)) bt_node_reset(in, (int)kids[i]);
        else reset_plain(in, cd);
      }
    }
  }
  for (int i = 0; i < d->rewinds; i++) put_u32(mem + d->mem + d->rewind_off[i], d->rewind_val[i]);
}

void bt_node_reset(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  if (!has_own_reset(d)) {
    if (in->def->walk_reset) {
      in->settled = 0;
      reset_walk(in, (uint32_t)n, d->end);
    } else {
      reset_plain(in, d);
    }
    return;
  }
  if (d->hooks & HOOK_RESET) {
    bt_call c = make_call(in, n);
    if (d->ops->reset(&c) != BT_DEFAULT) return;
  }
  reset_kind(in, n, d->kind);
}

void bti_think_small(bt_inst *in) {
  const bt_node *nodes = in->def->nodes;
  /* unsaved, which nothing reads during a visit, tells whether a status changed: then settled is
   * cleared, as set_node_status clears it at each change */
  uint8_t was = in->unsaved;
  in->unsaved = 0;
  if (nodes->flags & NF_LEAF) visit_small_leaf(in, 0, nodes);
  else visit_small(in, nodes, nodes);
  if (in->unsaved) in->settled = 0;
  if (in->unsaved | was) { /* inst.c's save_all, for one chunk */
    in->unsaved = 0;
    bti_save_chunk((unsigned char *)(touched_word(in, 0) + 1), in->def->nstates);
  }
  if (BTI_HOOKED(in)) bti_hook_send(in, BT_HOOK_SAVED, -1);
  if (in->settled) return;
  if (node_status(in, nodes) == BT_RUNNING) bt_node_step(in, 0);
  else reset_small(in, 0, nodes->end); /* bt_node_step's: step_base resets the root */
  in->settled = (uint8_t)in->def->plain_step;
}

void bt_node_step(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  if (d->hooks & HOOK_STEP) {
    bt_call c = make_call(in, n);
    if (d->ops->step(&c) != BT_DEFAULT) return;
  }
  step_kind(in, n, d->kind);
}

int bt_node_sleep_time(bt_inst *in, int n, double *out) {
  const bt_node *d = node_at(in, n);
  if (d->ops && d->ops->sleep_time) {
    bt_call c = make_call(in, n);
    int r = d->ops->sleep_time(&c);
    if (r != BT_DEFAULT) {
      if (r == 1) *out = c.value;
      return r == 1;
    }
  }
  return sleep_kind(in, n, d->kind, out);
}

int bt_node_describe(bt_inst *in, int n, bt_buf *out) {
  const bt_node *d = node_at(in, n);
  if (d->ops && d->ops->describe) {
    bt_call c = make_call(in, n);
    int r = d->ops->describe(&c, out);
    if (r != BT_DEFAULT) return r;
  }
  return describe_kind(in, n, d->kind, out);
}

void bt_node_stop(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  if (d->ops && d->ops->on_stop) {
    bt_call c = make_call(in, n);
    d->ops->on_stop(&c);
  }
  if (d->kind == BT_TASK) end_run(in, n, BT_ABORTED);
  for (uint32_t i = 0; i < d->nchildren; i++) bt_node_stop(in, child_at(in, n, i));
}

void bt_node_save_status(bt_inst *in, int n) {
  uint32_t st = state_of(in, n);
  set_last(in, st, *status_at(in, st));
  for (int i = 0; i < nchildren(in, n); i++) bt_node_save_status(in, child_at(in, n, (uint32_t)i));
}

int bt_node_tree_sleep_time(bt_inst *in, int n, double *out) {
  int has = 0;
  double best = 0, t;
  for (int i = 0; i < nchildren(in, n); i++) {
    int c = child_at(in, n, (uint32_t)i);
    if (status_of(in, c) == BT_RUNNING && bt_node_tree_sleep_time(in, c, &t) && (!has || best > t)) {
      best = t;
      has = 1;
    }
  }
  if (bt_node_sleep_time(in, n, &t) && (!has || best > t)) {
    best = t;
    has = 1;
  }
  if (has) *out = best;
  return has;
}

int bt_node_string(bt_inst *in, int n, bt_buf *out) {
  bt_status s = status_of(in, n);
  bt_buf_printf(out, "%s - %s <%s> (", in->def->names + node_at(in, n)->name, bt_status_name(s),
                bt_status_name(last_of(in, state_of(in, n))));
  if (s == BT_RUNNING) bt_node_describe(in, n, out);
  return bt_buf_append(out, ")", 1);
}

int bt_node_tree_string(bt_inst *in, int n, const char *indent, bt_buf *out) {
  bt_buf_printf(out, "%s", indent);
  bt_node_string(in, n, out);
  double t = 0;
  if (!bt_node_tree_sleep_time(in, n, &t)) t = 0;
  bt_buf_printf(out, ">%2.2f\n", t);
  if (nchildren(in, n) == 0) return out->err;
  bt_buf deeper = {0};
  bt_buf_printf(&deeper, "%s   >", indent);
  if (deeper.err) return out->err = deeper.err;
  for (int i = 0; i < nchildren(in, n); i++)
    bt_node_tree_string(in, child_at(in, n, (uint32_t)i), deeper.data, out);
  bt_buf_free(&deeper);
  return out->err;
}

/* ---- base-class calls, bypassing ops ---- */

int bt_node_visit_as(bt_inst *in, int n, int kind) {
  if (!valid(in, n) || !compatible(in, n, kind)) return BT_EINVAL;
  kind = kind == BT_BEHAVIOUR ? BT_BEHAVIOUR : node_at(in, n)->kind;
  if (!can_visit(in, n, kind)) return BT_EINVAL;
  visit_kind(in, n, node_at(in, n), kind);
  return BT_OK;
}

int bt_node_reset_as(bt_inst *in, int n, int kind) {
  if (!valid(in, n) || !compatible(in, n, kind)) return BT_EINVAL;
  reset_kind(in, n, kind == BT_BEHAVIOUR ? BT_BEHAVIOUR : node_at(in, n)->kind);
  return BT_OK;
}

int bt_node_step_as(bt_inst *in, int n, int kind) {
  if (!valid(in, n) || !compatible(in, n, kind)) return BT_EINVAL;
  step_kind(in, n, kind == BT_BEHAVIOUR ? BT_BEHAVIOUR : node_at(in, n)->kind);
  return BT_OK;
}

int bt_node_sleep_time_as(bt_inst *in, int n, int kind, double *out) {
  if (!valid(in, n) || !compatible(in, n, kind)) return BT_EINVAL;
  return sleep_kind(in, n, kind == BT_BEHAVIOUR ? BT_BEHAVIOUR : node_at(in, n)->kind, out);
}

int bt_node_describe_as(bt_inst *in, int n, int kind, bt_buf *out) {
  if (!valid(in, n) || !compatible(in, n, kind)) return BT_EINVAL;
  return describe_kind(in, n, kind == BT_BEHAVIOUR ? BT_BEHAVIOUR : node_at(in, n)->kind, out);
}

bt_status bt_node_status(const bt_inst *in, int n) { return status_of(in, n); }

bt_status bt_node_last(const bt_inst *in, int n) { return (bt_status)last_of(in, state_of(in, n)); }

void bt_node_set_status(bt_inst *in, int n, bt_status s) {
  if (s < BT_READY || s > BT_RUNNING) return;
  set_status(in, n, s);
  touch(in, state_of(in, n));
  in->settled = 0;
}
