#!/bin/sh
# SPDX-License-Identifier: MIT
# The public headers as installed (docs/c-api.md, "Layers"): each compiles alone, in a translation
# unit of the one line `#include <header>` (and in one that includes it twice; each unit ends
# with a typedef, as ISO C wants no empty unit and bt_version.h has macros only), in C11 and in
# C++11, with -Wall -Wextra -Werror -pedantic, against the installed include folder alone (and
# Lua's, for bt_lua.h). And each layer's header holds its layer only: bt_core.h declares nothing of
# recording or the schedulers, bt_record.h nothing of the schedulers, bt_sched.h nothing of
# recording (each includes bt_core.h alone), so a unit that names one of those after including it
# must not compile; bt.h has them all.
# usage: check_headers.sh <build dir> [Lua include dir]
#   (compilers: $CC, default cc; $CXX, default c++: without a C++ compiler the C++ half is skipped,
#   and the output says so)
set -eu
build=$1
lua_include=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
inc=$prefix/include
CC=${CC:-cc}
CXX=${CXX:-c++}

headers="bt_version.h bt_core.h bt_record.h bt_sched.h bt.h"
[ -z "$lua_include" ] || headers="$headers bt_lua.h"
[ ! -e "$inc/bt_view.h" ] || headers="$headers bt_view.h"
langs="c"
if command -v "$CXX" >/dev/null 2>&1; then
  langs="c c++"
else
  echo "C++: skipped, no C++ compiler ($CXX; Debian package g++)"
fi

status=0
# compiles <lang> <file>: whether the unit compiles, quietly, against the installed headers
compiles() {
  case $1 in
    c) set -- "$CC" -x c -std=c11 "$2" ;;
    *) set -- "$CXX" -x c++ -std=c++11 "$2" ;;
  esac
  "$@" -fsyntax-only -Wall -Wextra -Werror -pedantic -I"$inc" ${lua_include:+-I"$lua_include"} \
    >"$tmp/err" 2>&1
}
n=0
for h in $headers; do
  for lang in $langs; do
    printf '#include <%s>\ntypedef int unit_t;\n' "$h" >"$tmp/one.$lang"
    printf '#include <%s>\n#include <%s>\ntypedef int unit_t;\n' "$h" "$h" >"$tmp/twice.$lang"
    for unit in one twice; do
      if compiles $lang "$tmp/$unit.$lang"; then
        n=$((n + 1))
      else
        echo "$h does not compile alone in $lang ($unit):"
        cat "$tmp/err"
        status=1
      fi
    done
  done
done

# a name of another layer after a header: compiles (yes) or not (no)
while read -r h name expected; do
  for lang in $langs; do
    printf '#include <%s>\ntypedef %s layer_name_t;\n' "$h" "$name" >"$tmp/layer.$lang"
    if compiles $lang "$tmp/layer.$lang"; then got=yes; else got=no; fi
    if [ "$got" != "$expected" ]; then
      if [ "$expected" = yes ]; then
        echo "$h does not declare $name ($lang):"
        cat "$tmp/err"
      else
        echo "$h declares $name ($lang): it belongs to another layer's header"
      fi
      status=1
    fi
  done
done <<'LAYERS'
bt_core.h bt_inst yes
bt_core.h bt_rec no
bt_core.h bt_stats no
bt_core.h bt_log_reader no
bt_core.h bt_sched no
bt_core.h bt_tsched no
bt_core.h bt_pool no
bt_record.h bt_inst yes
bt_record.h bt_rec yes
bt_record.h bt_log_tree yes
bt_record.h bt_sched no
bt_record.h bt_executor no
bt_sched.h bt_inst yes
bt_sched.h bt_tsched yes
bt_sched.h bt_rec no
bt.h bt_inst yes
bt.h bt_rec_options yes
bt.h bt_tsched_hooks yes
LAYERS
[ $status = 0 ] && echo "headers: $n units compiled ($(echo $headers | wc -w) headers, $langs), each layer's header its layer's names only"
exit $status
