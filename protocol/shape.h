/* The wire derived from plugin.h's entry list (SEAM_PLUGIN_ENTRIES' shape
 * column and the SEAM_SHAPE_<struct> lists): per entry what travels, and
 * one codec over it that the proxy (remote.c) and the server (session.c)
 * share. The macros below turn each shaped entry into C code: the proxy's
 * function of the table's exact type (a thunk packing its arguments), the
 * server's call of the plugin (an invoker unpacking them), and the
 * descriptors the codec reads. Entries marked SEAM_HAND keep their codecs
 * in remote.c and session.c. */
#ifndef SEAM_SHAPE_H
#define SEAM_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "seam/plugin.h"
#include "shape_list.h"
#include "wire.h"

/* The C parameters of one shape parameter, named a<i> (and n<i>). */
#define WIRE_DECL_STEP(i, key) const seam_step *a##i
#define WIRE_DECL_IN_F64S(i, key, n) const double *a##i
#define WIRE_DECL_OUT_F64S(i, key, n) double *a##i
#define WIRE_DECL_IN_STRUCT(i, type) const type *a##i
#define WIRE_DECL_OUT_STRUCT(i, type) type *a##i
#define WIRE_DECL_IN_BYTES(i, key) const void *a##i, size_t n##i
#define WIRE_DECL_IN_STR(i, key) const char *a##i
#define WIRE_DECL_IN_PATH(i, key) const char *a##i
#define WIRE_DECL_IN_INDEX(i, key) int a##i
/* ... into the wire_arg array v of a thunk ... */
#define WIRE_PACK_STEP(i, key) v[i].in = a##i;
#define WIRE_PACK_IN_F64S(i, key, n) v[i].in = a##i;
#define WIRE_PACK_OUT_F64S(i, key, n) v[i].out = a##i;
#define WIRE_PACK_IN_STRUCT(i, type) v[i].in = a##i;
#define WIRE_PACK_OUT_STRUCT(i, type) v[i].out = a##i;
#define WIRE_PACK_IN_BYTES(i, key) v[i].in = a##i, v[i].size = n##i;
#define WIRE_PACK_IN_STR(i, key) v[i].in = a##i;
#define WIRE_PACK_IN_PATH(i, key) v[i].in = a##i;
#define WIRE_PACK_IN_INDEX(i, key) v[i].index = a##i;
/* ... and back, as the arguments of an invoker's call. */
#define WIRE_ARG_STEP(i, key) (const seam_step *)v[i].in
#define WIRE_ARG_IN_F64S(i, key, n) (const double *)v[i].in
#define WIRE_ARG_OUT_F64S(i, key, n) (double *)v[i].out
#define WIRE_ARG_IN_STRUCT(i, type) (const type *)v[i].in
#define WIRE_ARG_OUT_STRUCT(i, type) (type *)v[i].out
#define WIRE_ARG_IN_BYTES(i, key) v[i].in, v[i].size
#define WIRE_ARG_IN_STR(i, key) (const char *)v[i].in
#define WIRE_ARG_IN_PATH(i, key) (const char *)v[i].in
#define WIRE_ARG_IN_INDEX(i, key) v[i].index

/* The proxy's function for an entry: its arguments into v, then remote_shaped. */
#define WIRE_THUNK_1(name, recv, p0)                                                             \
    static seam_status remote_##name(WIRE_PASTE(WIRE_SELF_, recv), WIRE_P(WIRE_DECL_, 0, p0))    \
    {                                                                                            \
        wire_arg v[1] = {{0}};                                                                   \
        WIRE_P(WIRE_PACK_, 0, p0)                                                                \
        return remote_shaped(self, WIRE_E_##name, v);                   \
    }
#define WIRE_THUNK_2(name, recv, p0, p1)                                                         \
    static seam_status remote_##name(WIRE_PASTE(WIRE_SELF_, recv), WIRE_P(WIRE_DECL_, 0, p0),    \
                                     WIRE_P(WIRE_DECL_, 1, p1))                                  \
    {                                                                                            \
        wire_arg v[2] = {{0}};                                                                   \
        WIRE_P(WIRE_PACK_, 0, p0)                                                                \
        WIRE_P(WIRE_PACK_, 1, p1)                                                                \
        return remote_shaped(self, WIRE_E_##name, v);                   \
    }
#define WIRE_THUNK_3(name, recv, p0, p1, p2)                                                     \
    static seam_status remote_##name(WIRE_PASTE(WIRE_SELF_, recv), WIRE_P(WIRE_DECL_, 0, p0),    \
                                     WIRE_P(WIRE_DECL_, 1, p1), WIRE_P(WIRE_DECL_, 2, p2))       \
    {                                                                                            \
        wire_arg v[3] = {{0}};                                                                   \
        WIRE_P(WIRE_PACK_, 0, p0)                                                                \
        WIRE_P(WIRE_PACK_, 1, p1)                                                                \
        WIRE_P(WIRE_PACK_, 2, p2)                                                                \
        return remote_shaped(self, WIRE_E_##name, v);                   \
    }
#define WIRE_THUNK(name, abi, need, shape) WIRE_SHAPED(WIRE_THUNK_, name, shape)
/* Its place in a table: .name = remote_name, */
#define WIRE_TABLE_1(name, ...) .name = remote_##name,
#define WIRE_TABLE_2(name, ...) .name = remote_##name,
#define WIRE_TABLE_3(name, ...) .name = remote_##name,
#define WIRE_TABLE(name, abi, need, shape) WIRE_SHAPED(WIRE_TABLE_, name, shape)

/* The server's call of the plugin's entry with the decoded arguments. */
#define WIRE_INVOKE_1(name, recv, p0)                                                            \
    static seam_status invoke_##name(const seam_plugin *p, void *self, wire_arg *v)              \
    {                                                                                            \
        (void)v;                                                                                 \
        return p->name(WIRE_PASTE(WIRE_OBJ_, recv), WIRE_P(WIRE_ARG_, 0, p0));                   \
    }
#define WIRE_INVOKE_2(name, recv, p0, p1)                                                        \
    static seam_status invoke_##name(const seam_plugin *p, void *self, wire_arg *v)              \
    {                                                                                            \
        return p->name(WIRE_PASTE(WIRE_OBJ_, recv), WIRE_P(WIRE_ARG_, 0, p0), WIRE_P(WIRE_ARG_, 1, p1)); \
    }
#define WIRE_INVOKE_3(name, recv, p0, p1, p2)                                                    \
    static seam_status invoke_##name(const seam_plugin *p, void *self, wire_arg *v)              \
    {                                                                                            \
        return p->name(WIRE_PASTE(WIRE_OBJ_, recv), WIRE_P(WIRE_ARG_, 0, p0), WIRE_P(WIRE_ARG_, 1, p1), \
                       WIRE_P(WIRE_ARG_, 2, p2));                                                \
    }
#define WIRE_OBJ_SEAM_READS ((void)p, self)
#define WIRE_OBJ_SEAM_CHANGES ((void)p, self)
#define WIRE_OBJ_SEAM_PLUGIN ((void)self, p)
#define WIRE_INVOKE(name, abi, need, shape) WIRE_SHAPED(WIRE_INVOKE_, name, shape)
#define WIRE_INVOKER_1(name, ...) [WIRE_E_##name] = invoke_##name,
#define WIRE_INVOKER_2(name, ...) [WIRE_E_##name] = invoke_##name,
#define WIRE_INVOKER_3(name, ...) [WIRE_E_##name] = invoke_##name,
#define WIRE_INVOKER(name, abi, need, shape) WIRE_SHAPED(WIRE_INVOKER_, name, shape)

/* ---- descriptors ---------------------------------------------------------- */

/* Entries by table index. */
#define WIRE_ENUM(name, ...) WIRE_E_##name,
enum { SEAM_PLUGIN_ENTRIES(WIRE_ENUM) WIRE_E_COUNT };

/* A member's length factor: another member of the struct (int or size_t). */
typedef struct wire_len {
    size_t off;
    bool is_int;
} wire_len;

/* One member of a struct as it travels (plugin.h, SEAM_SHAPE_<struct>). */
typedef struct wire_member {
    const char *key;         /* = the member's name */
    int kind;                /* SEAM_W_* */
    int flags;               /* SEAM_W_OPT */
    size_t off;
    size_t k;                /* length k * len[0] * len[1] (of those there are) */
    int n_len;
    wire_len len[2];
} wire_member;

typedef struct wire_struct {
    const char *type;        /* "seam_interface" */
    size_t size;
    const wire_member *m;
    size_t n;
} wire_struct;

enum {
    WP_STEP = 1, WP_IN_F64S, WP_OUT_F64S, WP_IN_STRUCT, WP_OUT_STRUCT, WP_IN_BYTES, WP_IN_STR, WP_IN_PATH,
    WP_IN_INDEX
};

typedef struct wire_param {
    int kind;                /* WP_* */
    const char *key;         /* its wire key (NULL for a struct: its members' keys) */
    size_t n;                /* arrays: values; 0: the interface's points x dim */
    const wire_struct *st;   /* structs */
} wire_param;

typedef struct wire_entry {
    const char *name;        /* NULL: the entry's codec is by hand */
    int recv;                /* WIRE_RECV_* value: 0 reads, 1 changes the committed state, 2 the table */
    size_t n_params;
    wire_param p[3];
} wire_entry;

/* The entry at table index e (wire_entry.name NULL when by hand). */
const wire_entry *wire_entry_at(int e);
/* The shaped entry called name, or NULL (also for one by hand). */
const wire_entry *wire_entry_find(const char *name, int *e);

/* One argument of a call between a thunk or invoker and the codec. */
typedef struct wire_arg {
    const void *in;
    void *out;
    size_t size;
    int index;
} wire_arg;

/* ---- the codec ------------------------------------------------------------ */

/* Arrays a decode allocated: freed together. */
typedef struct wire_allocs {
    void *p[16];
    size_t n;
} wire_allocs;
void wire_allocs_free(wire_allocs *a);

/* Values of member m in obj (k times its length members), 0 for scalars. */
size_t wire_member_len(const wire_member *m, const void *obj);
/* Keys struct obj puts in a map (NULL optional arrays stay out). */
size_t wire_struct_keys(const wire_struct *st, const void *obj);
void wire_struct_write(seam_wbuf *w, const wire_struct *st, const void *obj);
/* Read a struct's members from m into obj (zeroed first); its arrays are
 * allocated into a. False with m's error (what was allocated is in a). */
bool wire_struct_read(seam_msg *m, const wire_struct *st, void *obj, wire_allocs *a);
/* Whether st is the interface struct, and then its points x dim into *n
 * (0 when its sizes are not an interface's). */
bool wire_struct_iface(const wire_struct *st, const void *obj, size_t *n);
/* What its lengths cannot say (an interface's dimension, its element and
 * body indices in range); false with m's error. */
bool wire_struct_check(seam_msg *m, const wire_struct *st, const void *obj);

#endif
