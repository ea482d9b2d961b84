#!/usr/bin/env bash
# Run every example scene for a few steps with one build and keep each run's
# CSV files but stats.csv (which holds timings): residuals.csv, and probes,
# regions, interface and summary where the scene writes them; so two builds
# can be compared bit for bit:
#   scripts/scene_residuals.sh BUILD_DIR OUT_DIR [STEPS]
#   diff -r OUT_A OUT_B        # silent: same residuals on every scene
# A scene that fails records its exit status in OUT_DIR/SCENE/status.
set -u
build=$(cd "$1" && pwd) out=$2 steps=${3:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# the Python participants import the build's generated seam_abi module
export PYTHONPATH="$build/protocol/python${PYTHONPATH:+:$PYTHONPATH}"
for scene in "$src"/examples/*.json; do
    name=$(basename "$scene" .json)
    dir=$(mktemp -d)
    "$build/coupler/seam" run "$scene" --out "$dir/run" --steps "$steps" --quiet --no-report \
        >"$dir/log" 2>&1
    rc=$?
    mkdir -p "$out/$name"
    echo "$rc" >"$out/$name/status"
    for f in "$dir"/run/*.csv; do
        case $(basename "$f") in stats.csv|summary.csv|'*.csv') ;; *) cp "$f" "$out/$name/" ;; esac
    done
    printf '%-28s exit %d\n' "$name" "$rc"
    rm -rf "$dir"
done
