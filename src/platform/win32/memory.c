/* SPDX-License-Identifier: MIT */
/* memory.c: memory on a boundary, the C runtime's _aligned_malloc (freed by _aligned_free: the
 * runtime has no aligned_alloc). */
#include <malloc.h>

#include "btp.h"

void *btp_aligned_alloc(size_t align, size_t size) { return _aligned_malloc(size ? size : 1, align); }

void btp_aligned_free(void *p) { _aligned_free(p); }
