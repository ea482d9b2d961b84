/* The ceiling under the protocol: bare libzmq moving the bytes of a fluid
 * solve (16n bytes in, 8n back) between two processes, with no MessagePack
 * and no plugin, so bench_protocol's numbers can be read against it.
 *
 *     bench_zmq_bare [N_DOUBLES [CHUNK_BYTES [BUF_BYTES]]]
 *
 * CHUNK_BYTES 0 sends each direction as one frame; otherwise as frames of at
 * most CHUNK_BYTES. BUF_BYTES sets ZMQ_SNDBUF and ZMQ_RCVBUF (0: the OS's). */
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

static void set_int(void *sock, int option, int value) { zmq_setsockopt(sock, option, &value, sizeof value); }

static void tune(void *sock, int buf)
{
    if (buf > 0) {
        set_int(sock, ZMQ_SNDBUF, buf);
        set_int(sock, ZMQ_RCVBUF, buf);
    }
    set_int(sock, ZMQ_LINGER, 0);
}

/* Send size bytes of data as frames of at most chunk (0: one frame). */
static void send_all(void *sock, const char *data, size_t size, size_t chunk, int first_flags)
{
    if (chunk == 0)
        chunk = size ? size : 1;
    size_t off = 0;
    do {
        size_t len = size - off < chunk ? size - off : chunk;
        zmq_msg_t m;
        zmq_msg_init_data(&m, (char *)data + off, len, NULL, NULL);   /* data outlives the send below */
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
    size_t in = 16 * n, out = 8 * n;
    static const char *const eps[] = {"ipc:///tmp/seam-bench-bare.ipc", "tcp://127.0.0.1:47321"};
    printf("# bare libzmq, %zu doubles: %zu bytes in, %zu back; chunk %zu, buffers %d\n", n, in, out, chunk, buf);
    printf("%-5s %10s %10s\n", "", "ms", "GB/s");
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
        double best = INFINITY;
        for (int r = 0; r < 5; r++) {
            double t0 = now_s();
            send_all(s, req, in, chunk, 0);
            size_t got = recv_all(s, rep, out, NULL);
            if (got != out)
                fprintf(stderr, "got %zu of %zu bytes\n", got, out);
            best = fmin(best, now_s() - t0);
        }
        send_all(s, "", 0, 0, 0);   /* an empty request stops the server */
        printf("%-5s %10.3f %10.2f\n", e ? "tcp" : "ipc", 1e3 * best, (double)(in + out) / best / 1e9);
        waitpid(pid, NULL, 0);
        zmq_close(s);
        zmq_ctx_term(ctx);
        free(req);
        free(rep);
    }
    return 0;
}
