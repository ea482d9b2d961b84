#!/bin/bash
# Issue 37.4: preCICE's perpendicular-flap tutorial with fluid-openfoam
# (Debian's OpenFOAM v1912 pimpleFoam and preCICE's openfoam-adapter v1.3.1,
# built against seam's libprecice by scripts/openfoam_adapter.sh) and
# solid-fenics, serially, coupled by seam, to the tutorial's end (5 s, 500
# windows of 0.01 s). The fluid is started by the case's run.sh (blockMesh,
# then pimpleFoam), the solid as `python3 solid.py`; the first one to start
# brings up the coupler. Prints and records in bench/data/precice_tutorials.jsonl
# the iterations per window (mean max min windows), the wall time, the tip's
# x-displacement (the solid's watch point Flap-Tip): its extremes with their
# times, its last value, and a series every 0.1 s.
# Usage: bench/precice/openfoam.sh TUTORIALS FENICS_ADAPTER [BUILD_DIR [OPENFOAM_ADAPTER]]
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

work=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/flap"
cp -r "$tutorials/perpendicular-flap" "$work/flap/case"
cp -r "$tutorials/tools" "$work/flap/tools"
dir=$work/flap/case

start=$(date +%s.%N)
rc=0
(cd "$dir/fluid-openfoam" && timeout "$limit" ./run.sh >"$dir/fluid-openfoam.log" 2>&1) &
fluid=$!
(cd "$dir/solid-fenics" && PYTHONPATH="$fenics${PYTHONPATH:+:$PYTHONPATH}" \
    timeout "$limit" $py solid.py >"$dir/solid-fenics.log" 2>&1) &
solid=$!
# the first participant to fail stops the other (it would wait for its partner until the limit)
if ! wait -n "$fluid" "$solid"; then
    rc=1
    pkill -P "$fluid" 2>/dev/null || true
    pkill -P "$solid" 2>/dev/null || true
fi
wait "$fluid" || rc=1
wait "$solid" || rc=1
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
if [ "$rc" -ne 0 ]; then
    echo "flap-openfoam-fenics failed; last lines of the logs:"
    tail -n 5 "$dir/fluid-openfoam.log" "$dir/solid-fenics.log"
    echo "@row case=flap-openfoam-fenics failed=1 wall_s=$wall"
    exit 1
fi

# iterations per window from the solid's iterations log: mean max min windows
it=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Iterations") c = i; next }
          { s += $c; n++; if (n == 1 || $c > mx) mx = $c; if (n == 1 || $c < mn) mn = $c }
          END { printf "%.2f %d %d %d", s / n, mx, mn, n }' \
    "$dir/solid-fenics/precice-Solid-iterations.log")
# the watch point: Time Coordinate0 Coordinate1 Displacement0 Displacement1 Force0 Force1
watch=$dir/solid-fenics/precice-Solid-watchpoint-Flap-Tip.log
tip=$(awk 'NR > 1 { t = $1 + 0; x = $4 + 0
                    if (n == 0 || x > mx) { mx = x; tmx = t }
                    if (n == 0 || x < mn) { mn = x; tmn = t }
                    n++; last = x; tl = t }
           END { printf "%.6e %.2f %.6e %.2f %.6e %.2f", mx, tmx, mn, tmn, last, tl }' "$watch")
series=$(awk 'NR > 1 { c = int($1 * 100 + 0.5); if (c > 0 && c % 10 == 0) { printf "%s%g:%.5g", sep, c / 100, $4; sep = " " } }' "$watch")
read -r mx tmx mn tmn last tl <<<"$tip"
printf '%-22s iterations/window %s   %6ss   tip x: max %s at %s s, min %s at %s s, %s at %s s\n' \
    flap-openfoam-fenics "$it" "$wall" "$mx" "$tmx" "$mn" "$tmn" "$last" "$tl"
echo "tip x every 0.1 s: $series"
echo "@row case=flap-openfoam-fenics wall_s=$wall $(echo "$it" | awk '{ printf "mean_it=%s max_it=%s min_it=%s windows=%s", $1, $2, $3, $4 }')" \
    "tip_x_max=$mx tip_x_max_t=$tmx tip_x_min=$mn tip_x_min_t=$tmn tip_x_last=$last" \
    "openfoam=v1912 openfoam_adapter=v1.3.1 tip_x_series='$series'"
