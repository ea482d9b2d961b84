#!/usr/bin/env bash
# Two builds of seam on one monolithic scene, runs alternating (old, new,
# old, ...) so that both see the same load: wall and CPU seconds per step of
# each run, their medians and the ratio, whether the two builds' interface.csv
# agree bit for bit, and CHOLMOD's symbolic analyses and numeric
# factorizations per run when the perf probes exist (as root, once:
# perf probe -x LIBCHOLMOD -a cholmod_l_analyze -a cholmod_l_factorize).
# SCENE: balloon (examples/volumetric_balloon.json at CELL_SIZE, the mesh
# keeping the scene's element size, as balloon.sh) or block
# (examples/floating_block.json). A copied build finds its own plugins
# through SEAM_PLUGIN_PATH.
# Usage: bench/monolithic/builds.sh OLD_BUILD NEW_BUILD [REPEATS] [SCENE] [END_TIME] [CELL_SIZE]
SEAM_BENCH=monolithic_builds . "$(dirname "$0")/../rows.sh"   # figures to bench/data/monolithic_builds.jsonl
set -euo pipefail
old=$1
new=$2
repeats=${3:-5}
scene=${4:-balloon}
end=${5:-0.6}
dx=${6:-0.05}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
sets=(--set coupling.scheme=monolithic --set time.end="$end" --set output.frames=false --set output.interface=true)
case $scene in
balloon)
    file=examples/volumetric_balloon.json
    cells=$(python3 -c "print(round(4 / $dx))")
    segs=$(python3 -c "print(round(94 * 0.05 / $dx))")
    layers=$(python3 -c "print(max(2, round(10 * 0.05 / $dx)))")
    sets+=(--set cell_size="$dx" --set "fluid.cells=[$cells,$cells]"
           --set "solids[0].bodies[0].mesh.segments=$segs" --set "solids[0].bodies[0].mesh.layers=$layers") ;;
block)
    file=examples/floating_block.json ;;
*)
    echo "unknown scene $scene (balloon, block)" >&2
    exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plugins() {
    local b
    b=$(cd "$1" && pwd)
    echo "$b/plugins/monolithic:$b/plugins/fluid_mac:$b/plugins/solid_fem:$b/plugins/solid_rigid"
}
# run BUILD TAG: one timed run; appends "tag wall user+sys steps" to $out/times
run() {
    SEAM_PLUGIN_PATH=$(plugins "$1") /usr/bin/time -f "%e %U %S" -o "$out/t" \
        "$1/coupler/seam" run "$file" --force --no-report --out "$out/$2" "${sets[@]}" >"$out/$2.log" 2>&1 ||
        { echo "$2 run: exit status $?"; tail -5 "$out/$2.log"; exit 1; }
    local steps
    steps=$(($(wc -l <"$out/$2/stats.csv") - 1))
    read -r wall user sys <"$out/t"
    echo "$2 $wall $(python3 -c "print($user + $sys)") $steps" >>"$out/times"
}
what="to t = $end s"
[ "$scene" = balloon ] && what="$what, dx $dx"
echo "monolithic $scene ($file), $what, OMP_NUM_THREADS=$OMP_NUM_THREADS, $repeats runs each, alternating:" \
     "old $old, new $new"
for ((k = 0; k < repeats; k++)); do
    run "$old" old
    run "$new" new
done
if cmp -s "$out/old/interface.csv" "$out/new/interface.csv"; then same=yes; else same=no; fi
python3 - "$out/times" "$same" <<'PY'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
med = {}
for tag in ("old", "new"):
    r = [(float(w), float(c), int(s)) for t, w, c, s in runs if t == tag]
    print(f"{tag}: wall s/step " + " ".join(f"{w / s:.4f}" for w, c, s in r)
          + "; CPU s/step " + " ".join(f"{c / s:.4f}" for w, c, s in r) + f" ({r[0][2]} steps)")
    med[tag] = (statistics.median(w / s for w, c, s in r), statistics.median(c / s for w, c, s in r))
for i, what in enumerate(("wall", "CPU")):
    o, n = med["old"][i], med["new"][i]
    print(f"median {what} s/step: old {o:.4f}, new {n:.4f}, new / old {n / o:.3f}")
print(f"interface.csv of the two builds identical: {sys.argv[2]}")
print(f"@row runs={len(runs) // 2} steps={runs[0][3]} old_wall_s_step={med['old'][0]:.5f} new_wall_s_step={med['new'][0]:.5f} "
      f"old_cpu_s_step={med['old'][1]:.5f} new_cpu_s_step={med['new'][1]:.5f} identical={sys.argv[2]}")
PY
if perf stat -e probe_libcholmod:cholmod_l_analyze true >/dev/null 2>&1; then
    for tag in old new; do
        b=$old
        [ $tag = new ] && b=$new
        SEAM_PLUGIN_PATH=$(plugins "$b") perf stat -x, -e probe_libcholmod:cholmod_l_analyze \
            -e probe_libcholmod:cholmod_l_factorize -o "$out/perf" \
            "$b/coupler/seam" run "$file" --force --no-report --out "$out/p$tag" "${sets[@]}" >/dev/null 2>&1
        echo "$tag: $(awk -F, '/analyze/ {a = $1} /factorize/ {f = $1}
                          END {print a " cholmod_l_analyze, " f " cholmod_l_factorize calls a run"}' "$out/perf")"
    done
else
    echo "CHOLMOD calls not counted: no perf probes" \
         "(as root: perf probe -x LIBCHOLMOD -a cholmod_l_analyze -a cholmod_l_factorize)"
fi
