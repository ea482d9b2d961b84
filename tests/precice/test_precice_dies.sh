#!/bin/sh
# A participant that dies mid-run (participants/mass.py killed in window 3)
# stops the other with an error naming it, within seconds, and exit status 1.
# Argument: the build directory.
set -eu
build=$1
src=$(cd "$(dirname "$0")" && pwd)/participants
fail() { echo "test_precice_dies: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-precice-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
eval "$(sh "$build/precice/participant/seam-precice-env")"
export PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH PYTHONPATH SEAM
sed -e 's/SCHEME/serial-implicit/g; s/INIT/false/; s/EXCHANGE/./' "$src/two_masses.xml" >"$tmp/precice-config.xml"
cd "$tmp"
cc -std=c17 -Wall -Wextra -Werror -o mass_c "$src/mass.c" $(pkg-config --cflags --libs libprecice)
start=$(date +%s)
timeout 60 ./mass_c Left precice-config.xml 1 4 3 1 >left.txt 2>left.err &
pid=$!
# Right dies (SIGKILL, no goodbye) when its third window starts.
SEAM_TEST_DIE_IN_WINDOW=3 timeout 60 /usr/bin/python3 "$src/mass.py" Right precice-config.xml 2 1 3 0 \
    >right.txt 2>right.err && fail "Right did not die"
status=0
wait $pid || status=$?
took=$(( $(date +%s) - start ))
[ "$status" -eq 1 ] || { cat left.err >&2; fail "Left exited with $status, not 1"; }
grep -q "^preCICE (seam): ERROR: participant Left, .*Right.*died" left.err ||
    fail "Left's error does not name Right's death: $(cat left.err)"
[ "$took" -le 20 ] || fail "Left took $took s to stop"
[ "$(wc -l <left.txt)" -eq 2 ] || fail "Left completed $(wc -l <left.txt) windows, not 2"
echo "Left stopped in $took s: $(cat left.err)"
