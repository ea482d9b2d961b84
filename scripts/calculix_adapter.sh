#!/bin/bash
# Issue 37.4: preCICE's calculix-adapter (v2.20.1, its code unchanged: the
# release for CalculiX 2.20 with preCICE 3, which calls preCICE's C API)
# built against Debian 12's calculix-ccx 2.20 sources and seam's libprecice.
# The adapter is CalculiX itself with a few of its files replaced, so it is
# compiled from CalculiX's sources: this fetches Debian's `calculix-ccx`
# source package (apt-get source; dpkg-source applies Debian's patches) and
# builds the adapter's ccx_preCICE with the adapter's own Makefile, pointed
# at those sources, Debian's spooles, arpack, lapack and yaml-cpp, and seam's
# libprecice (pkg-config). Everything is cached under ~/.cache/seam/calculix
# (SEAM_CACHE overrides ~/.cache/seam); each step runs only when its output
# is missing. Not part of CI (the compile takes many minutes).
# CCX_FOPT (e.g. -O0) is appended to the Makefile's Fortran flags (its -O3):
# CalculiX's 940 Fortran files take hours at -O3 on a loaded 2-core machine.
# Objects and ccx_preCICE of such a build go to bin$CCX_FOPT (bin-O0), so a
# cached binary is only reused for the flags it was built with.
# Usage: scripts/calculix_adapter.sh [BUILD_DIR [ADAPTER]]
#   BUILD_DIR  a seam build dir (default build/); its libprecice is found
#              through pkg-config (seam-precice-env)
#   ADAPTER    a git checkout of precice/calculix-adapter holding tag v2.20.1
#              (default: cloned from GitHub)
# Prints, on its last lines, the environment that runs the tutorials'
# solid-calculix case (ccx_preCICE on PATH): `eval "$(scripts/calculix_adapter.sh)"`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
adapter_repo=${2:-https://github.com/precice/calculix-adapter}
tag=v2.20.1
ccx_version=2.20
cache=${SEAM_CACHE:-$HOME/.cache/seam}/calculix
src=$cache/calculix-ccx-$ccx_version
adapter=$cache/calculix-adapter-$tag
fopt=${CCX_FOPT:-}
case "$fopt" in "" | -O0 | -O1 | -O2 | -O3 | -Og) ;; *) echo "calculix_adapter: error: CCX_FOPT must be one of -O0 -O1 -O2 -O3 -Og, not '$fopt'" >&2; exit 1 ;; esac
bin=$adapter/bin$fopt
say() { echo "calculix_adapter: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ -x "$build/precice/participant/seam-precice-env" ] ||
    die "no seam build in $build (meson setup build && ninja -C build)"
eval "$("$build/precice/participant/seam-precice-env")"
pkg-config --exists libprecice || die "pkg-config does not find libprecice through $build"

"$root/scripts/deps.sh" calculix >&2 || die "scripts/deps.sh calculix failed"

mkdir -p "$cache"
# CalculiX's sources, with Debian's patches (spelling fixes and its own Makefile; the adapter uses Makefile.inc)
if [ ! -f "$src/ccx_$ccx_version/src/Makefile.inc" ]; then
    say "fetching Debian's calculix-ccx source package into $cache"
    (cd "$cache" && apt-get source --download-only "calculix-ccx" >&2) ||
        die "apt-get source calculix-ccx failed (a deb-src entry for bookworm is needed: scripts/deps.sh calculix adds one)"
    dscs=("$cache"/calculix-ccx_"$ccx_version"-*.dsc)
    dsc=${dscs[-1]}
    [ -f "$dsc" ] || die "the source package is not calculix-ccx $ccx_version (the adapter's $tag needs $ccx_version): $(echo "$cache"/*.dsc)"
    rm -rf "$src.partial"
    (cd "$cache" && dpkg-source -x "$dsc" "$src.partial" >&2) || die "dpkg-source -x $dsc failed"
    mv "$src.partial" "$src"
fi

if [ ! -f "$adapter/Makefile" ]; then
    rm -rf "$adapter.partial" && mkdir -p "$adapter.partial"
    if [ -d "$adapter_repo" ]; then
        git -C "$adapter_repo" archive "$tag" | tar -x -C "$adapter.partial" ||
            die "$adapter_repo has no tag $tag"
    else
        say "cloning $adapter_repo at $tag"
        git clone -q --depth 1 --branch "$tag" "$adapter_repo" "$adapter.partial" ||
            die "cannot clone $adapter_repo (give a local checkout as the second argument)"
    fi
    mv "$adapter.partial" "$adapter"
fi

if [ ! -x "$bin/ccx_preCICE" ]; then
    # the Makefile's own settings, but for CCX (where the sources are),
    # gfortran >= 10's -fallow-argument-mismatch (the Makefile's note; Debian's rules add it too) and CCX_FOPT
    log=$bin.make.log
    say "building ccx_preCICE (CalculiX with the adapter: many minutes; log: $log)"
    mkdir -p "$bin"
    (cd "$adapter" && nice make -j "${CCX_JOBS:-2}" CCX="$src/ccx_$ccx_version/src" OBJDIR="bin$fopt" \
        ADDITIONAL_FFLAGS="-fallow-argument-mismatch${fopt:+ $fopt}" >"$log" 2>&1) ||
        die "ccx_preCICE did not build: see $log ($(grep -m 1 -E '[Ee]rror:' "$log" || tail -n 1 "$log"))"
    [ -x "$bin/ccx_preCICE" ] || die "ccx_preCICE did not build: see $log"
fi

# the run environment: ccx_preCICE on PATH, seam's libprecice found at run time
echo "export PATH=\"$bin:\$PATH\""
echo "export LD_LIBRARY_PATH=\"$(pkg-config --variable=libdir libprecice)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
