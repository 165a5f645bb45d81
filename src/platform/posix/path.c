/* SPDX-License-Identifier: MIT */
/* path.c: the program's path (the system's answer: Linux's /proc/self/exe, macOS's
 * _NSGetExecutablePath, the BSDs' sysctl; none on OpenBSD, nor on Linux built as the others are,
 * BTP_NO_LINUX), real paths and their folders, a file's stamp (its modification time and size,
 * from stat); shell patterns (fnmatch). */
#include "source.h" /* first: the names the C library shows */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#include <stdint.h>
#elif defined(__FreeBSD__) || defined(__DragonFly__) || defined(__NetBSD__)
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#include "btp.h"

/* macOS names POSIX 2008's st_mtim so */
#if defined(__APPLE__)
#define ST_MTIM st_mtimespec
#else
#define ST_MTIM st_mtim
#endif

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
#if defined(__linux__) && !defined(BTP_NO_LINUX)
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
#elif defined(__APPLE__)
  /* the path the program was started by, which may hold links and "..": made real */
  char started[BTP_PATH_MAX];
  uint32_t n = sizeof started;
  if (_NSGetExecutablePath(started, &n) != 0) {
    errno = ENAMETOOLONG;
    return BT_EIO;
  }
  return btp_path_real(started, buf, size);
#elif defined(__FreeBSD__) || defined(__DragonFly__) || defined(__NetBSD__)
  /* the kernel's path of the program's file, its terminating zero included; ENOMEM: buf is short */
#if defined(__NetBSD__)
  int mib[4] = {CTL_KERN, KERN_PROC_ARGS, -1, KERN_PROC_PATHNAME};
#else
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1};
#endif
  size_t n = size;
  if (sysctl(mib, 4, buf, &n, NULL, 0) != 0) {
    buf[0] = '\0';
    return errno == ENOMEM ? BT_EINVAL : BT_EIO;
  }
  return BT_OK;
#else
  errno = ENOSYS; /* OpenBSD and others: the caller goes by argv[0] */
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
  out->sec = (long long)st.ST_MTIM.tv_sec;
  out->nsec = (long long)st.ST_MTIM.tv_nsec;
  out->size = (long long)st.st_size;
  return BT_OK;
}

FILE *btp_file_open(const char *path, const char *mode) { return fopen(path, mode); }

int btp_path_is_dir(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int btp_pattern_match(const char *pattern, const char *s) { return fnmatch(pattern, s, 0) == 0; }
