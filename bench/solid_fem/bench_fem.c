/* Usage: bench_fem [steps [method ...]], methods among cholmod, jacobi (CG),
 * ic0 (CG), auto; default the first three. Time per backward Euler step of solid_fem for
 * about 10^3, 10^4 and 10^5 elements in 2D (triangles) and 3D (tetrahedra): a
 * Neo-Hookean block, clamped on one side, sagging under gravity; and a light
 * cloth (0.2 kg/m^2) of 24^2, 48^2 and 96^2 cells pinned along one edge. Prints one
 * row per size and method, then per dimension the ratio of each CG variant to
 * CHOLMOD and where they cross (interpolated, or extrapolated from the two
 * largest sizes in log-log when they do not cross in the measured range).
 * BENCH_SIZES=2 runs only the two smaller sizes of each case; BENCH_CASES
 * names the cases to run (a comma list of 2D, 3D, cloth; default all). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fem.h"
#include "seam/threads.h"

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

static const char *linear_solver(const char *method)
{
    if (strcmp(method, "cholmod") == 0)
        return "\"method\": \"cholmod\"";
    if (strcmp(method, "auto") == 0)
        return "\"method\": \"auto\"";
    if (strcmp(method, "ic0") == 0)
        return "\"method\": \"cg\", \"preconditioner\": \"ic0\"";
    return "\"method\": \"cg\", \"preconditioner\": \"jacobi\"";
}

static const char *case_name(int d) { return d == 2 ? "2D" : d == 3 ? "3D" : "cloth"; }

/* d: 2, 3, or 4 for 3D cloth. Seconds per step (elements into *elems), or NAN when creation failed. */
static double run(int d, const int cells[3], int steps, const char *method, size_t *elems)
{
    char json[2048];
    if (d == 4)   /* light cloth pinned along one edge (issue 18: IC(0) broke down on it) */
        snprintf(json, sizeof json,
                 "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"linear_solver\": {%s}, \"bodies\": [{\"mesh\": "
                 "{\"generate\": \"cloth\", \"u\": [1, 0, 0], \"v\": [0, 1, 0], \"cells\": [%d, %d]}, "
                 "\"material\": {\"kind\": \"shell\", \"k_stretch\": 5000, \"b_stretch\": 50, \"k_bend\": 1e-3, "
                 "\"b_bend\": 1e-3, \"density\": 0.2}, \"pin\": {\"box\": {\"min\": [-1, -1, -1], "
                 "\"max\": [2, 1e-9, 1]}}}]}",
                 linear_solver(method), cells[0], cells[1]);
    else if (d == 2)
        snprintf(json, sizeof json,
                 "{\"dim\": 2, \"gravity\": [0, -9.81], \"linear_solver\": {%s}, \"bodies\": [{\"mesh\": "
                 "{\"generate\": \"rectangle\", \"max\": [4, 1], \"cells\": [%d, %d]}, \"material\": {\"model\": "
                 "\"neo_hookean\", \"E\": 1e6, \"nu\": 0.4, \"density\": 1000}, \"pin\": {\"box\": {\"min\": [-1, -1], "
                 "\"max\": [1e-9, 2]}}}]}",
                 linear_solver(method), cells[0], cells[1]);
    else
        snprintf(json, sizeof json,
                 "{\"dim\": 3, \"gravity\": [0, 0, -9.81], \"linear_solver\": {%s}, \"bodies\": [{\"mesh\": "
                 "{\"generate\": \"box\", \"max\": [4, 1, 1], \"cells\": [%d, %d, %d]}, \"material\": {\"model\": "
                 "\"neo_hookean\", \"E\": 1e6, \"nu\": 0.4, \"density\": 1000}, \"pin\": {\"box\": {\"min\": "
                 "[-1, -1, -1], \"max\": [1e-9, 2, 2]}}}]}",
                 linear_solver(method), cells[0], cells[1], cells[2]);
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .config_path = "solids[0]", .log = quiet};
    fem *f = fem_new(json, &host);
    if (!f) {
        fprintf(stderr, "create failed\n");
        return NAN;
    }
    double dt = 1e-2, t0 = now();
    int newton = 0, cg = 0;
    double lin = 0.0;
    for (int s = 0; s < steps; s++) {
        seam_threads_tick();   /* as the coupler does before each solve: the thread policy's count */
        if (fem_step(f, dt, NULL) != SEAM_OK)
            fprintf(stderr, "step %d did not converge\n", s);
        fem_commit(f);
        newton += f->newton.iterations;
        cg += f->newton.cg_iterations;
        lin += f->newton.linear_seconds;
    }
    double per = (now() - t0) / steps;
    fprintf(stderr, "thread policy: %d threads at the end (at most %d%s)\n", seam_threads_current(), seam_threads_max(),
            seam_threads_fixed() ? ", fixed" : "");
    printf("| %s | %9zu | %8zu | %-7s | %5.1f | %7.0f | %9.4f | %9.4f |\n", case_name(d),
           f->n_elems + f->n_tris, f->n, method, (double)newton / steps, (double)cg / steps, per, lin / steps);
    printf("@row case=%s elements=%zu nodes=%zu solver=%s steps=%d newton_it_step=%.2f cg_it_step=%.1f s_step=%.5f"
           " s_step_linear=%.5f\n", case_name(d), f->n_elems + f->n_tris, f->n, method, steps,
           (double)newton / steps, (double)cg / steps, per, lin / steps);
    fflush(stdout);
    *elems = f->n_elems + f->n_tris;
    fem_destroy(&f);
    return per;
}

enum { N_SIZES = 3, MAX_METHODS = 3 };
static int n_sizes = N_SIZES;   /* the smallest sizes run: BENCH_SIZES (2 or 3; bench/run --quick: 2) */

/* Elements where CG (t_cg) and CHOLMOD (t_ch) cost the same, by log-log
 * interpolation of their ratio over the sizes. */
static void crossover(int d, const char *method, const double *n, const double *t_cg, const double *t_ch)
{
    double r[N_SIZES];
    for (int i = 0; i < n_sizes; i++)
        r[i] = log(t_cg[i] / t_ch[i]);
    printf("%-5s %-7s/cholmod time ratio:", case_name(d), method);
    for (int i = 0; i < n_sizes; i++)
        printf(" %.2f", exp(r[i]));
    for (int i = 0; i + 1 < n_sizes; i++)
        if ((r[i] > 0) != (r[i + 1] > 0)) {
            double s = r[i] / (r[i] - r[i + 1]);
            printf("; crossover at about %.3g elements\n", exp(log(n[i]) + s * (log(n[i + 1]) - log(n[i]))));
            return;
        }
    int a = n_sizes - 2, b = n_sizes - 1;
    double slope = (r[b] - r[a]) / (log(n[b]) - log(n[a]));
    if ((r[b] > 0 && slope < 0) || (r[b] < 0 && slope > 0))
        printf("; no crossover measured, extrapolated at about %.3g elements\n", exp(log(n[b]) - r[b] / slope));
    else
        printf("; no crossover measured, and the ratio moves away from 1 with size\n");
}

/* BENCH_CASES: which of 2D, 3D and cloth to run. */
static bool parse_cases(const char *list, bool run_case[3])
{
    run_case[0] = run_case[1] = run_case[2] = false;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int d = 0;
        for (int k = 2; k <= 4; k++)
            if (strlen(case_name(k)) == len && strncmp(p, case_name(k), len) == 0)
                d = k;
        if (!d) {
            fprintf(stderr, "BENCH_CASES: unknown case '%.*s' (expected a comma list of 2D, 3D, cloth)\n", (int)len, p);
            return false;
        }
        run_case[d - 2] = true;
        p += len + (p[len] == ',');
    }
    return true;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 3;
    const char *sizes = getenv("BENCH_SIZES");
    if (sizes && (atoi(sizes) < 2 || atoi(sizes) > N_SIZES)) {
        fprintf(stderr, "BENCH_SIZES must be 2 or 3 (the smallest sizes of each case)\n");
        return 1;
    }
    n_sizes = sizes ? atoi(sizes) : N_SIZES;
    const char *cases = getenv("BENCH_CASES");
    const char *methods[MAX_METHODS] = {"cholmod", "jacobi", "ic0"};
    int n_methods = 3;
    if (argc > 2) {
        n_methods = 0;
        for (int a = 2; a < argc && n_methods < MAX_METHODS; a++)
            methods[n_methods++] = argv[a];
    }
    printf("%d steps of dt = 0.01 s each; jacobi and ic0 are PCG with that preconditioner (tolerance 1e-8)\n\n",
           steps);
    printf("| case | elements | nodes | solver | Newton it/step | CG it/step | s/step | s/step in linear solves |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    const int cells[3][N_SIZES][3] = {{{44, 11, 0}, {140, 36, 0}, {448, 112, 0}},
                                      {{12, 4, 4}, {26, 8, 8}, {56, 17, 17}},
                                      {{24, 24, 0}, {48, 48, 0}, {96, 96, 0}}};
    double t[3][MAX_METHODS][N_SIZES], n[3][N_SIZES];
    bool run_case[3] = {true, true, true};
    if (cases && !parse_cases(cases, run_case))
        return 1;
    for (int d = 2; d <= 4; d++)
        for (int i = 0; i < n_sizes && run_case[d - 2]; i++)
            for (int m = 0; m < n_methods; m++) {
                size_t e = 0;
                t[d - 2][m][i] = run(d, cells[d - 2][i], steps, methods[m], &e);
                n[d - 2][i] = (double)e;
            }
    printf("\n");
    int ch = -1;
    for (int m = 0; m < n_methods; m++)
        if (strcmp(methods[m], "cholmod") == 0)
            ch = m;
    for (int d = 2; d <= 4 && ch >= 0; d++)
        for (int m = 0; m < n_methods && run_case[d - 2]; m++)
            if (m != ch)
                crossover(d, methods[m], n[d - 2], t[d - 2][m], t[d - 2][ch]);
    return 0;
}
