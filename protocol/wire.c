/* MessagePack writing (msgpack-c) and bounded reading (our own). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static bool host_is_le(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* ---- writing ------------------------------------------------------------ */

void seam_wbuf_init(seam_wbuf *w, size_t reserve)
{
    msgpack_sbuffer_init(&w->sb);
    if (reserve) {   /* one allocation for a large array instead of log2(size) reallocs */
        w->sb.data = malloc(reserve);
        w->sb.alloc = w->sb.data ? reserve : 0;
    }
    msgpack_packer_init(&w->pk, &w->sb, msgpack_sbuffer_write);
}

void seam_wbuf_free(seam_wbuf *w) { msgpack_sbuffer_destroy(&w->sb); }

char *seam_wbuf_release(seam_wbuf *w, size_t *size)
{
    *size = w->sb.size;
    return msgpack_sbuffer_release(&w->sb);
}

void seam_w_map(seam_wbuf *w, size_t n) { msgpack_pack_map(&w->pk, n); }
void seam_w_array(seam_wbuf *w, size_t n) { msgpack_pack_array(&w->pk, n); }
void seam_w_uint(seam_wbuf *w, uint64_t v) { msgpack_pack_uint64(&w->pk, v); }
void seam_w_int(seam_wbuf *w, int64_t v) { msgpack_pack_int64(&w->pk, v); }
void seam_w_f64(seam_wbuf *w, double v) { msgpack_pack_double(&w->pk, v); }
void seam_w_bool(seam_wbuf *w, bool v) { v ? msgpack_pack_true(&w->pk) : msgpack_pack_false(&w->pk); }
void seam_w_nil(seam_wbuf *w) { msgpack_pack_nil(&w->pk); }

void seam_w_str(seam_wbuf *w, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(&w->pk, n);
    msgpack_pack_str_body(&w->pk, s, n);
}

void seam_w_bin(seam_wbuf *w, const void *data, size_t size)
{
    msgpack_pack_bin(&w->pk, size);
    if (size)
        msgpack_pack_bin_body(&w->pk, data, size);
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
    msgpack_pack_bin(&w->pk, n * width);
    if (n == 0)
        return;
    if (host_is_le()) {
        msgpack_pack_bin_body(&w->pk, x, n * width);
        return;
    }
    uint8_t word[8];
    for (size_t i = 0; i < n; i++) {
        swap_words(word, (const uint8_t *)x + i * width, 1, width);
        msgpack_pack_bin_body(&w->pk, word, width);
    }
}

void seam_w_f64s(seam_wbuf *w, const double *x, size_t n)
{
    if (!x)
        seam_w_nil(w);
    else
        write_le_words(w, x, n, sizeof(double));
}

void seam_w_i32s(seam_wbuf *w, const int32_t *x, size_t n)
{
    if (!x)
        seam_w_nil(w);
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
        m->n = i + 1;
    }
    return true;
}

bool seam_msg_parse(seam_msg *m, const void *data, size_t len)
{
    m->error[0] = '\0';
    seam_mp c = {data, (const uint8_t *)data + len};
    if (!index_map(m, &c, SEAM_WIRE_MAX_DEPTH))
        return false;
    if (c.p != c.end) {
        seam_msg_fail(m, "%zu bytes after the message", (size_t)(c.end - c.p));
        return false;
    }
    return true;
}

static const seam_mp *find(const seam_msg *m, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < m->n; i++)
        if (m->f[i].klen == n && memcmp(m->f[i].key, key, n) == 0)
            return &m->f[i].val;
    return NULL;
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
    const seam_mp *at = find(m, key);
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

bool seam_msg_bin(seam_msg *m, const char *key, bool required, const void **data, size_t *len)
{
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_BIN)
        return wrong(m, key, "bin", &v);
    *data = v.data;
    *len = v.len;
    return true;
}

static bool words(seam_msg *m, const char *key, bool required, void *out, size_t n, size_t width,
                  const char *what)
{
    const void *data;
    size_t len;
    if (!seam_msg_bin(m, key, required, &data, &len))
        return false;
    if (n > SIZE_MAX / width || len != n * width) {
        seam_msg_fail(m, "field \"%s\": expected bin of %zu %s (%zu bytes), got %zu bytes", key, n, what,
                      n <= SIZE_MAX / width ? n * width : SIZE_MAX, len);
        return false;
    }
    if (host_is_le())
        memcpy(out, data, len);
    else
        swap_words(out, data, n, width);
    return true;
}

bool seam_msg_f64s(seam_msg *m, const char *key, bool required, double *out, size_t n)
{
    return words(m, key, required, out, n, sizeof(double), "float64");
}

bool seam_msg_i32s(seam_msg *m, const char *key, bool required, int32_t *out, size_t n)
{
    return words(m, key, required, out, n, sizeof(int32_t), "int32");
}

bool seam_msg_array(seam_msg *m, const char *key, bool required, seam_mp *items, size_t *count)
{
    const seam_mp *at = find(m, key);
    seam_mp_value v;
    if (!field(m, key, required, &v))
        return false;
    if (v.kind != SEAM_MP_ARRAY)
        return wrong(m, key, "an array", &v);
    *items = *at;
    seam_mp_next(items, &v);   /* step past the header */
    *count = v.len;
    return true;
}

static void *words_alloc(seam_msg *m, const char *key, bool required, size_t n, size_t width, const char *what)
{
    const void *data;
    size_t len;
    if (!seam_msg_bin(m, key, required, &data, &len))
        return NULL;
    if (n > SIZE_MAX / width || len != n * width) {
        seam_msg_fail(m, "field \"%s\": expected bin of %zu %s (%zu bytes), got %zu bytes", key, n, what,
                      n <= SIZE_MAX / width ? n * width : SIZE_MAX, len);
        return NULL;
    }
    void *out = malloc(len ? len : 1);
    if (width == 1 || host_is_le())
        memcpy(out, data, len);
    else
        swap_words(out, data, n, width);
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
