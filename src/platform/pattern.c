/* SPDX-License-Identifier: MIT */
/* pattern.c: shell patterns for systems whose C library has no fnmatch (Windows; PathMatchSpec
 * treats ';' and '.' its own way): matched as POSIX's fnmatch with no flags does. '*' and '?' match
 * any character, '/' too; "[a-z]" and "[!a-z]" are classes, a ']' first in one is a member, and a
 * '[' without its ']' is an ordinary character; '\' takes the next character as it is, in a class
 * too. POSIX
 * systems use fnmatch itself (posix/path.c); test_platform compares the two on Linux. */
#include "btp.h"

/* A class's character at *q, '\\' taking the next as it is; *q is left after it. */
static unsigned char class_char(const char **q) {
  if (**q == '\\' && (*q)[1]) (*q)++;
  return (unsigned char)*(*q)++;
}

/* The class at *p (after its '['), against c: 1 if c is in it, 0 if not, -1 when it has no ']'
 * (the '[' is then an ordinary character); *p is left after the ']'. */
static int class_match(const char **p, unsigned char c) {
  const char *q = *p;
  int negate = *q == '!';
  if (negate) q++;
  int in = 0, first = 1;
  while (*q && (*q != ']' || first)) {
    unsigned char lo = class_char(&q), hi = lo;
    if (*q == '-' && q[1] && q[1] != ']') {
      q++;
      hi = class_char(&q);
    }
    if (lo <= c && c <= hi) in = 1;
    first = 0;
  }
  if (*q != ']') return -1;
  *p = q + 1;
  return in != negate;
}

int btp_pattern_match(const char *pattern, const char *s) {
  const char *p = pattern, *star = NULL, *resume = NULL;
  while (*s) {
    if (*p == '*') { /* remember where to try a longer run of the star */
      star = ++p;
      resume = s;
      continue;
    }
    int ok;
    const char *next = p + 1;
    if (*p == '?') ok = 1;
    else if (*p == '[' && (ok = class_match(&next, (unsigned char)*s)) >= 0) {
    } else if (*p == '\\') { /* the next character as it is; a last '\\' matches nothing */
      if (!p[1]) return 0;
      next = p + 2;
      ok = p[1] == *s;
    } else {
      next = p + 1;
      ok = *p && *p == *s;
    }
    if (ok) {
      p = next;
      s++;
    } else if (star) {
      p = star;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*p == '*') p++;
  return *p == '\0';
}
