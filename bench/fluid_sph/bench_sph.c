/* fluid_sph cost on a 3D dam break: time per step, particle-steps per second
 * and the DFSPH solvers' iterations per step at several particle counts,
 * each on 1 thread and on every core present (OpenMP; the particle loops run
 * in parallel from 20000 particles on, the neighbour lists are built
 * serially). Prints one line per run and the speed-up; not a test.
 *
 *     ninja -C build bench/fluid_sph/bench_sph
 *     OPENBLAS_NUM_THREADS=1 ./build/bench/fluid_sph/bench_sph [N ...]
 *
 *     OPENBLAS_NUM_THREADS=1 ./build/bench/fluid_sph/bench_sph takahashi [N ...]
 *
 * The second form runs `"pressure_solver": "takahashi"` on one thread, with
 * its multigrid preconditioner (MGCG) and without it (plain CG), on a 2D dam
 * break (a column [0, 0.4] x [0, 0.6] m in a box 1 x 0.6 m, s = (0.24 /
 * N)^(1/2), default N 4000 16000 64000) from t = 0.1 s to 0.2 s (the same
 * stretch of the collapse at every N, BENCH_TIME=T0,T1 overrides it), and
 * prints the CG iterations per step of each: Takahashi's ch. 3 claim is that
 * MGCG's stay flat as N grows while CG's grow.
 *
 * N: the particle counts aimed at (default 10000 100000 1000000); the spacing
 * s = (0.096 / N)^(1/3) fills the box [0, 0.4] x [0, 0.6] x [0, 0.4] of the
 * domain [0, 1] x [0, 1] x [0, 0.4], which collapses under gravity. Takes 2
 * warm-up and 5 timed steps (BENCH_STEPS=W,T overrides them). Each line
 * ends with a digest of the final state (two builds that print the same
 * digest computed the same trajectory to the bit) and the process's peak
 * resident memory so far (the runs go in the order given: list the sizes
 * rising and the figure is the largest run's).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "seam/plugin.h"

typedef struct tally {
    long density, divergence;
    int solves;
    long particles;          /* from the line bind logs */
} tally;

/* fluid_sph reports both solvers' iterations in its debug line per solve. */
static void bench_log(void *ctx, seam_log_level level, const char *message)
{
    tally *t = ctx;
    const char *a = strstr(message, "density solve "), *b = strstr(message, "divergence solve ");
    const char *bound = strstr(message, "surface samples, ");
    if (bound)
        t->particles = strtol(bound + strlen("surface samples, "), NULL, 10);
    if (a && b) {
        t->density += strtol(a + strlen("density solve "), NULL, 10);
        t->divergence += strtol(b + strlen("divergence solve "), NULL, 10);
        t->solves++;
    } else if (level >= SEAM_LOG_WARN) {
        fprintf(stderr, "fluid_sph: %s\n", message);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FNV-1a of the committed state (`save`): equal digests, equal trajectories to the bit. */
static unsigned long long digest(const seam_plugin *P, void *fl)
{
    seam_buffer b = {NULL, 0};
    unsigned long long h = 1469598103934665603ull;
    if (P->save(fl, &b) != SEAM_OK)
        return 0;
    for (size_t k = 0; k < b.size; k++)
        h = (h ^ ((const unsigned char *)b.data)[k]) * 1099511628211ull;
    return h;
}

/* ms per timed step, or a negative number when the run failed. */
static double run(long target, int threads, int warmup, int steps)
{
    omp_set_num_threads(threads);
    const seam_plugin *P = seam_plugin_v1();
    tally t = {0, 0, 0, 0};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .ctx = &t, .log = bench_log};
    double s = cbrt(0.096 / (double)target);
    char json[512];
    snprintf(json, sizeof json,
             "{\"domain\": [0, 0, 0, 1, 1, 0.4], \"spacing\": %.17g, \"fill\": [0, 0, 0, 0.4, 0.6, 0.4]}", s);
    void *fl = P->create(P, json, &host);
    if (!fl)
        return -1.0;
    seam_interface none = {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0};
    if (P->bind(fl, &none) != SEAM_OK) {
        P->destroy(fl);
        return -1.0;
    }
    double t_sim = 0.0, elapsed = 0.0;
    for (int n = 0; n < warmup + steps; n++) {
        double dt = NAN;
        if (n == warmup) {
            t = (tally){0, 0, 0, t.particles};
            elapsed = -now();
        }
        seam_step st = {n, t_sim, 0.0, 0};
        seam_input in = {0, 3, NULL, NULL, NULL};
        seam_output out = {0, 3, NULL, NULL, NULL};
        if (P->max_dt(fl, &dt) != SEAM_OK || (st.dt = dt, P->solve(fl, &st, &in, &out)) != SEAM_OK ||
            P->commit(fl) != SEAM_OK) {
            fprintf(stderr, "step %d failed\n", n);
            P->destroy(fl);
            return -1.0;
        }
        t_sim += dt;
    }
    elapsed += now();
    long particles = t.particles;
    double ms = 1e3 * elapsed / steps;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%8ld particles (s = %.4f m)  %2d thread%s  %9.1f ms/step  %9.0f particle-steps/s  "
           "density %5.1f  divergence %5.1f iterations/step  (t = %.3f s)  state %016llx  peak RSS %.0f MB\n",
           particles, s, threads, threads == 1 ? " " : "s", ms, (double)particles / (ms * 1e-3),
           (double)t.density / t.solves, (double)t.divergence / t.solves, t_sim, digest(P, fl),
           (double)ru.ru_maxrss / 1024.0);
    printf("@row mode=dam3d particles=%ld spacing=%.5f threads=%d steps=%d ms_step=%.2f particle_steps_s=%.0f"
           " density_it_step=%.2f divergence_it_step=%.2f peak_rss_MB=%.0f\n", particles, s, threads, steps, ms,
           (double)particles / (ms * 1e-3), (double)t.density / t.solves, (double)t.divergence / t.solves,
           (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    P->destroy(fl);
    return ms;
}

/* The 2D dam break of the takahashi mode from t0 to t1 (timed from t0);
 * keys: the preconditioner. Returns the CG iterations per step, or -1. */
static double run_takahashi(long target, double t0, double t1, const char *keys)
{
    omp_set_num_threads(1);
    const seam_plugin *P = seam_plugin_v1();
    tally t = {0, 0, 0, 0};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .ctx = &t, .log = bench_log};
    double s = sqrt(0.24 / (double)target);
    char json[512];
    snprintf(json, sizeof json,
             "{\"domain\": [0, 0, 1, 0.6], \"spacing\": %.17g, \"fill\": [0, 0, 0.4, 0.6], "
             "\"pressure_solver\": \"takahashi\", \"max_iterations\": 1000, %s}", s, keys);
    void *fl = P->create(P, json, &host);
    seam_interface none = {2, 0, NULL, NULL, NULL, 2, 0, NULL, NULL, 0};
    if (!fl || P->bind(fl, &none) != SEAM_OK) {
        if (fl)
            P->destroy(fl);
        return -1.0;
    }
    double t_sim = 0.0, elapsed = 0.0;
    int timing = 0;
    for (int n = 0; t_sim < t1; n++) {
        double dt = NAN;
        if (!timing && t_sim >= t0) {
            t = (tally){0, 0, 0, t.particles};
            elapsed = -now();
            timing = 1;
        }
        seam_step st = {n, t_sim, 0.0, 0};
        seam_input in = {0, 2, NULL, NULL, NULL};
        seam_output out = {0, 2, NULL, NULL, NULL};
        if (P->max_dt(fl, &dt) != SEAM_OK || (st.dt = dt, P->solve(fl, &st, &in, &out)) != SEAM_OK ||
            P->commit(fl) != SEAM_OK) {
            fprintf(stderr, "step %d failed\n", n);
            P->destroy(fl);
            return -1.0;
        }
        t_sim += dt;
    }
    elapsed += now();
    double it = t.solves ? (double)t.density / t.solves : 0.0;
    printf("%8ld particles (s = %.5f m)  %-4s  %6d steps  %8.1f ms/step  %6.1f CG iterations/step\n", t.particles, s,
           strstr(keys, "false") ? "CG" : "MGCG", t.solves, t.solves ? 1e3 * elapsed / t.solves : 0.0, it);
    printf("@row mode=takahashi particles=%ld spacing=%.5f solver=%s steps=%d ms_step=%.2f cg_it_step=%.2f\n",
           t.particles, s, strstr(keys, "false") ? "CG" : "MGCG", t.solves,
           t.solves ? 1e3 * elapsed / t.solves : 0.0, it);
    fflush(stdout);
    P->destroy(fl);
    return it;
}

int main(int argc, char **argv)
{
    long sizes[16] = {10000, 100000, 1000000};
    int count = 3, warmup = 2, steps = 5, cores = omp_get_num_procs(), first = 1;
    int takahashi = argc > 1 && strcmp(argv[1], "takahashi") == 0;
    first += takahashi;
    if (argc > first) {
        count = 0;
        for (int k = first; k < argc && count < 16; k++)
            sizes[count++] = strtol(argv[k], NULL, 10);
    }
    const char *env = getenv("BENCH_STEPS");
    if (env && sscanf(env, "%d,%d", &warmup, &steps) != 2) {
        fprintf(stderr, "BENCH_STEPS: expected W,T\n");
        return 2;
    }
    if (steps < 1 || warmup < 0) {
        fprintf(stderr, "BENCH_STEPS: need W >= 0 and T >= 1\n");
        return 2;
    }
    double t0 = 0.1, t1 = 0.2;
    const char *span = getenv("BENCH_TIME");
    if (span && (sscanf(span, "%lf,%lf", &t0, &t1) != 2 || !(t0 >= 0.0 && t1 > t0))) {
        fprintf(stderr, "BENCH_TIME: expected T0,T1 with 0 <= T0 < T1\n");
        return 2;
    }
    if (takahashi && argc <= first) {
        long quad[3] = {4000, 16000, 64000};
        memcpy(sizes, quad, sizeof quad);
    }
    for (int k = 0; k < count && takahashi; k++)
        if (run_takahashi(sizes[k], t0, t1, "\"multigrid\": true") < 0.0 ||
            run_takahashi(sizes[k], t0, t1, "\"multigrid\": false") < 0.0)
            return 1;
    for (int k = 0; k < count && !takahashi; k++) {
        double one = run(sizes[k], 1, warmup, steps), all = cores > 1 ? run(sizes[k], cores, warmup, steps) : one;
        if (one < 0.0 || all < 0.0)
            return 1;
        if (cores > 1)
            printf("%8ld: speed-up on %d threads %.2f\n", sizes[k], cores, one / all);
    }
    return 0;
}
