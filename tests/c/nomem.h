/* SPDX-License-Identifier: MIT */
/* nomem.h: the allocator wrapped at link time, for the C tests that make allocations fail
 * (link with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free and the aligned ones
 * below: tests/CMakeLists.txt): the countdown-th allocation from now fails (-1: none), and live
 * counts the allocations not freed, so that a call refused for want of memory is seen to leak
 * nothing. */
#ifndef NOMEM_H
#define NOMEM_H

#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static long countdown = -1; /* allocations until one fails; -1: none */
static long live;           /* allocations not freed */

static int fails(void) {
  if (countdown < 0) return 0;
  return countdown-- == 0;
}
void *__wrap_malloc(size_t size) {
  void *p = fails() ? NULL : __real_malloc(size);
  if (p) live++;
  return p;
}
void *__wrap_calloc(size_t count, size_t size) {
  void *p = fails() ? NULL : __real_calloc(count, size);
  if (p) live++;
  return p;
}
void *__wrap_realloc(void *p, size_t size) {
  void *q = fails() ? NULL : __real_realloc(p, size);
  if (q && !p) live++;
  return q;
}
void __wrap_free(void *p) {
  if (p) live--;
  __real_free(p);
}

/* Memory on a boundary (the platform layer's btp_aligned_alloc). */
#ifdef _WIN32
/* Windows' C runtime: _aligned_malloc, freed by _aligned_free (src/platform/win32/memory.c).
 * Its headers declare them imported, so the library calls them through the import table's
 * pointers __imp__aligned_malloc and __imp__aligned_free: those are what is wrapped
 * (--wrap=__imp__aligned_malloc,--wrap=__imp__aligned_free), each by a pointer to a function. */
extern void *(*__real___imp__aligned_malloc)(size_t size, size_t align);
extern void (*__real___imp__aligned_free)(void *p);
static void *aligned_malloc_counted(size_t size, size_t align) {
  void *p = fails() ? NULL : __real___imp__aligned_malloc(size, align);
  if (p) live++;
  return p;
}
static void aligned_free_counted(void *p) {
  if (p) live--;
  __real___imp__aligned_free(p);
}
void *(*__wrap___imp__aligned_malloc)(size_t size, size_t align) = aligned_malloc_counted;
void (*__wrap___imp__aligned_free)(void *p) = aligned_free_counted;
#else
/* C11's aligned_alloc, freed by free (--wrap=aligned_alloc) */
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size) {
  void *p = fails() ? NULL : __real_aligned_alloc(align, size);
  if (p) live++;
  return p;
}
#endif

#endif
