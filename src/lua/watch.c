/* SPDX-License-Identifier: MIT */
/*
 * watch.c: the file watcher behind bt.reload.watch. Where the system tells about folders
 * (btp_watch: inotify on Linux) it watches the folders of the watched files (editors often save
 * by renaming a new file over the old one); elsewhere, or when asked to, it compares each file's
 * stamp (modification time and size) at every poll. poll() never blocks.
 */
#include <errno.h>
#include <string.h>

#include "btp.h"
#include "lbt.h"

#define WATCH_META "bt.watcher"

/* user values: files (real path -> the path as given), stamps (real path -> "mtime/size" when
 * polling) */
enum { UV_FILES = 1, UV_STAMPS, UV_COUNT = 2 };

typedef struct lbt_watch {
  btp_watch *sys; /* the system's watcher, or NULL when polling */
} lbt_watch;

static lbt_watch *check_watch(lua_State *L, const char *method) {
  lbt_watch *w = luaL_testudata(L, 1, WATCH_META);
  if (!w) lbt_typeerror(L, 1, 0, method, "watcher");
  return w;
}

/* Pushes "mtime.nsec/size" of path, or nil if it cannot be read. */
static void push_stamp(lua_State *L, const char *path) {
  btp_stamp st;
  if (btp_file_stamp(path, &st) != BT_OK) {
    lua_pushnil(L);
    return;
  }
  lua_pushfstring(L, "%I.%I/%I", (lua_Integer)st.sec, (lua_Integer)st.nsec, (lua_Integer)st.size);
}

/* Returns nil and "cannot watch <what>: <the system's reason>". */
static int cannot_watch(lua_State *L, const char *what, int rc) {
  const char *why = rc == BT_EIO ? strerror(errno) : bt_strerror(rc);
  lua_pushnil(L);
  lua_pushfstring(L, "cannot watch %s: %s", what, why);
  return 2;
}

/* watcher:add(path): watch this file. Returns true, or nil and a message. */
static int watcher_add(lua_State *L) {
  lbt_watch *w = check_watch(L, "add");
  if (lua_type(L, 2) != LUA_TSTRING) return lbt_typeerror(L, 2, 1, "add", "string");
  const char *path = lua_tostring(L, 2);
  char real[BTP_PATH_MAX];
  int rc = btp_path_real(path, real, sizeof real);
  if (rc != BT_OK) return cannot_watch(L, path, rc);
  lua_getiuservalue(L, 1, UV_FILES);
  lua_pushstring(L, path);
  lua_setfield(L, -2, real);
  if (!w->sys) {
    lua_getiuservalue(L, 1, UV_STAMPS);
    push_stamp(L, real);
    lua_setfield(L, -2, real);
    lua_pushboolean(L, 1);
    return 1;
  }
  btp_path_folder(real);
  rc = btp_watch_add(w->sys, real);
  if (rc != BT_OK) return cannot_watch(L, real, rc);
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

/* The tables a poll reads and fills, on the Lua stack. */
typedef struct poll_state {
  lua_State *L;
  int files, seen, res;
} poll_state;

static void report_changed(void *data, const char *real) {
  poll_state *ps = data;
  report(ps->L, ps->files, ps->seen, ps->res, real);
}

/* Reports every watched file whose stamp is not the one kept (which it keeps instead). */
static void poll_stamps(lua_State *L, int files, int seen, int res) {
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
  if (w->sys) {
    poll_state ps = {L, files, seen, res};
    btp_watch_read(w->sys, report_changed, &ps);
  } else {
    poll_stamps(L, files, seen, res);
  }
  lua_settop(L, res);
  return 1;
}

/* watcher:mode(): "inotify" or "poll" */
static int watcher_mode(lua_State *L) {
  lua_pushstring(L, check_watch(L, "mode")->sys ? "inotify" : "poll");
  return 1;
}

static int watcher_gc(lua_State *L) {
  lbt_watch *w = lua_touserdata(L, 1);
  btp_watch_close(w->sys);
  w->sys = NULL;
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
  w->sys = NULL;
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
  if (strcmp(mode, "poll") != 0 && btp_watch_open(&w->sys) != BT_OK && strcmp(mode, "inotify") == 0)
    return luaL_error(L, "inotify is not available here");
  return 1;
}
