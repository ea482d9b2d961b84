#!/usr/bin/env bash
# Wall time of the rising-disc scene (fluid_mac + solid_rigid) with each
# participant in-process or in its own seam-serve process, at three grid
# sizes: where separate processes cost less than 10% more than in-process.
# Usage: bench/protocol/scene_overhead.sh [BUILD] [END_TIME]
set -euo pipefail
build=${1:-build}
end=${2:-0.2}
root=$(cd "$(dirname "$0")/../.." && pwd)
seam="$root/$build/coupler/seam"
[ -x "$seam" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1
run() {   # best wall time of 3 runs
    local best=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        "$seam" run "$root/examples/rising_disc.json" --quiet --out "$tmp/o" --end "$end" \
            --set output.frames=false "$@" 2>/dev/null
        t1=$(date +%s.%N)
        best=$(python3 -c "import sys; a=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(a if b=='' else min(a, float(b)))" "$t0" "$t1" "$best")
    done
    echo "$best"
}
printf "%10s %9s %12s %14s %14s %14s\n" grid "steps" "inline s" "solid sep" "fluid sep" "both sep"
for n in 1 2 4; do
    nx=$((32 * n)); ny=$((48 * n))
    cell=$(python3 -c "print(0.03125 / $n)")
    grid=(--set "cell_size=$cell" --set "fluid.cells=[$nx, $ny]")
    inline=$(run "${grid[@]}")
    solid=$(run "${grid[@]}" --set solids.0.process=separate)
    fluid=$(run "${grid[@]}" --set fluid.process=separate)
    both=$(run "${grid[@]}" --set solids.0.process=separate --set fluid.process=separate)
    steps=$(($(wc -l < "$tmp/o/stats.csv") - 1))
    python3 - "$nx" "$ny" "$steps" "$inline" "$solid" "$fluid" "$both" <<'PY'
import sys
nx, ny, steps = sys.argv[1], sys.argv[2], sys.argv[3]
i, s, f, b = map(float, sys.argv[4:])
r = lambda x: f"{x:6.3f} ({100 * (x / i - 1):+5.1f}%)"
print(f"{nx + 'x' + ny:>10} {steps:>9} {i:12.3f} {r(s):>14} {r(f):>14} {r(b):>14}")
PY
done
