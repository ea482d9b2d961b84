/* The coupler's proxy: a solver in another process (or on another host)
 * behind a seam_plugin table whose functions each do one request/reply over
 * ZeroMQ. The coupler cannot tell it from a local plugin, and the numbers
 * travel as raw float64, so results are bit-identical.
 *
 * The table is an ordinary plugin table: its create (handed the table, as
 * every create is) sends create to the server and returns the remote itself
 * as the instance. After a successful create the instance owns the remote
 * (destroy ends the session, closes the connection and stops a spawned
 * server); after a failed one, or without one, seam_remote_close does. */
#ifndef SEAM_REMOTE_H
#define SEAM_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"

#define SEAM_REMOTE_TIMEOUT_S 600.0       /* default per-operation limit */
/* Without an explicit timeout, a solve by a server this coupler started
 * (spawned or launched) has no time limit while the server's processes work:
 * it is hung once they have used no CPU time for this long. Heartbeats catch
 * a dead or frozen server sooner. */
#define SEAM_REMOTE_STALL_S 10.0
#define SEAM_REMOTE_HEARTBEAT_S 1.0       /* default heartbeat interval; dead after 3 missed */
#define SEAM_REMOTE_START_TIMEOUT_S 10.0  /* default wait for the first answer (hello) */
#define SEAM_REMOTE_RECONNECT_MS 5        /* a spawned server's socket is tried this often until it is bound */

typedef struct seam_remote seam_remote;

typedef struct seam_remote_options {
    const char *name;            /* the participant, for messages */
    double timeout_s;            /* per operation; <= 0: wait for ever (heartbeats still watch) */
    bool adaptive;               /* no explicit timeout: a started server's solves are limited by SEAM_REMOTE_STALL_S */
    double heartbeat_s;          /* <= 0: no heartbeats */
    double start_timeout_s;      /* hello */
    const char *server_key;      /* Z85 public key of a CURVE server; NULL: plain */
    const char *client_public;   /* Z85 key pair of this coupler (with server_key) */
    const char *client_secret;
} seam_remote_options;

/* Connect to a running server and say hello. NULL with a message in err. */
seam_remote *seam_remote_connect(const char *endpoint, const seam_remote_options *o, char *err, size_t errlen);
/* Start seam-serve for `plugin` (name or path) on an ipc endpoint in a
 * private temporary directory, and say hello. */
seam_remote *seam_remote_spawn(const char *plugin, const seam_remote_options *o, char *err, size_t errlen);
/* Start the program command[0] (NULL-terminated; searched on PATH when it
 * has no slash) in the directory `cwd` (NULL: this one) with its arguments
 * and `--bind ENDPOINT --once`, the endpoint an ipc socket in a private
 * temporary directory, and say hello: a server written in any language. */
seam_remote *seam_remote_launch(const char *const *command, const char *cwd, const seam_remote_options *o,
                                char *err, size_t errlen);
/* The table the coupler calls, every entry the server's plugin provides
 * (see above). Owned by r. */
const seam_plugin *seam_remote_plugin(const seam_remote *r);
const char *seam_remote_endpoint(const seam_remote *r);
/* The server this coupler started (seam-serve by its path, or the command's
 * program and first argument) and its pid; NULL and 0 for a connected one. */
const char *seam_remote_program(const seam_remote *r);
long seam_remote_pid(const seam_remote *r);
/* Wait for the answer to the hello that seam_remote_begin sent (the
 * three functions above wait themselves): 0, or -1 with a message in err
 * (the caller closes r). Until it returns 0 the table is incomplete. */
int seam_remote_ready(seam_remote *r, char *err, size_t errlen);
/* A commit in two halves, so that several remote participants commit at
 * once: begin sends the commit of r's instance (0, or -1 after reporting),
 * end waits for its reply within the participant's timeout, counted from
 * begin, and returns the plugin's status (SEAM_ERROR after reporting, and
 * when no commit was begun). No other call on r may come between them.
 * The table's commit is begin followed by end. */
int seam_remote_commit_begin(seam_remote *r);
seam_status seam_remote_commit_end(seam_remote *r);
/* Where the run stands, for messages, when the proxy cannot tell from the
 * calls it sees: before a checkpoint's state is loaded, steps_done steps
 * to time t. */
void seam_remote_at(seam_remote *r, long steps_done, double t);
/* Close without an instance (the instance's destroy does this itself). */
void seam_remote_close(seam_remote **self_p);

/* Where a participant's server is and how to watch it: coupler/remote_keys.c
 * reads it from the scene's keys (process, connect, command, ...). */
typedef struct seam_remote_start {
    const char *connect;          /* the endpoint of a running server, or NULL */
    const char *const *command;   /* a server program and its arguments (NULL-terminated), or NULL: seam-serve */
    const char *cwd;              /* where the command runs (the scene's directory); NULL: here */
    const char *plugin;           /* the plugin's name or path; with connect or command NULL, or checked at ready */
    seam_remote_options o;
} seam_remote_start;

/* Connect, launch the command, or spawn seam-serve for the plugin, and send
 * hello without waiting for the answer: the caller starts its other
 * participants meanwhile and then calls seam_remote_ready. NULL with a
 * message in err. */
seam_remote *seam_remote_begin(const seam_remote_start *s, char *err, size_t errlen);

#endif
