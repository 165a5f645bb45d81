/* SPDX-License-Identifier: MIT */
/* path.c: the program's path (Linux: /proc/self/exe), real paths and their folders, and a file's
 * stamp (its modification time and size, from stat); shell patterns (fnmatch). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btp.h"

/* Copies s into buf if it fits; otherwise buf holds "". */
static int copy_out(char *buf, size_t size, const char *s) {
  size_t n = strlen(s);
  if (n >= size) {
    buf[0] = '\0';
    return BT_EINVAL;
  }
  memcpy(buf, s, n + 1);
  return BT_OK;
}

int btp_program_path(char *buf, size_t size) {
  if (!buf || !size) return BT_EINVAL;
  buf[0] = '\0';
#ifdef __linux__
  /* readlink does not say whether it cut the path: one byte more than the path tells */
  ssize_t n = readlink("/proc/self/exe", buf, size);
  if (n < 0) {
    buf[0] = '\0';
    return BT_EIO;
  }
  if ((size_t)n >= size) {
    buf[0] = '\0';
    return BT_EINVAL;
  }
  buf[n] = '\0';
  return BT_OK;
#else
  errno = ENOSYS;
  return BT_EIO;
#endif
}

int btp_path_real(const char *path, char *buf, size_t size) {
  if (!path || !buf || !size) return BT_EINVAL;
  buf[0] = '\0';
  char *real = realpath(path, NULL);
  if (!real) return errno == ENOMEM ? BT_ENOMEM : BT_EIO;
  int rc = copy_out(buf, size, real);
  free(real);
  return rc;
}

void btp_path_folder(char *path) {
  char *slash = strrchr(path, '/');
  if (!slash) return;
  if (slash == path) slash[1] = '\0';
  else *slash = '\0';
}

int btp_file_stamp(const char *path, btp_stamp *out) {
  if (!path || !out) return BT_EINVAL;
  struct stat st;
  if (stat(path, &st) != 0) return BT_EIO;
  out->sec = (long long)st.st_mtim.tv_sec;
  out->nsec = (long long)st.st_mtim.tv_nsec;
  out->size = (long long)st.st_size;
  return BT_OK;
}

int btp_path_is_dir(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int btp_pattern_match(const char *pattern, const char *s) { return fnmatch(pattern, s, 0) == 0; }
