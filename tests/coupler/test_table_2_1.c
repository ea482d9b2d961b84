/* Akbay's chapter-2 comparisons, shortened: what Table 2.1 and Fig. 2.11
 * claim with a known direction, on examples/cloth_jet.json (a 2D cloth
 * pinned in a smoke jet) and examples/smoke_balloon.json (a 2D balloon
 * filled by a smoke jet). bench/schemes/table_2_1.sh runs the whole table;
 * docs/performance.md has both scenes in full.
 *
 * - Table 2.1, M = 0.1, the first 0.5 s (25 steps), under the bench's one
 *   test (positions alone, 0.05 cells, at most 100 iterations): the
 *   underrelaxed partitioned scheme P (pressure loads) leaves steps
 *   unconverged at w = 0.05 and converges at w = 0.01 in some 30 iterations
 *   a step, as the thesis's P columns (28.2); XPM converges every step in
 *   fewer than half of P's, and XPM reusing 2 steps' pairs in a quarter.
 *   Measured: P w = 0.05 3 steps unconverged, P w = 0.01 29.7, XPM 10.8,
 *   XPM reuse 2 6.24 iterations a step; with the cloth 8 times heavier (the
 *   scene's earlier M) P converges at w = 0.05 and the first claim fails.
 * - Fig. 2.11, M = 0.8: in the hardest part of the balloon's inflation (the
 *   10 steps where P at w = 0.2 needs the most iterations) XPM needs at
 *   least 3 times fewer.
 * - XPM reusing past steps' pairs (seam's `reuse`) on the balloon: when the
 *   inflow's ramp ends (step 5, t = 0.1 s) the pairs of the ramp's steps
 *   mislead the reduced models into an interface the fluid refuses (a torn
 *   cloth), where without reuse the step converges in 2 iterations; rmi
 *   rejects the iterate, drops the pairs and the step converges at its dt.
 *   The comparison sits in the first 0.3 s, before the balloon's stretching
 *   makes the iterations depend on rounding: perturbing k_stretch by up to
 *   1e-7 (relative) changes no iteration count of either run, in the release,
 *   debugoptimized, plain and ASan+UBSan builds, with 1 or 2 threads; with
 *   the rejection disabled every perturbed reuse run stopped (12 of 12).
 *   Later (1.0 to 1.2 s, reuse 2) a 1e-13 perturbation alone moved the
 *   largest step's iterations between 4 and 30 and committed a step
 *   unconverged in 6 runs of 40, and the unperturbed run passed with the
 *   rejection disabled.
 * P's 4.2 times XPM's in the balloon's hardest part (bound 3) did not move
 * with k_stretch perturbed by 1e-13, in any build or thread count. */
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

/* Iterations of every committed step, from the run's stats.csv (column 3);
 * malloc'ed, *steps of them. */
static double *step_iterations(const test_run *r, size_t *steps)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", r->out);
    size_t cols;
    double *all = test_read_csv(path, 0, steps, &cols);
    assert_non_null(all);
    assert_true(cols > 5);
    double *it = malloc(*steps * sizeof *it);
    for (size_t i = 0; i < *steps; i++)
        it[i] = all[i * cols + 3];
    free(all);
    return it;
}

/* One run of the cloth at M = 0.1 (density 0.125 M, the scene's
 * description) for 0.5 s under the bench's test, with the scheme's keys. */
static test_run *light_cloth(const char *name, const char *k1, const char *k2, const char *k3)
{
    const char *const sets[] = {"time.end=0.5", "output.frames=false", "solids.0.bodies.0.material.density=0.0125",
                                "coupling.max_iterations=100", k1, k2, k3, NULL};
    return test_run_scene(name, NULL, "examples/cloth_jet.json", sets);
}

static void test_light_cloth_p_fails_xpm_converges(void **state)
{
    (void)state;
    test_run *r = light_cloth("table_2_1_p05", "coupling.scheme=relaxation", "coupling.relaxation=0.05",
                              "fluid.loads=pressure");
    int p05_failed = r->status != SEAM_OK || r->summary.not_converged > 0;
    long p05_unconverged = r->summary.not_converged;
    test_run_free(r);

    r = light_cloth("table_2_1_p01", "coupling.scheme=relaxation", "coupling.relaxation=0.01", "fluid.loads=pressure");
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    assert_true(r->summary.t > 0.5 - 1e-9);
    double mean_p01 = (double)r->summary.iterations / (double)r->summary.steps;
    test_run_free(r);

    r = light_cloth("table_2_1_xpm", "coupling.scheme=xpm", "coupling.reuse=0", "coupling.count=thesis");
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    assert_true(r->summary.t > 0.5 - 1e-9);
    double mean_xpm = (double)r->summary.iterations / (double)r->summary.steps;
    test_run_free(r);

    r = light_cloth("table_2_1_xpm_reuse", "coupling.scheme=xpm", "coupling.reuse=2", "coupling.count=thesis");
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    double mean_reuse = (double)r->summary.iterations / (double)r->summary.steps;
    test_run_free(r);
    print_message("M = 0.1 for 0.5 s: P w = 0.05 %s (%ld steps unconverged); P w = 0.01 %.2f, XPM %.2f, "
                  "XPM reuse 2 %.2f iterations per step\n", p05_failed ? "failed" : "converged", p05_unconverged,
                  mean_p01, mean_xpm, mean_reuse);
    assert_true(p05_failed);
    /* the thesis's P w = 0.01: 28.2 a step at M = 0.1 */
    assert_true(mean_p01 >= 20.0);
    assert_true(mean_xpm >= 2.0 && 2.0 * mean_xpm <= mean_p01);
    assert_true(4.0 * mean_reuse <= mean_p01);
}

static void test_balloon_hardest_part(void **state)
{
    (void)state;
    /* The first 0.8 s (40 steps) hold the hardest part: the taut cloth is
     * pushed by the enclosed region's pressure as the inflow ramps in. P is
     * counted on its residual before relaxing (the thesis's count, after
     * relaxing, accepts 1/w = 5 times the tolerance at w = 0.2); XPM as the
     * thesis counts, at least 2 a step. Both with the pressure projection. */
    const char *const xpm[] = {"time.end=0.8", "output.frames=false", NULL};
    test_run *r = test_run_scene("balloon_xpm", NULL, "examples/smoke_balloon.json", xpm);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    size_t nx, np;
    double *it_x = step_iterations(r, &nx);
    test_run_free(r);

    const char *const p[] = {"time.end=0.8", "output.frames=false", "coupling.scheme=relaxation",
                             "coupling.relaxation=0.2", "fluid.loads=pressure", "coupling.bpp=true",
                             "coupling.count=seam", NULL};
    r = test_run_scene("balloon_p", NULL, "examples/smoke_balloon.json", p);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    double *it_p = step_iterations(r, &np);
    test_run_free(r);
    assert_int_equal(nx, 40);
    assert_int_equal(np, 40);

    /* the hardest part: the window of 10 steps where P needs the most */
    double worst_p = 0.0, there_x = 0.0;
    for (size_t w = 0; w + 10 <= np; w++) {
        double sp = 0.0, sx = 0.0;
        for (size_t i = w; i < w + 10; i++) {
            sp += it_p[i];
            sx += it_x[i];
        }
        if (sp > worst_p) {
            worst_p = sp;
            there_x = sx;
        }
    }
    free(it_p);
    free(it_x);
    print_message("balloon, hardest 10 steps of P w = 0.2: P %.1f, XPM %.1f iterations per step (%.1fx)\n",
                  worst_p / 10, there_x / 10, worst_p / there_x);
    assert_true(worst_p >= 3.0 * there_x);
}

/* The steps whose iterate the fluid refused and rmi rejected, from the run's
 * warnings ("step 5: the fluid refused iterate 7"); at most max of them. */
static size_t refused_steps(const test_run *r, long *steps, size_t max)
{
    static const char key[] = ": the fluid refused iterate";
    size_t n = 0;
    for (const char *at = strstr(r->log, key); at && n < max; at = strstr(at + 1, key)) {
        const char *num = at;
        while (num > r->log && num[-1] >= '0' && num[-1] <= '9')
            num--;
        assert_true(num < at && num - r->log >= 5 && strncmp(num - 5, "step ", 5) == 0);
        steps[n++] = strtol(num, NULL, 10);
    }
    return n;
}

static void test_balloon_reuse_misled(void **state)
{
    (void)state;
    /* 0.3 s: 15 steps of 0.02 s, the inflow ramped in over the first 5 */
    const char *const own[] = {"time.end=0.3", "output.frames=false", NULL};
    test_run *r = test_run_scene("balloon_own_pairs", NULL, "examples/smoke_balloon.json", own);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    long refused[8];
    assert_int_equal(refused_steps(r, refused, 8), 0);
    size_t n0, n5;
    double *it_0 = step_iterations(r, &n0);
    test_run_free(r);

    const char *const reuse[] = {"time.end=0.3", "output.frames=false", "coupling.reuse=5", NULL};
    r = test_run_scene("balloon_reuse", NULL, "examples/smoke_balloon.json", reuse);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    assert_true(r->summary.t > 0.3 - 1e-9);
    size_t n_refused = refused_steps(r, refused, 8);
    double *it_5 = step_iterations(r, &n5);
    test_run_free(r);
    /* every step at the scene's dt: the rejection mended the step, no smaller dt was needed */
    assert_int_equal(n0, 15);
    assert_int_equal(n5, 15);
    assert_true(n_refused >= 1);
    long s = refused[0];
    assert_true(s >= 0 && s < 15);
    print_message("balloon, 0.3 s: reuse 5: %zu iterate(s) refused and rejected, first at step %ld: %.0f iterations "
                  "there; own pairs only: none refused, %.0f iterations\n", n_refused, s, it_5[s], it_0[s]);
    /* misled: measured 9 against 2 */
    assert_true(it_5[s] >= 2.0 * it_0[s]);
    free(it_0);
    free(it_5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_light_cloth_p_fails_xpm_converges),
        cmocka_unit_test(test_balloon_hardest_part),
        cmocka_unit_test(test_balloon_reuse_misled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
