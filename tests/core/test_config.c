/* The configuration reader: positions, types, ranges, unknown keys, overrides. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/config.h"
#include "test_host.h"

typedef struct {
    int n;
    char msg[8][512];
} sink;

static void collect(void *ctx, const char *where, const char *key_path, const char *message)
{
    sink *s = ctx;
    if (s->n < 8)
        snprintf(s->msg[s->n], sizeof s->msg[0], "%s: %s: %s", where ? where : "?", key_path, message);
    s->n++;
}

static const char *scene =
    "{\n"
    "  \"coupling\": {\n"
    "    \"scheme\": \"relaxtion\",\n"
    "    \"relaxation\": 1.5,\n"
    "    \"tolerence\": 1e-6\n"
    "  },\n"
    "  \"solids\": [ {\"plugin\": \"a\"}, {\"plugin\": 3} ]\n"
    "}\n";

static void test_errors_are_located(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse(scene, "scene.json", err, sizeof err);
    assert_non_null(doc);
    sink s = {0};
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, collect, &s);
    seam_cfg *c = seam_cfg_child(root, "coupling", SEAM_CFG_REQUIRED);
    static const char *const schemes[] = {"explicit", "relaxation", NULL};
    assert_int_equal(seam_cfg_enum(c, "scheme", schemes, 0, 0), 0);
    assert_float_equal(seam_cfg_num(c, "relaxation", 0.5, 0.0, 1.0, SEAM_CFG_LO_OPEN), 0.5, 0);
    assert_float_equal(seam_cfg_num(c, "tolerance", 1e-8, 0.0, INFINITY, SEAM_CFG_LO_OPEN), 1e-8, 0);
    assert_int_equal(seam_cfg_count(root, "solids", 0), 2);
    seam_cfg *s1 = seam_cfg_item(root, "solids", 1);
    assert_string_equal(seam_cfg_str(s1, "plugin", "x", SEAM_CFG_REQUIRED), "x");
    assert_int_equal(seam_cfg_finish(root), SEAM_ERROR);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.msg[0], "scene.json:3:5: coupling.scheme: expected one of \"explicit\", "
                                  "\"relaxation\", got \"relaxtion\" (did you mean \"relaxation\"?)");
    assert_string_equal(s.msg[1], "scene.json:4:5: coupling.relaxation: expected a number in (0, 1], got 1.5");
    assert_string_equal(s.msg[2], "scene.json:7:33: solids[1].plugin: expected a string, got 3");
    assert_string_equal(s.msg[3], "scene.json:5:5: coupling.tolerence: unknown key (did you mean \"tolerance\"?)");
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);
}

/* A size is refused at its key when its memory is more than the machine's, and only then. */
static void test_memory_limit(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse("{\"spacing\": 1e-5}", "m.json", err, sizeof err);
    sink s = {0};
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, collect, &s);
    double limit = seam_cfg_memory_limit();
    assert_true(limit > 1e8);   /* this machine tells: more than 100 MB */
    seam_cfg_num(root, "spacing", 1.0, 0.0, 1.0, 0);
    assert_true(seam_cfg_check_memory(root, "spacing", 0.9 * limit, "large but feasible"));
    assert_int_equal(s.n, 0);
    assert_false(seam_cfg_check_memory(root, "spacing", 1.1 * limit, "1e9 particles"));
    assert_int_equal(seam_cfg_finish(root), SEAM_ERROR);
    assert_int_equal(s.n, 1);
    char want[200];
    snprintf(want, sizeof want, "m.json:1:2: spacing: 1e9 particles need at least %.3g GB of memory, more than this "
             "machine's %.3g GB", 1.1 * limit / 1e9, limit / 1e9);
    assert_string_equal(s.msg[0], want);
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);
}

static void test_syntax_error(void **state)
{
    (void)state;
    char err[256];
    assert_null(seam_doc_parse("{\n  \"a\": 1,\n  \"b\" 2\n}", "bad.json", err, sizeof err));
    assert_non_null(strstr(err, "bad.json:3:"));
    assert_null(seam_doc_parse("{\"a\": 1, \"a\": 2}", "dup.json", err, sizeof err));
    assert_non_null(strstr(err, "duplicate"));
}

static void test_set_overrides(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse(scene, "scene.json", err, sizeof err);
    assert_int_equal(seam_doc_set(doc, "coupling.scheme=relaxation", err, sizeof err), 0);
    assert_int_equal(seam_doc_set(doc, "coupling.relaxation=0.25", err, sizeof err), 0);
    assert_int_equal(seam_doc_set(doc, "solids.1.plugin=\"b\"", err, sizeof err), 0);
    assert_int_equal(seam_doc_set(doc, "output.dir=out/x", err, sizeof err), 0);
    assert_int_equal(seam_doc_set(doc, "solids[5].plugin=b", err, sizeof err), SEAM_ERROR);
    assert_non_null(strstr(err, "no item 5"));
    assert_int_equal(seam_doc_set(doc, "novalue", err, sizeof err), SEAM_ERROR);
    json_t *root = seam_doc_root(doc);
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "coupling"), "scheme")), "relaxation");
    assert_float_equal(json_real_value(json_object_get(json_object_get(root, "coupling"), "relaxation")), 0.25, 0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(root, "solids"), 1), "plugin")), "b");
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "output"), "dir")), "out/x");
    assert_string_equal(seam_doc_locate(doc, "coupling.relaxation"), "--set coupling.relaxation");
    assert_string_equal(seam_doc_locate(doc, "solids[1].plugin"), "--set solids[1].plugin");
    assert_string_equal(seam_doc_locate(doc, "solids[0].plugin"), "scene.json:7:16");
    assert_string_equal(seam_doc_locate(doc, "coupling.absent"), "scene.json:2:3");
    assert_string_equal(seam_doc_locate(doc, "solids[0].absent[3].deeper"), "scene.json:7:15");
    const char *path = "fluid.liquid[2].box";
    size_t len = strlen(path);
    const char *parents[] = {"fluid.liquid[2]", "fluid.liquid", "fluid", ""};
    for (size_t i = 0; i < 4; i++) {
        len = seam_key_path_parent(path, len);
        assert_int_equal(len, strlen(parents[i]));
        assert_memory_equal(path, parents[i], len);
    }
    assert_int_equal(seam_key_path_parent("", 0), 0);
    seam_doc_destroy(&doc);
}

static void test_required_and_ints(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse("{\"n\": 2.5, \"m\": 7, \"v\": [1, 2]}", "x.json", err, sizeof err);
    sink s = {0};
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, collect, &s);
    assert_int_equal(seam_cfg_int(root, "n", 1, 0, 10, 0), 1);
    assert_int_equal(seam_cfg_int(root, "m", 1, 0, 10, 0), 7);
    double v[3] = {0, 0, 0};
    assert_false(seam_cfg_vec(root, "v", v, 3, 0));
    seam_cfg_str(root, "plugin", NULL, SEAM_CFG_REQUIRED);
    assert_int_equal(seam_cfg_finish(root), SEAM_ERROR);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.msg[0], "x.json:1:2: n: expected an integer in [0, 10], got 2.5");
    assert_string_equal(s.msg[1], "x.json:1:20: v: expected an array of 3 numbers, got an array of 2");
    assert_string_equal(s.msg[2], "x.json: plugin: required key is missing");
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);
}

static void test_points(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse("{\"ok\": [[0, 1], [2.5, -3]], \"bad\": [[0, 1], [2, 3, 4]], \"empty\": []}",
                                   "p.json", err, sizeof err);
    sink s = {0};
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, collect, &s);
    size_t n = 99;
    double *xy = seam_cfg_points(root, "ok", 2, &n, 0);
    assert_non_null(xy);
    assert_int_equal(n, 2);
    assert_float_equal(xy[2], 2.5, 0.0);
    assert_float_equal(xy[3], -3.0, 0.0);
    free(xy);
    assert_null(seam_cfg_points(root, "bad", 2, &n, 0));
    assert_int_equal(n, 0);
    double *none = seam_cfg_points(root, "empty", 3, &n, 0);
    assert_non_null(none);
    assert_int_equal(n, 0);
    free(none);
    assert_null(seam_cfg_points(root, "absent", 2, &n, 0));
    assert_int_equal(seam_cfg_finish(root), SEAM_ERROR);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.msg[0], "p.json:1:29: bad: point 1: expected an array of 2 numbers, got an array of 3");
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);
}

static int logged;
static char last_log[512];
static void host_log(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    (void)level;
    logged++;
    snprintf(last_log, sizeof last_log, "%s", message);
}
static const char *host_locate(void *ctx, const char *key)
{
    static char buf[128];
    (void)ctx;
    snprintf(buf, sizeof buf, "scene.json@%s", key);
    return buf;
}

static void test_plugin_reader(void **state)
{
    (void)state;
    seam_host host = {.abi = 1, .name = "piston", .config_path = "solids[0]", .log = host_log, .locate = host_locate};
    seam_cfg *c = seam_cfg_from_host("{\"mass\": -1, \"extra\": 1}", &host);
    assert_non_null(c);
    assert_float_equal(seam_cfg_num(c, "mass", 1.0, 0.0, INFINITY, SEAM_CFG_LO_OPEN), 1.0, 0);
    assert_int_equal(seam_cfg_finish(c), SEAM_ERROR);
    assert_int_equal(logged, 2);
    assert_string_equal(last_log, "scene.json@extra: solids[0].extra: unknown key (known here: mass)");
    seam_cfg_destroy(&c);
    assert_null(seam_cfg_from_host("{oops", &host));
    assert_int_equal(logged, 3);
}

static void test_bad_items_do_not_crash(void **state)
{
    (void)state;
    char err[256];
    seam_doc *doc = seam_doc_parse("{\"sources\": [1, {\"speed\": 2}]}", "items.json", err, sizeof err);
    sink s = {0};
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, collect, &s);
    assert_int_equal(seam_cfg_count(root, "sources", 0), 2);
    seam_cfg *bad = seam_cfg_item(root, "sources", 0);
    assert_null(bad);
    /* Every getter takes the NULL reader and answers its default. */
    assert_float_equal(seam_cfg_num(bad, "speed", 7.0, 0, 10, SEAM_CFG_REQUIRED), 7.0, 0);
    assert_int_equal(seam_cfg_int(bad, "n", 3, 0, 10, 0), 3);
    assert_string_equal(seam_cfg_str(bad, "side", "left", 0), "left");
    assert_null(seam_cfg_child(bad, "x", SEAM_CFG_REQUIRED));
    assert_null(seam_cfg_item(bad, "x", 0));
    assert_int_equal(seam_cfg_count(bad, "x", 0), 0);
    seam_cfg_skip(bad, "x");
    seam_cfg_error(bad, "x", "ignored");
    assert_string_equal(seam_cfg_path(bad), "");
    static const char *const names[] = {"a", "b", NULL};
    char buf[64];
    double v[3] = {1, 2, 3}, g[3] = {9, 9, 9};
    size_t n = 5;
    assert_true(seam_cfg_bool(bad, "b", true, 0));
    assert_int_equal(seam_cfg_enum(bad, "e", names, 1, 0), 1);
    assert_float_equal(seam_cfg_density(bad, "density", 1000.0, "kg/m^3", 0), 1000.0, 0);
    assert_string_equal(seam_cfg_file(bad, "mesh", "def.msh", buf, sizeof buf, 0), "def.msh");
    assert_false(seam_cfg_vec(bad, "v", v, 3, 0));
    assert_float_equal(v[2], 3.0, 0);
    assert_false(seam_cfg_gravity(bad, NULL, 2, NULL, g));
    assert_null(seam_cfg_numbers(bad, "x", &n, 0));
    assert_int_equal(n, 0);
    n = 5;
    assert_null(seam_cfg_points(bad, "x", 2, &n, 0));
    assert_false(seam_cfg_has(bad, "x"));
    assert_null(seam_cfg_json(bad, "x"));
    assert_int_equal(seam_cfg_error_count(bad), 0);
    assert_int_equal(seam_cfg_finish(bad), SEAM_ERROR);
    seam_cfg *good = seam_cfg_item(root, "sources", 1);
    assert_float_equal(seam_cfg_num(good, "speed", 0, 0, 10, 0), 2.0, 0);
    assert_int_equal(seam_cfg_finish(root), SEAM_ERROR);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.msg[0], "items.json:1:14: sources[0]: expected an object");
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);
}

static void test_file_names_resolve_against_the_scene(void **state)
{
    (void)state;
    char err[256], buf[512];
    seam_doc *doc = seam_doc_parse("{\"mesh\": \"meshes/a.msh\", \"abs\": \"/tmp/b.obj\"}", "/data/scenes/x.json", err, sizeof err);
    seam_cfg *root = seam_cfg_new(seam_doc_root(doc), "", doc, NULL, NULL);
    assert_string_equal(seam_cfg_file(root, "mesh", NULL, buf, sizeof buf, 0), "/data/scenes/meshes/a.msh");
    assert_string_equal(seam_cfg_file(root, "abs", NULL, buf, sizeof buf, 0), "/tmp/b.obj");
    assert_null(seam_cfg_file(root, "none", NULL, buf, sizeof buf, 0));
    seam_cfg_destroy(&root);
    seam_doc_destroy(&doc);

    seam_host host = {.abi = 1, .name = "p", .config_path = "solids[0]", .scene_dir = "/work/examples"};
    seam_cfg *c = seam_cfg_from_host("{\"mesh\": \"bunny.obj\"}", &host);
    assert_string_equal(seam_cfg_file(c, "mesh", NULL, buf, sizeof buf, 0), "/work/examples/bunny.obj");
    assert_int_equal(seam_cfg_finish(c), SEAM_OK);
    seam_cfg_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_are_located),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_required_and_ints),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_plugin_reader),
        cmocka_unit_test(test_bad_items_do_not_crash),
        cmocka_unit_test(test_file_names_resolve_against_the_scene),
        cmocka_unit_test(test_memory_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
