#!/bin/sh
# SPDX-License-Identifier: MIT
# check_citations.sh SRC [BUILD]: the repository stands alone (docs/testing.md, "A repository
# that stands alone"). Fails, naming file and line, when a file under SRC
#   - names a page docs/<name>.md that does not exist;
#   - or, in a Markdown file, links to a relative path that does not exist or leaves SRC.
# It reads the files with find and grep, so it works on an export without .git. Skipped: .git,
# BUILD (a build folder inside SRC) and folders named build*, node_modules (npm's packages of
# tests/browser, not ours), binary files, and this file.
#
# check_citations.sh --selftest: makes a tree with one fault of each kind and one clean file, and
# checks that each fault is reported and the clean file is not (so the check can fail).
set -u

check() {
  src=$1
  build=${2:-}
  status=0
  list=$(mktemp)
  find "$src" \( -name .git -o -name node_modules -o -name 'build*' -type d \) -prune -o -type f -print |
    while IFS= read -r f; do
      [ -n "$build" ] && case "$f" in "$build"/*) continue ;; esac
      case "$f" in */tests/ci/check_citations.sh) continue ;; esac
      grep -Iq . "$f" 2>/dev/null && printf '%s\n' "$f"
    done >"$list"

  # docs/<name>.md that does not exist
  tr '\n' '\0' <"$list" | xargs -0 grep -n -o -E '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_-]+\.md' 2>/dev/null |
    while IFS= read -r hit; do
      page=${hit##*docs/}
      [ -f "$src/docs/$page" ] || echo "$hit: no such page"
    done >"$list.pages"
  [ -s "$list.pages" ] && { echo "names a page that does not exist:"; cat "$list.pages"; status=1; }

  # relative links of Markdown files: [text](path) and [text](path#anchor)
  grep -E '\.md$' "$list" | while IFS= read -r f; do
    dir=$(dirname "$f")
    grep -n -o -E '\]\([^)[:space:]]+\)' "$f" | while IFS= read -r hit; do
      line=${hit%%:*}
      target=${hit#*](}
      target=${target%)}
      target=${target%%#*}
      case "$target" in ''|http://*|https://*|mailto:*) continue ;; esac
      case "$target" in /*) echo "$f:$line: $target: an absolute path"; continue ;; esac
      if [ ! -e "$dir/$target" ]; then
        echo "$f:$line: $target: no such file"
        continue
      fi
      real=$(cd "$(dirname "$dir/$target")" && pwd -P)
      root=$(cd "$src" && pwd -P)
      case "$real/" in "$root"/*) ;; *) echo "$f:$line: $target: outside the repository" ;; esac
    done
  done >"$list.links"
  [ -s "$list.links" ] && { echo "links to what is not in the repository:"; cat "$list.links"; status=1; }

  rm -f "$list" "$list.pages" "$list.links"
  return $status
}

selftest() {
  t=$(mktemp -d)
  mkdir -p "$t/repo/docs" "$t/repo/src" "$t/beside"
  for p in nodes lua-api c-api; do echo "# ok" >"$t/repo/docs/$p.md"; done
  echo "x" >"$t/beside/outside.md"
  printf '%s\n' "see docs/missing-page.md" >"$t/repo/src/e.lua"
  printf '%s\n' "[out](../../beside/outside.md) [gone](gone.md)" >"$t/repo/docs/f.md"
  printf '%s\n' "-- docs/lua-api.md and docs/c-api.md are ours; [n](nodes.md#x), docs/nodes.md" >"$t/repo/docs/g.md"
  out=$(check "$t/repo")
  rc=$?
  fail=0
  [ $rc -ne 0 ] || { echo "selftest: the faults were not reported"; fail=1; }
  for want in src/e.lua:1 \
              "docs/f.md:1: ../../beside/outside.md: outside" "docs/f.md:1: gone.md: no such file"; do
    printf '%s\n' "$out" | grep -q -F "$want" || { echo "selftest: not reported: $want"; fail=1; }
  done
  printf '%s\n' "$out" | grep -q "g\.md" && { echo "selftest: a clean file was reported:"; echo "$out"; fail=1; }
  rm -rf "$t"
  [ $fail -eq 0 ] && echo "selftest: every fault reported, the clean file not"
  return $fail
}

if [ "${1:-}" = --selftest ]; then
  selftest
  exit $?
fi
[ $# -ge 1 ] || { echo "usage: check_citations.sh SRC [BUILD] | --selftest" >&2; exit 2; }
check "$1" "${2:-}" || exit 1
echo "no citation leaves the repository"
