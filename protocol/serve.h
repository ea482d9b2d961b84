/* seam-serve's loop: one plugin, one coupler at a time, over ZeroMQ. */
#ifndef SEAM_SERVE_H
#define SEAM_SERVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"

typedef struct seam_serve_options {
    const char *bind;            /* tcp://127.0.0.1:5555, ipc:///path, inproc://name */
    const char *curve_secret;    /* server's Z85 secret key: enables CURVE; NULL: none */
    const char *const *allow;    /* Z85 public keys of the couplers let in (CURVE) */
    size_t n_allow;
    bool once;                   /* exit after the bye of the first session that solved */
    double heartbeat_s;          /* ZeroMQ heartbeat interval; dead peer after 3 */
    volatile sig_atomic_t *stop; /* set (by a signal handler) to end the loop */
    /* Set to 1 while the plugin handles a request, 0 between requests (NULL:
     * not kept): a signal handler that finds it 1 knows the loop may never
     * look at `stop` again (a plugin stuck in solve) and ends the process. */
    volatile sig_atomic_t *busy;
    void *zmq_ctx;               /* NULL: a context of its own */
    const char *defaults;        /* JSON object of configuration keys the coupler may override; NULL: none */
    /* Called once bound, with the endpoint actually bound (a port given as
     * `*` resolved); may be NULL. */
    void (*on_ready)(void *ctx, const char *endpoint);
    void *ready_ctx;
} seam_serve_options;

/* Whether an endpoint stays on this machine (ipc, inproc, tcp on a loopback
 * address). */
bool seam_endpoint_is_local(const char *endpoint);

/* Serve p until stopped (or the session ends with once). The calling
 * thread reads the requests and calls the plugin; while a call runs longer
 * than a tick (50-100 ms), a second thread it starts (asynchronous signals
 * blocked) answers the socket in its place (PROTOCOL.md, Sessions).
 * 0, or -1 with a message in err (bad endpoint, CURVE rules, bind failure,
 * no thread). */
int seam_serve(const seam_plugin *p, const seam_serve_options *o, char *err, size_t errlen);

#endif
