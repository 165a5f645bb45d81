/* SPDX-License-Identifier: MIT */
/*
 * board.c: the blackboard at run time: an instance's values, read and written; watching nodes'
 * conditions; and the wake a write makes. (keys.c builds a definition's keys and ports.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int valid_key(const bt_def *d, int key) { return d && key >= 0 && (uint32_t)key < d->nkeys; }

/* ---- comparing values ---- */

static int numeric(int type) { return type == BT_KEY_NUMBER || type == BT_KEY_INTEGER; }

/* a <=> b as -1, 0 or 1; 2 when they are not ordered (a NaN, values of other types) */
static int order(const bt_value *a, const bt_value *b) {
  if (a->type == BT_KEY_INTEGER && b->type == BT_KEY_INTEGER)
    return a->as.integer < b->as.integer ? -1 : a->as.integer > b->as.integer;
  if (numeric(a->type) && numeric(b->type)) {
    double x = a->type == BT_KEY_NUMBER ? a->as.number : (double)a->as.integer;
    double y = b->type == BT_KEY_NUMBER ? b->as.number : (double)b->as.integer;
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  if (a->type != b->type) return 2;
  switch (a->type) {
    case BT_KEY_BOOLEAN: return a->as.boolean == b->as.boolean ? 0 : 2;
    case BT_KEY_STRING: {
      int c = strcmp(a->as.string, b->as.string);
      return c < 0 ? -1 : c > 0;
    }
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: return a->as.entity == b->as.entity ? 0 : 2;
    default: return 2;
  }
}

static int holds(const bt_value *a, int cmp, const bt_value *b) {
  switch (cmp) {
    case BT_CMP_TRUE: return a->type != BT_KEY_NONE && (a->type != BT_KEY_BOOLEAN || a->as.boolean);
    case BT_CMP_SET: return a->type != BT_KEY_NONE;
    case BT_CMP_UNSET: return a->type == BT_KEY_NONE;
    default: break;
  }
  int c = a->type == BT_KEY_NONE ? 2 : order(a, b);
  switch (cmp) {
    case BT_CMP_EQ: return c == 0;
    case BT_CMP_NE: return c != 0;
    case BT_CMP_LT: return c == -1;
    case BT_CMP_LE: return c == -1 || c == 0;
    case BT_CMP_GT: return c == 1;
    case BT_CMP_GE: return c == 1 || c == 0;
    default: return 0;
  }
}

/* ---- an instance's values ---- */

static bti_value_slot *slot_at(const bt_inst *in, int key) {
  return (bti_value_slot *)(void *)(inst_mem(in) + in->def->board_off) + key;
}

static bt_value value_of(const bti_value_slot *s) {
  bt_value v;
  memset(&v, 0, sizeof v);
  v.type = s->type;
  switch (s->type) {
    case BT_KEY_NUMBER: v.as.number = s->v.number; break;
    case BT_KEY_INTEGER: v.as.integer = s->v.integer; break;
    case BT_KEY_BOOLEAN: v.as.boolean = s->v.boolean; break;
    case BT_KEY_STRING: v.as.string = s->v.string; break;
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: v.as.entity = s->v.id; break;
    default: break;
  }
  return v;
}

int bt_inst_key_get(const bt_inst *in, int key, bt_value *out) {
  if (!in || !out || !valid_key(in->def, key)) return BT_EINVAL;
  *out = value_of(slot_at(in, key));
  return out->type != BT_KEY_NONE;
}

void bti_board_fini(bt_inst *in) {
  for (uint32_t k = 0; k < in->def->nkeys; k++) {
    bti_value_slot *s = slot_at(in, (int)k);
    if (s->type == BT_KEY_STRING) free(s->v.string);
    s->type = BT_KEY_NONE;
  }
}

static int same(const bt_value *a, const bt_value *b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
    case BT_KEY_NONE: return 1;
    case BT_KEY_NUMBER: return a->as.number == b->as.number || (a->as.number != a->as.number && b->as.number != b->as.number);
    case BT_KEY_INTEGER: return a->as.integer == b->as.integer;
    case BT_KEY_BOOLEAN: return !a->as.boolean == !b->as.boolean;
    case BT_KEY_STRING: return strcmp(a->as.string, b->as.string) == 0;
    default: return a->as.entity == b->as.entity;
  }
}

int bti_watch_holds(bt_inst *in, int n) {
  const bt_node *d = node_at(in, n);
  const bti_watch *w = d->ud2;
  if (!w || w->key < 0) {
    bt_call c = {in, n, d->ud, 0};
    return d->fn && d->fn(&c) > 0;
  }
  bt_value v = value_of(slot_at(in, w->key));
  return holds(&v, w->cmp, &w->value);
}

/* Whether a write of key from before to after wakes the instance, through reader state s; a
 * watching node that it makes abort clears the clocks above it, as an event does. */
static int observe(bt_inst *in, uint32_t s, int key, const bt_value *before, const bt_value *after) {
  const bt_def *d = in->def;
  const bt_node *nd = &d->nodes[d->states[s].node];
  int running = *status_at(in, s) == BT_RUNNING;
  if (!watches(nd->kind)) return running;
  const bti_watch *w = nd->ud2;
  int compares = w && w->key == key;
  int was = compares ? holds(before, w->cmp, &w->value) : 0;
  int is = compares ? holds(after, w->cmp, &w->value) : 1; /* a function's: it may have changed */
  int aborts = running ? (nd->flags & NF_ABORT_SELF) && (!compares || (was && !is))
                       : (nd->flags & NF_ABORT_LOWER) && (!compares || (!was && is));
  if (!aborts) return 0;
  for (int32_t p = d->states[s].parent; p >= 0; p = d->states[p].parent) bti_clear_clock(in, (uint32_t)p);
  return 1;
}

static void wake(bt_inst *in) {
  if (in->thinking) {
    in->woken = 1; /* the think's end makes its sleep time 0: the next tick */
    return;
  }
  forget_sleep(in);
  in->forceupdate = 1;
  const bti_ext *x = ext_of(in);
  if (x && x->waker) x->waker(x->waker_ud, in);
}

static int check_value(const bt_inst *in, int key, const bt_value *v) {
  if (!v || v->type == BT_KEY_NONE) return BT_OK;
  if (v->type != in->def->keys[key].type) return BT_EINVAL;
  if (v->type == BT_KEY_STRING && !v->as.string) return BT_EINVAL;
  return BT_OK;
}

int bt_inst_key_set(bt_inst *in, int key, const bt_value *value) {
  if (!in || !valid_key(in->def, key) || check_value(in, key, value) != BT_OK) return BT_EINVAL;
  static const bt_value none = {BT_KEY_NONE, {0}};
  const bt_value *v = value && value->type != BT_KEY_NONE ? value : &none;
  bti_value_slot *slot = slot_at(in, key);
  bt_value before = value_of(slot);
  if (same(&before, v)) return BT_OK;
  char *copy = NULL;
  if (v->type == BT_KEY_STRING && !(copy = bti_strdup(v->as.string))) return BT_ENOMEM;
  char *old = slot->type == BT_KEY_STRING ? slot->v.string : NULL; /* before's, freed at the end */
  memset(slot, 0, sizeof *slot);
  slot->type = (uint8_t)v->type;
  switch (v->type) {
    case BT_KEY_NUMBER: slot->v.number = v->as.number; break;
    case BT_KEY_INTEGER: slot->v.integer = v->as.integer; break;
    case BT_KEY_BOOLEAN: slot->v.boolean = v->as.boolean != 0; break;
    case BT_KEY_STRING: slot->v.string = copy; break;
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: slot->v.id = v->as.entity; break;
    default: break;
  }
  bt_value after = value_of(slot);
  const bti_key *k = &in->def->keys[key];
  int woke = 0;
  for (uint32_t i = 0; i < k->nreaders; i++)
    woke |= observe(in, in->def->readers[k->readers + i], key, &before, &after);
  if (BTI_HOOKED(in)) {
    bt_hook_msg m = {.what = BT_HOOK_KEY, .node = key, .from = woke, .before = &before, .after = &after};
    in->kept = 0;
    ext_of(in)->hook(ext_of(in)->hook_ud, in, &m);
  }
  if (woke) wake(in);
  free(old);
  return BT_OK;
}

int bt_inst_set_waker(bt_inst *in, bt_waker_fn fn, void *ud) {
  if (!in) return BT_EINVAL;
  bti_ext *x = fn ? bti_ext_get(in) : ext_of(in);
  if (fn && !x) return BT_ENOMEM;
  if (x) {
    x->waker = fn;
    x->waker_ud = fn ? ud : NULL;
  }
  return BT_OK;
}
