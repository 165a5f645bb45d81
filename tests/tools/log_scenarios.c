/* SPDX-License-Identifier: MIT */
/*
 * log_scenarios DIR: records scripted scenarios through the documented API (bt.h) into
 * DIR/scenario.btlog, for tests/tools/check_bt_log.sh to check bt-log's print, tree and why
 * against what happened. It also writes each agent's live tree dump and picture after each think
 * into DIR/dump-<agent>-<time>.txt and DIR/dot-<agent>-<time>.txt, which `bt-log tree --at
 * <time>` (with --dot) must print again from the log.
 *
 * Agent 1, "sheep 1": Root, a Priority of period 1, over Flee (a Sequence of the condition Scared
 * and the behaviour Run), Hit (an EventNode over Cry) and Graze. Every switch of Root's running
 * child has another cause (the times are the thinks'):
 *   0.0 start (Graze)    1.5, 2.0 no switch        2.6 period: Scared (Flee)
 *   3.0 Run succeeds: nothing runs                 3.1 ended (Graze)
 *   4.0 event at Hit (Hit)   5.0 Cry succeeds      5.1 ended (Graze)
 *   6.5 ForceUpdate, Scared (Flee)                 7.0 a reload into a tree with a Panic
 *   condition first, which carries Flee over      7.5 a think
 * Agent 2, "wolf 2": Root, a Priority of period 1, over Night (a Sequence of IsNight and Sleepy, a
 * Priority of period 0.5 over Tired and Wander) and Play. 0.0 start (Play); 2.0 night: Root
 * switches to Night by its period, and Sleepy, started by it, chooses Wander (entered); 3.1 its
 * tree is stopped (a brain's Stop: the creature died): from then on it is gone.
 * Agent 3, "guard 3": Guard, an ActiveSelector, over Alarm (a Sequence of Alarmed and Shout) and
 * Patrol. 0.0 start (Patrol); 1.0 alarmed: Guard re-evaluates and Alarm passes (period).
 * Agent 4, whose label, node names, error message and host bytes hold every byte bt-log must
 * escape (a tab, a newline, a carriage return, a backslash, DEL, bytes above 0x7f, a 0 in the
 * host's bytes): Root\ over the condition "Line<newline>Break" and Caf<e9> <ff>, which runs;
 * thinks at 8.0 and 8.5, with an error, a host record and a world record of all 256 bytes.
 * Agent 5, "fox 5", has a blackboard: Root, a Priority of period 1, over Hungry (a WatchNode,
 * hunger > 0.7, abort lower) over Hunt (reads hunger, writes prey), and Wander (reads and writes
 * mood). Its mood is "calm" before its recorder comes; 9.0 hunger 0.2, Wander; 9.5 hunger 0.9
 * wakes it, Hunt; 10.0 prey entity 12, a mood with quotes and a tab; 10.5 mood unset, hunger
 * 0.1. After each think its live blackboard goes to board-5-<time>.txt, as bt-log board prints it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"

static double T;
static double now(void *d) {
  (void)d;
  return T;
}
static const bt_host HOST = {now, NULL, NULL, NULL};

/* The leaves' results, set by the script. */
static int scared, night, tired, alarmed;
static int run_status = BT_RUNNING, cry_status = BT_RUNNING;

static int cond(bt_call *c) { return *(int *)c->ud; }

/* A behaviour: sets the status *ud says, and sleeps half a second while it runs. */
static int behave(bt_call *c) {
  int st = c->ud ? *(int *)c->ud : BT_RUNNING;
  bt_node_set_status(c->inst, c->node, (bt_status)st);
  if (st == BT_RUNNING) bt_node_sleep(c->inst, c->node, 0.5);
  return BT_OK;
}
static const bt_ops BEHAVE = {behave, NULL, NULL, NULL, NULL, NULL};

static void check(int rc, const char *what) {
  if (rc != BT_OK) {
    fprintf(stderr, "log_scenarios: %s: %s\n", what, bt_strerror(rc));
    exit(1);
  }
}

static void leaf(bt_builder *b, const char *name, int *status) { check(bt_builder_behaviour(b, &BEHAVE, status, name), name); }

/* A builder whose root is a Priority of that name and period, not scattered. */
static bt_builder *priority(bt_builder *b, const char *name, double period) {
  if (!b) check(bt_builder_create(&b), "builder");
  bt_spec root = {0};
  root.kind = BT_PRIORITY;
  root.name = name;
  root.param = period;
  root.flags = BT_SPEC_NOSCATTER;
  check(bt_builder_open(b, &root), name);
  return b;
}

/* The definition b built; b is freed. */
static bt_def *finish(bt_builder *b) {
  bt_def *def = NULL;
  if (bt_builder_end(b, &def, NULL) != BT_OK) {
    fprintf(stderr, "log_scenarios: %s\n", bt_builder_errmsg(b));
    exit(1);
  }
  bt_builder_free(b);
  return def;
}

/* Agent 1's tree; with panic, the Panic condition comes first (the reload's). */
static bt_def *sheep_tree(int panic) {
  static int never = 0;
  bt_builder *b = priority(NULL, "Root", 1);
  if (panic) bt_builder_condition(b, cond, &never, "Panic");
  bt_builder_sequence(b, "Flee");
  bt_builder_condition(b, cond, &scared, "Scared");
  leaf(b, "Run", &run_status);
  bt_builder_back(b);
  bt_builder_event(b, "Hit", 0);
  leaf(b, "Cry", &cry_status);
  bt_builder_back(b);
  leaf(b, "Graze", NULL);
  return finish(b);
}

static bt_def *wolf_tree(void) {
  bt_builder *b = priority(NULL, "Root", 1);
  bt_builder_sequence(b, "Night");
  bt_builder_condition(b, cond, &night, "IsNight");
  priority(b, "Sleepy", 0.5);
  bt_builder_sequence(b, "Tired");
  bt_builder_condition(b, cond, &tired, "IsTired");
  leaf(b, "Rest", NULL);
  bt_builder_back(b);
  leaf(b, "Wander", NULL);
  bt_builder_back(b);
  bt_builder_back(b);
  leaf(b, "Play", NULL);
  return finish(b);
}

static bt_def *guard_tree(void) {
  bt_builder *b = NULL;
  check(bt_builder_create(&b), "builder");
  bt_builder_active_selector(b, "Guard");
  bt_builder_sequence(b, "Alarm");
  bt_builder_condition(b, cond, &alarmed, "Alarmed");
  leaf(b, "Shout", NULL);
  bt_builder_back(b);
  leaf(b, "Patrol", NULL);
  return finish(b);
}

/* Agent 4's tree: names bt-log must escape. */
static bt_def *odd_tree(void) {
  static int never = 0;
  bt_builder *b = priority(NULL, "Root\\", 1);
  bt_builder_condition(b, cond, &never, "Line\nBreak");
  leaf(b, "Caf\xc3\xa9 \xff\x7f", NULL);
  return finish(b);
}

/* Agent 5's tree, with its keys and ports (the engine's graph: the builder has no ports). */
static bt_def *fox_tree(void) {
  bt_graph *g = NULL;
  check(bt_graph_create(&g), "graph");
  if (bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST) != 0 || bt_graph_add_key(g, "prey", BT_KEY_ENTITY, 0) != 1 ||
      bt_graph_add_key(g, "mood", BT_KEY_STRING, 0) != 2)
    exit(1);
  static const bt_port hunt_ports[] = {{"hunger", 0, BT_PORT_READ}, {"prey", 0, BT_PORT_WRITE}};
  static const bt_port wander_ports[] = {{"mood", 0, BT_PORT_READ | BT_PORT_WRITE}};
  bt_spec sp = {0};
  sp.kind = BT_WATCH;
  sp.name = "Hungry";
  sp.key = "hunger";
  sp.cmp = BT_CMP_GT;
  sp.value.type = BT_KEY_NUMBER;
  sp.value.as.number = 0.7;
  sp.flags = BT_SPEC_ABORT_LOWER;
  int hungry = bt_graph_add(g, &sp);
  bt_spec leaf_spec = {0};
  leaf_spec.kind = BT_BEHAVIOUR;
  leaf_spec.ops = &BEHAVE;
  leaf_spec.name = "Hunt";
  leaf_spec.ports = hunt_ports;
  leaf_spec.nports = 2;
  int hunt = bt_graph_add(g, &leaf_spec);
  leaf_spec.name = "Wander";
  leaf_spec.ports = wander_ports;
  leaf_spec.nports = 1;
  int wander = bt_graph_add(g, &leaf_spec);
  bt_spec root = {0};
  root.kind = BT_PRIORITY;
  root.name = "Root";
  root.param = 1;
  root.flags = BT_SPEC_NOSCATTER;
  int r = bt_graph_add(g, &root);
  int kids[2] = {hungry, wander};
  if (hungry < 0 || hunt < 0 || wander < 0 || r < 0) exit(1);
  check(bt_graph_set_children(g, hungry, &hunt, 1), "children");
  check(bt_graph_set_children(g, r, kids, 2), "children");
  bt_def *def = NULL;
  if (bt_def_create(&def, g, r) != BT_OK) {
    fprintf(stderr, "log_scenarios: %s\n", bt_graph_errmsg(g));
    exit(1);
  }
  bt_graph_free(g);
  return def;
}

static void set_number(bt_inst *in, int key, double x) {
  bt_value v = {BT_KEY_NUMBER, {.number = x}};
  check(bt_inst_key_set(in, key, &v), "key");
}

static void set_string(bt_inst *in, int key, const char *text) {
  bt_value v = {BT_KEY_STRING, {.string = text}};
  check(bt_inst_key_set(in, key, text ? &v : NULL), "key");
}

static const char *dir;

static void write_file(const char *what, int agent, double t, const bt_buf *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%d-%.1f.txt", dir, what, agent, t);
  FILE *f = fopen(path, "w");
  if (!f || fputs(b->data, f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "log_scenarios: cannot write %s\n", path);
    exit(1);
  }
}

/* A think at time t as a scheduler makes it, and the tree's dump and picture after it into
 * dump-<agent>-<t>.txt and dot-<agent>-<t>.txt. */
static void think(bt_inst *in, int agent, double t) {
  T = t;
  check(bt_inst_update(in), "think");
  double sleep;
  bt_inst_sleep_time(in, &sleep);
  bt_buf b = {0}, d = {0};
  check(bt_inst_dump(in, &b), "dump");
  check(bt_inst_dot(in, &d), "dot");
  write_file("dump", agent, t, &b);
  write_file("dot", agent, t, &d);
  const bt_def *def = bt_inst_def(in);
  if (bt_def_key_count(def) > 0) { /* the blackboard as bt-log board prints it: name, type, value */
    b.len = 0;
    for (int k = 0; k < bt_def_key_count(def); k++) {
      bt_value v;
      bt_inst_key_get(in, k, &v);
      bt_buf_printf(&b, "%s\t%s%s\t", bt_def_key_name(def, k), bt_key_type_name(bt_def_key_type(def, k)),
                    bt_def_key_flags(def, k) & BT_KEY_HOST ? " (host)" : "");
      if (v.type == BT_KEY_NUMBER) bt_buf_printf(&b, "%.15g", v.as.number); /* (these read back the same) */
      else if (v.type == BT_KEY_ENTITY) bt_buf_printf(&b, "entity %llu", v.as.entity);
      else if (v.type == BT_KEY_STRING) {
        bt_buf_printf(&b, "\"");
        for (const char *c = v.as.string; *c; c++)
          bt_buf_printf(&b, *c == '"' ? "\\\"" : *c == '\t' ? "\\t" : "%c", *c);
        bt_buf_printf(&b, "\"");
      } else bt_buf_printf(&b, "nil");
      bt_buf_printf(&b, "\n");
    }
    write_file("board", agent, t, &b);
  }
  bt_buf_free(&b);
  bt_buf_free(&d);
}

/* The live statistics, as bt-log stats --order tree prints each shape's rows, without the path
 * column: stats-<shape hash>.txt. */
static void write_stats(bt_stats *st) {
  int n = bt_stats_list(st, BT_STATS_BY_TREE, NULL, 0);
  bt_stats_node *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
  if (n < 0 || !rows) exit(1);
  bt_stats_list(st, BT_STATS_BY_TREE, rows, n);
  for (int k = 0; k < bt_stats_shape_count(st); k++) {
    bt_stats_shape sh;
    check(bt_stats_shape_get(st, k, &sh), "stats shape");
    char path[4096];
    snprintf(path, sizeof path, "%s/stats-%016llx.txt", dir, sh.shape);
    FILE *f = fopen(path, "w");
    if (!f) exit(1);
    fprintf(f, "agents\t%d\tthinks\t%llu\terrors\t%llu", sh.agents, sh.thinks, sh.errors);
    if (sh.def && bt_def_key_count(sh.def) > 0) fprintf(f, "\twrites\t%llu", sh.writes);
    fprintf(f, "\n");
    for (int i = 0; i < n; i++)
      if (rows[i].shape == sh.shape)
        fprintf(f, "%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.3f\t%.3f\t%llu\n", rows[i].visits, rows[i].successes,
                rows[i].failures, rows[i].aborts, rows[i].runs, rows[i].thinks, rows[i].time, rows[i].longest,
                rows[i].errors);
    if (fclose(f) != 0) exit(1);
  }
  free(rows);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: log_scenarios DIR\n");
    return 2;
  }
  dir = argv[1];
  char path[4096], err[512];
  snprintf(path, sizeof path, "%s/scenario.btlog", dir);
  bt_log *log = NULL;
  if (bt_log_create(&log, path, BT_LOG_DBSTRINGS, err, sizeof err) != BT_OK) {
    fprintf(stderr, "log_scenarios: %s\n", err);
    return 1;
  }
  bt_def *sheep = sheep_tree(0), *wolf = wolf_tree(), *guard = guard_tree();
  bt_inst *s = NULL, *w = NULL, *gd = NULL;
  bt_rec *rs = NULL, *rw = NULL, *rg = NULL;
  bt_stats *live = NULL; /* the same records counted at run time: bt-log stats must agree */
  check(bt_stats_create(&live), "stats");
  check(bt_inst_create(&gd, guard, &HOST, NULL, 0), "guard");
  check(bt_rec_create(&rg, 0), "recorder");
  check(bt_rec_set_stats(rg, live), "stats");
  check(bt_rec_set_agent(rg, 3, "guard 3"), "agent");
  check(bt_rec_set_log(rg, log), "log");
  check(bt_inst_set_recorder(gd, rg), "attach");
  check(bt_inst_create(&s, sheep, &HOST, NULL, 0), "sheep");
  check(bt_inst_create(&w, wolf, &HOST, NULL, 0), "wolf");
  check(bt_rec_create(&rs, 0), "recorder");
  check(bt_rec_create(&rw, 0), "recorder");
  check(bt_rec_set_agent(rs, 1, "sheep 1"), "agent");
  check(bt_rec_set_agent(rw, 2, "wolf 2"), "agent");
  check(bt_rec_set_log(rs, log), "log");
  check(bt_rec_set_log(rw, log), "log");
  check(bt_rec_set_stats(rs, live), "stats");
  check(bt_rec_set_stats(rw, live), "stats");
  check(bt_inst_set_recorder(s, rs), "attach");
  check(bt_inst_set_recorder(w, rw), "attach");

  think(s, 1, 0.0);
  think(w, 2, 0.0);
  think(gd, 3, 0.0);
  check(bt_log_flush(log), "flush");
  alarmed = 1;
  think(gd, 3, 1.0);
  check(bt_log_flush(log), "flush");
  think(s, 1, 1.5);
  think(s, 1, 2.0);
  night = 1;
  think(w, 2, 2.0);
  check(bt_log_flush(log), "flush");
  scared = 1;
  think(s, 1, 2.6);
  run_status = BT_SUCCESS;
  think(s, 1, 3.0);
  scared = 0;
  think(s, 1, 3.1);
  run_status = BT_RUNNING;
  bt_inst_stop(w); /* at 3.1: the wolf is gone */
  check(bt_log_flush(log), "flush");
  T = 4.0;
  check(bt_inst_fire_event(s, 4), "event"); /* Hit: Root 0, Flee 1, Scared 2, Run 3, Hit 4 */
  think(s, 1, 4.0);
  check(bt_inst_record_host(s, 7, "x=1", 3), "host record");
  check(bt_log_write_host(log, 4.0, 1, "day", 3), "world record");
  check(bt_log_flush(log), "flush");
  cry_status = BT_SUCCESS;
  think(s, 1, 5.0);
  think(s, 1, 5.1);
  check(bt_log_flush(log), "flush");
  scared = 1;
  T = 6.5;
  bt_inst_force_update(s);
  think(s, 1, 6.5);
  check(bt_log_flush(log), "flush");

  /* the reload: a new instance of the edited tree takes the agent's state and its recorder */
  T = 7.0;
  bt_def *edited = sheep_tree(1);
  bt_inst *s2 = NULL;
  check(bt_inst_create(&s2, edited, &HOST, NULL, 0), "edited sheep");
  int map[64];
  if (bt_def_match(bt_inst_def(s), edited, map) < 0) return 1;
  check(bt_inst_set_recorder(s, NULL), "detach");
  check(bt_inst_set_recorder(s2, rs), "attach");
  check(bt_inst_transfer(s2, s, map, NULL), "transfer");
  check(bt_inst_record_error(s2, 4, "behaviours/run.lua:12: attempt to index a nil value\tat Run"), "error");
  bt_inst_free(s);
  s = s2;
  check(bt_log_flush(log), "flush");
  think(s, 1, 7.5);
  check(bt_log_flush(log), "flush");

  /* agent 4: bytes to escape everywhere */
  bt_def *odd = odd_tree();
  bt_inst *o = NULL;
  bt_rec *ro = NULL;
  check(bt_inst_create(&o, odd, &HOST, NULL, 0), "odd");
  check(bt_rec_create(&ro, 0), "recorder");
  check(bt_rec_set_agent(ro, 4, "odd\t4 \xc3\xa9\r"), "agent");
  check(bt_rec_set_log(ro, log), "log");
  check(bt_rec_set_stats(ro, live), "stats");
  check(bt_inst_set_recorder(o, ro), "attach");
  think(o, 4, 8.0);
  unsigned char all[256];
  for (int i = 0; i < 256; i++) all[i] = (unsigned char)i;
  check(bt_inst_record_error(o, 2, "bad\r\nthing \x80\\"), "error");
  check(bt_inst_record_host(o, 9, all, sizeof all), "host record");
  check(bt_log_write_host(log, 8.0, 2, all, sizeof all), "world record");
  check(bt_log_flush(log), "flush");
  think(o, 4, 8.5);
  check(bt_log_flush(log), "flush");
  bt_rec_free(ro);
  bt_inst_free(o);
  bt_def_release(odd);

  /* agent 5: a blackboard */
  bt_def *fox = fox_tree();
  bt_inst *fx = NULL;
  bt_rec *rf = NULL;
  check(bt_inst_create(&fx, fox, &HOST, NULL, 0), "fox");
  T = 9.0;
  set_string(fx, 2, "calm"); /* before the recorder: its attach record says so */
  check(bt_rec_create(&rf, 0), "recorder");
  check(bt_rec_set_agent(rf, 5, "fox 5"), "agent");
  check(bt_rec_set_log(rf, log), "log");
  check(bt_rec_set_stats(rf, live), "stats");
  check(bt_inst_set_recorder(fx, rf), "attach");
  set_number(fx, 0, 0.2);
  think(fx, 5, 9.0);
  check(bt_log_flush(log), "flush");
  T = 9.5;
  set_number(fx, 0, 0.9); /* wakes it: Hungry aborts Wander */
  think(fx, 5, 9.5);
  T = 10.0;
  bt_value prey = {BT_KEY_ENTITY, {.entity = 12}};
  check(bt_inst_key_set(fx, 1, &prey), "key");
  set_string(fx, 2, "on \"the\"\thunt");
  think(fx, 5, 10.0);
  check(bt_log_flush(log), "flush");
  T = 10.5;
  set_string(fx, 2, NULL);
  set_number(fx, 0, 0.1);
  think(fx, 5, 10.5);
  check(bt_log_flush(log), "flush");
  bt_rec_free(rf);
  bt_inst_free(fx);
  bt_def_release(fox);

  bt_rec_free(rs);
  bt_rec_free(rw);
  bt_rec_free(rg);
  write_stats(live);
  bt_stats_free(live);
  bt_inst_free(gd);
  bt_def_release(guard);
  bt_inst_free(s);
  bt_inst_free(w);
  bt_def_release(sheep);
  bt_def_release(wolf);
  bt_def_release(edited);
  int rc = bt_log_free(log);
  if (rc != BT_OK) {
    fprintf(stderr, "log_scenarios: closing the log: %s\n", bt_strerror(rc));
    return 1;
  }
  return 0;
}
