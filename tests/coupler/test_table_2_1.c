/* Akbay's chapter-2 comparisons, shortened: what Table 2.1 and Fig. 2.11
 * claim with a known direction, on examples/cloth_jet.json (a 2D cloth
 * pinned in a smoke jet) and examples/smoke_balloon.json (a 2D balloon
 * filled by a smoke jet). bench/schemes/table_2_1.sh runs the whole table;
 * bench/RESULTS.md has both scenes in full.
 *
 * - Table 2.1, M = 0.1: the underrelaxed partitioned scheme P (pressure
 *   loads) at w = 0.5 fails for the light cloth (added mass some ten times
 *   the cloth's own: Gauss-Seidel converges only for w < 2 / (1 + r)), while
 *   XPM converges every step in a few iterations.
 * - Fig. 2.11, M = 0.8: in the hardest part of the balloon's inflation (the
 *   10 steps where P at w = 0.2 needs the most iterations) XPM needs at
 *   least 3 times fewer.
 * - XPM reusing past steps' pairs (seam's `reuse`) on the stretching
 *   balloon runs on past the steps where the reused pairs make iterates the
 *   fluid refuses (rmi rejects them; before, step 54 was committed
 *   unconverged and the run stopped at step 59). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

static void test_light_cloth_p_fails_xpm_converges(void **state)
{
    (void)state;
    /* M = 0.1: the cloth's density is M (rho_air L = 1 kg/m^2, the scene's description). */
    const char *const xpm[] = {"time.end=0.2", "output.frames=false", "solids.0.bodies.0.material.density=0.1",
                               NULL};
    test_run *r = test_run_scene("table_2_1_xpm", NULL, "examples/cloth_jet.json", xpm);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    double mean_xpm = (double)r->summary.iterations / (double)r->summary.steps;
    assert_true(r->summary.t > 0.2 - 1e-9);
    test_run_free(r);

    const char *const p[] = {"time.end=0.2", "output.frames=false", "solids.0.bodies.0.material.density=0.1",
                             "coupling.scheme=relaxation", "coupling.relaxation=0.5", "fluid.loads=pressure", NULL};
    r = test_run_scene("table_2_1_p", NULL, "examples/cloth_jet.json", p);
    int p_failed = r->status != SEAM_OK || r->summary.not_converged > 0;
    print_message("M = 0.1 for 0.2 s: xpm %.2f iterations per step, all converged; P w = 0.5 %s at t = %g s\n",
                  mean_xpm, p_failed ? "failed" : "converged", r->summary.t);
    test_run_free(r);
    assert_true(p_failed);
    /* the thesis's XPM needs 3.8 a step at M = 0.1; at least 2 by its count */
    assert_true(mean_xpm >= 2.0 && mean_xpm <= 5.0);
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

static void test_balloon_reuse_misled(void **state)
{
    (void)state;
    const char *const sets[] = {"time.end=1.2", "output.frames=false", "coupling.reuse=2", NULL};
    test_run *r = test_run_scene("balloon_reuse", NULL, "examples/smoke_balloon.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    assert_int_equal(r->summary.not_converged, 0);
    assert_true(r->summary.t > 1.2 - 1e-9);
    test_run_free(r);
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
