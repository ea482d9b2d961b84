#!/bin/sh
# Issue 32 item 6: how far the quasi-Newton schemes are from Newton on
# preCICE's elastic-tube-1d variant (examples/tube_precice.json, preCICE's
# two-quantity rule: areas and pressures change by less than tol relative,
# 2-norm). For tol = 8e-6, 1e-5 and 1.25e-5: iterations per window (mean,
# max, min) of the exact-Newton reference newton-fd (the residual's Jacobian
# by finite differences at every iterate) under each predictor, beside
# iqn-ils reuse 8 (the scene's) with the quartic predictor, with mixing 0.9,
# and iqn-imvj; at 1e-5, newton-fd's chord form with a Jacobian made every
# a windows (jacobian_age a: what an old Jacobian costs, as a secant
# scheme's reused columns are old); then newton-fd beside the scene's scheme
# on examples/tube.json. About 3 minutes.
# Usage: bench/schemes/tube_newton.sh [BUILD_DIR]   (default build)
SEAM_BENCH=tube_newton . "$(dirname "$0")/../rows.sh"   # figures to bench/data/tube_newton.jsonl
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

. bench/iterations.sh   # iteration_stats (the cwd is the root here)

# run NAME SCENE TOL SETS...: one line
run() {
    name=$1 scene=$2 tol=$3
    shift 3
    set -- "$@"
    [ "$tol" = "-" ] || set -- "$@" --set coupling.measures.0.tolerance="$tol" --set coupling.measures.1.tolerance="$tol"
    if "$seam" run "$scene" --out "$out/r" --force --quiet --no-report "$@" >"$out/log" 2>&1; then
        line=$(iteration_stats "$out/r/stats.csv")
        printf '%-8s %-48s %s\n' "$tol" "$name" "$line"
        echo "@row scene=$scene tolerance=$tol candidate=\"$name\" $(echo "$line" | awk '{ printf "mean_it=%s max_it=%s min_it=%s windows=%s", $1, $2, $3, $4 }')"
    else
        printf '%-8s %-48s failed: %s\n' "$tol" "$name" "$(grep -m1 -o 'error: .*' "$out/log" || tail -n1 "$out/log")"
        echo "@row scene=$scene tolerance=$tol candidate=\"$name\" failed=1"
    fi
}

tube=examples/tube_precice.json
echo "tube, collocated (preCICE's): tolerance, candidate, mean max min windows"
for tol in 8e-6 1e-5 1.25e-5; do
    for p in none linear quadratic quartic; do
        run "newton-fd, predictor $p" $tube $tol --set coupling.scheme=newton-fd --set coupling.predictor=$p
    done
    run "iqn-ils reuse 8, predictor none" $tube $tol
    run "iqn-ils reuse 8, predictor quartic" $tube $tol --set coupling.predictor=quartic
    run "iqn-ils reuse 8 mixing 0.9, predictor quartic" $tube $tol --set coupling.predictor=quartic \
        --set coupling.mixing=0.9
    run "iqn-imvj reuse 8 rs-svd, predictor quartic" $tube $tol --set coupling.scheme=iqn-imvj \
        --set coupling.predictor=quartic
done

echo
echo "tube, collocated: newton-fd's chord form, J_r made at the first iterate every a windows, quartic predictor"
for a in 1 2 3 5 10; do
    run "newton-fd jacobian_age $a, predictor quartic" $tube 1e-5 --set coupling.scheme=newton-fd \
        --set coupling.jacobian_age=$a --set coupling.predictor=quartic
done

echo
echo "examples/tube.json (kappa 100, tau 0.01, its own test): candidate, mean max min steps"
for p in linear quartic; do
    run "newton-fd, predictor $p" examples/tube.json - --set coupling.scheme=newton-fd --set coupling.predictor=$p
    run "its iqn-ils, predictor $p" examples/tube.json - --set coupling.predictor=$p
done
