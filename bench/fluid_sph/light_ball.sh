#!/usr/bin/env bash
# Akbay 3.5 in 2D: the light disc of examples/sph_light_ball.json (rho_s /
# rho_f = 0.05, released under water, rises and floats) under each coupling
# scheme, at the thesis's two tolerances, 10% and 1% of the particle radius
# (0.05 and 0.005 cells). Prints per run: outcome, steps, iterations per step
# (mean, and the largest mean over a window of 10 steps, as Akbay's Fig. 3.5
# averages), the disc's sideways excursion while it rises (to 0.2 s; the rise
# is straight up by symmetry) and, for runs that reach 2 s, its submerged
# fraction averaged from 1.5 s to the end, measured from the fluid's volume
# (tests/fluid_sph/sph_test.c, sph_disc_fraction), against 0.05.
# xpm is the example's scheme; the others override it (relaxation with 200
# iterations at most, iqn-ils with xpm's 30).
# Usage: bench/fluid_sph/light_ball.sh [BUILD_DIR] [END_TIME]
SEAM_BENCH=sph_light_ball . "$(dirname "$0")/../rows.sh"   # figures to bench/data/sph_light_ball.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {   # label end tolerance [--set ...]
    local label=$1 t_end=$2 tol=$3; shift 3
    local t0=$SECONDS
    "$build/coupler/seam" run examples/sph_light_ball.json --force --no-report --out "$out/$label" \
        --set output.frames=false --set output.picture=false --set output.interface=true --set time.end="$t_end" \
        --set "coupling.measures=[{\"quantity\": \"positions\", \"kind\": \"cells\", \"norm\": \"max\", \"tolerance\": $tol}]" \
        "$@" >"$out/$label.log" 2>&1 || true
    python3 - "$out/$label" "$out/$label.log" "$label" $((SECONDS - t0)) "$tol" <<'PY'
import csv, math, re, sys
d, log, label, wall = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
outcome = re.search(r"outcome: (\w+)", log)
rows = list(csv.DictReader(open(f"{d}/stats.csv")))
its = [int(r["iterations"]) for r in rows] or [0]
win = max(sum(its[k:k + 10]) / len(its[k:k + 10]) for k in range(max(1, len(its) - 9)))
X = [[float(v) for v in r] for r in list(csv.reader(open(f"{d}/interface.csv")))[1:]]
W, R = 0.4, 0.05
n = int(re.search(r"surface samples, (\d+) fluid particles", log).group(1))
V0 = float(re.search(r"particle mass ([0-9.e+-]+)", log).group(1)) / 1000.0
def centre(row):
    p = row[2:]
    return sum(p[0::2]) / (len(p) / 2), sum(p[1::2]) / (len(p) / 2)
def seg(h):
    if h <= 0: return 0.0
    if h >= 2 * R: return math.pi * R * R
    c = R - h
    return R * R * math.acos(c / R) - c * math.sqrt(R * R - c * c)
def fraction(cy):
    b, lo, hi = cy - R, 0.0, (n * V0 + math.pi * R * R) / W
    for _ in range(60):
        H = 0.5 * (lo + hi)
        lo, hi = (H, hi) if W * H - seg(H - b) < n * V0 else (lo, H)
    return seg(0.5 * (lo + hi) - b) / (math.pi * R * R)
side = max(abs(centre(r)[0] - 0.2) for r in X if r[1] <= 0.2 + 1e-12)
fr = [fraction(centre(r)[1]) for r in X if r[1] >= 1.5 - 1e-9]
tail = f"fraction {sum(fr) / len(fr):.4f} ({min(fr):.4f} .. {max(fr):.4f})" if X[-1][1] >= 2.0 - 1e-9 else ""
print(f"{label:<26} {outcome.group(1) if outcome else '?':<10} to t = {X[-1][1]:5.3f} s  steps {len(rows):5d}"
      f"  it/step {sum(its) / len(its):5.2f}  10-step max {win:5.2f}  max {max(its):3d}"
      f"  sideways {1000 * side:6.1f} mm  {tail}  wall {wall} s")
print(f"@row tolerance_cells={sys.argv[5]} scheme='{label}' outcome='{outcome.group(1) if outcome else '?'}' t_end={X[-1][1]:.4f} steps={len(rows)} "
      f"it_step={sum(its) / len(its):.3f} window10_max={win:.3f} max_it={max(its)} sideways_mm={1000 * side:.2f}"
      + (f" fraction={sum(fr) / len(fr):.4f}" if tail else ""))
PY
}
for tol in 0.05 0.005; do
    echo "-- tolerance $tol cells ($(python3 -c "print(int(round($tol * 200)))")% of the particle radius)"
    run "xpm" "$end" "$tol"
    run "iqn-ils" "$end" "$tol" --set coupling.scheme=iqn-ils --set coupling.max_iterations=30
    run "relaxation 0.05" "$end" "$tol" --set coupling.scheme=relaxation --set coupling.relaxation=0.05 \
        --set coupling.max_iterations=200
    for w in 0.1 0.2 0.5; do
        run "relaxation $w" 0.5 "$tol" --set coupling.scheme=relaxation --set coupling.relaxation=$w \
            --set coupling.max_iterations=200
    done
done
run "explicit" 0.05 0.05 --set coupling.scheme=explicit
