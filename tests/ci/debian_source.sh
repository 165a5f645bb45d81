#!/bin/sh
# SPDX-License-Identifier: MIT
# Unpacks into DEST the source of an installed Debian package, as the version installed, with
# Debian's patches applied but those whose names match SKIP (a grep pattern; Lua's build-system
# patch, for its libtool). The source package comes from the archive by apt-get source, checked
# against the archive's signatures, with a sources list of its own in WORK: the machine's apt
# settings are left alone. Does nothing when DEST already holds that version (DEST/.version).
# tests/ci/apicheck.sh builds lua5.4's with the API checks; tests/ci/windows.sh builds lua5.4's and
# civetweb's (libcivetweb-dev's) for Windows.
# usage: tests/ci/debian_source.sh PACKAGE DEST WORK [SKIP]   (needs apt-get, dpkg-query, tar, xz,
#        patch)
set -u
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: $0 PACKAGE DEST WORK [SKIP]" >&2; exit 2; }
package=$1
dest=$2
apt_dir=$3
skip=${4:-}
fail() {
  echo "debian_source: $1" >&2
  exit 1
}
version=$(dpkg-query -W -f='${source:Version}' "$package" 2>/dev/null) || fail "$package is not installed"
source=$(dpkg-query -W -f='${source:Package}' "$package")
[ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ] && exit 0
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
(cd "$apt_dir/get" && apt-get "$@" source --download-only "$source=$version") >"$apt_dir/source.log" 2>&1 ||
  { cat "$apt_dir/source.log" >&2; fail "apt-get source $source=$version"; }
tar -xf "$apt_dir"/get/"$source"_*.orig.tar.* -C "$dest" --strip-components=1 || fail "unpacking $source"
tar -xf "$apt_dir"/get/"$source"_*.debian.tar.* -C "$dest" || fail "unpacking Debian's patches of $source"
if [ -f "$dest/debian/patches/series" ]; then
  grep -v '^#' "$dest/debian/patches/series" | { if [ -n "$skip" ]; then grep -v -- "$skip"; else cat; fi; } |
    while read -r p; do
      [ -n "$p" ] || continue
      patch -d "$dest" -p1 -s <"$dest/debian/patches/$p" || exit 1
    done || fail "applying Debian's patches of $source"
fi
echo "$version" >"$dest/.version"
