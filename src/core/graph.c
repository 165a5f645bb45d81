/* SPDX-License-Identifier: MIT */
/* graph.c: describing a tree (bt_graph) and compiling it into a flat definition (bt_def). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct gnode {
  bt_spec spec; /* spec.name points into names (copied); its ports, where, key and string value
                   into extra */
  char *name;
  void *extra;
  int *kids;
  int nkids;
  int parent;
} gnode;

struct bt_graph {
  gnode *nodes;
  int n, cap;
  bti_graph_key *keys; /* bt_graph_add_key's */
  int nkeys, capkeys;
  char err[512];
};

#define graph_error(g, code, ...) bti_fail((g)->err, sizeof (g)->err, code, __VA_ARGS__)

int bt_graph_create(bt_graph **out) {
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_graph_free(bt_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n; i++) {
    free(g->nodes[i].name);
    free(g->nodes[i].extra);
    free(g->nodes[i].kids);
  }
  for (int k = 0; k < g->nkeys; k++) free(g->keys[k].name);
  free(g->keys);
  free(g->nodes);
  free(g);
}

const char *bt_graph_errmsg(const bt_graph *g) { return g ? g->err : "no graph"; }

static int valid_id(const bt_graph *g, int id) { return id >= 0 && id < g->n; }

static size_t text_size(const char *s) { return s ? strlen(s) + 1 : 0; }

static char *put_text(char **at, const char *s) {
  if (!s) return NULL;
  char *p = *at;
  size_t n = strlen(s) + 1;
  memcpy(p, s, n);
  *at += n;
  return p;
}

/* Copies what the spec points to for the blackboard (its ports, where, key, string value) into
 * one block, gn->extra, and points gn->spec at the copies. */
static int copy_extra(gnode *gn, const bt_spec *spec) {
  gn->extra = NULL;
  if (spec->nports < 0 || (spec->nports > 0 && !spec->ports)) return BT_EINVAL;
  int has_string = spec->value.type == BT_KEY_STRING;
  if (has_string && !spec->value.as.string) return BT_EINVAL;
  size_t size = (size_t)spec->nports * sizeof(bt_port) + text_size(spec->where) + text_size(spec->key) +
                (has_string ? text_size(spec->value.as.string) : 0);
  for (int i = 0; i < spec->nports; i++) {
    if (!spec->ports[i].key) return BT_EINVAL;
    size += text_size(spec->ports[i].key);
  }
  if (size == 0) return BT_OK;
  gn->extra = malloc(size);
  if (!gn->extra) return BT_ENOMEM;
  bt_port *ports = gn->extra;
  char *at = (char *)(ports + spec->nports);
  for (int i = 0; i < spec->nports; i++) {
    ports[i] = spec->ports[i];
    ports[i].key = put_text(&at, spec->ports[i].key);
  }
  gn->spec.ports = spec->nports ? ports : NULL;
  gn->spec.where = put_text(&at, spec->where);
  gn->spec.key = put_text(&at, spec->key);
  if (has_string) gn->spec.value.as.string = put_text(&at, spec->value.as.string);
  return BT_OK;
}

int bt_graph_add_key(bt_graph *g, const char *name, int type, unsigned flags) {
  if (!g) return BT_EINVAL;
  if (!name || !*name) return graph_error(g, BT_EINVAL, "bt_graph_add_key: a key needs a name");
  if (type <= BT_KEY_NONE || type >= BT_KEY_TYPE_COUNT)
    return graph_error(g, BT_EINVAL, "bt_graph_add_key: key '%s': bad type %d", name, type);
  if (flags & ~(unsigned)BT_KEY_HOST)
    return graph_error(g, BT_EINVAL, "bt_graph_add_key: key '%s': bad flags 0x%x", name, flags);
  for (int k = 0; k < g->nkeys; k++) {
    if (strcmp(g->keys[k].name, name) != 0) continue;
    if (g->keys[k].type != type || g->keys[k].flags != flags)
      return graph_error(g, BT_EINVAL, "bt_graph_add_key: key '%s' is declared already, as %s%s", name,
                         g->keys[k].flags & BT_KEY_HOST ? "the host's " : "a ",
                         bt_key_type_name(g->keys[k].type));
    return k;
  }
  if (bti_grow((void **)&g->keys, &g->capkeys, g->nkeys + 1, sizeof *g->keys) != BT_OK)
    return graph_error(g, BT_ENOMEM, "bt_graph_add_key: out of memory");
  char *copy = bti_strdup(name);
  if (!copy) return graph_error(g, BT_ENOMEM, "bt_graph_add_key: out of memory");
  g->keys[g->nkeys] = (bti_graph_key){copy, type, flags};
  return g->nkeys++;
}

int bt_graph_add(bt_graph *g, const bt_spec *spec) {
  if (!spec || spec->kind < 0 || spec->kind >= BT_KIND_COUNT)
    return graph_error(g, BT_EINVAL, "bt_graph_add: bad node kind %d", spec ? spec->kind : -1);
  if (g->n >= BT_MAX_NODES)
    return graph_error(g, BT_ETOOBIG, "bt_graph_add: more than %d nodes", BT_MAX_NODES);
  if (g->n == g->cap) {
    int cap = g->cap ? g->cap * 2 : 16;
    gnode *p = realloc(g->nodes, (size_t)cap * sizeof *p);
    if (!p) return graph_error(g, BT_ENOMEM, "bt_graph_add: out of memory");
    g->nodes = p;
    g->cap = cap;
  }
  char param_name[64];
  const char *name = spec->name ? spec->name : bt_kind_default_name(spec->kind);
  const char *format = bti_kinds[spec->kind].param_name;
  if (!spec->name && format && !(spec->flags & BT_SPEC_PARAM_FN)) {
    snprintf(param_name, sizeof param_name, format, spec->param);
    name = param_name;
  }
  char *copy = bti_strdup(name);
  if (!copy) return graph_error(g, BT_ENOMEM, "bt_graph_add: out of memory");
  gnode *gn = &g->nodes[g->n];
  memset(gn, 0, sizeof *gn);
  gn->spec = *spec;
  gn->name = copy;
  gn->spec.name = copy;
  gn->parent = -1;
  int rc = copy_extra(gn, spec);
  if (rc != BT_OK) {
    free(copy);
    return graph_error(g, rc, rc == BT_ENOMEM ? "bt_graph_add: out of memory"
                                              : "bt_graph_add: node '%s': a port, key or string value that is NULL",
                       name);
  }
  return g->n++;
}

int bt_graph_set_children(bt_graph *g, int node, const int *children, int count) {
  if (!valid_id(g, node)) return graph_error(g, BT_EINVAL, "bt_graph_set_children: no node %d", node);
  if (count < 0 || (count > 0 && !children))
    return graph_error(g, BT_EINVAL, "bt_graph_set_children: bad children count %d", count);
  for (int i = 0; i < count; i++)
    if (!valid_id(g, children[i]))
      return graph_error(g, BT_EINVAL, "bt_graph_set_children: child %d of node %d is no node (%d)",
                         i + 1, node, children[i]);
  int *kids = NULL;
  if (count > 0) {
    kids = malloc((size_t)count * sizeof *kids);
    if (!kids) return graph_error(g, BT_ENOMEM, "bt_graph_set_children: out of memory");
    memcpy(kids, children, (size_t)count * sizeof *kids);
  }
  free(g->nodes[node].kids);
  g->nodes[node].kids = kids;
  g->nodes[node].nkids = count;
  for (int i = 0; i < count; i++) g->nodes[children[i]].parent = node;
  return BT_OK;
}

int bt_graph_set_parent(bt_graph *g, int node, int parent) {
  if (!valid_id(g, node) || (parent != -1 && !valid_id(g, parent)))
    return graph_error(g, BT_EINVAL, "bt_graph_set_parent: bad node %d or parent %d", node, parent);
  g->nodes[node].parent = parent;
  return BT_OK;
}

/* ---- compiling ---- */

enum { WHITE, GRAY, BLACK };

typedef struct frame {
  int id;
  int next; /* next child to look at */
} frame;

typedef struct compiler {
  bt_graph *g;
  uint8_t *color;
  uint32_t *size;   /* expanded subtree size, saturating */
  uint32_t *height; /* 1 + deepest child */
  int32_t *state;   /* graph id -> state slot, -1 unreachable */
  uint32_t nstates;
} compiler;

/* A param the kind cannot take: a number of passes under 1, seconds that are no number. */
static int check_param(bt_graph *g, int id) {
  const gnode *gn = &g->nodes[id];
  const bt_spec *s = &gn->spec;
  int k = s->kind;
  switch (bti_kinds[k].param) {
    case BTI_TIMES:
      if (!(s->flags & BT_SPEC_NIL_PARAM) && !(s->param >= 1))
        return graph_error(g, BT_EINVAL, "node %d '%s': %s %s repeats at least once, not %g", id,
                           gn->name, bti_article(k), bt_kind_name(k), s->param);
      return BT_OK;
    case BTI_SECONDS:
      if (!(s->param >= 0) || s->param > 1e300)
        return graph_error(g, BT_EINVAL, "node %d '%s': %s needs a number of seconds, not %g", id,
                           gn->name, bt_kind_name(k), s->param);
      return BT_OK;
    default: return BT_OK;
  }
}

/* Children the kind cannot have; a node whose own visit decides what its children mean may have
 * any (but a node naming a library tree). */
static int check_children(bt_graph *g, int id) {
  const gnode *gn = &g->nodes[id];
  int k = gn->spec.kind;
  int custom_visit = gn->spec.ops && gn->spec.ops->visit;
  switch (bti_kinds[k].children) {
    case BTI_ONE:
      if (gn->nkids != 1 && !custom_visit)
        return graph_error(g, BT_EINVAL, "node %d '%s': %s needs exactly one child, it has %d", id,
                           gn->name, bt_kind_name(k), gn->nkids);
      return BT_OK;
    case BTI_AT_MOST_ONE:
      if (gn->nkids > 1 && !custom_visit)
        return graph_error(g, BT_EINVAL, "node %d '%s': %s %s takes at most one child", id,
                           gn->name, bti_article(k), bt_kind_name(k));
      return BT_OK;
    case BTI_SOME:
      if (gn->nkids < 1 && !custom_visit)
        return graph_error(g, BT_EINVAL, "node %d '%s': %s %s needs a child to run", id,
                           gn->name, bti_article(k), bt_kind_name(k));
      return BT_OK;
    case BTI_NAMED:
      if (gn->nkids == 0)
        return graph_error(g, BT_EINVAL, "subtree '%s': no library to find it in", gn->name);
      if (gn->nkids > 1)
        return graph_error(g, BT_EINVAL, "subtree '%s': %s %s runs one tree, it has %d children",
                           gn->name, bti_article(k), bt_kind_name(k), gn->nkids);
      return BT_OK;
    default: return BT_OK;
  }
}

/* The functions the kind needs, unless the node's own visit does without them. */
static int check_functions(bt_graph *g, int id) {
  const gnode *gn = &g->nodes[id];
  int k = gn->spec.kind;
  const char *lacks = bti_spec_lacks(&gn->spec);
  if (!lacks) return BT_OK;
  return graph_error(g, BT_EINVAL, "node %d '%s': %s %s needs %s", id, gn->name, bti_article(k),
                     bt_kind_name(k), lacks);
}

static int check_node(bt_graph *g, int id) {
  int rc = check_children(g, id);
  if (rc == BT_OK) rc = check_param(g, id);
  if (rc == BT_OK) rc = check_functions(g, id);
  return rc;
}

static int cycle_error(compiler *c, const frame *stack, int top, int id) {
  bt_graph *g = c->g;
  char path[400] = "";
  size_t len = 0;
  int from = top;
  while (from > 0 && stack[from].id != id) from--;
  for (int i = from; i <= top && len < sizeof path - 40; i++) {
    len += (size_t)snprintf(path + len, sizeof path - len, "%s%s", g->nodes[stack[i].id].name,
                            i < top ? " > " : "");
    if (len >= sizeof path) len = sizeof path - 1; /* truncated */
  }
  snprintf(path + len, sizeof path - len, " > %s", g->nodes[id].name);
  return graph_error(g, BT_ECYCLE, "cycle: node '%s' is its own ancestor (%s)", g->nodes[id].name,
                     path);
}

/* Depth-first over the graph from root: finds cycles, reachable nodes, subtree sizes, heights. */
static int analyse(compiler *c, int root) {
  bt_graph *g = c->g;
  frame *stack = malloc((size_t)(g->n + 1) * sizeof *stack);
  if (!stack) return graph_error(g, BT_ENOMEM, "bt_def_create: out of memory");
  int top = 0, rc = BT_OK;
  stack[0] = (frame){root, 0};
  c->color[root] = GRAY;
  while (top >= 0) {
    frame *f = &stack[top];
    gnode *gn = &g->nodes[f->id];
    if (f->next < gn->nkids) {
      int kid = gn->kids[f->next++];
      if (c->color[kid] == GRAY) {
        rc = cycle_error(c, stack, top, kid);
        break;
      }
      if (c->color[kid] == WHITE) {
        c->color[kid] = GRAY;
        stack[++top] = (frame){kid, 0};
      }
      continue;
    }
    rc = check_node(g, f->id);
    if (rc) break;
    uint64_t size = 1;
    uint32_t height = 1;
    for (int i = 0; i < gn->nkids; i++) {
      size += c->size[gn->kids[i]];
      if (c->height[gn->kids[i]] + 1 > height) height = c->height[gn->kids[i]] + 1;
    }
    c->size[f->id] = size > BT_MAX_NODES ? BT_MAX_NODES + 1 : (uint32_t)size;
    c->height[f->id] = height > BT_MAX_DEPTH + 2 ? BT_MAX_DEPTH + 2 : height;
    c->color[f->id] = BLACK;
    top--;
  }
  free(stack);
  if (rc) return rc;
  if (c->size[root] > BT_MAX_NODES)
    return graph_error(g, BT_ETOOBIG, "tree has more than %d nodes (shared nodes count at each place)",
                       BT_MAX_NODES);
  if (c->height[root] > BT_MAX_DEPTH + 1)
    return graph_error(g, BT_ETOOBIG, "tree is deeper than %d levels", BT_MAX_DEPTH);
  return BT_OK;
}

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Bytes of a state's memory in the instance: nextupdatetime (if it keeps one there), then the
 * kind's memory; and its alignment. *saved: the bytes of its memory in a saved state, where a
 * spilled deadline has its place as one kept in the instance (the format does not depend on where
 * an instance keeps it), and *spills: its deadline is kept outside the instance (bti_ext). */
static size_t state_mem_size(const bt_node *nd, int *needs_nut, size_t *align, size_t *saved, int *spills) {
  int deadline = bti_kinds[nd->kind].deadline;
  *needs_nut = deadline == BTI_OWN_DEADLINE || (nd->ops && nd->ops->visit);
  *spills = !*needs_nut && deadline == BTI_SPILL_DEADLINE;
  int kmem = bti_kinds[nd->kind].mem_size;
  *align = *needs_nut || *spills || kmem >= 8 ? 8 : kmem ? 4 : 1; /* the saved state's order */
  *saved = (*needs_nut || *spills ? sizeof(double) : 0) + (size_t)kmem;
  return (*needs_nut ? sizeof(double) : 0) + (size_t)kmem;
}

/* Whether a definition compiled now takes its fast paths (docs/internals.md "Fast paths"): not when
 * the environment has BT_NO_FAST_PATHS set to anything but "" or "0". Read at each compile, and
 * only there, so that a think never asks; nothing is kept in the library (no global state), and
 * a test compiles the same tree both ways in one process. getenv may run on any thread, as
 * compiles do; only a host changing its environment meanwhile would race with it, as with any
 * getenv. This is a switch for checking the reference way (docs/testing.md), not a setting of
 * a game: it makes thinks slower and changes no result. */
static int fast_paths_wanted(void) {
  const char *v = getenv("BT_NO_FAST_PATHS");
  return !v || !v[0] || (v[0] == '0' && !v[1]);
}

/* Lays out the instance. After the header come chunks of 64 states in pre-order, each holding
 * everything of its states: the dirty and touched words of the bit sets (a tree of one chunk
 * keeps no dirty word), the statuses, the flags with the last results, then each state's memory (nextupdatetime first, if any, then the kind's). A think
 * reads the chunks of the nodes it visits, so a large tree whose running path lies in its first
 * nodes touches about the memory of a small tree's instance. Offsets are from the instance's
 * start. Saved states keep the memory packed, as if in one area (pmem, pnut, mem_size). The
 * recorder and the deadlines of the leaves that never sleep by themselves are kept outside
 * (bti_ext): an instance that has none pays nothing for them. */
static int layout_memory(bt_def *d) {
  size_t n = d->nstates;
  d->nwords = (uint32_t)((n + 63) / 64);
  d->sum_shift = 0;
  while (d->nwords > (uint32_t)64 << d->sum_shift) d->sum_shift++;
  d->chunks = calloc(d->nwords ? d->nwords : 1, sizeof *d->chunks);
  if (!d->chunks) return BT_ENOMEM;
  size_t size = INST_HEADER_SIZE, packed = 0;
  d->sums_off = 0;
  if (d->nwords > 1) {
    d->sums_off = (uint32_t)size;
    size += 2 * sizeof(uint64_t);
  }
  d->rng_off = 0;
  int draws = d->nscatter > 0;
  for (uint32_t i = 0; i < d->nnodes; i++)
    if (bti_kinds[d->nodes[i].kind].draws) draws = 1;
  if (draws) {
    d->rng_off = (uint32_t)size;
    size += sizeof(uint64_t);
  }
  d->nspill = 0;
  for (uint32_t w = 0; w < d->nwords; w++) {
    uint32_t first = w * 64, k = (uint32_t)(n - first < 64 ? n - first : 64);
    if (d->nwords > 1) size += sizeof(uint64_t); /* dirty (a tree of one chunk keeps none) */
    d->chunks[w] = (uint32_t)size;
    size += sizeof(uint64_t); /* touched */
    for (uint32_t i = 0; i < k; i++) {
      bt_state *st = &d->states[first + i];
      st->soff = (uint32_t)(size + i);
      st->foff = (uint32_t)(size + k + i);
    }
    size += 2 * (size_t)k;
    /* the memory of the states aligned for a double first, then the others: less padding (in
     * the order of the saved states' memory, which keeps a spilled deadline) */
    for (uint32_t j = 0; j < 2 * k; j++) {
      bt_state *st = &d->states[first + j % k];
      int needs_nut, spills;
      size_t align, saved, bytes = state_mem_size(&d->nodes[st->node], &needs_nut, &align, &saved, &spills);
      if ((align == 8) != (j < k)) continue;
      size = align_up(size, needs_nut || bytes >= 8 ? 8 : bytes ? 4 : 1);
      packed = align_up(packed, align);
      st->nut = NO_SLOT;
      st->pnut = spills || needs_nut ? (uint32_t)packed : NO_SLOT;
      st->spill = spills ? d->nspill++ : NO_SLOT;
      if (needs_nut) st->nut = (uint32_t)size;
      st->mem = (uint32_t)(size + (needs_nut ? sizeof(double) : 0));
      st->pmem = (uint32_t)(packed + (needs_nut || spills ? sizeof(double) : 0));
      size += bytes;
      packed += saved;
    }
    size = align_up(size, 8);
  }
  d->mem_size = align_up(packed, 8);
  d->inst_size = align_up(size, 8);
  d->board_off = (uint32_t)d->inst_size; /* the blackboard's values last */
  d->inst_size += (size_t)d->nkeys * sizeof(bti_value_slot);
  d->unshared = d->nstates == d->nnodes;
  d->fast_paths = fast_paths_wanted();
  d->scan_children = d->unshared && d->fast_paths ? SCAN_CHILDREN : UINT32_MAX;
  d->plain_step = 1;
  for (uint32_t i = 0; i < d->nnodes; i++) {
    bt_node *nd = &d->nodes[i];
    nd->mem = d->states[nd->state].mem;
    nd->soff = d->states[nd->state].soff;
    nd->foff = d->states[nd->state].foff;
    int several = d->nwords > 1;
    nd->touched = d->chunks[nd->state >> 6];
    nd->mask = (uint64_t)1 << (nd->state & 63);
    nd->sums = d->sums_off;
    nd->sum = several ? (uint64_t)1 << ((nd->state >> 6) >> d->sum_shift) : 0;
    nd->sum_clear = d->sum_shift ? 0 : nd->sum;
    const bti_kind *k = &bti_kinds[nd->kind];
    nd->rewinds = 0;
    for (int f = 0; f < k->nfields; f++) {
      const bti_field *fd = &k->fields[f];
      if (!bti_is_index(fd) && fd->type != BTI_COUNTER) continue;
      nd->rewind_off[nd->rewinds] = (uint8_t)fd->off;
      nd->rewind_val[nd->rewinds++] = (uint8_t)bti_rewound(fd);
    }
    nd->hooks = 0;
    if (nd->ops && nd->ops->visit) nd->hooks |= HOOK_VISIT;
    if (nd->ops && nd->ops->reset) nd->hooks |= HOOK_RESET;
    if (nd->ops && nd->ops->step) nd->hooks |= HOOK_STEP;
    if (!d->fast_paths) nd->hooks |= HOOK_REFERENCE; /* and so plain_step and walk_reset 0 */
    if (has_own_reset(nd)) d->plain_step = 0;
  }
  d->walk_reset = d->plain_step;
  for (uint32_t i = 0; i < d->nnodes; i++)
    if (bti_kinds[d->nodes[i].kind].fn == BTI_TASK) d->walk_reset = 0; /* its abort calls the host */
  d->small_plain = d->fast_paths && d->nwords == 1 && d->nnodes > 0;
  for (uint32_t i = 0; i < d->nnodes; i++) {
    const bt_node *nd = &d->nodes[i];
    if (nd->ops || !bti_kinds[nd->kind].small) d->small_plain = 0;
  }
  return BT_OK;
}

typedef struct emitter {
  compiler *c;
  bt_def *d;
  uint32_t *name_off;
  uint32_t next_flat, next_kid;
} emitter;

/* Writes the next pre-order node for graph node id; returns its index. */
static uint32_t emit_node(emitter *e, int id, int32_t up, uint32_t depth) {
  compiler *c = e->c;
  bt_def *d = e->d;
  const gnode *gn = &c->g->nodes[id];
  const bt_spec *s = &gn->spec;
  uint32_t flat = e->next_flat++;
  if (c->state[id] < 0) {
    c->state[id] = (int32_t)c->nstates;
    d->states[c->nstates].node = flat;
    d->states[c->nstates].graph = id;
    c->nstates++;
  }
  bt_node *nd = &d->nodes[flat];
  const bti_kind *k = &bti_kinds[s->kind];
  nd->kind = (uint8_t)s->kind;
  nd->flags = 0;
  if (k->children == BTI_LEAF || (k->children == BTI_OPTIONAL && !(s->flags & BT_SPEC_CHILDREN)))
    nd->flags |= NF_LEAF;
  if (s->flags & BT_SPEC_NIL_PARAM) nd->flags |= NF_NIL_PARAM;
  if (s->flags & BT_SPEC_PARAM_FN) nd->flags |= NF_PARAM_FN;
  if (s->flags & BT_SPEC_NOSCATTER) nd->flags |= NF_NOSCATTER;
  if (s->flags & BT_SPEC_SUCCESS_ONE) nd->flags |= NF_SUCCESS_ONE;
  if (s->flags & BT_SPEC_FAILURE_ALL) nd->flags |= NF_FAILURE_ALL;
  nd->state = (uint32_t)c->state[id];
  nd->nchildren = (uint32_t)gn->nkids;
  nd->children = e->next_kid;
  e->next_kid += (uint32_t)gn->nkids;
  nd->up = up;
  nd->depth = depth;
  nd->name = e->name_off[id];
  nd->param = s->param;
  if ((s->flags & BT_SPEC_NIL_PARAM) && k->param == BTI_DEFAULT) nd->param = k->nil_param;
  nd->fn = s->fn;
  nd->fn2 = s->fn2;
  nd->ud = s->ud;
  nd->ud2 = s->ud2;
  nd->ops = s->ops;
  nd->ops_ud = s->ops_ud;
  nd->task = s->task;
  return flat;
}

static int emit_names(emitter *e) {
  bt_graph *g = e->c->g;
  size_t len = 0;
  for (int i = 0; i < g->n; i++)
    if (e->c->color[i] == BLACK) len += strlen(g->nodes[i].name) + 1;
  e->name_off = malloc((size_t)g->n * sizeof *e->name_off);
  e->d->names = malloc(len ? len : 1);
  if (!e->name_off || !e->d->names) return BT_ENOMEM;
  size_t pos = 0;
  for (int i = 0; i < g->n; i++) {
    if (e->c->color[i] != BLACK) continue;
    e->name_off[i] = (uint32_t)pos;
    size_t n = strlen(g->nodes[i].name) + 1;
    memcpy(e->d->names + pos, g->nodes[i].name, n);
    pos += n;
  }
  return BT_OK;
}

/* Flattens the tree in pre-order, repeating shared nodes at each place. */
static int emit(compiler *c, bt_def *d, int root) {
  emitter e = {c, d, NULL, 0, 0};
  frame *stack = malloc((size_t)(BT_MAX_DEPTH + 2) * sizeof *stack);
  int rc = stack ? emit_names(&e) : BT_ENOMEM;
  if (rc == BT_OK) {
    int top = 0;
    stack[0] = (frame){(int)emit_node(&e, root, -1, 0), 0};
    while (top >= 0) {
      frame *f = &stack[top];
      bt_node *nd = &d->nodes[f->id];
      if ((uint32_t)f->next >= nd->nchildren) {
        nd->end = e.next_flat;
        top--;
        continue;
      }
      int kid = c->g->nodes[d->states[nd->state].graph].kids[f->next];
      uint32_t flat = emit_node(&e, kid, f->id, (uint32_t)top + 1);
      d->kids[nd->children + (uint32_t)f->next] = flat;
      d->nodes[flat].sib = (uint32_t)f->next;
      f->next++;
      stack[++top] = (frame){(int)flat, 0};
    }
  }
  free(stack);
  free(e.name_off);
  if (rc) return graph_error(c->g, rc, "bt_def_create: out of memory");
  return BT_OK;
}

static int link_parents(compiler *c, bt_def *d) {
  for (uint32_t s = 0; s < d->nstates; s++) {
    int p = c->g->nodes[d->states[s].graph].parent;
    d->states[s].parent = (p >= 0 && c->state[p] >= 0) ? c->state[p] : -1;
  }
  /* a parent chain longer than the number of states loops */
  for (uint32_t s = 0; s < d->nstates; s++) {
    int32_t p = d->states[s].parent;
    uint32_t steps = 0;
    while (p >= 0 && steps <= d->nstates) {
      p = d->states[p].parent;
      steps++;
    }
    if (p >= 0)
      return graph_error(c->g, BT_EINVAL, "parent links of node '%s' form a cycle",
                         c->g->nodes[d->states[s].graph].name);
  }
  return BT_OK;
}

static int scatters(const bt_def *d, uint32_t s) {
  const bt_node *nd = &d->nodes[d->states[s].node];
  return bti_kinds[nd->kind].scatters && !(nd->flags & NF_NOSCATTER);
}

static int collect_scatter(bt_def *d) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < d->nstates; s++)
    if (scatters(d, s)) n++;
  d->scatter = malloc((n ? n : 1) * sizeof *d->scatter);
  if (!d->scatter) return BT_ENOMEM;
  n = 0;
  for (uint32_t s = 0; s < d->nstates; s++)
    if (scatters(d, s)) d->scatter[n++] = s;
  /* insertion sort by graph id: the scattering nodes are few */
  for (uint32_t i = 1; i < n; i++) {
    uint32_t v = d->scatter[i];
    uint32_t j = i;
    while (j > 0 && d->states[d->scatter[j - 1]].graph > d->states[v].graph) {
      d->scatter[j] = d->scatter[j - 1];
      j--;
    }
    d->scatter[j] = v;
  }
  d->nscatter = n;
  return BT_OK;
}

static void def_free(bt_def *d) {
  if (!d) return;
  free(d->nodes);
  free(d->kids);
  free(d->names);
  free(d->states);
  free(d->scatter);
  free(d->chunks);
  free(d->image);
  free(d->origin_name);
  free(d->origin_id);
  free(d->origin_names);
  bti_board_free(d);
  if (d->watch_free) d->watch_free(d->watch_ud);
  free(d);
}

int bt_def_set_watcher(bt_def *def, bt_def_watch_fn fn, void *ud, void (*free_ud)(void *ud)) {
  if (!def) return BT_EINVAL;
  void (*old_free)(void *) = def->watch_free;
  void *old_ud = def->watch_ud;
  def->watch = fn;
  def->watch_ud = fn ? ud : NULL;
  def->watch_free = fn ? free_ud : NULL;
  if (old_free && old_ud != def->watch_ud) old_free(old_ud);
  return BT_OK;
}

bt_def_watch_fn bt_def_watcher(const bt_def *def, void **ud) {
  if (ud) *ud = def && def->watch ? def->watch_ud : NULL;
  return def ? def->watch : NULL;
}

int bt_def_create(bt_def **out, bt_graph *g, int root) {
  *out = NULL;
  if (!g) return BT_EINVAL;
  if (!valid_id(g, root)) return graph_error(g, BT_EINVAL, "bt_def_create: no root node %d", root);
  g->err[0] = '\0';
  compiler c = {g, NULL, NULL, NULL, NULL, 0};
  c.color = calloc((size_t)g->n, 1);
  c.size = calloc((size_t)g->n, sizeof *c.size);
  c.height = calloc((size_t)g->n, sizeof *c.height);
  c.state = malloc((size_t)g->n * sizeof *c.state);
  bt_def *d = calloc(1, sizeof *d);
  int rc = BT_OK;
  if (!c.color || !c.size || !c.height || !c.state || !d) {
    rc = graph_error(g, BT_ENOMEM, "bt_def_create: out of memory");
    goto done;
  }
  for (int i = 0; i < g->n; i++) c.state[i] = -1;
  rc = analyse(&c, root);
  if (rc) goto done;
  atomic_init(&d->refs, 1);
  d->nnodes = c.size[root];
  uint32_t nreach = 0;
  for (int i = 0; i < g->n; i++)
    if (c.color[i] == BLACK) nreach++;
  d->nodes = calloc(d->nnodes, sizeof *d->nodes);
  /* The children lists fill nnodes - 1 entries (every node but the root is a child once); the
   * last one must be defined too, as bt_def_equal compares the array whole. */
  d->kids = calloc(d->nnodes ? d->nnodes : 1, sizeof *d->kids);
  d->states = calloc(nreach, sizeof *d->states);
  if (!d->nodes || !d->kids || !d->states) {
    rc = graph_error(g, BT_ENOMEM, "bt_def_create: out of memory");
    goto done;
  }
  rc = emit(&c, d, root);
  if (rc) goto done;
  d->nstates = c.nstates;
  rc = link_parents(&c, d);
  if (rc) goto done;
  if (collect_scatter(d)) {
    rc = graph_error(g, BT_ENOMEM, "bt_def_create: out of memory");
    goto done;
  }
  rc = bti_board_build(d, g);
  if (rc) goto done;
  if (layout_memory(d) || bti_make_image(d)) rc = graph_error(g, BT_ENOMEM, "bt_def_create: out of memory");
done:
  free(c.color);
  free(c.size);
  free(c.height);
  free(c.state);
  if (rc) def_free(d);
  else *out = d;
  return rc;
}

/* A reference is taken from one that is held already, so nothing is ordered by the increment;
 * the last release must see every write the other holders made before theirs (acq_rel), so that
 * def_free runs after them. */
void bt_def_retain(bt_def *def) {
  if (def) atomic_fetch_add_explicit(&def->refs, 1, memory_order_relaxed);
}

void bt_def_release(bt_def *def) {
  if (def && atomic_fetch_sub_explicit(&def->refs, 1, memory_order_acq_rel) == 1) def_free(def);
}

static int valid_node(const bt_def *d, int n) { return d && n >= 0 && (uint32_t)n < d->nnodes; }

int bt_def_size(const bt_def *def) { return def ? (int)def->nnodes : 0; }
int bt_def_states(const bt_def *def) { return def ? (int)def->nstates : 0; }
size_t bt_def_inst_size(const bt_def *def) { return def ? def->inst_size : 0; }

int bt_def_kind(const bt_def *def, int node) {
  return valid_node(def, node) ? def->nodes[node].kind : -1;
}

const bt_ops *bt_def_ops(const bt_def *def, int node) {
  return valid_node(def, node) ? def->nodes[node].ops : NULL;
}

const char *bt_def_name(const bt_def *def, int node) {
  return valid_node(def, node) ? def->names + def->nodes[node].name : NULL;
}

int bt_def_depth(const bt_def *def, int node) {
  return valid_node(def, node) ? (int)def->nodes[node].depth : -1;
}

int bt_def_child_count(const bt_def *def, int node) {
  return valid_node(def, node) ? (int)def->nodes[node].nchildren : -1;
}

int bt_def_child(const bt_def *def, int node, int i) {
  if (!valid_node(def, node) || i < 0 || (uint32_t)i >= def->nodes[node].nchildren) return -1;
  return (int)def->kids[def->nodes[node].children + (uint32_t)i];
}

int bt_def_up(const bt_def *def, int node) { return valid_node(def, node) ? def->nodes[node].up : -1; }

int bt_def_child_index(const bt_def *def, int node) {
  return valid_node(def, node) && node > 0 ? (int)def->nodes[node].sib : -1;
}

int bt_def_state(const bt_def *def, int node) {
  return valid_node(def, node) ? (int)def->nodes[node].state : -1;
}

int bt_def_node_of_state(const bt_def *def, int state) {
  return def && state >= 0 && (uint32_t)state < def->nstates ? (int)def->states[state].node : -1;
}

int bt_def_graph_id(const bt_def *def, int state) {
  return def && state >= 0 && (uint32_t)state < def->nstates ? def->states[state].graph : -1;
}

int bt_def_parent(const bt_def *def, int state) {
  return def && state >= 0 && (uint32_t)state < def->nstates ? def->states[state].parent : -1;
}

/* Adds node n's name to out, with "#k" if it is the k-th of its tree parent's children of that
 * name (the paths of messages, logs and tests name one node each). */
static void path_name(const bt_def *d, int n, bt_buf *out) {
  const char *name = d->names + d->nodes[n].name;
  bt_buf_append(out, name, strlen(name));
  int p = d->nodes[n].up;
  if (p < 0) return;
  int same = 0, k = 0;
  for (uint32_t i = 0; i < d->nodes[p].nchildren; i++) {
    int c = (int)d->kids[d->nodes[p].children + i];
    if (strcmp(d->names + d->nodes[c].name, name) != 0) continue;
    same++;
    if (c == n) k = same;
  }
  if (same > 1) bt_buf_printf(out, "#%d", k);
}

int bt_def_path(const bt_def *def, int node, bt_buf *out) {
  if (!valid_node(def, node) || !out) return BT_EINVAL;
  if (out->err) return out->err;
  int chain[BT_MAX_DEPTH + 1], depth = 0;
  for (int i = node; i >= 0 && depth <= BT_MAX_DEPTH; i = def->nodes[i].up) chain[depth++] = i;
  size_t len = out->len;
  while (depth-- > 0) {
    path_name(def, chain[depth], out);
    if (depth > 0) bt_buf_append(out, "/", 1);
  }
  if (out->err && out->data) {
    out->len = len;
    out->data[len] = 0;
  }
  return out->err;
}

int bt_def_find(const bt_def *def, const char *path) {
  if (!def || !path) return BT_EINVAL;
  bt_buf b = {0};
  int found = BT_EINVAL;
  size_t plen = strlen(path);
  for (int n = 0; n < (int)def->nnodes && found < 0; n++) {
    if (!strstr(path, def->names + def->nodes[n].name)) continue; /* its name is in the path */
    b.len = 0;
    int err = bt_def_path(def, n, &b);
    if (err != BT_OK) {
      found = err;
      break;
    }
    if (b.len == plen && memcmp(b.data, path, plen) == 0) found = n;
  }
  bt_buf_free(&b);
  return found;
}

int bt_def_spec(const bt_def *def, int node, bt_spec *out) {
  if (!out || !valid_node(def, node)) return BT_EINVAL;
  const bt_node *nd = &def->nodes[node];
  memset(out, 0, sizeof *out);
  out->kind = nd->kind;
  out->name = def->names + nd->name;
  out->param = nd->param;
  if (!(nd->flags & NF_LEAF)) out->flags |= BT_SPEC_CHILDREN;
  if (nd->flags & NF_NIL_PARAM) out->flags |= BT_SPEC_NIL_PARAM;
  if (nd->flags & NF_PARAM_FN) out->flags |= BT_SPEC_PARAM_FN;
  if (nd->flags & NF_NOSCATTER) out->flags |= BT_SPEC_NOSCATTER;
  if (nd->flags & NF_SUCCESS_ONE) out->flags |= BT_SPEC_SUCCESS_ONE;
  if (nd->flags & NF_FAILURE_ALL) out->flags |= BT_SPEC_FAILURE_ALL;
  out->fn = nd->fn;
  out->fn2 = nd->fn2;
  out->ud = nd->ud;
  out->ud2 = nd->ud2;
  out->ops = nd->ops;
  out->ops_ud = nd->ops_ud;
  out->task = nd->task;
  bti_board_spec(def, node, out);
  return BT_OK;
}

/* ---- what subtree.c and builder.c read of a graph (internal.h) ---- */

int bti_graph_count(const bt_graph *g) { return g->n; }
const bt_spec *bti_graph_spec(const bt_graph *g, int id) { return &g->nodes[id].spec; }
int bti_graph_nkids(const bt_graph *g, int id) { return g->nodes[id].nkids; }
const int *bti_graph_kids(const bt_graph *g, int id) { return g->nodes[id].kids; }
int bti_graph_parent(const bt_graph *g, int id) { return g->nodes[id].parent; }

int bti_graph_fail(bt_graph *g, int code, const char *msg) { return graph_error(g, code, "%s", msg); }
const bti_graph_key *bti_graph_keys(const bt_graph *g, int *count) {
  *count = g->nkeys;
  return g->keys;
}
