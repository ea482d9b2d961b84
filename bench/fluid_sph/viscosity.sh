#!/usr/bin/env bash
# Takahashi's Table 4.1 (thesis ch. 4.5) on fluid_sph: the full-form viscosity integrated explicitly and
# implicitly (`viscosity_integration`) on a 3D block of 5832 particles (his bunny had 5.5k), his five rows
# (mu = 1000 and 50000 Pa s, dt = 5e-6, 1.3e-3 and 1e-4 s) beside his figures, then the largest explicit step
# that holds at each mu (bench/fluid_sph/bench_viscosity.c says how). One thread; times are CPU time.
# Usage: bench/fluid_sph/viscosity.sh [BUILD_DIR] [STEPS] [SCAN_STEPS]
SEAM_BENCH=sph_viscosity . "$(dirname "$0")/../rows.sh"   # figures to bench/data/sph_viscosity.jsonl
set -euo pipefail
build=${1:-build}
steps=${2:-40}
scan=${3:-100}
ninja -C "$build" bench/fluid_sph/bench_viscosity >/dev/null
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$build/bench/fluid_sph/bench_viscosity" "$steps" "$scan"
