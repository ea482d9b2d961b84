# shellcheck shell=sh
# Sourced on the first lines of every bench script, the bench named before it:
#     SEAM_BENCH=NAME . "$(dirname "$0")/../rows.sh"
# Runs the script again under bench/record.py (once: the recorder marks the
# environment), so that the script's @row lines, and those of the programs it
# runs, land in bench/data/NAME.jsonl with the date, machine and commit.
# POSIX sh, for the scripts that are not bash.
if [ -z "${SEAM_BENCH_ROWS:-}" ]; then
    for seam_bench_dir in "$(dirname "$0")" "$(dirname "$0")/.."; do
        [ -f "$seam_bench_dir/record.py" ] && exec python3 "$seam_bench_dir/record.py" "$SEAM_BENCH" -- "$0" "$@"
    done
    echo "$0: bench/record.py not found" >&2
    exit 1
fi
