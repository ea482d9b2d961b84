#!/bin/sh
# Subcycling and waveforms from the build tree (uninstalled use through the
# build tree's seam-precice-env): participants/ramp.py's Reader reads, at
# substeps of its own, exactly the polynomials Ramp wrote at its substeps
# (degree 0: the sample at or after t; 1: linear; 2: quadratic; 3: cubic).
# Then direct access (participants/direct.py): Probe reads a received mesh
# in its access region, ids and coordinates from getMeshVertexIDsAndCoordinates.
# Argument: the build directory.
set -eu
build=$1
src=$(cd "$(dirname "$0")" && pwd)/participants
fail() { echo "test_precice_waveforms: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-precice-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
eval "$(sh "$build/precice/participant/seam-precice-env")"
export PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH PYTHONPATH SEAM
cp "$src/waveforms.xml" "$tmp/precice-config.xml"
cd "$tmp"
timeout 120 /usr/bin/python3 "$src/ramp.py" Ramp precice-config.xml >ramp.txt 2>&1 &
pid=$!
timeout 120 /usr/bin/python3 "$src/ramp.py" Reader precice-config.xml >reader.txt 2>&1 ||
    { cat reader.txt precice-run/seam-coupler.log >&2; fail "the Reader failed"; }
wait $pid || { cat ramp.txt >&2; fail "Ramp failed"; }
grep -q "^Reader: 240 reads exact" reader.txt || fail "$(cat reader.txt)"
cat reader.txt
mkdir direct && cp "$src/direct.xml" direct/precice-config.xml && cd direct
timeout 120 /usr/bin/python3 "$src/direct.py" Wall precice-config.xml >wall.txt 2>&1 &
pid=$!
timeout 120 /usr/bin/python3 "$src/direct.py" Probe precice-config.xml >probe.txt 2>&1 ||
    { cat probe.txt precice-run/seam-coupler.log >&2; fail "the Probe failed"; }
wait $pid || { cat wall.txt >&2; fail "Wall failed"; }
cat probe.txt
