/* SPDX-License-Identifier: MIT */
/* replay_fixture.c: the records and statuses a page is given, for the page's replay to be tested
 * against C's (browser.replay, tests/browser/replay.test.mjs). Three agents think a few hundred
 * times, recorded into a live view (history 64: its base moves on as records leave the ring) and
 * into a log at once: a wolf (5 nodes), a watcher whose Look is placed under two parents (a shared
 * node), and a wolf reloaded midway into a tree of another shape. For each agent of each view it
 * writes, as the server answered them: the agent (its statuses now), its shape, its whole history
 * (one window) and, for every record s it keeps, the window of that record alone
 * (?before=s+1&count=1), whose statuses_before are the statuses C replays before record s.
 *   usage: view_replay_fixture OUT.json */
#define _POSIX_C_SOURCE 200809L /* strdup, mkstemp */
#include "check.h"
#include "client.h"
#include "harness.h"

#include "bt_view.h"

static leaf SEE = FN("See", 1), ATTACK = LEAF("Attack", BT_RUNNING), IDLE = LEAF("Idle", BT_RUNNING),
            LOOK = LEAF("Look", BT_RUNNING), REST = LEAF("Rest", BT_RUNNING);

/* Root (Priority 0.5) > [Chase (Parallel) > [See, Attack], Idle] (and Rest after Idle: rest) */
static bt_inst *wolf(int rest) {
  bt_graph *g = new_graph();
  int see = add_fn(g, BT_CONDITION, &SEE, "See"), attack = add_leaf(g, &ATTACK), idle = add_leaf(g, &IDLE);
  int chase = add_node(g, BT_PARALLEL, "Chase", 0, 0);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, chase, 2, see, attack);
  if (rest) set_kids(g, root, 3, chase, idle, add_leaf(g, &REST));
  else set_kids(g, root, 2, chase, idle);
  return build(g, root, 0);
}

/* Root (Priority 0.5) > [Chase = Sequence(See, Look), Idle = Sequence(Look)]: Look in two places */
static bt_inst *watcher(void) {
  bt_graph *g = new_graph();
  int see = add_fn(g, BT_CONDITION, &SEE, "See"), look = add_leaf(g, &LOOK);
  int chase = add_node(g, BT_SEQUENCE, "Chase", 0, 0), idle = add_node(g, BT_SEQUENCE, "Idle", 0, 0);
  int root = add_prio(g, "Root", 0.5);
  set_kids(g, chase, 2, see, look);
  set_kids(g, idle, 1, look);
  set_kids(g, root, 2, chase, idle);
  return build(g, root, 0);
}

static bt_rec *record(bt_inst *in, unsigned long long id, const char *label, bt_log *log) {
  bt_rec *r = NULL;
  REQUIRE(bt_rec_create(&r, 4096) == BT_OK);
  REQUIRE(bt_rec_set_agent(r, id, label) == BT_OK);
  REQUIRE(bt_inst_set_recorder(in, r) == BT_OK);
  REQUIRE(bt_rec_set_log(r, log) == BT_OK);
  return r;
}

static char *get(int port, const char *path) {
  char *body = NULL;
  int status = http_get(port, path, &body);
  if (status != 200) {
    fprintf(stderr, "view_replay_fixture: GET %s: status %d: %s\n", path, status, body ? body : "");
    exit(1);
  }
  return body;
}

/* writes one agent of a view: {"source", "agent", "now", "shape", "full", "windows": [...]} */
static void write_agent(FILE *out, bt_view *v, const char *source, unsigned long long id, int first) {
  int port = bt_view_port(v);
  char path[160];
  snprintf(path, sizeof path, "/api/agents/%llu", id);
  char *now = get(port, path);
  const char *sh = strstr(now, "\"shape\":\"");
  REQUIRE(sh != NULL);
  snprintf(path, sizeof path, "/api/shapes/%.16s", sh + 9);
  char *shape = get(port, path);
  snprintf(path, sizeof path, "/api/agents/%llu/history?count=2000", id);
  char *full = get(port, path);
  unsigned long long oldest = (unsigned long long)json_num(full, "oldest", 0);
  unsigned long long newest = (unsigned long long)json_num(full, "newest", 0);
  REQUIRE(oldest >= 1 && newest >= oldest && newest - oldest < 2000); /* one window holds them all */
  fprintf(out, "%s\n{\"source\":\"%s\",\"agent\":%llu,\"now\":%s,\"shape\":%s,\"full\":%s,\"windows\":[",
          first ? "" : ",", source, id, now, shape, full);
  for (unsigned long long s = oldest; s <= newest; s++) {
    snprintf(path, sizeof path, "/api/agents/%llu/history?before=%llu&count=1", id, s + 1);
    char *w = get(port, path);
    fprintf(out, "%s\n%s", s > oldest ? "," : "", w);
    free(w);
  }
  fprintf(out, "]}");
  free(now);
  free(shape);
  free(full);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: view_replay_fixture OUT.json\n");
    return 2;
  }
  char path[] = "/tmp/bt_replay_fixture_XXXXXX";
  int tmp = mkstemp(path);
  REQUIRE(tmp >= 0);
  close(tmp);
  bt_log *log = NULL;
  REQUIRE(bt_log_create(&log, path, 0, NULL, 0) == BT_OK);
  bt_view_options o;
  bt_view_options_init(&o);
  o.history = 64;
  bt_view *v = NULL;
  char err[256] = "";
  if (bt_view_create(&v, &o, err, sizeof err) != BT_OK) {
    fprintf(stderr, "view_replay_fixture: bt_view_create: %s\n", err);
    return 1;
  }
  static leaf HUNT = LEAF("Hunt", BT_RUNNING), SLEEP = LEAF("Sleep", BT_RUNNING), WANDER = LEAF("Wander", BT_RUNNING);
  bt_def *fox_def = board_def(&HUNT, &SLEEP, &WANDER);
  bt_inst *fox = NULL;
  REQUIRE(bt_inst_create(&fox, fox_def, &HOST, NULL, 0) == BT_OK);
  bt_def_release(fox_def);
  REQUIRE(set_key(fox, KEY_MOOD, str_value("calm")) == BT_OK);
  bt_inst *in[4] = {wolf(0), watcher(), wolf(0), fox};
  bt_rec *rec[4] = {record(in[0], 61, "wolf 61", log), record(in[1], 62, "watcher 62", log),
                    record(in[2], 63, "wolf 63", log), record(in[3], 64, "fox 64", log)};
  REQUIRE(bt_view_add_agent(v, rec[0], "wolf") == BT_OK && bt_view_add_agent(v, rec[1], "watcher") == BT_OK &&
          bt_view_add_agent(v, rec[2], "wolf") == BT_OK && bt_view_add_agent(v, rec[3], "fox") == BT_OK);
  for (int i = 0; i < 240; i++) {
    double t = 1 + i * 0.6; /* past Root's period: each think evaluates */
    SEE.result = (i / 3) % 2 == 0;
    LOOK.status = i % 5 == 4 ? BT_SUCCESS : BT_RUNNING;
    if (i == 120) { /* the third wolf's reload: Idle gets a sibling, states carried by path */
      bt_inst *to = wolf(1);
      int map[16];
      REQUIRE(bt_def_match(bt_inst_def(in[2]), bt_inst_def(to), map) >= 0);
      REQUIRE(bt_inst_set_recorder(in[2], NULL) == BT_OK);
      REQUIRE(bt_inst_set_recorder(to, rec[2]) == BT_OK);
      T = t;
      REQUIRE(bt_inst_transfer(to, in[2], map, NULL) == BT_OK);
      bt_inst_free(in[2]);
      in[2] = to;
    }
    T = t; /* the fox's host writes its blackboard */
    REQUIRE(set_key(in[3], KEY_HUNGER, num_value(i % 9 < 5 ? 0.125 * (i % 9) : 0.75 + 0.0625 * (i % 3))) == BT_OK);
    if (i % 7 == 3) REQUIRE(set_key(in[3], KEY_MOOD, str_value(i % 14 == 3 ? "bored" : "on \"edge\"")) == BT_OK);
    if (i % 11 == 5) REQUIRE(bt_inst_key_set(in[3], KEY_MOOD, NULL) == BT_OK);
    for (int a = 0; a < 4; a++) think(in[a], t);
    REQUIRE(bt_view_frame(v, t) == BT_OK);
    REQUIRE(bt_log_flush(log) == BT_OK);
  }
  for (int a = 0; a < 4; a++) bt_rec_set_log(rec[a], NULL);
  REQUIRE(bt_log_free(log) == BT_OK);
  bt_view *lv = NULL;
  if (bt_view_create_log(&lv, path, NULL, err, sizeof err) != BT_OK) {
    fprintf(stderr, "view_replay_fixture: bt_view_create_log: %s\n", err);
    return 1;
  }
  FILE *out = fopen(argv[1], "w");
  if (!out) {
    fprintf(stderr, "view_replay_fixture: cannot write %s\n", argv[1]);
    return 1;
  }
  fprintf(out, "{\"agents\":[");
  for (int a = 0; a < 4; a++) write_agent(out, v, "live", 61 + (unsigned)a, a == 0);
  for (int a = 0; a < 4; a++) write_agent(out, lv, "log", 61 + (unsigned)a, 0);
  fprintf(out, "\n]}\n");
  int bad = fclose(out) != 0;
  bt_view_free(lv);
  bt_view_free(v);
  for (int a = 0; a < 4; a++) {
    bt_inst_free(in[a]);
    bt_rec_free(rec[a]);
  }
  remove(path);
  return bad || check_report("view_replay_fixture");
}
