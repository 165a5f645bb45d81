#!/bin/sh
# SPDX-License-Identifier: MIT
# check_folders.sh can fail: on a made-up tree whose lower layer calls the one over it, whose
# folder has a circle of three files, and which has a folder src/LAYERS does not list, it names
# each; the same tree without them passes.
# usage: check_folders_fails.sh <check_folders.sh> <C compiler>
set -eu
check=$1
cc=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src/low" "$dir/src/high" "$dir/src/extra" "$dir/obj/src/low" "$dir/obj/src/high" "$dir/obj/src/extra"
printf 'low   the bottom\nhigh  over it\n' >"$dir/src/LAYERS"
printf 'int b(void);\nint h(void);\nint a(void) { return b() + h(); }\n' >"$dir/src/low/a.c"
printf 'int c(void);\nint b(void) { return c(); }\n' >"$dir/src/low/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' >"$dir/src/low/c.c"
printf 'int a(void);\nint h(void) { return 1; }\nint g(void) { return a(); }\n' >"$dir/src/high/h.c"
printf 'int x(void) { return 0; }\n' >"$dir/src/extra/x.c"
compile() {
  for f in low/a low/b low/c high/h extra/x; do
    "$cc" -c -o "$dir/obj/src/$f.c.o" "$dir/src/$f.c"
  done
}
compile
objects="$dir/obj/src/low/a.c.o $dir/obj/src/low/b.c.o $dir/obj/src/low/c.c.o $dir/obj/src/high/h.c.o $dir/obj/src/extra/x.c.o"
if out=$(sh "$check" "$dir" $objects); then
  echo "check_folders.sh passed a tree it must fail:"
  echo "$out"
  exit 1
fi
for want in "low/a.c calls h of high/h.c, a layer over it" "a circle of 3 files" "src/extra is not listed in src/LAYERS"; do
  case $out in
  *"$want"*) ;;
  *)
    echo "check_folders.sh did not say: $want"
    echo "$out"
    exit 1
    ;;
  esac
done
# the same tree, mended: low calls nothing over it, b no longer calls c, extra is listed
printf 'int b(void);\nint a(void) { return b(); }\n' >"$dir/src/low/a.c"
printf 'int b(void) { return 0; }\n' >"$dir/src/low/b.c"
printf 'low   the bottom\nhigh  over it\nextra over both\n' >"$dir/src/LAYERS"
compile
sh "$check" "$dir" $objects >/dev/null || {
  echo "check_folders.sh failed a tree without a fault:"
  sh "$check" "$dir" $objects
  exit 1
}
echo "check_folders.sh fails an upward call, a circle of three files and a folder not listed, and passes the tree without them"
