/* SPDX-License-Identifier: MIT */
/*
 * btv_internal.h: what the files of libbtview share (names btv_*), never installed.
 *
 *   json.c     a growing byte buffer, the JSON writer, the stream's small JSON reader
 *   live.c     the live agents: registration, bt_view_frame's copies, the endpoints' answers
 *   logview.c  a log file's index and the same answers read from it
 *   server.c   civetweb: the checks of every request, the routes, the page, the stream
 */
#ifndef BTV_INTERNAL_H
#define BTV_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

#include "bt_view.h"

#if defined(__GNUC__)
#define BTV_HIDDEN __attribute__((visibility("hidden")))
#else
#define BTV_HIDDEN
#endif

/* ---- json.c ---- */

typedef struct btv_buf {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed: the contents are incomplete */
} btv_buf;

BTV_HIDDEN void btv_buf_free(btv_buf *b);
BTV_HIDDEN void btv_buf_add(btv_buf *b, const char *s, size_t n);
BTV_HIDDEN void btv_buf_str(btv_buf *b, const char *s);
BTV_HIDDEN void btv_buf_printf(btv_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* The stream's messages of one frame, in their order (v->outbox): the live source leaves them
 * here (bt_view_frame, under v->lock) and the server hands them to the streams in the same hold
 * of the lock (btv_stream_post), so the source never calls the server. A message is for every
 * stream (all) or for the streams subscribed to its agent. One that did not fit in memory is
 * counted (lost): the server counts it as dropped for every stream. */
typedef struct btv_outbox_msg {
  size_t at, len; /* its bytes in the outbox's buffer */
  unsigned long long agent;
  int all;
} btv_outbox_msg;

typedef struct btv_outbox {
  btv_buf bytes; /* the messages, one after the other */
  btv_outbox_msg *msgs;
  int count, cap;
  unsigned long long lost;
} btv_outbox;

BTV_HIDDEN void btv_outbox_add(btv_outbox *o, int all, unsigned long long agent, const char *msg, size_t len);
BTV_HIDDEN void btv_outbox_clear(btv_outbox *o); /* empties it, keeping its memory for the next frame */
BTV_HIDDEN void btv_outbox_free(btv_outbox *o);

/* a JSON string of n bytes (quotes included): control characters, '"', '\\' escaped, bytes that
 * are not UTF-8 as \u00XX; NULL gives null */
BTV_HIDDEN void btv_json_string(btv_buf *b, const char *s, size_t n);
BTV_HIDDEN void btv_json_cstring(btv_buf *b, const char *s);
/* a finite number as JSON (shortest form that reads back the same; NaN and infinities: null) */
BTV_HIDDEN void btv_json_number(btv_buf *b, double x);
BTV_HIDDEN void btv_json_shape(btv_buf *b, unsigned long long shape); /* "16 hex digits" */

/* Reads a stream message {"subscribe": [ids]} or {"unsubscribe": [ids]}: returns 1 (subscribe)
 * or 2 (unsubscribe) with the ids (at most max; more is an error), or 0 with a message in err. */
BTV_HIDDEN int btv_json_read_ids(const char *s, size_t n, unsigned long long *ids, int max, int *count,
                                 char *err, size_t errsize);

/* ---- the records an agent keeps (live.c, logview.c) ---- */

typedef struct btv_record {
  double time;
  unsigned long long think;
  union {
    struct {
      char *text;
      size_t size;
    } bytes;                               /* ERROR, HOST: owned */
    struct {
      unsigned long long from, to;
    } shapes;                              /* RELOAD */
    double sleep;                          /* THINK */
    unsigned long long lost;               /* BTV_LOST */
  } u;
  int node;                                /* STATUS, EVENT, ERROR: node; HOST: code */
  unsigned char type, from, to, has_sleep, cause;
} btv_record;

#define BTV_LOST 100 /* a record of its own: records the ring lost before a frame copied them */

/* appends a record's JSON object ({"seq", "type", ...}) */
BTV_HIDDEN void btv_json_record(btv_buf *b, unsigned long long seq, const btv_record *r);
/* the entry's fields, but for an ERROR's or HOST's bytes (left NULL: the caller copies or borrows
 * them) */
BTV_HIDDEN void btv_record_from(btv_record *r, const bt_rec_entry *e);
BTV_HIDDEN void btv_record_clear(btv_record *r); /* frees its bytes */

/* ---- the view ---- */

enum { BTV_LIVE, BTV_LOG };

typedef struct btv_client btv_client;
typedef struct btv_live btv_live;
typedef struct btv_logview btv_logview;

struct bt_view {
  int mode;
  int port;
  char *address, *token, *source, *url;
  char errmsg[256];
  size_t history;
  int threads;
  int dbstrings; /* bt_view_options.dbstrings */
  struct mg_context *ctx;

  pthread_mutex_t lock; /* guards everything below and the mode's data */
  int lock_made;
  unsigned long long frames;
  double now;
  btv_client *clients; /* the open streams */
  btv_outbox outbox;   /* the stream's messages of the frame being made (json.c) */
  bt_view_stats stats;

  btv_live *live;
  btv_logview *log;
};

/* a failure's message (json.c): into the view's (v may be NULL) and into err (errsize bytes, may
 * be NULL), cut to 255 bytes */
BTV_HIDDEN void btv_set_error(bt_view *v, char *err, size_t errsize, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;

/* ---- the answers (live.c and logview.c; called with v->lock held): BT_OK, or 404 / 400 with a
 * message in the buffer's place ---- */

enum { BTV_NOT_FOUND = -404, BTV_BAD_REQUEST = -400 };

BTV_HIDDEN int btv_live_agents(bt_view *v, btv_buf *out);
BTV_HIDDEN int btv_live_agent(bt_view *v, unsigned long long id, btv_buf *out);
BTV_HIDDEN int btv_live_history(bt_view *v, unsigned long long id, unsigned long long before, int count,
                                btv_buf *out);
BTV_HIDDEN int btv_live_agent_stats(bt_view *v, unsigned long long id, btv_buf *out);
BTV_HIDDEN int btv_live_shape(bt_view *v, unsigned long long shape, btv_buf *out);
BTV_HIDDEN int btv_live_shape_stats(bt_view *v, unsigned long long shape, btv_buf *out);
BTV_HIDDEN void btv_live_range(bt_view *v, double *first, double *last, int *have, int *agents);
BTV_HIDDEN void btv_live_free(bt_view *v);
/* bt_view_frame's work (v->lock held, v->now and the frame's number set): the recorders' new
 * records copied, the stream's messages left in v->outbox */
BTV_HIDDEN int btv_live_frame(bt_view *v, double now);
/* subscriptions: an agent's count of streams that want its records */
BTV_HIDDEN void btv_live_watch(bt_view *v, unsigned long long id, int delta);

BTV_HIDDEN int btv_log_open(bt_view *v, const char *path, char *err, size_t errsize);
BTV_HIDDEN int btv_log_agents(bt_view *v, btv_buf *out);
BTV_HIDDEN int btv_log_agent(bt_view *v, unsigned long long id, btv_buf *out);
BTV_HIDDEN int btv_log_history(bt_view *v, unsigned long long id, unsigned long long before, int count,
                               btv_buf *out);
BTV_HIDDEN int btv_log_agent_stats(bt_view *v, unsigned long long id, btv_buf *out);
BTV_HIDDEN int btv_log_shape(bt_view *v, unsigned long long shape, btv_buf *out);
BTV_HIDDEN int btv_log_shape_stats(bt_view *v, unsigned long long shape, btv_buf *out);
BTV_HIDDEN void btv_log_range(bt_view *v, double *first, double *last, int *have, int *agents);
BTV_HIDDEN void btv_log_free(bt_view *v);

/* writes a bt_stats' rows of one shape as the stats endpoints' JSON */
BTV_HIDDEN int btv_json_stats(btv_buf *out, bt_stats *st, unsigned long long shape);

/* ---- server.c ---- */

BTV_HIDDEN int btv_server_start(bt_view *v, char *err, size_t errsize);
BTV_HIDDEN void btv_server_stop(bt_view *v);
/* queues the messages of v->outbox for the streams (the bytes are copied) and empties it; called
 * by bt_view_frame with v->lock held */
BTV_HIDDEN void btv_stream_post(bt_view *v);
BTV_HIDDEN void btv_stream_wake(bt_view *v); /* after a frame's messages are queued (lock not held) */

/* ---- the page's files (generated from src/view/page/ by cmake/embed_page.cmake) ---- */

typedef struct btv_page_file {
  const char *path; /* "index.html", "js/app.js" */
  const char *mime;
  const unsigned char *data;
  size_t size;
} btv_page_file;

BTV_HIDDEN extern const btv_page_file btv_page_files[]; /* ends with a {NULL} entry */

#endif
