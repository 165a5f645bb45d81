#!/bin/sh
# SPDX-License-Identifier: MIT
# check_view_history.sh SRC: every default of the live view's `history` (records kept per agent)
# that docs/viewer.md, bt_view.h and the Lua module's docs state is the one the code uses
# (DEFAULT_HISTORY in src/view/view.c).
set -u
src=${1:?usage: check_view_history.sh SRC}
code=$(sed -n 's/^#define DEFAULT_HISTORY \([0-9][0-9]*\).*/\1/p' "$src/src/view/view.c")
[ -n "$code" ] || { echo "FAIL: no '#define DEFAULT_HISTORY N' in src/view/view.c"; exit 1; }
status=0
found=0
for file in docs/viewer.md src/view/bt_view.h; do
  # one line per file, so that a sentence broken across lines is matched whole
  text=$(tr '\n' ' ' < "$src/$file" | tr -s ' ')
  stated=$( {
    echo "$text" | grep -oE '`history`[^|.;]*default[: ]+[0-9][0-9,]*' | sed 's/.*[^0-9,]//'
    echo "$text" | grep -oE '`history`[^|.;(]*[0-9][0-9,]* (records )?by default' | sed -E 's/ (records )?by default$//; s/.*[^0-9,]//'
    echo "$text" | grep -oE '`history` 0 \([0-9][0-9,]*' | sed 's/.*(//'
    echo "$text" | grep -oE 'size_t history; [^*]*\(0: [0-9][0-9,]*' | sed 's/.*: //'
  } | tr -d ',')
  for n in $stated; do
    found=$((found + 1))
    if [ "$n" != "$code" ]; then
      echo "FAIL: $file gives $n as the default of history; the code's is $code (DEFAULT_HISTORY, src/view/view.c)"
      status=1
    fi
  done
done
[ $found -gt 0 ] || { echo "FAIL: no default of history found in docs/viewer.md or bt_view.h (the check's patterns are out of date)"; exit 1; }
[ $status = 0 ] && echo "view history: the $found defaults stated are the code's, $code"
exit $status
