/* SPDX-License-Identifier: MIT */
/*
 * tree.c: BT(inst, root) and BT(inst, definition): a tree userdata (an lbt_tree and the agent's
 * bt_inst in one block) for one entity, and the tree methods of Don't Starve's BT. Each method
 * that makes the core act on the instance enters the tree first (lbt_tree_enter).
 */
#include <stddef.h>
#include <string.h>

#include "lbt.h"

#define TREE_META "bt.tree"
#define OWN_FNS_MAX 32768 /* the most functions a tree holds as user values */

/* The options of a tree at opts: nil, a bt.Blackboard, or a table whose field exact, if not nil,
 * says whether the tree is DS-exact (else bt.set_exact's setting does) and whose field board is a
 * bt.Blackboard or nil. Returns whether it is exact; the board replaces the options at opts (nil
 * for none). */
static int read_options(lua_State *L, int opts, int arg, const char *fname) {
  lbt_state *S = lbt_state_get(L);
  if (lua_isnoneornil(L, opts) || lbt_board_test(L, opts)) return S->exact;
  if (!lua_istable(L, opts)) return lbt_typeerror(L, opts, arg, fname, "table, Blackboard or nil");
  int type = lua_getfield(L, opts, "exact");
  int exact = type == LUA_TNIL ? S->exact : lua_toboolean(L, -1);
  lua_getfield(L, opts, "board");
  if (!lua_isnil(L, -1) && !lbt_board_test(L, -1))
    lbt_argerror(L, arg, fname, lua_pushfstring(L, "board: a Blackboard expected, got %s", luaL_typename(L, -1)));
  lua_replace(L, opts);
  lua_pop(L, 1);
  return exact;
}

/* Checks that the board at board (nil: none) is the one the definition at def_idx was compiled
 * with, or declares the same keys. */
static void check_def_board(lua_State *L, int def_idx, int board, int arg, const char *fname) {
  if (lua_isnil(L, board)) return;
  lua_getiuservalue(L, def_idx, LBT_DEF_UV_BOARD);
  const lbt_board *mine = lbt_board_test(L, -1);
  if (!mine || !lbt_board_same(mine, lua_touserdata(L, board)))
    lbt_argerror(L, arg, fname, mine ? "the definition was compiled with another board (its keys differ)"
                                     : "the definition was compiled without a board (give it to bt.define)");
  lua_pop(L, 1);
}

/* Pushes a tree of the definition at def_idx for the entity at inst, for the function fname. */
static int instantiate(lua_State *L, int def_idx, int inst, int exact, const char *fname) {
  def_idx = lua_absindex(L, def_idx);
  inst = lua_absindex(L, inst);
  lbt_def *d = lbt_def_test(L, def_idx);
  if (!d->def) return luaL_error(L, "%s: the definition was garbage collected", fname);
  /* A tree built for one entity holds its functions itself, as user values after its own (Lua
   * gives a userdata fewer than 65,535): its definition keeps none (lbt_push_own_def). */
  lua_getiuservalue(L, def_idx, LBT_DEF_UV_FNS);
  int fns = lua_gettop(L);
  int own = !d->shared && !d->slot_base && lua_rawlen(L, fns) <= OWN_FNS_MAX;
  int nfns = own ? (int)lua_rawlen(L, fns) : 0;
  /* one block: the lbt_tree, the instance, then lbt_tree_slot_base if it runs subtrees */
  size_t inst_size = bt_def_inst_size(d->def);
  size_t bytes = LBT_TREE_HEAD + inst_size + (d->slot_base ? sizeof d->slot_base : 0);
  lbt_tree *t = lua_newuserdatauv(L, bytes, own ? LBT_UV_FNS - 1 + nfns : LBT_UV_FNS);
  int tree = lua_gettop(L);
  memset(t, 0, sizeof *t);
  t->magic = LBT_TREE_MAGIC;
  t->S = lbt_state_get(L);
  t->nown = d->nown;
  t->own_fns = (unsigned)own;
  t->exact = (unsigned)exact;
  t->subtrees = d->slot_base != NULL;
  if (d->slot_base) /* lbt_tree_slot_base */
    memcpy((char *)t + LBT_TREE_HEAD + inst_size, &d->slot_base, sizeof d->slot_base);
  /* which Priorities draw their first evaluation time is in their specs (classes.c) */
  int seeded = t->S->seed_ref != LUA_NOREF;
  unsigned flags = (exact ? BT_INST_EXACT : 0) | (seeded ? BT_INST_NOSCATTER : 0);
  bt_inst *in;
  if (bt_inst_init(&in, (char *)t + LBT_TREE_HEAD, d->def, &t->S->host, t, flags) != BT_OK)
    return luaL_error(L, "not enough memory");
  luaL_setmetatable(L, TREE_META);
  if (seeded) { /* bt.seed_trees: its own stream, seeded by the entity, then its first draws */
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->S->seed_ref);
    lua_pushvalue(L, inst);
    lua_call(L, 1, 1);
    int isint = 0;
    lua_Integer seed = lua_tointegerx(L, -1, &isint);
    if (!isint) return luaL_error(L, "bt.seed_trees: the seed function returned a %s (an integer expected)",
                                  luaL_typename(L, -1));
    lua_pop(L, 1);
    bt_inst_seed(lbt_tree_inst(t), (unsigned long long)seed);
    bt_inst_scatter(lbt_tree_inst(t));
    t->stream = lbt_stream_seed((unsigned long long)seed);
  }
  if (own) {
    for (int i = 1; i <= nfns; i++) {
      lua_rawgeti(L, fns, i);
      lua_setiuservalue(L, tree, LBT_UV_FNS - 1 + i);
    }
  } else {
    lua_pushvalue(L, fns);
    lua_setiuservalue(L, tree, LBT_UV_FNS);
  }
  lua_pushvalue(L, inst);
  lua_setiuservalue(L, tree, LBT_UV_INST);
  lua_pushvalue(L, def_idx);
  lua_setiuservalue(L, tree, LBT_UV_DEF);
  if (bt_def_key_count(d->def) > 0) { /* its board, which its leaves get (board.c) */
    lua_getiuservalue(L, def_idx, LBT_DEF_UV_BOARD);
    lbt_board_attach(L, t, tree, -1);
    lua_pop(L, 1);
  }
  /* a tree built for one entity: its objects become views of their state in the instance */
  if (!d->shared) lbt_adopt_objects(L, t, tree, def_idx, d);
  lbt_events_bind(L, t, tree, inst, d->shared || d->slot_base);
  if (!d->shared && !d->slot_base) { /* it keeps the one definition of its shape */
    lbt_push_own_def(L, def_idx);
    lua_setiuservalue(L, tree, LBT_UV_DEF);
  }
  lua_settop(L, tree);
  return 1;
}

/* definition:instantiate(inst[, options]): the same as BT(inst, definition[, options]) */
static int def_instantiate(lua_State *L) {
  if (!lbt_def_test(L, 1)) return lbt_typeerror(L, 1, 0, "instantiate", "definition");
  lua_settop(L, 3);
  int exact = read_options(L, 3, 2, "instantiate");
  check_def_board(L, 1, 3, 2, "instantiate");
  return instantiate(L, 1, 2, exact, "instantiate");
}

/* BT(inst, root or definition[, board or options]): called through the BT table's __call, so the
 * table is argument 1 */
static int tree_new(lua_State *L) {
  lua_settop(L, 4);
  int exact = read_options(L, 4, 3, "BT");
  if (lbt_def_test(L, 3)) {
    check_def_board(L, 3, 4, 3, "BT");
    return instantiate(L, 3, 2, exact, "BT");
  }
  if (!lbt_is_node(L, 3)) return lbt_typeerror(L, 3, 2, "BT", "node or definition");
  lbt_compile(L, 3, 0, "BT", NULL, lua_isnil(L, 4) ? 0 : 4);
  return instantiate(L, -1, 2, exact, "BT");
}

/* ---- a tree whose children lists changed (docs/lua-api.md, "Live children lists") ----
 * A node's children list is live, as in Don't Starve. objects.c watches the lists and marks the
 * tree whose list a script wrote; the tree's next call (check_tree, own_tree) compares
 * its lists with its definition, and if one changed builds the tree anew from its root's object:
 * a new definition and instance, into which every node that stays (the same object) carries its
 * state as it was (bt_inst_carry). The old userdata then stands for the new tree
 * (lbt_tree.forwarded), so that a brain's `bt`, and every reference a script holds, is the new
 * tree. A node that left is not stopped, as Don't Starve stops none: it stays bound to the old
 * instance, which keeps its state as it was, and leaves it when a tree takes it in again
 * (lbt_release_stale). */

/* Whether the children list of the node object at obj, node `node` of the tree at tree, differs
 * from the definition's children of that node. A list that is no table is no change. */
static int list_differs(lua_State *L, lbt_tree *t, int obj, int node) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  if (lbt_push_children(L, obj) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  int list = lua_gettop(L), n = bt_def_child_count(def, node);
  int differs = (int)lua_rawlen(L, list) != n;
  for (int i = 0; !differs && i < n; i++) {
    lua_rawgeti(L, list, i + 1);
    int cn;
    differs = lbt_node_tree(L, -1, &cn) != t ||
              bt_def_state(def, cn) != bt_def_state(def, bt_def_child(def, node, i));
    lua_pop(L, 1);
  }
  lua_settop(L, list - 1);
  return differs;
}

/* The children list of a shared definition's node (an entity's copy) was edited: the error goes to
 * the error handler, and the list becomes the definition's again. */
static void refuse_shared_edit(lua_State *L, lbt_tree *t, int tree, int obj, int node) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  lua_pushfstring(L, "BT: node '%s' belongs to a shared definition (bt.define): its children cannot change "
                     "(the edit is undone)", bt_def_name(def, node));
  lbt_report(t->S, L, lbt_tree_inst(t), node, lua_tostring(L, -1));
  lua_pop(L, 1);
  int n = bt_def_child_count(def, node);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lbt_push_state_obj(L, t, tree, bt_def_state(def, bt_def_child(def, node, i)));
    lua_rawseti(L, -2, i + 1);
  }
  lua_rawsetp(L, obj, &lbt_key_children);
  lbt_children_watch(L, obj);
}

/* Whether an own node's children list of the tree at tree differs from its definition; the
 * lists of a shared definition's nodes that were edited are put back (refuse_shared_edit). */
static int lists_changed(lua_State *L, lbt_tree *t, int tree) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int changed = 0;
  for (int s = 0; s < bt_def_states(def); s++) {
    int node = bt_def_node_of_state(def, s);
    if (bt_kind_has(bt_def_kind(def, node), BT_KIND_INCLUDES) || !lbt_push_existing_obj(L, t, tree, s))
      continue;
    int obj = lua_gettop(L);
    if (list_differs(L, t, obj, node)) {
      if (lbt_is_template_state(t, s)) refuse_shared_edit(L, t, tree, obj, node);
      else changed = 1;
    }
    lua_settop(L, obj - 1);
  }
  return changed;
}

/* The nodes of node's subtree, itself included (they follow it in pre-order). */
static int subtree_size(const bt_def *def, int node) {
  int size = 1;
  for (int i = 0; i < bt_def_child_count(def, node); i++) size += subtree_size(def, bt_def_child(def, node, i));
  return size;
}

/* (root, inst, exact, old, fns, od, others, nfns, board): BT(inst, root) of a tree being rebuilt
 * (lbt_compile_again), protected: the new tree */
static int build_protected(lua_State *L) {
  lbt_compile_again(L, 1, 4, lua_touserdata(L, 6), 5, lua_tointeger(L, 8), 7, lua_isnil(L, 9) ? 0 : 9);
  return instantiate(L, lua_gettop(L), 2, lua_toboolean(L, 3), "BT");
}

/* Appends the functions of the tree t (at tree), by slot, to the table at fns after its *n slots,
 * and counts them in *n (a tree built for one entity holds them as user values, lbt_tree.own_fns). */
static void append_functions(lua_State *L, lbt_tree *t, int tree, int fns, lua_Integer *count) {
  lua_Integer n = *count;
  if (!t->own_fns) {
    lua_getiuservalue(L, tree, LBT_UV_FNS);
    for (lua_Integer i = 1, m = (lua_Integer)lua_rawlen(L, -1); i <= m; i++) {
      lua_rawgeti(L, -1, i);
      lua_rawseti(L, fns, ++n);
    }
  } else {
    for (int i = 1; lua_getiuservalue(L, tree, LBT_UV_FNS - 1 + i) != LUA_TNONE; i++) lua_rawseti(L, fns, ++n);
  }
  lua_pop(L, 1);
  *count = n;
}

/* The table object -> {definition, node, offset} that lbt_compile_again reads the nodes taken in
 * again (stale: object -> {tree, node}) from, their trees' functions appended to fns. */
static void push_others(lua_State *L, int stale, int fns, lua_Integer *nfns) {
  lua_newtable(L);
  int others = lua_gettop(L);
  lua_newtable(L); /* tree -> the offset of its functions */
  int offsets = others + 1;
  lua_pushnil(L);
  while (lua_next(L, stale)) { /* -2: an object, -1: {tree, node} */
    lua_rawgeti(L, -1, 1);
    int from = lua_gettop(L);
    lua_pushvalue(L, from);
    if (lua_rawget(L, offsets) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_pushinteger(L, *nfns);
      lua_pushvalue(L, from);
      lua_pushvalue(L, -2);
      lua_rawset(L, offsets);
      append_functions(L, lbt_tree_raw(L, from), from, fns, nfns);
    }
    lua_Integer offset = lua_tointeger(L, -1);
    lua_createtable(L, 3, 0);
    lua_pushlightuserdata(L, (void *)bt_inst_def(lbt_tree_inst(lbt_tree_raw(L, from))));
    lua_rawseti(L, -2, 1);
    lua_rawgeti(L, from - 1, 2);
    lua_rawseti(L, -2, 2);
    lua_pushinteger(L, offset);
    lua_rawseti(L, -2, 3);
    lua_pushvalue(L, from - 2);
    lua_insert(L, -2);
    lua_rawset(L, others);
    lua_settop(L, from - 2); /* the object: the key */
  }
  lua_settop(L, others);
}

/* The map of the new tree's states to the old one's: the same object, the same state; a subtree
 * run in the same place, its nodes in their order. old: object -> its node in the old tree. */
static void map_states(lua_State *L, const bt_def *od, lbt_tree *nt, int old, int *map) {
  const bt_def *nd = bt_inst_def(lbt_tree_inst(nt));
  for (int s = 0; s < bt_def_states(nd); s++) map[s] = -1;
  lua_pushnil(L);
  while (lua_next(L, old)) {
    int nn;
    if (lbt_node_tree(L, -2, &nn) == nt) {
      int ns = bt_def_state(nd, nn), on = (int)lua_tointeger(L, -1);
      if (map[ns] < 0) map[ns] = bt_def_state(od, on);
      if (bt_kind_has(bt_def_kind(nd, nn), BT_KIND_INCLUDES) &&
          bt_kind_has(bt_def_kind(od, on), BT_KIND_INCLUDES) && subtree_size(nd, nn) == subtree_size(od, on))
        for (int k = 1; k < subtree_size(nd, nn); k++)
          map[bt_def_state(nd, nn + k)] = bt_def_state(od, on + k);
    }
    lua_pop(L, 1);
  }
}

/* The objects of old (object -> node) bound to the tree at tree again, or to none (tree 0). */
static void bind_all(lua_State *L, int old, int tree) {
  lua_pushnil(L);
  while (lua_next(L, old)) { /* -2: the object, -1: its node */
    if (!tree) {
      lua_pop(L, 1);
      lua_pushnil(L);
    }
    lua_rawsetp(L, -2, &lbt_key_node);
    if (tree) lua_pushvalue(L, tree);
    else lua_pushnil(L);
    lua_rawsetp(L, -2, &lbt_key_tree);
  }
}

/* Carries the state of the tree t (at tree) into nt (at neu) where map (nt's states to t's)
 * matches them, as it is, with the nodes' Lua data. Returns bt_inst_carry's code. */
static int carry_from(lua_State *L, lbt_tree *t, int tree, lbt_tree *nt, int neu, const int *map) {
  bt_inst *ni = lbt_tree_inst(nt);
  int nstates = bt_def_states(bt_inst_def(ni));
  int rc = bt_inst_carry(ni, lbt_tree_inst(t), map, NULL);
  lbt_tree_table(L, tree, LBT_UV_OBJS, 0); /* the nodes' Lua data: an event's data, a task's object */
  int oobjs = lua_gettop(L);
  if (lua_istable(L, oobjs)) {
    lbt_tree_table(L, neu, LBT_UV_OBJS, 1);
    for (int s = 0; s < nstates; s++) {
      if (map[s] < 0) continue;
      lua_rawgeti(L, oobjs, lbt_data_key(map[s]));
      lua_rawseti(L, -2, lbt_data_key(s));
    }
  }
  lua_settop(L, oobjs - 1);
  return rc;
}

/* The nodes a script had taken out of the tree before (bound to a tree rebuilt since), listed in
 * stale as {tree, node} by object, carry their state from that tree into the new one nt (at neu),
 * as it is. map: room for nt's states. Returns a BT_E* code of bt_inst_carry, or BT_OK. */
static int carry_stale(lua_State *L, lbt_tree *nt, int neu, int stale, int *map) {
  const bt_def *nd = bt_inst_def(lbt_tree_inst(nt));
  int rc = BT_OK;
  for (;;) { /* one old tree at a time: the first left in stale */
    lua_pushnil(L);
    if (!lua_next(L, stale)) break;
    lua_rawgeti(L, -1, 1);
    int from = lua_gettop(L);
    lbt_tree *ft = lbt_tree_raw(L, from);
    const bt_def *fd = bt_inst_def(lbt_tree_inst(ft));
    for (int s = 0; s < bt_def_states(nd); s++) map[s] = -1;
    lua_pushnil(L);
    while (lua_next(L, stale)) { /* -2: an object, -1: {tree, node} */
      lua_rawgeti(L, -1, 1);
      int nn, same = lua_rawequal(L, -1, from);
      lua_pop(L, 1);
      if (same && lbt_node_tree(L, -2, &nn) == nt) {
        lua_rawgeti(L, -1, 2);
        map[bt_def_state(nd, nn)] = bt_def_state(fd, (int)lua_tointeger(L, -1));
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      if (same) { /* done with: off the list (a removal during lua_next is allowed) */
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, stale);
      }
    }
    int r = carry_from(L, ft, from, nt, neu, map);
    if (r != BT_OK) rc = r;
    lua_settop(L, from - 3);
  }
  return rc;
}

void lbt_tree_move_hook(lua_State *L, int from, int to) {
  from = lua_absindex(L, from);
  to = lua_absindex(L, to);
  lbt_tree *a = lbt_tree_raw(L, from), *b = lbt_tree_raw(L, to);
  if (!a || !b || a->collected || b->collected) return;
  bt_inst *was = lbt_tree_inst(a);
  if (!bt_inst_hook(was, NULL) || bt_inst_move_hook(lbt_tree_inst(b), was) != BT_OK) return;
  lua_getiuservalue(L, from, LBT_UV_HOOK);
  lua_setiuservalue(L, to, LBT_UV_HOOK);
  lua_pushnil(L);
  lua_setiuservalue(L, from, LBT_UV_HOOK);
}

/* The state the old tree t (at tree) leaves to the new one nt (at neu), as it is, its hook (a
 * recorder) and random streams; then t forwards to nt, which takes its place at tree. */
static void carry_over(lua_State *L, lbt_tree *t, int tree, lbt_tree *nt, int neu, const int *map) {
  bt_inst *oi = lbt_tree_inst(t), *ni = lbt_tree_inst(nt);
  lbt_tree_move_hook(L, tree, neu);
  int rc = carry_from(L, t, tree, nt, neu, map);
  lbt_board_move(L, tree, neu); /* the same board: its values came with the state */
  unsigned long long x;
  if (bt_inst_random_state(oi, &x) == BT_OK) bt_inst_set_random_state(ni, x);
  nt->stream = t->stream;
  t->forwarded = 1; /* its instance stays, for the nodes taken out, until it is collected */
  lua_pushnil(L);
  lua_setiuservalue(L, tree, LBT_UV_EVENTS);
  lbt_registry_get(L, LBT_REG_REBUILT);
  lua_pushvalue(L, tree);
  lua_pushvalue(L, neu);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_pushvalue(L, neu);
  lua_replace(L, tree);
  if (rc != BT_OK) lbt_report(nt->S, L, ni, -1, "BT: not enough memory to carry the state of a tree whose children changed");
}

/* The object at obj, node `node` of t (at tree), reads its parent from the tree (a view): the
 * compiler, which reads a plain field, gets it as one meanwhile, listed in noted for
 * unnote_parents to take away, so that a node keeps its parent through an edit as Don't Starve's
 * keeps its field. */
static void note_parent(lua_State *L, lbt_tree *t, int tree, int obj, int node, int noted) {
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int p = bt_def_parent(def, bt_def_state(def, node));
  if (p < 0) return;
  lua_pushliteral(L, "parent");
  int own = lua_rawget(L, obj) != LUA_TNIL; /* a script's */
  lua_pop(L, 1);
  if (own) return;
  lua_pushliteral(L, "parent");
  lbt_push_state_obj(L, t, tree, p);
  lua_rawset(L, obj);
  lua_pushvalue(L, obj);
  lua_rawseti(L, noted, (lua_Integer)lua_rawlen(L, noted) + 1);
}

/* Takes away the parents note_parent gave, from the objects that the tree nt reads them from: an
 * object whose parent is out of nt keeps it (lbt_tree.strays). */
static void unnote_parents(lua_State *L, int noted, lbt_tree *nt) {
  const bt_def *nd = nt ? bt_inst_def(lbt_tree_inst(nt)) : NULL;
  for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, noted); i <= n; i++) {
    lua_rawgeti(L, noted, i);
    int node;
    if (nt && lbt_node_tree(L, -1, &node) == nt && bt_def_parent(nd, bt_def_state(nd, node)) < 0) {
      nt->strays = 1;
    } else {
      lua_pushliteral(L, "parent");
      lua_pushnil(L);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
  }
}

/* Pushes the object of state s of the old tree t (at tree): the one in the new tree nt (at neu) if
 * the state went there (inverse: t's states to nt's), else the old tree's. */
static void push_now(lua_State *L, lbt_tree *t, int tree, lbt_tree *nt, int neu, const int *inverse, int s) {
  if (inverse[s] >= 0) lbt_push_state_obj(L, nt, neu, inverse[s]);
  else lbt_push_state_obj(L, t, tree, s);
}

/* A node that listens for events (BT_KIND_LISTENS) taken out keeps listening, as Don't Starve's
 * does: an event then resets its child if it runs, and clears the clock of the periodic nodes
 * above it, by its fields (classes.c, fire).
 * Its parent and children become plain fields holding the objects they are now: those in the new
 * tree nt (at neu) for the nodes that stay. map: nt's states to t's. */
static void keep_event_relatives(lua_State *L, lbt_tree *t, int tree, lbt_tree *nt, int neu, const int *map) {
  const bt_def *od = bt_inst_def(lbt_tree_inst(t)), *nd = bt_inst_def(lbt_tree_inst(nt));
  int *inverse = NULL;
  for (int s = 0; s < bt_def_states(od); s++) {
    int node = bt_def_node_of_state(od, s);
    if (!bt_kind_has(bt_def_kind(od, node), BT_KIND_LISTENS)) continue;
    if (!inverse) {
      inverse = lua_newuserdatauv(L, (size_t)bt_def_states(od) * sizeof *inverse, 0);
      for (int k = 0; k < bt_def_states(od); k++) inverse[k] = -1;
      for (int ns = 0; ns < bt_def_states(nd); ns++)
        if (map[ns] >= 0) inverse[map[ns]] = ns;
    }
    if (inverse[s] >= 0 || !lbt_push_existing_obj(L, t, tree, s)) continue;
    int obj = lua_gettop(L), p = bt_def_parent(od, s);
    lua_pushliteral(L, "parent");
    if (p >= 0 && lua_rawget(L, obj) == LUA_TNIL) {
      lua_pushliteral(L, "parent");
      push_now(L, t, tree, nt, neu, inverse, p);
      lua_rawset(L, obj);
    }
    lua_settop(L, obj);
    if (lbt_push_children(L, obj) == LUA_TNIL) {
      int n = bt_def_child_count(od, node);
      lua_createtable(L, n, 0);
      for (int i = 0; i < n; i++) {
        push_now(L, t, tree, nt, neu, inverse, bt_def_state(od, bt_def_child(od, node, i)));
        lua_rawseti(L, -2, i + 1);
      }
      lua_rawsetp(L, obj, &lbt_key_children);
    }
    lua_settop(L, obj - 1);
  }
  if (inverse) lua_pop(L, 1);
}

/* Builds the tree at tree anew from its root's object (rebuild's work; see above). Returns the
 * tree at tree then. What is wrong with the edited lists (a child that is no node, a cycle, a
 * node of another tree) goes to the error handler, and the tree goes on as it was. */
static lbt_tree *rebuild(lua_State *L, lbt_tree *t, int tree) {
  const bt_def *od = bt_inst_def(lbt_tree_inst(t));
  int top = lua_gettop(L);
  luaL_checkstack(L, 16, "bt: no room on the Lua stack");
  lua_newtable(L); /* object -> its node in the old tree */
  int old = top + 1;
  lua_newtable(L); /* the objects given their parent as a field (note_parent) */
  int noted = old + 1;
  lua_newtable(L); /* object -> {tree, node}: the nodes taken out before (carry_stale) */
  int stale = noted + 1;
  lbt_push_state_obj(L, t, tree, 0);
  int root = stale + 1;
  /* Every object the compiler will read, from the root down its lists as they are now (an edited
   * list may hold new objects, and old ones elsewhere): the old tree's get their node noted, and
   * a list made from the definition where the object holds none (made anew, a view), since the
   * compiler reads a node's children from its list. */
  lua_newtable(L); /* the objects to visit, in order */
  int queue = root + 1;
  lua_pushvalue(L, root);
  lua_rawseti(L, queue, 1);
  lua_newtable(L); /* visited */
  int seen = queue + 1;
  for (lua_Integer head = 1; head <= (lua_Integer)lua_rawlen(L, queue); head++) {
    lua_rawgeti(L, queue, head);
    int obj = lua_gettop(L);
    lua_pushvalue(L, obj);
    if (lua_type(L, obj) != LUA_TTABLE || lua_rawget(L, seen) != LUA_TNIL) {
      lua_settop(L, seen);
      continue;
    }
    lua_pushvalue(L, obj);
    lua_pushboolean(L, 1);
    lua_rawset(L, seen);
    int was;
    if (lbt_release_stale(L, obj, &was)) { /* taken out before, and in again */
      lua_createtable(L, 2, 0);
      lua_insert(L, -2);
      lua_rawseti(L, -2, 1);
      lua_pushinteger(L, was);
      lua_rawseti(L, -2, 2);
      lua_pushvalue(L, obj);
      lua_insert(L, -2);
      lua_rawset(L, stale);
    }
    int node;
    int mine = lbt_node_tree(L, obj, &node) == t;
    if (mine) {
      lua_pushvalue(L, obj);
      lua_pushinteger(L, node);
      lua_rawset(L, old);
      note_parent(L, t, tree, obj, node, noted);
    }
    if (lbt_push_children(L, obj) != LUA_TTABLE) {
      lua_pop(L, 1);
      int lib = bt_kind_has(bt_def_kind(od, node), BT_KIND_INCLUDES); /* its child is a library's */
      int n = mine && !lib ? bt_def_child_count(od, node) : 0;
      if (n == 0) {
        lua_settop(L, seen);
        continue;
      }
      lua_createtable(L, n, 0);
      for (int i = 0; i < n; i++) {
        lbt_push_state_obj(L, t, tree, bt_def_state(od, bt_def_child(od, node, i)));
        lua_rawseti(L, -2, i + 1);
      }
      lua_pushvalue(L, -1);
      lua_rawsetp(L, obj, &lbt_key_children);
    }
    for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, -1); i <= n; i++) {
      lua_rawgeti(L, -1, i);
      lua_rawseti(L, queue, (lua_Integer)lua_rawlen(L, queue) + 1);
    }
    lua_settop(L, seen);
  }
  lua_settop(L, root);
  bind_all(L, old, 0); /* so that the compiler takes them as the root's own */
  lua_pushcfunction(L, build_protected);
  lua_pushvalue(L, root);
  lua_getiuservalue(L, tree, LBT_UV_INST);
  lua_pushboolean(L, t->exact);
  lua_pushvalue(L, old);
  lua_newtable(L); /* the functions: the old tree's by slot, then those of the nodes taken in again */
  lua_Integer nfns = 0;
  append_functions(L, t, tree, lua_gettop(L), &nfns);
  lua_pushlightuserdata(L, (void *)od);
  push_others(L, stale, lua_gettop(L) - 1, &nfns);
  lua_pushinteger(L, nfns);
  lua_getiuservalue(L, tree, LBT_UV_DEF); /* its keys, declared again */
  lua_getiuservalue(L, -1, LBT_DEF_UV_BOARD);
  lua_remove(L, -2);
  if (lua_pcall(L, 9, 1, 0) != LUA_OK) {
    unnote_parents(L, noted, NULL);
    bind_all(L, old, tree);
    lua_pushfstring(L, "%s (the edit of the tree's children lists is not taken: the tree goes on as it was)",
                    lua_tostring(L, -1));
    lbt_report(t->S, L, lbt_tree_inst(t), -1, lua_tostring(L, -1));
    lua_settop(L, top);
    return t;
  }
  int neu = lua_gettop(L);
  lbt_tree *nt = lbt_tree_raw(L, neu);
  int *map = lua_newuserdatauv(L, (size_t)(bt_def_states(bt_inst_def(lbt_tree_inst(nt))) + 1) * sizeof *map, 0);
  map_states(L, od, nt, old, map);
  unnote_parents(L, noted, nt);
  int rc = carry_stale(L, nt, neu, stale, lua_newuserdatauv(L, lua_rawlen(L, -1), 0));
  keep_event_relatives(L, t, tree, nt, neu, map);
  carry_over(L, t, tree, nt, neu, map);
  if (rc != BT_OK) lbt_report(nt->S, L, lbt_tree_inst(nt), -1, "BT: not enough memory to carry the state of a node taken in again");
  lua_settop(L, top);
  return nt;
}

/* The tree t at tree, or, if a script may have edited its children lists and they changed, the
 * tree it was built into (at tree from then on). Never inside the tree's think. */
static lbt_tree *refresh(lua_State *L, lbt_tree *t, int tree) {
  if (!t->edited || t->collected || t->entry || bt_inst_thinking(lbt_tree_inst(t))) return t;
  t->edited = 0;
  tree = lua_absindex(L, tree);
  int top = lua_gettop(L);
  int changed = lists_changed(L, t, tree);
  lua_settop(L, top);
  return changed ? rebuild(L, t, tree) : t;
}

/* A module-wide switch: bt.set_exact(on), whether trees built from now on are DS-exact, and node
 * constructors give nodes Don't Starve's id and nextupdatetick; bt.set_where(on), whether node
 * constructors note where they were called for every node (coverage). Its upvalue is the flag's
 * offset in the lbt_state; returns the previous setting. */
static int set_switch(lua_State *L) {
  int *flag = (int *)((char *)lbt_state_get(L) + lua_tointeger(L, lua_upvalueindex(1)));
  luaL_checkany(L, 1);
  lua_pushboolean(L, *flag);
  *flag = lua_toboolean(L, 1);
  return 1;
}


/* ---- tree methods ---- */

static lbt_tree *check_tree(lua_State *L, const char *method) {
  lbt_tree *t = lbt_tree_test(L, 1);
  if (!t) lbt_typeerror(L, 1, 0, method, "BT");
  if (t->collected) luaL_error(L, "%s: the tree was garbage collected", method);
  return t->edited ? refresh(L, t, 1) : t;
}

/* Enters the tree at index tree for a method. Called by a script's Lua code that the tree runs
 * (its islands are live), the statuses of the live islands move into the instance meanwhile;
 * returns what leave takes. */
static int enter_at(lua_State *L, lbt_tree *t, int tree, lbt_entry *entry) {
  lbt_tree_enter(L, t, tree, entry);
  return lbt_live_unflushed(t) ? lbt_live_flush(t) : -1;
}

/* enter_at for the tree at index 1, a method's self */
static int enter(lua_State *L, lbt_tree *t, lbt_entry *entry) { return enter_at(L, t, 1, entry); }

static void leave(lua_State *L, lbt_tree *t, int flushed) {
  if (flushed >= 0) lbt_live_refresh(t, flushed);
  lbt_tree_leave(L, t);
}

/* A think of the entered tree t, which is not thinking. (A recorder gets the think's record, with
 * its sleep time, inside bt_inst_update: the tree is entered then.) */
static void think_entered(lbt_tree *t) {
  lbt_state *S = t->S;
  int group = lbt_time_group_begin(S, !t->exact);
  S->thinking++;
  bt_inst_update(lbt_tree_inst(t)); /* (an entered tree is not collected: tree_gc) */
  S->thinking--;
  lbt_time_group_end(S, group);
}

/* think_entered for the tree at index 1, t. */
static void think(lua_State *L, lbt_tree *t) {
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  think_entered(t);
  leave(L, t, flushed);
  lbt_run_deferred(L, t->S); /* a reload asked for during the think */
}

static int tree_update(lua_State *L) {
  lbt_tree *t = check_tree(L, "Update");
  if (bt_inst_thinking(lbt_tree_inst(t)))
    return luaL_error(L, "Update: the tree is thinking (Update called from inside its own think)");
  think(L, t);
  return 0;
}

static int tree_force_update(lua_State *L) {
  bt_inst_force_update(lbt_tree_inst(check_tree(L, "ForceUpdate")));
  return 0;
}

/* The sleep time of the entered tree t: 1 and *out, or 0 for none. */
static int sleep_after(lbt_tree *t, double *out) {
  int group = lbt_time_group_begin(t->S, !t->exact);
  int has = bt_inst_sleep_time(lbt_tree_inst(t), out);
  lbt_time_group_end(t->S, group);
  return has;
}

/* The sleep time of the tree at index 1, t: 1 and *out, or 0 for none. */
static int sleep_time(lua_State *L, lbt_tree *t, double *out) {
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  int has = sleep_after(t, out);
  leave(L, t, flushed);
  return has;
}

static int tree_get_sleep_time(lua_State *L) {
  lbt_tree *t = check_tree(L, "GetSleepTime");
  double v;
  if (sleep_time(L, t, &v)) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

/* The tree at index tree if it is one whose BT methods Update and GetSleepTime are still bt's
 * own, else NULL. */
static lbt_tree *own_tree(lua_State *L, int tree) {
  lbt_tree *t = lbt_tree_test(L, tree);
  if (!t || t->collected) return NULL;
  if (t->edited) t = refresh(L, t, tree);
  const lbt_state *S = t->S;
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->bt_ref);
  lbt_push_key(L, S, LBT_KEY_UPDATE);
  lua_rawget(L, -2);
  lbt_push_key(L, S, LBT_SLEEP_TIME);
  lua_rawget(L, -3);
  int own = lua_tocfunction(L, -2) == tree_update && lua_tocfunction(L, -1) == tree_get_sleep_time;
  lua_pop(L, 3);
  return own ? t : NULL;
}

int lbt_tree_think_own(lua_State *L, int tree, int brain, double *sleep) {
  tree = lua_absindex(L, tree);
  brain = lua_absindex(L, brain);
  lbt_tree *t = own_tree(L, tree);
  if (!t || bt_inst_thinking(lbt_tree_inst(t))) return LBT_NOT_OWN;
  lbt_state *S = t->S;
  lbt_entry entry;
  int flushed = enter_at(L, t, tree, &entry);
  int has = LBT_SLEEP_UNKNOWN;
  think_entered(t);
  if ((!S->deferred || S->thinking > 0) && lua_type(L, brain) == LUA_TTABLE) {
    /* no reload waits to run now, and the brain's tree is read without running any code */
    lbt_push_key(L, S, LBT_KEY_BT);
    int same = lua_rawget(L, brain) == LUA_TUSERDATA && lbt_tree_test(L, -1) == t;
    lua_pop(L, 1);
    if (same) has = sleep_after(t, sleep); /* (else the brain has another tree now) */
  }
  leave(L, t, flushed);
  lbt_run_deferred(L, S); /* a reload asked for during the think */
  return has;
}

int lbt_tree_sleep_own(lua_State *L, int tree, double *sleep) {
  tree = lua_absindex(L, tree);
  lbt_tree *t = own_tree(L, tree);
  if (!t) return LBT_SLEEP_UNKNOWN;
  lbt_entry entry;
  int flushed = enter_at(L, t, tree, &entry);
  int has = sleep_after(t, sleep);
  leave(L, t, flushed);
  return has;
}

static int tree_reset(lua_State *L) {
  lbt_tree *t = check_tree(L, "Reset");
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  bt_inst_reset(lbt_tree_inst(t));
  leave(L, t, flushed);
  return 0;
}

static int tree_stop(lua_State *L) {
  lbt_tree *t = check_tree(L, "Stop");
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  bt_inst_stop(lbt_tree_inst(t));
  leave(L, t, flushed);
  return 0;
}

static int tree_tostring(lua_State *L) {
  lbt_tree *t = check_tree(L, "__tostring");
  lbt_entry entry;
  bt_buf buf = {0};
  int flushed = enter(L, t, &entry);
  int group = lbt_time_group_begin(t->S, !t->exact);
  bt_inst_dump(lbt_tree_inst(t), &buf);
  lbt_time_group_end(t->S, group);
  leave(L, t, flushed);
  return lbt_push_buf(L, &buf);
}

/* tree:dot(): the tree with its statuses as a Graphviz DOT graph (bt_inst_dot) */
static int tree_dot(lua_State *L) {
  lbt_tree *t = check_tree(L, "dot");
  lbt_entry entry;
  bt_buf buf = {0};
  int flushed = enter(L, t, &entry);
  bt_inst_dot(lbt_tree_inst(t), &buf);
  leave(L, t, flushed);
  return lbt_push_buf(L, &buf);
}

/* What tree:snapshot() reads of a node inside the tree: its tree sleep time and where its
 * dbstring lies in the text of all of them. */
typedef struct snap_node {
  size_t start, end; /* its dbstring: text[start .. end) */
  double sleep;
  int has_sleep;
} snap_node;

/* A node's ports into the table on top, as arrays of key names: reads, writes (none: no field). */
static void push_ports(lua_State *L, const bt_def *def, int node) {
  static const char *const fields[2] = {"reads", "writes"};
  static const unsigned hows[2] = {BT_PORT_READ, BT_PORT_WRITE};
  int count = bt_def_port_count(def, node);
  for (int f = 0; f < 2; f++) {
    int k = 0, key;
    unsigned how;
    for (int i = 0; i < count; i++) {
      if (bt_def_port(def, node, i, &key, &how) != BT_OK || !(how & hows[f])) continue;
      if (k == 0) lua_createtable(L, count, 0);
      lua_pushstring(L, bt_def_key_name(def, key));
      lua_rawseti(L, -2, ++k);
    }
    if (k) lua_setfield(L, -2, fields[f]);
  }
}

/* tree:snapshot(): every node in pre-order, {depth, name, status, last[, dbstring][, sleep]
 * [, reads][, writes]}: what the dump shows of it, as fields, and the keys it reads and writes. A node's dbstring is read as the dump reads it (only while
 * the node runs; a node written in Lua has its DBString called) and sleep is its tree sleep time;
 * both inside the tree, the tables are made after. */
static int tree_snapshot(lua_State *L) {
  lbt_tree *t = check_tree(L, "snapshot");
  const bt_def *def = bt_inst_def(lbt_tree_inst(t));
  int n = bt_def_size(def);
  snap_node *s = lua_newuserdatauv(L, (size_t)n * sizeof *s + 1, 0); /* before entering: may raise */
  bt_buf buf = {0};
  lbt_entry entry;
  int flushed = enter(L, t, &entry);
  int group = lbt_time_group_begin(t->S, !t->exact);
  bt_inst *in = lbt_tree_inst(t);
  for (int i = 0; i < n; i++) {
    s[i].start = buf.len;
    if (bt_node_status(in, i) == BT_RUNNING) bt_node_describe(in, i, &buf);
    s[i].end = buf.err ? s[i].start : buf.len;
    s[i].has_sleep = bt_node_tree_sleep_time(in, i, &s[i].sleep);
  }
  lbt_time_group_end(t->S, group);
  leave(L, t, flushed);
  lbt_push_buf(L, &buf); /* frees buf; raises without memory */
  const char *text = lua_tostring(L, -1);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, bt_def_depth(def, i));
    lua_setfield(L, -2, "depth");
    lua_pushstring(L, bt_def_name(def, i));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, bt_status_name(bt_node_status(lbt_tree_inst(t), i)));
    lua_setfield(L, -2, "status");
    lua_pushstring(L, bt_status_name(bt_node_last(lbt_tree_inst(t), i)));
    lua_setfield(L, -2, "last");
    if (s[i].end > s[i].start) {
      lua_pushlstring(L, text + s[i].start, s[i].end - s[i].start);
      lua_setfield(L, -2, "dbstring");
    }
    if (s[i].has_sleep) {
      lua_pushnumber(L, s[i].sleep);
      lua_setfield(L, -2, "sleep");
    }
    push_ports(L, def, i);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int tree_fire_event(lua_State *L) {
  check_tree(L, "FireEvent");
  lbt_events_fire(L, 1, 2, 3);
  return 0;
}

/* tree:random_state(): the states of its two random streams, integers: the core's generator
 * (first evaluation times, random choices among children; nil for a tree that draws nothing) and
 * bt.random's (its scripts'; nil for a tree made without bt.seed_trees) */
static int tree_random_state(lua_State *L) {
  lbt_tree *t = check_tree(L, "random_state");
  unsigned long long x;
  bt_inst_random_state(lbt_tree_inst(t), &x);
  if (x) lua_pushinteger(L, (lua_Integer)x);
  else lua_pushnil(L);
  if (t->stream) lua_pushinteger(L, (lua_Integer)t->stream);
  else lua_pushnil(L);
  return 2;
}

/* tree:set_random_state(core, scripts): sets them (values tree:random_state gave; nil leaves one
 * as it is) */
static int tree_set_random_state(lua_State *L) {
  lbt_tree *t = check_tree(L, "set_random_state");
  for (int arg = 2; arg <= 3; arg++) {
    if (lua_isnoneornil(L, arg)) continue;
    int isint;
    lua_Integer x = lua_tointegerx(L, arg, &isint);
    if (!isint) return lbt_typeerror(L, arg, arg - 1, "set_random_state", "integer or nil");
    if (x == 0) return lbt_argerror(L, arg - 1, "set_random_state", "0 is no stream's state");
    if (arg == 3) {
      t->stream = (unsigned long long)x;
    } else if (bt_inst_set_random_state(lbt_tree_inst(t), (unsigned long long)x) == BT_EBUSY) {
      return luaL_error(L, "set_random_state: not while the tree thinks");
    }
  }
  return 0;
}

static int tree_gc(lua_State *L) {
  lbt_tree *t = lbt_tree_raw(L, 1); /* a script may call it by hand, with anything; forwarded: none */
  /* by hand, from the tree's own scripts: the tree is in use (entered), and its collection will
   * come */
  if (t && !t->collected && !t->entry && !bt_inst_thinking(lbt_tree_inst(t))) {
    bt_inst_fini(lbt_tree_inst(t));
    t->collected = 1;
    lbt_live_free(L, t);
  }
  return 0;
}

/* The BT table's members (so scripts may patch BT's methods), then tree.inst, tree.root,
 * tree.exact and tree.board. Upvalues: the BT table, "inst", "root", "exact", "board". */
static int tree_index(lua_State *L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  lbt_tree *t = lbt_tree_test(L, 1); /* a script may call it by hand, with anything */
  if (!t) return 0;
  if (lua_rawequal(L, 2, lua_upvalueindex(2))) {
    lua_getiuservalue(L, 1, LBT_UV_INST);
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(3))) {
    if (t->collected) return 0;
    lbt_push_state_obj(L, t, 1, 0);
    lbt_children_mark(L, 1); /* a script may edit the lists from there (docs/lua-api.md) */
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(4))) {
    lua_pushboolean(L, t->exact);
    return 1;
  }
  if (lua_rawequal(L, 2, lua_upvalueindex(5))) {
    if (!t->board || t->collected) return 0;
    lbt_tree_table(L, 1, LBT_UV_OBJS, 0);
    lua_rawgeti(L, -1, 0);
    return 1;
  }
  return 0;
}

static const luaL_Reg tree_methods[] = {
    {"Update", tree_update},
    {"ForceUpdate", tree_force_update},
    {"GetSleepTime", tree_get_sleep_time},
    {"Reset", tree_reset},
    {"Stop", tree_stop},
    {"FireEvent", tree_fire_event},
    {"random_state", tree_random_state},
    {"set_random_state", tree_set_random_state},
    {"snapshot", tree_snapshot},
    {"dot", tree_dot},
    {"__tostring", tree_tostring},
    {NULL, NULL},
};

static const luaL_Reg tree_meta[] = {
    {"__tostring", tree_tostring},
    {"__gc", tree_gc},
    {NULL, NULL},
};

void lbt_open_tree(lua_State *L, int module) {
  luaL_newmetatable(L, TREE_META);
  luaL_setfuncs(L, tree_meta, 0);
  lbt_registry_get(L, LBT_REG_BT);
  lua_pushliteral(L, "inst");
  lua_pushliteral(L, "root");
  lua_pushliteral(L, "exact");
  lua_pushliteral(L, "board");
  lua_pushcclosure(L, tree_index, 5);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "BT");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);

  luaL_getmetatable(L, LBT_DEF_META);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, def_instantiate);
  lua_setfield(L, -2, "instantiate");
  lua_pop(L, 2);

  lbt_registry_get(L, LBT_REG_BT);
  lua_pushvalue(L, -1);
  lbt_state_get(L)->bt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  luaL_setfuncs(L, tree_methods, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, tree_new);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, module, "BT");
  lua_pushinteger(L, (lua_Integer)offsetof(lbt_state, exact));
  lua_pushcclosure(L, set_switch, 1);
  lua_setfield(L, module, "set_exact");
  lua_pushinteger(L, (lua_Integer)offsetof(lbt_state, where_all));
  lua_pushcclosure(L, set_switch, 1);
  lua_setfield(L, module, "set_where");
}
