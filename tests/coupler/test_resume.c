/* Checkpoint and resume: a run killed with SIGKILL at a random step and
 * taken up with `seam run --resume` leaves the same files, byte for byte,
 * as the run that was never interrupted (wall-time measurements excepted:
 * docs/scenes.md, "Checkpoint and resume"). In-process, and with the solid
 * in a separate seam-serve process. Set SEAM_TEST_SEED to replay a kill. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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

#include "seam/checkpoint.h"
#include "test_host.h"

static const char *seam_exe;
static char base[4096];
static unsigned seed;

enum { MAX_ARGS = 40 };

/* One run to kill and resume: a scene with its settings, its step count and
 * checkpoint interval (output.checkpoint.every_steps among the settings). */
typedef struct {
    const char *name, *scene;
    long steps, every;
    bool report;             /* the report's plots are compared too */
    int signal;              /* what stops the run: SIGKILL, or SIGINT (which checkpoints where it stops) */
    bool twice;              /* kill the resumed run too, and resume again */
    bool anytime;            /* killed at a random moment after its first checkpoint, not after a step */
    const char *sets[12];
} resume_case;

/* argv of `seam run` for the case's scene into dir, with its settings. */
static void run_argv(const char **argv, const char *dir, const resume_case *c)
{
    int n = 0;
    argv[n++] = seam_exe;
    argv[n++] = "run";
    argv[n++] = test_source_path(c->scene);
    argv[n++] = "--out";
    argv[n++] = dir;
    argv[n++] = "--quiet";
    if (!c->report)
        argv[n++] = "--no-report";
    for (const char *const *s = c->sets; *s && n < MAX_ARGS - 3; s++) {
        argv[n++] = "--set";
        argv[n++] = *s;
    }
    argv[n] = NULL;
}

static pid_t start(const char **argv)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        char *args[MAX_ARGS];   /* execv's argv is not const: the child's own copies */
        int n = 0;
        for (; argv[n] && n < MAX_ARGS - 1; n++)
            args[n] = strdup(argv[n]);
        args[n] = NULL;
        execv(args[0], args);
        _exit(127);
    }
    return pid;
}

/* The exit status, or -signal. */
static int finish(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1000;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    b[*n] = '\0';
    fclose(f);
    return b;
}

/* Files under dir (relative paths), sorted, into names; returns the count. */
static size_t list(const char *dir, const char *rel, char names[][256], size_t n, size_t cap)
{
    char path[4400];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[256], full[4700];
        int k = snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        assert_true(k > 0 && (size_t)k < sizeof sub);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        assert_int_equal(stat(full, &st), 0);
        if (S_ISDIR(st.st_mode))
            n = list(dir, sub, names, n, cap);
        else {
            assert_true(n < cap);
            snprintf(names[n++], 256, "%s", sub);
        }
    }
    closedir(d);
    return n;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* Lines of a and b equal but for the comma-separated fields in skip (a mask). */
static void compare_csv(const char *name, const char *a, const char *b, unsigned skip)
{
    const char *pa = a, *pb = b;
    int line = 1;
    while (*pa && *pb) {
        const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
        assert_non_null(ea);
        assert_non_null(eb);
        int field = 0;
        const char *fa = pa, *fb = pb;
        while (fa <= ea && fb <= eb) {
            size_t la = strcspn(fa, ",\n"), lb = strcspn(fb, ",\n");
            if (!(skip & (1u << field)) && (la != lb || memcmp(fa, fb, la) != 0))
                fail_msg("%s line %d field %d differs: %.*s vs %.*s (seed %u)", name, line, field, (int)la, fa,
                         (int)lb, fb, seed);
            fa += la + 1, fb += lb + 1, field++;
            if (fa > ea || fb > eb) {
                if ((fa > ea) != (fb > eb))
                    fail_msg("%s line %d: field counts differ (seed %u)", name, line, seed);
                break;
            }
        }
        pa = ea + 1, pb = eb + 1, line++;
    }
    if (*pa || *pb)
        fail_msg("%s: line counts differ (seed %u)", name, seed);
}

/* Every file of a in b and no other, the same bytes; measured wall times
 * are no output of the simulation: stats.csv's fluid_s, solid_s and
 * coupler_s columns, summary.csv's seconds, the report's page and its
 * times.png, and the checkpoint (which holds them). */
static void compare_trees(const char *a, const char *b)
{
    static char na[512][256], nb[512][256];
    size_t n = list(a, "", na, 0, 512), m = list(b, "", nb, 0, 512);
    qsort(na, n, sizeof na[0], by_name);
    qsort(nb, m, sizeof nb[0], by_name);
    for (size_t i = 0; i < n || i < m; i++)
        if (i >= n || i >= m || strcmp(na[i], nb[i]) != 0)
            fail_msg("the file lists differ at %s vs %s (seed %u)", i < n ? na[i] : "(end)", i < m ? nb[i] : "(end)",
                     seed);
    for (size_t i = 0; i < n; i++) {
        const char *f = na[i];
        if (strcmp(f, "checkpoint.seam") == 0 || strcmp(f, "index.html") == 0 || strcmp(f, "times.png") == 0)
            continue;
        char pa[4400], pb[4400];
        snprintf(pa, sizeof pa, "%s/%s", a, f);
        snprintf(pb, sizeof pb, "%s/%s", b, f);
        size_t la, lb;
        char *ca = slurp(pa, &la), *cb = slurp(pb, &lb);
        if (strcmp(f, "stats.csv") == 0)
            compare_csv(f, ca, cb, 7u << 6);   /* fluid_s, solid_s, coupler_s */
        else if (strcmp(f, "summary.csv") == 0)
            compare_csv(f, ca, cb, 1u << 3);   /* seconds */
        else if (la != lb || memcmp(ca, cb, la) != 0)
            fail_msg("%s differs after resuming (%zu vs %zu bytes; seed %u)", f, la, lb, seed);
        free(ca);
        free(cb);
    }
}

/* Run to the end into A; run again into B, stop it at a random step after
 * its first checkpoint, resume B; A and B must agree. */
static void kill_and_resume(const resume_case *c)
{
    char a[4200], b[4200], stats[4300], ckpt[4300];
    snprintf(a, sizeof a, "%s/%s_whole", base, c->name);
    snprintf(b, sizeof b, "%s/%s_resumed", base, c->name);
    snprintf(stats, sizeof stats, "%s/stats.csv", a);
    const char *argv[MAX_ARGS];
    run_argv(argv, a, c);
    assert_int_equal(finish(start(argv)), 0);
    assert_int_equal(count_lines(stats), c->steps + 1);
    snprintf(stats, sizeof stats, "%s/stats.csv", b);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.seam", b);

    /* stop after a step in (every, 0.7 steps]: at least one checkpoint, mostly rows beyond it (every 0:
     * the default checkpoint, which a SIGINT writes); anytime: a random moment, up to 1.5 s, after the
     * first checkpoint is there, whatever the run is doing (writing rows, a frame, the checkpoint). A
     * loaded machine may keep this process from looking until the run is over: then again, 3 times */
    pid_t pid = 0;
    long rows = 0;
    for (int attempt = 0; !pid; attempt++) {
        long target = c->every + 1 + (long)(rand() % (int)(0.7 * (double)c->steps - (double)c->every));
        useconds_t delay = (useconds_t)(rand() % 1500000);
        char cmd[4400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", b);
        assert_int_equal(system(cmd), 0);
        run_argv(argv, b, c);
        pid = start(argv);
        for (;;) {
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                if (attempt == 2)
                    fail_msg("%s: the run ended before it could be stopped at step %ld, 3 times (seed %u)", c->name,
                             target, seed);
                pid = 0;
                break;
            }
            rows = count_lines(stats) - 1;
            if (c->anytime && access(ckpt, F_OK) == 0) {
                usleep(delay);
                if (waitpid(pid, &st, WNOHANG) != pid)
                    break;
                if (attempt == 2)
                    fail_msg("%s: the run ended before it could be killed, 3 times (seed %u)", c->name, seed);
                pid = 0;   /* over before the moment came: again */
                break;
            }
            if (!c->anytime && rows >= target && (c->every == 0 || access(ckpt, F_OK) == 0))
                break;
            usleep(200);
        }
    }
    kill(pid, c->signal);
    assert_int_equal(finish(pid), c->signal == SIGKILL ? -SIGKILL : 128 + c->signal);
    rows = count_lines(stats) - 1;
    print_message("%s: stopped (signal %d) after %ld of %ld steps (seed %u)\n", c->name, c->signal, rows, c->steps,
                  seed);
    assert_int_equal(access(ckpt, F_OK), 0);
    assert_true(c->anytime ? rows <= c->steps : rows < c->steps);   /* anytime: maybe while it wrote its summary */
    if (c->signal != SIGKILL) {   /* the checkpoint is of the step the run stopped after */
        char err[1024];
        seam_ckpt_reader *r = seam_ckpt_reader_open(ckpt, err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        assert_true(seam_ckpt_need(r, "coupler"));
        assert_int_equal(seam_ckpt_get_i64(r), rows);
        assert_true(seam_ckpt_ok(r, false));
        seam_ckpt_reader_destroy(&r);
    }

    /* a file the killed run would have written later (a frame past the checkpoint's): resuming removes it */
    char stray[4400];
    snprintf(stray, sizeof stray, "%s/stats.csv.later", b);
    FILE *f = fopen(stray, "w");
    assert_non_null(f);
    fclose(f);

    const char *resume[] = {seam_exe, "run", "--resume", b, "--quiet", NULL};
    if (c->twice) {   /* the resumed run killed too, after a checkpoint of its own; resumed again */
        long again = rows + c->every + 1;
        pid = start(resume);
        for (;;) {
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid)
                fail_msg("%s: the resumed run ended before it could be killed at step %ld (seed %u)", c->name, again,
                         seed);
            if (count_lines(stats) - 1 >= again)
                break;
            usleep(200);
        }
        kill(pid, SIGKILL);
        assert_int_equal(finish(pid), -SIGKILL);
        print_message("%s: resumed, killed again after %ld steps\n", c->name, count_lines(stats) - 1);
    }
    assert_int_equal(finish(start(resume)), 0);
    assert_int_equal(count_lines(stats), c->steps + 1);
    compare_trees(a, b);
}

/* IQN-ILS reusing the columns of the last 4 steps: its state changes the
 * iterates, so a resume that lost it would differ. Killed twice: the
 * resumed run's own checkpoints and appended rows are taken up as well. */
static void test_resume_in_process(void **state)
{
    (void)state;
    static const resume_case c = {"inline", "examples/piston.json", 200, 10, true, SIGKILL, true, false,
                                  {"coupling.scheme=iqn-ils", "coupling.reuse=4",
                                   "output.checkpoint={\"every_steps\": 10}", "fluid.delay=0.001",
                                   "output.probes=[{\"name\": \"p\", \"solid\": \"piston\"}]", NULL}};
    kill_and_resume(&c);
}

/* The solid in its own seam-serve process (it dies with the coupler), Aitken
 * carrying its factor across steps; checkpoints by wall time. */
static void test_resume_separate_process(void **state)
{
    (void)state;
    static const resume_case c = {"separate", "examples/piston.json", 200, 10, false, SIGKILL, false, false,
                                  {"coupling.scheme=aitken", "coupling.aitken_first_max=1",
                                   "output.checkpoint={\"every_seconds\": 0.05}", "fluid.delay=0.001",
                                   "solids.0.process=separate", NULL}};
    kill_and_resume(&c);
}

/* Real solvers with frames: fluid_mac and solid_rigid write VTK files and
 * the coupler PNG pictures every 5 steps, checkpoints every 7, so frames
 * written after the checkpoint must go; IQN-IMVJ carries its Jacobian
 * across steps, restarted (truncated SVD) every 3, and the quartic
 * predictor reaches back four steps. */
static void test_resume_frames(void **state)
{
    (void)state;
    static const resume_case c = {"disc", "examples/rising_disc.json", 60, 7, false, SIGKILL, false, false,
                                  {"time.end=0.6", "coupling.scheme=iqn-imvj", "coupling.chunk=3",
                                   "coupling.predictor=quartic", "output.checkpoint={\"every_steps\": 7}",
                                   "output.probes=[{\"name\": \"p\", \"point\": [0.5, 1]}, {\"name\": \"d\", "
                                   "\"solid\": \"disc\"}]", NULL}};
    kill_and_resume(&c);
}

/* newton-fd's chord form carries its Jacobian's LU across steps: made at
 * steps 0, 5, 10, ..., the checkpoint after a multiple of 7 must hand it on,
 * or the resumed run makes a new one from other iterates and its bits
 * differ. */
static void test_resume_newton_chord(void **state)
{
    (void)state;
    static const resume_case c = {"newton", "examples/piston.json", 200, 7, false, SIGKILL, false, false,
                                  {"coupling.scheme=newton-fd", "coupling.jacobian_age=5", "fluid.delay=0.001",
                                   "output.checkpoint={\"every_steps\": 7}", NULL}};
    kill_and_resume(&c);
}

/* Fluid enclosed by solids: the pressure projection carries each region's
 * p0 (regions.csv) and the RMI its reused pairs across steps. Stopped by
 * SIGINT: the run checkpoints the step it stopped after (and its
 * summary.csv, written on the way out, goes on resuming). */
static void test_resume_projection(void **state)
{
    (void)state;
    static const resume_case c = {"bpp", "examples/hydraulic_piston.json", 40, 5, false, SIGINT, false, false,
                                  {"time.end=0.4", "coupling.scheme=rmi", "coupling.reuse=2",
                                   "output.checkpoint={\"every_steps\": 5}", NULL}};
    kill_and_resume(&c);
}

/* Resumable by default: a scene without output.checkpoint checkpoints
 * (here: where SIGINT stops it; by wall time every few minutes), and the
 * checkpoint nobody asked for is gone once the run finishes (compare_trees:
 * the uninterrupted run left none, neither may the resumed one). */
static void test_resume_by_default(void **state)
{
    (void)state;
    static const resume_case c = {"default", "examples/piston.json", 200, 0, false, SIGINT, false, false,
                                  {"coupling.scheme=iqn-ils", "coupling.reuse=4", "fluid.delay=0.001", NULL}};
    kill_and_resume(&c);
}

/* Killed with SIGKILL at any moment after the first checkpoint (one every
 * 20 ms of wall time: a kill often lands while one is being written), in
 * process and with the solid in its own process. */
static void test_resume_killed_any_moment(void **state)
{
    (void)state;
    static const resume_case inline_case = {"anytime", "examples/piston.json", 200, 0, false, SIGKILL, false, true,
                                            {"coupling.scheme=iqn-ils", "coupling.reuse=4", "fluid.delay=0.002",
                                             "output.checkpoint={\"every_seconds\": 0.02}",
                                             "output.interface=true", NULL}};
    kill_and_resume(&inline_case);
    static const resume_case separate = {"anytime_separate", "examples/piston.json", 200, 0, false, SIGKILL, false, true,
                                         {"coupling.scheme=aitken", "fluid.delay=0.002",
                                          "output.checkpoint={\"every_seconds\": 0.02}", "solids.0.process=separate",
                                          NULL}};
    kill_and_resume(&separate);
}

/* output.checkpoint false: no checkpoint, not even where SIGINT stops the run. */
static void test_no_checkpoint_when_off(void **state)
{
    (void)state;
    char dir[4200], ckpt[4300], stats[4300];
    snprintf(dir, sizeof dir, "%s/off", base);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.seam", dir);
    snprintf(stats, sizeof stats, "%s/stats.csv", dir);
    static const resume_case c = {"off", "examples/piston.json", 200, 0, false, SIGINT, false, false,
                                  {"output.checkpoint=false", "fluid.delay=0.002", NULL}};
    const char *argv[MAX_ARGS];
    run_argv(argv, dir, &c);
    pid_t pid = start(argv);
    for (int st; count_lines(stats) < 5; usleep(200))
        assert_int_not_equal(waitpid(pid, &st, WNOHANG), pid);
    kill(pid, SIGINT);
    assert_int_equal(finish(pid), 128 + SIGINT);
    assert_int_not_equal(access(ckpt, F_OK), 0);
}

static int run_capture(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Checkpoints of another format version, damaged ones, and options that do
 * not go with --resume are refused, each with its reason. */
static void test_resume_refusals(void **state)
{
    (void)state;
    char dir[4200], cmd[9000], out[8192], path[4300];
    snprintf(dir, sizeof dir, "%s/refusals", base);
    static const resume_case c = {"refusals", "examples/piston.json", 200, 10, false, 0, false, false,
                                  {"output.checkpoint={\"every_steps\": 10}", NULL}};
    const char *argv[MAX_ARGS];
    run_argv(argv, dir, &c);
    assert_int_equal(finish(start(argv)), 0);
    snprintf(path, sizeof path, "%s/checkpoint.seam", dir);
    size_t n;
    char *bytes = slurp(path, &n);

    snprintf(cmd, sizeof cmd, "'%s' run --resume '%s' --set coupling.relaxation=0.5 2>&1", seam_exe, dir);
    assert_int_equal(run_capture(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "--resume takes the scene and its options from the checkpoint"));

    snprintf(cmd, sizeof cmd, "'%s' run --resume '%s/none' 2>&1", seam_exe, base);
    assert_int_equal(run_capture(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "none/checkpoint.seam: cannot open"));

    FILE *f = fopen(path, "wb");   /* version 2, little-endian at byte 8 */
    bytes[8] = 2;
    fwrite(bytes, 1, n, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' run --resume '%s' 2>&1", seam_exe, dir);
    assert_int_equal(run_capture(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "checkpoint format version 2; this seam reads version 1 only"));

    f = fopen(path, "wb");   /* one bit of a value flipped */
    bytes[8] = 1;
    bytes[n / 2] ^= 0x10;
    fwrite(bytes, 1, n, f);
    fclose(f);
    assert_int_equal(run_capture(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "damaged (CRC mismatch)"));
    free(bytes);

    /* a participant without save and load cannot be in a scene that checkpoints (docs/plugins.md's example) */
    const char *build = getenv("SEAM_BUILD_ROOT");
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH='%s/docs' '%s' validate '%s/docs/drag.json' "
             "--set 'output.checkpoint={\"every_steps\": 1}' 2>&1", build, seam_exe, build);
    assert_int_equal(run_capture(cmd, out, sizeof out), 1);
    assert_non_null(
        strstr(out, "output.checkpoint needs every participant's save and load; fluid (drag_fluid) has none"));
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' --set 'output.checkpoint={}' 2>&1", seam_exe,
             test_source_path("examples/piston.json"));
    assert_int_equal(run_capture(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "output.checkpoint: expected every_steps, every_seconds or both"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SEAM\n", argv[0]);
        return 2;
    }
    seam_exe = argv[1];
    const char *s = getenv("SEAM_TEST_SEED");
    seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    snprintf(base, sizeof base, "%s/seam-resume-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_in_process),
        cmocka_unit_test(test_resume_separate_process),
        cmocka_unit_test(test_resume_frames),
        cmocka_unit_test(test_resume_projection),
        cmocka_unit_test(test_resume_newton_chord),
        cmocka_unit_test(test_resume_refusals),
        cmocka_unit_test(test_resume_by_default),
        cmocka_unit_test(test_resume_killed_any_moment),
        cmocka_unit_test(test_no_checkpoint_when_off),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (rc == 0) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (system(cmd) != 0)
            rc = 1;
    }
    return rc;
}
