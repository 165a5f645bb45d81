#!/bin/sh
# SPDX-License-Identifier: MIT
# Unpacks the source of Debian's installed lua5.4 into a folder, with Debian's patches applied but
# its build system's (libtool): the module paths, the fixes of the security updates. The source
# package comes from the archive by apt-get source, checked against the archive's signatures, with
# a sources list of its own in WORK: the machine's apt settings are left alone. Does nothing when
# DEST already holds that version (DEST/.version). tests/ci/apicheck.sh builds it with the API
# checks, tests/ci/windows.sh for Windows.
# usage: tests/ci/debian_lua_source.sh DEST WORK      (needs apt-get, dpkg-query, tar, xz, patch)
set -u
[ $# = 2 ] || { echo "usage: $0 DEST WORK" >&2; exit 2; }
dest=$1
apt_dir=$2
fail() {
  echo "debian_lua_source: $1" >&2
  exit 1
}
version=$(dpkg-query -W -f='${Version}' lua5.4 2>/dev/null) || fail "lua5.4 is not installed"
[ -f "$dest/src/lua.h" ] && [ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ] && exit 0
rm -rf "$apt_dir" "$dest"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache" "$apt_dir/get" "$dest"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
{
  echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename main"
  echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename-updates main"
  echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main"
} >"$apt_dir/sources.list"
set -- -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root
apt-get "$@" update -qq >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; fail "apt-get update"; }
(cd "$apt_dir/get" && apt-get "$@" source --download-only "lua5.4=$version") >"$apt_dir/source.log" 2>&1 ||
  { cat "$apt_dir/source.log" >&2; fail "apt-get source lua5.4=$version"; }
tar -xzf "$apt_dir"/get/lua5.4_*.orig.tar.gz -C "$dest" --strip-components=1 || fail "unpacking Lua"
tar -xJf "$apt_dir"/get/lua5.4_*.debian.tar.xz -C "$dest" || fail "unpacking Debian's patches"
grep -v '^#' "$dest/debian/patches/series" | grep -v build-system | while read -r p; do
  [ -n "$p" ] || continue
  patch -d "$dest" -p1 -s <"$dest/debian/patches/$p" || exit 1
done || fail "applying Debian's patches"
echo "$version" >"$dest/.version"
