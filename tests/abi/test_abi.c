/* A plugin built against the previous header (ABI 2, tests/abi/include)
 * still loads and runs: the loader keeps its version and reads only the
 * part of its table that version defines; it runs the piston scene
 * (examples/piston.json) in-process and in seam-serve with the same bits as
 * the current piston_solid; a version 1 plugin is refused with both
 * versions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "remote.h"
#include "seam/loader.h"
#include "test_host.h"
#include "test_scene.h"

static const char *built(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", getenv("SEAM_BUILD_ROOT"), rel);
    return buf;
}

#define OLD_PLUGIN "tests/abi/piston_solid_abi2.so"

static void test_table_sizes(void **state)
{
    (void)state;
    assert_true(seam_plugin_table_size(2) > offsetof(seam_plugin, write_output));
    assert_true(seam_plugin_table_size(2) < seam_plugin_table_size(3));
    assert_int_equal(seam_plugin_table_size(2), offsetof(seam_plugin, capabilities));
    assert_int_equal(seam_plugin_table_size(3), offsetof(seam_plugin, domain));
    assert_int_equal(seam_plugin_table_size(4), offsetof(seam_plugin, bodies));
    assert_int_equal(seam_plugin_table_size(5), offsetof(seam_plugin, keys));
    assert_int_equal(seam_plugin_table_size(6), sizeof(seam_plugin));
    assert_int_equal(seam_plugin_table_size(SEAM_ABI_VERSION), sizeof(seam_plugin));
    assert_int_equal(seam_plugin_table_size(1), 0);
    assert_int_equal(seam_plugin_table_size(0), 0);
    assert_int_equal(seam_plugin_table_size(SEAM_ABI_VERSION + 1), 0);
}

/* (a) it loads, keeps its version, has no capabilities entry, and its flags
 * come from the entries it has (mobility, save and load; no regions). */
static void test_old_plugin_loads(void **state)
{
    (void)state;
    char err[2048] = "";
    seam_library *lib = seam_library_open(built(OLD_PLUGIN), err, sizeof err);
    if (!lib)
        fail_msg("%s", err);
    const seam_plugin *p = seam_library_plugin(lib);
    assert_int_equal(p->abi, 2);
    assert_string_equal(p->name, "piston_solid_abi2");
    assert_int_equal(p->role, SEAM_SOLID);
    assert_non_null(p->describe);
    assert_non_null(p->mobility);
    assert_null(p->regions);
    assert_null(p->capabilities);   /* past its table: absent, whatever lies beyond it in memory */
    assert_int_equal(seam_plugin_check_role(p, seam_library_path(lib), SEAM_SOLID, "solids[0]", err, sizeof err), 0);

    test_host th;
    test_host_init(&th, "piston", "solids[0]");
    void *self = p->create(p, "{\"mass\": 2.0, \"position\": 0.5}", &th.host);
    assert_non_null(self);
    assert_int_equal(seam_plugin_caps(p, self), SEAM_CAP_MOBILITY | SEAM_CAP_SAVE);
    char caps[256];
    seam_caps_describe(seam_plugin_caps(p, self), caps, sizeof caps);
    assert_string_equal(caps, "mobility, save");
    seam_interface f;
    assert_int_equal(p->describe(self, &f), SEAM_OK);
    assert_int_equal(f.n_points, 1);
    assert_true(f.X[0] == 0.5 && f.mass[0] == 2.0);
    double impulse = 1.0, dv = 0.0;
    assert_int_equal(p->mobility(self, &impulse, &dv), SEAM_OK);
    assert_true(dv == 0.5);
    p->destroy(self);
    /* it refuses what it does not know, through the host like any plugin */
    assert_null(p->create(p, "{\"mass\": 2.0, \"colour\": 1}", &th.host));
    assert_true(test_host_saw(&th, "solids[0].colour: unknown key"));
    seam_library_close(&lib);
}

/* Largest deviation from the monolithic backward-Euler recursion of the
 * added-mass piston (see tests/coupler/test_piston.c). */
static double deviation_from_monolithic(const test_run *r, double m, double k, double x0)
{
    double x = x0, v = 0.0, worst = fabs(r->X[0] - x0);
    for (size_t s = 1; s < r->rows; s++) {
        double dt = r->dt[s - 1];
        double x_new = (x + dt * v) / (1.0 + k * dt * dt / m);
        v = (x_new - x) / dt;
        x = x_new;
        worst = fmax(worst, fabs(r->X[s * r->n] - x));
    }
    return worst;
}

static void assert_same_bits(const test_run *a, const test_run *b)
{
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(b->status, SEAM_OK);
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->X, b->X, a->rows * a->n * sizeof(double));
    assert_int_equal(a->summary.iterations, b->summary.iterations);
}

static char solid_plugin_set[4200];

static test_run *run_piston(const char *name, int old, int separate)
{
    snprintf(solid_plugin_set, sizeof solid_plugin_set, "solids.0.plugin=%s", built(OLD_PLUGIN));
    const char *sets[4] = {"output.frames=false", NULL, NULL, NULL};
    int n = 1;
    if (old)
        sets[n++] = solid_plugin_set;
    if (separate)
        sets[n++] = "solids.0.process=separate";
    test_run *r = test_run_scene(name, NULL, "examples/piston.json", sets);
    if (r->status != SEAM_OK)
        fail_msg("%s: %s", name, r->log);
    return r;
}

/* (b) in-process: the analytic (monolithic backward-Euler) answer, and the
 * same bits as the current piston_solid. (c) seam-serve hosting the old
 * plugin: the same bits again. */
static void test_old_plugin_runs_the_piston_scene(void **state)
{
    (void)state;
    test_run *now = run_piston("abi_current", 0, 0);
    test_run *old = run_piston("abi_old", 1, 0);
    test_run *old_remote = run_piston("abi_old_separate", 1, 1);
    assert_int_equal(old->summary.steps, 200);
    assert_int_equal(old->summary.not_converged, 0);
    /* examples/piston.json: m_s = 1, m_a = 2, k = 39.478..., x0 = 0.1 */
    double dev = deviation_from_monolithic(old, 3.0, 39.47841760435743, 0.1);
    if (!(dev < 1e-8))   /* the scene's tolerance 1e-10, over 200 steps */
        fail_msg("deviation %g from the monolithic answer", dev);
    assert_same_bits(now, old);
    assert_same_bits(old, old_remote);
    test_run_free(now);
    test_run_free(old);
    test_run_free(old_remote);
}

/* The proxy in front of seam-serve hosting the old plugin offers what it
 * offers, no capabilities entry, and the same derived flags. */
static void test_old_plugin_through_the_proxy(void **state)
{
    (void)state;
    char err[2048] = "";
    seam_remote_options o = {.name = "piston", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn(built(OLD_PLUGIN), &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    assert_string_equal(p->name, "piston_solid_abi2");
    assert_int_equal(p->role, SEAM_SOLID);
    assert_non_null(p->mobility);
    assert_null(p->regions);
    assert_null(p->capabilities);
    test_host th;
    test_host_init(&th, "piston", "solids[0]");
    void *self = p->create(p, "{\"mass\": 4.0, \"position\": 0.25}", &th.host);
    assert_non_null(self);
    assert_int_equal(seam_plugin_caps(p, self), SEAM_CAP_MOBILITY | SEAM_CAP_SAVE);
    seam_interface f;
    assert_int_equal(p->describe(self, &f), SEAM_OK);
    assert_true(f.n_points == 1 && f.X[0] == 0.25 && f.mass[0] == 4.0);
    double impulse = 2.0, dv = 0.0;
    assert_int_equal(p->mobility(self, &impulse, &dv), SEAM_OK);
    assert_true(dv == 0.5);
    p->destroy(self);
}

/* (d) version 1 is older than the oldest a host accepts. */
static void test_abi1_is_refused_with_both_versions(void **state)
{
    (void)state;
    char err[2048] = "";
    const char *path = built("tests/plugins/broken/broken_abi1.so");
    seam_library *lib = seam_library_open(path, err, sizeof err);
    assert_null(lib);
    char want[128];
    snprintf(want, sizeof want, "plugin ABI version 1, but this seam accepts ABI versions 2 to %u", SEAM_ABI_VERSION);
    if (!strstr(err, path) || !strstr(err, want))
        fail_msg("message \"%s\" lacks the path or the versions", err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_sizes),
        cmocka_unit_test(test_old_plugin_loads),
        cmocka_unit_test(test_old_plugin_runs_the_piston_scene),
        cmocka_unit_test(test_old_plugin_through_the_proxy),
        cmocka_unit_test(test_abi1_is_refused_with_both_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
