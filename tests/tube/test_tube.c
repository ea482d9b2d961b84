/* The 1D flexible tube (examples/plugins/tube.h).
 *  - The fluid's sweep solves the discrete continuity and momentum equations
 *    exactly, and conserves volume: sum dx da/dt = Q_in - Q_out.
 *  - Uniform flow at the reference pressure is a steady state.
 *  - Rigid limit (c >> L/T): the column accelerates as one body, so the
 *    discrete momentum equations sum to p_0 - p_out = rho (L - dx/2) du_in/dt.
 *  - Every implicit scheme, converged tightly, reproduces the monolithic
 *    Newton solution of the same discretization at every step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* cmocka's assert_float_equal compares floats; these are doubles. */
#define assert_close(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#include "seam/config.h"
#include "test_scene.h"
#include "tube.h"

static tube_params params(size_t N, double c)
{
    return (tube_params){.N = N, .L = 10.0, .rho = 1000.0, .u0 = 0.1, .amplitude = 0.1, .period = 10.0,
                         .p_out = 0.0, .a0 = 1.0, .c = c, .p0 = 0.0};
}

/* Both outlets: the fixed pressure, and the non-reflecting one (eq. 15) from
 * a committed outlet pressure pL_n of 300 Pa; both inflows. */
static void test_fluid_sweep_solves_the_equations(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        tube_params tp = params(40, 10.0);
        tp.non_reflecting = tp.sine = variant;
        size_t N = tp.N;
        double a_n[40], a[40], u_n[41], u[41], p[40], Rc[40], Rm[40], pL, pL_n = variant ? 300.0 : 0.0;
        for (size_t j = 0; j < N; j++) {
            a_n[j] = 1.0 + 1e-3 * sin(0.3 * (double)j);
            a[j] = a_n[j] + 2e-4 * cos(0.7 * (double)j);
        }
        for (size_t f = 0; f <= N; f++)
            u_n[f] = 0.1 + 0.01 * sin(0.2 * (double)f);
        double dt = 0.5, t_new = 3.0;
        size_t bad;
        assert_int_equal(tube_fluid_solve(&tp, t_new, dt, a_n, u_n, pL_n, a, u, p, &pL, &bad), 0);
        tube_residual(&tp, t_new, dt, a_n, u_n, pL_n, a, u, p, Rc, Rm);
        double dx = tp.L / (double)N, storage = 0.0;
        for (size_t j = 0; j < N; j++) {
            assert_true(fabs(Rc[j]) < 1e-15);
            assert_true(fabs(Rm[j]) < 1e-13);
            storage += dx * (a[j] - a_n[j]) / dt;
        }
        /* volume balance over the tube: inflow - outflow = storage in the walls */
        assert_close(storage, a[0] * tube_inflow(&tp, t_new) - a[N - 1] * u[N], 1e-14);
        if (variant) {   /* eq. 15 by hand */
            double w = sqrt(tp.c * tp.c - pL_n / (2.0 * tp.rho)) - 0.25 * (u[N] - u_n[N]);
            assert_close(pL, 2.0 * tp.rho * (tp.c * tp.c - w * w), 1e-9);
            assert_true(fabs(pL - pL_n) > 1.0);
        } else
            assert_true(pL == tp.p_out);
        /* A collapsed cell is refused with its face. */
        a[7] = -2.0;
        assert_int_equal(tube_fluid_solve(&tp, t_new, dt, a_n, u_n, pL_n, a, u, p, &pL, &bad), -1);
        assert_int_equal(bad, 7);
    }
}

static void test_wall_law(void **state)
{
    (void)state;
    tube_params tp = params(4, 5.0);
    assert_close(tube_wall_area(&tp, tp.p0), tp.a0, 1e-15);
    /* small-amplitude wave speed: c^2 = a / (rho da/dp) */
    double h = 1e-2, dadp = (tube_wall_area(&tp, h) - tube_wall_area(&tp, -h)) / (2 * h);
    assert_close(tp.a0 / (tp.rho * dadp), tp.c * tp.c, 1e-6);
    assert_true(isnan(tube_wall_area(&tp, 2.0 * tp.rho * tp.c * tp.c)));
}

static void test_monolithic_steady_state(void **state)
{
    (void)state;
    tube_params tp = params(30, 10.0);
    tp.amplitude = 0.0;
    tube_mono *m = tube_mono_new(&tp, 1e-12, 30);
    for (int s = 0; s < 5; s++) {
        assert_true(tube_mono_step(m, s * 1.0, 1.0) >= 1);
        tube_mono_commit(m);
    }
    for (size_t j = 0; j < tp.N; j++) {
        assert_true(fabs(tube_mono_p(m)[j] - tp.p_out) < 1e-9);
        assert_true(fabs(tube_mono_a(m)[j] - tp.a0) < 1e-12);
        assert_true(fabs(tube_mono_u(m)[j + 1] - tp.u0) < 1e-12);
    }
    tube_mono_destroy(&m);
}

/* preCICE's discretization (collocated, Newton). Rigid walls (a = a^n = 1):
 * continuity makes u uniform, the inflow's, and momentum a pressure falling
 * linearly by rho du/dt, so p_0 - p_N = rho L du/dt exactly, with either
 * outlet. Flexible walls: the node fluxes Phi_{i+1/2} = (a_i + a_{i+1})
 * (u_i + u_{i+1})/4 balance the volume stored between nodes 1 and N-1. */
static void test_collocated_fluid(void **state)
{
    (void)state;
    enum { NN = 50 };
    tube_params tp = {.N = NN, .L = 10.0, .rho = 1.0, .u0 = 10.0, .amplitude = 0.3, .period = 0.2, .p_out = 0.0,
                      .a0 = 1.0, .c = 94.0, .sine = 1, .collocated = 1};
    double a_n[NN + 1], a[NN + 1], u_n[NN + 1], p_n[NN + 1], u[NN + 1], p[NN + 1], R[2 * NN + 2];
    double dt = 0.01, t_new = 0.03, dx = tp.L / NN;
    for (int outlet = 0; outlet < 2; outlet++) {
        tp.non_reflecting = outlet;
        for (size_t i = 0; i <= NN; i++) {
            a_n[i] = a[i] = 1.0;
            u_n[i] = tube_inflow(&tp, t_new - dt);
            p_n[i] = 50.0 * (1.0 - (double)i / NN);
        }
        int it = tube_colloc_solve(&tp, t_new, dt, a_n, u_n, p_n, a, u, p, 1e-13, 30);
        assert_true(it >= 1 && it <= 5);
        double dudt = (tube_inflow(&tp, t_new) - u_n[0]) / dt, peak = fabs(tp.rho * tp.L * dudt);
        assert_true(peak > 100.0);
        for (size_t i = 0; i <= NN; i++) {
            assert_close(u[i], tube_inflow(&tp, t_new), 1e-12);
            assert_close(p[i] - p[NN], tp.rho * (tp.L - (double)i * dx) * dudt, 1e-9 * peak);
        }
        double pN = outlet ? tube_outlet_pressure(&tp, p_n[NN], u[NN], u_n[NN]) : 0.0;
        assert_close(p[NN], pN, 1e-9 * peak);
    }
    /* flexible: a given wall motion */
    for (size_t i = 0; i <= NN; i++) {
        a_n[i] = 1.0 + 1e-3 * sin(0.3 * (double)i);
        a[i] = a_n[i] + 2e-4 * cos(0.7 * (double)i);
        u_n[i] = 10.0 + 0.1 * sin(0.2 * (double)i);
        p_n[i] = 20.0 * cos(0.1 * (double)i);
    }
    assert_true(tube_colloc_solve(&tp, t_new, dt, a_n, u_n, p_n, a, u, p, 1e-13, 30) >= 1);
    tube_colloc_residual(&tp, t_new, dt, a_n, u_n, p_n, a, u, p, R);
    for (size_t r = 0; r < 2 * NN + 2; r++)
        assert_true(fabs(R[r]) < 1e-9);
    double stored = 0.0;
    for (size_t i = 1; i < NN; i++)
        stored += dx * (a[i] - a_n[i]) / dt;
    double in = 0.25 * (a[0] + a[1]) * (u[0] + u[1]), out = 0.25 * (a[NN - 1] + a[NN]) * (u[NN - 1] + u[NN]);
    assert_close(stored, in - out, 1e-10 * fabs(in));
}

static void test_rigid_limit_column_inertia(void **state)
{
    (void)state;
    tube_params tp = params(50, 1000.0);   /* L / (c T) = 1e-3 */
    double dt = 0.05, dx = tp.L / (double)tp.N;
    tube_mono *m = tube_mono_new(&tp, 1e-13, 30);
    double worst = 0.0, peak = 0.0;
    for (int s = 0; s < 100; s++) {
        double t = s * dt;
        assert_true(tube_mono_step(m, t, dt) >= 1);
        tube_mono_commit(m);
        double rigid = tp.rho * (tp.L - 0.5 * dx) * (tube_inflow(&tp, t + dt) - tube_inflow(&tp, t)) / dt;
        worst = fmax(worst, fabs(tube_mono_p(m)[0] - tp.p_out - rigid));
        peak = fmax(peak, fabs(rigid));
    }
    assert_true(peak > 1.0);              /* rho L u0 A pi / T ~ 3 Pa */
    assert_true(worst < 1e-3 * peak);
    tube_mono_destroy(&m);
}

/* Largest deviation of the inlet pressure from Joukowsky's p' = rho c u'
 * over t in [t0, t1], and its peak, for a tube of `cells` cells at kappa =
 * 100 with a period of 0.5 s (wavelength c T = 5 m), dt = dx / c. */
static double joukowsky_deviation(size_t cells, int non_reflecting, double t0, double t1, double *peak)
{
    tube_params tp = params(cells, 10.0);
    tp.period = 0.5;
    tp.non_reflecting = non_reflecting;
    double dx = tp.L / (double)tp.N, dt = dx / tp.c;
    tube_mono *m = tube_mono_new(&tp, 1e-12, 30);
    double worst = 0.0;
    *peak = 0.0;
    for (int s = 0; (s + 1) * dt < t1; s++) {
        double t = (s + 1) * dt;
        assert_true(tube_mono_step(m, t - dt, dt) >= 1);
        tube_mono_commit(m);
        double du = tube_inflow(&tp, t - 0.5 * dx / tp.c) - tp.u0;   /* at the first cell centre */
        double expected = tp.rho * tp.c * du;
        if (t >= t0)
            worst = fmax(worst, fabs(tube_mono_p(m)[0] - tp.p_out - expected));
        *peak = fmax(*peak, expected);
    }
    tube_mono_destroy(&m);
    return worst;
}

/* Flexible tube, linear acoustics: before the outlet's reflection returns
 * (t < 2L/c), the wave leaving the inlet is a simple right-running wave, so
 * the pressure follows the inflow by Joukowsky's relation p' = rho c u'
 * (the mean flow changes this by O(u0/c) = 1 % at kappa = 100). */
static void test_joukowsky_wave(void **state)
{
    (void)state;
    double peak, worst = joukowsky_deviation(400, 0, 0.0, 1.6, &peak);
    print_message("Joukowsky: peak %.4g Pa, largest deviation %.3g Pa\n", peak, worst);
    assert_true(peak > 90.0);            /* rho c u0 A = 100 Pa */
    assert_true(worst < 0.005 * peak);
}

/* The non-reflecting outlet (Degroote et al. 2008, eq. 15): after the first
 * wave's reflection would have returned (2L/c = 2 s) the inlet still sees
 * Joukowsky's pressure; the fixed-pressure outlet sends the wave back. */
static void test_non_reflecting_outlet(void **state)
{
    (void)state;
    double peak, fixed = joukowsky_deviation(200, 0, 2.2, 3.2, &peak);
    double open = joukowsky_deviation(200, 1, 2.2, 3.2, &peak);
    print_message("after 2L/c: deviation from Joukowsky %.3g Pa (non-reflecting), %.3g Pa (fixed), peak %.4g Pa\n",
                  open, fixed, peak);
    assert_true(fixed > 0.5 * peak);
    assert_true(open < 0.02 * peak);
}

/* ---- partitioned against monolithic -------------------------------------- */

enum { NCELLS = 40, NSTEPS = 12 };

static test_run *run_tube(const char *name, const char *scheme, const char *extra, double c, double dt)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "{\"time\": {\"end\": %.17g, \"dt\": %.17g},\n"
             " \"coupling\": {\"scheme\": \"%s\", \"tolerance\": 1e-15, \"max_iterations\": 3000,\n"
             "              \"on_nonconvergence\": \"fail\"%s},\n"
             " \"fluid\": {\"plugin\": \"tube_fluid\", \"cells\": %d, \"pulse_period\": 5},\n"
             " \"solids\": [{\"name\": \"wall\", \"plugin\": \"tube_solid\", \"cells\": %d, \"wave_speed\": %.17g}],\n"
             " \"output\": {\"interface\": true, \"frames\": false}}\n",
             NSTEPS * dt, dt, scheme, extra, NCELLS, NCELLS, c);
    return test_run_scene(name, scene, NULL, NULL);
}

/* Largest |a - a_ref| over all cells and steps, relative to the largest |a_ref - a0|. */
static double deviation_from_monolithic(const test_run *r, double c, double dt, double *variation)
{
    tube_params tp = params(NCELLS, c);
    tp.period = 5.0;
    tube_mono *m = tube_mono_new(&tp, 1e-14, 50);
    double worst = 0.0, var = 0.0;
    assert_int_equal(r->rows, NSTEPS + 1);
    for (size_t s = 1; s <= NSTEPS; s++) {
        assert_true(tube_mono_step(m, (double)(s - 1) * dt, dt) >= 1);
        tube_mono_commit(m);
        for (size_t j = 0; j < NCELLS; j++) {
            worst = fmax(worst, fabs(r->X[s * r->n + j] - tube_mono_a(m)[j]));
            var = fmax(var, fabs(tube_mono_a(m)[j] - tp.a0));
        }
    }
    tube_mono_destroy(&m);
    *variation = var;
    return worst / var;
}

/* kappa = c/u0, tau = u0 dt/L = 0.01 */
static void schemes_match_monolithic(double c)
{
    const double dt = 1.0;
    struct { const char *scheme, *extra; } cases[] = {
        {"relaxation", ", \"relaxation\": 0.02"},
        {"aitken", ", \"relaxation\": 0.02"},
        {"iqn-ils", ""},
        {"iqn-ils", ", \"reuse\": 4"},
        {"rmi", ""},
        {"rmi", ", \"reuse\": 4"},
        {"rmi", ", \"rmi_solver\": \"gmres\""},
        {"iqn-imvj", ""},
        {"iqn-imvj", ", \"restart\": \"none\", \"reuse\": 2"},
    };
    double mean[9];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "tube_%g_%zu", c, i);
        test_run *r = run_tube(name, cases[i].scheme, cases[i].extra, c, dt);
        if (r->status != SEAM_OK)
            fail_msg("%s%s: %s", cases[i].scheme, cases[i].extra, r->log);
        double variation, dev = deviation_from_monolithic(r, c, dt, &variation);
        assert_true(variation > 1e-6);
        if (!(dev < 1e-6))
            fail_msg("%s%s deviates from the monolithic solution by %g (relative)", cases[i].scheme, cases[i].extra, dev);
        mean[i] = (double)r->summary.iterations / (double)r->summary.steps;
        print_message("kappa %4g %-10s%-26s mean %6.2f max %4d iterations, deviation %.2e of variation %.2e\n", c / 0.1, cases[i].scheme,
                      cases[i].extra, mean[i], r->summary.max_iterations, dev, variation);
        test_run_free(r);
    }
    /* The quasi-Newton schemes need several times fewer iterations than relaxation. */
    for (size_t i = 2; i < 9; i++)
        assert_true(mean[i] * 3.0 < mean[0]);
    assert_true(mean[1] < mean[0]);
    /* Columns of past steps carry the Jacobian over: fewer iterations. */
    assert_true(mean[3] < mean[2]);
    /* rmi's reduced Jacobians already converge in about 7 iterations at kappa
     * 100, where reuse gains nothing measurable and the counts differ by
     * OpenBLAS's kernels (6.67 to 6.92 against 6.83); at kappa 10 it must win. */
    if (c / 0.1 <= 10.0)
        assert_true(mean[5] < mean[4]);
    else
        assert_true(mean[5] <= 1.05 * mean[4]);
}

static void test_schemes_match_monolithic_kappa_100(void **state)
{
    (void)state;
    schemes_match_monolithic(10.0);
}

static void test_schemes_match_monolithic_kappa_10(void **state)
{
    (void)state;
    schemes_match_monolithic(1.0);
}

/* Mean iterations per window of preCICE's tube variant, first 30 windows. */
static double precice_tube_mean(const char *name, const char *const *sets)
{
    test_run *r = test_run_scene(name, NULL, "examples/tube_precice.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s", r->log);
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    size_t rows, cols;
    double *st = test_read_csv(path, 0, &rows, &cols);
    assert_non_null(st);
    assert_int_equal(rows, 30);
    double sum = 0.0;
    for (size_t k = 0; k < rows; k++)
        sum += st[k * cols + 3];   /* iterations */
    free(st);
    test_run_free(r);
    return sum / (double)rows;
}

/* Issue 14's goal on preCICE's tube variant, shortened to its first 30
 * windows (window 1, 19 or 20 iterations from relaxation 0.01, included):
 * iqn-ils reusing 8 windows with the quartic predictor and mixing 0.9 takes
 * 6.37 iterations per window, against 6.90 with the quadratic predictor and
 * no mixing (the full 100 windows: 5.75 against 6.19, docs/performance.md). */
static void test_precice_tube_quartic_mixing(void **state)
{
    (void)state;
    const char *best[] = {"time.end=0.3", "coupling.predictor=quartic", "coupling.mixing=0.9", NULL};
    const char *before[] = {"time.end=0.3", "coupling.predictor=quadratic", NULL};
    double m_best = precice_tube_mean("tube_precice_best", best);
    double m_before = precice_tube_mean("tube_precice_quadratic", before);
    print_message("preCICE's tube, 30 windows: %.2f iterations per window (quartic, mixing 0.9), %.2f (quadratic)\n",
                  m_best, m_before);
    assert_true(m_best <= 6.5);
    assert_true(m_best <= m_before - 0.3);
}

/* stats.csv per step: what the scheme keeps. preCICE's tube variant
 * (examples/tube_precice.json) for 12 steps: iqn-imvj restarts its carried
 * Jacobian every chunk = 4 steps (at the starts of steps 4 and 8, when the
 * fourth and eighth committed steps are folded in) and carries modes from
 * step 1 on; iqn-ils's filter removes columns, and its reuse keeps at most
 * max_columns = 50. Also: window 1 from relaxation 0.01 takes 20 iterations,
 * as preCICE 3.4.1's does. */
static void test_scheme_counts_in_stats(void **state)
{
    (void)state;
    enum { C_IT = 3, C_COLUMNS = 9, C_FILTERED = 10, C_MODES = 11, C_RESTARTS = 12 };
    const char *imvj[] = {"time.end=0.12", "coupling.scheme=iqn-imvj", "coupling.chunk=4", "coupling.reuse=0", NULL};
    const char *ils[] = {"time.end=0.12", NULL};
    for (int s = 0; s < 2; s++) {
        test_run *r = test_run_scene(s ? "tube_precice_ils" : "tube_precice_imvj", NULL, "examples/tube_precice.json",
                                     s ? ils : imvj);
        if (r->status != SEAM_OK)
            fail_msg("%s", r->log);
        char path[1200];
        snprintf(path, sizeof path, "%s/stats.csv", r->out);
        size_t rows, cols;
        double *st = test_read_csv(path, 0, &rows, &cols);
        assert_non_null(st);
        assert_int_equal(rows, 12);
        assert_int_equal(cols, 16);   /* through truncated, then the two measures' goals */
        assert_int_equal((int)st[C_IT], 20);
        double filtered = 0.0;
        for (size_t k = 0; k < rows; k++) {
            const double *row = st + k * cols;
            assert_true(row[C_COLUMNS] >= 1.0 && row[C_COLUMNS] <= 50.0);
            filtered += row[C_FILTERED];
            if (s == 0) {
                assert_int_equal((int)row[C_RESTARTS], k == 4 || k == 8 ? 1 : 0);
                assert_true(k == 0 ? row[C_MODES] == 0.0 : row[C_MODES] >= 1.0);
            } else
                assert_true(row[C_MODES] == 0.0 && row[C_RESTARTS] == 0.0);
        }
        print_message("%s: %g columns filtered in 12 steps\n", s ? "iqn-ils reuse 8" : "iqn-imvj rs-svd", filtered);
        if (s)
            assert_true(filtered >= 1.0);
        free(st);
        test_run_free(r);
    }
}

/* The fluid refuses a wall with another number of cells, naming the key. */
static void test_mismatched_cells_are_refused(void **state)
{
    (void)state;
    const char *scene =
        "{\"time\": {\"end\": 1, \"dt\": 1}, \"coupling\": {\"scheme\": \"iqn-ils\"},"
        " \"fluid\": {\"plugin\": \"tube_fluid\", \"cells\": 20},"
        " \"solids\": [{\"plugin\": \"tube_solid\", \"cells\": 21}]}";
    char log[16384];
    assert_true(test_scene_refused(scene, NULL, NULL, log, sizeof log));
    if (!strstr(log, "fluid.cells: cells = 20 needs an interface of 20 points of dimension 1"))
        fail_msg("%s", log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fluid_sweep_solves_the_equations),
        cmocka_unit_test(test_wall_law),
        cmocka_unit_test(test_monolithic_steady_state),
        cmocka_unit_test(test_rigid_limit_column_inertia),
        cmocka_unit_test(test_collocated_fluid),
        cmocka_unit_test(test_joukowsky_wave),
        cmocka_unit_test(test_non_reflecting_outlet),
        cmocka_unit_test(test_schemes_match_monolithic_kappa_100),
        cmocka_unit_test(test_schemes_match_monolithic_kappa_10),
        cmocka_unit_test(test_precice_tube_quartic_mixing),
        cmocka_unit_test(test_scheme_counts_in_stats),
        cmocka_unit_test(test_mismatched_cells_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
