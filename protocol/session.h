/* The server side of the protocol for one plugin: decodes a request, calls
 * the plugin table, encodes the reply (PROTOCOL.md). No sockets here, so the
 * decoder can be tested and fuzzed on bytes alone. */
#ifndef SEAM_SESSION_H
#define SEAM_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"
#include "wire.h"

typedef struct seam_session seam_session;

seam_session *seam_session_new(const seam_plugin *p);
/* Whether the session answers the op of a plugin-table entry (every entry
 * but create and destroy has one). */
bool seam_session_serves(const char *entry);
/* Keys every create gets unless the coupler's configuration sets them
 * (seam-serve --config): a JSON object. 0, or -1 with a message in err. */
int seam_session_set_defaults(seam_session *s, const char *json_object, char *err, size_t errlen);
void seam_session_destroy(seam_session **self_p);

/* Handle one request of len bytes; w receives the reply (w is initialized
 * here; the caller frees or releases it). *ended is set when the request
 * closed the session (bye). Never fails: bad input gets an error reply. */
void seam_session_handle(seam_session *s, const void *req, size_t len, seam_wbuf *w, bool *ended);
/* The same for a request of several frames: the map in req, the frames
 * after it in parts (protocol 2's out-of-band arrays). */
void seam_session_handle_parts(seam_session *s, const void *req, size_t len, const seam_part *parts,
                               size_t n_parts, seam_wbuf *w, bool *ended);
/* Whether a coupler has said hello and not yet bye. */
bool seam_session_open(const seam_session *s);
/* Whether the last instance was asked to solve: its coupler ran steps,
 * rather than only creating it to check a scene (`seam validate`). */
bool seam_session_stepped(const seam_session *s);
/* Forget the coupler: destroy the instance (its coupler vanished). */
void seam_session_reset(seam_session *s);

/* The op of a request and its id, without handling it; false when the bytes
 * are not a request. */
bool seam_request_peek(const void *req, size_t len, char *op, size_t op_size, uint64_t *id);
/* An error reply {id, ok: false, error} into w (initialized here). */
void seam_reply_error(seam_wbuf *w, uint64_t id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Role names on the wire. */
const char *seam_wire_role(seam_role r);
int seam_wire_role_parse(const char *s, size_t len);   /* -1 when unknown */

#endif
