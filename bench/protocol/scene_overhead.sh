#!/usr/bin/env bash
# Separate processes against in-process on a real scene: the rising disc
# (fluid_mac + solid_rigid), at three grid sizes, each participant in-process
# or in its own seam-serve. Every placement runs to END and to 2 END; the
# difference is the cost of END's worth of steps without start-up, so the
# table gives the one-off start-up cost of the separate processes and the
# per-step overhead of the transport. Usage: scene_overhead.sh [BUILD] [END] [SCALES]
# SCALES: grid multiples of 32x48 to run (default "1 2 4").
set -euo pipefail
build=${1:-build}
end=${2:-0.1}
scales=${3:-1 2 4}
root=$(cd "$(dirname "$0")/../.." && pwd)
seam="$root/$build/coupler/seam"
[ -x "$seam" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1
run() {   # best wall time of 3 runs to time $1
    local t_end=$1
    shift
    python3 - "$seam" "$root/examples/rising_disc.json" "$tmp/o" "$t_end" "$@" <<'PY'
import subprocess, sys, time
seam, scene, out, end, *sets = sys.argv[1:]
cmd = [seam, "run", scene, "--quiet", "--force", "--no-report", "--out", out, "--end", end, "--set", "output.frames=false"]
for s in sets:
    cmd += ["--set", s]
best = None
for _ in range(3):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    t = time.perf_counter() - t0
    best = t if best is None else min(best, t)
print(best)
PY
}
end2=$(python3 -c "print(2 * $end)")
printf "%9s %6s %10s | %-30s | %-30s | %-30s\n" grid "steps" "inline" "solid separate" "fluid separate" "both separate"
printf "%9s %6s %10s | %-30s | %-30s | %-30s\n" "" "" "ms/step" "start-up s, ms/step (overhead)" "start-up s, ms/step (overhead)" "start-up s, ms/step (overhead)"
for n in $scales; do
    nx=$((32 * n)); ny=$((48 * n))
    cell=$(python3 -c "print(0.03125 / $n)")
    grid=("cell_size=$cell" "fluid.cells=[$nx, $ny]")
    row=()
    for placement in "" "solids.0.process=separate" "fluid.process=separate" "both"; do
        sets=("${grid[@]}")
        case "$placement" in
            both) sets+=("solids.0.process=separate" "fluid.process=separate") ;;
            "") ;;
            *) sets+=("$placement") ;;
        esac
        row+=("$(run "$end" "${sets[@]}")" "$(run "$end2" "${sets[@]}")")
    done
    steps=$(($(wc -l < "$tmp/o/stats.csv") - 1))
    python3 - "$nx" "$ny" "$steps" "${row[@]}" <<'PY'
import sys
nx, ny, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = list(map(float, sys.argv[4:]))
n = steps / 2                                    # steps in the extra END
inline_step = (t[1] - t[0]) / n
cells = []
for k in (1, 2, 3):
    short, long = t[2 * k], t[2 * k + 1]
    per_step = (long - short) / n
    startup = short - t[0] - (per_step - inline_step) * n
    cells.append(f"{startup:5.2f}, {1e3 * per_step:8.2f} ({100 * (per_step / inline_step - 1):+5.1f}%)")
print(f"{nx + 'x' + ny:>9} {steps:6d} {1e3 * inline_step:10.2f} | " + " | ".join(f"{c:<30}" for c in cells))
PY
done
