#!/bin/sh
# Issue 14: light bodies. examples/rising_disc.json (a disc rising in water,
# 1000 kg/m^3) at disc densities 10, 50, 100, 300, 600 and 900 kg/m^2
# (density ratios 0.01 to 0.9; 10 is issue 32's item 4) for every scheme: constant relaxation 0.1, aitken,
# iqn-ils, iqn-imvj, rmi and xpm, the last two with the rigid bodies on their
# own coordinates (coupling.rigid_dofs, the default) and on the points
# ("-pts"). One line per run: mean iterations per step, unconverged steps,
# steps, how far it ran (t reached of the scene's 1.5 s) and the outcome
# ("timeout": still running after LIMIT seconds, default 120).
# Usage: bench/schemes/light_bodies.sh [BUILD_DIR] [LIMIT] [DENSITIES]
#   (default build, 120, "10 50 100 300 600 900"; DENSITIES: a quoted list)
SEAM_BENCH=light_bodies . "$(dirname "$0")/../rows.sh"   # figures to bench/data/light_bodies.jsonl
set -eu
cd "$(dirname "$0")/../.."
seam="${1:-build}/coupler/seam"
limit="${2:-120}"
densities="${3:-10 50 100 300 600 900}"
for d in $densities; do
    case $d in
    '' | *[!0-9.]* | .*) echo "light_bodies.sh: density \"$d\" is not a positive number (kg/m^2)" >&2; exit 2 ;;
    esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1

# mean iterations, unconverged steps, steps, last t of a stats.csv
stats() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "iterations") c = i; if ($i == "converged") v = i; if ($i == "t") tc = i } next }
             { s += $c; n++; if ($v == 0) u++; t = $tc }
             END { if (n) printf "%6.2f %6d %6d %8.4f", s / n, u, n, t; else printf "%6s %6s %6d %8s", "-", "-", 0, "0" }' "$1"
}

printf '%-8s %-10s %6s %6s %6s %8s  %s\n' density scheme it/step unconv steps t_end outcome
for d in $densities; do
    for s in relaxation aitken iqn-ils iqn-imvj rmi rmi-pts xpm xpm-pts; do
        case $s in
        relaxation) sets="--set coupling.scheme=relaxation --set coupling.relaxation=0.1" ;;
        *-pts) sets="--set coupling.scheme=${s%-pts} --set coupling.rigid_dofs=false" ;;
        *) sets="--set coupling.scheme=$s" ;;
        esac
        rm -rf "$out/r"
        # shellcheck disable=SC2086
        if timeout "$limit" "$seam" run examples/rising_disc.json --out "$out/r" --force --quiet --no-report \
            --set "solids[0].bodies[0].density=$d" $sets >"$out/log" 2>&1; then
            outcome=ok
        else
            rc=$?
            if [ "$rc" -eq 124 ]; then outcome=timeout; else outcome="failed ($rc)"; fi
        fi
        if [ -f "$out/r/stats.csv" ]; then line=$(stats "$out/r/stats.csv"); else line=$(printf '%6s %6s %6s %8s' - - - -); fi
        printf '%-8s %-10s %s  %s\n' "$d" "$s" "$line" "$outcome"
        echo "@row density=$d scheme=$s $(echo "$line" | awk '{ printf "it_step=%s unconverged=%s steps=%s t_end=%s", $1, $2, $3, $4 }') outcome='$outcome'"
    done
done
