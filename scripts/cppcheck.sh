#!/bin/sh
# Static analysis of seam's C sources with cppcheck: leaks (realloc's
# included), null pointer dereferences, uninitialised variables, printf
# arguments and the rest of its "warning" level. Prints each finding as
# file:line: severity: id: message and exits 1 when there is any; known
# false positives are listed with their reasons in .ci/cppcheck/suppressions.txt.
# One preprocessor configuration per file keeps it to seconds (run by .ci/run).
# Usage: scripts/cppcheck.sh [DIR|FILE...]   (default: core coupler protocol plugins precice)
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- core coupler protocol plugins precice
exec cppcheck -j2 --quiet --std=c11 --max-configs=1 --enable=warning --inline-suppr \
    --library=.ci/cppcheck/seam.cfg --suppressions-list=.ci/cppcheck/suppressions.txt \
    -I core/include --error-exitcode=1 \
    --template='{file}:{line}: {severity}: {id}: {message}' "$@"
