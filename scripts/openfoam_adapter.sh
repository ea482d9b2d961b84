#!/bin/bash
# Issue 37.4: preCICE's openfoam-adapter (v1.3.1, its code unchanged: the
# release for OpenFOAM.com v1812 and newer with preCICE 3) built against
# Debian 12's OpenFOAM v1912 and seam's libprecice, without building OpenFOAM.
# Debian's `openfoam` package has the solvers and libraries but no headers
# and no wmake, so this fetches the `openfoam` source package (apt-get
# source), builds wmake's two tools, links the include trees the adapter
# needs (wmakeLnInclude), and compiles the adapter; the libraries it links
# are Debian's, in /usr/lib. Everything is cached under ~/.cache/seam/openfoam
# (SEAM_CACHE overrides ~/.cache/seam); each step runs only when its output is
# missing. Not part of CI (the compile takes minutes).
# Usage: scripts/openfoam_adapter.sh [BUILD_DIR [ADAPTER]]
#   BUILD_DIR  a seam build dir (default build/); its libprecice is found
#              through pkg-config (seam-precice-env)
#   ADAPTER    a git checkout of precice/openfoam-adapter holding tag v1.3.1
#              (default: cloned from GitHub)
# Prints, on its last lines, the environment that runs the tutorials'
# fluid-openfoam case: `eval "$(scripts/openfoam_adapter.sh)"`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
adapter_repo=${2:-https://github.com/precice/openfoam-adapter}
tag=v1.3.1
cache=${SEAM_CACHE:-$HOME/.cache/seam}/openfoam
src=$cache/openfoam-OpenFOAM-v1912.200626
adapter=$cache/openfoam-adapter-$tag
lib=$cache/lib
say() { echo "openfoam_adapter: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ -x "$build/precice/participant/seam-precice-env" ] ||
    die "no seam build in $build (meson setup build && ninja -C build)"
eval "$("$build/precice/participant/seam-precice-env")"
pkg-config --exists libprecice || die "pkg-config does not find libprecice through $build"

"$root/scripts/deps.sh" openfoam >&2 || die "scripts/deps.sh openfoam failed"
v=$(dpkg-query -W -f='${Version}' openfoam)
case "$v" in 1912.*) ;; *) die "Debian's openfoam is $v; this script matches the v1912 sources" ;; esac

mkdir -p "$cache" "$lib"
# OpenFOAM's sources: only wmake, etc, bin and src are unpacked (no applications, no tutorials)
if [ ! -f "$src/etc/bashrc" ]; then
    say "fetching Debian's openfoam source package into $cache"
    (cd "$cache" && apt-get source --download-only "openfoam=$v" >&2) ||
        die "apt-get source openfoam failed (a deb-src entry for bookworm is needed: scripts/deps.sh openfoam adds one)"
    tarball=$(ls "$cache"/openfoam_1912.*.orig.tar.bz2)
    rm -rf "$src.partial" && mkdir "$src.partial"
    nice tar -xjf "$tarball" -C "$src.partial" --strip-components=1 \
        --wildcards '*/wmake/*' '*/etc/*' '*/bin/*' '*/src/*'
    mv "$src.partial" "$src"
fi

# OpenFOAM's environment from the source tree, with Debian's build choices
# (system gcc, double precision, 32-bit labels, system OpenMPI: /usr/share/openfoam/etc/bashrc)
foam_env() {
    set +eu
    export WM_COMPILER_TYPE=system WM_COMPILER=Gcc WM_PRECISION_OPTION=DP WM_LABEL_SIZE=32 \
        WM_COMPILE_OPTION=Opt WM_MPLIB=SYSTEMOPENMPI USER=${USER:-$(id -un)}
    # shellcheck disable=SC1091
    . "$src/etc/bashrc" >/dev/null 2>&1
    set -eu
    [ "${WM_PROJECT_DIR:-}" = "$src" ] || die "sourcing $src/etc/bashrc did not set WM_PROJECT_DIR"
}
foam_env

if [ ! -x "$src/platforms/tools/${WM_ARCH}${WM_COMPILER}/wmkdepend" ]; then
    say "building wmake's tools"
    nice "$src/wmake/src/Allmake" >&2 || die "building wmake failed"
fi

# the include trees named in the adapter's Make/options, and those they include
for d in OpenFOAM OSspecific/POSIX finiteVolume meshTools surfMesh fileFormats dynamicMesh \
    transportModels/incompressible transportModels/compressible transportModels/twoPhaseMixture \
    transportModels/interfaceProperties transportModels/immiscibleIncompressibleTwoPhaseMixture \
    thermophysicalModels/basic thermophysicalModels/specie TurbulenceModels/turbulenceModels \
    TurbulenceModels/compressible TurbulenceModels/incompressible; do
    [ -d "$src/src/$d/lnInclude" ] || nice wmakeLnInclude -u "$src/src/$d" >&2 ||
        die "wmakeLnInclude $d failed"
done

if [ ! -f "$lib/libpreciceAdapterFunctionObject.so" ]; then
    if [ ! -f "$adapter/Allwmake" ]; then
        rm -rf "$adapter.partial" && mkdir -p "$adapter.partial"
        if [ -d "$adapter_repo" ]; then
            git -C "$adapter_repo" archive "$tag" | tar -x -C "$adapter.partial" ||
                die "$adapter_repo has no tag $tag"
        else
            say "cloning $adapter_repo at $tag"
            git clone -q --depth 1 --branch "$tag" "$adapter_repo" "$adapter.partial" ||
                die "cannot clone $adapter_repo (give a local checkout as the second argument)"
        fi
        mv "$adapter.partial" "$adapter"
    fi
    say "building the adapter (a few minutes; log: $adapter/wmake.log)"
    (cd "$adapter" && FOAM_USER_LIBBIN=$lib WM_NCOMPPROCS=${WM_NCOMPPROCS:-2} nice ./Allwmake >&2) ||
        die "the adapter did not build: see $adapter/wmake.log"
    [ -f "$lib/libpreciceAdapterFunctionObject.so" ] || die "the adapter did not build: see $adapter/wmake.log"
fi

# the run environment: Debian's solvers, the adapter found by dlopen, and
# WM_PROJECT_DIR for the tutorials' tools/run-openfoam.sh (RunFunctions)
echo "export WM_PROJECT_DIR=\"$src\""
echo "export LD_LIBRARY_PATH=\"$lib:$(pkg-config --variable=libdir libprecice)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
