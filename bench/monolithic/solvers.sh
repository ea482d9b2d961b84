#!/usr/bin/env bash
# The monolithic projection's solvers against resolution (issue 33.3).
# 1. The floating block at rest from dx 0.05 to 0.00625, IC(0)-PCG,
#    multigrid-PCG (geometric), AMG-PCG (algebraic) and the direct solve
#    (CHOLMOD on the whole SPD system) in one run (bench_monolithic.c says what it prints): iterations, time per
#    solve fresh and with the kept analysis, growth exponents, and each
#    answer's distance from IC(0)'s.
# 2. examples/floating_block.json run monolithic (STEPS steps) at dx 0.05
#    and 0.00625 (the mesh at the grid's spacing) with
#    coupling.preconditioner multigrid, amg and direct, runs alternating: CPU
#    seconds per step (median), where the direct solve's analysis is redone
#    whenever the liquid's cells change.
# Usage: bench/monolithic/solvers.sh [BUILD_DIR] [REPEATS] [STEPS]
SEAM_BENCH=monolithic . "$(dirname "$0")/../rows.sh"   # figures to bench/data/monolithic.jsonl
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
steps=${3:-20}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
ninja -C "$build" bench/monolithic/bench_monolithic coupler/seam >/dev/null
"$build/bench/monolithic/bench_monolithic" "$repeats" 1e-3 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
end=$(python3 -c "print($steps * 0.005)")
for dx in 0.05 0.00625; do
    sets=(--set coupling.scheme=monolithic --set time.end="$end" --set output.frames=false --set cell_size="$dx"
          --set "fluid.cells=[$(python3 -c "print(f'{round(2 / $dx)},{round(1.2 / $dx)}')")]"
          --set "solids[0].bodies[0].mesh.cells=[$(python3 -c "print(f'{round(0.4 / $dx)},{round(0.2 / $dx)}')")]")
    : >"$out/times"
    for ((k = 0; k < repeats; k++)); do
        for solver in multigrid amg direct; do
            /usr/bin/time -f "%U %S" -o "$out/t" "$build/coupler/seam" run examples/floating_block.json --force \
                --no-report --out "$out/$solver" "${sets[@]}" --set coupling.preconditioner=$solver \
                >"$out/log" 2>&1 || { echo "$solver run failed"; tail -5 "$out/log"; exit 1; }
            read -r user sys <"$out/t"
            echo "$solver $user $sys $(($(wc -l <"$out/$solver/stats.csv") - 1))" >>"$out/times"
        done
    done
    python3 - "$out/times" "$dx" <<'PY'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
med = {}
for solver in ("multigrid", "amg", "direct"):
    r = [(float(u) + float(s)) / int(n) for t, u, s, n in runs if t == solver]
    med[solver] = statistics.median(r)
    n = [int(n) for t, u, s, n in runs if t == solver][0]
    print(f"floating_block dx {sys.argv[2]}, {solver}: CPU s/step " + " ".join(f"{x:.4f}" for x in r)
          + f", median {med[solver]:.4f} ({n} steps)")
    print(f"@row scene=floating_block solver={solver} dx={sys.argv[2]} steps={n} runs={len(r)} "
          f"cpu_s_step={med[solver]:.5f}")
print(f"floating_block dx {sys.argv[2]}: amg / multigrid {med['amg'] / med['multigrid']:.2f}, direct / multigrid {med['direct'] / med['multigrid']:.2f}")
PY
done
