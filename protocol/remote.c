/* The proxy: seam_plugin calls as ZeroMQ requests (PROTOCOL.md). */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <zmq.h>

#include "keys.h"
#include "remote.h"
#include "session.h"
#include "shape.h"
#include "seam/alloc.h"
#include "seam/loader.h"
#include "seam/log.h"
#include "seam/vtk.h"
#include "wire.h"

#ifndef SEAM_SERVE_BUILD_PATH
#define SEAM_SERVE_BUILD_PATH ""
#endif
#ifndef SEAM_SERVE_INSTALL_PATH
#define SEAM_SERVE_INSTALL_PATH ""
#endif

/* One raster as a `field` answer gave it. */
typedef struct raster_buf {
    seam_raster r;           /* r.data is data; r.units, when not NULL, is units */
    double *data;
    size_t cap;              /* doubles data holds */
    char units[64];
} raster_buf;

/* A field of the committed state as the server sent it. The raster handed
 * to the coupler (`given`) stays as it is until the next `field` call (the
 * contract), so what a commit brings lands in `got` and is swapped in then. */
typedef struct cached_field {
    char name[256];          /* "": a free entry */
    int streak;              /* commits in a row after which the coupler asked for it */
    bool asked;              /* asked since the last commit */
    bool valid;              /* `got` holds the present state's raster */
    bool given_valid;        /* `given` does (it was handed out since the state last changed) */
    raster_buf got, given;
} cached_field;

struct seam_remote {
    seam_plugin table;       /* first */
    char plugin_name[128], summary[512];
    char endpoint[4200];
    char who[128];
    seam_remote_options o;
    char server_key[SEAM_KEY_Z85], client_public[SEAM_KEY_Z85], client_secret[SEAM_KEY_Z85];
    void *ctx, *sock, *mon;
    uint64_t next_id;
    bool handshaken, lost;
    pid_t child;
    pid_t reaper;            /* removes tmpdir and the server if this process dies without doing it (launch) */
    int reaper_fd;           /* the pipe the reaper waits on; this process holds its only write end */
    char program[1024];      /* the spawned server, for messages: seam-serve's path, "python3 solver.py" */
    bool moved;              /* the server runs, or may run (connect), in another directory: send it absolute paths */
    char tmpdir[4096];
    const seam_host *host;   /* after create */
    char *errbuf;            /* before create: where messages go */
    size_t errlen;
    int64_t step;            /* the step in progress, or the next one when `between`, for messages */
    bool between;            /* no step in progress: before the first (step 0) or after a commit */
    double t_next;           /* the end of the step in progress: t once it is committed */
    bool cpu_watch;          /* a solve of a started server without `timeout`: hung when its CPU time stalls */
    double cpu_s, cpu_moved_at, cpu_looked_at;   /* its processes' CPU time, when it last grew, when last read */
    char limit_why[192];     /* what set the wait of the call in progress, for its message; "" : timeout */
    bool ending;             /* the bye at the end: the run is done, so what goes wrong now is a warning */
    double t;
    uint64_t hello_id;       /* a hello sent and not yet answered (seam_remote_ready reads it), else 0 */
    double hello_deadline;
    char *want_plugin;       /* the plugin the scene asked of a server it connects to or launches (ready checks) */
    bool dt_known;           /* the last commit's reply carried max_dt of the committed state: */
    seam_status dt_status;   /* ...its status and value, valid until the committed state changes */
    double dt;
    /* fields the coupler asks after every commit come with the commit
     * (remote_commit): the last ones fetched, until the state changes */
    cached_field fc[SEAM_COMMIT_FIELDS_MAX];
    uint64_t commit_id;      /* a commit begun and not yet ended (seam_remote_commit_begin), else 0 */
    size_t commit_fields;    /* ...the fields it asked for */
    double commit_deadline;  /* ...and when its reply is due */
    int rcv_slice;           /* ms, the socket's ZMQ_RCVTIMEO as last set (-1: ZeroMQ's default, none) */
    seam_frames reply;       /* the last reply; parsed messages point into it */
    unsigned proto;          /* the protocol version the server agreed to (0 before hello) */
    uint32_t caps;           /* the instance's capabilities, asked once after create */
    atomic_size_t in_flight; /* frames ZeroMQ holds that point into the caller's arrays (its I/O thread releases them) */
    /* what the plugin side owns in the contract lives here until the next call */
    size_t n_iface;          /* values per interface array, from describe or bind */
    wire_allocs kept[WIRE_E_COUNT];   /* what each shaped entry's last reply brought */
    double *centre, *rotation;   /* bodies */
    int64_t *first, *points;
};

static void remote_destroy(void *self);
static void *remote_create(const seam_plugin *plugin, const char *config_json, const seam_host *host);

static int set_int(void *sock, int option, int value) { return zmq_setsockopt(sock, option, &value, sizeof value); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An error about this remote: through the host once there is an instance,
 * into the caller's err before. */
static void report(seam_remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(seam_remote *r, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->host)
        seam_logf(r->host, r->ending ? SEAM_LOG_WARN : SEAM_LOG_ERROR, "%s%s", msg,
                  r->ending ? "; the run's results stand" : "");
    else if (r->errbuf && !r->errbuf[0])
        snprintf(r->errbuf, r->errlen, "%s", msg);
}

/* " at step 12 (t = 0.12 s)", " after step 11 (t = 0.12 s)": where the run was, for messages. */
static const char *where(const seam_remote *r, char *buf, size_t n)
{
    if (!r->host)
        buf[0] = '\0';
    else if (!r->between)
        snprintf(buf, n, " at step %lld (t = %.9g s)", (long long)r->step, r->t);
    else if (r->step == 0)
        snprintf(buf, n, " before the first step (t = %.9g s)", r->t);
    else
        snprintf(buf, n, " after step %lld (t = %.9g s)", (long long)r->step - 1, r->t);
    return buf;
}

/* Why a spawned server is gone, or "" while it runs (after waiting up to
 * wait_s for it to finish dying). */
static const char *child_fate(seam_remote *r, char *buf, size_t n, double wait_s)
{
    buf[0] = '\0';
    if (r->child <= 0)
        return buf;
    int st;
    pid_t got = waitpid(r->child, &st, WNOHANG);
    for (int i = 0; i < 50 && got == 0 && wait_s > 0; i++) {   /* its sockets close before it is reapable */
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        got = waitpid(r->child, &st, WNOHANG);
    }
    if (got != r->child)
        return buf;
    if (WIFSIGNALED(st))
        snprintf(buf, n, "%.500s (pid %d) was killed by signal %d (%s)", r->program, (int)r->child, WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else
        snprintf(buf, n, "%.500s (pid %d) exited with status %d", r->program, (int)r->child, WEXITSTATUS(st));
    r->child = 0;
    return buf;
}

/* Read one monitor event; returns its id (0 when none could be read). */
static int read_event(void *mon)
{
    zmq_msg_t head, addr;
    zmq_msg_init(&head);
    zmq_msg_init(&addr);
    int ev = 0;
    if (zmq_msg_recv(&head, mon, ZMQ_DONTWAIT) >= 0) {
        if (zmq_msg_size(&head) >= 2) {
            uint16_t id;
            memcpy(&id, zmq_msg_data(&head), 2);
            ev = id;
        }
        if (zmq_msg_more(&head))
            seam_wire_recv_more(&addr, mon);
    }
    zmq_msg_close(&head);
    zmq_msg_close(&addr);
    return ev;
}

/* Drain monitor events; false (after reporting) when the connection is gone. */
/* CPU seconds used so far by process pid, its threads, and (depth levels
 * down) the processes it started and has not reaped: a Python solver's work
 * counts, and so does a program it runs. -1 when pid is gone. */
static double tree_cpu_s(pid_t pid, int depth)
{
    char path[128], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1.0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')');   /* past "pid (name)": the name may hold spaces */
    unsigned long long utime = 0, stime = 0;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1.0;
    double cpu = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    if (depth > 0 && (f = fopen(path, "r"))) {
        int kid, count = 0;
        while (count++ < 64 && fscanf(f, "%d", &kid) == 1) {
            double more = tree_cpu_s((pid_t)kid, depth - 1);
            cpu += more > 0.0 ? more : 0.0;
        }
        fclose(f);
    }
    return cpu;
}

/* A solve of a server this coupler started, without a `timeout`: slow is
 * fine, but processes that use (next to) no CPU time for SEAM_REMOTE_STALL_S
 * wait for something that never comes (a sleep, a lock, a stopped helper).
 * False after reporting. Read twice a second. */
static bool cpu_moves(seam_remote *r, const char *op)
{
    double now = now_s();
    if (now - r->cpu_looked_at < 0.5)
        return true;
    r->cpu_looked_at = now;
    double cpu = tree_cpu_s(r->child, 3);
    /* work is 1% of a CPU or more; less is ZeroMQ's heartbeats and such (gone, cpu < 0: child_fate says so) */
    if (cpu >= r->cpu_s + 0.01 * SEAM_REMOTE_STALL_S || cpu < 0.0 || r->cpu_moved_at == 0.0) {
        r->cpu_s = cpu;
        r->cpu_moved_at = now;
        return true;
    }
    if (now - r->cpu_moved_at < SEAM_REMOTE_STALL_S)
        return true;
    char at[128];
    report(r, "%s%s: %s is hung: its process (pid %d) and the ones it started have used no CPU time for %g s "
           "(a solve that computes is never stopped; the participant's `timeout` sets a fixed limit)", op,
           where(r, at, sizeof at), r->program, (int)r->child, SEAM_REMOTE_STALL_S);
    r->lost = true;
    return false;
}

static bool watch(seam_remote *r, const char *op)
{
    char at[128], fate[640];
    for (;;) {
        int ev = read_event(r->mon);
        if (!ev)
            break;
        if (ev == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
            r->handshaken = true;
        else if (ev == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
            report(r, "%s: %s refused this coupler's CURVE key (not on the server's --allow list)", op, r->endpoint);
            r->lost = true;
        } else if (ev == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL || ev == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL ||
                   (ev == ZMQ_EVENT_DISCONNECTED && !r->handshaken)) {
            report(r, "%s: the security handshake with %s failed (%s)", op, r->endpoint,
                   r->server_key[0] ? "wrong server_key, or the server does not use CURVE"
                                    : "the server requires CURVE: set server_key and client_key");
            r->lost = true;
        } else if (ev == ZMQ_EVENT_DISCONNECTED) {
            child_fate(r, fate, sizeof fate, 0.5);
            report(r, "%s%s: lost the connection to %s%s%s", op, where(r, at, sizeof at), r->endpoint,
                   fate[0] ? ": " : " (the server exited or stopped answering heartbeats)", fate);
            r->lost = true;
        }
        if (r->lost)
            return false;
    }
    if (r->child > 0 && child_fate(r, fate, sizeof fate, 0.0)[0]) {
        report(r, "%s%s: %s", op, where(r, at, sizeof at), fate);
        r->lost = true;
        return false;
    }
    return !r->cpu_watch || cpu_moves(r, op);
}

/* Ops that leave the plugin's state as it is: fields fetched before them
 * still hold after them. */
static bool keeps_state(const char *op)
{
    static const char *const ops[] = {"field", "max_dt", "save", "write_output", "domain", "capabilities", "bodies"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

/* {op, id, ...}: the caller writes `fields` more key/value pairs. */
static uint64_t begin_request(seam_remote *r, seam_wbuf *w, const char *op, size_t fields, size_t reserve)
{
    if (!keeps_state(op))
        for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++)
            r->fc[k].valid = r->fc[k].given_valid = false;
    uint64_t id = ++r->next_id;
    seam_wbuf_init(w, reserve);
    if (r->proto >= 2)
        w->oob_min = SEAM_WIRE_OOB_MIN;
    seam_w_map(w, 2 + fields);
    seam_w_str(w, "op");
    seam_w_str(w, op);
    seam_w_str(w, "id");
    seam_w_uint(w, id);
    return id;
}

/* Pass the server's messages on to the coupler. */
static void relay_log(seam_remote *r, seam_msg *m)
{
    seam_mp items;
    size_t n;
    if (!seam_msg_array(m, "log", false, &items, &n))
        return;
    for (size_t i = 0; i < n; i++) {
        seam_mp_value head, level, text;
        if (!seam_mp_next(&items, &head) || head.kind != SEAM_MP_ARRAY || head.len != 2 ||
            !seam_mp_next(&items, &level) || level.kind != SEAM_MP_UINT || !seam_mp_next(&items, &text) ||
            text.kind != SEAM_MP_STR)
            return;
        if (r->host && r->host->log) {
            char msg[2048];
            snprintf(msg, sizeof msg, "%.*s", (int)(text.len < 2047 ? text.len : 2047), (const char *)text.data);
            r->host->log(r->host->ctx, level.u <= SEAM_LOG_ERROR ? (seam_log_level)level.u : SEAM_LOG_ERROR, msg);
        } else if (level.u >= SEAM_LOG_ERROR)
            report(r, "%.*s", (int)text.len, (const char *)text.data);
    }
}

/* The connection is lost while ZeroMQ may still hold frames that point
 * into the caller's arrays: close everything now, so that none is read
 * after the call returns (zmq_ctx_term returns once all are released). */
static void abandon(seam_remote *r)
{
    if (!r->ctx || atomic_load(&r->in_flight) == 0)
        return;
    zmq_socket_monitor(r->sock, NULL, 0);
    zmq_close(r->mon);
    zmq_close(r->sock);   /* ZMQ_LINGER is 0: queued frames are dropped */
    zmq_ctx_term(r->ctx);
    r->mon = r->sock = r->ctx = NULL;
}

static bool call_once(seam_remote *r, const char *op, uint64_t id, seam_wbuf *w, double limit, seam_msg *m);

/* Send w's request, wait for the reply with this id within `limit` seconds
 * and parse it into m (valid until the next call). False after reporting. */
static bool call(seam_remote *r, const char *op, uint64_t id, seam_wbuf *w, double limit, seam_msg *m)
{
    bool ok = call_once(r, op, id, w, limit, m);
    if (r->lost)
        abandon(r);
    return ok;
}

/* Send w's request (freed either way) before `deadline`. False after reporting. */
static bool send_request(seam_remote *r, const char *op, seam_wbuf *w, double limit, double deadline)
{
    char at[128];
    /* the monitor is looked at while the reply is awaited (await_reply):
     * a connection lost before this request is found there, within a slice */
    if (r->lost) {   /* reported when it was found */
        seam_wbuf_free(w);
        return false;
    }
    seam_frames_clear(&r->reply);
    bool sent = false;
    while (!sent) {
        if (seam_wire_send(r->sock, w, ZMQ_DONTWAIT, &r->in_flight) >= 0)
            sent = true;
        else if (errno != EAGAIN && errno != EINTR) {
            report(r, "%s%s: cannot send to %s: %s", op, where(r, at, sizeof at), r->endpoint, zmq_strerror(errno));
            break;
        } else {
            zmq_pollitem_t it[2] = {{r->sock, 0, ZMQ_POLLOUT, 0}, {r->mon, 0, ZMQ_POLLIN, 0}};
            zmq_poll(it, 2, 100);
            if (!watch(r, op) || now_s() > deadline)
                break;
        }
    }
    if (!sent) {
        seam_wbuf_free(w);
        if (!r->lost)
            report(r, "%s%s: %s does not take the request (no reply within %g s: the participant's timeout)",
                   op, where(r, at, sizeof at), r->endpoint, limit);
        r->lost = true;
        return false;
    }
    return true;
}

/* Wait until `deadline` for the reply with this id and parse it into m
 * (valid until the next request). False after reporting. */
static bool await_reply(seam_remote *r, const char *op, uint64_t id, double limit, double deadline, seam_msg *m)
{
    char at[128];
    bool last_look = false;   /* past the deadline: one more look, for a reply that came while the caller was busy */
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0 && last_look) {
            bool first = strcmp(op, "hello") == 0;
            if (r->limit_why[0])
                report(r, "%s%s: no reply from %s within %.3g s (%s)", op, where(r, at, sizeof at), r->endpoint,
                       limit, r->limit_why);
            else
                report(r, "%s%s: no reply from %s within %g s (the participant's `%s`%s)", op,
                       where(r, at, sizeof at), r->endpoint, limit, first ? "start_timeout" : "timeout",
                       first && !r->handshaken ? "; is a server listening there?" : "");
            r->lost = true;   /* a late reply would answer the wrong request */
            return false;
        }
        last_look = left <= 0;
        /* A blocking receive on the socket alone, in slices: the monitor (a
         * lost connection, a refused key) and the spawned server's fate are
         * looked at between slices. One wait costs a few system calls fewer
         * than polling both sockets, which is most of a round trip's cost
         * outside libzmq on a virtual machine (docs/performance.md). */
        int slice = last_look ? 0 : isfinite(left) && left < 0.1 ? (int)(left * 1000) + 1 : 100;
        if (slice != r->rcv_slice && set_int(r->sock, ZMQ_RCVTIMEO, slice) == 0)
            r->rcv_slice = slice;
        {
            zmq_msg_t first;
            zmq_msg_init(&first);
            if (zmq_msg_recv(&first, r->sock, 0) < 0) {
                int e = errno;
                zmq_msg_close(&first);
                if (e != EAGAIN && e != EINTR) {
                    report(r, "%s%s: receive failed: %s", op, where(r, at, sizeof at), zmq_strerror(e));
                    r->lost = true;
                    return false;
                }
                if (!watch(r, op))
                    return false;
                continue;
            }
            uint64_t got = 0;
            int rc = seam_frames_recv(&r->reply, r->sock, &first);
            if (rc < 0)
                continue;
            if (rc == SEAM_FRAMES_NOMEM) {   /* the reply is drained: the connection stays in step */
                report(r, "%s%s: the reply from %s does not fit in memory", op, where(r, at, sizeof at),
                       r->endpoint);
                return false;
            }
            if (rc > 0)
                snprintf(m->error, sizeof m->error, "more than %d frames or %lld bytes", SEAM_WIRE_MAX_PARTS,
                         (long long)SEAM_WIRE_MAX_MESSAGE);
            if (rc > 0 || !seam_msg_parse_parts(m, r->reply.part[0].data, r->reply.part[0].len, r->reply.part + 1,
                                                r->reply.n - 1)) {
                report(r, "%s%s: malformed reply from %s: %s", op, where(r, at, sizeof at), r->endpoint, m->error);
                r->lost = true;
                return false;
            }
            r->handshaken = true;   /* a reply came: the monitor's event may not have been read yet */
            if (!seam_msg_uint(m, "id", true, &got) || got != id) {   /* a probe or a stale reply */
                seam_frames_clear(&r->reply);
                continue;
            }
            relay_log(r, m);
            bool ok = false;
            seam_msg_bool(m, "ok", true, &ok);
            if (!ok) {
                const char *e = "";
                size_t elen = 0;
                seam_msg_str(m, "error", false, &e, &elen);
                report(r, "%s%s: %s answered: %.*s", op, where(r, at, sizeof at), r->endpoint, (int)elen, e);
                return false;
            }
            return true;
        }
    }
}

static bool call_once(seam_remote *r, const char *op, uint64_t id, seam_wbuf *w, double limit, seam_msg *m)
{
    double deadline = limit > 0 ? now_s() + limit : INFINITY;
    return send_request(r, op, w, limit, deadline) && await_reply(r, op, id, limit, deadline, m);
}

/* A reply that does not parse as the op's: named with the op, where the run
 * was and the server, as the other failures are. */
static void bad_reply(seam_remote *r, const char *op, const char *detail)
{
    char at[96];
    report(r, "%s%s: bad reply from %s: %s", op, where(r, at, sizeof at), r->endpoint, detail);
}

/* The plugin's status from a reply; SEAM_ERROR (reported) when bad. */
static seam_status reply_status(seam_remote *r, const char *op, seam_msg *m)
{
    uint64_t st = SEAM_ERROR;
    if (!seam_msg_uint(m, "status", true, &st) || st > SEAM_UNSTABLE) {
        bad_reply(r, op, m->error[0] ? m->error : "unknown status");
        return SEAM_ERROR;
    }
    return (seam_status)st;
}

static void write_step(seam_wbuf *w, const seam_step *step)
{
    seam_w_str(w, "step");
    seam_w_map(w, 4);
    seam_w_str(w, "index");
    seam_w_int(w, step->index);
    seam_w_str(w, "t");
    seam_w_f64(w, step->t);
    seam_w_str(w, "dt");
    seam_w_f64(w, step->dt);
    seam_w_str(w, "iteration");
    seam_w_int(w, step->iteration);
}

/* ---- the table ---------------------------------------------------------- */

static seam_status remote_max_dt(void *self, double *dt)
{
    seam_remote *r = self;
    if (r->dt_known) {   /* the committed state has not changed since the commit that answered it */
        *dt = r->dt;
        return r->dt_status;
    }
    seam_wbuf w;
    seam_msg m;
    uint64_t id = begin_request(r, &w, "max_dt", 0, 0);
    *dt = NAN;
    if (!call(r, "max_dt", id, &w, r->o.timeout_s, &m))
        return SEAM_ERROR;
    /* a server of an older plugin ABI answers dt alone */
    seam_status st = seam_msg_has(&m, "status") ? reply_status(r, "max_dt", &m) : SEAM_OK;
    if (st == SEAM_OK && !seam_msg_num(&m, "dt", true, dt)) {
        bad_reply(r, "max_dt", m.error);
        return SEAM_ERROR;
    }
    return st;
}

/* The point ranges travel as float64 (exact below 2^53) and are checked to be whole. */
static seam_status remote_bodies(void *self, seam_bodies *out)
{
    seam_remote *r = self;
    seam_wbuf w;
    seam_msg m;
    uint64_t id = begin_request(r, &w, "bodies", 0, 0);
    if (!call(r, "bodies", id, &w, r->o.timeout_s, &m))
        return SEAM_ERROR;
    seam_status st = reply_status(r, "bodies", &m);
    if (st != SEAM_OK)
        return st;
    uint64_t count = 0;
    seam_msg_uint(&m, "count", true, &count);
    free(r->centre), free(r->rotation), free(r->first), free(r->points);
    r->centre = r->rotation = NULL;
    r->first = r->points = NULL;
    if (!m.error[0] && count > (1u << 24))
        seam_msg_fail(&m, "%llu bodies is beyond any interface", (unsigned long long)count);
    double *ranges = NULL;
    if (!m.error[0]) {
        r->centre = seam_msg_f64s_alloc(&m, "centre", count > 0, 3 * count);
        r->rotation = seam_msg_f64s_alloc(&m, "rotation", count > 0, 9 * count);
        ranges = seam_msg_f64s_alloc(&m, "ranges", count > 0, 2 * count);
    }
    if (!m.error[0] && count) {
        r->first = SEAM_NEW_N(int64_t, count);
        r->points = SEAM_NEW_N(int64_t, count);
    }
    for (uint64_t b = 0; b < count && !m.error[0]; b++) {
        double f = ranges[2 * b], k = ranges[2 * b + 1];
        if (!(f >= 0 && k >= 0 && f < 9e15 && k < 9e15 && f == floor(f) && k == floor(k)))
            seam_msg_fail(&m, "field \"ranges\": body %llu has first %g and %g points", (unsigned long long)b, f, k);
        else
            r->first[b] = (int64_t)f, r->points[b] = (int64_t)k;
    }
    free(ranges);
    if (m.error[0]) {
        bad_reply(r, "bodies", m.error);
        return SEAM_ERROR;
    }
    *out = (seam_bodies){.count = count, .centre = r->centre, .rotation = r->rotation, .first = r->first,
                         .points = r->points};
    return SEAM_OK;
}

static seam_status remote_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    seam_remote *r = self;
    r->step = step->index;
    r->t = step->t;
    r->t_next = step->t + step->dt;
    r->between = false;
    size_t n = in ? in->n * (size_t)in->dim : 0;
    const double *ins[3] = {in ? in->X : NULL, in ? in->V : NULL, in ? in->F : NULL};
    double *outs[3] = {out ? out->X : NULL, out ? out->V : NULL, out ? out->F : NULL};
    static const char *const names[3] = {"X", "V", "F"};
    size_t fields = 4, n_out = 0;
    for (int k = 0; k < 3; k++) {
        fields += ins[k] != NULL;
        n_out += outs[k] != NULL;
    }
    seam_wbuf w;
    seam_msg m;
    uint64_t id = begin_request(r, &w, "solve", fields, 256 + (fields - 4) * (seam_wire_inline(r->proto, n * 8) + 16));
    write_step(&w, step);
    seam_w_str(&w, "n");
    seam_w_uint(&w, in ? in->n : 0);
    seam_w_str(&w, "dim");
    seam_w_uint(&w, in ? (uint64_t)in->dim : 0);
    for (int k = 0; k < 3; k++)
        if (ins[k]) {   /* out of band without a copy: the call waits for the reply (or abandons) */
            seam_w_str(&w, names[k]);
            seam_w_f64s_ref(&w, ins[k], n, NULL);
        }
    seam_w_str(&w, "out");
    seam_w_array(&w, n_out);
    for (int k = 0; k < 3; k++)
        if (outs[k])
            seam_w_str(&w, names[k]);
    /* without `timeout`, a started server's solve runs as long as its processes work (cpu_moves); a
     * connected one's gets SEAM_REMOTE_TIMEOUT_S, as every other request */
    double limit = r->o.timeout_s;
    r->cpu_watch = r->o.adaptive && r->child > 0;
    if (r->cpu_watch) {
        limit = 0.0;
        r->cpu_moved_at = r->cpu_looked_at = 0.0;
    }
    /* large outputs land straight in the solver's arrays */
    seam_frames_dest dest[3];
    size_t n_dest = 0;
    for (int k = 0; k < 3; k++)
        if (outs[k])
            dest[n_dest++] = (seam_frames_dest){names[k], outs[k], n * sizeof(double)};
    r->reply.dest = dest;
    r->reply.n_dest = n_dest;
    r->reply.dest_id = id;
    bool replied = call(r, "solve", id, &w, limit, &m);
    r->reply.dest = NULL;
    r->reply.n_dest = 0;
    r->cpu_watch = false;
    if (!replied)
        return SEAM_ERROR;
    seam_status st = reply_status(r, "solve", &m);   /* the reply came: the request's frames are written */
    for (int k = 0; k < 3 && st == SEAM_OK; k++)
        if (outs[k] && !seam_msg_f64s(&m, names[k], true, outs[k], n)) {
            bad_reply(r, "solve", m.error);
            st = SEAM_ERROR;
        }
    return st;
}

static void take_commit_fields(seam_remote *r, seam_msg *m);

/* The reply also carries max_dt of the new committed state (a server that
 * knows the request's `max_dt` field): the next step's max_dt costs no
 * round trip; and the fields asked after each of the last two commits,
 * which then cost none either (`fields`, remote_field). The commit goes in
 * two halves (seam_remote_commit_begin / _end), so that a coupler with
 * several remote participants has them all commit at once. */
int seam_remote_commit_begin(seam_remote *r)
{
    seam_wbuf w;
    r->dt_known = false;
    r->commit_id = 0;
    /* a field asked after each of the last two commits is asked with this one */
    size_t n_fields = 0;
    for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++) {
        cached_field *c = &r->fc[k];
        c->streak = c->asked ? c->streak + 1 : 0;
        c->asked = false;
        n_fields += c->name[0] && c->streak >= 2;
    }
    uint64_t id = begin_request(r, &w, "commit", n_fields ? 2 : 1, 0);
    seam_w_str(&w, "max_dt");
    seam_w_bool(&w, true);
    if (n_fields) {
        seam_w_str(&w, "fields");
        seam_w_array(&w, n_fields);
        for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++)
            if (r->fc[k].name[0] && r->fc[k].streak >= 2)
                seam_w_str(&w, r->fc[k].name);
    }
    double limit = r->o.timeout_s, deadline = limit > 0 ? now_s() + limit : INFINITY;
    bool sent = send_request(r, "commit", &w, limit, deadline);
    if (r->lost)
        abandon(r);
    if (!sent)
        return -1;
    r->commit_id = id;
    r->commit_fields = n_fields;
    r->commit_deadline = deadline;
    return 0;
}

seam_status seam_remote_commit_end(seam_remote *r)
{
    seam_msg m;
    if (!r->commit_id) {   /* begin failed (reported) or was not called */
        if (!r->lost)
            report(r, "commit: no commit was begun");
        return SEAM_ERROR;
    }
    uint64_t id = r->commit_id;
    r->commit_id = 0;
    bool got = await_reply(r, "commit", id, r->o.timeout_s, r->commit_deadline, &m);
    if (r->lost)
        abandon(r);
    if (!got)
        return SEAM_ERROR;
    seam_status st = reply_status(r, "commit", &m);
    if (st != SEAM_OK)
        return st;
    r->step++;
    r->t = r->t_next;
    r->between = true;
    if (r->commit_fields && seam_msg_has(&m, "fields"))
        take_commit_fields(r, &m);
    seam_msg sub;
    sub.error[0] = '\0';
    if (seam_msg_has(&m, "max_dt")) {
        uint64_t dst = SEAM_ERROR;
        double dt = NAN;
        if (!seam_msg_child(&m, "max_dt", true, &sub) || !seam_msg_uint(&sub, "status", true, &dst) ||
            dst > SEAM_UNSTABLE || (dst == SEAM_OK && !seam_msg_num(&sub, "dt", true, &dt))) {
            char why[640];
            snprintf(why, sizeof why, "field \"max_dt\": %s", sub.error[0] ? sub.error : m.error[0] ? m.error
                                                                                                     : "unknown status");
            bad_reply(r, "commit", why);
            return SEAM_ERROR;
        }
        r->dt_known = true;
        r->dt_status = (seam_status)dst;
        r->dt = dt;
    }
    return st;
}

static seam_status remote_commit(void *self)
{
    seam_remote *r = self;
    return seam_remote_commit_begin(r) == 0 ? seam_remote_commit_end(r) : SEAM_ERROR;
}

void seam_remote_at(seam_remote *r, long steps_done, double t)
{
    r->step = steps_done;
    r->t = t;
    r->between = true;
}

/* The raster of one `field` answer (status 0) from m into c->got; false
 * with m's error. */
static bool take_raster(seam_msg *m, cached_field *c)
{
    raster_buf *b = &c->got;
    int64_t nx = 0, ny = 0, nz = 0;
    double dx = 0.0, origin[3] = {0, 0, 0};
    seam_msg_int(m, "nx", true, &nx);
    seam_msg_int(m, "ny", true, &ny);
    seam_msg_int(m, "nz", true, &nz);
    seam_msg_num(m, "dx", true, &dx);
    seam_msg_f64s(m, "origin", true, origin, 3);
    seam_msg_strcpy(m, "units", false, b->units, sizeof b->units);
    bool has_units = seam_msg_has(m, "units") && !seam_msg_is_nil(m, "units");
    if (!m->error[0] && (nx < 0 || ny < 0 || nz < 0 || nx > INT32_MAX || ny > INT32_MAX || nz > INT32_MAX ||
                         (double)nx * (double)ny * (double)nz > 1e12))
        seam_msg_fail(m, "a raster of %lld x %lld x %lld cells", (long long)nx, (long long)ny, (long long)nz);
    if (m->error[0])
        return false;
    size_t cells = (size_t)nx * (size_t)ny * (size_t)nz;
    if (!b->data || cells > b->cap) {   /* the length is checked before anything is allocated */
        double *fresh = seam_msg_f64s_alloc(m, "data", true, cells);
        if (!fresh)
            return false;
        free(b->data);
        b->data = fresh;
        b->cap = cells;
    } else if (!seam_msg_f64s(m, "data", true, b->data, cells))
        return false;
    b->r = (seam_raster){.nx = (int)nx, .ny = (int)ny, .nz = (int)nz, .origin = {origin[0], origin[1], origin[2]},
                         .dx = dx, .data = b->data, .units = has_units ? b->units : NULL};
    c->valid = true;
    return true;
}

/* c's present raster, handed out: `given` until the next field call. */
static seam_raster hand_out(cached_field *c)
{
    raster_buf t = c->given;
    c->given = c->got;
    c->got = t;
    c->given.r.data = c->given.data;   /* the struct moved: its pointers follow */
    if (c->given.r.units)
        c->given.r.units = c->given.units;
    c->got.r.units = NULL;
    c->valid = false;                  /* `got` is free for the next answer... */
    c->given_valid = true;             /* ...and `given` is the present state's until it changes */
    return c->given.r;
}

/* The entry of the field called name: its own, else a free one, else one
 * not asked since the last commit, asked least often lately (its rasters
 * go; the one handed out may, as the next field call allows). */
static cached_field *field_entry(seam_remote *r, const char *name)
{
    cached_field *pick = NULL;
    for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++) {
        cached_field *c = &r->fc[k];
        if (strcmp(c->name, name) == 0)
            return c;
        if (!pick || (pick->name[0] && (!c->name[0] || c->asked < pick->asked ||
                                         (c->asked == pick->asked && c->streak < pick->streak))))
            pick = c;
    }
    snprintf(pick->name, sizeof pick->name, "%s", name);
    pick->streak = 0;
    pick->asked = pick->valid = pick->given_valid = false;
    return pick;
}

/* The rasters a commit's reply carries (op_commit in session.c). A
 * malformed one is warned about and left to `field`, as is a field the
 * server could not give (`field` then says why): the commit stands. */
static void take_commit_fields(seam_remote *r, seam_msg *m)
{
    seam_msg all, one;
    all.error[0] = one.error[0] = '\0';
    if (!seam_msg_child(m, "fields", true, &all)) {
        if (r->host)
            seam_logf(r->host, SEAM_LOG_WARN, "commit: bad reply from %s: %s; fields are asked for one by one",
                      r->endpoint, m->error);
        return;
    }
    for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++) {
        cached_field *c = &r->fc[k];
        if (!c->name[0] || c->streak < 2 || !seam_msg_has(&all, c->name))
            continue;
        uint64_t st = SEAM_ERROR;
        one.error[0] = '\0';
        if (seam_msg_child(&all, c->name, true, &one) && seam_msg_uint(&one, "status", true, &st) &&
            (st != SEAM_OK || take_raster(&one, c)))
            continue;
        c->valid = false;
        if (r->host)
            seam_logf(r->host, SEAM_LOG_WARN, "commit: bad reply from %s: field \"fields\", \"%s\": %s; asked for "
                      "by itself", r->endpoint, c->name, one.error[0] ? one.error : all.error);
    }
}

/* A field fetched since the state last changed (by `field`, or with the
 * last commit) is given again without asking. */
static seam_status remote_field(void *self, const char *name, seam_raster *out)
{
    seam_remote *r = self;
    if (!name[0] || strlen(name) >= sizeof r->fc[0].name) {
        report(r, "field: a name of %zu bytes (1 to %zu)", strlen(name), sizeof r->fc[0].name - 1);
        return SEAM_ERROR;
    }
    cached_field *c = field_entry(r, name);
    c->asked = true;
    if (c->valid || c->given_valid) {
        *out = c->valid ? hand_out(c) : c->given.r;
        return SEAM_OK;
    }
    seam_wbuf w;
    seam_msg m;
    uint64_t id = begin_request(r, &w, "field", 1, 0);
    seam_w_str(&w, "name");
    seam_w_str(&w, name);
    if (!call(r, "field", id, &w, r->o.timeout_s, &m))
        return SEAM_ERROR;
    seam_status st = reply_status(r, "field", &m);
    if (st != SEAM_OK)
        return st;
    if (!take_raster(&m, c)) {
        bad_reply(r, "field", m.error);
        return SEAM_ERROR;
    }
    *out = hand_out(c);
    return SEAM_OK;
}

/* A path of the coupler's as the server must read it: relative ones from
 * the coupler's directory when the server runs in another (r->moved), into
 * buf; NULL and the rest as they are. */
static const char *server_path(const seam_remote *r, const char *path, char *buf, size_t n)
{
    char here[4096];
    if (!path || path[0] == '/' || !r->moved || !getcwd(here, sizeof here))
        return path;
    snprintf(buf, n, "%s/%s", here, path);
    return buf;
}

/* ---- the shaped entries ------------------------------------------------- */

static seam_remote *remote_of(const void *p) { return (seam_remote *)(uintptr_t)p; }

/* The step a call works on, for messages. */
static void at_step(seam_remote *r, const seam_step *step)
{
    r->step = step->index;
    r->t = step->t;
    r->t_next = step->t + step->dt;
    r->between = false;
}

/* The request of a shaped entry from its arguments (plugin.h's shape). */
static uint64_t write_shaped(seam_remote *r, const wire_entry *d, const wire_arg *v, seam_wbuf *w)
{
    size_t fields = 0;
    for (size_t i = 0; i < d->n_params; i++)
        fields += d->p[i].kind == WP_IN_STRUCT ? wire_struct_keys(d->p[i].st, v[i].in)
                  : d->p[i].kind != WP_OUT_F64S && d->p[i].kind != WP_OUT_STRUCT;
    uint64_t id = begin_request(r, w, d->name, fields, 0);
    char abs_path[8300];
    for (size_t i = 0; i < d->n_params; i++) {
        const wire_param *p = &d->p[i];
        if (p->kind == WP_STEP) {
            at_step(r, v[i].in);
            write_step(w, v[i].in);
        } else if (p->kind == WP_IN_STRUCT)
            wire_struct_write(w, p->st, v[i].in);
        else if (p->kind != WP_OUT_F64S && p->kind != WP_OUT_STRUCT)
            seam_w_str(w, p->key);
        if (p->kind == WP_IN_F64S)   /* out of band without a copy: the call waits for the reply (or abandons) */
            seam_w_f64s_ref(w, v[i].in, p->n ? p->n : r->n_iface, NULL);
        else if (p->kind == WP_IN_BYTES)
            seam_w_bin(w, v[i].in, v[i].size);
        else if (p->kind == WP_IN_STR)
            seam_w_str(w, v[i].in);
        else if (p->kind == WP_IN_PATH)   /* as create's output_dir */
            seam_w_str(w, server_path(r, v[i].in, abs_path, sizeof abs_path));
        else if (p->kind == WP_IN_INDEX)
            seam_w_int(w, v[i].index);
    }
    return id;
}

/* The outputs of a shaped entry's reply (status 0) into its arguments. */
static bool read_shaped(seam_remote *r, int e, const wire_entry *d, wire_arg *v, seam_msg *m)
{
    size_t n_iface = r->n_iface;
    for (size_t i = 0; i < d->n_params && !m->error[0]; i++) {
        const wire_param *p = &d->p[i];
        if (p->kind == WP_OUT_F64S)
            seam_msg_f64s(m, p->key, true, v[i].out, p->n ? p->n : r->n_iface);
        else if (p->kind == WP_OUT_STRUCT) {   /* the plugin's buffers until the next call of this entry */
            wire_allocs_free(&r->kept[e]);
            if (wire_struct_read(m, p->st, v[i].out, &r->kept[e]) && wire_struct_check(m, p->st, v[i].out))
                wire_struct_iface(p->st, v[i].out, &n_iface);
        } else if (p->kind == WP_IN_STRUCT)
            wire_struct_iface(p->st, v[i].in, &n_iface);
    }
    if (m->error[0])
        return false;
    r->n_iface = n_iface;
    return true;
}

/* Every shaped entry: its request, the reply, its outputs. */
static seam_status remote_shaped(const void *self, int e, wire_arg *v)
{
    seam_remote *r = remote_of(self);
    const wire_entry *d = wire_entry_at(e);
    if (d->recv == WIRE_RECV_SEAM_CHANGES)   /* a new committed state */
        r->dt_known = false;
    seam_wbuf w;
    seam_msg m;
    uint64_t id = write_shaped(r, d, v, &w);
    seam_frames_dest dest[3];   /* large outputs land straight in the caller's arrays */
    size_t n_dest = 0;
    for (size_t i = 0; i < d->n_params; i++)
        if (d->p[i].kind == WP_OUT_F64S)
            dest[n_dest++] = (seam_frames_dest){d->p[i].key, v[i].out, (d->p[i].n ? d->p[i].n : r->n_iface) * 8};
    r->reply.dest = dest;
    r->reply.n_dest = n_dest;
    r->reply.dest_id = id;
    bool replied = call(r, d->name, id, &w, r->o.timeout_s, &m);
    r->reply.dest = NULL;
    r->reply.n_dest = 0;
    if (!replied)
        return SEAM_ERROR;
    seam_status st = reply_status(r, d->name, &m);
    if (st == SEAM_OK && !read_shaped(r, e, d, v, &m)) {
        bad_reply(r, d->name, m.error);
        return SEAM_ERROR;
    }
    return st;
}

SEAM_PLUGIN_ENTRIES(WIRE_THUNK)

/* ---- connecting --------------------------------------------------------- */

/* Socket, monitor and options; no messages yet. */
/* spawned: the server is starting and binds its socket soon; try to connect
 * every SEAM_REMOTE_RECONNECT_MS instead of ZeroMQ's default 100 ms. */
static seam_remote *open_remote(const char *endpoint, const seam_remote_options *o, bool spawned, char *err,
                                size_t errlen)
{
    seam_remote *r = SEAM_NEW(seam_remote);
    atomic_init(&r->in_flight, 0);
    seam_frames_init(&r->reply);
    seam_wire_tune_malloc();
    r->o = *o;
    r->rcv_slice = -1;
    r->between = true;
    snprintf(r->who, sizeof r->who, "%s", o->name ? o->name : "remote");
    r->o.name = r->who;
    snprintf(r->endpoint, sizeof r->endpoint, "%s", endpoint);
    snprintf(r->server_key, sizeof r->server_key, "%s", o->server_key ? o->server_key : "");
    snprintf(r->client_public, sizeof r->client_public, "%s", o->client_public ? o->client_public : "");
    snprintf(r->client_secret, sizeof r->client_secret, "%s", o->client_secret ? o->client_secret : "");
    r->o.server_key = r->o.client_public = r->o.client_secret = NULL;
    r->errbuf = err;
    r->errlen = errlen;
    if (errlen)
        err[0] = '\0';
    r->ctx = zmq_ctx_new();
    r->sock = zmq_socket(r->ctx, ZMQ_DEALER);
    set_int(r->sock, ZMQ_LINGER, 0);
    if (spawned)
        set_int(r->sock, ZMQ_RECONNECT_IVL, SEAM_REMOTE_RECONNECT_MS);
    set_int(r->sock, ZMQ_SNDBUF, SEAM_WIRE_SOCKBUF);
    set_int(r->sock, ZMQ_RCVBUF, SEAM_WIRE_SOCKBUF);
    int64_t max_message = SEAM_WIRE_MAX_MESSAGE;
    zmq_setsockopt(r->sock, ZMQ_MAXMSGSIZE, &max_message, sizeof max_message);
    int ivl = (int)(o->heartbeat_s * 1000.0 + 0.5);
    if (ivl > 0) {
        set_int(r->sock, ZMQ_HEARTBEAT_IVL, ivl);
        set_int(r->sock, ZMQ_HEARTBEAT_TIMEOUT, 3 * ivl);
        set_int(r->sock, ZMQ_HEARTBEAT_TTL, 3 * ivl);
    }
    if (r->server_key[0] &&
        (zmq_setsockopt(r->sock, ZMQ_CURVE_SERVERKEY, r->server_key, 40) != 0 ||
         zmq_setsockopt(r->sock, ZMQ_CURVE_PUBLICKEY, r->client_public, 40) != 0 ||
         zmq_setsockopt(r->sock, ZMQ_CURVE_SECRETKEY, r->client_secret, 40) != 0)) {
        report(r, "%s: CURVE keys rejected: %s", endpoint, zmq_strerror(errno));
        seam_remote_close(&r);
        return NULL;
    }
    char mon_ep[64];
    snprintf(mon_ep, sizeof mon_ep, "inproc://seam-monitor-%p", (void *)r);
    zmq_socket_monitor(r->sock, mon_ep, ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                                            ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                            ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
    r->mon = zmq_socket(r->ctx, ZMQ_PAIR);
    set_int(r->mon, ZMQ_LINGER, 0);
    zmq_connect(r->mon, mon_ep);
    if (zmq_connect(r->sock, endpoint) != 0) {
        report(r, "cannot connect to %s: %s", endpoint, zmq_strerror(errno));
        seam_remote_close(&r);
        return NULL;
    }
    r->table = (seam_plugin){.abi = SEAM_ABI_VERSION, .name = r->plugin_name, .summary = r->summary,
                             .create = remote_create, .destroy = remote_destroy, .max_dt = remote_max_dt, .solve = remote_solve,
                             .commit = remote_commit};
    return r;
}

static uint32_t remote_capabilities(void *self)
{
    return ((seam_remote *)self)->caps;
}

/* Every optional entry the proxy can forward; hello copies those the
 * server's plugin provides into the remote's table. */
static const seam_plugin proxy_entries = {
    SEAM_PLUGIN_ENTRIES(WIRE_TABLE)   /* the shaped entries; then those by hand */
    .field = remote_field, .capabilities = remote_capabilities, .bodies = remote_bodies,
};

/* hello: versions, the plugin's name, role and optional functions. */
static uint64_t send_hello(seam_remote *r, unsigned version, double *deadline)
{
    seam_wbuf w;
    uint64_t id = begin_request(r, &w, "hello", 2, 0);
    seam_w_str(&w, "protocol");
    seam_w_uint(&w, version);
    seam_w_str(&w, "abi");
    seam_w_uint(&w, SEAM_ABI_VERSION);
    *deadline = r->o.start_timeout_s > 0 ? now_s() + r->o.start_timeout_s : INFINITY;
    bool sent = send_request(r, "hello", &w, r->o.start_timeout_s, *deadline);
    if (r->lost)
        abandon(r);
    return sent ? id : 0;
}

static bool await_hello(seam_remote *r, uint64_t id, double deadline, seam_msg *m)
{
    bool ok = await_reply(r, "hello", id, r->o.start_timeout_s, deadline, m);
    if (r->lost)
        abandon(r);
    return ok;
}

/* Say hello now and read the answer later (hello_finish): the server starts
 * while the coupler does other work. */
static bool hello_begin(seam_remote *r)
{
    r->hello_id = send_hello(r, SEAM_PROTOCOL_VERSION, &r->hello_deadline);
    return r->hello_id != 0;
}

static bool hello_finish(seam_remote *r)
{
    seam_msg m;
    uint64_t id = r->hello_id;
    r->hello_id = 0;
    if (!await_hello(r, id, r->hello_deadline, &m)) {
        char e[512] = "";
        if (r->lost || !seam_msg_strcpy(&m, "error", false, e, sizeof e) || !strstr(e, "protocol version"))
            return false;
        /* a server of an older protocol: speak its version (every array inline) */
        if (r->errbuf)
            r->errbuf[0] = '\0';
        double deadline;
        if (!(id = send_hello(r, SEAM_PROTOCOL_OLDEST, &deadline)) || !await_hello(r, id, deadline, &m))
            return false;
    }
    const char *role;
    size_t role_len;
    uint64_t abi = 0, proto = SEAM_PROTOCOL_OLDEST;
    seam_msg_uint(&m, "abi", true, &abi);
    seam_msg_uint(&m, "protocol", false, &proto);
    if (!m.error[0] && (proto < SEAM_PROTOCOL_OLDEST || proto > SEAM_PROTOCOL_VERSION))
        seam_msg_fail(&m, "the server speaks protocol %llu, this coupler %u to %u", (unsigned long long)proto,
                      SEAM_PROTOCOL_OLDEST, SEAM_PROTOCOL_VERSION);
    seam_msg_strcpy(&m, "plugin", true, r->plugin_name, sizeof r->plugin_name);
    seam_msg_strcpy(&m, "summary", false, r->summary, sizeof r->summary);
    int parsed = seam_msg_str(&m, "role", true, &role, &role_len) ? seam_wire_role_parse(role, role_len) : -1;
    if (!m.error[0] && parsed < 0)
        seam_msg_fail(&m, "field \"role\": unknown role \"%.*s\"", (int)role_len, role);
    if (!m.error[0] && abi < SEAM_ABI_OLDEST)
        seam_msg_fail(&m, "the server hosts plugin ABI %llu, this coupler speaks ABI %u to %u", (unsigned long long)abi,
                      SEAM_ABI_OLDEST, SEAM_ABI_VERSION);
    seam_mp items;
    size_t n = 0;
    seam_msg_array(&m, "functions", true, &items, &n);
    for (size_t i = 0; i < n && !m.error[0]; i++) {
        seam_mp_value v;
        if (!seam_mp_next(&items, &v) || v.kind != SEAM_MP_STR) {
            seam_msg_fail(&m, "field \"functions\": expected strings");
            break;
        }
        /* the proxy's entry of that name into the table (unknown names: a newer server) */
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(v.len < 63 ? v.len : 63), v.data);
        const seam_entry_info *e = seam_plugin_entry_find(name);
        if (e && e->need != SEAM_NEED_ALL && seam_plugin_has(&proxy_entries, e))
            memcpy((char *)&r->table + e->offset, (const char *)&proxy_entries + e->offset, sizeof(void (*)(void)));
    }
    if (m.error[0]) {
        report(r, "hello: bad reply from %s: %s", r->endpoint, m.error);
        return false;
    }
    r->table.role = (seam_role)parsed;
    r->proto = (unsigned)proto;
    return true;
}

/* r with its hello sent, or NULL (r closed) when even that failed. */
static seam_remote *started(seam_remote *r)
{
    if (r && !hello_begin(r))
        seam_remote_close(&r);
    if (r)
        r->errbuf = NULL;
    return r;
}

/* Wait for a started remote's hello: r, or NULL (r closed). */
static seam_remote *ready(seam_remote *r, char *err, size_t errlen)
{
    if (r && seam_remote_ready(r, err, errlen) != 0)
        seam_remote_close(&r);
    return r;
}

int seam_remote_ready(seam_remote *r, char *err, size_t errlen)
{
    if (!r->hello_id)
        return r->proto ? 0 : -1;   /* answered before, or its hello could not be sent */
    r->errbuf = err;
    r->errlen = errlen;
    if (errlen)
        err[0] = '\0';
    bool ok = hello_finish(r);
    const char *want = r->want_plugin;
    if (ok && want && strcmp(want, r->plugin_name) != 0 && !(strchr(want, '/') && strstr(want, r->plugin_name))) {
        report(r, "%s serves plugin \"%s\", but the scene asks for \"%s\"", r->child > 0 ? r->program : r->endpoint,
               r->plugin_name, want);
        ok = false;
    }
    r->errbuf = NULL;
    return ok ? 0 : -1;
}

static seam_remote *start_connect(const char *endpoint, const seam_remote_options *o, char *err, size_t errlen)
{
    seam_remote *r = open_remote(endpoint, o, false, err, errlen);
    if (r)
        r->moved = true;   /* started elsewhere, in a directory of its own */
    return started(r);
}

seam_remote *seam_remote_connect(const char *endpoint, const seam_remote_options *o, char *err, size_t errlen)
{
    return ready(start_connect(endpoint, o, err, errlen), err, errlen);
}

/* The seam-serve binary: $SEAM_SERVE, then the one next to the running
 * program (an installed seam uses its own prefix's, wherever the tree was
 * put, before any other), then the build tree's, then the configured
 * install prefix's. */
static bool find_serve(char *path, size_t n)
{
    const char *env = getenv("SEAM_SERVE");
    if (env && env[0] && access(env, X_OK) == 0) {
        snprintf(path, n, "%s", env);
        return true;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            snprintf(slash + 1, sizeof self - (size_t)(slash + 1 - self), "seam-serve");
            if (access(self, X_OK) == 0) {
                snprintf(path, n, "%s", self);
                return true;
            }
        }
    }
    const char *fixed[] = {SEAM_SERVE_BUILD_PATH, SEAM_SERVE_INSTALL_PATH};
    for (size_t i = 0; i < 2; i++)
        if (access(fixed[i], X_OK) == 0) {
            snprintf(path, n, "%s", fixed[i]);
            return true;
        }
    return false;
}

/* The reaper's side (a fork that execs nothing, so only async-signal-safe
 * calls: the coupler may have other threads): wait until the pipe's write
 * end, held by the coupler alone, closes. The coupler kills its reaper when it
 * cleaned up itself, so end of file means it died (a SIGKILL, a crash): then
 * remove the server's socket and private directory, give the server's process
 * group SEAM_REAP_GRACE_S to end on its death signal (PR_SET_PDEATHSIG) and
 * kill what is left of it. */
#define SEAM_REAP_GRACE_S 3
static _Noreturn void reap_when_orphaned(int fd, pid_t server, const char *sock_path, const char *dir)
{
    setpgid(0, 0);   /* a terminal's Ctrl-C is the coupler's alone; the coupler's own cleanup then kills this */
    if (fd != 3) {   /* keep no other pipe's write end: another reaper would wait on this process too */
        dup2(fd, 3);
        fd = 3;
    }
    int null = open("/dev/null", O_RDWR);   /* hold no terminal or pipe a caller waits on to close */
    for (int std = 0; std < 3 && null >= 0; std++)
        dup2(null, std);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
        for (int other = 4; other < 65536; other++)
            close(other);
    char byte;
    while (read(fd, &byte, 1) < 0 && errno == EINTR)
        ;
    unlink(sock_path);
    rmdir(dir);
    for (int i = 0; i < 10 * SEAM_REAP_GRACE_S && kill(-server, 0) == 0; i++)
        poll(NULL, 0, 100);
    kill(-server, SIGKILL);
    _exit(0);
}

/* Start the reaper of a launched server (reap_when_orphaned); false when
 * it could not be started (the run goes on without it). */
static bool start_reaper(seam_remote *r, pid_t server, const char *dir)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);   /* later servers must not keep it open */
    char sock_path[4200];
    snprintf(sock_path, sizeof sock_path, "%s/serve.sock", dir);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[1]);
        reap_when_orphaned(fds[0], server, sock_path, dir);
    }
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        return false;
    }
    r->reaper = pid;
    r->reaper_fd = fds[1];
    return true;
}

/* The coupler cleaned up itself: its reaper has nothing to do. */
static void stop_reaper(seam_remote *r)
{
    if (r->reaper <= 0)
        return;
    kill(r->reaper, SIGKILL);
    waitpid(r->reaper, NULL, 0);
    close(r->reaper_fd);
    r->reaper = 0;
}

/* Start argv[0] (searched on PATH when it has no slash) in `cwd` (NULL:
 * this directory) with `--bind ENDPOINT --once` appended, the endpoint an
 * ipc socket in a private directory, and say hello. `label` names it in
 * messages. */
static seam_remote *launch(const char *const *argv, const char *cwd, const char *label, const seam_remote_options *o,
                           char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/seam-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot make a private directory for the server's socket in %s: %s",
                 tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
        return NULL;
    }
    char endpoint[4200];
    snprintf(endpoint, sizeof endpoint, "ipc://%s/serve.sock", dir);
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **args = SEAM_NEW_N(char *, argc + 4);
    memcpy(args, argv, argc * sizeof *args);
    args[argc] = "--bind";
    args[argc + 1] = endpoint;
    args[argc + 2] = "--once";
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: %s", label, strerror(errno));
        free(args);
        rmdir(dir);
        return NULL;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* the server never outlives its coupler */
        /* a group of its own: a terminal's Ctrl-C reaches the coupler alone, which finishes its step (and its
         * checkpoint, through this server) before it stops the server */
        setpgid(0, 0);
        if (getppid() != parent)
            _exit(127);
        int null = open("/dev/null", O_WRONLY);   /* the ready line is for people, not for `seam run`'s output */
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        if (cwd && chdir(cwd) != 0) {
            dprintf(STDERR_FILENO, "seam: cannot enter %s to run %s: %s\n", cwd, label, strerror(errno));
            _exit(127);
        }
        execvp(args[0], args);
        dprintf(STDERR_FILENO, "seam: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(127);
    }
    free(args);
    setpgid(pid, pid);   /* also here: the group exists before the reaper may need it */
    seam_remote *r = open_remote(endpoint, o, true, err, errlen);
    if (!r) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        rmdir(dir);
        return NULL;
    }
    r->child = pid;
    start_reaper(r, pid, dir);
    r->moved = cwd != NULL;
    snprintf(r->program, sizeof r->program, "%s", label);
    snprintf(r->tmpdir, sizeof r->tmpdir, "%s", dir);
    return started(r);
}

static seam_remote *start_spawn(const char *plugin, const seam_remote_options *o, char *err, size_t errlen)
{
    char serve[4096];
    if (!find_serve(serve, sizeof serve)) {
        snprintf(err, errlen, "cannot find the seam-serve program (looked at $SEAM_SERVE, next to this program, "
                 "at %s and at %s)", SEAM_SERVE_BUILD_PATH, SEAM_SERVE_INSTALL_PATH);
        return NULL;
    }
    char heartbeat[32];
    snprintf(heartbeat, sizeof heartbeat, "%.17g", o->heartbeat_s > 0 ? o->heartbeat_s : 0.0);
    char self[32];   /* seam-serve exits at once when this process dies, and removes its ipc directory */
    snprintf(self, sizeof self, "%ld", (long)getpid());
    const char *argv[] = {serve, "--plugin", plugin, "--heartbeat", heartbeat, "--exit-with", self, NULL};
    return launch(argv, NULL, serve, o, err, errlen);   /* named by its path: which seam-serve ran */
}

seam_remote *seam_remote_spawn(const char *plugin, const seam_remote_options *o, char *err, size_t errlen)
{
    return ready(start_spawn(plugin, o, err, errlen), err, errlen);
}

static seam_remote *start_launch(const char *const *command, const char *cwd, const seam_remote_options *o,
                                 char *err, size_t errlen)
{
    if (!command || !command[0] || !command[0][0]) {
        snprintf(err, errlen, "an empty command");
        return NULL;
    }
    char label[256];   /* the program and its first argument: "python3 solver.py" */
    snprintf(label, sizeof label, "%s%s%s", command[0], command[1] ? " " : "", command[1] ? command[1] : "");
    return launch(command, cwd, label, o, err, errlen);
}

seam_remote *seam_remote_launch(const char *const *command, const char *cwd, const seam_remote_options *o,
                                char *err, size_t errlen)
{
    return ready(start_launch(command, cwd, o, err, errlen), err, errlen);
}

const seam_plugin *seam_remote_plugin(const seam_remote *r) { return &r->table; }
const char *seam_remote_endpoint(const seam_remote *r) { return r->endpoint; }
const char *seam_remote_program(const seam_remote *r) { return r->child > 0 ? r->program : NULL; }
long seam_remote_pid(const seam_remote *r) { return r->child > 0 ? (long)r->child : 0; }


/* Map every key path of the participant's object, and "" to the object itself, to where the scene says
 * it is, so the server's plugin can locate its messages like a local one (a key the scene does not write
 * at its nearest ancestor's place). */
static void write_locations(seam_wbuf *w, json_t *v, const char *path, const seam_host *host, size_t *count,
                            bool counting)
{
    const char *at = host->locate ? host->locate(host->ctx, path) : NULL;
    if (at) {
        if (!counting) {
            seam_w_str(w, path);
            seam_w_str(w, at);
        }
        (*count)++;
    }
    char sub[1024];
    if (json_is_object(v)) {
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child) {
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
            write_locations(w, child, sub, host, count, counting);
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            write_locations(w, json_array_get(v, i), sub, host, count, counting);
        }
    }
}

/* The table is the remote's first member: the table create was reached
 * through leads back to its remote. */
static void *remote_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    seam_remote *r = remote_of(plugin);
    r->host = host;
    json_t *cfg = json_loads(config_json, 0, NULL);
    size_t n_locs = 0;
    seam_wbuf w;
    if (cfg && host->locate)
        write_locations(&w, cfg, "", host, &n_locs, true);
    uint64_t id = begin_request(r, &w, "create", host->gravity ? 9 : 8, 0);
    seam_w_str(&w, "config");
    seam_w_str(&w, config_json);
    seam_w_str(&w, "name");
    seam_w_str(&w, host->name ? host->name : r->who);
    const char *strs[3][2] = {{"config_path", host->config_path}, {"output_dir", host->output_dir},
                              {"scene_dir", host->scene_dir}};
    char abs_path[2][8300];
    for (int i = 1; i < 3; i++)
        strs[i][1] = server_path(r, strs[i][1], abs_path[i - 1], sizeof abs_path[i - 1]);
    for (int i = 0; i < 3; i++) {
        seam_w_str(&w, strs[i][0]);
        if (strs[i][1])
            seam_w_str(&w, strs[i][1]);
        else
            seam_w_nil(&w);
    }
    seam_w_str(&w, "cell_size");
    seam_w_f64(&w, host->cell_size);
    if (host->gravity) {   /* the scene's gravity reaches the plugin as it would in-process */
        seam_w_str(&w, "gravity");
        seam_w_f64s(&w, host->gravity, 3);
    }
    seam_w_str(&w, "vtk");   /* the frame format, a host setting (ABI 6) */
    seam_w_str(&w, seam_vtk_format_names[seam_host_vtk_format(host)]);
    seam_w_str(&w, "locations");
    seam_w_map(&w, n_locs);
    size_t written = 0;
    if (n_locs)
        write_locations(&w, cfg, "", host, &written, false);
    json_decref(cfg);
    seam_msg m;
    if (!call(r, "create", id, &w, r->o.timeout_s, &m) || reply_status(r, "create", &m) != SEAM_OK) {
        r->host = NULL;   /* the table stays usable; its owner closes it */
        return NULL;
    }
    if (r->table.capabilities) {   /* fixed for the instance: asked once */
        uint64_t caps = 0, cid = begin_request(r, &w, "capabilities", 0, 0);
        if (!call(r, "capabilities", cid, &w, r->o.timeout_s, &m) ||
            !seam_msg_uint(&m, "capabilities", true, &caps) || caps > UINT32_MAX) {
            bad_reply(r, "capabilities", m.error);
            r->host = NULL;
            return NULL;
        }
        r->caps = (uint32_t)caps;
    }
    return r;
}

static void stop_child(seam_remote *r)
{
    if (r->child <= 0)
        return;
    int st;
    for (int i = 0; i < 300; i++) {   /* it exits by itself after bye (--once) */
        if (waitpid(r->child, &st, WNOHANG) == r->child) {
            r->child = 0;
            return;
        }
        if (i == 200)
            kill(r->child, SIGTERM);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(r->child, SIGKILL);
    waitpid(r->child, &st, 0);
    r->child = 0;
}

/* End the session (the server destroys its instance) and free everything.
 * With relay, the plugin's messages from its destroy reach the host, which
 * must still be valid (the instance's destroy); without, they are dropped. */
static void close_remote(seam_remote **self_p, bool relay)
{
    if (!self_p || !*self_p)
        return;
    seam_remote *r = *self_p;
    if (r->sock && !r->lost && r->handshaken) {   /* end the session so the server frees it now */
        seam_wbuf w;
        seam_msg m;
        if (!relay)
            r->host = NULL;   /* the coupler's host may be going away; nothing to say at bye */
        r->errbuf = NULL;
        uint64_t id = begin_request(r, &w, "bye", 0, 0);
        bool own = r->o.timeout_s > 0 && r->o.timeout_s < 5.0;
        if (!own)
            snprintf(r->limit_why, sizeof r->limit_why, "bye waits 5 s at most");
        r->ending = true;
        call(r, "bye", id, &w, own ? r->o.timeout_s : 5.0, &m);
    }
    seam_frames_free(&r->reply);
    if (r->mon) {
        zmq_socket_monitor(r->sock, NULL, 0);
        zmq_close(r->mon);
    }
    if (r->sock)
        zmq_close(r->sock);
    if (r->ctx)
        zmq_ctx_term(r->ctx);
    if (r->child > 0)   /* ours; after a bye without a step (validate) --once would keep it */
        kill(r->child, SIGTERM);
    stop_child(r);
    if (r->tmpdir[0]) {
        char sock_path[4200];
        snprintf(sock_path, sizeof sock_path, "%s/serve.sock", r->tmpdir);
        unlink(sock_path);
        rmdir(r->tmpdir);
    }
    stop_reaper(r);
    for (int e = 0; e < WIRE_E_COUNT; e++)
        wire_allocs_free(&r->kept[e]);
    for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++) {
        free(r->fc[k].got.data);
        free(r->fc[k].given.data);
    }
    free(r->centre); free(r->rotation); free(r->first); free(r->points);
    free(r->want_plugin);
    free(r);
    *self_p = NULL;
}

void seam_remote_close(seam_remote **self_p) { close_remote(self_p, false); }

/* The coupler's host lives until this returns: what the plugin says while
 * it is destroyed comes back with the bye reply and is passed on. */
static void remote_destroy(void *self)
{
    seam_remote *r = self;
    close_remote(&r, true);
}

/* ---- starting ----------------------------------------------------------- */

seam_remote *seam_remote_begin(const seam_remote_start *s, char *err, size_t errlen)
{
    err[0] = '\0';
    seam_remote *r = s->command ? start_launch(s->command, s->cwd, &s->o, err, errlen)
                     : s->connect ? start_connect(s->connect, &s->o, err, errlen)
                                  : start_spawn(s->plugin, &s->o, err, errlen);
    if (r && (s->connect || s->command) && s->plugin)   /* seam_remote_ready checks the server hosts it */
        r->want_plugin = seam_xstrdup(s->plugin);
    return r;
}
