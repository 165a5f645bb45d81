/* SPDX-License-Identifier: MIT */
/* arena_viewer.c (ctest arena.viewer): bt-arena --viewer as the page sees it: started headless on a free port
 * (--viewer 0, --threads 2), it prints the URL; /api/agents lists every creature of both Lua states with their kind, id, brain
 * file and position; a creature's state and history agree (seq); the stream brings frames with
 * counts and the records of a subscribed creature, whose state then has its running nodes' DBStrings. And --viewer's optional port does not swallow
 * the flag after it. Then `bt-log view` on a log the arena recorded: its agents, a window of
 * history. usage: arena_viewer BT_ARENA BT_LOG */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "client.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static pid_t start_arena_to(const char *arena, char *const extra[], int *err_fd, int out) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], out);
    close(fds[0]);
    close(fds[1]);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)arena;
    for (int i = 0; extra[i]; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    execv(arena, argv);
    _exit(127);
  }
  close(fds[1]);
  *err_fd = fds[0];
  return pid;
}

static pid_t start_arena(const char *arena, char *const extra[], int *err_fd) {
  return start_arena_to(arena, extra, err_fd, 2);
}

/* reads the arena's standard error until "viewer: http://127.0.0.1:PORT/": the port, or -1 */
static int read_port(int fd) {
  char buf[4096];
  size_t got = 0;
  while (got < sizeof buf - 1 && client_wait(fd, 30000)) {
    ssize_t n = read(fd, buf + got, sizeof buf - 1 - got);
    if (n <= 0) break;
    got += (size_t)n;
    buf[got] = 0;
    const char *p = strstr(buf, "viewer: http://127.0.0.1:");
    if (p && strchr(p, '\n')) return atoi(p + strlen("viewer: http://127.0.0.1:"));
  }
  fprintf(stderr, "the arena did not print its URL; it said: %s\n", buf);
  return -1;
}

static int contains(const char *s, const char *what) {
  if (s && strstr(s, what)) return 1;
  fprintf(stderr, "expected to find %s in: %.400s\n", what, s ? s : "(null)");
  return 0;
}

/* 1 if a state's "dbstrings" hold a string (not only nulls) */
static int has_dbstring(const char *state) {
  const char *p = state ? strstr(state, "\"dbstrings\":[") : NULL;
  if (!p) return 0;
  p += strlen("\"dbstrings\":[");
  const char *end = strchr(p, ']');
  const char *quote = strchr(p, '"');
  return quote && (!end || quote < end);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: arena_viewer BT_ARENA BT_LOG\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int err_fd;
  /* --viewer 0 then --headless: the port is 0, the flag after it is a flag */
  /* on two Lua states (--threads 2): the recorders of both are registered */
  char *args[] = {"--viewer", "0", "--headless", "--seconds", "100000", "--agents", "60", "--threads", "2", NULL};
  pid_t pid = start_arena(argv[1], args, &err_fd);
  CHECK(pid > 0);
  int port = read_port(err_fd);
  CHECK(port > 0);
  if (port > 0) {
    char *body = NULL;
    /* wait (bounded) until the brains have started and been registered */
    int labels = 0;
    for (int i = 0; i < 200; i++) {
      free(body);
      body = NULL;
      http_get(port, "/api/agents", &body);
      labels = 0;
      for (const char *p = body; p && (p = strstr(p, "\"label\":")); p++) labels++;
      if (labels >= 60 && strstr(body, "\"x\":") && !strstr(body, "\"frame\":0,"))
        break; /* every creature, and a frame copied their records */
      nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    CHECK_INT(labels, 60); /* every creature, whichever state thinks it */
    CHECK(contains(body, "\"label\":\"sheep "));
    CHECK(contains(body, "\"label\":\"wolf "));
    CHECK(contains(body, "\"brain\":\"brains/sheep.lua\""));
    CHECK(contains(body, "\"x\":"));
    /* a sheep's id (sheep graze and flee all day: their brains think), its state, its history */
    long id = -1;
    const char *sheep = body ? strstr(body, "\"label\":\"sheep ") : NULL;
    if (sheep) id = strtol(sheep + strlen("\"label\":\"sheep "), NULL, 10);
    CHECK(id > 0);
    free(body);
    char path[128];
    snprintf(path, sizeof path, "/api/agents/%ld", id);
    CHECK_INT(http_get(port, path, &body), 200);
    CHECK(contains(body, "\"statuses\":["));
    CHECK(contains(body, "\"label\":\"sheep "));
    free(body);
    snprintf(path, sizeof path, "/api/agents/%ld/history?count=10", id);
    CHECK_INT(http_get(port, path, &body), 200);
    CHECK(contains(body, "\"records\":[{\"seq\":"));
    free(body);
    /* the stream */
    int status;
    int fd = ws_open(port, "/api/stream", NULL, NULL, 0, &status);
    CHECK_INT(status, 101);
    char sub[64];
    snprintf(sub, sizeof sub, "{\"subscribe\":[%ld]}", id);
    ws_send_text(fd, sub);
    int frames = 0, records = 0;
    char want[64];
    snprintf(want, sizeof want, "\"type\":\"records\",\"agent\":%ld,", id);
    for (int i = 0; i < 5000 && !(frames && records); i++) {
      char *msg;
      if (ws_recv(fd, &msg, 30000) < 0) {
        fprintf(stderr, "the stream ended after %d messages\n", i);
        break;
      }
      frames += strstr(msg, "\"type\":\"frame\"") != NULL;
      records += strstr(msg, want) != NULL;
      free(msg);
    }
    CHECK(frames > 0);
    CHECK(records > 0);
    /* while a page shows it, its running nodes' DBStrings (Lua methods, described inside its
     * thinks) come with its state */
    int described = 0;
    for (int i = 0; i < 300 && !described; i++) {
      char *state = NULL;
      snprintf(path, sizeof path, "/api/agents/%ld", id);
      http_get(port, path, &state);
      described = has_dbstring(state);
      free(state);
      if (!described) nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    CHECK(described);
    close(fd);
  }
  kill(pid, SIGTERM);
  int st;
  waitpid(pid, &st, 0);
  close(err_fd);

  /* a bad port */
  char *bad[] = {"--viewer=70000", "--headless", NULL};
  pid = start_arena(argv[1], bad, &err_fd);
  char msg[512] = "";
  size_t got = 0;
  for (ssize_t n; got < sizeof msg - 1 && client_wait(err_fd, 30000) &&
                  (n = read(err_fd, msg + got, sizeof msg - 1 - got)) > 0;)
    got += (size_t)n;
  msg[got] = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
  CHECK(contains(msg, "--viewer needs a port from 0 to 65535, got '70000'"));
  close(err_fd);

  /* bt-log view on a log of the arena's */
  char path[] = "/tmp/bt_arena_viewer_XXXXXX";
  int tmp = mkstemp(path);
  close(tmp);
  char *rec[] = {"--headless", "--seconds", "3", "--agents", "20", "--record", path, NULL};
  pid = start_arena_to(argv[1], rec, &err_fd, 1);
  waitpid(pid, &st, 0);
  close(err_fd);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char *view[] = {"view", path, "--port", "0", NULL};
  pid = start_arena_to(argv[2], view, &err_fd, 1);
  port = read_port(err_fd);
  CHECK(port > 0);
  if (port > 0) {
    char *body = NULL;
    CHECK_INT(http_get(port, "/api/info", &body), 200);
    CHECK(contains(body, "\"mode\":\"log\""));
    CHECK(contains(body, "\"agents\":20"));
    free(body);
    CHECK_INT(http_get(port, "/api/agents", &body), 200);
    const char *sheep = body ? strstr(body, "\"label\":\"sheep ") : NULL;
    long id = sheep ? strtol(sheep + strlen("\"label\":\"sheep "), NULL, 10) : -1;
    CHECK(id > 0);
    free(body);
    char url[128];
    snprintf(url, sizeof url, "/api/agents/%ld/history?before=20&count=5", id);
    CHECK_INT(http_get(port, url, &body), 200);
    CHECK(contains(body, "{\"seq\":15,"));
    CHECK(contains(body, "{\"seq\":19,"));
    free(body);
  }
  kill(pid, SIGTERM);
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  close(err_fd);
  remove(path);
  return check_report("arena_viewer");
}
