/* fluid_sph with solid_rigid through the coupler, Akbay 3.5: a light disc
 * (rho_s / rho_f = 0.05, examples/sph_light_ball.json) released under water
 * rises and floats. Fully submerged its added mass is 20 times its own, so
 * weak coupling must fail; `xpm` (reduced Jacobians with the first update
 * unrelaxed, the Akinci loads, which are conservative impulses already, and
 * the projection, idle here: a free surface leaves no enclosed region) is
 * stable and floats the disc where Archimedes puts it, and underrelaxed
 * Gauss-Seidel at omega = 0.05 gets there with more iterations (Fig. 3.5). */
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
#include "test_check.h"
#include "test_scene.h"

static const char *const SCENE = "examples/sph_light_ball.json";
static const double W = 0.4, R = 0.05, X0 = 0.2, RATIO = 0.05;

/* The disc's centre in row i: the mean of its interface points (evenly spaced on the circle). */
static void centre(const test_run *r, size_t i, double c[2])
{
    size_t points = r->n / 2;
    c[0] = c[1] = 0.0;
    for (size_t k = 0; k < points; k++)
        for (int d = 0; d < 2; d++)
            c[d] += r->X[i * r->n + 2 * k + (size_t)d] / (double)points;
}

/* Largest sideways offset of the centre from its start up to time t_end: the
 * rise is straight up by symmetry, so a sideways excursion is the instability. */
static double excursion(const test_run *r, double t_end)
{
    double worst = 0.0, c[2];
    for (size_t i = 0; i < r->rows && r->t[i] <= t_end + 1e-12; i++) {
        centre(r, i, c);
        worst = fmax(worst, fabs(c[0] - X0));
    }
    return worst;
}

static double mean_iterations(const test_run *r) { return (double)r->summary.iterations / (double)r->summary.steps; }

/* Weak coupling: within 0.05 s the disc shoots several cm sideways (measured
 * 0.066 m in 560 steps, the stable step down to 1e-5 s); Gauss-Seidel at omega = 0.5, at xpm's
 * tolerance and iteration limit, fails outright (at step 9). */
static void test_weak_coupling_fails(void **state)
{
    (void)state;
    const char *explicit[] = {"coupling.scheme=explicit", "time.end=0.05", "output.picture=false", NULL};
    test_run *r = test_run_scene("sph_light_explicit", NULL, SCENE, explicit);
    double off = excursion(r, 0.05);
    printf("explicit: %ld steps to t = %.3f s, sideways excursion %.4f m\n", r->summary.steps, r->summary.t, off);
    assert_true(r->status != SEAM_OK || off > 0.02);
    test_run_free(r);
    const char *relaxed[] = {"coupling.scheme=relaxation", "coupling.relaxation=0.5", "time.end=0.05",
                             "coupling.measures=[{\"quantity\": \"positions\", \"kind\": \"cells\", \"tolerance\": 0.05}]",
                             "coupling.max_iterations=30", "output.picture=false", NULL};
    r = test_run_scene("sph_light_relax_05", NULL, SCENE, relaxed);
    printf("relaxation omega 0.5: %s after %ld steps (t = %.4f s)\n", r->status == SEAM_OK ? "ran" : "failed",
           r->summary.steps, r->summary.t);
    assert_int_not_equal(r->status, SEAM_OK);
    test_run_free(r);
}

/* The disc's submerged fraction measured from the free surface, averaged
 * over the fluid's frames at t in [1.5, 3] s (the heave has not died out by
 * 3 s): in each frame the surface is the colour's half level
 * (sph_surface_level) on the particle columns at least 2 spacings from the
 * disc and from the walls, averaged, and the disc's centre is that of the
 * frame's row. A frame is written at the first step that reaches the next
 * multiple of time.frame (0.02 s; coupler/outputs.c), the steps' sizes vary
 * (xpm's dt), so the rows are replayed to find it. K and V0: the fluid's
 * kernel and particle volume. Its range over the frames in lo, hi; the
 * frames counted in *count. */
static double measured_fraction(const test_run *r, const sph_kernel *K, double V0, double *lo, double *hi, int *count)
{
    const double s = 0.01, frame_dt = 0.02;
    double sum = 0.0, next = frame_dt;
    *lo = 1.0, *hi = 0.0, *count = 0;
    int k = 0;
    for (size_t row = 1; row < r->rows; row++) {
        if (r->t[row] < next * (1.0 - 1e-9) && row + 1 < r->rows)
            continue;
        k++;
        next = (floor(r->t[row] * (1.0 + 1e-9) / frame_dt) + 1.0) * frame_dt;
        if (r->t[row] < 1.5 - 1e-9)
            continue;
        double c[2];
        centre(r, row, c);
        char path[1200];
        snprintf(path, sizeof path, "%s/fluid/fluid_sph_%06d.vtp", r->out, k);
        size_t n;
        double *P = test_read_vtk_points(path, &n), H = 0.0;
        int columns = 0;
        for (int j = 0; j < 40; j++) {
            double x = (j + 0.5) * s;
            if (fabs(x - c[0]) < R + 2.0 * s || x < 2.0 * s || x > W - 2.0 * s)
                continue;
            double level = sph_surface_level(K, V0, P, n, x, 0.05, 0.29);
            assert_false(isnan(level));
            H += level;
            columns++;
        }
        free(P);
        assert_true(columns >= 20);
        H /= columns;
        double f = sph_disc_segment(R, H - (c[1] - R)) / (M_PI * R * R);
        sum += f;
        *lo = fmin(*lo, f);
        *hi = fmax(*hi, f);
        (*count)++;
    }
    return sum / *count;
}

/* The light ball at solid density rho (the scene's is 50 kg/m^3), xpm as
 * the example has it: every step converged, the rise straight (under 5 mm
 * sideways up to 0.2 s; measured 0.0000 m, the rise keeps its symmetry), and
 * the submerged fraction measured from the surface within 25% of
 * Archimedes' rho_s / rho_f = 0.05. */
static bool light_ball_floats(const char *name, double rho, const char *what)
{
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.01, \"fill\": [0, 0, 0.4, 0.2]}", NULL);
    sph_kernel K = fl->f.K;
    double V0 = fl->V0;
    seam_plugin_v1()->destroy(fl);
    char density[96];
    snprintf(density, sizeof density, "solids[0].bodies[0].density=%g", rho);
    const char *sets[] = {"output.picture=false", density, NULL};
    test_run *r = test_run_scene(name, NULL, SCENE, sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    double lo, hi, off = excursion(r, 0.2);
    int count;
    double f = measured_fraction(r, &K, V0, &lo, &hi, &count);
    printf("xpm, rho_s %g kg/m^3: %ld steps, %.2f iterations per step (max %d); sideways %.4f m in the rise (to 0.2 "
           "s); submerged fraction from the surface %.4f over [1.5, 3] s (%d frames, %.4f .. %.4f)\n", rho,
           r->summary.steps, mean_iterations(r), r->summary.max_iterations, off, f, count, lo, hi);
    assert_true(count == 76);
    assert_true(off < 0.005);
    test_run_free(r);
    return test_within(what, f, RATIO, 0.25 * RATIO);
}

/* Strong coupling (the example as it is: xpm, first update unrelaxed, 0.05
 * cells = 10% of the particle radius, positions only) floats the disc at
 * rho_s / rho_f, the waterline measured from the surface: 0.039 (the
 * particle count's volume put it at 0.045; the column tops plus s/2, which
 * read a stirred surface low, at 0.031). At 5% submerged the disc's bottom
 * is 8 mm (0.8 spacing) under the surface, and 1.3 mm of depth is 20% of
 * the fraction: the tolerance is 25%. Its mutated twin, a disc 20% lighter
 * (ratio 0.04, measured 0.027), must fail the check. A disc 20% heavier
 * cannot be told from this one at this spacing, measured: at ratio 0.06 the
 * fraction reads 0.052 from the surface (0.057 from the count, 0.043 from
 * the column tops). Every reading floats the disc 0.6 to 1.5 mm (up to 0.15
 * spacing) shallower than Archimedes at each of the ratios 0.04, 0.05, 0.06,
 * so the 0.06 disc floats about where Archimedes puts the 0.05 one. How
 * the offset shrinks with the spacing is not measured. */
static void test_strong_coupling_floats(void **state)
{
    (void)state;
    test_expect_pass(light_ball_floats("sph_light_xpm", 50.0, "light ball, ratio 0.05: submerged fraction"),
                     "light ball");
    test_expect_fail(light_ball_floats("sph_light_xpm_lighter", 40.0,
                                       "light ball, ratio 0.04 (-20%) against 0.05's answer"),
                     "light ball 20% lighter");
}

/* Iterations per step during the rise at 1% of the particle radius (0.005
 * cells, Akbay's strong tolerance): Gauss-Seidel at omega = 0.05 converges
 * but needs more than xpm (measured to 0.5 s: 2.87 against 1.47; 1.55 before
 * solid_rigid's torque change; with the reduced Jacobians switched off,
 * plain unrelaxed iterations, 1.86). */
static void test_iterations(void **state)
{
    (void)state;
    const char *tol = "coupling.measures=[{\"quantity\": \"positions\", \"kind\": \"cells\", \"norm\": \"max\", "
                      "\"tolerance\": 0.005}]";
    const char *xpm[] = {tol, "time.end=0.5", "output.picture=false", NULL};
    const char *relaxed[] = {tol, "time.end=0.5", "output.picture=false", "coupling.scheme=relaxation",
                             "coupling.relaxation=0.05", "coupling.max_iterations=200", NULL};
    test_run *a = test_run_scene("sph_light_xpm_tight", NULL, SCENE, xpm);
    test_run *b = test_run_scene("sph_light_relax_005", NULL, SCENE, relaxed);
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(b->status, SEAM_OK);
    assert_int_equal(a->summary.not_converged, 0);
    assert_int_equal(b->summary.not_converged, 0);
    printf("to t = 0.5 s at 0.005 cells: xpm %.2f iterations per step (max %d), relaxation omega 0.05 %.2f (max %d)\n",
           mean_iterations(a), a->summary.max_iterations, mean_iterations(b), b->summary.max_iterations);
    assert_true(mean_iterations(b) >= 1.7 * mean_iterations(a));   /* 1.95; 1.54 with the Jacobians off */
    test_run_free(a);
    test_run_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weak_coupling_fails),
        cmocka_unit_test(test_strong_coupling_floats),
        cmocka_unit_test(test_iterations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
