#!/bin/sh
# SPDX-License-Identifier: MIT
# check_flags.sh VERSION PROGRAM...: every program of the project answers --help (exit 0, a usage
# line first) and --version (exit 0, "<name> (bt) VERSION").
set -u
version=${1:?usage: check_flags.sh VERSION PROGRAM...}
shift
status=0
for prog in "$@"; do
  name=$(basename "$prog")
  out=$("$prog" --help 2>&1) || { echo "$name --help exited $?"; status=1; }
  case $out in
    usage:*) ;;
    *) echo "$name --help does not start with usage: $out" | head -3; status=1 ;;
  esac
  out=$("$prog" --version 2>&1) || { echo "$name --version exited $?"; status=1; }
  [ "$out" = "$name (bt) $version" ] || { echo "$name --version printed '$out', not '$name (bt) $version'"; status=1; }
done
[ $status = 0 ] && echo "flags: $# programs answer --help and --version"
exit $status
