# The newcomer's door: `make demo` builds everything and runs the default
# scene; `make test` builds and runs the whole test suite. Both install any
# missing Debian packages first (scripts/deps.sh). `make install` puts seam,
# seam-serve, libseam, the plugins, headers and example scenes under PREFIX
# (DESTDIR=... stages them under another root). After the build, one line
# says what to install when the python3 on PATH lacks numpy, pyzmq or msgpack.
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
	@$(check_python)

# One line when the python3 on PATH lacks a module seam's Python side needs
# (pyenv, conda): which, the python3 the build found instead, how to install them.
define check_python
missing=$$(for m in numpy zmq msgpack; do python3 -c "import $$m" 2>/dev/null || printf ' %s' $$m; done); \
found=$(BUILD)/protocol/python/python3; \
if [ -n "$$missing" ] && [ -e $$found ]; then \
  echo "make: python3 on PATH ($$(command -v python3)) lacks$$missing: the tutorial and Python participants use $$(readlink $$found) (put $(abspath $(BUILD))/protocol/python first on PATH), or install them: python3 -m pip install numpy pyzmq msgpack"; \
elif [ -n "$$missing" ]; then \
  echo "make: python3 on PATH ($$(command -v python3)) lacks$$missing, which Python participants, the seam package and the tutorial need: python3 -m pip install numpy pyzmq msgpack"; \
fi
endef

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
