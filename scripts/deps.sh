#!/bin/sh
# Installs the Debian packages seam needs, only those missing; silent when
# everything is present. Run as root (or with sudo available).
# `scripts/deps.sh fuzz` adds clang and its libFuzzer runtime, which only
# bench/protocol/fuzz_session.sh needs; `scripts/deps.sh bench-precice` adds
# what preCICE's tutorials import (bench/precice/tutorials.sh). chromium is for the test suite: it
# opens a run's report headless (tests/coupler/test_report_browser.py);
# cppcheck is for .ci/run's static analysis (scripts/cppcheck.sh).
# libxml2 reads preCICE configurations; g++ and cmake build the test
# suite's C++ preCICE participant the way an adapter's own build does.
set -eu

packages="meson ninja-build pkg-config gcc libc6-dev
libzmq3-dev libmsgpack-dev libopenblas-dev liblapacke-dev libjansson-dev
libcairo2-dev libcmocka-dev zlib1g-dev libsuitesparse-dev libxml2-dev g++ cmake python3 python3-zmq python3-msgpack python3-numpy
cppcheck
chromium"
case "${1:-}" in
    "") ;;
    fuzz) packages="$packages clang libclang-rt-dev" ;;
    bench-precice) packages="$packages python3-matplotlib python3-dolfin" ;;
    *) echo "usage: scripts/deps.sh [fuzz | bench-precice]" >&2; exit 2 ;;
esac

missing=""
for p in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "seam needs these Debian packages:$missing" >&2
    echo "install them as root: apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
