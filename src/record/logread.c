/* SPDX-License-Identifier: MIT */
/*
 * logread.c: the log file's reader (bt.h "reading a log"; the format: logfmt.h,
 * docs/log-format.md), and the shapes a log declares.
 *
 * The reader keeps the bytes not yet read in a bt_buf: a file's, read as they are needed (so a
 * file that grows reads on), or those the host feeds it. It takes a block only when the whole of
 * it is there and its CRC-32 matches: a log cut anywhere reads up to its last whole block, and
 * says where. Within a frame block it decodes one record a call, each agent's against that
 * agent's previous record. Every length, index and node is checked against what holds it, so that
 * damaged or hostile bytes give BT_ECORRUPT with the byte's offset, never a read out of bounds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "rec_internal.h"
#include "logfmt.h"

/* ---- shapes ---- */

typedef struct shape_node {
  int kind;        /* a bt_kind, or -1 for a kind this library does not know */
  uint32_t kind_name, name; /* offsets in names */
  unsigned flags;  /* SHAPE_* */
  double param;
  int nchildren, kids; /* its children: kids[kids .. kids + nchildren) */
  int up, state;
} shape_node;

typedef struct shape_key {
  uint32_t name; /* an offset in names */
  int type;
  unsigned flags;
} shape_key;

struct bt_log_shape {
  uint64_t hash;
  int size;
  shape_node *nodes;
  int *kids;
  char *names;
  /* its blackboard (1.1 logs): keys, and each node's ports: node n's are ports[port_first[n]]
   * up to port_first[n + 1] (port_first NULL: no node has any) */
  int nkeys;
  shape_key *keys;
  int *port_first;
  bt_port *ports; /* key: NULL (port_key has it), type 0 */
  int *port_key;
};

static void shape_free(bt_log_shape *s) {
  if (!s) return;
  free(s->nodes);
  free(s->kids);
  free(s->names);
  free(s->keys);
  free(s->port_first);
  free(s->ports);
  free(s->port_key);
  free(s);
}

static int valid_node(const bt_log_shape *s, int node) { return s && node >= 0 && node < s->size; }

unsigned long long bt_log_shape_hash(const bt_log_shape *s) { return s ? s->hash : 0; }
int bt_log_shape_size(const bt_log_shape *s) { return s ? s->size : -1; }
int bt_log_shape_kind(const bt_log_shape *s, int n) { return valid_node(s, n) ? s->nodes[n].kind : -1; }
const char *bt_log_shape_kind_name(const bt_log_shape *s, int n) {
  return valid_node(s, n) ? s->names + s->nodes[n].kind_name : NULL;
}
const char *bt_log_shape_name(const bt_log_shape *s, int n) {
  return valid_node(s, n) ? s->names + s->nodes[n].name : NULL;
}
int bt_log_shape_child_count(const bt_log_shape *s, int n) { return valid_node(s, n) ? s->nodes[n].nchildren : -1; }
int bt_log_shape_child(const bt_log_shape *s, int n, int i) {
  if (!valid_node(s, n) || i < 0 || i >= s->nodes[n].nchildren) return -1;
  return s->kids[s->nodes[n].kids + i];
}
int bt_log_shape_up(const bt_log_shape *s, int n) { return valid_node(s, n) ? s->nodes[n].up : -1; }
int bt_log_shape_state(const bt_log_shape *s, int n) { return valid_node(s, n) ? s->nodes[n].state : -1; }

int bt_log_shape_param(const bt_log_shape *s, int n, double *out) {
  if (!valid_node(s, n)) return 0;
  const shape_node *d = &s->nodes[n];
  double v = d->param;
  if (d->flags & SHAPE_NIL_PARAM) {
    if (bt_kind_nil_param(d->kind, &v) != 1) return 0; /* the kind's nil param, or none: for ever */
  } else if (!(d->flags & SHAPE_HAS_PARAM) && !bt_kind_param_format(d->kind)) {
    return 0; /* a param written as nothing is 0 in the kinds that take one */
  }
  if (d->flags & SHAPE_PARAM_FN) return 0;
  if (out) *out = v;
  return 1;
}

static int valid_key(const bt_log_shape *s, int key) { return s && key >= 0 && key < s->nkeys; }

int bt_log_shape_key_count(const bt_log_shape *s) { return s ? s->nkeys : 0; }
const char *bt_log_shape_key_name(const bt_log_shape *s, int key) {
  return valid_key(s, key) ? s->names + s->keys[key].name : NULL;
}
int bt_log_shape_key_type(const bt_log_shape *s, int key) { return valid_key(s, key) ? s->keys[key].type : BT_EINVAL; }
int bt_log_shape_key_flags(const bt_log_shape *s, int key) {
  return valid_key(s, key) ? (int)s->keys[key].flags : BT_EINVAL;
}
int bt_log_shape_key_find(const bt_log_shape *s, const char *name) {
  for (int k = 0; s && name && k < s->nkeys; k++)
    if (strcmp(s->names + s->keys[k].name, name) == 0) return k;
  return BT_EINVAL;
}

int bt_log_shape_port_count(const bt_log_shape *s, int n) {
  if (!valid_node(s, n)) return BT_EINVAL;
  return s->port_first ? s->port_first[n + 1] - s->port_first[n] : 0;
}

int bt_log_shape_port(const bt_log_shape *s, int n, int i, int *key, unsigned *how) {
  int count = bt_log_shape_port_count(s, n);
  if (count < 0 || i < 0 || i >= count) return BT_EINVAL;
  int at = s->port_first[n] + i;
  if (key) *key = s->port_key[at];
  if (how) *how = s->ports[at].how;
  return BT_OK;
}

/* Adds node's name to out, with "#k" if it is the k-th of siblings sharing its name. */
static void path_name(const bt_log_shape *s, int n, bt_buf *out) {
  const char *name = s->names + s->nodes[n].name;
  bt_buf_append(out, name, strlen(name));
  int p = s->nodes[n].up;
  if (p < 0) return;
  int same = 0, k = 0;
  for (int i = 0; i < s->nodes[p].nchildren; i++) {
    int c = s->kids[s->nodes[p].kids + i];
    if (strcmp(s->names + s->nodes[c].name, name) != 0) continue;
    same++;
    if (c == n) k = same;
  }
  if (same > 1) bt_buf_printf(out, "#%d", k);
}

int bt_log_shape_path(const bt_log_shape *s, int n, bt_buf *out) {
  if (!valid_node(s, n) || !out) return BT_EINVAL;
  if (out->err) return out->err;
  int chain[BT_MAX_DEPTH + 1], depth = 0;
  for (int i = n; i >= 0 && depth <= BT_MAX_DEPTH; i = s->nodes[i].up) chain[depth++] = i;
  size_t len = out->len;
  while (depth-- > 0) {
    path_name(s, chain[depth], out);
    if (depth > 0) bt_buf_append(out, "/", 1);
  }
  if (out->err && out->data) {
    out->len = len;
    out->data[len] = 0;
  }
  return out->err;
}

int bt_log_shape_find(const bt_log_shape *s, const char *path) {
  if (!s || !path) return -1;
  bt_buf b = {0};
  int found = -1;
  size_t plen = strlen(path);
  for (int n = 0; n < s->size && found < 0; n++) {
    /* only nodes whose name appears in the path at the right place can be it: compare the end */
    const char *name = s->names + s->nodes[n].name;
    if (!strstr(path, name)) continue;
    b.len = 0;
    if (bt_log_shape_path(s, n, &b) != BT_OK) break;
    if (b.len == plen && memcmp(b.data, path, plen) == 0) found = n;
  }
  bt_buf_free(&b);
  return found;
}

/* Leaves of a shape's definition: they fail, having no code of their own. */
static int fails(bt_call *c) {
  (void)c;
  return 0;
}
static const bt_task no_task = {NULL, NULL, NULL};

int bt_log_shape_def(const bt_log_shape *s, bt_def **out) {
  if (!s || !out) return BT_EINVAL;
  *out = NULL;
  for (int n = 0; n < s->size; n++)
    if (s->nodes[n].kind < 0) return BT_EINVAL;
  bt_graph *g = NULL;
  int rc = bt_graph_create(&g);
  if (rc != BT_OK) return rc;
  int *id = malloc((size_t)s->size * sizeof *id), *first = malloc((size_t)s->size * sizeof *first);
  int *kids = NULL;
  bt_port *ports = NULL;
  if (!id || !first) rc = BT_ENOMEM;
  for (int n = 0; n < s->size && rc == BT_OK; n++) first[n] = -1;
  /* its keys, and room for a node's ports */
  for (int k = 0; k < s->nkeys && rc == BT_OK; k++) {
    int r = bt_graph_add_key(g, s->names + s->keys[k].name, s->keys[k].type, s->keys[k].flags);
    if (r < 0) rc = r;
  }
  int most = 0;
  for (int n = 0; n < s->size && s->port_first; n++)
    if (s->port_first[n + 1] - s->port_first[n] > most) most = s->port_first[n + 1] - s->port_first[n];
  if (rc == BT_OK && most && !(ports = malloc((size_t)most * sizeof *ports))) rc = BT_ENOMEM;
  /* one graph node per state, made at its first place */
  for (int n = 0; n < s->size && rc == BT_OK; n++) {
    const shape_node *d = &s->nodes[n];
    if (d->state < 0 || d->state >= s->size) rc = BT_EINVAL;
    else if (first[d->state] >= 0) {
      const shape_node *f = &s->nodes[first[d->state]]; /* another place of a shared node */
      if (f->kind != d->kind || f->nchildren != d->nchildren || strcmp(s->names + f->name, s->names + d->name))
        rc = BT_EINVAL;
      id[n] = id[first[d->state]];
      continue;
    }
    first[d->state] = n;
    bt_spec sp = {0};
    sp.kind = d->kind;
    sp.name = s->names + d->name;
    sp.param = d->param;
    if (d->flags & SHAPE_NIL_PARAM) sp.flags |= BT_SPEC_NIL_PARAM;
    if (d->flags & SHAPE_PARAM_FN) sp.flags |= BT_SPEC_PARAM_FN;
    if (d->flags & SHAPE_NOSCATTER) sp.flags |= BT_SPEC_NOSCATTER;
    if (d->flags & SHAPE_SUCCESS_ONE) sp.flags |= BT_SPEC_SUCCESS_ONE;
    if (d->flags & SHAPE_FAILURE_ALL) sp.flags |= BT_SPEC_FAILURE_ALL;
    if (!(d->flags & SHAPE_LEAF)) sp.flags |= BT_SPEC_CHILDREN; /* as bt_def_spec gives it */
    sp.fn = sp.fn2 = fails;
    sp.task = &no_task;
    sp.nports = bt_log_shape_port_count(s, n);
    for (int i = 0; i < sp.nports; i++) {
      int key = s->port_key[s->port_first[n] + i];
      ports[i] = (bt_port){s->names + s->keys[key].name, 0, s->ports[s->port_first[n] + i].how};
    }
    sp.ports = sp.nports ? ports : NULL;
    int r = bt_graph_add(g, &sp);
    if (r < 0) rc = r;
    else id[n] = r;
  }
  if (rc == BT_OK && !(kids = malloc((size_t)s->size * sizeof *kids))) rc = BT_ENOMEM;
  for (int n = 0; n < s->size && rc == BT_OK; n++) {
    const shape_node *d = &s->nodes[n];
    if (first[d->state] != n || !d->nchildren) continue;
    for (int i = 0; i < d->nchildren; i++) kids[i] = id[s->kids[d->kids + i]];
    rc = bt_graph_set_children(g, id[n], kids, d->nchildren);
  }
  bt_def *def = NULL;
  if (rc == BT_OK) rc = bt_def_create(&def, g, id[0]);
  /* the same nodes in the same pre-order, or it is not this shape */
  if (rc == BT_OK && bt_def_size(def) != s->size) rc = BT_EINVAL;
  for (int n = 0; n < s->size && rc == BT_OK; n++)
    if (bt_def_kind(def, n) != s->nodes[n].kind || strcmp(bt_def_name(def, n), s->names + s->nodes[n].name))
      rc = BT_EINVAL;
  if (rc != BT_OK) bt_def_release(def);
  else *out = def;
  free(id);
  free(first);
  free(kids);
  free(ports);
  bt_graph_free(g);
  return rc;
}

/* ---- the reader ---- */

typedef struct agent {
  unsigned long long id;
  char *label;
  const bt_log_shape *shape;
  uint64_t think;
  double time;
  int32_t node;
} agent;

typedef struct entry { /* of a DESCRIBE or ATTACH record */
  int node, a, b;      /* DESCRIBE: a has_sleep; ATTACH: a status, b last result */
  double sleep;
  size_t off, len;     /* DESCRIBE: its text in the buffer */
} entry;

struct bt_log_reader {
  FILE *file;           /* NULL: the bytes are fed */
  int eof;              /* the file had no more bytes at the last try */
  bt_buf in;            /* bytes [0, in.len) from the stream's offset base */
  size_t pos;           /* the next byte to read */
  unsigned long long base;
  size_t done;          /* the end of the last block read through (an offset in buf) */
  int flags;            /* the header's, -1 before */
  int minor;            /* the format's minor version (LOG_MINOR: 1.1 logs have blackboards) */
  int ended, err, where;
  char errmsg[256];
  /* the frame block being read */
  int in_frame;
  size_t frame_end, block_end, chunk_end;
  int chunk_agent, prev_index;
  uint64_t *times;
  size_t ntimes, times_cap;
  agent *agents;
  int nagents, agents_cap;
  bt_log_shape **shapes;
  int nshapes, shapes_cap;
  entry *entries;
  size_t nentries, entries_cap;
  int last_type;
  bt_buf text;          /* the last error record's message, or key record's strings, each ended
                           by a 0 */
  struct kv {           /* the keys' values of the last ATTACH record */
    int key;
    bt_value v;
    size_t off;         /* a string's: its bytes in text */
  } *values;
  size_t nvalues, values_cap;
};

static int corrupt(bt_log_reader *r, size_t at, const char *fmt, ...)
    BT_PRINTF_CHECK(3, 4)
    ;

static int corrupt(bt_log_reader *r, size_t at, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(r->errmsg, sizeof r->errmsg, "corrupt at byte %llu: %s", r->base + at, what);
  r->where = BT_LOG_FAILED;
  return r->err = BT_ECORRUPT;
}

static int fail_with(bt_log_reader *r, int code, const char *msg) {
  snprintf(r->errmsg, sizeof r->errmsg, "%s", msg);
  r->where = BT_LOG_FAILED;
  return r->err = code;
}

/* An error record's message (n bytes at p) as its entry's text: copied, with a 0 after it, as
 * bt.h promises of BT_REC_ERROR (in the buffer the next record's bytes follow it). */
static int error_text(bt_log_reader *r, const unsigned char *p, size_t n, const char **out) {
  r->text.len = 0;
  r->text.err = 0;
  if (bt_buf_append(&r->text, (const char *)p, n) != BT_OK) return fail_with(r, BT_ENOMEM, "out of memory");
  *out = n ? r->text.data : "";
  return BT_OK;
}

/* The input buffer's first size: the file is read in pieces of at least FIRST_ROOM - 1 bytes
 * (bt_buf_reserve keeps one more, for a NUL). */
#define FIRST_ROOM 65536

/* The input's bytes. */
static inline unsigned char *buf(const bt_log_reader *r) { return (unsigned char *)r->in.data; }

/* Makes room for n more bytes at the input's end; moves what is left to read to its start first
 * when no block is being read (offsets into the buffer then change). 1, or 0 without memory; not
 * sticky (a failed reserve is not remembered): a later feed of fewer bytes may fit. */
static int room(bt_log_reader *r, size_t n) {
  bt_buf *b = &r->in;
  if (!r->in_frame && r->pos > 0 && (r->pos >= b->len || b->cap - b->len <= n)) {
    size_t keep = b->len - r->pos;
    memmove(b->data, b->data + r->pos, keep);
    r->base += r->pos;
    r->done -= r->done >= r->pos ? r->pos : r->done;
    b->len = keep;
    r->pos = 0;
  }
  if (!n || b->cap - b->len > n) return 1;
  return bt_buf_reserve(b, !b->cap && n < FIRST_ROOM - 1 ? FIRST_ROOM - 1 : n) == BT_OK;
}

/* Has at least n bytes from pos in the buffer, reading the file for them: 1, 0 when the bytes end
 * before, or an error. */
static int have(bt_log_reader *r, size_t n) {
  if (r->in.len - r->pos >= n) return 1;
  if (!r->file) return 0;
  for (;;) {
    size_t want = n - (r->in.len - r->pos);
    if (want < FIRST_ROOM - 1) want = FIRST_ROOM - 1;
    if (!room(r, want)) return fail_with(r, BT_ENOMEM, "out of memory");
    /* a file read while it grows: after its end, a seek where we are, for clearerr alone does not
     * read on everywhere (wine's msvcrt keeps the end in the descriptor until a seek) */
    if (feof(r->file)) fseek(r->file, 0, SEEK_CUR);
    clearerr(r->file);
    size_t got = fread(buf(r) + r->in.len, 1, r->in.cap - r->in.len - 1, r->file);
    r->in.len += got;
    if (r->in.len - r->pos >= n) return 1;
    if (got == 0) {
      if (ferror(r->file)) {
        snprintf(r->errmsg, sizeof r->errmsg, "cannot read the log: %s", strerror(errno));
        r->where = BT_LOG_FAILED;
        return r->err = BT_EIO;
      }
      return 0;
    }
  }
}

/* Reads a varint at *at, below end: 1, or 0 when it runs past end. */
static int varint_at(const bt_log_reader *r, size_t *at, size_t end, uint64_t *v) {
  const unsigned char *p = buf(r) + *at;
  if (!bti_get_varint(&p, buf(r) + end, v)) return 0;
  *at = (size_t)(p - buf(r));
  return 1;
}

/* Checks the header (all of it, or what there is of it: a log being written): 1 when read, 0 when
 * not all there, or BT_EFORMAT. */
static int read_header(bt_log_reader *r) {
  int rc = have(r, LOG_HEADER_SIZE);
  if (rc < 0) return rc;
  size_t n = r->in.len - r->pos < LOG_HEADER_SIZE ? r->in.len - r->pos : LOG_HEADER_SIZE;
  if (n == 0) return 0; /* nothing yet (and perhaps no buffer) */
  const unsigned char *h = buf(r) + r->pos;
  if (memcmp(h, LOG_MAGIC, n < LOG_MAGIC_SIZE ? n : LOG_MAGIC_SIZE) != 0)
    return fail_with(r, BT_EFORMAT, "not a bt log: its first bytes are not a bt log's (\\x89BTLOG\\r\\n)");
  if (n > 8 && h[8] != LOG_VERSION) {
    snprintf(r->errmsg, sizeof r->errmsg, "a bt log of format version %u: this library reads version %d",
             h[8], LOG_VERSION);
    r->where = BT_LOG_FAILED;
    return r->err = BT_EFORMAT;
  }
  if (n > 9 && (h[9] & ~BT_LOG_DBSTRINGS))
    return corrupt(r, r->pos + 9, "unknown header flags 0x%02x", h[9]);
  if (n > 10 && h[10] > LOG_MINOR) {
    snprintf(r->errmsg, sizeof r->errmsg, "a bt log of format version %u.%u: this library reads up to version %d.%d",
             h[8], h[10], LOG_VERSION, LOG_MINOR);
    r->where = BT_LOG_FAILED;
    return r->err = BT_EFORMAT;
  }
  if (n > 11 && h[11]) return corrupt(r, r->pos + 11, "the header's byte 11 is not 0");
  if (n < LOG_HEADER_SIZE) return 0;
  uint32_t crc = (uint32_t)h[12] | (uint32_t)h[13] << 8 | (uint32_t)h[14] << 16 | (uint32_t)h[15] << 24;
  if (crc != bti_crc32(0, h, 12)) return corrupt(r, r->pos + 12, "the header's checksum does not match its bytes");
  r->flags = h[9];
  r->minor = h[10];
  r->pos += LOG_HEADER_SIZE;
  r->done = r->pos;
  return 1;
}

static int find_shape(const bt_log_reader *r, uint64_t hash) {
  for (int i = r->nshapes - 1; i >= 0; i--)
    if (r->shapes[i]->hash == hash) return i;
  return -1;
}

/* Appends the string of n bytes at *at (below end) to names, with its 0: its offset, or -1 when it
 * runs past end or holds a 0 (the caller says which: corrupt), -2 without memory. */
static long take_string(bt_log_reader *r, size_t *at, size_t end, uint64_t n, bt_buf *names) {
  if (n > end - *at || memchr(buf(r) + *at, 0, (size_t)n)) return -1;
  long off = (long)names->len;
  bt_buf_append(names, r->in.data + *at, (size_t)n);
  bt_buf_append(names, "", 1); /* its 0 (bt_buf adds another after it) */
  if (names->err) return -2;
  *at += (size_t)n;
  return off;
}

static int kind_of(const char *name) {
  for (int k = 0; k < BT_KIND_COUNT; k++)
    if (strcmp(bt_kind_name(k), name) == 0) return k;
  return -1;
}

/* The blackboard after a shape's nodes (1.1): its keys (their names into names), and the nodes
 * that have ports. */
static int read_board(bt_log_reader *r, bt_log_shape *s, size_t *pat, size_t end, bt_buf *names) {
  size_t at = *pat;
  uint64_t nkeys, v, type, flags, with;
  if (!varint_at(r, &at, end, &nkeys) || nkeys > end - at) return corrupt(r, at, "a shape's count of keys is bad");
  s->keys = malloc((size_t)(nkeys ? nkeys : 1) * sizeof *s->keys);
  if (!s->keys) return fail_with(r, BT_ENOMEM, "out of memory");
  for (uint64_t k = 0; k < nkeys; k++) {
    size_t key_at = at;
    long off = -1;
    if (!varint_at(r, &at, end, &v) || v == 0 || (off = take_string(r, &at, end, v, names)) == -1 ||
        !varint_at(r, &at, end, &type) || type <= BT_KEY_NONE || type >= BT_KEY_TYPE_COUNT ||
        !varint_at(r, &at, end, &flags) || (flags & ~(uint64_t)BT_KEY_HOST))
      return off == -2 ? fail_with(r, BT_ENOMEM, "out of memory") : corrupt(r, key_at, "key %llu of a shape is bad", (unsigned long long)k);
    for (uint64_t j = 0; j < k; j++)
      if (strcmp(names->data + s->keys[j].name, names->data + off) == 0)
        return corrupt(r, key_at, "a shape declares key %llu twice", (unsigned long long)k);
    s->keys[k] = (shape_key){(uint32_t)off, (int)type, (unsigned)flags};
    s->nkeys = (int)k + 1;
  }
  if (!varint_at(r, &at, end, &with) || with > (uint64_t)s->size) return corrupt(r, at, "a shape's count of nodes with ports is bad");
  if (!with) {
    *pat = at;
    return BT_OK;
  }
  if (!s->nkeys) return corrupt(r, at, "a shape has ports but no keys");
  s->port_first = calloc((size_t)s->size + 1, sizeof *s->port_first);
  if (!s->port_first) return fail_with(r, BT_ENOMEM, "out of memory");
  int node = 0, nports = 0, cap = 0;
  for (uint64_t i = 0; i < with; i++) {
    size_t node_at = at;
    uint64_t d, count;
    if (!varint_at(r, &at, end, &d) || (i > 0 && d == 0) || d >= (uint64_t)(s->size - node) ||
        !varint_at(r, &at, end, &count) || count == 0 || count > (end - at) / 2)
      return corrupt(r, node_at, "a shape's ports are bad");
    for (int n = node + 1; n <= node + (int)d; n++) s->port_first[n] = nports; /* (nodes without) */
    node += (int)d;
    s->port_first[node] = nports;
    if (nports + (int)count > cap) {
      cap = (nports + (int)count) * 2;
      bt_port *p = realloc(s->ports, (size_t)cap * sizeof *p);
      int *k = p ? realloc(s->port_key, (size_t)cap * sizeof *k) : NULL;
      if (p) s->ports = p;
      if (k) s->port_key = k;
      if (!p || !k) return fail_with(r, BT_ENOMEM, "out of memory");
    }
    for (uint64_t j = 0; j < count; j++) {
      uint64_t key, how;
      if (!varint_at(r, &at, end, &key) || key >= (uint64_t)s->nkeys || !varint_at(r, &at, end, &how) || how == 0 ||
          (how & ~(uint64_t)(BT_PORT_READ | BT_PORT_WRITE)))
        return corrupt(r, node_at, "a port of node %d of a shape is bad", node);
      s->ports[nports] = (bt_port){NULL, 0, (unsigned)how};
      s->port_key[nports++] = (int)key;
    }
  }
  for (int n = node + 1; n <= s->size; n++) s->port_first[n] = nports;
  *pat = at;
  return BT_OK;
}

/* A SHAPE block's payload [at, end). */
static int read_shape(bt_log_reader *r, size_t at, size_t end) {
  if (end - at < 8) return corrupt(r, at, "a shape without its hash");
  uint64_t hash = bti_get_u64(buf(r) + at), nkinds = 0, nnodes = 0, v;
  at += 8;
  if (!varint_at(r, &at, end, &nkinds) || nkinds > 4096 || nkinds > end - at)
    return corrupt(r, at, "a shape's count of kinds is bad");
  bt_log_shape *s = calloc(1, sizeof *s);
  bt_buf names = {0};
  long *kind_names = malloc((size_t)(nkinds ? nkinds : 1) * sizeof *kind_names);
  int *kinds = malloc((size_t)(nkinds ? nkinds : 1) * sizeof *kinds);
  int *open = NULL, *filled = NULL; /* the nodes whose children are still coming, and how many came */
  int rc = BT_OK;
  if (!s || !kind_names || !kinds) rc = fail_with(r, BT_ENOMEM, "out of memory");
  for (uint64_t k = 0; rc == BT_OK && k < nkinds; k++) {
    long off = -1;
    if (!varint_at(r, &at, end, &v) || (off = take_string(r, &at, end, v, &names)) == -1)
      rc = corrupt(r, at, "a shape's kind name %llu is bad", (unsigned long long)k);
    else if (off < 0)
      rc = fail_with(r, BT_ENOMEM, "out of memory");
    kind_names[k] = off;
    kinds[k] = off >= 0 ? kind_of(names.data + off) : -1;
  }
  if (rc == BT_OK && (!varint_at(r, &at, end, &nnodes) || nnodes < 1 || nnodes > BT_MAX_NODES || nnodes > end - at))
    rc = corrupt(r, at, "a shape's count of nodes is bad");
  if (rc == BT_OK) {
    s->hash = hash;
    s->size = (int)nnodes;
    s->nodes = calloc((size_t)nnodes, sizeof *s->nodes);
    s->kids = malloc((size_t)nnodes * sizeof *s->kids);
    open = malloc((BT_MAX_DEPTH + 1) * sizeof *open);
    filled = malloc((BT_MAX_DEPTH + 1) * sizeof *filled);
    if (!s->nodes || !s->kids || !open || !filled) rc = fail_with(r, BT_ENOMEM, "out of memory");
  }
  int depth = 0, nkids = 0;
  for (int n = 0; rc == BT_OK && n < s->size; n++) {
    shape_node *d = &s->nodes[n];
    uint64_t kind, flags, nch, state;
    size_t node_at = at;
    long off = -1;
    if (!varint_at(r, &at, end, &kind) || kind >= nkinds || !varint_at(r, &at, end, &flags) ||
        (flags & ~(uint64_t)SHAPE_FLAGS)) {
      rc = corrupt(r, node_at, "node %d of a shape: bad kind or flags", n);
      break;
    }
    d->kind = kinds[kind];
    d->kind_name = (uint32_t)kind_names[kind];
    d->flags = (unsigned)flags;
    if (flags & SHAPE_HAS_PARAM) {
      if (end - at < 8) {
        rc = corrupt(r, at, "node %d of a shape: its param is cut", n);
        break;
      }
      d->param = bti_double(bti_get_u64(buf(r) + at));
      at += 8;
    }
    if (!varint_at(r, &at, end, &v) || (off = take_string(r, &at, end, v, &names)) == -1 ||
        !varint_at(r, &at, end, &nch) || !varint_at(r, &at, end, &state) || state >= nnodes) {
      rc = off == -2 ? fail_with(r, BT_ENOMEM, "out of memory")
                     : corrupt(r, node_at, "node %d of a shape: bad name, children or state", n);
      break;
    }
    d->name = (uint32_t)off;
    d->state = (int)state;
    /* its parent: the innermost node whose children are still coming */
    d->up = -1;
    if (n > 0) {
      while (depth > 0 && filled[depth - 1] == s->nodes[open[depth - 1]].nchildren) depth--;
      if (depth == 0) {
        rc = corrupt(r, node_at, "node %d of a shape has no parent: the counts of children are bad", n);
        break;
      }
      shape_node *p = &s->nodes[open[depth - 1]];
      d->up = open[depth - 1];
      s->kids[p->kids + filled[depth - 1]++] = n;
    }
    if (nch > nnodes - 1 - (uint64_t)nkids) {
      rc = corrupt(r, node_at, "node %d of a shape has more children than the shape has nodes", n);
      break;
    }
    d->nchildren = (int)nch;
    d->kids = nkids;
    nkids += (int)nch;
    if (nch) {
      if (depth > BT_MAX_DEPTH) {
        rc = corrupt(r, node_at, "a shape deeper than %d", BT_MAX_DEPTH);
        break;
      }
      open[depth] = n;
      filled[depth++] = 0;
    }
  }
  if (rc == BT_OK) {
    while (depth > 0 && filled[depth - 1] == s->nodes[open[depth - 1]].nchildren) depth--;
    if (depth > 0 || nkids != s->size - 1) rc = corrupt(r, at, "a shape whose nodes lack children it counts");
    else if (r->minor >= 1) rc = read_board(r, s, &at, end, &names);
    if (rc == BT_OK && at != end) rc = corrupt(r, at, r->minor >= 1 ? "bytes after a shape's ports" : "bytes after a shape's last node");
  }
  if (rc == BT_OK && find_shape(r, hash) < 0) { /* a shape declared twice keeps its first */
    if (r->nshapes == r->shapes_cap) {
      int cap = r->shapes_cap ? r->shapes_cap * 2 : 8;
      bt_log_shape **sh = realloc(r->shapes, (size_t)cap * sizeof *sh);
      if (!sh) rc = fail_with(r, BT_ENOMEM, "out of memory");
      else {
        r->shapes = sh;
        r->shapes_cap = cap;
      }
    }
    if (rc == BT_OK) {
      s->names = names.data;
      names.data = NULL;
      r->shapes[r->nshapes++] = s;
      s = NULL;
    }
  }
  free(open);
  free(filled);
  free(kinds);
  free(kind_names);
  bt_buf_free(&names);
  shape_free(s);
  return rc;
}

/* An AGENT block's payload [at, end). */
static int read_agent(bt_log_reader *r, size_t at, size_t end) {
  uint64_t index, id, n;
  if (!varint_at(r, &at, end, &index) || index > (uint64_t)r->nagents)
    return corrupt(r, at, "an agent's number is not one declared nor the next");
  if (!varint_at(r, &at, end, &id) || !varint_at(r, &at, end, &n) || n != end - at || memchr(buf(r) + at, 0, (size_t)n))
    return corrupt(r, at, "agent %llu: a bad id or label", (unsigned long long)index);
  char *label = malloc((size_t)n + 1);
  if (!label) return fail_with(r, BT_ENOMEM, "out of memory");
  memcpy(label, buf(r) + at, (size_t)n);
  label[n] = 0;
  if (index == (uint64_t)r->nagents) {
    if (r->nagents == r->agents_cap) {
      int cap = r->agents_cap ? r->agents_cap * 2 : 16;
      agent *a = cap > 0 ? realloc(r->agents, (size_t)cap * sizeof *a) : NULL;
      if (!a) {
        free(label);
        return fail_with(r, BT_ENOMEM, "out of memory");
      }
      r->agents = a;
      r->agents_cap = cap;
    }
    memset(&r->agents[r->nagents++], 0, sizeof(agent));
  }
  agent *a = &r->agents[index];
  free(a->label);
  a->label = label;
  a->id = id;
  return BT_OK;
}

/* A FRAME block's time table, from at; the agents' records follow. */
static int read_frame(bt_log_reader *r, size_t at, size_t end) {
  uint64_t n;
  if (!varint_at(r, &at, end, &n) || n > (end - at) / 8) return corrupt(r, at, "a frame's time table is bad");
  if (n > r->times_cap) {
    uint64_t *t = realloc(r->times, (size_t)n * sizeof *t);
    if (!t) return fail_with(r, BT_ENOMEM, "out of memory");
    r->times = t;
    r->times_cap = (size_t)n;
  }
  for (uint64_t i = 0; i < n; i++) r->times[i] = bti_get_u64(buf(r) + at + 8 * i);
  r->ntimes = (size_t)n;
  r->pos = at + 8 * (size_t)n;
  r->frame_end = end;
  r->chunk_end = r->pos;
  r->prev_index = 0;
  r->in_frame = 1;
  return BT_OK;
}

static int put_entry(bt_log_reader *r, const entry *e) {
  if (r->nentries == r->entries_cap) {
    size_t cap = r->entries_cap ? r->entries_cap * 2 : 16;
    entry *x = realloc(r->entries, cap * sizeof *x);
    if (!x) return fail_with(r, BT_ENOMEM, "out of memory");
    r->entries = x;
    r->entries_cap = cap;
  }
  r->entries[r->nentries++] = *e;
  return BT_OK;
}

/* Fills the parts of a record every type has. */
static void record_of(bt_log_reader *r, const agent *a, int type, bt_log_record *out, size_t block) {
  memset(out, 0, sizeof *out);
  out->entry.type = (unsigned char)type;
  out->entry.node = -1;
  out->entry.think = a->think;
  out->entry.time = a->time;
  out->agent = a->id;
  out->label = a->label ? a->label : "";
  out->agent_index = (int)(a - r->agents);
  out->shape = a->shape;
  out->offset = r->base + block;
  r->last_type = type;
}

/* Reads a value (1.1, logfmt.h) at *at, below end, of a key of `type` (or nil): 1 with v (a
 * string's bytes at *soff, *slen of them, in the input: the caller points v at a copy), or 0. */
static int get_value(const bt_log_reader *r, size_t *at, size_t end, int type, bt_value *v, size_t *soff,
                     size_t *slen) {
  memset(v, 0, sizeof *v);
  *slen = 0;
  if (*at >= end) return 0;
  int t = buf(r)[(*at)++];
  if (t != BT_KEY_NONE && t != type) return 0;
  v->type = t;
  uint64_t u;
  switch (t) {
    case BT_KEY_NONE: return 1;
    case BT_KEY_NUMBER:
      if (end - *at < 8) return 0;
      v->as.number = bti_double(bti_get_u64(buf(r) + *at));
      *at += 8;
      return 1;
    case BT_KEY_INTEGER:
      if (!varint_at(r, at, end, &u)) return 0;
      v->as.integer = bti_unzigzag(u);
      return 1;
    case BT_KEY_BOOLEAN:
      if (*at >= end || buf(r)[*at] > 1) return 0;
      v->as.boolean = buf(r)[(*at)++];
      return 1;
    case BT_KEY_STRING:
      if (!varint_at(r, at, end, &u) || u > end - *at || memchr(buf(r) + *at, 0, (size_t)u)) return 0;
      *soff = *at;
      *slen = (size_t)u;
      *at += (size_t)u;
      return 1;
    default: /* entity, value */
      if (!varint_at(r, at, end, &u)) return 0;
      v->as.entity = u;
      return 1;
  }
}

/* Appends n bytes of the input at off, and a 0, to text: its offset there, or -1 without memory. */
static long text_add(bt_log_reader *r, size_t off, size_t n) {
  long at = (long)r->text.len;
  bt_buf_append(&r->text, (const char *)buf(r) + off, n);
  bt_buf_append(&r->text, "", 1); /* its 0 (bt_buf adds another after it) */
  return r->text.err ? -1 : at;
}

/* A KEY record (the code read) at *at: the entry's key, woke, values, and text. */
static int read_key(bt_log_reader *r, agent *a, unsigned tag, size_t *at, size_t end, bt_log_record *out, size_t block) {
  uint64_t key;
  bt_value v[2];
  size_t off[2] = {0, 0}, len[2];
  if (!varint_at(r, at, end, &key) || !a->shape || key >= (uint64_t)a->shape->nkeys)
    return corrupt(r, r->pos, "a key record names no key of its agent's shape");
  int type = a->shape->keys[key].type;
  for (int i = 0; i < 2; i++)
    if (!get_value(r, at, end, type, &v[i], &off[i], &len[i]))
      return corrupt(r, r->pos, "a key record's values are bad");
  record_of(r, a, BT_REC_KEY, out, block);
  out->entry.node = (int)key;
  out->entry.from = tag == REC_KEY_WOKE;
  out->entry.before = v[0];
  out->entry.after = v[1];
  r->text.len = 0;
  r->text.err = 0;
  for (int i = 0; i < 2; i++)
    if (v[i].type == BT_KEY_STRING && text_add(r, off[i], len[i]) < 0) return fail_with(r, BT_ENOMEM, "out of memory");
  if (r->text.len) {
    out->entry.text = r->text.data;
    out->entry.size = r->text.len;
    bti_rec_key_strings(&out->entry);
  }
  return BT_OK;
}

/* The values of an attach record (1.1) at *at: into r->values, their strings into text. */
static int read_values(bt_log_reader *r, const agent *a, size_t *at, size_t end) {
  uint64_t count, d;
  r->nvalues = 0;
  r->text.len = 0;
  r->text.err = 0;
  if (!varint_at(r, at, end, &count) || count > (uint64_t)a->shape->nkeys) return corrupt(r, r->pos, "an attach record's values are cut");
  if (count > r->values_cap) {
    struct kv *x = realloc(r->values, (size_t)count * sizeof *x);
    if (!x) return fail_with(r, BT_ENOMEM, "out of memory");
    r->values = x;
    r->values_cap = (size_t)count;
  }
  int64_t key = 0;
  for (uint64_t i = 0; i < count; i++) {
    struct kv *e = &r->values[i];
    size_t soff = 0, slen;
    if (!varint_at(r, at, end, &d) || (i > 0 && d == 0) || d >= (uint64_t)a->shape->nkeys - (uint64_t)key ||
        !get_value(r, at, end, a->shape->keys[key + (int64_t)d].type, &e->v, &soff, &slen) || e->v.type == BT_KEY_NONE)
      return corrupt(r, r->pos, "an attach record's values are bad");
    key += (int64_t)d;
    e->key = (int)key;
    if (e->v.type == BT_KEY_STRING) {
      long o = text_add(r, soff, slen);
      if (o < 0) return fail_with(r, BT_ENOMEM, "out of memory");
      e->off = (size_t)o;
    }
    r->nvalues++;
  }
  return BT_OK;
}

/* A node named by a record: 1, or 0 when the agent has no shape or the node is not in it. */
static int node_ok(const agent *a, int64_t node) { return a->shape && node >= 0 && node < a->shape->size; }

/* Decodes the record at pos (of the current agent): 1 with *out, 0 for a record that only moves
 * the agent's think and time, or an error. */
static int read_record(bt_log_reader *r, bt_log_record *out, size_t block) {
  agent *a = &r->agents[r->chunk_agent];
  size_t at = r->pos, end = r->chunk_end;
  unsigned tag = buf(r)[at++];
  uint64_t v, w;
  r->nentries = 0;
  if (tag < REC_THINK) { /* STATUS */
    if (!varint_at(r, &at, end, &v)) return corrupt(r, r->pos, "a status record is cut");
    int64_t node = (int64_t)a->node + bti_unzigzag(v);
    if (!node_ok(a, node)) return corrupt(r, r->pos, "a status record names no node of its agent's shape");
    a->node = (int32_t)node;
    record_of(r, a, BT_REC_STATUS, out, block);
    out->entry.node = (int)node;
    out->entry.from = tag & 3;
    out->entry.to = tag >> 2 & 3;
    r->pos = at;
    return 1;
  }
  if (tag < REC_TIME || (tag >= REC_THINK_MORE && tag < REC_THINK_MORE + 16)) { /* THINK */
    int form = tag >> 2 & 3, cause = (tag & 3) + (tag >= REC_THINK_MORE ? 4 : 0);
    if (cause > (r->minor >= 1 ? BT_WAKE_KEY : BT_WAKE_RELOAD))
      return corrupt(r, r->pos, "a think record's cause %d is unknown", cause);
    size_t n = form == SLEEP_FLOAT ? 4 : form == SLEEP_DOUBLE ? 8 : 0;
    if (end - at < n) return corrupt(r, r->pos, "a think record is cut");
    double sleep = 0;
    if (form == SLEEP_FLOAT) {
      uint32_t u = (uint32_t)buf(r)[at] | (uint32_t)buf(r)[at + 1] << 8 | (uint32_t)buf(r)[at + 2] << 16 |
                   (uint32_t)buf(r)[at + 3] << 24;
      float f;
      memcpy(&f, &u, sizeof f);
      sleep = f;
    } else if (form == SLEEP_DOUBLE) {
      sleep = bti_double(bti_get_u64(buf(r) + at));
    }
    record_of(r, a, BT_REC_THINK, out, block);
    out->entry.cause = (unsigned char)cause;
    out->entry.has_sleep = form != SLEEP_NONE;
    out->entry.sleep = sleep;
    r->pos = at + n;
    return 1;
  }
  if (tag <= REC_TIME_ANY) { /* the next think, or any think, at a time of the table */
    int64_t dthink = 1;
    if (tag == REC_TIME_ANY) {
      if (!varint_at(r, &at, end, &w) || !varint_at(r, &at, end, &v)) return corrupt(r, r->pos, "a time record is cut");
      dthink = bti_unzigzag(w);
    } else {
      v = tag - REC_TIME;
    }
    if (v >= r->ntimes) return corrupt(r, r->pos, "a time record names no time of its frame's table");
    a->think += (uint64_t)dthink;
    a->time = bti_double(r->times[v]);
    r->pos = at;
    return 0;
  }
  switch (tag) {
    case REC_EVENT: {
      if (!varint_at(r, &at, end, &v)) return corrupt(r, r->pos, "an event record is cut");
      int64_t node = (int64_t)a->node + bti_unzigzag(v);
      if (!node_ok(a, node)) return corrupt(r, r->pos, "an event record names no node of its agent's shape");
      a->node = (int32_t)node;
      record_of(r, a, BT_REC_EVENT, out, block);
      out->entry.node = (int)node;
      break;
    }
    case REC_ERROR:
    case REC_HOST: {
      if (!varint_at(r, &at, end, &v) || !varint_at(r, &at, end, &w) || w > end - at)
        return corrupt(r, r->pos, "an error or host record is cut");
      int64_t node = bti_unzigzag(v);
      if (tag == REC_ERROR ? node != -1 && !node_ok(a, node) : node < INT32_MIN || node > INT32_MAX)
        return corrupt(r, r->pos, tag == REC_ERROR ? "an error record names no node of its agent's shape"
                                                   : "a host record's code is out of range");
      record_of(r, a, tag == REC_ERROR ? BT_REC_ERROR : BT_REC_HOST, out, block);
      out->entry.node = (int)node;
      out->entry.text = r->in.data + at;
      out->entry.size = (size_t)w;
      if (tag == REC_ERROR && error_text(r, buf(r) + at, (size_t)w, &out->entry.text) != BT_OK) return r->err;
      at += (size_t)w;
      break;
    }
    case REC_RELOAD:
      if (end - at < 16) return corrupt(r, r->pos, "a reload record is cut");
      record_of(r, a, BT_REC_RELOAD, out, block);
      out->entry.def_from = bti_get_u64(buf(r) + at);
      out->entry.def_to = bti_get_u64(buf(r) + at + 8);
      at += 16;
      break;
    case REC_SHAPE: {
      if (end - at < 8) return corrupt(r, r->pos, "an attach record is cut");
      int i = find_shape(r, bti_get_u64(buf(r) + at));
      if (i < 0) return corrupt(r, r->pos, "an attach record names a shape not declared before");
      a->shape = r->shapes[i];
      a->node = 0;
      at += 8;
      if (!varint_at(r, &at, end, &v) || v > end - at) return corrupt(r, r->pos, "an attach record is cut");
      int64_t node = 0;
      for (uint64_t k = 0; k < v; k++) {
        if (!varint_at(r, &at, end, &w) || at >= end) return corrupt(r, r->pos, "an attach record is cut");
        node += bti_unzigzag(w);
        unsigned st = buf(r)[at++];
        if (!node_ok(a, node) || st > 15) return corrupt(r, r->pos, "an attach record's statuses are bad");
        entry e = {(int)node, (int)(st & 3), (int)(st >> 2), 0, 0, 0};
        if (put_entry(r, &e) != BT_OK) return r->err;
      }
      r->nvalues = 0;
      if (r->minor >= 1 && read_values(r, a, &at, end) != BT_OK) return r->err;
      record_of(r, a, BT_LOG_ATTACH, out, block);
      out->entry.size = r->nentries;
      break;
    }
    case REC_KEY:
    case REC_KEY_WOKE:
      if (r->minor < 1) return corrupt(r, r->pos, "a key record in a log of format version 1.0");
      if (read_key(r, a, tag, &at, end, out, block) != BT_OK) return r->err;
      break;
    case REC_SAVED: record_of(r, a, BT_LOG_SAVED, out, block); break;
    case REC_STOP: record_of(r, a, BT_LOG_STOP, out, block); break;
    case REC_DESCRIBE: {
      if (!varint_at(r, &at, end, &v) || v > end - at) return corrupt(r, r->pos, "a describe record is cut");
      int64_t node = 0;
      for (uint64_t k = 0; k < v; k++) {
        if (!varint_at(r, &at, end, &w) || at >= end) return corrupt(r, r->pos, "a describe record is cut");
        node += bti_unzigzag(w);
        int form = buf(r)[at++];
        size_t n = form == SLEEP_FLOAT ? 4 : form == SLEEP_DOUBLE ? 8 : 0;
        if (!node_ok(a, node) || form > SLEEP_DOUBLE || end - at < n)
          return corrupt(r, r->pos, "a describe record's entries are bad");
        entry e = {(int)node, form != SLEEP_NONE, 0, 0, 0, 0};
        if (form == SLEEP_FLOAT) {
          uint32_t u = (uint32_t)buf(r)[at] | (uint32_t)buf(r)[at + 1] << 8 | (uint32_t)buf(r)[at + 2] << 16 |
                       (uint32_t)buf(r)[at + 3] << 24;
          float f;
          memcpy(&f, &u, sizeof f);
          e.sleep = f;
        } else if (form == SLEEP_DOUBLE) {
          e.sleep = bti_double(bti_get_u64(buf(r) + at));
        }
        at += n;
        if (!varint_at(r, &at, end, &w) || w > end - at) return corrupt(r, r->pos, "a describe record is cut");
        e.off = at;
        e.len = (size_t)w;
        at += (size_t)w;
        if (put_entry(r, &e) != BT_OK) return r->err;
      }
      record_of(r, a, BT_LOG_DESCRIBE, out, block);
      out->entry.size = r->nentries;
      break;
    }
    case REC_LOST:
      if (!varint_at(r, &at, end, &v)) return corrupt(r, r->pos, "a lost record is cut");
      record_of(r, a, BT_LOG_LOST, out, block);
      out->entry.size = (size_t)v;
      break;
    default: return corrupt(r, r->pos, "an unknown record code 0x%02x", tag);
  }
  r->pos = at;
  return 1;
}

/* The next block from pos: 1 when a whole one is there (its CRC checked), with its type and payload
 * [*start, *end); 0 when the bytes end before it does; or an error. */
static int next_block(bt_log_reader *r, int *type, size_t *start, size_t *end) {
  int rc = have(r, 1);
  if (rc <= 0) return rc;
  rc = have(r, 11);
  if (rc < 0) return rc;
  size_t at = r->pos + 1;
  uint64_t size;
  if (!varint_at(r, &at, r->in.len, &size)) {
    if (r->in.len - r->pos >= 11) return corrupt(r, r->pos, "a block's size is bad");
    return 0;
  }
  if (size > LOG_MAX_BLOCK) return corrupt(r, r->pos, "a block of %llu bytes (at most %u)", (unsigned long long)size, LOG_MAX_BLOCK);
  size_t head = at - r->pos, total = head + (size_t)size + 4;
  rc = have(r, total);
  if (rc <= 0) return rc;
  const unsigned char *b = buf(r) + r->pos; /* (have may have moved the buffer) */
  uint32_t crc = bti_crc32(0, b, head + (size_t)size), stored = (uint32_t)b[total - 4] |
                 (uint32_t)b[total - 3] << 8 | (uint32_t)b[total - 2] << 16 | (uint32_t)b[total - 1] << 24;
  if (crc != stored) return corrupt(r, r->pos, "a block's checksum does not match its bytes");
  *type = b[0];
  *start = r->pos + head;
  *end = r->pos + head + (size_t)size;
  return 1;
}

int bt_log_read(bt_log_reader *r, bt_log_record *out) {
  if (!r || !out) return BT_EINVAL;
  if (r->err) return r->err;
  r->last_type = 0;
  for (;;) {
    if (r->in_frame) {
      if (r->pos < r->chunk_end) { /* (while a frame is read, done is its first byte) */
        int rc = read_record(r, out, r->done);
        if (rc != 0) return rc;
        continue;
      }
      if (r->pos < r->frame_end) { /* the next agent's records */
        size_t at = r->pos;
        uint64_t d, n;
        if (!varint_at(r, &at, r->frame_end, &d) || !varint_at(r, &at, r->frame_end, &n) || n > r->frame_end - at)
          return corrupt(r, r->pos, "a frame's agent records are cut");
        int64_t index = r->prev_index + bti_unzigzag(d);
        if (index < 0 || index >= r->nagents) return corrupt(r, r->pos, "a frame names an agent not declared before");
        r->chunk_agent = r->prev_index = (int)index;
        r->pos = at;
        r->chunk_end = at + (size_t)n;
        continue;
      }
      r->in_frame = 0;
      r->pos = r->done = r->block_end;
      continue;
    }
    if (r->flags < 0) {
      int rc = read_header(r);
      if (rc <= 0) {
        if (rc == 0) r->where = BT_LOG_CUT;
        return rc;
      }
    }
    int type = 0;
    size_t start = 0, end = 0;
    int rc = next_block(r, &type, &start, &end);
    if (rc < 0) return rc;
    if (rc == 0) {
      r->where = r->in.len == r->pos ? (r->ended ? BT_LOG_ENDED : BT_LOG_WHOLE) : BT_LOG_CUT;
      return 0;
    }
    if (r->ended) return corrupt(r, r->pos, "bytes after the log's end");
    r->where = BT_LOG_MORE;
    rc = BT_OK;
    size_t block = r->pos;
    r->block_end = end + 4;
    switch (type) {
      case BLOCK_SHAPE: rc = read_shape(r, start, end); break;
      case BLOCK_AGENT: rc = read_agent(r, start, end); break;
      case BLOCK_FRAME:
        r->done = block;
        rc = read_frame(r, start, end);
        if (rc == BT_OK) continue;
        break;
      case BLOCK_WORLD: {
        uint64_t code, size;
        size_t at = start + 8;
        if (end - start < 8 || !varint_at(r, &at, end, &code) || !varint_at(r, &at, end, &size) || size != end - at ||
            bti_unzigzag(code) < INT32_MIN || bti_unzigzag(code) > INT32_MAX)
          return corrupt(r, block, "a world record is bad");
        memset(out, 0, sizeof *out);
        out->entry.type = BT_LOG_WORLD;
        out->entry.node = (int)bti_unzigzag(code);
        out->entry.time = bti_double(bti_get_u64(buf(r) + start));
        out->entry.text = r->in.data + at;
        out->entry.size = (size_t)size;
        out->label = "";
        out->agent_index = -1;
        out->offset = r->base + block;
        r->last_type = BT_LOG_WORLD;
        r->pos = r->done = r->block_end;
        return 1;
      }
      case BLOCK_END: {
        uint64_t n;
        size_t at = start;
        if (!varint_at(r, &at, end, &n) || at != end) return corrupt(r, block, "the log's end is bad");
        r->ended = 1;
        break;
      }
      default: return corrupt(r, block, "an unknown block type %d", type);
    }
    if (rc != BT_OK) return rc;
    r->pos = r->done = r->block_end;
  }
}

static bt_log_reader *reader_new(void) {
  bt_log_reader *r = calloc(1, sizeof *r);
  if (r) r->flags = -1;
  return r;
}

int bt_log_reader_create(bt_log_reader **out) {
  if (!out) return BT_EINVAL;
  return (*out = reader_new()) ? BT_OK : BT_ENOMEM;
}

int bt_log_reader_create_file(bt_log_reader **out, const char *path, char *err, size_t errsize) {
  if (err && errsize) err[0] = 0;
  if (!out) return BT_EINVAL;
  *out = NULL;
  if (!path) return BT_EINVAL;
  bt_log_reader *r = reader_new();
  if (!r) {
    if (err && errsize) snprintf(err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  r->file = fopen(path, "rb");
  if (!r->file) {
    if (err && errsize) snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
    free(r);
    return BT_EIO;
  }
  int rc = read_header(r);
  if (rc < 0) {
    if (err && errsize) snprintf(err, errsize, "%s: %s", path, r->errmsg);
    bt_log_reader_free(r);
    return rc;
  }
  *out = r;
  return BT_OK;
}

int bt_log_reader_feed(bt_log_reader *r, const void *data, size_t size) {
  if (!r || r->file || (!data && size)) return BT_EINVAL;
  if (!room(r, size)) return BT_ENOMEM;
  if (size) memcpy(buf(r) + r->in.len, data, size);
  r->in.len += size;
  return BT_OK;
}

void bt_log_reader_free(bt_log_reader *r) {
  if (!r) return;
  if (r->file) fclose(r->file);
  for (int i = 0; i < r->nagents; i++) free(r->agents[i].label);
  for (int i = 0; i < r->nshapes; i++) shape_free(r->shapes[i]);
  free(r->agents);
  free(r->shapes);
  free(r->times);
  free(r->entries);
  free(r->values);
  bt_buf_free(&r->in);
  bt_buf_free(&r->text);
  free(r);
}

int bt_log_reader_where(const bt_log_reader *r, unsigned long long *offset) {
  if (!r) return BT_LOG_FAILED;
  if (offset) *offset = r->base + r->done;
  return r->where;
}

const char *bt_log_reader_errmsg(const bt_log_reader *r) { return r ? r->errmsg : ""; }
int bt_log_reader_flags(const bt_log_reader *r) { return r ? r->flags : -1; }

const bt_log_shape *bt_log_reader_shape(const bt_log_reader *r, unsigned long long hash) {
  int i = r ? find_shape(r, hash) : -1;
  return i < 0 ? NULL : r->shapes[i];
}

int bt_log_reader_describe(const bt_log_reader *r, size_t i, int *node, int *has_sleep, double *sleep,
                           const char **text, size_t *len) {
  if (!r || r->last_type != BT_LOG_DESCRIBE || i >= r->nentries) return BT_EINVAL;
  const entry *e = &r->entries[i];
  if (node) *node = e->node;
  if (has_sleep) *has_sleep = e->a;
  if (sleep) *sleep = e->sleep;
  if (text) *text = r->in.data + e->off;
  if (len) *len = e->len;
  return BT_OK;
}

int bt_log_reader_value(const bt_log_reader *r, size_t i, int *key, bt_value *value) {
  if (!r || r->last_type != BT_LOG_ATTACH || i >= r->nvalues) return BT_EINVAL;
  const struct kv *e = &r->values[i];
  if (key) *key = e->key;
  if (value) {
    *value = e->v;
    if (e->v.type == BT_KEY_STRING) value->as.string = r->text.data + e->off;
  }
  return BT_OK;
}

int bt_log_reader_state(const bt_log_reader *r, size_t i, int *node, int *status, int *last) {
  if (!r || r->last_type != BT_LOG_ATTACH || i >= r->nentries) return BT_EINVAL;
  const entry *e = &r->entries[i];
  if (node) *node = e->node;
  if (status) *status = e->a;
  if (last) *last = e->b;
  return BT_OK;
}
