/* One plugin instance served over the wire: request in, reply out. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "seam/alloc.h"
#include "session.h"
#include "shape.h"
#include "seam/config.h"
#include "seam/loader.h"
#include "seam/threads.h"
#include "seam/vtk.h"

#define MAX_LOG 64           /* messages kept per request */
#define MAX_COUNT (1ull << 36) /* points or elements: beyond any real interface */

typedef struct { seam_log_level level; char *text; } log_entry;
typedef struct { char *path, *where; } location;

#define MAX_REFUSED_BINDS 4     /* binds the plugin refused, kept until one succeeds */
#define MAX_LOCATIONS 65536     /* entries of create's `locations` */

typedef struct commit_field {
    char name[256];
    seam_status st;
    seam_raster r;           /* data points at copy; units at units when the plugin gave some */
    double *copy;
    size_t cap;
    char units[64];
} commit_field;

struct seam_session {
    const seam_plugin *p;
    json_t *defaults;        /* seam-serve --config, or NULL */
    bool greeted;
    unsigned proto;          /* the version the coupler said hello with */
    void *self;
    seam_host host;
    double gravity[3];       /* the coupler's, when create sent it */
    char *name, *config_path, *output_dir, *scene_dir;
    location *locs;
    size_t n_locs;
    log_entry log[MAX_LOG];
    size_t n_log, dropped;
    size_t n_iface;          /* values per interface array (points x dim); 0 until described/bound */
    bool stepped;            /* the last instance was asked to solve (a run, not a validation) */
    /* bind: the coupler's interface, kept while the plugin may point into it
     * (the contract); a bind the plugin refused may have left it holding the
     * refused arrays as well as the accepted ones, so those are kept too */
    wire_allocs bound;
    wire_allocs refused[MAX_REFUSED_BINDS];
    size_t n_refused;
    /* per-solve scratch, n_iface values each; outputs are shared with the
     * reply's frames while ZeroMQ sends them */
    double *in[3];
    seam_shared *out[3];
    /* commit's `fields`: each raster copied (the plugin's pointer lasts only
     * until its next field call), kept between commits */
    commit_field cf[SEAM_COMMIT_FIELDS_MAX];
    int entry;               /* the shaped entry op_shaped serves (WIRE_E_*) */
};

static const char *const io_names[3] = {"X", "V", "F"};

const char *seam_wire_role(seam_role r)
{
    return r == SEAM_FLUID ? "fluid" : r == SEAM_SOLID ? "solid" : r == SEAM_COUPLED ? "coupled" : "unknown";
}

int seam_wire_role_parse(const char *s, size_t len)
{
    static const struct { const char *name; seam_role role; } roles[] = {
        {"fluid", SEAM_FLUID}, {"solid", SEAM_SOLID}, {"coupled", SEAM_COUPLED}};
    for (size_t i = 0; i < 3; i++)
        if (strlen(roles[i].name) == len && memcmp(roles[i].name, s, len) == 0)
            return (int)roles[i].role;
    return -1;
}

/* ---- the host the plugin sees ------------------------------------------ */

static void session_log(void *ctx, seam_log_level level, const char *message)
{
    seam_session *s = ctx;
    if (s->n_log == MAX_LOG) {
        s->dropped++;
        return;
    }
    s->log[s->n_log].level = level;
    s->log[s->n_log].text = seam_xstrdup(message);
    s->n_log++;
}

/* Where create's `locations` put the key, else its nearest ancestor there ("" is the participant's object),
 * as the coupler's own host answers for a key the scene does not write (a required one, missing). */
static const char *session_locate(void *ctx, const char *key_path)
{
    seam_session *s = ctx;
    for (size_t len = strlen(key_path);; len = seam_key_path_parent(key_path, len)) {
        for (size_t i = 0; i < s->n_locs; i++)
            if (strlen(s->locs[i].path) == len && strncmp(s->locs[i].path, key_path, len) == 0)
                return s->locs[i].where;
        if (len == 0)
            return NULL;
    }
}

static void clear_log(seam_session *s)
{
    for (size_t i = 0; i < s->n_log; i++)
        free(s->log[i].text);
    s->n_log = 0;
    s->dropped = 0;
}

seam_session *seam_session_new(const seam_plugin *p)
{
    seam_session *s = SEAM_NEW(seam_session);
    s->p = p;
    return s;
}

static void free_instance(seam_session *s)
{
    if (s->self)
        s->p->destroy(s->self);
    s->self = NULL;
    free(s->name); free(s->config_path); free(s->output_dir); free(s->scene_dir);
    s->name = s->config_path = s->output_dir = s->scene_dir = NULL;
    for (size_t i = 0; i < s->n_locs; i++) {
        free(s->locs[i].path);
        free(s->locs[i].where);
    }
    free(s->locs);
    s->locs = NULL;
    s->n_locs = 0;
    wire_allocs_free(&s->bound);
    for (size_t i = 0; i < s->n_refused; i++)
        wire_allocs_free(&s->refused[i]);
    s->n_refused = 0;
    for (int k = 0; k < 3; k++) {
        free(s->in[k]);
        seam_shared_unref(s->out[k]);
        s->in[k] = NULL;
        s->out[k] = NULL;
    }
    s->n_iface = 0;
    for (int k = 0; k < SEAM_COMMIT_FIELDS_MAX; k++) {
        free(s->cf[k].copy);
        s->cf[k].copy = NULL;
        s->cf[k].cap = 0;
    }
}

void seam_session_reset(seam_session *s)
{
    free_instance(s);
    s->greeted = false;
}

void seam_session_destroy(seam_session **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_session *s = *self_p;
    free_instance(s);
    clear_log(s);
    json_decref(s->defaults);
    free(s);
    *self_p = NULL;
}

bool seam_session_open(const seam_session *s) { return s->greeted; }
bool seam_session_stepped(const seam_session *s) { return s->stepped; }

int seam_session_set_defaults(seam_session *s, const char *json_object, char *err, size_t errlen)
{
    json_error_t e;
    json_t *obj = json_loads(json_object, 0, &e);
    if (!obj || !json_is_object(obj)) {
        snprintf(err, errlen, obj ? "expected a JSON object" : "line %d column %d: %s", e.line, e.column, e.text);
        json_decref(obj);
        return -1;
    }
    json_decref(s->defaults);
    s->defaults = obj;
    return 0;
}

/* The coupler's configuration with the server's defaults under it (the
 * coupler's keys win); malloc'ed. Text that is not an object passes
 * unchanged, for the plugin to refuse. */
static char *with_defaults(const seam_session *s, const char *config)
{
    json_t *obj = s->defaults ? json_loads(config, 0, NULL) : NULL;
    if (!json_is_object(obj)) {
        json_decref(obj);
        return seam_xstrdup(config);
    }
    json_object_update_missing(obj, s->defaults);
    char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(obj);
    return text;
}

/* ---- replies ------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n || (len == 2 && c < 0xc2) || (len == 4 && c > 0xf4))
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))   /* overlong, surrogate */
        return 0;
    if (len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))   /* overlong, > U+10FFFF */
        return 0;
    return len;
}

/* A MessagePack str must be UTF-8: text that echoes a peer's bytes (an op
 * name, a plugin's message quoting its configuration) is written with each
 * invalid byte replaced by U+FFFD. */
static void w_text(seam_wbuf *w, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text), bad = 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(p + i, n - i);
        bad += len == 0;
        i += len ? len : 1;
    }
    if (!bad) {
        seam_w_str(w, text);
        return;
    }
    char *clean = seam_xmalloc(n + 2 * bad + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(p + i, n - i);
        if (len) {
            memcpy(clean + o, p + i, len);
            o += len;
            i += len;
        } else {
            memcpy(clean + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    clean[o] = '\0';
    seam_w_str(w, clean);
    free(clean);
}

static void write_log(seam_wbuf *w, seam_session *s)
{
    size_t n = s ? s->n_log + (s->dropped ? 1 : 0) : 0;
    seam_w_str(w, "log");
    seam_w_array(w, n);
    for (size_t i = 0; s && i < s->n_log; i++) {
        seam_w_array(w, 2);
        seam_w_uint(w, (uint64_t)s->log[i].level);
        w_text(w, s->log[i].text);
    }
    if (s && s->dropped) {
        char note[96];
        snprintf(note, sizeof note, "(%zu more messages dropped)", s->dropped);
        seam_w_array(w, 2);
        seam_w_uint(w, SEAM_LOG_WARN);
        seam_w_str(w, note);
    }
}

static void verror(seam_wbuf *w, seam_session *s, uint64_t id, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    seam_wbuf_free(w);
    seam_wbuf_init(w, 0);
    seam_w_map(w, 4);
    seam_w_str(w, "id");
    seam_w_uint(w, id);
    seam_w_str(w, "ok");
    seam_w_bool(w, false);
    seam_w_str(w, "error");
    w_text(w, msg);
    write_log(w, s);
}

void seam_reply_error(seam_wbuf *w, uint64_t id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    seam_wbuf_init(w, 0);   /* w is not initialized yet: give verror an empty one to free */
    verror(w, NULL, id, fmt, ap);
    va_end(ap);
}

static void fail(seam_wbuf *w, seam_session *s, uint64_t id, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(seam_wbuf *w, seam_session *s, uint64_t id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(w, s, id, fmt, ap);
    va_end(ap);
}

/* {id, ok: true, log, ...fields}: the caller writes `fields` key/value pairs next. */
static void begin_ok(seam_wbuf *w, seam_session *s, uint64_t id, size_t fields, size_t reserve)
{
    seam_wbuf_free(w);
    seam_wbuf_init(w, reserve);
    if (s && s->proto >= 2)   /* protocol 1 peers get every array inline */
        w->oob_min = SEAM_WIRE_OOB_MIN;
    seam_w_map(w, 3 + fields);
    seam_w_str(w, "id");
    seam_w_uint(w, id);
    seam_w_str(w, "ok");
    seam_w_bool(w, true);
    write_log(w, s);
}

static void kv_uint(seam_wbuf *w, const char *k, uint64_t v) { seam_w_str(w, k); seam_w_uint(w, v); }
static void kv_int(seam_wbuf *w, const char *k, int64_t v) { seam_w_str(w, k); seam_w_int(w, v); }
static void kv_f64(seam_wbuf *w, const char *k, double v) { seam_w_str(w, k); seam_w_f64(w, v); }
static void kv_status(seam_wbuf *w, seam_status st) { kv_uint(w, "status", (uint64_t)st); }

/* ---- requests ----------------------------------------------------------- */

bool seam_request_peek(const void *req, size_t len, char *op, size_t op_size, uint64_t *id)
{
    seam_msg m;
    *id = 0;
    if (!seam_msg_parse(&m, req, len))
        return false;
    seam_msg_uint(&m, "id", false, id);
    return seam_msg_strcpy(&m, "op", true, op, op_size);
}

/* A copy of a string field, or NULL (absent, nil or bad: bad sets the error). */
static char *dup_field(seam_msg *m, const char *key, bool required)
{
    const char *str;
    size_t len;
    if (!seam_msg_str(m, key, required, &str, &len))
        return NULL;
    if (memchr(str, '\0', len)) {
        seam_msg_fail(m, "field \"%s\": contains a NUL byte", key);
        return NULL;
    }
    return seam_xstrndup(str, len);
}

static void set_iface_size(seam_session *s, size_t n);

static void op_hello(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    uint64_t proto = 0, abi = 0;
    seam_msg_uint(m, "protocol", true, &proto);
    seam_msg_uint(m, "abi", true, &abi);
    if (m->error[0])
        { fail(w, s, id, "hello: %s", m->error); return; }
    if (proto < SEAM_PROTOCOL_OLDEST || proto > SEAM_PROTOCOL_VERSION)
        { fail(w, s, id, "hello: protocol version %llu is not spoken here (this server speaks %u to %u)",
                    (unsigned long long)proto, SEAM_PROTOCOL_OLDEST, SEAM_PROTOCOL_VERSION); return; }
    if (abi < SEAM_ABI_OLDEST)
        { fail(w, s, id, "hello: plugin ABI %llu requested; this server hosts ABI %u and speaks to couplers of ABI %u and newer",
                    (unsigned long long)abi, s->p->abi, SEAM_ABI_OLDEST); return; }
    s->greeted = true;
    s->proto = (unsigned)proto;
    /* every entry a plugin may leave NULL that this one provides */
    size_t n_entries, n_opt = 0;
    const seam_entry_info *entries = seam_plugin_entries(&n_entries);
    for (size_t i = 0; i < n_entries; i++)
        n_opt += entries[i].need != SEAM_NEED_ALL && seam_plugin_has(s->p, &entries[i]);
    begin_ok(w, s, id, 6, 0);
    kv_uint(w, "protocol", s->proto);
    kv_uint(w, "abi", s->p->abi);
    seam_w_str(w, "plugin");
    seam_w_str(w, s->p->name);
    seam_w_str(w, "role");
    seam_w_str(w, seam_wire_role(s->p->role));
    seam_w_str(w, "summary");
    seam_w_str(w, s->p->summary ? s->p->summary : "");
    seam_w_str(w, "functions");
    seam_w_array(w, n_opt);
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].need != SEAM_NEED_ALL && seam_plugin_has(s->p, &entries[i]))
            seam_w_str(w, entries[i].name);
}

static void op_create(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    if (s->self)
        { fail(w, s, id, "create: an instance exists already (one per session; bye ends it)"); return; }
    s->stepped = false;
    char why[256];
    char *config = dup_field(m, "config", true);
    s->name = dup_field(m, "name", true);
    s->config_path = dup_field(m, "config_path", false);
    s->output_dir = dup_field(m, "output_dir", false);
    s->scene_dir = dup_field(m, "scene_dir", false);
    double cell_size = 0.0;
    if (seam_msg_has(m, "cell_size") && (!seam_msg_num(m, "cell_size", true, &cell_size) || !(cell_size >= 0.0)))
        seam_msg_fail(m, "cell_size: expected a number >= 0");
    bool has_gravity = seam_msg_has(m, "gravity") && !seam_msg_is_nil(m, "gravity");
    if (has_gravity && seam_msg_f64s(m, "gravity", true, s->gravity, 3))
        for (int k = 0; k < 3; k++)
            if (!isfinite(s->gravity[k]))
                seam_msg_fail(m, "gravity: expected 3 finite numbers (m/s^2)");
    int vtk = SEAM_VTK_XML;
    char vtk_name[32] = "xml";
    if (seam_msg_has(m, "vtk") && !seam_msg_is_nil(m, "vtk") &&
        seam_msg_strcpy(m, "vtk", true, vtk_name, sizeof vtk_name)) {
        for (vtk = 0; seam_vtk_format_names[vtk] && strcmp(seam_vtk_format_names[vtk], vtk_name) != 0; vtk++)
            ;
        if (!seam_vtk_format_names[vtk])
            seam_msg_fail(m, "field \"vtk\": \"%s\" is not a frame format (xml, legacy, xml_float32)", vtk_name);
    }
    if (s->name && seam_participant_name_check(s->name, why, sizeof why) != 0)
        seam_msg_fail(m, "field \"name\": %s", why);
    seam_mp items;
    size_t n_locs = 0;
    if (!m->error[0] && seam_msg_map(m, "locations", false, &items, &n_locs)) {
        /* one entry per located key of the participant's object: a cloth has
         * dozens, so this map is read as a stream, not indexed */
        if (n_locs > MAX_LOCATIONS)
            seam_msg_fail(m, "field \"locations\": %zu entries (at most %d)", n_locs, MAX_LOCATIONS);
        else
            s->locs = SEAM_NEW_N(location, n_locs ? n_locs : 1);
        for (size_t i = 0; s->locs && i < n_locs && !m->error[0]; i++) {
            seam_mp_value k, v;
            if (!seam_mp_next(&items, &k) || k.kind != SEAM_MP_STR || !seam_mp_next(&items, &v) ||
                v.kind != SEAM_MP_STR || memchr(k.data, '\0', k.len) || memchr(v.data, '\0', v.len)) {
                seam_msg_fail(m, "field \"locations\": entry %zu is not a string key with a string value", i);
                break;
            }
            s->locs[s->n_locs].path = seam_xstrndup((const char *)k.data, k.len);
            s->locs[s->n_locs++].where = seam_xstrndup((const char *)v.data, v.len);
        }
    }
    if (m->error[0]) {
        free(config);
        free_instance(s);
        { fail(w, s, id, "create: %s", m->error); return; }
    }
    s->host = (seam_host){
        .abi = SEAM_ABI_VERSION,
        .name = s->name,
        .config_path = s->config_path,
        .output_dir = s->output_dir,
        .ctx = s,
        .log = session_log,
        .locate = session_locate,
        .scene_dir = s->scene_dir,
        .cell_size = cell_size,
        .gravity = has_gravity ? s->gravity : NULL,
        .vtk_format = (uint32_t)vtk,
    };
    char *merged = with_defaults(s, config);
    s->self = s->p->create(s->p, merged, &s->host);
    free(merged);
    free(config);
    begin_ok(w, s, id, 1, 0);
    kv_status(w, s->self ? SEAM_OK : SEAM_ERROR);
    if (!s->self)
        free_instance(s);
}

static bool read_step(seam_msg *m, seam_step *step)
{
    seam_msg sm;
    if (!seam_msg_child(m, "step", true, &sm))
        return false;
    int64_t index = 0, iteration = 0;
    seam_msg_int(&sm, "index", true, &index);
    seam_msg_num(&sm, "t", true, &step->t);
    seam_msg_num(&sm, "dt", true, &step->dt);
    seam_msg_int(&sm, "iteration", true, &iteration);
    if (!sm.error[0] && (iteration < 0 || iteration > INT32_MAX))
        seam_msg_fail(&sm, "field \"iteration\": %lld is out of range", (long long)iteration);
    if (sm.error[0]) {
        seam_msg_fail(m, "step: %s", sm.error);
        return false;
    }
    step->index = index;
    step->iteration = (int)iteration;
    return true;
}

/* A new interface size: the per-solve scratch arrays were sized for the old one. */
static void set_iface_size(seam_session *s, size_t n)
{
    if (n == s->n_iface)
        return;
    for (int k = 0; k < 3; k++) {
        free(s->in[k]);
        seam_shared_unref(s->out[k]);
        s->in[k] = NULL;
        s->out[k] = NULL;
    }
    s->n_iface = n;
}

/* The input scratch array k, n_iface values. */
static double *scratch(seam_session *s, double **which, int k)
{
    if (!which[k])
        which[k] = SEAM_NEW_N(double, s->n_iface ? s->n_iface : 1);
    return which[k];
}

/* The output array k, n_iface values; a fresh one while the last reply's
 * frames still point into the old one. */
static double *out_scratch(seam_session *s, int k)
{
    if (s->out[k] && seam_shared_busy(s->out[k])) {
        seam_shared_unref(s->out[k]);
        s->out[k] = NULL;
    }
    if (!s->out[k])
        s->out[k] = seam_shared_new(s->n_iface * sizeof(double));
    return s->out[k] ? seam_shared_data(s->out[k]) : NULL;
}

/* The scratch arrays are sized by the coupler's bind: their absence is an error reply. */
static void no_memory(seam_msg *m, seam_session *s)
{
    seam_msg_fail(m, "no memory for %zu values", s->n_iface);
}

static void op_solve(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    s->stepped = true;
    seam_step step = {0};
    uint64_t n = 0, dim = 0;
    read_step(m, &step);
    seam_msg_uint(m, "n", true, &n);
    seam_msg_uint(m, "dim", true, &dim);
    seam_mp items;
    size_t n_out = 0;
    bool want[3] = {false, false, false};
    if (seam_msg_array(m, "out", false, &items, &n_out)) {
        for (size_t i = 0; i < n_out; i++) {
            seam_mp_value v;
            int k = -1;
            if (seam_mp_next(&items, &v) && v.kind == SEAM_MP_STR && v.len == 1)
                for (int j = 0; j < 3; j++)
                    if (io_names[j][0] == (char)v.data[0])
                        k = j;
            if (k < 0) {
                seam_msg_fail(m, "field \"out\": items are \"X\", \"V\" or \"F\"");
                break;
            }
            want[k] = true;
        }
    }
    if (m->error[0])
        { fail(w, s, id, "solve: %s", m->error); return; }
    bool coupled = s->p->role == SEAM_COUPLED;
    if (coupled && n != 0)
        { fail(w, s, id, "solve: a coupled plugin takes no interface values (n = 0), got n = %llu",
                    (unsigned long long)n); return; }
    if (!coupled && (!s->n_iface || dim < 1 || dim > 3 || n > MAX_COUNT || n * dim != s->n_iface))
        { fail(w, s, id, "solve: %llu points of dimension %llu do not match the interface (%zu values; %s first)",
                    (unsigned long long)n, (unsigned long long)dim, s->n_iface,
                    s->p->role == SEAM_SOLID ? "describe" : "bind"); return; }
    /* what the role reads and writes is always there: a plugin follows the
     * contract and reads its inputs and writes its outputs without checking */
    bool needs_in[3] = {s->p->role == SEAM_FLUID, s->p->role == SEAM_FLUID, s->p->role == SEAM_SOLID};
    bool writes[3] = {s->p->role == SEAM_SOLID, s->p->role == SEAM_SOLID, s->p->role == SEAM_FLUID};
    for (int k = 0; k < 3 && !coupled; k++)
        if (needs_in[k] && (!seam_msg_has(m, io_names[k]) || seam_msg_is_nil(m, io_names[k])))
            { fail(w, s, id, "solve: field \"%s\" is missing (a %s reads %s)", io_names[k],
                   seam_wire_role(s->p->role), s->p->role == SEAM_FLUID ? "X and V" : "F"); return; }
    seam_input in = {n, (int)dim, NULL, NULL, NULL};
    seam_output out = {n, (int)dim, NULL, NULL, NULL};
    const double **in_ptr[3] = {&in.X, &in.V, &in.F};
    double **out_ptr[3] = {&out.X, &out.V, &out.F};
    for (int k = 0; k < 3 && !coupled; k++) {
        if (seam_msg_has(m, io_names[k]) && !seam_msg_is_nil(m, io_names[k])) {
            const double *view = seam_msg_f64s_view(m, io_names[k], s->n_iface);   /* out of band: no copy */
            double *copy = view ? NULL : scratch(s, s->in, k);
            if (view)
                *in_ptr[k] = view;
            else if (copy) {
                seam_msg_f64s(m, io_names[k], true, copy, s->n_iface);
                *in_ptr[k] = copy;
            } else
                no_memory(m, s);
        }
        if ((want[k] || writes[k]) && !(*out_ptr[k] = out_scratch(s, k)))
            no_memory(m, s);
    }
    if (m->error[0])
        { fail(w, s, id, "solve: %s", m->error); return; }
    seam_threads_tick();   /* each step on the policy's thread count (docs/performance.md, "Threads") */
    seam_status st = s->p->solve(s->self, &step, coupled ? NULL : &in, coupled ? NULL : &out);
    size_t fields = 1;
    for (int k = 0; k < 3 && st == SEAM_OK; k++)
        fields += want[k];
    begin_ok(w, s, id, fields, 64 + (fields - 1) * (seam_wire_inline(s->proto, s->n_iface * 8) + 16));
    kv_status(w, st);
    for (int k = 0; k < 3 && st == SEAM_OK; k++)
        if (want[k]) {
            seam_w_str(w, io_names[k]);
            seam_w_f64s_ref(w, *out_ptr[k], s->n_iface, s->out[k]);
        }
}

/* A field call's status as the reply gives it: a raster with a negative
 * size is an error of the plugin's. */
static size_t raster_cells(const seam_raster *r) { return (size_t)r->nx * (size_t)r->ny * (size_t)r->nz; }

static seam_status raster_status(seam_status st, const seam_raster *r)
{
    if (st != SEAM_OK)
        return st;
    return r->nx >= 0 && r->ny >= 0 && r->nz >= 0 && (r->data || raster_cells(r) == 0) ? SEAM_OK : SEAM_ERROR;
}

/* `field`'s reply fields after status (7 pairs), for a raster whose status is 0. */
static void kv_raster(seam_wbuf *w, const seam_raster *r)
{
    kv_int(w, "nx", r->nx);
    kv_int(w, "ny", r->ny);
    kv_int(w, "nz", r->nz);
    seam_w_str(w, "origin");
    seam_w_f64s(w, r->origin, 3);
    kv_f64(w, "dx", r->dx);
    static const double none = 0.0;   /* no cells: an empty array, not nil */
    seam_w_str(w, "data");
    seam_w_f64s(w, r->data ? r->data : &none, raster_cells(r));
    seam_w_str(w, "units");
    if (r->units)
        seam_w_str(w, r->units);
    else
        seam_w_nil(w);
}

static void op_field(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    char name[256];
    seam_msg_strcpy(m, "name", true, name, sizeof name);
    if (m->error[0])
        { fail(w, s, id, "field: %s", m->error); return; }
    seam_raster r = {0};
    seam_status st = raster_status(s->p->field(s->self, name, &r), &r);
    size_t bytes = st == SEAM_OK ? raster_cells(&r) * 8 : 0;
    begin_ok(w, s, id, st == SEAM_OK ? 8 : 1, 128 + seam_wire_inline(s->proto, bytes));
    kv_status(w, st);
    if (st == SEAM_OK)
        kv_raster(w, &r);
}

static void op_max_dt(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    (void)m;
    double dt = NAN;
    seam_status st = s->p->max_dt(s->self, &dt);
    begin_ok(w, s, id, 2, 0);
    kv_status(w, st);
    kv_f64(w, "dt", dt);
}

/* commit's `fields`: the names asked, at most SEAM_COMMIT_FIELDS_MAX of
 * them, into s->cf; their count, or -1 after m's error. */
static int commit_field_names(seam_session *s, seam_msg *m)
{
    seam_mp items;
    size_t n = 0;
    if (!seam_msg_has(m, "fields") || seam_msg_is_nil(m, "fields"))
        return 0;
    if (!seam_msg_array(m, "fields", true, &items, &n))
        return -1;
    if (n > SEAM_COMMIT_FIELDS_MAX) {
        seam_msg_fail(m, "field \"fields\": %zu names, at most %d", n, SEAM_COMMIT_FIELDS_MAX);
        return -1;
    }
    if (n && !s->p->field) {
        seam_msg_fail(m, "field \"fields\": plugin \"%s\" has no fields", s->p->name);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        seam_mp_value v;
        if (!seam_mp_next(&items, &v) || v.kind != SEAM_MP_STR || v.len == 0 || v.len >= sizeof s->cf[i].name ||
            memchr(v.data, '\0', v.len)) {
            seam_msg_fail(m, "field \"fields\": item %zu is not a field's name (a string of 1 to %zu bytes)", i,
                          sizeof s->cf[i].name - 1);
            return -1;
        }
        memcpy(s->cf[i].name, v.data, v.len);
        s->cf[i].name[v.len] = '\0';
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->cf[j].name, s->cf[i].name) == 0) {
                seam_msg_fail(m, "field \"fields\": \"%s\" comes twice", s->cf[i].name);
                return -1;
            }
    }
    return (int)n;
}

/* The committed state's field cf->name, copied into cf. */
static void commit_field_take(seam_session *s, commit_field *cf)
{
    seam_raster r = {0};
    cf->st = raster_status(s->p->field(s->self, cf->name, &r), &r);
    size_t cells = cf->st == SEAM_OK ? raster_cells(&r) : 0;
    if (cf->st == SEAM_OK && (cells > cf->cap || !cf->copy)) {
        cf->copy = seam_xrealloc_n(cf->copy, cells ? cells : 1, sizeof *cf->copy);
        cf->cap = cells;
    }
    if (cf->st != SEAM_OK)
        return;
    if (cells)
        memcpy(cf->copy, r.data, cells * sizeof *cf->copy);
    snprintf(cf->units, sizeof cf->units, "%s", r.units ? r.units : "");
    cf->r = r;
    cf->r.data = cf->copy;
    cf->r.units = r.units ? cf->units : NULL;
}

/* With `max_dt: true`, a successful commit's reply also carries max_dt of
 * the state it committed, {status, dt}; with `fields: [name, ...]`, what
 * `field` would answer for each name, as {name: {status, ...}}: the coupler
 * asks for them next (PROTOCOL.md). */
static void op_commit(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    bool with_dt = false;
    if (seam_msg_has(m, "max_dt") && !seam_msg_is_nil(m, "max_dt") && !seam_msg_bool(m, "max_dt", true, &with_dt))
        { fail(w, s, id, "commit: %s", m->error); return; }
    int n_fields = commit_field_names(s, m);
    if (n_fields < 0)
        { fail(w, s, id, "commit: %s", m->error); return; }
    seam_status st = s->p->commit(s->self);
    with_dt = with_dt && st == SEAM_OK;
    n_fields = st == SEAM_OK ? n_fields : 0;
    double dt = NAN;
    seam_status dst = with_dt ? s->p->max_dt(s->self, &dt) : SEAM_OK;
    size_t bytes = 0;   /* inline, all of them: names past SEAM_COMMIT_FIELDS_BYTES are left to `field` */
    for (int k = 0; k < n_fields; k++) {
        commit_field_take(s, &s->cf[k]);
        size_t more = 160 + (s->cf[k].st == SEAM_OK ? raster_cells(&s->cf[k].r) * 8 : 0);
        if (bytes + more > SEAM_COMMIT_FIELDS_BYTES) {
            n_fields = k;
            break;
        }
        bytes += more;
    }
    begin_ok(w, s, id, 1 + (with_dt ? 1 : 0) + (n_fields ? 1 : 0), bytes);
    kv_status(w, st);
    if (with_dt) {
        seam_w_str(w, "max_dt");
        seam_w_map(w, 2);
        kv_status(w, dst);
        kv_f64(w, "dt", dt);
    }
    if (n_fields) {   /* nested arrays travel inline: only top-level ones go out of band */
        size_t oob_min = w->oob_min;
        w->oob_min = SIZE_MAX;
        seam_w_str(w, "fields");
        seam_w_map(w, (size_t)n_fields);
        for (int k = 0; k < n_fields; k++) {
            const commit_field *cf = &s->cf[k];
            seam_w_str(w, cf->name);
            seam_w_map(w, cf->st == SEAM_OK ? 8 : 1);
            kv_status(w, cf->st);
            if (cf->st == SEAM_OK)
                kv_raster(w, &cf->r);
        }
        w->oob_min = oob_min;
    }
}

static void op_capabilities(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    (void)m;
    begin_ok(w, s, id, 1, 0);
    kv_uint(w, "capabilities", s->p->capabilities(s->self));
}

static void op_bodies(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    (void)m;
    seam_bodies b = {0};
    seam_status st = s->p->bodies(s->self, &b);
    bool ok = st == SEAM_OK;
    double *ranges = ok && b.count ? SEAM_NEW_N(double, 2 * b.count) : NULL;
    for (size_t i = 0; i < b.count && ranges; i++)
        ranges[2 * i] = (double)b.first[i], ranges[2 * i + 1] = (double)b.points[i];
    begin_ok(w, s, id, ok ? 5 : 1, ok ? 64 + seam_wire_inline(s->proto, b.count * 14 * 8) : 0);
    kv_status(w, st);
    if (ok) {
        kv_uint(w, "count", b.count);
        seam_w_str(w, "centre");
        seam_w_f64s(w, b.centre, 3 * b.count);
        seam_w_str(w, "rotation");
        seam_w_f64s(w, b.rotation, 9 * b.count);
        seam_w_str(w, "ranges");
        seam_w_f64s(w, ranges, 2 * b.count);
    }
    free(ranges);
}

/* ---- the shaped entries ------------------------------------------------- */

SEAM_PLUGIN_ENTRIES(WIRE_INVOKE)
typedef seam_status (*wire_invoke)(const seam_plugin *p, void *self, wire_arg *v);
static const wire_invoke invokers[WIRE_E_COUNT] = {SEAM_PLUGIN_ENTRIES(WIRE_INVOKER)};

/* One input of a shaped entry from m into v (what it allocates into tmp);
 * false with m's error. */
static bool read_input(seam_session *s, seam_msg *m, const wire_param *p, size_t i, wire_arg *v, seam_step *step,
                       wire_allocs *tmp, wire_allocs *in)
{
    size_t n = p->n ? p->n : s->n_iface;
    if ((p->kind == WP_IN_F64S || p->kind == WP_OUT_F64S) && !p->n && !s->n_iface) {
        seam_msg_fail(m, "no interface described or bound yet");
        return false;
    }
    switch (p->kind) {
    case WP_STEP:
        v->in = step;
        return read_step(m, step);
    case WP_IN_F64S: {
        double *x = p->n ? tmp->p[tmp->n++] = SEAM_NEW_N(double, n) : scratch(s, s->in, (int)i);
        v->in = x;
        return seam_msg_f64s(m, p->key, true, x, n);
    }
    case WP_OUT_F64S:
        v->out = p->n ? tmp->p[tmp->n++] = SEAM_NEW_N(double, n) : out_scratch(s, (int)i);
        return true;
    case WP_IN_STRUCT: {
        if (s->n_refused == MAX_REFUSED_BINDS) {
            seam_msg_fail(m, "the plugin refused %d %ss in a row; create a new instance", MAX_REFUSED_BINDS,
                          wire_entry_at(s->entry)->name);
            return false;
        }
        void *obj = in->p[in->n++] = seam_xcalloc(1, p->st->size);   /* the plugin may keep it, as its arrays */
        v->in = obj;
        return wire_struct_read(m, p->st, obj, in) && wire_struct_check(m, p->st, obj);
    }
    case WP_OUT_STRUCT:
        v->out = tmp->p[tmp->n++] = seam_xcalloc(1, p->st->size);
        return true;
    case WP_IN_BYTES: {
        void *copy = NULL;   /* only for bytes split over frames that do not lie back to back */
        bool ok = seam_msg_bin(m, p->key, true, &v->in, &v->size, &copy);
        if (copy)
            tmp->p[tmp->n++] = copy;
        return ok;
    }
    case WP_IN_STR:
    case WP_IN_PATH:
        return (v->in = tmp->p[tmp->n++] = dup_field(m, p->key, true)) != NULL;
    case WP_IN_INDEX: {
        int64_t k = 0;
        if (seam_msg_int(m, p->key, true, &k) && (k < 0 || k > INT32_MAX))
            seam_msg_fail(m, "field \"%s\": %lld is out of range", p->key, (long long)k);
        v->index = (int)k;
        return !m->error[0];
    }
    default:
        return false;
    }
}

/* After the call: an interface handed in is kept while the plugin may
 * point into it (a refused one too: it may hold either), one handed out
 * sizes the per-solve arrays. */
static void after_call(seam_session *s, const wire_entry *d, const wire_arg *v, seam_status st, wire_allocs *in)
{
    for (size_t i = 0; i < d->n_params; i++) {
        const wire_param *p = &d->p[i];
        size_t n = 0;
        if (p->kind == WP_IN_STRUCT && st == SEAM_OK) {
            wire_allocs_free(&s->bound);
            for (size_t k = 0; k < s->n_refused; k++)
                wire_allocs_free(&s->refused[k]);
            s->n_refused = 0;
            s->bound = *in;
            if (wire_struct_iface(p->st, v[i].in, &n))
                set_iface_size(s, n);
        } else if (p->kind == WP_IN_STRUCT) {
            s->refused[s->n_refused++] = *in;
            if (wire_struct_iface(p->st, v[i].in, &n))
                set_iface_size(s, 0);
        } else if (p->kind == WP_OUT_STRUCT && st == SEAM_OK && wire_struct_iface(p->st, v[i].out, &n) && n)
            set_iface_size(s, n);
    }
}

/* The reply: status, and with status 0 the outputs. */
static void write_outputs(seam_session *s, const wire_entry *d, const wire_arg *v, seam_status st, uint64_t id,
                          seam_wbuf *w)
{
    size_t fields = 1;
    for (size_t i = 0; i < d->n_params && st == SEAM_OK; i++)
        fields += d->p[i].kind == WP_OUT_F64S ? 1 : d->p[i].kind == WP_OUT_STRUCT ? wire_struct_keys(d->p[i].st, v[i].out) : 0;
    begin_ok(w, s, id, fields, 0);
    kv_status(w, st);
    for (size_t i = 0; i < d->n_params && st == SEAM_OK; i++) {
        const wire_param *p = &d->p[i];
        if (p->kind == WP_OUT_F64S && !p->n) {   /* shared with the frames while ZeroMQ sends them */
            seam_w_str(w, p->key);
            seam_w_f64s_ref(w, v[i].out, s->n_iface, s->out[i]);
        } else if (p->kind == WP_OUT_F64S) {
            seam_w_str(w, p->key);
            seam_w_f64s(w, v[i].out, p->n);
        } else if (p->kind == WP_OUT_STRUCT)
            wire_struct_write(w, p->st, v[i].out);
    }
}

/* Every entry plugin.h gives a shape: decode its inputs, call, encode its outputs. */
static void op_shaped(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w)
{
    const wire_entry *d = wire_entry_at(s->entry);
    wire_arg v[3] = {{0}};
    seam_step step = {0};
    wire_allocs tmp = {0}, in = {0};
    for (size_t i = 0; i < d->n_params && !m->error[0]; i++)
        read_input(s, m, &d->p[i], i, &v[i], &step, &tmp, &in);
    if (m->error[0]) {
        wire_allocs_free(&tmp);
        wire_allocs_free(&in);
        fail(w, s, id, "%s: %s", d->name, m->error);
        return;
    }
    seam_status st = invokers[s->entry](s->p, s->self, v);
    after_call(s, d, v, st, &in);
    write_outputs(s, d, v, st, id, w);
    wire_allocs_free(&tmp);
}

/* One handler per entry of the plugin table that travels as an op (every
 * entry but create and destroy, which are the session's own create and bye). */
typedef void (*op_handler)(seam_session *s, seam_msg *m, uint64_t id, seam_wbuf *w);
static const struct { const char *op; op_handler fn; } handlers[] = {
    {"max_dt", op_max_dt}, {"solve", op_solve}, {"commit", op_commit}, {"field", op_field},
    {"capabilities", op_capabilities}, {"bodies", op_bodies},
};

bool seam_session_serves(const char *entry)
{
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if (strcmp(handlers[i].op, entry) == 0)
            return true;
    return wire_entry_find(entry, NULL) != NULL;
}

void seam_session_handle(seam_session *s, const void *req, size_t len, seam_wbuf *w, bool *ended)
{
    seam_session_handle_parts(s, req, len, NULL, 0, w, ended);
}

static void handle(seam_session *s, const void *req, size_t len, const seam_part *parts, size_t n_parts,
                   seam_wbuf *w, bool *ended, uint64_t *id_out);

void seam_session_handle_parts(seam_session *s, const void *req, size_t len, const seam_part *parts,
                               size_t n_parts, seam_wbuf *w, bool *ended)
{
    uint64_t id = 0;
    handle(s, req, len, parts, n_parts, w, ended, &id);
    if (w->failed == EMSGSIZE)   /* say so rather than send half of it */
        fail(w, s, id, "the reply holds an array of more than %lld bytes, which no peer takes",
             (long long)SEAM_WIRE_MAX_MESSAGE);
    else if (w->failed)
        fail(w, s, id, "out of memory for the reply");
}

static void handle(seam_session *s, const void *req, size_t len, const seam_part *parts, size_t n_parts,
                   seam_wbuf *w, bool *ended, uint64_t *id_out)
{
    seam_msg m;
    uint64_t id = 0;
    char op[32];
    *ended = false;
    seam_wbuf_init(w, 0);
    clear_log(s);
    if (!seam_msg_parse(&m, req, len))
        { fail(w, s, 0, "malformed request: %s", m.error); return; }
    if (!seam_msg_take_parts(&m, parts, n_parts)) {
        seam_msg_uint(&m, "id", false, &id);   /* the map itself is fine: answer its id */
        fail(w, s, id, "malformed request: %s", m.error);
        return;
    }
    seam_msg_uint(&m, "id", true, &id);
    *id_out = id;
    seam_msg_strcpy(&m, "op", true, op, sizeof op);
    if (m.error[0])
        { fail(w, s, id, "malformed request: %s", m.error); return; }
    if (strcmp(op, "hello") == 0)
        { op_hello(s, &m, id, w); return; }
    op_handler fn = NULL;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if (strcmp(handlers[i].op, op) == 0)
            fn = handlers[i].fn;
    int shaped = -1;
    if (!fn && wire_entry_find(op, &shaped))
        fn = op_shaped;
    bool is_create = strcmp(op, "create") == 0, is_bye = strcmp(op, "bye") == 0;
    if (!fn && !is_create && !is_bye)
        { fail(w, s, id, "unknown op \"%s\"", op); return; }
    if (!s->greeted)
        { fail(w, s, id, "%s: say hello first", op); return; }
    if (is_bye) {   /* the session ends, the instance goes */
        free_instance(s);
        s->greeted = false;
        *ended = true;
        { begin_ok(w, s, id, 0, 0); return; }
    }
    if (is_create)
        { op_create(s, &m, id, w); return; }
    if (!s->self && !(shaped >= 0 && wire_entry_at(shaped)->recv == WIRE_RECV_SEAM_PLUGIN))   /* the table's own */
        { fail(w, s, id, "%s: no instance (send create first)", op); return; }
    const seam_entry_info *e = seam_plugin_entry_find(op);
    if (!e || !seam_plugin_has(s->p, e))
        { fail(w, s, id, "%s: plugin \"%s\" does not provide it", op, s->p->name); return; }
    if (shaped >= 0)
        s->entry = shaped;
    fn(s, &m, id, w);
}
