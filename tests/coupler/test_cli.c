/* The `seam` command as a user runs it: exit codes, messages, outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "test_host.h"

static const char *seam_exe;
static char output[65536];

/* Run `seam ARGS` (stderr folded into stdout); returns the exit status. */
static int seam(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int seam(const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", getenv("SEAM_SOURCE_ROOT"), seam_exe, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(output, 1, sizeof output - 1, p);
    output[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect(const char *needle)
{
    if (!strstr(output, needle))
        fail_msg("expected \"%s\" in:\n%s", needle, output);
}

static void test_validate_reports_precisely(void **state)
{
    (void)state;
    assert_int_equal(seam("validate tests/coupler/scenes/misspelled.json"), 1);
    expect("tests/coupler/scenes/misspelled.json:3:59: coupling.tolerence: unknown key (did you mean \"tolerance\"?)");
    expect("tests/coupler/scenes/misspelled.json:5:54: solids[0].stifness: unknown key (did you mean \"stiffness\"?)");

    assert_int_equal(seam("validate tests/coupler/scenes/wrong_type.json"), 1);
    expect("tests/coupler/scenes/wrong_type.json:2:12: time.end: expected a number > 0, got \"one second\"");
    expect("tests/coupler/scenes/wrong_type.json:3:40: coupling.relaxation: expected a number in (0, 1], got 1.5");

    assert_int_equal(seam("validate tests/coupler/scenes/syntax.json"), 1);
    expect("tests/coupler/scenes/syntax.json:3:50: '}' expected near '\"relaxation\"'");

    assert_int_equal(seam("validate tests/coupler/scenes/wrong_role.json"), 1);
    expect("wrong_role.json:4:3: ");
    expect("piston_solid.so: plugin \"piston_solid\" is a solid solver, but fluid needs a fluid solver");

    assert_int_equal(seam("validate examples/piston.json"), 0);
    expect("examples/piston.json: ok:");
    /* Overrides are validated like the file, and located as overrides. */
    assert_int_equal(seam("validate examples/piston.json --set coupling.relaxation=2"), 1);
    expect("--set coupling.relaxation: coupling.relaxation: expected a number in (0, 1], got 2");
    assert_int_equal(seam("validate examples/piston.json --set coupling.scheme=relax"), 1);
    expect("(did you mean \"relaxation\"?)");
    /* Names become output folders: none may leave the output directory. */
    assert_int_equal(seam("validate examples/piston.json --set solids.0.name=../../x"), 1);
    expect("solids[0].name: a participant name must not start with '.' (it names a directory)");
    assert_int_equal(seam("validate examples/piston.json --set solids.0.name=a/b"), 1);
    expect("solids[0].name: a participant name is made of A-Z a-z 0-9 _ - . (it names a directory)");
    assert_int_equal(seam("validate examples/nope.json"), 1);
    expect("examples/nope.json: cannot open");
}

static void test_run_writes_stats(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("cli_run");
    assert_int_equal(seam("run examples/piston.json --out '%s' --steps 7", dir), 0);
    expect("steps: 7 to t = 0.07 s");
    expect("iterations per step: mean");
    expect("piston_fluid");
    char path[4200];
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "step,t,dt,iterations,residual,converged,fluid_s,solid_s,coupler_s\n");
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    assert_int_equal(rows, 7);

    assert_int_equal(seam("run examples/piston.json --out '%s' --end 0.05 --quiet", dir), 0);
    assert_string_equal(output, "");   /* --quiet and no terminal: nothing */

    /* A diverging run exits nonzero and says where. */
    assert_int_equal(seam("run examples/piston.json --out '%s' --set coupling.scheme=explicit --set fluid.added_mass=10", dir), 1);
    expect("error: scheme explicit diverged at step");
    assert_int_equal(seam("run examples/piston.json --out '%s' --set solids.3.mass=1", dir), 1);
    expect("--set solids.3.mass=1: solids has no item 3");
    /* A frame interval far below dt: a frame each step, no endless loop. */
    assert_int_equal(seam("run examples/piston.json --out '%s' --steps 3 --set time.frame=1e-300", dir), 0);
    expect("steps: 3");
    assert_int_equal(seam("run examples/piston.json --steps -2"), 2);
    expect("--steps: expected a positive integer");
}

static void test_plugins_and_info(void **state)
{
    (void)state;
    assert_int_equal(seam("plugins"), 0);
    expect("piston_fluid       fluid    abi 3");
    expect("piston_solid       solid    abi 3");
    assert_int_equal(seam("info piston_solid"), 0);
    expect("role:     solid");
    expect("required: create destroy max_dt solve commit\n");
    expect("optional: describe mobility save load capabilities\n");
    expect("absent:   bind regions field write_output\n");
    /* a plugin built against the ABI 2 header: no capabilities entry, its flags from its entries */
    assert_int_equal(seam("info '%s/tests/abi/piston_solid_abi2.so'", getenv("SEAM_BUILD_ROOT")), 0);
    expect("abi:      2\n");
    expect("absent:   bind regions field write_output capabilities (abi 3)\n");
    expect("capabilities: mobility, save (from its entries)\n");
    assert_int_equal(seam("info nothing_here"), 1);
    expect("plugin \"nothing_here\" not found");
    assert_int_equal(seam("frobnicate"), 2);
    expect("usage: seam run SCENE");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli PATH_TO_SEAM\n");
        return 2;
    }
    seam_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_reports_precisely),
        cmocka_unit_test(test_run_writes_stats),
        cmocka_unit_test(test_plugins_and_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
