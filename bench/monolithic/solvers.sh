#!/usr/bin/env bash
# The monolithic projection's solvers against resolution (issue 33.3): the
# floating block at rest from dx 0.05 to 0.00625, IC(0)-PCG, multigrid-PCG
# and the direct solve (CHOLMOD on the whole SPD system) in one run
# (bench_monolithic.c says what it prints): iterations, time per solve fresh
# and with the kept analysis, growth exponents, and each answer's distance
# from IC(0)'s.
# Usage: bench/monolithic/solvers.sh [BUILD_DIR] [REPEATS]
SEAM_BENCH=monolithic . "$(dirname "$0")/../rows.sh"   # figures to bench/data/monolithic.jsonl
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
ninja -C "$build" bench/monolithic/bench_monolithic >/dev/null
"$build/bench/monolithic/bench_monolithic" "$repeats" 1e-3 4
