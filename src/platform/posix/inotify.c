/* SPDX-License-Identifier: MIT */
/*
 * inotify.c: the folder watcher on Linux, an inotify descriptor, told about the files of each
 * watched folder that are written and closed, created, or renamed into it. Other systems use
 * ../watch_none.c, and callers compare stamps.
 */
#include "source.h" /* first: the names the C library shows */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "btp.h"

typedef struct folder {
  int wd; /* inotify's number of the watch */
  char *path;
} folder;

struct btp_watch {
  int fd;
  folder *folders;
  size_t nfolders, cap;
  char *name; /* the path handed to btp_watch_read's fn, kept here so that a long jump leaks nothing */
  size_t name_cap;
  char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
};

int btp_watch_open(btp_watch **out) {
  if (!out) return BT_EINVAL;
  *out = NULL;
  btp_watch *w = calloc(1, sizeof *w);
  if (!w) return BT_ENOMEM;
  w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (w->fd < 0) {
    int e = errno;
    free(w);
    errno = e;
    return e == ENOMEM ? BT_ENOMEM : BT_EIO;
  }
  *out = w;
  return BT_OK;
}

static const folder *find_folder(const btp_watch *w, int wd) {
  for (size_t i = 0; i < w->nfolders; i++)
    if (w->folders[i].wd == wd) return &w->folders[i];
  return NULL;
}

/* Keeps folder's path as the one of watch wd. */
static int keep_folder(btp_watch *w, int wd, const char *path) {
  if (find_folder(w, wd)) return BT_OK; /* inotify gives a folder watched again its old number */
  if (w->nfolders == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 8;
    folder *f = realloc(w->folders, cap * sizeof *f);
    if (!f) return BT_ENOMEM;
    w->folders = f;
    w->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) return BT_ENOMEM;
  w->folders[w->nfolders++] = (folder){wd, copy};
  return BT_OK;
}

int btp_watch_add(btp_watch *w, const char *folder) {
  if (!w || !folder) return BT_EINVAL;
  int wd = inotify_add_watch(w->fd, folder, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR);
  if (wd < 0) return errno == ENOMEM ? BT_ENOMEM : BT_EIO;
  int rc = keep_folder(w, wd, folder);
  if (rc != BT_OK) inotify_rm_watch(w->fd, wd);
  return rc;
}

/* Writes folder, a separator and name into w->name. */
static const char *join(btp_watch *w, const char *folder, const char *name) {
  size_t nf = strlen(folder), nn = strlen(name);
  int sep = nf == 0 || folder[nf - 1] != '/';
  size_t need = nf + (size_t)sep + nn + 1;
  if (need > w->name_cap) {
    char *p = realloc(w->name, need);
    if (!p) return NULL;
    w->name = p;
    w->name_cap = need;
  }
  memcpy(w->name, folder, nf);
  if (sep) w->name[nf] = '/';
  memcpy(w->name + nf + (size_t)sep, name, nn + 1);
  return w->name;
}

/* Hands fn each event of the n bytes read into w->events. */
static int hand_over(btp_watch *w, size_t n, void (*fn)(void *data, const char *path), void *data) {
  for (size_t at = 0; at < n;) {
    const struct inotify_event *ev = (const struct inotify_event *)(const void *)(w->events + at);
    at += sizeof *ev + ev->len;
    const folder *f = ev->len ? find_folder(w, ev->wd) : NULL;
    if (!f) continue;
    const char *path = join(w, f->path, ev->name);
    if (!path) return BT_ENOMEM;
    fn(data, path);
  }
  return BT_OK;
}

int btp_watch_read(btp_watch *w, void (*fn)(void *data, const char *path), void *data) {
  if (!w || !fn) return BT_EINVAL;
  for (;;) {
    ssize_t n = read(w->fd, w->events, sizeof w->events);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? BT_OK : BT_EIO;
    if (n == 0) return BT_OK;
    int rc = hand_over(w, (size_t)n, fn, data);
    if (rc != BT_OK) return rc;
  }
}

void btp_watch_close(btp_watch *w) {
  if (!w) return;
  close(w->fd);
  for (size_t i = 0; i < w->nfolders; i++) free(w->folders[i].path);
  free(w->folders);
  free(w->name);
  free(w);
}
