#!/bin/sh
# SPDX-License-Identifier: MIT
# A node kind's knowledge lives in the kind table (DESIGN.md, "One of each"): src/core/kinds.c, the
# kind's section of nodes.c, the public header's enum, its C and Lua constructors (builder.c,
# src/lua/classes.c), and at most one file more. Everything else asks the kind table (bt_kind_*).
#
# For every kind of bt_core.h's enum bt_kind (BT_PRIORITY ...; BT_KIND_COUNT is none), and its class name
# as kinds.c's table gives it (bt_kind_name: PriorityNode, NotDecorator ...), this counts the files
# under src/ that name it, with exactly
#     grep -rlwE 'BT_<KIND>|<ClassName>' src
# and prints each kind's count; more than six fails, and the files are listed. Of the public
# headers, only the engine's (bt_core.h, with the enum) names kinds.
# It also looks for a kind tested under another spelling, in the C and JavaScript files of src/
# other than kinds.c:
#   - a kind's name string, its class name or its default name as kinds.c gives them ("PriorityNode",
#     "Priority"), quoted ("..." or '...') as an argument of strcmp or strncmp, next to ==, !=, ===
#     or !==, or as a case label;
#   - a number other than -1 (no kind) compared (==, !=, ===, !==) with a node's kind: a ->kind or
#     .kind member, or a call of a function whose name ends in _kind (bt_def_kind(d, n) ...).
# It does not see a kind kept in a variable before it is compared, nor a name built from pieces.
# usage: check_kinds.sh <source directory>
set -u
top=${1:?usage: check_kinds.sh <source directory>}
cd "$top" || exit 2
header=src/core/bt_core.h
table=src/core/kinds.c
max=6

# the enum's kinds, in order: the lines "  BT_X," between "typedef enum bt_kind {" and "} bt_kind;"
kinds=$(sed -n '/^typedef enum bt_kind {/,/^} bt_kind;/p' "$header" |
  sed -n 's/^[[:space:]]*\(BT_[A-Z0-9_]*\)[[:space:]]*[,=].*/\1/p' | grep -vx BT_KIND_COUNT)
[ -n "$kinds" ] || { echo "no kinds found in the enum bt_kind of $header"; exit 2; }

# a kind's names in the table: the line after "[BT_X] = {" reads '.info = {"Class", "Default", ...'
names_of() {
  sed -n "/^[[:space:]]*\[$1\] = {/{n;p;}" "$table" |
    sed -n 's/^[[:space:]]*\.info = {"\([^"]*\)", "\([^"]*\)".*/\1\t\2/p'
}

bad=0
nkinds=0
for k in $kinds; do
  nkinds=$((nkinds + 1))
  names=$(names_of "$k")
  class=$(printf '%s\n' "$names" | cut -f1)
  default=$(printf '%s\n' "$names" | cut -f2)
  if [ -z "$class" ]; then
    echo "$k: no entry '[$k] = {' with its '.info = {\"Class\", \"Default\", ...' in $table"
    bad=1
    continue
  fi
  files=$(grep -rlwE "$k|$class" src | sort)
  n=$(printf '%s\n' "$files" | grep -c .)
  if [ "$n" -gt "$max" ]; then
    echo "$k $class: $n files (more than $max):" $files
    bad=1
  else
    echo "$k $class: $n files"
  fi
  # its name strings in a comparison
  for s in "$class" "$default"; do
    [ -n "$s" ] || continue
    q=$(printf '%s\n' "$s" | sed 's/[][\.*^$()+?{}|]/\\&/g')
    q="[\"']$q[\"']"
    grep -rnE --include='*.c' --include='*.h' --include='*.js' \
      -e "strn?cmp\([^;]*$q" -e "[=!]==?[[:space:]]*$q" -e "$q[[:space:]]*[=!]==?" -e "case[[:space:]]+$q" src |
      grep -v "^$table:" | while IFS= read -r line; do
        echo "$k: its name \"$s\" compared outside $table: $line"
      done | grep . && bad=1
  done
done

# numbers compared with a node's kind
kind_expr='(->kind|\.kind|[A-Za-z0-9]_kind\([^()]*\))'
number='(-?[02-9]|-?1[0-9]+|[1-9][0-9]*)'
grep -rnE --include='*.c' --include='*.h' --include='*.js' \
  -e "$kind_expr[[:space:]]*[=!]==?[[:space:]]*$number\b" \
  -e "\b$number[[:space:]]*[=!]==?[[:space:]]*[A-Za-z0-9_>.-]*(->kind\b|\.kind\b|_kind\()" src |
  grep -v "^$table:" | while IFS= read -r line; do
    echo "a kind compared with a number: $line"
  done | grep . && bad=1

if [ "$bad" -ne 0 ]; then
  echo "kinds named outside the kind table: FAILED (ask it instead: bt_kind_has, bt_kind_param_format ...)"
  exit 1
fi
echo "$nkinds kinds, each named in at most $max files of src/, none compared by its name or number: ok"
