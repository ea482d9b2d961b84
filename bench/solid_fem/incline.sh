#!/usr/bin/env bash
# solid_fem's integrators on an inclined wall (Irving 2007 ch. 3, docs/solid_fem.md "Irving's integrator"):
# a chain and a cloth lying flat, a 2D and a 3D block, sliding from rest for T s (theta = 0.5 rad, mu = 0.3)
# against s = (1/2) g (sin - mu cos) T^2 at dt = T/256 ... T/16384: backward_euler and explicit are first
# order in the slide, irving exact for the flat bodies. Per body, integrator and dt: relative error, us/step.
# Usage: bench/solid_fem/incline.sh [BUILD_DIR] [T]
SEAM_BENCH=fem_incline . "$(dirname "$0")/../rows.sh"   # figures to bench/data/fem_incline.jsonl
set -euo pipefail
build=${1:-build}
ninja -C "$build" bench/solid_fem/bench_incline >/dev/null
OMP_NUM_THREADS=1 "$build/bench/solid_fem/bench_incline" "${2:-1}"
