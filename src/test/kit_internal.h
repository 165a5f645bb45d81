/* SPDX-License-Identifier: MIT */
/*
 * kit_internal.h: what the files of the test kit (src/test) share; not installed. The kit uses
 * the public headers only, so it has these of its own: static functions, compiled into each
 * file that calls them.
 */
#ifndef BT_KIT_INTERNAL_H
#define BT_KIT_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bt_test.h"

/* Writes a failure's message, printf-style, into msg (size bytes) and returns code: how each
 * object of the kit keeps its last error (bt_subst_errmsg, bt_trace_errmsg, ...). */
static inline int kit_fail(char *msg, size_t size, int code, const char *fmt, ...)
    BT_PRINTF_CHECK(4, 5)
    ;
static inline int kit_fail(char *msg, size_t size, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, size, fmt, ap);
  va_end(ap);
  return code;
}

/* Makes room in the array *items (of *cap elements of elem bytes) for `need` elements: its
 * capacity doubles (from 8) until they fit. BT_OK, or BT_ENOMEM with nothing changed. */
static inline int kit_grow(void **items, int *cap, int need, size_t elem) {
  if (need <= *cap) return BT_OK;
  int ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  void *p = realloc(*items, (size_t)ncap * elem);
  if (!p) return BT_ENOMEM;
  *items = p;
  *cap = ncap;
  return BT_OK;
}

#endif
