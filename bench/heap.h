/* SPDX-License-Identifier: MIT */
/*
 * heap.h: the benchmarks' count of heap allocations and of the bytes live on the heap. heap.c wraps
 * malloc, calloc, realloc and free at link time (-Wl,--wrap=malloc,...): every allocation bt, Lua
 * or the benchmark makes is counted, by malloc_usable_size.
 */
#ifndef BENCH_HEAP_H
#define BENCH_HEAP_H

#include <stddef.h>

/* Not static: a benchmark's own calls of malloc are in its file, and the compiler must not conclude
 * that a function outside it (malloc, wrapped by the linker) leaves these unchanged. */
extern long long heap_allocs; /* allocations so far */
extern long long heap_bytes;  /* bytes live */

/* The C library's own realloc and free, for an allocator that counts for itself (bench_think's
 * allocator of Lua). */
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);

#endif
