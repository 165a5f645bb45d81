#!/bin/sh
# SPDX-License-Identifier: MIT
# check_spdx.sh SRC: every source file of the repository (C, Lua, shell, CMake, the Makefile, the
# rockspecs, the viewer's page and its tests: JavaScript, CSS, HTML; not npm's node_modules) names
# its license in one of its first three lines, as LICENSE gives it:
# "SPDX-License-Identifier: MIT". Prints each file that does not and fails.
set -u
src=${1:?usage: check_spdx.sh SRC}
cd "$src" || exit 2
missing=$(find . \( -path './build*' -o -path './.git' -o -path '*/corpus' -o -name node_modules \) -prune -o -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.lua' -o -name '*.sh' -o -name '*.cmake' \
     -o -name 'CMakeLists.txt' -o -name 'Makefile' -o -name '*.rockspec' -o -name '*.in' \
     -o -name '.busted' -o -path './.ci/run' -o -name '*.js' -o -name '*.mjs' \
     -o -name '*.css' -o -name '*.html' \) -print |
  while read -r f; do
    head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
  done)
if [ -n "$missing" ]; then
  echo "no SPDX-License-Identifier: MIT line in:"
  echo "$missing"
  exit 1
fi
echo "spdx: every source file names its license"
