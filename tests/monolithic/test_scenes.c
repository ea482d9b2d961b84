/* The monolithic mode through the coupler (`coupling.scheme: "monolithic"`):
 * the same scene file as a partitioned run, the same output files, and
 * physics with a known answer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

/* The lowest y of the block's outline in row r (2D interface). */
static double bottom(const test_run *r, size_t row)
{
    double y = INFINITY;
    for (size_t k = 1; k < r->n; k += 2)
        y = fmin(y, r->X[row * r->n + k]);
    return y;
}

/* The mean of the block's bottom over t in [t0, t1]. */
static double mean_bottom(const test_run *r, double t0, double t1)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t row = 0; row < r->rows; row++)
        if (r->t[row] >= t0 && r->t[row] <= t1) {
            sum += bottom(r, row);
            n++;
        }
    assert_true(n > 0);
    return sum / (double)n;
}

/* examples/floating_block.json: a block of half the water's density floats
 * half submerged. With the water's volume kept, its bottom y_b and the
 * submerged fraction f are tied by y_b = 0.6 - 0.16 f (the scene's
 * description), so f = (0.6 - y_b) / 0.16, averaged over the last second
 * (the block still bobs with a period of about 0.6 s). The partitioned run
 * of the same file must agree: print their distance over time. */
static void test_archimedes_and_partitioned(void **state)
{
    (void)state;
    const char *mono_sets[] = {"coupling.scheme=monolithic", "output.frames=false", NULL};
    test_run *m = test_run_scene("monolithic_float", NULL, "examples/floating_block.json", mono_sets);
    assert_int_equal(m->status, SEAM_OK);
    double f_mono = (0.6 - mean_bottom(m, 1.0, 2.0)) / 0.16;
    const char *part_sets[] = {"output.frames=false", NULL};
    test_run *p = test_run_scene("partitioned_float", NULL, "examples/floating_block.json", part_sets);
    assert_int_equal(p->status, SEAM_OK);
    double f_part = (0.6 - mean_bottom(p, 1.0, 2.0)) / 0.16;
    printf("submerged fraction over t in [1, 2] s: monolithic %.4f, partitioned (iqn-ils) %.4f, Archimedes 0.5\n",
           f_mono, f_part);
    /* the same layout: one row a step, the same points */
    assert_int_equal(m->n, p->n);
    double worst = 0.0;
    printf("   t (s)   max distance of the interface points, monolithic - partitioned (m)\n");
    for (size_t row = 0; row < m->rows && row < p->rows; row++) {
        double d = 0.0;
        assert_float_equal(m->t[row], p->t[row], 1e-12);
        for (size_t k = 0; k < m->n; k += 2)
            d = fmax(d, hypot(m->X[row * m->n + k] - p->X[row * p->n + k],
                              m->X[row * m->n + k + 1] - p->X[row * p->n + k + 1]));
        worst = fmax(worst, d);
        if (row % 40 == 0)
            printf("  %6.3f  %.4f\n", m->t[row], d);
    }
    printf("largest distance %.4f m (%.2f cells)\n", worst, worst / 0.05);
    assert_true(fabs(f_mono - 0.5) <= 0.025);
    assert_true(worst <= 0.05);   /* one cell */
    test_run_free(m);
    test_run_free(p);
}

/* examples/supported_body.json (Akbay 4.3.1) on a coarser grid: a rigid
 * body closes a tank of fluid. The fluid cannot leave, so the coupled
 * projection holds the body where it is (a partitioned scheme needs the
 * boundary pressure projection for that, and without it the body sinks):
 * its outline moves by no more than the solver's tolerance allows. */
static void test_supported_body(void **state)
{
    (void)state;
    const char *sets[] = {"coupling.scheme=monolithic", "cell_size=0.0125", "fluid.cells=[48,80]", "time.end=0.2",
                          "time.dt=0.01", "output.frames=false", NULL};
    test_run *m = test_run_scene("monolithic_supported", NULL, "examples/supported_body.json", sets);
    assert_int_equal(m->status, SEAM_OK);
    double worst = 0.0;
    for (size_t row = 0; row < m->rows; row++)
        for (size_t k = 0; k < m->n; k++)
            worst = fmax(worst, fabs(m->X[row * m->n + k] - m->X[k]));
    printf("supported body: largest displacement of its outline over %zu steps %.3g m (the body would fall %.3g m "
           "freely)\n", m->rows - 1, worst, 0.5 * 9.8 * 0.2 * 0.2);
    assert_true(worst <= 1e-6);
    test_run_free(m);
}

/* What the monolithic solver cannot take is refused by key, before a step. */
static void test_refusals(void **state)
{
    (void)state;
    char log[8192];
    const char *shell[] = {"coupling.scheme=monolithic",
                           "solids[0].bodies[0].material={\"kind\": \"shell\", \"k_stretch\": 1e4, \"density\": 1}",
                           "solids[0].bodies[0].mesh={\"generate\": \"chain\", \"start\": [0.8, 0.7], \"end\": [1.2, 0.7], "
                           "\"segments\": 8}",
                           NULL};
    assert_true(test_scene_refused(NULL, "examples/floating_block.json", shell, log, sizeof log));
    assert_non_null(strstr(log, "volumetric solids only"));
    const char *viscous[] = {"coupling.scheme=monolithic", "fluid.viscosity=1e-3", NULL};
    assert_true(test_scene_refused(NULL, "examples/floating_block.json", viscous, log, sizeof log));
    assert_non_null(strstr(log, "viscosity: the monolithic projection is inviscid"));
    const char *separate[] = {"coupling.scheme=monolithic", "solids[0].process=separate", NULL};
    assert_true(test_scene_refused(NULL, "examples/floating_block.json", separate, log, sizeof log));
    assert_non_null(strstr(log, "solids[0].process"));
    const char *sph[] = {"coupling.scheme=monolithic", "fluid.plugin=fluid_sph", NULL};
    assert_true(test_scene_refused(NULL, "examples/floating_block.json", sph, log, sizeof log));
    assert_non_null(strstr(log, "fluid.plugin"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_supported_body),
        cmocka_unit_test(test_archimedes_and_partitioned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
