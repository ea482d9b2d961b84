#!/usr/bin/env bash
# Iterations per step of the underrelaxed partitioned scheme with the
# boundary pressure projection (P-BPP, Akbay Algorithm 8 at omega = 0.05, the
# thesis's setting for 4.3.7) against xpm on examples/nested_balloons.json,
# both at 0.05 cells and at most 30 iterations, counted as seam counts and
# as the thesis counts (coupling.count).
# Usage: bench/bpp/nested_balloons.sh [BUILD_DIR] [END_TIME] [CELL_SIZE]
SEAM_BENCH=nested_balloons . "$(dirname "$0")/../rows.sh"   # figures to bench/data/nested_balloons.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-1.5}
dx=${3:-0.2}
cells=$(python3 -c "print(round(10 / $dx))")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
    local label=$1; shift
    local log="$out/$label.log"
    "$build/coupler/seam" run examples/nested_balloons.json --quiet --force --no-report --out "$out/$label" \
        --set cell_size="$dx" --set "fluid.cells=[$cells,$cells]" --set time.end="$end" --set output.frames=false \
        --set coupling.max_iterations=30 "$@" >"$log" 2>&1 || true
    python3 - "$out/$label/stats.csv" "$label" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
its = [int(r["iterations"]) for r in rows]
bad = sum(1 for r in rows if r["converged"] == "0")
wall = sum(float(r["fluid_s"]) + float(r["solid_s"]) + float(r["coupler_s"]) for r in rows)
print(f"{sys.argv[2]:<8} steps {len(rows):4d}  iterations/step {sum(its)/len(its):6.2f}  max {max(its):3d}  "
      f"unconverged {bad:3d}  seconds {wall:7.2f}")
print(f"@row run={sys.argv[2]} steps={len(rows)} it_step={sum(its)/len(its):.3f} max_it={max(its)} unconverged={bad} "
      f"solver_coupler_s={wall:.3f}")
PY
}
echo "nested balloons, dx = $dx m, to t = $end s"
run p-bpp --set coupling.scheme=relaxation --set coupling.relaxation=0.05 --set coupling.bpp=true \
    --set coupling.convergence=cells --set coupling.tolerance=0.05
run xpm --set coupling.scheme=xpm
echo "counted as the thesis does (coupling.count = thesis: xpm between solid outputs; P before relaxing, as seam counts)"
run p-bpp-t --set coupling.scheme=relaxation --set coupling.relaxation=0.05 --set coupling.bpp=true \
    --set coupling.convergence=cells --set coupling.tolerance=0.05 --set coupling.count=thesis
run xpm-t --set coupling.scheme=xpm --set coupling.count=thesis
