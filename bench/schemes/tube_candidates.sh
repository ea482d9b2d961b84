#!/bin/sh
# Issue 14: coupling candidates on preCICE's elastic-tube-1d variant
# (examples/tube_precice.json: the tutorial's collocated fluid, IQN-ILS
# reusing 8 windows, QR filter 1e-3, first relaxation 0.01, converged when
# areas and pressures change by less than 1e-5 relative, 2-norm). Prints
# each candidate's iterations per window (mean, max, min) next to preCICE
# 3.4.1's 8.55 (max 20, min 7); then the main candidates on seam's staggered
# discretization of the same tube, and on examples/piston.json and
# examples/rising_disc.json (iterations per step: no regression elsewhere).
# Usage: bench/schemes/tube_candidates.sh [BUILD_DIR]   (default build)
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# mean max min rows of the iterations column of a stats.csv
stats() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "iterations") c = i; next }
             { s += $c; n++; if (n == 1 || $c > mx) mx = $c; if (n == 1 || $c < mn) mn = $c }
             END { printf "%6.2f %4d %4d %4d", s / n, mx, mn, n }' "$1"
}

# run NAME SCENE SETS...: one line
run() {
    name=$1 scene=$2
    shift 2
    if "$seam" run "$scene" --out "$out/r" --force --quiet --no-report "$@" >"$out/log" 2>&1; then
        printf '%-52s %s\n' "$name" "$(stats "$out/r/stats.csv")"
    else
        printf '%-52s failed after %s steps: %s\n' "$name" "$(($(wc -l <"$out/r/stats.csv") - 1))" \
            "$(grep -m1 -o 'error: .*' "$out/log" || tail -n1 "$out/log")"
    fi
}

tube=examples/tube_precice.json
imvj="--set coupling.scheme=iqn-imvj"
echo "tube, collocated (preCICE's discretization): candidate, mean max min windows"
echo "preCICE 3.4.1 IQN-ILS                                  8.55   20    7  100"
for p in none linear quadratic; do
    run "iqn-ils reuse 8, predictor $p" $tube --set coupling.predictor=$p
done
for q in 0 8; do
    for r in none rs-svd rs-ls rs-0; do
        for p in none linear quadratic; do
            run "iqn-imvj reuse $q restart $r, predictor $p" $tube $imvj --set coupling.reuse=$q \
                --set coupling.restart=$r --set coupling.predictor=$p
        done
    done
done
for p in none linear quadratic; do
    run "rmi reuse 8, predictor $p" $tube --set coupling.scheme=rmi --set coupling.predictor=$p
done

echo
echo "tube, staggered (seam's discretization, same physics): candidate, mean max min windows"
stag="--set fluid.discretization=staggered --set solids.0.cells=100"
for p in none linear quadratic; do
    run "iqn-ils reuse 8, predictor $p" $tube $stag --set coupling.predictor=$p
    run "iqn-imvj reuse 0 restart none, predictor $p" $tube $stag $imvj --set coupling.reuse=0 --set coupling.restart=none --set coupling.predictor=$p
    run "iqn-imvj reuse 8 restart rs-svd, predictor $p" $tube $stag $imvj --set coupling.predictor=$p
    run "rmi reuse 8, predictor $p" $tube $stag --set coupling.scheme=rmi --set coupling.predictor=$p
done

for scene in examples/piston.json examples/rising_disc.json; do
    echo
    echo "$scene: candidate, mean max min steps"
    for p in linear quadratic; do
        run "scene's scheme, predictor $p" $scene --set coupling.predictor=$p
        run "iqn-ils, predictor $p" $scene --set coupling.scheme=iqn-ils --set coupling.predictor=$p
        run "iqn-ils reuse 8, predictor $p" $scene --set coupling.scheme=iqn-ils --set coupling.reuse=8 --set coupling.predictor=$p
        run "iqn-imvj rs-svd, predictor $p" $scene $imvj --set coupling.predictor=$p
        run "iqn-imvj reuse 8 rs-svd, predictor $p" $scene $imvj --set coupling.reuse=8 --set coupling.predictor=$p
        run "iqn-imvj none, predictor $p" $scene $imvj --set coupling.restart=none --set coupling.predictor=$p
    done
done
