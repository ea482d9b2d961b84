#!/bin/sh
# `make install`'s tree, put under a temporary DESTDIR: the installed seam,
# on PATH, finds its libseam, its plugins and its seam-serve in that tree (not
# in the build tree), and runs an installed example scene from there, in one
# process and with the fluid in a separate one; the installed Python package
# runs the installed seam.
# Arguments: the build directory, then the configured prefix, bindir, libdir, datadir.
set -eu
build=$1 prefix=$2 bindir=$3 libdir=$4 datadir=$5
fail() { echo "test_install: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "meson install failed"; }
root=$tmp$prefix
case $bindir in /*) bin=$tmp$bindir ;; *) bin=$root/$bindir ;; esac
case $libdir in /*) lib=$tmp$libdir ;; *) lib=$root/$libdir ;; esac
case $datadir in /*) data=$tmp$datadir ;; *) data=$root/$datadir ;; esac
# A clean environment: no SEAM_PLUGIN_PATH, no LD_LIBRARY_PATH; the sanitizers' options kept.
in_prefix() {
    env -i PATH="$bin:/usr/bin:/bin" HOME="$tmp" ${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} \
        ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} "$@"
}
[ "$(in_prefix sh -c 'command -v seam')" = "$bin/seam" ] || fail "seam is not on PATH from $bin"
loaded=$(in_prefix ldd "$bin/seam" | sed -n 's/^[[:space:]]*libseam[^ ]* => \([^ ]*\) .*/\1/p')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$lib"/libseam.so.*.*)" ] ||
    fail "the installed seam does not load the installed libseam: $(in_prefix ldd "$bin/seam" | grep libseam)"
loaded=$(in_prefix ldd "$bin/seam-serve" | sed -n 's/^[[:space:]]*libseam[^ ]* => \([^ ]*\) .*/\1/p')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$lib"/libseam.so.*.*)" ] ||
    fail "the installed seam-serve does not load the installed libseam: $(in_prefix ldd "$bin/seam-serve" | grep libseam)"
in_prefix seam plugins >"$tmp/plugins.txt" || { cat "$tmp/plugins.txt" >&2; fail "seam plugins failed"; }
head -n 1 "$tmp/plugins.txt" | grep -q "^search path: $lib/seam/plugins" ||
    fail "the installed plugins are not searched first: $(head -n 1 "$tmp/plugins.txt")"
for p in fluid_mac fluid_sph solid_fem solid_rigid; do
    grep -q "^$p .* $lib/seam/plugins/$p.so\$" "$tmp/plugins.txt" || fail "$p not found in $lib/seam/plugins"
done
! grep -q "$build" "$tmp/plugins.txt" || fail "the installed seam searches the build tree: $(cat "$tmp/plugins.txt")"
for p in piston_solid piston_fluid; do   # the tutorial's pistons, docs/plugins.md's partner
    grep -q "^$p .* $lib/seam/plugins/$p.so\$" "$tmp/plugins.txt" || fail "$p not found in $lib/seam/plugins"
done
# Every example scene is installed but piston_python.json, whose solvers stay in the source tree (README.md).
for scene in "${SEAM_SOURCE_ROOT:?}"/examples/*.json; do
    name=$(basename "$scene")
    case $name in piston_python.json) continue ;; esac
    [ -f "$data/seam/examples/$name" ] || fail "examples/$name is not installed in $data/seam/examples"
done
in_prefix seam run "$data/seam/examples/rising_disc.json" --steps 3 --out "$tmp/out" --quiet >"$tmp/run.txt" 2>&1 ||
    { cat "$tmp/run.txt" >&2; fail "the installed seam could not run rising_disc.json"; }
[ "$(wc -l <"$tmp/out/stats.csv")" -eq 4 ] || fail "stats.csv has $(wc -l <"$tmp/out/stats.csv") lines, not 4"
[ -s "$tmp/out/frames/frame_000000.png" ] && [ -s "$tmp/out/fluid/fluid.pvd" ] && [ -s "$tmp/out/index.html" ] ||
    fail "the run left no frames, VTK collection or report in $tmp/out"
# A participant in its own process: the installed seam starts the installed
# seam-serve (not the build tree's, which exists too), and it runs the same bits.
in_prefix seam run "$data/seam/examples/rising_disc.json" --steps 3 --out "$tmp/sep" --set fluid.process=separate \
    >"$tmp/sep.txt" 2>&1 || { cat "$tmp/sep.txt" >&2; fail "the installed seam could not run a separate fluid"; }
grep -q "^seam: \[fluid\] started $bin/seam-serve (pid [0-9]*) on ipc://" "$tmp/sep.txt" ||
    fail "the separate run did not start $bin/seam-serve: $(grep started "$tmp/sep.txt")"
cut -d, -f1-6 "$tmp/out/stats.csv" >"$tmp/inline.csv" && cut -d, -f1-6 "$tmp/sep/stats.csv" >"$tmp/separate.csv"
cmp -s "$tmp/inline.csv" "$tmp/separate.csv" || fail "the separate run's steps (iterations, residuals) differ from the inline run's"
# A plugin written elsewhere, built as docs/plugins.md says (cc ... $(pkg-config --cflags --libs seam)) against
# the installed headers and seam.pc (the staged tree: PKG_CONFIG_SYSROOT_DIR), runs in the installed seam.
src=${SEAM_SOURCE_ROOT:?}/tests/docs/outsider
pc=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp" pkg-config --cflags --libs seam) ||
    fail "pkg-config does not find the installed seam.pc in $lib/pkgconfig"
mkdir "$tmp/outside"
cc -shared -fPIC -fvisibility=hidden -o "$tmp/outside/spring_body.so" "$src/spring_body.c" $pc \
    >"$tmp/cc.txt" 2>&1 || { cat "$tmp/cc.txt" >&2; fail "the outside plugin does not build with: $pc"; }
in_prefix SEAM_PLUGIN_PATH="$tmp/outside" seam run "$src/tank.json" --steps 3 --out "$tmp/outside/out" --quiet \
    >"$tmp/outside.txt" 2>&1 || { cat "$tmp/outside.txt" >&2; fail "the installed seam could not run the outside plugin"; }
[ "$(wc -l <"$tmp/outside/out/stats.csv")" -eq 4 ] || fail "the outside plugin's run has no 3 steps"
# docs/plugins.md's worked example as printed: its files (drag_fluid.c, drag.json) and every ```sh line of the
# page, run against the installed seam; the plugin's rpath (from seam.pc) names the installed libseam.
ex=$tmp/drag
mkdir "$ex"
for f in drag_fluid.c drag.json; do
    /usr/bin/python3 "$SEAM_SOURCE_ROOT/docs/extract.py" "$SEAM_SOURCE_ROOT/docs/plugins.md" "$f" "$ex/$f" ||
        fail "docs/plugins.md has no block $f"
done
sed -n '/^```sh$/,/^```$/p' "$SEAM_SOURCE_ROOT/docs/plugins.md" | grep -v '^```' >"$ex/page.sh"
[ "$(wc -l <"$ex/page.sh")" -ge 3 ] || fail "docs/plugins.md: fewer than 3 command lines (build, info, run)"
while IFS= read -r line; do
    in_prefix PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp" sh -c "cd '$ex' && $line" \
        >>"$ex/page.txt" 2>&1 || { cat "$ex/page.txt" >&2; fail "docs/plugins.md: \"$line\" failed on the installed seam"; }
done <"$ex/page.sh"
grep -q "^outcome: converged" "$ex/page.txt" || { cat "$ex/page.txt" >&2; fail "docs/plugins.md's drag.json did not converge"; }
[ "$(wc -l <"$ex/out/drag/interface.csv")" -eq 302 ] || fail "drag.json's interface.csv has no 300 steps"
if [ "$prefix" != /usr ]; then   # pkg-config puts the staged root before it, as before -L
    readelf -d "$ex/drag_fluid.so" | grep -q "PATH.*\[$lib\]" ||
        fail "drag_fluid.so has no rpath to $lib: $(readelf -d "$ex/drag_fluid.so" | grep PATH)"
fi
# The installed Python package runs its own prefix's seam too.
paths=$(find "$root" -path '*/seam/_paths.py' | head -n 1)
[ -n "$paths" ] || fail "no seam Python package under $root"
used=$(in_prefix PYTHONPATH="$(dirname "$(dirname "$paths")")" /usr/bin/python3 -c 'import seam; print(seam.program())') ||
    fail "the installed seam package cannot be imported"
[ "$used" = "$bin/seam" ] || fail "the installed seam package runs $used, not $bin/seam"
echo "installed under $tmp: seam, libseam, plugins and examples work from there"
