/* What the coupler and the plugins refuse before a run, and what stops a
 * run that has gone where no answer can be right: a solid leaving its
 * fluid's domain; scenes whose keys ask for absurd or impossible things. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/config.h"
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

/* Mutations of the example scenes that must be refused before a step, each
 * with the piece of its message that names the key, the value and the
 * reason. The coupler's own checks (domain, tolerance, frames, gravity)
 * and the plugins' (densities, cells, point counts). */
static const struct {
    const char *scene;
    const char *set[3];
    const char *message;
} refusals[] = {
    {"examples/rising_disc.json", {"solids.0.bodies.0.position=[3, 3]", "solids.0.walls.max=[4, 4]"},
     "solids[0]: the solid lies entirely outside the domain of fluid \"fluid\" ([0, 1] x [0, 1.5] m): its interface spans"},
    /* solid_rigid's own check: a body whose centre is beyond its walls */
    {"examples/rising_disc.json", {"solids.0.bodies.0.position=[3, 3]"},
     "--set solids[0].bodies[0].position: solids[0].bodies[0].position: body \"disc\": its centre, x = 3, lies beyond "
     "walls.max[0] = 1; a body the walls hold must start inside them"},
    {"examples/rising_disc.json", {"solids.0.bodies.0.position=[0.95, 0.5]"},
     "solids[0]: 13 of its 31 interface points start outside the domain of fluid \"fluid\" ([0, 1] x [0, 1.5] m), the "
     "first, point 0, at (1.1, 0.5) m (above x = 1 m)"},
    {"examples/rising_disc.json",   /* domain over the wire */
     {"solids.0.bodies.0.position=[3, 3]", "solids.0.walls.max=[4, 4]", "fluid.process=separate"},
     "solids[0]: the solid lies entirely outside the domain of fluid \"fluid\" ([0, 1] x [0, 1.5] m)"},
    /* refused before the fluid's bind: bound first, fluid_sph samples the sphere's 5000 m^2 at 0.0125 m (3e7
     * samples, some 3 GB; this row then fails under `ulimit -v 3000000`); radius 60 took 24 GB and was killed */
    {"examples/sph_three_bodies.json", {"solids.0.bodies.0.radius=20"},
     "solids[0]: 655362 of its 655937 interface points start outside the domain of fluid \"fluid\" ([0, 0.7] x [0, 0.35] "
     "x [0, 0.35] m)"},
    {"examples/sph_ball.json", {"solids.0.bodies.0.position=[-1, 0.3]", "solids.0.walls.min=[-2, 0]"},
     "the solid lies entirely outside the domain of fluid \"fluid\" ([0, 0.8] x [0, 0.5] m)"},
    {"examples/rising_disc.json", {"coupling.convergence=absolute", "coupling.tolerance=2"},
     "--set coupling.tolerance: coupling.tolerance: a position tolerance of 2 m is wider than the domain of fluid "
     "\"fluid\" (1.5 m across): every iterate would pass as converged"},
    {"examples/rising_disc.json", {"time.frame=1e-9", "time.end=2e4"},
     "--set time.frame: time.frame: 1e-09 s would write at least 2e+06 frames over the run's 20000 s (a frame each "
     "step of at most 0.01 s), more than 1e+06"},
    {"examples/rising_disc.json", {"gravity=[0, -98100]"},
     "--set gravity: gravity: |g| = 98100 m/s^2 is more than 10000 m/s^2 (1000 times the Earth's 9.81)"},
    /* a plugin's own gravity, as the scene's */
    {"examples/smoke_cloth.json", {"solids.0.gravity=[0, 1e300, 0]"},
     "--set solids[0].gravity: solids[0].gravity: |g| = 1e+300 m/s^2 is more than 10000 m/s^2"},
    {"examples/rising_disc.json", {"fluid.density=1e7"},
     "--set fluid.density: fluid.density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got 10000000"},
    {"examples/rising_disc.json", {"fluid.density=0"},
     "fluid.density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got 0"},
    {"examples/rising_disc.json", {"solids.0.bodies.0.density=2e6"},
     "solids[0].bodies[0].density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got 2000000"},
    {"examples/rising_disc.json", {"solids.0.bodies.0.density=-600"},
     "solids[0].bodies[0].density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got -600"},
    {"examples/sph_ball.json", {"fluid.density=1e9"},
     "fluid.density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got 1000000000"},
    {"examples/smoke_cloth.json", {"fluid.density=-1.2"},
     "fluid.density: expected a number in [1e-9, 1e6] kg/m^3 (kg/m^2 in 2D), got -1.2"},
    {"examples/smoke_cloth.json", {"solids.0.bodies.0.material.density=4e6"},
     "solids[0].bodies[0].material.density: expected a number in [1e-9, 1e6] kg/m^2 (kg/m in 2D), got 4000000"},
    {"examples/rising_disc.json", {"fluid.cells=[1, 2]"},
     "--set fluid.cells: fluid.cells: 1 cells along x are too few to hold anything"},
    {"examples/rising_disc.json", {"fluid.cells=[32, 3]"},
     "3 cells along y are too few to hold anything"},
    {"examples/rising_disc.json", {"cell_size=1e-9"},
     "spacing 1e-09 m would sample the 1 bodies with about"},
    {"examples/sph_ball.json", {"cell_size=1e-6"},
     "lattice sites in the domain"},
    {"examples/rising_disc.json", {"time.end=1e999"},
     "--set time.end: time.end: expected a number in [1e-15, 1e9] s, got \"1e999\""},
};

static void test_absurd_scenes_are_refused(void **state)
{
    (void)state;
    static char log[65536];
    int wrong = 0;   /* every row is tried, each failure printed */
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        if (!test_scene_refused(NULL, refusals[i].scene, refusals[i].set, log, sizeof log)) {
            print_error("row %zu: %s with --set %s was accepted\n", i, refusals[i].scene, refusals[i].set[0]);
            wrong++;
        } else if (!strstr(log, refusals[i].message)) {
            print_error("row %zu: expected \"%s\" in:\n%s\n", i, refusals[i].message, log);
            wrong++;
        } else if (strstr(log, ": unknown key")) {   /* every key here is known: a refusal names no other cause */
            print_error("row %zu: a known key called unknown in:\n%s\n", i, log);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

/* The measures' form of the tolerance check names the measure's own key. */
static void test_a_measure_wider_than_the_domain_is_refused(void **state)
{
    (void)state;
    static char log[65536];
    const char *const sets[] = {"coupling.scheme=relaxation", NULL};
    const char *scene =
        "{\"time\": {\"end\": 0.1, \"dt\": 0.01}, \"cell_size\": 0.0625,"
        " \"coupling\": {\"scheme\": \"relaxation\", \"measures\": [{\"quantity\": \"loads\", \"tolerance\": 1e-3},"
        "   {\"quantity\": \"positions\", \"tolerance\": 3}]},"
        " \"fluid\": {\"plugin\": \"fluid_mac\", \"cells\": [16, 16]},"
        " \"solids\": [{\"name\": \"disc\", \"plugin\": \"solid_rigid\", \"dim\": 2, \"bodies\": ["
        "   {\"shape\": \"circle\", \"radius\": 0.15, \"position\": [0.5, 0.5], \"density\": 500}]}]}";
    assert_int_equal(test_scene_refused(scene, NULL, sets, log, sizeof log), 1);
    expect_in(log, "coupling.measures[1].tolerance: a position tolerance of 3 m is wider than the domain of fluid "
                   "\"fluid\" (1 m across)");
}

/* A dense disc (5000 kg/m^2 in water) sinking through the open floor of
 * the rising-disc tank (its solver's walls moved out of the way): it
 * starts 0.15 m above the floor and falls at about g (5000 - 1000) /
 * (5000 + 1000), so it crosses y = 0 after some 0.21 s. */
static void test_dense_body_sinking_out_stops_the_run(void **state)
{
    (void)state;
    const char *const sets[] = {"solids.0.bodies.0.density=5000", "fluid.boundary={\"bottom\": \"open\"}",
                                "solids.0.walls.min=[0, -10]", "cell_size=0.0625", "fluid.cells=[16, 24]",
                                "output.frames=false", NULL};
    test_run *r = test_run_scene("sinking_out", NULL, "examples/rising_disc.json", sets);
    assert_int_equal(r->status, SEAM_ERROR);
    expect_in(r->log, "[disc] error: left the domain of fluid \"fluid\" ([0, 1] x [0, 1.5] m) at step 21 (t = 0.22 s)");
    expect_in(r->log, "(below y = 0 m); the fluid cannot follow it there");
    assert_int_equal(r->summary.steps, 21);
    test_run_free(r);
}

/* An SPH lattice whose particles cannot fit in this machine's memory is refused at the fluid, before it is
 * counted or allocated: sph_ball's fill (0.8 m x 0.3 m) at a spacing that asks for 4 times the memory (each
 * particle at least 17 doubles in 2D). Before, cell_size 1.25e-5 (1.5e9 particles) counted them for 11 s and
 * then failed an allocation. */
static void test_sph_lattice_beyond_memory_is_refused(void **state)
{
    (void)state;
    static char log[65536];
    double limit = seam_cfg_memory_limit();
    assert_true(limit > 0.0);
    double s = sqrt(8.0 * 17.0 * 0.8 * 0.3 / (4.0 * limit));
    if (0.4 / (s * s) > 3.9e9) {   /* a machine with more memory than 4e9 lattice sites take: that limit comes first */
        print_message("skipped: %.3g GB of memory is more than the 4e9 lattice sites of fluid_sph take\n", limit / 1e9);
        skip();
    }
    char set[64];
    snprintf(set, sizeof set, "cell_size=%.6g", s);
    const char *const sets[] = {set, NULL};
    assert_int_equal(test_scene_refused(NULL, "examples/sph_ball.json", sets, log, sizeof log), 1);
    expect_in(log, "sph_ball.json:10:3: fluid: spacing ");
    expect_in(log, " m (the scene's cell_size): at least ");
    expect_in(log, "GB of memory, more than this machine's");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solid_leaving_the_domain_stops_the_run),
        cmocka_unit_test(test_dense_body_sinking_out_stops_the_run),
        cmocka_unit_test(test_absurd_scenes_are_refused),
        cmocka_unit_test(test_a_measure_wider_than_the_domain_is_refused),
        cmocka_unit_test(test_sph_lattice_beyond_memory_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
