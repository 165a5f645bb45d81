/* SPDX-License-Identifier: MIT */
/* test_view.c: the viewer's server (bt_view.h, docs/viewer.md "Protocol") as a browser and an
 * attacker see it: every endpoint's JSON against what the recorder and bt_stats say for a tree
 * with known transitions, the Host/Origin/token checks (a DNS rebinding's Host, a foreign
 * Origin), the stream (subscriptions, counts, records in seq order, malformed frames answered
 * with an error), many clients at once, a client that never reads (the frame goes on, the server
 * drops and says so), a client closing mid-stream, malformed requests, and a log file served the
 * same way (its last records answered from memory byte for byte as from the file). No time is
 * asserted: waits are bounded loops that fail when nothing comes. */
#define _POSIX_C_SOURCE 200809L /* strdup, mkstemp, nanosleep */
#include "check.h"
#include "client.h"
#include "harness.h"

#include <pthread.h>
#include <time.h>

#include "bt_view.h"

/* the test's tree: Root (Priority, period 0.5) > [Chase (Parallel) > [See (Condition), Attack
 * (RUNNING)], Idle (RUNNING)]: a think after See changed runs Chase > Attack or Idle; pre-order
 * 0 Root, 1 Chase, 2 See, 3 Attack, 4 Idle */
static leaf SEE = FN("See", 1), ATTACK = LEAF("Attack", BT_RUNNING), IDLE = LEAF("Idle", BT_RUNNING);

static bt_inst *wolf_tree(void) {
  bt_graph *g = new_graph();
  int see = add_fn(g, BT_CONDITION, &SEE, "See"), attack = add_leaf(g, &ATTACK), idle = add_leaf(g, &IDLE);
  int chase = add_node(g, BT_PARALLEL, "Chase", 0, 0);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, chase, 2, see, attack);
  set_kids(g, root, 2, chase, idle);
  return build(g, root, 0);
}

static bt_rec *record(bt_inst *in, unsigned long long id, const char *label, size_t cap) {
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, cap) == BT_OK);
  REQUIRE(bt_rec_set_agent(r, id, label) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, r) == BT_OK);
  return r;
}

static char *get(int port, const char *path, int want_status) {
  char *body = NULL;
  int status = http_get(port, path, &body);
  if (status != want_status) fprintf(stderr, "GET %s: status %d, expected %d: %s\n", path, status, want_status, body);
  CHECK_INT(status, want_status);
  return body;
}

static int contains(const char *s, const char *what) {
  if (s && strstr(s, what)) return 1;
  fprintf(stderr, "expected to find %s in: %.600s\n", what, s ? s : "(null)");
  return 0;
}

/* the statuses of the instance now, as the JSON list */
static void statuses_json(bt_inst *in, char *out, size_t size) {
  size_t n = 0;
  n += (size_t)snprintf(out + n, size - n, "\"statuses\":[");
  for (int i = 0; i < bt_def_size(bt_inst_def(in)); i++)
    n += (size_t)snprintf(out + n, size - n, i ? ",%d" : "%d", bt_node_status(in, i));
  snprintf(out + n, size - n, "]");
}

/* a number as JSON writes it: whole numbers without a point, others in the fewest digits that
 * read back the same */
static const char *num(double x, char *buf, size_t size) {
  if (x == floor(x) && fabs(x) < 1e15) snprintf(buf, size, "%.0f", x);
  else
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(buf, size, "%.*g", prec, x);
      if (strtod(buf, NULL) == x) break;
    }
  return buf;
}

/* a record's JSON as the protocol gives it (status records), for comparison */
static void status_record_json(unsigned long long seq, const bt_rec_entry *e, char *out, size_t size) {
  char t[40];
  snprintf(out, size, "{\"seq\":%llu,\"type\":\"status\",\"time\":%s,\"think\":%llu,\"node\":%d,\"from\":%d,\"to\":%d}",
           seq, num(e->time, t, sizeof t), e->think, e->node, e->from, e->to);
}

/* ---- the endpoints, live ---- */

static void test_endpoints(void) {
  bt_inst *in = wolf_tree();
  bt_rec *rec = record(in, 12, "wolf 12", 1024);
  bt_stats *st = NULL; /* the core's figures, fed by the same recorder */
  REQUIRE(bt_stats_create(&st) == BT_OK);
  REQUIRE(bt_stats_keep_agents(st, 1) == BT_OK);
  REQUIRE(bt_rec_set_stats(rec, st) == BT_OK);

  bt_view *v = NULL;
  char err[256] = "";
  CHECK_INT(bt_view_create(&v, NULL, err, sizeof err), BT_OK);
  if (!v) {
    fprintf(stderr, "bt_view_create: %s\n", err);
    return;
  }
  int port = bt_view_port(v);
  CHECK(port > 0);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
  CHECK_STR(bt_view_url(v), url);
  CHECK_INT(bt_view_add_agent(v, rec, "wolf"), BT_OK);
  CHECK_INT(bt_view_add_agent(v, rec, "wolf"), BT_EINVAL); /* twice */
  CHECK(strstr(bt_view_errmsg(v), "registered already") != NULL);

  /* see, then not, then see: the running path changes between Attack and Idle */
  int see[] = {1, 1, 0, 0, 1, 0};
  for (int i = 0; i < 6; i++) {
    SEE.result = see[i];
    think(in, 1 + i);
    CHECK_INT(bt_view_frame(v, 1 + i), BT_OK);
  }
  /* now See is 0: Root > Idle runs */
  char *body = get(port, "/api/info", 200);
  CHECK(contains(body, "\"mode\":\"live\""));
  CHECK(contains(body, "\"frame\":6"));
  CHECK(contains(body, "\"agents\":1"));
  CHECK(contains(body, "\"token\":false"));
  free(body);

  char shape[64], want[512];
  snprintf(shape, sizeof shape, "\"shape\":\"%016llx\"", bt_def_hash(bt_inst_def(in)));
  body = get(port, "/api/agents", 200);
  CHECK(contains(body, "\"id\":12,\"label\":\"wolf 12\",\"brain\":\"wolf\""));
  CHECK(contains(body, shape));
  CHECK(contains(body, "\"running\":[\"Root\",\"Idle\"]"));
  CHECK_INT((long long)json_num(body, "seq", -1), (long long)bt_rec_total(rec));
  CHECK(json_num(body, "activity", -1) > 0);
  CHECK(strstr(body, "\"x\":") == NULL); /* no position set */
  free(body);
  CHECK_INT(bt_view_set_position(v, 12, 3.5, -2), BT_OK);
  CHECK_INT(bt_view_set_position(v, 99, 1, 1), BT_EINVAL);
  CHECK_INT(bt_view_set_position(v, 12, NAN, 1), BT_EINVAL);
  body = get(port, "/api/agents", 200);
  CHECK(contains(body, "\"x\":3.5,\"y\":-2"));
  free(body);

  body = get(port, "/api/agents/12", 200);
  statuses_json(in, want, sizeof want);
  CHECK(contains(body, want));
  CHECK(contains(body, "\"think\":6"));
  CHECK(contains(body, shape));
  /* since: the time of each running node's last change to RUNNING */
  {
    double since[5] = {NAN, NAN, NAN, NAN, NAN};
    bt_rec_entry r;
    for (size_t i = 0; i < bt_rec_count(rec); i++) {
      REQUIRE(bt_rec_get(rec, i, &r) == BT_OK);
      if (r.type == BT_REC_STATUS && r.to == BT_RUNNING) since[r.node] = r.time;
    }
    char s[128] = "\"since\":[";
    for (int i = 0; i < 5; i++) {
      if (bt_node_status(in, i) == BT_RUNNING) snprintf(s + strlen(s), sizeof s - strlen(s), "%s%.0f", i ? "," : "", since[i]);
      else snprintf(s + strlen(s), sizeof s - strlen(s), "%snull", i ? "," : "");
    }
    strcat(s, "]");
    CHECK(contains(body, s));
  }
  free(body);

  /* the shape: nodes in pre-order, kinds, parents, children */
  char path[128];
  snprintf(path, sizeof path, "/api/shapes/%016llx", bt_def_hash(bt_inst_def(in)));
  body = get(port, path, 200);
  CHECK(contains(body, "{\"name\":\"Root\",\"kind\":\"PriorityNode\",\"parent\":-1,\"children\":[1,4]"));
  CHECK(contains(body, "{\"name\":\"See\",\"kind\":\"ConditionNode\",\"parent\":1,\"children\":[]"));
  CHECK(contains(body, "\"name\":\"wolf\""));
  free(body);

  /* the kind table, as the page reads it */
  body = get(port, "/api/kinds", 200);
  CHECK(contains(body, "{\"kinds\":[{\"name\":\"BehaviourNode\",\"default_name\":\"\",\"base\":null,"
                       "\"flags\":[\"ds\"],\"param\":null}"));
  CHECK(contains(body, "{\"name\":\"PriorityNode\",\"default_name\":\"Priority\",\"base\":\"BehaviourNode\","
                       "\"flags\":[\"ds\",\"selects\",\"periodic\"],\"param\":\"period %.14g\"}"));
  CHECK(contains(body, "{\"name\":\"ParallelNodeAny\",\"default_name\":\"Parallel(Any)\",\"base\":\"ParallelNode\","));
  free(body);

  /* history: every record, in order, numbered from 1, as the ring has them */
  unsigned long long total = bt_rec_total(rec);
  body = get(port, "/api/agents/12/history?count=2000", 200);
  CHECK_INT((long long)json_num(body, "oldest", -1), 1);
  CHECK_INT((long long)json_num(body, "newest", -1), (long long)total);
  CHECK(contains(body, "\"statuses_before\":[0,0,0,0,0]"));
  bt_rec_entry e;
  char one[256];
  int statuses = 0;
  for (size_t i = 0; i < bt_rec_count(rec); i++) {
    REQUIRE(bt_rec_get(rec, i, &e) == BT_OK);
    if (e.type != BT_REC_STATUS) continue;
    status_record_json(i + 1, &e, one, sizeof one);
    CHECK(contains(body, one));
    statuses++;
  }
  CHECK(statuses > 6);
  free(body);

  /* a window in the middle: the statuses before it are those the records before it leave */
  unsigned long long before = total - 3;
  snprintf(path, sizeof path, "/api/agents/12/history?before=%llu&count=4", before);
  body = get(port, path, 200);
  unsigned char st_before[5] = {0};
  for (unsigned long long s = 1; s < before - 4; s++) {
    REQUIRE(bt_rec_get(rec, (size_t)(s - 1), &e) == BT_OK);
    if (e.type == BT_REC_STATUS) st_before[e.node] = e.to;
  }
  snprintf(want, sizeof want, "\"statuses_before\":[%d,%d,%d,%d,%d]", st_before[0], st_before[1], st_before[2],
           st_before[3], st_before[4]);
  CHECK(contains(body, want));
  snprintf(want, sizeof want, "{\"seq\":%llu,", before - 4);
  CHECK(contains(body, want));
  snprintf(want, sizeof want, "{\"seq\":%llu,", before - 1);
  CHECK(contains(body, want));
  snprintf(want, sizeof want, "{\"seq\":%llu,", before);
  CHECK(strstr(body, want) == NULL);
  snprintf(want, sizeof want, "{\"seq\":%llu,", before - 5);
  CHECK(strstr(body, want) == NULL);
  free(body);

  /* statistics: the figures bt_stats gives for the same records */
  body = get(port, "/api/agents/12/stats", 200);
  for (int n = 0; n < 5; n++) {
    bt_stats_node row;
    REQUIRE(bt_rec_stats_node(rec, n, &row) == BT_OK);
    snprintf(want, sizeof want,
             "{\"node\":%d,\"visits\":%llu,\"successes\":%llu,\"failures\":%llu,\"aborts\":%llu,\"runs\":%llu,"
             "\"thinks\":%llu,\"errors\":%llu,\"running\":%d,",
             n, row.visits, row.successes, row.failures, row.aborts, row.runs, row.thinks, row.errors, row.running);
    CHECK(contains(body, want));
  }
  free(body);
  snprintf(path, sizeof path, "/api/shapes/%016llx/stats", bt_def_hash(bt_inst_def(in)));
  body = get(port, path, 200);
  CHECK(contains(body, "\"agents\":1"));
  bt_stats_node row;
  REQUIRE(bt_stats_node_get(st, bt_def_hash(bt_inst_def(in)), 4, &row) == BT_OK);
  snprintf(want, sizeof want, "{\"node\":4,\"visits\":%llu,\"successes\":%llu,\"failures\":%llu,\"aborts\":%llu,\"runs\":%llu,",
           row.visits, row.successes, row.failures, row.aborts, row.runs);
  CHECK(contains(body, want));
  free(body);

  /* errors: 404 and 400 with a JSON message */
  body = get(port, "/api/agents/13", 404);
  CHECK(contains(body, "{\"error\":\"no agent of id 13\"}"));
  free(body);
  free(get(port, "/api/agents/x1", 400));
  free(get(port, "/api/agents/12/history?count=0", 400));
  free(get(port, "/api/agents/12/history?count=2001", 400));
  free(get(port, "/api/agents/12/history?before=abc", 400));
  free(get(port, "/api/agents/12/nothing", 404));
  free(get(port, "/api/shapes/zz", 400));
  free(get(port, "/api/shapes/0000000000000001", 404));
  free(get(port, "/api/nothing", 404));
  free(get(port, "/api/stream", 400)); /* not an upgrade */
  body = get(port, "/nothing.js", 404);
  CHECK(contains(body, "\"error\""));
  free(body);

  /* the page */
  char *page = NULL;
  char req[256];
  int n = snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", port);
  int fd = client_connect(port, 0);
  REQUIRE(fd >= 0);
  client_send_all(fd, req, (size_t)n);
  char head[8192];
  size_t got = 0;
  while (got < sizeof head - 1 && client_wait(fd, 20000)) {
    ssize_t r = recv(fd, head + got, sizeof head - 1 - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
  head[got] = 0;
  close(fd);
  CHECK(contains(head, "HTTP/1.1 200"));
  CHECK(contains(head, "Content-Type: text/html; charset=utf-8"));
  CHECK(contains(head, "<!DOCTYPE html>"));
  free(page);

  /* a label with a control character and a byte that is not UTF-8: escaped as \u */
  bt_inst *odd = wolf_tree();
  bt_rec *odd_rec = record(odd, 40, "odd\x01\"\xff\xc3\xa9", 64);
  CHECK_INT(bt_view_add_agent(v, odd_rec, "b\\rain\n"), BT_OK);
  CHECK_INT(bt_view_frame(v, 7), BT_OK);
  body = get(port, "/api/agents/40", 200);
  CHECK(contains(body, "\"label\":\"odd\\u0001\\\"\\u00ff\xc3\xa9\",\"brain\":\"b\\\\rain\\n\""));
  free(body);
  CHECK_INT(bt_view_remove_agent(v, odd_rec), BT_OK);
  bt_inst_free(odd);
  bt_rec_free(odd_rec);

  /* removing the agent */
  CHECK_INT(bt_view_remove_agent(v, rec), BT_OK);
  CHECK_INT(bt_view_remove_agent(v, rec), BT_EINVAL);
  free(get(port, "/api/agents/12", 404));
  CHECK_INT(bt_view_frame(v, 8), BT_OK);

  bt_view_stats vs;
  bt_view_stats_get(v, &vs);
  CHECK_INT(vs.frames, 8);
  CHECK(vs.requests >= 20);
  CHECK_INT(vs.refused, 0);
  bt_view_free(v);
  bt_inst_free(in);
  bt_rec_free(rec);
  bt_stats_free(st);
}

/* ---- who may ask ---- */

static void test_security(void) {
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  int port = bt_view_port(v);
  char host[64], origin[80], *body = NULL;

  /* a DNS rebinding: the browser sends the attacker's name */
  snprintf(host, sizeof host, "evil.example:%d", port);
  CHECK_INT(http_get_as(port, "/api/agents", host, NULL, &body), 403);
  CHECK(contains(body, "Host"));
  free(body);
  CHECK_INT(http_get_as(port, "/", host, NULL, NULL), 403);
  CHECK_INT(http_get_as(port, "/api/info", "", NULL, NULL), 403); /* no Host */
  snprintf(host, sizeof host, "localhost:%d", port);
  CHECK_INT(http_get_as(port, "/api/info", host, NULL, NULL), 200);
  CHECK_INT(http_get_as(port, "/api/info", "127.0.0.1", NULL, NULL), 200);
  snprintf(host, sizeof host, "127.0.0.1:%d", port + 1); /* another port's name */
  CHECK_INT(http_get_as(port, "/api/info", host, NULL, NULL), 403);

  /* another site's page */
  CHECK_INT(http_get_as(port, "/api/agents", NULL, "Origin: http://evil.example\r\n", &body), 403);
  CHECK(contains(body, "Origin"));
  free(body);
  CHECK_INT(http_get_as(port, "/api/agents", NULL, "Origin: null\r\n", NULL), 403);
  snprintf(origin, sizeof origin, "Origin: https://127.0.0.1:%d\r\n", port);
  CHECK_INT(http_get_as(port, "/api/agents", NULL, origin, NULL), 403);
  CHECK_INT(http_get_as(port, "/api/agents", NULL, "Origin: http://127.0.0.1\r\n", NULL), 403);
  snprintf(origin, sizeof origin, "Origin: http://127.0.0.1:%d\r\n", port);
  CHECK_INT(http_get_as(port, "/api/agents", NULL, origin, NULL), 200);

  /* the stream's upgrade too */
  int status;
  snprintf(host, sizeof host, "evil.example:%d", port);
  CHECK_INT(ws_open(port, "/api/stream", host, NULL, 0, &status), -1);
  CHECK_INT(status, 403);
  CHECK_INT(ws_open(port, "/api/stream", NULL, "http://evil.example", 0, &status), -1);
  CHECK_INT(status, 403);
  snprintf(origin, sizeof origin, "http://localhost:%d", port);
  int fd = ws_open(port, "/api/stream", NULL, origin, 0, &status);
  CHECK_INT(status, 101);
  if (fd >= 0) close(fd);
  bt_view_stats vs;
  bt_view_stats_get(v, &vs);
  CHECK_INT(vs.refused, 10);
  bt_view_free(v);

  /* a token */
  bt_view_options o;
  bt_view_options_init(&o);
  o.token = "s3cret-Token";
  CHECK_INT(bt_view_create(&v, &o, NULL, 0), BT_OK);
  if (!v) return;
  port = bt_view_port(v);
  char url[96];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/?token=s3cret-Token", port);
  CHECK_STR(bt_view_url(v), url);
  CHECK_INT(http_get(port, "/api/info", &body), 403);
  CHECK(contains(body, "token"));
  free(body);
  CHECK_INT(http_get(port, "/", NULL), 200); /* the page's files are the same for everyone */
  CHECK_INT(http_get(port, "/api", NULL), 403);
  CHECK_INT(http_get(port, "/api/agents", NULL), 403);
  CHECK_INT(http_get(port, "/apinotes.js", NULL), 404); /* a page file's name, not the data */
  CHECK_INT(http_get(port, "/api/info?token=wrong", NULL), 403);
  CHECK_INT(http_get(port, "/api/info?token=s3cret-Tok", NULL), 403);
  CHECK_INT(http_get(port, "/api/info?token=s3cret-Token", &body), 200);
  CHECK(contains(body, "\"token\":true"));
  free(body);
  CHECK_INT(http_get(port, "/?token=s3cret-Token", NULL), 200);
  CHECK_INT(http_get_as(port, "/api/info", NULL, "Authorization: Bearer s3cret-Token\r\n", NULL), 200);
  CHECK_INT(http_get_as(port, "/api/info", NULL, "Authorization: Bearer nope\r\n", NULL), 403);
  CHECK_INT(ws_open(port, "/api/stream", NULL, NULL, 0, &status), -1);
  CHECK_INT(status, 403);
  fd = ws_open(port, "/api/stream?token=s3cret-Token", NULL, NULL, 0, &status);
  CHECK_INT(status, 101);
  if (fd >= 0) close(fd);
  bt_view_free(v);

  /* options refused */
  char err[256];
  bt_view_options_init(&o);
  o.address = "0.0.0.0";
  v = (bt_view *)1;
  CHECK_INT(bt_view_create(&v, &o, err, sizeof err), BT_EINVAL);
  CHECK(v == NULL);
  CHECK(contains(err, "token is required"));
  bt_view_options_init(&o);
  o.port = 70000;
  CHECK_INT(bt_view_create(&v, &o, err, sizeof err), BT_EINVAL);
  CHECK(contains(err, "port 70000"));
  o.port = 0;
  o.address = "127.0.0.1 evil";
  CHECK_INT(bt_view_create(&v, &o, err, sizeof err), BT_EINVAL);
  o.address = NULL;
  o.token = "has space";
  CHECK_INT(bt_view_create(&v, &o, err, sizeof err), BT_EINVAL);
  CHECK(contains(err, "token"));
  CHECK_INT(bt_view_create(NULL, NULL, err, sizeof err), BT_EINVAL);
  /* a port taken */
  bt_view *a = NULL;
  CHECK_INT(bt_view_create(&a, NULL, NULL, 0), BT_OK);
  if (a) {
    bt_view_options_init(&o);
    o.port = bt_view_port(a);
    CHECK_INT(bt_view_create(&v, &o, err, sizeof err), BT_EIO);
    CHECK(contains(err, "cannot listen"));
    bt_view_free(a);
  }
  CHECK_INT(bt_view_frame(NULL, 1), BT_EINVAL);
  CHECK_INT(bt_view_add_agent(NULL, NULL, NULL), BT_EINVAL);
  bt_view_free(NULL);
  CHECK_INT(bt_view_port(NULL), -1);
}

/* ---- the stream ---- */

/* reads frames until one contains `what` (bounded); returns it (malloc'd) or NULL */
static char *ws_until(int fd, const char *what) {
  for (int i = 0; i < 200000; i++) { /* a slow client's kernel buffers may hold many */
    char *msg;
    int op = ws_recv(fd, &msg, 20000);
    if (op < 0) return NULL;
    if (msg && strstr(msg, what)) return msg;
    free(msg);
  }
  return NULL;
}

static void test_stream(void) {
  bt_inst *in = wolf_tree();
  bt_rec *rec = record(in, 12, "wolf 12", 1024);
  bt_inst *in2 = wolf_tree();
  bt_rec *rec2 = record(in2, 13, "wolf 13", 1024);
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  int port = bt_view_port(v);
  CHECK_INT(bt_view_add_agent(v, rec, "wolf"), BT_OK);
  CHECK_INT(bt_view_add_agent(v, rec2, "wolf"), BT_OK);
  int status;
  int fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  CHECK_INT(status, 101);
  if (fd < 0) return;
  char *msg = ws_until(fd, "\"type\":\"hello\"");
  CHECK(contains(msg, "\"mode\":\"live\""));
  free(msg);

  ws_send_text(fd, "{\"subscribe\": [12]}");
  /* the subscription is taken on the server's thread: frames until records come */
  char *records = NULL;
  double t = 1;
  for (int i = 0; i < 200 && !records; i++) {
    SEE.result = i % 2;
    think(in, t);
    think(in2, t);
    bt_view_frame(v, t);
    t += 1;
    for (;;) {
      char *m;
      if (!client_wait(fd, 50) || ws_recv(fd, &m, 20000) < 0) break;
      if (strstr(m, "\"type\":\"records\"")) {
        records = m;
        break;
      }
      free(m);
    }
  }
  CHECK(contains(records, "\"agent\":12"));
  CHECK(records && !strstr(records, "\"agent\":13"));
  free(records);
  /* a frame's counts name both agents; records come for 12 only, in seq order with no gap */
  SEE.result = 1;
  think(in, t);
  think(in2, t);
  bt_view_frame(v, t);
  msg = ws_until(fd, "\"type\":\"frame\"");
  CHECK(contains(msg, "\"13\":"));
  free(msg);

  /* malformed messages: an error each, the stream goes on */
  const char *bad[] = {"not json", "{\"subscribe\": [-1]}", "{\"subscribe\": [1.5]}", "{\"subscribe\": 12}",
                       "{\"watch\": [12]}", "{\"subscribe\": [12]} x", "{\"subscribe\": [12], \"x\": 1}", "",
                       "{\"subscribe\": [99999999999999999999999]}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ws_send_text(fd, bad[i]);
    msg = ws_until(fd, "\"type\":\"error\"");
    CHECK(msg != NULL);
    free(msg);
  }
  ws_send_frame(fd, 2, 1, "\x01\x02", 2, 0); /* binary */
  msg = ws_until(fd, "\"type\":\"error\"");
  CHECK(contains(msg, "binary"));
  free(msg);
  /* more than 64 agents */
  char big[2048] = "{\"subscribe\":[";
  for (int i = 0; i < 65; i++) snprintf(big + strlen(big), sizeof big - strlen(big), i ? ",%d" : "%d", i);
  strcat(big, "]}");
  ws_send_text(fd, big);
  msg = ws_until(fd, "\"type\":\"error\"");
  CHECK(contains(msg, "at most 64"));
  free(msg);

  /* unsubscribing: records stop; subscribing to 13 instead */
  ws_send_text(fd, "{\"unsubscribe\": [12]}");
  ws_send_text(fd, "{\"subscribe\": [13]}");
  records = NULL;
  for (int i = 0; i < 200 && !records; i++) {
    SEE.result = i % 2;
    think(in, t);
    think(in2, t);
    bt_view_frame(v, t);
    t += 1;
    for (;;) {
      char *m;
      if (!client_wait(fd, 50) || ws_recv(fd, &m, 20000) < 0) break;
      if (strstr(m, "\"type\":\"records\",\"agent\":13")) {
        records = m;
        break;
      }
      free(m);
    }
  }
  CHECK(records != NULL);
  free(records);

  /* an agent added: {"type":"agents"} */
  bt_inst *in3 = wolf_tree();
  bt_rec *rec3 = record(in3, 14, "wolf 14", 64);
  CHECK_INT(bt_view_add_agent(v, rec3, "wolf"), BT_OK);
  bt_view_frame(v, t++);
  msg = ws_until(fd, "\"type\":\"agents\"");
  CHECK(msg != NULL);
  free(msg);
  /* a close frame: the server closes the stream */
  ws_send_frame(fd, 8, 1, "", 0, 0);
  close(fd);
  bt_view_free(v);
  bt_inst_free(in);
  bt_inst_free(in2);
  bt_inst_free(in3);
  bt_rec_free(rec);
  bt_rec_free(rec2);
  bt_rec_free(rec3);
}

/* ---- a reload: the agent's tree changes shape ---- */

static void test_reload(void) {
  bt_inst *in = wolf_tree();
  bt_rec *rec = record(in, 31, "wolf 31", 1024);
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  int port = bt_view_port(v);
  CHECK_INT(bt_view_add_agent(v, rec, "wolf"), BT_OK);
  int status;
  int fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  CHECK_INT(status, 101);
  free(ws_until(fd, "\"type\":\"hello\""));
  SEE.result = 1;
  think(in, 1);
  CHECK_INT(bt_view_frame(v, 1), BT_OK);
  unsigned long long before = bt_rec_total(rec);

  /* the new tree: Idle has a sibling, Rest */
  static leaf REST = LEAF("Rest", BT_RUNNING);
  bt_graph *g = new_graph();
  int see = add_fn(g, BT_CONDITION, &SEE, "See"), attack = add_leaf(g, &ATTACK), idle = add_leaf(g, &IDLE);
  int rest = add_leaf(g, &REST);
  int chase = add_node(g, BT_PARALLEL, "Chase", 0, 0);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, chase, 2, see, attack);
  set_kids(g, root, 3, chase, idle, rest);
  bt_inst *in2 = build(g, root, 0);
  int map[16];
  bt_def_match(bt_inst_def(in), bt_inst_def(in2), map);
  REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK); /* the recorder moves to the new tree */
  REQUIRE(bt_inst_set_recorder(in2, rec) == BT_OK);
  REQUIRE(bt_inst_transfer(in2, in, map, NULL) == BT_OK);
  think(in2, 2);
  CHECK_INT(bt_view_frame(v, 2), BT_OK);
  char shape[64], want[256], path[128];
  snprintf(shape, sizeof shape, "\"shape\":\"%016llx\"", bt_def_hash(bt_inst_def(in2)));
  char *msg = ws_until(fd, "\"type\":\"reload\"");
  CHECK(contains(msg, "\"agent\":31"));
  CHECK(contains(msg, shape));
  free(msg);
  char *body = get(port, "/api/agents/31", 200);
  CHECK(contains(body, shape));
  statuses_json(in2, want, sizeof want);
  CHECK(contains(body, want));
  free(body);
  /* the history: the reload record, and the statuses before a window after it have 6 nodes */
  body = get(port, "/api/agents/31/history?count=2000", 200);
  snprintf(want, sizeof want, "{\"seq\":%llu,\"type\":\"reload\",", before + 1);
  CHECK(contains(body, want));
  snprintf(want, sizeof want, "\"from_shape\":\"%016llx\",%s", bt_def_hash(bt_inst_def(in)), shape);
  CHECK(contains(body, want));
  free(body);
  snprintf(path, sizeof path, "/api/agents/31/history?before=%llu&count=1", bt_rec_total(rec));
  body = get(port, path, 200);
  CHECK(body && strstr(body, "\"statuses_before\":[") &&
        strchr(strstr(body, "\"statuses_before\":["), ']') - strstr(body, "\"statuses_before\":[") ==
            (long)strlen("\"statuses_before\":[0,0,0,0,0,0"));
  snprintf(want, sizeof want, "\"shape_before\":\"%016llx\"", bt_def_hash(bt_inst_def(in2)));
  CHECK(contains(body, want));
  free(body);
  /* the new shape is served */
  snprintf(path, sizeof path, "/api/shapes/%016llx", bt_def_hash(bt_inst_def(in2)));
  body = get(port, path, 200);
  CHECK(contains(body, "{\"name\":\"Rest\",\"kind\":\"BehaviourNode\",\"parent\":0,"));
  free(body);
  close(fd);
  bt_view_free(v);
  bt_inst_free(in);
  bt_inst_free(in2);
  bt_rec_free(rec);
}

/* ---- many clients, slow clients, clients that go ---- */

#define HERD 40

typedef struct asker {
  int port, ok, failed;
} asker;

static void *ask_often(void *arg) {
  asker *a = arg;
  const char *paths[] = {"/api/agents", "/api/info", "/api/agents/1", "/api/agents/1/history?count=50", "/"};
  for (int i = 0; i < 25; i++) {
    int s = http_get(a->port, paths[i % 5], NULL);
    if (s == 200) a->ok++;
    else a->failed++;
  }
  return NULL;
}

/* A subscription has no reply: it takes effect when the server has read it, at some frame the
 * client cannot tell in advance (under load, a hundred frames after it was sent). Frames go on
 * until `fd` receives the records of an agent it subscribed to, read as they come; then the
 * client may stop reading, its subscription in effect. 1 when the records came. */
static int until_subscribed(bt_view *v, int fd, bt_inst **ins, int n, double *t) {
  for (int frames = 0; frames < 2000; frames++) {
    for (int i = 0; i < n; i++) think(ins[i], *t);
    CHECK_INT(bt_view_frame(v, *t), BT_OK);
    *t += 0.5;
    char *m;
    int got = 0;
    while (client_wait(fd, frames < 20 ? 0 : 10) && ws_recv(fd, &m, 20000) >= 0) {
      got |= m && strstr(m, "\"type\":\"records\"") != NULL;
      free(m);
      if (got) return 1;
    }
  }
  fprintf(stderr, "no records came to a subscribed stream\n");
  return 0;
}

static void test_clients(void) {
  bt_inst *ins[HERD];
  bt_rec *recs[HERD];
  bt_view_options o;
  bt_view_options_init(&o);
  o.threads = 32;
  o.history = 256;
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, &o, NULL, 0), BT_OK);
  if (!v) return;
  int port = bt_view_port(v);
  for (int i = 0; i < HERD; i++) {
    char label[32];
    snprintf(label, sizeof label, "wolf %d", i + 1);
    ins[i] = wolf_tree();
    recs[i] = record(ins[i], (unsigned long long)i + 1, label, 64);
    CHECK_INT(bt_view_add_agent(v, recs[i], "wolf"), BT_OK);
  }
  /* a client that never reads, with a small receive buffer, subscribed to every agent */
  int status;
  int slow = ws_open(port, "/api/stream", NULL, NULL, 4096, &status);
  CHECK_INT(status, 101);
  char sub[1024] = "{\"subscribe\":[";
  for (int i = 0; i < HERD; i++) snprintf(sub + strlen(sub), sizeof sub - strlen(sub), i ? ",%d" : "%d", i + 1);
  strcat(sub, "]}");
  ws_send_text(slow, sub);
  double t = 1;
  CHECK(until_subscribed(v, slow, ins, HERD, &t)); /* from here on it reads nothing */
  /* readers: several streams read everything */
  int readers[8];
  for (int i = 0; i < 8; i++) {
    readers[i] = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
    CHECK_INT(status, 101);
    ws_send_text(readers[i], "{\"subscribe\":[1,2,3]}");
  }
  /* a stream that closes mid-stream, without a close frame */
  int goner = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  ws_send_text(goner, sub);
  CHECK(until_subscribed(v, goner, ins, HERD, &t));
  /* requests from several threads while frames go on */
  pthread_t th[4];
  asker ask[4];
  for (int i = 0; i < 4; i++) {
    ask[i] = (asker){port, 0, 0};
    pthread_create(&th[i], NULL, ask_often, &ask[i]);
  }
  /* frames until the slow client's queue overflows: bt_view_frame keeps returning meanwhile */
  bt_view_stats vs;
  bt_view_stats_get(v, &vs);
  int frames = 0;
  unsigned long long lost = 0; /* messages lost in the last frame */
  for (; frames < 20000; frames++) {
    unsigned long long before = vs.dropped;
    SEE.result = frames % 2;
    for (int i = 0; i < HERD; i++) think(ins[i], t);
    CHECK_INT(bt_view_frame(v, t), BT_OK);
    t += 0.5;
    if (frames == 20 && goner >= 0) {
      close(goner);
      goner = -1;
    }
    for (int i = 0; i < 8; i++) { /* the readers read what has come */
      char *m;
      while (client_wait(readers[i], 0) && ws_recv(readers[i], &m, 20000) >= 0) free(m);
    }
    bt_view_stats_get(v, &vs);
    /* the slow client's socket and queue are full once it loses a whole frame's messages (41:
     * the frame and its 40 agents; a reader has 4 a frame to lose, and the closed stream is gone
     * once there are 9 streams) */
    lost = vs.dropped - before;
    if (frames > 40 && vs.clients == 9 && lost >= HERD + 1) break;
  }
  CHECK(lost >= HERD + 1);
  /* and more frames with its socket full: they return, the drops go on (the drops counted so
   * far may be the readers', slowed down by the machine: the slow client's own queue fills within
   * a few hundred frames) */
  unsigned long long dropped = vs.dropped;
  for (int k = 0; k < 5000 && vs.dropped <= dropped; k++) {
    for (int i = 0; i < HERD; i++) think(ins[i], t);
    CHECK_INT(bt_view_frame(v, t), BT_OK);
    t += 0.5;
    for (int i = 0; i < 8; i++) {
      char *m;
      while (client_wait(readers[i], 0) && ws_recv(readers[i], &m, 20000) >= 0) free(m);
    }
    bt_view_stats_get(v, &vs);
  }
  CHECK(vs.dropped > dropped);
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK_INT(ask[i].failed, 0);
    CHECK_INT(ask[i].ok, 25);
  }
  /* the slow client reads at last: it is told what it lost */
  char *msg = ws_until(slow, "\"type\":\"dropped\"");
  CHECK(contains(msg, "\"records\":"));
  free(msg);
  /* the readers read what is left (they may have lost some, slowed down as under valgrind), then
   * get the next frame */
  for (int i = 0; i < 8; i++) {
    char *m;
    while (client_wait(readers[i], 300) && ws_recv(readers[i], &m, 20000) >= 0) free(m);
  }
  bt_view_frame(v, t);
  bt_view_stats_get(v, &vs);
  char last[64];
  snprintf(last, sizeof last, "\"frame\":%llu,", vs.frames);
  for (int i = 0; i < 8; i++) {
    msg = ws_until(readers[i], last);
    CHECK(msg != NULL);
    free(msg);
  }
  /* the closed client is gone: 9 streams stay (bounded wait for the server to notice) */
  for (int i = 0; i < 2000; i++) {
    bt_view_stats_get(v, &vs);
    if (vs.clients == 9) break;
    bt_view_frame(v, t);
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
  CHECK_INT(vs.clients, 9);
  close(slow);
  for (int i = 0; i < 8; i++) close(readers[i]);
  bt_view_free(v);
  for (int i = 0; i < HERD; i++) {
    bt_inst_free(ins[i]);
    bt_rec_free(recs[i]);
  }
}

/* ---- malformed requests and frames ---- */

static void test_malformed(void) {
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  int port = bt_view_port(v);
  char host[64];
  snprintf(host, sizeof host, "Host: 127.0.0.1:%d\r\n", port);
  const char *garbage[] = {"HELLO\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\x01\x02\x03\r\n\r\n",
                           "GET /api/info HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"};
  for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
    int s = http_raw(port, garbage[i], strlen(garbage[i]), NULL);
    CHECK(s != 200);
  }
  char req[40000];
  /* a POST, a huge header, a request cut short */
  int n = snprintf(req, sizeof req, "POST /api/info HTTP/1.1\r\n%sContent-Length: 3\r\nConnection: close\r\n\r\nabc", host);
  CHECK_INT(http_raw(port, req, (size_t)n, NULL), 400);
  n = snprintf(req, sizeof req, "GET /api/info HTTP/1.1\r\n%sX-Big: ", host);
  memset(req + n, 'a', 30000); /* past civetweb's max_request_size, 16 KiB */
  n += 30000;
  n += snprintf(req + n, sizeof req - (size_t)n, "\r\nConnection: close\r\n\r\n");
  CHECK(http_raw(port, req, (size_t)n, NULL) != 200);
  int fd = client_connect(port, 0);
  client_send_all(fd, "GET /api/in", 11);
  close(fd);
  /* frames: a huge length, unmasked, a fragment, a close right after */
  int status;
  fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  CHECK_INT(status, 101);
  unsigned char huge[] = {0x81, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4};
  client_send_all(fd, huge, sizeof huge);
  close(fd);
  fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  ws_send_frame(fd, 1, 1, "{\"subscribe\":[1]}", 17, 1);
  ws_send_frame(fd, 1, 0, "{\"subscr", 8, 0);
  char *msg = ws_until(fd, "\"type\":\"error\"");
  CHECK(msg != NULL);
  free(msg);
  close(fd);
  /* still answering */
  CHECK_INT(http_get(port, "/api/info", NULL), 200);
  bt_view_free(v);
}

/* ---- a log file ---- */

static void test_log(void) {
  char path[] = "/tmp/bt_view_test_XXXXXX";
  int tmp = mkstemp(path);
  REQUIRE(tmp >= 0);
  close(tmp);
  bt_log *log = NULL;
  REQUIRE(bt_log_create(&log, path, 0, NULL, 0) == BT_OK);
  bt_inst *in = wolf_tree();
  bt_rec *rec = record(in, 21, "wolf 21", 4096);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
  /* enough thinks that the oldest records are past the index's tail (512 an agent): windows are
   * read from the file there, from memory near the end */
  for (int i = 0; i < 300; i++) {
    SEE.result = (i / 2) % 2 == 0;
    think(in, 10 + i * 0.6); /* past Root's period: each think evaluates */
    double s;
    bt_inst_sleep_time(in, &s);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  unsigned long long total = bt_rec_total(rec);
  bt_rec_set_log(rec, NULL);
  REQUIRE(bt_log_free(log) == BT_OK);

  bt_view *v = NULL;
  char err[256] = "";
  CHECK_INT(bt_view_create_log(&v, path, NULL, err, sizeof err), BT_OK);
  if (!v) {
    fprintf(stderr, "bt_view_create_log: %s\n", err);
    return;
  }
  int port = bt_view_port(v);
  char *body = get(port, "/api/info", 200);
  CHECK(contains(body, "\"mode\":\"log\""));
  CHECK(contains(body, "\"agents\":1"));
  CHECK(contains(body, "\"first_time\":10"));
  CHECK_NUM(json_num(body, "last_time", -1), 10 + 299 * 0.6);
  free(body);
  body = get(port, "/api/agents", 200);
  CHECK(contains(body, "\"id\":21,\"label\":\"wolf 21\",\"brain\":\"Root\""));
  CHECK(contains(body, "\"running\":[\"Root\",\"Idle\"]"));
  CHECK_INT((long long)json_num(body, "seq", -1), (long long)total);
  free(body);
  char want[512], path2[128];
  body = get(port, "/api/agents/21", 200);
  statuses_json(in, want, sizeof want);
  CHECK(contains(body, want));
  free(body);
  /* the whole history, and a window: the same records as the ring's, the same statuses before */
  body = get(port, "/api/agents/21/history?count=2000", 200);
  bt_rec_entry e;
  char one[256];
  for (size_t i = 0; i < bt_rec_count(rec); i++) {
    REQUIRE(bt_rec_get(rec, i, &e) == BT_OK);
    if (e.type != BT_REC_STATUS) continue;
    status_record_json(i + 1, &e, one, sizeof one);
    CHECK(contains(body, one));
  }
  free(body);
  CHECK(total > 700);
  unsigned long long befores[] = {total - 5, total - 400, total - 600, 40, 5};
  for (int w = 0; w < 5 && total > 700; w++) {
    unsigned long long before = befores[w];
    snprintf(path2, sizeof path2, "/api/agents/21/history?before=%llu&count=3", before);
    body = get(port, path2, 200);
    unsigned char st_before[5] = {0};
    for (unsigned long long s = 1; s < before - 3; s++) {
      REQUIRE(bt_rec_get(rec, (size_t)(s - 1), &e) == BT_OK);
      if (e.type == BT_REC_STATUS) st_before[e.node] = e.to;
    }
    snprintf(want, sizeof want, "\"statuses_before\":[%d,%d,%d,%d,%d]", st_before[0], st_before[1], st_before[2],
             st_before[3], st_before[4]);
    CHECK(contains(body, want));
    for (unsigned long long s = before - 3; s < before; s++) {
      REQUIRE(bt_rec_get(rec, (size_t)(s - 1), &e) == BT_OK);
      if (e.type == BT_REC_STATUS) snprintf(want, sizeof want, "{\"seq\":%llu,\"type\":\"status\",", s);
      else snprintf(want, sizeof want, "{\"seq\":%llu,\"type\":\"think\",", s);
      CHECK(contains(body, want));
    }
    snprintf(want, sizeof want, "{\"seq\":%llu,", before);
    CHECK(strstr(body, want) == NULL);
    free(body);
  }
  /* the shape, with its params; the stats as bt_stats counts the same records */
  snprintf(path2, sizeof path2, "/api/shapes/%016llx", bt_def_hash(bt_inst_def(in)));
  body = get(port, path2, 200);
  CHECK(contains(body, "{\"name\":\"Root\",\"kind\":\"PriorityNode\",\"parent\":-1,\"children\":[1,4],\"param\":0.5"));
  free(body);
  body = get(port, "/api/agents/21/stats", 200);
  bt_stats *st = NULL;
  REQUIRE(bt_stats_create(&st) == BT_OK);
  for (size_t i = 0; i < bt_rec_count(rec); i++) {
    REQUIRE(bt_rec_get(rec, i, &e) == BT_OK);
    bt_stats_add(st, 21, bt_def_hash(bt_inst_def(in)), 5, &e);
  }
  for (int n = 0; n < 5; n++) {
    bt_stats_node row;
    REQUIRE(bt_stats_node_get(st, bt_def_hash(bt_inst_def(in)), n, &row) == BT_OK);
    snprintf(want, sizeof want, "{\"node\":%d,\"visits\":%llu,\"successes\":%llu,\"failures\":%llu,\"aborts\":%llu,\"runs\":%llu,",
             n, row.visits, row.successes, row.failures, row.aborts, row.runs);
    CHECK(contains(body, want));
  }
  bt_stats_free(st);
  free(body);
  free(get(port, "/api/agents/22", 404));
  /* the stream: a hello and a frame */
  int status;
  int fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
  CHECK_INT(status, 101);
  char *msg = ws_until(fd, "\"type\":\"frame\"");
  CHECK(msg != NULL);
  free(msg);
  close(fd);
  CHECK_INT(bt_view_frame(v, 1), BT_EINVAL);
  CHECK_INT(bt_view_add_agent(v, rec, "x"), BT_EINVAL);
  bt_view_free(v);

  /* not a log */
  FILE *f = fopen(path, "wb");
  fputs("not a log at all, just text", f);
  fclose(f);
  CHECK(bt_view_create_log(&v, path, NULL, err, sizeof err) == BT_EFORMAT);
  CHECK(v == NULL);
  remove(path);
  CHECK_INT(bt_view_create_log(&v, path, NULL, err, sizeof err), BT_EIO);
  bt_inst_free(in);
  bt_rec_free(rec);
}

/* ---- a log's last records, answered from memory as from the file ---- */

/* the record object of seq in a history's JSON ("{\"seq\":S,...}": its texts hold no brace), into
 * out; 0 when it is not there */
static int record_object(const char *body, unsigned long long seq, char *out, size_t size) {
  char head[48];
  snprintf(head, sizeof head, "{\"seq\":%llu,", seq);
  const char *p = body ? strstr(body, head) : NULL;
  const char *end = p ? strchr(p, '}') : NULL;
  if (!end || (size_t)(end - p) + 2 > size) return 0;
  memcpy(out, p, (size_t)(end - p) + 1);
  out[end - p + 1] = 0;
  return 1;
}

/* The log source keeps an agent's last records in memory (bt's ring of records), and answers a
 * window among them that starts after the last reload from there, one that starts before it from
 * the file: the same records give the same JSON both ways, byte for byte, for records the ring
 * does not keep in its 16 bytes: sleep times a float cannot hold (the log keeps them as doubles),
 * a host's bytes (a NUL, bytes that are not UTF-8), a reload. */
static void test_log_tail(void) {
  char path[] = "/tmp/bt_view_tail_XXXXXX";
  int tmp = mkstemp(path);
  REQUIRE(tmp >= 0);
  close(tmp);
  bt_log *log = NULL;
  REQUIRE(bt_log_create(&log, path, 0, NULL, 0) == BT_OK);
  bt_inst *in = wolf_tree(), *in2 = wolf_tree();
  bt_rec *rec = record(in, 41, "wolf 41", 64);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
  static const char bytes[] = "a\0\xfe\x01z";
  double t = 10;
  ATTACK.sleep = 0.1; /* sleep times of a double's digits, not a float's */
  IDLE.sleep = 1.0 / 3;
  for (int i = 0; i < 80; i++) {
    SEE.result = (i / 3) % 2 == 0;
    think(in, t += 0.37);
    if (i % 9 == 0) REQUIRE(bt_inst_record_host(in, 7 + i, bytes, sizeof bytes - 1) == BT_OK);
  }
  int map[16];
  bt_def_match(bt_inst_def(in), bt_inst_def(in2), map);
  REQUIRE(bt_inst_set_recorder(in, NULL) == BT_OK); /* the recorder moves to the new instance */
  REQUIRE(bt_inst_set_recorder(in2, rec) == BT_OK);
  unsigned long long reload = bt_rec_total(rec) + 1; /* the reload's seq */
  REQUIRE(bt_inst_transfer(in2, in, map, NULL) == BT_OK);
  for (int i = 0; i < 60; i++) {
    SEE.result = (i / 4) % 2 == 1;
    think(in2, t += 0.37);
    if (i % 7 == 0) REQUIRE(bt_inst_record_host(in2, 100 + i, bytes, sizeof bytes - 1) == BT_OK);
  }
  ATTACK.sleep = IDLE.sleep = -1;
  unsigned long long total = bt_rec_total(rec);
  REQUIRE(total - reload < 500); /* all in the index's tail */
  bt_rec_set_log(rec, NULL);
  REQUIRE(bt_log_free(log) == BT_OK);

  /* the test means something: the log holds, after the reload, sleep times a float cannot hold */
  bt_log_reader *r = NULL;
  REQUIRE(bt_log_reader_create_file(&r, path, NULL, 0) == BT_OK);
  bt_log_record lr;
  unsigned long long seq = 0;
  int doubles = 0;
  while (bt_log_read(r, &lr) == 1) {
    int type = lr.entry.type;
    if (lr.agent_index < 0 || !((type >= BT_REC_STATUS && type <= BT_REC_HOST) || type == BT_LOG_LOST)) continue;
    seq++;
    doubles += seq > reload && type == BT_REC_THINK && lr.entry.has_sleep &&
               (double)(float)lr.entry.sleep != lr.entry.sleep;
  }
  bt_log_reader_free(r);
  CHECK_INT(seq, total);
  CHECK(doubles > 0);

  bt_view *v = NULL;
  CHECK_INT(bt_view_create_log(&v, path, NULL, NULL, 0), BT_OK);
  if (v) {
    int port = bt_view_port(v);
    char q[128], one[512], other[512];
    snprintf(q, sizeof q, "/api/agents/41/history?count=%llu", total - reload);
    char *memory = get(port, q, 200); /* from the record after the reload: from memory */
    snprintf(q, sizeof q, "/api/agents/41/history?count=%llu", total - reload + 5);
    char *file = get(port, q, 200); /* from before the reload: read from the file */
    int same = 1, hosts = 0, thinks = 0;
    for (unsigned long long s = reload + 1; s <= total; s++) {
      int found = record_object(memory, s, one, sizeof one) && record_object(file, s, other, sizeof other);
      CHECK(found);
      if (!found) break;
      if (strcmp(one, other) != 0) {
        fprintf(stderr, "seq %llu: from memory %s, from the file %s\n", s, one, other);
        same = 0;
      }
      hosts += strstr(one, "\"type\":\"host\"") != NULL;
      thinks += strstr(one, "\"type\":\"think\"") != NULL;
    }
    CHECK(same);
    CHECK(hosts > 5);
    CHECK(thinks > 50);
    CHECK(record_object(file, reload, one, sizeof one) && contains(one, "\"type\":\"reload\""));
    free(memory);
    free(file);
    bt_view_free(v);
  }
  remove(path);
  bt_inst_free(in);
  bt_inst_free(in2);
  bt_rec_free(rec);
}

/* ---- records a recorder's ring lost before a frame copied them ---- */

/* a ring of 4 records and a frame after many thinks: the history says how many were lost, in a
 * "lost" record of its own before the 4 kept (the log's BT_LOG_LOST, as a log view says it) */
static void test_lost(void) {
  bt_inst *in = wolf_tree();
  bt_rec *rec = record(in, 51, "wolf 51", 4);
  bt_view *v = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  CHECK_INT(bt_view_add_agent(v, rec, "wolf"), BT_OK);
  for (int i = 0; i < 12; i++) {
    SEE.result = i % 2;
    think(in, 1 + i * 0.6);
  }
  CHECK_INT(bt_view_frame(v, 9), BT_OK);
  unsigned long long total = bt_rec_total(rec);
  REQUIRE(total > 4);
  char *body = get(bt_view_port(v), "/api/agents/51/history?count=100", 200);
  char want[128];
  snprintf(want, sizeof want, "\"records\":[{\"seq\":1,\"type\":\"lost\",\"time\":9,\"think\":0,\"count\":%llu},",
           total - 4);
  CHECK(contains(body, want));
  CHECK(contains(body, "\"newest\":5"));
  free(body);
  bt_view_free(v);
  bt_inst_free(in);
  bt_rec_free(rec);
}

/* ---- a shared node: both sources replay statuses by state ---- */

/* the statuses_before of a window's answer, as JSON ("[0,3,...]"), into out */
static void statuses_before_of(const char *body, char *out, size_t size) {
  const char *p = body ? strstr(body, "\"statuses_before\":[") : NULL;
  const char *e = p ? strchr(p, ']') : NULL;
  out[0] = 0;
  if (!p || !e) return;
  p += strlen("\"statuses_before\":");
  snprintf(out, size, "%.*s", (int)(e - p + 1), p);
}

/* Root (Priority 0.5) > [Chase = Sequence(See, Look), Idle = Sequence(Look)]: Look is one node in
 * two places (pre-order 0 Root, 1 Chase, 2 See, 3 Look, 4 Idle, 5 Look), and a status record
 * names the place that was visited. The instance keeps one status for both; a window's
 * statuses_before, live and from a log of the same records, must too: the records replayed by
 * state (bt_rec_entry_apply), as the test replays them here. */
static void test_shared(void) {
  static leaf LOOK = LEAF("Look", BT_RUNNING);
  bt_graph *g = new_graph();
  int see = add_fn(g, BT_CONDITION, &SEE, "See"), look = add_leaf(g, &LOOK);
  int chase = add_node(g, BT_SEQUENCE, "Chase", 0, 0), idle = add_node(g, BT_SEQUENCE, "Idle", 0, 0);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, chase, 2, see, look);
  set_kids(g, idle, 1, look);
  set_kids(g, root, 2, chase, idle);
  bt_inst *in = build(g, root, 0);
  const bt_def *def = bt_inst_def(in);
  REQUIRE(bt_def_size(def) == 6 && bt_def_state(def, 3) == bt_def_state(def, 5));
  char path[] = "/tmp/bt_view_shared_XXXXXX";
  int tmp = mkstemp(path);
  REQUIRE(tmp >= 0);
  close(tmp);
  bt_log *log = NULL;
  REQUIRE(bt_log_create(&log, path, 0, NULL, 0) == BT_OK);
  bt_rec *rec = record(in, 41, "watcher 41", 4096);
  REQUIRE(bt_rec_set_log(rec, log) == BT_OK);
  bt_view *v = NULL, *lv = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  CHECK_INT(bt_view_add_agent(v, rec, "watcher"), BT_OK);
  for (int i = 0; i < 24; i++) {
    SEE.result = (i / 3) % 2 == 0;
    LOOK.status = i % 5 == 4 ? BT_SUCCESS : BT_RUNNING;
    think(in, 1 + i * 0.6); /* past Root's period: each think evaluates */
    CHECK_INT(bt_view_frame(v, 1 + i * 0.6), BT_OK);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  bt_rec_set_log(rec, NULL);
  REQUIRE(bt_log_free(log) == BT_OK);
  CHECK_INT(bt_view_create_log(&lv, path, NULL, NULL, 0), BT_OK);
  if (!lv) return;

  /* the statuses before each record, replayed by state; places 3 and 5 each named by some */
  size_t count = bt_rec_count(rec);
  CHECK(count == bt_rec_total(rec) && count > 40);
  int state[6], named3 = 0, named5 = 0, bad = 0;
  for (int n = 0; n < 6; n++) state[n] = bt_def_state(def, n);
  unsigned char st[6] = {0};
  for (size_t i = 0; i <= count; i++) {
    char want[64] = "[", live[64], logged[64], url[128];
    for (int n = 0; n < 6; n++) snprintf(want + strlen(want), sizeof want - strlen(want), n ? ",%d" : "%d", st[state[n]]);
    strcat(want, "]");
    snprintf(url, sizeof url, "/api/agents/41/history?before=%zu&count=1", i + 2); /* the window: record i + 1 */
    char *body = get(bt_view_port(v), url, 200);
    statuses_before_of(body, live, sizeof live);
    free(body);
    body = get(bt_view_port(lv), url, 200);
    statuses_before_of(body, logged, sizeof logged);
    free(body);
    if (i < count && (strcmp(live, want) != 0 || strcmp(logged, want) != 0) && !bad++)
      fprintf(stderr, "before record %zu: live %s, log %s, replayed by state %s\n", i + 1, live, logged, want);
    if (i == count) break;
    bt_rec_entry e;
    REQUIRE(bt_rec_get(rec, i, &e) == BT_OK);
    named3 += e.type == BT_REC_STATUS && e.node == 3;
    named5 += e.type == BT_REC_STATUS && e.node == 5;
    CHECK_INT(bt_rec_entry_apply(&e, 6, state, st, NULL), BT_OK);
  }
  CHECK_INT(bad, 0);
  CHECK(named3 > 0 && named5 > 0);
  for (int n = 0; n < 6; n++) CHECK_INT(st[state[n]], bt_node_status(in, n)); /* all of them: the instance */
  bt_view_free(lv);
  bt_view_free(v);
  remove(path);
  bt_inst_free(in);
  bt_rec_free(rec);
}

/* the instance's blackboard as the viewer writes it: a JSON array of values (the test's values
 * print the same with %g) */
static void keys_json(bt_inst *in, char *out, size_t size) {
  const bt_def *def = bt_inst_def(in);
  size_t at = (size_t)snprintf(out, size, "[");
  for (int k = 0; k < bt_def_key_count(def) && at < size; k++) {
    bt_value v;
    bt_inst_key_get(in, k, &v);
    const char *sep = k ? "," : "";
    if (v.type == BT_KEY_NUMBER) at += (size_t)snprintf(out + at, size - at, "%s%g", sep, v.as.number);
    else if (v.type == BT_KEY_STRING) at += (size_t)snprintf(out + at, size - at, "%s\"%s\"", sep, v.as.string);
    else if (v.type == BT_KEY_BOOLEAN) at += (size_t)snprintf(out + at, size - at, "%s%s", sep, v.as.boolean ? "true" : "false");
    else if (v.type == BT_KEY_ENTITY || v.type == BT_KEY_VALUE) at += (size_t)snprintf(out + at, size - at, "%s%llu", sep, v.as.entity);
    else if (v.type == BT_KEY_INTEGER) at += (size_t)snprintf(out + at, size - at, "%s%lld", sep, v.as.integer);
    else at += (size_t)snprintf(out + at, size - at, "%snull", sep);
  }
  if (at < size) snprintf(out + at, size - at, "]");
}

/* the blackboard after each record, as the callback saw the instance */
#define BOARD_RECORDS 256
static char BOARD_AFTER[BOARD_RECORDS][256];
static int board_seen;
static bt_inst *board_inst;
static void board_record(void *ud, const bt_rec_entry *e) {
  (void)ud, (void)e;
  if (board_seen < BOARD_RECORDS) keys_json(board_inst, BOARD_AFTER[board_seen++], sizeof BOARD_AFTER[0]);
}

/* the keys_before of a window's answer ("[...]" or "null"), into out */
static void keys_before_of(const char *body, char *out, size_t size) {
  const char *p = body ? strstr(body, "\"keys_before\":") : NULL;
  out[0] = 0;
  if (!p) return;
  p += strlen("\"keys_before\":");
  const char *e = *p == '[' ? strchr(p, ']') : p + 3;
  if (e) snprintf(out, size, "%.*s", (int)(e - p + 1), p);
}

/* An agent with a blackboard (harness.h's board tree), live and from a log of the same records:
 * the shape names its keys and ports, the agent's answer has its values now, and a window's
 * keys_before is, before each record, the blackboard the callback saw after the one before
 * (the values now undone, live and from the log's tail; replayed, from the log's file). */
static void test_board(void) {
  leaf hunt = LEAF("Hunt", BT_RUNNING), sleep = LEAF("Sleep", BT_RUNNING), wander = LEAF("Wander", BT_RUNNING);
  bt_def *def = board_def(&hunt, &sleep, &wander);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  board_inst = in;
  REQUIRE(set_key(in, KEY_MOOD, str_value("calm")) == BT_OK); /* before the recorder */
  char path[] = "/tmp/bt_view_board_XXXXXX";
  int tmp = mkstemp(path);
  REQUIRE(tmp >= 0);
  close(tmp);
  bt_log *log = NULL;
  REQUIRE(bt_log_create(&log, path, 0, NULL, 0) == BT_OK);
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, 4096) == BT_OK && bt_rec_set_agent(r, 51, "fox 51") == BT_OK);
  REQUIRE(bt_rec_set_log(r, log) == BT_OK);
  bt_rec_set_callback(r, board_record, NULL);
  board_seen = 0;
  char initial[256];
  keys_json(in, initial, sizeof initial);
  REQUIRE(bt_inst_set_recorder(in, r) == BT_OK);
  bt_view *v = NULL, *lv = NULL;
  CHECK_INT(bt_view_create(&v, NULL, NULL, 0), BT_OK);
  if (!v) return;
  CHECK_INT(bt_view_add_agent(v, r, "fox"), BT_OK);
  static const char *const moods[] = {"bored", "hungry", NULL};
  for (int i = 0; i < 12; i++) {
    T = 1 + i * 0.5;
    REQUIRE(set_key(in, KEY_HUNGER, num_value(i % 4 == 3 ? 0.9 : 0.25 * (i % 4))) == BT_OK);
    if (i % 3 == 1) {
      const char *m = moods[(i / 3) % 3];
      REQUIRE(bt_inst_key_set(in, KEY_MOOD, m ? &(bt_value){BT_KEY_STRING, {.string = m}} : NULL) == BT_OK);
    }
    if (i == 5) REQUIRE(set_key(in, KEY_PREY, (bt_value){BT_KEY_ENTITY, {.entity = 77}}) == BT_OK);
    think(in, T);
    CHECK_INT(bt_view_frame(v, T), BT_OK);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  bt_rec_set_log(r, NULL);
  REQUIRE(bt_log_free(log) == BT_OK);
  CHECK_INT(bt_view_create_log(&lv, path, NULL, NULL, 0), BT_OK);
  if (!lv) return;
  /* the shape: keys and ports */
  char url[160];
  snprintf(url, sizeof url, "/api/shapes/%016llx", bt_def_hash(def));
  for (int which = 0; which < 2; which++) {
    char *body = get(bt_view_port(which ? lv : v), url, 200);
    CHECK(contains(body, "\"keys\":[{\"name\":\"hunger\",\"type\":\"number\",\"host\":true},"
                         "{\"name\":\"night\",\"type\":\"boolean\",\"host\":true},"
                         "{\"name\":\"prey\",\"type\":\"entity\",\"host\":false},"
                         "{\"name\":\"mood\",\"type\":\"string\",\"host\":false}"));
    CHECK(contains(body, "\"name\":\"Hunt\",\"kind\":\"BehaviourNode\"") && contains(body, "\"ports\":[[0,1],[2,2]]}"));
    free(body);
    body = get(bt_view_port(which ? lv : v), "/api/agents/51", 200);
    char now[256], want[300];
    keys_json(in, now, sizeof now);
    snprintf(want, sizeof want, "\"keys\":%s}", now);
    CHECK(contains(body, want));
    free(body);
  }
  /* before each record: the live view's and the log's, in windows of one record and of ten */
  size_t count = bt_rec_count(r);
  CHECK(count == bt_rec_total(r) && (int)count == board_seen && count > 30);
  int bad = 0, keys_records = 0;
  for (size_t i = 0; i < count; i++) {
    const char *want = i ? BOARD_AFTER[i - 1] : initial;
    for (int w = 1; w <= 10; w += 9) {
      char live[300], logged[300];
      snprintf(url, sizeof url, "/api/agents/51/history?before=%zu&count=%d", i + w + 1, w); /* starts at record i + 1 */
      char *body = get(bt_view_port(v), url, 200);
      keys_before_of(body, live, sizeof live);
      free(body);
      body = get(bt_view_port(lv), url, 200);
      keys_before_of(body, logged, sizeof logged);
      free(body);
      if (i + w <= count && (strcmp(live, want) || strcmp(logged, want)) && !bad++)
        fprintf(stderr, "before record %zu: live %s, log %s, the callback's %s\n", i + 1, live, logged, want);
    }
    bt_rec_entry e;
    REQUIRE(bt_rec_get(r, i, &e) == BT_OK);
    keys_records += e.type == BT_REC_KEY;
  }
  CHECK_INT(bad, 0);
  CHECK(keys_records > 10);
  bt_view_free(lv);
  bt_view_free(v);
  remove(path);
  bt_rec_free(r);
  bt_inst_free(in);
  bt_def_release(def);
}

static void mark(const char *what) {
  if (getenv("BT_VIEW_TEST_TRACE")) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(stderr, "%.3f %s\n", ts.tv_sec + ts.tv_nsec / 1e9, what);
  }
}

int main(void) {
  mark("start");
  test_endpoints();
  mark("endpoints");
  test_security();
  mark("security");
  test_stream();
  mark("stream");
  test_malformed();
  mark("malformed");
  test_log();
  mark("log");
  test_log_tail();
  mark("log tail");
  test_shared();
  mark("shared");
  test_board();
  mark("board");
  test_lost();
  mark("lost");
  test_reload();
  mark("reload");
  test_clients();
  mark("clients");
  return check_report("test_view");
}
