/* One side of participants/masses.xml in C under MPI: N masses in a row,
 * mass i at (i, 0) on a wall spring and joined to the other side's mass i,
 * m u'' = -k_wall u + k_c (u_other - u), implicit Euler, one step per
 * window. Rank r of the MPI job owns a block of the row (COUNTS: the block
 * sizes, comma-separated, one per rank, 0 allowed; default: even blocks) and
 * hands libprecice only its own vertices; Right is serial (no MPI) and
 * defines its vertices in reverse order. Every rank writes "t i u" per vertex i of its block and
 * completed window to NAME-RANK.txt.
 * usage: masses NAME CONFIG N [COUNTS]
 * SEAM_TEST_DIE_RANK=R SEAM_TEST_DIE_IN_WINDOW=W: rank R kills itself
 * (SIGKILL) when window W starts, after writing the time (s) to dying.at;
 * SEAM_TEST_HANG=1 with them: it stops itself (SIGSTOP) instead
 * (tests/precice/test_precice_mpi.sh). */
#define _POSIX_C_SOURCE 200809L   /* kill */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <precice/preciceC.h>

#define PI 3.14159265358979323846

/* This rank's block [lo, hi) of n vertices. */
static int block(const char *counts, int n, int rank, int size, int *lo, int *hi)
{
    if (!counts) {
        *lo = (int)((long)n * rank / size);
        *hi = (int)((long)n * (rank + 1) / size);
        return 0;
    }
    int sum = 0, r = 0;
    for (const char *c = counts; *c; r++) {
        char *end;
        long k = strtol(c, &end, 10);
        if (end == c || k < 0)
            return -1;
        if (r == rank) {
            *lo = sum;
            *hi = sum + (int)k;
        }
        sum += (int)k;
        c = *end == ',' ? end + 1 : end;
    }
    return r == size && sum == n ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s NAME CONFIG N [COUNTS]\n", argv[0]);
        return 2;
    }
    const char *name = argv[1];
    bool left = strcmp(name, "Left") == 0;   /* Left runs under MPI, Right is a serial program */
    int rank = 0, size = 1;
    if (left) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    int n = atoi(argv[3]), lo = 0, hi = 0;
    if (n < 1 || block(argc == 5 ? argv[4] : NULL, n, rank, size, &lo, &hi) != 0) {
        fprintf(stderr, "%s: N %s and COUNTS %s do not fit %d ranks\n", argv[0], argv[3], argc == 5 ? argv[4] : "-",
                size);
        return 2;
    }
    int own = hi - lo, total = own;
    if (left)   /* the blocks tile the row */
        MPI_Allreduce(&own, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total != n)
        return 3;
    char mesh[64], write[64], read[64], out_name[64];
    snprintf(mesh, sizeof mesh, "%s-Mesh", name);
    snprintf(write, sizeof write, "%s-Displacement", name);
    snprintf(read, sizeof read, "%s-Displacement", left ? "Right" : "Left");
    snprintf(out_name, sizeof out_name, "%s-%d.txt", name, rank);
    FILE *out = fopen(out_name, "w");
    if (!out)
        return 4;

    double *x = calloc(2 * (size_t)own + 1, sizeof *x), *u = calloc((size_t)own + 1, sizeof *u);
    double *v = calloc((size_t)own + 1, sizeof *v), *u_other = calloc((size_t)own + 1, sizeof *u_other);
    double *u_new = calloc((size_t)own + 1, sizeof *u_new), *v_new = calloc((size_t)own + 1, sizeof *v_new);
    double *u_saved = calloc((size_t)own + 1, sizeof *u_saved), *v_saved = calloc((size_t)own + 1, sizeof *v_saved);
    int *ids = calloc((size_t)own + 1, sizeof *ids), *global = calloc((size_t)own + 1, sizeof *global);
    for (int k = 0; k < own; k++) {
        int i = left ? lo + k : n - 1 - (lo + k);   /* Right lists its row backwards */
        global[k] = i;
        x[2 * k] = i;
        u[k] = left ? sin(PI * (i + 0.5) / n) : 0.0;
    }
    const double m = left ? 1.0 : 2.0, k_c = 2.0;
    precicec_createParticipant(name, argv[2], rank, size);
    precicec_setMeshVertices(mesh, own, x, ids);
    if (precicec_requiresInitialData())
        precicec_writeData(mesh, write, own, ids, u);
    precicec_initialize();
    const char *die_rank = getenv("SEAM_TEST_DIE_RANK"), *die_window = getenv("SEAM_TEST_DIE_IN_WINDOW");
    int window = 1;
    double t = 0.0;
    while (precicec_isCouplingOngoing()) {
        if (die_rank && die_window && atoi(die_rank) == rank && atoi(die_window) == window) {
            FILE *at = fopen("dying.at", "w");   /* when, for the test's "reported within" */
            if (at) {
                fprintf(at, "%ld\n", (long)time(NULL));
                fclose(at);
            }
            kill(getpid(), getenv("SEAM_TEST_HANG") ? SIGSTOP : SIGKILL);
        }
        if (precicec_requiresWritingCheckpoint()) {
            memcpy(u_saved, u, (size_t)own * sizeof *u);
            memcpy(v_saved, v, (size_t)own * sizeof *v);
        }
        double dt = precicec_getMaxTimeStepSize();
        precicec_readData(mesh, read, own, ids, dt, u_other);
        for (int k = 0; k < own; k++) {
            double k_wall = left ? 1.0 + 0.5 * global[k] / n : 1.0;
            v_new[k] = (v[k] + dt / m * (-(k_wall + k_c) * u[k] + k_c * u_other[k])) /
                       (1.0 + dt * dt * (k_wall + k_c) / m);
            u_new[k] = u[k] + dt * v_new[k];
        }
        precicec_writeData(mesh, write, own, ids, u_new);
        precicec_advance(dt);
        memcpy(u, u_new, (size_t)own * sizeof *u);
        memcpy(v, v_new, (size_t)own * sizeof *v);
        if (precicec_requiresReadingCheckpoint()) {
            memcpy(u, u_saved, (size_t)own * sizeof *u);
            memcpy(v, v_saved, (size_t)own * sizeof *v);
        } else if (precicec_isTimeWindowComplete()) {
            t += dt;
            window++;
            for (int k = 0; k < own; k++)
                fprintf(out, "%.17g %d %.17g\n", t, global[k], u[k]);
            fflush(out);
        }
    }
    precicec_finalize();
    fclose(out);
    free(x); free(u); free(v); free(u_other); free(u_new); free(v_new); free(u_saved); free(v_saved);
    free(ids); free(global);
    if (left)
        MPI_Finalize();
    return 0;
}
