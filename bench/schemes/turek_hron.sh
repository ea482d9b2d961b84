#!/bin/sh
# The Turek-Hron benchmark (Turek and Hron 2006): examples/turek_hron_cfd1.json
# (the cylinder and the flag held rigid, Re 20), turek_hron_fsi1.json (the
# elastic St. Venant-Kirchhoff flag, steady), turek_hron_fsi2.json and
# turek_hron_fsi3.json (the flag oscillating), and the measured values against
# the benchmark's: drag and lift (N/m) on cylinder and flag together, from
# probes.csv (the loads the solids received, with fluid_mac's viscous_loads),
# and the displacement of the flag's tip A = (0.6, 0.2) from interface.csv.
# CFD1 and FSI1: the mean over the last second of the run; "drift" is that
# mean minus the mean over the second before (how steady it is). FSI2 and
# FSI3, over the last 2 s (FSI2) or 1 s (FSI3) of the run, as the benchmark
# reports them: mean = (max + min) / 2, amplitude = (max - min) / 2, and the
# frequency from the upward crossings of the mean ("drift": the mean over the
# window before minus this one).
# Case "schemes": FSI3 from rest to END under xpm, rmi, iqn-ils, iqn-imvj and
# aitken, every one under one convergence test, preCICE's turek-hron-fsi3
# tutorial's (precice-config.xml: relative 1e-4 on the displacements and on the
# stresses): positions relative_value (2-norm) 1e-4 and loads relative (2-norm)
# 1e-4, at most 100 iterations; mean iterations per step and unconverged steps.
# DX is the fluid's cell size (0.41 / DX cells across the channel, a whole
# number; 2.5 / DX along, rounded: the channel is that many cells long),
# default 0.01 (250 x 41); END the end time (s), default 10; CASES any of
# "cfd1 fsi1 fsi2 fsi3 schemes" (default "cfd1 fsi1"). Single-threaded.
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

# run CASE NAME [--set ...]: examples/turek_hron_CASE.json at this grid into $out/NAME
run() {
    c=$1
    name=$2
    shift 2
    start=$(date +%s)
    rc=0
    "$seam" run "examples/turek_hron_$c.json" --out "$out/$name" --force --quiet --no-report --end "$end" \
        --set output.frames=false --set output.picture=false --set output.interface=true \
        --set "cell_size=$dx" --set "fluid.cells=$cells" "$@" >"$out/$name.log" 2>&1 || rc=$?
    # 3: the run ended with steps committed unconverged (counted on the line below)
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
        echo "turek_hron.sh: $name failed: $(grep -m1 -o 'error: .*' "$out/$name.log" || tail -n1 "$out/$name.log")" >&2
        exit 1
    fi
    echo "$name: dx = $dx m, fluid cells $cells, to t = $end s: $(($(date +%s) - start)) s wall," \
         "$(awk -F, 'NR > 1 { n++; it += $4; f += $7; s += $8; u += ($6 != 1) }
                     END { printf "%d steps, %.2f iterations a step (%d unconverged), %.1f s in the fluid, %.1f s in the solids",
                           n, it / n, u, f, s }' "$out/$name/stats.csv")"
}

# One convergence test for every scheme: preCICE's FSI3 tutorial's.
common='[{"quantity": "positions", "kind": "relative_value", "norm": "2", "tolerance": 1e-4},
         {"quantity": "loads", "kind": "relative", "norm": "2", "tolerance": 1e-4}]'
schemes="xpm rmi iqn-ils iqn-imvj aitken"
for c in $cases; do
    case $c in
    cfd1 | fsi1 | fsi2 | fsi3) run "$c" "$c" ;;
    schemes)
        for s in $schemes; do
            run fsi3 "scheme_$s" --set "coupling={\"scheme\": \"$s\", \"measures\": $common, \"max_iterations\": 100}"
        done ;;
    *) echo "turek_hron.sh: unknown case $c (cfd1, fsi1, fsi2, fsi3, schemes)" >&2; exit 2 ;;
    esac
done
python3 - "$out" "$end" "$dx" "$cells" "$schemes" $cases <<'PY'
import csv, sys
out, end, dx, cells, schemes, cases = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
grid = "x".join(cells.strip("[]").replace(" ", "").split(","))

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
    print("@row case=%s grid=%s dx=%s end=%g quantity='%s' measured=%.6g reference=%.6g error=%.5f drift=%.4g"
          % (case.lower(), grid, dx, end, name, value, ref, value / ref - 1, drift))

print("%-5s %-10s %12s %12s %10s %12s" % ("case", "quantity", "measured", "reference", "error", "drift"))
if "cfd1" in cases:
    h, p = table(out + "/cfd1/probes.csv")
    for name, col, ref in (("drag N/m", "fx", 14.29), ("lift N/m", "fy", 1.119)):
        line("CFD1", name, *steady(h, p, ["body." + col]), ref)
def tip_series(path):
    """Time and displacement of the tip A = (0.6, 0.2), per component."""
    h, x = table(path)
    n = (len(h) - 2) // 2
    tip = min(range(n), key=lambda i: (x[0][2 + 2 * i] - 0.6) ** 2 + (x[0][3 + 2 * i] - 0.2) ** 2)
    return [r[1] for r in x], [[r[2 + 2 * tip + k] - x[0][2 + 2 * tip + k] for r in x] for k in (0, 1)]

if "fsi1" in cases:
    h, p = table(out + "/fsi1/probes.csv")
    for name, col, ref in (("drag N/m", "fx", 14.295), ("lift N/m", "fy", 0.7638)):
        line("FSI1", name, *steady(h, p, ["cylinder." + col, "flag." + col]), ref)
    t, u = tip_series(out + "/fsi1/interface.csv")
    for name, k, ref in (("tip ux m", 0, 0.0227e-3), ("tip uy m", 1, 0.8209e-3)):
        rows = [[0, ti, ui] for ti, ui in zip(t, u[k])]
        line("FSI1", name, *steady(["step", "t", "u"], rows, ["u"]), ref)

def oscillation(t, v, t0, t1):
    """Mean (max + min) / 2, amplitude (max - min) / 2 and frequency (upward
    crossings of the mean) of v over t in (t0, t1]."""
    w = [(ti, vi) for ti, vi in zip(t, v) if t0 < ti <= t1 + 1e-9]
    if not w:
        return float("nan"), float("nan"), float("nan")
    hi, lo = max(vi for _, vi in w), min(vi for _, vi in w)
    mean = 0.5 * (hi + lo)
    up = [a[0] + (mean - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) for a, b in zip(w, w[1:]) if a[1] < mean <= b[1]]
    freq = (len(up) - 1) / (up[-1] - up[0]) if len(up) > 1 else float("nan")
    return mean, 0.5 * (hi - lo), freq

# Turek and Hron 2006 (as quoted in github.com/NREL/PVade, docs/how_to_guides/benchmark.rst, for FSI2; FSI3
# as widely quoted): per quantity mean, amplitude (m or N/m) and frequency (Hz).
REF = {"fsi2": {"tip ux m": (-14.58e-3, 12.44e-3, 3.8), "tip uy m": (1.23e-3, 80.6e-3, 2.0),
                "drag N/m": (208.83, 73.75, 3.8), "lift N/m": (0.88, 234.2, 2.0)},
       "fsi3": {"tip ux m": (-2.69e-3, 2.53e-3, 10.9), "tip uy m": (1.48e-3, 34.38e-3, 5.3),
                "drag N/m": (457.3, 22.66, 10.9), "lift N/m": (2.22, 149.78, 5.3)}}

def oscillating(case, span):
    h, p = table(out + "/%s/probes.csv" % case)
    t = [r[h.index("t")] for r in p]
    series = {"drag N/m": [r[h.index("cylinder.fx")] + r[h.index("flag.fx")] for r in p],
              "lift N/m": [r[h.index("cylinder.fy")] + r[h.index("flag.fy")] for r in p]}
    tt, u = tip_series(out + "/%s/interface.csv" % case)
    for name in ("tip ux m", "tip uy m", "drag N/m", "lift N/m"):
        ts, v = (tt, u["xy".index(name[5])]) if name.startswith("tip") else (t, series[name])
        now = oscillation(ts, v, end - span, end)
        before = oscillation(ts, v, end - 2 * span, end - span)
        for i, what in enumerate(("mean", "amplitude", "frequency Hz")):
            line(case.upper(), "%s %s" % (name, what), now[i], before[i] - now[i], REF[case][name][i])

for case, span in (("fsi2", 2.0), ("fsi3", 1.0)):
    if case in cases:
        oscillating(case, span)

if "schemes" in cases:
    print("FSI3 from rest to t = %g s, %s cells, every scheme under preCICE's tutorial test "
          "(relative 1e-4 on positions and loads, at most 100 iterations):" % (end, grid))
    print("%-9s %14s %12s" % ("scheme", "it/step", "unconverged"))
    for s in schemes.split():
        rows = list(csv.reader(open(out + "/scheme_%s/stats.csv" % s)))[1:]
        it = sum(float(r[3]) for r in rows) / len(rows)
        bad = sum(r[5] != "1" for r in rows)
        print("%-9s %14.2f %12d" % (s, it, bad))
        print("@row case=fsi3 grid=%s dx=%s end=%g scheme=%s it_per_step=%.4g unconverged=%d steps=%d "
              "test='relative 1e-4 positions and loads'" % (grid, dx, end, s, it, bad, len(rows)))
PY
