#!/usr/bin/python3
"""The added-mass piston's solid (tests/plugins/piston_solid.c) in Python:
a piston of mass m_s on a spring k, one degree of freedom per interface
point, integrated with backward Euler,
    m_s (v' - v) / dt = -k x' + F,   x' = x + dt v',
so x' = (x + dt v + dt^2 F / m_s) / (1 + k dt^2 / m_s). The arithmetic is
the C plugin's, operation for operation, so a coupled run is bit-identical
to the in-process one. Started by a scene:

    "solids": [{"name": "piston", "process": "separate",
                "command": ["python3", "piston_solid.py"],
                "mass": 1.0, "stiffness": 39.48, "position": 0.1}]
"""
import array
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seam_client as seam  # noqa: E402


def number(config, host, key, default, lo, lo_open=False, required=False):
    """config[key] as a float in [lo, inf) ((lo, inf) with lo_open), or None after an error."""
    if key not in config:
        if required:
            host.config_error(key, "required (a number)")
            return None
        return default
    v = config[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or v < lo or (lo_open and v == lo):
        host.config_error(key, "expected a finite number %s %g, got %r" % (">" if lo_open else ">=", lo, v))
        return None
    return float(v)


class PistonSolid(seam.Plugin):
    name = "piston_solid_py"
    role = "solid"
    summary = "added-mass test in Python: piston of mass m_s on a spring k (backward Euler)"
    KEYS = ("mass", "stiffness", "position", "velocity", "count")

    def __init__(self, config, host):
        self.host = host
        if not isinstance(config, dict):
            raise seam.CreateError("the configuration must be an object")
        for k in config:
            if k not in self.KEYS:
                host.config_error(k, "unknown key (known: %s)" % ", ".join(self.KEYS))
        self.m_s = number(config, host, "mass", 1.0, 0.0, lo_open=True, required=True)
        self.k = number(config, host, "stiffness", 0.0, 0.0)
        x0 = number(config, host, "position", 0.0, -math.inf)
        v0 = number(config, host, "velocity", 0.0, -math.inf)
        count = config.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100000000:
            host.config_error("count", "expected an integer from 1 to 100000000, got %r" % (count,))
            count = None
        if any(k not in self.KEYS for k in config) or None in (self.m_s, self.k, x0, v0, count):
            raise seam.CreateError("the configuration has errors (above)")
        self.x = array.array("d", [x0] * count)   # committed, one per piston
        self.v = array.array("d", [v0] * count)
        self.x_new, self.v_new = array.array("d", self.x), array.array("d", self.v)   # the last solve
        self.mass = array.array("d", [self.m_s] * count)
        self.commits = 0

    def max_dt(self):
        return math.inf   # backward Euler is unconditionally stable

    def describe(self):
        return seam.OK, seam.Interface(dim=1, n_points=len(self.x), X=self.x, mass=self.mass)

    def solve(self, step, io, out):
        if io.n != len(self.x) or io.dim != 1:
            self.host.log(seam.LOG_ERROR, "expected %d interface points of dimension 1, got %d of %d"
                          % (len(self.x), io.n, io.dim))
            return seam.ERROR
        dt = step.dt
        for i in range(len(self.x)):
            self.x_new[i] = ((self.x[i] + dt * self.v[i] + dt * dt * io.F[i] / self.m_s)
                             / (1.0 + self.k * dt * dt / self.m_s))
            self.v_new[i] = (self.x_new[i] - self.x[i]) / dt
            out.X[i] = self.x_new[i]
            out.V[i] = self.v_new[i]
        return seam.OK

    def commit(self):
        self.x[:] = self.x_new
        self.v[:] = self.v_new
        self.commits += 1
        return seam.OK

    def mobility(self, impulse, dv):
        for i in range(len(self.x)):
            dv[i] = impulse[i] / self.m_s
        return seam.OK

    def save(self):
        return seam.OK, seam.to_bin(self.x) + seam.to_bin(self.v)

    def load(self, data):
        n = len(self.x)
        if len(data) != 16 * n:
            self.host.log(seam.LOG_ERROR, "load: expected %d bytes, got %d" % (16 * n, len(data)))
            return seam.ERROR
        both = seam.f64(data, 2 * n, "state")
        self.x[:], self.v[:] = both[:n], both[n:]
        self.x_new[:], self.v_new[:] = self.x, self.v
        return seam.OK

    def capabilities(self):
        return seam.CAP_RIGID | seam.CAP_MOBILITY | seam.CAP_SAVE   # each piston is one rigid body of one point

    def destroy(self):
        self.host.log(seam.LOG_DEBUG, "piston_solid_py: destroyed after %d commits" % self.commits)


if __name__ == "__main__":
    seam.main(PistonSolid, description=__doc__.splitlines()[0])
