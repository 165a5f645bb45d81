#!/bin/sh
# SPDX-License-Identifier: MIT
# The version is written once, in project() of CMakeLists.txt (<version> here): CHANGELOG.md's
# newest release must be it, and the Lua module built from this tree must say it (bt.VERSION,
# bt._VERSION = "bt <version>"). bt_version() and BT_VERSION are tests/c/test_version.c's.
# usage: check_version.sh <source dir> <version> <folder of the built bt.so>
set -eu
src=$1
version=$2
cdir=$3
status=0

# the first "## [x.y.z] - date" heading after "## [Unreleased]" (keep-a-changelog)
newest=$(sed -n 's/^## \[\([0-9][^]]*\)\] - [0-9-]*$/\1/p' "$src/CHANGELOG.md" | head -1)
grep -q '^## \[Unreleased\]$' "$src/CHANGELOG.md" || { echo "CHANGELOG.md has no '## [Unreleased]' section"; status=1; }
[ "$newest" = "$version" ] || { echo "CHANGELOG.md's newest release is '$newest', CMakeLists.txt's project() says $version"; status=1; }

lua=lua5.4
if [ -n "${BT_SANITIZE_PRELOAD:-}" ]; then
  export LD_PRELOAD="$BT_SANITIZE_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
fi
got=$(LUA_CPATH="$cdir/?.so" LUA_PATH="" $lua -e 'local bt = require "bt"; io.write(tostring(bt.VERSION), "|", tostring(bt._VERSION))')
[ "$got" = "$version|bt $version" ] || { echo "the module says bt.VERSION|bt._VERSION = $got, expected $version|bt $version"; status=1; }

[ $status != 0 ] || echo "version $version: CHANGELOG.md, bt.VERSION, bt._VERSION agree"
exit $status
