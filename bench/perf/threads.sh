#!/usr/bin/env bash
# One thread against the default count (OMP_NUM_THREADS unset, what a user
# gets: seam's thread policy, docs/performance.md "Threads"), wall time per
# step, for the 3D water step, the 2D water step and solid_fem's 3D block at
# about 10^4 and 10^5 elements, under a background load of 0, 2 and 8 busy
# processes that this script starts (at its own niceness, each bounded by
# `timeout`) and always kills. Runs are interleaved: each repetition runs
# both counts, in alternating order; the medians and their ratio are
# printed (speed-up > 1: the default is faster). BLAS runs on one thread in
# both, as `seam run` has it (seam_blas_serial).
# Usage: bench/perf/threads.sh [BUILD] [REPS] [LOADS] [CASES]
#   BUILD  meson build directory (default build)
#   REPS   repetitions of each pair (default 3)
#   LOADS  background busy processes, a comma list (default 0,2,8)
#   CASES  a comma list of water3d, water2d, fem (3D block, 10^4 and 10^5 elements) (default all)
# Sizes: BENCH_WATER3D (default 48), BENCH_WATER2D (default 256).
SEAM_BENCH=threads_load . "$(dirname "$0")/../rows.sh"   # figures to bench/data/threads_load.jsonl
set -euo pipefail
build=${1:-build}
reps=${2:-3}
loads=${3:-0,2,8}
cases=${4:-water3d,water2d,fem}
w3=${BENCH_WATER3D:-48}
w2=${BENCH_WATER2D:-256}
root=$(cd "$(dirname "$0")/../.." && pwd)
case "$build" in /*) bdir=$build ;; *) bdir=$root/$build ;; esac
[ -f "$bdir/build.ninja" ] || { echo "threads.sh: no meson build in $bdir" >&2; exit 1; }
ninja -C "$bdir" bench/fluid_mac/bench_fluid_mac bench/solid_fem/bench_fem >/dev/null
fm=$bdir/bench/fluid_mac/bench_fluid_mac
fem=$bdir/bench/solid_fem/bench_fem
tmp=$(mktemp -d)
busy=()
stop_load() {
    for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${busy[@]}"; do wait "$p" 2>/dev/null || true; done
    busy=()
}
trap 'stop_load; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export OPENBLAS_NUM_THREADS=1
unset OMP_NUM_THREADS OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_DYNAMIC

# run CASE THREADS: a line per figure on stdout: NAME WALL_MS_PER_STEP CPU_MS_PER_STEP|- POLICY_THREADS
# (the timed steps only; the policy's count at the end of the run, '-' when fixed)
run() {
    local c=$1 n=$2 out=$tmp/out
    local envs=()
    [ "$n" = 1 ] && envs=(OMP_NUM_THREADS=1)
    case $c in
    water3d) env "${envs[@]}" BENCH_STEPS=1,3 "$fm" water3d mg "$w3" >"$out" 2>&1 ;;
    water2d) env "${envs[@]}" BENCH_STEPS=5,20 "$fm" water mg "$w2" >"$out" 2>&1 ;;
    fem) env "${envs[@]}" BENCH_CASES=3D BENCH_SIZES=3 "$fem" 3 auto >"$out" 2>&1 ;;
    *) echo "threads.sh: unknown case '$c'" >&2; exit 2 ;;
    esac
    local pol
    pol=$(sed -n 's/^thread policy: \([0-9]*\) threads.*/\1/p' "$out" | tail -1)
    case $c in
    water*) sed -n "s/.* \([0-9.]*\) ms\/step wall .* \([0-9.]*\) ms\/step cpu.*/$c \1 \2 ${pol:--}/p" "$out" ;;
    fem) grep '^| 3D ' "$out" | tail -2 | awk -F'|' -v p="${pol:--}" \
            '{printf "fem%dk %.1f - %s\n", $3 < 50000 ? 10 : 100, 1000 * $8, p}' ;;
    esac
}

echo "# bench/perf/threads.sh: 1 thread against the default (OMP_NUM_THREADS unset)"
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores,"\
     "niceness $(nice), reps $reps, water3d ${w3}^3, water2d ${w2}^2"
echo
echo "| load | case | 1 thread ms/step | default ms/step | speed-up | default cpu/wall | policy's threads (each run) | load avg |"
echo "|---|---|---|---|---|---|---|---|"
IFS=, read -ra load_list <<< "$loads"
IFS=, read -ra case_list <<< "$cases"
for L in "${load_list[@]}"; do
    for _ in $(seq "$L"); do
        timeout 3600 sh -c 'while :; do :; done' &
        busy+=($!)
    done
    sleep 1
    : >"$tmp/t1"; : >"$tmp/tn"
    for r in $(seq "$reps"); do
        for c in "${case_list[@]}"; do
            order="1 n"; [ $((r % 2)) = 0 ] && order="n 1"
            for n in $order; do run "$c" "$n" >>"$tmp/t$n"; done
        done
    done
    la=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/python3 - "$tmp/t1" "$tmp/tn" "$L" "$reps" "$la" <<'PY'
import collections, statistics, sys
f1, fn, load, reps, la = sys.argv[1:]
def runs(path):
    d = collections.defaultdict(list)
    for line in open(path):
        name, wall, cpu, pol = line.split()
        d[name].append((float(wall), None if cpu == "-" else float(cpu), pol))
    return d
one, dflt = runs(f1), runs(fn)
for name in one:
    t1 = statistics.median(w for w, _, _ in one[name])
    tn = statistics.median(w for w, _, _ in dflt[name])
    cpu = [c / w for w, c, _ in dflt[name] if c is not None]
    ratio = f"{statistics.median(cpu):.2f}" if cpu else "-"
    pol = ",".join(p for _, _, p in dflt[name])
    print(f"| {load} | {name} | {t1:.1f} | {tn:.1f} | {t1 / tn:.2f} | {ratio} | {pol} | {la} |")
    print(f"@row load={load} case={name} reps={reps} one_thread_ms_step={t1:.2f} default_ms_step={tn:.2f}"
          f" speedup={t1 / tn:.3f} default_cpu_per_wall={ratio} policy_threads={pol} loadavg={la}")
PY
    stop_load
done
