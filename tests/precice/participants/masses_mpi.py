"""One side of masses.xml in Python under mpi4py (the model and the files
written are masses.c's): Left's rank r owns a block of the row of N masses
and hands precice.Participant only its own vertices; Right is serial.
usage: masses_mpi.py NAME CONFIG N [COUNTS]"""
import sys

import numpy as np
import precice


def block(counts, n, rank, size):
    """This rank's block [lo, hi) of n vertices."""
    if counts is None:
        return n * rank // size, n * (rank + 1) // size
    sizes = [int(c) for c in counts.split(",")]
    if len(sizes) != size or sum(sizes) != n or min(sizes) < 0:
        raise SystemExit("COUNTS %s do not split %d vertices over %d ranks" % (counts, n, size))
    lo = sum(sizes[:rank])
    return lo, lo + sizes[rank]


def main():
    name, config, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    left = name == "Left"   # Left runs under MPI, Right is a serial program
    comm, rank, size = None, 0, 1
    if left:
        from mpi4py import MPI   # initializes MPI
        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
    lo, hi = block(sys.argv[4] if len(sys.argv) > 4 else None, n, rank, size)
    assert comm is None or comm.allreduce(hi - lo) == n   # the blocks tile the row
    mesh, write = name + "-Mesh", name + "-Displacement"
    read = ("Right" if left else "Left") + "-Displacement"
    glob = np.arange(lo, hi) if left else n - 1 - np.arange(lo, hi)   # Right lists its row backwards
    x = np.column_stack([glob.astype(float), np.zeros(hi - lo)])
    u = np.sin(np.pi * (glob + 0.5) / n) if left else np.zeros(hi - lo)
    v = np.zeros(hi - lo)
    m, k_c = (1.0 if left else 2.0), 2.0
    k_wall = 1.0 + 0.5 * glob / n if left else np.ones(hi - lo)
    participant = precice.Participant(name, config, rank, size, comm)
    ids = participant.set_mesh_vertices(mesh, x.reshape(-1, 2))
    if participant.requires_initial_data():
        participant.write_data(mesh, write, ids, u)
    participant.initialize()
    saved, t = (u, v), 0.0
    with open("%s-%d.txt" % (name, rank), "w") as out:
        while participant.is_coupling_ongoing():
            if participant.requires_writing_checkpoint():
                saved = (u.copy(), v.copy())
            dt = participant.get_max_time_step_size()
            u_other = participant.read_data(mesh, read, ids, dt)
            v_new = (v + dt / m * (-(k_wall + k_c) * u + k_c * u_other)) / (1.0 + dt * dt * (k_wall + k_c) / m)
            u_new = u + dt * v_new
            participant.write_data(mesh, write, ids, u_new)
            participant.advance(dt)
            u, v = u_new, v_new
            if participant.requires_reading_checkpoint():
                u, v = saved
            elif participant.is_time_window_complete():
                t += dt
                for i, ui in zip(glob, u):
                    out.write("%.17g %d %.17g\n" % (t, i, ui))
                out.flush()
    participant.finalize()


if __name__ == "__main__":
    main()
