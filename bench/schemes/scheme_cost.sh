#!/usr/bin/env bash
# What the coupling schemes cost per iteration (issue 33 item 4), from the
# coupler's own clock (stats.csv's coupler_s: a step's wall time less the
# solvers', so the scheme, the judge and the interface glue):
#  1. every scheme on the 1D tube (examples/tube.json) at 101 points and at
#     10^4 points (9999 cells, 20 steps): coupler microseconds per iteration,
#     the least and the median of REPS runs taken round-robin (the machine is
#     shared), and the least over iqn-ils's least. newton-fd runs only at 101
#     points (n + 1 solver calls per Jacobian: 10^4 a step at 10^4 points);
#     xpm is rmi's code with the projection, which the tube has no regions
#     for: its cost is rmi's (and it runs in part 2); explicit runs 10 steps
#     (the tube is unstable under it from step 15).
#     rmi runs with both of its solvers (woodbury, the default, and gmres).
#  2. the coupler's share of wall time (coupler / (fluid + solid + coupler))
#     on every example scene, STEPS steps each, next to seam's own solvers:
#     of the whole run, and of its median step (a preemption between two
#     solver calls is charged to the coupler; the median step shrugs it off).
# One thread (OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1): the figures compare
# the code, not the cores.
# Usage: bench/schemes/scheme_cost.sh [BUILD] [REPS] [STEPS]    (defaults: build 5 20)
# (examples/piston_python.json runs a Python participant: the first python3
# on PATH needs msgpack and zmq, e.g. PATH=/usr/bin:$PATH.)
SEAM_BENCH=scheme_cost . "$(dirname "$0")/../rows.sh"   # figures to bench/data/scheme_cost.jsonl
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
reps=${2:-5}
steps=${3:-20}
[ -x "$build/coupler/seam" ] || { echo "build first: no $build/coupler/seam" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
# the Python participants import the build's generated seam_abi module
export PYTHONPATH="$build/protocol/python${PYTHONPATH:+:$PYTHONPATH}"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 - "$build" "$reps" "$steps" "$tmp" <<'PY'
import csv, glob, json, os, statistics, subprocess, sys
build, reps, steps, tmp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def run(scene, sets, steps=None):
    """One run; its stats.csv summed: (iterations, steps, coupler s, solvers s, the median step's coupler
    share), None when it failed."""
    cmd = [build + "/coupler/seam", "run", scene, "--quiet", "--force", "--no-report", "--out", f"{tmp}/o",
           "--set", "output.frames=false", "--set", "output.interface=false"]
    if steps:
        cmd += ["--steps", str(steps)]
    for s in sets:
        cmd += ["--set", s]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        return None
    with open(f"{tmp}/o/stats.csv") as f:
        rows = list(csv.DictReader(f))
    it = sum(int(r["iterations"]) for r in rows)
    coupler = sum(float(r["coupler_s"]) for r in rows)
    solvers = sum(float(r["fluid_s"]) + float(r["solid_s"]) for r in rows)
    # a preemption that lands between two solver calls counts as the coupler's: the median step is robust to it
    shares = [float(r["coupler_s"]) / t for r in rows
              if (t := float(r["coupler_s"]) + float(r["fluid_s"]) + float(r["solid_s"])) > 0]
    return it, len(rows), coupler, solvers, statistics.median(shares) if shares else 0.0

print(f"build {build}; {reps} runs of each, round-robin; load average at start {os.getloadavg()[0]:.2f}\n")
# label: the scheme's keys
schemes = {"explicit": ["coupling.scheme=explicit"], "relaxation": ["coupling.scheme=relaxation"],
           "aitken": ["coupling.scheme=aitken"], "iqn-ils": ["coupling.scheme=iqn-ils"],
           "iqn-imvj": ["coupling.scheme=iqn-imvj"], "rmi": ["coupling.scheme=rmi"],
           "rmi gmres": ["coupling.scheme=rmi", "coupling.rmi_solver=gmres"], "newton-fd": ["coupling.scheme=newton-fd"]}
for points, cells, nsteps in ((101, 100, None), (10000, 9999, 20)):
    names = [s for s in schemes if not (s == "newton-fd" and points > 1000)]
    sets = [f"fluid.cells={cells}", f"solids[0].cells={cells}", "coupling.max_iterations=3000"]
    per_it = {s: [] for s in names}
    its = {}
    for _ in range(reps):
        for s in names:
            # explicit is unstable on the tube past step 14: its first 10 steps
            r = run("examples/tube.json", sets + schemes[s], 10 if s == "explicit" else nsteps)
            if r:
                its[s] = r
                per_it[s].append(1e6 * r[2] / r[0])
    base = min(per_it["iqn-ils"])
    print(f"Tube, {points} points ({cells} cells, {its['iqn-ils'][1]} steps): coupler time per iteration\n")
    print("| scheme | iterations | least us/it | median us/it | least / iqn-ils's least | coupler share |")
    print("|---|---|---|---|---|---|")
    for s in names:
        if not per_it[s]:
            print(f"| {s} | failed | - | - | - | - |")
            continue
        it, nst, c, sol, _ = its[s]
        lo, med = min(per_it[s]), statistics.median(per_it[s])
        print(f"| {s} | {it} | {lo:.2f} | {med:.2f} | {lo / base:.2f} | {100 * c / (c + sol):.1f}% |")
        print(f"@row table=tube points={points} steps={nst} scheme='{s}' reps={reps} iterations={it} "
              f"coupler_us_it_min={lo:.3f} coupler_us_it_median={med:.3f} over_iqn_ils={lo / base:.3f}", flush=True)
    print()

print(f"Every example scene, {steps} steps: the coupler's share of wall time (coupler / (solvers + coupler)),"
      " of the run and of its median step\n")
print("| scene | scheme | iterations | coupler us/it | coupler s | solvers s | coupler share | median step's |")
print("|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob("examples/*.json")):
    name = os.path.basename(path)[:-5]
    with open(path) as f:
        scheme = json.load(f).get("coupling", {}).get("scheme", "-")
    r = run(path, [], steps)
    if not r:
        print(f"| {name} | {scheme} | failed | - | - | - | - |")
        print(f"@row table=scenes scene={name} scheme={scheme} steps={steps} failed=1", flush=True)
        continue
    it, nst, c, sol, med = r
    share = c / (c + sol) if c + sol > 0 else 0.0
    print(f"| {name} | {scheme} | {it} | {1e6 * c / max(it, 1):.1f} | {c:.4f} | {sol:.3f} | {100 * share:.2f}% "
          f"| {100 * med:.2f}% |")
    print(f"@row table=scenes scene={name} scheme={scheme} steps={nst} iterations={it} coupler_s={c:.6f} "
          f"solvers_s={sol:.6f} coupler_share={share:.5f} median_step_share={med:.5f}", flush=True)
print(f"\nload average at end {os.getloadavg()[0]:.2f}")
PY
