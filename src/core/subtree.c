/*
 * subtree.c: a library of named trees (bt_lib) and definitions whose subtree nodes run them
 * (bt_def_create_lib). Building measures the expanded tree first, following the references by
 * name (which finds missing names, cycles, and trees too big, before anything is copied), then
 * copies the named trees into a graph of its own, one copy per subtree node, and compiles that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct lib_entry {
  char *name;
  bt_graph *g; /* the named tree; its root is node 0 */
} lib_entry;

struct bt_lib {
  lib_entry *e;
  int n, cap;
  char err[256];
};

#define lib_error(lib, code, ...) bti_fail((lib)->err, sizeof (lib)->err, code, __VA_ARGS__)

int bt_lib_new(bt_lib **out) {
  if (!out) return BT_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? BT_OK : BT_ENOMEM;
}

void bt_lib_free(bt_lib *lib) {
  if (!lib) return;
  for (int i = 0; i < lib->n; i++) {
    free(lib->e[i].name);
    bt_graph_free(lib->e[i].g);
  }
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
  int *ids, *map, count;
  bt_graph *copy = NULL;
  int rc = reachable(g, root, &ids, &map, &count);
  if (rc == BT_OK) {
    rc = bt_graph_new(&copy);
    if (rc == BT_OK) rc = copy_nodes(copy, g, ids, count, map);
    free(ids);
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
    return lib_error(lib, rc, "bt_lib_set: subtree '%s': %s", name, bt_strerror(rc));
  }
  if (at >= 0) {
    bt_graph_free(lib->e[at].g);
    lib->e[at].g = copy;
  } else {
    lib->e[lib->n++] = (lib_entry){copy_name, copy};
  }
  lib->err[0] = '\0';
  return BT_OK;
}

int bt_lib_remove(bt_lib *lib, const char *name) {
  if (!lib) return BT_EINVAL;
  int at = find_entry(lib, name);
  if (at < 0) return lib_error(lib, BT_EINVAL, "bt_lib_remove: no subtree named '%s'", name ? name : "");
  free(lib->e[at].name);
  bt_graph_free(lib->e[at].g);
  lib->e[at] = lib->e[--lib->n];
  lib->err[0] = '\0';
  return BT_OK;
}

/* ---- measuring the expanded tree ---- */

enum { WHITE, GRAY, BLACK };

#define SIZE_CAP ((uint32_t)BT_MAX_NODES + 1)
#define HEIGHT_CAP ((uint32_t)BT_MAX_DEPTH + 2)

typedef struct measure {
  const bt_lib *lib;
  bt_graph *g;   /* the graph being built: its message */
  uint8_t *mark; /* per entry: WHITE, GRAY (being measured), BLACK (measured) */
  uint32_t *size, *height;
  int *chain; /* the entries being measured, outermost first */
  int depth;
  int refs; /* subtree nodes to expand */
} measure;

/* A node naming a library tree, not yet given its copy. */
static int is_reference(const bt_graph *g, int id) {
  return bti_kinds[bti_graph_spec(g, id)->kind].children == BTI_NAMED && bti_graph_nkids(g, id) == 0;
}

static int measure_graph(measure *m, const bt_graph *src, int root, uint32_t *size, uint32_t *height);

static int cycle_error(measure *m, int at) {
  char msg[512];
  size_t len = (size_t)snprintf(msg, sizeof msg, "subtree cycle: ");
  int from = m->depth - 1;
  while (from > 0 && m->chain[from] != at) from--;
  for (int i = from; i < m->depth && len < sizeof msg - 1; i++)
    len += (size_t)snprintf(msg + len, sizeof msg - len, "%s > ", m->lib->e[m->chain[i]].name);
  if (len < sizeof msg - 1) snprintf(msg + len, sizeof msg - len, "%s", m->lib->e[at].name);
  return bti_graph_fail(m->g, BT_ECYCLE, msg);
}

/* The size and height of the named tree, expanded; `in` is the graph that names it. */
static int measure_entry(measure *m, const char *name, uint32_t *size, uint32_t *height) {
  char msg[512];
  int at = find_entry(m->lib, name);
  if (at < 0) {
    if (m->depth > 0)
      snprintf(msg, sizeof msg, "no subtree named '%s' (in subtree '%s')", name,
               m->lib->e[m->chain[m->depth - 1]].name);
    else
      snprintf(msg, sizeof msg, "no subtree named '%s'", name);
    return bti_graph_fail(m->g, BT_EINVAL, msg);
  }
  if (m->mark[at] == GRAY) return cycle_error(m, at);
  if (m->mark[at] == WHITE) {
    if (m->depth >= BT_MAX_DEPTH) {
      snprintf(msg, sizeof msg, "tree is deeper than %d levels once its subtrees are expanded",
               BT_MAX_DEPTH);
      return bti_graph_fail(m->g, BT_ETOOBIG, msg);
    }
    m->mark[at] = GRAY;
    m->chain[m->depth++] = at;
    int rc = measure_graph(m, m->lib->e[at].g, 0, &m->size[at], &m->height[at]);
    m->depth--;
    if (rc) return rc;
    m->mark[at] = BLACK;
  }
  *size = m->size[at];
  *height = m->height[at];
  return BT_OK;
}

typedef struct frame {
  int id, next;
} frame;

/* Depth-first over src from root, as graph.c's analyse, with each reference counted as its
 * expanded tree. A node that is its own ancestor counts once here; bt_def_create reports it. */
static int measure_graph(measure *m, const bt_graph *src, int root, uint32_t *size_out,
                         uint32_t *height_out) {
  int n = bti_graph_count(src);
  uint8_t *color = calloc((size_t)n, 1);
  uint32_t *size = calloc((size_t)n, sizeof *size), *height = calloc((size_t)n, sizeof *height);
  frame *stack = malloc((size_t)n * sizeof *stack);
  int rc = BT_OK;
  if (!color || !size || !height || !stack) {
    rc = bti_graph_fail(m->g, BT_ENOMEM, "bt_def_create_lib: out of memory");
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
      m->refs++;
      rc = measure_entry(m, bti_graph_spec(src, f->id)->name, &es, &eh);
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

/* ---- expanding ---- */

/* A graph with g's nodes (same ids) and, for each reference reachable from root, a copy of its
 * named tree as its child. */
static int expand(const bt_lib *lib, const bt_graph *g, int root, bt_graph *x) {
  int n = bti_graph_count(g), count;
  int *all = malloc((size_t)(n ? n : 1) * sizeof *all);
  int *todo = NULL, *map = NULL;
  if (!all) return BT_ENOMEM;
  for (int i = 0; i < n; i++) all[i] = i;
  int rc = copy_nodes(x, g, all, n, all);
  free(all);
  if (rc == BT_OK) rc = reachable(g, root, &todo, &map, &count);
  if (rc) return rc;
  free(map);
  /* todo holds the ids to look at: g's reachable nodes, then each copy's */
  size_t cap = (size_t)count;
  for (int i = 0; i < count && rc == BT_OK; i++) {
    int id = todo[i];
    if (!is_reference(x, id)) continue;
    const bt_graph *e = lib->e[find_entry(lib, bti_graph_spec(x, id)->name)].g;
    int en = bti_graph_count(e), base = bti_graph_count(x);
    int *ids = malloc((size_t)en * sizeof *ids);
    if (!ids) {
      rc = BT_ENOMEM;
      break;
    }
    for (int k = 0; k < en; k++) ids[k] = base + k;
    /* copy_nodes maps with a table indexed by the source id: the copies' ids are base + id */
    int *emap = ids, *src_ids = malloc((size_t)en * sizeof *src_ids);
    if (!src_ids) {
      free(ids);
      rc = BT_ENOMEM;
      break;
    }
    for (int k = 0; k < en; k++) src_ids[k] = k;
    rc = copy_nodes(x, e, src_ids, en, emap);
    free(src_ids);
    if (rc == BT_OK) rc = bt_graph_set_children(x, id, &base, 1); /* the copy's parent: id */
    if (rc == BT_OK && (size_t)count + (size_t)en > cap) {
      size_t ncap = cap * 2 > (size_t)count + (size_t)en ? cap * 2 : (size_t)count + (size_t)en;
      int *t = realloc(todo, ncap * sizeof *t);
      if (t) {
        todo = t;
        cap = ncap;
      } else {
        rc = BT_ENOMEM;
      }
    }
    if (rc == BT_OK)
      for (int k = 0; k < en; k++) todo[count++] = ids[k];
    free(ids);
  }
  free(todo);
  return rc;
}

int bt_def_create_lib(bt_def **out, bt_graph *g, int root, const bt_lib *lib) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!lib || !g || root < 0 || root >= bti_graph_count(g)) return bt_def_create(out, g, root);
  bti_graph_fail(g, BT_OK, "");
  measure m = {lib, g, NULL, NULL, NULL, NULL, 0, 0};
  size_t ne = (size_t)(lib->n ? lib->n : 1);
  m.mark = calloc(ne, 1);
  m.size = calloc(ne, sizeof *m.size);
  m.height = calloc(ne, sizeof *m.height);
  m.chain = malloc(ne * sizeof *m.chain);
  uint32_t size = 0, height = 0;
  int rc = BT_OK;
  if (!m.mark || !m.size || !m.height || !m.chain)
    rc = bti_graph_fail(g, BT_ENOMEM, "bt_def_create_lib: out of memory");
  if (rc == BT_OK) rc = measure_graph(&m, g, root, &size, &height);
  free(m.mark);
  free(m.size);
  free(m.height);
  free(m.chain);
  if (rc) return rc;
  char msg[128];
  if (size > BT_MAX_NODES) {
    snprintf(msg, sizeof msg, "tree has more than %d nodes once its subtrees are expanded", BT_MAX_NODES);
    return bti_graph_fail(g, BT_ETOOBIG, msg);
  }
  if (height > BT_MAX_DEPTH + 1) {
    snprintf(msg, sizeof msg, "tree is deeper than %d levels once its subtrees are expanded", BT_MAX_DEPTH);
    return bti_graph_fail(g, BT_ETOOBIG, msg);
  }
  if (m.refs == 0) return bt_def_create(out, g, root);
  bt_graph *x = NULL;
  rc = bt_graph_new(&x);
  if (rc == BT_OK) rc = expand(lib, g, root, x);
  if (rc == BT_OK) {
    rc = bt_def_create(out, x, root);
    if (rc) bti_graph_fail(g, rc, bt_graph_errmsg(x));
  } else {
    snprintf(msg, sizeof msg, "bt_def_create_lib: %s", bt_strerror(rc));
    bti_graph_fail(g, rc, msg);
  }
  bt_graph_free(x);
  return rc;
}
