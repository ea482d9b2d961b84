/* Added-mass piston, solid side: a piston of mass m_s on a spring k, one
 * degree of freedom per interface point, integrated with backward Euler:
 *     m_s (v' - v) / dt = -k x' + F,   x' = x + dt v'
 * so x' = (x + dt v + dt^2 F / m_s) / (1 + k dt^2 / m_s) and
 * dx'/dF = dt^2 / (m_s + k dt^2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seam/config.h"
#include "seam/log.h"

typedef struct {
    const seam_host *host;
    double m_s, k;
    double x, v;             /* committed */
    double x_new, v_new;     /* last solve */
    double point_x;          /* interface position of the committed state */
    double saved[2];
} piston_solid;

static void *ps_create(const char *config_json, const seam_host *host)
{
    seam_cfg *c = seam_cfg_from_host(config_json, host);
    if (!c)
        return NULL;
    piston_solid *s = calloc(1, sizeof *s);
    s->host = host;
    s->m_s = seam_cfg_num(c, "mass", 1.0, 0.0, INFINITY, SEAM_CFG_REQUIRED | SEAM_CFG_LO_OPEN);
    s->k = seam_cfg_num(c, "stiffness", 0.0, 0.0, INFINITY, 0);
    s->x = seam_cfg_num(c, "position", 0.0, -INFINITY, INFINITY, 0);
    s->v = seam_cfg_num(c, "velocity", 0.0, -INFINITY, INFINITY, 0);
    seam_status st = seam_cfg_finish(c);
    seam_cfg_destroy(&c);
    if (st != SEAM_OK) {
        free(s);
        return NULL;
    }
    s->x_new = s->x;
    s->v_new = s->v;
    s->point_x = s->x;
    return s;
}

static void ps_destroy(void *self) { free(self); }

static double ps_max_dt(void *self)
{
    (void)self;
    return INFINITY;   /* backward Euler is unconditionally stable */
}

static seam_status ps_describe(void *self, seam_interface *iface)
{
    piston_solid *s = self;
    s->point_x = s->x;
    *iface = (seam_interface){.dim = 1, .n_points = 1, .X = &s->point_x, .mass = &s->m_s, .n_bodies = 1};
    return SEAM_OK;
}

static seam_status ps_solve(void *self, const seam_step *step, const seam_io *in, seam_io *out)
{
    piston_solid *s = self;
    if (in->n != 1 || in->dim != 1) {
        seam_logf(s->host, SEAM_LOG_ERROR, "expected 1 interface point of dimension 1, got %zu of %d", in->n, in->dim);
        return SEAM_ERROR;
    }
    double dt = step->dt, F = in->F[0];
    s->x_new = (s->x + dt * s->v + dt * dt * F / s->m_s) / (1.0 + s->k * dt * dt / s->m_s);
    s->v_new = (s->x_new - s->x) / dt;
    out->X[0] = s->x_new;
    out->V[0] = s->v_new;
    return SEAM_OK;
}

static seam_status ps_commit(void *self)
{
    piston_solid *s = self;
    s->x = s->x_new;
    s->v = s->v_new;
    return SEAM_OK;
}

static seam_status ps_mobility(void *self, const double *impulse, double *dv)
{
    piston_solid *s = self;
    dv[0] = impulse[0] / s->m_s;
    return SEAM_OK;
}

static seam_status ps_save(void *self, seam_buffer *out)
{
    piston_solid *s = self;
    s->saved[0] = s->x;
    s->saved[1] = s->v;
    *out = (seam_buffer){s->saved, sizeof s->saved};
    return SEAM_OK;
}

static seam_status ps_load(void *self, const void *bytes, size_t n)
{
    piston_solid *s = self;
    if (n != sizeof s->saved) {
        seam_logf(s->host, SEAM_LOG_ERROR, "load: expected %zu bytes, got %zu", sizeof s->saved, n);
        return SEAM_ERROR;
    }
    memcpy(s->saved, bytes, n);
    s->x = s->x_new = s->saved[0];
    s->v = s->v_new = s->saved[1];
    return SEAM_OK;
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
};

const seam_plugin *seam_plugin_v1(void) { return &plugin; }
