/* Usage: bench_fem [steps [jacobi|ic0]]. Time per backward Euler step of solid_fem for about 10^3, 10^4 and 10^5
 * elements in 2D (triangles) and 3D (tetrahedra): a Neo-Hookean block,
 * clamped on one side, sagging under gravity. Prints one row per size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fem.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "%s\n", message);
}

static const char *precond = "jacobi";

static void run(int d, int cells[3], int steps)
{
    char json[2048], *body;
    if (d == 2)
        snprintf(json, sizeof json,
                 "{\"dim\": 2, \"gravity\": [0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": \"rectangle\", "
                 "\"max\": [4, 1], \"cells\": [%d, %d]}, \"material\": {\"model\": \"neo_hookean\", \"E\": 1e6, "
                 "\"nu\": 0.4, \"density\": 1000}, \"pin\": {\"box\": {\"min\": [-1, -1], \"max\": [1e-9, 2]}}}]}",
                 cells[0], cells[1]);
    else
        snprintf(json, sizeof json,
                 "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [{\"mesh\": {\"generate\": \"box\", "
                 "\"max\": [4, 1, 1], \"cells\": [%d, %d, %d]}, \"material\": {\"model\": \"neo_hookean\", "
                 "\"E\": 1e6, \"nu\": 0.4, \"density\": 1000}, \"pin\": {\"box\": {\"min\": [-1, -1, -1], "
                 "\"max\": [1e-9, 2, 2]}}}]}",
                 cells[0], cells[1], cells[2]);
    /* Splice the preconditioner choice in front of the bodies. */
    body = strstr(json, "\"bodies\"");
    char tail[2048];
    snprintf(tail, sizeof tail, "%s", body);
    snprintf(body, sizeof json - (size_t)(body - json), "\"linear_solver\": {\"preconditioner\": \"%s\"}, %s",
             precond, tail);
    seam_host host = {SEAM_ABI_VERSION, "bench", "solids[0]", NULL, NULL, quiet, NULL};
    fem *f = fem_new(json, &host);
    if (!f) {
        fprintf(stderr, "create failed\n");
        return;
    }
    double dt = 1e-2, t0 = now();
    int newton = 0, cg = 0;
    for (int s = 0; s < steps; s++) {
        if (fem_step(f, dt, NULL) != SEAM_OK)
            fprintf(stderr, "step %d did not converge\n", s);
        fem_commit(f);
        newton += f->newton.iterations;
        cg += f->newton.cg_iterations;
    }
    double per = (now() - t0) / steps;
    printf("%dD %9zu elements %8zu nodes  %5.1f Newton it/step %7.0f CG it/step  %9.4f s/step\n", d, f->n_elems,
           f->n, (double)newton / steps, (double)cg / steps, per);
    fflush(stdout);
    fem_destroy(&f);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 5;
    if (argc > 2)
        precond = argv[2];
    printf("preconditioner %s, %d steps of dt = 0.01 s each\n", precond, steps);
    int c2[3][3] = {{44, 11, 0}, {140, 36, 0}, {448, 112, 0}};
    int c3[3][3] = {{12, 4, 4}, {26, 8, 8}, {56, 17, 17}};
    for (int i = 0; i < 3; i++)
        run(2, c2[i], steps);
    for (int i = 0; i < 3; i++)
        run(3, c3[i], steps);
    return 0;
}
