/* SPDX-License-Identifier: MIT */
/* lbt_embedded.h: the module's Lua files (lua/), compiled into it by cmake/embed.cmake. */
#ifndef LBT_EMBEDDED_H
#define LBT_EMBEDDED_H

#include <stddef.h>

typedef struct lbt_embedded_file {
  const char *name;      /* path under lua/, e.g. "class.lua" */
  const char *chunkname; /* "@bt/class.lua", for error messages */
  const char *source;
  size_t size;
} lbt_embedded_file;

/* Terminated by an entry whose name is NULL. Hidden, as lbt.h's names. */
#if defined(__GNUC__) && !defined(_WIN32) /* PE has no hidden names */
__attribute__((visibility("hidden")))
#endif
extern const lbt_embedded_file lbt_embedded_files[];

#endif
