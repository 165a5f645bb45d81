/* SPDX-License-Identifier: MIT */
/* brain_text.c: bench/brains.lua's text form of a brain, read in C (brain_text.h). */
#include "brain_text.h"

#include <stdlib.h>
#include <string.h>

const char brain_small[] =
    "(Priority 0.25\n"
    "  (While scared (Parallel (Action flee) (Wait 2)))\n"
    "  (If hungry (Sequence (Action find) (Wait 1) (Action eat)))\n"
    "  (While night (Priority 0.5\n"
    "    (If home (Action sleep))\n"
    "    (Sequence (Condition tired) (Wait 3))))\n"
    "  (Sequence (Condition bored) (Not (Condition busy)) (Action play))\n"
    "  (If calm (Sequence (Selector (Not (Condition alarmed)) (Action cope)) (Loop (Sequence"
    " (Condition idle) (Wait 1.5) (Action wander) (Wait 0.5) (Action look))))))";

typedef struct reader {
  brain *b;
  const char *p;
  int node_cap, kid_cap, field_cap;
} reader;

static int fail(reader *r, const char *error) {
  r->b->error = error;
  r->b->near = r->p;
  return -1;
}

static void skip_space(reader *r) {
  while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t') r->p++;
}

static int read_atom(reader *r, char *out, size_t size) {
  skip_space(r);
  size_t n = strcspn(r->p, " \n\t()");
  if (n == 0 || n >= size) return fail(r, "bad atom");
  memcpy(out, r->p, n);
  out[n] = '\0';
  r->p += n;
  return 0;
}

/* Grows *array of *cap elements of size bytes to hold at least need; 0 or -1. */
static int grow(void *array, int *cap, int need, size_t size) {
  if (need <= *cap) return 0;
  int cap2 = *cap ? *cap : 16;
  while (cap2 < need) cap2 *= 2;
  void *p = realloc(*(void **)array, (size_t)cap2 * size);
  if (!p) return -1;
  *(void **)array = p;
  *cap = cap2;
  return 0;
}

int brain_field(const brain *b, const char *name) {
  for (int i = 0; i < b->nfields; i++)
    if (strcmp(b->fields[i], name) == 0) return i;
  return -1;
}

static int add_field(reader *r, const char *name) {
  brain *b = r->b;
  int i = brain_field(b, name);
  if (i >= 0) return i;
  if (strlen(name) >= BRAIN_FIELD_LEN) return fail(r, "field name too long");
  if (grow(&b->fields, &r->field_cap, b->nfields + 1, sizeof *b->fields)) return fail(r, "out of memory");
  strcpy(b->fields[b->nfields], name);
  return b->nfields++;
}

static int add_node(reader *r, int kind, double param, int field, const int *kids, int nkids) {
  brain *b = r->b;
  if (grow(&b->nodes, &r->node_cap, b->n + 1, sizeof *b->nodes) ||
      grow(&b->kids, &r->kid_cap, b->nkids + nkids, sizeof *b->kids))
    return fail(r, "out of memory");
  b->nodes[b->n] = (brain_node){kind, param, field, b->nkids, nkids};
  if (nkids > 0) memcpy(b->kids + b->nkids, kids, (size_t)nkids * sizeof *kids);
  b->nkids += nkids;
  return b->n++;
}

#define MAX_KIDS 256

/* Reads one (Kind args... children...); returns its node index, or -1. */
static int read_node(reader *r) {
  char kind[32], arg[32];
  skip_space(r);
  if (*r->p != '(') return fail(r, "'(' expected");
  r->p++;
  if (read_atom(r, kind, sizeof kind) < 0) return -1;
  int has_field = !strcmp(kind, "While") || !strcmp(kind, "If") || !strcmp(kind, "Condition") ||
                  !strcmp(kind, "Action");
  int has_number = !strcmp(kind, "Priority") || !strcmp(kind, "Wait");
  if ((has_field || has_number) && read_atom(r, arg, sizeof arg) < 0) return -1;
  int field = has_field ? add_field(r, arg) : -1;
  if (has_field && field < 0) return -1;
  int kids[MAX_KIDS], nkids = 0;
  for (;;) {
    skip_space(r);
    if (*r->p == ')') {
      r->p++;
      break;
    }
    if (nkids == MAX_KIDS) return fail(r, "more than 256 children");
    int kid = read_node(r);
    if (kid < 0) return -1;
    kids[nkids++] = kid;
  }
  double num = has_number ? atof(arg) : 0;
  if (!strcmp(kind, "Priority")) return add_node(r, BRAIN_PRIORITY, num, -1, kids, nkids);
  if (!strcmp(kind, "Sequence")) return add_node(r, BRAIN_SEQUENCE, 0, -1, kids, nkids);
  if (!strcmp(kind, "Selector")) return add_node(r, BRAIN_SELECTOR, 0, -1, kids, nkids);
  if (!strcmp(kind, "Parallel")) return add_node(r, BRAIN_PARALLEL, 0, -1, kids, nkids);
  if (!strcmp(kind, "Loop")) return add_node(r, BRAIN_LOOP, 0, -1, kids, nkids);
  if (!strcmp(kind, "Not") && nkids == 1) return add_node(r, BRAIN_NOT, 0, -1, kids, 1);
  if (!strcmp(kind, "FailIfSuccess") && nkids == 1) return add_node(r, BRAIN_FAILIFSUCCESS, 0, -1, kids, 1);
  if (!strcmp(kind, "Wait") && nkids == 0) return add_node(r, BRAIN_WAIT, num, -1, kids, 0);
  if (!strcmp(kind, "Condition") && nkids == 0) return add_node(r, BRAIN_CONDITION, 0, field, kids, 0);
  if (!strcmp(kind, "Action") && nkids == 0) return add_node(r, BRAIN_ACTION, 0, field, kids, 0);
  if ((!strcmp(kind, "While") || !strcmp(kind, "If")) && nkids == 1) {
    int pair[2] = {add_node(r, BRAIN_CONDITION, 0, field, kids, 0), kids[0]};
    if (pair[0] < 0) return -1;
    return add_node(r, kind[0] == 'W' ? BRAIN_PARALLEL : BRAIN_SEQUENCE, 0, -1, pair, 2);
  }
  return fail(r, "unknown kind or wrong number of children");
}

int brain_read(brain *b, const char *text) {
  memset(b, 0, sizeof *b);
  reader r = {b, text, 0, 0, 0};
  b->root = read_node(&r);
  return b->root < 0 ? -1 : 0;
}

void brain_free(brain *b) {
  free(b->nodes);
  free(b->kids);
  free(b->fields);
  memset(b, 0, sizeof *b);
}

int brain_graph(const brain *b, bt_graph *g, bt_fn condition, bt_fn action) {
  static const int kinds[] = {BT_PRIORITY, BT_SEQUENCE, BT_SELECTOR, BT_PARALLEL, BT_LOOP,
                              BT_NOT, BT_FAILIFSUCCESS, BT_WAIT, BT_CONDITION, BT_ACTION};
  for (int i = 0; i < b->n; i++) {
    const brain_node *p = &b->nodes[i];
    bt_spec s = {0};
    s.kind = kinds[p->kind];
    s.param = p->param;
    if (p->kind == BRAIN_LOOP) s.flags = BT_SPEC_NIL_PARAM; /* a Loop without maxreps */
    if (p->field >= 0) {
      s.name = b->fields[p->field];
      s.fn = p->kind == BRAIN_CONDITION ? condition : action;
      s.ud = (void *)(size_t)p->field;
    }
    if (bt_graph_add(g, &s) != i) return -1;
    if (p->nkids && bt_graph_set_children(g, i, b->kids + p->first, p->nkids) != BT_OK) return -1;
  }
  return 0;
}
