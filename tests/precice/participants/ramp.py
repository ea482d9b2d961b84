"""Subcycling against waveforms.xml. Ramp writes, at the end of each of its
four substeps per window, f(t) for four polynomials of time; Reader steps
0.03 s (its last step in a window shorter) and reads at the start, middle
and end of every step, demanding each data's exact value at its degree:
degree 0 the sample at or after t, degrees 1-3 the polynomial itself.
usage: ramp.py Ramp|Reader CONFIG"""
import math
import sys

import numpy as np
import precice

H = 0.025   # Ramp's substep


def fields(t):
    return {"Step": np.array([t]), "Linear": np.array([1.0 + 2.0 * t]),
            "Quadratic": np.array([t * t - 3.0 * t]),
            "Cubic": np.array([[t ** 3 - t, 2.0 - 0.5 * t ** 3]])}


def main():
    role, config = sys.argv[1], sys.argv[2]
    participant = precice.Participant(role, config, 0, 1)
    mesh = role + "-Mesh"
    ids = participant.set_mesh_vertices(mesh, np.array([[0.0, 0.0]]))
    if role == "Ramp":
        assert participant.requires_initial_data()
        for name, value in fields(0.0).items():
            participant.write_data(mesh, name, ids, value)
    participant.initialize()
    t, checked, worst = 0.0, 0, 0.0
    while participant.is_coupling_ongoing():
        dt = min(H if role == "Ramp" else 0.03, participant.get_max_time_step_size())
        if role == "Reader":
            for rel in (0.0, 0.5 * dt, dt):
                s = t + rel
                want = fields(s)
                want["Step"] = np.array([math.ceil(s / H - 1e-9) * H])
                for name, value in want.items():
                    got = participant.read_data(mesh, name, ids, rel)
                    if got.shape != value.shape:
                        print("Reader: %s has shape %s, not %s" % (name, got.shape, value.shape))
                        return 1
                    err = float(np.max(np.abs(got - value)))
                    worst = max(worst, err)
                    if err > 1e-12:
                        print("Reader: %s at t = %.17g (relative %.17g) is %s, not %s"
                              % (name, s, rel, got, value))
                        return 1
                    checked += 1
        else:
            for name, value in fields(t + dt).items():
                participant.write_data(mesh, name, ids, value)
        participant.advance(dt)
        t += dt
    participant.finalize()
    if role == "Reader":
        if checked == 0:
            print("Reader: nothing was read")
            return 1
        print("Reader: %d reads exact (max |error| %.3g)" % (checked, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
