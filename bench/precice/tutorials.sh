#!/bin/bash
# Issue 31: preCICE's own tutorials, their solvers unmodified, coupled by
# seam. Given a checkout of precice/tutorials (and, for the FEniCS solid, of
# precice/fenics-adapter), runs
#   elastic-tube-1d   fluid-python + solid-python, fluid-cpp + solid-cpp:
#                     with the file's IQN-ILS, then with seam's best scheme
#                     (the file's IQN-ILS plus seam's quartic predictor);
#   perpendicular-flap fluid-fake + solid-fake, fluid-fake + solid-fenics
# each in a copy of the case, every participant started as the tutorial's
# run.sh starts it (the C++ ones through run.sh itself, which builds them
# with CMake's find_package(precice 3 CONFIG); the Python ones with
# `python3 SCRIPT`, because run.sh first pip-installs pyprecice, which
# needs the network and would shadow seam's module). The first participant
# to start brings up the coupler. Prints iterations per window (mean, max,
# min), the watch point's last values, and wall time; records them in
# bench/data/precice_tutorials.jsonl.
# Usage: bench/precice/tutorials.sh TUTORIALS [FENICS_ADAPTER] [BUILD_DIR]
# Needs: python3-numpy, python3-matplotlib (the tube's fluid imports it),
# python3-dolfin for solid-fenics (scripts/deps.sh bench-precice installs them).
SEAM_BENCH=precice_tutorials . "$(dirname "$0")/../rows.sh"
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tutorials=$(cd "${1:?usage: bench/precice/tutorials.sh TUTORIALS [FENICS_ADAPTER] [BUILD_DIR]}" && pwd)
adapter=${2:-}
build=$(cd "${3:-$root/build}" && pwd)
limit=${SEAM_BENCH_TIMEOUT:-900}

# seam's preCICE library, headers, CMake package and Python module, by opt-in
eval "$("$build/precice/participant/seam-precice-env")"
export SEAM="$build/coupler/seam"
py=/usr/bin/python3

work=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT

# iterations per window from a preCICE iterations log: mean max min windows
iterations() {
    awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Iterations") c = i; next }
         { s += $c; n++; if (n == 1 || $c > mx) mx = $c; if (n == 1 || $c < mn) mn = $c }
         END { if (n) printf "%.2f %d %d %d", s / n, mx, mn, n; else printf "nan 0 0 0" }' "$1"
}

# case_dir NAME CASE: a fresh copy of the case (and tools/, which run.sh sources)
case_dir() {
    rm -rf "${work:?}/$1"
    mkdir -p "$work/$1"
    cp -r "$tutorials/$2" "$work/$1/case"
    cp -r "$tutorials/tools" "$work/$1/tools"
    echo "$work/$1/case"
}

# run NAME CASE SECOND LOGDIR WATCHLOG "DIR1:CMD1" "DIR2:CMD2" [--set KEY=VALUE]...
# Starts a user's `seam run` first when sets are given (the participants then join it).
run() {
    local name=$1 tcase=$2 second=$3 logdir=$4 watch=$5 p1=$6 p2=$7
    shift 7
    local dir
    dir=$(case_dir "$name" "$tcase")
    local start end rc=0 pids=()
    start=$(date +%s.%N)
    if [ $# -gt 0 ]; then
        (cd "$dir" && timeout "$limit" "$SEAM" run precice-config.xml --quiet "$@" >"$dir/seam.log" 2>&1) &
        pids+=($!)
    fi
    for p in "$p1" "$p2"; do
        (cd "$dir/${p%%:*}" && timeout "$limit" bash -c "${p#*:}" >"$dir/${p%%:*}.log" 2>&1) &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
    end=$(date +%s.%N)
    local wall it last
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -ne 0 ]; then
        printf '%-44s failed (exit %d): %s\n' "$name" "$rc" \
            "$(grep -h -m1 -i 'error' "$dir"/*.log "$dir"/*/*.log 2>/dev/null | head -n1)"
        echo "@row case=$name failed=1 wall_s=$wall"
        return 0
    fi
    it=$(iterations "$dir/$logdir/precice-$second-iterations.log")
    last=$(tail -n1 "$dir/$watch" | awk '{ $1 = $1; print }')
    printf '%-44s %s   %6ss   watch point (last row): %s\n' "$name" "$it" "$wall" "$last"
    echo "@row case=$name wall_s=$wall $(echo "$it" | awk '{ printf "mean_it=%s max_it=%s min_it=%s windows=%s", $1, $2, $3, $4 }') watch_last='$last'"
}

echo "case: iterations per window (mean max min windows), wall time, watch point"
tube=elastic-tube-1d
run tube-python-python $tube Solid solid-python fluid-python/precice-Fluid-watchpoint-Middle.log \
    "fluid-python:$py FluidSolver.py ../precice-config.xml" "solid-python:$py SolidSolver.py ../precice-config.xml"
run tube-cpp-cpp $tube Solid solid-cpp fluid-cpp/precice-Fluid-watchpoint-Middle.log \
    "fluid-cpp:./run.sh" "solid-cpp:./run.sh"
run tube-python-python-quartic $tube Solid solid-python fluid-python/precice-Fluid-watchpoint-Middle.log \
    "fluid-python:$py FluidSolver.py ../precice-config.xml" "solid-python:$py SolidSolver.py ../precice-config.xml" \
    --set coupling.predictor=quartic

flap=perpendicular-flap
run flap-fake-fake $flap Solid solid-fake solid-fake/precice-Solid-watchpoint-Flap-Tip.log \
    "fluid-fake:$py fake.py" "solid-fake:$py fake.py"
if [ -n "$adapter" ] && $py -c 'import dolfin' 2>/dev/null; then
    adapter=$(cd "$adapter" && pwd)
    PYTHONPATH="$adapter${PYTHONPATH:+:$PYTHONPATH}" \
        run flap-fake-fenics $flap Solid solid-fenics solid-fenics/precice-Solid-watchpoint-Flap-Tip.log \
        "fluid-fake:$py fake.py" "solid-fenics:$py solid.py"
else
    echo "flap-fake-fenics: skipped (give the fenics-adapter checkout and install python3-dolfin)"
fi
