/* SPDX-License-Identifier: MIT */
/*
 * inspect.c: the keys of the live view as a debugger (see inspect.h): pause and step, and the
 * inspector's choice of a creature.
 */
#include "inspect.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

/* The keys of the view itself (a replay's speed keys too); a kind whose glyph is one of them is
 * picked by its digit. */
static const char RESERVED[] = " .\tqQnpihjkl[]123456789+-=";

static int reserved(int c) { return c > 0 && strchr(RESERVED, c) != NULL; }

static int other_case(int c) { return isupper(c) ? tolower(c) : islower(c) ? toupper(c) : 0; }

void inspect_init(inspector *in, const arena *a) {
  const world *w = &a->w;
  memset(in, 0, sizeof *in);
  in->cx = w->w / 2;
  in->cy = w->h / 2;
  in->cell_w = in->cell_h = 1;
  in->scroll = -1;
  /* each kind's glyph picks it; else the glyph's other case (w for W), if no kind has that glyph */
  for (int k = 0; k < w->nkinds; k++) {
    int g = (unsigned char)w->kinds[k].glyph;
    if (g < 128 && !reserved(g) && !in->key_kind[g]) {
      in->key_kind[g] = (signed char)(k + 1);
      in->kind_key[k] = (char)g;
    }
  }
  for (int k = 0; k < w->nkinds; k++) {
    int o = other_case((unsigned char)w->kinds[k].glyph);
    int taken = 0;
    for (int j = 0; j < w->nkinds; j++) taken |= (unsigned char)w->kinds[j].glyph == o;
    if (!o || o >= 128 || reserved(o) || taken || in->key_kind[o]) continue;
    in->key_kind[o] = (signed char)(k + 1);
    if (!in->kind_key[k]) in->kind_key[k] = (char)o;
  }
}

void inspect_kind_keys(const inspector *in, const arena *a, char *buf, size_t size) {
  size_t n = 0;
  if (size) buf[0] = 0;
  for (int k = 0; k < a->w.nkinds && n + 3 < size; k++) {
    char key = in->kind_key[k] ? in->kind_key[k] : k < 9 ? (char)('1' + k) : 0;
    if (!key) continue;
    n += (size_t)snprintf(buf + n, size - n, "%s%c", n ? " " : "", key);
  }
}

/* The living creature after (dir 1) or before (dir -1) the id `from` in the order of ids, going
 * round; only of kind `kind` unless it is -1. 0 if there is none. */
static int next_creature(const world *w, int from, int dir, int kind) {
  int best = 0, wrap = 0;
  for (int i = 0; i < w->creatures.n; i++) {
    const entity *e = w->ents[w->creatures.v[i]];
    if (e->dead || (kind >= 0 && e->kind != kind)) continue;
    int id = e->id;
    if (dir > 0) {
      if (id > from && (!best || id < best)) best = id;
      if (!wrap || id < wrap) wrap = id;
    } else {
      if (id < from && (!best || id > best)) best = id;
      if (!wrap || id > wrap) wrap = id;
    }
  }
  return best ? best : wrap;
}

/* The living creature nearest to (x, y) (ties: the smaller id), or 0. */
static int nearest_creature(const world *w, double x, double y) {
  int best = 0;
  double best_d = 0;
  for (int i = 0; i < w->creatures.n; i++) {
    const entity *e = w->ents[w->creatures.v[i]];
    if (e->dead) continue;
    double d = (e->x - x) * (e->x - x) + (e->y - y) * (e->y - y);
    if (!best || d < best_d || (d == best_d && e->id < best)) {
      best = e->id;
      best_d = d;
    }
  }
  return best;
}

static void select_creature(inspector *in, arena *a, int id, int move_cursor) {
  in->open = 1;
  if (id != in->selected) {
    in->selected = id;
    in->scroll = -1;
    arena_inspect_select(a, id);
  }
  entity *e = world_any(&a->w, id);
  if (move_cursor && e) {
    in->cx = e->x;
    in->cy = e->y;
    in->cursor_shown = 0;
  }
}

static void close_inspector(inspector *in, arena *a) {
  in->open = 0;
  in->cursor_shown = 0;
  if (in->selected) arena_inspect_select(a, 0);
  in->selected = 0;
}

/* Picks the next (dir 1) or previous (-1) creature, of `kind` or any (-1). */
static int pick(inspector *in, arena *a, int dir, int kind) {
  int id = next_creature(&a->w, in->selected, dir, kind);
  if (!id) {
    snprintf(in->note, sizeof in->note, "no %s alive", kind >= 0 ? kind_name(&a->w, kind) : "creature");
    return INSPECT_REDRAW;
  }
  select_creature(in, a, id, 1);
  return INSPECT_REDRAW;
}

static int move_cursor(inspector *in, arena *a, int dx, int dy) {
  const world *w = &a->w;
  in->cx += dx * in->cell_w;
  in->cy += dy * in->cell_h;
  in->cx = in->cx < 0 ? 0 : in->cx > w->w ? w->w : in->cx;
  in->cy = in->cy < 0 ? 0 : in->cy > w->h ? w->h : in->cy;
  in->cursor_shown = 1;
  int id = nearest_creature(w, in->cx, in->cy);
  if (id) select_creature(in, a, id, 0);
  else snprintf(in->note, sizeof in->note, "no creature alive");
  in->open = 1;
  return INSPECT_REDRAW;
}

static int scroll(inspector *in, int lines) {
  int top = in->top + lines;
  in->scroll = top < 0 ? 0 : top;
  return INSPECT_REDRAW;
}

int inspect_key(inspector *in, arena *a, int key) {
  int page = in->page > 1 ? in->page : 2;
  in->note[0] = 0;
  switch (key) {
  case 'q':
  case 'Q':
  case 3: return INSPECT_QUIT;
  case ' ': in->paused = !in->paused; return INSPECT_REDRAW;
  case '.':
    if (!in->paused) {
      in->paused = 1;
      return INSPECT_REDRAW;
    }
    return INSPECT_STEP;
  case '\t':
  case 'n': return pick(in, a, 1, -1);
  case VIEW_KEY_BACK_TAB:
  case 'p': return pick(in, a, -1, -1);
  case 'i':
    if (in->open) {
      close_inspector(in, a);
      return INSPECT_REDRAW;
    }
    return pick(in, a, 1, -1);
  case VIEW_KEY_ESC:
    if (!in->open) return INSPECT_NOTHING;
    close_inspector(in, a);
    return INSPECT_REDRAW;
  case VIEW_KEY_LEFT:
  case 'h': return move_cursor(in, a, -1, 0);
  case VIEW_KEY_DOWN:
  case 'j': return move_cursor(in, a, 0, -1);
  case VIEW_KEY_UP:
  case 'k': return move_cursor(in, a, 0, 1);
  case VIEW_KEY_RIGHT:
  case 'l': return move_cursor(in, a, 1, 0);
  case VIEW_KEY_PAGE_UP: return in->open ? scroll(in, -page) : INSPECT_NOTHING;
  case VIEW_KEY_PAGE_DOWN: return in->open ? scroll(in, page) : INSPECT_NOTHING;
  case '[': return in->open ? scroll(in, -(page + 1) / 2) : INSPECT_NOTHING;
  case ']': return in->open ? scroll(in, (page + 1) / 2) : INSPECT_NOTHING;
  default: break;
  }
  if (key >= '1' && key <= '9' && key - '1' < a->w.nkinds) return pick(in, a, 1, key - '1');
  if (key > 0 && key < 128 && in->key_kind[key]) return pick(in, a, 1, in->key_kind[key] - 1);
  return INSPECT_NOTHING;
}
