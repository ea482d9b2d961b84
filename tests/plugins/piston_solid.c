/* Added-mass piston, solid side: a piston of mass m_s on a spring k, one
 * degree of freedom per interface point ("count" identical pistons side by
 * side, one point each), integrated with backward Euler:
 *     m_s (v' - v) / dt = -k x' + F,   x' = x + dt v'
 * so x' = (x + dt v + dt^2 F / m_s) / (1 + k dt^2 / m_s) and
 * dx'/dF = dt^2 / (m_s + k dt^2).
 * "commit_delay" and "commit_log" (commit_trace.h) show when it commits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/alloc.h"
#include "seam/checkpoint.h"
#include "seam/config.h"
#include "ranges.h"
#include "seam/log.h"

#include "commit_trace.h"

typedef struct {
    const seam_host *host;
    double m_s, k;
    size_t count;
    double *x, *v;           /* committed, one per piston */
    double *x_new, *v_new;   /* last solve */
    double *mass;            /* per point, for describe */
    unsigned char *saved;    /* save's image (core's checkpoint format) */
    commit_trace trace;      /* commit_delay, commit_log (commit_trace.h) */
} piston_solid;

static void *ps_create(const seam_plugin *plugin, const char *config_json, const seam_host *host)
{
    (void)plugin;
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    piston_solid *s = calloc(1, sizeof *s);
    s->host = host;
    s->m_s = seam_cfg_key(c, PISTON_SOLID_KEYS, "mass", 1.0, SEAM_CFG_REQUIRED);
    s->k = seam_cfg_key(c, PISTON_SOLID_KEYS, "stiffness", 0.0, 0);
    double x0 = seam_cfg_key(c, PISTON_SOLID_KEYS, "position", 0.0, 0);
    double v0 = seam_cfg_key(c, PISTON_SOLID_KEYS, "velocity", 0.0, 0);
    s->count = (size_t)seam_cfg_key_int(c, PISTON_SOLID_KEYS, "count", 1, 0);
    commit_trace_read(c, PISTON_SOLID_KEYS, &s->trace);
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(s);
        return NULL;
    }
    s->x = seam_xmalloc_n(5 * s->count, sizeof *s->x);
    s->v = s->x + s->count;
    s->x_new = s->v + s->count;
    s->v_new = s->x_new + s->count;
    s->mass = s->v_new + s->count;
    for (size_t i = 0; i < s->count; i++) {
        s->x[i] = s->x_new[i] = x0;
        s->v[i] = s->v_new[i] = v0;
        s->mass[i] = s->m_s;
    }
    return s;
}

static void ps_destroy(void *self)
{
    piston_solid *s = self;
    if (s) {
        free(s->x);
        free(s->saved);
    }
    free(s);
}

static seam_status ps_max_dt(void *self, double *dt)
{
    (void)self;
    *dt = INFINITY;   /* backward Euler is unconditionally stable */
    return SEAM_OK;
}

static seam_status ps_describe(void *self, seam_interface *iface)
{
    piston_solid *s = self;
    *iface = (seam_interface){.dim = 1, .n_points = s->count, .X = s->x, .mass = s->mass, .n_bodies = 1};
    return SEAM_OK;
}

static seam_status ps_solve(void *self, const seam_step *step, const seam_input *in, seam_output *out)
{
    piston_solid *s = self;
    if (in->n != s->count || in->dim != 1) {
        seam_logf(s->host, SEAM_LOG_ERROR, "expected %zu interface points of dimension 1, got %zu of %d",
                  s->count, in->n, in->dim);
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

static seam_status ps_commit(void *self)
{
    piston_solid *s = self;
    double t0 = commit_trace_begin(&s->trace);
    memcpy(s->x, s->x_new, s->count * sizeof *s->x);
    memcpy(s->v, s->v_new, s->count * sizeof *s->v);
    if (!commit_trace_end(&s->trace, t0)) {
        seam_logf(s->host, SEAM_LOG_ERROR, "cannot append to %s", s->trace.log);
        return SEAM_ERROR;
    }
    return SEAM_OK;
}

static seam_status ps_mobility(void *self, const double *impulse, double *dv)
{
    piston_solid *s = self;
    for (size_t i = 0; i < s->count; i++)
        dv[i] = impulse[i] / s->m_s;
    return SEAM_OK;
}

static seam_status ps_save(void *self, seam_buffer *out)
{
    piston_solid *s = self;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "piston_solid");
    seam_ckpt_put_f64s(w, s->x, s->count);
    seam_ckpt_put_f64s(w, s->v, s->count);
    size_t n = 0;
    free(s->saved);
    s->saved = seam_ckpt_writer_take(w, &n);
    seam_ckpt_writer_destroy(&w);
    *out = (seam_buffer){s->saved, n};
    return SEAM_OK;
}

static seam_status ps_load(void *self, const void *bytes, size_t n)
{
    piston_solid *s = self;
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(bytes, n, "piston_solid state", err, sizeof err);
    if (!r) {
        seam_logf(s->host, SEAM_LOG_ERROR, "load: %s", err);
        return SEAM_ERROR;
    }
    /* into the trial arrays first: a refused image leaves the committed state */
    if (seam_ckpt_need(r, "piston_solid")) {
        seam_ckpt_get_f64s(r, s->x_new, s->count);
        seam_ckpt_get_f64s(r, s->v_new, s->count);
    }
    bool ok = seam_ckpt_ok(r, true);
    if (!ok)
        seam_logf(s->host, SEAM_LOG_ERROR, "load: %s", seam_ckpt_error(r));
    seam_ckpt_reader_destroy(&r);
    if (!ok)
        return SEAM_ERROR;
    memcpy(s->x, s->x_new, s->count * sizeof *s->x);
    memcpy(s->v, s->v_new, s->count * sizeof *s->v);
    return SEAM_OK;
}

/* Each piston is one rigid body of one point. */
static uint32_t ps_capabilities(void *self)
{
    (void)self;
    return SEAM_CAP_RIGID | SEAM_CAP_MOBILITY | SEAM_CAP_SAVE;
}

static const seam_plugin plugin = {
    .abi = SEAM_ABI_VERSION,
    .name = "piston_solid",
    .role = SEAM_SOLID,
    .summary = "added-mass test: piston of mass m_s on a spring k (backward Euler)",
    .create = ps_create,
    .destroy = ps_destroy,
    .max_dt = ps_max_dt,
    .solve = ps_solve,
    .commit = ps_commit,
    .describe = ps_describe,
    .mobility = ps_mobility,
    .save = ps_save,
    .load = ps_load,
    .capabilities = ps_capabilities,
};

SEAM_PLUGIN_EXPORT const seam_plugin *seam_plugin_v1(void) { return &plugin; }
