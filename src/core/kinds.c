/* SPDX-License-Identifier: MIT */
/*
 * kinds.c: the kind table. For every node kind: its names, the class it extends, the methods its
 * class defines, its children, its memory and fields, its param (and how it is shown) and
 * functions, and what the other parts ask of it (BT_KIND_SELECTS ...: bt_kind_has). Every test of
 * a kind's property, in the core, the recorder, the tools, the binding and the viewer, reads it
 * here; what a kind's nodes do when visited, reset, stepped, asked for their sleep time or
 * described is in its section of nodes.c.
 */
#include <math.h>
#include <stddef.h>

#include "internal.h"

#define VISIT BT_METHOD_VISIT
#define RESET BT_METHOD_RESET
#define STEP BT_METHOD_STEP
#define SLEEP BT_METHOD_SLEEP_TIME
#define DESCRIBE BT_METHOD_DESCRIBE
#define DS BT_KIND_DS
#define DS_DECORATOR (BT_KIND_DS | BT_KIND_DECORATOR)
#define SECONDS_FORMAT "%.14g s"

/* A field: its id, how it lives in memory struct s, member m, and its flag bit. */
#define FIELD(id, type, s, m, flag) {BT_FIELD_##id, type, flag, offsetof(s, m), 0}
#define NUMBER(id, s, m, init) {BT_FIELD_##id, BTI_NUMBER, 0, offsetof(s, m), init}
#define FLAG(id, flag) {BT_FIELD_##id, BTI_FLAG, flag, 0, 0}

const bti_kind bti_kinds[BT_KIND_COUNT] = {
    [BT_BEHAVIOUR] = {
        .info = {"BehaviourNode", "", -1, DS, VISIT | RESET | STEP | SLEEP | DESCRIBE},
        .children = BTI_OPTIONAL, .deadline = BTI_OWN_DEADLINE},
    [BT_SEQUENCE] = {
        .info = {"SequenceNode", "Sequence", BT_BEHAVIOUR, DS, VISIT | RESET | DESCRIBE},
        .children = BTI_ANY, .mem_size = sizeof(mem_idx), .mem_words = 1, .small = 1,
        .nfields = 1, .fields = {FIELD(IDX, BTI_INDEX, mem_idx, idx, 0)}},
    [BT_SELECTOR] = {
        .info = {"SelectorNode", "Selector", BT_BEHAVIOUR, DS, VISIT | RESET | DESCRIBE},
        .children = BTI_ANY, .mem_size = sizeof(mem_idx), .mem_words = 1, .small = 1,
        .nfields = 1, .fields = {FIELD(IDX, BTI_INDEX, mem_idx, idx, 0)}},
    [BT_PRIORITY] = {
        .info = {"PriorityNode", "Priority", BT_BEHAVIOUR, DS | BT_KIND_SELECTS | BT_KIND_PERIODIC,
                 VISIT | RESET | SLEEP | DESCRIBE},
        .children = BTI_ANY, .mem_size = sizeof(mem_prio), .mem_times = 1, .mem_words = 1,
        .param = BTI_DEFAULT, .nil_param = 1, .param_format = "period %.14g",
        .scatters = 1,
        .nfields = 2, .fields = {FIELD(IDX, BTI_CHILD, mem_prio, idx, 0),
                                 FIELD(LASTTIME, BTI_CLOCK, mem_prio, lasttime, SF_LASTTIME)}},
    [BT_PARALLEL] = {
        .info = {"ParallelNode", "Parallel", BT_BEHAVIOUR, DS, VISIT | STEP},
        .children = BTI_ANY},
    [BT_PARALLEL_ANY] = {
        .info = {"ParallelNodeAny", "Parallel(Any)", BT_PARALLEL, DS, 0},
        .children = BTI_ANY},
    [BT_LOOP] = {
        .info = {"LoopNode", "Sequence", BT_BEHAVIOUR, DS, VISIT | RESET | DESCRIBE},
        .children = BTI_ANY, .mem_size = sizeof(mem_seq), .mem_words = 2, .param = BTI_FOREVER,
        .param_format = "maxreps %.14g",
        .nfields = 2, .fields = {FIELD(IDX, BTI_INDEX, mem_seq, idx, 0),
                                 FIELD(REP, BTI_COUNTER, mem_seq, rep, 0)}},
    [BT_RANDOM] = {
        .info = {"RandomNode", "Random", BT_BEHAVIOUR, DS, VISIT | RESET},
        .children = BTI_ANY, .mem_size = sizeof(mem_seq), .mem_words = 2, .draws = 1,
        .nfields = 1, .fields = {FIELD(IDX, BTI_INDEX_NIL, mem_seq, idx, 0)}},
    [BT_CONDITION] = {
        .info = {"ConditionNode", "Condition", BT_BEHAVIOUR, DS, VISIT},
        .children = BTI_LEAF, .fn = BTI_FN, .small = 1}, /* no deadline: its sleep time is always nil */
    [BT_MULTICONDITION] = {
        .info = {"MultiConditionNode", "Condition", BT_BEHAVIOUR, DS, VISIT},
        .children = BTI_LEAF, .deadline = BTI_SPILL_DEADLINE, .fn = BTI_FN2,
        .nfields = 1, .fields = {FLAG(RUNNING, SF_RUNNING)}},
    [BT_CONDITIONWAIT] = {
        .info = {"ConditionWaitNode", "Wait", BT_BEHAVIOUR, DS, VISIT},
        .children = BTI_LEAF, .deadline = BTI_SPILL_DEADLINE, .fn = BTI_FN},
    [BT_ACTION] = {
        .info = {"ActionNode", "ActionNode", BT_BEHAVIOUR, DS, VISIT},
        .children = BTI_LEAF, .deadline = BTI_SPILL_DEADLINE, .fn = BTI_FN, .small = 1},
    [BT_WAIT] = {
        .info = {"WaitNode", "Wait", BT_BEHAVIOUR, DS, VISIT | DESCRIBE},
        .children = BTI_LEAF, .deadline = BTI_OWN_DEADLINE, .mem_size = sizeof(mem_wait), .mem_times = 1,
        .param = BTI_TIME_FN, .param_format = SECONDS_FORMAT,
        .nfields = 1, .fields = {FIELD(WAKE_TIME, BTI_TIME, mem_wait, wake, SF_WAKE)}},
    [BT_NOT] = {
        .info = {"NotDecorator", "Not", BT_BEHAVIOUR, DS_DECORATOR, VISIT},
        .children = BTI_ONE},
    [BT_FAILIFRUNNING] = {
        .info = {"FailIfRunningDecorator", "FailIfRunning", BT_BEHAVIOUR, DS_DECORATOR, VISIT},
        .children = BTI_ONE},
    [BT_FAILIFSUCCESS] = {
        .info = {"FailIfSuccessDecorator", "FailIfSuccess", BT_BEHAVIOUR, DS_DECORATOR, VISIT},
        .children = BTI_ONE},
    [BT_EVENT] = {
        .info = {"EventNode", "Event", BT_BEHAVIOUR, DS | BT_KIND_LISTENS, VISIT | RESET | STEP},
        .children = BTI_AT_MOST_ONE, .param = BTI_DEFAULT, .nil_param = 0,
        .param_format = "priority %.14g",
        .nfields = 1, .fields = {FLAG(TRIGGERED, SF_TRIGGERED)}},
    [BT_LATCH] = {
        .info = {"LatchNode", "Latch", BT_BEHAVIOUR, DS, VISIT},
        .children = BTI_ONE, .mem_size = sizeof(mem_latch), .mem_times = 1, .mem_doubles = 2,
        .param = BTI_TIME_FN, .param_format = SECONDS_FORMAT,
        .param_name = "Latch (%.14g)",
        .nfields = 2, .fields = {NUMBER(LASTLATCHTIME, mem_latch, last, -HUGE_VAL),
                                 NUMBER(LATCHDURATION, mem_latch, dur, 0)}},
    [BT_TASK] = {
        .info = {"TaskNode", "Task", BT_BEHAVIOUR, 0, VISIT | RESET},
        .children = BTI_LEAF, .deadline = BTI_OWN_DEADLINE, .fn = BTI_TASK},
    [BT_POLICY_PARALLEL] = {
        .info = {"PolicyParallelNode", "PolicyParallel", BT_BEHAVIOUR, 0, VISIT | STEP},
        .children = BTI_ANY, .policies = 1},
    [BT_MONITOR] = {
        .info = {"MonitorNode", "Monitor", BT_BEHAVIOUR, 0, VISIT},
        .children = BTI_SOME},
    [BT_ACTIVE_SELECTOR] = {
        .info = {"ActiveSelectorNode", "ActiveSelector", BT_BEHAVIOUR, BT_KIND_SELECTS, VISIT},
        .children = BTI_ANY},
    [BT_REPEAT] = {
        .info = {"RepeatNode", "Repeat", BT_BEHAVIOUR, BT_KIND_DECORATOR,
                 VISIT | RESET | SLEEP | DESCRIBE},
        .children = BTI_ONE, .mem_size = sizeof(mem_seq), .mem_words = 2, .param = BTI_TIMES,
        .param_format = "%.14g times",
        .nfields = 1, .fields = {FIELD(REP, BTI_COUNTER, mem_seq, rep, 0)}},
    [BT_SUCCEED] = {
        .info = {"AlwaysSucceedDecorator", "AlwaysSucceed", BT_BEHAVIOUR, BT_KIND_DECORATOR, VISIT},
        .children = BTI_ONE},
    [BT_FAIL] = {
        .info = {"AlwaysFailDecorator", "AlwaysFail", BT_BEHAVIOUR, BT_KIND_DECORATOR, VISIT},
        .children = BTI_ONE},
    [BT_COOLDOWN] = {
        .info = {"CooldownDecorator", "Cooldown", BT_BEHAVIOUR, BT_KIND_DECORATOR,
                 VISIT | RESET | DESCRIBE},
        .children = BTI_ONE, .mem_size = sizeof(mem_wait), .mem_times = 1, .param = BTI_SECONDS,
        .param_format = SECONDS_FORMAT},
    [BT_TIMEOUT] = {
        .info = {"TimeoutDecorator", "Timeout", BT_BEHAVIOUR, BT_KIND_DECORATOR,
                 VISIT | SLEEP | DESCRIBE},
        .children = BTI_ONE, .mem_size = sizeof(mem_wait), .mem_times = 1, .param = BTI_SECONDS,
        .param_format = SECONDS_FORMAT},
    [BT_SUBTREE] = {
        .info = {"SubtreeNode", "Subtree", BT_BEHAVIOUR, BT_KIND_INCLUDES, VISIT},
        .children = BTI_NAMED},
    [BT_WATCH] = {
        .info = {"WatchNode", "Watch", BT_BEHAVIOUR, BT_KIND_WATCHES, VISIT | DESCRIBE},
        .children = BTI_AT_MOST_ONE},
};

static int valid_kind(int kind) { return kind >= 0 && kind < BT_KIND_COUNT; }

const bt_kind_info *bt_kind_get(int kind) { return valid_kind(kind) ? &bti_kinds[kind].info : NULL; }

const char *bt_kind_name(int kind) { return valid_kind(kind) ? bti_kinds[kind].info.name : NULL; }

const char *bt_kind_default_name(int kind) {
  return valid_kind(kind) ? bti_kinds[kind].info.default_name : NULL;
}

int bt_kind_has(int kind, unsigned flags) {
  return valid_kind(kind) && (bti_kinds[kind].info.flags & flags) == flags;
}

const char *bt_kind_param_format(int kind) { return valid_kind(kind) ? bti_kinds[kind].param_format : NULL; }

int bt_kind_nil_param(int kind, double *out) {
  if (!valid_kind(kind)) return BT_EINVAL;
  if (bti_kinds[kind].param != BTI_DEFAULT) return 0; /* for ever (a number of passes), or no param */
  if (out) *out = bti_kinds[kind].nil_param;
  return 1;
}

const bti_field *bti_field_of(int kind, int field) {
  if (!valid_kind(kind)) return NULL;
  const bti_kind *k = &bti_kinds[kind];
  for (int i = 0; i < k->nfields; i++)
    if (k->fields[i].id == field) return &k->fields[i];
  return NULL;
}

const char *bti_article(int kind) {
  const char *name = bt_kind_name(kind);
  switch (name ? name[0] : 0) {
    case 'A':
    case 'E':
    case 'I':
    case 'O':
    case 'U': return "an";
    default: return "a";
  }
}

const char *bti_spec_lacks(const bt_spec *s) {
  if (s->ops && s->ops->visit) return NULL;
  switch (bti_kinds[s->kind].fn) {
    case BTI_FN: return s->fn ? NULL : "its function";
    case BTI_FN2: return !s->fn ? "its start function" : !s->fn2 ? "its continue function" : NULL;
    case BTI_TASK: return s->task ? NULL : "its bt_task";
    default:
      if (bti_kinds[s->kind].param == BTI_TIME_FN && (s->flags & BT_SPEC_PARAM_FN) && !s->fn)
        return "its time function";
      return NULL;
  }
}

int bt_kind_field_default(int kind, int field, double *out) {
  const bti_field *f = bti_field_of(kind, field);
  if (!f) return BT_EINVAL;
  switch (f->type) {
    case BTI_INDEX:
    case BTI_COUNTER: *out = bti_rewound(f); return 1;
    case BTI_NUMBER: *out = f->init; return 1;
    default: return 0; /* nil: an index that starts nil, a time not set, a flag */
  }
}
