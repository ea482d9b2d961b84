/* Time per step and PCG iterations of fluid_mac on a 2D smoke plume, a 2D
 * dam break and a 3D dam break (free-surface water) at several resolutions.
 * Prints one line per run; not part of the test suite.
 *
 *     ninja -C build bench/fluid_mac/bench_fluid_mac
 *     OPENBLAS_NUM_THREADS=1 ./build/bench/fluid_mac/bench_fluid_mac [smoke|water|water3d] [N ...]
 *
 * 3D runs take 3 warm-up and 5 timed steps (a 64^3 step takes seconds here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seam/plugin.h"


typedef struct tally {
    long iterations;
    int solves;
} tally;

/* The plugin reports PCG iterations in a debug line per solve. */
static void bench_log(void *ctx, seam_log_level level, const char *message)
{
    tally *t = ctx;
    const char *k = strstr(message, "PCG ");
    if (k) {
        t->iterations += strtol(k + 4, NULL, 10);
        t->solves++;
    } else if (level >= SEAM_LOG_WARN) {
        fprintf(stderr, "fluid_mac: %s\n", message);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef enum scene { SMOKE2D = 0, WATER2D = 1, WATER3D = 2 } scene;
static const char *const scene_names[] = {"smoke", "water", "water3d", NULL};

static int run(scene sc, int N, int warmup, int steps)
{
    const seam_plugin *P = seam_plugin_v1();
    tally t = {0, 0};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .ctx = &t, .log = bench_log};
    char json[1024];
    double dx = 1.0 / N;
    int dim = sc == WATER3D ? 3 : 2;
    if (sc == WATER3D)   /* a 1 m cube, the left 40% filled 60% high across its depth, collapsing */
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"pressure_tolerance\": 1e-6,"
                 " \"gravity\": [0, -9.81, 0], \"liquid\": {\"fill\": [0, 0, 0, 0.4, 0.6, 1]}}", N, N, N, dx);
    else if (sc == WATER2D)   /* a 1 m box, the left 40% filled 60% high, collapsing */
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d], \"dx\": %.17g, \"pressure_tolerance\": 1e-6,"
                 " \"liquid\": {\"fill\": [0, 0, 0.4, 0.6]}}", N, N, dx);
    else
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d], \"dx\": %.17g, \"density\": 1.2, \"boundary\": {\"top\": \"open\"},"
                 " \"pressure_tolerance\": 1e-6, \"buoyancy\": {\"temperature\": 0.05},"
                 " \"sources\": [{\"side\": \"bottom\", \"range\": [0.4, 0.6], \"speed\": 0.5,"
                 " \"profile\": \"parabolic\", \"temperature\": 50, \"ramp_time\": 0.1}]}", N, N, dx);
    void *fl = P->create(P, json, &host);
    if (!fl)
        return 1;
    seam_interface none = {dim, 0, NULL, NULL, NULL, dim, 0, NULL, NULL, 0};
    P->bind(fl, &none);
    double t_sim = 0.0, elapsed = 0.0;
    clock_t cpu = 0;
    for (int n = 0; n < warmup + steps; n++) {
        double dt = NAN;
        if (P->max_dt(fl, &dt) != SEAM_OK)
            return 1;
        seam_step st = {n, t_sim, dt, 0};
        seam_input in = {0, dim, NULL, NULL, NULL};
        seam_output out = {0, dim, NULL, NULL, NULL};
        if (n == warmup) {
            t.iterations = 0;
            t.solves = 0;
            elapsed = -now();
            cpu = clock();
        }
        if (P->solve(fl, &st, &in, &out) != SEAM_OK || P->commit(fl) != SEAM_OK) {
            fprintf(stderr, "step %d failed\n", n);
            P->destroy(fl);
            return 1;
        }
        t_sim += dt;
    }
    elapsed += now();
    double cpu_s = (double)(clock() - cpu) / CLOCKS_PER_SEC;
    long cells = dim == 3 ? (long)N * N * N : (long)N * N;
    printf("%s %4d^%d cells %8ld  %9.2f ms/step wall  %9.2f ms/step cpu  PCG %6.1f iterations/step"
           "  (%d steps, t = %.3f s)\n", sc == WATER3D ? "water3d" : sc == WATER2D ? "water2d" : "smoke2d", N, dim,
           cells, 1e3 * elapsed / steps, 1e3 * cpu_s / steps, (double)t.iterations / t.solves, steps, t_sim);
    P->destroy(fl);
    return 0;
}

int main(int argc, char **argv)
{
    int sizes[8] = {128, 256, 512}, n = 3, first = 1;
    scene sc = SMOKE2D;
    for (int k = 0; argc > 1 && scene_names[k]; k++)
        if (strcmp(argv[1], scene_names[k]) == 0) {
            sc = (scene)k;
            first = 2;
        }
    if (sc == WATER3D) {
        sizes[0] = 32;
        sizes[1] = 48;
        sizes[2] = 64;
    }
    if (argc > first) {
        n = 0;
        for (int k = first; k < argc && n < 8; k++)
            sizes[n++] = atoi(argv[k]);
    }
    for (int k = 0; k < n; k++)
        if (run(sc, sizes[k], sc == WATER3D ? 3 : 20, sc == WATER3D ? 5 : 20) != 0)
            return 1;
    return 0;
}
