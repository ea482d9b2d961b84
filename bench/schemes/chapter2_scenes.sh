#!/bin/sh
# Issue 14, item 5: Akbay's chapter-2 scenes (examples/smoke_plank.json,
# water_balloon.json, water_balls.json, water_complex.json, each on a grid
# reduced from the thesis's, coupled by xpm) with the quantities of the
# thesis's Tables 2.3 and 2.4 beside its values: substeps per frame (a
# frame being the scene's `time.frame`, 0.02 or 0.05 s; the thesis does not
# give its frame rate), seconds per substep (the step's time in fluid,
# solids and coupler, from stats.csv), the shares of that time in the fluid,
# the solids and the coupler, and the RMI modes, the mean iterations per
# substep minus one, counted as the thesis counts (coupling.count "thesis":
# successive solid outputs, two solver calls at least). Also the mean
# iterations as seam counts them (a prediction already within tolerance
# ends the step after one call each), from a second run of the plank and
# the balls. Single-threaded (OMP_NUM_THREADS=1).
# Usage: bench/schemes/chapter2_scenes.sh [BUILD_DIR]   (default build)
SEAM_BENCH=chapter2_scenes . "$(dirname "$0")/../rows.sh"   # figures to bench/data/chapter2_scenes.jsonl
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1

# table NAME FRAME THESIS: one line from $out/r/stats.csv
table() {
    awk -F, -v name="$1" -v frame="$2" -v thesis="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { n++; it += $c["iterations"]; f += $c["fluid_s"]; s += $c["solid_s"]; k += $c["coupler_s"];
          if ($c["converged"] != 1) u++; t = $c["t"] }
        END { all = f + s + k
              printf "%-15s %6.1f %8.4f %6.1f %5.1f %5.1f %5.2f %4d   %s\n", name, n / (t / frame), all / n,
                     100 * f / all, 100 * s / all, 100 * k / all, it / n - 1, u, thesis
              printf "@row scene=\x27%s\x27 substeps_frame=%.2f s_substep=%.5f fluid_pct=%.2f solid_pct=%.2f coupler_pct=%.2f modes=%.3f unconverged=%d thesis=\x27%s\x27\n",
                     name, n / (t / frame), all / n, 100 * f / all, 100 * s / all, 100 * k / all, it / n - 1, u, thesis }' "$out/r/stats.csv"
}

# test SCENE SETS...: the scene's convergence test, as seam validate states it
test_of() {
    scene=$1
    shift
    "$seam" validate "$scene" "$@" 2>/dev/null | sed -n 's/.*; \(converged when .*\)/\1/p'
}

# run NAME SCENE FRAME THESIS SETS...
run() {
    name=$1 scene=$2 frame=$3 thesis=$4
    shift 4
    echo "  $scene: $(test_of "$scene" --set coupling.count=thesis "$@")"
    if "$seam" run "$scene" --out "$out/r" --force --quiet --no-report --set output.frames=false \
        --set output.picture=false --set coupling.count=thesis "$@" >"$out/log" 2>&1; then
        table "$name" "$frame" "$thesis"
    else
        printf '%-15s failed: %s\n' "$name" "$(grep -m1 -o 'error: .*' "$out/log" || tail -n1 "$out/log")"
    fi
}

# Every scene runs xpm with its default test (docs/coupling.md, xpm: the
# positions alone, 0.05 cells in the max norm, at most 30 iterations, as the
# thesis's 2.6); each run's test is printed above its row.
echo "scene (figure)  substeps/frame  s/substep  fluid% solid% coupler%  modes  unconverged   | thesis: s/substep substeps/frame fluid% solid% XPM% modes"
run "plank (2.2)" examples/smoke_plank.json 0.02 "96.6 10.5 99.7 0.1 0.2 2.5"
run "balloon (2.4)" examples/water_balloon.json 0.05 "96.3 30.0 98.5 0.4 1.1 5.9"
run "balls (2.5)" examples/water_balls.json 0.02 "30.7 11.8 99.1 0.4 0.5 1.0"
run "complex (2.13)" examples/water_complex.json 0.02 "48.9 16.0 94.5 3.8 1.7 5.1"

echo
echo "iterations per substep as seam counts them (coupling.count seam): scene, mean, unconverged"
for s in smoke_plank water_balls; do
    echo "  examples/$s.json: $(test_of examples/$s.json)"
    "$seam" run examples/$s.json --out "$out/r" --force --quiet --no-report --set output.frames=false \
        --set output.picture=false >"$out/log" 2>&1 || true
    awk -F, -v name="$s" 'NR > 1 { n++; it += $4; if ($6 != 1) u++ }
        END { printf "%-15s %5.2f %4d\n", name, it / n, u; printf "@row count=seam scene=%s it_step=%.3f unconverged=%d\n", name, it / n, u }' \
        "$out/r/stats.csv"
done
