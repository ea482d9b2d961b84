/* The server loop: ROUTER socket, ZAP authentication, one coupler at a time.
 * The loop's thread reads a request, calls the plugin, replies. When a call
 * into the plugin runs past a tick, a stand-in thread takes the sockets
 * over until it returns, so a plugin deep in a long solve does not keep the
 * server from answering other clients "busy". */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "serve.h"
#include "session.h"

#define MAX_ENVELOPE 2       /* routing id, optional empty delimiter (REQ peers) */
#define MAX_WAITING 8        /* requests held while the plugin works; more are answered "busy" */
#define N_SLOTS (MAX_WAITING + 2)   /* the held ones, the one in the plugin, the one being read */
#define WAIT_MS 200          /* the longest wait for a request before the loop looks at its stop flag */
#define TICK_MS 50           /* a plugin call still running at two ticks in a row is a long one */
#define KEEP_BUFFER ((size_t)1 << 20)   /* a slot keeps a larger frame buffer only if its request was served */

/* The host of a tcp:// endpoint (without the port) into buf; false when
 * the endpoint is not "tcp://HOST:PORT" in one piece (ZeroMQ's
 * "source;destination" form included). */
static bool tcp_host(const char *e, char *buf, size_t n)
{
    if (strncmp(e, "tcp://", 6) != 0 || strchr(e, ';'))
        return false;
    const char *host = e + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host || (size_t)(colon - host) >= n)
        return false;
    memcpy(buf, host, (size_t)(colon - host));
    buf[colon - host] = '\0';
    return true;
}

bool seam_endpoint_is_local(const char *e)
{
    if (strncmp(e, "ipc://", 6) == 0 || strncmp(e, "inproc://", 9) == 0)
        return !strchr(e, ';');
    char host[256];
    struct in_addr a;
    if (!tcp_host(e, host, sizeof host))
        return false;
    if (strcmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0)
        return true;
    return inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* What ZeroMQ binds for endpoint e: it binds interfaces and addresses, not
 * host names, so "localhost" is 127.0.0.1; an IPv6 address needs ZMQ_IPV6. */
static void bind_address(const char *e, char *buf, size_t n, bool *ipv6)
{
    char host[256];
    *ipv6 = false;
    if (tcp_host(e, host, sizeof host) && strcmp(host, "localhost") == 0) {
        snprintf(buf, n, "tcp://127.0.0.1%s", strrchr(e, ':'));
        return;
    }
    *ipv6 = tcp_host(e, host, sizeof host) && host[0] == '[';
    snprintf(buf, n, "%s", e);
}

/* One ZAP request (RFC 27): allow a CURVE client whose key is listed. */
static void zap_answer(void *zap, const seam_serve_options *o)
{
    zmq_msg_t part[7];
    int n = 0, more = 1;
    while (more && n < 7) {
        zmq_msg_init(&part[n]);
        if ((n == 0 ? zmq_msg_recv(&part[n], zap, 0) : seam_wire_recv_more(&part[n], zap)) < 0)
            break;
        more = zmq_msg_more(&part[n]);
        n++;
    }
    const char *status = "400", *text = "key not allowed";
    if (n == 7 && zmq_msg_size(&part[5]) == 5 && memcmp(zmq_msg_data(&part[5]), "CURVE", 5) == 0 &&
        zmq_msg_size(&part[6]) == 32) {
        char z85[41];
        zmq_z85_encode(z85, zmq_msg_data(&part[6]), 32);
        for (size_t i = 0; i < o->n_allow; i++)
            if (strcmp(o->allow[i], z85) == 0)
                status = "200", text = "OK";
    }
    if (n >= 2) {
        zmq_send(zap, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(zap, zmq_msg_data(&part[1]), zmq_msg_size(&part[1]), ZMQ_SNDMORE);   /* request id */
        zmq_send(zap, status, 3, ZMQ_SNDMORE);
        zmq_send(zap, text, strlen(text), ZMQ_SNDMORE);
        zmq_send(zap, "", 0, ZMQ_SNDMORE);
        zmq_send(zap, "", 0, 0);
    }
    for (int i = 0; i < n; i++)
        zmq_msg_close(&part[i]);
    while (more) {   /* drain a malformed request so the REP socket can answer the next */
        zmq_msg_t rest;
        zmq_msg_init(&rest);
        more = seam_wire_recv_more(&rest, zap) >= 0 && zmq_msg_more(&rest);
        zmq_msg_close(&rest);
    }
}

/* Send the envelope, then the reply (its arrays without copying them). */
static int send_reply(void *sock, zmq_msg_t *env, int n_env, seam_wbuf *w)
{
    for (int i = 0; i < n_env; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &env[i]);
        if (zmq_msg_send(&copy, sock, ZMQ_SNDMORE) < 0) {
            zmq_msg_close(&copy);
            seam_wbuf_free(w);
            return -1;
        }
    }
    if (seam_wire_send(sock, w, 0, NULL) < 0) {
        seam_wbuf_free(w);
        return -1;
    }
    return 0;
}

/* Whether the peer with this routing id is still connected: a reply with id
 * 0 (which clients ignore) cannot be routed to a vanished peer. */
static bool peer_alive(void *sock, zmq_msg_t *owner)
{
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, 3);
    seam_w_str(&w, "id");
    seam_w_uint(&w, 0);
    seam_w_str(&w, "ok");
    seam_w_bool(&w, true);
    seam_w_str(&w, "probe");
    seam_w_bool(&w, true);
    zmq_msg_t env;
    zmq_msg_init(&env);
    zmq_msg_copy(&env, owner);
    int rc = send_reply(sock, &env, 1, &w);
    zmq_msg_close(&env);
    return rc == 0;
}

static bool same_peer(zmq_msg_t *a, zmq_msg_t *b)
{
    return zmq_msg_size(a) == zmq_msg_size(b) && memcmp(zmq_msg_data(a), zmq_msg_data(b), zmq_msg_size(a)) == 0;
}

/* One request as read off the socket. */
typedef struct {
    zmq_msg_t env[MAX_ENVELOPE];
    int n_env;
    seam_frames payload;
    int got;                 /* 0: a request; 2: over the limits; 3: no memory for its frames */
    char op[32];             /* its op and id, when its map says (seam_request_peek) */
    uint64_t id;
    bool in_use;
} request;

/* Receive one request into r: the envelope (routing id, and the empty
 * delimiter of a REQ peer) and the payload frames (the map, then
 * out-of-band arrays). Only the first read may be interrupted and left for
 * the next poll; once a frame is in, the rest of the message is read (see
 * seam_wire_recv_more). 0: a request (r->got says which); -1: interrupted,
 * nothing came (ZMQ_RCVTIMEO) or a later frame failed; -2: the first receive
 * failed otherwise (errno says why); 1: no payload (nothing to answer). */
static int recv_request(void *sock, request *r)
{
    r->n_env = 0;
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, 0) < 0) {
        int e = errno;
        zmq_msg_close(&f);
        errno = e;
        return e == EAGAIN || e == EINTR ? -1 : -2;
    }
    bool more = zmq_msg_more(&f);
    r->env[r->n_env++] = f;
    if (!more)
        goto drop;
    zmq_msg_init(&f);
    if (seam_wire_recv_more(&f, sock) < 0)
        goto fail;
    if (zmq_msg_size(&f) == 0 && zmq_msg_more(&f)) {   /* a REQ peer's delimiter */
        r->env[r->n_env++] = f;
        zmq_msg_init(&f);
        if (seam_wire_recv_more(&f, sock) < 0)
            goto fail;
    }
    int rc = seam_frames_recv(&r->payload, sock, &f);
    if (rc < 0)
        goto drop;
    r->got = rc == 0 ? 0 : rc == SEAM_FRAMES_OVER ? 2 : 3;
    r->op[0] = '\0';
    r->id = 0;
    seam_request_peek(r->payload.part[0].data, r->payload.part[0].len, r->op, sizeof r->op, &r->id);
    return 0;
fail:
    zmq_msg_close(&f);
    for (int i = 0; i < r->n_env; i++)
        zmq_msg_close(&r->env[i]);
    r->n_env = 0;
    return -1;
drop:
    for (int i = 0; i < r->n_env; i++)
        zmq_msg_close(&r->env[i]);
    r->n_env = 0;
    return 1;
}

/* ---- the loop and its stand-in ------------------------------------------- */

/* The stand-in's half: it looks at the loop's thread every tick and, when
 * that thread is in one plugin call at two ticks in a row, takes the
 * sockets until the call returns. Handing them over under the mutex is the
 * full memory barrier ZeroMQ asks for when a socket changes threads. */
typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t tick;     /* the stand-in waits on it (signalled to quit) */
    pthread_cond_t back;     /* the loop waits on it for its sockets */
    int wake[2];             /* a byte: the loop wants its sockets back */
    uint64_t call;           /* plugin calls begun */
    bool in_call;            /* the loop's thread is in the plugin */
    bool has_sockets;        /* the stand-in polls them */
    bool quit;
} standin;

typedef struct {
    void *sock, *zap;
    const seam_plugin *p;
    const seam_serve_options *o;
    seam_session *s;
    standin sb;
    request slot[N_SLOTS];
    request *waiting[MAX_WAITING];   /* held, in arrival order, for the loop */
    int n_waiting;
    request *current;                /* the one the plugin works on */
    zmq_msg_t owner;
    bool has_owner, done;
} server;

static request *free_slot(server *v)
{
    for (int i = 0; i < N_SLOTS; i++)
        if (!v->slot[i].in_use)
            return &v->slot[i];
    return NULL;
}

/* Send r's reply (w, freed) and free the slot; a slot whose request went
 * unserved drops a large frame buffer rather than keep it. */
static void answer(server *v, request *r, seam_wbuf *w, bool served)
{
    send_reply(v->sock, r->env, r->n_env, w);
    for (int i = 0; i < r->n_env; i++)
        zmq_msg_close(&r->env[i]);
    r->n_env = 0;
    if (!served && r->payload.buf_cap > KEEP_BUFFER)
        seam_frames_free(&r->payload);
    else
        seam_frames_clear(&r->payload);
    r->in_use = false;
}

static void answer_busy(server *v, request *r, const char *why)
{
    seam_wbuf w;
    if (why)
        seam_reply_error(&w, r->id, "busy: %s", why);
    else
        seam_reply_error(&w, r->id, "busy: plugin \"%s\" is serving another coupler", v->p->name);
    answer(v, r, &w, false);
}

/* A request that comes while the plugin works: "busy" for another client
 * while a coupler owns the server (unless the owner is leaving, or has
 * vanished and a newcomer says hello: those wait); the rest wait their turn
 * (PROTOCOL.md, Sessions). */
static void take_while_busy(server *v, request *r)
{
    bool mine = v->has_owner && r->n_env > 0 && same_peer(&r->env[0], &v->owner);
    bool leaving = strcmp(v->current->op, "bye") == 0;
    if (v->has_owner && !mine && !leaving && (strcmp(r->op, "hello") != 0 || peer_alive(v->sock, &v->owner))) {
        answer_busy(v, r, NULL);
        return;
    }
    if (v->n_waiting == MAX_WAITING) {
        char why[160];
        snprintf(why, sizeof why, "%d requests already wait for plugin \"%s\"", MAX_WAITING, v->p->name);
        answer_busy(v, r, why);
        return;
    }
    v->waiting[v->n_waiting++] = r;
}

/* The stand-in with the sockets: until the loop wants them back. */
static void stand_in(server *v)
{
    char byte;
    for (;;) {
        zmq_pollitem_t items[3] = {{NULL, v->sb.wake[0], ZMQ_POLLIN, 0}, {v->sock, 0, ZMQ_POLLIN, 0},
                                   {v->zap, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, v->zap ? 3 : 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;   /* the loop will find the failure itself: wait for it */
        }
        if (items[0].revents & ZMQ_POLLIN)
            break;
        if (v->zap && (items[2].revents & ZMQ_POLLIN))
            zap_answer(v->zap, v->o);
        if (!(items[1].revents & ZMQ_POLLIN))
            continue;
        request *r = free_slot(v);   /* there always is one: N_SLOTS counts every holder */
        if (recv_request(v->sock, r) != 0) {
            seam_frames_clear(&r->payload);
            continue;
        }
        r->in_use = true;
        take_while_busy(v, r);
    }
    while (read(v->sb.wake[0], &byte, 1) < 0 && errno == EINTR)
        continue;
}

static void *standin_main(void *arg)
{
    server *v = arg;
    standin *sb = &v->sb;
    uint64_t seen = 0;   /* the call in progress at the last tick; 0: none */
    pthread_mutex_lock(&sb->lock);
    while (!sb->quit) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&sb->tick, &sb->lock, &until);
        if (sb->quit)
            break;
        if (!sb->in_call || sb->call != seen) {
            seen = sb->in_call ? sb->call : 0;
            continue;
        }
        sb->has_sockets = true;
        pthread_mutex_unlock(&sb->lock);
        stand_in(v);
        pthread_mutex_lock(&sb->lock);
        sb->has_sockets = false;
        seen = 0;
        pthread_cond_signal(&sb->back);
    }
    pthread_mutex_unlock(&sb->lock);
    return NULL;
}

/* Start the stand-in. It runs with the asynchronous signals blocked, so
 * they keep reaching the loop's thread. 0, or -1 with errno. */
static int standin_start(server *v)
{
    standin *sb = &v->sb;
    if (pipe(sb->wake) != 0)
        return -1;
    fcntl(sb->wake[0], F_SETFD, FD_CLOEXEC);   /* a plugin that starts a process does not hand them on */
    fcntl(sb->wake[1], F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&sb->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&sb->tick, &attr);
    pthread_condattr_destroy(&attr);
    pthread_cond_init(&sb->back, NULL);
    sigset_t all, old;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};   /* its own, if any */
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&sb->thread, NULL, standin_main, v);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_mutex_destroy(&sb->lock);
        pthread_cond_destroy(&sb->tick);
        pthread_cond_destroy(&sb->back);
        close(sb->wake[0]);
        close(sb->wake[1]);
        errno = rc;
        return -1;
    }
    return 0;
}

static void standin_stop(server *v)
{
    standin *sb = &v->sb;
    pthread_mutex_lock(&sb->lock);
    sb->quit = true;
    pthread_cond_signal(&sb->tick);
    pthread_mutex_unlock(&sb->lock);
    pthread_join(sb->thread, NULL);
    pthread_mutex_destroy(&sb->lock);
    pthread_cond_destroy(&sb->tick);
    pthread_cond_destroy(&sb->back);
    close(sb->wake[0]);
    close(sb->wake[1]);
}

/* The loop's thread goes into the plugin for request r: the stand-in may
 * take the sockets while it is there. */
static void plugin_enter(server *v, request *r)
{
    if (v->o->busy)
        *v->o->busy = 1;
    v->current = r;
    pthread_mutex_lock(&v->sb.lock);
    v->sb.call++;
    v->sb.in_call = true;
    pthread_mutex_unlock(&v->sb.lock);
}

/* Back from the plugin: the sockets back from the stand-in, if it has them. */
static void plugin_leave(server *v)
{
    pthread_mutex_lock(&v->sb.lock);
    v->sb.in_call = false;
    if (v->sb.has_sockets) {
        while (write(v->sb.wake[1], "", 1) < 0 && errno == EINTR)
            continue;
        while (v->sb.has_sockets)
            pthread_cond_wait(&v->sb.back, &v->sb.lock);
    }
    pthread_mutex_unlock(&v->sb.lock);
    if (v->o->busy)
        *v->o->busy = 0;
}

/* Serve one request (read now or held by the stand-in) and answer it. */
static void serve_request(server *v, request *r)
{
    bool is_hello = strcmp(r->op, "hello") == 0;
    bool mine = v->has_owner && r->n_env > 0 && same_peer(&r->env[0], &v->owner);
    if (v->has_owner && !mine && is_hello && !peer_alive(v->sock, &v->owner)) {
        v->has_owner = false;   /* the last coupler vanished without bye */
        plugin_enter(v, r);
        seam_session_reset(v->s);
        plugin_leave(v);
    }
    seam_wbuf w;
    bool ended = false;
    if (v->has_owner && !mine) {
        answer_busy(v, r, NULL);
        return;
    }
    if (r->got == 2)
        seam_reply_error(&w, r->id, "malformed request: more than %d frames or %lld bytes", SEAM_WIRE_MAX_PARTS,
                         (long long)SEAM_WIRE_MAX_MESSAGE);
    else if (r->got == 3)
        seam_reply_error(&w, r->id, "request too large: the server has no memory for its arrays");
    else {
        plugin_enter(v, r);
        seam_session_handle_parts(v->s, r->payload.part[0].data, r->payload.part[0].len, r->payload.part + 1,
                                  r->payload.n - 1, &w, &ended);
        plugin_leave(v);
    }
    if (!v->has_owner && r->n_env > 0 && seam_session_open(v->s)) {
        zmq_msg_close(&v->owner);
        zmq_msg_init(&v->owner);
        zmq_msg_copy(&v->owner, &r->env[0]);
        v->has_owner = true;
    }
    if (ended) {
        v->has_owner = false;
        v->done = v->o->once && seam_session_stepped(v->s);   /* a validation does not use up a --once server */
    }
    answer(v, r, &w, true);
}

static int set_int(void *sock, int option, int value) { return zmq_setsockopt(sock, option, &value, sizeof value); }

int seam_serve(const seam_plugin *p, const seam_serve_options *o, char *err, size_t errlen)
{
    bool curve = o->curve_secret && o->curve_secret[0];
    if (strchr(o->bind, ';')) {
        snprintf(err, errlen, "refusing to bind %s: ZeroMQ's \"source;destination\" form is not an endpoint "
                 "seam-serve binds (give the one address to listen on)", o->bind);
        return -1;
    }
    if (!seam_endpoint_is_local(o->bind) && !curve) {
        snprintf(err, errlen, "refusing to bind %s without CURVE: an endpoint off this machine needs "
                 "--curve KEYFILE and --allow CLIENT.pub (make keys with `seam keygen NAME`)", o->bind);
        return -1;
    }
    if (curve && o->n_allow == 0) {
        snprintf(err, errlen, "--curve needs at least one --allow CLIENT.pub: the coupler's key must be known");
        return -1;
    }
    seam_wire_tune_malloc();
    void *ctx = o->zmq_ctx ? o->zmq_ctx : zmq_ctx_new();
    void *zap = NULL;
    void *sock = zmq_socket(ctx, ZMQ_ROUTER);
    int ivl = (int)(o->heartbeat_s * 1000.0 + 0.5);
    set_int(sock, ZMQ_LINGER, 1000);
    set_int(sock, ZMQ_ROUTER_MANDATORY, 1);
    set_int(sock, ZMQ_RCVTIMEO, WAIT_MS);   /* the loop looks at its stop flag at least this often */
    set_int(sock, ZMQ_SNDBUF, SEAM_WIRE_SOCKBUF);
    set_int(sock, ZMQ_RCVBUF, SEAM_WIRE_SOCKBUF);
    int64_t max_message = SEAM_WIRE_MAX_MESSAGE;
    zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &max_message, sizeof max_message);
    if (ivl > 0) {
        set_int(sock, ZMQ_HEARTBEAT_IVL, ivl);
        set_int(sock, ZMQ_HEARTBEAT_TIMEOUT, 3 * ivl);
        set_int(sock, ZMQ_HEARTBEAT_TTL, 3 * ivl);
    }
    int rc = 0;
    if (curve) {
        zap = zmq_socket(ctx, ZMQ_REP);
        if (zmq_bind(zap, "inproc://zeromq.zap.01") != 0) {
            snprintf(err, errlen, "cannot start the ZAP handler: %s", zmq_strerror(errno));
            rc = -1;
        }
        set_int(sock, ZMQ_CURVE_SERVER, 1);
        if (rc == 0 && zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, o->curve_secret, 40) != 0) {
            snprintf(err, errlen, "the server's CURVE secret key is not valid: %s", zmq_strerror(errno));
            rc = -1;
        }
    }
    char address[1024];
    bool ipv6;
    bind_address(o->bind, address, sizeof address, &ipv6);
    if (ipv6)
        set_int(sock, ZMQ_IPV6, 1);
    if (rc == 0 && zmq_bind(sock, address) != 0) {
        snprintf(err, errlen, "cannot bind %s: %s", o->bind, zmq_strerror(errno));
        rc = -1;
    }
    seam_session *s = seam_session_new(p);
    char why[512];
    if (rc == 0 && o->defaults && seam_session_set_defaults(s, o->defaults, why, sizeof why) != 0) {
        snprintf(err, errlen, "the default configuration (--config) is not valid: %s", why);
        rc = -1;
    }
    if (rc == 0 && o->on_ready) {
        char bound[1024];
        size_t len = sizeof bound;
        if (zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, bound, &len) != 0)
            snprintf(bound, sizeof bound, "%s", o->bind);
        o->on_ready(o->ready_ctx, bound);
    }
    server v = {.sock = sock, .zap = zap, .p = p, .o = o, .s = s};
    zmq_msg_init(&v.owner);
    for (int i = 0; i < N_SLOTS; i++)
        seam_frames_init(&v.slot[i].payload);
    bool started = false;
    if (rc == 0) {
        if (standin_start(&v) != 0) {
            snprintf(err, errlen, "cannot start the thread that answers while the plugin works: %s",
                     strerror(errno));
            rc = -1;
        } else
            started = true;
    }
    while (rc == 0 && !v.done && !(o->stop && *o->stop)) {
        if (v.n_waiting > 0) {   /* what came while the plugin worked, in order */
            request *r = v.waiting[0];
            memmove(v.waiting, v.waiting + 1, (size_t)(--v.n_waiting) * sizeof *v.waiting);
            serve_request(&v, r);
            continue;
        }
        if (zap) {   /* without CURVE the socket alone is waited on: recv_request blocks (ZMQ_RCVTIMEO) */
            zmq_pollitem_t items[2] = {{sock, 0, ZMQ_POLLIN, 0}, {zap, 0, ZMQ_POLLIN, 0}};
            if (zmq_poll(items, 2, WAIT_MS) < 0) {
                if (errno == EINTR)
                    continue;
                snprintf(err, errlen, "poll failed: %s", zmq_strerror(errno));
                rc = -1;
                break;
            }
            if (items[1].revents & ZMQ_POLLIN)
                zap_answer(zap, o);
            if (!(items[0].revents & ZMQ_POLLIN))
                continue;
        }
        request *r = free_slot(&v);
        int got = recv_request(sock, r);
        if (got == -2) {   /* the socket itself failed (its context ended): waiting on would spin */
            snprintf(err, errlen, "receive failed: %s", zmq_strerror(errno));
            rc = -1;
            break;
        }
        if (got != 0) {
            seam_frames_clear(&r->payload);
            continue;   /* interrupted, no request within WAIT_MS, or nothing to route an answer back to */
        }
        r->in_use = true;
        serve_request(&v, r);
    }
    if (started)
        standin_stop(&v);
    for (int i = 0; i < N_SLOTS; i++) {
        for (int e = 0; v.slot[i].in_use && e < v.slot[i].n_env; e++)
            zmq_msg_close(&v.slot[i].env[e]);
        seam_frames_free(&v.slot[i].payload);
    }
    zmq_msg_close(&v.owner);
    seam_session_destroy(&s);
    zmq_close(sock);
    if (zap)
        zmq_close(zap);
    if (!o->zmq_ctx)
        zmq_ctx_term(ctx);
    return rc;
}
