# The entry points: make demo, make test, make bench. Each installs the Debian packages it needs
# (once), configures and builds with CMake in $(BUILD), then runs.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEBIAN_PACKAGES = gcc libc6-dev make cmake pkg-config lua5.4 liblua5.4-dev lua-busted

.PHONY: all deps ci-deps build test demo bench install clean

all: build

# Installs whichever of the Debian packages are missing (apt-get update runs once, only then).
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null \
	    || { echo "could not install:$$missing" >&2; exit 1; }; \
	fi

# What .ci/run needs besides: valgrind (tests/ci/valgrind.sh) and clang (tests/fuzz/run.sh), installed
# with the others in one apt-get run.
ci-deps: DEBIAN_PACKAGES += valgrind clang
ci-deps: deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	$(BUILD)/examples/arena/bt-arena --watch

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
	LUA_CPATH="$(BUILD)/lib/lua/5.4/?.so;;" lua5.4 bench/bench_reload.lua
	@echo
	@if [ -n "$(DS_SCRIPTS)" ]; then \
	  echo "DS_SCRIPTS=$(DS_SCRIPTS) $(BUILD)/bench/bench_think bench/ds_compare.lua"; \
	  DS_SCRIPTS="$(DS_SCRIPTS)" $(BUILD)/bench/bench_think bench/ds_compare.lua; \
	else \
	  echo "Set DS_SCRIPTS to the Don't Starve scripts folder to compare with them (docs/performance.md)."; \
	fi

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
