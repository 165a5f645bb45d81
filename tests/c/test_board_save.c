/* SPDX-License-Identifier: MIT */
/* test_board_save.c: the blackboard's values go wherever an agent's state goes. Definitions
 * with other keys hash otherwise; saved bytes (bt_inst_save, bt_inst_restore) and saved text
 * (bt_inst_export, bt_saved_*, bt_inst_import) carry every type of value, strings freed and
 * copied; a reload (bt_inst_transfer) and a rebuild (bt_inst_carry) carry values by key name
 * and type, without a wake and without a write the hook is told of; a key that holds a binding's
 * value (BT_KEY_VALUE) cannot be saved, and the caller can tell which. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "nomem.h"

/* ---- helpers ---- */

static bt_value num(double v) {
  bt_value x = {BT_KEY_NUMBER, {.number = v}};
  return x;
}
static bt_value integer(long long v) {
  bt_value x = {BT_KEY_INTEGER, {.integer = v}};
  return x;
}
static bt_value boolean(int v) {
  bt_value x = {BT_KEY_BOOLEAN, {.boolean = v}};
  return x;
}
static bt_value str(const char *v) {
  bt_value x = {BT_KEY_STRING, {.string = v}};
  return x;
}
static bt_value entity(unsigned long long v) {
  bt_value x = {BT_KEY_ENTITY, {.entity = v}};
  return x;
}
static bt_value token(unsigned long long v) {
  bt_value x = {BT_KEY_VALUE, {.token = v}};
  return x;
}

/* A key's value as text: "nil", "number 0.25", "string 'wolf'", ... */
static char VALUE_TEXT[4][256];
static const char *show(const bt_value *v, int slot) {
  char *out = VALUE_TEXT[slot & 3];
  switch (v->type) {
    case BT_KEY_NONE: snprintf(out, 256, "nil"); break;
    case BT_KEY_NUMBER: snprintf(out, 256, "number %.17g", v->as.number); break;
    case BT_KEY_INTEGER: snprintf(out, 256, "integer %lld", v->as.integer); break;
    case BT_KEY_BOOLEAN: snprintf(out, 256, "boolean %d", v->as.boolean); break;
    case BT_KEY_STRING: snprintf(out, 256, "string '%s'", v->as.string); break;
    case BT_KEY_ENTITY: snprintf(out, 256, "entity %llu", v->as.entity); break;
    case BT_KEY_VALUE: snprintf(out, 256, "value %llu", v->as.token); break;
    default: snprintf(out, 256, "type %d", v->type); break;
  }
  return out;
}

/* The instance's value of the key named name, as show() writes it ("no key" if it has none). */
static const char *value_of(bt_inst *in, const char *name) {
  int k = bt_def_key_find(bt_inst_def(in), name);
  if (k < 0) return "no key";
  bt_value v;
  REQUIRE(bt_inst_key_get(in, k, &v) >= 0);
  return show(&v, 0);
}

static void set(bt_inst *in, const char *name, bt_value v) {
  int k = bt_def_key_find(bt_inst_def(in), name);
  REQUIRE(k >= 0);
  REQUIRE(bt_inst_key_set(in, k, &v) == BT_OK);
}

/* Every key of the instance with its value, one line each: the whole blackboard, to compare (in
 * one of two buffers, taken in turn). */
static char BOARD[2][4096];
static int board_turn;
static const char *board(bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  char *out = BOARD[board_turn++ & 1];
  size_t at = 0;
  out[0] = '\0';
  for (int k = 0; k < bt_def_key_count(d) && at < sizeof BOARD[0]; k++) {
    bt_value v;
    REQUIRE(bt_inst_key_get(in, k, &v) >= 0);
    at += (size_t)snprintf(out + at, sizeof BOARD[0] - at, "%s: %s\n", bt_def_key_name(d, k), show(&v, 1));
  }
  return out;
}

/* The keys a test declares: name and type. */
typedef struct key_decl {
  const char *name;
  int type;
} key_decl;

/* The keys of every type (but "value", which cannot be saved with a value). */
static const key_decl EVERY[] = {{"hunger", BT_KEY_NUMBER}, {"count", BT_KEY_INTEGER}, {"angry", BT_KEY_BOOLEAN},
                                 {"name", BT_KEY_STRING},   {"prey", BT_KEY_ENTITY},   {"lua", BT_KEY_VALUE},
                                 {"note", BT_KEY_STRING}};
#define NEVERY ((int)(sizeof EVERY / sizeof *EVERY))

/* Priority(1) { Sequence "Hunt" { Watch "Hungry" (hunger > 0.5, abort lower), Wait 3 }, Idle } */
static leaf IDLE = LEAF("Idle", BT_RUNNING);

static bt_inst *make_tree(const key_decl *keys, int nkeys) {
  bt_graph *g = new_graph();
  for (int k = 0; k < nkeys; k++) REQUIRE(bt_graph_add_key(g, keys[k].name, keys[k].type, BT_KEY_HOST) == k);
  int root = add_prio(g, "Root", 1);
  int hunt = add_node(g, BT_SEQUENCE, "Hunt", 0, 0);
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = BT_WATCH;
  s.name = "Hungry";
  s.key = "hunger";
  s.cmp = BT_CMP_GT;
  s.value = num(0.5);
  s.flags = BT_SPEC_ABORT_LOWER;
  int hungry = bt_graph_add(g, &s);
  REQUIRE(hungry >= 0);
  int wait = add_node(g, BT_WAIT, "Wait", 3, 0);
  int idle = add_leaf(g, &IDLE);
  set_kids(g, hunt, 2, hungry, wait);
  set_kids(g, root, 2, hunt, idle);
  return build(g, root, 0);
}

/* Idle alone, with keys: a tree whose nodes say nothing of its keys. */
static bt_inst *make_plain(const key_decl *keys, int nkeys) {
  bt_graph *g = new_graph();
  for (int k = 0; k < nkeys; k++) REQUIRE(bt_graph_add_key(g, keys[k].name, keys[k].type, BT_KEY_HOST) == k);
  return build(g, add_leaf(g, &IDLE), 0);
}

/* Gives the keys of EVERY a value each. */
static void fill(bt_inst *in) {
  set(in, "hunger", num(0.75));
  set(in, "count", integer(-1234567890123LL));
  set(in, "angry", boolean(1));
  set(in, "name", str("big bad wolf"));
  set(in, "prey", entity(0xfedcba9876543210ULL));
  set(in, "note", str(""));
}

static const char FILLED[] = "hunger: number 0.75\n"
                             "count: integer -1234567890123\n"
                             "angry: boolean 1\n"
                             "name: string 'big bad wolf'\n"
                             "prey: entity 18364758544493064720\n"
                             "lua: nil\n"
                             "note: string ''\n";

/* What a restore, an import, a transfer or a carry must not do: tell the hook of a write
 * (BT_HOOK_KEY) or wake the instance. */
static int KEY_MSGS, WAKES;
static int count_keys(void *ud, bt_inst *in, const bt_hook_msg *m) {
  (void)ud;
  (void)in;
  if (m->what == BT_HOOK_KEY) KEY_MSGS++;
  return BT_OK;
}
static void count_wake(void *ud, bt_inst *in) {
  (void)ud;
  (void)in;
  WAKES++;
}
static void count_writes(bt_inst *in) {
  REQUIRE(bt_inst_set_hook(in, count_keys, NULL) == BT_OK);
  REQUIRE(bt_inst_set_waker(in, count_wake, NULL) == BT_OK);
  KEY_MSGS = WAKES = 0;
}

/* Writing hunger 0.75 into a new tree is a write its WatchNode wakes it for: the counters see
 * what a carried value would be seen as, if it were a write. */
static void test_counters(void) {
  bt_inst *in = make_tree(EVERY, NEVERY);
  count_writes(in);
  set(in, "hunger", num(0.75));
  CHECK_INT(KEY_MSGS, 1);
  CHECK_INT(WAKES, 1);
  bt_inst_free(in);
}

/* ---- definitions with other keys hash otherwise ---- */

/* The keys' names and types enter the hash, which saved bytes are checked with: the same nodes
 * with other keys are another definition (bt_def_equal says so too: test_board). */
static void test_def_hash(void) {
  key_decl renamed[NEVERY], retyped[NEVERY];
  memcpy(renamed, EVERY, sizeof renamed);
  memcpy(retyped, EVERY, sizeof retyped);
  renamed[3].name = "label";
  retyped[1].type = BT_KEY_NUMBER;
  bt_inst *p = make_plain(EVERY, NEVERY), *q = make_plain(EVERY, NEVERY), *r = make_plain(renamed, NEVERY),
          *t = make_plain(retyped, NEVERY), *u = make_plain(EVERY, 2), *none = make_plain(NULL, 0);
  unsigned long long hp = bt_def_hash(bt_inst_def(p));
  CHECK(bt_def_equal(bt_inst_def(p), bt_inst_def(q)) && hp == bt_def_hash(bt_inst_def(q)));
  CHECK(hp != bt_def_hash(bt_inst_def(r)));
  CHECK(hp != bt_def_hash(bt_inst_def(t)));
  CHECK(hp != bt_def_hash(bt_inst_def(u)));
  CHECK(bt_def_hash(bt_inst_def(none)) != bt_def_hash(bt_inst_def(u)));
  bt_inst_free(p);
  bt_inst_free(q);
  bt_inst_free(r);
  bt_inst_free(t);
  bt_inst_free(u);
  bt_inst_free(none);
}

/* Makes each allocation of call(ctx) fail in turn, from the first: each call must be refused
 * with BT_ENOMEM, leave the board of in (if any) as it was and leak nothing; then runs it with no
 * allocation failing, which must succeed. Returns how many allocations it made. */
typedef int (*try_fn)(void *ctx);
static int each_allocation_fails(try_fn call, void *ctx, bt_inst *in) {
  char kept[4096] = "";
  if (in) snprintf(kept, sizeof kept, "%s", board(in));
  long base = live;
  for (long k = 0;; k++) {
    countdown = k;
    int rc = call(ctx);
    int armed = countdown >= 0;
    countdown = -1;
    if (armed) {
      CHECK_INT(rc, BT_OK);
      return (int)k;
    }
    CHECK_INT(rc, BT_ENOMEM);
    if (in) CHECK_STR(board(in), kept);
    CHECK_INT(live, base);
  }
}

/* ---- saved bytes ---- */

static unsigned char *save(bt_inst *in, size_t *size) {
  *size = bt_inst_save_size(in);
  unsigned char *p = malloc(*size + 1);
  REQUIRE(p && bt_inst_save(in, p, *size) == BT_OK);
  return p;
}

typedef struct restore_call {
  bt_inst *in;
  const unsigned char *bytes;
  size_t size;
} restore_call;
static int try_restore(void *ctx) {
  restore_call *c = ctx;
  return bt_inst_restore(c->in, c->bytes, c->size);
}

static void test_bytes(void) {
  bt_inst *a = make_tree(EVERY, NEVERY);
  const bt_def *d = bt_inst_def(a);
  think(a, 1);
  fill(a);
  think(a, 2.5); /* the WatchNode holds now: the Wait runs */
  CHECK_STR(board(a), FILLED);
  CHECK_STR(ST(a, 3), "RUNNING");
  char want[sizeof DUMP];
  snprintf(want, sizeof want, "%s", dump(a));

  /* the size: the definition's, and the bytes of the strings */
  size_t size = bt_inst_save_size(a);
  CHECK_INT(size, bt_inst_state_size(d) + strlen("big bad wolf"));
  unsigned char *bytes = malloc(size);
  CHECK_INT(bt_inst_save(a, bytes, size - 1), BT_EINVAL);
  CHECK_INT(bt_inst_save(a, bytes, bt_inst_state_size(d)), BT_EINVAL);
  CHECK_INT(bt_inst_save(NULL, bytes, size), BT_EINVAL);
  CHECK_INT(bt_inst_save_size(NULL), 0);
  CHECK_INT(bt_inst_save(a, bytes, size), BT_OK);
  /* the strings by copy: their text is there, not where the instance keeps them */
  bt_value v;
  REQUIRE(bt_inst_key_get(a, bt_def_key_find(d, "name"), &v) == 1);
  const char *where = v.as.string;
  int has_pointer = 0, has_text = 0;
  for (size_t i = 0; i + sizeof where <= size; i++) has_pointer |= memcmp(bytes + i, &where, sizeof where) == 0;
  for (size_t i = 0; i + 12 <= size; i++) has_text |= memcmp(bytes + i, "big bad wolf", 12) == 0;
  CHECK(!has_pointer);
  CHECK(has_text);

  /* into a twin whose strings it replaces (freed: the suite runs under ASan and valgrind), with
   * no write told and nothing woken */
  bt_inst *b = make_tree(EVERY, NEVERY);
  set(b, "name", str("a string the restore frees"));
  set(b, "note", str("and another"));
  set(b, "count", integer(3));
  count_writes(b);
  bt_inst_free(a); /* nothing of a's is needed */
  d = bt_inst_def(b);
  CHECK_INT(bt_inst_restore(b, bytes, size), BT_OK);
  CHECK_STR(board(b), FILLED);
  CHECK_STR(dump(b), want);
  CHECK_INT(KEY_MSGS, 0);
  CHECK_INT(WAKES, 0);
  size_t again;
  unsigned char *twice = save(b, &again); /* the same bytes back */
  CHECK(again == size && memcmp(twice, bytes, size) == 0);
  CHECK_INT(bt_inst_restore(b, bytes, size), BT_OK); /* over its own strings */
  CHECK_STR(board(b), FILLED);
  /* and a value unset by the restore: its string goes */
  bt_inst *c = make_tree(EVERY, NEVERY);
  size_t empty;
  unsigned char *none = save(c, &empty);
  CHECK_INT(empty, bt_inst_state_size(d));
  CHECK_INT(bt_inst_restore(b, none, empty), BT_OK);
  CHECK_STR(board(b), board(c));
  CHECK_INT(bt_inst_restore(b, bytes, size), BT_OK);

  /* refused bytes change nothing: too few or too many, a string with a NUL in it, values a key
   * cannot hold (the entries, KEY_BYTES each after the node memory: 8 bytes of value or length,
   * then the type; see inst.c) */
  CHECK_INT(bt_inst_restore(b, bytes, size - 1), BT_EINVAL);
  unsigned char *more = malloc(size + 1);
  memcpy(more, bytes, size);
  more[size] = 'x';
  CHECK_INT(bt_inst_restore(b, more, size + 1), BT_EINVAL);
  countdown = 0; /* bad bytes are bad bytes, with memory or without (the fuzzer's finding) */
  CHECK_INT(bt_inst_restore(b, more, size + 1), BT_EINVAL);
  countdown = -1;
  size_t entries = bt_inst_state_size(d) - 16 * (size_t)NEVERY;
  struct {
    int key, at;
    unsigned char byte;
  } bad[] = {
      {2, 0, 2},             /* the boolean 2 */
      {2, 8, BT_KEY_NUMBER}, /* the boolean key a number */
      {5, 8, BT_KEY_VALUE},  /* a binding's value */
      {5, 8, 77},            /* no type */
      {3, 0, 200},           /* the string longer than the bytes */
      {3, 0, 11},            /* shorter: bytes left over */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    memcpy(more, bytes, size);
    more[entries + 16 * (size_t)bad[i].key + (size_t)bad[i].at] = bad[i].byte;
    CHECK_INT(bt_inst_restore(b, more, size), BT_EINVAL);
  }
  memcpy(more, bytes, size);
  more[size - 3] = '\0';
  CHECK_INT(bt_inst_restore(b, more, size), BT_EINVAL);
  CHECK_STR(board(b), FILLED);
  CHECK_STR(dump(b), want);
  /* another definition's keys: another hash */
  key_decl renamed[NEVERY];
  memcpy(renamed, EVERY, sizeof renamed);
  renamed[3].name = "label";
  bt_inst *r = make_tree(renamed, NEVERY);
  CHECK_INT(bt_inst_restore(r, bytes, size), BT_EINVAL);

  /* out of memory at each allocation the restore makes: refused, unchanged, nothing leaked */
  bt_inst_set_hook(b, NULL, NULL);
  CHECK_INT(bt_inst_restore(b, none, empty), BT_OK);
  restore_call rc = {b, bytes, size};
  CHECK(each_allocation_fails(try_restore, &rc, b) >= 2); /* the strings' array, a string */
  CHECK_STR(board(b), FILLED);

  /* a key holding a binding's value cannot be saved: bt_inst_unsaveable_key names it */
  CHECK_INT(bt_inst_unsaveable_key(b), -1);
  CHECK_INT(bt_inst_unsaveable_key(NULL), -1);
  set(b, "lua", token(42));
  CHECK_INT(bt_inst_unsaveable_key(b), bt_def_key_find(d, "lua"));
  CHECK_INT(bt_inst_save(b, more, size + 1), BT_EINVAL);
  set(b, "lua", (bt_value){BT_KEY_NONE, {0}});
  CHECK_INT(bt_inst_unsaveable_key(b), -1);
  CHECK_INT(bt_inst_save(b, more, size), BT_OK);

  free(bytes);
  free(twice);
  free(none);
  free(more);
  bt_inst_free(b);
  bt_inst_free(c);
  bt_inst_free(r);
}

/* A definition without keys takes the bytes of format version 2 ("bts2"), which were the same but
 * for their magic; one with keys does not. */
static void test_bytes_v2(void) {
  bt_inst *a = make_plain(NULL, 0), *b = make_plain(EVERY, 1);
  size_t sa, sb;
  unsigned char *pa = save(a, &sa), *pb = save(b, &sb);
  uint32_t magic, v2 = 0x32737462u; /* "bts2" in this machine's byte order */
  memcpy(&magic, pa, sizeof magic);
  CHECK(magic == 0x33737462u);
  memcpy(pa, &v2, sizeof v2);
  memcpy(pb, &v2, sizeof v2);
  CHECK_INT(bt_inst_restore(a, pa, sa), BT_OK);
  CHECK_INT(bt_inst_restore(b, pb, sb), BT_EINVAL);
  free(pa);
  free(pb);
  bt_inst_free(a);
  bt_inst_free(b);
}

/* ---- a reload and a rebuild ---- */

/* EVERY after an edit of the script: name renamed label, count made a number, note gone, mood
 * new; in another order. */
static const key_decl EDITED[] = {{"mood", BT_KEY_STRING},  {"lua", BT_KEY_VALUE},     {"prey", BT_KEY_ENTITY},
                                  {"label", BT_KEY_STRING}, {"angry", BT_KEY_BOOLEAN}, {"count", BT_KEY_NUMBER},
                                  {"hunger", BT_KEY_NUMBER}};
#define NEDITED ((int)(sizeof EDITED / sizeof *EDITED))

static const char EDITED_FILLED[] = "mood: nil\n"
                                    "lua: value 9\n"
                                    "prey: entity 18364758544493064720\n"
                                    "label: nil\n"
                                    "angry: boolean 1\n"
                                    "count: nil\n"
                                    "hunger: number 0.75\n";

typedef int (*move_fn)(bt_inst *to, const bt_inst *from, const int *map, bt_transfer *out);

typedef struct move_call {
  move_fn move;
  bt_inst *to, *from;
  const int *map;
} move_call;
static int try_move(void *ctx) {
  move_call *c = ctx;
  return c->move(c->to, c->from, c->map, NULL);
}

static int *match(bt_inst *from, bt_inst *to) {
  int *map = malloc((size_t)bt_def_states(bt_inst_def(to)) * sizeof *map);
  REQUIRE(map && bt_def_match(bt_inst_def(from), bt_inst_def(to), map) > 0);
  return map;
}

static void test_moves(move_fn move, const char *what) {
  fprintf(stderr, "-- %s (the checks that fail below are of it)\n", what);
  bt_inst *old = make_tree(EVERY, NEVERY);
  think(old, 1);
  fill(old);
  set(old, "lua", token(9)); /* a binding's value: moved as its token, in the same process */
  think(old, 2.5);

  /* into the tree of the edited script: by name and type, with no write and no wake */
  bt_inst *neu = make_tree(EDITED, NEDITED);
  int *map = match(old, neu);
  count_writes(neu);
  CHECK_INT(move(neu, old, map, NULL), BT_OK);
  CHECK_STR(board(neu), EDITED_FILLED);
  CHECK_INT(KEY_MSGS, 0);
  CHECK_INT(WAKES, 0);
  CHECK_STR(ST(neu, 3), "RUNNING"); /* the Wait: its state came too */
  free(map);

  /* into a tree of the same keys: the same values, strings copied (old freed first) over those
   * the instance held (freed); a key from lacks keeps its value */
  bt_inst *twin = make_tree(EVERY, NEVERY), *fewer = make_tree(EVERY, 2);
  set(twin, "name", str("replaced"));
  set(twin, "note", str("replaced too"));
  set(fewer, "hunger", num(0.125));
  map = match(old, twin);
  CHECK_INT(move(twin, old, map, NULL), BT_OK);
  free(map);
  map = match(fewer, twin);
  CHECK_INT(move(twin, fewer, map, NULL), BT_OK); /* hunger and count from fewer, the rest kept */
  free(map);
  set(old, "lua", (bt_value){BT_KEY_NONE, {0}});
  bt_inst_free(old);
  bt_inst_free(fewer);
  CHECK_STR(board(twin), "hunger: number 0.125\n"
                         "count: nil\n"
                         "angry: boolean 1\n"
                         "name: string 'big bad wolf'\n"
                         "prey: entity 18364758544493064720\n"
                         "lua: value 9\n"
                         "note: string ''\n");

  /* into itself: the same (its strings copied, then the old ones freed) */
  map = match(twin, twin);
  char before[4096];
  snprintf(before, sizeof before, "%s", board(twin));
  CHECK_INT(move(twin, twin, map, NULL), BT_OK);
  CHECK_STR(board(twin), before);

  /* out of memory: refused, unchanged, nothing leaked */
  bt_inst *to = make_tree(EVERY, NEVERY);
  set(to, "name", str("kept"));
  move_call mc = {move, to, twin, map};
  CHECK(each_allocation_fails(try_move, &mc, to) >= 3); /* the transfer's arrays, the plan, a string */
  CHECK_STR(board(to), before);
  free(map);
  bt_inst_free(neu);
  bt_inst_free(twin);
  bt_inst_free(to);
}

/* ---- saved text ---- */

/* The instance's state as text, read back. */
static bt_saved *export_text(bt_inst *in, double now, bt_buf *text) {
  bt_buf_free(text);
  REQUIRE(bt_inst_export(in, now, text) == BT_OK);
  bt_saved *sv = NULL;
  char err[256];
  int rc = bt_saved_create(&sv, text->data, text->len, err, sizeof err);
  if (rc != BT_OK) fprintf(stderr, "bt_saved_create: %s\n%s", err, text->data);
  REQUIRE(rc == BT_OK);
  return sv;
}

static int import_text(bt_inst *in, const bt_saved *sv, double now) {
  int *map = malloc((size_t)bt_def_states(bt_inst_def(in)) * sizeof *map);
  REQUIRE(map && bt_saved_match(sv, bt_inst_def(in), map) > 0);
  int rc = bt_inst_import(in, sv, map, now, NULL);
  free(map);
  return rc;
}

/* An import makes the instance as new, strings included (they were left allocated, unreachable) */
static void test_import_frees(void) {
  bt_inst *a = make_tree(EVERY, NEVERY), *b = make_tree(EVERY, NEVERY);
  fill(b);
  bt_buf text = {0};
  bt_saved *sv = export_text(a, 0, &text);
  CHECK_INT(import_text(b, sv, 0), BT_OK);
  CHECK_STR(board(b), board(a));
  bt_saved_free(sv);
  bt_buf_free(&text);
  bt_inst_free(a);
  bt_inst_free(b);
}

typedef struct import_call {
  bt_inst *in;
  const bt_saved *sv;
  const char *text;
  size_t len;
} import_call;
static int try_import(void *ctx) {
  import_call *c = ctx;
  int *map = __real_malloc((size_t)bt_def_states(bt_inst_def(c->in)) * sizeof *map);
  REQUIRE(map && bt_saved_match(c->sv, bt_inst_def(c->in), map) > 0);
  int rc = bt_inst_import(c->in, c->sv, map, 2.5, NULL);
  __real_free(map);
  return rc;
}
static int try_read(void *ctx) {
  import_call *c = ctx;
  bt_saved *sv = NULL;
  char err[64];
  int rc = bt_saved_create(&sv, c->text, c->len, err, sizeof err);
  CHECK(rc == BT_OK ? sv != NULL : sv == NULL && strcmp(err, "not enough memory") == 0);
  bt_saved_free(sv);
  return rc;
}

/* The text's key lines of a tree filled by fill(). */
static const char FILLED_LINES[] = "number 6:hunger x3fe8000000000000\n"
                                   "integer 5:count -1234567890123\n"
                                   "boolean 5:angry true\n"
                                   "string 4:name 12:big bad wolf\n"
                                   "entity 4:prey 18364758544493064720\n"
                                   "value 3:lua -\n"
                                   "string 4:note 0:\n"
                                   "end\n";

static void test_text(void) {
  bt_inst *a = make_tree(EVERY, NEVERY);
  think(a, 1);
  fill(a);
  think(a, 2.5);
  char want[sizeof DUMP];
  snprintf(want, sizeof want, "%s", dump(a));
  bt_buf text = {0};
  bt_saved *sv = export_text(a, 2.5, &text);
  CHECK(strstr(text.data, "\n") && strstr(text.data, " x4004000000000000 7\n") < strstr(text.data, "\n"));
  CHECK(text.len > sizeof FILLED_LINES && strcmp(text.data + text.len - (sizeof FILLED_LINES - 1), FILLED_LINES) == 0);

  /* what the host can read of the saved keys */
  CHECK_INT(bt_saved_key_count(sv), NEVERY);
  CHECK_INT(bt_saved_key_find(sv, "name"), 3);
  CHECK_INT(bt_saved_key_find(sv, "nope"), BT_EINVAL);
  CHECK_STR(bt_saved_key_name(sv, 3), "name");
  CHECK(bt_saved_key_name(sv, NEVERY) == NULL);
  CHECK_INT(bt_saved_key_type(sv, 1), BT_KEY_INTEGER);
  CHECK_INT(bt_saved_key_type(sv, -1), BT_EINVAL);
  for (int k = 0; k < NEVERY; k++) {
    bt_value saved, now;
    int has = bt_inst_key_get(a, k, &now);
    CHECK_INT(bt_saved_key_value(sv, k, &saved), has);
    CHECK_STR(show(&saved, 2), show(&now, 3));
  }
  bt_value v;
  CHECK_INT(bt_saved_key_value(sv, NEVERY, &v), BT_EINVAL);
  CHECK_INT(bt_saved_key_value(sv, 0, NULL), BT_EINVAL);
  CHECK_INT(bt_saved_key_count(NULL), 0);
  CHECK_INT(bt_saved_key_find(NULL, "name"), BT_EINVAL);
  CHECK(bt_saved_key_name(NULL, 0) == NULL);
  CHECK_INT(bt_saved_key_type(NULL, 0), BT_EINVAL);
  CHECK_INT(bt_saved_key_value(NULL, 0, &v), BT_EINVAL);

  /* imported into a twin with strings of its own (freed), with no write and no wake; the text
   * again is the same text */
  bt_inst *b = make_tree(EVERY, NEVERY);
  set(b, "name", str("to be freed"));
  count_writes(b);
  CHECK_INT(import_text(b, sv, 2.5), BT_OK);
  CHECK_STR(board(b), FILLED);
  CHECK_STR(dump(b), want);
  CHECK_INT(KEY_MSGS, 0);
  CHECK_INT(WAKES, 0);
  bt_buf again = {0};
  bt_saved_free(export_text(b, 2.5, &again));
  CHECK_STR(again.data, text.data);
  /* the bytes give the same (a second way, the same input) */
  bt_inst *c = make_tree(EVERY, NEVERY);
  size_t size;
  unsigned char *bytes = save(a, &size);
  CHECK_INT(bt_inst_restore(c, bytes, size), BT_OK);
  CHECK_STR(board(c), board(b));
  free(bytes);

  /* into the tree of the edited script: by name and type; a key renamed, retyped or new is unset,
   * as in a new tree, whatever it held (a reload would have kept it) */
  bt_inst *e = make_tree(EDITED, NEDITED), *f = make_tree(EDITED, NEDITED);
  set(e, "mood", str("calm"));
  set(e, "count", num(4));
  CHECK_INT(import_text(e, sv, 2.5), BT_OK);
  int *map = match(a, f);
  CHECK_INT(bt_inst_transfer(f, a, map, NULL), BT_OK);
  free(map);
  CHECK_STR(board(e), board(f)); /* as a reload of a into a new tree gives them */
  CHECK_STR(value_of(e, "hunger"), "number 0.75");
  CHECK_STR(value_of(e, "mood"), "nil");
  CHECK_STR(value_of(e, "label"), "nil");
  CHECK_STR(value_of(e, "count"), "nil");

  /* out of memory in the import, and while the text is read: refused, unchanged, nothing leaked */
  set(b, "name", str("kept"));
  import_call ic = {b, sv, NULL, 0};
  CHECK(each_allocation_fails(try_import, &ic, b) >= 4);
  CHECK_STR(board(b), FILLED);

  import_call tc = {NULL, NULL, text.data, text.len};
  CHECK(each_allocation_fails(try_read, &tc, NULL) >= 4);

  bt_saved_free(sv);
  bt_buf_free(&text);
  bt_buf_free(&again);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_inst_free(c);
  bt_inst_free(e);
  bt_inst_free(f);
}

/* Values at their edges, and strings of any bytes but NUL, come back as they were. */
static void test_text_values(void) {
  static const struct {
    double n;
    long long i;
    unsigned long long e;
    const char *s;
  } cases[] = {
      {-0.0, LLONG_MIN, ULLONG_MAX, "two\nlines: with 3:colons and  spaces "},
      {INFINITY, LLONG_MAX, 0, "end\n"},
      {NAN, 0, 1, "\xff\xfe bytes"},
      {4e-320, -1, 42, " "},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    bt_inst *a = make_tree(EVERY, NEVERY), *b = make_tree(EVERY, NEVERY);
    set(a, "hunger", num(cases[i].n));
    set(a, "count", integer(cases[i].i));
    set(a, "angry", boolean(0));
    set(a, "prey", entity(cases[i].e));
    set(a, "name", str(cases[i].s));
    bt_buf text = {0};
    bt_saved *sv = export_text(a, 0, &text);
    CHECK_INT(import_text(b, sv, 0), BT_OK);
    CHECK_STR(board(b), board(a));
    bt_value x, y;
    bt_inst_key_get(a, 0, &x);
    bt_inst_key_get(b, 0, &y);
    CHECK(memcmp(&x.as.number, &y.as.number, sizeof(double)) == 0); /* the bits: -0, NaN */
    bt_saved_free(sv);
    bt_buf_free(&text);
    bt_inst_free(a);
    bt_inst_free(b);
  }
}

/* A text of format version 1 (no keys) is read: the keys are unset, as in a new tree. */
static void test_text_v1(void) {
  bt_inst *a = make_tree(EVERY, NEVERY), *b = make_tree(EVERY, NEVERY), *fresh = make_tree(EVERY, NEVERY);
  fill(a);
  fill(b);
  bt_buf text = {0};
  bt_saved_free(export_text(a, 0, &text));
  /* version 1: "1" for "2", no count of keys at the header's end, no key lines */
  char *p = strstr(text.data, "\n"), *keys = strstr(text.data, "number 6:hunger");
  REQUIRE(p && keys && memcmp(text.data, "bt-state 2 ", 11) == 0 && memcmp(p - 2, " 7", 2) == 0);
  text.data[9] = '1';
  memmove(p - 2, p, (size_t)(keys - p));
  memcpy(keys - 2, "end\n", 5);
  bt_saved *sv = NULL;
  char err[256];
  CHECK_INT(bt_saved_create(&sv, text.data, strlen(text.data), err, sizeof err), BT_OK);
  CHECK_INT(bt_saved_key_count(sv), 0);
  CHECK_INT(import_text(b, sv, 0), BT_OK);
  CHECK_STR(board(b), board(fresh));
  CHECK_STR(dump(b), dump(fresh));
  bt_saved_free(sv);
  bt_buf_free(&text);
  bt_inst_free(a);
  bt_inst_free(b);
  bt_inst_free(fresh);
}

/* A text whose keys are wrong is refused, with what is wrong and where. */
static void refused(const char *text, const char *why) {
  bt_saved *sv = NULL;
  char err[256];
  CHECK_INT(bt_saved_create(&sv, text, strlen(text), err, sizeof err), BT_EINVAL);
  CHECK(sv == NULL);
  if (!strstr(err, why)) fprintf(stderr, "refused: '%s' has no '%s'\n", err, why);
  CHECK(strstr(err, why) != NULL);
}

static void test_text_refused(void) {
  static const char head[] = "bt-state 2 1 1 0 x0000000000000000 2\n0 ActionNode 0 4:Idle\nREADY READY 0 -\n";
  static const struct {
    const char *keys, *why;
  } cases[] = {
      {"number 1:a -\nend\n", "corrupt at byte 88: expected a key's type (number, integer, boolean, string, entity or value), got 'end'"},
      {"number 1:a -\nnil 1:b -\nend\n", "corrupt at byte 88: expected a key's type (number, integer, boolean, string, entity or value), got 'nil'"},
      {"numbr 1:a -\nnumber 1:b -\nend\n", "expected a key's type"},
      {"number a -\nnumber 1:b -\nend\n", "expected a key's name as <length>:<bytes>"},
      {"number 1:a -\nnumber 1:a -\nend\n", "corrupt at byte 88: key 'a' is saved twice"},
      {"number 0: -\nnumber 1:b -\nend\n", "a key's name is empty"},
      {"number 1:a 0.5\nnumber 1:b -\nend\n", "expected a number (x and 16 hexadecimal digits)"},
      {"integer 1:a 12x\nnumber 1:b -\nend\n", "expected an integer"},
      {"integer 1:a 9223372036854775808\nnumber 1:b -\nend\n", "an integer 9223372036854775808 is out of range"},
      {"integer 1:a -9223372036854775809\nnumber 1:b -\nend\n", "out of range"},
      {"entity 1:a 18446744073709551616\nnumber 1:b -\nend\n", "out of range"},
      {"entity 1:a -1\nnumber 1:b -\nend\n", "expected an entity's id"},
      {"boolean 1:a yes\nnumber 1:b -\nend\n", "expected a boolean (true or false)"},
      {"string 1:a 5:abc\n", "truncated: a string of 5 bytes"},
      {"string 1:a abc\nnumber 1:b -\nend\n", "expected a string as <length>:<bytes>"},
      {"value 1:a 7\nnumber 1:b -\nend\n", "a key of type value holds a binding's value, which is never saved"},
      {"number 1:a -\nnumber 1:b -\nnumber 1:c -\nend\n", "expected 'end' after the keys"},
      {"number 1:a -\nnumber 1:b", "truncated"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s", head, cases[i].keys);
    refused(text, cases[i].why);
  }
  refused("bt-state 2 1 1 0 x0000000000000000 9\n0 ActionNode 0 4:Idle\nREADY READY 0 -\nend\n",
          "9 keys do not fit in the rest of the text");
  char nul[] = "bt-state 2 1 1 0 x0000000000000000 1\n0 ActionNode 0 4:Idle\nREADY READY 0 -\nstring 1:a 3:a\0b\nend\n";
  bt_saved *sv = NULL;
  char err[256];
  CHECK_INT(bt_saved_create(&sv, nul, sizeof nul - 1, err, sizeof err), BT_EINVAL);
  CHECK(strstr(err, "a string with a NUL byte in it") != NULL);
  char good[512];
  snprintf(good, sizeof good, "%s%s", head, "integer 1:a -9223372036854775808\nentity 1:b 18446744073709551615\nend\n");
  CHECK_INT(bt_saved_create(&sv, good, strlen(good), err, sizeof err), BT_OK);
  bt_value v;
  CHECK_INT(bt_saved_key_value(sv, 0, &v), 1);
  CHECK(v.as.integer == LLONG_MIN);
  CHECK_INT(bt_saved_key_value(sv, 1, &v), 1);
  CHECK(v.as.entity == ULLONG_MAX);
  bt_saved_free(sv);
}

/* A key holding a binding's value: the export appends nothing and bt_inst_unsaveable_key names
 * the key; unset, it is saved as unset. */
static void test_text_unsaveable(void) {
  bt_inst *a = make_tree(EVERY, NEVERY);
  fill(a);
  set(a, "lua", token(1));
  bt_buf text = {0};
  bt_buf_append(&text, "kept", 4);
  CHECK_INT(bt_inst_export(a, 0, &text), BT_EINVAL);
  CHECK_STR(text.data, "kept");
  CHECK_STR(bt_def_key_name(bt_inst_def(a), bt_inst_unsaveable_key(a)), "lua");
  set(a, "lua", (bt_value){BT_KEY_NONE, {0}});
  CHECK_INT(bt_inst_export(a, 0, &text), BT_OK);
  CHECK(strstr(text.data, "\nvalue 3:lua -\n") != NULL);
  bt_buf_free(&text);
  bt_inst_free(a);
}

int main(void) {
  test_counters();
  test_def_hash();
  test_bytes();
  test_bytes_v2();
  test_moves(bt_inst_transfer, "bt_inst_transfer");
  test_moves(bt_inst_carry, "bt_inst_carry");
  test_import_frees();
  test_text();
  test_text_values();
  test_text_v1();
  test_text_refused();
  test_text_unsaveable();
  return check_report("test_board_save");
}
