/* Finding, starting and talking to the seam coupler (precice/PROTOCOL.md,
 * "Finding the coupler" and "Liveness"). */
#include "link.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <zmq.h>

#include <seam/alloc.h>

#define WIRE_VERSION 1

struct precice_link {
    void *ctx, *sock;
    long coupler_pid;
    bool coupler_local;     /* on this host: its pid can be watched */
    char *log_path;
    char *reply;            /* the last reply's bytes: its unpacked strings and bins point into them */
    size_t reply_cap;
};

bool precice_link_config_hash(const char *path, char hash[17], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read the configuration %s: %s", path, strerror(errno));
        return false;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    int c;
    while ((c = fgetc(f)) != EOF)
        h = (h ^ (uint64_t)(unsigned char)c) * 0x100000001b3ULL;
    fclose(f);
    snprintf(hash, 17, "%016llx", (unsigned long long)h);
    return true;
}

static bool pid_alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void this_host(char *host, size_t len)
{
    if (gethostname(host, len) != 0)
        snprintf(host, len, "localhost");
    host[len - 1] = '\0';
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A coupler's address file that counts: our configuration, our wire, alive. */
typedef struct coupler_address {
    char endpoint[256];
    long pid;
    bool local;
} coupler_address;

static bool read_address(const char *dir, const char *hash, coupler_address *a)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/precice-run/seam-coupler.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    if (!root)
        return false;
    const char *endpoint = json_string_value(json_object_get(root, "endpoint"));
    const char *config = json_string_value(json_object_get(root, "config"));
    const char *host = json_string_value(json_object_get(root, "host"));
    json_int_t wire = json_integer_value(json_object_get(root, "wire"));
    char here[256];
    this_host(here, sizeof here);
    bool ok = endpoint && config && strcmp(config, hash) == 0 && wire == WIRE_VERSION &&
              strlen(endpoint) < sizeof a->endpoint;
    if (ok) {
        snprintf(a->endpoint, sizeof a->endpoint, "%s", endpoint);
        a->pid = (long)json_integer_value(json_object_get(root, "pid"));
        a->local = !host || strcmp(host, here) == 0;
        ok = !a->local || pid_alive(a->pid);
    }
    json_decref(root);
    return ok;
}

static bool find_address(const char *exchange_dir, const char *config_dir, const char *hash,
                         coupler_address *a)
{
    return read_address(exchange_dir, hash, a) || read_address(config_dir, hash, a);
}

static void mkdir_p(const char *dir)
{
    char *p = seam_xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0777);
        *s = '/';
    }
    mkdir(p, 0777);
    free(p);
}

/* The lock that elects one starter: true when we hold it now. */
static bool take_lock(const char *lock_path)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(lock_path, O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd >= 0) {
            dprintf(fd, "%ld\n", (long)getpid());
            close(fd);
            return true;
        }
        FILE *f = fopen(lock_path, "r");
        long holder = 0;
        if (f) {
            if (fscanf(f, "%ld", &holder) != 1)
                holder = 0;
            fclose(f);
        }
        if (holder > 0 && pid_alive(holder))
            return false;
        if (holder > 0 || !f)
            unlink(lock_path);   /* its writer died before starting a coupler */
        else
            return false;        /* being written just now */
    }
    return false;
}

static const char *seam_program(void)
{
    const char *env = getenv("SEAM");
    if (env && *env)
        return env;
    if (access(SEAM_INSTALL_PATH, X_OK) == 0)
        return SEAM_INSTALL_PATH;
    return SEAM_BUILD_PATH;
}

/* Start `seam run CONFIG --precice-serve EXCH` in its own session, detached
 * (double fork: init reaps it); its pid, or -1 with err. */
static long spawn_coupler(const char *config_path, const char *exchange_dir, const char *log_path,
                          char *err, size_t errlen)
{
    const char *seam = seam_program();
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t mid = fork();
    if (mid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fds[0]); close(fds[1]);
        return -1;
    }
    if (mid == 0) {
        close(fds[0]);
        setsid();
        pid_t child = fork();
        if (child == 0) {
            int log = open(log_path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            int null = open("/dev/null", O_RDONLY);
            if (log >= 0) { dup2(log, 1); dup2(log, 2); close(log); }
            if (null >= 0) { dup2(null, 0); close(null); }
            close(fds[1]);
            execl(seam, seam, "run", config_path, "--precice-serve", exchange_dir, (char *)NULL);
            fprintf(stderr, "cannot run %s: %s\n", seam, strerror(errno));
            _exit(127);
        }
        long pid = child;
        ssize_t w = write(fds[1], &pid, sizeof pid);
        _exit(w == (ssize_t)sizeof pid ? 0 : 1);
    }
    close(fds[1]);
    long pid = -1;
    if (read(fds[0], &pid, sizeof pid) != (ssize_t)sizeof pid)
        pid = -1;
    close(fds[0]);
    waitpid(mid, NULL, 0);
    if (pid < 0)
        snprintf(err, errlen, "could not start %s", seam);
    return pid;
}

/* The last lines of a log, for a message about a coupler that stopped. */
static void log_tail(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512], last[3][512] = { "", "", "" };
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        snprintf(last[n % 3], sizeof last[0], "%s", line);
        n++;
    }
    fclose(f);
    size_t used = 0;
    for (int i = n > 3 ? n - 3 : 0; i < n && used + 1 < len; i++)
        used += (size_t)snprintf(out + used, len - used, "\n  %s", last[i % 3]);
}

static double wait_limit_s(void)
{
    const char *env = getenv("SEAM_PRECICE_TIMEOUT");
    double s = env ? atof(env) : 0.0;
    return s > 0.0 ? s : 60.0;
}

/* Find a running coupler, else start one (or wait for the one another
 * participant starts); fill a. */
static bool locate_coupler(const char *config_path, const char *hash, const char *exchange_dir,
                           coupler_address *a, char *log_path, size_t log_len, char *err, size_t errlen)
{
    char *config_dir = seam_xstrdup(config_path);
    char *slash = strrchr(config_dir, '/');
    if (slash)
        *(slash == config_dir ? slash + 1 : slash) = '\0';
    char run_dir[4096], lock_path[4200];
    snprintf(run_dir, sizeof run_dir, "%s/precice-run", exchange_dir);
    snprintf(lock_path, sizeof lock_path, "%s/seam-coupler.lock", run_dir);
    snprintf(log_path, log_len, "%s/seam-coupler.log", run_dir);
    long started = -1;
    bool found = false;
    double deadline = now_s() + wait_limit_s();
    while (!(found = find_address(exchange_dir, config_dir, hash, a))) {
        if (started < 0) {
            mkdir_p(run_dir);
            if (take_lock(lock_path)) {
                started = spawn_coupler(config_path, exchange_dir, log_path, err, errlen);
                if (started < 0) {
                    unlink(lock_path);
                    break;
                }
            }
        } else if (!pid_alive(started)) {
            char tail[1600];
            log_tail(log_path, tail, sizeof tail);
            snprintf(err, errlen, "the seam coupler it started (%s run %s) stopped; %s ends with:%s",
                     seam_program(), config_path, log_path, tail);
            break;
        }
        if (now_s() > deadline) {
            snprintf(err, errlen, "no seam coupler for %s appeared in %s/precice-run within %g s "
                     "(SEAM_PRECICE_TIMEOUT); see %s", config_path, exchange_dir, wait_limit_s(), log_path);
            break;
        }
        sleep_ms(20);
    }
    if (started >= 0)
        unlink(lock_path);
    free(config_dir);
    return found;
}

precice_link *precice_link_open(const char *config_path, const char *hash, const char *exchange_dir,
                                char *err, size_t errlen)
{
    coupler_address a;
    char log_path[4300];
    if (!locate_coupler(config_path, hash, exchange_dir, &a, log_path, sizeof log_path, err, errlen))
        return NULL;
    precice_link *l = SEAM_NEW(precice_link);
    l->coupler_pid = a.pid;
    l->coupler_local = a.local;
    l->log_path = seam_xstrdup(log_path);
    l->ctx = zmq_ctx_new();
    l->sock = zmq_socket(l->ctx, ZMQ_DEALER);
    int linger = 1000;
    zmq_setsockopt(l->sock, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(l->sock, a.endpoint) != 0) {
        snprintf(err, errlen, "cannot connect to the seam coupler at %s: %s", a.endpoint, zmq_strerror(zmq_errno()));
        precice_link_close(&l);
        return NULL;
    }
    return l;
}

/* The reply's "error" text, or a fallback. */
static void reply_error(const msgpack_object *root, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < root->via.map.size; i++) {
        const msgpack_object_kv *kv = &root->via.map.ptr[i];
        if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == 5 &&
            memcmp(kv->key.via.str.ptr, "error", 5) == 0 && kv->val.type == MSGPACK_OBJECT_STR) {
            snprintf(err, errlen, "%.*s", (int)kv->val.via.str.size, kv->val.via.str.ptr);
            return;
        }
    }
    size_t used = (size_t)snprintf(err, errlen, "the seam coupler's reply has neither ok: true nor an error text "
                                   "(keys:");
    for (uint32_t i = 0; i < root->via.map.size && used + 1 < errlen; i++) {
        const msgpack_object *k = &root->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR)
            used += (size_t)snprintf(err + used, errlen - used, " %.*s", (int)k->via.str.size, k->via.str.ptr);
    }
    if (used + 1 < errlen)
        snprintf(err + used, errlen - used, ")");
}

static bool reply_ok(const msgpack_object *root)
{
    for (uint32_t i = 0; i < root->via.map.size; i++) {
        const msgpack_object_kv *kv = &root->via.map.ptr[i];
        if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == 2 &&
            memcmp(kv->key.via.str.ptr, "ok", 2) == 0)
            return kv->val.type == MSGPACK_OBJECT_BOOLEAN && kv->val.via.boolean;
    }
    return false;
}

bool precice_link_request(precice_link *l, const msgpack_sbuffer *request, msgpack_unpacked *reply,
                          char *err, size_t errlen)
{
    if (zmq_send(l->sock, request->data, request->size, 0) < 0) {
        snprintf(err, errlen, "cannot send to the seam coupler: %s", zmq_strerror(zmq_errno()));
        return false;
    }
    zmq_pollitem_t item = { l->sock, 0, ZMQ_POLLIN, 0 };
    for (;;) {
        int n = zmq_poll(&item, 1, 1000);
        if (n < 0 && zmq_errno() == EINTR)
            continue;
        if (n > 0)
            break;
        if (n < 0 || (l->coupler_local && !pid_alive(l->coupler_pid))) {
            char tail[1600];
            log_tail(l->log_path, tail, sizeof tail);
            snprintf(err, errlen, "the seam coupler (pid %ld) stopped while this participant waited; "
                     "its log %s ends with:%s", l->coupler_pid, l->log_path, tail);
            return false;
        }
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, l->sock, 0) < 0) {
        zmq_msg_close(&msg);
        snprintf(err, errlen, "cannot receive from the seam coupler: %s", zmq_strerror(zmq_errno()));
        return false;
    }
    size_t size = zmq_msg_size(&msg);
    if (size > l->reply_cap) {
        l->reply_cap = size;
        l->reply = seam_xrealloc(l->reply, size);
    }
    memcpy(l->reply, zmq_msg_data(&msg), size);
    zmq_msg_close(&msg);
    msgpack_unpacked_init(reply);
    size_t off = 0;
    msgpack_unpack_return r = msgpack_unpack_next(reply, l->reply, size, &off);
    if (r != MSGPACK_UNPACK_SUCCESS || reply->data.type != MSGPACK_OBJECT_MAP) {
        msgpack_unpacked_destroy(reply);
        snprintf(err, errlen, "the seam coupler sent a reply that is not a MessagePack map");
        return false;
    }
    if (!reply_ok(&reply->data)) {
        reply_error(&reply->data, err, errlen);
        msgpack_unpacked_destroy(reply);
        return false;
    }
    return true;
}

void precice_link_close(precice_link **self_p)
{
    precice_link *l = *self_p;
    if (!l)
        return;
    if (l->sock)
        zmq_close(l->sock);
    if (l->ctx)
        zmq_ctx_term(l->ctx);
    free(l->log_path);
    free(l->reply);
    free(l);
    *self_p = NULL;
}
