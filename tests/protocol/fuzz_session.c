/* libFuzzer target: whole sessions through seam-serve's own loop. The real
 * seam_serve (serve.c: ROUTER socket, envelopes, frames, ownership, probes)
 * runs in a thread on an inproc endpoint, hosting piston_solid or
 * piston_fluid (one server each, started once); the input is a sequence of
 * requests that two coupler peers (DEALER sockets) send it, one at a time,
 * each waiting for its reply.
 *
 * Input: byte 0 picks the server (even: piston_solid, odd: piston_fluid);
 * the rest is cut into requests at each RSEP (c1 c1 c1 c2), and a request
 * into frames at each FSEP (c1 c1 c1 c1; 0xc1 is a byte MessagePack never
 * uses). A request's first byte says who sends it and how: bit 0 peer B
 * (else A), bit 1 the peer reconnects first (a new routing id: the old one
 * vanished without bye), bit 2 an empty delimiter frame first (as a REQ
 * socket sends). The frames follow: the map, then out-of-band arrays.
 *
 * Every request must get exactly one reply, within 10 s, that parses with
 * its frames, carries the request's id (when the request's map has one),
 * ok as a bool, an error text when not ok, a log array, and UTF-8 in every
 * string (PROTOCOL.md); the server may send nothing else but probes
 * ({id: 0, probe: true}) to a peer that is not the owner. After each input
 * both peers say hello and bye, so the next input meets a server with no
 * coupler, as a fresh one. Any breach aborts (a finding).
 *
 *     bench/protocol/fuzz_session.sh SECONDS      (builds with clang, runs)
 * The committed corpus (tests/protocol/fuzz_session/) also runs in the
 * normal suite through fuzz_replay.c, without libFuzzer. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "seam/loader.h"
#include "serve.h"
#include "session.h"
#include "wire.h"
#include "bare_request.h"

#define N_SERVERS 2
#define MAX_REQUESTS 64
#define MAX_FRAMES 64
#define REPLY_WAIT_MS 10000

static const char *const plugin_names[N_SERVERS] = {"piston_solid", "piston_fluid"};

typedef struct {
    seam_library *lib;
    char endpoint[64];
    pthread_t thread;
    int rc;
    char err[512];
} server;

static void *zctx;
static server servers[N_SERVERS];
static volatile sig_atomic_t stop_servers;
static void *peer[N_SERVERS][2];   /* the two couplers' DEALER sockets, per server */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_session: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

static void *serve_thread(void *arg)
{
    server *s = arg;
    seam_serve_options o = {.bind = s->endpoint, .heartbeat_s = 0.0, .stop = &stop_servers, .zmq_ctx = zctx};
    s->rc = seam_serve(seam_library_plugin(s->lib), &o, s->err, sizeof s->err);
    return NULL;
}

static void *new_peer(const char *endpoint)
{
    void *sock = zmq_socket(zctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(sock, endpoint) != 0)
        die("cannot connect to %s", endpoint);
    return sock;
}

static void stop_all(void)
{
    stop_servers = 1;
    for (int k = 0; k < N_SERVERS; k++) {
        pthread_join(servers[k].thread, NULL);
        for (int p = 0; p < 2; p++)
            zmq_close(peer[k][p]);
        seam_library_close(&servers[k].lib);
    }
    zmq_ctx_term(zctx);
}

static void start_all(void)
{
    zctx = zmq_ctx_new();
    for (int k = 0; k < N_SERVERS; k++) {
        char err[1024];
        servers[k].lib = seam_library_open(plugin_names[k], err, sizeof err);
        if (!servers[k].lib)
            die("%s", err);
        snprintf(servers[k].endpoint, sizeof servers[k].endpoint, "inproc://seam-fuzz-%d", k);
        pthread_create(&servers[k].thread, NULL, serve_thread, &servers[k]);
    }
    for (int k = 0; k < N_SERVERS; k++)   /* inproc: connecting before the bind is allowed */
        for (int p = 0; p < 2; p++)
            peer[k][p] = new_peer(servers[k].endpoint);
    atexit(stop_all);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * the checker's own, not session.c's, so a bug there is not its own oracle. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n || (len == 2 && c < 0xc2) || (len == 4 && c > 0xf4))
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (len == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;
    if (len == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
        return 0;
    return len;
}

/* Every string in the value at c (and below it) is UTF-8. */
static bool strings_are_utf8(seam_mp *c, int depth)
{
    seam_mp_value v;
    if (depth > SEAM_WIRE_MAX_DEPTH || !seam_mp_next(c, &v))
        return false;
    if (v.kind == SEAM_MP_STR)
        for (size_t i = 0, len; i < v.len; i += len)
            if (!(len = utf8_len(v.data + i, v.len - i)))
                return false;
    size_t items = v.kind == SEAM_MP_ARRAY ? v.len : v.kind == SEAM_MP_MAP ? 2 * v.len : 0;
    for (size_t i = 0; i < items; i++)
        if (!strings_are_utf8(c, depth + 1))
            return false;
    return true;
}

typedef struct {
    zmq_msg_t *frame;
    size_t n, cap;
} message;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Receive one whole message on sock within wait_ms (0: only if one is
 * there); false when none came. A signal (libFuzzer's SIGALRM, which checks
 * its -timeout) only interrupts the wait. */
static bool receive(void *sock, message *msg, int wait_ms)
{
    zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
    double deadline = now_ms() + wait_ms;
    int ready;
    while ((ready = zmq_poll(&it, 1, wait_ms)) < 0 && zmq_errno() == EINTR)
        wait_ms = deadline > now_ms() ? (int)(deadline - now_ms()) : 0;
    if (ready < 0)
        die("waiting for a reply failed: %s", zmq_strerror(zmq_errno()));
    if (ready == 0)
        return false;
    *msg = (message){0};
    for (int more = 1; more;) {
        if (msg->n == msg->cap) {
            msg->cap = msg->cap ? 2 * msg->cap : 8;
            if (!(msg->frame = realloc(msg->frame, msg->cap * sizeof *msg->frame)))
                die("no memory for a reply of %zu frames", msg->n);
        }
        zmq_msg_t *f = &msg->frame[msg->n];
        zmq_msg_init(f);
        int rc;
        while ((rc = zmq_msg_recv(f, sock, 0)) < 0 && zmq_errno() == EINTR)
            continue;
        if (rc < 0)
            die("receiving a reply failed after %zu frames: %s", msg->n, zmq_strerror(zmq_errno()));
        more = zmq_msg_more(f);
        msg->n++;
    }
    return true;
}

static void message_close(message *msg)
{
    for (size_t i = 0; i < msg->n; i++)
        zmq_msg_close(&msg->frame[i]);
    free(msg->frame);
    *msg = (message){0};
}

typedef struct {
    uint64_t id;
    bool ok, probe;
} reply;

/* Check msg as a reply to request `at` (after `skip` delimiter frames). */
static reply check_reply(message *msg, size_t skip, size_t at)
{
    if (msg->n <= skip)
        die("request %zu: a reply without a map", at);
    for (size_t i = 0; i < skip; i++)
        if (zmq_msg_size(&msg->frame[i]) != 0)
            die("request %zu: its delimiter came back not empty", at);
    size_t n_parts = msg->n - skip - 1;
    seam_part *parts = calloc(n_parts + 1, sizeof *parts);
    for (size_t i = 0; i < n_parts; i++)
        parts[i] = (seam_part){zmq_msg_data(&msg->frame[skip + 1 + i]), zmq_msg_size(&msg->frame[skip + 1 + i])};
    seam_msg m;
    const uint8_t *map = zmq_msg_data(&msg->frame[skip]);
    size_t len = zmq_msg_size(&msg->frame[skip]);
    if (!seam_msg_parse_parts(&m, map, len, parts, n_parts))
        die("request %zu: the reply does not parse: %s", at, m.error);
    reply r = {0};
    seam_msg_uint(&m, "id", true, &r.id);
    seam_msg_bool(&m, "ok", true, &r.ok);
    seam_msg_bool(&m, "probe", false, &r.probe);
    seam_mp items;
    size_t n_log;
    if (!r.probe)   /* a probe is {id: 0, ok: true, probe: true} alone */
        seam_msg_array(&m, "log", true, &items, &n_log);
    const char *error;
    size_t elen;
    if (!r.ok)
        seam_msg_str(&m, "error", true, &error, &elen);
    if (m.error[0])
        die("request %zu: the reply breaks the protocol: %s", at, m.error);
    if (r.probe && r.id != 0)
        die("request %zu: a probe with id %llu", at, (unsigned long long)r.id);
    seam_mp c = {map, map + len};
    if (!strings_are_utf8(&c, 0))
        die("request %zu: the reply holds a string that is not UTF-8", at);
    free(parts);
    return r;
}

/* Send one request (its frames as given, a REQ peer's delimiter first when
 * asked) from peer p of server k; wait for its reply, check it and return it. */
static reply exchange(int k, int p, bool req_style, const seam_part *frames, size_t n_frames, size_t at)
{
    void *sock = peer[k][p];
    message msg;
    while (receive(sock, &msg, 0)) {   /* between replies only probes may come */
        if (!check_reply(&msg, 0, at).probe)
            die("request %zu: a reply nobody asked for came before it", at);
        message_close(&msg);
    }
    if (req_style)
        zmq_send(sock, "", 0, ZMQ_SNDMORE);
    for (size_t i = 0; i < n_frames; i++)
        zmq_send(sock, frames[i].data, frames[i].len, i + 1 < n_frames ? ZMQ_SNDMORE : 0);
    /* the server takes an empty first frame with more after it as the delimiter */
    bool delimited = req_style || (n_frames > 1 && frames[0].len == 0);
    const seam_part *map = frames + (delimited && !req_style);
    seam_msg req;
    uint64_t want = 0;
    bool has_id = seam_msg_parse(&req, map->data, map->len) && seam_msg_uint(&req, "id", true, &want);
    for (;;) {
        if (!receive(sock, &msg, REPLY_WAIT_MS))
            die("request %zu: no reply within %d ms (server: %s)", at, REPLY_WAIT_MS,
                servers[k].err[0] ? servers[k].err : "running");
        reply r = check_reply(&msg, delimited, at);
        message_close(&msg);
        if (r.probe)
            continue;
        if (has_id && r.id != want)
            die("request %zu: the reply carries id %llu, not %llu", at, (unsigned long long)r.id,
                (unsigned long long)want);
        return r;
    }
}

/* A well-formed request of one op (hello with this side's versions). */
static reply send_op(int k, int p, const char *op, uint64_t id, size_t at)
{
    seam_wbuf w;
    bare_request(&w, op, id);
    seam_part f = {(const uint8_t *)w.sb.data, w.sb.size};
    reply r = exchange(k, p, false, &f, 1, at);
    seam_wbuf_free(&w);
    return r;
}

/* End the session, whoever owns it, so the next input starts afresh: a live
 * owner says bye; a vanished one is found by the probe of the next hello,
 * which ZeroMQ answers once the old pipe's end has reached the server. */
static void end_session(int k, size_t at)
{
    for (int p = 1; p >= 0; p--)
        if (send_op(k, p, "hello", 1, at).ok) {
            send_op(k, p, "bye", 2, at);
            return;
        }
    for (int tries = 0; tries < 1000; tries++) {
        if (send_op(k, 0, "hello", 1, at).ok) {
            send_op(k, 0, "bye", 2, at);
            return;
        }
        usleep(1000);
    }
    die("request %zu: after the input, no peer gets the server for 1 s", at);
}

static const uint8_t FSEP[4] = {0xc1, 0xc1, 0xc1, 0xc1};
static const uint8_t RSEP[4] = {0xc1, 0xc1, 0xc1, 0xc2};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!zctx)
        start_all();
    if (size < 2)
        return 0;
    int k = data[0] % N_SERVERS;
    size_t pos = 1, n_req = 0;
    while (pos < size && n_req < MAX_REQUESTS) {
        size_t end = pos;   /* this request: [pos, end) */
        while (end + 4 <= size && memcmp(data + end, RSEP, 4) != 0)
            end++;
        if (end + 4 > size)
            end = size;
        uint8_t how = data[pos];
        int p = how & 1;
        if (how & 2) {   /* the peer vanishes without bye and comes back as a new one */
            zmq_close(peer[k][p]);
            peer[k][p] = new_peer(servers[k].endpoint);
            usleep(2000);   /* time for the old pipe's end to reach the server (ZeroMQ tells it asynchronously) */
        }
        seam_part frame[MAX_FRAMES];
        size_t n = 0, start = pos + 1;
        for (size_t i = start; i + 4 <= end && n < MAX_FRAMES - 1; i++)
            if (memcmp(data + i, FSEP, 4) == 0) {
                frame[n++] = (seam_part){data + start, i - start};
                start = i + 4;
                i += 3;
            }
        frame[n++] = (seam_part){data + start, end > start ? end - start : 0};
        exchange(k, p, how & 4, frame, n, n_req);
        n_req++;
        pos = end + 4;
    }
    end_session(k, n_req);
    return 0;
}
