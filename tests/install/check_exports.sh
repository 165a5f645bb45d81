#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a fresh prefix and lists the names each installed library exports
# (nm -g; nm -D for the shared libraries' dynamic symbols): libbtengine.a and libbtengine.so
# exactly the functions the engine's header bt_core.h declares; libbtcore.a and libbtcore.so
# exactly those of the headers bt.h includes, bt_core.h, bt_record.h and bt_sched.h; libbt.a,
# libbt.so and bt.so exactly those and bt_lua.h's; each of them named in docs/c-api.md;
# libbttest.a and libbttest.so exactly those of bt_test.h, named in docs/c-api.md;
# libbtview.a and libbtview.so (when built) exactly those of bt_view.h, named in docs/viewer.md.
# Anything else is an internal name that leaked, which a host's own names could collide with. The
# installed headers are read. libbtengine needs no name of bt from outside itself (the engine
# calls no layer over it; in a static archive a hidden name of another layer would not even
# resolve). And neither bt.so nor libbt nor libbtcore nor libbtengine links civetweb (the
# viewer's HTTP library): a host that does not use the viewer links nothing of it.
# usage: check_exports.sh <build dir> <source dir> [libdir [Lua C module dir]]
#   (as CMake installs them, default lib and lib/lua/5.4)
set -eu
build=$1
src=$2
lib=${3:-lib}
luacdir=${4:-$lib/lua/5.4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

# the functions a header declares: bt_* and luaopen_bt names followed by "(", outside comments;
# a static inline one would be compiled into its caller, and no library exports it
declared() {
  sed -e 's|/\*.*\*/||' -e '/^ *\*/d' -e '/^ *\/\*/d' -e '/^static inline /d' "$@" |
    grep -oE '\b(bt_[a-z0-9_]+|luaopen_bt) *\(' | sed 's/ *($//' | sort -u
}
exported() { # a dynamic symbol versioned by the linker would read name@@VER: there is none
  case $1 in
    *.a) nm -g --defined-only "$1" ;;
    *) nm -D --defined-only "$1" ;;
  esac | awk 'NF == 3 { print $3 }' | sort -u
}

inc=$prefix/include
declared "$inc/bt_core.h" >"$tmp/engine"
declared "$inc/bt_core.h" "$inc/bt_record.h" "$inc/bt_sched.h" >"$tmp/core"
declared "$inc/bt_core.h" "$inc/bt_record.h" "$inc/bt_sched.h" "$inc/bt_lua.h" >"$tmp/all"
grep -ohE '\b(bt_[a-z0-9_]+|luaopen_bt[a-z_]*)\b' "$src/docs/c-api.md" "$src/docs/viewer.md" | sort -u >"$tmp/documented"

status=0
compare() { # library, expected list
  exported "$prefix/$1" >"$tmp/got"
  leaked=$(comm -23 "$tmp/got" "$2")
  missing=$(comm -13 "$tmp/got" "$2")
  undocumented=$(comm -23 "$tmp/got" "$tmp/documented")
  [ -z "$leaked" ] || { echo "$1 exports names no public header declares:" $leaked; status=1; }
  [ -z "$missing" ] || { echo "$1 does not export:" $missing; status=1; }
  [ -z "$undocumented" ] || { echo "$1 exports names docs/c-api.md does not document:" $undocumented; status=1; }
  echo "$1: $(wc -l <"$tmp/got") names exported"
}
compare $lib/libbtengine.a "$tmp/engine"
compare $lib/libbtengine.so "$tmp/engine"
compare $lib/libbtcore.a "$tmp/core"
compare $lib/libbtcore.so "$tmp/core"
compare $lib/libbt.a "$tmp/all"
compare $lib/libbt.so "$tmp/all"
compare $luacdir/bt.so "$tmp/all"
[ -e "$inc/bt_test.h" ] || { echo "bt_test.h is not installed"; exit 1; }
declared "$inc/bt_test.h" >"$tmp/test"
compare $lib/libbttest.a "$tmp/test"
compare $lib/libbttest.so "$tmp/test"
if [ -e "$prefix/$lib/libbtview.so" ]; then
  [ -e "$inc/bt_view.h" ] || { echo "bt_view.h is not installed"; exit 1; }
  declared "$inc/bt_view.h" >"$tmp/view"
  compare $lib/libbtview.a "$tmp/view"
  compare $lib/libbtview.so "$tmp/view"
fi
# the engine's names from elsewhere: bt_, bti_ (the core's internal), btp_ (the platform layer's),
# lbt_ and btv_ (the binding's, the viewer's)
for f in $lib/libbtengine.a $lib/libbtengine.so; do
  outside=$(nm -u "$prefix/$f" | awk '{ print $NF }' | grep -E '^(bt|bti|btp|lbt|btv)_' | sort -u)
  [ -z "$outside" ] || { echo "$f needs names of bt it does not define:" $outside; status=1; }
done
for f in $luacdir/bt.so $lib/libbt.so $lib/libbtcore.so $lib/libbtengine.so; do
  if readelf -d "$prefix/$f" | grep -q 'NEEDED.*civetweb' ||
     nm -D --undefined-only "$prefix/$f" | awk '{ print $NF }' | grep -q '^mg_'; then
    echo "$f links civetweb: only libbtview and bt/view.so may"
    status=1
  fi
done
exit $status
