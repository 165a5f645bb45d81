/* SPDX-License-Identifier: MIT */
/*
 * keys.c: the blackboard of a definition: its keys, its nodes' ports and WatchNodes'
 * conditions, resolved and checked when it is built (bt_def_create), and what it says of them.
 * (board.c holds the values at run time.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const type_names[BT_KEY_TYPE_COUNT] = {"nil",    "number", "integer", "boolean",
                                                          "string", "entity", "value"};

const char *bt_key_type_name(int type) {
  return type >= 0 && type < BT_KEY_TYPE_COUNT ? type_names[type] : NULL;
}

static const char *const cmp_names[BT_CMP_COUNT] = {"is true", "==", "~=", "<", "<=",
                                                    ">",       ">=", "is set", "is not set"};

const char *bt_cmp_name(int cmp) { return cmp >= 0 && cmp < BT_CMP_COUNT ? cmp_names[cmp] : NULL; }

/* ---- building: keys, ports and conditions ---- */

static int numeric(int type) { return type == BT_KEY_NUMBER || type == BT_KEY_INTEGER; }

/* "an integer", "a number": the type's name with its article, for a message. */
static const char *article(int type) {
  const char *t = bt_key_type_name(type);
  return t && strchr("aeiou", t[0]) ? "an" : "a";
}

/* The node's path from the root, names joined by '/', into buf. */
static void node_path(const bt_def *d, int n, char *buf, size_t size) {
  int chain[BT_MAX_DEPTH + 1], len = 0;
  for (int i = n; i >= 0 && len <= BT_MAX_DEPTH; i = d->nodes[i].up) chain[len++] = i;
  size_t at = 0;
  buf[0] = '\0';
  while (len-- > 0 && at + 1 < size) {
    int w = snprintf(buf + at, size - at, "%s%s", at ? "/" : "", d->names + d->nodes[chain[len]].name);
    if (w < 0) break;
    at += (size_t)w;
  }
}

typedef struct checker {
  bt_def *d;
  bt_graph *g;
  const bti_graph_key *gkeys;
  int ngkeys;
} checker;

/* Fails the build with a message that names node n: "WatchNode 'Hungry' (Root/Hungry,
 * brains/wolf.lua:12) <what>". */
static int node_error(checker *c, int n, const char *what) {
  char path[384];
  node_path(c->d, n, path, sizeof path);
  const bt_node *nd = &c->d->nodes[n];
  const bt_spec *s = bti_graph_spec(c->g, c->d->states[nd->state].graph);
  char msg[768];
  snprintf(msg, sizeof msg, "%s '%s' (%s%s%s) %s", bt_kind_name(nd->kind), c->d->names + nd->name, path,
           s->where ? ", " : "", s->where ? s->where : "", what);
  return bti_graph_fail(c->g, BT_EINVAL, msg);
}

static int find_key(const checker *c, const char *name) {
  for (int k = 0; k < c->ngkeys; k++)
    if (strcmp(c->gkeys[k].name, name) == 0) return k;
  return -1;
}

static const bt_spec *spec_of(const checker *c, int n) {
  return bti_graph_spec(c->g, c->d->states[c->d->nodes[n].state].graph);
}

/* The ports node n has: its spec's, and a WatchNode's read of the key of its condition. */
static int watches_key(const bt_spec *s) { return s->kind == BT_WATCH && !s->fn; }
static int port_count(const bt_spec *s) { return s->nports + watches_key(s); }

/* Whether the comparison can be made of a key of type t with value v. */
static const char *bad_condition(int t, int cmp, const bt_value *v) {
  if (cmp < 0 || cmp >= BT_CMP_COUNT) return "has a bad comparison";
  if (cmp == BT_CMP_TRUE || cmp == BT_CMP_SET || cmp == BT_CMP_UNSET) return NULL;
  if (v->type <= BT_KEY_NONE || v->type >= BT_KEY_TYPE_COUNT) return "compares its key with no value";
  if (t == BT_KEY_VALUE || v->type == BT_KEY_VALUE) return "compares a value that only 'is set' and 'is true' can test";
  if (!(t == v->type || (numeric(t) && numeric(v->type)))) return "compares its key with a value of another type";
  if (cmp != BT_CMP_EQ && cmp != BT_CMP_NE && !numeric(t) && t != BT_KEY_STRING)
    return "orders values that have no order (only numbers, integers and strings do)";
  return NULL;
}

static int check_watch(checker *c, int n, const bt_spec *s) {
  char what[512];
  if ((s->flags & BT_SPEC_ABORT_SELF) && c->d->nodes[n].nchildren == 0)
    return node_error(c, n, "aborts itself (BT_SPEC_ABORT_SELF), but it has no child to abort");
  if (s->fn) return BT_OK;
  if (!s->key) return node_error(c, n, "has neither a key nor a function for its condition");
  int k = find_key(c, s->key);
  if (k < 0) return BT_OK; /* its port says so */
  const char *bad = bad_condition(c->gkeys[k].type, s->cmp, &s->value);
  if (!bad) return BT_OK;
  snprintf(what, sizeof what, "%s (key '%s' is %s %s)", bad, s->key,
           article(c->gkeys[k].type), bt_key_type_name(c->gkeys[k].type));
  return node_error(c, n, what);
}

/* Resolves port p of node n into a key id, checking that the key is declared and of its type. */
static int resolve_port(checker *c, int n, const bt_port *p) {
  char what[512];
  const char *verb = p->how & BT_PORT_READ ? "reads" : "writes";
  int k = find_key(c, p->key);
  if (k < 0) {
    snprintf(what, sizeof what, "%s key '%s', which is not declared", verb, p->key);
    return node_error(c, n, what);
  }
  if (!(p->how & (BT_PORT_READ | BT_PORT_WRITE)) || (p->how & ~(unsigned)(BT_PORT_READ | BT_PORT_WRITE))) {
    snprintf(what, sizeof what, "has a port of key '%s' that neither reads nor writes it", p->key);
    return node_error(c, n, what);
  }
  if (p->type != BT_KEY_NONE && p->type != c->gkeys[k].type) {
    const char *t = bt_key_type_name(p->type);
    snprintf(what, sizeof what, "%s key '%s' as %s %s, but it is declared %s %s", verb, p->key,
             p->type == BT_KEY_INTEGER ? "an" : "a", t ? t : "?",
             article(c->gkeys[k].type), bt_key_type_name(c->gkeys[k].type));
    return node_error(c, n, what);
  }
  return k;
}

static size_t text_len(const char *s) { return s ? strlen(s) + 1 : 0; }

static const char *put(char **at, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  memcpy(*at, s, n);
  const char *p = *at;
  *at += n;
  return p;
}

static int out_of_memory(checker *c) { return bti_graph_fail(c->g, BT_ENOMEM, "bt_def_create: out of memory"); }

/* The definition's keys, and their names and the nodes' wheres and strings in board_text. */
static int copy_texts(checker *c, uint32_t nports) {
  bt_def *d = c->d;
  size_t size = 0;
  int wheres = 0;
  for (int k = 0; k < c->ngkeys; k++) size += text_len(c->gkeys[k].name);
  for (uint32_t n = 0; n < d->nnodes; n++) {
    const bt_spec *s = spec_of(c, (int)n);
    size += text_len(s->where);
    if (s->where) wheres = 1;
    if (s->kind == BT_WATCH && s->value.type == BT_KEY_STRING) size += text_len(s->value.as.string);
  }
  d->nkeys = (uint32_t)c->ngkeys;
  d->keys = calloc(d->nkeys ? d->nkeys : 1, sizeof *d->keys);
  d->board_text = malloc(size ? size : 1);
  if (!d->keys || !d->board_text) return out_of_memory(c);
  if (wheres && !(d->wheres = calloc(d->nnodes, sizeof *d->wheres))) return out_of_memory(c);
  if (nports) {
    d->ports = calloc(nports, sizeof *d->ports);
    d->port_keys = calloc(nports, sizeof *d->port_keys);
    d->port_first = calloc(d->nnodes + 1, sizeof *d->port_first);
    if (!d->ports || !d->port_keys || !d->port_first) return out_of_memory(c);
  }
  char *at = d->board_text;
  for (int k = 0; k < c->ngkeys; k++) {
    d->keys[k].name = put(&at, c->gkeys[k].name);
    d->keys[k].type = (uint8_t)c->gkeys[k].type;
    d->keys[k].flags = (uint8_t)c->gkeys[k].flags;
  }
  for (uint32_t n = 0; n < d->nnodes; n++) {
    const bt_spec *s = spec_of(c, (int)n);
    if (d->wheres) d->wheres[n] = put(&at, s->where);
    if (s->kind == BT_WATCH) d->watches[n].key = -1; /* a function's condition, or the key's: below */
    if (s->kind == BT_WATCH && !s->fn) {
      bti_watch *w = &d->watches[n];
      w->cmp = s->cmp;
      w->value = s->value;
      if (s->value.type == BT_KEY_STRING) w->value.as.string = put(&at, s->value.as.string);
    }
  }
  return BT_OK;
}

/* Per key, the states whose nodes read it (each state once). */
static int collect_readers(checker *c) {
  bt_def *d = c->d;
  uint32_t total = 0;
  for (uint32_t s = 0; s < d->nstates; s++) {
    uint32_t n = d->states[s].node;
    for (uint32_t i = d->port_first[n]; i < d->port_first[n + 1]; i++)
      if (d->ports[i].how & BT_PORT_READ) d->keys[d->port_keys[i]].nreaders++;
  }
  for (uint32_t k = 0; k < d->nkeys; k++) {
    d->keys[k].readers = total;
    total += d->keys[k].nreaders;
    d->keys[k].nreaders = 0;
  }
  d->readers = malloc((total ? total : 1) * sizeof *d->readers);
  if (!d->readers) return out_of_memory(c);
  for (uint32_t s = 0; s < d->nstates; s++) {
    uint32_t n = d->states[s].node;
    for (uint32_t i = d->port_first[n]; i < d->port_first[n + 1]; i++) {
      if (!(d->ports[i].how & BT_PORT_READ)) continue;
      bti_key *k = &d->keys[d->port_keys[i]];
      uint32_t *r = d->readers + k->readers;
      uint32_t j = 0;
      while (j < k->nreaders && r[j] != s) j++;
      if (j == k->nreaders) r[k->nreaders++] = s;
    }
  }
  return BT_OK;
}

/* A key read must be written by some node of the tree, or provided by the host. */
static int check_writers(checker *c) {
  bt_def *d = c->d;
  unsigned char *written = calloc(d->nkeys ? d->nkeys : 1, 1);
  if (!written) return out_of_memory(c);
  for (uint32_t i = 0; d->port_first && i < d->port_first[d->nnodes]; i++)
    if (d->ports[i].how & BT_PORT_WRITE) written[d->port_keys[i]] = 1;
  int rc = BT_OK;
  for (uint32_t n = 0; rc == BT_OK && d->port_first && n < d->nnodes; n++)
    for (uint32_t i = d->port_first[n]; rc == BT_OK && i < d->port_first[n + 1]; i++) {
      int k = d->port_keys[i];
      if (!(d->ports[i].how & BT_PORT_READ) || written[k] || (d->keys[k].flags & BT_KEY_HOST)) continue;
      char what[384];
      snprintf(what, sizeof what,
               "reads key '%s', which no node of the tree writes and the host does not provide "
               "(declare it the host's, BT_KEY_HOST, or give a node that writes it)",
               d->keys[k].name);
      rc = node_error(c, (int)n, what);
    }
  free(written);
  return rc;
}

int bti_board_build(bt_def *d, bt_graph *g) {
  checker c = {d, g, NULL, 0};
  c.gkeys = bti_graph_keys(g, &c.ngkeys);
  uint32_t nports = 0;
  int watches = 0;
  for (uint32_t n = 0; n < d->nnodes; n++) {
    const bt_spec *s = spec_of(&c, (int)n);
    if ((s->flags & (BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER)) && s->kind != BT_WATCH)
      return node_error(&c, (int)n, "has abort flags, which only a WatchNode takes");
    if (s->kind == BT_WATCH) {
      int rc = check_watch(&c, (int)n, s);
      if (rc) return rc;
      watches = 1;
    }
    nports += (uint32_t)port_count(s);
  }
  if (watches && !(d->watches = calloc(d->nnodes, sizeof *d->watches))) return out_of_memory(&c);
  int rc = copy_texts(&c, nports);
  if (rc) return rc;
  for (uint32_t n = 0; n < d->nnodes; n++) { /* every WatchNode, whether it has ports or not */
    const bt_spec *s = spec_of(&c, (int)n);
    if (s->kind == BT_WATCH) d->nodes[n].ud2 = &d->watches[n];
    if (s->flags & BT_SPEC_ABORT_SELF) d->nodes[n].flags |= NF_ABORT_SELF;
    if (s->flags & BT_SPEC_ABORT_LOWER) d->nodes[n].flags |= NF_ABORT_LOWER;
  }
  if (!nports) return BT_OK;
  uint32_t at = 0;
  for (uint32_t n = 0; n < d->nnodes; n++) {
    const bt_spec *s = spec_of(&c, (int)n);
    d->port_first[n] = at;
    for (int i = 0; i < port_count(s); i++) {
      bt_port p = i < s->nports ? s->ports[i] : (bt_port){s->key, BT_KEY_NONE, BT_PORT_READ};
      int k = resolve_port(&c, (int)n, &p);
      if (k < 0) return k;
      d->ports[at] = (bt_port){d->keys[k].name, p.type, p.how};
      d->port_keys[at++] = k;
      if (i == s->nports) d->watches[n].key = k;
    }
  }
  d->port_first[d->nnodes] = at;
  rc = check_writers(&c);
  if (rc == BT_OK) rc = collect_readers(&c);
  return rc;
}

void bti_board_free(bt_def *d) {
  free(d->keys);
  free(d->ports);
  free(d->port_keys);
  free(d->port_first);
  free(d->wheres);
  free(d->watches);
  free(d->readers);
  free(d->board_text);
}

void bti_board_spec(const bt_def *d, int n, bt_spec *out) {
  const bt_node *nd = &d->nodes[n];
  if (d->port_first) {
    uint32_t first = d->port_first[n], count = d->port_first[n + 1] - first;
    if (nd->kind == BT_WATCH && d->watches[n].key >= 0) count--; /* its condition's port */
    out->ports = count ? d->ports + first : NULL;
    out->nports = (int)count;
  }
  out->where = d->wheres ? d->wheres[n] : NULL;
  if (nd->kind != BT_WATCH) return;
  out->ud2 = NULL;
  if (nd->flags & NF_ABORT_SELF) out->flags |= BT_SPEC_ABORT_SELF;
  if (nd->flags & NF_ABORT_LOWER) out->flags |= BT_SPEC_ABORT_LOWER;
  const bti_watch *w = &d->watches[n];
  if (w->key < 0) return;
  out->key = d->keys[w->key].name;
  out->cmp = w->cmp;
  out->value = w->value;
}

/* ---- what a definition says of its keys ---- */

static int valid_key(const bt_def *d, int key) { return d && key >= 0 && (uint32_t)key < d->nkeys; }

int bt_def_key_count(const bt_def *d) { return d ? (int)d->nkeys : 0; }

int bt_def_key_find(const bt_def *d, const char *name) {
  for (uint32_t k = 0; d && name && k < d->nkeys; k++)
    if (strcmp(d->keys[k].name, name) == 0) return (int)k;
  return BT_EINVAL;
}

const char *bt_def_key_name(const bt_def *d, int key) { return valid_key(d, key) ? d->keys[key].name : NULL; }
int bt_def_key_type(const bt_def *d, int key) { return valid_key(d, key) ? d->keys[key].type : BT_EINVAL; }
int bt_def_key_flags(const bt_def *d, int key) { return valid_key(d, key) ? d->keys[key].flags : BT_EINVAL; }

static int valid_node(const bt_def *d, int n) { return d && n >= 0 && (uint32_t)n < d->nnodes; }

int bt_def_port_count(const bt_def *d, int n) {
  if (!valid_node(d, n)) return BT_EINVAL;
  return d->port_first ? (int)(d->port_first[n + 1] - d->port_first[n]) : 0;
}

int bt_def_port(const bt_def *d, int n, int i, int *key, unsigned *how) {
  int count = bt_def_port_count(d, n);
  if (count < 0 || i < 0 || i >= count) return BT_EINVAL;
  uint32_t at = d->port_first[n] + (uint32_t)i;
  if (key) *key = d->port_keys[at];
  if (how) *how = d->ports[at].how;
  return BT_OK;
}

const char *bt_def_where(const bt_def *d, int n) {
  return valid_node(d, n) && d->wheres ? d->wheres[n] : NULL;
}

