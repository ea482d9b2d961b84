/* A signal caught between two frames of one message. libzmq checks its
 * command mailbox on every 100th read, and a signal caught there fails that
 * read with EINTR even when the rest of the message has arrived; a reader
 * that gives up then takes the rest for a new message. Here every read of a
 * frame after the first fails once with EINTR (zmq_msg_recv is wrapped at
 * link time, -Wl,--wrap), in seam-serve's loop and in seam_frames_recv,
 * which the coupler's proxy reads replies with: each request must still get
 * exactly its own reply, each message arrive whole. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <zmq.h>

#include "seam/loader.h"
#include "serve.h"
#include "test_host.h"
#include "wire.h"
#include "bare_request.h"

int __real_zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags);
int __wrap_zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags);

static _Thread_local bool interrupt_reads;   /* this thread's continuation reads are interrupted */
static _Thread_local bool mid_message;       /* its last frame had more after it */
static _Thread_local bool interrupted;       /* the next read goes through (the retry) */
static atomic_int n_interrupted;

int __wrap_zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags)
{
    if (interrupt_reads && mid_message && !interrupted) {
        interrupted = true;
        atomic_fetch_add(&n_interrupted, 1);
        errno = EINTR;
        return -1;
    }
    interrupted = false;
    int rc = __real_zmq_msg_recv(msg, socket, flags);
    mid_message = rc >= 0 && zmq_msg_more(msg);
    return rc;
}

static void *zctx;

/* seam_frames_recv: a message of three frames, then one of one frame. */
static void test_frames_recv_reads_on_after_eintr(void **state)
{
    (void)state;
    void *a = zmq_socket(zctx, ZMQ_PAIR), *b = zmq_socket(zctx, ZMQ_PAIR);
    assert_int_equal(zmq_bind(a, "inproc://eintr-frames"), 0);
    assert_int_equal(zmq_connect(b, "inproc://eintr-frames"), 0);
    assert_int_equal(zmq_send(a, "map", 3, ZMQ_SNDMORE), 3);
    assert_int_equal(zmq_send(a, "first", 5, ZMQ_SNDMORE), 5);
    assert_int_equal(zmq_send(a, "second", 6, 0), 6);
    assert_int_equal(zmq_send(a, "next", 4, 0), 4);
    interrupt_reads = true;
    int before = atomic_load(&n_interrupted);
    seam_frames f;
    seam_frames_init(&f);
    zmq_msg_t first;
    zmq_msg_init(&first);
    assert_true(zmq_msg_recv(&first, b, 0) >= 0);
    assert_int_equal(seam_frames_recv(&f, b, &first), 0);
    assert_int_equal(atomic_load(&n_interrupted) - before, 2);   /* both frames after the map */
    assert_int_equal(f.n, 3);
    assert_int_equal(f.part[0].len, 3);
    assert_memory_equal(f.part[0].data, "map", 3);
    assert_int_equal(f.part[1].len, 5);
    assert_memory_equal(f.part[1].data, "first", 5);
    assert_int_equal(f.part[2].len, 6);
    assert_memory_equal(f.part[2].data, "second", 6);
    zmq_msg_init(&first);   /* the next message is whole, and a message of its own */
    assert_true(zmq_msg_recv(&first, b, 0) >= 0);
    assert_int_equal(seam_frames_recv(&f, b, &first), 0);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.part[0].len, 4);
    assert_memory_equal(f.part[0].data, "next", 4);
    interrupt_reads = false;
    seam_frames_free(&f);
    zmq_close(a);
    zmq_close(b);
}

/* ---- seam-serve's loop ----------------------------------------------------- */

typedef struct {
    seam_library *lib;
    volatile sig_atomic_t stop;
    int rc;
    char err[512];
} server;

static void *serve_thread(void *arg)
{
    server *s = arg;
    interrupt_reads = true;   /* the loop's thread reads the sockets */
    seam_serve_options o = {.bind = "inproc://eintr-serve", .stop = &s->stop, .zmq_ctx = zctx};
    s->rc = seam_serve(seam_library_plugin(s->lib), &o, s->err, sizeof s->err);
    return NULL;
}

/* Send frames; the reply, within 2 s, must be one message whose map has this id. */
static void expect_reply(void *sock, const void *const *frames, const size_t *lens, int n, uint64_t id, bool ok)
{
    for (int i = 0; i < n; i++)
        assert_true(zmq_send(sock, frames[i], lens[i], i + 1 < n ? ZMQ_SNDMORE : 0) >= 0);
    zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&it, 1, 2000) != 1)
        fail_msg("no reply to request %llu within 2 s", (unsigned long long)id);
    zmq_msg_t reply;
    zmq_msg_init(&reply);
    assert_true(zmq_msg_recv(&reply, sock, 0) >= 0);
    if (n > 1 && lens[0] == 0) {   /* a REQ-style request is answered after the same delimiter */
        assert_int_equal(zmq_msg_size(&reply), 0);
        assert_true(zmq_msg_recv(&reply, sock, 0) >= 0);
    }
    assert_false(zmq_msg_more(&reply));
    seam_msg m;
    assert_true(seam_msg_parse(&m, zmq_msg_data(&reply), zmq_msg_size(&reply)));
    uint64_t got = 0;
    bool is_ok = !ok;
    assert_true(seam_msg_uint(&m, "id", true, &got));
    assert_int_equal(got, id);
    assert_true(seam_msg_bool(&m, "ok", true, &is_ok));
    assert_int_equal(is_ok, ok);
    zmq_msg_close(&reply);
}

static size_t request(uint8_t *buf, size_t size, const char *op, uint64_t id)
{
    seam_wbuf w;
    bare_request(&w, op, id);
    assert_true(w.sb.size <= size);
    memcpy(buf, w.sb.data, w.sb.size);
    size_t n = w.sb.size;
    seam_wbuf_free(&w);
    return n;
}

static void test_serve_reads_on_after_eintr(void **state)
{
    (void)state;
    char err[1024];
    server s = {0};
    s.lib = seam_library_open("piston_solid", err, sizeof err);
    if (!s.lib)
        fail_msg("%s", err);
    pthread_t thread;
    void *c = zmq_socket(zctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(c, ZMQ_LINGER, &linger, sizeof linger);
    assert_int_equal(zmq_connect(c, "inproc://eintr-serve"), 0);   /* inproc may connect before the bind */
    int before = atomic_load(&n_interrupted);
    pthread_create(&thread, NULL, serve_thread, &s);
    uint8_t hello[128], describe[128], bye[128];
    const void *f1[1] = {hello};
    size_t l1[1] = {request(hello, sizeof hello, "hello", 1)};
    expect_reply(c, f1, l1, 1, 1, true);   /* the server reads [routing id, map] */
    const void *f2[2] = {"", describe};    /* [routing id, delimiter, map] */
    size_t l2[2] = {0, request(describe, sizeof describe, "describe", 2)};
    expect_reply(c, f2, l2, 2, 2, false);   /* "no instance", from the session: read whole */
    const void *f3[3] = {hello, "x", "y"};  /* a map and two frames no field takes */
    size_t l3[3] = {request(hello, sizeof hello, "hello", 3), 1, 1};
    expect_reply(c, f3, l3, 3, 3, false);
    const void *f4[1] = {bye};
    size_t l4[1] = {request(bye, sizeof bye, "bye", 4)};
    expect_reply(c, f4, l4, 1, 4, true);
    zmq_pollitem_t it = {c, 0, ZMQ_POLLIN, 0};
    assert_int_equal(zmq_poll(&it, 1, 300), 0);   /* nothing more: no frame was taken for a request */
    assert_true(atomic_load(&n_interrupted) - before >= 1 + 2 + 3 + 1);
    s.stop = 1;
    pthread_join(thread, NULL);
    assert_int_equal(s.rc, 0);
    zmq_close(c);
    seam_library_close(&s.lib);
}

int main(void)
{
    zctx = zmq_ctx_new();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_recv_reads_on_after_eintr),
        cmocka_unit_test(test_serve_reads_on_after_eintr),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    zmq_ctx_term(zctx);
    return rc;
}
