#!/bin/sh
# Issue 14: coupling candidates on preCICE's elastic-tube-1d variant
# (examples/tube_precice.json: the tutorial's collocated fluid, IQN-ILS
# reusing 8 windows, QR filter 1e-3, first relaxation 0.01, converged when
# areas and pressures change by less than 1e-5 relative, 2-norm). Prints
# each candidate's iterations per window (mean, max, min) next to preCICE
# 3.4.1's 8.55 (max 20, min 7): the predictors (none to quartic), iqn-ils's
# mixing, filter, reuse and first relaxation, iqn-imvj with and without
# reuse under each restart, rmi with reuse; then the main candidates on
# seam's staggered discretization of the same tube, on examples/tube.json,
# examples/piston.json and examples/rising_disc.json (iterations per step:
# what the candidates do elsewhere).
# Usage: bench/schemes/tube_candidates.sh [BUILD_DIR]   (default build)
SEAM_BENCH=tube_candidates . "$(dirname "$0")/../rows.sh"   # figures to bench/data/tube_candidates.jsonl
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

. bench/iterations.sh   # iteration_stats (the cwd is the root here)

# run NAME SCENE SETS...: one line
run() {
    name=$1 scene=$2
    shift 2
    if "$seam" run "$scene" --out "$out/r" --force --quiet --no-report "$@" >"$out/log" 2>&1; then
        line=$(iteration_stats "$out/r/stats.csv")
        printf '%-56s %s\n' "$name" "$line"
        echo "@row scene=$scene candidate=\"$name\" $(echo "$line" | awk '{ printf "mean_it=%s max_it=%s min_it=%s windows=%s", $1, $2, $3, $4 }')"
    else
        echo "@row scene=$scene candidate=\"$name\" failed_after=$(($(wc -l <"$out/r/stats.csv") - 1))"
        printf '%-56s failed after %s steps: %s\n' "$name" "$(($(wc -l <"$out/r/stats.csv") - 1))" \
            "$(grep -m1 -o 'error: .*' "$out/log" || tail -n1 "$out/log")"
    fi
}

tube=examples/tube_precice.json
imvj="--set coupling.scheme=iqn-imvj"
preds="none linear quadratic cubic quartic"
echo "tube, collocated (preCICE's discretization): candidate, mean max min windows"
printf '%-56s %6.2f %4d %4d %4d\n' "preCICE 3.4.1 IQN-ILS (the issue's figures)" 8.55 20 7 100
for p in $preds; do
    run "iqn-ils reuse 8, predictor $p" $tube --set coupling.predictor=$p
done
for m in 0.9 0.8; do
    for p in quadratic cubic quartic; do
        run "iqn-ils reuse 8 mixing $m, predictor $p" $tube --set coupling.mixing=$m --set coupling.predictor=$p
    done
done
for p in quadratic quartic; do
    for f in 1e-4 3e-3 1e-2; do
        run "iqn-ils reuse 8 filter $f, predictor $p" $tube --set coupling.filter=$f --set coupling.predictor=$p
    done
    for q in 4 16; do
        run "iqn-ils reuse $q, predictor $p" $tube --set coupling.reuse=$q --set coupling.predictor=$p
    done
    run "iqn-ils reuse 8 first relaxation 0.1, predictor $p" $tube --set coupling.relaxation=0.1 --set coupling.predictor=$p
done
for q in 0 8; do
    for r in none rs-svd rs-ls rs-0; do
        for p in $preds; do
            run "iqn-imvj reuse $q restart $r, predictor $p" $tube $imvj --set coupling.reuse=$q \
                --set coupling.restart=$r --set coupling.predictor=$p
        done
    done
done
for p in $preds; do
    run "rmi reuse 8, predictor $p" $tube --set coupling.scheme=rmi --set coupling.predictor=$p
done

echo
echo "tube, staggered (seam's discretization, same physics): candidate, mean max min windows"
stag="--set fluid.discretization=staggered --set solids.0.cells=100"
for p in none linear quadratic quartic; do
    run "iqn-ils reuse 8, predictor $p" $tube $stag --set coupling.predictor=$p
    run "iqn-ils reuse 8 mixing 0.9, predictor $p" $tube $stag --set coupling.mixing=0.9 --set coupling.predictor=$p
    run "iqn-imvj reuse 0 restart none, predictor $p" $tube $stag $imvj --set coupling.reuse=0 --set coupling.restart=none --set coupling.predictor=$p
    run "iqn-imvj reuse 8 restart rs-svd, predictor $p" $tube $stag $imvj --set coupling.predictor=$p
    run "rmi reuse 8, predictor $p" $tube $stag --set coupling.scheme=rmi --set coupling.predictor=$p
done

echo
echo "examples/tube.json (kappa 100, tau 0.01): candidate, mean max min steps"
for p in linear quadratic cubic quartic; do
    run "its iqn-ils, predictor $p" examples/tube.json --set coupling.predictor=$p
    run "iqn-ils mixing 0.9, predictor $p" examples/tube.json --set coupling.mixing=0.9 --set coupling.predictor=$p
done

for scene in examples/piston.json examples/rising_disc.json; do
    echo
    echo "$scene: candidate, mean max min steps"
    for p in linear quadratic cubic quartic; do
        run "scene's scheme, predictor $p" $scene --set coupling.predictor=$p
        run "iqn-ils, predictor $p" $scene --set coupling.scheme=iqn-ils --set coupling.predictor=$p
        run "iqn-ils reuse 8, predictor $p" $scene --set coupling.scheme=iqn-ils --set coupling.reuse=8 --set coupling.predictor=$p
        run "iqn-ils reuse 8 mixing 0.9, predictor $p" $scene --set coupling.scheme=iqn-ils --set coupling.reuse=8 \
            --set coupling.mixing=0.9 --set coupling.predictor=$p
        run "iqn-imvj rs-svd, predictor $p" $scene $imvj --set coupling.predictor=$p
        run "iqn-imvj reuse 8 rs-svd, predictor $p" $scene $imvj --set coupling.reuse=8 --set coupling.predictor=$p
        run "iqn-imvj none, predictor $p" $scene $imvj --set coupling.restart=none --set coupling.predictor=$p
    done
done
