#!/usr/bin/env bash
# Akbay Fig. 2.11 on examples/smoke_balloon.json (a 2D balloon filled by a
# smoke jet, M = 0.8): iterations per step averaged over windows of 10 steps
# for XPM (counted as the thesis counts) and P, relaxation at w = 0.2 with
# pressure loads and the pressure projection (judged before relaxing, under
# either count); then the hardest part, the 10 steps where P needs the most,
# and XPM's count there. Both under the scene's test: the positions alone,
# 0.05 cells in the max norm, at most 30 iterations. About 2 minutes on a
# 2-core machine.
# Usage: bench/schemes/smoke_balloon.sh [BUILD]
SEAM_BENCH=smoke_balloon . "$(dirname "$0")/../rows.sh"   # figures to bench/data/smoke_balloon.jsonl
set -uo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
seam="$root/$build/coupler/seam"
[ -x "$seam" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
P="--set coupling.scheme=relaxation --set coupling.relaxation=0.2 --set fluid.loads=pressure --set coupling.bpp=true"
run() {
    name=$1; shift
    "$seam" run "$root/examples/smoke_balloon.json" --quiet --no-report --force --out "$tmp/$name" \
        --set output.frames=false "$@" > "$tmp/$name.log" 2>&1
    echo "$name: exit $?" >&2
}
run xpm
run p_seam $P --set coupling.count=seam
python3 - "$tmp" <<'PY'
import csv, sys
tmp = sys.argv[1]
its = {}
for name in ("xpm", "p_seam"):
    rows = list(csv.DictReader(open(f"{tmp}/{name}/stats.csv")))
    its[name] = [int(r["iterations"]) for r in rows]
    bad = sum(r["converged"] == "0" for r in rows)
    print(f"{name:9} {len(rows)} steps, mean {sum(its[name]) / len(rows):.2f} iterations, {bad} unconverged")
    print(f"@row run={name} steps={len(rows)} it_step={sum(its[name]) / len(rows):.3f} unconverged={bad}")
print("iterations per step, windows of 10 steps:")
print("   steps      XPM        P")
n = min(len(v) for v in its.values())
for w in range(0, n - n % 10, 10):
    print(f"{w:4d}-{w + 9:<4d}" + "".join(f" {sum(its[k][w:w + 10]) / 10:8.1f}" for k in ("xpm", "p_seam")))
best = max(range(n - 9), key=lambda w: sum(its["p_seam"][w:w + 10]))
p, x = sum(its["p_seam"][best:best + 10]) / 10, sum(its["xpm"][best:best + 10]) / 10
print(f"hardest part for P: steps {best}-{best + 9}: P {p:.1f}, XPM {x:.1f}, {p / x:.1f}x")
print(f"@row run=hardest_p_seam first_step={best} p_it_step={p:.2f} xpm_it_step={x:.2f} ratio={p / x:.2f}")
PY
