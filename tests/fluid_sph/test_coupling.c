/* fluid_sph: loads on a moving solid are the momentum it exchanges with the
 * fluid; a 3D tank runs. */
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

/* A plate (two-sided segment, 3 points 5 cm apart: too sparse for the 1 cm
 * particles, so the fluid samples it) pushed into a block of fluid without
 * gravity, far from the walls: the sum of the loads times dt is minus the
 * fluid's momentum change, and the plate is pushed back. */
static void push_plate(const char *viscosity)
{
    double X[6] = {0.2, 0.15, 0.2, 0.2, 0.2, 0.25}, mass[3] = {1, 1, 1};
    int32_t elems[4] = {0, 1, 1, 2};
    uint8_t two[2] = {1, 1};
    seam_interface iface = {2, 3, X, mass, NULL, 2, 2, elems, two, 1};
    test_host th;
    char json[512];
    snprintf(json, sizeof json, "{\"domain\": [0, 0, 0.6, 0.4], \"spacing\": 0.01, \"fill\": [0.215, 0.1, 0.4, 0.3], "
             "\"gravity\": [0, 0], \"xsph\": 0.05, \"viscosity\": %s}", viscosity);
    fluid_sph *fl = sph_make(&th, json, &iface);
    assert_true(fl->ns > 3);   /* densified */
    const seam_plugin *P = seam_plugin_v1();
    double V[6] = {0.5, 0, 0.5, 0, 0.5, 0}, F[6], Xe[6], dt = 2e-3;
    double total[2] = {0, 0}, momentum0[2] = {0, 0}, momentum1[2] = {0, 0};
    for (size_t i = 0; i < fl->n; i++)
        for (int c = 0; c < 2; c++)
            momentum0[c] += fl->f.m * fl->v_n[2 * i + (size_t)c];
    for (int step = 0; step < 20; step++) {
        for (int k = 0; k < 6; k++)
            Xe[k] = X[k] + dt * V[k];
        seam_step s = {step, step * dt, dt, 0};
        seam_input in = {3, 2, Xe, V, NULL};
        seam_output out = {3, 2, NULL, NULL, F};
        for (int it = 0; it < 2; it++) {   /* solve twice: the same answer from the committed state */
            s.iteration = it;
            assert_int_equal(P->solve(fl, &s, &in, &out), SEAM_OK);
        }
        assert_int_equal(P->commit(fl), SEAM_OK);
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 2; c++)
                total[c] += dt * F[2 * k + c];
        memcpy(X, Xe, sizeof X);
    }
    for (size_t i = 0; i < fl->n; i++)
        for (int c = 0; c < 2; c++)
            momentum1[c] += fl->f.m * fl->v_n[2 * i + (size_t)c];
    printf("viscosity %s: impulse on the plate %g %g, fluid momentum change %g %g\n", viscosity, total[0], total[1],
           momentum1[0] - momentum0[0], momentum1[1] - momentum0[1]);
    assert_true(total[0] < -1e-3);   /* the fluid resists the push */
    for (int c = 0; c < 2; c++)
        assert_float_equal(total[c], -(momentum1[c] - momentum0[c]), 1e-9 * fabs(total[0]) + 1e-12);
    P->destroy(fl);
}

static void test_momentum(void **state)
{
    (void)state;
    push_plate("0");
}

/* The same with the implicit viscosity (Takahashi ch. 4): its boundary terms
 * are reflected onto the plate too, so the balance still holds to round-off. */
static void test_momentum_viscous(void **state)
{
    (void)state;
    push_plate("20");
}

/* A 3D tank (12 x 12 x 8 particles) stays in place for a few steps. */
static void test_tank_3d(void **state)
{
    (void)state;
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0, 0.12, 0.12, 0.12], \"spacing\": 0.01, "
                                  "\"fill\": [0, 0, 0, 0.12, 0.08, 0.12], \"cfl\": 0.2}", NULL);
    assert_int_equal(fl->n, 12 * 12 * 8);
    sph_run(fl, 0.0, 0.1, 1.0, NULL, NULL);
    printf("3D: max speed %.3f m/s, density error %.2e\n", sph_max_speed(fl), sph_density_error(fl));
    assert_true(sph_max_speed(fl) < 0.1);
    assert_true(sph_density_error(fl) < 1e-3);
    seam_plugin_v1()->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_momentum),
        cmocka_unit_test(test_momentum_viscous),
        cmocka_unit_test(test_tank_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
