/* Solvers in other processes that hang, are told to stop, or speak last:
 * a solve stuck for ever is reported once its server uses no CPU time for
 * 10 s (not after the 600 s fixed timeout), one that computes for long is
 * never stopped; SIGTERM ends a
 * seam-serve whose plugin is stuck; what a plugin logs from destroy reaches
 * the coupler; `seam validate` does not use up a `--once` server; a server
 * lost between steps is named with the step. The solid is
 * tests/plugins/probe_solid.c, or tests/protocol/faulty_solid.py. */
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_host.h"
#include "test_proc.h"

static char *seam_exe, *serve_exe;   /* main's argv: exec arguments are char * */

/* seam-serve --plugin probe_solid on a private ipc socket; its endpoint. */
static pid_t start_probe_server(const char *dir, bool once, char *endpoint, size_t n)
{
    char bind[1200], log[1200];
    snprintf(bind, sizeof bind, "ipc://%s/probe.sock", dir);
    snprintf(log, sizeof log, "%s/serve.log", dir);
    char *argv[] = {serve_exe, "--plugin", "probe_solid", "--bind", bind, "--heartbeat", "0.2",
                    once ? "--once" : NULL, NULL};
    return test_proc_start_server(argv, log, endpoint, n);
}

/* `seam CMD examples/piston.json` with the piston replaced by a probe (its
 * object's extra keys in `probe`), more --set arguments, output in dir. */
static pid_t start_seam(const char *cmd, const char *dir, const char *probe, const char *extra, const char *log)
{
    static char solid[2048], out[1200], scene[1200];
    snprintf(solid, sizeof solid, "solids.0={\"name\": \"piston\", \"plugin\": \"probe_solid\", \"position\": 0.1%s}",
             probe);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(scene, sizeof scene, "%s", test_source_path("examples/piston.json"));
    char *verb = strdup(cmd), *more = extra ? strdup(extra) : NULL;   /* exec arguments are char * */
    assert_true(verb && (more || !extra));
    char *argv[16];
    int a = 0;
    argv[a++] = seam_exe;
    argv[a++] = verb;
    argv[a++] = scene;
    argv[a++] = "--set";
    argv[a++] = solid;
    argv[a++] = "--set";
    argv[a++] = "coupling.on_nonconvergence=warn";
    if (strcmp(cmd, "run") == 0) {
        argv[a++] = "--out";
        argv[a++] = out;
        argv[a++] = "--force";
    }
    if (extra) {
        argv[a++] = "--set";
        argv[a++] = more;
    }
    argv[a] = NULL;
    pid_t pid = test_proc_spawn(argv, log, -1);
    free(verb);
    free(more);
    return pid;
}

/* A spawned solid that never returns from its solve at step 5 (asleep, as
 * one waiting for something that never comes): without a `timeout` key the
 * run ends once its server has used no CPU time for 10 s, not after 600 s;
 * with one, after it. */
static void test_hung_solve_is_reported_within_seconds(void **state)
{
    (void)state;
    char dir[1024], log[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_hang"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    double took;
    pid_t run = start_seam("run", dir, ", \"process\": \"separate\", \"hang_at_step\": 5", NULL, log);
    int rc = test_proc_wait(run, 60.0, &took);
    assert_int_equal(rc, 1);
    test_expect_in_file(log, "[piston] error: solve at step 5 (t = 0.05 s): ");
    test_expect_in_file(log, "seam-serve is hung: its process (pid ");
    test_expect_in_file(log, "and the ones it started have used no CPU time for 10 s (a solve that computes is "
                             "never stopped; the participant's `timeout` sets a fixed limit)");
    print_message("hung solve reported after %.2f s\n", took);
    assert_true(took > 9.9 && took < 30.0);

    /* an explicit timeout wins */
    run = start_seam("run", dir, ", \"process\": \"separate\", \"hang_at_step\": 5, \"timeout\": 1", NULL, log);
    rc = test_proc_wait(run, 60.0, &took);
    assert_int_equal(rc, 1);
    test_expect_in_file(log, "[piston] error: solve at step 5 (t = 0.05 s): no reply from ipc://");
    test_expect_in_file(log, "within 1 s (the participant's `timeout`)");
    assert_true(took < 4.9);
}

/* A slow but correct solver: its solve at step 3 computes for 12 s after
 * solves of microseconds (the old rule, 10 times the longest solve and at
 * least 5 s, stopped a Python solver whose fourth solve took 6 s). Without
 * a `timeout` key it is never stopped while it computes: the run ends
 * normally. */
static void test_slow_solve_that_computes_is_never_stopped(void **state)
{
    (void)state;
    char dir[1024], log[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_slow"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    double took;
    pid_t run = start_seam("run", dir, ", \"process\": \"separate\", \"hang_at_step\": 3, \"work_s\": 12",
                           "time.end=0.05", log);
    int rc = test_proc_wait(run, 90.0, &took);
    print_message("a run whose solve at step 3 computes for 12 s ended after %.2f s\n", took);
    if (rc != 0) {
        char *text = test_slurp(log);
        fail_msg("exit %d:\n%s", rc, text ? text : "");
    }
    assert_true(took > 12.0);
}

/* SIGTERM to a seam-serve stuck in its plugin's solve ends it at once (by
 * the signal); the coupler, which would have waited for ever (timeout 0,
 * no heartbeats), then reports the lost connection. */
static void test_sigterm_ends_a_stuck_server(void **state)
{
    (void)state;
    char dir[1024], log[1200], endpoint[1024], connect[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_sigterm"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    pid_t server = start_probe_server(dir, false, endpoint, sizeof endpoint);
    snprintf(connect, sizeof connect, ", \"connect\": \"%s\", \"timeout\": 0, \"heartbeat\": 0, \"hang_at_step\": 3",
             endpoint);
    pid_t run = start_seam("run", dir, connect, NULL, log);
    usleep(1500000);   /* the run is stuck at step 3 */
    double took;
    assert_int_equal(waitpid(run, NULL, WNOHANG), 0);
    kill(server, SIGTERM);
    int rc = test_proc_wait(server, 5.0, &took);
    assert_int_equal(rc, 128 + SIGTERM);
    assert_true(took < 2.0);
    rc = test_proc_wait(run, 10.0, &took);
    assert_int_equal(rc, 1);
    test_expect_in_file(log, "[piston] error: solve at step 3 (t = 0.03 s): ");
}

/* The plugin's last words, logged from destroy in seam-serve, come back
 * with the bye reply. */
static void test_messages_from_destroy_reach_the_coupler(void **state)
{
    (void)state;
    char dir[1024], log[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_destroy"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    double took;
    pid_t run = start_seam("run", dir, ", \"process\": \"separate\"", "time.end=0.03", log);
    assert_int_equal(test_proc_wait(run, 30.0, &took), 0);
    test_expect_in_file(log, "seam: [piston] destroyed after 3 commits");
}

/* `seam validate` of a scene that connects to a --once server creates the
 * instance and says bye without a step: the server stays for the run,
 * which uses it up. */
static void test_validate_leaves_a_once_server_for_the_run(void **state)
{
    (void)state;
    char dir[1024], log[1200], endpoint[1024], connect[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_once"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    pid_t server = start_probe_server(dir, true, endpoint, sizeof endpoint);
    snprintf(connect, sizeof connect, ", \"connect\": \"%s\"", endpoint);
    double took;
    for (int i = 0; i < 2; i++) {
        pid_t check = start_seam("validate", dir, connect, NULL, log);
        assert_int_equal(test_proc_wait(check, 30.0, &took), 0);
        test_expect_in_file(log, ": ok: fluid fluid (piston_fluid), solid piston (probe_solid)");
    }
    usleep(300000);
    assert_int_equal(waitpid(server, NULL, WNOHANG), 0);   /* still serving */
    pid_t run = start_seam("run", dir, connect, "time.end=0.02", log);
    assert_int_equal(test_proc_wait(run, 30.0, &took), 0);
    assert_int_equal(test_proc_wait(server, 5.0, &took), 0);   /* used up by the run */
}

/* `seam run` of the piston whose solid is tests/protocol/faulty_solid.py (a
 * `command`), failing as `fault` says (OP:N:HOW), with a checkpoint every 5
 * steps and a frame every 0.05 s; or `seam run --resume` of that run's
 * directory when resume is set. The exit status; the log in dir/seam.log. */
static int run_faulty(const char *dir, const char *fault, const char *steps, bool resume)
{
    char solid[2048], out[1200], log[1200], scene[1200], last[64];
    snprintf(solid, sizeof solid, "solids.0={\"name\": \"piston\", \"process\": \"separate\", \"command\": "
             "[\"python3\", \"%s\"], \"mass\": 1.0, \"stiffness\": 39.47841760435743, \"position\": 0.1, "
             "\"fault\": \"%s\"}", test_source_path("tests/protocol/faulty_solid.py"), fault);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/seam.log", dir);
    snprintf(scene, sizeof scene, "%s", test_source_path("examples/piston.json"));
    snprintf(last, sizeof last, "%s", steps);
    char *run[] = {seam_exe, "run", scene, "--set", solid,
                   "--set", "output.checkpoint={\"every_steps\": 5}", "--set", "time.frame=0.05",
                   "--set", "coupling.scheme=aitken", "--out", out, "--force", "--steps", last, NULL};
    char *again[] = {seam_exe, "run", "--resume", out, NULL};
    double took;
    return test_proc_wait(test_proc_spawn(resume ? again : run, log, -1), 60.0, &took);
}

/* A server lost or failing between steps (saving a checkpoint, its next step's
 * size, writing a frame, loading a checkpoint's state) is named with the step it came after and the time
 * reached, as the coupler's own messages say it; a resume that fails so
 * leaves the run's files as they were. */
static void test_failures_between_steps_name_the_step(void **state)
{
    (void)state;
    char dir[1024], log[1200], stats[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_between"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    snprintf(stats, sizeof stats, "%s/out/stats.csv", dir);
    assert_int_equal(run_faulty(dir, "save:1:kill", "20", false), 1);
    test_expect_in_file(log, "[piston] error: save after step 4 (t = 0.05 s): lost the connection to ipc://");
    test_expect_in_file(log, "was killed by signal 9");
    test_expect_in_file(log, "[piston] error: save failed for the checkpoint after step 4 (t = 0.05 s)");
    assert_int_equal(run_faulty(dir, "max_dt:5:nan", "20", false), 1);   /* asked with commit 4, for step 4 */
    test_expect_in_file(log, "[piston] error: max_dt returned nan at step 4 (t = 0.04 s)");
    /* lost at the bye after the last step: the run is whole, so a warning and exit 0, not an error */
    assert_int_equal(run_faulty(dir, "destroy:1:kill", "3", false), 0);
    test_expect_in_file(log, "[piston] warning: bye after step 2 (t = 0.03 s): lost the connection to ipc://");
    test_expect_in_file(log, "; the run's results stand");
    char *text = test_slurp(log);
    if (strstr(text, "error"))
        fail_msg("a run whose results are whole logged an error:\n%s", text);
    free(text);
    assert_int_equal(run_faulty(dir, "write_output:3:error", "20", false), 1);
    test_expect_in_file(log, "[piston] error: write_output failed for frame 2 (t = 0.1 s, after step 9)");
    /* the state saved after step 4 cannot be loaded: the 7 steps of the run stay on disk for another try */
    assert_int_equal(run_faulty(dir, "load:1:exit", "7", false), 0);
    char *before = test_slurp(stats);
    assert_int_equal(run_faulty(dir, "", "", true), 1);
    test_expect_in_file(log, "[piston] error: load after step 4 (t = 0.05 s): lost the connection to ipc://");
    test_expect_in_file(log, "exited with status 3");
    test_expect_in_file(log, "could not load its state of 16 bytes, saved after step 4 (t = 0.05 s)");
    char *after = test_slurp(stats);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* Ctrl-C in a terminal sends SIGINT to the whole foreground process group:
 * the coupler alone must get it (a spawned server has a group of its own),
 * finish its step and write the checkpoint of it through the server, which
 * a server that got the signal too cannot save. */
static void test_ctrl_c_reaches_the_coupler_alone(void **state)
{
    (void)state;
    char dir[1024], log[1200], out[1200], stats[1300], ckpt[1300], scene[1200];
    snprintf(dir, sizeof dir, "%s", test_tmpdir("liveness_ctrl_c"));
    snprintf(log, sizeof log, "%s/seam.log", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(stats, sizeof stats, "%s/stats.csv", out);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.seam", out);
    snprintf(scene, sizeof scene, "%s", test_source_path("examples/piston.json"));
    /* setsid: the run and what it starts in a session of their own, as a terminal's foreground job */
    char *argv[] = {"/usr/bin/setsid", seam_exe, "run", scene,
                    "--set", "fluid.process=separate", "--set", "output.checkpoint={\"every_steps\": 1000000}",
                    "--set", "output.frames=false", "--end", "1e4", "--out", out, "--force", "--quiet", NULL};
    unlink(stats);
    pid_t run = test_proc_spawn(argv, log, -1);
    int rows = 0;
    for (double t0 = test_now_s(); rows < 20 && test_now_s() - t0 < 30.0; usleep(20000)) {
        char *text = test_slurp(stats);
        rows = 0;
        for (char *p = text; p && *p; p++)
            rows += *p == '\n';
        free(text);
    }
    assert_true(rows >= 20);
    assert_int_equal(kill(-run, SIGINT), 0);   /* the group: setsid made the run its leader */
    double took;
    assert_int_equal(test_proc_wait(run, 30.0, &took), 128 + SIGINT);
    char *text = test_slurp(log);
    assert_non_null(text);
    if (strstr(text, "error"))
        fail_msg("an interrupted run with a separate server reported an error:\n%s", text);
    free(text);
    char *kept = test_slurp(ckpt);   /* the only checkpoint is the one written after the signal */
    assert_non_null(kept);
    free(kept);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_liveness PATH_TO_SEAM PATH_TO_SEAM_SERVE [TEST_NAME_PATTERN]\n");
        return 2;
    }
    seam_exe = argv[1];
    serve_exe = argv[2];
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_messages_from_destroy_reach_the_coupler, test_proc_reap_all),
        cmocka_unit_test_teardown(test_failures_between_steps_name_the_step, test_proc_reap_all),
        cmocka_unit_test_teardown(test_ctrl_c_reaches_the_coupler_alone, test_proc_reap_all),
        cmocka_unit_test_teardown(test_validate_leaves_a_once_server_for_the_run, test_proc_reap_all),
        cmocka_unit_test_teardown(test_sigterm_ends_a_stuck_server, test_proc_reap_all),
        cmocka_unit_test_teardown(test_hung_solve_is_reported_within_seconds, test_proc_reap_all),
        cmocka_unit_test_teardown(test_slow_solve_that_computes_is_never_stopped, test_proc_reap_all),
    };
    if (argc > 3)   /* a pattern: the tests whose names match it (cmocka_set_test_filter) */
        cmocka_set_test_filter(argv[3]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
