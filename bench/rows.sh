# Sourced on the first lines of every bench script, with the bench's name:
#     . "$(dirname "$0")/../rows.sh" NAME "$@"
# Re-runs the script under bench/record.py (once: the recorder marks the
# environment), so that the script's @row lines, and those of the programs it
# runs, land in bench/data/NAME.jsonl with the date, machine and commit.
if [ -z "${SEAM_BENCH_ROWS:-}" ]; then
    exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/record.py" "$1" -- "$0" "${@:2}"
fi
