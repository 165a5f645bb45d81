/* SPDX-License-Identifier: MIT */
/*
 * dot.c: Graphviz DOT pictures of a definition (bt_def_dot) and of an instance (bt_inst_dot).
 *
 * One DOT node per state, named "n<first pre-order index>", so that a node shared by several
 * parents is drawn once with an edge from each (the graph as it was written); edges leave the
 * first place of each parent, in child order (ordering=out keeps it). A state used at several
 * places has a double border and says so. The copy of a library tree under a subtree node is a
 * dashed cluster named after the tree. An instance adds statuses: the fill is the status now,
 * the border the last think's result, and the running path (running nodes under a running
 * root) and its edges are bold. Colours are documented in docs/debugging.md. A node with ports
 * says which keys it reads and writes, and a tree with keys has a box listing them; a tree
 * without keys is drawn as it was before trees had them.
 */
#include <stdlib.h>

#include "internal.h"

/* Fill colours of the statuses now, and border colours of the last results. */
static const char *const fill_colour[] = {"#ffffff", "#b7e4a8", "#f4a6a6", "#ffe08a"};
static const char *const border_colour[] = {"#808080", "#2e7d32", "#c62828", "#b8860b"};

/* The length of the valid UTF-8 character at p (not overlong, no surrogate, at most U+10FFFF),
 * or 0. */
static int utf8_len(const unsigned char *p) {
  if (p[0] < 0x80) return 1;
  int n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  if (!n || p[0] > 0xf4) return 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0;
  if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0;
  return n;
}

/* Appends s as the inside of a DOT quoted string that shows it as it is: quotes and
 * backslashes escaped, a newline as a line break, other control bytes and bytes that are no
 * UTF-8 (Graphviz reads UTF-8) as \xNN. */
static void put_escaped(bt_buf *out, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = utf8_len(p);
    if (*p == '"' || *p == '\\') bt_buf_printf(out, "\\%c", *p);
    else if (*p == '\n') bt_buf_append(out, "\\n", 2);
    else if (!n || *p < 0x20 || *p == 0x7f) bt_buf_printf(out, "\\\\x%02X", *p);
    else bt_buf_append(out, (const char *)p, (size_t)n);
    p += n ? n : 1;
  }
}

/* Appends the node's parameter, where its kind has one, as the kind table shows it: ", period 0.25";
 * and the policies of a kind that has them. */
static void put_param(bt_buf *out, const bt_node *d) {
  const bti_kind *k = &bti_kinds[d->kind];
  int fn = d->flags & NF_PARAM_FN, nil = d->flags & NF_NIL_PARAM;
  if (k->policies)
    bt_buf_printf(out, ", success: %s, failure: %s", d->flags & NF_SUCCESS_ONE ? "one" : "all",
                  d->flags & NF_FAILURE_ALL ? "all" : "one");
  if (!k->param_format) return;
  if (fn && k->param == BTI_TIME_FN) bt_buf_printf(out, ", time from a function");
  else if (nil && (k->param == BTI_FOREVER || k->param == BTI_TIMES)) bt_buf_printf(out, ", forever");
  else {
    bt_buf_append(out, ", ", 2);
    bt_buf_printf(out, k->param_format, nil && k->param == BTI_DEFAULT ? k->nil_param : d->param);
  }
}

/* Appends the keys node n reads and writes, where it has ports: "\nreads hunger, night; writes
 * prey" (a key read and written is in both). */
static void put_ports(bt_buf *out, const bt_def *def, uint32_t n) {
  int count = bt_def_port_count(def, (int)n);
  if (count <= 0) return;
  static const unsigned hows[2] = {BT_PORT_READ, BT_PORT_WRITE};
  static const char *const verbs[2] = {"reads", "writes"};
  int any = 0;
  for (int h = 0; h < 2; h++) {
    int first = 1;
    for (int i = 0; i < count; i++) {
      int key;
      unsigned how;
      if (bt_def_port(def, (int)n, i, &key, &how) != BT_OK || !(how & hows[h])) continue;
      bt_buf_printf(out, "%s", first ? (any ? "; " : "\\n") : ", ");
      if (first) bt_buf_printf(out, "%s ", verbs[h]);
      put_escaped(out, def->keys[key].name);
      first = 0;
      any = 1;
    }
  }
}

/* The blackboard's box, for a tree with keys: each key's name, type and whether the host
 * provides it, a line each. */
static void put_keys(bt_buf *out, const bt_def *def) {
  if (!def->nkeys) return;
  bt_buf_printf(out, "  keys [shape=note, style=filled, fillcolor=\"#f4f4f4\", label=\"blackboard\\l");
  for (uint32_t k = 0; k < def->nkeys; k++) {
    put_escaped(out, def->keys[k].name);
    bt_buf_printf(out, ": %s%s\\l", bt_key_type_name(def->keys[k].type),
                  def->keys[k].flags & BT_KEY_HOST ? ", the host's" : "");
  }
  bt_buf_printf(out, "\"];\n");
}

/* The picture; in is NULL for a definition's. places counts the places of each state, path
 * marks the nodes on the running path (both zeroed, of the definition's sizes). */
static void put_dot(bt_buf *out, const bt_def *def, const bt_inst *in, uint32_t *places,
                    unsigned char *path) {
  for (uint32_t n = 0; n < def->nnodes; n++) {
    places[def->nodes[n].state]++;
    if (in && status_of(in, (int)n) == BT_RUNNING && (n == 0 || path[def->nodes[n].up])) path[n] = 1;
  }
  bt_buf_printf(out, "digraph bt {\n  rankdir=TB;\n  ordering=out;\n  fontname=\"Helvetica\";\n"
                     "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
                     "fontname=\"Helvetica\"];\n  edge [arrowsize=0.6];\n");
  /* clusters of subtree copies: the ends of the ones open, innermost last */
  uint32_t open[64];
  int nopen = 0;
  for (uint32_t n = 0; n < def->nnodes; n++) {
    const bt_node *d = &def->nodes[n];
    while (nopen && open[nopen - 1] <= n) {
      nopen--;
      bt_buf_printf(out, "%*s}\n", 2 + 2 * nopen, "");
    }
    int ind = 2 + 2 * nopen;
    if (d->up >= 0 && bti_kinds[def->nodes[d->up].kind].children == BTI_NAMED &&
        def->states[d->state].node == n &&
        nopen < (int)(sizeof open / sizeof open[0])) { /* deeper copies are drawn without */
      const char *from = bt_def_origin(def, (int)d->state, NULL);
      bt_buf_printf(out, "%*ssubgraph cluster_n%u {\n%*slabel=\"subtree ", ind, "", n, ind + 2, "");
      put_escaped(out, from ? from : def->names + def->nodes[d->up].name);
      bt_buf_printf(out, "\";\n%*sstyle=dashed;\n%*scolor=\"#606060\";\n", ind + 2, "", ind + 2, "");
      open[nopen++] = d->end;
      ind += 2;
    }
    if (def->states[d->state].node != n) continue; /* drawn at its first place */
    bt_buf_printf(out, "%*sn%u [label=\"", ind, "", n);
    put_escaped(out, def->names + d->name);
    bt_buf_printf(out, "\\n%s", bt_kind_name(d->kind));
    put_param(out, d);
    put_ports(out, def, n);
    if (places[d->state] > 1) bt_buf_printf(out, "\\nshared: %u places", places[d->state]);
    if (in) {
      bt_status st = status_of(in, (int)n), last = bt_node_last(in, (int)n);
      if (st > BT_RUNNING) st = BT_READY;
      if (last > BT_RUNNING) last = BT_READY;
      bt_buf_printf(out, "\\n%s <%s>\", fillcolor=\"%s\", color=\"%s\"", bt_status_name(st),
                    bt_status_name(last), fill_colour[st], border_colour[last]);
      if (path[n]) bt_buf_printf(out, ", style=\"rounded,filled,bold\", penwidth=2");
    } else {
      bt_buf_printf(out, "\"");
    }
    if (places[d->state] > 1) bt_buf_printf(out, ", peripheries=2");
    bt_buf_printf(out, "];\n");
  }
  while (nopen) {
    nopen--;
    bt_buf_printf(out, "%*s}\n", 2 + 2 * nopen, "");
  }
  put_keys(out, def);
  /* edges: from the first place of each state to its children's first places, in order */
  for (uint32_t n = 0; n < def->nnodes; n++) {
    const bt_node *d = &def->nodes[n];
    if (def->states[d->state].node != n) continue;
    for (uint32_t i = 0; i < d->nchildren; i++) {
      uint32_t c = def->kids[d->children + i];
      bt_buf_printf(out, "  n%u -> n%u", n, def->states[def->nodes[c].state].node);
      if (in && path[n] && path[c]) bt_buf_printf(out, " [style=bold, penwidth=2]");
      bt_buf_printf(out, ";\n");
    }
  }
  bt_buf_printf(out, "}\n");
}

static int dot(const bt_def *def, const bt_inst *in, bt_buf *out) {
  if (!def || !out) return BT_EINVAL;
  if (out->err) return out->err;
  uint32_t *places = calloc(def->nstates, sizeof *places);
  unsigned char *path = calloc(def->nnodes, 1);
  if (!places || !path) {
    free(places);
    free(path);
    return out->err = BT_ENOMEM;
  }
  size_t len = out->len;
  put_dot(out, def, in, places, path);
  free(places);
  free(path);
  if (out->err && out->data) { /* nothing half-written */
    out->len = len;
    out->data[len] = '\0';
  }
  return out->err;
}

int bt_def_dot(const bt_def *def, bt_buf *out) { return dot(def, NULL, out); }

int bt_inst_dot(const bt_inst *inst, bt_buf *out) {
  if (!inst) return BT_EINVAL;
  return dot(inst->def, inst, out);
}
