/* SPDX-License-Identifier: MIT */
/*
 * bt_lua.h: the bt Lua module, for hosts that embed Lua.
 *
 * luaL_requiref(L, "bt", luaopen_bt, 0) (or require "bt" with bt.so on package.cpath) opens
 * everything docs/lua-api.md describes; the module needs no package.path.
 */
#ifndef BT_LUA_H
#define BT_LUA_H

#include "bt.h"

/* lua.h has no extern "C" of its own: C++ hosts get Lua's C names through this block (as lua.hpp) */
#ifdef __cplusplus
extern "C" {
#endif

#include <lua.h>

/* Opens the module and returns its table (the same table each time in one lua_State). */
int luaopen_bt(lua_State *L);

/* Bounded memory (docs/errors.md). A Lua state made by bt_lua_newstate fails any allocation that
 * would take it past limit bytes (0: no bound): the script that asked gets a "not enough memory"
 * error, handled as any script error. bt's own bookkeeping may go a reserve past the limit (an
 * eighth of it, at least 64 KiB), so that it can report the error. Returns NULL without memory. */
lua_State *bt_lua_newstate(size_t limit);

/* Closes a state made by bt_lua_newstate (lua_close, then the allocator's state), or any state. */
void bt_lua_close(lua_State *L);

/* Changes the bound of a state made by bt_lua_newstate (bt.set_memory_limit); BT_EINVAL for
 * another state. */
int bt_lua_set_memory_limit(lua_State *L, size_t limit);

/* Bytes in use by a state made by bt_lua_newstate (bt.memory()), 0 for another state. */
size_t bt_lua_memory_used(lua_State *L);

/* The bt_rec of the bt.Recorder at idx (docs/lua-api.md "Recording"), or NULL when the value is
 * none. It lives as long as the Lua object: keep a reference to it while C uses it (a viewer
 * registration, bt_view_add_agent). */
bt_rec *bt_lua_torecorder(lua_State *L, int idx);

/* The entity whose scripts make the current call in L's state, as lua_topointer gives it: the
 * inst of the tree whose code runs (a leaf, a behaviour's Visit or OnStop: the inst given to
 * BT(inst, root), the brain's for a SharedBrain), or, outside any tree, of the agent whose event
 * a pool's state delivers or whose brain it starts (the tree bt.random draws for); NULL outside
 * any (the host's own calls, a brain's DoUpdate, a state bt was not opened in). A host that
 * writes its world from entity methods tells with it a creature's writes of itself, which it
 * reads back at once, from its writes of others, applied later in a fixed order
 * (docs/threads.md, "One world"): compare it with lua_topointer(L, 1) of the method's self. */
const void *bt_lua_running_entity(lua_State *L);

/* For C modules loaded beside bt.so (bt.view, bt.testkit): Lua loads a C module with its names
 * local, so that such a module cannot call bt_lua_torecorder directly; bt keeps, in the registry
 * under BT_LUA_C_API, a light userdata pointing to this table. version is 1; members are only
 * ever added at the end. */
#define BT_LUA_C_API "bt.c_api"
typedef struct bt_lua_c_api {
  int version;
  bt_rec *(*torecorder)(lua_State *L, int idx);
  /* The bt_stats of the bt.Stats at idx, or NULL when the value is none; it lives as long as the
   * Lua object. */
  bt_stats *(*tostats)(lua_State *L, int idx);
  /* The bt_def of the tree (bt.BT; one rebuilt since its children lists changed gives the one it
   * became, put in its place at idx) or the definition (bt.define) at idx, or NULL for anything
   * else. It lives as long as the Lua object. */
  const bt_def *(*todef)(lua_State *L, int idx);
  /* Notes that the node object at idx was made at where ("brains/wolf.lua:12"), as
   * bt.set_where(true) notes the code that called a node's constructor, for a node that stands
   * in another's place (the test kit's substitutes keep the replaced node's line). Returns 1, or
   * 0 when the value at idx is not a node object (nothing is noted). */
  int (*setwhere)(lua_State *L, int idx, const char *where);
} bt_lua_c_api;

/* Hot reload (docs/reload.md), for hosts that drive it from C. Each leaves the stack as it was. */

/* Tracks the modules require loads from now on (bt.reload.enable()). Returns BT_OK. */
int bt_lua_reload_enable(lua_State *L);

/* Reloads a module by the name require knows it by (bt.reload.module(name)). Returns BT_OK, or
 * BT_EINVAL and copies the message ("file:line: ...") into err (size bytes, NUL-terminated). */
int bt_lua_reload(lua_State *L, const char *module, char *err, size_t size);

/* Watches the files of tracked modules (bt.reload.watch(mode)); mode is "auto", "inotify" or
 * "poll". Returns BT_OK, or BT_EINVAL if that mode is not available. */
int bt_lua_reload_watch(lua_State *L, const char *mode);

/* Reloads the modules whose files changed (bt.reload.poll()); calls report(ud, file, ok, message)
 * for each, report may be NULL. Returns the number of files reloaded or refused. Call it once per
 * frame. */
int bt_lua_reload_poll(lua_State *L,
                       void (*report)(void *ud, const char *file, int ok, const char *message),
                       void *ud);

/* ---- a pool of Lua states (docs/threads.md, "A pool of Lua states") ----
 *
 * For hosts whose world lives in C: N Lua states, each with bt and the host's own bindings, each
 * thinking a shard of the agents on its own bt.BrainManager. A frame (bt_lua_pool_update) thinks
 * every state's shard at once, one state per job on a pool of threads, then routes the events the
 * agents sent one another (plain data, copied between states) and delivers them in agent id
 * order. The results do not depend on the number of states or threads, as long as the scripts
 * keep to docs/threads.md's rules (each tree draws from a random stream seeded with its agent's
 * id; leaves read the host's world as the last frame left it and write only their own agent).
 *
 * Every function is called between frames by the thread that runs them, except bt_lua_pool_send
 * (any thread, any time). Errors: BT_EINVAL (a bad argument, or a script's error: the message is
 * in bt_lua_pool_errmsg), BT_ENOMEM, BT_ETHREAD, BT_EBUSY (called during a frame, from a job). */
typedef struct bt_lua_pool bt_lua_pool;

/* Opens state number `state` (0 to states - 1) of a pool, whose bt is loaded (package.loaded.bt,
 * reload tracking on): the host installs its bindings and loads its brain and behaviour files,
 * the same in every state, and sets bt.pool.place. Returns BT_OK, or an error code with a message
 * in err (size bytes). */
typedef int (*bt_lua_pool_open_fn)(void *ud, lua_State *L, int state, char *err, size_t size);

/* Makes a pool of `states` Lua states (1 to BT_POOL_MAX_THREADS), each made by
 * bt_lua_newstate(0) with the standard libraries and bt, then opened by open(ud, L, i, ...), and
 * a pool of min(states, threads) threads (threads <= 0: one per state) that runs them. BT_EINVAL
 * for a bad count or a NULL open, or what open returned (the message in err); BT_ENOMEM;
 * BT_ETHREAD. On failure *out is NULL and nothing is left. */
int bt_lua_pool_create(bt_lua_pool **out, int states, int threads, bt_lua_pool_open_fn open, void *ud,
                       char *err, size_t size);

/* Closes every state and stops the threads. NULL is allowed. Not during a frame. */
void bt_lua_pool_free(bt_lua_pool *pool);

/* The number of states. */
int bt_lua_pool_states(const bt_lua_pool *pool);

/* State number `state`, for the host's own calls between frames (NULL for a bad number). */
lua_State *bt_lua_pool_state(bt_lua_pool *pool, int state);

/* Runs the frame's jobs on the host's job system instead of the pool's threads (docs/threads.md,
 * "The job system"; one job per state); NULL goes back to the pool's threads. BT_EINVAL for a
 * NULL run or workers < 1, BT_EBUSY during a frame. */
int bt_lua_pool_set_executor(bt_lua_pool *pool, const bt_executor *executor);

/* Places the agent (an id >= 1, unique in the pool) in state number `state`, or with state < 0
 * in the state with the fewest agents (the lowest numbered of those). Calls bt.pool.place(agent,
 * kind) there, which returns the agent's Brain, and starts it (brain:Start(); its trees draw
 * from a stream seeded with the agent's id). Returns the state number, or BT_EINVAL (an id out
 * of range or placed already, a state out of range, NULL kind, the script's error), BT_ENOMEM,
 * BT_EBUSY. */
int bt_lua_pool_place(bt_lua_pool *pool, long long agent, const char *kind, int state);

/* Removes the agent: bt.pool.remove(agent, brain) if the state's scripts set it, else
 * brain:Stop(). BT_EINVAL for an agent not placed, or the script's error (the agent is gone from
 * the pool all the same); BT_EBUSY. */
int bt_lua_pool_remove(bt_lua_pool *pool, long long agent);

/* Moves the agent to state number `state`: its brain is saved (brain:Save, with
 * bt.pool.save_options), a brain is placed for it there with the same kind and restored from the
 * save (brain:Restore), and the old one removed. Returns BT_OK (also when it is there already),
 * or BT_EINVAL (no such agent or state; a save or restore that failed: the agent stays where it
 * was, untouched), BT_ENOMEM, BT_EBUSY. */
int bt_lua_pool_move(bt_lua_pool *pool, long long agent, int state);

/* Places or removes an agent at the end of the next frame, after its deliveries, as
 * bt_lua_pool_place and bt_lua_pool_remove do: from any thread at any time (and, as
 * bt.pool.place_later and bt.pool.remove_later, from a state's scripts during a frame). The
 * changes of a frame are made in agent id order (each agent's in the order asked); one refused
 * then (an agent placed already, or not placed; the script's error) is counted in
 * bt_lua_pool_stats.rejected and said by bt_lua_pool_errmsg. BT_EINVAL for agent < 1, a NULL
 * kind or a state out of range; BT_ENOMEM. */
int bt_lua_pool_place_later(bt_lua_pool *pool, long long agent, const char *kind, int state);
int bt_lua_pool_remove_later(bt_lua_pool *pool, long long agent);

/* The number of the agent's state, or BT_EINVAL if it is not placed. */
int bt_lua_pool_agent_state(const bt_lua_pool *pool, long long agent);

/* The number of agents in state number `state` (all of them with state < 0). */
int bt_lua_pool_agents(const bt_lua_pool *pool, int state);

/* Sends the agent an event from the host (from any thread, at any time): it is delivered at the
 * end of the next frame, with data the string `data` (NULL: nil), and from 0. An event to an
 * agent that is not placed then is dropped and counted. BT_EINVAL for agent < 1 or a NULL event;
 * BT_ENOMEM. */
int bt_lua_pool_send(bt_lua_pool *pool, long long agent, const char *event, const char *data);

/* One frame: in every state at once, bt.set_clock(time), then bt.BrainManager:Update(tick);
 * then the events sent during the frame and since the last (by bt.pool.send in any state, or
 * bt_lua_pool_send) go to their agents' states, sorted by (agent, sender, the order the sender
 * sent them), and each state delivers its own at once. Returns when every state is done: BT_OK,
 * or BT_EINVAL when a state's Update or an event's handler raised an error (every state still
 * ran its whole frame: bt_lua_pool_errmsg says the first error); BT_ENOMEM; BT_EBUSY (from a
 * job). */
int bt_lua_pool_update(bt_lua_pool *pool, long long tick, double time);

/* Hot reload of a module in every state, all or none (docs/reload.md): each state checks the edit
 * (the source read once, by state 0, and given to the others), and only if every state accepts
 * it, every state applies it; else none does. BT_OK, or BT_EINVAL with the message ("state 2:
 * file:line: ...") copied into err (and bt_lua_pool_errmsg); BT_EBUSY. */
int bt_lua_pool_reload(bt_lua_pool *pool, const char *module, char *err, size_t size);

/* How a reload went: module (or file, for bt_lua_pool_reload_poll), ok, and a line saying it
 * ("reloaded poolbrain in 4 states", "refused poolbrain: state 2: ..."). */
typedef void (*bt_lua_pool_report_fn)(void *ud, const char *module, int ok, const char *message);

/* Asks for a reload of the module from any thread, at any time (a console, a file watcher of the
 * host's): it is made, as bt_lua_pool_reload makes it, at the start of the next frame
 * (bt_lua_pool_update, before the thinks), in the order asked, and said to the report function
 * (bt_lua_pool_set_reload_report) and counted. BT_EINVAL for a NULL module, BT_ENOMEM. */
int bt_lua_pool_reload_later(bt_lua_pool *pool, const char *module);

/* The function told how each reload asked with bt_lua_pool_reload_later went (NULL: none); it is
 * called on the thread that runs the frames. Set it between frames. */
void bt_lua_pool_set_reload_report(bt_lua_pool *pool, bt_lua_pool_report_fn report, void *ud);

/* Watches the files of the modules the states required (bt_lua_reload_watch on state 0, whose
 * files are every state's): mode "auto", "inotify" or "poll". BT_OK, BT_EINVAL if that mode is
 * not available, BT_EBUSY. */
int bt_lua_pool_reload_watch(bt_lua_pool *pool, const char *mode);

/* Once per frame, between frames: reloads in every state (all or none, for each file) the
 * modules of each watched file that changed, and calls report(ud, file, ok, message) for each
 * (report may be NULL). Returns the number of files reloaded or refused. */
int bt_lua_pool_reload_poll(bt_lua_pool *pool, bt_lua_pool_report_fn report, void *ud);

/* What the pool counted since it was made: events delivered, events dropped (no such agent when
 * routed), frames, reloads applied and refused (bt_lua_pool_reload_later and _poll), and the
 * seconds (monotonic clock) its frames spent in each phase: the states' thinks (parallel),
 * routing the events (serial, on the calling thread), delivering them (parallel). */
typedef struct bt_lua_pool_stats {
  long long events, dropped;
  long long frames;
  long long reloads, reloads_refused;
  long long rejected; /* places and removals asked for later, refused when made */
  double think_seconds, route_seconds, deliver_seconds;
} bt_lua_pool_stats;
void bt_lua_pool_stats_get(const bt_lua_pool *pool, bt_lua_pool_stats *out);

/* The message of the last error ("" if none). */
const char *bt_lua_pool_errmsg(const bt_lua_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
