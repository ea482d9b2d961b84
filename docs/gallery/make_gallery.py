#!/usr/bin/env python3
"""Writes docs/gallery.md and its pictures, docs/gallery/NAME.png, one per
example scene (examples/NAME.json): runs each scene with the built seam,
shortened where the whole run would take minutes, and copies one picture of
the run: its last PNG frame (a 3D scene's is its slice) or, for a scene
without a 2D or 3D fluid to draw, one of its report's plots. Then it runs
the tutorial (tests/docs/test_tutorial.py) with SEAM_TUTORIAL_PICTURES set,
which copies the pictures docs/tutorial.md shows from its runs into
docs/tutorial/.

    python3 docs/gallery/make_gallery.py [--build DIR] [NAME...]

NAME...: only these scenes are run again ("tutorial": only the tutorial's
pictures); the page is always written whole. A scene in examples/ without
an entry below stops the script (tests/docs/test_gallery.py checks the
same), so a new example needs its line here."""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (end time in s, None: the whole run; picture: "frame" (the last one) or a
# file of the run's directory; extra --set options; caption)
SCENES = {
    "rising_disc": (1.0, "frame", [],
                    "A wooden disc (600 kg/m^2) rises through water in a closed tank: fluid_mac's speed, "
                    "the disc in grey, IQN-ILS coupling (`make demo` runs it to 1.5 s)."),
    "floating_block": (0.5, "frame", [],
                       "An elastic block (solid_fem, E = 1 MPa) of half the water's density floats in a tank "
                       "and settles half submerged: the pressure at 0.5 s, the free surface as a white line."),
    "hydraulic_piston": (0.5, "frame", [],
                         "Pascal's law: two pistons on fluid enclosed by walls (Akbay 4.3.5, test 1); the "
                         "pressure of the enclosed fluid, p0 = 4931 Pa, holds them where they are."),
    "hydraulic_piston_release": (0.2, "frame", [],
                                 "The two pistons out of balance, held by a force released after 1 s (Akbay "
                                 "4.3.5, test 2): water below the pistons, the pressure at 0.2 s."),
    "multi_section_piston": (0.4, "frame", [],
                             "Four pistons make three enclosed regions, each with its own p0 (Akbay 4.3.8): "
                             "the pressure field, of zero mean in each region, in equilibrium."),
    "supported_body": (0.3, "frame", [],
                       "A heavy body resting on fluid enclosed by walls (Akbay 4.3.1): the boundary pressure "
                       "projection holds it up (with `--set coupling.bpp=false` it sinks)."),
    "thin_shell_balloon": (2.0, "frame", [],
                           "A thin-shell balloon on a tube inflated by the tube's inflow (Akbay 4.3.4), at 2 s."),
    "volumetric_balloon": (2.0, "frame", [],
                           "A Neo-Hookean band (solid_fem) on a tube, inflated by the tube's inflow (Akbay 4.3.2), "
                           "at 2 s."),
    "two_balloons": (2.0, "frame", [],
                     "Two balloons sharing a shell, fed alike (Akbay 4.3.6, test 1), at 2 s; `--set "
                     "'fluid.sources[1].speed=0.5'` feeds the right one less and the shared shell bows."),
    "nested_balloons": (0.5, "frame", [],
                        "Three shells around a source (Akbay 4.3.7): the inner region grows, the annuli keep "
                        "their areas; the pressure at 0.5 s, as the source's ramp begins."),
    "smoke_cloth": (0.3, "frame", [],
                    "3D: a round jet of smoke (fluid_mac, 24^3 cells) blows at a hanging cloth (solid_fem "
                    "shell); the slice z = 0.5 m through the middle, the cloth's cut as a dark line."),
    "sph_ball": (0.5, "frame", [],
                 "A ball of half the water's density floating in SPH water (fluid_sph, solid_rigid): the "
                 "particles' speed."),
    "sph_dam_break": (0.3, "frame", [],
                      "A square column of SPH water collapses against a small block (Martin and Moyce's dam "
                      "break), at 0.3 s."),
    "sph_light_ball": (1.0, "frame", [],
                       "A disc of density ratio 0.05 rises through SPH water and floats, coupled by xpm "
                       "(Akbay 3.5), at 1 s."),
    "sph_three_bodies": (0.5, "frame", [],
                         "3D: a sphere (density ratio 0.05), a cylinder (2) and a torus (0.7) in SPH water "
                         "(Akbay Fig. 3.4 at reduced size), at 0.5 s; the slice z = 0.175 m through the bodies."),
    "cloth_jet": (1.0, "frame", [],
                  "Akbay's Table 2.1 scene: a cloth pinned across a smoke jet of 0.5 m/s at cloth-to-air mass "
                  "ratio M = 0.8, coupled by XPM; the smoke's speed at 1 s."),
    "smoke_balloon": (2.0, "frame", [],
                      "Akbay's Fig. 2.11: a cloth closing a tube fed with smoke at 0.5 m/s (M = 0.8) inflates "
                      "into a balloon, the enclosed smoke held by the boundary pressure projection; at 2 s."),
    "piston": (None, "probes_piston_position.png", ['output.probes=[{"name": "piston", "solid": "piston"}]'],
               "The added-mass piston (test plugins piston_solid and piston_fluid): its position over time, "
               "a period of sqrt(3) s; from the report, with a probe on the piston."),
    "piston_python": (None, "residuals.png", [],
                      "The same piston with both sides in Python processes started by the scene's `command`, "
                      "bit for bit the C plugins' run: the report's residual of every iteration."),
    "tube": (None, "residuals.png", [],
             "The 1D flexible tube (kappa = 100, tau = 0.01), partitioned with IQN-ILS: the report's residual "
             "of every iteration, down to 1e-11 each step."),
    "tube_monolithic": (None, "times.png", [],
                        "The same tube solved monolithically by Newton (tube_monolithic: one solve per step, "
                        "no coupling iterations): the report's wall time per step, on the machine that drew it."),
    "smoke_plank": (1.0, "frame", ["output.picture.field=speed"],
                    "A light rigid plank (5 kg/m^2) lifted by a smoke jet of 4 m/s (Akbay Fig. 2.2, in 2D), "
                    "coupled by xpm: the speed at 1 s."),
    "water_balloon": (1.0, "frame", [],
                      "A shell balloon on a tube filled by a stream of water of 2 m/s, under water (Akbay Fig. "
                      "2.4, in 2D), coupled by xpm: the pressure at 1 s."),
    "water_balls": (1.0, "frame", [],
                    "Discs of 0.1, 0.5, 0.9 and 10 times the water's density (Akbay Fig. 2.5, in 2D), coupled "
                    "by xpm: the floating ones at those submerged fractions, the heavy one on the floor, at 1 s."),
    "water_complex": (0.3, "frame", [],
                      "3D: a cloth curtain hanging into water beside spheres of 0.2, 0.6 and 3 times the water's "
                      "density (Akbay Fig. 2.13), coupled by xpm; the slice z = 0.25 m at 0.3 s."),
    "turek_hron_cfd1": (3.0, "frame", [],
                        "Turek and Hron's CFD1 (Re 20): the flow past the rigid cylinder and flag in the "
                        "2.5 x 0.41 m channel, fluid_mac 250 x 41 with the viscous loads; the speed at 3 s. "
                        "At 10 s the drag is 13.94 N/m (-2.4% of the benchmark's 14.29), the lift 1.068 "
                        "(-4.6% of 1.119): bench/schemes/turek_hron.sh."),
    "turek_hron_fsi1": (3.0, "frame", [],
                        "Turek and Hron's FSI1: the same channel with the flag elastic (solid_fem, St. "
                        "Venant-Kirchhoff), coupled by IQN-ILS; the speed at 3 s. The steady tip displacement "
                        "and forces against the benchmark's are in docs/performance.md."),
    "turek_hron_fsi2": (0.5, "frame", [],
                        "Turek and Hron's FSI2: the FSI1 channel at mean inflow 1 m/s (Re 100) with a heavy "
                        "flag (10 times the fluid's density); the speed at 0.5 s, in the inflow's ramp. The "
                        "benchmark's flag swings 80 mm at 2 Hz: bench/schemes/turek_hron.sh."),
    "turek_hron_fsi3": (0.5, "frame", [],
                        "Turek and Hron's FSI3: mean inflow 2 m/s (Re 200), the flag as dense as the fluid "
                        "(strong added mass); the speed at 0.5 s, in the inflow's ramp. The oscillation "
                        "against the benchmark's is in docs/performance.md."),
    "tube_precice": (None, "iterations.png", [],
                     "preCICE's elastic-tube-1d on the collocated tube: IQN-ILS iterations per step (8.47 on "
                     "average, as preCICE's 8.55)."),
}


def scene_names():
    return sorted(os.path.basename(p)[:-len(".json")] for p in glob.glob(os.path.join(ROOT, "examples", "*.json")))


def command(name):
    end, _, sets, _ = SCENES[name]
    args = ["seam", "run", "examples/%s.json" % name] + (["--end", "%g" % end] if end is not None else [])
    for s in sets:
        args += ["--set", "'%s'" % s if " " in s or "[" in s else s]
    return " ".join(args)


def page():
    """docs/gallery.md, from SCENES (tests/docs/test_gallery.py compares)."""
    out = ["# Gallery", "",
           "One picture per example scene of `examples/`, each from a run of the scene",
           "(shortened where the whole run takes minutes) by `docs/gallery/make_gallery.py`,",
           "which writes this page and `docs/gallery/*.png`: the run's last PNG frame",
           "(docs/scenes.md, `output.picture`; a 3D scene's is its slice) or, for a scene",
           "without a 2D or 3D fluid to draw, one of its report's plots (README.md, \"The",
           "run report\"). After changing a scene or the pictures, run it again from the",
           "repository's root once seam is built: `python3 docs/gallery/make_gallery.py`.",
           "`tests/docs/test_gallery.py` checks that every scene has its entry here and",
           "every picture named exists.", ""]
    for name in sorted(SCENES):
        _, picture, _, caption = SCENES[name]
        what = "its last frame" if picture == "frame" else "`%s` of its report" % picture
        out += ["## %s" % name, "", caption, "",
                "`%s`: %s." % (command(name), what), "",
                "![%s](gallery/%s.png)" % (name, name), ""]
    return "\n".join(out)


def run(name, seam, scratch):
    end, picture, sets, _ = SCENES[name]
    out = os.path.join(scratch, name)
    args = [seam, "run", os.path.join("examples", name + ".json"), "--out", out, "--quiet"]
    if end is not None:
        args += ["--end", repr(end)]
    for s in sets:
        args += ["--set", s]
    proc = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.exit("%s: exit status %d:\n%s" % (" ".join(args), proc.returncode, proc.stdout))
    if picture == "frame":
        frames = sorted(glob.glob(os.path.join(out, "frames", "frame_*.png")))
        if not frames:
            sys.exit("%s: the run wrote no frames into %s/frames" % (name, out))
        source = frames[-1]
    else:
        source = os.path.join(out, picture)
    shutil.copyfile(source, os.path.join(HERE, name + ".png"))
    print("%s: %s (%d bytes)" % (name, os.path.relpath(source, out), os.path.getsize(source)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    missing = sorted(set(scene_names()) - set(SCENES))
    extra = sorted(set(SCENES) - set(scene_names()))
    if missing or extra:
        sys.exit("docs/gallery/make_gallery.py: SCENES lacks %s, has no scene for %s" % (missing, extra))
    unknown = sorted(set(a.names) - set(SCENES) - {"tutorial"})
    if unknown:
        sys.exit("no such scene: %s" % " ".join(unknown))
    build = os.path.abspath(a.build)
    seam = os.path.join(build, "coupler", "seam")
    env = dict(os.environ, SEAM_SOURCE_ROOT=ROOT, SEAM_BUILD_ROOT=build,
               PYTHONPATH=os.path.join(build, "protocol", "python"), PATH="/usr/bin:" + os.environ.get("PATH", ""))
    os.environ.update(env)   # piston_python's "python3": Debian's, with python3-zmq and -msgpack
    todo = a.names or sorted(SCENES)
    scratch = tempfile.mkdtemp(prefix="seam-gallery-")
    try:
        for name in todo:
            if name != "tutorial":
                run(name, seam, scratch)
    finally:
        shutil.rmtree(scratch)
    with open(os.path.join(ROOT, "docs", "gallery.md"), "w", encoding="utf-8") as f:
        f.write(page())
    if not a.names or "tutorial" in a.names:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "docs", "test_tutorial.py")], check=True,
                       env=dict(env, SEAM_TUTORIAL_PICTURES="write"))
    total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(HERE, "*.png")))
    print("docs/gallery: %d pictures, %d bytes" % (len(glob.glob(os.path.join(HERE, "*.png"))), total))


if __name__ == "__main__":
    main()
