# SPDX-License-Identifier: MIT
# Sourced by the tests that run a guide's commands as a reader would (lua5.4 and busted by name):
# a sanitized build's bt.so needs the sanitizer runtimes that ctest names in BT_SANITIZE_PRELOAD
# preloaded into the stock lua5.4, so `lua_preload DIR` puts first on PATH, in DIR, a lua5.4 that
# preloads them. Without BT_SANITIZE_PRELOAD it does nothing.
lua_preload() {
  [ -n "${BT_SANITIZE_PRELOAD:-}" ] || return 0
  mkdir -p "$1"
  printf '#!/bin/sh\nLD_PRELOAD="%s" exec "%s" "$@"\n' "$BT_SANITIZE_PRELOAD" "$(command -v lua5.4)" > "$1/lua5.4"
  chmod +x "$1/lua5.4"
  PATH=$1:$PATH
}
