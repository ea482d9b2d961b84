/* The wire format and the server's request handling, on bytes alone: round
 * trips are exact, hostile input gets an error reply and the session keeps
 * serving, and the plugin behind it computes the known answer. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "seam/loader.h"
#include "serve.h"
#include "session.h"
#include "test_host.h"
#include "wire.h"

/* ---- the wire format ---------------------------------------------------- */

static void test_f64_round_trip_is_bit_exact(void **state)
{
    (void)state;
    double x[6] = {0.1, -0.0, 1e-310 /* subnormal */, INFINITY, 6.02214076e23, NAN};
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_map(&w, 2);
    seam_w_str(&w, "x");
    seam_w_f64s(&w, x, 6);
    seam_w_str(&w, "i");
    int32_t ids[3] = {-7, 0, 2147483647};
    seam_w_i32s(&w, ids, 3);
    /* the bytes on the wire are bin 8 (0xc4), length 48, then raw little-endian float64 */
    const uint8_t *b = (const uint8_t *)w.sb.data;
    assert_int_equal(b[0], 0x82);
    assert_int_equal(b[3], 0xc4);
    assert_int_equal(b[4], 48);
    uint64_t bits;
    memcpy(&bits, &x[0], 8);
    for (int k = 0; k < 8; k++)
        assert_int_equal(b[5 + k], (bits >> (8 * k)) & 0xff);
    seam_msg m;
    assert_true(seam_msg_parse(&m, w.sb.data, w.sb.size));
    double y[6];
    int32_t j[3];
    assert_true(seam_msg_f64s(&m, "x", true, y, 6));
    assert_true(seam_msg_i32s(&m, "i", true, j, 3));
    assert_memory_equal(x, y, sizeof x);
    assert_memory_equal(ids, j, sizeof ids);
    /* a count that does not match the bytes is refused, naming the field */
    assert_false(seam_msg_f64s(&m, "x", true, y, 5));
    assert_non_null(strstr(m.error, "field \"x\": expected bin of 5 float64 (40 bytes), got 48 bytes"));
    seam_wbuf_free(&w);
}

static void test_integers_and_strings_decode_by_width(void **state)
{
    (void)state;
    /* {"a": -129 (int16), "b": 4294967296 (uint64), "c": str8 "hey", "d": 1.5 (float32)} */
    const uint8_t msg[] = {0x84, 0xa1, 'a', 0xd1, 0xff, 0x7f, 0xa1, 'b', 0xcf, 0, 0, 0, 1, 0, 0, 0, 0,
                           0xa1, 'c', 0xd9, 3, 'h', 'e', 'y', 0xa1, 'd', 0xca, 0x3f, 0xc0, 0, 0};
    seam_msg m;
    assert_true(seam_msg_parse(&m, msg, sizeof msg));
    int64_t a;
    uint64_t b;
    double d;
    char c[8];
    assert_true(seam_msg_int(&m, "a", true, &a));
    assert_int_equal(a, -129);
    assert_true(seam_msg_uint(&m, "b", true, &b));
    assert_true(b == 4294967296ull);
    assert_true(seam_msg_strcpy(&m, "c", true, c, sizeof c));
    assert_string_equal(c, "hey");
    assert_true(seam_msg_num(&m, "d", true, &d));
    assert_true(d == 1.5);
    assert_false(seam_msg_uint(&m, "a", true, &b));   /* negative is not unsigned */
    assert_non_null(strstr(m.error, "field \"a\": expected an unsigned integer, got an integer"));
}

static void test_lying_lengths_are_refused_before_use(void **state)
{
    (void)state;
    seam_msg m;
    /* array32 claiming 2^32-1 entries in 5 bytes */
    const uint8_t array_lie[] = {0x81, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_false(seam_msg_parse(&m, array_lie, sizeof array_lie));
    /* bin32 claiming 4 GiB */
    const uint8_t bin_lie[] = {0x81, 0xa1, 'x', 0xc6, 0xff, 0xff, 0xff, 0xff, 0x00};
    assert_false(seam_msg_parse(&m, bin_lie, sizeof bin_lie));
    assert_non_null(strstr(m.error, "key \"x\""));
    /* nesting deeper than any message */
    uint8_t deep[64] = {0x81, 0xa1, 'x'};
    for (int i = 3; i < 63; i++)
        deep[i] = 0x91;   /* fixarray of one */
    deep[63] = 0xc0;
    assert_false(seam_msg_parse(&m, deep, sizeof deep));
    assert_non_null(strstr(m.error, "too deeply nested"));
    /* every truncation of a valid message is refused */
    const uint8_t ok[] = {0x82, 0xa2, 'o', 'p', 0xa5, 'h', 'e', 'l', 'l', 'o', 0xa2, 'i', 'd', 0xcd, 0x01, 0x00};
    assert_true(seam_msg_parse(&m, ok, sizeof ok));
    for (size_t n = 0; n < sizeof ok; n++)
        assert_false(seam_msg_parse(&m, ok, n));
}

/* An out-of-band bin is read in place when its frames lie back to back (as
 * seam_frames_recv lays them) and gathered into a copy only when they do not. */
static void test_bin_in_place_unless_split(void **state)
{
    (void)state;
    const size_t size = SEAM_WIRE_OOB_MIN + 3;
    uint8_t *bytes = malloc(size);
    for (size_t i = 0; i < size; i++)
        bytes[i] = (uint8_t)(i * 7);
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    w.oob_min = SEAM_WIRE_OOB_MIN;
    seam_w_map(&w, 1);
    seam_w_str(&w, "data");
    seam_w_bin(&w, bytes, size);
    assert_int_equal(w.n_att, 1);
    const uint8_t *sent = w.att[0].data;
    seam_part together[2] = {{sent, 1000}, {sent + 1000, size - 1000}};
    seam_msg m;
    const void *data;
    size_t len;
    void *copy;
    assert_true(seam_msg_parse_parts(&m, w.sb.data, w.sb.size, together, 2));
    assert_true(seam_msg_bin(&m, "data", true, &data, &len, &copy));
    assert_ptr_equal(data, sent);   /* no copy */
    assert_null(copy);
    assert_int_equal(len, size);
    uint8_t *tail = malloc(size - 1000);   /* the second frame elsewhere in memory */
    memcpy(tail, sent + 1000, size - 1000);
    seam_part apart[2] = {{sent, 1000}, {tail, size - 1000}};
    assert_true(seam_msg_parse_parts(&m, w.sb.data, w.sb.size, apart, 2));
    assert_true(seam_msg_bin(&m, "data", true, &data, &len, &copy));
    assert_non_null(copy);
    assert_ptr_equal(data, copy);
    assert_int_equal(len, size);
    assert_memory_equal(data, bytes, size);
    free(copy);
    free(tail);
    free(bytes);
    seam_wbuf_free(&w);
}

/* A message holding an array no peer takes (over SEAM_WIRE_MAX_MESSAGE
 * bytes: 2^62 here) is refused whole, never sent half written, and nothing
 * is allocated for the array (the pointer is never read; an allocator asked
 * for 2^62 bytes may abort the process, as AddressSanitizer's does). */
static void test_writing_an_array_too_large_is_refused(void **state)
{
    (void)state;
    double x = 1.0;
    for (int oob = 0; oob < 2; oob++) {   /* inline, and out of band */
        seam_wbuf w;
        seam_wbuf_init(&w, 0);
        if (oob)
            w.oob_min = SEAM_WIRE_OOB_MIN;
        seam_w_map(&w, 1);
        seam_w_str(&w, "x");
        seam_w_f64s(&w, &x, (size_t)1 << 59);
        assert_int_equal(w.failed, EMSGSIZE);
        assert_int_equal(w.n_att, 0);
        errno = 0;
        assert_int_equal(seam_wire_send(NULL, &w, 0, NULL), -1);   /* refused before the socket is touched */
        assert_int_equal(errno, EMSGSIZE);
        assert_null(w.sb.data);   /* and freed */
    }
    /* one byte over the limit is refused as well, a bin as the float64 arrays */
    seam_wbuf w;
    seam_wbuf_init(&w, 0);
    seam_w_bin(&w, &x, (size_t)SEAM_WIRE_MAX_MESSAGE + 1);
    assert_int_equal(w.failed, EMSGSIZE);
    seam_wbuf_free(&w);
}

#ifdef __SANITIZE_ADDRESS__
/* Under AddressSanitizer, malloc returns NULL when memory runs out, as C
 * says, instead of ending the process: the test below is about that NULL. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

/* Frames the receiver has no memory for are drained and reported, and the
 * next message arrives whole. Run in a child whose data segment is capped
 * (RLIMIT_DATA) below the 256 MiB frame, sent from read-only memory, which
 * the cap does not count. Valgrind does not apply the cap to malloc. */
static void test_frames_without_memory_are_dropped(void **state)
{
    (void)state;
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload"))
        skip();
    const size_t big = (size_t)256 << 20;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);   /* a crash ends the child, not cmocka's test in it */
        signal(SIGABRT, SIG_DFL);
        const uint8_t *ro = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *ctx = zmq_ctx_new();
        void *a = zmq_socket(ctx, ZMQ_PAIR), *b = zmq_socket(ctx, ZMQ_PAIR);
        if (ro == MAP_FAILED || zmq_bind(a, "inproc://seam-nomem-test") || zmq_connect(b, "inproc://seam-nomem-test"))
            _exit(10);
        seam_frames f;
        seam_frames_init(&f);
        zmq_msg_t first;
        zmq_msg_init(&first);   /* a warm-up message: ZeroMQ's threads and buffers exist before the cap */
        zmq_send(a, "hi", 2, 0);
        if (zmq_msg_recv(&first, b, 0) < 0 || seam_frames_recv(&f, b, &first) != 0)
            _exit(11);
        struct rlimit cap = {(rlim_t)64 << 20, (rlim_t)64 << 20};
        FILE *st = fopen("/proc/self/status", "r");
        char line[256];
        unsigned long kb = 0;
        while (st && fgets(line, sizeof line, st))
            sscanf(line, "VmData: %lu kB", &kb);
        if (st)
            fclose(st);
        cap.rlim_cur = cap.rlim_max = (rlim_t)kb * 1024 + ((rlim_t)64 << 20);
        if (setrlimit(RLIMIT_DATA, &cap) != 0)
            _exit(12);
        zmq_msg_t msg;
        zmq_send(a, "map", 3, ZMQ_SNDMORE);
        zmq_msg_init_data(&msg, (void *)(uintptr_t)ro, big, NULL, NULL);
        zmq_msg_send(&msg, a, ZMQ_SNDMORE);
        zmq_send(a, "tail", 4, 0);
        zmq_send(a, "next", 4, 0);
        zmq_msg_init(&first);
        if (zmq_msg_recv(&first, b, 0) < 0)
            _exit(13);
        int rc = seam_frames_recv(&f, b, &first);
        if (rc != SEAM_FRAMES_NOMEM)
            _exit(20 + rc);
        if (f.n != 1 || f.part[0].len != 3 || memcmp(f.part[0].data, "map", 3) != 0)
            _exit(14);   /* the map is kept, the rest dropped */
        zmq_msg_init(&first);
        if (zmq_msg_recv(&first, b, 0) < 0 || seam_frames_recv(&f, b, &first) != 0 || f.n != 1 ||
            memcmp(f.part[0].data, "next", 4) != 0)
            _exit(15);   /* the next message arrives on its own */
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A fresh receiver (no frame buffer yet) given a map and two empty frames:
 * every part points at memory (a NULL base plus 0 is undefined behaviour,
 * and parsers compare empty parts with memcmp), the map is kept whole. */
static void test_empty_frames_into_a_fresh_receiver(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *a = zmq_socket(ctx, ZMQ_PAIR), *b = zmq_socket(ctx, ZMQ_PAIR);
    assert_int_equal(zmq_bind(a, "inproc://seam-empty-frames"), 0);
    assert_int_equal(zmq_connect(b, "inproc://seam-empty-frames"), 0);
    zmq_send(a, "map", 3, ZMQ_SNDMORE);
    zmq_send(a, "", 0, ZMQ_SNDMORE);
    zmq_send(a, "", 0, 0);
    seam_frames f;
    seam_frames_init(&f);
    zmq_msg_t first;
    zmq_msg_init(&first);
    assert_true(zmq_msg_recv(&first, b, 0) >= 0);
    assert_int_equal(seam_frames_recv(&f, b, &first), 0);
    assert_int_equal(f.n, 3);
    assert_memory_equal(f.part[0].data, "map", 3);
    for (size_t i = 1; i < 3; i++) {
        assert_int_equal(f.part[i].len, 0);
        assert_non_null(f.part[i].data);
    }
    seam_frames_free(&f);
    zmq_close(a);
    zmq_close(b);
    zmq_ctx_term(ctx);
}

/* seam_wire_send and seam_frames_recv over an inproc pair: two arrays cut
 * into SEAM_WIRE_CHUNK frames, received back to back and read in place; a
 * borrowed array is counted while ZeroMQ holds it, or copied when nobody
 * counts. */
static void test_frames_over_a_socket(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *a = zmq_socket(ctx, ZMQ_PAIR), *b = zmq_socket(ctx, ZMQ_PAIR);
    assert_int_equal(zmq_bind(a, "inproc://seam-frames-test"), 0);
    assert_int_equal(zmq_connect(b, "inproc://seam-frames-test"), 0);
    const size_t n = 100000;   /* 800000 bytes: 4 frames of 256 KiB, the last shorter */
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i + 0.5;
        y[i] = -(double)i;
    }
    seam_shared *sh = seam_shared_new(n * sizeof *y);
    memcpy(seam_shared_data(sh), y, n * sizeof *y);
    for (int pass = 0; pass < 2; pass++) {
        atomic_size_t borrowed = 0;
        seam_wbuf w;
        seam_wbuf_init(&w, 0);
        w.oob_min = SEAM_WIRE_OOB_MIN;
        seam_w_map(&w, 3);
        seam_w_str(&w, "x"); seam_w_f64s_ref(&w, x, n, NULL);
        seam_w_str(&w, "y"); seam_w_f64s_ref(&w, seam_shared_data(sh), n, sh);
        seam_w_str(&w, "z"); seam_w_f64s(&w, y, 3);   /* small: inline */
        assert_int_equal(w.n_att, 2);
        assert_true(seam_shared_busy(sh));   /* the attachment holds a reference */
        assert_int_equal(seam_wire_send(a, &w, 0, pass == 0 ? &borrowed : NULL), 0);
        if (pass == 1)
            x[0] = 99.0;   /* copied at send: the receiver must still see 0.5 */
        seam_frames f;
        seam_frames_init(&f);
        zmq_msg_t first;
        zmq_msg_init(&first);
        assert_true(zmq_msg_recv(&first, b, 0) >= 0);
        assert_int_equal(seam_frames_recv(&f, b, &first), 0);
        assert_int_equal(f.n, 1 + 4 + 4);
        assert_int_equal(f.part[1].len, SEAM_WIRE_CHUNK);
        seam_msg m;
        assert_true(seam_msg_parse_parts(&m, f.part[0].data, f.part[0].len, f.part + 1, f.n - 1));
        const double *vx = seam_msg_f64s_view(&m, "x", n), *vy = seam_msg_f64s_view(&m, "y", n);
        assert_non_null(vx);   /* in one piece: read in place */
        assert_non_null(vy);
        assert_true(vx[0] == 0.5 && vx[n - 1] == (double)(n - 1) + 0.5);
        assert_memory_equal(vy, y, n * sizeof *y);
        assert_null(seam_msg_f64s_view(&m, "z", 3));   /* inline: copy it */
        double z[3];
        assert_true(seam_msg_f64s(&m, "z", true, z, 3));
        assert_true(z[2] == -2.0);
        seam_frames_free(&f);
        if (pass == 0) {   /* every borrowed frame is released once sent */
            for (int i = 0; i < 500 && atomic_load(&borrowed) != 0; i++)
                usleep(2000);
            assert_int_equal(atomic_load(&borrowed), 0);
        }
        x[0] = 0.5;
    }
    for (int i = 0; i < 500 && seam_shared_busy(sh); i++)
        usleep(2000);
    assert_false(seam_shared_busy(sh));   /* the frames dropped their references */
    seam_shared_unref(sh);
    free(x);
    free(y);
    zmq_close(a);
    zmq_close(b);
    zmq_ctx_term(ctx);
}

/* ---- the session ---------------------------------------------------------- */

typedef struct {
    seam_library *lib;
    seam_session *s;
    seam_wbuf reply;
    seam_msg m;
    bool ended;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char err[1024];
    f->lib = seam_library_open("piston_solid", err, sizeof err);
    if (!f->lib) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    f->s = seam_session_new(seam_library_plugin(f->lib));
    seam_wbuf_init(&f->reply, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    seam_wbuf_free(&f->reply);
    seam_session_destroy(&f->s);
    seam_library_close(&f->lib);
    free(f);
    return 0;
}

/* Hand raw bytes to the session; the reply is parsed into f->m. */
static void send_raw(fixture *f, const void *bytes, size_t len)
{
    seam_wbuf_free(&f->reply);
    seam_session_handle(f->s, bytes, len, &f->reply, &f->ended);
    if (!seam_msg_parse(&f->m, f->reply.sb.data, f->reply.sb.size))
        fail_msg("the reply does not parse: %s", f->m.error);
}

static void send_wbuf(fixture *f, seam_wbuf *w)
{
    send_raw(f, w->sb.data, w->sb.size);
    seam_wbuf_free(w);
}

static bool reply_ok(fixture *f)
{
    bool ok = false;
    assert_true(seam_msg_bool(&f->m, "ok", true, &ok));
    return ok;
}

static void expect_error(fixture *f, const char *needle)
{
    assert_false(reply_ok(f));
    char error[512];
    assert_true(seam_msg_strcpy(&f->m, "error", true, error, sizeof error));
    if (!strstr(error, needle))
        fail_msg("expected \"%s\" in the error \"%s\"", needle, error);
}

static void request(seam_wbuf *w, const char *op, uint64_t id, size_t fields)
{
    seam_wbuf_init(w, 0);
    seam_w_map(w, 2 + fields);
    seam_w_str(w, "op");
    seam_w_str(w, op);
    seam_w_str(w, "id");
    seam_w_uint(w, id);
}

static void say_hello(fixture *f)
{
    seam_wbuf w;
    request(&w, "hello", 1, 2);
    seam_w_str(&w, "protocol");
    seam_w_uint(&w, SEAM_PROTOCOL_VERSION);
    seam_w_str(&w, "abi");
    seam_w_uint(&w, SEAM_ABI_VERSION);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
}

/* create with a configuration and a participant name; the plugin accepts it. */
static void create_with(fixture *f, const char *config, const char *name)
{
    seam_wbuf w;
    request(&w, "create", 2, 2);
    seam_w_str(&w, "config");
    seam_w_str(&w, config);
    seam_w_str(&w, "name");
    seam_w_str(&w, name);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    uint64_t st = 9;
    assert_true(seam_msg_uint(&f->m, "status", true, &st));
    assert_int_equal(st, SEAM_OK);
}

static void hello_and_create(fixture *f)
{
    say_hello(f);
    create_with(f, "{\"mass\": 2.0, \"stiffness\": 50.0, \"position\": 0.1}", "piston");
}

/* A solid solve with load F over dt: the backward-Euler answer of
 * tests/plugins/piston_solid.c, x' = (x + dt v + dt^2 F/m) / (1 + k dt^2/m). */
static void solve_matches_backward_euler(fixture *f, uint64_t id)
{
    seam_wbuf w;
    request(&w, "describe", id, 0);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    double X;
    assert_true(seam_msg_f64s(&f->m, "X", true, &X, 1));
    assert_true(X == 0.1);
    double F = 3.0, dt = 0.01, m = 2.0, k = 50.0;
    request(&w, "solve", id + 1, 5);
    seam_w_str(&w, "step");
    seam_w_map(&w, 4);
    seam_w_str(&w, "index"); seam_w_int(&w, 0);
    seam_w_str(&w, "t"); seam_w_f64(&w, 0.0);
    seam_w_str(&w, "dt"); seam_w_f64(&w, dt);
    seam_w_str(&w, "iteration"); seam_w_int(&w, 0);
    seam_w_str(&w, "n"); seam_w_uint(&w, 1);
    seam_w_str(&w, "dim"); seam_w_uint(&w, 1);
    seam_w_str(&w, "F"); seam_w_f64s(&w, &F, 1);
    seam_w_str(&w, "out");
    seam_w_array(&w, 2);
    seam_w_str(&w, "X");
    seam_w_str(&w, "V");
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    uint64_t got_id = 0;
    assert_true(seam_msg_uint(&f->m, "id", true, &got_id));
    assert_int_equal(got_id, id + 1);
    double x_new, v_new;
    assert_true(seam_msg_f64s(&f->m, "X", true, &x_new, 1));
    assert_true(seam_msg_f64s(&f->m, "V", true, &v_new, 1));
    double expect = (0.1 + dt * 0.0 + dt * dt * F / m) / (1.0 + k * dt * dt / m);
    assert_true(x_new == expect);
    assert_true(v_new == (expect - 0.1) / dt);
}

static void test_malformed_requests_get_errors_and_serving_goes_on(void **state)
{
    fixture *f = *state;
    srand(12345);
    uint8_t noise[256];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)(rand() & 0xff);
    noise[0] = 0x83;   /* looks like a map, then garbage */
    send_raw(f, noise, sizeof noise);
    expect_error(f, "malformed request");
    send_raw(f, "", 0);
    expect_error(f, "malformed request: truncated");
    const uint8_t truncated[] = {0x82, 0xa2, 'o', 'p', 0xa5, 'h', 'e', 'l'};
    send_raw(f, truncated, sizeof truncated);
    expect_error(f, "malformed request");
    const uint8_t not_a_map[] = {0x93, 1, 2, 3};
    send_raw(f, not_a_map, sizeof not_a_map);
    expect_error(f, "expected a map, got an array");
    seam_wbuf w;
    seam_wbuf_init(&w, 0);   /* op of the wrong type */
    seam_w_map(&w, 2);
    seam_w_str(&w, "op"); seam_w_uint(&w, 7);
    seam_w_str(&w, "id"); seam_w_uint(&w, 5);
    send_wbuf(f, &w);
    expect_error(f, "field \"op\": expected a string, got an unsigned integer");
    request(&w, "launch_missiles", 6, 0);
    send_wbuf(f, &w);
    expect_error(f, "unknown op \"launch_missiles\"");
    request(&w, "solve", 7, 0);
    send_wbuf(f, &w);
    expect_error(f, "say hello first");
    request(&w, "hello", 8, 2);
    seam_w_str(&w, "protocol"); seam_w_uint(&w, 99);
    seam_w_str(&w, "abi"); seam_w_uint(&w, 1);
    send_wbuf(f, &w);
    expect_error(f, "protocol version 99 is not spoken here");

    hello_and_create(f);
    /* absurd sizes: a solve claiming 2^40 points, and a bin that does not match */
    request(&w, "describe", 9, 0);
    send_wbuf(f, &w);
    request(&w, "solve", 10, 5);
    seam_w_str(&w, "step");
    seam_w_map(&w, 4);
    seam_w_str(&w, "index"); seam_w_int(&w, 0);
    seam_w_str(&w, "t"); seam_w_f64(&w, 0.0);
    seam_w_str(&w, "dt"); seam_w_f64(&w, 0.01);
    seam_w_str(&w, "iteration"); seam_w_int(&w, 0);
    seam_w_str(&w, "n"); seam_w_uint(&w, 1ull << 40);
    seam_w_str(&w, "dim"); seam_w_uint(&w, 1);
    seam_w_str(&w, "F"); seam_w_bin(&w, "12345678", 8);
    seam_w_str(&w, "out"); seam_w_array(&w, 0);
    send_wbuf(f, &w);
    expect_error(f, "do not match the interface (1 values");
    request(&w, "bind", 11, 0);   /* a solid has no bind */
    send_wbuf(f, &w);
    expect_error(f, "bind: plugin \"piston_solid\" does not provide it");
    request(&w, "load", 12, 1);
    seam_w_str(&w, "data"); seam_w_str(&w, "not bytes");
    send_wbuf(f, &w);
    expect_error(f, "field \"data\": expected bin, got a string");
    /* a wrong load size is the plugin's own refusal: ok, status error, its message relayed */
    request(&w, "load", 13, 1);
    seam_w_str(&w, "data"); seam_w_bin(&w, "abc", 3);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    seam_mp items;
    size_t n_log = 0;
    assert_true(seam_msg_array(&f->m, "log", true, &items, &n_log));
    assert_int_equal(n_log, 1);

    /* and after all that, valid requests get the physics right */
    solve_matches_backward_euler(f, 20);
}

static void test_create_relays_located_config_errors(void **state)
{
    fixture *f = *state;
    say_hello(f);
    seam_wbuf w;
    request(&w, "create", 2, 4);
    seam_w_str(&w, "config"); seam_w_str(&w, "{\"mass\": 1, \"stifness\": 3}");
    seam_w_str(&w, "name"); seam_w_str(&w, "piston");
    seam_w_str(&w, "config_path"); seam_w_str(&w, "solids[0]");
    seam_w_str(&w, "locations");
    seam_w_map(&w, 1);
    seam_w_str(&w, "stifness"); seam_w_str(&w, "scene.json:5:9");
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    uint64_t st = 0;
    assert_true(seam_msg_uint(&f->m, "status", true, &st));
    assert_int_equal(st, SEAM_ERROR);
    seam_mp items;
    size_t n = 0;
    assert_true(seam_msg_array(&f->m, "log", true, &items, &n));
    assert_true(n >= 1);
    seam_mp_value head, level, text;
    assert_true(seam_mp_next(&items, &head) && seam_mp_next(&items, &level) && seam_mp_next(&items, &text));
    assert_int_equal(level.u, SEAM_LOG_ERROR);
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)text.len, (const char *)text.data);
    if (!strstr(msg, "scene.json:5:9: solids[0].stifness: unknown key (did you mean \"stiffness\"?)"))
        fail_msg("unexpected message: %s", msg);
    request(&w, "bye", 3, 0);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    assert_true(f->ended);
    assert_false(seam_session_open(f->s));
}

/* bind n points (dim 1) and solve with V_i = i: the piston fluid answers
 * F = -m_a (V - V^n) / dt with V^n = 0 after a bind (tests/plugins/piston_fluid.c). */
static void bind_and_solve(fixture *f, size_t n, uint64_t id)
{
    double *X = calloc(n, sizeof *X), *V = malloc(n * sizeof *V), *F = malloc(n * sizeof *F);
    for (size_t i = 0; i < n; i++)
        V[i] = (double)i;
    seam_wbuf w;
    request(&w, "bind", id, 4);
    seam_w_str(&w, "dim"); seam_w_int(&w, 1);
    seam_w_str(&w, "n_points"); seam_w_uint(&w, n);
    seam_w_str(&w, "nodes_per_elem"); seam_w_int(&w, 0);
    seam_w_str(&w, "n_elems"); seam_w_uint(&w, 0);
    send_wbuf(f, &w);   /* X is missing */
    expect_error(f, "bind: field \"X\" is missing");
    request(&w, "bind", id + 1, 5);
    seam_w_str(&w, "dim"); seam_w_int(&w, 1);
    seam_w_str(&w, "n_points"); seam_w_uint(&w, n);
    seam_w_str(&w, "nodes_per_elem"); seam_w_int(&w, 0);
    seam_w_str(&w, "n_elems"); seam_w_uint(&w, 0);
    seam_w_str(&w, "X"); seam_w_f64s(&w, X, n);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    double dt = 0.25, m_a = 2.0;
    request(&w, "solve", id + 2, 6);
    seam_w_str(&w, "step");
    seam_w_map(&w, 4);
    seam_w_str(&w, "index"); seam_w_int(&w, 0);
    seam_w_str(&w, "t"); seam_w_f64(&w, 0.0);
    seam_w_str(&w, "dt"); seam_w_f64(&w, dt);
    seam_w_str(&w, "iteration"); seam_w_int(&w, 0);
    seam_w_str(&w, "n"); seam_w_uint(&w, n);
    seam_w_str(&w, "dim"); seam_w_uint(&w, 1);
    seam_w_str(&w, "X"); seam_w_f64s(&w, X, n);
    seam_w_str(&w, "V"); seam_w_f64s(&w, V, n);
    seam_w_str(&w, "out"); seam_w_array(&w, 1); seam_w_str(&w, "F");
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    assert_true(seam_msg_f64s(&f->m, "F", true, F, n));
    for (size_t i = 0; i < n; i++)
        assert_true(F[i] == -m_a * (V[i] - 0.0) / dt);
    free(X);
    free(V);
    free(F);
}

/* A session around a fresh instance of plugin `name`, before hello. */
static fixture *plugin_fixture(const char *name)
{
    fixture *f = calloc(1, sizeof *f);
    char err[1024];
    f->lib = seam_library_open(name, err, sizeof err);
    assert_non_null(f->lib);
    f->s = seam_session_new(seam_library_plugin(f->lib));
    seam_wbuf_init(&f->reply, 0);
    return f;
}

static void test_fluid_rebind_to_a_larger_interface(void **state)
{
    (void)state;
    fixture *f = plugin_fixture("piston_fluid");
    say_hello(f);
    create_with(f, "{\"added_mass\": 2.0}", "fluid");
    bind_and_solve(f, 3, 10);
    bind_and_solve(f, 5000, 20);   /* the per-solve buffers must grow with the interface */
    bind_and_solve(f, 2, 30);
    teardown((void **)&f);
}

/* ---- out-of-band arrays (protocol 2) -------------------------------------- */

/* Hand w's map and its attachments to the session, each attachment cut into
 * separately allocated frames of `piece` bytes (the last shorter), so the
 * session must gather them; the reply is parsed with its own attachments
 * as frames (kept in f->rparts while f->m is read). */
static seam_part rparts[8];

static void send_parts(fixture *f, seam_wbuf *w, size_t piece)
{
    seam_part parts[64];
    void *copies[64];
    size_t n = 0;
    for (size_t a = 0; a < w->n_att; a++)
        for (size_t off = 0; off < w->att[a].size; off += piece) {
            size_t len = w->att[a].size - off < piece ? w->att[a].size - off : piece;
            assert_true(n < 64);
            copies[n] = malloc(len);
            memcpy(copies[n], (const char *)w->att[a].data + off, len);
            parts[n] = (seam_part){copies[n], len};
            n++;
        }
    seam_wbuf_free(&f->reply);
    seam_session_handle_parts(f->s, w->sb.data, w->sb.size, parts, n, &f->reply, &f->ended);
    for (size_t i = 0; i < n; i++)
        free(copies[i]);
    seam_wbuf_free(w);
    assert_true(f->reply.n_att <= 8);
    for (size_t a = 0; a < f->reply.n_att; a++)
        rparts[a] = (seam_part){f->reply.att[a].data, f->reply.att[a].size};
    if (!seam_msg_parse_parts(&f->m, f->reply.sb.data, f->reply.sb.size, rparts, f->reply.n_att))
        fail_msg("the reply does not parse: %s", f->m.error);
}

static void hello_version(fixture *f, unsigned version)
{
    seam_wbuf w;
    request(&w, "hello", 1, 2);
    seam_w_str(&w, "protocol"); seam_w_uint(&w, version);
    seam_w_str(&w, "abi"); seam_w_uint(&w, SEAM_ABI_VERSION);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    uint64_t agreed = 0;
    assert_true(seam_msg_uint(&f->m, "protocol", true, &agreed));
    assert_int_equal(agreed, version);
}

static void solve_request(seam_wbuf *w, uint64_t id, size_t n, const double *V)
{
    request(w, "solve", id, 6);
    w->oob_min = SEAM_WIRE_OOB_MIN;
    seam_w_str(w, "step");
    seam_w_map(w, 4);
    seam_w_str(w, "index"); seam_w_int(w, 0);
    seam_w_str(w, "t"); seam_w_f64(w, 0.0);
    seam_w_str(w, "dt"); seam_w_f64(w, 0.5);
    seam_w_str(w, "iteration"); seam_w_int(w, 0);
    seam_w_str(w, "n"); seam_w_uint(w, n);
    seam_w_str(w, "dim"); seam_w_uint(w, 1);
    seam_w_str(w, "V"); seam_w_f64s(w, V, n);
    seam_w_str(w, "out"); seam_w_array(w, 1); seam_w_str(w, "F");
    /* X, which a fluid reads, inline (after V, so V's frames are the only ones) */
    double *X = calloc(n, sizeof *X);
    w->oob_min = SIZE_MAX;
    seam_w_str(w, "X"); seam_w_f64s(w, X, n);
    w->oob_min = SEAM_WIRE_OOB_MIN;
    free(X);
}


static void bind_oob(fixture *f, size_t n)
{
    double *X = calloc(n, sizeof *X);
    seam_wbuf w;
    request(&w, "bind", 3, 5);
    w.oob_min = SEAM_WIRE_OOB_MIN;
    seam_w_str(&w, "dim"); seam_w_int(&w, 1);
    seam_w_str(&w, "n_points"); seam_w_uint(&w, n);
    seam_w_str(&w, "nodes_per_elem"); seam_w_int(&w, 0);
    seam_w_str(&w, "n_elems"); seam_w_uint(&w, 0);
    seam_w_str(&w, "X"); seam_w_f64s(&w, X, n);
    assert_int_equal(w.n_att, 1);   /* 160 kB: out of band */
    send_parts(f, &w, 50000);
    assert_true(reply_ok(f));
    free(X);
}

static void test_out_of_band_arrays_in_any_split(void **state)
{
    (void)state;
    const size_t n = 20000;   /* 160000 bytes per array */
    fixture *f = plugin_fixture("piston_fluid");
    hello_version(f, 2);
    create_with(f, "{\"added_mass\": 2.0}", "fluid");
    bind_oob(f, n);
    double *V = malloc(n * sizeof *V), F[3];
    for (size_t i = 0; i < n; i++)
        V[i] = 0.25 * (double)i - 3.0;
    V[7] = -0.0;
    /* frames of 12345 bytes: not a multiple of 8, so doubles straddle frames */
    seam_wbuf w;
    solve_request(&w, 4, n, V);
    assert_int_equal(w.n_att, 1);
    send_parts(f, &w, 12345);
    assert_true(reply_ok(f));
    /* the reply's F is out of band too: a marker (fixext 8, type 1) in the map */
    assert_int_equal(f->reply.n_att, 1);
    assert_int_equal(f->reply.att[0].size, n * sizeof(double));
    const uint8_t marker[] = {0xd7, 0x01, 0, 0, 0, 0, 0, 0x02, 0x71, 0x00};   /* 160000 bytes */
    bool seen = false;
    for (size_t i = 0; i < f->m.n; i++)
        if (f->m.f[i].klen == 1 && f->m.f[i].key[0] == 'F') {
            assert_int_equal(f->m.f[i].val.end - f->m.f[i].val.p, sizeof marker);
            assert_memory_equal(f->m.f[i].val.p, marker, sizeof marker);
            seen = true;
        }
    assert_true(seen);
    double *got = malloc(n * sizeof *got);
    assert_true(seam_msg_f64s(&f->m, "F", true, got, n));
    for (size_t i = 0; i < n; i++)
        assert_true(got[i] == -2.0 * V[i] / 0.5);
    assert_true(signbit(got[7]) == 0 && got[7] == 0.0);   /* -2 * -0 / 0.5 = +0 */
    /* the reply's frames point into the session's output buffer: a second
     * solve while they are held must not overwrite them */
    seam_wbuf held = f->reply;
    seam_wbuf_init(&f->reply, 0);
    memcpy(F, held.att[0].data, sizeof F);
    for (size_t i = 0; i < n; i++)
        V[i] = 1.0;
    solve_request(&w, 5, n, V);
    send_parts(f, &w, SEAM_WIRE_CHUNK);
    assert_true(reply_ok(f));
    assert_memory_equal(held.att[0].data, F, sizeof F);
    assert_true(seam_msg_f64s(&f->m, "F", true, got, n));
    assert_true(got[0] == -4.0 && got[n - 1] == -4.0);
    seam_wbuf_free(&held);

    /* frames that do not add up are malformed requests, answered with the id */
    solve_request(&w, 6, n, V);
    w.att[0].size -= 8;   /* the frames hold 8 bytes less than the marker says */
    send_parts(f, &w, SEAM_WIRE_CHUNK);
    expect_error(f, "field \"V\": an out-of-band value of 160000 bytes, but the frames after the map end");
    uint64_t id = 0;
    assert_true(seam_msg_uint(&f->m, "id", true, &id));
    assert_int_equal(id, 6);
    solve_request(&w, 7, n, V);
    w.att[0].size += 8;   /* 8 bytes more: a frame no value takes */
    double *longer = malloc(n * sizeof *longer + 8);
    memcpy(longer, w.att[0].data, n * sizeof *longer);
    w.att[0].data = longer;
    send_parts(f, &w, n * sizeof(double));
    expect_error(f, "1 frames after the map that no out-of-band field takes");
    free(longer);
    request(&w, "solve", 9, 1);   /* a marker, and no frame after the map */
    w.oob_min = 0;
    seam_w_str(&w, "V");
    seam_w_bin(&w, "x", 1);
    seam_wbuf_free(&f->reply);
    seam_session_handle_parts(f->s, w.sb.data, w.sb.size, NULL, 0, &f->reply, &f->ended);
    seam_wbuf_free(&w);
    assert_true(seam_msg_parse(&f->m, f->reply.sb.data, f->reply.sb.size));
    expect_error(f, "field \"V\": an out-of-band value of 1 bytes, but the frames after the map end");
    request(&w, "solve", 9, 1);   /* a marker claiming 2^62 bytes: refused, nothing allocated for it */
    w.oob_min = 0;
    seam_w_str(&w, "V");
    seam_w_bin(&w, "x", 1);
    memcpy(w.sb.data + w.sb.size - 8, "\x40\0\0\0\0\0\0\0", 8);   /* the marker's big-endian length, last */
    send_parts(f, &w, SEAM_WIRE_CHUNK);
    expect_error(f, "field \"V\": an out-of-band value of 4611686018427387904 bytes, but the frames after the map end");
    request(&w, "solve", 9, 1);   /* a marker inside a nested map takes no frame */
    w.oob_min = 0;
    seam_w_str(&w, "step");
    seam_w_map(&w, 1);
    seam_w_str(&w, "t");
    seam_w_bin(&w, "abcd", 4);
    send_parts(f, &w, SEAM_WIRE_CHUNK);
    expect_error(f, "1 frames after the map that no out-of-band field takes");
    /* and the session serves on */
    solve_request(&w, 10, n, V);
    send_parts(f, &w, 100000);
    assert_true(reply_ok(f));
    assert_true(seam_msg_f64s(&f->m, "F", true, got, n));
    assert_true(got[n / 2] == -4.0);
    free(got);
    free(V);
    teardown((void **)&f);
}

/* A coupler that says protocol 1 gets every array inline, in one frame. */
static void test_protocol_1_clients_get_arrays_inline(void **state)
{
    (void)state;
    const size_t n = 20000;
    fixture *f = plugin_fixture("piston_fluid");
    hello_version(f, 1);
    create_with(f, "{\"added_mass\": 2.0}", "fluid");
    bind_and_solve(f, n, 10);   /* inline requests; F checked there */
    assert_int_equal(f->reply.n_att, 0);
    assert_true(f->reply.sb.size > n * sizeof(double));
    teardown((void **)&f);
}

static void test_server_defaults_fill_in_what_the_coupler_leaves_out(void **state)
{
    fixture *f = *state;
    char err[256];
    assert_int_equal(seam_session_set_defaults(f->s, "[1, 2]", err, sizeof err), -1);
    assert_string_equal(err, "expected a JSON object");
    /* the server says stiffness and position; the coupler says mass and overrides position */
    assert_int_equal(seam_session_set_defaults(f->s, "{\"stiffness\": 50.0, \"position\": 7.0}", err, sizeof err), 0);
    say_hello(f);
    create_with(f, "{\"mass\": 2.0, \"position\": 0.1}", "piston");
    /* x starts at the coupler's 0.1 and moves with the server's k = 50 */
    solve_matches_backward_euler(f, 3);
}

/* ---- holes a peer could use (issue 12) ------------------------------------ */

/* Whether bytes are valid UTF-8 (what a MessagePack str must hold). */
static bool is_utf8(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

/* Every string in the reply (top level, and the log's texts) is UTF-8. */
static void reply_is_utf8(fixture *f)
{
    const char *text;
    size_t len;
    if (seam_msg_has(&f->m, "error")) {
        assert_true(seam_msg_str(&f->m, "error", true, &text, &len));
        if (!is_utf8((const uint8_t *)text, len))
            fail_msg("the error is not UTF-8: %.*s", (int)len, text);
    }
    seam_mp items;
    size_t n = 0;
    assert_true(seam_msg_array(&f->m, "log", true, &items, &n));
    for (size_t i = 0; i < n; i++) {
        seam_mp_value head, level, t;
        assert_true(seam_mp_next(&items, &head) && seam_mp_next(&items, &level) && seam_mp_next(&items, &t));
        assert_true(is_utf8(t.data, t.len));
    }
}

/* A busy reply is written into a buffer the server never initialized: it must
 * not free what that garbage points to. */
static void test_busy_reply_into_an_uninitialized_buffer(void **state)
{
    (void)state;
    seam_wbuf w;
    memset(&w, 0xa5, sizeof w);   /* what the stack may hold */
    seam_reply_error(&w, 7, "busy: plugin \"%s\" is serving another coupler", "x");
    seam_msg m;
    assert_true(seam_msg_parse(&m, w.sb.data, w.sb.size));
    char error[128];
    assert_true(seam_msg_strcpy(&m, "error", true, error, sizeof error));
    assert_string_equal(error, "busy: plugin \"x\" is serving another coupler");
    assert_int_equal(w.n_att, 0);
    seam_wbuf_free(&w);
}

/* Bytes that are not UTF-8 (an op name, a plugin message quoting the
 * configuration) leave the server as U+FFFD, never inside a str. */
static void test_error_replies_are_utf8(void **state)
{
    fixture *f = *state;
    seam_wbuf w;
    request(&w, "\xff\xfe\xc3", 1, 0);
    send_wbuf(f, &w);
    expect_error(f, "unknown op \"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    reply_is_utf8(f);
    say_hello(f);
    request(&w, "create", 2, 2);
    seam_w_str(&w, "config"); seam_w_str(&w, "{\"mass\": 1, \"stiffness\": 1, \"\xc3\x28\": 2}");
    seam_w_str(&w, "name"); seam_w_str(&w, "piston");
    send_wbuf(f, &w);
    reply_is_utf8(f);
}

/* solve without `out`, or without the inputs the role reads: the plugin must
 * never get NULL where the contract promises an array. */
static void test_solve_without_out_or_inputs(void **state)
{
    fixture *f = *state;
    hello_and_create(f);
    seam_wbuf w;
    request(&w, "describe", 3, 0);
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    double F = 1.0;
    for (int variant = 0; variant < 2; variant++) {
        request(&w, "solve", 4, variant == 0 ? 4 : 3);
        seam_w_str(&w, "step");
        seam_w_map(&w, 4);
        seam_w_str(&w, "index"); seam_w_int(&w, 0);
        seam_w_str(&w, "t"); seam_w_f64(&w, 0.0);
        seam_w_str(&w, "dt"); seam_w_f64(&w, 0.01);
        seam_w_str(&w, "iteration"); seam_w_int(&w, 0);
        seam_w_str(&w, "n"); seam_w_uint(&w, 1);
        seam_w_str(&w, "dim"); seam_w_uint(&w, 1);
        if (variant == 0) {   /* F but no out: the plugin writes X and V into the server's arrays */
            seam_w_str(&w, "F"); seam_w_f64s(&w, &F, 1);
        }
        send_wbuf(f, &w);
        if (variant == 0) {
            assert_true(reply_ok(f));
            uint64_t st = 9;
            assert_true(seam_msg_uint(&f->m, "status", true, &st));
            assert_int_equal(st, SEAM_OK);
            assert_false(seam_msg_has(&f->m, "X"));
        } else
            expect_error(f, "solve: field \"F\" is missing (a solid reads F)");
    }
    solve_matches_backward_euler(f, 10);
}

/* A 2D fluid_mac with a square of 4 segments bound. */
static void bind_square(fixture *f, uint64_t id, double half, int bad_element)
{
    double X[8] = {0.5 - half, 0.5 - half, 0.5 + half, 0.5 - half, 0.5 + half, 0.5 + half, 0.5 - half, 0.5 + half};
    int32_t elems[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    if (bad_element)
        elems[5] = 1000;   /* names a point that does not exist */
    seam_wbuf w;
    request(&w, "bind", id, 7);
    seam_w_str(&w, "dim"); seam_w_int(&w, 2);
    seam_w_str(&w, "n_points"); seam_w_uint(&w, 4);
    seam_w_str(&w, "X"); seam_w_f64s(&w, X, 8);
    seam_w_str(&w, "nodes_per_elem"); seam_w_int(&w, 2);
    seam_w_str(&w, "n_elems"); seam_w_uint(&w, 4);
    seam_w_str(&w, "elems"); seam_w_i32s(&w, elems, 8);
    seam_w_str(&w, "n_bodies"); seam_w_uint(&w, 1);
    send_wbuf(f, &w);
}

/* fluid_mac on 10 x 10 cells, said hello, created and bound to a 0.2 m square (request ids 1-3). */
static fixture *small_mac_fixture(void)
{
    fixture *f = plugin_fixture("fluid_mac");
    say_hello(f);
    create_with(f, "{\"cells\": [10, 10], \"dx\": 0.1}", "fluid");
    bind_square(f, 3, 0.2, 0);
    assert_true(reply_ok(f));
    return f;
}

/* One fluid solve of the square at rest; the loads into F (8 values). */
static void solve_square(fixture *f, uint64_t id, double half, double *F)
{
    double X[8] = {0.5 - half, 0.5 - half, 0.5 + half, 0.5 - half, 0.5 + half, 0.5 + half, 0.5 - half, 0.5 + half};
    double V[8] = {0};
    seam_wbuf w;
    request(&w, "solve", id, 6);
    seam_w_str(&w, "step");
    seam_w_map(&w, 4);
    seam_w_str(&w, "index"); seam_w_int(&w, 0);
    seam_w_str(&w, "t"); seam_w_f64(&w, 0.0);
    seam_w_str(&w, "dt"); seam_w_f64(&w, 0.01);
    seam_w_str(&w, "iteration"); seam_w_int(&w, 0);
    seam_w_str(&w, "n"); seam_w_uint(&w, 4);
    seam_w_str(&w, "dim"); seam_w_uint(&w, 2);
    seam_w_str(&w, "X"); seam_w_f64s(&w, X, 8);
    seam_w_str(&w, "V"); seam_w_f64s(&w, V, 8);
    seam_w_str(&w, "out"); seam_w_array(&w, 1); seam_w_str(&w, "F");
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    uint64_t st = 9;
    assert_true(seam_msg_uint(&f->m, "status", true, &st));
    assert_int_equal(st, SEAM_OK);
    assert_true(seam_msg_f64s(&f->m, "F", true, F, 8));
}

/* hello, create, bind, a bind with a bad element, solve: the bad bind is
 * refused before the old arrays (which the plugin points into) are freed. */
static void test_refused_bind_keeps_the_bound_interface(void **state)
{
    (void)state;
    fixture *f = small_mac_fixture();
    double F0[8], F1[8];
    solve_square(f, 4, 0.2, F0);
    bind_square(f, 5, 0.2, 1);
    expect_error(f, "bind: field \"elems\": element 2 names point 1000 of 4");
    solve_square(f, 6, 0.2, F1);
    for (int i = 0; i < 8; i++)
        assert_true(F0[i] == F1[i]);
    /* a bind of the wrong X length is refused the same way */
    seam_wbuf w;
    request(&w, "bind", 7, 5);
    seam_w_str(&w, "dim"); seam_w_int(&w, 2);
    seam_w_str(&w, "n_points"); seam_w_uint(&w, 4);
    seam_w_str(&w, "X"); seam_w_f64s(&w, F0, 3);
    seam_w_str(&w, "nodes_per_elem"); seam_w_int(&w, 2);
    seam_w_str(&w, "n_elems"); seam_w_uint(&w, 0);
    send_wbuf(f, &w);
    expect_error(f, "bind: field \"X\"");
    solve_square(f, 8, 0.2, F1);
    for (int i = 0; i < 8; i++)
        assert_true(F0[i] == F1[i]);
    teardown((void **)&f);
}

/* commit with max_dt: true answers max_dt of the state it committed, the
 * same bits as a max_dt request after it; without the field, none. */
static void commit_with(fixture *f, uint64_t id, int with)
{
    seam_wbuf w;
    request(&w, "commit", id, with >= 0);
    if (with > 0) {
        seam_w_str(&w, "max_dt"); seam_w_bool(&w, true);
    } else if (with == 0) {
        seam_w_str(&w, "max_dt"); seam_w_str(&w, "yes");
    }
    send_wbuf(f, &w);
}

static void test_commit_answers_max_dt_of_the_committed_state(void **state)
{
    (void)state;
    fixture *f = small_mac_fixture();
    double F[8], before = NAN;
    uint64_t id = 4;
    for (int step = 0; step < 3; step++) {
        solve_square(f, id++, 0.2, F);
        commit_with(f, id++, 1);
        assert_true(reply_ok(f));
        seam_msg sub;
        uint64_t st = 9;
        double dt = NAN, asked = NAN;
        assert_true(seam_msg_child(&f->m, "max_dt", true, &sub));
        assert_true(seam_msg_uint(&sub, "status", true, &st));
        assert_int_equal(st, SEAM_OK);
        assert_true(seam_msg_num(&sub, "dt", true, &dt));
        seam_wbuf w;
        request(&w, "max_dt", id++, 0);
        send_wbuf(f, &w);
        assert_true(reply_ok(f));
        assert_true(seam_msg_num(&f->m, "dt", true, &asked));
        assert_memory_equal(&dt, &asked, sizeof dt);
        assert_true(dt > 0.0 && isfinite(dt));
        if (step == 2)
            assert_true(dt != before);   /* the fluid has started to move: its CFL limit follows the state */
        before = dt;
    }
    commit_with(f, id++, -1);   /* an older coupler's commit: status alone */
    assert_true(reply_ok(f));
    assert_false(seam_msg_has(&f->m, "max_dt"));
    commit_with(f, id++, 0);
    expect_error(f, "commit: field \"max_dt\"");
    teardown((void **)&f);
}

/* commit with `fields` answers, per name, what a `field` request right after
 * it answers, bit for bit; a name the plugin has no field of gets its
 * status alone; bad lists are refused before the plugin commits. */
static void commit_fields(fixture *f, uint64_t id, const char *const *names, size_t n)
{
    seam_wbuf w;
    request(&w, "commit", id, 1);
    seam_w_str(&w, "fields");
    seam_w_array(&w, n);
    for (size_t i = 0; i < n; i++)
        seam_w_str(&w, names[i]);
    send_wbuf(f, &w);
}

static void test_commit_answers_fields_of_the_committed_state(void **state)
{
    (void)state;
    fixture *f = small_mac_fixture();
    double F[8];
    uint64_t id = 4;
    static const char *const names[] = {"pressure", "no such field", "speed"};
    for (int step = 0; step < 2; step++) {
        solve_square(f, id++, 0.2, F);
        commit_fields(f, id++, names, 3);
        assert_true(reply_ok(f));
        seam_msg all, one;
        assert_true(seam_msg_child(&f->m, "fields", true, &all));
        assert_int_equal(all.n, 3);
        assert_true(seam_msg_child(&all, "no such field", true, &one));
        uint64_t st = 0;
        assert_true(seam_msg_uint(&one, "status", true, &st));
        assert_int_not_equal(st, SEAM_OK);
        double got[2][100];
        const char *const cached[] = {"pressure", "speed"};
        for (int k = 0; k < 2; k++) {
            int64_t nx = 0, ny = 0, nz = 0;
            assert_true(seam_msg_child(&all, cached[k], true, &one));
            assert_true(seam_msg_uint(&one, "status", true, &st));
            assert_int_equal(st, SEAM_OK);
            assert_true(seam_msg_int(&one, "nx", true, &nx) && seam_msg_int(&one, "ny", true, &ny) &&
                        seam_msg_int(&one, "nz", true, &nz));
            assert_true(nx == 10 && ny == 10 && nz == 1);
            assert_true(seam_msg_f64s(&one, "data", true, got[k], 100));
        }
        for (int k = 0; k < 2; k++) {   /* the same bits as field asks now */
            seam_wbuf w;
            request(&w, "field", id++, 1);
            seam_w_str(&w, "name"); seam_w_str(&w, cached[k]);
            send_wbuf(f, &w);
            assert_true(reply_ok(f));
            double asked[100];
            assert_true(seam_msg_f64s(&f->m, "data", true, asked, 100));
            assert_memory_equal(got[k], asked, sizeof asked);
        }
        double sum = 0.0;
        for (int i = 0; i < 100; i++)
            sum += fabs(got[0][i]);
        assert_true(sum > 0.0);   /* a pressure field with something in it, not zeros */
    }
    static const char *const twice[] = {"pressure", "speed", "pressure"};
    commit_fields(f, id++, twice, 3);
    expect_error(f, "commit: field \"fields\": \"pressure\" comes twice");
    static const char *const many[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    commit_fields(f, id++, many, 9);
    expect_error(f, "commit: field \"fields\": 9 names, at most 8");
    static const char *const empty[] = {""};
    commit_fields(f, id++, empty, 1);
    expect_error(f, "commit: field \"fields\": item 0 is not a field's name");
    teardown((void **)&f);
}

/* The cloth of smoke_cloth sends 42 located keys: more than the 32 fields of
 * a message, which `locations` may exceed. */
static void test_create_with_many_locations(void **state)
{
    fixture *f = *state;
    say_hello(f);
    seam_wbuf w;
    request(&w, "create", 2, 3);
    seam_w_str(&w, "config"); seam_w_str(&w, "{\"mass\": 1, \"stifness\": 3}");
    seam_w_str(&w, "name"); seam_w_str(&w, "piston");
    seam_w_str(&w, "locations");
    seam_w_map(&w, 100);
    for (int i = 0; i < 99; i++) {
        char key[32], where[32];
        snprintf(key, sizeof key, "key%d", i);
        snprintf(where, sizeof where, "scene.json:%d:1", i + 10);
        seam_w_str(&w, key);
        seam_w_str(&w, where);
    }
    seam_w_str(&w, "stifness"); seam_w_str(&w, "scene.json:7:3");
    send_wbuf(f, &w);
    assert_true(reply_ok(f));
    seam_mp items;
    size_t n = 0;
    assert_true(seam_msg_array(&f->m, "log", true, &items, &n));
    assert_true(n >= 1);
    seam_mp_value head, level, text;
    assert_true(seam_mp_next(&items, &head) && seam_mp_next(&items, &level) && seam_mp_next(&items, &text));
    char msg[512];
    snprintf(msg, sizeof msg, "%.*s", (int)text.len, (const char *)text.data);
    if (!strstr(msg, "scene.json:7:3:"))
        fail_msg("the message is not located: %s", msg);
}

/* Participant names become directory names: "../../x" must not. */
static void test_names_that_are_not_directory_names(void **state)
{
    fixture *f = *state;
    say_hello(f);
    const char *bad[] = {"../../x", "a/b", "..", ".hidden", "", "x y"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        seam_wbuf w;
        request(&w, "create", 2, 3);
        seam_w_str(&w, "config"); seam_w_str(&w, "{\"mass\": 1, \"stiffness\": 1}");
        seam_w_str(&w, "name"); seam_w_str(&w, bad[i]);
        seam_w_str(&w, "output_dir"); seam_w_str(&w, "/tmp/out");
        send_wbuf(f, &w);
        expect_error(f, "create: field \"name\": a participant name");
    }
    create_with(f, "{\"mass\": 2.0, \"stiffness\": 50.0, \"position\": 0.1}", "piston-2.b_c");
}

/* Which endpoints count as loopback, and that those documented as allowed bind. */
static void ready_stop(void *ctx, const char *endpoint)
{
    (void)endpoint;
    volatile sig_atomic_t *const *stop = ctx;   /* a pointer to the serve loop's stop flag */
    **stop = 1;
}

static void test_bind_endpoints(void **state)
{
    (void)state;
    assert_true(seam_endpoint_is_local("tcp://127.0.0.1:5555"));
    assert_true(seam_endpoint_is_local("tcp://127.3.2.1:*"));
    assert_true(seam_endpoint_is_local("tcp://localhost:5555"));
    assert_true(seam_endpoint_is_local("tcp://[::1]:5555"));
    assert_true(seam_endpoint_is_local("ipc:///tmp/x.sock"));
    assert_false(seam_endpoint_is_local("tcp://127.0.0.1:1;0.0.0.0:45679"));
    assert_false(seam_endpoint_is_local("tcp://127.0.0.1.nip.io:5555"));
    assert_false(seam_endpoint_is_local("tcp://0.0.0.0:5555"));
    assert_false(seam_endpoint_is_local("tcp://*:5555"));
    assert_false(seam_endpoint_is_local("tcp://localhost.example.com:5555"));
    char err[1024];
    seam_library *lib = seam_library_open("piston_solid", err, sizeof err);
    assert_non_null(lib);
    const seam_plugin *P = seam_library_plugin(lib);
    volatile sig_atomic_t stop = 0;
    volatile sig_atomic_t *stop_at = &stop;
    seam_serve_options o = {.heartbeat_s = 0, .stop = &stop, .on_ready = ready_stop, .ready_ctx = &stop_at};
    o.bind = "tcp://127.0.0.1:1;0.0.0.0:*";
    assert_int_equal(seam_serve(P, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "source;destination"));
    const char *good[] = {"tcp://localhost:*", "tcp://[::1]:*", "tcp://127.0.0.1:*"};
    for (size_t i = 0; i < 3; i++) {
        stop = 0;
        o.bind = good[i];
        if (seam_serve(P, &o, err, sizeof err) != 0)
            fail_msg("%s: %s", good[i], err);
        assert_true(stop);
    }
    seam_library_close(&lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f64_round_trip_is_bit_exact),
        cmocka_unit_test(test_integers_and_strings_decode_by_width),
        cmocka_unit_test(test_lying_lengths_are_refused_before_use),
        cmocka_unit_test(test_bin_in_place_unless_split),
        cmocka_unit_test(test_frames_over_a_socket),
        cmocka_unit_test(test_empty_frames_into_a_fresh_receiver),
        cmocka_unit_test(test_writing_an_array_too_large_is_refused),
        cmocka_unit_test(test_frames_without_memory_are_dropped),
        cmocka_unit_test_setup_teardown(test_malformed_requests_get_errors_and_serving_goes_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_relays_located_config_errors, setup, teardown),
        cmocka_unit_test(test_fluid_rebind_to_a_larger_interface),
        cmocka_unit_test(test_out_of_band_arrays_in_any_split),
        cmocka_unit_test(test_protocol_1_clients_get_arrays_inline),
        cmocka_unit_test_setup_teardown(test_server_defaults_fill_in_what_the_coupler_leaves_out, setup, teardown),
        cmocka_unit_test(test_busy_reply_into_an_uninitialized_buffer),
        cmocka_unit_test_setup_teardown(test_error_replies_are_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solve_without_out_or_inputs, setup, teardown),
        cmocka_unit_test(test_refused_bind_keeps_the_bound_interface),
        cmocka_unit_test(test_commit_answers_max_dt_of_the_committed_state),
        cmocka_unit_test(test_commit_answers_fields_of_the_committed_state),
        cmocka_unit_test_setup_teardown(test_create_with_many_locations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_that_are_not_directory_names, setup, teardown),
        cmocka_unit_test(test_bind_endpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
