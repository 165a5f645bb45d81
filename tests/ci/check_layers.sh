#!/bin/sh
# SPDX-License-Identifier: MIT
# The files of src/lua call one another in one direction only: lbt.h lists them in order, and
# each may call only the files listed before it. Reads what each object file defines and what
# it uses (nm), and names every call that goes the other way (which makes a circle).
# usage: check_layers.sh <lbt.h> <object files of src/lua...>
set -eu
header=$1
shift
order=$(sed -n 's|^ \*   \([a-z_]*\.c\) .*|\1|p' "$header")
[ -n "$order" ] || { echo "no list of files in $header"; exit 1; }
for o in "$@"; do
  f=$(basename "$o" | sed 's/\.o$//; s/\.obj$//')
  case $f in *.c) ;; *) f=$f.c ;; esac
  nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /[TDRBV]/ { print "D", f, $3 }'
done | awk -v order="$order" '
  BEGIN { n = split(order, files, "\n"); for (i = 1; i <= n; i++) rank[files[i]] = i }
  $1 == "D" { def[$3] = $2 }
  $1 == "U" { uses[++m] = $2 " " $3 }
  END {
    bad = 0
    for (f in rank) seen[f] = 0
    for (i = 1; i <= m; i++) {
      split(uses[i], u, " ")
      if (!(u[2] in def) || def[u[2]] == u[1]) continue
      from = u[1]; to = def[u[2]]
      if (!(from in rank) || !(to in rank)) { print from " or " to " is not in the list of lbt.h"; bad = 1; continue }
      if (rank[to] >= rank[from]) { print from " calls " u[2] " of " to ", a file after it"; bad = 1 }
      calls[from " -> " to] = 1
    }
    k = 0
    for (c in calls) k++
    print k " calls between files, all going down: " (bad ? "no" : "yes")
    exit bad
  }'
