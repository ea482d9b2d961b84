#!/bin/bash
# A remote participant that fails at every operation of a run in every way
# (tests/protocol/faulty_solid.py: killed, stopped, hung, exited, its socket
# closed, an error status, a NaN answer), and what `seam run` makes of it: its exit status,
# whether the error names the participant, the step and the cause, how long
# it took, whether a process or a temporary file was left behind, and whether
# the outputs left are whole (every CSV row complete, stats.csv's rows the
# steps the summary counts; at the bye after the run, a warning and exit 0).
# One line per case; a last line counts the cases that broke a promise
# (docs/remote.md, docs/scenes.md "Failures").
#
#   bench/coupler/failure_matrix.sh [BUILD]     (default: build)
SEAM_BENCH=failure_matrix . "$(dirname "$0")/../rows.sh"   # figures to bench/data/failure_matrix.jsonl
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
seam=$PWD/$build/coupler/seam
export PYTHONPATH=$PWD/$build/protocol/python
work=$(mktemp -d /tmp/seam-failures-XXXXXX)
trap 'rm -rf "$work"' EXIT
# the solver under a name of this campaign's own: the processes looked for below are this campaign's alone
ln -s "$PWD/tests/protocol/faulty_solid.py" "$work/faulty_solid.py"
cat >"$work/scene.json" <<EOF
{
  "time": {"end": 0.3, "dt": 0.01, "frame": 0.05},
  "coupling": {"scheme": "aitken", "tolerance": 1e-10, "max_iterations": 100, "on_nonconvergence": "fail"},
  "fluid": {"plugin": "piston_fluid", "added_mass": 2.0},
  "solids": [
    {"name": "piston", "process": "separate", "heartbeat": 0.2, "timeout": 3,
     "command": ["/usr/bin/python3", "$work/faulty_solid.py"],
     "mass": 1.0, "stiffness": 39.47841760435743, "position": 0.1}
  ],
  "output": {"interface": true, "checkpoint": {"every_steps": 5}}
}
EOF
bad=0
printf '%-22s %-6s %4s %6s  %s\n' "fault" "how" "rc" "s" "verdict / first error"
# a whole CSV: every line ends in a newline and has the header's number of fields
whole_csv() {
    awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$1" && [ -z "$(tail -c1 "$1")" ]
}
check() {   # fault how
    local fault=$1 how=$2 out=$work/out log=$work/log verdict=""
    local t0 t1 rc
    t0=$(date +%s.%N)
    if [ "${fault%%:*}" = load ]; then
        # a fresh run never loads: the fault fires when the run is resumed from its checkpoint
        "$seam" run "$work/scene.json" --out "$out" --force --quiet --steps 12 \
            --set "solids.0.fault=$fault:$how" >/dev/null 2>&1
        timeout 60 "$seam" run --resume "$out" --quiet >"$log" 2>&1
    else
        timeout 60 "$seam" run "$work/scene.json" --out "$out" --force --quiet \
            --set "solids.0.fault=$fault:$how" >"$log" 2>&1
    fi
    rc=$?
    t1=$(date +%s.%N)
    local took
    took=$(echo "$t1 - $t0" | bc)
    local err
    err=$(grep -m1 -E "error|warning" "$log" | cut -c1-250)
    if [ "${fault%%:*}" = destroy ]; then   # at the bye after the run: its results stand, a warning
        [ "$rc" = 0 ] || verdict+="rc $rc; "
        grep -q '\[piston\] warning: bye' "$log" || verdict+="participant not named; "
        ! grep -q 'error' "$log" || verdict+="an error logged; "
    else
        [ "$rc" = 1 ] || verdict+="rc $rc; "
        grep -q '\[piston\] error' "$log" || verdict+="participant not named; "
    fi
    # a create refused is the scene's error, located at the participant's object, before any step
    case $fault:$how in
    create*:error) ;;
    *) grep -q -E 'step [0-9]|before the first step' "$log" || verdict+="no step; " ;;
    esac
    sleep 0.3
    local left
    left=$(pgrep -f "$work/")
    if [ -n "$left" ]; then
        verdict+="process left; "
        for pid in $left; do kill -9 "$pid"; done
    fi
    [ -z "$(find "$out" -name '*.tmp' 2>/dev/null)" ] || verdict+="tmp left; "
    for f in "$out"/*.csv; do
        [ -e "$f" ] && ! whole_csv "$f" && verdict+="torn $(basename "$f"); "
    done
    if [ -e "$out/stats.csv" ]; then
        local rows steps
        rows=$(($(wc -l <"$out/stats.csv") - 1))
        steps=$(sed -n 's/^steps: \([0-9]*\) .*/\1/p' "$log")
        # a resume refused leaves the files as the run before it left them (more rows than its checkpoint's steps)
        grep -q 'cannot resume' "$log" || [ -z "$steps" ] || [ "$rows" = "$steps" ] ||
            verdict+="stats rows $rows != steps $steps; "
    fi
    [ -n "$verdict" ] && bad=$((bad + 1))
    printf '%-22s %-6s %4s %6.1f  %s\n' "$fault" "$how" "$rc" "$took" "${verdict:-ok: $err}"
    printf "@row fault=%s how=%s exit=%s seconds=%.2f kept_promise=%d\n" "$fault" "$how" "$rc" "$took" "$([ -z "$verdict" ] && echo 1 || echo 0)"
}
for how in kill stop hang exit close error; do
    for fault in create:1 solve:1 solve:20 commit:1 commit:7 save:1 save:2 write_output:1 write_output:3 load:1 \
        destroy:1; do
        # destroy returns no status: an error there is only the plugin's message
        [ "$fault:$how" = destroy:1:error ] && continue
        check "$fault" "$how"
    done
done
check max_dt:5 nan
check solve:7 nan
echo "cases that broke a promise: $bad"
echo "@row summary=1 broken_promises=$bad"
