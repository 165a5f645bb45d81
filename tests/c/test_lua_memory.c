/* SPDX-License-Identifier: MIT */
/* test_lua_memory.c: a Lua state made by bt_lua_newstate with a memory limit. A script that
 * allocates past the limit fails its node and the error is reported; the think goes on, the host
 * keeps running, and the tree thinks again. bt.set_memory_limit and bt.memory. On Windows, first,
 * the program's unwind table, through which each of those errors is thrown. */
#include <stdint.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

#include <lauxlib.h>
#include <lualib.h>

#include "bt_lua.h"
#include "check.h"

#define LIMIT (16u << 20)

static lua_State *open_state(size_t limit) {
  lua_State *L = bt_lua_newstate(limit);
  if (!L) return NULL;
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_setglobal(L, "bt");
  return L;
}

/* Runs code; returns its first result as a string (or the error), copied into out. */
static int eval(lua_State *L, const char *code, char *out, size_t size) {
  int ok = luaL_dostring(L, code) == LUA_OK;
  const char *s = lua_tostring(L, -1);
  snprintf(out, size, "%s", s ? s : "(nil)");
  lua_settop(L, 0);
  return ok;
}

static void test_script_past_the_limit(void) {
  lua_State *L = open_state(LIMIT);
  CHECK(L != NULL);
  if (!L) return;
  char out[4096];
  int ok = eval(L,
                "errors = {}\n"
                "bt.set_error_handler(function(m) errors[#errors + 1] = m end)\n"
                "calls = 0\n"
                "local greedy = bt.ActionNode(function()\n"
                "  local t = {}\n"
                "  for i = 1, math.huge do t[i] = string.rep('x', 64) .. i end\n"
                "end, 'Greedy')\n"
                "local after = bt.ActionNode(function() calls = calls + 1 end, 'After')\n"
                "tree = bt.BT({}, bt.SequenceNode { greedy, after })\n"
                "tree:Update()\n"
                "return #errors .. ' ' .. tostring(errors[1]) .. ' | ' .. tree.root.children[1].lastresult",
                out, sizeof out);
  CHECK(ok);
  /* one error, naming the node's path and the memory error; the node failed */
  CHECK(strncmp(out, "1 ", 2) == 0);
  CHECK(strstr(out, "Sequence/Greedy") != NULL);
  CHECK(strstr(out, "not enough memory") != NULL);
  CHECK(strstr(out, "| FAILED") != NULL);
  if (!ok || !strstr(out, "not enough memory")) fprintf(stderr, "got: %s\n", out);

  /* the memory came back; the tree thinks again; the host allocates as before */
  ok = eval(L,
            "collectgarbage()\n"
            "local used, limit = bt.memory()\n"
            "assert(limit == " "16777216" ", 'limit ' .. tostring(limit))\n"
            "assert(used < limit / 2, 'used ' .. used)\n"
            "tree:Update()\n"
            "return #errors .. ' ' .. tree.root.lastresult .. ' ' .. #string.rep('y', 1000)",
            out, sizeof out);
  CHECK(ok);
  CHECK_STR(out, "2 FAILED 1000");

  /* the host's own code gets the error as a Lua error too, and goes on */
  ok = eval(L, "local ok, e = pcall(string.rep, 'x', 64 << 20) return tostring(ok) .. ' ' .. e", out,
            sizeof out);
  CHECK(ok);
  CHECK_STR(out, "false not enough memory");
  CHECK(bt_lua_memory_used(L) > 0 && bt_lua_memory_used(L) < LIMIT);
  bt_lua_close(L);
}

static void test_set_limit(void) {
  lua_State *L = open_state(0);
  CHECK(L != NULL);
  if (!L) return;
  char out[1024];
  /* no bound: 32 MiB is fine */
  CHECK(eval(L, "return #string.rep('x', 32 << 20)", out, sizeof out));
  CHECK_STR(out, "33554432");
  CHECK(eval(L, "bt.set_memory_limit(8 << 20) return select(2, bt.memory())", out, sizeof out));
  CHECK_STR(out, "8388608");
  CHECK(eval(L, "collectgarbage() return tostring(pcall(string.rep, 'x', 32 << 20))", out, sizeof out));
  CHECK_STR(out, "false");
  CHECK(!eval(L, "bt.set_memory_limit(-1)", out, sizeof out));
  CHECK(strstr(out, "bad argument #1 to 'set_memory_limit'") != NULL);
  CHECK_INT(bt_lua_set_memory_limit(L, 0), BT_OK);
  CHECK(eval(L, "return #string.rep('x', 32 << 20)", out, sizeof out));
  bt_lua_close(L);

  /* a state bt did not make */
  L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "bt", luaopen_bt, 0);
  lua_setglobal(L, "bt");
  CHECK(!eval(L, "bt.set_memory_limit(1 << 20)", out, sizeof out));
  CHECK(strstr(out, "not made by bt_lua_newstate") != NULL);
  CHECK(eval(L, "return tostring(bt.memory())", out, sizeof out));
  CHECK_STR(out, "nil");
  CHECK_INT(bt_lua_set_memory_limit(L, 1), BT_EINVAL);
  CHECK(bt_lua_memory_used(L) == 0);
  bt_lua_close(L);
}

/* A brain file that allocates past the limit while it loads fails to load; the host goes on. */
static void test_loading_past_the_limit(void) {
  lua_State *L = open_state(LIMIT);
  CHECK(L != NULL);
  if (!L) return;
  char out[1024];
  int ok = eval(L,
                "package.preload['brains.greedy'] = function()\n"
                "  local t = {} for i = 1, math.huge do t[i] = {i} end\n"
                "end\n"
                "local ok, e = pcall(require, 'brains.greedy')\n"
                "return tostring(ok) .. ' ' .. tostring(e)",
                out, sizeof out);
  CHECK(ok);
  CHECK(strstr(out, "false") == out);
  CHECK(strstr(out, "not enough memory") != NULL);
  CHECK(eval(L, "collectgarbage() return #string.rep('z', 4096)", out, sizeof out));
  CHECK_STR(out, "4096");
  bt_lua_close(L);
}

/* The trees below make their node objects in their first think (or stop), 2,000 of them, more
 * than bt's reserve: with the memory full, making one fails. Before, that error unwound through
 * the core's think: Update raised "not enough memory" and the tree stayed thinking for good. Now
 * each failure is reported with the node's path, the node fails, and the tree thinks again once
 * there is memory. */
static const char *const FULL_SETUP =
    "nerr, first = 0, false\n"
    "bt.set_error_handler(function(m) nerr = nerr + 1; if not first then first = m end end)\n"
    "function fill() hog = {} pcall(function() for i = 1, math.huge do hog[i] = {i, i, i} end end) end\n"
    "function free() hog = nil collectgarbage() end\n"
    "local C = bt.Class(bt.BehaviourNode, function(self, i) bt.BehaviourNode._ctor(self, 'C' .. i) end)\n"
    "function C:Visit() self.status = bt.SUCCESS end\n"
    "local kids, acts = {}, {}\n"
    "for i = 1, 2000 do\n"
    "  kids[i] = C(i)\n"
    "  acts[i] = bt.ActionNode(function() end, 'A' .. i)\n"
    "  acts[i].OnStop = function() end\n"
    "end\n"
    "visits = bt.define(bt.SequenceNode(kids)):instantiate({})\n"
    "stops = bt.define(bt.ParallelNode(acts)):instantiate({})\n"
    "collectgarbage()\n"
    "return 'ready'\n";

/* With the memory full, tree:method() returns (nothing escapes), and reports first_error first;
 * once there is memory, the tree thinks to SUCCESS. */
static void full_call(lua_State *L, const char *tree, const char *method, const char *first_error) {
  char code[512], out[1024];
  snprintf(code, sizeof code,
           "nerr, first = 0, false\n"
           "fill()\n"
           "local ok, e = pcall(%s.%s, %s)\n"
           "free()\n"
           "return tostring(ok) .. ' ' .. tostring(e) .. ' ' .. tostring(nerr > 0) .. ' ' .. tostring(first)",
           tree, method, tree);
  CHECK(eval(L, code, out, sizeof out));
  int escaped = strncmp(out, "true nil true ", 14) != 0, unreported = strstr(out, first_error) == NULL;
  if (escaped || unreported) fprintf(stderr, "got: %s\n", out);
  CHECK(!escaped);
  CHECK(!unreported);
  snprintf(code, sizeof code, "%s:Update() return %s.root.lastresult", tree, tree);
  CHECK(eval(L, code, out, sizeof out));
  CHECK_STR(out, "SUCCESS");
}

static void test_objects_past_the_limit(void) {
  lua_State *L = open_state(5u << 19); /* the trees take 1.7 MB, their objects 0.5 MB more */
  CHECK(L != NULL);
  if (!L) return;
  char out[1024];
  CHECK(eval(L, FULL_SETUP, out, sizeof out));
  CHECK_STR(out, "ready");
  /* a think whose Lua nodes' objects cannot be made; a stop whose nodes' objects, for their
   * OnStop, cannot be made */
  full_call(L, "visits", "Update", "Sequence/C1: its object: not enough memory");
  CHECK(eval(L, "stops:Update() return 'ok'", out, sizeof out));
  full_call(L, "stops", "Stop", "Parallel/A1: its object: not enough memory");
  bt_lua_close(L);
}

#ifdef _WIN32
/* A Lua error is a longjmp, which on Windows x64 unwinds each frame between the error and its
 * pcall (bt's among them) by the program's table of unwind entries (.pdata): sorted, and each of
 * bt's functions found from its first byte. (`ld -r` once sorted the entries of bt's static
 * libraries apart from their relocations: the unwind ran astray, and the tests below never ended.) */
static void test_unwind_table(void) {
  const unsigned char *base = (const unsigned char *)GetModuleHandleW(NULL);
  const IMAGE_NT_HEADERS *nt = (const void *)(base + ((const IMAGE_DOS_HEADER *)base)->e_lfanew);
  IMAGE_DATA_DIRECTORY dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
  const RUNTIME_FUNCTION *f = (const void *)(base + dir.VirtualAddress);
  size_t n = dir.Size / sizeof *f, unsorted = 0;
  for (size_t i = 1; i < n; i++) unsorted += f[i].BeginAddress < f[i - 1].EndAddress;
  CHECK(n > 100);
  CHECK_INT(unsorted, 0);
  uintptr_t fns[] = {(uintptr_t)bt_lua_newstate, (uintptr_t)bt_lua_close, (uintptr_t)luaopen_bt,
                     (uintptr_t)bt_inst_update, (uintptr_t)bt_def_create};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    DWORD64 image = 0;
    PRUNTIME_FUNCTION e = RtlLookupFunctionEntry((DWORD64)fns[i], &image, NULL);
    CHECK(e != NULL && image + e->BeginAddress == (DWORD64)fns[i]);
  }
}
#endif

int main(void) {
#ifdef _WIN32
  test_unwind_table();
#endif
  test_script_past_the_limit();
  test_objects_past_the_limit();
  test_set_limit();
  test_loading_past_the_limit();
  return check_report("test_lua_memory");
}
