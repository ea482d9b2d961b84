#!/usr/bin/python3
"""The added-mass piston's fluid (tests/plugins/piston_fluid.c) in Python:
an incompressible column of mass m_a in front of each interface point,
    F = -m_a (V - V^n) / dt,
served over the seam protocol. The arithmetic is the C plugin's, operation
for operation, so a coupled run is bit-identical to the in-process one.

    /usr/bin/python3 piston_fluid.py --bind ipc:///tmp/fluid.sock [--once]

or from a scene, which starts it itself:

    "fluid": {"process": "separate", "command": ["python3", "piston_fluid.py"], "added_mass": 2.0}
"""
import array
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seam_client as seam  # noqa: E402


class PistonFluid(seam.Plugin):
    name = "piston_fluid_py"
    role = "fluid"
    summary = "added-mass test in Python: incompressible column of mass m_a, F = -m_a a"

    def __init__(self, config, host):
        self.host = host
        if not isinstance(config, dict):
            raise seam.CreateError("the configuration must be an object")
        unknown = [k for k in config if k != "added_mass"]
        for k in unknown:
            host.config_error(k, "unknown key")
        if unknown:
            raise seam.CreateError("%d unknown key(s)" % len(unknown))
        m_a = config.get("added_mass")
        if isinstance(m_a, bool) or not isinstance(m_a, (int, float)) or not 0 <= m_a < math.inf:
            host.config_error("added_mass", "expected a finite number >= 0 (kg), got %r" % (m_a,))
            raise seam.CreateError("the configuration has errors (above)")
        self.m_a = float(m_a)
        self.V = self.V_new = None

    def max_dt(self):
        return math.inf

    def bind(self, iface):
        n = iface.n_points * iface.dim
        self.V = array.array("d", bytes(8 * n))   # the column starts at rest
        self.V_new = array.array("d", bytes(8 * n))
        return seam.OK

    def solve(self, step, io, out):
        for i in range(len(self.V)):
            self.V_new[i] = io.V[i]
            out.F[i] = -self.m_a * (io.V[i] - self.V[i]) / step.dt
        return seam.OK

    def commit(self):
        self.V[:] = self.V_new
        return seam.OK

    def capabilities(self):
        # F = -m_a (V - V^n) / dt: the column's momentum change over the step, / dt
        return seam.CAP_LOADS_IMPULSE


if __name__ == "__main__":
    seam.main(PistonFluid, description=__doc__.splitlines()[0])
