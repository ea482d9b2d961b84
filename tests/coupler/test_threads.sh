#!/usr/bin/env bash
# The same answer on any thread count: two example scenes run with
# OMP_NUM_THREADS=1 and 2 write the same CSV files, bit for bit (but
# stats.csv's wall-time columns). OPENBLAS_NUM_THREADS is left unset, as a
# user leaves it: OpenBLAS then takes its thread count from OMP_NUM_THREADS
# (docs/scenes.md, "Threads").
#   test_threads.sh SEAM EXAMPLES_DIR
set -u
seam=$1 examples=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/seam-threads-XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
# nested_balloons: the pressure projection's least squares (regions.csv);
# water_complex: a liquid, a rigid and an FEM solid under IQN-ILS
for case in nested_balloons:3 water_complex:6; do
    scene=${case%%:*} steps=${case##*:}
    for n in 1 2; do
        if ! env -u OPENBLAS_NUM_THREADS OMP_NUM_THREADS=$n "$seam" run "$examples/$scene.json" \
                --out "$work/$scene-$n" --steps "$steps" --quiet --no-report >"$work/$scene-$n.log" 2>&1; then
            echo "FAIL: $scene with OMP_NUM_THREADS=$n:"; cat "$work/$scene-$n.log"; exit 1
        fi
    done
    files=0
    for f in "$work/$scene-1"/*.csv; do
        name=$(basename "$f")
        case $name in
        stats.csv)   # columns 7-9: fluid_s, solid_s, coupler_s (wall time)
            cmp -s <(cut -d, -f1-6,10- "$f") <(cut -d, -f1-6,10- "$work/$scene-2/$name") ;;
        summary.csv) continue ;;   # its seconds
        *) cmp -s "$f" "$work/$scene-2/$name" ;;
        esac || { echo "FAIL: $scene: $name differs between 1 and 2 threads"; status=1; }
        files=$((files + 1))
    done
    [ "$files" -ge 3 ] || { echo "FAIL: $scene wrote only $files CSV files"; status=1; }
    echo "$scene: $files CSV files, $steps steps: $([ $status = 0 ] && echo identical || echo DIFFERENT)"
done
exit $status
