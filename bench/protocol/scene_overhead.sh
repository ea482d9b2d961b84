#!/usr/bin/env bash
# Separate processes against in-process on a real scene: the rising disc
# (fluid_mac + solid_rigid), each participant in-process or in its own
# seam-serve. Every placement runs to END and to 2 END; the difference is the
# cost of END's worth of steps without start-up, so the table gives the
# one-off start-up cost of the separate processes, the per-step overhead of
# the transport (wall time, and CPU time of all the run's processes, which a
# loaded machine disturbs less) and the whole process's wall time to END,
# each against in-process. REPS rounds run every placement once each (and every build,
# when BASE names a second build tree to compare with, e.g. main's): runs
# alternate, so a change in the machine's load hits all of them alike, and
# the table gives medians over the rounds.
# Usage: [PREFIX="taskset -c 0"] scene_overhead.sh [BUILD] [END] [SCALES] [REPS] [BASE]
# PREFIX (words) goes before every seam command: `taskset -c 0` puts the
# coupler and the servers it spawns (they inherit its CPU set) on one CPU.
# SCALES: grid multiples of 32x48 to run (default "1 2 4"); REPS default 3.
# A second line per grid gives the median step of the long runs' stats.csv
# (fluid_s + solid_s + coupler_s, the first 10 steps left out) against
# in-process: what a typical step costs, which the machine's slow spells and
# the runs' start-up move far less than the differences of whole runs.
SEAM_BENCH=remote_overhead . "$(dirname "$0")/../rows.sh"   # figures to bench/data/remote_overhead.jsonl
set -euo pipefail
build=${1:-build}
end=${2:-0.1}
scales=${3:-1 2 4}
reps=${4:-3}
base=${5:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
builds=("$build")
[ -n "$base" ] && builds=("$base" "$build")
for b in "${builds[@]}"; do
    [ -x "$(cd "$root" && realpath -m "$b")/coupler/seam" ] || { echo "build first: no $b/coupler/seam" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
cd "$root"
python3 - "$root/examples/rising_disc.json" "$tmp" "$end" "$scales" "$reps" "${builds[@]}" <<'PY'
import os, statistics, subprocess, sys, time
scene, tmp, end, scales, reps, *builds = sys.argv[1:]
end, reps = float(end), int(reps)
placements = [("inline", []), ("solid separate", ["solids.0.process=separate"]),
              ("fluid separate", ["fluid.process=separate"]),
              ("both separate", ["solids.0.process=separate", "fluid.process=separate"])]

def env_of(b):
    """Each build runs its own seam-serve and plugins (a copied tree finds them by these)."""
    b = os.path.realpath(b)
    e = dict(os.environ, SEAM_SERVE=f"{b}/protocol/seam-serve")
    e["SEAM_PLUGIN_PATH"] = ":".join(f"{b}/plugins/{p}" for p in ("fluid_mac", "solid_rigid"))
    return e

def run(b, t_end, sets):
    cmd = os.environ.get("PREFIX", "").split()
    cmd += [os.path.realpath(b) + "/coupler/seam", "run", scene, "--quiet", "--force", "--no-report", "--out",
            f"{tmp}/o", "--end", repr(t_end), "--set", "output.frames=false"]
    for s in sets:
        cmd += ["--set", s]
    c0 = os.times()
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL, env=env_of(b))
    t = time.perf_counter() - t0
    c1 = os.times()   # the run's processes, its servers included (the coupler reaps them)
    return t, (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system), median_step()

def median_step():
    """The median step of the run in stats.csv (fluid_s + solid_s + coupler_s: the step's wall time up to its
    commit, outputs left out), the first 10 steps skipped: robust to the machine's slow spells and to start-up."""
    import csv
    with open(f"{tmp}/o/stats.csv") as f:
        rows = list(csv.DictReader(f))[10:]
    return statistics.median(float(r["fluid_s"]) + float(r["solid_s"]) + float(r["coupler_s"]) for r in rows) \
        if rows else float("nan")

label = {b: ("base" if len(builds) > 1 and b == builds[0] else "build") for b in builds}
print(f"{reps} rounds, medians; prefix: {os.environ.get('PREFIX') or 'none'}; "
      "overhead against the same build's in-process run; "
      f"load average at start {os.getloadavg()[0]:.2f}; " + ", ".join(f"{label[b]}: {b}" for b in builds))
print("per placement: start-up s; wall ms/step (overhead); CPU ms/step of all its processes (overhead); "
      "whole-process wall s to END (overhead)")
print(f"{'grid':>9} {'steps':>5} {'build':>5} {'inline':>7} {'cpu':>7} {'wall':>5} | " +
      " | ".join(f"{name:<44}" for name, _ in placements[1:]))
for n in map(int, scales.split()):
    nx, ny = 32 * n, 48 * n
    grid = [f"cell_size={0.03125 / n!r}", f"fluid.cells=[{nx}, {ny}]"]
    t = {}   # (build, placement, long) -> [seconds per round]
    for r in range(reps):
        for b in builds:
            for name, sets in placements:
                for long in (False, True):
                    t.setdefault((b, name, long), []).append(run(b, 2 * end if long else end, grid + sets))
    with open(f"{tmp}/o/stats.csv") as f:
        steps = sum(1 for _ in f) - 1   # of the last run, to 2 END
    k = steps / 2                        # steps in the extra END
    for b in builds:
        # per round: the cost of the extra END's steps; start-up: what the short run costs beyond them
        per = {name: [(lg[0] - sh[0]) / k for sh, lg in zip(t[(b, name, False)], t[(b, name, True)])]
               for name, _ in placements}
        cpu = {name: [(lg[1] - sh[1]) / k for sh, lg in zip(t[(b, name, False)], t[(b, name, True)])]
               for name, _ in placements}
        med = {name: statistics.median(lg[2] for lg in t[(b, name, True)]) for name, _ in placements}
        step0, cpu0 = statistics.median(per["inline"]), statistics.median(cpu["inline"])
        wall0 = statistics.median(w for w, *_ in t[(b, "inline", False)])
        pct = lambda a, b: f"{100 * (a / b - 1):+5.1f}%" if b > 0 else "  n/a "
        cells = []
        for name, _ in placements[1:]:
            step, c = statistics.median(per[name]), statistics.median(cpu[name])
            wall = statistics.median(w for w, *_ in t[(b, name, False)])
            startup = wall - wall0 - (step - step0) * k
            cells.append(f"{startup:5.2f}; {1e3 * step:7.2f} ({pct(step, step0)}); {1e3 * c:7.2f} ({pct(c, cpu0)}); "
                         f"{wall:5.2f} ({pct(wall, wall0)})")
        for name, _ in placements:
            print(f"@row grid={nx}x{ny} steps={steps} build={label[b]} reps={reps} placement='{name}' "
                  f"wall_ms_step={1e3 * statistics.median(per[name]):.3f} cpu_ms_step={1e3 * statistics.median(cpu[name]):.3f} "
                  f"median_step_ms={1e3 * med[name]:.3f} overhead_median_step={med[name] / med['inline'] - 1:.4f}")
        print(f"{str(nx) + 'x' + str(ny):>9} {steps:5d} {label[b]:>5} {1e3 * step0:7.2f} {1e3 * cpu0:7.2f} "
              f"{wall0:5.2f} | " + " | ".join(f"{c:<44}" for c in cells), flush=True)
        print(f"{'':>9} {'':>5} {label[b]:>5} median step (stats.csv, to 2 END, medians over rounds): inline "
              f"{1e3 * med['inline']:.2f} ms | " + " | ".join(
                  f"{name} {1e3 * med[name]:.2f} ms ({pct(med[name], med['inline'])})" for name, _ in placements[1:]),
              flush=True)
print(f"load average at end {os.getloadavg()[0]:.2f}")
PY
