/* The codec of the shaped entries: descriptors from plugin.h's lists, and
 * structs to map keys and back (PROTOCOL.md, "Ops"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "shape.h"

#define MAX_VALUES (1ull << 36)   /* values of one array: beyond any real interface */

/* ---- descriptors ---------------------------------------------------------- */

/* Struct T's members; T is the typedef in scope where the list expands. */
#define WIRE_LEN(a) {offsetof(T, a), _Generic(((T *)0)->a, int: true, default: false)}
#define WIRE_M0(member, kind, flags, k) {#member, kind, flags, offsetof(T, member), k, 0, {{0, false}, {0, false}}},
#define WIRE_M1(member, kind, flags, k, a) {#member, kind, flags, offsetof(T, member), k, 1, {WIRE_LEN(a), {0, false}}},
#define WIRE_M2(member, kind, flags, k, a, b) {#member, kind, flags, offsetof(T, member), k, 2, {WIRE_LEN(a), WIRE_LEN(b)}},

/* A descriptor function for each struct parameter, struct_<entry>_<i>. */
#define WIRE_SFN_STEP(i, ...)
#define WIRE_SFN_IN_F64S(i, ...)
#define WIRE_SFN_OUT_F64S(i, ...)
#define WIRE_SFN_IN_BYTES(i, ...)
#define WIRE_SFN_IN_STR(i, ...)
#define WIRE_SFN_IN_PATH(i, ...)
#define WIRE_SFN_IN_INDEX(i, ...)
#define WIRE_SFN_IN_STRUCT(i, type) WIRE_SFN_OUT_STRUCT(i, type)
#define WIRE_SFN_OUT_STRUCT(i, type)                                                               \
    static const wire_struct *struct_##i(void)                                                    \
    {                                                                                              \
        typedef type T;                                                                            \
        static const wire_member m[] = {SEAM_SHAPE_##type(WIRE_M0, WIRE_M1, WIRE_M2)};           \
        static const wire_struct s = {#type, sizeof(T), m, sizeof m / sizeof m[0]};                \
        return &s;                                                                                 \
    }
#define WIRE_SFNS_1(name, recv, p0) WIRE_P(WIRE_SFN_, name##_0, p0)
#define WIRE_SFNS_2(name, recv, p0, p1) WIRE_P(WIRE_SFN_, name##_0, p0) WIRE_P(WIRE_SFN_, name##_1, p1)
#define WIRE_SFNS_3(name, recv, p0, p1, p2) \
    WIRE_P(WIRE_SFN_, name##_0, p0) WIRE_P(WIRE_SFN_, name##_1, p1) WIRE_P(WIRE_SFN_, name##_2, p2)
#define WIRE_SFNS(name, abi, need, shape) WIRE_SHAPED(WIRE_SFNS_, name, shape)
SEAM_PLUGIN_ENTRIES(WIRE_SFNS)

/* Each parameter's descriptor (structs by their function, filled in at first use). */
#define WIRE_PD_STEP(i, key) {WP_STEP, #key, 0, NULL}
#define WIRE_PD_IN_F64S(i, key, n) {WP_IN_F64S, #key, WIRE_N_##n, NULL}
#define WIRE_PD_OUT_F64S(i, key, n) {WP_OUT_F64S, #key, WIRE_N_##n, NULL}
#define WIRE_PD_IN_STRUCT(i, type) {WP_IN_STRUCT, NULL, 0, NULL}
#define WIRE_PD_OUT_STRUCT(i, type) {WP_OUT_STRUCT, NULL, 0, NULL}
#define WIRE_PD_IN_BYTES(i, key) {WP_IN_BYTES, #key, 0, NULL}
#define WIRE_PD_IN_STR(i, key) {WP_IN_STR, #key, 0, NULL}
#define WIRE_PD_IN_PATH(i, key) {WP_IN_PATH, #key, 0, NULL}
#define WIRE_PD_IN_INDEX(i, key) {WP_IN_INDEX, #key, 0, NULL}
#define WIRE_ED_1(name, recv, p0) [WIRE_E_##name] = {#name, WIRE_RECV_##recv, 1, {WIRE_P(WIRE_PD_, 0, p0)}},
#define WIRE_ED_2(name, recv, p0, p1) \
    [WIRE_E_##name] = {#name, WIRE_RECV_##recv, 2, {WIRE_P(WIRE_PD_, 0, p0), WIRE_P(WIRE_PD_, 1, p1)}},
#define WIRE_ED_3(name, recv, p0, p1, p2)                                                                         \
    [WIRE_E_##name] = {#name, WIRE_RECV_##recv, 3, {WIRE_P(WIRE_PD_, 0, p0), WIRE_P(WIRE_PD_, 1, p1),        \
                                                    WIRE_P(WIRE_PD_, 2, p2)}},
#define WIRE_ED(name, abi, need, shape) WIRE_SHAPED(WIRE_ED_, name, shape)
static wire_entry entries[WIRE_E_COUNT] = {SEAM_PLUGIN_ENTRIES(WIRE_ED)};

/* The struct functions into the descriptors (static data cannot call them). */
#define WIRE_SET_STEP(i, ...)
#define WIRE_SET_IN_F64S(i, ...)
#define WIRE_SET_OUT_F64S(i, ...)
#define WIRE_SET_IN_BYTES(i, ...)
#define WIRE_SET_IN_STR(i, ...)
#define WIRE_SET_IN_PATH(i, ...)
#define WIRE_SET_IN_INDEX(i, ...)
#define WIRE_SET_IN_STRUCT(i, type) WIRE_SET_OUT_STRUCT(i, type)
#define WIRE_SET_OUT_STRUCT(i, type) e->st = struct_##i();
#define WIRE_SETS_1(name, recv, p0) { wire_param *e = &entries[WIRE_E_##name].p[0]; WIRE_P(WIRE_SET_, name##_0, p0) (void)e; }
#define WIRE_SETS_2(name, recv, p0, p1) WIRE_SETS_1(name, recv, p0) \
    { wire_param *e = &entries[WIRE_E_##name].p[1]; WIRE_P(WIRE_SET_, name##_1, p1) (void)e; }
#define WIRE_SETS_3(name, recv, p0, p1, p2) WIRE_SETS_2(name, recv, p0, p1) \
    { wire_param *e = &entries[WIRE_E_##name].p[2]; WIRE_P(WIRE_SET_, name##_2, p2) (void)e; }
#define WIRE_SETS(name, abi, need, shape) WIRE_SHAPED(WIRE_SETS_, name, shape)

static void link_structs(void)
{
    static bool done;   /* the first call is made before any thread serves (remote and session creation) */
    if (done)
        return;
    SEAM_PLUGIN_ENTRIES(WIRE_SETS)
    done = true;
}

const wire_entry *wire_entry_at(int e)
{
    link_structs();
    return e >= 0 && e < WIRE_E_COUNT ? &entries[e] : NULL;
}

const wire_entry *wire_entry_find(const char *name, int *e)
{
    link_structs();
    for (int i = 0; i < WIRE_E_COUNT; i++)
        if (entries[i].name && strcmp(entries[i].name, name) == 0) {
            if (e)
                *e = i;
            return &entries[i];
        }
    return NULL;
}

/* ---- the codec ------------------------------------------------------------ */

void wire_allocs_free(wire_allocs *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->p[i]);
    a->n = 0;
}

static void *keep(wire_allocs *a, void *p)
{
    if (p && a->n < sizeof a->p / sizeof a->p[0])
        a->p[a->n++] = p;
    return p;
}

static size_t len_value(const void *obj, const wire_len *l)
{
    const char *at = (const char *)obj + l->off;
    if (l->is_int) {
        int v;
        memcpy(&v, at, sizeof v);
        return v > 0 ? (size_t)v : 0;
    }
    size_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

size_t wire_member_len(const wire_member *m, const void *obj)
{
    if (m->kind == SEAM_W_INT || m->kind == SEAM_W_SIZE)
        return 0;
    size_t n = m->k;
    for (int i = 0; i < m->n_len; i++) {
        size_t f = len_value(obj, &m->len[i]);
        n = f && n > SIZE_MAX / f ? SIZE_MAX : n * f;   /* saturates: refused as too long when read */
    }
    return n;
}

static const void *member_ptr(const void *obj, const wire_member *m)
{
    const void *p;
    memcpy(&p, (const char *)obj + m->off, sizeof p);
    return p;
}

size_t wire_struct_keys(const wire_struct *st, const void *obj)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        const wire_member *m = &st->m[i];
        bool scalar = m->kind == SEAM_W_INT || m->kind == SEAM_W_SIZE;
        n += scalar || !(m->flags & SEAM_W_OPT) || (member_ptr(obj, m) && wire_member_len(m, obj) > 0);
    }
    return n;
}

void wire_struct_write(seam_wbuf *w, const wire_struct *st, const void *obj)
{
    static const double empty = 0.0;   /* a length-0 array that must be there: an empty bin, not nil */
    for (size_t i = 0; i < st->n; i++) {
        const wire_member *m = &st->m[i];
        const char *at = (const char *)obj + m->off;
        if (m->kind == SEAM_W_INT) {
            int v;
            memcpy(&v, at, sizeof v);
            seam_w_str(w, m->key);
            seam_w_int(w, v);
            continue;
        }
        if (m->kind == SEAM_W_SIZE) {
            size_t v;
            memcpy(&v, at, sizeof v);
            seam_w_str(w, m->key);
            seam_w_uint(w, v);
            continue;
        }
        const void *p = member_ptr(obj, m);
        size_t n = wire_member_len(m, obj);
        if ((m->flags & SEAM_W_OPT) && (!p || n == 0))
            continue;
        if (!p)
            p = &empty, n = 0;
        seam_w_str(w, m->key);
        switch (m->kind) {
        case SEAM_W_F64S: seam_w_f64s(w, p, n); break;
        case SEAM_W_I32S: seam_w_i32s(w, p, n); break;
        case SEAM_W_U8S:
        case SEAM_W_BYTES: seam_w_bin(w, p, n); break;
        case SEAM_W_STRS: {
            const char *const *s = p;
            seam_w_array(w, n);
            for (size_t k = 0; k < n; k++)
                seam_w_str(w, s[k] ? s[k] : "");
            break;
        }
        default: seam_w_nil(w); break;
        }
    }
}

/* An array of strings: one allocation holding the pointers and the text. */
static char **read_strs(seam_msg *m, const char *key, size_t n, wire_allocs *a)
{
    seam_mp items;
    size_t count = 0;
    if (!seam_msg_array(m, key, true, &items, &count))
        return NULL;
    if (count != n) {
        seam_msg_fail(m, "field \"%s\": %zu strings, expected %zu", key, count, n);
        return NULL;
    }
    seam_mp scan = items;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        seam_mp_value v;
        if (!seam_mp_next(&scan, &v) || v.kind != SEAM_MP_STR || memchr(v.data, '\0', v.len)) {
            seam_msg_fail(m, "field \"%s\": item %zu is not a string", key, i);
            return NULL;
        }
        bytes += v.len + 1;
    }
    char **s = keep(a, seam_xmalloc(n * sizeof *s + bytes));
    char *text = (char *)(s + n);
    for (size_t i = 0; i < n; i++) {
        seam_mp_value v;
        seam_mp_next(&items, &v);
        memcpy(text, v.data, v.len);
        text[v.len] = '\0';
        s[i] = text;
        text += v.len + 1;
    }
    return s;
}

static bool read_scalar(seam_msg *m, const wire_member *mb, void *obj)
{
    char *at = (char *)obj + mb->off;
    bool opt = mb->flags & SEAM_W_OPT;
    if (opt && (!seam_msg_has(m, mb->key) || seam_msg_is_nil(m, mb->key)))
        return true;
    if (mb->kind == SEAM_W_INT) {
        int64_t v = 0;
        if (!seam_msg_int(m, mb->key, true, &v))
            return false;
        if (v < 0 || v > INT32_MAX) {
            seam_msg_fail(m, "field \"%s\": %lld is out of range", mb->key, (long long)v);
            return false;
        }
        int i = (int)v;
        memcpy(at, &i, sizeof i);
        return true;
    }
    uint64_t v = 0;
    if (!seam_msg_uint(m, mb->key, true, &v))
        return false;
    if (v > MAX_VALUES) {
        seam_msg_fail(m, "field \"%s\": %llu is beyond any interface", mb->key, (unsigned long long)v);
        return false;
    }
    size_t s = (size_t)v;
    memcpy(at, &s, sizeof s);
    return true;
}

static bool read_array(seam_msg *m, const wire_member *mb, void *obj, wire_allocs *a)
{
    size_t n = wire_member_len(mb, obj);
    bool there = seam_msg_has(m, mb->key) && !seam_msg_is_nil(m, mb->key);
    void *p = NULL;
    if (n > MAX_VALUES) {
        seam_msg_fail(m, "field \"%s\": %zu values is beyond any interface", mb->key, n);
        return false;
    }
    if (mb->kind == SEAM_W_BYTES) {   /* its length member is the bin's size */
        size_t len = 0;
        p = there ? keep(a, seam_msg_bin_alloc(m, mb->key, true, &len)) : NULL;
        if (!there && !(mb->flags & SEAM_W_OPT))
            seam_msg_fail(m, "field \"%s\" is missing", mb->key);
        memcpy((char *)obj + mb->len[0].off, &len, sizeof len);
    } else if (!there && ((mb->flags & SEAM_W_OPT) || n == 0)) {
        p = NULL;
    } else if (n == 0) {   /* there, and empty: nothing to keep */
        p = NULL;
    } else if (mb->kind == SEAM_W_F64S)
        p = keep(a, seam_msg_f64s_alloc(m, mb->key, true, n));
    else if (mb->kind == SEAM_W_I32S)
        p = keep(a, seam_msg_i32s_alloc(m, mb->key, true, n));
    else if (mb->kind == SEAM_W_U8S)
        p = keep(a, seam_msg_bytes_alloc(m, mb->key, true, n));
    else if (mb->kind == SEAM_W_STRS)
        p = read_strs(m, mb->key, n, a);
    memcpy((char *)obj + mb->off, &p, sizeof p);
    return !m->error[0];
}

bool wire_struct_read(seam_msg *m, const wire_struct *st, void *obj, wire_allocs *a)
{
    memset(obj, 0, st->size);
    for (size_t i = 0; i < st->n && !m->error[0]; i++) {
        const wire_member *mb = &st->m[i];
        if (mb->kind == SEAM_W_INT || mb->kind == SEAM_W_SIZE)
            read_scalar(m, mb, obj);
        else
            read_array(m, mb, obj, a);
    }
    return !m->error[0];
}

bool wire_struct_iface(const wire_struct *st, const void *obj, size_t *n)
{
    if (strcmp(st->type, "seam_interface") != 0)
        return false;
    const seam_interface *f = obj;
    *n = f->dim >= 1 && f->dim <= 3 && f->n_points < MAX_VALUES ? f->n_points * (size_t)f->dim : 0;
    return true;
}

/* What the lengths cannot say: an interface's sizes and indices in range. */
static bool check_interface(seam_msg *m, const seam_interface *f)
{
    if (f->dim < 1 || f->dim > 3 || f->nodes_per_elem > 3) {
        seam_msg_fail(m, "dim %d, nodes_per_elem %d, %zu points, %zu elements is not an interface", f->dim,
                      f->nodes_per_elem, f->n_points, f->n_elems);
        return false;
    }
    if (f->n_elems * (size_t)f->nodes_per_elem > 0 && !f->elems) {
        seam_msg_fail(m, "field \"elems\" is missing for %zu elements", f->n_elems);
        return false;
    }
    for (size_t i = 0; f->elems && i < f->n_elems * (size_t)f->nodes_per_elem; i++)
        if (f->elems[i] < 0 || (size_t)f->elems[i] >= f->n_points) {
            seam_msg_fail(m, "field \"elems\": element %zu names point %d of %zu", i / (size_t)f->nodes_per_elem,
                          f->elems[i], f->n_points);
            return false;
        }
    for (size_t i = 0; f->body && i < f->n_points; i++)
        if (f->body[i] < 0 || (f->n_bodies && (size_t)f->body[i] >= f->n_bodies)) {
            seam_msg_fail(m, "field \"body\": point %zu names body %d of %zu", i, f->body[i], f->n_bodies);
            return false;
        }
    return true;
}

bool wire_struct_check(seam_msg *m, const wire_struct *st, const void *obj)
{
    if (strcmp(st->type, "seam_interface") == 0)
        return check_interface(m, obj);
    if (strcmp(st->type, "seam_regions") == 0 && ((const seam_regions *)obj)->count > (1u << 20)) {
        seam_msg_fail(m, "%zu regions is beyond any interface", ((const seam_regions *)obj)->count);
        return false;
    }
    return true;
}
