/* Solvers in other processes, end to end: the same piston scene in-process,
 * with the solid, the fluid or both in seam-serve, and with the fluid or
 * both in Python (connected, or started by the scene's command) gives the
 * same bits; a killed, frozen or silent server is reported
 * with the participant and the step; one coupler at a time; CURVE lets the
 * right key in and keeps the others out. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <zmq.h>

#include "keys.h"
#include "remote.h"
#include "seam/checkpoint.h"
#include "seam/config.h"
#include "seam/loader.h"
#include "simulation.h"
#include "test_host.h"
#include "test_proc.h"
#include "test_scene.h"
#include "wire.h"
#include "bare_request.h"

static char *seam_exe, *serve_exe;   /* main's argv: exec arguments are char * */

/* ---- processes ---------------------------------------------------------- */

typedef struct {
    pid_t pid;
    char endpoint[1024];
} server;

/* Start argv, wait for its "seam-serve: serving NAME (ROLE) on ENDPOINT" line. */
static void start_server(server *s, char *const argv[])
{
    s->pid = test_proc_start_server(argv, NULL, s->endpoint, sizeof s->endpoint);
}

/* End and reap a server (it may be gone already). */
static void stop_server(server *s)
{
    test_proc_stop(s->pid);
    s->pid = 0;
}

static void start_seam_serve(server *s, const char *plugin, const char *bind, const char *heartbeat)
{
    char *name = strdup(plugin), *where = strdup(bind), *every = strdup(heartbeat);   /* exec arguments are char * */
    assert_true(name && where && every);
    char *argv[] = {serve_exe, "--plugin", name, "--bind", where, "--heartbeat", every, NULL};
    start_server(s, argv);
    free(name);
    free(where);
    free(every);
}

/* ---- scenes in this process --------------------------------------------- */

typedef struct {
    seam_status status;
    long steps;
    char *stats;             /* stats.csv without the timing columns */
    double x_end;            /* committed interface position at the end */
    char interface_csv[65536];
    char log[8192];
} run_result;

static void capture_log(void *ctx, seam_log_level level, const char *who, const char *message)
{
    (void)level;
    run_result *r = ctx;
    size_t len = strlen(r->log);
    snprintf(r->log + len, sizeof r->log - len, "[%s] %s\n", who ? who : "seam", message);
}

/* Keep the first `cols` columns of each CSV line (drops the wall-time columns). */
static void keep_columns(char *text, int cols)
{
    char *out = text;
    for (char *p = text; *p;) {
        int c = 0;
        while (*p && *p != '\n') {
            if (*p == ',' && ++c >= cols) {
                while (*p && *p != '\n')
                    p++;
                break;
            }
            *out++ = *p++;
        }
        if (*p == '\n')
            *out++ = *p++;
    }
    *out = '\0';
}

static run_result *run_piston_scene(const char *name, const char *scene, const char **sets)
{
    run_result *r = calloc(1, sizeof *r);
    char err[2048];
    seam_doc *doc = seam_doc_load(test_source_path(scene), err, sizeof err);
    assert_non_null(doc);
    assert_int_equal(seam_doc_set(doc, "output.frames=false", err, sizeof err), 0);
    for (int i = 0; sets && sets[i]; i++)
        if (seam_doc_set(doc, sets[i], err, sizeof err) != 0)
            fail_msg("%s: %s", sets[i], err);
    char out[1024];
    snprintf(out, sizeof out, "%s", test_tmpdir(name));
    seam_run_options opts = {.out_dir = out, .log = capture_log, .log_ctx = r};
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim)
        fail_msg("scene %s did not load:\n%s", name, r->log);
    r->status = seam_sim_run(sim);
    r->steps = seam_sim_summary(sim)->steps;
    size_t n;
    int dim;
    const double *X = seam_sim_interface(sim, &n, &dim);
    assert_int_equal(n * (size_t)dim, 1);
    r->x_end = X[0];
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", out);
    r->stats = test_slurp(path);
    assert_non_null(r->stats);
    keep_columns(r->stats, 6);
    snprintf(path, sizeof path, "%s/interface.csv", out);
    char *iface = test_slurp(path);
    assert_non_null(iface);
    snprintf(r->interface_csv, sizeof r->interface_csv, "%s", iface);
    free(iface);
    return r;
}

static run_result *run_piston(const char *name, const char **sets)
{
    return run_piston_scene(name, "examples/piston.json", sets);
}

static void free_run(run_result *r)
{
    free(r->stats);
    free(r);
}

static void assert_same_run(const run_result *a, const run_result *b)
{
    assert_int_equal(a->status, SEAM_OK);
    assert_int_equal(b->status, SEAM_OK);
    assert_int_equal(a->steps, b->steps);
    assert_string_equal(a->stats, b->stats);
    assert_string_equal(a->interface_csv, b->interface_csv);   /* %.17g: every bit */
    assert_memory_equal(&a->x_end, &b->x_end, sizeof(double));
}

/* The piston scene's known answer: the strongly coupled iterations converge
 * to the monolithic backward-Euler recursion on the combined mass
 * (tests/coupler/test_piston.c), x' = (x + dt v) / (1 + k dt^2 / (m_s + m_a)). */
static double monolithic_end(long steps)
{
    double m = 1.0 + 2.0, k = 39.47841760435743, dt = 0.01, x = 0.1, v = 0.0;
    for (long s = 0; s < steps; s++) {
        double x_new = (x + dt * v) / (1.0 + k * dt * dt / m);
        v = (x_new - x) / dt;
        x = x_new;
    }
    return x;
}

static void test_same_bits_in_and_out_of_process(void **state)
{
    (void)state;
    run_result *local = run_piston("remote_local", NULL);
    assert_int_equal(local->steps, 200);
    assert_true(fabs(local->x_end - monolithic_end(200)) < 1e-8);
    const char *solid[] = {"solids.0.process=separate", NULL};
    const char *fluid[] = {"fluid.process=separate", NULL};
    const char *both[] = {"solids.0.process=separate", "fluid.process=separate", NULL};
    const char **variants[] = {solid, fluid, both};
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "remote_variant%d", i);
        run_result *r = run_piston(name, variants[i]);
        assert_same_run(local, r);
        free_run(r);
    }
    free_run(local);
}

/* The [start, end] of each commit a piston plugin logged (commit_trace.h). */
static int read_commits(const char *path, double (*span)[2], int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int n = 0;
    while (n < max && fscanf(f, "%lf %lf", &span[n][0], &span[n][1]) == 2)
        n++;
    fclose(f);
    return n;
}

/* Separate participants commit at once (participants_commit): each commit
 * sleeps 0.15 s, and with the fluid in its own server its commit overlaps
 * the solid's, whether the solid commits in the coupler's process (while
 * the server commits) or in a server of its own. With both in one process
 * they follow each other, which shows the logs tell the two apart. */
static void test_separate_participants_commit_at_once(void **state)
{
    (void)state;
    static const char *const names[3] = {"inline", "fluid_separate", "both_separate"};
    for (int placement = 0; placement < 3; placement++) {
        char name[64];
        snprintf(name, sizeof name, "remote_commits_%s", names[placement]);
        const char *dir = test_tmpdir(name);
        char fluid_log[1100], solid_log[1100], fluid_set[1200], solid_set[1200];
        snprintf(fluid_log, sizeof fluid_log, "%s/fluid_commits.txt", dir);
        snprintf(solid_log, sizeof solid_log, "%s/solid_commits.txt", dir);
        unlink(fluid_log);
        unlink(solid_log);
        snprintf(fluid_set, sizeof fluid_set, "fluid.commit_log=\"%s\"", fluid_log);
        snprintf(solid_set, sizeof solid_set, "solids.0.commit_log=\"%s\"", solid_log);
        const char *sets[] = {"time.end=0.03", "fluid.commit_delay=0.15", "solids.0.commit_delay=0.15", fluid_set,
                              solid_set, placement >= 1 ? "fluid.process=separate" : "time.dt=0.01",
                              placement == 2 ? "solids.0.process=separate" : "time.dt=0.01", NULL};
        snprintf(name, sizeof name, "remote_commits_run_%s", names[placement]);
        run_result *r = run_piston(name, sets);
        if (r->status != SEAM_OK)
            fail_msg("%s", r->log);
        assert_int_equal(r->steps, 3);
        double fl[8][2], so[8][2];
        assert_int_equal(read_commits(fluid_log, fl, 8), 3);
        assert_int_equal(read_commits(solid_log, so, 8), 3);
        for (int k = 0; k < 3; k++) {
            bool overlap = fl[k][0] < so[k][1] && so[k][0] < fl[k][1];
            if (overlap != (placement > 0))
                fail_msg("step %d (%s): fluid commit [%.6f, %.6f], solid [%.6f, %.6f]", k, names[placement],
                         fl[k][0], fl[k][1], so[k][0], so[k][1]);
        }
        free_run(r);
    }
}

/* DIR/regions.csv, whole. */
static char *regions_csv(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/regions.csv", dir);
    return test_slurp(path);
}

/* The pressure projection across the wire: examples/two_balloons.json (two
 * enclosed regions sharing a shell, fluid_mac with solid_fem) asks the fluid
 * for `regions` and the solids for `mobility` every iteration. With either
 * participant in its own process the interface trajectory and regions.csv
 * (p0, its increments, the volume errors) are the in-process run's bits. */
static void test_pressure_projection_same_bits_out_of_process(void **state)
{
    (void)state;
    const char *const base[] = {"cell_size=0.1", "fluid.cells=[60, 40]", "time.end=0.4", "output.frames=false",
                                "fluid.sources[1].speed=0.5", NULL};
    const char *const fluid[] = {"cell_size=0.1", "fluid.cells=[60, 40]", "time.end=0.4", "output.frames=false",
                                 "fluid.sources[1].speed=0.5", "fluid.process=separate", NULL};
    const char *const solid[] = {"cell_size=0.1", "fluid.cells=[60, 40]", "time.end=0.4", "output.frames=false",
                                 "fluid.sources[1].speed=0.5", "solids.0.process=separate", NULL};
    test_run *local = test_run_scene("remote_bpp_local", NULL, "examples/two_balloons.json", base);
    assert_int_equal(local->status, SEAM_OK);
    assert_int_equal(local->rows, 21);
    char *regions = regions_csv(local->out);
    assert_non_null(regions);
    assert_true(strlen(regions) > 40 * 20);   /* a header and two rows a step */
    const char *const *variants[] = {fluid, solid};
    for (int i = 0; i < 2; i++) {
        test_run *r = test_run_scene(i ? "remote_bpp_solid" : "remote_bpp_fluid", NULL, "examples/two_balloons.json",
                                     variants[i]);
        if (r->status != SEAM_OK)
            fail_msg("%s", r->log);
        assert_int_equal(r->rows, local->rows);
        assert_int_equal(r->n, local->n);
        assert_memory_equal(r->X, local->X, local->rows * local->n * sizeof(double));
        char *other = regions_csv(r->out);
        assert_non_null(other);
        assert_string_equal(other, regions);
        free(other);
        test_run_free(r);
    }
    free(regions);
    test_run_free(local);
}

/* Real solvers (fluid_mac with solid_rigid, examples/rising_disc.json) give
 * every bit of their interface trajectory out of process too; the fluid's
 * grid comes from the scene's cell_size, which must cross the wire. */
static void test_real_solvers_same_bits_out_of_process(void **state)
{
    (void)state;
    const char *const base[] = {"time.end=0.1", "output.frames=false", NULL};
    const char *const fluid[] = {"time.end=0.1", "output.frames=false", "fluid.process=separate", NULL};
    const char *const solid[] = {"time.end=0.1", "output.frames=false", "solids.0.process=separate", NULL};
    test_run *local = test_run_scene("remote_disc_local", NULL, "examples/rising_disc.json", base);
    assert_int_equal(local->status, SEAM_OK);
    assert_int_equal(local->rows, 11);
    const char *const *variants[] = {fluid, solid};
    for (int i = 0; i < 2; i++) {
        test_run *r = test_run_scene(i ? "remote_disc_solid" : "remote_disc_fluid", NULL, "examples/rising_disc.json",
                                     variants[i]);
        if (r->status != SEAM_OK)
            fail_msg("%s", r->log);
        assert_int_equal(r->rows, local->rows);
        assert_int_equal(r->n, local->n);
        assert_memory_equal(r->X, local->X, local->rows * local->n * sizeof(double));
        assert_int_equal(r->summary.iterations, local->summary.iterations);
        test_run_free(r);
    }
    test_run_free(local);
}

static void test_python_fluid_gives_the_same_bits(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0)
        skip();
    char bind[1200];
    snprintf(bind, sizeof bind, "ipc://%s/fluid.sock", test_tmpdir("remote_python"));
    server py;
    char script[1200];
    snprintf(script, sizeof script, "%s", test_source_path("protocol/python/piston_fluid.py"));
    char *argv[] = {"/usr/bin/python3", script, "--bind", bind, NULL};
    start_server(&py, argv);
    char connect[1200];
    snprintf(connect, sizeof connect, "fluid.connect=%s", py.endpoint);
    const char *sets[] = {connect, "fluid.plugin=piston_fluid_py", NULL};
    run_result *local = run_piston("remote_py_local", NULL);
    run_result *r = run_piston("remote_py", sets);
    assert_same_run(local, r);
    free_run(r);
    /* the Python server's own configuration check reaches the coupler, located */
    const char *bad[] = {connect, "fluid.plugin=piston_fluid_py", "fluid.added_mas=1", NULL};
    run_result *fail = calloc(1, sizeof *fail);
    char err[1024];
    seam_doc *doc = seam_doc_load(test_source_path("examples/piston.json"), err, sizeof err);
    for (int i = 0; bad[i]; i++)
        assert_int_equal(seam_doc_set(doc, bad[i], err, sizeof err), 0);
    seam_run_options opts = {.out_dir = test_tmpdir("remote_py_bad"), .log = capture_log, .log_ctx = fail};
    seam_sim *sim = seam_sim_new(doc, &opts);
    assert_null(sim);
    if (!strstr(fail->log, "[fluid] error: --set fluid.added_mas: fluid.added_mas: unknown key"))
        fail_msg("unexpected messages:\n%s", fail->log);
    seam_doc_destroy(&doc);
    free(fail);
    free_run(local);
    stop_server(&py);
}

/* The scene `examples/piston_python.json` or piston.json with sets, refused:
 * the messages of the refusal. validate: as `seam validate` (no command
 * started). */
static char *refusal(const char *scene, const char *const *sets, bool validate)
{
    run_result *r = calloc(1, sizeof *r);
    char err[1024];
    seam_doc *doc = seam_doc_load(test_source_path(scene), err, sizeof err);
    assert_non_null(doc);
    for (int i = 0; sets && sets[i]; i++)
        if (seam_doc_set(doc, sets[i], err, sizeof err) != 0)
            fail_msg("%s: %s", sets[i], err);
    seam_run_options opts = {.out_dir = test_tmpdir("remote_command_bad"), .log = capture_log, .log_ctx = r,
                             .plugins_on_path_only = validate};
    seam_sim *sim = seam_sim_new(doc, &opts);
    assert_null(sim);
    seam_doc_destroy(&doc);
    char *log = strdup(r->log);
    free(r);
    return log;
}

static void expect_in(const char *log, const char *what)
{
    if (!strstr(log, what))
        fail_msg("expected \"%s\" in:\n%s", what, log);
}

/* A program started by a "command" runs in the scene's directory, the
 * coupler in another one, and the output directory is relative to the
 * coupler's: the frames the program writes (here seam-serve as a command,
 * with solid_rigid) land in the coupler's output directory, as create's
 * output_dir names it (docs/remote.md, "Programs as participants"). */
static void test_command_writes_its_frames_in_the_coupler_output(void **state)
{
    (void)state;
    char here[4096], err[2048], set[4200];
    assert_non_null(getcwd(here, sizeof here));
    const char *tmp = test_tmpdir("remote_cmd_frames");
    assert_int_equal(chdir(tmp), 0);
    seam_doc *doc = seam_doc_load(test_source_path("examples/rising_disc.json"), err, sizeof err);
    assert_non_null(doc);
    snprintf(set, sizeof set, "solids.0.command=[\"%s\", \"--plugin\", \"solid_rigid\"]", serve_exe);
    const char *const sets[] = {"solids.0.process=\"separate\"", set, "output.report=false", NULL};
    for (int i = 0; sets[i]; i++)
        assert_int_equal(seam_doc_set(doc, sets[i], err, sizeof err), 0);
    run_result *r = calloc(1, sizeof *r);
    seam_run_options opts = {.out_dir = "out", .max_steps = 1, .log = capture_log, .log_ctx = r};
    seam_sim *sim = seam_sim_new(doc, &opts);
    if (!sim)
        fail_msg("the scene did not load:\n%s", r->log);
    r->status = seam_sim_run(sim);
    seam_sim_destroy(&sim);
    seam_doc_destroy(&doc);
    struct stat st;
    bool written = stat("out/disc/bodies_000000.vtu", &st) == 0 && stat("out/disc/disc.pvd", &st) == 0;
    assert_int_equal(chdir(here), 0);
    if (r->status != SEAM_OK || !written)
        fail_msg("status %d, frame written in %s/out/disc: %d\n%s", (int)r->status, tmp, written, r->log);
    free_run(r);
}

/* Both participants in Python, started by the scene's "command" (seam
 * appends --bind and --once): the same bits as the C plugins in-process.
 * A command that cannot start, a wrong plugin name, a command without a
 * separate process and a validation are refused, naming the participant. */
static void test_python_participants_started_by_the_scene(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0)
        skip();
    run_result *local = run_piston("remote_cmd_local", NULL);
    run_result *py = run_piston_scene("remote_cmd_python", "examples/piston_python.json", NULL);
    if (py->status != SEAM_OK)
        fail_msg("%s", py->log);
    assert_same_run(local, py);
    expect_in(py->log, "[piston] piston_solid_py: destroyed after 200 commits");   /* its destroy, at bye */
    free_run(py);
    free_run(local);

    const char *const missing[] = {"fluid.command=[\"/nonexistent/solver\", \"x.py\"]", NULL};
    char *log = refusal("examples/piston_python.json", missing, false);
    expect_in(log, "fluid: hello: /nonexistent/solver x.py (pid ");
    expect_in(log, ") exited with status 127");
    free(log);
    const char *const wrong[] = {"solids.0.plugin=piston_solid", NULL};
    log = refusal("examples/piston_python.json", wrong, false);
    expect_in(log, "solids[0]: python3 ../protocol/python/piston_solid.py serves plugin \"piston_solid_py\", "
                   "but the scene asks for \"piston_solid\"");
    free(log);
    const char *const empty[] = {"fluid.command=[]", NULL};
    log = refusal("examples/piston_python.json", empty, false);
    expect_in(log, "fluid.command: expected a non-empty array of strings");
    free(log);
    const char *const not_text[] = {"solids.0.command=[\"python3\", 7]", NULL};
    log = refusal("examples/piston_python.json", not_text, false);
    expect_in(log, "solids[0].command: item 1: expected a non-empty string");
    free(log);
    const char *const both[] = {"fluid.connect=ipc:///nonexistent/x.sock", "fluid.process=inline", NULL};
    log = refusal("examples/piston_python.json", both, false);
    expect_in(log, "fluid.command: with \"connect\" the server runs already");
    free(log);
    const char *const inline_cmd[] = {"fluid.command=[\"python3\"]", NULL};
    log = refusal("examples/piston.json", inline_cmd, false);
    expect_in(log, "fluid.command: only for a participant in another process");
    free(log);
    log = refusal("examples/piston_python.json", NULL, true);
    expect_in(log, "fluid.command: not started: a command runs a program the scene names");
    expect_in(log, "solids[0].command: not started");
    free(log);
}

/* ---- dead and silent servers -------------------------------------------- */

/* Start `seam run` on the piston scene for a long time with extra --set
 * arguments; output to a file. */
static pid_t start_seam_run(const char *out_dir, const char *log_path, const char *const *sets)
{
    char *argv[32], *copies[15] = {NULL};   /* exec arguments are char *: the sets copied */
    int a = 0, n = 0;
    argv[a++] = seam_exe;
    argv[a++] = "run";
    char scene[1200];
    snprintf(scene, sizeof scene, "%s", test_source_path("examples/piston.json"));
    argv[a++] = scene;
    char out[1200];   /* beside the sockets and logs, which --force would remove */
    snprintf(out, sizeof out, "%s/out", out_dir);
    char stats[1300];   /* an earlier run's rows would look like this one's to wait_for_steps */
    snprintf(stats, sizeof stats, "%s/stats.csv", out);
    unlink(stats);
    argv[a++] = "--out";
    argv[a++] = out;
    argv[a++] = "--end";
    argv[a++] = "100000";
    argv[a++] = "--quiet";
    argv[a++] = "--force";
    for (int i = 0; sets[i] && a < 30; i++) {
        argv[a++] = "--set";
        argv[a++] = copies[n] = strdup(sets[i]);
        assert_non_null(copies[n++]);
    }
    argv[a] = NULL;
    pid_t pid = test_proc_spawn(argv, log_path, -1);
    for (int i = 0; i < n; i++)
        free(copies[i]);
    return pid;
}

/* The run wrote stats rows for the steps it finished. */
static void expect_partial_stats(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/out/stats.csv", dir);
    char *text = test_slurp(path);
    assert_non_null(text);
    int rows = 0;
    for (char *p = text; *p; p++)
        rows += *p == '\n';
    free(text);
    assert_true(rows > 10);
}

/* Wait (up to 20 s) until the run in dir has committed `steps` steps: the
 * session is up, so what follows (a kill, a freeze) meets it stepping, not
 * saying hello (under AddressSanitizer or on a loaded machine, starting
 * takes a while). */
static void wait_for_steps(const char *dir, int steps)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/out/stats.csv", dir);
    for (double t0 = test_now_s(); test_now_s() - t0 < 20.0; usleep(20000)) {
        char *text = test_slurp(path);
        int rows = 0;
        for (char *p = text; p && *p; p++)
            rows += *p == '\n';
        free(text);
        if (rows > steps)   /* the header and the steps */
            return;
    }
    fail_msg("fewer than %d steps in %s after 20 s", steps, path);
}

static void test_killed_server_is_named_with_its_step(void **state)
{
    (void)state;
    char dir[1024], bind[1200], log[1200], connect[1300];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_kill"));
    snprintf(bind, sizeof bind, "ipc://%s/solid.sock", dir);
    snprintf(log, sizeof log, "%s/seam.log", dir);
    server s;
    start_seam_serve(&s, "piston_solid", bind, "1");
    snprintf(connect, sizeof connect, "solids.0.connect=%s", s.endpoint);
    const char *sets[] = {connect, NULL};
    pid_t run = start_seam_run(dir, log, sets);
    wait_for_steps(dir, 11);   /* expect_partial_stats below wants more than 10 */
    kill(s.pid, SIGKILL);
    double took = 0;
    int rc = test_proc_wait(run, 10.0, &took);
    stop_server(&s);
    assert_int_equal(rc, 1);
    assert_true(took < 5.0);   /* seconds, not never: the connection's loss is seen within a wait's slice */
    test_expect_in_file(log, "[piston] error: ");
    test_expect_in_file(log, "at step ");
    test_expect_in_file(log, "lost the connection to ipc://");
    expect_partial_stats(dir);
}

/* The seam-serve a `seam run` started for itself: its pid from /proc. */
static pid_t child_of(pid_t parent)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)parent, (int)parent);
    for (int tries = 0; tries < 500; tries++) {
        FILE *f = fopen(path, "r");
        int pid = 0;
        if (f) {
            if (fscanf(f, "%d", &pid) != 1)
                pid = 0;
            fclose(f);
        }
        if (pid > 0)
            return pid;
        usleep(10000);
    }
    return 0;
}

static void test_killed_spawned_server_is_named_with_its_step(void **state)
{
    (void)state;
    char dir[1024], log[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_kill_spawned"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    const char *sets[] = {"fluid.process=separate", NULL};
    pid_t run = start_seam_run(dir, log, sets);
    pid_t child = child_of(run);
    assert_true(child > 0);
    wait_for_steps(dir, 11);
    kill(child, SIGKILL);
    double took = 0;
    int rc = test_proc_wait(run, 10.0, &took);
    assert_int_equal(rc, 1);
    test_expect_in_file(log, "[fluid] error: ");
    test_expect_in_file(log, "at step ");
    test_expect_in_file(log, "was killed by signal 9");
    expect_partial_stats(dir);
}

/* Whether process pid has ended (gone, or a zombie nobody reaped yet). */
static bool process_ended(pid_t pid)
{
    char path[64], stat[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')');   /* "pid (name) STATE ..." */
    return end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

/* A coupler killed with SIGKILL cannot stop its seam-serve nor remove the
 * server's private ipc directory: the server (started with --exit-with)
 * notices at once and does both. It used to outlive the coupler by 1.4 to
 * 1.9 s (its loop's stop flag, then ZeroMQ's linger) and leave the
 * directory behind. */
static void test_spawned_server_ends_with_its_killed_coupler(void **state)
{
    (void)state;
    char dir[1024], log[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_coupler_killed"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    const char *sets[] = {"fluid.process=separate", NULL};
    pid_t run = start_seam_run(dir, log, sets);
    pid_t child = child_of(run);
    assert_true(child > 0);
    wait_for_steps(dir, 3);
    char path[128], cmdline[8192] = "";
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)child);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
    fclose(f);
    char sock_dir[4096] = "";
    for (size_t i = 0; i < n; i += strlen(cmdline + i) + 1)   /* the arguments, NUL-separated */
        if (strncmp(cmdline + i, "ipc://", 6) == 0) {
            snprintf(sock_dir, sizeof sock_dir, "%s", cmdline + i + 6);
            *strrchr(sock_dir, '/') = '\0';
        }
    struct stat st;
    assert_true(sock_dir[0] && stat(sock_dir, &st) == 0);
    kill(run, SIGKILL);
    double killed = test_now_s(), took = 0;
    test_proc_wait(run, 5.0, &took);
    while (!process_ended(child) && test_now_s() - killed < 5.0)
        usleep(1000);
    double ended = test_now_s() - killed;
    print_message("seam-serve ended %.3f s after its coupler was killed; %s\n", ended,
                  stat(sock_dir, &st) == 0 ? "its ipc directory is left" : "its ipc directory is gone");
    assert_true(process_ended(child));
    assert_true(ended < 0.3);
    assert_int_not_equal(stat(sock_dir, &st), 0);
    assert_int_equal(errno, ENOENT);
}

static void test_frozen_server_is_caught_by_heartbeats_then_by_the_timeout(void **state)
{
    (void)state;
    char dir[1024], bind[1200], log[1200], connect[1300];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_frozen"));
    snprintf(bind, sizeof bind, "ipc://%s/solid.sock", dir);
    snprintf(log, sizeof log, "%s/seam.log", dir);
    server s;
    /* SIGSTOP freezes the whole server, its heartbeats included */
    start_seam_serve(&s, "piston_solid", bind, "0.1");
    snprintf(connect, sizeof connect, "solids.0.connect=%s", s.endpoint);
    const char *hb[] = {connect, "solids.0.heartbeat=0.1", NULL};
    pid_t run = start_seam_run(dir, log, hb);
    wait_for_steps(dir, 1);
    kill(s.pid, SIGSTOP);
    double took = 0;
    int rc = test_proc_wait(run, 10.0, &took);
    stop_server(&s);
    assert_int_equal(rc, 1);
    assert_true(took < 5.0);   /* 3 missed heartbeats of 0.1 s, plus slack for a loaded machine */
    test_expect_in_file(log, "[piston] error: ");
    test_expect_in_file(log, "stopped answering heartbeats");

    /* without heartbeats, the per-operation timeout ends the wait */
    start_seam_serve(&s, "piston_solid", bind, "0");
    snprintf(connect, sizeof connect, "solids.0.connect=%s", s.endpoint);
    const char *to[] = {connect, "solids.0.heartbeat=0", "solids.0.timeout=0.5", NULL};
    run = start_seam_run(dir, log, to);
    wait_for_steps(dir, 1);
    kill(s.pid, SIGSTOP);
    rc = test_proc_wait(run, 10.0, &took);
    stop_server(&s);
    assert_int_equal(rc, 1);
    assert_true(took < 5.0);
    test_expect_in_file(log, "no reply from ipc://");
    test_expect_in_file(log, "within 0.5 s");
    test_expect_in_file(log, "at step ");
}

/* ---- talking to seam-serve directly ------------------------------------- */

typedef struct {
    void *ctx, *sock;
    zmq_msg_t reply;
    seam_msg m;
} client;

static void client_open(client *c, const char *endpoint)
{
    c->ctx = zmq_ctx_new();
    c->sock = zmq_socket(c->ctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(c->sock, ZMQ_LINGER, &zero, sizeof zero);
    assert_int_equal(zmq_connect(c->sock, endpoint), 0);
    zmq_msg_init(&c->reply);
}

static void client_close(client *c)
{
    zmq_msg_close(&c->reply);
    zmq_close(c->sock);
    zmq_ctx_term(c->ctx);
}

/* Send frames (n of them), wait for the reply and parse it. */
static void client_send(client *c, const void *const *frames, const size_t *lens, int n)
{
    for (int i = 0; i < n; i++)
        assert_true(zmq_send(c->sock, frames[i], lens[i], i + 1 < n ? ZMQ_SNDMORE : 0) >= 0);
    zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
    assert_int_equal(zmq_poll(&it, 1, 5000), 1);
    do {   /* the reply is the last frame (after a REQ-style delimiter, if one was sent) */
        zmq_msg_close(&c->reply);
        zmq_msg_init(&c->reply);
        assert_true(zmq_msg_recv(&c->reply, c->sock, 0) >= 0);
    } while (zmq_msg_more(&c->reply));
    if (!seam_msg_parse(&c->m, zmq_msg_data(&c->reply), zmq_msg_size(&c->reply)))
        fail_msg("reply does not parse: %s", c->m.error);
}

/* The reply with this id: probes (id 0) and stale replies are skipped, as
 * PROTOCOL.md asks of every client. */
static void client_await(client *c, uint64_t id)
{
    uint64_t got = 0;
    while (seam_msg_uint(&c->m, "id", true, &got) && got != id)
        client_send(c, NULL, NULL, 0);
}

static void client_request(client *c, const char *op, uint64_t id)
{
    seam_wbuf w;
    bare_request(&w, op, id);
    const void *f = w.sb.data;
    size_t len = w.sb.size;
    client_send(c, &f, &len, 1);
    seam_wbuf_free(&w);
    client_await(c, id);
}

static bool client_ok(client *c, const char *error_needle)
{
    bool ok = false;
    assert_true(seam_msg_bool(&c->m, "ok", true, &ok));
    if (!ok && !error_needle) {
        char e[512] = "";
        seam_msg_strcpy(&c->m, "error", false, e, sizeof e);
        fail_msg("unexpected error reply: %s", e);
    }
    if (!ok && error_needle) {
        char e[512] = "";
        seam_msg_strcpy(&c->m, "error", false, e, sizeof e);
        if (!strstr(e, error_needle))
            fail_msg("expected \"%s\" in \"%s\"", error_needle, e);
    }
    return ok;
}

static void test_garbage_on_the_wire_then_a_valid_request(void **state)
{
    (void)state;
    server s;
    start_seam_serve(&s, "piston_solid", "tcp://127.0.0.1:*", "1");
    client c;
    client_open(&c, s.endpoint);
    uint8_t noise[1000];
    srand(7);
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)rand();
    const void *f1 = noise;
    size_t l1 = sizeof noise;
    client_send(&c, &f1, &l1, 1);
    assert_false(client_ok(&c, "malformed request"));
    const uint8_t bin_lie[] = {0x82, 0xa2, 'o', 'p', 0xc6, 0x7f, 0xff, 0xff, 0xff};
    const void *f2 = bin_lie;
    size_t l2 = sizeof bin_lie;
    client_send(&c, &f2, &l2, 1);
    assert_false(client_ok(&c, "malformed request"));
    const void *two[2] = {"", "x"};   /* REQ-style delimiter + junk: answered too */
    size_t two_len[2] = {0, 1};
    client_send(&c, two, two_len, 2);
    assert_false(client_ok(&c, "malformed request"));
    client_request(&c, "hello", 42);
    assert_true(client_ok(&c, NULL));
    char plugin[64];
    assert_true(seam_msg_strcpy(&c.m, "plugin", true, plugin, sizeof plugin));
    assert_string_equal(plugin, "piston_solid");
    uint64_t id = 0;
    assert_true(seam_msg_uint(&c.m, "id", true, &id));
    assert_int_equal(id, 42);
    client_close(&c);
    stop_server(&s);
}

static void test_one_coupler_at_a_time(void **state)
{
    (void)state;
    server s;
    start_seam_serve(&s, "piston_solid", "tcp://127.0.0.1:*", "0.1");
    client a, b;
    client_open(&a, s.endpoint);
    client_open(&b, s.endpoint);
    client_request(&a, "hello", 1);
    assert_true(client_ok(&a, NULL));
    client_request(&b, "hello", 1);
    assert_false(client_ok(&b, "busy: plugin \"piston_solid\" is serving another coupler"));
    client_request(&a, "bye", 2);
    assert_true(client_ok(&a, NULL));
    client_request(&b, "hello", 2);
    assert_true(client_ok(&b, NULL));
    /* b vanishes without bye: the next coupler gets in */
    client_close(&b);
    bool in = false;
    for (int tries = 0; tries < 30 && !in; tries++) {   /* once the server has seen b's connection close */
        usleep(100000);
        client_request(&a, "hello", 3 + (uint64_t)tries);
        in = client_ok(&a, "busy");
    }
    assert_true(in);
    client_close(&a);
    stop_server(&s);
}

/* A long solve does not silence the server: while probe_solid sleeps 3 s
 * in coupler A's solve, coupler B's hello and describe are answered "busy"
 * within a second, ZeroMQ's heartbeats keep A's connection (3 intervals of
 * 0.2 s pass many times over), A's solve then returns its answer, and the
 * server goes on: once A says bye, B gets in. */
typedef struct {
    const seam_plugin *p;
    void *self;
    seam_status status;
    double x, done_at;
} long_solve;

static void *solve_step_1(void *arg)
{
    long_solve *ls = arg;
    seam_step step = {.index = 1, .t = 0.01, .dt = 0.01};
    double F = 1.0, X = -1.0, V = -1.0;
    seam_input in = {.n = 1, .dim = 1, .F = &F};
    seam_output out = {.n = 1, .dim = 1, .X = &X, .V = &V};
    ls->status = ls->p->solve(ls->self, &step, &in, &out);
    ls->x = X;
    ls->done_at = test_now_s();
    return NULL;
}

static void test_busy_while_the_plugin_solves(void **state)
{
    (void)state;
    server s;
    start_seam_serve(&s, "probe_solid", "tcp://127.0.0.1:*", "0.2");
    char err[2048];
    seam_remote_options o = {.name = "a", .timeout_s = 30, .heartbeat_s = 0.2, .start_timeout_s = 10};
    seam_remote *r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    long_solve ls = {.p = seam_remote_plugin(r)};
    test_host th;
    test_host_init(&th, "a", "solids[0]");
    ls.self = ls.p->create(ls.p, "{\"position\": 0.25, \"hang_at_step\": 1, \"hang_s\": 3}", &th.host);
    assert_non_null(ls.self);
    seam_interface f;
    assert_int_equal(ls.p->describe(ls.self, &f), SEAM_OK);
    seam_step step0 = {.index = 0, .dt = 0.01};
    double F = 0.0, X = 0.0, V = 0.0;
    seam_input in = {.n = 1, .dim = 1, .F = &F};
    seam_output out = {.n = 1, .dim = 1, .X = &X, .V = &V};
    assert_int_equal(ls.p->solve(ls.self, &step0, &in, &out), SEAM_OK);
    assert_int_equal(ls.p->commit(ls.self), SEAM_OK);
    double t0 = test_now_s();
    pthread_t solver;
    assert_int_equal(pthread_create(&solver, NULL, solve_step_1, &ls), 0);
    usleep(500000);   /* the plugin is asleep in the solve */
    client b;
    client_open(&b, s.endpoint);
    double asked = test_now_s();
    client_request(&b, "hello", 1);
    double answered = test_now_s();
    assert_false(client_ok(&b, "busy: plugin \"probe_solid\" is serving another coupler"));
    client_request(&b, "describe", 2);
    assert_false(client_ok(&b, "busy: plugin \"probe_solid\" is serving another coupler"));
    print_message("busy reply after %.3f s, during a 3 s solve\n", answered - asked);
    assert_true(answered - asked < 1.0);
    pthread_join(solver, NULL);
    assert_int_equal(ls.status, SEAM_OK);
    assert_true(ls.x == 0.25);
    assert_true(ls.done_at - t0 >= 3.0);   /* the plugin did sleep: B was answered while it did */
    assert_true(answered < ls.done_at);
    assert_int_equal(ls.p->commit(ls.self), SEAM_OK);
    ls.p->destroy(ls.self);   /* bye */
    client_request(&b, "hello", 3);
    assert_true(client_ok(&b, NULL));
    client_request(&b, "bye", 4);
    assert_true(client_ok(&b, NULL));
    client_close(&b);
    stop_server(&s);
}

/* A coupler killed while its plugin sleeps 3 s in a solve: a newcomer's
 * hello is not answered "busy" (the owner is gone) but waits for the solve
 * to end, then gets the server (the old instance destroyed). */
static void test_newcomer_waits_for_a_vanished_owners_solve(void **state)
{
    (void)state;
    char dir[1024], log[1200], solid[1400];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_vanished_owner"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    server s;
    start_seam_serve(&s, "probe_solid", "tcp://127.0.0.1:*", "0.2");
    snprintf(solid, sizeof solid,
             "solids.0={\"name\": \"piston\", \"plugin\": \"probe_solid\", \"connect\": \"%s\","
             " \"position\": 0.1, \"hang_at_step\": 3, \"hang_s\": 3}", s.endpoint);
    const char *sets[] = {solid, "coupling.on_nonconvergence=warn", NULL};
    pid_t run = start_seam_run(dir, log, sets);
    wait_for_steps(dir, 3);   /* steps 0-2 done: step 3's solve sleeps */
    double killed = test_now_s();
    kill(run, SIGKILL);
    double took;
    test_proc_wait(run, 5.0, &took);
    usleep(300000);   /* the server's ZeroMQ has seen the connection close */
    client b;
    client_open(&b, s.endpoint);
    client_request(&b, "hello", 1);
    double answered = test_now_s();
    assert_true(client_ok(&b, NULL));
    print_message("newcomer served %.2f s after the owner was killed\n", answered - killed);
    assert_true(answered - killed > 1.0);   /* after the 3 s solve, not at once */
    client_request(&b, "bye", 2);
    assert_true(client_ok(&b, NULL));
    client_close(&b);
    stop_server(&s);
}

/* No request holds a server (issue 34): the worst input of each op found so
 * far goes to a fluid_sph server from coupler A (through the proxy, in a
 * thread) while coupler B says hello. B is answered "busy" within a second
 * and A's request within a few, with a clear refusal where the input is one
 * no physics means: a create whose lattice would have 1e14 sites; a bind, a
 * solve and a `regions` with one coordinate of 5.4e307 (the request that
 * overflowed the neighbour grid and then cut one element into 1e309
 * pieces, holding the server for good; the bind sampled its element with
 * 2e6 samples for 10 s, a 3D one would have made 5e11); a `regions` and a
 * solve whose positions span more than a double. Then the server serves B
 * as a fresh one. */
typedef struct {
    const seam_plugin *p;
    void *self;
    const char *op;          /* "create", "bind", "solve" or "regions" */
    const char *config;
    test_host th;
    seam_interface iface;
    const double *X;
    seam_status status;
    double took;
} hostile_call;

static void *hostile_main(void *arg)
{
    hostile_call *h = arg;
    seam_step step = {.index = 1, .t = 0.001, .dt = 0.001};
    size_t n = h->iface.n_points * (size_t)h->iface.dim;
    double t0 = test_now_s();
    if (strcmp(h->op, "create") == 0) {
        h->self = h->p->create(h->p, h->config, &h->th.host);
        h->status = h->self ? SEAM_OK : SEAM_ERROR;
    } else if (strcmp(h->op, "bind") == 0) {
        h->iface.X = h->X;
        h->status = h->p->bind(h->self, &h->iface);
    } else if (strcmp(h->op, "solve") == 0) {
        double *F = calloc(n, sizeof *F), *V = calloc(n, sizeof *V);
        seam_input in = {.n = h->iface.n_points, .dim = h->iface.dim, .X = h->X, .V = V};
        seam_output out = {.n = h->iface.n_points, .dim = h->iface.dim, .F = F};
        h->status = h->p->solve(h->self, &step, &in, &out);
        free(F);
        free(V);
    } else {
        seam_regions reg;
        h->status = h->p->regions(h->self, &step, h->X, &reg);
    }
    h->took = test_now_s() - t0;
    return NULL;
}

/* Run A's call in a thread; B (already greeted out) says hello meanwhile
 * and must hear "busy" within a second. */
static void hostile_while_b_knocks(hostile_call *h, client *b, uint64_t id)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hostile_main, h), 0);
    usleep(20000);
    double asked = test_now_s();
    client_request(b, "hello", id);
    double answered = test_now_s() - asked;
    assert_false(client_ok(b, "busy: plugin \"fluid_sph\" is serving another coupler"));
    pthread_join(t, NULL);
    print_message("%-7s A answered in %.3f s (status %d: %s), B told busy in %.3f s\n", h->op, h->took,
                  (int)h->status, h->th.last, answered);
    assert_true(answered < 1.0);
    assert_true(h->took < 5.0);
}

static void test_no_request_holds_the_server(void **state)
{
    (void)state;
    enum { NC = 32 };
    server s;
    start_seam_serve(&s, "fluid_sph", "tcp://127.0.0.1:*", "0.2");
    char err[2048];
    seam_remote_options o = {.name = "fluid", .timeout_s = 30, .heartbeat_s = 0.2, .start_timeout_s = 10};
    seam_remote *r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    client b;
    client_open(&b, s.endpoint);
    double X[2 * NC], mass[NC], far[2 * NC], wide[2 * NC];
    int32_t elems[2 * NC];
    for (int k = 0; k < NC; k++) {   /* a disc in a box full of fluid: one enclosed region */
        X[2 * k] = 0.2 + 0.05 * cos(2.0 * M_PI * k / NC);
        X[2 * k + 1] = 0.1 + 0.05 * sin(2.0 * M_PI * k / NC);
        mass[k] = 1.0;
        elems[2 * k] = k;
        elems[2 * k + 1] = (k + 1) % NC;
    }
    memcpy(far, X, sizeof far);
    far[0] = 5.4e307;
    memcpy(wide, far, sizeof wide);
    wide[2] = -1.5e308;
    hostile_call h = {.p = seam_remote_plugin(r), .iface = {2, NC, X, mass, NULL, 2, NC, elems, NULL, 1}};
    test_host_init(&h.th, "fluid", "fluid");
    h.op = "create";
    h.config = "{\"domain\": [0, 0, 1000, 1000], \"spacing\": 1e-4, \"fill\": [0, 0, 1000, 1000]}";
    hostile_while_b_knocks(&h, &b, 1);
    assert_int_equal(h.status, SEAM_ERROR);
    assert_non_null(strstr(h.th.last, "more than 4e9"));
    h.config = "{\"domain\": [0, 0, 0.4, 0.2], \"spacing\": 0.01, \"fill\": [0, 0, 0.4, 0.2], \"gravity\": [0, 0]}";
    hostile_while_b_knocks(&h, &b, 2);
    assert_int_equal(h.status, SEAM_OK);
    h.op = "bind";
    h.X = X;
    hostile_while_b_knocks(&h, &b, 3);
    assert_int_equal(h.status, SEAM_OK);
    h.op = "regions";
    h.X = far;
    hostile_while_b_knocks(&h, &b, 4);
    assert_int_equal(h.status, SEAM_UNSTABLE);
    assert_non_null(strstr(h.th.last, "interface element 0 is 5.4e+307 m across"));
    h.X = wide;
    hostile_while_b_knocks(&h, &b, 5);
    assert_int_equal(h.status, SEAM_UNSTABLE);
    assert_non_null(strstr(h.th.last, "span more than a neighbour grid can hold"));
    h.op = "solve";
    h.X = far;
    hostile_while_b_knocks(&h, &b, 6);
    assert_int_equal(h.status, SEAM_OK);   /* far from the fluid, the piece does nothing to it */
    h.X = wide;
    hostile_while_b_knocks(&h, &b, 7);
    assert_int_equal(h.status, SEAM_UNSTABLE);
    h.op = "regions";
    h.X = X;   /* the true disc: the instance still answers */
    hostile_while_b_knocks(&h, &b, 8);
    assert_int_equal(h.status, SEAM_OK);
    h.p->destroy(h.self);   /* bye */
    /* a fresh instance bound with the far point */
    r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    h.p = seam_remote_plugin(r);
    h.op = "create";
    hostile_while_b_knocks(&h, &b, 9);
    assert_int_equal(h.status, SEAM_OK);
    h.op = "bind";
    h.X = far;
    hostile_while_b_knocks(&h, &b, 10);   /* it sampled the 5.4e307 m element with 2e6 samples for 10 s */
    assert_int_equal(h.status, SEAM_ERROR);
    assert_non_null(strstr(h.th.last, "bind: interface element 0 has an edge 5.4e+307 m long"));
    h.p->destroy(h.self);
    client_request(&b, "hello", 11);
    assert_true(client_ok(&b, NULL));
    client_request(&b, "bye", 12);
    assert_true(client_ok(&b, NULL));
    client_close(&b);
    stop_server(&s);
}

/* ---- the optional functions through the proxy --------------------------- */

/* piston_solid's state image (core's checkpoint format): x, then v, one piston. */
static unsigned char *piston_image(double x, double v, size_t *n)
{
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "piston_solid");
    seam_ckpt_put_f64s(w, &x, 1);
    seam_ckpt_put_f64s(w, &v, 1);
    unsigned char *img = seam_ckpt_writer_take(w, n);
    seam_ckpt_writer_destroy(&w);
    return img;
}

static void test_mobility_save_and_load_through_the_proxy(void **state)
{
    (void)state;
    char err[2048];
    seam_remote_options o = {.name = "piston", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn("piston_solid", &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    assert_int_equal(p->role, SEAM_SOLID);
    assert_non_null(p->mobility);
    assert_non_null(p->save);
    assert_non_null(p->load);
    assert_null(p->regions);   /* the piston solid does not offer it, so the proxy does not either */
    assert_non_null(p->create);   /* an ordinary table: create is handed the table */
    test_host th;
    test_host_init(&th, "piston", "solids[0]");
    void *self = seam_remote_plugin(r)->create(seam_remote_plugin(r), "{\"mass\": 4.0, \"position\": 0.25}", &th.host);
    assert_non_null(self);
    seam_interface f;
    assert_int_equal(p->describe(self, &f), SEAM_OK);
    assert_int_equal(f.n_points, 1);
    assert_true(f.X[0] == 0.25 && f.mass[0] == 4.0);
    double impulse = 2.0, dv = 0.0;   /* dv = M^-1 impulse */
    assert_int_equal(p->mobility(self, &impulse, &dv), SEAM_OK);
    assert_true(dv == 0.5);
    seam_buffer b;
    assert_int_equal(p->save(self, &b), SEAM_OK);
    size_t n = 0;
    unsigned char *img = piston_image(0.25, 0.0, &n);
    assert_int_equal(b.size, n);   /* the bytes travel unchanged */
    assert_memory_equal(b.data, img, n);
    free(img);
    img = piston_image(-1.5, 0.0, &n);
    assert_int_equal(p->load(self, img, n), SEAM_OK);
    assert_int_equal(p->describe(self, &f), SEAM_OK);
    assert_true(f.X[0] == -1.5);
    /* a plugin's refusal comes back as its status with its message relayed */
    assert_int_equal(p->load(self, img, 3), SEAM_ERROR);
    assert_true(test_host_saw(&th, "load: piston_solid state: not a seam checkpoint"));
    free(img);
    assert_true(isinf(test_max_dt(p, self)));
    p->destroy(self);   /* bye, and the spawned server exits */
}

/* After a commit, max_dt is answered from the commit's reply without a
 * request (a stopped server could not answer one); after a load, which
 * changes the committed state, it is asked again. */
static void test_max_dt_comes_with_the_commit(void **state)
{
    (void)state;
    char err[2048];
    seam_remote_options o = {.name = "piston", .timeout_s = 1, .heartbeat_s = 0, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn("piston_solid", &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    pid_t pid = (pid_t)seam_remote_pid(r);
    test_host th;
    test_host_init(&th, "piston", "solids[0]");
    void *self = p->create(p, "{\"mass\": 4.0, \"position\": 0.25}", &th.host);
    assert_non_null(self);
    seam_interface f;
    assert_int_equal(p->describe(self, &f), SEAM_OK);
    double F = 1.0, X = 0.0, V = 0.0, dt = 0.0;
    seam_step step = {0, 0.0, 0.01, 0};
    seam_input in = {1, 1, NULL, NULL, &F};
    seam_output out = {1, 1, &X, &V, NULL};
    assert_int_equal(p->solve(self, &step, &in, &out), SEAM_OK);
    assert_int_equal(p->commit(self), SEAM_OK);
    kill(pid, SIGSTOP);   /* continued before any assertion: a failed one must not leave it stopped */
    double t0 = test_now_s(), dt2 = 0.0;
    seam_status st1 = p->max_dt(self, &dt);
    seam_status st2 = p->max_dt(self, &dt2);   /* as often as asked: the committed state is the same */
    double took = test_now_s() - t0;
    kill(pid, SIGCONT);
    assert_int_equal(st1, SEAM_OK);
    assert_int_equal(st2, SEAM_OK);
    assert_true(isinf(dt) && dt > 0 && dt2 == dt);
    assert_true(took < 0.5);
    size_t n = 0;
    unsigned char *img = piston_image(0.5, 0.0, &n);
    assert_int_equal(p->load(self, img, n), SEAM_OK);
    free(img);
    kill(pid, SIGSTOP);
    st1 = p->max_dt(self, &dt);
    kill(pid, SIGCONT);
    assert_int_equal(st1, SEAM_ERROR);
    assert_true(test_host_saw(&th, "max_dt after step 0 (t = 0.01 s): no reply from ipc://"));
    p->destroy(self);
}

/* A field the coupler asks after every commit comes with the commit from
 * the third on: answered without a request (a stopped server could not
 * answer one), the same bits as a request for it gives; a request that may
 * change the state (a load here) makes the proxy ask again. */
static void test_fields_come_with_the_commit(void **state)
{
    (void)state;
    char err[2048];
    seam_remote_options o = {.name = "fluid", .timeout_s = 1, .heartbeat_s = 0, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn("fluid_mac", &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    pid_t pid = (pid_t)seam_remote_pid(r);
    test_host th;
    test_host_init(&th, "fluid", "fluid");
    void *self = p->create(p, "{\"cells\": [10, 10], \"dx\": 0.1}", &th.host);
    assert_non_null(self);
    double X[8] = {0.3, 0.3, 0.7, 0.3, 0.7, 0.7, 0.3, 0.7}, V[8] = {0}, F[8];
    int32_t elems[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    seam_interface face = {.dim = 2, .n_points = 4, .X = X, .nodes_per_elem = 2, .n_elems = 4, .elems = elems,
                           .n_bodies = 1};
    assert_int_equal(p->bind(self, &face), SEAM_OK);
    seam_input in = {4, 2, X, V, NULL};
    seam_output out = {4, 2, NULL, NULL, F};
    seam_raster pr;
    for (int k = 0; k < 3; k++) {
        seam_step step = {k, 0.01 * k, 0.01, 0};
        assert_int_equal(p->solve(self, &step, &in, &out), SEAM_OK);
        assert_int_equal(p->commit(self), SEAM_OK);
        assert_int_equal(p->field(self, "pressure", &pr), SEAM_OK);
    }
    seam_step step = {3, 0.03, 0.01, 0};
    assert_int_equal(p->solve(self, &step, &in, &out), SEAM_OK);
    assert_int_equal(p->commit(self), SEAM_OK);
    kill(pid, SIGSTOP);   /* continued before any assertion: a failed one must not leave it stopped */
    double t0 = test_now_s();
    seam_status st1 = p->field(self, "pressure", &pr);
    seam_status st2 = p->field(self, "pressure", &pr);   /* as often as asked: the state is the same */
    double took = test_now_s() - t0;
    kill(pid, SIGCONT);
    assert_int_equal(st1, SEAM_OK);
    assert_int_equal(st2, SEAM_OK);
    assert_true(took < 0.5);
    assert_true(pr.nx == 10 && pr.ny == 10 && pr.nz == 1);
    double kept[100], sum = 0.0;
    memcpy(kept, pr.data, sizeof kept);
    for (int i = 0; i < 100; i++)
        sum += fabs(kept[i]);
    assert_true(sum > 0.0);
    seam_buffer b;
    assert_int_equal(p->save(self, &b), SEAM_OK);
    void *copy = malloc(b.size);
    memcpy(copy, b.data, b.size);
    assert_int_equal(p->load(self, copy, b.size), SEAM_OK);   /* the same state, asked for again */
    assert_int_equal(p->field(self, "pressure", &pr), SEAM_OK);
    assert_memory_equal(kept, pr.data, sizeof kept);
    assert_int_equal(p->load(self, copy, b.size), SEAM_OK);
    free(copy);
    kill(pid, SIGSTOP);
    seam_status st3 = p->field(self, "pressure", &pr);   /* after a load the proxy must ask */
    kill(pid, SIGCONT);
    assert_int_equal(st3, SEAM_ERROR);
    assert_true(test_host_saw(&th, "field after step 3 (t = 0.04 s): no reply from ipc://"));
    p->destroy(self);
}

/* The proxy reports the flags the plugin reports for the same configuration
 * (asked once after create), and the piston solid's too. */
static void test_capabilities_through_the_proxy(void **state)
{
    (void)state;
    const struct { const char *plugin, *config; uint32_t want; } cases[] = {
        {"fluid_mac", "{\"cells\": [4, 4], \"dx\": 0.1, \"loads\": \"pressure\"}",
         SEAM_CAP_LOADS_PRESSURE | SEAM_CAP_REGIONS | SEAM_CAP_SAVE},
        {"fluid_mac", "{\"cells\": [4, 4], \"dx\": 0.1, \"loads\": \"impulse\"}",
         SEAM_CAP_LOADS_IMPULSE | SEAM_CAP_REGIONS | SEAM_CAP_SAVE},
        {"solid_rigid", "{\"dim\": 2, \"bodies\": [{\"name\": \"b\", \"shape\": \"circle\", \"radius\": 0.1, \"density\": 1}]}",
         SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE},
        {"piston_solid", "{\"mass\": 1.0}", SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[2048] = "";
        seam_library *lib = seam_library_open(cases[i].plugin, err, sizeof err);
        if (!lib)
            fail_msg("%s", err);
        const seam_plugin *local = seam_library_plugin(lib);
        test_host th;
        test_host_init(&th, "p", "p");
        void *here = local->create(local, cases[i].config, &th.host);
        assert_non_null(here);
        uint32_t caps = seam_plugin_caps(local, here);
        assert_int_equal(caps, cases[i].want);
        local->destroy(here);

        seam_remote_options o = {.name = "p", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
        seam_remote *r = seam_remote_spawn(cases[i].plugin, &o, err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        const seam_plugin *p = seam_remote_plugin(r);
        assert_non_null(p->capabilities);
        void *there = p->create(p, cases[i].config, &th.host);
        assert_non_null(there);
        assert_int_equal(seam_plugin_caps(p, there), caps);
        p->destroy(there);
        seam_library_close(&lib);
    }
}

/* bodies through the proxy: the same poses and ranges, bit for bit, as the
 * plugin gives in this process; a solid without the entry has none there. */
static void test_bodies_through_the_proxy(void **state)
{
    (void)state;
    const char *config = "{\"dim\": 2, \"spacing\": 0.05, \"bodies\": [{\"name\": \"a\", \"shape\": \"circle\", "
                         "\"radius\": 0.1, \"density\": 1, \"position\": [0.3, 0.4]}, {\"name\": \"b\", \"shape\": "
                         "\"rectangle\", \"size\": [0.2, 0.1], \"density\": 1, \"position\": [1, 2], \"angle\": 0.7}]}";
    char err[2048] = "";
    seam_library *lib = seam_library_open("solid_rigid", err, sizeof err);
    if (!lib)
        fail_msg("%s", err);
    const seam_plugin *local = seam_library_plugin(lib);
    test_host th;
    test_host_init(&th, "p", "p");
    void *here = local->create(local, config, &th.host);
    assert_non_null(here);
    seam_bodies a;
    assert_non_null(local->bodies);
    assert_int_equal(local->bodies(here, &a), SEAM_OK);
    assert_int_equal(a.count, 2);
    seam_remote_options o = {.name = "p", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn("solid_rigid", &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    assert_non_null(p->bodies);
    void *there = p->create(p, config, &th.host);
    assert_non_null(there);
    seam_bodies b;
    assert_int_equal(p->bodies(there, &b), SEAM_OK);
    assert_int_equal(b.count, a.count);
    assert_memory_equal(b.centre, a.centre, 3 * a.count * sizeof *a.centre);
    assert_memory_equal(b.rotation, a.rotation, 9 * a.count * sizeof *a.rotation);
    assert_memory_equal(b.first, a.first, a.count * sizeof *a.first);
    assert_memory_equal(b.points, a.points, a.count * sizeof *a.points);
    p->destroy(there);
    local->destroy(here);
    seam_library_close(&lib);
    seam_remote_options o2 = {.name = "piston", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r2 = seam_remote_spawn("piston_solid", &o2, err, sizeof err);
    if (!r2)
        fail_msg("%s", err);
    assert_null(seam_remote_plugin(r2)->bodies);   /* the piston solid has no bodies entry */
    void *piston = seam_remote_plugin(r2)->create(seam_remote_plugin(r2), "{\"mass\": 1.0}", &th.host);
    assert_non_null(piston);
    seam_remote_plugin(r2)->destroy(piston);
}

/* ---- large arrays ------------------------------------------------------- */

/* 300000 points: 2.4 MB per array, out of band in ten frames each way. The
 * remote piston fluid must answer bit for bit what the same plugin answers
 * in this process, over a commit (so V^n is the one sent before), with
 * values that only survive as raw bits (signed zero, subnormal, NaN payload). */
static void test_large_arrays_cross_processes_bit_for_bit(void **state)
{
    (void)state;
    const size_t n = 300000;
    char err[2048];
    seam_remote_options o = {.name = "fluid", .timeout_s = 30, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r = seam_remote_spawn("piston_fluid", &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    seam_library *lib = seam_library_open("piston_fluid", err, sizeof err);
    assert_non_null(lib);
    const seam_plugin *pl[2] = {seam_library_plugin(lib), seam_remote_plugin(r)};
    test_host th;
    test_host_init(&th, "fluid", "fluid");
    void *self[2] = {pl[0]->create(pl[0], "{\"added_mass\": 3.0}", &th.host),
                     seam_remote_plugin(r)->create(seam_remote_plugin(r), "{\"added_mass\": 3.0}", &th.host)};
    assert_non_null(self[0]);
    assert_non_null(self[1]);
    double *X = calloc(n, sizeof *X), *V = malloc(n * sizeof *V), *F[2];
    uint64_t nan_bits = 0x7ff8000000abcdefull;
    for (size_t i = 0; i < n; i++)
        V[i] = 1e-3 * (double)i - 7.0;
    V[1] = -0.0;
    V[2] = 4.9e-324;
    memcpy(&V[n - 1], &nan_bits, 8);
    seam_interface face = {.dim = 1, .n_points = n, .X = X, .n_bodies = 1};
    for (int k = 0; k < 2; k++) {
        F[k] = malloc(n * sizeof *F[k]);
        assert_int_equal(pl[k]->bind(self[k], &face), SEAM_OK);
        for (int step = 0; step < 2; step++) {
            seam_step s = {step, 0.01 * step, 0.01, 0};
            seam_input in = {n, 1, X, V, NULL};
            seam_output out = {n, 1, NULL, NULL, F[k]};
            assert_int_equal(pl[k]->solve(self[k], &s, &in, &out), SEAM_OK);
            assert_int_equal(pl[k]->commit(self[k]), SEAM_OK);
            for (size_t i = 0; i < n; i++)
                V[i] = -V[i];   /* the next step's V differs from V^n */
        }
    }
    assert_memory_equal(F[0], F[1], n * sizeof(double));
    assert_true(F[1][0] == -3.0 * (7.0 - (-7.0)) / 0.01);   /* step 1: V = 7, V^n = -7 */
    assert_true(isnan(F[1][n - 1]));
    pl[0]->destroy(self[0]);
    pl[1]->destroy(self[1]);
    seam_library_close(&lib);
    free(X);
    free(V);
    free(F[0]);
    free(F[1]);
}

/* A request too large for the socket buffers, to a server frozen before it
 * could read it: the proxy gives up after its timeout while ZeroMQ still
 * holds frames that point into the caller's arrays (sent without a copy).
 * It must drop them before returning, since the caller frees the arrays
 * next: 8 MB blocks (over seam_wire_tune_malloc's 4 MiB mmap threshold) go
 * back to the kernel when freed, so a later read crashes (and valgrind's and
 * AddressSanitizer's runs of this suite see it). The timeout leaves the bind
 * before the freeze time to cross under AddressSanitizer on a loaded machine. */
static void test_timeout_mid_transfer_releases_the_callers_arrays(void **state)
{
    (void)state;
    const size_t n = 1000000;   /* 8 MB per array, 16 MB per request: beyond both ends' socket buffers */
    server s;
    start_seam_serve(&s, "piston_fluid", "tcp://127.0.0.1:*", "0");
    char err[2048];
    /* 4 s: the 8 MB bind before the freeze must get through on a loaded machine */
    seam_remote_options o = {.name = "fluid", .timeout_s = 4.0, .heartbeat_s = 0, .start_timeout_s = 10};
    seam_remote *r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    const seam_plugin *p = seam_remote_plugin(r);
    test_host th;
    test_host_init(&th, "fluid", "fluid");
    void *self = seam_remote_plugin(r)->create(seam_remote_plugin(r), "{\"added_mass\": 1.0}", &th.host);
    assert_non_null(self);
    double *X = calloc(n, sizeof *X), *V = calloc(n, sizeof *V), *F = malloc(n * sizeof *F);
    seam_interface face = {.dim = 1, .n_points = n, .X = X, .n_bodies = 1};
    assert_int_equal(p->bind(self, &face), SEAM_OK);
    kill(s.pid, SIGSTOP);
    seam_step step = {3, 0.03, 0.01, 0};
    seam_input in = {n, 1, X, V, NULL};
    seam_output out = {n, 1, NULL, NULL, F};
    double t0 = test_now_s();
    assert_int_equal(p->solve(self, &step, &in, &out), SEAM_ERROR);
    assert_true(test_now_s() - t0 < 10.0);
    assert_true(test_host_saw(&th, "within 4 s"));
    memset(X, 0xab, n * sizeof *X);   /* the caller reuses and frees its arrays at once */
    memset(V, 0xab, n * sizeof *V);
    free(X);
    free(V);
    free(F);
    kill(s.pid, SIGCONT);   /* the server reads on: frames still queued would now be sent from freed memory */
    usleep(300000);
    p->destroy(self);
    stop_server(&s);
}

/* ---- a server of protocol 1 ---------------------------------------------- */

/* A protocol 1 server, as earlier seam-serve builds were: it refuses hello
 * with protocol 2, and takes every request as one frame. */
typedef struct {
    char endpoint[256];
    _Atomic int ready;
    int most_frames;         /* the most payload frames one request came in */
} v1_server;

static void *v1_serve(void *arg)
{
    v1_server *v = arg;
    void *ctx = zmq_ctx_new(), *s = zmq_socket(ctx, ZMQ_ROUTER);
    zmq_bind(s, "tcp://127.0.0.1:*");
    size_t len = sizeof v->endpoint;
    zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, v->endpoint, &len);
    v->ready = 1;
    for (bool done = false; !done;) {
        zmq_msg_t route, payload, extra;
        zmq_msg_init(&route);
        zmq_msg_init(&payload);
        zmq_msg_recv(&route, s, 0);
        zmq_msg_recv(&payload, s, 0);
        int frames = 1;
        for (int more = zmq_msg_more(&payload); more; frames++) {
            zmq_msg_init(&extra);
            zmq_msg_recv(&extra, s, 0);
            more = zmq_msg_more(&extra);
            zmq_msg_close(&extra);
        }
        if (frames > v->most_frames)
            v->most_frames = frames;
        seam_msg m;
        char op[32] = "";
        uint64_t id = 0, proto = 0, n = 0;
        seam_msg_parse(&m, zmq_msg_data(&payload), zmq_msg_size(&payload));
        seam_msg_strcpy(&m, "op", true, op, sizeof op);
        seam_msg_uint(&m, "id", true, &id);
        seam_wbuf w;
        seam_wbuf_init(&w, 0);
        bool hello = strcmp(op, "hello") == 0;
        if (hello)
            seam_msg_uint(&m, "protocol", true, &proto);
        if (hello && proto != 1) {
            seam_w_map(&w, 4);
            seam_w_str(&w, "id"); seam_w_uint(&w, id);
            seam_w_str(&w, "ok"); seam_w_bool(&w, false);
            seam_w_str(&w, "log"); seam_w_array(&w, 0);
            seam_w_str(&w, "error");
            seam_w_str(&w, "hello: protocol version 2 is not spoken here (this server speaks 1)");
        } else if (hello) {
            seam_w_map(&w, 9);
            seam_w_str(&w, "id"); seam_w_uint(&w, id);
            seam_w_str(&w, "ok"); seam_w_bool(&w, true);
            seam_w_str(&w, "log"); seam_w_array(&w, 0);
            seam_w_str(&w, "protocol"); seam_w_uint(&w, 1);
            seam_w_str(&w, "abi"); seam_w_uint(&w, SEAM_ABI_VERSION);
            seam_w_str(&w, "plugin"); seam_w_str(&w, "old_fluid");
            seam_w_str(&w, "role"); seam_w_str(&w, "fluid");
            seam_w_str(&w, "summary"); seam_w_str(&w, "");
            seam_w_str(&w, "functions"); seam_w_array(&w, 1); seam_w_str(&w, "bind");
        } else if (strcmp(op, "solve") == 0) {   /* F = 2 V, inline */
            seam_msg_uint(&m, "n", true, &n);
            double *V = calloc(n ? n : 1, sizeof *V);
            seam_msg_f64s(&m, "V", true, V, n);
            for (size_t i = 0; i < n; i++)
                V[i] *= 2.0;
            seam_w_map(&w, 5);
            seam_w_str(&w, "id"); seam_w_uint(&w, id);
            seam_w_str(&w, "ok"); seam_w_bool(&w, true);
            seam_w_str(&w, "log"); seam_w_array(&w, 0);
            seam_w_str(&w, "status"); seam_w_uint(&w, 0);
            seam_w_str(&w, "F"); seam_w_f64s(&w, V, n);
            free(V);
        } else {   /* create, bind, bye */
            seam_w_map(&w, 4);
            seam_w_str(&w, "id"); seam_w_uint(&w, id);
            seam_w_str(&w, "ok"); seam_w_bool(&w, true);
            seam_w_str(&w, "log"); seam_w_array(&w, 0);
            seam_w_str(&w, "status"); seam_w_uint(&w, 0);
            done = strcmp(op, "bye") == 0;
        }
        zmq_msg_send(&route, s, ZMQ_SNDMORE);
        zmq_send(s, w.sb.data, w.sb.size, 0);
        seam_wbuf_free(&w);
        zmq_msg_close(&payload);
    }
    zmq_close(s);
    zmq_ctx_term(ctx);
    return NULL;
}

static void test_a_protocol_1_server_is_spoken_to_in_its_version(void **state)
{
    (void)state;
    v1_server v = {.ready = 0, .most_frames = 0};
    pthread_t th;
    pthread_create(&th, NULL, v1_serve, &v);
    while (!v.ready)
        usleep(1000);
    char err[2048];
    seam_remote_options o = {.name = "fluid", .timeout_s = 10, .heartbeat_s = 1, .start_timeout_s = 10};
    seam_remote *r = seam_remote_connect(v.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_string_equal(err, "");   /* the refused hello leaves no message behind */
    const seam_plugin *p = seam_remote_plugin(r);
    assert_string_equal(p->name, "old_fluid");
    test_host host;
    test_host_init(&host, "fluid", "fluid");
    void *self = seam_remote_plugin(r)->create(seam_remote_plugin(r), "{}", &host.host);
    assert_non_null(self);
    const size_t n = 20000;   /* 160 kB: out of band for a protocol 2 server */
    double *X = calloc(n, sizeof *X), *V = malloc(n * sizeof *V), *F = malloc(n * sizeof *F);
    for (size_t i = 0; i < n; i++)
        V[i] = 0.5 * (double)i;
    seam_interface face = {.dim = 1, .n_points = n, .X = X, .n_bodies = 1};
    assert_int_equal(p->bind(self, &face), SEAM_OK);
    seam_step step = {0, 0.0, 0.1, 0};
    seam_input in = {n, 1, X, V, NULL};
    seam_output out = {n, 1, NULL, NULL, F};
    assert_int_equal(p->solve(self, &step, &in, &out), SEAM_OK);
    for (size_t i = 0; i < n; i++)
        assert_true(F[i] == 2.0 * V[i]);
    assert_int_equal(v.most_frames, 1);   /* every request in one frame */
    p->destroy(self);
    pthread_join(th, NULL);
    free(X);
    free(V);
    free(F);
}

/* ---- CURVE -------------------------------------------------------------- */

static void test_curve_lets_the_allowed_key_in_only(void **state)
{
    (void)state;
    char dir[1024], name[1200], err[1024];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("remote_curve"));
    const char *who[] = {"server", "client", "stranger"};
    char pub[3][SEAM_KEY_Z85], sec[3][SEAM_KEY_Z85];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s/%s", dir, who[i]);
        assert_int_equal(seam_keygen(name, err, sizeof err), 0);
        snprintf(name, sizeof name, "%s/%s.key", dir, who[i]);
        assert_int_equal(seam_key_read(name, pub[i], sec[i], err, sizeof err), 0);
        assert_int_equal(strlen(sec[i]), 40);
        struct stat st;
        assert_int_equal(stat(name, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
    }
    /* `seam keygen` writes the same files */
    snprintf(name, sizeof name, "%s/cli", dir);
    char *kg_argv[] = {seam_exe, "keygen", name, NULL};
    pid_t kg = test_proc_spawn(kg_argv, "/dev/null", -1);
    double kg_took;
    assert_int_equal(test_proc_wait(kg, 10.0, &kg_took), 0);
    char cli_pub[SEAM_KEY_Z85], cli_sec[SEAM_KEY_Z85];
    snprintf(name, sizeof name, "%s/cli.key", dir);
    assert_int_equal(seam_key_read(name, cli_pub, cli_sec, err, sizeof err), 0);
    assert_int_equal(strlen(cli_sec), 40);
    snprintf(name, sizeof name, "%s/cli.pub", dir);
    assert_int_equal(seam_key_read(name, cli_pub, cli_sec, err, sizeof err), 0);
    assert_string_equal(cli_sec, "");   /* the .pub file holds no secret */
    /* seam-serve given the .pub: one clear line naming the file, nothing from uninitialised memory */
    char said[1400], *pub_argv[] = {serve_exe, "--plugin", "piston_solid", "--bind", "tcp://127.0.0.1:*",
                                    "--curve", name, NULL};
    snprintf(said, sizeof said, "%s/serve_pub.log", dir);
    pid_t pub_run = test_proc_spawn(pub_argv, said, -1);
    assert_int_equal(test_proc_wait(pub_run, 10.0, &kg_took), 1);
    char *pub_log = test_slurp(said), expected[2600];
    assert_non_null(pub_log);
    snprintf(expected, sizeof expected, "seam-serve: --curve: %s holds no secret key: give the server's NAME.key "
             "(from `seam keygen NAME`), not NAME.pub\n", name);
    assert_string_equal(pub_log, expected);
    free(pub_log);

    char server_key[1200], client_pub[1200];
    snprintf(server_key, sizeof server_key, "%s/server.key", dir);
    snprintf(client_pub, sizeof client_pub, "%s/client.pub", dir);
    server s;
    char *argv[] = {serve_exe, "--plugin", "piston_solid", "--bind", "tcp://127.0.0.1:*", "--curve",
                    server_key, "--allow", client_pub, NULL};
    start_server(&s, argv);

    seam_remote_options o = {.name = "piston", .timeout_s = 5, .heartbeat_s = 1, .start_timeout_s = 3,
                             .server_key = pub[0], .client_public = pub[1], .client_secret = sec[1]};
    seam_remote *r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    if (!r)
        fail_msg("the allowed key was refused: %s", err);
    assert_string_equal(seam_remote_plugin(r)->name, "piston_solid");
    seam_remote_close(&r);

    /* The same from a scene: the server's key given as the 40 characters
     * themselves, the coupler's key pair as a file. */
    char scene[4096];
    snprintf(scene, sizeof scene,
             "{\"time\": {\"end\": 0.05, \"dt\": 0.01},"
             " \"coupling\": {\"scheme\": \"relaxation\", \"relaxation\": 0.3, \"tolerance\": 1e-10},"
             " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 2},"
             " \"solids\": [{\"name\": \"piston\", \"connect\": \"%s\", \"server_key\": \"%s\","
             " \"client_key\": \"%s/client.key\", \"mass\": 1, \"stiffness\": 40, \"position\": 0.1}]}",
             s.endpoint, pub[0], dir);
    test_run *run = test_run_scene("remote_curve_scene", scene, NULL, NULL);
    if (run->status != SEAM_OK || run->summary.steps != 5)
        fail_msg("CURVE scene: %s", run->log);
    test_run_free(run);

    o.client_public = pub[2];
    o.client_secret = sec[2];
    double t0 = test_now_s();
    r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    assert_null(r);
    if (!strstr(err, "refused this coupler's CURVE key"))
        fail_msg("unexpected: %s", err);
    assert_true(test_now_s() - t0 < 3.0);

    o.server_key = pub[2];   /* the wrong server key: the handshake cannot succeed */
    o.client_public = pub[1];
    o.client_secret = sec[1];
    r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    assert_null(r);

    o.server_key = NULL;     /* no CURVE at all */
    r = seam_remote_connect(s.endpoint, &o, err, sizeof err);
    assert_null(r);
    if (!strstr(err, "handshake") && !strstr(err, "no reply"))
        fail_msg("unexpected: %s", err);
    stop_server(&s);

    /* off loopback without CURVE: refused before binding */
    char *open_argv[] = {serve_exe, "--plugin", "piston_solid", "--bind", "tcp://0.0.0.0:*", NULL};
    pid_t pid = test_proc_spawn(open_argv, "/dev/null", -1);
    double took;
    assert_int_equal(test_proc_wait(pid, 5.0, &took), 1);
}

/* A separate participant's hello is sent while the scene is read and
 * answered while the in-process ones are created: an in-process create
 * slower than start_timeout must not turn the answer already waiting into
 * "no reply" (one last look past the deadline). */
static void test_slow_in_process_create_keeps_the_hello(void **state)
{
    (void)state;
    const char *scene = "{\"time\": {\"end\": 0.03, \"dt\": 0.01},"
                        " \"coupling\": {\"scheme\": \"relaxation\", \"relaxation\": 0.3, \"tolerance\": 1e-10},"
                        " \"fluid\": {\"plugin\": \"piston_fluid\", \"added_mass\": 2, \"create_delay\": 1.0},"
                        " \"solids\": [{\"name\": \"piston\", \"plugin\": \"piston_solid\", \"process\": \"separate\","
                        " \"start_timeout\": 0.5, \"mass\": 1, \"stiffness\": 40, \"position\": 0.1}]}";
    test_run *run = test_run_scene("remote_slow_create", scene, NULL, NULL);
    if (run->status != SEAM_OK || run->summary.steps != 3)
        fail_msg("slow in-process create: %s", run->log);
    test_run_free(run);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_remote PATH_TO_SEAM PATH_TO_SEAM_SERVE [TEST_NAME_PATTERN]\n");
        return 2;
    }
    seam_exe = argv[1];
    serve_exe = argv[2];
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_same_bits_in_and_out_of_process, test_proc_reap_all),
        cmocka_unit_test_teardown(test_large_arrays_cross_processes_bit_for_bit, test_proc_reap_all),
        cmocka_unit_test_teardown(test_timeout_mid_transfer_releases_the_callers_arrays, test_proc_reap_all),
        cmocka_unit_test_teardown(test_a_protocol_1_server_is_spoken_to_in_its_version, test_proc_reap_all),
        cmocka_unit_test_teardown(test_real_solvers_same_bits_out_of_process, test_proc_reap_all),
        cmocka_unit_test_teardown(test_pressure_projection_same_bits_out_of_process, test_proc_reap_all),
        cmocka_unit_test_teardown(test_separate_participants_commit_at_once, test_proc_reap_all),
        cmocka_unit_test_teardown(test_python_fluid_gives_the_same_bits, test_proc_reap_all),
        cmocka_unit_test_teardown(test_command_writes_its_frames_in_the_coupler_output, test_proc_reap_all),
        cmocka_unit_test_teardown(test_python_participants_started_by_the_scene, test_proc_reap_all),
        cmocka_unit_test_teardown(test_killed_server_is_named_with_its_step, test_proc_reap_all),
        cmocka_unit_test_teardown(test_killed_spawned_server_is_named_with_its_step, test_proc_reap_all),
        cmocka_unit_test_teardown(test_spawned_server_ends_with_its_killed_coupler, test_proc_reap_all),
        cmocka_unit_test_teardown(test_frozen_server_is_caught_by_heartbeats_then_by_the_timeout, test_proc_reap_all),
        cmocka_unit_test_teardown(test_garbage_on_the_wire_then_a_valid_request, test_proc_reap_all),
        cmocka_unit_test_teardown(test_one_coupler_at_a_time, test_proc_reap_all),
        cmocka_unit_test_teardown(test_busy_while_the_plugin_solves, test_proc_reap_all),
        cmocka_unit_test_teardown(test_newcomer_waits_for_a_vanished_owners_solve, test_proc_reap_all),
        cmocka_unit_test_teardown(test_no_request_holds_the_server, test_proc_reap_all),
        cmocka_unit_test_teardown(test_mobility_save_and_load_through_the_proxy, test_proc_reap_all),
        cmocka_unit_test_teardown(test_capabilities_through_the_proxy, test_proc_reap_all),
        cmocka_unit_test_teardown(test_max_dt_comes_with_the_commit, test_proc_reap_all),
        cmocka_unit_test_teardown(test_fields_come_with_the_commit, test_proc_reap_all),
        cmocka_unit_test_teardown(test_bodies_through_the_proxy, test_proc_reap_all),
        cmocka_unit_test_teardown(test_curve_lets_the_allowed_key_in_only, test_proc_reap_all),
        cmocka_unit_test_teardown(test_slow_in_process_create_keeps_the_hello, test_proc_reap_all),
    };
    if (argc > 3)   /* a pattern: the tests whose names match it (cmocka_set_test_filter) */
        cmocka_set_test_filter(argv[3]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
