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

/* ---- substitution: a definition like another, with some leaves replaced (subst.c) ----
 *
 *   bt_subst *s;
 *   bt_subst_create(&s);
 *   bt_subst_as fail = {BT_SUBST_RESULT, BT_FAILED, 0, NULL, NULL};
 *   bt_subst_as walk = {BT_SUBST_RUN, BT_SUCCESS, 3, NULL, NULL};
 *   bt_subst_path(s, "Priority/Hungry/Eat", &fail);   the node at that path (bt_def_path)
 *   bt_subst_name(s, "Wander", &walk);                 every node of that name
 *   bt_subst_fn(s, host_attack, &fail);                every node whose function is host_attack
 *   bt_subst_apply(s, def, &copy);                     copy: def with those nodes replaced
 *
 * The copy is a new definition, made from bt_def_spec of every node of def, whose other nodes are
 * def's own (kind, name, parameters, functions, overrides, keys and ports) in the same shape:
 * they think as def's do. A node shared by several parents stays one node, so it is replaced at
 * each of its places. A replaced node keeps its name and its place, so that paths, dumps and logs
 * name it as before; it becomes a leaf of the base kind (the kind whose bt_kind_info.base is
 * -1) with the kit's visit: what was under it is gone from the copy. When several rules match a node, the first one added replaces
 * it. Rules match on def's nodes; a rule that matches none makes bt_subst_apply fail with a
 * message that names it, so that a misspelt path does not pass unnoticed. */

typedef struct bt_subst bt_subst; /* a set of rules; reusable on any number of definitions */

/* What a replaced node does (bt_subst_as.how). */
enum {
  BT_SUBST_RESULT = 1, /* ends every visit with `result` */
  BT_SUBST_RUN = 2,    /* RUNNING for `seconds` from the visit that starts it (sleeping until then),
                          then `result`; the run ends at the first visit at or after its end, to
                          within a nanosecond; a run interrupted (reset) starts again at its next
                          visit; 0 seconds is BT_SUBST_RESULT */
  BT_SUBST_CALL = 3    /* each visit calls fn with the node's bt_call (inst, node, ud, value 0):
                          it returns the status, BT_SUCCESS, BT_FAILED or BT_RUNNING (anything
                          else fails the node); it may call bt_node_sleep on its node while it
                          returns BT_RUNNING */
};

typedef struct bt_subst_as {
  int how;        /* BT_SUBST_RESULT, BT_SUBST_RUN or BT_SUBST_CALL */
  int result;     /* RESULT and RUN: BT_SUCCESS or BT_FAILED */
  double seconds; /* RUN: how long it runs, >= 0 */
  bt_fn fn;       /* CALL: the visit */
  void *ud;       /* CALL: given to fn as call->ud */
} bt_subst_as;

/* Makes an empty set of rules. BT_EINVAL for a NULL out, BT_ENOMEM. */
int bt_subst_create(bt_subst **out);

/* Frees it (NULL is allowed). Definitions it made stay valid: they need nothing of it. */
void bt_subst_free(bt_subst *s);

/* Adds a rule: the node whose path is `path` (bt_def_path: "Priority/Flee/RunAway", "#k" after a
 * name that siblings share), every node named `name`, or every node whose function is fn (its
 * bt_spec.fn: a Condition's, an Action's, ...; or its bt_spec.ops->visit: a C host's behaviour),
 * replaced as `as` says (copied). Returns the rule's number (0 for the first, then 1, ...), or
 * BT_EINVAL (a NULL s, path, name or fn, an empty path or name, a bad `as`: the message says
 * which), BT_ENOMEM. */
int bt_subst_path(bt_subst *s, const char *path, const bt_subst_as *as);
int bt_subst_name(bt_subst *s, const char *name, const bt_subst_as *as);
int bt_subst_fn(bt_subst *s, bt_fn fn, const bt_subst_as *as);

/* Makes *out: def with the rules' nodes replaced, one reference (bt_def_release). BT_EINVAL for
 * a NULL argument, a set without rules, or a rule that matches no node of def ("rule 1 (path
 * 'Priority/Eet') matches no node"); BT_ENOMEM; or what bt_def_create reports. On failure *out
 * is NULL and the message says why. */
int bt_subst_apply(bt_subst *s, const bt_def *def, bt_def **out);

/* How many nodes of the definition the last bt_subst_apply replaced by rule number `rule`
 * (a shared node counts once; a node under one replaced by another rule counts too), or
 * BT_EINVAL for a NULL s or a bad number. */
int bt_subst_matches(const bt_subst *s, int rule);

/* The message of s's last error ("" if none). */
const char *bt_subst_errmsg(const bt_subst *s);

#ifdef __cplusplus
}
#endif

#endif
