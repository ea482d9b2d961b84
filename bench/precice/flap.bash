# shellcheck shell=bash
# Sourced (not a bench: no .sh) by bench/precice/openfoam.sh and openfoam_calculix.sh: preCICE's
# perpendicular-flap tutorial with fluid-openfoam and one solid, coupled by
# seam, to the tutorial's end (5 s, 500 windows of 0.01 s). The fluid is
# started by the case's run.sh (blockMesh, then pimpleFoam); the first
# participant to start brings up the coupler.

# FLUID_RANKS (default 1): the fluid's MPI ranks. Above 1 the case is
# decomposed into that many slabs along x (decomposeParDict: simple, n
# (RANKS 1 1)) and run.sh -parallel runs decomposePar, mpirun -np RANKS
# pimpleFoam -parallel and reconstructPar; each rank is one participant rank
# of seam's libprecice (docs/precice.md, "A participant of N ranks").
fluid_ranks=${FLUID_RANKS:-1}
case "$fluid_ranks" in '' | *[!0-9]* | 0) echo "FLUID_RANKS must be a positive integer" >&2; exit 2 ;; esac

# flap_case TUTORIALS: a private copy of the case and the tutorials' tools; sets $dir
flap_case() {
    work=$(mktemp -d)
    trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
    mkdir "$work/flap"
    cp -r "$1/perpendicular-flap" "$work/flap/case"
    cp -r "$1/tools" "$work/flap/tools"
    dir=$work/flap/case
    if [ "$fluid_ranks" -gt 1 ]; then
        sed -i -e "s/^numberOfSubdomains .*/numberOfSubdomains $fluid_ranks;/" \
            -e "s/^\( *n  *\)(.*);/\1($fluid_ranks 1 1);/" "$dir/fluid-openfoam/system/decomposeParDict"
        grep -q "numberOfSubdomains $fluid_ranks;" "$dir/fluid-openfoam/system/decomposeParDict" ||
            { echo "could not set $fluid_ranks subdomains in the case's decomposeParDict" >&2; exit 1; }
        fluid_args=-parallel
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    fi
}

# flap_run CASE SOLID_DIR COMMAND...: the fluid's run.sh and COMMAND (in
# $dir/SOLID_DIR) side by side, each for at most $limit s; sets $wall, and
# on a failure prints the logs' tails and a failed row (with the last time
# the watch point logged: how far the run got) and exits 1
flap_run() {
    local name=$1 solid_dir=$2 start end rc=0 fluid solid reached
    shift 2
    start=$(date +%s.%N)
    (cd "$dir/fluid-openfoam" && timeout "${limit:?}" ./run.sh ${fluid_args:-} >"$dir/fluid-openfoam.log" 2>&1) &
    fluid=$!
    (cd "$dir/$solid_dir" && timeout "${limit:?}" "$@" >"$dir/$solid_dir.log" 2>&1) &
    solid=$!
    # the first participant to fail stops the other (it would wait for its partner until the limit)
    if ! wait -n "$fluid" "$solid"; then
        rc=1
        pkill -P "$fluid" 2>/dev/null || true
        pkill -P "$solid" 2>/dev/null || true
    fi
    wait "$fluid" || rc=1
    wait "$solid" || rc=1
    end=$(date +%s.%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -ne 0 ]; then
        echo "$name failed; last lines of the logs:"
        tail -n 5 "$dir/fluid-openfoam.log" "$dir/$solid_dir.log"
        reached=$(awk 'NR > 1 { t = $1 } END { print t + 0 }' "$dir/$solid_dir/precice-Solid-watchpoint-Flap-Tip.log" 2>/dev/null || echo 0)
        echo "@row case=$name failed=1 wall_s=$wall reached_t=$reached"
        exit 1
    fi
}

# flap_report CASE SOLID_DIR FIELDS...: prints and records the iterations
# per window (mean max min windows, from the solid's iterations log), the
# wall time and the tip's x-displacement (the solid's watch point Flap-Tip):
# its extremes with their times, its last value and a series every 0.1 s;
# FIELDS (key=value) are added to the row
flap_report() {
    local name=$1 solid_dir=$2 it watch tip series mx tmx mn tmn last tl
    shift 2
    it=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Iterations") c = i; next }
              { s += $c; n++; if (n == 1 || $c > mx) mx = $c; if (n == 1 || $c < mn) mn = $c }
              END { printf "%.2f %d %d %d", s / n, mx, mn, n }' \
        "$dir/$solid_dir/precice-Solid-iterations.log")
    # the watch point: Time Coordinate0 Coordinate1 Displacement0 Displacement1 Force0 Force1
    watch=$dir/$solid_dir/precice-Solid-watchpoint-Flap-Tip.log
    tip=$(awk 'NR > 1 { t = $1 + 0; x = $4 + 0
                        if (n == 0 || x > mx) { mx = x; tmx = t }
                        if (n == 0 || x < mn) { mn = x; tmn = t }
                        n++; last = x; tl = t }
               END { printf "%.6e %.2f %.6e %.2f %.6e %.2f", mx, tmx, mn, tmn, last, tl }' "$watch")
    series=$(awk 'NR > 1 { c = int($1 * 100 + 0.5); if (c > 0 && c % 10 == 0) { printf "%s%g:%.5g", sep, c / 100, $4; sep = " " } }' "$watch")
    read -r mx tmx mn tmn last tl <<<"$tip"
    printf '%-22s iterations/window %s   %6ss   tip x: max %s at %s s, min %s at %s s, %s at %s s\n' \
        "$name" "$it" "$wall" "$mx" "$tmx" "$mn" "$tmn" "$last" "$tl"
    echo "tip x every 0.1 s: $series"
    echo "@row case=$name wall_s=$wall $(echo "$it" | awk '{ printf "mean_it=%s max_it=%s min_it=%s windows=%s", $1, $2, $3, $4 }')" \
        "tip_x_max=$mx tip_x_max_t=$tmx tip_x_min=$mn tip_x_min_t=$tmn tip_x_last=$last" \
        "$* tip_x_series='$series'"
}
