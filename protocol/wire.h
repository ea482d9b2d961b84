/* The seam wire format: MessagePack maps, arrays as bin of little-endian
 * numbers (PROTOCOL.md). Encoding goes through msgpack-c's packer; decoding
 * is a bounded, allocation-free reader over the received bytes, so hostile
 * input (truncated, nested too deep, absurd lengths) is refused by value. */
#ifndef SEAM_WIRE_H
#define SEAM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#define SEAM_PROTOCOL_VERSION 1u
#define SEAM_WIRE_MAX_FIELDS 32      /* keys in one map */
#define SEAM_WIRE_MAX_DEPTH 16       /* nesting of maps and arrays */
/* Largest frame a socket accepts (ZMQ_MAXMSGSIZE, bytes): 2 GiB, some 2.7e8
 * doubles. ZeroMQ drops a peer that sends more, before anything is buffered. */
#define SEAM_WIRE_MAX_MESSAGE ((int64_t)1 << 31)

/* ---- writing ------------------------------------------------------------ */

typedef struct seam_wbuf {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} seam_wbuf;

/* An empty buffer with room for `reserve` bytes (0: msgpack's default). */
void seam_wbuf_init(seam_wbuf *w, size_t reserve);
void seam_wbuf_free(seam_wbuf *w);
/* Hand the bytes to the caller (free() them); the buffer is empty after. */
char *seam_wbuf_release(seam_wbuf *w, size_t *size);

void seam_w_map(seam_wbuf *w, size_t n);
void seam_w_array(seam_wbuf *w, size_t n);
void seam_w_str(seam_wbuf *w, const char *s);
void seam_w_uint(seam_wbuf *w, uint64_t v);
void seam_w_int(seam_wbuf *w, int64_t v);
void seam_w_f64(seam_wbuf *w, double v);
void seam_w_bool(seam_wbuf *w, bool v);
void seam_w_nil(seam_wbuf *w);
void seam_w_bin(seam_wbuf *w, const void *data, size_t size);
/* n doubles as bin of little-endian float64 (8n bytes); NULL writes nil. */
void seam_w_f64s(seam_wbuf *w, const double *x, size_t n);
/* n int32 as bin of little-endian int32 (4n bytes); NULL writes nil. */
void seam_w_i32s(seam_wbuf *w, const int32_t *x, size_t n);

/* ---- reading ------------------------------------------------------------ */

/* A position in a MessagePack byte string. */
typedef struct seam_mp {
    const uint8_t *p, *end;
} seam_mp;

/* Value kinds as the reader sees them. */
typedef enum seam_mp_kind {
    SEAM_MP_INVALID, SEAM_MP_NIL, SEAM_MP_BOOL, SEAM_MP_UINT, SEAM_MP_INT, SEAM_MP_FLOAT,
    SEAM_MP_STR, SEAM_MP_BIN, SEAM_MP_ARRAY, SEAM_MP_MAP, SEAM_MP_EXT
} seam_mp_kind;

/* One decoded scalar or the header of a container. */
typedef struct seam_mp_value {
    seam_mp_kind kind;
    bool b;
    uint64_t u;
    int64_t i;
    double f;
    const uint8_t *data;     /* str, bin: the bytes (not NUL-terminated) */
    size_t len;              /* str, bin: bytes; array, map: entries */
} seam_mp_value;

/* Read one value's head; containers leave the cursor on their first entry.
 * Returns false on truncated or unknown input. */
bool seam_mp_next(seam_mp *c, seam_mp_value *v);
/* Skip one whole value (containers included), at most `depth` levels deep. */
bool seam_mp_skip(seam_mp *c, int depth);
const char *seam_mp_kind_name(seam_mp_kind k);

/* A map whose keys are strings, indexed for lookup by key. */
typedef struct seam_msg {
    size_t n;
    struct {
        const char *key;
        size_t klen;
        seam_mp val;         /* the value's bytes */
    } f[SEAM_WIRE_MAX_FIELDS];
    char error[256];         /* the first problem found, "" when none */
} seam_msg;

/* Index the map at the start of [data, data+len); the whole input must be
 * exactly one map. Returns false with m->error set. */
bool seam_msg_parse(seam_msg *m, const void *data, size_t len);
/* Index the map held by field `key` of m (sub borrows m's bytes). */
bool seam_msg_child(seam_msg *m, const char *key, bool required, seam_msg *sub);

/* Typed getters: true when the field is present with the right type and the
 * value was stored. When absent, false (and an error if required); when of
 * the wrong type, false and an error naming the field, what was expected
 * and what came. The first error is kept in m->error. */
bool seam_msg_has(const seam_msg *m, const char *key);
bool seam_msg_is_nil(const seam_msg *m, const char *key);
bool seam_msg_str(seam_msg *m, const char *key, bool required, const char **s, size_t *len);
/* A copy into buf (NUL-terminated); too long is an error. */
bool seam_msg_strcpy(seam_msg *m, const char *key, bool required, char *buf, size_t size);
bool seam_msg_uint(seam_msg *m, const char *key, bool required, uint64_t *v);
bool seam_msg_int(seam_msg *m, const char *key, bool required, int64_t *v);
bool seam_msg_bool(seam_msg *m, const char *key, bool required, bool *v);
/* float64, float32 or an integer (converted). */
bool seam_msg_num(seam_msg *m, const char *key, bool required, double *v);
bool seam_msg_bin(seam_msg *m, const char *key, bool required, const void **data, size_t *len);
/* Exactly n little-endian float64 (int32) from a bin into out. */
bool seam_msg_f64s(seam_msg *m, const char *key, bool required, double *out, size_t n);
bool seam_msg_i32s(seam_msg *m, const char *key, bool required, int32_t *out, size_t n);
/* Like seam_msg_f64s/i32s, into a fresh malloc'ed array (caller frees); the
 * length is checked before anything is allocated. NULL when absent or bad. */
double *seam_msg_f64s_alloc(seam_msg *m, const char *key, bool required, size_t n);
int32_t *seam_msg_i32s_alloc(seam_msg *m, const char *key, bool required, size_t n);
uint8_t *seam_msg_bytes_alloc(seam_msg *m, const char *key, bool required, size_t n);
/* An array: its count and a cursor on its first item. */
bool seam_msg_array(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count);
/* Record an error of the caller's own (kept only when none came before). */
void seam_msg_fail(seam_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Little-endian float64 bytes to host doubles and back (n values). */
void seam_le_to_f64(double *out, const void *le, size_t n);
void seam_f64_to_le(void *le, const double *x, size_t n);

#endif
