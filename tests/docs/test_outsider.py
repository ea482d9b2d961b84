#!/usr/bin/python3
"""Solvers written by an outsider from docs/plugins.md, protocol/PROTOCOL.md and the public headers
alone (tests/docs/outsider/), coupled with a shipped plugin (fluid_mac):

- spring_body.c, a C plugin (a 2D cylinder on a spring and damper, with save/load, capabilities and
  the ABI-5 bodies entry), in a closed tank of water: at rest the spring and the water's load hold
  Archimedes' balance, (rho A - m) g = k dy;
- spring_body.py, the same solid in Python over ZeroMQ + MessagePack, written from PROTOCOL.md
  without seam_client.py (a ROUTER socket, out-of-band bins taken): the coupler starts it as a
  participant's "command", and the run is bit for bit the C plugin's, with arrays inline and out of
  band, and when the server speaks protocol 1 only (the coupler says hello again with 1);
- its messages come back located in the scene file, and `seam info` lists describe as required.
"""
import csv
import math
import os
import shutil
import sys
import tempfile

from outsider_run import HERE, check, seam, verdict


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    tmp = tempfile.mkdtemp(prefix="seam-outsider-")
    try:
        for f in ("tank.json", "spring_body.py"):
            shutil.copy(os.path.join(HERE, f), tmp)
        python = ["--set", 'solids.0.command=["/usr/bin/python3", "spring_body.py"]',
                  "--set", "solids.0.process=separate"]
        # `seam info`: describe is what a solid must have (docs/plugins.md, "Roles")
        rc, out = seam("info", "spring_body", cwd=tmp)
        check(rc == 0 and "required: create destroy max_dt solve commit describe\n" in out and
              "optional: save load capabilities bodies\n" in out, "seam info lists describe as required:\n" + out)

        # Archimedes through an outside plugin: 40-gon of radius 0.2 m, 40 kg/m, k = 2e4 N/m per m
        rc, out = seam("run", "tank.json", "--out", "c", "--quiet", cwd=tmp)
        check(rc == 0, "the C plugin's run converged: " + out)
        area = 0.5 * 40 * 0.2 ** 2 * math.sin(2 * math.pi / 40)
        lift = 1000 * area * 9.81
        probes = rows(os.path.join(tmp, "c", "probes.csv"))
        dy = float(probes[-1]["body.y"]) - 0.5
        want = (lift - 40 * 9.81) / 2e4
        check(abs(dy - want) < 0.05 * want, "at rest the spring holds (rho A - m) g: dy %.5f m, %.5f m expected"
              % (dy, want))
        fy = sum(float(r["body.fy"]) for r in probes[-10:]) / 10
        check(abs(fy - lift) < 0.05 * lift, "the water's load is rho g A: %.1f N/m, %.1f expected" % (fy, lift))

        # the same solid in Python over the protocol: the same bits
        rc, out = seam("run", "tank.json", "--out", "py", "--quiet", *python, cwd=tmp)
        check(rc == 0, "the Python server's run converged: " + out)
        for f in ("interface.csv", "probes.csv", "residuals.csv"):
            same = open(os.path.join(tmp, "c", f)).read() == open(os.path.join(tmp, "py", f)).read()
            check(same, "%s: the Python server gives the C plugin's bits" % f)

        # a server that speaks protocol 1 only: the coupler falls back and sends every array in one frame
        rc, out = seam("run", "tank.json", "--out", "py1", "--steps", "3", "--log-level", "info", *python,
                       "--set", 'solids.0.command=["/usr/bin/python3", "spring_body.py", "--protocol", "1"]',
                       cwd=tmp)
        check(rc == 0 and "[body] created; this session speaks protocol 1" in out,
              "a protocol-1 server is spoken to in protocol 1: " + out[-2000:])
        c_lines = open(os.path.join(tmp, "c", "interface.csv")).read().splitlines()[:5]   # header, t = 0, 3 steps
        check(open(os.path.join(tmp, "py1", "interface.csv")).read().splitlines() == c_lines,
              "protocol 1: the C plugin's bits")

        # 8200 points: the loads (131 KB) travel out of band to the Python server
        big = ["--steps", "1", "--set", "solids.0.points=8200"]
        rc, out = seam("run", "tank.json", "--out", "cbig", "--quiet", *big, cwd=tmp)
        check(rc == 0, "8200 points in-process: " + out)
        rc, out = seam("run", "tank.json", "--out", "pybig", "--quiet", *big, *python, cwd=tmp)
        check(rc == 0, "8200 points over the protocol: " + out)
        if rc == 0:
            check(open(os.path.join(tmp, "cbig", "interface.csv")).read() ==
                  open(os.path.join(tmp, "pybig", "interface.csv")).read(), "out-of-band loads: the same bits")

        # refusals come back located in the scene file, from either side
        text = open(os.path.join(tmp, "tank.json")).read().replace('"stiffness"', '"stifness"')
        with open(os.path.join(tmp, "bad.json"), "w") as f:
            f.write(text)
        rc, out = seam("validate", "bad.json", cwd=tmp)
        check(rc == 1 and 'bad.json:9:6: solids[0].stifness: unknown key (did you mean "stiffness"?)' in out,
              "the C plugin's unknown key, located: " + out)
        rc, out = seam("validate", "bad.json", "--allow-any-plugin", *python, cwd=tmp)
        check(rc == 1 and "bad.json:9:6: solids[0].stifness: unknown key" in out,
              "the Python server's unknown key, located: " + out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
