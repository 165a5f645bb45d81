/* SPDX-License-Identifier: MIT */
/*
 * bench_view.c: what the live viewer costs a game's thinks (issue 18, docs/viewer.md "Cost").
 * Runs `bt-arena --agents N --seconds S --headless --ring 128` (every brain records into a ring
 * of 128 records, as --viewer has it: the recorder is on) without and with `--viewer 0`,
 * alternately, ROUNDS times each; with the viewer,
 * two WebSocket clients (C, over raw sockets) each subscribe to two creatures and read everything
 * the server sends, and a third asks for /api/agents once a second, as an open page does. Prints
 * each run's brain_us_per_tick (the brains' Update: the think path) and host_us_per_tick (the rest
 * of the tick, the viewer's bt_view_frame included), then the medians side by side and the ratio.
 *
 * usage: bench_view BT_ARENA [--agents N] [--seconds S] [--rounds R]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

typedef struct run {
  double brain, host;
  unsigned long long messages, bytes; /* what the stream clients read */
} run;

typedef struct streamer {
  int port, subscribe_from; /* subscribes to the agents at these places of /api/agents */
  volatile int *stop;
  unsigned long long messages, bytes;
  int subscribed;
} streamer;

static void sleep_ms(int ms) { nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL); }

/* the ids of /api/agents in order (at most max) */
static int agent_ids(int port, long *ids, int max) {
  char *body = NULL;
  int n = 0;
  if (http_get(port, "/api/agents", &body) == 200)
    for (const char *p = body; n < max && (p = strstr(p, "{\"id\":")) != NULL; p += 6) ids[n++] = strtol(p + 6, NULL, 10);
  free(body);
  return n;
}

static void *stream_main(void *arg) {
  streamer *s = arg;
  long ids[64];
  int n = 0;
  while (!*s->stop && (n = agent_ids(s->port, ids, 64)) < s->subscribe_from + 2) sleep_ms(20);
  if (*s->stop) return NULL;
  int status;
  int fd = ws_open(s->port, "/api/stream", NULL, NULL, 0, &status);
  if (fd < 0) return NULL;
  char sub[128];
  snprintf(sub, sizeof sub, "{\"subscribe\":[%ld,%ld]}", ids[s->subscribe_from], ids[s->subscribe_from + 1]);
  ws_send_text(fd, sub);
  s->subscribed = 1;
  for (;;) {
    char *msg;
    if (ws_recv(fd, &msg, 60000) < 0) break; /* the arena ended */
    s->messages++;
    s->bytes += strlen(msg);
    free(msg);
  }
  close(fd);
  return NULL;
}

static void *poll_main(void *arg) {
  streamer *s = arg;
  while (!*s->stop) {
    char *body = NULL;
    if (http_get(s->port, "/api/agents", &body) == 200) s->messages++;
    free(body);
    sleep_ms(1000);
  }
  return NULL;
}

static int run_arena(const char *arena, int agents, double seconds, int viewer, run *out) {
  char agents_s[32], seconds_s[32];
  snprintf(agents_s, sizeof agents_s, "%d", agents);
  snprintf(seconds_s, sizeof seconds_s, "%g", seconds);
  char *argv[] = {(char *)arena, "--agents", agents_s, "--seconds", seconds_s, "--headless", "--ring", "128",
                  viewer ? "--viewer" : NULL, "0", NULL};
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) || pipe(err_pipe)) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    execv(arena, argv);
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  volatile int stop = 0;
  streamer st[3];
  pthread_t th[3];
  int threads = 0;
  memset(st, 0, sizeof st);
  if (viewer) { /* the URL, then the clients */
    char buf[512];
    size_t got = 0;
    int port = -1;
    while (got < sizeof buf - 1 && port < 0 && client_wait(err_pipe[0], 60000)) {
      ssize_t n = read(err_pipe[0], buf + got, sizeof buf - 1 - got);
      if (n <= 0) break;
      got += (size_t)n;
      buf[got] = 0;
      const char *p = strstr(buf, "viewer: http://127.0.0.1:");
      if (p && strchr(p, '\n')) port = atoi(p + strlen("viewer: http://127.0.0.1:"));
    }
    if (port > 0) {
      for (int i = 0; i < 3; i++) {
        st[i] = (streamer){port, 2 * i, &stop, 0, 0, 0};
        pthread_create(&th[i], NULL, i < 2 ? stream_main : poll_main, &st[i]);
      }
      threads = 3;
    }
  }
  char line[4096];
  size_t got = 0;
  for (ssize_t n; got < sizeof line - 1 && (n = read(out_pipe[0], line + got, sizeof line - 1 - got)) > 0;)
    got += (size_t)n;
  line[got] = 0;
  int status;
  waitpid(pid, &status, 0);
  stop = 1;
  for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
  close(out_pipe[0]);
  close(err_pipe[0]);
  const char *b = strstr(line, "brain_us_per_tick="), *h = strstr(line, "host_us_per_tick=");
  if (!b || !h) {
    fprintf(stderr, "bench_view: the arena printed no summary: %s\n", line);
    return -1;
  }
  out->brain = strtod(b + strlen("brain_us_per_tick="), NULL);
  out->host = strtod(h + strlen("host_us_per_tick="), NULL);
  out->messages = st[0].messages + st[1].messages;
  out->bytes = st[0].bytes + st[1].bytes;
  if (viewer && !(st[0].subscribed && st[1].subscribed))
    fprintf(stderr, "bench_view: a stream client did not get to subscribe\n");
  return 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_view BT_ARENA [--agents N] [--seconds S] [--rounds R]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int agents = 5000, rounds = 3;
  double seconds = 10;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--agents") == 0) agents = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  if (rounds < 1 || rounds > 50) rounds = 3;
  printf("viewer cost: bt-arena --agents %d --seconds %g --headless --ring 128, without and with --viewer 0\n"
         "(two WebSocket clients subscribed to two creatures each, one /api/agents a second), %d rounds "
         "alternated\n",
         agents, seconds, rounds);
  printf("%-6s %14s %14s %14s %14s %10s\n", "round", "brain_us off", "brain_us on", "host_us off", "host_us on",
         "msgs read");
  double boff[50], bon[50], hoff[50], hon[50];
  for (int r = 0; r < rounds; r++) {
    run off, on;
    if (run_arena(argv[1], agents, seconds, 0, &off) || run_arena(argv[1], agents, seconds, 1, &on)) return 1;
    boff[r] = off.brain;
    bon[r] = on.brain;
    hoff[r] = off.host;
    hon[r] = on.host;
    printf("%-6d %14.0f %14.0f %14.0f %14.0f %10llu\n", r + 1, off.brain, on.brain, off.host, on.host, on.messages);
    fflush(stdout);
  }
  double mb_off = median(boff, rounds), mb_on = median(bon, rounds);
  double mh_off = median(hoff, rounds), mh_on = median(hon, rounds);
  printf("%-6s %14.0f %14.0f %14.0f %14.0f\n", "median", mb_off, mb_on, mh_off, mh_on);
  printf("brain time with the viewer: %.3f of without (target: at most 1.10); the viewer's frame: %.0f us a tick "
         "(host time)\n",
         mb_on / mb_off, mh_on - mh_off);
  return 0;
}
