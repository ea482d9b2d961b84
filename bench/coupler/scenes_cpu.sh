#!/usr/bin/env bash
# CPU time of whole runs of shipped coupled scenes, this build against a base
# build (e.g. main before a change), runs alternating so that the machine's
# load hits both alike; medians over REPS rounds, and base/new. One thread
# (OMP_NUM_THREADS=1): the ratio compares the code, not the cores.
# Usage: bench/coupler/scenes_cpu.sh BASE_BUILD [BUILD] [REPS]
SEAM_BENCH=scenes_cpu . "$(dirname "$0")/../rows.sh"   # figures to bench/data/scenes_cpu.jsonl
set -euo pipefail
base=${1:?usage: scenes_cpu.sh BASE_BUILD [BUILD] [REPS]}
build=${2:-build}
reps=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$base" "$build"; do
    [ -x "$(cd "$root" && realpath -m "$b")/coupler/seam" ] || { echo "build first: no $b/coupler/seam" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 - "$(realpath "$base")" "$(realpath "$build")" "$reps" "$tmp" <<'PY'
import os, statistics, subprocess, sys
base, build, reps, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# scene, --set overrides, end time (s of simulated time)
scenes = [("rising_disc", ["cell_size=0.015625", "fluid.cells=[64, 96]"], 1.0), ("smoke_plank", [], 1.0),
          ("smoke_cloth", [], 0.3), ("floating_block", [], 0.5), ("water_balls", [], 0.5), ("two_balloons", [], 0.5)]

def cpu(b, scene, sets, end):
    cmd = [b + "/coupler/seam", "run", f"examples/{scene}.json", "--quiet", "--force", "--no-report", "--out",
           f"{tmp}/o", "--end", repr(end), "--set", "output.frames=false"]
    for s in sets:
        cmd += ["--set", s]
    c0 = os.times()
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    c1 = os.times()
    return (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)

print(f"{reps} rounds, medians of whole-run CPU seconds; load average at start {os.getloadavg()[0]:.2f}")
print(f"base: {base}\nnew:  {build}\n")
print("| scene | end (s) | base CPU s | new CPU s | base/new |\n|---|---|---|---|---|")
for scene, sets, end in scenes:
    t = {base: [], build: []}
    for _ in range(reps):
        for b in (base, build):
            t[b].append(cpu(b, scene, sets, end))
    mb, mn = statistics.median(t[base]), statistics.median(t[build])
    print(f"| {scene}{' (64x96)' if sets else ''} | {end:g} | {mb:.2f} | {mn:.2f} | **{mb / mn:.2f}** |")
    print(f"@row scene={scene} end={end:g} reps={reps} base_cpu_s={mb:.3f} new_cpu_s={mn:.3f} base_over_new={mb / mn:.3f}",
          flush=True)
print(f"\nload average at end {os.getloadavg()[0]:.2f}")
PY
