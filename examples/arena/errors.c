/* SPDX-License-Identifier: MIT */
/*
 * errors.c: the one-line form of an error, and the log of a live run's errors (see errors.h).
 */
#include "errors.h"

#include <stdlib.h>
#include <string.h>

/* Copies src into dst (size bytes) without the occurrences of cut (if not empty). */
static void drop_all(char *dst, size_t size, const char *src, const char *cut) {
  size_t lc = strlen(cut), n = 0;
  while (*src && n + 1 < size) {
    if (lc && strncmp(src, cut, lc) == 0) {
      src += lc;
      continue;
    }
    dst[n++] = *src++;
  }
  dst[n] = 0;
}

void error_line(char *dst, size_t size, const char *msg, const char *data_dir, size_t cols) {
  if (!size) return;
  char prefix[4096 + 2] = "", text[2048], head[2048], who[512] = "";
  if (data_dir && *data_dir) snprintf(prefix, sizeof prefix, "%s%s", data_dir,
                                      data_dir[strlen(data_dir) - 1] == '/' ? "" : "/");
  drop_all(text, sizeof text, msg ? msg : "(no message)", prefix);

  /* the first line, and the creature's line among those before the traceback */
  size_t hl = strcspn(text, "\n");
  snprintf(head, sizeof head, "%.*s", (int)hl, text);
  for (const char *l = text + hl; *l == '\n'; l += strcspn(l, "\n")) {
    l++;
    if (strncmp(l, "stack traceback:", 16) == 0) break;
    if (strncmp(l, "creature: ", 10) == 0) {
      size_t ll = strcspn(l, "\n");
      const char *c = l + 10, *b = strstr(l, ", brain: ");
      if (b && (size_t)(b - l) < ll) {
        const char *file = b + 9;
        size_t fl = (size_t)(l + ll - file);
        const char *colon = memchr(file, ':', fl); /* <file>:<line>: the file only */
        if (colon) fl = (size_t)(colon - file);
        snprintf(who, sizeof who, "%.*s %.*s: ", (int)(b - c), c, (int)fl, file);
      } else {
        snprintf(who, sizeof who, "%.*s: ", (int)(l + ll - c), c);
      }
      break;
    }
  }

  /* "refused F: F:12: msg" -> "refused F:12: msg" */
  if (strncmp(head, "refused ", 8) == 0) {
    char *file = head + 8, *sep = strstr(file, ": ");
    if (sep) {
      size_t fl = (size_t)(sep - file);
      if (strncmp(sep + 2, file, fl) == 0 && sep[2 + fl] == ':') memmove(file, sep + 2, strlen(sep + 2) + 1);
    }
  }

  snprintf(dst, size, "%s%s", who, head);
  size_t n = strlen(dst);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f) dst[i] = '?';
  if (n > cols) dst[cols] = 0;
}

void error_log_add(error_log *l, const char *msg) {
  if (!msg) msg = "(no message)";
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->msgs[i], msg) == 0) {
      l->counts[i]++;
      return;
    }
  if (l->n == ERROR_LOG_MAX) {
    l->dropped++;
    return;
  }
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    char **m = realloc(l->msgs, (size_t)cap * sizeof *m);
    if (!m) {
      l->dropped++;
      return;
    }
    l->msgs = m;
    long long *c = realloc(l->counts, (size_t)cap * sizeof *c);
    if (!c) {
      l->dropped++;
      return;
    }
    l->counts = c;
    l->cap = cap;
  }
  size_t len = strlen(msg);
  if (len > 8192) len = 8192; /* a long traceback is cut */
  char *copy = malloc(len + 1);
  if (!copy) {
    l->dropped++;
    return;
  }
  memcpy(copy, msg, len);
  copy[len] = 0;
  l->msgs[l->n] = copy;
  l->counts[l->n++] = 1;
}

void error_log_print(const error_log *l, FILE *f, const char *prefix) {
  for (int i = 0; i < l->n; i++) {
    fprintf(f, "%s%s\n", prefix, l->msgs[i]);
    if (l->counts[i] > 1) fprintf(f, "(%lld times)\n", l->counts[i]);
  }
  if (l->dropped) fprintf(f, "%s%lld more errors, of more than %d kinds, not kept\n", prefix, l->dropped, ERROR_LOG_MAX);
}

void error_log_free(error_log *l) {
  for (int i = 0; i < l->n; i++) free(l->msgs[i]);
  free(l->msgs);
  free(l->counts);
  memset(l, 0, sizeof *l);
}
