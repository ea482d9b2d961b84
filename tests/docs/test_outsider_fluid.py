#!/usr/bin/python3
"""A fluid written by an outsider from docs/plugins.md, docs/coupling.md and the public headers alone
(tests/docs/outsider/still_water.c: a liquid at rest in a 2D box, hydrostatic loads), coupled with the
shipped solids under several schemes:

- a free surface: a rigid block (solid_rigid) and an elastic one (solid_fem) float as Archimedes says,
  0.04 m^2 of them under water, the water carrying their weight and its level rising to 0.61 m;
- enclosed, through the coupler's boundary pressure projection: a piston on a column fed 0.01 m^2/s
  rises at 0.01 m/s held by p0 = m g / w (Pascal), and a hydraulic press settles where Pascal and the
  hydrostatic head balance;
- the fluid in its own process (seam-serve) gives the in-process run's bits, a checkpointed run resumes
  to the same bits, and what the coupler refuses (no projection for an enclosed liquid, a projection
  or xpm for a fluid that cannot take part) is refused naming the fluid.
"""
import csv
import filecmp
import os
import shutil
import sys
import tempfile

from outsider_run import BUILD, HERE, check, seam, verdict

SCENES = ("still_float.json", "still_float_fem.json", "still_piston.json", "still_press.json")
RHO, G = 1000.0, 9.81


def rows(path):
    with open(path) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


def level(run):
    """The fluid's last frame: its committed level and volume (write_output)."""
    folder = os.path.join(run, "fluid")
    last = sorted(f for f in os.listdir(folder) if f.startswith("still_water_"))[-1]
    r = rows(os.path.join(folder, last))[0]
    return r["level"], r["volume"]


def run(tmp, scene, out, *args):
    rc, text = seam("run", scene, "--out", out, "--quiet", *args, cwd=tmp)
    check(rc == 0, "%s %s: converged (exit 0)%s" % (scene, " ".join(args), "" if rc == 0 else ": " + text[-1500:]))
    return os.path.join(tmp, out) if rc == 0 else None


def floating(tmp, scene, out, *args, centre=True):
    """Archimedes: 40 kg/m floats with 0.04 m^2 under water; the 1.18 m^2 of water rise to (1.18 + 0.04)/2."""
    d = run(tmp, scene, out, *args)
    if not d:
        return
    probes = rows(os.path.join(d, "probes.csv"))
    fy = sum(r["block.fy"] for r in probes[-10:]) / 10
    check(abs(fy - 40 * G) < 1e-3 * 40 * G, "%s: the water carries the weight, %.4f N/m (%.4f)" % (out, fy, 40 * G))
    h, vol = level(d)
    check(abs(vol - 1.18) < 1e-12, "%s: the water keeps its volume, %.15g m^2 (1.18)" % (out, vol))
    check(abs(h - 0.61) < 1e-5, "%s: its level rose to %.7f m (0.61)" % (out, h))
    if centre:
        y = probes[-1]["block.y"]
        check(abs(y - 0.61) < 1e-4, "%s: the block floats half submerged, centre at %.6f m (0.61)" % (out, y))
        p = probes[-1]["bottom.pressure"]
        check(abs(p - RHO * G * (h - 0.1)) < 1e-6 * p, "%s: the pressure 0.1 m above the floor is rho g (H - 0.1), "
              "%.4f Pa (%.4f)" % (out, p, RHO * G * (h - 0.1)))


def piston(tmp, out, *args, most=None):
    """Pascal: p0 = m g / w = 981 Pa; the source's 0.01 m^2/s lifts the 1 m wide piston at 0.01 m/s (its first
    step starts it with the impulse m q / (w dt) more, and its trapezoidal drift lags q dt / 2 behind)."""
    d = run(tmp, "still_piston.json", out, *args)
    if not d:
        return
    regions = rows(os.path.join(d, "regions.csv"))
    check(abs(regions[0]["p0"] - 1081) < 1e-9 * 1081, "%s: the first step's p0 also starts the piston, %.12g Pa (1081)"
          % (out, regions[0]["p0"]))
    worst = max(abs(r["p0"] - 981) for r in regions[1:])
    check(worst < 1e-9 * 981, "%s: p0 = m g / w = 981 Pa every later step (off by %.3g Pa at most)" % (out, worst))
    probes = rows(os.path.join(d, "probes.csv"))
    q, dt = 0.01, 0.01
    lag = max(abs(r["piston.y"] - (1.1 + q * r["t"])) for r in probes)
    check(lag <= q * dt / 2 + 1e-12, "%s: the water's volume is V0 + q t within q dt/2 = 5e-5 m^2 (%.3g)" % (out, lag))
    rate = max(abs(b["piston.y"] - a["piston.y"] - q * dt) for a, b in zip(probes, probes[1:]))
    check(rate < 1e-12, "%s: the piston rises q dt a step (off by %.3g m at most)" % (out, rate))
    fy = max(abs(r["piston.fy"] - 100 * G) for r in probes[1:])
    check(fy < 1e-9, "%s: the projection's load holds the piston, m g = 981 N/m (off by %.3g)" % (out, fy))
    if most:   # rmi: the fluid's loads never move, so the solid's answer is the fixed point at once
        worst = max(r["iterations"] for r in rows(os.path.join(d, "stats.csv")))
        check(worst <= most, "%s: at most %d iterations a step (%d)" % (out, most, worst))
    last = probes[-1]
    want = RHO * G * (last["piston.y"] - 0.1 - 0.1)
    check(abs(last["bottom.pressure"] - want) < 1e-9 * want, "%s: the fluid's own pressure field is hydrostatic "
          "below the piston, without p0: %.6f Pa (%.6f)" % (out, last["bottom.pressure"], want))


def press(tmp, out, *args):
    """Pascal and the head: 120 g - 100 g = rho g dy; w_wide dy_wide + w_narrow dy_narrow = 0."""
    d = run(tmp, "still_press.json", out, *args)
    if not d:
        return None
    last = rows(os.path.join(d, "probes.csv"))[-1]
    wide, narrow = last["wide.y"] - 1.1, last["narrow.y"] - 1.1
    check(abs(wide + 0.02 / 3) < 1e-5 and abs(narrow - 0.04 / 3) < 1e-5,
          "%s: the wide piston settles 0.02/3 m down (%.7f), the narrow 0.04/3 m up (%.7f)" % (out, wide, narrow))
    check(abs(1.0 * wide + 0.5 * narrow) < 1e-5, "%s: the water keeps its volume (%.3g m^2)" % (out, wide + 0.5 * narrow))
    p0 = rows(os.path.join(d, "regions.csv"))[-1]["p0"]
    check(abs(p0 - 981) < 1e-3 * 981, "%s: p0 = 981 Pa under the narrow piston (%.4f)" % (out, p0))
    check(abs(last["wide.fy"] - 120 * G) < 1e-3 * 120 * G and abs(last["narrow.fy"] - 50 * G) < 1e-3 * 50 * G,
          "%s: each piston is held by its weight (%.3f, %.3f N/m)" % (out, last["wide.fy"], last["narrow.fy"]))
    return d


def same_run(a, b, what):
    for f in ("interface.csv", "probes.csv", "residuals.csv", "regions.csv"):
        if os.path.exists(os.path.join(a, f)) or os.path.exists(os.path.join(b, f)):
            check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False), "%s: %s the same bits" % (what, f))
    cmp = filecmp.dircmp(os.path.join(a, "fluid"), os.path.join(b, "fluid"))
    check(cmp.left_list == cmp.right_list and not filecmp.cmpfiles(os.path.join(a, "fluid"), os.path.join(b, "fluid"),
          cmp.common_files, shallow=False)[1], "%s: the fluid's frame files the same" % what)


def main():
    tmp = tempfile.mkdtemp(prefix="seam-outsider-fluid-")
    try:
        for f in SCENES:
            shutil.copy(os.path.join(HERE, f), tmp)
        floating(tmp, "still_float.json", "float")
        floating(tmp, "still_float.json", "float_iqn", "--set", "coupling.scheme=iqn-ils")
        floating(tmp, "still_float.json", "float_rmi", "--set", "coupling.scheme=rmi")
        floating(tmp, "still_float_fem.json", "fem", centre=False)
        piston(tmp, "piston")
        piston(tmp, "piston_rmi", "--set", "coupling.scheme=rmi", most=3)
        ref = press(tmp, "press")
        press(tmp, "press_iqn", "--set", "coupling.scheme=iqn-ils")

        # the fluid in a seam-serve of its own: the same bits (field, regions, write_output over the protocol)
        sep = run(tmp, "still_float.json", "float_sep", "--set", "fluid.process=separate")
        if sep:
            same_run(os.path.join(tmp, "float"), sep, "free surface, fluid in its own process")
        sep = run(tmp, "still_press.json", "press_sep", "--set", "fluid.process=separate")
        if sep and ref:
            same_run(ref, sep, "enclosed, fluid in its own process")

        # a participant's "command" (docs/remote.md): seam-serve started as any program would be
        serve = ["--set", "fluid.process=separate", "--set", 'fluid.command=["%s", "--plugin", "still_water"]'
                 % os.path.join(BUILD, "protocol", "seam-serve")]
        sep = run(tmp, "still_piston.json", "piston_command", *serve)
        if sep:
            same_run(os.path.join(tmp, "piston"), sep, "enclosed, fluid served by a command")

        # save/load: a checkpointed run resumed after its last checkpoint ends with the same bits
        ck = run(tmp, "still_press.json", "press_ck", "--set", 'output.checkpoint={"every_steps": 70}')
        if ck and ref:
            rc, text = seam("run", "--resume", "press_ck", "--quiet", cwd=tmp)
            check(rc == 0, "resumed from a checkpoint: " + text[-1000:])
            same_run(ref, ck, "resumed")

        # what cannot be right is refused, naming the fluid
        rc, text = seam("run", "still_piston.json", "--out", "nobpp", "--set", "coupling.bpp=false", cwd=tmp)
        check(rc == 1 and "[fluid] error: t = 0.02 s: the enclosed liquid holds" in text and
              "commit failed at step 1" in text, "without the projection an enclosed liquid loses volume: an error\n"
              + text[-1500:])
        rc, text = seam("validate", "still_float.json", "--set", "coupling.bpp=true", cwd=tmp)
        check(rc == 1 and "coupling.bpp needs a fluid that reports its enclosed regions; fluid (still_water) does not"
              in text, "a free surface takes no projection: " + text[-800:])
        rc, text = seam("validate", "still_piston.json", "--set", "coupling.scheme=xpm", cwd=tmp)
        check(rc == 1 and "scheme xpm needs a fluid that returns conservative impulse loads" in text and
              "fluid (still_water)" in text, "xpm wants impulse loads: " + text[-800:])
        text = open(os.path.join(tmp, "still_float.json")).read().replace('"coupling": {},', '')
        with open(os.path.join(tmp, "nocoupling.json"), "w") as f:
            f.write(text)
        rc, text = seam("validate", "nocoupling.json", cwd=tmp)
        check(rc == 1 and "coupling: required key is missing" in text and "{} takes the defaults" in text,
              "a scene without coupling is told that {} will do: " + text[-800:])
        text = open(os.path.join(tmp, "still_float.json")).read().replace('"level"', '"levle"')
        with open(os.path.join(tmp, "bad.json"), "w") as f:
            f.write(text)
        rc, text = seam("validate", "bad.json", cwd=tmp)
        check(rc == 1 and 'bad.json:6:65: fluid.levle: unknown key (did you mean "level"?)' in text,
              "the fluid's unknown key, located: " + text[-800:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
