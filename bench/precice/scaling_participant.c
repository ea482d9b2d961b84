/* The synthetic participants of bench/precice/scaling.sh: N interface
 * vertices in a row. Solver runs under MPI, rank r holding a block of the
 * row, and writes Load = 1 + 0.5 Disp on its vertices; Echo is serial and
 * writes Disp = 0.1 Load. Nothing else is computed, so a coupling
 * iteration's wall time is the coupler's and the messages'. Solver's rank 0
 * prints "@row ranks=... vertices=... init_s=... iterations=... loop_s=..."
 * (initialize, then the iterations until the coupling ends); scaling.sh
 * reads it and records its own row per case.
 * usage: scaling_participant Solver|Echo CONFIG N */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <precice/preciceC.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s Solver|Echo CONFIG N\n", argv[0]);
        return 2;
    }
    bool solver = strcmp(argv[1], "Solver") == 0;
    int rank = 0, size = 1;
    if (solver) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    long n = atol(argv[3]);
    long lo = n * rank / size, hi = n * (rank + 1) / size, own = hi - lo;
    const char *mesh = solver ? "Solver-Mesh" : "Echo-Mesh";
    const char *write = solver ? "Load" : "Disp", *read = solver ? "Disp" : "Load";
    double *x = calloc(2 * (size_t)own + 1, sizeof *x), *in = calloc((size_t)own + 1, sizeof *in);
    double *out = calloc((size_t)own + 1, sizeof *out);
    int *ids = calloc((size_t)own + 1, sizeof *ids);
    for (long k = 0; k < own; k++)
        x[2 * k] = (double)(lo + k);
    double t0 = now_s();
    precicec_createParticipant(argv[1], argv[2], rank, size);
    precicec_setMeshVertices(mesh, (int)own, x, ids);
    precicec_initialize();
    double t1 = now_s();
    long iterations = 0;
    while (precicec_isCouplingOngoing()) {
        double dt = precicec_getMaxTimeStepSize();
        precicec_readData(mesh, read, (int)own, ids, dt, in);
        for (long k = 0; k < own; k++)
            out[k] = solver ? 1.0 + 0.5 * in[k] : 0.1 * in[k];
        precicec_writeData(mesh, write, (int)own, ids, out);
        precicec_advance(dt);
        iterations++;
    }
    double t2 = now_s();
    precicec_finalize();
    if (solver && rank == 0)
        printf("@row ranks=%d vertices=%ld init_s=%.6f iterations=%ld loop_s=%.6f\n", size, n, t1 - t0, iterations,
               t2 - t1);
    free(x); free(in); free(out); free(ids);
    if (solver)
        MPI_Finalize();
    return 0;
}
