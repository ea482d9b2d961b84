/* The added-mass piston: a piston of mass m_s on a spring k pushes an
 * incompressible column of mass m_a (tests/plugins/piston_*.c).
 *
 * Exact coupled motion: x'' = -w^2 x with w^2 = k / (m_s + m_a).
 * Backward Euler on the coupled system (the monolithic discretization the
 * strongly coupled iterations must reproduce):
 *     (m_s + m_a)(v' - v)/dt = -k x',  x' = x + dt v'
 *     =>  x' = (x + dt v) / (1 + k dt^2 / (m_s + m_a)),
 * whose oscillation advances atan(w dt) per step: period 2 pi dt / atan(w dt).
 *
 * Gauss-Seidel with relaxation omega: the solid gives dX/dF = dt^2/(m_s + k dt^2),
 * the fluid dF/dX = -m_a/dt^2, so one iteration maps an error e to
 * (1 - omega (1 + r)) e with r = m_a / (m_s + k dt^2): it converges iff
 * 0 < omega < 2 / (1 + r), and the residual shrinks by |1 - omega (1 + r)|
 * per iteration.
 *
 * Explicit coupling with the linear predictor hands the fluid the solid's
 * last velocity, so the fluid answers with the previous step's acceleration:
 * m_s a^{n+1} + k dt^2 (...) = -m_a a^n, an amplification of -r per step:
 * stable iff r < 1 (the added-mass instability). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

static char *piston_scene(const char *scheme, double m_s, double m_a, double k, double dt, double end,
                          double tolerance, int max_iterations, double omega)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"time\": {\"end\": %.17g, \"dt\": %.17g},\n"
             " \"coupling\": {\"scheme\": \"%s\", \"tolerance\": %.17g, \"max_iterations\": %d,\n"
             "              \"on_nonconvergence\": \"fail\"%s%.17g},\n"
             " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": %.17g},\n"
             " \"solids\": [{\"name\": \"piston\", \"plugin\": \"piston_solid\", \"mass\": %.17g,\n"
             "              \"stiffness\": %.17g, \"position\": 0.1}],\n"
             " \"output\": {\"interface\": true, \"frames\": false}}\n",
             end, dt, scheme, tolerance, max_iterations,
             strcmp(scheme, "relaxation") == 0 ? ", \"relaxation\": " : ", \"divergence\": ",
             strcmp(scheme, "relaxation") == 0 ? omega : 1e8, m_a, m_s, k);
    return buf;
}

/* Largest deviation of trajectory column col from the monolithic backward-Euler recursion. */
static double deviation_from_monolithic(const test_run *r, size_t col, double m, double k, double x0)
{
    double x = x0, v = 0.0, worst = fabs(r->X[col] - x0);
    for (size_t s = 1; s < r->rows; s++) {
        double dt = r->dt[s - 1];
        double x_new = (x + dt * v) / (1.0 + k * dt * dt / m);
        v = (x_new - x) / dt;
        x = x_new;
        worst = fmax(worst, fabs(r->X[s * r->n + col] - x));
    }
    return worst;
}

/* Mean spacing of upward zero crossings, linearly interpolated. */
static double measured_period(const test_run *r, double dt)
{
    double first = -1, last = -1;
    int count = 0;
    for (size_t s = 1; s < r->rows; s++) {
        double a = r->X[(s - 1) * r->n], b = r->X[s * r->n];
        if (a < 0 && b >= 0) {
            double t = ((double)(s - 1) + a / (a - b)) * dt;
            if (first < 0)
                first = t;
            last = t;
            count++;
        }
    }
    assert_true(count >= 3);
    return (last - first) / (count - 1);
}

static void test_strong_coupling_matches_monolithic_and_period(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 2.0, w = 2.0 * M_PI, k = w * w * (m_s + m_a), dt = 0.005;
    test_run *r = test_run_scene("piston_strong", piston_scene("relaxation", m_s, m_a, k, dt, 5.0, 1e-12, 100, 0.3), NULL, NULL);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.steps, 1000);
    assert_int_equal(r->summary.not_converged, 0);
    /* Converged iterations reproduce the monolithic discretization. */
    assert_true(deviation_from_monolithic(r, 0, m_s + m_a, k, 0.1) < 1e-10);
    /* The period is backward Euler's, within interpolation error, and the
     * analytic one within BE's phase error (w dt)^2 / 3. */
    double T = measured_period(r, dt);
    double T_be = 2.0 * M_PI * dt / atan(w * dt), T_exact = 2.0 * M_PI / w;
    assert_true(fabs(T - T_be) < 1e-4 * T_be);
    assert_true(fabs(T - T_exact) / T_exact < (w * dt) * (w * dt) / 3.0 * 1.1);
    assert_true(fabs(T - T_exact) / T_exact > (w * dt) * (w * dt) / 3.0 * 0.9);
    /* With omega = 0.3 and r ~ 2 the contraction is |1 - 0.3 * 3| = 0.1 per iteration. */
    assert_true(r->summary.max_iterations <= 14);
    test_run_free(r);
}

static void test_explicit_added_mass_instability(void **state)
{
    (void)state;
    double m_s = 1.0, k = 40.0, dt = 0.01;
    double m_stable = 0.5 * (m_s + k * dt * dt), m_unstable = 1.5 * (m_s + k * dt * dt);   /* r = 0.5, 1.5 */
    test_run *ok = test_run_scene("piston_explicit_small", piston_scene("explicit", m_s, m_stable, k, dt, 20.0, 1e-9, 1, 0), NULL, NULL);
    assert_int_equal(ok->status, SEAM_OK);
    assert_int_equal(ok->summary.steps, 2000);
    double peak = 0;
    for (size_t s = 0; s < ok->rows; s++)
        peak = fmax(peak, fabs(ok->X[s]));
    assert_true(peak <= 0.1 + 1e-12);   /* never grows past the release amplitude */
    test_run_free(ok);

    test_run *bad = test_run_scene("piston_explicit_large", piston_scene("explicit", m_s, m_unstable, k, dt, 20.0, 1e-9, 1, 0), NULL, NULL);
    assert_int_equal(bad->status, SEAM_ERROR);
    assert_non_null(strstr(bad->log, "diverged"));
    assert_true(bad->summary.steps < 2000);
    test_run_free(bad);
}

/* Contraction factors of step 0 from residuals.csv. */
static double observed_contraction(const test_run *r, int at)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/residuals.csv", r->out);
    size_t rows, cols;
    double *res = test_read_csv(path, 0, &rows, &cols);
    assert_non_null(res);
    assert_true(rows > (size_t)at + 1);
    double q = res[(size_t)(at + 1) * cols + 2] / res[(size_t)at * cols + 2];
    free(res);
    return q;
}

/* Mean first-iteration residual per step (residuals.csv) of the oscillating
 * piston (w = 3.65 rad/s, dt = 0.01: w dt = 0.037) under a predictor. */
static double first_residual(const char *predictor)
{
    char name[64], scene[4096];
    snprintf(name, sizeof name, "piston_predictor_%s", predictor);
    snprintf(scene, sizeof scene, "%s", piston_scene("iqn-ils", 1.0, 2.0, 40.0, 0.01, 1.0, 1e-12, 50, 0.0));
    char set[64];
    snprintf(set, sizeof set, "coupling.predictor=%s", predictor);
    const char *sets[] = {set, NULL};
    test_run *r = test_run_scene(name, scene, NULL, sets);
    assert_int_equal(r->status, SEAM_OK);
    char path[1200];
    snprintf(path, sizeof path, "%s/residuals.csv", r->out);
    size_t rows, cols;
    double *res = test_read_csv(path, 0, &rows, &cols);   /* step, iteration, residual, load_change */
    assert_non_null(res);
    double sum = 0.0;
    int n = 0;
    for (size_t i = 0; i < rows; i++)
        if (res[i * cols + 1] == 1.0 && res[i * cols] >= 5.0) {   /* every predictor has its history from step 5 */
            sum += res[i * cols + 2];
            n++;
        }
    free(res);
    test_run_free(r);
    assert_true(n > 90);
    return sum / n;
}

/* The predictors' orders: extrapolating X^n, X^{n-1} errs by O(dt^2 x''),
 * the parabola through X^{n-2}, X^{n-1}, X^n by O(dt^3 x^(3)), about w dt
 * times less, the cubic and the quartic (through four and five states) each
 * another w dt times less; starting from X^n errs by O(dt x'). */
static void test_predictor_orders(void **state)
{
    (void)state;
    double none = first_residual("none"), linear = first_residual("linear"), quadratic = first_residual("quadratic");
    double cubic = first_residual("cubic"), quartic = first_residual("quartic");
    print_message("first-iteration residual: none %.3g, linear %.3g, quadratic %.3g, cubic %.3g, quartic %.3g m\n",
                  none, linear, quadratic, cubic, quartic);
    assert_true(linear < 0.1 * none);
    assert_true(quadratic < 0.1 * linear);
    assert_true(cubic < 0.1 * quadratic);
    assert_true(quartic < 0.1 * cubic);
}

static void test_relaxation_limit(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 3.0, k = 40.0, dt = 0.01;
    double r = m_a / (m_s + k * dt * dt);
    double omega_max = 2.0 / (1.0 + r);

    double below = 0.97 * omega_max;
    test_run *conv = test_run_scene("piston_below", piston_scene("relaxation", m_s, m_a, k, dt, 0.2, 1e-11, 3000, below), NULL, NULL);
    assert_int_equal(conv->status, SEAM_OK);
    assert_int_equal(conv->summary.not_converged, 0);
    assert_true(deviation_from_monolithic(conv, 0, m_s + m_a, k, 0.1) < 1e-9);
    assert_float_equal(observed_contraction(conv, 20), fabs(1.0 - below * (1.0 + r)), 1e-6);
    test_run_free(conv);

    double above = 1.03 * omega_max;
    test_run *div = test_run_scene("piston_above", piston_scene("relaxation", m_s, m_a, k, dt, 0.2, 1e-11, 3000, above), NULL, NULL);
    assert_int_equal(div->status, SEAM_ERROR);
    assert_non_null(strstr(div->log, "diverged at step 0"));
    assert_float_equal(observed_contraction(div, 20), fabs(1.0 - above * (1.0 + r)), 1e-6);
    test_run_free(div);
}

static void test_two_solids_concatenate(void **state)
{
    (void)state;
    const char *scene =
        "{\"time\": {\"end\": 1.0, \"dt\": 0.01},\n"
        " \"coupling\": {\"scheme\": \"relaxation\", \"relaxation\": 0.25, \"tolerance\": 1e-12, \"max_iterations\": 200},\n"
        " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 2.0},\n"
        " \"solids\": [{\"name\": \"light\", \"plugin\": \"piston_solid\", \"mass\": 1.0, \"stiffness\": 30, \"position\": 0.1},\n"
        "            {\"name\": \"heavy\", \"plugin\": \"piston_solid\", \"mass\": 3.0, \"stiffness\": 90, \"position\": -0.05}],\n"
        " \"output\": {\"interface\": true}}\n";
    test_run *r = test_run_scene("piston_two", scene, NULL, NULL);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->n, 2);
    assert_true(deviation_from_monolithic(r, 0, 3.0, 30.0, 0.1) < 1e-10);
    assert_true(deviation_from_monolithic(r, 1, 5.0, 90.0, -0.05) < 1e-10);
    assert_int_equal(r->summary.n_participants, 3);
    assert_string_equal(r->names[1], "light");
    assert_true(r->solves[2] >= r->summary.steps);
    test_run_free(r);
}

static void test_nan_is_reported(void **state)
{
    (void)state;
    const char *const sets[] = {"fluid.fault={\"kind\": \"nan\", \"step\": 5}", NULL};
    test_run *r = test_run_scene("piston_nan", piston_scene("relaxation", 1, 1, 40, 0.01, 1.0, 1e-10, 100, 0.4), NULL, sets);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.steps, 5);   /* nothing non-finite was committed */
    assert_non_null(strstr(r->log, "[fluid] error: returned a non-finite load (nan) on interface point 0 at step 5 (t = 0.05 s)"));
    test_run_free(r);
}

static void test_solver_error_is_reported(void **state)
{
    (void)state;
    const char *const sets[] = {"fluid.fault={\"kind\": \"error\", \"step\": 3}", NULL};
    test_run *r = test_run_scene("piston_error", piston_scene("relaxation", 1, 1, 40, 0.01, 1.0, 1e-10, 100, 0.4), NULL, sets);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.steps, 3);
    assert_non_null(strstr(r->log, "[fluid] error: injected failure at step 3"));
    assert_non_null(strstr(r->log, "[fluid] error: solve failed at step 3 (t = 0.03 s)"));
    test_run_free(r);
}

static void test_unstable_step_is_retried_smaller(void **state)
{
    (void)state;
    const char *const sets[] = {"fluid.fault={\"unstable_above_dt\": 0.004}", NULL};
    test_run *r = test_run_scene("piston_unstable", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-12, 100, 0.4), NULL, sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_float_equal(r->summary.t, 0.1, 1e-15);
    /* Step 0 halves twice (0.01 and 0.005 s refused); the later steps start
     * from the 0.0025 s that worked: the doubled cap is tried after 2, 4, 8
     * and 16 stable steps (steps 2, 6, 14, 30), refused once each. Forgetting
     * the cap retried every step twice (80 rejected attempts). */
    assert_int_equal(r->summary.steps, 40);
    assert_int_equal(r->summary.retries, 2 + 4);
    for (long s = 0; s < r->summary.steps; s++)
        assert_float_equal(r->dt[s], 0.0025, 1e-15);
    assert_true(deviation_from_monolithic(r, 0, 2.0, 40.0, 0.1) < 1e-10);
    test_run_free(r);
}

/* A solver stable only below 0.004 s until t = 0.05 s: the cap grows back,
 * doubling after stable steps, to the scene's dt and never above it. */
static void test_unstable_cap_grows_back(void **state)
{
    (void)state;
    const char *const sets[] = {"fluid.fault={\"unstable_above_dt\": 0.004, \"unstable_until\": 0.05}", NULL};
    test_run *r = test_run_scene("piston_unstable_until", piston_scene("relaxation", 1, 1, 40, 0.01, 0.275, 1e-12, 100, 0.4),
                                 NULL, sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_float_equal(r->summary.t, 0.275, 1e-14);
    /* 2 refusals at step 0, one each for the cap doubled at steps 2, 6 and
     * 14 (t < 0.05 s); doubled at step 30 (t = 0.075 s) it holds, and after
     * 2 more steps it is back at the scene's 0.01 s for the last 19. */
    assert_int_equal(r->summary.retries, 2 + 3);
    double t = 0.0, last = 0.0;
    for (long s = 0; s < r->summary.steps; s++) {
        assert_true(r->dt[s] <= 0.01);
        if (t < 0.05 - 1e-12)
            assert_true(r->dt[s] <= 0.004);
        else
            assert_true(r->dt[s] >= last * (1 - 1e-9));   /* grows back, never falls again */
        last = r->dt[s];
        t += r->dt[s];
    }
    assert_float_equal(r->dt[r->summary.steps - 1], 0.01, 1e-12);
    assert_int_equal(r->summary.steps, 30 + 2 + 19);
    test_run_free(r);
}

static void test_nonconvergence_policy(void **state)
{
    (void)state;
    const char *const warn[] = {"coupling.max_iterations=2", "coupling.on_nonconvergence=warn", NULL};
    test_run *w = test_run_scene("piston_warn", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-14, 100, 0.4), NULL, warn);
    assert_int_equal(w->status, SEAM_OK);
    assert_int_equal(w->summary.not_converged, 10);
    assert_non_null(strstr(w->log, "not converged at step 0"));
    test_run_free(w);
    const char *const fail[] = {"coupling.max_iterations=2", NULL};
    test_run *f = test_run_scene("piston_fail", piston_scene("relaxation", 1, 1, 40, 0.01, 0.1, 1e-14, 100, 0.4), NULL, fail);
    assert_int_equal(f->status, SEAM_ERROR);
    assert_int_equal(f->summary.steps, 0);
    assert_non_null(strstr(f->log, "error: not converged at step 0 (t = 0 s) after 2 iterations"));
    test_run_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strong_coupling_matches_monolithic_and_period),
        cmocka_unit_test(test_explicit_added_mass_instability),
        cmocka_unit_test(test_relaxation_limit),
        cmocka_unit_test(test_predictor_orders),
        cmocka_unit_test(test_two_solids_concatenate),
        cmocka_unit_test(test_nan_is_reported),
        cmocka_unit_test(test_solver_error_is_reported),
        cmocka_unit_test(test_unstable_step_is_retried_smaller),
        cmocka_unit_test(test_unstable_cap_grows_back),
        cmocka_unit_test(test_nonconvergence_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
