/* fluid_sph: a 2D tank of water at rest. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sph_test.h"

static void test_tank(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.5, 0.5], \"spacing\": 0.01, \"fill\": [0, 0, 0.5, 0.4]}", NULL);
    double t = 0.0;
    for (int k = 1; k <= 20; k++) {
        t = sph_run(fl, t, 0.1 * k, 1.0, NULL, NULL);
        double H = (double)fl->n * fl->V0 / 0.5, sum = 0.0, depth = 0.0;
        int count = 0;
        for (size_t i = 0; i < fl->n; i++) {
            double y = fl->x_n[2 * i + 1];
            if (y > 0.08 && y < 0.12) {
                sum += fl->p_n[i];
                depth += H - y;
                count++;
            }
        }
        printf("t %.2f vmax %.4f rho_err %.2e p/rhogh %.4f iters %d %d\n", t, sph_max_speed(fl), sph_density_error(fl),
               sum / (1000 * 9.81 * depth), fl->last_rho.iterations, fl->last_div.iterations);
    }
    seam_plugin_v1()->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
