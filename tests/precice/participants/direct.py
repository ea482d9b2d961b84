"""Direct mesh access against direct.xml. Wall writes Field = (x + t, 2 y)
on five vertices at x = 0..4, y = 1 at the end of each window; Probe takes
the vertices with 0.5 <= x <= 3.5 and reads Field there.
usage: direct.py Wall|Probe CONFIG"""
import sys

import numpy as np
import precice


def main():
    role, config = sys.argv[1], sys.argv[2]
    p = precice.Participant(role, config, 0, 1)
    mesh = "Wall-Mesh"
    if role == "Wall":
        x = np.array([[float(i), 1.0] for i in range(5)])
        ids = p.set_mesh_vertices(mesh, x)
        p.initialize()
        t = 0.0
        while p.is_coupling_ongoing():
            dt = p.get_max_time_step_size()
            t += dt
            p.write_data(mesh, "Field", ids, np.column_stack((x[:, 0] + t, 2.0 * x[:, 1])))
            p.advance(dt)
        p.finalize()
        return 0
    p.set_mesh_access_region(mesh, [0.5, 3.5, 0.0, 2.0])
    p.initialize()
    ids, coords = p.get_mesh_vertex_ids_and_coordinates(mesh)
    if p.get_mesh_vertex_size(mesh) != 3 or ids.shape != (3,) or coords.shape != (3, 2) or \
            sorted(coords[:, 0].tolist()) != [1.0, 2.0, 3.0] or not np.all(coords[:, 1] == 1.0):
        print("Probe: region holds ids %s at %s, not the vertices x = 1, 2, 3" % (ids, coords.tolist()))
        return 1
    t, windows = 0.0, 0
    while p.is_coupling_ongoing():
        dt = p.get_max_time_step_size()
        got = p.read_data(mesh, "Field", ids, dt)
        want = np.column_stack((coords[:, 0] + t + dt, 2.0 * coords[:, 1]))
        if got.shape != (3, 2) or np.max(np.abs(got - want)) > 1e-12:
            print("Probe: Field at t = %g is %s, not %s" % (t + dt, got.tolist(), want.tolist()))
            return 1
        p.advance(dt)
        t += dt
        windows += 1
    p.finalize()
    print("Probe: %d windows read exactly on the 3 vertices of its region" % windows)
    return 0 if windows == 3 else 1


if __name__ == "__main__":
    sys.exit(main())
