/* SPDX-License-Identifier: MIT */
/*
 * fuzz_bt.c: a libFuzzer target for the bt core (build with -DBT_FUZZ=ON and clang; run with
 * tests/fuzz/run.sh SECONDS).
 *
 * The input is read as a script. Its first part describes a graph through the C API: any node
 * kind (and bad ones), names, any parameter (zero, negative, NaN, infinite, huge), any flags, leaf
 * functions, bt_ops overrides, children lists of any length that share nodes and make cycles, a
 * deep chain or a ladder of shared nodes past the limits; subtree nodes, resolved from a library
 * made of parts of the graph itself. It is compiled twice, before and after
 * some edits (as a reload would), and instances of both are made. The rest of the input is a list
 * of actions on them: thinks at clock values from the input, force updates, resets, stops,
 * events, fields read and written, sleeps, dumps, saves and restores of intact and corrupted
 * states, transfers between the two definitions, base-class calls, a scheduler, and a world of
 * pure leaves thought by the scheduler on one worker and on two, which must agree
 * frame by frame. Leaf functions
 * and overrides take their results from the input and run actions of their own, as a hostile Lua
 * script would: calling the instance's think from inside it (BT_EBUSY), stopping the tree,
 * firing events, writing fields, visiting other nodes.
 *
 * Every call must return one of the codes the header documents, and after every action the
 * instances must hold valid statuses and, as long as the input gave only finite numbers, sleep
 * times that are not NaN nor negative. A broken expectation aborts, as a crash does.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt.h"

#define EXPECT(cond)                                                                      \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "bt_fuzz: expectation failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                            \
    }                                                                                     \
  } while (0)

/* BT_FUZZ_TRACE=1 in the environment: what the input does, on stderr, to turn a finding into a
 * test. */
static int tracing;
#define TRACE(...)                                       \
  do {                                                   \
    if (tracing) {                                       \
      fprintf(stderr, "%*s", 2 * depth, "");            \
      fprintf(stderr, __VA_ARGS__);                      \
      fputc('\n', stderr);                               \
    }                                                    \
  } while (0)

static int depth; /* callbacks running actions, nested */

/* ---- the input ---- */

static const uint8_t *src;
static size_t left;

static unsigned byte(void) {
  if (!left) return 0;
  left--;
  return *src++;
}

static unsigned word(void) {
  unsigned lo = byte();
  return lo | byte() << 8;
}

/* Set once the input gave a number that is not finite, or a sleep time op gave a negative one:
 * from then on sleep times may be NaN or negative. */
static int nonfinite, negative_sleep;

static double number(void) {
  static const double table[] = {
      0,      -0.0,     1,         -1,       0.5,      2,        3,          10,
      0.25,   1e-9,     -0.5,      100,      1e6,      1e300,    -1e300,     DBL_MAX,
      -DBL_MAX, DBL_MIN, 4e-320,   4294967295.0, 4294967296.0, -4294967296.0, 2147483648.0, 9.3e18,
      0.1,    0.033,    1.5,       -2,       5,        60,       INFINITY,   -INFINITY,
      NAN};
  unsigned k = byte();
  double v;
  if (k < 96) v = table[k % (sizeof table / sizeof table[0])];
  else if (k < 200) v = (double)(k - 96) / 8;
  else if (k < 240) v = (double)word() / 64 - 100;
  else {
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits |= (uint64_t)byte() << (8 * i);
    memcpy(&v, &bits, sizeof v);
  }
  if (!isfinite(v)) nonfinite = 1;
  return v;
}

/* A number the clock may give: finite (the host's clock is a clock). */
static double clock_number(void) {
  unsigned k = byte();
  if (k < 200) return (double)k / 16;
  int was = nonfinite;
  double v = number();
  if (!isfinite(v)) { /* not used: the flag stays as it was */
    nonfinite = was;
    v = (double)word();
  }
  return v;
}

/* ---- allocation failures ----
 * The target is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc: the core's
 * allocations come here, and fail when the input says so. The harness's own use the real ones. */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);

static long alloc_countdown = -1; /* allocations until one fails; -1: none fails */
static int alloc_sticky;          /* after the first failure, every allocation fails */
static int alloc_failed;          /* an allocation failed during this input: BT_ENOMEM is fine */

static int alloc_fails(void) {
  if (alloc_countdown < 0) return 0;
  if (alloc_countdown > 0) {
    alloc_countdown--;
    return 0;
  }
  alloc_failed = 1;
  if (!alloc_sticky) alloc_countdown = -1;
  return 1;
}

void *__wrap_malloc(size_t size) { return alloc_fails() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t count, size_t size) { return alloc_fails() ? NULL : __real_calloc(count, size); }
void *__wrap_realloc(void *p, size_t size) { return alloc_fails() ? NULL : __real_realloc(p, size); }
void *__wrap_aligned_alloc(size_t align, size_t size) {
  return alloc_fails() ? NULL : __real_aligned_alloc(align, size);
}

/* From the input: the next allocations succeed but one (or all from then on). */
static void arm_alloc_failure(void) {
  unsigned k = byte();
  alloc_countdown = (k & 0x80) ? (long)word() : (long)(k & 31);
  alloc_sticky = (k & 0x40) != 0;
  TRACE("allocation %ld from now fails%s", alloc_countdown, alloc_sticky ? ", and all after it" : "");
}

/* rc is BT_ENOMEM and an allocation failed. */
#define NOMEM(rc) ((rc) == BT_ENOMEM && alloc_failed)

/* ---- the world: two definitions, three instances, a scheduler ---- */

#define NINST 3
static bt_def *defs[2];
static bt_inst *insts[NINST];
static void *inst_mem[NINST]; /* memory of instances made by bt_inst_init */
static int cur;               /* the instance the top-level actions use */
static double now_value;      /* the clock */
static long long work;        /* a bound on node visits per input, so that no input hangs */
#define WORK_LIMIT 3000000LL
static int in_think;          /* a top-level think is running (for the scheduler's hooks) */

static bt_sched *sched;
static int brains[NINST];

static int afford(const bt_inst *in, long long factor) {
  long long cost = (long long)bt_def_size(bt_inst_def(in)) * factor;
  if (work + cost > WORK_LIMIT) return 0;
  work += cost;
  return 1;
}

/* ---- the host ---- */

static double host_now(void *data) {
  (void)data;
  return now_value;
}

static double host_random(void *data) {
  (void)data;
  return (double)byte() / 256.0; /* [0, 1) */
}

/* In [1, n] mostly; an error or a number out of range otherwise (the RandomNode must fail). */
static int host_random_int(void *data, int n, int *out) {
  (void)data;
  unsigned k = byte();
  if (k == 255) return BT_EINVAL;
  if (k >= 240) {
    static const int odd[] = {0, -1, 2147483647, -2147483647 - 1};
    *out = odd[k & 3];
    if (k & 4) *out = n + 1;
    return BT_OK;
  }
  *out = n > 0 ? 1 + (int)(k % (unsigned)n) : 1;
  return BT_OK;
}

static const bt_host hosts[2] = {
    {host_now, host_random, host_random_int, NULL},
    {host_now, NULL, NULL, NULL}, /* the instance's own generator */
};

/* ---- picking things ---- */

static int valid_node(const bt_inst *in, int n) { return n >= 0 && n < bt_def_size(bt_inst_def(in)); }

/* A valid node index. */
static int any_node(const bt_inst *in) {
  int size = bt_def_size(bt_inst_def(in));
  unsigned k = size > 256 ? word() : byte();
  return (int)(k % (unsigned)size);
}

/* A node index for the calls that check it: mostly valid. */
static int checked_node(const bt_inst *in) {
  unsigned k = byte();
  if (k >= 248) {
    static const int bad[] = {-1, -2147483647 - 1, 2147483647, 1000000};
    int b = bad[k & 3];
    if (k & 4) b = bt_def_size(bt_inst_def(in));
    return b;
  }
  int size = bt_def_size(bt_inst_def(in));
  return (int)((k | (size > 256 ? byte() << 8 : 0)) % (unsigned)size);
}

/* The first Event node at or after a random place, or a random node. */
static int event_node(const bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  int size = bt_def_size(d);
  int start = any_node(in);
  for (int i = 0; i < size && i < 512; i++) {
    int n = (start + i) % size;
    if (bt_def_kind(d, n) == BT_EVENT) return n;
  }
  return checked_node(in);
}

static int any_kind(void) {
  unsigned k = byte() % (BT_KIND_COUNT + 2);
  return k == BT_KIND_COUNT + 1 ? -1 : (int)k;
}

static int any_status(void) {
  unsigned k = byte();
  if (k >= 250) return (int)k - 252; /* -2..3, then beyond */
  return (int)(k & 3);
}

static int compatible(const bt_inst *in, int n, int kind) {
  int k = bt_def_kind(bt_inst_def(in), n);
  return k >= 0 && (kind == k || kind == BT_BEHAVIOUR || (kind == BT_PARALLEL && k == BT_PARALLEL_ANY));
}

static bt_inst *other_inst(void) {
  unsigned k = byte() % NINST;
  for (unsigned i = 0; i < NINST; i++)
    if (insts[(k + i) % NINST]) return insts[(k + i) % NINST];
  return NULL;
}

/* ---- checks ---- */

static void check_status(int s) { EXPECT(s >= BT_READY && s <= BT_RUNNING); }

/* A code the header documents, which bt_strerror names. */
static int check_code(int rc) {
  EXPECT(rc == BT_OK || rc == BT_ENOMEM || rc == BT_EINVAL || rc == BT_ECYCLE || rc == BT_ETOOBIG ||
         rc == BT_EBUSY);
  const char *text = bt_strerror(rc);
  EXPECT(text && text[0]);
  return rc;
}

static void check_sleep(int r, double t) {
  EXPECT(r == 0 || r == 1);
  if (r == 1 && !nonfinite && !negative_sleep) EXPECT(t >= 0); /* and so not NaN */
}

static void check_buf(const bt_buf *b) {
  EXPECT(b->err == BT_OK || b->err == BT_ENOMEM || b->err == BT_EINVAL);
  if (b->len) EXPECT(b->data && strlen(b->data) == b->len && b->len < b->cap);
}

/* After each top-level action: every instance as the API promises it. */
static void check_inst(bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  int size = bt_def_size(d);
  EXPECT(!bt_inst_thinking(in));
  for (int n = 0; n < size && n < 64; n++) {
    check_status(bt_node_status(in, n));
    check_status(bt_node_last(in, n));
    for (int f = 0; f < BT_FIELD_COUNT; f++) {
      double v;
      int r = bt_node_get(in, n, f, &v);
      if (bt_node_has_field(d, n, f)) EXPECT(r == 0 || r == 1);
      else EXPECT(r == BT_EINVAL);
      /* a child index is one bt_node_set would take */
      if (f == BT_FIELD_IDX && r == 1) {
        int k = bt_def_kind(d, n);
        if (k == BT_PRIORITY) EXPECT(v >= 1 && v <= bt_def_child_count(d, n));
        else if (k != BT_RANDOM) EXPECT(v >= 1);
      }
    }
  }
  double t = -1;
  if (afford(in, 2)) check_sleep(bt_inst_sleep_time(in, &t), t);
}

/* ---- actions ---- */

static int act(bt_inst *self);

/* What a callback does besides its result: up to three actions, nested at most three deep. */
static int twin_mode; /* callbacks run no actions; thinks and resets are checked on a twin */

static void script(bt_inst *in) {
  unsigned n = byte() % 4;
  if (depth >= 3 || twin_mode) return;
  depth++;
  for (unsigned i = 0; i < n; i++) act(in);
  depth--;
}

static void do_update(bt_inst *in) {
  if (!afford(in, 1)) return;
  int busy = bt_inst_thinking(in);
  int top = depth == 0 && !in_think;
  if (top) in_think = 1;
  int rc = bt_inst_update(in);
  if (top) in_think = 0;
  EXPECT(rc == (busy ? BT_EBUSY : BT_OK));
  EXPECT(bt_inst_thinking(in) == busy);
}

static void do_dump(bt_inst *in) {
  bt_buf b = {0};
  if (byte() & 1) {
    if (afford(in, 8)) {
      int rc = bt_inst_dump(in, &b);
      EXPECT(rc == BT_OK || NOMEM(rc));
    }
    if (afford(in, 8)) { /* the DOT picture: whole, or nothing appended */
      bt_buf d = {0};
      int rc = bt_inst_dot(in, &d);
      EXPECT(rc == BT_OK || NOMEM(rc));
      EXPECT(rc != BT_OK || (d.len >= 2 && strcmp(d.data + d.len - 2, "}\n") == 0));
      EXPECT(rc == BT_OK || d.len == 0);
      bt_buf_free(&d);
    }
  } else {
    int n = any_node(in);
    int rc = bt_node_describe(in, n, &b);
    (void)rc; /* an override's describe returns what it likes */
    bt_node_string(in, n, &b);
    if (afford(in, 4)) bt_node_tree_string(in, n, (byte() & 1) ? "" : "%s%n  ", &b);
    bt_node_describe_as(in, checked_node(in), any_kind(), &b);
  }
  check_buf(&b);
  bt_buf_free(&b);
}

static int same_number(double a, double b) { return a == b || (a != a && b != b); }

static void do_fields(bt_inst *in) {
  int n = checked_node(in);
  int f = (int)(byte() % (BT_FIELD_COUNT + 2)) - 1;
  int has = valid_node(in, n) && bt_node_has_field(bt_inst_def(in), n, f);
  double v = 0;
  if (byte() & 1) {
    int r = bt_node_get(in, n, f, &v);
    if (has) EXPECT(r == 0 || r == 1);
    else EXPECT(r == BT_EINVAL);
  } else {
    double w = number(), before = 0, after = 0;
    int had = has ? bt_node_get(in, n, f, &before) : 0;
    int r = check_code(bt_node_set(in, n, f, (byte() & 3) == 0 ? NULL : &w));
    EXPECT(r == BT_OK || r == BT_EINVAL || NOMEM(r));
    if (!has) EXPECT(r == BT_EINVAL);
    if (NOMEM(r)) { /* a refused write leaves the field as it was */
      EXPECT(bt_node_get(in, n, f, &after) == had);
      EXPECT(!had || same_number(before, after));
    }
  }
}

static void do_save_restore(bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  size_t size = bt_inst_save_size(in);
  EXPECT(size >= bt_inst_state_size(d));
  unsigned char *a = __real_malloc(size + 8), *b = __real_malloc(size + 8);
  EXPECT(a && b);
  EXPECT(bt_inst_save(in, a, size - 1) == BT_EINVAL);
  EXPECT(bt_inst_save(in, NULL, size) == BT_EINVAL);
  if (bt_inst_unsaveable_key(in) >= 0) { /* a binding's value: refused, and named */
    EXPECT(bt_def_key_type(d, bt_inst_unsaveable_key(in)) == BT_KEY_VALUE);
    EXPECT(bt_inst_save(in, a, size) == BT_EINVAL);
    free(a);
    free(b);
    return;
  }
  EXPECT(bt_inst_save(in, a, size) == BT_OK);
  int busy = bt_inst_thinking(in);
  unsigned how = byte() % 6;
  if (how == 0) {
    /* a round trip gives the same bytes */
    int rc = bt_inst_restore(in, a, size);
    EXPECT(rc == (busy ? BT_EBUSY : BT_OK) || NOMEM(rc));
    EXPECT(bt_inst_save(in, b, size) == BT_OK);
    EXPECT(memcmp(a, b, size) == 0);
  } else if (how <= 3) {
    /* corrupted bytes: refused, or taken as a valid state */
    unsigned flips = 1 + byte() % 4;
    for (unsigned i = 0; i < flips; i++) {
      size_t at = (how == 1 ? byte() : word()) % size;
      a[at] = (unsigned char)(how == 3 ? byte() : a[at] ^ (1u << (byte() & 7)));
    }
    EXPECT(bt_inst_save(in, b, size) == BT_OK);
    int rc = bt_inst_restore(in, a, size);
    TRACE("restore of corrupted bytes: %d", rc);
    if (busy) EXPECT(rc == BT_EBUSY);
    else EXPECT(rc == BT_OK || rc == BT_EINVAL || NOMEM(rc));
    if (rc == BT_OK) nonfinite = 1; /* the bytes of a time may now be NaN */
    if (rc != BT_OK) { /* a refused restore leaves the instance unchanged */
      EXPECT(bt_inst_save(in, a, size) == BT_OK);
      EXPECT(memcmp(a, b, size) == 0);
    }
  } else if (how == 4) {
    /* wrong sizes and no data */
    EXPECT(bt_inst_restore(in, a, size + 1) == (busy ? BT_EBUSY : BT_EINVAL));
    EXPECT(bt_inst_restore(in, a, size - 1) == (busy ? BT_EBUSY : BT_EINVAL));
    EXPECT(bt_inst_restore(in, NULL, size) == (busy ? BT_EBUSY : BT_EINVAL));
  } else {
    /* into another instance, maybe of another definition */
    bt_inst *to = other_inst();
    int rc = bt_inst_restore(to, a, size);
    int to_busy = bt_inst_thinking(to);
    if (to_busy) EXPECT(rc == BT_EBUSY);
    else if (bt_def_hash(bt_inst_def(to)) != bt_def_hash(d) ||
             bt_inst_state_size(bt_inst_def(to)) != bt_inst_state_size(d))
      EXPECT(rc == BT_EINVAL);
    else EXPECT(rc == BT_OK || rc == BT_EINVAL || NOMEM(rc));
  }
  free(a);
  free(b);
}

/* ---- the blackboard: values written, and carried by saves and transfers ---- */

#define MAX_KEYS_SEEN 16

/* The values of an instance's keys (its first MAX_KEYS_SEEN), strings copied. */
typedef struct key_values {
  int n;
  bt_value v[MAX_KEYS_SEEN];
} key_values;

static void keys_of(const bt_inst *in, key_values *out) {
  int n = bt_def_key_count(bt_inst_def(in));
  out->n = n < MAX_KEYS_SEEN ? n : MAX_KEYS_SEEN;
  for (int k = 0; k < out->n; k++) {
    EXPECT(bt_inst_key_get(in, k, &out->v[k]) == (out->v[k].type != BT_KEY_NONE));
    if (out->v[k].type == BT_KEY_STRING) {
      size_t len = strlen(out->v[k].as.string);
      char *copy = __real_malloc(len + 1);
      EXPECT(copy);
      memcpy(copy, out->v[k].as.string, len + 1);
      out->v[k].as.string = copy;
    }
  }
}

static void keys_free(key_values *kv) {
  for (int k = 0; k < kv->n; k++)
    if (kv->v[k].type == BT_KEY_STRING) free((char *)(uintptr_t)kv->v[k].as.string);
  kv->n = 0;
}

/* Whether key k of in holds v exactly (a number to the bit). */
static int same_key_value(const bt_inst *in, int k, const bt_value *v) {
  bt_value x;
  EXPECT(bt_inst_key_get(in, k, &x) >= 0);
  if (x.type != v->type) return 0;
  switch (x.type) {
    case BT_KEY_NONE: return 1;
    case BT_KEY_NUMBER: return memcmp(&x.as.number, &v->as.number, sizeof x.as.number) == 0;
    case BT_KEY_INTEGER: return x.as.integer == v->as.integer;
    case BT_KEY_BOOLEAN: return x.as.boolean == v->as.boolean;
    case BT_KEY_STRING: return strcmp(x.as.string, v->as.string) == 0;
    default: return x.as.entity == v->as.entity;
  }
}

/* A value of any type (some the key will not take). */
static bt_value any_value(void) {
  static const char *const strings[] = {"", "wolf", "two words", "line\nbreak", "3:x", "-", "end", "x0"};
  bt_value v;
  memset(&v, 0, sizeof v);
  v.type = (int)(byte() % (BT_KEY_TYPE_COUNT + 1)); /* and one that is no type */
  switch (v.type) {
    case BT_KEY_NUMBER: v.as.number = number(); break;
    case BT_KEY_INTEGER: {
      static const long long edges[] = {0, -1, LLONG_MIN, LLONG_MAX};
      unsigned k = byte();
      v.as.integer = k < 4 ? edges[k] : (long long)(int16_t)word() * ((long long)k << 24);
      break;
    }
    case BT_KEY_BOOLEAN: v.as.boolean = (int)(byte() & 1); break;
    case BT_KEY_STRING: v.as.string = strings[byte() % 8]; break;
    case BT_KEY_ENTITY: v.as.entity = (unsigned long long)word() << (byte() % 49); break;
    case BT_KEY_VALUE: v.as.token = byte(); break;
    default: break;
  }
  return v;
}

static void do_key_write(bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  int k = (int)(byte() % (unsigned)(bt_def_key_count(d) + 2)) - 1; /* and bad ones */
  bt_value v = any_value(), before;
  const bt_value *pv = (byte() % 8) ? &v : NULL;
  bt_inst_key_get(in, k, &before);
  int rc = check_code(bt_inst_key_set(in, k, pv));
  TRACE("key %d := type %d: %d", k, pv ? v.type : 0, rc);
  if (k < 0 || k >= bt_def_key_count(d)) {
    EXPECT(rc == BT_EINVAL);
    return;
  }
  int fits = !pv || v.type == BT_KEY_NONE || v.type == bt_def_key_type(d, k);
  EXPECT(rc == (fits ? BT_OK : BT_EINVAL) || (fits && NOMEM(rc)));
  if (rc != BT_OK) EXPECT(same_key_value(in, k, &before)); /* (before's string is still the key's) */
  else EXPECT(same_key_value(in, k, pv && v.type != BT_KEY_NONE ? &v : &(bt_value){BT_KEY_NONE, {0}}));
}

/* The instance's saved text, maybe damaged, read back, and imported into it or another. */
static void do_saved_text(bt_inst *in) {
  int busy = bt_inst_thinking(in), bad = bt_inst_unsaveable_key(in);
  double now = clock_number();
  bt_buf text = {0};
  int rc = check_code(bt_inst_export(in, now, &text));
  if (busy) EXPECT(rc == BT_EBUSY);
  else if (bad >= 0) EXPECT(rc == BT_EINVAL && text.len == 0);
  else EXPECT(rc == BT_OK || NOMEM(rc));
  if (rc != BT_OK || !text.len) {
    bt_buf_free(&text);
    return;
  }
  unsigned how = byte() % 4, n = 1 + byte() % 4;
  static const char bytes[] = " \n-:0x9ttrue";
  for (unsigned i = 0; how && i < n && text.len; i++) {
    size_t at = (how == 1 ? (size_t)word() : text.len - 1 - byte() % (text.len < 256 ? text.len : 256)) % text.len;
    if (how == 3) text.len = at; /* cut short */
    else text.data[at] = how == 1 ? (char)(text.data[at] ^ (1 << (byte() & 7))) : bytes[byte() % (sizeof bytes - 1)];
  }
  TRACE("saved text (%u): %.*s", how, (int)text.len, text.data);
  bt_saved *sv = NULL;
  char err[160];
  rc = check_code(bt_saved_create(&sv, text.data, text.len, err, sizeof err));
  EXPECT(rc == BT_OK || rc == BT_EINVAL || NOMEM(rc));
  if (rc != BT_OK) {
    EXPECT(sv == NULL && err[0]);
    bt_buf_free(&text);
    return;
  }
  /* the saved keys, as the API describes them */
  int nk = bt_saved_key_count(sv);
  EXPECT(nk >= 0);
  for (int k = 0; k < nk && k < 64; k++) {
    const char *name = bt_saved_key_name(sv, k);
    int type = bt_saved_key_type(sv, k);
    bt_value v;
    EXPECT(name && name[0] && bt_saved_key_find(sv, name) == k);
    EXPECT(type > BT_KEY_NONE && type < BT_KEY_TYPE_COUNT);
    int has = bt_saved_key_value(sv, k, &v);
    EXPECT(has == (v.type != BT_KEY_NONE) && (!has || v.type == type) && v.type != BT_KEY_VALUE);
    if (has && type == BT_KEY_STRING) EXPECT(v.as.string != NULL);
  }
  bt_value none;
  EXPECT(bt_saved_key_value(sv, nk, &none) == BT_EINVAL && !bt_saved_key_name(sv, -1));
  /* imported: each key takes the saved value of its name and type; refused, nothing changes */
  bt_inst *to = (byte() & 1) ? in : other_inst();
  const bt_def *dt = bt_inst_def(to);
  int *map = __real_malloc((size_t)bt_def_states(dt) * sizeof *map);
  EXPECT(map);
  int m = bt_saved_match(sv, dt, map);
  EXPECT(m >= 0 && m <= bt_def_states(dt));
  if (m > 0 && afford(to, 2)) {
    key_values before;
    keys_of(to, &before);
    busy = bt_inst_thinking(to);
    rc = check_code(bt_inst_import(to, sv, map, now, NULL));
    if (busy) EXPECT(rc == BT_EBUSY);
    else EXPECT(rc == BT_OK || NOMEM(rc));
    if (rc == BT_OK && how) nonfinite = 1; /* damaged times may be anything */
    for (int k = 0; k < before.n; k++) {
      int f = bt_saved_key_find(sv, bt_def_key_name(dt, k));
      bt_value saved = {BT_KEY_NONE, {0}};
      if (f >= 0 && bt_saved_key_type(sv, f) == bt_def_key_type(dt, k)) bt_saved_key_value(sv, f, &saved);
      EXPECT(same_key_value(to, k, rc == BT_OK ? &saved : &before.v[k]));
    }
    keys_free(&before);
  }
  free(map);
  bt_saved_free(sv);
  bt_buf_free(&text);
}

static void do_transfer(bt_inst *to) {
  bt_inst *from = other_inst();
  const bt_def *dt = bt_inst_def(to), *df = bt_inst_def(from);
  int nt = bt_def_states(dt), nf = bt_def_states(df);
  int *map = __real_malloc((size_t)nt * sizeof *map);
  EXPECT(map);
  int m = bt_def_match(df, dt, map);
  EXPECT(m >= 0 && m <= nt);
  int count = 0;
  for (int s = 0; s < nt; s++) {
    EXPECT(map[s] >= -1 && map[s] < nf);
    if (map[s] >= 0) count++;
  }
  EXPECT(count == m);
  if (byte() % 4 == 0) { /* a map that bt_def_match did not make */
    unsigned k = byte() % 4;
    for (unsigned i = 0; i < k; i++) map[word() % (unsigned)nt] = (int)(word() % (unsigned)(nf + 2)) - 1;
  }
  if (tracing)
    for (int s = 0; s < nt; s++) TRACE("map[%d] = %d", s, map[s]);
  bt_transfer r = {-1, -1, -1};
  int busy = bt_inst_thinking(to) || bt_inst_thinking(from);
  key_values kt, kf;
  keys_of(to, &kt);
  keys_of(from, &kf);
  int rc = check_code(bt_inst_transfer(to, from, map, (byte() & 1) ? &r : NULL));
  if (busy) EXPECT(rc == BT_EBUSY);
  else EXPECT(rc == BT_OK || (rc == BT_EINVAL && to == from) || NOMEM(rc));
  /* each key of to has the value of from's key of its name and type, or kept its own */
  for (int k = 0; k < kt.n; k++) {
    int f = bt_def_key_find(df, bt_def_key_name(dt, k));
    if (f >= MAX_KEYS_SEEN) continue;
    int moved = rc == BT_OK && f >= 0 && bt_def_key_type(df, f) == bt_def_key_type(dt, k);
    EXPECT(same_key_value(to, k, moved ? &kf.v[f] : &kt.v[k]));
  }
  keys_free(&kt);
  keys_free(&kf);
  if (rc == BT_OK && r.matched >= 0) {
    EXPECT(r.matched <= nt && r.gone >= 0 && r.gone <= nf && r.reevaluate >= 0 && r.reevaluate <= nt);
  }
  free(map);
}

/* Base-class calls: bt_node_*_as with any kind on any node. */
static void do_as(bt_inst *in) {
  int n = checked_node(in), k = any_kind();
  int ok = valid_node(in, n) && compatible(in, n, k);
  double t = -1;
  int rc;
  switch (byte() % 4) {
    case 0:
      if (!afford(in, 1)) return;
      rc = bt_node_visit_as(in, n, k);
      break;
    case 1:
      if (!afford(in, 1)) return;
      rc = bt_node_reset_as(in, n, k);
      break;
    case 2:
      if (!afford(in, 1)) return;
      rc = bt_node_step_as(in, n, k);
      break;
    default:
      rc = bt_node_sleep_time_as(in, n, k, &t);
      if (ok) {
        check_sleep(rc, t);
        return;
      }
      break;
  }
  if (ok) EXPECT(rc == BT_OK || rc == BT_EINVAL);
  else EXPECT(rc == BT_EINVAL);
}

/* The node methods, as a script calls them on any node of its tree. */
static void do_method(bt_inst *in) {
  int n = any_node(in);
  double t = -1;
  switch (byte() % 8) {
    case 0:
      if (afford(in, 1)) bt_node_visit(in, n);
      break;
    case 1:
      if (afford(in, 1)) bt_node_reset(in, n);
      break;
    case 2:
      if (afford(in, 1)) bt_node_step(in, n);
      break;
    case 3: bt_node_save_status(in, n); break;
    case 4:
      if (afford(in, 1)) bt_node_stop(in, n);
      break;
    case 5: check_sleep(bt_node_sleep_time(in, n, &t), t); break;
    case 6:
      if (afford(in, 2)) check_sleep(bt_node_tree_sleep_time(in, n, &t), t);
      break;
    default: bt_node_sleep(in, n, number()); break;
  }
}

static void do_def_queries(const bt_def *d) {
  int n = (int)word() - 2;
  bt_def_kind(d, n);
  bt_def_name(d, n);
  bt_def_depth(d, n);
  bt_def_child_count(d, n);
  bt_def_child(d, n, (int)byte() - 1);
  bt_def_up(d, n);
  bt_def_child_index(d, n);
  int s = bt_def_state(d, n);
  EXPECT(s >= -1 && s < bt_def_states(d));
  bt_def_node_of_state(d, n);
  bt_def_graph_id(d, n);
  bt_def_parent(d, n);
  EXPECT(bt_def_equal(d, d));
  if (defs[0] && defs[1] && bt_def_equal(defs[0], defs[1]))
    EXPECT(bt_def_hash(defs[0]) == bt_def_hash(defs[1]));
}

/* ---- the scheduler ---- */

static int sched_ready(void *ud, int brain) {
  (void)ud;
  (void)brain;
  return (byte() & 7) != 0;
}

static int sched_think(void *ud, int brain, double *sleep) {
  (void)ud;
  for (int i = 0; i < NINST; i++) {
    if (brains[i] != brain || !insts[i]) continue;
    do_update(insts[i]);
    if (byte() % 8 == 0) act(insts[i]);
    int r = bt_inst_sleep_time(insts[i], sleep);
    check_sleep(r, *sleep);
    return r;
  }
  *sleep = number();
  return byte() & 1;
}

/* Scheduler calls, from the top level or from its hooks. */
static void do_sched(void) {
  if (!sched) return;
  int b = brains[byte() % NINST];
  unsigned k = byte();
  if (k >= 250) b = (int)k - 252; /* no brain */
  int rc = BT_OK;
  switch (byte() % 11) {
    case 0: rc = bt_sched_add(sched, b); break;
    case 1: rc = bt_sched_remove(sched, b); break;
    case 2: rc = bt_sched_wake(sched, b); break;
    case 3: rc = bt_sched_hibernate(sched, b); break;
    case 4: rc = bt_sched_sleep(sched, b, number()); break;
    case 5: rc = bt_sched_set_period(sched, b, number()); break;
    case 6: {
      double tt = number();
      rc = bt_sched_set_tick_time(sched, tt);
      EXPECT(rc == ((tt > 0 && !isinf(tt)) ? BT_OK : BT_EINVAL));
      break;
    }
    case 7: rc = bt_sched_set_policy(sched, (int)(byte() % 3)); break;
    case 9: {
      /* a brain forgotten and a new one (its id reused) for the same instance */
      int i = (int)(byte() % NINST);
      rc = bt_sched_brain_free(sched, brains[i]);
      if (rc == BT_OK) {
        brains[i] = bt_sched_brain_create(sched);
        EXPECT(brains[i] >= 0 || NOMEM(brains[i]));
        if (insts[i] && brains[i] >= 0 && (byte() & 1)) {
          rc = bt_sched_add(sched, brains[i]);
          EXPECT(rc == BT_OK || NOMEM(rc));
        }
      }
      break;
    }
    case 8: {
      long long wake = 0;
      rc = bt_sched_list(sched, b, &wake);
      if (rc >= 0) {
        EXPECT(rc <= BT_SCHED_HIBERNATING);
        rc = BT_OK;
      }
      break;
    }
    default: {
      if (in_think) return; /* hooks think the brains: not from inside a think */
      static int in_update;
      if (in_update) return;
      long long tick = bt_sched_tick(sched) + (long long)(byte() % 4);
      unsigned how = byte();
      if (how == 255) tick = (long long)word() - 30000;
      else if (how >= 128) { /* the tick a waiting brain waits for */
        long long wake = 0;
        if (bt_sched_list(sched, brains[how % NINST], &wake) == BT_SCHED_WAITING) tick = wake;
      }
      bt_sched_hooks h = {(byte() & 1) ? sched_ready : NULL, sched_think, NULL};
      in_update = 1;
      rc = bt_sched_update(sched, tick, &h);
      in_update = 0;
      EXPECT(rc == BT_OK || NOMEM(rc));
      if (rc == BT_OK) EXPECT(bt_sched_tick(sched) == tick);
      break;
    }
  }
  EXPECT(rc == BT_OK || rc == BT_EINVAL || NOMEM(rc));
  bt_sched_stats st;
  bt_sched_stats_get(sched, &st);
  EXPECT(st.registered >= 0 && st.updating >= 0 && st.waiting >= 0 && st.hibernating >= 0);
  EXPECT(st.registered <= NINST && st.waiting <= NINST && st.hibernating <= NINST);
}

/* ---- the log: when the input's last byte has its high bit set, each instance's recorder writes
 * to a log in memory (with DBStrings when its next bit is set too), flushed after each top-level
 * action and read back at the end: it must read to its end, with every record the recorders made
 * (fewer only when an allocation failed) ---- */

static bt_log *flog;
static bt_rec *frecs[NINST];
static unsigned char *flog_bytes;
static size_t flog_len, flog_cap;
static unsigned long long frecords; /* records the recorders made */

static int flog_write(void *ud, const void *data, size_t size) {
  (void)ud;
  if (flog_len + size > flog_cap) {
    size_t cap = flog_cap ? flog_cap : 4096;
    while (cap < flog_len + size) cap *= 2;
    unsigned char *p = __real_realloc(flog_bytes, cap);
    EXPECT(p);
    flog_bytes = p;
    flog_cap = cap;
  }
  memcpy(flog_bytes + flog_len, data, size);
  flog_len += size;
  return 0;
}

static void trace_record(void *ud, const bt_rec_entry *e) {
  TRACE("record of agent %d: type %d node %d think %llu", (int)(intptr_t)ud, e->type, e->node, e->think);
}

static void log_attach(int i) {
  if (!flog || !insts[i]) return;
  int rc = bt_rec_create(&frecs[i], 0);
  EXPECT(rc == BT_OK || NOMEM(rc));
  if (rc != BT_OK) return;
  if (tracing) bt_rec_set_callback(frecs[i], trace_record, (void *)(intptr_t)i);
  rc = bt_rec_set_agent(frecs[i], (unsigned long long)i, i == 1 ? "one" : NULL);
  EXPECT(rc == BT_OK || NOMEM(rc));
  rc = bt_rec_set_log(frecs[i], flog);
  EXPECT(rc == BT_OK || NOMEM(rc));
  rc = bt_inst_set_recorder(insts[i], frecs[i]);
  EXPECT(rc == BT_OK || NOMEM(rc));
}

static void log_detach(int i) {
  if (!frecs[i]) return;
  frecords += bt_rec_total(frecs[i]);
  bt_rec_free(frecs[i]);
  frecs[i] = NULL;
}

static void log_flush(void) {
  if (!flog) return;
  int rc = bt_log_flush(flog);
  EXPECT(rc == BT_OK || NOMEM(rc));
}

/* Closes the log and reads it back. */
static void log_check(void) {
  if (!flog) return;
  int rc = bt_log_free(flog);
  EXPECT(rc == BT_OK || NOMEM(rc));
  flog = NULL;
  bt_log_reader *r = NULL;
  EXPECT(bt_log_reader_create(&r) == BT_OK && bt_log_reader_feed(r, flog_bytes, flog_len) == BT_OK);
  bt_log_record rec;
  unsigned long long n = 0;
  while ((rc = bt_log_read(r, &rec)) == 1) {
    if (rec.entry.type <= BT_REC_KEY) n++; /* the recorders' types, which bt_rec_total counts */
    TRACE("read back: agent %llu type %d node %d think %llu", rec.agent, rec.entry.type, rec.entry.node, rec.entry.think);
  }
  if (rc != 0 || bt_log_reader_where(r, NULL) != BT_LOG_ENDED)
    fprintf(stderr, "bt_fuzz: the log does not read back: %s\n", bt_log_reader_errmsg(r));
  if (n != frecords) TRACE("the log has %llu records, the recorders made %llu", n, frecords);
  EXPECT(rc == 0 && bt_log_reader_where(r, NULL) == BT_LOG_ENDED);
  EXPECT(n <= frecords && (n == frecords || alloc_failed));
  TRACE("log: %llu records of %llu read back from %zu bytes", n, frecords, flog_len);
  bt_log_reader_free(r);
}

/* ---- the scheduler on workers: one world on one worker and on two ----
 * A tree from the input whose leaves are pure: each agent's results come from a generator of its
 * own, and its leaves queue commands (wakes, events, force updates, sleeps, hibernations, adds,
 * removals, commands of the host's) to agents the input's script picks, never reading the input
 * while they run. The same world runs on a bt_sched of one worker and on one of two with
 * batches from the input; after every frame both must be the same, byte for byte. Allocations
 * do not fail here (the harness's counter is no thread's). */

#define TW_AGENTS 24
#define TW_NODES 24
#define TW_SCRIPT 16

typedef struct tw_world tw_world;

typedef struct tw_agent {
  tw_world *w;
  uint64_t state;
  int index, brain;
  bt_inst *inst;
} tw_agent;

struct tw_world {
  bt_sched *ts;
  bt_host host;
  tw_agent agents[TW_AGENTS];
  int n, alarm;
  double now;
  unsigned long long shared[4]; /* written by the host's commands only */
  unsigned char script[TW_SCRIPT];
  int nscript;
};

static double tw_now(void *data) { return ((tw_world *)data)->now; }

static void tw_apply(void *ud, const void *data, size_t size) {
  tw_world *w = ud;
  unsigned r;
  EXPECT(size == sizeof r);
  memcpy(&r, data, sizeof r);
  w->shared[r % 4] = w->shared[r % 4] * 31 + r;
  if (r % 7 == 0) EXPECT(bt_sched_add(w->ts, w->agents[r % (unsigned)w->n].brain) == BT_OK);
}

/* A leaf: the agent's next number, and a command from the script. */
static unsigned tw_step(bt_call *c) {
  tw_agent *a = bt_inst_agent(c->inst);
  tw_world *w = a->w;
  a->state = a->state * 6364136223846793005ULL + 1442695040888963407ULL + (uint64_t)c->node;
  unsigned r = (unsigned)(a->state >> 33);
  int target = w->agents[(r >> 8) % (unsigned)w->n].brain; /* read only during frames */
  int rc = BT_OK;
  switch (w->script[(r >> 3) % (unsigned)w->nscript] % 12) {
    case 0: rc = bt_sched_wake(w->ts, target); break;
    case 1: if (w->alarm >= 0) rc = bt_sched_fire_event(w->ts, target, w->alarm); break;
    case 2: rc = bt_sched_force_update(w->ts, target); break;
    case 3: rc = bt_sched_sleep(w->ts, target, (r % 5) * 0.04); break;
    case 4: rc = bt_sched_hibernate(w->ts, target); break;
    case 5: rc = bt_sched_remove(w->ts, target); break;
    case 6: rc = bt_sched_add(w->ts, target); break;
    case 7: rc = bt_sched_post(w->ts, tw_apply, w, &r, sizeof r); break;
    case 8: rc = bt_sched_fire_event(w->ts, target, c->node); break; /* maybe no EventNode */
    case 9: rc = bt_sched_wake(w->ts, 1000 + target); break;         /* no such brain */
    default: break;
  }
  EXPECT(rc == BT_OK);
  return r;
}

static int tw_fn(bt_call *c) {
  unsigned r = tw_step(c);
  c->value = (r % 8) * 0.05; /* a time function's seconds */
  return r % 5 == 4 ? -1 : (int)(r % 2); /* an error now and then */
}
static int tw_task_update(bt_call *c) {
  unsigned r = tw_step(c);
  return r % 3 == 0 ? BT_RUNNING : r % 3 == 1 ? BT_SUCCESS : BT_FAILED;
}
static void tw_task_finish(bt_call *c, bt_status s) {
  tw_agent *a = bt_inst_agent(c->inst);
  a->state += (uint64_t)s;
}
static const bt_task tw_task = {tw_fn, tw_task_update, tw_task_finish};

static int tw_capacity(int kind) {
  switch (kind) {
    case BT_CONDITION: case BT_ACTION: case BT_WAIT: case BT_CONDITIONWAIT: case BT_MULTICONDITION:
    case BT_TASK: case BT_BEHAVIOUR:
      return 0;
    case BT_NOT: case BT_FAILIFRUNNING: case BT_FAILIFSUCCESS: case BT_LATCH: case BT_LOOP:
    case BT_EVENT: case BT_REPEAT: case BT_SUCCEED: case BT_FAIL: case BT_COOLDOWN: case BT_TIMEOUT:
      return 1;
    default: return 8;
  }
}

/* A tree of pure leaves from the input, or NULL. */
static bt_def *tw_build(void) {
  bt_graph *g;
  if (bt_graph_create(&g) != BT_OK) return NULL;
  /* (zeros: a Priority over Actions) */
  int n = TW_NODES - (int)(byte() % TW_NODES), kinds[TW_NODES], nkids[TW_NODES] = {0};
  int kids[TW_NODES][8];
  for (int i = 0; i < n; i++) {
    bt_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = (int)((byte() + BT_ACTION) % BT_SUBTREE);
    if (i == 0 && tw_capacity(sp.kind) == 0) sp.kind = BT_PRIORITY;
    unsigned extras = byte();
    sp.param = (double)(extras % 16) * 0.05 + (sp.kind == BT_REPEAT || sp.kind == BT_LOOP);
    if (sp.kind == BT_REPEAT && sp.param < 1) sp.param = 1;
    sp.flags = (extras >> 4) & (BT_SPEC_NIL_PARAM | BT_SPEC_PARAM_FN | BT_SPEC_NOSCATTER);
    if (sp.kind == BT_REPEAT || sp.kind == BT_COOLDOWN || sp.kind == BT_TIMEOUT) sp.flags &= ~(unsigned)BT_SPEC_NIL_PARAM;
    if (sp.kind == BT_POLICY_PARALLEL) sp.flags = (extras >> 4) & (BT_SPEC_SUCCESS_ONE | BT_SPEC_FAILURE_ALL);
    sp.fn = tw_fn;
    sp.fn2 = tw_fn;
    sp.task = &tw_task;
    kinds[i] = sp.kind;
    if (bt_graph_add(g, &sp) != i) {
      bt_graph_free(g);
      return NULL;
    }
    if (i == 0) continue;
    int p = (int)(byte() % (unsigned)i); /* under an earlier node with room */
    for (int tries = 0; tries < i && nkids[p] >= tw_capacity(kinds[p]); tries++) p = (p + 1) % i;
    if (nkids[p] < tw_capacity(kinds[p])) kids[p][nkids[p]++] = i;
  }
  for (int p = 0; p < n; p++)
    if (nkids[p]) bt_graph_set_children(g, p, kids[p], nkids[p]);
  bt_def *def = NULL;
  if (bt_def_create(&def, g, 0) != BT_OK) def = NULL;
  bt_graph_free(g);
  return def;
}

static void tw_trace(tw_world *w, bt_buf *out) {
  bt_sched_stats st;
  bt_sched_stats_get(w->ts, &st);
  long long v[] = {st.thinks, st.registered, st.updating, st.waiting, st.hibernating, st.due,
                   st.commands, st.rejected, (long long)w->shared[0], (long long)w->shared[1],
                   (long long)w->shared[2], (long long)w->shared[3]};
  bt_buf_append(out, (const char *)v, sizeof v);
  size_t size = bt_inst_state_size(bt_inst_def(w->agents[0].inst));
  unsigned char *state = __real_malloc(size);
  EXPECT(state);
  for (int i = 0; i < w->n; i++) {
    tw_agent *a = &w->agents[i];
    long long wake = 0;
    long long u[] = {bt_sched_list(w->ts, a->brain, &wake), 0, (long long)a->state};
    u[1] = wake;
    bt_buf_append(out, (const char *)u, sizeof u);
    EXPECT(bt_inst_save(a->inst, state, size) == BT_OK);
    bt_buf_append(out, (const char *)state, size);
  }
  free(state);
}

static void do_threaded(void) {
  if (depth || in_think) return;
  long saved_countdown = alloc_countdown;
  alloc_countdown = -1;
  bt_def *def = tw_build();
  /* (an input that ends early gives zeros: many agents, registered, and many frames) */
  int n = TW_AGENTS - (int)(byte() % (TW_AGENTS - 1)), frames = 8 - (int)(byte() % 8), batch = 1 + (int)(byte() % 4);
  unsigned char registered[TW_AGENTS], seeds[TW_AGENTS];
  for (int i = 0; i < n; i++) {
    registered[i] = (unsigned char)(byte() % 4 != 3);
    seeds[i] = (unsigned char)byte();
  }
  static tw_world tw[2];
  int nscript = 1 + (int)(byte() % TW_SCRIPT);
  unsigned char script[TW_SCRIPT];
  for (int i = 0; i < nscript; i++) script[i] = (unsigned char)byte();
  TRACE("threaded: %d nodes, %d agents, %d frames, batches of %d", def ? bt_def_size(def) : 0, n, frames, batch);
  if (!def) {
    alloc_countdown = saved_countdown;
    return;
  }
  int alarm = -1;
  for (int k = 0; k < bt_def_size(def); k++)
    if (bt_def_kind(def, k) == BT_EVENT) alarm = k;
  for (int k = 0; k < 2; k++) {
    tw_world *w = &tw[k];
    memset(w, 0, sizeof *w);
    w->host = (bt_host){tw_now, NULL, NULL, w};
    w->n = n;
    w->alarm = alarm;
    w->nscript = nscript;
    memcpy(w->script, script, sizeof script);
    EXPECT(bt_sched_create(&w->ts, 1.0 / 30) == BT_OK);
    EXPECT(bt_sched_set_threads(w->ts, k ? 2 : 1) == BT_OK);
    EXPECT(bt_sched_set_batch_size(w->ts, k ? batch : 0) == BT_OK);
    for (int i = 0; i < n; i++) {
      tw_agent *a = &w->agents[i];
      a->w = w;
      a->index = i;
      a->state = seeds[i];
      EXPECT(bt_inst_create(&a->inst, def, &w->host, a, BT_INST_NOSCATTER) == BT_OK);
      EXPECT(bt_inst_seed(a->inst, seeds[i]) == BT_OK);
      EXPECT(bt_inst_scatter(a->inst) == BT_OK);
      a->brain = bt_sched_brain_create(w->ts);
      EXPECT(a->brain == i);
      EXPECT(bt_sched_set_inst(w->ts, a->brain, a->inst) == BT_OK);
      if (registered[i]) EXPECT(bt_sched_add(w->ts, a->brain) == BT_OK);
    }
  }
  bt_buf t[2] = {{0}, {0}};
  for (int f = 1; f <= frames; f++) {
    for (int k = 0; k < 2; k++) {
      tw[k].now = f / 30.0;
      EXPECT(bt_sched_update(tw[k].ts, f, NULL) == BT_OK);
      t[k].len = 0;
      tw_trace(&tw[k], &t[k]);
      EXPECT(!t[k].err);
    }
    EXPECT(t[0].len == t[1].len && memcmp(t[0].data, t[1].data, t[0].len) == 0);
  }
  for (int k = 0; k < 2; k++) {
    bt_buf_free(&t[k]);
    for (int i = 0; i < n; i++) bt_inst_free(tw[k].agents[i].inst);
    bt_sched_free(tw[k].ts);
  }
  bt_def_release(def);
  alloc_countdown = saved_countdown;
}

/* ---- instances ---- */

static void drop_inst(int i) {
  if (!insts[i]) return;
  if (inst_mem[i]) {
    bt_inst_fini(insts[i]);
    free(inst_mem[i]);
    inst_mem[i] = NULL;
  } else {
    bt_inst_free(insts[i]);
  }
  insts[i] = NULL;
  log_detach(i);
}

static const bt_host *inst_host[NINST];

static void make_inst(int i, bt_def *d) {
  unsigned how = byte();
  unsigned flags = (how & 1) ? BT_INST_NOSCATTER : 0;
  const bt_host *host = &hosts[(how >> 1 & 7) == 7];
  inst_host[i] = host;
  int rc;
  if (how & 0x10) {
    void *mem = __real_malloc(bt_def_inst_size(d));
    EXPECT(mem);
    rc = bt_inst_init(&insts[i], mem, d, host, NULL, flags);
    if (rc == BT_OK) inst_mem[i] = mem;
    else free(mem);
  } else {
    rc = bt_inst_create(&insts[i], d, host, NULL, flags);
  }
  EXPECT(rc == BT_OK || NOMEM(rc));
  if (rc == BT_OK) EXPECT(bt_inst_def(insts[i]) == d && !bt_inst_thinking(insts[i]));
  log_attach(i);
}

/* The twin check: a think (what 0) or reset (1) of the instance, and the same on a twin made of
 * its saved state, with the same results from leaf functions and overrides (the input is read
 * again from the same place). The twin's restore marks as touched exactly the nodes that are not
 * as Reset leaves them, and clears the settled flag; the instance has kept its own marks since
 * it was made. Unless a skip of Reset or Step by the instance changed something (a node whose
 * change was not marked), both end in the same state, having read the same input. */
static void twin_step(bt_inst *in, int what) {
  if (what == 0) {
    in_think = 1;
    EXPECT(bt_inst_update(in) == BT_OK);
    in_think = 0;
  } else {
    EXPECT(bt_inst_reset(in) == BT_OK);
  }
}

static int twin_hook(void *ud, bt_inst *in, const bt_hook_msg *m) {
  (void)ud;
  (void)in;
  (void)m;
  return BT_OK;
}

static void twin(bt_inst *x, int what) {
  int i = 0;
  while (i < NINST && insts[i] != x) i++;
  const bt_def *d = bt_inst_def(x);
  size_t size = bt_inst_save_size(x);
  bt_inst *t = NULL;
  if (!afford(x, 2)) return;
  /* the instance's own generator cannot be copied; a failing allocation would differ; a key
   * holding a binding's value cannot be saved */
  if (i == NINST || inst_host[i] != &hosts[0] || alloc_countdown >= 0 || bt_inst_unsaveable_key(x) >= 0 ||
      bt_inst_create(&t, d == defs[0] ? defs[0] : defs[1], &hosts[0], NULL, BT_INST_NOSCATTER) != BT_OK) {
    twin_step(x, what);
    return;
  }
  /* a hooked think ends by asking the overrides for its sleep time, which an unhooked one does
   * not: the twin of a hooked instance gets a hook that does nothing */
  if (bt_inst_hook(x, NULL)) EXPECT(bt_inst_set_hook(t, twin_hook, NULL) == BT_OK);
  unsigned char *a = __real_malloc(size), *b = __real_malloc(size);
  EXPECT(a && b);
  EXPECT(bt_inst_save(x, a, size) == BT_OK);
  EXPECT(bt_inst_restore(t, a, size) == BT_OK);
  const uint8_t *from = src;
  size_t from_left = left;
  if (tracing) {
    bt_buf da = {0};
    bt_inst_dump(x, &da);
    fprintf(stderr, "twin check of:\n%s", da.data);
    bt_buf_free(&da);
  }
  TRACE("twin check: the instance");
  twin_step(x, what);
  const uint8_t *to = src;
  size_t to_left = left;
  src = from;
  left = from_left;
  TRACE("twin check: the twin");
  twin_step(t, what);
  EXPECT(src == to && left == to_left); /* the same callbacks, in the same order */
  EXPECT(bt_inst_save_size(x) == size && bt_inst_save_size(t) == size); /* callbacks write no keys here */
  EXPECT(bt_inst_save(x, a, size) == BT_OK);
  EXPECT(bt_inst_save(t, b, size) == BT_OK);
  if (memcmp(a, b, size) != 0 && tracing) {
    bt_buf da = {0}, db = {0};
    bt_inst_dump(x, &da);
    bt_inst_dump(t, &db);
    fprintf(stderr, "instance:\n%s\ntwin:\n%s\n", da.data, db.data);
    bt_buf_free(&da);
    bt_buf_free(&db);
  }
  EXPECT(memcmp(a, b, size) == 0);
  free(a);
  free(b);
  bt_inst_free(t);
}

/* One action on in (or another instance). Top-level-only actions wait for depth 0. Returns 0 for
 * the action that does nothing. */
static int act(bt_inst *in) {
  unsigned op = byte();
  if (op == 0) return 0;
  if (op & 0x80) {
    bt_inst *o = other_inst();
    if (o) in = o;
  }
  TRACE("act %u on inst %d (clock %.17g)", op % 24, in == insts[0] ? 0 : in == insts[1] ? 1 : 2, now_value);
  switch (op % 24) {
    case 0: break;
    case 1:
    case 2:
      if (twin_mode && depth == 0) twin(in, 0);
      else do_update(in);
      break;
    case 3: {
      /* the clock: mostly forward */
      unsigned k = byte();
      if (k < 192) now_value += (double)k / 32;
      else now_value = clock_number() * ((k & 1) ? 1 : -1);
      break;
    }
    case 4: bt_inst_force_update(in); break;
    case 5: {
      if (twin_mode && depth == 0) {
        twin(in, 1);
        break;
      }
      if (!afford(in, 1)) break;
      EXPECT(bt_inst_reset(in) == BT_OK); /* inside a think too, as Don't Starve's Reset */
      break;
    }
    case 6:
      if (afford(in, 1)) bt_inst_stop(in);
      /* and the last node ends its run for good, as a reload ends a gone node's */
      EXPECT(bt_node_abort(in, bt_def_size(bt_inst_def(in)) - 1) == BT_OK);
      EXPECT(bt_node_abort(in, -1) == BT_EINVAL);
      break;
    case 7: {
      int n = event_node(in);
      int rc = bt_inst_fire_event(in, n);
      int is_event = valid_node(in, n) && bt_def_kind(bt_inst_def(in), n) == BT_EVENT;
      EXPECT(rc == (is_event ? BT_OK : BT_EINVAL));
      break;
    }
    case 8:
    case 9: do_fields(in); break;
    case 10: {
      int n = any_node(in), s = any_status();
      bt_node_set_status(in, n, (bt_status)s);
      if (s >= BT_READY && s <= BT_RUNNING) EXPECT((int)bt_node_status(in, n) == s);
      break;
    }
    case 11: do_method(in); break;
    case 12: do_dump(in); break;
    case 13: {
      double t = -1;
      check_sleep(bt_inst_sleep_time(in, &t), t);
      break;
    }
    case 14: do_save_restore(in); break;
    case 15: do_transfer(in); break;
    case 16: do_as(in); break;
    case 17: do_def_queries(bt_inst_def(in)); break;
    case 18: do_sched(); break;
    case 19: {
      /* another instance becomes the current one, or is made anew */
      unsigned k = byte();
      int i = (int)(k % NINST);
      if (depth == 0 && !in_think && (k & 0x80)) {
        bt_def *d = defs[(k >> 4 & 1) && defs[1] ? 1 : 0];
        drop_inst(i);
        make_inst(i, d);
      }
      if (insts[i]) cur = i;
      break;
    }
    case 20: arm_alloc_failure(); break;
    case 21: do_threaded(); break;
    case 22:
      if (byte() & 1) do_key_write(in);
      else do_saved_text(in);
      break;
    default: do_method(in); break;
  }
  return 1;
}

/* ---- callbacks: leaf functions and overrides ---- */

/* Results of leaf functions: true, false, errors, truthy numbers. */
static int result(void) {
  static const int results[] = {1, 0, -1, 2, 0, 1, -100, 1};
  return results[byte() & 7];
}

static int fuzz_fn(bt_call *c) {
  TRACE("fn of node %d", c->node);
  script(c->inst);
  if (byte() & 1) c->value = number();
  return result();
}

/* Tasks: start and update take their results from the input and may run actions; finish is
 * told a status it may be told. (Saves, restores and transfers copy runs under way between
 * instances, so runs are not counted.) */
static int fuzz_task_start(bt_call *c) {
  TRACE("task start of node %d", c->node);
  script(c->inst);
  return result();
}

static int fuzz_task_update(bt_call *c) {
  TRACE("task update of node %d", c->node);
  script(c->inst);
  unsigned r = byte();
  return r < 0xF0 ? (int)(r % 3) + BT_SUCCESS : (int)r - 0xF8; /* mostly statuses, some junk */
}

static void fuzz_task_finish(bt_call *c, bt_status status) {
  TRACE("task finish of node %d: %s", c->node, bt_status_name(status));
  EXPECT(status == BT_SUCCESS || status == BT_FAILED || status == BT_ABORTED);
  if (byte() & 1) script(c->inst);
}

static const bt_task fuzz_tasks[] = {
    {fuzz_task_start, fuzz_task_update, fuzz_task_finish},
    {fuzz_task_start, NULL, fuzz_task_finish},
    {fuzz_task_start, fuzz_task_update, NULL},
};

static int op_visit(bt_call *c) {
  unsigned how = byte();
  TRACE("visit op of node %d: %u", c->node, how % 9);
  script(c->inst);
  switch (how % 9) {
    case 0: return BT_DEFAULT;
    case 1: bt_node_set_status(c->inst, c->node, (bt_status)any_status()); return BT_OK;
    case 2: {
      int k = (how & 0x80) ? any_kind() : (byte() & 1) ? BT_BEHAVIOUR : bt_def_kind(bt_inst_def(c->inst), c->node);
      int rc = bt_node_visit_as(c->inst, c->node, k);
      if (compatible(c->inst, c->node, k)) EXPECT(rc == BT_OK || rc == BT_EINVAL);
      else EXPECT(rc == BT_EINVAL);
      return BT_OK;
    }
    case 3: {
      /* a composite written as a script: its children in order */
      const bt_def *d = bt_inst_def(c->inst);
      int count = bt_def_child_count(d, c->node);
      bt_status s = BT_SUCCESS;
      for (int i = 0; i < count && s == BT_SUCCESS; i++) {
        int child = bt_def_child(d, c->node, i);
        EXPECT(child > c->node);
        bt_node_visit(c->inst, child);
        s = bt_node_status(c->inst, child);
      }
      bt_node_set_status(c->inst, c->node, s);
      return BT_OK;
    }
    case 4:
      bt_node_set_status(c->inst, c->node, BT_RUNNING);
      bt_node_sleep(c->inst, c->node, number());
      return BT_OK;
    case 5: return BT_OK; /* sets no status */
    case 6: return (int)byte() - 128; /* any other result */
    case 7: bt_node_set_status(c->inst, c->node, BT_SUCCESS); return BT_OK;
    default: return BT_DEFAULT;
  }
}

static int op_reset(bt_call *c) {
  unsigned how = byte();
  TRACE("reset op of node %d: %u", c->node, how % 5);
  script(c->inst);
  switch (how % 5) {
    case 0: return BT_DEFAULT;
    case 1: {
      int rc = bt_node_reset_as(c->inst, c->node, (how & 0x80) ? any_kind() : BT_BEHAVIOUR);
      EXPECT(rc == BT_OK || rc == BT_EINVAL);
      return BT_OK;
    }
    case 2: bt_node_set_status(c->inst, c->node, BT_READY); return BT_OK;
    case 3: return BT_OK; /* a Reset that does nothing */
    default: return BT_DEFAULT;
  }
}

static int op_step(bt_call *c) {
  unsigned how = byte();
  TRACE("step op of node %d: %u", c->node, how % 5);
  script(c->inst);
  switch (how % 5) {
    case 0: return BT_DEFAULT;
    case 1: {
      int rc = bt_node_step_as(c->inst, c->node, (how & 0x80) ? any_kind() : BT_BEHAVIOUR);
      EXPECT(rc == BT_OK || rc == BT_EINVAL);
      return BT_OK;
    }
    case 2: {
      const bt_def *d = bt_inst_def(c->inst);
      for (int i = 0; i < bt_def_child_count(d, c->node); i++) bt_node_step(c->inst, bt_def_child(d, c->node, i));
      return BT_OK;
    }
    case 3: return BT_OK;
    default: return BT_DEFAULT;
  }
}

static int op_stop(bt_call *c) {
  script(c->inst);
  return (int)byte() - 128;
}

static int op_sleep_time(bt_call *c) {
  unsigned how = byte();
  script(c->inst);
  switch (how % 5) {
    case 0: return BT_DEFAULT;
    case 1: return 0;
    case 2: {
      c->value = number();
      if (c->value < 0) negative_sleep = 1;
      return 1;
    }
    case 3: {
      double t = -1;
      int r = bt_node_sleep_time_as(c->inst, c->node, (how & 0x80) ? any_kind() : BT_BEHAVIOUR, &t);
      if (r == 1) c->value = t;
      return r == BT_EINVAL ? 0 : r;
    }
    default: return (int)byte() - 128;
  }
}

static int op_describe(bt_call *c, bt_buf *out) {
  unsigned how = byte();
  script(c->inst);
  switch (how % 5) {
    case 0: return BT_DEFAULT;
    case 1: return bt_buf_printf(out, "%s %d %g", "script", c->node, number());
    case 2: return bt_node_describe_as(c->inst, c->node, (how & 0x80) ? any_kind() : BT_BEHAVIOUR, out);
    case 3: return BT_ENOMEM;
    default: {
      char big[300];
      memset(big, 'x', sizeof big - 1);
      big[sizeof big - 1] = '\0';
      return bt_buf_printf(out, "%s", big);
    }
  }
}

/* Every combination of overrides: bit i of the index gives member i. */
static bt_ops ops_table[64];

static void init_ops(void) {
  for (int m = 0; m < 64; m++) {
    ops_table[m].visit = (m & 1) ? op_visit : NULL;
    ops_table[m].reset = (m & 2) ? op_reset : NULL;
    ops_table[m].step = (m & 4) ? op_step : NULL;
    ops_table[m].on_stop = (m & 8) ? op_stop : NULL;
    ops_table[m].sleep_time = (m & 16) ? op_sleep_time : NULL;
    ops_table[m].describe = (m & 32) ? op_describe : NULL;
  }
}

/* ---- the graph ---- */

static const char *const names[] = {NULL, "A", "B", "C", "", "%s%n%d", "Latch", "Wait",
                                    "Priority", "Sequence", "A", "B", NULL, NULL, "C", NULL};

static char long_name[400];

/* Kinds of the nodes added by add_node, by id, for the tree that build() makes of them. */
#define MAX_RANDOM_NODES 48
static int node_kind[MAX_RANDOM_NODES];
static unsigned node_flags[MAX_RANDOM_NODES];

/* A node from two bytes (kind, and which of name, parameter, flags, functions and overrides
 * follow), so that short inputs make trees; left out, a leaf has its function. */
static int add_node(bt_graph *g) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  unsigned k = byte();
  s.kind = (int)(k % (BT_KIND_COUNT + 1));
  if (k == 255) s.kind = -1;
  unsigned extras = byte();
  s.param = 1;
  s.fn = fuzz_fn;
  s.fn2 = fuzz_fn;
  s.ud2 = (void *)(uintptr_t)1;
  unsigned ops = 0;
  if (extras & 1) {
    unsigned nm = byte();
    s.name = (nm & 0xF0) == 0xF0 ? long_name : names[nm & 15];
  }
  if (extras & 2) s.param = number();
  if (extras & 4) {
    unsigned fl = byte();
    s.flags = fl & 0x3F;
    if (fl & 0x80) s.flags |= fl << 4; /* flags the header does not name */
  }
  if (extras & 8) {
    unsigned fns = byte();
    s.fn = (fns & 3) ? fuzz_fn : NULL;
    s.fn2 = (fns & 12) ? fuzz_fn : NULL;
    s.ud = (void *)(uintptr_t)(fns >> 4);
    if (!(fns & 0x30)) s.task = NULL;
    else s.task = &fuzz_tasks[(fns >> 4) % 3];
  } else {
    s.task = &fuzz_tasks[0];
  }
  if (extras & 16) {
    ops = byte();
    s.ops = &ops_table[ops & 63];
    s.ops_ud = (void *)(uintptr_t)(ops >> 6);
  }
  int id = bt_graph_add(g, &s);
  TRACE("node %d: kind %d name %.20s param %.17g flags 0x%x fn %d fn2 %d ops %d", id, s.kind,
        s.name ? s.name : "(null)", s.param, s.flags, s.fn != NULL, s.fn2 != NULL,
        s.ops ? (int)(ops & 63) : -1);
  if (s.kind < 0 || s.kind >= BT_KIND_COUNT) EXPECT(id == BT_EINVAL);
  else EXPECT(id >= 0 || NOMEM(id));
  if (id < 0) EXPECT(bt_graph_errmsg(g)[0] != '\0');
  if (id >= 0 && id < MAX_RANDOM_NODES) {
    node_kind[id] = s.kind;
    node_flags[id] = s.flags;
  }
  return id;
}

/* How many children a node of this kind takes in a well-formed tree (-1: any). */
static int capacity(int id) {
  switch (node_kind[id]) {
    case BT_NOT:
    case BT_FAILIFRUNNING:
    case BT_FAILIFSUCCESS:
    case BT_LATCH:
    case BT_EVENT:
    case BT_REPEAT:
    case BT_SUCCEED:
    case BT_FAIL:
    case BT_COOLDOWN:
    case BT_TIMEOUT: return 1;
    case BT_BEHAVIOUR: return (node_flags[id] & BT_SPEC_CHILDREN) ? -1 : 0;
    case BT_TASK:
    case BT_CONDITION:
    case BT_MULTICONDITION:
    case BT_CONDITIONWAIT:
    case BT_ACTION:
    case BT_WAIT: return 0;
    default: return -1;
  }
}

static int graph_size; /* nodes in the graph */

static int add_simple(bt_graph *g, int kind, double param) {
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.param = param;
  s.fn = fuzz_fn;
  s.fn2 = fuzz_fn;
  int id = bt_graph_add(g, &s);
  EXPECT(id >= 0 || NOMEM(id));
  if (id >= 0) graph_size++;
  return id;
}

/* A chain of single-child nodes around the depth limit: its top. */
static int add_chain(bt_graph *g) {
  int length = 990 + (int)(byte() % 20);
  int kinds[] = {BT_NOT, BT_SEQUENCE, BT_FAILIFSUCCESS, BT_LOOP, BT_PRIORITY, BT_EVENT};
  unsigned k = byte();
  int prev = add_simple(g, BT_ACTION, 0);
  for (int i = 1; i < length && prev >= 0; i++) {
    int id = add_simple(g, kinds[(k + (unsigned)i * (k >> 4)) % 6], 1);
    if (id < 0) break;
    int rc = bt_graph_set_children(g, id, &prev, 1);
    EXPECT(rc == BT_OK || NOMEM(rc));
    prev = id;
  }
  return prev;
}

/* A ladder of shared nodes: each rung takes the one below two or three times, so that the tree
 * grows exponentially with the rungs, past BT_MAX_NODES at the top. */
static int add_ladder(bt_graph *g) {
  int rungs = 1 + (int)(byte() % 22);
  int width = 2 + (int)(byte() & 1);
  /* at most a few thousand nodes, or past BT_MAX_NODES (refused before anything is made) */
  if (width == 2 && rungs > 11 && rungs < 20) rungs = (rungs & 1) ? 11 : 20;
  if (width == 3 && rungs > 7 && rungs < 13) rungs = (rungs & 1) ? 7 : 13;
  int prev = add_simple(g, BT_CONDITIONWAIT, 0);
  for (int i = 0; i < rungs && prev >= 0; i++) {
    int id = add_simple(g, (i & 1) ? BT_PARALLEL : BT_SELECTOR, 0);
    if (id < 0) break;
    int kids[3] = {prev, prev, prev};
    int rc = bt_graph_set_children(g, id, kids, width);
    EXPECT(rc == BT_OK || NOMEM(rc));
    prev = id;
  }
  return prev;
}

/* The chain or ladder: its first id, its node count and its top. Of its nodes only the top is
 * given to the other nodes as a child, so that the ladder's size stays what it was made for. */
static int special_lo, special_n, special_top;

/* A node id (some bad ones). */
static int any_id(void) {
  unsigned k = byte();
  if (k >= 250) return k == 255 ? -1 : graph_size + (int)(k & 3);
  int choices = graph_size - (special_n ? special_n - 1 : 0);
  if (choices <= 0) return 0;
  int r = (int)((k | (choices > 250 ? byte() << 8 : 0)) % (unsigned)choices);
  if (!special_n || r < special_lo) return r;
  return r == special_lo ? special_top : r + special_n - 1;
}

static void set_children(bt_graph *g) {
  int node = any_id();
  unsigned k = byte();
  int count = (int)(k % 6);
  if (k >= 224) count = (int)byte(); /* many */
  if (k == 255) count = -1;
  int kids[256];
  int bad = node < 0 || node >= graph_size || count < 0;
  for (int i = 0; i < count; i++) {
    kids[i] = any_id();
    if (kids[i] < 0 || kids[i] >= graph_size) bad = 1;
  }
  int rc = bt_graph_set_children(g, node, count > 0 ? kids : NULL, count);
  if (tracing) {
    TRACE("children of %d (%d): rc %d", node, count, rc);
    for (int i = 0; i < count; i++) TRACE("  %d", kids[i]);
  }
  EXPECT(rc == (bad ? BT_EINVAL : BT_OK) || (!bad && NOMEM(rc)));
}

/* Whether the random nodes include a subtree node: the graph is then compiled with a library
 * made of parts of itself (taking no bytes from the input, so that the corpus keeps its
 * meaning). */
static int has_subtree(void) {
  for (int i = 0; i < graph_size && i < MAX_RANDOM_NODES; i++)
    if (node_kind[i] == BT_SUBTREE) return 1;
  return 0;
}

/* A library naming parts of g: each name of `names` the tree under a node picked from it, so that
 * subtree nodes find trees that name each other, themselves, or nothing. NULL without memory. */
static bt_lib *make_lib(bt_graph *g) {
  bt_lib *lib = NULL;
  int rc = bt_lib_create(&lib);
  EXPECT(rc == BT_OK || NOMEM(rc));
  if (rc != BT_OK) return NULL;
  for (int i = 0; i < (int)(sizeof names / sizeof *names); i++) {
    int root = (i * 7 + 3) % graph_size;
    rc = bt_lib_set(lib, names[i], g, root);
    if (!names[i] || !names[i][0]) EXPECT(rc == BT_EINVAL);
    else EXPECT(rc == BT_OK || NOMEM(rc));
    if (rc != BT_OK) EXPECT(bt_lib_errmsg(lib)[0] != '\0');
    else EXPECT(bt_lib_has(lib, names[i]));
  }
  rc = bt_lib_remove(lib, "Priority");
  EXPECT(rc == BT_OK || rc == BT_EINVAL);
  return lib;
}

/* Checks where each state of d says it came from: g itself, or one of the library's names. */
static void check_origins(const bt_def *d) {
  for (int s = 0; s < bt_def_states(d) && s < 4096; s++) {
    int id = -2;
    const char *from = bt_def_origin(d, s, &id);
    EXPECT(id >= 0);
    if (!from) {
      EXPECT(id == bt_def_graph_id(d, s));
      continue;
    }
    int known = 0;
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++) known |= names[i] && !strcmp(from, names[i]);
    EXPECT(known && from[0]);
  }
}

static bt_def *compile(bt_graph *g, int root) {
  bt_def *d = NULL;
  bt_lib *lib = has_subtree() && graph_size > 0 ? make_lib(g) : NULL;
  /* an odd root is compiled as the library tree of a name it may itself run */
  const char *as = lib && root >= 0 && (root & 1) ? names[root % (int)(sizeof names / sizeof *names)] : NULL;
  int rc = check_code(!lib ? bt_def_create(&d, g, root)
                      : as ? bt_def_create_named(&d, g, root, lib, as)
                           : bt_def_create_lib(&d, g, root, lib));
  bt_lib_free(lib);
  TRACE("compile root %d%s%s: rc %d %s", root, as ? " as " : "", as ? as : "", rc, bt_graph_errmsg(g));
  if (as && !as[0]) EXPECT(rc == BT_EINVAL);
  if (rc == BT_OK) check_origins(d);
  EXPECT(rc == BT_OK || rc == BT_EINVAL || rc == BT_ECYCLE || rc == BT_ETOOBIG || NOMEM(rc));
  if (root < 0 || root >= graph_size) EXPECT(rc == BT_EINVAL);
  if (rc != BT_OK) {
    EXPECT(d == NULL && bt_graph_errmsg(g)[0] != '\0');
    return NULL;
  }
  EXPECT(bt_def_size(d) >= 1 && bt_def_size(d) <= BT_MAX_NODES);
  EXPECT(bt_def_states(d) >= 1 && bt_def_states(d) <= bt_def_size(d));
  int size = bt_def_size(d);
  for (int n = 0; n < size && n < 4096; n++) {
    EXPECT(bt_def_depth(d, n) <= BT_MAX_DEPTH);
    EXPECT(bt_def_kind(d, n) >= 0 && bt_def_kind(d, n) < BT_KIND_COUNT);
    EXPECT(bt_def_name(d, n) != NULL);
  }
  return d;
}

/* The keys of the graph: one of each type, and for the second definition one more (taking no
 * bytes from the input, so that the corpus keeps its meaning). */
static void declare_keys(bt_graph *g, int second) {
  static const char *const key_names[] = {NULL, "num", "int", "bool", "str", "ent", "any", "late"};
  for (int t = second ? BT_KEY_TYPE_COUNT : 1; t <= (second ? BT_KEY_TYPE_COUNT : BT_KEY_TYPE_COUNT - 1); t++) {
    int type = t < BT_KEY_TYPE_COUNT ? t : BT_KEY_STRING;
    int rc = bt_graph_add_key(g, key_names[t], type, BT_KEY_HOST);
    EXPECT(rc >= 0 || NOMEM(rc));
  }
}

static void build(void) {
  bt_graph *g = NULL;
  unsigned shape = byte();
  if (shape & 0x80) arm_alloc_failure();
  int rc = bt_graph_create(&g);
  EXPECT(rc == BT_OK || NOMEM(rc));
  if (rc != BT_OK) return;
  graph_size = 0;
  int n = 1 + (int)(byte() % MAX_RANDOM_NODES);
  for (int i = 0; i < n; i++)
    if (add_node(g) >= 0) graph_size++;
  /* a tree of them: each node under an earlier one that has room (unless the shape says any) */
  static int kids[MAX_RANDOM_NODES][MAX_RANDOM_NODES];
  int nkids[MAX_RANDOM_NODES] = {0};
  for (int i = 1; i < graph_size; i++) {
    unsigned b = byte();
    if (b == 255) continue; /* left out of the tree */
    int p = (int)(b % (unsigned)i);
    for (int tries = 0; tries < i && capacity(p) >= 0 && nkids[p] >= capacity(p); tries++) p = (p + 1) % i;
    if (!(shape & 0x20) && capacity(p) >= 0 && nkids[p] >= capacity(p)) continue;
    kids[p][nkids[p]++] = i;
  }
  for (int p = 0; p < graph_size; p++)
    if (nkids[p]) {
      rc = bt_graph_set_children(g, p, kids[p], nkids[p]);
      EXPECT(rc == BT_OK || NOMEM(rc));
    }
  int special = -1;
  special_lo = graph_size;
  special_n = 0;
  if (shape % 16 == 1) special = add_chain(g);
  else if (shape % 16 == 2) special = add_ladder(g);
  special_n = graph_size - special_lo;
  special_top = special;
  if (!graph_size) {
    bt_graph_free(g);
    return;
  }
  /* edits: other children lists (shared nodes, cycles, the chain or ladder somewhere) */
  unsigned lists = byte() % 16;
  if (lists > 8) lists = 0;
  for (unsigned i = 0; i < lists; i++) set_children(g);
  unsigned parents = byte() % 8;
  if (parents > 3) parents = 0;
  for (unsigned i = 0; i < parents; i++) {
    int node = any_id(), parent = any_id();
    int rc = bt_graph_set_parent(g, node, parent);
    EXPECT(rc == BT_OK || rc == BT_EINVAL);
  }
  int root = special >= 0 && (shape & 0x10) ? special : (shape & 0x40) ? any_id() : 0;
  declare_keys(g, 0);
  defs[0] = compile(g, root);
  for (int tries = 0; !defs[0] && tries < 3 && left; tries++) defs[0] = compile(g, any_id());
  if (!defs[0]) {
    bt_graph_free(g);
    return;
  }
  /* the second definition: the graph edited, as a reload would */
  unsigned edits = byte() % 8;
  for (unsigned i = 0; i < edits; i++) {
    if (byte() & 1) {
      if (add_node(g) >= 0) graph_size++;
    } else {
      set_children(g);
    }
  }
  declare_keys(g, 1);
  defs[1] = compile(g, (byte() & 1) ? root : any_id());
  bt_graph_free(g); /* definitions do not need their graph */
  for (int i = 0; i < 2; i++) /* huge trees (shared nodes many times over): compiled only */
    if (defs[i] && bt_def_size(defs[i]) > 50000) {
      bt_def_release(defs[i]);
      defs[i] = NULL;
    }
  if (!defs[0]) {
    defs[0] = defs[1];
    defs[1] = NULL;
  }
  if (!defs[0]) return;
  make_inst(0, defs[0]);
  if (defs[1]) make_inst(1, defs[1]);
  make_inst(2, defs[byte() & 1 && defs[1] ? 1 : 0]);
}

static void world_free(void) {
  for (int i = 0; i < NINST; i++) drop_inst(i);
  for (int i = 0; i < 2; i++) {
    bt_def_release(defs[i]);
    defs[i] = NULL;
  }
  bt_sched_free(sched);
  sched = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  init_ops();
  tracing = getenv("BT_FUZZ_TRACE") != NULL;
  memset(long_name, 'n', sizeof long_name - 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  src = data;
  left = size;
  nonfinite = negative_sleep = 0;
  alloc_countdown = -1;
  alloc_failed = 0;
  depth = 0;
  in_think = 0;
  work = 0;
  now_value = 0;
  cur = 0;
  frecords = 0;
  flog_len = 0;
  if (size && (data[size - 1] & 0x80)) { /* (read without taking it from the script) */
    int rc = bt_log_create_fn(&flog, flog_write, NULL, (data[size - 1] & 0x40) ? BT_LOG_DBSTRINGS : 0, NULL, 0);
    EXPECT(rc == BT_OK);
  }
  build();
  twin_mode = 0;
  if (insts[0]) {
    twin_mode = (byte() & 7) == 1;
    /* a log keeping DBStrings calls the describe overrides, which read the input, at each think
     * of the recorded instance and not of its twin */
    if (flog && (data[size - 1] & 0x40)) twin_mode = 0;
    /* the scheduler: one brain per instance */
    double tick = (byte() & 1) ? number() : 0.033;
    int rc = bt_sched_create(&sched, tick);
    EXPECT(rc == ((tick > 0 && !isinf(tick)) ? BT_OK : BT_EINVAL) || NOMEM(rc));
    if (rc == BT_OK)
      for (int i = 0; i < NINST; i++) {
        brains[i] = bt_sched_brain_create(sched);
        EXPECT(brains[i] >= 0 || NOMEM(brains[i]));
        if (insts[i] && brains[i] >= 0) {
          rc = bt_sched_add(sched, brains[i]);
          EXPECT(rc == BT_OK || NOMEM(rc));
        }
      }
    while (left) {
      if (!insts[cur]) cur = 0;
      if (!insts[cur]) break;
      if (!act(insts[cur])) continue; /* a zero byte: nothing done */
      for (int i = 0; i < NINST; i++)
        if (insts[i]) check_inst(insts[i]);
      log_flush();
    }
  }
  alloc_countdown = -1;
  world_free();
  log_check();
  return 0;
}
