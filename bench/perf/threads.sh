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
#   CASES  a comma list of water3d, water2d, fem10k, fem100k (default all)
# Sizes: BENCH_WATER3D (default 48), BENCH_WATER2D (default 256).
SEAM_BENCH=threads_load . "$(dirname "$0")/../rows.sh"   # figures to bench/data/threads_load.jsonl
set -euo pipefail
build=${1:-build}
reps=${2:-3}
loads=${3:-0,2,8}
cases=${4:-water3d,water2d,fem10k,fem100k}
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

# run CASE THREADS: wall ms per step (the timed steps only) on stdout
run() {
    local c=$1 n=$2 out=$tmp/out
    local envs=()
    [ "$n" = 1 ] && envs=(OMP_NUM_THREADS=1)
    case $c in
    water3d) env "${envs[@]}" BENCH_STEPS=1,3 "$fm" water3d mg "$w3" >"$out" ;;
    water2d) env "${envs[@]}" BENCH_STEPS=5,20 "$fm" water mg "$w2" >"$out" ;;
    fem10k|fem100k) env "${envs[@]}" BENCH_CASES=3D BENCH_SIZES=$([ $c = fem10k ] && echo 2 || echo 3) \
                        "$fem" 3 auto >"$out" ;;
    *) echo "threads.sh: unknown case '$c'" >&2; exit 2 ;;
    esac
    case $c in
    water*) sed -n 's/.* \([0-9.]*\) ms\/step wall .* \([0-9.]*\) ms\/step cpu.*/\1 \2/p' "$out" ;;
    fem*) grep '^| 3D ' "$out" | tail -1 | awk -F'|' '{printf "%.1f -\n", 1000 * $8}' ;;
    esac
}

echo "# bench/perf/threads.sh: 1 thread against the default (OMP_NUM_THREADS unset)"
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores,"\
     "niceness $(nice), reps $reps, water3d ${w3}^3, water2d ${w2}^2"
echo
echo "| load | case | 1 thread ms/step | default ms/step | speed-up | default cpu/wall | load avg |"
echo "|---|---|---|---|---|---|---|"
IFS=, read -ra load_list <<< "$loads"
IFS=, read -ra case_list <<< "$cases"
for L in "${load_list[@]}"; do
    for _ in $(seq "$L"); do
        timeout 3600 sh -c 'while :; do :; done' &
        busy+=($!)
    done
    sleep 1
    for c in "${case_list[@]}"; do
        : >"$tmp/t1"; : >"$tmp/tn"
        for r in $(seq "$reps"); do
            order="1 n"; [ $((r % 2)) = 0 ] && order="n 1"
            for n in $order; do run "$c" "$n" >>"$tmp/t$n"; done
        done
        la=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/python3 - "$tmp/t1" "$tmp/tn" "$L" "$c" "$reps" "$la" <<'PY'
import statistics, sys
f1, fn, load, case, reps, la = sys.argv[1:]
def col(path, k):
    v = [l.split()[k] for l in open(path) if l.strip()]
    return [float(x) for x in v if x != "-"]
t1, tn = statistics.median(col(f1, 0)), statistics.median(col(fn, 0))
cpu = col(fn, 1)
ratio = f"{statistics.median(cpu) / tn:.2f}" if cpu else "-"
print(f"| {load} | {case} | {t1:.1f} | {tn:.1f} | {t1 / tn:.2f} | {ratio} | {la} |")
print(f"@row load={load} case={case} reps={reps} one_thread_ms_step={t1:.2f} default_ms_step={tn:.2f}"
      f" speedup={t1 / tn:.3f} default_cpu_per_wall={ratio} loadavg={la}")
PY
    done
    stop_load
done
