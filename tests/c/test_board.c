/* SPDX-License-Identifier: MIT */
/* test_board.c: the blackboard in the engine. Keys declared in a graph, values in the instance
 * (every type, strings copied), the ports checked when a definition is built (each error names
 * the node, its path, where it was made and the key), WatchNodes and their abort modes under an
 * ActiveSelector and under a Priority, and what a write wakes: counted with a waker, and with
 * the instance's sleep time. */
#include <stdint.h>

#include "harness.h"

static int WAKES;
static void count_wake(void *ud, bt_inst *in) {
  (void)in;
  WAKES++;
  if (ud) *(int *)ud += 1;
}

static bt_value num(double v) {
  bt_value x = {BT_KEY_NUMBER, {.number = v}};
  return x;
}
static bt_value boolean(int v) {
  bt_value x = {BT_KEY_BOOLEAN, {.boolean = v}};
  return x;
}

/* A WatchNode: key cmp value, abort flags; a C behaviour with ports (harness.h's, made here). */
static int add_watch(bt_graph *g, const char *name, const char *key, int cmp, bt_value value, unsigned flags) {
  return add_watch_node(g, name, key, cmp, value, flags, "wolf.lua:7");
}
static int add_ported(bt_graph *g, leaf *l, const bt_port *ports, int n) {
  return add_ported_leaf(g, l, ports, n, "wolf.lua:20");
}

static void test_keys(void) {
  bt_graph *g = new_graph();
  CHECK_INT(bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST), 0);
  CHECK_INT(bt_graph_add_key(g, "name", BT_KEY_STRING, 0), 1);
  CHECK_INT(bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST), 0); /* the same again */
  CHECK_INT(bt_graph_add_key(g, "hunger", BT_KEY_INTEGER, BT_KEY_HOST), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "bt_graph_add_key: key 'hunger' is declared already, as the host's number");
  CHECK_INT(bt_graph_add_key(g, "", BT_KEY_NUMBER, 0), BT_EINVAL);
  CHECK_INT(bt_graph_add_key(g, "x", 42, 0), BT_EINVAL);
  CHECK_STR(bt_graph_errmsg(g), "bt_graph_add_key: key 'x': bad type 42");
  CHECK_INT(bt_graph_add_key(g, "x", BT_KEY_NUMBER, 0x80), BT_EINVAL);
  for (int t = BT_KEY_INTEGER; t < BT_KEY_TYPE_COUNT; t++) {
    char name[16];
    snprintf(name, sizeof name, "k%d", t);
    CHECK_INT(bt_graph_add_key(g, name, t, BT_KEY_HOST), t); /* ids 2 ... 6 */
  }
  leaf L = LEAF("L", BT_SUCCESS);
  int r = add_leaf(g, &L);
  bt_inst *in = build(g, r, 0);
  const bt_def *d = bt_inst_def(in);
  CHECK_INT(bt_def_key_count(d), 7);
  CHECK_INT(bt_def_key_find(d, "name"), 1);
  CHECK_INT(bt_def_key_find(d, "nope"), BT_EINVAL);
  CHECK_STR(bt_def_key_name(d, 0), "hunger");
  CHECK(bt_def_key_name(d, 7) == NULL);
  CHECK_INT(bt_def_key_type(d, 1), BT_KEY_STRING);
  CHECK_INT(bt_def_key_flags(d, 0), BT_KEY_HOST);
  CHECK_INT(bt_def_key_flags(d, 1), 0);
  CHECK_STR(bt_key_type_name(BT_KEY_ENTITY), "entity");
  CHECK(bt_key_type_name(BT_KEY_TYPE_COUNT) == NULL);
  CHECK_STR(bt_cmp_name(BT_CMP_GE), ">=");

  /* values: unset at first, then each type; a string is the instance's copy */
  bt_value v;
  CHECK_INT(bt_inst_key_get(in, 0, &v), 0);
  CHECK_INT(v.type, BT_KEY_NONE);
  v = num(0.25);
  CHECK_INT(bt_inst_key_set(in, 0, &v), BT_OK);
  CHECK_INT(bt_inst_key_get(in, 0, &v), 1);
  CHECK_NUM(v.as.number, 0.25);
  char text[16] = "wolf";
  bt_value s = {BT_KEY_STRING, {.string = text}};
  CHECK_INT(bt_inst_key_set(in, 1, &s), BT_OK);
  strcpy(text, "sheep");
  CHECK_INT(bt_inst_key_get(in, 1, &v), 1);
  CHECK_STR(v.as.string, "wolf");
  bt_value i = {BT_KEY_INTEGER, {.integer = -5}};
  CHECK_INT(bt_inst_key_set(in, 2, &i), BT_OK);
  bt_value b = boolean(7);
  CHECK_INT(bt_inst_key_set(in, 3, &b), BT_OK);
  CHECK_INT(bt_inst_key_get(in, 3, &v), 1);
  CHECK_INT(v.as.boolean, 1); /* a boolean is 0 or 1 */
  bt_value e = {BT_KEY_ENTITY, {.entity = 1ULL << 60}};
  CHECK_INT(bt_inst_key_set(in, 5, &e), BT_OK);
  CHECK_INT(bt_inst_key_get(in, 5, &v), 1);
  CHECK(v.as.entity == 1ULL << 60);
  /* the wrong type, a bad key */
  CHECK_INT(bt_inst_key_set(in, 2, &s), BT_EINVAL);
  CHECK_INT(bt_inst_key_set(in, 0, &i), BT_EINVAL); /* an integer is no number: the caller converts */
  CHECK_INT(bt_inst_key_set(in, 7, &i), BT_EINVAL);
  CHECK_INT(bt_inst_key_get(in, -1, &v), BT_EINVAL);
  CHECK_INT(bt_inst_key_get(in, 2, &v), 1);
  CHECK_INT(v.as.integer, -5); /* unchanged by the refused write */
  /* unset: NULL or a value of type none */
  CHECK_INT(bt_inst_key_set(in, 1, NULL), BT_OK);
  CHECK_INT(bt_inst_key_get(in, 1, &v), 0);
  CHECK_INT(bt_inst_key_set(in, 1, &s), BT_OK); /* a string again, freed with the instance */
  bt_inst_free(in);
}

/* Builds g under root and returns the error, with its message in MSG. */
static char MSG[1024];
static int build_error(bt_graph *g, int root) {
  bt_def *d = NULL;
  int rc = bt_def_create(&d, g, root);
  snprintf(MSG, sizeof MSG, "%s", bt_graph_errmsg(g));
  bt_def_release(d);
  bt_graph_free(g);
  return rc;
}

static void test_ports(void) {
  leaf A = LEAF("Find", BT_SUCCESS), B = LEAF("Eat", BT_SUCCESS);
  /* a key read that is not declared */
  bt_graph *g = new_graph();
  bt_graph_add_key(g, "prey", BT_KEY_ENTITY, 0);
  bt_port reads_prey[] = {{"prey", BT_KEY_NONE, BT_PORT_READ}};
  bt_port writes_prey[] = {{"prey", BT_KEY_ENTITY, BT_PORT_WRITE}};
  bt_port reads_pray[] = {{"pray", BT_KEY_NONE, BT_PORT_READ}};
  int r = add_node(g, BT_SEQUENCE, "Hunt", 0, 0);
  int a = add_ported(g, &A, writes_prey, 1), b = add_ported(g, &B, reads_pray, 1);
  set_kids(g, r, 2, a, b);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK_STR(MSG, "BehaviourNode 'Eat' (Hunt/Eat, wolf.lua:20) reads key 'pray', which is not declared");

  /* a read that nothing writes and the host does not provide */
  g = new_graph();
  bt_graph_add_key(g, "prey", BT_KEY_ENTITY, 0);
  r = add_node(g, BT_SEQUENCE, "Hunt", 0, 0);
  b = add_ported(g, &B, reads_prey, 1);
  set_kids(g, r, 1, b);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK(strstr(MSG, "BehaviourNode 'Eat' (Hunt/Eat, wolf.lua:20) reads key 'prey', which no node of the tree "
                    "writes and the host does not provide") == MSG);
  /* ... which a node writes: fine; or the host provides */
  g = new_graph();
  bt_graph_add_key(g, "prey", BT_KEY_ENTITY, 0);
  r = add_node(g, BT_SEQUENCE, "Hunt", 0, 0);
  a = add_ported(g, &A, writes_prey, 1);
  b = add_ported(g, &B, reads_prey, 1);
  set_kids(g, r, 2, a, b);
  bt_inst *in = build(g, r, 0);
  const bt_def *d = bt_inst_def(in);
  CHECK_INT(bt_def_port_count(d, 1), 1);
  int key = -1;
  unsigned how = 0;
  CHECK_INT(bt_def_port(d, 1, 0, &key, &how), BT_OK);
  CHECK_INT(key, 0);
  CHECK_INT(how, BT_PORT_WRITE);
  CHECK_INT(bt_def_port(d, 1, 1, &key, &how), BT_EINVAL);
  CHECK_INT(bt_def_port_count(d, 0), 0);
  CHECK_STR(bt_def_where(d, 2), "wolf.lua:20");
  CHECK(bt_def_where(d, 0) == NULL);
  bt_inst_free(in);

  /* taken for another type */
  g = new_graph();
  bt_graph_add_key(g, "prey", BT_KEY_ENTITY, BT_KEY_HOST);
  bt_port reads_prey_num[] = {{"prey", BT_KEY_NUMBER, BT_PORT_READ}};
  r = add_ported(g, &B, reads_prey_num, 1);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK_STR(MSG, "BehaviourNode 'Eat' (Eat, wolf.lua:20) reads key 'prey' as a number, but it is declared an entity");

  /* a WatchNode's condition is a read of its key: checked the same way, and its comparison */
  g = new_graph();
  bt_graph_add_key(g, "night", BT_KEY_BOOLEAN, BT_KEY_HOST);
  r = add_watch(g, "Dark", "night", BT_CMP_GT, boolean(0), 0);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK_STR(MSG, "WatchNode 'Dark' (Dark, wolf.lua:7) orders values that have no order (only numbers, "
                 "integers and strings do) (key 'night' is a boolean)");
  g = new_graph();
  bt_graph_add_key(g, "night", BT_KEY_BOOLEAN, BT_KEY_HOST);
  r = add_watch(g, "Dark", "night", BT_CMP_EQ, num(1), 0);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK(strstr(MSG, "compares its key with a value of another type") != NULL);
  g = new_graph();
  r = add_watch(g, "Dark", "night", BT_CMP_TRUE, num(0), 0);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK_STR(MSG, "WatchNode 'Dark' (Dark, wolf.lua:7) reads key 'night', which is not declared");
  /* aborting itself without a child; abort flags on another kind */
  g = new_graph();
  bt_graph_add_key(g, "night", BT_KEY_BOOLEAN, BT_KEY_HOST);
  r = add_watch(g, "Dark", "night", BT_CMP_TRUE, num(0), BT_SPEC_ABORT_SELF);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK(strstr(MSG, "aborts itself (BT_SPEC_ABORT_SELF), but it has no child to abort") != NULL);
  g = new_graph();
  r = add_node(g, BT_SEQUENCE, "Hunt", 0, BT_SPEC_ABORT_LOWER);
  a = add_leaf(g, &A);
  set_kids(g, r, 1, a);
  CHECK_INT(build_error(g, r), BT_EINVAL);
  CHECK_STR(MSG, "SequenceNode 'Hunt' (Hunt) has abort flags, which only a node that watches keys takes");
}

/* Flee when threat is set (both), Hunt when hunger > 0.7 (lower), else Idle: under an
 * ActiveSelector root, a tree that sleeps until a key or a timer. */
typedef struct world {
  bt_inst *in;
  int flee, hunt, idle, wflee, whunt;
  int threat, hunger, seen; /* keys */
  int wakes;
} world;

static leaf FLEE = LEAF("Flee", BT_RUNNING), HUNT = LEAF("Hunt", BT_RUNNING), IDLE = LEAF("Idle", BT_RUNNING);

static void make_world(world *w, int root_kind, unsigned hunt_abort) {
  memset(w, 0, sizeof *w);
  FLEE.sleep = 1;
  HUNT.sleep = 2;
  IDLE.sleep = 5;
  bt_graph *g = new_graph();
  w->threat = bt_graph_add_key(g, "threat", BT_KEY_ENTITY, BT_KEY_HOST);
  w->hunger = bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST);
  w->seen = bt_graph_add_key(g, "seen", BT_KEY_INTEGER, BT_KEY_HOST);
  int r = root_kind == BT_PRIORITY ? add_prio(g, "Root", 10) : add_node(g, root_kind, "Root", 0, 0);
  w->wflee = add_watch(g, "Threatened", "threat", BT_CMP_SET, num(0), BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER);
  w->whunt = add_watch(g, "Hungry", "hunger", BT_CMP_GT, num(0.7), hunt_abort);
  w->flee = add_leaf(g, &FLEE);
  bt_port reads_seen[] = {{"seen", BT_KEY_INTEGER, BT_PORT_READ}};
  w->hunt = add_ported(g, &HUNT, reads_seen, 1);
  w->idle = add_leaf(g, &IDLE);
  set_kids(g, w->wflee, 1, w->flee);
  set_kids(g, w->whunt, 1, w->hunt);
  set_kids(g, r, 3, w->wflee, w->whunt, w->idle);
  w->in = build(g, r, BT_INST_NOSCATTER);
  REQUIRE(bt_inst_set_waker(w->in, count_wake, &w->wakes) == BT_OK);
}

static void write_num(world *w, int key, double v) {
  bt_value x = num(v);
  REQUIRE(bt_inst_key_set(w->in, key, &x) == BT_OK);
}
static void write_entity(world *w, int key, unsigned long long id) {
  bt_value x = {BT_KEY_ENTITY, {.entity = id}};
  REQUIRE(bt_inst_key_set(w->in, key, &x) == BT_OK);
}

static void test_active_selector(void) {
  world w;
  make_world(&w, BT_ACTIVE_SELECTOR, BT_SPEC_ABORT_LOWER);
  logs();
  think(w.in, 0);
  CHECK_STR(logs(), "Idle");
  CHECK_NUM(sleep_of(w.in), 5); /* Idle's timer: nothing polls */
  /* a write that flips no condition wakes nothing */
  write_num(&w, w.hunger, 0.5);
  CHECK_INT(w.wakes, 0);
  CHECK_NUM(sleep_of(w.in), 5);
  /* hunger crosses 0.7: the Hungry watch (lower) wakes the tree, which hunts at once */
  write_num(&w, w.hunger, 0.8);
  CHECK_INT(w.wakes, 1);
  CHECK_NUM(sleep_of(w.in), 0);
  think(w.in, 0.1);
  CHECK_STR(logs(), "Hunt");
  CHECK_STR(ST(w.in, w.hunt), "RUNNING");
  CHECK_STR(ST(w.in, w.idle), "READY"); /* interrupted */
  CHECK_NUM(sleep_of(w.in), 2);
  /* while Hunt runs, more hunger changes nothing (its watch does not abort itself) */
  write_num(&w, w.hunger, 0.9);
  write_num(&w, w.hunger, 0.6);
  CHECK_INT(w.wakes, 1);
  /* a key that the running Hunt reads wakes it */
  bt_value seen = {BT_KEY_INTEGER, {.integer = 3}};
  REQUIRE(bt_inst_key_set(w.in, w.seen, &seen) == BT_OK);
  CHECK_INT(w.wakes, 2);
  REQUIRE(bt_inst_key_set(w.in, w.seen, &seen) == BT_OK); /* the same value: no write */
  CHECK_INT(w.wakes, 2);
  think(w.in, 0.2);
  CHECK_STR(logs(), "Hunt"); /* hunger 0.6 is checked again only when entered */
  /* a threat: Flee takes over */
  write_entity(&w, w.threat, 42);
  CHECK_INT(w.wakes, 3);
  think(w.in, 0.3);
  CHECK_STR(logs(), "Flee");
  CHECK_STR(ST(w.in, w.hunt), "READY");
  /* another threat while fleeing: still set, nothing to abort */
  write_entity(&w, w.threat, 43);
  CHECK_INT(w.wakes, 3);
  /* the threat gone: Flee's watch aborts itself; hunger is 0.6, so Idle */
  bt_inst_key_set(w.in, w.threat, NULL);
  CHECK_INT(w.wakes, 4);
  think(w.in, 0.4);
  CHECK_STR(logs(), "Idle");
  CHECK_STR(ST(w.in, w.flee), "READY");
  bt_inst_free(w.in);

  /* abort none: writes wake nothing, and the next think (Idle's timer) sees the value */
  make_world(&w, BT_ACTIVE_SELECTOR, 0);
  logs();
  think(w.in, 0);
  write_num(&w, w.hunger, 0.8);
  CHECK_INT(w.wakes, 0);
  CHECK_NUM(sleep_of(w.in), 5);
  think(w.in, 5);
  CHECK_STR(logs(), "Idle Hunt");
  bt_inst_free(w.in);
}

/* Under a Priority with a period of 10 the write clears its clock, as an event does: the tree
 * chooses again at the next think, not 10 s later. */
static void test_priority(void) {
  world w;
  make_world(&w, BT_PRIORITY, BT_SPEC_ABORT_LOWER);
  logs();
  think(w.in, 0);
  CHECK_STR(logs(), "Idle");
  CHECK_NUM(sleep_of(w.in), 5);
  CHECK_NUM(field(w.in, 0, BT_FIELD_LASTTIME), 0);
  write_num(&w, w.hunger, 0.8);
  CHECK_INT(w.wakes, 1);
  CHECK_NUM(field(w.in, 0, BT_FIELD_LASTTIME), NIL_VALUE);
  think(w.in, 0.1);
  CHECK_STR(logs(), "Hunt");
  CHECK_STR(ST(w.in, w.idle), "READY");
  bt_inst_free(w.in);

  /* without abort, the Priority polls at its period and finds the watch true then */
  make_world(&w, BT_PRIORITY, 0);
  logs();
  think(w.in, 0);
  write_num(&w, w.hunger, 0.8);
  CHECK_INT(w.wakes, 0);
  think(w.in, 5);
  CHECK_STR(logs(), "Idle Idle"); /* not due before 10 */
  think(w.in, 10.5);
  CHECK_STR(logs(), "Hunt");
  bt_inst_free(w.in);
}

/* A leaf's write in the think: seen at once by nodes visited later in that think; the wake is
 * the think's end (sleep time 0: next tick), the waker is not called. */
static int KEY_FED = -1;
static void feed(bt_call *c, leaf *l) {
  (void)l;
  bt_value v = num(0.9);
  REQUIRE(bt_inst_key_set(c->inst, KEY_FED, &v) == BT_OK);
}

static void test_own_write(void) {
  leaf EAT = LEAF("Eat", BT_SUCCESS), HUNT2 = LEAF("Hunt", BT_RUNNING), WAIT = LEAF("Wait", BT_RUNNING);
  EAT.hook = feed;
  WAIT.sleep = 3;
  bt_graph *g = new_graph();
  KEY_FED = bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, 0);
  bt_port writes[] = {{"hunger", BT_KEY_NUMBER, BT_PORT_WRITE}};
  int r = add_node(g, BT_ACTIVE_SELECTOR, "Root", 0, 0);
  int wh = add_watch(g, "Hungry", "hunger", BT_CMP_GT, num(0.7), BT_SPEC_ABORT_LOWER);
  int h = add_leaf(g, &HUNT2);
  set_kids(g, wh, 1, h);
  int seq = add_node(g, BT_SEQUENCE, "Then", 0, 0);
  int eat = add_ported(g, &EAT, writes, 1);
  int wh2 = add_watch(g, "Sated", "hunger", BT_CMP_GT, num(0.7), 0);
  int wt = add_leaf(g, &WAIT);
  set_kids(g, seq, 3, eat, wh2, wt);
  set_kids(g, r, 2, wh, seq);
  bt_inst *in = build(g, r, 0);
  int wakes = 0;
  bt_inst_set_waker(in, count_wake, &wakes);
  logs();
  think(in, 0);
  /* Hungry failed before Eat wrote; Sated, visited after, sees 0.9 */
  CHECK_STR(logs(), "Eat Wait");
  CHECK_STR(LST(in, wh2), "SUCCESS");
  CHECK_INT(wakes, 0);
  CHECK_NUM(sleep_of(in), 0); /* Hungry's watch was flipped: next tick */
  think(in, 0.1);
  CHECK_STR(logs(), "Hunt");
  CHECK_NUM(sleep_of(in), 0); /* Hunt never sleeps */
  bt_inst_free(in);
}

/* A watch that aborts itself over a task: the task's finish is told BT_ABORTED. */
static int FINISHED = -1;
static int task_update(bt_call *c) {
  (void)c;
  return BT_RUNNING;
}
static void task_finish(bt_call *c, bt_status s) {
  (void)c;
  FINISHED = (int)s;
}
static const bt_task CHASE = {NULL, task_update, task_finish};

static void test_abort_task(void) {
  bt_graph *g = new_graph();
  int k = bt_graph_add_key(g, "target", BT_KEY_ENTITY, BT_KEY_HOST);
  int r = add_node(g, BT_ACTIVE_SELECTOR, "Root", 0, 0);
  int wt = add_watch(g, "HasTarget", "target", BT_CMP_SET, num(0), BT_SPEC_ABORT_SELF);
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_TASK;
  s.name = "Chase";
  s.task = &CHASE;
  int t = bt_graph_add(g, &s);
  set_kids(g, wt, 1, t);
  set_kids(g, r, 1, wt);
  bt_inst *in = build(g, r, 0);
  int wakes = 0;
  bt_inst_set_waker(in, count_wake, &wakes);
  think(in, 0);
  CHECK_STR(ST(in, wt), "READY"); /* failed, and reset by Step */
  CHECK_NUM(sleep_of(in), NIL_VALUE); /* nothing runs: it hibernates */
  bt_value v = {BT_KEY_ENTITY, {.entity = 7}};
  bt_inst_key_set(in, k, &v);
  CHECK_INT(wakes, 0); /* HasTarget aborts itself only: not running, so this wakes nothing */
  bt_inst_free(in);

  g = new_graph();
  k = bt_graph_add_key(g, "target", BT_KEY_ENTITY, BT_KEY_HOST);
  r = add_node(g, BT_ACTIVE_SELECTOR, "Root", 0, 0);
  wt = add_watch(g, "HasTarget", "target", BT_CMP_SET, num(0), BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER);
  t = bt_graph_add(g, &s);
  set_kids(g, wt, 1, t);
  set_kids(g, r, 1, wt);
  in = build(g, r, 0);
  wakes = 0;
  bt_inst_set_waker(in, count_wake, &wakes);
  think(in, 0);
  CHECK_NUM(sleep_of(in), NIL_VALUE);
  bt_inst_key_set(in, k, &v);
  CHECK_INT(wakes, 1); /* a hibernating tree wakes */
  think(in, 1);
  CHECK_STR(ST(in, t), "RUNNING");
  FINISHED = -1;
  bt_inst_key_set(in, k, NULL);
  CHECK_INT(wakes, 2);
  CHECK_INT(FINISHED, -1); /* not before the think */
  think(in, 2);
  CHECK_INT(FINISHED, BT_ABORTED);
  CHECK_STR(ST(in, t), "READY");
  bt_inst_free(in);
}

/* The hook hears each write, with both values and whether it woke the instance. */
static char HEARD[512];
static int hear(void *ud, bt_inst *in, const bt_hook_msg *m) {
  (void)ud;
  if (m->what != BT_HOOK_KEY) return BT_OK;
  char one[96];
  snprintf(one, sizeof one, "%s:%s>%s%s ", bt_def_key_name(bt_inst_def(in), m->node),
           bt_key_type_name(m->before->type), m->after->type == BT_KEY_NUMBER ? "" : bt_key_type_name(m->after->type),
           m->from ? "!" : "");
  if (m->after->type == BT_KEY_NUMBER) snprintf(one + strlen(one) - (m->from ? 2 : 1), 32, "%g%s ", m->after->as.number, m->from ? "!" : "");
  strncat(HEARD, one, sizeof HEARD - strlen(HEARD) - 1);
  return BT_OK;
}

static void test_hook(void) {
  world w;
  make_world(&w, BT_ACTIVE_SELECTOR, BT_SPEC_ABORT_LOWER);
  think(w.in, 0);
  HEARD[0] = '\0';
  REQUIRE(bt_inst_set_hook(w.in, hear, NULL) == BT_OK);
  write_num(&w, w.hunger, 0.5);
  write_num(&w, w.hunger, 0.5); /* no write */
  write_num(&w, w.hunger, 0.8);
  bt_inst_key_set(w.in, w.hunger, NULL);
  CHECK_STR(HEARD, "hunger:nil>0.5 hunger:number>0.8! hunger:number>nil ");
  bt_inst_free(w.in);
}

/* bt_def_spec gives back what a WatchNode was made with, so that a graph built from it again
 * makes the same tree; and a tree with subtrees keeps its keys. */
static void test_spec_and_subtrees(void) {
  world w;
  make_world(&w, BT_ACTIVE_SELECTOR, BT_SPEC_ABORT_LOWER);
  const bt_def *d = bt_inst_def(w.in);
  bt_spec s;
  CHECK_INT(bt_def_spec(d, at(w.in, w.whunt), &s), BT_OK);
  CHECK_INT(s.kind, BT_WATCH);
  CHECK_STR(s.key, "hunger");
  CHECK_INT(s.cmp, BT_CMP_GT);
  CHECK_NUM(s.value.as.number, 0.7);
  CHECK_INT(s.flags & (BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER), BT_SPEC_ABORT_LOWER);
  CHECK_INT(s.nports, 0); /* its condition's read is no port of its spec */
  CHECK_STR(s.where, "wolf.lua:7");
  CHECK_INT(bt_def_spec(d, at(w.in, w.hunt), &s), BT_OK);
  CHECK_INT(s.nports, 1);
  CHECK_STR(s.ports[0].key, "seen");
  bt_inst_free(w.in);

  bt_lib *lib = NULL;
  REQUIRE(bt_lib_create(&lib) == BT_OK);
  bt_graph *sub = new_graph();
  int ws = add_watch(sub, "Dark", "night", BT_CMP_TRUE, num(0), 0);
  REQUIRE(bt_lib_set(lib, "dark", sub, ws) == BT_OK);
  bt_graph_free(sub);
  bt_graph *g = new_graph();
  int night = bt_graph_add_key(g, "night", BT_KEY_BOOLEAN, BT_KEY_HOST);
  int r = add_node(g, BT_SEQUENCE, "Root", 0, 0);
  bt_spec ref;
  memset(&ref, 0, sizeof ref);
  ref.kind = BT_SUBTREE;
  ref.name = "dark";
  int x = bt_graph_add(g, &ref);
  set_kids(g, r, 1, x);
  bt_def *def = NULL;
  CHECK_INT(bt_def_create_lib(&def, g, r, lib), BT_OK);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  think(in, 0);
  CHECK_INT(bt_node_status(in, 0), BT_READY); /* failed: not night */
  CHECK_INT(bt_node_last(in, 0), BT_FAILED);
  bt_value yes = boolean(1);
  bt_inst_key_set(in, night, &yes);
  think(in, 1);
  CHECK_INT(bt_node_last(in, 0), BT_SUCCESS);
  bt_inst_free(in);
  bt_def_release(def);
  bt_graph_free(g);
  bt_lib_free(lib);
}

/* A tree without keys has no board: its instance is no larger, its thinks as before. */
static void test_no_board(void) {
  leaf L = LEAF("L", BT_SUCCESS);
  bt_graph *g = new_graph();
  int r = add_leaf(g, &L);
  bt_inst *in = build(g, r, 0);
  const bt_def *d = bt_inst_def(in);
  CHECK_INT(bt_def_key_count(d), 0);
  bt_value v;
  CHECK_INT(bt_inst_key_get(in, 0, &v), BT_EINVAL);
  CHECK_INT(bt_inst_key_set(in, 0, NULL), BT_EINVAL);
  bt_inst_free(in);
}

/* A WatchNode whose condition is a function: the function decides, whether it has ports (here it
 * reads key 1, not key 0) or none, and its abort flags hold either way. (Before: a function's
 * condition was taken for `key 0 is true`, and one without ports kept the spec's ud2 as its
 * condition, which crashed its first visit.) */
static void test_function_watch(void) {
  leaf F = FN("F", 1), G = FN("G", 1), A = LEAF("A", BT_RUNNING), B = LEAF("B", BT_RUNNING);
  bt_graph *g = new_graph();
  CHECK_INT(bt_graph_add_key(g, "a", BT_KEY_BOOLEAN, BT_KEY_HOST), 0);
  CHECK_INT(bt_graph_add_key(g, "b", BT_KEY_BOOLEAN, BT_KEY_HOST), 1);
  static const bt_port reads_b[] = {{"b", 0, BT_PORT_READ}};
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_WATCH;
  s.name = "WithPorts";
  s.fn = leaf_fn;
  s.ud = &F;
  s.ports = reads_b;
  s.nports = 1;
  s.flags = BT_SPEC_ABORT_LOWER;
  int w1 = bt_graph_add(g, &s);
  s.name = "NoPorts";
  s.ud = &G;
  s.ports = NULL;
  s.nports = 0;
  s.flags = BT_SPEC_ABORT_SELF;
  s.ud2 = &B; /* not a condition: the engine's own */
  int w2 = bt_graph_add(g, &s);
  REQUIRE(w1 >= 0 && w2 >= 0);
  set_kids(g, w1, 1, add_leaf(g, &A));
  set_kids(g, w2, 1, add_leaf(g, &B));
  int sel = add_node(g, BT_SELECTOR, "Sel", 0, 0);
  set_kids(g, sel, 2, w1, w2);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, sel) == BT_OK);
  bt_graph_free(g);
  bt_inst *in = NULL, *other = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK && bt_inst_create(&other, def, &HOST, NULL, 0) == BT_OK);
  bt_def_release(def);
  think(in, 1); /* F holds: WithPorts runs A, though key 0 is unset */
  CHECK_INT(bt_node_status(in, 1), BT_RUNNING);
  CHECK_INT(bt_node_status(in, 2), BT_RUNNING);
  F.result = 0;
  think(other, 1); /* F fails: NoPorts's G decides */
  CHECK(bt_node_status(other, 1) != BT_RUNNING);
  CHECK_INT(bt_node_status(other, 3), BT_RUNNING);
  CHECK_INT(bt_node_status(other, 4), BT_RUNNING);
  bt_inst_free(other);
  bt_spec out;
  REQUIRE(bt_def_spec(bt_inst_def(in), 1, &out) == BT_OK);
  CHECK(out.key == NULL);
  CHECK_INT(out.nports, 1);
  CHECK(out.flags & BT_SPEC_ABORT_LOWER);
  REQUIRE(bt_def_spec(bt_inst_def(in), 3, &out) == BT_OK);
  CHECK(out.key == NULL);
  CHECK_INT(out.nports, 0);
  CHECK(out.flags & BT_SPEC_ABORT_SELF);
  bt_inst_free(in);
}

/* Two trees of the same nodes whose blackboards differ (a WatchNode's value, a key's type, a
 * port) have other hashes and are not equal; built alike, they are. (Before: the hash and
 * bt_def_equal looked at the nodes only, so a log named both trees' keys by the first's.) */
static bt_def *watch_tree(double over, int count_type, unsigned how) {
  leaf L = LEAF("L", BT_RUNNING);
  bt_graph *g = new_graph();
  REQUIRE(bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST) == 0);
  REQUIRE(bt_graph_add_key(g, "count", count_type, BT_KEY_HOST) == 1);
  bt_port port = {"count", 0, how};
  int w = add_watch(g, "Hungry", "hunger", BT_CMP_GT, num(over), 0);
  set_kids(g, w, 1, add_ported(g, &L, &port, 1));
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, w) == BT_OK);
  bt_graph_free(g);
  return def;
}

static void test_hash_covers_the_board(void) {
  bt_def *a = watch_tree(0.7, BT_KEY_INTEGER, BT_PORT_READ), *same = watch_tree(0.7, BT_KEY_INTEGER, BT_PORT_READ);
  bt_def *value = watch_tree(0.5, BT_KEY_INTEGER, BT_PORT_READ), *type = watch_tree(0.7, BT_KEY_NUMBER, BT_PORT_READ);
  bt_def *port = watch_tree(0.7, BT_KEY_INTEGER, BT_PORT_READ | BT_PORT_WRITE);
  CHECK(bt_def_hash(a) == bt_def_hash(same));
  bt_def *others[] = {value, type, port};
  for (int i = 0; i < 3; i++) {
    CHECK(bt_def_hash(a) != bt_def_hash(others[i]));
    CHECK(!bt_def_equal(a, others[i]));
  }
  bt_def_release(a);
  bt_def_release(same);
  for (int i = 0; i < 3; i++) bt_def_release(others[i]);
}

/* A running WatchNode's DBString is its condition and abort mode, in the dump as in
 * bt_node_describe; the dump shows no ports (a line per node, as Don't Starve's). */
static void test_watch_describe(void) {
  leaf hunt = LEAF("Hunt", BT_RUNNING), sleep = LEAF("Sleep", BT_RUNNING), wander = LEAF("Wander", BT_RUNNING);
  bt_def *def = board_def(&hunt, &sleep, &wander);
  bt_inst *in = NULL;
  REQUIRE(bt_inst_create(&in, def, &HOST, NULL, 0) == BT_OK);
  bt_def_release(def);
  REQUIRE(set_key(in, KEY_HUNGER, num_value(0.9)) == BT_OK);
  think(in, 1);
  CHECK_STR(dump(in), "Root - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00\n"
                      "   >Hungry - RUNNING <RUNNING> (hunger > 0.7, abort lower)>0.00\n"
                      "   >   >Hunt - RUNNING <RUNNING> ()>0.00\n"
                      "   >Night - READY <READY> ()>0.00\n"
                      "   >   >Sleep - READY <READY> ()>0.00\n"
                      "   >Wander - READY <READY> ()>0.00\n");
  bt_buf b = {0};
  CHECK_INT(bt_node_describe(in, 1, &b), BT_OK);
  CHECK_STR(b.data, "hunger > 0.7, abort lower");
  b.len = 0;
  CHECK_INT(bt_node_describe(in, 3, &b), BT_OK);
  CHECK_STR(b.data, "night is true");
  bt_buf_free(&b);
  bt_inst_free(in);
}

/* ---- with the scheduler: a write wakes the brain in the frame of the change ---- */

static void test_sched_wakes(void) {
  bt_sched *s = NULL;
  REQUIRE(bt_sched_create(&s, 0.1) == BT_OK);
  world w;
  make_world(&w, BT_ACTIVE_SELECTOR, BT_SPEC_ABORT_LOWER);
  int b = bt_sched_brain_create(s);
  REQUIRE(bt_sched_set_inst(s, b, w.in) == BT_OK);
  REQUIRE(bt_sched_add(s, b) == BT_OK);
  bt_sched_stats st;
  logs();
  for (long long t = 1; t <= 10; t++) {
    T = (double)t * 0.1;
    if (t == 5) write_num(&w, w.hunger, 0.5); /* flips nothing: no think */
    bt_sched_update(s, t, NULL);
  }
  bt_sched_stats_get(s, &st);
  CHECK_INT(st.thinks, 1); /* tick 1 only: Idle sleeps 5 s */
  CHECK_STR(logs(), "Idle");
  /* a write before the frame of tick 11 is acted on in that frame */
  write_num(&w, w.hunger, 0.8);
  T = 1.1;
  bt_sched_update(s, 11, NULL);
  bt_sched_stats_get(s, &st);
  CHECK_INT(st.thinks, 2);
  CHECK_STR(logs(), "Hunt");
  /* through the scheduler: the same, for a key and a value of the wrong type */
  bt_value e = {BT_KEY_ENTITY, {.entity = 9}};
  CHECK_INT(bt_sched_key_set(s, b, w.threat, &e), BT_OK);
  T = 1.2;
  bt_sched_update(s, 12, NULL);
  CHECK_STR(logs(), "Flee");
  CHECK_INT(bt_sched_key_set(s, b, w.threat, &(bt_value){BT_KEY_NUMBER, {.number = 1}}), BT_EINVAL);
  CHECK_INT(bt_sched_key_set(s, b + 1, w.threat, &e), BT_EINVAL);
  bt_sched_free(s);
  bt_inst_free(w.in);
}

/* A ring of agents on workers: an alarmed agent raises the alarm of the next one, through
 * bt_sched_key_set from its leaf. Queued and applied at the frame's end, each write makes the
 * next agent act in the next frame, on 1, 2 or 3 workers alike. */
#define RING 12
static bt_sched *RING_S;
static int RING_BRAIN[RING];
static int RING_ALARM;
static long long ALARMED_AT[RING];
static long long RING_TICK;

static int alarmed(bt_call *c) {
  int me = (int)(intptr_t)bt_inst_agent(c->inst);
  if (!ALARMED_AT[me]) ALARMED_AT[me] = RING_TICK;
  bt_value yes = {BT_KEY_BOOLEAN, {.boolean = 1}};
  if (me + 1 < RING) bt_sched_key_set(RING_S, RING_BRAIN[me + 1], RING_ALARM, &yes);
  bt_node_set_status(c->inst, c->node, BT_RUNNING);
  bt_node_sleep(c->inst, c->node, 100);
  return BT_OK;
}
static const bt_ops ALARMED = {alarmed, NULL, NULL, NULL, NULL, NULL};
/* Idle: RUNNING for 100 s (no log: the workers think it at once) */
static int idle(bt_call *c) {
  bt_node_set_status(c->inst, c->node, BT_RUNNING);
  bt_node_sleep(c->inst, c->node, 100);
  return BT_OK;
}
static const bt_ops IDLE_OPS = {idle, NULL, NULL, NULL, NULL, NULL};

static void run_ring(int workers, long long *out) {
  bt_graph *g = new_graph();
  RING_ALARM = bt_graph_add_key(g, "alarm", BT_KEY_BOOLEAN, BT_KEY_HOST);
  int r = add_node(g, BT_ACTIVE_SELECTOR, "Root", 0, 0);
  int wa = add_watch(g, "Alarm", "alarm", BT_CMP_TRUE, num(0), BT_SPEC_ABORT_LOWER);
  bt_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = BT_BEHAVIOUR;
  sp.name = "Alarmed";
  sp.ops = &ALARMED;
  int a = bt_graph_add(g, &sp);
  sp.name = "Idle";
  sp.ops = &IDLE_OPS;
  int rest = bt_graph_add(g, &sp);
  set_kids(g, wa, 1, a);
  set_kids(g, r, 2, wa, rest);
  bt_def *def = NULL;
  REQUIRE(bt_def_create(&def, g, r) == BT_OK);
  bt_graph_free(g);
  REQUIRE(bt_sched_create(&RING_S, 0.1) == BT_OK);
  REQUIRE(bt_sched_set_threads(RING_S, workers) == BT_OK);
  REQUIRE(bt_sched_set_batch_size(RING_S, 2) == BT_OK);
  bt_inst *in[RING];
  for (int i = 0; i < RING; i++) {
    REQUIRE(bt_inst_create(&in[i], def, &HOST, (void *)(intptr_t)i, 0) == BT_OK);
    RING_BRAIN[i] = bt_sched_brain_create(RING_S);
    REQUIRE(bt_sched_set_inst(RING_S, RING_BRAIN[i], in[i]) == BT_OK);
    REQUIRE(bt_sched_add(RING_S, RING_BRAIN[i]) == BT_OK);
    ALARMED_AT[i] = 0;
  }
  bt_def_release(def);
  bt_value yes = {BT_KEY_BOOLEAN, {.boolean = 1}};
  for (RING_TICK = 1; RING_TICK <= 30; RING_TICK++) {
    T = (double)RING_TICK * 0.1;
    if (RING_TICK == 5) REQUIRE(bt_sched_key_set(RING_S, RING_BRAIN[0], RING_ALARM, &yes) == BT_OK);
    REQUIRE(bt_sched_update(RING_S, RING_TICK, NULL) == BT_OK);
  }
  bt_sched_stats st;
  bt_sched_stats_get(RING_S, &st);
  out[RING] = st.thinks;
  for (int i = 0; i < RING; i++) out[i] = ALARMED_AT[i];
  bt_sched_free(RING_S);
  for (int i = 0; i < RING; i++) bt_inst_free(in[i]);
}

static void test_ring_on_workers(void) {
  long long one[RING + 1], other[RING + 1];
  run_ring(1, one);
  for (int i = 0; i < RING; i++) CHECK_INT(one[i], 5 + i); /* one agent a frame, from tick 5 */
  CHECK_INT(one[RING], RING + RING); /* each agent's first think, and its alarm: nothing polls */
  for (int workers = 2; workers <= 3; workers++) {
    run_ring(workers, other);
    for (int i = 0; i <= RING; i++) CHECK_INT(other[i], one[i]);
  }
}

int main(void) {
  test_keys();
  test_watch_describe();
  test_hash_covers_the_board();
  test_function_watch();
  test_ports();
  test_active_selector();
  test_priority();
  test_own_write();
  test_abort_task();
  test_hook();
  test_spec_and_subtrees();
  test_no_board();
  test_sched_wakes();
  test_ring_on_workers();
  return check_report("test_board");
}
