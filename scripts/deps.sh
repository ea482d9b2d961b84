#!/bin/sh
# Installs the Debian packages seam needs, only those missing; silent when
# everything is present. Run as root (or with sudo available).
# `scripts/deps.sh fuzz` adds clang and its libFuzzer runtime, which only
# bench/protocol/fuzz_session.sh needs; `scripts/deps.sh bench-precice` adds
# what preCICE's tutorials import (bench/precice/tutorials.sh); `scripts/deps.sh openfoam`
# adds Debian's OpenFOAM v1912 and dpkg-dev, and a deb-src entry for bookworm so that
# `apt-get source openfoam` works (scripts/openfoam_adapter.sh). chromium is for the test suite: it
# opens a run's report headless (tests/coupler/test_report_browser.py);
# cppcheck is for .ci/run's static analysis (scripts/cppcheck.sh).
# libxml2 reads preCICE configurations; g++ and cmake build the test
# suite's C++ preCICE participant the way an adapter's own build does;
# Open MPI and mpi4py run its parallel (MPI) participants (tests/precice/test_precice_mpi.sh).
set -eu

packages="meson ninja-build pkg-config gcc libc6-dev
libzmq3-dev libmsgpack-dev libopenblas-dev liblapacke-dev libjansson-dev
libcairo2-dev libcmocka-dev zlib1g-dev libsuitesparse-dev libxml2-dev g++ cmake python3 python3-zmq python3-msgpack python3-numpy
openmpi-bin libopenmpi-dev python3-mpi4py
cppcheck
chromium"
case "${1:-}" in
    "") ;;
    fuzz) packages="$packages clang libclang-rt-dev" ;;
    bench-precice) packages="$packages python3-matplotlib python3-dolfin" ;;
    openfoam) packages="$packages openfoam dpkg-dev" ;;
    *) echo "usage: scripts/deps.sh [fuzz | bench-precice | openfoam]" >&2; exit 2 ;;
esac

# deb-src entries, for `apt-get source openfoam` (Debian 12 ships none by default)
debsrc=/etc/apt/sources.list.d/seam-deb-src.sources
need_src=""
if [ "${1:-}" = openfoam ] && ! grep -Eqs '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
    need_src=1
fi

missing=""
for p in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && [ -z "$need_src" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "seam needs these Debian packages:$missing" >&2
    echo "install them as root: apt-get install -y$missing" >&2
    exit 1
fi
if [ -n "$need_src" ]; then
    echo "adding $debsrc (deb-src for bookworm)"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
        $sudo tee "$debsrc" >/dev/null
fi
echo "installing:$missing"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
[ -z "$missing" ] && exit 0
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
