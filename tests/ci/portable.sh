#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: bt built as on a POSIX system that is not Linux (macOS, the BSDs), in its own build
# directory, and tested there. The platform layer is built without its Linux-only parts
# (-DBT_PLATFORM_NO_LINUX=ON: no inotify, so hot reload compares files' stamps; no /proc, so
# btp_program_path says BT_EIO), and every file, the platform layer's too, is compiled with
# tests/ci/linux_only/ on the include path before the system's folders: each header there
# (sys/inotify.h, sys/epoll.h, linux/futex.h, glibc's malloc.h, ...) is Linux's alone, none of the
# C library's standard headers includes it, and it is an #error, so that including it anywhere
# but in the platform layer's Linux files fails the build. First, with the build's own compiler
# and flags, each of them must fail a file that includes it, and a file that includes every header
# of C11 and POSIX must compile. Then the libraries, bt.so, the programs and the C tests are built
# with -Werror (not the benchmarks: they count the heap with glibc's malloc_usable_size and GNU
# ld's --wrap), bt.so must say that its watcher polls, bt-arena must find its data from argv[0],
# and the C tests (c.*), the arena's hot reload (arena.watch) and the reload spec
# (busted.reload_spec) run there. Run from the repository root.
# usage: tests/ci/portable.sh   (BUILD=dir to change the build directory, default build-portable; JOBS=n)
set -u
stage=portable default_build=build-portable
. "$(dirname "$0")/stage.sh"

[ -f CMakeLists.txt ] && [ -d tests/ci/linux_only ] || { echo "portable: run from the repository root"; exit 2; }
make -s deps || fail "Debian packages"
poison=$(pwd)/tests/ci/linux_only
mkdir -p "$build"
blog=$build/portable-build.log
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBT_PLATFORM_NO_LINUX=ON -DBT_WERROR=ON \
  -DBT_SANITIZE=OFF -DBT_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS=-I$poison" > "$blog" 2>&1 \
  || { tail -n 40 "$blog"; fail "configure, see $blog"; }

# the build's compiler and its flags for every file (CMAKE_C_FLAGS, which name the poisoned folder)
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cflags=$(sed -n 's/^CMAKE_C_FLAGS:[A-Z]*=//p' "$build/CMakeCache.txt")
case $cflags in *"-I$poison"*) ;; *) fail "CMAKE_C_FLAGS does not name $poison: '$cflags'" ;; esac
compile() { # <C text>: compiled as bt's files are (C11, -Werror), its messages on standard output
  # shellcheck disable=SC2086 # $cflags is a list of words
  printf '%s\n' "$1" | "$cc" $cflags -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c - 2>&1
}
poisoned=0
for h in $(cd "$poison" && find . -name '*.h' | sed 's|^\./||' | sort); do
  out=$(compile "#include <$h>") && fail "a file that includes <$h> compiled"
  echo "$out" | grep -qF "$h: Linux-only header outside the platform layer's Linux files" \
    || { echo "$out"; fail "<$h> did not fail with its #error"; }
  poisoned=$((poisoned + 1))
done
[ "$poisoned" -gt 0 ] || fail "no header in $poison"
# what C11 and POSIX give (and sys/ioctl.h, which the platform layer's term.c uses), as bt's files
# and the benchmarks ask for it: none of it includes a poisoned header
every=""
for h in assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal \
         stdalign stdarg stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath threads \
         time uchar wchar wctype aio arpa/inet cpio dirent dlfcn fcntl fnmatch ftw glob grp iconv \
         langinfo libgen monetary net/if netdb netinet/in netinet/tcp nl_types poll pthread pwd regex \
         sched search semaphore spawn strings sys/ipc sys/mman sys/msg sys/resource sys/select sys/sem \
         sys/shm sys/socket sys/stat sys/statvfs sys/time sys/times sys/types sys/uio sys/un \
         sys/utsname sys/wait syslog tar termios unistd utime wordexp sys/ioctl; do
  every="$every#include <$h.h>
"
done
for source in "#define _XOPEN_SOURCE 700" "#define _GNU_SOURCE"; do
  out=$(compile "$source
$every") || { echo "$out"; fail "C11's and POSIX's headers do not compile with $source and the poisoned folder"; }
done

# a poisoned header's #error comes after the line that names the file which included it
cmake --build "$build" -j "$jobs" >> "$blog" 2>&1 \
  || { tail -n 40 "$blog"; grep -B1 -F "Linux-only header outside" "$blog" | grep -F -e 'included from' -e 'error: #error'
       fail "build, see $blog"; }

# bt.so of this build has no watcher of the system's: bt.reload.watch() polls
lua=$(sed -n 's/^LUA_INTERPRETER:[A-Z]*=//p' "$build/CMakeCache.txt")
mode=$(cd "$build" && "$lua" -e 'package.cpath = "lib/lua/5.4/?.so"; io.write(require("bt").reload.watch())' 2>&1)
[ "$mode" = poll ] || fail "bt.reload.watch() says '$mode' in this build, not poll"
# nor a program's path: bt-arena finds its data from argv[0] (here a relative path), as on OpenBSD
out=$("$build/examples/arena/bt-arena" --headless --agents 20 --seconds 2 2>&1) \
  || fail "bt-arena without --data: $out"
case $out in agents=20\ *) ;; *) fail "bt-arena without --data said: $out" ;; esac

log=$build/portable-ctest.log
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$jobs" \
  -R '^(c\.|arena\.watch$|busted\.reload_spec$)' > "$log" 2>&1
status=$?
summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)
[ "$status" = 0 ] || { cat "$log"; fail "${summary:-ctest exit $status}, see $log"; }
! grep -E '\*\*\*Skipped|Not Run' "$log" || fail "tests skipped, see $log"
for t in arena.watch busted.reload_spec c.test_platform c.test_lua_reload; do
  grep -F " $t " "$log" | grep -q " Passed " || fail "$t did not run, see $log"
done
echo "portable: ok, built as on macOS and the BSDs ($poisoned Linux-only headers poisoned, each failing" \
     "a file that includes it); ${summary##* } tests (c.*, arena.watch, busted.reload_spec) passed with" \
     "the polling watcher, in $(($(date +%s) - start))s"
