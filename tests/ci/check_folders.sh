#!/bin/sh
# SPDX-License-Identifier: MIT
# The folders of src/ are layers, listed from the bottom up in src/LAYERS: a file calls only files
# of its own folder and of folders listed before it, and inside a folder no circle of calls takes
# in more than two files. Reads what each object file defines and uses (nm), and names every call
# that goes up, every circle of more than two files, every folder of src/ that src/LAYERS does
# not list, and every folder with C files of which no object was given. Prints the calls between
# folders and the circles of two files it found.
# usage: check_folders.sh <source dir> <object files...>
set -eu
src=$1/src
shift
order=$(sed -n 's/^\([a-z_]*\) .*/\1/p' "$src/LAYERS")
[ -n "$order" ] || { echo "no layers listed in $src/LAYERS"; exit 1; }
folders=$(for d in "$src"/*/; do
  ls "$d" | grep -q '\.c$' && basename "$d"
done)
for o in "$@"; do
  case $o in */src/*/*) ;; *) continue ;; esac # generated files (the embedded scripts, the page)
  rel=${o##*/src/}
  folder=${rel%%/*}
  f=$(basename "$rel" | sed 's/\.o$//; s/\.obj$//')
  echo "O $folder $folder/$f"
  nm "$o" | awk -v f="$folder/$f" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /[TDRBV]/ { print "D", f, $3 }'
done | awk -v order="$order" -v folders="$folders" '
  BEGIN {
    n = split(order, layers, "\n")
    for (i = 1; i <= n; i++) rank[layers[i]] = i
    nf = split(folders, dirs, "\n")
  }
  $1 == "O" { seen[$2] = 1; objects[$3] = $2 }
  $1 == "D" { def[$3] = $2 }
  $1 == "U" { uses[++m] = $2 " " $3 }
  function folder_of(f) { sub(/\/.*/, "", f); return f }
  END {
    bad = 0
    for (i = 1; i <= nf; i++) {
      if (!(dirs[i] in rank)) { print "src/" dirs[i] " is not listed in src/LAYERS"; bad = 1 }
      else if (!(dirs[i] in seen)) { print "no object of src/" dirs[i] " was given"; bad = 1 }
    }
    for (i = 1; i <= m; i++) {
      split(uses[i], u, " ")
      if (!(u[2] in def) || def[u[2]] == u[1]) continue
      from = u[1]; to = def[u[2]]
      a = folder_of(from); b = folder_of(to)
      if (a == b) { call[from, to] = 1; continue }
      if (!(a in rank) || !(b in rank)) continue
      if (rank[b] > rank[a]) { print from " calls " u[2] " of " to ", a layer over it"; bad = 1 }
      down[a " -> " b] = 1
    }
    # inside each folder: which file reaches which (Floyd-Warshall on the few files of a folder)
    nfiles = 0
    for (f in objects) file[++nfiles] = f
    for (k = 1; k <= nfiles; k++)
      for (i = 1; i <= nfiles; i++) {
        if (!((file[i], file[k]) in call)) continue
        for (j = 1; j <= nfiles; j++)
          if ((file[k], file[j]) in call) call[file[i], file[j]] = 1
      }
    for (i = 1; i <= nfiles; i++) {
      if (file[i] in counted) continue
      members = file[i]; size = 1
      for (j = 1; j <= nfiles; j++)
        if (j != i && ((file[i], file[j]) in call) && ((file[j], file[i]) in call)) {
          members = members " " file[j]; size++; counted[file[j]] = 1
        }
      if (size > 2) { print "a circle of " size " files: " members; bad = 1 }
      else if (size == 2) print "  a circle of two files: " members
    }
    for (i = 1; i <= n; i++)
      for (j = 1; j <= n; j++)
        if ((layers[i] " -> " layers[j]) in down) print "  " layers[i] " -> " layers[j]
    print "every call goes down src/LAYERS, no circle of more than two files: " (bad ? "no" : "yes")
    exit bad
  }'
