/* The plugin contract kit (plugin_contract.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "seam/alloc.h"
#include "plugin_contract.h"
#include "test_host.h"

/* ---- observations: the bytes two runs must share ---------------------- */

typedef struct obs {
    unsigned char *b;
    size_t n, cap;
} obs;

static void obs_add(obs *o, const void *data, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = 2 * (o->n + n) + 64;
        o->b = seam_xrealloc(o->b, o->cap);
    }
    if (n == 0)
        return;
    memcpy(o->b + o->n, data, n);
    o->n += n;
}

static void obs_equal(const obs *a, const obs *b, const char *what)
{
    if (a->n != b->n || (a->n > 0 && memcmp(a->b, b->b, a->n) != 0))   /* a coupled plugin may observe nothing */
        fail_msg("plugin contract: %s: the two runs differ (%zu and %zu bytes observed)", what, a->n, b->n);
}

/* ---- one instance and its inputs -------------------------------------- */

typedef struct inst {
    const plugin_contract *c;
    test_host th;
    void *self;
    size_t n;                /* interface points (fluid: bound; solid: described) */
    int dim;
    double *Xc;              /* fluid: the interface's committed positions */
    double *X, *V, *F;       /* the input of the last solve */
    double *oX, *oV, *oF;    /* the output of the last solve */
    int64_t index;           /* the next step's index */
} inst;

static const char *contract_locate(void *ctx, const char *key_path)
{
    (void)ctx;
    static char at[512];
    snprintf(at, sizeof at, "contract.json@%s", key_path);
    return at;
}

static void host_init(test_host *th, const plugin_contract *c)
{
    test_host_init(th, c->plugin->name, "");
    th->host.locate = contract_locate;
    if (c->gravity)
        test_host_gravity(th, c->gravity[0], c->gravity[1], c->gravity[2]);
}

static void inst_open(inst *in, const plugin_contract *c)
{
    memset(in, 0, sizeof *in);
    in->c = c;
    host_init(&in->th, c);
    in->self = c->plugin->create(c->plugin, c->config, &in->th.host);
    if (!in->self)
        fail_msg("plugin contract: %s refused its configuration: %s", c->plugin->name, in->th.last);
    if (c->plugin->role == SEAM_FLUID) {
        assert_non_null(c->iface);
        assert_int_equal(c->plugin->bind(in->self, c->iface), SEAM_OK);
        in->n = c->iface->n_points;
        in->dim = c->iface->dim;
    } else if (c->plugin->role == SEAM_SOLID) {
        seam_interface I;
        assert_int_equal(c->plugin->describe(in->self, &I), SEAM_OK);
        in->n = I.n_points;
        in->dim = I.dim;
    }
    size_t nd = in->n * (size_t)in->dim + 1;
    in->Xc = SEAM_NEW_N(double, nd);
    in->X = SEAM_NEW_N(double, nd);
    in->V = SEAM_NEW_N(double, nd);
    in->F = SEAM_NEW_N(double, nd);
    in->oX = SEAM_NEW_N(double, nd);
    in->oV = SEAM_NEW_N(double, nd);
    in->oF = SEAM_NEW_N(double, nd);
    if (c->plugin->role == SEAM_FLUID && in->n)
        memcpy(in->Xc, c->iface->X, in->n * (size_t)in->dim * sizeof *in->Xc);
}

static void inst_close(inst *in)
{
    in->c->plugin->destroy(in->self);
    free(in->Xc);
    free(in->X);
    free(in->V);
    free(in->F);
    free(in->oX);
    free(in->oV);
    free(in->oF);
}

/* Solve the current step with input `variant` (0: A, 1: B), as iteration it. */
static void inst_solve(inst *in, int variant, int it)
{
    const plugin_contract *c = in->c;
    const seam_plugin *P = c->plugin;
    size_t nd = in->n * (size_t)in->dim;
    seam_step st = {in->index, (double)in->index * c->dt, c->dt, it};
    seam_input input = {in->n, in->dim, NULL, NULL, NULL};
    seam_output out = {in->n, in->dim, NULL, NULL, NULL};
    if (P->role == SEAM_FLUID) {
        /* the surface moves rigidly at one of two velocities */
        static const double dir[2][3] = {{1.0, 0.5, 0.25}, {-0.5, 1.0, -0.25}};
        for (size_t k = 0; k < nd; k++) {
            in->V[k] = c->speed * dir[variant][k % (size_t)in->dim];
            in->X[k] = in->Xc[k] + c->dt * in->V[k];
        }
        input.X = in->X;
        input.V = in->V;
        out.F = in->oF;
    } else if (P->role == SEAM_SOLID) {
        for (size_t k = 0; k < nd; k++)
            in->F[k] = c->load * (variant == 0 ? cos(0.7 * (double)k + 0.3) : sin(1.3 * (double)k));
        input.F = in->F;
        out.X = in->oX;
        out.V = in->oV;
    }
    seam_status s = P->role == SEAM_COUPLED ? P->solve(in->self, &st, NULL, NULL) : P->solve(in->self, &st, &input, &out);
    if (s != SEAM_OK)
        fail_msg("plugin contract: %s: solve of step %lld failed: %s", P->name, (long long)in->index, in->th.last);
}

/* What the last solve wrote. */
static void inst_outputs(const inst *in, obs *o)
{
    size_t bytes = in->n * (size_t)in->dim * sizeof(double);
    if (in->c->plugin->role == SEAM_FLUID)
        obs_add(o, in->oF, bytes);
    else if (in->c->plugin->role == SEAM_SOLID) {
        obs_add(o, in->oX, bytes);
        obs_add(o, in->oV, bytes);
    }
}

/* Commit, and observe the committed state: described positions and the field. */
static void inst_commit(inst *in, obs *o)
{
    const seam_plugin *P = in->c->plugin;
    if (P->commit(in->self) != SEAM_OK)
        fail_msg("plugin contract: %s: commit of step %lld failed: %s", P->name, (long long)in->index, in->th.last);
    if (P->role == SEAM_FLUID)
        memcpy(in->Xc, in->X, in->n * (size_t)in->dim * sizeof *in->Xc);
    in->index++;
    if (P->role != SEAM_FLUID && P->describe) {
        seam_interface I;
        assert_int_equal(P->describe(in->self, &I), SEAM_OK);
        obs_add(o, I.X, I.n_points * (size_t)I.dim * sizeof(double));
    }
    if (in->c->field) {
        seam_raster r;
        assert_int_equal(P->field(in->self, in->c->field, &r), SEAM_OK);
        obs_add(o, r.data, (size_t)r.nx * (size_t)r.ny * (size_t)r.nz * sizeof(double));
    }
    double dt;
    assert_int_equal(P->max_dt(in->self, &dt), SEAM_OK);
    obs_add(o, &dt, sizeof dt);
}

/* `steps` steps of input A, each solved once and committed. */
static void inst_run(inst *in, int steps, obs *o)
{
    for (int s = 0; s < steps; s++) {
        inst_solve(in, 0, 0);
        inst_outputs(in, o);
        inst_commit(in, o);
    }
}

/* ---- (a) purity ------------------------------------------------------- */

void plugin_contract_purity(const plugin_contract *c)
{
    inst p, q;
    obs warm = {0}, a1 = {0}, b = {0}, a2 = {0}, tp = {0}, tq = {0};
    inst_open(&p, c);
    inst_run(&p, c->steps, &warm);
    inst_solve(&p, 0, 0);
    inst_outputs(&p, &a1);
    inst_solve(&p, 1, 1);
    inst_outputs(&p, &b);
    inst_solve(&p, 0, 2);
    inst_outputs(&p, &a2);
    obs_equal(&a1, &a2, "input A, then B, then A again");
    if (c->plugin->role != SEAM_COUPLED && a1.n == b.n && memcmp(a1.b, b.b, a1.n) == 0)
        fail_msg("plugin contract: %s: inputs A and B give the same outputs: the purity check would see nothing",
                 c->plugin->name);
    inst_commit(&p, &tp);
    inst_run(&p, c->steps, &tp);
    /* an instance that solved A once commits the same state */
    inst_open(&q, c);
    inst_run(&q, c->steps, &warm);
    inst_solve(&q, 0, 0);
    inst_commit(&q, &tq);
    inst_run(&q, c->steps, &tq);
    obs_equal(&tp, &tq, "commit after solves A, B, A against after A alone");
    inst_close(&p);
    inst_close(&q);
    free(warm.b);
    free(a1.b);
    free(b.b);
    free(a2.b);
    free(tp.b);
    free(tq.b);
}

/* ---- (b) save and load ------------------------------------------------ */

/* A damaged image is refused with SEAM_ERROR and a logged error. */
static void expect_refused(inst *in, const void *img, size_t n, const char *what)
{
    int errors = in->th.n_errors;
    if (in->c->plugin->load(in->self, img, n) != SEAM_ERROR)
        fail_msg("plugin contract: %s: load took %s", in->c->plugin->name, what);
    if (in->th.n_errors <= errors)
        fail_msg("plugin contract: %s: load refused %s without an error message", in->c->plugin->name, what);
}

void plugin_contract_save_load(const plugin_contract *c)
{
    const seam_plugin *P = c->plugin;
    assert_non_null(P->save);
    assert_non_null(P->load);
    inst in;
    obs warm = {0}, t1 = {0}, t2 = {0}, t3 = {0};
    inst_open(&in, c);
    inst_run(&in, c->steps, &warm);
    int64_t at = in.index;
    double *Xc = seam_xmalloc_n(in.n * (size_t)in.dim + 1, sizeof *Xc);
    memcpy(Xc, in.Xc, in.n * (size_t)in.dim * sizeof *Xc);
    seam_buffer buf;
    assert_int_equal(P->save(in.self, &buf), SEAM_OK);
    size_t n = buf.size;
    unsigned char *img = seam_xmalloc(n);
    memcpy(img, buf.data, n);
    char err[256];
    if (!contract_image_valid(img, n, err, sizeof err))
        fail_msg("plugin contract: %s: the saved state is no checkpoint image: %s", P->name, err);
    inst_run(&in, c->steps, &t1);
    /* back to the saved state: load then save gives the image again, and the same steps the same bits */
    inst_solve(&in, 1, 0);   /* a solve in flight is dropped by load */
    assert_int_equal(P->load(in.self, img, n), SEAM_OK);
    assert_int_equal(P->save(in.self, &buf), SEAM_OK);
    assert_int_equal(buf.size, n);
    assert_memory_equal(buf.data, img, n);
    in.index = at;
    memcpy(in.Xc, Xc, in.n * (size_t)in.dim * sizeof *Xc);
    inst_run(&in, c->steps, &t2);
    obs_equal(&t1, &t2, "save, steps, load, the same steps");
    /* damaged images: refused, and the instance still takes the good one */
    unsigned char *bad = seam_xmalloc(n);
    const size_t flip[] = {0, 8, 12, n / 2, n - 5, n - 1};
    for (size_t k = 0; k < sizeof flip / sizeof *flip; k++) {
        memcpy(bad, img, n);
        bad[flip[k]] ^= 0x10;
        char what[64];
        snprintf(what, sizeof what, "an image with byte %zu of %zu flipped", flip[k], n);
        expect_refused(&in, bad, n, what);
    }
    expect_refused(&in, img, n - 1, "an image cut short by one byte");
    expect_refused(&in, img, 0, "an empty image");
    unsigned char *swapped = contract_image_swapped(img, n);
    expect_refused(&in, swapped, n, "an image of the other byte order");
    assert_int_equal(P->load(in.self, img, n), SEAM_OK);
    in.index = at;
    memcpy(in.Xc, Xc, in.n * (size_t)in.dim * sizeof *Xc);
    inst_run(&in, c->steps, &t3);
    obs_equal(&t1, &t3, "load after refused loads, the same steps");
    inst_close(&in);
    free(swapped);
    free(bad);
    free(img);
    free(Xc);
    free(warm.b);
    free(t1.b);
    free(t2.b);
    free(t3.b);
}

/* ---- (c) entries and capabilities ------------------------------------- */

void plugin_contract_entries(const plugin_contract *c)
{
    const seam_plugin *P = c->plugin;
    assert_true(P->abi >= SEAM_ABI_OLDEST && P->abi <= SEAM_ABI_VERSION);
    assert_non_null(P->name);
    assert_non_null(P->summary);
    /* every entry by the list: required ones present, later versions' absent */
#define CONTRACT_ENTRY(name, version, need, shape)                                                                  \
    {                                                                                                          \
        bool present = P->name != NULL;                                                                        \
        bool needed = (need) == SEAM_NEED_ALL || ((need) == SEAM_NEED_SOLID && P->role == SEAM_SOLID) ||       \
                      ((need) == SEAM_NEED_FLUID && P->role == SEAM_FLUID);                                    \
        if ((version) > P->abi && present)                                                                     \
            fail_msg("plugin contract: %s (abi %u) sets " #name ", an entry of abi %u", P->name, P->abi,       \
                     (unsigned)(version));                                                                     \
        if (needed && !present)                                                                                \
            fail_msg("plugin contract: %s lacks " #name ", required of its role", P->name);                  \
    }
    SEAM_PLUGIN_ENTRIES(CONTRACT_ENTRY)
#undef CONTRACT_ENTRY
    if ((P->save == NULL) != (P->load == NULL))
        fail_msg("plugin contract: %s has only one of save and load", P->name);
    if (!P->capabilities)
        return;
    inst in;
    inst_open(&in, c);
    uint32_t caps = P->capabilities(in.self);
    const struct {
        uint32_t flag;
        bool present;
        int role;            /* the role the flag belongs to, 0: any */
        const char *what;
    } rule[] = {
        {SEAM_CAP_LOADS_PRESSURE, true, SEAM_FLUID, "SEAM_CAP_LOADS_PRESSURE"},
        {SEAM_CAP_LOADS_IMPULSE, true, SEAM_FLUID, "SEAM_CAP_LOADS_IMPULSE"},
        {SEAM_CAP_RIGID, true, SEAM_SOLID, "SEAM_CAP_RIGID"},
        {SEAM_CAP_REGIONS, P->regions != NULL, SEAM_FLUID, "SEAM_CAP_REGIONS without regions"},
        {SEAM_CAP_MOBILITY, P->mobility != NULL, SEAM_SOLID, "SEAM_CAP_MOBILITY without mobility"},
        {SEAM_CAP_SAVE, P->save != NULL, 0, "SEAM_CAP_SAVE without save and load"},
    };
    for (size_t k = 0; k < sizeof rule / sizeof *rule; k++) {
        if (!(caps & rule[k].flag))
            continue;
        if (!rule[k].present || (rule[k].role && (int)P->role != rule[k].role))
            fail_msg("plugin contract: %s (role %d) claims %s", P->name, (int)P->role, rule[k].what);
    }
    uint32_t known = SEAM_CAP_LOADS_PRESSURE | SEAM_CAP_LOADS_IMPULSE | SEAM_CAP_RIGID | SEAM_CAP_REGIONS |
                     SEAM_CAP_MOBILITY | SEAM_CAP_SAVE;
    if (caps & ~known)
        fail_msg("plugin contract: %s sets unknown capability bits 0x%x", P->name, (unsigned)(caps & ~known));
    inst_close(&in);
}

/* ---- (d) bad keys ----------------------------------------------------- */

/* create refuses json, with an error that names `key` where the host locates it. */
static void expect_create_refuses(const plugin_contract *c, const char *json, const char *key, const char *what)
{
    test_host th;
    host_init(&th, c);
    void *self = c->plugin->create(c->plugin, json, &th.host);
    if (self) {
        c->plugin->destroy(self);
        fail_msg("plugin contract: %s: create took %s", c->plugin->name, what);
    }
    if (th.n_errors == 0)
        fail_msg("plugin contract: %s: create refused %s without an error message", c->plugin->name, what);
    /* each error line: is one of them located and about this key? */
    for (const char *line = th.all; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char one[2048];
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        if (strstr(one, "contract.json@") && strstr(one, key))
            return;
        line += len + (end != NULL);
    }
    fail_msg("plugin contract: %s: no located message names \"%s\" (%s); it said:\n%s", c->plugin->name, key, what,
             th.all);
}

/* The value at a dotted key path ("coupling.sigma", "solids.0.density"), its parent and last name. */
static json_t *key_parent(json_t *root, const char *path, char *last, size_t n)
{
    json_t *at = root;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *part = buf, *dot;
    while ((dot = strchr(part, '.'))) {
        *dot = '\0';
        at = json_is_array(at) ? json_array_get(at, (size_t)strtoul(part, NULL, 10)) : json_object_get(at, part);
        if (!at)
            fail_msg("plugin contract: no key \"%s\" in the configuration", path);
        part = dot + 1;
    }
    snprintf(last, n, "%s", part);
    return at;
}

void plugin_contract_bad_keys(const plugin_contract *c)
{
    json_error_t je;
    json_t *root = json_loads(c->config, 0, &je);
    if (!json_is_object(root))
        fail_msg("plugin contract: the configuration is no JSON object: %s", je.text);
    /* an unknown key */
    json_t *unknown = json_deep_copy(root);
    json_object_set_new(unknown, "contract_unknown_key", json_integer(1));
    char *text = json_dumps(unknown, JSON_COMPACT | JSON_PRESERVE_ORDER);
    expect_create_refuses(c, text, "contract_unknown_key", "an unknown key");
    free(text);
    json_decref(unknown);
    /* a key of the wrong type: a string for a number (or object, array, boolean), a number for a string */
    json_t *typed = json_deep_copy(root);
    char name[256];
    json_t *parent = typed;
    if (c->typed_key)
        parent = key_parent(typed, c->typed_key, name, sizeof name);
    else if (json_object_size(typed) > 0)
        snprintf(name, sizeof name, "%s", json_object_iter_key(json_object_iter(typed)));
    else
        fail_msg("plugin contract: an empty configuration has no key to give the wrong type");
    json_t *old = json_object_get(parent, name);
    if (!old)
        fail_msg("plugin contract: no key \"%s\" in the configuration", name);
    json_object_set_new(parent, name, json_is_string(old) ? json_integer(7) : json_string("contract-wrong-type"));
    text = json_dumps(typed, JSON_COMPACT | JSON_PRESERVE_ORDER);
    expect_create_refuses(c, text, name, "a key of the wrong type");
    free(text);
    json_decref(typed);
    json_decref(root);
}

void plugin_contract_check(const plugin_contract *c)
{
    assert_true(c->steps >= 1);
    assert_true(c->dt > 0.0);
    plugin_contract_entries(c);
    plugin_contract_bad_keys(c);
    plugin_contract_purity(c);
    plugin_contract_save_load(c);
}

/* ---- an independent little-endian reader of checkpoint images --------- */

uint64_t contract_le_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static uint32_t le_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

double contract_le_f64(const unsigned char *p)
{
    uint64_t bits = contract_le_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);   /* IEEE 754 binary64 on both sides */
    return v;
}

/* CRC-32 of IEEE 802.3, bit by bit (reflected polynomial 0xEDB88320). */
static uint32_t crc32_bits(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

enum { HEAD = 8 + 4 + 8 };   /* magic, version, length */

/* A walk over a well-formed image calls field on each number in it (offset,
 * width) and value on each value with its section's name; value's true stops it. */
typedef struct walker {
    void (*field)(struct walker *w, size_t at, size_t width);
    bool (*value)(struct walker *w, const char *section, size_t name_len, contract_value *v);
    unsigned char *img;      /* for field: the bytes it may change */
} walker;

static bool walk(const unsigned char *p, size_t n, walker *w, char *err, size_t errlen)
{
    if (n < HEAD + 4 || memcmp(p, "SEAMCKPT", 8) != 0) {
        snprintf(err, errlen, "no magic number (%zu bytes)", n);
        return false;
    }
    if (le_u32(p + 8) != 1) {
        snprintf(err, errlen, "version %u", le_u32(p + 8));
        return false;
    }
    uint64_t length = contract_le_u64(p + 12);
    if (length != n - HEAD - 4) {
        snprintf(err, errlen, "length %llu in an image of %zu bytes", (unsigned long long)length, n);
        return false;
    }
    if (le_u32(p + n - 4) != crc32_bits(p, n - 4)) {
        snprintf(err, errlen, "CRC mismatch");
        return false;
    }
    if (w && w->field) {
        w->field(w, 8, 4);
        w->field(w, 12, 8);
    }
    size_t at = HEAD, end = n - 4;
    while (at < end) {
        if (end - at < 12 || le_u32(p + at) > end - at - 12) {
            snprintf(err, errlen, "section name cut short at byte %zu", at);
            return false;
        }
        size_t name_len = le_u32(p + at);
        const char *name = (const char *)p + at + 4;
        uint64_t body_len = contract_le_u64(p + at + 4 + name_len);
        if (w && w->field) {
            w->field(w, at, 4);
            w->field(w, at + 4 + name_len, 8);
        }
        at += 4 + name_len + 8;
        if (body_len > end - at) {
            snprintf(err, errlen, "section %.*s cut short", (int)name_len, name);
            return false;
        }
        size_t body_end = at + (size_t)body_len;
        while (at < body_end) {
            contract_value v = {(char)p[at], 0, NULL};
            size_t width = v.tag == 's' ? 1 : 8;
            if (!strchr("uidsDI", v.tag) || v.tag == '\0' || body_end - at < 9) {
                snprintf(err, errlen, "section %.*s: bad value at byte %zu", (int)name_len, name, at);
                return false;
            }
            v.u = contract_le_u64(p + at + 1);
            if (w && w->field)
                w->field(w, at + 1, 8);
            at += 9;
            if (strchr("sDI", v.tag)) {
                if (v.u > (body_end - at) / width) {
                    snprintf(err, errlen, "section %.*s: array cut short at byte %zu", (int)name_len, name, at);
                    return false;
                }
                v.at = p + at;
                for (size_t k = 0; width == 8 && w && w->field && k < v.u; k++)
                    w->field(w, at + 8 * k, 8);
                at += (size_t)v.u * width;
            }
            if (w && w->value && w->value(w, name, name_len, &v))
                return true;
        }
    }
    return true;
}

bool contract_image_valid(const void *img, size_t n, char *err, size_t errlen)
{
    return walk(img, n, NULL, err, errlen);
}

typedef struct finder {
    walker w;
    const char *section;
    size_t k, seen;
    contract_value *out;
    bool found;
} finder;

static bool find_value(walker *w, const char *section, size_t name_len, contract_value *v)
{
    finder *f = (finder *)w;
    if (strlen(f->section) != name_len || memcmp(section, f->section, name_len) != 0)
        return false;
    if (f->seen++ != f->k)
        return false;
    *f->out = *v;
    f->found = true;
    return true;
}

bool contract_image_value(const void *img, size_t n, const char *section, size_t k, contract_value *v)
{
    finder f = {{NULL, find_value, NULL}, section, k, 0, v, false};
    char err[256];
    return walk(img, n, &f.w, err, sizeof err) && f.found;
}

static void reverse_field(walker *w, size_t at, size_t width)
{
    for (size_t i = 0; i < width / 2; i++) {
        unsigned char t = w->img[at + i];
        w->img[at + i] = w->img[at + width - 1 - i];
        w->img[at + width - 1 - i] = t;
    }
}

unsigned char *contract_image_swapped(const void *img, size_t n)
{
    unsigned char *out = seam_xmalloc(n + 1);
    memcpy(out, img, n);
    walker w = {reverse_field, NULL, out};
    char err[256];
    if (!walk(img, n, &w, err, sizeof err))
        fail_msg("contract_image_swapped: %s", err);
    uint32_t crc = crc32_bits(out, n - 4);   /* the other host's CRC of its bytes, in its byte order */
    for (int k = 0; k < 4; k++)
        out[n - 4 + (size_t)k] = (unsigned char)(crc >> (24 - 8 * k));
    return out;
}

void plugin_contract_refused_load_keeps_state(const seam_plugin *P, void *self, const void *bad, size_t n)
{
    seam_buffer buf;
    assert_int_equal(P->save(self, &buf), SEAM_OK);
    size_t n_before = buf.size;
    unsigned char *before = seam_xmalloc(n_before);
    memcpy(before, buf.data, n_before);
    assert_int_equal(P->load(self, bad, n), SEAM_ERROR);
    assert_int_equal(P->save(self, &buf), SEAM_OK);
    assert_int_equal(buf.size, n_before);
    assert_memory_equal(buf.data, before, n_before);
    free(before);
}
