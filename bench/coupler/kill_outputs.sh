#!/bin/bash
# Kills `seam run` at random moments and checks every file it left
# (bench/coupler/check_outputs.py): whole CSV rows, PNG and VTK frames,
# .pvd collections, the report's page and the checkpoint. SIGKILL may
# leave a NAME.tmp (written, not yet renamed) but no torn file; SIGINT and
# SIGTERM must end the run with 130 or 143, its outputs whole and no
# NAME.tmp, and `seam run --resume` must take up the checkpoint of any of
# them. Two scenes: the rising disc with every output (PNG and VTK frames
# every step, probes, interface.csv, a checkpoint every 3 steps), and the
# piston with 2000 pistons (interface.csv rows of 46 kB, longer than a
# stdio buffer). One line per kill that found a problem; a count at the end.
#
#   bench/coupler/kill_outputs.sh [KILLS] [BUILD]     (default: 40 kills per scene and signal, build)
SEAM_BENCH=kill_outputs . "$(dirname "$0")/../rows.sh"   # figures to bench/data/kill_outputs.jsonl
set -u
cd "$(dirname "$0")/../.."
kills=${1:-40}
build=${2:-build}
seam=$PWD/$build/coupler/seam
check=$PWD/bench/coupler/check_outputs.py
work=$(mktemp -d /tmp/seam-kills-XXXXXX)
trap 'rm -rf "$work"' EXIT
disc=(examples/rising_disc.json --set time.frame=0.01 --set output.interface=true
      --set 'output.checkpoint={"every_steps": 3}' --end 0.6)
piston=(examples/piston.json --set solids.0.count=2000 --set output.interface=true --set coupling.scheme=aitken
        --set 'output.checkpoint={"every_steps": 7}' --end 1)
problems=0 runs=0
for scene in disc piston; do
    declare -n args=$scene
    # how long a whole run takes here: kills fall anywhere within it
    t0=$(date +%s%N)
    "$seam" run "${args[@]}" --out "$work/full" --force --quiet >/dev/null 2>&1
    span=$((($(date +%s%N) - t0) / 1000000))
    for sig in KILL INT TERM; do
        for ((k = 0; k < kills; k++)); do
            out=$work/$scene-$sig
            "$seam" run "${args[@]}" --out "$out" --force --quiet >"$work/log" 2>&1 &
            pid=$!
            sleep "$(awk -v s="$span" -v r="$RANDOM" 'BEGIN { printf "%.3f", s * r / 32768 / 1000 }')"
            kill -s "$sig" "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            rc=$?
            runs=$((runs + 1))
            why=""
            case $sig in
            KILL) opts=--tmp-ok; [ "$rc" = 137 ] || [ "$rc" = 0 ] || why="exit $rc; " ;;
            INT) opts=; [ "$rc" = 130 ] || [ "$rc" = 0 ] || why="exit $rc; " ;;
            TERM) opts=; [ "$rc" = 143 ] || [ "$rc" = 0 ] || why="exit $rc; " ;;
            esac
            found=$(python3 "$check" "$out" $opts | head -3 | tr '\n' ' ')
            [ -n "$found" ] && why+="$found"
            # a run stopped by a signal after its first checkpoint goes on from it to the same end
            if [ "$rc" != 0 ] && [ -e "$out/checkpoint.seam" ] && [ $((k % 4)) = 0 ]; then
                "$seam" run --resume "$out" --quiet >"$work/log2" 2>&1
                rrc=$?
                [ "$rrc" = 0 ] || why+="resume exit $rrc: $(grep -m1 error "$work/log2"); "
                cmp -s "$out/interface.csv" "$work/full/interface.csv" || why+="resumed interface.csv differs; "
                found=$(python3 "$check" "$out" | head -3 | tr '\n' ' ')
                [ -n "$found" ] && why+="after resume: $found"
            fi
            if [ -n "$why" ]; then
                problems=$((problems + 1))
                echo "$scene SIG$sig kill $k (exit $rc): $why"
            fi
        done
    done
done
echo "kills: $runs, with a problem: $problems"
echo "@row kills_per_signal=$kills kills=$runs problems=$problems"
