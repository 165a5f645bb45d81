/* SPDX-License-Identifier: MIT */
/*
 * btv_internal.h: what the files of libbtview share (names btv_*), never installed.
 *
 * The files are layered; each calls only the files listed before it (tests/ci/check_layers.sh,
 * ctest -R view.layers, reads their objects with nm):
 *
 *   json.c     the JSON writer (into bt_buf), the stream's small JSON reader, a view's error
 *              message, the outbox of a frame's stream messages
 *   live.c     the live source: registration, bt_view_frame's copies, the endpoints' answers
 *   logview.c  the log source: a log file's index and the same answers read from it
 *   btview_page.c  the page's files (generated from src/view/page/ by cmake/embed_page.cmake)
 *   server.c   civetweb: the checks of every request, the routes, the page, the stream; it
 *              reaches the source only through its table of functions (v->src)
 *   view.c     making and freeing a view, opening its source, bt_view_frame
 *   lua_view.c bt.view, the Lua module (bt/view.so; bt_view.h only)
 *
 * The sources are side by side: neither calls the other, and neither calls the server; the
 * live source leaves its stream messages in the view's outbox, which bt_view_frame (view.c) has
 * the server empty.
 */
#ifndef BTV_INTERNAL_H
#define BTV_INTERNAL_H

#include <stddef.h>

#include "bt_view.h"
#include "btp.h"
#include "rec_internal.h" /* bt's one ring of records (bti_ring), of which libbtview holds a copy */

#if defined(__GNUC__) && !defined(_WIN32) /* PE has no hidden names */
#define BTV_HIDDEN __attribute__((visibility("hidden")))
#else
#define BTV_HIDDEN
#endif

/* ---- json.c ---- */

/* The viewer writes its JSON into bt's buffer (bt_buf, bt.h); an answer whose buffer has an
 * error (b->err: memory ran out) is refused whole, never sent cut. */

/* appends s as it is: JSON text the caller wrote ("{\"shape\":", "]}") */
BTV_HIDDEN void btv_json_raw(bt_buf *b, const char *s);

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
  bt_buf bytes; /* the messages, one after the other */
  btv_outbox_msg *msgs;
  int count, cap;
  unsigned long long lost;
} btv_outbox;

BTV_HIDDEN void btv_outbox_add(btv_outbox *o, int all, unsigned long long agent, const char *msg, size_t len);
BTV_HIDDEN void btv_outbox_clear(btv_outbox *o); /* empties it, keeping its memory for the next frame */
BTV_HIDDEN void btv_outbox_free(btv_outbox *o);

/* a JSON string of n bytes (quotes included): control characters, '"', '\\' escaped, bytes that
 * are not UTF-8 as \u00XX; NULL gives null */
BTV_HIDDEN void btv_json_string(bt_buf *b, const char *s, size_t n);
BTV_HIDDEN void btv_json_cstring(bt_buf *b, const char *s);
/* a finite number as JSON (shortest form that reads back the same; NaN and infinities: null) */
BTV_HIDDEN void btv_json_number(bt_buf *b, double x);
BTV_HIDDEN void btv_json_shape(bt_buf *b, unsigned long long shape); /* "16 hex digits" */

/* Reads a stream message {"subscribe": [ids]} or {"unsubscribe": [ids]}: returns 1 (subscribe)
 * or 2 (unsubscribe) with the ids (at most max; more is an error), or 0 with a message in err. */
BTV_HIDDEN int btv_json_read_ids(const char *s, size_t n, unsigned long long *ids, int max, int *count,
                                 char *err, size_t errsize);

/* ---- the records an agent keeps (live.c, logview.c) ----
 *
 * An agent's history is kept as the recorder's records (bt_rec_entry, bt.h), the one record type
 * from the recorder through the log to the viewer, in bt's one ring of records (bti_ring,
 * rec_internal.h: the recorder's own, 16 bytes for a record a think made), which keeps each as it
 * was pushed, with a copy of its text (the recorder's lives only while the record is in its ring,
 * the reader's until its next read); a record's seq is its place in the history (the agents'
 * rings count them), not a field. Records the view lost are one record of the log's type
 * BT_LOG_LOST (entry.size: how many), which the live source makes too when a recorder's ring lost
 * records before a frame copied them. */

/* appends a record's JSON object ({"seq", "type", ...}; BT_LOG_LOST: "lost" with its "count") */
BTV_HIDDEN void btv_json_record(bt_buf *b, unsigned long long seq, const bt_rec_entry *e);

/* a blackboard value as JSON: null (unset), a number, an integer, true or false, a string, an
 * entity's id or a binding's token (a number: the shape's keys say the type) */
BTV_HIDDEN void btv_json_value(bt_buf *b, const bt_value *v);

/* an agent's blackboard just before the record `from` of its history (0: the oldest), as a JSON
 * array of values by key: its values now (nkeys of them, after the newest record) with every
 * KEY record from the newest back to `from` undone (each carries the value before it); null
 * when a reload or a loss lies between (the values before it are not known) */
BTV_HIDDEN void btv_json_keys_before(bt_buf *b, const bt_value *now, int nkeys, const bti_ring *ring, size_t from);

/* writes a bt_stats' rows of one shape as the stats endpoints' JSON */
BTV_HIDDEN int btv_json_stats(bt_buf *out, bt_stats *st, unsigned long long shape);

/* ---- a view's source: one table of functions (live.c, logview.c) ----
 *
 * A view reads its agents from one source: the agents the host registers (live.c) or a log file
 * (logview.c). As SQLite's sqlite3_io_methods, each source fills in one static const table of
 * the functions below, and its opening function (btv_live_open, btv_log_open) puts that table
 * and the source's own data in the view (v->src, v->src_data), where they stay until
 * bt_view_free. The server calls a source only through v->src: these calls, and no others, are
 * indirect; a source's file names neither the server nor the other source.
 *
 * Every function is called with v->lock held, but free (no server thread runs then). The answers
 * write JSON into out and return BT_OK; BTV_NOT_FOUND (no such agent or shape); BTV_BAD_REQUEST
 * with the message in out's place; BT_ENOMEM, or BT_OK with out->err, when memory ran out.
 * A member may be NULL where the comment says so, for a source that lacks it. */

enum { BTV_NOT_FOUND = -404, BTV_BAD_REQUEST = -400 };

/* /api/info's figures of a source */
typedef struct btv_range {
  double first, last; /* the times of its first and last record kept, when have */
  int have;
  int agents;         /* its agents now */
  double time;        /* its time: live, the last frame's; a log's last record's (0: none) */
} btv_range;

typedef struct btv_source_methods {
  const char *name; /* "live", "log": the "mode" of /api/info and of a stream's hello */
  int (*agents)(bt_view *v, bt_buf *out);                        /* /api/agents */
  int (*agent)(bt_view *v, unsigned long long id, bt_buf *out);  /* /api/agents/<id> */
  /* /api/agents/<id>/history: at most count records before the seq `before` (0: the newest) */
  int (*history)(bt_view *v, unsigned long long id, unsigned long long before, int count, bt_buf *out);
  int (*agent_stats)(bt_view *v, unsigned long long id, bt_buf *out);        /* .../<id>/stats */
  int (*shape)(bt_view *v, unsigned long long shape, bt_buf *out);           /* /api/shapes/<s> */
  int (*shape_stats)(bt_view *v, unsigned long long shape, bt_buf *out);     /* .../<s>/stats */
  void (*range)(bt_view *v, btv_range *out);                                  /* /api/info */
  /* a stream subscribed to (delta +1) or unsubscribed from (-1) agent id, which need not exist:
     a live agent sends its records and keeps its DBStrings while watched. NULL: nothing changes
     for a watcher (a log) */
  void (*watch)(bt_view *v, unsigned long long id, int delta);
  /* bt_view_frame's work, v->now and v->frames already set: copies what happened since the last
     frame, leaves the stream's messages in v->outbox. NULL: a source that never changes (a log):
     bt_view_frame refuses it, and a stream is sent one frame message after its hello instead */
  int (*frame)(bt_view *v, double now);
  void (*free)(bt_view *v); /* frees v->src_data (which may be NULL: an opening that failed) */
} btv_source_methods;

/* Each opens its source into v (v->src set first, so bt_view_free frees what a failure left):
 * BT_OK, or an error code with the message in v and in err. */
BTV_HIDDEN int btv_live_open(bt_view *v, char *err, size_t errsize);
BTV_HIDDEN int btv_log_open(bt_view *v, const char *path, char *err, size_t errsize);

/* ---- the view ---- */

typedef struct btv_client btv_client;

struct bt_view {
  const btv_source_methods *src; /* its source's functions and data: set once, before serving */
  void *src_data;
  int port;
  char *address, *token, *source, *url;
  char errmsg[256];
  size_t history;
  int threads;
  int dbstrings; /* bt_view_options.dbstrings */
  struct mg_context *ctx;

  btp_mutex lock; /* guards everything below and the source's data */
  int lock_made;
  unsigned long long frames;
  double now;
  btv_client *clients; /* the open streams */
  btv_outbox outbox;   /* the stream's messages of the frame being made (json.c) */
  bt_view_stats stats;
};

/* a failure's message (json.c): into the view's (v may be NULL) and into err (errsize bytes, may
 * be NULL), cut to 255 bytes */
BTV_HIDDEN void btv_set_error(bt_view *v, char *err, size_t errsize, const char *fmt, ...)
  BT_PRINTF_CHECK(4, 5)
  ;

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
