/* SPDX-License-Identifier: MIT */
/*
 * transfer.c: carrying an agent's state from one definition of its tree to another, as a
 * reload of its brain needs. Nodes are matched by their path from the root (kinds and names);
 * matched nodes keep their state, and the nodes above a running node that is gone re-evaluate.
 * The blackboard's values go by key name and type.
 * bt_inst_carry carries it as it is, for a tree whose children lists a script edited.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *name_of(const bt_def *d, int n) { return d->names + d->nodes[n].name; }

static int same_key(const bt_def *a, int na, const bt_def *b, int nb) {
  return a->nodes[na].kind == b->nodes[nb].kind && strcmp(name_of(a, na), name_of(b, nb)) == 0;
}

/* Among n's children before position i, how many have the same kind and name as child i. */
static int occurrence(const bt_def *d, int n, uint32_t i) {
  int c = (int)d->kids[d->nodes[n].children + i], k = 0;
  for (uint32_t j = 0; j < i; j++)
    if (same_key(d, (int)d->kids[d->nodes[n].children + j], d, c)) k++;
  return k;
}

/* The child of n in d with the same key as `child` of `other` and the same occurrence, or -1. */
static int find_child(const bt_def *d, int n, const bt_def *other, int child, int occ) {
  for (uint32_t j = 0; j < d->nodes[n].nchildren; j++) {
    int c = (int)d->kids[d->nodes[n].children + j];
    if (same_key(d, c, other, child) && occ-- == 0) return c;
  }
  return -1;
}

static int match_node(const bt_def *from, int nf, const bt_def *to, int nt, int *map) {
  int matched = 0;
  uint32_t st = to->nodes[nt].state;
  if (map[st] < 0) {
    map[st] = (int)from->nodes[nf].state;
    matched = 1;
  }
  for (uint32_t i = 0; i < to->nodes[nt].nchildren; i++) {
    int ct = (int)to->kids[to->nodes[nt].children + i];
    int cf = find_child(from, nf, to, ct, occurrence(to, nt, i));
    if (cf >= 0) matched += match_node(from, cf, to, ct, map);
  }
  return matched;
}

int bt_def_match(const bt_def *from, const bt_def *to, int *map) {
  if (!from || !to || !map) return BT_EINVAL;
  for (uint32_t s = 0; s < to->nstates; s++) map[s] = -1;
  if (!same_key(from, 0, to, 0)) return 0;
  return match_node(from, 0, to, 0, map);
}

/* The index (1-based) among to's children of the child that was at old_idx among from's. */
static uint32_t move_index(const bt_inst *to, int nt, const bt_inst *from, int nf, uint32_t old_idx,
                           const int *map) {
  const bt_node *df = &from->def->nodes[nf], *dt = &to->def->nodes[nt];
  if (old_idx == 0) return 0;
  if (old_idx > df->nchildren) return dt->nchildren + 1; /* past the end: finished */
  uint32_t old_state = from->def->nodes[from->def->kids[df->children + old_idx - 1]].state;
  for (uint32_t j = 0; j < dt->nchildren; j++) {
    uint32_t s = to->def->nodes[to->def->kids[dt->children + j]].state;
    if (map[s] == (int)old_state) return j + 1;
  }
  return (uint32_t)-1; /* that child is gone */
}

static void copy_state(bt_inst *to, const bt_inst *from, uint32_t st, uint32_t sf, const int *map, int as_is) {
  const bt_state *at = &to->def->states[st], *af = &from->def->states[sf];
  int nt = (int)at->node, nf = (int)af->node;
  const bti_kind *k = &bti_kinds[to->def->nodes[nt].kind];
  hook_status(to, &to->def->nodes[nt], *status_at(to, st), *status_at(from, sf));
  *status_at(to, st) = *status_at(from, sf);
  uint8_t flags = *flags_at(from, sf);
  double t;
  int has = bti_deadline_get(from, sf, &t);
  *flags_at(to, st) = flags & (uint8_t)~SF_NUT;
  if (has) bti_deadline_set(to, st, &t); /* never fails: bti_transfer made room; a node with none drops it */
  if (k->mem_size) memcpy(inst_mem(to) + at->mem, inst_mem(from) + af->mem, k->mem_size);
  if (as_is) return; /* child indices stay the numbers they were, as Don't Starve's fields do */
  /* child indices follow their children; one whose child is gone starts over */
  for (int i = 0; i < k->nfields; i++) {
    const bti_field *f = &k->fields[i];
    if (!bti_is_index(f)) continue;
    uint32_t idx = move_index(to, nt, from, nf, get_u32(field_at(to, st, f)), map);
    put_u32(field_at(to, st, f), idx == (uint32_t)-1 ? bti_rewound(f) : idx);
  }
}

/* READY, with its child indices and counters rewound and its clock cleared: it re-evaluates. */
static void reevaluate(bt_inst *to, uint32_t st) {
  hook_status(to, &to->def->nodes[to->def->states[st].node], *status_at(to, st), BT_READY);
  *status_at(to, st) = BT_READY;
  bti_rewind(to, st, kind_of_state(to, st));
  bti_clear_clock(to, st);
}

/* ---- the blackboard: values carried by key name and type ---- */

/* For a key of `to`: the key of `from` with its name and type (-1: none, the key keeps its value),
 * and a copy of that key's string. */
typedef struct key_move {
  int from;
  char *copy;
} key_move;

static void drop_moves(key_move *m, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) free(m[k].copy);
  free(m);
}

/* Whether the two definitions declare the same keys in the same order (a reload that left them
 * alone, a saved text of the same tree): then key k is key k. */
static int same_keys(const bt_def *a, const bt_def *b) {
  if (a->nkeys != b->nkeys) return 0;
  for (uint32_t k = 0; k < a->nkeys; k++)
    if (a->keys[k].type != b->keys[k].type || strcmp(a->keys[k].name, b->keys[k].name) != 0) return 0;
  return 1;
}

/* What each key of `to` takes from `from`, its strings copied: BT_OK and *out (NULL when no key
 * of to is in from), or BT_ENOMEM with nothing allocated. */
static int plan_keys(const bt_inst *to, const bt_inst *from, key_move **out) {
  const bt_def *dt = to->def, *df = from->def;
  *out = NULL;
  if (!dt->nkeys || !df->nkeys) return BT_OK;
  key_move *m = calloc(dt->nkeys, sizeof *m);
  if (!m) return BT_ENOMEM;
  int same = same_keys(dt, df);
  for (uint32_t k = 0; k < dt->nkeys; k++) {
    m[k].from = same ? (int)k : -1;
    for (uint32_t j = 0; !same && j < df->nkeys && m[k].from < 0; j++)
      if (df->keys[j].type == dt->keys[k].type && strcmp(df->keys[j].name, dt->keys[k].name) == 0) m[k].from = (int)j;
    const bti_value_slot *s = m[k].from >= 0 ? key_slot(from, (uint32_t)m[k].from) : NULL;
    if (s && s->type == BT_KEY_STRING && !(m[k].copy = bti_strdup(s->v.string))) {
      drop_moves(m, k);
      return BT_ENOMEM;
    }
  }
  *out = m;
  return BT_OK;
}

/* Gives the keys of `to` their values from `from`, as planned (and frees the plan). Not a write:
 * nothing is told, nothing wakes. */
static void move_keys(bt_inst *to, const bt_inst *from, key_move *m) {
  for (uint32_t k = 0; m && k < to->def->nkeys; k++) {
    if (m[k].from < 0) continue;
    bti_value_slot *t = key_slot(to, k);
    char *old = t->type == BT_KEY_STRING ? t->v.string : NULL;
    *t = *key_slot(from, (uint32_t)m[k].from);
    if (t->type == BT_KEY_STRING) t->v.string = m[k].copy;
    free(old);
  }
  free(m);
}

int bti_transfer(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out, int how) {
  bt_transfer r = {0, 0, 0};
  if (!to || !from || !map) return BT_EINVAL;
  if (to->thinking || from->thinking) return BT_EBUSY;
  forget_sleep(to);
  const bt_def *dt = to->def, *df = from->def;
  int *inverse = malloc((df->nstates ? df->nstates : 1) * sizeof *inverse);
  uint8_t *again = calloc(dt->nstates ? dt->nstates : 1, 1);
  if (!inverse || !again) {
    free(inverse);
    free(again);
    return BT_ENOMEM;
  }
  for (uint32_t s = 0; s < df->nstates; s++) inverse[s] = -1;
  /* a pair of different kinds is no match (a map bt_def_match did not make): their memory differs */
  for (uint32_t s = 0; s < dt->nstates; s++)
    if (map[s] >= 0 && (uint32_t)map[s] < df->nstates &&
        dt->nodes[dt->states[s].node].kind == df->nodes[df->states[map[s]].node].kind)
      inverse[map[s]] = (int)s;
  /* room for the spilled deadlines that come over, before anything changes */
  for (uint32_t s = 0; s < dt->nstates; s++) {
    if (map[s] < 0 || (uint32_t)map[s] >= df->nstates || inverse[map[s]] != (int)s) continue;
    if (dt->states[s].spill != NO_SLOT && (*flags_at(from, (uint32_t)map[s]) & SF_NUT) &&
        bti_deadline_reserve(to) != BT_OK) {
      free(inverse);
      free(again);
      return BT_ENOMEM;
    }
  }
  key_move *keys;
  if (plan_keys(to, from, &keys) != BT_OK) {
    free(inverse);
    free(again);
    return BT_ENOMEM;
  }
  for (uint32_t s = 0; s < dt->nstates; s++) {
    if (map[s] < 0 || (uint32_t)map[s] >= df->nstates || inverse[map[s]] != (int)s) continue;
    copy_state(to, from, s, (uint32_t)map[s], map, how & BTI_AS_IS);
    r.matched++;
  }
  /* the nodes above a running node that is gone re-evaluate (as is: nothing does) */
  for (uint32_t s = 0; s < df->nstates; s++) {
    if (inverse[s] >= 0) continue;
    r.gone++;
    if ((how & BTI_AS_IS) || *status_at(from, s) != BT_RUNNING) continue;
    for (int n = df->nodes[df->states[s].node].up; n >= 0; n = df->nodes[n].up) {
      int ns = inverse[df->nodes[n].state];
      if (ns >= 0 && !again[ns]) {
        again[ns] = 1;
        reevaluate(to, (uint32_t)ns);
        r.reevaluate++;
      }
    }
  }
  /* the new code decides at once: every clock is cleared, so its node evaluates at the next think
   * (a saved state restored into the tree it came from keeps them: it resumes as it was) */
  if (!(how & (BTI_KEEP_CLOCKS | BTI_AS_IS)))
    for (uint32_t s = 0; s < dt->nstates; s++) bti_clear_clock(to, s);
  to->forceupdate = from->forceupdate;
  move_keys(to, from, keys);
  bti_mark_touched(to);
  free(inverse);
  free(again);
  if (out) *out = r;
  return BT_OK;
}

int bt_inst_transfer(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out) {
  if (to && from && map && !to->thinking && !from->thinking && BTI_HOOKED(to)) bti_hook_reload(to, from->def);
  return bti_transfer(to, from, map, out, 0);
}

int bt_inst_carry(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out) {
  if (to && from && map && !to->thinking && !from->thinking && BTI_HOOKED(to)) bti_hook_reload(to, from->def);
  return bti_transfer(to, from, map, out, BTI_AS_IS);
}
