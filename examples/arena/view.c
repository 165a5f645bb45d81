/* SPDX-License-Identifier: MIT */
/*
 * view.c: the live terminal view (see view.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "view.h"

#include "bt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btp.h"

#define SHOWN 5

static btp_term *term; /* keys as typed, given back at the end (the platform layer's terminal) */
static int screen_on;
static int shown[SHOWN]; /* the creatures listed under the map: one of each kind in turn */
static arena_inspection inspection; /* the inspector's creature, read at each frame */
/* per node of it, whether it is on the running path, and scratch by depth (grown as needed) */
static unsigned char *on_path, *on_path_by_depth;
static int on_path_cap;

int view_open(void) {
  if (!term && btp_term_open(&term) != BT_OK) return -1;
  static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[2J";
  if (btp_term_write(enter, sizeof enter - 1) != BT_OK) return -1;
  screen_on = 1;
  return 0;
}

void view_close(void) {
  if (screen_on) {
    static const char leave[] = "\x1b[0m\x1b[?25h\x1b[?1049l";
    btp_term_write(leave, sizeof leave - 1); /* at the end: nothing more to do if it fails */
    screen_on = 0;
  }
  btp_term_close(term);
  term = NULL;
  arena_inspection_free(&inspection);
  free(on_path);
  free(on_path_by_depth);
  on_path = on_path_by_depth = NULL;
  on_path_cap = 0;
}

/* A byte of standard input within timeout_ms, or -1. */
static int read_byte(int timeout_ms) { return btp_term_read(term, timeout_ms); }

/* The bytes of an escape sequence arrive together; a lone Esc has nothing after it. */
#define SEQUENCE_WAIT_MS 30

/* The rest of an escape sequence after ESC: CSI ("[" parameters final) or SS3 ("O" final). */
static int escape_key(void) {
  int c = read_byte(SEQUENCE_WAIT_MS);
  if (c < 0) return VIEW_KEY_ESC;
  if (c != '[' && c != 'O') return -1; /* Alt-<key>: not ours */
  char param[8];
  int n = 0, final = -1;
  for (int i = 0; i < 16; i++) { /* parameters and intermediates, then a final byte */
    int b = read_byte(SEQUENCE_WAIT_MS);
    if (b < 0) return -1;
    if (b >= 0x40 && b <= 0x7e) {
      final = b;
      break;
    }
    if (n < (int)sizeof param - 1) param[n++] = (char)b;
  }
  param[n] = 0;
  switch (final) {
  case 'A': return VIEW_KEY_UP;
  case 'B': return VIEW_KEY_DOWN;
  case 'C': return VIEW_KEY_RIGHT;
  case 'D': return VIEW_KEY_LEFT;
  case 'Z': return VIEW_KEY_BACK_TAB;
  case '~':
    if (strcmp(param, "5") == 0) return VIEW_KEY_PAGE_UP;
    if (strcmp(param, "6") == 0) return VIEW_KEY_PAGE_DOWN;
    return -1;
  default: return -1;
  }
}

int view_key(int timeout_ms) {
  int c = read_byte(timeout_ms);
  return c == 27 ? escape_key() : c;
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

/* ---- text in columns ---- */

/* Writes text in one colour at column *col, up to column width (control characters as '?'), and
 * moves *col on. */
static void seg(out *o, int *col, int width, const char *sgr, const char *text) {
  if (*col >= width || !*text) return;
  printf_(o, "\x1b[0;%sm", sgr);
  for (const char *p = text; *p && *col < width; p++, (*col)++) {
    char c = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    put(o, &c, 1);
  }
}

/* Spaces in one colour from *col to width. */
static void pad(out *o, int *col, int width, const char *sgr) {
  if (*col >= width) return;
  printf_(o, "\x1b[0;%sm", sgr);
  for (; *col < width; (*col)++) put(o, " ", 1);
}

static void end_line(out *o) { puts_(o, "\x1b[0m\r\n"); }

/* ---- the inspector's panel ---- */

static const char *status_sgr(int status) {
  switch (status) {
  case BT_RUNNING: return "33";
  case BT_SUCCESS: return "32";
  case BT_FAILED: return "31";
  default: return "2";
  }
}

static const char *status_word(int status) { return status < 0 ? "?" : bt_status_name(status); }

/* The panel as laid out for one frame. */
typedef struct panel {
  int rows, width;
  int tree_rows, record_rows; /* record_rows counts its title line; 0: no room for records */
  int top;                    /* the first node shown */
  unsigned char *on_path;     /* per node: on the running path (RUNNING, under a running root) */
} panel;

/* Marks the running path (the RUNNING nodes under a running root) into on_path; returns the
 * deepest node on it, or -1 (also without memory, and then on_path is NULL). */
static int running_path(const arena_inspection *ins) {
  if (ins->nnodes + 1 > on_path_cap) {
    unsigned char *p = realloc(on_path, (size_t)ins->nnodes + 1);
    if (p) on_path = p;
    unsigned char *q = p ? realloc(on_path_by_depth, (size_t)ins->nnodes + 1) : NULL;
    if (q) on_path_by_depth = q;
    if (!p || !q) return -1;
    on_path_cap = ins->nnodes + 1;
  }
  int deepest = -1;
  for (int i = 0; i < ins->nnodes; i++) {
    int d = ins->nodes[i].depth;
    if (d < 0 || d > i) d = 0; /* pre-order: a node is at most as deep as nodes before it */
    int on = ins->nodes[i].status == BT_RUNNING && (d == 0 || on_path_by_depth[d - 1]);
    on_path_by_depth[d] = (unsigned char)on;
    on_path[i] = (unsigned char)on;
    if (on) deepest = i;
  }
  return deepest;
}

/* Lays the panel out in rows x width: the header, the tree (following the running path unless
 * scrolled), and the last transitions below when there is room. */
static void panel_layout(panel *p, inspector *in, int rows, int width) {
  p->rows = rows;
  p->width = width;
  p->record_rows = rows >= 12 ? rows * 2 / 5 : 0;
  p->tree_rows = rows - 1 - p->record_rows;
  p->on_path = NULL;
  const arena_inspection *ins = &inspection;
  int deepest = -1;
  if (ins->has_tree && ins->nnodes > 0) {
    deepest = running_path(ins);
    if (ins->nnodes + 1 <= on_path_cap) p->on_path = on_path;
  }
  int most = ins->nnodes > p->tree_rows ? ins->nnodes - p->tree_rows : 0;
  int top = in->scroll;
  if (top < 0) /* follow: the deepest running node in sight, with a line under it */
    top = deepest >= p->tree_rows - 1 ? deepest - p->tree_rows + 2 : 0;
  p->top = top > most ? most : top < 0 ? 0 : top;
  in->top = p->top;
  in->page = p->tree_rows;
}

static void panel_header(out *o, arena *a, const inspector *in, const panel *p) {
  world *w = &a->w;
  entity *e = world_any(w, in->selected);
  int col = 0;
  char text[256];
  if (!e) {
    seg(o, &col, p->width, "7", " nothing selected");
    pad(o, &col, p->width, "7");
    return;
  }
  const char *sgr = kind_sgr(w, e->kind);
  char rev[40];
  snprintf(rev, sizeof rev, "7;%s", sgr);
  char state[96];
  if (e->dead || !e->valid) {
    entity *k = world_any(w, e->killer);
    const char *cause = e->cause ? e->cause : "gone";
    if (k) snprintf(state, sizeof state, "dead (%s by %s#%d)", cause, kind_name(w, k->kind), k->id);
    else snprintf(state, sizeof state, "dead (%s)", cause);
  } else {
    snprintf(state, sizeof state, "hp %.0f hunger %.2f%s %s", e->health, e->hunger, world_is_tired(e) ? " tired" : "",
             e->action ? e->action : (e->move ? (e->run ? "runs" : "walks") : ""));
    entity *t = world_any(w, e->target);
    size_t used = strlen(state);
    if (t && used < sizeof state) /* its combat target (SetTarget) */
      snprintf(state + used, sizeof state - used, " target %s#%d", kind_name(w, t->kind), t->id);
  }
  snprintf(text, sizeof text, " %c %s#%d %s", kind_glyph(w, e->kind), kind_name(w, e->kind), e->id, state);
  char range[48] = "";
  const arena_inspection *ins = &inspection;
  if (ins->has_tree && ins->nnodes > p->tree_rows)
    snprintf(range, sizeof range, " nodes %d-%d of %d ", p->top + 1,
             p->top + p->tree_rows < ins->nnodes ? p->top + p->tree_rows : ins->nnodes, ins->nnodes);
  int room = p->width - (int)strlen(range);
  seg(o, &col, room > 0 ? room : 0, rev, text);
  pad(o, &col, room > 0 ? room : 0, rev);
  seg(o, &col, p->width, rev, range);
  pad(o, &col, p->width, rev);
}

/* Line i of the tree: a mark on the running path, the name indented by depth, the status and
 * the last result in their colours, the dbstring and the tree sleep time. */
static void panel_node(out *o, const panel *p, int i) {
  const arena_inspection *ins = &inspection;
  int col = 0, width = p->width;
  if (!ins->has_tree) {
    if (i == 0) {
      seg(o, &col, width, "2", " ");
      seg(o, &col, width, "2", ins->why);
    }
    pad(o, &col, width, "0");
    return;
  }
  int n = p->top + i;
  if (n >= ins->nnodes) {
    pad(o, &col, width, "0");
    return;
  }
  const arena_node *d = &ins->nodes[n];
  int path = p->on_path && p->on_path[n];
  seg(o, &col, width, path ? "1;33" : "0", path ? ">" : " ");
  int indent = 2 * d->depth;
  if (indent > width / 3) indent = width / 3; /* deep trees: the names stay in sight */
  for (int k = 0; k < indent && col < width; k++) seg(o, &col, width, "0", " ");
  char text[160];
  seg(o, &col, width, path ? "1;33" : d->status == BT_RUNNING ? "33" : "0", d->name);
  snprintf(text, sizeof text, " %s", status_word(d->status));
  seg(o, &col, width, status_sgr(d->status), text);
  snprintf(text, sizeof text, " <%s>", status_word(d->last));
  seg(o, &col, width, d->last == BT_READY ? "2" : status_sgr(d->last), text);
  if (d->dbstring[0]) {
    snprintf(text, sizeof text, " (%s)", d->dbstring);
    seg(o, &col, width, "36", text);
  }
  if (d->has_sleep) {
    snprintf(text, sizeof text, " %.2fs", d->sleep);
    seg(o, &col, width, "2", text);
  }
  pad(o, &col, width, "0");
}

/* Line i of the last transitions (0: the title; then the newest records, oldest first). */
static void panel_record(out *o, const panel *p, int i) {
  const arena_inspection *ins = &inspection;
  int col = 0, width = p->width;
  if (i == 0) {
    char title[96];
    snprintf(title, sizeof title, " last transitions%s", ins->recording ? " (newest last)" : "");
    seg(o, &col, width, "7;2", title);
    pad(o, &col, width, "7;2");
    return;
  }
  if (!ins->recording) {
    if (i == 1) {
      seg(o, &col, width, "2", " ");
      seg(o, &col, width, "2", ins->no_records);
    }
    pad(o, &col, width, "0");
    return;
  }
  int shown = p->record_rows - 1;
  int first = ins->nrecords > shown ? ins->nrecords - shown : 0;
  int r = first + i - 1;
  if (r >= ins->nrecords) {
    pad(o, &col, width, "0");
    return;
  }
  const arena_record *rec = &ins->records[r];
  char text[256];
  snprintf(text, sizeof text, " %8.2f #%-4lld ", rec->time, rec->think);
  seg(o, &col, width, "2", text);
  if (strcmp(rec->type, "status") == 0) { /* a record from before a reload has no path */
    if (rec->path[0]) snprintf(text, sizeof text, "%s ", rec->path);
    else snprintf(text, sizeof text, "node %d ", rec->node);
    seg(o, &col, width, "0", text);
    seg(o, &col, width, status_sgr(rec->from), status_word(rec->from));
    seg(o, &col, width, "0", " > ");
    seg(o, &col, width, rec->to == BT_READY ? "0" : status_sgr(rec->to), status_word(rec->to));
  } else if (strcmp(rec->type, "think") == 0) {
    char sleep[48];
    if (rec->has_sleep) snprintf(sleep, sizeof sleep, "sleeps %.2fs", rec->sleep);
    else snprintf(sleep, sizeof sleep, "sleeps until woken");
    snprintf(text, sizeof text, "think, %s%s%s%s", sleep, rec->cause[0] ? " (" : "", rec->cause,
             rec->cause[0] ? ")" : "");
    seg(o, &col, width, "2", text);
  } else {
    snprintf(text, sizeof text, "%s%s%s%s%s%s%s", rec->type, rec->path[0] ? " " : "", rec->path,
             rec->cause[0] ? " " : "", rec->cause, rec->message[0] ? ": " : "", rec->message);
    seg(o, &col, width, strcmp(rec->type, "error") == 0 ? "31" : "35", text);
  }
  pad(o, &col, width, "0");
}

/* Line i of the panel. */
static void panel_line(out *o, arena *a, const inspector *in, const panel *p, int i) {
  if (i == 0) panel_header(o, a, in, p);
  else if (i <= p->tree_rows) panel_node(o, p, i - 1);
  else panel_record(o, p, i - 1 - p->tree_rows);
}

/* ---- the screen ---- */

#define SIDE_PANEL_COLS 120 /* from this width the panel stands right of the map, else below it */
#define PRIO_SELECTED 256
#define SELECTED_SGR "1;30;103"
#define CURSOR_SGR "1;97;45"

/* The line of keys, as many as fit in cols (the first first), then the map's legend if it fits. */
static void legend(const arena *a, const inspector *in, char *text, size_t size, int cols) {
  char kinds[KINDS_MAX * 2 + 8];
  inspect_kind_keys(in, a, kinds, sizeof kinds - 6);
  strcat(kinds, " kind");
  const char *keys[] = {in->paused ? "space run" : "space pause", ". step", a->replay ? "+ - speed" : "tab n p",
                        a->replay ? "tab n p" : kinds, a->replay ? kinds : "hjkl cursor",
                        in->open ? "[ ] scroll" : "i inspect", in->open ? "esc close" : "q quit", NULL};
  size_t n = 0;
  text[0] = 0;
  for (int k = 0; keys[k]; k++) {
    size_t len = strlen(keys[k]) + (k ? 2 : 1);
    if ((int)(n + len) > cols - 1 || n + len >= size) break;
    n += (size_t)snprintf(text + n, size - n, "%s%s", k ? "  " : " ", keys[k]);
  }
  char map_legend[256];
  int m = 0;
  for (int k = 0; k < a->w.nkinds && m < (int)sizeof map_legend; k++)
    m += snprintf(map_legend + m, sizeof map_legend - (size_t)m, " %c %s", a->w.kinds[k].glyph, a->w.kinds[k].name);
  if (m < (int)sizeof map_legend)
    snprintf(map_legend + m, sizeof map_legend - (size_t)m, " \" grass # field H house D den P post ~ pond");
  if ((int)(n + 3 + strlen(map_legend)) <= cols - 1 && n + 3 + strlen(map_legend) < size)
    snprintf(text + n, size - n, "  |%s", map_legend);
}

void view_draw(arena *a, const view_info *vi, inspector *in) {
  world *w = &a->w;
  int cols = 80, rows = 24;
  if (btp_term_size(&cols, &rows) != BT_OK) cols = 80, rows = 24;
  if (cols < 40) cols = 40;
  if (rows < 12) rows = 12;
  if (cols > 400) cols = 400;
  /* the layout: the status line, the body, the last line; the body holds the map and the list of
   * creatures, and the panel right of them (wide terminals) or below the map instead of the list */
  int body = rows - 2, open = in->open;
  int side = open && cols >= SIDE_PANEL_COLS;
  int panel_w = side ? cols * 2 / 5 : cols;
  if (side && panel_w > 100) panel_w = 100;
  int mc = side ? cols - panel_w - 1 : cols;
  int listed = open && !side ? 0 : rows >= 20 ? SHOWN : 3;
  int panel_rows = open ? (side ? body : body * 2 / 3) : 0;
  int mr = body - listed - (side ? 0 : panel_rows);
  int day = world_is_day(w);
  panel p = {0};
  if (open) {
    arena_inspect_read(a, &inspection);
    panel_layout(&p, in, panel_rows, panel_w);
  }
  static out o;
  static int last_cols, last_rows;
  o.n = 0;
  if (cols != last_cols || rows != last_rows) puts_(&o, "\x1b[2J"); /* resized: clear what is left */
  last_cols = cols;
  last_rows = rows;
  puts_(&o, "\x1b[H");

  /* status line: the clock, the population, and the brains' cost when there is room */
  char text[512], clk[64], extra[128], paused[48] = "";
  clock_text(w, clk, sizeof clk);
  if (in->paused) snprintf(paused, sizeof paused, " PAUSED tick %lld", vi->tick);
  const char *mode = vi->replay ? vi->replay : "";
  int n = snprintf(text, sizeof text, " %s t=%.1fs%s%s |", clk, w->time, mode, paused);
  for (int k = 0; k < w->nkinds && n < (int)sizeof text; k++)
    n += snprintf(text + n, sizeof text - (size_t)n, " %s %d", w->kinds[k].plural, w->alive[k]);
  if (n < (int)sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, " | q quits");
  if (n > cols) { /* short labels: the glyphs of the map */
    n = snprintf(text, sizeof text, " %s t=%.1fs%s%s |", clk, w->time, mode, paused);
    for (int k = 0; k < w->nkinds && n < (int)sizeof text; k++)
      n += snprintf(text + n, sizeof text - (size_t)n, " %c %d", w->kinds[k].glyph, w->alive[k]);
    if (n + 10 <= cols && n < (int)sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, " | q quits");
  }
  int m = snprintf(extra, sizeof extra, " | brains %.2f ms/tick, %.0f thinks/s", vi->brain_us / 1000, vi->thinks_per_s);
  if (!vi->replay && n + m <= cols && n + m < (int)sizeof text) strcat(text, extra);
  line(&o, in->paused ? "30;43" : day ? "30;47" : "97;44", text, cols);
  put(&o, "\r\n", 2);

  /* the map: north (+y) up */
  static cell *map;
  static size_t map_cap;
  size_t ncell = (size_t)mc * (size_t)mr;
  if (ncell > map_cap) {
    cell *q = realloc(map, ncell * sizeof *q);
    if (!q) return;
    map = q;
    map_cap = ncell;
  }
  double sx = w->w / mc, sy = w->h / mr;
  in->cell_w = sx;
  in->cell_h = sy;
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
  /* the inspector's creature (where it died, or where it was last), and the cursor */
  if (open) {
    entity *e = world_any(w, in->selected);
    if (e) mark(map, mc, mr, COL(e->x), ROW(e->y), e->dead || !e->valid ? 'x' : kind_glyph(w, e->kind),
                PRIO_SELECTED, SELECTED_SGR);
    if (in->cursor_shown) {
      cell *x = &map[ROW(in->cy) * mc + COL(in->cx)];
      if (x->prio <= 1) x->glyph = '+';
      x->sgr = CURSOR_SGR;
    }
  }

  /* the body: map rows, then the shown creatures (on the left), and the panel */
  for (int r = 0; r < body; r++) {
    int col = 0;
    if (!side && r >= mr + listed) { /* below the map: the panel */
      panel_line(&o, a, in, &p, r - mr - listed);
      end_line(&o);
      continue;
    }
    if (r < mr) {
      const char *cur = NULL;
      for (int c = 0; c < mc; c++) {
        cell *x = &map[r * mc + c];
        if (x->sgr != cur) {
          printf_(&o, "\x1b[0;%sm", x->sgr);
          cur = x->sgr;
        }
        put(&o, &x->glyph, 1);
      }
    } else { /* a shown creature and what it does */
      entity *e = world_get(w, shown[r - mr]);
      if (!e) {
        pad(&o, &col, mc, "0");
      } else {
        char doing[64];
        if (!e->has_brain) snprintf(doing, sizeof doing, "(no brain)");
        else arena_doing(a, e->id, doing, sizeof doing);
        char said[64] = "";
        if (e->say_until > w->time && e->say[0]) snprintf(said, sizeof said, "\"%s\"", e->say);
        char name[32];
        snprintf(name, sizeof name, "%s#%d", kind_name(w, e->kind), e->id);
        snprintf(text, sizeof text, " %c %-12s hp %3.0f  hunger %.2f %-5s %-6s  %-24.24s %s", kind_glyph(w, e->kind),
                 name, e->health, e->hunger, world_is_tired(e) ? "tired" : "",
                 e->action ? e->action : (e->move ? (e->run ? "runs" : "walks") : ""), doing, said);
        seg(&o, &col, mc, kind_sgr(w, e->kind), text);
        pad(&o, &col, mc, "0");
      }
    }
    if (side) {
      puts_(&o, "\x1b[0;2m|");
      panel_line(&o, a, in, &p, r);
    }
    end_line(&o);
  }

  /* the last line: the last error (until the next reload), a reload of the last 5 seconds, a kind
   * without a brain, what the last key could not do, a replay's note, the viewer's URL until the
   * first reload or error, or else the keys and the legend (one column short: no scrolling) */
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
  } else if (in->note[0]) {
    snprintf(text, sizeof text, " %s", in->note);
    line(&o, "1;30;43", text, cols - 1);
  } else if (vi->note && vi->note[0]) {
    snprintf(text, sizeof text, " %s", vi->note);
    line(&o, vi->note_is_error ? "1;97;41" : "1;30;43", text, cols - 1);
  } else if (vi->viewer && vi->viewer[0] && !a->status[0]) {
    snprintf(text, sizeof text, " viewer: %s", vi->viewer);
    line(&o, "1;97;42", text, cols - 1);
  } else {
    legend(a, in, text, sizeof text, cols);
    line(&o, "2", text, cols - 1);
  }
  btp_term_write(o.p, o.n); /* a frame that cannot be written is dropped: the next one comes */
#undef COL
#undef ROW
}
