# The newcomer's door: `make demo` builds everything and runs the default
# scene; `make test` builds and runs the whole test suite. Both install any
# missing Debian packages first (scripts/deps.sh).
BUILD ?= build
SCENE ?= examples/rising_disc.json
MESON_SETUP_FLAGS ?=

.PHONY: all demo test deps build clean

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

clean:
	rm -rf $(BUILD) out
