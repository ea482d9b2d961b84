/* The multigrid block preconditioners (geometric and algebraic: amg.c) and
 * the direct solve of the coupled system (system.c, mono_precond): on a tank
 * with an elastic block (solid_fem, corotated: a kept block) and a rigid box
 * (an eliminated block, G S^-1 G^T as a product) half submerged, PCG with
 * each reaches the solution IC(0)-PCG reaches; the multigrids' iterations
 * stay nearly flat from dx 0.05 to dx 0.0125 while IC(0)'s grow, and the
 * direct solve's stay within the rigid box's rank. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mono.h"
#include "test_host.h"

static const double dt = 0.005, rho_f = 1000.0, grav = -9.8;
static const double box0[2] = {1.2, 0.45}, box1[2] = {1.5, 0.75}, box_density = 250.0;

typedef struct outcome {
    int iterations[4];       /* per mono_precond */
    double dp[4], dv[4];     /* max |IC(0) - it| over max |IC(0)| per mono_precond: pressures, solid unknowns */
    size_t pressures;
} outcome;

/* The rigid box's block (5.32): unknowns (vx, vy, omega) about its centre,
 * S = M~/dt, r = M~ v~/dt with v~ = dt g, T from the unknowns to its
 * boundary nodes' velocities (nodes first .. first + nb - 1 of n_nodes). */
static void box_block(mono_block *blk, const double *x, size_t first, size_t nb, size_t n_nodes)
{
    double w = box1[0] - box0[0], h = box1[1] - box0[1], M = box_density * w * h, I = M * (w * w + h * h) / 12.0;
    double c[2] = {0.5 * (box0[0] + box1[0]), 0.5 * (box0[1] + box1[1])};
    memset(blk, 0, sizeof *blk);
    blk->m = 3;
    seam_triplets *t = seam_triplets_new(3, 3, 3);
    seam_triplets_add(t, 0, 0, M / dt);
    seam_triplets_add(t, 1, 1, M / dt);
    seam_triplets_add(t, 2, 2, I / dt);
    blk->S = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    blk->r = calloc(3, sizeof *blk->r);
    blk->r[1] = M * grav;
    t = seam_triplets_new(2 * n_nodes, 3, 4 * nb);
    for (size_t q = first; q < first + nb; q++) {
        seam_triplets_add(t, 2 * q, 0, 1.0);
        seam_triplets_add(t, 2 * q, 2, -(x[2 * q + 1] - c[1]));
        seam_triplets_add(t, 2 * q + 1, 1, 1.0);
        seam_triplets_add(t, 2 * q + 1, 2, x[2 * q] - c[0]);
    }
    blk->T = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
}

static double max_abs(size_t n, const double *x)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

static double max_diff(size_t n, const double *x, const double *y)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i] - y[i]));
    return m;
}

/* One coupled projection at cell size dx with each preconditioner. */
static outcome solve_both(double dx)
{
    test_host th;
    test_host_init(&th, "block", "solids[0]");
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"gravity\": [0, -9.8], \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": "
             "\"rectangle\", \"min\": [0.5, 0.5], \"max\": [0.9, 0.7], \"cells\": [%ld, %ld]}, \"material\": "
             "{\"model\": \"corotated\", \"E\": 1e6, \"nu\": 0.3, \"density\": 500}}]}",
             lround(0.4 / dx), lround(0.2 / dx));
    fem *f = fem_new(json, &th.host);
    assert_non_null(f);
    /* The boundary: the block's interface nodes, then the box's outline counter-clockwise. */
    size_t per_side = (size_t)lround(0.3 / dx), nr = 4 * per_side, nf = f->n_iface, nn = nf + nr;
    double *x = malloc(2 * nn * sizeof *x);
    int32_t *elem = malloc(2 * (f->n_iface_elems + nr) * sizeof *elem);
    for (size_t q = 0; q < nf; q++)
        memcpy(x + 2 * q, f->x + 2 * (size_t)f->iface_node[q], 2 * sizeof(double));
    memcpy(elem, f->iface_elems, 2 * f->n_iface_elems * sizeof *elem);
    const double corner[5][2] = {{box0[0], box0[1]}, {box1[0], box0[1]}, {box1[0], box1[1]}, {box0[0], box1[1]},
                                 {box0[0], box0[1]}};
    for (size_t s = 0; s < 4; s++)
        for (size_t k = 0; k < per_side; k++) {
            size_t q = nf + s * per_side + k, e = f->n_iface_elems + s * per_side + k;
            double a = (double)k / (double)per_side;
            for (int d = 0; d < 2; d++)
                x[2 * q + d] = (1.0 - a) * corner[s][d] + a * corner[s + 1][d];
            elem[2 * e] = (int32_t)q;
            elem[2 * e + 1] = (int32_t)(s * per_side + k + 1 == nr ? nf : q + 1);
        }
    mono_boundary b = {2, nn, x, f->n_iface_elems + nr, elem};
    /* A 2 x 1.2 m tank, water to 0.6 m, u* = dt g. */
    mac_grid g = {.dim = 2, .nx = (int)lround(2.0 / dx), .ny = (int)lround(1.2 / dx), .nz = 1, .dx = dx};
    size_t nc = mac_ncell(&g);
    double *phi = malloc(nc * sizeof *phi);
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++)
            phi[mac_c(&g, i, j, 0)] = (j + 0.5) * dx - 0.6;
    double *u[3] = {calloc(mac_nf(&g, 0), sizeof(double)), calloc(mac_nf(&g, 1), sizeof(double)), NULL};
    for (size_t q = 0; q < mac_nf(&g, 1); q++)
        u[1][q] = grav * dt;
    mono_cut cut = {0};
    mono_fluid F = {0};
    mono_block blk[2];
    assert_int_equal(mono_cut_build(&cut, &g, &b, &th.host), SEAM_OK);
    assert_int_equal(mono_fluid_build(&F, &g, &cut, &b, phi, u, NULL, rho_f, dt, &th.host), SEAM_OK);
    assert_int_equal(mono_fem_block(&blk[0], f, dt, 0.9, NULL, 0, nn, &th.host), SEAM_OK);
    box_block(&blk[1], x, nf, nr, nn);
    size_t m = blk[0].m + blk[1].m;
    double *p[4], *v[4];
    outcome o = {{0, 0, 0, 0}, {0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}, F.n};
    for (int k = 0; k < 4; k++) {
        p[k] = calloc(F.n, sizeof *p[k]);
        v[k] = calloc(m, sizeof *v[k]);
        mono_solve_opts opts = {0.9, 1e-3, 1e-12, 100000, (mono_precond)k};
        mono_solve_stats st;
        assert_int_equal(mono_solve(&F, blk, 2, dt, &opts, p[k], v[k], &st, &th.host), SEAM_OK);
        assert_true(st.residual <= 1e-12);
        o.iterations[k] = st.iterations;
    }
    for (int k = 1; k < 4; k++) {
        o.dp[k] = max_diff(F.n, p[0], p[k]) / max_abs(F.n, p[0]);
        o.dv[k] = max_diff(m, v[0], v[k]) / max_abs(m, v[0]);
    }
    /* The box, half submerged at half the density that floats it so, rises and the pressures are hydrostatic's order. */
    assert_true(v[0][blk[0].m + 1] > 0.0);
    assert_true(max_abs(F.n, p[0]) > 0.5 * rho_f * -grav * 0.6);
    for (int k = 0; k < 4; k++) {
        free(p[k]);
        free(v[k]);
    }
    mono_block_free(&blk[0]);
    mono_block_free(&blk[1]);
    mono_fluid_free(&F);
    mono_cut_free(&cut);
    free(u[0]);
    free(u[1]);
    free(phi);
    free(elem);
    free(x);
    fem_destroy(&f);
    return o;
}

static void test_multigrid_against_ic0(void **state)
{
    (void)state;
    static const double dx[3] = {0.05, 0.025, 0.0125};
    outcome o[3];
    for (int r = 0; r < 3; r++) {
        o[r] = solve_both(dx[r]);
        printf("dx %g: %zu pressures, iterations IC(0) %d, multigrid %d, direct %d, AMG %d; differences from IC(0): "
               "multigrid p %.2e, v %.2e, direct p %.2e, v %.2e, AMG p %.2e, v %.2e\n", dx[r], o[r].pressures,
               o[r].iterations[0], o[r].iterations[1], o[r].iterations[2], o[r].iterations[3], o[r].dp[1], o[r].dv[1],
               o[r].dp[2], o[r].dv[2], o[r].dp[3], o[r].dv[3]);
        /* All solve A y = c to 1e-12: their solutions agree to about cond(A) 1e-12. */
        for (int k = 1; k < 4; k++) {
            assert_true(o[r].dp[k] < 1e-8);
            assert_true(o[r].dv[k] < 1e-8);
        }
        /* The direct solve leaves PCG the box's G S^-1 G^T (rank 3) and a refinement step. */
        assert_true(o[r].iterations[2] >= 1 && o[r].iterations[2] <= 5);
    }
    /* Sixteen times the unknowns: the geometric multigrid's iterations stay
     * within a few of each other, the algebraic one's within one, IC(0)'s
     * grow about as n^0.5 or worse in 2D. */
    assert_true(o[2].iterations[1] <= o[0].iterations[1] + 6);
    assert_true(o[2].iterations[1] <= 40);
    assert_true(o[2].iterations[3] <= o[0].iterations[3] + 1);
    assert_true(o[2].iterations[3] <= 25);
    assert_true(o[2].iterations[0] > 4 * o[2].iterations[3]);
}

/* Without the fluid block's grid (a hand-made F) the multigrid preconditioner refuses by name. */
static void test_multigrid_needs_grid(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "monolithic", NULL);
    seam_triplets *t = seam_triplets_new(2, 2, 4);
    seam_triplets_add(t, 0, 0, 2.0);
    seam_triplets_add(t, 0, 1, -1.0);
    seam_triplets_add(t, 1, 0, -1.0);
    seam_triplets_add(t, 1, 1, 2.0);
    mono_fluid F = {0};
    F.n = 2;
    F.B = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    t = seam_triplets_new(2, 0, 1);
    F.G = seam_csr_from_triplets(t);
    seam_triplets_destroy(&t);
    double Eu[2] = {1.0, 0.5}, p[2];
    F.Eu = Eu;
    mono_solve_opts opts = {0.9, 1e-3, 1e-12, 100, MONO_PRECOND_MG};
    assert_int_equal(mono_solve(&F, NULL, 0, dt, &opts, p, NULL, NULL, &th.host), SEAM_ERROR);
    assert_true(test_host_saw(&th, "multigrid preconditioner needs the fluid block's grid"));
    opts.precond = MONO_PRECOND_IC0;
    assert_int_equal(mono_solve(&F, NULL, 0, dt, &opts, p, NULL, NULL, &th.host), SEAM_OK);
    assert_float_equal(p[0], 2.5 / 3.0, 1e-10);
    F.Eu = NULL;
    mono_fluid_free(&F);
}

/* The elastic block of solve_both (0.4 x 0.2 m, corotated, meshed cx x cy)
 * alone in the tank at dx 0.05 and step h: its fluid block and solid block. */
typedef struct tank {
    test_host th;
    fem *f;
    mac_grid g;
    double *phi, *u[3];
    mono_cut cut;
    mono_fluid F;
    mono_block blk;
} tank;

static void tank_build(tank *T, int cx, int cy, double h)
{
    memset(T, 0, sizeof *T);
    test_host_init(&T->th, "block", "solids[0]");
    char json[1024];
    snprintf(json, sizeof json,
             "{\"dim\": 2, \"gravity\": [0, -9.8], \"bodies\": [{\"name\": \"block\", \"mesh\": {\"generate\": "
             "\"rectangle\", \"min\": [0.5, 0.5], \"max\": [0.9, 0.7], \"cells\": [%d, %d]}, \"material\": "
             "{\"model\": \"corotated\", \"E\": 1e6, \"nu\": 0.3, \"density\": 500}}]}",
             cx, cy);
    T->f = fem_new(json, &T->th.host);
    assert_non_null(T->f);
    fem *f = T->f;
    double *x = malloc(2 * f->n_iface * sizeof *x);
    for (size_t q = 0; q < f->n_iface; q++)
        memcpy(x + 2 * q, f->x + 2 * (size_t)f->iface_node[q], 2 * sizeof(double));
    mono_boundary b = {2, f->n_iface, x, f->n_iface_elems, f->iface_elems};
    double dx = 0.05;
    T->g = (mac_grid){.dim = 2, .nx = 40, .ny = 24, .nz = 1, .dx = dx};
    size_t nc = mac_ncell(&T->g);
    T->phi = malloc(nc * sizeof *T->phi);
    for (int j = 0; j < T->g.ny; j++)
        for (int i = 0; i < T->g.nx; i++)
            T->phi[mac_c(&T->g, i, j, 0)] = (j + 0.5) * dx - 0.6;
    T->u[0] = calloc(mac_nf(&T->g, 0), sizeof(double));
    T->u[1] = calloc(mac_nf(&T->g, 1), sizeof(double));
    for (size_t q = 0; q < mac_nf(&T->g, 1); q++)
        T->u[1][q] = grav * h;
    assert_int_equal(mono_cut_build(&T->cut, &T->g, &b, &T->th.host), SEAM_OK);
    assert_int_equal(mono_fluid_build(&T->F, &T->g, &T->cut, &b, T->phi, T->u, NULL, rho_f, h, &T->th.host), SEAM_OK);
    assert_int_equal(mono_fem_block(&T->blk, f, h, 0.9, NULL, 0, f->n_iface, &T->th.host), SEAM_OK);
    free(x);
}

static void tank_free(tank *T)
{
    mono_block_free(&T->blk);
    mono_fluid_free(&T->F);
    mono_cut_free(&T->cut);
    free(T->u[0]);
    free(T->u[1]);
    free(T->phi);
    fem_destroy(&T->f);
}

/* The multigrid preconditioner keeps CHOLMOD's analysis of the solid block
 * A_ss between solves (mono_kept): a solve whose A_ss has the pattern of the
 * one before analyses nothing, one with another pattern analyses it, and
 * every solve gives, bit for bit, what a solve with a fresh analysis gives
 * (same pattern, same ordering, same factor; the numeric factor redone for
 * the new values). Meshed 8 x 4 or 4 x 8 the block has the same unknowns and
 * nonzeros but its nodes, and so A_ss's pattern, differ. A block made
 * negative definite (S and Z1 negated: A_ss = -A_ss) has no factor:
 * SEAM_UNSTABLE, and the kept analysis serves the next solve. */
static void test_solid_block_analysed_once(void **state)
{
    (void)state;
    static const struct {
        int cx, cy;
        double h;
        int indefinite;
        size_t analyses;
    } run[] = {
        {8, 4, 0.005, 0, 1}, {8, 4, 0.004, 0, 0}, {8, 4, 0.005, 1, 0}, {8, 4, 0.005, 0, 0},
        {4, 8, 0.005, 0, 1}, {4, 8, 0.003, 0, 0}, {8, 4, 0.005, 0, 1},
    };
    mono_kept kept = {0};
    mono_solve_opts opts = {0.9, 1e-3, 1e-12, 100000, MONO_PRECOND_MG};
    size_t m0 = 0, nnz0 = 0;
    for (size_t k = 0; k < sizeof run / sizeof run[0]; k++) {
        tank T;
        tank_build(&T, run[k].cx, run[k].cy, run[k].h);
        size_t n = T.F.n, m = T.blk.m;
        if (k == 0) {
            m0 = m;
            nnz0 = T.blk.S->nnz;
        }
        assert_int_equal(m, m0);                 /* 45 nodes, 2 unknowns each, either mesh */
        assert_int_equal(T.blk.S->nnz, nnz0);    /* as many edges either way: A_ss's size and nonzeros agree */
        double *p = calloc(n, sizeof *p), *v = calloc(m, sizeof *v);
        double *p1 = calloc(n, sizeof *p1), *v1 = calloc(m, sizeof *v1);
        mono_solve_stats st = {0}, st1 = {0};
        if (run[k].indefinite) {
            for (size_t i = 0; i < T.blk.S->nnz; i++)
                T.blk.S->val[i] = -T.blk.S->val[i];
            for (size_t i = 0; i < m; i++)
                T.blk.Zdiag[i] = -T.blk.Zdiag[i];
            assert_int_equal(mono_solve_kept(&kept, &T.F, &T.blk, 1, run[k].h, &opts, p, v, &st, &T.th.host),
                             SEAM_UNSTABLE);
            assert_true(test_host_saw(&T.th, "has no Cholesky factor (not positive definite"));
        } else {
            assert_int_equal(mono_solve_kept(&kept, &T.F, &T.blk, 1, run[k].h, &opts, p, v, &st, &T.th.host),
                             SEAM_OK);
            assert_int_equal(mono_solve(&T.F, &T.blk, 1, run[k].h, &opts, p1, v1, &st1, &T.th.host), SEAM_OK);
            assert_int_equal(st1.analyses, 1);   /* a fresh solve analyses */
            assert_int_equal(st.iterations, st1.iterations);
            assert_memory_equal(p, p1, n * sizeof *p);
            assert_memory_equal(v, v1, m * sizeof *v);
            assert_true(v[1] != 0.0 && max_abs(n, p) > 0.5 * rho_f * -grav * 0.5);   /* a solve, hydrostatic's order */
        }
        printf("solve %zu: mesh %d x %d, dt %g%s: %zu analyses, %d iterations\n", k, run[k].cx, run[k].cy, run[k].h,
               run[k].indefinite ? ", negative definite" : "", st.analyses, st.iterations);
        assert_int_equal(st.analyses, run[k].analyses);
        assert_int_equal(seam_cholesky_analyses(kept.chol), 3 - (k < 4) - (k < 6));
        free(p);
        free(v);
        free(p1);
        free(v1);
        tank_free(&T);
    }
    mono_kept_free(&kept);
    assert_null(kept.chol);
}

/* The direct solve keeps CHOLMOD's analysis of the whole A (mono_kept's
 * chol_A) while A's pattern holds, as the multigrid preconditioner keeps
 * A_ss's: bit for bit what a fresh analysis gives; the block meshed 4 x 8
 * changes A's pattern and is analysed; a negative definite solid block
 * leaves A without a factor: SEAM_UNSTABLE by name. */
static void test_direct_analysed_once(void **state)
{
    (void)state;
    static const struct {
        int cx, cy;
        double h;
        int indefinite;
        size_t analyses;
    } run[] = {{8, 4, 0.005, 0, 1}, {8, 4, 0.004, 0, 0}, {8, 4, 0.005, 1, 0}, {4, 8, 0.005, 0, 1}};
    mono_kept kept = {0};
    mono_solve_opts opts = {0.9, 1e-3, 1e-12, 100000, MONO_PRECOND_DIRECT};
    for (size_t k = 0; k < sizeof run / sizeof run[0]; k++) {
        tank T;
        tank_build(&T, run[k].cx, run[k].cy, run[k].h);
        size_t n = T.F.n, m = T.blk.m;
        double *p = calloc(n, sizeof *p), *v = calloc(m, sizeof *v);
        double *p1 = calloc(n, sizeof *p1), *v1 = calloc(m, sizeof *v1);
        mono_solve_stats st = {0}, st1 = {0};
        if (run[k].indefinite) {
            for (size_t i = 0; i < T.blk.S->nnz; i++)
                T.blk.S->val[i] = -T.blk.S->val[i];
            for (size_t i = 0; i < m; i++)
                T.blk.Zdiag[i] = -T.blk.Zdiag[i];
            assert_int_equal(mono_solve_kept(&kept, &T.F, &T.blk, 1, run[k].h, &opts, p, v, &st, &T.th.host),
                             SEAM_UNSTABLE);
            assert_true(test_host_saw(&T.th, "coupled SPD system"));
            assert_true(test_host_saw(&T.th, "has no Cholesky factor (not positive definite"));
        } else {
            assert_int_equal(mono_solve_kept(&kept, &T.F, &T.blk, 1, run[k].h, &opts, p, v, &st, &T.th.host),
                             SEAM_OK);
            assert_int_equal(mono_solve(&T.F, &T.blk, 1, run[k].h, &opts, p1, v1, &st1, &T.th.host), SEAM_OK);
            assert_int_equal(st1.analyses, 1);
            assert_true(st.iterations >= 1 && st.iterations <= 2);   /* no rigid body: the factor solves A */
            assert_true(st.residual <= 1e-12);
            assert_memory_equal(p, p1, n * sizeof *p);
            assert_memory_equal(v, v1, m * sizeof *v);
            assert_true(v[1] != 0.0 && max_abs(n, p) > 0.5 * rho_f * -grav * 0.5);
        }
        printf("direct solve %zu: mesh %d x %d, dt %g%s: %zu analyses, %d iterations\n", k, run[k].cx, run[k].cy,
               run[k].h, run[k].indefinite ? ", negative definite" : "", st.analyses, st.iterations);
        assert_int_equal(st.analyses, run[k].analyses);
        free(p);
        free(v);
        free(p1);
        free(v1);
        tank_free(&T);
    }
    assert_int_equal(seam_cholesky_analyses(kept.chol_A), 2);
    assert_null(kept.chol);   /* the direct solve factors A alone */
    mono_kept_free(&kept);
    assert_null(kept.chol_A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multigrid_against_ic0),
        cmocka_unit_test(test_multigrid_needs_grid),
        cmocka_unit_test(test_solid_block_analysed_once),
        cmocka_unit_test(test_direct_analysed_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
