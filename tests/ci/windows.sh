#!/bin/sh
# SPDX-License-Identifier: MIT
# CI: bt for 64-bit Windows, cross-compiled here with MinGW-w64 (cmake/mingw-w64.cmake) against a
# Lua 5.4 built for Windows from Debian's lua5.4 source package (tests/ci/debian_source.sh,
# its own makefile's mingw target: lua54.dll, lua.exe), then run under wine:
#   build   the libraries, bt.dll (the Lua module), bt-arena, bt-log and the C tests, -Werror;
#           each imports Win32's DLLs alone
#   c       the C tests (ctest -R '^c\.', each program under wine)
#   arena   bt-arena headless with --record, for seeds and thread counts: the log's bytes must be
#           those of the Linux build's bt-arena for the same flags; bt-log.exe reads the log; the
#           console view, in a terminal wine makes a console of, draws frames and quits on 'q'
#           (a terminal: script(1))
#   lua     the README's example and a brain hot-reloaded by polling, with lua.exe and bt.dll
#   view    the viewer's server (libbtview, on civetweb built from Debian's source for Windows):
#           bt-log.exe view serves a log's page and data as Linux's bt-log view does
# usage: tests/ci/windows.sh [stage...]   (all five by default; BUILD=dir, default build-windows;
#        LINUX_BUILD=dir, the Linux build whose bt-arena is the reference, default build; JOBS=n)
# Run from the repository root, after make (the Linux build).
set -u
stage=windows default_build=build-windows
. "$(dirname "$0")/stage.sh"
linux_build=${LINUX_BUILD:-build}
stages=${*:-build c arena lua view}

[ -f CMakeLists.txt ] && [ -d tests/ci ] || { echo "windows: run from the repository root"; exit 2; }
mingw=x86_64-w64-mingw32
command -v $mingw-gcc >/dev/null 2>&1 || fail "$mingw-gcc is missing (Debian: gcc-mingw-w64-x86-64-win32; make ci-deps)"
command -v wine >/dev/null 2>&1 || fail "wine is missing (Debian: wine, wine64; make ci-deps)"
mkdir -p "$build"
build=$(cd "$build" && pwd)
lua_dir=$build/lua

# wine: its own prefix in the build folder (made on the first run), quiet, and lua54.dll found
export WINEPREFIX="$build/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPATH="$(winepath -w "$lua_dir/src" 2>/dev/null || echo "$lua_dir/src")"

build_stage() {
  version=$(dpkg-query -W -f='${Version}' lua5.4 2>/dev/null) || fail "lua5.4 is not installed"
  if [ ! -f "$lua_dir/src/lua54.dll" ] || [ "$(cat "$lua_dir/.built" 2>/dev/null)" != "$version" ]; then
    echo "windows: building Debian's Lua $version for Windows"
    sh tests/ci/debian_source.sh lua5.4 "$lua_dir" "$build/apt" build-system || fail "Debian's Lua source"
    make -s -C "$lua_dir/src" clean >/dev/null 2>&1
    make -s -C "$lua_dir/src" mingw CC=$mingw-gcc "AR=$mingw-ar rc" RANLIB=$mingw-ranlib \
      >"$build/lua-build.log" 2>&1 || { cat "$build/lua-build.log"; fail "building Lua for Windows"; }
    echo "$version" >"$lua_dir/.built"
  fi
  # civetweb, for the viewer's server: Debian's source, its one C file compiled as its makefile
  # does for Windows (Winsock; no SSL, no CGI; WebSockets on, as Debian builds it; its own clock,
  # not MinGW's POSIX emulation: IN_WINPTHREAD keeps that out of <time.h>)
  cw_dir=$build/civetweb
  if [ ! -f "$cw_dir/libcivetweb.a" ] || [ "$(cat "$cw_dir/.built" 2>/dev/null)" != "$(cat "$cw_dir/src/.version" 2>/dev/null)" ]; then
    echo "windows: building Debian's civetweb for Windows"
    sh tests/ci/debian_source.sh libcivetweb-dev "$cw_dir/src" "$build/apt-civetweb" || fail "Debian's civetweb source"
    $mingw-gcc -O2 -c "$cw_dir/src/src/civetweb.c" -I"$cw_dir/src/include" -DUSE_WEBSOCKET -DNO_SSL -DNO_CGI \
      -DIN_WINPTHREAD -o "$cw_dir/civetweb.o" >"$build/civetweb-build.log" 2>&1 ||
      { cat "$build/civetweb-build.log"; fail "building civetweb for Windows"; }
    rm -f "$cw_dir/libcivetweb.a"
    $mingw-ar rc "$cw_dir/libcivetweb.a" "$cw_dir/civetweb.o" || fail "civetweb's archive"
    cp "$cw_dir/src/.version" "$cw_dir/.built"
  fi
  blog=$build/windows-build.log
  # CMakePresets.json's mingw-w64 preset, as docs/platforms.md gives it to a reader
  { LUA_DIR=$lua_dir cmake --preset mingw-w64 -B "$build" -DBT_VIEW=ON "-DCIVETWEB_INCLUDE_DIR=$cw_dir/src/include" \
      "-DCIVETWEB_LIBRARY=$cw_dir/libcivetweb.a" &&
      cmake --build "$build" -j "$jobs"; } >"$blog" 2>&1 || { cat "$blog"; fail "build"; }
  # Win32 itself, not MinGW's POSIX emulation (libwinpthread), and no DLL of MinGW's beside them
  for f in "$build"/*.dll "$build"/lib/lua/5.4/bt.dll "$build"/lib/lua/5.4/bt/*.dll \
           "$build/examples/arena/bt-arena.exe" "$build/tools/bt-log.exe"; do
    [ -f "$f" ] || fail "the build made no $f"
    imports=$($mingw-objdump -p "$f" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr '\n' ' ')
    case " $imports" in *" libwinpthread"* | *" libgcc"*) fail "${f#"$build"/} needs MinGW's DLLs: $imports" ;; esac
  done
  # wine makes its prefix on the first program it runs: once here, not inside a test's time
  wine "$lua_dir/src/lua.exe" -e 'assert(_VERSION == "Lua 5.4")' >/dev/null 2>&1 ||
    fail "Lua for Windows does not run under wine"
  echo "windows: built"
}

c_stage() {
  log=$build/windows-c.log
  ctest --test-dir "$build" -R '^c\.' -j "$jobs" --output-on-failure >"$log" 2>&1 || { cat "$log"; fail "a C test"; }
  grep -qE '\*\*\*Skipped|Not Run' "$log" && { cat "$log"; fail "a C test was skipped"; }
  n=$(grep -cE 'Test +#[0-9]+: c\.' "$log")
  [ "$n" -gt 0 ] || fail "no C test ran"
  echo "windows: the $n C tests passed under wine"
}

# Runs a Windows program under wine: its text output as a POSIX program's (wine hands over the
# runtime's "\r\n" line ends), its exit status kept.
run_windows() {
  out=$(mktemp)
  wine "$@" >"$out" 2>"$out.err"
  rc=$?
  tr -d '\r' <"$out"
  tr -d '\r' <"$out.err" >&2
  rm -f "$out" "$out.err"
  return $rc
}

arena_stage() {
  linux_arena=$linux_build/examples/arena/bt-arena
  [ -x "$linux_arena" ] || fail "no Linux bt-arena in $linux_build (run make first)"
  tmp=$(mktemp -d)
  runs=0
  # the flags of each run: seeds, sizes and thread counts (0: serial; 3: more workers than cores)
  for flags in "--agents 40 --seconds 20 --seed 1" "--agents 300 --seconds 60 --seed 7 --threads 0" \
               "--agents 300 --seconds 60 --seed 7 --threads 3" "--agents 100 --seconds 120 --seed 3"; do
    # shellcheck disable=SC2086
    run_windows "$build/examples/arena/bt-arena.exe" --headless $flags --record "$tmp/windows.log" \
      >"$tmp/windows.out" 2>&1 || { cat "$tmp/windows.out"; fail "bt-arena.exe $flags"; }
    # shellcheck disable=SC2086
    "$linux_arena" --headless $flags --record "$tmp/linux.log" >"$tmp/linux.out" 2>&1 ||
      { cat "$tmp/linux.out"; fail "Linux's bt-arena $flags"; }
    if ! cmp "$tmp/linux.log" "$tmp/windows.log"; then
      "$linux_build/tools/bt-log" diff "$tmp/linux.log" "$tmp/windows.log" | head -20
      fail "bt-arena.exe $flags recorded another log than Linux's bt-arena"
    fi
    # the summary's figures but the wall times, and the recording's name
    for side in linux windows; do
      sed -e 's/ wall=[^ ]*//; s/ [a-z_]*us_per_tick=[^ ]*//g; s/ recorded=[^ ]*//' "$tmp/$side.out" >"$tmp/$side.sum"
    done
    cmp -s "$tmp/linux.sum" "$tmp/windows.sum" ||
      { diff "$tmp/linux.sum" "$tmp/windows.sum"; fail "bt-arena.exe $flags summed up another world"; }
    runs=$((runs + 1))
  done
  # bt-log.exe reads the last log as Linux's bt-log does, from a file and from its standard input
  # (the patterns are bt-log's, not the shell's: globbing off)
  set -f
  for sub in "stats" "print --label ewe*" "print --node *Hungry" "tree --agent 22 --at 30" "why --agent 22 --at 30"; do
    # shellcheck disable=SC2086
    "$linux_build/tools/bt-log" $sub "$tmp/linux.log" >"$tmp/linux.txt" 2>&1
    # shellcheck disable=SC2086
    run_windows "$build/tools/bt-log.exe" $sub "$tmp/linux.log" >"$tmp/windows.txt" 2>&1
    cmp -s "$tmp/linux.txt" "$tmp/windows.txt" || { diff "$tmp/linux.txt" "$tmp/windows.txt" | head; fail "bt-log.exe $sub"; }
    [ -s "$tmp/linux.txt" ] || fail "bt-log $sub printed nothing"
  done
  set +f
  run_windows "$build/tools/bt-log.exe" stats - <"$tmp/linux.log" >"$tmp/windows.txt" 2>&1
  "$linux_build/tools/bt-log" stats "$tmp/linux.log" >"$tmp/linux.txt" 2>&1
  cmp -s "$tmp/linux.txt" "$tmp/windows.txt" || { diff "$tmp/linux.txt" "$tmp/windows.txt" | head; fail "bt-log.exe stats -"; }
  console_view "$tmp"
  rm -rf "$tmp"
  echo "windows: bt-arena.exe recorded the same log bytes as Linux's in $runs runs; bt-log.exe read them alike;" \
       "its console view drew frames and quit on 'q'"
}

# bt-arena.exe's view in a console: wine makes one of a terminal (script(1)'s, 80 x 24); the view
# draws frames ("day 1" in the status line), a 'q' typed there ends the run long before its
# --seconds, and the summary says so. (wine draws the console again character by character, with
# escapes of its own: the screen is read with them taken out.)
console_view() {
  dir=$1
  mkfifo "$dir/keys"
  script -qfec "stty cols 80 rows 24; wine '$build/examples/arena/bt-arena.exe' --agents 20 --seconds 600" \
    "$dir/screen" <"$dir/keys" >/dev/null 2>&1 &
  pid=$!
  exec 3>"$dir/keys"
  shown=no
  for _ in $(seq 300); do
    grep -q ' day 1 ' "$dir/screen" 2>/dev/null && { shown=yes; break; }
    sleep 0.1
  done
  printf q >&3
  for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  exec 3>&-
  kill $pid 2>/dev/null
  wait $pid 2>/dev/null
  [ $shown = yes ] || fail "bt-arena.exe drew no frame in a console"
  summary=$(sed 's/\x1b\[1C/ /g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' "$dir/screen" | tr -d '\r' | grep -ao 'agents=20 simulated=[0-9.]*' | tail -1)
  [ -n "$summary" ] || fail "bt-arena.exe in a console printed no summary after 'q'"
  awk -v s="${summary##*=}" 'BEGIN { exit !(s < 600) }' || fail "'q' did not end bt-arena.exe in a console: $summary"
}

lua_stage() {
  host_lua=$(command -v lua5.4) || fail "no lua5.4"
  bin=$build/bin
  mkdir -p "$bin"
  # lua5.4 for the docs' blocks: Windows' lua.exe under wine, and bt.dll where they name bt.so
  cat >"$bin/lua5.4" <<WRAPPER
#!/bin/sh
LUA_CPATH=\$(printf %s "\${LUA_CPATH:-}" | sed 's/\\.so;/.dll;/g; s/\\.so\$/.dll/')
export LUA_CPATH
out=\$(mktemp)
wine "$lua_dir/src/lua.exe" "\$@" >"\$out"
rc=\$?
tr -d '\\r' <"\$out"
rm -f "\$out"
exit \$rc
WRAPPER
  chmod +x "$bin/lua5.4"
  log=$build/windows-readme.log
  PATH="$bin:$PATH" "$host_lua" tests/docs/check_blocks.lua "$PWD" "$build" README.md >"$log" 2>&1 ||
    { cat "$log"; fail "the README's example with lua.exe and bt.dll"; }
  grep -q '1 ran, 1 outputs as the docs show them' "$log" || { cat "$log"; fail "the README's example did not run"; }
  # a brain hot-reloaded by polling (Windows has no watcher bt uses: "auto" must poll), against
  # the same script with Linux's lua5.4 and bt.so, polling too
  tmp=$(mktemp -d)
  mkdir "$tmp/windows" "$tmp/linux"
  LUA_CPATH="$build/lib/lua/5.4/?.dll" run_windows "$lua_dir/src/lua.exe" tests/ci/reload_smoke.lua "$tmp/windows" auto \
    >"$tmp/windows.txt" 2>&1 || { cat "$tmp/windows.txt"; fail "a brain hot-reloaded under Windows"; }
  LUA_CPATH="$linux_build/lib/lua/5.4/?.so" "$host_lua" tests/ci/reload_smoke.lua "$tmp/linux" poll \
    >"$tmp/linux.txt" 2>&1 || { cat "$tmp/linux.txt"; fail "a brain hot-reloaded under Linux"; }
  cmp -s "$tmp/linux.txt" "$tmp/windows.txt" ||
    { diff "$tmp/linux.txt" "$tmp/windows.txt"; fail "the hot reload under Windows did not go as under Linux"; }
  grep -q '^watching by poll$' "$tmp/windows.txt" || { cat "$tmp/windows.txt"; fail "Windows did not poll"; }
  rm -rf "$tmp"
  echo "windows: the README's example and a brain hot-reloaded by polling ran with lua.exe and bt.dll as on Linux"
}

# Starts `bt-log view LOG` (the command's words in "$@") in the background, and waits for the
# line with its address: into $view_url, its process into $view_pid.
start_view() {
  out=$(mktemp)
  "$@" >"$out" 2>&1 &
  view_pid=$!
  view_url=
  for _ in $(seq 100); do
    view_url=$(sed -n 's/^viewer: //p' "$out" | tr -d '\r')
    [ -n "$view_url" ] && break
    sleep 0.1
  done
  [ -n "$view_url" ] || { cat "$out"; fail "no viewer address from $*"; }
  rm -f "$out"
}

view_stage() {
  tmp=$(mktemp -d)
  "$linux_build/examples/arena/bt-arena" --headless --agents 40 --seconds 20 --seed 1 --record "$tmp/run.log" >/dev/null ||
    fail "Linux's bt-arena"
  start_view "$linux_build/tools/bt-log" view "$tmp/run.log"
  linux_pid=$view_pid linux_url=${view_url%/}
  start_view wine "$build/tools/bt-log.exe" view "$tmp/run.log"
  windows_pid=$view_pid windows_url=${view_url%/}
  status=0
  # the page and the data, from each server: the same bytes
  for path in / /main.js /style.css /api/kinds /api/agents /api/agents/12 "/api/agents/12/history?count=200" \
              /api/agents/12/stats /api/nothing; do
    curl -s -o "$tmp/linux.body" -w '%{http_code}\n' "$linux_url$path" >"$tmp/linux.code" || status=1
    curl -s -o "$tmp/windows.body" -w '%{http_code}\n' "$windows_url$path" >"$tmp/windows.code" || status=1
    want=200
    [ "$path" = /api/nothing ] && want=404
    [ "$(cat "$tmp/linux.code")" = "$want" ] || { echo "GET $path: Linux's server said $(cat "$tmp/linux.code")"; status=1; }
    if ! cmp -s "$tmp/linux.code" "$tmp/windows.code" || ! cmp -s "$tmp/linux.body" "$tmp/windows.body"; then
      echo "GET $path: Linux's server $(cat "$tmp/linux.code"), Windows' $(cat "$tmp/windows.code"):"
      cmp "$tmp/linux.body" "$tmp/windows.body"
      status=1
    fi
  done
  kill "$linux_pid" 2>/dev/null
  wineserver -k 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
  [ "$status" = 0 ] || fail "bt-log.exe view answered otherwise than Linux's bt-log view"
  echo "windows: bt-log.exe view served the page and a log's data as Linux's bt-log view does"
}

for step in $stages; do
  case $step in
    build) build_stage ;;
    c) c_stage ;;
    arena) arena_stage ;;
    lua) lua_stage ;;
    view) view_stage ;;
    *) fail "no stage '$step' (build, c, arena, lua, view)" ;;
  esac
done
echo "windows: ok ($stages) in $(($(date +%s) - start))s"
