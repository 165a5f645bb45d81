/* SPDX-License-Identifier: MIT */
/*
 * watch.c: the file watcher behind bt.reload.watch. On Linux it asks inotify about the folders
 * of the watched files (editors often save by renaming a new file over the old one); elsewhere,
 * or when asked to, it compares each file's modification time and size at every poll.
 * poll() never blocks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "lbt.h"

#define WATCH_META "bt.watcher"

/* user values: files (real path -> the path as given), folders (watch descriptor -> real folder),
 * stamps (real path -> "mtime/size" when polling) */
enum { UV_FILES = 1, UV_FOLDERS, UV_STAMPS, UV_COUNT = 3 };

typedef struct lbt_watch {
  int fd; /* inotify descriptor, or -1 when polling */
} lbt_watch;

static lbt_watch *check_watch(lua_State *L, const char *method) {
  lbt_watch *w = luaL_testudata(L, 1, WATCH_META);
  if (!w) lbt_typeerror(L, 1, 0, method, "watcher");
  return w;
}

/* Pushes "mtime.nsec/size" of path, or nil if it cannot be read. */
static void push_stamp(lua_State *L, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    lua_pushnil(L);
    return;
  }
  lua_pushfstring(L, "%I.%I/%I", (lua_Integer)st.st_mtim.tv_sec, (lua_Integer)st.st_mtim.tv_nsec,
                  (lua_Integer)st.st_size);
}

/* watcher:add(path): watch this file. Returns true, or nil and a message. */
static int watcher_add(lua_State *L) {
  lbt_watch *w = check_watch(L, "add");
  if (lua_type(L, 2) != LUA_TSTRING) return lbt_typeerror(L, 2, 1, "add", "string");
  const char *path = lua_tostring(L, 2);
  char real[PATH_MAX];
  if (!realpath(path, real)) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot watch %s: %s", path, strerror(errno));
    return 2;
  }
  lua_getiuservalue(L, 1, UV_FILES);
  lua_pushstring(L, path);
  lua_setfield(L, -2, real);
  if (w->fd < 0) {
    lua_getiuservalue(L, 1, UV_STAMPS);
    push_stamp(L, real);
    lua_setfield(L, -2, real);
    lua_pushboolean(L, 1);
    return 1;
  }
#ifdef __linux__
  char *slash = strrchr(real, '/');
  if (slash) *slash = '\0';
  const char *folder = slash && real[0] ? real : "/";
  int wd = inotify_add_watch(w->fd, folder, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
  if (wd < 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot watch %s: %s", folder, strerror(errno));
    return 2;
  }
  lua_getiuservalue(L, 1, UV_FOLDERS);
  lua_pushstring(L, folder);
  lua_rawseti(L, -2, wd);
#endif
  lua_pushboolean(L, 1);
  return 1;
}

/* Adds the given path of a changed file (real path at index real) to the result at res, once. */
static void report(lua_State *L, int files, int seen, int res, const char *real) {
  if (lua_getfield(L, files, real) == LUA_TNIL) { /* not a watched file */
    lua_pop(L, 1);
    return;
  }
  if (lua_getfield(L, seen, real) != LUA_TNIL) { /* already in the result */
    lua_pop(L, 2);
    return;
  }
  lua_pop(L, 1);
  lua_rawseti(L, res, (lua_Integer)lua_rawlen(L, res) + 1);
  lua_pushboolean(L, 1);
  lua_setfield(L, seen, real);
}

/* watcher:poll(): the watched files (as given to add) that changed since the last poll. */
static int watcher_poll(lua_State *L) {
  lbt_watch *w = check_watch(L, "poll");
  lua_settop(L, 1);
  lua_getiuservalue(L, 1, UV_FILES);
  int files = lua_gettop(L);
  lua_newtable(L);
  int seen = lua_gettop(L);
  lua_newtable(L);
  int res = lua_gettop(L);
  if (w->fd < 0) {
    lua_getiuservalue(L, 1, UV_STAMPS);
    int stamps = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, files)) {
      lua_pop(L, 1);
      const char *real = lua_tostring(L, -1);
      push_stamp(L, real);
      lua_getfield(L, stamps, real);
      int same = lua_rawequal(L, -1, -2);
      lua_pop(L, 1);
      if (!same) {
        lua_setfield(L, stamps, real);
        report(L, files, seen, res, real);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_settop(L, res);
    return 1;
  }
#ifdef __linux__
  lua_getiuservalue(L, 1, UV_FOLDERS);
  int folders = lua_gettop(L);
  char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      struct inotify_event *ev = (struct inotify_event *)(void *)p;
      p += sizeof *ev + ev->len;
      if (!ev->len) continue;
      if (lua_rawgeti(L, folders, ev->wd) == LUA_TNIL) {
        lua_pop(L, 1);
        continue;
      }
      const char *folder = lua_tostring(L, -1);
      lua_pushfstring(L, "%s%s%s", folder, strcmp(folder, "/") ? "/" : "", ev->name);
      report(L, files, seen, res, lua_tostring(L, -1));
      lua_pop(L, 2);
    }
  }
#endif
  lua_settop(L, res);
  return 1;
}

/* watcher:mode(): "inotify" or "poll" */
static int watcher_mode(lua_State *L) {
  lua_pushstring(L, check_watch(L, "mode")->fd >= 0 ? "inotify" : "poll");
  return 1;
}

static int watcher_gc(lua_State *L) {
  lbt_watch *w = lua_touserdata(L, 1);
  if (w->fd >= 0) close(w->fd);
  w->fd = -1;
  return 0;
}

static const luaL_Reg watcher_methods[] = {
    {"add", watcher_add},
    {"poll", watcher_poll},
    {"mode", watcher_mode},
    {NULL, NULL},
};

/* shared.watcher(mode): a new watcher; mode "poll" forces polling, otherwise inotify if it can */
int lbt_watcher_new(lua_State *L) {
  int t = lua_type(L, 1);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TSTRING) return lbt_typeerror(L, 1, 1, "watch", "string or nil");
  const char *mode = t == LUA_TSTRING ? lua_tostring(L, 1) : "auto";
  if (strcmp(mode, "auto") && strcmp(mode, "inotify") && strcmp(mode, "poll"))
    return lbt_argerror(L, 1, "watch",
                        lua_pushfstring(L, "\"auto\", \"inotify\" or \"poll\" expected, got %s", mode));
  lbt_watch *w = lua_newuserdatauv(L, sizeof *w, UV_COUNT);
  w->fd = -1;
  if (luaL_newmetatable(L, WATCH_META)) {
    lua_pushcfunction(L, watcher_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, watcher_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_setmetatable(L, -2);
  for (int uv = 1; uv <= UV_COUNT; uv++) {
    lua_newtable(L);
    lua_setiuservalue(L, -2, uv);
  }
#ifdef __linux__
  if (strcmp(mode, "poll") != 0) w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#endif
  if (w->fd < 0 && strcmp(mode, "inotify") == 0) return luaL_error(L, "inotify is not available here");
  return 1;
}
