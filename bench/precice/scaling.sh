#!/bin/sh
# Issue 37.3: the cost of a parallel participant. bench/precice/scaling_participant.c
# as Solver on 1, 2 and 4 MPI ranks against a serial Echo, on 10^3 .. 10^6
# interface vertices (scaling.xml: serial-implicit, IQN-ILS, 4 windows of
# exactly 3 iterations, nearest-neighbor mappings both ways; the solvers
# compute nothing, so the time is the coupler's and the messages'). Prints,
# per case: time per coupling iteration (Solver's rank 0, from initialize's
# return to the coupling's end, over the iterations), initialize's time,
# messages per iteration (every rank's advance request and its reply), and
# the bytes per iteration of Solver's busiest rank and of Echo, from the
# coupler's traffic lines. Records them in bench/data/precice_scaling.jsonl.
# Usage: bench/precice/scaling.sh [BUILD_DIR] [SIZES] [RANKS]
#   (defaults: build, "1000 10000 100000 1000000", "1 2 4")
SEAM_BENCH=precice_scaling . "$(dirname "$0")/../rows.sh"
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
sizes=${2:-1000 10000 100000 1000000}
rank_counts=${3:-1 2 4}
command -v mpicc >/dev/null 2>&1 || { echo "needs Open MPI (scripts/deps.sh installs it)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
eval "$(sh "$build/precice/participant/seam-precice-env")"
export LD_LIBRARY_PATH SEAM
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046
mpicc -std=c17 -O2 -Wall -Wextra -Werror -o "$work/participant" "$root/bench/precice/scaling_participant.c" \
    $(pkg-config --cflags --libs libprecice)
cp "$root/bench/precice/scaling.xml" "$work/precice-config.xml"
cd "$work"
printf '%6s %9s %11s %8s %9s %16s %13s\n' ranks vertices "ms/iter" init_s "msgs/iter" "Solver B/iter/rk" "Echo B/iter"
for n in $sizes; do
    for ranks in $rank_counts; do
        rm -rf precice-run
        timeout 600 mpirun --oversubscribe -n "$ranks" ./participant Solver precice-config.xml "$n" >solver.out 2>&1 &
        solver=$!
        timeout 600 ./participant Echo precice-config.xml "$n" >echo.out 2>&1 || { cat echo.out >&2; exit 1; }
        wait $solver || { cat solver.out >&2; exit 1; }
        log=precice-run/seam-coupler.log
        # Solver: init_s, iterations, loop_s; the coupler: advances and bytes of each participant
        eval "$(grep -o 'init_s=[0-9.]* iterations=[0-9]* loop_s=[0-9.]*' solver.out)"
        s_adv=$(sed -n 's/.*traffic: participant Solver, .*: \([0-9]*\) advance.*/\1/p' $log)
        s_bytes=$(sed -n 's/.*traffic: participant Solver, .*: \([0-9]*\) bytes in, \([0-9]*\) bytes out/\1 \2/p' $log)
        e_adv=$(sed -n 's/.*traffic: participant Echo, .*: \([0-9]*\) advance.*/\1/p' $log)
        e_bytes=$(sed -n 's/.*traffic: participant Echo, .*: \([0-9]*\) bytes in, \([0-9]*\) bytes out/\1 \2/p' $log)
        row=$(echo "$ranks $n $iterations $loop_s $init_s $s_adv $s_bytes $e_adv $e_bytes" | awk '{
            it = $3; ms = 1000 * $4 / it; msgs = 2 * ($1 * $6 + $9) / it
            sb = ($7 + $8) / it; eb = ($10 + $11) / it
            printf "%6d %9d %11.2f %8.3f %9.1f %16.0f %13.0f\n", $1, $2, ms, $5, msgs, sb, eb
            printf "@row ranks=%d vertices=%d iterations=%d ms_per_iteration=%.3f init_s=%.4f messages_per_iteration=%.2f solver_bytes_per_iteration_per_rank=%.0f echo_bytes_per_iteration=%.0f\n", $1, $2, it, ms, $5, msgs, sb, eb
        }')
        echo "$row"
    done
done
