/* MessagePack writing (msgpack-c) and bounded reading (our own). */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "wire.h"

static bool host_is_le(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* ---- shared buffers ----------------------------------------------------- */

struct seam_shared {
    atomic_size_t refs;
    _Alignas(16) unsigned char data[];
};

seam_shared *seam_shared_new(size_t size)
{
    if (size > SIZE_MAX - sizeof(seam_shared))
        return NULL;
    seam_shared *sh = calloc(1, sizeof *sh + (size ? size : 1));
    if (!sh)
        return NULL;
    atomic_init(&sh->refs, 1);
    return sh;
}

void *seam_shared_data(seam_shared *sh) { return sh->data; }
void seam_shared_ref(seam_shared *sh) { atomic_fetch_add(&sh->refs, 1); }

void seam_shared_unref(seam_shared *sh)
{
    if (sh && atomic_fetch_sub(&sh->refs, 1) == 1)
        free(sh);
}

bool seam_shared_busy(const seam_shared *sh) { return atomic_load(&sh->refs) > 1; }

/* ---- writing ------------------------------------------------------------ */

void seam_wbuf_init(seam_wbuf *w, size_t reserve)
{
    w->oob_min = SIZE_MAX;
    w->att = NULL;
    w->n_att = w->cap_att = 0;
    w->failed = 0;
    msgpack_sbuffer_init(&w->sb);
    if (reserve) {   /* one allocation for a large array instead of log2(size) reallocs */
        w->sb.data = malloc(reserve);
        w->sb.alloc = w->sb.data ? reserve : 0;
    }
    msgpack_packer_init(&w->pk, &w->sb, msgpack_sbuffer_write);
}

static void drop_attachments(seam_wbuf *w)
{
    for (size_t i = 0; i < w->n_att; i++)
        seam_shared_unref(w->att[i].owner);
    free(w->att);
    w->att = NULL;
    w->n_att = w->cap_att = 0;
}

void seam_wbuf_free(seam_wbuf *w)
{
    msgpack_sbuffer_destroy(&w->sb);
    w->sb.data = NULL;
    w->sb.size = w->sb.alloc = 0;
    drop_attachments(w);
}

char *seam_wbuf_release(seam_wbuf *w, size_t *size)
{
    *size = w->sb.size;
    return msgpack_sbuffer_release(&w->sb);
}

/* msgpack-c's packers return the sbuffer's -1 when its realloc failed. */
static void check(seam_wbuf *w, int rc)
{
    if (rc != 0 && !w->failed)
        w->failed = ENOMEM;
}

void seam_w_map(seam_wbuf *w, size_t n) { check(w, msgpack_pack_map(&w->pk, n)); }
void seam_w_array(seam_wbuf *w, size_t n) { check(w, msgpack_pack_array(&w->pk, n)); }
void seam_w_uint(seam_wbuf *w, uint64_t v) { check(w, msgpack_pack_uint64(&w->pk, v)); }
void seam_w_int(seam_wbuf *w, int64_t v) { check(w, msgpack_pack_int64(&w->pk, v)); }
void seam_w_f64(seam_wbuf *w, double v) { check(w, msgpack_pack_double(&w->pk, v)); }
void seam_w_bool(seam_wbuf *w, bool v) { check(w, v ? msgpack_pack_true(&w->pk) : msgpack_pack_false(&w->pk)); }
void seam_w_nil(seam_wbuf *w) { check(w, msgpack_pack_nil(&w->pk)); }

void seam_w_str(seam_wbuf *w, const char *s)
{
    size_t n = strlen(s);
    check(w, msgpack_pack_str(&w->pk, n));
    check(w, msgpack_pack_str_body(&w->pk, s, n));
}

static void attach_words(seam_wbuf *w, const void *x, size_t n, size_t width, seam_shared *owner, bool copy);

/* Whether an array of n words of `width` bytes can travel: no peer takes
 * more than SEAM_WIRE_MAX_MESSAGE bytes, so a larger one fails the message
 * (EMSGSIZE) before anything is allocated for it. */
static bool fits_wire(seam_wbuf *w, size_t n, size_t width)
{
    if (n <= (size_t)SEAM_WIRE_MAX_MESSAGE / width)
        return true;
    if (!w->failed)
        w->failed = EMSGSIZE;
    return false;
}

void seam_w_bin(seam_wbuf *w, const void *data, size_t size)
{
    if (!fits_wire(w, size, 1))
        return;
    if (size >= w->oob_min) {
        attach_words(w, data, size, 1, NULL, true);
        return;
    }
    check(w, msgpack_pack_bin(&w->pk, size));
    if (size)
        check(w, msgpack_pack_bin_body(&w->pk, data, size));
}

/* Swap each `width`-byte word of src into dst (big-endian hosts only). */
static void swap_words(uint8_t *dst, const uint8_t *src, size_t n, size_t width)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < width; k++)
            dst[i * width + k] = src[i * width + width - 1 - k];
}

static void write_le_words(seam_wbuf *w, const void *x, size_t n, size_t width)
{
    check(w, msgpack_pack_bin(&w->pk, n * width));
    if (n == 0)
        return;
    if (host_is_le()) {
        check(w, msgpack_pack_bin_body(&w->pk, x, n * width));
        return;
    }
    uint8_t word[8];
    for (size_t i = 0; i < n; i++) {
        swap_words(word, (const uint8_t *)x + i * width, 1, width);
        check(w, msgpack_pack_bin_body(&w->pk, word, width));
    }
}

/* The marker of an out-of-band value of `size` bytes: ext 8 of our type. */
static void write_marker(seam_wbuf *w, size_t size)
{
    uint8_t be_len[8];
    for (int i = 0; i < 8; i++)
        be_len[i] = (uint8_t)((uint64_t)size >> (56 - 8 * i));
    check(w, msgpack_pack_ext(&w->pk, 8, SEAM_WIRE_OOB_EXT));
    check(w, msgpack_pack_ext_body(&w->pk, be_len, 8));
}

/* Takes over the caller's reference on owner (dropped when it fails). */
static void attach(seam_wbuf *w, const void *data, size_t size, seam_shared *owner)
{
    if (w->n_att == w->cap_att) {
        size_t cap = w->cap_att ? 2 * w->cap_att : 4;
        seam_attach *att = realloc(w->att, cap * sizeof *att);
        if (!att) {
            seam_shared_unref(owner);
            w->failed = ENOMEM;
            return;
        }
        w->att = att;
        w->cap_att = cap;
    }
    w->att[w->n_att++] = (seam_attach){data, size, owner};
    write_marker(w, size);
}

/* x as little-endian words out of band: in place, or a swapped copy on
 * big-endian hosts (or when asked to copy). */
static void attach_words(seam_wbuf *w, const void *x, size_t n, size_t width, seam_shared *owner, bool copy)
{
    if (host_is_le() && !copy) {
        if (owner)
            seam_shared_ref(owner);
        attach(w, x, n * width, owner);
        return;
    }
    seam_shared *sh = seam_shared_new(n * width);
    if (!sh) {
        w->failed = ENOMEM;
        return;
    }
    if (host_is_le())
        memcpy(seam_shared_data(sh), x, n * width);
    else
        swap_words(seam_shared_data(sh), x, n, width);
    attach(w, seam_shared_data(sh), n * width, sh);
}

void seam_w_f64s(seam_wbuf *w, const double *x, size_t n)
{
    if (!x)
        seam_w_nil(w);
    else if (!fits_wire(w, n, sizeof *x))
        return;
    else if (n * sizeof *x >= w->oob_min)
        attach_words(w, x, n, sizeof *x, NULL, true);
    else
        write_le_words(w, x, n, sizeof(double));
}

void seam_w_f64s_ref(seam_wbuf *w, const double *x, size_t n, seam_shared *owner)
{
    if (!x)
        seam_w_nil(w);
    else if (!fits_wire(w, n, sizeof *x))
        return;
    else if (n * sizeof *x >= w->oob_min)
        attach_words(w, x, n, sizeof *x, owner, false);
    else
        write_le_words(w, x, n, sizeof(double));
}

void seam_w_i32s(seam_wbuf *w, const int32_t *x, size_t n)
{
    if (!x)
        seam_w_nil(w);
    else if (!fits_wire(w, n, sizeof *x))
        return;
    else if (n * sizeof *x >= w->oob_min)
        attach_words(w, x, n, sizeof *x, NULL, true);
    else
        write_le_words(w, x, n, sizeof(int32_t));
}

void seam_le_to_f64(double *out, const void *le, size_t n)
{
    if (host_is_le())
        memcpy(out, le, n * sizeof *out);
    else
        swap_words((uint8_t *)out, le, n, sizeof *out);
}

void seam_f64_to_le(void *le, const double *x, size_t n)
{
    if (host_is_le())
        memcpy(le, x, n * sizeof *x);
    else
        swap_words(le, (const uint8_t *)x, n, sizeof *x);
}

/* ---- frames ------------------------------------------------------------- */

static void free_bytes(void *data, void *hint)
{
    (void)hint;
    free(data);
}

static void release_shared(void *data, void *hint)
{
    (void)data;
    seam_shared_unref(hint);
}

static void release_borrowed(void *data, void *hint)
{
    (void)data;
    atomic_fetch_sub((atomic_size_t *)hint, 1);   /* hint is the sender's atomic_size_t */
}

/* zmq_msg_init_data takes a void * but only reads the bytes of a frame it is
 * given (and hands them back to the free function, which ignores them). */
static void *frame_bytes(const void *data, size_t off)
{
    union {
        const char *in;
        char *out;
    } u = {.in = (const char *)data + off};
    return u.out;
}

int seam_wire_send(void *sock, seam_wbuf *w, int first_flags, atomic_size_t *borrowed)
{
    if (w->failed) {   /* an incomplete message would be read as a different one */
        int e = w->failed;
        seam_wbuf_free(w);
        errno = e;
        return -1;
    }
    size_t size;
    char *bytes = seam_wbuf_release(w, &size);
    zmq_msg_t msg;
    zmq_msg_init_data(&msg, bytes, size, free_bytes, NULL);
    if (zmq_msg_send(&msg, sock, first_flags | (w->n_att ? ZMQ_SNDMORE : 0)) < 0) {
        int e = errno;
        msgpack_sbuffer_write(&w->sb, zmq_msg_data(&msg), size);   /* w as it was, for a retry */
        zmq_msg_close(&msg);
        errno = e;
        return -1;
    }
    for (size_t i = 0; i < w->n_att; i++) {
        const seam_attach *a = &w->att[i];
        size_t off = 0;
        do {
            size_t len = a->size - off < SEAM_WIRE_CHUNK ? a->size - off : SEAM_WIRE_CHUNK;
            bool last = i + 1 == w->n_att && off + len == a->size;
            if (a->owner) {
                seam_shared_ref(a->owner);
                zmq_msg_init_data(&msg, frame_bytes(a->data, off), len, release_shared, a->owner);
            } else if (!borrowed) {   /* nobody counts borrowed frames here: copy them */
                zmq_msg_init_size(&msg, len);
                memcpy(zmq_msg_data(&msg), (const char *)a->data + off, len);
            } else {
                atomic_fetch_add(borrowed, 1);
                zmq_msg_init_data(&msg, frame_bytes(a->data, off), len, release_borrowed, borrowed);
            }
            if (zmq_msg_send(&msg, sock, last ? 0 : ZMQ_SNDMORE) < 0)
                zmq_msg_close(&msg);   /* the peer is gone mid-message: the release runs here */
            off += len;
        } while (off < a->size);
    }
    seam_wbuf_free(w);
    return 0;
}

void seam_wire_tune_malloc(void)
{
#ifdef __GLIBC__
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

void seam_frames_init(seam_frames *f)
{
    memset(f, 0, sizeof *f);
    zmq_msg_init(&f->head);
}

void seam_frames_clear(seam_frames *f)
{
    zmq_msg_close(&f->head);
    zmq_msg_init(&f->head);
    f->n = 0;
    f->bytes = 0;
}

void seam_frames_free(seam_frames *f)
{
    zmq_msg_close(&f->head);
    free(f->part);
    free(f->buf);
    seam_frames_init(f);
}

/* Room for one more part and `len` more bytes in the buffer; false (f as it
 * was) when memory ran out: len comes from the peer, up to 2 GiB. */
static bool frames_grow(seam_frames *f, size_t len)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        seam_part *part = realloc(f->part, cap * sizeof *part);
        if (!part)
            return false;
        f->part = part;
        f->cap = cap;
    }
    if (f->bytes + len > f->buf_cap) {
        size_t cap = f->buf_cap ? f->buf_cap : (size_t)1 << 20;
        while (cap < f->bytes + len)
            cap *= 2;
        uint8_t *buf = realloc(f->buf, cap);
        if (!buf)
            return false;
        f->buf = buf;
        f->buf_cap = cap;
    }
    return true;
}

int seam_wire_recv_more(zmq_msg_t *m, void *sock)
{
    int rc;
    while ((rc = zmq_msg_recv(m, sock, 0)) < 0 && errno == EINTR)
        continue;
    return rc;
}

static bool is_marker(const seam_mp *v, uint64_t *len);

/* The out-of-band values of the map in head, in the order their frames
 * come: where each should land (NULL: f's buffer) and its length. Values
 * beyond the first SEAM_WIRE_MAX_FIELDS are not named. */
typedef struct {
    uint8_t *to[SEAM_WIRE_MAX_FIELDS];
    size_t len[SEAM_WIRE_MAX_FIELDS];
    size_t n, at, done;      /* values; the one the next frame belongs to; its bytes received */
} landing;

static void plan_landing(seam_frames *f, landing *l)
{
    l->n = l->at = l->done = 0;
    seam_msg m;
    uint64_t id = 0;
    if (!f->n_dest || !host_is_le() || !seam_msg_parse(&m, zmq_msg_data(&f->head),
                                                       zmq_msg_size(&f->head)) ||
        !seam_msg_uint(&m, "id", true, &id) || id != f->dest_id)
        return;
    for (size_t i = 0; i < m.n; i++) {
        uint64_t len;
        if (!is_marker(&m.f[i].val, &len))
            continue;
        l->to[l->n] = NULL;
        l->len[l->n] = (size_t)len;
        for (size_t d = 0; d < f->n_dest; d++)
            if (strlen(f->dest[d].key) == m.f[i].klen && memcmp(f->dest[d].key, m.f[i].key, m.f[i].klen) == 0 &&
                f->dest[d].size == len)
                l->to[l->n] = f->dest[d].data;
        l->n++;
    }
}

/* Where a frame of len bytes lands: inside its value's destination, or NULL (f's buffer). */
static uint8_t *land(landing *l, size_t len)
{
    while (l->at < l->n && l->done == l->len[l->at]) {
        l->at++;
        l->done = 0;
    }
    if (l->at >= l->n)
        return NULL;
    uint8_t *to = l->to[l->at] && len <= l->len[l->at] - l->done ? l->to[l->at] + l->done : NULL;
    if (len <= l->len[l->at] - l->done)
        l->done += len;
    else
        l->at = l->n;   /* a frame across values: malformed, parsing will say so; the rest to the buffer */
    return to;
}

int seam_frames_recv(seam_frames *f, void *sock, zmq_msg_t *first)
{
    seam_frames_clear(f);
    int more = zmq_msg_more(first);
    zmq_msg_move(&f->head, first);
    zmq_msg_close(first);
    if (!frames_grow(f, 0)) {   /* not even room to index the map: drop the message */
        while (more) {
            zmq_msg_t m;
            zmq_msg_init(&m);
            more = seam_wire_recv_more(&m, sock) >= 0 && zmq_msg_more(&m);
            zmq_msg_close(&m);
        }
        return -1;
    }
    f->part[0] = (seam_part){zmq_msg_data(&f->head), zmq_msg_size(&f->head)};
    f->n = 1;
    landing l = {.n = 0};
    if (more)
        plan_landing(f, &l);
    int over = 0;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (seam_wire_recv_more(&m, sock) < 0) {
            zmq_msg_close(&m);
            return -1;
        }
        more = zmq_msg_more(&m);
        size_t len = zmq_msg_size(&m);
        if (!over && (f->n > SEAM_WIRE_MAX_PARTS || f->bytes + len > (size_t)SEAM_WIRE_MAX_MESSAGE))
            over = SEAM_FRAMES_OVER;
        else if (!over && !frames_grow(f, len))
            over = SEAM_FRAMES_NOMEM;
        if (over && f->n > 1) {   /* keep the map, drop the rest */
            f->n = 1;
            f->bytes = 0;
        }
        uint8_t *to = over ? NULL : land(&l, len);
        if (to) {   /* straight to where the receiver wants it */
            memcpy(to, zmq_msg_data(&m), len);
            f->part[f->n++] = (seam_part){to, len};
        } else if (!over) {
            if (len)   /* an empty frame needs no buffer, which may not exist yet */
                memcpy(f->buf + f->bytes, zmq_msg_data(&m), len);
            f->part[f->n++] = (seam_part){NULL, len};
            f->bytes += len;
        }
        zmq_msg_close(&m);   /* at once: ZeroMQ's next frame reuses its memory */
    }
    static const uint8_t no_bytes[1];   /* empty parts before any buffer exists point here: never NULL */
    size_t off = 0;   /* the buffer may have moved while it grew: point the parts now */
    for (size_t i = 1; i < f->n; i++)
        if (!f->part[i].data) {
            f->part[i].data = f->buf ? f->buf + off : no_bytes;
            off += f->part[i].len;
        }
    return over;
}

/* ---- reading ------------------------------------------------------------ */

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Take n bytes from the cursor; false when fewer remain. */
static bool take(seam_mp *c, size_t n, const uint8_t **at)
{
    if ((size_t)(c->end - c->p) < n)
        return false;
    *at = c->p;
    c->p += n;
    return true;
}

static bool take_len(seam_mp *c, int width, size_t *len)
{
    const uint8_t *at;
    if (!take(c, (size_t)width, &at))
        return false;
    *len = (size_t)be(at, width);
    return true;
}

bool seam_mp_next(seam_mp *c, seam_mp_value *v)
{
    memset(v, 0, sizeof *v);
    const uint8_t *at;
    if (!take(c, 1, &at))
        return false;
    uint8_t t = *at;
    size_t len = 0;
    int width = 0;
    if (t <= 0x7f) {
        v->kind = SEAM_MP_UINT;
        v->u = t;
        v->i = t;
        return true;
    }
    if (t >= 0xe0) {
        v->kind = SEAM_MP_INT;
        v->i = (int8_t)t;
        return true;
    }
    if ((t & 0xf0) == 0x80 || (t & 0xf0) == 0x90) {
        v->kind = (t & 0xf0) == 0x80 ? SEAM_MP_MAP : SEAM_MP_ARRAY;
        len = t & 0x0f;
        goto container;
    }
    if ((t & 0xe0) == 0xa0) {
        v->kind = SEAM_MP_STR;
        len = t & 0x1f;
        goto bytes;
    }
    switch (t) {
    case 0xc0: v->kind = SEAM_MP_NIL; return true;
    case 0xc2: case 0xc3: v->kind = SEAM_MP_BOOL; v->b = t == 0xc3; return true;
    case 0xc4: case 0xc5: case 0xc6:
        v->kind = SEAM_MP_BIN;
        width = 1 << (t - 0xc4);
        if (!take_len(c, width, &len))
            return false;
        goto bytes;
    case 0xd9: case 0xda: case 0xdb:
        v->kind = SEAM_MP_STR;
        width = 1 << (t - 0xd9);
        if (!take_len(c, width, &len))
            return false;
        goto bytes;
    case 0xdc: case 0xdd:
        v->kind = SEAM_MP_ARRAY;
        if (!take_len(c, t == 0xdc ? 2 : 4, &len))
            return false;
        goto container;
    case 0xde: case 0xdf:
        v->kind = SEAM_MP_MAP;
        if (!take_len(c, t == 0xde ? 2 : 4, &len))
            return false;
        goto container;
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
        width = 1 << (t - 0xcc);
        if (!take(c, (size_t)width, &at))
            return false;
        v->kind = SEAM_MP_UINT;
        v->u = be(at, width);
        v->i = (int64_t)v->u;
        return true;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        width = 1 << (t - 0xd0);
        if (!take(c, (size_t)width, &at))
            return false;
        uint64_t raw = be(at, width);
        int shift = 64 - 8 * width;   /* sign-extend the two's complement value */
        v->kind = SEAM_MP_INT;
        v->i = (int64_t)(raw << shift) >> shift;
        return true;
    }
    case 0xca: {
        if (!take(c, 4, &at))
            return false;
        uint32_t bits = (uint32_t)be(at, 4);
        float f;
        memcpy(&f, &bits, 4);
        v->kind = SEAM_MP_FLOAT;
        v->f = f;
        return true;
    }
    case 0xcb: {
        if (!take(c, 8, &at))
            return false;
        uint64_t bits = be(at, 8);
        memcpy(&v->f, &bits, 8);
        v->kind = SEAM_MP_FLOAT;
        return true;
    }
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:   /* fixext: type byte + 2^k bytes */
        v->kind = SEAM_MP_EXT;
        len = (size_t)1 << (t - 0xd4);
        return take(c, len + 1, &at);
    case 0xc7: case 0xc8: case 0xc9:
        v->kind = SEAM_MP_EXT;
        if (!take_len(c, 1 << (t - 0xc7), &len))
            return false;
        return take(c, len + 1, &at);
    default:
        return false;   /* 0xc1 is never used */
    }
bytes:
    if (!take(c, len, &at))
        return false;
    v->data = at;
    v->len = len;
    return true;
container:
    /* every entry takes at least one byte: a count beyond the rest is a lie */
    v->len = len;
    return len <= (size_t)(c->end - c->p) / (v->kind == SEAM_MP_MAP ? 2 : 1);
}

bool seam_mp_skip(seam_mp *c, int depth)
{
    seam_mp_value v;
    if (depth <= 0 || !seam_mp_next(c, &v))
        return false;
    size_t items = v.kind == SEAM_MP_MAP ? 2 * v.len : v.kind == SEAM_MP_ARRAY ? v.len : 0;
    for (size_t i = 0; i < items; i++)
        if (!seam_mp_skip(c, depth - 1))
            return false;
    return true;
}

const char *seam_mp_kind_name(seam_mp_kind k)
{
    static const char *const names[] = {"invalid data", "nil", "a boolean", "an unsigned integer",
                                        "an integer", "a float", "a string", "bin", "an array",
                                        "a map", "an ext value"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

void seam_msg_fail(seam_msg *m, const char *fmt, ...)
{
    if (m->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->error, sizeof m->error, fmt, ap);
    va_end(ap);
}

static bool index_map(seam_msg *m, seam_mp *c, int depth)
{
    seam_mp_value v;
    m->n = 0;
    if (!seam_mp_next(c, &v)) {
        seam_msg_fail(m, "truncated or invalid MessagePack");
        return false;
    }
    if (v.kind != SEAM_MP_MAP) {
        seam_msg_fail(m, "expected a map, got %s", seam_mp_kind_name(v.kind));
        return false;
    }
    if (v.len > SEAM_WIRE_MAX_FIELDS) {
        seam_msg_fail(m, "a map of %zu entries is more than the %d any message has", v.len, SEAM_WIRE_MAX_FIELDS);
        return false;
    }
    for (size_t i = 0; i < v.len; i++) {
        seam_mp_value k;
        if (!seam_mp_next(c, &k)) {
            seam_msg_fail(m, "truncated or invalid MessagePack");
            return false;
        }
        if (k.kind != SEAM_MP_STR) {
            seam_msg_fail(m, "map keys must be strings, got %s", seam_mp_kind_name(k.kind));
            return false;
        }
        m->f[i].key = (const char *)k.data;
        m->f[i].klen = k.len;
        m->f[i].val.p = c->p;
        if (!seam_mp_skip(c, depth)) {
            seam_msg_fail(m, "truncated, invalid or too deeply nested value for key \"%.*s\"", (int)k.len,
                          (const char *)k.data);
            return false;
        }
        m->f[i].val.end = c->p;
        m->f[i].part0 = m->f[i].n_parts = m->f[i].oob_len = 0;
        m->f[i].contiguous = false;
        m->n = i + 1;
    }
    return true;
}

bool seam_msg_parse(seam_msg *m, const void *data, size_t len)
{
    m->error[0] = '\0';
    m->parts = NULL;
    seam_mp c = {data, (const uint8_t *)data + len};
    if (!index_map(m, &c, SEAM_WIRE_MAX_DEPTH))
        return false;
    if (c.p != c.end) {
        seam_msg_fail(m, "%zu bytes after the message", (size_t)(c.end - c.p));
        return false;
    }
    return true;
}

/* Whether a value is an out-of-band marker; its length in *len. */
static bool is_marker(const seam_mp *v, uint64_t *len)
{
    if (v->end - v->p != 10 || v->p[0] != 0xd7 || v->p[1] != SEAM_WIRE_OOB_EXT)
        return false;
    *len = be(v->p + 2, 8);
    return true;
}

bool seam_msg_parse_parts(seam_msg *m, const void *data, size_t len, const seam_part *parts, size_t n_parts)
{
    return seam_msg_parse(m, data, len) && seam_msg_take_parts(m, parts, n_parts);
}

bool seam_msg_take_parts(seam_msg *m, const seam_part *parts, size_t n_parts)
{
    m->parts = parts;
    size_t next = 0;
    for (size_t i = 0; i < m->n; i++) {
        uint64_t want;
        if (!is_marker(&m->f[i].val, &want))
            continue;
        size_t first = next, got = 0;
        while (got < want && next < n_parts)
            got += parts[next++].len;
        if (got != want) {
            seam_msg_fail(m, "field \"%.*s\": an out-of-band value of %llu bytes, but %s", (int)m->f[i].klen,
                          m->f[i].key, (unsigned long long)want,
                          got < want ? "the frames after the map end before it does"
                                     : "its frames hold more (values never share a frame)");
            return false;
        }
        m->f[i].part0 = first;
        m->f[i].n_parts = next - first;
        m->f[i].contiguous = true;   /* frames back to back in memory: one piece */
        for (size_t k = first; k + 1 < next; k++)
            if (parts[k].data + parts[k].len != parts[k + 1].data)
                m->f[i].contiguous = false;
        m->f[i].oob_len = (size_t)want;
        if (want == 0) {
            seam_msg_fail(m, "field \"%.*s\": an out-of-band value of 0 bytes (send it inline)",
                          (int)m->f[i].klen, m->f[i].key);
            return false;
        }
    }
    if (next != n_parts) {
        seam_msg_fail(m, "%zu frames after the map that no out-of-band field takes", n_parts - next);
        return false;
    }
    return true;
}

static int find_index(const seam_msg *m, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < m->n; i++)
        if (m->f[i].klen == n && memcmp(m->f[i].key, key, n) == 0)
            return (int)i;
    return -1;
}

static const seam_mp *find(const seam_msg *m, const char *key)
{
    int i = find_index(m, key);
    return i < 0 ? NULL : &m->f[i].val;
}

bool seam_msg_has(const seam_msg *m, const char *key) { return find(m, key) != NULL; }

bool seam_msg_is_nil(const seam_msg *m, const char *key)
{
    const seam_mp *at = find(m, key);
    return at && at->p < at->end && *at->p == 0xc0;
}

/* The field's value decoded, or false (absent / nil counts as absent). */
static bool field(seam_msg *m, const char *key, bool required, seam_mp_value *v)
{
    int i = find_index(m, key);
    const seam_mp *at = i < 0 ? NULL : &m->f[i].val;
    if (at && m->f[i].n_parts) {   /* out of band: a bin whose bytes are in the frames */
        memset(v, 0, sizeof *v);
        v->kind = SEAM_MP_BIN;
        v->len = m->f[i].oob_len;
        v->data = m->f[i].contiguous ? m->parts[m->f[i].part0].data : NULL;
        return true;
    }
    if (at) {
        seam_mp c = *at;
        if (!seam_mp_next(&c, v)) {   /* cannot happen after index_map, kept as a guard */
            seam_msg_fail(m, "field \"%s\": invalid value", key);
            return false;
        }
        if (v->kind != SEAM_MP_NIL)
            return true;
    }
    if (required)
        seam_msg_fail(m, "field \"%s\" is missing", key);
    return false;
}

static bool wrong(seam_msg *m, const char *key, const char *want, const seam_mp_value *v)
{
    seam_msg_fail(m, "field \"%s\": expected %s, got %s", key, want, seam_mp_kind_name(v->kind));
    return false;
}

bool seam_msg_child(seam_msg *m, const char *key, bool required, seam_msg *sub)
{
    const seam_mp *at = find(m, key);
    if (!at || seam_msg_is_nil(m, key)) {
        if (required)
            seam_msg_fail(m, "field \"%s\" is missing", key);
        return false;
    }
    seam_mp c = *at;
    sub->error[0] = '\0';
    if (!index_map(sub, &c, SEAM_WIRE_MAX_DEPTH)) {
        seam_msg_fail(m, "field \"%s\": %s", key, sub->error);
        return false;
    }
    return true;
}

bool seam_msg_str(seam_msg *m, const char *key, bool required, const char **s, size_t *len)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_STR)
        return wrong(m, key, "a string", &v);
    *s = (const char *)v.data;
    *len = v.len;
    return true;
}

bool seam_msg_strcpy(seam_msg *m, const char *key, bool required, char *buf, size_t size)
{
    const char *s;
    size_t len;
    if (!seam_msg_str(m, key, required, &s, &len))
        return false;
    if (len >= size || memchr(s, '\0', len)) {
        seam_msg_fail(m, "field \"%s\": a string of %zu bytes (at most %zu, no NUL)", key, len, size - 1);
        return false;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

bool seam_msg_uint(seam_msg *m, const char *key, bool required, uint64_t *out)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_UINT && !(v.kind == SEAM_MP_INT && v.i >= 0))
        return wrong(m, key, "an unsigned integer", &v);
    *out = v.kind == SEAM_MP_UINT ? v.u : (uint64_t)v.i;
    return true;
}

bool seam_msg_int(seam_msg *m, const char *key, bool required, int64_t *out)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind == SEAM_MP_UINT && v.u > (uint64_t)INT64_MAX) {
        seam_msg_fail(m, "field \"%s\": %llu is out of range", key, (unsigned long long)v.u);
        return false;
    }
    if (v.kind != SEAM_MP_UINT && v.kind != SEAM_MP_INT)
        return wrong(m, key, "an integer", &v);
    *out = v.i;
    return true;
}

bool seam_msg_bool(seam_msg *m, const char *key, bool required, bool *out)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_BOOL)
        return wrong(m, key, "a boolean", &v);
    *out = v.b;
    return true;
}

bool seam_msg_num(seam_msg *m, const char *key, bool required, double *out)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind == SEAM_MP_FLOAT)
        *out = v.f;
    else if (v.kind == SEAM_MP_UINT)
        *out = (double)v.u;
    else if (v.kind == SEAM_MP_INT)
        *out = (double)v.i;
    else
        return wrong(m, key, "a number", &v);
    return true;
}

/* A bin field: its bytes in place (inline, or one frame) or, split over
 * frames, NULL with the field's index for gather(). */
static bool bin_field(seam_msg *m, const char *key, bool required, const void **data, size_t *len, int *idx)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_BIN)
        return wrong(m, key, "bin", &v);
    *data = v.data;
    *len = v.len;
    *idx = find_index(m, key);
    return true;
}

/* Copy a bin field's len bytes into out, converting `width`-byte words from
 * little-endian; data NULL: gather them from the frames of field idx. */
static void gather(const seam_msg *m, int idx, const void *data, size_t len, void *out, size_t width)
{
    if (data == out && (width == 1 || host_is_le()))
        return;   /* received straight into out (seam_frames_dest) */
    if (data) {
        if (width == 1 || host_is_le())
            memcpy(out, data, len);
        else
            swap_words(out, data, len / width, width);
        return;
    }
    uint8_t *dst = out;
    size_t carry = 0;   /* bytes of a word begun in the previous frame */
    uint8_t word[8];
    for (size_t k = 0; k < m->f[idx].n_parts; k++) {
        const seam_part *p = &m->parts[m->f[idx].part0 + k];
        if (width == 1 || host_is_le()) {
            memcpy(dst, p->data, p->len);
            dst += p->len;
            continue;
        }
        for (size_t b = 0; b < p->len; b++) {   /* big-endian hosts: words may straddle frames */
            word[carry++] = p->data[b];
            if (carry == width) {
                swap_words(dst, word, 1, width);
                dst += width;
                carry = 0;
            }
        }
    }
}

bool seam_msg_bin(seam_msg *m, const char *key, bool required, const void **data, size_t *len, void **copy)
{
    int idx;
    *copy = NULL;
    if (!bin_field(m, key, required, data, len, &idx))
        return false;
    if (*data)
        return true;
    *copy = malloc(*len ? *len : 1);
    if (!*copy) {
        seam_msg_fail(m, "field \"%s\": no memory for %zu bytes", key, *len);
        return false;
    }
    gather(m, idx, NULL, *len, *copy, 1);
    *data = *copy;
    return true;
}

void *seam_msg_bin_alloc(seam_msg *m, const char *key, bool required, size_t *len)
{
    const void *data;
    int idx;
    if (!bin_field(m, key, required, &data, len, &idx))
        return NULL;
    void *out = malloc(*len ? *len : 1);
    if (!out) {
        seam_msg_fail(m, "field \"%s\": no memory for %zu bytes", key, *len);
        return NULL;
    }
    gather(m, idx, data, *len, out, 1);
    return out;
}

static bool words(seam_msg *m, const char *key, bool required, void *out, size_t n, size_t width,
                  const char *what)
{
    const void *data;
    size_t len;
    int idx;
    if (!bin_field(m, key, required, &data, &len, &idx))
        return false;
    if (n > SIZE_MAX / width || len != n * width) {
        seam_msg_fail(m, "field \"%s\": expected bin of %zu %s (%zu bytes), got %zu bytes", key, n, what,
                      n <= SIZE_MAX / width ? n * width : SIZE_MAX, len);
        return false;
    }
    gather(m, idx, data, len, out, width);
    return true;
}

bool seam_msg_f64s(seam_msg *m, const char *key, bool required, double *out, size_t n)
{
    return words(m, key, required, out, n, sizeof(double), "float64");
}

double *seam_msg_f64s_view(seam_msg *m, const char *key, size_t n)
{
    int i = find_index(m, key);
    if (i < 0 || !m->f[i].n_parts || !m->f[i].contiguous || !host_is_le() || n > SIZE_MAX / 8 ||
        m->f[i].oob_len != 8 * n)
        return NULL;
    const uint8_t *p = m->parts[m->f[i].part0].data;
    if ((uintptr_t)p % _Alignof(double) != 0)
        return NULL;
    return (double *)(uintptr_t)p;   /* the frames' buffer is the receiver's own, writable memory */
}

bool seam_msg_i32s(seam_msg *m, const char *key, bool required, int32_t *out, size_t n)
{
    return words(m, key, required, out, n, sizeof(int32_t), "int32");
}

/* An array or a map at key: items left at its first element, count its length. */
static bool container(seam_msg *m, const char *key, bool required, seam_mp_kind kind, const char *what, seam_mp *items,
                      size_t *count)
{
    const seam_mp *at = find(m, key);
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != kind)
        return wrong(m, key, what, &v);
    *items = *at;
    seam_mp_next(items, &v);   /* step past the header */
    *count = v.len;
    return true;
}

bool seam_msg_array(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count)
{
    return container(m, key, required, SEAM_MP_ARRAY, "an array", items, count);
}

bool seam_msg_map(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count)
{
    return container(m, key, required, SEAM_MP_MAP, "a map", items, count);
}

static void *words_alloc(seam_msg *m, const char *key, bool required, size_t n, size_t width, const char *what)
{
    const void *data;
    size_t len;
    int idx;
    if (!bin_field(m, key, required, &data, &len, &idx))
        return NULL;
    if (n > SIZE_MAX / width || len != n * width) {
        seam_msg_fail(m, "field \"%s\": expected bin of %zu %s (%zu bytes), got %zu bytes", key, n, what,
                      n <= SIZE_MAX / width ? n * width : SIZE_MAX, len);
        return NULL;
    }
    void *out = malloc(len ? len : 1);
    if (!out) {
        seam_msg_fail(m, "field \"%s\": no memory for %zu bytes", key, len);
        return NULL;
    }
    gather(m, idx, data, len, out, width);
    return out;
}

double *seam_msg_f64s_alloc(seam_msg *m, const char *key, bool required, size_t n)
{
    return words_alloc(m, key, required, n, sizeof(double), "float64");
}

int32_t *seam_msg_i32s_alloc(seam_msg *m, const char *key, bool required, size_t n)
{
    return words_alloc(m, key, required, n, sizeof(int32_t), "int32");
}

uint8_t *seam_msg_bytes_alloc(seam_msg *m, const char *key, bool required, size_t n)
{
    return words_alloc(m, key, required, n, 1, "bytes");
}
