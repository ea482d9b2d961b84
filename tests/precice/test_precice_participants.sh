#!/bin/sh
# The participant side end to end, as a preCICE user meets it: seam installed
# into a temporary DESTDIR; `eval "$(seam-precice-env)"` opts in; the C mass
# is built with `pkg-config --cflags --libs libprecice`, the C++ one with
# CMake's find_package(precice 3 CONFIG), the Python one imports precice.
# Two masses on walls joined by a spring (participants/two_masses.xml) run
# serial-implicit (C with Python) and parallel-implicit (C++ with C), each
# participant in its own directory with the exchange directory "..", and
# every window must match the monolithic implicit-Euler answer to 1e-8;
# then participants join a coupler the user started.
# Arguments: the build directory, then the configured prefix, bindir, libdir.
set -eu
build=$1 prefix=$2 bindir=$3 libdir=$4
here=$(cd "$(dirname "$0")" && pwd)
src=$here/participants
fail() { echo "test_precice_participants: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-precice-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/stage" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "meson install failed"; }
case $bindir in /*) bin=$tmp/stage$bindir ;; *) bin=$tmp/stage$prefix/$bindir ;; esac
case $libdir in /*) lib=$tmp/stage$libdir ;; *) lib=$tmp/stage$prefix/$libdir ;; esac
root=$lib/seam/precice
# Never shadowing a real preCICE: nothing lands where compilers, pkg-config or the loader look by default.
for p in "$lib/libprecice.so.3" "$lib/pkgconfig/libprecice.pc" "$tmp/stage$prefix/include/precice"; do
    [ ! -e "$p" ] || fail "$p is installed where it would shadow a real preCICE"
done
[ -x "$bin/seam-precice-env" ] || fail "seam-precice-env is not installed in $bin"
[ "$(readelf -d "$root/lib/libprecice.so.3" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = libprecice.so.3 ] ||
    fail "the installed library's SONAME is not libprecice.so.3"
# A clean environment, then the user's one line.
eval "$(env -i PATH=/usr/bin:/bin sh "$bin/seam-precice-env")"
export PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH PYTHONPATH SEAM
[ "$SEAM" = "$bin/seam" ] || fail "seam-precice-env names $SEAM, not the installed $bin/seam"

cc -std=c17 -Wall -Wextra -Werror -o "$tmp/mass_c" "$src/mass.c" $(pkg-config --cflags --libs libprecice) ||
    fail "the C mass does not build with pkg-config's libprecice"
mkdir "$tmp/cmake"
(cd "$tmp/cmake" && cmake -S "$src" -B . >cmake.log 2>&1 && cmake --build . >build.log 2>&1) ||
    { cat "$tmp/cmake/cmake.log" "$tmp/cmake/build.log" >&2 2>/dev/null; fail "the C++ mass does not build with find_package(precice)"; }
loaded=$(ldd "$tmp/mass_c" | sed -n 's/^[[:space:]]*libprecice[^ ]* => \([^ ]*\) .*/\1/p')
[ "$(realpath "$loaded")" = "$(realpath "$root/lib/libprecice.so.3")" ] || fail "the C mass loads $loaded"
loaded=$(ldd "$tmp/cmake/mass_cpp" | sed -n 's/^[[:space:]]*libprecice[^ ]* => \([^ ]*\) .*/\1/p')
[ "$(realpath "$loaded")" = "$(realpath "$root/lib/libprecice.so.3")" ] || fail "the C++ mass loads $loaded"
module=$(/usr/bin/python3 -c 'import precice; print(precice.__file__)')
[ "$module" = "$root/python/precice/__init__.py" ] || fail "python3 imports precice from $module"

# run CASE SCHEME INIT LEFT... -- RIGHT...: both participants at once, each in its own directory.
run() {
    case=$1 scheme=$2 init=$3
    shift 3
    dir=$tmp/$case
    mkdir -p "$dir/left" "$dir/right"
    sed -e "s/SCHEME/$scheme/g; s/INIT/$init/; s/EXCHANGE/../" "$src/two_masses.xml" >"$dir/precice-config.xml"
    left=$1 right=$2
    (cd "$dir/left" && timeout 120 $left Left ../precice-config.xml 1 4 3 1 >out.txt 2>err.txt) &
    pid=$!
    (cd "$dir/right" && timeout 120 $right Right ../precice-config.xml 2 1 3 0 >out.txt 2>err.txt) ||
        { cat "$dir/right/err.txt" "$dir/precice-run/seam-coupler.log" >&2; fail "$case: Right failed"; }
    wait $pid || { cat "$dir/left/err.txt" "$dir/precice-run/seam-coupler.log" >&2; fail "$case: Left failed"; }
    /usr/bin/python3 "$src/check_two_masses.py" "$dir/left/out.txt" "$dir/right/out.txt" 0.1 10 1 4 2 1 3 1 0 ||
        fail "$case: the coupled masses differ from the monolithic answer"
    grep -q "^seam: coupling done: 10 time windows" "$dir/precice-run/seam-coupler.log" ||
        fail "$case: the coupler's log does not end the coupling: $(tail -n 3 "$dir/precice-run/seam-coupler.log")"
}
run serial serial-implicit false "$tmp/mass_c" "/usr/bin/python3 $src/mass.py"
run parallel parallel-implicit true "$tmp/cmake/mass_cpp" "$tmp/mass_c"
echo "serial-implicit (C + Python) and parallel-implicit (C++ + C) match the monolithic answer"

# A coupler the user started (`seam run precice-config.xml`) is joined: the
# participants' exchange directory (their own) has none, the configuration's has.
dir=$tmp/user
mkdir -p "$dir/left" "$dir/right"
sed -e "s/SCHEME/serial-implicit/g; s/INIT/false/; s/EXCHANGE/./" "$src/two_masses.xml" >"$dir/precice-config.xml"
(cd "$dir" && timeout 120 "$SEAM" run precice-config.xml >seam.log 2>&1) &
seam_pid=$!
n=0
until [ -s "$dir/precice-run/seam-coupler.json" ]; do   # the user waits for it to come up
    n=$((n + 1)); [ $n -le 300 ] || { cat "$dir/seam.log" >&2; fail "user: seam run wrote no address file"; }
    sleep 0.1
done
(cd "$dir/left" && timeout 120 "$tmp/mass_c" Left ../precice-config.xml 1 4 3 1 >out.txt 2>err.txt) &
pid=$!
(cd "$dir/right" && timeout 120 "$tmp/mass_c" Right ../precice-config.xml 2 1 3 0 >out.txt 2>err.txt) ||
    { cat "$dir/right/err.txt" "$dir/seam.log" >&2; fail "user: Right failed"; }
wait $pid || { cat "$dir/left/err.txt" "$dir/seam.log" >&2; fail "user: Left failed"; }
wait $seam_pid || { cat "$dir/seam.log" >&2; fail "user: the user's seam run failed"; }
[ ! -e "$dir/left/precice-run" ] && [ ! -e "$dir/right/precice-run" ] ||
    fail "user: a participant started a coupler of its own instead of joining the user's"
/usr/bin/python3 "$src/check_two_masses.py" "$dir/left/out.txt" "$dir/right/out.txt" 0.1 10 1 4 2 1 3 1 0 ||
    fail "user: the coupled masses differ from the monolithic answer"
echo "participants joined the coupler the user started"
