/* Protocol costs: round-trip latency of an empty op (max_dt), throughput of
 * a fluid solve moving 1e3..1e7 doubles (X, V in, F out) over ipc and tcp
 * loopback against the same call in-process, and the piston scene's wall
 * time in-process and with both participants separate.
 *
 *     bench_protocol [MAX_N [MIN_N [REPS]]]   (run from the build directory)
 *
 * REPS overrides the number of solves per size (best of them is kept). */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"
#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/loader.h"
#include "simulation.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet_log(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "bench: %s\n", message);
}

static const seam_host host = {.abi = SEAM_ABI_VERSION, .name = "fluid", .config_path = "fluid", .log = quiet_log};

/* seam-serve on tcp loopback (a free port), its pid and endpoint. */
static pid_t start_tcp_server(const char *serve, char *endpoint, size_t n)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        execl(serve, serve, "--plugin", "piston_fluid", "--bind", "tcp://127.0.0.1:*", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[1024] = "";
    struct pollfd pfd = {fds[0], POLLIN, 0};
    ssize_t got = poll(&pfd, 1, 10000) > 0 ? read(fds[0], line, sizeof line - 1) : -1;
    close(fds[0]);
    if (got > 0)
        line[got] = '\0';
    const char *on = strstr(line, " on ");
    if (!on)
        return -1;
    snprintf(endpoint, n, "%s", on + 4);
    endpoint[strcspn(endpoint, "\n")] = '\0';
    return pid;
}

typedef struct {
    const char *name;
    const seam_plugin *p;
    void *self;
} target;

/* A piston_fluid instance bound to n points of dimension 1. */
static void bind_points(target *t, size_t n)
{
    double *X = SEAM_NEW_N(double, n), *mass = seam_xmalloc_n(n, sizeof *mass);
    for (size_t i = 0; i < n; i++)
        mass[i] = 1.0;
    seam_interface f = {.dim = 1, .n_points = n, .X = X, .mass = mass, .n_bodies = 1};
    if (t->p->bind(t->self, &f) != SEAM_OK)
        fprintf(stderr, "bench: bind of %zu points failed on %s\n", n, t->name);
    free(X);
    free(mass);
}

static double latency_us(target *t, int reps)
{
    double t0 = now_s(), sink = 0.0;
    for (int i = 0; i < reps; i++) {
        double dt = 0.0;
        t->p->max_dt(t->self, &dt);
        sink += dt;
    }
    double dt = now_s() - t0;
    if (!isinf(sink))
        fprintf(stderr, "bench: max_dt is not unlimited?\n");
    return 1e6 * dt / reps;
}

/* Seconds per solve moving 2n doubles in and n out. */
static double solve_s(target *t, size_t n, int reps)
{
    double *X = seam_xmalloc_n(n, sizeof *X), *V = seam_xmalloc_n(n, sizeof *V), *F = seam_xmalloc_n(n, sizeof *F);
    for (size_t i = 0; i < n; i++) {
        X[i] = 1e-3 * (double)i;
        V[i] = 0.5;
    }
    seam_input in = {n, 1, X, V, NULL};
    seam_output out = {n, 1, NULL, NULL, F};
    seam_step step = {0, 0.0, 1e-3, 0};
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {   /* best of reps: the machine is shared */
        double t0 = now_s();
        if (t->p->solve(t->self, &step, &in, &out) != SEAM_OK)
            fprintf(stderr, "bench: solve failed on %s\n", t->name);
        best = fmin(best, now_s() - t0);
    }
    free(X);
    free(V);
    free(F);
    return best;
}

static double scene_wall(const char *scene, const char **sets, int reps)
{
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        char err[1024];
        seam_doc *doc = seam_doc_load(scene, err, sizeof err);
        if (!doc) {
            fprintf(stderr, "bench: %s\n", err);
            return NAN;
        }
        seam_doc_set(doc, "output.frames=false", err, sizeof err);
        for (int i = 0; sets && sets[i]; i++)
            seam_doc_set(doc, sets[i], err, sizeof err);
        seam_run_options opts = {.out_dir = "bench-out/protocol"};
        double t0 = now_s();
        seam_sim *sim = seam_sim_new(doc, &opts);
        if (sim && seam_sim_run(sim) == SEAM_OK) {
            seam_sim_destroy(&sim);
            best = fmin(best, now_s() - t0);
        }
        seam_sim_destroy(&sim);
        seam_doc_destroy(&doc);
    }
    return best;
}

int main(int argc, char **argv)
{
    double max_n = argc > 1 ? atof(argv[1]) : 1e7;
    double min_n = argc > 2 ? atof(argv[2]) : 1e3;
    int reps_override = argc > 3 ? atoi(argv[3]) : 0;
    const char *serve = getenv("SEAM_SERVE") ? getenv("SEAM_SERVE") : "protocol/seam-serve";
    const char *scene = getenv("SEAM_SCENE") ? getenv("SEAM_SCENE") : "../examples/piston.json";
    char err[2048], tcp_ep[1024];
    seam_library *lib = seam_library_open("piston_fluid", err, sizeof err);
    if (!lib) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    seam_remote_options o = {.name = "fluid", .timeout_s = 600, .heartbeat_s = 1, .start_timeout_s = 10};
    target t[3] = {{"in-process", seam_library_plugin(lib), NULL}, {"ipc", NULL, NULL}, {"tcp", NULL, NULL}};
    t[0].self = t[0].p->create(t[0].p, "{\"added_mass\": 1}", &host);
    seam_remote *r_ipc = seam_remote_spawn("piston_fluid", &o, err, sizeof err);
    pid_t tcp_pid = start_tcp_server(serve, tcp_ep, sizeof tcp_ep);
    seam_remote *r_tcp = tcp_pid > 0 ? seam_remote_connect(tcp_ep, &o, err, sizeof err) : NULL;
    if (!r_ipc || !r_tcp) {
        fprintf(stderr, "bench: no server: %s\n", err);
        return 1;
    }
    t[1].p = seam_remote_plugin(r_ipc);
    t[2].p = seam_remote_plugin(r_tcp);
    t[1].self = seam_remote_plugin(r_ipc)->create(seam_remote_plugin(r_ipc), "{\"added_mass\": 1}", &host);
    t[2].self = seam_remote_plugin(r_tcp)->create(seam_remote_plugin(r_tcp), "{\"added_mass\": 1}", &host);
    if (!t[1].self || !t[2].self)
        return 1;

    printf("# round trip of an empty op (max_dt), mean of 20000 calls\n");
    printf("%-11s %12s\n", "transport", "us/call");
    for (int k = 0; k < 3; k++) {
        bind_points(&t[k], 1);
        double us = latency_us(&t[k], 20000);
        printf("%-11s %12.2f\n", t[k].name, us);
        printf("@row table=round_trip transport=%s us_call=%.2f\n", t[k].name, us);
    }
    printf("\n# fluid solve: X, V in and F out (24 bytes per point), best of several calls\n");
    printf("%-10s %12s %12s %12s %12s %12s\n", "doubles", "local_ms", "ipc_ms", "tcp_ms", "ipc_GB/s", "tcp_GB/s");
    for (double n = min_n; n <= max_n * 1.0001; n *= 10) {
        size_t np = (size_t)n;
        int reps = reps_override > 0 ? reps_override : n <= 1e5 ? 50 : n <= 1e6 ? 10 : 5;
        double s[3];
        for (int k = 0; k < 3; k++) {
            bind_points(&t[k], np);
            s[k] = solve_s(&t[k], np, reps);
        }
        /* bytes moved over the wire per solve, over the time the wire added */
        double bytes = 24.0 * n;
        printf("%-10.0e %12.3f %12.3f %12.3f %12.2f %12.2f\n", n, 1e3 * s[0], 1e3 * s[1], 1e3 * s[2],
               bytes / (s[1] - s[0]) / 1e9, bytes / (s[2] - s[0]) / 1e9);
        printf("@row table=solve doubles=%.0f local_ms=%.4f ipc_ms=%.4f tcp_ms=%.4f ipc_GBs=%.3f tcp_GBs=%.3f\n", n,
               1e3 * s[0], 1e3 * s[1], 1e3 * s[2], bytes / (s[1] - s[0]) / 1e9, bytes / (s[2] - s[0]) / 1e9);
    }
    for (int k = 0; k < 3; k++)
        t[k].p->destroy(t[k].self);
    seam_library_close(&lib);
    kill(tcp_pid, SIGTERM);
    waitpid(tcp_pid, NULL, 0);

    printf("\n# piston scene (%s), 200 steps, wall s (best of 3)\n", scene);
    const char *solid[] = {"solids.0.process=separate", NULL};
    const char *both[] = {"solids.0.process=separate", "fluid.process=separate", NULL};
    double w0 = scene_wall(scene, NULL, 3), w1 = scene_wall(scene, solid, 3), w2 = scene_wall(scene, both, 3);
    printf("in-process        %8.4f\nsolid separate    %8.4f\nboth separate     %8.4f\n", w0, w1, w2);
    printf("@row table=piston steps=200 inline_s=%.5f solid_separate_s=%.5f both_separate_s=%.5f\n", w0, w1, w2);
    return 0;
}
