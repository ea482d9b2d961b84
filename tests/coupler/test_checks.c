/* What the coupler and the plugins refuse before a run, and what stops a
 * run that has gone where no answer can be right: a solid leaving its
 * fluid's domain; scenes whose keys ask for absurd or impossible things. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_scene.h"

/* A kinematic disc (radius 0.15 m, centre (0.5, 0.5)) carried at 2 m/s
 * towards the open right side of a 1 m x 1 m smoke box: its rightmost
 * point, at x = 0.65 + 2 t, crosses x = 1 between t = 0.17 and 0.18 s. */
static const char *const leaving_scene =
    "{\"time\": {\"end\": 0.5, \"dt\": 0.01},"
    " \"cell_size\": 0.0625,"
    " \"coupling\": {\"scheme\": \"explicit\"},"
    " \"fluid\": {\"plugin\": \"fluid_mac\", \"cells\": [16, 16], \"loads\": \"pressure\","
    "            \"boundary\": {\"right\": \"open\"}},"
    " \"solids\": [{\"name\": \"disc\", \"plugin\": \"solid_rigid\", \"dim\": 2, \"bodies\": ["
    "   {\"name\": \"disc\", \"shape\": \"circle\", \"radius\": 0.15, \"position\": [0.5, 0.5],"
    "    \"kinematic\": {\"velocity\": [2, 0]}}]}],"
    " \"output\": {\"frames\": false, \"picture\": false}}";

static void expect_in(const char *log, const char *needle)
{
    if (!strstr(log, needle))
        fail_msg("expected \"%s\" in:\n%s", needle, log);
}

/* The run stops at the step whose end leaves the disc outside the box,
 * naming the solid, the step and the side, and commits nothing past it. */
static void test_solid_leaving_the_domain_stops_the_run(void **state)
{
    (void)state;
    test_run *r = test_run_scene("leaving_domain", leaving_scene, NULL, NULL);
    assert_int_equal(r->status, SEAM_ERROR);
    assert_int_equal(r->summary.outcome, SEAM_RUN_ERROR);
    expect_in(r->log, "[disc] error: left the domain of fluid \"fluid\" ([0, 1] x [0, 1] m) at step 17 (t = 0.18 s)");
    expect_in(r->log, "(above x = 1 m); the fluid cannot follow it there");
    assert_int_equal(r->summary.steps, 17);   /* steps 0..16 committed, 17 refused */
    /* every committed position lies in the box */
    for (size_t i = 0; i < r->rows * r->n; i += 2)
        assert_true(r->X[i] <= 1.0);
    test_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solid_leaving_the_domain_stops_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
