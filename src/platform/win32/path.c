/* SPDX-License-Identifier: MIT */
/* path.c: the program's path (GetModuleFileNameW), real paths (GetFinalPathNameByHandleW) and
 * their folders, and a file's stamp (GetFileAttributesExW). Paths are UTF-8 here and converted
 * to Windows' UTF-16 at each call. (Shell patterns: ../pattern.c.) */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btp.h"

/* The longest path Windows' wide calls take, in UTF-16 units. */
#define WIDE_MAX 32768

/* errno for the last Win32 error. */
static int errno_of_last_error(void) {
  switch (GetLastError()) {
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_NAME:
  case ERROR_BAD_NETPATH: return ENOENT;
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION: return EACCES;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY: return ENOMEM;
  case ERROR_DIRECTORY: return ENOTDIR;
  default: return EIO;
  }
}

/* BT_EIO with errno set from the last Win32 error. */
static int fail_io(void) {
  errno = errno_of_last_error();
  return BT_EIO;
}

/* path (UTF-8) in UTF-16, malloc'd; NULL when it is no UTF-8 or out of memory (errno). */
static wchar_t *wide(const char *path) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
  if (n <= 0) {
    errno = EINVAL;
    return NULL;
  }
  wchar_t *w = malloc((size_t)n * sizeof *w);
  if (!w) {
    errno = ENOMEM;
    return NULL;
  }
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n);
  return w;
}

/* w in UTF-8 into buf (size bytes); BT_EINVAL, buf "", when it does not fit. */
static int narrow_out(const wchar_t *w, char *buf, size_t size) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  if (n <= 0 || (size_t)n > size) {
    buf[0] = '\0';
    return BT_EINVAL;
  }
  WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, n, NULL, NULL);
  return BT_OK;
}

int btp_program_path(char *buf, size_t size) {
  if (!buf || !size) return BT_EINVAL;
  buf[0] = '\0';
  wchar_t *w = malloc(WIDE_MAX * sizeof *w);
  if (!w) {
    errno = ENOMEM;
    return BT_EIO;
  }
  DWORD n = GetModuleFileNameW(NULL, w, WIDE_MAX);
  int rc = n == 0 || n >= WIDE_MAX ? fail_io() : narrow_out(w, buf, size);
  free(w);
  return rc;
}

/* Drops the "\\?\" that GetFinalPathNameByHandleW puts before a path ("\\?\UNC\" becomes "\\"). */
static const wchar_t *plain(wchar_t *w) {
  if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
    w[6] = L'\\';
    return w + 6;
  }
  return wcsncmp(w, L"\\\\?\\", 4) == 0 ? w + 4 : w;
}

int btp_path_real(const char *path, char *buf, size_t size) {
  if (!path || !buf || !size) return BT_EINVAL;
  buf[0] = '\0';
  wchar_t *w = wide(path);
  if (!w) return errno == ENOMEM ? BT_ENOMEM : BT_EIO;
  /* a folder opens only with FILE_FLAG_BACKUP_SEMANTICS; neither reads nor locks anything */
  HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free(w);
  if (h == INVALID_HANDLE_VALUE) return fail_io();
  wchar_t *real = malloc(WIDE_MAX * sizeof *real);
  if (!real) {
    CloseHandle(h);
    return BT_ENOMEM;
  }
  DWORD n = GetFinalPathNameByHandleW(h, real, WIDE_MAX, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  int rc = n == 0 || n >= WIDE_MAX ? fail_io() : narrow_out(plain(real), buf, size);
  CloseHandle(h);
  free(real);
  return rc;
}

/* "C:\a\b" becomes "C:\a", "C:\a" becomes "C:\"; either separator. */
void btp_path_folder(char *path) {
  char *cut = NULL;
  for (char *p = path; *p; p++)
    if (*p == '\\' || *p == '/') cut = p;
  if (!cut) return;
  if (cut == path || (cut == path + 2 && path[1] == ':')) cut[1] = '\0';
  else *cut = '\0';
}

int btp_file_stamp(const char *path, btp_stamp *out) {
  if (!path || !out) return BT_EINVAL;
  wchar_t *w = wide(path);
  if (!w) return BT_EIO;
  WIN32_FILE_ATTRIBUTE_DATA a;
  BOOL ok = GetFileAttributesExW(w, GetFileExInfoStandard, &a);
  free(w);
  if (!ok) return fail_io();
  /* 100-nanosecond steps since 1601 */
  unsigned long long t = (unsigned long long)a.ftLastWriteTime.dwHighDateTime << 32 | a.ftLastWriteTime.dwLowDateTime;
  out->sec = (long long)(t / 10000000ULL);
  out->nsec = (long long)(t % 10000000ULL) * 100;
  out->size = (long long)((unsigned long long)a.nFileSizeHigh << 32 | a.nFileSizeLow);
  return BT_OK;
}

FILE *btp_file_open(const char *path, const char *mode) {
  for (int tries = 0;; tries++) { /* 50 tries 5 ms apart */
    FILE *f = fopen(path, mode);
    if (f || errno != EACCES || tries == 50) return f;
    Sleep(5);
  }
}

int btp_path_is_dir(const char *path) {
  if (!path) return 0;
  wchar_t *w = wide(path);
  if (!w) return 0;
  DWORD a = GetFileAttributesW(w);
  free(w);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}
