/* SPDX-License-Identifier: MIT */
/* check.h: the C tests' assertions. A failed CHECK prints where and why and counts a failure;
 * main returns check_report(), non-zero if anything failed. */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                             \
  do {                                                                          \
    check_count++;                                                              \
    if (!(cond)) {                                                              \
      check_failures++;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                           \
  } while (0)

#define CHECK_INT(a, b)                                                                 \
  do {                                                                                  \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                      \
    check_count++;                                                                      \
    if (check_a_ != check_b_) {                                                         \
      check_failures++;                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                              \
    }                                                                                   \
  } while (0)

#define CHECK_NUM(a, b)                                                                    \
  do {                                                                                     \
    double check_a_ = (a), check_b_ = (b);                                                 \
    check_count++;                                                                         \
    if (!(fabs(check_a_ - check_b_) <= 1e-9 * (1 + fabs(check_b_)))) {                    \
      check_failures++;                                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%.17g != %.17g)\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                                 \
    }                                                                                      \
  } while (0)

#define CHECK_STR(a, b)                                                                     \
  do {                                                                                      \
    const char *check_a_ = (a), *check_b_ = (b);                                            \
    check_count++;                                                                          \
    if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                       \
      check_failures++;                                                                     \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n--- got:\n%s\n--- expected:\n%s\n",   \
              __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",                   \
              check_b_ ? check_b_ : "(null)");                                              \
    }                                                                                       \
  } while (0)

static int check_report(const char *name) {
  if (check_failures) fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
  else printf("%s: %d checks passed\n", name, check_count);
  return check_failures ? 1 : 0;
}

#endif
