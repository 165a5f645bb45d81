#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh unit SRC: the page's logic (src/view/page/*.js) under node's test runner (unit/*.mjs).
# run.sh replay SRC FIXTURE OUT: the page's replay of statuses (history.js) against C's: FIXTURE
# (tests/view/replay_fixture.c) writes what a live view and a log view give of the same agents
# into OUT/replay_fixture.json, which replay.test.mjs reads under node's test runner.
# run.sh viewer SRC OUT BT_ARENA BT_LOG [LUA_CPATH_DIR]: the page in a headless chromium through
# playwright-core (viewer.mjs) against bt-arena --viewer and bt-log view; screenshots go to OUT.
# run.sh firefox SRC OUT BT_ARENA BT_LOG: the page in a headless Firefox through WebDriver BiDi
# (firefox.mjs) on a log under bt-log view.
# Exits 77 (ctest: skipped, visibly) when node, chromium (BT_CHROMIUM, default /usr/bin/chromium),
# tests/browser/node_modules or Firefox (BT_FIREFOX, default firefox-esr or firefox) is missing:
# `make ci-deps` installs them (docs/viewer.md).
set -u
what=${1:?usage: run.sh unit SRC | run.sh replay SRC FIXTURE OUT | run.sh viewer SRC OUT BT_ARENA BT_LOG [LUA_CPATH_DIR] | run.sh firefox SRC OUT BT_ARENA BT_LOG}
src=${2:?source directory}
node=$(command -v node) || { echo "SKIP: node not found (Debian: nodejs); the page's tests did not run"; exit 77; }
major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then
  echo "SKIP: node $("$node" --version) is older than 20 (playwright-core and node's WebSocket need 20); the page's tests did not run"
  exit 77
fi
case $what in
  unit)
    # node --test prints TAP and ends with "# pass N" / "# fail N"; its status fails the test
    exec "$node" --test "$src"/tests/browser/unit/*.test.mjs
    ;;
  replay)
    fixture=${3:?the fixture program}
    out=${4:?the output directory}
    mkdir -p "$out" || exit 1
    "$fixture" "$out/replay_fixture.json" || { echo "FAIL: $fixture did not write the fixture"; exit 1; }
    BT_REPLAY_FIXTURE="$out/replay_fixture.json" exec "$node" --test "$src"/tests/browser/replay.test.mjs
    ;;
  viewer)
    chromium=${BT_CHROMIUM:-/usr/bin/chromium}
    if [ ! -x "$chromium" ]; then
      echo "SKIP: $chromium not found (Debian: chromium; make ci-deps installs it); the browser test did not run"
      exit 77
    fi
    if [ ! -f "$src/tests/browser/node_modules/playwright-core/package.json" ]; then
      echo "SKIP: tests/browser/node_modules missing (npm ci --prefix tests/browser; make ci-deps runs it); the browser test did not run"
      exit 77
    fi
    shift 2
    BT_CHROMIUM=$chromium exec "$node" "$src/tests/browser/viewer.mjs" "$@"
    ;;
  firefox)
    firefox=${BT_FIREFOX:-$(command -v firefox-esr || command -v firefox)}
    if [ -z "$firefox" ] || [ ! -x "$firefox" ]; then
      echo "SKIP: Firefox not found (Debian: firefox-esr; make ci-deps installs it); the Firefox test did not run"
      exit 77
    fi
    shift 2
    # node 20's WebSocket client is behind this flag (node 22 has it by default)
    exec "$node" --no-warnings --experimental-websocket "$src/tests/browser/firefox.mjs" "$@" "$firefox"
    ;;
  *)
    echo "run.sh: unknown test '$what' (unit, replay, viewer or firefox)" >&2
    exit 2
    ;;
esac
