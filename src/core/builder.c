/* SPDX-License-Identifier: MIT */
/*
 * builder.c: trees from code in the fluent style of the Behaviour Tree Starter Kit
 * (sequence() ... back() ... end()), over a bt_graph. The builder keeps the open nodes as a
 * stack, and the children gathered so far for each of them in one array, innermost last; back()
 * gives the innermost node its children. The first error sticks, as in bt_buf.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct open_node {
  int id;
  int first; /* where its children start in kids */
} open_node;

struct bt_builder {
  bt_graph *g; /* made on first use */
  int root;    /* -1 until the first node */
  open_node *open;
  int nopen, capopen;
  int *kids;
  int nkids, capkids;
  int err;
  char msg[256];
};

#define fail(b, code, ...) ((b)->err = bti_fail((b)->msg, sizeof (b)->msg, code, __VA_ARGS__))

static void clear(bt_builder *b) {
  bt_graph_free(b->g);
  b->g = NULL;
  b->root = -1;
  b->nopen = b->nkids = 0;
  b->err = BT_OK;
}

int bt_builder_create(bt_builder **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  if (!*out) return BT_ENOMEM;
  (*out)->root = -1;
  return BT_OK;
}

void bt_builder_free(bt_builder *b) {
  if (!b) return;
  bt_graph_free(b->g);
  free(b->open);
  free(b->kids);
  free(b);
}

const char *bt_builder_errmsg(const bt_builder *b) { return b ? b->msg : "no builder"; }

/* "SequenceNode" -> "Sequence": how messages name a kind */
static void kind_label(int kind, char *out, size_t size) {
  const char *k = bt_kind_name(kind);
  size_t len = k ? strlen(k) : 0;
  if (!k) snprintf(out, size, "node of kind %d", kind);
  else if (len > 4 && strcmp(k + len - 4, "Node") == 0) snprintf(out, size, "%.*s", (int)(len - 4), k);
  else snprintf(out, size, "%s", k);
}

/* Whether a spec makes a node with children (opened) rather than a leaf. */
static int takes_children(const bt_spec *s) {
  switch (bti_kinds[s->kind].children) {
    case BTI_LEAF:
    case BTI_NAMED: return 0;
    case BTI_OPTIONAL: return (s->flags & BT_SPEC_CHILDREN) != 0;
    default: return 1;
  }
}

/* Whether name is the name of the node id. */
static int named(const bt_builder *b, int id, const char *name) {
  return strcmp(bti_graph_spec(b->g, id)->name, name) == 0;
}

/* Where a node named name, added now, stands: its path from the root, names joined by '/', a
 * name that siblings share numbered "#k" as every path is (its siblings so far come before it),
 * or "the root". */
static void where(const bt_builder *b, const char *name, char *out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  if (b->nopen == 0) {
    snprintf(out, size, "the root");
    return;
  }
  for (int i = 0; i <= b->nopen && len < size; i++) {
    /* the i-th node of the path, and its siblings before it: kids[from, to) */
    const char *n = i < b->nopen ? bti_graph_spec(b->g, b->open[i].id)->name : name;
    int from = i > 0 ? b->open[i - 1].first : 0, to = i == 0 ? 0 : i < b->nopen ? b->open[i].first - 1 : b->nkids;
    int same = 1;
    for (int k = from; k < to; k++) same += named(b, b->kids[k], n);
    len += (size_t)snprintf(out + len, size - len, same > 1 ? "%s%s#%d" : "%s%s", i ? "/" : "", n, same);
  }
}

static int add(bt_builder *b, const bt_spec *spec, int opens, const char *fname) {
  if (b->err) return b->err;
  char label[64];
  if (!spec || spec->kind < 0 || spec->kind >= BT_KIND_COUNT)
    return fail(b, BT_EINVAL, "%s: bad node kind %d", fname, spec ? spec->kind : -1);
  kind_label(spec->kind, label, sizeof label);
  if (opens && !takes_children(spec))
    return fail(b, BT_EINVAL, "%s: a %s is a leaf (add it with bt_builder_leaf)", fname, label);
  if (!opens && takes_children(spec))
    return fail(b, BT_EINVAL, "%s: a %s takes children (open it with bt_builder_open)", fname, label);
  if (b->nopen == 0 && b->root >= 0)
    return fail(b, BT_EINVAL, "%s: a second root ('%s'): the root is closed already", fname,
                spec->name ? spec->name : bt_kind_default_name(spec->kind));
  const char *lacks = bti_spec_lacks(spec);
  if (lacks) {
    const char *name = spec->name ? spec->name : bt_kind_default_name(spec->kind);
    char path[160];
    where(b, name, path, sizeof path);
    return fail(b, BT_EINVAL, "%s: %s '%s' (%s) needs %s", fname, label, name, path, lacks);
  }
  if (!b->g && bt_graph_create(&b->g) != BT_OK) return fail(b, BT_ENOMEM, "%s: out of memory", fname);
  if (bti_grow((void **)&b->kids, &b->capkids, b->nkids + 1, sizeof *b->kids) ||
      bti_grow((void **)&b->open, &b->capopen, b->nopen + 1, sizeof *b->open))
    return fail(b, BT_ENOMEM, "%s: out of memory", fname);
  int id = bt_graph_add(b->g, spec);
  if (id < 0) return fail(b, id, "%s", bt_graph_errmsg(b->g));
  if (b->nopen > 0) b->kids[b->nkids++] = id;
  else b->root = id;
  if (opens) b->open[b->nopen++] = (open_node){id, b->nkids};
  return BT_OK;
}

int bt_builder_open(bt_builder *b, const bt_spec *spec) {
  return b ? add(b, spec, 1, "bt_builder_open") : BT_EINVAL;
}

int bt_builder_leaf(bt_builder *b, const bt_spec *spec) {
  return b ? add(b, spec, 0, "bt_builder_leaf") : BT_EINVAL;
}

/* Whether a node of spec may be closed with count children. */
static int check_count(bt_builder *b, const bt_spec *s, int count) {
  char label[64];
  kind_label(s->kind, label, sizeof label);
  if (s->ops && s->ops->visit) return BT_OK; /* its own visit decides what its children mean */
  switch (bti_kinds[s->kind].children) {
    case BTI_OPTIONAL: return BT_OK;
    case BTI_ONE:
      if (count == 1) return BT_OK;
      return fail(b, BT_EINVAL, "bt_builder_back: %s '%s' needs exactly one child, it has %d", label,
                  s->name, count);
    case BTI_AT_MOST_ONE:
      if (count <= 1) return BT_OK;
      return fail(b, BT_EINVAL, "bt_builder_back: %s '%s' takes at most one child, it has %d", label,
                  s->name, count);
    default:
      if (count > 0) return BT_OK;
      return fail(b, BT_EINVAL, "bt_builder_back: %s '%s' has no children", label, s->name);
  }
}

int bt_builder_back(bt_builder *b) {
  if (!b) return BT_EINVAL;
  if (b->err) return b->err;
  if (b->nopen == 0) return fail(b, BT_EINVAL, "bt_builder_back: nothing is open");
  open_node o = b->open[b->nopen - 1];
  int count = b->nkids - o.first;
  int rc = check_count(b, bti_graph_spec(b->g, o.id), count);
  if (rc) return rc;
  rc = bt_graph_set_children(b->g, o.id, b->kids + o.first, count);
  if (rc) return fail(b, rc, "%s", bt_graph_errmsg(b->g));
  b->nkids = o.first;
  b->nopen--;
  return BT_OK;
}

/* Names the open nodes below the root, outermost first: "Sequence 'a', Not 'Not'". */
static int still_open(bt_builder *b) {
  char list[200] = "", label[64];
  size_t len = 0;
  for (int i = 1; i < b->nopen && len < sizeof list - 1; i++) {
    const bt_spec *s = bti_graph_spec(b->g, b->open[i].id);
    kind_label(s->kind, label, sizeof label);
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s '%s'", i > 1 ? ", " : "", label, s->name);
  }
  return fail(b, BT_EINVAL, "bt_builder_end: still open: %s (close each with bt_builder_back)", list);
}

int bt_builder_end(bt_builder *b, bt_def **out, const bt_lib *lib) {
  if (out) *out = NULL;
  if (!b) return BT_EINVAL;
  int rc = b->err;
  if (rc == BT_OK && !out) rc = fail(b, BT_EINVAL, "bt_builder_end: no place for the definition");
  if (rc == BT_OK && b->root < 0) rc = fail(b, BT_EINVAL, "bt_builder_end: nothing was built");
  if (rc == BT_OK && b->nopen > 1) rc = still_open(b);
  if (rc == BT_OK && b->nopen == 1) rc = bt_builder_back(b);
  if (rc == BT_OK) {
    rc = bt_def_create_lib(out, b->g, b->root, lib);
    if (rc) fail(b, rc, "%s", bt_graph_errmsg(b->g));
  }
  if (rc == BT_OK) b->msg[0] = '\0';
  clear(b);
  return rc;
}

/* ---- the kinds, by name ---- */

static int open_kind(bt_builder *b, int kind, const char *name, double param, unsigned flags) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.param = param;
  s.flags = flags;
  return bt_builder_open(b, &s);
}

static int bad_param(bt_builder *b, const char *fname, const char *what, double v) {
  if (!b) return BT_EINVAL;
  if (b->err) return b->err;
  return fail(b, BT_EINVAL, "%s: bad %s %g", fname, what, v);
}

int bt_builder_sequence(bt_builder *b, const char *name) { return open_kind(b, BT_SEQUENCE, name, 0, 0); }
int bt_builder_selector(bt_builder *b, const char *name) { return open_kind(b, BT_SELECTOR, name, 0, 0); }
int bt_builder_parallel(bt_builder *b, const char *name) { return open_kind(b, BT_PARALLEL, name, 0, 0); }
int bt_builder_random(bt_builder *b, const char *name) { return open_kind(b, BT_RANDOM, name, 0, 0); }
int bt_builder_not(bt_builder *b, const char *name) { return open_kind(b, BT_NOT, name, 0, 0); }

int bt_builder_parallel_any(bt_builder *b, const char *name) {
  return open_kind(b, BT_PARALLEL_ANY, name, 0, 0);
}

int bt_builder_fail_if_running(bt_builder *b, const char *name) {
  return open_kind(b, BT_FAILIFRUNNING, name, 0, 0);
}

int bt_builder_fail_if_success(bt_builder *b, const char *name) {
  return open_kind(b, BT_FAILIFSUCCESS, name, 0, 0);
}

int bt_builder_priority(bt_builder *b, const char *name, double period) {
  if (isnan(period)) return bad_param(b, "bt_builder_priority", "period", period);
  return open_kind(b, BT_PRIORITY, name, period < 0 ? 0 : period, period < 0 ? BT_SPEC_NIL_PARAM : 0);
}

int bt_builder_loop(bt_builder *b, double maxreps) {
  if (isnan(maxreps)) return bad_param(b, "bt_builder_loop", "maxreps", maxreps);
  return open_kind(b, BT_LOOP, NULL, maxreps < 0 ? 0 : maxreps, maxreps < 0 ? BT_SPEC_NIL_PARAM : 0);
}

int bt_builder_latch(bt_builder *b, const char *name, double seconds) {
  if (!(seconds >= 0)) return bad_param(b, "bt_builder_latch", "duration", seconds);
  return open_kind(b, BT_LATCH, name, seconds, 0);
}

int bt_builder_event(bt_builder *b, const char *name, double priority) {
  if (isnan(priority)) return bad_param(b, "bt_builder_event", "priority", priority);
  return open_kind(b, BT_EVENT, name, priority, 0);
}

int bt_builder_policy_parallel(bt_builder *b, const char *name, unsigned policy) {
  if (policy & ~(unsigned)(BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL))
    return bad_param(b, "bt_builder_policy_parallel", "policy", (double)policy);
  return open_kind(b, BT_POLICY_PARALLEL, name, 0, policy);
}

int bt_builder_monitor(bt_builder *b, const char *name) { return open_kind(b, BT_MONITOR, name, 0, 0); }
int bt_builder_succeed(bt_builder *b, const char *name) { return open_kind(b, BT_SUCCEED, name, 0, 0); }
int bt_builder_fail(bt_builder *b, const char *name) { return open_kind(b, BT_FAIL, name, 0, 0); }

int bt_builder_active_selector(bt_builder *b, const char *name) {
  return open_kind(b, BT_ACTIVE_SELECTOR, name, 0, 0);
}

int bt_builder_repeat(bt_builder *b, const char *name, double times) {
  if (isnan(times) || (times >= 0 && times < 1)) return bad_param(b, "bt_builder_repeat", "times", times);
  return open_kind(b, BT_REPEAT, name, times < 0 ? 0 : times, times < 0 ? BT_SPEC_NIL_PARAM : 0);
}

int bt_builder_cooldown(bt_builder *b, const char *name, double seconds) {
  if (!(seconds >= 0) || seconds > 1e300) return bad_param(b, "bt_builder_cooldown", "time", seconds);
  return open_kind(b, BT_COOLDOWN, name, seconds, 0);
}

int bt_builder_timeout(bt_builder *b, const char *name, double seconds) {
  if (!(seconds >= 0) || seconds > 1e300) return bad_param(b, "bt_builder_timeout", "time", seconds);
  return open_kind(b, BT_TIMEOUT, name, seconds, 0);
}

static int fn_leaf(bt_builder *b, int kind, bt_fn fn, void *ud, const char *name, const char *fname) {
  if (!b) return BT_EINVAL;
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.fn = fn;
  s.ud = ud;
  return add(b, &s, 0, fname);
}

int bt_builder_condition(bt_builder *b, bt_fn fn, void *ud, const char *name) {
  return fn_leaf(b, BT_CONDITION, fn, ud, name, "bt_builder_condition");
}

int bt_builder_condition_wait(bt_builder *b, bt_fn fn, void *ud, const char *name) {
  return fn_leaf(b, BT_CONDITIONWAIT, fn, ud, name, "bt_builder_condition_wait");
}

int bt_builder_action(bt_builder *b, bt_fn fn, void *ud, const char *name) {
  return fn_leaf(b, BT_ACTION, fn, ud, name, "bt_builder_action");
}

int bt_builder_multi_condition(bt_builder *b, bt_fn start, void *start_ud, bt_fn cont,
                               void *cont_ud, const char *name) {
  if (!b) return BT_EINVAL;
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_MULTICONDITION;
  s.name = name;
  s.fn = start;
  s.ud = start_ud;
  s.fn2 = cont;
  s.ud2 = cont_ud;
  return add(b, &s, 0, "bt_builder_multi_condition");
}

int bt_builder_wait(bt_builder *b, double seconds) {
  if (!(seconds >= 0)) return bad_param(b, "bt_builder_wait", "time", seconds);
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_WAIT;
  s.param = seconds;
  return b ? add(b, &s, 0, "bt_builder_wait") : BT_EINVAL;
}

int bt_builder_behaviour(bt_builder *b, const bt_ops *ops, void *ud, const char *name) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = name;
  s.ops = ops;
  s.ops_ud = ud;
  return b ? add(b, &s, 0, "bt_builder_behaviour") : BT_EINVAL;
}

int bt_builder_task(bt_builder *b, const bt_task *task, void *ud, const char *name) {
  if (!b) return BT_EINVAL;
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.name = name;
  s.task = task;
  s.ud = ud;
  return add(b, &s, 0, "bt_builder_task");
}

int bt_builder_subtree(bt_builder *b, const char *name) {
  if (!b) return BT_EINVAL;
  if (b->err) return b->err;
  if (!name || !name[0]) return fail(b, BT_EINVAL, "bt_builder_subtree: no subtree name");
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_SUBTREE;
  s.name = name;
  return add(b, &s, 0, "bt_builder_subtree");
}
