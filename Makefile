# The newcomer's door: `make demo` builds everything and runs the default
# scene; `make test` builds and runs the whole test suite. Both install any
# missing Debian packages first (scripts/deps.sh). `make install` puts seam,
# seam-serve, libseam, the plugins, headers and example scenes under PREFIX
# (DESTDIR=... stages them under another root).
BUILD ?= build
SCENE ?= examples/rising_disc.json
MESON_SETUP_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all demo test deps build install clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_SETUP_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	$(BUILD)/coupler/seam run $(SCENE) --force

test: build
	meson test -C $(BUILD) --print-errorlogs

install: build
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	ninja -C $(BUILD)
	meson install -C $(BUILD) --no-rebuild $(if $(DESTDIR),--destdir $(abspath $(DESTDIR)))

clean:
	rm -rf $(BUILD) out
