#!/usr/bin/env bash
# examples/smoke_cloth.json run to 10 s (the test suite runs 0.5 s), with
# iqn-ils reusing no past steps (the example's setting) and 2 (its setting
# until 2026-11-25): the outcome, the time reached, iterations per step and
# unconverged steps. Some 10 minutes per run on a 2-core machine.
# Usage: bench/coupler/smoke_cloth_long.sh [BUILD]
SEAM_BENCH=smoke_cloth_long . "$(dirname "$0")/../rows.sh"   # figures to bench/data/smoke_cloth_long.jsonl
set -uo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
seam="$root/$build/coupler/seam"
[ -x "$seam" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%6s %6s %10s %10s %12s %s\n" reuse status "t reached" "it/step" unconverged "last error"
for reuse in 0 2; do
    "$seam" run "$root/examples/smoke_cloth.json" --quiet --no-report --force --out "$tmp/o$reuse" --end 10 \
        --set output.frames=false --set coupling.reuse=$reuse > "$tmp/log$reuse" 2>&1
    rc=$?
    python3 - "$tmp/o$reuse/stats.csv" "$reuse" "$rc" "$tmp/log$reuse" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
err = [l.strip() for l in open(sys.argv[4]) if "error:" in l]
it = sum(int(r["iterations"]) for r in rows) / max(1, len(rows))
bad = sum(1 for r in rows if r["converged"] == "0")
t = float(rows[-1]["t"]) if rows else 0.0
print(f"{sys.argv[2]:>6} {sys.argv[3]:>6} {t:10.3f} {it:10.2f} {bad:12d} {err[0][:110] if err else ''}")
print(f"@row reuse={sys.argv[2]} exit={sys.argv[3]} t_reached={t:.4f} it_step={it:.3f} unconverged={bad} steps={len(rows)}")
PY
done
