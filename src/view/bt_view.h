/* SPDX-License-Identifier: MIT */
/*
 * bt_view.h: the live viewer's server (libbtview; docs/viewer.md).
 *
 * A bt_view serves, over HTTP and a WebSocket (civetweb), a page that shows the trees of the
 * agents the host registers, live and back in time, or those of a log file. The host makes one
 * with bt_view_create, registers each agent's recorder (bt_view_add_agent) and calls
 * bt_view_frame at each frame end, when nothing thinks: that call copies what the recorders
 * recorded since the last frame into the view's own bounded histories and publishes it to the
 * server's threads. The server's threads (civetweb's) only ever read those copies, under a mutex
 * that no thread holds while it waits for a network; a client that reads too slowly loses
 * messages (it is told so), it never slows the frame.
 *
 * Every function that can fail returns BT_OK (0) or a negative bt.h code: BT_EINVAL (a bad
 * argument), BT_ENOMEM, BT_EIO (the server could not listen, a log could not be read),
 * BT_ETHREAD (a thread could not be started), BT_EFORMAT and BT_ECORRUPT (a log that is not one,
 * or is damaged). The view keeps the message of its last failure (bt_view_errmsg); creators
 * write theirs into err. Nothing aborts or exits.
 *
 * Threads: every function but bt_view_port, bt_view_url and bt_view_errmsg must be called from
 * one thread at a time (the host's game thread), and bt_view_add_agent, bt_view_remove_agent and
 * bt_view_frame on the thread that may read the recorders (the one that thinks their instances,
 * between thinks).
 */
#ifndef BT_VIEW_H
#define BT_VIEW_H

#include <stddef.h>

#include "bt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bt_view bt_view;

/* What a view is made with; bt_view_options_init gives the defaults. */
typedef struct bt_view_options {
  const char *address; /* the IPv4 address to listen on: "127.0.0.1" (NULL: that), "0.0.0.0", ...;
                          "localhost" is 127.0.0.1 (Debian's civetweb has no IPv6) */
  int port;            /* the port (0: any free one; bt_view_port says which) */
  const char *token;   /* the token every request must carry (NULL: none); required when the
                          address is not a loopback one (127.x.x.x, ::1, localhost) */
  size_t history;      /* records kept per agent, live (0: 4096); the oldest go first */
  int threads;         /* civetweb's worker threads: each open page's stream holds one (0: 24) */
  const char *source;  /* what /api/info calls the source (NULL: "live", or the log's path) */
  int dbstrings;       /* 1 (bt_view_options_init's): the recorders of the agents a page subscribes
                          to keep the DBStrings of their running nodes, described inside each think
                          (bt_rec_keep_dbstrings: a describe call per running node per think, of
                          those agents only), and the page shows them; 0: none live */
} bt_view_options;

void bt_view_options_init(bt_view_options *opts);

/* Starts a live view's server. opts NULL: the defaults. On failure *out is NULL and err (errsize
 * bytes, may be NULL) says why: BT_EINVAL (out NULL, a port outside 0..65535, an address
 * with characters other than letters, digits, '.', '-', an IPv6 address, a non-loopback
 * address without a token, a token of other than 1 to 200 letters, digits, '-', '_', '.', '~',
 * threads outside 0..512),
 * BT_EIO (cannot listen there: the port is taken, the address is not this machine's),
 * BT_ENOMEM, BT_ETHREAD. */
int bt_view_create(bt_view **out, const bt_view_options *opts, char *err, size_t errsize);

/* Starts a view serving the log file at path (docs/log-format.md) instead of live agents: it
 * reads the file through once to index it (per agent: its records, where they are), then
 * answers each request with what it reads from the file, never holding the file whole. Errors:
 * as bt_view_create, and the reader's (BT_EIO: cannot read it; BT_EFORMAT: not a bt log;
 * BT_ECORRUPT: damaged before any record: a log damaged later is served up to the damage). The
 * agents' functions (bt_view_add_agent, bt_view_frame ...) fail on it with BT_EINVAL. */
int bt_view_create_log(bt_view **out, const char *path, const bt_view_options *opts, char *err,
                     size_t errsize);

/* Stops the server (closing every connection; waits for the server's threads) and frees the
 * view. The recorders registered are left as they are. NULL is allowed. */
void bt_view_free(bt_view *v);

/* The port the server listens on, and the page's URL ("http://127.0.0.1:PORT/", with
 * "?token=T" when it has a token; valid as long as the view). -1 / "" for NULL. */
int bt_view_port(const bt_view *v);
const char *bt_view_url(const bt_view *v);

/* The message of the view's last failure ("" if none). */
const char *bt_view_errmsg(const bt_view *v);

/* Registers an agent: its recorder (its id and label are bt_rec_agent and bt_rec_label as they
 * are now; its tree that of the instance it watches, read at each frame) and the name of its brain (copied; NULL:
 * ""), which the page shows and filters on. The records the recorder's ring holds are copied at
 * the next frame. The recorder must stay alive until bt_view_remove_agent (or bt_view_free).
 * BT_EINVAL: v or rec NULL, a log view, a recorder registered already, another registered
 * recorder with the same agent id; BT_ENOMEM. */
int bt_view_add_agent(bt_view *v, bt_rec *rec, const char *brain);

/* Unregisters the agent of that recorder (its history goes with it). BT_EINVAL when it is not
 * registered. */
int bt_view_remove_agent(bt_view *v, bt_rec *rec);

/* Sets the map position of a registered agent (by id), which the page draws. BT_EINVAL: no
 * such agent, a position that is not finite. */
int bt_view_set_position(bt_view *v, unsigned long long agent, double x, double y);

/* Call at each frame end, when no registered instance thinks: copies the records each recorder
 * made since the last frame into the agent's history (a recorder whose ring lost records between
 * two frames gives a "lost" record in their place), reads each changed agent's statuses, and
 * publishes them and the stream's messages to the server. `now` is the host's clock (the
 * agents' bt_host.now), which the activity figures count in. Never waits for a client.
 * BT_EINVAL (v NULL, a log view), BT_ENOMEM (that frame's records of some agents are lost: the
 * next frame counts them as lost). */
int bt_view_frame(bt_view *v, double now);

/* What the server did so far (for tests and a host's own display). */
typedef struct bt_view_stats {
  unsigned long long frames;    /* bt_view_frame calls */
  unsigned long long requests;  /* HTTP requests answered, upgrades included */
  unsigned long long refused;   /* of which refused with 403 (Host, Origin, token) */
  unsigned long long messages;  /* stream messages queued for clients */
  unsigned long long dropped;   /* stream messages dropped because a client's queue was full */
  int clients;                  /* streams open now */
} bt_view_stats;
void bt_view_stats_get(bt_view *v, bt_view_stats *out);

/* ---- deprecated names ----
 * What these functions were called before 0.3 (CHANGELOG.md, "Renamed"): bt makes with _create
 * and frees with _free everywhere. The old names stay as aliases for a while; new code should
 * not use them. */
#define bt_view_open_log bt_view_create_log

#ifdef __cplusplus
}
#endif

#endif
