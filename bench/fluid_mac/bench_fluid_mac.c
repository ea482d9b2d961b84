/* Time per step and PCG iterations of fluid_mac on a 2D smoke plume, a 2D
 * dam break and a 3D dam break (free-surface water) at several resolutions.
 * Prints one line per run; not part of the test suite.
 *
 *     ninja -C build bench/fluid_mac/bench_fluid_mac
 *     OPENBLAS_NUM_THREADS=1 ./build/bench/fluid_mac/bench_fluid_mac [smoke|water|water3d|smoke3d] [mg|mic0|both] [N ...]
 *     OMP_NUM_THREADS=1 ./build/bench/fluid_mac/bench_fluid_mac water3d kernels [mg|mic0] [N ...]
 *
 * The pressure preconditioner is multigrid (mg, the default), MIC(0) (mic0),
 * or both: each size run with both, alternately, then their ratios.
 * `kernels` (water, water3d) runs each size with the particle transfers of
 * before issue 18 (`particle_kernels: "reference"`) and then the binned ones,
 * and prints each phase's CPU time per step, its share and their ratio.
 * Every run prints the CPU time of each phase of the step (the plugin's
 * "phases" debug line).
 * 2D runs take 20 warm-up and 20 timed steps, 3D runs 3 and 5 (a 64^3 step
 * takes seconds here); BENCH_STEPS=W,T overrides both.
 *
 * Multigrid runs also print a "bound" table: the CPU time of one MG-PCG
 * iteration (the plugin times each PCG solve) against the bytes it has to
 * move at the least (mac_mg_iteration_bytes, whose model is stated in
 * plugins/fluid_mac/multigrid.c: CG's 10 doubles per unknown, a byte of
 * stencil per cell and pass plus level 0's diagonal, and two passes per
 * level, each array once) over the bandwidth of a STREAM triad
 * a[i] = b[i] + s c[i] on three arrays of 2^25 doubles (768 MiB, far beyond
 * the caches), run in this process before each size (24 bytes per element,
 * STREAM's count; best of 5). Measured/bound is meaningful with
 * OMP_NUM_THREADS=1 (CPU time; the triad is one thread).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seam/alloc.h"
#include "seam/plugin.h"
#include "seam/threads.h"

const seam_plugin *fluid_mac_table(void);   /* the static library's table (plugins/fluid_mac/fluid.h) */


enum { MAX_PHASES = 16 };

typedef struct tally {
    long iterations;
    double pcg_ms, pcg_wall_ms, bytes;   /* PCG CPU and wall time, bound bytes times iterations, summed */
    int solves;
    int n_phases;
    char phase_names[MAX_PHASES][24];
    double phase_ms[MAX_PHASES];   /* summed over the timed steps */
} tally;

typedef struct result {
    double ms_wall, ms_cpu, iterations;
    double ms_iteration, wall_ms_iteration, bytes_iteration;   /* per PCG iteration */
    int n_phases;
    char phase_names[MAX_PHASES][24];
    double phase_ms[MAX_PHASES];   /* per step */
} result;

static const char *precond = "multigrid";
static const char *kernels = NULL;   /* liquids: the particle_kernels key, NULL: the default */

/* The plugin reports PCG iterations in a debug line per solve. */
static void bench_log(void *ctx, seam_log_level level, const char *message)
{
    tally *t = ctx;
    const char *k = strstr(message, "PCG ");
    const char *ph = strstr(message, "phases (ms)");
    if (ph) {   /* " name ms" pairs, in the plugin's order */
        ph += strlen("phases (ms)");
        char name[24];
        double ms;
        int used, n = 0;
        while (n < MAX_PHASES && sscanf(ph, " %23s %lf%n", name, &ms, &used) == 2) {
            snprintf(t->phase_names[n], sizeof t->phase_names[n], "%s", name);
            t->phase_ms[n++] += ms;
            ph += used;
        }
        t->n_phases = n;
    } else if (k) {
        long it = strtol(k + 4, NULL, 10);
        double cpu = 0.0, wall = 0.0, bytes = 0.0;
        const char *ms = strstr(k, "residual");
        if (ms && sscanf(ms, "residual %*g, %lf ms cpu, %lf ms wall, %lf bytes", &cpu, &wall, &bytes) == 3) {
            t->pcg_ms += cpu;
            t->pcg_wall_ms += wall;
            t->bytes += bytes * (double)it;
        }
        t->iterations += it;
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

typedef enum scene { SMOKE2D = 0, WATER2D = 1, WATER3D = 2, SMOKE3D = 3 } scene;
static const char *const scene_names[] = {"smoke", "water", "water3d", "smoke3d", NULL};

static int run(scene sc, int N, int warmup, int steps, result *res)
{
    const seam_plugin *P = fluid_mac_table();
    tally t = {0};
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "fluid", .ctx = &t, .log = bench_log};
    char json[1024], tail[128];
    double dx = 1.0 / N;
    int dim = sc == WATER3D || sc == SMOKE3D ? 3 : 2;
    if (sc == SMOKE3D)   /* a hot round jet from the floor of a 1 m cube open at the top */
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"density\": 1.2, \"boundary\": {\"top\": \"open\"},"
                 " \"pressure_tolerance\": 1e-6, \"buoyancy\": {\"temperature\": 0.05},"
                 " \"sources\": [{\"side\": \"bottom\", \"range\": [0.4, 0.6, 0.4, 0.6], \"shape\": \"disc\","
                 " \"speed\": 0.5, \"profile\": \"parabolic\", \"temperature\": 50, \"ramp_time\": 0.1}]}",
                 N, N, N, dx);
    else if (sc == WATER3D)   /* a 1 m cube, the left 40% filled 60% high across its depth, collapsing */
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"pressure_tolerance\": 1e-6,"
                 " \"gravity\": [0, -9.81, 0], \"liquid\": {\"fill\": [0, 0, 0, 0.4, 0.6, 1]%s%s%s}}", N, N, N, dx,
                 kernels ? ", \"particle_kernels\": \"" : "", kernels ? kernels : "", kernels ? "\"" : "");
    else if (sc == WATER2D)   /* a 1 m box, the left 40% filled 60% high, collapsing */
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d], \"dx\": %.17g, \"pressure_tolerance\": 1e-6,"
                 " \"liquid\": {\"fill\": [0, 0, 0.4, 0.6]%s%s%s}}", N, N, dx,
                 kernels ? ", \"particle_kernels\": \"" : "", kernels ? kernels : "", kernels ? "\"" : "");
    else
        snprintf(json, sizeof json,
                 "{\"cells\": [%d, %d], \"dx\": %.17g, \"density\": 1.2, \"boundary\": {\"top\": \"open\"},"
                 " \"pressure_tolerance\": 1e-6, \"buoyancy\": {\"temperature\": 0.05},"
                 " \"sources\": [{\"side\": \"bottom\", \"range\": [0.4, 0.6], \"speed\": 0.5,"
                 " \"profile\": \"parabolic\", \"temperature\": 50, \"ramp_time\": 0.1}]}", N, N, dx);
    /* The preconditioner goes in front of the other keys. */
    snprintf(tail, sizeof tail, "{\"pressure_preconditioner\": \"%s\", ", precond);
    size_t lt = strlen(tail);
    memmove(json + lt, json + 1, strlen(json));
    memcpy(json, tail, lt);
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
        seam_threads_tick();   /* as the coupler does before each solve: the thread policy's count */
        seam_step st = {n, t_sim, dt, 0};
        seam_input in = {0, dim, NULL, NULL, NULL};
        seam_output out = {0, dim, NULL, NULL, NULL};
        if (n == warmup) {
            t = (tally){0};
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
    fprintf(stderr, "thread policy: %d threads at the end (at most %d%s)\n", seam_threads_current(), seam_threads_max(),
            seam_threads_fixed() ? ", fixed" : "");
    double cpu_s = (double)(clock() - cpu) / CLOCKS_PER_SEC;
    long cells = dim == 3 ? (long)N * N * N : (long)N * N;
    const char *name = sc == SMOKE3D ? "smoke3d" : sc == WATER3D ? "water3d" : sc == WATER2D ? "water2d" : "smoke2d";
    res->ms_wall = 1e3 * elapsed / steps;
    res->ms_cpu = 1e3 * cpu_s / steps;
    res->iterations = (double)t.iterations / t.solves;
    res->ms_iteration = t.iterations ? t.pcg_ms / (double)t.iterations : 0.0;
    res->wall_ms_iteration = t.iterations ? t.pcg_wall_ms / (double)t.iterations : 0.0;
    res->bytes_iteration = t.iterations ? t.bytes / (double)t.iterations : 0.0;
    res->n_phases = t.n_phases;
    for (int k = 0; k < t.n_phases; k++) {
        memcpy(res->phase_names[k], t.phase_names[k], sizeof res->phase_names[k]);
        res->phase_ms[k] = t.phase_ms[k] / steps;
    }
    printf("%s %4d^%d cells %8ld %-9s %s%9.2f ms/step wall  %9.2f ms/step cpu  PCG %6.1f iterations/solve"
           "  (%d steps, t = %.3f s)\n", name, N, dim,
           cells, precond, kernels ? kernels : "", res->ms_wall, res->ms_cpu, res->iterations, steps, t_sim);
    printf("    phases, CPU ms/step (share of the step's CPU time):");
    double rest = res->ms_cpu;
    for (int k = 0; k < res->n_phases; k++)
        if (res->phase_ms[k] > 0.0) {
            printf(" %s %.2f (%.1f%%)", res->phase_names[k], res->phase_ms[k], 100.0 * res->phase_ms[k] / res->ms_cpu);
            rest -= res->phase_ms[k];
        }
    printf(" rest %.2f (%.1f%%)\n", rest, 100.0 * rest / res->ms_cpu);
    /* the same figures as data, for bench/record.py */
    printf("@row scene=%s N=%d dim=%d cells=%ld precond=%s kernels=%s steps=%d ms_wall=%.3f ms_cpu=%.3f"
           " pcg_it_solve=%.2f", name, N, dim, cells, precond, kernels ? kernels : "default", steps, res->ms_wall,
           res->ms_cpu, res->iterations);
    for (int k = 0; k < res->n_phases; k++)
        printf(" %s_ms=%.3f", res->phase_names[k], res->phase_ms[k]);
    printf("\n");
    fflush(stdout);
    P->destroy(fl);
    return 0;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* STREAM triad bandwidth in bytes per CPU second, best of 5 passes. */
static double triad_bandwidth(void)
{
    const size_t n = (size_t)1 << 25;
    double *a = seam_xmalloc_n(n, sizeof *a), *b = seam_xmalloc_n(n, sizeof *b), *c = seam_xmalloc_n(n, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0 + 1e-9 * (double)i;
        c[i] = 2.0;
    }
    double best = INFINITY, s = 3.0;
    for (int rep = 0; rep < 5; rep++) {
        double t = -cpu_now();
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        t += cpu_now();
        best = t < best ? t : best;
        s = a[(size_t)rep * 977] * 1e-9 + 3.0;   /* the next pass depends on this one */
    }
    free(a), free(b), free(c);
    return 24.0 * (double)n / best;
}

/* Per size: CPU ms per MG-PCG iteration against its bandwidth bound. */
static void print_bound_table(const char *name, int dim, const int *sizes, int n, const result *mg, const double *bw)
{
    printf("\n| %s N | MG it/solve | ms/iteration (cpu) | wall ms/iteration | bound MB/iteration | triad GB/s "
           "| bound ms/iteration | measured/bound |\n|---|---|---|---|---|---|---|---|\n", name);
    for (int k = 0; k < n; k++) {
        double bound_ms = 1e3 * mg[k].bytes_iteration / bw[k];
        printf("| %d^%d | %.1f | %.3f | %.3f | %.2f | %.1f | %.3f | **%.2f** |\n", sizes[k], dim, mg[k].iterations,
               mg[k].ms_iteration, mg[k].wall_ms_iteration, 1e-6 * mg[k].bytes_iteration, 1e-9 * bw[k], bound_ms,
               mg[k].ms_iteration / bound_ms);
        printf("@row table=bound scene=%s N=%d dim=%d mg_it_solve=%.2f ms_iteration=%.4f wall_ms_iteration=%.4f"
               " bound_MB=%.3f triad_GBs=%.2f measured_over_bound=%.3f\n", name, sizes[k], dim, mg[k].iterations,
               mg[k].ms_iteration, mg[k].wall_ms_iteration, 1e-6 * mg[k].bytes_iteration, 1e-9 * bw[k],
               mg[k].ms_iteration / bound_ms);
    }
}

/* Per size: each phase's CPU ms per step and share, reference against binned, and their ratio. */
static void print_kernel_table(const int *sizes, int n, const result *ref, const result *bin)
{
    printf("\n| N | phase | reference ms/step | share | binned ms/step | share | reference/binned |\n"
           "|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        double rest_r = ref[k].ms_cpu, rest_b = bin[k].ms_cpu;
        for (int q = 0; q < ref[k].n_phases && q < bin[k].n_phases; q++) {
            double r = ref[k].phase_ms[q], b = bin[k].phase_ms[q];
            rest_r -= r;
            rest_b -= b;
            if (r <= 0.0 && b <= 0.0)
                continue;
            printf("| %d | %s | %.2f | %.1f%% | %.2f | %.1f%% | %.2f |\n", sizes[k], ref[k].phase_names[q], r,
                   100.0 * r / ref[k].ms_cpu, b, 100.0 * b / bin[k].ms_cpu, b > 0.0 ? r / b : 0.0);
        }
        printf("| %d | rest | %.2f | %.1f%% | %.2f | %.1f%% | %.2f |\n", sizes[k], rest_r, 100.0 * rest_r / ref[k].ms_cpu,
               rest_b, 100.0 * rest_b / bin[k].ms_cpu, rest_r / rest_b);
        printf("| %d | **step** | %.2f | 100%% | %.2f | 100%% | **%.2f** |\n", sizes[k], ref[k].ms_cpu, bin[k].ms_cpu,
               ref[k].ms_cpu / bin[k].ms_cpu);
    }
}

int main(int argc, char **argv)
{
    int sizes[8] = {128, 256, 512}, n = 3, first = 1, both = 0;
    scene sc = SMOKE2D;
    for (int k = 0; argc > first && scene_names[k]; k++)
        if (strcmp(argv[first], scene_names[k]) == 0) {
            sc = (scene)k;
            first++;
            break;
        }
    int compare_kernels = 0;
    if ((sc == WATER2D || sc == WATER3D) && argc > first && strcmp(argv[first], "kernels") == 0) {
        compare_kernels = 1;   /* the reference particle kernels against the binned ones */
        first++;
    }
    if (argc > first && (strcmp(argv[first], "mg") == 0 || strcmp(argv[first], "mic0") == 0 ||
                         strcmp(argv[first], "both") == 0)) {
        both = strcmp(argv[first], "both") == 0;
        precond = strcmp(argv[first], "mic0") == 0 ? "mic0" : "multigrid";
        first++;
    }
    if (sc == WATER3D || sc == SMOKE3D) {
        sizes[0] = 32;
        sizes[1] = 48;
        sizes[2] = 64;
    }
    if (argc > first) {
        n = 0;
        for (int k = first; k < argc && n < 8; k++)
            sizes[n++] = atoi(argv[k]);
    }
    int warmup = sc == WATER3D || sc == SMOKE3D ? 3 : 20, steps = sc == WATER3D || sc == SMOKE3D ? 5 : 20;
    const char *env = getenv("BENCH_STEPS");
    if (env && sscanf(env, "%d,%d", &warmup, &steps) != 2) {
        fprintf(stderr, "BENCH_STEPS=warmup,steps\n");
        return 1;
    }
    result mg[8], mic[8];
    double bw[8];
    if (compare_kernels) {
        result ref[8], bin[8];
        for (int k = 0; k < n; k++) {
            kernels = "reference";
            if (run(sc, sizes[k], warmup, steps, &ref[k]) != 0)
                return 1;
            kernels = "binned";
            if (run(sc, sizes[k], warmup, steps, &bin[k]) != 0)
                return 1;
        }
        print_kernel_table(sizes, n, ref, bin);
        return 0;
    }
    int multigrid = both || strcmp(precond, "multigrid") == 0;
    for (int k = 0; k < n; k++) {
        if (multigrid && (bw[k] = triad_bandwidth()) <= 0.0) {
            fprintf(stderr, "no memory for the triad's arrays\n");
            return 1;
        }
        if (both)
            precond = "mic0";
        if (run(sc, sizes[k], warmup, steps, both ? &mic[k] : &mg[k]) != 0)
            return 1;
        if (both) {
            precond = "multigrid";
            if (run(sc, sizes[k], warmup, steps, &mg[k]) != 0)
                return 1;
        }
    }
    if (both) {
        printf("\n| N | MIC(0) it/solve | MG it/solve | MIC(0) ms/step | MG ms/step | MIC(0)/MG time |\n"
               "|---|---|---|---|---|---|\n");
        for (int k = 0; k < n; k++)
            printf("| %d | %.1f | %.1f | %.2f | %.2f | %.2f |\n", sizes[k], mic[k].iterations, mg[k].iterations,
                   mic[k].ms_cpu, mg[k].ms_cpu, mic[k].ms_cpu / mg[k].ms_cpu);
    }
    if (multigrid)
        print_bound_table(scene_names[sc], sc == WATER3D || sc == SMOKE3D ? 3 : 2, sizes, n, mg, bw);
    return 0;
}
