/* SPDX-License-Identifier: MIT */
/*
 * coverage.c: the test kit's coverage (bt_test.h "coverage"): what a run took of each tree, as
 * text, lcov or Cobertura, from the recorder's statistics (bt_stats). It counts nothing itself:
 * a node's figures are bt_stats_node's, at the node's first place; this file names the nodes
 * (bt_def_path, bt_def_where) and lays the figures out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_internal.h"

/* A shape the coverage knows a name of: a definition given (bt_coverage_name) or built from a
 * log's shape, with its label; from a log, also each node's first place. */
typedef struct named {
  unsigned long long hash;
  bt_def *def;   /* held; NULL: a log's shape of a kind this library does not know */
  char *label;   /* NULL: none */
  int *first;    /* a log's: node -> the first node of its state (NULL: by def) */
  int nodes;     /* a log's: its node count */
} named;

struct bt_coverage {
  bt_stats *st;
  int own; /* st is the coverage's */
  named *names;
  int nnames, names_cap;
  unsigned long long *only; /* bt_coverage_only's shapes */
  int nonly, only_cap;
  unsigned long long *list; /* the shapes reported (shapes_update) */
  int nlist;
  char msg[256];
};

#define fail(c, rc, ...) kit_fail((c)->msg, sizeof (c)->msg, (rc), __VA_ARGS__)

static int no_memory(bt_coverage *c) { return fail(c, BT_ENOMEM, "out of memory"); }

/* Makes room for one more of n items of size bytes in *items (capacity *cap). */

int bt_coverage_create(bt_coverage **out, bt_stats *st) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  bt_coverage *c = calloc(1, sizeof *c);
  if (!c) return BT_ENOMEM;
  c->st = st;
  if (!st) {
    if (bt_stats_create(&c->st) != BT_OK) {
      free(c);
      return BT_ENOMEM;
    }
    c->own = 1;
  }
  *out = c;
  return BT_OK;
}

void bt_coverage_free(bt_coverage *c) {
  if (!c) return;
  for (int i = 0; i < c->nnames; i++) {
    bt_def_release(c->names[i].def);
    free(c->names[i].label);
    free(c->names[i].first);
  }
  free(c->names);
  free(c->only);
  free(c->list);
  if (c->own) bt_stats_free(c->st);
  free(c);
}

bt_stats *bt_coverage_stats(const bt_coverage *c) { return c ? c->st : NULL; }

const char *bt_coverage_errmsg(const bt_coverage *c) { return c ? c->msg : "no coverage"; }

static named *find_name(const bt_coverage *c, unsigned long long hash) {
  for (int i = 0; i < c->nnames; i++)
    if (c->names[i].hash == hash) return &c->names[i];
  return NULL;
}

/* A new name of hash (zeroed), or NULL without memory. */
static named *add_name(bt_coverage *c, unsigned long long hash) {
  if (kit_grow((void **)&c->names, &c->names_cap, c->nnames + 1, sizeof *c->names) != BT_OK) return NULL;
  named *n = &c->names[c->nnames++];
  memset(n, 0, sizeof *n);
  n->hash = hash;
  return n;
}

static char *copy_text(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

int bt_coverage_name(bt_coverage *c, const bt_def *def, const char *label) {
  if (!c) return BT_EINVAL;
  if (!def) return fail(c, BT_EINVAL, "bt_coverage_name: no definition");
  char *text = NULL;
  if (label && !(text = copy_text(label))) return no_memory(c);
  unsigned long long hash = bt_def_hash(def);
  named *n = find_name(c, hash);
  if (!n && !(n = add_name(c, hash))) {
    free(text);
    return no_memory(c);
  }
  bt_def_retain((bt_def *)def);
  bt_def_release(n->def);
  free(n->label);
  free(n->first);
  n->def = (bt_def *)def;
  n->label = text;
  n->first = NULL;
  n->nodes = 0;
  return BT_OK;
}

/* The name of a log's shape, made when first seen: its definition (if this library can build
 * one), the label of its first agent, each node's first place. */
static named *log_name(bt_coverage *c, const bt_log_shape *s, const char *label) {
  unsigned long long hash = bt_log_shape_hash(s);
  named *n = find_name(c, hash);
  if (n && (n->first || n->def)) return n;
  int size = bt_log_shape_size(s);
  int *first = malloc((size_t)size * sizeof *first), *seen = malloc((size_t)size * sizeof *seen);
  char *text = label && *label ? copy_text(label) : NULL;
  if (!first || !seen || (label && *label && !text) || (!n && !(n = add_name(c, hash)))) {
    free(first);
    free(seen);
    free(text);
    return NULL;
  }
  for (int i = 0; i < size; i++) seen[i] = -1;
  for (int i = 0; i < size; i++) {
    int state = bt_log_shape_state(s, i);
    if (state < 0 || state >= size) first[i] = i;
    else if (seen[state] < 0) first[i] = seen[state] = i;
    else first[i] = seen[state];
  }
  free(seen);
  bt_def *def = NULL;
  if (bt_log_shape_def(s, &def) == BT_ENOMEM) {
    free(first);
    free(text);
    return NULL;
  }
  n->def = def;
  n->label = text;
  n->first = first;
  n->nodes = size;
  return n;
}

int bt_coverage_add_log(bt_coverage *c, const bt_log_reader *r, const bt_log_record *rec) {
  if (!c) return BT_EINVAL;
  if (!r || !rec) return fail(c, BT_EINVAL, "bt_coverage_add_log: no reader or record");
  const bt_rec_entry *e = &rec->entry;
  const bt_log_shape *s = rec->shape;
  if (!s || rec->agent_index < 0) return BT_OK;
  named *n = log_name(c, s, rec->label);
  if (!n) return no_memory(c);
  unsigned long long hash = n->hash, agent = (unsigned long long)rec->agent_index;
  int size = n->nodes, rc = BT_OK;
  if (e->type == BT_LOG_ATTACH) { /* the nodes running then start runs */
    for (size_t i = 0; i < e->size && rc != BT_ENOMEM; i++) {
      int node, status, last;
      if (bt_log_reader_state(r, i, &node, &status, &last) != BT_OK || status != BT_RUNNING) continue;
      bt_rec_entry run = *e;
      run.type = BT_REC_STATUS;
      run.node = node >= 0 && node < size ? n->first[node] : node;
      run.from = BT_READY;
      run.to = BT_RUNNING;
      rc = bt_stats_add(c->st, agent, hash, size, &run);
    }
  } else if (e->type >= BT_REC_STATUS && e->type <= BT_REC_KEY) {
    bt_rec_entry one = *e;
    int has_node = one.type == BT_REC_STATUS || one.type == BT_REC_EVENT || (one.type == BT_REC_ERROR && one.node >= 0);
    if (has_node && one.node >= 0 && one.node < size) one.node = n->first[one.node];
    rc = bt_stats_add(c->st, agent, hash, size, &one);
  }
  /* BT_EINVAL: a record the statistics cannot count (a status written twice); it is left out */
  return rc == BT_ENOMEM ? no_memory(c) : BT_OK;
}

int bt_coverage_only(bt_coverage *c, unsigned long long shape) {
  if (!c) return BT_EINVAL;
  for (int i = 0; i < c->nonly; i++)
    if (c->only[i] == shape) return BT_OK;
  if (kit_grow((void **)&c->only, &c->only_cap, c->nonly + 1, sizeof *c->only) != BT_OK) return no_memory(c);
  c->only[c->nonly++] = shape;
  return BT_OK;
}

/* Makes c->list the shapes reported: the statistics' shapes in the order first seen, those of
 * bt_coverage_only only. */
static int shapes_update(bt_coverage *c) {
  int count = bt_stats_shape_count(c->st);
  unsigned long long *list = malloc((size_t)(count > 0 ? count : 1) * sizeof *list);
  if (!list) return no_memory(c);
  int n = 0;
  for (int i = 0; i < count; i++) {
    bt_stats_shape sh;
    if (bt_stats_shape_get(c->st, i, &sh) != BT_OK) continue;
    int wanted = c->nonly == 0;
    for (int k = 0; k < c->nonly && !wanted; k++) wanted = c->only[k] == sh.shape;
    if (wanted) list[n++] = sh.shape;
  }
  free(c->list);
  c->list = list;
  c->nlist = n;
  return BT_OK;
}

/* The definition that names the shape's nodes: one given or built from a log, else the one the
 * statistics hold; NULL: none. */
static const bt_def *def_of(bt_coverage *c, unsigned long long shape) {
  named *n = find_name(c, shape);
  if (n && n->def) return n->def;
  for (int i = 0, count = bt_stats_shape_count(c->st); i < count; i++) {
    bt_stats_shape sh;
    if (bt_stats_shape_get(c->st, i, &sh) == BT_OK && sh.shape == shape) return sh.def;
  }
  return NULL;
}

int bt_coverage_shape_count(bt_coverage *c) {
  if (!c) return BT_EINVAL;
  int rc = shapes_update(c);
  return rc != BT_OK ? rc : c->nlist;
}

int bt_coverage_shape(bt_coverage *c, int i, unsigned long long *shape, const bt_def **def) {
  if (!c) return BT_EINVAL;
  int rc = shapes_update(c);
  if (rc != BT_OK) return rc;
  if (i < 0 || i >= c->nlist) return fail(c, BT_EINVAL, "no shape %d (the coverage has %d)", i, c->nlist);
  if (shape) *shape = c->list[i];
  if (def) *def = def_of(c, c->list[i]);
  return BT_OK;
}

/* The node where the statistics count the figures of node: its first place. */
static int first_place(bt_coverage *c, unsigned long long shape, int node) {
  named *n = find_name(c, shape);
  if (n && n->first) return node >= 0 && node < n->nodes ? n->first[node] : node;
  const bt_def *def = def_of(c, shape);
  if (!def || node < 0 || node >= bt_def_size(def)) return node;
  return bt_def_node_of_state(def, bt_def_state(def, node));
}

int bt_coverage_node(bt_coverage *c, unsigned long long shape, int node, bt_stats_node *out) {
  if (!c) return BT_EINVAL;
  if (!out) return fail(c, BT_EINVAL, "bt_coverage_node: no out");
  bt_stats_shape sh;
  int found = 0;
  for (int i = 0, count = bt_stats_shape_count(c->st); i < count && !found; i++)
    found = bt_stats_shape_get(c->st, i, &sh) == BT_OK && sh.shape == shape;
  if (!found) return fail(c, BT_EINVAL, "the statistics have no shape %016llx", shape);
  if (node < 0 || node >= sh.nodes)
    return fail(c, BT_EINVAL, "no node %d in shape %016llx (its nodes are 0 to %d)", node, shape, sh.nodes - 1);
  if (bt_stats_node_get(c->st, shape, first_place(c, shape, node), out) != BT_OK)
    return fail(c, BT_EINVAL, "no node %d in shape %016llx", node, shape);
  out->node = node;
  return out->visits > 0 || out->runs > 0;
}

/* ---- the report ---- */

/* Where a node is: a file (file_len bytes of file) and a line. */
typedef struct place {
  const char *file;
  size_t file_len;
  int line;
} place;

/* One shape being reported. */
typedef struct report_shape {
  unsigned long long hash;
  const bt_def *def;
  char *fallback; /* the file of its nodes without a where */
} report_shape;

/* The place of node n: its where ("file:line"), or line n + 1 of the shape's fallback file. */
static place place_of(const report_shape *rs, int n) {
  const char *where = bt_def_where(rs->def, n);
  if (where && *where) {
    const char *colon = strrchr(where, ':');
    if (colon && colon > where && colon[1]) {
      char *end = NULL;
      long line = strtol(colon + 1, &end, 10);
      if (!*end && line > 0 && line <= 1000000000L) return (place){where, (size_t)(colon - where), (int)line};
    }
  }
  return (place){rs->fallback, strlen(rs->fallback), n + 1};
}

/* Appends the escape of a byte that is not printable ASCII, or a backslash: \\ \t \n \r, else
 * \xNN (as bt-log writes names: a report is ASCII, one record a line, whatever the names hold). */
static void put_escape(bt_buf *b, unsigned char ch) {
  switch (ch) {
    case '\\': bt_buf_append(b, "\\\\", 2); break;
    case '\t': bt_buf_append(b, "\\t", 2); break;
    case '\n': bt_buf_append(b, "\\n", 2); break;
    case '\r': bt_buf_append(b, "\\r", 2); break;
    default: bt_buf_printf(b, "\\x%02x", ch);
  }
}

static int plain_byte(unsigned char ch) { return ch >= 0x20 && ch < 0x7f && ch != '\\'; }

/* Appends s (n bytes), escaped (put_escape). */
static void put_text(bt_buf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t plain = i;
    while (plain < n && plain_byte((unsigned char)s[plain])) plain++;
    bt_buf_append(b, s + i, plain - i);
    if (plain == n) break;
    put_escape(b, (unsigned char)s[plain]);
    i = plain + 1;
  }
}

/* Appends s for an XML attribute's value: escaped as put_text, then XML's five entities. */
static void put_xml(bt_buf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    switch (ch) {
      case '&': bt_buf_append(b, "&amp;", 5); break;
      case '<': bt_buf_append(b, "&lt;", 4); break;
      case '>': bt_buf_append(b, "&gt;", 4); break;
      case '"': bt_buf_append(b, "&quot;", 6); break;
      case '\'': bt_buf_append(b, "&apos;", 6); break;
      default:
        if (plain_byte(ch)) bt_buf_append(b, (const char *)&s[i], 1);
        else put_escape(b, ch);
    }
  }
}

/* A node's count in lcov and Cobertura: its visits, or, for a node only ever set running (by a
 * restore, or before a log's attach), its runs; above 0 exactly when it was visited. */
static unsigned long long hits_of(const bt_stats_node *f) { return f->visits ? f->visits : f->runs; }

static int is_branching(const bt_def *def, int n) {
  return bt_def_child_count(def, n) > 0 && !bt_kind_has(bt_def_kind(def, n), BT_KIND_DECORATOR);
}

/* The text report of one shape. */
static int write_text(bt_coverage *c, const report_shape *rs, bt_buf *b) {
  const bt_def *def = rs->def;
  int size = bt_def_size(def), covered = 0, branches = 0, taken = 0;
  bt_stats_node f;
  for (int n = 0; n < size; n++) {
    if (bt_coverage_node(c, rs->hash, n, &f) == 1) covered++;
    if (!is_branching(def, n)) continue;
    for (int i = 0; i < bt_def_child_count(def, n); i++) {
      branches++;
      if (bt_coverage_node(c, rs->hash, bt_def_child(def, n, i), &f) == 1) taken++;
    }
  }
  bt_buf path = {0};
  place root = place_of(rs, 0);
  bt_buf_printf(b, "shape\t%016llx\troot\t", rs->hash);
  put_text(b, bt_def_name(def, 0), strlen(bt_def_name(def, 0)));
  bt_buf_printf(b, "\tfile\t");
  put_text(b, root.file, root.file_len);
  bt_buf_printf(b, "\tnodes\t%d/%d\tbranches\t%d/%d\n", covered, size, taken, branches);
  bt_buf_printf(b, "node\tvisits\tsuccesses\tfailures\truns\tinterrupted\tline\n");
  for (int pass = 0; pass < 2; pass++) {
    for (int n = 0; n < size; n++) {
      int visited = bt_coverage_node(c, rs->hash, n, &f);
      if (visited < 0) return visited;
      if (pass == 1 && visited) continue;
      path.len = 0;
      if (bt_def_path(def, n, &path) != BT_OK) return no_memory(c);
      place p = place_of(rs, n);
      if (pass == 1) bt_buf_append(b, "missing\t", 8);
      put_text(b, path.data, path.len);
      if (pass == 0)
        bt_buf_printf(b, "\t%llu\t%llu\t%llu\t%llu\t%llu", f.visits, f.successes, f.failures, f.runs, f.aborts);
      bt_buf_append(b, "\t", 1);
      put_text(b, p.file, p.file_len);
      bt_buf_printf(b, ":%d\n", p.line);
    }
  }
  bt_buf_free(&path);
  return BT_OK;
}

/* A line of a file that made nodes, or a branch there (block: its parent; branch: the child's
 * number), from one shape. */
typedef struct line_entry {
  place at;
  int shape;  /* its index in the report */
  int block;  /* -1: the line's nodes; else a branch of the node of that index */
  int branch;
  unsigned long long hits; /* the node's count (hits_of); a branch: its child's */
  int parent_visited;      /* a branch: its parent was visited */
} line_entry;

static int compare_text(const char *a, size_t na, const char *b, size_t nb) {
  int d = memcmp(a, b, na < nb ? na : nb);
  return d ? d : (na > nb) - (na < nb);
}

static int compare_entries(const void *x, const void *y) {
  const line_entry *a = x, *b = y;
  int d = compare_text(a->at.file, a->at.file_len, b->at.file, b->at.file_len);
  if (d) return d;
  if (a->at.line != b->at.line) return a->at.line < b->at.line ? -1 : 1;
  if (a->block != b->block) return a->block < b->block ? -1 : 1;
  if (a->branch != b->branch) return a->branch < b->branch ? -1 : 1;
  return (a->shape > b->shape) - (a->shape < b->shape);
}

static int same_place(const line_entry *a, const line_entry *b) {
  return a->at.line == b->at.line && compare_text(a->at.file, a->at.file_len, b->at.file, b->at.file_len) == 0;
}

/* Every line and branch of the shapes reported, sorted by file, line, block, branch. */
static int collect(bt_coverage *c, const report_shape *rs, int nrs, line_entry **out, int *count) {
  line_entry *e = NULL;
  int n = 0, cap = 0;
  for (int s = 0; s < nrs; s++) {
    const bt_def *def = rs[s].def;
    for (int node = 0, size = bt_def_size(def); node < size; node++) {
      bt_stats_node f;
      int visited = bt_coverage_node(c, rs[s].hash, node, &f);
      if (visited < 0) {
        free(e);
        return visited;
      }
      place at = place_of(&rs[s], node);
      if (kit_grow((void **)&e, &cap, n + 1, sizeof *e) != BT_OK) goto nomem;
      e[n++] = (line_entry){at, s, -1, 0, hits_of(&f), 0};
      if (!is_branching(def, node)) continue;
      for (int i = 0; i < bt_def_child_count(def, node); i++) {
        bt_stats_node g;
        bt_coverage_node(c, rs[s].hash, bt_def_child(def, node, i), &g);
        if (kit_grow((void **)&e, &cap, n + 1, sizeof *e) != BT_OK) goto nomem;
        e[n++] = (line_entry){at, s, node, i, hits_of(&g), visited};
      }
    }
  }
  if (n > 1) qsort(e, (size_t)n, sizeof *e, compare_entries);
  *out = e;
  *count = n;
  return BT_OK;
nomem:
  free(e);
  return no_memory(c);
}

/* A line's hits: per shape the fewest visits of the nodes made there (a line is covered when
 * every node made on it was visited), summed over the shapes. e[i] is the line's first entry; its
 * nodes' entries come first (block -1), by shape; *next is set past them. */
static unsigned long long line_hits(const line_entry *e, int n, int i, int *next) {
  unsigned long long sum = 0;
  int j = i;
  while (j < n && e[j].block < 0 && same_place(&e[j], &e[i])) {
    int shape = e[j].shape;
    unsigned long long least = e[j].hits;
    for (j++; j < n && e[j].block < 0 && e[j].shape == shape && same_place(&e[j], &e[i]); j++)
      if (e[j].hits < least) least = e[j].hits;
    sum += least;
  }
  *next = j;
  return sum;
}

/* A branch's entries (one per shape) from e[i]: taken (its child's visits summed), and whether
 * any shape visited its parent. */
static int branch_end(const line_entry *e, int n, int i, unsigned long long *taken, int *reached) {
  int j = i;
  *taken = 0;
  *reached = 0;
  for (; j < n && e[j].block == e[i].block && e[j].branch == e[i].branch && same_place(&e[j], &e[i]); j++) {
    *taken += e[j].hits;
    *reached |= e[j].parent_visited;
  }
  return j;
}

/* Figures of one file (entries from..to): lines found and hit, branches found and hit. */
typedef struct file_sums {
  int lines, lines_hit, branches, branches_hit;
} file_sums;

static file_sums sum_file(const line_entry *e, int from, int to) {
  file_sums s = {0, 0, 0, 0};
  for (int i = from; i < to;) {
    int next = i;
    if (e[i].block < 0) {
      unsigned long long hits = line_hits(e, to, i, &next);
      s.lines++;
      s.lines_hit += hits > 0;
      i = next;
      continue;
    }
    unsigned long long taken;
    int reached;
    i = branch_end(e, to, i, &taken, &reached);
    s.branches++;
    s.branches_hit += taken > 0;
  }
  return s;
}

/* The end of the entries of e[from]'s file. */
static int file_end(const line_entry *e, int n, int from) {
  int i = from;
  while (i < n && compare_text(e[i].at.file, e[i].at.file_len, e[from].at.file, e[from].at.file_len) == 0) i++;
  return i;
}

static void write_lcov(const line_entry *e, int n, const char *name, bt_buf *b) {
  for (int from = 0; from < n;) {
    int to = file_end(e, n, from);
    bt_buf_append(b, "TN:", 3);
    if (name) put_text(b, name, strlen(name));
    bt_buf_append(b, "\nSF:", 4);
    put_text(b, e[from].at.file, e[from].at.file_len);
    bt_buf_append(b, "\n", 1);
    for (int i = from; i < to;) { /* the branches first, then the lines, each in line order */
      if (e[i].block < 0) {
        i++;
        continue;
      }
      unsigned long long taken;
      int reached, block = e[i].block, branch = e[i].branch, line = e[i].at.line;
      i = branch_end(e, to, i, &taken, &reached);
      if (reached) bt_buf_printf(b, "BRDA:%d,%d,%d,%llu\n", line, block, branch, taken);
      else bt_buf_printf(b, "BRDA:%d,%d,%d,-\n", line, block, branch);
    }
    for (int i = from; i < to;) {
      if (e[i].block >= 0) {
        i++;
        continue;
      }
      int next = i, line = e[i].at.line;
      unsigned long long hits = line_hits(e, to, i, &next);
      bt_buf_printf(b, "DA:%d,%llu\n", line, hits);
      i = next;
    }
    file_sums s = sum_file(e, from, to);
    bt_buf_printf(b, "LF:%d\nLH:%d\nBRF:%d\nBRH:%d\nend_of_record\n", s.lines, s.lines_hit, s.branches,
                  s.branches_hit);
    from = to;
  }
}

static double rate(int hit, int all) { return all > 0 ? (double)hit / all : 1.0; }

static void write_cobertura(const line_entry *e, int n, const char *name, bt_buf *b) {
  file_sums all = {0, 0, 0, 0};
  for (int from = 0; from < n;) {
    int to = file_end(e, n, from);
    file_sums s = sum_file(e, from, to);
    all.lines += s.lines;
    all.lines_hit += s.lines_hit;
    all.branches += s.branches;
    all.branches_hit += s.branches_hit;
    from = to;
  }
  bt_buf_printf(b,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<coverage line-rate=\"%.4f\" branch-rate=\"%.4f\" lines-covered=\"%d\" lines-valid=\"%d\" "
                "branches-covered=\"%d\" branches-valid=\"%d\" complexity=\"0\" version=\"bt %s\" timestamp=\"0\">\n"
                "  <sources><source>.</source></sources>\n  <packages>\n    <package name=\"",
                rate(all.lines_hit, all.lines), rate(all.branches_hit, all.branches), all.lines_hit, all.lines,
                all.branches_hit, all.branches, BT_VERSION);
  put_xml(b, name, strlen(name));
  bt_buf_printf(b, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0\">\n      <classes>\n",
                rate(all.lines_hit, all.lines), rate(all.branches_hit, all.branches));
  for (int from = 0; from < n;) {
    int to = file_end(e, n, from);
    file_sums s = sum_file(e, from, to);
    bt_buf_append(b, "        <class name=\"", 21);
    put_xml(b, e[from].at.file, e[from].at.file_len);
    bt_buf_append(b, "\" filename=\"", 12);
    put_xml(b, e[from].at.file, e[from].at.file_len);
    bt_buf_printf(b, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0\">\n          <methods/>\n"
                     "          <lines>\n", rate(s.lines_hit, s.lines), rate(s.branches_hit, s.branches));
    for (int i = from; i < to;) { /* a line: its nodes' entries, then its branches' */
      int next = i, line = e[i].at.line;
      unsigned long long hits = e[i].block < 0 ? line_hits(e, to, i, &next) : 0;
      int branches = 0, hit = 0;
      while (next < to && e[next].block >= 0 && e[next].at.line == line) {
        unsigned long long taken;
        int reached;
        next = branch_end(e, to, next, &taken, &reached);
        branches++;
        hit += taken > 0;
      }
      bt_buf_printf(b, "            <line number=\"%d\" hits=\"%llu\"", line, hits);
      if (branches)
        bt_buf_printf(b, " branch=\"true\" condition-coverage=\"%d%% (%d/%d)\"", (int)(100.0 * hit / branches), hit,
                      branches);
      else bt_buf_append(b, " branch=\"false\"", 15);
      bt_buf_append(b, "/>\n", 3);
      i = next;
    }
    bt_buf_append(b, "          </lines>\n        </class>\n", 36);
    from = to;
  }
  bt_buf_append(b, "      </classes>\n    </package>\n  </packages>\n</coverage>\n", 58);
}

/* The file of the nodes without a where of each shape: its label, or its root's name; "#k"
 * after the k-th of those that would have the same. */
static int fallbacks(bt_coverage *c, report_shape *rs, int nrs) {
  for (int s = 0; s < nrs; s++) {
    named *nm = find_name(c, rs[s].hash);
    const char *base = nm && nm->label ? nm->label : bt_def_name(rs[s].def, 0);
    bt_buf b = {0};
    bt_buf_printf(&b, "%s", base && *base ? base : "tree");
    size_t len = b.len;
    for (int k = 2;; k++) {
      int clash = 0;
      for (int t = 0; t < s && !clash; t++) clash = strcmp(rs[t].fallback, b.data ? b.data : "") == 0;
      if (!clash) break;
      b.len = len;
      bt_buf_printf(&b, "#%d", k);
    }
    if (b.err || !b.data) {
      bt_buf_free(&b);
      return no_memory(c);
    }
    rs[s].fallback = b.data;
  }
  return BT_OK;
}

int bt_coverage_write(bt_coverage *c, int format, const char *name, bt_buf *out) {
  if (!c) return BT_EINVAL;
  if (!out) return fail(c, BT_EINVAL, "bt_coverage_write: no buffer");
  if (format < BT_COVERAGE_TEXT || format > BT_COVERAGE_COBERTURA)
    return fail(c, BT_EINVAL, "bt_coverage_write: no format %d (BT_COVERAGE_TEXT, _LCOV or _COBERTURA)", format);
  int rc = shapes_update(c);
  if (rc != BT_OK) return rc;
  report_shape *rs = calloc((size_t)(c->nlist > 0 ? c->nlist : 1), sizeof *rs);
  if (!rs) return no_memory(c);
  for (int s = 0; s < c->nlist; s++) {
    rs[s].hash = c->list[s];
    if (!(rs[s].def = def_of(c, c->list[s]))) {
      free(rs);
      return fail(c, BT_EINVAL, "shape %016llx: no definition names its nodes (bt_coverage_name)", c->list[s]);
    }
  }
  bt_buf b = {0};
  line_entry *e = NULL;
  int n = 0;
  rc = fallbacks(c, rs, c->nlist);
  if (rc == BT_OK && format == BT_COVERAGE_TEXT) {
    for (int s = 0; s < c->nlist && rc == BT_OK; s++) rc = write_text(c, &rs[s], &b);
  } else if (rc == BT_OK && (rc = collect(c, rs, c->nlist, &e, &n)) == BT_OK) {
    if (format == BT_COVERAGE_LCOV) write_lcov(e, n, name && *name ? name : NULL, &b);
    else write_cobertura(e, n, name && *name ? name : "bt", &b);
  }
  if (rc == BT_OK && (b.err || (b.len && bt_buf_append(out, b.data, b.len) != BT_OK))) rc = no_memory(c);
  free(e);
  for (int s = 0; s < c->nlist; s++) free(rs[s].fallback);
  free(rs);
  bt_buf_free(&b);
  return rc;
}
