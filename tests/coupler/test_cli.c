/* The `seam` command as a user runs it: exit codes, messages, outputs. */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "report.h"
#include "seam/csv.h"
#include "test_host.h"

static const char *seam_exe;
static const char *seam_prefix = "";   /* shell words before the command: limits, traps */
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
    snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' %s 2>&1", getenv("SEAM_SOURCE_ROOT"), seam_prefix, seam_exe, args);
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
    expect("tests/coupler/scenes/wrong_type.json:2:12: time.end: expected a number in [1e-15, 1e9] s, got \"one second\"");
    expect("tests/coupler/scenes/wrong_type.json:3:40: coupling.relaxation: expected a number in [1e-16, 1], got 1.5");

    assert_int_equal(seam("validate tests/coupler/scenes/syntax.json"), 1);
    expect("tests/coupler/scenes/syntax.json:3:50: '}' expected near '\"relaxation\"'");

    assert_int_equal(seam("validate tests/coupler/scenes/wrong_role.json"), 1);
    expect("wrong_role.json:4:3: ");
    expect("piston_solid.so: plugin \"piston_solid\" is a solid solver, but fluid needs a fluid solver");

    assert_int_equal(seam("validate examples/piston.json"), 0);
    expect("examples/piston.json: ok:");
    /* Overrides are validated like the file, and located as overrides. */
    assert_int_equal(seam("validate examples/piston.json --set coupling.relaxation=2"), 1);
    expect("--set coupling.relaxation: coupling.relaxation: expected a number in [1e-16, 1], got 2");
    assert_int_equal(seam("validate examples/piston.json --set coupling.scheme=relax"), 1);
    expect("(did you mean \"relaxation\"?)");
    /* Names become output folders: none may leave the output directory. */
    assert_int_equal(seam("validate examples/piston.json --set solids.0.name=../../x"), 1);
    expect("solids[0].name: a participant name must not start with '.' (it names a directory)");
    assert_int_equal(seam("validate examples/piston.json --set solids.0.name=a/b"), 1);
    expect("solids[0].name: a participant name is made of A-Z a-z 0-9 _ - . (it names a directory)");
    assert_int_equal(seam("validate examples/nope.json"), 1);
    expect("examples/nope.json: cannot open");
    /* A scene that is not an object: one message saying so, not every top-level key missing. */
    assert_int_equal(seam("validate tests/coupler/scenes/not_object.json"), 1);
    expect("seam: error: tests/coupler/scenes/not_object.json: a scene is a JSON object ({\"time\": ..., ...}), got an "
           "array\n");
    if (strstr(output, "required key is missing"))
        fail_msg("a scene that is not an object named its missing keys:\n%s", output);
    /* A malformed key path is refused as written, not turned into keys nobody asked for. */
    const char *malformed[][2] = {{"a..b=1", "an empty key"}, {"time.=1", "an empty key"},
                                  {"solids[0=1", "a '[' without its ']'"}, {"solids[]=1", "an empty index"},
                                  {"solids[0]x=1", "text after ']'"}, {"[0]=1", "a '[' with no key before it"},
                                  {"solids]0=1", "a ']' without its '['"}};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        assert_int_equal(seam("validate examples/piston.json --set '%s'", malformed[i][0]), 1);
        char want[256];
        snprintf(want, sizeof want, "seam: error: --set %s: malformed key path (%s)", malformed[i][0], malformed[i][1]);
        expect(want);
    }
    /* A plugin's refusal found after its keys were read is located at the key too (fluid_sph's lattice). */
    assert_int_equal(seam("validate examples/sph_dam_break.json --set cell_size=3"), 1);
    expect("seam: [fluid] error: examples/sph_dam_break.json:8:5: fluid.fill: no lattice site (spacing 3 m, the scene's "
           "cell_size) inside the domain lies in the fill boxes");
    /* A cell size no physics means is refused by its declared range, located (a huge cell_size made an infinite
     * box the coupler refused unlocated; fluid_mac's own check of the box stays behind the range) */
    assert_int_equal(seam("validate examples/rising_disc.json --set cell_size=1e300"), 1);
    expect("seam: error: --set cell_size: cell_size: expected a number in [1e-9, 1e6] m, got 1.0000000000000001e+300");
    assert_int_equal(seam("validate examples/rising_disc.json --set fluid.dx=1e308"), 1);
    expect("seam: [fluid] error: --set fluid.dx: fluid.dx: expected a number in [1e-9, 1e6] m, got 1e+308");
    /* solid_fem: a generated mesh refused at rest is located at its body's mesh key (it named the body only);
     * coordinates past 1e6 m are refused by their range, naming the item */
    assert_int_equal(seam("validate examples/smoke_cloth.json --set 'solids.0.bodies.0.mesh.v=[0,1e300,0]'"), 1);
    expect("seam: [cloth] error: --set solids[0].bodies[0].mesh.v: solids[0].bodies[0].mesh.v[1]: expected a number in "
           "[-1e6, 1e6] m, got 1.0000000000000001e+300");
    assert_int_equal(seam("validate examples/smoke_cloth.json --set 'solids.0.bodies.0.mesh.v=[0,1e-12,0]'"), 1);
    expect("seam: [cloth] error: examples/smoke_cloth.json:32:11: solids[0].bodies[0].mesh: triangle 24 is degenerate "
           "at rest (area 1.73472e-15)");
    assert_int_equal(seam("validate examples/floating_block.json --set 'solids.0.bodies.0.mesh.min=[-1e6,0.7499999999]'"),
                     1);
    expect("seam: [block] error: examples/floating_block.json:20:27: solids[0].bodies[0].mesh: element 0 is degenerate "
           "at rest (area 1.5625e-06, below 1e-12 of its edges' square)");
    /* tube_fluid's bind refusal (fluid and solid discretized apart) is located at the fluid's cells */
    assert_int_equal(seam("validate examples/tube_precice.json --set fluid.discretization=staggered"), 1);
    expect("seam: [fluid] error: examples/tube_precice.json:17:37: fluid.cells: cells = 100 needs an interface of 100 "
           "points of dimension 1 (one cross-section per cell), the solids describe 101 of dimension 1");
    /* solid_rigid: a spacing that samples too many points is located at the body that takes the most (it named no
     * key) */
    assert_int_equal(seam("validate examples/rising_disc.json --set solids.0.spacing=1e-7"), 1);
    expect("seam: [disc] error: examples/rising_disc.json:23:9: solids[0].bodies[0]: spacing 1e-07 m would sample "
           "the 1 bodies with about 9.42e+06 interface points, 9.42e+06 of them on this one (at most 4e+06)");
    /* Separate participants: a required key the scene does not write is located at the participant's object, in
     * seam-serve (C) and in a Python program (seam_client.py) alike, as in-process (they named no place) */
    assert_int_equal(seam("validate tests/coupler/scenes/separate_missing_keys.json --allow-any-plugin"), 1);
    expect("seam: [fluid] error: tests/coupler/scenes/separate_missing_keys.json:4:3: fluid.added_mass: required key "
           "is missing");
    expect("seam: [piston] error: tests/coupler/scenes/separate_missing_keys.json:6:5: solids[0].mass: required (a "
           "number)");
    /* A started program that serves the wrong role is named by its command, at the participant's key (it named
     * the server's private socket) */
    assert_int_equal(seam("validate tests/coupler/scenes/separate_wrong_role.json --allow-any-plugin"), 1);
    expect("seam: error: tests/coupler/scenes/separate_wrong_role.json:4:3: fluid: python3 "
           "../../../protocol/python/piston_solid.py (pid ");
    expect("): plugin \"piston_solid_py\" is a solid solver, but fluid needs a fluid solver\n");
    /* Solids of another dimension than the fluid's: said so, located (a 3D disc in a 2D fluid was "an empty box
     * along z", unlocated) */
    assert_int_equal(seam("validate examples/rising_disc.json --set solids.0.dim=3 --set 'solids.0.walls.min=[0,0,0]' "
                          "--set 'solids.0.walls.max=[1,1.5,1]' --set 'solids.0.bodies.0.position=[0.5,0.3,0.5]' "
                          "--set solids.0.bodies.0.shape=sphere"), 1);
    expect("seam: [disc] error: examples/rising_disc.json:17:5: solids[0]: the solids describe an interface of "
           "dimension 3, but fluid \"fluid\" is 2D");
    /* Solids of different dimensions; a line of pistons in a 2D fluid: the fluid's bind refuses it (plugin.h calls
     * no domain for an interface of 1 value per point), and the coupler's line about it is located */
    assert_int_equal(seam("validate tests/coupler/scenes/mixed_dimensions.json"), 1);
    expect("seam: [piston] error: tests/coupler/scenes/mixed_dimensions.json:8:5: solids[1]: its interface has "
           "dimension 1, but disc's has 2\n");
    assert_int_equal(seam("validate tests/coupler/scenes/line_in_plane.json"), 1);
    expect("seam: [fluid] error: tests/coupler/scenes/line_in_plane.json:4:3: fluid: bind failed for an interface of "
           "1 points (dim 1)\n");
    /* A circle of radius 1e-320 m (whose points coincide, so that the coupler's rigid coordinates could not fix
     * its pose: fuzz5, seed 5101) is refused by the radius's declared range, located */
    assert_int_equal(seam("validate examples/rising_disc.json --set solids.0.bodies.0.radius=1e-320"), 1);
    expect("seam: [disc] error: --set solids[0].bodies[0].radius: solids[0].bodies[0].radius: expected a number in "
           "[1e-9, 1e6] m, got 9.9998886718268301e-321");
    /* The monolithic scheme's refusal of a shell is located at the solid (it named the solid alone; fuzz5, 5101) */
    assert_int_equal(seam("validate examples/water_balloon.json --set coupling.scheme=monolithic"), 1);
    expect("seam: [monolithic] error: balloon: examples/water_balloon.json:18:5: solids[0]: interface element 0 is a "
           "shell: scheme \"monolithic\" couples volumetric solids only");
    /* dt = 5e-324 s: 1e-6 dt, the default dt_min, underflowed to 0 and the unstable step was retried at dt = 0 for
     * ever (fuzz5, seed 5102); now such a dt is refused by its declared range before the run starts */
    assert_int_equal(seam("run examples/floating_block.json --set time.dt=5e-324 --steps 1 --out '%s' --force --quiet "
                          "--no-report", test_tmpdir("cli_tiny_dt")), 1);
    expect("time.dt: expected a number in [1e-15, 1e9] s, got 4.9406564584124654e-324");
    /* A key an override created on its way is located at the override, not at the enclosing object in the file. */
    assert_int_equal(seam("validate examples/piston.json --set coupling.tolerence.x=1"), 1);
    expect("seam: error: --set coupling.tolerence.x: coupling.tolerence: unknown key (did you mean \"tolerance\"?)");
}

static void test_run_writes_stats(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("cli_run");
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 7", dir), 0);
    expect("steps: 7 to t = 0.07 s");
    expect("iterations per step: mean");
    expect("piston_fluid");
    char path[4200];
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "step,t,dt,iterations,residual,converged,fluid_s,solid_s,coupler_s,"
                              "columns,filtered,modes,restarts,truncated,residual_goal,load_goal\n");
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    assert_int_equal(rows, 7);

    assert_int_equal(seam("run examples/piston.json --out '%s' --force --end 0.05 --quiet", dir), 0);
    assert_string_equal(output, "");   /* --quiet and no terminal: nothing */

    /* A diverging run exits nonzero and says where. */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --set coupling.scheme=explicit --set fluid.added_mass=10", dir), 4);
    expect("error: scheme explicit diverged at step");
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --set solids.3.mass=1", dir), 1);
    expect("--set solids.3.mass=1: solids has no item 3");
    /* An output directory holding an earlier run is refused; --force empties it. */
    assert_int_equal(seam("run examples/piston.json --out '%s' --steps 2 --quiet", dir), 1);
    expect("error: the output directory");
    expect("holds an earlier run (its stats.csv): --force empties it first, --out names another");
    char stale[4200];
    snprintf(stale, sizeof stale, "%s/frame_000999.png", dir);
    FILE *sf = fopen(stale, "w");
    assert_non_null(sf);
    fclose(sf);
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 2 --quiet", dir), 0);
    sf = fopen(stale, "r");
    assert_null(sf);   /* the earlier run's frame is gone */
    /* A frame interval far below dt (the least time.frame takes): a frame each step, no endless loop. */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 3 --set time.frame=1e-15", dir), 0);
    expect("steps: 3");
    assert_int_equal(seam("run examples/piston.json --steps -2"), 2);
    expect("--steps: expected a positive integer");
}

/* seam compare: the piston solved by two schemes to 1e-10 m lies within
 * that of itself at every step; against itself the distance is 0; a run
 * of another interface, or without interface.csv, is refused. */
static void test_compare(void **state)
{
    (void)state;
    char a[1024], b[1024], c[1024];
    snprintf(a, sizeof a, "%s", test_tmpdir("cli_compare_a"));
    snprintf(b, sizeof b, "%s", test_tmpdir("cli_compare_b"));
    snprintf(c, sizeof c, "%s", test_tmpdir("cli_compare_c"));
    const char *common = "--set output.interface=true --set coupling.tolerance=1e-10 --steps 20 --quiet --force";
    assert_int_equal(seam("run examples/piston.json --out '%s' %s --set coupling.scheme=iqn-ils", a, common), 0);
    assert_int_equal(seam("run examples/piston.json --out '%s' %s --set coupling.scheme=aitken", b, common), 0);
    assert_int_equal(seam("compare '%s' '%s'", a, a), 0);
    expect("# 21 common times; largest distance 0.000000e+00 m");
    assert_int_equal(seam("compare '%s' '%s'", a, b), 0);
    expect("# 21 common times; largest distance ");
    double worst = strtod(strstr(output, "largest distance ") + 17, NULL);
    print_message("piston, iqn-ils against aitken: largest distance %.3g m\n", worst);
    assert_true(worst <= 2e-10);
    assert_int_equal(seam("run examples/rising_disc.json --out '%s' --set output.interface=true --steps 2 --quiet --force",
                          c), 0);
    assert_int_equal(seam("compare '%s' '%s'", a, c), 1);
    expect("not the same interface");
    assert_int_equal(seam("compare '%s' /nonexistent", a), 1);
    expect("/nonexistent/interface.csv");
}

static bool exists(const char *dir, const char *name)
{
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The whole of DIR/index.html into buf. */
static void read_page(const char *dir, char *buf, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s was not written", path);
    size_t len = fread(buf, 1, n - 1, f);
    buf[len] = '\0';
    fclose(f);
}

/* Every image the page shows exists; returns how many there are. */
static int check_images(const char *dir, const char *page)
{
    int n = 0;
    for (const char *p = strstr(page, "src=\""); p; p = strstr(p + 1, "src=\"")) {
        char name[512];
        const char *end = strchr(p + 5, '"');
        assert_non_null(end);
        snprintf(name, sizeof name, "%.*s", (int)(end - p - 5), p + 5);
        assert_null(strchr(name, ':'));   /* relative: no scheme, no network */
        if (!exists(dir, name))
            fail_msg("index.html shows %s, which %s lacks", name, dir);
        n++;
    }
    return n;
}

/* The number in the summary cell with this id. */
static double cell(const char *page, const char *id)
{
    char key[128];
    snprintf(key, sizeof key, "id=\"%s\">", id);
    const char *p = strstr(page, key);
    if (!p)
        fail_msg("no cell %s in the report", id);
    return strtod(p + strlen(key), NULL);
}

/* Lines of output starting with prefix. */
static int count_lines(const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *l = output; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        n += strncmp(l, prefix, len) == 0;
    return n;
}

/* Redirected output: a progress line every --progress seconds; --quiet and
 * --log-level choose the messages. */
/* Every convergence measure a run uses reaches measures.csv and its plot with
 * the tolerance it was held to at every iteration: the absolute ones their
 * fixed tolerance, the relative ones tol times the norm of that iteration. */
static void test_report_measures(void **state)
{
    (void)state;
    static char page[1 << 16];
    char dir[4096], path[8400], err[512];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_report_measures"));
    assert_int_equal(seam("run tests/coupler/scenes/piston_measures.json --out '%s' --steps 4 --force --quiet", dir), 0);
    snprintf(path, sizeof path, "%s/measures.csv", dir);
    seam_csv *m = seam_csv_read(path, err, sizeof err);
    snprintf(path, sizeof path, "%s/residuals.csv", dir);
    seam_csv *res = seam_csv_read(path, err, sizeof err);
    assert_non_null(m);
    assert_non_null(res);
    size_t rows = seam_csv_rows(m);
    assert_int_equal(rows, seam_csv_rows(res));   /* a row per iteration */
    assert_true(rows > 8);
    const char *names[] = {"positions_max_absolute", "positions_max_relative", "loads_2_relative",
                           "positions_max_absolute_2"};
    const double fixed[] = {1e-10, NAN, NAN, 1e-9};
    const double *residual = seam_csv_named(res, "residual"), *step = seam_csv_named(m, "step");
    for (size_t k = 0; k < 4; k++) {
        seam_report_measure pm;
        assert_true(seam_report_measure_get(m, k, &pm));
        assert_string_equal(pm.name, names[k]);
        assert_int_equal(pm.count, rows + 4);   /* every iteration, a break after each of the 4 steps */
        const double *value = seam_csv_values(m, 2 + 2 * k), *goal = seam_csv_values(m, 3 + 2 * k);
        bool varies = false;
        for (size_t i = 0, q = 0; i < rows; i++, q++) {
            if (i && step[i] != step[i - 1])
                q++;   /* the break */
            assert_float_equal(pm.value[q], value[i], 0.0);
            assert_float_equal(pm.goal[q], goal[i], 0.0);
            assert_true(isfinite(goal[i]));
            if (!isnan(fixed[k]))
                assert_float_equal(goal[i], fixed[k], 0.0);
            varies = varies || (i && step[i] == step[i - 1] && goal[i] != goal[i - 1]);
            if (k == 0 || k == 3)   /* the position residual residuals.csv keeps */
                assert_float_equal(value[i], residual[i], 0.0);
        }
        assert_true(varies == isnan(fixed[k]));   /* a relative goal moves from iteration to iteration */
        seam_report_measure_free(&pm);
        char alt[200];
        snprintf(alt, sizeof alt, "alt=\"%s history with its tolerance at every iteration\"", names[k]);
        read_page(dir, page, sizeof page);
        if (!strstr(page, alt))
            fail_msg("index.html has no plot of %s", names[k]);
    }
    seam_report_measure pm;
    assert_false(seam_report_measure_get(m, 4, &pm));
    assert_int_equal(check_images(dir, page), 6);   /* iterations, the 4 measures, times */
    assert_true(exists(dir, "measure_2.png") && exists(dir, "measure_4.png"));
    seam_csv_destroy(&m);
    seam_csv_destroy(&res);
}

static void test_progress_and_log_level(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("cli_progress");
    /* every step past the interval: one line per step, in order, with t, dt, iterations and an ETA */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 4 --progress 1e-9", dir), 0);
    assert_int_equal(count_lines("seam: step "), 4);
    expect("seam: step 1  t 0.01/2 s (0.5%)  dt 0.01 s  it ");
    expect("seam: step 4  t 0.04/2 s (2.0%)  dt 0.01 s  it ");
    const char *line = strstr(output, "seam: step 4 ");
    const char *eta = strstr(line, "ETA ");
    assert_non_null(eta);
    assert_true(eta < strchr(line, '\n'));
    double left = strtod(eta + 4, NULL);
    assert_true(left >= 0.0);
    assert_true(strstr(output, "seam: step 2 ") < strstr(output, "seam: step 3 "));
    /* the default interval (5 s): the first step's line, then none in a run this short */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 4", dir), 0);
    assert_int_equal(count_lines("seam: step "), 1);
    expect("seam: step 1  t 0.01/2 s");
    expect("seam: [report] wrote ");   /* info messages by default */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 4 --progress 0", dir), 0);
    assert_int_equal(count_lines("seam: step "), 0);
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 4 --quiet --progress 1e-9", dir), 0);
    assert_string_equal(output, "");
    /* warning: no info messages, but the header, progress and summary stay */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 4 --log-level warning", dir), 0);
    assert_null(strstr(output, "[report] wrote"));
    expect("outcome: converged");
    assert_int_equal(count_lines("seam: step "), 1);
    /* the warnings of unconverged steps go at error level, the errors stay */
    const char *warn = "--set coupling.on_nonconvergence=warn --set coupling.max_iterations=3";
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 3 --quiet %s", dir, warn), 3);
    expect("warning: not converged at step 0");
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 3 --quiet --log-level error %s", dir,
                          warn), 3);
    assert_null(strstr(output, "warning: not converged"));
    expect("outcome: finished with unconverged steps");
    /* debug shows the solvers' own detail (fluid_mac's pressure solves) */
    assert_int_equal(seam("run examples/rising_disc.json --out '%s' --force --steps 1 --log-level debug "
                          "--set output.frames=false", dir), 0);
    expect("[fluid] step 0 iteration 0: pressure PCG ");
    assert_int_equal(seam("run examples/rising_disc.json --out '%s' --force --steps 1 --set output.frames=false", dir), 0);
    assert_null(strstr(output, "pressure PCG"));
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --log-level loud", dir), 2);
    expect("--log-level: expected debug, info, warning or error, got \"loud\"");
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --progress -1", dir), 2);
    expect("--progress: expected seconds >= 0, got \"-1\"");
}

static void test_report(void **state)
{
    (void)state;
    static char page[1 << 16];
    char dir[4096], path[8400];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_report"));
    assert_int_equal(seam("run examples/piston.json --out '%s' --steps 12 --set coupling.max_iterations=6 --set coupling.on_nonconvergence=warn", dir), 3);   /* committed unconverged steps: exit 3 */
    expect("wrote ");
    read_page(dir, page, sizeof page);
    assert_int_equal(check_images(dir, page), 4);
    assert_non_null(strstr(page, "src=\"iterations.png\""));
    assert_non_null(strstr(page, "src=\"residuals.png\""));
    assert_non_null(strstr(page, "src=\"load_changes.png\""));   /* the other measure the run judged */
    assert_non_null(strstr(page, "src=\"times.png\""));
    assert_null(strstr(page, "<script"));
    /* The summary says what stats.csv says (6 iterations allowed: every step unconverged). */
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    char err[512];
    seam_csv *stats = seam_csv_read(path, err, sizeof err);
    assert_non_null(stats);
    size_t n = seam_csv_rows(stats);
    const double *it = seam_csv_named(stats, "iterations"), *conv = seam_csv_named(stats, "converged"),
                 *t = seam_csv_named(stats, "t");
    double sum = 0, max = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        sum += it[i];
        max = it[i] > max ? it[i] : max;
        bad += conv[i] == 0.0;
    }
    assert_int_equal(n, 12);
    assert_float_equal(cell(page, "steps"), (double)n, 0.0);
    assert_float_equal(cell(page, "time"), t[n - 1], 1e-6 * t[n - 1]);
    assert_float_equal(cell(page, "iterations_mean"), sum / (double)n, 0.005);
    assert_float_equal(cell(page, "iterations_max"), max, 0.0);
    assert_float_equal(cell(page, "unconverged"), bad, 0.0);
    assert_true(bad > 0);
    assert_true(cell(page, "wall") > 0.0);
    /* The goals the two measures were held to, drawn as the plots' tolerance lines: the piston's absolute
     * coupling.tolerance, and load_tolerance (1e-3) times the loads' 2-norm. */
    const double *rg = seam_csv_named(stats, "residual_goal"), *lg = seam_csv_named(stats, "load_goal");
    assert_non_null(rg);
    assert_non_null(lg);
    for (size_t i = 0; i < n; i++) {
        assert_float_equal(rg[i], 1e-10, 0.0);
        assert_true(lg[i] > 0.0 && lg[i] < 1.0);
    }
    assert_non_null(strstr(page, "alt=\"positions_max_absolute history with its tolerance at every iteration\""));
    assert_non_null(strstr(page, "alt=\"loads_2_relative history with its tolerance at every iteration\""));
    assert_non_null(strstr(page, "<th>piston</th><td>solid</td><td>piston_solid</td>"));
    seam_csv_destroy(&stats);

    /* An old run's directory gains the regions' plots and its frames from `seam report`. */
    snprintf(path, sizeof path, "%s/regions.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("step,time,region,p0,delta_p0,volume_error\n", f);
    for (int s = 0; s < 10; s++)
        fprintf(f, "%d,%g,0,%g,0,%g\n%d,%g,3,%g,0,%g\n", s, 0.01 * (s + 1), 100.0 + s, s ? 1e-3 / s : 0.0, s,
                0.01 * (s + 1), 50.0, -1e-9 * (s + 1));
    fclose(f);
    snprintf(path, sizeof path, "%s/frames", dir);
    mkdir(path, 0777);
    for (int i = 0; i < 5; i++) {   /* any PNG will do: the report only links them */
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "cp '%s/iterations.png' '%s/frames/frame_%06d.png'", dir, dir, i);
        assert_int_equal(system(cmd), 0);
    }
    assert_int_equal(seam("report '%s'", dir), 0);
    expect("index.html");
    read_page(dir, page, sizeof page);
    assert_int_equal(check_images(dir, page), 4 + 2 + 3);
    assert_non_null(strstr(page, "src=\"regions_p0.png\""));
    assert_non_null(strstr(page, "src=\"regions_volume_error.png\""));
    assert_non_null(strstr(page, "src=\"frames/frame_000000.png\""));
    assert_non_null(strstr(page, "src=\"frames/frame_000002.png\""));
    assert_non_null(strstr(page, "src=\"frames/frame_000004.png\""));
    assert_null(strstr(page, "frame_000001.png"));

    /* Every plot axis with its unit: the rising disc's pressure probe on the tank's floor. */
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_report_units"));
    assert_int_equal(seam("run examples/rising_disc.json --out '%s' --force --steps 3 --quiet", dir), 0);
    read_page(dir, page, sizeof page);
    assert_non_null(strstr(page, "alt=\"Probes: pressure over time, pressure (Pa)\""));

    /* --no-report (and output.report = false): no page. */
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_no_report"));
    assert_int_equal(seam("run examples/piston.json --out '%s' --steps 3 --no-report", dir), 0);
    assert_true(exists(dir, "stats.csv") && exists(dir, "summary.csv"));
    assert_false(exists(dir, "index.html") || exists(dir, "iterations.png"));
    /* A directory without a run is refused with the reason. */
    assert_int_equal(seam("report '%s/nothing'", dir), 1);
    expect("stats.csv: cannot open");
}

/* The rows of a CSV file when every one is whole (ends in a newline, has
 * the header's number of fields), else -1. */
static long whole_rows(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    long rows = -1, fields = 1, header = -1;
    int c, last = '\n';
    while ((c = fgetc(f)) != EOF) {
        fields += c == ',';
        if (c == '\n') {
            if (header < 0)
                header = fields;
            else if (fields != header)
                rows = -2;
            rows += rows >= -1;
            fields = 1;
        }
        last = c;
    }
    fclose(f);
    return last == '\n' && rows >= 0 ? rows : -1;
}

/* Outputs that cannot be written: a file grown past RLIMIT_FSIZE (a full disk, for one process, without root)
 * stops the run naming the file and the step, and leaves every CSV row whole; a summary or report that cannot
 * be put in place (a directory in the way) makes the run fail, never exit 0. */
static void test_outputs_whole_when_writes_fail(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("cli_full");
    /* 2000 pistons: interface.csv rows of 46 kB, so the 200 kB limit falls inside a row; dash counts 512-byte blocks */
    seam_prefix = "ulimit -f 400; trap '' XFSZ; exec ";
    int rc = seam("run examples/piston.json --out '%s' --force --quiet --steps 50 --set solids.0.count=2000 "
                  "--set coupling.scheme=aitken", dir);
    seam_prefix = "";
    assert_int_equal(rc, 1);
    expect("/interface.csv: File too large");
    /* every file ends on the same whole step: the one whose rows did not all fit left none */
    long steps = whole_rows(dir, "stats.csv");
    assert_true(steps >= 1);
    assert_int_equal(whole_rows(dir, "interface.csv"), steps + 1);   /* and the initial state */
    assert_int_equal(whole_rows(dir, "residuals.csv"), 4 * steps);   /* aitken: 4 iterations a step */
    char want[4600];
    snprintf(want, sizeof want, "cannot write the outputs of step %ld: %s/interface.csv: File too large", steps, dir);
    expect(want);
    /* Not even a header fits: no CSV file is left (an empty stats.csv would pass for an earlier run's) */
    seam_prefix = "ulimit -f 0; trap '' XFSZ; exec ";
    rc = seam("run examples/piston.json --out '%s' --force --quiet --steps 5", dir);
    seam_prefix = "";
    assert_int_equal(rc, 1);
    snprintf(want, sizeof want, "cannot write the headers: %s/stats.csv: File too large", dir);
    expect(want);
    assert_false(exists(dir, "stats.csv") || exists(dir, "stats.csv.tmp") || exists(dir, "residuals.csv"));
    /* The summary and the page go into place whole or not at all: one that cannot is the run's failure. */
    const char *in_the_way[] = {"summary.csv", "index.html"};
    for (int i = 0; i < 2; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, in_the_way[i]);
        assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --steps 3", dir), 0);
        unlink(path);
        snprintf(path, sizeof path, "%s/stats.csv", dir);
        unlink(path);   /* not an earlier run: no --force, so the directory in the way stays */
        snprintf(path, sizeof path, "%s/%s", dir, in_the_way[i]);
        assert_int_equal(mkdir(path, 0777), 0);
        assert_int_equal(seam("run examples/piston.json --out '%s' --quiet --steps 3", dir), 1);
        snprintf(want, sizeof want, "%s: Is a directory", path);
        expect(want);
        expect("outcome: failed");
        assert_int_equal(rmdir(path), 0);
    }
}

/* The exit-status table of docs/scenes.md: converged 0, error 1, committed
 * unconverged 3, diverged 4, interrupted 128 + signal. */
static void test_exit_status_table(void **state)
{
    (void)state;
    const char *dir = test_tmpdir("cli_exit");
    const char *warn = "--set coupling.on_nonconvergence=warn --set coupling.max_iterations=50";
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 20 --quiet", dir), 0);
    /* relaxation below its bound 2 / (1 + m_a / m_s) = 2/3, too slow for 50 iterations: it runs to the end */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --steps 30 --quiet --set coupling.relaxation=0.65 %s",
                          dir, warn), 3);
    expect("finished, but 30 steps were committed unconverged (exit status 3)");
    expect("outcome: finished with unconverged steps");
    expect("unconverged steps committed: 30");
    /* the README's explicit piston: each step "converges", the run blows up across steps */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set coupling.scheme=explicit", dir), 4);
    expect("error: scheme explicit diverged across steps: the interface sped up more than 1.5x in each of the last 20 steps");
    expect("outcome: diverged");
    /* just past the added-mass limit (m_a = 1.01 m_s) the sawtooth grows 1.01x a step at most: it ran to
     * t = 10 s with exit 0; it is stopped once it reversed in 20 steps in a row and doubled */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set coupling.scheme=explicit "
                          "--set fluid.added_mass=1.01 --set time.end=10", dir), 4);
    expect("error: scheme explicit diverged across steps: the interface oscillates at the step's own period (its "
           "fastest point reversed its motion in each of the last ");
    expect("outcome: diverged");
    /* relaxation just past its bound, with the default warn */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set coupling.relaxation=0.67 %s", dir, warn), 4);
    expect("diverged across steps");
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set coupling.relaxation=0.8 %s", dir, warn), 4);
    expect("outcome: diverged");
    /* a wrong command line: 2, with the usage, before any scene is read */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set coupling.scheme", dir), 2);
    expect("seam: --set: expected KEY=VALUE, got \"coupling.scheme\"");
    expect("usage: seam run SCENE");
    assert_int_equal(seam("validate examples/piston.json --set==1"), 2);
    expect("seam: --set: expected KEY=VALUE, got \"=1\"");
    /* a participant's failure */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set 'fluid.fault={\"kind\": \"error\", "
                          "\"step\": 3}'", dir), 1);
    expect("[fluid] error: injected failure at step 3");
    expect("outcome: failed");
    /* a stable step below time.dt_min stops the run at once, the participant named */
    assert_int_equal(seam("run examples/piston.json --out '%s' --force --quiet --set 'fluid.fault={\"kind\": \"tiny_dt\", "
                          "\"step\": 4}'", dir), 1);
    expect("[fluid] error: its stable step fell to 1e-77 s at step 4 (t = 0.04 s), below time.dt_min = 1e-08 s");
    expect("steps: 4 to t = 0.04 s");
    /* SIGINT between steps: the step's rows are whole, the summary printed, 130 */
    char cmd[8192], path[4200];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run examples/piston.json --out '%s' --force --quiet --end 1e6 "
             "--set time.frame=1e9 >'%s.txt' 2>&1", getenv("SEAM_SOURCE_ROOT"), seam_exe, dir, dir);
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    unlink(path);   /* the last run's: the wait below must see this run's rows */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* SIGINT once a step's row is in stats.csv (a loaded machine may take seconds to start the run) */
    for (int waited = 0; waited < 3000; waited++) {
        FILE *rows_so_far = fopen(path, "r");
        int lines = 0, ch;
        while (rows_so_far && (ch = fgetc(rows_so_far)) != EOF)
            lines += ch == '\n';
        if (rows_so_far)
            fclose(rows_so_far);
        if (lines >= 2)
            break;
        usleep(20000);
    }
    kill(pid, SIGINT);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 130);
    snprintf(path, sizeof path, "%s.txt", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(output, 1, sizeof output - 1, f);
    output[n] = '\0';
    fclose(f);
    expect("outcome: interrupted");
    long steps = -1;
    const char *at = strstr(output, "steps: ");
    assert_non_null(at);
    steps = strtol(at + 7, NULL, 10);
    assert_true(steps > 0);
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    long rows = -1;
    int last = '\n', c;
    while ((c = fgetc(f)) != EOF) {
        rows += c == '\n';
        last = c;
    }
    fclose(f);
    assert_int_equal(last, '\n');   /* no row cut in half */
    assert_int_equal(rows, steps);

    /* SIGKILL: every completed step's row is on disk already, whole */
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    unlink(path);   /* the rows counted below are this run's */
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run examples/piston.json --out '%s' --force --quiet --end 1e6 "
             "--set time.frame=1e9 >/dev/null 2>&1", getenv("SEAM_SOURCE_ROOT"), seam_exe, dir);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* killed once more than 10 rows are on disk (however slow the start: a sanitizer build on a busy
     * machine), at whatever point of a step it is then */
    long seen = -1;
    for (int wait = 0; wait < 3000 && seen <= 10; wait++) {
        usleep(10000);
        seen = -1;
        if ((f = fopen(path, "r"))) {
            while ((c = fgetc(f)) != EOF)
                seen += c == '\n';
            fclose(f);
        }
    }
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(seen > 10);
    f = fopen(path, "r");
    assert_non_null(f);
    rows = -1;
    last = '\n';
    while ((c = fgetc(f)) != EOF) {
        rows += c == '\n';
        last = c;
    }
    fclose(f);
    assert_int_equal(last, '\n');   /* block-buffered, it would hold a cut row */
    assert_true(rows >= seen);
    /* frames go through a temporary name: none is left after a whole run */
    assert_int_equal(seam("run examples/rising_disc.json --out '%s' --force --quiet --steps 2 --set time.frame=0.01", dir), 0);
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.tmp' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int tmps = -1;
    assert_int_equal(fscanf(p, "%d", &tmps), 1);
    pclose(p);
    assert_int_equal(tmps, 0);
    snprintf(path, sizeof path, "%s/frames/frame_000002.png", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    fclose(f);
}

/* A scene naming a library outside the plugin search path: validate reads
 * it without loading the library (its constructor would run), and says
 * why; --allow-any-plugin loads it. Both the inline and the separate form. */
static void test_validate_loads_no_library_off_the_search_path(void **state)
{
    (void)state;
    char dir[4096], scene[4200], mark[4200], lib[4200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_untrusted"));
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    snprintf(mark, sizeof mark, "%s/constructor_ran", dir);
    snprintf(lib, sizeof lib, "%s/tests/coupler/ctor_marker.so", getenv("SEAM_BUILD_ROOT"));
    setenv("SEAM_TEST_CTOR_MARK", mark, 1);
    for (int separate = 0; separate < 2; separate++) {
        FILE *f = fopen(scene, "w");
        assert_non_null(f);
        fprintf(f, "{\"time\": {\"end\": 0.1, \"dt\": 0.01}, \"coupling\": {\"scheme\": \"relaxation\"},\n"
                   " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 1.0},\n"
                   " \"solids\": [{\"plugin\": \"%s\"%s, \"mass\": 1.0}]}\n",
                lib, separate ? ", \"process\": \"separate\"" : "");
        fclose(f);
        remove(mark);
        assert_int_equal(seam("validate '%s'", scene), 1);
        expect("solids[0].plugin: \"");
        expect("ctor_marker.so\" is a library outside the plugin search path (");
        expect("): not loaded, since loading a library runs its code; --allow-any-plugin loads it");
        assert_int_equal(access(mark, F_OK), -1);   /* its code did not run */
        assert_int_equal(seam("validate '%s' --allow-any-plugin", scene), 1);   /* no plugin in it, but loaded */
        if (access(mark, F_OK) != 0)
            fail_msg("separate %d: --allow-any-plugin did not load %s:\n%s", separate, lib, output);
    }
    unsetenv("SEAM_TEST_CTOR_MARK");
    /* a plugin named by a path into the search path is loaded as before */
    assert_int_equal(seam("validate examples/piston.json --set solids.0.plugin='%s/tests/plugins/piston_solid.so'",
                          getenv("SEAM_BUILD_ROOT")), 0);
}

/* An output directory that holds the scene (output.dir ".", "", "..", or --out there) is refused before
 * anything is written or removed: --force would empty it, scene and all. */
static void test_output_dir_holding_the_scene(void **state)
{
    (void)state;
    char dir[4096], scene[4200], keep[4200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("cli_scene_dir"));
    snprintf(scene, sizeof scene, "%s/piston.json", dir);
    snprintf(keep, sizeof keep, "%s/keep.txt", dir);
    char cmd[20000];
    snprintf(cmd, sizeof cmd, "cp '%s/examples/piston.json' '%s' && echo kept > '%s' && touch '%s/stats.csv'",
             getenv("SEAM_SOURCE_ROOT"), scene, keep, dir);
    assert_int_equal(system(cmd), 0);
    const char *dirs[] = {".", "\"\"", "..", "/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        assert_int_equal(seam("run '%s' --steps 1 --force --set output.dir=%s", scene, dirs[i]), 1);
        expect("seam: error: --set output.dir: the output directory ");
        expect(" holds the scene file itself (");
    }
    assert_int_equal(seam("run '%s' --steps 1 --force --out '%s'", scene, dir), 1);
    expect("seam: error: --out: the output directory ");
    assert_true(exists(dir, "piston.json") && exists(dir, "keep.txt") && exists(dir, "stats.csv"));
    /* a folder of its own below the scene's is fine */
    assert_int_equal(seam("run '%s' --steps 1 --force --set output.dir=out --quiet", scene), 0);
    snprintf(keep, sizeof keep, "%s/out", dir);
    assert_true(exists(keep, "stats.csv") && exists(dir, "piston.json"));
}

static void test_plugins_and_info(void **state)
{
    (void)state;
    assert_int_equal(seam("plugins"), 0);
    expect("piston_fluid       fluid    abi 6");
    expect("piston_solid       solid    abi 6");
    assert_int_equal(seam("info piston_solid"), 0);
    expect("role:     solid");
    expect("required: create destroy max_dt solve commit describe\n");   /* describe: a solid's (plugins.md, "Roles") */
    expect("optional: mobility save load capabilities\n");
    expect("absent:   bind regions field write_output domain bodies keys\n");
    /* a plugin built against the ABI 2 header: no capabilities entry, its flags from its entries */
    assert_int_equal(seam("info '%s/tests/abi/piston_solid_abi2.so'", getenv("SEAM_BUILD_ROOT")), 0);
    expect("abi:      2\n");
    expect("absent:   bind regions field write_output capabilities (abi 3) domain (abi 4) bodies (abi 5) keys (abi 6)\n");
    expect("capabilities: mobility, save (from its entries)\n");
    /* a library on the search path that does not load: named, the others still listed, exit 1 */
    char dir[] = "/tmp/seam_plugins_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char junk[256];
    snprintf(junk, sizeof junk, "%s/junk.so", dir);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    assert_int_equal(seam("plugins"), 0);
    const char *old = getenv("SEAM_PLUGIN_PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("SEAM_PLUGIN_PATH", dir, 1);
    int rc = seam("plugins");
    if (saved)
        setenv("SEAM_PLUGIN_PATH", saved, 1);
    else
        unsetenv("SEAM_PLUGIN_PATH");
    free(saved);
    assert_int_equal(rc, 1);
    expect("piston_solid       solid    abi 6");
    expect("seam: skipped ");
    expect(junk);
    expect("1 library on the search path could not be loaded");
    unlink(junk);
    rmdir(dir);
    assert_int_equal(seam("info nothing_here"), 1);
    expect("plugin \"nothing_here\" not found");
    assert_int_equal(seam("frobnicate"), 2);
    expect("seam: unknown command \"frobnicate\"; usage below");
    expect("usage: seam run SCENE");
    /* a typo names the command meant; a known one with the wrong count says what it takes */
    assert_int_equal(seam("runn examples/piston.json"), 2);
    expect("seam: unknown command \"runn\" (did you mean \"run\"?)");
    assert_int_equal(seam("report"), 2);
    expect("seam: report takes 1 argument (DIR), got 0");
    assert_int_equal(seam("plugins extra"), 2);
    expect("seam: plugins takes 0 arguments (none), got 1");
}

/* A scheme that includes the projection, on a fluid without regions: the scheme is
 * blamed (the user never set coupling.bpp), with what to use instead. */
static void test_scheme_needing_regions(void **state)
{
    (void)state;
    assert_int_equal(seam("validate examples/piston.json --set coupling.scheme=xpm"), 1);
    expect("--set coupling.scheme: scheme xpm includes the boundary pressure projection, which needs a fluid that "
           "reports its enclosed regions; fluid (piston_fluid) does not: use scheme \"rmi\"");
    if (strstr(output, "coupling.bpp needs"))
        fail_msg("blames coupling.bpp, which the user did not set:\n%s", output);
    assert_int_equal(seam("validate examples/piston.json --set coupling.bpp=true"), 1);
    expect("coupling.bpp needs a fluid that reports its enclosed regions; fluid (piston_fluid) does not");
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
        cmocka_unit_test(test_exit_status_table),
        cmocka_unit_test(test_outputs_whole_when_writes_fail),
        cmocka_unit_test(test_output_dir_holding_the_scene),
        cmocka_unit_test(test_run_writes_stats),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_report_measures),
        cmocka_unit_test(test_progress_and_log_level),
        cmocka_unit_test(test_plugins_and_info),
        cmocka_unit_test(test_scheme_needing_regions),
        cmocka_unit_test(test_validate_loads_no_library_off_the_search_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
