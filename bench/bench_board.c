/* SPDX-License-Identifier: MIT */
/*
 * bench_board.c: a brain that polls against the same decisions on the blackboard.
 *
 * Each agent flees while the world says it is threatened, eats while it is hungry (hunger above
 * 0.7), and rests otherwise. The world changes one of the two things each agent watches at random
 * times, every 10 s on average (uniform between 1 and 19 s, seeded; none in the last second, so
 * that both brains have acted on every change when the run ends). Two brains run the same
 * world on the scheduler (30 ticks a second, serial, the instances thinking themselves):
 *
 *   polling     Don't Starve's style: Priority(0.5){While(threatened, Flee), While(hungry, Eat),
 *               Rest}, its conditions reading the agent's fields;
 *   blackboard  ActiveSelector{Watch(threat, both): Flee, Watch(hunger > 0.7, both): Eat, Rest},
 *               the world writing the agent's keys (bt_inst_key_set) before the frame.
 *
 * The actions run until something else is chosen (they sleep 60 s). The program checks that each
 * agent starts the same actions in the same order under both brains, and prints thinks per
 * simulated second, CPU time per agent and simulated second, and the time from a change to the
 * first action on it. The targets of issue 31: at least 10x fewer thinks and 5x less CPU for the
 * blackboard brain, and its action in the frame of the change (latency 0).
 *
 *   bench_board [--agents N] [--seconds S] [--seed X] [--rounds R]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt.h"

#define TICKS_PER_SECOND 30
#define HUNGRY 0.7
#define MAX_STARTS 256

enum { FLEE, EAT, REST, ACTIONS };
static const char *const action_names[ACTIONS] = {"Flee", "Eat", "Rest"};

typedef struct agent {
  int threatened;
  double hunger;
  double next_change;  /* when the world changes what it watches next */
  double changed;      /* when the decision last changed, or -1 once an action followed */
  int nstarts;
  unsigned char starts[MAX_STARTS]; /* the actions started, in order */
  bt_inst *in;
  int brain;
} agent;

typedef struct run {
  const char *name;
  long long thinks;
  double cpu;            /* seconds of the frames and the world's writes */
  double latency_sum, latency_max;
  long long reactions;
  agent *agents;
} run;

static double T; /* the simulated time */
static double clock_now(void *data) {
  (void)data;
  return T;
}
static const bt_host HOST = {clock_now, NULL, NULL, NULL};

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64*: the world's random stream, the same for both brains */
static uint64_t rng;
static double uniform(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static run *current;

static agent *agent_of(bt_call *c) { return &current->agents[(intptr_t)bt_inst_agent(c->inst)]; }

/* The actions: started when not RUNNING (logged), then RUNNING, sleeping 60 s. */
static int act(bt_call *c) {
  agent *a = agent_of(c);
  int action = (int)(intptr_t)c->ud;
  if (bt_node_status(c->inst, c->node) != BT_RUNNING) {
    if (a->nstarts < MAX_STARTS) a->starts[a->nstarts] = (unsigned char)action;
    a->nstarts++;
    if (a->changed >= 0) {
      double l = T - a->changed;
      current->latency_sum += l;
      if (l > current->latency_max) current->latency_max = l;
      current->reactions++;
      a->changed = -1;
    }
  }
  bt_node_set_status(c->inst, c->node, BT_RUNNING);
  bt_node_sleep(c->inst, c->node, 60);
  return BT_OK;
}
static const bt_ops ACTION = {act, NULL, NULL, NULL, NULL, NULL};

static int threatened(bt_call *c) { return agent_of(c)->threatened; }
static int hungry(bt_call *c) { return agent_of(c)->hunger > HUNGRY; }

static int add(bt_graph *g, int kind, const char *name, double param) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.name = name;
  s.param = param;
  s.flags = BT_SPEC_NOSCATTER;
  return bt_graph_add(g, &s);
}

static int add_action(bt_graph *g, int action) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_BEHAVIOUR;
  s.name = action_names[action];
  s.ops = &ACTION;
  s.ops_ud = (void *)(intptr_t)action;
  return bt_graph_add(g, &s);
}

static int add_condition(bt_graph *g, bt_fn fn, const char *name) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_CONDITION;
  s.name = name;
  s.fn = fn;
  return bt_graph_add(g, &s);
}

static void kids(bt_graph *g, int parent, int n, const int *k) { bt_graph_set_children(g, parent, k, n); }

/* Priority(0.5){While(threatened, Flee), While(hungry, Eat), Rest} */
static bt_def *polling_def(void) {
  bt_graph *g;
  bt_graph_create(&g);
  int root = add(g, BT_PRIORITY, "Root", 0.5);
  int w1 = add(g, BT_PARALLEL, "Flee", 0), w2 = add(g, BT_PARALLEL, "Eat", 0);
  int k1[2] = {add_condition(g, threatened, "Threatened"), add_action(g, FLEE)};
  int k2[2] = {add_condition(g, hungry, "Hungry"), add_action(g, EAT)};
  kids(g, w1, 2, k1);
  kids(g, w2, 2, k2);
  int top[3] = {w1, w2, add_action(g, REST)};
  kids(g, root, 3, top);
  bt_def *d = NULL;
  if (bt_def_create(&d, g, root) != BT_OK) fprintf(stderr, "bench_board: %s\n", bt_graph_errmsg(g));
  bt_graph_free(g);
  return d;
}

static int KEY_THREAT, KEY_HUNGER;

/* ActiveSelector{Watch(threat, both): Flee, Watch(hunger > 0.7, both): Eat, Rest} */
static bt_def *board_def(void) {
  bt_graph *g;
  bt_graph_create(&g);
  KEY_THREAT = bt_graph_add_key(g, "threat", BT_KEY_BOOLEAN, BT_KEY_HOST);
  KEY_HUNGER = bt_graph_add_key(g, "hunger", BT_KEY_NUMBER, BT_KEY_HOST);
  int root = add(g, BT_ACTIVE_SELECTOR, "Root", 0);
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_WATCH;
  s.flags = BT_SPEC_ABORT_SELF | BT_SPEC_ABORT_LOWER;
  s.name = "Threatened";
  s.key = "threat";
  s.cmp = BT_CMP_TRUE;
  int w1 = bt_graph_add(g, &s);
  s.name = "Hungry";
  s.key = "hunger";
  s.cmp = BT_CMP_GT;
  s.value.type = BT_KEY_NUMBER;
  s.value.as.number = HUNGRY;
  int w2 = bt_graph_add(g, &s);
  int f = add_action(g, FLEE), e = add_action(g, EAT);
  kids(g, w1, 1, &f);
  kids(g, w2, 1, &e);
  int top[3] = {w1, w2, add_action(g, REST)};
  kids(g, root, 3, top);
  bt_def *d = NULL;
  if (bt_def_create(&d, g, root) != BT_OK) fprintf(stderr, "bench_board: %s\n", bt_graph_errmsg(g));
  bt_graph_free(g);
  return d;
}

static int decision(const agent *a) { return a->threatened ? FLEE : a->hunger > HUNGRY ? EAT : REST; }

/* The world's change of one agent: its threat toggled, or a new hunger; the board brain's keys
 * written. */
static void change(agent *a, int board) {
  int before = decision(a);
  if (uniform() < 0.5) a->threatened = !a->threatened;
  else a->hunger = uniform();
  a->next_change = T + 1 + 18 * uniform();
  if (decision(a) != before) a->changed = T;
  if (!board) return;
  bt_value v = {BT_KEY_BOOLEAN, {.boolean = a->threatened}};
  bt_inst_key_set(a->in, KEY_THREAT, &v);
  v.type = BT_KEY_NUMBER;
  v.as.number = a->hunger;
  bt_inst_key_set(a->in, KEY_HUNGER, &v);
}

static int simulate(run *r, int board, int n, double seconds, uint64_t seed) {
  bt_def *def = board ? board_def() : polling_def();
  bt_sched *s = NULL;
  if (!def || bt_sched_create(&s, 1.0 / TICKS_PER_SECOND) != BT_OK) return 1;
  r->agents = calloc((size_t)n, sizeof *r->agents);
  if (!r->agents) return 1;
  current = r;
  rng = seed;
  T = 0;
  for (int i = 0; i < n; i++) {
    agent *a = &r->agents[i];
    a->hunger = uniform() * HUNGRY; /* not hungry, not threatened: resting */
    a->next_change = 1 + 18 * uniform();
    a->changed = -1;
    if (bt_inst_create(&a->in, def, &HOST, (void *)(intptr_t)i, 0) != BT_OK) return 1;
    if (board) {
      bt_value v = {BT_KEY_BOOLEAN, {.boolean = 0}};
      bt_inst_key_set(a->in, KEY_THREAT, &v);
      v.type = BT_KEY_NUMBER;
      v.as.number = a->hunger;
      bt_inst_key_set(a->in, KEY_HUNGER, &v);
    }
    a->brain = bt_sched_brain_create(s);
    if (bt_sched_set_inst(s, a->brain, a->in) != BT_OK || bt_sched_add(s, a->brain) != BT_OK) return 1;
  }
  long long ticks = (long long)(seconds * TICKS_PER_SECOND);
  double t0 = cpu_now();
  for (long long tick = 1; tick <= ticks; tick++) {
    T = (double)tick / TICKS_PER_SECOND;
    for (int i = 0; i < n && T < seconds - 1; i++) /* (the last second: time to react) */
      if (r->agents[i].next_change <= T) change(&r->agents[i], board);
    bt_sched_update(s, tick, NULL);
  }
  r->cpu = cpu_now() - t0;
  bt_sched_stats st;
  bt_sched_stats_get(s, &st);
  r->thinks = st.thinks;
  bt_sched_free(s);
  for (int i = 0; i < n; i++) bt_inst_free(r->agents[i].in);
  bt_def_release(def);
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: bench_board [--agents N] [--seconds S] [--seed X] [--rounds R]\n");
  return 2;
}

int main(int argc, char **argv) {
  int n = 10000, rounds = 3;
  double seconds = 600;
  unsigned long long seed = 31;
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (i + 1 >= argc) return usage();
    if (strcmp(argv[i], "--agents") == 0) n = (int)strtol(argv[++i], &end, 10);
    else if (strcmp(argv[i], "--seconds") == 0) seconds = strtod(argv[++i], &end);
    else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[++i], &end, 10);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = (int)strtol(argv[++i], &end, 10);
    else return usage();
    if (!end || *end || n < 1 || !(seconds >= 1) || rounds < 1 || seed == 0) return usage();
  }
  printf("bench_board: %d agents, %g simulated seconds, %d ticks a second, a change every 10 s on "
         "average (seed %llu), best of %d\n",
         n, seconds, TICKS_PER_SECOND, seed, rounds);
  printf("%-11s %14s %14s %16s %14s %14s\n", "brain", "thinks", "thinks/agent-s", "CPU ns/agent-s",
         "latency mean", "latency max");
  run best[2];
  memset(best, 0, sizeof best);
  int differ = 0;
  for (int round = 0; round < rounds; round++) {
    run r[2] = {{"polling", 0, 0, 0, 0, 0, NULL}, {"blackboard", 0, 0, 0, 0, 0, NULL}};
    for (int b = 0; b < 2; b++)
      if (simulate(&r[b], b, n, seconds, seed)) {
        fprintf(stderr, "bench_board: out of memory or a bad tree\n");
        return 1;
      }
    for (int i = 0; i < n; i++) {
      const agent *x = &r[0].agents[i], *y = &r[1].agents[i];
      if (x->nstarts != y->nstarts || memcmp(x->starts, y->starts, x->nstarts < MAX_STARTS ? (size_t)x->nstarts : MAX_STARTS))
        differ++;
    }
    for (int b = 0; b < 2; b++) {
      if (round == 0 || r[b].cpu < best[b].cpu) {
        free(best[b].agents);
        best[b] = r[b];
      } else {
        free(r[b].agents);
      }
    }
  }
  double agent_seconds = (double)n * seconds;
  for (int b = 0; b < 2; b++) {
    const run *r = &best[b];
    printf("%-11s %14lld %14.3f %16.0f %12.3f s %12.3f s\n", r->name, r->thinks, (double)r->thinks / agent_seconds,
           r->cpu / agent_seconds * 1e9, r->reactions ? r->latency_sum / (double)r->reactions : 0, r->latency_max);
  }
  double fewer = best[1].thinks ? (double)best[0].thinks / (double)best[1].thinks : 0;
  double less = best[1].cpu > 0 ? best[0].cpu / best[1].cpu : 0;
  long long starts = 0;
  for (int i = 0; i < n; i++) starts += best[0].agents[i].nstarts;
  printf("the same actions, in the same order, for every agent: %s (%lld actions started, %lld reactions)\n",
         differ ? "NO" : "yes", starts, best[1].reactions);
  printf("blackboard against polling: %.1fx fewer thinks (target 10x), %.1fx less CPU (target 5x), "
         "action %s the frame of the change\n",
         fewer, less, best[1].latency_max == 0 ? "in" : "after");
  free(best[0].agents);
  free(best[1].agents);
  return differ ? 1 : 0;
}
