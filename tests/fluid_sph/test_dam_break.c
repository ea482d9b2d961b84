/* fluid_sph: the dam break of examples/sph_dam_break.json (its fluid alone,
 * up to the obstacle), against Martin and Moyce (1952): a square column of
 * water, side a, collapsing on a dry floor. Their front positions for n^2 = 1
 * (a = 2.25 in), dimensionless Z = x / a at T = t sqrt(2 g / a).
 *
 * From T = 1.83 on the front (the foremost particle plus s/2) is within 10%
 * of theirs (measured +7.3% at T = 1.83, 0.6 to 4% from T = 2.3; with s =
 * a/40: +9.1%, then within 6.3%). Before, it leads theirs by 11 to 14% at T =
 * 0.84 to 1.43 (16% with s = a/40: the lead grows with resolution, so it is
 * not the particles' coarseness); the experiment's column did not start all
 * at once (its release took time), so these points are checked only for the
 * direction: ahead of theirs, by at most 20%.
 *
 * The fluid keeps its mass (every particle, none created or lost), and no
 * particle leaves the domain. Lone particles at the tip of the surge, on the
 * floor, have 0.95 rho0 there (their own kernel and the wall's) and no
 * pressure to keep them up: hold_in_domain holds them 1e-3 s above the floor
 * (87 particle-steps of about 550 here), counted and printed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "seam/config.h"
#include "sph_test.h"

/* Martin and Moyce 1952, n^2 = 1: T and Z of the surge front. */
static const double mm_T[] = {0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33};
static const double mm_Z[] = {1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11};

static void test_dam_break(void **state)
{
    (void)state;
    char err[1024];
    seam_doc *doc = seam_doc_load(test_source_path("examples/sph_dam_break.json"), err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    json_t *root = seam_doc_root(doc), *fluid = json_deep_copy(json_object_get(root, "fluid"));
    json_object_del(fluid, "plugin");   /* the coupler's key, not the plugin's */
    json_object_set_new(fluid, "spacing", json_real(json_number_value(json_object_get(root, "cell_size"))));
    char *text = json_dumps(fluid, 0);
    json_decref(fluid);
    seam_doc_destroy(&doc);
    test_host th;
    fluid_sph *fl = sph_make(&th, text, NULL);
    free(text);
    const seam_plugin *P = seam_plugin_v1();
    /* the column: a = the fill box's side */
    const double a = fl->cfg.fill[2] - fl->cfg.fill[0], g = 9.81, t_scale = sqrt(2.0 * g / a);
    assert_true(fabs(fl->cfg.fill[3] - fl->cfg.fill[1] - a) < 1e-12);
    size_t n0 = fl->n, clamped = 0;
    double mass0 = (double)fl->n * fl->f.m, t = 0.0, worst = 0.0;
    size_t k = 0, nk = sizeof mm_T / sizeof mm_T[0];
    for (int64_t step = 0; k < nk; step++) {
        double dt, t_next = mm_T[k] / t_scale;
        assert_int_equal(P->max_dt(fl, &dt), SEAM_OK);
        dt = fmin(dt, t_next - t);
        seam_step s = {step, t, dt, 0};
        seam_input in = {0, 2, NULL, NULL, NULL};
        seam_output out = {0, 2, NULL, NULL, NULL};
        if (P->solve(fl, &s, &in, &out) != SEAM_OK)
            fail_msg("step %lld at t = %g: %s", (long long)step, t, th.last);
        assert_int_equal(P->commit(fl), SEAM_OK);
        clamped += fl->clamped;
        t += dt;
        if (t < t_next - 1e-12)
            continue;
        double front = 0.0;
        for (size_t i = 0; i < fl->n; i++)
            front = fmax(front, fl->x_n[2 * i] + 0.5 * fl->cfg.s);
        double Z = (front - fl->cfg.lo[0]) / a, dev = Z / mm_Z[k] - 1.0;
        printf("T %.2f: Z %.3f, Martin and Moyce %.2f (%+.1f%%)\n", mm_T[k], Z, mm_Z[k], 100.0 * dev);
        if (mm_T[k] >= 1.8)
            worst = fmax(worst, fabs(dev));
        else if (!(dev > -0.05 && dev < 0.20))
            fail_msg("T %.2f: front Z %.3f, Martin and Moyce %.2f", mm_T[k], Z, mm_Z[k]);
        k++;
    }
    assert_int_equal(fl->n, n0);
    assert_float_equal((double)fl->n * fl->f.m, mass0, 0.0);
    for (size_t i = 0; i < fl->n; i++)
        for (int c = 0; c < 2; c++)
            assert_true(fl->x_n[2 * i + (size_t)c] > fl->cfg.lo[c] && fl->x_n[2 * i + (size_t)c] < fl->cfg.hi[c]);
    printf("largest deviation from Martin and Moyce from T = 1.83 on: %.1f%%; %zu particle-steps held at the sides\n",
           100.0 * worst, clamped);
    assert_true(worst <= 0.10);
    P->destroy(fl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dam_break),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
