/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp */
/*
 * json.c: the viewer's JSON, written into bt's buffer (bt_buf, whose sticky error says memory ran
 * out: the answer is then refused whole, never sent cut): a writer of strings (escaping control
 * characters and bytes that are not UTF-8) and numbers, and a strict reader of the one shape of
 * message a stream accepts: {"subscribe": [ids]} or {"unsubscribe": [ids]}. And, below every
 * other file of the viewer so that none calls up for them: a view's error message, which they all
 * write, and the outbox, in which the live source leaves a frame's stream messages for the server.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btv_internal.h"

/* ---- errors ---- */

void btv_set_error(bt_view *v, char *err, size_t errsize, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (v) snprintf(v->errmsg, sizeof v->errmsg, "%s", msg);
  if (err && errsize) snprintf(err, errsize, "%s", msg);
}

/* ---- raw text ---- */

void btv_json_raw(bt_buf *b, const char *s) { bt_buf_append(b, s, strlen(s)); }

/* ---- the stream's messages of a frame ---- */

void btv_outbox_add(btv_outbox *o, int all, unsigned long long agent, const char *msg, size_t len) {
  if (o->count == o->cap) {
    int cap = o->cap ? o->cap * 2 : 64;
    btv_outbox_msg *p = realloc(o->msgs, (size_t)cap * sizeof *p);
    if (!p) {
      o->lost++;
      return;
    }
    o->msgs = p;
    o->cap = cap;
  }
  size_t at = o->bytes.len;
  bt_buf_append(&o->bytes, msg, len);
  if (o->bytes.err) { /* this one is lost; a smaller one may still fit */
    o->bytes.err = 0;
    o->bytes.len = at;
    o->lost++;
    return;
  }
  btv_outbox_msg *m = &o->msgs[o->count++];
  m->at = at;
  m->len = len;
  m->agent = agent;
  m->all = all != 0;
}

void btv_outbox_clear(btv_outbox *o) {
  o->count = 0;
  o->bytes.len = 0;
  o->lost = 0;
}

void btv_outbox_free(btv_outbox *o) {
  bt_buf_free(&o->bytes);
  free(o->msgs);
  o->msgs = NULL;
  o->count = o->cap = 0;
  o->lost = 0;
}

/* ---- writing ---- */

/* the length of the UTF-8 sequence at s (n bytes left), or 0 when it is not one (overlong forms,
 * surrogates and code points over U+10FFFF are not) */
static size_t utf8_length(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
  else return 0;
  if (n < len) return 0;
  unsigned cp = c & (0x3F >> (len - 1));
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void btv_json_string(bt_buf *b, const char *s, size_t n) {
  if (!s) {
    bt_buf_append(b, "null", 4);
    return;
  }
  const unsigned char *p = (const unsigned char *)s;
  bt_buf_append(b, "\"", 1);
  size_t i = 0;
  while (i < n) {
    size_t run = i; /* bytes that need no escape are copied in one go */
    while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') run++;
    if (run > i) {
      bt_buf_append(b, s + i, run - i);
      i = run;
      continue;
    }
    unsigned c = p[i];
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      bt_buf_append(b, esc, 2);
      i++;
    } else if (c == '\n') {
      bt_buf_append(b, "\\n", 2);
      i++;
    } else if (c == '\t') {
      bt_buf_append(b, "\\t", 2);
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      bt_buf_printf(b, "\\u%04x", c);
      i++;
    } else {
      size_t len = utf8_length(p + i, n - i);
      if (len == 0) { /* not UTF-8: the byte as the code point of its number */
        bt_buf_printf(b, "\\u%04x", c);
        i++;
      } else {
        bt_buf_append(b, s + i, len);
        i += len;
      }
    }
  }
  bt_buf_append(b, "\"", 1);
}

void btv_json_cstring(bt_buf *b, const char *s) { btv_json_string(b, s, s ? strlen(s) : 0); }

void btv_json_number(bt_buf *b, double x) {
  if (!isfinite(x)) {
    bt_buf_append(b, "null", 4);
    return;
  }
  if (x == floor(x) && fabs(x) < 1e15) {
    bt_buf_printf(b, "%.0f", x);
    return;
  }
  char tmp[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, x);
    if (strtod(tmp, NULL) == x) break;
  }
  btv_json_raw(b, tmp);
}

void btv_json_shape(bt_buf *b, unsigned long long shape) { bt_buf_printf(b, "\"%016llx\"", shape); }

static const char *type_name(int type) {
  switch (type) {
    case BT_REC_STATUS: return "status";
    case BT_REC_THINK: return "think";
    case BT_REC_EVENT: return "event";
    case BT_REC_ERROR: return "error";
    case BT_REC_RELOAD: return "reload";
    case BT_REC_HOST: return "host";
    case BT_REC_KEY: return "key";
    case BT_LOG_LOST: return "lost";
    default: return "unknown";
  }
}

void btv_json_value(bt_buf *b, const bt_value *v) {
  switch (v->type) {
    case BT_KEY_NUMBER: btv_json_number(b, v->as.number); break;
    case BT_KEY_INTEGER: bt_buf_printf(b, "%lld", v->as.integer); break;
    case BT_KEY_BOOLEAN: btv_json_raw(b, v->as.boolean ? "true" : "false"); break;
    case BT_KEY_STRING: btv_json_cstring(b, v->as.string); break;
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: bt_buf_printf(b, "%llu", v->as.entity); break;
    default: btv_json_raw(b, "null"); break;
  }
}

void btv_json_keys_before(bt_buf *b, const bt_value *now, int nkeys, const bti_ring *ring, size_t from) {
  bt_value *v = nkeys > 0 ? malloc((size_t)nkeys * sizeof *v) : NULL;
  if (nkeys > 0 && !v) {
    b->err = BT_ENOMEM;
    return;
  }
  if (nkeys > 0) memcpy(v, now, (size_t)nkeys * sizeof *v);
  int known = 1;
  for (size_t i = ring->count; known && i-- > from;) {
    bt_rec_entry e;
    bti_ring_get(ring, i, &e);
    if (e.type == BT_REC_KEY && e.node >= 0 && e.node < nkeys) v[e.node] = e.before; /* (the ring's text) */
    else if (e.type == BT_REC_RELOAD || e.type == BT_LOG_LOST) known = 0;
  }
  if (!known && nkeys > 0) {
    btv_json_raw(b, "null");
  } else {
    btv_json_raw(b, "[");
    for (int k = 0; k < nkeys; k++) {
      if (k) btv_json_raw(b, ",");
      btv_json_value(b, &v[k]);
    }
    btv_json_raw(b, "]");
  }
  free(v);
}

void btv_json_record(bt_buf *b, unsigned long long seq, const bt_rec_entry *e) {
  bt_buf_printf(b, "{\"seq\":%llu,\"type\":\"%s\",\"time\":", seq, type_name(e->type));
  btv_json_number(b, e->time);
  bt_buf_printf(b, ",\"think\":%llu", e->think);
  switch (e->type) {
    case BT_REC_STATUS:
      bt_buf_printf(b, ",\"node\":%d,\"from\":%d,\"to\":%d", e->node, e->from, e->to);
      break;
    case BT_REC_THINK:
      btv_json_raw(b, ",\"sleep\":");
      if (e->has_sleep) btv_json_number(b, e->sleep);
      else btv_json_raw(b, "null");
      bt_buf_printf(b, ",\"cause\":\"%s\"", bt_wake_name(e->cause));
      break;
    case BT_REC_EVENT:
      bt_buf_printf(b, ",\"node\":%d", e->node);
      break;
    case BT_REC_ERROR:
    case BT_REC_HOST:
      bt_buf_printf(b, e->type == BT_REC_ERROR ? ",\"node\":%d,\"text\":" : ",\"code\":%d,\"text\":", e->node);
      btv_json_string(b, e->text ? e->text : "", e->text ? e->size : 0);
      break;
    case BT_REC_RELOAD:
      btv_json_raw(b, ",\"from_shape\":");
      btv_json_shape(b, e->def_from);
      btv_json_raw(b, ",\"shape\":");
      btv_json_shape(b, e->def_to);
      break;
    case BT_REC_KEY:
      bt_buf_printf(b, ",\"key\":%d,\"before\":", e->node);
      btv_json_value(b, &e->before);
      btv_json_raw(b, ",\"after\":");
      btv_json_value(b, &e->after);
      btv_json_raw(b, e->from ? ",\"woke\":true" : ",\"woke\":false");
      break;
    case BT_LOG_LOST:
      bt_buf_printf(b, ",\"count\":%llu", (unsigned long long)e->size);
      break;
    default:
      break;
  }
  bt_buf_append(b, "}", 1);
}

int btv_json_stats(bt_buf *out, bt_stats *st, unsigned long long shape) {
  int count = bt_stats_shape_count(st);
  bt_stats_shape sh;
  int found = 0;
  for (int i = 0; i < count; i++) {
    if (bt_stats_shape_get(st, i, &sh) == BT_OK && sh.shape == shape) {
      found = 1;
      break;
    }
  }
  btv_json_raw(out, "{\"shape\":");
  btv_json_shape(out, shape);
  if (!found) {
    btv_json_raw(out, ",\"agents\":0,\"thinks\":0,\"writes\":0,\"nodes\":[]}");
    return BT_OK;
  }
  bt_buf_printf(out, ",\"agents\":%d,\"thinks\":%llu,\"writes\":%llu,\"nodes\":[", sh.agents, sh.thinks, sh.writes);
  for (int n = 0; n < sh.nodes; n++) {
    bt_stats_node row;
    if (bt_stats_node_get(st, shape, n, &row) != BT_OK) continue;
    bt_buf_printf(out,
                   "%s{\"node\":%d,\"visits\":%llu,\"successes\":%llu,\"failures\":%llu,\"aborts\":%llu,"
                   "\"runs\":%llu,\"thinks\":%llu,\"errors\":%llu,\"running\":%d,\"time\":",
                   n ? "," : "", n, row.visits, row.successes, row.failures, row.aborts, row.runs,
                   row.thinks, row.errors, row.running);
    btv_json_number(out, row.time);
    btv_json_raw(out, ",\"longest\":");
    btv_json_number(out, row.longest);
    bt_buf_append(out, "}", 1);
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

/* ---- reading {"subscribe": [1, 2]} ---- */

typedef struct reader {
  const char *p, *end;
} reader;

static void skip_space(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static int take(reader *r, char c) {
  skip_space(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return 1;
  }
  return 0;
}

int btv_json_read_ids(const char *s, size_t n, unsigned long long *ids, int max, int *count, char *err,
                      size_t errsize) {
  reader r = {s, s + n};
  int kind = 0;
  *count = 0;
  if (!take(&r, '{') || !take(&r, '"')) {
    snprintf(err, errsize, "expected {\"subscribe\": [ids]} or {\"unsubscribe\": [ids]}");
    return 0;
  }
  static const char sub[] = "subscribe\"", unsub[] = "unsubscribe\"";
  if ((size_t)(r.end - r.p) >= sizeof sub - 1 && memcmp(r.p, sub, sizeof sub - 1) == 0) {
    kind = 1;
    r.p += sizeof sub - 1;
  } else if ((size_t)(r.end - r.p) >= sizeof unsub - 1 && memcmp(r.p, unsub, sizeof unsub - 1) == 0) {
    kind = 2;
    r.p += sizeof unsub - 1;
  } else {
    snprintf(err, errsize, "unknown key: expected \"subscribe\" or \"unsubscribe\"");
    return 0;
  }
  if (!take(&r, ':') || !take(&r, '[')) {
    snprintf(err, errsize, "expected a list of agent ids after the key");
    return 0;
  }
  if (!take(&r, ']')) {
    for (;;) {
      skip_space(&r);
      const char *start = r.p;
      unsigned long long v = 0;
      while (r.p < r.end && *r.p >= '0' && *r.p <= '9') {
        unsigned d = (unsigned)(*r.p - '0');
        if (v > (~0ULL - d) / 10) {
          snprintf(err, errsize, "an agent id is too large");
          return 0;
        }
        v = v * 10 + d;
        r.p++;
      }
      if (r.p == start || (r.p - start > 1 && *start == '0')) {
        snprintf(err, errsize, "an agent id must be a whole number of 0 or more");
        return 0;
      }
      if (*count >= max) {
        snprintf(err, errsize, "too many agents: at most %d", max);
        return 0;
      }
      ids[(*count)++] = v;
      if (take(&r, ']')) break;
      if (!take(&r, ',')) {
        snprintf(err, errsize, "an agent id must be a whole number of 0 or more");
        return 0;
      }
    }
  }
  if (!take(&r, '}')) {
    snprintf(err, errsize, "expected } after the list (one key only)");
    return 0;
  }
  skip_space(&r);
  if (r.p != r.end) {
    snprintf(err, errsize, "unexpected bytes after the message");
    return 0;
  }
  return kind;
}
