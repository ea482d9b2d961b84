/* The monolithic projection's cost against resolution (issues 16.5, 33.3):
 * examples/floating_block.json's geometry (a 2 x 1.2 m tank, water to 0.6 m,
 * a 0.4 x 0.2 m corotated block of 500 kg/m^2 half submerged) at rest, one
 * coupled projection (Zarifi 5.17 through its SPD form) per resolution, the
 * solid meshed at the grid's spacing. Prints, per dx and solver (IC(0)-PCG,
 * multigrid-PCG, direct, AMG-PCG: mono_precond, in the same run): cells, pressures,
 * solid unknowns, nonzeros of the SPD matrix, PCG iterations (to 1e-10),
 * the CPU time of the cut cells, the fluid block, the solid block and the
 * solve (a fresh solve: CHOLMOD's analyses included), the solve again with
 * what the first kept (mono_solve_kept: a step whose pattern holds), medians
 * of `repeats`, and the largest difference of p and v from IC(0)'s answer
 * relative to its largest value; then growth exponents against the
 * unknowns. Built with hypre (Debian's libhypre-dev, BENCH_HYPRE: meson.build),
 * it also solves each level's SPD system, and its pressure block A_pp
 * alone, by BoomerAMG-PCG (hypre's classical AMG, one V-cycle, hybrid
 * Gauss-Seidel) to the same tolerance: an algebraic multigrid's iterations
 * for comparison, seam does not use it.
 * Usage: bench_monolithic [repeats [row_scaling [levels]]]
 * (row_scaling 0: |c1|/|c2| each solve; levels 2-4 of dx 0.05 ... 0.00625). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mono.h"
#include "seam/alloc.h"
#ifdef BENCH_HYPRE
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>
#endif

static void quiet(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "%s\n", message);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct row {
    mono_precond precond;
    double dx;
    size_t cells, pressures, unknowns, nnz;
    int iterations, iterations_kept;
    double t[5];             /* cut, fluid, solid, solve, solve with the kept analysis (s) */
    double *p, *v;           /* the last repeat's answer */
} row;

enum { N_PRECOND = 4 };

static double alpha_opt = 1e-3;   /* the row scaling of (5.36): argv[2], 0 for |c1|/|c2| */
static int levels_opt = 4;         /* resolutions run: argv[3] */

static row run(double dx, mono_precond precond, int repeats, const seam_host *host)
{
    row r = {precond, dx, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0, 0}, NULL, NULL};
    int nb = (int)lround(0.4 / dx), hb = (int)lround(0.2 / dx);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"gravity\": [0, -9.8], \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": "
             "\"rectangle\", \"min\": [0.8, 0.5], \"max\": [1.2, 0.7], \"cells\": [%d, %d]}, \"material\": "
             "{\"model\": \"corotated\", \"E\": 1e6, \"nu\": 0.3, \"density\": 500}}]}", nb, hb);
    fem *f = fem_new(json, host);
    if (!f)
        exit(1);
    mac_grid g = {.dim = 2, .nx = (int)lround(2.0 / dx), .ny = (int)lround(1.2 / dx), .nz = 1, .dx = dx};
    size_t nc = mac_ncell(&g);
    r.cells = nc;
    double *phi = seam_xmalloc_n(nc, sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * dx - 0.6;
    double *u[3] = {SEAM_NEW_N(double, mac_nf(&g, 0)), SEAM_NEW_N(double, mac_nf(&g, 1)), NULL};
    double dt = 0.005;
    for (size_t q = 0; q < mac_nf(&g, 1); q++)
        u[1][q] = -9.8 * dt;
    double *X = seam_xmalloc_n(2 * f->n_iface, sizeof *X);
    for (size_t q = 0; q < f->n_iface; q++)
        memcpy(X + 2 * q, f->x + 2 * (size_t)f->iface_node[q], 2 * sizeof(double));
    mono_boundary b = {2, f->n_iface, X, f->n_iface_elems, f->iface_elems};
    double *times[5];
    for (int k = 0; k < 5; k++)
        times[k] = SEAM_NEW_N(double, (size_t)repeats);
    mono_solve_opts opts = {0.9, alpha_opt, 1e-10, 100000, precond};
    for (int rep = 0; rep < repeats; rep++) {
        mono_cut cut = {0};
        mono_fluid F = {0};
        mono_block blk = {0};
        double t0 = cpu_now();
        if (mono_cut_build(&cut, &g, &b, host) != SEAM_OK)
            exit(1);
        double t1 = cpu_now();
        if (mono_fluid_build(&F, &g, &cut, &b, phi, u, NULL, 1000.0, dt, host) != SEAM_OK)
            exit(1);
        double t2 = cpu_now();
        if (mono_fem_block(&blk, f, dt, opts.sigma, NULL, 0, f->n_iface, host) != SEAM_OK)
            exit(1);
        double t3 = cpu_now();
        double *p = SEAM_NEW_N(double, F.n + 1), *v = SEAM_NEW_N(double, blk.m + 1);
        mono_solve_stats st, st_kept;
        mono_kept kept = {0};
        if (mono_solve_kept(&kept, &F, &blk, 1, dt, &opts, p, v, &st, host) != SEAM_OK)
            exit(1);
        double t4 = cpu_now();
        if (mono_solve_kept(&kept, &F, &blk, 1, dt, &opts, p, v, &st_kept, host) != SEAM_OK)   /* pattern kept */
            exit(1);
        double t5 = cpu_now();
        mono_kept_free(&kept);
        times[0][rep] = t1 - t0;
        times[1][rep] = t2 - t1;
        times[2][rep] = t3 - t2;
        times[3][rep] = t4 - t3;
        times[4][rep] = t5 - t4;
        r.pressures = F.n;
        r.unknowns = blk.m;
        r.nnz = st.nnz;
        r.iterations = st.iterations;
        r.iterations_kept = st_kept.iterations;
        free(r.p);
        free(r.v);
        r.p = p;
        r.v = v;
        mono_block_free(&blk);
        mono_fluid_free(&F);
        mono_cut_free(&cut);
    }
    for (int k = 0; k < 5; k++) {
        qsort(times[k], (size_t)repeats, sizeof(double), cmp);
        r.t[k] = times[k][repeats / 2];
        free(times[k]);
    }
    free(X);
    free(u[0]);
    free(u[1]);
    free(phi);
    fem_destroy(&f);
    return r;
}

#ifdef BENCH_HYPRE
/* BoomerAMG-PCG on the first `size` rows and columns of A (all of it, or
 * the pressure block) with right-hand side c, to tol: iterations, setup and
 * solve CPU s. */
static void boomeramg(const seam_csr *A, const double *c, size_t size, double tol, int *iterations, double *setup_s,
                      double *solve_s)
{
    HYPRE_IJMatrix M;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, (HYPRE_BigInt)size - 1, 0, (HYPRE_BigInt)size - 1, &M);
    HYPRE_IJMatrixSetObjectType(M, HYPRE_PARCSR);
    HYPRE_IJMatrixInitialize(M);
    HYPRE_BigInt *cols = seam_xmalloc_n(size, sizeof *cols);
    double *vals = seam_xmalloc_n(size, sizeof *vals);
    for (size_t i = 0; i < size; i++) {
        HYPRE_Int nc = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if ((size_t)A->col[k] < size) {
                cols[nc] = (HYPRE_BigInt)A->col[k];
                vals[nc++] = A->val[k];
            }
        HYPRE_BigInt r = (HYPRE_BigInt)i;
        HYPRE_IJMatrixSetValues(M, 1, &nc, &r, cols, vals);
    }
    HYPRE_IJMatrixAssemble(M);
    HYPRE_ParCSRMatrix pM;
    HYPRE_IJMatrixGetObject(M, (void **)&pM);
    HYPRE_IJVector b, x;
    HYPRE_ParVector pb, px;
    double *zero = SEAM_NEW_N(double, size);
    for (size_t i = 0; i < size; i++)
        cols[i] = (HYPRE_BigInt)i;
    HYPRE_IJVector *v[2] = {&b, &x};
    const double *init[2] = {c, zero};
    for (int q = 0; q < 2; q++) {
        HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, (HYPRE_BigInt)size - 1, v[q]);
        HYPRE_IJVectorSetObjectType(*v[q], HYPRE_PARCSR);
        HYPRE_IJVectorInitialize(*v[q]);
        HYPRE_IJVectorSetValues(*v[q], (HYPRE_Int)size, cols, init[q]);
        HYPRE_IJVectorAssemble(*v[q]);
    }
    HYPRE_IJVectorGetObject(b, (void **)&pb);
    HYPRE_IJVectorGetObject(x, (void **)&px);
    HYPRE_Solver pcg, amg;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
    HYPRE_PCGSetTol(pcg, tol);
    HYPRE_PCGSetMaxIter(pcg, 100000);
    HYPRE_PCGSetTwoNorm(pcg, 1);   /* |r| / |b|, as seam_pcg */
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetRelaxType(amg, 6);   /* symmetric hybrid Gauss-Seidel: an SPD preconditioner */
    HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup,
                        amg);
    double t0 = cpu_now();
    HYPRE_ParCSRPCGSetup(pcg, pM, pb, px);
    double t1 = cpu_now();
    HYPRE_ParCSRPCGSolve(pcg, pM, pb, px);
    double t2 = cpu_now();
    HYPRE_Int it;
    HYPRE_PCGGetNumIterations(pcg, &it);
    *iterations = (int)it;
    *setup_s = t1 - t0;
    *solve_s = t2 - t1;
    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_ParCSRPCGDestroy(pcg);
    HYPRE_IJMatrixDestroy(M);
    HYPRE_IJVectorDestroy(b);
    HYPRE_IJVectorDestroy(x);
    free(zero);
    free(cols);
    free(vals);
}

/* Level k's SPD system through BoomerAMG-PCG, whole and its pressure block. */
static void hypre_rows(double dx, const seam_host *host)
{
    int nb = (int)lround(0.4 / dx), hb = (int)lround(0.2 / dx);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"gravity\": [0, -9.8], \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": "
             "\"rectangle\", \"min\": [0.8, 0.5], \"max\": [1.2, 0.7], \"cells\": [%d, %d]}, \"material\": "
             "{\"model\": \"corotated\", \"E\": 1e6, \"nu\": 0.3, \"density\": 500}}]}", nb, hb);
    fem *f = fem_new(json, host);
    if (!f)
        exit(1);
    mac_grid g = {.dim = 2, .nx = (int)lround(2.0 / dx), .ny = (int)lround(1.2 / dx), .nz = 1, .dx = dx};
    size_t nc = mac_ncell(&g);
    double *phi = seam_xmalloc_n(nc, sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * dx - 0.6;
    double *u[3] = {SEAM_NEW_N(double, mac_nf(&g, 0)), SEAM_NEW_N(double, mac_nf(&g, 1)), NULL};
    double dt = 0.005;
    for (size_t q = 0; q < mac_nf(&g, 1); q++)
        u[1][q] = -9.8 * dt;
    double *X = seam_xmalloc_n(2 * f->n_iface, sizeof *X);
    for (size_t q = 0; q < f->n_iface; q++)
        memcpy(X + 2 * q, f->x + 2 * (size_t)f->iface_node[q], 2 * sizeof(double));
    mono_boundary b = {2, f->n_iface, X, f->n_iface_elems, f->iface_elems};
    mono_solve_opts opts = {0.9, alpha_opt, 1e-10, 100000, MONO_PRECOND_MG};
    mono_cut cut = {0};
    mono_fluid F = {0};
    mono_block blk = {0};
    mono_spd spd;
    if (mono_cut_build(&cut, &g, &b, host) != SEAM_OK ||
        mono_fluid_build(&F, &g, &cut, &b, phi, u, NULL, 1000.0, dt, host) != SEAM_OK ||
        mono_fem_block(&blk, f, dt, opts.sigma, NULL, 0, f->n_iface, host) != SEAM_OK ||
        mono_spd_build(&spd, &F, &blk, 1, &opts, host) != SEAM_OK)
        exit(1);
    static const char *const what[2] = {"whole SPD system", "pressure block A_pp"};
    size_t sizes[2] = {spd.size, spd.n};
    for (int w = 0; w < 2; w++) {
        int it;
        double setup_s, solve_s;
        boomeramg(spd.A, spd.c, sizes[w], opts.tol, &it, &setup_s, &solve_s);
        printf("| %g | BoomerAMG (hypre), %s | %zu unknowns | %d iterations | setup %.4f s | solve %.4f s |\n", dx,
               what[w], sizes[w], it, setup_s, solve_s);
        printf("@row dx=%g amg=boomeramg block=%s unknowns=%zu pcg_it=%d setup_s=%.5f solve_s=%.5f\n", dx,
               w ? "pressure" : "whole", sizes[w], it, setup_s, solve_s);
    }
    mono_spd_free(&spd);
    mono_block_free(&blk);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
    free(X);
    free(u[0]);
    free(u[1]);
    free(phi);
    fem_destroy(&f);
}
#endif

/* max |x - y| / max |y| over n values. */
static double rel_diff(size_t n, const double *x, const double *y)
{
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return m > 0.0 ? d / m : d;
}

static double growth(double a, double z, double n0, double n1) { return log(z / a) / log(n1 / n0); }

/* The least-squares slope of log t[k] against log n[k] over the levels. */
static double fit(const double *n, const double *t, int levels)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    for (int k = 0; k < levels; k++) {
        double x = log(n[k]), y = log(t[k]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    return (levels * sxy - sx * sy) / (levels * sxx - sx * sx);
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 3;
    if (repeats < 1)
        repeats = 1;
    if (argc > 2)
        alpha_opt = atof(argv[2]);
    if (argc > 3)
        levels_opt = atoi(argv[3]) < 2 ? 2 : atoi(argv[3]) > 4 ? 4 : atoi(argv[3]);
    seam_host host = {.abi = SEAM_ABI_VERSION, .name = "bench", .log = quiet};
    static const double dxs[] = {0.05, 0.025, 0.0125, 0.00625};
    static const char *const names[N_PRECOND] = {"IC(0)", "multigrid", "direct", "AMG"};
    static const char *const keys[N_PRECOND] = {"ic0", "multigrid", "direct", "amg"};
    row rows[N_PRECOND][4];
    printf("monolithic projection, floating block at rest (2 x 1.2 m tank), row scaling %g%s, CPU s, median of %d\n",
           alpha_opt, alpha_opt > 0 ? "" : " (|c1|/|c2|)", repeats);
    printf("| dx | solver | cells | pressures | solid unknowns | nnz (SPD) | PCG iterations | cut | fluid block "
           "| solid block | solve | solve, analysis kept | solve per unknown (us) | p vs IC(0) | v vs IC(0) |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < levels_opt; k++)
        for (int q = 0; q < N_PRECOND; q++) {
            rows[q][k] = run(dxs[k], (mono_precond)q, repeats, &host);
            const row *r = &rows[q][k], *ref = &rows[0][k];
            size_t n = r->pressures + r->unknowns;
            double dp = rel_diff(r->pressures, r->p, ref->p), dv = rel_diff(r->unknowns, r->v, ref->v);
            printf("| %g | %s | %zu | %zu | %zu | %zu | %d | %.4f | %.4f | %.4f | %.4f | %.4f | %.2f | %.1e | %.1e |\n",
                   r->dx, names[q], r->cells, r->pressures, r->unknowns, r->nnz, r->iterations, r->t[0], r->t[1],
                   r->t[2], r->t[3], r->t[4], 1e6 * r->t[3] / (double)n, dp, dv);
            printf("@row dx=%g precond=%s row_scaling=%g repeats=%d cells=%zu pressures=%zu solid_unknowns=%zu nnz=%zu"
                   " pcg_it=%d pcg_it_kept=%d cut_s=%.5f fluid_block_s=%.5f solid_block_s=%.5f solve_s=%.5f"
                   " solve_kept_s=%.5f dp_ic0=%.2e dv_ic0=%.2e\n", r->dx, keys[q], alpha_opt, repeats, r->cells,
                   r->pressures, r->unknowns, r->nnz, r->iterations, r->iterations_kept, r->t[0], r->t[1], r->t[2],
                   r->t[3], r->t[4], dp, dv);
            fflush(stdout);
        }
    int L = levels_opt - 1;
    for (int q = 0; q < N_PRECOND; q++) {
        const row *a = &rows[q][0], *z = &rows[q][L];
        double n0 = (double)(a->pressures + a->unknowns), n3 = (double)(z->pressures + z->unknowns);
        printf("%s: growth with the unknowns n (%.0f -> %.0f): PCG iterations %d -> %d (n^%.2f), solve time n^%.2f "
               "(analysis kept n^%.2f), whole projection n^%.2f\n", names[q], n0, n3, a->iterations, z->iterations,
               growth(a->iterations, z->iterations, n0, n3), growth(a->t[3], z->t[3], n0, n3),
               growth(a->t[4], z->t[4], n0, n3),
               growth(a->t[0] + a->t[1] + a->t[2] + a->t[3], z->t[0] + z->t[1] + z->t[2] + z->t[3], n0, n3));
        double n[4], ts[4], tk[4];
        for (int k = 0; k < levels_opt; k++) {
            n[k] = (double)(rows[q][k].pressures + rows[q][k].unknowns);
            ts[k] = rows[q][k].t[3];
            tk[k] = rows[q][k].t[4];
        }
        printf("%s: least-squares fit over the %d levels: solve time n^%.2f (analysis kept n^%.2f)\n", names[q],
               levels_opt, fit(n, ts, levels_opt), fit(n, tk, levels_opt));
        printf("@row fit=%s levels=%d it_first=%d it_last=%d it_growth=%.3f solve_growth=%.3f solve_fit=%.3f"
               " solve_kept_fit=%.3f\n", keys[q], levels_opt, a->iterations, z->iterations,
               growth(a->iterations, z->iterations, n0, n3), growth(a->t[3], z->t[3], n0, n3),
               fit(n, ts, levels_opt), fit(n, tk, levels_opt));
    }
    for (int q = 0; q < N_PRECOND; q++)
        for (int k = 0; k < levels_opt; k++) {
            free(rows[q][k].p);
            free(rows[q][k].v);
        }
#ifdef BENCH_HYPRE
    MPI_Init(&argc, &argv);
    HYPRE_Init();
    printf("for comparison, hypre's BoomerAMG-PCG to the same tolerance (CPU s, one run):\n");
    for (int k = 0; k < levels_opt; k++)
        hypre_rows(dxs[k], &host);
    HYPRE_Finalize();
    MPI_Finalize();
#endif
    return 0;
}
