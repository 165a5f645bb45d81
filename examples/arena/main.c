/* SPDX-License-Identifier: MIT */
/*
 * main.c: bt-arena, a game host that embeds Lua and bt. Sheep, wolves, villagers, guards, ewes
 * and foxes live on a 2-D plane with day and night, each driven by the brain of its kind
 * (brains/<kind>.lua, a Brain class); the creatures' entity interface (docs/entity.md) is
 * implemented in C.
 *
 *   bt-arena [--agents N] [--seconds S] [--headless] [--watch] [--seed N] [--data DIR]
 *            [--threads N] [--record FILE] [--viewer [PORT]] [--ring N] [--reload-at TICK]
 *            [--help] [--version]
 *   bt-arena --replay FILE [--headless]
 *   bt-arena --check FILE [--data DIR] [--threads N]
 *
 * Each tick (30 per simulated second): the world moves (world_step), the scripts hear what
 * happened (arena_sync), then bt.BrainManager:Update(tick) thinks the brains that are due, on a
 * pool of Lua states (--threads N, the default one per core; 0 or 1: one state on this thread),
 * the world read only, and their writes are applied after, serially: the world is the same for
 * any N (entity_lua.c).
 * Live, it runs at real time and draws the world in the terminal, where keys pause it, step it a
 * tick at a time and inspect one creature's tree (inspect.h); headless, it runs as fast as it can
 * and prints one summary line. --record FILE writes a log of every brain's records and of the
 * world's frames (worldlog.h); --replay FILE plays one back in the same view, no brain running
 * (replay.h); --check FILE runs the recorded session again, headless, with the brains as they are
 * now, and compares their records with the recording's as they come (libbttest's bt_diff).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "bt.h"
#include "bt_test.h"
#include "btp.h"
#include "inspect.h"
#include "kinds.h"
#include "replay.h"
#include "view.h"
#include "viewer.h"
#include "worldlog.h"

/* the installed data directory, relative to the directory of the installed executable (CMake sets
 * it from CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_DATADIR; no absolute path is compiled in) */
#ifndef BT_ARENA_DATA
#define BT_ARENA_DATA "../share/bt"
#endif
/* in the build tree, a file beside the executable that names the source tree (CMake writes it
 * there; it is not installed) */
#define SOURCE_MARK "bt-arena.source"

#define TICKS_PER_SECOND 30
#define DRAW_EVERY 6 /* ticks between redraws: 5 a second */
#define INSPECT_RING 64 /* --record live: the records each brain's recorder keeps for the inspector */

static volatile sig_atomic_t quit_signal;

static void on_signal(int sig) { quit_signal = sig; }

static double now(void) { return btp_time_monotonic(); }

/* ---- flags ---- */

typedef struct options {
  long agents;
  double seconds; /* 0: until quit (live) */
  int headless;
  int watch;
  unsigned long long seed;
  const char *data;
  const char *record; /* --record FILE */
  const char *replay; /* --replay FILE */
  const char *check;  /* --check FILE */
  int viewer;         /* --viewer [PORT]: -2 off, -1 the default port, else the port */
  int threads;        /* --threads N: -1 not given */
  long ring;          /* --ring N: every brain records into a ring of N records (0: not asked) */
  long long reload_at; /* --reload-at TICK: every brain and behaviour reloaded then (0: never) */
  int given;          /* flags given other than --headless, --record and --replay (for --replay) */
  int session;        /* flags that --check takes from the recording: --agents, --seconds, --seed,
                         --watch, --viewer, --ring, --reload-at */
} options;

static const char USAGE[] =
    "usage: bt-arena [--agents N] [--seconds S] [--headless] [--watch] [--seed N] [--data DIR]\n"
    "                [--threads N] [--record FILE] [--viewer [PORT]] [--ring N]\n"
    "                [--reload-at TICK]\n"
    "       bt-arena --replay FILE [--headless]\n"
    "       bt-arena --check FILE [--data DIR] [--threads N]\n"
    "\n"
    "Sheep, wolves, villagers, guards, ewes and foxes, each driven by a bt brain\n"
    "(brains/<kind>.lua), live on a 2-D plane with day and night.\n"
    "\n"
    "  --agents N    creatures in the world (default 40), shared as brains/kinds.lua says\n"
    "                (17 sheep, 4 wolves, 8 villagers, 4 guards, 4 ewes, 3 foxes)\n"
    "  --seconds S   simulated seconds to run (default: until q live, 30 headless)\n"
    "  --headless    no view: run as fast as possible and print one summary line\n"
    "  --watch       reload brains and behaviours when their files are saved, and say so\n"
    "  --seed N      the world's and the brains' random seed (default 1)\n"
    "  --data DIR    the directory holding brains/ and behaviours/ (default: the source\n"
    "                tree when run from the build tree, else share/bt of the installation)\n"
    "  --threads N   think the brains on N Lua states and threads at once (default: one per\n"
    "                core; 0 or 1: one state on this thread); the same seed gives the same\n"
    "                world for every N\n"
    "  --viewer [PORT] serve the live viewer (a page for the browser, docs/viewer.md) on\n"
    "                127.0.0.1:PORT (default 8642 or the next free port; 0: any free port)\n"
    "  --ring N      every brain records into a ring of its last N records (1 to 65536;\n"
    "                --viewer alone: 128)\n"
    "  --record FILE write a log of the run: every brain's records and the world's frames\n"
    "                (read it with bt-log, or play it back with --replay)\n"
    "  --reload-at TICK reload every brain and behaviour at that tick, as saving its file\n"
    "                would under --watch (a hot reload at a fixed tick, for tests)\n"
    "  --replay FILE play a recording back in the view, no brain running (with --headless:\n"
    "                replay it to its end and print one summary line)\n"
    "  --check FILE  run a recording's session again (its seed, agents and ticks), headless,\n"
    "                with the brains as they are now, and compare their records with the\n"
    "                recording's: print \"no divergence\" (exit 0) or each diverging\n"
    "                creature's first difference and a summary (exit 1)\n"
    "  --help        this text\n"
    "  --version     bt-arena's version\n"
    "\n"
    "Live, the world is drawn in the terminal at real time (30 ticks a second); q quits,\n"
    "space pauses, '.' runs one tick, Tab (or a kind's letter, or the arrows) picks a creature\n"
    "and shows its tree, Esc closes it (docs/arena.md and bt-arena(1) list every key).\n"
    "Standard output must be a terminal then: into a file or a pipe bt-arena draws nothing\n"
    "and exits with status 2 (pass --headless).\n"
    "Replaying, '+' and '-' play faster and slower.\n";

static void die_usage(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "bt-arena: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n(bt-arena --help lists the flags)\n");
  exit(2);
}

static int is_dir(const char *path) { return btp_path_is_dir(path); }

static int has_brains(const char *dir) {
  char path[BTP_PATH_MAX];
  if (!dir || !*dir || snprintf(path, sizeof path, "%s/brains", dir) >= (int)sizeof path) return 0;
  return is_dir(path);
}

static void parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->agents = 40;
  o->seconds = -1;
  o->headless = 0;
  o->seed = 1;
  o->data = NULL;
  o->viewer = -2;
  o->threads = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(USAGE, stdout);
      exit(0);
    }
    if (strcmp(arg, "--version") == 0) {
      printf("bt-arena (bt) %s\n", BT_VERSION);
      exit(0);
    }
    if (strcmp(arg, "--watch") == 0) {
      o->watch = 1;
      o->given = o->session = 1;
      continue;
    }
    if (strcmp(arg, "--headless") == 0) {
      o->headless = 1;
      continue;
    }
    if (strcmp(arg, "--viewer") == 0 || strncmp(arg, "--viewer=", 9) == 0) { /* the port is optional */
      const char *port = arg[8] == '=' ? arg + 9 : NULL;
      if (!port && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') port = argv[++i];
      o->viewer = -1;
      o->given = o->session = 1;
      if (port) {
        char *end = NULL;
        errno = 0;
        long v = strtol(port, &end, 10);
        if (!*port || *end || errno || v < 0 || v > 65535)
          die_usage("--viewer needs a port from 0 to 65535, got '%s'%s", port, "");
        o->viewer = (int)v;
      }
      continue;
    }
    static const char *const valued[] = {"--agents", "--seconds", "--seed", "--data", "--record", "--replay",
                                         "--ring", "--threads", "--reload-at", "--check", NULL};
    const char *value = NULL, *flag = NULL;
    char name[32];
    for (int k = 0; valued[k]; k++) {
      size_t n = strlen(valued[k]);
      if (strncmp(arg, valued[k], n) == 0 && (arg[n] == 0 || arg[n] == '=')) {
        flag = valued[k];
        if (arg[n] == '=') value = arg + n + 1;
        else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) value = argv[++i];
        else die_usage("%s needs a value", flag, NULL);
        break;
      }
    }
    if (!flag) {
      if (arg[0] == '-') die_usage("unknown flag '%s'", arg, NULL);
      die_usage("unexpected argument '%s'", arg, NULL);
    }
    snprintf(name, sizeof name, "%s", flag);
    char *end = NULL;
    errno = 0;
    if (strcmp(flag, "--record") == 0 || strcmp(flag, "--replay") == 0 || strcmp(flag, "--check") == 0) {
      if (!*value) die_usage("%s needs a file", name, NULL);
      if (flag[2] == 'c') o->check = value;
      else if (flag[4] == 'c') o->record = value;
      else o->replay = value;
      continue;
    }
    o->given = 1;
    o->session |= strcmp(flag, "--data") != 0 && strcmp(flag, "--threads") != 0;
    if (strcmp(flag, "--reload-at") == 0) {
      long long v = strtoll(value, &end, 10);
      if (!*value || *end || errno || v < 1)
        die_usage("%s needs a tick, a whole number from 1, got '%s'", name, value);
      o->reload_at = v;
    } else if (strcmp(flag, "--ring") == 0) {
      long v = strtol(value, &end, 10);
      if (!*value || *end || errno || v < 1 || v > 65536)
        die_usage("%s needs a whole number from 1 to 65536, got '%s'", name, value);
      o->ring = v;
    } else if (strcmp(flag, "--agents") == 0) {
      long v = strtol(value, &end, 10);
      if (!*value || *end || errno || v < 1 || v > 1000000)
        die_usage("%s needs a whole number from 1 to 1000000, got '%s'", name, value);
      o->agents = v;
    } else if (strcmp(flag, "--threads") == 0) {
      long v = strtol(value, &end, 10);
      if (!*value || *end || errno || v < 0 || v > BT_POOL_MAX_THREADS)
        die_usage("%s needs a whole number from 0 to 256, got '%s'", name, value);
      o->threads = (int)v;
    } else if (strcmp(flag, "--seconds") == 0) {
      double v = strtod(value, &end);
      if (!*value || *end || errno || !(v > 0) || v > 1e7)
        die_usage("%s needs a number of seconds above 0, got '%s'", name, value);
      o->seconds = v;
    } else if (strcmp(flag, "--seed") == 0) {
      unsigned long long v = strtoull(value, &end, 10);
      if (!*value || *end || errno || value[0] == '-')
        die_usage("%s needs a whole number from 0 to 18446744073709551615, got '%s'", name, value);
      o->seed = v;
    } else {
      if (!*value) die_usage("%s needs a directory", name, NULL);
      if (!is_dir(value)) die_usage("%s: '%s' is not a directory", name, value);
      if (!has_brains(value)) die_usage("%s: '%s' has no brains/ directory", name, value);
      o->data = value;
    }
  }
  if (o->replay && (o->given || o->record || o->ring))
    die_usage("--replay plays a recording back: --agents, --seconds, --seed, --data, --watch, --threads, --record, "
              "--viewer, --ring and --reload-at do not go with it (only --headless)%s", "", NULL);
  if (o->check && (o->session || o->record || o->replay))
    die_usage("--check runs a recording's session again, its seed, agents and ticks as it was recorded: --agents, "
              "--seconds, --seed, --watch, --viewer, --ring, --reload-at, --record and --replay do not go with it (only "
              "--data and --threads)%s", "", NULL);
  if (o->check) o->headless = 1;
  if (o->threads < 0) { /* one state per core */
    int cores = btp_cpu_count();
    o->threads = cores > BT_POOL_MAX_THREADS ? BT_POOL_MAX_THREADS : cores;
  }
  if (o->seconds < 0) o->seconds = o->headless ? 30 : 0;
}

/* argv[0], for the systems that do not say where the program is */
static const char *arg0;

/* The running program's path into buf: the system's, else argv[0] made real when it names a
 * folder (a bare name found through PATH says nothing of where the file is). 1, or 0 if unknown. */
static int program_path(char *buf, size_t size) {
  if (btp_program_path(buf, size) == BT_OK) return 1;
  return arg0 && (strchr(arg0, '/') || strchr(arg0, '\\')) && btp_path_real(arg0, buf, size) == BT_OK;
}

/* The data directory: --data, else the source tree named by bt-arena.source beside the executable
 * (the build tree), else BT_ARENA_DATA from the executable's directory (the installation).
 * `looked` lists the places tried. */
static const char *find_data(const options *o, char *looked, size_t size) {
  if (o->data) return o->data;
  snprintf(looked, size, "(nowhere: the executable's path is unknown)");
  char exe[BTP_PATH_MAX];
  if (!program_path(exe, sizeof exe)) return NULL;
  btp_path_folder(exe);
  static char path[BTP_PATH_MAX];
  looked[0] = 0;
  char mark[BTP_PATH_MAX];
  FILE *f = snprintf(mark, sizeof mark, "%s/" SOURCE_MARK, exe) < (int)sizeof mark ? fopen(mark, "r") : NULL;
  if (f) {
    int got = fgets(path, sizeof path, f) != NULL;
    fclose(f);
    if (got) {
      path[strcspn(path, "\r\n")] = 0;
      snprintf(looked, size, "%s (from %s), ", path, mark);
      if (has_brains(path)) return path;
    }
  }
  if (snprintf(path, sizeof path, "%s/%s", exe, BT_ARENA_DATA) >= (int)sizeof path) return NULL;
  size_t used = strlen(looked);
  snprintf(looked + used, size - used, "%s", path);
  return has_brains(path) ? path : NULL;
}

static void catch_signals(void) { btp_quit_catch(on_signal); }

/* ---- --record: the world's records beside the brains' ---- */

typedef struct recording {
  int on;
  worldlog_writer writer;
  worldlog_bytes bytes;
  long long frames;
} recording;

/* The world's frame after tick `tick` (positions: all of them, whatever the tick). */
static void record_frame(arena *a, recording *rec, long long tick, int positions) {
  if (!rec->on) return;
  if (worldlog_frame(&rec->writer, &a->w, tick, positions, &rec->bytes) != 0) {
    fprintf(stderr, "bt-arena: --record: out of memory for the world's frame at tick %lld\n", tick);
    return;
  }
  arena_record_world(a, WORLDLOG_FRAME, rec->bytes.p, rec->bytes.n);
  rec->frames++;
}

/* The map and the first frame, once the world and the brains are there. */
static void record_start(arena *a, recording *rec, const options *o) {
  if (!rec->on) return;
  if (worldlog_map(&a->w, o->seed, o->agents, &rec->bytes) != 0) {
    fprintf(stderr, "bt-arena: --record: out of memory for the map\n");
    return;
  }
  arena_record_world(a, WORLDLOG_MAP, rec->bytes.p, rec->bytes.n);
  if (worldlog_run(o->reload_at, &rec->bytes) != 0) {
    fprintf(stderr, "bt-arena: --record: out of memory for the run record\n");
    return;
  }
  arena_record_world(a, WORLDLOG_RUN, rec->bytes.p, rec->bytes.n);
  record_frame(a, rec, 0, 1);
}

/* The last frame, the log's end; appends the figures to the summary line's. */
static int record_end(arena *a, recording *rec, const options *o, long long tick, char *fields, size_t size) {
  fields[0] = 0;
  if (!rec->on) return 0;
  record_frame(a, rec, tick, 1);
  arena_record_stats st;
  char err[512];
  int rc = arena_record_close(a, &st, err, sizeof err);
  if (rc != 0) fprintf(stderr, "bt-arena: --record %s: %s\n", o->record, err);
  btp_stamp sb;
  unsigned long long bytes = btp_file_stamp(o->record, &sb) == BT_OK ? (unsigned long long)sb.size : 0;
  snprintf(fields, size, " recorded=%s frames=%lld records=%llu transitions=%llu bytes=%llu bytes_per_transition=%.2f",
           o->record, rec->frames, st.records, st.statuses, bytes,
           st.statuses ? (double)bytes / (double)st.statuses : 0.0);
  worldlog_writer_free(&rec->writer);
  worldlog_bytes_free(&rec->bytes);
  rec->on = 0;
  return rc;
}

/* ---- --replay ---- */

/* The speeds of a replay, '+' and '-' step through them. */
static const struct {
  double frames; /* frames per tick of the wall clock (1: real time) */
  const char *name;
} SPEEDS[] = {{0.125, "x1/8"}, {0.25, "x1/4"}, {0.5, "x1/2"}, {1, "x1"}, {2, "x2"}, {4, "x4"},
              {8, "x8"},      {16, "x16"},    {32, "x32"}};
#define NSPEEDS ((int)(sizeof SPEEDS / sizeof SPEEDS[0]))
#define SPEED_NORMAL 3

/* The status line's word for the replay: " REPLAY x2", and " END" at the log's end. */
static void replay_mode(char *buf, size_t size, int speed, const replay *rp) {
  snprintf(buf, size, " REPLAY %s%s", SPEEDS[speed].name, replay_where(rp) == BT_LOG_ENDED ? " END" : "");
}

/* Plays the recording in the terminal view: frames at the speed chosen, the keys of the live
 * view (pause, step, the inspector) and '+', '-'. At its end the last frame stays, and a log that
 * grows plays on. */
static void replay_live(arena *a, replay *rp) {
  catch_signals();
  atexit(view_close);
  if (view_open() != 0) {
    fprintf(stderr, "bt-arena: cannot draw on this terminal; try --headless\n");
    return;
  }
  a->live = 1;
  view_info vi = {0};
  static inspector in;
  inspect_init(&in, a);
  int speed = SPEED_NORMAL, quit = 0, step = 0, redraw = 1;
  double owed = 0, next = now(); /* owed: the frames the speed asks for, not yet played */
  long long frame = 0;
  char mode[64];
  while (!quit && !quit_signal) {
    frame++;
    if (!in.paused || step) {
      int n = step;
      if (!step) {
        owed += SPEEDS[speed].frames;
        n = (int)owed;
        owed -= n;
      }
      step = 0;
      redraw |= n > 0 && in.paused; /* a step is drawn at once */
      /* at the end of what is written, a log that grows plays on; a closed or damaged one not */
      for (int i = 0; i < n && replay_where(rp) != BT_LOG_ENDED && replay_where(rp) != BT_LOG_FAILED; i++)
        if (replay_step(rp) != 1) break;
    }
    replay_counts c;
    replay_counts_get(rp, &c);
    vi.tick = c.tick;
    replay_mode(mode, sizeof mode, speed, rp);
    vi.replay = mode;
    vi.note = replay_message(rp);
    vi.note_is_error = replay_where(rp) == BT_LOG_FAILED;
    if (redraw || frame % DRAW_EVERY == 1) {
      redraw = 0;
      view_draw(a, &vi, &in);
    }
    next += 1.0 / TICKS_PER_SECOND;
    if (now() - next > 0.5) next = now(); /* fell behind: do not race to catch up */
    for (double left; !quit && !quit_signal && !step && (left = next - now()) > 0;) {
      int key = view_key((int)ceil(left * 1000));
      if (key < 0) continue;
      int asked = INSPECT_REDRAW;
      if (key == '+' || key == '=') {
        if (speed < NSPEEDS - 1) speed++;
      } else if (key == '-') {
        if (speed > 0) speed--;
      } else {
        asked = inspect_key(&in, a, key);
      }
      if (asked == INSPECT_QUIT) quit = 1;
      else if (asked == INSPECT_STEP) step = 1;
      else if (asked == INSPECT_REDRAW) {
        replay_mode(mode, sizeof mode, speed, rp);
        view_draw(a, &vi, &in);
      }
    }
  }
  view_close();
  a->live = 0;
}

/* bt-arena --replay FILE [--headless]: returns the exit status. */
static int replay_main(const options *o, double start) {
  static arena a;
  char err[1024];
  replay *rp = NULL;
  if (replay_open(&rp, o->replay, &a.w, err, sizeof err) != 0) {
    fprintf(stderr, "bt-arena: %s\n", err);
    return 1;
  }
  a.replay = rp;
  a.data_dir = "";
  int status = 0;
  if (o->headless) {
    int got;
    while ((got = replay_step(rp)) == 1) {
    }
    if (got < 0) status = 1;
  } else {
    replay_live(&a, rp);
  }
  const char *message = replay_message(rp);
  int where = replay_where(rp);
  if (message[0] && where != BT_LOG_ENDED) fprintf(stderr, "bt-arena: %s\n", message);
  replay_counts c;
  replay_counts_get(rp, &c);
  static const char *const ENDS[] = {"more", "ended", "whole", "cut", "failed"};
  where = where >= BT_LOG_MORE && where <= BT_LOG_FAILED ? where : BT_LOG_MORE;
  int alive = 0;
  for (int i = 0; i < a.w.creatures.n; i++) alive += !a.w.ents[a.w.creatures.v[i]]->dead;
  printf("replay=%s frames=%lld ticks=%lld simulated=%.1fs wall=%.2fs agents=%lld records=%llu transitions=%llu "
         "thinks=%llu bytes=%llu alive=%d deaths=%lld births=%lld ",
         o->replay, c.frames, c.tick, (double)c.tick / TICKS_PER_SECOND, now() - start, c.agents, c.records,
         c.statuses, c.thinks, c.offset, alive, a.w.deaths, a.w.births);
  for (int k = 0; k < a.w.nkinds; k++)
    printf("%s%s:%d", k ? "," : "alive_by_kind=", a.w.kinds[k].name, a.w.alive[k]);
  printf(" world=%016llx end=%s\n", worldlog_digest(&a.w), ENDS[where]);
  fflush(stdout);
  replay_free(rp);
  world_free(&a.w);
  return status;
}

/* ---- --check: the recorded session run again, compared as it goes ---- */

/* What a re-run takes from the recording: the map's seed and agents, the run's --reload-at, and
 * the last frame's tick (the session's length). */
typedef struct session {
  unsigned long long seed;
  long agents;
  long long reload_at, ticks;
  int has_map;
} session;

/* Reads the recording through once for its session: 0, or -1 with err saying why. */
static int session_read(const char *path, session *ss, char *err, size_t errsize) {
  memset(ss, 0, sizeof *ss);
  bt_log_reader *r = NULL;
  if (bt_log_reader_create_file(&r, path, err, errsize) != BT_OK) return -1;
  bt_log_record rec;
  int got, rc = 0;
  char what[400];
  while (rc == 0 && (got = bt_log_read(r, &rec)) == 1) {
    const bt_rec_entry *e = &rec.entry;
    if (rec.agent_index >= 0 || e->type != BT_LOG_WORLD) continue;
    if (e->node == WORLDLOG_MAP && !ss->has_map) {
      if (worldlog_map_info(e->text, e->size, &ss->seed, &ss->agents, what, sizeof what) != 0) {
        snprintf(err, errsize, "%s: the map record: %s", path, what);
        rc = -1;
      }
      ss->has_map = 1;
    } else if (e->node == WORLDLOG_RUN) {
      if (worldlog_read_run(e->text, e->size, &ss->reload_at, what, sizeof what) != 0) {
        snprintf(err, errsize, "%s: the run record: %s", path, what);
        rc = -1;
      }
    } else if (e->node == WORLDLOG_FRAME) {
      ss->ticks = llround(e->time * TICKS_PER_SECOND);
    }
  }
  if (rc == 0 && got < 0) {
    snprintf(err, errsize, "%s", bt_log_reader_errmsg(r));
    rc = -1;
  }
  if (rc == 0 && !ss->has_map) {
    snprintf(err, errsize, "%s: no map record of bt-arena's in it (not a recording of bt-arena)", path);
    rc = -1;
  }
  bt_log_reader_free(r);
  return rc;
}

/* The re-run's log bytes go to a reader of the comparer's side B. */
static int check_write(void *ud, const void *data, size_t size) {
  return bt_log_reader_feed(ud, data, size) == BT_OK ? 0 : -1;
}

/* Compares what the re-run's log has written so far (side B); the recording (side A) is read by
 * the comparer as far as B has come. */
static int check_drain(bt_diff *d, bt_log_reader *live) {
  bt_log_record rec;
  int got;
  while ((got = bt_log_read(live, &rec)) == 1) {
    int rc = bt_diff_log(d, BT_DIFF_B, &rec);
    if (rc != BT_OK) return rc;
  }
  return got;
}

/* bt-arena --check FILE: returns the exit status: 0 no divergence, 1 one, 2 the recording cannot
 * be read or the session cannot run. */
static int check_main(options *o) {
  char err[1024];
  session ss;
  if (session_read(o->check, &ss, err, sizeof err) != 0) {
    fprintf(stderr, "bt-arena: --check: %s\n", err);
    return 2;
  }
  o->agents = ss.agents;
  o->seed = ss.seed;
  o->reload_at = ss.reload_at;
  static arena a;
  char looked[3 * BTP_PATH_MAX + 16];
  a.data_dir = find_data(o, looked, sizeof looked);
  if (!a.data_dir) {
    fprintf(stderr, "bt-arena: no brains/ directory in %s; pass --data DIR\n", looked);
    return 2;
  }
  static kind_info kinds[KINDS_MAX];
  int nkinds = 0;
  if (kinds_load(a.data_dir, KINDS_FILE, kinds, &nkinds, err, sizeof err) != 0) {
    fprintf(stderr, "bt-arena: %s\n", err);
    return 2;
  }
  if (world_init(&a.w, (int)o->agents, o->seed, kinds, nkinds) != 0) {
    fprintf(stderr, "bt-arena: out of memory making the world\n");
    return 2;
  }
  a.threads = o->threads;
  if (arena_lua_init(&a, o->seed) != 0) return 2;
  bt_diff *d = NULL;
  bt_log_reader *golden = NULL, *live = NULL;
  if (bt_diff_create(&d) != BT_OK || bt_diff_set_names(d, "recorded", "now") != BT_OK ||
      bt_log_reader_create(&live) != BT_OK) {
    fprintf(stderr, "bt-arena: out of memory\n");
    return 2;
  }
  if (bt_log_reader_create_file(&golden, o->check, err, sizeof err) != BT_OK ||
      bt_diff_set_reader(d, BT_DIFF_A, golden) != BT_OK) {
    fprintf(stderr, "bt-arena: --check: %s\n", err);
    return 2;
  }
  recording rec = {0};
  if (arena_record_open_fn(&a, check_write, live, 0, err, sizeof err) != 0) {
    fprintf(stderr, "bt-arena: --check: %s\n", err);
    return 2;
  }
  rec.on = 1;
  arena_load_brains(&a);
  arena_sync(&a);
  record_start(&a, &rec, o);
  int rc = BT_OK;
  long long tick;
  for (tick = 1; tick <= ss.ticks && rc == BT_OK; tick++) {
    world_step(&a.w, (double)tick / TICKS_PER_SECOND);
    arena_sync(&a);
    if (tick == o->reload_at) arena_reload_all(&a);
    arena_think(&a, tick); /* the log is flushed at its end: the tick's records are there */
    record_frame(&a, &rec, tick, 0);
    rc = check_drain(d, live);
  }
  tick--;
  if (rc == BT_OK) {
    arena_sync(&a);
    record_frame(&a, &rec, tick, 1);
    arena_record_stats st;
    if (arena_record_close(&a, &st, err, sizeof err) != 0) fprintf(stderr, "bt-arena: --check: %s\n", err);
    rc = check_drain(d, live);
  }
  if (rc == BT_OK) rc = bt_diff_finish(d);
  int status = 2;
  if (rc != BT_OK) {
    fprintf(stderr, "bt-arena: --check: %s\n", rc == BT_ENOMEM ? "out of memory" : bt_diff_errmsg(d));
  } else {
    bt_buf out = {0};
    bt_diff_summary sum;
    bt_diff_summary_get(d, &sum);
    if (bt_diff_same(d)) bt_buf_printf(&out, "no divergence: %d agents, %llu records the same, %lld ticks\n",
                                       sum.agents, sum.records, tick);
    else bt_diff_report(d, &out);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    fflush(stdout);
    status = out.err ? 2 : bt_diff_same(d) ? 0 : 1;
    bt_buf_free(&out);
  }
  worldlog_writer_free(&rec.writer);
  worldlog_bytes_free(&rec.bytes);
  bt_diff_free(d);
  bt_log_reader_free(golden);
  bt_log_reader_free(live);
  arena_lua_close(&a);
  error_log_free(&a.errors);
  world_free(&a.w);
  return status;
}

/* ---- the game ---- */

int main(int argc, char **argv) {
  double start = now();
  arg0 = argc > 0 ? argv[0] : NULL;
  options opt;
  parse(argc, argv, &opt);
  if (!opt.headless && !btp_term_is_tty(1)) { /* the view's escapes would fill a file or a pipe */
    fprintf(stderr, "bt-arena: standard output is not a terminal, and the live view needs one to draw in: run it "
                    "in a terminal, or pass --headless to run without the view and print one summary line\n");
    return 2;
  }
  if (opt.replay) return replay_main(&opt, start);
  if (opt.check) return check_main(&opt);
  static arena a;
  char looked[3 * BTP_PATH_MAX + 16];
  a.data_dir = find_data(&opt, looked, sizeof looked);
  if (!a.data_dir) {
    fprintf(stderr, "bt-arena: no brains/ directory in %s; pass --data DIR\n", looked);
    return 1;
  }
  /* the creature kinds: brains/kinds.lua of the data directory (kinds.h) */
  static kind_info kinds[KINDS_MAX];
  int nkinds = 0;
  char kinds_err[1024];
  if (kinds_load(a.data_dir, KINDS_FILE, kinds, &nkinds, kinds_err, sizeof kinds_err) != 0) {
    fprintf(stderr, "bt-arena: %s\n", kinds_err);
    return 2;
  }
  if (world_init(&a.w, (int)opt.agents, opt.seed, kinds, nkinds) != 0) {
    fprintf(stderr, "bt-arena: out of memory making the world\n");
    return 1;
  }
  a.threads = opt.threads;
  if (arena_lua_init(&a, opt.seed) != 0) return 1;
  a.watch = opt.watch;
  recording rec = {0};
  if (opt.record) { /* every brain records into the log, with a ring for the inspector when live */
    char err[1024];
    int ring = opt.ring ? (int)opt.ring : opt.viewer != -2 ? ARENA_VIEWER_RING : opt.headless ? 0 : INSPECT_RING;
    if (arena_record_open(&a, opt.record, ring, err, sizeof err) != 0) {
      fprintf(stderr, "bt-arena: --record: %s\n", err);
      return 1;
    }
    rec.on = 1;
  }
  if (opt.viewer != -2) {
    char err[512];
    if (arena_viewer_open(&a, opt.viewer, (int)opt.agents, rec.on || opt.ring, err, sizeof err) != 0) {
      fprintf(stderr, "bt-arena: --viewer: %s\n", err);
      return 1;
    }
    fprintf(stderr, "viewer: %s\n", arena_viewer_url());
  }
  if (opt.ring && !rec.on && arena_record_rings(&a, (int)opt.ring) != 0) return 1;
  arena_load_brains(&a);
  arena_sync(&a); /* the entities' insts; the creatures' brains start */
  record_start(&a, &rec, &opt);

  long long total = opt.seconds > 0 ? llround(opt.seconds * TICKS_PER_SECOND) : -1;
  double brain_time = 0, host_time = 0, loop_start = now();
  long long tick = 0;

  if (opt.headless) {
    if (rec.on) catch_signals(); /* a signal ends the run, and the log is closed */
    for (tick = 1; tick <= total && !quit_signal; tick++) {
      world_step(&a.w, (double)tick / TICKS_PER_SECOND);
      arena_sync(&a);
      arena_reload_poll(&a);
      if (tick == opt.reload_at) arena_reload_all(&a);
      double t0 = now();
      arena_think(&a, tick);
      brain_time += now() - t0;
      record_frame(&a, &rec, tick, 0);
      arena_viewer_frame(&a);
    }
    tick--;
    host_time = now() - loop_start - brain_time; /* everything but Update */
  } else {
    catch_signals();
    atexit(view_close);
    if (view_open() != 0) {
      fprintf(stderr, "bt-arena: cannot draw on this terminal; try --headless\n");
      return 1;
    }
    a.live = 1;
    view_info vi = {0};
    if (opt.viewer != -2) vi.viewer = arena_viewer_url(); /* on the last line until a reload or an error */
    static inspector in;
    inspect_init(&in, &a);
    double next = now(), window_start = next, window_brain = 0, window_host = 0;
    long long window_ticks = 0, window_thinks = arena_thinks(&a, NULL), frame = 0;
    int quit = 0, step = 0, redraw = 0;
    while (!quit && !quit_signal && (total < 0 || tick < total)) {
      frame++;
      double t0 = now();
      int advance = !in.paused || step;
      if (advance) { /* paused, the world stands still but for a step asked for */
        step = 0;
        tick++;
        world_step(&a.w, (double)tick / TICKS_PER_SECOND);
        arena_sync(&a);
        arena_reload_poll(&a);
        if (tick == opt.reload_at) arena_reload_all(&a);
        double t1 = now();
        arena_think(&a, tick);
        double t2 = now();
        brain_time += t2 - t1;
        host_time += t1 - t0;
        window_brain += t2 - t1;
        window_host += t1 - t0;
        window_ticks++;
        record_frame(&a, &rec, tick, 0);
        arena_viewer_frame(&a);
        host_time += now() - t2;
        window_host += now() - t2;
      } else {
        arena_reload_poll(&a); /* a saved edit is taken (and said) while paused too */
      }
      double t2 = now();
      if (t2 - window_start >= 1) { /* the figures in the status line: the last second's */
        long long thinks = arena_thinks(&a, NULL);
        if (window_ticks > 0) {
          vi.brain_us = window_brain * 1e6 / window_ticks;
          vi.host_us = window_host * 1e6 / window_ticks;
        }
        vi.thinks_per_s = (double)(thinks - window_thinks) / (t2 - window_start);
        window_thinks = thinks;
        window_start = t2;
        window_brain = window_host = 0;
        window_ticks = 0;
      }
      if (redraw || frame % DRAW_EVERY == 1) {
        redraw = 0;
        vi.tick = tick;
        double t3 = now();
        view_draw(&a, &vi, &in);
        if (advance) { /* the host's cost per tick: frames drawn while paused run no tick */
          host_time += now() - t3;
          window_host += now() - t3;
        }
      }
      next += 1.0 / TICKS_PER_SECOND;
      double late = now() - next;
      if (late > 0.5) next = now(); /* fell behind: do not race to catch up */
      for (double left; !quit && !quit_signal && !step && (left = next - now()) > 0;) {
        int key = view_key((int)ceil(left * 1000));
        if (key < 0) continue;
        int asked = inspect_key(&in, &a, key);
        if (asked == INSPECT_QUIT) quit = 1;
        else if (asked == INSPECT_STEP) step = 1; /* the tick runs at once, then the frame */
        else if (asked == INSPECT_REDRAW) {
          vi.tick = tick;
          view_draw(&a, &vi, &in);
        }
        redraw |= asked == INSPECT_STEP;
      }
    }
    view_close();
    a.live = 0;
    error_log_print(&a.errors, stderr, "bt-arena: "); /* every error of the run, in full */
  }

  double end = now();
  arena_sync(&a); /* the brains of the last tick's dead stop, so that the counts below agree */
  char recorded[BTP_PATH_MAX + 256];
  int record_failed = record_end(&a, &rec, &opt, tick > 0 ? tick : 0, recorded, sizeof recorded);
  long long registered = 0, thinks = arena_thinks(&a, &registered);
  int alive = 0, brains = 0;
  for (int i = 0; i < a.w.creatures.n; i++) {
    const entity *e = a.w.ents[a.w.creatures.v[i]];
    alive += !e->dead;
    brains += e->has_brain;
  }
  long long ticks = tick > 0 ? tick : 0;
  double per = ticks > 0 ? 1e6 / (double)ticks : 0;
  printf("agents=%ld simulated=%.1fs wall=%.2fs ticks=%lld thinks=%lld brain_us_per_tick=%.0f "
         "host_us_per_tick=%.0f alive=%d brains=%d registered=%lld deaths=%lld births=%lld script_errors=%lld ",
         opt.agents, (double)ticks / TICKS_PER_SECOND, end - start, ticks, thinks, brain_time * per,
         host_time * per, alive, brains, registered, a.w.deaths, a.w.births, a.script_errors);
  for (int k = 0; k < a.w.nkinds; k++) /* the living of each kind: alive_by_kind=sheep:20,wolf:5,... */
    printf("%s%s:%d", k ? "," : "alive_by_kind=", a.w.kinds[k].name, a.w.alive[k]);
  /* the serial phase's part of brain_us_per_tick; the world's digest (worldlog.h) */
  printf(" threads=%d apply_us_per_tick=%.0f commands=%lld world=%016llx%s\n", a.threads, a.apply_seconds * per,
         a.commands, worldlog_digest(&a.w), recorded);
  fflush(stdout);
  arena_viewer_close(&a);
  arena_lua_close(&a);
  error_log_free(&a.errors);
  world_free(&a.w);
  return record_failed ? 1 : 0;
}
