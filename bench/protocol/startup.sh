#!/usr/bin/env bash
# Start-up of separate participants: one step of the 32x48 rising disc in
# every placement, REPS runs each, alternating placements (and builds, when
# BASE names a second build tree, e.g. main's); prints the median wall time
# (the least in brackets) and the excess over the same build's in-process run.
# Usage: bench/protocol/startup.sh [BUILD] [REPS] [BASE]
SEAM_BENCH=remote_startup . "$(dirname "$0")/../rows.sh"   # figures to bench/data/remote_startup.jsonl
set -euo pipefail
build=${1:-build}
reps=${2:-10}
base=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
builds=("$build")
[ -n "$base" ] && builds=("$base" "$build")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
cd "$root"
python3 - "$root/examples/rising_disc.json" "$tmp" "$reps" "${builds[@]}" <<'PY'
import os, statistics, subprocess, sys, time
scene, tmp, reps, *builds = sys.argv[1:]
builds = [os.path.realpath(b) for b in builds]
placements = [("inline", []), ("solid separate", ["solids.0.process=separate"]),
              ("fluid separate", ["fluid.process=separate"]),
              ("both separate", ["solids.0.process=separate", "fluid.process=separate"])]
t = {}
for r in range(int(reps)):
    for b in builds:
        env = dict(os.environ, SEAM_SERVE=f"{b}/protocol/seam-serve",
                   SEAM_PLUGIN_PATH=f"{b}/plugins/fluid_mac:{b}/plugins/solid_rigid")
        for name, sets in placements:
            cmd = [f"{b}/coupler/seam", "run", scene, "--quiet", "--force", "--no-report", "--out", f"{tmp}/o",
                   "--end", "0.01", "--set", "output.frames=false"]
            for s in sets:
                cmd += ["--set", s]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL, env=env)
            t.setdefault((b, name), []).append(time.perf_counter() - t0)
print(f"one step of the 32x48 rising disc, wall s: median (least) of {reps} runs, + excess over in-process; "
      f"load average {os.getloadavg()[0]:.1f}")
for b in builds:
    inline = statistics.median(t[(b, "inline")])
    print(b + ": " + " | ".join(f"{name} {statistics.median(t[(b, name)]):.3f} ({min(t[(b, name)]):.3f}) "
                                f"+{statistics.median(t[(b, name)]) - inline:.3f}" for name, _ in placements))
    for name, _ in placements:
        print(f"@row build='{b}' placement='{name}' reps={reps} median_s={statistics.median(t[(b, name)]):.4f} "
              f"least_s={min(t[(b, name)]):.4f} excess_s={statistics.median(t[(b, name)]) - inline:.4f}")
PY
