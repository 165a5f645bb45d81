/* SPDX-License-Identifier: MIT */
/*
 * save.c: an agent's state as portable text, to keep with a saved game (bt_inst_export), read back
 * (bt_saved_create) and restored into a tree of the same shape or of a changed one, matched node by
 * node by path as a reload matches them (bt_saved_match, bt_inst_import).
 *
 * The text is a header line, a line per node in pre-order, a line per state, a line per key of
 * the blackboard, and "end":
 *
 *   bt-state 2 <nodes> <states> <force update: 0 or 1> <the time of the save> <keys>
 *   <state> <kind> <children> <name length>:<name>
 *   <status> <last result> <flags> <Sleep deadline, or -> <memory...>
 *   <type> <name length>:<name> <value, or - when it is unset>
 *   end
 *
 * Kinds by their class name (bt_kind_name), statuses by name, flags (the SF_ bits) and child
 * indices and counters as decimal numbers, doubles as x and the 16 hexadecimal digits of their
 * IEEE 754 bits: nothing depends on byte order, the size of types or the locale. Times are
 * written as they were, with the time of the save; a restore shifts them all by its own time
 * minus that one, so that every deadline is as far away as it was.
 *
 * A key's type by its name (bt_key_type_name), its value as its type says: a number as a double
 * above, an integer and an entity in decimal (an integer may have a minus sign), a boolean as
 * true or false, a string as <length>:<bytes>. A key of type "value" (a binding's) is always -:
 * one that holds a value cannot be exported. Version 1 (no keys: its header ends with the time)
 * is read too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define VERSION 2
#define SAVED_FLAGS (SF_NUT | SF_LASTTIME | SF_TRIGGERED | SF_RUNNING | SF_WAKE | SF_STARTED)
#define MAX_ITEMS 4 /* items of a kind's memory (16 bytes at most) */
#define BLOCK 24 /* a saved state's memory in a bt_saved: the kind's (16 bytes at most), then its deadline */
#define MAX_KEYS 1000000 /* keys a saved text may declare (each has a line: 8 bytes at least) */
#define KEY_LINE_MIN 8

/* ---- the kinds' memory, item by item ---- */

enum { I_U32, I_TIME, I_DOUBLE }; /* I_TIME: a time, shifted on restore */

typedef struct item {
  uint8_t type, off;
} item;

/* The items of a kind's memory, as kinds.c describes it (mem_times, mem_doubles, mem_words); returns
 * how many, or -1 for a memory this file cannot write. */
static int items_of(int kind, item *it) {
  const bti_kind *k = &bti_kinds[kind];
  int n = 0;
  size_t off = 0;
  for (unsigned dbl = k->mem_times | k->mem_doubles; dbl >> n & 1; n++, off += 8)
    it[n] = (item){(uint8_t)(k->mem_times >> n & 1 ? I_TIME : I_DOUBLE), (uint8_t)off};
  if (n + k->mem_words > MAX_ITEMS || off + 4u * k->mem_words > k->mem_size) return -1;
  for (int w = 0; w < k->mem_words; w++, off += 4) it[n++] = (item){I_U32, (uint8_t)off};
  return n;
}

static uint64_t bits_of(double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

static double double_of(uint64_t u) {
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* ---- writing ---- */

static void put_double(bt_buf *out, double v) { bt_buf_printf(out, " x%016llx", (unsigned long long)bits_of(v)); }

/* Text as <length>:<bytes> (a name, a string's value). */
static void put_text(bt_buf *out, const char *s) {
  bt_buf_printf(out, "%lu:", (unsigned long)strlen(s));
  bt_buf_append(out, s, strlen(s));
}

/* A key's line: its type, name and value. */
static void put_key(bt_buf *out, const bt_def *d, const bti_value_slot *v, uint32_t k) {
  bt_buf_printf(out, "%s ", bt_key_type_name(d->keys[k].type));
  put_text(out, d->keys[k].name);
  switch (v->type) {
    case BT_KEY_NUMBER: put_double(out, v->v.number); break;
    case BT_KEY_INTEGER: bt_buf_printf(out, " %lld", v->v.integer); break;
    case BT_KEY_BOOLEAN: bt_buf_printf(out, " %s", v->v.boolean ? "true" : "false"); break;
    case BT_KEY_STRING:
      bt_buf_append(out, " ", 1);
      put_text(out, v->v.string);
      break;
    case BT_KEY_ENTITY: bt_buf_printf(out, " %llu", v->v.id); break;
    default: bt_buf_append(out, " -", 2); break; /* unset (a binding's value is refused before) */
  }
  bt_buf_append(out, "\n", 1);
}

int bt_inst_export(const bt_inst *in, double now, bt_buf *out) {
  if (!in || !out) return BT_EINVAL;
  if (in->thinking) return BT_EBUSY;
  if (bt_inst_unsaveable_key(in) >= 0) return BT_EINVAL; /* before a byte is written */
  const bt_def *d = in->def;
  bt_buf_printf(out, "bt-state %d %lu %lu %d", VERSION, (unsigned long)d->nnodes, (unsigned long)d->nstates,
                in->forceupdate ? 1 : 0);
  put_double(out, now);
  bt_buf_printf(out, " %lu\n", (unsigned long)d->nkeys);
  for (uint32_t n = 0; n < d->nnodes; n++) {
    const bt_node *nd = &d->nodes[n];
    bt_buf_printf(out, "%lu %s %lu ", (unsigned long)nd->state, bt_kind_name(nd->kind), (unsigned long)nd->nchildren);
    put_text(out, d->names + nd->name);
    bt_buf_append(out, "\n", 1);
  }
  for (uint32_t s = 0; s < d->nstates; s++) {
    const bt_state *st = &d->states[s];
    int kind = d->nodes[st->node].kind;
    unsigned fl = (*flags_at(in, s) & SAVED_FLAGS) >> SF_SAVED_SHIFT; /* the format's numbering */
    bt_buf_printf(out, "%s %s %u", bt_status_name(*status_at(in, s)), bt_status_name(last_of(in, s)), fl);
    double t;
    if (bti_deadline_get(in, s, &t)) {
      put_double(out, t);
    } else {
      bt_buf_append(out, " -", 2);
    }
    item it[MAX_ITEMS];
    int k = items_of(kind, it);
    if (k < 0) return BT_EINVAL; /* a kind whose memory this file does not know: a bug */
    const unsigned char *mem = inst_mem(in) + st->mem;
    for (int i = 0; i < k; i++) {
      if (it[i].type == I_U32) {
        bt_buf_printf(out, " %lu", (unsigned long)get_u32(mem + it[i].off));
      } else {
        double v;
        memcpy(&v, mem + it[i].off, sizeof v);
        put_double(out, v);
      }
    }
    bt_buf_append(out, "\n", 1);
  }
  for (uint32_t k = 0; k < d->nkeys; k++) put_key(out, d, key_slot(in, k), k);
  bt_buf_append(out, "end\n", 4);
  return out->err ? out->err : BT_OK;
}

/* ---- reading ---- */

struct bt_saved {
  bt_def def;         /* the saved shape and keys: what bt_def_match, bti_transfer and the bt_def_key_*
                         read of a definition (the keys' names in def.board_text) */
  unsigned char *mem; /* an instance of it: a bt_inst, then each state's status, flags, last
                         result, and its memory and deadline in a block of BLOCK bytes, then the
                         keys' values (def.board_off) */
  size_t mem_size;
  double now;         /* the time of the save */
};

typedef struct reader {
  const char *p;
  size_t n, pos;
  char *err;
  size_t errsize;
} reader;

static int fail(reader *r, const char *fmt, ...)
    BT_PRINTF_CHECK(2, 3)
    ;

static int fail(reader *r, const char *fmt, ...) {
  char msg[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* a text cut short ends in the middle of a word (a whole text ends with a newline) */
  size_t e = r->pos;
  while (e < r->n && r->p[e] != ' ' && r->p[e] != '\n') e++;
  if (r->err && r->errsize) {
    if (e >= r->n) snprintf(r->err, r->errsize, "truncated: %s at the end of the text", msg);
    else snprintf(r->err, r->errsize, "corrupt at byte %lu: %s", (unsigned long)r->pos, msg);
  }
  return BT_EINVAL;
}

static void skip_space(reader *r) {
  while (r->pos < r->n && (r->p[r->pos] == ' ' || r->p[r->pos] == '\n')) r->pos++;
}

/* The next word (up to a space or newline): its start and length, 0 if there is none. */
static size_t word(reader *r, const char **start) {
  skip_space(r);
  size_t b = r->pos;
  while (r->pos < r->n && r->p[r->pos] != ' ' && r->p[r->pos] != '\n') r->pos++;
  *start = r->p + b;
  return r->pos - b;
}

static int is_word(const char *w, size_t len, const char *s) { return strlen(s) == len && memcmp(w, s, len) == 0; }

/* A decimal number up to max; with a minus sign allowed (neg not NULL), its negative down to
 * -max - 1, *neg set. */
static int read_u64(reader *r, uint64_t max, uint64_t *out, int *neg, const char *what) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  uint64_t v = 0;
  int minus = neg && len > 1 && w[0] == '-', over = 0;
  if (neg) *neg = minus;
  if (len == (size_t)minus || len - (size_t)minus > 20) {
    r->pos = b;
    return fail(r, "expected %s", what);
  }
  for (size_t i = (size_t)minus; i < len; i++) {
    if (w[i] < '0' || w[i] > '9') {
      r->pos = b;
      return fail(r, "expected %s", what);
    }
    unsigned d = (unsigned)(w[i] - '0');
    over |= v > (UINT64_MAX - d) / 10;
    v = v * 10 + d;
  }
  if (over || v > max + (uint64_t)minus) {
    r->pos = b;
    return fail(r, "%s %.*s is out of range (at most %llu)", what, (int)(len > 24 ? 24 : len), w,
                (unsigned long long)max);
  }
  *out = v;
  return BT_OK;
}

static int read_u32(reader *r, uint32_t max, uint32_t *out, const char *what) {
  uint64_t v = 0;
  int rc = read_u64(r, max, &v, NULL, what);
  *out = (uint32_t)v;
  return rc;
}

/* <length>:<bytes>, up to max bytes: *start points at them in the text. */
static int read_text(reader *r, uint32_t max, const char **start, uint32_t *len, const char *what) {
  skip_space(r);
  size_t b = r->pos;
  while (r->pos < r->n && r->p[r->pos] != ':' && r->p[r->pos] != ' ' && r->p[r->pos] != '\n') r->pos++;
  reader lr = {r->p, r->pos, b, NULL, 0};
  if (r->pos >= r->n || r->p[r->pos] != ':' || read_u32(&lr, max, len, "a length") || lr.pos != r->pos) {
    r->pos = b;
    return fail(r, "expected %s as <length>:<bytes>", what);
  }
  r->pos++;
  if (r->n - r->pos < *len) {
    r->pos = r->n;
    return fail(r, "%s of %lu bytes", what, (unsigned long)*len);
  }
  *start = r->p + r->pos;
  r->pos += *len;
  return BT_OK;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* x and 16 hexadecimal digits; with nil_ok, "-" gives 0 (nil). Returns 1 for a number. */
static int read_double(reader *r, double *out, int nil_ok, const char *what) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  if (nil_ok && len == 1 && w[0] == '-') return 0;
  uint64_t u = 0;
  int ok = len == 17 && w[0] == 'x';
  for (size_t i = 1; ok && i < len; i++) {
    int h = hexval(w[i]);
    ok = h >= 0;
    u = u << 4 | (uint64_t)(h < 0 ? 0 : h);
  }
  if (!ok) {
    r->pos = b;
    return fail(r, "expected %s (x and 16 hexadecimal digits%s)", what, nil_ok ? ", or -" : "");
  }
  *out = double_of(u);
  return 1;
}

static int read_status(reader *r, uint8_t *out, const char *what) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  for (int s = BT_READY; s <= BT_RUNNING; s++)
    if (is_word(w, len, bt_status_name(s))) {
      *out = (uint8_t)s;
      return BT_OK;
    }
  r->pos = b;
  return fail(r, "expected %s (READY, SUCCESS, FAILED or RUNNING)", what);
}

static int read_kind(reader *r, uint8_t *out) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  for (int k = 0; k < BT_KIND_COUNT; k++)
    if (is_word(w, len, bt_kind_name(k))) {
      *out = (uint8_t)k;
      return BT_OK;
    }
  r->pos = b;
  return fail(r, "expected a node kind (a class name, as bt_kind_name gives it), got '%.*s'", (int)(len > 40 ? 40 : len), w);
}

void bt_saved_free(bt_saved *sv) {
  if (!sv) return;
  if (sv->mem) bti_board_fini((bt_inst *)(void *)sv->mem); /* the strings' values */
  free(sv->def.keys);
  free(sv->def.board_text);
  free(sv->def.nodes);
  free(sv->def.kids);
  free(sv->def.names);
  free(sv->def.states);
  free(sv->mem);
  free(sv);
}

/* The header: sets the counts and the time of the save. */
static int read_header(reader *r, bt_saved *sv, uint32_t *force) {
  const char *w;
  size_t len = word(r, &w);
  if (!is_word(w, len, "bt-state")) {
    r->pos = 0;
    if (r->err && r->errsize) snprintf(r->err, r->errsize, "not a saved tree state (it does not start with 'bt-state')");
    return BT_EINVAL;
  }
  uint32_t version;
  if (read_u32(r, UINT32_MAX, &version, "a version number")) return BT_EINVAL;
  if (version < 1 || version > VERSION) {
    if (r->err && r->errsize)
      snprintf(r->err, r->errsize, "saved with format version %lu; this version of bt reads versions 1 to %d",
               (unsigned long)version, VERSION);
    return BT_EINVAL;
  }
  if (read_u32(r, BT_MAX_NODES, &sv->def.nnodes, "the number of nodes") ||
      read_u32(r, sv->def.nnodes, &sv->def.nstates, "the number of states") ||
      read_u32(r, 1, force, "the force-update flag (0 or 1)") ||
      read_double(r, &sv->now, 0, "the time of the save") < 0 ||
      (version >= 2 && read_u32(r, MAX_KEYS, &sv->def.nkeys, "the number of keys")))
    return BT_EINVAL;
  if (sv->def.nkeys > (r->n - r->pos) / KEY_LINE_MIN)
    return fail(r, "%lu keys do not fit in the rest of the text", (unsigned long)sv->def.nkeys);
  if (sv->def.nnodes == 0) return fail(r, "a tree has one node at least");
  if (sv->def.nstates == 0) return fail(r, "a tree has one state at least");
  return BT_OK;
}

/* The nodes: shape, kinds and names. The children of each node follow it in pre-order. */
static int read_nodes(reader *r, bt_saved *sv) {
  bt_def *d = &sv->def;
  uint32_t nn = d->nnodes;
  bt_buf names = {0};
  uint32_t *stack = malloc(nn * sizeof *stack), depth = 0, nkids = 0;
  uint32_t *left = malloc(nn * sizeof *left); /* children still to come, of the nodes on the stack */
  d->nodes = calloc(nn, sizeof *d->nodes);
  d->kids = malloc(nn * sizeof *d->kids);
  d->states = calloc(d->nstates, sizeof *d->states);
  int rc = BT_ENOMEM;
  if (!stack || !left || !d->nodes || !d->kids || !d->states) goto done;
  rc = BT_EINVAL;
  for (uint32_t s = 0; s < d->nstates; s++) d->states[s].node = UINT32_MAX;
  for (uint32_t n = 0; n < nn; n++) {
    bt_node *nd = &d->nodes[n];
    uint32_t state, nchildren;
    if (read_u32(r, d->nstates - 1, &state, "a state number") || read_kind(r, &nd->kind) ||
        read_u32(r, nn - 1, &nchildren, "a number of children"))
      goto done;
    const char *name;
    uint32_t namelen;
    if (read_text(r, 4096, &name, &namelen, "a name")) goto done;
    nd->name = (uint32_t)names.len;
    bt_buf_append(&names, name, namelen);
    if (bt_buf_append(&names, "", 1) != BT_OK) { /* its NUL */
      rc = BT_ENOMEM;
      goto done;
    }
    /* its place in the tree */
    nd->state = state;
    nd->nchildren = nchildren;
    nd->children = nkids;
    if (nchildren > nn - 1 - nkids) {
      rc = fail(r, "node %lu has more children than the tree has nodes", (unsigned long)n);
      goto done;
    }
    nkids += nchildren;
    if (n == 0) {
      nd->up = -1;
    } else {
      if (depth == 0) {
        rc = fail(r, "node %lu comes after the whole tree", (unsigned long)n);
        goto done;
      }
      uint32_t up = stack[depth - 1];
      nd->up = (int32_t)up;
      nd->depth = depth;
      nd->sib = d->nodes[up].nchildren - left[depth - 1];
      d->kids[d->nodes[up].children + nd->sib] = n;
      if (--left[depth - 1] == 0) depth--;
      while (depth > 0 && left[depth - 1] == 0) depth--;
    }
    if (nchildren) {
      if (depth >= BT_MAX_DEPTH) {
        rc = fail(r, "the tree is deeper than %d levels", BT_MAX_DEPTH);
        goto done;
      }
      stack[depth] = n;
      left[depth++] = nchildren;
    }
    /* a state at several places (a node under several parents) has one kind */
    bt_state *st = &d->states[state];
    if (st->node == UINT32_MAX) {
      st->node = n;
    } else if (d->nodes[st->node].kind != nd->kind || d->nodes[st->node].nchildren != nchildren) {
      rc = fail(r, "node %lu shares state %lu with a node of another kind or shape", (unsigned long)n,
                (unsigned long)state);
      goto done;
    }
  }
  if (depth > 0) {
    rc = fail(r, "node %lu expects %lu more children", (unsigned long)stack[depth - 1],
              (unsigned long)left[depth - 1]);
    goto done;
  }
  for (uint32_t s = 0; s < d->nstates; s++)
    if (d->states[s].node == UINT32_MAX) {
      rc = fail(r, "state %lu belongs to no node", (unsigned long)s);
      goto done;
    }
  rc = BT_OK;
done:
  d->names = names.data; /* the saved's now, freed with it */
  free(stack);
  free(left);
  return rc;
}

/* Whether a saved child index may stand (as bt_inst_restore checks them). */
static int index_fits(const bti_field *f, uint32_t v, uint32_t nchildren) {
  switch (f->type) {
    case BTI_CHILD: return v == 0 || v <= nchildren;
    case BTI_INDEX: return v >= 1;
    default: return 1;
  }
}

/* The states: statuses, flags, deadlines and memory, into an instance of the saved shape. */
static int read_states(reader *r, bt_saved *sv, uint32_t force) {
  bt_def *d = &sv->def;
  uint32_t ns = d->nstates;
  size_t base = INST_HEADER_SIZE + ((2 * (size_t)ns + 7) & ~(size_t)7);
  d->board_off = (uint32_t)(base + (size_t)BLOCK * ns);
  sv->mem_size = d->board_off + (size_t)d->nkeys * sizeof(bti_value_slot);
  sv->mem = calloc(1, sv->mem_size);
  if (!sv->mem) return BT_ENOMEM;
  bt_inst *in = (bt_inst *)(void *)sv->mem;
  in->def = d;
  in->forceupdate = (uint8_t)force;
  for (uint32_t s = 0; s < ns; s++) {
    bt_state *st = &d->states[s];
    st->soff = (uint32_t)(INST_HEADER_SIZE + s);
    st->foff = (uint32_t)(INST_HEADER_SIZE + ns + s);
    st->mem = (uint32_t)(base + (size_t)BLOCK * s);
    st->nut = st->mem + 16;
    st->spill = NO_SLOT;
    st->parent = -1;
    const bt_node *nd = &d->nodes[st->node];
    uint32_t flags;
    uint8_t last;
    double t;
    if (read_status(r, status_at(in, s), "a status") || read_status(r, &last, "a last result") ||
        read_u32(r, 255, &flags, "flags"))
      return BT_EINVAL;
    if (flags & ~(uint32_t)(SAVED_FLAGS >> SF_SAVED_SHIFT))
      return fail(r, "flags %lu name no state of a node", (unsigned long)flags);
    flags = flags << SF_SAVED_SHIFT | last;
    int has = read_double(r, &t, 1, "a Sleep deadline");
    if (has < 0) return BT_EINVAL;
    if (has) memcpy(inst_mem(in) + st->nut, &t, sizeof t);
    else flags &= (uint32_t)~SF_NUT;
    *flags_at(in, s) = (uint8_t)flags;
    item it[MAX_ITEMS];
    int k = items_of(nd->kind, it);
    if (k < 0) return fail(r, "a %s cannot be restored", bt_kind_name(nd->kind));
    unsigned char *mem = inst_mem(in) + st->mem;
    for (int i = 0; i < k; i++) {
      if (it[i].type == I_U32) {
        uint32_t v;
        if (read_u32(r, UINT32_MAX, &v, "a child index or counter")) return BT_EINVAL;
        put_u32(mem + it[i].off, v);
      } else {
        if (read_double(r, &t, 0, "a time") < 0) return BT_EINVAL;
        memcpy(mem + it[i].off, &t, sizeof t);
      }
    }
    /* child indices that name no child */
    const bti_kind *kd = &bti_kinds[nd->kind];
    for (int i = 0; i < kd->nfields; i++) {
      const bti_field *f = &kd->fields[i];
      if (bti_is_index(f) && !index_fits(f, get_u32(mem + f->off), nd->nchildren))
        return fail(r, "state %lu's child index %lu names no child of its %s", (unsigned long)s,
                    (unsigned long)get_u32(mem + f->off), bt_kind_name(nd->kind));
    }
  }
  return BT_OK;
}

/* A key's type, by its name (bt_key_type_name), nil excluded. */
static int read_key_type(reader *r, uint8_t *out) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  for (int t = BT_KEY_NONE + 1; t < BT_KEY_TYPE_COUNT; t++)
    if (is_word(w, len, bt_key_type_name(t))) {
      *out = (uint8_t)t;
      return BT_OK;
    }
  r->pos = b;
  return fail(r, "expected a key's type (number, integer, boolean, string, entity or value), got '%.*s'",
              (int)(len > 40 ? 40 : len), w);
}

/* A value of type t into v, or - (unset). */
static int read_value(reader *r, int t, bti_value_slot *v) {
  const char *w;
  size_t b = (skip_space(r), r->pos), len = word(r, &w);
  if (len == 1 && w[0] == '-') return BT_OK; /* unset */
  r->pos = b;
  uint64_t u = 0;
  int neg = 0;
  switch (t) {
    case BT_KEY_NUMBER:
      if (read_double(r, &v->v.number, 0, "a number") < 0) return BT_EINVAL;
      break;
    case BT_KEY_INTEGER:
      if (read_u64(r, INT64_MAX, &u, &neg, "an integer")) return BT_EINVAL;
      v->v.integer = neg ? (long long)(0 - u) : (long long)u; /* (two's complement, as C23 has it) */
      break;
    case BT_KEY_BOOLEAN:
      len = word(r, &w);
      if (!is_word(w, len, "true") && !is_word(w, len, "false")) {
        r->pos = b;
        return fail(r, "expected a boolean (true or false)");
      }
      v->v.boolean = w[0] == 't';
      break;
    case BT_KEY_STRING: {
      uint32_t n;
      if (read_text(r, UINT32_MAX - 1, &w, &n, "a string")) return BT_EINVAL;
      if (memchr(w, '\0', n)) {
        r->pos = b;
        return fail(r, "a string with a NUL byte in it");
      }
      if (!(v->v.string = malloc((size_t)n + 1))) return BT_ENOMEM;
      memcpy(v->v.string, w, n);
      v->v.string[n] = '\0';
      break;
    }
    case BT_KEY_ENTITY:
      if (read_u64(r, UINT64_MAX, &u, NULL, "an entity's id")) return BT_EINVAL;
      v->v.id = u;
      break;
    default: return fail(r, "a key of type value holds a binding's value, which is never saved (only -)");
  }
  v->type = (uint8_t)t;
  return BT_OK;
}

/* A key's name and where its line starts, sorted by name to find one saved twice. */
typedef struct key_line {
  const char *name;
  size_t pos;
} key_line;

static int by_name(const void *a, const void *b) {
  const key_line *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The keys: name, type and value, into the saved definition and its instance. */
static int read_keys(reader *r, bt_saved *sv) {
  bt_def *d = &sv->def;
  bt_buf names = {0};
  key_line *lines = malloc((d->nkeys ? d->nkeys : 1) * sizeof *lines); /* names as offsets, at first */
  d->keys = calloc(d->nkeys ? d->nkeys : 1, sizeof *d->keys);
  int rc = lines && d->keys ? BT_OK : BT_ENOMEM;
  for (uint32_t k = 0; k < d->nkeys && rc == BT_OK; k++) {
    const char *name;
    uint32_t len;
    lines[k].pos = (skip_space(r), r->pos);
    if ((rc = read_key_type(r, &d->keys[k].type)) || (rc = read_text(r, 4096, &name, &len, "a key's name"))) break;
    if (len == 0 || memchr(name, '\0', len)) {
      r->pos = lines[k].pos;
      rc = fail(r, "a key's name is empty or holds a NUL byte");
      break;
    }
    lines[k].name = (const char *)(uintptr_t)names.len;
    bt_buf_append(&names, name, len);
    if (bt_buf_append(&names, "", 1) != BT_OK) rc = BT_ENOMEM;
    else rc = read_value(r, d->keys[k].type, key_slot((bt_inst *)(void *)sv->mem, k));
  }
  d->board_text = names.data; /* the saved's now, freed with it */
  if (rc == BT_OK) {
    for (uint32_t k = 0; k < d->nkeys; k++) {
      d->keys[k].name = names.data + (uintptr_t)lines[k].name;
      lines[k].name = d->keys[k].name;
    }
    qsort(lines, d->nkeys, sizeof *lines, by_name);
    for (uint32_t k = 1; k < d->nkeys && rc == BT_OK; k++)
      if (strcmp(lines[k - 1].name, lines[k].name) == 0) {
        r->pos = lines[k].pos;
        rc = fail(r, "key '%.40s' is saved twice", lines[k].name);
      }
  }
  free(lines);
  if (rc) return rc;
  const char *w;
  size_t len = word(r, &w);
  if (!is_word(w, len, "end")) {
    r->pos -= len;
    return fail(r, d->nkeys ? "expected 'end' after the keys" : "expected 'end' after the states");
  }
  return BT_OK;
}

int bt_saved_create(bt_saved **out, const void *data, size_t size, char *err, size_t errsize) {
  if (err && errsize) err[0] = '\0';
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!data) {
    if (err && errsize) snprintf(err, errsize, "no text");
    return BT_EINVAL;
  }
  bt_saved *sv = calloc(1, sizeof *sv);
  if (!sv) {
    if (err && errsize) snprintf(err, errsize, "not enough memory");
    return BT_ENOMEM;
  }
  reader r = {data, size, 0, err, errsize};
  uint32_t force = 0;
  int rc = read_header(&r, sv, &force);
  if (!rc) rc = read_nodes(&r, sv);
  if (!rc) rc = read_states(&r, sv, force);
  if (!rc) rc = read_keys(&r, sv);
  if (rc) {
    if (rc == BT_ENOMEM && err && errsize) snprintf(err, errsize, "not enough memory");
    bt_saved_free(sv);
    return rc;
  }
  *out = sv;
  return BT_OK;
}

/* ---- the saved shape ---- */

static int bad_node(const bt_saved *sv, int n) { return !sv || n < 0 || (uint32_t)n >= sv->def.nnodes; }

int bt_saved_size(const bt_saved *sv) { return sv ? (int)sv->def.nnodes : 0; }
int bt_saved_states(const bt_saved *sv) { return sv ? (int)sv->def.nstates : 0; }
double bt_saved_time(const bt_saved *sv) { return sv ? sv->now : 0; }
int bt_saved_kind(const bt_saved *sv, int n) { return bad_node(sv, n) ? BT_EINVAL : sv->def.nodes[n].kind; }
const char *bt_saved_name(const bt_saved *sv, int n) {
  return bad_node(sv, n) ? NULL : sv->def.names + sv->def.nodes[n].name;
}
int bt_saved_up(const bt_saved *sv, int n) { return bad_node(sv, n) ? BT_EINVAL : sv->def.nodes[n].up; }
int bt_saved_state(const bt_saved *sv, int n) { return bad_node(sv, n) ? BT_EINVAL : (int)sv->def.nodes[n].state; }
int bt_saved_node_of_state(const bt_saved *sv, int s) {
  if (!sv || s < 0 || (uint32_t)s >= sv->def.nstates) return BT_EINVAL;
  return (int)sv->def.states[s].node;
}
int bt_saved_status(const bt_saved *sv, int s) {
  if (!sv || s < 0 || (uint32_t)s >= sv->def.nstates) return BT_EINVAL;
  return *status_at((const bt_inst *)(const void *)sv->mem, (uint32_t)s);
}

/* ---- the saved keys: as bt_def_key_* and bt_inst_key_get read a definition's and an instance's ---- */

int bt_saved_key_count(const bt_saved *sv) { return sv ? (int)sv->def.nkeys : 0; }
int bt_saved_key_find(const bt_saved *sv, const char *name) { return sv ? bt_def_key_find(&sv->def, name) : BT_EINVAL; }
const char *bt_saved_key_name(const bt_saved *sv, int key) { return sv ? bt_def_key_name(&sv->def, key) : NULL; }
int bt_saved_key_type(const bt_saved *sv, int key) { return sv ? bt_def_key_type(&sv->def, key) : BT_EINVAL; }
int bt_saved_key_value(const bt_saved *sv, int key, bt_value *out) {
  return sv ? bt_inst_key_get((const bt_inst *)(const void *)sv->mem, key, out) : BT_EINVAL;
}

int bt_saved_match(const bt_saved *sv, const bt_def *to, int *map) {
  if (!sv) return BT_EINVAL;
  return bt_def_match(&sv->def, to, map);
}

/* ---- restoring ---- */

int bt_inst_import(bt_inst *in, const bt_saved *sv, const int *map, double now, bt_transfer *out) {
  if (!in || !sv || !map) return BT_EINVAL;
  if (in->thinking) return BT_EBUSY;
  forget_sleep(in);
  const bt_def *d = in->def;
  unsigned char *copy = malloc(sv->mem_size);
  if (!copy) return BT_ENOMEM;
  memcpy(copy, sv->mem, sv->mem_size);
  bt_inst *from = (bt_inst *)(void *)copy;
  /* every time moves by the time between the save and now (0 for a restore at the same time:
   * the times are then exactly the saved ones) */
  double shift = now - sv->now;
  int keep_clocks = 1;
  int *seen = calloc(sv->def.nstates, sizeof *seen);
  if (!seen) {
    free(copy);
    return BT_ENOMEM;
  }
  for (uint32_t s = 0; s < sv->def.nstates; s++) {
    const bt_state *st = &sv->def.states[s];
    unsigned char *mem = copy + st->mem;
    if (*flags_at(from, s) & SF_NUT) {
      double t;
      memcpy(&t, copy + st->nut, sizeof t);
      t += shift;
      memcpy(copy + st->nut, &t, sizeof t);
    }
    item it[MAX_ITEMS];
    int k = items_of(sv->def.nodes[st->node].kind, it);
    for (int i = 0; i < k; i++)
      if (it[i].type == I_TIME) {
        double t;
        memcpy(&t, mem + it[i].off, sizeof t);
        t += shift;
        memcpy(mem + it[i].off, &t, sizeof t);
      }
  }
  /* the same shape (every state of each side matched, once): it resumes as it was saved, clocks
   * included; else, as after a reload, every Priority evaluates at the next think */
  for (uint32_t s = 0; s < d->nstates; s++) {
    if (map[s] < 0 || (uint32_t)map[s] >= sv->def.nstates || seen[map[s]]++) keep_clocks = 0;
  }
  if (d->nstates != sv->def.nstates) keep_clocks = 0;
  free(seen);
  /* the instance becomes as new (its generator kept), then takes the saved states; kept as it
   * was if that fails */
  size_t head = INST_HEADER_SIZE, rng = d->rng_off;
  unsigned char *backup = malloc(d->inst_size);
  if (!backup) {
    free(copy);
    return BT_ENOMEM;
  }
  memcpy(backup, inst_mem(in), d->inst_size);
  /* the hook (which stays attached) is told each status go from what it was to what was saved,
   * not the steps through the new instance's READY */
  int hooked = in->hooked;
  in->hooked = 0;
  memcpy(inst_mem(in) + head, d->image + head, d->inst_size - head);
  if (rng) memcpy(inst_mem(in) + rng, backup + rng, sizeof(uint64_t));
  in->hint = 0;
  int rc = bti_transfer(in, from, map, out, keep_clocks ? BTI_KEEP_CLOCKS : 0);
  if (rc != BT_OK) { /* as it was, but for the bti_ext the transfer may have made (which keeps the agent) */
    void *agent = in->agent;
    uint8_t extended = in->extended;
    memcpy(inst_mem(in), backup, d->inst_size);
    in->agent = agent;
    in->extended = extended & 1;
  }
  in->hooked = (uint8_t)(hooked & 1);
  if (rc == BT_OK) {
    for (uint32_t s = 0; s < d->nstates; s++)
      hook_status(in, &d->nodes[d->states[s].node], backup[d->states[s].soff], *status_at(in, s));
    bti_board_fini((bt_inst *)(void *)backup); /* the strings the keys held before */
  }
  free(backup);
  free(copy);
  return rc;
}
