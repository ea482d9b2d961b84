/* The server loop: ROUTER socket, ZAP authentication, one coupler at a time.
 * The loop owns the sockets and never calls the plugin: the session, and so
 * every plugin call, lives on a worker thread, so a plugin deep in a long
 * solve does not keep the loop from answering other clients "busy". */
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
#define MAX_WAITING 8        /* requests held while the worker is busy; more are answered "busy" */
#define N_SLOTS (MAX_WAITING + 2)   /* the held ones, the worker's, the one being read */
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
static bool peer_alive(void *sock, const zmq_msg_t *owner)
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
    zmq_msg_copy(&env, (zmq_msg_t *)owner);
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
 * seam_wire_recv_more). 0: a request (r->got says which); -1: interrupted
 * or failed; 1: no payload (nothing to answer). */
static int recv_request(void *sock, request *r)
{
    r->n_env = 0;
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, 0) < 0) {
        zmq_msg_close(&f);
        return -1;
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

/* ---- the worker: the only thread that touches the session ---------------- */

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int done_pipe[2];        /* a byte written per finished job; the loop polls [0] */
    seam_session *s;
    const seam_plugin *p;
    /* the job, set by the loop under lock */
    request *job;
    bool go, reset, quit;
    /* its result, read by the loop once the byte came */
    bool done, ended, open, stepped;
    seam_wbuf w;
} worker;

static void work(worker *k, request *r, bool reset, seam_wbuf *w, bool *ended)
{
    *ended = false;
    if (reset)
        seam_session_reset(k->s);   /* the last coupler vanished without bye */
    if (r->got == 2)
        seam_reply_error(w, r->id, "malformed request: more than %d frames or %lld bytes", SEAM_WIRE_MAX_PARTS,
                         (long long)SEAM_WIRE_MAX_MESSAGE);
    else if (r->got == 3)
        seam_reply_error(w, r->id, "request too large: the server has no memory for its arrays");
    else
        seam_session_handle_parts(k->s, r->payload.part[0].data, r->payload.part[0].len, r->payload.part + 1,
                                  r->payload.n - 1, w, ended);
}

static void *worker_main(void *arg)
{
    worker *k = arg;
    pthread_mutex_lock(&k->lock);
    for (;;) {
        while (!k->go && !k->quit)
            pthread_cond_wait(&k->wake, &k->lock);
        if (!k->go)
            break;
        k->go = false;
        request *r = k->job;
        bool reset = k->reset;
        pthread_mutex_unlock(&k->lock);
        seam_wbuf w;
        bool ended;
        work(k, r, reset, &w, &ended);
        bool open = seam_session_open(k->s), stepped = seam_session_stepped(k->s);
        pthread_mutex_lock(&k->lock);
        k->w = w;
        k->ended = ended;
        k->open = open;
        k->stepped = stepped;
        k->done = true;
        while (write(k->done_pipe[1], "", 1) < 0 && errno == EINTR)
            continue;
    }
    pthread_mutex_unlock(&k->lock);
    seam_session_destroy(&k->s);   /* the instance goes on the thread that made it */
    return NULL;
}

/* Start the worker for session s (taken over). Asynchronous signals stay
 * with the loop's thread (its poll wakes for them); faults are the worker's
 * own. The worker gets glibc's default stack, RLIMIT_STACK, as the main
 * thread has. 0, or -1 with errno. */
static int worker_start(worker *k, seam_session *s, const seam_plugin *p)
{
    *k = (worker){.s = s, .p = p, .done_pipe = {-1, -1}};
    if (pipe(k->done_pipe) != 0)
        return -1;
    fcntl(k->done_pipe[0], F_SETFD, FD_CLOEXEC);   /* a plugin that starts a process does not hand it on */
    fcntl(k->done_pipe[1], F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->wake, NULL);
    sigset_t all, old;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&k->thread, NULL, worker_main, k);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(k->done_pipe[0]);
        close(k->done_pipe[1]);
        errno = rc;
        return -1;
    }
    return 0;
}

/* Let the worker finish its job, if any, then destroy the session and end. */
static void worker_stop(worker *k)
{
    pthread_mutex_lock(&k->lock);
    k->quit = true;
    pthread_cond_signal(&k->wake);
    pthread_mutex_unlock(&k->lock);
    pthread_join(k->thread, NULL);
    if (k->done)
        seam_wbuf_free(&k->w);
    close(k->done_pipe[0]);
    close(k->done_pipe[1]);
    pthread_mutex_destroy(&k->lock);
    pthread_cond_destroy(&k->wake);
}

/* ---- the loop's side ------------------------------------------------------ */

typedef struct {
    void *sock;
    const seam_plugin *p;
    const seam_serve_options *o;
    worker k;
    request slot[N_SLOTS];
    request *waiting[MAX_WAITING];   /* held in arrival order */
    int n_waiting;
    request *job;                    /* the one with the worker; NULL: idle */
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

static void hold(server *v, request *r)
{
    if (v->n_waiting == MAX_WAITING) {
        char why[160];
        snprintf(why, sizeof why, "%d requests already wait for plugin \"%s\"", MAX_WAITING, v->p->name);
        answer_busy(v, r, why);
        return;
    }
    v->waiting[v->n_waiting++] = r;
}

static void dispatch(server *v, request *r, bool reset)
{
    if (v->o->busy)
        *v->o->busy = 1;
    v->job = r;
    pthread_mutex_lock(&v->k.lock);
    v->k.job = r;
    v->k.reset = reset;
    v->k.go = true;
    pthread_cond_signal(&v->k.wake);
    pthread_mutex_unlock(&v->k.lock);
}

/* Answer r now ("busy"), hand it to the worker, or hold it for when the
 * worker is free: requests are served one at a time in arrival order, as
 * if the loop waited for each, except that another client's are answered
 * "busy" at once while a coupler owns the server (PROTOCOL.md, Sessions). */
static void take(server *v, request *r)
{
    bool mine = v->has_owner && r->n_env > 0 && same_peer(&r->env[0], &v->owner);
    bool reset = false;
    if (v->has_owner && !mine) {
        if (v->job && strcmp(v->job->op, "bye") == 0) {   /* the owner is leaving: served after its bye */
            hold(v, r);
            return;
        }
        if (strcmp(r->op, "hello") != 0 || peer_alive(v->sock, &v->owner)) {
            answer_busy(v, r, NULL);
            return;
        }
        if (!v->job) {   /* the owner vanished without bye, and nothing of its runs now */
            reset = true;
            v->has_owner = false;
        }
    }
    if (v->job)
        hold(v, r);
    else
        dispatch(v, r, reset);
}

/* The worker is done: send its reply, note the owner, serve what waits. */
static void finish(server *v)
{
    char byte;
    while (read(v->k.done_pipe[0], &byte, 1) < 0 && errno == EINTR)
        continue;
    pthread_mutex_lock(&v->k.lock);
    bool done = v->k.done;
    seam_wbuf w = v->k.w;
    bool ended = v->k.ended, open = v->k.open, stepped = v->k.stepped;
    v->k.done = false;
    pthread_mutex_unlock(&v->k.lock);
    if (!done)
        return;
    request *r = v->job;
    v->job = NULL;
    if (v->o->busy)
        *v->o->busy = 0;
    if (!v->has_owner && r->n_env > 0 && open) {
        zmq_msg_close(&v->owner);
        zmq_msg_init(&v->owner);
        zmq_msg_copy(&v->owner, &r->env[0]);
        v->has_owner = true;
    }
    if (ended) {
        v->has_owner = false;
        v->done = v->o->once && stepped;   /* a validation does not use up a --once server */
    }
    answer(v, r, &w, true);
    while (!v->job && v->n_waiting > 0 && !v->done) {
        request *next = v->waiting[0];
        memmove(v->waiting, v->waiting + 1, (size_t)(--v->n_waiting) * sizeof *v->waiting);
        take(v, next);
    }
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
    server v = {.sock = sock, .p = p, .o = o};
    zmq_msg_init(&v.owner);
    for (int i = 0; i < N_SLOTS; i++)
        seam_frames_init(&v.slot[i].payload);
    bool started = false;
    if (rc == 0) {
        if (worker_start(&v.k, s, p) != 0) {
            snprintf(err, errlen, "cannot start the worker thread: %s", strerror(errno));
            rc = -1;
        } else {
            started = true;
            s = NULL;   /* the worker's now */
        }
    }
    /* A stop waits for the request the worker has, so that it is answered. */
    while (rc == 0 && !v.done && !(o->stop && *o->stop && !v.job)) {
        zmq_pollitem_t items[3] = {{sock, 0, ZMQ_POLLIN, 0}, {NULL, v.k.done_pipe[0], ZMQ_POLLIN, 0},
                                   {zap, 0, ZMQ_POLLIN, 0}};
        int ready = zmq_poll(items, zap ? 3 : 2, 200);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "poll failed: %s", zmq_strerror(errno));
            rc = -1;
            break;
        }
        if (items[1].revents & ZMQ_POLLIN)
            finish(&v);
        if (zap && (items[2].revents & ZMQ_POLLIN))
            zap_answer(zap, o);
        if (v.done || !(items[0].revents & ZMQ_POLLIN))
            continue;
        request *r = free_slot(&v);   /* there always is one: N_SLOTS counts every holder */
        int got = recv_request(sock, r);
        if (got == -1 || got == 1) {
            seam_frames_clear(&r->payload);
            continue;   /* interrupted, or nothing to route an answer back to */
        }
        r->in_use = true;
        take(&v, r);
    }
    if (started)
        worker_stop(&v.k);   /* waits for a request in progress (a stuck plugin: for ever) */
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
