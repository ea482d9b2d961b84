#!/usr/bin/env bash
# Takahashi's buckling contrast (thesis ch. 4.5.4, Fig. 4.6) in 2D: a slender column of very viscous fluid
# falling onto the floor, full form against Laplacian form (bench/fluid_sph/bench_buckling.c says how), its
# shape at five times printed and drawn to PICTURE (default docs/fluid_sph/viscous_buckling.png; needs
# /usr/bin/python3 with matplotlib). One thread.
# Usage: bench/fluid_sph/viscosity_buckling.sh [BUILD_DIR] [PICTURE]
SEAM_BENCH=sph_viscous_buckling . "$(dirname "$0")/../rows.sh"   # figures to bench/data/sph_viscous_buckling.jsonl
set -euo pipefail
build=${1:-build}
picture=${2:-docs/fluid_sph/viscous_buckling.png}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ninja -C "$build" bench/fluid_sph/bench_buckling >/dev/null
OMP_NUM_THREADS=1 "$build/bench/fluid_sph/bench_buckling" "$out/particles.csv"
/usr/bin/python3 - "$out/particles.csv" "$picture" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
forms = ["full", "laplacian"]
times = sorted({r["t"] for r in rows}, key=float)
fig, axes = plt.subplots(2, len(times), figsize=(2.2 * len(times), 5.0), sharex=True, sharey=True)
for a, form in enumerate(forms):
    for b, t in enumerate(times):
        ax = axes[a][b]
        pts = [(float(r["x"]), float(r["y"])) for r in rows if r["form"] == form and r["t"] == t]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=2, c="#7a4a1e" if form == "full" else "#3a6ea5")
        ax.set_xlim(0.1, 0.4)
        ax.set_ylim(0.0, 0.5)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.axhline(0.0, color="k", lw=1)
        ax.set_title(f"{'full' if form == 'full' else 'Laplacian'}, t = {float(t):.2f} s", fontsize=8)
fig.suptitle("Viscous column falling at 1 m/s (mu = 1000 kg/s per unit depth, implicit): full form buckles, "
             "Laplacian form squashes", fontsize=9)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print(f"picture: {sys.argv[2]}")
PY
