/* SPDX-License-Identifier: MIT */
/*
 * bt_test.h: the test kit for brains (libbttest; docs/testing-brains.md), over the public
 * headers of the engine and of recording (bt.h), for C hosts and tools. The engine knows nothing
 * of it. The Lua kit, `require "bt.test"`, is the same kit for scripts; what it cannot do in Lua
 * (coverage reports, comparing logs) it does through this library.
 *
 * Its parts, each a section below:
 * - substitution: a definition like another, with some of its leaves replaced (by path, by name,
 *   or by the leaf function a host gave them) with a fixed result, a run of a given time, or a
 *   function of the test's;
 * - checks over time: what an instance's recorder saw, asked after the run (what ran at a time,
 *   the transitions in order, a node that never ran, sleep times), and a failure's message with
 *   the tree dump and the last transitions;
 * - coverage: per node, from the recorder's statistics (bt_stats): visited, succeeded, failed,
 *   ran, interrupted, as text, lcov or Cobertura;
 * - comparing recorded sessions: the first record where two logs, or a log and a live run, go
 *   different ways, per agent.
 *
 * Every function that can fail returns BT_OK (0) or a negative bt.h code (BT_EINVAL for a bad
 * argument, BT_ENOMEM, BT_EIO for a file), and keeps or writes a message that says why. Nothing
 * aborts or exits.
 */
#ifndef BT_TEST_H
#define BT_TEST_H

#include <stddef.h>

#include "bt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
