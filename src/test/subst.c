/* SPDX-License-Identifier: MIT */
/*
 * subst.c: substitution (bt_test.h): a definition like another, with some nodes replaced by a
 * leaf of the kit's. The copy is rebuilt from bt_def_spec of every state of the definition, in
 * a graph whose node ids are the states' numbers, so that shared nodes stay shared; a replaced
 * state gets a leaf of its name, of the base kind of every class, whose visit (the ops below)
 * does what the rule says. What a replaced leaf needs at run time lives in its spec: param holds a run's seconds,
 * fn and ops_ud a call's function and user data, and the ops table chosen says the result. The
 * copy thus needs nothing of the bt_subst that made it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_internal.h"

enum { RULE_PATH, RULE_NAME, RULE_FN };

static const char *const rule_kinds[] = {"path", "name", "fn"};

typedef struct rule {
  int kind;     /* RULE_* */
  char *text;   /* the path or the name (RULE_PATH, RULE_NAME) */
  bt_fn fn;     /* RULE_FN */
  bt_subst_as as;
  int matches;  /* in the last bt_subst_apply */
} rule;

struct bt_subst {
  rule *rules;
  int n, cap;
  char msg[512];
};

#define fail(s, code, ...) kit_fail((s)->msg, sizeof (s)->msg, (code), __VA_ARGS__)

/* Names rule i in messages: "rule 1 (path 'Priority/Eat')", counted from 1. */
static void describe_rule(const bt_subst *s, int i, char *buf, size_t size) {
  const rule *r = &s->rules[i];
  if (r->kind == RULE_FN)
    snprintf(buf, size, "rule %d (fn)", i + 1);
  else
    snprintf(buf, size, "rule %d (%s '%s')", i + 1, rule_kinds[r->kind], r->text);
}

/* ---- the replacing leaf ---- */

/* A run's end compares with the clock to within a nanosecond: a time made of ticks (60 of
 * 1/30 s) may fall a hair short of the sum it stands for. */
#define EPSILON 1e-9

static void set(bt_call *c, int status) { bt_node_set_status(c->inst, c->node, (bt_status)status); }

/* RUNNING for spec.param seconds from the visit that starts the run, then result. The end is the
 * node's nextupdatetime (bt_node_sleep), which its sleep time reports meanwhile. */
static int run_then(bt_call *c, int result) {
  bt_spec sp;
  if (bt_def_spec(bt_inst_def(c->inst), c->node, &sp) != BT_OK) return BT_EINVAL;
  if (bt_node_status(c->inst, c->node) != BT_RUNNING) {
    if (!(sp.param > 0)) {
      set(c, result);
      return BT_OK;
    }
    bt_node_sleep(c->inst, c->node, sp.param);
    set(c, BT_RUNNING);
    return BT_OK;
  }
  double until = 0;
  if (bt_node_get(c->inst, c->node, BT_FIELD_NEXTUPDATETIME, &until) != 1 ||
      bt_inst_now(c->inst) >= until - EPSILON)
    set(c, result);
  return BT_OK;
}

static int visit_success(bt_call *c) { return run_then(c, BT_SUCCESS); }
static int visit_failed(bt_call *c) { return run_then(c, BT_FAILED); }

/* The test's function, spec.fn, with call->ud its user data (ops_ud). */
static int visit_call(bt_call *c) {
  bt_spec sp;
  if (bt_def_spec(bt_inst_def(c->inst), c->node, &sp) != BT_OK || !sp.fn) return BT_EINVAL;
  c->value = 0;
  int status = sp.fn(c);
  set(c, status == BT_SUCCESS || status == BT_RUNNING ? status : BT_FAILED);
  return BT_OK;
}

static const bt_ops OPS_SUCCESS = {visit_success, NULL, NULL, NULL, NULL, NULL};
static const bt_ops OPS_FAILED = {visit_failed, NULL, NULL, NULL, NULL, NULL};
static const bt_ops OPS_CALL = {visit_call, NULL, NULL, NULL, NULL, NULL};

/* The base kind of every class (its bt_kind_info.base is -1): the kind of the kit's leaf. */
static int plain_kind(void) {
  int k = 0;
  while (bt_kind_get(k) && bt_kind_get(k)->base >= 0) k++;
  return k;
}

/* Turns *out, the spec of a node, into the spec of the leaf that replaces it: its name, where it
 * was made and its ports (the keys it writes may be read elsewhere) stay. */
static void replacing_spec(const bt_subst_as *as, bt_spec *out) {
  bt_spec was = *out;
  memset(out, 0, sizeof *out);
  out->kind = plain_kind();
  out->name = was.name;
  out->where = was.where;
  out->ports = was.ports;
  out->nports = was.nports;
  if (as->how == BT_SUBST_CALL) {
    out->ops = &OPS_CALL;
    out->fn = as->fn;
    out->ops_ud = as->ud;
    return;
  }
  out->ops = as->result == BT_SUCCESS ? &OPS_SUCCESS : &OPS_FAILED;
  out->param = as->how == BT_SUBST_RUN ? as->seconds : 0;
}

/* ---- rules ---- */

int bt_subst_create(bt_subst **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_subst_free(bt_subst *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) free(s->rules[i].text);
  free(s->rules);
  free(s);
}

const char *bt_subst_errmsg(const bt_subst *s) { return s ? s->msg : "bt_subst_errmsg: NULL bt_subst"; }

static int check_as(bt_subst *s, const char *fname, const bt_subst_as *as) {
  if (!as) return fail(s, BT_EINVAL, "%s: as is NULL", fname);
  switch (as->how) {
    case BT_SUBST_CALL:
      if (!as->fn) return fail(s, BT_EINVAL, "%s: BT_SUBST_CALL without a function (as->fn is NULL)", fname);
      return BT_OK;
    case BT_SUBST_RUN:
      if (!(as->seconds >= 0) || isinf(as->seconds))
        return fail(s, BT_EINVAL, "%s: a run of %g seconds (as->seconds must be a number >= 0)", fname,
                    as->seconds);
      /* fall through */
    case BT_SUBST_RESULT:
      if (as->result != BT_SUCCESS && as->result != BT_FAILED)
        return fail(s, BT_EINVAL, "%s: result %d is not BT_SUCCESS or BT_FAILED", fname, as->result);
      return BT_OK;
    default:
      return fail(s, BT_EINVAL, "%s: as->how %d is not BT_SUBST_RESULT, BT_SUBST_RUN or BT_SUBST_CALL",
                  fname, as->how);
  }
}

static int add_rule(bt_subst *s, int kind, const char *text, bt_fn fn, const bt_subst_as *as,
                    const char *fname) {
  if (!s) return BT_EINVAL;
  if (kind != RULE_FN && !text) return fail(s, BT_EINVAL, "%s: the %s is NULL", fname, rule_kinds[kind]);
  if (kind != RULE_FN && !*text) return fail(s, BT_EINVAL, "%s: the %s is empty", fname, rule_kinds[kind]);
  if (kind == RULE_FN && !fn) return fail(s, BT_EINVAL, "%s: the function is NULL", fname);
  int rc = check_as(s, fname, as);
  if (rc != BT_OK) return rc;
  if (kit_grow((void **)&s->rules, &s->cap, s->n + 1, sizeof *s->rules) != BT_OK)
    return fail(s, BT_ENOMEM, "%s: out of memory", fname);
  rule *r = &s->rules[s->n];
  memset(r, 0, sizeof *r);
  if (text) {
    size_t len = strlen(text) + 1;
    r->text = malloc(len);
    if (!r->text) return fail(s, BT_ENOMEM, "%s: out of memory", fname);
    memcpy(r->text, text, len);
  }
  r->kind = kind;
  r->fn = fn;
  r->as = *as;
  return s->n++;
}

int bt_subst_path(bt_subst *s, const char *path, const bt_subst_as *as) {
  return add_rule(s, RULE_PATH, path, NULL, as, "bt_subst_path");
}

int bt_subst_name(bt_subst *s, const char *name, const bt_subst_as *as) {
  return add_rule(s, RULE_NAME, name, NULL, as, "bt_subst_name");
}

int bt_subst_fn(bt_subst *s, bt_fn fn, const bt_subst_as *as) {
  return add_rule(s, RULE_FN, NULL, fn, as, "bt_subst_fn");
}

int bt_subst_matches(const bt_subst *s, int rule) {
  if (!s || rule < 0 || rule >= s->n) return BT_EINVAL;
  return s->rules[rule].matches;
}

/* ---- applying ---- */

/* Whether rule r matches state st (first node `node`) of def. */
static int matches(const rule *r, const bt_def *def, int node, const bt_spec *sp) {
  switch (r->kind) {
    case RULE_NAME: return strcmp(bt_def_name(def, node), r->text) == 0;
    case RULE_FN: return sp->fn == r->fn || (sp->ops && sp->ops->visit == r->fn);
    default: return 0; /* paths are found by bt_def_find */
  }
}

/* by[state]: the rule that replaces it, or -1. */
static int match_rules(bt_subst *s, const bt_def *def, int *by) {
  int states = bt_def_states(def);
  for (int st = 0; st < states; st++) by[st] = -1;
  for (int i = 0; i < s->n; i++) {
    rule *r = &s->rules[i];
    r->matches = 0;
    if (r->kind == RULE_PATH) {
      int node = bt_def_find(def, r->text);
      if (node == BT_ENOMEM) return fail(s, BT_ENOMEM, "bt_subst_apply: out of memory");
      if (node >= 0) {
        int st = bt_def_state(def, node);
        r->matches = 1;
        if (by[st] < 0) by[st] = i;
      }
      continue;
    }
    for (int st = 0; st < states; st++) {
      int node = bt_def_node_of_state(def, st);
      bt_spec sp;
      bt_def_spec(def, node, &sp);
      if (matches(r, def, node, &sp)) {
        r->matches++;
        if (by[st] < 0) by[st] = i;
      }
    }
  }
  for (int i = 0; i < s->n; i++) {
    if (s->rules[i].matches) continue;
    char what[300];
    describe_rule(s, i, what, sizeof what);
    return fail(s, BT_EINVAL, "bt_subst_apply: %s matches no node of the tree '%s'", what,
                bt_def_name(def, 0));
  }
  return BT_OK;
}

/* Adds every state to g (graph id = state), the replaced ones as the kit's leaves, then the
 * children and parents of those kept. */
static int rebuild(bt_subst *s, const bt_def *def, const int *by, bt_graph *g) {
  int states = bt_def_states(def);
  for (int k = 0; k < bt_def_key_count(def); k++)
    if (bt_graph_add_key(g, bt_def_key_name(def, k), bt_def_key_type(def, k), bt_def_key_flags(def, k)) != k)
      return fail(s, BT_EINVAL, "bt_subst_apply: key '%s': %s", bt_def_key_name(def, k), bt_graph_errmsg(g));
  for (int st = 0; st < states; st++) {
    int node = bt_def_node_of_state(def, st);
    bt_spec sp;
    bt_def_spec(def, node, &sp);
    if (by[st] >= 0) replacing_spec(&s->rules[by[st]].as, &sp);
    int id = bt_graph_add(g, &sp);
    if (id != st)
      return fail(s, id == BT_ENOMEM ? BT_ENOMEM : BT_EINVAL, "bt_subst_apply: node '%s': %s", sp.name,
                  bt_graph_errmsg(g));
  }
  int *kids = NULL;
  int rc = BT_OK;
  for (int st = 0; st < states && rc == BT_OK; st++) {
    if (by[st] >= 0) continue;
    int node = bt_def_node_of_state(def, st), n = bt_def_child_count(def, node);
    if (n > 0) {
      int *k = realloc(kids, (size_t)n * sizeof *k);
      if (!k) {
        rc = fail(s, BT_ENOMEM, "bt_subst_apply: out of memory");
        break;
      }
      kids = k;
      for (int i = 0; i < n; i++) kids[i] = bt_def_state(def, bt_def_child(def, node, i));
      if (bt_graph_set_children(g, st, kids, n) != BT_OK)
        rc = fail(s, BT_ENOMEM, "bt_subst_apply: %s", bt_graph_errmsg(g));
    }
  }
  for (int st = 0; st < states && rc == BT_OK; st++) {
    int parent = bt_def_parent(def, st);
    if (parent >= 0 && by[parent] < 0 && bt_graph_set_parent(g, st, parent) != BT_OK)
      rc = fail(s, BT_ENOMEM, "bt_subst_apply: %s", bt_graph_errmsg(g));
  }
  free(kids);
  return rc;
}

int bt_subst_apply(bt_subst *s, const bt_def *def, bt_def **out) {
  if (out) *out = NULL;
  if (!s) return BT_EINVAL;
  s->msg[0] = '\0';
  if (!def || !out) return fail(s, BT_EINVAL, "bt_subst_apply: %s is NULL", def ? "out" : "def");
  if (s->n == 0) return fail(s, BT_EINVAL, "bt_subst_apply: no rules (bt_subst_path, _name, _fn add them)");
  int states = bt_def_states(def);
  int *by = malloc((size_t)states * sizeof *by);
  if (!by) return fail(s, BT_ENOMEM, "bt_subst_apply: out of memory");
  int rc = match_rules(s, def, by);
  bt_graph *g = NULL;
  if (rc == BT_OK && (rc = bt_graph_create(&g)) != BT_OK) rc = fail(s, rc, "bt_subst_apply: out of memory");
  if (rc == BT_OK) rc = rebuild(s, def, by, g);
  if (rc == BT_OK && (rc = bt_def_create(out, g, 0)) != BT_OK)
    rc = fail(s, rc, "bt_subst_apply: %s", bt_graph_errmsg(g));
  bt_graph_free(g);
  free(by);
  return rc;
}
