# SPDX-License-Identifier: MIT
# The entry points: make demo, make test, make bench. Each checks for the tools it needs, configures
# and builds with CMake in $(BUILD), then runs. When a tool is missing: on Debian, as root or with
# sudo, it installs the Debian packages that have it (once); elsewhere, or with INSTALL_DEPS=no, it
# says what is missing, with the Debian package names, and stops.
BUILD ?= build
# the source tree (this file's folder), for make -f path/Makefile from elsewhere
SRC := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
INSTALL_DEPS ?= yes

# What each target needs, as command:Debian package ("cc" must also compile a C file with <stdio.h>:
# gcc+libc6-dev; "lua5.4.pc" is the Lua 5.4 headers and library as `pkg-config lua5.4` finds them;
# "civetweb.h" a header the C compiler finds: civetweb, which libbtview, the viewer's server, uses).
BUILD_NEEDS = cc:gcc+libc6-dev cmake:cmake pkg-config:pkg-config lua5.4:lua5.4 lua5.4.pc:liblua5.4-dev \
  civetweb.h:libcivetweb-dev
TEST_NEEDS = busted:lua-busted
# what .ci/run needs besides: valgrind (tests/ci/valgrind.sh), clang (tests/fuzz/run.sh), a C++
# compiler and luarocks (the consumer and rockspec tests), groff (the man pages' test), graphviz (dot.graphviz),
# node, npm, chromium and Firefox (the viewer's page in a browser: browser.unit, browser.viewer,
# browser.firefox), patch and xz (Debian's Lua source, which tests/ci/apicheck.sh builds, and
# tests/ci/windows.sh for Windows), MinGW-w64's C compiler for Windows, Win32 threads variant
# (tests/ci/windows.sh's cross build), wine (which runs its programs and tests) and curl (which
# asks the Windows viewer's server for its page)
CI_NEEDS = valgrind:valgrind clang:clang g++:g++ luarocks:luarocks groff:groff-base dot:graphviz \
           node:nodejs npm:npm chromium:chromium firefox-esr:firefox-esr patch:patch xz:xz-utils \
           x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64-win32 wine:wine+wine64 curl:curl
NEEDS = $(BUILD_NEEDS)

.PHONY: all deps ci-deps build test demo bench install clean viewer-images

all: build

# Checks NEEDS; installs what is missing where it can (apt-get update runs once, only then).
deps:
	@missing=""; packages=""; \
	for need in $(NEEDS); do \
	  tool=$${need%%:*}; \
	  case $$tool in \
	    *.pc) pkg-config --exists $${tool%.pc} 2>/dev/null ;; \
	    *.h) printf '#include <%s>\n' $$tool | cc -E -x c - >/dev/null 2>&1 ;; \
	    cc) command -v cc >/dev/null 2>&1 && printf '#include <stdio.h>\nint main(void) { return 0; }\n' \
	          | cc -x c -o /dev/null - >/dev/null 2>&1 ;; \
	    *) command -v $$tool >/dev/null 2>&1 ;; \
	  esac || { missing="$$missing $$tool"; packages="$$packages $$(echo $${need#*:} | tr + ' ')"; }; \
	done; \
	[ -n "$$missing" ] || exit 0; \
	sudo=""; \
	if [ "$$(id -u)" != 0 ]; then command -v sudo >/dev/null 2>&1 && sudo=sudo || sudo=none; fi; \
	if [ "$(INSTALL_DEPS)" = yes ] && [ "$$sudo" != none ] && command -v dpkg >/dev/null 2>&1 \
	    && command -v apt-get >/dev/null 2>&1; then \
	  echo "Missing:$$missing; installing the Debian packages:$$packages"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$packages >/dev/null \
	    || { echo "could not install:$$packages" >&2; exit 1; }; \
	else \
	  echo "make: missing:$$missing" >&2; \
	  echo "  (Debian packages:$$packages; install them or your system's equivalents, then run make again)" >&2; \
	  exit 1; \
	fi

# then the browser test's driver, playwright-core, as tests/browser/package-lock.json pins it (no
# browser download: it drives Debian's chromium)
ci-deps: NEEDS += $(TEST_NEEDS) $(CI_NEEDS)
ci-deps: deps
	npm ci --prefix $(SRC)/tests/browser --ignore-scripts --no-audit --no-fund --loglevel=error

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# busted is needed here only; a build configured before it was there looks for it again. After
# ctest's summary: what the specs of the shipped brains cover of each (tests/spec/brain_coverage.lua,
# from the rows the busted.brain_* tests wrote into $(BUILD)/coverage)
test: NEEDS += $(TEST_NEEDS)
test: build
	@if grep -q '^BUSTED_PROGRAM:FILEPATH=.*NOTFOUND' $(BUILD)/CMakeCache.txt; then cmake $(BUILD) >/dev/null; fi
	@rm -f $(BUILD)/coverage/*.txt
	@status=0; ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) || status=$$?; \
	echo; lua5.4 $(SRC)/tests/spec/brain_coverage.lua print $(BUILD)/coverage; exit $$status

# --viewer prints "viewer: http://127.0.0.1:8642/" (or the next free port) for the browser
demo: build
	$(BUILD)/examples/arena/bt-arena --watch --viewer

# DS_SCRIPTS=/path/to/scripts adds the comparison with the original Don't Starve scripts.
bench: build
	DS_SCRIPTS="$(DS_SCRIPTS)" $(BUILD)/bench/bench_think bench/behaviours.lua
	@echo
	$(BUILD)/bench/bench_think bench/think.lua
	@echo
	$(BUILD)/bench/bench_sched
	@echo
	$(BUILD)/bench/bench_cleaf
	@echo
	$(BUILD)/bench/bench_threads
	@echo
	$(BUILD)/bench/bench_board
	@echo
	$(BUILD)/bench/bench_think bench/board.lua
	@echo
	$(BUILD)/bench/bench_lua_pool
	@echo
	$(BUILD)/bench/bench_lua_pool --events --rounds 2
	@echo
	sh bench/bench_arena.sh $(BUILD)/examples/arena/bt-arena
	@echo
	$(BUILD)/bench/bench_rec
	@echo
	$(BUILD)/bench/bench_think bench/recorder.lua
	@echo
	LUA_CPATH="$(BUILD)/lib/lua/5.4/?.so;;" lua5.4 bench/bench_reload.lua
	@echo
	@if [ -x $(BUILD)/bench/bench_view ]; then \
	  echo "$(BUILD)/bench/bench_view $(BUILD)/examples/arena/bt-arena"; \
	  $(BUILD)/bench/bench_view $(BUILD)/examples/arena/bt-arena; \
	else \
	  echo "bench_view: not built (the viewer needs civetweb: Debian libcivetweb-dev)"; \
	fi
	@echo
	@if [ -n "$(DS_SCRIPTS)" ]; then \
	  echo "DS_SCRIPTS=$(DS_SCRIPTS) $(BUILD)/bench/bench_think bench/ds_compare.lua"; \
	  DS_SCRIPTS="$(DS_SCRIPTS)" $(BUILD)/bench/bench_think bench/ds_compare.lua; \
	else \
	  echo "Set DS_SCRIPTS to the Don't Starve scripts folder to compare with them (docs/performance.md)."; \
	fi

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# the screenshots of docs/viewer.md: the browser tests (browser.viewer, browser.firefox) take them in
# $(BUILD)/tests/browser/; this copies them to docs/img/ (needs chromium and npm ci: make ci-deps)
viewer-images: build
	ctest --test-dir $(BUILD) -R '^browser[.](viewer|firefox)$$' --output-on-failure
	mkdir -p $(SRC)/docs/img
	cp $(BUILD)/tests/browser/viewer-*.png $(SRC)/docs/img/

clean:
	rm -rf $(BUILD)
