#!/usr/bin/env bash
# The saving of fluid_sph's step cache (Akbay 3.4's cheap rollback, docs/fluid_sph.md, `step_cache`) on the
# light ball of examples/sph_light_ball.json (xpm: per coupling iteration one `regions` and one `solve`):
# the fluid's time (stats.csv fluid_s: solve, regions and commit) per step and per coupling iteration with
# the cache on and off, runs alternating, and the ratio of the medians. The two must write the same
# interface.csv and iteration counts (checked: the cache changes no result). One thread (OMP_NUM_THREADS=1).
# TOLERANCE (cells, default the example's 0.05) sets the position tolerance: 0.005 makes more iterations a step.
# Usage: bench/fluid_sph/step_cache.sh [BUILD_DIR] [END_TIME] [REPEATS] [TOLERANCE]
SEAM_BENCH=sph_step_cache . "$(dirname "$0")/../rows.sh"   # figures to bench/data/sph_step_cache.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-0.5}
repeats=${3:-3}
tol=${4:-0.05}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
for r in $(seq 1 "$repeats"); do
    for cache in true false; do
        "$build/coupler/seam" run examples/sph_light_ball.json --force --no-report --out "$out/$cache$r" \
            --set output.frames=false --set output.picture=false --set output.interface=true \
            --set time.end="$end" --set fluid.step_cache=$cache \
            --set "coupling.measures=[{\"quantity\": \"positions\", \"kind\": \"cells\", \"norm\": \"max\", \"tolerance\": $tol}]" \
            >"$out/$cache$r.log" 2>&1
    done
done
python3 - "$out" "$repeats" <<'PY'
import csv, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
def load(tag):
    rows = list(csv.DictReader(open(f"{out}/{tag}/stats.csv")))
    steps, its = len(rows), sum(int(r["iterations"]) for r in rows)
    fluid = sum(float(r["fluid_s"]) for r in rows)
    key = [(r["step"], r["t"], r["iterations"], r["residual"]) for r in rows]
    return steps, its, fluid, key, open(f"{out}/{tag}/interface.csv").read()
res = {c: [load(f"{c}{r}") for r in range(1, repeats + 1)] for c in ("true", "false")}
ref = res["true"][0]
same = all(x[3] == ref[3] and x[4] == ref[4] for c in res for x in res[c])
print(f"light ball to t = {ref[3][-1][1][:6]} s: {ref[0]} steps, {ref[1]} coupling iterations "
      f"({ref[1] / ref[0]:.2f} per step); interface and iterations identical with and without: {same}")
med = {}
for c in ("true", "false"):
    per_step = [1e3 * x[2] / x[0] for x in res[c]]
    per_it = [1e3 * x[2] / x[1] for x in res[c]]
    med[c] = [statistics.median(v) for v in (per_step, per_it)]
    print(f"step_cache {c:5}: fluid ms/step " + " ".join(f"{v:6.2f}" for v in per_step) +
          "  ms/iteration " + " ".join(f"{v:6.2f}" for v in per_it))
r = [med["false"][k] / med["true"][k] for k in range(2)]
print(f"without / with (medians): per step {r[0]:.2f}, per iteration {r[1]:.2f}")
print(f"@row steps={ref[0]} it_step={ref[1] / ref[0]:.3f} repeats={repeats} with_ms_step={med['true'][0]:.3f} "
      f"without_ms_step={med['false'][0]:.3f} without_over_with_step={r[0]:.3f} without_over_with_iteration={r[1]:.3f} "
      f"same_results={int(same)}")
sys.exit(0 if same else 1)
PY
