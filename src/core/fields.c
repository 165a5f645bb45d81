/* SPDX-License-Identifier: MIT */
/* fields.c: a node's state in an instance's bytes: what a new instance starts from (the image
 * bt_inst_init copies), the fields each kind keeps there, read and written by number, deadlines
 * in the bytes or spilled beside them, and whether a state is as Reset leaves it. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void init_fields(bt_inst *in, uint32_t st);
static int is_clean(const bt_inst *in, uint32_t st);

/* ---- what an instance keeps outside its bytes ---- */

bti_ext *bti_ext_get(bt_inst *in) {
  if (in->extended) return ext_of(in);
  bti_ext *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->agent = in->agent;
  in->agent = x;
  in->extended = 1;
  return x;
}

void bti_ext_free(bt_inst *in) {
  bti_ext *x = ext_of(in);
  if (!x) return;
  in->agent = x->agent;
  in->extended = 0;
  free(x->deadlines);
  free(x);
}

int bti_deadline_reserve(bt_inst *in) {
  uint32_t n = in->def->nspill;
  if (!n) return BT_OK;
  bti_ext *x = bti_ext_get(in);
  if (!x) return BT_ENOMEM;
  if (!x->deadlines && !(x->deadlines = calloc(n, sizeof *x->deadlines))) return BT_ENOMEM;
  return BT_OK;
}

int bti_deadline_get(const bt_inst *in, uint32_t st, double *out) {
  const bt_state *s = &in->def->states[st];
  if (!(*flags_at(in, st) & SF_NUT)) return 0;
  if (s->nut != NO_SLOT) {
    memcpy(out, inst_mem(in) + s->nut, sizeof *out);
    return 1;
  }
  const bti_ext *x = ext_of(in);
  if (s->spill == NO_SLOT || !x || !x->deadlines) return 0; /* (a flag set by hand, never a deadline) */
  *out = x->deadlines[s->spill];
  return 1;
}

int bti_deadline_set(bt_inst *in, uint32_t st, const double *t) {
  const bt_state *s = &in->def->states[st];
  uint8_t *fl = flags_at(in, st);
  if (!bti_has_deadline(in->def, st)) return BT_EINVAL;
  if (!t) {
    *fl &= (uint8_t)~SF_NUT;
    return BT_OK;
  }
  if (s->nut != NO_SLOT) {
    memcpy(inst_mem(in) + s->nut, t, sizeof *t);
  } else {
    if (bti_deadline_reserve(in) != BT_OK) return BT_ENOMEM;
    ext_of(in)->deadlines[s->spill] = *t;
  }
  *fl |= SF_NUT;
  return BT_OK;
}

int bti_make_image(bt_def *def) {
  def->image = calloc(1, def->inst_size);
  if (!def->image) return BT_ENOMEM;
  bt_inst *in = (bt_inst *)(void *)def->image;
  in->def = def;
  for (uint32_t s = 0; s < def->nstates; s++) init_fields(in, s);
  /* the bit sets of a new instance, whose every state is as Reset leaves it (bti_mark_touched's
   * result without its reads): touched are only the nodes whose Reset or Step is the host's */
  in->settled = 0;
  in->unsaved = 1;
  if (!def->plain_step)
    for (uint32_t s = 0; s < def->nstates; s++)
      if (has_own_reset(&def->nodes[def->states[s].node])) touch(in, s);
  in->def = NULL;
  return BT_OK;
}

/* ---- fields: each kind's, as kinds.c lays them out in its memory ---- */

static void put_double(unsigned char *p, double v) { memcpy(p, &v, sizeof v); }

/* A new instance's fields: indices and counters rewound, numbers at their first value. */
static void init_fields(bt_inst *in, uint32_t st) {
  const bti_kind *k = kind_of_state(in, st);
  for (int i = 0; i < k->nfields; i++) {
    const bti_field *f = &k->fields[i];
    if (f->type == BTI_NUMBER) put_double(field_at(in, st, f), f->init);
    else if (f->type == BTI_INDEX) put_u32(field_at(in, st, f), bti_rewound(f));
  }
}

void bti_clear_clock(bt_inst *in, uint32_t st) {
  forget_sleep(in);
  const bti_kind *k = kind_of_state(in, st);
  for (int i = 0; i < k->nfields; i++)
    if (k->fields[i].type == BTI_CLOCK) *flags_at(in, st) &= (uint8_t)~k->fields[i].flag;
}

/* Whether a node is as Reset leaves it, so that Reset and Step would not change it. */
static int is_clean(const bt_inst *in, uint32_t st) {
  const bt_node *d = &in->def->nodes[in->def->states[st].node];
  if (has_own_reset(d) || *status_at(in, st) != BT_READY ||
      (*flags_at(in, st) & (SF_TRIGGERED | SF_STARTED)))
    return 0;
  const bti_kind *k = &bti_kinds[d->kind];
  for (int i = 0; i < k->nfields; i++) {
    const bti_field *f = &k->fields[i];
    if ((bti_is_index(f) || f->type == BTI_COUNTER) && get_u32(field_at(in, st, f)) != bti_rewound(f))
      return 0;
  }
  return 1;
}

void bti_mark_touched(bt_inst *in) {
  const bt_def *def = in->def;
  in->settled = 0;
  for (uint32_t w = 0; w < def->nwords; w++) {
    *touched_word(in, w) = 0;
    if (def->nwords > 1) *dirty_word(in, w) = 0;
  }
  if (def->nwords > 1) *dirty_sum(in) = *touched_sum(in) = 0;
  in->unsaved = 1;
  for (uint32_t s = 0; s < def->nstates; s++) {
    if (*status_at(in, s) != last_of(in, s)) mark_dirty(in, s);
    if (!is_clean(in, s)) touch(in, s);
  }
}

/* Where node n's field lives: its description (NULL for nextupdatetime), or BT_EINVAL. */
static int find_field(const bt_def *def, int n, int field, const bti_field **out) {
  if (!def || n < 0 || (uint32_t)n >= def->nnodes) return BT_EINVAL;
  *out = NULL;
  if (field == BT_FIELD_NEXTUPDATETIME)
    return bti_has_deadline(def, def->nodes[n].state) ? BT_OK : BT_EINVAL;
  *out = bti_field_of(def->nodes[n].kind, field);
  return *out ? BT_OK : BT_EINVAL;
}

int bt_node_has_field(const bt_def *def, int n, int field) {
  const bti_field *f;
  return find_field(def, n, field, &f) == BT_OK;
}

int bt_node_get(const bt_inst *in, int n, int field, double *out) {
  const bti_field *f;
  if (find_field(in->def, n, field, &f)) return BT_EINVAL;
  uint32_t st = state_of(in, n);
  uint8_t fl = *flags_of(in, n);
  if (!f) return bti_deadline_get(in, st, out); /* nextupdatetime */
  const unsigned char *p = field_at(in, st, f);
  switch (f->type) {
    case BTI_FLAG: *out = (fl & f->flag) ? 1 : 0; return 1;
    case BTI_TIME:
    case BTI_CLOCK:
      if (!(fl & f->flag)) return 0;
      memcpy(out, p, sizeof *out);
      return 1;
    case BTI_NUMBER: memcpy(out, p, sizeof *out); return 1;
    default: {
      uint32_t v = get_u32(p);
      if (v == 0 && f->type != BTI_INDEX && f->type != BTI_COUNTER) return 0;
      *out = v;
      return 1;
    }
  }
}

/* Sets a time with a presence flag: nil clears the flag. */
static void set_time(uint8_t *fl, uint8_t flag, unsigned char *p, const double *value) {
  if (!value) {
    *fl &= (uint8_t)~flag;
    return;
  }
  memcpy(p, value, sizeof *value);
  *fl |= flag;
}

int bt_node_set(bt_inst *in, int n, int field, const double *value) {
  if (in) forget_sleep(in);
  const bti_field *f;
  if (find_field(in->def, n, field, &f)) return BT_EINVAL;
  uint32_t st = state_of(in, n);
  touch(in, st);
  in->settled = 0;
  uint8_t *fl = flags_of(in, n);
  if (!f) return bti_deadline_set(in, st, value);
  unsigned char *p = field_at(in, st, f);
  switch (f->type) {
    case BTI_FLAG:
      if (value && *value != 0) *fl |= f->flag;
      else *fl &= (uint8_t)~f->flag;
      return BT_OK;
    case BTI_TIME:
    case BTI_CLOCK: set_time(fl, f->flag, p, value); return BT_OK;
    case BTI_NUMBER:
      if (!value) return BT_EINVAL;
      memcpy(p, value, sizeof *value);
      return BT_OK;
    default: {
      int nilable = f->type == BTI_INDEX_NIL || f->type == BTI_CHILD;
      uint32_t v = 0;
      if (value) {
        if (!(*value >= (nilable ? 1 : 0) && *value <= 4294967295.0) || *value != (double)(uint32_t)*value)
          return BT_EINVAL;
        v = (uint32_t)*value;
        if (bti_is_index(f) && !bti_index_ok(in->def, n, f, v)) return BT_EINVAL;
      } else if (!nilable) {
        return BT_EINVAL;
      }
      put_u32(p, v);
      return BT_OK;
    }
  }
}

/* Inside a think (a leaf resets its own tree, as Don't Starve allows) the nodes under visit may
 * hold fields that differ from what Reset leaves (a Sequence between two children) without their
 * touched bit, which the reset's walks trust: every node that differs gets its bit. (Bits are
 * only added: a node under visit that is clean now may change later in its visit.) */
void bti_touch_unclean(bt_inst *in) {
  for (uint32_t s = 0; s < in->def->nstates; s++)
    if (!is_clean(in, s)) touch(in, s);
}
