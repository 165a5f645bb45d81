/* SPDX-License-Identifier: MIT */
/*
 * errors.h: what the arena shows of an error: one line that fits the view (error_line), and the
 * log of every error of a live run, written out when the terminal is back (error_log).
 */
#ifndef ARENA_ERRORS_H
#define ARENA_ERRORS_H

#include <stddef.h>
#include <stdio.h>

/* The one-line form of an error message, into dst (size bytes, terminated), at most cols
 * characters: paths relative to the data directory (every "<data_dir>/" dropped); a script
 * error's "creature: <kind> <id>, brain: <file>:<line>" line (docs/lua-api.md) put first, as
 * "<kind> <id> <file>: "; "refused <file>: <file>:<line>: <message>" said once, as
 * "refused <file>:<line>: <message>"; the traceback left out; control characters made '?'; cut at
 * the end. */
void error_line(char *dst, size_t size, const char *msg, const char *data_dir, size_t cols);

/* Every distinct error message of a run, in the order they first came, with how often. */
typedef struct error_log {
  char **msgs;
  long long *counts;
  int n, cap;
  long long dropped; /* messages not kept: more than ERROR_LOG_MAX distinct ones */
} error_log;

#define ERROR_LOG_MAX 200

void error_log_add(error_log *l, const char *msg);
/* Writes them to f, each as "<prefix><message>" and, if it came more than once, "(<n> times)". */
void error_log_print(const error_log *l, FILE *f, const char *prefix);
void error_log_free(error_log *l);

#endif
