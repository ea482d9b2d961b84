/* The seam wire format: MessagePack maps, arrays as bin of little-endian
 * numbers (PROTOCOL.md). Encoding goes through msgpack-c's packer; decoding
 * is a bounded, allocation-free reader over the received bytes, so hostile
 * input (truncated, nested too deep, absurd lengths) is refused by value. */
#ifndef SEAM_WIRE_H
#define SEAM_WIRE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>
#include <zmq.h>

#define SEAM_PROTOCOL_VERSION 2u
#define SEAM_PROTOCOL_OLDEST 1u      /* hello with 1..2 is served; 1: no out-of-band arrays */
#define SEAM_WIRE_MAX_FIELDS 32      /* keys in one map */
#define SEAM_WIRE_MAX_DEPTH 16       /* nesting of maps and arrays */
#define SEAM_COMMIT_FIELDS_MAX 8     /* names in a commit's `fields` (PROTOCOL.md) */
#define SEAM_COMMIT_FIELDS_BYTES ((size_t)256 << 20)   /* what a commit's reply carries of them, at most */
/* Largest frame a socket accepts (ZMQ_MAXMSGSIZE, bytes): 2 GiB, some 2.7e8
 * doubles. ZeroMQ drops a peer that sends more, before anything is buffered. */
#define SEAM_WIRE_MAX_MESSAGE ((int64_t)1 << 31)
/* Out-of-band arrays (protocol 2, PROTOCOL.md "Frames"): a bin of at least
 * SEAM_WIRE_OOB_MIN bytes travels as ext SEAM_WIRE_OOB_EXT (its length) in
 * the MessagePack frame and its bytes in frames of their own, at most
 * SEAM_WIRE_CHUNK bytes each. A message has at most SEAM_WIRE_MAX_PARTS such
 * frames holding at most SEAM_WIRE_MAX_MESSAGE bytes in all. */
#define SEAM_WIRE_OOB_EXT 1
#define SEAM_WIRE_OOB_MIN ((size_t)64 * 1024)
#ifndef SEAM_WIRE_CHUNK      /* -DSEAM_WIRE_CHUNK=... to measure another frame size */
#define SEAM_WIRE_CHUNK ((size_t)256 * 1024)
#endif
#define SEAM_WIRE_MAX_PARTS 16384
/* The bytes an array of `size` bytes adds to the MessagePack frame under
 * protocol `proto`: all of them inline, none out of band (for reserving). */
static inline size_t seam_wire_inline(unsigned proto, size_t size)
{
    return proto >= 2 && size >= SEAM_WIRE_OOB_MIN ? 0 : size;
}
/* ZMQ_SNDBUF and ZMQ_RCVBUF of both ends (bytes; the kernel caps them at
 * net.core.wmem_max / rmem_max): fewer, larger reads and writes. */
#define SEAM_WIRE_SOCKBUF (4 << 20)

/* A reference-counted byte buffer: arrays handed to ZeroMQ without a copy
 * stay alive until the last frame that points into them is sent. */
typedef struct seam_shared seam_shared;
seam_shared *seam_shared_new(size_t size);            /* one reference, zero-filled */
void *seam_shared_data(seam_shared *sh);
void seam_shared_ref(seam_shared *sh);
void seam_shared_unref(seam_shared *sh);               /* NULL is fine */
/* Whether anyone but the caller's one reference holds it (frames in flight). */
bool seam_shared_busy(const seam_shared *sh);

/* ---- writing ------------------------------------------------------------ */

/* An array that travels out of band: size bytes at data, kept alive by a
 * reference on owner, or (owner NULL) by the sender until the reply came. */
typedef struct seam_attach {
    const void *data;
    size_t size;
    seam_shared *owner;
} seam_attach;

typedef struct seam_wbuf {
    msgpack_sbuffer sb;
    msgpack_packer pk;
    size_t oob_min;          /* bins this large go out of band; SIZE_MAX: never (the default) */
    seam_attach *att;        /* the out-of-band arrays, in the order of their markers */
    size_t n_att, cap_att;
    int failed;              /* 0, or why the message is incomplete (seam_wire_send refuses it): ENOMEM (an
                              * allocation failed), EMSGSIZE (an array over SEAM_WIRE_MAX_MESSAGE bytes) */
} seam_wbuf;

/* An empty buffer with room for `reserve` bytes (0: msgpack's default);
 * everything inline until oob_min is set. */
void seam_wbuf_init(seam_wbuf *w, size_t reserve);
/* Free the bytes and drop the attachments' references. */
void seam_wbuf_free(seam_wbuf *w);
/* Hand the MessagePack bytes to the caller (free() them); attachments stay. */
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
/* n doubles as bin of little-endian float64 (8n bytes); NULL writes nil.
 * Out of band (when large enough), the bytes are copied. */
void seam_w_f64s(seam_wbuf *w, const double *x, size_t n);
/* The same without a copy when out of band: x must stay as it is while the
 * frames are in flight, which a reference on owner ensures (owner NULL: the
 * caller ensures it, see seam_wire_send). */
void seam_w_f64s_ref(seam_wbuf *w, const double *x, size_t n, seam_shared *owner);
/* n int32 as bin of little-endian int32 (4n bytes); NULL writes nil. */
void seam_w_i32s(seam_wbuf *w, const int32_t *x, size_t n);

/* ---- frames ------------------------------------------------------------- */

/* One frame's bytes. */
typedef struct seam_part {
    const uint8_t *data;
    size_t len;
} seam_part;

/* Send w as one message: the MessagePack frame (with first_flags, e.g.
 * ZMQ_DONTWAIT, plus ZMQ_SNDMORE when arrays follow), then each attachment
 * in frames of at most SEAM_WIRE_CHUNK bytes, without copying. Frames of
 * attachments without owner count up *borrowed while ZeroMQ holds them
 * (borrowed NULL: those are copied).
 * Returns 0, or -1 with errno from the first frame and w untouched (try
 * again); w is freed once sent. A w whose writing failed is not sent: -1
 * with errno w->failed (ENOMEM or EMSGSIZE), and w is freed. */
int seam_wire_send(void *sock, seam_wbuf *w, int first_flags, atomic_size_t *borrowed);

/* ZeroMQ allocates a buffer for every frame it receives, and solvers free
 * and allocate grid-sized scratch arrays every step; with glibc's defaults,
 * freed blocks go back to the kernel and the next ones land in fresh pages,
 * which the kernel must map one page fault at a time (5-9 us each on a VM:
 * 200+ ms for 160 MB). Both ends of a connection and `seam run` call this
 * once (process-wide, glibc only): freed memory is kept for reuse
 * (M_TRIM_THRESHOLD 1 GiB) and blocks below 4 MiB come from the heap
 * (M_MMAP_THRESHOLD). */
void seam_wire_tune_malloc(void);

/* The frames of one received message: part[0] is the MessagePack map (kept
 * as ZeroMQ received it); the frames after it are copied, as they arrive,
 * into one buffer that lives from message to message, so their bytes land
 * in memory that is already mapped and ZeroMQ's frame buffers are recycled
 * at once. */
/* Where a receiver wants an out-of-band value to land: the value of the
 * top-level field `key` of the message with `id`, when it is exactly `size`
 * bytes (on a little-endian host). */
typedef struct seam_frames_dest {
    const char *key;
    void *data;
    size_t size;
} seam_frames_dest;

typedef struct seam_frames {
    zmq_msg_t head;
    seam_part *part;
    size_t n, cap;
    size_t bytes;            /* after the map, in buf */
    uint8_t *buf;            /* the frames after the map, back to back */
    size_t buf_cap;
    const seam_frames_dest *dest;   /* set by the receiver while it waits for one reply (NULL: none) */
    size_t n_dest;
    uint64_t dest_id;
} seam_frames;

void seam_frames_init(seam_frames *f);
/* Forget the message (the buffer stays for the next). */
void seam_frames_clear(seam_frames *f);
void seam_frames_free(seam_frames *f);
/* The next frame of a message whose first frame was read. ZeroMQ hands a
 * message's frames over together, yet a read can still fail with EINTR
 * (a signal caught while libzmq checks its command mailbox, every 100th
 * read): it is retried, so the rest of the message is never taken for a new
 * one. Returns zmq_msg_recv's value. */
int seam_wire_recv_more(zmq_msg_t *m, void *sock);

/* Receive the rest of a message whose first frame `first` (a zmq_msg_t,
 * taken over) came. The frames of a value named in f->dest (when the map's
 * id is f->dest_id) are copied straight to its destination, where the
 * message's parts then point (seam_msg_f64s into that same array copies
 * nothing); the others into f's buffer. Returns 0; -1 when a frame could not be read (or not
 * even the map could be indexed: the message is dropped);
 * SEAM_FRAMES_OVER when the message had more than SEAM_WIRE_MAX_PARTS frames
 * or SEAM_WIRE_MAX_MESSAGE bytes after the map, SEAM_FRAMES_NOMEM when its
 * frames did not fit in memory (either way the rest is drained and dropped;
 * f keeps the map). */
#define SEAM_FRAMES_OVER 1
#define SEAM_FRAMES_NOMEM 2
int seam_frames_recv(seam_frames *f, void *sock, zmq_msg_t *first);

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
        size_t part0, n_parts, oob_len;   /* out of band: parts[part0..], oob_len bytes; n_parts 0: inline */
        bool contiguous;     /* out of band: the parts lie back to back in memory */
    } f[SEAM_WIRE_MAX_FIELDS];
    const seam_part *parts;  /* the frames after the map (seam_msg_parse_parts) */
    char error[256];         /* the first problem found, "" when none */
} seam_msg;

/* Index the map at the start of [data, data+len); the whole input must be
 * exactly one map. Returns false with m->error set. Out-of-band markers
 * stay ext values here. */
bool seam_msg_parse(seam_msg *m, const void *data, size_t len);
/* The same for a message of several frames: each top-level out-of-band
 * marker takes the next frames (parts, n_parts of them, which must outlive
 * m) until its length is reached; every part must be taken. */
bool seam_msg_parse_parts(seam_msg *m, const void *data, size_t len, const seam_part *parts, size_t n_parts);
/* Its second half, for a map already indexed by seam_msg_parse. */
bool seam_msg_take_parts(seam_msg *m, const seam_part *parts, size_t n_parts);
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
/* A bin's bytes in place (inline, or out of band in one piece of memory, as
 * seam_frames_recv lays them); split over frames elsewhere in memory, a
 * malloc'ed copy, also in *copy for the caller to free (*copy NULL: in
 * place). False when absent, bad or out of memory. */
bool seam_msg_bin(seam_msg *m, const char *key, bool required, const void **data, size_t *len, void **copy);
/* A malloc'ed copy of a bin, inline or out of band (NULL when absent, bad or
 * out of memory, the last two with an error). */
void *seam_msg_bin_alloc(seam_msg *m, const char *key, bool required, size_t *len);
/* Exactly n little-endian float64 (int32) from a bin into out. */
bool seam_msg_f64s(seam_msg *m, const char *key, bool required, double *out, size_t n);
bool seam_msg_i32s(seam_msg *m, const char *key, bool required, int32_t *out, size_t n);
/* Exactly n float64 in place, without a copy, where the message allows it:
 * an out-of-band value in one piece of memory, aligned, on a little-endian
 * host. NULL otherwise (then read it with seam_msg_f64s). The memory is the
 * message's: valid as long as it is, and writable. */
double *seam_msg_f64s_view(seam_msg *m, const char *key, size_t n);
/* Like seam_msg_f64s/i32s, into a fresh malloc'ed array (caller frees); the
 * length is checked before anything is allocated. NULL when absent, bad or
 * out of memory (the last two with an error). */
double *seam_msg_f64s_alloc(seam_msg *m, const char *key, bool required, size_t n);
int32_t *seam_msg_i32s_alloc(seam_msg *m, const char *key, bool required, size_t n);
uint8_t *seam_msg_bytes_alloc(seam_msg *m, const char *key, bool required, size_t n);
/* An array: its count and a cursor on its first item. */
bool seam_msg_array(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count);
/* A map of any size (beyond SEAM_WIRE_MAX_FIELDS, unindexed): its entry
 * count and a cursor on its first key; each entry is a key then a value. */
bool seam_msg_map(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count);
/* Record an error of the caller's own (kept only when none came before). */
void seam_msg_fail(seam_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Little-endian float64 bytes to host doubles and back (n values). */
void seam_le_to_f64(double *out, const void *le, size_t n);
void seam_f64_to_le(void *le, const double *x, size_t n);

#endif
