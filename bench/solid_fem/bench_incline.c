/* Usage: bench_incline [T]. solid_fem's integrators on an inclined wall
 * (Irving 2007 ch. 3; tests/fem/test_incline.c has the same setup): the floor
 * of the walls under gravity tilted by theta = 0.5 rad, friction mu = 0.3, a
 * body sliding from rest for T s (default 1) against s = (1/2) g (sin(theta)
 * - mu cos(theta)) T^2, at dt = T/N for N = 256 ... 16384. Bodies: a 2D chain
 * and a 3D cloth lying flat (every node on the wall), a 2D block of
 * triangles and a 3D block of tets (E = 1e6 Pa, stiffness damping 1e-3 s).
 * One row per body, integrator and dt: the slide's relative error and the
 * time per step; a dt above the explicit stable step (max_dt) is skipped for
 * "explicit" and "irving". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fem.h"

#define G 9.81

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

static const char *const bodies[4] = {
    "{\"generate\": \"chain\", \"start\": [0, 0], \"end\": [0.4, 0], \"segments\": 4}, "
    "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1e4, \"density\": 2}",
    "{\"generate\": \"cloth\", \"u\": [0.4, 0, 0], \"v\": [0, 0.2, 0], \"cells\": [2, 1]}, "
    "\"material\": {\"kind\": \"shell\", \"k_stretch\": 1e3, \"density\": 0.5}",
    "{\"generate\": \"rectangle\", \"max\": [0.2, 0.1], \"cells\": [2, 1]}, "
    "\"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000, \"damping\": {\"beta\": 1e-3}}",
    "{\"generate\": \"box\", \"max\": [0.2, 0.1, 0.1], \"cells\": [1, 1, 1]}, "
    "\"material\": {\"E\": 1e6, \"nu\": 0.3, \"density\": 1000, \"damping\": {\"beta\": 1e-3}}",
};
static const char *const names[4] = {"chain_2d", "cloth_3d", "block_2d", "block_3d"};

static double mean_x(const fem *f)
{
    double s = 0.0, m = 0.0;
    for (size_t i = 0; i < f->n; i++) {
        s += f->mass[i] * f->x[i * (size_t)f->d];
        m += f->mass[i];
    }
    return s / m;
}

int main(int argc, char **argv)
{
    double T = argc > 1 ? atof(argv[1]) : 1.0, theta = 0.5, mu = 0.3;
    double a = G * (sin(theta) - mu * cos(theta)), want = 0.5 * a * T * T;
    static const char *const integrators[] = {"backward_euler", "explicit", "irving"};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "solids[0]", .log = quiet};
    for (int b = 0; b < 4; b++) {
        int d = b % 2 == 0 ? 2 : 3;
        for (int k = 0; k < 3; k++)
            for (int N = 256; N <= 16384; N *= 4) {
                char json[2048];
                snprintf(json, sizeof json,
                         "{\"dim\": %d, \"integrator\": \"%s\", \"gravity\": [%.17g, %s%.17g], "
                         "\"walls\": {\"min\": %s, \"max\": %s, \"friction\": %g}, \"bodies\": [{\"mesh\": %s}]}",
                         d, integrators[k], G * sin(theta), d == 3 ? "0, " : "", -G * cos(theta),
                         d == 2 ? "[-1, 0]" : "[-1, -1, 0]", d == 2 ? "[20, 1]" : "[20, 1, 1]", mu, bodies[b]);
                fem *f = fem_new(json, &host);
                if (!f)
                    return 1;
                double dt = T / N;
                if (k > 0 && dt > fem_max_dt(f)) {
                    fem_destroy(&f);
                    continue;
                }
                double x0 = mean_x(f), t0 = now();
                int ok = 1;
                for (int s = 0; s < N && ok; s++) {
                    ok = fem_step(f, dt, NULL) == SEAM_OK;
                    fem_commit(f);
                }
                double secs = now() - t0, s = mean_x(f) - x0;
                printf("@row body=%s integrator=%s steps=%d dt=%.6g slide=%.15f exact=%.15f rel_error=%.3e "
                       "us_step=%.2f ok=%d\n",
                       names[b], integrators[k], N, dt, s, want, fabs(s - want) / want, 1e6 * secs / N, ok);
                fem_destroy(&f);
            }
    }
    return 0;
}
