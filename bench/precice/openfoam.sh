#!/bin/bash
# Issue 37.4: preCICE's perpendicular-flap tutorial with fluid-openfoam
# (Debian's OpenFOAM v1912 pimpleFoam and preCICE's openfoam-adapter v1.3.1,
# built against seam's libprecice by scripts/openfoam_adapter.sh) and
# solid-fenics, serially, coupled by seam, to the tutorial's end (5 s, 500
# windows of 0.01 s; bench/precice/flap.bash). The fluid is started by the
# case's run.sh (blockMesh, then pimpleFoam), the solid as `python3 solid.py`;
# the first one to start brings up the coupler. Prints and records in bench/data/precice_tutorials.jsonl
# the iterations per window (mean max min windows), the wall time, the tip's
# x-displacement (the solid's watch point Flap-Tip): its extremes with their
# times, its last value, and a series every 0.1 s.
# Usage: bench/precice/openfoam.sh TUTORIALS FENICS_ADAPTER [BUILD_DIR [OPENFOAM_ADAPTER]]
# FLUID_RANKS=N runs the fluid decomposed on N MPI ranks (bench/precice/flap.bash).
# Needs: scripts/deps.sh bench-precice (python3-dolfin); the adapter build
# (scripts/openfoam_adapter.sh, cached: minutes the first time).
SEAM_BENCH=precice_tutorials . "$(dirname "$0")/../rows.sh"
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: bench/precice/openfoam.sh TUTORIALS FENICS_ADAPTER [BUILD_DIR [OPENFOAM_ADAPTER]]"
tutorials=$(cd "${1:?$usage}" && pwd)
fenics=$(cd "${2:?$usage}" && pwd)
build=$(cd "${3:-$root/build}" && pwd)
limit=${SEAM_BENCH_TIMEOUT:-7200}
py=/usr/bin/python3
$py -c 'import dolfin' 2>/dev/null || { echo "python3-dolfin is missing: scripts/deps.sh bench-precice" >&2; exit 1; }

env_lines=$("$root/scripts/openfoam_adapter.sh" "$build" ${4:+"$4"})
eval "$("$build/precice/participant/seam-precice-env")"
eval "$env_lines"
export SEAM="$build/coupler/seam"

. "$root/bench/precice/flap.bash"
flap_case "$tutorials"
# preCICE tutorials issue #573: solid.py releases whose Newmark velocity
# update takes the displacement swing the flap twice as slowly (docs/precice.md)
if grep -q 'update_v(u,' "$dir/solid-fenics/solid.py"; then
    echo "warning: $tutorials/perpendicular-flap/solid-fenics/solid.py updates the velocity with the displacement (update_v(u, ...); preCICE tutorials #573): the flap will swing twice as slowly; use update_v(a_new, ...)" >&2
fi

flap_run flap-openfoam-fenics solid-fenics \
    env PYTHONPATH="$fenics${PYTHONPATH:+:$PYTHONPATH}" $py solid.py
flap_report flap-openfoam-fenics solid-fenics openfoam=v1912 openfoam_adapter=v1.3.1 fluid_ranks="$fluid_ranks"
