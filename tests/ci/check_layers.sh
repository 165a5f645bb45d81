#!/bin/sh
# SPDX-License-Identifier: MIT
# The files of a library call one another in one direction only: a header lists them in order in
# its opening comment, one line each, " *   file.c   what it holds" (src/lua/lbt.h for the Lua
# binding, src/view/btv_internal.h for the viewer), and each may call only the files listed
# before it. Reads what each object file defines and what it uses (nm), and names every call (or
# use of a variable) that goes the other way, which would make a circle, and every object whose
# file the list does not name. Prints the calls between files it found.
# usage: check_layers.sh <header> <object files of the library...>
set -eu
header=$1
shift
name=$(basename "$header")
order=$(sed -n 's|^ \*   \([a-z_]*\.c\) .*|\1|p' "$header")
[ -n "$order" ] || { echo "no list of files in $header"; exit 1; }
for o in "$@"; do
  f=$(basename "$o" | sed 's/\.o$//; s/\.obj$//')
  case $f in *.c) ;; *) f=$f.c ;; esac
  echo "O $f"
  nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /[TDRBV]/ { print "D", f, $3 }'
done | awk -v order="$order" -v name="$name" '
  BEGIN { n = split(order, files, "\n"); for (i = 1; i <= n; i++) rank[files[i]] = i }
  $1 == "O" { objects[$2] = 1 }
  $1 == "D" { def[$3] = $2 }
  $1 == "U" { uses[++m] = $2 " " $3 }
  END {
    bad = 0
    for (f in objects)
      if (!(f in rank)) { print f " is not in the list of " name; bad = 1 }
    for (i = 1; i <= m; i++) {
      split(uses[i], u, " ")
      if (!(u[2] in def) || def[u[2]] == u[1]) continue
      from = u[1]; to = def[u[2]]
      if (!(from in rank) || !(to in rank)) continue
      if (rank[to] >= rank[from]) { print from " calls " u[2] " of " to ", a file after it"; bad = 1 }
      calls[from " -> " to] = 1
    }
    k = 0
    for (c in calls) k++
    for (i = 1; i <= n; i++)
      for (j = 1; j <= n; j++)
        if ((files[i] " -> " files[j]) in calls) print "  " files[i] " -> " files[j]
    print k " calls between files, all going down the list of " name ": " (bad ? "no" : "yes")
    exit bad
  }'
