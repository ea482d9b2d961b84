/* Every scheme against analytic maps, with no plugin loaded: the schemes
 * see only the ops table (fluid map, solid map, judge, warn), so two small
 * functions stand in for the solvers.
 *  - Linear: F = Jf (X - X^n) with Jf = -U diag(s) U^T of known rank k (an
 *    added-mass-like operator), X = X^n + c F + d. The fixed point solves
 *    (I - c Jf) (X - X^n) = d; the residual's Jacobian is -I plus rank k, so
 *    a secant scheme is exact after k + 1 columns.
 *  - Nonlinear: F = -a tanh(X - X^n) - b (X - X^n)^3, and a solid built
 *    around a chosen X*: X = X* + c (F - F(X*)), so X* is the fixed point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "convergence.h"
#include "scheme.h"
#include "test_host.h"

enum { N = 24, MAXK = 6 };

typedef struct {
    int nonlinear;
    size_t rank;
    double U[MAXK][N], s[MAXK];   /* Jf = -sum_i s_i u_i u_i^T */
    double c, d[N];               /* linear solid */
    double a, b, Xstar[N];        /* nonlinear maps */
    seam_convergence cv;
    int fluid_calls, solid_calls, warnings;
    int refuse_call;              /* > 0: the fluid refuses its call of this number (SEAM_UNSTABLE), once */
    double X_in[4][N];            /* the positions of the fluid's first four calls */
} maps;

static void linear_fluid(const maps *m, const double *X, const double *Xn, double *F)
{
    memset(F, 0, N * sizeof *F);
    for (size_t i = 0; i < m->rank; i++) {
        double dot = 0.0;
        for (size_t j = 0; j < N; j++)
            dot += m->U[i][j] * (X[j] - Xn[j]);
        for (size_t j = 0; j < N; j++)
            F[j] -= m->s[i] * dot * m->U[i][j];
    }
}

static void nonlinear_fluid(const maps *m, const double *X, const double *Xn, double *F)
{
    for (size_t j = 0; j < N; j++) {
        double u = X[j] - Xn[j];
        F[j] = -m->a * tanh(u) - m->b * u * u * u;
    }
}

static seam_status fluid(void *ctx, const seam_coupling *c, const double *X, double *F)
{
    maps *m = ctx;
    if (m->fluid_calls < 4)
        memcpy(m->X_in[m->fluid_calls], X, N * sizeof *X);
    m->fluid_calls++;
    if (m->fluid_calls == m->refuse_call)
        return SEAM_UNSTABLE;   /* as fluid_mac does for an interface that is no shape of the solid */
    (m->nonlinear ? nonlinear_fluid : linear_fluid)(m, X, c->Xn, F);
    return SEAM_OK;
}

static seam_status solid(void *ctx, const seam_coupling *c, const double *F, double *X)
{
    maps *m = ctx;
    m->solid_calls++;
    if (m->nonlinear) {
        double Fs[N];
        nonlinear_fluid(m, m->Xstar, c->Xn, Fs);
        for (size_t j = 0; j < N; j++)
            X[j] = m->Xstar[j] + m->c * (F[j] - Fs[j]);
    } else
        for (size_t j = 0; j < N; j++)
            X[j] = c->Xn[j] + m->c * F[j] + m->d[j];
    return SEAM_OK;
}

static seam_verdict judge(void *ctx, seam_coupling *c, const seam_iterate *it)
{
    maps *m = ctx;
    return seam_convergence_judge(&m->cv, c, it);
}

static void warn(void *ctx, const seam_coupling *c, const char *message)
{
    (void)c, (void)message;
    ((maps *)ctx)->warnings++;
}

static const seam_coupling_ops ops = {fluid, solid, judge, warn};

/* Orthonormal u_i from a fixed pseudo-random sequence (Gram-Schmidt). */
static void make_linear(maps *m, size_t rank, double s_scale, double c)
{
    memset(m, 0, sizeof *m);
    m->rank = rank;
    m->c = c;
    unsigned long seed = 12345;
    for (size_t i = 0; i < rank; i++) {
        for (size_t j = 0; j < N; j++) {
            seed = seed * 6364136223846793005ul + 1442695040888963407ul;
            m->U[i][j] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
        for (size_t p = 0; p < i; p++) {
            double dot = 0.0;
            for (size_t j = 0; j < N; j++)
                dot += m->U[i][j] * m->U[p][j];
            for (size_t j = 0; j < N; j++)
                m->U[i][j] -= dot * m->U[p][j];
        }
        double len = 0.0;
        for (size_t j = 0; j < N; j++)
            len += m->U[i][j] * m->U[i][j];
        for (size_t j = 0; j < N; j++)
            m->U[i][j] /= sqrt(len);
        m->s[i] = s_scale * (double)(i + 1);
    }
    for (size_t j = 0; j < N; j++)
        m->d[j] = 1e-3 * sin((double)j);
}

/* The fixed point of the linear maps: Delta = (I - c Jf)^{-1} d by
 * Sherman-Morrison per direction (the u_i are orthonormal). */
static void linear_solution(const maps *m, const double *Xn, double *X)
{
    for (size_t j = 0; j < N; j++)
        X[j] = Xn[j] + m->d[j];
    for (size_t i = 0; i < m->rank; i++) {
        double dot = 0.0;
        for (size_t j = 0; j < N; j++)
            dot += m->U[i][j] * m->d[j];
        double f = 1.0 / (1.0 + m->c * m->s[i]) - 1.0;   /* along u_i the factor is 1/(1 + c s_i) */
        for (size_t j = 0; j < N; j++)
            X[j] += f * dot * m->U[i][j];
    }
}

typedef struct {
    seam_verdict verdict;
    int iterations;
    double error;            /* largest |X - X*| */
    double residual;         /* the last position residual judged */
} outcome;

static bool count_thesis;    /* coupling.count "thesis" for the next run_scheme */

static outcome run_scheme(maps *m, const char *scheme_name, const char *config, int max_iterations,
                          const double *Xexact)
{
    const seam_scheme_ops *sc = seam_scheme_find(scheme_name);
    assert_non_null(sc);
    test_host th;
    test_host_init(&th, "coupling", "coupling");
    seam_cfg *cfg = seam_cfg_from_host(config, &th.host);
    assert_non_null(cfg);
    void *self = sc->create(cfg);
    seam_cfg_skip(cfg, "scheme");
    assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
    seam_cfg_destroy(&cfg);
    seam_convergence_read(&m->cv, NULL, 0.0);
    m->cv.measures[0].tolerance = 1e-12;   /* positions, absolute, max norm */
    m->cv.measures[1].tolerance = 1e-9;    /* loads, relative */
    m->cv.max_iterations = max_iterations;
    m->cv.reference = 1.0;
    seam_coupling c;
    assert_int_equal(seam_coupling_init(&c, &ops, m, N, 1), SEAM_OK);
    c.count_thesis = count_thesis;
    double Xn[N] = {0}, Xpred[N], Xout[N];
    for (size_t j = 0; j < N; j++)
        Xn[j] = 0.1 * (double)j;
    memcpy(Xpred, Xn, sizeof Xn);
    double Xs[N];
    if (m->nonlinear)
        memcpy(Xs, Xexact, sizeof Xs);
    else
        linear_solution(m, Xn, Xs);
    seam_coupling_begin(&c, Xn, 0.0, 0.01, 0);
    outcome o = {SEAM_ITERATE, 0, 0.0, 0.0};
    assert_int_equal(sc->step(self, &c, Xpred, Xout, &o.verdict), SEAM_OK);
    o.iterations = seam_coupling_iterations(&c);
    o.residual = seam_coupling_residual(&c);
    for (size_t j = 0; j < N; j++)
        o.error = fmax(o.error, fabs(Xout[j] - Xs[j]));
    seam_coupling_fini(&c);
    sc->destroy(self);
    return o;
}

/* Rank 3, strong coupling (c s up to 6: plain Gauss-Seidel diverges). */
static void test_secant_schemes_exact_after_rank_plus_one(void **state)
{
    (void)state;
    const char *schemes[] = {"iqn-ils", "rmi", "iqn-imvj"};
    for (size_t rank = 1; rank <= 4; rank++)
        for (int s = 0; s < 3; s++) {
            maps m;
            make_linear(&m, rank, 2.0, 1.0);
            outcome o = run_scheme(&m, schemes[s], "{\"scheme\": \"x\", \"relaxation\": 0.1}", 50, NULL);
            print_message("%-8s rank %zu: %d iterations, error %.2e\n", schemes[s], rank, o.iterations, o.error);
            assert_int_equal(o.verdict, SEAM_CONVERGED);
            assert_true(o.error < 1e-10);
            /* the relaxed first step, a secant column per direction the residual's
             * Jacobian departs from -I in plus one, one confirming the loads */
            assert_true(o.iterations <= (int)rank + 4);
        }
}

/* newton-fd, the exact-Newton reference: its Jacobian by differences is
 * exact on the linear maps to the differences' rounding whatever their rank,
 * so the second iterate is the fixed point to about 1e-12 and a third or
 * fourth confirms positions and loads; the strong coupling (c s up to 8) that
 * makes the secant schemes need rank + 1 columns does not matter. */
static void test_newton_fd_exact_on_linear_maps(void **state)
{
    (void)state;
    for (size_t rank = 1; rank <= 4; rank++) {
        maps m;
        make_linear(&m, rank, 2.0, 1.0);
        outcome o = run_scheme(&m, "newton-fd", "{\"scheme\": \"x\"}", 50, NULL);
        print_message("newton-fd rank %zu: %d iterations, error %.2e, %d fluid calls\n", rank, o.iterations, o.error,
                      m.fluid_calls);
        assert_int_equal(o.verdict, SEAM_CONVERGED);
        assert_true(o.error < 1e-10);
        assert_true(o.iterations <= 4);
        assert_int_equal(m.fluid_calls, o.iterations + (o.iterations - 1) * (N + 1));   /* n + 1 more per update */
    }
}

/* A cap on the columns: with two columns iqn-ils's secant model cannot hold
 * all three directions, so convergence is slower (36 iterations against 7),
 * but still reached. With one column, and rmi with fewer columns than the
 * rank, diverge on this case; the default cap of 100 is far above. */
static void test_column_cap(void **state)
{
    (void)state;
    const char *schemes[] = {"iqn-ils"};
    for (int s = 0; s < 1; s++) {
        maps m;
        make_linear(&m, 3, 2.0, 1.0);
        outcome full = run_scheme(&m, schemes[s], "{\"scheme\": \"x\", \"relaxation\": 0.1}", 200, NULL);
        make_linear(&m, 3, 2.0, 1.0);
        char config[128];
        snprintf(config, sizeof config, "{\"scheme\": \"x\", \"relaxation\": 0.1, \"max_columns\": %d}", s + 2);
        outcome capped = run_scheme(&m, schemes[s], config, 200, NULL);
        print_message("%-8s rank 3: %d iterations with every column, %d with %d\n", schemes[s], full.iterations,
                      capped.iterations, s + 2);
        assert_int_equal(capped.verdict, SEAM_CONVERGED);
        assert_true(capped.error < 1e-9);
        assert_true(capped.iterations > full.iterations);
    }
}

/* iqn-ils reusing a step's columns at the next step, when the Jacobian has
 * changed under them: rank 3, c s_i = -0.95, -0.9, -0.85 at step 0 (the
 * residual's slopes along u_i, -(1 + c s_i), are -0.05, -0.1, -0.15) and
 * 6, 8, 10 at step 1 (-7, -9, -11). The first update of step 1, built on
 * step 0's slopes, overshoots along u_i by 7/0.05, 9/0.1, 11/0.15: the
 * residual grows some 100 times. The scheme drops the old columns then
 * (once, with a warning) and needs 7 iterations; keeping them, 9. */
static void test_reused_columns_that_mislead_are_dropped(void **state)
{
    (void)state;
    const seam_scheme_ops *sc = seam_scheme_find("iqn-ils");
    test_host th;
    test_host_init(&th, "coupling", "coupling");
    seam_cfg *cfg = seam_cfg_from_host("{\"reuse\": 1, \"relaxation\": 0.5}", &th.host);
    void *self = sc->create(cfg);
    assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
    seam_cfg_destroy(&cfg);
    maps m;
    make_linear(&m, 3, 1.0, 1.0);
    seam_convergence_read(&m.cv, NULL, 0.0);
    m.cv.measures[0].tolerance = 1e-12;
    m.cv.measures[1].tolerance = 1e-9;
    m.cv.max_iterations = 50;
    m.cv.reference = 1.0;
    seam_coupling c;
    assert_int_equal(seam_coupling_init(&c, &ops, &m, N, 1), SEAM_OK);
    double Xn[N], Xout[N], Xs[N], ratio[2] = {0, 0};
    int iterations[2];
    for (size_t j = 0; j < N; j++)
        Xn[j] = 0.1 * (double)j;
    for (int step = 0; step < 2; step++) {
        for (int i = 0; i < 3; i++)
            m.s[i] = step == 0 ? -0.95 + 0.05 * i : 6.0 + 2.0 * i;   /* c = 1 */
        m.warnings = 0;
        seam_coupling_begin(&c, Xn, 0.01 * step, 0.01, step);
        seam_verdict v;
        assert_int_equal(sc->step(self, &c, Xn, Xout, &v), SEAM_OK);
        assert_int_equal(v, SEAM_CONVERGED);
        linear_solution(&m, Xn, Xs);
        for (size_t j = 0; j < N; j++)
            assert_true(fabs(Xout[j] - Xs[j]) < 1e-10);
        iterations[step] = seam_coupling_iterations(&c);
        ratio[step] = m.warnings;
        memcpy(Xn, Xout, sizeof Xn);
    }
    print_message("reused columns from a changed Jacobian: %d iterations at step 1 (step 0: %d), %g warning\n",
                  iterations[1], iterations[0], ratio[1]);
    assert_int_equal(ratio[0], 0);
    assert_int_equal(ratio[1], 1);         /* the old columns were dropped, once */
    assert_true(iterations[1] <= 7);       /* 9 with the misleading columns kept */
    seam_coupling_fini(&c);
    sc->destroy(self);
}

/* iqn-ils's mixing beta (Anderson's damping, Walker and Ni 2011): the
 * first secant update, from one column v = r^1 - r^0, w = X~^1 - X~^0, is
 * X^2 = X~^1 - w alpha - (1 - beta)(r^1 - v alpha), alpha = v.r^1 / v.v,
 * computed here from the maps; with beta = 1 it is IQN-ILS's X~^1 - w alpha.
 * And the damped scheme still finds the fixed point of the rank-3 problem. */
static void test_ils_mixing(void **state)
{
    (void)state;
    const double betas[] = {1.0, 0.6};
    for (int b = 0; b < 2; b++) {
        maps m;
        make_linear(&m, 3, 2.0, 1.0);
        char config[128];
        snprintf(config, sizeof config, "{\"scheme\": \"x\", \"relaxation\": 0.3, \"mixing\": %g}", betas[b]);
        outcome o = run_scheme(&m, "iqn-ils", config, 3, NULL);   /* X^0, X^1 (relaxed), X^2 */
        assert_int_equal(o.verdict, SEAM_EXHAUSTED);
        double Xn[N], F[N], Xt[2][N], r[2][N];
        for (size_t j = 0; j < N; j++)
            Xn[j] = 0.1 * (double)j;   /* as run_scheme */
        for (int k = 0; k < 2; k++) {
            linear_fluid(&m, m.X_in[k], Xn, F);
            for (size_t j = 0; j < N; j++) {
                Xt[k][j] = Xn[j] + m.c * F[j] + m.d[j];
                r[k][j] = Xt[k][j] - m.X_in[k][j];
            }
        }
        double vr = 0.0, vv = 0.0;
        for (size_t j = 0; j < N; j++) {
            double v = r[1][j] - r[0][j];
            vr += v * r[1][j];
            vv += v * v;
        }
        double alpha = vr / vv, err = 0.0, step = 0.0;
        for (size_t j = 0; j < N; j++) {
            double v = r[1][j] - r[0][j], w = Xt[1][j] - Xt[0][j];
            double X2 = Xt[1][j] - w * alpha - (1.0 - betas[b]) * (r[1][j] - v * alpha);
            err = fmax(err, fabs(m.X_in[2][j] - X2));
            step = fmax(step, fabs(X2 - m.X_in[1][j]));
        }
        print_message("mixing %g: X^2 off the formula by %.2e (update %.2e)\n", betas[b], err, step);
        assert_true(err < 1e-13 * step);

        make_linear(&m, 3, 2.0, 1.0);
        o = run_scheme(&m, "iqn-ils", config, 50, NULL);
        assert_int_equal(o.verdict, SEAM_CONVERGED);
        assert_true(o.error < 1e-10);
    }
}

/* A solver that refuses an iterate an update made (fluid_mac, handed a torn
 * interface, returns SEAM_UNSTABLE): the quasi-Newton schemes reject it,
 * drop the step's columns (rmi: both models' pairs), relax from the last
 * iterate the solvers took (one warning) and still find the fixed point. The fluid refuses its third
 * call, the first secant update's iterate. */
static void test_refused_iterate_is_rejected(void **state)
{
    (void)state;
    const char *schemes[] = {"iqn-ils", "iqn-imvj", "rmi"};
    for (int s = 0; s < 3; s++) {
        maps m;
        make_linear(&m, 3, 2.0, 1.0);
        m.refuse_call = 3;   /* rmi: the first iterate of eq. 2.6 */
        outcome o = run_scheme(&m, schemes[s], "{\"scheme\": \"x\", \"relaxation\": 0.1}", 50, NULL);
        print_message("%-8s with its first secant iterate refused: %d iterations, error %.2e, %d warning\n",
                      schemes[s], o.iterations, o.error, m.warnings);
        assert_int_equal(o.verdict, SEAM_CONVERGED);
        assert_true(o.error < 1e-10);
        assert_int_equal(m.warnings, 1);
    }
}

/* A fluid whose loads do not move with the interface (a still liquid's hydrostatic load under a
 * piston whose constant pressure the projection adds outside the scheme): the solid's input never
 * changes, so it never gets a pair, and its answer is the fixed point. rmi takes it with eq. 2.6
 * (S_p = 0) once the fluid has a pair, instead of relaxing by 0.1 an iteration (some 200 of them). */
static void test_rmi_with_loads_that_do_not_move(void **state)
{
    (void)state;
    maps m;
    make_linear(&m, 0, 0.0, 1.0);   /* rank 0: F = 0 for every X */
    outcome o = run_scheme(&m, "rmi", "{\"scheme\": \"x\"}", 50, NULL);
    print_message("rmi with loads that do not move: %d iterations, error %.2e\n", o.iterations, o.error);
    assert_int_equal(o.verdict, SEAM_CONVERGED);
    assert_true(o.iterations <= 3);
    assert_true(o.error < 1e-12);
}

static void test_relaxation_bound(void **state)
{
    (void)state;
    maps m;
    make_linear(&m, 2, 2.0, 1.0);   /* iteration matrix eigenvalues 1 - w (1 + c s_i), c s_i = 2, 4 */
    outcome ok = run_scheme(&m, "relaxation", "{\"scheme\": \"x\", \"relaxation\": 0.25}", 400, NULL);
    assert_int_equal(ok.verdict, SEAM_CONVERGED);   /* |1 - 0.25 * 5| = 0.25 */
    assert_true(ok.error < 1e-10);
    outcome bad = run_scheme(&m, "relaxation", "{\"scheme\": \"x\", \"relaxation\": 0.9}", 400, NULL);
    assert_int_equal(bad.verdict, SEAM_DIVERGED);   /* |1 - 0.9 * 5| = 3.5 */
    outcome ait = run_scheme(&m, "aitken", "{\"scheme\": \"x\", \"relaxation\": 0.9}", 400, NULL);
    assert_int_equal(ait.verdict, SEAM_CONVERGED);
    assert_true(ait.error < 1e-10);
    print_message("relaxation 0.25: %d iterations; aitken from 0.9: %d\n", ok.iterations, ait.iterations);
}

static void test_explicit_takes_one_of_each(void **state)
{
    (void)state;
    maps m;
    make_linear(&m, 2, 2.0, 1.0);
    outcome o = run_scheme(&m, "explicit", "{\"scheme\": \"x\"}", 50, NULL);
    assert_int_equal(o.verdict, SEAM_CONVERGED);
    assert_int_equal(o.iterations, 1);
    assert_int_equal(m.fluid_calls, 1);
    assert_int_equal(m.solid_calls, 1);
}

/* Nonlinear maps with a chosen fixed point: every iterating scheme finds it. */
static void test_nonlinear_fixed_point(void **state)
{
    (void)state;
    struct { const char *scheme, *config; } cases[] = {
        {"relaxation", "{\"scheme\": \"x\", \"relaxation\": 0.3}"},
        {"aitken", "{\"scheme\": \"x\", \"relaxation\": 0.3}"},
        {"iqn-ils", "{\"scheme\": \"x\"}"},
        {"rmi", "{\"scheme\": \"x\"}"},
        {"iqn-imvj", "{\"scheme\": \"x\"}"},
    };
    int counts[5];
    for (size_t i = 0; i < 5; i++) {
        maps m;
        memset(&m, 0, sizeof m);
        m.nonlinear = 1;
        m.a = 2.0;
        m.b = 5.0;
        m.c = 1.0;
        for (size_t j = 0; j < N; j++)
            m.Xstar[j] = 0.1 * (double)j + 0.05 * cos((double)j);
        outcome o = run_scheme(&m, cases[i].scheme, cases[i].config, 500, m.Xstar);
        print_message("%-10s nonlinear: %d iterations, error %.2e\n", cases[i].scheme, o.iterations, o.error);
        assert_int_equal(o.verdict, SEAM_CONVERGED);
        assert_true(o.error < 1e-9);
        counts[i] = o.iterations;
    }
    /* The quasi-Newton schemes need fewer iterations than plain relaxation. */
    assert_true(counts[2] < counts[0]);
    assert_true(counts[3] < counts[0]);
    assert_true(counts[4] < counts[0]);
}

/* Several steps of the linear maps, each with another right-hand side d
 * (the same Jacobian): the iterations of each step, and the scheme's report. */
static void run_steps(maps *m, const char *scheme_name, const char *config, int steps, int *iterations,
                      seam_scheme_report *rep)
{
    const seam_scheme_ops *sc = seam_scheme_find(scheme_name);
    assert_non_null(sc);
    test_host th;
    test_host_init(&th, "coupling", "coupling");
    seam_cfg *cfg = seam_cfg_from_host(config, &th.host);
    assert_non_null(cfg);
    void *self = sc->create(cfg);
    seam_cfg_skip(cfg, "scheme");
    assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
    seam_cfg_destroy(&cfg);
    seam_convergence_read(&m->cv, NULL, 0.0);
    m->cv.measures[0].tolerance = 1e-12;
    m->cv.count = 1;   /* positions only: a step ends on the iteration that solves it, so no column is round-off */
    m->cv.max_iterations = 100;
    m->cv.reference = 1.0;
    seam_coupling c;
    assert_int_equal(seam_coupling_init(&c, &ops, m, N, 1), SEAM_OK);
    double Xn[N], Xout[N], Xs[N];
    for (size_t j = 0; j < N; j++)
        Xn[j] = 0.1 * (double)j;
    for (int s = 0; s < steps; s++) {
        for (size_t j = 0; j < N; j++)
            m->d[j] = 1e-3 * sin((double)(j * (size_t)(s + 1)) + 0.3 * s);
        linear_solution(m, Xn, Xs);
        seam_coupling_begin(&c, Xn, 0.01 * s, 0.01, s);
        seam_verdict v;
        assert_int_equal(sc->step(self, &c, Xn, Xout, &v), SEAM_OK);
        assert_int_equal(v, SEAM_CONVERGED);
        for (size_t j = 0; j < N; j++)
            assert_true(fabs(Xout[j] - Xs[j]) < 1e-10);
        iterations[s] = seam_coupling_iterations(&c);
        seam_coupling_accept(&c);
        memcpy(Xn, Xout, sizeof Xn);
    }
    if (sc->report)
        sc->report(self, rep);
    seam_coupling_fini(&c);
    sc->destroy(self);
}

/* IQN-IMVJ on a linear problem: the residual's inverse Jacobian is exactly
 * learnt in the first step (its columns span d and the rank-k part), so
 * every later step starts with the exact Jacobian: X^1 = X~^0 - J r^0 is
 * the solution and iteration 2 confirms it (positions measured only: a
 * column made after the residual reached round-off would be noise). A
 * restart to zero after every step (rs-0, chunk 1) forgets it: each step
 * costs what the first did, as iqn-ils without reuse does. A truncation
 * keeping one mode (rs-svd, 0.999) keeps part of it: in between. */
static void test_imvj_carries_the_jacobian(void **state)
{
    (void)state;
    for (size_t rank = 2; rank <= 4; rank++) {
        int it[4], ils[4];
        seam_scheme_report rep;
        maps m;
        make_linear(&m, rank, 2.0, 1.0);
        run_steps(&m, "iqn-ils", "{\"scheme\": \"x\"}", 4, ils, &rep);
        const char *carry[] = {
            "{\"scheme\": \"x\", \"restart\": \"none\"}",
            "{\"scheme\": \"x\", \"restart\": \"rs-0\", \"chunk\": 8}",
            "{\"scheme\": \"x\", \"restart\": \"rs-ls\", \"chunk\": 1, \"restart_reuse\": 4}",
            "{\"scheme\": \"x\", \"restart\": \"rs-svd\", \"chunk\": 1, \"truncation\": 1e-8}",
        };
        for (size_t k = 0; k < 4; k++) {
            make_linear(&m, rank, 2.0, 1.0);
            run_steps(&m, "iqn-imvj", carry[k], 4, it, &rep);
            print_message("rank %zu %s: %d %d %d %d iterations (iqn-ils %d %d %d %d); modes %ld, restarts %lu\n", rank,
                          carry[k], it[0], it[1], it[2], it[3], ils[0], ils[1], ils[2], ils[3], rep.modes, rep.restarts);
            assert_int_equal(it[0], ils[0]);   /* nothing carried yet: the same iterates */
            for (int s = 1; s < 4; s++)
                assert_int_equal(it[s], 2);
            /* the carried modes without a restart: the first step's rank + 1 columns (the filter
             * drops the rest), and one column from each of steps 2 and 3 (step 4's are folded
             * when step 5 starts) */
            if (k <= 1)
                assert_int_equal(rep.modes, (long)rank + 3);
            assert_int_equal(rep.restarts, k >= 2 ? 3 : 0);
        }
        make_linear(&m, rank, 2.0, 1.0);
        run_steps(&m, "iqn-imvj", "{\"scheme\": \"x\", \"restart\": \"rs-0\", \"chunk\": 1}", 4, it, &rep);
        for (int s = 0; s < 4; s++)
            assert_int_equal(it[s], ils[s]);
        assert_int_equal(rep.modes, 0);
        assert_int_equal(rep.restarts, 3);
        make_linear(&m, rank, 2.0, 1.0);
        run_steps(&m, "iqn-imvj", "{\"scheme\": \"x\", \"restart\": \"rs-svd\", \"chunk\": 1, \"truncation\": 0.999}",
                  4, it, &rep);
        print_message("rank %zu rs-svd keeping one mode: %d %d %d %d iterations, %lu modes truncated\n", rank, it[0], it[1],
                      it[2], it[3], rep.truncated);
        assert_int_equal(rep.modes, 1);
        assert_true(rep.truncated >= 3 * rank);
        for (int s = 1; s < 4; s++)
            assert_true(it[s] > 2 && it[s] <= ils[s]);
    }
}

/* The judge: positions that agree are not enough while the loads move;
 * finite residuals never overflow to inf. */
static void test_loads_must_agree_too(void **state)
{
    (void)state;
    seam_convergence cv;
    seam_convergence_read(&cv, NULL, 0.0);   /* positions 1e-6 m absolute, loads 1e-3 relative */
    cv.reference = 1.0;
    seam_coupling c;
    assert_int_equal(seam_coupling_init(&c, &ops, NULL, 4, 2), SEAM_OK);
    double Xn[4] = {0, 0, 1, 0}, X[4] = {0, 0.01, 1, 0.01}, F[4] = {0, -5, 0, -5}, F_far[4] = {0, -6, 0, -4};
    double F_near[4] = {0, -5.001, 0, -4.9995};
    seam_coupling_begin(&c, Xn, 0.0, 0.01, 0);
    c.judged = 2;
    seam_iterate agree_pos = {X, X, F, F_far};   /* positions identical, loads 20% apart */
    assert_int_equal(seam_convergence_judge(&cv, &c, &agree_pos), SEAM_ITERATE);
    seam_iterate both = {X, X, F, F_near};       /* loads within 2.2e-4 relative */
    assert_int_equal(seam_convergence_judge(&cv, &c, &both), SEAM_CONVERGED);
    double X_off[4] = {0, 0.01 + 2e-6, 1, 0.01};
    seam_iterate pos_off = {X_off, X, F, F};     /* loads equal, positions 2e-6 m apart */
    assert_int_equal(seam_convergence_judge(&cv, &c, &pos_off), SEAM_ITERATE);
    /* 1e200 is finite: reported as it is, not as inf or divergence of the norm. */
    double big[4] = {1e200, 1e200, -1e200, 1e200}, zero[4] = {0, 0, 0, 0};
    double r = seam_norm_max_point(big, zero, 4, 2);
    assert_true(isfinite(r));
    assert_float_equal(r / 1e200, sqrt(2.0), 1e-12);
    assert_true(isfinite(seam_norm_2(big, zero, 4)));
    assert_float_equal(seam_norm_2(big, NULL, 4) / 1e200, 2.0, 1e-12);
    double nan_in[2] = {NAN, 0};
    assert_true(isnan(seam_norm_2(nan_in, NULL, 2)));
    seam_coupling_fini(&c);
}

/* A shorthand scene object and a measures list read into the same measures. */
static void test_measures_from_the_scene(void **state)
{
    (void)state;
    test_host th;
    test_host_init(&th, "coupling", "coupling");
    seam_cfg *cfg = seam_cfg_from_host("{\"measures\": [{\"quantity\": \"loads\", \"kind\": \"absolute\", \"norm\": \"max\","
                                       " \"tolerance\": 0.5}, {\"quantity\": \"positions\", \"kind\": \"relative\","
                                       " \"tolerance\": 0.01}], \"max_iterations\": 7}", &th.host);
    seam_convergence cv;
    seam_convergence_read(&cv, cfg, 0.0);
    assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
    seam_cfg_destroy(&cfg);
    assert_int_equal(cv.count, 2);
    assert_int_equal(cv.measures[0].quantity, SEAM_QTY_LOADS);
    assert_false(cv.measures[0].relative);
    assert_int_equal(cv.measures[0].norm, SEAM_NORM_MAX);
    assert_true(cv.measures[1].relative);
    assert_int_equal(cv.max_iterations, 7);
    cfg = seam_cfg_from_host("{\"measures\": [{\"quantity\": \"loads\"}], \"tolerance\": 1}", &th.host);
    seam_convergence_read(&cv, cfg, 0.0);
    assert_int_equal(seam_cfg_finish(cfg), SEAM_ERROR);   /* both forms at once */
    seam_cfg_destroy(&cfg);
    assert_true(test_host_saw(&th, "not both"));
}

/* relative_value (preCICE's relative measure) divides the position change
 * by the positions themselves, relative by the displacement over the step:
 * positions near 10 m that moved 1.4 mm in the step and 10 um in the last
 * iteration hold 1e-5 relative to their value (goal 141 um), not relative
 * to the displacement (goal 14 nm). */
static void test_relative_value(void **state)
{
    (void)state;
    const char *kinds[] = {"relative_value", "relative"};
    for (int k = 0; k < 2; k++) {
        test_host th;
        test_host_init(&th, "coupling", "coupling");
        char json[256];
        snprintf(json, sizeof json, "{\"measures\": [{\"quantity\": \"positions\", \"kind\": \"%s\", \"norm\": \"2\","
                 " \"tolerance\": 1e-5}]}", kinds[k]);
        seam_cfg *cfg = seam_cfg_from_host(json, &th.host);
        seam_convergence cv;
        seam_convergence_read(&cv, cfg, 0.0);
        assert_int_equal(seam_cfg_finish(cfg), SEAM_OK);
        seam_cfg_destroy(&cfg);
        assert_true(cv.measures[0].relative);
        assert_int_equal(cv.measures[0].of_value, k == 0);
        cv.reference = 10.0;
        cv.scale = 10.0;
        seam_coupling c;
        assert_int_equal(seam_coupling_init(&c, &ops, NULL, 2, 1), SEAM_OK);
        double Xn[2] = {10.0, 10.0}, X_new[2] = {10.001, 10.001}, X_old[2] = {10.001 - 1e-5, 10.001};
        seam_coupling_begin(&c, Xn, 0.0, 0.01, 0);
        c.judged = 2;
        seam_iterate it = {X_new, X_old, NULL, NULL};
        assert_int_equal(seam_convergence_judge(&cv, &c, &it), k == 0 ? SEAM_CONVERGED : SEAM_ITERATE);
        assert_float_equal(cv.goal[0], k == 0 ? 1e-5 * sqrt(2.0) * 10.001 : 1e-5 * sqrt(2.0) * 1e-3, 1e-12);
        seam_coupling_fini(&c);
    }
}

/* coupling.count "thesis": rmi judges successive solid outputs, so even a
 * step whose prediction is already the answer takes two iterations
 * (Algorithm 1), where seam's count stops after one; relaxation judges its
 * change before relaxing under both counts (the relaxed change, w times it,
 * would let Table 2.1's w = 0.01 stop at 100 times the tolerance). */
static void test_thesis_counting(void **state)
{
    (void)state;
    int its[2];
    double res[2];
    for (int t = 0; t <= 1; t++) {
        count_thesis = t;
        maps m;
        make_linear(&m, 2, 2.0, 1.0);
        memset(m.d, 0, sizeof m.d);   /* X^n is the fixed point, and the prediction */
        outcome o = run_scheme(&m, "rmi", "{\"scheme\": \"x\", \"relaxation\": 1}", 50, NULL);
        assert_int_equal(o.verdict, SEAM_CONVERGED);
        its[t] = o.iterations;
        make_linear(&m, 2, 2.0, 1.0);
        o = run_scheme(&m, "relaxation", "{\"scheme\": \"x\", \"relaxation\": 0.25}", 1, NULL);
        assert_int_equal(o.verdict, SEAM_EXHAUSTED);
        res[t] = o.residual;
    }
    count_thesis = false;
    assert_int_equal(its[0], 1);
    assert_int_equal(its[1], 2);
    assert_true(res[0] > 0.0);
    assert_true(res[1] == res[0]);
}

/* newton-fd's chord form (jacobian_age 2): J_r is made at the first
 * iterate of steps 0, 2 and 4 only, and on the linear maps, whose Jacobian
 * never changes, the steps that reuse it (1 and 3) take the iterations of
 * those that made it: the second iterate solves the step to the differences'
 * rounding, the third meets 1e-12. */
static void test_newton_fd_chord_keeps_the_jacobian(void **state)
{
    (void)state;
    maps m;
    make_linear(&m, 3, 2.0, 1.0);
    int its[5];
    seam_scheme_report rep;
    run_steps(&m, "newton-fd", "{\"scheme\": \"x\", \"jacobian_age\": 2}", 5, its, &rep);
    int total = 0;
    print_message("newton-fd chord: %d %d %d %d %d iterations, %d fluid calls\n", its[0], its[1], its[2], its[3],
                  its[4], m.fluid_calls);
    for (int s = 0; s < 5; s++) {
        assert_true(its[s] <= 3);
        assert_int_equal(its[s], its[0]);
        total += its[s];
    }
    assert_int_equal(m.fluid_calls, total + 3 * (N + 1));   /* three Jacobians of n + 1 calls each */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secant_schemes_exact_after_rank_plus_one),
        cmocka_unit_test(test_column_cap),
        cmocka_unit_test(test_newton_fd_exact_on_linear_maps),
        cmocka_unit_test(test_newton_fd_chord_keeps_the_jacobian),
        cmocka_unit_test(test_relaxation_bound),
        cmocka_unit_test(test_refused_iterate_is_rejected),
        cmocka_unit_test(test_rmi_with_loads_that_do_not_move),
        cmocka_unit_test(test_explicit_takes_one_of_each),
        cmocka_unit_test(test_nonlinear_fixed_point),
        cmocka_unit_test(test_imvj_carries_the_jacobian),
        cmocka_unit_test(test_loads_must_agree_too),
        cmocka_unit_test(test_measures_from_the_scene),
        cmocka_unit_test(test_reused_columns_that_mislead_are_dropped),
        cmocka_unit_test(test_relative_value),
        cmocka_unit_test(test_thesis_counting),
        cmocka_unit_test(test_ils_mixing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
