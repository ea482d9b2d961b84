/* seam-serve: host one plugin instance and serve the contract over ZeroMQ. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "keys.h"
#include "seam/krylov.h"
#include "seam/loader.h"
#include "seam/log.h"
#include "seam/threads.h"
#include "serve.h"

static volatile sig_atomic_t stop_requested, in_plugin;
/* --exit-with: the coupler that started this server, and what to remove
 * when it dies (its ipc socket and the private directory holding it). */
static pid_t owner;
static char owned_socket[4096], owned_dir[4096];

/* The owner is gone (its death signal, PR_SET_PDEATHSIG, came, or it died
 * before we looked): no coupler will say bye or clean up, so remove the
 * socket and its directory and exit at once, without ZeroMQ's linger.
 * Only async-signal-safe calls. */
static void owner_gone(void)
{
    if (owned_socket[0])
        unlink(owned_socket);
    if (owned_dir[0])
        rmdir(owned_dir);
    _exit(1);
}

/* Whether the owner is gone. Its death signal can come while the killed
 * coupler's other threads are still ending, before this server is handed
 * to another parent (getppid() still names the owner): a signal with an
 * owner waits up to 0.1 s for that. Async-signal-safe. */
static bool owner_dead(void)
{
    struct timespec tick = {0, 2000000};
    for (int i = 0; i < 50 && getppid() == owner; i++)
        nanosleep(&tick, NULL);
    return getppid() != owner;
}

/* SIGINT, SIGTERM: between requests, end the loop cleanly; while the plugin
 * works on one (it may be stuck in an endless solve and never return to the
 * loop), or at a second signal, die of the signal at once. With --exit-with,
 * a signal after the owner died is its death signal: exit at once. */
static void on_signal(int sig)
{
    if (owner > 0 && owner_dead())
        owner_gone();
    if (in_plugin || stop_requested) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_requested = 1;
}

/* The ready line: scripts and tests read the endpoint (a `*` port resolved) from it. */
static void print_ready(void *ctx, const char *endpoint)
{
    const seam_plugin *const *pp = ctx;   /* ready_ctx is a void *: a pointer to the plugin pointer */
    const seam_plugin *p = *pp;
    printf("seam-serve: serving %s (%s) on %s\n", p->name, seam_role_name(p->role), endpoint);
    fflush(stdout);
}

/* --exit-with: SIGTERM when the owner dies (set again here: the flag a
 * coupler sets before exec is kept, but a server started otherwise has
 * none); the socket and directory of an ipc endpoint to remove then. */
static void watch_owner(const char *bind)
{
    if (strncmp(bind, "ipc://", 6) == 0) {
        snprintf(owned_socket, sizeof owned_socket, "%s", bind + 6);
        snprintf(owned_dir, sizeof owned_dir, "%s", bind + 6);
        char *slash = strrchr(owned_dir, '/');
        if (slash && slash != owned_dir)
            *slash = '\0';
        else
            owned_dir[0] = '\0';
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != owner)   /* it died before the flag was set */
        owner_gone();
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: seam-serve --plugin NAME --bind ENDPOINT [--config JSON] [--once] [--heartbeat S]\n"
            "                  [--curve SERVER.key --allow CLIENT.pub [--allow CLIENT.pub]...]\n"
            "\n"
            "  --plugin NAME     plugin name (searched like `seam plugins`) or path to a .so\n"
            "  --bind ENDPOINT   tcp://127.0.0.1:5555 (port * picks a free one), ipc:///path/to/socket;\n"
            "                    loopback unless --curve. Prints \"seam-serve: serving NAME (ROLE) on ENDPOINT\"\n"
            "  --config JSON     configuration keys for every create, as a JSON object or a\n"
            "                    file holding one; the coupler's keys win where both set one\n"
            "  --once            exit when the first coupler that ran steps says bye\n"
            "                    (not after a `seam validate`, which only creates the instance)\n"
            "  --heartbeat S     ZeroMQ heartbeat interval in seconds (default 1; 0 turns it off)\n"
            "  --curve FILE      the server's key pair (`seam keygen NAME` writes NAME.key):\n"
            "                    encrypt and authenticate; required for non-loopback endpoints\n"
            "  --allow FILE      a coupler's public key (NAME.pub or the 40-character key) let in\n"
            "  --exit-with PID   PID is this server's parent (the coupler that started it): exit at\n"
            "                    once when it dies, removing an ipc endpoint's socket and its directory\n");
}

int main(int argc, char **argv)
{
    const char *plugin = NULL, *bind = NULL, *curve = NULL, *config = NULL;
    const char **allow_files = calloc((size_t)argc, sizeof *allow_files);
    size_t n_allow = 0;
    seam_serve_options o = {.heartbeat_s = 1.0, .stop = &stop_requested, .busy = &in_plugin};
    seam_blas_serial();   /* its plugin's results the same with any thread count */
    seam_threads_tick();  /* OpenMP's count from the load (docs/performance.md, "Threads") */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--plugin") == 0 && v)
            plugin = argv[++i];
        else if (strcmp(a, "--bind") == 0 && v)
            bind = argv[++i];
        else if (strcmp(a, "--config") == 0 && v)
            config = argv[++i];
        else if (strcmp(a, "--curve") == 0 && v)
            curve = argv[++i];
        else if (strcmp(a, "--allow") == 0 && v)
            allow_files[n_allow++] = argv[++i];
        else if (strcmp(a, "--once") == 0)
            o.once = true;
        else if (strcmp(a, "--exit-with") == 0 && v) {
            char *end;
            long pid = strtol(argv[++i], &end, 10);
            if (*end || pid <= 1 || pid != (long)getppid()) {
                fprintf(stderr, "seam-serve: --exit-with: expected this server's parent process id (%ld), got "
                        "\"%s\"\n", (long)getppid(), argv[i]);
                free(allow_files);
                return 2;
            }
            owner = (pid_t)pid;
        }
        else if (strcmp(a, "--heartbeat") == 0 && v) {
            char *end;
            o.heartbeat_s = strtod(argv[++i], &end);
            if (*end || !(o.heartbeat_s >= 0.0) || o.heartbeat_s > 3600.0) {
                fprintf(stderr, "seam-serve: --heartbeat: expected seconds in [0, 3600], got \"%s\"\n", argv[i]);
                free(allow_files);
                return 2;
            }
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(allow_files);
            return 0;
        } else {
            fprintf(stderr, "seam-serve: unknown or incomplete option %s\n", a);
            usage(stderr);
            free(allow_files);
            return 2;
        }
    }
    if (!plugin || !bind) {
        fprintf(stderr, "seam-serve: %s is required\n", !plugin ? "--plugin" : "--bind");
        usage(stderr);
        free(allow_files);
        return 2;
    }
    char err[2048] = "", pub[SEAM_KEY_Z85], sec[SEAM_KEY_Z85];
    char (*allowed)[SEAM_KEY_Z85] = calloc(n_allow + 1, sizeof *allowed);
    const char **allow = calloc(n_allow + 1, sizeof *allow);
    int rc = 0;
    if (curve) {
        if (seam_key_read(curve, pub, sec, err, sizeof err) != 0) {
            fprintf(stderr, "seam-serve: --curve: %s\n", err);
            rc = 1;
        } else if (!sec[0]) {   /* a .pub file, or a bare public key: the server cannot prove who it is */
            fprintf(stderr, "seam-serve: --curve: %s holds no secret key: give the server's NAME.key "
                    "(from `seam keygen NAME`), not NAME.pub\n", curve);
            rc = 1;
        }
        o.curve_secret = sec;
    }
    for (size_t i = 0; i < n_allow && rc == 0; i++) {
        char ignored[SEAM_KEY_Z85];
        if (seam_key_read(allow_files[i], allowed[i], ignored, err, sizeof err) != 0) {
            fprintf(stderr, "seam-serve: --allow: %s\n", err);
            rc = 1;
        }
        allow[i] = allowed[i];
    }
    o.allow = allow;
    o.n_allow = n_allow;
    o.bind = bind;
    char *config_text = NULL;
    if (rc == 0 && config) {   /* inline JSON, or the name of a file holding it */
        FILE *f = config[0] == '{' ? NULL : fopen(config, "r");
        if (f) {
            config_text = calloc(1, 1 << 20);
            size_t n = fread(config_text, 1, (1 << 20) - 1, f);
            config_text[n] = '\0';
            fclose(f);
        } else if (config[0] != '{') {
            fprintf(stderr, "seam-serve: --config: cannot read %s: %s\n", config, strerror(errno));
            rc = 1;
        }
        o.defaults = config_text ? config_text : config;
    }
    seam_library *lib = NULL;
    if (rc == 0) {
        lib = seam_library_open(plugin, err, sizeof err);
        if (!lib) {
            fprintf(stderr, "seam-serve: %s\n", err);
            rc = 1;
        }
    }
    if (rc == 0) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        if (owner > 0)
            watch_owner(bind);
        const seam_plugin *served = seam_library_plugin(lib);
        o.on_ready = print_ready;
        o.ready_ctx = &served;
        if (seam_serve(served, &o, err, sizeof err) != 0) {
            fprintf(stderr, "seam-serve: %s\n", err);
            rc = 1;
        }
    }
    free(config_text);
    seam_library_close(&lib);
    free(allowed);
    free(allow);
    free(allow_files);
    return rc;
}
