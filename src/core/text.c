/* text.c: names, error strings and the text buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *bt_strerror(int code) {
  switch (code) {
    case BT_OK: return "no error";
    case BT_ENOMEM: return "out of memory";
    case BT_EINVAL: return "invalid argument";
    case BT_ECYCLE: return "node is its own ancestor";
    case BT_ETOOBIG: return "tree too large";
    case BT_EBUSY: return "not allowed while the tree thinks";
    default: return "unknown error";
  }
}

const char *bt_status_name(int status) {
  static const char *const names[] = {"READY", "SUCCESS", "FAILED", "RUNNING", "ABORTED"};
  return status >= 0 && status <= BT_ABORTED ? names[status] : "UNKNOWN";
}

static const char *const kind_names[BT_KIND_COUNT][2] = {
    [BT_BEHAVIOUR] = {"BehaviourNode", ""},
    [BT_SEQUENCE] = {"SequenceNode", "Sequence"},
    [BT_SELECTOR] = {"SelectorNode", "Selector"},
    [BT_PRIORITY] = {"PriorityNode", "Priority"},
    [BT_PARALLEL] = {"ParallelNode", "Parallel"},
    [BT_PARALLEL_ANY] = {"ParallelNodeAny", "Parallel(Any)"},
    [BT_LOOP] = {"LoopNode", "Sequence"},
    [BT_RANDOM] = {"RandomNode", "Random"},
    [BT_CONDITION] = {"ConditionNode", "Condition"},
    [BT_MULTICONDITION] = {"MultiConditionNode", "Condition"},
    [BT_CONDITIONWAIT] = {"ConditionWaitNode", "Wait"},
    [BT_ACTION] = {"ActionNode", "ActionNode"},
    [BT_WAIT] = {"WaitNode", "Wait"},
    [BT_NOT] = {"NotDecorator", "Not"},
    [BT_FAILIFRUNNING] = {"FailIfRunningDecorator", "FailIfRunning"},
    [BT_FAILIFSUCCESS] = {"FailIfSuccessDecorator", "FailIfSuccess"},
    [BT_EVENT] = {"EventNode", "Event"},
    [BT_LATCH] = {"LatchNode", "Latch"},
    [BT_TASK] = {"TaskNode", "Task"},
    [BT_POLICY_PARALLEL] = {"PolicyParallelNode", "PolicyParallel"},
    [BT_MONITOR] = {"MonitorNode", "Monitor"},
    [BT_ACTIVE_SELECTOR] = {"ActiveSelectorNode", "ActiveSelector"},
    [BT_REPEAT] = {"RepeatNode", "Repeat"},
    [BT_SUCCEED] = {"AlwaysSucceedDecorator", "AlwaysSucceed"},
    [BT_FAIL] = {"AlwaysFailDecorator", "AlwaysFail"},
    [BT_COOLDOWN] = {"CooldownDecorator", "Cooldown"},
    [BT_TIMEOUT] = {"TimeoutDecorator", "Timeout"},
    [BT_SUBTREE] = {"SubtreeNode", "Subtree"},
};

const char *bt_kind_name(int kind) {
  return kind >= 0 && kind < BT_KIND_COUNT ? kind_names[kind][0] : NULL;
}

const char *bt_kind_default_name(int kind) {
  return kind >= 0 && kind < BT_KIND_COUNT ? kind_names[kind][1] : NULL;
}

static int buf_reserve(bt_buf *b, size_t extra) {
  if (b->err) return b->err;
  if (b->len + extra + 1 <= b->cap) return BT_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) return b->err = BT_ENOMEM;
  b->data = p;
  b->cap = cap;
  return BT_OK;
}

int bt_buf_append(bt_buf *b, const char *s, size_t n) {
  int rc = buf_reserve(b, n);
  if (rc) return rc;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return BT_OK;
}

int bt_buf_printf(bt_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[128];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return b->err = BT_EINVAL;
  if ((size_t)n < sizeof small) return bt_buf_append(b, small, (size_t)n);
  int rc = buf_reserve(b, (size_t)n);
  if (rc) return rc;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return BT_OK;
}

void bt_buf_free(bt_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}
