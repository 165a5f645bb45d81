/* SPDX-License-Identifier: MIT */
/* memory.c: memory on a boundary, C11's aligned_alloc (freed by free). */
#include "source.h" /* first: the names the C library shows */
#include <stdlib.h>

#include "btp.h"

void *btp_aligned_alloc(size_t align, size_t size) {
  /* C11 wants a size that is a multiple of the alignment */
  size_t rounded = (size + align - 1) / align * align;
  return rounded < size ? NULL : aligned_alloc(align, rounded);
}

void btp_aligned_free(void *p) { free(p); }
