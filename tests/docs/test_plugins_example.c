/* docs/plugins.md's example, as printed: the drag fluid coupled with the
 * piston solid is a damped oscillator m x'' + c x' + k x = 0, and converged
 * coupling reproduces its backward-Euler solution
 *     m (v' - v)/dt = -k x' - c v',  x' = x + dt v'. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/config.h"
#include "simulation.h"
#include "test_host.h"

static void test_docs_example_runs_and_is_a_damped_oscillator(void **state)
{
    (void)state;
    char scene[4096], dir[4096], err[1024];
    snprintf(scene, sizeof scene, "%s/docs/drag.json", getenv("SEAM_BUILD_ROOT"));
    snprintf(dir, sizeof dir, "%s/docs", getenv("SEAM_BUILD_ROOT"));
    setenv("SEAM_PLUGIN_PATH", dir, 1);
    seam_doc *doc = seam_doc_load(scene, err, sizeof err);
    assert_non_null(doc);
    /* The page's numbers, read back from its scene. */
    json_t *root = seam_doc_root(doc);
    double c = json_number_value(json_object_get(json_object_get(root, "fluid"), "drag"));
    json_t *solid = json_array_get(json_object_get(root, "solids"), 0);
    double m = json_number_value(json_object_get(solid, "mass"));
    double k = json_number_value(json_object_get(solid, "stiffness"));
    double x0 = json_number_value(json_object_get(solid, "position"));
    double dt = json_number_value(json_object_get(json_object_get(root, "time"), "dt"));
    assert_true(c > 0 && m > 0 && k > 0);

    seam_run_options opts = {.out_dir = test_tmpdir("docs_example")};
    seam_sim *sim = seam_sim_new(doc, &opts);
    assert_non_null(sim);
    assert_int_equal(seam_sim_run(sim), SEAM_OK);
    long steps = seam_sim_summary(sim)->steps;
    size_t n;
    int dim;
    double x_end = seam_sim_interface(sim, &n, &dim)[0];
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);

    double x = x0, v = 0.0;
    for (long s = 0; s < steps; s++) {
        double v_new = (m * v / dt - k * x) / (m / dt + k * dt + c);
        x += dt * v_new;
        v = v_new;
    }
    assert_float_equal(x_end, x, 1e-9);
    /* And it is damped: well below the release amplitude after 3 s
     * (exp(-c t / 2m) = 0.47 before backward Euler's own damping). */
    assert_true(fabs(x_end) < 0.5 * x0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_example_runs_and_is_a_damped_oscillator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
