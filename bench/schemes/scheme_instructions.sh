#!/usr/bin/env bash
# The coupler's cost per iteration as instructions, which the machine's load
# does not move (bench/schemes/scheme_cost.sh gives the wall time): every
# iterating scheme on examples/tube.json at 101 points (100 steps) and at
# 10^4 points (9999 cells, 10 steps) under valgrind's callgrind; the
# coupler's instructions are those of a step's attempt (stepper.c's
# partitioned_attempt: scheme, judge, interface glue) less the solvers'
# (participant.c's participant_solve), over the iterations, and their ratio
# to iqn-ils's. Instructions are not time (a pass over memory costs more
# than one in cache), but equal code does equal work at any load.
# Usage: bench/schemes/scheme_instructions.sh [BUILD]    (needs valgrind)
SEAM_BENCH=scheme_cost . "$(dirname "$0")/../rows.sh"   # figures to bench/data/scheme_cost.jsonl
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
[ -x "$build/coupler/seam" ] || { echo "build first: no $build/coupler/seam" >&2; exit 1; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || { echo "needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 - "$build" "$tmp" <<'PY'
import csv, re, subprocess, sys
build, tmp = sys.argv[1], sys.argv[2]
schemes = {"relaxation": ["coupling.scheme=relaxation"], "aitken": ["coupling.scheme=aitken"],
           "iqn-ils": ["coupling.scheme=iqn-ils"], "iqn-imvj": ["coupling.scheme=iqn-imvj"],
           "rmi": ["coupling.scheme=rmi"], "rmi gmres": ["coupling.scheme=rmi", "coupling.rmi_solver=gmres"]}

def inclusive(text, function):
    """Instructions of a function and all it calls, from callgrind_annotate --inclusive=yes."""
    m = re.search(r"^\s*([\d,]+) .*" + re.escape(function) + r" \[", text, re.M)
    return int(m.group(1).replace(",", "")) if m else 0

for points, cells, steps in ((101, 100, 100), (10000, 9999, 10)):
    print(f"Tube, {points} points, {steps} steps: coupler instructions per iteration (callgrind)\n")
    print("| scheme | iterations | coupler instructions/it | / iqn-ils's |\n|---|---|---|---|")
    got = {}
    for name, sets in schemes.items():
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", build + "/coupler/seam", "run",
               "examples/tube.json", "--quiet", "--force", "--no-report", "--out", f"{tmp}/o", "--steps", str(steps),
               "--set", f"fluid.cells={cells}", "--set", f"solids[0].cells={cells}", "--set", "output.interface=false",
               "--set", "output.frames=false", "--set", "coupling.max_iterations=3000"]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", f"{tmp}/cg.out"], check=True,
                              capture_output=True, text=True).stdout
        with open(f"{tmp}/o/stats.csv") as f:
            it = sum(int(r["iterations"]) for r in csv.DictReader(f))
        got[name] = (it, (inclusive(text, "stepper.c:partitioned_attempt")
                          - inclusive(text, "participant.c:participant_solve")) / it)
    for name, (it, ir) in got.items():
        ratio = ir / got["iqn-ils"][1]
        print(f"| {name} | {it} | {ir:,.0f} | {ratio:.2f} |")
        print(f"@row table=instructions points={points} steps={steps} scheme='{name}' iterations={it} "
              f"coupler_ir_it={ir:.0f} over_iqn_ils={ratio:.3f}", flush=True)
    print()
PY
