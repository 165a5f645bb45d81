#!/bin/sh
# SPDX-License-Identifier: MIT
# check_dot.sh SRC [LUA MODDIR]: with LUA (lua5.4) and MODDIR (the folder of the built bt.so),
# docs/img/wolf.dot is first checked to be what docs/img/wolf.lua prints, so the picture of
# docs/debugging.md stays that of the code. Then Graphviz's dot reads every picture of tests/c/expected/*.dot (the output of
# bt_def_dot and bt_inst_dot, which test_dot compares with them) and docs/img/*.dot, and makes an
# SVG of each; and it refuses a broken picture, so that the check can fail. Exit 77 (skipped)
# without dot (Debian: graphviz).
set -u
src=${1:?usage: check_dot.sh SRC}
if ! command -v dot >/dev/null 2>&1; then
  echo "dot not found (Debian: graphviz): the DOT pictures were not checked with Graphviz"
  exit 77
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0
if [ $# -ge 3 ]; then
  # a sanitized build's bt.so needs the sanitizer runtimes ctest names (cmake/sanitize.cmake)
  preload="${BT_SANITIZE_PRELOAD:-}${BT_SANITIZE_PRELOAD:+ $3/bt.so}"
  if ! (cd "$src" && LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}" LUA_CPATH="$3/?.so;;" "$2" docs/img/wolf.lua) >"$tmp/wolf.dot"; then
    echo "docs/img/wolf.lua failed"
    status=1
  elif ! cmp -s "$tmp/wolf.dot" "$src/docs/img/wolf.dot"; then
    echo "docs/img/wolf.dot is not what docs/img/wolf.lua prints (remake it, and wolf.svg, as wolf.lua says):"
    diff "$src/docs/img/wolf.dot" "$tmp/wolf.dot"
    status=1
  fi
fi
n=0
for f in "$src"/tests/c/expected/*.dot "$src"/docs/img/*.dot; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  if ! dot -Tsvg "$f" >"$tmp/out.svg" 2>"$tmp/err" || [ -s "$tmp/err" ] || ! grep -q '<svg' "$tmp/out.svg"; then
    echo "dot refused or warned about $f:"
    cat "$tmp/err"
    status=1
  fi
done
if [ "$n" -eq 0 ]; then
  echo "no .dot files found under $src/tests/c/expected"
  exit 1
fi
printf 'digraph bt {\n  n0 [label="unterminated];\n}\n' >"$tmp/bad.dot"
if dot -Tsvg "$tmp/bad.dot" >/dev/null 2>&1; then
  echo "dot accepted a broken picture: the check cannot fail"
  status=1
fi
[ "$status" -eq 0 ] && echo "dot read $n pictures"
exit "$status"
