/* fluid_sph with solid_rigid through the coupler: a disc floating in a tank
 * settles where Archimedes puts it. At rest the disc's weight rho_s pi R^2 g
 * is the weight of the fluid it displaces, so its submerged fraction (the
 * part of its area below the free surface) is rho_s / rho_f.
 *
 * The free surface is taken from the fluid's volume (sph_disc_fraction), not
 * from its top particles: n particles of volume V0 = m / rho0 (the fluid
 * stays at rest density within 1e-4) and the disc's submerged area fill the
 * tank's width W up to H, W H = n V0 + A(H). The top particles of a stirred
 * surface sink between each other: the mean of the column tops plus s/2 lies
 * about s/5 below H, which alone reads a half-submerged disc of R = 5 s as
 * 0.46. */
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

static const double W = 0.4, R = 0.05, S = 0.01;

/* Mean submerged fraction over [0.5 s, 1.5 s] of a disc of density rho_s
 * started with its centre at cy (the heave oscillation is averaged out);
 * keys: more keys of the fluid ("" for none), label: their name. */
static double mean_fraction(double rho_s, double cy, double V0, const char *label, const char *keys)
{
    char json[1024], name[64];
    snprintf(json, sizeof json,
             "{\"cell_size\": %g, \"time\": {\"end\": 1.5, \"dt\": 0.01},"
             " \"coupling\": {\"scheme\": \"iqn-ils\", \"convergence\": \"cells\", \"tolerance\": 0.05, \"max_iterations\": 20},"
             " \"fluid\": {\"plugin\": \"fluid_sph\", \"domain\": [0, 0, %g, 0.3], \"fill\": [0, 0, %g, 0.2]%s},"
             " \"solids\": [{\"name\": \"disc\", \"plugin\": \"solid_rigid\", \"dim\": 2,"
             " \"walls\": {\"min\": [0, 0], \"max\": [%g, 0.3]}, \"bodies\": [{\"name\": \"disc\", \"shape\": \"circle\","
             " \"radius\": %g, \"density\": %g, \"position\": [%g, %g]}]}],"
             " \"output\": {\"picture\": false, \"frames\": false}}",
             S, W, W, keys, W, R, rho_s, 0.5 * W, cy);
    snprintf(name, sizeof name, "sph_float_%g%s", rho_s, *keys ? "_keys" : "");
    test_run *r = test_run_scene(name, json, NULL, NULL);
    assert_int_equal(r->status, SEAM_OK);
    size_t n = sph_bound_particles(r->log);
    assert_true(n > 500);
    double sum = 0.0, lo = 1.0, hi = 0.0;
    int count = 0;
    size_t points = r->n / 2;
    for (size_t i = 0; i < r->rows; i++) {
        if (r->t[i] < 0.5 - 1e-9)
            continue;
        double y = 0.0;
        for (size_t k = 0; k < points; k++)
            y += r->X[i * r->n + 2 * k + 1];
        y /= (double)points;
        double f = sph_disc_fraction(W, R, (double)n * V0, y);
        sum += f;
        lo = fmin(lo, f);
        hi = fmax(hi, f);
        count++;
    }
    test_run_free(r);
    assert_true(count >= 90);
    printf("%s rho_s / rho_f %.2f: submerged fraction %.4f on average over %d steps (%.4f .. %.4f)\n",
           label, rho_s / 1000.0, sum / count, count, lo, hi);
    return sum / count;
}

/* Both ratios with the fluid's pressure solver named by keys. */
static void archimedes(const char *label, const char *keys)
{
    test_host th;
    /* V0 = m / rho0 of this fluid, from an instance of the same spacing */
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.01, \"fill\": [0, 0, 0.4, 0.2]}", NULL);
    double V0 = fl->V0;
    seam_plugin_v1()->destroy(fl);
    /* centres: half submerged, and 0.1 of the area below the fill level 0.2 (a segment 0.3129 R deep) */
    struct { double rho_s, cy; } cases[] = {{500.0, 0.2}, {100.0, 0.2 + R - 0.3129 * R}};
    for (size_t c = 0; c < 2; c++) {
        double want = cases[c].rho_s / 1000.0, got = mean_fraction(cases[c].rho_s, cases[c].cy, V0, label, keys);
        if (!(fabs(got - want) <= 0.05 * want))
            fail_msg("%s rho_s %g: mean submerged fraction %.4f, Archimedes %.4f", label,
                     cases[c].rho_s, got, want);
    }
}

/* The mutated twin: the half-submerged disc 20% heavier (600 kg/m^3) must
 * fail the check against 0.5. */
static void test_archimedes(void **state)
{
    (void)state;
    archimedes("dfsph", "");
    test_host th;
    fluid_sph *fl = sph_make(&th, "{\"domain\": [0, 0, 0.4, 0.3], \"spacing\": 0.01, \"fill\": [0, 0, 0.4, 0.2]}", NULL);
    double V0 = fl->V0;
    seam_plugin_v1()->destroy(fl);
    double got = mean_fraction(600.0, 0.2, V0, "dfsph, twin", "");
    test_expect_fail(test_within("disc of 600 kg/m^3 against 500's answer: submerged fraction", got, 0.5, 0.05 * 0.5),
                     "floating disc 20% heavier");
}

/* The same with Takahashi's pressure solver (takahashi.c) */
static void test_archimedes_takahashi(void **state)
{
    (void)state;
    archimedes("takahashi", ", \"pressure_solver\": \"takahashi\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_archimedes),
        cmocka_unit_test(test_archimedes_takahashi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
