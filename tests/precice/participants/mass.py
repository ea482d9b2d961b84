"""One mass of two_masses.xml in Python against precice.Participant (see
mass.c for the model). usage: mass.py NAME CONFIG MASS K_WALL K_COUPLING U0"""
import os
import signal
import sys

import numpy as np
import precice


def main():
    name, config = sys.argv[1], sys.argv[2]
    m, k_wall, k_c, u = (float(a) for a in sys.argv[3:7])
    other = "Right" if name == "Left" else "Left"
    mesh, write, read = name + "-Mesh", name + "-Displacement", other + "-Displacement"
    v, t = 0.0, 0.0
    participant = precice.Participant(name, config, 0, 1)
    ids = participant.set_mesh_vertices(mesh, np.array([[0.0, 0.0]]))
    assert ids.shape == (1,) and participant.get_data_dimensions(mesh, write) == 1
    if participant.requires_initial_data():
        participant.write_data(mesh, write, ids, np.array([u]))
    participant.initialize()
    saved = (u, v)
    die_in = int(os.environ.get("SEAM_TEST_DIE_IN_WINDOW", "0"))   # test_precice_dies.sh
    window = 1
    while participant.is_coupling_ongoing():
        if window == die_in:
            os.kill(os.getpid(), signal.SIGKILL)
        if participant.requires_writing_checkpoint():
            saved = (u, v)
        dt = participant.get_max_time_step_size()
        u_other = participant.read_data(mesh, read, ids, dt)
        assert u_other.shape == (1,)
        v_new = (v + dt / m * (-(k_wall + k_c) * u + k_c * u_other[0])) / (1.0 + dt * dt * (k_wall + k_c) / m)
        u_new = u + dt * v_new
        participant.write_data(mesh, write, ids, np.array([u_new]))
        participant.advance(dt)
        u, v = u_new, v_new
        if participant.requires_reading_checkpoint():
            u, v = saved
        elif participant.is_time_window_complete():
            t += dt
            window += 1
            print("%.17g %.17g" % (t, u), flush=True)
    participant.finalize()


if __name__ == "__main__":
    main()
