/* MessagePack pieces of the participant protocol (precice/PROTOCOL.md):
 * strings, little-endian f64/i32 arrays as bin, and typed lookups in a
 * reply's maps. */
#ifndef SEAM_PRECICE_MESSAGE_H
#define SEAM_PRECICE_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <msgpack.h>

void msg_str(msgpack_packer *pk, const char *s);
void msg_f64(msgpack_packer *pk, const double *v, size_t n);
void msg_i32(msgpack_packer *pk, const int *v, size_t n);

/* The value of key in map m, or NULL (also when m is not a map). */
const msgpack_object *msg_get(const msgpack_object *m, const char *key);
bool msg_bool(const msgpack_object *m, const char *key, bool *out);
bool msg_double(const msgpack_object *m, const char *key, double *out);
/* A string value as a NUL-terminated copy in out (false when absent or too long). */
bool msg_string(const msgpack_object *m, const char *key, char *out, size_t len);
/* A bin of f64 or i32: a new array (free it) and its length; false when
 * absent, not a bin or not a whole number of elements. */
bool msg_f64_array(const msgpack_object *o, double **out, size_t *n);
bool msg_i32_array(const msgpack_object *o, int **out, size_t *n);

#endif
