#!/bin/sh
# A participant of several MPI ranks (precice/PROTOCOL.md, "Parallel
# participants"): participants/masses.c (LANG c) or masses_mpi.py (LANG
# python, mpi4py) as Left on 2 ranks, each providing its block of the row,
# against the same on 1 rank, with a serial Right: Left's and Right's
# displacements of every window, the coupler's iterations log and its
# stats.csv are bit-identical (the coupler orders the ranks' vertices by
# rank, then local index: the 1-rank order here). LANG c also runs Left on
# 3 ranks whose middle one has no vertex. LANG faults (C): rank 1 of 2 killed
# in window 3: Right stops within 10 s with an error naming Left's rank 1
# and its host, and the coupler's stats.csv holds the two windows done;
# rank 1 stopped (SIGSTOP) in window 2: reported hung, by rank and host.
# SEAM_TEST_KEEP=1 keeps the runs' directories.
# Arguments: the build directory, LANG (c, python, faults). Skips (77) without MPI (scripts/deps.sh installs it).
set -eu
build=$1
lang=$2
src=$(cd "$(dirname "$0")" && pwd)/participants
fail() { echo "test_precice_mpi ($lang): $*" >&2; exit 1; }
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
if [ "$lang" != python ]; then
    command -v mpicc >/dev/null 2>&1 || { echo "SKIP: no mpicc (Debian: libopenmpi-dev)"; exit 77; }
else
    /usr/bin/python3 -c "import mpi4py" 2>/dev/null || { echo "SKIP: no mpi4py (Debian: python3-mpi4py)"; exit 77; }
fi
# Open MPI in a container, as root (CI): shared memory without ptrace, more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-precice-mpi-XXXXXX")
[ -n "${SEAM_TEST_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
eval "$(sh "$build/precice/participant/seam-precice-env")"
export PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH PYTHONPATH SEAM
n=8
if [ "$lang" != python ]; then
    mpicc -std=c17 -Wall -Wextra -Werror -o "$tmp/masses" "$src/masses.c" $(pkg-config --cflags --libs libprecice) -lm
    prog="$tmp/masses"
else
    prog="/usr/bin/python3 $src/masses_mpi.py"
fi

# run DIR RANKS [COUNTS]: Left on RANKS ranks, Right serial (without MPI), in DIR; status 0 when both end well
run() {
    dir=$1 ranks=$2 counts=${3:-}
    mkdir -p "$tmp/$dir"
    cp "$src/masses.xml" "$tmp/$dir/precice-config.xml"
    cd "$tmp/$dir"
    # shellcheck disable=SC2086
    timeout 60 mpirun --oversubscribe -n "$ranks" $prog Left precice-config.xml $n $counts >left.out 2>&1 &
    left=$!
    ok=0
    # shellcheck disable=SC2086
    timeout 60 $prog Right precice-config.xml $n >right.out 2>&1 || ok=1
    wait $left || ok=1
    cd "$tmp"
    return $ok
}

# same DIR: DIR's results are one's, bit for bit
same() {
    for f in Right-0.txt precice-Right-iterations.log precice-run/seam-out/stats.csv; do
        cmp -s "$tmp/one/$f" "$tmp/$1/$f" || fail "$1: $f differs from the 1-rank run's"
    done
    cat "$tmp/one"/Left-*.txt | sort >"$tmp/one.left"
    cat "$tmp/$1"/Left-*.txt | sort >"$tmp/$1.left"
    [ "$(wc -l <"$tmp/one.left")" -eq $((6 * n)) ] || fail "1 rank: $(wc -l <"$tmp/one.left") Left rows, not $((6 * n))"
    cmp -s "$tmp/one.left" "$tmp/$1.left" || fail "$1: Left's displacements differ from the 1-rank run's"
}

if [ "$lang" = faults ]; then
    SEAM_TEST_DIE_RANK=1 SEAM_TEST_DIE_IN_WINDOW=3 run dies 2 && fail "Left's rank 1 was killed, yet the run ended well"
    took=$(( $(date +%s) - $(cat "$tmp/dies/dying.at") ))   # from its death to the run's end
    grep -q "^preCICE (seam): ERROR: participant Right, .*Left rank 1 of 2 (pid [0-9]* on host $(hostname)) died in time window 3" \
        "$tmp/dies/right.out" || fail "Right's error does not name Left's rank 1 and its host: $(cat "$tmp/dies/right.out")"
    [ "$took" -le 10 ] || fail "the run took $took s to stop after rank 1 died"
    [ "$(grep -c . "$tmp/dies/Left-0.txt")" -eq $((2 * n / 2)) ] || fail "Left's rank 0 did not complete 2 windows"
    [ "$(grep -c . "$tmp/dies/precice-run/seam-out/stats.csv")" -eq 3 ] ||
        fail "stats.csv is not the header and 2 windows: $(cat "$tmp/dies/precice-run/seam-out/stats.csv")"
    echo "Left's rank 1 killed in window 3, the run stopped $took s later: $(cat "$tmp/dies/right.out")"
    # a rank stopped (SIGSTOP) while its sibling waits for it: hung after SEAM_PRECICE_HANG_S
    SEAM_PRECICE_HANG_S=2 SEAM_TEST_HANG=1 SEAM_TEST_DIE_RANK=1 SEAM_TEST_DIE_IN_WINDOW=2 run hangs 2 &&
        fail "Left's rank 1 was stopped, yet the run ended well"
    took=$(( $(date +%s) - $(cat "$tmp/hangs/dying.at") ))
    grep -q "^preCICE (seam): ERROR: participant Right, .*Left rank 1 of 2 (pid [0-9]* on host $(hostname)) is hung: it used no CPU for 2 s while rank 0 waited for it (in time window 2" \
        "$tmp/hangs/right.out" || fail "Right's error does not name Left's hung rank 1: $(cat "$tmp/hangs/right.out")"
    [ "$took" -le 10 ] || fail "the run took $took s to stop after rank 1 stopped"
    echo "Left's rank 1 stopped in window 2, the run stopped $took s later: $(cat "$tmp/hangs/right.out")"
    exit 0
fi

run one 1 || fail "1 rank: $(cat "$tmp/one/left.out" "$tmp/one/right.out")"
run two 2 || fail "2 ranks: $(cat "$tmp/two/left.out" "$tmp/two/right.out")"
same two
grep -q "participant Left rank 1 of 2 connected" "$tmp/two/precice-run/seam-coupler.log" ||
    fail "the coupler did not see Left's rank 1: $(cat "$tmp/two/precice-run/seam-coupler.log")"
[ "$(wc -l <"$tmp/two/Left-1.txt")" -eq $((6 * n / 2)) ] || fail "rank 1 did not write its own $((n / 2)) vertices"
echo "$lang: Left on 2 ranks = 1 rank, bit for bit ($(grep -o "coupling done.*" "$tmp/two/precice-run/seam-coupler.log"))"
[ "$lang" = c ] || exit 0

run three 3 5,0,3 || fail "3 ranks (5,0,3): $(cat "$tmp/three/left.out" "$tmp/three/right.out")"
same three
[ ! -s "$tmp/three/Left-1.txt" ] || fail "the rank without vertices wrote values"
echo "c: Left on 3 ranks, the middle one empty = 1 rank, bit for bit"
exit 0

