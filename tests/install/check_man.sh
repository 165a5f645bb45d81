#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages of the installed programs (docs/man): each renders without a warning, and names
# every flag its program's --help lists. Without groff the test is skipped (exit 77), visibly.
# usage: check_man.sh <man page> <program>
set -u
page=$1
prog=$2
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v groff >/dev/null 2>&1; then
  echo "SKIPPED: groff not found (Debian: groff-base); $page was not checked"
  exit 77
fi
warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
[ -z "$warnings" ] || fail "groff warns about $page: $warnings"
# the text as a reader sees it, without bold and underline
text=$(LC_ALL=C groff -man -Tascii -P-cbou "$page" 2>/dev/null)
[ -n "$text" ] || fail "$page renders to nothing"
help=$("$prog" --help) || fail "$prog --help failed"
flags=$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$flags" ] || fail "$prog --help lists no flag"
for flag in $flags; do
  printf '%s\n' "$text" | grep -q -- "$flag\b" || fail "$page does not name $flag, which $prog --help lists"
done
name=$(basename "$prog")
printf '%s\n' "$text" | grep -q "^NAME" && printf '%s\n' "$text" | grep -q "$name - " \
  || fail "$page has no NAME section for $name"
echo "$page: renders without warnings and names $(echo $flags | wc -w) flags of $name --help"
