/* SPDX-License-Identifier: MIT */
/*
 * view.c: the live terminal view (see view.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "view.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define SHOWN 5

static struct termios saved_termios;
static int raw_on, screen_on, stdin_eof;
static int shown[SHOWN]; /* the creatures listed under the map: one of each kind in turn */

int view_open(void) {
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_termios) == 0) {
    struct termios raw = saved_termios;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* keys at once, unechoed; ISIG stays: ^C works */
    raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0) raw_on = 1;
  }
  static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[2J";
  if (write(STDOUT_FILENO, enter, sizeof enter - 1) < 0) return -1;
  screen_on = 1;
  return 0;
}

void view_close(void) {
  if (screen_on) {
    static const char leave[] = "\x1b[0m\x1b[?25h\x1b[?1049l";
    if (write(STDOUT_FILENO, leave, sizeof leave - 1) < 0) { /* nothing more to do */
    }
    screen_on = 0;
  }
  if (raw_on) {
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
    raw_on = 0;
  }
}

int view_key(int timeout_ms) {
  if (timeout_ms < 0) timeout_ms = 0;
  if (stdin_eof) {
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return -1;
  }
  struct pollfd p = {STDIN_FILENO, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r <= 0) return -1; /* timeout, or a signal (EINTR): the caller looks at its flags */
  unsigned char c;
  ssize_t n = read(STDIN_FILENO, &c, 1);
  if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) stdin_eof = 1;
  return n == 1 ? c : -1;
}

/* ---- the screen buffer ---- */

typedef struct out {
  char *p;
  size_t n, cap;
} out;

static void put(out *o, const char *s, size_t n) {
  if (o->n + n + 1 > o->cap) {
    size_t cap = (o->cap ? o->cap : 16384);
    while (cap < o->n + n + 1) cap *= 2;
    char *p = realloc(o->p, cap);
    if (!p) return;
    o->p = p;
    o->cap = cap;
  }
  memcpy(o->p + o->n, s, n);
  o->n += n;
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static void printf_(out *o, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A line of plain text in one colour, cut or padded to exactly `cols` columns. */
static void line(out *o, const char *sgr, const char *text, int cols) {
  printf_(o, "\x1b[0;%sm", sgr);
  int n = (int)strlen(text);
  if (n > cols) n = cols;
  for (int i = 0; i < n; i++) { /* scripts name actions: keep escapes out of the terminal */
    char c = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
    put(o, &c, 1);
  }
  for (int i = n; i < cols; i++) put(o, " ", 1);
  puts_(o, "\x1b[0m");
}

/* ---- the map ---- */

typedef struct cell {
  char glyph;
  int prio;
  const char *sgr;
} cell;

/* Objects' looks; a creature kind's glyph and colour come from the kinds file. */
static const char *const OBJECT_SGR[KIND_COUNT - KINDS_MAX] = {"92", "33", "1;31", "35", "36"};
static const char OBJECT_GLYPH[KIND_COUNT - KINDS_MAX] = {'"', '#', 'H', 'D', 'P'};
static const unsigned char OBJECT_PRIO[KIND_COUNT - KINDS_MAX] = {3, 2, 4, 4, 4};
#define PRIO_SHOWN 255

static const char *kind_sgr(const world *w, int k) { return k >= KINDS_MAX ? OBJECT_SGR[k - KINDS_MAX] : w->kinds[k].sgr; }
static char kind_glyph(const world *w, int k) { return k >= KINDS_MAX ? OBJECT_GLYPH[k - KINDS_MAX] : w->kinds[k].glyph; }

/* Where creatures share a cell, the one that hits hardest is drawn (ties: the later kind). */
static int kind_prio(const world *w, int k) {
  if (k >= KINDS_MAX) return OBJECT_PRIO[k - KINDS_MAX];
  int rank = 0;
  for (int j = 0; j < w->nkinds; j++)
    rank += w->kinds[j].damage < w->kinds[k].damage || (w->kinds[j].damage == w->kinds[k].damage && j < k);
  return 5 + rank;
}

static void mark(cell *map, int mc, int mr, int c, int r, char g, int prio, const char *sgr) {
  if (c < 0 || r < 0 || c >= mc || r >= mr) return;
  cell *x = &map[r * mc + c];
  if (prio < x->prio) return;
  x->glyph = g;
  x->prio = prio;
  x->sgr = sgr;
}

static int is_shown(int id) {
  for (int i = 0; i < SHOWN; i++)
    if (shown[i] == id) return 1;
  return 0;
}

/* Keeps the list of shown creatures: the same ones while they live, then the next of the kind. */
static void pick_shown(const world *w) {
  for (int i = 0; i < SHOWN; i++) {
    entity *e = world_get(w, shown[i]);
    if (e && !e->dead) continue;
    shown[i] = 0;
    int best = 0;
    for (int j = 0; j < w->creatures.n; j++) {
      entity *c = w->ents[w->creatures.v[j]];
      if (c->kind != i % w->nkinds || c->dead || is_shown(c->id)) continue;
      if (!best || c->id < best) best = c->id;
    }
    shown[i] = best;
  }
}

static int clampi(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void clock_text(const world *w, char *buf, size_t n) {
  double t = fmod(w->time, w->day_length), day_part = w->day_length * (1 - w->night_fraction);
  double hours = t < day_part ? 6 + 14 * t / day_part : 20 + 10 * (t - day_part) / (w->day_length - day_part);
  if (hours >= 24) hours -= 24;
  int hh = (int)hours, mm = (int)((hours - hh) * 60);
  snprintf(buf, n, "day %d %02d:%02d %s", (int)(w->time / w->day_length) + 1, hh, mm,
           world_is_day(w) ? "DAY" : "NIGHT");
}

void view_draw(arena *a, const view_info *vi) {
  world *w = &a->w;
  struct winsize ws;
  int cols = 80, rows = 24;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    cols = ws.ws_col;
    rows = ws.ws_row;
  }
  if (cols < 40) cols = 40;
  if (rows < 12) rows = 12;
  if (cols > 400) cols = 400;
  int listed = rows >= 20 ? SHOWN : 3;
  int mc = cols, mr = rows - 2 - listed;
  int day = world_is_day(w);
  static out o;
  static int last_cols, last_rows;
  o.n = 0;
  if (cols != last_cols || rows != last_rows) puts_(&o, "\x1b[2J"); /* resized: clear what is left */
  last_cols = cols;
  last_rows = rows;
  puts_(&o, "\x1b[H");

  /* status line: the clock, the population, and the brains' cost when there is room */
  char text[512], clk[64], extra[128];
  clock_text(w, clk, sizeof clk);
  int n = snprintf(text, sizeof text, " %s t=%.1fs |", clk, w->time);
  for (int k = 0; k < w->nkinds && n < (int)sizeof text; k++)
    n += snprintf(text + n, sizeof text - (size_t)n, " %s %d", w->kinds[k].plural, w->alive[k]);
  if (n < (int)sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, " | q quits");
  if (n > cols) { /* short labels: the glyphs of the map */
    n = snprintf(text, sizeof text, " %s t=%.1fs |", clk, w->time);
    for (int k = 0; k < w->nkinds && n < (int)sizeof text; k++)
      n += snprintf(text + n, sizeof text - (size_t)n, " %c %d", w->kinds[k].glyph, w->alive[k]);
    if (n < (int)sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, " | q quits");
  }
  int m = snprintf(extra, sizeof extra, " | brains %.2f ms/tick, %.0f thinks/s", vi->brain_us / 1000, vi->thinks_per_s);
  if (n + m <= cols && n + m < (int)sizeof text) strcat(text, extra);
  line(&o, day ? "30;47" : "97;44", text, cols);
  put(&o, "\r\n", 2);

  /* the map: north (+y) up */
  static cell *map;
  static size_t map_cap;
  size_t ncell = (size_t)mc * (size_t)mr;
  if (ncell > map_cap) {
    cell *p = realloc(map, ncell * sizeof *p);
    if (!p) return;
    map = p;
    map_cap = ncell;
  }
  double sx = w->w / mc, sy = w->h / mr;
  const char *ground = day ? "32" : "34";
  for (int r = 0; r < mr; r++)
    for (int c = 0; c < mc; c++) {
      double x = (c + 0.5) * sx, y = w->h - (r + 0.5) * sy;
      cell *x_ = &map[r * mc + c];
      int water = x > 0.5 && y > 0.5 && x < w->w - 0.5 && y < w->h - 0.5 && !world_walkable(w, x, y);
      x_->glyph = water ? '~' : '.';
      x_->prio = water ? 1 : 0;
      x_->sgr = water ? (day ? "94" : "34") : ground;
    }
#define COL(x) clampi((int)((x) / sx), mc)
#define ROW(y) clampi((int)((w->h - (y)) / sy), mr)
  for (int i = 0; i < w->fields.n; i++) {
    entity *f = w->ents[w->fields.v[i]];
    for (int r = ROW(f->y + f->radius); r <= ROW(f->y - f->radius); r++)
      for (int c = COL(f->x - f->radius); c <= COL(f->x + f->radius); c++) {
        double x = (c + 0.5) * sx - f->x, y = w->h - (r + 0.5) * sy - f->y;
        if (x * x + y * y <= f->radius * f->radius || (r == ROW(f->y) && c == COL(f->x)))
          mark(map, mc, mr, c, r, '#', 2, kind_sgr(w, KIND_FIELD));
      }
  }
  pick_shown(w);
  static char reverse[KINDS_MAX][32]; /* the shown creatures' colours, reversed */
  for (int i = 0; i < w->active.n; i++) {
    entity *e = w->ents[w->active.v[i]];
    if (e->kind == KIND_FIELD) continue;
    int prio = kind_prio(w, e->kind);
    const char *sgr = kind_sgr(w, e->kind);
    char g = kind_glyph(w, e->kind);
    if (e->dead) g = 'x', sgr = "90";
    if (e->kind == KIND_GRASS && !day) sgr = "32";
    if (is_shown(e->id)) {
      prio = PRIO_SHOWN;
      snprintf(reverse[e->kind], sizeof reverse[e->kind], "7;%s", sgr);
      sgr = reverse[e->kind];
    }
    mark(map, mc, mr, COL(e->x), ROW(e->y), g, prio, sgr);
  }
  /* speech of the shown creatures, right of them */
  for (int i = 0; i < SHOWN; i++) {
    entity *e = world_get(w, shown[i]);
    if (!e || e->say_until <= w->time || !e->say[0]) continue;
    char said[64];
    snprintf(said, sizeof said, "\"%s\"", e->say);
    int r = ROW(e->y), c = COL(e->x) + 1;
    if (c + (int)strlen(said) > mc) c = COL(e->x) - (int)strlen(said);
    for (int k = 0; said[k]; k++) mark(map, mc, mr, c + k, r, said[k], PRIO_SHOWN, "1;97");
  }
  for (int r = 0; r < mr; r++) {
    const char *cur = NULL;
    for (int c = 0; c < mc; c++) {
      cell *x = &map[r * mc + c];
      if (x->sgr != cur) {
        printf_(&o, "\x1b[0;%sm", x->sgr);
        cur = x->sgr;
      }
      put(&o, &x->glyph, 1);
    }
    puts_(&o, "\x1b[0m\r\n");
  }

  /* the shown creatures and what they do */
  for (int i = 0; i < listed; i++) {
    entity *e = world_get(w, shown[i]);
    if (!e) {
      line(&o, "0", "", cols);
      put(&o, "\r\n", 2);
      continue;
    }
    char doing[64];
    if (!e->has_brain) snprintf(doing, sizeof doing, "(no brain)");
    else arena_doing(a, e->id, doing, sizeof doing);
    char said[64] = "";
    if (e->say_until > w->time && e->say[0]) snprintf(said, sizeof said, "\"%s\"", e->say);
    char name[32];
    snprintf(name, sizeof name, "%s#%d", kind_name(w, e->kind), e->id);
    snprintf(text, sizeof text, " %c %-12s hp %3.0f  hunger %.2f %-5s %-6s  %-24.24s %s", kind_glyph(w, e->kind),
             name, e->health, e->hunger,
             world_is_tired(e) ? "tired" : "", e->action ? e->action : (e->move ? (e->run ? "runs" : "walks") : ""),
             doing, said);
    line(&o, kind_sgr(w, e->kind), text, cols);
    put(&o, "\r\n", 2);
  }

  /* the last line: the last error (until the next reload), a reload of the last 5 seconds, a kind
   * without a brain, or else the legend (one column short: no scrolling) */
  const char *err = NULL;
  char kinds[64] = "";
  for (int k = 0; k < w->nkinds; k++)
    if (a->brain_error[k][0]) {
      if (!err) err = a->brain_error[k];
      snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", *kinds ? ", " : "", kind_name(w, k));
    }
  if (a->status[0] && (!a->status_ok || a->w.time - a->status_time < 5)) {
    snprintf(text, sizeof text, " %s", a->status);
    line(&o, a->status_ok ? "1;97;42" : "1;97;41", text, cols - 1);
  } else if (err) {
    snprintf(text, sizeof text, " no brain for %s: %s", kinds, err);
    line(&o, "1;97;41", text, cols - 1);
  } else {
    int n = 0;
    for (int k = 0; k < w->nkinds && n < (int)sizeof text; k++)
      n += snprintf(text + n, sizeof text - (size_t)n, " %c %s", w->kinds[k].glyph, w->kinds[k].name);
    if (n < (int)sizeof text) snprintf(text + n, sizeof text - (size_t)n, " \" grass # field H house D den P post ~ pond");
    line(&o, "2", text, cols - 1);
  }
  size_t done = 0;
  while (done < o.n) {
    ssize_t wrote = write(STDOUT_FILENO, o.p + done, o.n - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) break;
    done += (size_t)wrote;
  }
#undef COL
#undef ROW
}
