/* The loader refuses every kind of bad library with the file's path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seam/loader.h"
#include "test_host.h"

static const char *built(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", getenv("SEAM_BUILD_ROOT"), rel);
    return buf;
}

static void expect_refusal(const char *path, const char *what)
{
    char err[2048] = "";
    seam_library *lib = seam_library_open(path, err, sizeof err);
    assert_null(lib);
    if (!strstr(err, path) || !strstr(err, what))
        fail_msg("message \"%s\" lacks \"%s\" or the path", err, what);
}

static void test_missing_file(void **state)
{
    (void)state;
    expect_refusal(built("tests/plugins/nowhere.so"), "no such plugin file");
}

static void test_not_a_shared_library(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("loader");
    char path[4200];
    snprintf(path, sizeof path, "%s/text.so", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not an ELF file\n", f);
    fclose(f);
    expect_refusal(path, "cannot load as a shared library");
}

static void test_no_entry_symbol(void **state)
{
    (void)state;
    expect_refusal(built("tests/plugins/broken/no_entry.so"), "does not export seam_plugin_v1()");
}

static void test_wrong_abi_names_both_versions(void **state)
{
    (void)state;
    expect_refusal(built("tests/plugins/broken/broken_abi.so"), "plugin ABI version 99, but this seam accepts ABI versions 2 to 6");
}

static void test_required_function_null(void **state)
{
    (void)state;
    expect_refusal(built("tests/plugins/broken/broken_null.so"), "leaves the required function solve NULL");
}

static void test_role_checks(void **state)
{
    (void)state;
    char err[2048];
    seam_library *lib = seam_library_open("piston_solid", err, sizeof err);
    assert_non_null(lib);
    const char *path = seam_library_path(lib);
    assert_non_null(strstr(path, "tests/plugins/piston_solid.so"));
    assert_int_equal(seam_plugin_check_role(seam_library_plugin(lib), path, SEAM_SOLID, "solids[0]", err, sizeof err), 0);
    assert_int_equal(seam_plugin_check_role(seam_library_plugin(lib), path, SEAM_FLUID, "fluid", err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "is a solid solver, but fluid needs a fluid solver"));
    seam_library_close(&lib);
    assert_null(lib);

    lib = seam_library_open(built("tests/plugins/broken/broken_nodescribe.so"), err, sizeof err);
    assert_non_null(lib);
    assert_int_equal(seam_plugin_check_role(seam_library_plugin(lib), seam_library_path(lib), SEAM_SOLID, "solids[0]", err, sizeof err), -1);
    assert_non_null(strstr(err, "leaves the required function describe NULL"));
    seam_library_close(&lib);
}

static void test_search_path(void **state)
{
    (void)state;
    char err[4096];
    assert_null(seam_library_open("no_such_plugin", err, sizeof err));
    assert_non_null(strstr(err, "plugin \"no_such_plugin\" not found"));
    assert_non_null(strstr(err, "tests/plugins"));
    /* SEAM_PLUGIN_PATH directories are searched after the build tree. */
    setenv("SEAM_PLUGIN_PATH", built("tests/plugins/broken"), 1);
    assert_null(seam_library_open("broken_abi", err, sizeof err));
    assert_non_null(strstr(err, "plugin ABI version 99"));
    const char **dirs;
    size_t n = seam_plugin_search_path(&dirs);
    assert_string_equal(dirs[n - 1], built("tests/plugins/broken"));
    unsetenv("SEAM_PLUGIN_PATH");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_shared_library),
        cmocka_unit_test(test_no_entry_symbol),
        cmocka_unit_test(test_wrong_abi_names_both_versions),
        cmocka_unit_test(test_required_function_null),
        cmocka_unit_test(test_role_checks),
        cmocka_unit_test(test_search_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
