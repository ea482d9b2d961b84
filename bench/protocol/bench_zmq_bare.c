/* The ceiling under the protocol: bare libzmq moving the bytes of a fluid
 * solve (16n bytes in, 8n back) between two processes, with no MessagePack
 * and no plugin, so bench_protocol's numbers can be read against it.
 *
 *     bench_zmq_bare [N_DOUBLES [CHUNK_BYTES [BUF_BYTES [WORK_US [REPS]]]]]
 *
 * CHUNK_BYTES 0 sends each direction as one frame; otherwise as frames of at
 * most CHUNK_BYTES. BUF_BYTES sets ZMQ_SNDBUF and ZMQ_RCVBUF (0: the OS's).
 * WORK_US (default 0): the server computes that long (a clock loop, as a
 * solve would) before it answers, so the client sleeps as long as it does
 * waiting for a solve: on a virtual machine a longer sleep ends in a slower
 * wake-up. REPS (default 5) round trips are timed; the table gives the
 * fastest and the median, WORK_US taken off both. */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The server's stand-in for a solve: the CPU busy for s seconds. */
static void compute_for(double s)
{
    for (double t0 = now_s(); now_s() - t0 < s;)
        ;
}

static void set_int(void *sock, int option, int value) { zmq_setsockopt(sock, option, &value, sizeof value); }

static void tune(void *sock, int buf)
{
    if (buf > 0) {
        set_int(sock, ZMQ_SNDBUF, buf);
        set_int(sock, ZMQ_RCVBUF, buf);
    }
    set_int(sock, ZMQ_LINGER, 0);
}

/* Send size bytes of data as frames of at most chunk (0: one frame); not
 * const: zmq_msg_init_data takes the bytes without a copy. */
static void send_all(void *sock, char *data, size_t size, size_t chunk, int first_flags)
{
    if (chunk == 0)
        chunk = size ? size : 1;
    size_t off = 0;
    do {
        size_t len = size - off < chunk ? size - off : chunk;
        zmq_msg_t m;
        zmq_msg_init_data(&m, data + off, len, NULL, NULL);   /* data outlives the send below */
        off += len;
        zmq_msg_send(&m, sock, (off < size ? ZMQ_SNDMORE : 0) | first_flags);
    } while (off < size);
}

/* Receive all frames of one message into buf (at most cap bytes); bytes got. */
static size_t recv_all(void *sock, char *buf, size_t cap, zmq_msg_t *routing)
{
    size_t got = 0;
    int more = 1;
    bool first = true;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, sock, 0) < 0)
            return got;
        more = zmq_msg_more(&m);
        if (first && routing) {
            zmq_msg_move(routing, &m);
            first = false;
            continue;
        }
        size_t n = zmq_msg_size(&m);
        if (got + n <= cap)
            memcpy(buf + got, zmq_msg_data(&m), n);
        got += n;
        zmq_msg_close(&m);
    }
    return got;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atof(argv[1]) : 10000000;
    size_t chunk = argc > 2 ? (size_t)atof(argv[2]) : 0;
    int buf = argc > 3 ? (int)atof(argv[3]) : 0;
    double work = argc > 4 ? 1e-6 * atof(argv[4]) : 0.0;
    int reps = argc > 5 ? atoi(argv[5]) : 5;
    if (reps < 1 || !(work >= 0.0)) {
        fprintf(stderr, "usage: bench_zmq_bare [N_DOUBLES [CHUNK_BYTES [BUF_BYTES [WORK_US >= 0 [REPS >= 1]]]]]\n");
        return 2;
    }
    size_t in = 16 * n, out = 8 * n;
    static const char *const eps[] = {"ipc:///tmp/seam-bench-bare.ipc", "tcp://127.0.0.1:47321"};
    printf("# bare libzmq, %zu doubles: %zu bytes in, %zu back; chunk %zu, buffers %d; server computes %g us, "
           "%d round trips\n", n, in, out, chunk, buf, 1e6 * work, reps);
    printf("%-5s %10s %10s %10s\n", "", "ms", "GB/s", "median ms");
    for (int e = 0; e < 2; e++) {
        pid_t pid = fork();
        if (pid == 0) {   /* server: receive the request, answer 8n bytes */
            void *ctx = zmq_ctx_new();
            void *s = zmq_socket(ctx, ZMQ_ROUTER);
            tune(s, buf);
            zmq_bind(s, eps[e]);
            char *req = malloc(in), *rep = malloc(out);
            memset(rep, 1, out);
            for (;;) {
                zmq_msg_t id;
                zmq_msg_init(&id);
                size_t got = recv_all(s, req, in, &id);
                if (got == 0)
                    break;
                compute_for(work);
                zmq_msg_send(&id, s, ZMQ_SNDMORE);
                send_all(s, rep, out, chunk, 0);
            }
            _exit(0);
        }
        void *ctx = zmq_ctx_new();
        void *s = zmq_socket(ctx, ZMQ_DEALER);
        tune(s, buf);
        zmq_connect(s, eps[e]);
        char *req = malloc(in), *rep = malloc(out);
        memset(req, 2, in);
        double *took = malloc((size_t)reps * sizeof *took);
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            send_all(s, req, in, chunk, 0);
            size_t got = recv_all(s, rep, out, NULL);
            if (got != out)
                fprintf(stderr, "got %zu of %zu bytes\n", got, out);
            took[r] = now_s() - t0 - work;
        }
        send_all(s, "", 0, 0, 0);   /* an empty request stops the server */
        qsort(took, (size_t)reps, sizeof *took, by_value);
        double best = took[0];
        printf("%-5s %10.3f %10.2f %10.3f\n", e ? "tcp" : "ipc", 1e3 * best, (double)(in + out) / best / 1e9,
               1e3 * took[reps / 2]);
        printf("@row transport=%s doubles=%zu chunk=%zu buffers=%d work_us=%g reps=%d best_ms=%.4f GBs=%.3f"
               " median_ms=%.4f\n", e ? "tcp" : "ipc", n, chunk, buf, 1e6 * work, reps, 1e3 * best,
               (double)(in + out) / best / 1e9, 1e3 * took[reps / 2]);
        free(took);
        waitpid(pid, NULL, 0);
        zmq_close(s);
        zmq_ctx_term(ctx);
        free(req);
        free(rep);
    }
    return 0;
}
