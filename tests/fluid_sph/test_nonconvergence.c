/* fluid_sph's solves that miss their tolerance: DFSPH's capped Jacobi
 * commits the step with a warning naming the step (its practice), the
 * takahashi MGCG and the implicit viscosity CG fail the solve
 * (SEAM_UNSTABLE) with the iterations, the error reached and the tolerance;
 * through the coupler the step is retried down to time.dt_min and the run
 * stops naming the participant, the step and that cause. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sph_test.h"
#include "test_scene.h"

/* A column of water against the left wall: its first step compresses the bottom rows. */
#define COLUMN "\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.01, \"fill\": [0, 0, 0.2, 0.2], \"cfl\": 0.2"

static seam_status one_step(fluid_sph *fl, int64_t index, double t, double dt)
{
    seam_step step = {index, t, dt, 0};
    return seam_plugin_v1()->solve(fl, &step, NULL, NULL);
}

static void test_dfsph_cap_warns_at_commit(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{" COLUMN ", \"max_iterations\": 1}", NULL);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(one_step(fl, k, k * 4e-3, 4e-3), SEAM_OK);
        printf("step %d: density error %.3g after %d iterations\n", k, fl->last_rho.error, fl->last_rho.iterations);
        assert_int_equal(seam_plugin_v1()->commit(fl), SEAM_OK);
    }
    assert_true(fl->last_rho.error > fl->cfg.eta_rho);
    assert_true(test_host_saw(&th, "step 2: the DFSPH density solve stopped at max_iterations 1 with average density "
                                   "error"));
    assert_true(test_host_saw(&th, "> density_tolerance 0.0005; the step is committed with it"));
    seam_plugin_v1()->destroy(fl);
    /* The same column with the default cap converges: no such warning. */
    fl = sph_make(&th, "{" COLUMN "}", NULL);
    assert_int_equal(one_step(fl, 0, 0.0, 4e-3), SEAM_OK);
    assert_int_equal(seam_plugin_v1()->commit(fl), SEAM_OK);
    assert_false(test_host_saw(&th, "DFSPH"));
    seam_plugin_v1()->destroy(fl);
}

static void test_takahashi_short_fails(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{" COLUMN ", \"pressure_solver\": \"takahashi\", \"max_iterations\": 2}", NULL);
    assert_int_equal(one_step(fl, 7, 0.0, 2e-3), SEAM_UNSTABLE);
    assert_true(test_host_saw(&th, "step 7 iteration 0: the takahashi pressure solve (MGCG) did not converge: 2 "
                                   "iterations (max_iterations 2), mean density error"));
    assert_true(fl->last_rho.error > fl->cfg.eta_rho);
    assert_int_equal(seam_plugin_v1()->commit(fl), SEAM_ERROR);   /* nothing to commit */
    seam_plugin_v1()->destroy(fl);
    /* With its default cap the same step converges. */
    fl = sph_make(&th, "{" COLUMN ", \"pressure_solver\": \"takahashi\"}", NULL);
    assert_int_equal(one_step(fl, 0, 0.0, 2e-3), SEAM_OK);
    assert_true(fl->last_rho.error <= fl->cfg.eta_rho);
    seam_plugin_v1()->destroy(fl);
}

static void test_viscosity_short_fails(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl =
        sph_make(&th, "{" COLUMN ", \"viscosity\": 1, \"viscosity_tolerance\": 1e-10, \"max_iterations\": 1}", NULL);
    assert_int_equal(one_step(fl, 3, 0.0, 2e-3), SEAM_UNSTABLE);
    assert_true(test_host_saw(&th, "step 3 iteration 0: the implicit viscosity CG did not converge: 1 iterations "
                                   "(max_iterations 1), relative residual"));
    assert_true(test_host_saw(&th, "> viscosity_tolerance 1e-10"));
    seam_plugin_v1()->destroy(fl);
}

/* Through the coupler: the refused step is retried down to time.dt_min, then
 * the run stops with the participant, the step and the solver's words. */
static void test_coupler_names_who_and_why(void **state)
{
    (void)state;
    const char *sets[] = {"time.end=0.02", "time.dt_min=0.0025", "fluid.pressure_solver=\"takahashi\"",
                          "fluid.max_iterations=1", "output.picture=false", NULL};
    test_run *r = test_run_scene("sph_takahashi_short", NULL, "examples/sph_ball.json", sets);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.steps, 0);
    assert_true(r->summary.retries >= 1);   /* down from the fluid's max_dt to time.dt_min */
    assert_non_null(strstr(r->log, "[fluid] error: step 0 (t = 0 s) is unstable even at dt = "));
    assert_non_null(strstr(r->log, "(time.dt_min = 0.0025 s): step 0 iteration 0: the takahashi pressure solve (MGCG) "
                                   "did not converge: 1 iterations (max_iterations 1), mean density error"));
    assert_string_equal(r->names[0], "fluid");
    assert_int_equal(r->warnings[0], r->summary.retries + 1);   /* the solver's own, one at each step size */
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dfsph_cap_warns_at_commit),
        cmocka_unit_test(test_takahashi_short_fails),
        cmocka_unit_test(test_viscosity_short_fails),
        cmocka_unit_test(test_coupler_names_who_and_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
