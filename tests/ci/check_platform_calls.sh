#!/bin/sh
# SPDX-License-Identifier: MIT
# The platform layer (src/platform, btp.h) is the only code that talks to the operating system:
# no other C file under src/ or examples/ includes a system header (pthread.h, unistd.h, sys/*.h,
# termios.h, dlfcn.h, poll.h, windows.h, fnmatch.h) or calls clock_gettime, sigaction or nanosleep
# or reads /proc, so that porting bt to another system means porting that folder. Names each file and line that does; then checks,
# on a copy with one such line planted, that it would be found.
# usage: check_platform_calls.sh <source dir>
set -eu
src=$1

offenders() { # the lines of $1's src/ and examples/ outside src/platform that talk to the system
  grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(pthread\.h|unistd\.h|sys/[a-z_]+\.h|termios\.h|dlfcn\.h|poll\.h|windows\.h|fnmatch\.h)>|clock_gettime|"/proc/|[^_a-z](sigaction|nanosleep)[[:space:]]*\(' \
    "$1/src" "$1/examples" --include='*.c' --include='*.h' 2>/dev/null | grep -v "^$1/src/platform/" || true
}

found=$(offenders "$src")
if [ -n "$found" ]; then
  echo "system calls outside the platform layer (src/platform, btp.h):"
  echo "$found" | sed "s|^$src/||"
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core" "$tmp/src/platform" "$tmp/examples"
printf '#include <unistd.h>\n' > "$tmp/src/core/planted.c"
printf '#include <pthread.h>\n' > "$tmp/src/platform/allowed.c"
printf 'static double t(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return 0; }\n' > "$tmp/examples/planted.c"
printf 'static void s(void) { nanosleep(&(struct timespec){0, 1}, NULL); }\n' > "$tmp/src/core/slept.c"
planted=$(offenders "$tmp" | sed "s|^$tmp/||" | cut -d: -f1 | sort | tr '\n' ' ')
[ "$planted" = "examples/planted.c src/core/planted.c src/core/slept.c " ] || { echo "the check found: '$planted'"; exit 1; }
echo "platform calls: none outside src/platform (a planted one is found)"
