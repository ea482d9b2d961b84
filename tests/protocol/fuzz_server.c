/* libFuzzer target: the coupler's side of the wire facing a hostile server.
 * A fake server (a thread with a ROUTER socket on a private ipc endpoint)
 * answers every request of seam's proxy (protocol/remote.c) with what a
 * real session hosting piston_solid answers, then mutates that reply as the
 * input says: bytes overwritten (wrong sizes, NaN, huge lengths), cut short,
 * grown, replaced by garbage, sent late (a slow drip), preceded by a stale
 * reply, given extra frames, or never sent. The coupler side (this thread)
 * runs a participant's life through the proxy: connect, create, describe,
 * capabilities, max_dt, two solves, commit, save, load, destroy.
 *
 * Every call must return within its timeout (and a second), with a status
 * the contract knows, and the first failed call must have said why through
 * the host (the proxy names a lost connection once); the sanitizers catch
 * the rest. Any breach aborts (a finding).
 *
 * Input: one mutation record per reply, in the order the requests come:
 * kind (byte), at (2 bytes, little endian), len (byte), then len bytes.
 *     bench: scripts/fuzz_ci.sh SECONDS (builds with clang, runs)
 * The committed corpus (tests/protocol/fuzz_server/, written by
 * fuzz_server_seeds.py) runs in the normal
 * suite through fuzz_replay.c, without libFuzzer. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "remote.h"
#include "session.h"
#include "wire.h"

#define TIMEOUT_S 0.3        /* the proxy's per-request limit */
#define DRIP_MS_MAX 400      /* the longest a reply is held back (past the timeout: a late reply) */

enum { KEEP, OVERWRITE, TRUNCATE, APPEND, SILENT, LATE, STALE_FIRST, EXTRA_FRAME, GARBAGE, N_KINDS };

typedef struct {
    const uint8_t *data;
    size_t size, at;         /* the input, and how far the replies have read it */
    char endpoint[256];
    volatile int stop;
} fake;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_server: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The next mutation record of the input (KEEP once it runs out). */
static int next_mutation(fake *f, size_t *at, const uint8_t **bytes, size_t *len)
{
    if (f->at + 4 > f->size) {
        f->at = f->size;
        return KEEP;
    }
    const uint8_t *p = f->data + f->at;
    int kind = p[0] % N_KINDS;
    *at = (size_t)p[1] | (size_t)p[2] << 8;
    *len = p[3];
    if (f->at + 4 + *len > f->size)
        *len = f->size - f->at - 4;
    *bytes = p + 4;
    f->at += 4 + *len;
    return kind;
}

static void send_parts(void *sock, zmq_msg_t *who, const uint8_t *map, size_t map_len, const seam_wbuf *w, bool extra)
{
    zmq_msg_t id;
    zmq_msg_init(&id);
    zmq_msg_copy(&id, who);
    zmq_msg_send(&id, sock, ZMQ_SNDMORE);
    bool more = w->n_att > 0 || extra;
    zmq_send(sock, map, map_len, more ? ZMQ_SNDMORE : 0);
    for (size_t a = 0; a < w->n_att; a++)
        zmq_send(sock, w->att[a].data, w->att[a].size, a + 1 < w->n_att || extra ? ZMQ_SNDMORE : 0);
    if (extra)
        zmq_send(sock, "\xcb\x7f\xf8\0\0\0\0\0\0", 9, 0);   /* a NaN, in a frame nobody asked for */
}

/* The fake server: a real session's reply, mutated. */
static void *serve(void *arg)
{
    fake *f = arg;
    void *ctx = zmq_ctx_new(), *sock = zmq_socket(ctx, ZMQ_ROUTER);
    int linger = 0, wait_ms = 50;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(sock, ZMQ_RCVTIMEO, &wait_ms, sizeof wait_ms);
    if (zmq_bind(sock, f->endpoint) != 0)
        die("cannot bind %s", f->endpoint);
    seam_session *s = seam_session_new(seam_plugin_v1());
    seam_frames in;
    seam_frames_init(&in);
    while (!f->stop) {
        zmq_msg_t who, first;
        zmq_msg_init(&who);
        if (zmq_msg_recv(&who, sock, 0) < 0) {
            zmq_msg_close(&who);
            continue;
        }
        zmq_msg_init(&first);
        if (!zmq_msg_more(&who) || seam_wire_recv_more(&first, sock) < 0 || seam_frames_recv(&in, sock, &first) != 0) {
            zmq_msg_close(&who);
            continue;
        }
        seam_wbuf w;
        bool ended;
        seam_session_handle_parts(s, in.part[0].data, in.part[0].len, in.part + 1, in.n - 1, &w, &ended);
        size_t at = 0, len = 0, n = w.sb.size;
        const uint8_t *bytes = NULL;
        char op[32] = "";
        uint64_t id = 0;
        seam_request_peek(in.part[0].data, in.part[0].len, op, sizeof op, &id);
        int kind = strcmp(op, "hello") == 0 ? KEEP : next_mutation(f, &at, &bytes, &len);   /* a session first */
        uint8_t *map = malloc(n + 256 + 1);
        memcpy(map, w.sb.data, n);
        switch (kind) {
        case OVERWRITE:
            for (size_t k = 0; k < len && n; k++)
                map[(at + k) % n] = bytes[k];
            break;
        case TRUNCATE:
            n = n ? at % n : 0;
            break;
        case APPEND:
            memcpy(map + n, bytes, len);
            n += len;
            break;
        case GARBAGE:
            memcpy(map, bytes, len);
            n = len;
            break;
        case LATE:
            usleep((useconds_t)(at % DRIP_MS_MAX) * 1000u);
            break;
        case STALE_FIRST: {   /* an answer to an earlier request first: the proxy must skip it */
            seam_wbuf old;
            seam_reply_error(&old, id ? id - 1 : 0, "stale");
            send_parts(sock, &who, (const uint8_t *)old.sb.data, old.sb.size, &old, false);
            seam_wbuf_free(&old);
            break;
        }
        default:
            break;
        }
        if (kind != SILENT)
            send_parts(sock, &who, map, n, &w, kind == EXTRA_FRAME);
        free(map);
        seam_wbuf_free(&w);
        zmq_msg_close(&who);
    }
    seam_frames_free(&in);
    seam_session_destroy(&s);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return NULL;
}

typedef struct {
    int errors;
    bool failed;             /* a call failed: the proxy reports a lost connection once, not at every later call */
    char last[512];
} host_log;

static void on_log(void *ctx, seam_log_level level, const char *message)
{
    host_log *h = ctx;
    if (level >= SEAM_LOG_WARN)
        h->errors++;
    snprintf(h->last, sizeof h->last, "%s", message);
}

/* A call's status: one the contract knows, in time, and said why when it failed. */
static void check(const char *what, seam_status st, double t0, host_log *h, int errors_before)
{
    double took = now_s() - t0;
    if (st != SEAM_OK && st != SEAM_ERROR && st != SEAM_UNSTABLE)
        die("%s: status %d", what, (int)st);
    if (took > TIMEOUT_S + 1.0)
        die("%s: %.2f s, past the %.1f s timeout", what, took, TIMEOUT_S);
    if (st == SEAM_ERROR && h->errors == errors_before && !h->failed)
        die("%s failed without a message", what);
    h->failed |= st == SEAM_ERROR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned serial;
    fake f = {.data = data, .size = size};
    snprintf(f.endpoint, sizeof f.endpoint, "ipc:///tmp/seam-fuzz-server-%d-%u.sock", (int)getpid(), serial++);
    pthread_t server;
    pthread_create(&server, NULL, serve, &f);
    char err[2048] = "";
    seam_remote_options o = {.name = "fuzzed", .timeout_s = TIMEOUT_S, .heartbeat_s = 0, .start_timeout_s = 2};
    seam_remote *r = seam_remote_connect(f.endpoint, &o, err, sizeof err);
    if (!r)
        die("the hello went unanswered: %s", err);   /* it is never mutated */
    const seam_plugin *p = seam_remote_plugin(r);
    host_log h = {0, false, ""};
    seam_host host = {.abi = SEAM_ABI_VERSION, .ctx = &h, .log = on_log, .name = "fuzzed"};
    double t0 = now_s();
    void *self = p->create(p, "{\"mass\": 1, \"stiffness\": 4, \"position\": 0.1}", &host);
    if (!self) {
        if (!h.errors)
            die("create failed without a message");
        seam_remote_close(&r);
    } else {
        int e = h.errors;
        seam_interface iface;
        t0 = now_s();
        check("describe", p->describe ? p->describe(self, &iface) : SEAM_OK, t0, &h, e);
        double dt = 0.0, F = 1.5, X = NAN, V = NAN;
        e = h.errors, t0 = now_s();
        check("max_dt", p->max_dt(self, &dt), t0, &h, e);
        for (int it = 0; it < 2; it++) {
            seam_step step = {.index = 1, .t = 0.01, .dt = 0.01, .iteration = it};
            seam_input in = {.n = 1, .dim = 1, .F = &F};
            seam_output out = {.n = 1, .dim = 1, .X = &X, .V = &V};
            e = h.errors, t0 = now_s();
            check("solve", p->solve(self, &step, &in, &out), t0, &h, e);
        }
        e = h.errors, t0 = now_s();
        check("commit", p->commit(self), t0, &h, e);
        if (p->save && p->load) {
            seam_buffer img = {NULL, 0};
            e = h.errors, t0 = now_s();
            seam_status st = p->save(self, &img);
            check("save", st, t0, &h, e);
            if (st == SEAM_OK) {
                void *copy = malloc(img.size + 1);
                if (img.size)
                    memcpy(copy, img.data, img.size);   /* the proxy owns img until the next call */
                e = h.errors, t0 = now_s();
                check("load", p->load(self, copy, img.size), t0, &h, e);
                free(copy);
            }
        }
        p->destroy(self);   /* bye; closes r */
    }
    f.stop = 1;
    pthread_join(server, NULL);
    unlink(f.endpoint + 6);   /* ZeroMQ leaves an ipc socket's file behind */
    return 0;
}
