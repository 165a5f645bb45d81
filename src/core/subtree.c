/* SPDX-License-Identifier: MIT */
/*
 * subtree.c: a library of named trees (bt_lib) and definitions whose subtree nodes run them
 * (bt_def_create_lib, bt_def_create_named). Building measures the expanded tree first, following
 * the references by name (which finds missing names, cycles, and trees too big, before anything
 * is copied), then copies the named trees into a graph of its own, one copy per subtree node,
 * compiles that, and records in the definition which library tree each state came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct lib_entry {
  char *name;
  bt_graph *g; /* the named tree; its root is node 0 */
  int *orig;   /* node id in g -> its id in the graph given to bt_lib_set */
} lib_entry;

struct bt_lib {
  lib_entry *e;
  int n, cap;
  char err[256];
};

#define lib_error(lib, code, ...) bti_fail((lib)->err, sizeof (lib)->err, code, __VA_ARGS__)

int bt_lib_create(bt_lib **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

static void entry_free(lib_entry *e) {
  free(e->name);
  bt_graph_free(e->g);
  free(e->orig);
}

void bt_lib_free(bt_lib *lib) {
  if (!lib) return;
  for (int i = 0; i < lib->n; i++) entry_free(&lib->e[i]);
  free(lib->e);
  free(lib);
}

const char *bt_lib_errmsg(const bt_lib *lib) { return lib ? lib->err : "no library"; }

static int find_entry(const bt_lib *lib, const char *name) {
  for (int i = 0; lib && name && i < lib->n; i++)
    if (strcmp(lib->e[i].name, name) == 0) return i;
  return -1;
}

int bt_lib_has(const bt_lib *lib, const char *name) { return find_entry(lib, name) >= 0; }

/* Adds to dst a copy of src's nodes ids[0..count) (with their children and parents mapped by map,
 * src id -> dst id, -1 for a node not copied). */
static int copy_nodes(bt_graph *dst, const bt_graph *src, const int *ids, int count, const int *map) {
  int base = bti_graph_count(dst);
  for (int i = 0; i < count; i++) {
    int id = bt_graph_add(dst, bti_graph_spec(src, ids[i]));
    if (id < 0) return id;
  }
  for (int i = 0; i < count; i++) {
    int nk = bti_graph_nkids(src, ids[i]);
    if (nk == 0) continue;
    int *kids = malloc((size_t)nk * sizeof *kids);
    if (!kids) return BT_ENOMEM;
    for (int k = 0; k < nk; k++) kids[k] = map[bti_graph_kids(src, ids[i])[k]];
    int rc = bt_graph_set_children(dst, base + i, kids, nk);
    free(kids);
    if (rc) return rc;
  }
  for (int i = 0; i < count; i++) {
    int p = bti_graph_parent(src, ids[i]);
    bt_graph_set_parent(dst, base + i, p >= 0 ? map[p] : -1);
  }
  return BT_OK;
}

/* The nodes of g reachable from root, root first (breadth-first); map gets g id -> position. */
static int reachable(const bt_graph *g, int root, int **ids_out, int **map_out, int *count) {
  int n = bti_graph_count(g);
  int *ids = malloc((size_t)n * sizeof *ids), *map = malloc((size_t)n * sizeof *map);
  if (!ids || !map) {
    free(ids);
    free(map);
    return BT_ENOMEM;
  }
  for (int i = 0; i < n; i++) map[i] = -1;
  int c = 0;
  map[root] = 0;
  ids[c++] = root;
  for (int i = 0; i < c; i++) {
    for (int k = 0; k < bti_graph_nkids(g, ids[i]); k++) {
      int kid = bti_graph_kids(g, ids[i])[k];
      if (map[kid] < 0) {
        map[kid] = c;
        ids[c++] = kid;
      }
    }
  }
  *ids_out = ids;
  *map_out = map;
  *count = c;
  return BT_OK;
}

int bt_lib_set(bt_lib *lib, const char *name, const bt_graph *g, int root) {
  if (!lib) return BT_EINVAL;
  if (!name || !name[0]) return lib_error(lib, BT_EINVAL, "bt_lib_set: a subtree needs a name");
  if (!g || root < 0 || root >= bti_graph_count(g))
    return lib_error(lib, BT_EINVAL, "bt_lib_set: subtree '%s': no root node %d", name, root);
  int *ids = NULL, *map, count;
  bt_graph *copy = NULL;
  int rc = reachable(g, root, &ids, &map, &count);
  if (rc == BT_OK) {
    rc = bt_graph_create(&copy);
    if (rc == BT_OK) rc = copy_nodes(copy, g, ids, count, map);
    free(map);
  }
  int at = find_entry(lib, name);
  if (rc == BT_OK && at < 0 && lib->n == lib->cap) {
    int cap = lib->cap ? lib->cap * 2 : 8;
    lib_entry *e = realloc(lib->e, (size_t)cap * sizeof *e);
    if (e) {
      lib->e = e;
      lib->cap = cap;
    } else {
      rc = BT_ENOMEM;
    }
  }
  char *copy_name = NULL;
  if (rc == BT_OK && at < 0 && !(copy_name = bti_strdup(name))) rc = BT_ENOMEM;
  if (rc != BT_OK) {
    bt_graph_free(copy);
    free(ids);
    return lib_error(lib, rc, "bt_lib_set: subtree '%s': %s", name, bt_strerror(rc));
  }
  if (at >= 0) {
    bt_graph_free(lib->e[at].g);
    free(lib->e[at].orig);
    lib->e[at].g = copy;
    lib->e[at].orig = ids;
  } else {
    lib->e[lib->n++] = (lib_entry){copy_name, copy, ids};
  }
  lib->err[0] = '\0';
  return BT_OK;
}

int bt_lib_remove(bt_lib *lib, const char *name) {
  if (!lib) return BT_EINVAL;
  int at = find_entry(lib, name);
  if (at < 0) return lib_error(lib, BT_EINVAL, "bt_lib_remove: no subtree named '%s'", name ? name : "");
  entry_free(&lib->e[at]);
  lib->e[at] = lib->e[--lib->n];
  lib->err[0] = '\0';
  return BT_OK;
}

/* ---- a build: the library, and the tree being built under the name it is being defined as ---- */

enum { WHITE, GRAY, BLACK };

#define SIZE_CAP ((uint32_t)BT_MAX_NODES + 1)
#define HEIGHT_CAP ((uint32_t)BT_MAX_DEPTH + 2)

typedef struct build {
  const bt_lib *lib;
  bt_graph *g;      /* the graph being built: its message */
  int root;
  const char *name; /* the name g is being defined as, or NULL; entry lib->n stands for it */
  uint8_t *mark;    /* per entry: WHITE, GRAY (being measured), BLACK (measured) */
  uint32_t *size, *height;
  int *chain; /* the entries being measured, outermost first */
  int depth;
  int refs; /* subtree nodes to expand */
} build;

/* The entry a name refers to in this build (lib->n: g itself), or -1. */
static int lookup(const build *b, const char *name) {
  if (b->name && name && strcmp(name, b->name) == 0) return b->lib->n;
  return find_entry(b->lib, name);
}

static const char *entry_name(const build *b, int at) { return at == b->lib->n ? b->name : b->lib->e[at].name; }

/* A node naming a library tree, not yet given its copy. */
static int is_reference(const bt_graph *g, int id) {
  return bti_kinds[bti_graph_spec(g, id)->kind].children == BTI_NAMED && bti_graph_nkids(g, id) == 0;
}

/* ---- measuring the expanded tree ---- */

static int measure_graph(build *b, const bt_graph *src, int root, uint32_t *size, uint32_t *height);

static int cycle_error(build *b, int at) {
  char msg[512];
  size_t len = (size_t)snprintf(msg, sizeof msg, "subtree cycle: ");
  int from = b->depth - 1;
  while (from > 0 && b->chain[from] != at) from--;
  for (int i = from; i < b->depth && len < sizeof msg - 1; i++)
    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s > ", entry_name(b, b->chain[i]));
  if (len < sizeof msg - 1) snprintf(msg + len, sizeof msg - len, "%s", entry_name(b, at));
  return bti_graph_fail(b->g, BT_ECYCLE, msg);
}

/* The size and height of the named tree, expanded. */
static int measure_entry(build *b, const char *name, uint32_t *size, uint32_t *height) {
  char msg[512];
  int at = lookup(b, name);
  if (at < 0) {
    if (b->depth > 0)
      snprintf(msg, sizeof msg, "no subtree named '%s' (in subtree '%s')", name,
               entry_name(b, b->chain[b->depth - 1]));
    else
      snprintf(msg, sizeof msg, "no subtree named '%s'", name);
    return bti_graph_fail(b->g, BT_EINVAL, msg);
  }
  if (b->mark[at] == GRAY) return cycle_error(b, at);
  if (b->mark[at] == WHITE) {
    if (b->depth >= BT_MAX_DEPTH) {
      snprintf(msg, sizeof msg, "tree is deeper than %d levels once its subtrees are expanded",
               BT_MAX_DEPTH);
      return bti_graph_fail(b->g, BT_ETOOBIG, msg);
    }
    b->mark[at] = GRAY;
    b->chain[b->depth++] = at;
    int rc = measure_graph(b, b->lib->e[at].g, 0, &b->size[at], &b->height[at]);
    b->depth--;
    if (rc) return rc;
    b->mark[at] = BLACK;
  }
  *size = b->size[at];
  *height = b->height[at];
  return BT_OK;
}

typedef struct frame {
  int id, next;
} frame;

/* Depth-first over src from root, as graph.c's analyse, with each reference counted as its
 * expanded tree. A node that is its own ancestor counts once here; bt_def_create reports it. */
static int measure_graph(build *b, const bt_graph *src, int root, uint32_t *size_out,
                         uint32_t *height_out) {
  int n = bti_graph_count(src);
  uint8_t *color = calloc((size_t)n, 1);
  uint32_t *size = calloc((size_t)n, sizeof *size), *height = calloc((size_t)n, sizeof *height);
  frame *stack = malloc((size_t)n * sizeof *stack);
  int rc = BT_OK;
  if (!color || !size || !height || !stack) {
    rc = bti_graph_fail(b->g, BT_ENOMEM, "bt_def_create_lib: out of memory");
    goto done;
  }
  int top = 0;
  stack[0] = (frame){root, 0};
  color[root] = GRAY;
  while (top >= 0) {
    frame *f = &stack[top];
    if (f->next < bti_graph_nkids(src, f->id)) {
      int kid = bti_graph_kids(src, f->id)[f->next++];
      if (color[kid] == WHITE) {
        color[kid] = GRAY;
        stack[++top] = (frame){kid, 0};
      }
      continue;
    }
    uint64_t s = 1;
    uint32_t h = 1;
    if (is_reference(src, f->id)) {
      uint32_t es, eh;
      b->refs++;
      rc = measure_entry(b, bti_graph_spec(src, f->id)->name, &es, &eh);
      if (rc) goto done;
      s += es;
      h += eh;
    }
    for (int i = 0; i < bti_graph_nkids(src, f->id); i++) {
      int kid = bti_graph_kids(src, f->id)[i];
      if (color[kid] != BLACK) continue; /* a cycle */
      s += size[kid];
      if (height[kid] + 1 > h) h = height[kid] + 1;
    }
    size[f->id] = s > SIZE_CAP ? SIZE_CAP : (uint32_t)s;
    height[f->id] = h > HEIGHT_CAP ? HEIGHT_CAP : h;
    color[f->id] = BLACK;
    top--;
  }
  *size_out = size[root];
  *height_out = height[root];
done:
  free(color);
  free(size);
  free(height);
  free(stack);
  return rc;
}

/* Measures the tree under b->root, expanded: BT_OK, or the error in the graph's message. */
static int measure(build *b) {
  size_t ne = (size_t)b->lib->n + 1; /* the last entry stands for the tree being defined */
  b->mark = calloc(ne, 1);
  b->size = calloc(ne, sizeof *b->size);
  b->height = calloc(ne, sizeof *b->height);
  b->chain = malloc(ne * sizeof *b->chain);
  uint32_t size = 0, height = 0;
  int rc = BT_OK;
  if (!b->mark || !b->size || !b->height || !b->chain)
    rc = bti_graph_fail(b->g, BT_ENOMEM, "bt_def_create_lib: out of memory");
  if (rc == BT_OK && b->name) { /* a reference to the name it is being defined as is a cycle */
    b->mark[b->lib->n] = GRAY;
    b->chain[b->depth++] = b->lib->n;
  }
  if (rc == BT_OK) rc = measure_graph(b, b->g, b->root, &size, &height);
  free(b->mark);
  free(b->size);
  free(b->height);
  free(b->chain);
  if (rc) return rc;
  char msg[128];
  if (size > BT_MAX_NODES) {
    snprintf(msg, sizeof msg, "tree has more than %d nodes once its subtrees are expanded", BT_MAX_NODES);
    return bti_graph_fail(b->g, BT_ETOOBIG, msg);
  }
  if (height > BT_MAX_DEPTH + 1) {
    snprintf(msg, sizeof msg, "tree is deeper than %d levels once its subtrees are expanded", BT_MAX_DEPTH);
    return bti_graph_fail(b->g, BT_ETOOBIG, msg);
  }
  return BT_OK;
}

/* ---- expanding ---- */

/* Where each node of the expanded graph came from: a library entry (-1: g) and its id there. */
typedef struct origin {
  int entry, id;
} origin;

typedef struct origins {
  origin *a;
  int n, cap;
} origins;

static int origins_add(origins *o, int entry, int id) {
  if (bti_grow((void **)&o->a, &o->cap, o->n + 1, sizeof *o->a)) return BT_ENOMEM;
  o->a[o->n++] = (origin){entry, id};
  return BT_OK;
}

/* Copies entry e's tree into x as the one child of reference node id; its ids are added to todo,
 * which has room for *cap. */
static int expand_one(const bt_lib *lib, bt_graph *x, int id, int e, int **todo, int *count,
                      size_t *cap, origins *o) {
  const lib_entry *entry = &lib->e[e];
  int en = bti_graph_count(entry->g), base = bti_graph_count(x);
  int *ids = malloc((size_t)en * sizeof *ids), *src_ids = malloc((size_t)en * sizeof *src_ids);
  int rc = ids && src_ids ? BT_OK : BT_ENOMEM;
  /* copy_nodes maps with a table indexed by the source id: the copies' ids are base + id */
  for (int k = 0; rc == BT_OK && k < en; k++) {
    ids[k] = base + k;
    src_ids[k] = k;
    rc = origins_add(o, e, entry->orig[k]);
  }
  if (rc == BT_OK) rc = copy_nodes(x, entry->g, src_ids, en, ids);
  if (rc == BT_OK) rc = bt_graph_set_children(x, id, &base, 1); /* the copy's parent: id */
  if (rc == BT_OK && (size_t)*count + (size_t)en > *cap) {
    size_t ncap = *cap * 2 > (size_t)*count + (size_t)en ? *cap * 2 : (size_t)*count + (size_t)en;
    int *t = realloc(*todo, ncap * sizeof *t);
    if (t) {
      *todo = t;
      *cap = ncap;
    } else {
      rc = BT_ENOMEM;
    }
  }
  if (rc == BT_OK)
    for (int k = 0; k < en; k++) (*todo)[(*count)++] = ids[k];
  free(ids);
  free(src_ids);
  return rc;
}

/* A graph with g's nodes (same ids) and, for each reference reachable from root, a copy of its
 * named tree as its child. */
static int expand(const bt_lib *lib, const bt_graph *g, int root, bt_graph *x, origins *o) {
  int n = bti_graph_count(g), count;
  int *all = malloc((size_t)(n ? n : 1) * sizeof *all);
  int *todo = NULL, *map = NULL;
  if (!all) return BT_ENOMEM;
  int rc = BT_OK;
  for (int i = 0; rc == BT_OK && i < n; i++) {
    all[i] = i;
    rc = origins_add(o, -1, i);
  }
  if (rc == BT_OK) rc = copy_nodes(x, g, all, n, all);
  free(all);
  if (rc == BT_OK) rc = reachable(g, root, &todo, &map, &count);
  if (rc) return rc;
  free(map);
  /* todo holds the ids to look at: g's reachable nodes, then each copy's */
  size_t cap = (size_t)count;
  for (int i = 0; i < count && rc == BT_OK; i++)
    if (is_reference(x, todo[i]))
      rc = expand_one(lib, x, todo[i], find_entry(lib, bti_graph_spec(x, todo[i])->name), &todo,
                      &count, &cap, o);
  free(todo);
  return rc;
}

/* Records in def where each of its states came from. */
static int set_origins(bt_def *def, const bt_lib *lib, const origins *o) {
  size_t len = 0;
  for (int e = 0; e < lib->n; e++) len += strlen(lib->e[e].name) + 1;
  uint32_t *offset = malloc((size_t)(lib->n ? lib->n : 1) * sizeof *offset);
  def->origin_name = malloc(def->nstates * sizeof *def->origin_name);
  def->origin_id = malloc(def->nstates * sizeof *def->origin_id);
  def->origin_names = malloc(len ? len : 1);
  if (!offset || !def->origin_name || !def->origin_id || !def->origin_names) {
    free(offset);
    return BT_ENOMEM;
  }
  size_t pos = 0;
  for (int e = 0; e < lib->n; e++) {
    offset[e] = (uint32_t)pos;
    size_t n = strlen(lib->e[e].name) + 1;
    memcpy(def->origin_names + pos, lib->e[e].name, n);
    pos += n;
  }
  for (uint32_t s = 0; s < def->nstates; s++) {
    const origin *from = &o->a[def->states[s].graph];
    def->origin_name[s] = from->entry < 0 ? NO_SLOT : offset[from->entry];
    def->origin_id[s] = (uint32_t)from->id;
  }
  free(offset);
  return BT_OK;
}

/* Builds the definition of g's tree under root, its references resolved from lib (g itself under
 * name, if name is given). */
static int build_def(bt_def **out, bt_graph *g, int root, const bt_lib *lib, const char *name) {
  static const bt_lib empty;
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!g || root < 0 || root >= bti_graph_count(g)) return bt_def_create(out, g, root);
  bti_graph_fail(g, BT_OK, "");
  int refs = 0;
  for (int id = 0; id < bti_graph_count(g) && !refs; id++) refs = is_reference(g, id);
  if (!refs) return bt_def_create(out, g, root); /* nothing to resolve */
  build b = {lib ? lib : &empty, g, root, name, NULL, NULL, NULL, NULL, 0, 0};
  int rc = measure(&b);
  if (rc) return rc;
  if (b.refs == 0) return bt_def_create(out, g, root);
  bt_graph *x = NULL;
  origins o = {NULL, 0, 0};
  rc = bt_graph_create(&x);
  int nkeys = 0;
  const bti_graph_key *keys = rc == BT_OK ? bti_graph_keys(g, &nkeys) : NULL;
  for (int k = 0; k < nkeys && rc == BT_OK; k++) /* the copy declares g's keys, with their ids */
    if (bt_graph_add_key(x, keys[k].name, keys[k].type, keys[k].flags) < 0) rc = BT_ENOMEM;
  if (rc == BT_OK) rc = expand(b.lib, g, root, x, &o);
  if (rc == BT_OK) {
    rc = bt_def_create(out, x, root);
    if (rc) bti_graph_fail(g, rc, bt_graph_errmsg(x));
    else if ((rc = set_origins(*out, b.lib, &o)) != BT_OK) {
      bt_def_release(*out);
      *out = NULL;
      bti_graph_fail(g, rc, "bt_def_create_lib: out of memory");
    }
  } else {
    char msg[128];
    snprintf(msg, sizeof msg, "bt_def_create_lib: %s", bt_strerror(rc));
    bti_graph_fail(g, rc, msg);
  }
  bt_graph_free(x);
  free(o.a);
  return rc;
}

int bt_def_create_lib(bt_def **out, bt_graph *g, int root, const bt_lib *lib) {
  if (!lib) {
    if (out) *out = NULL;
    return out ? bt_def_create(out, g, root) : BT_EINVAL;
  }
  return build_def(out, g, root, lib, NULL);
}

int bt_def_create_named(bt_def **out, bt_graph *g, int root, const bt_lib *lib, const char *name) {
  if (!name || !name[0]) {
    if (g) bti_graph_fail(g, BT_EINVAL, "bt_def_create_named: a subtree needs a name");
    if (out) *out = NULL;
    return BT_EINVAL;
  }
  return build_def(out, g, root, lib, name);
}

const char *bt_def_origin(const bt_def *def, int state, int *id) {
  if (!def || state < 0 || (uint32_t)state >= def->nstates) {
    if (id) *id = -1;
    return NULL;
  }
  if (!def->origin_name || def->origin_name[state] == NO_SLOT) {
    if (id) *id = def->states[state].graph;
    return NULL;
  }
  if (id) *id = (int)def->origin_id[state];
  return def->origin_names + def->origin_name[state];
}
