/* The server loop: ROUTER socket, ZAP authentication, one coupler at a time. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "serve.h"
#include "session.h"

#define MAX_ENVELOPE 2       /* routing id, optional empty delimiter (REQ peers) */

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
        if (zmq_msg_recv(&part[n], zap, 0) < 0)
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
        more = zmq_msg_recv(&rest, zap, 0) >= 0 && zmq_msg_more(&rest);
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

/* Receive one request: the envelope (routing id, and the empty delimiter of
 * a REQ peer) and the payload frames (the map, then out-of-band arrays).
 * 0: a request; -1: interrupted; 1: no payload (nothing to answer); 2: over
 * the limits, 3: out of memory for its frames (answer an error). */
static int recv_request(void *sock, zmq_msg_t *env, int *n_env, seam_frames *payload)
{
    *n_env = 0;
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, 0) < 0) {
        zmq_msg_close(&f);
        return -1;
    }
    bool more = zmq_msg_more(&f);
    env[(*n_env)++] = f;
    if (!more)
        goto drop;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, 0) < 0)
        goto fail;
    if (zmq_msg_size(&f) == 0 && zmq_msg_more(&f)) {   /* a REQ peer's delimiter */
        env[(*n_env)++] = f;
        zmq_msg_init(&f);
        if (zmq_msg_recv(&f, sock, 0) < 0)
            goto fail;
    }
    int rc = seam_frames_recv(payload, sock, &f);
    if (rc < 0)
        goto drop;
    return rc == 0 ? 0 : rc == SEAM_FRAMES_OVER ? 2 : 3;
fail:
    zmq_msg_close(&f);
    for (int i = 0; i < *n_env; i++)
        zmq_msg_close(&env[i]);
    *n_env = 0;
    return -1;
drop:
    for (int i = 0; i < *n_env; i++)
        zmq_msg_close(&env[i]);
    *n_env = 0;
    return 1;
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
    zmq_msg_t owner;
    zmq_msg_init(&owner);
    seam_frames payload;
    seam_frames_init(&payload);
    bool has_owner = false, done = false;
    while (rc == 0 && !done && !(o->stop && *o->stop)) {
        zmq_pollitem_t items[2] = {{sock, 0, ZMQ_POLLIN, 0}, {zap, 0, ZMQ_POLLIN, 0}};
        int ready = zmq_poll(items, zap ? 2 : 1, 200);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "poll failed: %s", zmq_strerror(errno));
            rc = -1;
            break;
        }
        if (zap && (items[1].revents & ZMQ_POLLIN))
            zap_answer(zap, o);
        if (!(items[0].revents & ZMQ_POLLIN))
            continue;
        zmq_msg_t env[MAX_ENVELOPE];
        int n_env = 0;
        int got = recv_request(sock, env, &n_env, &payload);
        if (got == -1 || got == 1)
            continue;   /* interrupted, or nothing to route an answer back to */
        seam_wbuf w;
        const void *req = payload.part[0].data;
        size_t len = payload.part[0].len;
        char op[32] = "";
        uint64_t id = 0;
        bool is_hello = seam_request_peek(req, len, op, sizeof op, &id) && strcmp(op, "hello") == 0;
        bool mine = has_owner && n_env > 0 && same_peer(&env[0], &owner);
        if (has_owner && !mine && is_hello && !peer_alive(sock, &owner)) {
            seam_session_reset(s);   /* the last coupler vanished without bye */
            has_owner = false;
        }
        bool ended = false;
        if (has_owner && !mine)
            seam_reply_error(&w, id, "busy: plugin \"%s\" is serving another coupler", p->name);
        else if (got == 2)
            seam_reply_error(&w, id, "malformed request: more than %d frames or %lld bytes", SEAM_WIRE_MAX_PARTS,
                             (long long)SEAM_WIRE_MAX_MESSAGE);
        else if (got == 3)
            seam_reply_error(&w, id, "request too large: the server has no memory for its arrays");
        else {
            if (o->busy)
                *o->busy = 1;
            seam_session_handle_parts(s, req, len, payload.part + 1, payload.n - 1, &w, &ended);
            if (o->busy)
                *o->busy = 0;
        }
        if (!has_owner && n_env > 0 && seam_session_open(s)) {
            zmq_msg_close(&owner);
            zmq_msg_init(&owner);
            zmq_msg_copy(&owner, &env[0]);
            has_owner = true;
        }
        if (ended) {
            has_owner = false;
            done = o->once && seam_session_stepped(s);   /* a validation does not use up a --once server */
        }
        send_reply(sock, env, n_env, &w);
        for (int i = 0; i < n_env; i++)
            zmq_msg_close(&env[i]);
        seam_frames_clear(&payload);
    }
    seam_frames_free(&payload);
    zmq_msg_close(&owner);
    seam_session_destroy(&s);
    zmq_close(sock);
    if (zap)
        zmq_close(zap);
    if (!o->zmq_ctx)
        zmq_ctx_term(ctx);
    return rc;
}
