/* SPDX-License-Identifier: MIT */
/* test_kinds.c: the kind table (bt_kind_get, bt_kind_has, bt_kind_param_format, bt_kind_nil_param,
 * bt_kind_field_default): Don't Starve's classes as behaviourtree.lua defines them (names, bases,
 * the methods each class defines itself, the fields its constructor sets), what the other parts
 * ask of a kind, and every kind's inherited methods doing exactly what its base's do. */
#include "check.h"
#include "harness.h"

#define V BT_METHOD_VISIT
#define R BT_METHOD_RESET
#define S BT_METHOD_STEP
#define SL BT_METHOD_SLEEP_TIME
#define D BT_METHOD_DESCRIBE

typedef struct ds_class {
  int kind;
  const char *name, *default_name;
  int base;
  int decorator;
  unsigned methods; /* the `function Class:Method` lines of behaviourtree.lua */
} ds_class;

static const ds_class DS_CLASSES[] = {
    {BT_BEHAVIOUR, "BehaviourNode", "", -1, 0, V | R | S | SL | D},
    {BT_SEQUENCE, "SequenceNode", "Sequence", BT_BEHAVIOUR, 0, V | R | D},
    {BT_SELECTOR, "SelectorNode", "Selector", BT_BEHAVIOUR, 0, V | R | D},
    {BT_PRIORITY, "PriorityNode", "Priority", BT_BEHAVIOUR, 0, V | R | SL | D},
    {BT_PARALLEL, "ParallelNode", "Parallel", BT_BEHAVIOUR, 0, V | S},
    {BT_PARALLEL_ANY, "ParallelNodeAny", "Parallel(Any)", BT_PARALLEL, 0, 0},
    {BT_LOOP, "LoopNode", "Sequence", BT_BEHAVIOUR, 0, V | R | D},
    {BT_RANDOM, "RandomNode", "Random", BT_BEHAVIOUR, 0, V | R},
    {BT_CONDITION, "ConditionNode", "Condition", BT_BEHAVIOUR, 0, V},
    {BT_MULTICONDITION, "MultiConditionNode", "Condition", BT_BEHAVIOUR, 0, V},
    {BT_CONDITIONWAIT, "ConditionWaitNode", "Wait", BT_BEHAVIOUR, 0, V},
    {BT_ACTION, "ActionNode", "ActionNode", BT_BEHAVIOUR, 0, V},
    {BT_WAIT, "WaitNode", "Wait", BT_BEHAVIOUR, 0, V | D},
    {BT_NOT, "NotDecorator", "Not", BT_BEHAVIOUR, 1, V},
    {BT_FAILIFRUNNING, "FailIfRunningDecorator", "FailIfRunning", BT_BEHAVIOUR, 1, V},
    {BT_FAILIFSUCCESS, "FailIfSuccessDecorator", "FailIfSuccess", BT_BEHAVIOUR, 1, V},
    {BT_EVENT, "EventNode", "Event", BT_BEHAVIOUR, 0, V | R | S},
    {BT_LATCH, "LatchNode", "Latch", BT_BEHAVIOUR, 0, V},
};

static void test_ds_classes(void) {
  int ds = 0;
  for (size_t i = 0; i < sizeof DS_CLASSES / sizeof *DS_CLASSES; i++) {
    const ds_class *c = &DS_CLASSES[i];
    const bt_kind_info *k = bt_kind_get(c->kind);
    CHECK(k != NULL);
    if (!k) continue;
    CHECK_STR(k->name, c->name);
    CHECK_STR(k->default_name, c->default_name);
    CHECK_STR(bt_kind_name(c->kind), c->name);
    CHECK_STR(bt_kind_default_name(c->kind), c->default_name);
    CHECK_INT(k->base, c->base);
    CHECK_INT((k->flags & BT_KIND_DECORATOR) != 0, c->decorator);
    CHECK(k->flags & BT_KIND_DS);
    CHECK_INT(k->methods, c->methods);
  }
  /* the kinds bt adds are no classes of Don't Starve's, and each extends BehaviourNode */
  for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
    const bt_kind_info *k = bt_kind_get(kind);
    if (k->flags & BT_KIND_DS) {
      ds++;
      continue;
    }
    CHECK(kind > BT_LATCH);
    CHECK_INT(k->base, BT_BEHAVIOUR);
    CHECK(k->methods & BT_METHOD_VISIT);
    CHECK(strlen(k->name) > 0 && strlen(k->default_name) > 0);
  }
  CHECK_INT(ds, sizeof DS_CLASSES / sizeof *DS_CLASSES);
  CHECK(bt_kind_get(-1) == NULL);
  CHECK(bt_kind_get(BT_KIND_COUNT) == NULL);
  CHECK(bt_kind_name(BT_KIND_COUNT) == NULL);
}

/* The fields the constructors of behaviourtree.lua set: SequenceNode and SelectorNode idx = 1,
 * LoopNode idx = 1 and rep = 0, LatchNode currentlatchduration = 0 and lastlatchtime =
 * -math.huge; the others are nil until the node runs. */
static void test_field_defaults(void) {
  double v = -1;
  CHECK_INT(bt_kind_field_default(BT_SEQUENCE, BT_FIELD_IDX, &v), 1);
  CHECK_NUM(v, 1);
  CHECK_INT(bt_kind_field_default(BT_SELECTOR, BT_FIELD_IDX, &v), 1);
  CHECK_NUM(v, 1);
  CHECK_INT(bt_kind_field_default(BT_LOOP, BT_FIELD_IDX, &v), 1);
  CHECK_NUM(v, 1);
  CHECK_INT(bt_kind_field_default(BT_LOOP, BT_FIELD_REP, &v), 1);
  CHECK_NUM(v, 0);
  CHECK_INT(bt_kind_field_default(BT_LATCH, BT_FIELD_LATCHDURATION, &v), 1);
  CHECK_NUM(v, 0);
  CHECK_INT(bt_kind_field_default(BT_LATCH, BT_FIELD_LASTLATCHTIME, &v), 1);
  CHECK(isinf(v) && v < 0);
  CHECK_INT(bt_kind_field_default(BT_RANDOM, BT_FIELD_IDX, &v), 0);
  CHECK_INT(bt_kind_field_default(BT_PRIORITY, BT_FIELD_IDX, &v), 0);
  CHECK_INT(bt_kind_field_default(BT_PRIORITY, BT_FIELD_LASTTIME, &v), 0);
  CHECK_INT(bt_kind_field_default(BT_WAIT, BT_FIELD_WAKE_TIME, &v), 0);
  CHECK_INT(bt_kind_field_default(BT_EVENT, BT_FIELD_TRIGGERED, &v), 0);
  CHECK_INT(bt_kind_field_default(BT_MULTICONDITION, BT_FIELD_RUNNING, &v), 0);
  /* fields the kind does not have */
  CHECK_INT(bt_kind_field_default(BT_SEQUENCE, BT_FIELD_REP, &v), BT_EINVAL);
  CHECK_INT(bt_kind_field_default(BT_ACTION, BT_FIELD_NEXTUPDATETIME, &v), BT_EINVAL);
  CHECK_INT(bt_kind_field_default(BT_KIND_COUNT, BT_FIELD_IDX, &v), BT_EINVAL);
  CHECK_INT(bt_kind_field_default(BT_SEQUENCE, BT_FIELD_COUNT, &v), BT_EINVAL);
}

/* PriorityNode: self.lasttime = self.period * 0.5 + (self.period * math.random()) */
static void test_scatter(void) {
  CHECK_NUM(bt_priority_scatter(2, 0.25), 1.5);
  CHECK_NUM(bt_priority_scatter(1, 0), 0.5);
  CHECK_NUM(bt_priority_scatter(0.25, 0.999), 0.125 + 0.25 * 0.999);
  double t0 = bt_time_monotonic(), t1 = bt_time_monotonic();
  CHECK(t0 > 0 && t1 >= t0);
}

/* ---- inherited methods: a kind whose class does not define a method has its base's ---- */

static int task_update(bt_call *c) {
  (void)c;
  return BT_RUNNING;
}
static const bt_task TASK = {NULL, task_update, NULL};

/* A tree whose root is of the kind, with what the kind needs: a child or two, its functions. */
static bt_inst *tree_of_kind(int kind, leaf *a, leaf *b) {
  bt_graph *g = new_graph();
  bt_spec s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.param = 1;
  s.fn = leaf_fn;
  s.ud = a;
  s.fn2 = leaf_fn;
  s.ud2 = b;
  s.task = &TASK;
  s.flags = BT_SPEC_NOSCATTER;
  int root = bt_graph_add(g, &s);
  REQUIRE(root >= 0);
  int x = add_leaf(g, a), y = add_leaf(g, b);
  switch (kind) {
    case BT_NOT:
    case BT_FAILIFRUNNING:
    case BT_FAILIFSUCCESS:
    case BT_LATCH:
    case BT_REPEAT:
    case BT_SUCCEED:
    case BT_FAIL:
    case BT_COOLDOWN:
    case BT_TIMEOUT:
    case BT_EVENT:
    case BT_WATCH:
    case BT_SUBTREE: set_kids(g, root, 1, x); break;
    case BT_BEHAVIOUR:
    case BT_CONDITION:
    case BT_MULTICONDITION:
    case BT_CONDITIONWAIT:
    case BT_ACTION:
    case BT_WAIT:
    case BT_TASK: break;
    default: set_kids(g, root, 2, x, y); break;
  }
  return build(g, root, 0);
}

static int saved_equal(bt_inst *a, bt_inst *b) {
  size_t n = bt_inst_state_size(bt_inst_def(a));
  unsigned char *x = malloc(n), *y = malloc(n);
  REQUIRE(x && y && bt_inst_save(a, x, n) == BT_OK && bt_inst_save(b, y, n) == BT_OK);
  int same = memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return same;
}

/* Applies method m of class `kind` to the root of in; the result as text, in out. */
static void apply(bt_inst *in, unsigned m, int kind, char *out, size_t size) {
  bt_buf buf = {0};
  double v = 0;
  int rc = 0;
  switch (m) {
    case BT_METHOD_VISIT: rc = bt_node_visit_as(in, 0, kind); break;
    case BT_METHOD_RESET: rc = bt_node_reset_as(in, 0, kind); break;
    case BT_METHOD_STEP: rc = bt_node_step_as(in, 0, kind); break;
    case BT_METHOD_SLEEP_TIME: rc = bt_node_sleep_time_as(in, 0, kind, &v); break;
    case BT_METHOD_DESCRIBE: rc = bt_node_describe_as(in, 0, kind, &buf); break;
  }
  const char *log = logs();
  int n = snprintf(out, size, "%d %.17g %s | ", rc, v, buf.data ? buf.data : "");
  size_t len = strlen(log), room = n > 0 && (size_t)n < size ? size - (size_t)n - 1 : 0;
  if (len > room) len = room;
  memcpy(out + size - 1 - room, log, len);
  out[size - 1 - room + len] = '\0';
  bt_buf_free(&buf);
}

static void test_inherited(void) {
  static const unsigned METHODS[] = {BT_METHOD_VISIT, BT_METHOD_RESET, BT_METHOD_STEP,
                                     BT_METHOD_SLEEP_TIME, BT_METHOD_DESCRIBE};
  int compared = 0;
  for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
    const bt_kind_info *k = bt_kind_get(kind);
    if (k->base < 0) continue;
    for (size_t i = 0; i < sizeof METHODS / sizeof *METHODS; i++) {
      unsigned m = METHODS[i];
      if (k->methods & m) continue;
      /* two instances in the same state: a running think, then the method as the kind's own
       * and as its base's */
      for (int running = 0; running <= 1; running++) {
        leaf a = LEAF("a", running ? BT_RUNNING : BT_SUCCESS), b = LEAF("b", BT_RUNNING);
        bt_inst *x = tree_of_kind(kind, &a, &b), *y = tree_of_kind(kind, &a, &b);
        think(x, 1);
        think(y, 1);
        logs();
        char as_kind[512], as_base[512];
        apply(x, m, kind, as_kind, sizeof as_kind);
        apply(y, m, k->base, as_base, sizeof as_base);
        if (strcmp(as_kind, as_base) != 0 || !saved_equal(x, y))
          fprintf(stderr, "%s inherits method 0x%x from %s, but they differ: '%s' / '%s'\n", k->name,
                  m, bt_kind_name(k->base), as_kind, as_base);
        CHECK_STR(as_kind, as_base);
        CHECK(saved_equal(x, y));
        compared++;
        bt_inst_free(x);
        bt_inst_free(y);
      }
    }
  }
  CHECK(compared > 50);
}

/* What the parts other than the node code ask the kind table: bt-log (BT_KIND_SELECTS,
 * BT_KIND_PERIODIC), the binding (BT_KIND_PERIODIC, BT_KIND_LISTENS, BT_KIND_INCLUDES), DOT, the
 * log reader and the viewer (the param's format, the nil param). */
static void test_properties(void) {
  static const struct {
    unsigned flag;
    int kinds[3]; /* the kinds that have it, -1 after the last */
  } FLAGS[] = {
      {BT_KIND_SELECTS, {BT_PRIORITY, BT_ACTIVE_SELECTOR, -1}},
      {BT_KIND_PERIODIC, {BT_PRIORITY, -1}},
      {BT_KIND_LISTENS, {BT_EVENT, -1}},
      {BT_KIND_INCLUDES, {BT_SUBTREE, -1}},
  };
  for (size_t i = 0; i < sizeof FLAGS / sizeof *FLAGS; i++)
    for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
      int want = 0;
      for (int j = 0; FLAGS[i].kinds[j] >= 0; j++) want |= FLAGS[i].kinds[j] == kind;
      CHECK_INT(bt_kind_has(kind, FLAGS[i].flag), want);
      CHECK_INT((bt_kind_get(kind)->flags & FLAGS[i].flag) != 0, want);
    }
  CHECK_INT(bt_kind_has(BT_PRIORITY, BT_KIND_DS | BT_KIND_SELECTS | BT_KIND_PERIODIC), 1);
  CHECK_INT(bt_kind_has(BT_ACTIVE_SELECTOR, BT_KIND_SELECTS | BT_KIND_PERIODIC), 0);
  CHECK_INT(bt_kind_has(BT_SEQUENCE, 0), 1);
  CHECK_INT(bt_kind_has(-1, 0), 0);
  CHECK_INT(bt_kind_has(BT_KIND_COUNT, 0), 0);

  static const struct {
    int kind;
    const char *format;
    int nil; /* bt_kind_nil_param: 1 with value, or 0 */
    double value;
  } PARAMS[] = {
      {BT_PRIORITY, "period %.14g", 1, 1}, {BT_EVENT, "priority %.14g", 1, 0},
      {BT_LOOP, "maxreps %.14g", 0, 0},    {BT_REPEAT, "%.14g times", 0, 0},
      {BT_WAIT, "%.14g s", 0, 0},          {BT_LATCH, "%.14g s", 0, 0},
      {BT_COOLDOWN, "%.14g s", 0, 0},      {BT_TIMEOUT, "%.14g s", 0, 0},
  };
  int with_param = 0;
  for (int kind = 0; kind < BT_KIND_COUNT; kind++) {
    size_t i = 0;
    while (i < sizeof PARAMS / sizeof *PARAMS && PARAMS[i].kind != kind) i++;
    double v = -1;
    if (i == sizeof PARAMS / sizeof *PARAMS) { /* no param */
      CHECK(bt_kind_param_format(kind) == NULL);
      CHECK_INT(bt_kind_nil_param(kind, &v), 0);
      continue;
    }
    with_param++;
    CHECK_STR(bt_kind_param_format(kind), PARAMS[i].format);
    CHECK_INT(bt_kind_nil_param(kind, &v), PARAMS[i].nil);
    if (PARAMS[i].nil) CHECK(v == PARAMS[i].value);
  }
  CHECK_INT(with_param, sizeof PARAMS / sizeof *PARAMS);
  CHECK(bt_kind_param_format(-1) == NULL);
  CHECK(bt_kind_param_format(BT_KIND_COUNT) == NULL);
  CHECK_INT(bt_kind_nil_param(-1, NULL), BT_EINVAL);
  CHECK_INT(bt_kind_nil_param(BT_KIND_COUNT, NULL), BT_EINVAL);
  CHECK_INT(bt_kind_nil_param(BT_PRIORITY, NULL), 1);
}

int main(void) {
  test_ds_classes();
  test_properties();
  test_field_defaults();
  test_scatter();
  test_inherited();
  return check_report("test_kinds");
}
