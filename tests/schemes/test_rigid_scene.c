/* The rigid-body RMI (coupling.rigid_dofs) on examples/rising_disc.json:
 * on a heavy disc (900 kg/m^2 in water) xpm follows the same trajectory on
 * the disc's own coordinates as on its points, within the convergence
 * tolerance; on a light disc (100 kg/m^2, density ratio 0.1) it converges
 * every step at the scene's dt in few iterations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

static const double DX = 0.03125;   /* the scene's cell size */

/* mean of row i's points (the disc's centre, its samples being even) */
static void centre(const test_run *r, size_t i, double *c)
{
    size_t np = r->n / 2;
    c[0] = c[1] = 0.0;
    for (size_t k = 0; k < np; k++)
        c[0] += r->X[i * r->n + 2 * k] / (double)np, c[1] += r->X[i * r->n + 2 * k + 1] / (double)np;
}

static double mean_iterations(const test_run *r)
{
    return (double)r->summary.iterations / (double)r->summary.steps;
}

static test_run *run_disc(const char *name, const char *density, const char *rigid_dofs, const char *end)
{
    const char *sets[] = {"coupling.scheme=xpm", density, rigid_dofs, end, "output.picture=false",
                          "output.probes=[]", NULL};
    return test_run_scene(name, NULL, "examples/rising_disc.json", sets);
}

static void test_heavy_disc_same_trajectory(void **state)
{
    (void)state;
    test_run *a = run_disc("rd_heavy_dofs", "solids[0].bodies[0].density=900", "coupling.rigid_dofs=true", "time.end=0.5");
    test_run *b = run_disc("rd_heavy_pts", "solids[0].bodies[0].density=900", "coupling.rigid_dofs=false", "time.end=0.5");
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(b->status, SEAM_OK);
    assert_int_equal(a->rows, b->rows);
    double worst = 0.0, ca[2], cb[2], c0[2];
    for (size_t i = 0; i < a->rows; i++) {
        centre(a, i, ca);
        centre(b, i, cb);
        worst = fmax(worst, hypot(ca[0] - cb[0], ca[1] - cb[1]));
    }
    centre(a, 0, c0);
    centre(a, a->rows - 1, ca);
    printf("heavy disc to 0.5 s: centres apart by %.3g m at most (%.3g cells), risen %.4f m; %.2f and %.2f iterations "
           "per step\n", worst, worst / DX, ca[1] - c0[1], mean_iterations(a), mean_iterations(b));
    assert_true(ca[1] - c0[1] > 0.005);   /* it rises */
    assert_true(worst <= 0.02 * DX);      /* the scene's tolerance */
    test_run_free(a);
    test_run_free(b);
}

static void test_light_disc_converges(void **state)
{
    (void)state;
    test_run *a = run_disc("rd_light_dofs", "solids[0].bodies[0].density=100", "coupling.rigid_dofs=true", "time.end=0.4");
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(a->summary.not_converged, 0);
    printf("light disc to 0.4 s: %ld steps, %.2f iterations per step\n", a->summary.steps, mean_iterations(a));
    assert_int_equal(a->summary.steps, 40);   /* no step retried with a smaller dt */
    assert_true(mean_iterations(a) <= 4.0);
    test_run_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_disc_same_trajectory),
        cmocka_unit_test(test_light_disc_converges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
