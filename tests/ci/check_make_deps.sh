#!/bin/sh
# SPDX-License-Identifier: MIT
# The Makefile's dependency check (its `deps` target), run with a PATH of stub directories: where a
# tool is missing and the machine is not a Debian one with apt-get and root or sudo, make names the
# tool and its Debian package and stops, without running apt-get; on Debian it runs apt-get for
# the missing packages only; busted is needed by `make test`, not by the build.
# usage: check_make_deps.sh <source dir>
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
make=$(command -v make) || fail "no make"

# bin/: every command of PATH but those named, and logging stand-ins for apt-get and sudo
# stubs <dir> <uid id prints> <commands left out...>
mkdir "$tmp/all"
old_ifs=$IFS
IFS=:
for d in $PATH; do
  IFS=$old_ifs
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    name=${f##*/}
    [ -x "$f" ] && [ ! -e "$tmp/all/$name" ] || continue
    ln -s "$f" "$tmp/all/$name"
  done
done
IFS=$old_ifs
stubs() {
  dir=$1 uid=$2
  shift 2
  cp -a "$tmp/all" "$dir"
  rm -f "$dir/apt-get" "$dir/sudo" "$dir/id" "$dir/dpkg" "$dir/dpkg-query"
  for name in "$@"; do rm -f "$dir/$name"; done
  for name in apt-get sudo; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$name" "$tmp" > "$dir/$name"
    chmod +x "$dir/$name"
  done
  printf '#!/bin/sh\necho %s\n' "$uid" > "$dir/id"
  chmod +x "$dir/id"
}
dpkg_stub() { printf '#!/bin/sh\nexit 0\n' > "$1/dpkg"; chmod +x "$1/dpkg"; }

run() { # <bin dir> <make arguments...>: runs make in an empty folder; out, err, rc
  bin=$1
  shift
  rm -rf "$tmp/work" "$tmp/calls"
  mkdir "$tmp/work"
  (cd "$tmp/work" && PATH=$bin "$make" -s -f "$src/Makefile" BUILD="$tmp/work/build" "$@") \
    > "$tmp/out" 2> "$tmp/err"
  rc=$?
}
no_apt() {
  [ ! -e "$tmp/calls" ] || fail "$1: apt-get or sudo ran: $(cat "$tmp/calls")"
  [ ! -e "$tmp/work/build" ] || fail "$1: went on to configure"
}

# 1. no dpkg (not Debian), root, no busted: `make test` names busted and lua-busted, runs nothing
stubs "$tmp/nodeb" 0 busted
run "$tmp/nodeb" test
[ $rc -ne 0 ] || fail "make test without busted succeeded"
grep -q "missing:.* busted" "$tmp/err" && grep -q "Debian packages:.* lua-busted" "$tmp/err" \
  || fail "make test without busted did not name busted and lua-busted: $(cat "$tmp/out" "$tmp/err")"
no_apt "make test without dpkg"
echo "no dpkg, no busted: $(head -1 "$tmp/err")"

# 2. the same PATH: the build's check passes (busted is for make test only), silently
run "$tmp/nodeb" deps
[ $rc -eq 0 ] || fail "the build's check failed without busted: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || fail "the build's check said: $(cat "$tmp/out" "$tmp/err")"
no_apt "make deps with every build tool"

# 3. no cmake and no pkg-config: the build's check names them and their packages
stubs "$tmp/nocmake" 0 cmake pkg-config
run "$tmp/nocmake" build
[ $rc -ne 0 ] || fail "make build without cmake succeeded"
grep -q "missing: cmake pkg-config" "$tmp/err" && grep -q "Debian packages: cmake pkg-config liblua5.4-dev" "$tmp/err" \
  || fail "make build without cmake and pkg-config said: $(cat "$tmp/out" "$tmp/err")"
no_apt "make build without dpkg"

# 4. Debian, not root, no sudo: says what is missing, runs nothing
stubs "$tmp/nosudo" 1000 busted
rm -f "$tmp/nosudo/sudo"
dpkg_stub "$tmp/nosudo"
run "$tmp/nosudo" test
[ $rc -ne 0 ] && grep -q "Debian packages:.* lua-busted" "$tmp/err" \
  || fail "make test as a user without sudo said: $(cat "$tmp/out" "$tmp/err")"
no_apt "make test without sudo"

# 5. Debian, root: apt-get installs the missing package and nothing else ...
stubs "$tmp/deb" 0 busted
dpkg_stub "$tmp/deb"
run "$tmp/deb" deps NEEDS="cmake:cmake busted:lua-busted"
[ $rc -eq 0 ] || fail "make deps on Debian failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/calls")" = "apt-get update -qq
apt-get install -y -qq lua-busted" ] || fail "on Debian, apt-get was run as: $(cat "$tmp/calls" 2>/dev/null)"
# ... unless told not to
run "$tmp/deb" deps NEEDS="cmake:cmake busted:lua-busted" INSTALL_DEPS=no
[ $rc -ne 0 ] && grep -q "missing: busted" "$tmp/err" || fail "INSTALL_DEPS=no did not stop"
no_apt "INSTALL_DEPS=no"

# 6. ci-deps asks for the CI tools too
stubs "$tmp/noci" 0 valgrind luarocks
run "$tmp/noci" ci-deps
grep -q "missing:.* valgrind.* luarocks" "$tmp/err" || fail "make ci-deps without valgrind and luarocks said: $(cat "$tmp/out" "$tmp/err")"
no_apt "make ci-deps without dpkg"
echo "make deps: names what is missing with its Debian package, installs only on Debian as root or with sudo"
