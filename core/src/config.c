/* JSON documents with key positions, and validating readers over them. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seam/alloc.h"
#include "seam/config.h"
#include "seam/log.h"

/* ---- small string helpers --------------------------------------------- */

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = seam_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static char *join_key(const char *prefix, const char *key)
{
    if (!prefix || !*prefix)
        return seam_xstrdup(key);
    return dup_printf("%s.%s", prefix, key);
}

size_t seam_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = seam_xmalloc_n(lb + 1, sizeof *row);
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

/* ---- documents -------------------------------------------------------- */

typedef struct {
    char *path;
    int line, col;
} key_pos;

struct seam_doc {
    json_t *root;
    char *origin;
    key_pos *pos;
    size_t n_pos, cap_pos;
    char **overrides;        /* key paths set from the command line */
    size_t n_overrides;
    char where[1024];
};

/* A scanner over JSON text that Jansson has already accepted: it only needs
 * to find where each key starts, so it trusts the grammar. */
typedef struct {
    const char *s;
    int line, col;
    seam_doc *doc;
} scanner;

static void sc_advance(scanner *sc)
{
    if (*sc->s == '\n') {
        sc->line++;
        sc->col = 1;
    } else if ((*sc->s & 0xC0) != 0x80) {   /* count UTF-8 code points, as Jansson does */
        sc->col++;
    }
    sc->s++;
}

static void sc_space(scanner *sc)
{
    while (*sc->s == ' ' || *sc->s == '\t' || *sc->s == '\n' || *sc->s == '\r')
        sc_advance(sc);
}

static void doc_add_pos(seam_doc *doc, const char *path, int line, int col)
{
    if (doc->n_pos == doc->cap_pos) {
        size_t cap = doc->cap_pos ? 2 * doc->cap_pos : 64;
        doc->pos = seam_xrealloc_n(doc->pos, cap, sizeof *doc->pos);
        doc->cap_pos = cap;
    }
    doc->pos[doc->n_pos++] = (key_pos){seam_xstrdup(path), line, col};
}

/* Reads a JSON string at sc->s (on the opening quote); returns it unescaped
 * enough for key paths (escapes other than \" and \\ kept verbatim). */
static char *sc_string(scanner *sc)
{
    sc_advance(sc);
    size_t cap = 32, n = 0;
    char *out = seam_xmalloc(cap);
    while (*sc->s && *sc->s != '"') {
        char c = *sc->s;
        if (c == '\\') {
            sc_advance(sc);
            c = *sc->s;
        }
        if (n + 2 > cap) {
            cap *= 2;
            out = seam_xrealloc(out, cap);
        }
        out[n++] = c;
        sc_advance(sc);
    }
    if (*sc->s == '"')
        sc_advance(sc);
    out[n] = '\0';
    return out;
}

static void sc_value(scanner *sc, const char *path);

static void sc_value(scanner *sc, const char *path)
{
    sc_space(sc);
    if (*sc->s == '{') {
        sc_advance(sc);
        for (;;) {
            sc_space(sc);
            if (*sc->s == '}' || !*sc->s) {
                if (*sc->s)
                    sc_advance(sc);
                return;
            }
            if (*sc->s == ',') {
                sc_advance(sc);
                continue;
            }
            int line = sc->line, col = sc->col;
            char *key = sc_string(sc);
            char *child = join_key(path, key);
            doc_add_pos(sc->doc, child, line, col);
            sc_space(sc);
            if (*sc->s == ':')
                sc_advance(sc);
            sc_value(sc, child);
            free(child);
            free(key);
        }
    } else if (*sc->s == '[') {
        sc_advance(sc);
        for (size_t i = 0;; ) {
            sc_space(sc);
            if (*sc->s == ']' || !*sc->s) {
                if (*sc->s)
                    sc_advance(sc);
                return;
            }
            if (*sc->s == ',') {
                sc_advance(sc);
                continue;
            }
            char *child = dup_printf("%s[%zu]", path, i++);
            doc_add_pos(sc->doc, child, sc->line, sc->col);
            sc_value(sc, child);
            free(child);
        }
    } else if (*sc->s == '"') {
        free(sc_string(sc));
    } else {
        while (*sc->s && !strchr(",]} \t\r\n", *sc->s))
            sc_advance(sc);
    }
}

seam_doc *seam_doc_parse(const char *text, const char *origin, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (err)
            snprintf(err, errlen, "%s:%d:%d: %s", origin, je.line, je.column, je.text);
        return NULL;
    }
    seam_doc *doc = SEAM_NEW(seam_doc);
    doc->root = root;
    doc->origin = seam_xstrdup(origin);
    scanner sc = {text, 1, 1, doc};
    sc_value(&sc, "");
    return doc;
}

seam_doc *seam_doc_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *text = seam_xmalloc(cap);
    size_t got;
    while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            text = seam_xrealloc(text, cap);
        }
    }
    int bad = ferror(f);
    fclose(f);
    text[n] = '\0';
    if (bad) {
        if (err)
            snprintf(err, errlen, "%s: read error", path);
        free(text);
        return NULL;
    }
    seam_doc *doc = seam_doc_parse(text, path, err, errlen);
    free(text);
    return doc;
}

void seam_doc_destroy(seam_doc **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_doc *d = *self_p;
    json_decref(d->root);
    for (size_t i = 0; i < d->n_pos; i++)
        free(d->pos[i].path);
    free(d->pos);
    for (size_t i = 0; i < d->n_overrides; i++)
        free(d->overrides[i]);
    free(d->overrides);
    free(d->origin);
    free(d);
    *self_p = NULL;
}

json_t *seam_doc_root(const seam_doc *self) { return self->root; }
const char *seam_doc_origin(const seam_doc *self) { return self->origin; }

/* Whether `path` is `prefix` or lies below it. */
static bool path_within(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '.' || path[n] == '[');
}

const char *seam_doc_locate(seam_doc *self, const char *key_path)
{
    for (size_t i = self->n_overrides; i-- > 0;)
        if (path_within(key_path, self->overrides[i])) {
            snprintf(self->where, sizeof self->where, "--set %s", self->overrides[i]);
            return self->where;
        }
    /* A key the file does not hold but an override created on its way ("--set fluid.new.x=1" makes
     * "fluid.new"): the override, not the enclosing object's place in the file. */
    bool written = false;
    for (size_t i = 0; i < self->n_pos && !written; i++)
        written = strcmp(self->pos[i].path, key_path) == 0;
    for (size_t i = self->n_overrides; !written && i-- > 0;)
        if (path_within(self->overrides[i], key_path)) {
            snprintf(self->where, sizeof self->where, "--set %s", self->overrides[i]);
            return self->where;
        }
    /* The key itself, else its nearest written ancestor (a top-level key's is the origin). */
    for (size_t len = strlen(key_path);;) {
        for (size_t i = 0; i < self->n_pos; i++)
            if (strlen(self->pos[i].path) == len && strncmp(self->pos[i].path, key_path, len) == 0) {
                snprintf(self->where, sizeof self->where, "%s:%d:%d", self->origin,
                         self->pos[i].line, self->pos[i].col);
                return self->where;
            }
        if (len == 0 || (len = seam_key_path_parent(key_path, len)) == 0)
            break;
    }
    snprintf(self->where, sizeof self->where, "%s", self->origin);
    return self->where;
}

size_t seam_key_path_parent(const char *path, size_t len)
{
    while (len > 0 && path[len - 1] != '.' && path[len - 1] != '[')
        len--;
    return len > 0 ? len - 1 : 0;
}

seam_status seam_doc_set(seam_doc *self, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        snprintf(err, errlen, "--set %s: expected KEY=VALUE", assignment);
        return SEAM_ERROR;
    }
    char *keys = seam_xstrndup(assignment, (size_t)(eq - assignment));
    const char *text = eq + 1;
    json_error_t je;
    json_t *value = json_loads(text, JSON_DECODE_ANY, &je);
    if (!value)
        value = json_string(text);

    /* Split "a.b[0].c" / "a.b.0.c" into segments; an empty segment ("a..b", "a.", "[0]x") or an unpaired
     * bracket is a typo, not a path to create. */
    const char *bad = NULL;
    int open = 0;
    for (char *c = keys; *c && !bad; c++) {
        if (*c == '[')
            bad = open++ ? "a '[' inside brackets" : c == keys ? "a '[' with no key before it" : NULL;
        else if (*c == ']')
            bad = open-- != 1 ? "a ']' without its '['" : c[1] && c[1] != '.' && c[1] != '[' ? "text after ']'" : NULL;
        else if (*c == '.')
            bad = c == keys || c[-1] == '.' || c[-1] == '[' || !c[1] ? "an empty key" : NULL;
        if (*c == ']' && !bad && c[-1] == '[')
            bad = "an empty index";
    }
    if (!bad && open)
        bad = "a '[' without its ']'";
    if (bad) {
        snprintf(err, errlen, "--set %s: malformed key path (%s); write it as a.b[0].c or a.b.0.c", assignment, bad);
        json_decref(value);
        free(keys);
        return SEAM_ERROR;
    }
    for (char *c = keys; *c; c++)
        if (*c == '[' || *c == ']')
            *c = '.';
    char canon[1024] = "";
    json_t *node = self->root;
    char *save = NULL;
    char *seg = strtok_r(keys, ".", &save);
    seam_status rc = SEAM_OK;
    while (seg) {
        char *next = strtok_r(NULL, ".", &save);
        size_t len = strlen(canon);
        if (json_is_array(node)) {
            char *end;
            unsigned long idx = strtoul(seg, &end, 10);
            if (*end || idx >= json_array_size(node)) {
                snprintf(err, errlen, "--set %s: %s%s has no item %s", assignment, canon,
                         *canon ? "" : "(root)", seg);
                rc = SEAM_ERROR;
                break;
            }
            snprintf(canon + len, sizeof canon - len, "[%lu]", idx);
            if (!next) {
                json_array_set(node, idx, value);
                break;
            }
            node = json_array_get(node, idx);
        } else if (json_is_object(node)) {
            snprintf(canon + len, sizeof canon - len, "%s%s", len ? "." : "", seg);
            if (!next) {
                json_object_set(node, seg, value);
                break;
            }
            json_t *child = json_object_get(node, seg);
            if (!child) {
                child = json_object();
                json_object_set_new(node, seg, child);
            }
            node = child;
        } else {
            snprintf(err, errlen, "--set %s: %s is not an object or array", assignment, canon);
            rc = SEAM_ERROR;
            break;
        }
        seg = next;
    }
    if (!seg && rc == SEAM_OK) {
        snprintf(err, errlen, "--set %s: empty key", assignment);
        rc = SEAM_ERROR;
    }
    if (rc == SEAM_OK) {
        self->overrides = seam_xrealloc_n(self->overrides, self->n_overrides + 1, sizeof *self->overrides);
        self->overrides[self->n_overrides++] = seam_xstrdup(canon);
    }
    json_decref(value);
    free(keys);
    return rc;
}

/* ---- readers ---------------------------------------------------------- */

typedef struct {
    int errors;
    seam_doc *doc;
    const seam_host *host;      /* for readers built from a plugin's host */
    json_t *owned;              /* the parsed text, for readers from text */
    seam_cfg_report report;
    void *report_ctx;
} cfg_shared;

struct seam_cfg {
    json_t *obj;
    char *path;
    cfg_shared *shared;
    bool is_root;
    char **known;
    size_t n_known;
    seam_cfg **children;
    size_t n_children;
};

static void mark_known(seam_cfg *c, const char *key)
{
    for (size_t i = 0; i < c->n_known; i++)
        if (strcmp(c->known[i], key) == 0)
            return;
    c->known = seam_xrealloc_n(c->known, c->n_known + 1, sizeof *c->known);
    c->known[c->n_known++] = seam_xstrdup(key);
}

static const char *locate(seam_cfg *c, const char *full)
{
    cfg_shared *sh = c->shared;
    if (sh->doc)
        return seam_doc_locate(sh->doc, full);
    if (sh->host && sh->host->locate) {
        const char *prefix = sh->host->config_path ? sh->host->config_path : "";
        size_t n = strlen(prefix);
        const char *rel = full;
        if (n && strncmp(full, prefix, n) == 0)
            rel = full[n] == '.' ? full + n + 1 : full + n;
        return sh->host->locate(sh->host->ctx, rel);
    }
    return NULL;
}

static void host_report(const seam_host *host, const char *where, const char *key_path, const char *message);

/* Count one error and hand it to the reader's report callback, or to the
 * host's log for readers made by seam_cfg_from_host. */
static void deliver(seam_cfg *c, const char *full, const char *msg)
{
    cfg_shared *sh = c->shared;
    sh->errors++;
    if (sh->report)
        sh->report(sh->report_ctx, locate(c, full), full, msg);
    else if (sh->host)
        host_report(sh->host, locate(c, full), full, msg);
}

static void report(seam_cfg *c, const char *key, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char *full = key ? join_key(c->path, key) : seam_xstrdup(c->path);
    deliver(c, full, msg);
    free(full);
}

static void report_f(seam_cfg *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report_f(seam_cfg *c, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(c, key, fmt, ap);
    va_end(ap);
}

void seam_cfg_error(seam_cfg *self, const char *key, const char *fmt, ...)
{
    if (!self)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(self, key, fmt, ap);
    va_end(ap);
}

double seam_cfg_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

bool seam_cfg_check_memory(seam_cfg *self, const char *key, double bytes, const char *what)
{
    double limit = seam_cfg_memory_limit();
    if (!(limit > 0.0) || bytes <= limit)
        return true;
    seam_cfg_error(self, key, "%s need at least %.3g GB of memory, more than this machine's %.3g GB", what,
                   bytes / 1e9, limit / 1e9);
    return false;
}

static seam_cfg *cfg_alloc(json_t *obj, const char *path, cfg_shared *sh, bool root)
{
    seam_cfg *c = SEAM_NEW(seam_cfg);
    c->obj = obj;
    c->path = seam_xstrdup(path ? path : "");
    c->shared = sh;
    c->is_root = root;
    return c;
}

seam_cfg *seam_cfg_new(json_t *obj, const char *prefix, seam_doc *doc,
                       seam_cfg_report report_cb, void *report_ctx)
{
    cfg_shared *sh = SEAM_NEW(cfg_shared);
    sh->doc = doc;
    sh->report = report_cb;
    sh->report_ctx = report_ctx;
    return cfg_alloc(obj, prefix, sh, true);
}

static void host_report(const seam_host *host, const char *where, const char *key_path, const char *message)
{
    if (where)
        seam_logf(host, SEAM_LOG_ERROR, "%s: %s: %s", where, key_path, message);
    else
        seam_logf(host, SEAM_LOG_ERROR, "%s: %s", key_path, message);
}

seam_cfg *seam_cfg_from_host(const char *config_json, const seam_host *host)
{
    json_error_t je;
    json_t *obj = json_loads(config_json ? config_json : "{}", JSON_REJECT_DUPLICATES, &je);
    if (!obj) {
        seam_logf(host, SEAM_LOG_ERROR, "%s: configuration is not valid JSON: %s (line %d, column %d)",
                  host && host->config_path ? host->config_path : "config", je.text, je.line, je.column);
        return NULL;
    }
    cfg_shared *sh = SEAM_NEW(cfg_shared);
    sh->host = host;   /* reports go to host->log (deliver) */
    sh->owned = obj;
    return cfg_alloc(obj, host && host->config_path ? host->config_path : "", sh, true);
}

void seam_cfg_destroy(seam_cfg **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_cfg *c = *self_p;
    for (size_t i = 0; i < c->n_children; i++)
        seam_cfg_destroy(&c->children[i]);
    free(c->children);
    for (size_t i = 0; i < c->n_known; i++)
        free(c->known[i]);
    free(c->known);
    free(c->path);
    if (c->is_root) {
        json_decref(c->shared->owned);
        free(c->shared);
    }
    free(c);
    *self_p = NULL;
}

const char *seam_cfg_path(const seam_cfg *self) { return self ? self->path : ""; }
int seam_cfg_error_count(const seam_cfg *self) { return self ? self->shared->errors : 0; }

/* The value of key, marking it known; NULL when absent (error if required). */
static json_t *get(seam_cfg *c, const char *key, unsigned flags)
{
    if (!c)   /* a reader that failed to open; its error is already reported */
        return NULL;
    mark_known(c, key);
    json_t *v = json_is_object(c->obj) ? json_object_get(c->obj, key) : NULL;
    if (!v && (flags & SEAM_CFG_REQUIRED))
        report_f(c, key, "required key is missing");
    return v;
}

static void describe_value(const json_t *v, char *buf, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: snprintf(buf, n, "an object"); break;
    case JSON_ARRAY: snprintf(buf, n, "an array"); break;
    case JSON_STRING: snprintf(buf, n, "\"%.64s\"", json_string_value(v)); break;
    case JSON_INTEGER: snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: snprintf(buf, n, "%.17g", json_real_value(v)); break;
    case JSON_TRUE: snprintf(buf, n, "true"); break;
    case JSON_FALSE: snprintf(buf, n, "false"); break;
    case JSON_NULL: snprintf(buf, n, "null"); break;
    }
}

static void describe_range(char *buf, size_t n, const char *what, double lo, double hi, unsigned flags)
{
    bool has_lo = isfinite(lo), has_hi = isfinite(hi);
    if (has_lo && has_hi)
        snprintf(buf, n, "%s in %c%.17g, %.17g%c", what, (flags & SEAM_CFG_LO_OPEN) ? '(' : '[', lo, hi,
                 (flags & SEAM_CFG_HI_OPEN) ? ')' : ']');
    else if (has_lo)
        snprintf(buf, n, "%s %s %.17g", what, (flags & SEAM_CFG_LO_OPEN) ? ">" : ">=", lo);
    else if (has_hi)
        snprintf(buf, n, "%s %s %.17g", what, (flags & SEAM_CFG_HI_OPEN) ? "<" : "<=", hi);
    else
        snprintf(buf, n, "%s", what);
}

static bool in_range(double x, double lo, double hi, unsigned flags)
{
    if (isfinite(lo) && ((flags & SEAM_CFG_LO_OPEN) ? !(x > lo) : !(x >= lo)))
        return false;
    if (isfinite(hi) && ((flags & SEAM_CFG_HI_OPEN) ? !(x < hi) : !(x <= hi)))
        return false;
    return true;
}

double seam_cfg_num(seam_cfg *self, const char *key, double def, double lo, double hi, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    char want[256], got[128];
    describe_range(want, sizeof want, "a number", lo, hi, flags);
    describe_value(v, got, sizeof got);
    if (!json_is_number(v)) {
        report_f(self, key, "expected %s, got %s", want, got);
        return def;
    }
    double x = json_number_value(v);
    if (!in_range(x, lo, hi, flags)) {
        report_f(self, key, "expected %s, got %s", want, got);
        return def;
    }
    return x;
}

double seam_cfg_density(seam_cfg *self, const char *key, double def, const char *units, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    char got[128];
    describe_value(v, got, sizeof got);
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(x > 0.0 && x <= SEAM_DENSITY_MAX)) {
        report_f(self, key, "expected a density in (0, %g] %s, got %s%s", SEAM_DENSITY_MAX, units, got,
                 x > SEAM_DENSITY_MAX ? " (denser than any material: osmium, the densest, is 22590 kg/m^3; "
                                        "a unit slip?)" : "");
        return def;
    }
    return x;
}

long seam_cfg_int(seam_cfg *self, const char *key, long def, long lo, long hi, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    char want[256], got[128];
    describe_range(want, sizeof want, "an integer", lo == LONG_MIN ? -INFINITY : (double)lo,
                   hi == LONG_MAX ? INFINITY : (double)hi, flags);
    describe_value(v, got, sizeof got);
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!json_is_number(v) || x != floor(x) ||
        !in_range(x, lo == LONG_MIN ? -INFINITY : (double)lo, hi == LONG_MAX ? INFINITY : (double)hi, flags)) {
        report_f(self, key, "expected %s, got %s", want, got);
        return def;
    }
    return (long)x;
}

/* The shortest %g form of x that reads back as x, its exponent written as
 * people do: 1e6, 1e-9, 2.5e-3 (not 1e+06); whole numbers below 1e4 in
 * full (2000, not 2e3). */
static void short_number(char *buf, size_t n, double x)
{
    if (x == floor(x) && fabs(x) < 1e4) {
        snprintf(buf, n, "%.0f", x);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    char *e = strchr(buf, 'e');
    if (!e)
        return;
    char *d = e + 1, *src = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        *d++ = *src++;
    while (*src == '0' && src[1])
        src++;
    memmove(d, src, strlen(src) + 1);
}

const seam_range *seam_range_find(const seam_range_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->keys[i].name, name) == 0)
            return &t->keys[i];
    return NULL;
}

void seam_range_describe(const seam_range *r, char *buf, size_t n)
{
    char lo[32], hi[32];
    short_number(lo, sizeof lo, r->lo);
    short_number(hi, sizeof hi, r->hi);
    snprintf(buf, n, "%c%s, %s%c%s%s", (r->ends & SEAM_CFG_LO_OPEN) ? '(' : '[', lo, hi,
             (r->ends & SEAM_CFG_HI_OPEN) ? ')' : ']', r->unit && *r->unit ? " " : "", r->unit ? r->unit : "");
}

static bool declared_in_range(const seam_range *r, double x)
{
    if ((r->ends & SEAM_CFG_LO_OPEN) ? !(x > r->lo) : !(x >= r->lo))
        return false;
    return (r->ends & SEAM_CFG_HI_OPEN) ? x < r->hi : x <= r->hi;
}

/* The declaration of name, which the caller's table must hold: a key read
 * without one would go unchecked, so that is refused as a bug of the reader. */
static const seam_range *declared(seam_cfg *self, const seam_range_table *t, const char *name)
{
    const seam_range *r = seam_range_find(t, name);
    if (!r && self)
        report_f(self, name, "internal error: read without a declared range (%s, \"%s\")", t->doc, t->anchor);
    return r;
}

/* Whether v is a number (a whole one when r says so) in r's range; else
 * reports it under `shown` (the key, or "key[2]" for an array's item). */
static bool check_declared(seam_cfg *self, const seam_range *r, const char *shown, json_t *v, double *x)
{
    *x = json_is_number(v) ? json_number_value(v) : NAN;
    if (json_is_number(v) && (!r->integer || *x == floor(*x)) && declared_in_range(r, *x))
        return true;
    char want[160], got[128];
    seam_range_describe(r, want, sizeof want);
    describe_value(v, got, sizeof got);
    report_f(self, shown, "expected %s in %s, got %s", r->integer ? "an integer" : "a number", want, got);
    return false;
}

/* The key a declaration names in its reader's object ("liquid.flip": "flip"). */
static const char *declared_key(const seam_range *r)
{
    const char *dot = strrchr(r->name, '.');
    return dot ? dot + 1 : r->name;
}

/* The declaration of name for a getter of one number (each = false) or of
 * arrays (each = true). An array's declaration serves a number too (an
 * angular velocity: a number in 2D, a vector in 3D); arrays read through a
 * declaration of one number are a bug of the reader, reported as one. */
static const seam_range *declared_as(seam_cfg *self, const seam_range_table *t, const char *name, bool each)
{
    const seam_range *r = declared(self, t, name);
    if (r && each && !(r->ends & SEAM_RANGE_EACH)) {
        report_f(self, name, "internal error: read as an array but declared as one number (%s, \"%s\")", t->doc,
                 t->anchor);
        return NULL;
    }
    return r;
}

/* The key's value when it is a number (an integer when the declaration says
 * so) in the declared range; else reports it and gives NAN. */
static double read_declared(seam_cfg *self, const seam_range *r, bool *present, unsigned flags)
{
    const char *key = declared_key(r);
    json_t *v = get(self, key, flags);
    *present = v != NULL;
    double x = NAN;
    if (!v || !check_declared(self, r, key, v, &x))
        return NAN;
    return x;
}

double seam_cfg_key(seam_cfg *self, const seam_range_table *t, const char *name, double def, unsigned flags)
{
    const seam_range *r = declared_as(self, t, name, false);
    bool present = false;
    double x = r ? read_declared(self, r, &present, flags) : NAN;
    return present && !isnan(x) ? x : def;
}

long seam_cfg_key_int(seam_cfg *self, const seam_range_table *t, const char *name, long def, unsigned flags)
{
    const seam_range *r = declared_as(self, t, name, false);
    bool present = false;
    double x = r ? read_declared(self, r, &present, flags) : NAN;
    return present && !isnan(x) ? (long)x : def;
}

/* Every number of the array v (each an array itself when inner > 0: a
 * point's coordinates) in r's range, each refusal naming its item
 * ("box[3]", "vertices[2][1]"); true when all are. */
static bool check_items(seam_cfg *self, const seam_range *r, const char *key, json_t *v, size_t inner)
{
    bool ok = true;
    double x;
    char shown[256];
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *item = json_array_get(v, i);
        for (size_t k = 0; k < (inner ? inner : 1); k++) {
            if (inner)
                snprintf(shown, sizeof shown, "%s[%zu][%zu]", key, i, k);
            else
                snprintf(shown, sizeof shown, "%s[%zu]", key, i);
            ok = check_declared(self, r, shown, inner ? json_array_get(item, k) : item, &x) && ok;
        }
    }
    return ok;
}

bool seam_cfg_key_vec(seam_cfg *self, const seam_range_table *t, const char *name, double *out, size_t n,
                      unsigned flags)
{
    const seam_range *r = declared_as(self, t, name, true);
    if (!r || !self)
        return false;
    const char *key = declared_key(r);
    double *got = SEAM_NEW_N(double, n ? n : 1);
    bool ok = seam_cfg_vec(self, key, got, n, flags) && check_items(self, r, key, seam_cfg_json(self, key), 0);
    if (ok)
        memcpy(out, got, n * sizeof *out);
    free(got);
    return ok;
}

double *seam_cfg_key_numbers(seam_cfg *self, const seam_range_table *t, const char *name, size_t *n, unsigned flags)
{
    *n = 0;
    const seam_range *r = declared_as(self, t, name, true);
    if (!r || !self)
        return NULL;
    const char *key = declared_key(r);
    double *out = seam_cfg_numbers(self, key, n, flags);
    if (out && !check_items(self, r, key, seam_cfg_json(self, key), 0)) {
        free(out);
        *n = 0;
        return NULL;
    }
    return out;
}

double *seam_cfg_key_points(seam_cfg *self, const seam_range_table *t, const char *name, int dim, size_t *n,
                            unsigned flags)
{
    *n = 0;
    const seam_range *r = declared_as(self, t, name, true);
    if (!r || !self)
        return NULL;
    const char *key = declared_key(r);
    double *out = seam_cfg_points(self, key, dim, n, flags);
    if (out && !check_items(self, r, key, seam_cfg_json(self, key), (size_t)dim)) {
        free(out);
        *n = 0;
        return NULL;
    }
    return out;
}

bool seam_cfg_bool(seam_cfg *self, const char *key, bool def, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    if (!json_is_boolean(v)) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected true or false, got %s", got);
        return def;
    }
    return json_is_true(v);
}

const char *seam_cfg_str(seam_cfg *self, const char *key, const char *def, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    if (!json_is_string(v)) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected a string, got %s", got);
        return def;
    }
    return json_string_value(v);
}

const char *seam_cfg_file(seam_cfg *self, const char *key, const char *def, char *buf, size_t n, unsigned flags)
{
    const char *name = seam_cfg_str(self, key, NULL, flags);
    if (!name)
        return def;
    const char *base = NULL;
    char origin_dir[4096];
    if (self->shared->host && self->shared->host->scene_dir)
        base = self->shared->host->scene_dir;
    else if (self->shared->doc) {
        const char *origin = seam_doc_origin(self->shared->doc);
        const char *slash = strrchr(origin, '/');
        if (slash) {
            snprintf(origin_dir, sizeof origin_dir, "%.*s", (int)(slash - origin), origin);
            base = slash == origin ? "/" : origin_dir;
        }
    }
    if (name[0] == '/' || !base || !*base)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "%s/%s", base, name);
    return buf;
}

int seam_cfg_enum(seam_cfg *self, const char *key, const char *const *names, int def, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return def;
    char list[512] = "";
    size_t best = (size_t)-1;
    int best_i = -1;
    for (int i = 0; names[i]; i++) {
        if (json_is_string(v) && strcmp(json_string_value(v), names[i]) == 0)
            return i;
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s\"%s\"", i ? ", " : "", names[i]);
        if (json_is_string(v)) {
            const char *given = json_string_value(v);
            /* A prefix ("relax" for "relaxation") counts as one edit. */
            size_t d = *given && strncmp(names[i], given, strlen(given)) == 0 ? 1 : seam_edit_distance(given, names[i]);
            if (d < best) {
                best = d;
                best_i = i;
            }
        }
    }
    char got[128];
    describe_value(v, got, sizeof got);
    if (best_i >= 0 && best <= 3)
        report_f(self, key, "expected one of %s, got %s (did you mean \"%s\"?)", list, got, names[best_i]);
    else
        report_f(self, key, "expected one of %s, got %s", list, got);
    return def;
}

bool seam_cfg_vec(seam_cfg *self, const char *key, double *out, size_t n, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return false;
    bool ok = json_is_array(v) && json_array_size(v) == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = json_is_number(json_array_get(v, i));
    if (!ok) {
        char got[128];
        describe_value(v, got, sizeof got);
        if (json_is_array(v))
            snprintf(got, sizeof got, "an array of %zu", json_array_size(v));
        report_f(self, key, "expected an array of %zu numbers, got %s", n, got);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = json_number_value(json_array_get(v, i));
    return true;
}

static void format_vec(const double *v, int dim, char *buf, size_t n)
{
    int len = snprintf(buf, n, "[");
    for (int i = 0; i < dim && len > 0 && (size_t)len < n; i++)
        len += snprintf(buf + len, n - (size_t)len, "%s%g", i ? ", " : "", v[i]);
    if (len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "]");
}

bool seam_cfg_gravity(seam_cfg *self, const seam_host *host, int dim, const double *dflt, double out[3])
{
    if (dim < 1 || dim > 3)
        dim = 3;
    const double *scene = host ? host->gravity : NULL;
    for (int i = 0; i < 3; i++)
        out[i] = i >= dim ? 0.0 : scene ? scene[i] : dflt ? dflt[i] : 0.0;
    double own[3] = {0, 0, 0};
    if (!seam_cfg_vec(self, "gravity", own, (size_t)dim, 0))
        return false;
    double size = hypot(hypot(own[0], own[1]), own[2]);   /* no overflow for huge components */
    if (!(size <= SEAM_GRAVITY_MAX)) {
        report_f(self, "gravity", "|g| = %g m/s^2 is more than %g m/s^2 (1000 times the Earth's 9.81): a typo or a "
                 "unit slip", size, SEAM_GRAVITY_MAX);
        return true;
    }
    bool differs = false;
    for (int i = 0; i < dim; i++)
        differs = differs || (scene && own[i] != scene[i]);
    memcpy(out, own, sizeof own);
    if (differs) {
        char mine[128], theirs[128];
        format_vec(own, dim, mine, sizeof mine);
        format_vec(scene, dim, theirs, sizeof theirs);
        char *full = join_key(self->path, "gravity");
        const char *where = locate(self, full);
        seam_logf(host, SEAM_LOG_WARN, "%s%s%s: gravity %s from the configuration overrides the scene's gravity %s",
                  where ? where : "", where ? ": " : "", full ? full : "gravity", mine, theirs);
        free(full);
    }
    return true;
}

double *seam_cfg_numbers(seam_cfg *self, const char *key, size_t *n, unsigned flags)
{
    *n = 0;
    json_t *v = get(self, key, flags);
    if (!v)
        return NULL;
    bool ok = json_is_array(v);
    for (size_t i = 0; ok && i < json_array_size(v); i++)
        ok = json_is_number(json_array_get(v, i));
    if (!ok) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected an array of numbers, got %s", got);
        return NULL;
    }
    size_t len = json_array_size(v);
    double *out = seam_xmalloc_n(len, sizeof *out);
    for (size_t i = 0; i < len; i++)
        out[i] = json_number_value(json_array_get(v, i));
    *n = len;
    return out;
}

double *seam_cfg_points(seam_cfg *self, const char *key, int dim, size_t *n, unsigned flags)
{
    *n = 0;
    json_t *v = get(self, key, flags);
    if (!v)
        return NULL;
    if (!json_is_array(v)) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected an array of points of %d numbers, got %s", dim, got);
        return NULL;
    }
    size_t len = json_array_size(v);
    for (size_t i = 0; i < len; i++) {
        json_t *p = json_array_get(v, i);
        bool ok = json_is_array(p) && json_array_size(p) == (size_t)dim;
        for (int k = 0; ok && k < dim; k++)
            ok = json_is_number(json_array_get(p, (size_t)k));
        if (!ok) {
            char got[128];
            if (json_is_array(p))
                snprintf(got, sizeof got, "an array of %zu", json_array_size(p));
            else
                describe_value(p, got, sizeof got);
            report_f(self, key, "point %zu: expected an array of %d numbers, got %s", i, dim, got);
            return NULL;
        }
    }
    double *out = seam_xmalloc_n(len, (size_t)dim * sizeof *out);
    for (size_t i = 0; i < len; i++)
        for (int k = 0; k < dim; k++)
            out[i * (size_t)dim + (size_t)k] = json_number_value(json_array_get(json_array_get(v, i), (size_t)k));
    *n = len;
    return out;
}

static seam_cfg *add_child(seam_cfg *self, json_t *obj, const char *path)
{
    seam_cfg *c = cfg_alloc(obj, path, self->shared, false);
    self->children = seam_xrealloc_n(self->children, self->n_children + 1, sizeof *self->children);
    self->children[self->n_children++] = c;
    return c;
}

seam_cfg *seam_cfg_child(seam_cfg *self, const char *key, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return NULL;
    if (!json_is_object(v)) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected an object, got %s", got);
        return NULL;
    }
    char *path = join_key(self->path, key);
    seam_cfg *c = add_child(self, v, path);
    free(path);
    return c;
}

size_t seam_cfg_count(seam_cfg *self, const char *key, unsigned flags)
{
    json_t *v = get(self, key, flags);
    if (!v)
        return 0;
    if (!json_is_array(v)) {
        char got[128];
        describe_value(v, got, sizeof got);
        report_f(self, key, "expected an array, got %s", got);
        return 0;
    }
    return json_array_size(v);
}

seam_cfg *seam_cfg_item(seam_cfg *self, const char *key, size_t i)
{
    if (!self)
        return NULL;
    json_t *v = json_is_object(self->obj) ? json_object_get(self->obj, key) : NULL;
    json_t *item = json_is_array(v) ? json_array_get(v, i) : NULL;
    if (!item)
        return NULL;
    char *base = join_key(self->path, key);
    char *path = dup_printf("%s[%zu]", base, i);
    free(base);
    if (!json_is_object(item)) {
        char got[128];
        describe_value(item, got, sizeof got);
        deliver(self, path, "expected an object");
        free(path);
        return NULL;
    }
    seam_cfg *c = add_child(self, item, path);
    free(path);
    return c;
}

bool seam_cfg_has(seam_cfg *self, const char *key) { return get(self, key, 0) != NULL; }
void seam_cfg_skip(seam_cfg *self, const char *key)
{
    if (self)
        mark_known(self, key);
}
json_t *seam_cfg_json(seam_cfg *self, const char *key) { return get(self, key, 0); }

static void finish_one(seam_cfg *c)
{
    if (!json_is_object(c->obj)) {
        char got[128];
        describe_value(c->obj, got, sizeof got);
        report_f(c, NULL, "expected an object, got %s", got);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(c->obj, key, v) {
        bool known = false;
        for (size_t i = 0; i < c->n_known && !known; i++)
            known = strcmp(c->known[i], key) == 0;
        if (known)
            continue;
        size_t best = (size_t)-1;
        const char *sugg = NULL;
        for (size_t i = 0; i < c->n_known; i++) {
            size_t d = seam_edit_distance(key, c->known[i]);
            if (d < best) {
                best = d;
                sugg = c->known[i];
            }
        }
        size_t limit = strlen(key) / 3 + 1;
        if (limit < 2)
            limit = 2;
        if (sugg && best <= limit)
            report_f(c, key, "unknown key (did you mean \"%s\"?)", sugg);
        else if (c->n_known) {
            char list[512] = "";
            for (size_t i = 0; i < c->n_known; i++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", c->known[i]);
            }
            report_f(c, key, "unknown key (known here: %s)", list);
        } else
            report_f(c, key, "unknown key");
    }
    for (size_t i = 0; i < c->n_children; i++)
        finish_one(c->children[i]);
}

seam_status seam_cfg_finish(seam_cfg *self)
{
    if (!self)
        return SEAM_ERROR;
    finish_one(self);
    return self->shared->errors ? SEAM_ERROR : SEAM_OK;
}
