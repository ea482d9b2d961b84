#!/usr/bin/env bash
# Akbay's chapter-4 balloon and piston scenes at the examples' resolution
# (dx = 0.05 m for the balloons; the released hydraulic piston at 0.1 m),
# each figure next to its expected value:
#  - thin-shell (4.3.4) and volumetric (4.3.2) balloons: area grown against
#    the inflow's volume, (2/3 + 1/(3 n^2)) u_max w (t - 0.5);
#  - two balloons (4.3.6), fed alike and the right at half speed: the shared
#    shell's mean and largest offset from x = 3 m, each region's growth;
#  - hydraulic piston, test 2 (4.3.5): both pistons' heights over time after
#    the release, the water's volume, and the oscillation's period against
#    the one-degree-of-freedom estimate.
# Usage: bench/bpp/chapter4_scenes.sh [BUILD_DIR] [END_TIME]
SEAM_BENCH=chapter4_scenes . "$(dirname "$0")/../rows.sh"   # figures to bench/data/chapter4_scenes.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {   # label scene [--set ...]
    local label=$1 scene=$2; shift 2
    local t0=$SECONDS
    "$build/coupler/seam" run "examples/$scene.json" --quiet --force --no-report --out "$out/$label" \
        --set output.frames=false --set output.interface=true "$@" >"$out/$label.log" 2>&1 || true
    python3 - "$out/$label/stats.csv" "$label" $((SECONDS - t0)) <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
its = [int(r["iterations"]) for r in rows]
bad = sum(1 for r in rows if r["converged"] == "0")
print(f"{sys.argv[2]:<18} steps {len(rows):4d} to t = {float(rows[-1]['t']):.2f} s  iterations/step {sum(its)/len(its):5.2f}"
      f"  max {max(its):3d}  unconverged {bad:3d}  wall {sys.argv[3]} s")
print(f"@row run={sys.argv[2]} steps={len(rows)} t_end={float(rows[-1]['t']):.4f} it_step={sum(its)/len(its):.3f} "
      f"max_it={max(its)} unconverged={bad} wall_s={sys.argv[3]}")
PY
}
analyse() { python3 - "$out" "$@" <<'PY'
import csv, math, sys
out, what = sys.argv[1], sys.argv[2]
def rows(label):
    return [[float(v) for v in r] for r in list(csv.reader(open(f"{out}/{label}/interface.csv")))[1:]]
def area(X, idx):
    a = 0.0
    for j in range(len(idx)):
        p, q = idx[j], idx[(j + 1) % len(idx)]
        a += X[2 * p] * X[2 * q + 1] - X[2 * q] * X[2 * p + 1]
    return abs(a) / 2
q = 2 / 3 + 1 / (3 * 20 ** 2)   # 20 faces across the 1 m inflow at dx = 0.05
if what in ("thin", "volumetric"):
    R = rows(what)
    X0 = R[0][2:]
    n = len(X0) // 2
    if what == "thin":
        idx = list(range(n))
    else:
        idx = [i for i in range(n) if abs(math.hypot(X0[2 * i] - 2, X0[2 * i + 1] - 1) - 0.5) < 1e-9]
        idx.sort(key=lambda i: math.atan2(X0[2 * i + 1] - 1, X0[2 * i] - 2))
    t = R[-1][1]
    grown, want = area(R[-1][2:], idx) - area(X0, idx), q * (t - 0.5)
    print(f"  area grown {grown:.5f} m^2, inflow {want:.5f} m^2: {100 * (grown / want - 1):+.2f}%")
    print(f"@row run={what} quantity=area_grown measured={grown:.6f} expected={want:.6f} error={grown / want - 1:.5f}")
elif what.startswith("two"):
    R = rows(what)
    X0, X = R[0][2:], R[-1][2:]
    left = list(range(104)) + list(range(104, 262))
    right = list(range(262, 420)) + list(range(103, -1, -1))
    dx = [X[2 * j] - 3 for j in range(104)]
    t = R[-1][1]
    half = what.endswith("asym")
    gl, gr = area(X, left) - area(X0, left), area(X, right) - area(X0, right)
    wl, wr = q * (t - 0.5), (0.5 if half else 1) * q * (t - 0.5)
    print(f"  centre line: mean offset {sum(dx) / 104:+.3e} m, largest {max(dx, key=abs):+.3e} m (1e-3 of the width: 6e-3 m)")
    print(f"  regions grew {gl:.5f} and {gr:.5f} m^2, inflows {wl:.5f} and {wr:.5f} m^2: {100 * (gl / wl - 1):+.2f}%, {100 * (gr / wr - 1):+.2f}%")
    print(f"@row run={what} quantity=shared_shell_offset measured={sum(dx) / 104:.4e} largest={max(dx, key=abs):.4e}")
    print(f"@row run={what} quantity=left_growth measured={gl:.6f} expected={wl:.6f} error={gl / wl - 1:.5f}")
    print(f"@row run={what} quantity=right_growth measured={gr:.6f} expected={wr:.6f} error={gr / wr - 1:.5f}")
elif what == "release":
    R = rows(what)
    def heights(r):
        X = r[2:]
        return sum(X[2 * k + 1] for k in range(70)) / 70, sum(X[2 * k + 1] for k in range(70, 100)) / 30
    cross = []
    prev = None
    for r in R:
        yl, yr = heights(r)
        if r[1] % 1 < 1e-9 or abs(r[1] % 1 - 1) < 1e-9:
            print(f"  t = {r[1]:5.2f} s: left {yl:.4f} m, right {yr:.4f} m (level at 3.25), volume change {3 * (yl - 3.15) + (yr - 3.55):+.2e} m^2")
        if prev is not None and (prev - 3.25) * (yl - 3.25) < 0:
            cross.append(r[1])
        prev = yl
    m = 20 * 3 * 0.5 + 20 * 1 * 0.5 * 9 + 6 + 7 * 9 + 2 * 9
    print(f"  the left piston crosses the level at t = {', '.join(f'{c:.2f}' for c in cross)} s;"
          f" one-degree-of-freedom period 2 pi sqrt(m / (12 rho g)) with m = {m:.0f} kg/m: {2 * math.pi * math.sqrt(m / (12 * 9.8)):.2f} s")
    print(f"@row run={what} quantity=level_crossings measured='{' '.join(f'{c:.2f}' for c in cross)}' "
          f"period_estimate={2 * math.pi * math.sqrt(m / (12 * 9.8)):.3f}")
PY
}
echo "Akbay chapter 4 scenes, to t = $end s (release: 12 s at dx = 0.1)"
run thin thin_shell_balloon --set time.end="$end"; analyse thin
run volumetric volumetric_balloon --set time.end=3; analyse volumetric   # past 3 s its outer surface thins out below the kernel
run two two_balloons --set time.end="$end"; analyse two
run two_asym two_balloons --set time.end="$end" --set 'fluid.sources[1].speed=0.5'; analyse two_asym
run release hydraulic_piston_release --set cell_size=0.1 --set 'fluid.cells=[70,50]'; analyse release
