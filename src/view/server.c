/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp */
/*
 * server.c: the view's server on civetweb (docs/viewer.md "Protocol"). civetweb parses HTTP and
 * WebSocket frames and runs its worker threads; this file checks every request before civetweb
 * handles it (begin_request: Host, Origin and token, the WebSocket upgrade included), routes
 * the JSON endpoints to the view's source through its table of functions (v->src:
 * btv_internal.h; rendered under the view's lock, sent after it is released), serves the page's
 * compiled-in files, and runs the streams.
 *
 * A stream (a client of /api/stream) has a bounded queue of messages that bt_view_frame fills
 * under the view's lock (from the view's outbox, where the live source left them), and a sender
 * thread of its own that empties it with mg_websocket_write: a client that does not read blocks
 * only its own sender; its queue fills, what does not fit is dropped and counted, and the
 * client is told ("dropped") when there is room again.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <civetweb.h>

#include "btv_internal.h"

#define QUEUE_MESSAGES 512            /* per stream */
#define QUEUE_BYTES (8u * 1024 * 1024) /* per stream */
#define MAX_SUBSCRIBED 64

struct btv_client {
  bt_view *v;
  struct mg_connection *conn;
  btv_client *next;
  /* the queue (v->lock) */
  char **msgs;
  size_t *lens;
  int head, count;
  size_t bytes;
  unsigned long long dropped_messages, dropped_records, dropped_agent;
  int dropped_agents; /* 0, 1 (dropped_agent) or 2 (several) */
  unsigned long long subs[MAX_SUBSCRIBED];
  int nsubs;
  int closing, dead;
  btp_cond cond;
  btp_thread sender;
  int started;
};

/* ---- replies ---- */

/* Writes a reply's head, formatted here with C99's printf (civetweb's mg_printf formats with the
 * system's C library, which on Windows knows no %zu). */
static void send_head(struct mg_connection *conn, const char *fmt, ...) BT_PRINTF_CHECK(2, 3);
static void send_head(struct mg_connection *conn, const char *fmt, ...) {
  char head[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  if (n > 0) mg_write(conn, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
}

static void send_json(struct mg_connection *conn, int status, const char *body, size_t len) {
  const char *reason = status == 200 ? "OK" : status == 400 ? "Bad Request" : status == 403 ? "Forbidden"
                       : status == 404 ? "Not Found" : status == 503 ? "Service Unavailable" : "Error";
  send_head(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\n"
            "Content-Length: %zu\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
            "Connection: close\r\n\r\n",
            status, reason, len);
  mg_write(conn, body, len);
}

static void send_error(struct mg_connection *conn, int status, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  bt_buf b = {0};
  btv_json_raw(&b, "{\"error\":");
  btv_json_cstring(&b, msg);
  btv_json_raw(&b, "}");
  if (b.err) send_json(conn, status, "{\"error\":\"out of memory\"}", 25);
  else send_json(conn, status, b.data, b.len);
  bt_buf_free(&b);
}

/* ---- who may ask ---- */

static int host_allowed(const bt_view *v, int port, const char *host, int port_required) {
  if (!host) return 0;
  char want[300];
  static const char *const loopback[] = {"127.0.0.1", "localhost", "[::1]"};
  for (int i = 0; i < 3; i++) { /* with the port, or without (a client's default port) */
    snprintf(want, sizeof want, "%s:%d", loopback[i], port);
    if (strcasecmp(host, want) == 0 || (!port_required && strcasecmp(host, loopback[i]) == 0)) return 1;
  }
  if (strcmp(v->address, "0.0.0.0") == 0) return 1; /* any of this machine's: the token guards it */
  snprintf(want, sizeof want, "%s:%d", v->address, port);
  return strcasecmp(host, want) == 0;
}

static int origin_allowed(const bt_view *v, int port, const char *origin, const char *host) {
  if (!origin) return 1;
  if (strncasecmp(origin, "http://", 7) != 0) return 0;
  const char *h = origin + 7;
  if (strcmp(v->address, "0.0.0.0") == 0) return host && strcasecmp(h, host) == 0;
  return host_allowed(v, port, h, 1); /* an origin without a port is another server's (port 80) */
}

/* equal without telling by its time where it differs */
static int same_secret(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  unsigned diff = (unsigned)(alen ^ blen);
  for (size_t i = 0; i < alen && i < blen; i++) diff |= (unsigned char)a[i] ^ (unsigned char)b[i];
  return diff == 0;
}

static int token_given(const bt_view *v, const struct mg_connection *conn) {
  if (!v->token) return 1;
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (ri->query_string) {
    char got[256];
    int n = mg_get_var(ri->query_string, strlen(ri->query_string), "token", got, sizeof got);
    if (n >= 0 && same_secret(got, (size_t)n, v->token)) return 1;
  }
  const char *auth = mg_get_header(conn, "Authorization");
  if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
    const char *t = auth + 7;
    while (*t == ' ') t++;
    size_t n = strlen(t);
    while (n && t[n - 1] == ' ') n--;
    if (same_secret(t, n, v->token)) return 1;
  }
  return 0;
}

/* the data (/api/...) needs the token; the page's own files, the same for everyone, do not (a
 * browser loads a page's modules and styles without the page's query) */
static int is_api(const struct mg_connection *conn) {
  const char *uri = mg_get_request_info(conn)->local_uri;
  return !uri || strcmp(uri, "/api") == 0 || strncmp(uri, "/api/", 5) == 0;
}

static int begin_request(struct mg_connection *conn) {
  bt_view *v = mg_get_user_data(mg_get_context(conn));
  const char *host = mg_get_header(conn, "Host");
  const char *origin = mg_get_header(conn, "Origin");
  const char *why = NULL;
  btp_mutex_lock(&v->lock); /* the port is known once civetweb has started: under the lock */
  int port = v->port;
  btp_mutex_unlock(&v->lock);
  if (!host_allowed(v, port, host, 0)) why = "this server answers only requests for its own address (Host)";
  else if (!origin_allowed(v, port, origin, host)) why = "requests from other sites are refused (Origin)";
  else if (is_api(conn) && !token_given(v, conn)) why = "a token is required: ?token=T or Authorization: Bearer T";
  btp_mutex_lock(&v->lock);
  v->stats.requests++;
  if (why) v->stats.refused++;
  btp_mutex_unlock(&v->lock);
  if (!why) return 0;
  send_error(conn, 403, "%s", why);
  return 403;
}

/* ---- the JSON endpoints ---- */

static int parse_decimal(const char *s, size_t n, unsigned long long *out) {
  unsigned long long v = 0;
  if (n == 0 || n > 20) return 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (~0ULL - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = v;
  return 1;
}

static int parse_hex(const char *s, size_t n, unsigned long long *out) {
  unsigned long long v = 0;
  if (n == 0 || n > 16) return 0;
  for (size_t i = 0; i < n; i++) {
    int c = (unsigned char)s[i];
    if (!isxdigit(c)) return 0;
    v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
  }
  *out = v;
  return 1;
}

/* a query parameter as a number: 1 found, 0 absent, -1 malformed */
static int query_number(const struct mg_request_info *ri, const char *name, unsigned long long *out) {
  if (!ri->query_string) return 0;
  char got[32];
  int n = mg_get_var(ri->query_string, strlen(ri->query_string), name, got, sizeof got);
  if (n == -1) return 0;
  if (n < 0 || !parse_decimal(got, (size_t)n, out)) return -1;
  return 1;
}

static int answer_info(bt_view *v, bt_buf *out) {
  btv_range r = {0};
  v->src->range(v, &r);
  bt_buf_printf(out, "{\"bt\":\"bt %s\",\"mode\":\"%s\",\"source\":", bt_version(), v->src->name);
  btv_json_cstring(out, v->source);
  btv_json_raw(out, ",\"time\":");
  btv_json_number(out, r.time);
  bt_buf_printf(out, ",\"frame\":%llu,\"agents\":%d,\"first_time\":", v->frames, r.agents);
  if (r.have) btv_json_number(out, r.first);
  else btv_json_raw(out, "null");
  btv_json_raw(out, ",\"last_time\":");
  if (r.have) btv_json_number(out, r.last);
  else btv_json_raw(out, "null");
  bt_buf_printf(out, ",\"token\":%s}", v->token ? "true" : "false");
  return BT_OK;
}

/* /api/kinds: the kind table, for the page (bt_kind_*); the same for every view, no lock */
static int answer_kinds(bt_buf *out) {
  static const struct {
    unsigned flag;
    const char *name;
  } flags[] = {{BT_KIND_DS, "ds"},           {BT_KIND_DECORATOR, "decorator"}, {BT_KIND_SELECTS, "selects"},
               {BT_KIND_PERIODIC, "periodic"}, {BT_KIND_LISTENS, "listens"},   {BT_KIND_INCLUDES, "includes"}};
  btv_json_raw(out, "{\"kinds\":[");
  for (int k = 0; bt_kind_get(k); k++) {
    const bt_kind_info *info = bt_kind_get(k);
    btv_json_raw(out, k ? ",{\"name\":" : "{\"name\":");
    btv_json_cstring(out, info->name);
    btv_json_raw(out, ",\"default_name\":");
    btv_json_cstring(out, info->default_name);
    btv_json_raw(out, ",\"base\":");
    if (info->base >= 0) btv_json_cstring(out, bt_kind_name(info->base));
    else btv_json_raw(out, "null");
    btv_json_raw(out, ",\"flags\":[");
    for (size_t i = 0, n = 0; i < sizeof flags / sizeof flags[0]; i++)
      if (info->flags & flags[i].flag) bt_buf_printf(out, n++ ? ",\"%s\"" : "\"%s\"", flags[i].name);
    btv_json_raw(out, "],\"param\":");
    if (bt_kind_param_format(k)) btv_json_cstring(out, bt_kind_param_format(k));
    else btv_json_raw(out, "null");
    btv_json_raw(out, "}");
  }
  btv_json_raw(out, "]}");
  return BT_OK;
}

static void answer_api(bt_view *v, struct mg_connection *conn, const char *path) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  bt_buf out = {0};
  int rc = BTV_NOT_FOUND;
  const btv_source_methods *src = v->src;
  const char *rest;
  unsigned long long id = 0;
  if (strcmp(path, "info") == 0) {
    btp_mutex_lock(&v->lock);
    rc = answer_info(v, &out);
    btp_mutex_unlock(&v->lock);
  } else if (strcmp(path, "agents") == 0) {
    btp_mutex_lock(&v->lock);
    rc = src->agents(v, &out);
    btp_mutex_unlock(&v->lock);
  } else if (strncmp(path, "agents/", 7) == 0) {
    rest = path + 7;
    size_t n = strcspn(rest, "/");
    const char *tail = rest + n;
    if (!parse_decimal(rest, n, &id)) {
      send_error(conn, 400, "an agent id is a whole number: /api/agents/<id>");
      return;
    }
    if (*tail == 0) {
      btp_mutex_lock(&v->lock);
      rc = src->agent(v, id, &out);
      btp_mutex_unlock(&v->lock);
    } else if (strcmp(tail, "/history") == 0) {
      unsigned long long before = 0, count = 500;
      int b = query_number(ri, "before", &before), c = query_number(ri, "count", &count);
      if (b < 0 || c < 0 || count < 1 || count > 2000) {
        send_error(conn, 400, "history: before is a record's seq, count a number from 1 to 2000");
        return;
      }
      btp_mutex_lock(&v->lock);
      rc = src->history(v, id, before, (int)count, &out);
      btp_mutex_unlock(&v->lock);
    } else if (strcmp(tail, "/stats") == 0) {
      btp_mutex_lock(&v->lock);
      rc = src->agent_stats(v, id, &out);
      btp_mutex_unlock(&v->lock);
    } else {
      send_error(conn, 404, "no such endpoint: /api/%s", path);
      return;
    }
    if (rc == BTV_NOT_FOUND) {
      bt_buf_free(&out);
      send_error(conn, 404, "no agent of id %llu", id);
      return;
    }
  } else if (strncmp(path, "shapes/", 7) == 0) {
    rest = path + 7;
    size_t n = strcspn(rest, "/");
    const char *tail = rest + n;
    if (!parse_hex(rest, n, &id)) {
      send_error(conn, 400, "a shape is 16 hex digits: /api/shapes/<shape>");
      return;
    }
    btp_mutex_lock(&v->lock);
    if (*tail == 0) rc = src->shape(v, id, &out);
    else if (strcmp(tail, "/stats") == 0) rc = src->shape_stats(v, id, &out);
    btp_mutex_unlock(&v->lock);
    if (rc == BTV_NOT_FOUND) {
      bt_buf_free(&out);
      if (*tail && strcmp(tail, "/stats") != 0) send_error(conn, 404, "no such endpoint: /api/%s", path);
      else send_error(conn, 404, "no shape %016llx", id);
      return;
    }
  } else if (strcmp(path, "kinds") == 0) {
    rc = answer_kinds(&out);
  } else if (strcmp(path, "stream") == 0) {
    send_error(conn, 400, "/api/stream is a WebSocket: open it with an Upgrade request");
    return;
  } else {
    send_error(conn, 404, "no such endpoint: /api/%s", path);
    return;
  }
  if (rc == BTV_BAD_REQUEST) send_error(conn, 400, "%s", out.data ? out.data : "bad request");
  else if (rc != BT_OK || out.err) send_error(conn, 503, "out of memory");
  else send_json(conn, 200, out.data, out.len);
  bt_buf_free(&out);
}

static void answer_file(struct mg_connection *conn, const char *path) {
  if (*path == 0) path = "index.html";
  for (const btv_page_file *f = btv_page_files; f->path; f++) {
    if (strcmp(f->path, path) != 0) continue;
    send_head(conn,
              "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-cache\r\n"
              "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
              f->mime, f->size);
    mg_write(conn, f->data, f->size);
    return;
  }
  send_error(conn, 404, "no such file: /%s", path);
}

static int http_handler(struct mg_connection *conn, void *ud) {
  bt_view *v = ud;
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (strcmp(ri->request_method, "GET") != 0) {
    send_error(conn, 400, "only GET is answered");
    return 400;
  }
  const char *uri = ri->local_uri ? ri->local_uri : "/";
  if (strncmp(uri, "/api/", 5) == 0) answer_api(v, conn, uri + 5);
  else if (strcmp(uri, "/api") == 0) send_error(conn, 404, "no such endpoint: /api");
  else answer_file(conn, uri + 1);
  return 200;
}

/* ---- the streams ---- */

static int queue_push(btv_client *c, const char *msg, size_t len, int records, unsigned long long agent) {
  if (c->closing) return 0;
  if (c->dead) { /* its writes failed: what it would have been sent is lost */
    c->v->stats.dropped++;
    return 0;
  }
  if (c->count == QUEUE_MESSAGES || c->bytes + len > QUEUE_BYTES) {
    c->dropped_messages++;
    if (records) {
      c->dropped_records += (unsigned long long)records;
      if (c->dropped_agents == 0) {
        c->dropped_agents = 1;
        c->dropped_agent = agent;
      } else if (c->dropped_agent != agent) c->dropped_agents = 2;
    }
    c->v->stats.dropped++;
    return 0;
  }
  char *copy = malloc(len + 1);
  if (!copy) {
    c->dropped_messages++;
    c->v->stats.dropped++;
    return 0;
  }
  memcpy(copy, msg, len);
  copy[len] = 0;
  int at = (c->head + c->count) % QUEUE_MESSAGES;
  c->msgs[at] = copy;
  c->lens[at] = len;
  c->count++;
  c->bytes += len;
  c->v->stats.messages++;
  return 1;
}

static void stream_broadcast(bt_view *v, const char *msg, size_t len) {
  for (btv_client *c = v->clients; c; c = c->next) queue_push(c, msg, len, 0, 0);
}

/* counts the records of a records message (its "seq" keys) */
static int records_in(const char *msg, size_t len) {
  int n = 0;
  for (const char *p = msg; (p = memchr(p, '"', (size_t)(msg + len - p))) != NULL; p++)
    if ((size_t)(msg + len - p) > 5 && memcmp(p, "\"seq\"", 5) == 0) n++;
  return n;
}

static void stream_agent(bt_view *v, unsigned long long agent, const char *msg, size_t len) {
  int records = -1;
  for (btv_client *c = v->clients; c; c = c->next)
    for (int i = 0; i < c->nsubs; i++)
      if (c->subs[i] == agent) {
        if (records < 0) records = records_in(msg, len);
        queue_push(c, msg, len, records, agent);
        break;
      }
}

void btv_stream_post(bt_view *v) {
  btv_outbox *o = &v->outbox;
  for (int i = 0; i < o->count; i++) {
    const btv_outbox_msg *m = &o->msgs[i];
    if (m->all) stream_broadcast(v, o->bytes.data + m->at, m->len);
    else stream_agent(v, m->agent, o->bytes.data + m->at, m->len);
  }
  for (btv_client *c = v->clients; o->lost && c; c = c->next) /* as queue_push counts one it cannot copy */
    if (!c->closing) {
      c->dropped_messages += o->lost;
      v->stats.dropped += o->lost;
    }
  btv_outbox_clear(o);
}

void btv_stream_wake(bt_view *v) {
  btp_mutex_lock(&v->lock);
  for (btv_client *c = v->clients; c; c = c->next)
    if (c->count) btp_cond_signal(&c->cond);
  btp_mutex_unlock(&v->lock);
}

static void sender_main(void *arg) {
  btv_client *c = arg;
  bt_view *v = c->v;
  btp_mutex_lock(&v->lock);
  while (!c->closing) {
    if (c->dead || (c->count == 0 && c->dropped_messages == 0)) {
      btp_cond_wait(&c->cond, &v->lock);
      continue;
    }
    char *msg;
    size_t len;
    char notice[200];
    int own = 1;
    if (c->dropped_messages && c->count < QUEUE_MESSAGES / 2) {
      if (c->dropped_agents == 1)
        snprintf(notice, sizeof notice, "{\"type\":\"dropped\",\"agent\":%llu,\"records\":%llu,\"messages\":%llu}",
                 c->dropped_agent, c->dropped_records, c->dropped_messages);
      else
        snprintf(notice, sizeof notice, "{\"type\":\"dropped\",\"agent\":null,\"records\":%llu,\"messages\":%llu}",
                 c->dropped_records, c->dropped_messages);
      c->dropped_messages = c->dropped_records = 0;
      c->dropped_agents = 0;
      msg = notice;
      len = strlen(notice);
      own = 0;
    } else if (c->count) {
      msg = c->msgs[c->head];
      len = c->lens[c->head];
      c->msgs[c->head] = NULL;
      c->head = (c->head + 1) % QUEUE_MESSAGES;
      c->count--;
      c->bytes -= len;
    } else {
      btp_cond_wait(&c->cond, &v->lock);
      continue;
    }
    btp_mutex_unlock(&v->lock);
    int sent = mg_websocket_write(c->conn, MG_WEBSOCKET_OPCODE_TEXT, msg, len);
    if (own) free(msg);
    btp_mutex_lock(&v->lock);
    if (sent <= 0) c->dead = 1; /* the connection's thread sees it closed and closes the stream */
  }
  btp_mutex_unlock(&v->lock);
}

static void client_free(btv_client *c) {
  if (!c) return;
  for (int i = 0; i < c->count; i++) free(c->msgs[(c->head + i) % QUEUE_MESSAGES]);
  free(c->msgs);
  free(c->lens);
  btp_cond_destroy(&c->cond);
  free(c);
}

static int max_streams(const bt_view *v) { return v->threads > 8 ? v->threads - 4 : v->threads / 2; }

static int ws_connect(const struct mg_connection *conn, void *ud) {
  (void)conn;
  bt_view *v = ud;
  btp_mutex_lock(&v->lock);
  int n = v->stats.clients;
  btp_mutex_unlock(&v->lock);
  return n >= max_streams(v); /* non-zero: refused (the connection is closed) */
}

static void ws_ready(struct mg_connection *conn, void *ud) {
  bt_view *v = ud;
  btv_client *c = calloc(1, sizeof *c);
  if (!c) return;
  c->v = v;
  c->conn = conn;
  c->msgs = calloc(QUEUE_MESSAGES, sizeof *c->msgs);
  c->lens = calloc(QUEUE_MESSAGES, sizeof *c->lens);
  if (!c->msgs || !c->lens || btp_cond_init(&c->cond) != BT_OK) {
    free(c->msgs);
    free(c->lens);
    free(c);
    return;
  }
  bt_buf hello = {0};
  btp_mutex_lock(&v->lock);
  bt_buf_printf(&hello, "{\"type\":\"hello\",\"mode\":\"%s\",\"frame\":%llu,\"time\":", v->src->name,
                 v->frames);
  btv_json_number(&hello, v->now);
  btv_json_raw(&hello, "}");
  if (!hello.err) queue_push(c, hello.data, hello.len, 0, 0);
  if (!v->src->frame) { /* a source without frames: one, so that the page reads it once */
    hello.len = 0;
    bt_buf_printf(&hello, "{\"type\":\"frame\",\"frame\":%llu,\"time\":", v->frames);
    btv_json_number(&hello, v->now);
    btv_json_raw(&hello, ",\"counts\":{}}");
    if (!hello.err) queue_push(c, hello.data, hello.len, 0, 0);
  }
  if (btp_thread_create(&c->sender, sender_main, c) != BT_OK) {
    btp_mutex_unlock(&v->lock);
    bt_buf_free(&hello);
    client_free(c);
    return;
  }
  c->started = 1;
  c->next = v->clients;
  v->clients = c;
  v->stats.clients++;
  btp_cond_signal(&c->cond);
  btp_mutex_unlock(&v->lock);
  bt_buf_free(&hello);
  mg_set_user_connection_data(conn, c);
}

static void client_error(btv_client *c, const char *why) {
  bt_buf b = {0};
  btv_json_raw(&b, "{\"type\":\"error\",\"error\":");
  btv_json_cstring(&b, why);
  btv_json_raw(&b, "}");
  btp_mutex_lock(&c->v->lock);
  if (!b.err) queue_push(c, b.data, b.len, 0, 0);
  btp_cond_signal(&c->cond);
  btp_mutex_unlock(&c->v->lock);
  bt_buf_free(&b);
}

/* tells the source that a stream subscribed to (+1) or unsubscribed from (-1) an agent */
static void watch(bt_view *v, unsigned long long id, int delta) {
  if (v->src->watch) v->src->watch(v, id, delta);
}

static int ws_data(struct mg_connection *conn, int bits, char *data, size_t len, void *ud) {
  bt_view *v = ud;
  btv_client *c = mg_get_user_connection_data(conn);
  int opcode = bits & 0x0F;
  if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) return 0;
  if (!c) return 0;
  if (opcode == MG_WEBSOCKET_OPCODE_PING || opcode == MG_WEBSOCKET_OPCODE_PONG) {
    if (opcode == MG_WEBSOCKET_OPCODE_PING) mg_websocket_write(conn, MG_WEBSOCKET_OPCODE_PONG, data, len);
    return 1;
  }
  if (opcode != MG_WEBSOCKET_OPCODE_TEXT || !(bits & 0x80)) {
    client_error(c, opcode == MG_WEBSOCKET_OPCODE_BINARY ? "binary frames are not understood: send text"
                                                        : "fragmented messages are not understood");
    return 1;
  }
  unsigned long long ids[MAX_SUBSCRIBED];
  int count = 0;
  char err[160];
  int kind = btv_json_read_ids(data, len, ids, MAX_SUBSCRIBED, &count, err, sizeof err);
  if (kind == 0) {
    client_error(c, err);
    return 1;
  }
  btp_mutex_lock(&v->lock);
  if (kind == 1) { /* subscribe: replaces the set */
    for (int i = 0; i < c->nsubs; i++) watch(v, c->subs[i], -1);
    c->nsubs = 0;
    for (int i = 0; i < count; i++) {
      int dup = 0;
      for (int j = 0; j < c->nsubs; j++) dup |= c->subs[j] == ids[i];
      if (dup) continue;
      c->subs[c->nsubs++] = ids[i];
      watch(v, ids[i], +1);
    }
  } else {
    for (int i = 0; i < count; i++)
      for (int j = 0; j < c->nsubs; j++)
        if (c->subs[j] == ids[i]) {
          watch(v, ids[i], -1);
          c->subs[j] = c->subs[--c->nsubs];
          break;
        }
  }
  btp_mutex_unlock(&v->lock);
  return 1;
}

static void ws_close(const struct mg_connection *conn, void *ud) {
  bt_view *v = ud;
  btv_client *c = mg_get_user_connection_data(conn);
  if (!c) return;
  btp_mutex_lock(&v->lock);
  for (btv_client **p = &v->clients; *p; p = &(*p)->next)
    if (*p == c) {
      *p = c->next;
      break;
    }
  for (int i = 0; i < c->nsubs; i++) watch(v, c->subs[i], -1);
  v->stats.clients--;
  c->closing = 1;
  btp_cond_signal(&c->cond);
  btp_mutex_unlock(&v->lock);
  if (c->started) btp_thread_join(&c->sender);
  client_free(c);
}

/* ---- starting and stopping ---- */

static int log_message(const struct mg_connection *conn, const char *message) {
  (void)conn;
  (void)message;
  return 1; /* civetweb's own log lines are not printed: the host's stderr is its own */
}

int btv_server_start(bt_view *v, char *err, size_t errsize) {
  char ports[320], threads[16];
  snprintf(ports, sizeof ports, "%s:%d", v->address, v->port);
  snprintf(threads, sizeof threads, "%d", v->threads);
  const char *options[] = {"listening_ports", ports,
                           "num_threads", threads,
                           /* also how long a stream's write may wait for a client that does not
                              read before the stream is given up (its queue drops meanwhile) */
                           "request_timeout_ms", "600000",
                           "websocket_timeout_ms", "500",
                           "enable_keep_alive", "no",
                           NULL};
  struct mg_callbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.begin_request = begin_request;
  cb.log_message = log_message;
  mg_init_library(0);
  v->ctx = mg_start(&cb, v, options);
  if (!v->ctx) {
    btv_set_error(v, err, errsize, "cannot listen on %s port %d (taken, or not an address of this machine)",
                  v->address, v->port);
    return BT_EIO;
  }
  struct mg_server_port sp[4];
  int n = mg_get_server_ports(v->ctx, 4, sp);
  if (n < 1) {
    mg_stop(v->ctx);
    v->ctx = NULL;
    btv_set_error(v, err, errsize, "the server listens on no port");
    return BT_EIO;
  }
  btp_mutex_lock(&v->lock);
  v->port = sp[0].port;
  btp_mutex_unlock(&v->lock);
  mg_set_request_handler(v->ctx, "/", http_handler, v);
  mg_set_websocket_handler(v->ctx, "/api/stream", ws_connect, ws_ready, ws_data, ws_close, v);
  return BT_OK;
}

void btv_server_stop(bt_view *v) {
  if (v->ctx) mg_stop(v->ctx);
  v->ctx = NULL;
}
