#!/bin/sh
# The Turek-Hron benchmark (Turek and Hron 2006): examples/turek_hron_cfd1.json
# (the cylinder and the flag held rigid, Re 20) and examples/turek_hron_fsi1.json
# (the elastic St. Venant-Kirchhoff flag) run to their steady states, and the
# measured values against the benchmark's: drag and lift (N/m) on cylinder and
# flag together, from probes.csv (the loads the solids received, with fluid_mac's
# viscous_loads), and for FSI1 the displacement of the flag's tip A = (0.6, 0.2)
# from interface.csv. Each value is the mean over the last second of the run;
# "drift" is that mean minus the mean over the second before (how steady it is).
# DX is the fluid's cell size (0.41 / DX cells across the channel, a whole
# number; 2.5 / DX along, rounded: the channel is that many cells long),
# default 0.01 (250 x 41); END the end time (s),
# default 10; CASES "cfd1", "fsi1" or both (the default). Single-threaded.
# Usage: bench/schemes/turek_hron.sh [BUILD_DIR] [DX] [END] [CASES]   (default build, 0.01, 10, "cfd1 fsi1")
SEAM_BENCH=turek_hron . "$(dirname "$0")/../rows.sh"   # figures to bench/data/turek_hron.jsonl
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
dx="${2:-0.01}"
end="${3:-10}"
cases="${4:-cfd1 fsi1}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1
cells=$(python3 -c "
import sys
dx = float(sys.argv[1]); nx, ny = 2.5 / dx, 0.41 / dx
if abs(ny - round(ny)) > 1e-6:
    sys.exit('turek_hron.sh: 0.41 / DX must be a whole number, DX = %g gives %g' % (dx, ny))
print('[%d, %d]' % (round(nx), round(ny)))" "$dx")

# run NAME: examples/turek_hron_NAME.json at this grid into $out/NAME
run() {
    start=$(date +%s)
    if ! "$seam" run "examples/turek_hron_$1.json" --out "$out/$1" --force --quiet --no-report --end "$end" \
        --set output.frames=false --set output.picture=false --set output.interface=true \
        --set "cell_size=$dx" --set "fluid.cells=$cells" >"$out/$1.log" 2>&1; then
        echo "turek_hron.sh: $1 failed: $(grep -m1 -o 'error: .*' "$out/$1.log" || tail -n1 "$out/$1.log")" >&2
        exit 1
    fi
    echo "$1: dx = $dx m, fluid cells $cells, to t = $end s: $(($(date +%s) - start)) s wall," \
         "$(awk -F, 'NR > 1 { n++; it += $4; f += $7; s += $8 }
                     END { printf "%d steps, %.2f iterations a step, %.1f s in the fluid, %.1f s in the solids",
                           n, it / n, f, s }' "$out/$1/stats.csv")"
}

for c in $cases; do
    case $c in cfd1 | fsi1) run "$c" ;; *) echo "turek_hron.sh: unknown case $c (cfd1, fsi1)" >&2; exit 2 ;; esac
done
python3 - "$out" "$end" "$dx" $cases <<'PY'
import csv, sys
out, end, dx, cases = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]

def table(path):
    rows = list(csv.reader(open(path)))
    return rows[0], [[float(v) for v in r] for r in rows[1:]]

def window(head, rows, col, t0, t1):
    c, t = head.index(col), head.index("t")
    vals = [r[c] for r in rows if t0 < r[t] <= t1 + 1e-9]
    return sum(vals) / len(vals)

def steady(head, rows, cols):
    """Mean over the last second of the sum of the columns, and its drift."""
    last = sum(window(head, rows, c, end - 1, end) for c in cols)
    before = sum(window(head, rows, c, end - 2, end - 1) for c in cols)
    return last, last - before

def line(case, name, value, drift, ref):
    print("%-5s %-10s %12.5g %12.5g %+9.2f%% %12.3g" % (case, name, value, ref, 100 * (value / ref - 1), drift))
    print("@row case=%s dx=%s end=%g quantity='%s' measured=%.6g reference=%.6g error=%.5f drift=%.4g"
          % (case, dx, end, name, value, ref, value / ref - 1, drift))

print("%-5s %-10s %12s %12s %10s %12s" % ("case", "quantity", "measured", "reference", "error", "drift"))
if "cfd1" in cases:
    h, p = table(out + "/cfd1/probes.csv")
    for name, col, ref in (("drag N/m", "fx", 14.29), ("lift N/m", "fy", 1.119)):
        line("CFD1", name, *steady(h, p, ["body." + col]), ref)
if "fsi1" not in cases:
    sys.exit(0)
h, p = table(out + "/fsi1/probes.csv")
for name, col, ref in (("drag N/m", "fx", 14.295), ("lift N/m", "fy", 0.7638)):
    line("FSI1", name, *steady(h, p, ["cylinder." + col, "flag." + col]), ref)
h, x = table(out + "/fsi1/interface.csv")
n = (len(h) - 2) // 2
tip = min(range(n), key=lambda i: (x[0][2 + 2 * i] - 0.6) ** 2 + (x[0][3 + 2 * i] - 0.2) ** 2)
for name, k, ref in (("tip ux m", 0, 0.0227e-3), ("tip uy m", 1, 0.8209e-3)):
    col = "p%d_%s" % (tip, "xy"[k])
    disp = [r[:2] + [r[2 + 2 * tip + k] - x[0][2 + 2 * tip + k]] for r in x]
    line("FSI1", name, *steady(["step", "t", col], disp, [col]), ref)
PY
