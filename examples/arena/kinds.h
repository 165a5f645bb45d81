/* SPDX-License-Identifier: MIT */
/*
 * kinds.h: the creature kinds of the arena, read from a Lua file of the data directory
 * (brains/kinds.lua; its format is in docs/arena.md, "Creature kinds").
 */
#ifndef ARENA_KINDS_H
#define ARENA_KINDS_H

#include <stddef.h>

#include "world.h"

/* Where the kinds file is, relative to the data directory. */
#define KINDS_FILE "brains/kinds.lua"

/* Reads and checks the kinds file `file` (a path relative to data_dir, which names it in
 * messages) into kinds[0 .. *n - 1] (room for KINDS_MAX). The file runs in a Lua state of its own
 * with only the base, string, math and table libraries, bounded in instructions. Returns 0 on
 * success; -1 with a message in err (at most errsize bytes, always terminated) naming the file,
 * its line where known, the kind and the field, for example
 * "brains/kinds.lua:14: kind 'rabbit': field 'walk' must be a number above 0, got "fast"". */
int kinds_load(const char *data_dir, const char *file, kind_info *kinds, int *n, char *err, size_t errsize);

/* The brain module of a kind: its brain path without ".lua", '/' made '.' (brains.sheep). */
void kinds_module(const kind_info *k, char *buf, size_t size);

#endif
