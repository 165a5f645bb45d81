/* SPDX-License-Identifier: MIT */
/*
 * records.c: a record of the transition recorder (bt_rec_entry) as the fields of a Lua table,
 * one rule for the recorder's rings (recorder.c) and the log files' readers (logfile.c); each
 * names nodes its own way (a definition's, a log's shape).
 */
#include <stdio.h>

#include "lbt.h"

static const char *const TYPES[] = {"?", "status", "think", "event", "error", "reload", "host", "key"};

const char *lbt_record_type(int type) { return type >= BT_REC_STATUS && type <= BT_REC_KEY ? TYPES[type] : NULL; }

void lbt_push_hash(lua_State *L, unsigned long long hash) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", hash);
  lua_pushstring(L, hex);
}

void lbt_record_fields(lua_State *L, const bt_rec_entry *e, lbt_set_node_fn set_node, const void *shape) {
  switch (e->type) {
    case BT_REC_STATUS:
      set_node(L, shape, e->node);
      lbt_push_status(L, e->from);
      lua_setfield(L, -2, "from");
      lbt_push_status(L, e->to);
      lua_setfield(L, -2, "to");
      break;
    case BT_REC_THINK:
      lua_pushstring(L, bt_wake_name(e->cause));
      lua_setfield(L, -2, "cause");
      if (e->has_sleep) {
        lua_pushnumber(L, e->sleep);
        lua_setfield(L, -2, "sleep");
      }
      break;
    case BT_REC_EVENT: set_node(L, shape, e->node); break;
    case BT_REC_ERROR:
      if (e->node >= 0) set_node(L, shape, e->node);
      lua_pushlstring(L, e->text ? e->text : "", e->size);
      lua_setfield(L, -2, "message");
      break;
    case BT_REC_RELOAD:
      lbt_push_hash(L, e->def_from);
      lua_setfield(L, -2, "from");
      lbt_push_hash(L, e->def_to);
      lua_setfield(L, -2, "to");
      break;
    case BT_REC_HOST:
      lua_pushinteger(L, e->node);
      lua_setfield(L, -2, "code");
      lua_pushlstring(L, e->text ? e->text : "", e->size);
      lua_setfield(L, -2, "data");
      break;
    case BT_REC_KEY:
      lua_pushinteger(L, e->node + 1);
      lua_setfield(L, -2, "key");
      lbt_push_key_value(L, &e->before);
      lua_setfield(L, -2, "old");
      lbt_push_key_value(L, &e->after);
      lua_setfield(L, -2, "new");
      lua_pushboolean(L, e->from);
      lua_setfield(L, -2, "woke");
      break;
    default: break;
  }
}
