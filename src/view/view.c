/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp */
/*
 * view.c: making and freeing a view (bt_view.h): its options checked, its source opened (live.c
 * or logview.c, which put their table of functions in it), its server started (server.c); and a
 * live view's frame, which the source makes and the server hands to the streams.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btv_internal.h"

#define DEFAULT_HISTORY 4096
#define DEFAULT_THREADS 24

void bt_view_options_init(bt_view_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->address = "127.0.0.1";
  o->dbstrings = 1;
}

static int is_loopback(const char *address) {
  return strncmp(address, "127.", 4) == 0 || strcmp(address, "::1") == 0 || strcmp(address, "localhost") == 0;
}

static int check_chars(const char *s, const char *extra) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(extra, *p)))
      return 0;
  return 1;
}

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* a view with its options checked, not yet serving */
static int view_new(bt_view **out, const bt_view_options *opts, const char *source, char *err,
                    size_t errsize) {
  bt_view_options defaults;
  if (!out) {
    btv_set_error(NULL, err, errsize, "out is NULL");
    return BT_EINVAL;
  }
  *out = NULL;
  if (!opts) {
    bt_view_options_init(&defaults);
    opts = &defaults;
  }
  const char *address = opts->address ? opts->address : "127.0.0.1";
  if (opts->port < 0 || opts->port > 65535) {
    btv_set_error(NULL, err, errsize, "port %d is not one: 0 (any free port) to 65535", opts->port);
    return BT_EINVAL;
  }
  if (!check_chars(address, ".:-") || strlen(address) > 255) {
    btv_set_error(NULL, err, errsize, "address \"%.64s\" is not an address or host name", address);
    return BT_EINVAL;
  }
  if (strchr(address, ':')) {
    btv_set_error(NULL, err, errsize, "address %.64s: IPv6 addresses are not supported (civetweb is built without)", address);
    return BT_EINVAL;
  }
  if (opts->token && (!check_chars(opts->token, "-_.~") || strlen(opts->token) > 200)) {
    btv_set_error(NULL, err, errsize,
                  "the token must be 1 to 200 letters, digits, '-', '_', '.' or '~' (it goes in URLs as it is)");
    return BT_EINVAL;
  }
  if (!opts->token && !is_loopback(address)) {
    btv_set_error(NULL, err, errsize,
                  "address %.64s is not a loopback address: a token is required (anyone who can reach it could "
                  "read the game's agents)", address);
    return BT_EINVAL;
  }
  if (opts->threads < 0 || opts->threads > 512) {
    btv_set_error(NULL, err, errsize, "threads %d: 0 (the default) to 512", opts->threads);
    return BT_EINVAL;
  }
  bt_view *v = calloc(1, sizeof *v);
  if (!v) {
    btv_set_error(NULL, err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  v->port = opts->port;
  v->history = opts->history ? opts->history : DEFAULT_HISTORY;
  v->dbstrings = opts->dbstrings != 0;
  v->threads = opts->threads ? opts->threads : DEFAULT_THREADS;
  if (v->threads < 2) v->threads = 2;
  v->address = strdup(strcmp(address, "localhost") == 0 ? "127.0.0.1" : address);
  v->token = opts->token ? strdup(opts->token) : NULL;
  v->source = strdup(opts->source ? opts->source : source);
  if (!v->address || (opts->token && !v->token) || !v->source) {
    bt_view_free(v);
    btv_set_error(NULL, err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  if (btp_mutex_init(&v->lock) != BT_OK) {
    bt_view_free(v);
    btv_set_error(NULL, err, errsize, "cannot make a mutex");
    return BT_ETHREAD;
  }
  v->lock_made = 1;
  *out = v;
  return BT_OK;
}

static int view_serve(bt_view *v, char *err, size_t errsize) {
  int rc = btv_server_start(v, err, errsize);
  if (rc != BT_OK) return rc;
  const char *host = strcmp(v->address, "0.0.0.0") == 0 ? "127.0.0.1" : v->address;
  v->url = v->token ? format("http://%s:%d/?token=%s", host, v->port, v->token) : format("http://%s:%d/", host, v->port);
  if (!v->url) {
    btv_set_error(v, err, errsize, "out of memory");
    return BT_ENOMEM;
  }
  return BT_OK;
}

int bt_view_create(bt_view **out, const bt_view_options *opts, char *err, size_t errsize) {
  bt_view *v;
  if (!out) {
    btv_set_error(NULL, err, errsize, "out is NULL");
    return BT_EINVAL;
  }
  *out = NULL;
  int rc = view_new(&v, opts, "live", err, errsize);
  if (rc != BT_OK) return rc;
  rc = btv_live_open(v, err, errsize);
  if (rc == BT_OK) rc = view_serve(v, err, errsize);
  if (rc != BT_OK) {
    bt_view_free(v);
    return rc;
  }
  *out = v;
  return BT_OK;
}

int bt_view_create_log(bt_view **out, const char *path, const bt_view_options *opts, char *err, size_t errsize) {
  if (out) *out = NULL;
  if (!out || !path) {
    btv_set_error(NULL, err, errsize, "%s is NULL", out ? "path" : "out");
    return BT_EINVAL;
  }
  bt_view *v;
  int rc = view_new(&v, opts, path, err, errsize);
  if (rc != BT_OK) return rc;
  rc = btv_log_open(v, path, err, errsize);
  if (rc == BT_OK) rc = view_serve(v, err, errsize);
  if (rc != BT_OK) {
    bt_view_free(v);
    return rc;
  }
  *out = v;
  return BT_OK;
}

int bt_view_frame(bt_view *v, double now) {
  if (!v || !v->src || !v->src->frame) {
    if (v) btv_set_error(v, NULL, 0, "bt_view_frame: a log view has no live agents");
    return BT_EINVAL;
  }
  btp_mutex_lock(&v->lock);
  v->now = now;
  v->frames++;
  v->stats.frames++;
  int rc = v->src->frame(v, now);
  btv_stream_post(v); /* in the same hold of the lock: no stream sees half a frame */
  btp_mutex_unlock(&v->lock);
  btv_stream_wake(v);
  if (rc != BT_OK) btv_set_error(v, NULL, 0, "bt_view_frame: out of memory (records of this frame were lost)");
  return rc;
}

void bt_view_free(bt_view *v) {
  if (!v) return;
  btv_server_stop(v); /* closes the streams: their close handlers free them */
  if (v->src) v->src->free(v);
  btv_outbox_free(&v->outbox);
  if (v->lock_made) btp_mutex_destroy(&v->lock);
  free(v->address);
  free(v->token);
  free(v->source);
  free(v->url);
  free(v);
}

int bt_view_port(const bt_view *v) { return v ? v->port : -1; }
const char *bt_view_url(const bt_view *v) { return v && v->url ? v->url : ""; }
const char *bt_view_errmsg(const bt_view *v) { return v ? v->errmsg : ""; }

void bt_view_stats_get(bt_view *v, bt_view_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!v) return;
  btp_mutex_lock(&v->lock);
  *out = v->stats;
  btp_mutex_unlock(&v->lock);
}
