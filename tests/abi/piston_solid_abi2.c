/* The added-mass piston solid (tests/plugins/piston_solid.c) as an outside
 * author would have built it against the ABI 2 header and never rebuilt:
 * compiled against tests/abi/include/seam/plugin.h only (the guard below
 * fails the build if core's header is found instead), linked to jansson and
 * libm but to no part of seam. Same numbers as piston_solid:
 *     x' = (x + dt v + dt^2 F / m_s) / (1 + k dt^2 / m_s),  v' = (x' - x) / dt */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "seam/plugin.h"

#if SEAM_ABI_VERSION != 2
#error "piston_solid_abi2 must be built against tests/abi/include/seam/plugin.h (ABI 2), not core's header"
#endif
#ifdef SEAM_CAP_RIGID
#error "the ABI 2 header has no capability flags"
#endif

typedef struct {
    const seam_host *host;
    double m_s, k;
    size_t count;
    double *x, *v;           /* committed, one per piston */
    double *x_new, *v_new;   /* last solve */
    double *mass;            /* per point, for describe */
} piston;

static void say(const seam_host *host, seam_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const seam_host *host, seam_log_level level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (host && host->log)
        host->log(host->ctx, level, msg);
}

/* A number under key, or dflt when absent; -1 after a message when it is not a number. */
static int number(const seam_host *host, json_t *obj, const char *key, double dflt, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_number(v)) {
        say(host, SEAM_LOG_ERROR, "%s.%s: expected a number", host->config_path, key);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

static void *p_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    json_error_t e;
    json_t *obj = json_loads(config_json, 0, &e);
    if (!json_is_object(obj)) {
        say(host, SEAM_LOG_ERROR, "configuration is not a JSON object (line %d: %s)", e.line, e.text);
        json_decref(obj);
        return NULL;
    }
    static const char *const known[] = {"mass", "stiffness", "position", "velocity", "count"};
    const char *key;
    json_t *val;
    int bad = 0;
    json_object_foreach(obj, key, val) {
        size_t i = 0;
        while (i < sizeof known / sizeof known[0] && strcmp(known[i], key) != 0)
            i++;
        if (i == sizeof known / sizeof known[0]) {
            say(host, SEAM_LOG_ERROR, "%s.%s: unknown key", host->config_path, key);
            bad = 1;
        }
    }
    double m_s = 0, k = 0, x0 = 0, v0 = 0, count = 1;
    if (!json_object_get(obj, "mass")) {
        say(host, SEAM_LOG_ERROR, "%s.mass: required", host->config_path);
        bad = 1;
    }
    bad |= number(host, obj, "mass", 1.0, &m_s) | number(host, obj, "stiffness", 0.0, &k) |
           number(host, obj, "position", 0.0, &x0) | number(host, obj, "velocity", 0.0, &v0) |
           number(host, obj, "count", 1.0, &count);
    json_decref(obj);
    if (!bad && (!(m_s > 0) || !(k >= 0) || !(count >= 1) || count != floor(count) || count > 1e8)) {
        say(host, SEAM_LOG_ERROR, "%s: need mass > 0, stiffness >= 0 and a whole count >= 1", host->config_path);
        bad = 1;
    }
    if (bad)
        return NULL;
    piston *s = calloc(1, sizeof *s);
    if (!s || !(s->x = malloc(5 * (size_t)count * sizeof *s->x))) {
        say(host, SEAM_LOG_ERROR, "out of memory");
        free(s);
        return NULL;
    }
    s->host = host;
    s->m_s = m_s;
    s->k = k;
    s->count = (size_t)count;
    s->v = s->x + s->count;
    s->x_new = s->v + s->count;
    s->v_new = s->x_new + s->count;
    s->mass = s->v_new + s->count;
    for (size_t i = 0; i < s->count; i++) {
        s->x[i] = s->x_new[i] = x0;
        s->v[i] = s->v_new[i] = v0;
        s->mass[i] = m_s;
    }
    return s;
}

static void p_destroy(void *self)
{
    piston *s = self;
    if (s)
        free(s->x);
    free(s);
}

static seam_status p_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;
    return SEAM_OK;
}

static seam_status p_describe(void *self, seam_interface *iface)
{
    piston *s = self;
    *iface = (seam_interface){.dim = 1, .n_points = s->count, .X = s->x, .mass = s->mass, .n_bodies = 1};
    return SEAM_OK;
}

static seam_status p_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    piston *s = self;
    if (in->n != s->count || in->dim != 1) {
        say(s->host, SEAM_LOG_ERROR, "expected %zu interface points of dimension 1, got %zu of %d", s->count, in->n,
            in->dim);
        return SEAM_ERROR;
    }
    double dt = step->dt;
    for (size_t i = 0; i < s->count; i++) {
        s->x_new[i] = (s->x[i] + dt * s->v[i] + dt * dt * in->F[i] / s->m_s) / (1.0 + s->k * dt * dt / s->m_s);
        s->v_new[i] = (s->x_new[i] - s->x[i]) / dt;
        out->X[i] = s->x_new[i];
        out->V[i] = s->v_new[i];
    }
    return SEAM_OK;
}

static seam_status p_commit(void *self)
{
    piston *s = self;
    memcpy(s->x, s->x_new, s->count * sizeof *s->x);
    memcpy(s->v, s->v_new, s->count * sizeof *s->v);
    return SEAM_OK;
}

static seam_status p_mobility(void *self, const double *impulse, double *dv)
{
    piston *s = self;
    for (size_t i = 0; i < s->count; i++)
        dv[i] = impulse[i] / s->m_s;
    return SEAM_OK;
}

static seam_status p_save(void *self, seam_buffer *out)
{
    piston *s = self;
    *out = (seam_buffer){s->x, 2 * s->count * sizeof *s->x};
    return SEAM_OK;
}

static seam_status p_load(void *self, const void *bytes, size_t n)
{
    piston *s = self;
    size_t want = 2 * s->count * sizeof *s->x;
    if (n != want) {
        say(s->host, SEAM_LOG_ERROR, "load: expected %zu bytes, got %zu", want, n);
        return SEAM_ERROR;
    }
    memcpy(s->x, bytes, n);
    memcpy(s->x_new, s->x, want);
    return SEAM_OK;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "piston_solid_abi2",
    .role = SEAM_SOLID,
    .summary = "piston_solid built against the ABI 2 header (test fixture)",
    .create = p_create,
    .destroy = p_destroy,
    .max_dt = p_max_dt,
    .solve = p_solve,
    .commit = p_commit,
    .describe = p_describe,
    .mobility = p_mobility,
    .save = p_save,
    .load = p_load,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
