/* The accelerated schemes on the added-mass piston (tests/plugins/piston_*.c):
 * the coupled problem is linear, so a secant scheme holds the exact interface
 * Jacobian after one difference, and rmi and iqn-ils converge in at most
 * 3 iterations per step for any mass ratio; Aitken's factor becomes the
 * optimal one after two iterations, so it converges where constant
 * relaxation with the same factor diverges (that needs omega < 2/(1 + r),
 * r = m_a / (m_s + k dt^2), see tests/coupler/test_piston.c). Every run is
 * checked against the monolithic backward-Euler recursion
 *     x' = (x + dt v) / (1 + k dt^2 / (m_s + m_a)). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

/* Run the piston with the given scheme and extra coupling keys (JSON fragment). */
static test_run *run_piston(const char *name, const char *scheme, const char *extra, double m_s, double m_a,
                              double k, double dt, double end)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "{\"time\": {\"end\": %.17g, \"dt\": %.17g},\n"
             " \"coupling\": {\"scheme\": \"%s\", \"tolerance\": 1e-12, \"max_iterations\": 200,\n"
             "              \"on_nonconvergence\": \"fail\"%s},\n"
             " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": %.17g},\n"
             " \"solids\": [{\"name\": \"piston\", \"plugin\": \"piston_solid\", \"mass\": %.17g,\n"
             "              \"stiffness\": %.17g, \"position\": 0.1}],\n"
             " \"output\": {\"interface\": true, \"frames\": false}}\n",
             end, dt, scheme, extra, m_a, m_s, k);
    return test_run_scene(name, scene, NULL, NULL);
}

static double deviation_from_monolithic(const test_run *r, double m, double k, double dt)
{
    double x = 0.1, v = 0.0, worst = fabs(r->X[0] - x);
    for (size_t s = 1; s < r->rows; s++) {
        double x_new = (x + dt * v) / (1.0 + k * dt * dt / m);
        v = (x_new - x) / dt;
        x = x_new;
        worst = fmax(worst, fabs(r->X[s] - x));
    }
    return worst;
}

static void check_secant_scheme(const char *scheme, const char *extra, int max_iterations)
{
    const double ratios[] = {0.1, 1.0, 10.0, 100.0};
    double m_s = 1.0, k = 40.0, dt = 0.01;
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        double m_a = ratios[i] * m_s;
        char name[128];
        snprintf(name, sizeof name, "schemes_%s_%zu_%d", scheme, i, max_iterations);
        test_run *r = run_piston(name, scheme, extra, m_s, m_a, k, dt, 1.0);
        if (r->status != SEAM_OK)
            fail_msg("%s at m_a/m_s = %g: %s", scheme, ratios[i], r->log);
        assert_int_equal(r->summary.steps, 100);
        assert_int_equal(r->summary.not_converged, 0);
        if (r->summary.max_iterations > max_iterations)
            fail_msg("%s%s at m_a/m_s = %g took %d iterations", scheme, extra, ratios[i], r->summary.max_iterations);
        assert_true(deviation_from_monolithic(r, m_s + m_a, k, dt) < 1e-10);
        test_run_free(r);
    }
}

/* The positions are exact at the third iteration (a secant model of a
 * linear map); the default load measure sees the loads still moving from
 * the second to the third, so a fourth iteration confirms them. */
static void test_rmi_three_iterations(void **state)
{
    (void)state;
    check_secant_scheme("rmi", "", 4);
    check_secant_scheme("rmi", ", \"rmi_solver\": \"gmres\"", 4);
}

static void test_iqn_ils_three_iterations(void **state)
{
    (void)state;
    check_secant_scheme("iqn-ils", "", 4);
}

/* Reused columns already hold the Jacobian: after the first step the first
 * secant update is exact, one iteration fewer. For rmi the positions are
 * exact one iteration earlier too (residuals.csv), but the fluid's loads,
 * which rmi does not hand the solid as they are (eq. 2.7), still move at
 * that iteration, so the load measure asks for the same count. */
static void test_reuse_saves_an_iteration(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 10.0, k = 40.0, dt = 0.01;
    const char *schemes[] = {"rmi", "iqn-ils"};
    for (int s = 0; s < 2; s++) {
        test_run *plain = run_piston("schemes_noreuse", schemes[s], "", m_s, m_a, k, dt, 0.5);
        test_run *reuse = run_piston("schemes_reuse", schemes[s], ", \"reuse\": 2", m_s, m_a, k, dt, 0.5);
        assert_int_equal(reuse->status, SEAM_OK);
        assert_int_equal(plain->summary.iterations, 4 * 50);   /* each: 3 to exact positions, 1 confirming the loads */
        assert_int_equal(reuse->summary.iterations, s == 0 ? 4 * 50 : 4 + 3 * 49);
        assert_true(deviation_from_monolithic(reuse, m_s + m_a, k, dt) < 1e-10);
        test_run_free(plain);
        test_run_free(reuse);
    }
}

static void test_aitken_converges_where_relaxation_diverges(void **state)
{
    (void)state;
    double m_s = 1.0, m_a = 3.0, k = 40.0, dt = 0.01;
    double r = m_a / (m_s + k * dt * dt), omega = 1.2 * 2.0 / (1.0 + r);
    char extra[128];
    snprintf(extra, sizeof extra, ", \"relaxation\": %.17g", omega);
    test_run *relax = run_piston("schemes_relax_diverges", "relaxation", extra, m_s, m_a, k, dt, 0.5);
    assert_int_equal(relax->status, SEAM_ERROR);
    assert_non_null(strstr(relax->log, "diverged at step 0"));
    test_run_free(relax);
    test_run *aitken = run_piston("schemes_aitken", "aitken", extra, m_s, m_a, k, dt, 0.5);
    if (aitken->status != SEAM_OK)
        fail_msg("%s", aitken->log);
    assert_true(deviation_from_monolithic(aitken, m_s + m_a, k, dt) < 1e-10);
    /* Secant on a linear scalar map: exact at the third iteration of step 0;
     * later steps start from that factor (below the bound) and need two. */
    assert_int_equal(aitken->summary.max_iterations, 4);   /* and one more confirming the loads */
    assert_int_equal(aitken->summary.iterations, 4 + 3 * 49);
    test_run_free(aitken);
}

/* A bad scheme parameter is refused naming the key; a key of another
 * scheme is accepted with a warning naming the scheme that reads it. */
static void test_scheme_keys_are_checked(void **state)
{
    (void)state;
    const char *scenes[][2] = {
        {"{\"time\": {\"end\": 0.1, \"dt\": 0.01}, \"coupling\": {\"scheme\": \"rmi\", \"rmi_solver\": \"lu\"},"
         " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 1},"
         " \"solids\": [{\"plugin\": \"piston_solid\", \"mass\": 1, \"stiffness\": 40, \"position\": 0.1}]}",
         "coupling.rmi_solver"},
        {"{\"time\": {\"end\": 0.1, \"dt\": 0.01}, \"coupling\": {\"scheme\": \"iqn-ils\", \"filter\": 1.5},"
         " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 1},"
         " \"solids\": [{\"plugin\": \"piston_solid\", \"mass\": 1, \"stiffness\": 40, \"position\": 0.1}]}",
         "coupling.filter"},
    };
    for (int i = 0; i < 2; i++) {
        char log[16384];
        assert_true(test_scene_refused(scenes[i][0], NULL, NULL, log, sizeof log));
        if (!strstr(log, scenes[i][1]))
            fail_msg("expected %s in: %s", scenes[i][1], log);
    }
    test_run *r = run_piston("schemes_foreign_key", "aitken", ", \"reuse\": 3", 1.0, 1.0, 40.0, 0.01, 0.05);
    assert_int_equal(r->status, SEAM_OK);
    assert_non_null(strstr(r->log, "coupling.reuse has no effect: scheme \"aitken\" does not use it"));
    test_run_free(r);
}

/* on_nonconvergence "retry": relaxation at w = 0.3 with 2 iterations a step
 * leaves every step of the piston 30 to 40 times its 1e-6 m tolerance at
 * dt = 0.01 s; "retry" halves such a step (down to time.dt_min) until it
 * ends within 10 times its tolerance, "warn" commits them as they are. */
static void test_badly_unconverged_steps_are_retried(void **state)
{
    (void)state;
    const char *sets_warn[] = {"coupling.tolerance=1e-6", "coupling.max_iterations=2", "coupling.on_nonconvergence=warn",
                               "time.end=0.5", NULL};
    const char *sets_retry[] = {"coupling.tolerance=1e-6", "coupling.max_iterations=2",
                                "coupling.on_nonconvergence=retry", "time.end=0.5", NULL};
    test_run *w = test_run_scene("piston_unconverged_warn", NULL, "examples/piston.json", sets_warn);
    test_run *r = test_run_scene("piston_unconverged_retry", NULL, "examples/piston.json", sets_retry);
    assert_int_equal(w->status, SEAM_OK);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(w->summary.retries, 0);
    assert_int_equal(w->summary.steps, 50);
    assert_true(r->summary.retries > 0);
    assert_true(r->summary.steps > 50);
    size_t rows[2], cols[2];
    const char *paths[2] = {w->out, r->out};
    double worst[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/stats.csv", paths[k]);
        double *csv = test_read_csv(path, 0, &rows[k], &cols[k]);
        assert_non_null(csv);
        for (size_t i = 0; i < rows[k]; i++)
            worst[k] = fmax(worst[k], csv[i * cols[k] + 4]);   /* the residual column */
        free(csv);
    }
    print_message("2 iterations a step: warn commits residuals up to %.3g m in %ld steps; retry up to %.3g m in %ld "
                  "steps (%ld retries)\n", worst[0], w->summary.steps, worst[1], r->summary.steps, r->summary.retries);
    assert_true(worst[0] > 10 * 1e-6);
    assert_true(worst[1] <= 10 * 1e-6);
    test_run_free(w);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rmi_three_iterations),
        cmocka_unit_test(test_iqn_ils_three_iterations),
        cmocka_unit_test(test_reuse_saves_an_iteration),
        cmocka_unit_test(test_aitken_converges_where_relaxation_diverges),
        cmocka_unit_test(test_scheme_keys_are_checked),
        cmocka_unit_test(test_badly_unconverged_steps_are_retried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
