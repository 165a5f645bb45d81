/* SPDX-License-Identifier: MIT */
/* text.c: the version, error strings and messages, status names, and the text buffer. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *bt_version(void) { return BT_VERSION; }

const char *bt_strerror(int code) {
  switch (code) {
    case BT_OK: return "no error";
    case BT_ENOMEM: return "out of memory";
    case BT_EINVAL: return "invalid argument";
    case BT_ECYCLE: return "node is its own ancestor";
    case BT_ETOOBIG: return "tree too large";
    case BT_EBUSY: return "not allowed now: the tree is thinking, or a frame is under way";
    case BT_ETHREAD: return "could not start a thread";
    case BT_EIO: return "input/output error";
    case BT_EFORMAT: return "not a bt log, or of another format version";
    case BT_ECORRUPT: return "damaged log";
    default: return "unknown error";
  }
}

const char *bt_status_name(int status) {
  static const char *const names[] = {"READY", "SUCCESS", "FAILED", "RUNNING", "ABORTED"};
  return status >= 0 && status <= BT_ABORTED ? names[status] : "UNKNOWN";
}

const char *bt_wake_name(int cause) {
  static const char *const names[] = {"deadline", "start", "event", "force", "reload", "key"};
  return cause >= 0 && cause <= BT_WAKE_KEY ? names[cause] : "unknown";
}

int bti_fail(char *msg, size_t size, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, size, fmt, ap);
  va_end(ap);
  return code;
}

int bt_buf_reserve(bt_buf *b, size_t extra) {
  if (extra > SIZE_MAX / 2 - 1 - b->len) return BT_ENOMEM; /* (and len + extra + 1 wraps not) */
  if (b->len + extra + 1 <= b->cap) return BT_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) return BT_ENOMEM;
  b->data = p;
  b->cap = cap;
  return BT_OK;
}

int bt_buf_append(bt_buf *b, const char *s, size_t n) {
  if (b->err) return b->err;
  if (bt_buf_reserve(b, n) != BT_OK) return b->err = BT_ENOMEM;
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
  if (b->err) return b->err;
  if (bt_buf_reserve(b, (size_t)n) != BT_OK) return b->err = BT_ENOMEM;
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
