/* SPDX-License-Identifier: MIT */
/* heap.c: counts every heap allocation and the bytes live (heap.h). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stddef.h>

#include "heap.h"

long long heap_allocs, heap_bytes;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void __wrap_free(void *p);

void *__wrap_malloc(size_t size) {
  void *p = __real_malloc(size);
  if (p) {
    heap_allocs++;
    heap_bytes += (long long)malloc_usable_size(p);
  }
  return p;
}

void *__wrap_calloc(size_t count, size_t size) {
  void *p = __real_calloc(count, size);
  if (p) {
    heap_allocs++;
    heap_bytes += (long long)malloc_usable_size(p);
  }
  return p;
}

void *__wrap_realloc(void *p, size_t size) {
  long long before = p ? (long long)malloc_usable_size(p) : 0;
  void *q = __real_realloc(p, size);
  if (q) {
    heap_allocs++;
    heap_bytes += (long long)malloc_usable_size(q) - before;
  } else if (size == 0) {
    heap_bytes -= before;
  }
  return q;
}

void *__wrap_aligned_alloc(size_t align, size_t size) {
  void *p = __real_aligned_alloc(align, size);
  if (p) {
    heap_allocs++;
    heap_bytes += (long long)malloc_usable_size(p);
  }
  return p;
}

void __wrap_free(void *p) {
  if (p) heap_bytes -= (long long)malloc_usable_size(p);
  __real_free(p);
}
