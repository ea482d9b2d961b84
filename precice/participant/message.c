/* MessagePack encoding and lookups for the participant protocol. */
#include "message.h"

#include <stdint.h>
#include <string.h>

#include <seam/alloc.h>

void msg_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

/* The wire is little-endian whatever the host is. */
static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void msg_f64(msgpack_packer *pk, const double *v, size_t n)
{
    unsigned char *b = seam_xmalloc_n(n ? n : 1, 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        put_le(b + 8 * i, u, 8);
    }
    msgpack_pack_bin(pk, 8 * n);
    msgpack_pack_bin_body(pk, b, 8 * n);
    free(b);
}

void msg_i32(msgpack_packer *pk, const int *v, size_t n)
{
    unsigned char *b = seam_xmalloc_n(n ? n : 1, 4);
    for (size_t i = 0; i < n; i++)
        put_le(b + 4 * i, (uint32_t)(int32_t)v[i], 4);
    msgpack_pack_bin(pk, 4 * n);
    msgpack_pack_bin_body(pk, b, 4 * n);
    free(b);
}

const msgpack_object *msg_get(const msgpack_object *m, const char *key)
{
    if (!m || m->type != MSGPACK_OBJECT_MAP)
        return NULL;
    size_t n = strlen(key);
    for (uint32_t i = 0; i < m->via.map.size; i++) {
        const msgpack_object *k = &m->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n && memcmp(k->via.str.ptr, key, n) == 0)
            return &m->via.map.ptr[i].val;
    }
    return NULL;
}

bool msg_bool(const msgpack_object *m, const char *key, bool *out)
{
    const msgpack_object *o = msg_get(m, key);
    if (!o || o->type != MSGPACK_OBJECT_BOOLEAN)
        return false;
    *out = o->via.boolean;
    return true;
}

bool msg_double(const msgpack_object *m, const char *key, double *out)
{
    const msgpack_object *o = msg_get(m, key);
    if (!o)
        return false;
    switch (o->type) {
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: *out = o->via.f64; return true;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: *out = (double)o->via.u64; return true;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: *out = (double)o->via.i64; return true;
    default: return false;
    }
}

bool msg_string(const msgpack_object *m, const char *key, char *out, size_t len)
{
    const msgpack_object *o = msg_get(m, key);
    if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= len)
        return false;
    memcpy(out, o->via.str.ptr, o->via.str.size);
    out[o->via.str.size] = '\0';
    return true;
}

bool msg_f64_array(const msgpack_object *o, double **out, size_t *n)
{
    if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size % 8 != 0)
        return false;
    *n = o->via.bin.size / 8;
    *out = seam_xmalloc_n(*n ? *n : 1, sizeof(double));
    const unsigned char *p = (const unsigned char *)o->via.bin.ptr;
    for (size_t i = 0; i < *n; i++) {
        uint64_t u = get_le(p + 8 * i, 8);
        memcpy(&(*out)[i], &u, 8);
    }
    return true;
}

bool msg_i32_array(const msgpack_object *o, int **out, size_t *n)
{
    if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size % 4 != 0)
        return false;
    *n = o->via.bin.size / 4;
    *out = seam_xmalloc_n(*n ? *n : 1, sizeof(int));
    const unsigned char *p = (const unsigned char *)o->via.bin.ptr;
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = (int)(int32_t)(uint32_t)get_le(p + 4 * i, 4);
    return true;
}
