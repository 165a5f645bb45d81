/* SPDX-License-Identifier: MIT */
/* watch_none.c: the folder watcher of a system without one bt uses (all but Linux, and Linux built
 * as the others are, BT_PLATFORM_NO_LINUX): btp_watch_open says so (ENOSYS), and callers compare
 * btp_file_stamp's (docs/platforms.md). */
#include <errno.h>
#include <stddef.h>

#include "btp.h"

struct btp_watch {
  int unused;
};

int btp_watch_open(btp_watch **out) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  errno = ENOSYS;
  return BT_EIO;
}

int btp_watch_add(btp_watch *w, const char *folder) {
  (void)w;
  (void)folder;
  return BT_EINVAL;
}

int btp_watch_read(btp_watch *w, void (*fn)(void *data, const char *path), void *data) {
  (void)w;
  (void)fn;
  (void)data;
  return BT_EINVAL;
}

void btp_watch_close(btp_watch *w) { (void)w; }
