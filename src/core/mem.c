/* SPDX-License-Identifier: MIT */
/* mem.c: the core's growable arrays and copied strings. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

char *bti_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

int bti_grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return BT_OK;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *q = realloc(*p, (size_t)ncap * elem);
  if (!q) return BT_ENOMEM;
  *p = q;
  *cap = ncap;
  return BT_OK;
}
