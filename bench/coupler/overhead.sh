#!/usr/bin/env bash
# Cost of the coupling layer itself as the interface grows: the added-mass
# piston scene with N independent pistons (N interface values), relaxation,
# 50 steps. Prints per-iteration time in the coupler and in the solvers,
# and the coupler's share of the wall time. Usage: bench/coupler/overhead.sh [BUILD]
SEAM_BENCH=coupler_overhead . "$(dirname "$0")/../rows.sh"   # figures to bench/data/coupler_overhead.jsonl
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
seam="$root/$build/coupler/seam"
[ -x "$seam" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%10s %8s %14s %14s %14s %9s\n" N iters "coupler us/it" "solvers us/it" "coupler ns/val" "share"
for n in 100 1000 10000 100000 1000000; do
    "$seam" run "$root/examples/piston.json" --quiet --force --no-report --out "$tmp/o" --steps 50 \
        --set solids.0.count=$n --set coupling.tolerance=1e-9 --set output.interface=false
    python3 - "$tmp/o/stats.csv" "$n" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
it = sum(int(r["iterations"]) for r in rows)
c = sum(float(r["coupler_s"]) for r in rows)
s = sum(float(r["fluid_s"]) + float(r["solid_s"]) for r in rows)
print(f"{n:10d} {it:8d} {1e6*c/it:14.2f} {1e6*s/it:14.2f} {1e9*c/it/n:14.2f} {100*c/(c+s):8.1f}%")
print(f"@row N={n} steps=50 iterations={it} coupler_us_it={1e6*c/it:.3f} solvers_us_it={1e6*s/it:.3f} "
      f"coupler_ns_value={1e9*c/it/n:.3f} coupler_share={c/(c+s):.4f}")
PY
done
