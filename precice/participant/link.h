/* The participant's line to the seam coupler (precice/PROTOCOL.md):
 * finding or starting the coupler of a configuration, and one request at a
 * time over a ZeroMQ DEALER socket, waiting while the coupler lives. */
#ifndef SEAM_PRECICE_LINK_H
#define SEAM_PRECICE_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include <msgpack.h>

typedef struct precice_link precice_link;

/* The configuration's key: FNV-1a (64 bits) of the file's bytes, 16 hex
 * digits and a NUL in hash. False (message in err) when unreadable. */
bool precice_link_config_hash(const char *path, char hash[17], char *err, size_t errlen);

/* Find the coupler for config_path (absolute) whose key is hash, looking in
 * exchange_dir (absolute) then in the configuration's directory, starting
 * one when none runs; connect. NULL with a message in err on failure. */
precice_link *precice_link_open(const char *config_path, const char *hash, const char *exchange_dir,
                                char *err, size_t errlen);

/* Send one request (a packed MessagePack map) and wait for its reply while
 * the coupler lives. The reply's root map is in *reply (to be destroyed by
 * the caller; its strings and bins stay valid until the next request) when true; false with a message in err: the coupler died, or
 * replied ok: false (its error text), or sent something unreadable. */
bool precice_link_request(precice_link *l, const msgpack_sbuffer *request, msgpack_unpacked *reply,
                          char *err, size_t errlen);

void precice_link_close(precice_link **self_p);

#endif
