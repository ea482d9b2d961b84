#!/bin/bash
# Issue 37.4: preCICE's perpendicular-flap tutorial with fluid-openfoam
# (Debian's OpenFOAM v1912 pimpleFoam and preCICE's openfoam-adapter v1.3.1,
# scripts/openfoam_adapter.sh) and solid-calculix (preCICE's calculix-adapter
# v2.20.1, CalculiX 2.20 from Debian's calculix-ccx sources,
# scripts/calculix_adapter.sh), both against seam's libprecice, serially,
# coupled by seam, to the tutorial's end (5 s, 500 windows of 0.01 s;
# bench/precice/flap.bash): the tutorial's reference pairing. Both
# participants are started by the case's run.sh. Prints and records in
# bench/data/precice_tutorials.jsonl the iterations per window (mean max
# min windows), the wall time, the tip's x-displacement (the solid's watch
# point Flap-Tip): its extremes with their times, its last value, and a
# series every 0.1 s. SEAM_BENCH_TIMEOUT (s, default 7200) bounds the run; a
# run stopped by it records how far it got (reached_t).
# Usage: bench/precice/openfoam_calculix.sh TUTORIALS [BUILD_DIR [OPENFOAM_ADAPTER [CALCULIX_ADAPTER]]]
# FLUID_RANKS=N runs the fluid decomposed on N MPI ranks (bench/precice/flap.bash).
# Needs: the adapters' builds (cached; the first CalculiX build takes long:
# CCX_FOPT=-O0 shortens it, docs/precice.md).
SEAM_BENCH=precice_tutorials . "$(dirname "$0")/../rows.sh"
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: bench/precice/openfoam_calculix.sh TUTORIALS [BUILD_DIR [OPENFOAM_ADAPTER [CALCULIX_ADAPTER]]]"
tutorials=$(cd "${1:?$usage}" && pwd)
build=$(cd "${2:-$root/build}" && pwd)
limit=${SEAM_BENCH_TIMEOUT:-7200}
[ -d "$tutorials/perpendicular-flap/solid-calculix" ] || { echo "$tutorials has no perpendicular-flap/solid-calculix" >&2; exit 1; }

foam_lines=$("$root/scripts/openfoam_adapter.sh" "$build" ${3:+"$3"})
ccx_lines=$("$root/scripts/calculix_adapter.sh" "$build" ${4:+"$4"})
eval "$("$build/precice/participant/seam-precice-env")"
eval "$foam_lines"
eval "$ccx_lines"
export SEAM="$build/coupler/seam"

. "$root/bench/precice/flap.bash"
flap_case "$tutorials"
flap_run flap-openfoam-calculix solid-calculix ./run.sh
flap_report flap-openfoam-calculix solid-calculix openfoam=v1912 openfoam_adapter=v1.3.1 fluid_ranks="$fluid_ranks" \
    calculix_ccx=2.20-1 calculix_adapter=v2.20.1 "ccx_fopt=${CCX_FOPT:--O3}"
