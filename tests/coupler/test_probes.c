/* output.probes: probes.csv against known answers, and the scene checks.
 *
 * Piston (examples/piston.json): backward Euler on the piston, m_s (v' - v)/dt
 * = -k x' + F, with the column's F = -m_a (v' - v)/dt, gives
 * (m_s + m_a)(v' - v)/dt = -k x', so the load on the piston is exactly
 *     F = m_a k x' / (m_s + m_a)
 * and x' follows the recurrence (m_s + m_a)(x' - 2x + x_prev) = -k dt^2 x'.
 *
 * Tank (examples/rising_disc.json with a disc of the water's density): the
 * water stays at rest, so the pressure between two points is hydrostatic,
 * p(y1) - p(y2) = rho g (y2 - y1), and the load on the disc balances its
 * weight rho_s pi r^2 g. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "report.h"
#include "test_scene.h"

/* probes.csv of a run: its rows and the columns named in names (NULL-terminated). */
static double *read_probes(const test_run *r, size_t *rows, size_t *cols, const char *header)
{
    char path[1200], line[1024];
    snprintf(path, sizeof path, "%s/probes.csv", r->out);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, header);
    double *v = test_read_csv(path, 0, rows, cols);
    assert_non_null(v);
    return v;
}

static void test_piston_load(void **state)
{
    (void)state;
    const double m_s = 1.0, m_a = 2.0, k = 39.47841760435743, dt = 0.01;
    const char *const sets[] = {"output.probes=[{\"name\": \"piston\", \"solid\": \"piston\"}]", NULL};
    test_run *r = test_run_scene("probes_piston", NULL, "examples/piston.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    size_t rows, cols;
    double *v = read_probes(r, &rows, &cols, "step,t,piston.x,piston.fx\n");
    assert_int_equal(rows, 200);
    assert_int_equal(cols, 4);
    double x_prev = 0.1, x = 0.1;   /* released from rest at 0.1 m */
    for (size_t i = 0; i < rows; i++) {
        double x_next = (m_s + m_a) * (2.0 * x - x_prev) / (m_s + m_a + k * dt * dt);
        assert_int_equal((long)v[4 * i], (long)i);
        assert_float_equal(v[4 * i + 1], 0.01 * (double)(i + 1), 1e-12);
        assert_float_equal(v[4 * i + 2], x_next, 1e-8);   /* the scheme's 1e-10 m per step, summed */
        /* the load the piston received: the added mass's share of the spring force (tolerance 1e-10 m) */
        assert_float_equal(v[4 * i + 3], m_a * k * v[4 * i + 2] / (m_s + m_a), 1e-5);
        x_prev = x;
        x = x_next;
    }
    assert_true(fabs(v[4 * 199 + 3]) > 0.5);   /* it did swing: the force is not near zero throughout */
    free(v);
    test_run_free(r);
}

static void test_tank(void **state)
{
    (void)state;
    const double rho = 1000.0, g = 9.81, radius = 0.15;
    const char *const sets[] = {
        "time.end=0.05", "output.frames=false", "solids.0.bodies.0.density=1000",
        "output.probes=[{\"name\": \"low\", \"point\": [0.15, 0.4]}, {\"name\": \"high\", \"point\": [0.15, 1.2]},"
        " {\"name\": \"disc\", \"solid\": \"disc\", \"body\": 0}, {\"name\": \"still\", \"point\": [0.8, 1.0],"
        " \"field\": \"speed\"}]", NULL};
    test_run *r = test_run_scene("probes_tank", NULL, "examples/rising_disc.json", sets);
    assert_int_equal(r->status, SEAM_OK);
    size_t rows, cols;
    double *v = read_probes(r, &rows, &cols, "step,t,low.pressure,high.pressure,disc.x,disc.y,disc.fx,disc.fy,"
                                             "still.speed\n");
    assert_int_equal(rows, 5);
    assert_int_equal(cols, 9);
    double weight = rho * M_PI * radius * radius * g;
    for (size_t i = 0; i < rows; i++) {
        const double *row = v + i * cols;
        double dp = row[2] - row[3], expected = rho * g * (1.2 - 0.4);
        if (fabs(dp - expected) > 1e-3 * expected)
            fail_msg("step %zu: p(0.4) - p(1.2) = %.6g, hydrostatic %.6g", i, dp, expected);
        assert_float_equal(row[4], 0.5, 1e-3);
        assert_float_equal(row[5], 0.3, 1e-3);
        assert_true(fabs(row[6]) < 1e-3 * weight);
        if (fabs(row[7] - weight) > 0.01 * weight)   /* the staircase disc's own area is within 1% */
            fail_msg("step %zu: load on the disc %.6g N/m, its weight %.6g N/m", i, row[7], weight);
        assert_true(row[8] >= 0.0 && row[8] < 1e-3);   /* still water */
    }
    free(v);
    /* the report plots them: one plot per field, two per solid probe */
    assert_int_equal(seam_report_write(r->out, NULL, NULL), SEAM_OK);
    const char *images[] = {"probes_pressure.png", "probes_speed.png", "probes_disc_position.png",
                            "probes_disc_force.png"};
    char path[1200];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", r->out, images[i]);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 1000);
    }
    snprintf(path, sizeof path, "%s/index.html", r->out);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char page[1 << 16];
    page[fread(page, 1, sizeof page - 1, f)] = '\0';
    fclose(f);
    for (size_t i = 0; i < 4; i++)
        assert_non_null(strstr(page, images[i]));
    test_run_free(r);
}

static char *slurp(const test_run *r, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->out, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[2][1 << 16];
    static int which;
    char *b = buf[which++ % 2];
    b[fread(b, 1, sizeof buf[0] - 1, f)] = '\0';
    fclose(f);
    return b;
}

/* The fluid in its own process: its fields come over the protocol, and the
 * probes read the same doubles. */
static void test_remote_fluid(void **state)
{
    (void)state;
    const char *const inline_sets[] = {"time.end=0.03", "output.frames=false", NULL};
    const char *const remote_sets[] = {"time.end=0.03", "output.frames=false", "fluid.process=separate", NULL};
    test_run *a = test_run_scene("probes_inline", NULL, "examples/rising_disc.json", inline_sets);
    test_run *b = test_run_scene("probes_remote", NULL, "examples/rising_disc.json", remote_sets);
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(b->status, SEAM_OK);
    const char *pa = slurp(a, "probes.csv"), *pb = slurp(b, "probes.csv");
    const char *head = "step,t,disc.x,disc.y,disc.fx,disc.fy,floor.pressure\n0,0.01,";
    assert_true(strncmp(pa, head, strlen(head)) == 0);
    assert_non_null(strstr(pa, "\n2,0.029999999999999999,"));   /* the example's probes, three steps */
    assert_string_equal(pa, pb);
    test_run_free(a);
    test_run_free(b);
}

static void refused(const char *scene, const char *probes, const char *needle)
{
    char set[1024], log[65536];
    snprintf(set, sizeof set, "output.probes=%s", probes);
    const char *const sets[] = {set, NULL};
    assert_int_equal(test_scene_refused(NULL, scene, sets, log, sizeof log), 1);
    if (!strstr(log, needle))
        fail_msg("expected \"%s\" in:\n%s", needle, log);
}

/* A fluid whose only field is "pressure" and that refuses any other name
 * with a message, as plugin.h asks (tests/plugins/field_fluid.c): the
 * default picture (its "speed") is left out without a word, and a point
 * probe reads its pressure, linear in space, back exactly. */
static void test_fluid_without_speed(void **state)
{
    (void)state;
    const char *scene =
        "{\"time\": {\"end\": 0.03, \"dt\": 0.01},"
        " \"coupling\": {\"scheme\": \"relaxation\", \"relaxation\": 0.5, \"tolerance\": 1e-10},"
        " \"fluid\": {\"plugin\": \"field_fluid\", \"drag\": 0.5, \"p0\": 1000, \"gradient\": [10, 100]},"
        " \"solids\": [{\"name\": \"mass\", \"plugin\": \"piston_solid\", \"mass\": 1.0, \"stiffness\": 25.0,"
        " \"position\": 0.1}],"
        " \"output\": {\"probes\": [{\"name\": \"mid\", \"point\": [1.0, 1.0]},"
        " {\"name\": \"corner\", \"point\": [0.75, 1.25]}]}}";
    test_run *r = test_run_scene("probes_no_speed", scene, NULL, NULL);
    assert_int_equal(r->status, SEAM_OK);
    if (strstr(r->log, "no field"))
        fail_msg("the default picture's question reached the log:\n%s", r->log);
    size_t rows, cols;
    double *v = read_probes(r, &rows, &cols, "step,t,mid.pressure,corner.pressure\n");
    assert_int_equal(rows, 3);
    for (size_t i = 0; i < rows; i++) {
        assert_float_equal(v[cols * i + 2], 1000.0 + 10.0 * 1.0 + 100.0 * 1.0, 1e-9);
        assert_float_equal(v[cols * i + 3], 1000.0 + 10.0 * 0.75 + 100.0 * 1.25, 1e-9);
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/frames", r->out);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);   /* nothing to draw: no PNG frames */
    free(v);
    test_run_free(r);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *disc = "examples/rising_disc.json", *piston = "examples/piston.json";
    refused(disc, "[{\"name\": \"a\", \"point\": [0.5, 0.5]}, {\"name\": \"a\", \"point\": [0.5, 0.6]}]",
            "output.probes[1].name: probe name \"a\" is used twice");
    refused(disc, "[{\"name\": \"a.b\", \"point\": [0.5, 0.5]}]", "output.probes[0].name: a probe name is 1 to 64");
    refused(disc, "[{\"name\": \"a\"}]", "output.probes[0]: a probe names either a \"point\"");
    refused(disc, "[{\"name\": \"a\", \"point\": [0.5, 0.5], \"solid\": \"disc\"}]", ", not both");
    refused(disc, "[{\"name\": \"a\", \"solid\": \"disk\"}]", "output.probes[0].solid: no solid of this scene is "
            "named \"disk\"");
    refused(disc, "[{\"name\": \"a\", \"solid\": \"disc\", \"body\": 1}]", "output.probes[0].body: disc has 1 "
            "bodies (ids 0 to 0), not 1");
    refused(disc, "[{\"name\": \"a\", \"point\": [0.5, 0.5], \"field\": \"vorticity\"}]",
            "output.probes[0].field \"vorticity\": the fluid has no field of that name");
    refused(disc, "[{\"name\": \"a\", \"point\": [0.5, 1.6]}]", "output.probes[0].point: (0.5, 1.6) lies outside "
            "the fluid's field \"pressure\", which covers [0, 1] x [0, 1.5]");
    refused(disc, "[{\"name\": \"a\", \"point\": [0.5, 0.5, 0.5]}]", "output.probes[0].point: the fluid's field "
            "\"pressure\" is 2D: expected 2 coordinates, got 3");
    refused(piston, "[{\"name\": \"a\", \"point\": [0.5, 0.5]}]", "the fluid offers no fields");
    /* a coupled plugin: its fields for points, no loads for solids */
    const char *mono = "examples/tube_monolithic.json";
    refused(mono, "[{\"name\": \"a\", \"point\": [0.5, 0.5]}]", "the coupled plugin offers no fields");
    refused(mono, "[{\"name\": \"a\", \"solid\": \"tube\"}]", "output.probes[0].solid: a scene with a "
            "\"coupled\" participant hands the coupler no loads: only point probes");
    /* scheme "monolithic" (no "coupled" key in the scene) says so in its own words */
    char log[65536];
    const char *const sets[] = {"coupling.scheme=monolithic", "output.probes=[{\"name\": \"b\", \"solid\": \"block\"}]",
                                NULL};
    assert_int_equal(test_scene_refused(NULL, "examples/floating_block.json", sets, log, sizeof log), 1);
    if (!strstr(log, "output.probes[0].solid: scheme \"monolithic\" solves fluid and solids as one system and hands "
                "the coupler no loads: only point probes"))
        fail_msg("expected scheme \"monolithic\"'s refusal in:\n%s", log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_piston_load),
        cmocka_unit_test(test_tank),
        cmocka_unit_test(test_remote_fluid),
        cmocka_unit_test(test_fluid_without_speed),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
