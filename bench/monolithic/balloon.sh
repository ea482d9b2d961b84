#!/usr/bin/env bash
# Partitioned (the scene's xpm with the boundary pressure projection) against
# monolithic on examples/volumetric_balloon.json: the distance between the
# two runs' interface points over time (seam compare), the area under the
# band against the inflow's volume each way, xpm's iterations and the
# monolithic PCG's. VISCOSITY: the fluid's ("scene": the scene's 0.146
# m^2/s; 0: inviscid). MODEL: the band's material model ("scene": its
# Neo-Hookean; corotated: Zarifi's block). PRECOND: the monolithic PCG's
# preconditioner (coupling.preconditioner: ic0, multigrid). The mesh keeps the
# scene's element size at other cell sizes.
# Usage: bench/monolithic/balloon.sh [BUILD_DIR] [END_TIME] [CELL_SIZE] [VISCOSITY] [MODEL] [PRECOND]
SEAM_BENCH=monolithic_balloon . "$(dirname "$0")/../rows.sh"   # figures to bench/data/monolithic_balloon.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-3}
dx=${3:-0.05}
nu=${4:-scene}
model=${5:-scene}
precond=${6:-multigrid}
cells=$(python3 -c "print(round(4 / $dx))")
segs=$(python3 -c "print(round(94 * 0.05 / $dx))")
layers=$(python3 -c "print(max(2, round(10 * 0.05 / $dx)))")
out=${BALLOON_OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${BALLOON_OUT:-}" ] || trap 'rm -rf "$out"' EXIT
sets=(--set cell_size="$dx" --set "fluid.cells=[$cells,$cells]" --set time.end="$end" --set output.frames=false
      --set output.interface=true
      --set "solids[0].bodies[0].mesh.segments=$segs" --set "solids[0].bodies[0].mesh.layers=$layers")
[ "$nu" = scene ] || sets+=(--set "fluid.viscosity=$nu")
[ "$model" = scene ] || sets+=(--set "solids[0].bodies[0].material.model=$model")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
echo "volumetric balloon, band model $model ($segs x $layers elements), dx = $dx m, viscosity $nu, to t = $end s," \
     "monolithic preconditioner $precond"
s0=$(date +%s.%N)
"$build/coupler/seam" run examples/volumetric_balloon.json --force --no-report --out "$out/part" "${sets[@]}" \
    >"$out/part.log" 2>&1 || echo "partitioned run: exit status $?"
s1=$(date +%s.%N)
"$build/coupler/seam" run examples/volumetric_balloon.json --force --no-report --out "$out/mono" "${sets[@]}" \
    --set coupling.scheme=monolithic --set coupling.preconditioner="$precond" --log-level debug >"$out/mono.log" 2>&1 || echo "monolithic run: exit status $?"
s2=$(date +%s.%N)
grep -h "warning\|error" "$out/part.log" "$out/mono.log" | grep -v "\] step [0-9]*:" | head -20 || true
"$build/coupler/seam" compare "$out/part" "$out/mono" >"$out/compare.txt" || true
python3 - "$out" "$dx" "$s0" "$s1" "$s2" <<'PY'
import csv, math, re, sys
out, dx = sys.argv[1], float(sys.argv[2])
s0, s1, s2 = map(float, sys.argv[3:6])
def rows(d):
    with open(d + "/interface.csv") as f:
        r = csv.reader(f); next(r)
        return [[float(x) for x in row[1:]] for row in r]
P, M = rows(out + "/part"), rows(out + "/mono")
X = P[0][1:]
inner = [k for k in range(len(X) // 2) if abs(math.hypot(X[2*k] - 2, X[2*k+1] - 1) - 0.5) < 1e-9]
inner.sort(key=lambda k: -math.atan2(X[2*k+1] - 1, X[2*k] - 2))
def area(row):
    pts = [(1.5, 0.0)] + [(row[1 + 2*k], row[2 + 2*k]) for k in inner] + [(2.5, 0.0)]
    return 0.5 * abs(sum(pts[i][0] * pts[(i+1) % len(pts)][1] - pts[(i+1) % len(pts)][0] * pts[i][1]
                         for i in range(len(pts))))
n = round(1.0 / dx)
qmax = (2/3 + 1/(3*n*n)) * 1.0 * 1.0
q = lambda t: qmax * 0.5 * (1 - math.cos(math.pi * t)) if t < 1 else qmax
def growth(R):
    a0, vol, prev, res = area(R[0]), 0.0, R[0][0], {}
    for row in R[1:]:
        t = row[0]; vol += (t - prev) * q(0.5 * (t + prev)); prev = t
        res[round(t, 6)] = (area(row) - a0, vol)
    return res
gp, gm = growth(P), growth(M)
dist = {}
for line in open(out + "/compare.txt"):
    if not line.startswith("#"):
        t, d, mean = map(float, line.split(",")); dist[round(t, 6)] = (d, mean)
print(f"inflow {qmax:.5f} m^2/s after the ramp ({n} faces)")
print("   t (s)  inflow (m^2)  grown: partitioned  monolithic   distance max / mean (m)   (cells)")
for t in sorted(set(gp) & set(gm) & set(dist)):
    if abs(t * 10 - round(t * 10)) < 1e-6:
        print(f"  {t:6.2f}  {gp[t][1]:.5f}       {gp[t][0]:.5f} ({gp[t][0]/gp[t][1]:.4f})  "
              f"{gm[t][0]:.5f} ({gm[t][0]/gm[t][1]:.4f})  {dist[t][0]:.3e} / {dist[t][1]:.3e}  {dist[t][0]/dx:.3f}")
        print(f"@row table=area dx={dx} t={t:.2f} inflow={gp[t][1]:.6f} partitioned={gp[t][0]:.6f} "
              f"monolithic={gm[t][0]:.6f} distance_max={dist[t][0]:.4e} distance_mean={dist[t][1]:.4e}")
print(open(out + "/compare.txt").read().splitlines()[-1])
st = list(csv.DictReader(open(out + "/part/stats.csv")))
its = [int(r["iterations"]) for r in st]
print(f"xpm: {len(st)} steps, {sum(its)/len(its):.2f} iterations a step (max {max(its)}), {s1 - s0:.1f} s wall")
log = open(out + "/mono.log").read()
pcg = [int(x) for x in re.findall(r"solid velocities, PCG (\d+) iterations", log)]
visc = [int(x) for x in re.findall(r"viscosity PCG (\d+) iterations", log)]
sm = list(csv.DictReader(open(out + "/mono/stats.csv")))
print(f"monolithic: {len(sm)} steps, coupled PCG {sum(pcg)/max(1,len(pcg)):.0f} iterations a solve (first {pcg[0] if pcg else 0}, "
      f"last {pcg[-1] if pcg else 0}, max {max(pcg or [0])}, {len(pcg)} solves)"
      + (f", viscosity PCG {sum(visc)/len(visc):.1f}" if visc else "") + f", {s2 - s1:.1f} s wall")
print(f"@row table=runs dx={dx} xpm_steps={len(st)} xpm_it_step={sum(its)/len(its):.3f} xpm_wall_s={s1 - s0:.2f} "
      f"mono_steps={len(sm)} mono_pcg_it={sum(pcg)/max(1,len(pcg)):.1f} mono_wall_s={s2 - s1:.2f}")
PY
